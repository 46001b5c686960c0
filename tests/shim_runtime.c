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
 *   shim_runtime handoff M      two threads taking turns, M launches each of
 *                               one kernel on the legacy stream (the main
 *                               and autograd threads of a PyTorch step)
 *   shim_runtime windows W K    W profiler windows of K launches each
 *   shim_runtime rewindow W K   W rounds of K launches of one kernel before
 *                               a profiler window and, 1 ms later, K inside it
 *   shim_runtime hang K         K launches, prints "ready", waits for a signal
 *   shim_runtime graph R        the basic launches, then R graph replays
 *   shim_runtime capture        2 launches into a stream capture, 1 after
 *   shim_runtime hostmem        copies to and from pageable and page-locked
 *                               host memory after a kernel
 *
 * Exits with EXIT (default 0), or 3 if a driver call failed.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int (*gp5_fn)(const char *, void **, int, unsigned long long, int *);
typedef int (*gp4_fn)(const char *, void **, int, unsigned long long);
typedef int (*init_fn)(unsigned);
typedef int (*mod_load_fn)(void **, const char *);
typedef int (*get_func_fn)(void **, void *, const char *);
typedef int (*stream_create_fn)(void **, unsigned);
typedef int (*stream_fn)(void *);
typedef int (*void_fn)(void);
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
	if (!strcmp(mode, "handoff")) {
		struct handoff a = { 0, argc > 2 ? atol(argv[2]) : 200 }, b = { 1, a.m };
		pthread_t ta, tb;
		pthread_create(&ta, NULL, taking_turns, &a);
		pthread_create(&tb, NULL, taking_turns, &b);
		pthread_join(ta, NULL);
		pthread_join(tb, NULL);
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
	if (!strcmp(mode, "capture")) {
		typedef int (*begin_fn)(void *, int);
		typedef int (*end_fn)(void *, void **);
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
