/*
 * check_vecop.c - the vector-op model (predictor/vecop.c): dtype sizes, the
 * bytes it derives from a shape, the streaming rate, hand-computed times on
 * a made-up GPU and on the A40 of the database, the ratio form, the SM
 * term of the two-limit form, the fits recovering known constants, what
 * it refuses, `auto` choosing it for 16-bit vector kernels only, and the
 * power cap (power.c) that leaves its kernels alone.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "predictor/attention.h"
#include "predictor/choose.h"
#include "predictor/power.h"
#include "predictor/vecop.h"
#include "tests/check_run.h"

/* 100 SMs at 1000 MHz, 1000 GB/s achievable. */
static struct gpu_spec fake_gpu(const char *id, double bw)
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
	g.peak_tflops[GPU_DT_FP32] = 20;
	g.peak_tflops[GPU_DT_FP16] = 300;
	g.peak_tflops[GPU_DT_BF16] = 300;
	return g;
}

static struct pred_kernel vec(enum pred_op op, enum gpu_dtype dt, uint64_t m, uint64_t n)
{
	struct pred_kernel k;
	memset(&k, 0, sizeof k);
	k.op = op;
	k.dtype = dt;
	k.m = m;
	k.n = n;
	return k;
}

static struct vecop_params hand_params(double bw_exp)
{
	struct vecop_params p;
	memset(&p, 0, sizeof p);
	for (int c = 0; c < VECOP_COUNT; c++) {
		p.eff[c] = 0.5;
		p.floor_ns[c] = 1000;
	}
	p.bw_exp = bw_exp;
	return p;
}

START_TEST(dtype_bytes)
{
	ck_assert(gpu_dtype_bytes(GPU_DT_FP16) == 2);
	ck_assert(gpu_dtype_bytes(GPU_DT_BF16) == 2);
	ck_assert(gpu_dtype_bytes(GPU_DT_FP32) == 4);
	ck_assert(gpu_dtype_bytes(GPU_DT_FP64) == 8);
	ck_assert(gpu_dtype_bytes(GPU_DT_FP8) == 1);
}
END_TEST

START_TEST(bytes_from_shape)
{
	/* 1024 x 4096 BF16 norm: read + write 2 bytes each = 16 MiB. */
	struct pred_kernel k = vec(PRED_OP_NORM, GPU_DT_BF16, 1024, 4096);
	ck_assert(vecop_bytes(&k) == 16777216.0);
	/* the same in FP32: twice that */
	k.dtype = GPU_DT_FP32;
	ck_assert(vecop_bytes(&k) == 33554432.0);
	/* an FP16 reduction of 100 x 10 reads 1000 x 2 bytes */
	k = vec(PRED_OP_REDUCTION, GPU_DT_FP16, 100, 10);
	ck_assert(vecop_bytes(&k) == 2000.0);
	/* batch multiplies: 3 x 10 x 10 FP16 elementwise = 300 x 4 */
	k = vec(PRED_OP_ELEMENTWISE, GPU_DT_FP16, 10, 10);
	k.batch = 3;
	ck_assert(vecop_bytes(&k) == 1200.0);
	/* known bytes win */
	k.bytes = 12345;
	ck_assert(vecop_bytes(&k) == 12345.0);
	/* a GEMM is no vector operator; no shape: unknown */
	k = vec(PRED_OP_GEMM, GPU_DT_FP16, 10, 10);
	ck_assert(vecop_bytes(&k) == 0);
	ck_assert_int_eq(vecop_class_of(&k), -1);
	k = vec(PRED_OP_SOFTMAX, GPU_DT_FP16, 0, 10);
	ck_assert(vecop_bytes(&k) == 0);
}
END_TEST

START_TEST(rate)
{
	struct gpu_spec g = fake_gpu("vg", 1000);
	/* a = 1: the bandwidth; a = 0: 100 SMs x 1 GHz x 64 B = 6400 GB/s;
	 * a = 0.5: sqrt(1000 x 6400) = 2529.82 */
	ck_assert_double_eq_tol(vecop_rate_gbps(&g, 1), 1000, 1e-9);
	ck_assert_double_eq_tol(vecop_rate_gbps(&g, 0), 6400, 1e-6);
	ck_assert_double_eq_tol(vecop_rate_gbps(&g, 0.5), 2529.822128, 1e-4);
	/* the database's A40: 663 GB/s measured (gpu-benches, ECC off), of
	 * which 15/16 carry data with the table's ECC on */
	const struct gpu_spec *a40 = gpu_find("a40");
	ck_assert_ptr_nonnull(a40);
	ck_assert_double_eq_tol(vecop_rate_gbps(a40, 1), 663 * 15.0 / 16, 1e-9);
	/* 84 SMs x 1.74 GHz x 64 B = 9354.24 GB/s */
	ck_assert_double_eq_tol(vecop_rate_gbps(a40, 0), 9354.24, 1e-6);
}
END_TEST

START_TEST(hand_times)
{
	struct gpu_spec g = fake_gpu("vg", 1000);
	struct vecop_params p = hand_params(1);
	/* 1e6 bytes at 0.5 x 1000 GB/s = 2000 ns, + 1000 ns floor */
	struct pred_kernel k = vec(PRED_OP_ELEMENTWISE, GPU_DT_FP16, 1000, 250);
	ck_assert_double_eq_tol(vecop_model_ns(&k, &g, &p), 3000, 1e-6);
	/* BF16 norm 1000 x 250: same 1e6 bytes */
	k = vec(PRED_OP_NORM, GPU_DT_BF16, 1000, 250);
	ck_assert_double_eq_tol(vecop_model_ns(&k, &g, &p), 3000, 1e-6);
	/* a = 0: 1e6 / (0.5 x 6400) = 312.5 ns + 1000 */
	p = hand_params(0);
	ck_assert_double_eq_tol(vecop_model_ns(&k, &g, &p), 1312.5, 1e-6);
	/* a tiny kernel costs about the floor */
	k = vec(PRED_OP_SOFTMAX, GPU_DT_FP16, 1, 2);
	ck_assert(vecop_model_ns(&k, &g, &p) > 1000 && vecop_model_ns(&k, &g, &p) < 1001);
	/* refused: not a vector op, no bytes, no GPU */
	k = vec(PRED_OP_GEMM, GPU_DT_FP16, 10, 10);
	k.bytes = 1e6;
	ck_assert(vecop_model_ns(&k, &g, &p) < 0);
	k = vec(PRED_OP_NORM, GPU_DT_FP16, 0, 0);
	ck_assert(vecop_model_ns(&k, &g, &p) < 0);
	k = vec(PRED_OP_NORM, GPU_DT_FP16, 4, 4);
	ck_assert(vecop_model_ns(&k, NULL, &p) < 0);
}
END_TEST

START_TEST(defaults_and_ratio)
{
	/* A 16-bit norm of 4096 x 4096 (64 MiB) on the A40 with the
	 * compiled-in constants, written out by hand. */
	const struct gpu_spec *a40 = gpu_find("a40"), *a100 = gpu_find("a100-sxm4-80");
	ck_assert_ptr_nonnull(a40);
	ck_assert_ptr_nonnull(a100);
	const struct vecop_params *d = &vecop_default_params;
	struct pred_kernel k = vec(PRED_OP_NORM, GPU_DT_FP16, 4096, 4096);
	double bytes = 4096.0 * 4096 * 4;
	double r40 = pow(663 * 15.0 / 16, d->bw_exp) * pow(84 * 1.74 * 64, 1 - d->bw_exp);
	double t40 = d->floor_ns[VECOP_NORM] + bytes / (d->eff[VECOP_NORM] * r40);
	ck_assert_double_eq_tol(vecop_model_ns(&k, a40, NULL), t40, 1e-6 * t40);
	/* the model must be slower than the datasheet roofline (696 GB/s) */
	ck_assert(t40 > bytes / 696);

	struct pred_result res;
	ck_assert_int_eq(vecop_predict(&k, NULL, a40, NULL, &res), 0);
	ck_assert_int_eq(res.method, PRED_VECOP);
	ck_assert_double_eq_tol(res.ns, t40, 1e-6 * t40);
	/* ratio form: T_o x model(t) / model(o) */
	k.origin_ns = 200000;
	double t100 = vecop_model_ns(&k, a100, NULL);
	ck_assert_int_eq(vecop_predict(&k, a40, a100, NULL, &res), 0);
	ck_assert_double_eq_tol(res.ns, 200000 * t100 / t40, 1e-6 * res.ns);
	/* the A100 streams faster */
	ck_assert(t100 < t40);
}
END_TEST

START_TEST(fit_recovers)
{
	/* data made by eff 0.6, floor 2000 ns on two bandwidths */
	struct vecop_sample s[40];
	for (int i = 0; i < 40; i++) {
		s[i].bytes = 1e3 * pow(2, i % 20);
		s[i].bw_gbps = i < 20 ? 700 : 2000;
		s[i].ns = 2000 + s[i].bytes / (0.6 * s[i].bw_gbps);
	}
	double e, f, m;
	ck_assert_int_eq(vecop_fit(s, 40, &e, &f, &m), 0);
	ck_assert_double_eq_tol(e, 0.6, 0.003);
	ck_assert_double_eq_tol(f, 2000, 20);
	ck_assert(m < 0.5);
	/* bad input */
	ck_assert_int_eq(vecop_fit(s, 0, &e, &f, &m), -1);
	s[3].ns = 0;
	ck_assert_int_eq(vecop_fit(s, 40, &e, &f, &m), -1);
}
END_TEST

START_TEST(sm_term)
{
	struct gpu_spec g = fake_gpu("vg", 1000);
	/* 100 SMs x 1 GHz = 100 SM-cycles per ns; the A40 84 x 1.74 */
	ck_assert_double_eq_tol(vecop_sm_ghz(&g), 100, 1e-12);
	ck_assert_double_eq_tol(vecop_sm_ghz(gpu_find("a40")), 146.16, 1e-9);
	/* eff 1, bw_exp 1, 10 bytes per SM-cycle (1000 GB/s of issue): 1e6
	 * bytes take 1000 ns floor + 1000 ns DRAM + 1000 ns SM issue */
	struct vecop_params p = hand_params(1);
	for (int c = 0; c < VECOP_COUNT; c++) {
		p.eff[c] = 1;
		p.sm_bpc[c] = 10;
	}
	struct pred_kernel k = vec(PRED_OP_NORM, GPU_DT_BF16, 1000, 250);
	ck_assert_double_eq_tol(vecop_model_ns(&k, &g, &p), 3000, 1e-6);
	/* twice the bandwidth halves the DRAM term only: 1000 + 500 + 1000 */
	struct gpu_spec g2 = fake_gpu("vg2", 2000);
	ck_assert_double_eq_tol(vecop_model_ns(&k, &g2, &p), 2500, 1e-6);
	/* twice the SMs halve the SM term only: 1000 + 1000 + 500 */
	g2 = fake_gpu("vg3", 1000);
	g2.sms = 200;
	ck_assert_double_eq_tol(vecop_model_ns(&k, &g2, &p), 2500, 1e-6);
	/* 0 leaves the term out: floor + DRAM */
	p.sm_bpc[VECOP_NORM] = 0;
	ck_assert_double_eq_tol(vecop_model_ns(&k, &g, &p), 2000, 1e-6);
	/* with the term, a GPU without SMs known is refused */
	p.sm_bpc[VECOP_NORM] = 10;
	g2.sms = 0;
	ck_assert(vecop_model_ns(&k, &g2, &p) < 0);
	/* the compiled-in constants leave the term out */
	for (int c = 0; c < VECOP_COUNT; c++)
		ck_assert(vecop_default_params.sm_bpc[c] == 0);
}
END_TEST

START_TEST(fit_sm_recovers)
{
	/* data made by 12 bytes per SM-cycle and a 2000 ns floor on two GPUs
	 * (700 GB/s and 150 SM-cycles/ns; 2000 GB/s and 160) */
	struct vecop_sample s[40];
	for (int i = 0; i < 40; i++) {
		s[i].bytes = 1e3 * pow(2, i % 20);
		s[i].bw_gbps = i < 20 ? 700 : 2000;
		s[i].sm_ghz = i < 20 ? 150 : 160;
		s[i].ns = 2000 + s[i].bytes / s[i].bw_gbps + s[i].bytes / (12 * s[i].sm_ghz);
	}
	double b, f, m;
	ck_assert_int_eq(vecop_fit_sm(s, 40, &b, &f, &m), 0);
	ck_assert_double_eq_tol(b, 12, 0.06);
	ck_assert_double_eq_tol(f, 2000, 20);
	ck_assert(m < 0.5);
	/* DRAM alone: the SMs never limit */
	for (int i = 0; i < 40; i++)
		s[i].ns = 2000 + s[i].bytes / s[i].bw_gbps;
	ck_assert_int_eq(vecop_fit_sm(s, 40, &b, &f, &m), 0);
	ck_assert(b == VECOP_SM_BPC_NONE);
	ck_assert_double_eq_tol(f, 2000, 20);
	/* bad input: nothing, no SM rate */
	ck_assert_int_eq(vecop_fit_sm(s, 0, &b, &f, &m), -1);
	s[5].sm_ghz = 0;
	ck_assert_int_eq(vecop_fit_sm(s, 40, &b, &f, &m), -1);
	/* the one-limit fit does not need it */
	ck_assert_int_eq(vecop_fit(s, 40, &b, &f, &m), 0);
	ck_assert_double_eq_tol(b, 1, 0.005);
}
END_TEST

/* A predictor built with vector-op constants of its own (pred_config's
 * vecop) predicts with them, from the shape and as a ratio, and its
 * attention kernels pay their elementwise floor.  eff 0.5, floor 1000 ns,
 * bw_exp 1; a BF16 norm of 1024 x 4096 moves 16777216 bytes: on 1000 GB/s
 * 1000 + 16777216 / 500 = 34554.432 ns, on 500 GB/s 1000 + 16777216 / 250
 * = 68108.864 ns, so 10 us measured on the latter give 10000 x 34554.432
 * / 68108.864 = 5073.41 ns on the former. */
START_TEST(predictor_carries_constants)
{
	struct gpu_spec g = fake_gpu("t", 1000), o = fake_gpu("o", 500);
	struct vecop_params hp = hand_params(1);
	struct pred_config pc = {.vecop = &hp};
	struct predictor *p, *d;
	struct pred_result res;
	ck_assert_int_eq(predictor_new(&pc, &p, NULL, 0), 0);
	ck_assert_int_eq(predictor_new(NULL, &d, NULL, 0), 0);
	struct pred_kernel k = vec(PRED_OP_NORM, GPU_DT_BF16, 1024, 4096);
	ck_assert_int_eq(predict_kernel(p, &k, NULL, &g, PRED_AUTO, &res), 0);
	ck_assert_int_eq(res.method, PRED_VECOP);
	ck_assert_double_eq_tol(res.ns, 34554.432, 1e-6);
	ck_assert_int_eq(predict_kernel(p, &k, NULL, &g, PRED_VECOP, &res), 0);
	ck_assert_double_eq_tol(res.ns, 34554.432, 1e-6);
	k.origin_ns = 10000;
	ck_assert_int_eq(predict_kernel(p, &k, &o, &g, PRED_AUTO, &res), 0);
	ck_assert_double_eq_tol(res.ns, 5073.41, 0.01);
	/* the compiled-in ones differ */
	k.origin_ns = 0;
	ck_assert_int_eq(predict_kernel(d, &k, NULL, &g, PRED_AUTO, &res), 0);
	ck_assert(fabs(res.ns - 34554.432) > 100);
	ck_assert(predictor_vecop(p)->eff[VECOP_NORM] == 0.5);
	/* attention's launch floor follows the elementwise one */
	ck_assert(predictor_attn(p)->fixed_ns == 1000);
	ck_assert(predictor_attn(d)->fixed_ns == vecop_default_params.floor_ns[VECOP_ELEMENTWISE]);
	predictor_free(p);
	predictor_free(d);
}
END_TEST

START_TEST(auto_rule)
{
	const struct gpu_spec *a40 = gpu_find("a40"), *a100 = gpu_find("a100-sxm4-80");
	struct pred_kernel k = vec(PRED_OP_NORM, GPU_DT_BF16, 8192, 1280);
	struct predictor *p;
	ck_assert_int_eq(predictor_new(NULL, &p, NULL, 0), 0);
	/* 16-bit vector ops from the shape: vecop */
	ck_assert_int_eq(pred_choose(p, &k, NULL, a100), PRED_VECOP);
	k.op = PRED_OP_ELEMENTWISE;
	k.dtype = GPU_DT_FP16;
	ck_assert_int_eq(pred_choose(p, &k, NULL, a100), PRED_VECOP);
	k.op = PRED_OP_SOFTMAX;
	ck_assert_int_eq(pred_choose(p, &k, NULL, a100), PRED_VECOP);
	/* through predict_kernel: the method and the model's time */
	struct pred_result res;
	ck_assert_int_eq(predict_kernel(p, &k, NULL, a100, PRED_AUTO, &res), 0);
	ck_assert_int_eq(res.method, PRED_VECOP);
	ck_assert_double_eq_tol(res.ns, vecop_model_ns(&k, a100, NULL), 1e-9 * res.ns);
	ck_assert_int_eq(res.memory_bound, 1);
	ck_assert_str_eq(pred_method_name(PRED_VECOP), "vecop");
	enum pred_method m;
	ck_assert_int_eq(pred_method_parse("vecop", &m), 0);
	ck_assert_int_eq(m, PRED_VECOP);
	/* with a measurement on another GPU: the ratio form */
	k.origin_ns = 50000;
	ck_assert_int_eq(pred_choose(p, &k, a40, a100), PRED_VECOP);
	ck_assert_int_eq(predict_kernel(p, &k, a40, a100, PRED_AUTO, &res), 0);
	ck_assert_int_eq(res.method, PRED_VECOP);
	ck_assert_double_eq_tol(res.ns, 50000 * vecop_model_ns(&k, a100, NULL) /
				vecop_model_ns(&k, a40, NULL), 1e-9 * res.ns);
	/* same GPU: the measurement */
	ck_assert_int_eq(pred_choose(p, &k, a40, a40), PRED_IDENTITY);
	/* FP32 vector ops stay with the tile model (an FP32 layer norm or
	 * softmax forward takes the row-wise model: check_rowwise.c) */
	k = vec(PRED_OP_ELEMENTWISE, GPU_DT_FP32, 8192, 1280);
	k.bytes = 12.0 * 8192 * 1280;
	k.flops = 8192.0 * 1280;
	ck_assert_int_eq(pred_choose(p, &k, NULL, a100), PRED_MLP);
	k.op = PRED_OP_NORM;
	k.name = "layer_norm_grad_input_kernel<float, float>";
	ck_assert_int_eq(pred_choose(p, &k, NULL, a100), PRED_MLP);
	/* 16-bit GEMMs stay with the tensor-core model */
	k = vec(PRED_OP_GEMM, GPU_DT_BF16, 1024, 1024);
	k.k = 1024;
	k.batch = 1;
	ck_assert_int_eq(pred_choose(p, &k, NULL, a100), PRED_TCGEMM);
	/* a 16-bit vector op with nothing known: not vecop */
	k = vec(PRED_OP_NORM, GPU_DT_FP16, 0, 0);
	ck_assert_int_ne(pred_choose(p, &k, NULL, a100), PRED_VECOP);
	predictor_free(p);
}
END_TEST

/* The power cap (predictor/power.c): the clock share is the cube root of
 * w = cap / TDP down to the voltage floor at w = 0.90, then w over
 * 0.90^(2/3) = 0.932170; by hand: an RTX 3090 at 315 of 350 W 0.9^(1/3) =
 * 0.965489, a GB300 at 500 of 1400 W 0.357143 / 0.932170 = 0.383131, an
 * H100 at 500 of 700 W 0.714286 / 0.932170 = 0.766261 (the linear rule
 * gave 0.714). */
START_TEST(power_cap)
{
	ck_assert_double_eq_tol(power_cap_clock_share(315, 350), 0.965489, 1e-6);
	ck_assert_double_eq_tol(power_cap_clock_share(500, 1400), 0.383131, 1e-6);
	ck_assert_double_eq_tol(power_cap_clock_share(500, 700), 0.766261, 1e-6);
	/* continuous at the floor: both sides give 0.965489 there */
	ck_assert_double_eq_tol(power_cap_clock_share(900.001, 1000), 0.965489, 1e-6);
	ck_assert_double_eq_tol(power_cap_clock_share(899.999, 1000), 0.965489, 1e-6);
	/* below the floor, in proportion: half the cap, half the clock */
	ck_assert_double_eq_tol(power_cap_clock_share(300, 1000) / power_cap_clock_share(600, 1000),
				0.5, 1e-12);
	/* no cap, no TDP, a cap at or above the TDP: the full clock */
	ck_assert_double_eq(power_cap_clock_share(0, 700), 1);
	ck_assert_double_eq(power_cap_clock_share(500, 0), 1);
	ck_assert_double_eq(power_cap_clock_share(700, 700), 1);
	ck_assert_double_eq(power_cap_clock_share(900, 700), 1);
	/* a cap near nothing keeps the floor share, never 0 */
	ck_assert_double_eq(power_cap_clock_share(1, 700), POWER_CAP_MIN_SHARE);
}
END_TEST

/* A copy of a table row derated as the analyzer derates its targets (a
 * power cap, then the slowest board's pace on top): its compute peaks and
 * clock fall and the copy carries the product of the shares; the vector
 * kernels' SM term keeps the row's clock (a memory-bound kernel neither
 * draws the cap nor is what differs between boards), so their time does
 * not move. */
START_TEST(capped_copy)
{
	struct gpu_spec g = fake_gpu("vg", 1000), cap, paced;
	ck_assert_double_eq(gpu_clock_share(&g), 1);
	ck_assert_double_eq(gpu_clock_share(NULL), 1);
	/* cap at 0.8: 1000 MHz -> 800, BF16 300 -> 240 TFLOP/s, share 0.8;
	 * the memory-bound clock 800 / 0.8 = 1000 MHz, 100 SMs x 1 GHz =
	 * 100 SM-cycles per ns as on the row */
	gpu_derate_compute(&g, 0.8, &cap);
	ck_assert_uint_eq(cap.boost_clock_mhz, 800);
	ck_assert_double_eq_tol(cap.peak_tflops[GPU_DT_BF16], 240, 1e-9);
	ck_assert_double_eq_tol(gpu_clock_share(&cap), 0.8, 1e-12);
	ck_assert_double_eq_tol(gpu_memory_bound_clock_mhz(&cap), 1000, 1e-9);
	ck_assert_double_eq_tol(vecop_sm_ghz(&cap), 100, 1e-9);
	/* the pace 0.5 on the capped copy: 800 -> 400 MHz, share 0.8 x 0.5 =
	 * 0.4, memory-bound clock 400 / 0.4 = 1000 MHz still */
	gpu_derate_compute(&cap, 0.5, &paced);
	ck_assert_uint_eq(paced.boost_clock_mhz, 400);
	ck_assert_double_eq_tol(paced.peak_tflops[GPU_DT_BF16], 120, 1e-9);
	ck_assert_double_eq_tol(gpu_clock_share(&paced), 0.4, 1e-12);
	ck_assert_double_eq_tol(vecop_sm_ghz(&paced), 100, 1e-9);
	/* a = 0.5: sqrt(1000 x 100 x 64) = 2529.82 GB/s on all three */
	ck_assert_double_eq_tol(vecop_rate_gbps(&paced, 0.5), 2529.822128, 1e-4);
	struct pred_kernel k = vec(PRED_OP_NORM, GPU_DT_BF16, 8192, 4096);
	double t0 = vecop_model_ns(&k, &g, NULL);
	ck_assert(t0 > 0);
	ck_assert_double_eq_tol(vecop_model_ns(&k, &cap, NULL), t0, 1e-6 * t0);
	ck_assert_double_eq_tol(vecop_model_ns(&k, &paced, NULL), t0, 1e-6 * t0);
	/* the database's H100 SXM capped at 500 of 700 W (share 0.766261):
	 * 1980 MHz -> 1517 (rounded to a MHz), given back as 1517 / 0.766261
	 * = 1979.74 MHz, within 1 in 1500 of the row's */
	const struct gpu_spec *h100 = gpu_find("h100-sxm");
	ck_assert_ptr_nonnull(h100);
	gpu_derate_compute(h100, 0.766261, &cap);
	ck_assert_uint_eq(cap.boost_clock_mhz, 1517);
	ck_assert_double_eq_tol(gpu_memory_bound_clock_mhz(&cap), 1979.74, 0.01);
	ck_assert_double_eq_tol(gpu_memory_bound_clock_mhz(h100), 1980, 1e-9);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("vecop");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, dtype_bytes);
	tcase_add_test(tc, bytes_from_shape);
	tcase_add_test(tc, rate);
	tcase_add_test(tc, hand_times);
	tcase_add_test(tc, defaults_and_ratio);
	tcase_add_test(tc, fit_recovers);
	tcase_add_test(tc, sm_term);
	tcase_add_test(tc, fit_sm_recovers);
	tcase_add_test(tc, auto_rule);
	tcase_add_test(tc, predictor_carries_constants);
	tcase_add_test(tc, power_cap);
	tcase_add_test(tc, capped_copy);
	suite_add_tcase(su, tc);
	return check_run(su);
}
