/*
 * events.c - GPU timing with CUDA events, used when CUPTI cannot be (not
 * installed, no permission, another profiler subscribed).
 *
 * Each launch is bracketed by two events recorded on the stream the launch
 * used, as the entry point understood it: a NULL stream of a _ptsz call is
 * the thread's per-thread stream (CU_STREAM_PER_THREAD), of a legacy call the
 * legacy stream.  Durations come from cuEventElapsedTime(start, end); start
 * times from the elapsed time since a reference event whose CPU time we know
 * (recorded and synchronized once, then moved forward every second of GPU
 * time so the float milliseconds keep sub-microsecond precision).
 *
 * Events are pooled: a thread takes from its own cache without locks and
 * refills it in batches from the shared pool; completed pairs go back to the
 * shared pool (under the writer lock).  Launches during stream capture get
 * no events (recording one would add a node to the graph).
 *
 * Stream capture: while a thread captures a graph in the global mode
 * (CU_STREAM_CAPTURE_MODE_GLOBAL, torch.cuda.graph's default), every
 * thread in that mode is "prohibited from potentially unsafe API calls"
 * (cuda.h, cuThreadExchangeStreamCaptureMode), and such a call fails and
 * invalidates the capture: PyTorch's caching allocator defers its own
 * cuEventQuery during a capture for this reason.  The harvest of event
 * pairs (queries, elapsed times) runs while captures do, on the writer
 * thread and on a launching thread whose ring is full, so it swaps its
 * thread to the relaxed mode for the time it runs (preload_events_relax);
 * a relaxed thread may query events recorded outside any capture, which
 * are the only ones this file records.  The reference event is recorded
 * on a stream of our own, created non-blocking: the legacy stream
 * synchronizes with every blocking stream, so an event on it during a
 * capture would join the captured work.
 *
 * Must never: call into the recorder (it only answers: a pair, a record on
 * a stream, a pair's times; the pending table asks), record an event on a
 * capturing stream or the legacy stream, or block unless asked to wait.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "preload/preload.h"

typedef preload_cures (*ev_create_fn)(preload_event *, unsigned int);
typedef preload_cures (*ev_record_fn)(preload_event, preload_stream);
typedef preload_cures (*ev_query_fn)(preload_event);
typedef preload_cures (*ev_elapsed_fn)(float *, preload_event, preload_event);
typedef preload_cures (*mode_fn)(int *);
typedef preload_cures (*stream_create_fn)(preload_stream *, unsigned int);
typedef preload_cures (*ctx_get_fn)(void **);
typedef preload_cures (*ctx_dev_fn)(int *);

static struct {
	ev_create_fn create;
	ev_record_fn record, record_ptsz;
	ev_query_fn query, sync;
	ev_elapsed_fn elapsed;
	mode_fn exchange_mode;      /* cuThreadExchangeStreamCaptureMode       */
	stream_create_fn stream_create;
	ctx_get_fn ctx_current;     /* cuCtxGetCurrent                         */
	ctx_dev_fn ctx_device;      /* cuCtxGetDevice                          */
	pthread_mutex_t pool_lock;  /* every context's pool                    */
	pthread_mutex_t ctx_lock;   /* a context's slot being made             */
} V = { .pool_lock = PTHREAD_MUTEX_INITIALIZER, .ctx_lock = PTHREAD_MUTEX_INITIALIZER };

/*
 * An event belongs to the context current when it was made: the driver
 * refuses to record it on another context's stream or to time it against
 * another context's event (cuEventRecord, cuEventElapsedTime: "from
 * different contexts").  With one pool and one reference, a process that
 * drives two GPUs from one thread (nn.DataParallel, a model split over
 * devices with device_map="auto") recorded every launch of the second
 * with the first's events, none timed (shim_test.sh two-gpus: the 20 of
 * device 1's 40 launches untimed before), and a program that reset its
 * device (cudaDeviceReset) timed nothing after it, its reference dead
 * (shim_test.sh reset: 10 of 20 untimed before).  So each context has its
 * slot: its reference event on a stream of its own, its pool; a pair
 * carries its slot's index.  A slot is made at the first launch in its
 * context (cuCtxGetCurrent: a launch runs in the current context), and
 * dies with it (a reset, release or destroy: preload_events_ctx_gone),
 * so that a later context the driver hands the same handle gets a slot of
 * its own.
 */
#define EV_CTX_MAX 64
struct ev_ctx {
	void *ctx;                  /* CUcontext                               */
	int device;                 /* its device, -1 when the driver said none */
	_Atomic int dead;           /* torn down: never matched again          */
	preload_stream ref_stream;  /* ours, non-blocking: the reference's     */
	preload_event ref;          /* reference event, completed              */
	uint64_t ref_cpu_ns;        /* its time on the recorder's clock         */
	preload_event *pool;        /* free events (pool_lock)                 */
	size_t npool, cappool;
};
static struct ev_ctx C[EV_CTX_MAX];
static _Atomic int nctx;            /* slots made (ctx_lock to add one)     */

#define CACHE 32
static __thread struct {
	preload_event ev[CACHE];
	int n;
	int slot;                   /* the context of the events held          */
} tcache;

/* Makes a slot for the current context ctx: a stream, a reference event
 * recorded on it and waited for (ctx_lock held); its index, or -1. */
static int make_slot_locked(void *ctx)
{
	int n = atomic_load(&nctx);
	if (n == EV_CTX_MAX)
		return -1;
	struct ev_ctx *c = &C[n];
	c->ctx = ctx;
	c->device = -1;
	int dev;
	if (V.ctx_device && V.ctx_device(&dev) == 0)
		c->device = dev;
	/* CU_STREAM_NON_BLOCKING (1); CU_EVENT_DEFAULT (0): timing enabled.
	 * The first launch recorded may come inside a capture: relaxed. */
	int mode = preload_events_relax();
	int bad = V.stream_create(&c->ref_stream, 1) != 0 || V.create(&c->ref, 0) != 0 ||
		  V.record(c->ref, c->ref_stream) != 0 || V.sync(c->ref) != 0;
	preload_events_unrelax(mode);
	if (bad)
		return -1;
	c->ref_cpu_ns = preload_now_ns();
	atomic_store(&c->dead, 0);
	atomic_store(&nctx, n + 1);
	return n;
}

/* 1 while slot was made and its context lives. */
static int slot_live(int slot)
{
	return slot < atomic_load(&nctx) && !atomic_load(&C[slot].dead);
}

/* The live slot of ctx, or -1. */
static int find_slot(void *ctx)
{
	for (int i = atomic_load(&nctx) - 1; i >= 0; i--)
		if (C[i].ctx == ctx && slot_live(i))
			return i;
	return -1;
}

/* The slot of the calling thread's current context, made if need be; -1
 * when there is none (no current context, no room, no reference). */
static int current_slot(void)
{
	void *ctx = NULL;
	if (!V.ctx_current || V.ctx_current(&ctx) != 0 || !ctx)
		return -1;
	int s = find_slot(ctx);
	if (s >= 0)
		return s;
	pthread_mutex_lock(&V.ctx_lock);
	if ((s = find_slot(ctx)) < 0) /* another thread may have made it */
		s = make_slot_locked(ctx);
	pthread_mutex_unlock(&V.ctx_lock);
	return s;
}

int preload_events_init(char *why, size_t whylen)
{
	V.create = (ev_create_fn)preload_driver_sym("cuEventCreate");
	V.record = (ev_record_fn)preload_driver_sym("cuEventRecord");
	V.record_ptsz = (ev_record_fn)preload_driver_sym("cuEventRecord_ptsz");
	V.query = (ev_query_fn)preload_driver_sym("cuEventQuery");
	V.sync = (ev_query_fn)preload_driver_sym("cuEventSynchronize");
	V.elapsed = (ev_elapsed_fn)preload_driver_sym("cuEventElapsedTime_v2");
	if (!V.elapsed)
		V.elapsed = (ev_elapsed_fn)preload_driver_sym("cuEventElapsedTime");
	V.exchange_mode = (mode_fn)preload_driver_sym("cuThreadExchangeStreamCaptureMode");
	V.stream_create = (stream_create_fn)preload_driver_sym("cuStreamCreate");
	V.ctx_current = (ctx_get_fn)preload_driver_sym("cuCtxGetCurrent");
	V.ctx_device = (ctx_dev_fn)preload_driver_sym("cuCtxGetDevice");
	if (!V.create || !V.record || !V.query || !V.sync || !V.elapsed || !V.stream_create ||
	    !V.ctx_current) {
		snprintf(why, whylen, "the driver lacks the event functions");
		return -1;
	}
	/* The context of the launch that decided the timing: a slot now, so
	 * that a driver that cannot time says so before the first launch. */
	if (current_slot() < 0) {
		snprintf(why, whylen, "cannot create a timing event");
		return -1;
	}
	return 0;
}

int preload_events_relax(void)
{
	int mode = 2; /* CU_STREAM_CAPTURE_MODE_RELAXED */
	if (!V.exchange_mode || V.exchange_mode(&mode) != 0)
		return -1;
	return mode;
}

void preload_events_unrelax(int mode)
{
	if (mode >= 0 && V.exchange_mode)
		V.exchange_mode(&mode);
}

/* One event onto its slot's pool (pool_lock held); -1 when it cannot
 * grow, and the event is leaked: only a few bytes of driver state. */
static int pool_push_locked(struct ev_ctx *c, preload_event e)
{
	if (c->npool == c->cappool) {
		size_t n = c->cappool ? c->cappool * 2 : 256;
		preload_event *p = realloc(c->pool, n * sizeof *p);
		if (!p)
			return -1;
		c->pool = p;
		c->cappool = n;
	}
	c->pool[c->npool++] = e;
	return 0;
}

/* Hands the thread's cached events back to their slot's pool.  A dead
 * slot's are dropped (their context took them), and what could not be
 * kept is leaked: a few bytes of driver state. */
static void cache_return(void)
{
	if (tcache.n == 0)
		return;
	pthread_mutex_lock(&V.pool_lock);
	struct ev_ctx *c = &C[tcache.slot];
	if (slot_live(tcache.slot))
		while (tcache.n > 0 && pool_push_locked(c, tcache.ev[tcache.n - 1]) == 0)
			tcache.n--;
	pthread_mutex_unlock(&V.pool_lock);
	tcache.n = 0;
}

int preload_events_get(preload_event ev[2], uint8_t *slot)
{
	ev[0] = ev[1] = NULL;
	int sl = current_slot();
	if (sl < 0)
		return -1;
	if (tcache.n > 0 && tcache.slot != sl)
		cache_return();
	tcache.slot = sl;
	struct ev_ctx *c = &C[sl];
	if (tcache.n < 2) {
		pthread_mutex_lock(&V.pool_lock);
		while (tcache.n < CACHE && c->npool > 0)
			tcache.ev[tcache.n++] = c->pool[--c->npool];
		pthread_mutex_unlock(&V.pool_lock);
	}
	for (int i = 0; i < 2; i++) {
		if (tcache.n > 0) {
			ev[i] = tcache.ev[--tcache.n];
		} else if (V.create(&ev[i], 0) != 0) {
			if (i == 1)
				tcache.ev[tcache.n++] = ev[0];
			ev[0] = ev[1] = NULL;
			return -1;
		}
	}
	*slot = (uint8_t)sl;
	return 0;
}

void preload_events_record(preload_event ev, preload_stream s, int ptsz)
{
	if (ptsz && V.record_ptsz)
		V.record_ptsz(ev, s);
	else
		V.record(ev, ptsz && !s ? PRELOAD_STREAM_PER_THREAD : s);
}

int preload_events_resolve(preload_event ev[2], uint8_t slot, int wait, uint64_t *start_ns,
			   uint64_t *end_ns)
{
	if (!slot_live(slot))
		return -1;
	struct ev_ctx *c = &C[slot];
	preload_cures r = wait ? V.sync(ev[1]) : V.query(ev[1]);
	if (r == PRELOAD_CU_NOT_READY)
		return 0;
	if (r != 0)
		return -1;
	float since_ref = 0, dur = 0;
	if (V.elapsed(&since_ref, c->ref, ev[0]) != 0 || V.elapsed(&dur, ev[0], ev[1]) != 0)
		return -1;
	int64_t start = (int64_t)c->ref_cpu_ns + (int64_t)llround((double)since_ref * 1e6);
	*start_ns = start > 0 ? (uint64_t)start : 0;
	*end_ns = *start_ns + (uint64_t)llround((double)(dur > 0 ? dur : 0) * 1e6);
	if (since_ref > 1000.0f) {
		/* Move the reference forward: this start event becomes it. */
		preload_event old = c->ref;
		c->ref = ev[0];
		c->ref_cpu_ns = *start_ns;
		ev[0] = old;
	}
	return 1;
}

void preload_events_put(preload_event ev[2], uint8_t slot)
{
	pthread_mutex_lock(&V.pool_lock);
	if (slot_live(slot) && pool_push_locked(&C[slot], ev[0]) == 0)
		pool_push_locked(&C[slot], ev[1]);
	pthread_mutex_unlock(&V.pool_lock);
	ev[0] = ev[1] = NULL;
}

/* An exiting thread's cache would be lost with its thread-local storage:
 * up to CACHE events the driver keeps for the process's life. */
void preload_events_thread_gone(void)
{
	cache_return();
}

void preload_events_ctx_gone(void *ctx, int device)
{
	int n = atomic_load(&nctx);
	pthread_mutex_lock(&V.pool_lock);
	for (int i = 0; i < n; i++) {
		struct ev_ctx *c = &C[i];
		if (ctx ? c->ctx == ctx : (c->device == device || c->device < 0)) {
			atomic_store(&c->dead, 1);
			c->npool = 0; /* the context's own: gone with it */
		}
	}
	pthread_mutex_unlock(&V.pool_lock);
}
