/*
 * stats.c - order statistics and the random-effects mean shared by the
 * lab tools (stats.h).
 */
#include "tools/lab/stats.h"

#include <math.h>
#include <stdlib.h>

int lab_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double lab_median(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof *v, lab_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double lab_quantile(double *v, size_t n, double q)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof *v, lab_cmp_double);
	return v[(size_t)(q * (double)(n - 1) + 0.5)];
}

double lab_re_mean(const size_t *hit, const size_t *n, size_t k, double *se)
{
	double h = 0, t = 0;
	for (size_t i = 0; i < k; i++) {
		h += (double)hit[i];
		t += (double)n[i];
	}
	if (!k || !(t > 0))
		return NAN;
	/* pbar kept half a row from 0 and 1: all hit (or none) is no
	 * heterogeneity, and the variances must stay positive */
	double pbar = fmin(fmax(h / t, 0.5 / t), 1 - 0.5 / t), pv = pbar * (1 - pbar);
	double w = 0, w2 = 0, q = 0;
	for (size_t i = 0; i < k; i++) {
		double wi = (double)n[i] / pv, d = (double)hit[i] / (double)n[i] - h / t;
		w += wi;
		w2 += wi * wi;
		q += wi * d * d;    /* about the fixed-effect mean h / t */
	}
	double den = w - w2 / w, tau2 = den > 0 ? fmax(0, (q - (double)(k - 1)) / den) : 0;
	double sw = 0, sp = 0;
	for (size_t i = 0; i < k; i++) {
		double wi = 1 / (pv / (double)n[i] + tau2);
		sw += wi;
		sp += wi * (double)hit[i] / (double)n[i];
	}
	if (se)
		*se = 1 / sqrt(sw);
	return sp / sw;
}

int lab_interval_side(double measured, double lo, double hi)
{
	return measured < lo ? -1 : measured > hi ? 1 : 0;
}

void lab_cover_add(struct lab_cover *c, double measured, double lo, double hi)
{
	int side = lab_interval_side(measured, lo, hi);
	c->below += side < 0;
	c->above += side > 0;
	c->in += side == 0;
}
