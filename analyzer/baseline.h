/*
 * baseline.h - the CI gate: save an analysis's predictions as a JSON
 * baseline file, and compare a new analysis with one.
 */
#ifndef SURFER_BASELINE_H
#define SURFER_BASELINE_H

#include <stddef.h>
#include <stdio.h>

#include "analyzer/analyze.h"
#include "analyzer/report.h"

#define BASELINE_TOP_GROWERS 5

/* A kernel (name group) whose predicted time grew. */
struct baseline_grower {
	const char *name;             /* points into the analysis                 */
	double base_ms, cur_ms;       /* per iteration; base 0 = new kernel        */
};

/* The comparison of one target. */
struct baseline_verdict {
	const char *target;           /* GPU id (points into the GPU table)       */
	double base_ms, cur_ms;       /* predicted iteration times                */
	double growth_pct;            /* (cur - base) / base * 100                */
	double limit_pct;             /* the growth allowed: max_regression_pct, or
				       * with BASELINE_AUTO the top of the
				       * baseline's interval over its prediction   */
	int regressed;                /* growth_pct > limit_pct                   */
	struct baseline_grower growers[BASELINE_TOP_GROWERS]; /* most growth first */
	size_t ngrowers;
};

/* Writes the baseline of a (every target, every kernel group; m: a model
 * run's estimates, NULL for a trace) to path.
 * Returns 0, or SURFER_EIO (cannot write) or SURFER_ENOMEM with a reason
 * in err. */
int baseline_save(const struct analysis *a, const struct report_model *m, const char *path,
		  char *err, size_t errlen);

/* max_regression_pct meaning "auto" (--max-regression auto): a target
 * regresses when its prediction grew beyond the top of the baseline's
 * interval (its iteration_ms_high; a baseline written before intervals
 * existed: the top of the new prediction's interval, relative to it). */
#define BASELINE_AUTO (-1.0)

/* Whether the file at path is a baseline the gate can read: 0, or
 * SURFER_EINVAL with a reason in err.  Checked before the analysis, so
 * that a bad --baseline is refused before any report is printed. */
int baseline_check(const char *path, char *err, size_t errlen);

/* Compares a with the baseline at path, target by target (targets missing
 * from either side are skipped).  Fills out[0..max) and *nout.  Returns 1
 * when some target regressed by more than max_regression_pct (or with
 * BASELINE_AUTO beyond its interval), 0 when none did, SURFER_EINVAL with
 * a reason in err when the file is unreadable or not a baseline or shares
 * no target with a, SURFER_ENOMEM. */
int baseline_compare(const struct analysis *a, const char *path, double max_regression_pct,
		     struct baseline_verdict *out, size_t max, size_t *nout,
		     char *err, size_t errlen);

/* Writes one "gate" line per verdict to f (with its limit, and ANSI
 * colours when color is nonzero), and under a regressed target its
 * kernels that grew most. */
void baseline_print(FILE *f, const struct baseline_verdict *v, size_t n, int color);

#endif
