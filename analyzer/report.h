/*
 * report.h - formats an analysis: the text report (fits 100 columns) and the
 * JSON document.  Reports only format what the analysis computed.
 */
#ifndef SURFER_REPORT_H
#define SURFER_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "analyzer/analyze.h"

/* What a run built from a model configuration (--model) knows beside its
 * analysis: the builder's estimates, which no trace carries.  Every report
 * takes NULL for a trace. */
struct report_model {
	/* the estimated device memory of one GPU (model.h's struct
	 * model_memory), bytes; peak 0 unknown */
	struct {
		double peak, weights, gradients, optimizer, activations, kv_cache, transient;
	} memory;
	double tokens_per_iteration;  /* tokens an iteration processes (all
				       * data-parallel ranks; a decode step: one per
				       * sequence); 0 unknown                       */
	uint32_t gpus;                /* GPUs one iteration runs on (dp x tp x pp),
				       * each at the target's price; 0 = 1          */
	uint32_t *max_batch_fits;     /* per target of the analysis: the largest
				       * batch whose estimated memory fits it, 0
				       * none; NULL unknown (owned: free with
				       * report_model_free)                        */
	/* --mode serve, per target (NULL otherwise; owned): time to first
	 * token, and the mean and median time per output token (decode
	 * step), ns */
	double *ttft_ns, *tpot_mean_ns, *tpot_median_ns;
	/* their intervals (analysis_target's probability): the prefill's, and
	 * the mean of the decode steps' ends (a model's error moves every
	 * step of one run alike, as it moves every kernel of an iteration) */
	double *ttft_low_ns, *ttft_high_ns, *tpot_low_ns, *tpot_high_ns;
	/* --mode serve, per target: the median and 90th percentile of the
	 * requests' end-to-end latencies (the time to first token and the
	 * request's own decode steps), ns */
	double *latency_median_ns, *latency_p90_ns;
};

/* Frees what m owns (not m); m may be NULL. */
void report_model_free(struct report_model *m);

/* A readable short form of a kernel name: Itanium-mangled names are
 * demangled; the kernel's name without its namespaces and, of its template
 * arguments, the one that tells its instances apart (the functor:
 * "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEE..."
 * -> "vectorized_elementwise_kernel<FillFunctor>"; "<...>" when every
 * argument is a type or a number); the result is cut to width characters
 * (the kernel's name before the functor, else ending in "...") and always
 * NUL-terminated. */
void report_short_name(const char *name, char *out, size_t width);

/* Writes the text report of a (top groups per target; m: a model run's
 * estimates, NULL for a trace) to f, with ANSI
 * colours (bold headings, faster in green, slower in red) when color is
 * nonzero.  Returns 0, or -1 when writing failed. */
int report_text(FILE *f, const struct analysis *a, const struct report_model *m, size_t top,
		int color);

/* The cost of target t at its price_usd_per_hour for each of m's gpus (m
 * NULL: one GPU): USD per iteration and per million iterations.  Returns 0, or -1 (outputs 0) when t has no
 * price. */
int report_cost(const struct analysis_target *t, const struct report_model *m,
		double *per_iteration_usd,
		double *per_million_usd);

/* What the words of a report mean: a term and its explanation. */
struct report_legend_item {
	const char *term;
	const char *text;
};

/* The legend the text report prints under the targets and the HTML report
 * under its tables, n items; traces 0 leaves out what only a trace has
 * (the measured time, identity and wave), for --model runs. */
const struct report_legend_item *report_legend(int traces, size_t *n);

/* The one-line verdict on target t, into out (empty when none): when the
 * target's kernels are predicted much faster than the measured ones (at
 * most 0.67 of their time) but the iteration within 10 % of the measured
 * one, what holds it: "CPU-bound: the GPU waits on the CPU 78% of the
 * time", or the waits and copies.  Traces only. */
void report_verdict(const struct analysis *a, const struct analysis_target *t, char *out,
		    size_t cap);

/* The version of the JSON document's layout (its "schema_version"):
 * raised when a key changes meaning or goes (docs/analyzer.md). */
#define REPORT_SCHEMA_VERSION 2

/* USD in fixed notation with three significant digits and at least two
 * decimals ("0.0000123", "1.46", "1234.57"); "-" when not finite. */
void report_usd(double usd, char *out, size_t cap);

/* An interval in milliseconds, "low-high", each with four significant
 * digits as %.4g writes them but never in exponent form: from 1000 ms on,
 * whole milliseconds ("9021-11290", not "9021-1.129e+04"). */
void report_interval(double low_ms, double high_ms, char *out, size_t cap);

/* Writes one line per target to f, sorted: by the predicted iteration time
 * (by_cost 0, fastest first) or by the cost (by_cost 1: per million tokens
 * where the tokens are known, else per iteration; cheapest first, targets
 * without a price last).  Each line: target, predicted ms, the ratio to
 * the measured time (traces), USD per iteration and per million tokens
 * when priced.  Returns 0, -1 when writing failed or out of memory. */
int report_rank(FILE *f, const struct analysis *a, const struct report_model *m, int by_cost);

/* Tokens per second of target t (m's tokens_per_iteration over the
 * predicted iteration), 0 when unknown (m NULL: a trace). */
double report_tokens_per_s(const struct analysis_target *t, const struct report_model *m);

/* Builds the JSON document {"origin": {...}, "predictions": [...]} with the
 * top groups of each target in "breakdown" (top 0 = all) and m's estimates
 * (m NULL for a trace).  The caller owns
 * the result (json_decref); NULL on allocation failure. */
json_t *report_json(const struct analysis *a, const struct report_model *m, size_t top);

/* The machine whose links a prediction's collectives were timed on
 * (gpu_system_for()), as the reports say it: in words into out (its
 * systems.csv id, GPUs a node, NVLink domain, NICs a node with their rate
 * and kind; cut to cap, NUL-terminated), and as the JSON object "system"
 * (id, gpus_per_node, nvlink_domain, nvls, nics_per_node, nic_gbit,
 * network; NULL on allocation failure). */
void report_system(const struct gpu_system *s, char *out, size_t cap);
json_t *report_system_json(const struct gpu_system *s);

/* Nanoseconds as milliseconds, and part as a percentage of whole (0 when
 * whole is not positive): the units of every report and export. */
double report_ms(double ns);
double report_pct(double part, double whole);

/* Writes report_json(a, m, top) to f, indented, with a final newline. */
int report_json_write(FILE *f, const struct analysis *a, const struct report_model *m, size_t top);

#endif
