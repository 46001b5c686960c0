/*
 * tcgemm_params.c - the fitted constants of the tensor-core GEMM model
 * (tcgemm.c), fitted on the measured GEMMs of the shared data folder
 * (PipeWeave FP8 on H20 and H800, its training file only; Vidur FP16
 * projections on A100 and A40; DeepBench FP16 on V100 and T4: 75578 GEMMs,
 * six GPUs) and the MAMF figures of gpu_specs/figures.c (A100 SXM and
 * PCIe, H100 SXM, H200, GH200, B200, GB200; FP8 GEMMs at the FP8 figure
 * where the GPU's die has one, the A40's rule at its 1725 of 1740 MHz), with one efficiency for every
 * dtype, the rule with its power term, and the FP8 tile-wave form on the
 * FP8 GEMMs alone.  Reproduce (prints this table):
 *
 *   make build/surfer-bench
 *   build/surfer-bench tensorcore --data ../shared/data --emit
 *
 * Held-out accuracy of the same fit, and the rule against each
 * architecture's MAMF figures held out: `make bench-tc`.
 */
#include "predictor/tcgemm.h"

/* 75578 GEMMs on 6 GPUs (PipeWeave's test file left out) */
const struct tcgemm_params tcgemm_default_params = {
	.eff = {[GPU_DT_FP16] = 0.8912},
	.k0 = 77.83,
	.wave_pow = 0.5337,
	.pad_pow = 0.7961,
	.power_w_ref = 2.7195,
	.power_pow = 0.2757,
	.power_rate_pow = 0.6233,
	.mamf_1024 = 0.9898,
	.rate_pow = 0.0677,
	.bw_eff = 0.8899,
	.overhead_ns = 5988.0,
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
