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
 *
 * Fitted with the A40 at 663 GB/s; since gpus.c takes 15/16 of that for
 * its in-band ECC (621.6) the same command gives eff 0.8919, k0 80.31,
 * wave_pow 0.5393, pad_pow 0.7916, power_w_ref 2.7030, power_pow 0.2827,
 * power_rate_pow 0.0562, mamf_1024 0.9900, rate_pow -0.0932, bw_eff
 * 0.9009, overhead 5954 ns (the rule's width and power exponents trade
 * against each other; no GPU of the data is 512 wide), and with them
 * (attention_mma_eff rescaled to 1.2784) make bench-serving 12.2 / 5.0 /
 * 7.2 % (prefill / decode / whole batch, against 12.2 / 4.8 / 7.2 with
 * these) and make bench-published 10.8 % (the same).
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
