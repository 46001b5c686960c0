/*
 * synth.c - synthetic traces (see synth.h).  The simulated GPU runs each
 * stream in order: work starts 4 us after its launch or when the stream's
 * previous work ends, whichever is later; a synchronization returns 2 us
 * after the awaited work ends.
 */
#include "tests/synth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/trace.h"

#define SY_LATENCY 4000
#define SY_WAKE 2000
#define SY_MAXREC 100000

struct sy {
	struct trace_writer *w;
	uint64_t seq;
	uint64_t cpu;             /* CPU clock, ns                              */
	uint64_t end[2];          /* streams 7 and 9                            */
	const struct synth_opts *o;
	struct trace_record *rec; /* buffered when shuffling                    */
	size_t nrec;
	int iteration;
	/* CUDA graphs (o->cuda_graphs): */
	int capturing;            /* kernels are launched into SY_GRAPH         */
	uint64_t replay;          /* kernels are SY_GRAPH's replay of this seq,
				   * launched at replay_cpu                    */
	uint64_t replay_cpu;
	double replay_us;         /* a replay timed whole: its kernels' time,
				   * summed instead of written                 */
};

/* The capture id of the synthetic graph. */
#define SY_GRAPH 0x6a000001ull

void synth_defaults(struct synth_opts *o, const char *device)
{
	memset(o, 0, sizeof(*o));
	o->device = device;
	o->iterations = 1;
	o->layers = 4;
	o->gpu_scale = 1.0;
	o->slow_gemm = 1.0;
}

static int sy_flush(struct sy *s);
static int sy_layer(struct sy *s);
static int sy_replay(struct sy *s);

static int sy_put(struct sy *s, struct trace_record *r)
{
	if (s->rec) {
		if (s->nrec == SY_MAXREC)
			return -1;
		s->rec[s->nrec++] = *r;
		return r->type == TRACE_SYNC ? sy_flush(s) : 0;
	}
	return trace_writer_record(s->w, r);
}

static uint64_t sy_stream(int i)
{
	return i ? 9 : 7;
}

static int sy_kernel(struct sy *s, const char *name, uint32_t grid, uint32_t block,
		     uint32_t regs, int stream, double dur_us, uint64_t lib)
{
	struct trace_record r;
	uint64_t start;

	if (s->replay && s->o->cuda_graphs == SYNTH_GRAPHS_EVENTS) {
		s->replay_us += dur_us * s->o->gpu_scale;
		return 0;
	}
	memset(&r, 0, sizeof(r));
	if (!s->replay)
		s->cpu += 6000;
	r.type = TRACE_KERNEL;
	r.u.kernel.seq = ++s->seq;
	r.u.kernel.name = trace_writer_intern(s->w, name, strlen(name));
	r.u.kernel.grid[0] = grid;
	r.u.kernel.grid[1] = r.u.kernel.grid[2] = 1;
	r.u.kernel.block[0] = block;
	r.u.kernel.block[1] = r.u.kernel.block[2] = 1;
	r.u.kernel.regs = regs;
	r.u.kernel.stream = sy_stream(stream);
	r.u.kernel.thread = 100;
	r.u.kernel.cpu_ns = s->cpu;
	r.u.kernel.lib_call = lib;
	r.u.kernel.iteration = s->iteration;
	if (s->capturing) {   /* recorded into the graph: runs nothing */
		r.u.kernel.flags = TRACE_KF_CAPTURED;
		r.u.kernel.graph = SY_GRAPH;
		r.u.kernel.iteration = -1;
		return sy_put(s, &r);
	}
	if (s->replay) {      /* the graph's kernel, as CUPTI reports it */
		r.u.kernel.flags = TRACE_KF_GRAPH;
		r.u.kernel.graph = SY_GRAPH;
		r.u.kernel.replay = s->replay;
		r.u.kernel.cpu_ns = s->replay_cpu;
		r.u.kernel.lib_call = 0;
	}
	start = r.u.kernel.cpu_ns + SY_LATENCY > s->end[stream] ? r.u.kernel.cpu_ns + SY_LATENCY
								   : s->end[stream];
	s->end[stream] = start + (uint64_t)(dur_us * 1000.0 * s->o->gpu_scale);
	if (!s->o->no_gpu_times &&
	    !(s->o->untimed_every && r.u.kernel.seq % (uint64_t)s->o->untimed_every == 0)) {
		r.u.kernel.start_ns = start;
		r.u.kernel.end_ns = s->end[stream];
	}
	return sy_put(s, &r);
}

static uint64_t sy_gemm(struct sy *s, uint64_t m, uint64_t n, uint64_t k)
{
	struct trace_record r;
	enum trace_dtype dt = s->o->fp32_gemm ? TRACE_DT_F32 : TRACE_DT_F16;

	memset(&r, 0, sizeof(r));
	s->cpu += 2000;
	r.type = TRACE_GEMM;
	r.u.gemm = (struct trace_gemm){ .seq = ++s->seq, .api = TRACE_GEMM_GEMMEX, .m = m,
		.n = n, .k = k, .batch = 1, .a_type = dt, .b_type = dt,
		.c_type = dt, .compute_type = TRACE_DT_F32, .epilogue = 1,
		.stream = 7, .thread = 100, .cpu_ns = s->cpu };
	return sy_put(s, &r) < 0 ? 0 : r.u.gemm.seq;
}

static int sy_sync(struct sy *s, enum trace_sync_kind kind, int stream)
{
	struct trace_record r;
	uint64_t aw = kind == TRACE_SYNC_CTX ? (s->end[0] > s->end[1] ? s->end[0] : s->end[1])
					     : s->end[stream];

	memset(&r, 0, sizeof(r));
	s->cpu += 3000;
	r.type = TRACE_SYNC;
	r.u.sync = (struct trace_sync){ .seq = ++s->seq, .kind = kind,
		.stream = kind == TRACE_SYNC_CTX ? 0 : sy_stream(stream), .thread = 100,
		.cpu_ns = s->cpu };
	s->cpu = (aw > s->cpu ? aw : s->cpu) + SY_WAKE;
	r.u.sync.cpu_end_ns = s->cpu;
	return sy_put(s, &r);
}

/* Records event ev on stream index from, then makes stream index to wait
 * for it; the simulated GPU honours the wait. */
static int sy_event_wait(struct sy *s, int from, int to, uint64_t ev)
{
	struct trace_record r;
	int rc;

	memset(&r, 0, sizeof(r));
	s->cpu += 1000;
	r.type = TRACE_SYNC;
	r.u.sync = (struct trace_sync){ .seq = ++s->seq, .kind = TRACE_SYNC_EVENT_RECORD,
		.stream = sy_stream(from), .thread = 100, .cpu_ns = s->cpu,
		.cpu_end_ns = s->cpu + 500, .event = ev };
	s->cpu += 500;
	rc = sy_put(s, &r);
	s->cpu += 1000;
	r.u.sync = (struct trace_sync){ .seq = ++s->seq, .kind = TRACE_SYNC_STREAM_WAIT_EVENT,
		.stream = sy_stream(to), .thread = 100, .cpu_ns = s->cpu,
		.cpu_end_ns = s->cpu + 500, .event = ev };
	s->cpu += 500;
	if (s->end[from] > s->end[to])
		s->end[to] = s->end[from];
	return rc | sy_put(s, &r);
}

static int sy_copy(struct sy *s, enum trace_copy_kind kind, uint64_t bytes, int async,
		   double dur_us)
{
	struct trace_record r;
	uint64_t start;

	memset(&r, 0, sizeof(r));
	s->cpu += 5000;
	r.type = TRACE_MEMCPY;
	r.u.copy = (struct trace_copy){ .seq = ++s->seq, .bytes = bytes, .kind = kind,
		.async = (uint8_t)async, .stream = 7, .thread = 100, .cpu_ns = s->cpu };
	start = s->cpu + SY_LATENCY > s->end[0] ? s->cpu + SY_LATENCY : s->end[0];
	s->end[0] = start + (uint64_t)(dur_us * 1000.0);
	if (!s->o->no_gpu_times) {
		r.u.copy.start_ns = start;
		r.u.copy.end_ns = s->end[0];
	}
	if (!async)
		s->cpu = s->end[0] + SY_WAKE;
	r.u.copy.cpu_end_ns = async ? s->cpu + 1000 : s->cpu;
	if (async)
		s->cpu += 1000;
	return sy_put(s, &r);
}

static int sy_marker(struct sy *s, enum trace_marker_kind kind)
{
	struct trace_record r;

	memset(&r, 0, sizeof(r));
	s->cpu += 1000;
	r.type = TRACE_MARKER;
	r.u.marker = (struct trace_marker){ .seq = ++s->seq, .kind = kind,
		.thread = 100, .cpu_ns = s->cpu, .iteration = s->iteration };
	return sy_put(s, &r);
}

static int sy_step(struct sy *s)
{
	const struct synth_opts *o = s->o;
	int rc = 0;

	if (o->launch_bound) {
		for (int l = 0; l < o->layers; l++) {
			s->cpu += 20000;   /* Python between launches */
			rc |= sy_kernel(s, "void at::native::vectorized_elementwise_kernel<4, "
				       "at::native::AddFunctor<float>>(int, float*, float*)",
				       64, 128, 16, 0, 2.0, 0);
			s->cpu += 20000;
			rc |= sy_kernel(s, "triton_poi_fused_mul_relu_0", 32, 256, 20, 0, 1.5, 0);
		}
		return rc;
	}
	rc |= sy_copy(s, TRACE_COPY_HTOD, 8u << 20, 1, 400.0);
	if (o->cuda_graphs)
		rc |= sy_replay(s);
	for (int l = 0; l < o->layers; l++) {
		if (!o->cuda_graphs)
			rc |= sy_layer(s);
		if (l % 2 == 1) {
			if (o->events)
				rc |= sy_event_wait(s, 0, 1, 0x7f0000001000ULL + (uint64_t)l);
			rc |= sy_kernel(s, "ncclDevKernel_AllReduce_Sum_f16_RING_LL", 32, 512, 96, 1,
					500.0, 0);
		}
	}
	rc |= sy_kernel(s, "softmax_warp_forward", 512, 128, 32, 0, 30.0, 0);
	rc |= sy_copy(s, TRACE_COPY_DTOH, 4, 0, 2.0);
	if (o->events)
		rc |= sy_event_wait(s, 1, 0, 0x7f0000002000ULL);
	rc |= sy_kernel(s, "multi_tensor_apply_kernel", 2048, 512, 64, 0, 120.0, 0);
	rc |= sy_sync(s, TRACE_SYNC_STREAM, 1);
	rc |= sy_sync(s, TRACE_SYNC_CTX, 0);
	return rc;
}

/* One layer's GEMM (its call first, except in a replay: the graph's
 * launch calls no library), fill and norm kernels. */
static int sy_layer(struct sy *s)
{
	const struct synth_opts *o = s->o;
	int rc = 0;
	if (o->fp32_gemm) {
		/* 8 x 16 tiles of 128 x 64 */
		uint64_t g = s->replay ? 0 : sy_gemm(s, 1024, 1024, 1024);
		rc |= sy_kernel(s, "ampere_sgemm_128x64_nn", 128, 128, 122, 0, 300.0 * o->slow_gemm, g);
	} else {
		uint64_t g = s->replay ? 0 : sy_gemm(s, 4096, 4096, 1024);
		rc |= sy_kernel(s, "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn",
				1024, 256, 232, 0, 300.0 * o->slow_gemm, g);
	}
	rc |= sy_kernel(s, "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_"
			   "11FillFunctorIN3c104HalfEEENS_6detail5ArrayIPcLi1EEEEEviT0_T1_",
			8192, 128, 16, 0, 45.0, 0);
	rc |= sy_kernel(s, "_ZN2at6native28vectorized_layer_norm_kernelIN3c104HalfEfEEviT0_"
			   "PKT_S5_S5_PS4_S6_PS3_",
			4096, 256, 40, 0, 60.0, 0);
	return rc;
}

/* The layers captured into the graph, before the first iteration. */
static int sy_capture(struct sy *s)
{
	int rc = 0;
	s->capturing = 1;
	for (int l = 0; l < s->o->layers; l++)
		rc |= sy_layer(s);
	s->capturing = 0;
	return rc;
}

/* The graph replayed: its kernels (CUPTI), or one record timed whole. */
static int sy_replay(struct sy *s)
{
	int rc = 0;
	s->cpu += 8000;
	s->replay = ++s->seq;
	s->replay_cpu = s->cpu;
	s->replay_us = 0;
	for (int l = 0; l < s->o->layers; l++)
		rc |= sy_layer(s);
	s->replay = 0;
	if (s->o->cuda_graphs == SYNTH_GRAPHS_EVENTS) {
		struct trace_record r;
		const char *nm = "cuGraphLaunch";
		uint64_t start = s->replay_cpu + SY_LATENCY > s->end[0] ? s->replay_cpu + SY_LATENCY : s->end[0];
		memset(&r, 0, sizeof(r));
		r.type = TRACE_KERNEL;
		r.u.kernel = (struct trace_kernel){ .seq = s->replay,
			.name = trace_writer_intern(s->w, nm, strlen(nm)), .grid = { 1, 1, 1 },
			.block = { 1, 1, 1 }, .stream = sy_stream(0), .thread = 100,
			.flags = TRACE_KF_GRAPH, .cpu_ns = s->replay_cpu, .iteration = s->iteration,
			.graph = SY_GRAPH };
		s->end[0] = start + (uint64_t)(s->replay_us * 1000.0);
		if (!s->o->no_gpu_times) {
			r.u.kernel.start_ns = start;
			r.u.kernel.end_ns = s->end[0];
		}
		rc |= sy_put(s, &r);
	}
	return rc;
}

/* Writes the buffered records as a recorder that gets kernel times late
 * (CUPTI buffers) would: everything else in order, then the kernels. */
static int sy_flush(struct sy *s)
{
	int rc = 0;

	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < s->nrec; i++)
			if ((s->rec[i].type == TRACE_KERNEL) == pass)
				rc |= trace_writer_record(s->w, &s->rec[i]);
	s->nrec = 0;
	return rc;
}

static void sy_header(struct trace_header *h, const char *device, int no_gpu)
{
	memset(h, 0, sizeof(*h));
	snprintf(h->tool_version, sizeof(h->tool_version), "synth");
	snprintf(h->host, sizeof(h->host), "testhost");
	h->pid = 1;
	h->timing = no_gpu ? TRACE_TIMING_NONE : TRACE_TIMING_SYNTHETIC;
	snprintf(h->device.name, sizeof(h->device.name), "%s", device);
}

static int sy_cut(const char *path)
{
	FILE *f = fopen(path, "rb");
	long len;

	if (!f || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 8) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	return truncate(path, len - 5);
}

int synth_write(const char *path, const struct synth_opts *o)
{
	struct sy s;
	struct trace_header h;
	int err = 0, rc = 0;

	memset(&s, 0, sizeof(s));
	s.o = o;
	s.cpu = 5000000000ull;
	s.w = trace_writer_open(path, 0, &err);
	if (!s.w)
		return -1;
	sy_header(&h, o->device, o->no_gpu_times);
	rc |= trace_writer_header(s.w, &h);
	if (o->shuffle && !(s.rec = calloc(SY_MAXREC, sizeof(*s.rec))))
		rc = -1;
	if (o->cuda_graphs && !o->launch_bound)
		rc |= sy_capture(&s);
	for (int it = 0; rc == 0 && it < (o->iterations ? o->iterations : 1); it++) {
		s.iteration = o->iterations ? it : -1;
		if (o->iterations)
			rc |= sy_marker(&s, o->capture ? TRACE_MARK_CAPTURE_START : TRACE_MARK_ITERATION);
		rc |= sy_step(&s);
		if (o->iterations && o->capture) {
			rc |= sy_marker(&s, TRACE_MARK_CAPTURE_STOP);
			s.cpu += 50000000;   /* uncaptured iteration */
		}
	}
	if (s.rec) {
		rc |= sy_flush(&s);
		free(s.rec);
	}
	if (rc == 0 && !o->truncate) {
		trace_writer_set_peak_device_bytes(s.w, o->peak_device_bytes);
		rc = trace_writer_finish(s.w);
	} else if (rc == 0) {
		rc = trace_writer_flush(s.w);
	}
	trace_writer_free(s.w);
	if (rc == 0 && o->truncate)
		rc = sy_cut(path);
	return rc ? -1 : 0;
}

/* The bench trace's records of one launching thread, held until the
 * thread's buffer drains (a block of records). */
struct sy_buf {
	struct trace_record *rec;
	uint32_t n;
};

static int sy_bench_put(struct trace_writer *w, struct sy_buf *bufs, uint32_t block, uint32_t t,
			const struct trace_record *r)
{
	struct sy_buf *b = &bufs[t];
	int rc = 0;

	if (!bufs)
		return trace_writer_record(w, r);
	b->rec[b->n++] = *r;
	if (b->n == block) {
		for (uint32_t i = 0; i < b->n; i++)
			rc |= trace_writer_record(w, &b->rec[i]);
		b->n = 0;
	}
	return rc;
}

int synth_write_bench(const char *path, const char *device, uint64_t n, uint32_t threads,
		      uint32_t block)
{
	struct trace_header h;
	struct trace_record r;
	uint32_t names[20];
	char buf[64];
	uint64_t cpu = 1000000000ull, end[SY_BENCH_MAX_THREADS] = { 0 }, seq = 0;
	int err = 0, rc = 0;
	struct sy_buf *bufs = NULL;
	struct trace_writer *w;

	if (threads < 1 || threads > SY_BENCH_MAX_THREADS)
		return -1;
	w = trace_writer_open(path, 1 << 20, &err);
	if (!w)
		return -1;
	if (threads > 1) {
		bufs = calloc(threads, sizeof(*bufs));
		for (uint32_t t = 0; bufs && t < threads; t++)
			if (!(bufs[t].rec = malloc((size_t)block * sizeof(*bufs[t].rec))))
				rc = -1;
		if (!bufs)
			rc = -1;
	}
	sy_header(&h, device, 0);
	rc |= trace_writer_header(w, &h);
	for (int i = 0; i < 20; i++) {
		int len = snprintf(buf, sizeof(buf), "%s_kernel_%d", i % 3 ? "elementwise" : "gemm", i);
		names[i] = trace_writer_intern(w, buf, (size_t)len);
	}
	for (uint64_t i = 0; rc == 0 && i < n; i++) {
		uint64_t lib = 0, start;
		uint32_t t = (uint32_t)(i % threads), thread = 1 + t;
		uint64_t stream = 7 + t;

		if (i % 10000 == 0) {
			memset(&r, 0, sizeof(r));
			r.type = TRACE_MARKER;
			r.u.marker = (struct trace_marker){ .seq = ++seq, .kind = TRACE_MARK_ITERATION,
				.thread = thread, .cpu_ns = cpu, .iteration = (int32_t)(i / 10000) };
			rc |= sy_bench_put(w, bufs, block, t, &r);
		}
		if (i % 10 == 0) {
			memset(&r, 0, sizeof(r));
			r.type = TRACE_GEMM;
			r.u.gemm = (struct trace_gemm){ .seq = ++seq, .api = TRACE_GEMM_GEMMEX,
				.m = 1024 << (i % 3), .n = 1024, .k = 512, .batch = 1,
				.a_type = TRACE_DT_BF16, .b_type = TRACE_DT_BF16,
				.c_type = TRACE_DT_BF16, .compute_type = TRACE_DT_F32,
				.stream = stream, .thread = thread, .cpu_ns = cpu };
			lib = seq;
			rc |= sy_bench_put(w, bufs, block, t, &r);
		}
		memset(&r, 0, sizeof(r));
		cpu += 3000;
		start = cpu + SY_LATENCY > end[t] ? cpu + SY_LATENCY : end[t];
		end[t] = start + 2000 + (i % 7) * 300;
		r.type = TRACE_KERNEL;
		r.u.kernel = (struct trace_kernel){ .seq = ++seq, .name = names[i % 20],
			.grid = { 64u << (i % 10), 1, 1 }, .block = { 256, 1, 1 }, .regs = 32 + (i % 4) * 16,
			.stream = stream, .thread = thread, .cpu_ns = cpu, .start_ns = start,
			.end_ns = end[t], .lib_call = lib, .iteration = (int32_t)(i / 10000) };
		rc |= sy_bench_put(w, bufs, block, t, &r);
	}
	for (uint32_t t = 0; bufs && t < threads; t++) {
		for (uint32_t i = 0; rc == 0 && i < bufs[t].n; i++)
			rc |= trace_writer_record(w, &bufs[t].rec[i]);
		free(bufs[t].rec);
	}
	free(bufs);
	if (rc == 0)
		rc = trace_writer_finish(w);
	trace_writer_free(w);
	return rc ? -1 : 0;
}

int synth_write_blocking(const char *path, const char *device, enum synth_blocking how)
{
	static const char kname[] = "void at::native::vectorized_elementwise_kernel<4, "
				    "at::native::AddFunctor<float>>(int, float*, float*)";
	struct trace_header h;
	struct trace_record r;
	int err = 0, rc = 0, untimed = how == SYNTH_BLOCK_ITEM;
	struct trace_writer *w = trace_writer_open(path, 0, &err);
	uint64_t seq = 0, cpu = 1000000, gpu_end = 0;

	if (!w)
		return -1;
	memset(&h, 0, sizeof(h));
	snprintf(h.device.name, sizeof(h.device.name), "%s", device);
	h.timing = untimed ? TRACE_TIMING_NONE : TRACE_TIMING_SYNTHETIC;
	rc |= trace_writer_header(w, &h);
	uint32_t name = trace_writer_intern(w, kname, strlen(kname));
	for (int it = 0; rc == 0 && it < 4; it++) {
		memset(&r, 0, sizeof(r));
		r.type = TRACE_MARKER;
		r.u.marker = (struct trace_marker){ .seq = ++seq, .kind = TRACE_MARK_ITERATION,
			.thread = 1, .cpu_ns = cpu, .iteration = it };
		rc |= trace_writer_record(w, &r);
		for (int k = 0; k < 20; k++) {
			uint64_t start = cpu + 5000 > gpu_end ? cpu + 5000 : gpu_end + 2000;

			gpu_end = start + 200000;   /* 200 us, far longer than a launch */
			memset(&r, 0, sizeof(r));
			r.type = TRACE_KERNEL;
			r.u.kernel = (struct trace_kernel){ .seq = ++seq, .name = name,
				.grid = {8192, 1, 1}, .block = {128, 1, 1}, .stream = 7, .thread = 1,
				.cpu_ns = cpu, .start_ns = untimed ? 0 : start,
				.end_ns = untimed ? 0 : gpu_end, .iteration = it };
			rc |= trace_writer_record(w, &r);
			cpu += 8000;
		}
		/* the copy runs after the last kernel; the call returns 10 us
		 * after it ends */
		uint64_t cstart = gpu_end + 2000, cend = cstart + 2000;
		memset(&r, 0, sizeof(r));
		r.type = TRACE_MEMCPY;
		r.u.copy = (struct trace_copy){ .seq = ++seq, .bytes = 8, .kind = TRACE_COPY_DTOH,
			.async = how != SYNTH_BLOCK_SYNC_CALL, .stream = 7, .thread = 1, .cpu_ns = cpu,
			.cpu_end_ns = cend + 10000, .start_ns = untimed ? 0 : cstart,
			.end_ns = untimed ? 0 : cend,
			.host_mem = how == SYNTH_BLOCK_PAGEABLE ? TRACE_HOST_PAGEABLE : TRACE_HOST_UNKNOWN };
		rc |= trace_writer_record(w, &r);
		cpu = cend + 10000;
		if (how == SYNTH_BLOCK_ITEM) {
			memset(&r, 0, sizeof(r));
			r.type = TRACE_SYNC;
			r.u.sync = (struct trace_sync){ .seq = ++seq, .kind = TRACE_SYNC_STREAM,
				.stream = 7, .thread = 1, .cpu_ns = cpu + 1000, .cpu_end_ns = cpu + 3000 };
			rc |= trace_writer_record(w, &r);
			cpu += 3000;
		}
		cpu += 20000;   /* the step's Python after the copy */
	}
	if (rc == 0)
		rc = trace_writer_finish(w);
	trace_writer_free(w);
	return rc ? -1 : 0;
}
