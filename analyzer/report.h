/*
 * report.h - formats an analysis: the text report (fits 100 columns) and the
 * JSON document.  Reports only format what the analysis computed.
 */
#ifndef SURFER_REPORT_H
#define SURFER_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "analyzer/analyze.h"

/* What a run built from a model configuration (--model) adds to its
 * analysis: the builder's estimates, which no trace carries.  The reports
 * take NULL for a trace. */
struct report_model {
	/* the estimated device memory of one GPU (model.h's struct
	 * model_memory), bytes; peak 0 unknown */
	struct {
		double peak, weights, gradients, optimizer, activations, kv_cache, transient;
	} memory;
	double tokens_per_iteration;  /* tokens an iteration processes (all
				       * data-parallel ranks; a decode step: one per
				       * sequence); 0 unknown                       */
	uint32_t *max_batch_fits;     /* per target of the analysis: the largest
				       * batch whose estimated memory fits it, 0
				       * none; NULL unknown (malloc'd, the owner
				       * frees it)                                 */
};

/* A readable short form of a kernel name: Itanium-mangled names become
 * their qualified name ("_ZN2at6native18elementwise_kernelILi4E..." ->
 * "at::native::elementwise_kernel<...>"), others are copied; the result is
 * cut to width characters (ending in "...") and always NUL-terminated. */
void report_short_name(const char *name, char *out, size_t width);

/* Writes the text report of a (top groups per target; m: a model run's
 * estimates, NULL for a trace) to f, with ANSI colours (bold headings,
 * faster in green, slower in red) when color is nonzero.  Returns 0, or -1
 * when writing failed. */
int report_text(FILE *f, const struct analysis *a, const struct report_model *m, size_t top,
		int color);

/* The cost of target t at its price_usd_per_hour: USD per iteration and
 * per million iterations.  Returns 0, or -1 (outputs 0) when t has no
 * price. */
int report_cost(const struct analysis_target *t, double *per_iteration_usd,
		double *per_million_usd);

/* Tokens per second of target t at tokens_per_iteration, 0 when either is
 * unknown. */
double report_tokens_per_s(const struct analysis_target *t, double tokens_per_iteration);

/* Builds the JSON document {"origin": {...}, "predictions": [...]} with the
 * top groups of each target in "breakdown" (top 0 = all) and m's estimates
 * (m NULL for a trace).  The caller owns the result (json_decref); NULL on
 * allocation failure. */
json_t *report_json(const struct analysis *a, const struct report_model *m, size_t top);

/* Nanoseconds as milliseconds, and part as a percentage of whole (0 when
 * whole is not positive): the units of every report and export. */
double report_ms(double ns);
double report_pct(double part, double whole);

/* Writes report_json(a, m, top) to f, indented, with a final newline. */
int report_json_write(FILE *f, const struct analysis *a, const struct report_model *m, size_t top);

#endif
