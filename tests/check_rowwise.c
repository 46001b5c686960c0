/*
 * check_rowwise.c - the FP32 row-wise model (predictor/rowwise.c): which
 * kernels it takes, the rows in flight and the traffic worked out by hand
 * on made-up GPUs, the time and its floor, the ratio form, the fit
 * recovering constants it generated data with, `auto` choosing it, and the
 * GPUs and kernels it leaves to others.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "predictor/choose.h"
#include "predictor/rowwise.h"
#include "tests/check_run.h"

static const struct gpu_cc_limits lim = {.max_threads_per_sm = 2048, .max_blocks_per_sm = 32};

/* 100 SMs, 1000 GB/s achievable (measured), l2 MB of L2. */
static struct gpu_spec fake_gpu(const char *id, double bw, double l2)
{
	struct gpu_spec g;
	memset(&g, 0, sizeof g);
	g.id = id;
	g.name = id;
	g.cc = 80;
	g.sms = 100;
	g.boost_clock_mhz = 1000;
	g.mem_bw_gbps = bw;
	g.mem_bw_measured_gbps = bw;
	g.l2_mb = l2;
	g.peak_tflops[GPU_DT_FP32] = 20;
	g.limits = &lim;
	return g;
}

static struct pred_kernel rows(enum pred_op op, const char *name, uint64_t m, uint64_t n)
{
	struct pred_kernel k;
	memset(&k, 0, sizeof k);
	k.op = op;
	k.dtype = GPU_DT_FP32;
	k.name = name;
	k.m = m;
	k.n = n;
	return k;
}

static struct rowwise_params hand(void)
{
	struct rowwise_params p = {.eff = {0.5, 0.5, 0.5}, .l2_share = 0.5,
				   .host_floor_ns = {40000, 30000}, .floor_p = 1};
	return p;
}

START_TEST(kinds)
{
	struct pred_kernel k = rows(PRED_OP_NORM, NULL, 8192, 1024);
	ck_assert_int_eq(rowwise_kind_of(&k), ROWWISE_NORM);
	k.name = "vectorized_layer_norm_kernel<float, float>";
	ck_assert_int_eq(rowwise_kind_of(&k), ROWWISE_NORM);
	/* backward kernels, batch norm, other dtypes, unknown shapes: not its */
	k.name = "layer_norm_grad_input_kernel<float, float>";
	ck_assert_int_eq(rowwise_kind_of(&k), -1);
	k.name = "bn_fw_tr_1C11_kernel_NCHW";
	ck_assert_int_eq(rowwise_kind_of(&k), -1);
	/* the two-kernel path of a width not a multiple of 4 */
	k.name = "LayerNormForwardCUDAKernel<float, float>";
	ck_assert_int_eq(rowwise_kind_of(&k), -1);
	k.name = NULL;
	k.n = 1001;
	ck_assert_int_eq(rowwise_kind_of(&k), -1);
	k.n = 1024;
	k.name = NULL;
	k.dtype = GPU_DT_BF16;
	ck_assert_int_eq(rowwise_kind_of(&k), -1);
	k.dtype = GPU_DT_FP32;
	k.n = 0;
	ck_assert_int_eq(rowwise_kind_of(&k), -1);
	/* softmax: PyTorch's persistent kernel up to 1024 columns */
	k = rows(PRED_OP_SOFTMAX, NULL, 8192, 1024);
	ck_assert_int_eq(rowwise_kind_of(&k), ROWWISE_SOFTMAX_WARP);
	k.n = 1025;
	ck_assert_int_eq(rowwise_kind_of(&k), ROWWISE_SOFTMAX_BLOCK);
	/* a name says what ran */
	k.name = "softmax_warp_forward<float, float, float, 11>";
	ck_assert_int_eq(rowwise_kind_of(&k), ROWWISE_SOFTMAX_WARP);
	k.name = "cunn_SoftMaxForward<4, float, float, float, LogSoftMaxForwardEpilogue>";
	k.n = 512;
	ck_assert_int_eq(rowwise_kind_of(&k), ROWWISE_SOFTMAX_BLOCK);
	k.name = "cunn_SoftMaxBackward<4, float, float, float, LogSoftMaxBackwardEpilogue>";
	ck_assert_int_eq(rowwise_kind_of(&k), -1);
	/* the softmax over an inner dim: strided rows, another kernel */
	k.name = "cunn_SpatialSoftMaxForward<float, float, float, SoftMaxForwardEpilogue>";
	ck_assert_int_eq(rowwise_kind_of(&k), -1);
	k = rows(PRED_OP_ELEMENTWISE, NULL, 8192, 1024);
	ck_assert_int_eq(rowwise_kind_of(&k), -1);
}
END_TEST

START_TEST(rows_in_flight)
{
	struct gpu_spec g = fake_gpu("g", 1000, 40);
	/* layer norm: 128 threads, 2048 / 128 = 16 blocks an SM, 100 SMs */
	struct pred_kernel k = rows(PRED_OP_NORM, NULL, 100000, 4096);
	ck_assert_double_eq(rowwise_rows_in_flight(&k, &g), 1600);
	/* fewer rows than that: all of them */
	k.m = 1000;
	ck_assert_double_eq(rowwise_rows_in_flight(&k, &g), 1000);
	/* block softmax of 4096 columns: 512 threads (cols / 8 rounded up to
	 * a power of two), 4 an SM */
	k = rows(PRED_OP_SOFTMAX, NULL, 100000, 4096);
	ck_assert_double_eq(rowwise_rows_in_flight(&k, &g), 400);
	/* a recorded launch's block: 1024 threads, 2 an SM */
	k.block[0] = 1024;
	ck_assert_double_eq(rowwise_rows_in_flight(&k, &g), 200);
	/* the blocks-per-SM limit: 32 threads a block would allow 64 */
	k.block[0] = 32;
	ck_assert_double_eq(rowwise_rows_in_flight(&k, &g), 3200);
}
END_TEST

START_TEST(traffic)
{
	struct rowwise_params p = hand();
	const double R = 100000, C = 4096, base = 4 * R * C;
	struct pred_kernel ln = rows(PRED_OP_NORM, NULL, 100000, 4096);
	struct pred_kernel sm = rows(PRED_OP_SOFTMAX, NULL, 100000, 4096);
	struct pred_kernel warp = rows(PRED_OP_SOFTMAX, NULL, 100000, 1024);
	/* a large L2: every re-read hits, one read and one write each */
	struct gpu_spec big = fake_gpu("big", 1000, 1024);
	ck_assert_double_eq_tol(rowwise_bytes(&ln, &big, &p), 2 * base, 1e-6);
	ck_assert_double_eq_tol(rowwise_bytes(&sm, &big, &p), 2 * base, 1e-6);
	/* no L2: layer norm reads twice, block softmax three times */
	struct gpu_spec none = fake_gpu("none", 1000, 0);
	ck_assert_double_eq_tol(rowwise_bytes(&ln, &none, &p), 3 * base, 1e-6);
	ck_assert_double_eq_tol(rowwise_bytes(&sm, &none, &p), 4 * base, 1e-6);
	/* the warp kernel holds its row: one read whatever the L2 */
	ck_assert_double_eq_tol(rowwise_bytes(&warp, &none, &p), 2 * R * 1024 * 4, 1e-6);
	/* half the rows in flight fit: the layer norm's 1600 rows of 16 KiB
	 * are 25 MiB; l2_share 0.5 of 25 MiB holds half of them */
	struct gpu_spec half = fake_gpu("half", 1000, 25);
	ck_assert_double_eq_tol(rowwise_bytes(&ln, &half, &p), 2.5 * base, 1e-3);
}
END_TEST

START_TEST(times_and_floor)
{
	struct rowwise_params p = hand();
	struct gpu_spec g = fake_gpu("none", 1000, 0);
	struct pred_kernel ln = rows(PRED_OP_NORM, NULL, 1000, 1000);
	/* 12 MB at 0.5 x 1000 GB/s: 24 us, and the floor added (p = 1) */
	double w = 12e6 / 500.0;
	ck_assert_double_eq_tol(rowwise_model_ns(&ln, &g, &p, 0), PRED_NO_BASIS_NS + w, 1e-6);
	ck_assert_double_eq_tol(rowwise_model_ns(&ln, &g, &p, 1), 40000 + w, 1e-6);
	struct pred_kernel sm = rows(PRED_OP_SOFTMAX, NULL, 1000, 1000);
	/* the warp kernel: 8 MB */
	ck_assert_double_eq_tol(rowwise_model_ns(&sm, &g, &p, 1), 30000 + 8e6 / 500.0, 1e-6);
	/* p = 2: the floor and the work in quadrature */
	p.floor_p = 2;
	ck_assert_double_eq_tol(rowwise_model_ns(&ln, &g, &p, 1), hypot(40000, w), 1e-6);
	/* an AMD GPU is not its */
	struct gpu_spec amd = fake_gpu("amd", 1000, 8);
	amd.cc = GPU_CC_AMD + 0x90a;
	ck_assert_double_eq(rowwise_model_ns(&ln, &amd, &p, 0), -1);
	/* nor a kernel it does not describe */
	ln.dtype = GPU_DT_FP16;
	ck_assert_double_eq(rowwise_model_ns(&ln, &g, &p, 0), -1);
}
END_TEST

START_TEST(ratio_form)
{
	struct rowwise_params p = hand();
	struct gpu_spec o = fake_gpu("o", 500, 4), t = fake_gpu("t", 2000, 64);
	struct pred_kernel k = rows(PRED_OP_SOFTMAX, NULL, 65536, 8192);
	struct pred_result r;
	ck_assert_int_eq(rowwise_predict(&k, NULL, &t, &p, 0, &r), 0);
	ck_assert_int_eq(r.method, PRED_ROWWISE);
	ck_assert_double_eq_tol(r.ns, rowwise_model_ns(&k, &t, &p, 0), 1e-6);
	k.origin_ns = 3e6;
	ck_assert_int_eq(rowwise_predict(&k, &o, &t, &p, 0, &r), 0);
	double ratio = rowwise_model_ns(&k, &t, &p, 0) / rowwise_model_ns(&k, &o, &p, 0);
	ck_assert_double_eq_tol(r.ns, 3e6 * ratio, 1e-3);
	/* the target's bigger L2 and bandwidth: faster by more than the
	 * bandwidth alone (its re-reads hit) */
	ck_assert(r.ns < 3e6 / 4);
}
END_TEST

START_TEST(fit_recovers)
{
	const struct rowwise_params truth = {.eff = {0.9, 0.8, 0.95}, .l2_share = 0.4,
					     .host_floor_ns = {30000, 20000}, .floor_p = 1.2};
	static struct gpu_spec g[3];
	g[0] = fake_gpu("a", 300, 4);
	g[1] = fake_gpu("b", 900, 6);
	g[2] = fake_gpu("c", 1500, 40);
	static const uint64_t widths[] = {768, 1024, 1600, 2048, 4096, 8192, 16384};
	static const uint64_t heights[] = {512, 4096, 32768, 131072};
	size_t n = 0;
	struct rowwise_sample *s = calloc(3 * 2 * 7 * 4 * 2, sizeof *s);
	ck_assert_ptr_nonnull(s);
	for (int gi = 0; gi < 3; gi++)
		for (int op = 0; op < 2; op++)
			for (int w = 0; w < 7; w++)
				for (int h = 0; h < 4; h++)
					for (int hf = 0; hf < 2; hf++) {
						s[n].k = rows(op ? PRED_OP_SOFTMAX : PRED_OP_NORM, NULL,
							      heights[h], widths[w]);
						s[n].gpu = &g[gi];
						s[n].host_floor = hf;
						s[n].ns = rowwise_model_ns(&s[n].k, &g[gi], &truth, hf);
						n++;
					}
	struct rowwise_params fit;
	ck_assert_int_eq(rowwise_fit(s, n, &fit), 0);
	for (int i = 0; i < ROWWISE_KIND_COUNT; i++)
		ck_assert_double_eq_tol(fit.eff[i], truth.eff[i], 0.01);
	ck_assert_double_eq_tol(fit.l2_share, truth.l2_share, 0.01);
	ck_assert_double_eq_tol(fit.host_floor_ns[0], 30000, 300);
	ck_assert_double_eq_tol(fit.host_floor_ns[1], 20000, 200);
	ck_assert_double_eq_tol(fit.floor_p, 1.2, 0.02);
	/* nothing usable: refused */
	ck_assert_int_eq(rowwise_fit(s, 0, &fit), -1);
	s[0].k.dtype = GPU_DT_BF16;
	ck_assert_int_eq(rowwise_fit(s, 1, &fit), -1);
	free(s);
}
END_TEST

START_TEST(auto_rule)
{
	const struct gpu_spec *a100 = gpu_find("a100-pcie-40"), *v100 = gpu_find("v100-pcie-32");
	const struct gpu_spec *mi = gpu_find("mi210");
	ck_assert_ptr_nonnull(a100);
	ck_assert_ptr_nonnull(v100);
	ck_assert_ptr_nonnull(mi);
	struct predictor *p;
	ck_assert_int_eq(predictor_new(NULL, &p, NULL, 0), 0);
	struct pred_kernel k = rows(PRED_OP_NORM, "vectorized_layer_norm_kernel<float, float>", 16384, 1024);
	ck_assert_int_eq(pred_choose(p, &k, NULL, a100), PRED_ROWWISE);
	struct pred_result r;
	ck_assert_int_eq(predict_kernel(p, &k, NULL, a100, PRED_AUTO, &r), 0);
	ck_assert_int_eq(r.method, PRED_ROWWISE);
	ck_assert_double_eq_tol(r.ns, rowwise_model_ns(&k, a100, NULL, 0), 1e-9 * r.ns);
	/* measured on another GPU: the ratio */
	k.origin_ns = 200000;
	ck_assert_int_eq(pred_choose(p, &k, v100, a100), PRED_ROWWISE);
	ck_assert_int_eq(predict_kernel(p, &k, v100, a100, PRED_AUTO, &r), 0);
	ck_assert_double_eq_tol(r.ns, 200000 * rowwise_model_ns(&k, a100, NULL, 0) /
				rowwise_model_ns(&k, v100, NULL, 0), 1e-9 * r.ns);
	/* a small one (1024 x 512: 4 MB of traffic, about 3 us on the A100)
	 * is the model's wherever the times are the kernels' own; where they
	 * hold NeuSight's host floor (26-31 us), the tile model's */
	struct pred_kernel small = rows(PRED_OP_NORM, "vectorized_layer_norm_kernel<float, float>", 1024, 512);
	ck_assert(rowwise_traffic_ns(&small, a100, NULL) < 5000);
	ck_assert_int_eq(pred_choose(p, &small, NULL, a100), PRED_ROWWISE);
	struct pred_config fc = {.tile_floor = 1};
	struct predictor *pf;
	ck_assert_int_eq(predictor_new(&fc, &pf, NULL, 0), 0);
	ck_assert_int_ne(pred_choose(pf, &small, NULL, a100), PRED_ROWWISE);
	ck_assert_int_eq(pred_choose(pf, &k, NULL, a100), PRED_ROWWISE);
	predictor_free(pf);
	/* an AMD target keeps the tile model */
	k.origin_ns = 0;
	ck_assert_int_ne(pred_choose(p, &k, NULL, mi), PRED_ROWWISE);
	/* asked by name */
	enum pred_method m;
	ck_assert_int_eq(pred_method_parse("rowwise", &m), 0);
	ck_assert_int_eq(m, PRED_ROWWISE);
	ck_assert_str_eq(pred_method_name(PRED_ROWWISE), "rowwise");
	/* --method rowwise on a kernel it does not describe falls back */
	struct pred_kernel e = rows(PRED_OP_ELEMENTWISE, NULL, 1024, 1024);
	e.bytes = 12.0 * 1024 * 1024;
	ck_assert_int_eq(predict_kernel(p, &e, NULL, a100, PRED_ROWWISE, &r), 0);
	ck_assert_int_ne(r.method, PRED_ROWWISE);
	predictor_free(p);
}
END_TEST

START_TEST(predictor_carries_constants)
{
	const struct gpu_spec *a100 = gpu_find("a100-pcie-40");
	struct rowwise_params mine = hand();
	struct pred_config c = {.rowwise = &mine, .tile_floor = 1};
	struct predictor *p;
	ck_assert_int_eq(predictor_new(&c, &p, NULL, 0), 0);
	ck_assert_double_eq(predictor_rowwise(p)->eff[0], 0.5);
	struct pred_kernel k = rows(PRED_OP_SOFTMAX, NULL, 8192, 2048);
	struct pred_result r;
	ck_assert_int_eq(predict_kernel(p, &k, NULL, a100, PRED_AUTO, &r), 0);
	ck_assert_int_eq(r.method, PRED_ROWWISE);
	/* the host floor of NeuSight's timings, as the predictor says */
	ck_assert_double_eq_tol(r.ns, rowwise_model_ns(&k, a100, &mine, 1), 1e-9 * r.ns);
	ck_assert(r.ns > 30000);
	predictor_free(p);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("rowwise");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, kinds);
	tcase_add_test(tc, rows_in_flight);
	tcase_add_test(tc, traffic);
	tcase_add_test(tc, times_and_floor);
	tcase_add_test(tc, ratio_form);
	tcase_add_test(tc, fit_recovers);
	tcase_add_test(tc, auto_rule);
	tcase_add_test(tc, predictor_carries_constants);
	suite_add_tcase(su, tc);
	return check_run(su);
}
