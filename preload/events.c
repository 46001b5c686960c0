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
#include <stdio.h>
#include <stdlib.h>

#include "preload/preload.h"

typedef preload_cures (*ev_create_fn)(preload_event *, unsigned int);
typedef preload_cures (*ev_record_fn)(preload_event, preload_stream);
typedef preload_cures (*ev_query_fn)(preload_event);
typedef preload_cures (*ev_elapsed_fn)(float *, preload_event, preload_event);
typedef preload_cures (*capturing_fn)(preload_stream, int *);
typedef preload_cures (*mode_fn)(int *);
typedef preload_cures (*stream_create_fn)(preload_stream *, unsigned int);

static struct {
	ev_create_fn create;
	ev_record_fn record, record_ptsz;
	ev_query_fn query, sync;
	ev_elapsed_fn elapsed;
	capturing_fn capturing, capturing_ptsz;
	mode_fn exchange_mode;      /* cuThreadExchangeStreamCaptureMode       */
	preload_stream ref_stream;  /* ours, non-blocking: the reference's     */
	preload_event ref;          /* reference event, completed              */
	uint64_t ref_cpu_ns;        /* its time on the recorder's clock         */
	pthread_mutex_t pool_lock;
	preload_event *pool;
	size_t npool, cappool;
} V = { .pool_lock = PTHREAD_MUTEX_INITIALIZER };

#define CACHE 32
static __thread struct {
	preload_event ev[CACHE];
	int n;
} tcache;

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
	stream_create_fn stream_create = (stream_create_fn)preload_driver_sym("cuStreamCreate");
	if (!V.create || !V.record || !V.query || !V.sync || !V.elapsed || !stream_create) {
		snprintf(why, whylen, "the driver lacks the event functions");
		return -1;
	}
	/* CU_STREAM_NON_BLOCKING (1); CU_EVENT_DEFAULT (0): timing enabled.
	 * The first launch recorded may come inside a capture: relaxed. */
	int mode = preload_events_relax();
	int bad = stream_create(&V.ref_stream, 1) != 0 || V.create(&V.ref, 0) != 0 ||
		  V.record(V.ref, V.ref_stream) != 0 || V.sync(V.ref) != 0;
	preload_events_unrelax(mode);
	if (bad) {
		snprintf(why, whylen, "cannot create a timing event");
		return -1;
	}
	V.ref_cpu_ns = preload_now_ns();
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

int preload_events_get(preload_event ev[2])
{
	if (tcache.n < 2) {
		pthread_mutex_lock(&V.pool_lock);
		while (tcache.n < CACHE && V.npool > 0)
			tcache.ev[tcache.n++] = V.pool[--V.npool];
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
	return 0;
}

void preload_events_record(preload_event ev, preload_stream s, int ptsz)
{
	if (ptsz && V.record_ptsz)
		V.record_ptsz(ev, s);
	else
		V.record(ev, ptsz && !s ? PRELOAD_STREAM_PER_THREAD : s);
}

static void load_capturing(void)
{
	V.capturing = (capturing_fn)preload_driver_sym("cuStreamIsCapturing");
	V.capturing_ptsz = (capturing_fn)preload_driver_sym("cuStreamIsCapturing_ptsz");
}

int preload_stream_capturing(preload_stream s, int ptsz)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, load_capturing);
	int status = 0; /* CU_STREAM_CAPTURE_STATUS_NONE */
	if (ptsz && V.capturing_ptsz) {
		if (V.capturing_ptsz(s, &status) != 0)
			return 0;
	} else if (!V.capturing ||
		   V.capturing(ptsz && !s ? PRELOAD_STREAM_PER_THREAD : s, &status) != 0) {
		return 0;
	}
	return status != 0;
}

int preload_events_resolve(preload_event ev[2], int wait, uint64_t *start_ns, uint64_t *end_ns)
{
	preload_cures r = wait ? V.sync(ev[1]) : V.query(ev[1]);
	if (r == PRELOAD_CU_NOT_READY)
		return 0;
	if (r != 0)
		return -1;
	float since_ref = 0, dur = 0;
	if (V.elapsed(&since_ref, V.ref, ev[0]) != 0 || V.elapsed(&dur, ev[0], ev[1]) != 0)
		return -1;
	int64_t start = (int64_t)V.ref_cpu_ns + (int64_t)llround((double)since_ref * 1e6);
	*start_ns = start > 0 ? (uint64_t)start : 0;
	*end_ns = *start_ns + (uint64_t)llround((double)(dur > 0 ? dur : 0) * 1e6);
	if (since_ref > 1000.0f) {
		/* Move the reference forward: this start event becomes it. */
		preload_event old = V.ref;
		V.ref = ev[0];
		V.ref_cpu_ns = *start_ns;
		ev[0] = old;
	}
	return 1;
}

/* One event onto the shared pool (pool_lock held); -1 when it cannot
 * grow, and the event is leaked: only a few bytes of driver state. */
static int pool_push_locked(preload_event e)
{
	if (V.npool == V.cappool) {
		size_t n = V.cappool ? V.cappool * 2 : 256;
		preload_event *p = realloc(V.pool, n * sizeof *p);
		if (!p)
			return -1;
		V.pool = p;
		V.cappool = n;
	}
	V.pool[V.npool++] = e;
	return 0;
}

void preload_events_put(preload_event ev[2])
{
	pthread_mutex_lock(&V.pool_lock);
	if (pool_push_locked(ev[0]) == 0)
		pool_push_locked(ev[1]);
	pthread_mutex_unlock(&V.pool_lock);
	ev[0] = ev[1] = NULL;
}

/* An exiting thread's cache would be lost with its thread-local storage:
 * up to CACHE events the driver keeps for the process's life. */
void preload_events_thread_gone(void)
{
	if (tcache.n == 0)
		return;
	pthread_mutex_lock(&V.pool_lock);
	while (tcache.n > 0 && pool_push_locked(tcache.ev[tcache.n - 1]) == 0)
		tcache.n--;
	pthread_mutex_unlock(&V.pool_lock);
}
