/*
 * check_conv.c - the convolution model: the algorithm read from cuDNN's
 * kernel names, hand-computed times on a made-up GPU (one full wave of
 * 128 x 64 tiles, one tile more, a memory-bound shape, the power cap with
 * and without its ramp, the floor), the ratio form, what it refuses, and
 * the fit recovering the ratios of synthetic data generated from known
 * constants.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/analyze.h"
#include "gpu_specs/figures.h"
#include "predictor/conv.h"
#include "predictor/power.h"
#include "predictor/roofline.h"
#include "predictor/tcgemm.h"
#include "predictor/tile.h"
#include "tests/check_run.h"
#include "trace/trace.h"

#include <unistd.h>

/* sms SMs at 1000 MHz, fp32 TFLOP/s (64 lanes: no dual issue), bw GB/s
 * achievable, tdp W, compute capability 7.0 (12 nm). */
static struct gpu_spec fake_gpu(const char *id, uint32_t sms, double fp32, double bw, uint32_t tdp)
{
	struct gpu_spec g;
	memset(&g, 0, sizeof g);
	g.id = id;
	g.name = id;
	g.cc = 70;
	g.sms = sms;
	g.boost_clock_mhz = 1000;
	g.mem_bw_gbps = bw;
	g.mem_bw_measured_gbps = bw;
	g.peak_tflops[GPU_DT_FP32] = fp32;
	g.tdp_w = tdp;
	return g;
}

static struct conv_params hand_params(void)
{
	struct conv_params p;
	memset(&p, 0, sizeof p);
	for (int a = 0; a < CONV_ALGO_COUNT; a++)
		p.eff[a] = 0.5;
	p.eff[CONV_ALGO_WINOGRAD] = 1.5;
	p.wave_pow = 1;
	p.bw_eff = 1;
	p.floor_ns = 30000;
	return p;
}

/* hand_params() with the shape form's constants of the hand-computed
 * shape tests: shape_eff 0.5, a ramp of 1e9 FLOPs, padding exponent 1,
 * half the bandwidth, a 30 us floor. */
static struct conv_params shape_params(void)
{
	struct conv_params p = hand_params();
	p.shape_eff = 0.5;
	p.shape_ramp_flop = 1e9;
	p.shape_pad_pow = 1;
	p.shape_bw_eff = 0.5;
	p.shape_floor_ns = 30000;
	return p;
}

/* hand_params() with shape_winograd_hand_computed's shape constants:
 * shape_eff 0.5, half the bandwidth, Winograd at the full peak, soft
 * minimum exponent 1. */
static struct conv_params wino_params(void)
{
	struct conv_params p = hand_params();
	p.shape_eff = 0.5;
	p.shape_bw_eff = 0.5;
	p.shape_wino_eff = 1;
	p.shape_softmin = 1;
	return p;
}

/* hand_params() with the made-up constants the fitting tests generate their
 * times from and the fits must recover: waves^0.4, shape efficiency 0.8, a
 * ramp of 5e8 FLOPs, padding exponent 0.5, 0.6 of the bandwidth. */
static struct conv_params truth_params(void)
{
	struct conv_params p = hand_params();
	p.wave_pow = 0.4;
	p.shape_eff = 0.8;
	p.shape_ramp_flop = 5e8;
	p.shape_pad_pow = 0.5;
	p.shape_bw_eff = 0.6;
	return p;
}

/* A 3x3 convolution of C 128 into K 64 channels, m output pixels. */
static struct pred_kernel conv_kernel(const char *name, uint64_t m, double bytes)
{
	struct pred_kernel k;
	memset(&k, 0, sizeof k);
	k.name = name;
	k.op = PRED_OP_CONV;
	k.dtype = GPU_DT_FP32;
	k.m = m;
	k.n = 64;
	k.k = 128 * 9;
	k.flops = 2.0 * (double)m * 64 * 128 * 9;
	k.bytes = bytes;
	return k;
}

START_TEST(algorithm_from_name)
{
	static const struct { const char *name; enum conv_algo a; } tab[] = {
		{"cudnn_infer_volta_scudnn_128x64_relu_small_nn_v1", CONV_ALGO_IGEMM},
		{"void implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, false>(int)",
		 CONV_ALGO_IGEMM},
		{"void explicit_convolve_sgemm<float, int, 128, 6, 7>(int)", CONV_ALGO_GEMM},
		{"volta_sgemm_128x64_nn", CONV_ALGO_GEMM},
		{"cudnn_infer_maxwell_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148n_nt_v1",
		 CONV_ALGO_WINOGRAD},
		{";void cudnn::winograd_nonfused::winogradforwarddata4x4<float, float>(x);"
		 "volta_sgemm_64x64_nn", CONV_ALGO_WINOGRAD_NF},
		{"maxwell_gcgemm_64x64_nt", CONV_ALGO_FFT},
		{"void fft2d_r2c_32x32<float, false, 1u, false>(float2 *)", CONV_ALGO_FFT},
		{NULL, CONV_ALGO_IGEMM},
	};
	for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
		ck_assert_int_eq(conv_algo_of(tab[i].name), tab[i].a);
	ck_assert_str_eq(conv_algo_name(CONV_ALGO_WINOGRAD_NF), "winograd-nonfused");
}
END_TEST

/* 100 SMs, 10 TFLOP/s: 200 tiles of 128 x 64 fill two waves exactly; one
 * pixel more makes 201 tiles in three waves, e_wave = 201 / 300. */
START_TEST(hand_computed_times)
{
	struct gpu_spec g = fake_gpu("g", 100, 10, 1000, 0);
	struct conv_params p = hand_params();
	const char *name = "cudnn_infer_volta_scudnn_128x64_relu_small_nn_v1";
	struct pred_kernel k = conv_kernel(name, 128 * 200, 1e6);
	double f = 2.0 * 128 * 200 * 64 * 1152;
	ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 0), f / (10e12 * 0.5) * 1e9, 1e-3);
	/* the floor is added only when asked for */
	ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 1), f / (10e12 * 0.5) * 1e9 + 30000, 1e-3);
	k = conv_kernel(name, 128 * 200 + 1, 1e6);
	f = 2.0 * (128 * 200 + 1) * 64 * 1152;
	ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 0),
				f / (10e12 * 0.5 * 201.0 / 300.0) * 1e9, 1e-3);
	/* the fused Winograd kernel: its own efficiency, its 128 x 128 tile
	 * (200 x 1 tiles, two waves) */
	k = conv_kernel("cudnn_infer_volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1",
			128 * 200, 1e6);
	f = 2.0 * 128 * 200 * 64 * 1152;
	ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 0), f / (10e12 * 1.5) * 1e9, 1e-3);
	/* memory-bound: 1 GB at 1000 GB/s is 1 ms, more than the math */
	k = conv_kernel(name, 128 * 200, 1e9);
	ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 0), 1e6, 1e-3);
	/* no tile in the name: 128 x 64 */
	k = conv_kernel("mystery_conv_kernel", 128 * 200, 1e6);
	ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 0), f / (10e12 * 0.5) * 1e9, 1e-3);
	/* compute and memory overlapping imperfectly: with overlap_pow 2 a
	 * kernel whose two times are equal (754,974.72 ns of math, so
	 * 7.5497472e8 bytes at 1000 GB/s) takes sqrt(2) x 754,974.72 =
	 * 1,067,695.49 ns; 1 GB (1 ms) against that math sqrt(1e12 +
	 * 754974.72^2) = 1,252,991.15 ns */
	p.overlap_pow = 2;
	k = conv_kernel(name, 128 * 200, 7.5497472e8);
	ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 0), 1067695.49, 0.01);
	k = conv_kernel(name, 128 * 200, 1e9);
	ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 0), 1252991.15, 0.01);
}
END_TEST

/* A 100 W board of 10 TFLOP/s at 12 nm caps where E = 2 x 100 / (10 x
 * 12/16) = 26.67 pJ; at E = 53.33 pJ it sustains half the peak: twice
 * the time, or 1 + t / (t + boost) of it with the ramp.  At 16 nm the cap
 * is at 2 x 100 / 10 = 20 pJ, at 28 nm (planar, as nm^2) at
 * 20 / (28/16)^2 = 6.53 pJ. */
START_TEST(power_cap)
{
	struct gpu_spec g = fake_gpu("g", 100, 10, 1000, 100);
	struct conv_params p = hand_params();
	const char *name = "cudnn_infer_volta_scudnn_128x64_relu_small_nn_v1";
	struct pred_kernel k = conv_kernel(name, 128 * 200, 1e6);
	double t = 2.0 * 128 * 200 * 64 * 1152 / (10e12 * 0.5) * 1e9;
	double cap_pj = 2.0 * 100 / (10 * 0.75);
	p.power_pj16 = cap_pj / 2;          /* below the cap: no effect */
	ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 0), t, 1e-3);
	p.power_pj16 = cap_pj * 2;
	ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 0), 2 * t, 1e-3);
	/* the same energy on a 16 nm board of the same figures: a cap of
	 * 20 pJ, 53.33 / 20 = 2.667x the time */
	g.cc = 60;
	ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 0), t * cap_pj * 2 / 20, 1e-3);
	g.cc = 52;
	ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 0),
				t * cap_pj * 2 / (20 / (1.75 * 1.75)), 1e-3);
	g.cc = 70;
	p.boost_ns = t;                     /* half the slowdown */
	ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 0), 1.5 * t, 1e-3);
	/* The two models' caps come from power.c: the convolution model's
	 * full slowdown is the inverse of POWER_NODE_LINEAR's fraction for
	 * its energy, the tile model's fraction POWER_NODE_SQUARE12's for
	 * the weights' energy; the rules agree from 16 nm up and part below
	 * (12 nm: 0.75 against 0.5625 of the 16 nm energy). */
	struct tile_model *tm = tile_model_new();
	ck_assert_ptr_nonnull(tm);
	p.boost_ns = 0;
	p.power_pj16 = 45;
	tile_model_set_sustain_pj(tm, p.power_pj16);
	const uint32_t ccs[] = {52, 60, 61, 70, 75, 80};
	for (size_t i = 0; i < sizeof ccs / sizeof *ccs; i++) {
		g.cc = ccs[i];
		double lin = power_sustained_fraction(&g, 45, POWER_NODE_LINEAR);
		double sq = power_sustained_fraction(&g, 45, POWER_NODE_SQUARE12);
		ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 0), t / lin, 1e-3);
		ck_assert_double_eq_tol(tile_sustained_fraction(tm, &g), sq, 1e-12);
		if (g.cc < 70)
			ck_assert_double_eq_tol(lin, sq, 1e-12);
	}
	g.cc = 75;    /* 2 x 100 / (10 x 45 x 0.75) and / (... x 0.5625) */
	ck_assert_double_eq_tol(power_sustained_fraction(&g, 45, POWER_NODE_LINEAR),
				200.0 / (10 * 45 * 0.75), 1e-9);
	ck_assert_double_eq_tol(power_sustained_fraction(&g, 45, POWER_NODE_SQUARE12),
				200.0 / (10 * 45 * 0.5625), 1e-9);
	tile_model_free(tm);
}
END_TEST

/* A board capped below its TDP (or paced by a job's slowest) is a copy
 * whose peaks carry the clock share, its row's TDP kept
 * (gpu_derate_compute); the FP32 cap is the row's, applied on top of the
 * share once.  The 12 nm board above at 53.33 pJ sustains half its peak:
 * 2t; its copy at 0.9 of the clock 2t / 0.9 = 2.2222t.  (Read from the
 * copy's own 9 TFLOP/s the cap would sustain 200 / (9 x 0.75 x 53.33)
 * = 0.5556 of them and give back 2t, the share cancelled.) */
START_TEST(power_cap_on_derated_copy)
{
	struct gpu_spec g = fake_gpu("g", 100, 10, 1000, 100), c;
	struct conv_params p = hand_params();
	struct pred_kernel k = conv_kernel("cudnn_infer_volta_scudnn_128x64_relu_small_nn_v1",
					   128 * 200, 1e6);
	double t = 2.0 * 128 * 200 * 64 * 1152 / (10e12 * 0.5) * 1e9;
	p.power_pj16 = 2 * 2.0 * 100 / (10 * 0.75);
	gpu_derate_compute(&g, 0.9, &c);
	ck_assert_uint_eq(c.tdp_w, 100);
	ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 0), 2 * t, 1e-3);
	ck_assert_double_eq_tol(conv_model_ns(&k, &c, &p, 0), 2 * t / 0.9, 1e-3);
	/* the fraction itself: 200 / (10 x 53.33 x 0.75) = 0.5 on both */
	ck_assert_double_eq_tol(power_sustained_fraction(&c, p.power_pj16, POWER_NODE_LINEAR), 0.5, 1e-9);
	ck_assert_double_eq_tol(power_cap_pj(&c, POWER_NODE_LINEAR), 200.0 / (10 * 0.75), 1e-9);
}
END_TEST

/* A recorded launch's grid is the blocks that ran, whatever the name's
 * tile: 201 blocks on 100 SMs are three waves, e_wave = 201 / 300, where
 * the 128 x 64 tiles of the shape fill two exactly. */
START_TEST(waves_from_recorded_grid)
{
	struct gpu_spec g = fake_gpu("g", 100, 10, 1000, 0);
	struct conv_params p = hand_params();
	struct pred_kernel k = conv_kernel("cudnn_infer_volta_scudnn_128x64_relu_small_nn_v1",
					   128 * 200, 1e6);
	double t = 2.0 * 128 * 200 * 64 * 1152 / (10e12 * 0.5) * 1e9;
	ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 0), t, 1e-3);
	k.grid[0] = 67;
	k.grid[1] = 3;
	k.grid[2] = 1;
	ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 0), t / (201.0 / 300.0), 1e-3);
	/* a grid of one full wave */
	k.grid[0] = 100;
	k.grid[1] = 1;
	ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 0), t, 1e-3);
}
END_TEST

/* The filters' gradient of 64 filters of 128 x 3 x 3 over 8 x 56 x 56
 * output pixels: an implicit GEMM of m = 64 filters by n = 1152 taps over
 * k = 25088 pixels, 1 x 18 tiles of 128 x 64 (the kernel's name's).
 * Without a launch cuDNN's
 * split of the reduction fills the SMs: s = floor(100 / 18) = 5 slices
 * (at most 25088 / 1024 = 24), 90 blocks in one wave of 100 slots, e_wave
 * 0.9, where the forward pass's rule would count 18 of 100 (0.18); a
 * recorded grid is what ran, whatever the pass; a reduction of 2048
 * pixels allows two slices of 1024 (36 blocks, 0.36). */
START_TEST(wgrad_splits_reduction)
{
	struct gpu_spec g = fake_gpu("g", 100, 10, 1000, 0);
	struct conv_params p = hand_params();
	struct pred_kernel k;
	memset(&k, 0, sizeof k);
	k.name = "sm80_xmma_wgrad_implicit_gemm_indexed_f32f32_f32f32_f32_nhwckrsc_nhwc_"
		 "tilesize128x64x8_stage3";
	k.op = PRED_OP_CONV;
	k.dtype = GPU_DT_FP32;
	k.m = 64;
	k.n = 1152;
	k.k = 25088;
	k.flops = 2.0 * 64 * 1152 * 25088;
	k.bytes = 1e6;
	k.conv.pass = PRED_CONV_WGRAD;
	double full = k.flops / (10e12 * 0.5) * 1e9;
	ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 0), full / 0.9, 1e-3);
	k.conv.pass = PRED_CONV_FWD;
	ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 0), full / 0.18, 1e-3);
	k.conv.pass = PRED_CONV_WGRAD;
	k.grid[0] = 18;
	k.grid[1] = k.grid[2] = 1;
	ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 0), full / 0.18, 1e-3);
	memset(k.grid, 0, sizeof k.grid);
	k.k = 2048;
	k.flops = 2.0 * 64 * 1152 * 2048;
	ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 0), k.flops / (10e12 * 0.5) * 1e9 / 0.36,
				1e-3);
}
END_TEST

/* The shared-memory term describes cuDNN's forward kernels: on a 64 KB
 * SM (cc 7.5) a forward implicit GEMM of 8 x 56 x 56 pixels by 64 filters
 * over 576 taps (196 tiles of 128 x 64 on 100 SMs: e_wave 0.98) runs at
 * s = 64 / 96 of the rate, its inputs' gradient, the same GEMM, at the
 * full rate (v = 1 here). */
START_TEST(backward_passes_take_no_smem_term)
{
	struct gpu_spec g = fake_gpu("g", 100, 10, 1000, 0);
	g.cc = 75;
	struct conv_params p = hand_params();
	p.smem_pow = 1;
	struct pred_kernel k;
	memset(&k, 0, sizeof k);
	k.name = "volta_scudnn_128x64_relu_interior_nn_v1";
	k.op = PRED_OP_CONV;
	k.dtype = GPU_DT_FP32;
	k.m = 25088;
	k.n = 64;
	k.k = 576;
	k.flops = 2.0 * 25088 * 64 * 576;
	k.bytes = 1e6;
	double full = k.flops / (10e12 * 0.5) * 1e9 / 0.98;
	ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 0), full * 1.5, 1e-3);
	k.conv.pass = PRED_CONV_DGRAD;
	ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 0), full, 1e-3);
}
END_TEST

/* A 16-bit convolution (a recorded cuDNN call of FP16 or BF16 data) goes
 * to the tensor-core GEMM model as its implicit GEMM: auto's time from a
 * V100 onto a T4 is T_o x tcgemm(T4) / tcgemm(V100) of the GEMM of m = N
 * P Q, n = K, k = C R S; from the shape, the model's own time.  TF32 is
 * not measured and keeps the roofline ratio; FP32 the convolution model. */
START_TEST(tensor_core_conv_as_gemm)
{
	const struct gpu_spec *v100 = gpu_find("v100-sxm2-16"), *t4 = gpu_find("t4");
	struct predictor *pr;
	char err[128];
	ck_assert_int_eq(predictor_new(NULL, &pr, err, sizeof err), 0);
	struct pred_kernel k = conv_kernel("sm70_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc",
					   32 * 56 * 56, 2.0 * (32.0 * 64 * 56 * 56 * 2 + 64 * 128 * 9));
	k.dtype = GPU_DT_FP16;
	k.origin_ns = 2e5;
	struct pred_kernel g;
	memset(&g, 0, sizeof g);
	g.op = PRED_OP_GEMM;
	g.dtype = GPU_DT_FP16;
	g.m = k.m;
	g.n = k.n;
	g.k = k.k;
	g.batch = 1;
	g.flops = k.flops;
	g.bytes = k.bytes;
	double to = tcgemm_model_ns(&g, v100, NULL), tt = tcgemm_model_ns(&g, t4, NULL);
	ck_assert(to > 0 && tt > 0);
	struct pred_result r;
	for (int dt = GPU_DT_FP16; dt <= GPU_DT_BF16; dt++) {
		k.dtype = g.dtype = (enum gpu_dtype)dt;
		to = tcgemm_model_ns(&g, v100, NULL);
		tt = tcgemm_model_ns(&g, t4, NULL);
		if (!(to > 0 && tt > 0))
			continue;   /* no BF16 tensor cores on these: FP16 only */
		ck_assert_int_eq(predict_kernel(pr, &k, v100, t4, PRED_AUTO, &r), 0);
		ck_assert_int_eq(r.method, PRED_TCGEMM);
		ck_assert_double_eq_tol(r.ns, 2e5 * tt / to, 1e-6 * r.ns);
	}
	k.dtype = GPU_DT_FP16;
	g.dtype = GPU_DT_FP16;
	k.origin_ns = 0;
	ck_assert_int_eq(predict_kernel(pr, &k, NULL, t4, PRED_AUTO, &r), 0);
	ck_assert_int_eq(r.method, PRED_TCGEMM);
	ck_assert_double_eq_tol(r.ns, tcgemm_model_ns(&g, t4, NULL), 1e-6 * r.ns);
	k.origin_ns = 2e5;
	k.dtype = GPU_DT_TF32;
	ck_assert_int_eq(predict_kernel(pr, &k, gpu_find("a100-sxm4-40"), gpu_find("h100-sxm"),
					 PRED_AUTO, &r), 0);
	ck_assert_int_eq(r.method, PRED_ROOFLINE);
	k.dtype = GPU_DT_FP32;
	ck_assert_int_eq(predict_kernel(pr, &k, v100, t4, PRED_AUTO, &r), 0);
	ck_assert_int_eq(r.method, PRED_CONV);
	predictor_free(pr);
}
END_TEST

START_TEST(ratio_form_and_refusals)
{
	const struct gpu_spec *v100 = gpu_find("v100-pcie-32"), *t4 = gpu_find("t4");
	ck_assert_ptr_nonnull(v100);
	ck_assert_ptr_nonnull(t4);
	struct pred_kernel k = conv_kernel("cudnn_infer_volta_scudnn_128x64_relu_small_nn_v1",
					   32 * 56 * 56, 4.0 * 32 * 64 * 56 * 56 * 2);
	struct pred_result r1, r2;
	k.origin_ns = 1e6;
	ck_assert_int_eq(conv_predict(&k, v100, t4, NULL, 0, &r1), 0);
	ck_assert_int_eq(r1.method, PRED_CONV);
	double want = 1e6 * conv_model_ns(&k, t4, NULL, 0) / conv_model_ns(&k, v100, NULL, 0);
	ck_assert_double_eq_tol(r1.ns, want, 1e-6 * want);
	ck_assert_double_eq(r1.pull, 0);
	/* linear in the origin time */
	k.origin_ns = 3e6;
	ck_assert_int_eq(conv_predict(&k, v100, t4, NULL, 0, &r2), 0);
	ck_assert_double_eq_tol(r2.ns, 3 * r1.ns, 1e-6 * r1.ns);
	/* from the shape alone: the model itself, of the unnamed kernel */
	k.origin_ns = 0;
	ck_assert_int_eq(conv_predict(&k, NULL, t4, NULL, 1, &r2), 0);
	struct pred_kernel ku = k;
	ku.name = NULL;
	ck_assert_double_eq_tol(r2.ns, conv_model_ns(&ku, t4, NULL, 1), 1e-6);
	/* predict_kernel's method "conv" runs it */
	struct predictor *pr;
	char err[128];
	ck_assert_int_eq(predictor_new(NULL, &pr, err, sizeof err), 0);
	k.origin_ns = 1e6;
	ck_assert_int_eq(predict_kernel(pr, &k, v100, t4, PRED_CONV, &r2), 0);
	ck_assert_int_eq(r2.method, PRED_CONV);
	ck_assert_double_eq_tol(r2.ns, r1.ns, 1e-6 * r1.ns);
	predictor_free(pr);
	/* a predictor built with other constants predicts with them: a T4
	 * power-capped to a tenth (the V100 to 0.155) slows the ratio down */
	struct conv_params capped = conv_default_params;
	capped.power_pj16 = 10 * 2.0 * 70 / (8.1 * 12 / 16);
	capped.boost_ns = 1;
	struct pred_config pc = {.conv = &capped};
	ck_assert_int_eq(predictor_new(&pc, &pr, err, sizeof err), 0);
	ck_assert_int_eq(predict_kernel(pr, &k, v100, t4, PRED_CONV, &r2), 0);
	struct pred_result r3;
	ck_assert_int_eq(conv_predict(&k, v100, t4, &capped, 0, &r3), 0);
	ck_assert_double_eq_tol(r2.ns, r3.ns, 1e-6 * r3.ns);
	ck_assert_msg(r2.ns > 1.3 * r1.ns, "capped %g vs %g", r2.ns, r1.ns);
	predictor_free(pr);
	ck_assert_str_eq(pred_method_name(PRED_CONV), "conv");
	/* not a convolution, not FP32, no implicit-GEMM shape */
	struct pred_kernel bad = k;
	bad.op = PRED_OP_GEMM;
	ck_assert(conv_model_ns(&bad, t4, NULL, 0) < 0);
	bad = k;
	bad.dtype = GPU_DT_FP16;
	ck_assert(conv_model_ns(&bad, t4, NULL, 0) < 0);
	bad = k;
	bad.m = 0;
	ck_assert_int_eq(conv_predict(&bad, v100, t4, NULL, 0, &r2), -1);
}
END_TEST

/* Shared memory per SM: sm_60 and sm_75 have 64 KB, sm_61 and sm_70 96 KB,
 * sm_80 164 KB.  With smem_pow 1 the implicit-GEMM and fused Winograd
 * kernels sustain 64 / 96 of the rate on a 64 KB SM (1.5 x the time),
 * the rest as on 96 KB; more than 96 KB gains nothing; an SGEMM (the
 * GEMM of the non-fused Winograd) is not touched.  smem_pow 0.5: the
 * square root, 1.5^0.5 = 1.2247 x. */
START_TEST(shared_memory_per_sm)
{
	struct gpu_spec g = fake_gpu("g", 100, 10, 1000, 0);
	struct conv_params p = hand_params();
	const char *igemm = "cudnn_infer_volta_scudnn_128x64_relu_small_nn_v1";
	const char *wino = "cudnn_infer_volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1";
	const char *wnf = ";void cudnn::winograd_nonfused::winogradforwarddata4x4<float, float>(x);"
			  "volta_sgemm_64x64_nn";
	double f = 2.0 * 128 * 200 * 64 * 1152;
	double t_ig = f / (10e12 * 0.5) * 1e9, t_wi = f / (10e12 * 1.5) * 1e9;
	struct pred_kernel ki = conv_kernel(igemm, 128 * 200, 1e6);
	struct pred_kernel kw = conv_kernel(wino, 128 * 200, 1e6);
	struct pred_kernel kn = conv_kernel(wnf, 128 * 200, 1e6);
	kn.grid[0] = 200;   /* two full waves of the SGEMM's blocks */
	p.smem_pow = 1;
	const uint32_t small[] = {60, 75}, large[] = {61, 70, 80};
	for (size_t i = 0; i < 2; i++) {
		g.cc = small[i];
		ck_assert_double_eq_tol(conv_model_ns(&ki, &g, &p, 0), 1.5 * t_ig, 1e-3);
		ck_assert_double_eq_tol(conv_model_ns(&kw, &g, &p, 0), 1.5 * t_wi, 1e-3);
		ck_assert_double_eq_tol(conv_model_ns(&kn, &g, &p, 0), t_ig, 1e-3);
	}
	for (size_t i = 0; i < 3; i++) {
		g.cc = large[i];
		ck_assert_double_eq_tol(conv_model_ns(&ki, &g, &p, 0), t_ig, 1e-3);
		ck_assert_double_eq_tol(conv_model_ns(&kw, &g, &p, 0), t_wi, 1e-3);
	}
	p.smem_pow = 0.5;
	g.cc = 75;
	ck_assert_double_eq_tol(conv_model_ns(&ki, &g, &p, 0), 1.224744871 * t_ig, 1e-3);
	/* as a ratio from a 96 KB origin: the same 1.2247 x on one kernel */
	struct gpu_spec o = fake_gpu("o", 100, 10, 1000, 0);
	struct pred_result r;
	ki.origin_ns = 1e6;
	ck_assert_int_eq(conv_predict(&ki, &o, &g, &p, 0, &r), 0);
	ck_assert_double_eq_tol(r.ns, 1.224744871e6, 1e-1);
}
END_TEST

/* The constants synthetic pairs are made from (power_pj16 as given), and
 * the two kernels they run: implicit GEMM and fused Winograd. */
static struct conv_params fit_truth(double power_pj16)
{
	struct conv_params t = hand_params();
	t.wave_pow = 0.4;
	t.bw_eff = 0.9;
	t.power_pj16 = power_pj16;
	t.floor_ns = 20000;
	return t;
}

static const char *const fit_names[] = {
	"cudnn_infer_volta_scudnn_128x64_relu_small_nn_v1",
	"cudnn_infer_volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1",
};

/* Synthetic pairs from known constants on three made-up GPUs (one power
 * limited): the fit, started elsewhere, must reproduce the ratios. */
START_TEST(fit_reproduces_ratios)
{
	struct gpu_spec g[3] = {
		fake_gpu("a", 80, 14, 900, 250), fake_gpu("b", 40, 8, 320, 70),
		fake_gpu("c", 56, 9, 700, 250),
	};
	g[1].cc = 75;   /* 64 KB of shared memory per SM */
	struct conv_params truth = fit_truth(60);
	truth.boost_ns = 2e5;
	truth.smem_pow = 0.5;
	const char *const *names = fit_names;
	size_t n = 0;
	struct conv_sample *s = calloc(6 * 2 * 40, sizeof *s);
	ck_assert_ptr_nonnull(s);
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++)
			for (int nm = 0; nm < 2 && a != b; nm++)
				for (int i = 0; i < 40; i++) {
					uint64_t m = 512ull << (i % 10);
					struct pred_kernel k = conv_kernel(names[nm], m + 37 * (uint64_t)i,
									   4e5 * (double)(1 + i % 7) * (double)m / 512);
					k.origin_ns = conv_model_ns(&k, &g[a], &truth, 1);
					s[n].k = k;
					s[n].origin = &g[a];
					s[n].target = &g[b];
					s[n].ns = conv_model_ns(&k, &g[b], &truth, 1);
					n++;
				}
	struct conv_params p = hand_params();
	p.wave_pow = 1;
	p.power_pj16 = 60;
	p.boost_ns = 1e6;
	p.floor_ns = 5000;
	p.bw_eff = truth.bw_eff;    /* no sample is memory-bound: it is free */
	p.smem_pow = 0;
	double rms;
	ck_assert_int_eq(conv_fit(s, n, &p, &rms), 0);
	ck_assert_msg(rms < 0.01, "rms %.4f", rms);
	ck_assert_msg(fabs(p.smem_pow - 0.5) < 0.05, "smem_pow %.3f, want 0.5", p.smem_pow);
	/* the energy is a measurement, never fitted; the efficiencies cancel
	 * where both sides run one algorithm and stay as given */
	ck_assert_double_eq(p.power_pj16, 60);
	ck_assert_double_eq(p.eff[CONV_ALGO_IGEMM], 0.5);
	ck_assert_double_eq(p.eff[CONV_ALGO_WINOGRAD], 1.5);
	double worst = 0;
	for (size_t i = 0; i < n; i++) {
		double r = s[i].k.origin_ns * conv_model_ns(&s[i].k, s[i].target, &p, 1) /
			   conv_model_ns(&s[i].k, s[i].origin, &p, 1);
		double e = fabs(r - s[i].ns) / s[i].ns;
		if (e > worst)
			worst = e;
	}
	ck_assert_msg(worst < 0.03, "worst ratio error %.4f", worst);
	ck_assert_int_eq(conv_fit(NULL, 0, &p, NULL), -EINVAL);
	free(s);
}
END_TEST

/* Pairs where cuDNN ran another algorithm on the target (implicit GEMM on
 * the origin, fused Winograd on the target, Winograd 3x as efficient on
 * the direct FLOPs): with the target's kernel named in the sample, the
 * fit must find that ratio of efficiencies, which a ratio with the
 * origin's algorithm on both sides cancels. */
START_TEST(fit_learns_target_algorithm)
{
	struct gpu_spec g[2] = { fake_gpu("a", 80, 14, 900, 250), fake_gpu("c", 56, 9, 700, 250) };
	struct conv_params truth = fit_truth(0);
	truth.eff[CONV_ALGO_IGEMM] = 0.4;
	truth.eff[CONV_ALGO_WINOGRAD] = 1.2;
	const char *const *names = fit_names;
	size_t n = 0;
	struct conv_sample *s = calloc(2 * 2 * 40, sizeof *s);
	ck_assert_ptr_nonnull(s);
	for (int a = 0; a < 2; a++)
		for (int same = 0; same < 2; same++)
			for (int i = 0; i < 40; i++) {
				uint64_t m = 4096ull << (i % 8);
				struct pred_kernel k = conv_kernel(names[0], m + 37 * (uint64_t)i, 1e5);
				struct pred_kernel kt = k;
				kt.name = names[same ? 0 : 1];
				k.origin_ns = conv_model_ns(&k, &g[a], &truth, 1);
				s[n].k = k;
				s[n].origin = &g[a];
				s[n].target = &g[!a];
				s[n].target_name = kt.name;
				s[n].ns = conv_model_ns(&kt, &g[!a], &truth, 1);
				n++;
			}
	struct conv_params p = hand_params();
	p.power_pj16 = 0;
	p.bw_eff = truth.bw_eff;
	double rms;
	ck_assert_int_eq(conv_fit(s, n, &p, &rms), 0);
	ck_assert_msg(rms < 0.02, "rms %.4f", rms);
	double ratio = p.eff[CONV_ALGO_WINOGRAD] / p.eff[CONV_ALGO_IGEMM];
	ck_assert_msg(fabs(ratio / 3 - 1) < 0.05, "winograd / implicit GEMM efficiency %.3f, want 3", ratio);
	free(s);
}
END_TEST

/* From the shape alone, with shape_eff 0.5, a ramp of 1e9 FLOPs,
 * shape_pad_pow 1 and shape_bw_eff 0.5 on 100 SMs of 10 TFLOP/s and
 * 1000 GB/s: 200 tiles of 128 x 64 fill two waves, so the time is
 * (F + 1e9) / 5e12 s, F = 2 x 25600 x 64 x 1152 = 3.7748736e9, 954,974.72
 * ns (+ its 30 us of floor when asked for); with 48 filters the tile's 64
 * columns are 0.75 used: (2.8311552e9 + 1e9) / (5e12 x 0.75) s =
 * 1,021,641.39 ns; with 24 filters cuDNN's 128 x 32 tile, 0.75 used:
 * F = 2 x 25600 x 24 x 1152 = 1.4155776e9, (F + 1e9) / (5e12 x 0.75) s =
 * 644,154.03 ns (the 64-wide tile would make it 1,288,308.05); 1 GB at
 * half of 1000 GB/s is 2 ms.  The kernel's name and grid are not read (a
 * config has neither). */
START_TEST(shape_form_hand_computed)
{
	struct gpu_spec g = fake_gpu("g", 100, 10, 1000, 0);
	struct conv_params p = shape_params();
	struct pred_kernel k = conv_kernel(NULL, 128 * 200, 1e6);
	struct pred_result r;
	ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 0), 954974.72, 1e-2);
	ck_assert_int_eq(conv_predict(&k, NULL, &g, &p, 1, &r), 0);
	ck_assert_double_eq_tol(r.ns, 954974.72 + 30000, 1e-2);
	k.n = 48;
	k.flops = 2.0 * 128 * 200 * 48 * 1152;
	ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 0), 1021641.39, 1e-2);
	k.n = 24;
	k.flops = 2.0 * 128 * 200 * 24 * 1152;
	ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 0), 644154.03, 1e-2);
	k = conv_kernel(NULL, 128 * 200, 1e9);
	ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 0), 2e6, 1e-2);
	/* a tile's fixed cost of 288 reduction steps over k = 1152: the work
	 * 1.25 F, (1.25 x 3.7748736e9 + 1e9) / 5e12 s = 1,143,718.4 ns */
	p.shape_red_steps = 288;
	k = conv_kernel(NULL, 128 * 200, 1e6);
	ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 0), 1143718.4, 1e-2);
	p.shape_red_steps = 0;
	/* a recorded name and grid without an origin time: the same */
	k = conv_kernel("cudnn_infer_volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1",
			128 * 200, 1e6);
	k.grid[0] = 67;
	k.grid[1] = 3;
	ck_assert_int_eq(conv_predict(&k, NULL, &g, &p, 0, &r), 0);
	ck_assert_double_eq_tol(r.ns, 954974.72, 1e-2);
	/* with an origin time the name's own efficiency (1.5) holds: not 0.5 */
	ck_assert(conv_model_ns(&k, &g, &p, 0) < 954974.72 / 2);
}
END_TEST

/* Winograd F(4x4, 3x3) from the shape, by hand on the made-up GPU (100
 * SMs, 10 TFLOP/s, 1000 GB/s): 2 images of 8 x 8 outputs, C 128, K 64,
 * 3 x 3 at unit stride.  The implicit GEMM, 128 x 64 over 1152, is one
 * tile (a wave of 1/100 at exponent 1): 18,874,368 FLOPs at 0.5 x 0.01 of
 * the peak, 377,487.36 ns.  Winograd: 2 x 2 x 2 = 8 output tiles by 64
 * filters over 128 channels, 36 products each, 4,718,592 FLOPs at 1 x
 * 0.01 of the peak, 47,185.92 ns, plus its transforms' traffic, 1e6 +
 * 4 x 2 x 36 x 8 x (128 + 64) bytes at 0.5 of 1000 GB/s, 2,884.736 ns:
 * 50,070.656 ns.  Soft minimum at exponent 1: 1 / (1 / 377,487.36 +
 * 1 / 50,070.656) = 44,206.96 ns.  A 7 x 7 output pads to the same
 * Winograd tiles; stride 2, a 1 x 1 filter or no geometry leave the
 * implicit GEMM alone. */
START_TEST(shape_winograd_hand_computed)
{
	struct gpu_spec g = fake_gpu("g", 100, 10, 1000, 0);
	struct conv_params p = wino_params();
	struct pred_kernel k = conv_kernel(NULL, 2 * 8 * 8, 1e6);
	k.conv = (struct pred_conv){.r = 3, .s = 3, .p = 8, .q = 8, .unit = 1};
	ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 0), 44206.96, 1e-2);
	struct pred_result r;
	ck_assert_int_eq(conv_predict(&k, NULL, &g, &p, 0, &r), 0);
	ck_assert_double_eq_tol(r.ns, 44206.96, 1e-2);
	/* no Winograd term: the implicit GEMM alone */
	struct pred_kernel ku = k;
	ku.conv.unit = 0;
	ck_assert_double_eq_tol(conv_model_ns(&ku, &g, &p, 0), 377487.36, 1e-2);
	ku = k;
	memset(&ku.conv, 0, sizeof ku.conv);
	ck_assert_double_eq_tol(conv_model_ns(&ku, &g, &p, 0), 377487.36, 1e-2);
	p.shape_wino_eff = 0;
	ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 0), 377487.36, 1e-2);
	p.shape_wino_eff = 1;
	/* 7 x 7 outputs: the implicit GEMM's 98 rows pad to 128 (the same
	 * time at padding exponent 0), Winograd's tiles are the same 8 */
	k = conv_kernel(NULL, 2 * 7 * 7, 1e6);
	k.conv = (struct pred_conv){.r = 3, .s = 3, .p = 7, .q = 7, .unit = 1};
	double ti = 2.0 * 98 * 64 * 1152 / 10e12 / 0.005 * 1e9;
	ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 0), 1 / (1 / ti + 1 / 50070.656), 1e-2);
	/* a named kernel with an origin time is the ratio's: no Winograd term */
	k.name = "cudnn_infer_volta_scudnn_128x64_relu_small_nn_v1";
	ck_assert_double_eq_tol(conv_model_ns(&k, &g, &p, 0), ti, 1e-2);
}
END_TEST

/* auto without an origin time (a config's convolution) takes the model
 * from the shape, the time shape_form_hand_computed works out by hand:
 * 128 x 200 output pixels by 64 filters over 1152 taps on 100 SMs of
 * 10 TFLOP/s, 3.7748736e9 FLOPs plus the 1e9 ramp at 0.5 of the peak,
 * the tile's padding at exponent 1 a full one, 954,974.72 ns; the
 * predictor adds no floor (tile_floor 0).  A tensor-core convolution goes
 * to the tensor-core GEMM model (tensor_core_conv_as_gemm). */
START_TEST(auto_from_shape)
{
	struct gpu_spec g = fake_gpu("g", 100, 10, 1000, 0);
	struct conv_params p = shape_params();
	struct pred_config pc = {.conv = &p};
	struct predictor *pr;
	char err[128];
	ck_assert_int_eq(predictor_new(&pc, &pr, err, sizeof err), 0);
	struct pred_kernel k = conv_kernel("cudnn_infer_volta_scudnn_128x64_relu_small_nn_v1",
					   128 * 200, 1e6);
	struct pred_result r;
	ck_assert_int_eq(predict_kernel(pr, &k, NULL, &g, PRED_AUTO, &r), 0);
	ck_assert_int_eq(r.method, PRED_CONV);
	ck_assert_double_eq_tol(r.ns, 954974.72, 1e-2);
	k.dtype = GPU_DT_FP16;
	ck_assert_int_eq(predict_kernel(pr, &k, NULL, &g, PRED_AUTO, &r), 0);
	ck_assert_int_eq(r.method, PRED_TCGEMM);
	predictor_free(pr);
}
END_TEST

/* Absolute times generated from known shape constants on two made-up GPUs
 * (shapes of 3 to 256 filters, so the padding shows, and from 1e7 to
 * 1e11 FLOPs, so the ramp shows, reductions of 72 to 1152, so a tile's
 * fixed steps show, and a floor of 20 us); the fit, started elsewhere, must find
 * them, with names and origins in the samples ignored. */
START_TEST(fit_shape_recovers_constants)
{
	struct gpu_spec g[2] = { fake_gpu("a", 80, 14, 900, 0), fake_gpu("c", 40, 8, 320, 0) };
	struct conv_params truth = truth_params();
	truth.shape_red_steps = 40;
	truth.shape_floor_ns = 20000;
	size_t n = 0;
	struct conv_sample *s = calloc(2 * 120, sizeof *s);
	ck_assert_ptr_nonnull(s);
	for (int a = 0; a < 2; a++)
		for (int i = 0; i < 120; i++) {
			uint64_t m = 64ull << (i % 12);
			struct pred_kernel k = conv_kernel(NULL, m, 0);
			k.n = (uint64_t[]){3, 16, 48, 64, 200, 256}[i % 6];
			k.k = 9 * (uint64_t)(8 << (i % 5));
			k.flops = 2.0 * (double)k.m * (double)k.n * (double)k.k;
			/* every fourth memory-bound */
			k.bytes = i % 4 ? 4.0 * (double)(k.m + k.n) : k.flops * 2;
			s[n].k = k;
			s[n].ns = conv_model_ns(&k, &g[a], &truth, 1);
			s[n].k.name = "volta_sgemm_64x64_nn";
			s[n].k.origin_ns = 1;
			s[n].origin = &g[!a];
			s[n].target = &g[a];
			n++;
		}
	struct conv_params p = truth;
	p.shape_eff = 0.3;
	p.shape_ramp_flop = 1e9;
	p.shape_pad_pow = 1;
	p.shape_bw_eff = 0.3;
	p.shape_red_steps = 10;
	p.shape_floor_ns = 5000;
	double rms;
	ck_assert_int_eq(conv_fit_shape(s, n, &p, &rms), 0);
	ck_assert_msg(rms < 0.01, "rms %.4f", rms);
	ck_assert_msg(fabs(p.shape_eff / 0.8 - 1) < 0.02, "shape_eff %.4f", p.shape_eff);
	ck_assert_msg(fabs(p.shape_ramp_flop / 5e8 - 1) < 0.05, "ramp %.4g", p.shape_ramp_flop);
	ck_assert_msg(fabs(p.shape_pad_pow - 0.5) < 0.02, "pad_pow %.4f", p.shape_pad_pow);
	ck_assert_msg(fabs(p.shape_bw_eff / 0.6 - 1) < 0.02, "bw %.4f", p.shape_bw_eff);
	ck_assert_msg(fabs(p.shape_red_steps / 40 - 1) < 0.05, "steps %.2f", p.shape_red_steps);
	ck_assert_msg(fabs(p.shape_floor_ns / 20000 - 1) < 0.05, "floor %.0f", p.shape_floor_ns);
	/* every other constant as given */
	ck_assert_double_eq(p.wave_pow, 0.4);
	ck_assert_double_eq(p.floor_ns, 30000);
	ck_assert_int_eq(conv_fit_shape(NULL, 0, &p, NULL), -EINVAL);
	free(s);
}
END_TEST

/* conv_pull(): across architectures the ratio R is pulled toward the
 * shape's time S:
 * S x (R / S)^(1 - pull).  Origin and target alike but for the compute
 * capability (7.0 and 6.1, both 96 KB of shared memory), the implicit
 * GEMM in two full waves on both: R = T_o = 1 ms; S from the shape
 * constants of shape_form_hand_computed, 954,974.72 ns; pull 0.5 gives
 * sqrt(1e6 x 954974.72) = 977,228.08 ns.  Within one architecture, or
 * with pull 0, the ratio alone. */
START_TEST(pull_toward_shape)
{
	struct gpu_spec o = fake_gpu("o", 100, 10, 1000, 0), g = fake_gpu("g", 100, 10, 1000, 0);
	struct conv_params p = shape_params();
	p.shape_pull = 0.5;
	g.cc = 61;
	struct pred_kernel k = conv_kernel("cudnn_infer_volta_scudnn_128x64_relu_small_nn_v1",
					   128 * 200, 1e6);
	struct pred_result r;
	k.origin_ns = 1e6;
	ck_assert_int_eq(conv_predict(&k, &o, &g, &p, 0, &r), 0);
	ck_assert_double_eq_tol(r.ns, 1e6, 1e-3);   /* conv_predict: the ratio */
	ck_assert_double_eq(r.pull, 0);
	ck_assert_int_eq(conv_pull(&k, &o, &g, &p, 0, &r), 0);
	ck_assert_double_eq_tol(r.ns, 977228.08, 1e-2);
	ck_assert_double_eq_tol(r.pull, 0.5, 1e-12);
	/* the prediction follows the origin time as T_o^(1 - pull) */
	k.origin_ns = 4e6;
	ck_assert_int_eq(conv_predict(&k, &o, &g, &p, 0, &r), 0);
	ck_assert_int_eq(conv_pull(&k, &o, &g, &p, 0, &r), 0);
	ck_assert_double_eq_tol(r.ns, 977228.08 * 2, 2e-2);
	/* one architecture, or no pull: out untouched */
	k.origin_ns = 1e6;
	g.cc = 70;
	ck_assert_int_eq(conv_predict(&k, &o, &g, &p, 0, &r), 0);
	ck_assert_int_eq(conv_pull(&k, &o, &g, &p, 0, &r), -1);
	ck_assert_double_eq_tol(r.ns, 1e6, 1e-3);
	g.cc = 61;
	p.shape_pull = 0;
	ck_assert_int_eq(conv_predict(&k, &o, &g, &p, 0, &r), 0);
	ck_assert_int_eq(conv_pull(&k, &o, &g, &p, 0, &r), -1);
	ck_assert_double_eq_tol(r.ns, 1e6, 1e-3);
	/* the backward passes keep the ratio, 1e6 ns, where the forward pass
	 * is pulled to 977,228.08 ns */
	p.shape_pull = 0.5;
	for (int pass = PRED_CONV_DGRAD; pass <= PRED_CONV_WGRAD; pass++) {
		k.conv.pass = (uint32_t)pass;
		ck_assert_int_eq(conv_predict(&k, &o, &g, &p, 0, &r), 0);
		ck_assert_int_eq(conv_pull(&k, &o, &g, &p, 0, &r), -1);
		ck_assert_double_eq_tol(r.ns, 1e6, 1e-3);
		ck_assert_double_eq(r.pull, 0);
	}
}
END_TEST

/* conv_pull()'s soft cap before the pull: pull_toward_shape's case, R =
 * 1e6 ns, S = 954,974.72 ns.  a = 1, the cap at S itself (shape_cap 0),
 * no pull: R' = R S / (R + S) = 954,974.72e6 / 1,954,974.72 = 488,484.43
 * ns, and ns follows T_o with the slope w = S / (R + S) = 0.488484 (pull
 * 1 - w = 0.511516).  a = 2, the cap at 2 S (shape_cap log 2: C =
 * 1,909,949.44), pull 0.5: (R / C)^2 = 0.274128, R' = 1e6 / sqrt(1.274128)
 * = 885,917.26, pulled sqrt(S R') = 919,798.12 ns, pull 1 - 0.5 / 1.274128
 * = 0.607575.  Far below the cap (C = S e^10) only the pull acts: pull
 * 0.5 gives 977,228.08 (pull_toward_shape). */
START_TEST(pull_caps_ratio)
{
	static const struct {
		double pull, cap_pow, cap, ns, slope_pull;
	} cases[] = {
		{0, 1, 0, 488484.43, 0.511516},
		{0.5, 2, 0.69314718055994531, 919798.12, 0.607575},   /* log 2 */
		{0.5, 2, 10, 977228.08, 0.5},
	};
	struct gpu_spec o = fake_gpu("o", 100, 10, 1000, 0), g = fake_gpu("g", 100, 10, 1000, 0);
	struct conv_params p = shape_params();
	g.cc = 61;
	struct pred_kernel k = conv_kernel("cudnn_infer_volta_scudnn_128x64_relu_small_nn_v1",
					   128 * 200, 1e6);
	k.origin_ns = 1e6;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct pred_result r;
		p.shape_pull = cases[i].pull;
		p.shape_cap_pow = cases[i].cap_pow;
		p.shape_cap = cases[i].cap;
		ck_assert_int_eq(conv_predict(&k, &o, &g, &p, 0, &r), 0);
		ck_assert_int_eq(conv_pull(&k, &o, &g, &p, 0, &r), 0);
		ck_assert_double_eq_tol(r.ns, cases[i].ns, 1e-2);
		ck_assert_double_eq_tol(r.pull, cases[i].slope_pull, 1e-6);
	}
}
END_TEST

/* Across the Winograd boundary auto takes the target's shape time: an
 * origin of compute capability 9.0 (its cuDNN has no FP32 Winograd) and a
 * target of 7.0 (it has), the 3 x 3 unit-stride convolution of
 * shape_winograd_hand_computed, whose shape time with Winograd on the
 * target is 44,206.96 ns by that test's hand arithmetic, whatever the
 * origin's time; pull 1 (no dependence on it).  Without the geometry
 * (not unit stride), from an origin with Winograd, or the other way
 * round, the ordinary pull: sqrt(S R) at pull 0.5, R the ratio. */
START_TEST(pull_across_winograd_boundary)
{
	struct gpu_spec o = fake_gpu("o", 100, 10, 1000, 0), g = fake_gpu("g", 100, 10, 1000, 0);
	struct conv_params p = wino_params();
	p.shape_pull = 0.5;
	o.cc = 90;
	struct pred_kernel k = conv_kernel("sm80_xmma_fprop_implicit_gemm_f32f32_f32f32_f32_nchwkcrs_"
					   "nchw_tilesize256x64x8_stage3_warpsize2x2x1_g1_ffma_aligna4_"
					   "alignc4_execute_kernel__5x_cudnn", 2 * 8 * 8, 1e6);
	k.conv = (struct pred_conv){.r = 3, .s = 3, .p = 8, .q = 8, .unit = 1};
	struct pred_result r;
	for (double t_o = 1e5; t_o <= 1e7; t_o *= 10) {
		k.origin_ns = t_o;
		ck_assert_int_eq(conv_predict(&k, &o, &g, &p, 0, &r), 0);
		ck_assert_int_eq(conv_pull(&k, &o, &g, &p, 0, &r), 0);
		ck_assert_double_eq_tol(r.ns, 44206.96, 1e-2);
		ck_assert_double_eq(r.pull, 1);
	}
	ck_assert(!conv_has_winograd(&o) && conv_has_winograd(&g));
	/* the ordinary pull: not unit stride; an origin with Winograd; a
	 * target without it (and, the 9.0 one, its own shape constants held
	 * out) */
	struct {
		uint32_t o_cc, g_cc;
		int unit;
	} other[] = {{90, 70, 0}, {80, 70, 1}, {89, 70, 1}, {70, 90, 1}, {70, 100, 1}, {90, 100, 1}};
	k.origin_ns = 1e6;
	gpu_figures_hold_out(90);
	for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
		struct pred_result s;
		struct pred_kernel ks = k;
		o.cc = other[i].o_cc;
		g.cc = other[i].g_cc;
		k.conv.unit = other[i].unit;
		ks = k;
		ks.origin_ns = 0;
		ck_assert_int_eq(conv_predict(&ks, NULL, &g, &p, 0, &s), 0);
		ck_assert_int_eq(conv_predict(&k, &o, &g, &p, 0, &r), 0);
		double ratio = r.ns;
		ck_assert_int_eq(conv_pull(&k, &o, &g, &p, 0, &r), 0);
		ck_assert_msg(fabs(r.ns - sqrt(s.ns * ratio)) < 1e-6 * r.ns, "case %zu: %g against %g", i,
			      r.ns, sqrt(s.ns * ratio));
		ck_assert_double_eq_tol(r.pull, 0.5, 1e-12);
	}
	/* the other way round, onto a 9.0 target with its own shape
	 * constants: the target's shape time, pull 1 */
	gpu_figures_hold_out(0);
	o.cc = 70;
	g.cc = 90;
	k.conv.unit = 1;
	for (double t_o = 1e5; t_o <= 1e7; t_o *= 10) {
		struct pred_result s;
		struct pred_kernel ks = k;
		ks.origin_ns = 0;
		k.origin_ns = t_o;
		ck_assert_int_eq(conv_predict(&ks, NULL, &g, &p, 0, &s), 0);
		ck_assert_int_eq(conv_predict(&k, &o, &g, &p, 0, &r), 0);
		ck_assert_int_eq(conv_pull(&k, &o, &g, &p, 0, &r), 0);
		ck_assert_double_eq_tol(r.ns, s.ns, 1e-6 * s.ns);
		ck_assert_double_eq(r.pull, 1);
	}
	static const uint32_t without[] = {90, 100, 103, 120}, with[] = {60, 70, 75, 80, 86, 89};
	for (size_t i = 0; i < sizeof without / sizeof without[0]; i++) {
		g.cc = without[i];
		ck_assert_int_eq(conv_has_winograd(&g), 0);
	}
	for (size_t i = 0; i < sizeof with / sizeof with[0]; i++) {
		g.cc = with[i];
		ck_assert_int_eq(conv_has_winograd(&g), 1);
	}
	g.cc = GPU_CC_AMD + 0x90a;
	ck_assert_int_eq(conv_has_winograd(&g), 1);
	ck_assert_int_eq(conv_has_winograd(NULL), 0);
}
END_TEST

/* The kind of a measured convolution from cuDNN 9's names on our H200. */
START_TEST(conv_kind_from_names)
{
	static const struct { const char *kname, *kernels; int kind; } tab[] = {
		{"sm80_xmma_fprop_implicit_gemm_f32f32_f32f32_f32_nchwkcrs_nchw_tilesize32x32x8_stage3_"
		 "warpsize1x2x1_g1_ffma_aligna4_alignc4_execute_kernel__5x_cudnn", "", CONV_KIND_IG_32X32},
		{"sm80_xmma_fprop_implicit_gemm_indexed_f32f32_f32f32_f32_nchwkcrs_nchw_tilesize32x32x8_"
		 "stage3_warpsize1x2x1_g1_ffma_aligna4_alignc4_execute_kernel__5x_cudnn", NULL,
		 CONV_KIND_IG_32X32_INDEXED},
		/* an indexed variant of another tile (not seen) is that tile's */
		{"sm80_xmma_fprop_implicit_gemm_indexed_f32f32_f32f32_f32_nchwkcrs_nchw_tilesize128x32x8_"
		 "stage3_warpsize2x2x1_g1_ffma_execute_kernel__5x_cudnn", NULL, CONV_KIND_IG_128X32},
		{"sm80_xmma_fprop_implicit_gemm_f32f32_f32f32_f32_nchwkcrs_nchw_tilesize256x64x8_stage3_"
		 "warpsize2x2x1_g1_ffma_aligna4_alignc4_execute_kernel__5x_cudnn", NULL, CONV_KIND_IG_256X64},
		{"sm80_xmma_gemm_cf32cf32_f32f32_cf32_tn_n_tilesize32x32x8_stage3_warpsize2x2x1_ffma",
		 ";void flip_filter<float, float>(float*);void fft2d_r2c_16x16<float>(float2*);"
		 "sm80_xmma_gemm_cf32cf32_f32f32_cf32_tn_n_tilesize32x32x8;void fft2d_c2r_16x16<float, false>()",
		 CONV_KIND_FFT_16},
		{NULL, ";void fft2d_r2c_32x32<float, false, 0u, false>();sm80_xmma_gemm_cf32cf32_x;",
		 CONV_KIND_FFT_32},
		{NULL, ";void fft2d_r2c_64x64<float>();sm80_xmma_gemm_cf32cf32_x;void fft2d_c2r_64x64<float>()",
		 CONV_KIND_FFT_64},
		{NULL, ";void fft2d_r2c_64x64<float>();sm80_xmma_gemm_cf32cf32_x;sm80_xmma_gemm_cf32cf32_x;",
		 CONV_KIND_FFT_64_PER_FREQ},
		/* a tile no kind has, another algorithm, nothing */
		{"sm80_xmma_fprop_implicit_gemm_f32f32_tilesize64x64x8_stage3", NULL, -1},
		{"cudnn_infer_volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148n_nt_v1", NULL, -1},
		{NULL, NULL, -1},
	};
	for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
		ck_assert_msg(conv_kind_of(tab[i].kname, tab[i].kernels) == tab[i].kind, "row %zu: %d", i,
			      conv_kind_of(tab[i].kname, tab[i].kernels));
	ck_assert_str_eq(conv_kind_name(CONV_KIND_FFT_16), "fft-16");
	ck_assert_str_eq(conv_kind_name(CONV_KIND_COUNT), "?");
}
END_TEST

static struct pred_kernel pick_query(uint64_t m, uint64_t n, uint64_t red, uint32_t q)
{
	struct pred_kernel k = conv_kernel(NULL, m, 4.0 * (double)(m + n * red));
	k.n = n;
	k.k = red;
	k.conv = (struct pred_conv){.r = 3, .s = 3, .p = q, .q = q, .unit = 1};
	return k;
}

/* The CONV_PICK_VOTES nearest rows vote: a majority of one kind a little
 * further out outvotes a minority of nearer ones of another, which win
 * once one more of them joins; a far crowd of a third kind never counts.
 * Only forward FP32 3 x 3 unit-stride convolutions are looked up. */
START_TEST(pick_votes_of_nearest)
{
	enum { V = CONV_PICK_VOTES, MAJ = (V + 1) / 2 };
	struct conv_pick_row rows[V + 21];
	size_t n = 0;
	ck_assert_msg(V % 2 == 1, "an odd number of voters");
	for (int i = 0; i < MAJ; i++) /* one octave away in m */
		rows[n++] = (struct conv_pick_row){2048, 64, 1152, 8, CONV_KIND_IG_256X64};
	for (int i = 0; i < V - MAJ; i++) /* half an octave in q */
		rows[n++] = (struct conv_pick_row){1024, 64, 1152, 11, CONV_KIND_FFT_16};
	for (int i = 0; i < 20; i++) /* ten octaves in n */
		rows[n++] = (struct conv_pick_row){1024, 65536, 1152, 8, CONV_KIND_IG_32X32};
	struct conv_picks t = {.rows = rows, .n = n};
	struct pred_kernel k = pick_query(1024, 64, 1152, 8);
	ck_assert_int_eq(conv_pick_kind(&t, &k), CONV_KIND_IG_256X64);
	rows[n++] = (struct conv_pick_row){1024, 64, 1152, 12, CONV_KIND_FFT_16};
	t.n = n;
	/* now MAJ FFT rows among the V nearest */
	ck_assert_int_eq(conv_pick_kind(&t, &k), CONV_KIND_FFT_16);
	struct pred_kernel s = k;
	s.conv.unit = 0;
	ck_assert_int_eq(conv_pick_kind(&t, &s), -1);
	s = k;
	s.conv.r = s.conv.s = 5;
	ck_assert_int_eq(conv_pick_kind(&t, &s), -1);
	s = k;
	s.conv.pass = PRED_CONV_DGRAD;
	ck_assert_int_eq(conv_pick_kind(&t, &s), -1);
	s = k;
	s.dtype = GPU_DT_FP16;
	ck_assert_int_eq(conv_pick_kind(&t, &s), -1);
	t.n = 0;
	ck_assert_int_eq(conv_pick_kind(&t, &k), -1);
	ck_assert_int_eq(conv_pick_kind(NULL, &k), -1);
}
END_TEST

/* Each kind's time by hand: the implicit GEMM's whole waves of b blocks
 * per SM joined with its traffic (q 0: the max), the FFT's complex GEMM
 * plus its transforms at the SMs' pace, the per-frequency FFT's 2112
 * launches on top; the floor only when asked. */
START_TEST(kind_times_by_hand)
{
	struct gpu_spec g = fake_gpu("g", 100, 60, 2000, 0);
	g.cc = 90;
	double rate = gpu_fp32_simt_tflops(&g) * 1e3, bw = roofline_bw_bytes(&g) * 1e-9;
	ck_assert(rate > 0 && bw > 0);
	/* 64 images of 16 x 16 outputs, 200 filters, 96 channels */
	struct pred_kernel k = pick_query(64 * 16 * 16, 200, 96 * 9, 16);
	k.bytes = 4.0 * (64 * 96 * 18 * 18 + 200 * 96 * 9 + 64 * 200 * 16 * 16);
	struct conv_kind_params ig = {.eff = 0.5, .steps = 8, .blocks = 2, .floor_ns = 1000};
	/* 128 x 32 tiles: 128 x 7 = 896, over 200 SM slots: 5 waves */
	double tc = 5 * 2 * 2 * 128 * 32 * (864 + 8) / (rate / 100 * 0.5), tm = k.bytes / bw;
	double want = (tc > tm ? tc : tm);
	int mb = -1;
	ck_assert_double_eq_tol(conv_kind_ns(&k, &g, CONV_KIND_IG_128X32, &ig, 0, &mb), want, 1e-9 * want);
	ck_assert_int_eq(mb, tm > tc);
	ck_assert_double_eq_tol(conv_kind_ns(&k, &g, CONV_KIND_IG_128X32, &ig, 1, NULL), want + 1000,
				1e-9 * want);
	/* FFT 16 x 16: 16 + 2 = 18 padded, 14 outputs a tile: 2 x 2 tiles an
	 * image, 16 x 9 = 144 frequencies */
	struct conv_kind_params ff = {.eff = 2, .mem_x = 3, .launch_ns = 7, .floor_ns = 500};
	double tiles = 64 * 4.0, f = 144;
	double fc = 8 * tiles * 96 * 200 * f / (rate * 2);
	double fm = (k.bytes + 16 * f * (tiles * 96 + 200 * 96 + tiles * 200)) / rate * 3;
	mb = -1;
	ck_assert_double_eq_tol(conv_kind_ns(&k, &g, CONV_KIND_FFT_16, &ff, 0, &mb), fc + fm,
				1e-9 * (fc + fm));
	ck_assert_int_eq(mb, 0);
	/* 64 x 64: one tile an image, 2112 frequencies, each launch 7 ns */
	tiles = 64, f = 64 * 33;
	fc = 8 * tiles * 96 * 200 * f / (rate * 2);
	fm = (k.bytes + 16 * f * (tiles * 96 + 200 * 96 + tiles * 200)) / rate * 3;
	ck_assert_double_eq_tol(conv_kind_ns(&k, &g, CONV_KIND_FFT_64, &ff, 0, NULL), fc + fm,
				1e-9 * (fc + fm));
	ck_assert_double_eq_tol(conv_kind_ns(&k, &g, CONV_KIND_FFT_64_PER_FREQ, &ff, 1, NULL),
				fc + fm + 2112 * 7 + 500, 1e-9 * (fc + fm));
	/* not a 3 x 3 unit-stride forward convolution, no constants */
	struct pred_kernel s = k;
	s.conv.unit = 0;
	ck_assert(conv_kind_ns(&s, &g, CONV_KIND_FFT_16, &ff, 0, NULL) < 0);
	ck_assert(conv_kind_ns(&k, &g, CONV_KIND_COUNT, &ff, 0, NULL) < 0);
	ck_assert(conv_kind_ns(&k, &g, CONV_KIND_FFT_16, NULL, 0, NULL) < 0);
}
END_TEST

/* conv_kind_fit() recovers the constants its samples were made with:
 * 128 x 32 tiles at eff 0.6, 20 steps, 1 block an SM, q 2, floor 5 us,
 * on shapes of 1-40 waves. */
START_TEST(kind_fit_recovers_constants)
{
	struct gpu_spec g = fake_gpu("g", 100, 60, 2000, 0);
	g.cc = 90;
	struct conv_kind_params truth = {.eff = 0.6, .steps = 20, .blocks = 1, .overlap_pow = 2,
					 .floor_ns = 5000}, got;
	struct conv_sample s[60];
	size_t n = 0;
	for (int i = 0; i < 60; i++) {
		uint64_t m = 2048u + 1500u * (uint64_t)i, nf = 32u + 16u * (uint64_t)(i % 7);
		uint64_t red = 27u + 140u * (uint64_t)(i % 11);
		memset(&s[n], 0, sizeof s[n]);
		s[n].k = pick_query(m, nf, red, 16);
		s[n].k.bytes = 4.0 * (double)(m * red / 9 + nf * red + m * nf);
		s[n].target = &g;
		s[n].ns = conv_kind_ns(&s[n].k, &g, CONV_KIND_IG_128X32, &truth, 1, NULL);
		ck_assert(s[n].ns > 0);
		n++;
	}
	double rms = 1;
	ck_assert_int_eq(conv_kind_fit(s, n, CONV_KIND_IG_128X32, &got, &rms), 0);
	ck_assert_msg(rms < 0.01, "rms %g", rms);
	ck_assert_double_eq(got.blocks, 1);
	ck_assert_double_eq_tol(got.eff, 0.6, 0.03);
	ck_assert_double_eq_tol(got.floor_ns, 5000, 500);
	ck_assert_int_eq(conv_kind_fit(s, 0, CONV_KIND_IG_128X32, &got, NULL), -EINVAL);
}
END_TEST

/* A 9.x target from the shape takes the kind its table votes for, timed
 * with that kind's constants; held out, the shape form. */
START_TEST(hopper_takes_own_picks)
{
	struct gpu_spec g = fake_gpu("g", 132, 67, 3000, 0);
	g.cc = 90;
	struct pred_kernel k = pick_query(32 * 14 * 14, 256, 256 * 9, 14);
	int kind = conv_pick_kind(&conv_sm90_picks, &k);
	ck_assert_int_ge(kind, 0);
	ck_assert_int_lt(kind, CONV_KIND_COUNT);
	double want = conv_kind_ns(&k, &g, (enum conv_kind)kind, &conv_sm90_picks.kind[kind], 1, NULL);
	struct pred_result r;
	ck_assert_int_eq(conv_predict(&k, NULL, &g, NULL, 1, &r), 0);
	ck_assert_double_eq_tol(r.ns, want, 1e-9 * want);
	ck_assert_int_eq(r.method, PRED_CONV);
	gpu_figures_hold_out(90);
	ck_assert_int_eq(conv_predict(&k, NULL, &g, NULL, 1, &r), 0);
	ck_assert_msg(fabs(r.ns / want - 1) > 1e-6, "held out %g, own %g", r.ns, want);
	gpu_figures_hold_out(0);
	/* the committed table: every row a kind, each kind fitted */
	ck_assert_uint_gt(conv_sm90_picks.n, 3000);
	for (size_t i = 0; i < conv_sm90_picks.n; i++)
		ck_assert_uint_lt(conv_sm90_picks.rows[i].kind, CONV_KIND_COUNT);
	for (int c = 0; c < CONV_KIND_COUNT; c++)
		ck_assert(conv_sm90_picks.kind[c].eff > 0 && conv_sm90_picks.kind[c].floor_ns >= 0);
}
END_TEST

/* A target of compute capability 9.x from its shape takes the shape
 * constants measured on its architecture (conv_sm90_shape) in place of
 * p's: the same time as p with those constants written in, and p's own
 * time once its figures are held out (as the benches hold a target's
 * architecture out), which differs.  A strided convolution, which the
 * pick table (conv_sm90_picks) does not cover. */
START_TEST(hopper_own_shape_constants)
{
	struct gpu_spec g = fake_gpu("g", 132, 67, 3000, 0);
	struct conv_params p = conv_default_params, q = conv_default_params;
	const struct conv_shape *h = &conv_sm90_shape;
	q.shape_eff = h->eff, q.shape_ramp_flop = h->ramp_flop, q.shape_pad_pow = h->pad_pow;
	q.shape_bw_eff = h->bw_eff, q.shape_red_steps = h->red_steps, q.shape_floor_ns = h->floor_ns;
	q.shape_wino_eff = h->wino_eff, q.shape_wino_steps = h->wino_steps, q.shape_softmin = h->softmin;
	g.cc = 90;
	struct pred_kernel k = conv_kernel(NULL, 64 * 28 * 28, 64 * 28 * 28 * 4 * 3.0);
	k.conv = (struct pred_conv){.r = 3, .s = 3, .p = 28, .q = 28, .unit = 0};
	ck_assert_int_eq(conv_pick_kind(&conv_sm90_picks, &k), -1);
	struct pred_result r;
	ck_assert_int_eq(conv_has_own_shape(&g), 1);
	ck_assert_int_eq(conv_predict(&k, NULL, &g, &p, 1, &r), 0);
	double own = r.ns;
	gpu_figures_hold_out(90);
	ck_assert_int_eq(conv_has_own_shape(&g), 0);
	ck_assert_int_eq(conv_predict(&k, NULL, &g, &q, 1, &r), 0);
	ck_assert_double_eq_tol(r.ns, own, 1e-9 * own);
	ck_assert_int_eq(conv_predict(&k, NULL, &g, &p, 1, &r), 0);
	ck_assert_msg(fabs(r.ns / own - 1) > 0.05, "held out %g, own %g", r.ns, own);
	gpu_figures_hold_out(0);
	/* no Winograd term in them: the 9.0 target's cuDNN runs none */
	ck_assert(!(h->wino_eff > 0));
	static const uint32_t none[] = {80, 89, 100, 120, GPU_CC_AMD + 0x942};
	for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
		g.cc = none[i];
		ck_assert_int_eq(conv_has_own_shape(&g), 0);
	}
	ck_assert_int_eq(conv_has_own_shape(NULL), 0);
}
END_TEST

/* Which kernels are a whole convolution (conv_whole()), and auto's pull
 * of those across architectures: pull_toward_shape's case through a
 * predictor, 977,228.08 ns by its hand arithmetic, where the ratio is
 * 1e6 ns (the two made-up GPUs differ only in compute capability).  A
 * part of a convolution, or the gate's linear predictor, keeps the
 * ratio. */
START_TEST(auto_pulls_whole_convolutions)
{
	static const struct {
		const char *name;
		int whole;
	} names[] = {
		{NULL, 1},
		{";void cask_cudnn_infer::computeoffsetskernel<false, false>(cask_cudnn_infer::"
		 "computeoffsetsparams);cudnn_infer_volta_scudnn_128x32_relu_medium_nn_v1", 1},
		{"cudnn_infer_volta_scudnn_128x64_relu_small_nn_v1", 1},
		{"cudnn_infer_volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1", 1},
		{"void cudnn::detail::implicit_convolve_sgemm<float, float, 128, 5, 5>(int)", 1},
		{"sm80_xmma_fprop_implicit_gemm_indexed_f32f32_f32f32_f32_nchwkcrs_nchw_tilesize128x"
		 "128x8_stage3_warpsize2x2x1_g1_ffma_aligna4_alignc4_execute_kernel__5x_cudnn", 1},
		{"sm80_xmma_dgrad_implicit_gemm_f32f32_f32f32_f32_nchwkcrs_nchw_tilesize128x128x8_"
		 "stage3_warpsize2x2x1_g1_ffma_aligna4_alignc4_execute_kernel__5x_cudnn", 0},
		{"sm80_xmma_wgrad_implicit_gemm_indexed_f32f32_f32f32_f32_nhwckrsc_nhwc_tilesize128x"
		 "128x8_stage3_warpsize2x2x1_g1_ffma_aligna4_alignc4_execute_kernel__5x_cudnn", 0},
		{"void cask_cudnn_infer::computeoffsetskernel<false, false>(cask_cudnn_infer::"
		 "computeoffsetsparams)", 0},
		{"volta_sgemm_64x64_nn", 0},
		{"void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>("
		 "cudnn::winograd_nonfused::WinogradDataParams<float, float>)", 0},
		{"void fft2d_r2c_32x32<float, false, 1u, false>(float2 *)", 0},
		{"void nchwToNhwcKernel<float, float, float, true, false>(int)", 0},
	};
	struct pred_kernel k;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		k = conv_kernel(names[i].name, 128 * 200, 1e6);
		ck_assert_msg(conv_whole(&k) == names[i].whole, "%s", names[i].name);
	}
	k.op = PRED_OP_GEMM;
	k.name = NULL;
	ck_assert_int_eq(conv_whole(&k), 0);

	struct gpu_spec o = fake_gpu("o", 100, 10, 1000, 0), g = fake_gpu("g", 100, 10, 1000, 0);
	struct conv_params p = shape_params();
	p.shape_pull = 0.5;
	g.cc = 61;
	struct pred_config pc = {.conv = &p}, pl = {.conv = &p, .shrink = &pred_shrink_full};
	struct predictor *pr, *lin;
	char err[128];
	ck_assert_int_eq(predictor_new(&pc, &pr, err, sizeof err), 0);
	ck_assert_int_eq(predictor_new(&pl, &lin, err, sizeof err), 0);
	struct pred_result r;
	k = conv_kernel("cudnn_infer_volta_scudnn_128x64_relu_small_nn_v1", 128 * 200, 1e6);
	k.origin_ns = 1e6;
	ck_assert_int_eq(predict_kernel(pr, &k, &o, &g, PRED_AUTO, &r), 0);
	ck_assert_int_eq(r.method, PRED_CONV);
	ck_assert_double_eq_tol(r.ns, 977228.08, 1e-2);
	ck_assert_double_eq_tol(r.pull, 0.5, 1e-12);
	/* --method conv, the gate's predictor, one architecture: the ratio */
	ck_assert_int_eq(predict_kernel(pr, &k, &o, &g, PRED_CONV, &r), 0);
	ck_assert_double_eq_tol(r.ns, 1e6, 1e-3);
	ck_assert_int_eq(predict_kernel(lin, &k, &o, &g, PRED_AUTO, &r), 0);
	ck_assert_double_eq_tol(r.ns, 1e6, 1e-3);
	ck_assert_double_eq(r.pull, 0);
	g.cc = 70;
	ck_assert_int_eq(predict_kernel(pr, &k, &o, &g, PRED_AUTO, &r), 0);
	ck_assert_double_eq_tol(r.ns, 1e6, 1e-3);
	g.cc = 61;
	/* the SGEMM of a non-fused Winograd: a part, the ratio (1e6: the
	 * GPUs are alike) */
	k.name = "volta_sgemm_64x64_nn";
	ck_assert_int_eq(predict_kernel(pr, &k, &o, &g, PRED_AUTO, &r), 0);
	ck_assert_int_eq(r.method, PRED_CONV);
	ck_assert_double_eq_tol(r.ns, 1e6, 1e-3);
	ck_assert_double_eq(r.pull, 0);
	predictor_free(pr);
	predictor_free(lin);
}
END_TEST

/* Samples for conv_fit_pull(): 30 shapes on every ordered pair of three
 * made-up GPUs, the second of another architecture (7.5) than the other
 * two (7.0), origin times spread 1-7 x so R / S spans a range; the
 * target's time truth(S, R) across architectures, far off (10 R) within
 * one, which the fit must not count.  Returns the count. */
static size_t pull_samples(struct gpu_spec *g, const struct conv_params *p,
			   double (*truth)(double s, double r), struct conv_sample *s)
{
	size_t n = 0;
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++)
			for (int i = 0; i < 30 && a != b; i++) {
				struct pred_kernel k = conv_kernel(
					"cudnn_infer_volta_scudnn_128x64_relu_small_nn_v1",
					(64ull << (i % 10)) + 7 * (uint64_t)i, 1e5);
				struct pred_result rr, rs;
				k.origin_ns = 1e5 * (1 + i % 7);
				ck_assert_int_eq(conv_predict(&k, &g[a], &g[b], p, 1, &rr), 0);
				k.origin_ns = 0;
				ck_assert_int_eq(conv_predict(&k, NULL, &g[b], p, 1, &rs), 0);
				k.origin_ns = 1e5 * (1 + i % 7);
				s[n].k = k;
				s[n].origin = &g[a];
				s[n].target = &g[b];
				s[n].ns = g[a].cc == g[b].cc ? 10 * rr.ns : truth(rs.ns, rr.ns);
				n++;
			}
	return n;
}

static double truth_pull(double s, double r)
{
	return pow(s, 0.3) * pow(r, 0.7);
}

static double truth_cap(double s, double r)
{
	double c = s * exp(0.5);
	return pow(s, 0.1) * pow(pow(pow(r, -8) + pow(c, -8), -1.0 / 8), 0.9);
}

/* Measured times made as S^0.3 x R^0.7 on pairs of two architectures
 * (plus pairs within one, which must not count): the fitted pull is 0.3,
 * and no cap; made as the ratio capped at S e^0.5 with a = 8, (R^-8 +
 * (S e^0.5)^-8)^(-1/8), then pulled by 0.1 toward S: the fit finds those
 * three constants. */
START_TEST(fit_pull_recovers_constants)
{
	static const struct {
		double (*truth)(double s, double r);
		double pull, cap_pow, cap;
	} cases[] = {
		{truth_pull, 0.3, 0, 0},
		{truth_cap, 0.1, 8, 0.5},
	};
	struct gpu_spec g[3] = { fake_gpu("a", 80, 14, 900, 0), fake_gpu("b", 40, 8, 320, 0),
				 fake_gpu("c", 40, 8, 320, 0) };
	g[1].cc = 75;
	struct conv_sample *s = calloc(6 * 30, sizeof *s);
	ck_assert_ptr_nonnull(s);
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		struct conv_params p = truth_params();
		size_t n = pull_samples(g, &p, cases[c].truth, s);
		double rms;
		ck_assert_int_eq(conv_fit_pull(s, n, &p, &rms), 0);
		ck_assert_double_eq_tol(p.shape_pull, cases[c].pull, 1e-9);
		ck_assert_double_eq_tol(p.shape_cap_pow, cases[c].cap_pow, 1e-9);
		if (cases[c].cap_pow > 0)
			ck_assert_double_eq_tol(p.shape_cap, cases[c].cap, 1e-9);
		ck_assert_msg(rms < 1e-6, "rms %g", rms);
	}
	/* no sample: nothing to fit */
	struct conv_params p = truth_params();
	ck_assert_int_eq(conv_fit_pull(s, 0, &p, NULL), -EINVAL);
	free(s);
}
END_TEST

/* The trace path predicts a recorded convolution through conv_predict():
 * a forward convolution of 8 images of 64 channels, 56 x 56, by 128
 * filters of 3 x 3 (padding 1: 56 x 56 out), recorded on a V100 with its
 * cuDNN kernel (1 ms, 196 x 2 blocks), is the implicit GEMM m = 8 x 56 x
 * 56 = 25088, n = 128, k = 64 x 9 = 576, 2 m n k = 3,699,376,128 FLOPs and
 * 4 (8 x 64 x 56^2 + 128 x 64 x 9 + 8 x 128 x 56^2) = 19,562,496 bytes;
 * analyzed for a T4 with auto its method is conv and its time
 * conv_predict()'s for that kernel, without the floor. */
START_TEST(trace_path_uses_conv_predict)
{
	static const char kname[] = "cudnn_infer_volta_scudnn_128x64_relu_small_nn_v1";
	char path[256];
	const char *dir = getenv("TMPDIR");
	snprintf(path, sizeof path, "%s/check_conv-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(path), err;
	ck_assert_int_ge(fd, 0);
	close(fd);
	struct trace_writer *w = trace_writer_open(path, 0, &err);
	ck_assert_ptr_nonnull(w);
	struct trace_header h;
	memset(&h, 0, sizeof h);
	snprintf(h.device.name, sizeof h.device.name, "Tesla V100-PCIE-32GB");
	ck_assert_int_eq(trace_writer_header(w, &h), 0);
	struct trace_record r;
	memset(&r, 0, sizeof r);
	r.type = TRACE_CONV;
	r.u.conv = (struct trace_conv){ .seq = 1, .dir = TRACE_CONV_FWD, .nbdims = 4,
		.in = {8, 64, 56, 56}, .filt = {128, 64, 3, 3}, .out = {8, 128, 56, 56},
		.stride = {1, 1}, .pad = {1, 1}, .dilation = {1, 1}, .groups = 1,
		.dtype = TRACE_DT_F32, .compute_type = TRACE_DT_F32, .stream = 7, .cpu_ns = 1000 };
	ck_assert_int_eq(trace_writer_record(w, &r), 0);
	memset(&r, 0, sizeof r);
	r.type = TRACE_KERNEL;
	r.u.kernel = (struct trace_kernel){ .seq = 2,
		.name = trace_writer_intern(w, kname, strlen(kname)), .grid = {196, 2, 1},
		.block = {128, 1, 1}, .stream = 7, .cpu_ns = 1000, .start_ns = 6000,
		.end_ns = 6000 + 1000000, .lib_call = 1, .iteration = -1 };
	ck_assert_int_eq(trace_writer_record(w, &r), 0);
	ck_assert_int_eq(trace_writer_finish(w), 0);
	trace_writer_free(w);

	const struct gpu_spec *v100 = gpu_find("v100-pcie-32"), *t4 = gpu_find("t4");
	ck_assert_ptr_nonnull(v100);
	ck_assert_ptr_nonnull(t4);
	const struct gpu_spec *targets[1] = {t4};
	struct analysis_options o = {.targets = targets, .ntargets = 1, .method = PRED_AUTO};
	struct analysis *a = NULL;
	char msg[256];
	ck_assert_msg(analysis_run(path, &o, &a, msg, sizeof msg) == 0, "%s", msg);
	unlink(path);
	ck_assert_uint_eq(a->targets[0].ngroups, 1);
	ck_assert_int_eq(a->targets[0].groups[0].method, PRED_CONV);

	struct pred_kernel k;
	struct pred_result want;
	memset(&k, 0, sizeof k);
	k.name = kname;
	k.op = PRED_OP_CONV;
	k.dtype = GPU_DT_FP32;
	k.m = 25088;
	k.n = 128;
	k.k = 576;
	k.batch = 1;
	k.flops = 3699376128.0;
	k.bytes = 19562496;
	k.grid[0] = 196;
	k.grid[1] = 2;
	k.grid[2] = 1;
	k.origin_ns = 1e6;
	k.conv = (struct pred_conv){.r = 3, .s = 3, .p = 56, .q = 56, .unit = 1};
	ck_assert_int_eq(conv_predict(&k, v100, t4, NULL, 0, &want), 0);
	/* auto pulls a whole convolution across architectures toward the
	 * shape's time, which needs the descriptor's geometry (Winograd) */
	double ratio = want.ns;
	ck_assert_int_eq(conv_pull(&k, v100, t4, NULL, 0, &want), 0);
	ck_assert(fabs(want.ns / ratio - 1) > 1e-3);
	struct pred_kernel kg = k;
	struct pred_result nogeo;
	memset(&kg.conv, 0, sizeof kg.conv);
	ck_assert_int_eq(conv_predict(&kg, v100, t4, NULL, 0, &nogeo), 0);
	ck_assert_int_eq(conv_pull(&kg, v100, t4, NULL, 0, &nogeo), 0);
	ck_assert(fabs(nogeo.ns / want.ns - 1) > 1e-3);
	ck_assert_msg(fabs(a->targets[0].kernel_ns / want.ns - 1) < 1e-9,
		      "trace %.1f ns, conv_predict %.1f ns", a->targets[0].kernel_ns, want.ns);
	analysis_free(a);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("conv");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, algorithm_from_name);
	tcase_add_test(tc, hand_computed_times);
	tcase_add_test(tc, power_cap);
	tcase_add_test(tc, power_cap_on_derated_copy);
	tcase_add_test(tc, waves_from_recorded_grid);
	tcase_add_test(tc, wgrad_splits_reduction);
	tcase_add_test(tc, backward_passes_take_no_smem_term);
	tcase_add_test(tc, tensor_core_conv_as_gemm);
	tcase_add_test(tc, shared_memory_per_sm);
	tcase_add_test(tc, ratio_form_and_refusals);
	tcase_add_test(tc, fit_reproduces_ratios);
	tcase_add_test(tc, fit_learns_target_algorithm);
	tcase_add_test(tc, shape_form_hand_computed);
	tcase_add_test(tc, auto_from_shape);
	tcase_add_test(tc, shape_winograd_hand_computed);
	tcase_add_test(tc, fit_shape_recovers_constants);
	tcase_add_test(tc, pull_toward_shape);
	tcase_add_test(tc, pull_caps_ratio);
	tcase_add_test(tc, pull_across_winograd_boundary);
	tcase_add_test(tc, hopper_own_shape_constants);
	tcase_add_test(tc, conv_kind_from_names);
	tcase_add_test(tc, pick_votes_of_nearest);
	tcase_add_test(tc, kind_times_by_hand);
	tcase_add_test(tc, kind_fit_recovers_constants);
	tcase_add_test(tc, hopper_takes_own_picks);
	tcase_add_test(tc, auto_pulls_whole_convolutions);
	tcase_add_test(tc, fit_pull_recovers_constants);
	tcase_add_test(tc, trace_path_uses_conv_predict);
	suite_add_tcase(su, tc);
	return check_run(su);
}
