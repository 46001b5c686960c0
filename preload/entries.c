/*
 * entries.c - what the hooks call: each launch, graph replay, copy, set,
 * synchronization, library call and capture marker becomes one entry in
 * the calling thread's ring, with its sequence number, thread, CPU time
 * and, for kernels, what the handle cache knows.  The timing source is
 * told around the real call: CUPTI gets our sequence number as external
 * correlation id, events are recorded on the launch's stream.
 *
 * Must never: take the writer lock on the launch path (only a full ring,
 * or a thread that waited for the GPU without a writer thread, drains);
 * record a launch that failed (its events go back to the pool); change
 * what the host's call returns or its errno.
 */
#include <string.h>

#include "preload/recorder.h"

void preload_launch_begin(const struct preload_launch *l, struct preload_launch_tok *tok)
{
	struct preload_core *g = &preload_core;
	tok->active = 0;
	struct preload_thread *t = preload_thread_get();
	if (!t)
		return;
	preload_timing_settle();
	tok->t = t;
	tok->seq = preload_seq_next(t);
	tok->ev[0] = tok->ev[1] = NULL;
	tok->active = 1;
	int ptsz = (l->flags & TRACE_KF_PTSZ) != 0;
	uint64_t capture_id = 0;
	tok->captured = g->timing != TRACE_TIMING_NONE &&
			preload_stream_capture(l->stream, ptsz, &capture_id);
	tok->graph = tok->captured ? capture_id : 0;
	if (g->timing == TRACE_TIMING_CUPTI) {
		preload_cupti_push(tok->seq);
	} else if (g->timing == TRACE_TIMING_EVENTS && !tok->captured) {
		if (preload_events_get(tok->ev, &tok->ev_slot) == 0)
			preload_events_record(tok->ev[0], l->stream, ptsz);
	}
	tok->cpu_ns = preload_now_ns();
}

/* After the real launch of l (a kernel; or a graph replay, fi its name):
 * its end event recorded, and its entry queued when it succeeded; a
 * failed launch ran nothing, and its events go back unrecorded. */
static void launch_done(const struct preload_launch *l, struct preload_launch_tok *tok,
			preload_cures result, struct preload_funcinfo *fi, uint32_t stack)
{
	struct preload_core *g = &preload_core;
	struct preload_thread *t = tok->t;
	int ptsz = (l->flags & TRACE_KF_PTSZ) != 0;
	if (g->timing == TRACE_TIMING_CUPTI)
		preload_cupti_pop();
	else if (tok->ev[0] && result == 0)
		preload_events_record(tok->ev[1], l->stream, ptsz);
	struct preload_entry *e = preload_ring_slot(t);
	if (result != 0) {
		if (tok->ev[0]) {
			e->ev[0] = tok->ev[0];
			e->ev[1] = tok->ev[1];
			e->ev_slot = tok->ev_slot;
			e->rec.type = TRACE_TYPE_MAX; /* recycled by the drain, not written */
			preload_ring_publish(t);
		}
		return;
	}
	e->ev[0] = tok->ev[0];
	e->ev[1] = tok->ev[1];
	e->ev_slot = tok->ev_slot;
	e->fi = fi;
	e->rec.type = TRACE_KERNEL;
	struct trace_kernel *k = &e->rec.u.kernel;
	memset(k, 0, sizeof *k);
	k->seq = tok->seq;
	for (int i = 0; i < 3; i++) {
		k->grid[i] = l->grid[i];
		k->block[i] = l->block[i];
		k->cluster[i] = l->cluster[i];
	}
	if (e->fi) {
		k->regs = e->fi->regs;
		k->static_smem = e->fi->static_smem;
	}
	k->dyn_smem = l->dyn_smem;
	k->stream = preload_stream_id(l->stream, ptsz);
	k->thread = t->tid;
	k->flags = l->flags;
	if (tok->captured)
		k->flags |= TRACE_KF_CAPTURED;
	k->graph = tok->graph;
	k->cpu_ns = tok->cpu_ns;
	k->lib_call = t->lib_depth > 0 ? t->lib_seq : 0;
	k->iteration = atomic_load_explicit(&g->iteration, memory_order_relaxed);
	k->stack = stack;
	preload_ring_publish(t);
}

/* The launch's call stack, taken by the function the hook called:
 * stacks.c skips its own frame, that function's and the hook's. */
#define STACK_HERE(result) ((result) == 0 && preload_cfg.stacks ? preload_stack_capture() : 0)

void preload_launch_end(const struct preload_launch *l, struct preload_launch_tok *tok,
			preload_cures result)
{
	if (tok->active)
		launch_done(l, tok, result, result == 0 ? preload_funcinfo_get(l->f) : NULL,
			    STACK_HERE(result));
}

/* A graph replay timed by events, as one record: its kernels are the
 * driver's to run, and only CUPTI reports them one by one. */
static struct preload_funcinfo graph_replay_fi = { .name = "cuGraphLaunch" };

void preload_graph_begin(preload_stream s, int ptsz, const void *exec, struct preload_launch_tok *tok)
{
	struct preload_launch l = { .stream = s, .flags = ptsz ? TRACE_KF_PTSZ : 0 };
	preload_launch_begin(&l, tok);
	/* A replay launched into a capture (a child graph) is a node of that
	 * capture and keeps its id; any other names the capture its
	 * executable graph came from (asked before the call: the handle is
	 * surely live then). */
	if (tok->active && !tok->captured)
		tok->graph = preload_graphs_exec_capture(exec);
}

void preload_graph_end(preload_stream s, int ptsz, struct preload_launch_tok *tok, preload_cures r)
{
	struct preload_core *g = &preload_core;
	if (!tok->active)
		return;
	/* Without CUPTI the replay's kernels are invisible: a pair of events
	 * on its stream times the replay whole, one kernel record flagged
	 * graph, named cuGraphLaunch (a replay launched into a capture, as a
	 * child graph, has none and is written as captured). */
	if (g->timing != TRACE_TIMING_CUPTI) {
		/* its launch dimensions: one block of one thread (a kernel
		 * record needs them; the replay's own are its kernels') */
		struct preload_launch l = { .grid = { 1, 1, 1 }, .block = { 1, 1, 1 }, .stream = s,
					    .flags = TRACE_KF_GRAPH | (ptsz ? TRACE_KF_PTSZ : 0) };
		launch_done(&l, tok, r, &graph_replay_fi, STACK_HERE(r));
		return;
	}
	preload_cupti_pop();
	if (r != 0)
		return;
	struct preload_thread *t = tok->t;
	struct preload_entry *e = preload_ring_slot(t);
	e->graph = 1;
	e->rec.type = TRACE_KERNEL;
	struct trace_kernel *k = &e->rec.u.kernel;
	memset(k, 0, sizeof *k);
	k->seq = tok->seq;
	k->stream = preload_stream_id(s, ptsz);
	k->thread = t->tid;
	k->flags = TRACE_KF_GRAPH | (ptsz ? TRACE_KF_PTSZ : 0);
	k->graph = tok->graph;        /* inherited by each kernel CUPTI reports */
	k->cpu_ns = tok->cpu_ns;
	k->lib_call = t->lib_depth > 0 ? t->lib_seq : 0;
	k->iteration = atomic_load_explicit(&g->iteration, memory_order_relaxed);
	preload_ring_publish(t);
}

uint64_t preload_op_begin(void)
{
	struct preload_thread *t = preload_thread_get();
	if (!t)
		return 0;
	preload_timing_settle();
	uint64_t seq = preload_seq_next(t);
	if (preload_core.timing == TRACE_TIMING_CUPTI)
		preload_cupti_push(seq);
	return seq;
}

void preload_op_end(void)
{
	if (preload_core.timing == TRACE_TIMING_CUPTI && preload_tls_thread)
		preload_cupti_pop();
}

/* The calling thread's next ring entry, for a record of type; NULL when
 * the thread cannot record.  *tp receives the thread; the caller fills the
 * record and publishes it (preload_ring_publish). */
static struct preload_entry *entry_new(enum trace_type type, struct preload_thread **tp)
{
	struct preload_thread *t = preload_thread_get();
	if (!t)
		return NULL;
	struct preload_entry *e = preload_ring_slot(t);
	e->rec.type = type;
	*tp = t;
	return e;
}

void preload_copy(uint64_t seq, int type, uint64_t bytes, uint32_t copies, enum trace_copy_kind kind,
		  enum trace_host_mem host_mem, int async, preload_stream s, int ptsz,
		  uint64_t cpu_ns, uint64_t cpu_end_ns)
{
	struct preload_thread *t;
	struct preload_entry *e = entry_new((enum trace_type)type, &t);
	if (!e)
		return;
	struct trace_copy *c = &e->rec.u.copy;
	memset(c, 0, sizeof *c);
	c->seq = seq ? seq : preload_seq_next(t);
	c->bytes = bytes;
	c->copies = copies;
	c->kind = kind;
	c->host_mem = host_mem;
	c->async = (uint8_t)async;
	c->stream = preload_stream_id(s, ptsz);
	c->thread = t->tid;
	c->cpu_ns = cpu_ns;
	c->cpu_end_ns = cpu_end_ns;
	preload_ring_publish(t);
}

void preload_sync(enum trace_sync_kind kind, preload_stream s, int ptsz, uint64_t cpu_ns,
		  uint64_t cpu_end_ns, uint64_t event)
{
	struct preload_thread *t;
	struct preload_entry *e = entry_new(TRACE_SYNC, &t);
	if (!e)
		return;
	struct trace_sync *y = &e->rec.u.sync;
	memset(y, 0, sizeof *y);
	y->seq = preload_seq_next(t);
	y->kind = kind;
	/* a context or event sync names no stream (the event's own says
	 * which work it waits for) */
	y->stream = kind == TRACE_SYNC_CTX || kind == TRACE_SYNC_EVENT ? 0 : preload_stream_id(s, ptsz);
	y->thread = t->tid;
	y->cpu_ns = cpu_ns;
	y->cpu_end_ns = cpu_end_ns;
	y->event = event;
	preload_ring_publish(t);
	/* Without a writer thread, a thread that waited for the GPU writes. */
	if (kind != TRACE_SYNC_STREAM_WAIT_EVENT && kind != TRACE_SYNC_EVENT_RECORD &&
	    !preload_wt_running())
		preload_ring_flush(t);
}

int preload_lib_enter(uint64_t *seq)
{
	struct preload_thread *t = preload_thread_get();
	if (!t)
		return 0;
	if (t->lib_depth++ > 0)
		return 0;
	t->lib_seq = *seq = preload_seq_next(t);
	return 1;
}

void preload_lib_leave(void)
{
	struct preload_thread *t = preload_tls_thread;
	if (t && t->lib_depth > 0)
		t->lib_depth--;
}

/* A library record (GEMM, CONV, OP) as its hook filled it: size bytes at
 * rec, whose thread and cpu_ns fields are stamped here first. */
static void lib_record(enum trace_type type, const void *rec, size_t size, uint32_t *thread,
		       uint64_t *cpu_ns)
{
	struct preload_thread *t;
	struct preload_entry *e = entry_new(type, &t);
	if (!e)
		return;
	*thread = t->tid;
	*cpu_ns = preload_now_ns();
	memcpy(&e->rec.u, rec, size);
	preload_ring_publish(t);
}

void preload_gemm(struct trace_gemm *g)
{
	lib_record(TRACE_GEMM, g, sizeof *g, &g->thread, &g->cpu_ns);
}

void preload_conv(struct trace_conv *c)
{
	lib_record(TRACE_CONV, c, sizeof *c, &c->thread, &c->cpu_ns);
}

void preload_op(struct trace_op *o)
{
	lib_record(TRACE_OP, o, sizeof *o, &o->thread, &o->cpu_ns);
}

void preload_marker(enum trace_marker_kind kind, int iteration)
{
	struct preload_thread *t;
	struct preload_entry *e = entry_new(TRACE_MARKER, &t);
	if (!e)
		return;
	struct trace_marker *m = &e->rec.u.marker;
	memset(m, 0, sizeof *m);
	m->seq = preload_seq_next(t);
	m->kind = kind;
	m->thread = t->tid;
	m->cpu_ns = preload_now_ns();
	m->iteration = iteration;
	preload_ring_publish(t);
}
