/*
 * check_tile.c - tile shapes from kernel names and launches, the tile
 * rule, features computed by hand, and the committed weights: they load and
 * predict sanely (never below the roofline, growing with the work, the
 * ratio form returning the measurement when both GPUs are alike); and the
 * predictor's state: weights, floor and AMD scale belong to the predictor
 * a call is given, and the result says which were applied.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_specs/figures.h"
#include "predictor/choose.h"
#include "predictor/mlp.h"
#include "predictor/roofline.h"
#include "predictor/power.h"
#include "predictor/tile.h"
#include "tests/check_run.h"

/* A predictor over weights tm (borrowed; NULL: the compiled-in ones), its
 * times with the weights' host floor or without. */
static struct predictor *pred_over(const struct tile_model *tm, int floor)
{
	struct pred_config c = { .tile = tm, .tile_floor = floor };
	struct predictor *p;
	ck_assert_int_eq(predictor_new(tm || floor ? &c : NULL, &p, NULL, 0), 0);
	return p;
}

/* The weights of blob, which must load. */
static struct tile_model *load(const unsigned char *blob, size_t len)
{
	struct tile_model *tm;
	ck_assert_int_eq(tile_model_load_blob(blob, len, &tm), 0);
	ck_assert_ptr_nonnull(tm);
	return tm;
}

struct name_case {
	const char *name;
	int rc;
	enum tile_kind kind;
	uint32_t t0, t1, tk, split, arch, vec;
};

static const struct name_case names[] = {
	{"volta_sgemm_128x64_nn", 0, TILE_GEMM, 128, 64, 0, 1, 70, 0},
	{"maxwell_sgemm_32x128_tn", 0, TILE_GEMM, 32, 128, 0, 1, 50, 0},
	{"ampere_sgemm_32x32_sliced1x4_tn", 0, TILE_GEMM, 32, 32, 0, 4, 80, 0},
	{"turing_fp16_s1688gemm_fp16_256x128_ldg8_f2f_tn", 0, TILE_GEMM, 256, 128, 0, 1, 75, 0},
	{"cutlass_80_tensorop_s1688gemm_256x128_32x3_nn_align4", 0, TILE_GEMM, 256, 128, 32, 1, 80, 0},
	{"sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas",
	 0, TILE_GEMM, 256, 128, 64, 1, 90, 0},   /* cuBLASLt names rows first: t0 the columns' 256 */
	{"sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize96x128x32_stage4_warpsize2x2x1_tensor16x8x16_kernel",
	 0, TILE_GEMM, 128, 96, 32, 1, 80, 0},
	{"sgemm_32x32x32_NN_vec", 0, TILE_GEMM, 32, 32, 32, 1, 0, 0},
	{"cudnn_infer_volta_scudnn_128x32_relu_medium_nn_v1", 0, TILE_GEMM, 128, 32, 0, 1, 70, 0},
	{"triton_poi_fused_add_mul_0", 0, TILE_ELEMENTWISE, 0, 0, 0, 1, 0, 0},
	{"triton_red_fused__softmax_1", 0, TILE_ROW, 0, 0, 0, 1, 0, 0},
	{"triton_tem_fused_mm_2", 0, TILE_GEMM, 0, 0, 0, 1, 0, 0},
	{"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
	 "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
	 0, TILE_ELEMENTWISE, 0, 0, 0, 1, 0, 4},
	{"void at::native::vectorized_elementwise_kernel<2, at::native::BinaryFunctor<c10::Half> >()",
	 0, TILE_ELEMENTWISE, 0, 0, 0, 1, 0, 2},
	{"void (anonymous namespace)::softmax_warp_forward<float, float, float, 8, false, false>(float*, "
	 "float const*, int, int, int, bool const*, int, bool)", 0, TILE_ROW, 0, 0, 0, 1, 0, 0},
	{"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float)",
	 0, TILE_ROW, 0, 0, 0, 1, 0, 0},
	{"my_custom_kernel", -1, TILE_UNKNOWN, 0, 0, 0, 1, 0, 0},
	{"", -1, TILE_UNKNOWN, 0, 0, 0, 1, 0, 0},
};

START_TEST(names_give_tiles)
{
	const struct name_case *c = &names[_i];
	struct tile_shape t;
	ck_assert_int_eq(tile_from_name(c->name, &t), c->rc);
	ck_assert_msg(t.kind == c->kind, "%s: kind %d", c->name, t.kind);
	ck_assert_msg(t.t0 == c->t0 && t.t1 == c->t1, "%s: %ux%u", c->name, t.t0, t.t1);
	ck_assert_msg(t.tk == c->tk, "%s: tk %u", c->name, t.tk);
	ck_assert_msg(t.split == c->split, "%s: split %u", c->name, t.split);
	ck_assert_msg(t.arch == c->arch, "%s: arch %u", c->name, t.arch);
	if (c->kind == TILE_ELEMENTWISE && c->vec)
		ck_assert_uint_eq(t.vec, c->vec);
}
END_TEST

START_TEST(null_name)
{
	struct tile_shape t;
	ck_assert_int_eq(tile_from_name(NULL, &t), -1);
	ck_assert_int_eq(t.kind, TILE_UNKNOWN);
}
END_TEST

START_TEST(tile_from_grid)
{
	/* A row of the data: ampere_sgemm_128x128_nn, bmm B=6 M=27 N(red.)=21
	 * K=390, grid 4x1x6: 390/4 = 97.5 -> 128 wide, 27/1 -> 32 tall. */
	struct pred_kernel k = {.op = PRED_OP_GEMM, .grid = {4, 1, 6}, .batch = 6,
				.m = 27, .k = 21, .n = 390};
	struct tile_shape t;
	ck_assert_int_eq(tile_from_launch(&k, &t), 0);
	ck_assert_uint_eq(t.t0, 128);
	ck_assert_uint_eq(t.t1, 32);
	k.op = PRED_OP_ELEMENTWISE;
	ck_assert_int_eq(tile_from_launch(&k, &t), -1);
}
END_TEST

/* The name's tile against the grid the kernel launched, rows of our H200
 * (data/NVIDIA_H200/kernels/gemm.csv; B, M, N = the reduction, K the
 * output's columns): the tile model's blocks, ceil(n / t0) x ceil(m / t1),
 * must be as many as the grid's x times y.  cuBLASLt's sm80_xmma_gemm
 * names the rows' side first (and lays its grid's x over the rows), the
 * SGEMMs the columns' (the T4's row).  Read the SGEMM way, the first row's
 * 64 x 128 tile would make 48 x 1 blocks of 64 x 3072 outputs. */
START_TEST(name_tile_matches_grid)
{
	static const struct {
		const char *name;
		uint64_t m, n;
		uint32_t gx, gy;
	} rows[] = {
		{"sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize64x128x8_stage3_warpsize1x4x1_ffma_aligna4_"
		 "alignc4_execute_kernel__5x_cublas", 64, 3072, 1, 24},        /* bmm 384x64x3072x3072 */
		{"sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x64x8_stage3_warpsize2x2x1_ffma_aligna4_"
		 "alignc4_execute_kernel__5x_cublas", 1024, 64, 8, 1},          /* bmm 640x1024x1024x64 */
		{"sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x32x8_stage3_warpsize2x2x1_ffma_aligna4_"
		 "alignc4_execute_kernel__5x_cublas", 196, 196, 2, 7},          /* bmm 6144x196x96x196 */
		{"volta_sgemm_32x128_tn", 58, 141, 5, 1},                       /* T4, linear 58x13x141 */
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		struct tile_shape t;
		ck_assert_int_eq(tile_from_name(rows[i].name, &t), 0);
		uint64_t bn = (rows[i].n + t.t0 - 1) / t.t0, bm = (rows[i].m + t.t1 - 1) / t.t1;
		ck_assert_msg(bn * bm == (uint64_t)rows[i].gx * rows[i].gy,
			      "row %zu: tile %ux%u gives %llu x %llu blocks, the grid was %u x %u", i, t.t0,
			      t.t1, (unsigned long long)bn, (unsigned long long)bm, rows[i].gx, rows[i].gy);
	}
}
END_TEST

/* A GPU with round figures (not a real one): 10 SMs, 1 TFLOP/s FP32. */
static struct gpu_spec round_gpu(void)
{
	struct gpu_spec g;
	memset(&g, 0, sizeof g);
	g.id = "round";
	g.cc = 80;
	g.sms = 10;
	g.boost_clock_mhz = 1000;
	g.mem_gb = 16;
	g.mem_bw_gbps = 100000;          /* so fast that GEMMs below are compute-bound */
	g.mem_bw_measured_gbps = 100000;
	g.l2_mb = 4;
	g.peak_tflops[GPU_DT_FP32] = 1;
	return g;
}

START_TEST(gemm_tile_rule)
{
	struct gpu_spec g = round_gpu();
	g.sms = 80;
	struct pred_kernel k = {.op = PRED_OP_GEMM, .batch = 1, .m = 4096, .n = 4096, .k = 64};
	struct tile_shape t;
	tile_gemm_pick(&k, &g, &t);      /* 32 x 32 = 1024 blocks >= 80 */
	ck_assert_uint_eq(t.t0, 128);
	ck_assert_uint_eq(t.t1, 128);
	k.m = 1024; k.n = 512;           /* 128x128: 4x8 = 32; 128x64: 4x16 = 64; 64x64: 8x16 = 128 */
	tile_gemm_pick(&k, &g, &t);
	ck_assert_uint_eq(t.t0, 64);
	ck_assert_uint_eq(t.t1, 64);
	k.m = 256; k.n = 256;            /* even 32x32 gives 64 < 80 blocks */
	tile_gemm_pick(&k, &g, &t);
	ck_assert_uint_eq(t.t0, 32);
	ck_assert_uint_eq(t.t1, 32);
}
END_TEST

START_TEST(gemm_features_by_hand)
{
	struct gpu_spec g = round_gpu();
	struct pred_kernel k = {.op = PRED_OP_GEMM, .batch = 1, .m = 640, .n = 640, .k = 128};
	struct tile_shape t = {.kind = TILE_GEMM, .t0 = 64, .t1 = 64, .split = 1};
	double f[TILE_NFEAT], base;
	ck_assert_int_eq(tile_features(NULL, &k, &g, &t, f, &base), TILE_FAM_GEMM);
	/* tile FLOPs 2*64*64*128 = 1048576 at 100 FLOP/ns per SM */
	ck_assert_double_eq_tol(f[0], log2(1048576.0 / 100), 1e-9);
	/* 10 x 10 tiles on 10 SMs: 10 full waves */
	ck_assert_double_eq_tol(f[2], log2(10), 1e-9);
	ck_assert_double_eq_tol(f[3], 1.0, 1e-12);
	/* 2*640*640*128 FLOPs at 1000 FLOP/ns, compute-bound */
	ck_assert_double_eq_tol(base, 2.0 * 640 * 640 * 128 / 1000, 1e-6);
	k.m = 0;
	ck_assert_int_eq(tile_features(NULL, &k, &g, &t, f, &base), -1);
	k.m = 640;
	k.op = PRED_OP_CONV;
	ck_assert_int_eq(tile_features(NULL, &k, &g, &t, f, &base), -1);
	g.sms = 0;
	k.op = PRED_OP_GEMM;
	ck_assert_int_eq(tile_features(NULL, &k, &g, &t, f, &base), -1);
}
END_TEST

START_TEST(utilisation_bound)
{
	/* time = base / sigmoid(out): out 0 -> u = 1/2; large out -> base */
	ck_assert_double_eq_tol(tile_time_from_output(0, 10), 20, 1e-12);
	ck_assert_double_eq_tol(tile_time_from_output(50, 10), 10, 1e-9);
	ck_assert(tile_time_from_output(-5, 10) > 10 * (1 + exp(5)) - 1e-6);
}
END_TEST

/* A V100-like and a T4-like GPU written here, so the check does not depend
 * on the database's figures (datasheet values). */
static void two_gpus(struct gpu_spec *v, struct gpu_spec *t)
{
	memset(v, 0, sizeof *v);
	v->id = "v100-like"; v->cc = 70; v->sms = 80; v->boost_clock_mhz = 1380;
	v->mem_gb = 32; v->mem_bw_gbps = 900; v->l2_mb = 6; v->tdp_w = 250;
	v->peak_tflops[GPU_DT_FP32] = 14;
	memset(t, 0, sizeof *t);
	t->id = "t4-like"; t->cc = 75; t->sms = 40; t->boost_clock_mhz = 1590;
	t->mem_gb = 16; t->mem_bw_gbps = 320; t->l2_mb = 4; t->tdp_w = 70;
	t->peak_tflops[GPU_DT_FP32] = 8.1;
}

START_TEST(committed_weights_predict_sanely)
{
	struct gpu_spec v, t;
	two_gpus(&v, &t);
	struct predictor *p = pred_over(NULL, 0);
	const struct tile_model *tm = predictor_tile(p);
	for (int f = 0; f < TILE_FAM_COUNT; f++)
		ck_assert_msg(tile_model_has(tm, f), "no compiled-in weights for family %d", f);
	struct pred_result r, r2;
	struct pred_kernel k = {.op = PRED_OP_GEMM, .dtype = GPU_DT_FP32, .batch = 1,
				.m = 4096, .n = 4096, .k = 4096};
	ck_assert_int_eq(tile_predict(p, &k, NULL, &v, &r), 0);
	/* The weights' power cap for a 250 W, 14 TF, 12 nm part:
	 * 2 x 250 / (14e12 x E x (12/16)^2) of the peak, at most 1. */
	double pj = tile_model_sustain_pj(tm);
	double s = pj > 0 ? 500.0 / (14e12 * pj * 1e-12 * 0.5625) : 1;
	if (s > 1)
		s = 1;
	double roof = 2.0 * 4096 * 4096 * 4096 / (14e3 * s);    /* ns */
	ck_assert_double_eq_tol(r.roofline_ns, roof, roof * 1e-9);
	ck_assert_msg(r.ns >= roof && r.ns < 4 * roof, "4096^3 on V100: %g ns, roofline %g", r.ns, roof);
	ck_assert_int_eq(r.method, PRED_MLP);
	ck_assert_int_eq(r.memory_bound, 0);   /* 4096^3 is compute-bound */
	/* Tensor-core dtypes are not what the model was trained on. */
	k.dtype = GPU_DT_FP16;
	ck_assert_int_lt(tile_predict(p, &k, NULL, &v, &r2), 0);
	k.dtype = GPU_DT_FP32;
	/* Eight times the work takes longer. */
	k.m = k.n = k.k = 2048;
	ck_assert_int_eq(tile_predict(p, &k, NULL, &v, &r2), 0);
	ck_assert(r2.ns < r.ns);
	/* The slower T4 takes longer than the V100 for a large GEMM. */
	k.m = k.n = k.k = 4096;
	ck_assert_int_eq(tile_predict(p, &k, NULL, &t, &r2), 0);
	ck_assert(r2.ns > r.ns);
	/* Elementwise add of 2^26 floats: 3 x 4 x 2^26 bytes at 900 GB/s. */
	struct pred_kernel e = {.op = PRED_OP_ELEMENTWISE, .m = 1 << 16, .n = 1 << 10,
				.bytes = 12.0 * (1 << 26), .flops = 1 << 26,
				.block = {128, 1, 1}};
	ck_assert_int_eq(tile_predict(p, &e, NULL, &v, &r), 0);
	double eroof = 12.0 * (1 << 26) / 900;
	ck_assert_msg(r.ns >= eroof && r.ns < 3 * eroof, "add on V100: %g ns, roofline %g", r.ns, eroof);
	ck_assert_int_eq(r.memory_bound, 1);
	/* Ratio form between identical GPUs returns the measurement. */
	k.origin_ns = 2 * roof;
	ck_assert_int_eq(tile_predict(p, &k, &v, &v, &r), 0);
	ck_assert_double_eq_tol(r.ns, 2 * roof, roof * 1e-9);
	/* V100 -> T4: T_o x model(T4) / model(V100), from the two
	 * from-scratch predictions (predict.h: linear in T_o). */
	struct pred_result rt, rv;
	k.origin_ns = 0;
	ck_assert_int_eq(tile_predict(p, &k, NULL, &t, &rt), 0);
	ck_assert_int_eq(tile_predict(p, &k, NULL, &v, &rv), 0);
	k.origin_ns = 3 * roof;
	ck_assert_int_eq(tile_predict(p, &k, &v, &t, &r), 0);
	double want = 3 * roof * rt.ns / rv.ns;
	ck_assert_double_eq_tol(r.ns, want, want * 1e-9);
	/* from far below the V100's roofline: no floor at the T4's */
	k.origin_ns = roof / 100;
	ck_assert_int_eq(tile_predict(p, &k, &v, &t, &r), 0);
	ck_assert_double_eq_tol(r.ns, want / 300, want * 1e-11);
	/* Unknown operators are not the tile model's. */
	struct pred_kernel u = {.op = PRED_OP_ATTENTION, .m = 10, .n = 10};
	ck_assert_int_lt(tile_predict(p, &u, NULL, &v, &r), 0);
	predictor_free(p);
}
END_TEST

/* A GPU whose FP32 GEMM rate is a measured large SGEMM (the H200's
 * fp32_gemm_eff, figures.c: 4096^3 at 50.75 TFLOP/s, 0.757 of the 67 the
 * datasheet gives) is timed at that rate for that GEMM, from the shape and
 * by the full predictor, where the learnt utilisation of the peak would
 * lower it a second time; its die's other board (the H100 SXM) the same,
 * since its FP32 side is the same; other shapes keep the model's relation
 * to it (a smaller GEMM takes less time, a narrower one a lower rate).
 * Held out (Hopper out of the figures) the peak is the instruction mix's
 * again and the GEMM is not pinned to the measurement. */
START_TEST(figure_gemm_rate_kept)
{
	struct predictor *p = pred_over(NULL, 0);
	const struct gpu_spec *h200 = gpu_find("h200"), *h100 = gpu_find("h100-sxm");
	ck_assert_ptr_nonnull(h200);
	ck_assert_ptr_nonnull(h100);
	struct pred_kernel k = {.op = PRED_OP_GEMM, .dtype = GPU_DT_FP32, .batch = 1,
				.m = 4096, .n = 4096, .k = 4096};
	double flops = 2.0 * 4096 * 4096 * 4096, want = flops / (50.75e12 / 1e9);  /* ns */
	struct pred_result r, r100, rs, rh;
	ck_assert_int_eq(tile_predict(p, &k, NULL, h200, &r), 0);
	ck_assert_msg(fabs(r.ns / want - 1) < 0.01, "H200 4096^3 FP32: %g ns, measured %g", r.ns, want);
	ck_assert_int_eq(tile_predict(p, &k, NULL, h100, &r100), 0);
	ck_assert_msg(fabs(r100.ns / want - 1) < 0.01, "H100 4096^3 FP32: %g ns", r100.ns);
	struct pred_kernel s = k;
	s.m = s.n = s.k = 1024;
	ck_assert_int_eq(tile_predict(p, &s, NULL, h200, &rs), 0);
	ck_assert(rs.ns < r.ns);
	ck_assert_msg(2.0 * 1024 * 1024 * 1024 / rs.ns < flops / r.ns, "1024^3 at a higher rate than 4096^3");
	gpu_figures_hold_out(90);
	ck_assert_int_eq(tile_predict(p, &k, NULL, h200, &rh), 0);
	gpu_figures_hold_out(0);
	ck_assert_msg(fabs(rh.ns / want - 1) > 0.02, "held out, still the measured time: %g ns", rh.ns);
	/* the full predictor too (auto: the tile model for a GEMM from the shape) */
	struct pred_result ra;
	ck_assert_int_eq(predict_kernel(p, &k, NULL, h200, PRED_AUTO, &ra), 0);
	ck_assert_msg(fabs(ra.ns / want - 1) < 0.01, "auto: %g ns, measured %g", ra.ns, want);
	predictor_free(p);
}
END_TEST

START_TEST(bad_weights_refused)
{
	const unsigned char junk[] = "STIL\x01\0\0\0\x01\0\0\0\0\0\0\0\x18\0\0\0garbage";
	struct tile_model *tm = (struct tile_model *)junk;
	ck_assert_int_eq(tile_model_load_blob(junk, sizeof junk, &tm), -1);
	ck_assert_ptr_null(tm);
	ck_assert_int_eq(tile_model_load_blob((const unsigned char *)"nope", 4, &tm), -1);
	ck_assert_int_eq(tile_model_load_file("/nonexistent/weights.bin", &tm), -2);
	ck_assert_ptr_null(tm);
	/* a predictor asked for them is not built, and says why */
	struct pred_config c = { .weights = "/nonexistent/weights.bin" };
	struct predictor *p = (struct predictor *)junk;
	char err[128] = "";
	ck_assert_int_eq(predictor_new(&c, &p, err, sizeof err), -2);
	ck_assert_ptr_null(p);
	ck_assert_str_eq(err, "cannot read '/nonexistent/weights.bin'");
	/* the empty model has nothing */
	for (int f = 0; f < TILE_FAM_COUNT; f++)
		ck_assert(!tile_model_has(NULL, f));
}
END_TEST

START_TEST(clamp_caps_blowups)
{
	/* cap = 256 x roofline + 2 ms: 100 ns roofline -> 25600 + 2e6 ns. */
	ck_assert_double_eq_tol(tile_clamp_ns(1e20, 100), 2025600, 1e-6);
	ck_assert_double_eq_tol(tile_clamp_ns(INFINITY, 100), 2025600, 1e-6);
	ck_assert_double_eq_tol(tile_clamp_ns(5e4, 100), 5e4, 1e-9);
}
END_TEST

START_TEST(floor_combination)
{
	/* p = 1 is the sum, p = 2 the hypotenuse; no floor: the work. */
	double f = 30e3, w = 40e3;
	double want = TILE_FLOOR_P == 1 ? 70e3 : pow(pow(f, TILE_FLOOR_P) + pow(w, TILE_FLOOR_P),
						       1 / TILE_FLOOR_P);
	ck_assert_double_eq_tol(tile_with_floor(f, w), want, 1e-6);
	ck_assert_double_eq_tol(tile_with_floor(0, w), w, 1e-9);
	ck_assert(tile_with_floor(f, 1) >= f);
}
END_TEST

START_TEST(power_cap_by_hand)
{
	struct gpu_spec v, t;
	two_gpus(&v, &t);
	struct tile_model *tm = tile_model_new();
	ck_assert_ptr_nonnull(tm);
	tile_model_set_sustain_pj(tm, 60);
	/* T4-like: 12 nm, E = 60 pJ x (12/16)^2 = 33.75 pJ; 2 x 70 W /
	 * (8.1e12 FLOP/s x 33.75e-12 J) = 140 / 273.375 = 0.51211. */
	ck_assert_double_eq_tol(tile_sustained_fraction(tm, &t), 140.0 / 273.375, 1e-9);
	/* V100-like: 500 / (14e12 x 33.75e-12) = 1.058 -> not limited. */
	ck_assert_double_eq_tol(tile_sustained_fraction(tm, &v), 1, 1e-12);
	/* The capped peak is the roofline the model divides. */
	struct pred_kernel k = {.op = PRED_OP_GEMM, .dtype = GPU_DT_FP32, .batch = 1,
				.m = 4096, .n = 4096, .k = 4096};
	double f[TILE_NFEAT], base;
	ck_assert_int_eq(tile_features(tm, &k, &t, NULL, f, &base), TILE_FAM_GEMM);
	ck_assert_double_eq_tol(base, 2.0 * 4096 * 4096 * 4096 / (8.1e3 * 140.0 / 273.375), 1e-3);
	/* Below 12 nm the energy falls as nm, not nm^2.  L4-like: 5 nm, 58
	 * SMs of 128 FP32 lanes at 2040 MHz (30.3 TF on the datasheet), 72 W;
	 * no FMA figure of its own: issuable, the median of the measured
	 * 128-lane parts (gpu-benches: A40 23723 / (37400 x 1725/1740), L40
	 * 50855 / (90500 x 2220/2490), H200 42558 / 67000: the H200's 0.63519)
	 * over the A100's 19192 / 19500 = 0.98421: 0.64539 x 30.3 = 19.5553
	 * TF.  E = 60 x (12/16)^2 x 5/12 = 14.0625 pJ; 144 / (19.5553e12 x
	 * 14.0625e-12) = 0.52364. */
	struct gpu_spec l = {.id = "l4-like", .cc = 89, .sms = 58, .boost_clock_mhz = 2040,
			     .tdp_w = 72};
	l.peak_tflops[GPU_DT_FP32] = 30.3;
	ck_assert_double_eq_tol(tile_sustained_fraction(tm, &l),
				144.0 / (30.3 * (42558.0 / 67000) / (19192.0 / 19500) * 14.0625), 1e-9);
	/* 7 nm, 64 lanes (no issue derating), 150 W: E = 60 x 0.5625 x 7/12
	 * = 19.6875 pJ; 300 / (19.5 x 19.6875) = 0.78139.  At 250 W (an A100
	 * PCIe) 1.30: not limited. */
	struct gpu_spec a = {.id = "a100-like", .cc = 80, .sms = 108, .boost_clock_mhz = 1410,
			     .tdp_w = 150};
	a.peak_tflops[GPU_DT_FP32] = 19.5;
	ck_assert_double_eq_tol(tile_sustained_fraction(tm, &a), 300.0 / (19.5 * 19.6875), 1e-9);
	a.tdp_w = 250;
	ck_assert_double_eq_tol(tile_sustained_fraction(tm, &a), 1, 1e-12);
	tile_model_set_sustain_pj(tm, 0);
	ck_assert_double_eq_tol(tile_sustained_fraction(tm, &t), 1, 1e-12);
	ck_assert_double_eq_tol(tile_sustained_fraction(NULL, &t), 1, 1e-12);
	tile_model_free(tm);
}
END_TEST

/* AMD parts: the node from the gfx target, no SIMT power cap, the GEMM
 * peak the matrix units' FP32 rate (twice the vector rate) times
 * GPU_AMD_MATRIX_EFF, and no cuBLAS tile picks. */
START_TEST(amd_targets)
{
	const struct gpu_spec *mi100 = gpu_find("AMD Instinct MI100"),
			      *mi210 = gpu_find("AMD_Instinct_MI210"), *mi300 = gpu_find("mi300x"),
			      *a100 = gpu_find("a100-pcie-40");
	ck_assert_ptr_nonnull(mi100);
	ck_assert_ptr_nonnull(mi210);
	ck_assert_ptr_nonnull(mi300);
	ck_assert_double_eq(power_node_nm(mi100->cc), 7);
	ck_assert_double_eq(power_node_nm(mi210->cc), 6);
	ck_assert_double_eq(power_node_nm(mi300->cc), 5);

	struct tile_model *tm = tile_model_new();
	ck_assert_ptr_nonnull(tm);
	tile_model_set_sustain_pj(tm, 600);
	/* An NVIDIA part with the MI210's figures would be held to
	 * 600 W / (22.6e12 x 600e-12 x 0.5625 x 7/12 J) = 0.135 of its peak. */
	struct gpu_spec nv = *mi210;
	nv.cc = 80;
	ck_assert_double_eq_tol(tile_sustained_fraction(tm, &nv), 600.0 / (22.6 * 600 * 0.5625 * 7 / 12),
				1e-9);
	ck_assert_double_eq(tile_sustained_fraction(tm, mi210), 1);

	/* 4096^3: 137 GFLOP at 2 x 22.6 x 0.75 TFLOP/s; the 201 MB at
	 * 1399 GB/s take 35x less. */
	struct pred_kernel k = {.op = PRED_OP_GEMM, .dtype = GPU_DT_FP32, .batch = 1,
				.m = 4096, .n = 4096, .k = 4096};
	double f[TILE_NFEAT], base;
	ck_assert_int_eq(tile_features(tm, &k, mi210, NULL, f, &base), TILE_FAM_GEMM);
	ck_assert_double_eq_tol(base, 2.0 * 4096 * 4096 * 4096 / (2 * 22.6e3 * GPU_AMD_MATRIX_EFF),
				1e-3);
	ck_assert_double_eq_tol(roofline_kernel_peak_flops(&k, mi210, GPU_DT_FP32), 45.2e12, 1e3);
	ck_assert_double_eq_tol(roofline_kernel_peak_flops(&k, a100, GPU_DT_FP32), 19.5e12, 1e3);
	struct pred_kernel e = {.op = PRED_OP_ELEMENTWISE, .dtype = GPU_DT_FP32, .m = 1, .n = 1 << 20};
	ck_assert_double_eq_tol(roofline_kernel_peak_flops(&e, mi210, GPU_DT_FP32), 22.6e12, 1e3);
	tile_model_free(tm);

	/* The committed weights' picks: the A100's for its batched GEMM,
	 * none for an AMD part, which falls to the canonical rule. */
	tm = load(tile_weights_blob, tile_weights_blob_len);
	struct pred_kernel kb = {.op = PRED_OP_GEMM, .dtype = GPU_DT_FP32, .batch = 16,
				 .m = 512, .n = 512, .k = 64};
	struct tile_shape t;
	ck_assert_int_eq(tile_pick_lookup(tm, &kb, a100, &t), 0);
	ck_assert_ptr_null(tile_pick_source(tm, mi210));
	ck_assert_int_eq(tile_pick_lookup(tm, &kb, mi210, &t), -1);
	tile_model_free(tm);
}
END_TEST

static void put32(unsigned char *p, uint32_t v)
{
	for (int b = 0; b < 4; b++)
		p[b] = (v >> (8 * b)) & 0xff;
}

/* A blob of the given version holding one GEMM model (mb, ml) and `tail`
 * zero bytes after it, which *p points to; the version-2 fields (energy,
 * floors) are 0. */
static unsigned char *gemm_blob(uint32_t version, const unsigned char *mb, size_t ml, size_t tail,
				size_t *len, unsigned char **p)
{
	size_t hdr = 16 + 4 * TILE_FAM_COUNT;
	*len = hdr + 8 + ml + tail;
	unsigned char *blob = calloc(1, *len);
	ck_assert_ptr_nonnull(blob);
	memcpy(blob, "STIL", 4);
	put32(blob + 4, version);
	put32(blob + 8, 1);
	put32(blob + hdr, TILE_FAM_GEMM);
	put32(blob + hdr + 4, TILE_NFEAT);
	memcpy(blob + hdr + 8, mb, ml);
	*p = blob + hdr + 8 + ml;
	return blob;
}

/* A one-layer GEMM-sized MLP (seed) and its saved blob. */
static struct mlp *one_layer(uint64_t seed, unsigned char **mb, size_t *ml)
{
	unsigned sizes[2] = {TILE_NFEAT, 1};
	struct mlp *m = mlp_new(sizes, 1, seed);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(mlp_save(m, mb, ml), 0);
	return m;
}

/* A version-5 blob: the one-layer model, a curve of zeros (valid: no
 * efficiency lost, no wave or padding terms), no training GPU's picks and
 * one table of our own H200 (surfer-train --picks-data).  Hopper's boards
 * take it; a bench holding Hopper out (gpu_figures_hold_out) does not. */
START_TEST(v5_blob_own_picks)
{
	unsigned char *mb;
	size_t ml;
	struct mlp *m = one_layer(7, &mb, &ml);
	/* 16 x 512 x 512, k 64: batched, octaves 9, 9, 6, batch 4; 64x64 */
	struct pred_kernel kb = {.op = PRED_OP_GEMM, .dtype = GPU_DT_FP32, .batch = 16,
				 .m = 512, .n = 512, .k = 64};
	const uint32_t key = 1u << 22 | 9u << 16 | 9u << 10 | 6u << 5 | 4u, c64x64 = 6 | 6 << 3;
	ck_assert_uint_eq(tile_pick_key(&kb), key);
	size_t len, tail = 4 + 8 * TILE_CURVE_NPARAM + 4 + (4 + 4 + 4 + 4 + 4);
	unsigned char *p, *blob = gemm_blob(5, mb, ml, tail, &len, &p);
	put32(p, TILE_CURVE_NPARAM);       /* the curve: zeros */
	p += 4 + 8 * TILE_CURVE_NPARAM;
	put32(p, 0);                       /* no training GPU's picks */
	put32(p + 4, 1);                   /* ours: the H200's */
	put32(p + 8, 4);
	memcpy(p + 12, "h200", 4);
	put32(p + 16, 1);
	put32(p + 20, key << 9 | c64x64);
	ck_assert_uint_eq((size_t)(p + 24 - blob), len);
	struct tile_model *tm = load(blob, len), *bad;
	const struct gpu_spec *h200 = gpu_find("h200"), *h100 = gpu_find("h100-sxm");
	ck_assert_ptr_nonnull(h200);
	ck_assert_ptr_nonnull(h100);
	struct tile_shape t;
	ck_assert_ptr_eq(tile_pick_source(tm, h100), h200);
	ck_assert_int_eq(tile_pick_lookup(tm, &kb, h100, &t), 0);
	ck_assert_uint_eq(t.t0, 64);
	ck_assert_uint_eq(t.t1, 64);
	ck_assert_ptr_null(tile_pick_source(tm, gpu_find("a100-pcie-40")));
	/* Hopper held out: none (the canonical rule), another held out: it */
	gpu_figures_hold_out(90);
	ck_assert_ptr_null(tile_pick_source(tm, h100));
	ck_assert_int_eq(tile_pick_lookup(tm, &kb, h200, &t), -1);
	gpu_figures_hold_out(80);
	ck_assert_ptr_eq(tile_pick_source(tm, h100), h200);
	gpu_figures_hold_out(0);
	/* A version-4 blob ends with its one pick section: the second is
	 * trailing bytes there; truncated: rejected. */
	put32(blob + 4, 4);
	ck_assert_int_eq(tile_model_load_blob(blob, len, &bad), -1);
	put32(blob + 4, 5);
	ck_assert_int_eq(tile_model_load_blob(blob, len - 4, &bad), -1);
	tile_model_free(tm);
	mlp_free(m);
	free(mb);
	free(blob);
}
END_TEST

START_TEST(v2_blob_floor_and_cap)
{
	/* A one-layer GEMM model in a version-2 blob with 60 pJ and a 5 us
	 * GEMM floor: the prediction is floor + roofline / sigmoid(y), with y
	 * the MLP's output on the features, recomputed here. */
	unsigned char *mb;
	size_t ml;
	struct mlp *m = one_layer(7, &mb, &ml);
	size_t len;
	unsigned char *tail, *blob = gemm_blob(2, mb, ml, 0, &len, &tail);
	put32(blob + 12, 60000);
	put32(blob + 16, 5000);
	struct tile_model *tm = load(blob, len);
	ck_assert_double_eq_tol(tile_model_sustain_pj(tm), 60, 1e-9);
	ck_assert_double_eq_tol(tile_floor_ns(tm, TILE_FAM_GEMM), 5000, 1e-9);
	ck_assert_double_eq_tol(tile_floor_ns(tm, TILE_FAM_NORM), 0, 1e-9);
	ck_assert(!tile_model_has(tm, TILE_FAM_NORM));
	struct predictor *p = pred_over(tm, 0), *pf = pred_over(tm, 1);

	struct gpu_spec v, t;
	two_gpus(&v, &t);
	struct pred_kernel k = {.op = PRED_OP_GEMM, .dtype = GPU_DT_FP32, .batch = 1,
				.m = 300, .n = 500, .k = 700};
	double f[TILE_NFEAT], base, y;
	ck_assert_int_eq(tile_features(tm, &k, &t, NULL, f, &base), TILE_FAM_GEMM);
	mlp_forward(m, f, &y);
	double w = base * (1 + exp(-y));
	double cap = 256 * base + 2e6;
	/* Without the floor (the default: kernel durations as traced). */
	struct pred_result r;
	ck_assert_int_eq(tile_predict(p, &k, NULL, &t, &r), 0);
	ck_assert_double_eq_tol(r.ns, w < cap ? w : cap, w * 1e-6);
	ck_assert_double_eq(r.floor_ns, 0);
	/* With it (NeuSight's op timings): (F^p + W^p)^(1/p). */
	double want = pow(pow(5000, TILE_FLOOR_P) + pow(w, TILE_FLOOR_P), 1 / TILE_FLOOR_P);
	if (want > cap)
		want = cap;
	ck_assert_int_eq(tile_predict(pf, &k, NULL, &t, &r), 0);
	ck_assert_double_eq_tol(r.ns, want, want * 1e-6);
	ck_assert_double_eq(r.floor_ns, 5000);
	ck_assert_double_eq_tol(r.roofline_ns, base, base * 1e-12);
	predictor_free(p);
	predictor_free(pf);
	tile_model_free(tm);
	mlp_free(m);
	free(mb);
	free(blob);
}
END_TEST

/* A version-3 blob: the one-layer model of the test above plus pick tables
 * written here for the T4 and the A100 PCIe 40GB; keys and codes worked by
 * hand from tile.h's layout. */
START_TEST(v3_blob_pick_tables)
{
	unsigned char *mb;
	size_t ml;
	struct mlp *m = one_layer(7, &mb, &ml);
	/* kA: 1 x 1024 x 4096, k 512: octaves 10, 12, 9, not batched.
	 * kB: 8 x 64 x 64, k 64: batched, 6, 6, 6, batch 3. */
	struct pred_kernel kA = {.op = PRED_OP_GEMM, .dtype = GPU_DT_FP32, .batch = 1,
				 .m = 1024, .n = 4096, .k = 512};
	struct pred_kernel kB = {.op = PRED_OP_GEMM, .dtype = GPU_DT_FP32, .batch = 8,
				 .m = 64, .n = 64, .k = 64};
	const uint32_t keyA = 10u << 16 | 12u << 10 | 9u << 5;
	const uint32_t keyB = 1u << 22 | 6u << 16 | 6u << 10 | 6u << 5 | 3u;
	ck_assert_uint_eq(tile_pick_key(&kA), keyA);
	ck_assert_uint_eq(tile_pick_key(&kB), keyB);
	/* 128x64: 7 | 6 << 3; 32x32 sliced 1x4: 5 | 5 << 3 | 2 << 6; 128x128 */
	const uint32_t c128x64 = 55, c32x32s4 = 173, c128x128 = 63;
	struct tile_shape ts = {.kind = TILE_GEMM, .t0 = 32, .t1 = 32, .split = 4};
	ck_assert_uint_eq(tile_pick_code(&ts), c32x32s4);

	size_t len, picks = 4 + (4 + 2 + 4 + 8) + (4 + 12 + 4 + 4);
	unsigned char *p, *blob = gemm_blob(3, mb, ml, picks, &len, &p);
	put32(p, 2);
	put32(p + 4, 2);
	memcpy(p + 8, "t4", 2);
	put32(p + 10, 2);
	put32(p + 14, keyA << 9 | c128x64);
	put32(p + 18, keyB << 9 | c32x32s4);
	put32(p + 22, 12);
	memcpy(p + 26, "a100-pcie-40", 12);
	put32(p + 38, 1);
	put32(p + 42, keyA << 9 | c128x128);
	ck_assert_uint_eq((size_t)(p + 46 - blob), len);
	struct tile_model *tm = load(blob, len), *bad;

	const struct gpu_spec *t4 = gpu_find("t4"), *a100 = gpu_find("a100-pcie-40");
	ck_assert_ptr_nonnull(t4);
	ck_assert_ptr_nonnull(a100);
	struct tile_shape t;
	ck_assert_int_eq(tile_pick_lookup(tm, &kA, t4, &t), 0);
	ck_assert_uint_eq(t.t0, 128);
	ck_assert_uint_eq(t.t1, 64);
	ck_assert_uint_eq(t.split, 1);
	ck_assert_int_eq(tile_pick_lookup(tm, &kB, t4, &t), 0);
	ck_assert_uint_eq(t.t0, 32);
	ck_assert_uint_eq(t.t1, 32);
	ck_assert_uint_eq(t.split, 4);
	ck_assert_int_eq(tile_pick_lookup(tm, &kA, a100, &t), 0);
	ck_assert_uint_eq(t.t0, 128);
	ck_assert_uint_eq(t.t1, 128);
	/* GPUs without a table: a board of the same compute capability's,
	 * else none (a new architecture takes the canonical rule). */
	static const struct { const char *gpu, *source; } near[] = {
		{"a100-sxm4-80", "a100-pcie-40"}, {"a30", "a100-pcie-40"}, {"l4", NULL},
		{"h100-sxm", NULL}, {"v100-pcie-32", NULL}, {"p100-pcie", NULL},
	};
	for (size_t i = 0; i < sizeof near / sizeof near[0]; i++) {
		const struct gpu_spec *g = gpu_find(near[i].gpu);
		ck_assert_msg(g != NULL, "%s", near[i].gpu);
		ck_assert_ptr_eq(tile_pick_source(tm, g),
				 near[i].source ? gpu_find(near[i].source) : NULL);
	}
	ck_assert_int_eq(tile_pick_lookup(tm, &kA, gpu_find("v100-pcie-32"), &t), -1);
	ck_assert_int_eq(tile_pick_lookup(tm, &kA, gpu_find("a100-sxm4-80"), &t), 0);
	ck_assert_uint_eq(t.t0, 128);
	ck_assert_uint_eq(t.t1, 128);
	/* A neighbouring cell (m 2048: octave 11) takes kA's pick; a shape
	 * 6 octaves away from every cell is not guessed. */
	struct pred_kernel kn = kA;
	kn.m = 2048;
	ck_assert_int_eq(tile_pick_lookup(tm, &kn, t4, &t), 0);
	ck_assert_uint_eq(t.t1, 64);
	kn.m = 1u << 16;
	ck_assert_int_eq(tile_pick_lookup(tm, &kn, t4, &t), -1);
	/* The features use the table's tile: 128 (over n = 4096) x 64 (over
	 * m = 1024) gives 32 x 16 = 512 blocks, 13 waves on the T4's 40 SMs,
	 * the last one 512 / 520 full (128x128 would give 256 blocks in 7). */
	double f[TILE_NFEAT], base;
	ck_assert_uint_eq(t4->sms, 40);
	ck_assert_int_eq(tile_features(tm, &kA, t4, NULL, f, &base), TILE_FAM_GEMM);
	ck_assert_double_eq_tol(f[2], log2(13), 1e-12);
	ck_assert_double_eq_tol(f[3], 512.0 / 520, 1e-12);
	/* Keys out of order: rejected. */
	put32(p + 14, keyB << 9 | c128x64);
	put32(p + 18, keyA << 9 | c32x32s4);
	ck_assert_int_eq(tile_model_load_blob(blob, len, &bad), -1);
	/* Truncated: rejected. */
	ck_assert_int_eq(tile_model_load_blob(blob, len - 3, &bad), -1);
	tile_model_free(tm);

	/* The committed weights: a table for each of NeuSight's GPUs; the
	 * A100's cuBLAS ran batched SGEMMs with 128x128 tiles (16588 of
	 * 16661 bmm rows). */
	tm = load(tile_weights_blob, tile_weights_blob_len);
	static const char *const ns[] = {"p4", "p100-pcie", "t4", "v100-pcie-32", "a100-pcie-40"};
	for (size_t i = 0; i < 5; i++)
		ck_assert_ptr_eq(tile_pick_source(tm, gpu_find(ns[i])), gpu_find(ns[i]));
	struct pred_kernel kb = {.op = PRED_OP_GEMM, .dtype = GPU_DT_FP32, .batch = 16,
				 .m = 512, .n = 512, .k = 64};
	ck_assert_int_eq(tile_pick_lookup(tm, &kb, a100, &t), 0);
	ck_assert_uint_eq(t.t0, 128);
	ck_assert_uint_eq(t.t1, 128);
	/* and our own H100's and H200's (format 5): an H800 takes the H100's
	 * (the first sm_90 table by id), whose cuBLAS ran 16384 outputs of
	 * 512 x 512 over a reduction of 64 with 64x64 tiles
	 * (data/NVIDIA_H100_80GB_HBM3/kernels/gemm.csv, tilesize64x64x8);
	 * none with Hopper held out */
	const struct gpu_spec *h100 = gpu_find("h100-sxm"), *h800 = gpu_find("h800");
	ck_assert_ptr_eq(tile_pick_source(tm, gpu_find("h200")), gpu_find("h200"));
	ck_assert_ptr_eq(tile_pick_source(tm, h800), h100);
	kb.batch = 16384;
	ck_assert_int_eq(tile_pick_lookup(tm, &kb, h800, &t), 0);
	ck_assert_uint_eq(t.t0, 64);
	ck_assert_uint_eq(t.t1, 64);
	gpu_figures_hold_out(90);
	ck_assert_ptr_null(tile_pick_source(tm, h800));
	gpu_figures_hold_out(0);
	tile_model_free(tm);
	mlp_free(m);
	free(mb);
	free(blob);
}
END_TEST

/* put64: an IEEE double as the v4 blob stores it. */
static void putdbl(unsigned char *p, double d)
{
	uint64_t bits;
	memcpy(&bits, &d, sizeof bits);
	put32(p, (uint32_t)bits);
	put32(p + 4, (uint32_t)(bits >> 32));
}

/* The GEMM curve worked by hand on the V100-like part (80 SMs, 14 TFLOP/s,
 * 900 GB/s x 0.89 achievable, no power cap), then a version-4 blob: the
 * one-layer model and the curve, whose prediction is the geometric mean
 * of the two; blobs with constants outside the physical region, a wrong
 * count or a cut section are refused. */
START_TEST(v4_blob_gemm_curve)
{
	struct gpu_spec v, t;
	two_gpus(&v, &t);
	const double c[TILE_CURVE_NPARAM] = {log(0.8), 0.5, 1.0, log(0.5)};
	ck_assert(tile_curve_valid(c));
	double tm[4];
	/* 1024^3: 8 x 8 = 64 tiles of 128 x 128 in one wave of 80 SMs, no
	 * padding; 2^31 FLOPs at 14000 FLOP/ns over 0.8 x 0.8^0.5; the bytes
	 * (12 x 2^20) at 801 x 0.5 GB/s take 31.4 us, less. */
	struct pred_kernel k = {.op = PRED_OP_GEMM, .dtype = GPU_DT_FP32, .batch = 1,
				.m = 1024, .n = 1024, .k = 1024};
	ck_assert_int_eq(tile_curve_terms(NULL, &k, &v, tm), 0);
	double want = 2147483648.0 / 14000 / (0.8 * sqrt(0.8));
	ck_assert_double_eq_tol(tile_curve_ns(tm, c), want, want * 1e-9);
	ck_assert_double_eq_tol(tm[1], 12582912.0 / 801, 1e-6);
	/* m = 1000: the same tiles, 1000 / 1024 of their area used: the
	 * padding exponent 1 charges the padded work in full. */
	k.m = 1000;
	ck_assert_int_eq(tile_curve_terms(NULL, &k, &v, tm), 0);
	want = 2.0 * 1000 * 1024 * 1024 / 14000 / (0.8 * sqrt(0.8) * (1000.0 / 1024));
	ck_assert_double_eq_tol(tile_curve_ns(tm, c), want, want * 1e-9);
	/* 1 x 4096 x 4096: memory-bound, 4 x (2 x 4096 + 4096^2) bytes. */
	struct pred_kernel gv = {.op = PRED_OP_GEMM, .dtype = GPU_DT_FP32, .batch = 1,
				 .m = 1, .n = 4096, .k = 4096};
	const double c2[TILE_CURVE_NPARAM] = {log(0.8), 0.1, 0.6, log(0.5)};
	ck_assert_int_eq(tile_curve_terms(NULL, &gv, &v, tm), 0);
	want = 4.0 * (2 * 4096 + 4096.0 * 4096) / (801 * 0.5);
	ck_assert_double_eq_tol(tile_curve_ns(tm, c2), want, want * 1e-9);
	/* Not an FP32 GEMM: no terms. */
	k.dtype = GPU_DT_BF16;
	ck_assert_int_eq(tile_curve_terms(NULL, &k, &v, tm), -1);
	k.dtype = GPU_DT_FP32;
	/* Outside the physical region. */
	static const double bad[][TILE_CURVE_NPARAM] = {
		{0.1, 0.5, 1, -1},   /* efficiency above 1 */
		{-0.1, -0.1, 1, -1}, /* negative wave exponent */
		{-0.1, 0.5, 0.4, -1},/* padding exponent below the wave's */
		{-0.1, 0.5, 2.5, -1},
		{-0.1, 0.5, 1, 0.2}, /* bandwidth above the achievable */
		{NAN, 0.5, 1, -1},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(!tile_curve_valid(bad[i]), "case %zu", i);

	unsigned char *mb;
	size_t ml;
	struct mlp *m = one_layer(7, &mb, &ml);
	size_t len, cs = 4 + 8 * TILE_CURVE_NPARAM;
	unsigned char *p, *blob = gemm_blob(4, mb, ml, cs + 4, &len, &p);
	size_t body = (size_t)(p - blob);
	put32(p, TILE_CURVE_NPARAM);
	for (int i = 0; i < TILE_CURVE_NPARAM; i++)
		putdbl(p + 4 + 8 * i, c[i]);
	put32(p + cs, 0);           /* no pick tables */
	struct tile_model *w4 = load(blob, len), *refused;
	struct predictor *pr = pred_over(w4, 0);
	double got[TILE_CURVE_NPARAM];
	ck_assert_int_eq(tile_curve_params(w4, got), 1);
	for (int i = 0; i < TILE_CURVE_NPARAM; i++)
		ck_assert_double_eq(got[i], c[i]);
	k.m = 1024;
	double f[TILE_NFEAT], base, y;
	ck_assert_int_eq(tile_features(w4, &k, &v, NULL, f, &base), TILE_FAM_GEMM);
	mlp_forward(m, f, &y);
	double w = base * (1 + exp(-y));
	ck_assert_int_eq(tile_curve_terms(NULL, &k, &v, tm), 0);
	want = sqrt(w * tile_curve_ns(tm, c));
	struct pred_result r;
	ck_assert_int_eq(tile_predict(pr, &k, NULL, &v, &r), 0);
	ck_assert_double_eq_tol(r.ns, want, want * 1e-6);
	/* Vector kernels do not take the curve: no model for them here. */
	struct pred_kernel ve = {.op = PRED_OP_ELEMENTWISE, .dtype = GPU_DT_FP32, .m = 1024,
				 .n = 1024};
	ck_assert_int_eq(tile_predict(pr, &ve, NULL, &v, &r), -1);

	/* Refused. */
	putdbl(p + 4, 0.1);
	ck_assert_int_eq(tile_model_load_blob(blob, len, &refused), -1);
	putdbl(p + 4, c[0]);
	put32(p, 3);
	ck_assert_int_eq(tile_model_load_blob(blob, len, &refused), -1);
	put32(p, TILE_CURVE_NPARAM);
	ck_assert_int_eq(tile_model_load_blob(blob, body + cs - 1, &refused), -1);
	predictor_free(pr);
	/* The same blob as version 3 has no curve: the MLP's time alone. */
	put32(blob + 4, 3);
	unsigned char *v3 = calloc(1, len - cs);
	memcpy(v3, blob, body);
	put32(v3 + body, 0);
	struct tile_model *w3 = load(v3, len - cs);
	pr = pred_over(w3, 0);
	ck_assert_int_eq(tile_curve_params(w3, got), 0);
	ck_assert_int_eq(tile_predict(pr, &k, NULL, &v, &r), 0);
	ck_assert_double_eq_tol(r.ns, w < 256 * base + 2e6 ? w : 256 * base + 2e6, w * 1e-6);

	predictor_free(pr);
	tile_model_free(w3);
	tile_model_free(w4);
	mlp_free(m);
	free(mb);
	free(blob);
	free(v3);
}
END_TEST

/* An ensemble: two GEMM members in one blob; the time is the geometric
 * mean of the members' times, each recomputed here from its MLP. */
START_TEST(ensemble_geometric_mean)
{
	struct mlp *m[TILE_MAX_MEMBERS + 1];
	unsigned char *mb[TILE_MAX_MEMBERS + 1];
	size_t ml[TILE_MAX_MEMBERS + 1];
	for (int j = 0; j <= TILE_MAX_MEMBERS; j++)
		m[j] = one_layer(7 + (uint64_t)j, &mb[j], &ml[j]);
	size_t hdr = 16 + 4 * TILE_FAM_COUNT;
	/* n members, then an empty pick section */
	for (int n = 2; n <= TILE_MAX_MEMBERS + 1; n += TILE_MAX_MEMBERS - 1) {
		size_t len = hdr + 4;
		for (int j = 0; j < n; j++)
			len += 8 + ml[j];
		unsigned char *blob = calloc(1, len), *p = blob + hdr;
		memcpy(blob, "STIL", 4);
		put32(blob + 4, 3);
		put32(blob + 8, (uint32_t)n);
		for (int j = 0; j < n; j++) {
			put32(p, TILE_FAM_GEMM);
			put32(p + 4, TILE_NFEAT);
			memcpy(p + 8, mb[j], ml[j]);
			p += 8 + ml[j];
		}
		put32(p, 0);
		if (n > TILE_MAX_MEMBERS) {
			/* more members than a family may have */
			struct tile_model *bad;
			ck_assert_int_eq(tile_model_load_blob(blob, len, &bad), -1);
			free(blob);
			continue;
		}
		struct tile_model *tm = load(blob, len);
		struct predictor *pr = pred_over(tm, 0);
		struct gpu_spec v, t;
		two_gpus(&v, &t);
		struct pred_kernel k = {.op = PRED_OP_GEMM, .dtype = GPU_DT_FP32, .batch = 1,
					.m = 300, .n = 500, .k = 700};
		double f[TILE_NFEAT], base, y0, y1;
		ck_assert_int_eq(tile_features(tm, &k, &t, NULL, f, &base), TILE_FAM_GEMM);
		mlp_forward(m[0], f, &y0);
		mlp_forward(m[1], f, &y1);
		double w = sqrt(base * (1 + exp(-y0)) * base * (1 + exp(-y1)));
		double cap = 256 * base + 2e6;
		struct pred_result r;
		ck_assert_int_eq(tile_predict(pr, &k, NULL, &t, &r), 0);
		ck_assert_double_eq_tol(r.ns, w < cap ? w : cap, w * 1e-6);
		predictor_free(pr);
		tile_model_free(tm);
		free(blob);
	}
	for (int j = 0; j <= TILE_MAX_MEMBERS; j++) {
		mlp_free(m[j]);
		free(mb[j]);
	}
}
END_TEST

/* The committed weights cut at random lengths and with random bytes
 * changed: every load returns 0 or -1 (never reads past the blob, which
 * ASan checks in `make SANITIZE=address,undefined test`), a failed one
 * builds nothing, and a predictor over the committed weights is not
 * touched by any of them. */
START_TEST(corrupt_weights_rejected_safely)
{
	size_t len = tile_weights_blob_len;
	unsigned char *b = malloc(len);
	ck_assert_ptr_nonnull(b);
	uint64_t rs = 12345;
	struct gpu_spec v, t;
	two_gpus(&v, &t);
	struct pred_kernel k = {.op = PRED_OP_GEMM, .dtype = GPU_DT_FP32, .batch = 1,
				.m = 1024, .n = 1024, .k = 1024};
	struct pred_result r0, r;
	struct predictor *p = pred_over(NULL, 0);
	ck_assert_int_eq(tile_predict(p, &k, NULL, &v, &r0), 0);
	for (int i = 0; i < 300; i++) {
		memcpy(b, tile_weights_blob, len);
		rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
		size_t cut = (size_t)(rs >> 33) % (len + 1);
		for (int j = 0; j < 4; j++) {
			rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
			b[(rs >> 33) % len] ^= (unsigned char)(1 + (rs >> 20) % 255);
		}
		struct tile_model *tm;
		int rc = tile_model_load_blob(b, i % 2 ? cut : len, &tm);
		ck_assert(rc == 0 || rc == -1);
		if (rc != 0)
			ck_assert_ptr_null(tm);
		tile_model_free(tm);
		ck_assert_int_eq(tile_predict(p, &k, NULL, &v, &r), 0);
		ck_assert_double_eq_tol(r.ns, r0.ns, r0.ns * 1e-12);
	}
	predictor_free(p);
	free(b);
}
END_TEST

/* One predictor, one answer: predictors with other settings used in
 * between change nothing, and each result says what its predictor
 * applied (weights, host floor, AMD scale). */
/* A batch of B GEMMs, each with its own second operand (a bmm), is
 * batched for the Hopper tile scales; B GEMMs over one shared weight (a
 * linear layer over a 3-D input) are one GEMM; bytes by hand. */
START_TEST(gemm_batched_by_bytes)
{
	struct pred_kernel k = {.op = PRED_OP_GEMM, .dtype = GPU_DT_FP32, .batch = 8,
				.m = 512, .n = 256, .k = 128};
	double own = 4.0 * 8 * (512 * 128 + 128 * 256 + 512 * 256);
	double shared = 4.0 * (8 * (512 * 128 + 512 * 256) + 128 * 256);
	k.bytes = own;
	ck_assert_int_eq(tile_gemm_batched(&k), 1);
	k.bytes = shared;
	ck_assert_int_eq(tile_gemm_batched(&k), 0);
	k.bytes = 0; /* a trace's strided batched GEMM: no byte count */
	ck_assert_int_eq(tile_gemm_batched(&k), 1);
	k.batch = 1;
	k.bytes = own;
	ck_assert_int_eq(tile_gemm_batched(&k), 0);
	ck_assert_int_eq(tile_gemm_batched(NULL), 0);
}
END_TEST

/* On a 9.x target whose figures are kept, a GEMM's time is its tile's
 * scale times the unscaled one (no floor); not on another architecture,
 * not held out, not for a batching with no entry; the committed table's
 * entries are sane. */
START_TEST(hopper_tile_scales)
{
	const struct gpu_spec *h100 = gpu_find("h100-sxm"), *a100 = gpu_find("a100-sxm4-80");
	ck_assert_ptr_nonnull(h100);
	ck_assert_ptr_nonnull(a100);
	static const struct tile_own_scales none = {NULL, 0};
	struct pred_config cn = {.own_scales = &none};
	struct predictor *pn, *ps;
	ck_assert_int_eq(predictor_new(&cn, &pn, NULL, 0), 0);
	struct pred_kernel k = {.op = PRED_OP_GEMM, .dtype = GPU_DT_FP32, .batch = 16,
				.m = 512, .n = 512, .k = 64};
	k.flops = 2.0 * 16 * 512 * 512 * 64;
	k.bytes = 4.0 * 16 * (512 * 64 + 64 * 512 + 512 * 512);
	struct tile_shape t, ta;
	tile_gemm_of(predictor_tile(pn), &k, h100, NULL, &t);
	tile_gemm_of(predictor_tile(pn), &k, a100, NULL, &ta);
	ck_assert_uint_gt(t.t0, 0);
	struct tile_own_scale e[] = {
		{(uint16_t)t.t0, (uint16_t)t.t1, 1, 10, 1.5},
		{(uint16_t)ta.t0, (uint16_t)ta.t1, 1, 10, 1.5},
	};
	struct tile_own_scales mine = {e, 2};
	struct pred_config cs = {.own_scales = &mine};
	ck_assert_int_eq(predictor_new(&cs, &ps, NULL, 0), 0);
	struct pred_result rn, rs;
	ck_assert_int_eq(predict_kernel(pn, &k, NULL, h100, PRED_MLP, &rn), 0);
	ck_assert_int_eq(predict_kernel(ps, &k, NULL, h100, PRED_MLP, &rs), 0);
	ck_assert_double_eq_tol(rs.ns, 1.5 * rn.ns, 1e-9 * rn.ns);
	/* a linear layer over a 3-D input: one GEMM, no entry */
	struct pred_kernel lin = k;
	lin.bytes = 4.0 * (16 * (512 * 64 + 512 * 512) + 64 * 512);
	ck_assert_int_eq(predict_kernel(pn, &lin, NULL, h100, PRED_MLP, &rn), 0);
	ck_assert_int_eq(predict_kernel(ps, &lin, NULL, h100, PRED_MLP, &rs), 0);
	ck_assert(rs.ns == rn.ns);
	/* another architecture */
	ck_assert_int_eq(predict_kernel(pn, &k, NULL, a100, PRED_MLP, &rn), 0);
	ck_assert_int_eq(predict_kernel(ps, &k, NULL, a100, PRED_MLP, &rs), 0);
	ck_assert(rs.ns == rn.ns);
	/* Hopper held out */
	gpu_figures_hold_out(90);
	ck_assert_int_eq(predict_kernel(pn, &k, NULL, h100, PRED_MLP, &rn), 0);
	ck_assert_int_eq(predict_kernel(ps, &k, NULL, h100, PRED_MLP, &rs), 0);
	gpu_figures_hold_out(0);
	ck_assert(rs.ns == rn.ns);
	ck_assert_double_eq(tile_own_scale(&mine, &k, h100, &t), 1.5);
	ck_assert_double_eq(tile_own_scale(NULL, &k, h100, &t), 1);
	/* the committed table */
	ck_assert_uint_gt(tile_sm90_scales.n, 0);
	for (size_t i = 0; i < tile_sm90_scales.n; i++) {
		const struct tile_own_scale *x = &tile_sm90_scales.e[i];
		ck_assert(x->t0 > 0 && x->t1 > 0 && x->n >= 3 && x->batched <= 1);
		ck_assert_msg(x->scale > 0.5 && x->scale < 2, "entry %zu: %g", i, x->scale);
	}
	predictor_free(pn);
	predictor_free(ps);
}
END_TEST

START_TEST(predictor_state_explicit)
{
	struct gpu_spec v, t;
	two_gpus(&v, &t);
	const struct gpu_spec *mi210 = gpu_find("mi210");
	ck_assert_ptr_nonnull(mi210);
	struct tile_amd_scale ones, two;
	for (int c = 0; c < TILE_AMD_NCLASS; c++) {
		ones.scale[c] = 1;
		two.scale[c] = 2;
	}
	ones.fixed_ns = 0;
	two.fixed_ns = 1000;
	struct pred_config c1 = { .amd_scale = &ones }, c2 = { .amd_scale = &two };
	struct predictor *plain = pred_over(NULL, 0), *floored = pred_over(NULL, 1), *p1, *p2;
	ck_assert_int_eq(predictor_new(&c1, &p1, NULL, 0), 0);
	ck_assert_int_eq(predictor_new(&c2, &p2, NULL, 0), 0);
	struct pred_kernel e = {.op = PRED_OP_ELEMENTWISE, .dtype = GPU_DT_FP32, .m = 1 << 12,
				.n = 1 << 12, .block = {128, 1, 1}};
	struct pred_result a, b, f, r1, r2;
	ck_assert_int_eq(predict_kernel(plain, &e, NULL, &t, PRED_MLP, &a), 0);
	ck_assert_int_eq(predict_kernel(floored, &e, NULL, &t, PRED_MLP, &f), 0);
	ck_assert_int_eq(predict_kernel(p2, &e, NULL, mi210, PRED_MLP, &r2), 0);
	ck_assert_int_eq(predict_kernel(plain, &e, NULL, &t, PRED_MLP, &b), 0);
	ck_assert_int_eq(a.method, PRED_MLP);
	ck_assert(a.ns == b.ns);
	ck_assert_str_eq(a.weights, "compiled-in");
	ck_assert_str_eq(predictor_weights(plain), "compiled-in");
	/* the floor: the weights' elementwise one, added (p = 1) */
	double fl = tile_floor_ns(predictor_tile(plain), TILE_FAM_ELEMENTWISE);
	ck_assert(fl > 0);
	ck_assert_double_eq(a.floor_ns, 0);
	ck_assert_double_eq(f.floor_ns, fl);
	ck_assert_double_eq_tol(f.ns, tile_with_floor(fl, a.ns), 1e-9 * f.ns);
	ck_assert_int_eq(predictor_tile_floor(floored), 1);
	/* the AMD scale: on AMD targets only, class scale x time + fixed */
	ck_assert_double_eq(a.amd_scale, 0);
	ck_assert_int_eq(predict_kernel(p1, &e, NULL, mi210, PRED_MLP, &r1), 0);
	ck_assert_double_eq(r1.amd_scale, 1);
	ck_assert_double_eq(r2.amd_scale, 2);
	ck_assert_double_eq(r2.amd_fixed_ns, 1000);
	ck_assert_double_eq_tol(r2.ns, 2 * r1.ns + 1000, 1e-9 * r2.ns);
	ck_assert_double_eq(predictor_amd_scale(p2)->scale[TILE_AMD_NORM], 2);
	ck_assert_double_eq(predictor_amd_scale(plain)->fixed_ns, tile_amd_scale_default.fixed_ns);
	/* weights from a file: the same answer, and the file named */
	char path[] = "/tmp/check_tile_wXXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	FILE *fp = fdopen(fd, "wb");
	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite(tile_weights_blob, 1, tile_weights_blob_len, fp),
			  tile_weights_blob_len);
	ck_assert_int_eq(fclose(fp), 0);
	struct pred_config cf = { .weights = path };
	struct predictor *pf;
	ck_assert_int_eq(predictor_new(&cf, &pf, NULL, 0), 0);
	unlink(path);
	ck_assert_int_eq(predict_kernel(pf, &e, NULL, &t, PRED_MLP, &b), 0);
	ck_assert(a.ns == b.ns);
	ck_assert_str_eq(b.weights, path);
	/* other methods apply none of it */
	e.bytes = 8.0 * (1 << 24);
	e.flops = 1 << 24;
	ck_assert_int_eq(predict_kernel(floored, &e, NULL, &t, PRED_ROOFLINE, &b), 0);
	ck_assert_ptr_null(b.weights);
	ck_assert_double_eq(b.floor_ns, 0);
	predictor_free(pf);
	predictor_free(p1);
	predictor_free(p2);
	predictor_free(floored);
	predictor_free(plain);
}
END_TEST

START_TEST(auto_rule)
{
	struct gpu_spec v, t;
	two_gpus(&v, &t);
	struct predictor *p = pred_over(NULL, 0);
	struct pred_kernel g = {.op = PRED_OP_GEMM, .batch = 1, .m = 512, .n = 512, .k = 512,
				.origin_ns = 1e5};
	ck_assert_int_eq(pred_choose(p, &g, &v, &v), PRED_IDENTITY);
	ck_assert_int_eq(pred_choose(p, &g, &v, &t), PRED_MLP);
	ck_assert_int_eq(pred_choose(p, &g, NULL, &t), PRED_MLP);
	g.dtype = GPU_DT_FP16;                     /* tensor cores: not the tile model's */
	ck_assert_int_eq(pred_choose(p, &g, &v, &t), PRED_TCGEMM);
	ck_assert_int_eq(pred_choose(p, &g, NULL, &t), PRED_TCGEMM);
	g.m = 0;                                   /* shape unknown: no tensor-core model */
	ck_assert_int_eq(pred_choose(p, &g, &v, &t), PRED_WAVE);
	ck_assert_int_eq(pred_choose(p, &g, NULL, &t), PRED_ROOFLINE);
	struct pred_kernel c = {.op = PRED_OP_CONV, .m = 4096, .n = 64, .k = 576,
				.flops = 1e9, .bytes = 1e7, .origin_ns = 1e5};
	ck_assert_int_eq(pred_choose(p, &c, &v, &t), PRED_CONV);   /* FP32: the conv model */
	c.dtype = GPU_DT_FP16;             /* tensor cores: its implicit GEMM's model */
	ck_assert_int_eq(pred_choose(p, &c, &v, &t), PRED_TCGEMM);
	c.dtype = GPU_DT_TF32;             /* not measured: the roofline */
	ck_assert_int_eq(pred_choose(p, &c, &v, &t), PRED_ROOFLINE);
	c.flops = 0;
	ck_assert_int_eq(pred_choose(p, &c, &v, &t), PRED_WAVE);
	struct pred_kernel e = {.op = PRED_OP_ELEMENTWISE, .origin_ns = 1e4};
	ck_assert_int_eq(pred_choose(p, &e, &v, &t), PRED_WAVE);   /* no shape */
	e.m = 1024; e.n = 1024;
	ck_assert_int_eq(pred_choose(p, &e, &v, &t), PRED_MLP);
	/* weights without a vector model: not the tile model's */
	struct tile_model *empty = tile_model_new();
	struct predictor *pe = pred_over(empty, 0);
	ck_assert_int_eq(pred_choose(pe, &e, &v, &t), PRED_WAVE);
	predictor_free(pe);
	tile_model_free(empty);
	predictor_free(p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tile");
	TCase *tc = tcase_create("core");
	/* the corrupted-weights loop loads the eight-member blob 300 times:
	 * seconds under ThreadSanitizer, past Check's default of 4 */
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, names_give_tiles, 0, (int)(sizeof names / sizeof names[0]));
	tcase_add_test(tc, null_name);
	tcase_add_test(tc, tile_from_grid);
	tcase_add_test(tc, name_tile_matches_grid);
	tcase_add_test(tc, gemm_tile_rule);
	tcase_add_test(tc, gemm_features_by_hand);
	tcase_add_test(tc, utilisation_bound);
	tcase_add_test(tc, committed_weights_predict_sanely);
	tcase_add_test(tc, figure_gemm_rate_kept);
	tcase_add_test(tc, bad_weights_refused);
	tcase_add_test(tc, auto_rule);
	tcase_add_test(tc, predictor_state_explicit);
	tcase_add_test(tc, clamp_caps_blowups);
	tcase_add_test(tc, power_cap_by_hand);
	tcase_add_test(tc, amd_targets);
	tcase_add_test(tc, floor_combination);
	tcase_add_test(tc, v2_blob_floor_and_cap);
	tcase_add_test(tc, v3_blob_pick_tables);
	tcase_add_test(tc, gemm_batched_by_bytes);
	tcase_add_test(tc, hopper_tile_scales);
	tcase_add_test(tc, v5_blob_own_picks);
	tcase_add_test(tc, v4_blob_gemm_curve);
	tcase_add_test(tc, ensemble_geometric_mean);
	tcase_add_test(tc, corrupt_weights_rejected_safely);
	suite_add_tcase(s, tc);
	return check_run(s);
}
