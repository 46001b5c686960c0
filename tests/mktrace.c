/*
 * mktrace.c - writes a small trace with known content, for the surfer-dump
 * shell test (tests/dump_test.sh, which states the expected values).
 *
 *   mktrace OUT              a complete trace
 *   mktrace --truncated OUT  the same records, no trailer, and the last
 *                            record cut in the middle
 *   mktrace --kernels N OUT  N kernel records (for timing surfer-dump)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/trace.h"

static void fill_header(struct trace_header *h)
{
	memset(h, 0, sizeof(*h));
	snprintf(h->tool_version, sizeof(h->tool_version), "mktrace");
	snprintf(h->host, sizeof(h->host), "testhost");
	h->pid = 4242;
	h->start_unix_ns = 1700000000000000000ull;
	snprintf(h->cmdline, sizeof(h->cmdline), "python train.py --steps 2");
	h->timing = TRACE_TIMING_SYNTHETIC;
	snprintf(h->device.name, sizeof(h->device.name), "NVIDIA H100 80GB HBM3");
	h->device.cc_major = 9;
	h->device.cc_minor = 0;
	h->device.sm_count = 132;
	h->device.clock_khz = 1980000;
	h->device.mem_bytes = 85520809984ull;
	h->device.driver_version = 12040;
}

static int put(struct trace_writer *w, struct trace_record *r)
{
	int rc = trace_writer_record(w, r);
	if (rc < 0)
		fprintf(stderr, "mktrace: record of type %d refused: %d\n", (int)r->type, rc);
	return rc;
}

/* The fixed content: 11 records besides header, strings and trailer. */
static int write_known(struct trace_writer *w)
{
	struct trace_record r;
	uint32_t gemm_name = trace_writer_intern(w, "sm90_xmma_gemm_bf16", 19);
	uint32_t relu_name = trace_writer_intern(w, "relu_kernel", 11);
	uint32_t step = trace_writer_intern(w, "step", 4);
	uint32_t f0 = trace_writer_intern(w, "libtorch.so+0x10 at::mm+0x4", 27);
	int rc = 0;

	memset(&r, 0, sizeof(r));
	r.type = TRACE_STACK;
	r.u.stack.id = 7;
	r.u.stack.nframes = 1;
	r.u.stack.frames[0] = f0;
	rc |= put(w, &r);

	memset(&r, 0, sizeof(r));
	r.type = TRACE_MARKER;
	r.u.marker = (struct trace_marker){ .seq = 1, .kind = TRACE_MARK_ITERATION,
		.name = step, .thread = 11, .cpu_ns = 1000, .iteration = 0 };
	rc |= put(w, &r);

	memset(&r, 0, sizeof(r));
	r.type = TRACE_GEMM;
	r.u.gemm = (struct trace_gemm){ .seq = 2, .api = TRACE_GEMM_LT_MATMUL, .m = 4096,
		.n = 1024, .k = 512, .batch = 1, .trans_a = 1, .trans_b = 0,
		.a_type = TRACE_DT_BF16, .b_type = TRACE_DT_BF16, .c_type = TRACE_DT_BF16,
		.compute_type = TRACE_DT_F32, .epilogue = 1, .stream = 7, .thread = 11,
		.cpu_ns = 1500 };
	rc |= put(w, &r);

	memset(&r, 0, sizeof(r));
	r.type = TRACE_KERNEL;
	r.u.kernel = (struct trace_kernel){ .seq = 3, .name = gemm_name,
		.grid = { 128, 8, 1 }, .block = { 256, 1, 1 }, .cluster = { 2, 1, 1 },
		.regs = 168, .static_smem = 0, .dyn_smem = 232448, .stream = 7,
		.thread = 11, .flags = TRACE_KF_EX, .cpu_ns = 2000, .start_ns = 5000,
		.end_ns = 5750, .lib_call = 2, .iteration = 0, .stack = 7 };
	rc |= put(w, &r);

	memset(&r, 0, sizeof(r));
	r.type = TRACE_KERNEL;
	r.u.kernel = (struct trace_kernel){ .seq = 4, .name = relu_name,
		.grid = { 1024, 1, 1 }, .block = { 128, 1, 1 }, .regs = 16,
		.stream = 7, .thread = 11, .cpu_ns = 2100, .iteration = 0 };
	rc |= put(w, &r);

	memset(&r, 0, sizeof(r));
	r.type = TRACE_CONV;
	r.u.conv = (struct trace_conv){ .seq = 5, .api = TRACE_CONV_API_V7,
		.dir = TRACE_CONV_BWD_DATA, .nbdims = 4, .in = { 32, 64, 56, 56 },
		.filt = { 128, 64, 3, 3 }, .out = { 32, 128, 56, 56 }, .stride = { 1, 1 },
		.pad = { 1, 1 }, .dilation = { 1, 1 }, .groups = 1, .dtype = TRACE_DT_F16,
		.compute_type = TRACE_DT_F32, .stream = 7, .thread = 11, .cpu_ns = 2200 };
	rc |= put(w, &r);

	memset(&r, 0, sizeof(r));
	r.type = TRACE_MEMCPY;
	r.u.copy = (struct trace_copy){ .seq = 6, .bytes = 1048576, .kind = TRACE_COPY_HTOD,
		.async = 1, .stream = 7, .thread = 11, .cpu_ns = 2300, .cpu_end_ns = 2310,
		.start_ns = 6000, .end_ns = 6100, .host_mem = TRACE_HOST_PINNED };
	rc |= put(w, &r);

	memset(&r, 0, sizeof(r));
	r.type = TRACE_MEMSET;
	r.u.copy = (struct trace_copy){ .seq = 7, .bytes = 4096, .stream = 7, .thread = 11,
		.cpu_ns = 2400 };
	rc |= put(w, &r);

	memset(&r, 0, sizeof(r));
	r.type = TRACE_SYNC;
	r.u.sync = (struct trace_sync){ .seq = 8, .kind = TRACE_SYNC_STREAM, .stream = 7,
		.thread = 11, .cpu_ns = 2500, .cpu_end_ns = 7000 };
	rc |= put(w, &r);

	memset(&r, 0, sizeof(r));
	r.type = TRACE_KERNEL;
	r.u.kernel = (struct trace_kernel){ .seq = 9, .name = relu_name,
		.grid = { 1024, 1, 1 }, .block = { 128, 1, 1 }, .regs = 16,
		.stream = 7, .thread = 11, .cpu_ns = 7100, .start_ns = 8000, .end_ns = 8040,
		.iteration = 1 };
	rc |= put(w, &r);

	memset(&r, 0, sizeof(r));
	r.type = TRACE_MARKER;
	r.u.marker = (struct trace_marker){ .seq = 10, .kind = TRACE_MARK_CAPTURE_STOP,
		.thread = 11, .cpu_ns = 9000, .iteration = -1 };
	rc |= put(w, &r);
	return rc;
}

static int write_many(struct trace_writer *w, long n)
{
	char name[32];
	for (long i = 0; i < n; i++) {
		struct trace_record r;
		memset(&r, 0, sizeof(r));
		int len = snprintf(name, sizeof(name), "kernel_%ld", i % 300);
		r.type = TRACE_KERNEL;
		r.u.kernel.seq = (uint64_t)i + 1;
		r.u.kernel.name = trace_writer_intern(w, name, (size_t)len);
		r.u.kernel.grid[0] = 1 + (uint32_t)(i % 4096);
		r.u.kernel.grid[1] = r.u.kernel.grid[2] = 1;
		r.u.kernel.block[0] = 256;
		r.u.kernel.block[1] = r.u.kernel.block[2] = 1;
		r.u.kernel.regs = 32;
		r.u.kernel.stream = 7;
		r.u.kernel.thread = 11;
		r.u.kernel.cpu_ns = 1000000000ull + (uint64_t)i * 5000;
		r.u.kernel.start_ns = 2000000000ull + (uint64_t)i * 5000;
		r.u.kernel.end_ns = r.u.kernel.start_ns + 3000;
		r.u.kernel.iteration = (int32_t)(i / 10000);
		if (trace_writer_record(w, &r) < 0)
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int cut = 0;
	long many = -1;
	int i = 1;
	for (; i < argc - 1; i++) {
		if (strcmp(argv[i], "--truncated") == 0)
			cut = 1;
		else if (strcmp(argv[i], "--kernels") == 0 && i + 1 < argc - 1)
			many = atol(argv[++i]);
		else
			break;
	}
	if (i != argc - 1) {
		fprintf(stderr, "usage: mktrace [--truncated] [--kernels N] OUT\n");
		return 2;
	}
	const char *path = argv[i];
	int err = 0;
	struct trace_writer *w = trace_writer_open(path, 0, &err);
	if (!w) {
		perror("mktrace: cannot create trace");
		return 2;
	}
	struct trace_header h;
	fill_header(&h);
	int rc = trace_writer_header(w, &h);
	if (rc == 0)
		rc = many >= 0 ? write_many(w, many) : write_known(w);
	if (rc == 0 && !cut)
		rc = trace_writer_finish(w);
	trace_writer_free(w);   /* flushes what an unfinished writer holds */
	if (rc != 0) {
		fprintf(stderr, "mktrace: cannot write '%s'\n", path);
		return 2;
	}
	if (cut) {
		FILE *f = fopen(path, "rb");
		if (!f || fseek(f, 0, SEEK_END) != 0) {
			perror("mktrace");
			return 2;
		}
		long size = ftell(f);
		fclose(f);
		/* Cut the last record (a marker, 12 bytes) in the middle. */
		if (size < 6 || truncate(path, (off_t)(size - 5)) != 0) {
			perror("mktrace: cannot truncate");
			return 2;
		}
	}
	return 0;
}
