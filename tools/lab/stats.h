/*
 * stats.h - the order statistics the lab tools share (surfer-bench,
 * surfer-train): one comparator for qsort over doubles, the median and a
 * nearest-rank quantile.  Each sorts its input in place.
 */
#ifndef SURFER_LAB_STATS_H
#define SURFER_LAB_STATS_H

#include <stddef.h>

/* qsort comparator, ascending; NaNs compare equal to everything. */
int lab_cmp_double(const void *a, const void *b);

/* The median of v[0..n) (the mean of the two middle values when n is
 * even), 0 when n is 0. */
double lab_median(double *v, size_t n);

/* The q-quantile (0..1) of v[0..n), nearest rank (index q (n - 1)
 * rounded); NAN when n is 0. */
double lab_quantile(double *v, size_t n, double q);

#endif
