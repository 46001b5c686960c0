/*
 * bench_published.c - surfer-bench published --data DIR: published training
 * step times (DIR/training-runs.csv, each run's configuration in its
 * columns; DIR/configs/ the model configs written from the published
 * dimensions) predicted from the --model flags that express each run.
 *
 * Each row's columns become surfer-analyze --model flags (printed per run,
 * so any line can be rerun by hand), and the run is predicted as
 * surfer-analyze predicts those flags (model_analysis_run): the model (a
 * config of DIR/configs or a built-in, by the row's model name or its
 * Hugging Face id), the GPU by name and any power cap the row states below
 * its TDP, the micro-batch, sequence, data/tensor/pipeline/expert degrees,
 * gradient accumulation (the GA the row's assumptions state), the dtype,
 * FP8 and its recipe, activation checkpointing, the optimizer, ZeRO/FSDP/
 * HSDP and offload, the stack (Transformer Engine for NeMo/Megatron rows,
 * torch.compile where the row says so, eager for the others), the
 * context-parallel degree, the interleaved pipeline's model chunks (VP),
 * CUDA graphs, and the nodes (8 GPUs each); an inference row (its mode column) as a
 * prefill, a decode step or a whole generation, by vLLM or SGLang where
 * the row names one.  The columns are free text, as their authors wrote
 * them; row_flags() says which words it reads.  What a row uses
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

#include <dirent.h>
#include <strings.h>
#include <unistd.h>

#include "analyzer/analyze.h"
#include "analyzer/model/run.h"
#include "analyzer/report.h"
#include "gpu_specs/gpu.h"
#include "predictor/interval.h"
#include "trace/csv.h"

#define PROG "surfer-bench"

/* The columns a run is read from. */
enum col {
	C_ID, C_MODEL, C_GPU, C_NGPUS, C_DP, C_TP, C_PP, C_ZERO, C_MB, C_SEQ, C_DTYPE, C_ATTN,
	C_CKPT, C_OPTIM, C_COMPILE, C_MS, C_ASSUME,
	C_SOURCE, C_HF, C_MODE, C_NEW,     /* optional, the first of them C_OPTIONAL */
	C_COUNT
};
#define C_OPTIONAL C_SOURCE
static const char *const col_names[C_COUNT] = {
	"id", "model", "gpu", "n_gpus", "dp", "tp", "pp", "zero_or_fsdp", "micro_batch", "seq",
	"dtype", "attention", "act_ckpt", "optimizer", "compile", "ms_per_iter_derived",
	"assumptions", "source", "hf_config", "mode", "new_tokens"
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

/* GPU names of the CSV (substring) to surfer's ids, first match wins:
 * for the words gpu_find() and gpu_named_by() do not take ("H100 80GB
 * SXM"). */
static const struct {
	const char *sub, *id;
} gpus[] = {
	{ "GH200", "gh200" }, { "H100", "h100-sxm" }, { "H200", "h200" }, { "GB200", "gb200" },
	{ "B200", "b200" }, { "A100 80GB", "a100-sxm4-80" }, { "A100 40GB", "a100-sxm4-40" },
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
	double low_ms, high_ms;           /* the prediction's interval          */
	int key;                          /* its method key (interval_method)   */
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

/* Whether a row names Transformer Engine ("TE" as a word in its dtype,
 * attention or compile column). */
static int row_names_te(char **f, const int *idx)
{
	static const int cols[] = { C_DTYPE, C_ATTN, C_COMPILE };
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		if (idx[cols[i]] >= 0 && has_word(f[idx[cols[i]]], "TE"))
			return 1;
	return 0;
}

/* The attention kernel a row names (its attention column, and te: the row
 * names Transformer Engine): llm-foundry's default attn_impl 'triton' runs flash-attn's
 * Triton kernel; its attn_impl 'flash' (sweep.py --attn_impl flash, the
 * tables of 2023-10 and 2024-01, before FlashAttention-3 existed) and
 * nanotron's flash-attn 2 run FA2; FlashAttention-3 by its name (Hopper);
 * Transformer Engine's fused attention is cuDNN's (what --stack te makes
 * of flash, named); PyTorch's SDPA and the eager matmul-softmax chain by
 * their names; anything else flash, the per-GPU default. */
static const char *row_attention(const char *attn, int te)
{
	if (has(attn, "Triton"))
		return "triton";
	if (has(attn, "flash-attn 2") || has(attn, "attn_impl flash") || has_word(attn, "FA2") ||
	    has(attn, "FlashAttention-2") || has(attn, "FlashAttention 2") ||
	    has(attn, "flash_attention_2"))
		return "fa2";
	if (has(attn, "flash-attn 3") || has_word(attn, "FA3") || has(attn, "FlashAttention-3") ||
	    has(attn, "FlashAttention 3"))
		return "fa3";
	if (has(attn, "cuDNN") || te)
		return "cudnn";
	if (has(attn, "sdpa") || has(attn, "scaled_dot_product"))
		return "sdpa";
	if (!strncasecmp(attn, "eager", 5))
		return "eager";
	return "flash";
}

/* s's lower-case letters and digits alone, into out: "Meta-Llama-3-8B"
 * and "Llama 3 8B" as "metallama38b" and "llama38b". */
static void squeeze(const char *s, char *out, size_t n)
{
	size_t j = 0;
	for (; *s && j + 1 < n; s++)
		if (isalnum((unsigned char)*s))
			out[j++] = (char)tolower((unsigned char)*s);
	out[j] = 0;
}

/* s up to its first '(' or ';' (a row's note), trimmed, into out. */
static void name_part(const char *s, char *out, size_t n)
{
	size_t len = strcspn(s, "(;");
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	while (len && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	snprintf(out, n, "%.*s", (int)(len < n ? len : n - 1), s);
}

/* The file of dir/configs whose name holds want (squeezed) not inside a
 * longer number, the shortest such: "Llama 3.1 405B" finds
 * Meta-Llama-3.1-405B.json, "MPT-7b" mpt-7b-bench.json but not
 * mpt-70b-bench.json.  Writes its path into out; 0, or -1 when none. */
static int config_file_named(const char *dir, const char *want, char *out, size_t n)
{
	char w[128], stem[256];
	squeeze(want, w, sizeof(w));
	size_t wl = strlen(w), best = 0;
	if (wl < 3)
		return -1;
	char path[4096];
	snprintf(path, sizeof(path), "%s/configs", dir);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 5, ".json"))
			continue;
		char name[256];
		snprintf(name, sizeof(name), "%.*s", (int)(len - 5), e->d_name);
		squeeze(name, stem, sizeof(stem));
		size_t sl = strlen(stem);
		for (const char *p = strstr(stem, w); p; p = strstr(p + 1, w)) {
			int digit_before = p > stem && isdigit((unsigned char)p[-1]) &&
					   isdigit((unsigned char)w[0]);
			int digit_after = isdigit((unsigned char)p[wl]) && isdigit((unsigned char)w[wl - 1]);
			if (digit_before || digit_after)
				continue;
			if (!best || sl < best) {
				best = sl;
				if (snprintf(out, n, "%s/%s", path, e->d_name) >= (int)n)
					out[0] = 0;
			}
			break;
		}
	}
	closedir(d);
	return best ? 0 : -1;
}

/* The model of a row: the configs written for the given rows by name
 * (models[], where DIR/configs holds the file), else a config of dir/configs named as the row's model or
 * its Hugging Face id (hf_config's first word where it holds a '/'), else
 * a built-in of either name (model_config_resolve(): "Llama 3.1 405B",
 * "meta-llama/Llama-3.1-405B").  0 with the --model argument in out, or
 * -1. */
static int row_model(const char *model, const char *hf, const char *dir, char *out, size_t n)
{
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		if (!strncasecmp(model, models[i].prefix, strlen(models[i].prefix))) {
			if (!models[i].file) {
				snprintf(out, n, "%s", models[i].config);
				return 0;
			}
			snprintf(out, n, "%s/configs/%s", dir, models[i].config);
			if (access(out, R_OK) == 0)
				return 0;
			break;   /* a table without that file: by name, below */
		}
	char names[2][160];
	name_part(model, names[0], sizeof(names[0]));
	size_t id = strcspn(hf, " \t,;(");
	snprintf(names[1], sizeof(names[1]), "%.*s", (int)(id < 159 ? id : 159), hf);
	if (!strchr(names[1], '/'))
		names[1][0] = 0;
	for (int i = 0; i < 2; i++) {
		const char *slash = strrchr(names[i], '/');
		if (names[i][0] && !config_file_named(dir, slash ? slash + 1 : names[i], out, n))
			return 0;
	}
	struct model_config c;
	for (int i = 0; i < 2; i++)
		if (names[i][0] && !model_config_resolve(names[i], &c, NULL, 0)) {
			snprintf(out, n, "%s", names[i]);
			return 0;
		}
	return -1;
}

/* The GPU of a row's gpu column: its name before any note ("H100 SXM5
 * 80GB (DGX H100, 700W)"), found as --target finds it; where the name
 * stands for several boards (gpu_named_by(): "H100 80GB"), the PCIe one
 * where the column says PCIe, else the SXM one (a training cluster's);
 * else the first of gpus[] the column holds. */
static const struct gpu_spec *row_gpu(const char *col)
{
	char name[128];
	size_t len = strcspn(col, "(,");
	while (len && isspace((unsigned char)col[len - 1]))
		len--;
	snprintf(name, sizeof(name), "%.*s", (int)(len < 127 ? len : 127), col);
	const struct gpu_spec *g = name[0] ? gpu_find(name) : NULL;
	if (!g && name[0]) {
		const char *ids[8];
		size_t k = gpu_named_by(name, ids, 8);
		const char *want = has(col, "PCIe") ? "pcie" : "sxm";
		for (size_t i = 0; i < k && i < 8 && !g; i++)
			if (strstr(ids[i], want))
				g = gpu_find(ids[i]);
		if (!g && k >= 1)
			g = gpu_find(ids[0]);
	}
	for (size_t i = 0; !g && i < sizeof(gpus) / sizeof(gpus[0]); i++)
		if (has(col, gpus[i].sub))
			g = gpu_find(gpus[i].id);
	return g;
}

/* The watts a gpu column states ("700W", "500 W"), 0 when none. */
static unsigned row_watts(const char *col)
{
	for (const char *p = col; *p; p++) {
		if (!isdigit((unsigned char)*p) || (p > col && isalnum((unsigned char)p[-1])))
			continue;
		char *end;
		unsigned long w = strtoul(p, &end, 10);
		const char *q = end;
		while (*q == ' ')
			q++;
		if ((*q == 'W' || *q == 'w') && !isalnum((unsigned char)q[1]) && w >= 10 && w <= 5000)
			return (unsigned)w;
		p = end - 1;
	}
	return 0;
}

/* A count as a column writes it: "8192", "8k" or "8K" (x 1024), "128k". */
static unsigned row_count(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	if ((*end == 'k' || *end == 'K') && !isalnum((unsigned char)end[1]) && v < (1ul << 22))
		v *= 1024;
	return v > 0xffffffffu ? 0 : (unsigned)v;
}

/* The stage digit at p, past separators ("-3", " 2", "_3", ": 1"), 0
 * when none. */
static unsigned stage_digit(const char *p)
{
	while (*p == '-' || *p == ' ' || *p == '_' || *p == ':' || *p == '=')
		p++;
	return *p >= '1' && *p <= '3' ? (unsigned)(*p - '0') : 0;
}

/* The ZeRO stage a zero_or_fsdp column names ("ZeRO-3", "ZeRO stage 2",
 * "zero3"; Lightning's "deepspeed_stage_3", DeepSpeed's "stage": 3;
 * ZeRO++ and ZeRO-Infinity, both stage 3), 0 when none. */
static unsigned zero_stage(const char *s)
{
	if (has(s, "ZeRO++") || has(s, "ZeRO-Infinity") || has(s, "ZeRO Infinity"))
		return 3;
	const char *p = strcasestr(s, "zero");
	if (p) {
		p += 4;
		while (*p == '-' || *p == ' ' || *p == '_')
			p++;
		if (!strncasecmp(p, "stage", 5))
			p += 5;
		return stage_digit(p);
	}
	if (has(s, "deepspeed") && (p = strcasestr(s, "stage")))
		return stage_digit(p + 5);
	return 0;
}

/* Whether a compile column says the step was compiled: "yes", "true",
 * "torch.compile ..." (not "no (...)"), jit; XLA's is row_xla()'s. */
static int row_compiled(const char *s)
{
	if (!strncasecmp(s, "no", 2) || !strncasecmp(s, "false", 5) || !strncasecmp(s, "none", 4))
		return 0;
	return !strncasecmp(s, "yes", 3) || !strncasecmp(s, "true", 4) || has(s, "compile") ||
	       has(s, "inductor") || has(s, "max-autotune") || has(s, "reduce-overhead") ||
	       has_word(s, "jit") || has_word(s, "JIT");
}

/* Whether a row's step is a JAX program compiled by XLA (MaxText, Levanter,
 * Pax; or its compile column says XLA): its pointwise chains and norms are
 * fused as Inductor fuses them, so it runs as --stack compile, the PyTorch
 * program surfer builds, and says so in lacks. */
static int row_xla(const char *compile, const char *source)
{
	return has_word(compile, "XLA") || has(source, "maxtext") || has(source, "levanter") ||
	       has(source, "paxml") || has_word(source, "JAX") || has_word(source, "jax");
}

/* The first integer within a few characters after key in s, where key
 * starts a word ("r=16", "rank 64", "r: 8"; not the r= of "lr=3e-4"), 0
 * when none. */
static unsigned int_right_after(const char *s, const char *key)
{
	const char *p = strcasestr(s, key);
	while (p && p > s && isalnum((unsigned char)p[-1]))
		p = strcasestr(p + 1, key);
	if (!p)
		return 0;
	p += strlen(key);
	for (int i = 0; i < 3 && *p && !isdigit((unsigned char)*p); i++)
		p++;
	return isdigit((unsigned char)*p) ? (unsigned)strtoul(p, NULL, 10) : 0;
}

/* Whether s names LoRA or QLoRA as a word (not the "lora" of
 * "explorations"). */
static int names_lora(const char *s)
{
	static const char *const w[] = { "LoRA", "QLoRA", "lora", "qlora", "LORA", "QLORA", "Lora" };
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (has_word(s, w[i]))
			return 1;
	return 0;
}

/* Whether a mode column describes training: "training", "pretraining",
 * fine-tuning in its words ("fine-tuning", "SFT", LoRA and QLoRA,
 * DPO, RLHF), a forward and backward pass. */
static int row_trains(const char *mode)
{
	return has(mode, "train") || has(mode, "fine-tun") || has(mode, "finetun") ||
	       has(mode, "fine tun") || has_word(mode, "SFT") || names_lora(mode) ||
	       has_word(mode, "DPO") || has_word(mode, "RLHF") || has(mode, "fwd+bwd") ||
	       has(mode, "backward");
}

/* The LoRA rank a row states in text (its mode, model or assumptions):
 * "LoRA r=16", "lora_r = 32", "rank 64"; 8, PEFT's LoraConfig default, where it names
 * LoRA without one; 0 where it names no LoRA. */
static unsigned row_lora_rank(const char *text)
{
	if (!names_lora(text))
		return 0;
	static const char *const keys[] = { "r=", "r =", "lora_r", "rank" };
	unsigned r = 0;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]) && !r; i++)
		r = int_right_after(text, keys[i]);
	return r && r <= 4096 ? r : 8;
}

/* The activation checkpointing an act_ckpt column states: "none",
 * "selective" (torchtitan's per-op SAC, "op"; Megatron's
 * --recompute-activations, which sets recompute_granularity selective),
 * "full" (per block, per layer; the stacks' own words for checkpointing
 * every layer: Hugging Face's gradient_checkpointing, DeepSpeed's and
 * llm-foundry's activation checkpointing, checkpoint_activations, JAX's
 * remat, a bare yes); NULL where it states none of them (unstated, or
 * words not read). */
static const char *row_ckpt(const char *s)
{
	if (!strncasecmp(s, "unstated", 8))
		return NULL;
	if (!strncasecmp(s, "none", 4) || !strcasecmp(s, "no") || !strncasecmp(s, "no ", 3) ||
	    !strcasecmp(s, "off") || !strcasecmp(s, "false") || has(s, "without") ||
	    has(s, "disabled"))
		return "none";
	if (has(s, "selective") || has_word(s, "SAC") || has_word(s, "op") ||
	    has(s, "recompute-activations") || has(s, "recompute_activations"))
		return "selective";
	if (has(s, "full") || has(s, "per block") || has(s, "per layer") || has(s, "every layer"))
		return "full";
	if (has(s, "gradient checkpointing") || has(s, "gradient_checkpointing") ||
	    has(s, "activation checkpointing") || has(s, "activation_checkpointing") ||
	    has(s, "checkpoint_activations") || has_word(s, "remat") || !strcasecmp(s, "yes") ||
	    !strcasecmp(s, "true") || !strcasecmp(s, "on"))
		return "full";
	return NULL;
}

/* The serving engine an inference row names (any column), NULL for none:
 * Hugging Face's eager generate().  TensorRT-LLM and TGI, which surfer
 * does not build, run as vLLM (paged KV cache, CUDA graphs, fused
 * kernels, custom all-reduce), *approx set. */
static const char *row_engine(char **f, const int *idx, int *approx)
{
	*approx = 0;
	for (int c = 0; c < C_COUNT; c++) {
		if (idx[c] < 0 || c == C_MS)
			continue;
		if (has(f[idx[c]], "vLLM"))
			return "vllm";
		if (has(f[idx[c]], "SGLang"))
			return "sglang";
	}
	for (int c = 0; c < C_COUNT; c++)
		if (idx[c] >= 0 && c != C_MS &&
		    (has(f[idx[c]], "TensorRT-LLM") || has(f[idx[c]], "TRT-LLM") ||
		     has_word(f[idx[c]], "TGI") || has(f[idx[c]], "text-generation-inference"))) {
			*approx = 1;
			return "vllm";
		}
	return NULL;
}

/* The flags of an inference row (mode column set, not training): a prefill
 * of mb prompts of seq tokens ("prefill", "TTFT", or no new tokens), one
 * decode step of mb sequences after seq cached tokens ("decode", "TPOT",
 * "per output token"), else the whole generation of new_tokens. */
static void inference_flags(struct run *r, char **f, const int *idx, unsigned mb, unsigned seq,
			    unsigned tp, unsigned pp, const char *dtype_arg, int fp8)
{
#define F(c) (idx[c] >= 0 ? f[idx[c]] : "")
	int approx;
	const char *mode = F(C_MODE), *engine = row_engine(f, idx, &approx);
	if (approx)
		lack(r, "engine-as-vllm");
	unsigned newt = (unsigned)atoi(F(C_NEW));
	int decode = has(mode, "decode") || has(mode, "TPOT") || has(mode, "per output token") ||
		     has(mode, "inter-token");
	int prefill = !decode && (has(mode, "prefill") || has(mode, "TTFT") || newt == 0);
	if (engine)
		arg(r, "engine", "%s", engine);
	arg(r, "mode", "%s", decode ? "decode" : prefill ? (engine ? "prefill" : "inference")
	    : engine ? "serve" : "generate");
	arg(r, "batch", "%u", mb);
	arg(r, "seq", "%u", seq);
	if (!decode && !prefill)
		arg(r, "new-tokens", "%u", newt);
	arg(r, "dtype", "%s", fp8 ? "fp8" : dtype_arg);
	if (!engine)
		arg(r, "attention", "%s", row_attention(F(C_ATTN), row_names_te(f, idx)));
	if (tp > 1)
		arg(r, "tp", "%u", tp);
	if (pp > 1)
		arg(r, "pp", "%u", pp);
	/* an FP8 KV cache (vLLM's and SGLang's --kv-cache-dtype fp8) */
	const char *kv_cols[] = { F(C_DTYPE), F(C_ASSUME), mode };
	for (size_t i = 0; engine && i < sizeof(kv_cols) / sizeof(kv_cols[0]); i++)
		if (has(kv_cols[i], "kv cache fp8") || has(kv_cols[i], "fp8 kv") ||
		    has(kv_cols[i], "kv_cache_dtype fp8") || has(kv_cols[i], "kv_cache_dtype=fp8") ||
		    has(kv_cols[i], "kv-cache-dtype fp8")) {
			arg(r, "kv-cache-dtype", "fp8");
			break;
		}
	/* weights quantized below the row's dtype (AWQ, GPTQ, W4A16): built
	 * from a checkpoint's quantization_config, which a row's words do
	 * not give; said in lacks */
	if (has(F(C_DTYPE), "AWQ") || has(F(C_DTYPE), "GPTQ") || has(F(C_DTYPE), "int4") ||
	    has(F(C_DTYPE), "W4A16") || has(F(C_DTYPE), "4-bit") || has(F(C_DTYPE), "W8A16"))
		lack(r, "weight-quantization");
#undef F
}

/* The flags of row f (columns at idx) into r.  before: today's flags. */
static void row_flags(struct run *r, char **f, const int *idx, const char *dir, int before)
{
#define F(c) (idx[c] >= 0 ? f[idx[c]] : "")
	snprintf(r->id, sizeof(r->id), "%s", F(C_ID));
	const char *zero = F(C_ZERO), *dtype = F(C_DTYPE);
	const char *assume = F(C_ASSUME), *source = F(C_SOURCE), *mode = F(C_MODE);
	char model[4096];
	if (!row_model(F(C_MODEL), F(C_HF), dir, model, sizeof(model)))
		arg(r, "model", "%s", model);
	else
		snprintf(r->why, sizeof(r->why), "no model: '%.60s' is neither a config of "
			 "DIR/configs nor a built-in (--list-models)", F(C_MODEL));
	const struct gpu_spec *g = row_gpu(F(C_GPU));
	/* a board run below its TDP (a 500 W H100, a 330 W A100) */
	unsigned watts = g ? row_watts(F(C_GPU)) : 0;
	if (!(watts && g->tdp_w && watts < g->tdp_w) || before)
		watts = 0;
	if (g)
		arg(r, "target", "%s", g->id);
	else if (!r->why[0])
		snprintf(r->why, sizeof(r->why), "no GPU: '%.60s' is not one surfer knows "
			 "(--list-gpus)", F(C_GPU));
	r->ngpus = (unsigned)atoi(F(C_NGPUS));
	unsigned dp = (unsigned)atoi(F(C_DP)), tp = (unsigned)atoi(F(C_TP)), pp = (unsigned)atoi(F(C_PP));
	unsigned mb = (unsigned)atoi(F(C_MB)), seq = row_count(F(C_SEQ));
	int fp8 = has(dtype, "FP8") || has(dtype, "float8");
	/* FP4 linears (NVFP4, MXFP4 on Blackwell): surfer builds FP8 ones
	 * at the most, the nearer rate; said in lacks */
	if (!before && !fp8 && (has(dtype, "FP4") || has(dtype, "float4"))) {
		fp8 = 1;
		lack(r, "fp4-as-fp8");
	}
	/* Lightning's precision names too: "16-mixed" FP16 with FP32
	 * master weights, "32-true" FP32 ("bf16-true", "16-true": pure
	 * 16-bit, below) */
	const char *dtype_arg = has(dtype, "bf16") || has(dtype, "bfloat16") ? "bf16"
		: has(dtype, "fp16") || has(dtype, "float16") || has(dtype, "16-mixed") ||
		  has(dtype, "16-true") ? "fp16"
		: has(dtype, "tf32") ? "tf32"
		: has(dtype, "fp32") || has(dtype, "float32") || has(dtype, "32-true") ||
		  !strcmp(dtype, "32") ? "fp32" : "bf16";
	if (mode[0] && !row_trains(mode)) {
		r->ga = 1;
		/* an inference row on several GPUs without its layout: one
		 * engine instance over all of them, tensor parallel (vLLM's and
		 * SGLang's --tensor-parallel-size N) */
		if (!before && !tp && !pp && !dp && r->ngpus > 1)
			tp = r->ngpus;
		inference_flags(r, f, idx, mb, seq, tp, pp, dtype_arg, fp8);
		if (watts)
			arg(r, "power-limit", "%u", watts);
		r->measured_ms = atof(F(C_MS));
		return;
	}
	unsigned cp = last_int_after(zero, "CP=");
	unsigned ep = last_int_after(zero, "EP=");
	if (!ep)
		ep = last_int_after(assume, "EP=");
	/* a row that states its GPUs but not its data-parallel degree: the dp
	 * that fills them with its tp, pp and cp (as --nodes does), so that
	 * its FSDP or ZeRO shards over them */
	unsigned model_par = (tp ? tp : 1) * (pp ? pp : 1) * (cp ? cp : 1);
	if (!dp && !before && r->ngpus > model_par && r->ngpus % model_par == 0)
		dp = r->ngpus / model_par;
	unsigned ga = last_int_after(assume, "GA");
	if (!ga)
		ga = last_int_after(assume, "GradAccum");
	/* else the global batch the row states: GBS = micro-batch x dp x GA
	 * (Megatron's global_batch_size, torchtitan's global batch) */
	unsigned gbs = last_int_after(assume, "GBS");
	if (!gbs)
		gbs = last_int_after(assume, "global batch");
	/* no micro-batch stated: the global batch's share of one dp rank and
	 * accumulation step, where the row gives both */
	if (!mb && !before && gbs && dp && gbs % (dp * (ga ? ga : 1)) == 0)
		mb = gbs / (dp * (ga ? ga : 1));
	if (!mb && !r->why[0])
		snprintf(r->why, sizeof(r->why), "no micro-batch: the row states none, nor a global "
			 "batch to derive it from");
	if (!ga && gbs && mb && dp && gbs % (mb * dp) == 0)
		ga = gbs / (mb * dp);
	r->ga = ga ? ga : 1;
	if (cp > 1 && before) {
		seq /= cp;
		lack(r, "cp");
	}
	if (r->ngpus > 8 && before)   /* one node's collectives, as then */
		lack(r, "nodes");
	/* "VP=5 (interleaved 1F1B)": the number right after the key */
	const char *vpp_at = strstr(zero, "VP=");
	unsigned vp = vpp_at ? (unsigned)strtoul(vpp_at + 3, NULL, 10) : 0;
	if (vp > 1 && before)
		lack(r, "interleaved-pp");
	/* Transformer Engine: named in a column, or the stack of a Megatron or
	 * NeMo source (their transformer_impl default) */
	int te_named = row_names_te(f, idx);
	int te = te_named || has(source, "Megatron") || has(source, "NeMo");
	arg(r, "mode", "training");
	arg(r, "batch", "%u", before && pp > 1 ? mb * r->ga : mb);
	arg(r, "seq", "%u", seq);
	arg(r, "dtype", "%s", fp8 && !before ? "fp8" : before && strcmp(dtype_arg, "fp16") ? "bf16"
	    : dtype_arg);
	/* the recipe the row names; else Transformer Engine's default
	 * (delayed), torchao float8's (tensorwise) */
	if (fp8 && !before)
		arg(r, "fp8-recipe", "%s", has(dtype, "mxfp8") ? "mxfp8" : has(dtype, "rowwise") ? "rowwise"
		    : has(dtype, "delayed") ? "delayed"
		    : has(dtype, "current scaling") || has(dtype, "tensorwise") || has(dtype, "dynamic")
		    ? "tensorwise" : te ? "delayed" : "tensorwise");
	arg(r, "attention", "%s", before ? "sdpa" : row_attention(F(C_ATTN), te_named));
	/* nanotron's Llama runs its norms as TritonRMSNorm (one kernel
	 * each way, src/nanotron/models/llama.py); Transformer Engine's are
	 * fused by --stack te */
	if (!before && has(source, "nanotron"))
		arg(r, "norm", "%s", "fused");
	const char *opt = F(C_OPTIM);
	int fused = has(opt, "fused") || has(opt, "Megatron distributed Adam");
	/* an optimizer surfer does not build (Lion, Adafactor, Muon,
	 * Shampoo, SOAP) runs as AdamW, said in lacks */
	int other_opt = has(opt, "Lion") || has(opt, "Adafactor") || has(opt, "Muon") ||
			has(opt, "Shampoo") || has_word(opt, "SOAP");
	if (other_opt && !before)
		lack(r, "optimizer-as-adamw");
	arg(r, "optimizer", "%s", before ? "adamw" : has(opt, "8bit") || has(opt, "8-bit") ? "adamw-8bit"
	    : has_word(opt, "SGD") ? "sgd" : !strncasecmp(opt, "none", 4) ? "none"
	    : fused ? "adamw-fused" : "adamw");
	/* LoRA (PEFT's adapters on the decoder layers' linears) and QLoRA
	 * (their weights in NF4: bitsandbytes computes in the 16-bit dtype,
	 * the model's weights 16-bit, --precision pure) */
	char lora_text[8192];
	snprintf(lora_text, sizeof(lora_text), "%s; %s; %s", mode, F(C_MODEL), assume);
	unsigned lora = before ? 0 : row_lora_rank(lora_text);
	int qlora = lora && (has_word(lora_text, "QLoRA") || has_word(lora_text, "qlora") ||
			     has_word(lora_text, "QLORA"));
	if (lora) {
		arg(r, "lora", "%u", lora);
		if (qlora)
			arg(r, "qlora", "%s", "");
	}
	/* 16-bit weights, gradients and moments (Lightning's "bf16-true",
	 * "16-true"; "pure bf16"), and QLoRA's */
	if (!before && (qlora || ((has(dtype, "16-true") || has(dtype, "pure bf16") ||
				   has(dtype, "pure fp16")) && !fp8)))
		arg(r, "precision", "pure");
	if (dp > 1)
		arg(r, "dp", "%u", dp);
	if (tp > 1)
		arg(r, "tp", "%u", tp);
	/* Megatron's sequence_parallel, nanotron's tp_mode REDUCE_SCATTER;
	 * torchtitan's tensor-parallel plan always runs its norms as
	 * SequenceParallel (parallelize_llama) */
	if (tp > 1 && !before && (has(zero, "sequence parallel") || has(assume, "REDUCE_SCATTER") ||
				  has(source, "torchtitan")))
		arg(r, "sequence-parallel", "%s", "");
	/* TP's collectives split and overlapped with the GEMMs (torchtitan's
	 * async TP, Megatron's tp_comm_overlap): no flag yet */
	if (tp > 1 && !before && (has(zero, "async TP") || has(assume, "async TP") ||
				  has(F(C_COMPILE), "async TP") || has(zero, "tp_comm_overlap") ||
				  has(assume, "tp_comm_overlap") || has(assume, "TP comm overlap")))
		lack(r, "tp-comm-overlap");
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
	if (pp > 1 && !before && has(source, "nanotron"))
		arg(r, "pp-partition", "%s", "cost");
	if (cp > 1 && !before)
		arg(r, "cp", "%u", cp);
	if (ep > 1 && !before)
		arg(r, "ep", "%u", ep);
	/* the nodes of the GPU's system (8 GPUs of a DGX or HGX; 4 of a GB200
	 * NVL72 tray); before: the GPUs without cp's, in one node */
	const struct gpu_system *sys = g ? gpu_system_default(g) : NULL;
	unsigned per = sys && sys->gpus_per_node ? sys->gpus_per_node : 8;
	if (r->ngpus > per) {
		unsigned job = (dp ? dp : 1) * (tp ? tp : 1) * (pp ? pp : 1);
		arg(r, "nodes", "%u", before ? 1 : (r->ngpus + per - 1) / per);
		arg(r, "gpus-per-node", "%u", before ? job : per);
	}
	if (dp > 1) {
		unsigned stage = zero_stage(zero);
		/* FSDP's sharding strategies by their names too: FULL_SHARD,
		 * SHARD_GRAD_OP (ZeRO-2), HYBRID_SHARD (HSDP; its _ZERO2 variant
		 * ZeRO-2 inside the node); NO_SHARD is DDP */
		int hsdp = has_word(zero, "HSDP") || has(zero, "HYBRID_SHARD");
		int no_shard = has(zero, "NO_SHARD");
		if (!no_shard && (hsdp || (has(zero, "FSDP") && !has(zero, "FSDP=0")) ||
				  has(zero, "FULL_SHARD") || has(zero, "SHARD_GRAD_OP"))) {
			/* FULL_SHARD, or SHARD_GRAD_OP (ZeRO-2) where named */
			arg(r, "zero", "%s", has(zero, "SHARD_GRAD_OP") || has(zero, "SHARD_ZERO2") ||
			    stage == 2 ? "2" : "3");
			/* which FSDP the row names (the model's default: FSDP2,
			 * Megatron's own under TE); Composer's PURE mode
			 * reduces in BF16, its DEFAULT in FP32 */
			if (!before && has(zero, "FSDP1"))
				arg(r, "fsdp", "1");
			else if (!before && has(zero, "FSDP2"))
				arg(r, "fsdp", "2");
			if (!before && has(dtype, "PURE"))
				arg(r, "fsdp-reduce", "bf16");
			/* replicated across nodes: inside one node HSDP is
			 * FULL_SHARD over all of it */
			if (!before && hsdp && r->ngpus > per)
				arg(r, "hsdp", "%s", "");
		}
		else if (no_shard)
			;      /* DDP: nothing sharded */
		else if (stage >= 2)   /* DeepSpeed's ZeRO-2 and -3 */
			arg(r, "zero", "%u", stage);
		else if (has(zero, "distributed optimizer") || stage == 1 ||
			 has(zero, "distributed Adam"))
			arg(r, "zero", "1");
		if (!before && has(zero, "offload") && (stage || has(zero, "FSDP")))
			arg(r, "offload", "%s", "");
	}
	if (!before) {
		if (r->ga > 1)
			arg(r, "grad-accum", "%u", r->ga);
		const char *ck = row_ckpt(F(C_CKPT));
		r->ckpt_unstated = !strncasecmp(F(C_CKPT), "unstated", 8);
		if (ck && strcmp(ck, "none"))
			arg(r, "act-ckpt", "%s", ck);
		/* Megatron's recompute_method block: the first N layers of each
		 * stage (recompute_num_layers N) */
		unsigned nrc = last_int_after(F(C_CKPT), "recompute_num_layers");
		if (!nrc)
			nrc = last_int_after(assume, "recompute_num_layers");
		if (ck && !strcmp(ck, "full") && nrc &&
		    (has(F(C_CKPT), "block") || has(assume, "recompute_method block")))
			arg(r, "act-ckpt-layers", "%u", nrc);
		int xla = row_xla(F(C_COMPILE), source);
		if (xla || row_compiled(F(C_COMPILE))) {
			arg(r, "stack", "compile");
			if (xla)
				lack(r, "xla-as-inductor");
		} else if (te)
			arg(r, "stack", "te");
		/* the blocks captured as CUDA graphs (Megatron's
		 * cuda_graph_impl, Inductor's reduce-overhead) */
		if (has(F(C_COMPILE), "CUDA graph") || has(assume, "CUDA graph") ||
		    has(F(C_COMPILE), "reduce-overhead"))
			arg(r, "cuda-graphs", "%s", "");
		/* clipping is the stacks' default; a row may say it is off */
		if (has(assume, "no grad clipping") || has(assume, "no gradient clipping"))
			arg(r, "no-grad-clip", "%s", "");
		/* FP32 gradient accumulation (te does it in its wgrad GEMMs) */
		if (!te && (has(dtype, "fp32 grad") || has(assume, "accumulate_grad_in_fp32")))
			arg(r, "grad-fp32", "%s", "");
	}
	if (watts)
		arg(r, "power-limit", "%u", watts);
	r->measured_ms = atof(F(C_MS));
#undef F
}

/* The analysis of r's flags on its GPU, as surfer-analyze gives it; 0 with
 * *a and *rm (free both), else -1 with r->why. */
static int analyze_run(struct run *r, const struct gpu_spec *g, struct analysis **a,
		       struct report_model *rm)
{
	struct model_cli m;
	char err[200];
	model_cli_init(&m);
	for (int i = 0; i < r->nargs; i += 2)
		if (strcmp(r->args[i], "target") &&
		    model_cli_set(&m, r->args[i], r->args[i + 1], err, sizeof(err))) {
			snprintf(r->why, sizeof(r->why), "%s", err);
			return -1;
		}
	struct analysis_options ao;
	memset(&ao, 0, sizeof(ao));
	ao.targets = &g;
	ao.ntargets = 1;
	memset(rm, 0, sizeof(*rm));
	if (model_analysis_run(&m, &ao, a, rm, err, sizeof(err)) < 0) {
		snprintf(r->why, sizeof(r->why), "%s", err);
		return -1;
	}
	return 0;
}

/* Predicts r: 0 with r->predicted_ms, else r->why. */
static int predict_run(struct run *r, int before)
{
	const struct gpu_spec *g = NULL;
	int have_model = 0;
	for (int i = 0; i < r->nargs; i += 2) {
		if (!strcmp(r->args[i], "target"))
			g = gpu_find(r->args[i + 1]);
		have_model |= !strcmp(r->args[i], "model");
	}
	if (!have_model || !g || r->why[0])
		return -1;   /* row_flags() said why */
	struct analysis *a = NULL;
	struct report_model rm;
	if (analyze_run(r, g, &a, &rm))
		return -1;
	/* A published run fitted its GPUs: where the row leaves activation
	 * checkpointing unstated and the tensors saved for backward alone,
	 * without it, exceed the GPU's memory, every block is taken to be
	 * checkpointed (the flag printed, "act-ckpt-assumed" in lacks).  The
	 * activations alone, not the whole estimate: the weights', gradients'
	 * and optimizer's share depends on the stack's precision policy, which
	 * these rows do not state either, and a run near the limit (MB2: Llama 3
	 * 8B, 2 x 8192 tokens on a B200, about 190 GiB in all, under 100 of it
	 * activations) would flip with it. */
	int training = 0, ckpt = 0;
	for (int i = 0; i < r->nargs; i += 2) {
		training |= !strcmp(r->args[i], "mode") && !strcmp(r->args[i + 1], "training");
		ckpt |= !strcmp(r->args[i], "act-ckpt");
	}
	if (!before && r->ckpt_unstated && training && !ckpt &&
	    rm.memory.activations > gpu_mem_usable_bytes(g)) {
		analysis_free(a);
		report_model_free(&rm);
		arg(r, "act-ckpt", "full");
		lack(r, "act-ckpt-assumed");
		if (analyze_run(r, g, &a, &rm))
			return -1;
	}
	r->predicted_ms = a->targets[0].iteration_ns / 1e6;
	r->low_ms = a->targets[0].iteration_low_ns / 1e6;
	r->high_ms = a->targets[0].iteration_high_ns / 1e6;
	r->key = (int)a->targets[0].interval_method;
	analysis_free(a);
	report_model_free(&rm);
	if (before && r->ga > 1 && !strstr(r->flags, "--pp ")) {
		r->predicted_ms *= r->ga;
		r->low_ms *= r->ga;
		r->high_ms *= r->ga;
	}
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
		if ((idx[c] = csv_col(&cr, col_names[c])) < 0 && c < C_OPTIONAL) {
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
		r->ok = predict_run(r, a->before) == 0;
		if (r->ok && !(r->measured_ms > 0 && isfinite(r->measured_ms))) {
			r->ok = 0;
			snprintf(r->why, sizeof(r->why), "predicted %.1f ms; no measured time to compare "
				 "(ms_per_iter_derived)", r->predicted_ms);
		}
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
	struct lab_cover cov[2] = {{0}};  /* [the tensor-core iterations' key?] */
	for (size_t i = 0; i < n; i++) {
		struct run *r = &runs[i];
		if (r->ok)
			lab_cover_add(&cov[r->key == PRED_TCGEMM], r->measured_ms, r->low_ms, r->high_ms);
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
	/* the interval surfer-analyze gives each run (the committed table,
	 * whose tensor-core iterations hold Hopper's: these runs' H100s and
	 * H200s are in its sample, their A100s and B200s not) */
	size_t nkey[2];
	for (int k = 0; k < 2; k++)
		nkey[k] = cov[k].in + cov[k].below + cov[k].above;
	printf("%.0f%% intervals, the measured time inside: %zu of %zu", IV_DEFAULT_P * 100,
	       cov[0].in + cov[1].in, nkey[0] + nkey[1]);
	for (int k = 1; k >= 0; k--)
		if (nkey[k])
			printf("; %s iterations %zu of %zu (%zu below, %zu above)", k ? "tensor-core" : "other",
			       cov[k].in, nkey[k], cov[k].below, cov[k].above);
	printf("\n");
	free(runs);
	return 0;
}
