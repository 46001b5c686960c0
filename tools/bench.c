/*
 * bench.c - surfer-bench: the accuracy harness.
 *
 *   surfer-bench accuracy --dataset PATH --origin GPU|none --target GPU
 *                [--op OP] [--method M|all] [--weights FILE] [--json]
 *   surfer-bench table REPORT.json...
 *
 * Pairs NeuSight-layout rows of the origin and target GPUs by operator and
 * shape, builds from each origin row the kernel record the recorder would
 * have produced, predicts the target with predict_kernel() (the code
 * surfer-analyze runs) and compares with the target's measured time, the
 * only thing of the target row the prediction is checked against.  Naive
 * baselines (bandwidth ratio, FLOP/s ratio) run in the same command with
 * --method all, next to the roofline ratio, wave scaling, the tile model and
 * auto.
 */
#include "tools/bench_e2e.h"
#include "tools/profile.h"
#include "tools/bench_power.h"
#include "tools/bench_tc.h"
#include "tools/bench_vec.h"
#include "predictor/predict.h"
#include "predictor/tile.h"
#include "tools/neusight.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "surfer-bench"

/* A method column: a predict_kernel() method, or a naive baseline. */
enum bench_method {
	BM_BW = 0,      /* T_o * bandwidth_o / bandwidth_t         */
	BM_FLOPS,       /* T_o * peak_o / peak_t                   */
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
	const struct gpu_spec *origin, *target;
	int methods[BM_COUNT];
	int json;
	int as_recorded;    /* elementwise rows without their shape      */
	const char *dump;   /* per-pair predictions as CSV, or NULL */
	const struct predictor *pred;
};

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: " PROG " accuracy --dataset PATH --origin GPU|none --target GPU\n"
		"                    [--op OP] [--method M|all] [--weights FILE] [--json]\n"
		"                    [--dump FILE.csv] [--as-recorded]\n"
		"       " PROG " table REPORT.json...   (markdown tables of accuracy reports)\n"
		"       " PROG " e2e --labels DIR --configs DIR [--weights F | --holdout-weights DIR]\n"
		"       " PROG " comm DIR...            (collective times vs NCCL measurements)\n"
		"       " PROG " tensorcore --data DIR  (tensor-core GEMM model, held out per GPU)\n"
		"       " PROG " vec --data DIR [--emit] (16-bit vector-op model, A100 <-> A40 held out)\n"
		"       " PROG " power --data DIR       (FP32 power cap vs measured FMA runs)\n"
		"       " PROG " profile --labels DIR [--emit] (per-operator profiles vs the tile model;\n"
		"                                          the AMD scale)\n"
		"       " PROG " --version\n"
		"methods: bw-ratio flops-ratio roofline wave mlp auto (default auto), all\n");
}

/* Predicts one pair with method m; <= 0 when the method cannot. */
static double predict_one(const struct predictor *p, int m, const struct pred_kernel *k,
			  const struct gpu_spec *o, const struct gpu_spec *t)
{
	static const enum pred_method map[BM_COUNT] = {
		[BM_ROOFLINE] = PRED_ROOFLINE, [BM_WAVE] = PRED_WAVE,
		[BM_MLP] = PRED_MLP, [BM_AUTO] = PRED_AUTO,
	};
	if (m == BM_BW)
		return k->origin_ns * o->mem_bw_gbps / t->mem_bw_gbps;
	if (m == BM_FLOPS)
		return k->origin_ns * o->peak_tflops[GPU_DT_FP32] / t->peak_tflops[GPU_DT_FP32];
	struct pred_result r;
	if (predict_kernel(p, k, o, t, map[m], &r) != 0)
		return -1;
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
	if (ns_load(&set, o->dataset, o->target, o->origin, err, sizeof err) != 0) {
		fprintf(stderr, PROG ": cannot load dataset: %s\n", err);
		ns_release(&set);
		return 2;
	}
	struct ns_pair *pairs;
	size_t np;
	if (ns_pairs(&set, o->origin, o->target, o->op, &pairs, &np) != 0) {
		fprintf(stderr, PROG ": out of memory\n");
		ns_release(&set);
		return 2;
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
		return 2;
	}
	if (dump)
		fprintf(dump, "method,op,dims,origin_ns,target_ns,predicted_ns\n");
	for (int m = 0; m < BM_COUNT; m++) {
		if (!o->methods[m] || (bm_needs_origin[m] && !o->origin))
			continue;
		double *ape = malloc((np + 1) * sizeof *ape);
		double *grp = malloc((np + 1) * sizeof *grp);
		const char **pop = malloc((np + 1) * sizeof *pop);
		size_t na = 0, failed = 0;
		if (!ape || !grp || !pop) {
			fprintf(stderr, PROG ": out of memory\n");
			return 2;
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
			double pred = predict_one(o->pred, m, &k, o->origin, o->target);
			double truth = pairs[i].target->latency_ms * 1e6;
			if (!(pred > 0) || !isfinite(pred)) {
				failed++;
				continue;
			}
			ape[na] = 100 * fabs(pred - truth) / truth;
			if (dump) {
				const struct ns_row *t = pairs[i].target;
				fprintf(dump, "%s,%s,", bm_names[m], t->op);
				for (unsigned d = 0; d < t->ndims; d++)
					fprintf(dump, "%s%llu", d ? "x" : "", (unsigned long long)t->dims[d]);
				fprintf(dump, ",%.1f,%.1f,%.1f\n", k.origin_ns, truth, pred);
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
		json_object_set_new(mo, "overall", ov);
		json_object_set_new(methods, bm_names[m], mo);
		free(ape);
		free(grp);
		free(pop);
	}
	json_object_set_new(root, "origin", json_string(o->origin ? o->origin->id : "none"));
	json_object_set_new(root, "target", json_string(o->target->id));
	/* With one method the report is flat: {"pairs", "overall", ...}. */
	int nm = 0;
	const char *only = NULL;
	json_t *v;
	json_object_foreach(methods, only, v)
		nm++;
	if (nm == 0) {
		fprintf(stderr, PROG ": no method can run without an origin\n");
		rc = 2;
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
		printf("accuracy: origin %s -> target %s, %zu pairs (APE in %%)\n",
		       o->origin ? o->origin->id : "none (from scratch)", o->target->id, np);
		printf("%-12s %-11s %6s %8s %8s %8s\n", "method", "op", "n", "mape", "median", "p90");
		json_object_foreach(methods, only, v) {
			size_t i;
			json_t *e;
			json_array_foreach(json_object_get(v, "pairs"), i, e)
				print_stats(only, json_string_value(json_object_get(e, "op")), e);
			json_array_foreach(json_object_get(v, "groups"), i, e)
				print_stats(only, json_string_value(json_object_get(e, "group")), e);
			print_stats(only, "overall", json_object_get(v, "overall"));
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
			return 2;
		}
		rep[n++] = r;
	}
	/* Table 1: each held-out target and origin, GEMM / vector MAPE. */
	table_header("held-out target");
	double sum[2][2][BM_COUNT] = {{{0}}};   /* [scratch][group][method] */
	int cnt[2][2][BM_COUNT] = {{{0}}};
	for (int i = 0; i < n; i++) {
		json_t *ms = json_object_get(rep[i], "methods");
		const char *org = json_string_value(json_object_get(rep[i], "origin"));
		int scratch = org && !strcmp(org, "none");
		printf("| %s | %s |", json_string_value(json_object_get(rep[i], "target")),
		       scratch ? "none (from scratch)" : org);
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

int main(int argc, char **argv)
{
	struct opts o;
	memset(&o, 0, sizeof o);
	if (argc >= 2 && !strcmp(argv[1], "table"))
		return run_table(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "e2e"))
		return bench_e2e_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "comm"))
		return bench_comm_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "tensorcore"))
		return bench_tc_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "vec"))
		return bench_vec_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "profile"))
		return bench_profile_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "power"))
		return bench_power_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "--version")) {
		printf(PROG " " SURFER_VERSION "\n");
		return 0;
	}
	if (argc < 2 || strcmp(argv[1], "accuracy") != 0) {
		if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
			usage(stdout);
			return 0;
		}
		usage(stderr);
		return 2;
	}
	int origin_set = 0, method_set = 0;
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--json")) {
			o.json = 1;
			continue;
		}
		if (!strcmp(a, "--as-recorded")) {
			o.as_recorded = 1;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		}
		if (!v) {
			fprintf(stderr, PROG ": option '%s': missing value\n", a);
			return 2;
		}
		i++;
		if (!strcmp(a, "--dataset")) {
			o.dataset = v;
		} else if (!strcmp(a, "--origin")) {
			origin_set = 1;
			if (strcmp(v, "none") != 0 && !(o.origin = gpu_arg(v)))
				return 2;
		} else if (!strcmp(a, "--target")) {
			if (!(o.target = gpu_arg(v)))
				return 2;
		} else if (!strcmp(a, "--op")) {
			o.op = v;
		} else if (!strcmp(a, "--dump")) {
			o.dump = v;
		} else if (!strcmp(a, "--weights")) {
			o.weights = v;
		} else if (!strcmp(a, "--method")) {
			int all = !strcmp(v, "all"), found = all;
			for (int m = 0; m < BM_COUNT; m++)
				if (all || !strcmp(v, bm_names[m]) ||
				    (m == BM_BW && !strcmp(v, "bw")) || (m == BM_FLOPS && !strcmp(v, "flops"))) {
					o.methods[m] = 1;
					found = 1;
				}
			if (!found) {
				fprintf(stderr, PROG ": unknown method '%s'\n", v);
				return 2;
			}
			method_set = 1;
		} else {
			fprintf(stderr, PROG ": unknown option '%s'\n", a);
			return 2;
		}
	}
	if (!o.dataset || !origin_set || !o.target) {
		fprintf(stderr, PROG ": --dataset, --origin and --target are required\n");
		usage(stderr);
		return 2;
	}
	if (!method_set)
		o.methods[BM_AUTO] = 1;
	if (o.origin == o.target) {
		fprintf(stderr, PROG ": origin and target are the same GPU\n");
		return 2;
	}
	struct tile_model *tm = NULL;
	if (o.weights) {
		int rc = tile_model_load_file(o.weights, &tm);
		if (rc != 0) {
			fprintf(stderr, PROG ": cannot load weights '%s': %s\n", o.weights,
				rc == -2 ? "unreadable" : "not a tile-model weights file");
			return 2;
		}
	}
	/* NeuSight's op timings include the measuring host's floor. */
	struct pred_config pc = { .weights = o.weights, .tile = tm, .tile_floor = 1 };
	struct predictor *pred;
	char err[256];
	if (predictor_new(&pc, &pred, err, sizeof err) != 0) {
		fprintf(stderr, PROG ": %s\n", err);
		tile_model_free(tm);
		return 2;
	}
	o.pred = pred;
	int rc = run_accuracy(&o);
	predictor_free(pred);
	tile_model_free(tm);
	return rc;
}
