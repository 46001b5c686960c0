/*
 * synth.h - synthetic traces for the analyzer's tests, golden files, gate
 * test and benchmark: a small simulated training step (GEMMs with their
 * cuBLAS records, elementwise and norm kernels, a second stream, copies,
 * synchronizations, iteration markers) written with the trace writer, GPU
 * times produced by a simple in-order GPU model so the trace is consistent.
 */
#ifndef SURFER_TESTS_SYNTH_H
#define SURFER_TESTS_SYNTH_H

#include <stdint.h>

struct synth_opts {
	const char *device;       /* device name in the header                  */
	int iterations;           /* iteration markers (0: none)                */
	int layers;               /* layers per iteration                       */
	double gpu_scale;         /* multiplies every kernel duration (1 = base) */
	double slow_gemm;         /* extra multiplier of the GEMM kernels        */
	int fp32_gemm;            /* the layers' GEMM in FP32 (1024^3, an SGEMM:
				   * the tile model's) instead of FP16          */
	int launch_bound;         /* tiny kernels, long CPU gaps, no syncs       */
	int shuffle;              /* write records out of CPU order              */
	int truncate;             /* no trailer, last record cut                 */
	int no_gpu_times;         /* CPU times only                              */
	int untimed_every;        /* every Nth kernel has no GPU times (0 none)  */
	int capture;              /* capture start/stop markers around each
				   * iteration, 50 ms uncaptured between them,
				   * instead of iteration markers                */
	uint64_t peak_device_bytes; /* the trailer's peak of device memory held */
	int events;               /* DDP's pattern: the all-reduce stream waits
				   * for an event recorded after the layer's
				   * work, the optimizer for one recorded after
				   * the all-reduce                            */
	int cuda_graphs;          /* the layers' GEMM, fill and norm kernels
				   * captured into one CUDA graph before the
				   * first iteration (trace format 1.12) and
				   * replayed in each: SYNTH_GRAPHS_CUPTI each
				   * replayed kernel a record of its own,
				   * SYNTH_GRAPHS_EVENTS the replay one record
				   * timed whole; 0 launched eagerly          */
};

enum { SYNTH_GRAPHS_CUPTI = 1, SYNTH_GRAPHS_EVENTS = 2 };

/* Fills o with the defaults (1 iteration, 4 layers, scale 1). */
void synth_defaults(struct synth_opts *o, const char *device);

/* Writes the trace described by o to path.  Returns 0 or -1. */
int synth_write(const char *path, const struct synth_opts *o);

#define SY_BENCH_MAX_THREADS 64

/* Writes a trace of n kernel launches over ~200 configurations (a GEMM
 * record every 10 launches, an iteration marker every 10000), launch i made
 * by thread 1 + i % threads on stream 7 + i % threads, 3 us of CPU time
 * apart.  With more than one thread each thread's records are written in
 * blocks of block records, as a recorder draining per-thread buffers would
 * (the threads' CPU times interleave, the file holds them in runs).
 * Returns 0 or -1. */
int synth_write_bench(const char *path, const char *device, uint64_t n, uint32_t threads,
		      uint32_t block);

/* A GPU-bound step ended by a copy to the host, the way `.item()` or
 * `.cpu()` ends a training step: 4 iterations of 20 launches of a 200 us
 * elementwise kernel queued ahead of the GPU, then one 8-byte DtoH copy
 * after the last kernel whose call returns 10 us after it, then 20 us of
 * CPU work.  The CPU waits for the GPU at the copy, so on any GPU the step
 * takes what its kernels take plus ~40 us.  how says how the trace tells
 * that the copy blocked: */
enum synth_blocking {
	SYNTH_BLOCK_PAGEABLE = 0, /* cuMemcpyAsync to pageable memory (host_mem) */
	SYNTH_BLOCK_CPU_END,      /* host memory unknown; the call ended after
				   * the copy's GPU end                         */
	SYNTH_BLOCK_SYNC_CALL,    /* cuMemcpy (not Async)                        */
	SYNTH_BLOCK_ITEM,         /* no GPU times, host memory unknown; a stream
				   * sync follows the copy                      */
	SYNTH_BLOCK_COUNT
};

/* Writes that step, recorded on device, to path.  Returns 0 or -1. */
int synth_write_blocking(const char *path, const char *device, enum synth_blocking how);

#endif
