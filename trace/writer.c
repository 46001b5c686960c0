/*
 * writer.c - the trace writer: a msgpack packer writing into a chunk
 * buffer, handing whole chunks (always whole records) to a sink.
 *
 * Constraints kept: no allocation per record beyond the chunk buffer and
 * the string table (the common string pool, trace/strpool.h); every record is complete before its chunk reaches the
 * sink, so a process killed at any moment leaves a prefix of whole records
 * on disk (plus possibly one partial write, which the reader reports as
 * truncation).  The encoding is specified in docs/trace-format.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <msgpack.h>

#include "trace/internal.h"
#include "trace/strpool.h"
#include "trace/trace.h"

#define DEFAULT_CHUNK (64u * 1024)
#define MAX_CHUNK (64u * 1024 * 1024)

enum wstate { W_NEW, W_OPEN, W_DONE, W_FAILED };

struct trace_writer {
	trace_sink_fn sink;
	void *ctx;
	int fd;                      /* >= 0 when trace_writer_open made it */
	unsigned char *buf;
	size_t len, cap, chunk;
	int oom;                     /* a buffer growth failed mid-record */
	msgpack_packer pk;
	enum wstate state;
	int err;                     /* code returned once failed */

	struct strpool strs;         /* string id - 1 -> the string written */
	struct hmap stacks;          /* stack ids written */
	struct trace_trailer counts;
};

/* ---- sinks ----------------------------------------------------------- */

static int fd_sink(void *ctx, const void *buf, size_t len)
{
	int fd = *(int *)ctx;
	const char *p = buf;
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* msgpack_packer callback: append to the chunk buffer, growing it when one
 * record does not fit (only very long strings do). */
static int pack_write(void *data, const char *buf, size_t len)
{
	struct trace_writer *w = data;
	if (w->len + len > w->cap) {
		size_t ncap = w->cap * 2;
		while (ncap < w->len + len)
			ncap *= 2;
		unsigned char *nb = realloc(w->buf, ncap);
		if (!nb) {
			w->oom = 1;
			return -1;
		}
		w->buf = nb;
		w->cap = ncap;
	}
	if (len)
		memcpy(w->buf + w->len, buf, len);
	w->len += len;
	return 0;
}

struct trace_writer *trace_writer_new(trace_sink_fn sink, void *ctx, size_t chunk_bytes)
{
	if (!sink)
		return NULL;
	struct trace_writer *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->sink = sink;
	w->ctx = ctx;
	w->fd = -1;
	w->chunk = chunk_bytes ? chunk_bytes : DEFAULT_CHUNK;
	if (w->chunk > MAX_CHUNK)
		w->chunk = MAX_CHUNK;
	/* Room for one chunk plus the record that crosses its end. */
	w->cap = w->chunk + 4096;
	w->buf = malloc(w->cap);
	if (!w->buf) {
		free(w);
		return NULL;
	}
	msgpack_packer_init(&w->pk, w, pack_write);
	return w;
}

struct trace_writer *trace_writer_open(const char *path, size_t chunk_bytes, int *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		if (err)
			*err = TRACE_EIO;
		return NULL;
	}
	struct trace_writer *w = trace_writer_new(fd_sink, NULL, chunk_bytes);
	if (!w) {
		close(fd);
		if (err)
			*err = TRACE_ENOMEM;
		errno = ENOMEM;
		return NULL;
	}
	w->fd = fd;
	w->ctx = &w->fd;
	if (err)
		*err = 0;
	return w;
}

/* ---- chunking -------------------------------------------------------- */

static int fail(struct trace_writer *w, int code)
{
	w->state = W_FAILED;
	w->err = code;
	return code;
}

static int flush_buf(struct trace_writer *w)
{
	if (w->len == 0)
		return 0;
	int rc = w->sink(w->ctx, w->buf, w->len);
	w->len = 0;
	if (rc < 0)
		return fail(w, TRACE_EIO);
	return 0;
}

/* Called after each complete record. */
static int end_record(struct trace_writer *w, enum trace_type type)
{
	if (w->oom)
		return fail(w, TRACE_ENOMEM);
	w->counts.count[type]++;
	if (w->len >= w->chunk)
		return flush_buf(w);
	return 0;
}

static int usable(const struct trace_writer *w)
{
	if (w->state == W_FAILED)
		return w->err;
	if (w->state != W_OPEN)
		return TRACE_EINVAL;
	return 0;
}

/* ---- header ---------------------------------------------------------- */

static void pack_cstr(msgpack_packer *pk, const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);
	msgpack_pack_str(pk, n);
	msgpack_pack_str_body(pk, s, n);
}

int trace_writer_header(struct trace_writer *w, const struct trace_header *h)
{
	if (!w || !h)
		return TRACE_EINVAL;
	if (w->state == W_FAILED)
		return w->err;
	if (w->state != W_NEW)
		return TRACE_EINVAL;
	if (trace_validate_header(h, NULL, 0) < 0)
		return TRACE_EINVAL;
	msgpack_packer *pk = &w->pk;
	const struct trace_device *d = &h->device;
	msgpack_pack_array(pk, 14);
	msgpack_pack_uint8(pk, TRACE_HEADER);
	pack_cstr(pk, TRACE_MAGIC, sizeof(TRACE_MAGIC));
	msgpack_pack_uint32(pk, TRACE_VERSION_MAJOR);
	msgpack_pack_uint32(pk, TRACE_VERSION_MINOR);
	pack_cstr(pk, h->tool_version, sizeof(h->tool_version));
	pack_cstr(pk, h->host, sizeof(h->host));
	msgpack_pack_uint32(pk, h->pid);
	msgpack_pack_uint64(pk, h->start_unix_ns);
	pack_cstr(pk, h->cmdline, sizeof(h->cmdline));
	msgpack_pack_uint32(pk, (uint32_t)h->timing);
	pack_cstr(pk, h->timing_note, sizeof(h->timing_note));
	msgpack_pack_array(pk, 16);
	pack_cstr(pk, d->name, sizeof(d->name));
	msgpack_pack_uint32(pk, d->cc_major);
	msgpack_pack_uint32(pk, d->cc_minor);
	msgpack_pack_uint32(pk, d->sm_count);
	msgpack_pack_uint32(pk, d->clock_khz);
	msgpack_pack_uint32(pk, d->mem_clock_khz);
	msgpack_pack_uint32(pk, d->mem_bus_bits);
	msgpack_pack_uint64(pk, d->mem_bytes);
	msgpack_pack_uint32(pk, d->l2_bytes);
	msgpack_pack_uint32(pk, d->max_threads_per_sm);
	msgpack_pack_uint32(pk, d->max_blocks_per_sm);
	msgpack_pack_uint32(pk, d->regs_per_sm);
	msgpack_pack_uint32(pk, d->smem_per_sm);
	msgpack_pack_uint32(pk, d->smem_per_block_optin);
	msgpack_pack_uint32(pk, d->driver_version);
	msgpack_pack_uint32(pk, d->runtime_version);
	msgpack_pack_uint32(pk, h->world_size);
	msgpack_pack_double(pk, h->power_limit_w);
	w->state = W_OPEN;
	return end_record(w, TRACE_HEADER);
}

/* ---- strings --------------------------------------------------------- */

uint32_t trace_writer_intern(struct trace_writer *w, const char *s, size_t len)
{
	if (!w || usable(w) < 0 || (!s && len) || len > TRACE_STRING_MAX)
		return 0;
	if (!s)
		s = "";
	int64_t known = strpool_lookup(&w->strs, s, len);
	if (known >= 0)
		return (uint32_t)known + 1;
	/* The reader's limits (internal.h): a trace it would refuse is never
	 * written. */
	if (strpool_count(&w->strs) >= TRACE_MAX_STRINGS ||
	    w->strs.bytes + len > TRACE_MAX_STRING_BYTES)
		return 0;
	int64_t id = strpool_intern(&w->strs, s, len, NULL);
	if (id < 0)
		return 0;
	/* From here a failure fails the writer, so an interned string is
	 * never used without its definition in the trace. */
	msgpack_pack_array(&w->pk, 3);
	msgpack_pack_uint8(&w->pk, TRACE_STRING);
	msgpack_pack_uint32(&w->pk, (uint32_t)id + 1);
	msgpack_pack_str(&w->pk, len);
	msgpack_pack_str_body(&w->pk, s, len);
	if (end_record(w, TRACE_STRING) < 0)
		return 0;
	return (uint32_t)id + 1;
}

/* ---- records --------------------------------------------------------- */

static void pack_u32x3(msgpack_packer *pk, const uint32_t v[3])
{
	for (int i = 0; i < 3; i++)
		msgpack_pack_uint32(pk, v[i]);
}

static void pack_i64s(msgpack_packer *pk, const int64_t *v, uint32_t n)
{
	msgpack_pack_array(pk, n);
	for (uint32_t i = 0; i < n; i++)
		msgpack_pack_int64(pk, v[i]);
}

static void pack_kernel(msgpack_packer *pk, const struct trace_kernel *k)
{
	msgpack_pack_array(pk, 26);
	msgpack_pack_uint8(pk, TRACE_KERNEL);
	msgpack_pack_uint64(pk, k->seq);
	msgpack_pack_uint32(pk, k->name);
	pack_u32x3(pk, k->grid);
	pack_u32x3(pk, k->block);
	pack_u32x3(pk, k->cluster);
	msgpack_pack_uint32(pk, k->regs);
	msgpack_pack_uint32(pk, k->static_smem);
	msgpack_pack_uint32(pk, k->dyn_smem);
	msgpack_pack_uint64(pk, k->stream);
	msgpack_pack_uint32(pk, k->thread);
	msgpack_pack_uint32(pk, k->flags);
	msgpack_pack_uint64(pk, k->cpu_ns);
	msgpack_pack_uint64(pk, k->start_ns);
	msgpack_pack_uint64(pk, k->end_ns);
	msgpack_pack_uint64(pk, k->lib_call);
	msgpack_pack_int32(pk, k->iteration);
	msgpack_pack_uint32(pk, k->stack);
	msgpack_pack_uint64(pk, k->graph);
	msgpack_pack_uint64(pk, k->replay);
}

static void pack_gemm(msgpack_packer *pk, const struct trace_gemm *g)
{
	msgpack_pack_array(pk, 17);
	msgpack_pack_uint8(pk, TRACE_GEMM);
	msgpack_pack_uint64(pk, g->seq);
	msgpack_pack_uint32(pk, (uint32_t)g->api);
	msgpack_pack_uint64(pk, g->m);
	msgpack_pack_uint64(pk, g->n);
	msgpack_pack_uint64(pk, g->k);
	msgpack_pack_uint64(pk, g->batch);
	msgpack_pack_uint8(pk, g->trans_a);
	msgpack_pack_uint8(pk, g->trans_b);
	msgpack_pack_uint32(pk, (uint32_t)g->a_type);
	msgpack_pack_uint32(pk, (uint32_t)g->b_type);
	msgpack_pack_uint32(pk, (uint32_t)g->c_type);
	msgpack_pack_uint32(pk, (uint32_t)g->compute_type);
	msgpack_pack_uint32(pk, g->epilogue);
	msgpack_pack_uint64(pk, g->stream);
	msgpack_pack_uint32(pk, g->thread);
	msgpack_pack_uint64(pk, g->cpu_ns);
}

static void pack_conv(msgpack_packer *pk, const struct trace_conv *c)
{
	uint32_t sp = c->nbdims - 2;   /* spatial dims; nbdims validated */
	msgpack_pack_array(pk, 17);
	msgpack_pack_uint8(pk, TRACE_CONV);
	msgpack_pack_uint64(pk, c->seq);
	msgpack_pack_uint32(pk, (uint32_t)c->api);
	msgpack_pack_uint32(pk, (uint32_t)c->dir);
	msgpack_pack_uint32(pk, c->nbdims);
	pack_i64s(pk, c->in, c->nbdims);
	pack_i64s(pk, c->filt, c->nbdims);
	pack_i64s(pk, c->out, c->nbdims);
	pack_i64s(pk, c->stride, sp);
	pack_i64s(pk, c->pad, sp);
	pack_i64s(pk, c->dilation, sp);
	msgpack_pack_uint32(pk, c->groups);
	msgpack_pack_uint32(pk, (uint32_t)c->dtype);
	msgpack_pack_uint32(pk, (uint32_t)c->compute_type);
	msgpack_pack_uint64(pk, c->stream);
	msgpack_pack_uint32(pk, c->thread);
	msgpack_pack_uint64(pk, c->cpu_ns);
}

static void pack_copy(msgpack_packer *pk, enum trace_type type, const struct trace_copy *c)
{
	msgpack_pack_array(pk, 13);
	msgpack_pack_uint8(pk, (uint8_t)type);
	msgpack_pack_uint64(pk, c->seq);
	msgpack_pack_uint64(pk, c->bytes);
	msgpack_pack_uint32(pk, (uint32_t)c->kind);
	msgpack_pack_uint8(pk, c->async);
	msgpack_pack_uint64(pk, c->stream);
	msgpack_pack_uint32(pk, c->thread);
	msgpack_pack_uint64(pk, c->cpu_ns);
	msgpack_pack_uint64(pk, c->cpu_end_ns);
	msgpack_pack_uint64(pk, c->start_ns);
	msgpack_pack_uint64(pk, c->end_ns);
	msgpack_pack_uint32(pk, (uint32_t)c->host_mem);
	msgpack_pack_uint32(pk, c->copies);
}

static void pack_sync(msgpack_packer *pk, const struct trace_sync *s)
{
	msgpack_pack_array(pk, 8);
	msgpack_pack_uint8(pk, TRACE_SYNC);
	msgpack_pack_uint64(pk, s->seq);
	msgpack_pack_uint32(pk, (uint32_t)s->kind);
	msgpack_pack_uint64(pk, s->stream);
	msgpack_pack_uint32(pk, s->thread);
	msgpack_pack_uint64(pk, s->cpu_ns);
	msgpack_pack_uint64(pk, s->cpu_end_ns);
	msgpack_pack_uint64(pk, s->event);
}

static void pack_marker(msgpack_packer *pk, const struct trace_marker *m)
{
	msgpack_pack_array(pk, 7);
	msgpack_pack_uint8(pk, TRACE_MARKER);
	msgpack_pack_uint64(pk, m->seq);
	msgpack_pack_uint32(pk, (uint32_t)m->kind);
	msgpack_pack_uint32(pk, m->name);
	msgpack_pack_uint32(pk, m->thread);
	msgpack_pack_uint64(pk, m->cpu_ns);
	msgpack_pack_int32(pk, m->iteration);
}

static void pack_op(msgpack_packer *pk, const struct trace_op *o)
{
	msgpack_pack_array(pk, 39);
	msgpack_pack_uint8(pk, TRACE_OP);
	msgpack_pack_uint64(pk, o->seq);
	msgpack_pack_uint32(pk, (uint32_t)o->kind);
	msgpack_pack_uint32(pk, (uint32_t)o->dtype);
	msgpack_pack_uint64(pk, o->m);
	msgpack_pack_uint64(pk, o->n);
	msgpack_pack_uint64(pk, o->k);
	msgpack_pack_uint64(pk, o->batch);
	msgpack_pack_double(pk, o->flops);
	msgpack_pack_double(pk, o->bytes);
	msgpack_pack_uint8(pk, o->b_transposed);
	msgpack_pack_double(pk, o->reread_bytes);
	msgpack_pack_double(pk, o->reuse_bytes);
	msgpack_pack_uint32(pk, (uint32_t)o->collective);
	msgpack_pack_uint32(pk, o->ranks);
	msgpack_pack_uint64(pk, o->stream);
	msgpack_pack_uint32(pk, o->thread);
	msgpack_pack_uint64(pk, o->cpu_ns);
	/* 1.3 */
	msgpack_pack_uint32(pk, (uint32_t)o->attn.impl);
	msgpack_pack_uint32(pk, (uint32_t)o->attn.form);
	msgpack_pack_uint8(pk, o->attn.backward);
	msgpack_pack_uint8(pk, o->attn.causal);
	msgpack_pack_uint32(pk, o->attn.seqs);
	msgpack_pack_uint32(pk, o->attn.heads);
	msgpack_pack_uint32(pk, o->attn.kv_heads);
	msgpack_pack_uint32(pk, o->attn.head_dim);
	msgpack_pack_uint32(pk, o->attn.head_dim_v);
	msgpack_pack_uint64(pk, o->attn.q_tokens);
	msgpack_pack_uint64(pk, o->attn.kv_tokens);
	msgpack_pack_uint64(pk, o->attn.max_kv);
	msgpack_pack_double(pk, o->attn.pairs);
	msgpack_pack_int32(pk, o->rank);
	msgpack_pack_uint64(pk, o->comm);
	msgpack_pack_uint32(pk, o->node_ranks);
	/* 1.4 */
	msgpack_pack_uint8(pk, o->accumulate);
	/* 1.7 */
	msgpack_pack_uint64(pk, o->attn.window);
	/* 1.8 */
	msgpack_pack_uint8(pk, o->attn.kv_bytes);
	/* 1.9 */
	msgpack_pack_double(pk, o->b_bytes);
	/* 1.10 */
	msgpack_pack_uint32(pk, o->attn.bias_heads);
}

static void pack_stack(msgpack_packer *pk, const struct trace_stack *s)
{
	msgpack_pack_array(pk, 3);
	msgpack_pack_uint8(pk, TRACE_STACK);
	msgpack_pack_uint32(pk, s->id);
	msgpack_pack_array(pk, s->nframes);
	for (uint32_t i = 0; i < s->nframes; i++)
		msgpack_pack_uint32(pk, s->frames[i]);
}

int trace_writer_record(struct trace_writer *w, const struct trace_record *rec)
{
	if (!w || !rec)
		return TRACE_EINVAL;
	int rc = usable(w);
	if (rc < 0)
		return rc;
	if (trace_validate_record(rec, strpool_count(&w->strs), &w->stacks, NULL, 0) < 0)
		return TRACE_EINVAL;
	msgpack_packer *pk = &w->pk;
	switch (rec->type) {
	case TRACE_KERNEL: pack_kernel(pk, &rec->u.kernel); break;
	case TRACE_GEMM: pack_gemm(pk, &rec->u.gemm); break;
	case TRACE_CONV: pack_conv(pk, &rec->u.conv); break;
	case TRACE_MEMCPY:
	case TRACE_MEMSET: pack_copy(pk, rec->type, &rec->u.copy); break;
	case TRACE_SYNC: pack_sync(pk, &rec->u.sync); break;
	case TRACE_MARKER: pack_marker(pk, &rec->u.marker); break;
	case TRACE_OP: pack_op(pk, &rec->u.op); break;
	case TRACE_STACK:
		if (w->stacks.count >= TRACE_MAX_STACKS)
			return TRACE_EINVAL;
		if (hmap_put(&w->stacks, rec->u.stack.id, 1) < 0)
			return fail(w, TRACE_ENOMEM);
		pack_stack(pk, &rec->u.stack);
		break;
	default:
		return TRACE_EINVAL;   /* validation already refused it */
	}
	return end_record(w, rec->type);
}

int trace_writer_flush(struct trace_writer *w)
{
	if (!w)
		return TRACE_EINVAL;
	if (w->state == W_FAILED)
		return w->err;
	return flush_buf(w);
}

const struct trace_trailer *trace_writer_counts(const struct trace_writer *w)
{
	return &w->counts;
}

void trace_writer_add_dropped(struct trace_writer *w, uint64_t n)
{
	if (w)
		w->counts.dropped += n;
}

void trace_writer_set_peak_device_bytes(struct trace_writer *w, uint64_t bytes)
{
	if (w)
		w->counts.peak_device_bytes = bytes;
}

int trace_writer_finish(struct trace_writer *w)
{
	if (!w)
		return TRACE_EINVAL;
	int rc = usable(w);
	if (rc < 0)
		return rc;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	w->counts.end_unix_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	msgpack_packer *pk = &w->pk;
	msgpack_pack_array(pk, 5);
	msgpack_pack_uint8(pk, TRACE_TRAILER);
	msgpack_pack_array(pk, TRACE_TYPE_MAX);
	for (int t = 0; t < TRACE_TYPE_MAX; t++)
		msgpack_pack_uint64(pk, t == TRACE_TRAILER ? 0 : w->counts.count[t]);
	msgpack_pack_uint64(pk, w->counts.end_unix_ns);
	msgpack_pack_uint64(pk, w->counts.dropped);
	msgpack_pack_uint64(pk, w->counts.peak_device_bytes);
	if (w->oom)
		return fail(w, TRACE_ENOMEM);
	rc = flush_buf(w);
	if (rc < 0)
		return rc;
	w->state = W_DONE;
	return 0;
}

void trace_writer_free(struct trace_writer *w)
{
	if (!w)
		return;
	/* Best effort: an unfinished trace keeps every record written so far
	 * and reads as truncated. */
	if (w->state == W_OPEN)
		flush_buf(w);
	if (w->fd >= 0)
		close(w->fd);
	strpool_release(&w->strs);
	hmap_release(&w->stacks);
	free(w->buf);
	free(w);
}
