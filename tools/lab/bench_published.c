/*
 * bench_published.c - surfer-bench published --data DIR: published training
 * step times (DIR/training-runs.csv, each run's configuration in its
 * columns; DIR/configs/ the model configs written from the published
 * dimensions) predicted from the --model flags that express each run.
 *
 * Each row's columns become surfer-analyze --model flags (printed per run,
 * so any line can be rerun by hand): the model and GPU by name, the
 * micro-batch, sequence, data/tensor/pipeline degrees, gradient
 * accumulation (the GA the row's assumptions state), FP8 and its recipe,
 * activation checkpointing, the optimizer, ZeRO/FSDP and the stack
 * (Transformer Engine for NeMo/Megatron rows, eager for the others), the
 * context-parallel degree, the interleaved pipeline's model chunks (VP)
 * and the nodes (8 GPUs each).  What a row uses
 * that no flag expresses yet is named in the "lacks" column, and so is a
 * row whose activation checkpointing is unstated and taken to be full
 * because the estimate without it does not fit the GPU.
 * --before predicts with the flags the --model path had before activation
 * checkpointing, gradient accumulation, FP8 and stacks (one micro-batch
 * times GA; FP8 runs as BF16; context parallelism as a GPU's share of the
 * sequence; one node's collectives), for comparison.
 *
 * Nothing is fitted here: the runs only check the predictions.
 */
#include "tools/lab/bench_published.h"
#include "tools/lab/stats.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/model/run.h"
#include "gpu_specs/gpu.h"
#include "trace/csv.h"

#define PROG "surfer-bench"

/* The columns a run is read from. */
enum col {
	C_ID, C_MODEL, C_GPU, C_NGPUS, C_DP, C_TP, C_PP, C_ZERO, C_MB, C_SEQ, C_DTYPE, C_ATTN,
	C_CKPT, C_OPTIM, C_COMPILE, C_MS, C_ASSUME, C_SOURCE, C_COUNT
};
static const char *const col_names[C_COUNT] = {
	"id", "model", "gpu", "n_gpus", "dp", "tp", "pp", "zero_or_fsdp", "micro_batch", "seq",
	"dtype", "attention", "act_ckpt", "optimizer", "compile", "ms_per_iter_derived",
	"assumptions", "source"
};

/* Model names of the CSV (prefix, case-insensitive) and the config that
 * writes them: a file of DIR/configs or a built-in name. */
static const struct {
	const char *prefix, *config;
	int file;
} models[] = {
	{ "Llama 3.1 8B", "Meta-Llama-3-8B.json", 1 }, { "Llama 3 8B", "Meta-Llama-3-8B.json", 1 },
	{ "Llama 3.1 70B", "llama-3-70b.json", 1 }, { "Llama 3 70B", "llama-3-70b.json", 1 },
	{ "Llama 2 7B", "llama-2-7b", 0 }, { "GPT-3 175B", "gpt3-175b-nemo.json", 1 },
	{ "GPT-3 5B", "gpt3-5b-nemo.json", 1 }, { "Nemotron-4 15B", "nemotron-4-15b-approx.json", 1 },
	{ "MPT-125m", "mpt-125m-bench.json", 1 }, { "MPT-1b", "mpt-1b-bench.json", 1 },
	{ "MPT-7b", "mpt-7b-bench.json", 1 }, { "MPT-13b", "mpt-13b-bench.json", 1 },
	{ "MPT-70b", "mpt-70b-bench.json", 1 }, { "llama-1B", "nanotron-llama-1b.json", 1 },
};

/* GPU names of the CSV (substring) to surfer's ids, first match wins. */
static const struct {
	const char *sub, *id;
} gpus[] = {
	{ "H100", "h100-sxm" }, { "H200", "h200" }, { "B200", "b200" },
	{ "A100 80GB", "a100-sxm4-80" }, { "A100 40GB", "a100-sxm4-40" },
};

static int has(const char *s, const char *sub)
{
	return strcasestr(s, sub) != NULL;
}

/* Whether word (case as given) stands in s on its own: "TE" in "(TE)",
 * not in "DEFAULT". */
static int has_word(const char *s, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = strstr(s, word); p; p = strstr(p + 1, word))
		if ((p == s || !isalnum((unsigned char)p[-1])) && !isalnum((unsigned char)p[n]))
			return 1;
	return 0;
}

/* The number after "key" in s up to the clause's end (';', ". ", " micro",
 * or a ')' closing nothing opened after the key): its last integer, so
 * that "GA = 128/(DP2*MBS1) = 64" gives 64.  0 when absent. */
static unsigned last_int_after(const char *s, const char *key)
{
	const char *p = strstr(s, key);
	if (!p)
		return 0;
	p += strlen(key);
	unsigned last = 0, cur = 0;
	int depth = 0, in = 0;
	for (; *p; p++) {
		if (*p == ';' || (*p == '.' && (p[1] == ' ' || !p[1])) || !strncmp(p, " micro", 6) ||
		    !strncmp(p, " x ", 3))
			break;
		if (*p == '(')
			depth++;
		if (*p == ')' && depth-- == 0)
			break;
		if (isdigit((unsigned char)*p)) {
			cur = in ? cur * 10 + (unsigned)(*p - '0') : (unsigned)(*p - '0');
			in = 1;
		} else {
			if (in)
				last = cur;
			in = 0;
		}
	}
	return in ? cur : last;
}

struct run {
	char id[16], flags[512], lacks[128];
	const char *args[40];        /* name, value pairs for model_cli_set */
	char store[40][160];
	int nargs;
	unsigned ngpus, ga;
	int ckpt_unstated;           /* the row's act_ckpt says nothing        */
	double measured_ms, predicted_ms;
	int ok;
	char why[200];
};

static void arg(struct run *r, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void arg(struct run *r, const char *name, const char *fmt, ...)
{
	if (r->nargs + 2 > 40)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->store[r->nargs + 1], sizeof(r->store[0]), fmt, ap);
	va_end(ap);
	snprintf(r->store[r->nargs], sizeof(r->store[0]), "%s", name);
	r->args[r->nargs] = r->store[r->nargs];
	r->args[r->nargs + 1] = r->store[r->nargs + 1];
	size_t len = strlen(r->flags);
	if (strcmp(name, "model") && strcmp(name, "target"))
		snprintf(r->flags + len, sizeof(r->flags) - len, "%s--%s%s%s", len ? " " : "", name,
			 r->store[r->nargs + 1][0] ? " " : "", r->store[r->nargs + 1]);
	r->nargs += 2;
}

static void lack(struct run *r, const char *what)
{
	size_t len = strlen(r->lacks);
	snprintf(r->lacks + len, sizeof(r->lacks) - len, "%s%s", len ? "," : "", what);
}

/* The attention kernel a row names (its attention, dtype and compile
 * columns): llm-foundry's default attn_impl 'triton' runs flash-attn's
 * Triton kernel; its attn_impl 'flash' (sweep.py --attn_impl flash, the
 * tables of 2023-10 and 2024-01, before FlashAttention-3 existed) and
 * nanotron's flash-attn 2 run FA2; Transformer Engine's fused attention
 * is cuDNN's (what --stack te makes of flash, named); anything else
 * flash, the per-GPU default. */
static const char *row_attention(const char *attn, const char *dtype, const char *compile)
{
	if (has(attn, "Triton"))
		return "triton";
	if (has(attn, "flash-attn 2") || has(attn, "attn_impl flash"))
		return "fa2";
	if (has(attn, "cuDNN") || has_word(attn, "TE") || has_word(dtype, "TE") ||
	    has_word(compile, "TE"))
		return "cudnn";
	return "flash";
}

/* The flags of row f (columns at idx) into r.  before: today's flags. */
static void row_flags(struct run *r, char **f, const int *idx, const char *dir, int before)
{
#define F(c) (idx[c] >= 0 ? f[idx[c]] : "")
	snprintf(r->id, sizeof(r->id), "%s", F(C_ID));
	const char *model = F(C_MODEL), *zero = F(C_ZERO), *dtype = F(C_DTYPE);
	const char *assume = F(C_ASSUME);
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		if (!strncasecmp(model, models[i].prefix, strlen(models[i].prefix))) {
			if (models[i].file)
				arg(r, "model", "%s/configs/%s", dir, models[i].config);
			else
				arg(r, "model", "%s", models[i].config);
			break;
		}
	for (size_t i = 0; i < sizeof(gpus) / sizeof(gpus[0]); i++)
		if (has(F(C_GPU), gpus[i].sub)) {
			arg(r, "target", "%s", gpus[i].id);
			break;
		}
	r->ngpus = (unsigned)atoi(F(C_NGPUS));
	unsigned dp = (unsigned)atoi(F(C_DP)), tp = (unsigned)atoi(F(C_TP)), pp = (unsigned)atoi(F(C_PP));
	unsigned mb = (unsigned)atoi(F(C_MB)), seq = (unsigned)atoi(F(C_SEQ));
	unsigned cp = last_int_after(zero, "CP=");
	unsigned ga = last_int_after(assume, "GA");
	if (!ga)
		ga = last_int_after(assume, "GradAccum");
	r->ga = ga ? ga : 1;
	if (cp > 1 && before) {
		seq /= cp;
		lack(r, "cp");
	}
	if (r->ngpus > 8 && before)
		lack(r, "nodes");
	/* "VP=5 (interleaved 1F1B)": the number right after the key */
	const char *vpp_at = strstr(zero, "VP=");
	unsigned vp = vpp_at ? (unsigned)strtoul(vpp_at + 3, NULL, 10) : 0;
	if (vp > 1 && before)
		lack(r, "interleaved-pp");
	arg(r, "mode", "training");
	arg(r, "batch", "%u", before && pp > 1 ? mb * r->ga : mb);
	arg(r, "seq", "%u", seq);
	int fp8 = has(dtype, "FP8");
	arg(r, "dtype", "%s", fp8 && !before ? "fp8" : "bf16");
	if (fp8 && !before)
		arg(r, "fp8-recipe", "%s", has(dtype, "current scaling") ? "tensorwise" : "delayed");
	arg(r, "attention", "%s", before ? "sdpa" : row_attention(F(C_ATTN), F(C_DTYPE), F(C_COMPILE)));
	/* nanotron's Llama runs its norms as TritonRMSNorm (one kernel
	 * each way, src/nanotron/models/llama.py); Transformer Engine's are
	 * fused by --stack te */
	if (!before && has(F(C_SOURCE), "nanotron"))
		arg(r, "norm", "%s", "fused");
	const char *opt = F(C_OPTIM);
	int fused = has(opt, "fused") || has(opt, "Megatron distributed Adam");
	arg(r, "optimizer", "%s", before ? "adamw" : fused ? "adamw-fused" : "adamw");
	if (dp > 1)
		arg(r, "dp", "%u", dp);
	if (tp > 1)
		arg(r, "tp", "%u", tp);
	/* Megatron's sequence_parallel, nanotron's tp_mode REDUCE_SCATTER */
	if (tp > 1 && !before && (has(zero, "sequence parallel") || has(assume, "REDUCE_SCATTER")))
		arg(r, "sequence-parallel", "%s", "");
	if (pp > 1)
		arg(r, "pp", "%u", pp);
	if (pp > 1 && before)
		arg(r, "microbatches", "%u", r->ga);
	/* a gradient-accumulation micro-batch of mb sequences is one pipeline
	 * microbatch (Megatron's and nanotron's GA is the pipeline's count) */
	if (pp > 1 && !before)
		arg(r, "microbatches", "1");
	if (pp > 1 && vp > 1 && !before)
		arg(r, "vpp", "%u", vp);
	/* nanotron splits its pipeline blocks by compute cost (build_model),
	 * Megatron evenly (the default) */
	if (pp > 1 && !before && has(F(C_SOURCE), "nanotron"))
		arg(r, "pp-partition", "%s", "cost");
	if (cp > 1 && !before)
		arg(r, "cp", "%u", cp);
	if (r->ngpus > 8 && !before) {
		arg(r, "nodes", "%u", (r->ngpus + 7) / 8);
		arg(r, "gpus-per-node", "8");
	}
	if (dp > 1) {
		if (has(zero, "FSDP") && !has(zero, "FSDP=0")) {
			arg(r, "zero", "3");
			/* which FSDP the row names (the model's default: FSDP2,
			 * Megatron's own under TE); Composer's PURE mode
			 * reduces in BF16, its DEFAULT in FP32 */
			if (!before && has(zero, "FSDP1"))
				arg(r, "fsdp", "1");
			else if (!before && has(zero, "FSDP2"))
				arg(r, "fsdp", "2");
			if (!before && has(dtype, "PURE"))
				arg(r, "fsdp-reduce", "bf16");
		}
		else if (has(zero, "distributed optimizer") || has(zero, "ZeRO-1") ||
			 has(zero, "distributed Adam"))
			arg(r, "zero", "1");
	}
	if (!before) {
		if (r->ga > 1)
			arg(r, "grad-accum", "%u", r->ga);
		const char *ck = F(C_CKPT);
		r->ckpt_unstated = !strncasecmp(ck, "unstated", 8);
		if (!strncasecmp(ck, "full", 4))
			arg(r, "act-ckpt", "full");
		else if (!strncasecmp(ck, "selective", 9))
			arg(r, "act-ckpt", "selective");
		int te = has_word(dtype, "TE") || has_word(F(C_ATTN), "TE") ||
			 has_word(F(C_COMPILE), "TE");
		if (!strncasecmp(F(C_COMPILE), "yes", 3))
			arg(r, "stack", "compile");
		else if (te)
			arg(r, "stack", "te");
		/* clipping is the stacks' default; a row may say it is off */
		if (has(assume, "no grad clipping") || has(assume, "no gradient clipping"))
			arg(r, "no-grad-clip", "%s", "");
		/* FP32 gradient accumulation (te does it in its wgrad GEMMs) */
		if (!te && (has(dtype, "fp32 grad") || has(assume, "accumulate_grad_in_fp32")))
			arg(r, "grad-fp32", "%s", "");
	}
	r->measured_ms = atof(F(C_MS));
#undef F
}

/* Predicts r: 0 with r->predicted_ms, else r->why. */
static int predict_run(struct run *r, int before)
{
	struct model_cli m;
	struct model_config c;
	const struct gpu_spec *g = NULL;
	char err[200];
	model_cli_init(&m);
	for (int i = 0; i < r->nargs; i += 2) {
		if (!strcmp(r->args[i], "target")) {
			g = gpu_find(r->args[i + 1]);
			continue;
		}
		if (model_cli_set(&m, r->args[i], r->args[i + 1], err, sizeof(err))) {
			snprintf(r->why, sizeof(r->why), "%s", err);
			return -1;
		}
	}
	if (!m.model || !g) {
		snprintf(r->why, sizeof(r->why), "no model config or GPU for this row");
		return -1;
	}
	if (model_config_resolve(m.model, &c, err, sizeof(err))) {
		snprintf(r->why, sizeof(r->why), "%s", err);
		return -1;
	}
	if (model_target_check(&m.opts, g, err, sizeof(err))) {
		snprintf(r->why, sizeof(r->why), "%s", err);
		return -1;
	}
	struct model_seq s;
	struct model_timing t;
	if (model_pp_pick_stage(&c, &m.opts, g, model_cli_launch_ns(&m)) < 0) {
		snprintf(r->why, sizeof(r->why), "no pipeline stage could be predicted");
		return -1;
	}
	if (model_build(&c, &m.opts, &s, err, sizeof(err))) {
		snprintf(r->why, sizeof(r->why), "%s", err);
		return -1;
	}
	/* A published run fitted its GPUs: where the row leaves activation
	 * checkpointing unstated and the tensors saved for backward alone,
	 * without it, exceed the GPU's memory, every block is taken to be
	 * checkpointed (the flag printed, "act-ckpt-assumed" in lacks).  The
	 * activations alone, not the whole estimate: the weights', gradients'
	 * and optimizer's share depends on the stack's precision policy, which
	 * these rows do not state either, and a run near the limit (MB2: Llama 3
	 * 8B, 2 x 8192 tokens on a B200, about 190 GiB in all, under 100 of it
	 * activations) would flip with it. */
	if (!before && r->ckpt_unstated && m.opts.mode == MODEL_TRAINING &&
	    m.opts.act_ckpt == MODEL_CKPT_NONE) {
		struct model_memory mm;
		model_memory(&c, &m.opts, &s, &mm);
		if (mm.activations > gpu_mem_usable_bytes(g)) {
			model_seq_release(&s);
			m.opts.act_ckpt = MODEL_CKPT_FULL;
			if (model_build(&c, &m.opts, &s, err, sizeof(err))) {
				snprintf(r->why, sizeof(r->why), "%s", err);
				return -1;
			}
			arg(r, "act-ckpt", "full");
			lack(r, "act-ckpt-assumed");
		}
	}
	int rc = model_time(&s, &m.opts, g, model_cli_launch_ns(&m), &t);
	model_seq_release(&s);
	if (rc) {
		snprintf(r->why, sizeof(r->why), "prediction failed (%d)", rc);
		return -1;
	}
	r->predicted_ms = t.iteration_ns / 1e6;
	if (before && m.opts.pp <= 1)
		r->predicted_ms *= r->ga;
	return 0;
}

int bench_published_main(const struct bench_args *a)
{
	if (a->help) {
		printf("usage: " PROG " published --data DIR [--before]\n"
		       "  predicts DIR/training-runs.csv's step times from the --model flags that\n"
		       "  express each run (printed); --before with the flags of the --model path\n"
		       "  before activation checkpointing, gradient accumulation, FP8 and stacks\n");
		return 0;
	}
	if (!a->data) {
		fprintf(stderr, PROG ": published: --data DIR is needed\n");
		return 2;
	}
	char path[4096];
	snprintf(path, sizeof(path), "%s/training-runs.csv", a->data);
	struct csv_reader cr;
	if (csv_open(&cr, path, 0)) {
		fprintf(stderr, PROG ": published: cannot read '%s'\n", path);
		return 2;
	}
	int idx[C_COUNT], rc = csv_next(&cr);
	if (rc != 1) {
		fprintf(stderr, PROG ": published: '%s' has no header\n", path);
		csv_release(&cr);
		return 2;
	}
	for (int c = 0; c < C_COUNT; c++)
		if ((idx[c] = csv_col(&cr, col_names[c])) < 0 && c != C_SOURCE) {
			fprintf(stderr, PROG ": published: '%s' has no column '%s'\n", path, col_names[c]);
			csv_release(&cr);
			return 2;
		}
	struct run *runs = NULL;
	size_t n = 0;
	while ((rc = csv_next(&cr)) == 1) {
		struct run *nr = realloc(runs, (n + 1) * sizeof(*runs));
		if (!nr) {
			free(runs);
			csv_release(&cr);
			fprintf(stderr, PROG ": out of memory\n");
			return 1;
		}
		runs = nr;
		struct run *r = &runs[n++];
		memset(r, 0, sizeof(*r));
		char *row[64];
		for (size_t i = 0; i < 64; i++)
			row[i] = (char *)csv_field(&cr, i);
		row_flags(r, row, idx, a->data, a->before);
		r->ok = predict_run(r, a->before) == 0 && r->measured_ms > 0;
	}
	if (rc < 0) {
		fprintf(stderr, PROG ": published: %s\n", cr.err);
		free(runs);
		csv_release(&cr);
		return 2;
	}
	csv_release(&cr);

	printf("| run | GPUs | measured ms | predicted ms | error | lacks | flags |\n"
	       "|---|---|---|---|---|---|---|\n");
	double sum[2] = {0, 0}, all[256];
	size_t cnt[2] = {0, 0}, nall = 0, over = 0;
	double worst = 0;
	for (size_t i = 0; i < n; i++) {
		struct run *r = &runs[i];
		if (!r->ok) {
			printf("| %s | %u | %.1f | - | - | %s | %s (%s) |\n", r->id, r->ngpus,
			       r->measured_ms, r->lacks[0] ? r->lacks : "-", r->flags, r->why);
			continue;
		}
		double err = (r->predicted_ms - r->measured_ms) / r->measured_ms * 100;
		int across = r->ngpus > 8;
		sum[across] += fabs(err);
		cnt[across]++;
		if (nall < 256)
			all[nall++] = fabs(err);
		over += fabs(err) > 25;
		if (fabs(err) > worst)
			worst = fabs(err);
		printf("| %s | %u | %.1f | %.1f | %+.1f%% | %s | %s |\n", r->id, r->ngpus, r->measured_ms,
		       r->predicted_ms, err, r->lacks[0] ? r->lacks : "-", r->flags);
	}
	if (nall)
		qsort(all, nall, sizeof(all[0]), lab_cmp_double);
	double tot = sum[0] + sum[1];
	printf("\n%zu runs predicted of %zu: mean |error| %.1f%% (median %.1f%%, worst %.1f%%, %zu beyond 25%%); "
	       "inside one node (<= 8 GPUs) %.1f%% over %zu, across nodes %.1f%% over %zu\n",
	       nall, n, nall ? tot / nall : 0, nall ? (nall % 2 ? all[nall / 2]
	       : (all[nall / 2 - 1] + all[nall / 2]) / 2) : 0, worst, over,
	       cnt[0] ? sum[0] / cnt[0] : 0, cnt[0], cnt[1] ? sum[1] / cnt[1] : 0, cnt[1]);
	free(runs);
	return 0;
}
