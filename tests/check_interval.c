/*
 * check_interval.c - the interval around a prediction (predictor/
 * interval.c): quantile interpolation, the bounds a table row gives, the
 * fallbacks when a key is missing, and the distance of a target from the
 * training GPUs.  The tables here are made up; each expected bound is
 * worked out by hand from measured = predicted / exp(error).
 */
#include <check.h>
#include <math.h>

#include "predictor/interval.h"
#include "tests/check_run.h"

/* A row whose error quantiles rise linearly from lo (probability 0) to hi
 * (probability 1): the quantile at p is lo + p (hi - lo). */
static struct interval_row linear_row(int method, int cls, int dist, int src, float lo, float hi)
{
	struct interval_row r = { (uint8_t)method, (uint8_t)cls, (uint8_t)dist, (uint8_t)src, 100, {0} };
	for (int j = 0; j < IV_NQ; j++)
		r.q[j] = lo + (hi - lo) * (float)j / (IV_NQ - 1);
	return r;
}

START_TEST(quantile_interpolates)
{
	struct interval_row r = linear_row(PRED_MLP, IV_CLASS_GEMM, PRED_DIST_NEW_ARCH,
					   PRED_SRC_TRACE, -0.4f, 0.6f);
	ck_assert_double_eq_tol(interval_quantile(&r, 0), -0.4, 1e-6);
	ck_assert_double_eq_tol(interval_quantile(&r, 1), 0.6, 1e-6);
	ck_assert_double_eq_tol(interval_quantile(&r, 0.5), 0.1, 1e-6);
	/* between grid points (1/40 apart): 0.0125 is half way to 0.025 */
	ck_assert_double_eq_tol(interval_quantile(&r, 0.0125), -0.4 + 0.0125, 1e-6);
}
END_TEST

START_TEST(bounds_from_errors)
{
	struct interval_row rows[] = {
		linear_row(PRED_MLP, IV_CLASS_GEMM, PRED_DIST_NEW_ARCH, PRED_SRC_TRACE, -0.4f, 0.6f),
	};
	double lo, hi;
	/* 80%: error quantiles 0.1 -> -0.3 and 0.9 -> 0.5; predicted too
	 * high by e^0.5 means measured = predicted / e^0.5 */
	ck_assert_uint_eq(interval_factors(rows, 1, PRED_MLP, IV_CLASS_GEMM, PRED_DIST_NEW_ARCH,
					   PRED_SRC_TRACE, 0.8, &lo, &hi), 100);
	ck_assert_double_eq_tol(lo, exp(-0.5), 1e-6);
	ck_assert_double_eq_tol(hi, exp(0.3), 1e-6);
	/* a wider probability, a wider interval */
	double lo2, hi2;
	interval_factors(rows, 1, PRED_MLP, IV_CLASS_GEMM, PRED_DIST_NEW_ARCH, PRED_SRC_TRACE, 0.9,
			 &lo2, &hi2);
	ck_assert(lo2 < lo && hi2 > hi);
	/* the measured time itself: no interval */
	ck_assert_uint_eq(interval_factors(rows, 1, PRED_IDENTITY, IV_CLASS_GEMM,
					   PRED_DIST_NEW_ARCH, PRED_SRC_TRACE, 0.8, &lo, &hi), 0);
	ck_assert(lo == 1 && hi == 1);
	/* no probability outside (0, 1) */
	ck_assert_uint_eq(interval_factors(rows, 1, PRED_MLP, IV_CLASS_GEMM, PRED_DIST_NEW_ARCH,
					   PRED_SRC_TRACE, 1.0, &lo, &hi), 0);
}
END_TEST

START_TEST(fallbacks)
{
	struct interval_row rows[] = {
		linear_row(PRED_AUTO, IV_CLASS_VECTOR, PRED_DIST_NEW_ARCH, PRED_SRC_CONFIG, -0.2f, 0.2f),
		linear_row(PRED_AUTO, IV_CLASS_ANY, PRED_DIST_NEW_ARCH, PRED_SRC_CONFIG, -1.0f, 1.0f),
		linear_row(PRED_AUTO, IV_CLASS_ITERATION, PRED_DIST_NEW_ARCH, PRED_SRC_CONFIG, -0.1f, 0.1f),
	};
	size_t n = sizeof rows / sizeof rows[0];
	double lo, hi;
	/* the same die asked, only new-architecture rows: the vector row of
	 * `auto` answers for the roofline (quantiles at 0.1 and 0.9: -0.2 +
	 * 0.4 x 0.1 = -0.16 and 0.16) */
	ck_assert_uint_eq(interval_factors(rows, n, PRED_ROOFLINE, IV_CLASS_VECTOR,
					   PRED_DIST_SAME_DIE, PRED_SRC_CONFIG, 0.8, &lo, &hi), 100);
	ck_assert_double_eq_tol(lo, exp(-0.16), 1e-6);
	ck_assert_double_eq_tol(hi, exp(0.16), 1e-6);
	/* no conv row: every class pooled (-1 + 2 x 0.1 = -0.8 and 0.8) */
	interval_factors(rows, n, PRED_WAVE, IV_CLASS_CONV, PRED_DIST_NEW_ARCH, PRED_SRC_CONFIG, 0.8,
			 &lo, &hi);
	ck_assert_double_eq_tol(hi, exp(0.8), 1e-6);
	/* an iteration from a trace takes the config's iterations before
	 * any kernel row (-0.08 and 0.08) */
	interval_factors(rows, n, PRED_AUTO, IV_CLASS_ITERATION, PRED_DIST_NEW_ARCH, PRED_SRC_TRACE,
			 0.8, &lo, &hi);
	ck_assert_double_eq_tol(hi, exp(0.08), 1e-6);
	/* nothing for traces at all but that: a kernel gets no interval */
	ck_assert_uint_eq(interval_factors(rows, n, PRED_MLP, IV_CLASS_GEMM, PRED_DIST_NEW_ARCH,
					   PRED_SRC_TRACE, 0.8, &lo, &hi), 0);
	ck_assert(lo == 1 && hi == 1);
}
END_TEST

/* Which rows a prediction takes: auto's own where auto pulled the tile
 * model's ratio (its dumps hold those predictions), the used method's
 * otherwise, and the asked method's when it was asked by name. */
START_TEST(auto_takes_its_rows)
{
	struct interval_row rows[] = {
		linear_row(PRED_AUTO, IV_CLASS_GEMM, PRED_DIST_NEW_ARCH, PRED_SRC_TRACE, -0.2f, 0.2f),
		linear_row(PRED_MLP, IV_CLASS_GEMM, PRED_DIST_NEW_ARCH, PRED_SRC_TRACE, -1.0f, 1.0f),
		linear_row(PRED_WAVE, IV_CLASS_GEMM, PRED_DIST_NEW_ARCH, PRED_SRC_TRACE, -0.5f, 0.5f),
		linear_row(PRED_TCGEMM, IV_CLASS_GEMM, PRED_DIST_NEW_ARCH, PRED_SRC_TRACE, -0.1f, 0.1f),
	};
	size_t n = sizeof rows / sizeof rows[0];
	/* the 0.9 quantile of each: hi = exp(0.8 x half-width) */
	const struct { enum pred_method asked, used; double half; } c[] = {
		{PRED_AUTO, PRED_MLP, 0.2},     /* auto pulled the tile model: auto's */
		{PRED_MLP, PRED_MLP, 1.0},      /* the tile model asked by name        */
		{PRED_AUTO, PRED_WAVE, 0.5},    /* auto fell back to wave: wave's      */
		{PRED_AUTO, PRED_TCGEMM, 0.1},  /* a tensor-core GEMM: its model's     */
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		double lo, hi;
		ck_assert_uint_eq(interval_factors(rows, n, interval_method(c[i].asked, c[i].used),
						   IV_CLASS_GEMM, PRED_DIST_NEW_ARCH, PRED_SRC_TRACE, 0.8,
						   &lo, &hi), 100);
		ck_assert_double_eq_tol(hi, exp(0.8 * c[i].half), 1e-6);
		ck_assert_double_eq_tol(lo, exp(-0.8 * c[i].half), 1e-6);
	}
	/* a convolution auto predicted (its method has no rows): auto's */
	ck_assert_int_eq(interval_method(PRED_AUTO, PRED_CONV), PRED_CONV);
	struct interval_row conv = linear_row(PRED_AUTO, IV_CLASS_CONV, PRED_DIST_NEW_ARCH,
					      PRED_SRC_TRACE, -0.3f, 0.3f);
	double lo, hi;
	ck_assert_uint_eq(interval_factors(&conv, 1, interval_method(PRED_AUTO, PRED_CONV),
					   IV_CLASS_CONV, PRED_DIST_NEW_ARCH, PRED_SRC_TRACE, 0.8, &lo,
					   &hi), 100);
	ck_assert_double_eq_tol(hi, exp(0.24), 1e-6);
}
END_TEST

/* A whole iteration's key: the tensor-core models' iterations (a BF16
 * engine step, its GEMMs and attention) take the tcgemm iteration rows,
 * the others (an FP32 eager iteration, the tile model's) auto's; with no
 * tcgemm row the lookup takes auto's. */
START_TEST(iteration_keys)
{
	double bf16[PRED_METHOD_COUNT] = {0}, fp32[PRED_METHOD_COUNT] = {0}, tie[PRED_METHOD_COUNT] = {0},
	       none[PRED_METHOD_COUNT] = {0};
	bf16[PRED_TCGEMM] = 6.0;           /* GEMMs 6, attention 1 against      */
	bf16[PRED_ATTENTION] = 1.0;        /* norms 5: 7 >= 5                   */
	bf16[PRED_VECOP] = 5.0;
	bf16[PRED_COMM] = 50.0;            /* collectives count on neither side */
	fp32[PRED_MLP] = 8.0;              /* the tile model's 8 against 3      */
	fp32[PRED_TCGEMM] = 3.0;
	fp32[PRED_IDENTITY] = 100.0;       /* nor measured kernels              */
	tie[PRED_TCGEMM] = 2.0;            /* a tie goes to the tensor cores    */
	tie[PRED_ROOFLINE] = 1.0;
	tie[PRED_CONV] = 1.0;
	none[PRED_COMM] = 1.0;             /* no kernel model at all            */
	ck_assert_int_eq(interval_iteration_method(bf16), PRED_TCGEMM);
	ck_assert_int_eq(interval_iteration_method(fp32), PRED_AUTO);
	ck_assert_int_eq(interval_iteration_method(tie), PRED_TCGEMM);
	ck_assert_int_eq(interval_iteration_method(none), PRED_AUTO);
	struct interval_row rows[] = {
		linear_row(PRED_AUTO, IV_CLASS_ITERATION, PRED_DIST_NEW_ARCH, PRED_SRC_CONFIG, -0.4f, 0.1f),
		linear_row(PRED_TCGEMM, IV_CLASS_ITERATION, PRED_DIST_NEW_ARCH, PRED_SRC_CONFIG, -0.2f, 0.2f),
	};
	double lo, hi;
	/* the tcgemm row: -0.2 + 0.4 x 0.1 = -0.16 and 0.16 */
	ck_assert_uint_eq(interval_factors(rows, 2, interval_iteration_method(bf16), IV_CLASS_ITERATION,
					   PRED_DIST_SAME_ARCH, PRED_SRC_CONFIG, 0.8, &lo, &hi), 100);
	ck_assert_double_eq_tol(lo, exp(-0.16), 1e-6);
	ck_assert_double_eq_tol(hi, exp(0.16), 1e-6);
	/* auto's: -0.4 + 0.5 x 0.1 = -0.35 and -0.4 + 0.5 x 0.9 = 0.05 */
	interval_factors(rows, 2, interval_iteration_method(fp32), IV_CLASS_ITERATION,
			 PRED_DIST_NEW_ARCH, PRED_SRC_CONFIG, 0.8, &lo, &hi);
	ck_assert_double_eq_tol(lo, exp(-0.05), 1e-6);
	ck_assert_double_eq_tol(hi, exp(0.35), 1e-6);
	/* no tcgemm row: auto's */
	interval_factors(rows, 1, PRED_TCGEMM, IV_CLASS_ITERATION, PRED_DIST_NEW_ARCH,
			 PRED_SRC_CONFIG, 0.8, &lo, &hi);
	ck_assert_double_eq_tol(hi, exp(0.35), 1e-6);
}
END_TEST

/* Distances: a key of the asked distance first, then farther ones, never
 * a nearer one (its errors are the narrower kind); the method's own
 * farther row before auto's of the asked distance. */
START_TEST(distances)
{
	struct interval_row rows[] = {
		linear_row(PRED_MLP, IV_CLASS_GEMM, PRED_DIST_SAME_DIE, PRED_SRC_TRACE, -0.1f, 0.1f),
		linear_row(PRED_MLP, IV_CLASS_GEMM, PRED_DIST_NEW_ARCH, PRED_SRC_TRACE, -0.5f, 0.5f),
		linear_row(PRED_AUTO, IV_CLASS_GEMM, PRED_DIST_SAME_ARCH, PRED_SRC_TRACE, -0.3f, 0.3f),
	};
	size_t n = sizeof rows / sizeof rows[0];
	double lo, hi;
	ck_assert_ptr_eq(interval_lookup(rows, n, PRED_MLP, IV_CLASS_GEMM, PRED_DIST_SAME_DIE,
					 PRED_SRC_TRACE), &rows[0]);
	ck_assert_ptr_eq(interval_lookup(rows, n, PRED_MLP, IV_CLASS_GEMM, PRED_DIST_SAME_ARCH,
					 PRED_SRC_TRACE), &rows[1]);
	ck_assert_ptr_eq(interval_lookup(rows, n, PRED_MLP, IV_CLASS_GEMM, PRED_DIST_NEW_ARCH,
					 PRED_SRC_TRACE), &rows[1]);
	ck_assert_ptr_eq(interval_lookup(rows, n, PRED_WAVE, IV_CLASS_GEMM, PRED_DIST_SAME_DIE,
					 PRED_SRC_TRACE), &rows[2]);
	ck_assert_ptr_null(interval_lookup(rows, n, PRED_WAVE, IV_CLASS_GEMM, PRED_DIST_NEW_ARCH,
					   PRED_SRC_TRACE));
	/* the same die's row: 0.1 and 0.9 quantiles -0.08 and 0.08 */
	interval_factors(rows, n, PRED_MLP, IV_CLASS_GEMM, PRED_DIST_SAME_DIE, PRED_SRC_TRACE, 0.8,
			 &lo, &hi);
	ck_assert_double_eq_tol(lo, exp(-0.08), 1e-6);
	ck_assert_double_eq_tol(hi, exp(0.08), 1e-6);
}
END_TEST

/* The compiled-in weights learnt from NeuSight's five GPUs and DeepBench's
 * boards: the A100 80GB and the A30 are the A100 PCIe 40GB's die (GA100,
 * NVIDIA's whitepaper), the RTX 2080 Ti the T4's architecture on another
 * die (TU102, TU104), an H100 or an L4 a compute capability none of them
 * has.  From a trace the origin alone counts: from an H800 the H20 is its
 * die (GH100), from an L40 the L4 its architecture (AD102, AD104), from a
 * TU102 the T4 its architecture though the models learnt from a T4. */
START_TEST(distance)
{
	struct predictor *p;
	char err[128];
	ck_assert_int_eq(predictor_new(NULL, &p, err, sizeof err), 0);
	ck_assert_int_eq(pred_distance_of(p, NULL, gpu_find("a100-pcie-40")), PRED_DIST_SAME_DIE);
	ck_assert_int_eq(pred_distance_of(p, NULL, gpu_find("a100-sxm4-80")), PRED_DIST_SAME_DIE);
	ck_assert_int_eq(pred_distance_of(p, NULL, gpu_find("a30")), PRED_DIST_SAME_DIE);
	ck_assert_int_eq(pred_distance_of(p, NULL, gpu_find("rtx-2080ti")), PRED_DIST_SAME_ARCH);
	ck_assert_int_eq(pred_distance_of(p, NULL, gpu_find("h100-sxm")), PRED_DIST_NEW_ARCH);
	ck_assert_int_eq(pred_distance_of(p, NULL, gpu_find("l4")), PRED_DIST_NEW_ARCH);
	ck_assert_int_eq(pred_distance_of(p, NULL, gpu_find("mi210")), PRED_DIST_NEW_ARCH);
	ck_assert_int_eq(pred_distance_of(p, gpu_find("h800"), gpu_find("h20")), PRED_DIST_SAME_DIE);
	ck_assert_int_eq(pred_distance_of(p, gpu_find("l40"), gpu_find("l4")), PRED_DIST_SAME_ARCH);
	ck_assert_int_eq(pred_distance_of(p, gpu_find("h800"), gpu_find("l4")), PRED_DIST_NEW_ARCH);
	ck_assert_int_eq(pred_distance_of(p, gpu_find("rtx-2080ti"), gpu_find("t4")),
			 PRED_DIST_SAME_ARCH);
	ck_assert_int_eq(pred_distance_of(p, gpu_find("v100-pcie-32"), gpu_find("a100-sxm4-80")),
			 PRED_DIST_NEW_ARCH);
	ck_assert_int_eq(pred_distance_of(NULL, NULL, gpu_find("t4")), PRED_DIST_NEW_ARCH);
	ck_assert_int_eq(pred_distance_of(NULL, gpu_find("t4"), gpu_find("rtx-2080ti")),
			 PRED_DIST_SAME_ARCH);
	ck_assert_int_eq(pred_distance_of(p, gpu_find("t4"), NULL), PRED_DIST_NEW_ARCH);
	predictor_free(p);
	ck_assert_str_eq(pred_distance_name(PRED_DIST_SAME_ARCH), "same-architecture");
}
END_TEST

/* The committed table: every row is a key the lookup can reach, with
 * quantiles that do not decrease. */
START_TEST(committed_table)
{
	for (size_t i = 0; i < interval_table_len; i++) {
		const struct interval_row *r = &interval_table[i];
		ck_assert_uint_lt(r->cls, IV_CLASS_COUNT);
		ck_assert_uint_lt(r->distance, PRED_DIST_COUNT);
		ck_assert_uint_lt(r->source, PRED_SRC_COUNT);
		ck_assert_uint_gt(r->n, 0);
		for (int j = 1; j < IV_NQ; j++)
			ck_assert(r->q[j] >= r->q[j - 1]);
	}
	/* its architectures, ascending: NeuSight's five (sm_60, 61, 70, 75,
	 * 80), our H200 (sm_90) and the serving runs' A40 (sm_86), L40 (sm_89)
	 * and RTX PRO 6000 (sm_120) are among them; the B200's (sm_100) and
	 * the Jetsons' (sm_72, sm_87), of which no held-out prediction
	 * exists, are not */
	for (size_t i = 1; i < interval_table_narchs; i++)
		ck_assert_uint_gt(interval_table_archs[i], interval_table_archs[i - 1]);
	const uint32_t saw[] = {60, 61, 70, 75, 80, 86, 89, 90, 120}, unseen[] = {72, 87, 100};
	for (size_t i = 0; i < sizeof saw / sizeof saw[0]; i++)
		ck_assert_msg(interval_table_saw(saw[i]), "sm_%u not in the table", saw[i]);
	for (size_t i = 0; i < sizeof unseen / sizeof unseen[0]; i++)
		ck_assert_msg(!interval_table_saw(unseen[i]), "sm_%u in the table", unseen[i]);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("interval");
	TCase *tc = tcase_create("interval");

	tcase_add_test(tc, quantile_interpolates);
	tcase_add_test(tc, bounds_from_errors);
	tcase_add_test(tc, fallbacks);
	tcase_add_test(tc, auto_takes_its_rows);
	tcase_add_test(tc, iteration_keys);
	tcase_add_test(tc, distances);
	tcase_add_test(tc, distance);
	tcase_add_test(tc, committed_table);
	suite_add_tcase(s, tc);
	return check_run(s);
}
