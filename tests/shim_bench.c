/*
 * shim_bench.c - CPU cost of a kernel launch through the fake driver, for
 * comparing runs with and without the recorder (tests/shim_bench.sh).
 *
 *   shim_bench N [THREADS]   N launches per thread; prints the wall time
 *                            per launch (per thread) and the CPU time of
 *                            the whole process per launch, in ns
 *
 * Launches go through the pointer the CUDA runtime would get
 * (cuGetProcAddress_v2 -> cuLaunchKernel at 4000), on one stream per thread.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

typedef int (*gp5_fn)(const char *, void **, int, unsigned long long, int *);
typedef int (*init_fn)(unsigned);
typedef int (*get_func_fn)(void **, void *, const char *);
typedef int (*stream_create_fn)(void **, unsigned);
typedef int (*launch_fn)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
			 unsigned, void *, void **, void **);

static launch_fn lk;
static get_func_fn get_func;
static stream_create_fn stream_create;
static long n_per_thread;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *worker(void *arg)
{
	void *s, *f;
	(void)arg;
	if (stream_create(&s, 0) != 0 || get_func(&f, NULL, "bench_kernel") != 0)
		exit(3);
	for (long i = 0; i < n_per_thread; i++)
		if (lk(f, 64, 1, 1, 128, 1, 1, 0, s, NULL, NULL) != 0)
			exit(3);
	return NULL;
}

int main(int argc, char **argv)
{
	n_per_thread = argc > 1 ? atol(argv[1]) : 1000000;
	int nt = argc > 2 ? atoi(argv[2]) : 1;
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	gp5_fn gp = h ? (gp5_fn)dlsym(h, "cuGetProcAddress_v2") : NULL;
	int st;
	init_fn init = NULL;
	if (!gp || gp("cuInit", (void **)&init, 2000, 0, &st) || init(0) ||
	    gp("cuModuleGetFunction", (void **)&get_func, 2000, 0, &st) ||
	    gp("cuStreamCreate", (void **)&stream_create, 2000, 0, &st) ||
	    gp("cuLaunchKernel", (void **)&lk, 4000, 0, &st)) {
		fprintf(stderr, "shim_bench: cannot set up the fake driver\n");
		return 3;
	}
	pthread_t th[16];
	if (nt < 1 || nt > 16)
		nt = 1;
	struct rusage r0, r1;
	getrusage(RUSAGE_SELF, &r0);
	uint64_t t0 = now_ns();
	for (int i = 0; i < nt; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	for (int i = 0; i < nt; i++)
		pthread_join(th[i], NULL);
	uint64_t t1 = now_ns();
	getrusage(RUSAGE_SELF, &r1);
	double cpu = (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec + r1.ru_stime.tv_sec -
			      r0.ru_stime.tv_sec) * 1e9 +
		     (double)(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec + r1.ru_stime.tv_usec -
			      r0.ru_stime.tv_usec) * 1e3;
	/* Wall time per launch per thread (what one launching thread sees) and
	 * CPU time of every thread, the writer's included, per launch. */
	printf("%.1f %.1f\n", (double)(t1 - t0) / (double)n_per_thread,
	       cpu / ((double)n_per_thread * nt));
	return 0;
}
