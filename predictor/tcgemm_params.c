/*
 * tcgemm_params.c - the fitted constants of the tensor-core GEMM model
 * (tcgemm.c), fitted on the measured GEMMs of the shared data folder
 * (PipeWeave FP8 on H20 and H800, its training file only; Vidur FP16
 * projections on A100 and A40; DeepBench FP16 on V100 and T4: 75578 GEMMs,
 * six GPUs) and the MAMF figures of gpu_specs/figures.c (A100 SXM and
 * PCIe, H100 SXM, H200, GH200, B200, GB200), with one efficiency for every
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
	.eff = {[GPU_DT_FP16] = 0.8707},
	.k0 = 63.34,
	.wave_pow = 0.5473,
	.pad_pow = 0.7658,
	.power_w_ref = 2.7027,
	.power_pow = 0.2836,
	.power_rate_pow = 0.1043,
	.mamf_1024 = 1.0000,
	.rate_pow = -0.0740,
	.bw_eff = 0.8955,
	.overhead_ns = 6271.8,
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
