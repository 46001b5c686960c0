/*
 * stats.h - the order statistics the lab tools share (surfer-bench,
 * surfer-train): one comparator for qsort over doubles, the median and a
 * nearest-rank quantile (each sorts its input in place), the
 * random-effects mean of proportions of several groups, and how often
 * predictions' intervals held the measured times.
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

/*
 * The random-effects (DerSimonian-Laird) mean of k groups' proportions:
 * group i has hit[i] of n[i] (hit[i] <= n[i], n[i] > 0).  Each group's
 * proportion counts by 1 / (v_i + tau2): v_i = pbar (1 - pbar) / n[i] its
 * binomial variance at the pooled proportion pbar (the proportion of every
 * group alike under no heterogeneity; its own proportion instead would
 * weigh a group of 100 % most), tau2 the variance of the groups' true
 * proportions about their mean, estimated by moments from Cochran's Q:
 * max(0, (Q - (k - 1)) / (W - sum w_i^2 / W)), w_i = 1 / v_i, W their sum.
 * No heterogeneity: the pooled proportion (each of the rows alike); much:
 * the groups' plain mean (each group alike).  *se (may be NULL): its
 * standard error, 1 / sqrt(sum of the weights).  NAN when k is 0.
 */
double lab_re_mean(const size_t *hit, const size_t *n, size_t k, double *se);

/* Where a measured time falls against a prediction's interval [lo, hi]
 * (both ends inside): -1 below lo (the run faster than the interval), 0
 * inside, 1 above hi. */
int lab_interval_side(double measured, double lo, double hi);

/* Measured times against their intervals, counted by side. */
struct lab_cover {
	size_t in, below, above;
};

/* Counts measured against [lo, hi] into c. */
void lab_cover_add(struct lab_cover *c, double measured, double lo, double hi);

#endif
