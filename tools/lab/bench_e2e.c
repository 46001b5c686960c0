/*
 * bench_e2e.c - `surfer-bench e2e`: predicted iterations of model configs
 * against measured ones, and `surfer-bench comm`: collective times against
 * measured NCCL curves.
 *
 * e2e reads NeuSight-style labels: DIR/<GPU>/<model>-<inf|train>-<seq>-<batch>.json
 * with e2e_latency in ms (FP32 with TF32 off; inference = forward,
 * training = forward + backward with no optimizer step and no loss), and
 * the Hugging Face configs CONFIGS/<model>.json.  It prints per config the
 * error and per GPU and overall the mean absolute percentage error.
 *
 * comm reads NCCL measurements (vidur / PipeWeave CSV: size in bytes,
 * time_stats.<op>.median in ms, num_workers) from DIR/<GPU>/<op>.csv.
 */
#include "predictor/comm.h"
#include "analyzer/model/model.h"
#include "analyzer/model/run.h"
#include "gpu_specs/figures.h"
#include "gpu_specs/gpu.h"
#include "predictor/interval.h"
#include "predictor/tile.h"
#include "tools/lab/bench_e2e.h"
#include "tools/lab/bench_rowwise.h"
#include "predictor/rowwise.h"
#include "tools/lab/bench_own.h"
#include "predictor/attention.h"
#include "predictor/tcgemm.h"
#include "predictor/vecop.h"
#include "tools/lab/profile.h"
#include "tools/lab/stats.h"
#include "trace/surfer_err.h"
#include "trace/csv.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <strings.h>

#include <jansson.h>

#define PROG "surfer-bench"

/* Parses "<model>-<inf|train>-<seq>-<batch>.json". */
static int parse_label_name(const char *f, char *model, size_t msz, enum model_mode *mode,
			    unsigned *seq, unsigned *batch)
{
	size_t n = strlen(f);
	if (n < 6 || strcmp(f + n - 5, ".json") != 0)
		return -1;
	const char *p = strstr(f, "-inf-");
	const char *q = strstr(f, "-train-");
	const char *rest;
	if (p && (!q || p < q)) {
		*mode = MODEL_INFERENCE;
		rest = p + 5;
	} else if (q) {
		*mode = MODEL_TRAINING;
		rest = q + 7;
		p = q;
	} else {
		return -1;
	}
	if ((size_t)(p - f) + 1 > msz)
		return -1;
	memcpy(model, f, (size_t)(p - f));
	model[p - f] = 0;
	char tail[32];
	if (sscanf(rest, "%u-%u%31s", seq, batch, tail) != 3 || strcmp(tail, ".json") != 0)
		return -1; /* "-fusion" and other variants are not plain eager runs */
	return 0;
}

static void usage_e2e(FILE *f)
{
	fprintf(f, "usage: " PROG " e2e --labels DIR --configs DIR [--gpu NAME] [--launch-us US] [--attention eager|sdpa]\n"
			"                        [--weights FILE | --holdout-weights DIR] [--compiled-amd-scale]\n"
			"                        [--dtype fp32|tf32|bf16|fp16] [--data DIR] [--dump FILE.csv]\n"
			"                        [--with-figures]\n"
			"  DIR/<GPU>/<model>-<inf|train>-<seq>-<batch>.json (e2e_latency, ms); CONFIGS/<model>.json\n"
			"  --weights FILE: tile-model weights for every GPU; --holdout-weights DIR: for GPU G the\n"
			"  weights DIR/w_G.bin trained without G (make accuracy writes them), GPUs without one skipped\n"
			"  An AMD GPU gets the AMD scale fitted on the other AMD GPUs' profiles under DIR\n"
			"  (surfer-bench profile); --compiled-amd-scale: the compiled-in one\n"
			"  --launch-us: a flat CPU cost per launch (default: the per-stack CPU model\n"
			"  surfer-analyze --model uses without it)\n"
			"  --dump: one line per iteration (gpu, config, held-out or in-sample, measured and\n"
			"  predicted ms, the interval's method key: tcgemm or auto), what surfer-bench\n"
			"  calibrate reads\n"
			"  --dtype: the labels' precision (default fp32, NeuSight's); --data DIR: the shared data\n"
			"  folder the tensor-core, attention and vector-op constants are refitted on without each\n"
			"  GPU's compute capability (else the compiled-in ones, which saw Hopper's and Ampere's)\n"
			"  --with-figures: each GPU keeps the figures measured on its architecture (docs/gpu-specs.md:\n"
			"  what surfer-analyze uses), where by default they are held out with it; its iterations\n"
			"  are then counted in-sample\n");
}

struct acc {
	double sum;
	size_t n;
	double mem_pct;         /* the largest estimated peak memory, % of the GPU's */
	char mem_cfg[128];      /* its config */
	size_t covered;         /* measured times inside the prediction's interval */
	double interval;        /* that interval's probability (0: none given) */
};

/* Adds the iterations counted in from to to (the largest memory share
 * stays with each GPU's own line). */
static void acc_add(struct acc *to, const struct acc *from)
{
	to->sum += from->sum;
	to->n += from->n;
	to->covered += from->covered;
	if (from->interval > 0)
		to->interval = from->interval;
}

/* An AMD GPU's scale (tile.h) fitted with weights tm on the other AMD
 * GPUs' profiles under labels, into sc; the compiled-in one when there
 * are none (or compiled).  Writes what it used into note. */
static int amd_scale_for(const struct tile_model *tm, const char *labels, const struct gpu_spec *g,
			 int compiled, struct tile_amd_scale *out, char *note, size_t sz)
{
	struct tile_amd_scale sc;
	char err[512];
	int used = compiled ? 0 : prof_fit_amd(tm, labels, g, PROF_MIN_MS_DEFAULT, &sc, err, sizeof err);
	if (used <= 0)
		sc = tile_amd_scale_default;
	*out = sc;
	int n = snprintf(note, sz, "AMD scale %s:", used > 0 ? "fitted without its architecture" : "compiled-in");
	for (int c = 0; c < TILE_AMD_NCLASS && n > 0 && (size_t)n < sz; c++)
		n += snprintf(note + n, sz - (size_t)n, " %s %.2f", tile_amd_class_names[c], sc.scale[c]);
	if (n > 0 && (size_t)n < sz)
		snprintf(note + n, sz - (size_t)n, ", %.1f us per kernel", sc.fixed_ns / 1e3);
	return used > 0;
}

static int run_gpu_dir(const struct tile_model *tm, const char *labels, const char *gname,
		       const struct gpu_spec *g, const char *configs, double launch_ns,
		       enum model_attention attn, enum gpu_dtype dtype, const char *data,
		       const char *holdout, const char *weights, int compiled_scale,
		       int with_figures, FILE *dump, struct acc *all)
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/%s", labels, gname);
	if (!g) {
		printf("%-24s skipped: not in the GPU database\n", gname);
		return 0;
	}
	/* without held-out weights every GPU gets the compiled-in ones,
	 * trained on NeuSight's NVIDIA GPUs, or --weights': its mean line
	 * says so */
	int builtin = !holdout;
	struct tile_model *held_tm = NULL;
	if (holdout) {
		/* A GPU without weights trained without it gets the compiled-in
		 * ones, and its mean line says so: held out only if no kernel
		 * of it was in their training data (none of an AMD GPU). */
		int h = prof_holdout_weights(holdout, gname, &held_tm);
		if (h < 0) {
			printf("%-24s skipped: no held-out weights '%s/w_%s.bin'\n", gname, holdout, gname);
			return 0;
		}
		builtin = h == 0;
		tm = held_tm;
	}
	char note[384] = "";
	struct tile_amd_scale sc = tile_amd_scale_default;
	int scale_held_out = 1;
	if (gpu_cc_is_amd(g->cc))
		scale_held_out = amd_scale_for(tm, labels, g, compiled_scale, &sc, note, sizeof note);
	/* nothing measured on g's architecture behind its FP32 GEMM rate,
	 * unless --with-figures asks for what a user of g gets */
	gpu_figures_hold_out(with_figures ? 0 : g->cc);
	struct pred_config pc = { .tile = tm, .amd_scale = &sc };
	/* --data: the 16-bit kernels' constants fitted without g's compute
	 * capability (the compiled-in ones saw the H20's, H800's, A40's and
	 * A100's GEMMs, Vidur's A100 and A40 operators) */
	struct tcgemm_params tc;
	struct attn_params at;
	struct vecop_params vp;
	if (data && !gpu_cc_is_amd(g->cc)) {
		char herr[256];
		if (bench_heldout_constants(data, g->cc, &tc, &at, &vp, herr, sizeof herr) < 0) {
			tile_model_free(held_tm);
			printf("%-24s skipped: %s\n", gname, herr);
			return 0;
		}
		pc.tcgemm = &tc, pc.attn = &at, pc.vecop = &vp;
		snprintf(note, sizeof note, "tensor-core, attention and vector-op constants fitted without sm_%u",
			 g->cc);
	}
	/* held out: the row-wise model (FP32 layer norm and softmax) fitted
	 * without g's architecture on NeuSight's test shapes beside the
	 * labels (the compiled-in constants saw all five of its GPUs) */
	struct rowwise_params rw;
	char kt[4096];
	snprintf(kt, sizeof kt, "%s/../kernels-test", labels);
	if (holdout && !gpu_cc_is_amd(g->cc) && access(kt, R_OK) == 0) {
		char rerr[256];
		if (bench_rowwise_fit_heldout(kt, g->cc, &rw, rerr, sizeof rerr) != 0) {
			tile_model_free(held_tm);
			printf("%-24s skipped: %s: %s\n", gname, kt, rerr);
			return 0;
		}
		pc.rowwise = &rw;
	}
	struct predictor *pred;
	char perr[128];
	if (predictor_new(&pc, &pred, perr, sizeof perr) != 0) {
		tile_model_free(held_tm);
		printf("%-24s skipped: %s\n", gname, perr);
		return 0;
	}
	size_t nf;
	char **files = prof_list_dir(dir, &nf);
	if (!files) {
		predictor_free(pred);
		tile_model_free(held_tm);
		return 0;
	}
	/* held out: nothing of g's architecture in the tile model's
	 * training data (weights trained without it, or an architecture the
	 * weights never saw: every AMD GPU) nor in its AMD scale */
	int held_out = scale_held_out &&
		       ((holdout && !builtin) || pred_distance_of(pred, NULL, g) == PRED_DIST_NEW_ARCH);
	/* 16-bit iterations with the compiled-in tensor-core constants: those
	 * saw Hopper's and Ampere's GEMMs */
	if (dtype != GPU_DT_FP32 && !pc.tcgemm && !gpu_cc_is_amd(g->cc)) {
		held_out = 0;
		snprintf(note, sizeof note, "compiled-in tensor-core constants: not held out");
	}
	if (with_figures) {
		size_t n = strlen(note);
		held_out = 0;
		snprintf(note + n, sizeof note - n, "%sfigures of its architecture kept: not held out",
			 n ? "; " : "");
	}
	struct acc acc = { 0, 0, 0, "", 0, 0 };
	for (size_t i = 0; i < nf; i++) {
		char model[128];
		enum model_mode mode;
		unsigned seq, batch;
		if (parse_label_name(files[i], model, sizeof(model), &mode, &seq, &batch))
			continue;
		char path[8192], err[256];
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		json_error_t je;
		json_t *root = json_load_file(path, 0, &je);
		double measured = root ? json_number_value(json_object_get(root, "e2e_latency")) : 0;
		double fw = root ? json_number_value(json_object_get(root, "fw_latency")) : 0;
		double bw = root ? json_number_value(json_object_get(root, "bwall_latency")) : 0;
		double peak_gib = root ? json_number_value(json_object_get(root, "peak_allocated_gib")) : 0;
		json_decref(root);
		if (!(measured > 0)) {
			fprintf(stderr, PROG ": cannot read e2e_latency from '%s'\n", path);
			continue;
		}
		struct model_config c;
		snprintf(path, sizeof(path), "%s/%s.json", configs, model);
		if (model_config_load(path, &c, err, sizeof(err))) {
			printf("%-24s %-28s skipped: config: %s\n", g->id, files[i], err);
			continue;
		}
		struct model_opts o;
		model_opts_init(&o);
		o.pred = pred;
		o.batch = batch;
		o.seq = seq;
		o.mode = mode;
		o.attention = attn;
		o.dtype = dtype;
		/* NeuSight runs BERT inference as BertForSequenceClassification
		 * (its traced graphs end in bert.pooler, dropout and a 2-label
		 * classifier) and BERT training as BertForPreTraining (MLM and
		 * NSP heads); its decoders keep their LM head in both. */
		if (c.family == MODEL_FAM_BERT && mode == MODEL_INFERENCE)
			o.head = MODEL_HEAD_CLASSIFY;
		struct model_seq s;
		if (model_build(&c, &o, &s, err, sizeof(err))) {
			printf("%-24s %-28s skipped: %s\n", g->id, files[i], err);
			continue;
		}
		struct model_timing t;
		struct model_memory mem;
		model_memory(&c, &o, &s, &mem);
		int rc = model_time(&s, &o, g, launch_ns, &t);
		model_seq_release(&s);
		if (rc)
			continue;
		double pred = t.iteration_ns / 1e6;
		double e = (pred - measured) / measured * 100.0;
		/* the estimated peak memory against the GPU's: every config
		 * measured ran, so none may exceed 100% */
		double mem_pct = gpu_mem_usable_bytes(g) > 0 ? 100.0 * mem.peak / gpu_mem_usable_bytes(g) : 0;
		printf("%-16s %-34s %10.2f %10.2f %+8.1f%% %5.0f%%", g->id, files[i], measured, pred, e,
		       mem_pct);
		if (mem_pct > acc.mem_pct) {
			acc.mem_pct = mem_pct;
			snprintf(acc.mem_cfg, sizeof(acc.mem_cfg), "%s", files[i]);
		}
		if (peak_gib > 0) /* tools/gpu/e2e.py's labels have it */
			printf("   memory %.1f GiB estimated, %.1f measured (%+.0f%%)", mem.peak / 1073741824.0,
			       peak_gib, (mem.peak / 1073741824.0 - peak_gib) / peak_gib * 100.0);
		if (mode == MODEL_TRAINING && fw > 0 && bw > 0)
			printf("   forward %+.1f%%, backward %+.1f%%",
			       (t.phase_ns[MODEL_PH_FORWARD] / 1e6 - fw) / fw * 100.0,
			       (t.phase_ns[MODEL_PH_BACKWARD] / 1e6 - bw) / bw * 100.0);
		/* the interval surfer-analyze gives beside the prediction, and
		 * whether the measurement fell in it: its coverage on GPUs the
		 * calibration never saw */
		if (t.interval > 0 && t.iteration_high_ns > 0) {
			int in = lab_interval_side(measured, t.iteration_low_ns / 1e6,
						   t.iteration_high_ns / 1e6) == 0;
			printf("   %.0f%%: %.2f-%.2f%s", 100 * t.interval, t.iteration_low_ns / 1e6,
			       t.iteration_high_ns / 1e6, in ? "" : " (outside)");
			acc.covered += (size_t)in;
			acc.interval = t.interval;
		}
		putchar('\n');
		if (dump)
			fprintf(dump, "%s,%s,%s,%.4f,%.4f,%s\n", g->id, files[i],
				held_out ? "held-out" : "in-sample", measured, pred,
				pred_method_name(interval_iteration_method(t.method_ns)));
		acc.sum += fabs(e);
		acc.n++;
	}
	prof_free_list(files, nf);
	predictor_free(pred);
	tile_model_free(held_tm);
	if (acc.n) {
		printf("%-16s mean |error| %.1f%% over %zu configs", g->id, acc.sum / (double)acc.n,
		       acc.n);
		if (builtin || *note)
			printf(" (%s%s%s%s)", builtin && weights ? "weights " : "",
			       builtin ? weights ? weights : "compiled-in weights" : "",
			       builtin && *note ? ", " : "", note);
		putchar('\n');
		if (acc.interval > 0)
			printf("%-16s the %.0f%% interval holds the measured time in %zu of %zu%s\n", g->id,
			       100 * acc.interval, acc.covered, acc.n,
			       interval_table_saw(g->cc) ? " (in-sample: the interval table holds its "
							   "architecture's errors)" : "");
		if (acc.mem_pct > 0)
			printf("%-16s memory: the estimated peak is at most %.0f%% of its usable %.1f GiB (%s)\n",
			       g->id, acc.mem_pct, gpu_mem_usable_bytes(g) / 1073741824.0, acc.mem_cfg);
		acc_add(all, &acc);
	}
	return 0;
}

int bench_e2e_main(const struct bench_args *a)
{
	const char *labels = a->labels, *configs = a->configs, *only = a->gpu;
	const char *weights = a->weights, *holdout = a->holdout;
	int compiled_scale = a->compiled_amd_scale;
	/* what surfer-analyze --model charges the CPU without --launch-us */
	double launch_ns = MODEL_LAUNCH_AUTO;
	enum model_attention attn = MODEL_ATTN_EAGER;
	enum gpu_dtype dtype = GPU_DT_FP32;
	if (a->help) {
		usage_e2e(stdout);
		return 0;
	}
	if (a->launch_us) {
		char *end;
		launch_ns = strtod(a->launch_us, &end) * 1e3;
		if (*end || !(launch_ns >= 0) || launch_ns > 1e9) {
			fprintf(stderr, PROG ": bad --launch-us '%s'\n", a->launch_us);
			return surfer_exit_code(SURFER_EINVAL);
		}
	}
	if (a->attention) {
		if (!strcmp(a->attention, "sdpa"))
			attn = MODEL_ATTN_SDPA;
		else if (strcmp(a->attention, "eager")) {
			fprintf(stderr, PROG ": bad --attention '%s' (eager or sdpa)\n", a->attention);
			return surfer_exit_code(SURFER_EINVAL);
		}
	}
	if (a->dtype) {
		/* the model path's own dtype names; FP8 (linears only, a recipe)
		 * is not a label's precision */
		struct model_cli mc;
		char derr[256];
		model_cli_init(&mc);
		if (model_cli_set(&mc, "dtype", a->dtype, derr, sizeof derr) != 0 || mc.opts.fp8) {
			fprintf(stderr, PROG ": bad --dtype '%s' (fp32, tf32, bf16 or fp16)\n", a->dtype);
			return surfer_exit_code(SURFER_EINVAL);
		}
		dtype = mc.opts.dtype;
	}
	if (!labels || !configs) {
		usage_e2e(stderr);
		return surfer_exit_code(SURFER_EINVAL);
	}
	struct tile_model *tm;
	if (prof_gpu_and_weights(only, weights, &tm) != 0)
		return surfer_exit_code(SURFER_EINVAL);
	FILE *dump = NULL;
	if (a->dump && !(dump = fopen(a->dump, "w"))) {
		fprintf(stderr, PROG ": cannot write '%s': %s\n", a->dump, strerror(errno));
		tile_model_free(tm);
		return surfer_exit_code(SURFER_EINVAL);
	}
	if (dump)
		fprintf(dump, "gpu,config,weights,measured_ms,predicted_ms,method\n");
	size_t ng;
	char **gpus = prof_list_dir(labels, &ng);
	if (!gpus) {
		fprintf(stderr, PROG ": cannot read '%s': %s\n", labels, strerror(errno));
		tile_model_free(tm);
		if (dump)
			fclose(dump);
		return surfer_exit_code(SURFER_EINVAL);
	}
	printf("%-16s %-34s %10s %10s %9s %6s\n", "gpu", "config", "measured", "predicted", "error",
	       "memory");
	struct acc all = { 0, 0, 0, "", 0, 0 }, vendor[2] = { { 0, 0, 0, "", 0, 0 }, { 0, 0, 0, "", 0, 0 } };
	for (size_t i = 0; i < ng; i++) {
		const struct gpu_spec *g = prof_gpu_of_dir(gpus[i]);
		if (only && (!g || g != gpu_find(only)))
			continue;
		run_gpu_dir(tm, labels, gpus[i], g, configs, launch_ns, attn, dtype, a->data, holdout,
			    weights, compiled_scale, a->with_figures, dump,
			    &vendor[g && gpu_cc_is_amd(g->cc)]);
	}
	prof_free_list(gpus, ng);
	tile_model_free(tm);
	if (dump && fclose(dump) != 0)
		fprintf(stderr, PROG ": cannot write '%s'\n", a->dump);
	/* NVIDIA and AMD apart as well: every GPU the weights learnt from is
	 * an NVIDIA one. */
	for (int v = 0; v < 2; v++) {
		acc_add(&all, &vendor[v]);
		if (vendor[v].n && vendor[!v].n)
			printf("%-16s mean |error| %.1f%% over %zu configs\n", v ? "AMD" : "NVIDIA",
			       vendor[v].sum / (double)vendor[v].n, vendor[v].n);
	}
	if (all.n) {
		printf("all              mean |error| %.1f%% over %zu configs\n", all.sum / (double)all.n, all.n);
		if (all.interval > 0)
			printf("all              the %.0f%% interval holds the measured time in %zu of %zu\n",
			       100 * all.interval, all.covered, all.n);
	} else
		printf("no configs compared\n");
	return 0;
}

/* ---- comm -------------------------------------------------------------- */

static enum comm_op comm_of_file(const char *f)
{
	if (strstr(f, "all_reduce"))
		return COMM_ALL_REDUCE;
	if (strstr(f, "send_recv"))
		return COMM_SEND_RECV;
	if (strstr(f, "all_gather"))
		return COMM_ALL_GATHER;
	return COMM_NONE;
}

/* Index of the first header field that ends in suffix, -1 if none. */
static int comm_col(const struct csv_reader *csv, const char *suffix)
{
	size_t sl = strlen(suffix);
	for (size_t i = 0; i < csv->nfield; i++) {
		size_t len = strlen(csv->field[i]);
		if (len >= sl && strcmp(csv->field[i] + len - sl, suffix) == 0)
			return (int)i;
	}
	return -1;
}

/* The number in field col of the current row; NaN when the row is short. */
static double comm_num(const struct csv_reader *csv, int col)
{
	return (size_t)col < csv->nfield ? strtod(csv->field[col], NULL) : NAN;
}

/* Errors by ranks and by ranks per node, for one GPU and collective. */
struct comm_errs {
	struct { double sum; size_t n; } per[33][33];
};

/* Adds one measurement (ms) of op over bytes among n ranks, k per node;
 * rows of more than one node need a network (the link's system). */
static void comm_add(struct comm_errs *e, enum comm_op op, double bytes, double n, double k,
		     double ms, const struct comm_link *l)
{
	if (!(ms > 0) || !(n >= 2 && n <= 32) || !(k >= 1))
		return;
	if (k > n)
		k = n;
	if (k < n && l->net_gbps <= 0)
		return; /* more than one node, and no network known */
	double pred = comm_group_ns(op, bytes, (uint32_t)n, (uint32_t)k, l) / 1e6;
	e->per[(int)n][(int)k].sum += fabs(pred - ms) / ms * 100.0;
	e->per[(int)n][(int)k].n++;
}

/* Prints e's lines and adds them to all[0] (one node) and all[1] (more). */
static void comm_print(const struct comm_errs *e, const char *set, const struct gpu_spec *g,
		       enum comm_op op, double min_bytes, struct acc *all)
{
	for (int n = 2; n <= 32; n++)
		for (int k = n; k >= 1; k--) {
			if (!e->per[n][k].n)
				continue;
			char nodes[32] = "";
			if (k < n)
				snprintf(nodes, sizeof(nodes), " (%d nodes of %d)", (n + k - 1) / k, k);
			printf("%-22s %-13s %-14s ranks %-2d %5zu sizes >= %.0f MB  mean |error| %5.1f%%%s\n",
			       set, g->id, comm_name(op), n, e->per[n][k].n, min_bytes / 1e6,
			       e->per[n][k].sum / (double)e->per[n][k].n, nodes);
			all[k < n].sum += e->per[n][k].sum;
			all[k < n].n += e->per[n][k].n;
		}
}

/* Adds the errors of one measurement file to all[0] (one node) and all[1]
 * (more than one, on the GPU's default system); files that are not NCCL
 * measurements are skipped.  -1 (message printed) when it is not CSV. */
static int comm_file(const char *path, const char *set, const char *fname,
		     const struct gpu_spec *g, double min_bytes, struct acc *all)
{
	enum comm_op op = comm_of_file(fname);
	if (op == COMM_NONE)
		return 0;
	struct csv_reader csv;
	if (csv_open(&csv, path, 0) != 0)
		return 0;
	int rc = csv_next(&csv);
	int c_med = comm_col(&csv, ".median"), c_n = comm_col(&csv, "num_workers");
	int c_size = comm_col(&csv, "size"), c_dpn = comm_col(&csv, "devices_per_node");
	if (rc != 1 || c_med < 0 || c_n < 0 || c_size < 0)
		goto out;
	struct comm_link l, wide;
	comm_link_init_system(g, NULL, &l, &wide);
	static struct comm_errs e;
	memset(&e, 0, sizeof(e));
	while ((rc = csv_next(&csv)) == 1) {
		double n = comm_num(&csv, c_n), bytes = comm_num(&csv, c_size);
		if (bytes >= min_bytes)
			comm_add(&e, op, bytes, n, c_dpn >= 0 ? comm_num(&csv, c_dpn) : n,
				 comm_num(&csv, c_med), &l);
	}
	if (rc >= 0)
		comm_print(&e, set, g, op, min_bytes, all);
out:
	if (rc < 0)
		fprintf(stderr, PROG ": %s\n", csv.err);
	csv_release(&csv);
	return rc < 0 ? -1 : 0;
}

/* DeepBench's results files (DeepBench_NV_<GPU>__...FP32.csv): the
 * "All-Reduce" section's rows ",,floats,GPUs,nodes,,ms,,GB/s,algorithm",
 * FP32, nodes empty for one; rows NCCL ran only (the others are MPI and
 * Baidu's ring).  DeepBench's boxes: PCIe 3.0 cards, no NVLink. */
static int comm_deepbench(const char *path, const char *fname, double min_bytes, struct acc *all)
{
	static const struct { const char *tag, *gpu; } gpus[] = {
		{ "P100", "p100-pcie" }, { "1080Ti", "gtx-1080-ti" }, { "M40", "m40" },
		{ "TitanX_Pascal", "titan-x-pascal" }, { "TitanXp", "titan-xp" },
		{ "TitanX", "titan-x-maxwell" },
	};
	const char *tag = fname + 13;   /* after "DeepBench_NV_" */
	const struct gpu_spec *g = NULL;
	for (size_t i = 0; i < sizeof(gpus) / sizeof(gpus[0]) && !g; i++)
		if (!strncmp(tag, gpus[i].tag, strlen(gpus[i].tag)) && tag[strlen(gpus[i].tag)] == '_')
			g = gpu_find(gpus[i].gpu);
	if (!g || !strstr(fname, "FP32"))
		return 0;
	struct csv_reader csv;
	if (csv_open(&csv, path, 0) != 0)
		return 0;
	struct comm_link l, wide;
	comm_link_init_system(g, NULL, &l, &wide);
	static struct comm_errs e;
	memset(&e, 0, sizeof(e));
	int rc, in = 0;
	while ((rc = csv_next(&csv)) == 1) {
		const char *first = csv_field(&csv, 0);
		if (*first) {
			in = !strcmp(first, "All-Reduce");
			continue;
		}
		double floats = strtod(csv_field(&csv, 2), NULL), n = strtod(csv_field(&csv, 3), NULL);
		double nodes = *csv_field(&csv, 4) ? strtod(csv_field(&csv, 4), NULL) : 1;
		double ms = strtod(csv_field(&csv, 6), NULL);
		if (in && !strncmp(csv_field(&csv, 9), "NCCL", 4) && 4 * floats >= min_bytes && nodes >= 1)
			comm_add(&e, COMM_ALL_REDUCE, 4 * floats, n, n / nodes, ms, &l);
	}
	if (rc >= 0)
		comm_print(&e, "DeepBench", g, COMM_ALL_REDUCE, min_bytes, all);
	else
		fprintf(stderr, PROG ": %s\n", csv.err);
	csv_release(&csv);
	return rc < 0 ? -1 : 0;
}

/* Directory names of the public NCCL data sets to GPU database names. */
static const struct gpu_spec *comm_gpu(const char *dir)
{
	/* "pairwise NVLink": PCIe cards bridged in pairs; the DGX and the
	 * PipeWeave A100s are SXM4 boards. */
	if (!strncasecmp(dir, "a100_pairwise", 13))
		return gpu_find("a100-pcie-80");
	if (!strncasecmp(dir, "a100", 4))
		return gpu_find("a100-sxm") ? gpu_find("a100-sxm") : gpu_find("A100-SXM4-80GB");
	if (!strncasecmp(dir, "a40", 3))
		return gpu_find("a40");
	return prof_gpu_of_dir(dir);
}

/* The refit of the constants on the files under dirs: on all of them, and
 * without each architecture (the compute capabilities it groups). */
static void comm_fit_print(const char *const *dirs, size_t ndirs)
{
	static const struct { const char *name; uint32_t cc[4]; size_t n; } out[] = {
		{ "none", { 0 }, 0 }, { "ampere", { 80, 86, 87 }, 3 }, { "ada", { 89 }, 1 },
		{ "hopper", { 90 }, 1 }, { "blackwell", { 100, 103, 120, 121 }, 4 },
	};
	const struct comm_params *d = &comm_default_params;
	printf("\nconstants refitted (>= 1 MB, one node; grid search, mean relative error), the\n"
	       "fit's error on ring / NVLS / send-recv / PCIe / bridged rows in %%:\n");
	printf("%-10s %6s %6s %6s %6s %6s %6s %6s | %s\n", "held out", "nvlink", "lat us", "nvls",
	       "p2p", "p2p us", "pcie", "bridge", "fit errors");
	printf("%-10s %6.3f %6.1f %6.3f %6.3f %6.1f %6.3f %6.3f |\n", "compiled", d->nvlink_eff,
	       d->nvlink_latency_us, d->nvls_eff, d->nvlink_p2p_eff, d->nvlink_p2p_us, d->pcie_eff,
	       d->pcie_p2p_eff);
	for (size_t i = 0; i < sizeof(out) / sizeof(out[0]); i++) {
		struct comm_params p;
		double e[5];
		char err[128];
		if (bench_comm_fit(dirs, ndirs, out[i].cc, out[i].n, &p, e, err, sizeof(err))) {
			printf("%-10s %s\n", out[i].name, err);
			continue;
		}
		printf("%-10s %6.3f %6.1f %6.3f %6.3f %6.1f %6.3f %6.3f |", out[i].name, p.nvlink_eff,
		       p.nvlink_latency_us, p.nvls_eff, p.nvlink_p2p_eff, p.nvlink_p2p_us, p.pcie_eff,
		       p.pcie_p2p_eff);
		for (int c = 0; c < 5; c++)
			if (isnan(e[c]))
				printf(" %5s", "-");
			else
				printf(" %5.1f", e[c]);
		printf("\n");
	}
}

int bench_comm_main(const struct bench_args *a)
{
	double min_bytes = a->min_bytes ? strtod(a->min_bytes, NULL) : 1e6;
	struct acc all[2] = { { 0, 0, 0, "", 0, 0 }, { 0, 0, 0, "", 0, 0 } };
	int dirs = 0;
	if (a->help) {
		printf("usage: " PROG " comm [--min-bytes N] DIR...   (DIR/<GPU>/{all_reduce,send_recv}.csv, or\n"
		       "       DeepBench's results folder)\n");
		return 0;
	}
	for (int i = 0; i < a->noperands; i++) {
		const char *dir = a->operands[i];
		size_t ng;
		char **gd = prof_list_dir(dir, &ng);
		if (!gd) {
			fprintf(stderr, PROG ": cannot read '%s': %s\n", dir, strerror(errno));
			return surfer_exit_code(SURFER_EINVAL);
		}
		dirs++;
		for (size_t k = 0; k < ng; k++) {
			if (!strncmp(gd[k], "DeepBench_NV_", 13)) {
				char path[8192];
				snprintf(path, sizeof(path), "%s/%s", dir, gd[k]);
				if (comm_deepbench(path, gd[k], min_bytes, all) != 0) {
					prof_free_list(gd, ng);
					return surfer_exit_code(SURFER_EINVAL);
				}
				continue;
			}
			if (!strncmp(gd[k], "DeepBench_", 10))
				continue;
			const struct gpu_spec *g = comm_gpu(gd[k]);
			if (!g) {
				printf("%-24s skipped: not in the GPU database\n", gd[k]);
				continue;
			}
			char sub[4096];
			snprintf(sub, sizeof(sub), "%s/%s", dir, gd[k]);
			size_t nf;
			char **files = prof_list_dir(sub, &nf);
			for (size_t j = 0; files && j < nf; j++) {
				char path[8192];
				snprintf(path, sizeof(path), "%s/%s", sub, files[j]);
				if (comm_file(path, gd[k], files[j], g, min_bytes, all) != 0) {
					prof_free_list(files, nf);
					prof_free_list(gd, ng);
					return surfer_exit_code(SURFER_EINVAL);
				}
			}
			if (files)
				prof_free_list(files, nf);
		}
		prof_free_list(gd, ng);
	}
	if (!dirs) {
		fprintf(stderr, "usage: " PROG " comm [--min-bytes N] DIR...   (DIR/<GPU>/{all_reduce,send_recv}.csv)\n");
		return surfer_exit_code(SURFER_EINVAL);
	}
	if (all[0].n)
		printf("all              mean |error| %.1f%% over %zu measurements\n",
		       all[0].sum / (double)all[0].n, all[0].n);
	if (all[1].n)
		printf("across nodes     mean |error| %.1f%% over %zu measurements (default systems)\n",
		       all[1].sum / (double)all[1].n, all[1].n);
	comm_fit_print((const char *const *)a->operands, (size_t)a->noperands);
	return 0;
}

/* ---- comm: the fit of the collective model's constants ------------------- */

/* One node-local NCCL measurement for the fit. */
struct comm_sample {
	const struct gpu_spec *g;
	enum comm_op op;
	double bytes, n, ms;
	double w;              /* weight: 1 / the samples of its system      */
	int sys;               /* the system (folder) it was measured on     */
};

/* At most this many rows of one (GPU, collective, ranks), evenly spread
 * over the file's sizes: the fit's cost stays small, its weights those of
 * the sizes measured. */
#define COMM_FIT_ROWS 256
#define COMM_FIT_MAX 8192

/* Reads the node-local rows of >= min_bytes of one file into s. */
static void comm_fit_file(const char *path, const struct gpu_spec *g, enum comm_op op,
			  double min_bytes, struct comm_sample *s, size_t *ns)
{
	static struct comm_sample rows[33][8192];
	size_t cnt[33] = { 0 };
	struct csv_reader csv;
	if (csv_open(&csv, path, 0) != 0)
		return;
	int c_med = -1, c_n = -1, c_size = -1, c_dpn = -1;
	if (csv_next(&csv) == 1) {
		c_med = comm_col(&csv, ".median");
		c_n = comm_col(&csv, "num_workers");
		c_size = comm_col(&csv, "size");
		c_dpn = comm_col(&csv, "devices_per_node");
	}
	while (c_med >= 0 && c_n >= 0 && c_size >= 0 && csv_next(&csv) == 1) {
		double n = comm_num(&csv, c_n), bytes = comm_num(&csv, c_size);
		double k = c_dpn >= 0 ? comm_num(&csv, c_dpn) : n, ms = comm_num(&csv, c_med);
		if (!(n >= 2 && n <= 32) || k < n || !(bytes >= min_bytes) || !(ms > 0) || cnt[(int)n] == 8192)
			continue;
		rows[(int)n][cnt[(int)n]++] = (struct comm_sample){ g, op, bytes, n, ms, 1, 0 };
	}
	csv_release(&csv);
	for (int n = 2; n <= 32; n++) {
		double step = cnt[n] > COMM_FIT_ROWS ? (double)cnt[n] / COMM_FIT_ROWS : 1;
		for (double x = 0; x < cnt[n] && *ns < COMM_FIT_MAX; x += step)
			s[(*ns)++] = rows[n][(size_t)x];
	}
}

/* Which constant a sample's time depends on (the links comm.c builds). */
enum { CF_RING, CF_NVLS, CF_P2P, CF_PCIE, CF_BRIDGE, CF_COUNT };

static int comm_fit_class(const struct comm_sample *x)
{
	struct comm_link l, w;
	comm_link_init_params(x->g, NULL, NULL, &l, &w);
	if (!l.nvlink) {
		/* a ring inside a PCIe box's peer-to-peer group (l.peers,
		 * link_init() from systems.csv's pcie_p2p) shares the bridged
		 * pairs' constant; a wider one goes through host memory */
		if (x->op == COMM_SEND_RECV)
			return -1;
		return l.peers && x->n <= l.peers ? CF_BRIDGE : CF_PCIE;
	}
	if (l.peers && x->n > l.peers)
		return x->op == COMM_SEND_RECV ? -1 : CF_BRIDGE;
	/* a bridged pair's own link (not an NVSwitch board's): comm.c's
	 * NVLink constants were not fitted on it */
	if (l.peers && l.peers < 4)
		return -1;
	if (x->op == COMM_SEND_RECV)
		return CF_P2P;
	if (x->op == COMM_ALL_REDUCE && l.nvls_gbps > 0 && x->n >= NVLS_MIN_RANKS)
		return CF_NVLS;
	return CF_RING;
}

/* Mean relative error (%) of the samples of class c with constants p. */
static double comm_fit_err(const struct comm_sample *s, const int *cls, size_t n, int c,
			   const struct comm_params *p)
{
	double sum = 0, m = 0;
	const struct gpu_spec *lg = NULL;
	struct comm_link l, w;
	for (size_t i = 0; i < n; i++) {
		if (cls[i] != c && !(c == CF_RING && cls[i] == CF_NVLS))
			continue;
		if (s[i].g != lg) {
			comm_link_init_params(s[i].g, NULL, p, &l, &w);
			lg = s[i].g;
		}
		double t = comm_group_ns(s[i].op, s[i].bytes, (uint32_t)s[i].n, (uint32_t)s[i].n, &l) / 1e6;
		sum += s[i].w * fabs(t / s[i].ms - 1);
		m += s[i].w;
	}
	return m > 0 ? sum / m * 100 : NAN;
}

/* Grid search of one or two constants (b NULL: one), then a finer one
 * around the best: the least mean relative error over class c. */
static double comm_fit_grid(const struct comm_sample *s, const int *cls, size_t n, int c,
			    struct comm_params *p, double *a, double a0, double a1, double da,
			    double *b, double b0, double b1, double db)
{
	double best = INFINITY, ba = *a, bb = b ? *b : 0;
	for (int pass = 0; pass < 2; pass++) {
		for (double x = a0; x <= a1 + 1e-9; x += da)
			for (double y = b ? b0 : 0; y <= (b ? b1 + 1e-9 : 0); y += b ? db : 1) {
				*a = x;
				if (b)
					*b = y;
				double e = comm_fit_err(s, cls, n, c, p);
				if (e < best)
					best = e, ba = x, bb = y;
			}
		a0 = fmax(ba - da, da / 10), a1 = ba + da, da /= 10;
		if (b)
			b0 = fmax(bb - db, 0), b1 = bb + db, db /= 10;
	}
	*a = ba;
	if (b)
		*b = bb;
	return best;
}

int bench_comm_fit(const char *const *dirs, size_t ndirs, const uint32_t *cc_out, size_t ncc,
		   struct comm_params *p, double err_pct[5], char *err, size_t errlen)
{
	static struct comm_sample s[COMM_FIT_MAX];
	static int cls[COMM_FIT_MAX];
	size_t n = 0;
	*p = comm_default_params;
	for (size_t d = 0; d < ndirs; d++) {
		size_t ng;
		char **gd = prof_list_dir(dirs[d], &ng);
		if (!gd)
			continue;
		for (size_t k = 0; k < ng; k++) {
			const struct gpu_spec *g = comm_gpu(gd[k]);
			if (!g || gpu_cc_in(g->cc, cc_out, ncc))
				continue;
			static const char *const files[] = { "all_reduce.csv", "send_recv.csv" };
			size_t first = n;
			for (int f = 0; f < 2; f++) {
				char path[4096];
				snprintf(path, sizeof(path), "%s/%s/%s", dirs[d], gd[k], files[f]);
				comm_fit_file(path, g, comm_of_file(files[f]), 1e6, s, &n);
			}
			for (size_t i = first; i < n; i++)
				s[i].sys = (int)(d * 64 + k);
		}
		prof_free_list(gd, ng);
	}
	if (!n) {
		snprintf(err, errlen, "no NCCL measurements left to fit on");
		return -1;
	}
	int have[CF_COUNT] = { 0 };
	for (size_t i = 0; i < n; i++)
		if ((cls[i] = comm_fit_class(&s[i])) >= 0)
			have[cls[i]] = 1;
	/* every system (folder) and class weighs the same: the mean of the
	 * systems' mean errors, as comm.c's constants were fitted */
	for (size_t i = 0; i < n; i++) {
		double c = 0;
		for (size_t j = 0; j < n; j++)
			c += s[j].sys == s[i].sys && (cls[j] == cls[i] || (cls[i] <= CF_NVLS && cls[j] <= CF_NVLS));
		s[i].w = 1 / c;
	}
	for (int c = 0; c < CF_COUNT; c++)
		err_pct[c] = NAN;
	/* the ring's efficiency and the latency NVLS shares, on both (CF_RING
	 * counts the NVLS rows too), and NVLS's efficiency, in turn until
	 * they settle; no NVLS measurement left: the switches' reduction at
	 * the links' ring efficiency (nothing says it is less) */
	for (int it = 0; it < 4 && (have[CF_RING] || have[CF_NVLS]); it++) {
		err_pct[CF_RING] = comm_fit_grid(s, cls, n, CF_RING, p, &p->nvlink_eff, 0.3, 1.0, 0.02,
						 &p->nvlink_latency_us, 0, 100, 2);
		if (have[CF_NVLS])
			err_pct[CF_NVLS] = comm_fit_grid(s, cls, n, CF_NVLS, p, &p->nvls_eff, 0.2, 1.0,
							 0.02, NULL, 0, 0, 0);
	}
	if (!have[CF_NVLS])
		p->nvls_eff = p->nvlink_eff;
	if (have[CF_P2P])
		err_pct[CF_P2P] = comm_fit_grid(s, cls, n, CF_P2P, p, &p->nvlink_p2p_eff, 0.3, 1.0, 0.02,
						&p->nvlink_p2p_us, 0, 40, 1);
	if (have[CF_PCIE])
		err_pct[CF_PCIE] = comm_fit_grid(s, cls, n, CF_PCIE, p, &p->pcie_eff, 0.1, 1.0, 0.02,
						 NULL, 0, 0, 0);
	if (have[CF_BRIDGE])
		err_pct[CF_BRIDGE] = comm_fit_grid(s, cls, n, CF_BRIDGE, p, &p->pcie_p2p_eff, 0.1, 1.0,
						   0.02, NULL, 0, 0, 0);
	/* no row of the host-memory path left in the fit (no PCIe box
	 * without peer-to-peer, nor a ring wider than a box's group): the
	 * peer-to-peer rate, the fastest that path could run, rather than
	 * the compiled-in figure; and the other way round */
	if (!have[CF_PCIE] && have[CF_BRIDGE])
		p->pcie_eff = p->pcie_p2p_eff;
	if (!have[CF_BRIDGE] && have[CF_PCIE])
		p->pcie_p2p_eff = p->pcie_eff;
	return 0;
}
