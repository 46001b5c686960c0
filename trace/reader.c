/*
 * reader.c - the streaming trace reader.
 *
 * A msgpack_unpacker is fed from the file (or a memory buffer) in 64 KiB
 * reads; each top-level msgpack object is one record.  Before msgpack sees
 * an object, scan_object() walks its encoding and checks every declared
 * length against TRACE_STRING_MAX / TRACE_RECORD_MAX / ARRAY_MAX, so that a
 * corrupt length can neither make msgpack allocate a huge array nor make us
 * buffer an unbounded amount of input.  Every field is then checked for its
 * type and range (trace_validate_record, shared with the writer).
 *
 * Memory held is the string table, the stack table and one record's worth
 * of input: bounded by the number of distinct strings and stacks, never by
 * the file size.  Every loop consumes input or ends, so there is no endless
 * loop on any input.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>

#include "trace/internal.h"
#include "trace/trace.h"

#define READ_CHUNK (64u * 1024)
#define ARRAY_MAX 4096u           /* elements of any array in a record */
#define MSG_MAX 256

enum { R_READING = 0, R_DONE = 1 };
/* Internal decode results besides 0 and the negative error codes. */
enum { D_RECORD = 1, D_ABSORBED = 2, D_TRAILER = 3 };

struct trace_reader {
	FILE *fp;
	int own_fp;
	const unsigned char *mem;
	size_t mem_len, mem_off;
	int eof;

	msgpack_unpacker u;
	msgpack_unpacked res;
	int u_ready;
	uint64_t offset;             /* input offset of the current object */
	uint64_t consumed;           /* input bytes of the objects unpacked */

	struct trace_header hdr;
	int newer_minor;             /* the file's minor version is newer */

	char **strs;                 /* strs[id - 1], NUL-terminated */
	uint32_t *slens;
	uint32_t nstr, capstr;
	uint64_t str_bytes;

	struct trace_stack **stacks;
	uint32_t nstacks, capstacks;
	struct trace_u32map stack_ids;  /* id -> index + 1 */

	uint64_t counts[TRACE_TYPE_MAX];  /* records read, by type */
	uint64_t returned;           /* records returned by trace_reader_next */
	struct trace_trailer trailer;

	int state;                   /* R_READING, R_DONE or an error code */
	char msg[MSG_MAX];
};

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int rfail(struct trace_reader *r, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
	r->state = code;
	return code;
}

static void copy_msg(const char *msg, char *err, size_t errlen)
{
	if (err && errlen)
		snprintf(err, errlen, "%s", msg);
}

/* ---- input ----------------------------------------------------------- */

/* Reads more input into the unpacker.  Returns 0 (possibly at EOF, see
 * r->eof) or a negative code. */
static int fill(struct trace_reader *r)
{
	if (!msgpack_unpacker_reserve_buffer(&r->u, READ_CHUNK))
		return rfail(r, TRACE_ENOMEM, "out of memory");
	char *dst = msgpack_unpacker_buffer(&r->u);
	size_t room = msgpack_unpacker_buffer_capacity(&r->u);
	size_t n;
	if (r->mem) {
		n = r->mem_len - r->mem_off;
		if (n > room)
			n = room;
		memcpy(dst, r->mem + r->mem_off, n);
		r->mem_off += n;
	} else {
		n = fread(dst, 1, room, r->fp);
		if (n == 0 && ferror(r->fp))
			return rfail(r, TRACE_EIO, "read failed: %s", strerror(errno));
	}
	if (n == 0)
		r->eof = 1;
	msgpack_unpacker_buffer_consumed(&r->u, n);
	return 0;
}

enum { SCAN_OK, SCAN_MORE, SCAN_BAD };

static uint64_t be(const unsigned char *p, size_t n)
{
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* Walks the msgpack encoding of one object at p[0..avail) without
 * allocating.  SCAN_OK with its length, SCAN_MORE when the object goes on
 * past avail, SCAN_BAD when it is invalid or exceeds the limits. */
static int scan_object(const unsigned char *p, size_t avail, size_t *objlen)
{
	size_t pos = 0;
	uint64_t todo = 1;   /* objects still to walk */
	while (todo > 0) {
		if (pos >= avail)
			return SCAN_MORE;
		unsigned b = p[pos];
		uint64_t body = 0, items = 0;
		size_t lenbytes = 0;
		enum { K_NONE, K_BYTES, K_EXT, K_ARRAY, K_MAP } kind = K_NONE;
		if (b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 || b == 0xc3)
			;
		else if (b <= 0x8f)
			items = 2 * (uint64_t)(b & 0x0f);
		else if (b <= 0x9f)
			items = b & 0x0f;
		else if (b <= 0xbf)
			body = b & 0x1f;
		else {
			switch (b) {
			case 0xc4: case 0xd9: lenbytes = 1; kind = K_BYTES; break;
			case 0xc5: case 0xda: lenbytes = 2; kind = K_BYTES; break;
			case 0xc6: case 0xdb: lenbytes = 4; kind = K_BYTES; break;
			case 0xc7: lenbytes = 1; kind = K_EXT; break;
			case 0xc8: lenbytes = 2; kind = K_EXT; break;
			case 0xc9: lenbytes = 4; kind = K_EXT; break;
			case 0xca: body = 4; break;
			case 0xcb: body = 8; break;
			case 0xcc: case 0xd0: body = 1; break;
			case 0xcd: case 0xd1: body = 2; break;
			case 0xce: case 0xd2: body = 4; break;
			case 0xcf: case 0xd3: body = 8; break;
			case 0xd4: body = 2; break;    /* fixext: type byte + data */
			case 0xd5: body = 3; break;
			case 0xd6: body = 5; break;
			case 0xd7: body = 9; break;
			case 0xd8: body = 17; break;
			case 0xdc: lenbytes = 2; kind = K_ARRAY; break;
			case 0xdd: lenbytes = 4; kind = K_ARRAY; break;
			case 0xde: lenbytes = 2; kind = K_MAP; break;
			case 0xdf: lenbytes = 4; kind = K_MAP; break;
			default: return SCAN_BAD;      /* 0xc1: never used */
			}
		}
		if (lenbytes) {
			if (pos + 1 + lenbytes > avail)
				return SCAN_MORE;
			uint64_t n = be(p + pos + 1, lenbytes);
			switch (kind) {
			case K_BYTES:
				if (n > TRACE_STRING_MAX)
					return SCAN_BAD;
				body = n;
				break;
			case K_EXT:
				if (n > TRACE_RECORD_MAX)
					return SCAN_BAD;
				body = n + 1;
				break;
			case K_ARRAY:
				if (n > ARRAY_MAX)
					return SCAN_BAD;
				items = n;
				break;
			default:
				if (n > ARRAY_MAX / 2)
					return SCAN_BAD;
				items = 2 * n;
				break;
			}
		}
		todo = todo - 1 + items;
		pos += 1 + lenbytes + body;
		/* Every pending object takes at least one more byte. */
		if (pos + todo > TRACE_RECORD_MAX)
			return SCAN_BAD;
	}
	if (pos > avail)
		return SCAN_MORE;
	*objlen = pos;
	return SCAN_OK;
}

/* Makes the next top-level object available in r->res.data.  Returns 1,
 * 0 at end of input on an object boundary, or a negative code (TRACE_ETRUNC
 * with no message when the input ends inside an object). */
static int next_object(struct trace_reader *r)
{
	msgpack_unpacked_destroy(&r->res);
	msgpack_unpacked_init(&r->res);
	r->offset = r->consumed;
	for (;;) {
		const unsigned char *p = (const unsigned char *)r->u.buffer + r->u.off;
		size_t avail = r->u.used - r->u.off;
		size_t len = 0;
		int s = scan_object(p, avail, &len);
		if (s == SCAN_BAD)
			return rfail(r, TRACE_ECORRUPT,
				     "at byte %llu: malformed or oversized msgpack object",
				     (unsigned long long)r->offset);
		if (s == SCAN_OK) {
			msgpack_unpack_return ur = msgpack_unpacker_next(&r->u, &r->res);
			if (ur == MSGPACK_UNPACK_NOMEM_ERROR)
				return rfail(r, TRACE_ENOMEM, "out of memory");
			if (ur != MSGPACK_UNPACK_SUCCESS)
				return rfail(r, TRACE_ECORRUPT, "at byte %llu: malformed msgpack object",
					     (unsigned long long)r->offset);
			r->consumed += len;
			return 1;
		}
		if (r->eof)
			return avail == 0 ? 0 : TRACE_ETRUNC;
		int rc = fill(r);
		if (rc < 0)
			return rc;
	}
}

/* ---- field decoding -------------------------------------------------- */

/* A cursor over the positional fields of one record. */
struct fields {
	struct trace_reader *r;
	const char *what;            /* record type name, for messages */
	const msgpack_object *v;
	uint32_t n, i;
	int rc;                      /* first failure; later getters do nothing */
};

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int ferr(struct fields *f, const char *name, const char *fmt, ...)
{
	char why[128];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	f->rc = TRACE_ECORRUPT;
	return rfail(f->r, TRACE_ECORRUPT, "at byte %llu: %s record: %s: %s",
		     (unsigned long long)f->r->offset, f->what, name, why);
}

static const msgpack_object *field(struct fields *f)
{
	uint32_t i = f->i++;
	return i < f->n ? &f->v[i] : NULL;
}

static int get_u64(struct fields *f, const char *name, uint64_t max, uint64_t def, uint64_t *out)
{
	if (f->rc)
		return f->rc;
	const msgpack_object *o = field(f);
	if (!o) {
		*out = def;
		return 0;
	}
	if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
		return ferr(f, name, "not an unsigned integer");
	if (o->via.u64 > max)
		return ferr(f, name, "%llu out of range", (unsigned long long)o->via.u64);
	*out = o->via.u64;
	return 0;
}

static int get_u32(struct fields *f, const char *name, uint32_t def, uint32_t *out)
{
	uint64_t v = 0;
	int rc = get_u64(f, name, UINT32_MAX, def, &v);
	*out = (uint32_t)v;
	return rc;
}

static int get_u8(struct fields *f, const char *name, uint8_t def, uint8_t *out)
{
	uint64_t v = 0;
	int rc = get_u64(f, name, UINT8_MAX, def, &v);
	*out = (uint8_t)v;
	return rc;
}

/* A real number (a float or an integer field). */
static int get_f64(struct fields *f, const char *name, double def, double *out)
{
	if (f->rc)
		return f->rc;
	const msgpack_object *o = field(f);
	if (!o) {
		*out = def;
		return 0;
	}
	switch (o->type) {
	case MSGPACK_OBJECT_FLOAT32:
	case MSGPACK_OBJECT_FLOAT64: *out = o->via.f64; return 0;
	case MSGPACK_OBJECT_POSITIVE_INTEGER: *out = (double)o->via.u64; return 0;
	case MSGPACK_OBJECT_NEGATIVE_INTEGER: *out = (double)o->via.i64; return 0;
	default: return ferr(f, name, "not a number");
	}
}

static int conv_i64(struct fields *f, const char *name, const msgpack_object *o,
		    int64_t min, int64_t max, int64_t *out)
{
	if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER) {
		if (o->via.u64 > (uint64_t)max)
			return ferr(f, name, "%llu out of range", (unsigned long long)o->via.u64);
		*out = (int64_t)o->via.u64;
		return 0;
	}
	if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) {
		if (o->via.i64 < min)
			return ferr(f, name, "%lld out of range", (long long)o->via.i64);
		*out = o->via.i64;
		return 0;
	}
	return ferr(f, name, "not an integer");
}

static int get_i32(struct fields *f, const char *name, int32_t def, int32_t *out)
{
	if (f->rc)
		return f->rc;
	const msgpack_object *o = field(f);
	int64_t v = def;
	if (o && conv_i64(f, name, o, INT32_MIN, INT32_MAX, &v) < 0)
		return TRACE_ECORRUPT;
	*out = (int32_t)v;
	return 0;
}

/* An array of exactly n integers; def fills it when the field is absent. */
static int get_i64s(struct fields *f, const char *name, uint32_t n, int64_t def, int64_t *out)
{
	if (f->rc)
		return f->rc;
	const msgpack_object *o = field(f);
	if (!o) {
		for (uint32_t i = 0; i < n; i++)
			out[i] = def;
		return 0;
	}
	if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size != n)
		return ferr(f, name, "not an array of %u integers", n);
	for (uint32_t i = 0; i < n; i++) {
		if (conv_i64(f, name, &o->via.array.ptr[i], INT64_MIN, INT64_MAX, &out[i]) < 0)
			return TRACE_ECORRUPT;
	}
	return 0;
}

/* A string copied into buf[cap], cut to fit. */
static int get_str(struct fields *f, const char *name, char *buf, size_t cap)
{
	buf[0] = '\0';
	if (f->rc)
		return f->rc;
	const msgpack_object *o = field(f);
	if (!o)
		return 0;
	if (o->type != MSGPACK_OBJECT_STR)
		return ferr(f, name, "not a string");
	size_t n = o->via.str.size < cap - 1 ? o->via.str.size : cap - 1;
	if (n)   /* an empty str may carry a NULL pointer */
		memcpy(buf, o->via.str.ptr, n);
	buf[n] = '\0';
	return 0;
}

/* An enum value below count.  A value beyond it is corrupt, unless the
 * file's minor version is newer than ours: then it becomes unknown_val, or
 * the record is skipped (D_ABSORBED) when the enum has no unknown value. */
static int get_enum(struct fields *f, const char *name, unsigned count, int unknown_val,
		    int def, int *out)
{
	uint64_t v = 0;
	if (get_u64(f, name, UINT32_MAX, (uint64_t)def, &v) < 0)
		return TRACE_ECORRUPT;
	if (v < count) {
		*out = (int)v;
		return 0;
	}
	if (!f->r->newer_minor)
		return ferr(f, name, "%llu out of range", (unsigned long long)v);
	if (unknown_val < 0)
		return f->rc = D_ABSORBED;
	*out = unknown_val;
	return 0;
}

static int decode_header(struct fields *f, struct trace_header *h)
{
	struct trace_device *d = &h->device;
	memset(h, 0, sizeof(*h));
	char magic[16];
	uint64_t major, minor;
	f->i = 1;
	get_str(f, "magic", magic, sizeof(magic));
	if (f->rc)
		return f->rc;
	if (strcmp(magic, TRACE_MAGIC) != 0)
		return rfail(f->r, TRACE_EVERSION, "not a surfer trace (bad magic)");
	get_u64(f, "major", UINT32_MAX, 0, &major);
	get_u64(f, "minor", UINT32_MAX, 0, &minor);
	if (f->rc)
		return f->rc;
	if (major > TRACE_VERSION_MAJOR)
		return rfail(f->r, TRACE_EVERSION,
			     "trace format version %llu.%llu is newer than this reader (%d.%d); upgrade surfer",
			     (unsigned long long)major, (unsigned long long)minor,
			     TRACE_VERSION_MAJOR, TRACE_VERSION_MINOR);
	if (major < TRACE_VERSION_MAJOR)
		return rfail(f->r, TRACE_EVERSION, "trace format version %llu.%llu is not supported",
			     (unsigned long long)major, (unsigned long long)minor);
	h->version_major = (uint32_t)major;
	h->version_minor = (uint32_t)minor;
	f->r->newer_minor = minor > TRACE_VERSION_MINOR;
	int timing = TRACE_TIMING_NONE;
	get_str(f, "tool_version", h->tool_version, sizeof(h->tool_version));
	get_str(f, "host", h->host, sizeof(h->host));
	get_u32(f, "pid", 0, &h->pid);
	get_u64(f, "start_unix_ns", UINT64_MAX, 0, &h->start_unix_ns);
	get_str(f, "cmdline", h->cmdline, sizeof(h->cmdline));
	if (get_enum(f, "timing", TRACE_TIMING_COUNT, TRACE_TIMING_NONE, TRACE_TIMING_NONE,
		     &timing) < 0)
		return TRACE_ECORRUPT;
	h->timing = (enum trace_timing)timing;
	get_str(f, "timing_note", h->timing_note, sizeof(h->timing_note));
	if (f->rc)
		return f->rc;
	const msgpack_object *dev = field(f);
	if (!dev)
		return 0;
	if (dev->type != MSGPACK_OBJECT_ARRAY)
		return ferr(f, "device", "not an array");
	struct fields df = { f->r, "header device", dev->via.array.ptr, dev->via.array.size, 0, 0 };
	get_str(&df, "name", d->name, sizeof(d->name));
	get_u32(&df, "cc_major", 0, &d->cc_major);
	get_u32(&df, "cc_minor", 0, &d->cc_minor);
	get_u32(&df, "sm_count", 0, &d->sm_count);
	get_u32(&df, "clock_khz", 0, &d->clock_khz);
	get_u32(&df, "mem_clock_khz", 0, &d->mem_clock_khz);
	get_u32(&df, "mem_bus_bits", 0, &d->mem_bus_bits);
	get_u64(&df, "mem_bytes", UINT64_MAX, 0, &d->mem_bytes);
	get_u32(&df, "l2_bytes", 0, &d->l2_bytes);
	get_u32(&df, "max_threads_per_sm", 0, &d->max_threads_per_sm);
	get_u32(&df, "max_blocks_per_sm", 0, &d->max_blocks_per_sm);
	get_u32(&df, "regs_per_sm", 0, &d->regs_per_sm);
	get_u32(&df, "smem_per_sm", 0, &d->smem_per_sm);
	get_u32(&df, "smem_per_block_optin", 0, &d->smem_per_block_optin);
	get_u32(&df, "driver_version", 0, &d->driver_version);
	get_u32(&df, "runtime_version", 0, &d->runtime_version);
	return df.rc;
}

static int decode_string(struct fields *f)
{
	struct trace_reader *r = f->r;
	uint64_t id;
	get_u64(f, "id", UINT32_MAX, 0, &id);
	if (f->rc)
		return f->rc;
	if (id != (uint64_t)r->nstr + 1)
		return ferr(f, "id", "%llu, expected %u (ids are consecutive)",
			    (unsigned long long)id, r->nstr + 1);
	const msgpack_object *o = field(f);
	if (o->type != MSGPACK_OBJECT_STR)
		return ferr(f, "bytes", "not a string");
	uint32_t len = o->via.str.size;
	if (r->nstr >= TRACE_MAX_STRINGS || r->str_bytes + len > TRACE_MAX_STRING_BYTES)
		return ferr(f, "id", "too many strings");
	if (r->nstr == r->capstr) {
		uint32_t nc = r->capstr ? r->capstr * 2 : 256;
		char **ns = realloc(r->strs, nc * sizeof(*ns));
		if (!ns)
			return rfail(r, TRACE_ENOMEM, "out of memory");
		r->strs = ns;
		uint32_t *nl = realloc(r->slens, nc * sizeof(*nl));
		if (!nl)
			return rfail(r, TRACE_ENOMEM, "out of memory");
		r->slens = nl;
		r->capstr = nc;
	}
	char *s = malloc((size_t)len + 1);
	if (!s)
		return rfail(r, TRACE_ENOMEM, "out of memory");
	if (len)   /* an empty str may carry a NULL pointer */
		memcpy(s, o->via.str.ptr, len);
	s[len] = '\0';
	r->strs[r->nstr] = s;
	r->slens[r->nstr] = len;
	r->nstr++;
	r->str_bytes += len;
	return D_ABSORBED;
}

static int decode_kernel(struct fields *f, struct trace_kernel *k)
{
	static const char *const dims[9] = {
		"grid.x", "grid.y", "grid.z", "block.x", "block.y", "block.z",
		"cluster.x", "cluster.y", "cluster.z",
	};
	get_u64(f, "seq", UINT64_MAX, 0, &k->seq);
	get_u32(f, "name", 0, &k->name);
	for (int i = 0; i < 9; i++) {
		uint32_t *dst = i < 3 ? &k->grid[i] : i < 6 ? &k->block[i - 3] : &k->cluster[i - 6];
		get_u32(f, dims[i], 0, dst);
	}
	get_u32(f, "regs", 0, &k->regs);
	get_u32(f, "static_smem", 0, &k->static_smem);
	get_u32(f, "dyn_smem", 0, &k->dyn_smem);
	get_u64(f, "stream", UINT64_MAX, 0, &k->stream);
	get_u32(f, "thread", 0, &k->thread);
	get_u32(f, "flags", 0, &k->flags);
	get_u64(f, "cpu_ns", UINT64_MAX, 0, &k->cpu_ns);
	get_u64(f, "start_ns", UINT64_MAX, 0, &k->start_ns);
	get_u64(f, "end_ns", UINT64_MAX, 0, &k->end_ns);
	get_u64(f, "lib_call", UINT64_MAX, 0, &k->lib_call);
	get_i32(f, "iteration", -1, &k->iteration);
	get_u32(f, "stack", 0, &k->stack);
	return f->rc;
}

static int get_dtype(struct fields *f, const char *name, enum trace_dtype *out)
{
	int v = TRACE_DT_UNKNOWN;
	get_enum(f, name, TRACE_DT_COUNT, TRACE_DT_UNKNOWN, TRACE_DT_UNKNOWN, &v);
	*out = (enum trace_dtype)v;
	return f->rc;
}

static int decode_gemm(struct fields *f, struct trace_gemm *g)
{
	int api = 0;
	get_u64(f, "seq", UINT64_MAX, 0, &g->seq);
	get_enum(f, "api", TRACE_GEMM_API_COUNT, TRACE_GEMM_UNKNOWN, 0, &api);
	g->api = (enum trace_gemm_api)api;
	get_u64(f, "m", UINT64_MAX, 0, &g->m);
	get_u64(f, "n", UINT64_MAX, 0, &g->n);
	get_u64(f, "k", UINT64_MAX, 0, &g->k);
	get_u64(f, "batch", UINT64_MAX, 1, &g->batch);
	get_u8(f, "trans_a", 0, &g->trans_a);
	get_u8(f, "trans_b", 0, &g->trans_b);
	get_dtype(f, "a_type", &g->a_type);
	get_dtype(f, "b_type", &g->b_type);
	get_dtype(f, "c_type", &g->c_type);
	get_dtype(f, "compute_type", &g->compute_type);
	get_u32(f, "epilogue", 1, &g->epilogue);
	get_u64(f, "stream", UINT64_MAX, 0, &g->stream);
	get_u32(f, "thread", 0, &g->thread);
	get_u64(f, "cpu_ns", UINT64_MAX, 0, &g->cpu_ns);
	return f->rc;
}

static int decode_conv(struct fields *f, struct trace_conv *c)
{
	int api = 0, dir = 0;
	get_u64(f, "seq", UINT64_MAX, 0, &c->seq);
	get_enum(f, "api", TRACE_CONV_API_COUNT, TRACE_CONV_API_UNKNOWN, 0, &api);
	get_enum(f, "dir", TRACE_CONV_DIR_COUNT, -1, 0, &dir);
	c->api = (enum trace_conv_api)api;
	c->dir = (enum trace_conv_dir)dir;
	get_u32(f, "nbdims", 0, &c->nbdims);
	if (f->rc)
		return f->rc;
	if (c->nbdims != 4 && c->nbdims != 5)
		return ferr(f, "nbdims", "%u is not 4 or 5", c->nbdims);
	uint32_t sp = c->nbdims - 2;
	get_i64s(f, "in", c->nbdims, 0, c->in);
	get_i64s(f, "filt", c->nbdims, 0, c->filt);
	get_i64s(f, "out", c->nbdims, 0, c->out);
	get_i64s(f, "stride", sp, 1, c->stride);
	get_i64s(f, "pad", sp, 0, c->pad);
	get_i64s(f, "dilation", sp, 1, c->dilation);
	get_u32(f, "groups", 1, &c->groups);
	get_dtype(f, "dtype", &c->dtype);
	get_dtype(f, "compute_type", &c->compute_type);
	get_u64(f, "stream", UINT64_MAX, 0, &c->stream);
	get_u32(f, "thread", 0, &c->thread);
	get_u64(f, "cpu_ns", UINT64_MAX, 0, &c->cpu_ns);
	return f->rc;
}

static int decode_copy(struct fields *f, struct trace_copy *c)
{
	int kind = 0, host = 0;
	get_u64(f, "seq", UINT64_MAX, 0, &c->seq);
	get_u64(f, "bytes", UINT64_MAX, 0, &c->bytes);
	get_enum(f, "kind", TRACE_COPY_KIND_COUNT, TRACE_COPY_UNKNOWN, 0, &kind);
	c->kind = (enum trace_copy_kind)kind;
	get_u8(f, "async", 0, &c->async);
	get_u64(f, "stream", UINT64_MAX, 0, &c->stream);
	get_u32(f, "thread", 0, &c->thread);
	get_u64(f, "cpu_ns", UINT64_MAX, 0, &c->cpu_ns);
	get_u64(f, "cpu_end_ns", UINT64_MAX, 0, &c->cpu_end_ns);
	get_u64(f, "start_ns", UINT64_MAX, 0, &c->start_ns);
	get_u64(f, "end_ns", UINT64_MAX, 0, &c->end_ns);
	get_enum(f, "host_mem", TRACE_HOST_MEM_COUNT, TRACE_HOST_UNKNOWN, 0, &host);
	c->host_mem = (enum trace_host_mem)host;
	return f->rc;
}

static int decode_sync(struct fields *f, struct trace_sync *s)
{
	int kind = 0;
	get_u64(f, "seq", UINT64_MAX, 0, &s->seq);
	get_enum(f, "kind", TRACE_SYNC_KIND_COUNT, TRACE_SYNC_OTHER, 0, &kind);
	s->kind = (enum trace_sync_kind)kind;
	get_u64(f, "stream", UINT64_MAX, 0, &s->stream);
	get_u32(f, "thread", 0, &s->thread);
	get_u64(f, "cpu_ns", UINT64_MAX, 0, &s->cpu_ns);
	get_u64(f, "cpu_end_ns", UINT64_MAX, 0, &s->cpu_end_ns);
	get_u64(f, "event", UINT64_MAX, 0, &s->event);
	return f->rc;
}

static int decode_marker(struct fields *f, struct trace_marker *m)
{
	int kind = 0;
	get_u64(f, "seq", UINT64_MAX, 0, &m->seq);
	get_enum(f, "kind", TRACE_MARK_KIND_COUNT, -1, 0, &kind);
	m->kind = (enum trace_marker_kind)kind;
	get_u32(f, "name", 0, &m->name);
	get_u32(f, "thread", 0, &m->thread);
	get_u64(f, "cpu_ns", UINT64_MAX, 0, &m->cpu_ns);
	get_i32(f, "iteration", -1, &m->iteration);
	return f->rc;
}

static int decode_op(struct fields *f, struct trace_op *o)
{
	int kind = 0, coll = 0;
	get_u64(f, "seq", UINT64_MAX, 0, &o->seq);
	get_enum(f, "kind", TRACE_OPK_COUNT, TRACE_OPK_UNKNOWN, 0, &kind);
	o->kind = (enum trace_op_kind)kind;
	get_dtype(f, "dtype", &o->dtype);
	get_u64(f, "m", UINT64_MAX, 0, &o->m);
	get_u64(f, "n", UINT64_MAX, 0, &o->n);
	get_u64(f, "k", UINT64_MAX, 0, &o->k);
	get_u64(f, "batch", UINT64_MAX, 0, &o->batch);
	get_f64(f, "flops", 0, &o->flops);
	get_f64(f, "bytes", 0, &o->bytes);
	get_u8(f, "b_transposed", 0, &o->b_transposed);
	get_f64(f, "reread_bytes", 0, &o->reread_bytes);
	get_f64(f, "reuse_bytes", 0, &o->reuse_bytes);
	get_enum(f, "collective", TRACE_COLL_COUNT, -1, 0, &coll);
	o->collective = (enum trace_collective)coll;
	get_u32(f, "ranks", 0, &o->ranks);
	get_u64(f, "stream", UINT64_MAX, 0, &o->stream);
	get_u32(f, "thread", 0, &o->thread);
	get_u64(f, "cpu_ns", UINT64_MAX, 0, &o->cpu_ns);
	return f->rc;
}

static int decode_stack(struct fields *f, struct trace_stack *s)
{
	get_u32(f, "id", 0, &s->id);
	if (f->rc)
		return f->rc;
	const msgpack_object *o = field(f);
	if (o->type != MSGPACK_OBJECT_ARRAY)
		return ferr(f, "frames", "not an array");
	if (o->via.array.size > TRACE_STACK_MAXFRAMES)
		return ferr(f, "frames", "%u frames, more than %d", o->via.array.size,
			    TRACE_STACK_MAXFRAMES);
	s->nframes = o->via.array.size;
	struct fields ff = { f->r, "stack", o->via.array.ptr, o->via.array.size, 0, 0 };
	for (uint32_t i = 0; i < s->nframes; i++)
		get_u32(&ff, "frames", 0, &s->frames[i]);
	return ff.rc;
}

static int decode_trailer(struct fields *f, struct trace_trailer *t)
{
	struct trace_reader *r = f->r;
	const msgpack_object *o = field(f);
	if (o->type != MSGPACK_OBJECT_ARRAY)
		return ferr(f, "counts", "not an array");
	struct fields cf = { r, "trailer", o->via.array.ptr, o->via.array.size, 0, 0 };
	for (int i = 0; i < TRACE_TYPE_MAX; i++)
		get_u64(&cf, "counts", UINT64_MAX, 0, &t->count[i]);
	get_u64(f, "end_unix_ns", UINT64_MAX, 0, &t->end_unix_ns);
	get_u64(f, "dropped", UINT64_MAX, 0, &t->dropped);
	get_u64(f, "peak_device_bytes", UINT64_MAX, 0, &t->peak_device_bytes);
	if (cf.rc || f->rc)
		return cf.rc ? cf.rc : f->rc;
	t->count[0] = 0;
	t->count[TRACE_TRAILER] = 0;
	for (int i = 1; i < TRACE_TYPE_MAX; i++) {
		if (i != TRACE_TRAILER && t->count[i] != r->counts[i])
			return rfail(r, TRACE_ECORRUPT,
				     "at byte %llu: trailer counts %llu %s records, %llu were read",
				     (unsigned long long)r->offset, (unsigned long long)t->count[i],
				     trace_type_name((enum trace_type)i),
				     (unsigned long long)r->counts[i]);
	}
	return D_TRAILER;
}

static const uint8_t required_fields[TRACE_TYPE_MAX] = {
	[TRACE_HEADER] = TRACE_REQ_HEADER, [TRACE_STRING] = TRACE_REQ_STRING,
	[TRACE_KERNEL] = TRACE_REQ_KERNEL, [TRACE_GEMM] = TRACE_REQ_GEMM,
	[TRACE_CONV] = TRACE_REQ_CONV, [TRACE_MEMCPY] = TRACE_REQ_COPY,
	[TRACE_MEMSET] = TRACE_REQ_COPY, [TRACE_SYNC] = TRACE_REQ_SYNC,
	[TRACE_MARKER] = TRACE_REQ_MARKER, [TRACE_STACK] = TRACE_REQ_STACK,
	[TRACE_TRAILER] = TRACE_REQ_TRAILER, [TRACE_OP] = TRACE_REQ_OP,
};

static int store_stack(struct trace_reader *r, const struct trace_stack *s)
{
	if (r->nstacks >= TRACE_MAX_STACKS)
		return rfail(r, TRACE_ECORRUPT, "at byte %llu: too many stacks",
			     (unsigned long long)r->offset);
	if (r->nstacks == r->capstacks) {
		uint32_t nc = r->capstacks ? r->capstacks * 2 : 64;
		struct trace_stack **ns = realloc(r->stacks, nc * sizeof(*ns));
		if (!ns)
			return rfail(r, TRACE_ENOMEM, "out of memory");
		r->stacks = ns;
		r->capstacks = nc;
	}
	struct trace_stack *copy = malloc(sizeof(*copy));
	if (!copy)
		return rfail(r, TRACE_ENOMEM, "out of memory");
	*copy = *s;
	if (trace_u32map_put(&r->stack_ids, s->id, r->nstacks + 1) < 0) {
		free(copy);
		return rfail(r, TRACE_ENOMEM, "out of memory");
	}
	r->stacks[r->nstacks++] = copy;
	return 0;
}

/* Decodes the object in r->res into rec.  Returns D_RECORD, D_ABSORBED
 * (a string, or a record this version does not know), D_TRAILER or a
 * negative code. */
static int decode(struct trace_reader *r, struct trace_record *rec)
{
	const msgpack_object *o = &r->res.data;
	if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size == 0 ||
	    o->via.array.ptr[0].type != MSGPACK_OBJECT_POSITIVE_INTEGER)
		return rfail(r, TRACE_ECORRUPT, "at byte %llu: not a record",
			     (unsigned long long)r->offset);
	uint64_t type = o->via.array.ptr[0].via.u64;
	if (type >= TRACE_TYPE_MAX) {
		if (r->newer_minor)
			return D_ABSORBED;   /* a record type of a newer minor version */
		return rfail(r, TRACE_ECORRUPT, "at byte %llu: unknown record type %llu",
			     (unsigned long long)r->offset, (unsigned long long)type);
	}
	if (type == 0 || type == TRACE_HEADER)
		return rfail(r, TRACE_ECORRUPT, "at byte %llu: unexpected record type %llu",
			     (unsigned long long)r->offset, (unsigned long long)type);
	struct fields f = { r, trace_type_name((enum trace_type)type), o->via.array.ptr,
			    o->via.array.size, 1, 0 };
	if (f.n < required_fields[type])
		return rfail(r, TRACE_ECORRUPT, "at byte %llu: %s record has %u fields, needs %u",
			     (unsigned long long)r->offset, f.what, f.n - 1,
			     required_fields[type] - 1u);
	memset(rec, 0, sizeof(*rec));
	rec->type = (enum trace_type)type;
	int rc;
	switch (type) {
	case TRACE_STRING: rc = decode_string(&f); break;
	case TRACE_KERNEL: rc = decode_kernel(&f, &rec->u.kernel); break;
	case TRACE_GEMM: rc = decode_gemm(&f, &rec->u.gemm); break;
	case TRACE_CONV: rc = decode_conv(&f, &rec->u.conv); break;
	case TRACE_MEMCPY:
	case TRACE_MEMSET: rc = decode_copy(&f, &rec->u.copy); break;
	case TRACE_SYNC: rc = decode_sync(&f, &rec->u.sync); break;
	case TRACE_MARKER: rc = decode_marker(&f, &rec->u.marker); break;
	case TRACE_STACK: rc = decode_stack(&f, &rec->u.stack); break;
	case TRACE_OP: rc = decode_op(&f, &rec->u.op); break;
	default: rc = decode_trailer(&f, &rec->u.trailer); break;
	}
	if (rc < 0 || rc == D_TRAILER)
		return rc;
	r->counts[type]++;
	if (rc == D_ABSORBED)
		return rc;
	char why[160];
	if (trace_validate_record(rec, r->nstr, &r->stack_ids, why, sizeof(why)) < 0)
		return rfail(r, TRACE_ECORRUPT, "at byte %llu: %s record: %s",
			     (unsigned long long)r->offset, f.what, why);
	if (type == TRACE_STACK && store_stack(r, &rec->u.stack) < 0)
		return r->state;
	return D_RECORD;
}

/* ---- public API ------------------------------------------------------ */

static int truncated(struct trace_reader *r)
{
	return rfail(r, TRACE_ETRUNC, "truncated after %llu records",
		     (unsigned long long)r->returned);
}

/* Checks the first bytes: a msgpack array whose first elements are the
 * integer 1 and the string "surfer-trace", in their shortest encodings. */
static int check_magic(struct trace_reader *r)
{
	static const char tail[] = "\x01\xac" TRACE_MAGIC;
	const size_t tail_len = sizeof(tail) - 1;
	for (;;) {
		const unsigned char *p = (const unsigned char *)r->u.buffer + r->u.off;
		size_t avail = r->u.used - r->u.off;
		if (avail > 0) {
			size_t mlen = p[0] >= 0x90 && p[0] <= 0x9f ? 1 : p[0] == 0xdc ? 3
				      : p[0] == 0xdd ? 5 : 0;
			if (mlen == 0)
				return rfail(r, TRACE_EVERSION, "not a surfer trace");
			size_t cmp = avail > mlen ? avail - mlen : 0;
			if (cmp > tail_len)
				cmp = tail_len;
			if (memcmp(p + mlen, tail, cmp) != 0)
				return rfail(r, TRACE_EVERSION, "not a surfer trace");
			if (avail >= mlen + tail_len)
				return 0;
		}
		if (r->eof)
			return truncated(r);
		int rc = fill(r);
		if (rc < 0)
			return rc;
	}
}

static int open_common(struct trace_reader *r, char *err, size_t errlen)
{
	if (!msgpack_unpacker_init(&r->u, READ_CHUNK)) {
		copy_msg("out of memory", err, errlen);
		return TRACE_ENOMEM;
	}
	r->u_ready = 1;
	msgpack_unpacked_init(&r->res);
	int rc = check_magic(r);
	if (rc == 0) {
		rc = next_object(r);
		if (rc == 0 || rc == TRACE_ETRUNC)
			rc = truncated(r);
	}
	if (rc == 1) {
		const msgpack_object *o = &r->res.data;
		struct fields f = { r, "header", o->via.array.ptr, o->via.array.size, 0, 0 };
		if (o->type != MSGPACK_OBJECT_ARRAY || f.n < TRACE_REQ_HEADER)
			rc = rfail(r, TRACE_ECORRUPT, "header: too few fields");
		else
			rc = decode_header(&f, &r->hdr);
	}
	if (rc < 0) {
		copy_msg(r->msg, err, errlen);
		return rc;
	}
	r->counts[TRACE_HEADER] = 1;
	return 0;
}

int trace_reader_open(struct trace_reader **out, const char *path, char *err, size_t errlen)
{
	*out = NULL;
	struct trace_reader *r = calloc(1, sizeof(*r));
	if (!r) {
		copy_msg("out of memory", err, errlen);
		return TRACE_ENOMEM;
	}
	if (strcmp(path, "-") == 0) {
		r->fp = stdin;
	} else {
		r->fp = fopen(path, "rb");
		if (!r->fp) {
			int e = errno;
			copy_msg(strerror(e), err, errlen);
			free(r);
			errno = e;
			return TRACE_EIO;
		}
		r->own_fp = 1;
	}
	int rc = open_common(r, err, errlen);
	if (rc < 0) {
		trace_reader_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

int trace_reader_open_mem(struct trace_reader **out, const void *buf, size_t len,
			  char *err, size_t errlen)
{
	*out = NULL;
	struct trace_reader *r = calloc(1, sizeof(*r));
	if (!r) {
		copy_msg("out of memory", err, errlen);
		return TRACE_ENOMEM;
	}
	r->mem = buf ? buf : (const void *)"";
	r->mem_len = buf ? len : 0;
	int rc = open_common(r, err, errlen);
	if (rc < 0) {
		trace_reader_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

const struct trace_header *trace_reader_header(const struct trace_reader *r)
{
	return &r->hdr;
}

int trace_reader_next(struct trace_reader *r, struct trace_record *rec, char *err, size_t errlen)
{
	if (r->state < 0) {
		copy_msg(r->msg, err, errlen);
		return r->state;
	}
	if (r->state == R_DONE) {
		rec->type = TRACE_TRAILER;
		rec->u.trailer = r->trailer;
		return 0;
	}
	for (;;) {
		int rc = next_object(r);
		if (rc == 0 || rc == TRACE_ETRUNC)
			rc = truncated(r);
		if (rc < 0) {
			copy_msg(r->msg, err, errlen);
			return rc;
		}
		rc = decode(r, rec);
		if (rc < 0) {
			copy_msg(r->msg, err, errlen);
			return rc;
		}
		if (rc == D_RECORD) {
			r->returned++;
			return 1;
		}
		if (rc == D_TRAILER) {
			r->trailer = rec->u.trailer;
			r->state = R_DONE;
			return 0;
		}
	}
}

const char *trace_reader_string(const struct trace_reader *r, uint32_t id, size_t *len)
{
	if (id == 0 || id > r->nstr)
		return NULL;
	if (len)
		*len = r->slens[id - 1];
	return r->strs[id - 1];
}

uint32_t trace_reader_nstrings(const struct trace_reader *r)
{
	return r->nstr;
}

uint64_t trace_reader_count(const struct trace_reader *r)
{
	return r->returned;
}

const struct trace_stack *trace_reader_stack(const struct trace_reader *r, uint32_t id)
{
	const uint32_t *idx = trace_u32map_get(&r->stack_ids, id);
	return idx ? r->stacks[*idx - 1] : NULL;
}

void trace_reader_free(struct trace_reader *r)
{
	if (!r)
		return;
	if (r->u_ready) {
		msgpack_unpacked_destroy(&r->res);
		msgpack_unpacker_destroy(&r->u);
	}
	if (r->own_fp)
		fclose(r->fp);
	for (uint32_t i = 0; i < r->nstr; i++)
		free(r->strs[i]);
	free(r->strs);
	free(r->slens);
	for (uint32_t i = 0; i < r->nstacks; i++)
		free(r->stacks[i]);
	free(r->stacks);
	trace_u32map_release(&r->stack_ids);
	free(r);
}
