/*
 * conv_params.c - the fitted constants of the convolution model (conv.c),
 * fitted on NeuSight's FP32 convolution sweep (P4, P100, T4, V100: every
 * shape measured on two of them, each way round).  Reproduce (prints this
 * table):
 *
 *   make build/surfer-bench
 *   build/surfer-bench conv --data ../shared/data/neusight/kernels/conv --emit
 *
 * Held-out accuracy (each architecture out of the fit): the same command
 * without --emit (docs/conv.md).
 */
#include "predictor/conv.h"

/* 59430 pairs of a convolution on two of 4 GPUs, weighted RMS of log error 0.221 */
const struct conv_params conv_default_params = {
	.eff = {
		[CONV_ALGO_IGEMM] = 0.3924,
		[CONV_ALGO_GEMM] = 0.4376,
		[CONV_ALGO_WINOGRAD] = 0.3004,
		[CONV_ALGO_WINOGRAD_NF] = 0.2241,
		[CONV_ALGO_FFT] = 0.1408,
	},
	.wave_pow = 0.1588,
	.bw_eff = 0.4240,
	.power_pj16 = 58.939,
	.boost_ns = 47604308.0,
	.floor_ns = 34208.7,
};
