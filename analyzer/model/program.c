/*
 * program.c - a built model run as the trace a recorder would have
 * written of eager PyTorch running it:
 *
 *  - One CPU thread issues the kernels, each after the CPU time its stack
 *    spends on it (model_cpu_ns(), cpu.c: a forward op from Python, a
 *    backward node, an optimizer launch, an Inductor kernel, a graph call)
 *    or launch_ns apart when the launch cost is given (--launch-us).
 *  - Kernels run on the compute stream; DDP's gradient buckets and FSDP's
 *    parameter gathers on a side stream (NCCL's).  A bucket
 *    (MODEL_ASYNC_AFTER) waits for the compute stream's work so far: an
 *    event recorded there, waited for by the side stream.  A gather
 *    (MODEL_ASYNC_FREE) waits for nothing and is issued as early as the CPU
 *    gets to it; the first kernel of the layer that needs it waits for an
 *    event recorded right after it.  The optimizer waits for the side
 *    stream's work (the all-reduces) the same way.  Each collective on
 *    the side stream is followed on the compute stream by the SMs it
 *    holds there (em_side_share(): its record under the name
 *    nccl_overlap_sm_share, timed by predictor/comm.c as that share of
 *    the collective's time).
 *  - Pipeline parallelism (pp > 1, M microbatches, GPipe or 1F1B): the
 *    stage runs M microbatches, each ended by a synchronization (its
 *    activations or gradients go to the neighbouring stage), after waiting
 *    pp - 1 microbatch times for the earlier stages to fill the pipeline:
 *    that bubble is written as pp - 1 microbatches of peer work
 *    (TRACE_KF_PEER: they hold the stream, they are not this GPU's
 *    kernels).  Then the gradient all-reduces (not overlapped) and the
 *    optimizer, in order on the compute stream, with what runs once a
 *    step beside them (step_once: FSDP2's copies around its gathers and
 *    reduce-scatters); a kernel run once per optimizer step
 *    (MODEL_ROLE_PER_STEP) runs in the first microbatch and in each
 *    peer pass of the bubble (another stage's first).  Interleaved (o->vpp
 *    model chunks per stage, Megatron's virtual stages): the bubble is
 *    pp - 1 passes of one chunk, (pp - 1) / vpp microbatch times
 *    (Narayanan et al. 2021, arXiv 2104.04473, section 2.2.2); each
 *    chunk's send/recv runs on the side stream, overlapped with compute
 *    (Megatron's overlap_p2p_comm, on in its training scripts).  A
 *    microbatch's side-stream kernels (those and context parallelism's
 *    ring exchanges, overlapped all-to-alls) run with it; a kernel that
 *    waits for one of them (the compute after the next all-to-all under
 *    --moe-a2a-overlap) waits for the event recorded after it; the
 *    bubble's peer microbatches keep their overlapped all-to-alls (peer
 *    work on the side stream, their compute waiting as ours does), not the
 *    other side-stream work; the data-parallel all-reduces after the last
 *    one.
 *  - Gradient accumulation (o->grad_accum micro-batches a step): the
 *    forward and backward kernels once per micro-batch, DDP's bucket
 *    all-reduces and the optimizer's step after the last one; FSDP's
 *    gathers and reduce-scatters every time; with pp > 1 the pipeline runs
 *    grad_accum times its microbatches.
 *  - generate: the prompt's forward pass, then decode_steps decode steps,
 *    each ended by a synchronization (the next token is read back).
 *  - Serving engines (serve.c): a kernel may ask for a synchronization
 *    before it (a new step) and for CPU time before its launch (the step's
 *    scheduling); consecutive graph kernels are one CUDA graph replay,
 *    written as the recorder writes a cuGraphLaunch's kernels: each flagged
 *    TRACE_KF_GRAPH at the launch's CPU time, one launch cost for all.
 *
 * Every kernel's lib_call names the TRACE_OP record written just before
 * it, which holds everything the predictor needs; the kernel record holds
 * its name and launch shape.  No GPU times: the analyzer predicts every
 * kernel from its description.
 */
#include "analyzer/model/program.h"
#include "predictor/attention.h"
#include "predictor/comm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct emit {
	struct trace_writer *w;
	const struct model_program *p;
	model_program_kernel_fn fn;
	void *ctx;
	uint64_t seq;           /* the last sequence number written          */
	uint64_t events;        /* event ids handed out                      */
	double cpu;             /* CPU time since the start, ns              */
	int side_dirty;         /* the side stream has work the compute
				 * stream has not waited for               */
	int rc;
};

/* The CPU time before kernel i of s is launched. */
static double em_launch_ns(const struct emit *e, const struct model_seq *s,
			   const struct model_opts *o, size_t i)
{
	return e->p->launch_ns >= 0 ? e->p->launch_ns : model_cpu_ns(o, s, i);
}

static uint64_t em_cpu(const struct emit *e)
{
	return MODELPROG_T0_NS + (uint64_t)llround(e->cpu);
}

static void em_record(struct emit *e, const struct trace_record *rec)
{
	if (!e->rc)
		e->rc = trace_writer_record(e->w, rec);
}

static void em_sync(struct emit *e, enum trace_sync_kind kind, uint64_t stream, uint64_t event)
{
	struct trace_record r;

	memset(&r, 0, sizeof(r));
	r.type = TRACE_SYNC;
	r.u.sync.seq = ++e->seq;
	r.u.sync.kind = kind;
	r.u.sync.stream = stream;
	r.u.sync.thread = MODELPROG_THREAD;
	r.u.sync.cpu_ns = r.u.sync.cpu_end_ns = em_cpu(e);
	r.u.sync.event = event;
	em_record(e, &r);
}

/* An event recorded on stream `from`, then waited for by stream `to`. */
static void em_stream_wait(struct emit *e, uint64_t from, uint64_t to)
{
	uint64_t ev = ++e->events;

	em_sync(e, TRACE_SYNC_EVENT_RECORD, from, ev);
	em_sync(e, TRACE_SYNC_STREAM_WAIT_EVENT, to, ev);
}

/* The event recorded after collective j of micro-batch pass (the kernels
 * that wait for it name it): ids above any counter value. */
static uint64_t em_collective_event(size_t pass, size_t n, size_t j)
{
	return (UINT64_C(1) << 62) + pass * n + j;
}

static enum trace_dtype em_dtype(enum gpu_dtype d)
{
	switch (d) {
	case GPU_DT_FP64: return TRACE_DT_F64;
	case GPU_DT_TF32: return TRACE_DT_TF32;
	case GPU_DT_FP16: return TRACE_DT_F16;
	case GPU_DT_BF16: return TRACE_DT_BF16;
	case GPU_DT_FP8: return TRACE_DT_F8E4M3;
	case GPU_DT_INT8: return TRACE_DT_I8;
	case GPU_DT_FP4: return TRACE_DT_F4;
	default: return TRACE_DT_F32;
	}
}

/* A copy between the device and pinned host memory (mk->copy), blocking:
 * the CPU returns when it is done, as cudaMemcpy does.  No GPU times: the
 * analysis times it over the target's host link. */
static void em_copy(struct emit *e, const struct model_kernel *mk, uint64_t stream)
{
	struct trace_record r;

	memset(&r, 0, sizeof(r));
	r.type = TRACE_MEMCPY;
	r.u.copy.seq = ++e->seq;
	r.u.copy.bytes = (uint64_t)mk->k.bytes;
	r.u.copy.kind = mk->copy == MODEL_COPY_DTOH ? TRACE_COPY_DTOH : TRACE_COPY_HTOD;
	r.u.copy.async = 0;
	r.u.copy.stream = stream;
	r.u.copy.thread = MODELPROG_THREAD;
	r.u.copy.cpu_ns = r.u.copy.cpu_end_ns = em_cpu(e);
	r.u.copy.host_mem = TRACE_HOST_PINNED;
	em_record(e, &r);
}

/* The operator record and the launch of mk on stream, one launch later. */
static void em_kernel(struct emit *e, const struct model_kernel *mk, uint64_t stream, int peer)
{
	const struct pred_kernel *k = &mk->k;
	struct trace_record r;
	const char *name = k->name ? k->name : "";
	uint64_t op_seq;

	if (mk->copy) {
		em_copy(e, mk, stream);
		return;
	}
	if (e->fn)
		e->fn(e->ctx, mk, peer);
	memset(&r, 0, sizeof(r));
	r.type = TRACE_OP;
	r.u.op.seq = ++e->seq;
	r.u.op.kind = (enum trace_op_kind)k->op;
	r.u.op.dtype = em_dtype(k->dtype);
	r.u.op.m = k->m;
	r.u.op.n = k->n;
	r.u.op.k = k->k;
	r.u.op.batch = k->batch;
	r.u.op.flops = k->flops;
	r.u.op.bytes = k->bytes;
	r.u.op.b_transposed = k->b_transposed;
	r.u.op.accumulate = k->accumulate;
	r.u.op.b_bytes = k->b_bytes;
	r.u.op.reread_bytes = mk->reread_bytes;
	r.u.op.reuse_bytes = mk->reuse_bytes;
	if (mk->phase == MODEL_PH_COMM) {
		r.u.op.kind = TRACE_OPK_COMM;
		r.u.op.collective = (enum trace_collective)mk->comm;
		r.u.op.ranks = mk->ranks;
		r.u.op.node_ranks = mk->node_ranks;
	}
	r.u.op.rank = -1;
	if (k->op == PRED_OP_ATTENTION && k->attn.impl != PRED_ATTN_NONE)
		attention_to_trace(&k->attn, &r.u.op.attn);
	r.u.op.stream = stream;
	r.u.op.thread = MODELPROG_THREAD;
	r.u.op.cpu_ns = em_cpu(e);
	em_record(e, &r);
	op_seq = r.u.op.seq;

	memset(&r, 0, sizeof(r));
	r.type = TRACE_KERNEL;
	r.u.kernel.seq = ++e->seq;
	r.u.kernel.name = trace_writer_intern(e->w, name, strlen(name));
	memcpy(r.u.kernel.grid, k->grid, sizeof(k->grid));
	memcpy(r.u.kernel.block, k->block, sizeof(k->block));
	r.u.kernel.regs = k->regs;
	r.u.kernel.static_smem = k->smem_static;
	r.u.kernel.dyn_smem = k->smem_dynamic;
	r.u.kernel.stream = stream;
	r.u.kernel.thread = MODELPROG_THREAD;
	r.u.kernel.flags = (peer ? TRACE_KF_PEER : 0) | (mk->graph ? TRACE_KF_GRAPH : 0);
	r.u.kernel.cpu_ns = em_cpu(e);
	r.u.kernel.lib_call = op_seq;
	r.u.kernel.iteration = -1;
	if (!r.u.kernel.name && !e->rc)
		e->rc = TRACE_ENOMEM;
	em_record(e, &r);
}

/* mk, a collective on the side stream beside the compute stream's work:
 * the SMs it holds, taken from that work, as a kernel on the compute
 * stream right after it (comm.c, "A collective overlapped with compute":
 * its time the collective's times its share of the SMs).  Not for an
 * all-to-all, whose overlap the builder writes itself (DeepEP's SMs,
 * ops.c), nor for the copies of the side stream. */
static void em_side_share(struct emit *e, const struct model_kernel *mk, int peer)
{
	if (mk->phase != MODEL_PH_COMM || mk->copy || mk->comm == COMM_ALL_TO_ALL)
		return;
	struct model_kernel twin = *mk;
	twin.async = 0;
	twin.wait = 0;
	twin.k.name = COMM_SM_SHARE_NAME;
	em_kernel(e, &twin, MODELPROG_STREAM, peer);
}

/* The CPU waits for every stream (the step's result read back). */
static void em_device_sync(struct emit *e)
{
	em_sync(e, TRACE_SYNC_CTX, 0, 0);
}

/* Whether kernel i of s is issued in micro-batch pass of ga, the
 * optimizer's step (and what follows it) starting at tail: the step and
 * DDP's all-reduces on the last micro-batch only (no_sync), once-per-step
 * kernels on the first. */
static int em_in_pass(const struct model_kernel *mk, size_t i, size_t tail, uint32_t pass,
		      uint32_t ga)
{
	if (pass + 1 < ga && (i >= tail || mk->role == MODEL_ROLE_DP_SYNC))
		return 0;
	return pass == 0 || mk->role != MODEL_ROLE_PER_STEP;
}

/* One pass of s with its streams and waits (pp 1), its forward and
 * backward run once per micro-batch of the step (o->grad_accum). */
static int em_run(struct emit *e, const struct model_seq *s, const struct model_opts *o)
{
	uint8_t *awaited = calloc(s->n ? s->n : 1, 1);
	uint32_t ga = o->grad_accum > 1 ? o->grad_accum : 1;
	size_t tail = s->n;

	if (!awaited)
		return TRACE_ENOMEM;
	for (size_t i = 0; i < s->n; i++) {
		if (s->v[i].wait && s->v[i].wait <= i)
			awaited[s->v[i].wait - 1] = 1;
		if (tail == s->n && s->v[i].phase == MODEL_PH_OPTIMIZER)
			tail = i;
	}
	for (uint32_t pass = 0; pass < ga; pass++)
	for (size_t i = 0; i < s->n && !e->rc; i++) {
		const struct model_kernel *mk = &s->v[i];
		uint64_t st = mk->async ? MODELPROG_SIDE_STREAM : MODELPROG_STREAM;

		if (!em_in_pass(mk, i, tail, pass, ga))
			continue;
		if (mk->sync_before)
			em_device_sync(e);
		e->cpu += mk->cpu_before_ns;
		/* a graph replay: its kernels go with one launch, recorded as the
		 * recorder records a cuGraphLaunch's kernels (TRACE_KF_GRAPH, the
		 * launch's CPU time on each) */
		if (!(mk->graph && i > 0 && s->v[i - 1].graph == mk->graph && !mk->sync_before))
			e->cpu += em_launch_ns(e, s, o, i);
		if (mk->async == MODEL_ASYNC_AFTER) /* the bucket's gradients */
			em_stream_wait(e, MODELPROG_STREAM, MODELPROG_SIDE_STREAM);
		if (mk->phase == MODEL_PH_OPTIMIZER && !mk->async && e->side_dirty) {
			em_stream_wait(e, MODELPROG_SIDE_STREAM, MODELPROG_STREAM);
			e->side_dirty = 0;
		}
		if (mk->wait && mk->wait <= i) /* its parameters' gather */
			em_sync(e, TRACE_SYNC_STREAM_WAIT_EVENT, st,
				em_collective_event(pass, s->n, mk->wait - 1));
		em_kernel(e, mk, st, 0);
		if (mk->async)
			e->side_dirty = 1;
		if (awaited[i])
			em_sync(e, TRACE_SYNC_EVENT_RECORD, st, em_collective_event(pass, s->n, i));
		if (st == MODELPROG_SIDE_STREAM)
			em_side_share(e, mk, 0);
	}
	free(awaited);
	return e->rc;
}

/* The pipeline schedule of s (pp > 1, see the top of the file). */
static int em_pipeline(struct emit *e, const struct model_seq *s, const struct model_opts *o)
{
	uint32_t M = model_microbatches(o) * (o->grad_accum > 1 ? o->grad_accum : 1);
	/* interleaved: the bubble is pp - 1 passes of one model chunk, the
	 * stage's first layers / vpp layers */
	uint32_t v = o->vpp > 1 ? o->vpp : 1;
	int64_t lo = s->first_layer, hi = lo + s->stage_layers / v;
	size_t tail = s->n;
	uint8_t *inner = calloc(s->n ? s->n : 1, 1), *awaited = calloc(s->n ? s->n : 1, 1);

	if (!inner || !awaited) {
		free(inner);
		free(awaited);
		return TRACE_ENOMEM;
	}
	for (size_t i = 0; i < s->n; i++) {
		if (tail == s->n && s->v[i].phase == MODEL_PH_OPTIMIZER)
			tail = i;
		if (s->v[i].wait && s->v[i].wait <= i)
			awaited[s->v[i].wait - 1] = 1;
	}
	/* A microbatch's own side-stream exchanges (context parallelism's
	 * ring, interleaving's overlapped send/recv) run with it; the data-
	 * parallel all-reduces and what follows the optimizer once a step. */
	for (size_t i = 0; i < tail; i++)
		inner[i] = s->v[i].async == MODEL_ASYNC_AFTER && s->v[i].role != MODEL_ROLE_DP_SYNC &&
			   s->v[i].phase != MODEL_PH_OPTIMIZER;
	for (uint32_t mb = 0; mb < M + o->pp - 1 && !e->rc; mb++) {
		int peer = mb < o->pp - 1;

		for (size_t i = 0; i < s->n; i++) {
			const struct model_kernel *mk = &s->v[i];
			if (mk->phase == MODEL_PH_OPTIMIZER || (mk->async && !inner[i]) || mk->step_once)
				continue;
			/* once a step (Transformer Engine's FP8 weight casts): in
			 * the stage's first microbatch, and in each peer pass of
			 * the bubble, each another stage's first */
			if (mk->role == MODEL_ROLE_PER_STEP && mb > o->pp - 1)
				continue;
			/* the peers' work holds the compute stream only, but
			 * for their overlapped all-to-alls (their compute
			 * waits for them as ours does) */
			int a2a = mk->phase == MODEL_PH_COMM && mk->comm == COMM_ALL_TO_ALL;
			if (peer && ((inner[i] && !a2a) || (v > 1 && (mk->layer < lo || mk->layer >= hi))))
				continue;
			e->cpu += em_launch_ns(e, s, o, i);
			/* a kernel waiting for a side-stream kernel of its own
			 * microbatch (an overlapped all-to-all): the event
			 * recorded after it (the peers' have none) */
			if (mk->wait && mk->wait <= i && inner[mk->wait - 1] &&
			    (!peer || (s->v[mk->wait - 1].phase == MODEL_PH_COMM &&
				       s->v[mk->wait - 1].comm == COMM_ALL_TO_ALL)))
				em_sync(e, TRACE_SYNC_STREAM_WAIT_EVENT,
					inner[i] ? MODELPROG_SIDE_STREAM : MODELPROG_STREAM,
					em_collective_event(mb, s->n, mk->wait - 1));
			if (inner[i]) {
				em_stream_wait(e, MODELPROG_STREAM, MODELPROG_SIDE_STREAM);
				em_kernel(e, mk, MODELPROG_SIDE_STREAM, peer);
				if (awaited[i])
					em_sync(e, TRACE_SYNC_EVENT_RECORD, MODELPROG_SIDE_STREAM,
						em_collective_event(mb, s->n, i));
				em_side_share(e, mk, peer);
			} else {
				em_kernel(e, mk, MODELPROG_STREAM, peer);
			}
		}
		em_device_sync(e);
	}
	for (size_t i = 0; i < s->n && !e->rc; i++) {
		if ((s->v[i].phase != MODEL_PH_OPTIMIZER && !s->v[i].async && !s->v[i].step_once) ||
		    inner[i])
			continue;
		if (s->v[i].sync_before)
			em_device_sync(e);
		e->cpu += s->v[i].cpu_before_ns;
		e->cpu += em_launch_ns(e, s, o, i);
		em_kernel(e, &s->v[i], MODELPROG_STREAM, 0);
	}
	free(inner);
	free(awaited);
	return e->rc;
}

static int em_pass(struct emit *e, const struct model_seq *s, const struct model_opts *o)
{
	/* an engine's stages are built in line (serve.c): one batch in flight */
	return o->pp > 1 && o->engine == MODEL_ENGINE_HF ? em_pipeline(e, s, o) : em_run(e, s, o);
}

uint32_t model_program_world(const struct model_opts *o)
{
	if (o->mode != MODEL_TRAINING || o->engine != MODEL_ENGINE_HF)
		return 0;
	uint64_t n = (uint64_t)(o->dp ? o->dp : 1) * (o->tp ? o->tp : 1) * (o->pp ? o->pp : 1) * model_cp(o);
	return n > 1 && n <= UINT32_MAX ? (uint32_t)n : 0;
}

int model_program_write(const struct model_program *p, struct trace_writer *w,
			model_program_kernel_fn fn, void *ctx)
{
	struct trace_header h;
	struct trace_record r;
	struct emit e;
	int rc;

	memset(&e, 0, sizeof(e));
	e.w = w;
	e.p = p;
	e.fn = fn;
	e.ctx = ctx;
	memset(&h, 0, sizeof(h));
	snprintf(h.tool_version, sizeof(h.tool_version), "surfer-analyze --model");
	h.timing = TRACE_TIMING_BUILT;
	snprintf(h.timing_note, sizeof(h.timing_note), "built from a model configuration");
	snprintf(h.device.name, sizeof(h.device.name), "%s", p->device ? p->device : "model");
	h.world_size = model_program_world(p->opts);
	h.power_limit_w = p->opts->power_limit_w > 0 ? p->opts->power_limit_w : 0;
	if ((rc = trace_writer_header(w, &h)) < 0)
		return rc;
	memset(&r, 0, sizeof(r));
	r.type = TRACE_MARKER;
	r.u.marker.seq = ++e.seq;
	r.u.marker.kind = TRACE_MARK_ITERATION;
	r.u.marker.thread = MODELPROG_THREAD;
	r.u.marker.cpu_ns = em_cpu(&e);
	r.u.marker.iteration = 0;
	em_record(&e, &r);
	em_pass(&e, p->seq, p->opts);
	for (uint32_t i = 0; p->decode && i < p->decode_steps && !e.rc; i++) {
		em_device_sync(&e);
		em_pass(&e, p->decode, p->decode_opts);
	}
	if (e.rc)
		return e.rc;
	return trace_writer_finish(w);
}
