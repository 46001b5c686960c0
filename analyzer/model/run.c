/*
 * run.c - the --model path of surfer-analyze: option parsing, and the
 * model's predicted timeline packaged as a struct analysis (no origin, no
 * measurement; one iteration; kernels grouped by name per target;
 * collectives appear as the "comm" op, apart from compute).
 */
#include "analyzer/model/run.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analyzer/model/build.h"
#include "analyzer/model/program.h"
#include "trace/trace.h"

void model_cli_init(struct model_cli *m)
{
	memset(m, 0, sizeof(*m));
	model_opts_init(&m->opts);
	m->opts.loss = 1; /* a training step computes its loss */
	m->launch_ns = MODEL_LAUNCH_NS_DEFAULT;
	m->new_tokens = 128;
}

const char *const *model_cli_options(void)
{
	static const char *const names[] = {
		"model", "batch", "seq", "mode", "dtype", "optimizer", "attention",
		"head", "dp", "tp", "pp", "microbatches", "zero", "launch-us", "launch-us-from",
		"expert-capacity", "new-tokens", "plan", "jobs", "write-trace",
		"engine", "prompt-lens", "context-lens", "chunk", "act-ckpt", "grad-accum",
		"stack", "norm", "liger", "precision", "fp8-recipe", "cuda-graphs", "power-limit",
		"nodes", "gpus-per-node", "cp", "hsdp", "vpp", "ep", "mtp", "grad-fp32",
		"moe-route-nodes", "moe-dispatch-fp8", "moe-a2a-overlap", "act-ckpt-layers",
		"sequence-parallel", "no-grad-clip", "fsdp", "fsdp-reduce", "offload", "host-mem-gbps",
		"pp-partition", "kv-cache-dtype", "lora", "lora-targets", "qlora", NULL
	};
	return names;
}

/* A count of 1 to max into *out: 0, or -1 with max in *most (the limit
 * the error line names). */
static int parse_count(const char *v, uint32_t max, uint32_t *out, uint32_t *most)
{
	char *end;
	errno = 0;
	unsigned long x = strtoul(v, &end, 10);
	*most = max;
	if (errno || end == v || *end || v[0] == '-' || x == 0 || x > max)
		return -1;
	*out = (uint32_t)x;
	return 0;
}

struct launch {
	uint32_t thread;
	uint64_t cpu_ns;
};

static int cmp_launch(const void *a, const void *b)
{
	const struct launch *x = a, *y = b;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->cpu_ns < y->cpu_ns ? -1 : x->cpu_ns > y->cpu_ns;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The median gap between consecutive kernel launches of one CPU thread in
 * the trace at path (kernels with no CPU time left out; a truncated trace
 * as far as it goes), into m->launch_ns.  0, -2 with a reason, -1 memory. */
static int launch_from_trace(struct model_cli *m, const char *path, char *err, size_t errlen)
{
	struct trace_reader *r;
	struct trace_record rec;
	char rerr[200];
	struct launch *v = NULL;
	size_t n = 0, cap = 0;
	int rc;

	if (trace_reader_open(&r, path, rerr, sizeof(rerr)) < 0) {
		snprintf(err, errlen, "--launch-us-from: cannot read '%s': %s", path, rerr);
		return SURFER_EINVAL;
	}
	while ((rc = trace_reader_next(r, &rec, rerr, sizeof(rerr))) == 1) {
		if (rec.type != TRACE_KERNEL || !rec.u.kernel.cpu_ns)
			continue;
		if (n == cap) {
			size_t nc = cap ? 2 * cap : 4096;
			struct launch *nv = realloc(v, nc * sizeof(*nv));
			if (!nv) {
				free(v);
				trace_reader_free(r);
				return SURFER_ENOMEM;
			}
			v = nv;
			cap = nc;
		}
		v[n].thread = rec.u.kernel.thread;
		v[n++].cpu_ns = rec.u.kernel.cpu_ns;
	}
	trace_reader_free(r);
	if (rc < 0 && rc != TRACE_ETRUNC) {
		free(v);
		snprintf(err, errlen, "--launch-us-from: cannot read '%s': %s", path, rerr);
		return SURFER_EINVAL;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_launch);
	uint64_t *gap = malloc((n ? n : 1) * sizeof(*gap));
	size_t ng = 0;
	if (!gap) {
		free(v);
		return SURFER_ENOMEM;
	}
	for (size_t i = 1; i < n; i++)
		if (v[i].thread == v[i - 1].thread)
			gap[ng++] = v[i].cpu_ns - v[i - 1].cpu_ns;
	free(v);
	if (!ng) {
		free(gap);
		snprintf(err, errlen, "--launch-us-from: '%s' has no two kernel launches of one thread", path);
		return SURFER_EINVAL;
	}
	qsort(gap, ng, sizeof(*gap), cmp_u64);
	double med = ng % 2 ? (double)gap[ng / 2] : ((double)gap[ng / 2 - 1] + (double)gap[ng / 2]) / 2;
	free(gap);
	m->launch_ns = med < 1e9 ? med : 1e9;
	m->launch_gaps = ng;
	return 0;
}

/* m->lens[0..n) are the batch's sequences. */
static void lens_taken(struct model_cli *m, uint32_t n)
{
	m->nlens = n;
	m->opts.lens = m->lens;
	m->opts.nlens = n;
	m->opts.batch = n;
}

/* The lengths give the batch and each sequence's length: --batch and
 * --seq beside them would be dropped (or miscount the tokens). */
static int lens_and_shape(const struct model_cli *m, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s and %s exclude each other: the lengths give the batch (one per "
		 "sequence) and each sequence's length", m->lens_kind == 1 ? "--prompt-lens" : "--context-lens",
		 m->shape_opt);
	return SURFER_EINVAL;
}

/* --prompt-lens / --context-lens: a list, or @FILE[:COLUMN] (lens.h). */
static int set_lens(struct model_cli *m, const char *opt, const char *v, char *err, size_t errlen)
{
	int kind = !strcmp(opt, "prompt-lens") ? 1 : 2;
	if (m->lens_kind && m->lens_kind != kind) {
		snprintf(err, errlen, "--prompt-lens and --context-lens exclude each other");
		return SURFER_EINVAL;
	}
	m->lens_kind = kind;
	if (m->shape_opt)
		return lens_and_shape(m, err, errlen);
	uint32_t n = 0;
	int rc = model_lens_read(opt, v, m->lens, &n, err, errlen);
	if (!rc)
		lens_taken(m, n);
	return rc;
}

/* --new-tokens N (every sequence), or one count per sequence: a list or
 * @FILE[:COLUMN] (lens.h); new_tokens is then their most. */
static int set_new_tokens(struct model_cli *m, const char *v, char *err, size_t errlen)
{
	m->new_tokens_set = 1;
	m->n_new_lens = 0;
	m->opts.new_lens = NULL;
	uint32_t most;
	if (v[0] != '@' && !strchr(v, ',')) {
		if (!parse_count(v, MODEL_NEW_TOKENS_MAX, &m->new_tokens, &most))
			return 0;
		snprintf(err, errlen, "bad --new-tokens '%.40s': a count of 1 to %u, or one per "
			 "sequence (N1,N2,... or @FILE)", v, most);
		return SURFER_EINVAL;
	}
	uint32_t n = 0;
	int rc = model_lens_read("new-tokens", v, m->new_lens, &n, err, errlen);
	if (rc)
		return rc;
	uint32_t mx = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (m->new_lens[i] > MODEL_NEW_TOKENS_MAX) {
			snprintf(err, errlen, "--new-tokens: sequence %u generates %u tokens; at most %u",
				 i + 1, m->new_lens[i], MODEL_NEW_TOKENS_MAX);
			return SURFER_EINVAL;
		}
		mx = m->new_lens[i] > mx ? m->new_lens[i] : mx;
	}
	m->n_new_lens = n;
	m->new_tokens = mx;
	m->opts.new_lens = m->new_lens;
	return 0;
}

int model_cli_set(struct model_cli *m, const char *name, const char *v,
		  char *err, size_t errlen)
{
	struct model_opts *o = &m->opts;
	int bad = 0;
	uint32_t most = 0;    /* a count's limit, for the error line */
	m->set = 1;
	if (!strcmp(name, "model")) {
		m->model = v;
	} else if (!strcmp(name, "batch") || !strcmp(name, "seq")) {
		m->shape_opt = name[0] == 'b' ? "--batch" : "--seq";
		if (m->lens_kind)
			return lens_and_shape(m, err, errlen);
		bad = parse_count(v, 1u << 20, name[0] == 'b' ? &o->batch : &o->seq, &most);
	} else if (!strcmp(name, "mode")) {
		bad = model_mode_parse(v, &o->mode);
	} else if (!strcmp(name, "dtype")) {
		m->dtype_set = 1;
		o->fp8 = !strcasecmp(v, "fp8");
		if (o->fp8)
			o->dtype = GPU_DT_BF16;
		else
			bad = model_dtype_parse(v, &o->dtype);
	} else if (!strcmp(name, "optimizer")) {
		bad = model_optimizer_parse(v, &o->optimizer);
		o->fused_optimizer = !bad && !strcasecmp(v, "adamw-fused");
		o->adam_8bit = !bad && !strcasecmp(v, "adamw-8bit");
	} else if (!strcmp(name, "act-ckpt")) {
		bad = model_ckpt_parse(v, &o->act_ckpt);
		m->ckpt_set = 1;
	} else if (!strcmp(name, "stack")) {
		bad = model_stack_parse(v, &o->stack);
	} else if (!strcmp(name, "norm")) {
		bad = strcmp(v, "eager") && strcmp(v, "fused");
		o->fused_norm = !strcmp(v, "fused");
		o->norm_given = 1;
	} else if (!strcmp(name, "liger")) {
		/* Liger patches RMSNorm too unless --norm says otherwise, in
		 * whichever order the two come (rms_norm=False: --norm eager) */
		o->liger = 1;
		if (!o->norm_given)
			o->fused_norm = 1;
	} else if (!strcmp(name, "precision")) {
		bad = model_precision_parse(v, &o->precision);
	} else if (!strcmp(name, "fp8-recipe")) {
		bad = model_fp8_recipe_parse(v, &o->fp8_recipe);
		m->fp8_recipe_set = 1;
	} else if (!strcmp(name, "cuda-graphs")) {
		o->cuda_graphs = 1;
	} else if (!strcmp(name, "grad-accum")) {
		bad = parse_count(v, 1u << 16, &o->grad_accum, &most);
	} else if (!strcmp(name, "qlora")) {
		o->qlora = 1;
	} else if (!strcmp(name, "lora")) {
		bad = parse_count(v, 65536, &o->lora_rank, &most);
	} else if (!strcmp(name, "lora-targets")) {
		if (!strcmp(v, "all"))
			o->lora_attn_only = 0, m->lora_targets_set = 1;
		else if (!strcmp(v, "attn"))
			o->lora_attn_only = 1, m->lora_targets_set = 1;
		else
			bad = -1;
	} else if (!strcmp(name, "act-ckpt-layers")) {
		bad = parse_count(v, 1u << 16, &o->ckpt_layers, &most);
	} else if (!strcmp(name, "power-limit")) {
		char *end;
		double w = strtod(v, &end);
		if (end == v || *end || !(w >= 10) || w > 5000)
			bad = -1;
		else
			o->power_limit_w = w;
	} else if (!strcmp(name, "attention")) {
		bad = model_attention_parse(v, &o->attention);
		m->attention_set = 1;
	} else if (!strcmp(name, "head")) {
		if (!strcmp(v, "lm"))
			o->head = MODEL_HEAD_LM;
		else if (!strcmp(v, "classify"))
			o->head = MODEL_HEAD_CLASSIFY;
		else
			bad = -1;
	} else if (!strcmp(name, "dp")) {
		bad = parse_count(v, 65536, &o->dp, &most);
	} else if (!strcmp(name, "tp")) {
		bad = parse_count(v, 1024, &o->tp, &most);
	} else if (!strcmp(name, "pp")) {
		bad = parse_count(v, 1024, &o->pp, &most);
	} else if (!strcmp(name, "engine")) {
		bad = model_engine_parse(v, &o->engine);
	} else if (!strcmp(name, "kv-cache-dtype")) {
		/* vLLM's fp8 (= fp8_e4m3) and fp8_e5m2, SGLang's fp8_e4m3 and
		 * fp8_e5m2: a byte an element whichever */
		o->kv_fp8 = !strcasecmp(v, "fp8") || !strcasecmp(v, "fp8_e4m3") || !strcasecmp(v, "fp8_e5m2");
		bad = !o->kv_fp8 && strcasecmp(v, "auto");
	} else if (!strcmp(name, "prompt-lens") || !strcmp(name, "context-lens")) {
		return set_lens(m, name, v, err, errlen);
	} else if (!strcmp(name, "chunk")) {
		bad = parse_count(v, 1u << 24, &o->chunk, &most);
	} else if (!strcmp(name, "nodes")) {
		bad = parse_count(v, 65536, &o->nodes, &most);
	} else if (!strcmp(name, "gpus-per-node")) {
		bad = parse_count(v, 1024, &o->gpus_per_node, &most);
	} else if (!strcmp(name, "cp")) {
		bad = parse_count(v, 1024, &o->cp, &most);
	} else if (!strcmp(name, "vpp")) {
		bad = parse_count(v, 1024, &o->vpp, &most);
	} else if (!strcmp(name, "pp-partition")) {
		bad = model_pp_partition_parse(v, &o->pp_partition) ? -1 : 0;
	} else if (!strcmp(name, "hsdp")) {
		o->hsdp = 1;
	} else if (!strcmp(name, "ep")) {
		bad = parse_count(v, 65536, &o->ep, &most);
	} else if (!strcmp(name, "moe-route-nodes")) {
		bad = parse_count(v, 65536, &o->moe_route_nodes, &most);
	} else if (!strcmp(name, "moe-dispatch-fp8")) {
		o->moe_dispatch_fp8 = 1;
	} else if (!strcmp(name, "moe-a2a-overlap")) {
		o->moe_a2a_overlap = 1;
	} else if (!strcmp(name, "mtp")) {
		bad = parse_count(v, 8, &o->mtp, &most);
	} else if (!strcmp(name, "grad-fp32")) {
		o->grad_fp32 = 1;
	} else if (!strcmp(name, "offload")) {
		o->offload = 1;
	} else if (!strcmp(name, "host-mem-gbps")) {
		char *end;
		double g = strtod(v, &end);
		if (end == v || *end || !(g > 0) || g > 100000)
			bad = -1;
		else
			o->host_mem_gbps = g;
	} else if (!strcmp(name, "sequence-parallel")) {
		o->sp = 1;
	} else if (!strcmp(name, "no-grad-clip")) {
		o->no_grad_clip = 1;
	} else if (!strcmp(name, "fsdp")) {
		bad = model_fsdp_parse(v, &o->fsdp);
	} else if (!strcmp(name, "fsdp-reduce")) {
		if (!strcasecmp(v, "fp32"))
			o->fsdp_reduce_bytes = 4;
		else if (!strcasecmp(v, "bf16") || !strcasecmp(v, "fp16"))
			o->fsdp_reduce_bytes = 2;
		else
			bad = -1;
	} else if (!strcmp(name, "new-tokens")) {
		return set_new_tokens(m, v, err, errlen);
	} else if (!strcmp(name, "write-trace")) {
		m->write_trace = v;
	} else if (!strcmp(name, "plan")) {
		bad = parse_count(v, 65536, &m->plan_gpus, &most);
	} else if (!strcmp(name, "jobs")) {
		bad = parse_count(v, MODEL_PLAN_MAX_JOBS, &m->jobs, &most);
	} else if (!strcmp(name, "zero")) {
		if (v[0] >= '0' && v[0] <= '3' && !v[1])
			o->zero = (uint32_t)(v[0] - '0');
		else
			bad = -1;
		m->zero_set = 1;
	} else if (!strcmp(name, "microbatches")) {
		bad = parse_count(v, 1u << 20, &o->microbatches, &most);
	} else if (!strcmp(name, "expert-capacity")) {
		uint32_t n;
		if (!strcmp(v, "none"))
			o->expert_capacity = 0;
		else if (!strcmp(v, "config"))
			o->expert_capacity = MODEL_CAPACITY_CONFIG;
		else if (!(bad = parse_count(v, 1u << 30, &n, &most)))
			o->expert_capacity = n;
	} else if (!strcmp(name, "launch-us-from")) {
		m->launch_set = 1;
		return launch_from_trace(m, v, err, errlen);
	} else if (!strcmp(name, "launch-us")) {
		char *end;
		double us = strtod(v, &end);
		if (end == v || *end || !(us >= 0) || us > 1e6)
			bad = -1;
		else
			m->launch_ns = us * 1e3, m->launch_set = 1;
	} else {
		snprintf(err, errlen, "unknown model option '--%s'", name);
		return SURFER_EINVAL;
	}
	if (bad) {
		static const struct { const char *opt, *what; } help[] = {
			{ "mode", "inference, training, decode, generate, prefill or serve" },
			{ "dtype", "fp32, tf32, bf16, fp16 or fp8" }, { "engine", "hf, vllm or sglang" },
			{ "kv-cache-dtype", "auto, fp8, fp8_e4m3 or fp8_e5m2" },
			{ "optimizer", "none, sgd, adamw (adamw-foreach), adamw-fused or adamw-8bit" },
			{ "attention", "eager, sdpa, flash, fa2, fa3, cudnn, flashinfer or triton" },
			{ "act-ckpt", "none, selective or full" }, { "stack", "eager, compile or te" },
			{ "norm", "eager or fused" },
			{ "precision", "pure, mixed, autocast or auto" },
			{ "fp8-recipe", "tensorwise, rowwise, delayed or mxfp8" },
			{ "power-limit", "watts between 10 and 5000" },
			{ "host-mem-gbps", "GB/s above 0, at most 100000" },
			{ "head", "lm or classify" }, { "launch-us", "microseconds >= 0" },
			{ "expert-capacity", "a positive count, config or none" },
			{ "zero", "0, 1, 2 or 3" }, { "pp-partition", "uniform or cost" },
			{ "fsdp", "1, 2 or megatron" }, { "fsdp-reduce", "fp32, bf16 or fp16" },
			{ "lora-targets", "all or attn" },
		};
		char count[48];
		snprintf(count, sizeof(count), "a count from 1 to %u", most);
		const char *what = most ? count : "a positive count";
		for (size_t i = 0; i < sizeof(help) / sizeof(help[0]); i++)
			if (!strcmp(help[i].opt, name))
				what = help[i].what;
		snprintf(err, errlen, "bad --%s '%s': %s is expected", name, v, what);
		return SURFER_EINVAL;
	}
	return 0;
}

/* A trace in memory: the writer's sink appends to it. */
struct membuf {
	unsigned char *p;
	size_t n, cap;
};

static int membuf_sink(void *ctx, const void *buf, size_t len)
{
	struct membuf *m = ctx;
	if (m->n + len > m->cap) {
		size_t cap = m->cap ? m->cap : 1 << 16;
		while (cap < m->n + len)
			cap *= 2;
		unsigned char *p = realloc(m->p, cap);
		if (!p)
			return SURFER_ENOMEM;
		m->p = p;
		m->cap = cap;
	}
	memcpy(m->p + m->n, buf, len);
	m->n += len;
	return 0;
}

/* A thread's largest program buffer, for its next program_to_memory(): a
 * plan times hundreds of layouts, a pipeline's program tens of MB each
 * (build.h's bld_spare, as the kernel arrays are kept). */
static _Thread_local struct bld_spare spare_program;

static void membuf_keep(struct membuf *m)
{
	bld_spare_keep(&spare_program, m->p, m->cap);
	memset(m, 0, sizeof(*m));
}

void model_thread_cache_drop(void)
{
	bld_spare_drop(&spare_program);
	bld_drop_array();
}

/* Writes program p into *m (membuf_keep() or free m->p).  0, -1 out of
 * memory, -2 a kernel the trace cannot hold (reason in err). */
static int program_to_memory(const struct model_program *p, struct membuf *m,
			     model_program_kernel_fn fn, void *ctx, char *err, size_t errlen)
{
	struct trace_writer *w;
	int rc;

	memset(m, 0, sizeof(*m));
	m->p = bld_spare_take(&spare_program, &m->cap);
	if (!(w = trace_writer_new(membuf_sink, m, 0)))
		return SURFER_ENOMEM;
	rc = model_program_write(p, w, fn, ctx);
	trace_writer_free(w);
	if (rc == TRACE_EINVAL && err)
		snprintf(err, errlen, "the model built a kernel a trace cannot hold (a bad launch shape)");
	else if (rc < 0 && err)
		snprintf(err, errlen, "out of memory");
	return rc == 0 ? 0 : rc == TRACE_EINVAL ? -2 : -1;
}

/* What model_time follows on the target's lane as the timeline places the
 * kernels it was given, in order. */
struct mt_track {
	uint8_t *phase;          /* per kernel written: its phase, 0x80 peer  */
	size_t n, cap, at;
	int oom;                 /* phase could not grow                      */
	uint32_t waits, bubble_waits;
	double bubble_ns;
	struct model_timing *out;
};

static void mt_kernel(void *ctx, const struct model_kernel *mk, int peer)
{
	struct mt_track *t = ctx;
	if (t->oom)
		return;
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 4096;
		uint8_t *p = realloc(t->phase, cap);
		if (!p) {
			t->oom = 1;
			return;
		}
		t->phase = p;
		t->cap = cap;
	}
	t->phase[t->n++] = (uint8_t)(mk->phase | (peer ? 0x80 : 0));
}

static void mt_span(void *ctx, const struct analysis_span *s)
{
	struct mt_track *t = ctx;
	if (s->lane != 1)
		return;
	if (s->kind == ANALYSIS_SPAN_WAIT && ++t->waits == t->bubble_waits)
		t->bubble_ns = s->end_ns;  /* the peers' microbatches come first */
	if (s->kind != ANALYSIS_SPAN_KERNEL || t->at >= t->n)
		return;
	uint8_t ph = t->phase[t->at++];
	if (s->counted && !(ph & 0x80))
		t->out->phase_ns[ph & 0x7f] += s->end_ns - s->start_ns;
}

int model_time(const struct model_seq *s, const struct model_opts *o,
	       const struct gpu_spec *target, double launch_ns, struct model_timing *out)
{
	struct model_program p;
	struct analysis_options ao;
	struct analysis *a = NULL;
	struct mt_track t;
	struct membuf m;
	char err[200];
	int rc;

	memset(out, 0, sizeof(*out));
	if (!s || !o || !target || !(launch_ns >= 0 || launch_ns == MODEL_LAUNCH_AUTO))
		return SURFER_EINVAL;
	memset(&p, 0, sizeof(p));
	p.seq = s;
	p.opts = o;
	p.launch_ns = launch_ns;
	memset(&t, 0, sizeof(t));
	t.out = out;
	t.bubble_waits = o->pp > 1 && o->engine == MODEL_ENGINE_HF ? o->pp - 1 : 0;
	rc = program_to_memory(&p, &m, mt_kernel, &t, NULL, 0);
	if (rc == 0 && t.oom)
		rc = SURFER_ENOMEM;
	if (rc == 0) {
		memset(&ao, 0, sizeof(ao));
		ao.targets = &target;
		ao.ntargets = 1;
		ao.method = o->method;
		ao.pred = o->pred;
		ao.interval = o->interval;
		ao.system = o->system;
		ao.on_span = mt_span;
		ao.span_ctx = &t;
		rc = analysis_run_mem(m.p, m.n, "model", &ao, &a, err, sizeof(err));
	}
	membuf_keep(&m);
	free(t.phase);
	if (rc < 0)
		return rc == SURFER_ENOMEM ? SURFER_ENOMEM : SURFER_EINVAL;
	const struct analysis_target *at = &a->targets[0];
	out->iteration_ns = at->iteration_ns;
	out->iteration_low_ns = at->iteration_low_ns;
	out->iteration_high_ns = at->iteration_high_ns;
	out->interval = at->interval;
	out->compute_ns = at->kernel_ns;
	out->comm_ns = at->op_ns[PRED_OP_COMM];
	out->cpu_bound_ns = at->gpu_wait_cpu_ns;
	out->bubble_ns = t.bubble_ns;
	out->kernels = (size_t)a->kernels;
	memcpy(out->method_ns, at->method_ns, sizeof(out->method_ns));
	memcpy(out->op_ns, at->op_ns, sizeof(out->op_ns));
	double exposed = out->iteration_ns - (out->compute_ns + out->bubble_ns + out->cpu_bound_ns);
	out->comm_exposed_ns = exposed > 0 ? (exposed < out->comm_ns ? exposed : out->comm_ns) : 0;
	analysis_free(a);
	return 0;
}

/* Builds m's run with batch sequences per GPU into s (and, for generate,
 * its decode steps into sd; else sd is left empty), with the options each
 * was built with in o and od.  generate: the prompt's forward pass
 * (inference over seq tokens, which also gives the first new token), then
 * new_tokens - 1 decode steps whose caches hold seq .. seq + new_tokens - 2
 * tokens: the step time is nearly affine in the cache length, so they are
 * predicted as as many steps at the middle length; s carries the cache the
 * call ends with.  0, or model_build's code with a reason in err. */
static int build_run(const struct model_config *c, const struct model_cli *m, uint32_t batch,
		     struct model_seq *s, struct model_seq *sd, struct model_opts *o,
		     struct model_opts *od, char *err, size_t errlen)
{
	int generate = m->opts.mode == MODEL_GENERATE;
	*o = *od = m->opts;
	o->batch = od->batch = batch;
	o->new_tokens = od->new_tokens = m->new_tokens;
	memset(sd, 0, sizeof(*sd));
	if (generate) {
		o->mode = MODEL_INFERENCE;
		od->mode = MODEL_DECODE;
		od->seq = m->opts.seq + (m->new_tokens >= 2 ? (m->new_tokens - 2) / 2 : 0);
		int rc = model_build(c, od, sd, err, errlen);
		if (rc)
			return rc;
	}
	int rc = model_build(c, o, s, err, errlen);
	if (rc) {
		model_seq_release(sd);
		return rc;
	}
	if (generate) /* the cache at the end holds seq + new_tokens tokens */
		s->kv_cache_bytes = sd->kv_cache_bytes / ((double)od->seq + 1) *
				    ((double)m->opts.seq + m->new_tokens);
	return 0;
}

/* The memory estimate of m's run at batch sequences per GPU.  0, or -1
 * when that batch cannot be built. */
static int memory_at(const struct model_config *c, const struct model_cli *m, uint32_t batch,
		     struct model_memory *out)
{
	struct model_opts o, od;
	struct model_seq s, sd;
	struct model_cli one = *m;
	/* a served batch: its prefill, with the cache its last step holds */
	if (m->opts.mode == MODEL_SERVE)
		one.opts.mode = MODEL_PREFILL;
	if (build_run(c, &one, batch, &s, &sd, &o, &od, NULL, 0))
		return -1;
	model_seq_release(&sd);
	o.mode = m->opts.mode;
	if (m->opts.mode == MODEL_SERVE && s.micro_batch)
		s.kv_cache_bytes = model_serve_kv_bytes(&s, &o);
	model_memory(c, &o, &s, out);
	model_seq_release(&s);
	return 0;
}

/* Keeps the memory estimate in rm, with each target's largest batch whose
 * estimate fits its memory (rm->max_batch_fits: allocated here), and
 * appends to a's warning the targets whose memory the estimate exceeds.
 * 0, or SURFER_ENOMEM. */
static int warn_memory(struct analysis *a, struct report_model *rm, const struct model_config *c,
		       const struct model_cli *mc)
{
	struct model_memory m;
	if (memory_at(c, mc, mc->opts.batch, &m))
		return 0;
	/* sequences of their own lengths or outputs: no batch to grow */
	if (!mc->opts.lens && !mc->opts.new_lens &&
	    !(rm->max_batch_fits = calloc(a->ntargets ? a->ntargets : 1, sizeof(*rm->max_batch_fits))))
		return SURFER_ENOMEM;
	rm->memory.peak = m.peak;
	rm->memory.weights = m.weights;
	rm->memory.gradients = m.gradients;
	rm->memory.optimizer = m.optimizer;
	rm->memory.activations = m.activations;
	rm->memory.kv_cache = m.kv_cache;
	rm->memory.transient = m.transient;
	analysis_warn_memory(a, m.peak, "one GPU's tensors (estimated)");
	/* the peak grows with the batch: the largest batch that fits, up to
	 * 2^20, by doubling from 1 until one does not fit, then bisecting.
	 * Each probe builds the whole program at that batch, and a serving
	 * engine's build walks every sequence: probing from 2^20 down took
	 * seconds per target where the answer is a few thousand.
	 * A pipeline of --microbatches M splits a batch of a multiple of M
	 * (batch 1 cannot be built): the probes are multiples of M. */
	uint32_t unit = mc->opts.pp > 1 && mc->opts.microbatches > 1 ? mc->opts.microbatches : 1;
	for (size_t t = 0; t < a->ntargets && rm->max_batch_fits; t++) {
		double have = gpu_mem_usable_bytes(a->targets[t].gpu);
		uint32_t lo = 0, hi = 1; /* lo units fit (0: none), hi do not */
		struct model_memory x;
		if (!(have > 0))
			continue;
		while (memory_at(c, mc, hi * unit, &x) == 0 && x.peak <= have) {
			lo = hi;
			if (hi >= (1u << 20) / unit)
				break;
			hi *= 2;
		}
		while (hi - lo > 1) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (memory_at(c, mc, mid * unit, &x) == 0 && x.peak <= have)
				lo = mid;
			else
				hi = mid;
		}
		rm->max_batch_fits[t] = lo * unit;
	}
	return 0;
}

/* Writes the trace of m's run to path (the bytes the analysis read).
 * 0, or -2 with a reason in err. */
static int write_file(const char *path, const struct membuf *mb, char *err, size_t errlen)
{
	FILE *f = fopen(path, "wb");
	if (!f) {
		snprintf(err, errlen, "cannot write --write-trace '%s': %s", path, strerror(errno));
		return SURFER_EIO;
	}
	size_t n = fwrite(mb->p, 1, mb->n, f);
	int bad = n != mb->n || ferror(f);
	if (fclose(f) || bad) {
		snprintf(err, errlen, "cannot write --write-trace '%s': %s", path, strerror(errno));
		return SURFER_EIO;
	}
	return 0;
}

double model_cli_launch_ns(const struct model_cli *m)
{
	return m->launch_set ? m->launch_ns : MODEL_LAUNCH_AUTO;
}

int model_target_check(const struct model_opts *o, const struct gpu_spec *g, char *err,
		       size_t errlen)
{
	char cc[16];
	if (o->attention == MODEL_ATTN_FA3 && (g->cc < 90 || g->cc >= 100 || gpu_cc_is_amd(g->cc))) {
		/* flash-attn's hopper/ build: sm90 kernels only */
		snprintf(err, errlen, "--attention fa3 on %s: FlashAttention-3 runs on compute "
			 "capability 9.x only (this GPU: %s); use fa2 or flash", g->id,
			 gpu_cc_string(g->cc, cc, sizeof(cc)));
		return SURFER_EINVAL;
	}
	if ((o->attention == MODEL_ATTN_FA2 || o->attention == MODEL_ATTN_CUDNN) &&
	    (g->cc < 80 || gpu_cc_is_amd(g->cc))) {
		/* FlashAttention-2 and cuDNN's fused flash attention start with
		 * Ampere */
		snprintf(err, errlen, "--attention %s on %s: the kernel runs on compute capability "
			 "8.0 and later (this GPU: %s)", model_attention_name(o->attention), g->id,
			 gpu_cc_string(g->cc, cc, sizeof(cc)));
		return SURFER_EINVAL;
	}
	if (o->power_limit_w > 0 && !(o->power_limit_w <= g->tdp_w)) {
		/* the cap lowers the SM clock below the table's (analyze.c);
		 * a limit above the TDP (where a board allows one) would let it
		 * boost past the table's figures, which surfer has no measure of */
		if (g->tdp_w)
			snprintf(err, errlen, "--power-limit %.0f W on %s: above its %u W TDP; surfer "
				 "predicts boards capped at or below their TDP", o->power_limit_w, g->id,
				 g->tdp_w);
		else
			snprintf(err, errlen, "--power-limit %.0f W on %s: the GPU table has no TDP "
				 "for it to cap", o->power_limit_w, g->id);
		return SURFER_EINVAL;
	}
	if (o->fp8 && !(g->peak_tflops[GPU_DT_FP8] > 0)) {
		snprintf(err, errlen, "FP8 linears (--dtype fp8, or an FP8 checkpoint) on %s: the GPU "
			 "has no FP8 tensor cores (they start with Ada and Hopper, compute capability "
			 "8.9)%s", g->id, o->engine == MODEL_ENGINE_VLLM
			 ? "; vLLM serves an FP8 checkpoint weight-only (Marlin) when no target has them"
			 : "");
		return SURFER_EINVAL;
	}
	if (o->fp8 && o->fp8_recipe == MODEL_FP8_MXFP8 && (g->cc < 100 || gpu_cc_is_amd(g->cc))) {
		/* the per-32-element scales are applied by the tensor cores'
		 * block-scaled MMA (tcgen05), which starts with Blackwell */
		snprintf(err, errlen, "--fp8-recipe mxfp8 on %s: block-scaled FP8 GEMMs start with "
			 "Blackwell, compute capability 10.0 (this GPU: %s); delayed or tensorwise "
			 "scaling run here", g->id, gpu_cc_string(g->cc, cc, sizeof(cc)));
		return SURFER_EINVAL;
	}
	if (o->wq_bytes > 0 && (g->cc < 80 || gpu_cc_is_amd(g->cc))) {
		/* the Marlin kernels (vLLM's awq_marlin / gptq_marlin, SGLang's)
		 * and the MXFP4 ones are built for sm_80 on; older GPUs run
		 * other kernels that are not modelled */
		snprintf(err, errlen, "%s: the engines' weight-only kernels (AWQ, GPTQ, MXFP4: Marlin, "
			 "matmul_ogs) run on compute capability 8.0 and later (this GPU: %s)", g->id,
			 gpu_cc_string(g->cc, cc, sizeof(cc)));
		return SURFER_EINVAL;
	}
	if (o->dtype != GPU_DT_BF16 || g->peak_tflops[GPU_DT_BF16] > 0)
		return 0;
	snprintf(err, errlen, "--dtype bf16 on %s: the GPU has no BF16 tensor cores (compute capability "
		 "%s; they start at 8.0) and PyTorch's emulation there was never measured: "
		 "use --dtype fp16 or fp32", g->id, gpu_cc_string(g->cc, cc, sizeof(cc)));
	return SURFER_EINVAL;
}

const char *model_dtype_label(const struct model_opts *o)
{
	static const char *const fp8[] = { "fp8 tensorwise", "fp8 rowwise", "fp8 delayed",
					   "fp8 mxfp8" };
	if (o->fp8 && o->engine != MODEL_ENGINE_HF)
		return "fp8";   /* the engines' block-scaled W8A8 (serve.c) */
	if (o->wq_bytes > 0 && o->engine != MODEL_ENGINE_HF) {
		/* weight-only: 4- or 8-bit weights, 16-bit math (serve.c) */
		int w4 = o->wq_bytes < 0.75;
		if (o->wq_experts_only)   /* gpt-oss: MXFP4 experts */
			return o->dtype == GPU_DT_FP16 ? "fp16, w4a16 experts" : "bf16, w4a16 experts";
		return o->dtype == GPU_DT_FP16 ? (w4 ? "fp16 w4a16" : "fp16 w8a16")
					       : (w4 ? "bf16 w4a16" : "bf16 w8a16");
	}
	if (o->fp8 && (unsigned)o->fp8_recipe < sizeof(fp8) / sizeof(fp8[0]))
		return fp8[o->fp8_recipe];
	return gpu_dtype_name(o->dtype);
}

double model_cli_generated_tokens(const struct model_cli *m)
{
	const struct model_opts *o = &m->opts;
	if (!o->new_lens)
		return (double)o->batch * m->new_tokens;
	double sum = 0;
	for (uint32_t i = 0; i < o->batch; i++)
		sum += o->new_lens[i];
	return sum;
}

double model_cli_tokens(const struct model_cli *m)
{
	const struct model_opts *o = &m->opts;
	switch (o->mode) {
	case MODEL_SERVE:
	case MODEL_GENERATE: return model_cli_generated_tokens(m);
	case MODEL_DECODE: return o->batch;
	default: break;
	}
	double sum = 0;   /* a list's lengths are the batch's sequences */
	for (uint32_t i = 0; i < o->batch; i++)
		sum += o->lens ? o->lens[i] : o->seq;
	return sum * (o->mode == MODEL_TRAINING && o->grad_accum > 1 ? o->grad_accum : 1);
}

/* The engine run's header line: engine, model, mode and its batch. */
static void serve_describe(const struct model_cli *m, const struct model_config *c, char *out,
			   size_t cap)
{
	const struct model_opts *o = &m->opts;
	const char *mode = model_mode_name(o->mode, 1);
	double sum = 0, mx = 0;
	for (uint32_t i = 0; i < o->batch; i++) {
		double l = o->lens ? o->lens[i] : o->seq;
		sum += l;
		mx = l > mx ? l : mx;
	}
	char gen[64] = "", ch[32] = "";
	if (o->mode == MODEL_SERVE && o->new_lens)
		snprintf(gen, sizeof(gen), " + up to %u new tokens (%.0f in all)", m->new_tokens,
			 model_cli_generated_tokens(m));
	else if (o->mode == MODEL_SERVE)
		snprintf(gen, sizeof(gen), " + %u new tokens", m->new_tokens);
	if (o->chunk && o->mode != MODEL_DECODE)
		snprintf(ch, sizeof(ch), ", chunks of %u", o->chunk);
	/* A header line: cut at cap when it must be (the return value is
	 * looked at so that the cut is deliberate, not a compiler warning). */
	if (snprintf(out, cap, "%s %.40s, %s, %u sequence%s of %s%.0f tokens (%.0f in all)%s%s, %.24s%s",
		     model_engine_name(o->engine), c->name, mode, o->batch,
		     o->batch == 1 ? "" : "s", o->lens ? "up to " : "", mx, sum, gen, ch,
		     model_dtype_label(o), o->tp > 1 ? ", parallel" : "") >= (int)cap && cap > 4)
		memcpy(out + cap - 4, "...", 4);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The p-th quantile (0..1) of v[0..n), sorted here: linear between the
 * two nearest ranks (numpy's default).  NaN when n is 0. */
static double quantile(double *v, size_t n, double p)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	double r = p * (double)(n - 1);
	size_t lo = (size_t)r;
	return lo + 1 < n ? v[lo] + (r - (double)lo) * (v[lo + 1] - v[lo]) : v[n - 1];
}

/* The step (0-based) that sample j of ns predicts, of a served batch's
 * steps: all of them when ns == steps, else ns evenly spread, the first
 * and the last among them. */
static uint32_t sampled_step(uint32_t j, uint32_t ns, uint32_t steps)
{
	return ns > 1 ? (uint32_t)((uint64_t)j * (steps - 1) / (ns - 1)) : 0;
}

/*
 * Each request's end-to-end latency in a served batch: the time to first
 * token, then its own decode steps (a request of N new tokens leaves after
 * step N - 1).  The steps between the sampled ones (t[j] at step k_j,
 * ns of them over steps) are taken linearly between their neighbours,
 * and the sum of all of them is held to the whole batch less its prefill
 * (whole_ns, the timeline's), where the last request ends.  Into lat[0..n).
 */
static int request_latencies(const struct model_cli *m, const double *t, uint32_t ns, uint32_t steps,
			     double ttft_ns, double whole_ns, double *lat)
{
	const struct model_opts *o = &m->opts;
	double *cum = malloc(((size_t)steps + 1) * sizeof(*cum));
	if (!cum)
		return SURFER_ENOMEM;
	cum[0] = 0;
	for (uint32_t k = 0, j = 0; k < steps; k++) {
		/* the samples j and j + 1 around step k (j alone for one) */
		while (j + 2 < ns && sampled_step(j + 1, ns, steps) <= k)
			j++;
		double step = t[j];
		if (j + 1 < ns) {
			uint32_t kj = sampled_step(j, ns, steps), kn = sampled_step(j + 1, ns, steps);
			if (kn > kj)
				step += (t[j + 1] - t[j]) * (double)(k - kj) / (double)(kn - kj);
		}
		cum[k + 1] = cum[k] + step;
	}
	double scale = steps && cum[steps] > 0 && whole_ns > ttft_ns ? (whole_ns - ttft_ns) / cum[steps] : 1;
	for (uint32_t i = 0; i < o->batch; i++) {
		uint32_t n = o->new_lens ? o->new_lens[i] : m->new_tokens;
		uint32_t own = n > 1 ? n - 1 : 0;
		lat[i] = ttft_ns + scale * cum[own < steps ? own : steps];
	}
	free(cum);
	return 0;
}

/* The steps that SERVE_SAMPLE_STEPS of a served batch's decode steps are
 * predicted at: all of them up to that many, else that many evenly spread
 * (a step's time is nearly affine in the cache it reads). */
#define SERVE_SAMPLE_STEPS 33u

/* --mode serve: each target's time to first token (the prefill, chunked
 * as asked) and time per output token, the mean and median of its decode
 * steps, each predicted on its own through model_time.  0, or a negative
 * code. */
static int serve_timings(const struct model_config *c, const struct model_cli *m,
			 const struct analysis_options *ao, const struct analysis *a,
			 struct report_model *rm)
{
	if (m->opts.mode != MODEL_SERVE)
		return 0;
	size_t nt = a->ntargets;
	rm->ttft_ns = calloc(nt ? nt : 1, sizeof(double));
	rm->tpot_mean_ns = calloc(nt ? nt : 1, sizeof(double));
	rm->tpot_median_ns = calloc(nt ? nt : 1, sizeof(double));
	rm->latency_median_ns = calloc(nt ? nt : 1, sizeof(double));
	rm->latency_p90_ns = calloc(nt ? nt : 1, sizeof(double));
	rm->ttft_low_ns = calloc(nt ? nt : 1, sizeof(double));
	rm->ttft_high_ns = calloc(nt ? nt : 1, sizeof(double));
	rm->tpot_low_ns = calloc(nt ? nt : 1, sizeof(double));
	rm->tpot_high_ns = calloc(nt ? nt : 1, sizeof(double));
	double *lat = malloc(((size_t)m->opts.batch + 1) * sizeof(*lat));
	uint32_t steps = m->new_tokens > 1 ? m->new_tokens - 1 : 0;
	uint32_t ns = steps < SERVE_SAMPLE_STEPS ? steps : SERVE_SAMPLE_STEPS;
	double *t = calloc(ns ? ns : 1, sizeof(double));
	uint32_t *grown = malloc((size_t)m->opts.batch * sizeof(*grown));
	if (!rm->ttft_ns || !rm->tpot_mean_ns || !rm->tpot_median_ns || !rm->latency_median_ns ||
	    !rm->latency_p90_ns || !rm->ttft_low_ns || !rm->ttft_high_ns || !rm->tpot_low_ns ||
	    !rm->tpot_high_ns || !lat || !t || !grown) {
		free(t);
		free(grown);
		free(lat);
		return SURFER_ENOMEM;
	}
	struct model_opts o = m->opts;
	o.method = ao->method;
	o.pred = ao->pred;
	int rc = 0;
	for (size_t ti = 0; ti < nt && !rc; ti++) {
		const struct gpu_spec *g = a->targets[ti].gpu;
		struct model_seq s;
		struct model_timing mt;
		o.mode = MODEL_PREFILL;
		o.lens = m->opts.lens;
		if (!(rc = model_build(c, &o, &s, NULL, 0))) {
			rc = model_time(&s, &o, g, model_cli_launch_ns(m), &mt);
			model_seq_release(&s);
			rm->ttft_ns[ti] = mt.iteration_ns;
			rm->ttft_low_ns[ti] = mt.iteration_low_ns;
			rm->ttft_high_ns[ti] = mt.iteration_high_ns;
		}
		double lo_sum = 0, hi_sum = 0;
		o.mode = MODEL_DECODE;
		o.chunk = 0;
		for (uint32_t j = 0; j < ns && !rc; j++) {
			/* step k (0-based) reads the prompt and k earlier tokens
			 * of each sequence still generating (more than k + 1
			 * new tokens) */
			uint32_t k = sampled_step(j, ns, steps), na = 0;
			for (uint32_t i = 0; i < m->opts.batch; i++)
				if (!m->opts.new_lens || m->opts.new_lens[i] > k + 1)
					grown[na++] = (m->opts.lens ? m->opts.lens[i] : m->opts.seq) + k;
			o.lens = grown;
			o.nlens = o.batch = na;
			o.new_lens = NULL;
			if ((rc = model_build(c, &o, &s, NULL, 0)))
				break;
			rc = model_time(&s, &o, g, model_cli_launch_ns(m), &mt);
			model_seq_release(&s);
			t[j] = mt.iteration_ns;
			lo_sum += mt.iteration_low_ns;
			hi_sum += mt.iteration_high_ns;
		}
		o.chunk = m->opts.chunk;
		o.batch = m->opts.batch;
		double sum = 0;
		for (uint32_t j = 0; j < ns; j++)
			sum += t[j];
		/* one new token: no decode step, no time per output token (NaN:
		 * "none" in the text, null in JSON), as vLLM's benchmarks leave
		 * single-token outputs out of TPOT */
		rm->tpot_mean_ns[ti] = ns ? sum / ns : NAN;
		rm->tpot_low_ns[ti] = ns ? lo_sum / ns : NAN;
		rm->tpot_high_ns[ti] = ns ? hi_sum / ns : NAN;
		if (!rc && !(rc = request_latencies(m, t, ns, steps, rm->ttft_ns[ti],
						    a->targets[ti].iteration_ns, lat))) {
			rm->latency_median_ns[ti] = quantile(lat, m->opts.batch, 0.5);
			rm->latency_p90_ns[ti] = quantile(lat, m->opts.batch, 0.9);
		}
		rm->tpot_median_ns[ti] = quantile(t, ns, 0.5);
	}
	free(t);
	free(grown);
	free(lat);
	return rc < 0 ? rc : 0;
}

uint64_t model_cli_positions(const struct model_cli *m)
{
	const struct model_opts *o = &m->opts;
	uint64_t need = o->seq;
	if (m->lens_kind && m->nlens) {
		need = 0;
		for (uint32_t i = 0; i < m->nlens; i++)
			if (m->lens[i] > need)
				need = m->lens[i];
	}
	/* a decode step's new token sits after its cached ones */
	if (o->mode == MODEL_DECODE)
		need += 1;
	if ((o->mode == MODEL_SERVE || o->mode == MODEL_GENERATE) && m->new_tokens > 1)
		need += m->new_tokens - 1;
	/* each sequence's own output: the longest prompt need not be the
	 * one that generates most */
	if (o->mode == MODEL_SERVE && m->n_new_lens) {
		need = 0;
		for (uint32_t i = 0; i < m->n_new_lens; i++) {
			uint64_t l = (m->lens_kind && i < m->nlens ? m->lens[i] : o->seq) +
				     (uint64_t)m->new_lens[i] - 1;
			need = l > need ? l : need;
		}
	}
	return need;
}

int model_positions_check(const struct model_config *c, const struct model_cli *m, char *warn,
			  size_t warnlen, char *err, size_t errlen)
{
	uint64_t need = model_cli_positions(m);
	if (warnlen)
		warn[0] = 0;
	if (!c->max_positions || need <= c->max_positions)
		return 0;
	if (c->learned_positions) {
		snprintf(err, errlen, "'%s' has learned position embeddings for %u tokens; this run's "
			 "sequences need %llu", c->name, c->max_positions, (unsigned long long)need);
		return SURFER_EINVAL;
	}
	snprintf(warn, warnlen, "sequences of %llu positions, beyond the %u '%s' was trained for "
		 "(max_position_embeddings)%s", (unsigned long long)need, c->max_positions, c->name,
		 m->opts.engine != MODEL_ENGINE_HF ? ": the engines refuse it unless allowed" : "");
	return 0;
}

double model_wq_bytes(const struct model_config *c)
{
	if (!c->quant_weight_only || (c->quant_bits != 4 && c->quant_bits != 8))
		return 0;
	double w = c->quant_bits / 8.0, scale = c->quant_scale_bytes ? c->quant_scale_bytes : 2.0;
	if (c->quant_group > 0)
		w += (scale + (c->quant_zeros ? c->quant_bits / 8.0 : 0)) / c->quant_group;
	return w;
}

void model_engine_fp8_marlin(struct model_cli *m, const struct model_config *c,
			     const struct gpu_spec *const *targets, size_t n)
{
	struct model_opts *o = &m->opts;
	if (o->engine != MODEL_ENGINE_VLLM || !o->fp8 || !c->quant_fp8 || m->dtype_set || !n)
		return;
	for (size_t i = 0; i < n; i++)
		if (targets[i]->peak_tflops[GPU_DT_FP8] > 0 || targets[i]->cc < 80 ||
		    gpu_cc_is_amd(targets[i]->cc))
			return;
	o->fp8 = 0;
	o->wq_bytes = 1.0;
}

/*
 * What vLLM and SGLang serve without --dtype: their `--dtype auto` takes
 * the checkpoint's torch_dtype, a float32 one served in FP16 (vLLM's
 * _get_and_verify_dtype, which SGLang's ModelConfig follows: "float16 for
 * float32 models").  A config that names none (a built-in) is served in
 * BF16, what the checkpoints of the architectures the engine builder
 * knows store.  A checkpoint whose quantization_config says fp8
 * (DeepSeek-V3's, the FP8 releases of Llama and Qwen) is served with FP8
 * linears, as both engines load it (serve.c).  --engine hf keeps FP32,
 * transformers' own default.
 */
void model_engine_dtype(struct model_cli *m, const struct model_config *c)
{
	struct model_opts *o = &m->opts;
	if (o->engine == MODEL_ENGINE_HF)
		return;
	o->wq_bytes = model_wq_bytes(c);
	o->wq_experts_only = o->wq_bytes > 0 && c->quant_experts_only;
	if (m->dtype_set)
		return;
	o->fp8 = c->quant_fp8;
	if (o->fp8)
		o->dtype = GPU_DT_BF16;
	else if (!strcasecmp(c->torch_dtype, "float16") || !strcasecmp(c->torch_dtype, "half") ||
	    !strcasecmp(c->torch_dtype, "float32") || !strcasecmp(c->torch_dtype, "float"))
		o->dtype = GPU_DT_FP16;
	else
		o->dtype = GPU_DT_BF16;
}

/*
 * The attention a run that names no --attention takes, where the eager
 * matmul-softmax chain is not what its stack runs.
 *  - DeepSeek-V2/V3's multi-head latent attention is built as one fused
 *    kernel (model.c): the stacks that train or run it in 16 bits call a
 *    fused kernel there (Megatron's MLA through Transformer Engine's fused
 *    attention, torchtitan through SDPA's fused back ends, SGLang and vLLM
 *    their own), and model_build() builds no eager chain for it.  Before,
 *    it was refused until --attention was given, --plan's layouts too.
 *    FP32 and TF32 (no fused kernel takes them), the transformers decode
 *    path and context parallelism keep the refusal, which names the way
 *    out.
 *  - --stack te: Transformer Engine's DotProductAttention (what Megatron-
 *    Core and NeMo build) picks a fused back end by itself (FlashAttention
 *    or cuDNN's fused attention, NVTE_FLASH_ATTN and NVTE_FUSED_ATTN on by
 *    default; the unfused path only where neither takes the shape), so a
 *    16-bit or FP8 step under it takes flash, which the te stack runs as
 *    cuDNN's (model_attention_impl()); the eager chain had been built.
 * Either is what a user of those stacks gets, and the input line says so.
 */
static enum model_attn_default model_default_attention(struct model_cli *m, const struct model_config *c)
{
	struct model_opts *o = &m->opts;
	if (m->attention_set || o->attention != MODEL_ATTN_EAGER || o->engine != MODEL_ENGINE_HF ||
	    (o->mode != MODEL_TRAINING && o->mode != MODEL_INFERENCE))
		return MODEL_ATTN_DEFAULT_NONE;
	if (c->kv_lora && (o->dtype == GPU_DT_BF16 || o->dtype == GPU_DT_FP16)) {
		o->attention = MODEL_ATTN_FLASH;
		return MODEL_ATTN_DEFAULT_MLA;
	}
	if (o->stack == MODEL_STACK_TE && (o->dtype == GPU_DT_BF16 || o->dtype == GPU_DT_FP16 || o->fp8)) {
		o->attention = MODEL_ATTN_FLASH;
		return MODEL_ATTN_DEFAULT_TE;
	}
	return MODEL_ATTN_DEFAULT_NONE;
}

/* Without --fp8-recipe, an FP8 step under --stack te takes delayed
 * scaling: Transformer Engine's default recipe (fp8_autocast without one:
 * DelayedScaling) and Megatron-LM's --fp8-recipe default; torchao's
 * tensorwise stays the default of the other stacks.  The input line's
 * dtype label names the recipe either way. */
static void model_te_fp8_recipe(struct model_cli *m)
{
	if (m->opts.fp8 && m->opts.stack == MODEL_STACK_TE && !m->fp8_recipe_set)
		m->opts.fp8_recipe = MODEL_FP8_DELAYED;
}

/* Without --act-ckpt, --qlora training takes full activation
 * checkpointing, as PEFT's prepare_model_for_kbit_training() turns it on
 * by default (use_gradient_checkpointing=True), and marks it given; 1 when
 * it did, else 0. */
static int model_qlora_ckpt(struct model_cli *m)
{
	struct model_opts *o = &m->opts;
	if (!o->qlora || m->ckpt_set || o->mode != MODEL_TRAINING)
		return 0;
	o->act_ckpt = MODEL_CKPT_FULL;
	m->ckpt_set = 1;
	return 1;
}

void model_cli_defaults(struct model_cli *m, const struct model_config *c,
			const struct gpu_spec *const *targets, size_t ntargets, struct model_defaults *d)
{
	model_engine_dtype(m, c);
	model_engine_fp8_marlin(m, c, targets, ntargets);
	d->attn = model_default_attention(m, c);
	d->qlora_ckpt = model_qlora_ckpt(m);
	model_te_fp8_recipe(m);
}

void model_defaults_words(const struct model_defaults *d, char *buf, size_t n)
{
	snprintf(buf, n, "%s%s",
		 d->attn == MODEL_ATTN_DEFAULT_MLA ? ", MLA as flash attention"
		 : d->attn == MODEL_ATTN_DEFAULT_TE ? ", attention fused (Transformer Engine's pick)" : "",
		 d->qlora_ckpt ? ", act-ckpt full (PEFT's k-bit default)" : "");
}

int model_cli_check_modes(const struct model_cli *m, char *err, size_t errlen)
{
	enum model_mode mode = m->opts.mode;
	if ((m->lens_kind == 1 && mode != MODEL_PREFILL && mode != MODEL_SERVE) ||
	    (m->lens_kind == 2 && mode != MODEL_DECODE)) {
		snprintf(err, errlen, "%s goes with --mode %s", m->lens_kind == 1 ? "--prompt-lens"
			 : "--context-lens", m->lens_kind == 1 ? "prefill or serve" : "decode");
		return SURFER_EINVAL;
	}
	if (m->new_tokens_set && mode != MODEL_SERVE && mode != MODEL_GENERATE) {
		snprintf(err, errlen, "--new-tokens goes with --mode serve (an engine) or generate "
			 "(--engine hf), not with --mode %s", model_mode_name(mode, 0));
		return SURFER_EINVAL;
	}
	if (m->n_new_lens && mode != MODEL_SERVE) {
		snprintf(err, errlen, "one --new-tokens per sequence goes with --mode serve (an engine "
			 "frees a sequence when it ends); transformers' generate() runs its whole batch to "
			 "the longest: give --mode generate one N");
		return SURFER_EINVAL;
	}
	if (m->n_new_lens && m->n_new_lens != (m->lens_kind ? m->nlens : m->opts.batch)) {
		snprintf(err, errlen, "--new-tokens gives %u counts for %u sequences: one per sequence, "
			 "in the order of %s", m->n_new_lens, m->lens_kind ? m->nlens : m->opts.batch,
			 m->lens_kind ? "--prompt-lens" : "the batch");
		return SURFER_EINVAL;
	}
	if (m->opts.chunk && mode != MODEL_PREFILL && mode != MODEL_SERVE) {
		snprintf(err, errlen, "--chunk splits a prefill: it goes with --mode prefill or serve");
		return SURFER_EINVAL;
	}
	return 0;
}

int model_analysis_run(const struct model_cli *m, const struct analysis_options *ao,
		       struct analysis **out, struct report_model *rm, char *err, size_t errlen)
{
	struct model_config c;
	struct model_seq s, sd;
	struct model_opts opts, od;
	struct model_program p;
	struct membuf mb;
	struct analysis *a = NULL;
	char device[160], gen[32] = "";
	int rc;

	*out = NULL;
	memset(rm, 0, sizeof(*rm));
	if (!m->model) {
		snprintf(err, errlen, "model options given without --model CONFIG.json|NAME");
		return SURFER_EINVAL;
	}
	/* the ranks on the first target's nodes (its system's GPUs per node) */
	struct model_cli placed = *m;
	/* ranks that a node of the target's system cannot hold (an engine's
	 * tensor-parallel group of 16, a training step of dp 16, on 8-GPU
	 * nodes) span nodes of it, as --nodes would place them; a step that
	 * fits a node stays in one without --nodes.  (The training builder
	 * kept every rank in one node whatever their number: 16 ranks in an
	 * 8-GPU NVLink domain, timed over the links between its halves.) */
	if (ao->ntargets && !placed.opts.system && !placed.opts.nodes && !placed.opts.gpus_per_node) {
		const struct gpu_system *s = gpu_system_default(ao->targets[0]);
		uint64_t ranks = (uint64_t)(placed.opts.tp ? placed.opts.tp : 1) *
				 (placed.opts.pp ? placed.opts.pp : 1);
		if (placed.opts.engine == MODEL_ENGINE_HF)
			ranks *= (uint64_t)model_cp(&placed.opts) * (placed.opts.dp ? placed.opts.dp : 1);
		if (s && s->gpus_per_node && ranks > s->gpus_per_node)
			placed.opts.gpus_per_node = s->gpus_per_node;
	}
	if (ao->ntargets && model_opts_place(&placed.opts, ao->targets[0], err, errlen))
		return SURFER_EINVAL;
	/* an engine's whole generation of a batch is its served batch: the
	 * prefill and the decode steps, each step at its own cache length,
	 * the generated tokens counted (transformers' generate() path would
	 * take the engine's prefill for a forward over the prompt and count
	 * the prompt's tokens) */
	if (placed.opts.engine != MODEL_ENGINE_HF && placed.opts.mode == MODEL_GENERATE)
		placed.opts.mode = MODEL_SERVE;
	m = &placed;
	if (model_config_resolve(m->model, &c, err, errlen))
		return SURFER_EINVAL;
	struct model_defaults defaults;
	model_cli_defaults(&placed, &c, ao->targets, ao->ntargets, &defaults);
	for (size_t i = 0; i < ao->ntargets; i++)
		if (model_target_check(&m->opts, ao->targets[i], err, errlen))
			return SURFER_EINVAL;
	/* the pipeline stage that bounds the step on the first target */
	if (ao->ntargets && ao->method != PRED_WAVE) {
		struct model_opts po = placed.opts;
		po.method = ao->method;
		po.pred = ao->pred;
		po.interval = ao->interval;
		rc = model_pp_pick_stage(&c, &po, ao->targets[0], model_cli_launch_ns(m));
		if (rc) {
			/* the build's own reason comes with the build below */
			if (rc != SURFER_EINVAL) {
				snprintf(err, errlen, "out of memory");
				return rc;
			}
		} else {
			placed.opts.pp_stage = po.pp_stage;
		}
	}
	int generate = m->opts.mode == MODEL_GENERATE;
	if (model_cli_check_modes(m, err, errlen))
		return SURFER_EINVAL;
	char pos_warn[200];
	if (model_positions_check(&c, m, pos_warn, sizeof(pos_warn), err, errlen))
		return SURFER_EINVAL;
	rc = build_run(&c, m, m->opts.batch, &s, &sd, &opts, &od, err, errlen);
	if (rc)
		return rc == SURFER_ENOMEM ? SURFER_ENOMEM : SURFER_EINVAL;
	if (ao->method == PRED_WAVE) {
		model_seq_release(&s);
		model_seq_release(&sd);
		snprintf(err, errlen, "--method wave needs a measured trace; use auto, mlp, roofline, "
			 "tcgemm or vecop with --model");
		return SURFER_EINVAL;
	}
	const struct model_opts *o = &opts, *mo = &m->opts;
	opts.method = od.method = ao->method;
	if (generate)
		snprintf(gen, sizeof(gen), " + %u new tokens", m->new_tokens);
	if (mo->engine != MODEL_ENGINE_HF) {
		serve_describe(m, &c, device, sizeof(device));
	} else {
		snprintf(device, sizeof(device), "model %.40s, %s, batch %u, seq %u%s, %.16s%s", c.name,
			 model_mode_name(mo->mode, 0),
			 o->batch, o->seq, gen, model_dtype_label(o),
			 o->dp * o->tp * o->pp > 1 ? ", parallel" : "");
	}
	{
		size_t len = strlen(device);
		model_defaults_words(&defaults, device + len, sizeof(device) - len);
	}
	if (mo->power_limit_w > 0) {
		size_t len = strlen(device);
		snprintf(device + len, sizeof(device) - len, ", %.0f W cap", mo->power_limit_w);
	}
	memset(&p, 0, sizeof(p));
	p.seq = &s;
	p.opts = o;
	if (generate && m->new_tokens > 1) {
		p.decode = &sd;
		p.decode_opts = &od;
		p.decode_steps = m->new_tokens - 1;
	}
	p.launch_ns = model_cli_launch_ns(m);
	p.device = device;
	rc = program_to_memory(&p, &mb, NULL, NULL, err, errlen);
	model_seq_release(&s);
	model_seq_release(&sd);
	if (rc == 0 && m->write_trace)
		rc = write_file(m->write_trace, &mb, err, errlen);
	if (rc == 0) {
		/* --power-limit goes in the header (power_limit_w): the
		 * analysis derates the targets, as it would the written trace's */
		rc = analysis_run_mem(mb.p, mb.n, m->model, ao, &a, err, errlen);
	}
	free(mb.p);
	if (rc < 0)
		return rc;
	snprintf(a->device, sizeof(a->device), "%s", device);
	uint32_t gpus = o->dp * o->tp * o->pp * model_cp(o);
	if (gpus > 1) {
		char zero[32] = "", cp[32] = "", nodes[48] = "";
		if (o->zero && model_grad_ranks(o) > 1)
			snprintf(zero, sizeof(zero), ", zero %u%s", o->zero, o->hsdp ? " (hsdp)" : "");
		if (model_cp(o) > 1 && model_ep(o) > 1)
			snprintf(cp, sizeof(cp), ", cp %u, ep %u", model_cp(o), model_ep(o));
		else if (model_cp(o) > 1)
			snprintf(cp, sizeof(cp), ", cp %u", model_cp(o));
		else if (model_ep(o) > 1)
			snprintf(cp, sizeof(cp), ", ep %u", model_ep(o));
		if (o->gpus_per_node)
			snprintf(nodes, sizeof(nodes), " on %u nodes of %u",
				 (gpus + o->gpus_per_node - 1) / o->gpus_per_node, o->gpus_per_node);
		snprintf(a->warning, sizeof(a->warning),
			 "dp %u, tp %u%s, pp %u%s%s: one GPU of %u%s predicted; collectives in op 'comm'",
			 o->dp, o->tp, o->sp && o->tp > 1 ? " (sp)" : "", o->pp, cp, zero, gpus, nodes);
		uint32_t f, n, k = model_pp_built_stage(o);
		int head = o->pp > 1 && o->pp_partition == MODEL_PP_COST && o->engine == MODEL_ENGINE_HF
			   ? model_pp_stage(&c, o, k, &f, &n, NULL, 0) : -1;
		if (head >= 0) {
			char layers[48] = "no layer";
			if (n)
				snprintf(layers, sizeof(layers), "layers %u-%u", f, f + n - 1);
			analysis_warn(a, "stage %u of %u (%s%s%s), the slowest under --pp-partition cost",
				      k, o->pp, layers, k == 0 ? ", the embedding" : "", head ? ", the head" : "");
		}
		if (o->engine != MODEL_ENGINE_HF && o->pp > 1)
			snprintf(a->warning, sizeof(a->warning),
				 "dp %u, tp %u, pp %u: one replica's %u stages in turn, each as one of its "
				 "%u GPUs; collectives in op 'comm'", o->dp, o->tp, o->pp, o->pp, o->tp);
	}
	rm->gpus = gpus;
	rm->tokens_per_iteration = (o->dp ? o->dp : 1) * model_cli_tokens(m);   /* each replica's */
	if (mo->engine != MODEL_ENGINE_HF) {
		if ((rc = serve_timings(&c, m, ao, a, rm)) < 0) {
			analysis_free(a);
			report_model_free(rm);
			snprintf(err, errlen, rc == SURFER_ENOMEM ? "out of memory"
				 : "the serve steps could not be predicted");
			return rc;
		}
	}
	if (warn_memory(a, rm, &c, m)) {
		analysis_free(a);
		snprintf(err, errlen, "out of memory");
		return SURFER_ENOMEM;
	}
	if (pos_warn[0])
		analysis_warn(a, "%s", pos_warn);
	if (o->norm_given && (o->stack != MODEL_STACK_EAGER ||
			      (c.family != MODEL_FAM_LLAMA && c.family != MODEL_FAM_T5))) {
		/* --norm chooses how an eager RMSNorm runs: said when it chose
		 * nothing (fuse.c fuses the compiled stack's norms, TE runs its
		 * own; GPT-2, BERT and OPT normalize with LayerNorm) */
		analysis_warn(a, "--norm changes nothing: %s",
			 o->stack == MODEL_STACK_COMPILE ? "--stack compile fuses each norm itself"
			 : o->stack == MODEL_STACK_TE ? "--stack te runs Transformer Engine's fused norms"
			 : "the model's norms are LayerNorm, not RMSNorm");
	}
	if (o->precision != MODEL_PREC_AUTO && o->precision != MODEL_PREC_AUTOCAST &&
	    o->mode != MODEL_TRAINING) {
		/* the training state (FP32 master weights) is a training
		 * step's; autocast's casts run in inference too (ops.c) */
		analysis_warn(a, "--precision %s changes nothing outside training",
			      o->precision == MODEL_PREC_PURE ? "pure" : "mixed");
	}
	if (o->expert_capacity && c.experts <= 1)
		analysis_warn(a, "--expert-capacity changes nothing: the model has no experts");
	if (c.quant[0] && !(o->fp8 && o->engine != MODEL_ENGINE_HF && c.quant_fp8) &&
	    !(o->wq_bytes > 0 && o->engine != MODEL_ENGINE_HF)) {
		/* a quantized checkpoint: what its weights were built as */
		analysis_warn(a, "its %.24s weights built as %s", c.quant, model_dtype_label(o));
	}
	*out = a;
	return 0;
}
