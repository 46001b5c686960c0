/*
 * graphs.c - which stream capture each CUDA graph came from, so that a
 * replay's records name the capture whose launches the trace holds (the
 * kernel record's graph field): the analyzer gives a replayed kernel the
 * shape of the launch captured into the graph (its GEMM record, through
 * lib_call), and predicts a whole replay from its captured kernels.
 *
 * The driver says which capture a stream is in (cuStreamGetCaptureInfo's
 * id, unique in the process) but not which capture an executable graph
 * came from, so the recorder remembers what it saw: a graph ended
 * (cuStreamEndCapture) or begun into (cuStreamBeginCaptureToGraph) by a
 * capture it recorded -> that capture's id; an executable graph
 * instantiated from (or updated to) a graph -> the graph's.  A graph or an
 * executable graph destroyed is forgotten: the driver hands a freed handle
 * to the next graph it makes, and a stale entry would name the wrong
 * capture (as funcinfo.c asks kernel handles again after an unload).
 * Graphs built node by node (cuGraphAddKernelNode) or cloned
 * (cuGraphClone) name no capture (0).
 *
 * Two maps (trace/hmap.h, handle -> capture id) under a mutex of their own,
 * innermost: nothing else is locked while it is held, and it is never held
 * across a driver call.  Only graph calls and replays take it, never a
 * kernel launch; before the first capture is remembered they take nothing.
 *
 * Must never: take the writer lock; change errno (called right around the
 * driver's calls); keep an entry for a handle the driver freed; name a
 * capture it did not see (unknown is 0); hold memory beyond one entry per
 * live graph and executable graph.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>

#include "preload/recorder.h"
#include "trace/hmap.h"

/* cuStreamGetCaptureInfo's forms, newest first (cuda.h, cudaTypedefs.h):
 * 12.3's _v3 (edge data), 11.3's _v2, 10.1's plain one (status and id);
 * cuStreamIsCapturing, the oldest, says no id.  Every output but the
 * status may be NULL. */
typedef preload_cures (*info_v3_fn)(preload_stream, int *status, uint64_t *id, void **graph,
				    const void **deps, const void **edges, size_t *ndeps);
typedef preload_cures (*info_v2_fn)(preload_stream, int *status, uint64_t *id, void **graph,
				    const void **deps, size_t *ndeps);
typedef preload_cures (*info_v1_fn)(preload_stream, int *status, uint64_t *id);
typedef preload_cures (*is_capturing_fn)(preload_stream, int *status);

enum { FORM_NONE = 0, FORM_IS_CAPTURING, FORM_V1, FORM_V2, FORM_V3 };

/* The best form the driver has, per variant (0 legacy, 1 per-thread). */
struct capture_query {
	int form;
	void *fn;
};

static struct {
	struct capture_query q[2];
	pthread_mutex_t mu;
	struct hmap graph_capture;    /* CUgraph -> capture id                  */
	struct hmap exec_capture;     /* CUgraphExec -> capture id              */
	atomic_int used;              /* an entry was ever put: the maps count  */
} G = { .mu = PTHREAD_MUTEX_INITIALIZER };

static void load_query(void)
{
	static const char *names[2][4] = {
		{ "cuStreamGetCaptureInfo_v3", "cuStreamGetCaptureInfo_v2", "cuStreamGetCaptureInfo",
		  "cuStreamIsCapturing" },
		{ "cuStreamGetCaptureInfo_v3_ptsz", "cuStreamGetCaptureInfo_v2_ptsz",
		  "cuStreamGetCaptureInfo_ptsz", "cuStreamIsCapturing_ptsz" },
	};
	for (int v = 0; v < 2; v++)
		for (int i = 0; i < 4 && !G.q[v].fn; i++) {
			G.q[v].fn = preload_driver_sym(names[v][i]);
			G.q[v].form = G.q[v].fn ? FORM_V3 - i : FORM_NONE;
		}
}

int preload_stream_capture(preload_stream s, int ptsz, uint64_t *capture_id)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, load_query);
	*capture_id = 0;
	/* The per-thread variant takes the stream as the caller gave it; the
	 * legacy one names the thread's stream CU_STREAM_PER_THREAD. */
	const struct capture_query *q = &G.q[ptsz && G.q[1].fn ? 1 : 0];
	preload_stream st = ptsz && !G.q[1].fn && !s ? PRELOAD_STREAM_PER_THREAD : s;
	int status = 0; /* CU_STREAM_CAPTURE_STATUS_NONE */
	uint64_t id = 0;
	int e = errno;
	preload_cures r = PRELOAD_CU_NOT_FOUND;
	switch (q->form) {
	case FORM_V3: r = ((info_v3_fn)q->fn)(st, &status, &id, NULL, NULL, NULL, NULL); break;
	case FORM_V2: r = ((info_v2_fn)q->fn)(st, &status, &id, NULL, NULL, NULL); break;
	case FORM_V1: r = ((info_v1_fn)q->fn)(st, &status, &id); break;
	case FORM_IS_CAPTURING: r = ((is_capturing_fn)q->fn)(st, &status); break;
	default: break;
	}
	errno = e;
	if (r != 0)
		return 0;
	/* ACTIVE (1) or INVALIDATED (2): the launch is not run either way */
	if (status != 0)
		*capture_id = id;
	return status != 0;
}

/* Under G.mu: sets key's capture in m, or forgets key when capture_id is
 * 0; a map that cannot grow leaves the handle unknown, not stale. */
static void set_locked(struct hmap *m, const void *key, uint64_t capture_id)
{
	if (!capture_id || hmap_put(m, (uint64_t)(uintptr_t)key, capture_id) != 0)
		hmap_del(m, (uint64_t)(uintptr_t)key);
	else
		atomic_store_explicit(&G.used, 1, memory_order_release);
}

/* Sets key's capture in m, or forgets key when capture_id is 0. */
static void put(struct hmap *m, const void *key, uint64_t capture_id)
{
	if (!key || (!capture_id && !atomic_load_explicit(&G.used, memory_order_acquire)))
		return;
	int e = errno;
	pthread_mutex_lock(&G.mu);
	set_locked(m, key, capture_id);
	pthread_mutex_unlock(&G.mu);
	errno = e;
}

void preload_graphs_captured(const void *graph, uint64_t capture_id)
{
	put(&G.graph_capture, graph, capture_id);
}

void preload_graphs_instantiated(const void *exec, const void *graph)
{
	if (!exec || !atomic_load_explicit(&G.used, memory_order_acquire))
		return;
	int e = errno;
	pthread_mutex_lock(&G.mu);
	const uint64_t *c = graph ? hmap_get(&G.graph_capture, (uint64_t)(uintptr_t)graph) : NULL;
	set_locked(&G.exec_capture, exec, c ? *c : 0);
	pthread_mutex_unlock(&G.mu);
	errno = e;
}

void preload_graphs_forget_graph(const void *graph)
{
	put(&G.graph_capture, graph, 0);
}

void preload_graphs_forget_exec(const void *exec)
{
	put(&G.exec_capture, exec, 0);
}

uint64_t preload_graphs_exec_capture(const void *exec)
{
	if (!exec || !atomic_load_explicit(&G.used, memory_order_acquire))
		return 0;
	int e = errno;
	pthread_mutex_lock(&G.mu);
	const uint64_t *c = hmap_get(&G.exec_capture, (uint64_t)(uintptr_t)exec);
	uint64_t id = c ? *c : 0;
	pthread_mutex_unlock(&G.mu);
	errno = e;
	return id;
}

/*
 * Captures outside the recording windows.  A program that records a few
 * steps (SURFER_SKIP / SURFER_ITERATIONS, cuProfilerStart) captures its
 * graphs before them, at start-up (vLLM and SGLang capture every batch
 * size before serving), and replays them inside: without their captured
 * launches in the trace, the replays have nothing to name.  So while a
 * capture is open in the process (cuStreamBeginCapture* succeeded, its
 * cuStreamEndCapture not yet), a launch or library call (cuBLAS, cuDNN)
 * on a capturing stream is recorded even outside the windows: it runs
 * nothing and is not timed (flag captured), so the windows' timings do
 * not change.  The count is one atomic load per launch outside the
 * windows, and only while a capture is open the stream is asked.  Not
 * with SURFER_TIMING=none (launches are not asked about captures there).
 */
static atomic_int captures_open;

void preload_capture_begun(void)
{
	atomic_fetch_add_explicit(&captures_open, 1, memory_order_relaxed);
}

void preload_capture_ended(void)
{
	int n = atomic_load_explicit(&captures_open, memory_order_relaxed);
	while (n > 0 && !atomic_compare_exchange_weak_explicit(&captures_open, &n, n - 1,
							       memory_order_relaxed, memory_order_relaxed))
		;
}

int preload_recording_on(preload_stream s, int ptsz)
{
	if (preload_recording())
		return 1;
	if (atomic_load_explicit(&captures_open, memory_order_relaxed) <= 0 ||
	    preload_core.state != PRELOAD_ST_ON)
		return 0;
	int e = errno;
	preload_timing_settle();
	uint64_t id;
	int r = atomic_load(&preload_core.timing) != TRACE_TIMING_NONE && preload_stream_capture(s, ptsz, &id);
	errno = e;
	return r;
}

