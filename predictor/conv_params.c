/*
 * conv_params.c - the constants of the convolution model (conv.c).  The
 * efficiencies set the model's relative levels per algorithm (the shape_*
 * constants its absolute time from a shape alone); a ratio
 * between GPUs running one algorithm cancels them, and they keep
 * the values of the fit that last had the freedom to set them (on P4,
 * P100, T4 and V100 together).  power_pj16 is measured, not fitted:
 * POWER_FMA_PJ16 (predictor/power.h, with its source).  wave_pow,
 * bw_eff, overlap_pow, smem_pow, boost_ns and floor_ns are fitted on NeuSight's FP32
 * convolution sweep (P4, P100, T4, V100: every shape measured on two of
 * them, each way round); the shape_* constants, with the others fixed, on
 * the absolute times of every convolution of the sweep (conv_fit_shape()),
 * then shape_pull and the cap before it (shape_cap_pow, shape_cap) on the
 * pairs of two architectures (conv_fit_pull()).
 * Reproduce (prints this table):
 *
 *   make build/surfer-bench
 *   build/surfer-bench conv --data ../shared/data/neusight/kernels/conv --emit
 *
 * (this table is that command's output; the efficiencies keep their
 * values: no pair fitted ran two algorithms.)
 *
 * Held-out accuracy (each architecture out of the fit): the same command
 * without --emit (docs/conv.md).
 */
#include "predictor/conv.h"
#include "predictor/power.h"

/* 59430 pairs of a convolution on two of 4 GPUs, weighted RMS of log error 0.174; shape
 * constants: 19875 convolutions, 0.271; with the pull and its cap across architectures 0.160 */
const struct conv_params conv_default_params = {
	.eff = {
		[CONV_ALGO_IGEMM] = 0.3924,
		[CONV_ALGO_GEMM] = 0.4376,
		[CONV_ALGO_WINOGRAD] = 0.3004,
		[CONV_ALGO_WINOGRAD_NF] = 0.2241,
		[CONV_ALGO_FFT] = 0.1408,
	},
	.shape_eff = 0.5356,
	.shape_ramp_flop = 476394501.3,
	.shape_pad_pow = 0.6289,
	.shape_bw_eff = 1.2000,
	.shape_red_steps = 3.6,
	.shape_floor_ns = 66154.6,
	.shape_wino_eff = 0.6215,
	.shape_wino_steps = 48.6,
	.shape_softmin = 1.553,
	.shape_pull = 0.17,
	.shape_cap_pow = 4,
	.shape_cap = 0.85,
	.wave_pow = 0.3766,
	.bw_eff = 0.6370,
	.overlap_pow = 1.7423,
	.smem_pow = 0.3664,
	.power_pj16 = POWER_FMA_PJ16,
	.boost_ns = 19184933.8,
	.floor_ns = 33375.7,
};

/* Compute capability 9.x (conv_has_own_shape()): the shape constants
 * fitted on our H200's 3797 FP32 sweep shapes alone (data/NVIDIA_H200/
 * kernels/conv.csv: cuDNN 9.19's own picks, implicit GEMM and FFT, no
 * Winograd, so no Winograd term), every other constant the ones above.
 * Reproduce (prints this initializer): a folder DIR holding only that
 * file, then
 *
 *   build/surfer-bench conv --data DIR --emit --gpu h200
 *
 * Checked on our H100's 4875 (not looked at before): docs/conv.md,
 * "Hopper as the target". */
/* 3797 convolutions of h200, weighted RMS of log error 0.367 */
const struct conv_shape conv_sm90_shape = {
	.eff = 0.6679,
	.ramp_flop = 140716067.3,
	.pad_pow = 0.9979,
	.bw_eff = 0.4259,
	.red_steps = 0.0,
	.floor_ns = 15519.9,
	.wino_eff = 0.0000,
	.wino_steps = 0.0,
	.softmin = 0.000,
};
