/*
 * interval.c - the interval around a prediction (interval.h): the lookup
 * of the calibration table with its fallbacks, and the distance of a
 * target from the training data.
 */
#include "predictor/interval.h"
#include "predictor/tile.h"
#include "gpu_specs/die.h"

#include <math.h>

enum interval_class interval_class_of(enum pred_op op)
{
	switch (op) {
	case PRED_OP_GEMM:
		return IV_CLASS_GEMM;
	case PRED_OP_ELEMENTWISE:
	case PRED_OP_REDUCTION:
	case PRED_OP_SOFTMAX:
	case PRED_OP_NORM:
		return IV_CLASS_VECTOR;
	case PRED_OP_CONV:
		return IV_CLASS_CONV;
	default:
		return IV_CLASS_ANY;
	}
}

enum pred_distance pred_distance_between(const struct gpu_spec *a, const struct gpu_spec *b)
{
	if (!a || !b || a->cc != b->cc)
		return PRED_DIST_NEW_ARCH;
	return gpu_same_die(a, b) ? PRED_DIST_SAME_DIE : PRED_DIST_SAME_ARCH;
}

/*
 * From a trace the origin's distance alone: a trace measured on a board of
 * the target's die carries the die's efficiency in its times, and that is
 * what the same-die rows were calibrated on (a board predicted from
 * another of its die, the architecture out of every fit).  A target whose
 * die the models learnt from, predicted from an origin of another
 * architecture, still carries the origin's own deviation from the model
 * across architectures in the ratio; no held-out pair measures that, so it
 * is not called near.  From a config the nearest of the GPUs the models
 * learnt from (the tile model's training GPUs: not the tables of tile
 * picks recorded from our own GPUs, which no model was trained on).
 */
enum pred_distance pred_distance_of(const struct predictor *p, const struct gpu_spec *origin,
				    const struct gpu_spec *target)
{
	if (origin)
		return pred_distance_between(origin, target);
	const struct tile_picks *pk = p ? tile_model_picks(predictor_tile(p)) : NULL;
	enum pred_distance d = PRED_DIST_NEW_ARCH, e;
	for (int i = 0; pk && i < pk->n && d != PRED_DIST_SAME_DIE; i++)
		if (!pk->t[i].own && (e = pred_distance_between(pk->t[i].gpu, target)) < d)
			d = e;
	return d;
}

double interval_quantile(const struct interval_row *r, double prob)
{
	double x = prob <= 0 ? 0 : prob >= 1 ? IV_NQ - 1 : prob * (IV_NQ - 1);
	int i = (int)x;
	if (i >= IV_NQ - 1)
		return r->q[IV_NQ - 1];
	return r->q[i] + (x - i) * (r->q[i + 1] - r->q[i]);
}

static const struct interval_row *find(const struct interval_row *rows, size_t n, int method,
				       int cls, int d, int src)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].method == method && rows[i].cls == cls && rows[i].distance == d &&
		    rows[i].source == src && rows[i].n > 0)
			return &rows[i];
	return NULL;
}

const struct interval_row *interval_lookup(const struct interval_row *rows, size_t n,
					   enum pred_method method, enum interval_class cls,
					   enum pred_distance d, enum pred_source src)
{
	const struct interval_row *r = NULL;
	if (!rows) {
		rows = interval_table;
		n = interval_table_len;
	}
	/* the key, then farther distances; then any method of the class; an
	 * iteration then the other source's iterations; then every class
	 * pooled, this method first */
	const struct { int method, cls, src; } order[] = {
		{method, cls, src}, {PRED_AUTO, cls, src},
		{PRED_AUTO, cls == IV_CLASS_ITERATION ? (int)cls : -1, !src},
		{method, IV_CLASS_ANY, src}, {PRED_AUTO, IV_CLASS_ANY, src},
	};
	for (size_t o = 0; !r && o < sizeof order / sizeof order[0]; o++)
		for (int dd = d; !r && dd < PRED_DIST_COUNT; dd++)
			r = find(rows, n, order[o].method, order[o].cls, dd, order[o].src);
	return r;
}

int interval_table_saw(uint32_t cc)
{
	for (size_t i = 0; i < interval_table_narchs; i++)
		if (interval_table_archs[i] == cc)
			return 1;
	return 0;
}

enum pred_method interval_iteration_method(const double method_ns[PRED_METHOD_COUNT])
{
	double tc = method_ns[PRED_TCGEMM] + method_ns[PRED_ATTENTION];
	double other = method_ns[PRED_MLP] + method_ns[PRED_ROOFLINE] + method_ns[PRED_WAVE] +
		       method_ns[PRED_VECOP] + method_ns[PRED_CONV] + method_ns[PRED_ROWWISE];
	return tc > 0 && tc >= other ? PRED_TCGEMM : PRED_AUTO;
}

enum pred_method interval_method(enum pred_method asked, enum pred_method used)
{
	return asked == PRED_AUTO && used == PRED_MLP ? PRED_AUTO : used;
}

uint32_t interval_factors(const struct interval_row *rows, size_t n, enum pred_method method,
			  enum interval_class cls, enum pred_distance d, enum pred_source src,
			  double prob, double *lo, double *hi)
{
	if (method == PRED_IDENTITY)
		return interval_row_factors(NULL, prob, lo, hi);
	return interval_row_factors(interval_lookup(rows, n, method, cls, d, src), prob, lo, hi);
}

uint32_t interval_row_factors(const struct interval_row *r, double prob, double *lo, double *hi)
{
	*lo = *hi = 1;
	if (!r || !(prob > 0 && prob < 1))
		return 0;
	/* measured = predicted / exp(err): the high error quantile bounds
	 * the measured time from below */
	*lo = exp(-interval_quantile(r, (1 + prob) / 2));
	*hi = exp(-interval_quantile(r, (1 - prob) / 2));
	return r->n;
}

const char *pred_distance_name(enum pred_distance d)
{
	static const char *const names[PRED_DIST_COUNT] = {"same-die", "same-architecture",
							   "new-architecture"};
	return (unsigned)d < PRED_DIST_COUNT ? names[d] : "?";
}

const char *pred_source_name(enum pred_source s)
{
	return s == PRED_SRC_TRACE ? "trace" : s == PRED_SRC_CONFIG ? "config" : "?";
}

const char *interval_class_name(enum interval_class c)
{
	static const char *const names[IV_CLASS_COUNT] = {"gemm", "vector", "conv", "any",
							  "iteration"};
	return (unsigned)c < IV_CLASS_COUNT ? names[c] : "?";
}
