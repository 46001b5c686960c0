/*
 * modeltime.c - predicted time of a model's kernel sequence on a target GPU.
 *
 * Every distinct kernel configuration is predicted once from scratch
 * (predict_kernel with no origin, method auto), collectives by comm.c.
 * The replay follows eager PyTorch: one CPU thread issues kernels
 * MODEL_LAUNCH_NS_DEFAULT apart (Python + ATen dispatch + cudaLaunchKernel:
 * 5-10 us per op in PyTorch eager on current CPUs; gpu-benches'
 * gpu-small-kernels shows the launch alone, without Python, sustaining one
 * small kernel per ~3 us on A100), a kernel starts when it is issued
 * and its stream is idle.  DDP's gradient buckets run on a second stream
 * and overlap the backward pass; the optimizer waits for them.  ZeRO's
 * parameter gathers run on that stream too, as early as the CPU issues
 * them, and a layer's first kernel waits for its own.
 *
 * Pipeline parallelism (pp > 1, M microbatches): the sequence holds one
 * microbatch of the last stage; a GPipe/1F1B iteration takes (M + pp - 1)
 * microbatch times, the pp - 1 extra being the bubble, then the gradient
 * all-reduce (not overlapped) and the optimizer step.
 */
#include "analyzer/model.h"
#include "analyzer/comm.h"

#include <stdlib.h>
#include <string.h>

/* A small open-addressing cache of predictions keyed by the kernel's
 * configuration (the name pointers are static strings, so pointer
 * equality is name equality). */
#define IMPLAUSIBLE 50.0

struct cache_ent {
	struct pred_kernel k;   /* as predicted: with the target's re-reads */
	int used;
	struct pred_result r;
};

double model_reread_bytes(double reread, double reuse, const struct gpu_spec *g)
{
	double l2 = g && g->l2_mb > 0 ? g->l2_mb * 1048576.0 : 0;
	return reread > 0 && reuse > l2 ? reread : 0;
}

static uint64_t hash_kernel(const struct pred_kernel *k)
{
	uint64_t h = 1469598103934665603ull;
	uint64_t v[] = { (uint64_t)(uintptr_t)k->name, (uint64_t)k->op, (uint64_t)k->dtype, k->m, k->n,
			 k->k, k->batch, k->grid[0], k->grid[1], k->grid[2], k->block[0],
			 (uint64_t)k->bytes, (uint64_t)k->flops };
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		h ^= v[i];
		h *= 1099511628211ull;
	}
	return h;
}

static int same_kernel(const struct pred_kernel *a, const struct pred_kernel *b)
{
	return a->name == b->name && a->op == b->op && a->dtype == b->dtype && a->m == b->m &&
	       a->n == b->n && a->k == b->k && a->batch == b->batch &&
	       memcmp(a->grid, b->grid, sizeof(a->grid)) == 0 &&
	       memcmp(a->block, b->block, sizeof(a->block)) == 0 && a->bytes == b->bytes &&
	       a->flops == b->flops && a->b_transposed == b->b_transposed;
}

static int predict_all(const struct predictor *pred, const struct model_seq *s,
		       const struct gpu_spec *target, enum pred_method method,
		       struct pred_result *res)
{
	const struct comm_link *lp;
	struct comm_link link, wide;
	comm_link_init(target, &link, &wide);
	lp = &link;
	size_t cap = 64;
	while (cap < 2 * s->n)
		cap *= 2;
	struct cache_ent *tab = calloc(cap, sizeof(*tab));
	if (!tab)
		return MODEL_ENOMEM;
	for (size_t i = 0; i < s->n; i++) {
		const struct model_kernel *mk = &s->v[i];
		if (mk->phase == MODEL_PH_COMM) {
			memset(&res[i], 0, sizeof(res[i]));
			res[i].ns = comm_time_ns(mk->comm, mk->k.bytes, mk->ranks, lp);
			res[i].method = PRED_ROOFLINE;
			res[i].memory_bound = -1;
			res[i].gamma = -1;
			continue;
		}
		struct pred_kernel k = mk->k;
		k.bytes += model_reread_bytes(mk->reread_bytes, mk->reuse_bytes, target);
		size_t j = hash_kernel(&k) & (cap - 1);
		while (tab[j].used && !same_kernel(&tab[j].k, &k))
			j = (j + 1) & (cap - 1);
		if (!tab[j].used) {
			struct pred_result r;
			memset(&r, 0, sizeof(r));
			if (predict_kernel(pred, &k, NULL, target, method, &r) != 0 || !(r.ns >= 0))
				r.ns = 0, r.method = PRED_ROOFLINE;
			/* A learned model far outside its training data can return
			 * absurd times (seen: reductions at 1e8 x their roofline);
			 * past IMPLAUSIBLE x the roofline bound the roofline is used. */
			if (r.method == PRED_MLP && r.roofline_ns > 0 &&
			    r.ns > IMPLAUSIBLE * (r.roofline_ns > 1000 ? r.roofline_ns : 1000)) {
				struct pred_result rr;
				if (predict_kernel(pred, &k, NULL, target, PRED_ROOFLINE, &rr) == 0)
					r = rr;
			}
			tab[j].k = k;
			tab[j].used = 1;
			tab[j].r = r;
		}
		res[i] = tab[j].r;
	}
	free(tab);
	return 0;
}

struct replay {
	double cpu, stream[2], idle_cpu;
	double *end;            /* each kernel's end, for the waits on them */
};

/* Replays kernel i: issue on the CPU, start when the stream is free (and
 * what it waits for is done). */
static void replay_one(struct replay *r, const struct model_kernel *mk, size_t i, double ns,
		       double launch_ns)
{
	r->cpu += launch_ns;
	int st = mk->async ? 1 : 0;
	double ready = r->stream[st];
	if (mk->async == MODEL_ASYNC_AFTER && r->stream[0] > ready)
		ready = r->stream[0]; /* the bucket's gradients come from stream 0 */
	if (mk->phase == MODEL_PH_OPTIMIZER && r->stream[1] > ready)
		ready = r->stream[1]; /* the step waits for the all-reduces */
	if (mk->wait && mk->wait <= i && r->end[mk->wait - 1] > ready)
		ready = r->end[mk->wait - 1]; /* its parameters' gather */
	double start = r->cpu > ready ? r->cpu : ready;
	if (st == 0 && r->cpu > r->stream[0])
		r->idle_cpu += r->cpu - r->stream[0];
	r->stream[st] = start + ns;
	r->end[i] = start + ns;
}

int model_time(const struct model_seq *s, const struct model_opts *o,
	       const struct gpu_spec *target, double launch_ns,
	       struct model_timing *out, struct pred_result *kernel_res)
{
	memset(out, 0, sizeof(*out));
	if (!s || !o || !target || launch_ns < 0)
		return MODEL_EINVAL;
	size_t n = s->n ? s->n : 1;
	struct pred_result *res = kernel_res ? kernel_res : malloc(n * sizeof(*res));
	double *ns = malloc(n * sizeof(*ns));
	struct replay r;
	memset(&r, 0, sizeof(r));
	r.end = calloc(n, sizeof(*r.end));
	if (!ns || !res || !r.end) {
		if (!kernel_res)
			free(res);
		free(ns);
		free(r.end);
		return MODEL_ENOMEM;
	}
	struct predictor *own = NULL;
	int rc = 0;
	if (!o->pred && predictor_new(NULL, &own, NULL, 0) != 0)
		rc = MODEL_ENOMEM;
	if (!rc)
		rc = predict_all(o->pred ? o->pred : own, s, target, o->method, res);
	predictor_free(own);
	if (rc)
		goto done;
	for (size_t i = 0; i < s->n; i++)
		ns[i] = res[i].ns;

	uint32_t M = 1;
	if (o->pp > 1) {
		M = o->microbatches ? o->microbatches : o->pp;
		if (M > o->batch)
			M = o->batch;
	}
	if (o->pp <= 1) {
		for (size_t i = 0; i < s->n; i++)
			replay_one(&r, &s->v[i], i, ns[i], launch_ns);
		out->iteration_ns = r.stream[0] > r.stream[1] ? r.stream[0] : r.stream[1];
	} else {
		/* one microbatch of the stage, then (M + pp - 1) of them */
		for (size_t i = 0; i < s->n; i++)
			if (s->v[i].phase != MODEL_PH_OPTIMIZER && !s->v[i].async)
				replay_one(&r, &s->v[i], i, ns[i], launch_ns);
		double t_mb = r.stream[0];
		out->bubble_ns = (double)(o->pp - 1) * t_mb;
		r.idle_cpu *= (double)(M + o->pp - 1);
		r.cpu = r.stream[0] = r.stream[1] = (double)(M + o->pp - 1) * t_mb;
		for (size_t i = 0; i < s->n; i++)
			if (s->v[i].phase == MODEL_PH_OPTIMIZER || s->v[i].async) {
				struct model_kernel mk = s->v[i];
				mk.async = 0;
				replay_one(&r, &mk, i, ns[i], launch_ns);
			}
		out->iteration_ns = r.stream[0];
	}
	for (size_t i = 0; i < s->n; i++) {
		const struct model_kernel *mk = &s->v[i];
		double mult = (o->pp > 1 && mk->phase != MODEL_PH_OPTIMIZER && !mk->async) ? M : 1;
		double t = ns[i] * mult;
		out->phase_ns[mk->phase] += t;
		if (mk->phase == MODEL_PH_COMM)
			out->comm_ns += t;
		else
			out->compute_ns += t;
		if ((unsigned)res[i].method < PRED_METHOD_COUNT && mk->phase != MODEL_PH_COMM)
			out->method_ns[res[i].method] += t;
		out->kernels += (size_t)mult;
	}
	out->cpu_bound_ns = r.idle_cpu;
	{
		double busy = out->compute_ns + out->bubble_ns + r.idle_cpu;
		double exposed = out->iteration_ns - busy;
		out->comm_exposed_ns = exposed > 0 ? exposed : 0;
		if (out->comm_exposed_ns > out->comm_ns)
			out->comm_exposed_ns = out->comm_ns;
	}
done:
	if (!kernel_res)
		free(res);
	free(ns);
	free(r.end);
	return rc;
}
