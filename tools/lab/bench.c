/*
 * bench.c - surfer-bench: the accuracy harness.
 *
 *   surfer-bench accuracy --dataset PATH --origin GPU|none --target GPU
 *                [--format F] [--op OP] [--method M|all] [--weights FILE] [--json]
 *   surfer-bench table REPORT.json...
 *
 * Pairs the rows of the origin and target GPUs by operator, dtype and
 * shape (NeuSight's layout, or PipeWeave's, Vidur's or DeepBench's with
 * --format: neusight.h), builds from each origin row the kernel record the recorder would
 * have produced, predicts the target with predict_kernel() (the code
 * surfer-analyze runs) and compares with the target's measured time, the
 * only thing of the target row the prediction is checked against.  Naive
 * baselines (bandwidth ratio, FLOP/s ratio) run in the same command with
 * --method all, next to the roofline ratio, wave scaling, the tile model and
 * auto.
 */
#include "tools/lab/bench_args.h"
#include "analyzer/optfail.h"
#include "trace/surfer_err.h"
#include "tools/lab/bench_e2e.h"
#include "tools/lab/bench_published.h"
#include "tools/lab/profile.h"
#include "tools/lab/bench_power.h"
#include "tools/lab/bench_conv.h"
#include "tools/lab/bench_conv_train.h"
#include "tools/lab/bench_serving.h"
#include "tools/lab/bench_own.h"
#include "tools/lab/bench_cpu.h"
#include "tools/lab/bench_tc.h"
#include "tools/lab/bench_vec.h"
#include "tools/lab/bench_rowwise.h"
#include "predictor/rowwise.h"
#include "tools/lab/bench_tile_scale.h"
#include "tools/lab/calibrate.h"
#include "tools/lab/bench_figures.h"
#include "gpu_specs/figures.h"
#include "predictor/conv.h"
#include "predictor/interval.h"
#include "predictor/predict.h"
#include "predictor/tile.h"
#include "tools/lab/neusight.h"

#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PROG "surfer-bench"

/* A method column: a predict_kernel() method, or a naive baseline. */
enum bench_method {
	BM_BW = 0,      /* T_o * bandwidth_o / bandwidth_t         */
	BM_FLOPS,       /* T_o * peak_o / peak_t (the kernel's dtype) */
	BM_ROOFLINE,    /* predict_kernel(PRED_ROOFLINE)            */
	BM_WAVE,        /* predict_kernel(PRED_WAVE)                */
	BM_MLP,         /* predict_kernel(PRED_MLP)                 */
	BM_AUTO,        /* predict_kernel(PRED_AUTO)                */
	BM_COUNT
};
static const char *const bm_names[BM_COUNT] = {"bw-ratio", "flops-ratio", "roofline", "wave",
					       "mlp", "auto"};
static const int bm_needs_origin[BM_COUNT] = {1, 1, 0, 1, 0, 0};

struct opts {
	const char *dataset, *op, *weights;
	enum ns_format format;
	const struct gpu_spec *origin, *target;
	int methods[BM_COUNT];
	int json;
	int as_recorded;    /* elementwise rows without their shape      */
	const char *dump;   /* per-pair predictions as CSV, or NULL */
	double interval;    /* the intervals' probability (0..1)          */
	int figures_held_out; /* --hold-out-figures                      */
	const struct predictor *pred;
};

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: " PROG " accuracy --dataset PATH --origin GPU|none --target GPU\n"
		"                    [--format neusight|pipeweave|vidur|deepbench]\n"
		"                    [--op OP] [--method M|all] [--weights FILE] [--json]\n"
		"                    [--heldout-rowwise DIR] (the row-wise model fitted on DIR's\n"
		"                    layer-norm and softmax rows of other architectures)\n"
		"                    [--dump FILE.csv] [--as-recorded] [--heldout-conv]\n"
		"                    [--shrink GEMM,VECTOR] [--interval P] [--hold-out-figures]\n"
		"                    (the figures measured on the target's architecture, our\n"
		"                    own GPUs' and public microbenchmarks', are used as\n"
		"                    surfer-analyze uses them; --hold-out-figures leaves them\n"
		"                    out, as for a new architecture: make accuracy's protocol)\n"
		"                    [--no-host-floor] (no NeuSight host floor in the\n"
		"                    predictions: rows timed back to back, tools/gpu/sweep.py's)\n"
		"       " PROG " table REPORT.json...   (markdown tables of accuracy reports)\n"
		"       " PROG " e2e --labels DIR --configs DIR [--weights F | --holdout-weights DIR]\n"
		"                        [--dtype D] [--attention eager|sdpa] [--data DIR]\n"
		"       " PROG " comm DIR...            (collective times vs NCCL measurements)\n"
		"       " PROG " tensorcore --data DIR  (tensor-core GEMM model, held out per GPU)\n"
		"                        (e2e, tensorcore, serving, own: --own DIR|none, our own\n"
		"                        GEMMs DIR/<GPU>/ours/gemm.csv in the tensor-core fits\n"
		"                        too; data is the repository's; default none)\n"
		"       " PROG " vec --data DIR [--emit] (16-bit vector-op model, A100 <-> A40 held out)\n"
		"       " PROG " rowwise --data DIR [--own DIR|none] [--holdout-weights DIR] [--emit]\n"
		"                        (FP32 layer norm and softmax, architectures held out)\n"
		"       " PROG " conv --data PATH [--target GPU] [--origin GPU] [--emit [--gpu GPU]]\n"
		"                        [--emit-picks --gpu GPU]\n"
		"                        [--dump F] (convolution model, architectures held out)\n"
		"       " PROG " conv-train --data DIR [--target GPU] [--dump F]\n"
		"                        (the same on DeepBench's forward and backward passes)\n"
		"       " PROG " tile-scale --data PATH --gpu GPU (Hopper's FP32 GEMM tile scales,\n"
		"                        printed as predictor/tile_sm90_scale.c)\n"
		"       " PROG " power --data DIR       (FP32 power cap vs measured FMA runs)\n"
		"       " PROG " published --data DIR [--before] (published training step times)\n"
		"       " PROG " serving --data DIR [--dump F] (SGLang engine vs PipeWeave's runs;\n"
		"                                          F: each prefill and decode step held out,\n"
		"                                          an e2e dump for calibrate)\n"
		"       " PROG " own --dataset DIR [--data DIR] [--gpu GPU] [--rows]\n"
		"                                          (our own kernels.py measurements of a GPU,\n"
		"                                          its architecture held out)\n"
		"       " PROG " cpu --data DIR         (CPU issue cost per op class, Kineto traces)\n"
		"       " PROG " profile --labels DIR [--emit] (per-operator profiles vs the tile model;\n"
		"                                          the AMD scale)\n"
		"       " PROG " calibrate [--emit] [--interval P] [--weigh rows|groups] DIR|FILE.csv...\n"
		"                                          (the interval table from held-out dumps,\n"
		"                                          and its coverage)\n"
		"       " PROG " figures [--data DIR]  (every GPU's achievable figures, their provenance,\n"
		"                                          the rules checked held out)\n"
		"       " PROG " --version\n"
		"methods: bw-ratio flops-ratio roofline wave mlp auto (default auto), all\n");
}

/* Predicts one pair with method m; <= 0 when the method cannot.  *used:
 * the method that predicted it (a naive ratio: PRED_METHOD_COUNT, none of
 * surfer's, without an interval). */
static double predict_one(const struct predictor *p, int m, const struct pred_kernel *k,
			  const struct gpu_spec *o, const struct gpu_spec *t, enum pred_method *used)
{
	static const enum pred_method map[BM_COUNT] = {
		[BM_ROOFLINE] = PRED_ROOFLINE, [BM_WAVE] = PRED_WAVE,
		[BM_MLP] = PRED_MLP, [BM_AUTO] = PRED_AUTO,
	};
	*used = PRED_METHOD_COUNT;
	if (m == BM_BW)
		return k->origin_ns * o->mem_bw_gbps / t->mem_bw_gbps;
	if (m == BM_FLOPS)
		return o->peak_tflops[k->dtype] > 0 && t->peak_tflops[k->dtype] > 0
			? k->origin_ns * o->peak_tflops[k->dtype] / t->peak_tflops[k->dtype] : -1;
	struct pred_result r;
	if (predict_kernel(p, k, o, t, map[m], &r) != 0)
		return -1;
	*used = r.method;
	return r.ns;
}

/* Per-operator and grouped statistics of one method. */
struct opstat {
	const char *op;
	double *ape;
	size_t n, failed;
};

static int is_gemm_op(const char *op) { return ns_op_class(op) == PRED_OP_GEMM; }

static json_t *stats_json(const char *key, const char *name, double *ape, size_t n)
{
	struct ns_stats s;
	ns_stats_compute(ape, n, &s);
	return json_pack("{s:s, s:I, s:f, s:f, s:f}", key, name, "n", (json_int_t)s.n,
			 "mape", s.mape, "median_ape", s.median, "p90_ape", s.p90);
}

/* One line of the text report: a method's statistics (stats_json's object)
 * for one operator, group or the whole. */
static void print_stats(const char *method, const char *what, const json_t *e)
{
	printf("%-12s %-11s %6lld %8.2f %8.2f %8.2f\n", method, what,
	       (long long)json_integer_value(json_object_get(e, "n")),
	       json_real_value(json_object_get(e, "mape")),
	       json_real_value(json_object_get(e, "median_ape")),
	       json_real_value(json_object_get(e, "p90_ape")));
}

static int run_accuracy(const struct opts *o)
{
	struct ns_set set;
	char err[512];
	memset(&set, 0, sizeof set);
	if (ns_load_format(&set, o->dataset, o->format, o->target, o->origin, err, sizeof err) != 0) {
		fprintf(stderr, PROG ": cannot load dataset: %s\n", err);
		ns_release(&set);
		return surfer_exit_code(SURFER_EINVAL);
	}
	struct ns_pair *pairs;
	size_t np;
	if (ns_pairs(&set, o->origin, o->target, o->op, &pairs, &np) != 0) {
		fprintf(stderr, PROG ": out of memory\n");
		ns_release(&set);
		return surfer_exit_code(SURFER_ENOMEM);
	}
	/* no pair: the wrong layout, folder or GPU name, not an accuracy of 0 */
	if (np == 0) {
		if (o->origin)
			fprintf(stderr, PROG ": '%s' has no %s%skernel measured on both %s and %s\n",
				o->dataset, o->op ? o->op : "", o->op ? " " : "", o->origin->id,
				o->target->id);
		else
			fprintf(stderr, PROG ": '%s' has no %s%skernel measured on %s\n", o->dataset,
				o->op ? o->op : "", o->op ? " " : "", o->target->id);
		free(pairs);
		ns_release(&set);
		return surfer_exit_code(SURFER_EINVAL);
	}
	/* Operators, in order of first appearance among the pairs. */
	const char *ops[64];
	size_t nops = 0;
	for (size_t i = 0; i < np; i++) {
		const char *op = pairs[i].target->op;
		size_t j;
		for (j = 0; j < nops && ops[j] != op; j++)
			;
		if (j == nops && nops < 64)
			ops[nops++] = op;
	}
	json_t *root = json_object(), *methods = json_object();
	int rc = 0;
	FILE *dump = NULL;
	if (o->dump && !(dump = fopen(o->dump, "w"))) {
		fprintf(stderr, PROG ": cannot write '%s'\n", o->dump);
		free(pairs);
		ns_release(&set);
		json_decref(root);
		json_decref(methods);
		return surfer_exit_code(SURFER_EWRITE);
	}
	/* the distance the analyzer would give these predictions (interval.h):
	 * from the origin, or from the GPUs the weights learnt from */
	enum pred_distance dist_k = pred_distance_of(o->pred, o->origin, o->target);
	const char *dist = pred_distance_name(dist_k);
	enum pred_source iv_src = o->origin ? PRED_SRC_TRACE : PRED_SRC_CONFIG;
	if (dump)
		fprintf(dump, "method,op,dims,origin_ns,target_ns,predicted_ns,distance,low_ns,high_ns\n");
	for (int m = 0; m < BM_COUNT; m++) {
		if (!o->methods[m] || (bm_needs_origin[m] && !o->origin))
			continue;
		double *ape = malloc((np + 1) * sizeof *ape);
		double *grp = malloc((np + 1) * sizeof *grp);
		const char **pop = malloc((np + 1) * sizeof *pop);
		size_t na = 0, failed = 0;
		size_t iv_n = 0, iv_in = 0;   /* rows with an interval; holding
					       * the measured time           */
		if (!ape || !grp || !pop) {
			fprintf(stderr, PROG ": out of memory\n");
			return surfer_exit_code(SURFER_ENOMEM);
		}
		for (size_t i = 0; i < np; i++) {
			struct pred_kernel k;
			const struct ns_row *src = o->origin ? pairs[i].origin : pairs[i].target;
			/* From scratch, only the shape of the target row is used. */
			if (ns_kernel(src, o->origin != NULL, &k) != 0) {
				failed++;
				continue;
			}
			/* A trace knows a vector kernel by its name and launch alone:
			 * no library call gives its shape. */
			if (o->as_recorded && (k.op == PRED_OP_ELEMENTWISE || k.op == PRED_OP_SOFTMAX ||
					       k.op == PRED_OP_NORM)) {
				k.m = k.n = 0;
				k.flops = k.bytes = 0;
			}
			enum pred_method used;
			double pred = predict_one(o->pred, m, &k, o->origin, o->target, &used);
			double truth = pairs[i].target->latency_ms * 1e6;
			if (!(pred > 0) || !isfinite(pred)) {
				failed++;
				continue;
			}
			ape[na] = 100 * fabs(pred - truth) / truth;
			/* the interval surfer-analyze gives the kernel: its
			 * method's, class's, distance's and source's */
			double lo = 0, hi = 0;
			if (used < PRED_METHOD_COUNT &&
			    interval_factors(NULL, 0,
					     interval_method(m == BM_AUTO ? PRED_AUTO : used, used),
					     interval_class_of(k.op), dist_k, iv_src, o->interval, &lo,
					     &hi) > 0) {
				iv_n++;
				iv_in += truth >= pred * lo && truth <= pred * hi;
			} else {
				lo = hi = 0;
			}
			if (dump) {
				const struct ns_row *t = pairs[i].target;
				fprintf(dump, "%s,%s,", bm_names[m], t->op);
				for (unsigned d = 0; d < t->ndims; d++)
					fprintf(dump, "%s%llu", d ? "x" : "", (unsigned long long)t->dims[d]);
				fprintf(dump, ",%.1f,%.1f,%.1f,%s,", k.origin_ns, truth, pred, dist);
				if (hi > 0)
					fprintf(dump, "%.1f,%.1f\n", pred * lo, pred * hi);
				else
					fprintf(dump, ",\n");
			}
			pop[na++] = pairs[i].target->op;
		}
		json_t *arr = json_array(), *groups = json_array();
		for (size_t j = 0; j < nops; j++) {
			size_t c = 0;
			for (size_t i = 0; i < na; i++)
				if (pop[i] == ops[j])
					grp[c++] = ape[i];
			if (c)
				json_array_append_new(arr, stats_json("op", ops[j], grp, c));
		}
		for (int g = 0; g < 2; g++) {
			size_t c = 0;
			for (size_t i = 0; i < na; i++)
				if (is_gemm_op(pop[i]) == (g == 0) && ns_op_class(pop[i]) != PRED_OP_CONV)
					grp[c++] = ape[i];
			if (c)
				json_array_append_new(groups, stats_json("group", g ? "vector" : "gemm", grp, c));
		}
		json_t *mo = json_object();
		json_object_set_new(mo, "pairs", arr);
		json_object_set_new(mo, "groups", groups);
		json_t *ov = stats_json("method", bm_names[m], ape, na);
		json_object_set_new(ov, "failed", json_integer((json_int_t)failed));
		/* how often the interval held the measured time (on the
		 * calibration's own GPUs in-sample: make calibrate gives the
		 * held-out figure) */
		if (iv_n) {
			json_object_set_new(ov, "interval", json_real(o->interval * 100));
			json_object_set_new(ov, "interval_in_sample",
					    json_boolean(interval_table_saw(o->target->cc)));
			json_object_set_new(ov, "interval_n", json_integer((json_int_t)iv_n));
			json_object_set_new(ov, "interval_coverage",
					    json_real(100.0 * (double)iv_in / (double)iv_n));
		}
		json_object_set_new(mo, "overall", ov);
		json_object_set_new(methods, bm_names[m], mo);
		free(ape);
		free(grp);
		free(pop);
	}
	json_object_set_new(root, "origin", json_string(o->origin ? o->origin->id : "none"));
	json_object_set_new(root, "target", json_string(o->target->id));
	json_object_set_new(root, "figures_held_out", json_boolean(o->figures_held_out));
	/* With one method the report is flat: {"pairs", "overall", ...}. */
	int nm = 0;
	const char *only = NULL;
	json_t *v;
	json_object_foreach(methods, only, v)
		nm++;
	if (nm == 0) {
		fprintf(stderr, PROG ": no method can run without an origin\n");
		rc = surfer_exit_code(SURFER_EINVAL);
	} else if (nm == 1) {
		json_object_foreach(methods, only, v)
			json_object_update(root, v);
		json_object_set_new(root, "method", json_string(only));
	} else {
		json_object_set(root, "methods", methods);
	}
	if (rc == 0 && o->json) {
		char *s = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
		if (s)
			printf("%s\n", s);
		free(s);
	} else if (rc == 0) {
		char arch[16];
		gpu_cc_string(o->target->cc, arch, sizeof arch);
		printf("accuracy: origin %s -> target %s, %zu pairs (APE in %%); figures of its architecture (%s) %s\n",
		       o->origin ? o->origin->id : "none (from scratch)", o->target->id, np, arch,
		       o->figures_held_out ? "held out" : "used");
		printf("%-12s %-11s %6s %8s %8s %8s\n", "method", "op", "n", "mape", "median", "p90");
		json_object_foreach(methods, only, v) {
			size_t i;
			json_t *e;
			json_array_foreach(json_object_get(v, "pairs"), i, e)
				print_stats(only, json_string_value(json_object_get(e, "op")), e);
			json_array_foreach(json_object_get(v, "groups"), i, e)
				print_stats(only, json_string_value(json_object_get(e, "group")), e);
			json_t *ov = json_object_get(v, "overall");
			print_stats(only, "overall", ov);
			if (json_object_get(ov, "interval_n"))
				printf("%-12s %-11s %6lld the %.0f%% interval held the measured time in %.1f%%%s\n",
				       only, "interval",
				       (long long)json_integer_value(json_object_get(ov, "interval_n")),
				       json_real_value(json_object_get(ov, "interval")),
				       json_real_value(json_object_get(ov, "interval_coverage")),
				       json_is_true(json_object_get(ov, "interval_in_sample"))
					       ? " (in-sample: the table holds the target architecture's errors)"
					       : "");
		}
	}
	json_decref(methods);
	json_decref(root);
	if (dump)
		fclose(dump);
	free(pairs);
	ns_release(&set);
	return rc;
}

/* ---- surfer-bench table: the README's accuracy table from the JSON
 * reports of `accuracy --method all --json` ------------------------------ */

static double group_mape(json_t *m, const char *key, const char *name)
{
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(m, key), i, e) {
		const char *g = json_string_value(json_object_get(e, key[0] == 'g' ? "group" : "op"));
		if (g && !strcmp(g, name))
			return json_real_value(json_object_get(e, "mape"));
	}
	return -1;
}

static void cell(double v)
{
	if (v < 0)
		printf(" - |");
	else
		printf(" %.1f |", v);
}

/* The header of a markdown table: first, origin, then one column per method. */
static void table_header(const char *first)
{
	printf("| %s | origin |", first);
	for (int m = 0; m < BM_COUNT; m++)
		printf(" %s |", bm_names[m]);
	printf("\n|---|---|");
	for (int m = 0; m < BM_COUNT; m++)
		printf("---|");
	printf("\n");
}

static int run_table(int nfiles, char **files)
{
	json_t *rep[256];
	int n = 0;
	for (int i = 0; i < nfiles && n < 256; i++) {
		json_error_t je;
		json_t *r = json_load_file(files[i], 0, &je);
		if (!r || !json_object_get(r, "methods")) {
			fprintf(stderr, PROG ": '%s': not an accuracy report of --method all --json\n",
				files[i]);
			json_decref(r);
			for (int j = 0; j < n; j++)
				json_decref(rep[j]);
			return surfer_exit_code(SURFER_EINVAL);
		}
		rep[n++] = r;
	}
	/* Table 1: each held-out target and origin, GEMM / vector MAPE. */
	table_header("held-out architecture: target");
	double sum[2][2][BM_COUNT] = {{{0}}};   /* [scratch][group][method] */
	int cnt[2][2][BM_COUNT] = {{{0}}};
	for (int i = 0; i < n; i++) {
		json_t *ms = json_object_get(rep[i], "methods");
		const char *org = json_string_value(json_object_get(rep[i], "origin"));
		int scratch = org && !strcmp(org, "none");
		const char *tid = json_string_value(json_object_get(rep[i], "target"));
		const struct gpu_spec *tg = tid ? gpu_find(tid) : NULL;
		char arch[16] = "?";
		if (tg)
			gpu_cc_string(tg->cc, arch, sizeof arch);
		printf("| %s: %s | %s |", arch, tid ? tid : "?", scratch ? "none (from scratch)" : org);
		for (int m = 0; m < BM_COUNT; m++) {
			json_t *mo = json_object_get(ms, bm_names[m]);
			double g = mo ? group_mape(mo, "groups", "gemm") : -1;
			double v = mo ? group_mape(mo, "groups", "vector") : -1;
			if (g < 0 && v < 0) {
				printf(" - |");
				continue;
			}
			printf(" %.1f / %.1f |", g, v);
			if (g >= 0) { sum[scratch][0][m] += g; cnt[scratch][0][m]++; }
			if (v >= 0) { sum[scratch][1][m] += v; cnt[scratch][1][m]++; }
		}
		printf("\n");
	}
	for (int sc = 0; sc < 2; sc++) {
		printf("| **mean** | %s |", sc ? "**from scratch**" : "**measured origin**");
		for (int m = 0; m < BM_COUNT; m++) {
			if (!cnt[sc][0][m] && !cnt[sc][1][m]) {
				printf(" - |");
				continue;
			}
			printf(" **%.1f / %.1f** |", cnt[sc][0][m] ? sum[sc][0][m] / cnt[sc][0][m] : 0,
			       cnt[sc][1][m] ? sum[sc][1][m] / cnt[sc][1][m] : 0);
		}
		printf("\n");
	}
	/* Table 2: per operator, mean MAPE over every (target, origin) pair. */
	const char *ops[64];
	int nops = 0;
	for (int i = 0; i < n; i++) {
		json_t *ms = json_object_get(rep[i], "methods"), *mo;
		const char *mn;
		json_object_foreach(ms, mn, mo) {
			size_t j;
			json_t *e;
			json_array_foreach(json_object_get(mo, "pairs"), j, e) {
				const char *op = json_string_value(json_object_get(e, "op"));
				int k;
				for (k = 0; k < nops && strcmp(ops[k], op); k++)
					;
				if (k == nops && nops < 64)
					ops[nops++] = op;
			}
		}
	}
	printf("\n");
	table_header("operator");
	for (int k = 0; k < nops; k++)
		for (int sc = 0; sc < 2; sc++) {
			printf("| %s | %s |", ops[k], sc ? "none" : "measured");
			for (int m = 0; m < BM_COUNT; m++) {
				double s = 0;
				int c = 0;
				for (int i = 0; i < n; i++) {
					const char *org = json_string_value(json_object_get(rep[i], "origin"));
					if ((org && !strcmp(org, "none")) != sc)
						continue;
					json_t *mo = json_object_get(json_object_get(rep[i], "methods"), bm_names[m]);
					double v = mo ? group_mape(mo, "pairs", ops[k]) : -1;
					if (v >= 0) { s += v; c++; }
				}
				cell(c ? s / c : -1);
			}
			printf("\n");
		}
	for (int i = 0; i < n; i++)
		json_decref(rep[i]);
	return 0;
}

static const struct gpu_spec *gpu_arg(const char *v)
{
	const struct gpu_spec *g = gpu_find(v);
	if (!g)
		fprintf(stderr, PROG ": unknown GPU '%s'\n", v);
	return g;
}

/* "G,V": the two exponents of struct pred_shrink, each in [0, 1]. */
static int parse_shrink(const char *v, struct pred_shrink *out)
{
	char *end;
	const char *p = v;
	double x[2];

	for (int i = 0; i < 2; i++) {
		x[i] = strtod(p, &end);
		if (end == p || !(x[i] >= 0 && x[i] <= 1) || *end != (i ? '\0' : ','))
			return -1;
		p = end + 1;
	}
	out->gemm = x[0];
	out->vector = x[1];
	return 0;
}

/* surfer-bench accuracy: the options checked, then run_accuracy(). */
static int accuracy_main(const struct bench_args *a)
{
	struct opts o;
	memset(&o, 0, sizeof o);
	if (a->help) {
		usage(stdout);
		return 0;
	}
	o.dataset = a->dataset;
	o.op = a->op;
	o.dump = a->dump;
	o.weights = a->weights;
	o.json = a->json;
	o.as_recorded = a->as_recorded;
	o.interval = IV_DEFAULT_P;
	if (a->interval) {
		char *end;
		o.interval = strtod(a->interval, &end) / 100;
		if (*end || !(o.interval > 0 && o.interval < 1)) {
			fprintf(stderr, PROG ": bad --interval '%s' (a percentage between 0 and 100)\n",
				a->interval);
			return surfer_exit_code(SURFER_EINVAL);
		}
	}
	if (a->format && ns_format_parse(a->format, &o.format) != 0) {
		fprintf(stderr, PROG ": unknown format '%s' (neusight, pipeweave, vidur, deepbench)\n",
			a->format);
		return surfer_exit_code(SURFER_EINVAL);
	}
	if (a->origin && strcmp(a->origin, "none") != 0 && !(o.origin = gpu_arg(a->origin)))
		return surfer_exit_code(SURFER_EINVAL);
	if (a->target && !(o.target = gpu_arg(a->target)))
		return surfer_exit_code(SURFER_EINVAL);
	/* The figures measured on the target's architecture (gpu_specs/
	 * figures.c: our own GPUs' FP32 GEMM rate, public microbenchmarks;
	 * the convolutions' shape constants of our H200) are what
	 * surfer-analyze predicts with, so the report is what its user gets;
	 * --hold-out-figures leaves them out with the architecture, the
	 * protocol of make accuracy and make bench-h100/h200, where the
	 * dataset is the GPUs those figures came from. */
	if (a->with_figures && a->hold_out_figures) {
		fprintf(stderr, PROG ": --with-figures and --hold-out-figures together\n");
		return surfer_exit_code(SURFER_EINVAL);
	}
	o.figures_held_out = a->hold_out_figures;
	if (o.target)
		gpu_figures_hold_out(a->hold_out_figures ? o.target->cc : 0);
	if (a->method) {
		const char *v = a->method;
		int all = !strcmp(v, "all"), found = all;
		for (int m = 0; m < BM_COUNT; m++)
			if (all || !strcmp(v, bm_names[m]) ||
			    (m == BM_BW && !strcmp(v, "bw")) || (m == BM_FLOPS && !strcmp(v, "flops"))) {
				o.methods[m] = 1;
				found = 1;
			}
		if (!found) {
			fprintf(stderr, PROG ": unknown method '%s'\n", v);
			return surfer_exit_code(SURFER_EINVAL);
		}
	} else {
		o.methods[BM_AUTO] = 1;
	}
	/* `auto`'s exponents across architectures (predict.h, struct
	 * pred_shrink): make accuracy gives each held-out architecture the
	 * ones fitted without it. */
	struct pred_shrink shrink = pred_shrink_default;
	if (a->shrink && parse_shrink(a->shrink, &shrink) != 0) {
		fprintf(stderr, PROG ": bad --shrink '%s': GEMM,VECTOR, each in [0, 1], is expected\n",
			a->shrink);
		return surfer_exit_code(SURFER_EINVAL);
	}
	if (!o.dataset || !a->origin || !o.target) {
		fprintf(stderr, PROG ": --dataset, --origin and --target are required\n");
		usage(stderr);
		return surfer_exit_code(SURFER_EINVAL);
	}
	if (o.origin == o.target) {
		fprintf(stderr, PROG ": origin and target are the same GPU\n");
		return surfer_exit_code(SURFER_EINVAL);
	}
	struct tile_model *tm = NULL;
	if (o.weights) {
		int rc = tile_model_load_file(o.weights, &tm);
		if (rc != 0) {
			fprintf(stderr, PROG ": cannot load weights '%s': %s\n", o.weights,
				rc == -2 ? "unreadable" : "not a tile-model weights file");
			return surfer_exit_code(SURFER_EINVAL);
		}
	}
	/* The convolution model's constants fitted without the target's
	 * architecture, on the dataset's convolutions of the other GPUs: the
	 * compiled-in ones saw every GPU of NeuSight's sweep. */
	struct conv_params conv = conv_default_params;
	if (a->heldout_conv) {
		char cerr[256];
		long nc = bench_conv_fit_heldout(o.dataset, o.target->cc, &conv, cerr, sizeof cerr);
		if (nc < 0) {
			fprintf(stderr, PROG ": --heldout-conv: '%s': %s\n", o.dataset, cerr);
			tile_model_free(tm);
			return surfer_exit_code(SURFER_EINVAL);
		}
	}
	/* NeuSight's op timings include the measuring host's floor: its
	 * CUDA events bracket each op as the host launches it, and no op
	 * comes in under 25-60 us (docs/tile-model.md, "Floor").  Our own
	 * GPUs' rows (tools/gpu/sweep.py) queue the calls back to back
	 * between their events, so the GPU waits on the host only where a
	 * call's kernels are shorter than the host's dispatch of it (a few
	 * us: the H200's element-wise operators sit 3-6 us above their
	 * bandwidth roofline, docs/accuracy.md): --no-host-floor predicts
	 * the kernels without a floor, as surfer-analyze does.  The
	 * origin's model time goes without it too, which moves nothing
	 * across architectures, where auto takes the target's shape time
	 * for vector operators and 0.95 of it for GEMMs
	 * (pred_shrink_default). */
	/* The row-wise model's constants fitted without the target's
	 * architecture on NeuSight's test shapes of the other GPUs: the
	 * compiled-in ones saw all five. */
	struct rowwise_params rw = rowwise_default_params;
	if (a->heldout_rowwise) {
		char rerr[256];
		if (bench_rowwise_fit_heldout(a->heldout_rowwise, o.target->cc, &rw, rerr,
					      sizeof rerr) != 0) {
			fprintf(stderr, PROG ": --heldout-rowwise: '%s': %s\n", a->heldout_rowwise, rerr);
			tile_model_free(tm);
			return surfer_exit_code(SURFER_EINVAL);
		}
	}
	struct pred_config pc = { .weights = o.weights, .tile = tm, .tile_floor = !a->no_host_floor,
				  .conv = &conv, .rowwise = &rw,
				  .shrink = &shrink };
	struct predictor *pred;
	char err[256];
	if (predictor_new(&pc, &pred, err, sizeof err) != 0) {
		fprintf(stderr, PROG ": %s\n", err);
		tile_model_free(tm);
		return surfer_exit_code(SURFER_EINVAL);
	}
	o.pred = pred;
	int rc = run_accuracy(&o);
	predictor_free(pred);
	tile_model_free(tm);
	return rc;
}

static int table_main(const struct bench_args *a)
{
	if (a->help) {
		usage(stdout);
		return 0;
	}
	return run_table(a->noperands, a->operands);
}

/* ---- the option table of every subcommand ------------------------------ */

enum bench_opt {
	BO_DATA, BO_LABELS, BO_CONFIGS, BO_GPU, BO_WEIGHTS, BO_HOLDOUT, BO_DUMP, BO_DATASET,
	BO_ORIGIN, BO_TARGET, BO_OP, BO_METHOD, BO_ATTENTION, BO_LAUNCH_US, BO_MIN_MS,
	BO_MIN_BYTES, BO_EMIT, BO_EMIT_PICKS, BO_ROWS, BO_JSON, BO_AS_RECORDED, BO_PER_DTYPE, BO_NO_POWER, BO_NO_FIGURES, BO_MAX_FORM, BO_MAMF,
	BO_COMPILED_AMD_SCALE, BO_FORMAT, BO_INTERVAL, BO_BEFORE, BO_HELDOUT_CONV, BO_HELDOUT_ROWWISE, BO_SHRINK, BO_GEMM_DATA,
	BO_COMPILED, BO_WEIGH, BO_DTYPE, BO_OWN, BO_WITH_FIGURES, BO_HOLD_OUT_FIGURES, BO_NO_HOST_FLOOR, BO_HELP, BO_COUNT
};
#define BO(x) (UINT64_C(1) << BO_##x)
#define BO_VAL 256        /* getopt_long's value of option i is BO_VAL + i */

static const struct option bench_long_opts[] = {
	{"data", required_argument, NULL, BO_VAL + BO_DATA},
	{"labels", required_argument, NULL, BO_VAL + BO_LABELS},
	{"configs", required_argument, NULL, BO_VAL + BO_CONFIGS},
	{"gpu", required_argument, NULL, BO_VAL + BO_GPU},
	{"weights", required_argument, NULL, BO_VAL + BO_WEIGHTS},
	{"holdout-weights", required_argument, NULL, BO_VAL + BO_HOLDOUT},
	{"dump", required_argument, NULL, BO_VAL + BO_DUMP},
	{"dataset", required_argument, NULL, BO_VAL + BO_DATASET},
	{"origin", required_argument, NULL, BO_VAL + BO_ORIGIN},
	{"target", required_argument, NULL, BO_VAL + BO_TARGET},
	{"op", required_argument, NULL, BO_VAL + BO_OP},
	{"method", required_argument, NULL, BO_VAL + BO_METHOD},
	{"attention", required_argument, NULL, BO_VAL + BO_ATTENTION},
	{"launch-us", required_argument, NULL, BO_VAL + BO_LAUNCH_US},
	{"min-ms", required_argument, NULL, BO_VAL + BO_MIN_MS},
	{"min-bytes", required_argument, NULL, BO_VAL + BO_MIN_BYTES},
	{"emit", no_argument, NULL, BO_VAL + BO_EMIT},
	{"emit-picks", no_argument, NULL, BO_VAL + BO_EMIT_PICKS},
	{"rows", no_argument, NULL, BO_VAL + BO_ROWS},
	{"json", no_argument, NULL, BO_VAL + BO_JSON},
	{"as-recorded", no_argument, NULL, BO_VAL + BO_AS_RECORDED},
	{"per-dtype", no_argument, NULL, BO_VAL + BO_PER_DTYPE},
	{"no-power", no_argument, NULL, BO_VAL + BO_NO_POWER},
	{"no-figures", no_argument, NULL, BO_VAL + BO_NO_FIGURES},
	{"max-form", no_argument, NULL, BO_VAL + BO_MAX_FORM},
	{"mamf", no_argument, NULL, BO_VAL + BO_MAMF},
	{"compiled-amd-scale", no_argument, NULL, BO_VAL + BO_COMPILED_AMD_SCALE},
	{"format", required_argument, NULL, BO_VAL + BO_FORMAT},
	{"interval", required_argument, NULL, BO_VAL + BO_INTERVAL},
	{"before", no_argument, NULL, BO_VAL + BO_BEFORE},
	{"heldout-conv", no_argument, NULL, BO_VAL + BO_HELDOUT_CONV},
	{"heldout-rowwise", required_argument, NULL, BO_VAL + BO_HELDOUT_ROWWISE},
	{"shrink", required_argument, NULL, BO_VAL + BO_SHRINK},
	{"gemm-data", required_argument, NULL, BO_VAL + BO_GEMM_DATA},
	{"compiled", required_argument, NULL, BO_VAL + BO_COMPILED},
	{"weigh", required_argument, NULL, BO_VAL + BO_WEIGH},
	{"dtype", required_argument, NULL, BO_VAL + BO_DTYPE},
	{"own", required_argument, NULL, BO_VAL + BO_OWN},
	{"with-figures", no_argument, NULL, BO_VAL + BO_WITH_FIGURES},
	{"hold-out-figures", no_argument, NULL, BO_VAL + BO_HOLD_OUT_FIGURES},
	{"no-host-floor", no_argument, NULL, BO_VAL + BO_NO_HOST_FLOOR},
	{"help", no_argument, NULL, BO_VAL + BO_HELP},
	{NULL, 0, NULL, 0},
};
/* in enum bench_opt's order: entry i is option i */
_Static_assert(sizeof bench_long_opts / sizeof bench_long_opts[0] == BO_COUNT + 1,
	       "one getopt_long entry per option");

/* Every subcommand: the options it takes (BO bits; --help always), whether
 * it takes operands, and what runs it. */
static const struct bench_cmd {
	const char *name;
	uint64_t opts;
	int operands;
	int (*run)(const struct bench_args *a);
} bench_cmds[] = {
	{"accuracy", BO(DATASET) | BO(ORIGIN) | BO(TARGET) | BO(OP) | BO(METHOD) | BO(WEIGHTS) |
		     BO(JSON) | BO(DUMP) | BO(AS_RECORDED) | BO(FORMAT) | BO(HELDOUT_CONV) | BO(HELDOUT_ROWWISE) | BO(SHRINK) |
		     BO(INTERVAL) | BO(WITH_FIGURES) | BO(HOLD_OUT_FIGURES) | BO(NO_HOST_FLOOR), 0,
	 accuracy_main},
	{"table", 0, 1, table_main},
	{"e2e", BO(LABELS) | BO(CONFIGS) | BO(GPU) | BO(WEIGHTS) | BO(HOLDOUT) | BO(LAUNCH_US) |
		BO(ATTENTION) | BO(COMPILED_AMD_SCALE) | BO(DUMP) | BO(DTYPE) | BO(DATA) | BO(OWN) |
		BO(WITH_FIGURES), 0,
	 bench_e2e_main},
	{"comm", BO(MIN_BYTES), 1, bench_comm_main},
	{"tensorcore", BO(DATA) | BO(DUMP) | BO(PER_DTYPE) | BO(NO_POWER) | BO(NO_FIGURES) | BO(MAMF) |
			 BO(GPU) | BO(EMIT) | BO(OWN), 0, bench_tc_main},
	{"vec", BO(DATA) | BO(EMIT), 0, bench_vec_main},
	{"rowwise", BO(DATA) | BO(EMIT) | BO(OWN) | BO(HOLDOUT), 0, bench_rowwise_main},
	{"conv", BO(DATA) | BO(TARGET) | BO(ORIGIN) | BO(EMIT) | BO(EMIT_PICKS) | BO(DUMP) | BO(GPU), 0,
	 bench_conv_main},
	{"conv-train", BO(DATA) | BO(TARGET) | BO(DUMP), 0, bench_conv_train_main},
	{"tile-scale", BO(DATA) | BO(GPU), 0, bench_tile_scale_main},
	{"published", BO(DATA) | BO(BEFORE), 0, bench_published_main},
	{"power", BO(DATA) | BO(WEIGHTS), 0, bench_power_main},
	{"serving", BO(DATA) | BO(GPU) | BO(ROWS) | BO(GEMM_DATA) | BO(COMPILED) | BO(OWN) | BO(DUMP), 0,
	 bench_serving_main},
	{"own", BO(DATASET) | BO(DATA) | BO(GPU) | BO(ROWS) | BO(DUMP) | BO(OWN) | BO(ORIGIN), 0, bench_own_main},
	{"cpu", BO(DATA), 0, bench_cpu_main},
	{"profile", BO(LABELS) | BO(GPU) | BO(WEIGHTS) | BO(HOLDOUT) | BO(MIN_MS) | BO(EMIT) |
		    BO(ROWS), 0, bench_profile_main},
	{"calibrate", BO(EMIT) | BO(INTERVAL) | BO(WEIGH), 1, bench_calibrate_main},
	{"figures", BO(DATA), 0, bench_figures_main},
};

/* Parses argv (argv[0] the subcommand) into a for cmd.  Returns -1 to go
 * on, else the exit code after a one-line message. */
static int parse_args(const struct bench_cmd *cmd, int argc, char **argv, struct bench_args *a)
{
	/* getopt_long() sees only cmd's own options, so that a prefix or a
	 * typo is read against them (--hold is --hold-out-figures for
	 * accuracy, whatever other subcommands take) */
	struct option own[BO_COUNT + 1];
	size_t nown = 0;
	for (int i = 0; i < BO_COUNT; i++)
		if (i == BO_HELP || (cmd->opts & (UINT64_C(1) << i)))
			own[nown++] = bench_long_opts[i];
	own[nown] = bench_long_opts[BO_COUNT];
	int o;
	memset(a, 0, sizeof *a);
	opterr = 0;
	optind = 1;
	while ((o = getopt_long(argc, argv, ":h", own, NULL)) != -1) {
		int id = o == 'h' ? BO_HELP : o - BO_VAL;
		if (o == ':') {
			fprintf(stderr, PROG ": %s: option '%s' needs a value\n", cmd->name,
				argv[optind - 1]);
			return surfer_exit_code(SURFER_EINVAL);
		}
		if (o == '?' || id < 0 || id >= BO_COUNT) {
			const char *arg = argv[optind - 1], *eq = strchr(arg, '=');
			size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
			char why[256];
			for (int i = 0; i < BO_COUNT && !strncmp(arg, "--", 2); i++)
				if (i != BO_HELP && !(cmd->opts & (UINT64_C(1) << i)) &&
				    strlen(bench_long_opts[i].name) == len - 2 &&
				    !strncmp(bench_long_opts[i].name, arg + 2, len - 2)) {
					fprintf(stderr, PROG ": %s: no option '--%s'; see " PROG " %s --help\n",
						cmd->name, bench_long_opts[i].name, cmd->name);
					return surfer_exit_code(SURFER_EINVAL);
				}
			optfail_describe(arg, own, why, sizeof why);
			fprintf(stderr, PROG ": %s: %s; see " PROG " %s --help\n", cmd->name, why,
				cmd->name);
			return surfer_exit_code(SURFER_EINVAL);
		}
		switch ((enum bench_opt)id) {
		case BO_DATA: a->data = optarg; break;
		case BO_LABELS: a->labels = optarg; break;
		case BO_CONFIGS: a->configs = optarg; break;
		case BO_GPU: a->gpu = optarg; break;
		case BO_WEIGHTS: a->weights = optarg; break;
		case BO_HOLDOUT: a->holdout = optarg; break;
		case BO_DUMP: a->dump = optarg; break;
		case BO_DATASET: a->dataset = optarg; break;
		case BO_ORIGIN: a->origin = optarg; break;
		case BO_TARGET: a->target = optarg; break;
		case BO_OP: a->op = optarg; break;
		case BO_METHOD: a->method = optarg; break;
		case BO_ATTENTION: a->attention = optarg; break;
		case BO_LAUNCH_US: a->launch_us = optarg; break;
		case BO_MIN_MS: a->min_ms = optarg; break;
		case BO_MIN_BYTES: a->min_bytes = optarg; break;
		case BO_EMIT: a->emit = 1; break;
		case BO_EMIT_PICKS: a->emit_picks = 1; break;
		case BO_ROWS: a->rows = 1; break;
		case BO_JSON: a->json = 1; break;
		case BO_AS_RECORDED: a->as_recorded = 1; break;
		case BO_PER_DTYPE: a->per_dtype = 1; break;
		case BO_NO_POWER: a->no_power = 1; break;
		case BO_NO_FIGURES: a->no_figures = 1; break;
		case BO_MAX_FORM: a->max_form = 1; break;
		case BO_MAMF: a->mamf = 1; break;
		case BO_COMPILED_AMD_SCALE: a->compiled_amd_scale = 1; break;
		case BO_FORMAT: a->format = optarg; break;
		case BO_INTERVAL: a->interval = optarg; break;
		case BO_BEFORE: a->before = 1; break;
		case BO_HELDOUT_CONV: a->heldout_conv = 1; break;
		case BO_HELDOUT_ROWWISE: a->heldout_rowwise = optarg; break;
		case BO_SHRINK: a->shrink = optarg; break;
		case BO_GEMM_DATA: a->gemm_data = optarg; break;
		case BO_OWN: a->own = optarg; break;
		case BO_WITH_FIGURES: a->with_figures = 1; break;
		case BO_HOLD_OUT_FIGURES: a->hold_out_figures = 1; break;
		case BO_NO_HOST_FLOOR: a->no_host_floor = 1; break;
		case BO_COMPILED: a->compiled = optarg; break;
		case BO_WEIGH: a->weigh = optarg; break;
		case BO_DTYPE: a->dtype = optarg; break;
		case BO_HELP: a->help = 1; break;
		case BO_COUNT: break;
		}
	}
	a->noperands = argc - optind;
	a->operands = argv + optind;
	if (a->noperands && !cmd->operands && !a->help) {
		fprintf(stderr, PROG ": %s: unexpected argument '%s'\n", cmd->name, a->operands[0]);
		return surfer_exit_code(SURFER_EINVAL);
	}
	return -1;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "--version")) {
		printf(PROG " " SURFER_VERSION "\n");
		return 0;
	}
	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc < 2) {
		usage(stderr);
		return surfer_exit_code(SURFER_EINVAL);
	}
	for (size_t i = 0; i < sizeof bench_cmds / sizeof bench_cmds[0]; i++) {
		const struct bench_cmd *cmd = &bench_cmds[i];
		struct bench_args a;
		if (strcmp(argv[1], cmd->name) != 0)
			continue;
		int rc = parse_args(cmd, argc - 1, argv + 1, &a);
		if (rc < 0 && a.own) {
			struct stat st;
			if (strcmp(a.own, "none") && (stat(a.own, &st) != 0 || !S_ISDIR(st.st_mode))) {
				fprintf(stderr, PROG ": %s: --own '%s' is no folder\n", cmd->name, a.own);
				return surfer_exit_code(SURFER_EINVAL);
			}
			bench_tc_own_data(a.own);
		}
		return rc >= 0 ? rc : cmd->run(&a);
	}
	fprintf(stderr, PROG ": unknown command '%s'; see " PROG " --help\n", argv[1]);
	return surfer_exit_code(SURFER_EINVAL);
}
