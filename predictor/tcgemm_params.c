/*
 * tcgemm_params.c - the fitted constants of the tensor-core GEMM model
 * (tcgemm.c), fitted on the measured GEMMs of the shared data folder
 * (PipeWeave FP8 on H20 and H800, its training file only; Vidur FP16
 * projections on A100 and A40; DeepBench FP16 on V100 and T4: 75578 GEMMs,
 * six GPUs) with one efficiency for every dtype and no power term, and the
 * FP8 tile-wave form on the FP8 GEMMs alone.  Reproduce (prints this table):
 *
 *   make build/surfer-bench
 *   build/surfer-bench tensorcore --data ../shared/data --emit
 *
 * Held-out accuracy of the same fit: `make bench-tc`.
 */
#include "predictor/tcgemm.h"

/* 75578 GEMMs on 6 GPUs (PipeWeave's test file left out) */
const struct tcgemm_params tcgemm_default_params = {
	.eff = {[GPU_DT_FP16] = 0.7667},
	.k0 = 40.29,
	.wave_pow = 0.4959,
	.pad_pow = 0.7672,
	.power_w_ref = 0.0000,
	.power_pow = 0.0000,
	.bw_eff = 0.9079,
	.overhead_ns = 6782.8,
	.fp8 = {
		.eff = 0.9399,
		.feed_bpc = 47.395,
		.bw_eff = 0.6769,
		.overhead_ns = 4336.3,
		.w_ref = 0.9787,
		.power_pow = 0.9043,
		.boost_ns = 31563.2,
	},
};
