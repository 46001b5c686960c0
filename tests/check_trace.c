/*
 * check_trace.c - Check suite of the trace module (trace/): round trip of
 * every record type and field, truncation at every byte offset, random
 * corruption, version rules, hand-made encodings the writer never
 * produces (missing and extra fields, oversized lengths), and a streamed
 * one-million-kernel trace in bounded memory.
 *
 * Expected values come from the structs written or from hand-built msgpack,
 * never from the reader's own output.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <msgpack.h>

#include "trace/internal.h"
#include "trace/trace.h"
#include "tests/check_run.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif
#ifndef UNDER_SANITIZER
#define UNDER_SANITIZER 0
#endif

/* ---- a memory sink that remembers where each sink call ended --------- */

struct memsink {
	unsigned char *buf;
	size_t len, cap;
	size_t ends[256];   /* byte offset after each sink call */
	size_t ncalls;
	int fail_after;     /* fail the call with this index (-1 never) */
};

static int mem_sink(void *ctx, const void *p, size_t n)
{
	struct memsink *m = ctx;
	if (m->fail_after >= 0 && (int)m->ncalls >= m->fail_after)
		return -1;
	if (m->len + n > m->cap) {
		m->cap = (m->len + n) * 2;
		m->buf = realloc(m->buf, m->cap);
		ck_assert_ptr_nonnull(m->buf);
	}
	memcpy(m->buf + m->len, p, n);
	m->len += n;
	if (m->ncalls < sizeof(m->ends) / sizeof(m->ends[0]))
		m->ends[m->ncalls] = m->len;
	m->ncalls++;
	return 0;
}

static void memsink_init(struct memsink *m)
{
	memset(m, 0, sizeof(*m));
	m->fail_after = -1;
}

static void fill_header(struct trace_header *h)
{
	memset(h, 0, sizeof(*h));
	strcpy(h->tool_version, "0.1.0-test");
	strcpy(h->host, "node17");
	h->pid = 31337;
	h->start_unix_ns = 1764400000123456789ull;
	strcpy(h->cmdline, "torchrun --nproc 1 train.py");
	h->timing = TRACE_TIMING_CUPTI;
	strcpy(h->timing_note, "cupti activity api");
	struct trace_device *d = &h->device;
	strcpy(d->name, "NVIDIA A100-SXM4-80GB");
	d->cc_major = 8;
	d->cc_minor = 1;
	d->sm_count = 108;
	d->clock_khz = 1410000;
	d->mem_clock_khz = 1593000;
	d->mem_bus_bits = 5120;
	d->mem_bytes = 85899345920ull;
	d->l2_bytes = 41943040;
	d->max_threads_per_sm = 2048;
	d->max_blocks_per_sm = 32;
	d->regs_per_sm = 65536;
	d->smem_per_sm = 167936;
	d->smem_per_block_optin = 166912;
	d->driver_version = 12040;
	d->runtime_version = 12010;
	h->world_size = 64;
	h->power_limit_w = 312.5;
}

/* ---- one record of every type, every field a distinct value ---------- */

struct sample {
	uint32_t s_kname, s_range, s_frame1, s_frame2, s_nul, s_long;
	struct trace_record rec[8];   /* stack, kernel, gemm, conv, memcpy, memset, sync, marker */
};

static char long_string[TRACE_STRING_MAX];

/* with_long adds a TRACE_STRING_MAX-byte string (id 6): the round trip
 * wants it, the byte-by-byte tests stay small without it. */
static void make_sample(struct trace_writer *w, struct sample *s, int with_long)
{
	memset(long_string, 'x', sizeof(long_string));
	long_string[0] = 'L';
	s->s_kname = trace_writer_intern(w, "_Z10vec_addPfS_S_i", 18);
	s->s_range = trace_writer_intern(w, "forward", 7);
	s->s_frame1 = trace_writer_intern(w, "libc10.so+0x1234 c10::foo+0x10", 30);
	s->s_frame2 = trace_writer_intern(w, "python3+0x99", 12);
	s->s_nul = trace_writer_intern(w, "a\0b", 3);
	s->s_long = with_long ? trace_writer_intern(w, long_string, sizeof(long_string)) : 0;
	ck_assert_uint_eq(s->s_kname, 1);
	ck_assert_uint_eq(s->s_long, with_long ? 6 : 0);
	/* Interning again returns the same id and writes nothing new. */
	ck_assert_uint_eq(trace_writer_intern(w, "forward", 7), s->s_range);

	struct trace_record *r = s->rec;
	memset(r, 0, sizeof(s->rec));
	r[0].type = TRACE_STACK;
	r[0].u.stack.id = 42;
	r[0].u.stack.nframes = TRACE_STACK_MAXFRAMES;
	for (uint32_t i = 0; i < TRACE_STACK_MAXFRAMES; i++)
		r[0].u.stack.frames[i] = i % 2 ? s->s_frame2 : s->s_frame1;

	r[1].type = TRACE_KERNEL;
	r[1].u.kernel = (struct trace_kernel){
		.seq = 10000000001ull, .name = s->s_kname, .grid = { 2147483647u, 65535, 3 },
		.block = { 32, 8, 4 }, .cluster = { 2, 2, 1 }, .regs = 255, .static_smem = 1024,
		.dyn_smem = 232448, .stream = 0xfedcba9876543210ull, .thread = 4000000000u,
		.flags = TRACE_KF_COOPERATIVE | TRACE_KF_GRAPH | TRACE_KF_EX,
		.cpu_ns = 1111111111111ull, .start_ns = 2222222222222ull,
		.end_ns = 2222222233333ull, .lib_call = 9999, .iteration = 77, .stack = 42,
		.graph = 0xfeedface12345678ull, .replay = 1ull << 50,
	};

	r[2].type = TRACE_GEMM;
	r[2].u.gemm = (struct trace_gemm){
		.seq = 12, .api = TRACE_GEMM_GEMM_STRIDED_BATCHED_EX, .m = 8192, .n = 3,
		.k = 1ull << 40, .batch = 96, .trans_a = 2, .trans_b = 1,
		.a_type = TRACE_DT_F8E4M3, .b_type = TRACE_DT_F8E5M2, .c_type = TRACE_DT_BF16,
		.compute_type = TRACE_DT_F32, .epilogue = 33, .stream = 5, .thread = 6,
		.cpu_ns = 7,
	};

	r[3].type = TRACE_CONV;
	r[3].u.conv = (struct trace_conv){
		.seq = 13, .api = TRACE_CONV_API_BACKEND, .dir = TRACE_CONV_BWD_FILTER,
		.nbdims = 5, .in = { 8, 64, 16, 112, 111 }, .filt = { 128, 32, 3, 5, 7 },
		.out = { 8, 128, 14, 108, 105 }, .stride = { 1, 2, 3 }, .pad = { 0, 4, 5 },
		.dilation = { 6, 7, 8 }, .groups = 2, .dtype = TRACE_DT_BF16,
		.compute_type = TRACE_DT_F32, .stream = 14, .thread = 15, .cpu_ns = 16,
	};

	r[4].type = TRACE_MEMCPY;
	r[4].u.copy = (struct trace_copy){
		.seq = 17, .bytes = 1ull << 33, .kind = TRACE_COPY_PTOP, .async = 1,
		.stream = 18, .thread = 19, .cpu_ns = 20, .cpu_end_ns = 21, .start_ns = 22,
		.end_ns = 23, .host_mem = TRACE_HOST_PINNED, .copies = 3,
	};

	r[5].type = TRACE_MEMSET;
	r[5].u.copy = (struct trace_copy){
		.seq = 24, .bytes = 25, .kind = TRACE_COPY_UNKNOWN, .async = 0, .stream = 26,
		.thread = 27, .cpu_ns = 28, .cpu_end_ns = 29, .start_ns = 30, .end_ns = 31,
	};

	r[6].type = TRACE_SYNC;
	r[6].u.sync = (struct trace_sync){
		.seq = 32, .kind = TRACE_SYNC_STREAM_WAIT_EVENT, .stream = 33, .thread = 34,
		.cpu_ns = 35, .cpu_end_ns = 36, .event = 0x7f3a5c001230ULL,
	};

	r[7].type = TRACE_MARKER;
	r[7].u.marker = (struct trace_marker){
		.seq = 37, .kind = TRACE_MARK_RANGE_PUSH, .name = s->s_range, .thread = 38,
		.cpu_ns = 39, .iteration = -1,
	};
}

static void check_kernel_eq(const struct trace_kernel *a, const struct trace_kernel *b)
{
	ck_assert_uint_eq(a->seq, b->seq);
	ck_assert_uint_eq(a->name, b->name);
	for (int i = 0; i < 3; i++) {
		ck_assert_uint_eq(a->grid[i], b->grid[i]);
		ck_assert_uint_eq(a->block[i], b->block[i]);
		ck_assert_uint_eq(a->cluster[i], b->cluster[i]);
	}
	ck_assert_uint_eq(a->regs, b->regs);
	ck_assert_uint_eq(a->static_smem, b->static_smem);
	ck_assert_uint_eq(a->dyn_smem, b->dyn_smem);
	ck_assert_uint_eq(a->stream, b->stream);
	ck_assert_uint_eq(a->thread, b->thread);
	ck_assert_uint_eq(a->flags, b->flags);
	ck_assert_uint_eq(a->cpu_ns, b->cpu_ns);
	ck_assert_uint_eq(a->start_ns, b->start_ns);
	ck_assert_uint_eq(a->end_ns, b->end_ns);
	ck_assert_uint_eq(a->lib_call, b->lib_call);
	ck_assert_int_eq(a->iteration, b->iteration);
	ck_assert_uint_eq(a->stack, b->stack);
	ck_assert_uint_eq(a->graph, b->graph);
	ck_assert_uint_eq(a->replay, b->replay);
}

static void check_record_eq(const struct trace_record *got, const struct trace_record *want)
{
	ck_assert_int_eq(got->type, want->type);
	switch (want->type) {
	case TRACE_KERNEL:
		check_kernel_eq(&got->u.kernel, &want->u.kernel);
		break;
	case TRACE_GEMM: {
		const struct trace_gemm *a = &got->u.gemm, *b = &want->u.gemm;
		ck_assert_uint_eq(a->seq, b->seq);
		ck_assert_int_eq(a->api, b->api);
		ck_assert_uint_eq(a->m, b->m);
		ck_assert_uint_eq(a->n, b->n);
		ck_assert_uint_eq(a->k, b->k);
		ck_assert_uint_eq(a->batch, b->batch);
		ck_assert_uint_eq(a->trans_a, b->trans_a);
		ck_assert_uint_eq(a->trans_b, b->trans_b);
		ck_assert_int_eq(a->a_type, b->a_type);
		ck_assert_int_eq(a->b_type, b->b_type);
		ck_assert_int_eq(a->c_type, b->c_type);
		ck_assert_int_eq(a->compute_type, b->compute_type);
		ck_assert_uint_eq(a->epilogue, b->epilogue);
		ck_assert_uint_eq(a->stream, b->stream);
		ck_assert_uint_eq(a->thread, b->thread);
		ck_assert_uint_eq(a->cpu_ns, b->cpu_ns);
		break;
	}
	case TRACE_CONV: {
		const struct trace_conv *a = &got->u.conv, *b = &want->u.conv;
		ck_assert_uint_eq(a->seq, b->seq);
		ck_assert_int_eq(a->api, b->api);
		ck_assert_int_eq(a->dir, b->dir);
		ck_assert_uint_eq(a->nbdims, b->nbdims);
		for (int i = 0; i < TRACE_CONV_MAXDIM; i++) {
			ck_assert_int_eq(a->in[i], b->in[i]);
			ck_assert_int_eq(a->filt[i], b->filt[i]);
			ck_assert_int_eq(a->out[i], b->out[i]);
		}
		for (int i = 0; i < 3; i++) {
			ck_assert_int_eq(a->stride[i], b->stride[i]);
			ck_assert_int_eq(a->pad[i], b->pad[i]);
			ck_assert_int_eq(a->dilation[i], b->dilation[i]);
		}
		ck_assert_uint_eq(a->groups, b->groups);
		ck_assert_int_eq(a->dtype, b->dtype);
		ck_assert_int_eq(a->compute_type, b->compute_type);
		ck_assert_uint_eq(a->stream, b->stream);
		ck_assert_uint_eq(a->thread, b->thread);
		ck_assert_uint_eq(a->cpu_ns, b->cpu_ns);
		break;
	}
	case TRACE_MEMCPY:
	case TRACE_MEMSET: {
		const struct trace_copy *a = &got->u.copy, *b = &want->u.copy;
		ck_assert_uint_eq(a->seq, b->seq);
		ck_assert_uint_eq(a->bytes, b->bytes);
		ck_assert_int_eq(a->kind, b->kind);
		ck_assert_uint_eq(a->async, b->async);
		ck_assert_uint_eq(a->stream, b->stream);
		ck_assert_uint_eq(a->thread, b->thread);
		ck_assert_uint_eq(a->cpu_ns, b->cpu_ns);
		ck_assert_uint_eq(a->cpu_end_ns, b->cpu_end_ns);
		ck_assert_uint_eq(a->start_ns, b->start_ns);
		ck_assert_uint_eq(a->end_ns, b->end_ns);
		ck_assert_int_eq(a->host_mem, b->host_mem);
		ck_assert_uint_eq(a->copies, b->copies);
		break;
	}
	case TRACE_SYNC: {
		const struct trace_sync *a = &got->u.sync, *b = &want->u.sync;
		ck_assert_uint_eq(a->seq, b->seq);
		ck_assert_int_eq(a->kind, b->kind);
		ck_assert_uint_eq(a->stream, b->stream);
		ck_assert_uint_eq(a->thread, b->thread);
		ck_assert_uint_eq(a->cpu_ns, b->cpu_ns);
		ck_assert_uint_eq(a->cpu_end_ns, b->cpu_end_ns);
		ck_assert_uint_eq(a->event, b->event);
		break;
	}
	case TRACE_MARKER: {
		const struct trace_marker *a = &got->u.marker, *b = &want->u.marker;
		ck_assert_uint_eq(a->seq, b->seq);
		ck_assert_int_eq(a->kind, b->kind);
		ck_assert_uint_eq(a->name, b->name);
		ck_assert_uint_eq(a->thread, b->thread);
		ck_assert_uint_eq(a->cpu_ns, b->cpu_ns);
		ck_assert_int_eq(a->iteration, b->iteration);
		break;
	}
	case TRACE_STACK: {
		const struct trace_stack *a = &got->u.stack, *b = &want->u.stack;
		ck_assert_uint_eq(a->id, b->id);
		ck_assert_uint_eq(a->nframes, b->nframes);
		for (uint32_t i = 0; i < b->nframes; i++)
			ck_assert_uint_eq(a->frames[i], b->frames[i]);
		break;
	}
	default:
		ck_abort_msg("unexpected record type %d", (int)want->type);
	}
}

/* Writes header + sample records + trailer into m (chunk size 1: one sink
 * call per record). */
static void write_sample(struct memsink *m, struct sample *s, int finish, int with_long)
{
	memsink_init(m);
	struct trace_writer *w = trace_writer_new(mem_sink, m, 1);
	ck_assert_ptr_nonnull(w);
	struct trace_header h;
	fill_header(&h);
	ck_assert_int_eq(trace_writer_header(w, &h), 0);
	make_sample(w, s, with_long);
	for (int i = 0; i < 8; i++)
		ck_assert_int_eq(trace_writer_record(w, &s->rec[i]), 0);
	trace_writer_add_dropped(w, 3);
	trace_writer_set_peak_device_bytes(w, 5ull << 32);
	if (finish)
		ck_assert_int_eq(trace_writer_finish(w), 0);
	trace_writer_free(w);
}

START_TEST(test_round_trip)
{
	struct memsink m;
	struct sample s;
	write_sample(&m, &s, 1, 1);
	/* Chunk size 1: header, 6 strings, 8 records, trailer, one call each. */
	ck_assert_uint_eq(m.ncalls, 16);

	struct trace_reader *r;
	char err[256] = "";
	ck_assert_int_eq(trace_reader_open_mem(&r, m.buf, m.len, err, sizeof(err)), 0);
	const struct trace_header *h = trace_reader_header(r);
	struct trace_header want;
	fill_header(&want);
	ck_assert_uint_eq(h->version_major, TRACE_VERSION_MAJOR);
	ck_assert_uint_eq(h->version_minor, TRACE_VERSION_MINOR);
	ck_assert_str_eq(h->tool_version, want.tool_version);
	ck_assert_str_eq(h->host, want.host);
	ck_assert_uint_eq(h->pid, want.pid);
	ck_assert_uint_eq(h->start_unix_ns, want.start_unix_ns);
	ck_assert_str_eq(h->cmdline, want.cmdline);
	ck_assert_int_eq(h->timing, want.timing);
	ck_assert_str_eq(h->timing_note, want.timing_note);
	ck_assert_uint_eq(h->world_size, want.world_size);
	ck_assert_double_eq(h->power_limit_w, want.power_limit_w);
	ck_assert_str_eq(h->device.name, want.device.name);
	ck_assert_uint_eq(h->device.cc_major, want.device.cc_major);
	ck_assert_uint_eq(h->device.cc_minor, want.device.cc_minor);
	ck_assert_uint_eq(h->device.sm_count, want.device.sm_count);
	ck_assert_uint_eq(h->device.clock_khz, want.device.clock_khz);
	ck_assert_uint_eq(h->device.mem_clock_khz, want.device.mem_clock_khz);
	ck_assert_uint_eq(h->device.mem_bus_bits, want.device.mem_bus_bits);
	ck_assert_uint_eq(h->device.mem_bytes, want.device.mem_bytes);
	ck_assert_uint_eq(h->device.l2_bytes, want.device.l2_bytes);
	ck_assert_uint_eq(h->device.max_threads_per_sm, want.device.max_threads_per_sm);
	ck_assert_uint_eq(h->device.max_blocks_per_sm, want.device.max_blocks_per_sm);
	ck_assert_uint_eq(h->device.regs_per_sm, want.device.regs_per_sm);
	ck_assert_uint_eq(h->device.smem_per_sm, want.device.smem_per_sm);
	ck_assert_uint_eq(h->device.smem_per_block_optin, want.device.smem_per_block_optin);
	ck_assert_uint_eq(h->device.driver_version, want.device.driver_version);
	ck_assert_uint_eq(h->device.runtime_version, want.device.runtime_version);

	struct trace_record rec;
	for (int i = 0; i < 8; i++) {
		ck_assert_int_eq(trace_reader_next(r, &rec, err, sizeof(err)), 1);
		check_record_eq(&rec, &s.rec[i]);
	}
	ck_assert_int_eq(trace_reader_next(r, &rec, err, sizeof(err)), 0);
	ck_assert_int_eq(rec.type, TRACE_TRAILER);
	ck_assert_uint_eq(rec.u.trailer.count[TRACE_HEADER], 1);
	ck_assert_uint_eq(rec.u.trailer.count[TRACE_STRING], 6);
	ck_assert_uint_eq(rec.u.trailer.count[TRACE_KERNEL], 1);
	ck_assert_uint_eq(rec.u.trailer.count[TRACE_MEMSET], 1);
	ck_assert_uint_eq(rec.u.trailer.dropped, 3);
	ck_assert_uint_eq(rec.u.trailer.peak_device_bytes, 5ull << 32);
	ck_assert_uint_gt(rec.u.trailer.end_unix_ns, 1600000000ull * 1000000000ull);
	/* At the end, later calls keep returning the trailer. */
	ck_assert_int_eq(trace_reader_next(r, &rec, err, sizeof(err)), 0);
	ck_assert_int_eq(rec.type, TRACE_TRAILER);
	ck_assert_uint_eq(trace_reader_count(r), 8);

	size_t len = 0;
	ck_assert_uint_eq(trace_reader_nstrings(r), 6);
	ck_assert_str_eq(trace_reader_string(r, s.s_kname, &len), "_Z10vec_addPfS_S_i");
	ck_assert_uint_eq(len, 18);
	const char *nul = trace_reader_string(r, s.s_nul, &len);
	ck_assert_uint_eq(len, 3);
	ck_assert_int_eq(memcmp(nul, "a\0b", 4), 0);
	const char *lng = trace_reader_string(r, s.s_long, &len);
	ck_assert_uint_eq(len, sizeof(long_string));
	ck_assert_int_eq(memcmp(lng, long_string, len), 0);
	ck_assert_int_eq(lng[len], '\0');
	ck_assert_ptr_null(trace_reader_string(r, 0, NULL));
	ck_assert_ptr_null(trace_reader_string(r, 7, NULL));
	const struct trace_stack *st = trace_reader_stack(r, 42);
	ck_assert_ptr_nonnull(st);
	ck_assert_uint_eq(st->nframes, TRACE_STACK_MAXFRAMES);
	ck_assert_uint_eq(st->frames[1], s.s_frame2);
	ck_assert_ptr_null(trace_reader_stack(r, 43));
	trace_reader_free(r);
	free(m.buf);
}
END_TEST

START_TEST(test_writer_refuses)
{
	struct memsink m;
	memsink_init(&m);
	struct trace_writer *w = trace_writer_new(mem_sink, &m, 0);
	struct trace_record r;
	memset(&r, 0, sizeof(r));
	r.type = TRACE_KERNEL;
	r.u.kernel.grid[0] = r.u.kernel.grid[1] = r.u.kernel.grid[2] = 1;
	r.u.kernel.block[0] = r.u.kernel.block[1] = r.u.kernel.block[2] = 1;
	/* Nothing before the header. */
	ck_assert_int_eq(trace_writer_record(w, &r), TRACE_EINVAL);
	ck_assert_uint_eq(trace_writer_intern(w, "x", 1), 0);
	struct trace_header h;
	fill_header(&h);
	ck_assert_int_eq(trace_writer_header(w, &h), 0);
	ck_assert_int_eq(trace_writer_header(w, &h), TRACE_EINVAL);
	ck_assert_int_eq(trace_writer_record(w, &r), 0);

	struct trace_record bad = r;
	bad.u.kernel.grid[1] = 0;
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);
	bad = r;
	bad.u.kernel.block[0] = 64;
	bad.u.kernel.block[1] = 32;   /* 2048 threads */
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);
	bad = r;
	bad.u.kernel.name = 1;        /* no string defined yet */
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);
	bad = r;
	bad.u.kernel.cluster[0] = 2;  /* partly zero */
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);
	bad = r;
	bad.u.kernel.stack = 5;       /* undefined stack */
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);
	bad = r;
	bad.u.kernel.start_ns = 10;
	bad.u.kernel.end_ns = 9;
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);
	bad = r;
	bad.u.kernel.iteration = -2;
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);

	memset(&bad, 0, sizeof(bad));
	bad.type = TRACE_MEMSET;
	bad.u.copy.kind = TRACE_COPY_HTOD;
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);
	memset(&bad, 0, sizeof(bad));
	bad.type = TRACE_CONV;
	bad.u.conv.nbdims = 3;
	bad.u.conv.groups = 1;
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);
	memset(&bad, 0, sizeof(bad));
	bad.type = TRACE_GEMM;
	bad.u.gemm.api = TRACE_GEMM_API_COUNT;
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);
	memset(&bad, 0, sizeof(bad));
	bad.type = TRACE_TRAILER;
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);
	bad.type = TRACE_STRING;
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);

	uint32_t f = trace_writer_intern(w, "frame", 5);
	ck_assert_uint_eq(f, 1);
	memset(&bad, 0, sizeof(bad));
	bad.type = TRACE_STACK;
	bad.u.stack.id = 3;
	bad.u.stack.nframes = 1;
	bad.u.stack.frames[0] = f;
	ck_assert_int_eq(trace_writer_record(w, &bad), 0);
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);   /* defined twice */
	bad.u.stack.id = 4;
	bad.u.stack.nframes = TRACE_STACK_MAXFRAMES + 1;
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);

	/* Too long a string is refused. */
	char *big = calloc(1, TRACE_STRING_MAX + 1);
	ck_assert_uint_eq(trace_writer_intern(w, big, TRACE_STRING_MAX + 1), 0);
	free(big);

	ck_assert_uint_eq(trace_writer_counts(w)->count[TRACE_KERNEL], 1);
	ck_assert_uint_eq(trace_writer_counts(w)->count[TRACE_STACK], 1);
	ck_assert_int_eq(trace_writer_finish(w), 0);
	ck_assert_int_eq(trace_writer_record(w, &r), TRACE_EINVAL);
	trace_writer_free(w);
	free(m.buf);
}
END_TEST

START_TEST(test_writer_sink_failure)
{
	struct memsink m;
	memsink_init(&m);
	m.fail_after = 1;   /* the header goes through, the next chunk fails */
	struct trace_writer *w = trace_writer_new(mem_sink, &m, 1);
	struct trace_header h;
	fill_header(&h);
	ck_assert_int_eq(trace_writer_header(w, &h), 0);
	struct trace_record r;
	memset(&r, 0, sizeof(r));
	r.type = TRACE_SYNC;
	ck_assert_int_eq(trace_writer_record(w, &r), TRACE_EIO);
	ck_assert_int_eq(trace_writer_record(w, &r), TRACE_EIO);
	ck_assert_int_eq(trace_writer_finish(w), TRACE_EIO);
	trace_writer_free(w);
	free(m.buf);

	int err = 0;
	ck_assert_ptr_null(trace_writer_open("/nonexistent-dir/x.mp", 0, &err));
	ck_assert_int_eq(err, TRACE_EIO);
}
END_TEST

/* ---- truncation at every byte offset --------------------------------- */

START_TEST(test_truncation_every_offset)
{
	struct memsink m;
	struct sample s;
	write_sample(&m, &s, 1, 0);
	/* Sink calls: 0 header, 1-5 strings, 6-13 the 8 records, 14 trailer.
	 * N for a prefix = records among calls 6..13 that end within it. */
	ck_assert_uint_eq(m.ncalls, 15);
	ck_assert_uint_eq(m.ends[14], m.len);
	for (size_t cut = 0; cut <= m.len; cut++) {
		unsigned expect_n = 0;
		for (size_t c = 6; c <= 13; c++)
			expect_n += m.ends[c] <= cut;
		char expect_msg[64];
		snprintf(expect_msg, sizeof(expect_msg), "truncated after %u records", expect_n);

		/* A private copy, so ASan sees any read past the cut. */
		unsigned char *copy = malloc(cut ? cut : 1);
		memcpy(copy, m.buf, cut);
		struct trace_reader *r = NULL;
		char err[256] = "";
		int rc = trace_reader_open_mem(&r, copy, cut, err, sizeof(err));
		if (cut < m.ends[0]) {
			ck_assert_msg(rc == TRACE_ETRUNC, "cut %zu: open returned %d", cut, rc);
			ck_assert_str_eq(err, "truncated after 0 records");
			ck_assert_ptr_null(r);
			free(copy);
			continue;
		}
		ck_assert_msg(rc == 0, "cut %zu: open returned %d (%s)", cut, rc, err);
		struct trace_record rec;
		unsigned n = 0;
		while ((rc = trace_reader_next(r, &rec, err, sizeof(err))) == 1) {
			check_record_eq(&rec, &s.rec[n]);
			n++;
			ck_assert_uint_le(n, 8);
		}
		if (cut == m.len) {
			ck_assert_int_eq(rc, 0);
			ck_assert_uint_eq(n, 8);
		} else {
			ck_assert_msg(rc == TRACE_ETRUNC, "cut %zu: next returned %d (%s)", cut, rc, err);
			ck_assert_uint_eq(n, expect_n);
			ck_assert_str_eq(err, expect_msg);
			/* The error sticks. */
			err[0] = '\0';
			ck_assert_int_eq(trace_reader_next(r, &rec, err, sizeof(err)), TRACE_ETRUNC);
			ck_assert_str_eq(err, expect_msg);
		}
		trace_reader_free(r);
		free(copy);
	}
	free(m.buf);
}
END_TEST

START_TEST(test_unfinished_writer)
{
	/* A writer freed without finishing flushes its records: truncated
	 * after all 8 of them. */
	struct memsink m;
	struct sample s;
	write_sample(&m, &s, 0, 0);
	struct trace_reader *r;
	char err[256];
	ck_assert_int_eq(trace_reader_open_mem(&r, m.buf, m.len, err, sizeof(err)), 0);
	struct trace_record rec;
	int rc, n = 0;
	while ((rc = trace_reader_next(r, &rec, err, sizeof(err))) == 1)
		n++;
	ck_assert_int_eq(rc, TRACE_ETRUNC);
	ck_assert_int_eq(n, 8);
	ck_assert_str_eq(err, "truncated after 8 records");
	trace_reader_free(r);
	free(m.buf);
}
END_TEST

/* ---- random corruption ----------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	/* xorshift64* (Vigna 2014). */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

/* Reads the whole input; returns the final code.  Fails the test on a
 * crash (ASan), an endless loop or an inconsistent result. */
static int read_all(const unsigned char *buf, size_t len)
{
	struct trace_reader *r = NULL;
	char err[256] = "";
	int rc = trace_reader_open_mem(&r, buf, len, err, sizeof(err));
	if (rc < 0) {
		ck_assert_ptr_null(r);
		ck_assert_msg(err[0] != '\0', "open: error %d without a reason", rc);
		return rc;
	}
	struct trace_record rec;
	long n = 0;
	while ((rc = trace_reader_next(r, &rec, err, sizeof(err))) == 1) {
		/* Whatever came back passed validation: ids resolve. */
		if (rec.type == TRACE_KERNEL && rec.u.kernel.name)
			ck_assert_ptr_nonnull(trace_reader_string(r, rec.u.kernel.name, NULL));
		if (rec.type == TRACE_KERNEL && rec.u.kernel.stack)
			ck_assert_ptr_nonnull(trace_reader_stack(r, rec.u.kernel.stack));
		ck_assert_msg(++n < 100000, "no end in sight");
	}
	if (rc < 0) {
		ck_assert_msg(err[0] != '\0', "next: error %d without a reason", rc);
		ck_assert_int_eq(trace_reader_next(r, &rec, NULL, 0), rc);
	}
	trace_reader_free(r);
	return rc;
}

START_TEST(test_random_corruption)
{
	struct memsink m;
	struct sample s;
	write_sample(&m, &s, 1, 0);
	static const unsigned char nasty[] = {
		0xc1, 0xdd, 0xdb, 0xdf, 0xc6, 0xc9, 0xff, 0x00, 0x7f, 0x80, 0x90, 0xcf, 0xd3,
	};
	int iterations = UNDER_SANITIZER ? 3000 : 5000;
	int seen[8] = { 0 };
	unsigned char *copy = malloc(m.len);
	for (int it = 0; it < iterations; it++) {
		memcpy(copy, m.buf, m.len);
		int edits = 1 + (int)(rnd() % 4);
		for (int e = 0; e < edits; e++) {
			size_t at = rnd() % m.len;
			switch (rnd() % 3) {
			case 0: copy[at] ^= (unsigned char)(1u << (rnd() % 8)); break;
			case 1: copy[at] = (unsigned char)rnd(); break;
			default: copy[at] = nasty[rnd() % sizeof(nasty)]; break;
			}
		}
		/* Sometimes cut too. */
		size_t len = rnd() % 4 == 0 ? rnd() % m.len : m.len;
		int rc = read_all(copy, len);
		ck_assert_msg(rc == 0 || rc == TRACE_ETRUNC || rc == TRACE_ECORRUPT ||
			      rc == TRACE_EVERSION, "iteration %d: code %d", it, rc);
		seen[-rc]++;
	}
	/* The edits hit every outcome at least once. */
	ck_assert_int_gt(seen[0], 0);
	ck_assert_int_gt(seen[-TRACE_ETRUNC], 0);
	ck_assert_int_gt(seen[-TRACE_ECORRUPT], 0);
	ck_assert_int_gt(seen[-TRACE_EVERSION], 0);
	free(copy);
	free(m.buf);
}
END_TEST

/* ---- hand-made encodings --------------------------------------------- */

struct raw {
	msgpack_sbuffer sb;
	msgpack_packer pk;
};

static void raw_init(struct raw *w)
{
	msgpack_sbuffer_init(&w->sb);
	msgpack_packer_init(&w->pk, &w->sb, msgpack_sbuffer_write);
}

static void raw_str(struct raw *w, const char *s)
{
	msgpack_pack_str(&w->pk, strlen(s));
	msgpack_pack_str_body(&w->pk, s, strlen(s));
}

/* A header of version major.minor: with extra, the fields up to the
 * device (as 1.4 ends), and with extra == 2 a world size of 16 (1.5), a
 * power limit of 300 W (1.6) and a field of a later minor version. */
static void raw_header(struct raw *w, unsigned major, unsigned minor, int extra)
{
	msgpack_pack_array(&w->pk, 4 + (extra ? 8 : 0) + (extra == 2 ? 3 : 0));
	msgpack_pack_uint8(&w->pk, TRACE_HEADER);
	raw_str(w, TRACE_MAGIC);
	msgpack_pack_uint32(&w->pk, major);
	msgpack_pack_uint32(&w->pk, minor);
	if (extra) {
		raw_str(w, "tool");
		raw_str(w, "host");
		msgpack_pack_uint32(&w->pk, 1);
		msgpack_pack_uint64(&w->pk, 2);
		raw_str(w, "cmd");
		/* a timing of a newer minor, or one this reader knows */
		msgpack_pack_uint32(&w->pk, minor > TRACE_VERSION_MINOR ? 99 : TRACE_TIMING_CUPTI);
		raw_str(w, "note");
		msgpack_pack_array(&w->pk, 1);
		raw_str(w, "GPU-X");
	}
	if (extra == 2) {
		msgpack_pack_uint32(&w->pk, 16);
		msgpack_pack_double(&w->pk, 300);
		raw_str(w, "a field of a later minor version");
	}
}

static void raw_kernel_min(struct raw *w, uint64_t seq, uint32_t name)
{
	msgpack_pack_array(&w->pk, 9);
	msgpack_pack_uint8(&w->pk, TRACE_KERNEL);
	msgpack_pack_uint64(&w->pk, seq);
	msgpack_pack_uint32(&w->pk, name);
	for (int i = 0; i < 6; i++)
		msgpack_pack_uint32(&w->pk, (uint32_t)(i + 1));
}

static int raw_read(struct raw *w, char *err, size_t errlen, int *nrec, struct trace_record *last)
{
	struct trace_reader *r;
	int rc = trace_reader_open_mem(&r, w->sb.data, w->sb.size, err, errlen);
	*nrec = 0;
	if (rc < 0)
		return rc;
	struct trace_record rec;
	while ((rc = trace_reader_next(r, &rec, err, errlen)) == 1) {
		(*nrec)++;
		if (last)
			*last = rec;
	}
	trace_reader_free(r);
	return rc;
}

START_TEST(test_newer_major)
{
	struct raw w;
	raw_init(&w);
	raw_header(&w, 2, 3, 2);
	char err[256];
	int n;
	ck_assert_int_eq(raw_read(&w, err, sizeof(err), &n, NULL), TRACE_EVERSION);
	ck_assert_str_eq(err, "trace format version 2.3 is newer than this reader (1.12); upgrade surfer");
	msgpack_sbuffer_destroy(&w.sb);

	raw_init(&w);
	raw_header(&w, 0, 9, 0);
	ck_assert_int_eq(raw_read(&w, err, sizeof(err), &n, NULL), TRACE_EVERSION);
	msgpack_sbuffer_destroy(&w.sb);

	static const char garbage[] = "#!/bin/sh\necho not a trace\n";
	struct trace_reader *r;
	ck_assert_int_eq(trace_reader_open_mem(&r, garbage, sizeof(garbage) - 1, err, sizeof(err)),
			 TRACE_EVERSION);
	ck_assert_str_eq(err, "not a surfer trace");
	/* Right structure, wrong magic. */
	static const unsigned char other[] = { 0x94, 0x01, 0xac, 's', 'u', 'r', 'f', 'e', 'r', '-',
					       't', 'r', 'a', 'x', 0x01, 0x00 };
	ck_assert_int_eq(trace_reader_open_mem(&r, other, sizeof(other), err, sizeof(err)),
			 TRACE_EVERSION);
}
END_TEST

/* A 1.4 header ends with the device: its world size reads as 0 (one
 * GPU's pace); a 1.5 header carries it. */
static void raw_trailer_header_only(struct raw *w)
{
	msgpack_pack_array(&w->pk, 2);
	msgpack_pack_uint8(&w->pk, TRACE_TRAILER);
	msgpack_pack_array(&w->pk, TRACE_TYPE_MAX);
	for (int i = 0; i < TRACE_TYPE_MAX; i++)
		msgpack_pack_uint64(&w->pk, i == TRACE_HEADER);
}

START_TEST(test_world_size)
{
	struct raw w;
	struct trace_reader *r;
	char err[256];
	raw_init(&w);
	raw_header(&w, 1, 4, 1);
	raw_trailer_header_only(&w);
	ck_assert_int_eq(trace_reader_open_mem(&r, w.sb.data, w.sb.size, err, sizeof(err)), 0);
	ck_assert_str_eq(trace_reader_header(r)->device.name, "GPU-X");
	ck_assert_uint_eq(trace_reader_header(r)->world_size, 0);
	ck_assert_double_eq(trace_reader_header(r)->power_limit_w, 0);
	trace_reader_free(r);
	msgpack_sbuffer_destroy(&w.sb);
	raw_init(&w);
	raw_header(&w, 1, 5, 2);
	raw_trailer_header_only(&w);
	ck_assert_int_eq(trace_reader_open_mem(&r, w.sb.data, w.sb.size, err, sizeof(err)), 0);
	ck_assert_uint_eq(trace_reader_header(r)->world_size, 16);
	trace_reader_free(r);
	msgpack_sbuffer_destroy(&w.sb);
}
END_TEST

START_TEST(test_newer_minor_and_defaults)
{
	/* A 1.13 file: header with an unknown timing and trailing fields, a
	 * kernel with only its required fields, a kernel with an extra field,
	 * a record type this reader does not know, a marker of an unknown
	 * kind (skipped), a trailer with an extra count. */
	struct raw w;
	raw_init(&w);
	raw_header(&w, 1, 13, 2);
	msgpack_pack_array(&w.pk, 3);
	msgpack_pack_uint8(&w.pk, TRACE_STRING);
	msgpack_pack_uint32(&w.pk, 1);
	raw_str(&w, "k");
	raw_kernel_min(&w, 5, 1);
	msgpack_pack_array(&w.pk, 28);
	msgpack_pack_uint8(&w.pk, TRACE_KERNEL);
	for (int i = 1; i < 28; i++)
		msgpack_pack_uint32(&w.pk, i == 22 ? 3 : i == 23 || (i >= 9 && i <= 11) ? 0 :
					   i == 24 ? 77 : i == 25 ? 5 : 1);
	msgpack_pack_array(&w.pk, 2);
	msgpack_pack_uint8(&w.pk, 40);           /* unknown record type */
	raw_str(&w, "future");
	msgpack_pack_array(&w.pk, 3);
	msgpack_pack_uint8(&w.pk, TRACE_MARKER);
	msgpack_pack_uint32(&w.pk, 9);
	msgpack_pack_uint32(&w.pk, 200);         /* unknown marker kind */
	msgpack_pack_array(&w.pk, 2);
	msgpack_pack_uint8(&w.pk, TRACE_TRAILER);
	msgpack_pack_array(&w.pk, TRACE_TYPE_MAX + 1);
	for (int i = 0; i < TRACE_TYPE_MAX + 1; i++)
		msgpack_pack_uint64(&w.pk, i == TRACE_HEADER ? 1 : i == TRACE_STRING ? 1 :
					   i == TRACE_KERNEL ? 2 : i == TRACE_MARKER ? 1 :
					   i == TRACE_TYPE_MAX ? 1 : 0);

	struct trace_reader *r;
	char err[256];
	ck_assert_int_eq(trace_reader_open_mem(&r, w.sb.data, w.sb.size, err, sizeof(err)), 0);
	const struct trace_header *h = trace_reader_header(r);
	ck_assert_uint_eq(h->version_minor, 13);
	ck_assert_int_eq(h->timing, TRACE_TIMING_NONE);
	ck_assert_str_eq(h->device.name, "GPU-X");
	ck_assert_uint_eq(h->device.sm_count, 0);
	ck_assert_uint_eq(h->world_size, 16);
	ck_assert_double_eq(h->power_limit_w, 300);
	struct trace_record rec;
	ck_assert_int_eq(trace_reader_next(r, &rec, err, sizeof(err)), 1);
	ck_assert_int_eq(rec.type, TRACE_KERNEL);
	ck_assert_uint_eq(rec.u.kernel.seq, 5);
	ck_assert_uint_eq(rec.u.kernel.grid[0], 1);
	ck_assert_uint_eq(rec.u.kernel.block[2], 6);
	ck_assert_uint_eq(rec.u.kernel.cluster[0], 0);
	ck_assert_int_eq(rec.u.kernel.iteration, -1);   /* default */
	ck_assert_uint_eq(rec.u.kernel.stack, 0);
	ck_assert_uint_eq(rec.u.kernel.graph, 0);       /* defaults */
	ck_assert_uint_eq(rec.u.kernel.replay, 0);
	ck_assert_int_eq(trace_reader_next(r, &rec, err, sizeof(err)), 1);
	ck_assert_int_eq(rec.type, TRACE_KERNEL);
	ck_assert_int_eq(rec.u.kernel.iteration, 3);
	ck_assert_uint_eq(rec.u.kernel.cpu_ns, 1);
	ck_assert_uint_eq(rec.u.kernel.graph, 77);
	ck_assert_uint_eq(rec.u.kernel.replay, 5);
	ck_assert_int_eq(trace_reader_next(r, &rec, err, sizeof(err)), 0);
	ck_assert_int_eq(rec.type, TRACE_TRAILER);
	ck_assert_uint_eq(trace_reader_count(r), 2);
	trace_reader_free(r);
	msgpack_sbuffer_destroy(&w.sb);

	/* The same unknown record type in a 1.0 file is corruption. */
	raw_init(&w);
	raw_header(&w, 1, 0, 0);
	msgpack_pack_array(&w.pk, 1);
	msgpack_pack_uint8(&w.pk, 40);
	int n;
	ck_assert_int_eq(raw_read(&w, err, sizeof(err), &n, NULL), TRACE_ECORRUPT);
	ck_assert_ptr_nonnull(strstr(err, "unknown record type 40"));
	msgpack_sbuffer_destroy(&w.sb);
}
END_TEST

/* Each case: a valid 1.0 header and string 1, then the bytes built by fn;
 * reading must stop with `code` and a reason containing `why`. */
struct bad_case {
	const char *label;
	void (*fn)(struct raw *w);
	int code;
	const char *why;
};

static void bad_grid0(struct raw *w)
{
	msgpack_pack_array(&w->pk, 9);
	msgpack_pack_uint8(&w->pk, TRACE_KERNEL);
	msgpack_pack_uint32(&w->pk, 1);
	msgpack_pack_uint32(&w->pk, 1);
	for (int i = 0; i < 6; i++)
		msgpack_pack_uint32(&w->pk, i == 1 ? 0 : 1);
}
static void bad_name_undefined(struct raw *w) { raw_kernel_min(w, 1, 2); }
static void bad_missing_field(struct raw *w)
{
	msgpack_pack_array(&w->pk, 5);
	msgpack_pack_uint8(&w->pk, TRACE_KERNEL);
	for (int i = 0; i < 4; i++)
		msgpack_pack_uint32(&w->pk, 1);
}
static void bad_type_float(struct raw *w)
{
	msgpack_pack_array(&w->pk, 3);
	msgpack_pack_uint8(&w->pk, TRACE_SYNC);
	msgpack_pack_double(&w->pk, 1.5);
	msgpack_pack_uint32(&w->pk, 0);
}
static void bad_negative_seq(struct raw *w)
{
	msgpack_pack_array(&w->pk, 3);
	msgpack_pack_uint8(&w->pk, TRACE_SYNC);
	msgpack_pack_int64(&w->pk, -5);
	msgpack_pack_uint32(&w->pk, 0);
}
static void bad_enum(struct raw *w)
{
	msgpack_pack_array(&w->pk, 3);
	msgpack_pack_uint8(&w->pk, TRACE_SYNC);
	msgpack_pack_uint32(&w->pk, 1);
	msgpack_pack_uint32(&w->pk, TRACE_SYNC_KIND_COUNT);
}
static void bad_u32_overflow(struct raw *w)
{
	msgpack_pack_array(&w->pk, 9);
	msgpack_pack_uint8(&w->pk, TRACE_KERNEL);
	msgpack_pack_uint32(&w->pk, 1);
	msgpack_pack_uint64(&w->pk, 1ull << 32);   /* name id > uint32 */
	for (int i = 0; i < 6; i++)
		msgpack_pack_uint32(&w->pk, 1);
}
static void bad_string_order(struct raw *w)
{
	msgpack_pack_array(&w->pk, 3);
	msgpack_pack_uint8(&w->pk, TRACE_STRING);
	msgpack_pack_uint32(&w->pk, 5);
	raw_str(w, "gap");
}
static void bad_second_header(struct raw *w) { raw_header(w, 1, 0, 0); }
static void bad_not_array(struct raw *w) { msgpack_pack_uint32(&w->pk, 3); }
static void bad_huge_array(struct raw *w)
{
	static const unsigned char b[] = { 0xdd, 0xff, 0xff, 0xff, 0xff, 0x03 };
	msgpack_sbuffer_write(&w->sb, (const char *)b, sizeof(b));
}
static void bad_huge_string(struct raw *w)
{
	static const unsigned char b[] = { 0x93, 0x02, 0x02, 0xdb, 0x7f, 0xff, 0xff, 0xff, 'a' };
	msgpack_sbuffer_write(&w->sb, (const char *)b, sizeof(b));
}
static void bad_huge_map(struct raw *w)
{
	static const unsigned char b[] = { 0x92, 0x03, 0xdf, 0x10, 0x00, 0x00, 0x00 };
	msgpack_sbuffer_write(&w->sb, (const char *)b, sizeof(b));
}
static void bad_nested_bomb(struct raw *w)
{
	/* 4000-element arrays nested: each declares many elements but the
	 * bytes are missing -- must fail on the size limit, not allocate. */
	for (int i = 0; i < 300; i++) {
		static const unsigned char b[] = { 0xdc, 0x0f, 0xa0 };
		msgpack_sbuffer_write(&w->sb, (const char *)b, sizeof(b));
	}
}
static void bad_reserved_byte(struct raw *w)
{
	static const unsigned char b[] = { 0x92, 0x08, 0xc1 };
	msgpack_sbuffer_write(&w->sb, (const char *)b, sizeof(b));
}
static void bad_conv_dims(struct raw *w)
{
	msgpack_pack_array(&w->pk, 8);
	msgpack_pack_uint8(&w->pk, TRACE_CONV);
	msgpack_pack_uint32(&w->pk, 1);
	msgpack_pack_uint32(&w->pk, 0);
	msgpack_pack_uint32(&w->pk, 0);
	msgpack_pack_uint32(&w->pk, 4);
	for (int a = 0; a < 3; a++) {
		msgpack_pack_array(&w->pk, a == 2 ? 3 : 4);   /* out has 3, not 4 */
		for (int i = 0; i < (a == 2 ? 3 : 4); i++)
			msgpack_pack_uint32(&w->pk, 8);
	}
}
static void bad_trailer_count(struct raw *w)
{
	raw_kernel_min(w, 1, 1);
	msgpack_pack_array(&w->pk, 2);
	msgpack_pack_uint8(&w->pk, TRACE_TRAILER);
	msgpack_pack_array(&w->pk, TRACE_TYPE_MAX);
	for (int i = 0; i < TRACE_TYPE_MAX; i++)
		msgpack_pack_uint32(&w->pk, i == TRACE_HEADER || i == TRACE_STRING ? 1
				    : i == TRACE_KERNEL ? 2 : 0);
}
static void bad_stack_twice(struct raw *w)
{
	for (int k = 0; k < 2; k++) {
		msgpack_pack_array(&w->pk, 3);
		msgpack_pack_uint8(&w->pk, TRACE_STACK);
		msgpack_pack_uint32(&w->pk, 9);
		msgpack_pack_array(&w->pk, 1);
		msgpack_pack_uint32(&w->pk, 1);
	}
}

START_TEST(test_bad_encodings)
{
	static const struct bad_case cases[] = {
		{ "grid 0", bad_grid0, TRACE_ECORRUPT, "grid.y: 0 out of range" },
		{ "undefined name", bad_name_undefined, TRACE_ECORRUPT, "undefined string id 2" },
		{ "missing field", bad_missing_field, TRACE_ECORRUPT, "has 4 fields, needs 8" },
		{ "float", bad_type_float, TRACE_ECORRUPT, "seq: not an unsigned integer" },
		{ "negative", bad_negative_seq, TRACE_ECORRUPT, "seq: not an unsigned integer" },
		{ "enum", bad_enum, TRACE_ECORRUPT, "kind: 6 out of range" },
		{ "u32", bad_u32_overflow, TRACE_ECORRUPT, "name: 4294967296 out of range" },
		{ "string order", bad_string_order, TRACE_ECORRUPT, "expected 2" },
		{ "second header", bad_second_header, TRACE_ECORRUPT, "unexpected record type 1" },
		{ "not array", bad_not_array, TRACE_ECORRUPT, "not a record" },
		{ "huge array", bad_huge_array, TRACE_ECORRUPT, "oversized" },
		{ "huge string", bad_huge_string, TRACE_ECORRUPT, "oversized" },
		{ "huge map", bad_huge_map, TRACE_ECORRUPT, "oversized" },
		{ "nested bomb", bad_nested_bomb, TRACE_ECORRUPT, "oversized" },
		{ "0xc1", bad_reserved_byte, TRACE_ECORRUPT, "malformed" },
		{ "conv dims", bad_conv_dims, TRACE_ECORRUPT, "out: not an array of 4" },
		{ "trailer", bad_trailer_count, TRACE_ECORRUPT, "trailer counts 2 kernel records, 1 were read" },
		{ "stack twice", bad_stack_twice, TRACE_ECORRUPT, "stack 9 defined twice" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct raw w;
		raw_init(&w);
		raw_header(&w, 1, 0, 0);
		msgpack_pack_array(&w.pk, 3);
		msgpack_pack_uint8(&w.pk, TRACE_STRING);
		msgpack_pack_uint32(&w.pk, 1);
		raw_str(&w, "name");
		cases[i].fn(&w);
		char err[256] = "";
		int n;
		int rc = raw_read(&w, err, sizeof(err), &n, NULL);
		ck_assert_msg(rc == cases[i].code, "%s: code %d (%s)", cases[i].label, rc, err);
		ck_assert_msg(strstr(err, cases[i].why), "%s: reason '%s'", cases[i].label, err);
		msgpack_sbuffer_destroy(&w.sb);
	}
}
END_TEST

/* ---- one million kernels, streamed ----------------------------------- */

static long maxrss_kb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

START_TEST(test_million_kernels)
{
	const uint64_t n = UNDER_SANITIZER ? 200000 : 1000000;
	const unsigned nnames = 500;
	char path[] = "/tmp/check_trace_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);

	double t0 = now_s();
	int err = 0;
	struct trace_writer *w = trace_writer_open(path, 0, &err);
	ck_assert_ptr_nonnull(w);
	struct trace_header h;
	fill_header(&h);
	ck_assert_int_eq(trace_writer_header(w, &h), 0);
	char name[32];
	struct trace_record rec;
	memset(&rec, 0, sizeof(rec));
	rec.type = TRACE_KERNEL;
	struct trace_kernel *k = &rec.u.kernel;
	k->block[0] = 128;
	k->block[1] = k->block[2] = 1;
	k->grid[1] = k->grid[2] = 1;
	for (uint64_t i = 0; i < n; i++) {
		int len = snprintf(name, sizeof(name), "kernel_%u", (unsigned)(i * 7 % nnames));
		k->seq = i + 1;
		k->name = trace_writer_intern(w, name, (size_t)len);
		k->grid[0] = 1 + (uint32_t)(i % 1000);
		k->stream = i % 4;
		k->cpu_ns = 1000000000000ull + i * 4000;
		k->start_ns = k->cpu_ns + 20000;
		k->end_ns = k->start_ns + 1000 + i % 3000;
		k->iteration = (int32_t)(i / 50000);
		if (trace_writer_record(w, &rec) != 0)
			ck_abort_msg("record %llu refused", (unsigned long long)i);
	}
	ck_assert_int_eq(trace_writer_finish(w), 0);
	trace_writer_free(w);
	double t1 = now_s();

	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fclose(f);

	long rss0 = maxrss_kb();
	double t2 = now_s();
	struct trace_reader *r;
	char msg[256];
	ck_assert_int_eq(trace_reader_open(&r, path, msg, sizeof(msg)), 0);
	uint64_t got = 0, wrong = 0, first_wrong = 0;
	int rc;
	/* Plain comparisons here: each ck_assert records its location, too
	 * slow a million times. */
	while ((rc = trace_reader_next(r, &rec, msg, sizeof(msg))) == 1) {
		size_t len = 0;
		const char *s = trace_reader_string(r, k->name, &len);
		int want_len = snprintf(name, sizeof(name), "kernel_%u", (unsigned)(got * 7 % nnames));
		if (rec.type != TRACE_KERNEL || k->seq != got + 1 || !s ||
		    len != (size_t)want_len || memcmp(s, name, len) != 0 ||
		    k->end_ns - k->start_ns != 1000 + got % 3000) {
			if (!wrong++)
				first_wrong = got;
		}
		got++;
	}
	ck_assert_msg(wrong == 0, "%llu records differ, the first is #%llu",
		      (unsigned long long)wrong, (unsigned long long)first_wrong);
	ck_assert_msg(rc == 0, "read ended with %d: %s", rc, msg);
	ck_assert_uint_eq(got, n);
	ck_assert_uint_eq(trace_reader_nstrings(r), nnames);
	trace_reader_free(r);
	double t3 = now_s();
	long rss1 = maxrss_kb();
	unlink(path);

	printf("trace: %llu kernels: write %.2f s (%.2f M records/s), read %.2f s "
	       "(%.2f M records/s), %.1f bytes/record, reader peak RSS growth %ld KiB\n",
	       (unsigned long long)n, t1 - t0, n / (t1 - t0) / 1e6, t3 - t2,
	       n / (t3 - t2) / 1e6, (double)size / n, rss1 - rss0);
	if (!UNDER_SANITIZER)   /* ASan's quarantine keeps freed memory */
		ck_assert_int_lt(rss1 - rss0, 20 * 1024);
}
END_TEST

START_TEST(test_stdin_and_missing)
{
	struct trace_reader *r;
	char err[256];
	ck_assert_int_eq(trace_reader_open(&r, "/nonexistent/trace.mp", err, sizeof(err)), TRACE_EIO);
	ck_assert_str_eq(err, "No such file or directory");

	struct memsink m;
	struct sample s;
	write_sample(&m, &s, 1, 0);
	char path[] = "/tmp/check_trace_stdin_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, m.buf, m.len), (ssize_t)m.len);
	close(fd);
	ck_assert_ptr_nonnull(freopen(path, "rb", stdin));
	ck_assert_int_eq(trace_reader_open(&r, "-", err, sizeof(err)), 0);
	struct trace_record rec;
	int n = 0, rc;
	while ((rc = trace_reader_next(r, &rec, err, sizeof(err))) == 1)
		check_record_eq(&rec, &s.rec[n++]);
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(n, 8);
	trace_reader_free(r);
	unlink(path);
	free(m.buf);
}
END_TEST

START_TEST(test_empty_string)
{
	struct memsink m;
	memsink_init(&m);
	struct trace_writer *w = trace_writer_new(mem_sink, &m, 0);
	struct trace_header h;
	memset(&h, 0, sizeof(h));   /* every header string empty */
	ck_assert_int_eq(trace_writer_header(w, &h), 0);
	uint32_t id = trace_writer_intern(w, "", 0);
	ck_assert_uint_eq(id, 1);
	ck_assert_uint_eq(trace_writer_intern(w, NULL, 0), id);
	struct trace_record r;
	memset(&r, 0, sizeof(r));
	r.type = TRACE_MARKER;
	r.u.marker.name = id;
	r.u.marker.kind = TRACE_MARK_RANGE_PUSH;
	ck_assert_int_eq(trace_writer_record(w, &r), 0);
	ck_assert_int_eq(trace_writer_finish(w), 0);
	trace_writer_free(w);

	struct trace_reader *rd;
	char err[256];
	ck_assert_int_eq(trace_reader_open_mem(&rd, m.buf, m.len, err, sizeof(err)), 0);
	ck_assert_str_eq(trace_reader_header(rd)->device.name, "");
	struct trace_record got;
	ck_assert_int_eq(trace_reader_next(rd, &got, err, sizeof(err)), 1);
	ck_assert_uint_eq(got.u.marker.name, id);
	size_t len = 99;
	ck_assert_str_eq(trace_reader_string(rd, id, &len), "");
	ck_assert_uint_eq(len, 0);
	ck_assert_int_eq(trace_reader_next(rd, &got, err, sizeof(err)), 0);
	trace_reader_free(rd);
	free(m.buf);
}
END_TEST

/* 1.2's operator record: its floats come back bit for bit (a built trace
 * must predict what the model path predicted), and the writer refuses what
 * the reader would: a negative or non-finite amount, a collective on
 * anything but a comm op, a comm op without one. */
START_TEST(test_op_record)
{
	struct memsink m;
	memsink_init(&m);
	struct trace_writer *w = trace_writer_new(mem_sink, &m, 0);
	struct trace_header h;
	fill_header(&h);
	h.timing = TRACE_TIMING_BUILT;
	ck_assert_int_eq(trace_writer_header(w, &h), 0);
	struct trace_record r, bad;
	memset(&r, 0, sizeof(r));
	r.type = TRACE_OP;
	r.u.op.seq = 7;
	r.u.op.kind = TRACE_OPK_GEMM;
	r.u.op.dtype = TRACE_DT_BF16;
	r.u.op.m = 4096;
	r.u.op.n = 3;
	r.u.op.k = 1ull << 40;
	r.u.op.batch = 12;
	r.u.op.flops = 0.1 + 1e15 / 3.0;   /* not representable in fewer bits */
	r.u.op.bytes = 1.0 / 3.0;
	r.u.op.b_transposed = 1;
	r.u.op.reread_bytes = 5e-324;      /* the smallest subnormal */
	r.u.op.reuse_bytes = 1e300;
	r.u.op.cpu_ns = 99;
	r.u.op.accumulate = 1;              /* 1.4: added into an FP32 output */
	r.u.op.b_bytes = 0.5 + 2.5 / 128;   /* 1.9: AWQ's 4-bit weights, scales and zeros */
	ck_assert_int_eq(trace_writer_record(w, &r), 0);
	bad = r;
	bad.u.op.accumulate = 2;
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);
	bad = r;
	bad.u.op.b_bytes = -0.5;
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);
	bad = r;
	bad.u.op.b_bytes = 9;                          /* wider than any element */
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);
	bad = r;
	bad.u.op.b_bytes = NAN;
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);
	bad = r;
	bad.u.op.flops = -1;
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);
	bad = r;
	bad.u.op.bytes = INFINITY;
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);
	bad = r;
	bad.u.op.reuse_bytes = NAN;
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);
	bad = r;
	bad.u.op.collective = TRACE_COLL_ALL_REDUCE;   /* on a GEMM */
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);
	bad = r;
	bad.u.op.kind = TRACE_OPK_COMM;                /* without a collective */
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);
	struct trace_record comm = r;
	comm.u.op.accumulate = 0;           /* a GEMM's only */
	comm.u.op.b_bytes = 0;              /* a GEMM's only */
	comm.u.op.seq = 8;
	comm.u.op.kind = TRACE_OPK_COMM;
	comm.u.op.collective = TRACE_COLL_REDUCE_SCATTER;
	comm.u.op.ranks = 8;
	comm.u.op.rank = 5;                 /* 1.3: a recorded collective */
	comm.u.op.comm = 0xdeadbeef;
	comm.u.op.node_ranks = 4;
	ck_assert_int_eq(trace_writer_record(w, &comm), 0);
	bad = comm;
	bad.u.op.b_bytes = 0.5;             /* weights on a collective */
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);
	bad = comm;
	bad.u.op.rank = 8;                  /* not in a group of 8 */
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);
	bad = comm;
	bad.u.op.node_ranks = 9;
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);
	/* 1.3: an attention shape (a ragged prefill of prompts of 100 and
	 * 28 tokens, the second after 50 cached ones), 1.7 with a sliding
	 * window of 64 keys: the first prompt's queries see 1..64 keys, then
	 * 64: 64 * 65 / 2 + 36 * 64 = 4384 pairs; the second's first query
	 * 51 keys, its first 14 queries 51..64 and the other 14 64: 14 * 51 +
	 * 14 * 13 / 2 + 14 * 64 = 1701 */
	struct trace_record at = r;
	at.u.op.accumulate = 0;
	at.u.op.b_bytes = 0;
	at.u.op.seq = 9;
	at.u.op.kind = TRACE_OPK_ATTENTION;
	at.u.op.attn.impl = TRACE_ATTN_FLASHINFER;
	at.u.op.attn.form = TRACE_ATTN_PREFILL;
	at.u.op.attn.causal = 1;
	at.u.op.attn.seqs = 2;
	at.u.op.attn.heads = 40;
	at.u.op.attn.kv_heads = 8;
	at.u.op.attn.head_dim = 128;
	at.u.op.attn.head_dim_v = 128;
	at.u.op.attn.q_tokens = 128;
	at.u.op.attn.kv_tokens = 178;
	at.u.op.attn.max_kv = 100;
	at.u.op.attn.pairs = 4384.0 + 1701.0;
	at.u.op.attn.window = 64;
	at.u.op.attn.kv_bytes = 1;                     /* an FP8 cache */
	at.u.op.attn.bias_heads = 40;                  /* 1.10: a bias per head */
	ck_assert_int_eq(trace_writer_record(w, &at), 0);
	bad = at;
	bad.u.op.attn.bias_heads = 8;                  /* neither 1 nor the heads */
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);
	bad = at;
	bad.u.op.attn.form = TRACE_ATTN_DECODE;        /* a bias on a decode */
	bad.u.op.attn.window = 0;
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);
	bad = at;
	bad.u.op.attn.kv_bytes = 3;                    /* no element is 3 bytes */
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);
	bad = at;
	bad.u.op.attn.causal = 0;                      /* a window, no mask */
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);
	bad = at;
	bad.u.op.attn.form = TRACE_ATTN_MLA_DECODE;    /* a window on MLA */
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);
	bad = at;
	bad.u.op.attn.kv_heads = 7;                    /* does not divide 40 */
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);
	bad = at;
	bad.u.op.attn.pairs = 128.0 * 100 + 1;         /* more than q x max_kv */
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);
	bad = at;
	bad.u.op.kind = TRACE_OPK_GEMM;                /* a shape on a GEMM */
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);
	bad = at;
	bad.u.op.attn.impl = TRACE_ATTN_NONE;          /* a shape, no impl */
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);
	bad = at;
	bad.u.op.attn.head_dim_v = 0;
	ck_assert_int_eq(trace_writer_record(w, &bad), TRACE_EINVAL);
	ck_assert_int_eq(trace_writer_finish(w), 0);
	trace_writer_free(w);

	struct trace_reader *rd;
	char err[256];
	struct trace_record got;
	ck_assert_int_eq(trace_reader_open_mem(&rd, m.buf, m.len, err, sizeof(err)), 0);
	ck_assert_int_eq(trace_reader_header(rd)->timing, TRACE_TIMING_BUILT);
	ck_assert_int_eq(trace_reader_next(rd, &got, err, sizeof(err)), 1);
	ck_assert_int_eq(got.type, TRACE_OP);
	ck_assert_int_eq(got.u.op.kind, TRACE_OPK_GEMM);
	ck_assert_int_eq(got.u.op.dtype, TRACE_DT_BF16);
	ck_assert_uint_eq(got.u.op.k, 1ull << 40);
	ck_assert_uint_eq(got.u.op.batch, 12);
	ck_assert(got.u.op.flops == r.u.op.flops && got.u.op.bytes == r.u.op.bytes);
	ck_assert(got.u.op.reread_bytes == r.u.op.reread_bytes);
	ck_assert(got.u.op.reuse_bytes == r.u.op.reuse_bytes);
	ck_assert_uint_eq(got.u.op.b_transposed, 1);
	ck_assert_uint_eq(got.u.op.accumulate, 1);
	ck_assert(got.u.op.b_bytes == 0.5 + 2.5 / 128);
	ck_assert_uint_eq(got.u.op.cpu_ns, 99);
	ck_assert_int_eq(trace_reader_next(rd, &got, err, sizeof(err)), 1);
	ck_assert_int_eq(got.u.op.collective, TRACE_COLL_REDUCE_SCATTER);
	ck_assert_uint_eq(got.u.op.ranks, 8);
	ck_assert_int_eq(got.u.op.rank, 5);
	ck_assert_uint_eq(got.u.op.comm, 0xdeadbeef);
	ck_assert_uint_eq(got.u.op.node_ranks, 4);
	ck_assert_uint_eq(got.u.op.accumulate, 0);
	ck_assert(got.u.op.b_bytes == 0);
	ck_assert_int_eq(got.u.op.attn.impl, TRACE_ATTN_NONE);
	ck_assert_int_eq(trace_reader_next(rd, &got, err, sizeof(err)), 1);
	ck_assert_int_eq(got.u.op.kind, TRACE_OPK_ATTENTION);
	ck_assert_int_eq(got.u.op.attn.impl, TRACE_ATTN_FLASHINFER);
	ck_assert_int_eq(got.u.op.attn.form, TRACE_ATTN_PREFILL);
	ck_assert_uint_eq(got.u.op.attn.causal, 1);
	ck_assert_uint_eq(got.u.op.attn.backward, 0);
	ck_assert_uint_eq(got.u.op.attn.seqs, 2);
	ck_assert_uint_eq(got.u.op.attn.heads, 40);
	ck_assert_uint_eq(got.u.op.attn.kv_heads, 8);
	ck_assert_uint_eq(got.u.op.attn.head_dim, 128);
	ck_assert_uint_eq(got.u.op.attn.head_dim_v, 128);
	ck_assert_uint_eq(got.u.op.attn.q_tokens, 128);
	ck_assert_uint_eq(got.u.op.attn.kv_tokens, 178);
	ck_assert_uint_eq(got.u.op.attn.max_kv, 100);
	ck_assert(got.u.op.attn.pairs == 6085.0);
	ck_assert_uint_eq(got.u.op.attn.window, 64);
	ck_assert_uint_eq(got.u.op.attn.kv_bytes, 1);
	ck_assert_uint_eq(got.u.op.attn.bias_heads, 40);
	ck_assert_int_eq(trace_reader_next(rd, &got, err, sizeof(err)), 0);
	ck_assert_uint_eq(got.u.trailer.count[TRACE_OP], 3);
	trace_reader_free(rd);
	free(m.buf);
}
END_TEST

START_TEST(test_names)
{
	ck_assert_str_eq(trace_type_name(TRACE_KERNEL), "kernel");
	ck_assert_str_eq(trace_type_name(TRACE_TYPE_MAX), "?");
	ck_assert_str_eq(trace_dtype_name(TRACE_DT_BF16), "bf16");
	ck_assert_str_eq(trace_dtype_name(TRACE_DT_COUNT), "?");
	ck_assert_str_eq(trace_gemm_api_name(TRACE_GEMM_LT_MATMUL), "lt_matmul");
	ck_assert_str_eq(trace_conv_dir_name(TRACE_CONV_BWD_FILTER), "bwd_filter");
	ck_assert_str_eq(trace_copy_kind_name(TRACE_COPY_DTOH), "dtoh");
	ck_assert_str_eq(trace_sync_kind_name(TRACE_SYNC_EVENT), "event");
	ck_assert_str_eq(trace_marker_kind_name(TRACE_MARK_RANGE_POP), "range_pop");
	ck_assert_str_eq(trace_timing_name(TRACE_TIMING_EVENTS), "events");
	ck_assert_str_eq(trace_collective_name(TRACE_COLL_ALL_TO_ALL), "all_to_all");
	ck_assert_str_eq(trace_collective_name(TRACE_COLL_COUNT), "?");
	ck_assert_str_eq(trace_conv_api_name(TRACE_CONV_API_IMPORTED), "imported");
	ck_assert(trace_dtype_bytes(TRACE_DT_F64) == 8);
	ck_assert(trace_dtype_bytes(TRACE_DT_TF32) == 4);
	ck_assert(trace_dtype_bytes(TRACE_DT_BF16) == 2);
	ck_assert(trace_dtype_bytes(TRACE_DT_F8E5M2) == 1);
	ck_assert(trace_dtype_bytes(TRACE_DT_UNKNOWN) == 0);
}
END_TEST

/* A 1.0 sync record (six fields, no event) reads with event 0; a 1.1
 * event_record keeps its event. */
START_TEST(test_sync_event_versions)
{
	struct raw w;
	raw_init(&w);
	raw_header(&w, 1, 0, 0);
	msgpack_pack_array(&w.pk, 7);
	msgpack_pack_uint8(&w.pk, TRACE_SYNC);
	msgpack_pack_uint64(&w.pk, 5);
	msgpack_pack_uint32(&w.pk, TRACE_SYNC_STREAM_WAIT_EVENT);
	msgpack_pack_uint64(&w.pk, 7);
	msgpack_pack_uint32(&w.pk, 1);
	msgpack_pack_uint64(&w.pk, 100);
	msgpack_pack_uint64(&w.pk, 100);
	char err[256] = "";
	int n;
	struct trace_record last;
	ck_assert_int_eq(raw_read(&w, err, sizeof(err), &n, &last), TRACE_ETRUNC);  /* no trailer */
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(last.u.sync.kind, TRACE_SYNC_STREAM_WAIT_EVENT);
	ck_assert_uint_eq(last.u.sync.stream, 7);
	ck_assert_uint_eq(last.u.sync.event, 0);
	msgpack_sbuffer_destroy(&w.sb);

	raw_init(&w);
	raw_header(&w, 1, 1, 0);
	msgpack_pack_array(&w.pk, 8);
	msgpack_pack_uint8(&w.pk, TRACE_SYNC);
	msgpack_pack_uint64(&w.pk, 6);
	msgpack_pack_uint32(&w.pk, 5);          /* event_record */
	msgpack_pack_uint64(&w.pk, 3);
	msgpack_pack_uint32(&w.pk, 1);
	msgpack_pack_uint64(&w.pk, 200);
	msgpack_pack_uint64(&w.pk, 200);
	msgpack_pack_uint64(&w.pk, 0xabcdef01ULL);
	ck_assert_int_eq(raw_read(&w, err, sizeof(err), &n, &last), TRACE_ETRUNC);  /* no trailer */
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(last.u.sync.kind, TRACE_SYNC_EVENT_RECORD);
	ck_assert_str_eq(trace_sync_kind_name(last.u.sync.kind), "event_record");
	ck_assert_uint_eq(last.u.sync.event, 0xabcdef01ULL);
	msgpack_sbuffer_destroy(&w.sb);
}
END_TEST

/* A 1.1 memcpy (ten fields, no host_mem) reads as unknown host memory; a
 * 1.2 one keeps pageable and reads as one copy (no copies field); a 1.11
 * one keeps its batch's count; a host_mem beyond the enum in a 1.2 file is
 * corruption, and the writer refuses it. */
static void raw_memcpy_n(struct raw *w, int host_mem, int copies)
{
	msgpack_pack_array(&w->pk, host_mem < 0 ? 11 : copies < 0 ? 12 : 13);
	msgpack_pack_uint8(&w->pk, TRACE_MEMCPY);
	msgpack_pack_uint64(&w->pk, 5);
	msgpack_pack_uint64(&w->pk, 8);
	msgpack_pack_uint32(&w->pk, TRACE_COPY_DTOH);
	msgpack_pack_uint8(&w->pk, 1);
	msgpack_pack_uint64(&w->pk, 7);
	msgpack_pack_uint32(&w->pk, 1);
	msgpack_pack_uint64(&w->pk, 100);
	msgpack_pack_uint64(&w->pk, 900);
	msgpack_pack_uint64(&w->pk, 800);
	msgpack_pack_uint64(&w->pk, 850);
	if (host_mem >= 0)
		msgpack_pack_uint32(&w->pk, (uint32_t)host_mem);
	if (host_mem >= 0 && copies >= 0)
		msgpack_pack_uint32(&w->pk, (uint32_t)copies);
}

static void raw_memcpy(struct raw *w, int host_mem)
{
	raw_memcpy_n(w, host_mem, -1);
}

START_TEST(test_copy_host_mem_versions)
{
	struct raw w;
	char err[256] = "";
	int n;
	struct trace_record last;

	raw_init(&w);
	raw_header(&w, 1, 1, 0);
	raw_memcpy(&w, -1);
	ck_assert_int_eq(raw_read(&w, err, sizeof(err), &n, &last), TRACE_ETRUNC);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(last.u.copy.kind, TRACE_COPY_DTOH);
	ck_assert_uint_eq(last.u.copy.end_ns, 850);
	ck_assert_int_eq(last.u.copy.host_mem, TRACE_HOST_UNKNOWN);
	msgpack_sbuffer_destroy(&w.sb);

	raw_init(&w);
	raw_header(&w, 1, 2, 0);
	raw_memcpy(&w, TRACE_HOST_PAGEABLE);
	ck_assert_int_eq(raw_read(&w, err, sizeof(err), &n, &last), TRACE_ETRUNC);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(last.u.copy.host_mem, TRACE_HOST_PAGEABLE);
	ck_assert_str_eq(trace_host_mem_name(last.u.copy.host_mem), "pageable");
	ck_assert_uint_eq(last.u.copy.copies, 0);
	msgpack_sbuffer_destroy(&w.sb);

	raw_init(&w);
	raw_header(&w, 1, 11, 0);
	raw_memcpy_n(&w, TRACE_HOST_PINNED, 6);
	ck_assert_int_eq(raw_read(&w, err, sizeof(err), &n, &last), TRACE_ETRUNC);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(last.u.copy.host_mem, TRACE_HOST_PINNED);
	ck_assert_uint_eq(last.u.copy.copies, 6);
	msgpack_sbuffer_destroy(&w.sb);

	raw_init(&w);
	raw_header(&w, 1, 2, 0);
	raw_memcpy(&w, 7);
	ck_assert_int_eq(raw_read(&w, err, sizeof(err), &n, &last), TRACE_ECORRUPT);
	ck_assert_ptr_nonnull(strstr(err, "host_mem"));
	msgpack_sbuffer_destroy(&w.sb);

	struct memsink m = { .fail_after = -1 };
	struct trace_writer *wr = trace_writer_new(mem_sink, &m, 0);
	struct trace_header h;
	fill_header(&h);
	ck_assert_int_eq(trace_writer_header(wr, &h), 0);
	struct trace_record r;
	memset(&r, 0, sizeof(r));
	r.type = TRACE_MEMCPY;
	r.u.copy = (struct trace_copy){ .seq = 1, .bytes = 4, .kind = TRACE_COPY_DTOH,
		.host_mem = TRACE_HOST_MEM_COUNT };
	ck_assert_int_eq(trace_writer_record(wr, &r), TRACE_EINVAL);
	trace_writer_free(wr);
	free(m.buf);
}
END_TEST

/* ---- one record, two decoders ----------------------------------------- */

START_TEST(test_fast_and_general_decoding_agree)
{
	/* The sample's records as the writer encodes them (launches, GEMM,
	 * copies, syncs and markers take the reader's one-walk path) and with
	 * one unknown trailing field each (which only the general path reads)
	 * decode to the same records. */
	struct memsink m;
	struct sample s;
	write_sample(&m, &s, 1, 0);
	unsigned char *ext = malloc(m.len + m.ncalls);
	size_t n = 0, from = 0;
	ck_assert_ptr_nonnull(ext);
	for (size_t c = 0; c < m.ncalls; c++) {
		const unsigned char *rec = m.buf + from;
		size_t len = m.ends[c] - from;
		int last = c + 1 == m.ncalls;
		memcpy(ext + n, rec, len);
		if (c > 0 && !last && rec[0] >= 0x90 && rec[0] < 0x9f && rec[1] != TRACE_STRING) {
			ext[n] = (unsigned char)(rec[0] + 1);
			ext[n + len] = 0xc0;   /* nil: a field of a later version */
			len++;
		} else if (c > 0 && !last && rec[0] == 0xdc) {
			ext[n + 2] = (unsigned char)(rec[2] + 1);   /* fewer than 255 fields */
			ext[n + len] = 0xc0;
			len++;
		}
		n += len;
		from = m.ends[c];
	}
	ck_assert_uint_gt(n, m.len + 6);   /* every record but header, strings, trailer */
	struct trace_reader *a, *b;
	char err[256] = "";
	ck_assert_int_eq(trace_reader_open_mem(&a, m.buf, m.len, err, sizeof(err)), 0);
	ck_assert_int_eq(trace_reader_open_mem(&b, ext, n, err, sizeof(err)), 0);
	struct trace_record ra, rb;
	int k = 0, rc;
	while ((rc = trace_reader_next(a, &ra, err, sizeof(err))) == 1) {
		ck_assert_msg(trace_reader_next(b, &rb, err, sizeof(err)) == 1, "%s", err);
		check_record_eq(&rb, &ra);
		check_record_eq(&ra, &s.rec[k]);
		k++;
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(trace_reader_next(b, &rb, err, sizeof(err)), 0);
	ck_assert_int_eq(k, 8);
	trace_reader_free(a);
	trace_reader_free(b);
	free(ext);
	free(m.buf);
}
END_TEST

/* ---- reading in order ------------------------------------------------- */

/* A record read in the first pass, with its place in the file. */
struct placed {
	struct trace_record rec;
	uint64_t cpu, seq;
	size_t at;
};

/* Bytes of the union member a record of type t uses. */
static size_t member_size(enum trace_type t)
{
	switch (t) {
	case TRACE_KERNEL: return sizeof(struct trace_kernel);
	case TRACE_GEMM: return sizeof(struct trace_gemm);
	case TRACE_MEMCPY: case TRACE_MEMSET: return sizeof(struct trace_copy);
	case TRACE_SYNC: return sizeof(struct trace_sync);
	case TRACE_MARKER: return sizeof(struct trace_marker);
	default: return sizeof(struct trace_conv);
	}
}

static int placed_cmp(const void *pa, const void *pb)
{
	const struct placed *a = pa, *b = pb;
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return a->at < b->at ? -1 : a->at > b->at;
}

static void cpu_seq_of(const struct trace_record *r, uint64_t *cpu, uint64_t *seq)
{
	switch (r->type) {
	case TRACE_KERNEL: *cpu = r->u.kernel.cpu_ns; *seq = r->u.kernel.seq; break;
	case TRACE_GEMM: *cpu = r->u.gemm.cpu_ns; *seq = r->u.gemm.seq; break;
	case TRACE_MEMCPY: case TRACE_MEMSET: *cpu = r->u.copy.cpu_ns; *seq = r->u.copy.seq; break;
	case TRACE_SYNC: *cpu = r->u.sync.cpu_ns; *seq = r->u.sync.seq; break;
	case TRACE_MARKER: *cpu = r->u.marker.cpu_ns; *seq = r->u.marker.seq; break;
	default: ck_abort_msg("record type %d", (int)r->type);
	}
}

#define IL_THREADS 5
#define IL_WINDOW 64

/*
 * Writes nrec records of IL_THREADS threads to path as a recorder draining
 * per-thread buffers would: each thread's records in CPU order, except
 * thread 3, whose launches come up to 40 records late (GPU times that
 * arrive late, inside the window); the file holds runs of 1..3000 records
 * of one thread, far beyond the window.  Every 1000th record of threads 0
 * and 1 shares its CPU time and seq 0 (an importer's unknown seq) with the
 * other thread: such ties keep their file order.  late_thread >= 0 makes
 * that thread's launches 10 x IL_WINDOW records late instead.
 */
static void write_interleaved(const char *path, uint32_t nrec, int late_thread)
{
	int err;
	struct trace_writer *w = trace_writer_open(path, 0, &err);
	ck_assert_ptr_nonnull(w);
	struct trace_header h;
	fill_header(&h);
	ck_assert_int_eq(trace_writer_header(w, &h), 0);
	uint32_t name = trace_writer_intern(w, "kernel", 6);
	uint32_t per = nrec / IL_THREADS;
	struct trace_record *q[IL_THREADS];
	uint32_t made[IL_THREADS] = { 0 }, wrote[IL_THREADS] = { 0 };
	uint64_t seq = 0;
	/* each thread's records in the order its recorder buffer holds them */
	for (int t = 0; t < IL_THREADS; t++) {
		q[t] = calloc(per, sizeof(*q[t]));
		ck_assert_ptr_nonnull(q[t]);
	}
	for (uint32_t i = 0; i < per; i++) {
		for (int t = 0; t < IL_THREADS; t++) {
			struct trace_record r;
			uint64_t cpu = 1000000 + (uint64_t)i * 1000 + (uint64_t)t * 7;
			memset(&r, 0, sizeof(r));
			switch (i % 5) {
			case 0:
				r.type = TRACE_GEMM;
				r.u.gemm = (struct trace_gemm){ .seq = ++seq, .m = 64, .n = 64, .k = 64,
					.batch = 1, .epilogue = 1, .stream = (uint64_t)t, .thread = 100 + t,
					.cpu_ns = cpu };
				break;
			case 3:
				r.type = TRACE_SYNC;
				r.u.sync = (struct trace_sync){ .seq = ++seq, .kind = TRACE_SYNC_STREAM,
					.stream = (uint64_t)t, .thread = 100 + t, .cpu_ns = cpu,
					.cpu_end_ns = cpu + 5 };
				break;
			case 4:
				r.type = i % 10 == 4 ? TRACE_MEMCPY : TRACE_MARKER;
				if (r.type == TRACE_MEMCPY)
					r.u.copy = (struct trace_copy){ .seq = ++seq, .bytes = 8,
						.kind = TRACE_COPY_DTOH, .async = 1, .stream = (uint64_t)t,
						.thread = 100 + t, .cpu_ns = cpu };
				else
					r.u.marker = (struct trace_marker){ .seq = ++seq,
						.kind = TRACE_MARK_ITERATION, .thread = 100 + t,
						.cpu_ns = cpu, .iteration = (int32_t)i };
				break;
			default:
				r.type = TRACE_KERNEL;
				r.u.kernel = (struct trace_kernel){ .seq = ++seq, .name = name,
					.grid = { 1 + i % 7, 1, 1 }, .block = { 128, 1, 1 },
					.stream = (uint64_t)t, .thread = 100 + t, .cpu_ns = cpu,
					.start_ns = cpu + 100, .end_ns = cpu + 600, .iteration = -1 };
				if (i % 1000 == 1 && t < 2) {
					r.u.kernel.seq = 0;
					r.u.kernel.cpu_ns = 1000000 + (uint64_t)i * 1000;
				}
				break;
			}
			q[t][made[t]++] = r;
		}
	}
	/* the late ones: move every third launch of the lagging threads back */
	for (int t = 0; t < IL_THREADS; t++) {
		uint32_t lag = t == late_thread ? 10 * IL_WINDOW : t == 3 ? 40 : 0;
		for (uint32_t at = 0; lag && at + lag < per; at += lag + 1) {
			if (q[t][at].type != TRACE_KERNEL)
				continue;
			struct trace_record x = q[t][at];
			memmove(&q[t][at], &q[t][at + 1], lag * sizeof(x));
			q[t][at + lag] = x;
		}
	}
	/* runs of one thread at a time */
	uint64_t pick = 12345;
	for (uint32_t left = per * IL_THREADS; left > 0;) {
		pick = pick * 6364136223846793005ull + 1442695040888963407ull;
		int t = (int)((pick >> 33) % IL_THREADS);
		uint32_t run = 1 + (uint32_t)((pick >> 13) % 3000);
		for (; run > 0 && wrote[t] < per; run--, left--)
			ck_assert_int_eq(trace_writer_record(w, &q[t][wrote[t]++]), 0);
	}
	ck_assert_int_eq(trace_writer_finish(w), 0);
	trace_writer_free(w);
	for (int t = 0; t < IL_THREADS; t++)
		free(q[t]);
}

/* Reads path in file order with keep_order; returns the records sorted by
 * (cpu_ns, seq, place in the file): what a second reading must return. */
static struct placed *read_placed(const char *path, struct trace_reader **out, size_t *n)
{
	char err[256];
	struct trace_reader *r;
	ck_assert_int_eq(trace_reader_open(&r, path, err, sizeof(err)), 0);
	ck_assert_int_eq(trace_reader_keep_order(r, IL_WINDOW), 0);
	size_t cap = 1024;
	struct placed *p = malloc(cap * sizeof(*p));
	struct trace_record rec;
	int rc;
	*n = 0;
	while ((rc = trace_reader_next(r, &rec, err, sizeof(err))) == 1) {
		if (*n == cap) {
			cap *= 2;
			p = realloc(p, cap * sizeof(*p));
			ck_assert_ptr_nonnull(p);
		}
		p[*n].rec = rec;
		cpu_seq_of(&rec, &p[*n].cpu, &p[*n].seq);
		p[*n].at = *n;
		(*n)++;
	}
	ck_assert_msg(rc == 0, "%s", err);
	ck_assert_int_eq(trace_reader_keep_order(r, 0), TRACE_EINVAL);   /* too late */
	qsort(p, *n, sizeof(*p), placed_cmp);
	*out = r;
	return p;
}

START_TEST(test_interleaved_threads_read_in_order)
{
	/* Five threads interleaved in runs of up to 3000 records, one of them
	 * with launches 40 records late, read a second time in
	 * (cpu_ns, seq, file place) order - the order a sort of all records
	 * gives - from the file and from memory, holding a few windows, not
	 * the trace. */
	char path[] = "/tmp/check_trace_order_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	const uint32_t nrec = 200000;
	write_interleaved(path, nrec, -1);
	struct trace_reader *r;
	size_t n;
	struct placed *want = read_placed(path, &r, &n);
	ck_assert_uint_eq(n, nrec);
	/* the file is far out of order: some record is 10 windows late */
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	size_t size = (size_t)ftell(f);
	unsigned char *bytes = malloc(size);
	rewind(f);
	ck_assert_uint_eq(fread(bytes, 1, size, f), size);
	fclose(f);
	size_t far = 0;
	for (size_t i = 0; i < n; i++)
		if (want[i].at > i + 10 * IL_WINDOW || i > want[i].at + 10 * IL_WINDOW)
			far++;
	ck_assert_uint_gt(far, n / 10);

	for (int from_mem = 0; from_mem < 2; from_mem++) {
		struct trace_reader *base = r;
		char err[256];
		if (from_mem) {
			ck_assert_int_eq(trace_reader_open_mem(&base, bytes, size, err, sizeof(err)), 0);
			ck_assert_int_eq(trace_reader_keep_order(base, IL_WINDOW), 0);
			struct trace_record rec;
			while (trace_reader_next(base, &rec, err, sizeof(err)) == 1)
				;
		}
		struct trace_merge *m;
		ck_assert_int_eq(trace_merge_open(&m, base, err, sizeof(err)), 0);
		struct trace_record rec;
		size_t got = 0, wrong = 0, first = 0, peak = 0;
		int rc;
		while ((rc = trace_merge_next(m, &rec, err, sizeof(err))) == 1) {
			uint64_t cpu, seq;
			cpu_seq_of(&rec, &cpu, &seq);
			if (got >= n || rec.type != want[got].rec.type || cpu != want[got].cpu ||
			    seq != want[got].seq ||
			    memcmp(&rec.u, &want[got].rec.u, member_size(rec.type)) != 0) {
				if (!wrong++)
					first = got;
			}
			if (trace_merge_bytes(m) > peak)
				peak = trace_merge_bytes(m);
			got++;
		}
		ck_assert_msg(rc == 0, "%s", err);
		ck_assert_msg(wrong == 0, "%zu records out of place, the first at %zu", wrong, first);
		ck_assert_uint_eq(got, n);
		ck_assert_int_eq(trace_merge_next(m, &rec, err, sizeof(err)), 0);
		/* Bounded by the threads: per thread a read buffer and, for the
		 * one out of order, a window of records; the records themselves
		 * would take n x sizeof(struct trace_record). */
		size_t bound = IL_THREADS * (64 * 1024 + 4096) +
			       IL_WINDOW * (sizeof(struct trace_record) + 64) + 8192;
		ck_assert_msg(peak <= bound, "merge held %zu bytes, bound %zu", peak, bound);
		ck_assert_uint_gt(n * sizeof(struct trace_record), 50 * bound);
		trace_merge_free(m);
		if (from_mem)
			trace_reader_free(base);
	}
	trace_reader_free(r);
	free(want);
	free(bytes);
	unlink(path);
}
END_TEST

START_TEST(test_every_record_type_has_a_key)
{
	/* Every record type but the header, strings, stacks and the trailer
	 * has a thread and a CPU time, hence a place in the order: a type added
	 * without one would vanish from an ordered reading. */
	for (int t = 1; t < TRACE_TYPE_MAX; t++) {
		struct trace_record r;
		uint32_t thread = 0;
		uint64_t cpu = 0, seq = 0;
		memset(&r, 0, sizeof(r));
		r.type = (enum trace_type)t;
		int keyed = t != TRACE_HEADER && t != TRACE_STRING && t != TRACE_STACK &&
			    t != TRACE_TRAILER;
		ck_assert_msg(trace_record_key(&r, &thread, &cpu, &seq) == keyed, "record type %s",
			      trace_type_name((enum trace_type)t));
	}
}
END_TEST

START_TEST(test_thread_beyond_window)
{
	/* A thread whose own records are out of order beyond the window cannot
	 * be read in order thread by thread: trace_merge_open says which. */
	char path[] = "/tmp/check_trace_order_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	write_interleaved(path, 20000, 2);
	struct trace_reader *r;
	size_t n;
	struct placed *want = read_placed(path, &r, &n);
	struct trace_merge *m = NULL;
	char err[256] = "";
	ck_assert_int_eq(trace_merge_open(&m, r, err, sizeof(err)), TRACE_EINVAL);
	ck_assert_ptr_null(m);
	ck_assert_str_eq(err, "thread 102: records out of CPU order beyond a window of 64");
	trace_reader_free(r);
	free(want);

	/* without keep_order there is nothing to merge from */
	ck_assert_int_eq(trace_reader_open(&r, path, err, sizeof(err)), 0);
	ck_assert_int_eq(trace_merge_open(&m, r, err, sizeof(err)), TRACE_EINVAL);
	trace_reader_free(r);
	unlink(path);
}
END_TEST

START_TEST(test_threads_alternating_every_record)
{
	/* Two threads alternating record by record, the second 0.1 s behind in
	 * CPU time: 140,000 runs of one record, more segments than the reader
	 * keeps, so neighbouring ones are joined and each thread's reading
	 * skips the other's records.  The order is still the sorted one. */
	char path[] = "/tmp/check_trace_order_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	int err;
	struct trace_writer *w = trace_writer_open(path, 0, &err);
	struct trace_header h;
	fill_header(&h);
	ck_assert_int_eq(trace_writer_header(w, &h), 0);
	uint32_t name = trace_writer_intern(w, "k", 1);
	for (uint32_t i = 0; i < 140000; i++) {
		struct trace_record r;
		int t = i % 2;
		memset(&r, 0, sizeof(r));
		r.type = TRACE_KERNEL;
		r.u.kernel = (struct trace_kernel){ .seq = i + 1, .name = name, .grid = { 1, 1, 1 },
			.block = { 32, 1, 1 }, .thread = 7 + (uint32_t)t,
			.cpu_ns = 1000000000ull + (uint64_t)i * 1000 - (uint64_t)t * 100000000ull,
			.iteration = -1 };
		ck_assert_int_eq(trace_writer_record(w, &r), 0);
	}
	ck_assert_int_eq(trace_writer_finish(w), 0);
	trace_writer_free(w);
	struct trace_reader *r;
	size_t n;
	struct placed *want = read_placed(path, &r, &n);
	struct trace_merge *m;
	char msg[256];
	ck_assert_int_eq(trace_merge_open(&m, r, msg, sizeof(msg)), 0);
	struct trace_record rec;
	size_t got = 0, wrong = 0;
	while (trace_merge_next(m, &rec, msg, sizeof(msg)) == 1) {
		if (got >= n || rec.u.kernel.seq != want[got].seq)
			wrong++;
		got++;
	}
	ck_assert_uint_eq(got, n);
	ck_assert_uint_eq(wrong, 0);
	ck_assert_uint_le(trace_merge_bytes(m), 2 * (64 * 1024 + 4096) + 8192);
	trace_merge_free(m);
	trace_reader_free(r);
	free(want);
	unlink(path);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("trace");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_writer_refuses);
	tcase_add_test(tc, test_writer_sink_failure);
	tcase_add_test(tc, test_truncation_every_offset);
	tcase_add_test(tc, test_unfinished_writer);
	tcase_add_test(tc, test_random_corruption);
	tcase_add_test(tc, test_newer_major);
	tcase_add_test(tc, test_newer_minor_and_defaults);
	tcase_add_test(tc, test_world_size);
	tcase_add_test(tc, test_sync_event_versions);
	tcase_add_test(tc, test_copy_host_mem_versions);
	tcase_add_test(tc, test_bad_encodings);
	tcase_add_test(tc, test_million_kernels);
	tcase_add_test(tc, test_stdin_and_missing);
	tcase_add_test(tc, test_empty_string);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_op_record);
	tcase_add_test(tc, test_fast_and_general_decoding_agree);
	tcase_add_test(tc, test_interleaved_threads_read_in_order);
	tcase_add_test(tc, test_every_record_type_has_a_key);
	tcase_add_test(tc, test_thread_beyond_window);
	tcase_add_test(tc, test_threads_alternating_every_record);
	suite_add_tcase(s, tc);
	return check_run(s);
}
