/*
 * tcgemm_params.c - the fitted constants of the tensor-core GEMM model
 * (tcgemm.c), produced from the measured GEMMs of /work/shared/data
 * (PipeWeave FP8 on H20 and H800, Vidur FP16 projections on A100 and A40,
 * DeepBench FP16 on V100 and T4), all six GPUs, by
 *
 *   make && build/surfer-bench-tc --data ../shared/data --emit
 *
 * TF32, BF16 and INT8 have no training data: they use the FP16 efficiency.
 */
#include "predictor/tcgemm.h"

/* 79784 GEMMs on 6 GPUs, weighted RMS of log error 0.202 */
const struct tcgemm_params tcgemm_default_params = {
	.eff = {[GPU_DT_FP16] = 0.7649, [GPU_DT_FP8] = 0.7033},
	.k0 = 21.72,
	.wave_pow = 0.5385,
	.pad_pow = 0.7554,
	.bw_eff = 0.9167,
	.overhead_ns = 7386.3,
};
