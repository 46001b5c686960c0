/*
 * tcgemm_params.c - the fitted constants of the tensor-core GEMM model
 * (tcgemm.c), fitted on the measured GEMMs of the shared data folder
 * (PipeWeave FP8 on H20 and H800, its training file only; Vidur FP16
 * projections on A100 and A40; DeepBench FP16 on V100 and T4: 75578 GEMMs,
 * six GPUs) and the MAMF figures of gpu_specs/figures.c (A100 SXM and
 * PCIe, H100 SXM, H200, GH200, B200, GB200; FP8 GEMMs at the FP8 figure
 * where the GPU's die has one), with one efficiency for every dtype, the rule with its power term, and the FP8 tile-wave form on the
 * FP8 GEMMs alone.  Reproduce (prints this table):
 *
 *   make build/surfer-bench
 *   build/surfer-bench tensorcore --data ../shared/data --emit
 *
 * Held-out accuracy of the same fit, and the rule against each
 * architecture's MAMF figures held out: `make bench-tc`.
 *
 * Refitted when the rule took the lower of its power term and the clock
 * measured under load (tcgemm.c) instead of their product, with the L40's
 * clock read from its own board (1740 of 2490 MHz) and the A40 at its
 * ECC bandwidth (621.6 GB/s): make bench-serving 8.8 / 4.3 / 5.4 % ->
 * 8.4 / 4.6 / 5.1 (prefill / decode / whole batch; the old form refitted
 * the same way: 8.8 / 4.6 / 5.3), make bench-published 8.0 -> 7.9 %.
 */
#include "predictor/tcgemm.h"

/* 75578 GEMMs on 6 GPUs (PipeWeave's test file left out) */
const struct tcgemm_params tcgemm_default_params = {
	.eff = {[GPU_DT_FP16] = 0.8939},
	.k0 = 83.92,
	.wave_pow = 0.5474,
	.pad_pow = 0.7773,
	.power_w_ref = 2.7130,
	.power_pow = 0.2807,
	.power_rate_pow = 0.0247,
	.mamf_1024 = 0.9891,
	.rate_pow = -0.1016,
	.bw_eff = 0.8300,
	.overhead_ns = 5786.1,
	.mem_pow = 6.367,
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
