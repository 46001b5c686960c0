/*
 * tcgemm_params.c - the fitted constants of the tensor-core GEMM model
 * (tcgemm.c), fitted on the measured GEMMs of the shared data folder
 * (PipeWeave FP8 on H20 and H800, Vidur FP16 projections on A100 and A40,
 * DeepBench FP16 on V100 and T4: 79784 GEMMs, six GPUs) with one efficiency
 * for every dtype and no power term.  Reproduce (prints this table):
 *
 *   make build/surfer-bench
 *   build/surfer-bench tensorcore --data ../shared/data --emit
 *
 * Held-out accuracy of the same fit: `make bench-tc`.
 */
#include "predictor/tcgemm.h"

/* 79784 GEMMs on 6 GPUs, weighted RMS of log error 0.194 */
const struct tcgemm_params tcgemm_default_params = {
	.eff = {[GPU_DT_FP16] = 0.7668},
	.k0 = 41.20,
	.wave_pow = 0.4967,
	.pad_pow = 0.7668,
	.power_w_ref = 0.0000,
	.power_pow = 0.0000,
	.bw_eff = 0.9080,
	.overhead_ns = 6772.5,
};
