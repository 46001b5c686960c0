/*
 * shim_runtime.c - replays the CUDA runtime's driver lookup protocol.
 *
 * The real libcudart cannot run against a fake driver, so this program does
 * what it does: dlopen libcuda.so.1, dlsym cuGetProcAddress_v2, probe with
 * "", fetch cuGetProcAddress itself at 11030 (4-argument form) and 12000
 * (5-argument form), then every entry point through it, cuLaunchKernel at
 * (4000, 0) and (7000, per-thread stream), cuLaunchKernelEx at 11060.
 *
 *   shim_runtime basic [EXIT]   one launch of each kind, copies, syncs
 *   shim_runtime threads N M    N threads x M launches, concurrently
 *   shim_runtime churn N M      N threads one after another, M launches each
 *                               (a server's thread per request); prints the
 *                               growth of the address space from the end of
 *                               the first to the end of the last, in kB
 *   shim_runtime two-gpus K     K launches alternating between the primary
 *                               contexts of devices 0 and 1 (run with
 *                               FAKE_CUDA_DEVICE=1), each on a stream of its
 *                               device, from one thread (nn.DataParallel's
 *                               launches, a model split over two devices)
 *   shim_runtime reset K        K launches on a stream, the device's primary
 *                               context reset (cudaDeviceReset), K more on a
 *                               stream made after it
 *   shim_runtime handles N R    N distinct kernels (as many handles), each
 *                               launched once a round, R rounds; prints the
 *                               growth of the address space from the end of
 *                               the first round to the end of the last, kB
 *   shim_runtime handoff M      two threads taking turns, M launches each of
 *                               one kernel on the legacy stream (the main
 *                               and autograd threads of a PyTorch step)
 *   shim_runtime windows W K    W profiler windows of K launches each
 *   shim_runtime rewindow W K   W rounds of K launches of one kernel before
 *                               a profiler window and, 1 ms later, K inside it
 *   shim_runtime spaced K US    K launches, US microseconds apart, of two
 *                               kernels in turn on the legacy stream
 *   shim_runtime queued K MS    K launches of a kernel at once, MS ms of GPU
 *                               work in all (a queue deep as a GPU-bound
 *                               step's), then waits MS + 300 ms and syncs
 *   shim_runtime queued-release K MS  as queued, then releases the primary
 *                               context at once, as the runtime's exit
 *                               handler does, with the work still queued
 *   shim_runtime hang K         K launches, prints "ready", waits for a signal
 *   shim_runtime graph R        the basic launches, then R graph replays
 *   shim_runtime capture        2 launches into a stream capture, 1 after
 *   shim_runtime graphs         a capture of three kernels (two of one function,
 *                               other grids), instantiated (cuGraphInstantiate-
 *                               WithFlags) and replayed twice; the executable
 *                               graph and the graph destroyed; a capture of
 *                               another kernel, instantiated under the freed
 *                               handles (the fake hands them out again), replayed
 *                               once; both destroyed again, a graph built node by
 *                               node (cuGraphAddKernelNode) under the same
 *                               handles, replayed once; a kernel after each replay
 *   shim_runtime capture-busy MS a capture in the global mode held open MS ms
 *                               while kernels launch every ms on another
 *                               stream (their events are harvested meanwhile);
 *                               exits 4 when cuStreamEndCapture says the
 *                               capture was invalidated
 *   shim_runtime hostmem        copies to and from pageable and page-locked
 *                               host memory after a kernel
 *   shim_runtime batch N        two batches of N copies (cuMemcpyBatchAsync
 *                               at 13.0 and at 12.8)
 *   shim_runtime unload         a kernel, its module unloaded, another
 *                               module's kernel under the same handle
 *   shim_runtime calls          every driver entry point the recorder hooks,
 *                               each variant, once succeeding and once
 *                               failing (see calls() below)
 *
 * Exits with EXIT (default 0), or 3 if a driver call failed.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/cuda_copy.h"

typedef int (*gp5_fn)(const char *, void **, int, unsigned long long, int *);
typedef int (*gp4_fn)(const char *, void **, int, unsigned long long);
typedef int (*init_fn)(unsigned);
typedef int (*mod_load_fn)(void **, const char *);
typedef int (*get_func_fn)(void **, void *, const char *);
typedef int (*stream_create_fn)(void **, unsigned);
typedef int (*stream_fn)(void *);
typedef int (*void_fn)(void);
typedef int (*ctx_fn)(void *);
typedef int (*alloc_fn)(unsigned long long *, size_t);
typedef int (*htod_fn)(unsigned long long, const void *, size_t);
typedef int (*dtoh_fn)(void *, unsigned long long, size_t);
typedef int (*launch_fn)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
			 unsigned, void *, void **, void **);
typedef int (*coop_fn)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
		       unsigned, void *, void **);
struct attr { int id; int pad; union { char raw[64]; struct { unsigned x, y, z; } cluster; } v; };
struct config { unsigned gx, gy, gz, bx, by, bz, smem; void *stream; struct attr *attrs; unsigned n; };
typedef int (*launch_ex_fn)(const struct config *, void *, void **, void **);
/* stream capture and graphs: cuStreamBeginCapture_v2, cuStreamEndCapture,
 * cuGraphInstantiateWithFlags, cuGraphLaunch, the destroys */
typedef int (*begin_fn)(void *, int);
typedef int (*end_fn)(void *, void **);
typedef int (*instantiate_fn)(void **, void *, unsigned long long);
typedef int (*replay_fn)(void *, void *);
typedef int (*destroy_fn)(void *);

static gp5_fn gp;
static void *mod;
static get_func_fn get_func;
static launch_fn lk, lk_ptsz;
static stream_create_fn stream_create;
static stream_fn stream_sync_ptsz;

static void *fetch(const char *sym, int ver, unsigned long long flags)
{
	void *p = NULL;
	int status = -1;
	if (gp(sym, &p, ver, flags, &status) != 0 || !p || status != 0) {
		fprintf(stderr, "shim_runtime: cannot fetch %s at %d\n", sym, ver);
		exit(3);
	}
	return p;
}

static void *func(const char *name)
{
	void *f = NULL;
	if (get_func(&f, mod, name) != 0) {
		fprintf(stderr, "shim_runtime: no function %s\n", name);
		exit(3);
	}
	return f;
}

#define CHECK(x) do { if ((x) != 0) { fprintf(stderr, "shim_runtime: %s failed\n", #x); exit(3); } } while (0)

static void *worker(void *arg)
{
	long m = (long)(intptr_t)arg;
	void *s;
	CHECK(stream_create(&s, 0));
	void *f = func("thread_kernel");
	void *g = func("thread_kernel_ptsz");
	for (long i = 0; i < m; i++) {
		unsigned gx = 1 + (unsigned)(i % 13);
		if (i % 2)
			CHECK(lk(f, gx, 1, 1, 64, 1, 1, 0, s, NULL, NULL));
		else
			CHECK(lk_ptsz(g, gx, 2, 1, 32, 1, 1, 128, NULL, NULL, NULL));
	}
	CHECK(stream_sync_ptsz(NULL));
	return NULL;
}

/* The process's address space (VmSize of /proc/self/status), kB; -1 when
 * unreadable. */
static long vm_size_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "VmSize: %ld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

static pthread_mutex_t turn_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_cv = PTHREAD_COND_INITIALIZER;
static long turn;

struct handoff { int me; long m; };

static void *taking_turns(void *arg)
{
	const struct handoff *h = arg;
	void *f = func("turn_kernel");
	for (long i = 0; i < h->m; i++) {
		pthread_mutex_lock(&turn_mu);
		while (turn % 2 != h->me)
			pthread_cond_wait(&turn_cv, &turn_mu);
		CHECK(lk(f, 3, 1, 1, 64, 1, 1, 0, NULL, NULL, NULL));
		turn++;
		pthread_cond_broadcast(&turn_cv);
		pthread_mutex_unlock(&turn_mu);
	}
	return NULL;
}

/* ---- calls ------------------------------------------------------------
 *
 * Every driver entry point the recorder hooks, legacy and per-thread
 * variant, fetched through cuGetProcAddress: the pointer must be the
 * recorder's, not the fake's.  Each call is watched by the fake
 * (fake_cuda_watch): it must reach the fake's entry point of that
 * variant, which must see the errno the caller left (CALLER_ERRNO); the
 * caller must get the fake's result and the errno the fake left
 * (FAKE_CUDA_ERRNO).  The first pass lets every call run, the second makes
 * every one fail with INJECTED; copies and sets must have copied and set.
 * What the trace must hold (shim_test.sh checks it): every copy and set of
 * the first pass (its bytes say which), none of the second; a kernel per
 * launch of the first pass; the synchronizations of both passes, but event
 * records only of the first; the most device memory held, 21 MiB + 8 KiB
 * (the first pass's allocations; the second's, of 100 MiB each, failed).
 */
#define CALLER_ERRNO 33     /* EDOM: what the program leaves in errno   */
#define FAKE_CUDA_ERRNO 121 /* what the fake's entry point leaves        */
#define INJECTED 719        /* CUDA_ERROR_LAUNCH_FAILED                 */

static void (*fake_watch)(const char *, int);
static int (*fake_watched_errno)(void);
static void *(*fake_real)(const char *, int, unsigned long long);
static const char *watching;
static int failing, call_errors;

/* The next call must reach the fake's entry point named fake. */
static void expect(const char *fake)
{
	watching = fake;
	fake_watch(fake, failing ? INJECTED : 0);
	errno = CALLER_ERRNO;
}

/* What that call returned. */
static void got(int r)
{
	int e = errno, seen = fake_watched_errno(), want = failing ? INJECTED : 0;
	if (r != want || e != FAKE_CUDA_ERRNO || seen != CALLER_ERRNO) {
		fprintf(stderr, "shim_runtime: %s%s: result %d (want %d), errno %d (want %d), "
			"the driver saw errno %d (want %d)\n", watching, failing ? " failing" : "", r,
			want, e, FAKE_CUDA_ERRNO, seen, CALLER_ERRNO);
		call_errors++;
	}
}

/* The entry point sym at version ver, variant (flags 2: per-thread
 * stream), as the recorder hands it out. */
static void *hooked(const char *sym, int ver, unsigned long long flags)
{
	void *p = fetch(sym, ver, flags);
	if (p == fake_real(sym, ver, flags)) {
		fprintf(stderr, "shim_runtime: %s (flags %llu) is not wrapped\n", sym, flags);
		call_errors++;
	}
	return p;
}

/* After a copy of the first pass: dst holds n bytes of src. */
static void copied(const void *dst, const void *src, size_t n)
{
	if (!failing && memcmp(dst, src, n) != 0) {
		fprintf(stderr, "shim_runtime: %s did not copy %zu bytes\n", watching, n);
		call_errors++;
	}
}

static void bytes_are(const void *p, int c, size_t n, const char *what)
{
	for (size_t i = 0; i < n; i++)
		if (((const unsigned char *)p)[i] != (unsigned char)c) {
			fprintf(stderr, "shim_runtime: %s: byte %zu is %d, not %d\n", what, i,
				((const unsigned char *)p)[i], c);
			call_errors++;
			return;
		}
}

typedef unsigned long long dptr;
typedef int (*dd_fn)(dptr, dptr, size_t);
typedef int (*dd_async_fn)(dptr, dptr, size_t, void *);
typedef int (*htod_async_fn)(dptr, const void *, size_t, void *);
typedef int (*dtoh_async_fn)(void *, dptr, size_t, void *);
typedef int (*set8_fn)(dptr, unsigned char, size_t);
typedef int (*set32_fn)(dptr, unsigned int, size_t);
typedef int (*set8_async_fn)(dptr, unsigned char, size_t, void *);
typedef int (*set32_async_fn)(dptr, unsigned int, size_t, void *);
typedef int (*set16_fn)(dptr, unsigned short, size_t);
typedef int (*set16_async_fn)(dptr, unsigned short, size_t, void *);
typedef int (*peer_fn)(dptr, void *, dptr, void *, size_t);
typedef int (*peer_async_fn)(dptr, void *, dptr, void *, size_t, void *);
typedef int (*copy2d_fn)(const struct cuda_copy2d *);
typedef int (*copy2d_async_fn)(const struct cuda_copy2d *, void *);
typedef int (*copy3d_fn)(const struct cuda_copy3d *);
typedef int (*copy3d_async_fn)(const struct cuda_copy3d *, void *);
typedef int (*set2d8_fn)(dptr, size_t, unsigned char, size_t, size_t);
typedef int (*set2d16_fn)(dptr, size_t, unsigned short, size_t, size_t);
typedef int (*set2d32_fn)(dptr, size_t, unsigned int, size_t, size_t);
typedef int (*set2d8_async_fn)(dptr, size_t, unsigned char, size_t, size_t, void *);
typedef int (*set2d16_async_fn)(dptr, size_t, unsigned short, size_t, size_t, void *);
typedef int (*set2d32_async_fn)(dptr, size_t, unsigned int, size_t, size_t, void *);
/* cuda.h's CUmemcpyAttributes: source access order, two locations, flags */
struct copy_attr { int order; struct { int type, id; } src_loc, dst_loc; unsigned flags; };
typedef int (*batch_fn)(dptr *, dptr *, size_t *, size_t, struct copy_attr *, size_t *, size_t, size_t *,
			void *);
typedef int (*batch_v2_fn)(dptr *, dptr *, size_t *, size_t, struct copy_attr *, size_t *, size_t, void *);
enum { MEM_HOST = CUDA_COPY_HOST, MEM_DEVICE = CUDA_COPY_DEVICE, MEM_UNIFIED = CUDA_COPY_UNIFIED };

/* A 2D copy of width x height bytes, rows pitch apart on both sides. */
static struct cuda_copy2d c2d(int st, const void *sh, dptr sd, int dt, void *dh, dptr dd, size_t w, size_t h,
			 size_t pitch)
{
	struct cuda_copy2d c;
	memset(&c, 0, sizeof c);
	c.src_type = st, c.src_host = sh, c.src_dev = sd, c.src_pitch = pitch;
	c.dst_type = dt, c.dst_host = dh, c.dst_dev = dd, c.dst_pitch = pitch;
	c.width = w, c.height = h;
	return c;
}

/* A 3D copy of width x height x depth bytes, packed rows and slices. */
static struct cuda_copy3d c3d(int st, const void *sh, dptr sd, int dt, void *dh, dptr dd, size_t w, size_t h,
			 size_t d)
{
	struct cuda_copy3d c;
	memset(&c, 0, sizeof c);
	c.src_type = st, c.src_host = sh, c.src_dev = sd, c.src_pitch = w, c.src_height = h;
	c.dst_type = dt, c.dst_host = dh, c.dst_dev = dd, c.dst_pitch = w, c.dst_height = h;
	c.width = w, c.height = h, c.depth = d;
	return c;
}
typedef int (*event_fn)(void *);
typedef int (*wait_fn)(void *, void *, unsigned);
typedef int (*record_fn)(void *, void *);
typedef int (*record_flags_fn)(void *, void *, unsigned);
typedef int (*free_fn)(dptr);
typedef int (*alloc_async_fn)(dptr *, size_t, void *);
typedef int (*alloc_pool_fn)(dptr *, size_t, void *, void *);
typedef int (*free_async_fn)(dptr, void *);
struct memprop { int type, handles; struct { int type, id; } location; void *win32; unsigned char flags[8]; };
typedef int (*create_fn)(unsigned long long *, size_t, const struct memprop *, unsigned long long);
typedef int (*release_fn)(unsigned long long);
typedef int (*graph_fn)(void *, void *);
typedef int (*device_fn)(int);
typedef int (*ctx_fn)(void *);

static void calls(void)
{
	alloc_fn alloc = fetch("cuMemAlloc", 3020, 0);
	typedef int (*host_alloc_fn)(void **, size_t, unsigned);
	host_alloc_fn host_alloc = fetch("cuMemHostAlloc", 3020, 0);
	typedef int (*ev_create_fn)(void **, unsigned);
	ev_create_fn ev_create = fetch("cuEventCreate", 2000, 0);
	void *s1, *e1, *pinned;
	dptr d1, d2;
	unsigned char host[4096];
	CHECK(stream_create(&s1, 0));
	CHECK(ev_create(&e1, 0));
	CHECK(alloc(&d1, 4096));
	CHECK(alloc(&d2, 4096));
	CHECK(host_alloc(&pinned, 4096, 0));
	unsigned char *m1 = (unsigned char *)(uintptr_t)d1, *m2 = (unsigned char *)(uintptr_t)d2;

	launch_fn lk0 = hooked("cuLaunchKernel", 4000, 0), lk1 = hooked("cuLaunchKernel", 7000, 2);
	coop_fn co0 = hooked("cuLaunchCooperativeKernel", 9000, 0);
	coop_fn co1 = hooked("cuLaunchCooperativeKernel", 9000, 2);
	launch_ex_fn ex0 = hooked("cuLaunchKernelEx", 11060, 0), ex1 = hooked("cuLaunchKernelEx", 11060, 2);
	graph_fn gr0 = hooked("cuGraphLaunch", 10000, 0), gr1 = hooked("cuGraphLaunch", 10000, 2);
	dd_fn cp0 = hooked("cuMemcpy", 4000, 0), cp1 = hooked("cuMemcpy", 4000, 2);
	dd_async_fn ca0 = hooked("cuMemcpyAsync", 4000, 0), ca1 = hooked("cuMemcpyAsync", 4000, 2);
	htod_fn hd0 = hooked("cuMemcpyHtoD", 3020, 0), hd1 = hooked("cuMemcpyHtoD", 3020, 2);
	dtoh_fn dh0 = hooked("cuMemcpyDtoH", 3020, 0), dh1 = hooked("cuMemcpyDtoH", 3020, 2);
	dd_fn dd0 = hooked("cuMemcpyDtoD", 3020, 0), dd1 = hooked("cuMemcpyDtoD", 3020, 2);
	htod_async_fn hda0 = hooked("cuMemcpyHtoDAsync", 3020, 0), hda1 = hooked("cuMemcpyHtoDAsync", 3020, 2);
	dtoh_async_fn dha0 = hooked("cuMemcpyDtoHAsync", 3020, 0), dha1 = hooked("cuMemcpyDtoHAsync", 3020, 2);
	dd_async_fn dda0 = hooked("cuMemcpyDtoDAsync", 3020, 0), dda1 = hooked("cuMemcpyDtoDAsync", 3020, 2);
	set8_fn s80 = hooked("cuMemsetD8", 3020, 0), s81 = hooked("cuMemsetD8", 3020, 2);
	set32_fn s320 = hooked("cuMemsetD32", 3020, 0), s321 = hooked("cuMemsetD32", 3020, 2);
	set8_async_fn s8a0 = hooked("cuMemsetD8Async", 3020, 0), s8a1 = hooked("cuMemsetD8Async", 3020, 2);
	set32_async_fn s32a0 = hooked("cuMemsetD32Async", 3020, 0);
	set32_async_fn s32a1 = hooked("cuMemsetD32Async", 3020, 2);
	set16_fn s160 = hooked("cuMemsetD16", 3020, 0), s161 = hooked("cuMemsetD16", 3020, 2);
	set16_async_fn s16a0 = hooked("cuMemsetD16Async", 3020, 0);
	set16_async_fn s16a1 = hooked("cuMemsetD16Async", 3020, 2);
	peer_fn pe0 = hooked("cuMemcpyPeer", 4000, 0), pe1 = hooked("cuMemcpyPeer", 4000, 2);
	peer_async_fn pea0 = hooked("cuMemcpyPeerAsync", 4000, 0);
	peer_async_fn pea1 = hooked("cuMemcpyPeerAsync", 4000, 2);
	copy2d_fn c2_0 = hooked("cuMemcpy2D", 3020, 0), c2_1 = hooked("cuMemcpy2D", 3020, 2);
	copy2d_async_fn c2a0 = hooked("cuMemcpy2DAsync", 3020, 0), c2a1 = hooked("cuMemcpy2DAsync", 3020, 2);
	copy2d_fn c2u0 = hooked("cuMemcpy2DUnaligned", 3020, 0), c2u1 = hooked("cuMemcpy2DUnaligned", 3020, 2);
	copy3d_fn c3_0 = hooked("cuMemcpy3D", 3020, 0), c3_1 = hooked("cuMemcpy3D", 3020, 2);
	copy3d_async_fn c3a0 = hooked("cuMemcpy3DAsync", 3020, 0), c3a1 = hooked("cuMemcpy3DAsync", 3020, 2);
	set2d8_fn s2d80 = hooked("cuMemsetD2D8", 3020, 0), s2d81 = hooked("cuMemsetD2D8", 3020, 2);
	set2d16_fn s2d160 = hooked("cuMemsetD2D16", 3020, 0), s2d161 = hooked("cuMemsetD2D16", 3020, 2);
	set2d32_fn s2d320 = hooked("cuMemsetD2D32", 3020, 0), s2d321 = hooked("cuMemsetD2D32", 3020, 2);
	set2d8_async_fn s2d8a0 = hooked("cuMemsetD2D8Async", 3020, 0);
	set2d8_async_fn s2d8a1 = hooked("cuMemsetD2D8Async", 3020, 2);
	set2d16_async_fn s2d16a0 = hooked("cuMemsetD2D16Async", 3020, 0);
	set2d16_async_fn s2d16a1 = hooked("cuMemsetD2D16Async", 3020, 2);
	set2d32_async_fn s2d32a0 = hooked("cuMemsetD2D32Async", 3020, 0);
	set2d32_async_fn s2d32a1 = hooked("cuMemsetD2D32Async", 3020, 2);
	batch_fn b0 = hooked("cuMemcpyBatchAsync", 12080, 0), b1 = hooked("cuMemcpyBatchAsync", 12080, 2);
	batch_v2_fn b2 = hooked("cuMemcpyBatchAsync", 13000, 0), b3 = hooked("cuMemcpyBatchAsync", 13000, 2);
	void_fn csync = hooked("cuCtxSynchronize", 2000, 0);
	ctx_fn csync2 = hooked("cuCtxSynchronize", 13000, 0);
	stream_fn ss0 = hooked("cuStreamSynchronize", 2000, 0), ss1 = hooked("cuStreamSynchronize", 7000, 2);
	event_fn es = hooked("cuEventSynchronize", 2000, 0);
	wait_fn we0 = hooked("cuStreamWaitEvent", 3020, 0), we1 = hooked("cuStreamWaitEvent", 7000, 2);
	record_fn er0 = hooked("cuEventRecord", 2000, 0), er1 = hooked("cuEventRecord", 7000, 2);
	record_flags_fn erf0 = hooked("cuEventRecordWithFlags", 11010, 0);
	record_flags_fn erf1 = hooked("cuEventRecordWithFlags", 11010, 2);
	alloc_fn ma = hooked("cuMemAlloc", 3020, 0);
	free_fn mf = hooked("cuMemFree", 3020, 0);
	alloc_async_fn maa0 = hooked("cuMemAllocAsync", 11020, 0), maa1 = hooked("cuMemAllocAsync", 11020, 2);
	alloc_pool_fn mpa0 = hooked("cuMemAllocFromPoolAsync", 11020, 0);
	alloc_pool_fn mpa1 = hooked("cuMemAllocFromPoolAsync", 11020, 2);
	free_async_fn mfa0 = hooked("cuMemFreeAsync", 11020, 0), mfa1 = hooked("cuMemFreeAsync", 11020, 2);
	create_fn mc = hooked("cuMemCreate", 10020, 0);
	release_fn mr = hooked("cuMemRelease", 10020, 0);
	void_fn pstart = hooked("cuProfilerStart", 4000, 0), pstop = hooked("cuProfilerStop", 4000, 0);
	device_fn prel = hooked("cuDevicePrimaryCtxRelease", 11000, 0);
	device_fn preset = hooked("cuDevicePrimaryCtxReset", 11000, 0);
	ctx_fn cdestroy = hooked("cuCtxDestroy", 4000, 0);
	ctx_fn munload = hooked("cuModuleUnload", 2000, 0), lunload = hooked("cuLibraryUnload", 12000, 0);
	mod_load_fn mload = fetch("cuModuleLoad", 2000, 0);

	struct attr a = { .id = 4 };
	a.v.cluster.x = 2;
	a.v.cluster.y = a.v.cluster.z = 1;
	struct config c = { 4, 1, 1, 64, 1, 1, 0, s1, &a, 1 }, cn = { 2, 2, 1, 32, 1, 1, 0, NULL, NULL, 0 };
	struct memprop dev = { 1, 0, { 1, 0 }, NULL, {0} };
	void *f[6] = { func("calls_launch"), func("calls_launch_ptsz"), func("calls_coop"),
		       func("calls_coop_ptsz"), func("calls_ex"), func("calls_ex_ptsz") };
	for (failing = 0; failing < 2; failing++) {
		expect("cuLaunchKernel"); got(lk0(f[0], 2, 1, 1, 32, 1, 1, 0, s1, NULL, NULL));
		expect("cuLaunchKernel_ptsz"); got(lk1(f[1], 3, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL));
		expect("cuLaunchCooperativeKernel"); got(co0(f[2], 4, 1, 1, 64, 1, 1, 0, s1, NULL));
		expect("cuLaunchCooperativeKernel_ptsz"); got(co1(f[3], 5, 1, 1, 64, 1, 1, 0, NULL, NULL));
		expect("cuLaunchKernelEx"); got(ex0(&c, f[4], NULL, NULL));
		expect("cuLaunchKernelEx_ptsz"); got(ex1(&cn, f[5], NULL, NULL));
		expect("cuGraphLaunch"); got(gr0((void *)0x5000, s1));
		expect("cuGraphLaunch_ptsz"); got(gr1((void *)0x5000, NULL));

		/* copies: bytes 101 to 116, first pass only; sets 117 to 124
		 * elements; each must have copied or set what it was asked to */
		memset(m1, 0x11, 4096);
		memset(m2, 0, 4096);
		memset(host, 0x33, sizeof host);
		memset(pinned, 0x22, 4096);
		expect("cuMemcpy"); got(cp0(d2, d1, 101)); copied(m2, m1, 101);
		expect("cuMemcpy_ptds"); got(cp1((dptr)(uintptr_t)host, d1, 102)); copied(host, m1, 102);
		expect("cuMemcpyAsync"); got(ca0(d1, (dptr)(uintptr_t)pinned, 103, s1)); copied(m1, pinned, 103);
		expect("cuMemcpyAsync_ptsz"); got(ca1(d2, d1, 104, NULL)); copied(m2, m1, 104);
		memset(host, 0x44, sizeof host);
		expect("cuMemcpyHtoD_v2"); got(hd0(d1, host, 105)); copied(m1, host, 105);
		expect("cuMemcpyHtoD_v2_ptds"); got(hd1(d2, pinned, 106)); copied(m2, pinned, 106);
		expect("cuMemcpyDtoH_v2"); got(dh0(pinned, d1, 107)); copied(pinned, m1, 107);
		expect("cuMemcpyDtoH_v2_ptds"); got(dh1(host, d2, 108)); copied(host, m2, 108);
		expect("cuMemcpyDtoD_v2"); got(dd0(d2, d1, 109)); copied(m2, m1, 109);
		memset(m2, 0x55, 4096);
		expect("cuMemcpyDtoD_v2_ptds"); got(dd1(d1, d2, 110)); copied(m1, m2, 110);
		memset(host, 0x66, sizeof host);
		expect("cuMemcpyHtoDAsync_v2"); got(hda0(d1, pinned, 111, s1)); copied(m1, pinned, 111);
		expect("cuMemcpyHtoDAsync_v2_ptsz"); got(hda1(d1, host, 112, NULL)); copied(m1, host, 112);
		expect("cuMemcpyDtoHAsync_v2"); got(dha0(pinned, d2, 113, s1)); copied(pinned, m2, 113);
		expect("cuMemcpyDtoHAsync_v2_ptsz"); got(dha1(host, d2, 114, NULL)); copied(host, m2, 114);
		expect("cuMemcpyDtoDAsync_v2"); got(dda0(d2, d1, 115, s1)); copied(m2, m1, 115);
		memset(m1, 0x77, 4096);
		expect("cuMemcpyDtoDAsync_v2_ptsz"); got(dda1(d2, d1, 116, NULL)); copied(m2, m1, 116);
		expect("cuMemsetD8_v2"); got(s80(d1, 0x44, 117));
		expect("cuMemsetD8_v2_ptds"); got(s81(d1, 0x45, 118));
		expect("cuMemsetD32_v2"); got(s320(d2, 0x46464646u, 119));
		expect("cuMemsetD32_v2_ptds"); got(s321(d2, 0x47474747u, 120));
		if (!failing)
			bytes_are(m1, 0x45, 118, "cuMemsetD8_v2_ptds"), bytes_are(m2, 0x47, 480, "cuMemsetD32_v2_ptds");
		expect("cuMemsetD8Async"); got(s8a0(d1, 0x48, 121, s1));
		expect("cuMemsetD8Async_ptsz"); got(s8a1(d1, 0x49, 122, NULL));
		expect("cuMemsetD32Async"); got(s32a0(d2, 0x4a4a4a4au, 123, s1));
		expect("cuMemsetD32Async_ptsz"); got(s32a1(d2, 0x4b4b4b4bu, 124, NULL));
		if (!failing)
			bytes_are(m1, 0x49, 122, "cuMemsetD8Async_ptsz"), bytes_are(m2, 0x4b, 496, "cuMemsetD32Async_ptsz");
		/* peer copies 125 to 128 bytes, 16-bit sets 129 to 132 elements */
		memset(m1, 0x78, 4096);
		expect("cuMemcpyPeer"); got(pe0(d2, (void *)0xc1, d1, (void *)0xc2, 125)); copied(m2, m1, 125);
		expect("cuMemcpyPeer_ptds"); got(pe1(d1, (void *)0xc2, d2, (void *)0xc1, 126)); copied(m1, m2, 126);
		expect("cuMemcpyPeerAsync"); got(pea0(d2, (void *)0xc1, d1, (void *)0xc2, 127, s1));
		copied(m2, m1, 127);
		memset(m1, 0x79, 4096);
		expect("cuMemcpyPeerAsync_ptsz"); got(pea1(d2, (void *)0xc1, d1, (void *)0xc2, 128, NULL));
		copied(m2, m1, 128);
		expect("cuMemsetD16_v2"); got(s160(d1, 0x4c4c, 129));
		expect("cuMemsetD16_v2_ptds"); got(s161(d1, 0x4d4d, 130));
		expect("cuMemsetD16Async"); got(s16a0(d2, 0x4e4e, 131, s1));
		expect("cuMemsetD16Async_ptsz"); got(s16a1(d2, 0x4f4f, 132, NULL));
		if (!failing)
			bytes_are(m1, 0x4d, 260, "cuMemsetD16_v2_ptds"), bytes_are(m2, 0x4f, 264, "cuMemsetD16Async_ptsz");
		/* pitched copies, 48 to 59 bytes, their direction from the
		 * parameters' memory types (unified: the pointer's) */
		memset(host, 0x5a, sizeof host);
		memset(m1, 0x5b, 4096);
		struct cuda_copy2d p2;
		p2 = c2d(MEM_HOST, host, 0, MEM_DEVICE, NULL, d1, 16, 3, 32);
		expect("cuMemcpy2D_v2"); got(c2_0(&p2)); copied(m1, host, 16);
		p2 = c2d(MEM_DEVICE, NULL, d1, MEM_DEVICE, NULL, d2, 7, 7, 7);
		expect("cuMemcpy2D_v2_ptds"); got(c2_1(&p2)); copied(m2, m1, 49);
		p2 = c2d(MEM_DEVICE, NULL, d2, MEM_HOST, NULL, 0, 10, 5, 10);
		p2.dst_host = pinned;
		expect("cuMemcpy2DAsync_v2"); got(c2a0(&p2, s1)); copied(pinned, m2, 50);
		p2 = c2d(MEM_UNIFIED, NULL, d1, MEM_UNIFIED, NULL, d2, 17, 3, 17);
		expect("cuMemcpy2DAsync_v2_ptsz"); got(c2a1(&p2, NULL)); copied(m2, m1, 51);
		p2 = c2d(MEM_DEVICE, NULL, d1, MEM_DEVICE, NULL, d2, 13, 4, 13);
		expect("cuMemcpy2DUnaligned_v2"); got(c2u0(&p2));
		p2 = c2d(MEM_HOST, pinned, 0, MEM_DEVICE, NULL, d1, 53, 1, 53);
		expect("cuMemcpy2DUnaligned_v2_ptds"); got(c2u1(&p2)); copied(m1, pinned, 53);
		struct cuda_copy3d p3;
		p3 = c3d(MEM_HOST, host, 0, MEM_DEVICE, NULL, d2, 4, 2, 7);
		expect("cuMemcpy3D_v2"); got(c3_0(&p3)); copied(m2, host, 56);
		p3 = c3d(MEM_DEVICE, NULL, d1, MEM_DEVICE, NULL, d2, 57, 1, 1);
		expect("cuMemcpy3D_v2_ptds"); got(c3_1(&p3)); copied(m2, m1, 57);
		p3 = c3d(MEM_DEVICE, NULL, d1, MEM_HOST, NULL, 0, 58, 1, 1);
		p3.dst_host = pinned;
		expect("cuMemcpy3DAsync_v2"); got(c3a0(&p3, s1)); copied(pinned, m1, 58);
		p3 = c3d(MEM_DEVICE, NULL, d2, MEM_DEVICE, NULL, d1, 59, 1, 1);
		expect("cuMemcpy3DAsync_v2_ptsz"); got(c3a1(&p3, NULL)); copied(m1, m2, 59);
		/* pitched sets, 60 to 71 elements a row, two rows 1024 bytes
		 * apart (the bytes between them untouched) */
		memset(m1, 0, 4096);
		memset(m2, 0, 4096);
		expect("cuMemsetD2D8_v2"); got(s2d80(d1, 1024, 0x61, 60, 2));
		expect("cuMemsetD2D8_v2_ptds"); got(s2d81(d1, 1024, 0x62, 61, 2));
		if (!failing)
			bytes_are(m1, 0x62, 61, "cuMemsetD2D8_v2_ptds"), bytes_are(m1 + 1024, 0x62, 61, "row 2"),
			bytes_are(m1 + 61, 0, 1024 - 61, "between the rows");
		expect("cuMemsetD2D16_v2"); got(s2d160(d2, 1024, 0x6363, 62, 2));
		expect("cuMemsetD2D16_v2_ptds"); got(s2d161(d2, 1024, 0x6464, 63, 2));
		expect("cuMemsetD2D32_v2"); got(s2d320(d1, 1024, 0x65656565u, 64, 2));
		expect("cuMemsetD2D32_v2_ptds"); got(s2d321(d1, 1024, 0x66666666u, 65, 2));
		if (!failing)
			bytes_are(m2 + 1024, 0x64, 126, "cuMemsetD2D16_v2_ptds"),
			bytes_are(m1 + 1024, 0x66, 260, "cuMemsetD2D32_v2_ptds");
		expect("cuMemsetD2D8Async"); got(s2d8a0(d1, 1024, 0x67, 66, 2, s1));
		expect("cuMemsetD2D8Async_ptsz"); got(s2d8a1(d1, 1024, 0x68, 67, 2, NULL));
		expect("cuMemsetD2D16Async"); got(s2d16a0(d2, 1024, 0x6969, 68, 2, s1));
		expect("cuMemsetD2D16Async_ptsz"); got(s2d16a1(d2, 1024, 0x6a6a, 69, 2, NULL));
		expect("cuMemsetD2D32Async"); got(s2d32a0(d1, 1024, 0x6b6b6b6bu, 70, 2, s1));
		expect("cuMemsetD2D32Async_ptsz"); got(s2d32a1(d1, 1024, 0x6c6c6c6cu, 71, 2, NULL));
		if (!failing)
			bytes_are(m2 + 1024, 0x6a, 138, "cuMemsetD2D16Async_ptsz"),
			bytes_are(m1 + 1024, 0x6c, 284, "cuMemsetD2D32Async_ptsz");
		/* batches of three copies: two device to device, one host to
		 * device; in the second and fourth the host copy moves the most */
		memset(m1, 0x7a, 4096);
		memset(host, 0x7b, sizeof host);
		dptr dsts[3] = { d2, d2 + 100, d2 + 200 }, srcs[3] = { d1, d1 + 100, (dptr)(uintptr_t)host };
		size_t sz[3] = { 20, 30, 40 }, first[1] = { 0 }, fail_idx = 0;
		struct copy_attr ca = { 1, { 0, 0 }, { 0, 0 }, 0 };
		expect("cuMemcpyBatchAsync"); got(b0(dsts, srcs, sz, 3, &ca, first, 1, &fail_idx, s1));
		copied(m2, m1, 20), copied(m2 + 100, m1 + 100, 30), copied(m2 + 200, host, 40);
		sz[2] = 60;
		expect("cuMemcpyBatchAsync_ptsz"); got(b1(dsts, srcs, sz, 3, &ca, first, 1, &fail_idx, NULL));
		copied(m2 + 200, host, 60);
		sz[0] = 21, sz[2] = 40;
		expect("cuMemcpyBatchAsync_v2"); got(b2(dsts, srcs, sz, 3, &ca, first, 1, s1));
		sz[0] = 20, sz[2] = 61;
		expect("cuMemcpyBatchAsync_v2_ptsz"); got(b3(dsts, srcs, sz, 3, &ca, first, 1, NULL));
		copied(m2 + 200, host, 61);

		expect("cuCtxSynchronize"); got(csync());
		expect("cuCtxSynchronize_v2"); got(csync2((void *)0xc7c7));
		expect("cuStreamSynchronize"); got(ss0(s1));
		expect("cuStreamSynchronize_ptsz"); got(ss1(NULL));
		expect("cuEventSynchronize"); got(es(e1));
		expect("cuStreamWaitEvent"); got(we0(s1, e1, 0));
		expect("cuStreamWaitEvent_ptsz"); got(we1(NULL, e1, 0));
		expect("cuEventRecord"); got(er0(e1, s1));
		expect("cuEventRecord_ptsz"); got(er1(e1, NULL));
		expect("cuEventRecordWithFlags"); got(erf0(e1, s1, 0));
		expect("cuEventRecordWithFlags_ptsz"); got(erf1(e1, NULL, 0));

		/* the pointers keep the first pass's values: a failed
		 * allocation counted would count 100 MiB */
		static dptr pa, pb, pc;
		static unsigned long long ph;
		size_t mib = failing ? 100u << 20 : 1u << 20;
		expect("cuMemAlloc_v2"); got(ma(&pa, 1 * mib));
		expect("cuMemAllocAsync"); got(maa0(&pb, 2 * mib, s1));
		expect("cuMemAllocAsync_ptsz"); got(maa1(&pc, 3 * mib, NULL));
		expect("cuMemCreate"); got(mc(&ph, 4 * mib, &dev, 0));
		static dptr pd, pe;
		expect("cuMemAllocFromPoolAsync"); got(mpa0(&pd, 5 * mib, (void *)0x9000, s1));
		expect("cuMemAllocFromPoolAsync_ptsz"); got(mpa1(&pe, 6 * mib, (void *)0x9000, NULL));
		expect("cuMemFreeAsync"); got(mfa0(pe, s1));
		expect("cuMemFreeAsync_ptsz"); got(mfa1(pd, NULL));
		expect("cuMemRelease"); got(mr(ph));
		expect("cuMemFreeAsync_ptsz"); got(mfa1(pc, NULL));
		expect("cuMemFreeAsync"); got(mfa0(pb, s1));
		expect("cuMemFree_v2"); got(mf(pa));
	}
	/* graphs: a capture begun into a graph and ended (on s1, then on the
	 * thread's stream), the graph instantiated each way, one executable
	 * graph updated, all destroyed; none leaves a record */
	struct inst_params { unsigned long long flags; void *upload, *err_node; int result; };
	struct update_info { int result; void *err_node, *err_from; };
	typedef int (*to_graph_fn)(void *, void *, const void *, const void *, size_t, int);
	typedef int (*inst_flags_fn)(void **, void *, unsigned long long);
	typedef int (*inst_params_fn)(void **, void *, struct inst_params *);
	typedef int (*inst_v2_fn)(void **, void *, void **, char *, size_t);
	typedef int (*update_fn)(void *, void *, struct update_info *);
	typedef int (*graph_create_fn)(void **, unsigned);
	to_graph_fn tg0 = hooked("cuStreamBeginCaptureToGraph", 12030, 0);
	to_graph_fn tg1 = hooked("cuStreamBeginCaptureToGraph", 12030, 2);
	end_fn ec0 = hooked("cuStreamEndCapture", 10000, 0), ec1 = hooked("cuStreamEndCapture", 10000, 2);
	begin_fn bc0 = hooked("cuStreamBeginCapture", 10010, 0), bc1 = hooked("cuStreamBeginCapture", 10010, 2);
	inst_flags_fn ifl = hooked("cuGraphInstantiateWithFlags", 11040, 0);
	inst_params_fn ip0 = hooked("cuGraphInstantiateWithParams", 12000, 0);
	inst_params_fn ip1 = hooked("cuGraphInstantiateWithParams", 12000, 2);
	inst_v2_fn iv2 = hooked("cuGraphInstantiate", 11000, 0);
	update_fn up = hooked("cuGraphExecUpdate", 12000, 0);
	typedef int (*update_v1_fn)(void *, void *, void **, int *);
	update_v1_fn up1 = hooked("cuGraphExecUpdate", 11080, 0);
	ctx_fn gd = hooked("cuGraphDestroy", 10000, 0), xd = hooked("cuGraphExecDestroy", 10000, 0);
	graph_create_fn gcreate = fetch("cuGraphCreate", 10000, 0);
	for (failing = 0; failing < 2; failing++) {
		void *g0 = NULL, *g = NULL, *g1 = NULL, *x[4] = { NULL, NULL, NULL, NULL };
		struct inst_params ipar = { 0, NULL, NULL, -1 };
		struct update_info info = { -1, NULL, NULL };
		CHECK(gcreate(&g0, 0));
		expect("cuStreamBeginCaptureToGraph"); got(tg0(s1, g0, NULL, NULL, 0, 2));
		expect("cuStreamEndCapture"); got(ec0(s1, &g));
		expect("cuStreamBeginCaptureToGraph_ptsz"); got(tg1(NULL, g0, NULL, NULL, 0, 2));
		expect("cuStreamEndCapture_ptsz"); got(ec1(NULL, &g));
		if (!failing && g != g0) {
			fprintf(stderr, "shim_runtime: cuStreamEndCapture gave %p, not the graph %p\n", g, g0);
			call_errors++;
		}
		expect("cuStreamBeginCapture_v2"); got(bc0(s1, 2));
		expect("cuStreamEndCapture"); got(ec0(s1, &g1));
		expect("cuGraphDestroy"); got(gd(g1));
		expect("cuStreamBeginCapture_v2_ptsz"); got(bc1(NULL, 2));
		expect("cuStreamEndCapture_ptsz"); got(ec1(NULL, &g1));
		expect("cuGraphDestroy"); got(gd(g1));
		expect("cuGraphInstantiateWithFlags"); got(ifl(&x[0], g0, 0));
		expect("cuGraphInstantiateWithParams"); got(ip0(&x[1], g0, &ipar));
		expect("cuGraphInstantiateWithParams_ptsz"); got(ip1(&x[2], g0, &ipar));
		expect("cuGraphInstantiate_v2"); got(iv2(&x[3], g0, NULL, NULL, 0));
		expect("cuGraphExecUpdate_v2"); got(up(x[0], g0, &info));
		void *err_node = &err_node;
		int res1 = -1;
		expect("cuGraphExecUpdate"); got(up1(x[1], g0, &err_node, &res1));
		if (!failing && (ipar.result != 0 || info.result != 0 || res1 != 0 || err_node)) {
			fprintf(stderr, "shim_runtime: instantiate %d, update %d, 10.2's update %d\n", ipar.result,
				info.result, res1);
			call_errors++;
		}
		for (int i = 0; i < 4; i++) {
			expect("cuGraphExecDestroy"); got(xd(x[i]));
		}
		expect("cuGraphDestroy"); got(gd(g0));
	}
	for (failing = 0; failing < 2; failing++) {
		void *m;
		CHECK(mload(&m, "calls.cubin"));
		expect("cuModuleUnload"); got(munload(m));
		expect("cuLibraryUnload"); got(lunload((void *)0x7100));
	}
	for (failing = 0; failing < 2; failing++) {
		expect("cuProfilerStart"); got(pstart());
		expect("cuProfilerStop"); got(pstop());
	}
	for (failing = 0; failing < 2; failing++) {
		expect("cuDevicePrimaryCtxReset_v2"); got(preset(0));
		expect("cuCtxDestroy_v2"); got(cdestroy((void *)0x7000));
		expect("cuDevicePrimaryCtxRelease_v2"); got(prel(0));
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "basic";
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "shim_runtime: %s\n", dlerror());
		return 3;
	}
	gp5_fn gp_v2 = (gp5_fn)dlsym(h, "cuGetProcAddress_v2");
	if (!gp_v2)
		return 3;
	void *p = NULL;
	int status = 0;
	if (gp_v2("", &p, 13000, 0, &status) == 0) /* the probe must fail */
		return 3;
	gp4_fn gp4 = NULL;
	if (gp_v2("cuGetProcAddress", (void **)&gp4, 11030, 0, &status) != 0 || !gp4)
		return 3;
	if (gp_v2("cuGetProcAddress", (void **)&gp, 12000, 0, &status) != 0 || !gp)
		return 3;

	init_fn init = fetch("cuInit", 2000, 0);
	CHECK(init(0));
	mod_load_fn mod_load = fetch("cuModuleLoad", 2000, 0);
	get_func = fetch("cuModuleGetFunction", 2000, 0);
	CHECK(mod_load(&mod, "kernels.cubin"));
	stream_create = fetch("cuStreamCreate", 2000, 0);
	stream_sync_ptsz = fetch("cuStreamSynchronize", 7000, 2);
	stream_fn stream_sync = fetch("cuStreamSynchronize", 2000, 0);
	void_fn ctx_sync = fetch("cuCtxSynchronize", 2000, 0);
	lk = fetch("cuLaunchKernel", 4000, 0);
	lk_ptsz = fetch("cuLaunchKernel", 7000, 2);

	if (!strcmp(mode, "basic") || !strcmp(mode, "graph")) {
		launch_ex_fn lkex = fetch("cuLaunchKernelEx", 11060, 0);
		launch_ex_fn lkex_ptsz = fetch("cuLaunchKernelEx", 11060, 2);
		coop_fn coop = fetch("cuLaunchCooperativeKernel", 9000, 0);
		alloc_fn alloc = fetch("cuMemAlloc", 3020, 0);
		htod_fn htod = fetch("cuMemcpyHtoD", 3020, 0);
		dtoh_fn dtoh = fetch("cuMemcpyDtoH", 3020, 0);
		launch_fn lk4 = NULL, lkd = (launch_fn)dlsym(h, "cuLaunchKernel");
		CHECK(gp4("cuLaunchKernel", (void **)&lk4, 4000, 0));
		if (!lkd)
			return 3;
		void *s1;
		CHECK(stream_create(&s1, 0));
		CHECK(lk(func("legacy_null"), 2, 3, 4, 32, 1, 1, 0, NULL, NULL, NULL));
		CHECK(lk(func("legacy_stream"), 7, 1, 1, 128, 1, 1, 256, s1, NULL, NULL));
		CHECK(lk_ptsz(func("ptsz_null"), 5, 1, 1, 64, 2, 1, 0, NULL, NULL, NULL));
		struct attr a = { .id = 4 };
		a.v.cluster.x = 2;
		a.v.cluster.y = 1;
		a.v.cluster.z = 1;
		struct config c = { 8, 1, 1, 256, 1, 1, 1024, s1, &a, 1 };
		CHECK(lkex(&c, func("ex_cluster"), NULL, NULL));
		struct config c2 = { 3, 3, 1, 96, 1, 1, 0, NULL, NULL, 0 };
		CHECK(lkex_ptsz(&c2, func("ex_ptsz"), NULL, NULL));
		CHECK(coop(func("coop_kernel"), 4, 1, 1, 512, 1, 1, 0, s1, NULL));
		CHECK(lk4(func("via_getproc11030"), 9, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL));
		CHECK(lkd(func("via_dlsym"), 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
		unsigned long long d;
		char in[4096], out[4096];
		for (size_t i = 0; i < sizeof in; i++)
			in[i] = (char)(i * 7);
		CHECK(alloc(&d, sizeof in));
		CHECK(htod(d, in, sizeof in));
		CHECK(dtoh(out, d, sizeof out));
		if (memcmp(in, out, sizeof in) != 0)
			return 3;
		if (!strcmp(mode, "graph")) {
			typedef int (*graph_fn)(void *, void *);
			graph_fn replay = fetch("cuGraphLaunch", 10000, 0);
			int r = argc > 2 ? atoi(argv[2]) : 2;
			for (int i = 0; i < r; i++)
				CHECK(replay((void *)0x5000, s1));
		}
		CHECK(stream_sync(s1));
		CHECK(ctx_sync());
		/* What the runtime's exit handler does before ours runs. */
		typedef int (*release_fn)(int);
		release_fn release = fetch("cuDevicePrimaryCtxRelease", 11000, 0);
		CHECK(release(0));
		return !strcmp(mode, "basic") && argc > 2 ? atoi(argv[2]) : 0;
	}
	if (!strcmp(mode, "threads")) {
		int n = argc > 2 ? atoi(argv[2]) : 8;
		long m = argc > 3 ? atol(argv[3]) : 500;
		pthread_t th[64];
		if (n > 64)
			n = 64;
		for (int i = 0; i < n; i++)
			pthread_create(&th[i], NULL, worker, (void *)(intptr_t)m);
		for (int i = 0; i < n; i++)
			pthread_join(th[i], NULL);
		return 0;
	}
	if (!strcmp(mode, "two-gpus")) {
		typedef int (*retain_fn)(void **, int);
		typedef int (*set_fn)(void *);
		retain_fn retain = fetch("cuDevicePrimaryCtxRetain", 7000, 0);
		set_fn set_current = fetch("cuCtxSetCurrent", 4000, 0);
		int k = argc > 2 ? atoi(argv[2]) : 40;
		void *ctx[2], *s[2], *f[2];
		for (int d = 0; d < 2; d++) {
			CHECK(retain(&ctx[d], d));
			CHECK(set_current(ctx[d]));
			CHECK(stream_create(&s[d], 0));
			f[d] = func(d ? "gpu1_kernel" : "gpu0_kernel");
		}
		for (int i = 0; i < k; i++) {
			int d = i % 2;
			CHECK(set_current(ctx[d]));
			CHECK(lk(f[d], 1 + (unsigned)(i % 7), 1, 1, 64, 1, 1, 0, s[d], NULL, NULL));
		}
		for (int d = 0; d < 2; d++) {
			CHECK(set_current(ctx[d]));
			CHECK(ctx_sync());
		}
		return 0;
	}
	if (!strcmp(mode, "reset")) {
		typedef int (*reset_fn)(int);
		reset_fn reset = fetch("cuDevicePrimaryCtxReset", 11000, 0);
		int k = argc > 2 ? atoi(argv[2]) : 10;
		void *f = func("before_reset"), *g = func("after_reset"), *s;
		CHECK(stream_create(&s, 0));
		for (int i = 0; i < k; i++)
			CHECK(lk(f, 1 + (unsigned)i, 1, 1, 64, 1, 1, 0, s, NULL, NULL));
		CHECK(ctx_sync());
		CHECK(reset(0));
		CHECK(stream_create(&s, 0));
		for (int i = 0; i < k; i++)
			CHECK(lk(g, 1 + (unsigned)i, 1, 1, 64, 1, 1, 0, s, NULL, NULL));
		return ctx_sync();
	}
	if (!strcmp(mode, "handles")) {
		int n = argc > 2 ? atoi(argv[2]) : 20000, r = argc > 3 ? atoi(argv[3]) : 10;
		void **fs = calloc((size_t)n, sizeof *fs);
		void *s;
		if (!fs)
			return 3;
		CHECK(stream_create(&s, 0));
		for (int i = 0; i < n; i++) {
			char name[32];
			snprintf(name, sizeof name, "k%d", i);
			fs[i] = func(name);
		}
		long first_kb = 0;
		for (int round = 0; round < r; round++) {
			for (int i = 0; i < n; i++)
				CHECK(lk(fs[i], 1, 1, 1, 32, 1, 1, 0, s, NULL, NULL));
			if (round == 0)
				first_kb = vm_size_kb();
		}
		CHECK(ctx_sync());
		printf("vm_growth_kb %ld\n", vm_size_kb() - first_kb);
		return 0;
	}
	if (!strcmp(mode, "churn")) {
		int n = argc > 2 ? atoi(argv[2]) : 100;
		long m = argc > 3 ? atol(argv[3]) : 10;
		long first_kb = 0;
		for (int i = 0; i < n; i++) {
			pthread_t th;
			if (pthread_create(&th, NULL, worker, (void *)(intptr_t)m) != 0)
				return 3;
			pthread_join(th, NULL);
			if (i == 0)
				first_kb = vm_size_kb();
		}
		printf("vm_growth_kb %ld\n", vm_size_kb() - first_kb);
		return 0;
	}
	if (!strcmp(mode, "handoff")) {
		struct handoff a = { 0, argc > 2 ? atol(argv[2]) : 200 }, b = { 1, a.m };
		pthread_t ta, tb;
		pthread_create(&ta, NULL, taking_turns, &a);
		pthread_create(&tb, NULL, taking_turns, &b);
		pthread_join(ta, NULL);
		pthread_join(tb, NULL);
		return ctx_sync();
	}
	if (!strcmp(mode, "spaced")) {
		int k = argc > 2 ? atoi(argv[2]) : 10, us = argc > 3 ? atoi(argv[3]) : 1000;
		void *f[2] = { func("step_kernel"), func("turn_kernel") };
		for (int i = 0; i < k; i++) {
			CHECK(lk(f[i % 2], 2, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL));
			usleep((useconds_t)us);
		}
		return ctx_sync();
	}
	if (!strcmp(mode, "queued") || !strcmp(mode, "queued-release")) {
		int k = argc > 2 ? atoi(argv[2]) : 10, ms = argc > 3 ? atoi(argv[3]) : 600;
		/* the fake driver's kernel takes 1 us + 10 ns per block */
		unsigned blocks = (unsigned)((ms * 1000000ull / (unsigned)k - 1000) / 10);
		void *f = func("step_kernel");
		for (int i = 0; i < k; i++)
			CHECK(lk(f, blocks, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL));
		if (!strcmp(mode, "queued-release")) {
			typedef int (*release_fn)(int);
			release_fn release = fetch("cuDevicePrimaryCtxRelease", 11000, 0);
			return release(0) ? 3 : 0;
		}
		usleep((useconds_t)(ms + 300) * 1000);
		return ctx_sync();
	}
	if (!strcmp(mode, "rewindow")) {
		void_fn start = fetch("cuProfilerStart", 4000, 0), stop = fetch("cuProfilerStop", 4000, 0);
		int w = argc > 2 ? atoi(argv[2]) : 3, k = argc > 3 ? atoi(argv[3]) : 4;
		void *f = func("step_kernel");
		for (int i = 0; i < w; i++) {
			for (int j = 0; j < k; j++)
				CHECK(lk(f, 2, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL));
			CHECK(ctx_sync());
			usleep(1000); /* the host's work between steps */
			CHECK(start());
			for (int j = 0; j < k; j++)
				CHECK(lk(f, 2, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL));
			CHECK(ctx_sync());
			CHECK(stop());
		}
		return 0;
	}
	if (!strcmp(mode, "windows")) {
		void_fn start = fetch("cuProfilerStart", 4000, 0), stop = fetch("cuProfilerStop", 4000, 0);
		int w = argc > 2 ? atoi(argv[2]) : 5, k = argc > 3 ? atoi(argv[3]) : 3;
		char name[64];
		for (int i = 0; i < w; i++) {
			snprintf(name, sizeof name, "outside_%d", i);
			CHECK(lk(func(name), 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL));
			CHECK(start());
			snprintf(name, sizeof name, "iter_%d", i);
			for (int j = 0; j < k; j++)
				CHECK(lk(func(name), 2, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL));
			CHECK(ctx_sync());
			CHECK(stop());
		}
		return 0;
	}
	if (!strcmp(mode, "events")) {
		/* A kernel on s1, an event recorded after it (legacy and
		 * per-thread entry points), s2 waiting for it before its
		 * kernel, the CPU waiting for it: what PyTorch does between a
		 * side stream and the main one. */
		typedef int (*ev_create_fn)(void **, unsigned);
		typedef int (*ev_record_fn)(void *, void *);
		typedef int (*ev_wait_fn)(void *, void *, unsigned);
		typedef int (*ev_sync_fn)(void *);
		ev_create_fn ev_create = fetch("cuEventCreate", 2000, 0);
		ev_record_fn record = fetch("cuEventRecord", 2000, 0);
		ev_record_fn record_ptsz = fetch("cuEventRecord", 7000, 2);
		ev_wait_fn wait = fetch("cuStreamWaitEvent", 3020, 0);
		ev_sync_fn ev_sync = fetch("cuEventSynchronize", 2000, 0);
		void *s1, *s2, *e1, *e2;
		CHECK(stream_create(&s1, 0));
		CHECK(stream_create(&s2, 0));
		CHECK(ev_create(&e1, 0));
		CHECK(ev_create(&e2, 0));
		CHECK(lk(func("producer"), 64, 1, 1, 128, 1, 1, 0, s1, NULL, NULL));
		CHECK(record(e1, s1));
		CHECK(wait(s2, e1, 0));
		CHECK(lk(func("consumer"), 8, 1, 1, 128, 1, 1, 0, s2, NULL, NULL));
		CHECK(record_ptsz(e2, s2));
		CHECK(ev_sync(e2));
		/* Device memory held: 3 MiB, 8, 10 (a 2 MiB physical allocation
		 * of the virtual memory API; a 64 MiB one on the host does not
		 * count), 7, 8, 6, 1, 0: the peak is 10 MiB. */
		typedef int (*alloc_fn_t)(unsigned long long *, size_t);
		typedef int (*free_fn_t)(unsigned long long);
		/* CUmemAllocationProp's layout (cuda.h): type, handle types,
		 * location {type: 1 device, 2 host; id}, win32 data, flags */
		struct memprop { int type, handles; struct { int type, id; } location; void *win32;
				 unsigned char flags[8]; };
		typedef int (*create_fn_t)(unsigned long long *, size_t, const struct memprop *,
					   unsigned long long);
		alloc_fn_t alloc = fetch("cuMemAlloc", 3020, 0);
		free_fn_t release = fetch("cuMemFree", 3020, 0);
		create_fn_t create = fetch("cuMemCreate", 10020, 0);
		free_fn_t mem_release = fetch("cuMemRelease", 10020, 0);
		struct memprop dev = { 1, 0, { 1, 0 }, NULL, {0} }, host = { 1, 0, { 2, 0 }, NULL, {0} };
		unsigned long long a, b, c, hd, hh;
		CHECK(alloc(&a, 3u << 20));
		CHECK(alloc(&b, 5u << 20));
		CHECK(create(&hd, 2u << 20, &dev, 0));
		CHECK(create(&hh, 64u << 20, &host, 0));
		CHECK(release(a));
		CHECK(alloc(&c, 1u << 20));
		CHECK(mem_release(hd));
		CHECK(mem_release(hh));
		CHECK(release(b));
		CHECK(release(c));
		CHECK(ctx_sync());
		return 0;
	}
	if (!strcmp(mode, "hostmem")) {
		/* A step ended the way .item() ends one: a kernel, then an
		 * async copy of its result to pageable memory (the stack);
		 * then the same to page-locked memory (cuMemHostAlloc), from
		 * it to the device, and a synchronous one to pageable memory.
		 * The trace must say which host memory each copy touched. */
		typedef int (*dtoh_async_fn)(void *, unsigned long long, size_t, void *);
		typedef int (*htod_async_fn)(unsigned long long, const void *, size_t, void *);
		typedef int (*host_alloc_fn)(void **, size_t, unsigned);
		typedef int (*host_free_fn)(void *);
		alloc_fn alloc = fetch("cuMemAlloc", 3020, 0);
		dtoh_async_fn dtoh_async = fetch("cuMemcpyDtoHAsync", 3020, 0);
		htod_async_fn htod_async = fetch("cuMemcpyHtoDAsync", 3020, 0);
		dtoh_fn dtoh = fetch("cuMemcpyDtoH", 3020, 0);
		host_alloc_fn host_alloc = fetch("cuMemHostAlloc", 3020, 0);
		host_free_fn host_free = fetch("cuMemFreeHost", 2000, 0);
		void *s1, *pinned;
		unsigned long long d;
		float scalar = 0;
		CHECK(stream_create(&s1, 0));
		CHECK(alloc(&d, 4096));
		CHECK(host_alloc(&pinned, 4096, 0));
		CHECK(lk(func("loss_kernel"), 16, 1, 1, 128, 1, 1, 0, s1, NULL, NULL));
		CHECK(dtoh_async(&scalar, d, sizeof scalar, s1));         /* pageable */
		CHECK(stream_sync(s1));
		CHECK(dtoh_async(pinned, d, 4096, s1));                     /* pinned */
		CHECK(htod_async(d, (char *)pinned + 1024, 2048, s1));      /* pinned, inside */
		CHECK(dtoh(&scalar, d, sizeof scalar));                     /* pageable */
		CHECK(stream_sync(s1));
		CHECK(host_free(pinned));
		return 0;
	}
	if (!strcmp(mode, "unload")) {
		/* A kernel launched, its module unloaded, another module
		 * loaded whose kernel gets the same handle (the fake reuses
		 * it, as the driver may), launched: each launch must carry
		 * its own kernel's name and attributes. */
		mod_load_fn load = fetch("cuModuleLoad", 2000, 0);
		ctx_fn unload = fetch("cuModuleUnload", 2000, 0);
		void *m1, *m2, *f1, *f2;
		CHECK(load(&m1, "first.cubin"));
		CHECK(get_func(&f1, m1, "before_unload"));
		CHECK(lk(f1, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL));
		CHECK(unload(m1));
		CHECK(load(&m2, "second.cubin"));
		CHECK(get_func(&f2, m2, "after_the_module_unload"));
		if (f2 != f1) {
			fprintf(stderr, "shim_runtime: the fake gave the second kernel a new handle\n");
			return 3;
		}
		CHECK(lk(f2, 2, 1, 1, 64, 1, 1, 0, NULL, NULL, NULL));
		CHECK(lk(f2, 3, 1, 1, 64, 1, 1, 0, NULL, NULL, NULL));
		CHECK(ctx_sync());
		return 0;
	}
	if (!strcmp(mode, "batch")) {
		/* Two batches of N device-to-device copies of 10000 (i + 1)
		 * bytes each (cuMemcpyBatchAsync at 13.0 on a stream, at 12.8
		 * on the thread's), then a sync: two copy records, each of the
		 * N copies' bytes, timed from its first copy's start to its
		 * last's end (the fake's CUPTI reports a batch in pairs). */
		int n = argc > 2 ? atoi(argv[2]) : 5;
		if (n < 1 || n > 64)
			return 2;
		alloc_fn alloc = fetch("cuMemAlloc", 3020, 0);
		batch_v2_fn b13 = fetch("cuMemcpyBatchAsync", 13000, 0);
		batch_fn b12 = fetch("cuMemcpyBatchAsync", 12080, 2);
		dptr src, dst, dsts[64], srcs[64];
		size_t sizes[64], total = 0, first[1] = { 0 }, fail_idx = 0;
		for (int i = 0; i < n; i++)
			total += 10000u * (size_t)(i + 1);
		void *s1;
		CHECK(stream_create(&s1, 0));
		CHECK(alloc(&src, total));
		CHECK(alloc(&dst, total));
		for (int i = 0, off = 0; i < n; off += 10000 * (i + 1), i++)
			dsts[i] = dst + (dptr)off, srcs[i] = src + (dptr)off, sizes[i] = 10000u * (size_t)(i + 1);
		struct copy_attr ca = { 1, { 0, 0 }, { 0, 0 }, 0 };
		CHECK(b13(dsts, srcs, sizes, (size_t)n, &ca, first, 1, s1));
		CHECK(b12(dsts, srcs, sizes, (size_t)n, &ca, first, 1, &fail_idx, NULL));
		CHECK(stream_sync(s1));
		CHECK(stream_sync_ptsz(NULL));
		return 0;
	}
	if (!strcmp(mode, "capture")) {
		begin_fn begin = fetch("cuStreamBeginCapture", 10010, 0);
		end_fn end = fetch("cuStreamEndCapture", 10000, 0);
		void *s, *g;
		CHECK(stream_create(&s, 0));
		CHECK(begin(s, 0));
		for (int i = 0; i < 2; i++)
			CHECK(lk(func("captured_kernel"), 4, 1, 1, 64, 1, 1, 0, s, NULL, NULL));
		CHECK(end(s, &g));
		CHECK(lk(func("after_capture"), 2, 1, 1, 64, 1, 1, 0, s, NULL, NULL));
		CHECK(ctx_sync());
		return 0;
	}
	if (!strcmp(mode, "graphs")) {
		begin_fn begin = fetch("cuStreamBeginCapture", 10010, 0);
		end_fn end = fetch("cuStreamEndCapture", 10000, 0);
		instantiate_fn instantiate = fetch("cuGraphInstantiateWithFlags", 11040, 0);
		replay_fn replay = fetch("cuGraphLaunch", 10000, 0);
		destroy_fn graph_destroy = fetch("cuGraphDestroy", 10000, 0);
		destroy_fn exec_destroy = fetch("cuGraphExecDestroy", 10000, 0);
		void *s, *g1, *x1, *g2, *x2, *gemm = func("graph_gemm"), *after = func("after_replay");
		CHECK(stream_create(&s, 0));
		CHECK(begin(s, 0)); /* CU_STREAM_CAPTURE_MODE_GLOBAL, torch.cuda.graph's */
		CHECK(lk(gemm, 4, 1, 1, 128, 1, 1, 0, s, NULL, NULL));
		CHECK(lk(gemm, 8, 2, 1, 128, 1, 1, 0, s, NULL, NULL));
		CHECK(lk(func("graph_norm"), 2, 1, 1, 256, 1, 1, 512, s, NULL, NULL));
		CHECK(end(s, &g1));
		CHECK(instantiate(&x1, g1, 0));
		for (int i = 0; i < 2; i++) {
			CHECK(replay(x1, s));
			CHECK(lk(after, 1, 1, 1, 32, 1, 1, 0, s, NULL, NULL));
		}
		CHECK(exec_destroy(x1));
		CHECK(graph_destroy(g1));
		CHECK(begin(s, 0));
		CHECK(lk(func("graph_tail"), 6, 1, 1, 64, 1, 1, 0, s, NULL, NULL));
		CHECK(end(s, &g2));
		CHECK(instantiate(&x2, g2, 0));
		if (g2 != g1 || x2 != x1) {
			fprintf(stderr, "shim_runtime: the fake gave the second graph new handles\n");
			return 3;
		}
		CHECK(replay(x2, s));
		CHECK(lk(after, 1, 1, 1, 32, 1, 1, 0, s, NULL, NULL));
		/* cuda.h's CUDA_KERNEL_NODE_PARAMS_v2 */
		struct node_params { void *func; unsigned gx, gy, gz, bx, by, bz, smem; void **params, **extra;
				     void *kern, *ctx; } np = { func("graph_built"), 3, 1, 1, 64, 1, 1, 0, NULL, NULL,
								NULL, NULL };
		typedef int (*create_fn)(void **, unsigned);
		typedef int (*add_node_fn)(void **, void *, const void *, size_t, const struct node_params *);
		create_fn create = fetch("cuGraphCreate", 10000, 0);
		add_node_fn add_node = fetch("cuGraphAddKernelNode", 12000, 0);
		void *g3, *x3, *node;
		CHECK(exec_destroy(x2));
		CHECK(graph_destroy(g2));
		CHECK(create(&g3, 0));
		CHECK(add_node(&node, g3, NULL, 0, &np));
		CHECK(instantiate(&x3, g3, 0));
		if (g3 != g1 || x3 != x1) {
			fprintf(stderr, "shim_runtime: the fake gave the built graph new handles\n");
			return 3;
		}
		CHECK(replay(x3, s));
		CHECK(lk(after, 1, 1, 1, 32, 1, 1, 0, s, NULL, NULL));
		CHECK(ctx_sync());
		return 0;
	}
	if (!strcmp(mode, "graphs-windows")) {
		/* A graph captured before the recorded windows, as serving
		 * engines capture theirs at start-up: a cuBLAS GEMM (the fake
		 * libcublasLt and libcublas at argv[2] and argv[3], loaded in
		 * that order so that the latter's libcublasLt.so.13 is the
		 * fake; its two kernels on the handle's stream)
		 * and a kernel captured on s, a kernel launched on another
		 * stream meanwhile; then three windows, each replaying the
		 * graph and launching a kernel after it. */
		typedef int (*set_stream_fn)(void *, void *);
		typedef int (*sgemm_fn)(void *, int, int, int, int, int, const float *, const float *, int,
					const float *, int, const float *, float *, int);
		if (argc < 4 || !dlopen(argv[2], RTLD_NOW | RTLD_GLOBAL) ||
		    !dlopen(argv[3], RTLD_NOW | RTLD_GLOBAL)) {
			fprintf(stderr, "shim_runtime: graphs-windows needs the fake libcublas\n");
			return 3;
		}
		/* the program's view: the first definition, the recorder's hook */
		sgemm_fn sgemm = (sgemm_fn)dlsym(RTLD_DEFAULT, "cublasSgemm_v2");
		set_stream_fn set_stream = (set_stream_fn)dlsym(RTLD_DEFAULT, "cublasSetStream_v2");
		begin_fn begin = fetch("cuStreamBeginCapture", 10010, 0);
		end_fn end = fetch("cuStreamEndCapture", 10000, 0);
		instantiate_fn instantiate = fetch("cuGraphInstantiateWithFlags", 11040, 0);
		replay_fn replay = fetch("cuGraphLaunch", 10000, 0);
		void_fn start = fetch("cuProfilerStart", 4000, 0), stop = fetch("cuProfilerStop", 4000, 0);
		static float f[16];
		void *s, *other, *g, *x, *h = (void *)0x1;
		if (!sgemm || !set_stream)
			return 3;
		CHECK(stream_create(&s, 0));
		CHECK(stream_create(&other, 0));
		CHECK(begin(s, 2)); /* CU_STREAM_CAPTURE_MODE_RELAXED */
		CHECK(set_stream(h, s));
		CHECK(sgemm(h, 0, 0, 64, 32, 16, f, f, 64, f, 16, f, f, 64));
		CHECK(set_stream(h, NULL));
		CHECK(lk(func("graph_norm"), 2, 1, 1, 256, 1, 1, 512, s, NULL, NULL));
		CHECK(lk(func("beside_capture"), 1, 1, 1, 32, 1, 1, 0, other, NULL, NULL));
		CHECK(end(s, &g));
		CHECK(instantiate(&x, g, 0));
		for (int i = 0; i < 3; i++) {
			/* steps apart by more than the recorder's clock slack
			 * (joins.c): a step outside the windows is not taken
			 * for one inside */
			usleep(2000);
			CHECK(start());
			CHECK(replay(x, s));
			CHECK(lk(func("after_replay"), 1, 1, 1, 32, 1, 1, 0, s, NULL, NULL));
			CHECK(ctx_sync());
			CHECK(stop());
		}
		return 0;
	}
	if (!strcmp(mode, "capture-busy")) {
		begin_fn begin = fetch("cuStreamBeginCapture", 10010, 0);
		end_fn end = fetch("cuStreamEndCapture", 10000, 0);
		int ms = argc > 2 ? atoi(argv[2]) : 200;
		void *s, *other, *g = NULL;
		CHECK(stream_create(&s, 0));
		CHECK(stream_create(&other, 0));
		CHECK(begin(s, 0)); /* CU_STREAM_CAPTURE_MODE_GLOBAL */
		for (int i = 0; i < ms; i++) {
			CHECK(lk(func("beside_capture"), 2, 1, 1, 64, 1, 1, 0, other, NULL, NULL));
			usleep(1000);
		}
		CHECK(lk(func("captured_kernel"), 4, 1, 1, 64, 1, 1, 0, s, NULL, NULL));
		if (end(s, &g) != 0 || !g) {
			fprintf(stderr, "shim_runtime: the capture was invalidated\n");
			return 4;
		}
		CHECK(ctx_sync());
		return 0;
	}
	if (!strcmp(mode, "calls")) {
		fake_watch = (void (*)(const char *, int))dlsym(h, "fake_cuda_watch");
		fake_watched_errno = (int (*)(void))dlsym(h, "fake_cuda_watched_errno");
		fake_real = (void *(*)(const char *, int, unsigned long long))dlsym(h, "fake_cuda_real");
		if (!fake_watch || !fake_watched_errno || !fake_real)
			return 3;
		calls();
		return call_errors ? 1 : 0;
	}
	if (!strcmp(mode, "hang")) {
		int k = argc > 2 ? atoi(argv[2]) : 10;
		void *f = func("before_signal");
		for (int i = 0; i < k; i++)
			CHECK(lk(f, 1 + (unsigned)i, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL));
		printf("ready\n");
		fflush(stdout);
		for (;;)
			pause();
	}
	fprintf(stderr, "shim_runtime: unknown mode '%s'\n", mode);
	return 2;
}
