/*
 * modelrun.c - the --model path of surfer-analyze: option parsing, and the
 * model's predicted timeline packaged as a struct analysis (no origin, no
 * measurement; one iteration; kernels grouped by name per target;
 * collectives appear as the "comm" op, apart from compute).
 */
#include "analyzer/modelrun.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		"expert-capacity", "new-tokens", "plan",
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
		return -2;
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
				return -1;
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
		return -2;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_launch);
	uint64_t *gap = malloc((n ? n : 1) * sizeof(*gap));
	size_t ng = 0;
	if (!gap) {
		free(v);
		return -1;
	}
	for (size_t i = 1; i < n; i++)
		if (v[i].thread == v[i - 1].thread)
			gap[ng++] = v[i].cpu_ns - v[i - 1].cpu_ns;
	free(v);
	if (!ng) {
		free(gap);
		snprintf(err, errlen, "--launch-us-from: '%s' has no two kernel launches of one thread", path);
		return -2;
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
		else if (!strcmp(v, "sdpa") || !strcmp(v, "flash"))
			o->attention = MODEL_ATTN_SDPA;
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
		return -2;
	}
	if (bad) {
		static const struct { const char *opt, *what; } help[] = {
			{ "mode", "inference, training, decode or generate" }, { "dtype", "fp32, tf32, bf16 or fp16" },
			{ "optimizer", "none, sgd or adamw" }, { "attention", "eager or sdpa" },
			{ "head", "lm or classify" }, { "launch-us", "microseconds >= 0" },
			{ "expert-capacity", "a positive count, config or none" },
			{ "zero", "0, 1, 2 or 3" },
		};
		const char *what = "a positive count";
		for (size_t i = 0; i < sizeof(help) / sizeof(help[0]); i++)
			if (!strcmp(help[i].opt, name))
				what = help[i].what;
		snprintf(err, errlen, "bad --%s '%s': %s is expected", name, v, what);
		return -2;
	}
	return 0;
}

/* Largest prediction first. */
static void sort_groups(struct analysis_group *g, size_t ng)
{
	for (size_t a = 1; a < ng; a++) {
		struct analysis_group x = g[a];
		size_t b = a;
		while (b > 0 && g[b - 1].pred_ns < x.pred_ns) {
			g[b] = g[b - 1];
			b--;
		}
		g[b] = x;
	}
}

/* Groups one target's kernels by name (names are static strings). */
static int fill_target(struct analysis_target *t, const struct model_seq *s,
		       const struct pred_result *res, const struct model_opts *o)
{
	uint32_t M = 1;
	if (o->pp > 1) {
		M = o->microbatches ? o->microbatches : o->pp;
		if (M > o->batch)
			M = o->batch;
	}
	struct analysis_group *g = calloc(s->n ? s->n : 1, sizeof(*g));
	double *best = calloc(s->n ? s->n : 1, sizeof(*best) * 2);
	if (!g || !best) {
		free(g);
		free(best);
		return -1;
	}
	size_t ng = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct model_kernel *mk = &s->v[i];
		double mult = (o->pp > 1 && mk->phase != MODEL_PH_OPTIMIZER && !mk->async) ? M : 1;
		double ns = res[i].ns * mult;
		size_t j;
		for (j = 0; j < ng; j++)
			if (g[j].name == mk->k.name)
				break;
		if (j == ng) {
			g[ng].name = mk->k.name;
			g[ng].op = mk->k.op;
			g[ng].method = res[i].method;
			g[ng].memory_bound = res[i].memory_bound;
			ng++;
		}
		g[j].launches += (uint64_t)mult;
		g[j].pred_ns += ns;
		if (ns > best[j]) {
			best[j] = ns;
			g[j].method = res[i].method;
			g[j].memory_bound = res[i].memory_bound;
		}
		t->op_ns[mk->k.op] += ns;
		if (mk->phase == MODEL_PH_COMM)
			continue;
		t->kernel_ns += ns;
		if (res[i].memory_bound == 1)
			t->memory_bound_ns += ns;
		else if (res[i].memory_bound == 0)
			t->compute_bound_ns += ns;
		else
			t->unknown_bound_ns += ns;
	}
	free(best);
	sort_groups(g, ng);
	t->groups = g;
	t->ngroups = ng;
	return 0;
}

/* Predicts s on target g into at: the replayed iteration, its splits and
 * the kernel groups. */
static int time_target(struct analysis_target *at, const struct model_seq *s,
		       const struct model_opts *o, const struct gpu_spec *g, enum pred_method method,
		       double launch_ns, struct pred_result *res)
{
	struct model_timing t;
	at->gpu = g;
	at->method = method;
	if (model_time(s, o, g, launch_ns, &t, res))
		return -1;
	at->iteration_ns = t.iteration_ns;
	at->gpu_wait_cpu_ns = t.cpu_bound_ns;
	memcpy(at->method_ns, t.method_ns, sizeof(at->method_ns));
	return fill_target(at, s, res, o);
}

/* dst += k x src: times, splits and kernel groups (matched by name). */
static int add_scaled(struct analysis_target *dst, const struct analysis_target *src, double k)
{
	dst->iteration_ns += k * src->iteration_ns;
	dst->kernel_ns += k * src->kernel_ns;
	dst->copy_ns += k * src->copy_ns;
	dst->gpu_wait_cpu_ns += k * src->gpu_wait_cpu_ns;
	dst->memory_bound_ns += k * src->memory_bound_ns;
	dst->compute_bound_ns += k * src->compute_bound_ns;
	dst->unknown_bound_ns += k * src->unknown_bound_ns;
	for (int m = 0; m < PRED_METHOD_COUNT; m++)
		dst->method_ns[m] += k * src->method_ns[m];
	for (int op = 0; op < PRED_OP_COUNT; op++)
		dst->op_ns[op] += k * src->op_ns[op];
	struct analysis_group *g = realloc(dst->groups, (dst->ngroups + src->ngroups + 1) * sizeof(*g));
	if (!g)
		return -1;
	dst->groups = g;
	for (size_t i = 0; i < src->ngroups; i++) {
		size_t j;
		for (j = 0; j < dst->ngroups; j++)
			if (!strcmp(g[j].name, src->groups[i].name))
				break;
		if (j == dst->ngroups) {
			g[j] = src->groups[i];
			g[j].launches = 0;
			g[j].pred_ns = 0;
			dst->ngroups++;
		}
		g[j].launches += (uint64_t)llround(k * (double)src->groups[i].launches);
		g[j].pred_ns += k * src->groups[i].pred_ns;
	}
	sort_groups(g, dst->ngroups);
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

/* Keeps the memory estimate in a, with each target's largest batch whose
 * estimate fits its memory, and appends to a's warning the targets whose
 * memory the estimate exceeds. */
static void warn_memory(struct analysis *a, const struct model_config *c, const struct model_cli *mc)
{
	struct model_memory m;
	if (memory_at(c, mc, mc->opts.batch, &m))
		return;
	a->memory.peak = m.peak;
	a->memory.weights = m.weights;
	a->memory.gradients = m.gradients;
	a->memory.optimizer = m.optimizer;
	a->memory.activations = m.activations;
	a->memory.kv_cache = m.kv_cache;
	a->memory.transient = m.transient;
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
		a->targets[t].max_batch_fits = lo;
	}
}

static int cmp_kernel(const void *a, const void *b)
{
	return memcmp(*(const struct pred_kernel *const *)a, *(const struct pred_kernel *const *)b,
		      sizeof(struct pred_kernel));
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
	return -2;
}

int model_analysis_run(const struct model_cli *m, const struct gpu_spec *const *targets,
		       size_t ntargets, enum pred_method method, struct analysis **out,
		       char *err, size_t errlen)
{
	struct model_config c;
	struct model_seq s, sd;
	*out = NULL;
	memset(&sd, 0, sizeof(sd));
	if (!m->model) {
		snprintf(err, errlen, "model options given without --model CONFIG.json|NAME");
		return -2;
	}
	int rc = model_config_resolve(m->model, &c, err, errlen);
	if (rc)
		return -2;
	for (size_t i = 0; i < ntargets; i++)
		if (model_target_check(&m->opts, targets[i], err, errlen))
			return -2;
	int generate = m->opts.mode == MODEL_GENERATE;
	struct model_opts opts, od;
	rc = build_run(&c, m, m->opts.batch, &s, &sd, &opts, &od, err, errlen);
	if (rc)
		return rc == MODEL_ENOMEM ? -1 : -2;
	struct analysis *a = calloc(1, sizeof(*a));
	struct pred_result *res = malloc((s.n ? s.n : 1) * sizeof(*res));
	struct pred_result *resd = malloc((sd.n ? sd.n : 1) * sizeof(*resd));
	rc = 0;
	if (!a || !res || !resd || !(a->targets = calloc(ntargets ? ntargets : 1, sizeof(*a->targets)))) {
		rc = -1;
		snprintf(err, errlen, "out of memory");
	} else if (method == PRED_WAVE) {
		rc = -2;
		snprintf(err, errlen, "--method wave needs a measured trace; use auto, mlp, roofline, "
			 "tcgemm or vecop with --model");
	}
	if (rc) {
		if (a)
			free(a->targets);
		free(a);
		free(res);
		free(resd);
		model_seq_release(&s);
		model_seq_release(&sd);
		return rc;
	}
	const struct model_opts *o = &opts, *mo = &m->opts;
	opts.method = od.method = method;
	a->amd_scale = o->pred ? *predictor_amd_scale(o->pred) : tile_amd_scale_default;
	char gen[32] = "";
	if (generate)
		snprintf(gen, sizeof(gen), " + %u new tokens", m->new_tokens);
	snprintf(a->device, sizeof(a->device), "model %.40s, %s, batch %u, seq %u%s, %.8s%s", c.name,
		 mo->mode == MODEL_TRAINING ? "training" : mo->mode == MODEL_DECODE ? "decode"
		 : generate ? "generate" : "inference",
		 o->batch, o->seq, gen, gpu_dtype_name(o->dtype), o->dp * o->tp * o->pp > 1 ? ", parallel" : "");
	a->kernels = s.n + (generate ? (size_t)(m->new_tokens - 1) * sd.n : 0);
	a->iterations = 1;
	a->ntargets = ntargets;
	if (o->dp * o->tp * o->pp > 1) {
		char zero[32] = "";
		if (o->zero && o->dp > 1)
			snprintf(zero, sizeof(zero), ", zero %u", o->zero);
		snprintf(a->warning, sizeof(a->warning),
			 "dp %u, tp %u, pp %u%s: one GPU of %u predicted; collectives in op 'comm'",
			 o->dp, o->tp, o->pp, zero, o->dp * o->tp * o->pp);
	}
	for (size_t i = 0; i < ntargets && !rc; i++) {
		struct analysis_target *at = &a->targets[i];
		if (time_target(at, &s, o, targets[i], method, m->launch_ns, res)) {
			rc = -1;
			break;
		}
		at->gpus = o->dp * o->tp * o->pp;
		at->tokens_per_iteration = (double)o->batch * o->dp *
			(generate ? m->new_tokens : o->mode == MODEL_DECODE ? 1 : o->seq);
		if (generate && m->new_tokens > 1) {
			struct analysis_target td;
			memset(&td, 0, sizeof(td));
			if (time_target(&td, &sd, &od, targets[i], method, m->launch_ns, resd) ||
			    add_scaled(at, &td, (double)(m->new_tokens - 1)))
				rc = -1;
			free(td.groups);
		}
	}
	if (!rc)
		warn_memory(a, &c, m);
	/* distinct configurations (by name, shape and launch) */
	if (!rc && s.n) {
		const struct pred_kernel **p = malloc((s.n + sd.n) * sizeof(*p));
		if (p) {
			size_t n = 0;
			for (size_t i = 0; i < s.n; i++)
				p[n++] = &s.v[i].k;
			for (size_t i = 0; generate && i < sd.n; i++)
				p[n++] = &sd.v[i].k;
			qsort(p, n, sizeof(*p), cmp_kernel);
			a->configs = 1;
			for (size_t i = 1; i < n; i++)
				a->configs += memcmp(p[i - 1], p[i], sizeof(*p[i])) != 0;
			free(p);
		}
	}
	free(res);
	free(resd);
	model_seq_release(&s);
	model_seq_release(&sd);
	if (rc) {
		analysis_free(a);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	*out = a;
	return 0;
}
