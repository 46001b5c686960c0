/*
 * check_mlp.c - the MLP: forward pass against a hand computation, the blob
 * format, fixed-seed initialisation, gradients against finite differences
 * (through Adam's first step, which moves every weight by -lr * sign(g)),
 * and training on a function whose answer is known.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "predictor/mlp.h"
#include "tests/check_run.h"

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (v >> (8 * i)) & 0xff;
}

static void putf(unsigned char *p, float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	put32(p, u);
}

static float getf(const unsigned char *p)
{
	uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	float f;
	memcpy(&f, &u, 4);
	return f;
}

/* 2 inputs -> 2 ReLU -> 1, written byte by byte from the documented layout. */
static size_t hand_blob(unsigned char *b)
{
	const float vals[] = {
		1, 0,             /* mean */
		2, 1,             /* sd */
		1, -1, 0.5f, 2,   /* W0 (2x2, row-major) */
		0, -1,            /* b0 */
		1, 3,             /* W1 (1x2) */
		0.5f,             /* b1 */
	};
	memcpy(b, "SMLP", 4);
	put32(b + 4, 1);
	put32(b + 8, 2);
	put32(b + 12, 2);
	put32(b + 16, 2);
	put32(b + 20, 1);
	for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
		putf(b + 24 + 4 * i, vals[i]);
	return 24 + 4 * (sizeof vals / sizeof vals[0]);
}

START_TEST(forward_by_hand)
{
	unsigned char b[128];
	size_t len = hand_blob(b), used = 0;
	struct mlp *m = NULL;
	ck_assert_int_eq(mlp_load(b, len, &m, &used), 0);
	ck_assert_uint_eq(used, len);
	ck_assert_uint_eq(mlp_inputs(m), 2);
	ck_assert_uint_eq(mlp_outputs(m), 1);
	/* x = (3, 1) -> x' = ((3-1)/2, (1-0)/1) = (1, 1)
	 * h = relu(1*1 - 1*1 + 0, 0.5*1 + 2*1 - 1) = (0, 1.5)
	 * y = 1*0 + 3*1.5 + 0.5 = 5 */
	double x[2] = {3, 1}, y;
	mlp_forward(m, x, &y);
	ck_assert_double_eq_tol(y, 5.0, 1e-6);
	/* x = (-1, 0) -> x' = (-1, 0); h = relu(-1, -1.5) = (0, 0); y = 0.5 */
	double x2[2] = {-1, 0};
	mlp_forward(m, x2, &y);
	ck_assert_double_eq_tol(y, 0.5, 1e-6);
	mlp_free(m);
}
END_TEST

START_TEST(bad_blobs)
{
	unsigned char b[128];
	size_t len = hand_blob(b), used;
	struct mlp *m = NULL;
	for (size_t cut = 0; cut < len; cut += 3)
		ck_assert_int_eq(mlp_load(b, cut, &m, &used), -1);
	b[0] = 'X';
	ck_assert_int_eq(mlp_load(b, len, &m, &used), -1);
	hand_blob(b);
	put32(b + 8, 0);                   /* no layers */
	ck_assert_int_eq(mlp_load(b, len, &m, &used), -1);
	hand_blob(b);
	put32(b + 12, 100000);             /* absurd width */
	ck_assert_int_eq(mlp_load(b, len, &m, &used), -1);
	unsigned bad[] = {3, 0, 1};
	ck_assert_ptr_null(mlp_new(bad, 2, 1));
	ck_assert_ptr_null(mlp_new(bad, 0, 1));
}
END_TEST

START_TEST(seed_and_roundtrip)
{
	unsigned sizes[] = {3, 8, 8, 2};
	struct mlp *a = mlp_new(sizes, 3, 42), *b = mlp_new(sizes, 3, 42), *c = mlp_new(sizes, 3, 43);
	unsigned char *ba, *bb, *bc;
	size_t la, lb, lc;
	ck_assert_int_eq(mlp_save(a, &ba, &la), 0);
	ck_assert_int_eq(mlp_save(b, &bb, &lb), 0);
	ck_assert_int_eq(mlp_save(c, &bc, &lc), 0);
	ck_assert_uint_eq(la, lb);
	ck_assert_int_eq(memcmp(ba, bb, la), 0);       /* same seed, same net */
	ck_assert_int_ne(memcmp(ba, bc, la), 0);       /* another seed differs */
	/* 12 header + 4*4 sizes + 2*3*4 norm + 4*(3*8+8 + 8*8+8 + 8*2+2) */
	ck_assert_uint_eq(la, 12 + 16 + 24 + 4 * (32 + 72 + 18));
	struct mlp *r;
	size_t used;
	ck_assert_int_eq(mlp_load(ba, la, &r, &used), 0);
	double x[3] = {0.3, -1.2, 2.5}, y1[2], y2[2];
	mlp_forward(a, x, y1);
	mlp_forward(r, x, y2);
	ck_assert_double_eq_tol(y1[0], y2[0], 1e-5);
	ck_assert_double_eq_tol(y1[1], y2[1], 1e-5);
	free(ba); free(bb); free(bc);
	mlp_free(a); mlp_free(b); mlp_free(c); mlp_free(r);
}
END_TEST

/* Loss 0.5 * y^2 at x for the network in blob. */
static double loss_of(const unsigned char *blob, size_t len, const double *x)
{
	struct mlp *m;
	size_t used;
	double y;
	ck_assert_int_eq(mlp_load(blob, len, &m, &used), 0);
	mlp_forward(m, x, &y);
	mlp_free(m);
	return 0.5 * y * y;
}

START_TEST(gradient_signs_match_finite_differences)
{
	unsigned sizes[] = {3, 5, 4, 1};
	struct mlp *m = mlp_new(sizes, 3, 7);
	double x[3] = {0.7, -0.4, 1.3}, y;
	unsigned char *before, *after;
	size_t len, len2;
	ck_assert_int_eq(mlp_save(m, &before, &len), 0);
	mlp_train_forward(m, x, &y);
	ck_assert(fabs(y) > 1e-3);
	double dy = y;                     /* d(0.5 y^2)/dy */
	mlp_backward(m, &dy);
	const double lr = 1e-3;
	mlp_adam_step(m, lr, 1);
	ck_assert_int_eq(mlp_save(m, &after, &len2), 0);
	size_t off = 12 + 4 * 4 + 8 * 3;  /* first weight */
	size_t nw = (len - off) / 4, checked = 0;
	unsigned char *pert = malloc(len);
	for (size_t i = 0; i < nw; i++) {
		size_t p = off + 4 * i;
		float w = getf(before + p);
		memcpy(pert, before, len);
		putf(pert + p, w + 1e-2f);
		double lp = loss_of(pert, len, x);
		putf(pert + p, w - 1e-2f);
		double lm = loss_of(pert, len, x);
		double g = (lp - lm) / 2e-2;
		double step = getf(after + p) - w;
		if (fabs(g) < 1e-4) {
			/* no gradient (a dead ReLU): Adam's step is 0 */
			ck_assert(fabs(step) < 1e-6);
			continue;
		}
		/* Adam's first step: -lr * g / (|g| + eps) */
		ck_assert_msg(fabs(step + lr * (g > 0 ? 1 : -1)) < 1e-5,
			      "weight %zu: step %g, finite-difference gradient %g", i, step, g);
		checked++;
	}
	ck_assert(checked > nw / 3);
	free(pert);
	free(before);
	free(after);
	mlp_free(m);
}
END_TEST

START_TEST(learns_a_known_function)
{
	unsigned sizes[] = {2, 16, 16, 1};
	struct mlp *m = mlp_new(sizes, 3, 3);
	uint64_t s = 12345;
	double err = 0;
	for (int step = 0; step < 3000; step++) {
		for (int b = 0; b < 16; b++) {
			s = s * 6364136223846793005ULL + 1442695040888963407ULL;
			double x0 = (double)(s >> 40) / (1 << 24) * 2 - 1;
			s = s * 6364136223846793005ULL + 1442695040888963407ULL;
			double x1 = (double)(s >> 40) / (1 << 24) * 2 - 1;
			double x[2] = {x0, x1}, y, t = 3 * x0 - 2 * x1 + 1;
			mlp_train_forward(m, x, &y);
			double dy = y - t;
			mlp_backward(m, &dy);
		}
		mlp_adam_step(m, 3e-3, 16);
	}
	for (int i = 0; i < 50; i++) {
		double x[2] = {-0.9 + 0.036 * i, 0.8 - 0.03 * i}, y;
		mlp_forward(m, x, &y);
		err += fabs(y - (3 * x[0] - 2 * x[1] + 1)) / 50;
	}
	ck_assert_msg(err < 0.05, "mean error %g", err);
	mlp_free(m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mlp");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, forward_by_hand);
	tcase_add_test(tc, bad_blobs);
	tcase_add_test(tc, seed_and_roundtrip);
	tcase_add_test(tc, gradient_signs_match_finite_differences);
	tcase_add_test(tc, learns_a_known_function);
	suite_add_tcase(s, tc);
	return check_run(s);
}
