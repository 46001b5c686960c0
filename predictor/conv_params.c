/*
 * conv_params.c - the constants of the convolution model (conv.c).  The
 * efficiencies and bw_eff set the model's absolute time (from a shape);
 * a ratio between GPUs running one algorithm cancels them, and they keep
 * the values of the fit that last had the freedom to set them (on P4,
 * P100, T4 and V100 together).  power_pj16 is measured, not fitted: the
 * FP32 energy of a core-cycle at 16 nm, from gpu-benches' FMA loop on the
 * A100 SXM4 40GB (gpu_specs/figures.c: 19192 GFLOP/s at 181 W, so
 * 2 x 181 / 19.192e12 = 18.9 pJ at 7 nm) over conv.c's node rule (7/16):
 * 43.1 pJ.  wave_pow, boost_ns and floor_ns are fitted on NeuSight's FP32
 * convolution sweep (P4, P100, T4, V100: every shape measured on two of
 * them, each way round).  Reproduce (prints this table):
 *
 *   make build/surfer-bench
 *   build/surfer-bench conv --data ../shared/data/neusight/kernels/conv --emit
 *
 * Held-out accuracy (each architecture out of the fit): the same command
 * without --emit (docs/conv.md).
 */
#include "predictor/conv.h"

/* 59430 pairs of a convolution on two of 4 GPUs, weighted RMS of log error 0.200 */
const struct conv_params conv_default_params = {
	.eff = {
		[CONV_ALGO_IGEMM] = 0.3924,
		[CONV_ALGO_GEMM] = 0.4376,
		[CONV_ALGO_WINOGRAD] = 0.3004,
		[CONV_ALGO_WINOGRAD_NF] = 0.2241,
		[CONV_ALGO_FFT] = 0.1408,
	},
	.wave_pow = 0.3817,
	.bw_eff = 0.4240,
	.power_pj16 = 43.100,
	.boost_ns = 16960651.7,
	.floor_ns = 35555.4,
};
