/*
 * analyze.c - the analysis pipeline behind surfer-analyze, in one streaming
 * pass over the trace:
 *
 *   header  -> the origin GPU;
 *   GEMM/conv records -> a small ring, so the kernels they launch carry
 *           their shape, dtype, FLOPs and bytes;
 *   kernels -> the kernel table; a new configuration is predicted on every
 *           target at once (predict_kernel), as a ratio to the measured
 *           time of the launch that made it known;
 *   every event -> a reorder window of AN_WINDOW events sorted by CPU time,
 *           then the timeline, which replays it with measured durations and
 *           with measured x ratio on each target;
 *   end     -> per-name groups and shares for the reports.
 *
 * Memory is bounded by the configurations, strings, streams and the window,
 * never by the number of launches.  A trace out of CPU order by more than
 * the window (an event older than one already replayed; the threads of a
 * program interleave in runs longer than the window) is read a second time
 * in CPU order, thread by thread (trace_merge_*, the reader noted where each
 * thread's records are), and replayed again.  Only when one thread's own
 * records are out of order beyond the window, or the second reading does
 * not resolve every launch to the configuration the first gave it, is the
 * trace read into a compact sorted copy (about 100 bytes an event).
 *
 * Clocks: GPU times are expected on the CPU clock.  When the smallest
 * (GPU start - CPU launch) among the first AN_WINDOW events is negative or
 * above one second the two clocks have different bases and GPU times are
 * moved by that smallest difference (the earliest launch then starts with
 * no latency); otherwise they are used as recorded.
 */
#include "analyzer/analyze.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predictor/comm.h"
#include "predictor/power.h"
#include "analyzer/graphs.h"
#include "analyzer/ktable.h"
#include "analyzer/timeline.h"
#include "trace/hmap.h"
#include "trace/trace.h"

/* Library calls remembered for their kernels.  With CUPTI timing a kernel
 * record is written when its GPU times arrive, up to a second (a CUPTI
 * flush) after its GEMM call's record: on an H200 a GPT-2 step's kernels
 * came a median of 1468 records after their calls, past a ring of 256
 * calls, and lost their shapes. */
#define AN_LIB_RING 65536
#define AN_CLOCK_BASE_LIMIT_NS 1000000000LL

struct an_ring {
	uint64_t *seq;                /* AN_LIB_RING of each, on the heap          */
	struct ktable_lib *lib;
};

/* An event waiting in the reorder window (or, for a trace out of order
 * beyond it, in the sorted copy). */
struct an_pending {
	struct tl_event ev;
	uint64_t seq;
	int32_t iteration;
	int item;                     /* an_item_candidate                         */
	int no_cpu;                   /* the launch's CPU time is unknown (0): it
				       * launches when it starts on the GPU      */
	int may_outlast;              /* an_may_outlast                            */
};

/* How far back (events) a CPU wait looks for the copy before it. */
#define AN_ITEM_LOOKBACK 64

/* Events wait here until AN_WINDOW later ones have been read, so records
 * written a little out of CPU order (GPU times that arrive late) replay in
 * order while memory stays bounded. */
#define AN_WINDOW 16384

struct an_ctx {
	const char *path;             /* the trace file, or a name for the buffer   */
	const void *buf;              /* the trace in memory, NULL: read path       */
	size_t len;
	const struct analysis_options *o;
	struct analysis *a;
	struct trace_reader *r;       /* the reader, kept for its strings          */
	struct ktable *kt;
	struct an_ring ring;
	uint64_t nrecords;            /* records read                              */
	int64_t t0;                   /* origin of relative times: first CPU time  */
	int64_t offset;               /* subtracted from GPU times                 */
	int64_t min_delta;
	int have_delta;
	uint64_t markers;             /* iteration markers                         */
	uint64_t copies;              /* memcpy and memset records                 */
	uint64_t whole_replays;       /* graph replays timed whole (cuGraphLaunch) */
	uint64_t captured_replays;    /* ... of them, those whose graph's capture
				       * the trace holds                          */
	struct graphs *graphs;        /* the launches captured into CUDA graphs    */
	uint64_t capture_markers;     /* capture start/stop markers                */
	int kernel_iterations;        /* kernels carry iteration numbers           */
	int timed;                    /* some kernel or copy has GPU times         */
	struct tl_kernel_pred *pred;  /* configs x targets                         */
	uint8_t *pmethod, *pbound;    /* configs x targets                         */
	uint8_t *pnccl;               /* configs x targets: 1 where an engine's
				       * custom all-reduce runs as NCCL's        */
	struct tl_target *targets;
	struct timeline *tl;
	struct an_pending *pend;      /* sorted copy of every event (fallback)     */
	size_t npend, cappend;
	struct an_pending *win;       /* reorder window, sorted, [whead, wtail)    */
	size_t whead, wtail, wcap;
	int offset_fixed;             /* the clock offset is decided              */
	int fed;                      /* an event left the window                 */
	double fed_cpu;               /* ... and the CPU time and seq of the last  */
	uint64_t fed_seq;
	int overflow;                 /* an event came later than the window allows */
	int have_t0;
	uint64_t launch_sum;          /* over replayed launches, of an_launch_hash */
	uint32_t cap_configs;
	int32_t cur_iteration;
	const struct predictor *predictor; /* o->pred, or own_pred (the defaults)  */
	struct predictor *own_pred;
	char *err;
	size_t errlen;
};

static int an_fail(struct an_ctx *c, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, c->errlen, fmt, ap);
	va_end(ap);
	return code;
}

static void an_ring_put(struct an_ring *r, uint64_t seq, const struct ktable_lib *lib)
{
	r->seq[seq % AN_LIB_RING] = seq;
	r->lib[seq % AN_LIB_RING] = *lib;
}

static const struct ktable_lib *an_ring_get(const struct an_ring *r, uint64_t seq)
{
	if (seq == 0 || r->seq[seq % AN_LIB_RING] != seq)
		return NULL;
	return &r->lib[seq % AN_LIB_RING];
}

/* The library call a kernel's configuration takes: the one its record
 * names, else, for a kernel of a graph replay, the one its launch captured
 * into the graph named (graphs.h; each call for a replayed kernel consumes
 * its match, so every reading of the trace asks once per record). */
static const struct ktable_lib *an_kernel_lib(struct an_ctx *c, const struct trace_kernel *k)
{
	const struct ktable_lib *lib = an_ring_get(&c->ring, k->lib_call);
	return lib || !k->replay ? lib : graphs_replayed_lib(c->graphs, k);
}

/* Keeps what a GEMM, convolution or operator record says for the kernels
 * that name it.  0, or -1 out of memory (interning an attention shape:
 * only on the first reading, a later one finds the shapes it made). */
static int an_lib_record(struct an_ctx *c, const struct trace_record *rec)
{
	struct ktable_lib lib;
	int rc = 0;

	if (rec->type == TRACE_GEMM) {
		ktable_lib_from_gemm(&lib, &rec->u.gemm);
		an_ring_put(&c->ring, rec->u.gemm.seq, &lib);
	} else if (rec->type == TRACE_OP) {
		rc = ktable_lib_from_op(c->kt, &lib, &rec->u.op);
		an_ring_put(&c->ring, rec->u.op.seq, &lib);
	} else {
		ktable_lib_from_conv(&lib, &rec->u.conv);
		an_ring_put(&c->ring, rec->u.conv.seq, &lib);
	}
	return rc;
}

static void an_note_gpu(struct an_ctx *c, uint64_t cpu, uint64_t start, uint64_t end)
{
	int64_t d;

	if (!start || end < start)
		return;
	c->timed = 1;
	if (!cpu)
		return;
	d = (int64_t)(start - cpu);
	if (!c->have_delta || d < c->min_delta)
		c->min_delta = d;
	c->have_delta = 1;
}

/* CPU time of a record that takes part in the replay (for a launch whose
 * CPU time is unknown, its GPU start), 0 for others. */
static uint64_t an_cpu_ns(const struct trace_record *rec)
{
	switch (rec->type) {
	case TRACE_KERNEL:
		return rec->u.kernel.cpu_ns ? rec->u.kernel.cpu_ns : rec->u.kernel.start_ns;
	case TRACE_MEMCPY: case TRACE_MEMSET:
		return rec->u.copy.cpu_ns ? rec->u.copy.cpu_ns : rec->u.copy.start_ns;
	case TRACE_SYNC: return rec->u.sync.cpu_ns;
	case TRACE_MARKER: return rec->u.marker.cpu_ns;
	default: return 0;
	}
}

static enum tl_copy_class an_copy_class(const struct trace_record *rec)
{
	if (rec->type == TRACE_MEMSET)
		return TL_COPY_DEVICE;
	switch (rec->u.copy.kind) {
	case TRACE_COPY_DTOD: return TL_COPY_DEVICE;
	case TRACE_COPY_PTOP: return TL_COPY_PEER;
	case TRACE_COPY_HTOH: return TL_COPY_NONE;
	default: return TL_COPY_HOST;
	}
}

/*
 * Whether a copy's call returns only after the copy ran, so that the CPU
 * waits for the stream to reach it (CUDA Runtime API, "API synchronization
 * behavior"): every call without Async; a host-to-host copy; and a copy
 * between the device and pageable memory, which the driver stages through
 * a pinned buffer: to pageable memory cudaMemcpyAsync returns when the copy
 * is done, from it after the stream reached the copy and the data was
 * staged.  A copy whose call outlasted its GPU work is found in an_feed
 * (an_may_outlast).
 */
static int an_copy_blocks(const struct trace_record *rec)
{
	const struct trace_copy *cp = &rec->u.copy;

	if (!cp->async)
		return 1;
	if (rec->type != TRACE_MEMCPY)
		return 0;
	if (cp->kind == TRACE_COPY_HTOH)
		return 1;
	return cp->host_mem == TRACE_HOST_PAGEABLE &&
	       (cp->kind == TRACE_COPY_HTOD || cp->kind == TRACE_COPY_DTOH);
}

/*
 * A copy whose call may return only after it ran: one with a host side
 * that is not known to be page-locked (a copy between device memories, a
 * memset or a copy from or to pinned memory is queued and returned from at
 * once).  When such a call ended at or after its GPU work, having waited
 * for the stream to reach it (it started more than AN_WAITED_NS after the
 * call), it blocked (an_feed); a call that merely outlasted a copy run at
 * once on an idle GPU says nothing.
 */
#define AN_WAITED_NS 20000.0
static int an_may_outlast(const struct trace_record *rec)
{
	const struct trace_copy *cp = &rec->u.copy;

	return rec->type == TRACE_MEMCPY && cp->kind != TRACE_COPY_DTOD &&
	       cp->host_mem != TRACE_HOST_PINNED;
}

/* A copy to host memory of unknown kind issued with Async: when the same
 * thread's next call waits for its stream, it is the `.item()` pattern
 * (a scalar copied out, then the CPU blocks on it), replayed as a blocking
 * copy (an_mark_item). */
static int an_item_candidate(const struct trace_record *rec)
{
	const struct trace_copy *cp = &rec->u.copy;

	return rec->type == TRACE_MEMCPY && cp->async && cp->kind == TRACE_COPY_DTOH &&
	       cp->host_mem == TRACE_HOST_UNKNOWN;
}

/* A kernel or copy with GPU times whose launch's CPU time the trace does
 * not have (0: an importer found no launch call for it). */
static int an_no_cpu(const struct trace_record *rec)
{
	if (rec->type == TRACE_KERNEL)
		return !rec->u.kernel.cpu_ns && rec->u.kernel.start_ns;
	if (rec->type == TRACE_MEMCPY || rec->type == TRACE_MEMSET)
		return !rec->u.copy.cpu_ns && rec->u.copy.start_ns;
	return 0;
}

static double an_ratio(double o, double d)
{
	return (o > 0 && d > 0) ? o / d : 1.0;
}

/* ns a copy of bytes takes on g when the trace did not time it: bytes over
 * the link it crosses (host link, achievable DRAM bandwidth, NVLink). */
static double an_copy_estimate(const struct gpu_spec *g, enum tl_copy_class cls, uint64_t bytes)
{
	double gbps;

	switch (cls) {
	case TL_COPY_HOST: gbps = gpu_host_link_gbps(g); break;
	case TL_COPY_DEVICE: gbps = gpu_mem_bw_eff_gbps(g) / 2; break; /* read + write */
	case TL_COPY_PEER: gbps = g->nvlink_gbps > 0 ? g->nvlink_gbps : gpu_host_link_gbps(g); break;
	default: return 0;
	}
	return gbps > 0 ? (double)bytes / gbps : 0;   /* bytes / (GB/s) = ns */
}

/* Copy duration multipliers of every target. */
static int an_targets(struct an_ctx *c)
{
	size_t nt = c->o->ntargets;
	const struct gpu_spec *og = c->a->origin;

	c->targets = calloc(nt ? nt : 1, sizeof(*c->targets));
	if (!c->targets)
		return an_fail(c, SURFER_ENOMEM, "out of memory");
	for (size_t t = 0; t < nt; t++) {
		const struct gpu_spec *tg = c->o->targets[t];
		double *s = c->targets[t].copy_scale;

		if (!og) {
			/* a built trace: nothing measured to scale; its copies
			 * carry their bytes as the ns they take at 1 GB/s
			 * (an_event), which the target's link divides */
			for (int k = 0; k < TL_COPY_CLASS_COUNT; k++)
				s[k] = an_copy_estimate(tg, (enum tl_copy_class)k, 1);
			continue;
		}
		s[TL_COPY_HOST] = an_ratio(gpu_host_link_gbps(og), gpu_host_link_gbps(tg));
		s[TL_COPY_DEVICE] = an_ratio(gpu_mem_bw_eff_gbps(og), gpu_mem_bw_eff_gbps(tg));
		s[TL_COPY_PEER] = (og->nvlink_gbps > 0 && tg->nvlink_gbps > 0)
					  ? og->nvlink_gbps / tg->nvlink_gbps
					  : s[TL_COPY_HOST];
		s[TL_COPY_NONE] = 1.0;
	}
	return 0;
}

/* Makes room for configuration i in the prediction arrays. */
static int an_grow(struct an_ctx *c, uint32_t i)
{
	size_t nt = c->o->ntargets ? c->o->ntargets : 1;

	if (i >= c->cap_configs) {
		uint32_t cap = c->cap_configs ? c->cap_configs * 2 : 256;
		struct tl_kernel_pred *p = realloc(c->pred, (size_t)cap * nt * sizeof(*p));
		uint8_t *m, *b;

		if (!p)
			return -1;
		c->pred = p;
		m = realloc(c->pmethod, (size_t)cap * nt);
		if (!m)
			return -1;
		c->pmethod = m;
		b = realloc(c->pbound, (size_t)cap * nt);
		if (!b)
			return -1;
		c->pbound = b;
		b = realloc(c->pnccl, (size_t)cap * nt);
		if (!b)
			return -1;
		c->pnccl = b;
		c->cap_configs = cap;
	}
	return timeline_set_configs(c->tl, i + 1, c->pred);
}

/*
 * Predicts configuration i on every target, as a ratio to origin_ns (the
 * duration of the launch that made it known; 0 when untimed).  Every method
 * but one is linear in the origin time (predict.h's contract), so the ratio
 * does not depend on which launch it was computed from; each launch keeps
 * its own measured duration x ratio.  The exception, `auto`'s pull across
 * architectures, grows as origin_ns^(1 - pull): the target keeps that
 * exponent and each launch takes scale x its own duration^(1 - pull)
 * (timeline.h), so a slow first launch (cold caches, a clock ramping up)
 * does not set the time of every later one.
 */
/* A learned model far outside its training data can return absurd times
 * (seen: reductions at 1e8 x their roofline); past AN_IMPLAUSIBLE x the
 * roofline bound (at least 1 us) a from-scratch prediction takes the
 * roofline. */
#define AN_IMPLAUSIBLE 50.0

/* A serving engine's custom all-reduce (cross_device_reduce_*) that the
 * target cannot run (its group not all NVLink-connected, comm.c's
 * comm_custom_all_reduce_ns()) runs as NCCL's, whose time
 * an_predict_built() took and marked (pnccl): the target's kernel list and
 * spans name NCCL's ring kernel of the same type, not the kernel that does
 * not run there. */
static const char *an_custom_ar_fallback(const char *name)
{
	const char *t = strchr(name, '<');
	if (t && !strncmp(t, "<half", 5))
		return "ncclDevKernel_AllReduce_Sum_f16_RING_LL";
	if (t && !strncmp(t, "<float", 6))
		return "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
	return "ncclDevKernel_AllReduce_Sum_bf16_RING_LL";
}

/* Predicts a kernel from its operator record on target g: a collective
 * (built, recorded or imported, timed or not) by comm.c over the links of
 * g's system, never by scaling its measured time (a collective's time is
 * the links', not the GPU's); any other kernel no GPU ran from scratch (no
 * origin), with the DRAM bytes a broadcast operand adds where it does not
 * stay in g's L2.  A method that cannot predict it gives 0 ns.  *nccl: 1
 * where an engine's custom all-reduce falls back to NCCL's on g. */
static void an_predict_built(const struct predictor *pred, const struct ktable_key *key,
			     const struct pred_kernel *in, const struct gpu_spec *g,
			     const struct gpu_system *sys, enum pred_method method,
			     struct pred_result *r, int *nccl)
{
	struct pred_kernel k = *in;

	memset(r, 0, sizeof(*r));
	*nccl = 0;
	if (key->collective != TRACE_COLL_NONE) {
		struct comm_link link, wide;

		comm_link_init_params(g, gpu_system_for(sys, g), predictor_comm(pred), &link, &wide);
		r->ns = 0;
		if (key->collective == TRACE_COLL_ALL_REDUCE && comm_is_custom_all_reduce(k.name))
			r->ns = comm_custom_all_reduce_ns(k.bytes, key->ranks, &link);
		if (key->collective == TRACE_COLL_ALL_TO_ALL && key->n && key->k)
			/* node-limited routing: the OP's n nodes a token at most, k rows */
			r->ns = comm_routed_a2a_ns(k.bytes, (uint32_t)key->k, (uint32_t)key->n,
						   key->ranks, key->node_ranks, &link);
		if (!(r->ns > 0)) {   /* NCCL's, also where the engine falls back to it */
			*nccl = comm_is_custom_all_reduce(k.name);
			r->ns = comm_group_ns((enum comm_op)key->collective, k.bytes, key->ranks,
					      key->node_ranks, &link);
		}
		if (key->collective == TRACE_COLL_ALL_TO_ALL && comm_is_a2a_sm_share(k.name))
			r->ns = comm_a2a_sm_share_ns(r->ns, g->sms);
		if (comm_is_sm_share(k.name))
			r->ns = comm_overlap_sm_ns(r->ns, key->ranks, &link);
		r->method = PRED_COMM;
		r->memory_bound = -1;
		r->gamma = -1;
		return;
	}
	k.bytes += pred_reread_bytes(key->reread_bytes, key->reuse_bytes, g);
	if (predict_kernel(pred, &k, NULL, g, method, r) != 0 || !(r->ns >= 0))
		r->ns = 0, r->method = PRED_ROOFLINE;
	if (r->method == PRED_MLP && r->roofline_ns > 0 &&
	    r->ns > AN_IMPLAUSIBLE * (r->roofline_ns > 1000 ? r->roofline_ns : 1000)) {
		struct pred_result rr;
		if (predict_kernel(pred, &k, NULL, g, PRED_ROOFLINE, &rr) == 0)
			*r = rr;
	}
	/* a built kernel is queued behind the one before it: the GPU's own
	 * cost per kernel, where the method's time leaves it out */
	r->ns += predict_gpu_cost_ns(pred, r, g);
}

/* Whether a measured kernel is predicted by the collective model on g: a
 * collective, unless g is the GPU it was measured on and no system other
 * than the one it ran on is asked for (then it keeps its measured time, as
 * every kernel on its own GPU does). */
static int an_comm_on(const struct an_ctx *c, const struct ktable_key *key, const struct gpu_spec *g)
{
	if (key->collective == TRACE_COLL_NONE || key->ranks < 2)
		return 0;   /* a group of unknown size keeps the kernel's own scaling */
	return g != c->a->origin || (c->o->system && gpu_same(c->o->system->gpu, g));
}

/* The kernel a configuration key describes, for the predictor: its launch,
 * the shape its library call gave, what the name tells (predict_classify)
 * and origin_ns, its measured time (0: none). */
static void an_kernel_of(const struct an_ctx *c, const struct ktable_key *key, double origin_ns,
			 struct pred_kernel *k)
{
	memset(k, 0, sizeof(*k));
	k->name = trace_reader_string(c->r, key->name, NULL);
	memcpy(k->grid, key->grid, sizeof(k->grid));
	memcpy(k->block, key->block, sizeof(k->block));
	k->regs = key->regs;
	k->smem_static = key->smem_static;
	k->smem_dynamic = key->smem_dynamic;
	k->dtype = key->lib_kind ? (enum gpu_dtype)key->dtype : GPU_DT_FP32;
	if (key->lib_kind == KTABLE_LIB_GEMM)
		k->op = PRED_OP_GEMM;
	else if (key->lib_kind == KTABLE_LIB_CONV)
		k->op = PRED_OP_CONV;
	k->m = key->m;
	k->n = key->n;
	k->k = key->k;
	k->batch = key->batch;
	k->flops = key->flops;
	k->bytes = key->bytes;
	k->b_transposed = (uint8_t)key->b_transposed;
	k->conv = key->conv;
	k->accumulate = (uint8_t)key->accumulate;
	k->b_bytes = key->b_bytes;
	k->origin_ns = origin_ns;
	if (key->lib_kind == KTABLE_LIB_OP) {
		k->op = (enum pred_op)key->op;   /* as described: nothing to infer */
		const struct pred_attn *a = ktable_attn(c->kt, key->attn);
		if (a)
			k->attn = *a;
	}
	else
		predict_classify(k);
}

/* Predicts kernel k (of configuration key) on GPU g: a collective or a
 * built kernel as an_predict_built does, any other as a ratio of its
 * measured time where it has one.  0, or SURFER_EINVAL (no method could). */
static int an_predict_on(struct an_ctx *c, const struct ktable_key *key, const struct pred_kernel *k,
			 const struct gpu_spec *g, struct pred_result *r, int *nccl)
{
	*nccl = 0;
	if (key->lib_kind == KTABLE_LIB_OP && (!(k->origin_ns > 0) || an_comm_on(c, key, g)))
		an_predict_built(c->predictor, key, k, g, c->o->system, c->o->method, r, nccl);
	else if (predict_kernel(c->predictor, k, c->a->origin, g, c->o->method, r) < 0 &&
		 predict_kernel(c->predictor, k, c->a->origin, g, PRED_AUTO, r) < 0)
		return an_fail(c, SURFER_EINVAL, "cannot predict a kernel on '%s'", g->id);
	return 0;
}

/*
 * A CUDA graph replay timed whole (an events trace), whose graph's
 * captured launches the trace holds (graphs.h): its measured time T is
 * shared among those launches as their predicted times on the origin are
 * (o_j from the shape alone, the launch never having been timed by
 * itself), and each share t_j = T o_j / sum o is predicted on the target as
 * a kernel measured at t_j would be.  With ratio methods the replay's
 * prediction is then T x sum(target_j) / sum(o_j): what its kernels'
 * predictions say, scaled to the measured replay; on the origin itself, T.
 * The prediction is linear in T (pull 0) at the replay's first measured
 * time, and its method and bound are those of the launch that takes the
 * most of it on the target.  Returns 1 when predicted so, 0 when the
 * trace holds none of the graph's launches (the replay is one kernel of
 * unknown kind), or SURFER_EINVAL.
 */
static int an_predict_replay(struct an_ctx *c, uint32_t i, double origin_ns)
{
	const struct ktable_entry *e = ktable_entry(c->kt, i);
	size_t n, nt = c->o->ntargets;
	const struct graph_launch *l = e->key.graph ? graphs_capture_launches(c->graphs, e->key.graph, &n)
						    : NULL;
	if (!l || !c->a->origin)
		return 0;
	/* each launch's key and kernel, built once for both passes */
	struct ktable_key *key = malloc(n * sizeof(*key));
	struct pred_kernel *k = malloc(n * sizeof(*k));
	double *o = malloc(n * sizeof(*o)), *sum = calloc(nt, sizeof(*sum)), *most = calloc(nt, sizeof(*most));
	double sum_o = 0;
	int rc = 1;
	if (!key || !k || !o || !sum || !most) {
		rc = an_fail(c, SURFER_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t j = 0; j < n && rc > 0; j++) {
		struct pred_result r;
		int nccl;
		ktable_key_init(&key[j], &l[j].k, l[j].lib.kind != KTABLE_LIB_NONE ? &l[j].lib : NULL);
		an_kernel_of(c, &key[j], 0, &k[j]);
		if (an_predict_on(c, &key[j], &k[j], c->a->origin, &r, &nccl) < 0) {
			rc = SURFER_EINVAL;
			break;
		}
		o[j] = r.ns > 0 ? r.ns : 0;
		sum_o += o[j];
	}
	for (size_t t = 0; t < nt; t++)
		c->pnccl[(size_t)i * nt + t] = 0;
	for (size_t j = 0; j < n && rc > 0; j++) {
		k[j].origin_ns = origin_ns > 0 && sum_o > 0 ? origin_ns * o[j] / sum_o : 0;
		for (size_t t = 0; t < nt && rc > 0; t++) {
			struct pred_result r;
			int nccl;
			size_t at = (size_t)i * nt + t;
			if (an_predict_on(c, &key[j], &k[j], c->o->targets[t], &r, &nccl) < 0) {
				rc = SURFER_EINVAL;
				break;
			}
			sum[t] += r.ns;
			if (r.ns > most[t] || j == 0) {
				most[t] = r.ns;
				c->pmethod[at] = (uint8_t)r.method;
				c->pbound[at] = (uint8_t)(r.memory_bound + 1);
			}
			c->pnccl[at] |= (uint8_t)nccl;
		}
	}
	for (size_t t = 0; t < nt && rc > 0; t++) {
		size_t at = (size_t)i * nt + t;
		c->pred[at].ns = sum[t];
		c->pred[at].scale = origin_ns > 0 ? sum[t] / origin_ns : 0;
		c->pred[at].pull = 0;
	}
out:
	free(key);
	free(k);
	free(o);
	free(sum);
	free(most);
	return rc;
}

static int an_predict_config(struct an_ctx *c, uint32_t i, double origin_ns)
{
	const struct ktable_entry *e = ktable_entry(c->kt, i);
	size_t nt = c->o->ntargets;
	struct pred_kernel k;
	int rc = an_predict_replay(c, i, origin_ns);

	if (rc != 0)
		return rc < 0 ? rc : 0;
	an_kernel_of(c, &e->key, origin_ns, &k);
	for (size_t t = 0; t < nt; t++) {
		struct pred_result r;
		size_t at = (size_t)i * nt + t;
		int nccl = 0;

		if (an_predict_on(c, &e->key, &k, c->o->targets[t], &r, &nccl) < 0)
			return SURFER_EINVAL;
		c->pred[at].ns = r.ns;
		/* a collective takes comm.c's time on every launch: its measured
		 * one holds the wait for the slowest peer, not its own work */
		c->pred[at].scale = k.origin_ns > 0 && !an_comm_on(c, &e->key, c->o->targets[t]) ?
				    r.ns / pow(k.origin_ns, 1 - r.pull) : 0;
		c->pred[at].pull = c->pred[at].scale > 0 ? r.pull : 0;
		c->pmethod[at] = (uint8_t)r.method;
		c->pbound[at] = (uint8_t)(r.memory_bound + 1);
		c->pnccl[at] = (uint8_t)nccl;
	}
	return 0;
}

static const char *an_copy_name(enum tl_copy_class cls)
{
	switch (cls) {
	case TL_COPY_HOST: return "copy host-device";
	case TL_COPY_DEVICE: return "copy device";
	case TL_COPY_PEER: return "copy peer";
	default: return "copy host-host";
	}
}

/* The timeline's placement callback: describes the placement for the
 * caller's on_span (kernel name, launch shape, method from the kernel
 * table and the predictions). */
static void an_placed(void *ctx, const struct tl_placed *p)
{
	struct an_ctx *c = ctx;
	const struct tl_event *ev = p->ev;
	struct analysis_span s;

	if (p->lane == 0 && !c->a->origin)
		return;   /* a built trace: nothing was measured */

	memset(&s, 0, sizeof(s));
	s.lane = p->lane;
	s.stream = ev->stream;
	s.thread = ev->thread;
	s.launch_ns = p->launch_ns;
	s.start_ns = p->start_ns;
	s.end_ns = p->end_ns;
	s.counted = p->counted;
	s.memory_bound = -1;
	if (ev->kind == TL_ITERATION) {
		s.kind = ANALYSIS_SPAN_ITERATION;
		s.name = "iteration";
	} else if (p->cpu_wait) {
		s.kind = ANALYSIS_SPAN_WAIT;
		s.name = ev->kind == TL_COPY ? "blocking copy" : ev->wait_all ? "synchronize all"
									       : "synchronize stream";
	} else if (ev->kind == TL_COPY) {
		s.kind = ANALYSIS_SPAN_COPY;
		s.name = an_copy_name(ev->copy);
		s.origin_ns = p->meas_ns;
	} else if (ev->kind == TL_KERNEL) {
		const struct ktable_entry *e = ktable_entry(c->kt, ev->config);

		s.kind = ANALYSIS_SPAN_KERNEL;
		s.config = ev->config;
		s.origin_ns = p->meas_ns;
		s.name = trace_reader_string(c->r, e->key.name, NULL);
		if (!s.name)
			s.name = "(unnamed)";
		memcpy(s.grid, e->key.grid, sizeof(s.grid));
		memcpy(s.block, e->key.block, sizeof(s.block));
		s.method = PRED_IDENTITY;
		if (p->lane > 0) {
			size_t at = (size_t)ev->config * c->o->ntargets + p->lane - 1;
			s.method = (enum pred_method)c->pmethod[at];
			s.memory_bound = (int)c->pbound[at] - 1;
			if (c->pnccl[at])
				s.name = an_custom_ar_fallback(s.name);
		}
	} else {
		return;
	}
	c->o->on_span(c->o->span_ctx, &s);
}

/* A new timeline, with the placement callback when the caller asked. */
static struct timeline *an_timeline(struct an_ctx *c, uint32_t nconfigs)
{
	struct timeline *tl = timeline_new((uint32_t)c->o->ntargets, nconfigs, c->pred, c->targets);

	if (tl && c->o->on_span)
		timeline_set_callback(tl, an_placed, c);
	return tl;
}

/* t relative to the first CPU time, ns.  Times are any 64-bit values a
 * trace holds, so the difference is taken without signed overflow. */
static double an_rel(const struct an_ctx *c, uint64_t t)
{
	uint64_t t0 = (uint64_t)c->t0;

	return t >= t0 ? (double)(t - t0) : -(double)(t0 - t);
}

/* Converts a record to a timeline event (GPU times not yet moved by the
 * clock offset); returns 0 when it has none.  config is the kernel's
 * configuration, or -1 to look it up. */
static int an_event(struct an_ctx *c, const struct trace_record *rec, struct tl_event *ev,
		    int64_t config)
{
	memset(ev, 0, sizeof(*ev));
	switch (rec->type) {
	case TRACE_KERNEL: {
		const struct trace_kernel *k = &rec->u.kernel;
		struct ktable_key key;
		int64_t i = config;

		if (i < 0) {
			ktable_key_init(&key, k, an_kernel_lib(c, k));
			i = ktable_find(c->kt, &key);
		}
		if (i < 0)
			return 0;
		ev->kind = TL_KERNEL;
		ev->config = (uint32_t)i;
		ev->peer = (k->flags & TRACE_KF_PEER) != 0;
		ev->stream = k->stream;
		ev->thread = k->thread;
		/* a launch of unknown CPU time sorts by its GPU start (an_feed
		 * launches it there) */
		ev->cpu_ns = ev->cpu_end_ns = an_rel(c, k->cpu_ns ? k->cpu_ns : k->start_ns);
		if (k->start_ns && k->end_ns >= k->start_ns) {
			ev->has_gpu = 1;
			ev->start_ns = an_rel(c, k->start_ns);
			ev->end_ns = an_rel(c, k->end_ns);
		}
		return 1;
	}
	case TRACE_MEMCPY:
	case TRACE_MEMSET: {
		const struct trace_copy *cp = &rec->u.copy;

		ev->kind = TL_COPY;
		ev->stream = cp->stream;
		ev->thread = cp->thread;
		ev->cpu_ns = an_rel(c, cp->cpu_ns ? cp->cpu_ns : cp->start_ns);
		ev->cpu_end_ns = cp->cpu_ns && cp->cpu_end_ns >= cp->cpu_ns ? an_rel(c, cp->cpu_end_ns)
									    : ev->cpu_ns;
		ev->blocking = an_copy_blocks(rec);
		ev->copy = an_copy_class(rec);
		if (cp->start_ns && cp->end_ns >= cp->start_ns) {
			ev->has_gpu = 1;
			ev->start_ns = an_rel(c, cp->start_ns);
			ev->end_ns = an_rel(c, cp->end_ns);
		} else if (c->a->origin) {
			ev->est_ns = an_copy_estimate(c->a->origin, ev->copy, cp->bytes);
		} else {
			ev->est_ns = (double)cp->bytes;   /* ns at 1 GB/s (an_targets) */
		}
		return 1;
	}
	case TRACE_SYNC: {
		const struct trace_sync *s = &rec->u.sync;

		ev->kind = TL_SYNC;
		ev->stream = s->stream;
		ev->thread = s->thread;
		ev->cpu_ns = an_rel(c, s->cpu_ns);
		ev->cpu_end_ns = s->cpu_end_ns >= s->cpu_ns ? an_rel(c, s->cpu_end_ns) : ev->cpu_ns;
		ev->event = s->event;
		switch (s->kind) {
		case TRACE_SYNC_STREAM:
		case TRACE_SYNC_EVENT:
			/* the legacy default stream (0) waits for every stream */
			ev->wait_all = s->stream == 0;
			break;
		case TRACE_SYNC_STREAM_WAIT_EVENT:
			ev->no_cpu_wait = 1;
			break;
		case TRACE_SYNC_EVENT_RECORD:
			ev->kind = TL_EVENT_RECORD;
			break;
		default:
			ev->wait_all = 1;
			break;
		}
		return 1;
	}
	case TRACE_MARKER:
		/* Iteration markers delimit iterations; without them the
		 * recorder's capture windows (cuProfilerStart/Stop) do. */
		if (rec->u.marker.kind == TRACE_MARK_ITERATION)
			ev->kind = TL_ITERATION;
		else if (c->markers == 0 && rec->u.marker.kind == TRACE_MARK_CAPTURE_START)
			ev->kind = TL_ITERATION;
		else if (c->markers == 0 && rec->u.marker.kind == TRACE_MARK_CAPTURE_STOP)
			ev->kind = TL_ITERATION_END;
		else
			return 0;
		ev->cpu_ns = ev->cpu_end_ns = an_rel(c, rec->u.marker.cpu_ns);
		ev->thread = rec->u.marker.thread;
		return 1;
	default:
		return 0;
	}
}

/* Feeds an event to the timeline: GPU times moved by the clock offset, an
 * untimed launch given its configuration's mean, and an iteration boundary
 * first when the trace has no markers and a kernel starts a new iteration
 * number. */
static int an_feed(struct an_ctx *c, const struct an_pending *p)
{
	struct tl_event e = p->ev, *ev = &e;
	int32_t iteration = p->iteration;

	/* Decided when the event leaves the window, so that GPU times read
	 * after it (a sync written before the kernels it waited for) count. */
	e.no_wake = !c->timed;

	if (e.has_gpu) {
		e.start_ns -= (double)c->offset;
		e.end_ns -= (double)c->offset;
		if (p->no_cpu)
			e.cpu_ns = e.cpu_end_ns = e.start_ns;
		/* a copy call that returned only after its GPU work ended, which
		 * waited for its stream, waited for it, whatever its name says */
		if (p->may_outlast && e.cpu_end_ns > e.cpu_ns && e.cpu_end_ns >= e.end_ns &&
		    e.start_ns - e.cpu_ns > AN_WAITED_NS)
			e.blocking = 1;
	} else if (e.kind == TL_KERNEL) {
		/* an untimed launch of a timed configuration: its mean so far */
		const struct ktable_entry *k = ktable_entry(c->kt, e.config);
		if (k && k->timed)
			e.est_ns = k->sum_ns / (double)k->timed;
	}
	if (!c->markers && !c->capture_markers && c->kernel_iterations && ev->kind == TL_KERNEL &&
	    iteration >= 0 &&
	    iteration != c->cur_iteration) {
		struct tl_event b;

		memset(&b, 0, sizeof(b));
		b.kind = TL_ITERATION;
		b.cpu_ns = b.cpu_end_ns = ev->cpu_ns;
		b.thread = ev->thread;
		c->cur_iteration = iteration;
		if (timeline_add(c->tl, &b) < 0)
			return -1;
	}
	return timeline_add(c->tl, ev);
}

static int an_pending_cmp(const void *pa, const void *pb)
{
	const struct an_pending *a = pa, *b = pb;

	if (a->ev.cpu_ns != b->ev.cpu_ns)
		return a->ev.cpu_ns < b->ev.cpu_ns ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* A launch and its configuration, summed over the launches of a reading
 * to compare two readings. */
static uint64_t an_launch_hash(uint64_t seq, uint32_t config)
{
	return hmap_hash_u64(hmap_hash_add(hmap_hash_u64(seq), config));
}

static uint64_t an_seq(const struct trace_record *rec)
{
	switch (rec->type) {
	case TRACE_KERNEL: return rec->u.kernel.seq;
	case TRACE_MEMCPY: case TRACE_MEMSET: return rec->u.copy.seq;
	case TRACE_SYNC: return rec->u.sync.seq;
	case TRACE_MARKER: return rec->u.marker.seq;
	default: return 0;
	}
}

static int an_open(const struct an_ctx *c, struct trace_reader **r, char *err, size_t errlen)
{
	if (c->buf)
		return trace_reader_open_mem(r, c->buf, c->len, err, errlen);
	return trace_reader_open(r, c->path, err, errlen);
}

/* Fills p with the event ev of rec and what the replay needs to know of
 * rec besides it: the one place an_pending is filled (the window, the
 * second reading and the sorted copy). */
static void an_pending_fill(struct an_pending *p, const struct tl_event *ev,
			    const struct trace_record *rec)
{
	p->ev = *ev;
	p->seq = an_seq(rec);
	p->iteration = rec->type == TRACE_KERNEL ? rec->u.kernel.iteration : -1;
	p->item = an_item_candidate(rec);
	p->no_cpu = an_no_cpu(rec);
	p->may_outlast = an_may_outlast(rec);
}

/* p[at] is a CPU wait: when the same thread's previous call (among the
 * events p[lo..at)) is a copy to host memory of unknown kind on the stream
 * waited for, that copy blocked (an_item_candidate). */
static void an_mark_item(struct an_pending *p, size_t lo, size_t at)
{
	const struct tl_event *w = &p[at].ev;

	if (w->kind != TL_SYNC || w->no_cpu_wait || (w->event && !w->wait_all))
		return;
	for (size_t i = at, n = 0; i > lo && n < AN_ITEM_LOOKBACK; i--, n++) {
		struct an_pending *q = &p[i - 1];

		if (q->ev.thread != w->thread)
			continue;
		if (q->item && (w->wait_all || q->ev.stream == w->stream))
			q->ev.blocking = 1;
		return;
	}
}

/* A new, empty timeline; the caller's spans are told to start over. */
static int an_restart(struct an_ctx *c)
{
	timeline_free(c->tl);
	c->tl = an_timeline(c, ktable_count(c->kt));
	if (c->o->on_span) {
		struct analysis_span restart;

		memset(&restart, 0, sizeof(restart));
		restart.kind = ANALYSIS_SPAN_RESTART;
		restart.name = "restart";
		c->o->on_span(c->o->span_ctx, &restart);
	}
	return c->tl ? 0 : -1;
}

/* an_pass_merge's results besides 0 (replayed) and errors. */
enum { AN_MERGE_CANNOT = 1, AN_MERGE_DIFFERS = 2 };

/* Replays a trace out of order beyond the window from a second reading in
 * CPU order (trace_merge_*), as an_pass2 replays its sorted copy: each CPU
 * wait marks the copy before it (an_mark_item, which looks back
 * AN_ITEM_LOOKBACK events), so events are fed that many events late.
 * Library calls come in CPU order too, so a launch finds its GEMM record in
 * the ring as in the first reading when the call precedes the launch, as
 * calls do; the sum of (launch, configuration) over both readings checks
 * it.  Returns 0, AN_MERGE_CANNOT (nothing replayed: a thread out of order
 * beyond the window, or input that cannot be read twice), AN_MERGE_DIFFERS
 * (replayed, but some launch found another configuration: the caller starts
 * over) or a negative code. */
static int an_pass_merge(struct an_ctx *c)
{
	struct trace_merge *m;
	struct trace_record rec;
	struct an_pending late[2 * AN_ITEM_LOOKBACK + 1];
	size_t head = 0, tail = 0;
	char rerr[160];
	uint64_t sum = 0;
	int rc;

	if (trace_merge_open(&m, c->r, rerr, sizeof(rerr)) < 0)
		return AN_MERGE_CANNOT;
	memset(c->ring.seq, 0, AN_LIB_RING * sizeof(*c->ring.seq));
	graphs_rewind(c->graphs);
	c->cur_iteration = -1;
	c->a->reread_in_order = 1;
	while ((rc = trace_merge_next(m, &rec, rerr, sizeof(rerr))) == 1) {
		struct an_pending *p;

		if (rec.type == TRACE_GEMM || rec.type == TRACE_CONV || rec.type == TRACE_OP) {
			(void)an_lib_record(c, &rec);   /* a later reading: cannot fail */
			continue;
		}
		if (rec.type == TRACE_KERNEL && (rec.u.kernel.flags & TRACE_KF_CAPTURED))
			continue;
		if (tail == sizeof(late) / sizeof(late[0])) {
			memmove(late, late + head, (tail - head) * sizeof(*late));
			tail -= head;
			head = 0;
		}
		p = &late[tail];
		if (!an_event(c, &rec, &p->ev, -1))
			continue;
		if (rec.type == TRACE_KERNEL)
			sum += an_launch_hash(rec.u.kernel.seq, p->ev.config);
		an_pending_fill(p, &p->ev, &rec);
		an_mark_item(late, head, tail++);
		if (tail - head > AN_ITEM_LOOKBACK && an_feed(c, &late[head]) < 0)
			rc = TRACE_ENOMEM;
		if (tail - head > AN_ITEM_LOOKBACK)
			head++;
		if (rc < 0)
			break;
	}
	trace_merge_free(m);
	if (rc == TRACE_ENOMEM)
		return an_fail(c, SURFER_ENOMEM, "out of memory");
	if (rc < 0)
		return an_fail(c, SURFER_EINVAL, "cannot read '%s': %s", c->path, rerr);
	for (; head < tail; head++)
		if (an_feed(c, &late[head]) < 0)
			return an_fail(c, SURFER_ENOMEM, "out of memory");
	return sum == c->launch_sum ? 0 : AN_MERGE_DIFFERS;
}

/* The fallback for a trace out of order beyond the reorder window: read it
 * again, keep every event (compactly), sort them by CPU time and replay. */
static int an_pass2(struct an_ctx *c)
{
	struct trace_reader *r;
	struct trace_record rec;
	struct tl_event ev;
	char rerr[160];
	uint64_t n = 0;
	int rc;

	memset(c->ring.seq, 0, AN_LIB_RING * sizeof(*c->ring.seq));
	graphs_rewind(c->graphs);
	c->cur_iteration = -1;
	if (an_open(c, &r, rerr, sizeof(rerr)) < 0)
		return an_fail(c, SURFER_EINVAL, "cannot read '%s': %s", c->path, rerr);
	while (n < c->nrecords && (rc = trace_reader_next(r, &rec, rerr, sizeof(rerr))) == 1) {
		n++;
		if (rec.type == TRACE_GEMM || rec.type == TRACE_CONV || rec.type == TRACE_OP) {
			(void)an_lib_record(c, &rec);   /* a later reading: cannot fail */
			continue;
		}
		if (rec.type == TRACE_KERNEL && (rec.u.kernel.flags & TRACE_KF_CAPTURED))
			continue;
		if (!an_event(c, &rec, &ev, -1))
			continue;
		if (c->npend == c->cappend) {
			size_t cap = c->cappend ? c->cappend * 2 : 4096;
			struct an_pending *p = realloc(c->pend, cap * sizeof(*p));
			if (!p) {
				trace_reader_free(r);
				return an_fail(c, SURFER_ENOMEM, "out of memory");
			}
			c->pend = p;
			c->cappend = cap;
		}
		an_pending_fill(&c->pend[c->npend], &ev, &rec);
		c->npend++;
	}
	trace_reader_free(r);
	c->a->sorted_in_memory = 1;
	qsort(c->pend, c->npend, sizeof(*c->pend), an_pending_cmp);
	for (size_t i = 0; i < c->npend; i++)
		an_mark_item(c->pend, 0, i);
	for (size_t i = 0; i < c->npend; i++)
		if (an_feed(c, &c->pend[i]) < 0)
			return an_fail(c, SURFER_ENOMEM, "out of memory");
	return 0;
}

static int an_before(const struct an_pending *a, double cpu, uint64_t seq)
{
	return a->ev.cpu_ns < cpu || (a->ev.cpu_ns == cpu && a->seq < seq);
}

/* Decides the clock offset from the GPU/CPU differences seen so far (see
 * the header comment). */
static void an_fix_offset(struct an_ctx *c)
{
	if (c->offset_fixed)
		return;
	c->offset_fixed = 1;
	if (c->have_delta && (c->min_delta < 0 || c->min_delta > AN_CLOCK_BASE_LIMIT_NS))
		c->offset = c->min_delta;
}

/* Replays the oldest event of the window. */
static int an_pop(struct an_ctx *c)
{
	struct an_pending *p = &c->win[c->whead++];

	an_fix_offset(c);
	c->fed = 1;
	c->fed_cpu = p->ev.cpu_ns;
	c->fed_seq = p->seq;
	if (c->whead == c->wtail)
		c->whead = c->wtail = 0;
	return an_feed(c, p);
}

/* Adds an event to the window in (CPU time, seq) order, replaying the
 * oldest when it is full. */
static int an_push(struct an_ctx *c, const struct tl_event *ev, const struct trace_record *rec)
{
	uint64_t seq = an_seq(rec);
	size_t at;

	if (c->overflow)
		return 0;
	if (c->fed && !(c->fed_cpu < ev->cpu_ns || (c->fed_cpu == ev->cpu_ns && c->fed_seq < seq))) {
		c->overflow = 1;     /* older than what was replayed: sort instead */
		return 0;
	}
	if (c->wtail - c->whead == c->wcap && an_pop(c) < 0)
		return -1;
	if (c->wtail == 2 * c->wcap) {  /* slide the live part to the front */
		memmove(c->win, c->win + c->whead, (c->wtail - c->whead) * sizeof(*c->win));
		c->wtail -= c->whead;
		c->whead = 0;
	}
	at = c->wtail;
	while (at > c->whead && !an_before(&c->win[at - 1], ev->cpu_ns, seq))
		at--;
	if (at < c->wtail)
		memmove(&c->win[at + 1], &c->win[at], (c->wtail - at) * sizeof(*c->win));
	an_pending_fill(&c->win[at], ev, rec);
	c->wtail++;
	an_mark_item(c->win, c->whead, at);
	return 0;
}

/* Whether k is a graph replay an events trace timed whole (the recorder's
 * cuGraphLaunch record), not one of its kernels. */
static int an_whole_replay(const struct an_ctx *c, const struct trace_kernel *k)
{
	if (!(k->flags & TRACE_KF_GRAPH) || k->replay)
		return 0;
	const char *nm = trace_reader_string(c->r, k->name, NULL);
	return nm && !strcmp(nm, "cuGraphLaunch");
}

/* The kernel's configuration, added and predicted when new. */
static int64_t an_config(struct an_ctx *c, const struct trace_kernel *k)
{
	struct ktable_key key;
	struct ktable_entry *e;
	uint32_t before = ktable_count(c->kt);
	int timed = k->start_ns && k->end_ns >= k->start_ns;
	double dur = timed ? (double)(k->end_ns - k->start_ns) : 0;
	int64_t i;

	ktable_key_init(&key, k, an_kernel_lib(c, k));
	i = ktable_intern(c->kt, &key);
	if (i < 0)
		return an_fail(c, SURFER_ENOMEM, "out of memory");
	e = ktable_entry(c->kt, (uint32_t)i);
	if (ktable_count(c->kt) != before) {
		if (an_grow(c, (uint32_t)i) < 0)
			return an_fail(c, SURFER_ENOMEM, "out of memory");
		if (an_predict_config(c, (uint32_t)i, dur) < 0)
			return SURFER_EINVAL;
	} else if (timed && e->timed == 0 && dur > 0) {
		/* first measured launch of a configuration seen untimed */
		if (an_predict_config(c, (uint32_t)i, dur) < 0)
			return SURFER_EINVAL;
	}
	e->launches++;
	if (timed) {
		e->timed++;
		e->sum_ns += dur;
	}
	if (k->iteration >= 0)
		c->kernel_iterations = 1;
	if (!(k->flags & TRACE_KF_PEER))
		c->a->kernels++;
	return i;
}

/* The single streaming pass: kernel table, predictions and replay. */
static int an_stream(struct an_ctx *c)
{
	struct trace_record rec;
	struct tl_event ev;
	char rerr[160];
	int rc;

	c->wcap = c->o->reorder_window ? c->o->reorder_window : AN_WINDOW;
	c->win = malloc(2 * c->wcap * sizeof(*c->win));  /* slides once per wcap events */
	if (!c->win)
		return an_fail(c, SURFER_ENOMEM, "out of memory");
	c->cur_iteration = -1;
	while ((rc = trace_reader_next(c->r, &rec, rerr, sizeof(rerr))) == 1) {
		uint64_t cpu = an_cpu_ns(&rec);
		int64_t config = -1;

		c->nrecords++;
		if (cpu && !c->have_t0) {
			c->t0 = (int64_t)cpu;
			c->have_t0 = 1;
		}
		switch (rec.type) {
		case TRACE_GEMM:
		case TRACE_CONV:
		case TRACE_OP:
			if (an_lib_record(c, &rec) < 0)
				return an_fail(c, SURFER_ENOMEM, "out of memory");
			continue;
		case TRACE_KERNEL:
			if (rec.u.kernel.flags & TRACE_KF_CAPTURED) {
				/* recorded into a CUDA graph, not run: its replays
				 * appear as TRACE_KF_GRAPH launches, which take
				 * their shapes from it (graphs.h) */
				c->a->captured++;
				if (rec.u.kernel.graph &&
				    graphs_capture(c->graphs, &rec.u.kernel,
						   an_ring_get(&c->ring, rec.u.kernel.lib_call)) < 0)
					return an_fail(c, SURFER_ENOMEM, "out of memory");
				continue;
			}
			if (an_whole_replay(c, &rec.u.kernel)) {
				size_t n;
				c->whole_replays++;
				c->captured_replays +=
					graphs_capture_launches(c->graphs, rec.u.kernel.graph, &n) != NULL;
			}
			config = an_config(c, &rec.u.kernel);
			if (config < 0)
				return (int)config;
			c->launch_sum += an_launch_hash(rec.u.kernel.seq, (uint32_t)config);
			an_note_gpu(c, rec.u.kernel.cpu_ns, rec.u.kernel.start_ns, rec.u.kernel.end_ns);
			break;
		case TRACE_MEMCPY:
		case TRACE_MEMSET:
			an_note_gpu(c, rec.u.copy.cpu_ns, rec.u.copy.start_ns, rec.u.copy.end_ns);
			c->copies++;
			break;
		case TRACE_MARKER:
			if (rec.u.marker.kind == TRACE_MARK_ITERATION)
				c->markers++;
			else if (rec.u.marker.kind == TRACE_MARK_CAPTURE_START ||
				 rec.u.marker.kind == TRACE_MARK_CAPTURE_STOP)
				c->capture_markers++;
			break;
		default:
			break;
		}
		/* once out of order beyond the window the replay starts over
		 * after this reading: nothing more to place */
		if (!c->overflow && an_event(c, &rec, &ev, config) &&
		    an_push(c, &ev, &rec) < 0)
			return an_fail(c, SURFER_ENOMEM, "out of memory");
	}
	if (rc == 0)
		c->a->peak_device_bytes = rec.u.trailer.peak_device_bytes;
	if (rc == TRACE_ETRUNC) {
		c->a->truncated = 1;
		snprintf(c->a->warning, sizeof(c->a->warning), "%s; analyzed what was read", rerr);
	} else if (rc < 0) {
		return an_fail(c, SURFER_EINVAL, "cannot read '%s': %s", c->path, rerr);
	}
	c->a->records = c->nrecords;
	c->a->configs = ktable_count(c->kt);
	c->a->untimed = !c->timed && c->a->origin;  /* a built trace has nothing measured */
	an_fix_offset(c);
	if (c->overflow) {
		/* Out of order beyond the window: replay again in CPU order, with
		 * the clock offset of the whole trace. */
		c->offset_fixed = 0;
		c->offset = 0;
		an_fix_offset(c);
		if (an_restart(c) < 0)
			return an_fail(c, SURFER_ENOMEM, "out of memory");
		rc = c->o->sorted_copy ? AN_MERGE_CANNOT : an_pass_merge(c);
		if (rc <= 0)
			return rc;
		if (rc == AN_MERGE_DIFFERS && an_restart(c) < 0)
			return an_fail(c, SURFER_ENOMEM, "out of memory");
		c->a->reread_in_order = 0;
		return an_pass2(c);
	}
	while (c->whead < c->wtail)
		if (an_pop(c) < 0)
			return an_fail(c, SURFER_ENOMEM, "out of memory");
	return 0;
}

/* The groups of target t whose every configuration ran as NCCL's take its
 * name, counted in the group of that name where one exists (into[g], else
 * g itself). */
static void an_name_fallbacks(const struct an_ctx *c, size_t t, struct analysis_target *at,
			      const int32_t *group_of, size_t *into)
{
	uint32_t n = ktable_count(c->kt);
	size_t nt = c->o->ntargets;
	for (size_t g = 0; g < at->ngroups; g++)
		into[g] = g;
	for (size_t g = 0; g < at->ngroups; g++) {
		if (!comm_is_custom_all_reduce(at->groups[g].name))
			continue;
		int all = 1;
		for (uint32_t i = 0; i < n && all; i++)
			all = group_of[i] != (int32_t)g || c->pnccl[(size_t)i * nt + t];
		if (!all)
			continue;
		const char *nccl = an_custom_ar_fallback(at->groups[g].name);
		at->groups[g].name = nccl;
		for (size_t h = 0; h < at->ngroups; h++)
			if (h != g && into[h] == h && !strcmp(at->groups[h].name, nccl)) {
				into[g] = h;
				break;
			}
	}
}

/* Per-name groups and shares of target t (lane t + 1). */
static int an_collect(struct an_ctx *c, size_t t, const int32_t *group_of, size_t ngroups,
		      const struct analysis_group *proto)
{
	struct analysis_target *at = &c->a->targets[t];
	uint32_t n = ktable_count(c->kt);
	size_t nt = c->o->ntargets;
	double iters = c->a->iterations ? c->a->iterations : 1;
	double (*gm)[PRED_METHOD_COUNT] = calloc(ngroups ? ngroups : 1, sizeof(*gm));
	double (*gb)[3] = calloc(ngroups ? ngroups : 1, sizeof(*gb));
	size_t *into = calloc(ngroups ? ngroups : 1, sizeof(*into));

	at->groups = calloc(ngroups ? ngroups : 1, sizeof(*at->groups));
	if (!gm || !gb || !into || !at->groups) {
		free(gm);
		free(gb);
		free(into);
		return -1;
	}
	at->ngroups = ngroups;
	memcpy(at->groups, proto, ngroups * sizeof(*proto));
	an_name_fallbacks(c, t, at, group_of, into);
	for (uint32_t i = 0; i < n; i++) {
		size_t g = into[group_of[i]];
		size_t at_i = (size_t)i * nt + t;
		double p = timeline_config_ns(c->tl, i, (uint32_t)t + 1) / iters;
		double meas = timeline_config_ns(c->tl, i, 0) / iters;
		enum pred_method m = (enum pred_method)c->pmethod[at_i];
		int b = c->pbound[at_i];    /* 0 unknown, 1 compute, 2 memory */

		const struct ktable_key *key = &ktable_entry(c->kt, i)->key;
		/* a described kernel says its op; a recorded one has its name's */
		enum pred_op op = key->lib_kind == KTABLE_LIB_OP ? (enum pred_op)key->op
								 : at->groups[g].op;
		double lo, hi;

		interval_factors(NULL, 0, interval_method(c->o->method, m), interval_class_of(op),
				 at->distance, c->a->origin ? PRED_SRC_TRACE : PRED_SRC_CONFIG,
				 at->interval, &lo, &hi);
		at->groups[g].launches += timeline_config_launches(c->tl, i);
		at->groups[g].origin_ns += meas;
		at->groups[g].pred_ns += p;
		at->groups[g].pred_low_ns += p * lo;
		at->groups[g].pred_high_ns += p * hi;
		gm[g][m] += p;
		gb[g][b] += p;

		at->op_ns[op] += p;
		at->op_origin_ns[op] += meas;
		if (key->collective != TRACE_COLL_NONE) {
			/* a described collective: communication, apart from
			 * the kernel time and its splits */
			at->kernel_ns -= p;
			continue;
		}
		at->method_ns[m] += p;
		if (b == 2)
			at->memory_bound_ns += p;
		else if (b == 1)
			at->compute_bound_ns += p;
		else
			at->unknown_bound_ns += p;
	}
	for (size_t g = 0; g < ngroups; g++) {
		int bm = 0, bb = 0;
		for (int m = 1; m < PRED_METHOD_COUNT; m++)
			if (gm[g][m] > gm[g][bm])
				bm = m;
		for (int b = 1; b < 3; b++)
			if (gb[g][b] > gb[g][bb])
				bb = b;
		at->groups[g].method = (enum pred_method)bm;
		at->groups[g].memory_bound = bb - 1;
	}
	/* the groups counted into another leave the list, and so does the
	 * SMs' share of collectives that take none on this target (over
	 * PCIe: comm_sm_share()) */
	size_t kept = 0;
	for (size_t g = 0; g < ngroups; g++)
		if (into[g] == g && !(comm_is_sm_share(at->groups[g].name) && !(at->groups[g].pred_ns > 0) &&
				      !(at->groups[g].origin_ns > 0)))
			at->groups[kept++] = at->groups[g];
	at->ngroups = kept;
	free(gm);
	free(gb);
	free(into);
	return 0;
}

/* The iteration's interval (analysis_target): the models' share of the
 * kernel time, no more than the iteration, scaled by the held-out errors
 * of whole iterations of its kind (interval_iteration_method()); what the
 * replay adds around it (CPU time, copies, the measured kernels of
 * identity) stays as it is. */
static void an_interval(const struct an_ctx *c, struct analysis_target *at)
{
	double k = at->kernel_ns - at->method_ns[PRED_IDENTITY], lo, hi;

	if (k > at->iteration_ns)
		k = at->iteration_ns;
	if (!(k > 0))
		k = 0;
	enum pred_source src = c->a->origin ? PRED_SRC_TRACE : PRED_SRC_CONFIG;
	const struct interval_row *r =
		interval_lookup(NULL, 0, interval_iteration_method(at->method_ns), IV_CLASS_ITERATION,
				at->distance, src);

	at->interval_distance = r ? (enum pred_distance)r->distance : at->distance;
	at->interval_method = r ? (enum pred_method)r->method : PRED_AUTO;
	interval_row_factors(r, at->interval, &lo, &hi);
	at->iteration_low_ns = at->iteration_ns - k * (1 - lo);
	at->iteration_high_ns = at->iteration_ns + k * (hi - 1);
}

static int an_group_cmp(const void *pa, const void *pb)
{
	const struct analysis_group *a = pa, *b = pb;

	if (a->pred_ns != b->pred_ns)
		return a->pred_ns > b->pred_ns ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int an_results(struct an_ctx *c)
{
	struct analysis *a = c->a;
	size_t nt = c->o->ntargets;
	uint32_t n = ktable_count(c->kt);
	uint32_t nstr = trace_reader_nstrings(c->r) + 2;
	struct tl_summary meas, *ps = calloc(nt ? nt : 1, sizeof(*ps));
	int32_t *by_name = malloc(nstr * sizeof(*by_name));
	int32_t *group_of = malloc((n ? n : 1) * sizeof(*group_of));
	struct analysis_group *proto = calloc(n ? n : 1, sizeof(*proto));
	size_t ngroups = 0;
	int rc = -1;

	a->names = calloc(n ? n : 1, sizeof(*a->names));
	if (!ps || !by_name || !group_of || !proto || !a->names)
		goto out;
	timeline_finish(c->tl, &meas, ps);
	if (!a->origin) {   /* a built trace: nothing was measured */
		uint32_t iterations = meas.iterations;

		memset(&meas, 0, sizeof(meas));
		meas.iterations = iterations;
	}
	a->iterations = meas.iterations;
	a->measured_ns = meas.iteration_ns;
	a->measured_kernel_ns = meas.kernel_ns;
	a->measured_copy_ns = meas.copy_ns;
	a->measured_gpu_wait_cpu_ns = meas.gpu_wait_cpu_ns;

	for (uint32_t i = 0; i < nstr; i++)
		by_name[i] = -1;
	for (uint32_t i = 0; i < n; i++) {
		const struct ktable_entry *e = ktable_entry(c->kt, i);
		uint32_t id = e->key.name < nstr ? e->key.name : 0;
		int32_t g = by_name[id];

		if (g < 0) {
			const char *s = trace_reader_string(c->r, id, NULL);
			struct pred_kernel k;

			g = by_name[id] = (int32_t)ngroups;
			a->names[g] = strdup(s ? s : "(unnamed)");
			if (!a->names[g])
				goto out;
			a->nnames = ++ngroups;
			proto[g].name = a->names[g];
			memset(&k, 0, sizeof(k));
			k.name = s;
			k.op = e->key.lib_kind == KTABLE_LIB_GEMM   ? PRED_OP_GEMM
			       : e->key.lib_kind == KTABLE_LIB_CONV ? PRED_OP_CONV
			       : e->key.lib_kind == KTABLE_LIB_OP   ? (enum pred_op)e->key.op
								    : PRED_OP_UNKNOWN;
			if (e->key.lib_kind != KTABLE_LIB_OP)
				predict_classify(&k);
			proto[g].op = k.op;
		}
		group_of[i] = g;
	}
	a->ntargets = nt;
	a->targets = calloc(nt ? nt : 1, sizeof(*a->targets));
	if (!a->targets)
		goto out;
	for (size_t t = 0; t < nt; t++) {
		struct analysis_target *at = &a->targets[t];

		at->gpu = c->o->targets[t];
		at->system = gpu_system_for(c->o->system, at->gpu);
		at->method = c->o->method;
		at->iteration_ns = ps[t].iteration_ns;
		at->kernel_ns = ps[t].kernel_ns;
		at->copy_ns = ps[t].copy_ns;
		at->gpu_wait_cpu_ns = ps[t].gpu_wait_cpu_ns;
		at->interval = c->o->interval > 0 && c->o->interval < 1 ? c->o->interval : IV_DEFAULT_P;
		at->distance = pred_distance_of(c->predictor, c->a->origin, at->gpu);
		if (an_collect(c, t, group_of, ngroups, proto) < 0)
			goto out;
		an_interval(c, at);
		qsort(at->groups, at->ngroups, sizeof(*at->groups), an_group_cmp);
	}
	rc = 0;
out:
	free(ps);
	free(by_name);
	free(group_of);
	free(proto);
	return rc < 0 ? an_fail(c, SURFER_ENOMEM, "out of memory") : 0;
}

void analysis_warn(struct analysis *a, const char *fmt, ...)
{
	size_t l = strlen(a->warning);
	va_list ap;

	if (l && l + 2 < sizeof(a->warning)) {
		memcpy(a->warning + l, "; ", 3);
		l += 2;
	}
	va_start(ap, fmt);
	vsnprintf(a->warning + l, sizeof(a->warning) - l, fmt, ap);
	va_end(ap);
}

/* The iterations the replay counted are ones the trace has: work to
 * predict, a window it says (without step markers, the whole trace, and
 * whether the GPU idled through most of it), and times no real iteration
 * takes (a day or more: CPU and GPU times that do not belong together). */
#define AN_DAY_NS 86400e9
static int an_check(struct an_ctx *c)
{
	struct analysis *a = c->a;
	double longest = a->measured_ns;

	if (!a->kernels && !c->copies)
		return an_fail(c, SURFER_EINVAL, "'%s' holds no kernel launches or copies: nothing to predict",
			       c->path);
	for (size_t t = 0; t < a->ntargets; t++)
		longest = fmax(longest, a->targets[t].iteration_ns);
	if (!(longest < AN_DAY_NS))
		return an_fail(c, SURFER_EINVAL, "'%s': an iteration of %.1f days: its CPU and GPU times do "
			       "not fit together", c->path, longest / AN_DAY_NS);
	if (!a->kernels)
		analysis_warn(a, "no kernels: only copies and CPU time are predicted");
	if (c->whole_replays > c->captured_replays)
		analysis_warn(a, "%llu CUDA graph replays timed whole (an events trace: their kernels need "
			      "CUPTI) and their graphs' captures not in the trace, each predicted as one "
			      "kernel of unknown kind",
			      (unsigned long long)(c->whole_replays - c->captured_replays));
	if (c->captured_replays)
		analysis_warn(a, "%llu CUDA graph replays timed whole (an events trace: their kernels need "
			      "CUPTI), each predicted from the kernels captured into its graph, its time "
			      "shared among them as their predicted times on the origin are",
			      (unsigned long long)c->captured_replays);
	if (!c->markers && !c->capture_markers && !c->kernel_iterations) {
		double idle = a->measured_ns > 0 ? a->measured_gpu_wait_cpu_ns / a->measured_ns : 0;

		analysis_warn(a, "no step markers: one iteration = the whole trace (%.3f ms)",
			a->measured_ns / 1e6);
		if (idle > 0.5) {
			size_t l = strlen(a->warning);
			snprintf(a->warning + l, sizeof(a->warning) - l, ", the GPU idle %.0f%% of it",
				 100 * idle);
		}
	}
	return 0;
}

static int an_origin(struct an_ctx *c)
{
	const struct trace_header *h = trace_reader_header(c->r);

	snprintf(c->a->device, sizeof(c->a->device), "%s", h->device.name);
	if (h->timing == TRACE_TIMING_BUILT && !c->o->origin)
		return 0;   /* no GPU ran it: the device names what was built */
	c->a->origin = c->o->origin ? c->o->origin : gpu_find(h->device.name);
	if (!c->a->origin) {
		const char *near[1];
		if (gpu_suggest(h->device.name, near, 1) == 1)
			return an_fail(c, SURFER_EINVAL, "unknown origin GPU '%s' (closest: '%s'): name it with --origin GPU",
				       h->device.name, near[0]);
		return an_fail(c, SURFER_EINVAL, "unknown origin GPU '%s': name it with --origin GPU",
			       h->device.name);
	}
	return 0;
}

/* The share of its SM clock a target keeps under a power limit of cap_w
 * watts (the trace header's power_limit_w): 1 where there is no limit,
 * the board's TDP is unknown or the limit is not below it
 * (power_cap_clock_share). */
static double an_power_share(const struct gpu_spec *g, double cap_w)
{
	return power_cap_clock_share(cap_w, g->tdp_w);
}

static int an_run(const char *path, const void *buf, size_t len,
		  const struct analysis_options *o, struct analysis **out, char *err, size_t errlen)
{
	struct an_ctx c;
	char rerr[160];
	int rc;
	struct analysis_options paced_o;
	struct gpu_spec *paced = NULL;
	const struct gpu_spec **paced_tg = NULL;

	*out = NULL;
	memset(&c, 0, sizeof(c));
	c.path = path;
	c.buf = buf;
	c.len = len;
	c.o = o;
	c.err = err;
	c.errlen = errlen;
	c.a = calloc(1, sizeof(*c.a));
	c.kt = ktable_new();
	c.ring.seq = calloc(AN_LIB_RING, sizeof(*c.ring.seq));
	c.ring.lib = calloc(AN_LIB_RING, sizeof(*c.ring.lib));
	c.graphs = graphs_new();
	if (!c.a || !c.kt || !c.ring.seq || !c.ring.lib || !c.graphs) {
		rc = an_fail(&c, SURFER_ENOMEM, "out of memory");
		goto out;
	}
	c.predictor = o->pred;
	if (!c.predictor && (rc = predictor_new(NULL, &c.own_pred, err, errlen)) < 0)
		goto out;
	if (!c.predictor)
		c.predictor = c.own_pred;
	c.a->amd_scale = *predictor_amd_scale(c.predictor);
	if (an_open(&c, &c.r, rerr, sizeof(rerr)) < 0) {
		rc = an_fail(&c, SURFER_EINVAL, "cannot read '%s': %s", path, rerr);
		goto out;
	}
	if (trace_reader_keep_order(c.r, o->reorder_window ? o->reorder_window : AN_WINDOW) < 0) {
		rc = an_fail(&c, SURFER_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = an_origin(&c)) < 0)
		goto out;
	/* A step of several GPUs in lockstep runs at the slowest one's pace:
	 * the targets' compute derated by it (timeline_pace).  A board capped
	 * at W below its TDP (the header's power_limit_w, a built step's
	 * --power-limit): GPU Boost lowers the SM clock until the board draws
	 * W, the memory clock stays (training-stacks.md sec. 9: RTX 3090 at
	 * 315 W, memory clock constant).  Every compute peak, FP32 and tensor
	 * cores alike, takes the clock share power_cap_clock_share() gives
	 * (predictor/power.c: the cube root of the cap near the TDP, in
	 * proportion to it below the voltage floor, with the measurements);
	 * memory-bound kernels keep their bandwidth and, drawing less than
	 * the cap and not being what differs between boards, their clock:
	 * the derated copy carries its share (clock_share) and the
	 * memory-bound models read the row's clock through
	 * gpu_memory_bound_clock_mhz().  The copy keeps the row's TDP and
	 * the power rules read the row's peaks (gpu_row_rate()): the cap
	 * reaches every model once, through the copy's peaks. */
	const struct trace_header *hd = trace_reader_header(c.r);
	double cap_w = hd->power_limit_w;
	c.a->world_size = hd->world_size;
	c.a->pace = timeline_pace(c.a->world_size);
	int capped = 0;
	for (size_t t = 0; t < o->ntargets; t++)
		capped |= an_power_share(o->targets[t], cap_w) < 1;
	if (c.a->pace < 1 || capped) {
		paced = calloc(o->ntargets ? o->ntargets : 1, sizeof(*paced));
		paced_tg = calloc(o->ntargets ? o->ntargets : 1, sizeof(*paced_tg));
		if (!paced || !paced_tg) {
			rc = an_fail(&c, SURFER_ENOMEM, "out of memory");
			goto out;
		}
		for (size_t t = 0; t < o->ntargets; t++) {
			const struct gpu_spec *g = o->targets[t];
			double share = an_power_share(g, cap_w);
			paced_tg[t] = gpu_derate_compute(g, c.a->pace * share, &paced[t]);
		}
		paced_o = *o;
		paced_o.targets = paced_tg;
		c.o = &paced_o;
	}
	if ((rc = an_targets(&c)) < 0)
		goto out;
	c.tl = an_timeline(&c, 0);
	if (!c.tl) {
		rc = an_fail(&c, SURFER_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = an_stream(&c)) < 0 || (rc = an_results(&c)) < 0 || (rc = an_check(&c)) < 0)
		goto out;
	analysis_warn_memory(c.a, (double)c.a->peak_device_bytes,
			     "the program's allocations (peak on the origin)");
	for (size_t t = 0; t < c.a->ntargets && t < o->ntargets; t++)
		c.a->targets[t].gpu = o->targets[t];   /* the report names the GPUs themselves */
	*out = c.a;
	c.a = NULL;
out:
	analysis_free(c.a);
	timeline_free(c.tl);
	if (c.r)
		trace_reader_free(c.r);
	ktable_free(c.kt);
	free(c.ring.seq);
	free(c.ring.lib);
	graphs_free(c.graphs);
	free(c.pred);
	free(c.pmethod);
	free(c.pbound);
	free(c.pnccl);
	free(c.targets);
	free(c.pend);
	free(c.win);
	predictor_free(c.own_pred);
	free(paced);
	free(paced_tg);
	return rc;
}

int analysis_run(const char *path, const struct analysis_options *o, struct analysis **out,
		 char *err, size_t errlen)
{
	return an_run(path, NULL, 0, o, out, err, errlen);
}

int analysis_run_mem(const void *buf, size_t len, const char *name,
		     const struct analysis_options *o, struct analysis **out, char *err, size_t errlen)
{
	return an_run(name, buf, len, o, out, err, errlen);
}

void analysis_warn_memory(struct analysis *a, double bytes, const char *what)
{
	char list[112] = "";
	size_t n = 0, shown = 0;
	for (size_t i = 0; i < a->ntargets; i++) {
		const struct gpu_spec *g = a->targets[i].gpu;
		/* what the driver reports, less the context's and the
		 * libraries' share (gpu_mem_usable_bytes()) */
		if (gpu_mem_usable_bytes(g) > 0 && bytes > gpu_mem_usable_bytes(g)) {
			size_t l = strlen(list);
			/* the GPUs past the list's room are counted, not named
			 * (--all-targets: dozens): each takes its id and ", ",
			 * and 16 bytes stay for " and NNN more" */
			if (shown == n && l + strlen(g->id) + 2 + 16 < sizeof(list)) {
				snprintf(list + l, sizeof(list) - l, "%s%s", n ? ", " : "", g->id);
				shown++;
			}
			n++;
		}
	}
	if (!n)
		return;
	if (shown < n) {
		size_t l = strlen(list);
		snprintf(list + l, sizeof(list) - l, " and %zu more", n - shown);
	}
	analysis_warn(a, "%s need %.1f GiB: more than %s %s", what, bytes / 1073741824.0, list,
		      n == 1 ? "has" : "have");
}

void analysis_free(struct analysis *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nnames; i++)
		free(a->names[i]);
	free(a->names);
	for (size_t t = 0; a->targets && t < a->ntargets; t++)
		free(a->targets[t].groups);
	free(a->targets);
	free(a);
}
