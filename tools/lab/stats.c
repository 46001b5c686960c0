/*
 * stats.c - order statistics shared by the lab tools (stats.h).
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
