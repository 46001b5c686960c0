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
		"expert-capacity", "new-tokens", "plan", "write-trace",
		NULL
	};
	return names;
}

static int parse_count(const char *v, uint32_t max, uint32_t *out)
{
	char *end;
	errno = 0;
	unsigned long x = strtoul(v, &end, 10);
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

int model_cli_set(struct model_cli *m, const char *name, const char *v,
		  char *err, size_t errlen)
{
	struct model_opts *o = &m->opts;
	int bad = 0;
	m->set = 1;
	if (!strcmp(name, "model")) {
		m->model = v;
	} else if (!strcmp(name, "batch")) {
		bad = parse_count(v, 1u << 20, &o->batch);
	} else if (!strcmp(name, "seq")) {
		bad = parse_count(v, 1u << 20, &o->seq);
	} else if (!strcmp(name, "mode")) {
		bad = model_mode_parse(v, &o->mode);
	} else if (!strcmp(name, "dtype")) {
		bad = model_dtype_parse(v, &o->dtype);
	} else if (!strcmp(name, "optimizer")) {
		bad = model_optimizer_parse(v, &o->optimizer);
	} else if (!strcmp(name, "attention")) {
		if (!strcmp(v, "eager"))
			o->attention = MODEL_ATTN_EAGER;
		else if (!strcmp(v, "sdpa"))
			o->attention = MODEL_ATTN_SDPA;
		else if (!strcmp(v, "flash"))
			o->attention = MODEL_ATTN_FLASH;
		else
			bad = -1;
	} else if (!strcmp(name, "head")) {
		if (!strcmp(v, "lm"))
			o->head = MODEL_HEAD_LM;
		else if (!strcmp(v, "classify"))
			o->head = MODEL_HEAD_CLASSIFY;
		else
			bad = -1;
	} else if (!strcmp(name, "dp")) {
		bad = parse_count(v, 65536, &o->dp);
	} else if (!strcmp(name, "tp")) {
		bad = parse_count(v, 1024, &o->tp);
	} else if (!strcmp(name, "pp")) {
		bad = parse_count(v, 1024, &o->pp);
	} else if (!strcmp(name, "new-tokens")) {
		bad = parse_count(v, 1u << 20, &m->new_tokens);
	} else if (!strcmp(name, "write-trace")) {
		m->write_trace = v;
	} else if (!strcmp(name, "plan")) {
		bad = parse_count(v, 65536, &m->plan_gpus);
	} else if (!strcmp(name, "zero")) {
		if (v[0] >= '0' && v[0] <= '3' && !v[1])
			o->zero = (uint32_t)(v[0] - '0');
		else
			bad = -1;
	} else if (!strcmp(name, "microbatches")) {
		bad = parse_count(v, 1u << 20, &o->microbatches);
	} else if (!strcmp(name, "expert-capacity")) {
		uint32_t n;
		if (!strcmp(v, "none"))
			o->expert_capacity = 0;
		else if (!strcmp(v, "config"))
			o->expert_capacity = MODEL_CAPACITY_CONFIG;
		else if (!(bad = parse_count(v, 1u << 30, &n)))
			o->expert_capacity = n;
	} else if (!strcmp(name, "launch-us-from")) {
		return launch_from_trace(m, v, err, errlen);
	} else if (!strcmp(name, "launch-us")) {
		char *end;
		double us = strtod(v, &end);
		if (end == v || *end || !(us >= 0) || us > 1e6)
			bad = -1;
		else
			m->launch_ns = us * 1e3;
	} else {
		snprintf(err, errlen, "unknown model option '--%s'", name);
		return SURFER_EINVAL;
	}
	if (bad) {
		static const struct { const char *opt, *what; } help[] = {
			{ "mode", "inference, training, decode or generate" }, { "dtype", "fp32, tf32, bf16 or fp16" },
			{ "optimizer", "none, sgd or adamw" }, { "attention", "eager, sdpa or flash" },
			{ "head", "lm or classify" }, { "launch-us", "microseconds >= 0" },
			{ "expert-capacity", "a positive count, config or none" },
			{ "zero", "0, 1, 2 or 3" },
		};
		const char *what = "a positive count";
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

/* Writes program p into *m (free m->p).  0, -1 out of memory, -2 a kernel
 * the trace cannot hold (reason in err). */
static int program_to_memory(const struct model_program *p, struct membuf *m,
			     model_program_kernel_fn fn, void *ctx, char *err, size_t errlen)
{
	struct trace_writer *w;
	int rc;

	memset(m, 0, sizeof(*m));
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
	if (!s || !o || !target || !(launch_ns >= 0))
		return SURFER_EINVAL;
	memset(&p, 0, sizeof(p));
	p.seq = s;
	p.opts = o;
	p.launch_ns = launch_ns;
	memset(&t, 0, sizeof(t));
	t.out = out;
	t.bubble_waits = o->pp > 1 ? o->pp - 1 : 0;
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
		ao.on_span = mt_span;
		ao.span_ctx = &t;
		rc = analysis_run_mem(m.p, m.n, "model", &ao, &a, err, sizeof(err));
	}
	free(m.p);
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
	if (build_run(c, m, batch, &s, &sd, &o, &od, NULL, 0))
		return -1;
	model_seq_release(&sd);
	o.mode = m->opts.mode;
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
	if (!(rm->max_batch_fits = calloc(a->ntargets ? a->ntargets : 1, sizeof(*rm->max_batch_fits))))
		return SURFER_ENOMEM;
	rm->memory.peak = m.peak;
	rm->memory.weights = m.weights;
	rm->memory.gradients = m.gradients;
	rm->memory.optimizer = m.optimizer;
	rm->memory.activations = m.activations;
	rm->memory.kv_cache = m.kv_cache;
	rm->memory.transient = m.transient;
	analysis_warn_memory(a, m.peak, "one GPU's tensors (estimated)");
	/* the peak grows with the batch: bisect for the largest that fits */
	for (size_t t = 0; t < a->ntargets; t++) {
		double have = gpu_mem_usable_bytes(a->targets[t].gpu);
		uint32_t lo = 0, hi = 1u << 20; /* lo fits (0: none), hi does not */
		struct model_memory x;
		if (!(have > 0))
			continue;
		if (memory_at(c, mc, hi, &x) == 0 && x.peak <= have)
			lo = hi;
		while (hi - lo > 1) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (memory_at(c, mc, mid, &x) == 0 && x.peak <= have)
				lo = mid;
			else
				hi = mid;
		}
		rm->max_batch_fits[t] = lo;
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

int model_target_check(const struct model_opts *o, const struct gpu_spec *g, char *err,
		       size_t errlen)
{
	if (o->dtype != GPU_DT_BF16 || g->peak_tflops[GPU_DT_BF16] > 0)
		return 0;
	char cc[16];
	snprintf(err, errlen, "--dtype bf16 on %s: the GPU has no BF16 tensor cores (compute capability "
		 "%s; they start at 8.0) and PyTorch's emulation there was never measured: "
		 "use --dtype fp16 or fp32", g->id, gpu_cc_string(g->cc, cc, sizeof(cc)));
	return SURFER_EINVAL;
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
	if (model_config_resolve(m->model, &c, err, errlen))
		return SURFER_EINVAL;
	for (size_t i = 0; i < ao->ntargets; i++)
		if (model_target_check(&m->opts, ao->targets[i], err, errlen))
			return SURFER_EINVAL;
	int generate = m->opts.mode == MODEL_GENERATE;
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
	snprintf(device, sizeof(device), "model %.40s, %s, batch %u, seq %u%s, %.8s%s", c.name,
		 mo->mode == MODEL_TRAINING ? "training" : mo->mode == MODEL_DECODE ? "decode"
		 : generate ? "generate" : "inference",
		 o->batch, o->seq, gen, gpu_dtype_name(o->dtype), o->dp * o->tp * o->pp > 1 ? ", parallel" : "");
	memset(&p, 0, sizeof(p));
	p.seq = &s;
	p.opts = o;
	if (generate && m->new_tokens > 1) {
		p.decode = &sd;
		p.decode_opts = &od;
		p.decode_steps = m->new_tokens - 1;
	}
	p.launch_ns = m->launch_ns;
	p.device = device;
	rc = program_to_memory(&p, &mb, NULL, NULL, err, errlen);
	model_seq_release(&s);
	model_seq_release(&sd);
	if (rc == 0 && m->write_trace)
		rc = write_file(m->write_trace, &mb, err, errlen);
	if (rc == 0)
		rc = analysis_run_mem(mb.p, mb.n, m->model, ao, &a, err, errlen);
	free(mb.p);
	if (rc < 0)
		return rc;
	snprintf(a->device, sizeof(a->device), "%s", device);
	if (o->dp * o->tp * o->pp > 1) {
		char zero[32] = "";
		if (o->zero && o->dp > 1)
			snprintf(zero, sizeof(zero), ", zero %u", o->zero);
		snprintf(a->warning, sizeof(a->warning),
			 "dp %u, tp %u, pp %u%s: one GPU of %u predicted; collectives in op 'comm'",
			 o->dp, o->tp, o->pp, zero, o->dp * o->tp * o->pp);
	}
	rm->gpus = o->dp * o->tp * o->pp;
	rm->tokens_per_iteration = (double)o->batch * o->dp *
		(generate ? m->new_tokens : o->mode == MODEL_DECODE ? 1 : o->seq);
	if (warn_memory(a, rm, &c, m)) {
		analysis_free(a);
		snprintf(err, errlen, "out of memory");
		return SURFER_ENOMEM;
	}
	*out = a;
	return 0;
}
