/*
 * interval.h - how far off a prediction can be: an interval around every
 * predicted time, from the errors the same method made on GPUs it had not
 * seen.
 *
 * The calibration table (interval_table.c, written by `make calibrate`
 * from the held-out runs of `make accuracy` and `make bench-e2e`) holds,
 * per method, kernel class, distance of the target from the data and
 * source of the prediction (a measured origin time or the shape alone),
 * the quantiles of log(predicted / measured) over held-out predictions,
 * every one of them made with the target's whole architecture left out of
 * every fit (tools/lab/calibrate.c: the architectures' errors mixed, each
 * architecture alike, and widened about their median by the factor that
 * made such a mixture of the others hold 80 % of each architecture's
 * errors in turn, so a new architecture's bias beyond those seen is
 * inside as often as it was for them).  An interval with probability P
 * is the measured time's range that those quantiles give:
 * [pred / exp(q((1+P)/2)), pred / exp(q((1-P)/2))].
 *
 * A key the table lacks takes the nearest one that exists, always a wider
 * or equally wide kind of error: the next farther distance (the held-out
 * data of a nearer distance are FP32 GEMMs of DeepBench's boards of one
 * die, from a trace: no other class, no other source), then any method of
 * the class, then every class pooled.  The calibration is
 * checked by the coverage its own generator reports (each architecture's
 * rows against quantiles of the others'): docs/model.md.
 */
#ifndef SURFER_INTERVAL_H
#define SURFER_INTERVAL_H

#include <stddef.h>
#include <stdint.h>

#include "gpu_specs/gpu.h"
#include "predictor/predict.h"

/* How far the target is from the GPUs the prediction knows: the origin of
 * a trace, or from a config the GPUs the models learnt from
 * (gpu_specs/die.h). */
enum pred_distance {
	PRED_DIST_SAME_DIE = 0,   /* the same GPU, or a board of its die       */
	PRED_DIST_SAME_ARCH,      /* another die of the same compute capability */
	PRED_DIST_NEW_ARCH,       /* a compute capability none of them has      */
	PRED_DIST_COUNT
};

/* What the prediction started from. */
enum pred_source {
	PRED_SRC_TRACE = 0,       /* a measured origin time (a recorded trace) */
	PRED_SRC_CONFIG,          /* the shape alone (a model config)          */
	PRED_SRC_COUNT
};

/* The kernel classes of the table, and the whole iteration. */
enum interval_class {
	IV_CLASS_GEMM = 0,        /* GEMMs (linear, matmul, bmm)               */
	IV_CLASS_VECTOR,          /* elementwise, softmax, norm, reduction     */
	IV_CLASS_CONV,            /* convolutions                              */
	IV_CLASS_ANY,             /* every class pooled (and other kernels)    */
	IV_CLASS_ITERATION,       /* a whole iteration                         */
	IV_CLASS_COUNT
};

/* Quantiles per row: of probability 0, 1/40, 2/40, ..., 1. */
#define IV_NQ 41

/* One key of the calibration table.  method PRED_AUTO: every method
 * pooled (what `auto` did). */
struct interval_row {
	uint8_t method;           /* enum pred_method                          */
	uint8_t cls;              /* enum interval_class                       */
	uint8_t distance;         /* enum pred_distance                        */
	uint8_t source;           /* enum pred_source                          */
	uint32_t n;               /* held-out predictions behind it            */
	float q[IV_NQ];           /* quantiles of log(predicted / measured)    */
};

/* The committed table (interval_table.c) and its number of rows. */
extern const struct interval_row interval_table[];
extern const size_t interval_table_len;

/* The architectures (compute capabilities; AMD's gfx targets as
 * GPU_CC_AMD + the target) whose held-out errors the committed table's
 * new-architecture rows hold, ascending. */
extern const uint32_t interval_table_archs[];
extern const size_t interval_table_narchs;

/* 1 when the committed table holds errors of cc's architecture: how often
 * its intervals hold that GPU's measured times is then an in-sample
 * figure (surfer-bench calibrate gives the held-out one). */
int interval_table_saw(uint32_t cc);

/* The interval probability used when none is asked for. */
#define IV_DEFAULT_P 0.8

/* The class of a kernel of operator op. */
enum interval_class interval_class_of(enum pred_op op);

/* The method whose held-out errors the interval of a prediction takes,
 * asked the method asked for and used the one predict_kernel() reported:
 * auto's own rows where auto took the tile model, whose ratio it pulls
 * toward the model's time on the target across architectures (that
 * prediction is not the plain mlp ratio whose errors the mlp rows hold:
 * those reach +92 % of a GEMM from a trace where auto's reach +34 %; auto's
 * dumps hold the pulled ones), else the used method's (a tensor-core GEMM
 * its model's, a fallback to wave its own; a convolution or a row-wise
 * kernel, whose methods have no rows, auto's through the lookup's
 * fallback). */
enum pred_method interval_method(enum pred_method asked, enum pred_method used);

/* The method key of a whole iteration's interval, from its kernel time
 * by method (analysis_target's method_ns): PRED_TCGEMM when the
 * tensor-core models (tcgemm, and attention, whose main loop is theirs)
 * predicted at least as much of it as the other kernel models (the tile
 * model, roofline, wave scaling, the vector-op and convolution models),
 * else PRED_AUTO.  The collectives and the measured kernels of identity
 * count on neither side.  Why two keys: the two kinds of iteration miss
 * differently.  NeuSight's FP32 eager iterations, whose time the tile
 * model sets, come out fast on a new architecture (the table's iteration
 * row held -9 .. +23 % of the prediction); the BF16 iterations of the
 * serving engines and training stacks, set by the tensor-core GEMM model,
 * miss either way (PipeWeave's SGLang prefills, each architecture held
 * out: -17 .. +38 %), and under the first row's interval their prefills
 * were held 61 % of the time, every miss below it (make bench-serving). */
enum pred_method interval_iteration_method(const double method_ns[PRED_METHOD_COUNT]);

/* The distance of b from a: PRED_DIST_NEW_ARCH when either is NULL. */
enum pred_distance pred_distance_between(const struct gpu_spec *a, const struct gpu_spec *b);

/* How far target is from what a prediction by p knows: from origin (the
 * GPU a trace was measured on) when there is one, else (from a config)
 * from the nearest of the GPUs p's tile model learnt from (those of its
 * tile-pick tables: every GPU with GEMM rows in its training data; p
 * NULL: none). */
enum pred_distance pred_distance_of(const struct predictor *p, const struct gpu_spec *origin,
				    const struct gpu_spec *target);

/* The row of the table rows (NULL: the committed table) of n rows that a
 * prediction by method of class cls at distance d from source src takes:
 * its key, else the fallbacks interval_factors() describes; NULL when
 * none applies.  The row's distance says what held-out data it came
 * from (a farther one than d where d has too few). */
const struct interval_row *interval_lookup(const struct interval_row *rows, size_t n,
					   enum pred_method method, enum interval_class cls,
					   enum pred_distance d, enum pred_source src);

/* The factors lo <= 1 <= hi (usually) that multiply a prediction made by
 * method for a kernel of class cls into the bounds of its interval of
 * probability prob (0 < prob < 1), from table rows (NULL: the committed
 * table) of n rows.  PRED_IDENTITY gives 1 and 1: the measured time
 * itself.  Returns the number of held-out predictions behind the row
 * used, 0 when no row applies (then lo = hi = 1). */
uint32_t interval_factors(const struct interval_row *rows, size_t n, enum pred_method method,
			  enum interval_class cls, enum pred_distance d, enum pred_source src,
			  double prob, double *lo, double *hi);

/* The same factors from row r, the one interval_lookup() gave (NULL: none
 * applies, lo = hi = 1): for a caller that wants the row too. */
uint32_t interval_row_factors(const struct interval_row *r, double prob, double *lo, double *hi);

/* The quantile of probability prob (0..1) of a row, interpolated. */
double interval_quantile(const struct interval_row *r, double prob);

const char *pred_distance_name(enum pred_distance d);
const char *pred_source_name(enum pred_source s);
const char *interval_class_name(enum interval_class c);

#endif
