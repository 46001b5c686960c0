/*
 * fake_cuda.c - a fake libcuda.so.1 for testing the recorder without a GPU.
 *
 * Built with -Wl,-Bsymbolic and soname libcuda.so.1, so its own internal
 * calls never reach the recorder's hooks (a test would otherwise pass
 * falsely).  It keeps a virtual clock per stream: a kernel takes
 * 1000 + 10 * (number of blocks) ns of it, a copy 1 ns per 100 bytes; events
 * read the clock of the stream they are recorded on.  Device memory is host
 * memory, so copies really copy; it knows which addresses it allocated as
 * device or page-locked host memory (cuPointerGetAttribute,
 * cuMemHostGetFlags).  With FAKE_CUDA_LOG set it appends one line
 * per launch and copy it received:
 *   K tid name gx gy gz bx by bz cx cy cz dyn_smem regs static_smem stream start end
 *   C tid bytes kind stream            (kind: 1 HtoD, 2 DtoH, 3 DtoD, 4 HtoH, 0 memset)
 * which the tests compare with the recorded trace.
 *
 * Every entry point the recorder hooks starts with fails(__func__) and ends
 * with done(__func__, result), so a test can watch one call
 * (fake_cuda_watch): the errno it was called with, a result it returns
 * instead of running, and FAKE_CUDA_ERRNO left in errno.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tests/cuda_copy.h"

#define API __attribute__((visibility("default")))

typedef int CUresult;
enum { OK = 0, E_INVALID = 1, E_NOT_INIT = 3, E_INVALID_HANDLE = 400, E_NOT_FOUND = 500 };

/* dev: the device of the context the stream or event was made in (-1:
 * the legacy and per-thread streams, which are the current context's) */
struct fgraph;
/* capturing: 0 none, 1 relaxed or thread-local mode, 2 global mode; the
 * capture's id and the graph its launches go to (own: made by the
 * capture, freed when it is invalidated) */
struct fstream { uint64_t id; uint64_t clock_ns; int capturing; uint64_t real_end_ns; int dev, gen;
		 uint64_t capture_id; struct fgraph *capture_graph; int capture_own; };
struct fevent { uint64_t t_ns; int recorded; int dev, gen; };
struct ffunc { char name[128]; int regs, smem; void *mod; struct ffunc *next; };
struct launch_config {
	unsigned gx, gy, gz, bx, by, bz, smem;
	void *stream;
	struct { int id; int pad; union { char raw[64]; struct { unsigned x, y, z; } cluster; } v; } *attrs;
	unsigned nattrs;
};

static unsigned long long mono_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct fstream legacy = { 1, 0, 0, 0, -1, 0, 0, NULL, 0 };
static uint64_t next_stream_id = 100;
static __thread struct fstream *per_thread;
static int initialized;
static FILE *logf;

/* ---- the call a test watches ----------------------------------------------- */

#define FAKE_CUDA_ERRNO 121                  /* what a watched call leaves     */
static __thread const char *watch_name;      /* the entry point watched       */
static __thread CUresult watch_result;       /* OK: it runs; else it returns this */
static __thread int watch_errno = -1;        /* errno it was called with      */

/* The first thing of each hooked entry point: for the watched one, notes
 * the errno it came with; 1 when it must return watch_result at once. */
static int fails(const char *name)
{
	int e = errno;
	if (!watch_name || strcmp(watch_name, name) != 0)
		return 0;
	watch_errno = e;
	if (watch_result == OK)
		return 0;
	watch_name = NULL;
	errno = FAKE_CUDA_ERRNO;
	return 1;
}

/* The last: the watched call leaves FAKE_CUDA_ERRNO in errno. */
static CUresult done(const char *name, CUresult r)
{
	if (watch_name && strcmp(watch_name, name) == 0) {
		watch_name = NULL;
		errno = FAKE_CUDA_ERRNO;
	}
	return r;
}

/* For tests: watch the next call of entry point name (the fake's own name,
 * e.g. cuMemcpyHtoD_v2_ptds) on this thread; result OK lets it run. */
API void fake_cuda_watch(const char *name, int result);
API int fake_cuda_watched_errno(void);
void fake_cuda_watch(const char *name, int result)
{
	watch_name = name;
	watch_result = result;
	watch_errno = -1;
}
/* The errno the watched call came with; -1 when it was not called. */
int fake_cuda_watched_errno(void) { return watch_errno; }

/* Launches kept for the fake CUPTI (tests/fake_cupti.c), per thread. */
struct fake_cuda_launch {
	char name[128];
	unsigned grid[3], block[3], cluster[3], dyn_smem;
	int regs, smem;
	unsigned long long stream, start, end;
	int copy_kind;              /* -1 kernel, 0 memset, 1 HtoD, 2 DtoH, 3 DtoD */
	unsigned long long bytes;
	unsigned long long real_ns;  /* CLOCK_MONOTONIC at the launch      */
	unsigned graph_id;           /* a graph replay's kernel: its graph  */
	unsigned long long node_id;  /* and graph node                      */
	/* when it runs on CLOCK_MONOTONIC: its stream's work back to back,
	 * none before its launch (FAKE_CUPTI_CLOCK=real reports these) */
	unsigned long long real_start, real_end;
	unsigned long long copies;   /* copies a batch's report covers, 0 one */
};
static int tracking;
/* When the last work queued on any stream ends on CLOCK_MONOTONIC. */
static uint64_t idle_real_ns;

/* Queues dur ns of work on st on the real clock (under mu): when it
 * starts, and st's and the device's end move past it. */
static uint64_t queue_real(struct fstream *st, uint64_t dur)
{
	uint64_t now = mono_now(), start = now > st->real_end_ns ? now : st->real_end_ns;
	st->real_end_ns = start + dur;
	if (st->real_end_ns > idle_real_ns)
		idle_real_ns = st->real_end_ns;
	return start;
}

/* With FAKE_CUPTI_CLOCK=real a synchronization waits, as the driver's,
 * until the queued work has run on the real clock. */
static void wait_idle(void)
{
	const char *c = getenv("FAKE_CUPTI_CLOCK");
	if (!c || strcmp(c, "real"))
		return;
	pthread_mutex_lock(&mu);
	uint64_t until = idle_real_ns, now = mono_now();
	pthread_mutex_unlock(&mu);
	if (until > now) {
		struct timespec d = { (time_t)((until - now) / 1000000000ull),
				      (long)((until - now) % 1000000000ull) };
		nanosleep(&d, NULL);
	}
}
static __thread struct fake_cuda_launch tracked[64];
static __thread int ntracked;

static void open_log(void)
{
	const char *p = getenv("FAKE_CUDA_LOG");
	if (p && *p && !logf) {
		logf = fopen(p, "a");
		if (logf)
			setvbuf(logf, NULL, _IOLBF, 0);
	}
}

static struct fstream *resolve_stream(void *s, int ptsz)
{
	if (s == (void *)0x2 || (ptsz && s == NULL)) {
		if (!per_thread) {
			per_thread = calloc(1, sizeof *per_thread);
			per_thread->id = 10000 + (uint64_t)syscall(SYS_gettid);
			per_thread->dev = -1;
		}
		return per_thread;
	}
	if (s == NULL || s == (void *)0x1)
		return &legacy;
	return s;
}

static __thread int ctx_current; /* cuInit made a context current here */
API CUresult cuInit(unsigned flags) { (void)flags; initialized = 1; ctx_current = 1; open_log(); return OK; }
API CUresult cuDriverGetVersion(int *v) { *v = 13000; return OK; }
/* FAKE_CUDA_DEVICE=D: the program works on device D of D + 1 (default 0
 * of 1).  A thread has D's context current once it called cuInit; on any
 * other thread (the recorder's writer thread, say)
 * cuCtxGetDevice fails, as the driver's does without a current context.
 * Contexts: one primary context a device (cuDevicePrimaryCtxRetain),
 * made current by cuCtxSetCurrent; a thread that set none works in D's.
 * As the driver's, an event records only on a stream of its own
 * context, and two events are timed against each other only when they
 * are of one context (cuEventRecord, cuEventElapsedTime: "different
 * contexts"). */
enum { E_INVALID_CONTEXT = 201 };
#define FAKE_DEVICES 8
static struct fctx { int dev; } fctx[FAKE_DEVICES] = { { 0 }, { 1 }, { 2 }, { 3 }, { 4 }, { 5 }, { 6 }, { 7 } };
/* A device's primary context's generation: cuDevicePrimaryCtxReset ends
 * one, and the streams and events made in it are dead handles. */
static int ctx_gen[FAKE_DEVICES];
static __thread int ctx_set = -1; /* cuCtxSetCurrent's device; -1: none */
static int fake_device(void)
{
	const char *d = getenv("FAKE_CUDA_DEVICE");
	return d && *d ? atoi(d) : 0;
}
/* The device of the calling thread's current context. */
static int cur_dev(void) { return ctx_set >= 0 ? ctx_set : fake_device(); }
API CUresult cuDeviceGet(int *d, int ord) { if (!initialized) return E_NOT_INIT; *d = ord; return ord >= 0 && ord <= fake_device() ? OK : E_INVALID; }
API CUresult cuDeviceGetCount(int *n) { *n = fake_device() + 1; return OK; }
API CUresult cuCtxGetDevice(int *d)
{
	if (!initialized)
		return E_NOT_INIT;
	if (!ctx_current && ctx_set < 0)
		return E_INVALID_CONTEXT;
	*d = cur_dev();
	return OK;
}
API CUresult cuDevicePrimaryCtxRetain(void **c, int dev)
{
	if (!initialized)
		return E_NOT_INIT;
	if (dev < 0 || dev > fake_device() || dev >= FAKE_DEVICES)
		return E_INVALID;
	*c = &fctx[dev];
	return OK;
}
API CUresult cuCtxSetCurrent(void *c)
{
	struct fctx *x = c;
	if (x && (x < fctx || x >= fctx + FAKE_DEVICES))
		return E_INVALID_CONTEXT;
	ctx_set = x ? x->dev : -1;
	return OK;
}
API CUresult cuCtxGetCurrent(void **c)
{
	if (!initialized)
		return E_NOT_INIT;
	*c = &fctx[cur_dev()];
	return OK;
}
API CUresult cuDeviceGetName(char *name, int len, int dev)
{
	const char *n = getenv("FAKE_CUDA_DEVICE_NAME"); /* a real board's name, for a test */
	if (n && *n)
		snprintf(name, (size_t)len, "%s", n);
	else if (dev)
		snprintf(name, (size_t)len, "Fake GPU 9000 #%d", dev);
	else
		snprintf(name, (size_t)len, "Fake GPU 9000");
	return OK;
}
API CUresult cuDeviceTotalMem_v2(size_t *b, int dev) { (void)dev; *b = (size_t)80 << 30; return OK; }
API CUresult cuDeviceGetAttribute(int *v, int attr, int dev)
{
	(void)dev;
	switch (attr) {
	case 75: *v = 9; return OK;         /* compute capability major */
	case 76: *v = 0; return OK;
	case 16: *v = 132; return OK;       /* SMs */
	case 13: *v = 1980000; return OK;   /* clock, kHz */
	case 36: *v = 2619000; return OK;
	case 37: *v = 5120; return OK;
	case 38: *v = 50 << 20; return OK;
	case 39: *v = 2048; return OK;
	case 106: *v = 32; return OK;
	case 82: *v = 65536; return OK;
	case 81: *v = 233472; return OK;
	case 97: *v = 232448; return OK;
	default: *v = 0; return E_INVALID;
	}
}

/* ---- modules and functions ---------------------------------------------- */

/* Modules: handles from 0x1000 on (the tests that load none use 0x1000);
 * their functions are kept, and an unloaded module's go to a free list the
 * next functions are taken from, last freed first: the driver may hand a
 * freed handle to the next module's kernel so. */
static struct ffunc *live_funcs, *free_funcs;
static uintptr_t modules_loaded;
API CUresult cuModuleLoad(void **mod, const char *path)
{
	(void)path;
	pthread_mutex_lock(&mu);
	*mod = (void *)(0x1000 + 0x10 * modules_loaded++);
	pthread_mutex_unlock(&mu);
	return OK;
}
API CUresult cuModuleUnload(void *mod)
{
	if (fails(__func__))
		return watch_result;
	pthread_mutex_lock(&mu);
	for (struct ffunc **p = &live_funcs; *p;) {
		struct ffunc *fn = *p;
		if (fn->mod != mod) {
			p = &fn->next;
			continue;
		}
		*p = fn->next;
		fn->next = free_funcs;
		free_funcs = fn;
	}
	pthread_mutex_unlock(&mu);
	return done(__func__, OK);
}
/* Libraries (cuLibraryLoadData) hold no functions here. */
API CUresult cuLibraryUnload(void *lib) { (void)lib; return fails(__func__) ? watch_result : done(__func__, OK); }
API CUresult cuModuleGetFunction(void **f, void *mod, const char *name)
{
	pthread_mutex_lock(&mu);
	struct ffunc *fn = free_funcs;
	if (fn)
		free_funcs = fn->next;
	pthread_mutex_unlock(&mu);
	if (!fn && !(fn = malloc(sizeof *fn)))
		return 2;
	memset(fn, 0, sizeof *fn);
	fn->mod = mod;
	snprintf(fn->name, sizeof fn->name, "%s", name);
	/* Attributes derived from the name, so tests can check them. */
	fn->regs = 16 + (int)(strlen(name) * 7 % 200);
	fn->smem = 1024 * (int)(strlen(name) % 4);
	pthread_mutex_lock(&mu);
	fn->next = live_funcs;
	live_funcs = fn;
	pthread_mutex_unlock(&mu);
	*f = fn;
	return OK;
}
API CUresult cuFuncGetName(const char **name, void *f)
{
	if (!f)
		return E_INVALID_HANDLE;
	*name = ((struct ffunc *)f)->name;
	return OK;
}
API CUresult cuFuncGetAttribute(int *v, int attr, void *f)
{
	struct ffunc *fn = f;
	if (!fn)
		return E_INVALID_HANDLE;
	if (attr == 4)
		*v = fn->regs;
	else if (attr == 1)
		*v = fn->smem;
	else
		*v = 0;
	return OK;
}

/* ---- streams and events ----------------------------------------------------- */

API CUresult cuStreamCreate(void **s, unsigned flags)
{
	(void)flags;
	struct fstream *st = calloc(1, sizeof *st);
	st->dev = cur_dev();
	st->gen = ctx_gen[st->dev];
	pthread_mutex_lock(&mu);
	st->id = next_stream_id++;
	pthread_mutex_unlock(&mu);
	*s = st;
	return OK;
}
API CUresult cuStreamGetId(void *s, unsigned long long *id) { *id = resolve_stream(s, 0)->id; return OK; }
API CUresult cuStreamGetId_ptsz(void *s, unsigned long long *id) { *id = resolve_stream(s, 1)->id; return OK; }
API CUresult cuStreamIsCapturing(void *s, int *st) { *st = resolve_stream(s, 0)->capturing != 0; return OK; }
API CUresult cuStreamIsCapturing_ptsz(void *s, int *st) { *st = resolve_stream(s, 1)->capturing != 0; return OK; }

/* ---- graphs ------------------------------------------------------------------
 *
 * Each stream capture gets an id from a counter (cuStreamGetCaptureInfo's
 * forms: 10.1's, 11.3's _v2 and 12.3's _v3) and a graph its launches are
 * appended to (function, grid, block, dynamic shared memory; not run);
 * cuStreamEndCapture hands that graph out, one per capture.  An executable
 * graph (cuGraphInstantiate*) holds a copy of its graph's kernels
 * (cuGraphExecUpdate_v2 copies another graph's), and cuGraphLaunch of one
 * runs them in capture order, each as a graph kernel for the fake CUPTI
 * (its graph's id, a node id per kernel).  A graph made by cuGraphCreate
 * takes kernels node by node (cuGraphAddKernelNode_v2), or a capture
 * begun into it (cuStreamBeginCaptureToGraph).  Graphs and executable graphs are
 * slots of fixed tables, the lowest free one taken first: a destroyed
 * one's handle is the next one's, as the driver may hand it out. */
enum { E_OUT_OF_MEMORY = 2, E_ILLEGAL_STATE = 401 };
#define FAKE_GRAPHS 16
#define FAKE_NODES 16
struct fnode { struct ffunc *f; unsigned g[3], b[3], smem; };
struct fgraph { int live; unsigned id; int n; struct fnode node[FAKE_NODES]; };
static struct fgraph graphs[FAKE_GRAPHS], execs[FAKE_GRAPHS];
static unsigned next_graph_id = 1;        /* CUPTI's graphId               */
static uint64_t next_capture_id = 1000;

/* The lowest free slot of t, made live and empty (under mu); NULL: full. */
static struct fgraph *slot_new(struct fgraph *t)
{
	for (int i = 0; i < FAKE_GRAPHS; i++)
		if (!t[i].live) {
			memset(&t[i], 0, sizeof t[i]);
			t[i].live = 1;
			return &t[i];
		}
	return NULL;
}

/* The live slot of t that handle h is, or NULL (under mu). */
static struct fgraph *slot_of(struct fgraph *t, void *h)
{
	struct fgraph *x = h;
	if (x < t || x >= t + FAKE_GRAPHS || (uintptr_t)((char *)x - (char *)t) % sizeof *t)
		return NULL;
	return x->live ? x : NULL;
}

API CUresult cuGraphCreate(void **g, unsigned flags)
{
	(void)flags;
	pthread_mutex_lock(&mu);
	struct fgraph *x = slot_new(graphs);
	if (x)
		x->id = next_graph_id++;
	pthread_mutex_unlock(&mu);
	*g = x;
	return x ? OK : E_OUT_OF_MEMORY;
}

/* What cuStreamGetCaptureInfo's forms say of the stream (NULL outputs
 * are not asked for).  A stream not capturing is answered without the
 * lock, as cuStreamIsCapturing is (every recorded launch asks: make bench
 * counts it). */
static CUresult capture_info(void *s, int ptsz, int *status, uint64_t *id, void **graph,
			     const void **deps, const void **edges, size_t *ndeps)
{
	if (!status)
		return E_INVALID;
	struct fstream *st = resolve_stream(s, ptsz);
	*status = st->capturing != 0;
	if (*status) {
		pthread_mutex_lock(&mu);
		if (id)
			*id = st->capture_id;
		if (graph)
			*graph = st->capture_graph;
		pthread_mutex_unlock(&mu);
	}
	if (deps)
		*deps = NULL;
	if (edges)
		*edges = NULL;
	if (ndeps)
		*ndeps = 0;
	return OK;
}
API CUresult cuStreamGetCaptureInfo(void *s, int *st, uint64_t *id) { return capture_info(s, 0, st, id, NULL, NULL, NULL, NULL); }
API CUresult cuStreamGetCaptureInfo_ptsz(void *s, int *st, uint64_t *id) { return capture_info(s, 1, st, id, NULL, NULL, NULL, NULL); }
API CUresult cuStreamGetCaptureInfo_v2(void *s, int *st, uint64_t *id, void **g, const void **d, size_t *n)
{
	return capture_info(s, 0, st, id, g, d, NULL, n);
}
API CUresult cuStreamGetCaptureInfo_v2_ptsz(void *s, int *st, uint64_t *id, void **g, const void **d, size_t *n)
{
	return capture_info(s, 1, st, id, g, d, NULL, n);
}
API CUresult cuStreamGetCaptureInfo_v3(void *s, int *st, uint64_t *id, void **g, const void **d, const void **e,
				       size_t *n)
{
	return capture_info(s, 0, st, id, g, d, e, n);
}
API CUresult cuStreamGetCaptureInfo_v3_ptsz(void *s, int *st, uint64_t *id, void **g, const void **d,
					    const void **e, size_t *n)
{
	return capture_info(s, 1, st, id, g, d, e, n);
}
/* Capture: launches on a capturing stream are recorded into a graph, not
 * run.  The modes as cuda.h's cuThreadExchangeStreamCaptureMode describes
 * them: while a capture begun in CU_STREAM_CAPTURE_MODE_GLOBAL (0) runs,
 * a thread of mode GLOBAL (every thread's default) is prohibited from
 * potentially unsafe calls (here the event queries, synchronizations and
 * elapsed times); such a call fails with CUDA_ERROR_STREAM_CAPTURE_
 * UNSUPPORTED (900) and invalidates the capture, whose cuStreamEndCapture
 * then returns CUDA_ERROR_STREAM_CAPTURE_INVALIDATED (901) and no graph.
 * A thread of mode RELAXED (2) may make them. */
enum { E_CAPTURE_UNSUPPORTED = 900, E_CAPTURE_INVALIDATED = 901, MODE_GLOBAL = 0, MODE_RELAXED = 2 };
static int global_captures, capture_invalidated;
static __thread int capture_mode; /* MODE_GLOBAL */
static int unsafe_during_capture(void)
{
	pthread_mutex_lock(&mu);
	int bad = global_captures > 0 && capture_mode == MODE_GLOBAL;
	if (bad)
		capture_invalidated = 1;
	pthread_mutex_unlock(&mu);
	return bad;
}
API CUresult cuThreadExchangeStreamCaptureMode(int *mode)
{
	if (!mode || *mode < MODE_GLOBAL || *mode > MODE_RELAXED)
		return E_INVALID;
	int old = capture_mode;
	capture_mode = *mode;
	*mode = old;
	return OK;
}
/* A capture begins on s into graph g (NULL: a graph of its own) with the
 * next capture id. */
static CUresult begin_capture(void *s, int ptsz, void *g, int mode)
{
	pthread_mutex_lock(&mu);
	struct fstream *st = resolve_stream(s, ptsz);
	struct fgraph *x = g ? slot_of(graphs, g) : slot_new(graphs);
	CUresult r = st->capturing ? E_ILLEGAL_STATE : !x ? (g ? E_INVALID : E_OUT_OF_MEMORY) : OK;
	if (r == OK) {
		if (!g)
			x->id = next_graph_id++;
		st->capturing = mode == MODE_GLOBAL ? 2 : 1;
		if (mode == MODE_GLOBAL)
			global_captures++;
		st->capture_id = next_capture_id++;
		st->capture_graph = x;
		st->capture_own = !g;
	}
	pthread_mutex_unlock(&mu);
	return r;
}
API CUresult cuStreamBeginCapture_v2(void *s, int mode) { return fails(__func__) ? watch_result : done(__func__, begin_capture(s, 0, NULL, mode)); }
API CUresult cuStreamBeginCapture_v2_ptsz(void *s, int mode) { return fails(__func__) ? watch_result : done(__func__, begin_capture(s, 1, NULL, mode)); }
#define TO_GRAPH_ARGS void *s, void *g, const void *deps, const void *edges, size_t ndeps, int mode
API CUresult cuStreamBeginCaptureToGraph(TO_GRAPH_ARGS)
{
	(void)deps; (void)edges; (void)ndeps;
	return fails(__func__) ? watch_result : done(__func__, begin_capture(s, 0, g, mode));
}
API CUresult cuStreamBeginCaptureToGraph_ptsz(TO_GRAPH_ARGS)
{
	(void)deps; (void)edges; (void)ndeps;
	return fails(__func__) ? watch_result : done(__func__, begin_capture(s, 1, g, mode));
}
/* An invalidated capture hands out no graph (its own is freed). */
static CUresult end_capture(void *s, int ptsz, void **g)
{
	pthread_mutex_lock(&mu);
	struct fstream *st = resolve_stream(s, ptsz);
	if (!st->capturing) {
		pthread_mutex_unlock(&mu);
		return E_ILLEGAL_STATE;
	}
	if (st->capturing == 2)
		global_captures--;
	st->capturing = 0;
	int bad = capture_invalidated;
	if (!global_captures)
		capture_invalidated = 0;
	struct fgraph *x = st->capture_graph;
	if (bad && st->capture_own)
		x->live = 0;
	st->capture_graph = NULL;
	st->capture_id = 0;
	pthread_mutex_unlock(&mu);
	*g = bad ? NULL : x;
	return bad ? E_CAPTURE_INVALIDATED : OK;
}
API CUresult cuStreamEndCapture(void *s, void **g) { return fails(__func__) ? watch_result : done(__func__, end_capture(s, 0, g)); }
API CUresult cuStreamEndCapture_ptsz(void *s, void **g) { return fails(__func__) ? watch_result : done(__func__, end_capture(s, 1, g)); }
API CUresult cuStreamSynchronize(void *s) { (void)s; if (fails(__func__)) return watch_result; wait_idle(); return done(__func__, OK); }
API CUresult cuStreamSynchronize_ptsz(void *s) { (void)s; if (fails(__func__)) return watch_result; wait_idle(); return done(__func__, OK); }
API CUresult cuCtxSynchronize(void) { if (fails(__func__)) return watch_result; wait_idle(); return done(__func__, OK); }
/* CUDA 13's, which waits for the context it is given: the tests pass
 * FAKE_CUDA_CTX, and any other is refused (a hook that dropped or garbled
 * the argument shows) */
#define FAKE_CUDA_CTX ((void *)0xc7c7)
API CUresult cuCtxSynchronize_v2(void *ctx)
{
	if (fails(__func__))
		return watch_result;
	if (ctx == FAKE_CUDA_CTX)
		wait_idle();
	return done(__func__, ctx == FAKE_CUDA_CTX ? OK : E_INVALID);
}
API CUresult cuStreamWaitEvent(void *s, void *e, unsigned f) { (void)s; (void)e; (void)f; return fails(__func__) ? watch_result : done(__func__, OK); }
API CUresult cuStreamWaitEvent_ptsz(void *s, void *e, unsigned f) { (void)s; (void)e; (void)f; return fails(__func__) ? watch_result : done(__func__, OK); }
API CUresult cuEventCreate(void **e, unsigned flags)
{
	(void)flags;
	struct fevent *ev = calloc(1, sizeof *ev);
	ev->dev = cur_dev();
	ev->gen = ctx_gen[ev->dev];
	*e = ev;
	return OK;
}
API CUresult cuEventDestroy_v2(void *e) { free(e); return OK; }
static CUresult event_record(void *e, void *s, int ptsz)
{
	struct fevent *ev = e;
	pthread_mutex_lock(&mu);
	struct fstream *st = resolve_stream(s, ptsz);
	int ok = (st->dev < 0 ? cur_dev() : st->dev) == ev->dev && ev->gen == ctx_gen[ev->dev] &&
		 (st->dev < 0 || st->gen == ctx_gen[st->dev]);
	if (ok) {
		ev->t_ns = st->clock_ns;
		ev->recorded = 1;
	}
	pthread_mutex_unlock(&mu);
	return ok ? OK : E_INVALID_HANDLE;
}
API CUresult cuEventRecord(void *e, void *s) { return fails(__func__) ? watch_result : done(__func__, event_record(e, s, 0)); }
API CUresult cuEventRecord_ptsz(void *e, void *s) { return fails(__func__) ? watch_result : done(__func__, event_record(e, s, 1)); }
API CUresult cuEventRecordWithFlags(void *e, void *s, unsigned f) { (void)f; return fails(__func__) ? watch_result : done(__func__, event_record(e, s, 0)); }
API CUresult cuEventRecordWithFlags_ptsz(void *e, void *s, unsigned f) { (void)f; return fails(__func__) ? watch_result : done(__func__, event_record(e, s, 1)); }
API CUresult cuEventQuery(void *e)
{
	if (unsafe_during_capture())
		return E_CAPTURE_UNSUPPORTED;
	return ((struct fevent *)e)->recorded ? OK : 600;
}
API CUresult cuEventSynchronize(void *e)
{
	(void)e;
	if (unsafe_during_capture())
		return E_CAPTURE_UNSUPPORTED;
	return fails(__func__) ? watch_result : done(__func__, OK);
}
API CUresult cuEventElapsedTime(float *ms, void *a, void *b)
{
	if (unsafe_during_capture())
		return E_CAPTURE_UNSUPPORTED;
	struct fevent *x = a, *y = b;
	if (x->dev != y->dev || !x->recorded || !y->recorded || x->gen != ctx_gen[x->dev] ||
	    y->gen != ctx_gen[y->dev])
		return E_INVALID_HANDLE;
	*ms = (float)((double)((int64_t)y->t_ns - (int64_t)x->t_ns) / 1e6);
	return OK;
}
API CUresult cuEventElapsedTime_v2(float *ms, void *a, void *b) { return cuEventElapsedTime(ms, a, b); }

/* ---- launches ------------------------------------------------------------------ */

static CUresult run(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
		    unsigned bz, unsigned cx, unsigned cy, unsigned cz, unsigned smem, void *s,
		    int ptsz)
{
	struct ffunc *fn = f;
	if (!fn || !gx || !gy || !gz || !bx || !by || !bz)
		return E_INVALID;
	/* FAKE_CUDA_FIRST_TRACKED_MS: the first launch once CUPTI tracks them
	 * takes that long (on an H200 the program's first calls after CUPTI's
	 * start cost 4-6 ms) */
	static int first_tracked_done;
	const char *first_ms = getenv("FAKE_CUDA_FIRST_TRACKED_MS");
	if (tracking && first_ms && !first_tracked_done) {
		first_tracked_done = 1;
		struct timespec d = { atoi(first_ms) / 1000, (long)(atoi(first_ms) % 1000) * 1000000L };
		nanosleep(&d, NULL);
	}
	pthread_mutex_lock(&mu);
	struct fstream *st = resolve_stream(s, ptsz);
	if (st->dev >= 0 && (st->dev != cur_dev() || st->gen != ctx_gen[st->dev])) {
		/* another context's stream, or a dead one's */
		pthread_mutex_unlock(&mu);
		return E_INVALID_HANDLE;
	}
	if (st->capturing) {   /* recorded into the capture's graph, not run */
		struct fgraph *x = st->capture_graph;
		CUresult r = x && x->n < FAKE_NODES ? OK : E_OUT_OF_MEMORY;
		if (r == OK)
			x->node[x->n++] = (struct fnode){ fn, { gx, gy, gz }, { bx, by, bz }, smem };
		pthread_mutex_unlock(&mu);
		return r;
	}
	uint64_t start = st->clock_ns;
	uint64_t dur = 1000 + 10ull * gx * gy * gz;
	st->clock_ns += dur;
	uint64_t real_start = queue_real(st, dur);
	if (tracking && ntracked < 64) {
		struct fake_cuda_launch *t = &tracked[ntracked++];
		snprintf(t->name, sizeof t->name, "%s", fn->name);
		t->grid[0] = gx; t->grid[1] = gy; t->grid[2] = gz;
		t->block[0] = bx; t->block[1] = by; t->block[2] = bz;
		t->cluster[0] = cx; t->cluster[1] = cy; t->cluster[2] = cz;
		t->dyn_smem = smem;
		t->regs = fn->regs;
		t->smem = fn->smem;
		t->stream = st->id;
		t->start = start;
		t->end = start + dur;
		t->copy_kind = -1;
		t->real_ns = mono_now();
		t->real_start = real_start;
		t->real_end = real_start + dur;
		t->graph_id = 0;
		t->node_id = 0;
	}
	if (logf)
		fprintf(logf, "K %ld %s %u %u %u %u %u %u %u %u %u %u %d %d %llu %llu %llu\n",
			(long)syscall(SYS_gettid), fn->name, gx, gy, gz, bx, by, bz, cx, cy, cz, smem,
			fn->regs, fn->smem, (unsigned long long)st->id, (unsigned long long)start,
			(unsigned long long)(start + dur));
	pthread_mutex_unlock(&mu);
	return OK;
}

#define LARGS void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned smem, void *s, void **p
#define RUN(ptsz) (fails(__func__) ? watch_result : done(__func__, run(f, gx, gy, gz, bx, by, bz, 0, 0, 0, smem, s, ptsz)))
API CUresult cuLaunchKernel(LARGS, void **x) { (void)p; (void)x; return RUN(0); }
API CUresult cuLaunchKernel_ptsz(LARGS, void **x) { (void)p; (void)x; return RUN(1); }
API CUresult cuLaunchCooperativeKernel(LARGS) { (void)p; return RUN(0); }
API CUresult cuLaunchCooperativeKernel_ptsz(LARGS) { (void)p; return RUN(1); }
static CUresult launch_ex(const struct launch_config *c, void *f, int ptsz)
{
	unsigned cx = 0, cy = 0, cz = 0;
	for (unsigned i = 0; i < c->nattrs; i++)
		if (c->attrs[i].id == 4) {
			cx = c->attrs[i].v.cluster.x;
			cy = c->attrs[i].v.cluster.y;
			cz = c->attrs[i].v.cluster.z;
		}
	return run(f, c->gx, c->gy, c->gz, c->bx, c->by, c->bz, cx, cy, cz, c->smem, c->stream, ptsz);
}
API CUresult cuLaunchKernelEx(const struct launch_config *c, void *f, void **p, void **x) { (void)p; (void)x; return fails(__func__) ? watch_result : done(__func__, launch_ex(c, f, 0)); }
API CUresult cuLaunchKernelEx_ptsz(const struct launch_config *c, void *f, void **p, void **x) { (void)p; (void)x; return fails(__func__) ? watch_result : done(__func__, launch_ex(c, f, 1)); }
/* A graph replay, its kernels seen only by (the fake) CUPTI: an
 * executable graph the fake made runs its graph's kernels in capture
 * order (a destroyed one is refused); any other handle two fixed kernels. */
static CUresult graph(void *g, void *s, int ptsz)
{
	static struct ffunc a = { "graph_node_a", 40, 0, NULL, NULL }, b = { "graph_node_b", 48, 1024, NULL, NULL };
	struct fgraph x = { 1, 7, 2, { { &a, { 3, 1, 1 }, { 64, 1, 1 }, 0 }, { &b, { 5, 1, 1 }, { 128, 1, 1 }, 0 } } };
	int made = (struct fgraph *)g >= execs && (struct fgraph *)g < execs + FAKE_GRAPHS;
	if (made) {
		pthread_mutex_lock(&mu);
		struct fgraph *e = slot_of(execs, g);
		if (e)
			x = *e;   /* a copy: run() takes mu */
		pthread_mutex_unlock(&mu);
		if (!e)
			return E_INVALID_HANDLE;
	}
	int before = ntracked;
	CUresult r = OK;
	for (int i = 0; i < x.n && r == OK; i++) {
		const struct fnode *n = &x.node[i];
		r = run(n->f, n->g[0], n->g[1], n->g[2], n->b[0], n->b[1], n->b[2], 0, 0, 0, n->smem, s, ptsz);
	}
	for (int i = before; i < ntracked; i++) { /* CUPTI's graph and node ids */
		tracked[i].graph_id = x.id;
		tracked[i].node_id = (made ? 1000ull * x.id : 100) + (unsigned long long)(i - before);
	}
	return r;
}

/* An executable graph made from graph g (cuGraphInstantiate's forms): a
 * copy of its kernels, or into *x's (cuGraphExecUpdate_v2: update). */
static CUresult instantiate(void **x, void *g, int update)
{
	if (!x)
		return E_INVALID;
	pthread_mutex_lock(&mu);
	struct fgraph *from = slot_of(graphs, g), *e = update ? slot_of(execs, *x) : NULL;
	CUresult r = !from || (update && !e) ? E_INVALID : OK;
	if (r == OK && !e && !(e = slot_new(execs)))
		r = E_OUT_OF_MEMORY;
	if (r == OK)
		*e = *from;
	pthread_mutex_unlock(&mu);
	if (r == OK && !update)
		*x = e;
	return r;
}
/* cuda.h's CUDA_GRAPH_INSTANTIATE_PARAMS and CUgraphExecUpdateResultInfo */
struct instantiate_params { unsigned long long flags; void *upload_stream, *err_node; int result; };
struct update_info { int result; void *err_node, *err_from; };
static CUresult instantiate_params(void **x, void *g, struct instantiate_params *p)
{
	CUresult r = instantiate(x, g, 0);
	if (p)
		p->result = r == OK ? 0 : 1;   /* CUDA_GRAPH_INSTANTIATE_SUCCESS, _ERROR */
	return r;
}
static CUresult exec_update(void *x, void *g, struct update_info *info)
{
	CUresult r = instantiate(&x, g, 1);
	if (info)
		info->result = r == OK ? 0 : 1;  /* CU_GRAPH_EXEC_UPDATE_SUCCESS, _ERROR */
	return r;
}
/* A graph or executable graph destroyed: its slot is the next one's. */
static CUresult destroy(struct fgraph *t, void *h)
{
	pthread_mutex_lock(&mu);
	struct fgraph *x = slot_of(t, h);
	if (x)
		x->live = 0;
	pthread_mutex_unlock(&mu);
	return x ? OK : E_INVALID;
}
/* A kernel added to graph g node by node (cuGraphAddKernelNode_v2; cuda.h's
 * CUDA_KERNEL_NODE_PARAMS_v2, its function given), after its last one. */
struct kernel_node_params { void *func; unsigned gx, gy, gz, bx, by, bz, smem; void **params, **extra; void *kern, *ctx; };
API CUresult cuGraphAddKernelNode_v2(void **node, void *g, const void *deps, size_t ndeps,
				     const struct kernel_node_params *p)
{
	(void)deps; (void)ndeps;
	if (!node || !p || !p->func)
		return E_INVALID;
	pthread_mutex_lock(&mu);
	struct fgraph *x = slot_of(graphs, g);
	CUresult r = !x ? E_INVALID : x->n < FAKE_NODES ? OK : E_OUT_OF_MEMORY;
	if (r == OK) {
		x->node[x->n] = (struct fnode){ p->func, { p->gx, p->gy, p->gz }, { p->bx, p->by, p->bz }, p->smem };
		*node = &x->node[x->n++];
	}
	pthread_mutex_unlock(&mu);
	return r;
}
#define GRAPH_CALL(call) (fails(__func__) ? watch_result : done(__func__, call))
API CUresult cuGraphInstantiateWithFlags(void **x, void *g, unsigned long long f) { (void)f; return GRAPH_CALL(instantiate(x, g, 0)); }
API CUresult cuGraphInstantiateWithParams(void **x, void *g, struct instantiate_params *p) { return GRAPH_CALL(instantiate_params(x, g, p)); }
API CUresult cuGraphInstantiateWithParams_ptsz(void **x, void *g, struct instantiate_params *p) { return GRAPH_CALL(instantiate_params(x, g, p)); }
API CUresult cuGraphInstantiate_v2(void **x, void *g, void **err_node, char *log, size_t n)
{
	(void)err_node; (void)log; (void)n;
	return GRAPH_CALL(instantiate(x, g, 0));
}
API CUresult cuGraphExecUpdate_v2(void *x, void *g, struct update_info *info) { return GRAPH_CALL(exec_update(x, g, info)); }
/* CUDA 10.2's: the result in *res (0 success, 1 error), no error node */
API CUresult cuGraphExecUpdate(void *x, void *g, void **err_node, int *res)
{
	struct update_info info = { -1, NULL, NULL };
	CUresult r = GRAPH_CALL(exec_update(x, g, &info));
	if (err_node)
		*err_node = NULL;
	if (res)
		*res = info.result;
	return r;
}
API CUresult cuGraphDestroy(void *g) { return GRAPH_CALL(destroy(graphs, g)); }
API CUresult cuGraphExecDestroy(void *x) { return GRAPH_CALL(destroy(execs, x)); }
API CUresult cuGraphLaunch(void *g, void *s) { return fails(__func__) ? watch_result : done(__func__, graph(g, s, 0)); }
API CUresult cuGraphLaunch_ptsz(void *g, void *s) { return fails(__func__) ? watch_result : done(__func__, graph(g, s, 1)); }

API void fake_cuda_track_launches(int on);
API int fake_cuda_take_launches(struct fake_cuda_launch *out, int max);
void fake_cuda_track_launches(int on) { tracking = on; }
int fake_cuda_take_launches(struct fake_cuda_launch *out, int max)
{
	int n = ntracked < max ? ntracked : max;
	memcpy(out, tracked, (size_t)n * sizeof *out);
	ntracked = 0;
	return n;
}

/* ---- memory ---------------------------------------------------------------------- */

/* Runs a copy of bytes on st (under mu): 1 ns per 100 bytes on the stream's
 * clock, kept for the fake CUPTI as one report covering copies copies of a
 * batch (0: one copy or set). */
static void run_copy(struct fstream *st, uint64_t bytes, int kind, unsigned copies)
{
	uint64_t real_start = queue_real(st, bytes / 100);
	if (tracking && ntracked < 64) {
		struct fake_cuda_launch *t = &tracked[ntracked++];
		memset(t, 0, sizeof *t);
		t->copy_kind = kind;
		t->real_ns = mono_now();
		t->real_start = real_start;
		t->real_end = real_start + bytes / 100;
		t->bytes = bytes;
		t->stream = st->id;
		t->start = st->clock_ns;
		t->end = st->clock_ns + bytes / 100;
		t->copies = copies;
	}
	st->clock_ns += bytes / 100;
}
static void log_line(uint64_t bytes, int kind, const struct fstream *st)
{
	if (logf)
		fprintf(logf, "C %ld %llu %d %llu\n", (long)syscall(SYS_gettid),
			(unsigned long long)bytes, kind, (unsigned long long)st->id);
}
static void log_copy(uint64_t bytes, int kind, void *s, int ptsz)
{
	pthread_mutex_lock(&mu);
	struct fstream *st = resolve_stream(s, ptsz);
	run_copy(st, bytes, kind, 0);
	log_line(bytes, kind, st);
	pthread_mutex_unlock(&mu);
}

typedef unsigned long long dptr;

/* What the driver knows of addresses: device allocations and page-locked
 * host allocations, so that cuPointerGetAttribute and cuMemHostGetFlags
 * answer as the real driver does (memory it did not allocate, like the
 * stack or malloc's, is unknown to it: CUDA_ERROR_INVALID_VALUE). */
enum { MT_HOST = 1, MT_DEVICE = 2 };   /* CUmemorytype */
static struct { uintptr_t base; size_t n; int type; } allocs[256];
static void track_alloc(void *m, size_t n, int type)
{
	pthread_mutex_lock(&mu);
	for (size_t i = 0; m && i < sizeof allocs / sizeof *allocs; i++)
		if (!allocs[i].base) {
			allocs[i].base = (uintptr_t)m;
			allocs[i].n = n ? n : 1;
			allocs[i].type = type;
			break;
		}
	pthread_mutex_unlock(&mu);
}
static void untrack_alloc(void *m)
{
	pthread_mutex_lock(&mu);
	for (size_t i = 0; m && i < sizeof allocs / sizeof *allocs; i++)
		if (allocs[i].base == (uintptr_t)m)
			allocs[i].base = 0;
	pthread_mutex_unlock(&mu);
}
static int type_of(uintptr_t p)
{
	int t = 0;
	pthread_mutex_lock(&mu);
	for (size_t i = 0; i < sizeof allocs / sizeof *allocs; i++)
		if (allocs[i].base && p >= allocs[i].base && p - allocs[i].base < allocs[i].n)
			t = allocs[i].type;
	pthread_mutex_unlock(&mu);
	return t;
}
static CUresult mem_alloc(dptr *p, size_t n)
{
	void *m = malloc(n ? n : 1);
	*p = (dptr)(uintptr_t)m;
	track_alloc(m, n, MT_DEVICE);
	return m ? OK : 2;
}
static CUresult mem_free(dptr p) { untrack_alloc((void *)(uintptr_t)p); free((void *)(uintptr_t)p); return OK; }
API CUresult cuMemAlloc_v2(dptr *p, size_t n) { return fails(__func__) ? watch_result : done(__func__, mem_alloc(p, n)); }
API CUresult cuMemFree_v2(dptr p) { return fails(__func__) ? watch_result : done(__func__, mem_free(p)); }
API CUresult cuMemAllocAsync(dptr *p, size_t n, void *s) { (void)s; return fails(__func__) ? watch_result : done(__func__, mem_alloc(p, n)); }
API CUresult cuMemAllocAsync_ptsz(dptr *p, size_t n, void *s) { (void)s; return fails(__func__) ? watch_result : done(__func__, mem_alloc(p, n)); }
API CUresult cuMemAllocFromPoolAsync(dptr *p, size_t n, void *pool, void *s) { (void)pool; (void)s; return fails(__func__) ? watch_result : done(__func__, mem_alloc(p, n)); }
API CUresult cuMemAllocFromPoolAsync_ptsz(dptr *p, size_t n, void *pool, void *s) { (void)pool; (void)s; return fails(__func__) ? watch_result : done(__func__, mem_alloc(p, n)); }
API CUresult cuMemFreeAsync(dptr p, void *s) { (void)s; return fails(__func__) ? watch_result : done(__func__, mem_free(p)); }
API CUresult cuMemFreeAsync_ptsz(dptr p, void *s) { (void)s; return fails(__func__) ? watch_result : done(__func__, mem_free(p)); }
API CUresult cuMemHostAlloc(void **p, size_t n, unsigned flags)
{
	(void)flags;
	*p = malloc(n ? n : 1);
	track_alloc(*p, n, MT_HOST);
	return *p ? OK : 2;
}
API CUresult cuMemFreeHost(void *p) { untrack_alloc(p); free(p); return OK; }
API CUresult cuMemHostGetFlags(unsigned *flags, void *p)
{
	if (type_of((uintptr_t)p) != MT_HOST)
		return E_INVALID;
	*flags = 0;
	return OK;
}
API CUresult cuPointerGetAttribute(void *data, int attr, dptr p)
{
	int t = type_of((uintptr_t)p);
	if (!t)
		return E_INVALID;
	if (attr != 2)   /* CU_POINTER_ATTRIBUTE_MEMORY_TYPE */
		return E_INVALID;
	*(unsigned *)data = (unsigned)t;
	return OK;
}
/* The virtual memory API's physical allocations: a handle, no memory. */
API CUresult cuMemCreate(unsigned long long *h, size_t n, const void *prop, unsigned long long f)
{
	static unsigned long long next = 0x100;
	(void)n; (void)prop; (void)f;
	if (fails(__func__))
		return watch_result;
	*h = __atomic_add_fetch(&next, 1, __ATOMIC_RELAXED);
	return done(__func__, OK);
}
API CUresult cuMemRelease(unsigned long long h) { (void)h; return fails(__func__) ? watch_result : done(__func__, OK); }

/* Copies (kind: 1 HtoD, 2 DtoH, 3 DtoD, 0 unified: from what it knows of
 * each side, 4 HtoH) and sets (size: bytes of an element) really copy and
 * set: device memory is host memory. */
static CUresult copy(void *d, const void *s, size_t n, int kind, void *st, int ptsz)
{
	if (!d || !s)
		return E_INVALID;
	if (kind == 0) {
		int dd = type_of((uintptr_t)d) == MT_DEVICE, ds = type_of((uintptr_t)s) == MT_DEVICE;
		kind = dd ? (ds ? 3 : 1) : ds ? 2 : 4;
	}
	memcpy(d, s, n);
	log_copy(n, kind, st, ptsz);
	return OK;
}
static CUresult set(dptr d, unsigned v, int size, size_t n, void *st, int ptsz)
{
	if (!d)
		return E_INVALID;
	for (size_t i = 0; i < n; i++)
		memcpy((char *)(uintptr_t)d + i * (size_t)size, &v, (size_t)size);  /* little-endian */
	log_copy(n * (size_t)size, 0, st, ptsz);
	return OK;
}
#define COPY(d, s, kind, st, ptsz) (fails(__func__) ? watch_result : \
	done(__func__, copy((void *)(uintptr_t)(d), (const void *)(uintptr_t)(s), n, kind, st, ptsz)))
#define SET(size, st, ptsz) (fails(__func__) ? watch_result : done(__func__, set(d, c, size, n, st, ptsz)))
API CUresult cuMemcpy(dptr d, dptr s, size_t n) { return COPY(d, s, 0, NULL, 0); }
API CUresult cuMemcpy_ptds(dptr d, dptr s, size_t n) { return COPY(d, s, 0, NULL, 1); }
API CUresult cuMemcpyAsync(dptr d, dptr s, size_t n, void *st) { return COPY(d, s, 0, st, 0); }
API CUresult cuMemcpyAsync_ptsz(dptr d, dptr s, size_t n, void *st) { return COPY(d, s, 0, st, 1); }
API CUresult cuMemcpyHtoD_v2(dptr d, const void *s, size_t n) { return COPY(d, s, 1, NULL, 0); }
API CUresult cuMemcpyHtoD_v2_ptds(dptr d, const void *s, size_t n) { return COPY(d, s, 1, NULL, 1); }
API CUresult cuMemcpyDtoH_v2(void *d, dptr s, size_t n) { return COPY(d, s, 2, NULL, 0); }
API CUresult cuMemcpyDtoH_v2_ptds(void *d, dptr s, size_t n) { return COPY(d, s, 2, NULL, 1); }
API CUresult cuMemcpyDtoD_v2(dptr d, dptr s, size_t n) { return COPY(d, s, 3, NULL, 0); }
API CUresult cuMemcpyDtoD_v2_ptds(dptr d, dptr s, size_t n) { return COPY(d, s, 3, NULL, 1); }
API CUresult cuMemcpyHtoDAsync_v2(dptr d, const void *s, size_t n, void *st) { return COPY(d, s, 1, st, 0); }
API CUresult cuMemcpyHtoDAsync_v2_ptsz(dptr d, const void *s, size_t n, void *st) { return COPY(d, s, 1, st, 1); }
API CUresult cuMemcpyDtoHAsync_v2(void *d, dptr s, size_t n, void *st) { return COPY(d, s, 2, st, 0); }
API CUresult cuMemcpyDtoHAsync_v2_ptsz(void *d, dptr s, size_t n, void *st) { return COPY(d, s, 2, st, 1); }
API CUresult cuMemcpyDtoDAsync_v2(dptr d, dptr s, size_t n, void *st) { return COPY(d, s, 3, st, 0); }
API CUresult cuMemcpyDtoDAsync_v2_ptsz(dptr d, dptr s, size_t n, void *st) { return COPY(d, s, 3, st, 1); }
API CUresult cuMemsetD8_v2(dptr d, unsigned char c, size_t n) { return SET(1, NULL, 0); }
API CUresult cuMemsetD8_v2_ptds(dptr d, unsigned char c, size_t n) { return SET(1, NULL, 1); }
API CUresult cuMemsetD32_v2(dptr d, unsigned int c, size_t n) { return SET(4, NULL, 0); }
API CUresult cuMemsetD32_v2_ptds(dptr d, unsigned int c, size_t n) { return SET(4, NULL, 1); }
API CUresult cuMemsetD8Async(dptr d, unsigned char c, size_t n, void *st) { return SET(1, st, 0); }
API CUresult cuMemsetD8Async_ptsz(dptr d, unsigned char c, size_t n, void *st) { return SET(1, st, 1); }
API CUresult cuMemsetD32Async(dptr d, unsigned int c, size_t n, void *st) { return SET(4, st, 0); }
API CUresult cuMemsetD32Async_ptsz(dptr d, unsigned int c, size_t n, void *st) { return SET(4, st, 1); }
API CUresult cuMemsetD16_v2(dptr d, unsigned short c, size_t n) { return SET(2, NULL, 0); }
API CUresult cuMemsetD16_v2_ptds(dptr d, unsigned short c, size_t n) { return SET(2, NULL, 1); }
API CUresult cuMemsetD16Async(dptr d, unsigned short c, size_t n, void *st) { return SET(2, st, 0); }
API CUresult cuMemsetD16Async_ptsz(dptr d, unsigned short c, size_t n, void *st) { return SET(2, st, 1); }
/* Pitched sets: h rows of w elements, pitch bytes apart. */
static CUresult set2d(dptr d, size_t pitch, unsigned v, int size, size_t w, size_t h, void *st,
		      int ptsz)
{
	if (!d || pitch < w * (size_t)size)
		return E_INVALID;
	for (size_t y = 0; y < h; y++)
		for (size_t i = 0; i < w; i++)
			memcpy((char *)(uintptr_t)d + y * pitch + i * (size_t)size, &v, (size_t)size);
	log_copy(w * h * (size_t)size, 0, st, ptsz);
	return OK;
}
#define SET2D(size, st, ptsz) (fails(__func__) ? watch_result : \
	done(__func__, set2d(d, pitch, c, size, w, h, st, ptsz)))
API CUresult cuMemsetD2D8_v2(dptr d, size_t pitch, unsigned char c, size_t w, size_t h) { return SET2D(1, NULL, 0); }
API CUresult cuMemsetD2D8_v2_ptds(dptr d, size_t pitch, unsigned char c, size_t w, size_t h) { return SET2D(1, NULL, 1); }
API CUresult cuMemsetD2D16_v2(dptr d, size_t pitch, unsigned short c, size_t w, size_t h) { return SET2D(2, NULL, 0); }
API CUresult cuMemsetD2D16_v2_ptds(dptr d, size_t pitch, unsigned short c, size_t w, size_t h) { return SET2D(2, NULL, 1); }
API CUresult cuMemsetD2D32_v2(dptr d, size_t pitch, unsigned int c, size_t w, size_t h) { return SET2D(4, NULL, 0); }
API CUresult cuMemsetD2D32_v2_ptds(dptr d, size_t pitch, unsigned int c, size_t w, size_t h) { return SET2D(4, NULL, 1); }
API CUresult cuMemsetD2D8Async(dptr d, size_t pitch, unsigned char c, size_t w, size_t h, void *st) { return SET2D(1, st, 0); }
API CUresult cuMemsetD2D8Async_ptsz(dptr d, size_t pitch, unsigned char c, size_t w, size_t h, void *st) { return SET2D(1, st, 1); }
API CUresult cuMemsetD2D16Async(dptr d, size_t pitch, unsigned short c, size_t w, size_t h, void *st) { return SET2D(2, st, 0); }
API CUresult cuMemsetD2D16Async_ptsz(dptr d, size_t pitch, unsigned short c, size_t w, size_t h, void *st) { return SET2D(2, st, 1); }
API CUresult cuMemsetD2D32Async(dptr d, size_t pitch, unsigned int c, size_t w, size_t h, void *st) { return SET2D(4, st, 0); }
API CUresult cuMemsetD2D32Async_ptsz(dptr d, size_t pitch, unsigned int c, size_t w, size_t h, void *st) { return SET2D(4, st, 1); }

/* A batch of copies (cuMemcpyBatchAsync): refused as the driver does
 * without copies or attributes, or on the legacy stream; the copies run in
 * pairs, each pair one CUPTI report counting its two (CUPTI groups a
 * batch's copies as it sees fit); one log line for the batch, its bytes the
 * sum and its kind the one that moved the most bytes (as the recorder
 * writes it). */
static CUresult batch(dptr *dsts, dptr *srcs, size_t *sizes, size_t count, const void *attrs,
		      size_t nattrs, void *s, int ptsz)
{
	if (!dsts || !srcs || !sizes || !count || !attrs || !nattrs || nattrs > count ||
	    (!s && !ptsz) || s == (void *)0x1)
		return E_INVALID;
	uint64_t kind_bytes[5] = { 0 }, total = 0;
	int kinds[64];
	for (size_t j = 0; j < count; j++) {   /* type_of() takes mu */
		int dd = type_of((uintptr_t)dsts[j]) == MT_DEVICE, ds = type_of((uintptr_t)srcs[j]) == MT_DEVICE;
		if (j < 64)
			kinds[j] = dd ? (ds ? 3 : 1) : ds ? 2 : 4;
		kind_bytes[dd ? (ds ? 3 : 1) : ds ? 2 : 4] += sizes[j];
		memcpy((void *)(uintptr_t)dsts[j], (const void *)(uintptr_t)srcs[j], sizes[j]);
	}
	pthread_mutex_lock(&mu);
	struct fstream *st = resolve_stream(s, ptsz);
	for (size_t i = 0; i < count; i += 2) {
		uint64_t pair = sizes[i] + (i + 1 < count ? sizes[i + 1] : 0);
		run_copy(st, pair, kinds[i < 64 ? i : 63], count - i < 2 ? 1 : 2);
		total += pair;
	}
	int best = 1;
	for (int k = 2; k < 5; k++)
		if (kind_bytes[k] > kind_bytes[best])
			best = k;
	log_line(total, best, st);
	pthread_mutex_unlock(&mu);
	return OK;
}
#define BATCH_ARGS dptr *dsts, dptr *srcs, size_t *sizes, size_t count, void *attrs, size_t *attr_idx, size_t nattrs
#define BATCH(st, ptsz) (fails(__func__) ? watch_result : \
	((void)attr_idx, done(__func__, batch(dsts, srcs, sizes, count, attrs, nattrs, st, ptsz))))
API CUresult cuMemcpyBatchAsync(BATCH_ARGS, size_t *fail_idx, void *st) { (void)fail_idx; return BATCH(st, 0); }
API CUresult cuMemcpyBatchAsync_ptsz(BATCH_ARGS, size_t *fail_idx, void *st) { (void)fail_idx; return BATCH(st, 1); }
API CUresult cuMemcpyBatchAsync_v2(BATCH_ARGS, void *st) { return BATCH(st, 0); }
API CUresult cuMemcpyBatchAsync_v2_ptsz(BATCH_ARGS, void *st) { return BATCH(st, 1); }

/* Pitched copies (tests/cuda_copy.h): host and device sides by pointer and
 * pitch; arrays are refused.  A side's base address: host (1) or device (2) memory, the unified (4) as
 * its device pointer; 0 for an array or nothing */
static char *side(int type, const void *host, dptr dev)
{
	return type == MT_HOST ? (char *)(uintptr_t)host : type == MT_DEVICE || type == 4 ?
	       (char *)(uintptr_t)dev : NULL;
}
static CUresult pitched(char *s, size_t sp, size_t sslice, char *d, size_t dp, size_t dslice,
			size_t w, size_t h, size_t depth, int kind, void *st, int ptsz)
{
	if (!s || !d)
		return E_INVALID;
	for (size_t z = 0; z < depth; z++)
		for (size_t y = 0; y < h; y++)
			memcpy(d + z * dslice + y * dp, s + z * sslice + y * sp, w);
	log_copy((uint64_t)w * h * depth, kind, st, ptsz);
	return OK;
}
static int kind_of(int src_type, int dst_type)
{
	int ds = src_type != MT_HOST, dd = dst_type != MT_HOST;
	return dd ? (ds ? 3 : 1) : ds ? 2 : 4;
}
static CUresult copy2d(const struct cuda_copy2d *p, void *st, int ptsz)
{
	if (!p)
		return E_INVALID;
	char *s = side(p->src_type, p->src_host, p->src_dev), *d = side(p->dst_type, p->dst_host, p->dst_dev);
	return pitched(s ? s + p->src_y * p->src_pitch + p->src_x : NULL, p->src_pitch, 0,
		       d ? d + p->dst_y * p->dst_pitch + p->dst_x : NULL, p->dst_pitch, 0,
		       p->width, p->height, 1, kind_of(p->src_type, p->dst_type), st, ptsz);
}
static CUresult copy3d(const struct cuda_copy3d *p, void *st, int ptsz)
{
	if (!p)
		return E_INVALID;
	char *s = side(p->src_type, p->src_host, p->src_dev), *d = side(p->dst_type, p->dst_host, p->dst_dev);
	size_t ss = p->src_pitch * p->src_height, ds = p->dst_pitch * p->dst_height;
	return pitched(s ? s + p->src_z * ss + p->src_y * p->src_pitch + p->src_x : NULL, p->src_pitch, ss,
		       d ? d + p->dst_z * ds + p->dst_y * p->dst_pitch + p->dst_x : NULL, p->dst_pitch, ds,
		       p->width, p->height, p->depth, kind_of(p->src_type, p->dst_type), st, ptsz);
}
#define COPY2D(p, st, ptsz) (fails(__func__) ? watch_result : done(__func__, copy2d(p, st, ptsz)))
#define COPY3D(p, st, ptsz) (fails(__func__) ? watch_result : done(__func__, copy3d(p, st, ptsz)))
API CUresult cuMemcpy2D_v2(const struct cuda_copy2d *p) { return COPY2D(p, NULL, 0); }
API CUresult cuMemcpy2D_v2_ptds(const struct cuda_copy2d *p) { return COPY2D(p, NULL, 1); }
API CUresult cuMemcpy2DAsync_v2(const struct cuda_copy2d *p, void *st) { return COPY2D(p, st, 0); }
API CUresult cuMemcpy2DAsync_v2_ptsz(const struct cuda_copy2d *p, void *st) { return COPY2D(p, st, 1); }
API CUresult cuMemcpy2DUnaligned_v2(const struct cuda_copy2d *p) { return COPY2D(p, NULL, 0); }
API CUresult cuMemcpy2DUnaligned_v2_ptds(const struct cuda_copy2d *p) { return COPY2D(p, NULL, 1); }
API CUresult cuMemcpy3D_v2(const struct cuda_copy3d *p) { return COPY3D(p, NULL, 0); }
API CUresult cuMemcpy3D_v2_ptds(const struct cuda_copy3d *p) { return COPY3D(p, NULL, 1); }
API CUresult cuMemcpy3DAsync_v2(const struct cuda_copy3d *p, void *st) { return COPY3D(p, st, 0); }
API CUresult cuMemcpy3DAsync_v2_ptsz(const struct cuda_copy3d *p, void *st) { return COPY3D(p, st, 1); }
/* one process's two "GPUs": their contexts are not looked at */
API CUresult cuMemcpyPeer(dptr d, void *dc, dptr s, void *sc, size_t n) { (void)dc; (void)sc; return COPY(d, s, 3, NULL, 0); }
API CUresult cuMemcpyPeer_ptds(dptr d, void *dc, dptr s, void *sc, size_t n) { (void)dc; (void)sc; return COPY(d, s, 3, NULL, 1); }
API CUresult cuMemcpyPeerAsync(dptr d, void *dc, dptr s, void *sc, size_t n, void *st)
{
	(void)dc; (void)sc;
	return COPY(d, s, 3, st, 0);
}
API CUresult cuMemcpyPeerAsync_ptsz(dptr d, void *dc, dptr s, void *sc, size_t n, void *st)
{
	(void)dc; (void)sc;
	return COPY(d, s, 3, st, 1);
}
API CUresult cuDevicePrimaryCtxRelease_v2(int dev) { (void)dev; return fails(__func__) ? watch_result : done(__func__, OK); }
API CUresult cuDevicePrimaryCtxReset_v2(int dev)
{
	if (fails(__func__))
		return watch_result;
	if (dev >= 0 && dev < FAKE_DEVICES) {
		pthread_mutex_lock(&mu);
		ctx_gen[dev]++;
		pthread_mutex_unlock(&mu);
	}
	return done(__func__, OK);
}
API CUresult cuCtxDestroy_v2(void *ctx) { (void)ctx; return fails(__func__) ? watch_result : done(__func__, OK); }
API CUresult cuProfilerStart(void) { return fails(__func__) ? watch_result : done(__func__, OK); }
API CUresult cuProfilerStop(void) { return fails(__func__) ? watch_result : done(__func__, OK); }

/* ---- cuGetProcAddress ---------------------------------------------------------------- */

API CUresult cuGetProcAddress(const char *sym, void **pfn, int ver, unsigned long long flags);
API CUresult cuGetProcAddress_v2(const char *sym, void **pfn, int ver, unsigned long long flags,
				 int *status);

struct entry { const char *name; int ver; void *legacy, *ptsz; };
#define F(x) ((void *)(x))
static const struct entry table[] = {
	{ "cuInit", 2000, F(cuInit), NULL },
	{ "cuDriverGetVersion", 2020, F(cuDriverGetVersion), NULL },
	{ "cuDeviceGet", 2000, F(cuDeviceGet), NULL },
	{ "cuDeviceGetAttribute", 2000, F(cuDeviceGetAttribute), NULL },
	{ "cuModuleLoad", 2000, F(cuModuleLoad), NULL },
	{ "cuModuleGetFunction", 2000, F(cuModuleGetFunction), NULL },
	{ "cuModuleUnload", 2000, F(cuModuleUnload), NULL },
	{ "cuLibraryUnload", 12000, F(cuLibraryUnload), NULL },
	{ "cuFuncGetName", 12030, F(cuFuncGetName), NULL },
	{ "cuStreamCreate", 2000, F(cuStreamCreate), NULL },
	{ "cuStreamGetId", 12000, F(cuStreamGetId), F(cuStreamGetId_ptsz) },
	{ "cuStreamSynchronize", 2000, F(cuStreamSynchronize), F(cuStreamSynchronize_ptsz) },
	{ "cuDevicePrimaryCtxRetain", 7000, F(cuDevicePrimaryCtxRetain), NULL },
	{ "cuCtxSetCurrent", 4000, F(cuCtxSetCurrent), NULL },
	{ "cuCtxGetCurrent", 4000, F(cuCtxGetCurrent), NULL },
	{ "cuCtxSynchronize", 2000, F(cuCtxSynchronize), NULL },
	{ "cuCtxSynchronize", 13000, F(cuCtxSynchronize_v2), NULL },
	{ "cuEventCreate", 2000, F(cuEventCreate), NULL },
	{ "cuEventRecord", 2000, F(cuEventRecord), F(cuEventRecord_ptsz) },
	{ "cuEventSynchronize", 2000, F(cuEventSynchronize), NULL },
	{ "cuStreamWaitEvent", 3020, F(cuStreamWaitEvent), F(cuStreamWaitEvent_ptsz) },
	{ "cuLaunchKernel", 4000, F(cuLaunchKernel), F(cuLaunchKernel_ptsz) },
	{ "cuLaunchKernelEx", 11060, F(cuLaunchKernelEx), F(cuLaunchKernelEx_ptsz) },
	{ "cuLaunchCooperativeKernel", 9000, F(cuLaunchCooperativeKernel), F(cuLaunchCooperativeKernel_ptsz) },
	{ "cuGraphLaunch", 10000, F(cuGraphLaunch), F(cuGraphLaunch_ptsz) },
	{ "cuMemAlloc", 3020, F(cuMemAlloc_v2), NULL },
	{ "cuMemFree", 3020, F(cuMemFree_v2), NULL },
	{ "cuMemCreate", 10020, F(cuMemCreate), NULL },
	{ "cuMemRelease", 10020, F(cuMemRelease), NULL },
	{ "cuMemcpyHtoD", 3020, F(cuMemcpyHtoD_v2), F(cuMemcpyHtoD_v2_ptds) },
	{ "cuMemcpyDtoH", 3020, F(cuMemcpyDtoH_v2), F(cuMemcpyDtoH_v2_ptds) },
	{ "cuMemcpyHtoDAsync", 3020, F(cuMemcpyHtoDAsync_v2), F(cuMemcpyHtoDAsync_v2_ptsz) },
	{ "cuMemcpyDtoHAsync", 3020, F(cuMemcpyDtoHAsync_v2), F(cuMemcpyDtoHAsync_v2_ptsz) },
	{ "cuMemHostAlloc", 3020, F(cuMemHostAlloc), NULL },
	{ "cuMemFreeHost", 2000, F(cuMemFreeHost), NULL },
	{ "cuMemHostGetFlags", 2030, F(cuMemHostGetFlags), NULL },
	{ "cuPointerGetAttribute", 4000, F(cuPointerGetAttribute), NULL },
	{ "cuMemsetD8", 3020, F(cuMemsetD8_v2), F(cuMemsetD8_v2_ptds) },
	{ "cuMemsetD32", 3020, F(cuMemsetD32_v2), F(cuMemsetD32_v2_ptds) },
	{ "cuMemsetD8Async", 3020, F(cuMemsetD8Async), F(cuMemsetD8Async_ptsz) },
	{ "cuMemsetD32Async", 3020, F(cuMemsetD32Async), F(cuMemsetD32Async_ptsz) },
	{ "cuMemsetD16", 3020, F(cuMemsetD16_v2), F(cuMemsetD16_v2_ptds) },
	{ "cuMemsetD16Async", 3020, F(cuMemsetD16Async), F(cuMemsetD16Async_ptsz) },
	{ "cuMemcpyPeer", 4000, F(cuMemcpyPeer), F(cuMemcpyPeer_ptds) },
	{ "cuMemcpyPeerAsync", 4000, F(cuMemcpyPeerAsync), F(cuMemcpyPeerAsync_ptsz) },
	{ "cuMemcpy2D", 3020, F(cuMemcpy2D_v2), F(cuMemcpy2D_v2_ptds) },
	{ "cuMemcpy2DAsync", 3020, F(cuMemcpy2DAsync_v2), F(cuMemcpy2DAsync_v2_ptsz) },
	{ "cuMemcpy2DUnaligned", 3020, F(cuMemcpy2DUnaligned_v2), F(cuMemcpy2DUnaligned_v2_ptds) },
	{ "cuMemcpy3D", 3020, F(cuMemcpy3D_v2), F(cuMemcpy3D_v2_ptds) },
	{ "cuMemcpy3DAsync", 3020, F(cuMemcpy3DAsync_v2), F(cuMemcpy3DAsync_v2_ptsz) },
	{ "cuMemcpy", 4000, F(cuMemcpy), F(cuMemcpy_ptds) },
	{ "cuMemcpyAsync", 4000, F(cuMemcpyAsync), F(cuMemcpyAsync_ptsz) },
	{ "cuMemcpyDtoD", 3020, F(cuMemcpyDtoD_v2), F(cuMemcpyDtoD_v2_ptds) },
	{ "cuMemcpyDtoDAsync", 3020, F(cuMemcpyDtoDAsync_v2), F(cuMemcpyDtoDAsync_v2_ptsz) },
	{ "cuEventRecordWithFlags", 11010, F(cuEventRecordWithFlags), F(cuEventRecordWithFlags_ptsz) },
	{ "cuMemAllocAsync", 11020, F(cuMemAllocAsync), F(cuMemAllocAsync_ptsz) },
	{ "cuMemAllocFromPoolAsync", 11020, F(cuMemAllocFromPoolAsync), F(cuMemAllocFromPoolAsync_ptsz) },
	{ "cuMemsetD2D8", 3020, F(cuMemsetD2D8_v2), F(cuMemsetD2D8_v2_ptds) },
	{ "cuMemsetD2D16", 3020, F(cuMemsetD2D16_v2), F(cuMemsetD2D16_v2_ptds) },
	{ "cuMemsetD2D32", 3020, F(cuMemsetD2D32_v2), F(cuMemsetD2D32_v2_ptds) },
	{ "cuMemsetD2D8Async", 3020, F(cuMemsetD2D8Async), F(cuMemsetD2D8Async_ptsz) },
	{ "cuMemsetD2D16Async", 3020, F(cuMemsetD2D16Async), F(cuMemsetD2D16Async_ptsz) },
	{ "cuMemsetD2D32Async", 3020, F(cuMemsetD2D32Async), F(cuMemsetD2D32Async_ptsz) },
	{ "cuMemcpyBatchAsync", 12080, F(cuMemcpyBatchAsync), F(cuMemcpyBatchAsync_ptsz) },
	{ "cuMemcpyBatchAsync", 13000, F(cuMemcpyBatchAsync_v2), F(cuMemcpyBatchAsync_v2_ptsz) },
	{ "cuMemFreeAsync", 11020, F(cuMemFreeAsync), F(cuMemFreeAsync_ptsz) },
	{ "cuDevicePrimaryCtxReset", 11000, F(cuDevicePrimaryCtxReset_v2), NULL },
	{ "cuCtxDestroy", 4000, F(cuCtxDestroy_v2), NULL },
	{ "cuStreamBeginCapture", 10010, F(cuStreamBeginCapture_v2), F(cuStreamBeginCapture_v2_ptsz) },
	{ "cuStreamBeginCaptureToGraph", 12030, F(cuStreamBeginCaptureToGraph), F(cuStreamBeginCaptureToGraph_ptsz) },
	{ "cuStreamEndCapture", 10000, F(cuStreamEndCapture), F(cuStreamEndCapture_ptsz) },
	{ "cuStreamIsCapturing", 10000, F(cuStreamIsCapturing), F(cuStreamIsCapturing_ptsz) },
	{ "cuStreamGetCaptureInfo", 10010, F(cuStreamGetCaptureInfo), F(cuStreamGetCaptureInfo_ptsz) },
	{ "cuStreamGetCaptureInfo", 11030, F(cuStreamGetCaptureInfo_v2), F(cuStreamGetCaptureInfo_v2_ptsz) },
	{ "cuStreamGetCaptureInfo", 12030, F(cuStreamGetCaptureInfo_v3), F(cuStreamGetCaptureInfo_v3_ptsz) },
	{ "cuGraphCreate", 10000, F(cuGraphCreate), NULL },
	{ "cuGraphAddKernelNode", 12000, F(cuGraphAddKernelNode_v2), NULL },
	{ "cuGraphInstantiate", 11000, F(cuGraphInstantiate_v2), NULL },
	{ "cuGraphInstantiateWithFlags", 11040, F(cuGraphInstantiateWithFlags), NULL },
	{ "cuGraphInstantiateWithParams", 12000, F(cuGraphInstantiateWithParams), F(cuGraphInstantiateWithParams_ptsz) },
	{ "cuGraphExecUpdate", 10020, F(cuGraphExecUpdate), NULL },
	{ "cuGraphExecUpdate", 12000, F(cuGraphExecUpdate_v2), NULL },
	{ "cuGraphDestroy", 10000, F(cuGraphDestroy), NULL },
	{ "cuGraphExecDestroy", 10000, F(cuGraphExecDestroy), NULL },
	{ "cuDevicePrimaryCtxRelease", 11000, F(cuDevicePrimaryCtxRelease_v2), NULL },
	{ "cuProfilerStart", 4000, F(cuProfilerStart), NULL },
	{ "cuProfilerStop", 4000, F(cuProfilerStop), NULL },
};

static CUresult lookup(const char *sym, void **pfn, int ver, unsigned long long flags, int *status)
{
	if (status)
		*status = 1; /* CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND */
	if (!sym || !pfn)
		return E_INVALID;
	*pfn = NULL;
	if (strcmp(sym, "cuGetProcAddress") == 0) {
		/* 11030 asks for the 4-argument form, 12000 for the 5-argument one. */
		*pfn = ver >= 12000 ? F(cuGetProcAddress_v2) : F(cuGetProcAddress);
	} else {
		/* a name's entry of the highest version the caller's allows
		 * (cuCtxSynchronize has two signatures) */
		const struct entry *best = NULL;
		int named = 0;
		for (size_t i = 0; i < sizeof table / sizeof *table; i++)
			if (strcmp(table[i].name, sym) == 0) {
				named = 1;
				if (ver >= table[i].ver && (!best || table[i].ver > best->ver))
					best = &table[i];
			}
		if (named && !best) {
			if (status)
				*status = 2; /* VERSION_NOT_SUFFICIENT */
			return E_NOT_FOUND;
		}
		if (best)
			*pfn = (flags & 2) && best->ptsz ? best->ptsz : best->legacy;
	}
	if (!*pfn)
		return E_NOT_FOUND;
	if (status)
		*status = 0;
	return OK;
}

CUresult cuGetProcAddress(const char *sym, void **pfn, int ver, unsigned long long flags)
{
	return lookup(sym, pfn, ver, flags, NULL);
}

CUresult cuGetProcAddress_v2(const char *sym, void **pfn, int ver, unsigned long long flags,
			     int *status)
{
	return lookup(sym, pfn, ver, flags, status);
}

/* For tests: the fake's own function behind a name at a version (flags 2:
 * its per-thread-stream variant), to tell wrapped from real. */
API void *fake_cuda_real(const char *sym, int ver, unsigned long long flags);
void *fake_cuda_real(const char *sym, int ver, unsigned long long flags)
{
	void *p = NULL;
	lookup(sym, &p, ver, flags, NULL);
	return p;
}
