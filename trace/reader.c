/*
 * reader.c - the streaming trace reader.
 *
 * Input comes from the file in 64 KiB reads (or straight from a memory
 * buffer); each top-level msgpack object is one record.  scan_object()
 * first walks an object's encoding and checks every declared length against
 * TRACE_STRING_MAX / TRACE_RECORD_MAX / ARRAY_MAX, so that a corrupt length
 * can never make us buffer an unbounded amount of input.  The fields are
 * then decoded in place from the scanned bytes (no msgpack_object tree, no
 * allocation per record: decoding a launch costs about as much as scanning
 * it) and checked for type and range (trace_validate_record, shared with the
 * writer).  The types a field can have are msgpack-c's: an integer encoded
 * signed but not negative is an unsigned integer, bin is not str.  Records
 * that are arrays of integers take a one-walk path (fast_record) that gives
 * the same result or hands over to the general one.
 *
 * Memory held is the string table, the stack table and one record's worth
 * of input: bounded by the number of distinct strings and stacks, never by
 * the file size.  Every loop consumes input or ends, so there is no endless
 * loop on any input.
 *
 * Reading in order (trace_merge_*, at the end): a reader that keeps order
 * notes each thread's runs (order.c); the merge then gives every thread a
 * reader of its own in "lane" mode, which reads only that thread's byte
 * ranges (pread, or the caller's memory), skips strings and stacks, and
 * resolves ids through the first reader's tables.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "trace/internal.h"
#include "trace/strpool.h"
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
	const unsigned char *mem;    /* memory input (the caller's), or NULL */
	size_t mem_len;
	int eof;

	unsigned char *buf;          /* file input: buf[0..bcap) holds in */
	size_t bcap;
	const unsigned char *in;     /* input not yet consumed: in[ioff..iused) */
	size_t ioff, iused;
	const unsigned char *obj;    /* the current object: obj[0..objlen) */
	size_t objlen;
	uint64_t offset;             /* input offset of the current object */
	uint64_t consumed;           /* input bytes of the objects scanned */

	struct trace_header hdr;
	int newer_minor;             /* the file's minor version is newer */

	struct strpool pool;         /* the distinct strings                  */
	uint32_t *sid;               /* sid[id - 1]: the pool id of string id */
	uint32_t nstr, capstr;
	uint64_t str_bytes;          /* of every definition, for the limit    */

	struct trace_stack **stacks;
	uint32_t nstacks, capstacks;
	struct hmap stack_ids;       /* id -> index + 1 */

	uint64_t counts[TRACE_TYPE_MAX];  /* records read, by type */
	uint64_t returned;           /* records returned by trace_reader_next */
	struct trace_trailer trailer;

	int state;                   /* R_READING, R_DONE or an error code */
	char msg[MSG_MAX];

	struct trace_order *order;   /* trace_reader_keep_order, or NULL */

	/* A lane of a merge reads one thread's segments of base's input and
	 * uses base's strings and stacks. */
	const struct trace_reader *base;   /* NULL for a reader of its own */
	int fd;                      /* base's file, read with pread */
	size_t chunk;                /* bytes a fill asks for */
	const struct trace_order_seg *seg;
	uint32_t nseg, segi;
	uint64_t seg_pos;            /* the next byte of seg[segi] to read */
	int filter;                  /* skip other threads' records (joined segments) */
	uint32_t thread;
};

/* The input of a reader before its first fill. */
static const unsigned char no_input[1];

/* The reader that owns the strings and stacks r's records refer to. */
static const struct trace_reader *owner(const struct trace_reader *r)
{
	return r->base ? r->base : r;
}

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

/* fill() of a lane: the next bytes of its segments.  Records never cross
 * a segment's end, so the buffer is empty when the next segment starts and
 * consumed can jump to it. */
static int fill_lane(struct trace_reader *r, size_t keep)
{
	while (r->segi < r->nseg && r->seg_pos == r->seg[r->segi].end) {
		if (keep > 0) {
			r->eof = 1;   /* a record cut at a segment's end */
			return 0;
		}
		if (++r->segi < r->nseg)
			r->consumed = r->seg_pos = r->seg[r->segi].start;
	}
	if (r->segi >= r->nseg) {
		r->eof = 1;
		return 0;
	}
	size_t want = r->bcap - keep;
	if (want > r->seg[r->segi].end - r->seg_pos)
		want = (size_t)(r->seg[r->segi].end - r->seg_pos);
	size_t n;
	if (r->mem) {
		n = r->seg_pos < r->mem_len ? r->mem_len - (size_t)r->seg_pos : 0;
		if (n > want)
			n = want;
		memcpy(r->buf + keep, r->mem + r->seg_pos, n);
	} else {
		ssize_t got;
		do
			got = pread(r->fd, r->buf + keep, want, (off_t)r->seg_pos);
		while (got < 0 && errno == EINTR);
		if (got < 0)
			return rfail(r, TRACE_EIO, "read failed: %s", strerror(errno));
		n = (size_t)got;
	}
	if (n == 0)
		r->eof = 1;   /* the file is shorter than it was */
	r->seg_pos += n;
	r->iused = keep + n;
	return 0;
}

/* Reads more input after what is not yet consumed.  Returns 0 (possibly
 * at EOF, see r->eof) or a negative code. */
static int fill(struct trace_reader *r)
{
	if (r->mem && !r->base) {
		/* all of it is in r->in already */
		r->eof = 1;
		return 0;
	}
	size_t chunk = r->chunk ? r->chunk : READ_CHUNK;
	size_t keep = r->iused - r->ioff;
	if (r->ioff > 0) {
		memmove(r->buf, r->buf + r->ioff, keep);
		r->ioff = 0;
		r->iused = keep;
	}
	if (r->bcap == 0 || keep > r->bcap / 2) {
		/* the first fill, or one object longer than half the buffer
		 * (scan_object bounds it) */
		size_t ncap = r->bcap ? r->bcap * 2 : chunk;
		while (keep > ncap / 2)
			ncap *= 2;
		unsigned char *nb = realloc(r->buf, ncap);
		if (!nb)
			return rfail(r, TRACE_ENOMEM, "out of memory");
		r->buf = nb;
		r->bcap = ncap;
	}
	r->in = r->buf;
	if (r->base)
		return fill_lane(r, keep);
	size_t n = fread(r->buf + keep, 1, r->bcap - keep, r->fp);
	if (n == 0 && ferror(r->fp))
		return rfail(r, TRACE_EIO, "read failed: %s", strerror(errno));
	if (n == 0)
		r->eof = 1;
	r->iused = keep + n;
	return 0;
}

enum { SCAN_OK, SCAN_MORE, SCAN_BAD };

/* The big-endian number of n (1, 2, 4 or 8) bytes at p. */
static uint64_t be(const unsigned char *p, size_t n)
{
	switch (n) {
	case 1: return p[0];
	case 2: return (uint64_t)p[0] << 8 | p[1];
	case 4: {
		uint32_t v;
		memcpy(&v, p, 4);
		return __builtin_bswap32(v);
	}
	default: {
		uint64_t v;
		memcpy(&v, p, 8);
		return __builtin_bswap64(v);
	}
	}
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

/* Makes the next top-level object available in r->obj.  Returns 1, 0 at
 * end of input on an object boundary, or a negative code (TRACE_ETRUNC
 * with no message when the input ends inside an object). */
static int next_object(struct trace_reader *r)
{
	for (;;) {
		r->offset = r->consumed;   /* a lane's fill may move it */
		const unsigned char *p = r->in + r->ioff;
		size_t avail = r->iused - r->ioff;
		size_t len = 0;
		int s = scan_object(p, avail, &len);
		if (s == SCAN_BAD)
			return rfail(r, TRACE_ECORRUPT,
				     "at byte %llu: malformed or oversized msgpack object",
				     (unsigned long long)r->offset);
		if (s == SCAN_OK) {
			r->obj = p;
			r->objlen = len;
			r->ioff += len;
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

/* ---- objects ---------------------------------------------------------- */

/* The kinds of msgpack object, as msgpack-c classifies them. */
enum mtype { M_NIL, M_BOOL, M_UINT, M_NINT, M_FLOAT, M_STR, M_BIN, M_ARRAY, M_MAP, M_EXT };

/* One decoded object of a scanned record: an integer's value, a string's
 * bytes, or an array's first element and element count. */
struct mobj {
	enum mtype type;
	uint32_t len;                /* STR bytes, ARRAY elements              */
	uint64_t u;                  /* UINT value; NINT value as int64 bits   */
	double f;                    /* FLOAT value (a float32 widened)        */
	const unsigned char *p;      /* STR bytes, ARRAY first element         */
};

/* Skips n whole objects starting at p (already checked by scan_object). */
static const unsigned char *skip_objects(const unsigned char *p, uint64_t n)
{
	while (n > 0) {
		unsigned b = *p++;
		n--;
		if (b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 || b == 0xc3)
			continue;
		if (b <= 0x8f) {
			n += 2 * (uint64_t)(b & 0x0f);
			continue;
		}
		if (b <= 0x9f) {
			n += b & 0x0f;
			continue;
		}
		if (b <= 0xbf) {
			p += b & 0x1f;
			continue;
		}
		switch (b) {
		case 0xc4: case 0xd9: p += 1 + be(p, 1); break;
		case 0xc5: case 0xda: p += 2 + be(p, 2); break;
		case 0xc6: case 0xdb: p += 4 + be(p, 4); break;
		case 0xc7: p += 1 + be(p, 1) + 1; break;
		case 0xc8: p += 2 + be(p, 2) + 1; break;
		case 0xc9: p += 4 + be(p, 4) + 1; break;
		case 0xca: p += 4; break;
		case 0xcb: p += 8; break;
		case 0xcc: case 0xd0: p += 1; break;
		case 0xcd: case 0xd1: p += 2; break;
		case 0xce: case 0xd2: p += 4; break;
		case 0xcf: case 0xd3: p += 8; break;
		case 0xd4: p += 2; break;
		case 0xd5: p += 3; break;
		case 0xd6: p += 5; break;
		case 0xd7: p += 9; break;
		case 0xd8: p += 17; break;
		case 0xdc: n += be(p, 2); p += 2; break;
		case 0xdd: n += be(p, 4); p += 4; break;
		case 0xde: n += 2 * be(p, 2); p += 2; break;
		default: n += 2 * be(p, 4); p += 4; break;   /* 0xdf */
		}
	}
	return p;
}

static void set_int(struct mobj *o, int64_t v)
{
	o->type = v >= 0 ? M_UINT : M_NINT;
	o->u = (uint64_t)v;
}

/* Decodes the header of the array at p into o without walking its elements
 * (o->type is M_ARRAY, or something else). */
static void read_array_head(const unsigned char *p, struct mobj *o)
{
	unsigned b = *p;
	o->type = M_NIL;
	if (b >= 0x90 && b <= 0x9f) {
		o->type = M_ARRAY;
		o->len = b & 0x0f;
		o->p = p + 1;
	} else if (b == 0xdc || b == 0xdd) {
		size_t lb = b == 0xdc ? 2 : 4;
		o->type = M_ARRAY;
		o->len = (uint32_t)be(p + 1, lb);
		o->p = p + 1 + lb;
	}
}

/* Decodes the object at *pp into o and moves *pp past it. */
static void read_obj(const unsigned char **pp, struct mobj *o)
{
	const unsigned char *p = *pp;
	unsigned b = *p++;
	if (b <= 0x7f) {
		o->type = M_UINT;
		o->u = b;
		*pp = p;
		return;
	}
	if (b >= 0xe0) {
		set_int(o, (int8_t)b);
		*pp = p;
		return;
	}
	if (b >= 0xa0 && b <= 0xbf) {
		o->type = M_STR;
		o->len = b & 0x1f;
		o->p = p;
		*pp = p + o->len;
		return;
	}
	if (b >= 0x90 && b <= 0x9f) {
		o->type = M_ARRAY;
		o->len = b & 0x0f;
		o->p = p;
		*pp = skip_objects(p, o->len);
		return;
	}
	switch (b) {
	case 0xcc: o->type = M_UINT; o->u = be(p, 1); p += 1; break;
	case 0xcd: o->type = M_UINT; o->u = be(p, 2); p += 2; break;
	case 0xce: o->type = M_UINT; o->u = be(p, 4); p += 4; break;
	case 0xcf: o->type = M_UINT; o->u = be(p, 8); p += 8; break;
	case 0xd0: set_int(o, (int8_t)be(p, 1)); p += 1; break;
	case 0xd1: set_int(o, (int16_t)be(p, 2)); p += 2; break;
	case 0xd2: set_int(o, (int32_t)be(p, 4)); p += 4; break;
	case 0xd3: set_int(o, (int64_t)be(p, 8)); p += 8; break;
	case 0xd9: case 0xda: case 0xdb: {
		size_t lb = b == 0xd9 ? 1 : b == 0xda ? 2 : 4;
		o->type = M_STR;
		o->len = (uint32_t)be(p, lb);
		o->p = p + lb;
		p += lb + o->len;
		break;
	}
	case 0xdc: case 0xdd: {
		size_t lb = b == 0xdc ? 2 : 4;
		o->type = M_ARRAY;
		o->len = (uint32_t)be(p, lb);
		o->p = p + lb;
		p = skip_objects(o->p, o->len);
		break;
	}
	case 0xca: {
		uint32_t bits = (uint32_t)be(p, 4);
		float x;
		memcpy(&x, &bits, 4);
		o->type = M_FLOAT;
		o->f = x;
		p += 4;
		break;
	}
	case 0xcb: {
		uint64_t bits = be(p, 8);
		memcpy(&o->f, &bits, 8);
		o->type = M_FLOAT;
		p += 8;
		break;
	}
	default:
		o->type = b == 0xc0 ? M_NIL : (b == 0xc2 || b == 0xc3) ? M_BOOL
			  : (b >= 0xc4 && b <= 0xc6) ? M_BIN
			  : (b <= 0x8f || b == 0xde || b == 0xdf) ? M_MAP : M_EXT;
		p = skip_objects(p - 1, 1);
		break;
	}
	*pp = p;
}

/* ---- field decoding -------------------------------------------------- */

/* A cursor over the positional fields of one record. */
struct fields {
	struct trace_reader *r;
	const char *what;            /* record type name, for messages */
	const unsigned char *p;      /* the next element */
	uint32_t n, i;               /* elements, and the index of the next one */
	int rc;                      /* first failure; later getters do nothing */
	struct mobj o;               /* the element field() returned */
};

/* A cursor over the elements of the array arr. */
static void fields_open(struct fields *f, struct trace_reader *r, const char *what,
			const struct mobj *arr)
{
	f->r = r;
	f->what = what;
	f->p = arr->p;
	f->n = arr->len;
	f->i = 0;
	f->rc = 0;
}

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

static const struct mobj *field(struct fields *f)
{
	if (f->i >= f->n)
		return NULL;
	f->i++;
	read_obj(&f->p, &f->o);
	return &f->o;
}

static int get_u64(struct fields *f, const char *name, uint64_t max, uint64_t def, uint64_t *out)
{
	if (f->rc)
		return f->rc;
	const struct mobj *o = field(f);
	if (!o) {
		*out = def;
		return 0;
	}
	if (o->type != M_UINT)
		return ferr(f, name, "not an unsigned integer");
	if (o->u > max)
		return ferr(f, name, "%llu out of range", (unsigned long long)o->u);
	*out = o->u;
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
	const struct mobj *o = field(f);
	if (!o) {
		*out = def;
		return 0;
	}
	switch (o->type) {
	case M_FLOAT: *out = o->f; return 0;
	case M_UINT: *out = (double)o->u; return 0;
	case M_NINT: *out = (double)(int64_t)o->u; return 0;
	default: return ferr(f, name, "not a number");
	}
}

static int conv_i64(struct fields *f, const char *name, const struct mobj *o,
		    int64_t min, int64_t max, int64_t *out)
{
	if (o->type == M_UINT) {
		if (o->u > (uint64_t)max)
			return ferr(f, name, "%llu out of range", (unsigned long long)o->u);
		*out = (int64_t)o->u;
		return 0;
	}
	if (o->type == M_NINT) {
		int64_t v = (int64_t)o->u;
		if (v < min)
			return ferr(f, name, "%lld out of range", (long long)v);
		*out = v;
		return 0;
	}
	return ferr(f, name, "not an integer");
}

static int get_i32(struct fields *f, const char *name, int32_t def, int32_t *out)
{
	if (f->rc)
		return f->rc;
	const struct mobj *o = field(f);
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
	const struct mobj *o = field(f);
	if (!o) {
		for (uint32_t i = 0; i < n; i++)
			out[i] = def;
		return 0;
	}
	if (o->type != M_ARRAY || o->len != n)
		return ferr(f, name, "not an array of %u integers", n);
	const unsigned char *p = o->p;
	for (uint32_t i = 0; i < n; i++) {
		struct mobj e;
		read_obj(&p, &e);
		if (conv_i64(f, name, &e, INT64_MIN, INT64_MAX, &out[i]) < 0)
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
	const struct mobj *o = field(f);
	if (!o)
		return 0;
	if (o->type != M_STR)
		return ferr(f, name, "not a string");
	size_t n = o->len < cap - 1 ? o->len : cap - 1;
	memcpy(buf, o->p, n);
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
	field(f);   /* the record type */
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
	const struct mobj *dev = field(f);
	if (!dev)
		return 0;
	if (dev->type != M_ARRAY)
		return ferr(f, "device", "not an array");
	struct fields df;
	fields_open(&df, f->r, "header device", dev);
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
	if (df.rc)
		return df.rc;
	get_u32(f, "world_size", 0, &h->world_size); /* 1.5 */
	get_f64(f, "power_limit_w", 0, &h->power_limit_w); /* 1.6 */
	if (!f->rc && !(h->power_limit_w >= 0 && h->power_limit_w <= 1e6))
		return ferr(f, "power_limit_w", "%g W out of range", h->power_limit_w);
	return f->rc;
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
	const struct mobj *o = field(f);
	if (o->type != M_STR)
		return ferr(f, "bytes", "not a string");
	uint32_t len = o->len;
	if (r->nstr >= TRACE_MAX_STRINGS || r->str_bytes + len > TRACE_MAX_STRING_BYTES)
		return ferr(f, "id", "too many strings");
	if (r->nstr == r->capstr) {
		uint32_t nc = r->capstr ? r->capstr * 2 : 256;
		uint32_t *ns = realloc(r->sid, nc * sizeof(*ns));
		if (!ns)
			return rfail(r, TRACE_ENOMEM, "out of memory");
		r->sid = ns;
		r->capstr = nc;
	}
	/* A string defined twice (the writer never does) keeps both ids. */
	int64_t id_in_pool = strpool_intern(&r->pool, (const char *)o->p, len, NULL);
	if (id_in_pool < 0)
		return rfail(r, TRACE_ENOMEM, "out of memory");
	r->sid[r->nstr] = (uint32_t)id_in_pool;
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
	get_u64(f, "graph", UINT64_MAX, 0, &k->graph);
	get_u64(f, "replay", UINT64_MAX, 0, &k->replay);
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
	get_u32(f, "copies", 0, &c->copies);
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
	/* 1.3: the attention shape */
	int impl = 0, form = 0;
	get_enum(f, "attn_impl", TRACE_ATTN_IMPL_COUNT, -1, 0, &impl);
	o->attn.impl = (enum trace_attn_impl)impl;
	get_enum(f, "attn_form", TRACE_ATTN_FORM_COUNT, -1, 0, &form);
	o->attn.form = (enum trace_attn_form)form;
	get_u8(f, "attn_backward", 0, &o->attn.backward);
	get_u8(f, "attn_causal", 0, &o->attn.causal);
	get_u32(f, "attn_seqs", 0, &o->attn.seqs);
	get_u32(f, "attn_heads", 0, &o->attn.heads);
	get_u32(f, "attn_kv_heads", 0, &o->attn.kv_heads);
	get_u32(f, "attn_head_dim", 0, &o->attn.head_dim);
	get_u32(f, "attn_head_dim_v", 0, &o->attn.head_dim_v);
	get_u64(f, "attn_q_tokens", UINT64_MAX, 0, &o->attn.q_tokens);
	get_u64(f, "attn_kv_tokens", UINT64_MAX, 0, &o->attn.kv_tokens);
	get_u64(f, "attn_max_kv", UINT64_MAX, 0, &o->attn.max_kv);
	get_f64(f, "attn_pairs", 0, &o->attn.pairs);
	/* 1.3: a recorded or imported collective */
	get_i32(f, "rank", -1, &o->rank);
	get_u64(f, "comm", UINT64_MAX, 0, &o->comm);
	get_u32(f, "node_ranks", 0, &o->node_ranks);
	/* 1.4: a GEMM added into its FP32 output */
	get_u8(f, "accumulate", 0, &o->accumulate);
	/* 1.7: the attention's sliding window */
	get_u64(f, "attn_window", UINT64_MAX, 0, &o->attn.window);
	/* 1.8: the KV cache's element size */
	get_u8(f, "attn_kv_bytes", 0, &o->attn.kv_bytes);
	/* 1.9: a weight-only quantized GEMM's weight bytes */
	get_f64(f, "b_bytes", 0, &o->b_bytes);
	/* 1.10: the attention's additive bias */
	get_u32(f, "attn_bias_heads", 0, &o->attn.bias_heads);
	return f->rc;
}

static int decode_stack(struct fields *f, struct trace_stack *s)
{
	get_u32(f, "id", 0, &s->id);
	if (f->rc)
		return f->rc;
	const struct mobj *o = field(f);
	if (o->type != M_ARRAY)
		return ferr(f, "frames", "not an array");
	if (o->len > TRACE_STACK_MAXFRAMES)
		return ferr(f, "frames", "%u frames, more than %d", o->len, TRACE_STACK_MAXFRAMES);
	s->nframes = o->len;
	struct fields ff;
	fields_open(&ff, f->r, "stack", o);
	for (uint32_t i = 0; i < s->nframes; i++)
		get_u32(&ff, "frames", 0, &s->frames[i]);
	return ff.rc;
}

static int decode_trailer(struct fields *f, struct trace_trailer *t)
{
	struct trace_reader *r = f->r;
	const struct mobj *o = field(f);
	if (o->type != M_ARRAY)
		return ferr(f, "counts", "not an array");
	struct fields cf;
	fields_open(&cf, r, "trailer", o);
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
	if (hmap_put(&r->stack_ids, s->id, r->nstacks + 1) < 0) {
		free(copy);
		return rfail(r, TRACE_ENOMEM, "out of memory");
	}
	r->stacks[r->nstacks++] = copy;
	return 0;
}

/* Bytes of struct trace_record that a record of type t uses. */
static size_t record_bytes(enum trace_type t)
{
	size_t u = offsetof(struct trace_record, u);
	switch (t) {
	case TRACE_KERNEL: return u + sizeof(struct trace_kernel);
	case TRACE_GEMM: return u + sizeof(struct trace_gemm);
	case TRACE_CONV: return u + sizeof(struct trace_conv);
	case TRACE_MEMCPY: case TRACE_MEMSET: return u + sizeof(struct trace_copy);
	case TRACE_SYNC: return u + sizeof(struct trace_sync);
	case TRACE_MARKER: return u + sizeof(struct trace_marker);
	case TRACE_OP: return u + sizeof(struct trace_op);
	default: return sizeof(struct trace_record);
	}
}

/* Decodes the object in r->obj into rec.  Returns D_RECORD, D_ABSORBED
 * (a string, or a record this version does not know), D_TRAILER or a
 * negative code. */
static int decode(struct trace_reader *r, struct trace_record *rec)
{
	struct mobj arr;
	struct fields f;
	read_array_head(r->obj, &arr);
	const struct mobj *t0 = NULL;
	if (arr.type == M_ARRAY) {
		fields_open(&f, r, NULL, &arr);
		t0 = field(&f);
	}
	if (!t0 || t0->type != M_UINT)
		return rfail(r, TRACE_ECORRUPT, "at byte %llu: not a record",
			     (unsigned long long)r->offset);
	uint64_t type = t0->u;
	if (type >= TRACE_TYPE_MAX) {
		if (r->newer_minor)
			return D_ABSORBED;   /* a record type of a newer minor version */
		return rfail(r, TRACE_ECORRUPT, "at byte %llu: unknown record type %llu",
			     (unsigned long long)r->offset, (unsigned long long)type);
	}
	if (type == 0 || type == TRACE_HEADER)
		return rfail(r, TRACE_ECORRUPT, "at byte %llu: unexpected record type %llu",
			     (unsigned long long)r->offset, (unsigned long long)type);
	if (r->base && (type == TRACE_STRING || type == TRACE_STACK))
		return D_ABSORBED;   /* a lane: base has them */
	f.what = trace_type_name((enum trace_type)type);
	if (f.n < required_fields[type])
		return rfail(r, TRACE_ECORRUPT, "at byte %llu: %s record has %u fields, needs %u",
			     (unsigned long long)r->offset, f.what, f.n - 1,
			     required_fields[type] - 1u);
	/* Zero what the record type uses (the stack member makes the union
	 * four times larger than a launch). */
	memset(rec, 0, record_bytes((enum trace_type)type));
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
	if (trace_validate_record(rec, owner(r)->nstr, &owner(r)->stack_ids, why, sizeof(why)) < 0)
		return rfail(r, TRACE_ECORRUPT, "at byte %llu: %s record: %s",
			     (unsigned long long)r->offset, f.what, why);
	if (type == TRACE_STACK && store_stack(r, &rec->u.stack) < 0)
		return r->state;
	return D_RECORD;
}

/* ---- the fast path ---------------------------------------------------- */

/*
 * Most records (launches, library calls without arrays, copies, syncs,
 * markers) are arrays of integers.  fast_record() decodes such a record in
 * one walk, without scan_object() first: when the record is complete in
 * the buffer, every field is an integer in range and there is no field this
 * version does not know, the result is the one the general path (scan,
 * then decode) gives.  Anything else - a short buffer, a string, an
 * unknown enum value of a newer minor version, a trailing field - returns
 * 0 and the general path does the work, errors and messages included.
 */
enum { FK_U64, FK_U32, FK_U8, FK_I32, FK_ENUM };

struct fast_field {
	uint16_t off;                /* byte offset in struct trace_record     */
	uint8_t kind;                /* FK_*                                   */
	uint32_t count;              /* FK_ENUM: values below it are known     */
	int64_t def;                 /* the value of an absent field           */
};

#define FF(member, kind, count, def) \
	{ (uint16_t)offsetof(struct trace_record, u.member), kind, count, def }
#define FF3(member, kind) FF(member[0], kind, 0, 0), FF(member[1], kind, 0, 0), \
	FF(member[2], kind, 0, 0)

static const struct fast_field fast_kernel[] = {
	FF(kernel.seq, FK_U64, 0, 0), FF(kernel.name, FK_U32, 0, 0),
	FF3(kernel.grid, FK_U32), FF3(kernel.block, FK_U32), FF3(kernel.cluster, FK_U32),
	FF(kernel.regs, FK_U32, 0, 0), FF(kernel.static_smem, FK_U32, 0, 0),
	FF(kernel.dyn_smem, FK_U32, 0, 0), FF(kernel.stream, FK_U64, 0, 0),
	FF(kernel.thread, FK_U32, 0, 0), FF(kernel.flags, FK_U32, 0, 0),
	FF(kernel.cpu_ns, FK_U64, 0, 0), FF(kernel.start_ns, FK_U64, 0, 0),
	FF(kernel.end_ns, FK_U64, 0, 0), FF(kernel.lib_call, FK_U64, 0, 0),
	FF(kernel.iteration, FK_I32, 0, -1), FF(kernel.stack, FK_U32, 0, 0),
	FF(kernel.graph, FK_U64, 0, 0), FF(kernel.replay, FK_U64, 0, 0),
};
static const struct fast_field fast_gemm[] = {
	FF(gemm.seq, FK_U64, 0, 0), FF(gemm.api, FK_ENUM, TRACE_GEMM_API_COUNT, 0),
	FF(gemm.m, FK_U64, 0, 0), FF(gemm.n, FK_U64, 0, 0), FF(gemm.k, FK_U64, 0, 0),
	FF(gemm.batch, FK_U64, 0, 1), FF(gemm.trans_a, FK_U8, 0, 0),
	FF(gemm.trans_b, FK_U8, 0, 0), FF(gemm.a_type, FK_ENUM, TRACE_DT_COUNT, 0),
	FF(gemm.b_type, FK_ENUM, TRACE_DT_COUNT, 0), FF(gemm.c_type, FK_ENUM, TRACE_DT_COUNT, 0),
	FF(gemm.compute_type, FK_ENUM, TRACE_DT_COUNT, 0), FF(gemm.epilogue, FK_U32, 0, 1),
	FF(gemm.stream, FK_U64, 0, 0), FF(gemm.thread, FK_U32, 0, 0),
	FF(gemm.cpu_ns, FK_U64, 0, 0),
};
static const struct fast_field fast_copy[] = {
	FF(copy.seq, FK_U64, 0, 0), FF(copy.bytes, FK_U64, 0, 0),
	FF(copy.kind, FK_ENUM, TRACE_COPY_KIND_COUNT, 0), FF(copy.async, FK_U8, 0, 0),
	FF(copy.stream, FK_U64, 0, 0), FF(copy.thread, FK_U32, 0, 0),
	FF(copy.cpu_ns, FK_U64, 0, 0), FF(copy.cpu_end_ns, FK_U64, 0, 0),
	FF(copy.start_ns, FK_U64, 0, 0), FF(copy.end_ns, FK_U64, 0, 0),
	FF(copy.host_mem, FK_ENUM, TRACE_HOST_MEM_COUNT, 0), FF(copy.copies, FK_U32, 0, 0),
};
static const struct fast_field fast_sync[] = {
	FF(sync.seq, FK_U64, 0, 0), FF(sync.kind, FK_ENUM, TRACE_SYNC_KIND_COUNT, 0),
	FF(sync.stream, FK_U64, 0, 0), FF(sync.thread, FK_U32, 0, 0),
	FF(sync.cpu_ns, FK_U64, 0, 0), FF(sync.cpu_end_ns, FK_U64, 0, 0),
	FF(sync.event, FK_U64, 0, 0),
};
static const struct fast_field fast_marker[] = {
	FF(marker.seq, FK_U64, 0, 0), FF(marker.kind, FK_ENUM, TRACE_MARK_KIND_COUNT, 0),
	FF(marker.name, FK_U32, 0, 0), FF(marker.thread, FK_U32, 0, 0),
	FF(marker.cpu_ns, FK_U64, 0, 0), FF(marker.iteration, FK_I32, 0, -1),
};

#define NFIELDS(a) (uint32_t)(sizeof(a) / sizeof((a)[0]))

static const struct fast_type {
	const struct fast_field *f;
	uint32_t n;                  /* fields after the type */
} fast_types[TRACE_TYPE_MAX] = {
	[TRACE_KERNEL] = { fast_kernel, NFIELDS(fast_kernel) },
	[TRACE_GEMM] = { fast_gemm, NFIELDS(fast_gemm) },
	[TRACE_MEMCPY] = { fast_copy, NFIELDS(fast_copy) },
	[TRACE_MEMSET] = { fast_copy, NFIELDS(fast_copy) },
	[TRACE_SYNC] = { fast_sync, NFIELDS(fast_sync) },
	[TRACE_MARKER] = { fast_marker, NFIELDS(fast_marker) },
};

/* Decodes fields 1..nf of a record with n elements from *pp (up to end)
 * into base by the table f: 1, or 0 when the general path must run.
 * Inlined with each type's constant table, the loop unrolls into straight
 * code for that record type. */
static inline __attribute__((always_inline)) int fast_fields(const struct fast_field *f,
							     uint32_t nf, uint32_t n,
							     const unsigned char **pp,
							     const unsigned char *end, char *base)
{
	const unsigned char *p = *pp;
#pragma GCC unroll 32
	for (uint32_t i = 0; i < nf; i++) {
		const struct fast_field *d = &f[i];
		int64_t sv = 0;
		uint64_t v;
		if (i + 1 >= n) {
			v = (uint64_t)d->def;
			sv = d->def;
		} else {
			if (p >= end)
				return 0;
			unsigned b = *p++;
			if (b <= 0x7f) {
				v = b;
			} else if (b >= 0xcc && b <= 0xcf) {
				size_t w = (size_t)1 << (b - 0xcc);
				if ((size_t)(end - p) < w)
					return 0;
				v = be(p, w);
				p += w;
			} else if (b >= 0xe0 || (b >= 0xd0 && b <= 0xd3)) {
				size_t w = b >= 0xe0 ? 0 : (size_t)1 << (b - 0xd0);
				if ((size_t)(end - p) < w)
					return 0;
				switch (w) {
				case 0: sv = (int8_t)b; break;
				case 1: sv = (int8_t)p[0]; break;
				case 2: sv = (int16_t)be(p, 2); break;
				case 4: sv = (int32_t)be(p, 4); break;
				default: sv = (int64_t)be(p, 8); break;
				}
				p += w;
				if (sv < 0 && (d->kind != FK_I32 || sv < INT32_MIN))
					return 0;
				v = (uint64_t)sv;
			} else {
				return 0;
			}
			if (d->kind == FK_I32 && (int64_t)v >= 0)
				sv = (int64_t)v;
		}
		char *dst = base + d->off;
		switch (d->kind) {
		case FK_U64:
			memcpy(dst, &v, 8);
			break;
		case FK_U32:
			if (v > UINT32_MAX)
				return 0;
			{ uint32_t x = (uint32_t)v; memcpy(dst, &x, 4); }
			break;
		case FK_U8:
			if (v > UINT8_MAX)
				return 0;
			*(uint8_t *)dst = (uint8_t)v;
			break;
		case FK_I32:
			if (sv > INT32_MAX)
				return 0;
			{ int32_t x = (int32_t)sv; memcpy(dst, &x, 4); }
			break;
		default:
			if (v >= d->count)
				return 0;
			{ int x = (int)v; memcpy(dst, &x, sizeof(x)); }
			break;
		}
	}
	*pp = p;
	return 1;
}

/* Decodes the record at the read position into rec when it qualifies (see
 * above): 1, with the record consumed; 0 when the general path must run. */
static int fast_record(struct trace_reader *r, struct trace_record *rec)
{
	const unsigned char *start = r->in + r->ioff, *p = start, *end = r->in + r->iused;
	uint32_t n;
	if (end - p < 2)
		return 0;
	if (p[0] >= 0x90 && p[0] <= 0x9f) {
		n = p[0] & 0x0f;
		p++;
	} else if (p[0] == 0xdc && end - p >= 4) {
		n = (uint32_t)be(p + 1, 2);
		p += 3;
	} else {
		return 0;
	}
	unsigned type = *p++;
	if (type >= TRACE_TYPE_MAX || !fast_types[type].f || n < required_fields[type] ||
	    n - 1 > fast_types[type].n)
		return 0;
	memset(rec, 0, record_bytes((enum trace_type)type));
	rec->type = (enum trace_type)type;
	char *base = (char *)rec;
	int ok;
	switch (type) {
	case TRACE_KERNEL:
		ok = fast_fields(fast_kernel, NFIELDS(fast_kernel), n, &p, end, base);
		break;
	case TRACE_GEMM:
		ok = fast_fields(fast_gemm, NFIELDS(fast_gemm), n, &p, end, base);
		break;
	case TRACE_SYNC:
		ok = fast_fields(fast_sync, NFIELDS(fast_sync), n, &p, end, base);
		break;
	default:
		ok = fast_fields(fast_types[type].f, fast_types[type].n, n, &p, end, base);
		break;
	}
	if (!ok)
		return 0;
	size_t len = (size_t)(p - start);
	r->offset = r->consumed;
	r->obj = start;
	r->objlen = len;
	r->ioff += len;
	r->consumed += len;
	return 1;
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
		const unsigned char *p = r->in + r->ioff;
		size_t avail = r->iused - r->ioff;
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
	int rc = check_magic(r);
	if (rc == 0) {
		rc = next_object(r);
		if (rc == 0 || rc == TRACE_ETRUNC)
			rc = truncated(r);
	}
	if (rc == 1) {
		struct mobj arr;
		struct fields f;
		read_array_head(r->obj, &arr);
		if (arr.type != M_ARRAY || arr.len < TRACE_REQ_HEADER) {
			rc = rfail(r, TRACE_ECORRUPT, "header: too few fields");
		} else {
			fields_open(&f, r, "header", &arr);
			rc = decode_header(&f, &r->hdr);
		}
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
	r->in = no_input;
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
	r->in = r->mem;
	r->iused = r->mem_len;
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
		int rc;
		if (fast_record(r, rec)) {
			char why[160];
			r->counts[rec->type]++;
			if (trace_validate_record(rec, owner(r)->nstr, &owner(r)->stack_ids, why,
						  sizeof(why)) < 0) {
				rfail(r, TRACE_ECORRUPT, "at byte %llu: %s record: %s",
				      (unsigned long long)r->offset, trace_type_name(rec->type), why);
				copy_msg(r->msg, err, errlen);
				return r->state;
			}
			rc = D_RECORD;
		} else {
			rc = next_object(r);
			if (rc == 0 && r->base) {
				r->state = R_DONE;   /* a lane ends with its segments */
				rec->type = TRACE_TRAILER;
				memset(&rec->u.trailer, 0, sizeof(rec->u.trailer));
				return 0;
			}
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
		}
		if (rc == D_RECORD) {
			if (r->filter || r->order) {
				uint32_t thread;
				uint64_t cpu, seq;
				if (trace_record_key(rec, &thread, &cpu, &seq)) {
					if (r->filter && thread != r->thread)
						continue;
					if (r->order && trace_order_note(r->order, thread, cpu, seq,
									 r->offset, r->consumed) < 0) {
						rfail(r, TRACE_ENOMEM, "out of memory");
						copy_msg(r->msg, err, errlen);
						return r->state;
					}
				}
			}
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
	uint32_t n = 0;
	const char *s = strpool_get(&r->pool, r->sid[id - 1], &n);
	if (len)
		*len = n;
	return s;
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
	const uint64_t *idx = hmap_get(&r->stack_ids, id);
	return idx ? r->stacks[*idx - 1] : NULL;
}

void trace_reader_free(struct trace_reader *r)
{
	if (!r)
		return;
	if (r->own_fp)
		fclose(r->fp);
	trace_order_free(r->order);
	free(r->buf);
	strpool_release(&r->pool);
	free(r->sid);
	for (uint32_t i = 0; i < r->nstacks; i++)
		free(r->stacks[i]);
	free(r->stacks);
	hmap_release(&r->stack_ids);
	free(r);
}

/* ---- reading in order ------------------------------------------------ */

int trace_reader_keep_order(struct trace_reader *r, uint32_t window)
{
	if (r->returned > 0 || r->order || r->base)
		return TRACE_EINVAL;
	r->order = trace_order_new(window);
	return r->order ? 0 : TRACE_ENOMEM;
}

/* A record waiting in a lane's window, with its key. */
struct lane_key {
	uint64_t cpu, seq, pos;      /* pos: its byte offset, for equal keys */
};

/* One thread of a merge: its own reader over the thread's segments and a
 * window of up to cap records, a min-heap of slot indexes by key.  A thread
 * whose records are in order has a window of one record. */
struct lane {
	struct trace_reader *rd;
	uint32_t cap;
	struct trace_record *rec;    /* slots, grown up to cap */
	struct lane_key *key;
	uint32_t nslots;
	uint32_t *heap;              /* slot indexes */
	uint32_t n;
	uint32_t *spare;             /* free slot indexes */
	uint32_t nspare;
	int done;
};

struct trace_merge {
	const struct trace_reader *base;
	struct lane *lane;
	uint32_t nlane;
	struct merge_head {          /* a lane with records, and its least key */
		struct lane_key key;
		uint32_t lane;
	} *heap;                     /* a min-heap by key */
	uint32_t nheap;
	int started;
	struct lane_key last;        /* the key returned last */
	int state;                   /* 0, or an error code */
	char msg[MSG_MAX];
	size_t bytes;
};

static int lk_lt(const struct lane_key *a, const struct lane_key *b)
{
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu;
	if (a->seq != b->seq)
		return a->seq < b->seq;
	return a->pos < b->pos;
}

static const struct lane_key *lane_min(const struct lane *l)
{
	return &l->key[l->heap[0]];
}

static void lane_sift_up(struct lane *l, uint32_t i)
{
	while (i > 0) {
		uint32_t p = (i - 1) / 2;
		if (!lk_lt(&l->key[l->heap[i]], &l->key[l->heap[p]]))
			break;
		uint32_t x = l->heap[i];
		l->heap[i] = l->heap[p];
		l->heap[p] = x;
		i = p;
	}
}

static void lane_sift_down(struct lane *l, uint32_t i)
{
	for (;;) {
		uint32_t c = 2 * i + 1, m = i;
		if (c < l->n && lk_lt(&l->key[l->heap[c]], &l->key[l->heap[m]]))
			m = c;
		if (c + 1 < l->n && lk_lt(&l->key[l->heap[c + 1]], &l->key[l->heap[m]]))
			m = c + 1;
		if (m == i)
			return;
		uint32_t x = l->heap[i];
		l->heap[i] = l->heap[m];
		l->heap[m] = x;
		i = m;
	}
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int mfail(struct trace_merge *m, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m->msg, sizeof(m->msg), fmt, ap);
	va_end(ap);
	m->state = code;
	return code;
}

/* Reads records into lane l until its window is full or its segments end. */
static int lane_fill(struct trace_merge *m, struct lane *l)
{
	while (!l->done && l->n < l->cap) {
		uint32_t s;
		if (l->nspare > 0) {
			s = l->spare[--l->nspare];
		} else {
			if (l->nslots == 0 || (l->nslots & (l->nslots - 1)) == 0) {
				/* slots grow by doubling, up to cap */
				uint32_t ncap = l->nslots ? l->nslots * 2 : 1;
				if (ncap > l->cap)
					ncap = l->cap;
				struct trace_record *nr = realloc(l->rec, (size_t)ncap * sizeof(*nr));
				if (!nr)
					return mfail(m, TRACE_ENOMEM, "out of memory");
				l->rec = nr;
				struct lane_key *nk = realloc(l->key, (size_t)ncap * sizeof(*nk));
				if (!nk)
					return mfail(m, TRACE_ENOMEM, "out of memory");
				l->key = nk;
				m->bytes += (size_t)(ncap - l->nslots) * (sizeof(*nr) + sizeof(*nk));
			}
			s = l->nslots++;
		}
		char err[MSG_MAX];
		int rc = trace_reader_next(l->rd, &l->rec[s], err, sizeof(err));
		if (rc < 0)
			return mfail(m, rc, "%s", err);
		if (rc == 0) {
			l->spare[l->nspare++] = s;
			l->done = 1;
			break;
		}
		uint32_t thread;
		if (!trace_record_key(&l->rec[s], &thread, &l->key[s].cpu, &l->key[s].seq)) {
			l->spare[l->nspare++] = s;   /* no place in the order */
			continue;
		}
		l->key[s].pos = l->rd->offset;
		l->heap[l->n++] = s;
		lane_sift_up(l, l->n - 1);
	}
	return 0;
}

static void merge_sift_down(struct trace_merge *m, uint32_t i)
{
	struct merge_head *h = m->heap;
	for (;;) {
		uint32_t c = 2 * i + 1, x = i;
		if (c < m->nheap && lk_lt(&h[c].key, &h[x].key))
			x = c;
		if (c + 1 < m->nheap && lk_lt(&h[c + 1].key, &h[x].key))
			x = c + 1;
		if (x == i)
			return;
		struct merge_head t = h[i];
		h[i] = h[x];
		h[x] = t;
		i = x;
	}
}

void trace_merge_free(struct trace_merge *m)
{
	if (!m)
		return;
	for (uint32_t i = 0; i < m->nlane; i++) {
		struct lane *l = &m->lane[i];
		trace_reader_free(l->rd);
		free(l->rec);
		free(l->key);
		free(l->heap);
		free(l->spare);
	}
	free(m->lane);
	free(m->heap);
	free(m);
}

int trace_merge_open(struct trace_merge **out, const struct trace_reader *r,
		     char *err, size_t errlen)
{
	*out = NULL;
	if (!r->order) {
		copy_msg("the reader does not keep order", err, errlen);
		return TRACE_EINVAL;
	}
	const struct trace_order *o = r->order;
	uint32_t nt = trace_order_threads(o);
	for (uint32_t i = 0; i < nt; i++) {
		struct trace_order_thread t;
		trace_order_thread(o, i, &t);
		if (t.beyond) {
			if (err && errlen)
				snprintf(err, errlen,
					 "thread %u: records out of CPU order beyond a window of %u",
					 t.thread, trace_order_window(o));
			return TRACE_EINVAL;
		}
	}
	int fd = -1;
	if (!r->mem) {
		fd = fileno(r->fp);
		if (fd < 0 || lseek(fd, 0, SEEK_CUR) < 0) {
			copy_msg("cannot read the trace a second time (not a regular file)", err, errlen);
			return TRACE_EIO;
		}
	}
	struct trace_merge *m = calloc(1, sizeof(*m));
	if (!m || !(m->lane = calloc(nt ? nt : 1, sizeof(*m->lane))) ||
	    !(m->heap = calloc(nt ? nt : 1, sizeof(*m->heap)))) {
		trace_merge_free(m);
		copy_msg("out of memory", err, errlen);
		return TRACE_ENOMEM;
	}
	m->base = r;
	m->bytes = sizeof(*m) + nt * (sizeof(*m->lane) + sizeof(*m->heap));
	for (uint32_t i = 0; i < nt; i++) {
		struct trace_order_thread t;
		struct lane *l = &m->lane[m->nlane];
		trace_order_thread(o, i, &t);
		l->cap = t.sorted ? 1 : trace_order_window(o);
		uint64_t bytes = 0;
		for (uint32_t j = 0; j < t.nseg; j++)
			bytes += t.seg[j].end - t.seg[j].start;
		struct trace_reader *rd = calloc(1, sizeof(*rd));
		l->rd = rd;
		m->nlane++;
		l->heap = malloc((size_t)l->cap * sizeof(*l->heap));
		l->spare = malloc((size_t)l->cap * sizeof(*l->spare));
		if (!rd || !l->heap || !l->spare) {
			trace_merge_free(m);
			copy_msg("out of memory", err, errlen);
			return TRACE_ENOMEM;
		}
		m->bytes += sizeof(*rd) + (size_t)l->cap * 2 * sizeof(*l->heap);
		rd->base = r;
		rd->in = no_input;
		rd->fd = fd;
		rd->mem = r->mem;
		rd->mem_len = r->mem_len;
		rd->newer_minor = r->newer_minor;
		rd->hdr = r->hdr;
		rd->seg = t.seg;
		rd->nseg = t.nseg;
		rd->seg_pos = rd->consumed = t.nseg ? t.seg[0].start : 0;
		rd->filter = trace_order_coarse(o);
		rd->thread = t.thread;
		/* a thread with few records needs no 64 KiB buffer */
		rd->chunk = bytes < READ_CHUNK ? (bytes < 4096 ? 4096 : (size_t)bytes) : READ_CHUNK;
		m->bytes += rd->chunk;
	}
	*out = m;
	return 0;
}

int trace_merge_next(struct trace_merge *m, struct trace_record *rec, char *err, size_t errlen)
{
	if (m->state < 0) {
		copy_msg(m->msg, err, errlen);
		return m->state;
	}
	if (!m->started) {
		m->started = 1;
		for (uint32_t i = 0; i < m->nlane; i++) {
			if (lane_fill(m, &m->lane[i]) < 0) {
				copy_msg(m->msg, err, errlen);
				return m->state;
			}
			if (m->lane[i].n > 0) {
				m->heap[m->nheap].key = *lane_min(&m->lane[i]);
				m->heap[m->nheap++].lane = i;
			}
		}
		for (uint32_t i = m->nheap / 2; i-- > 0;)
			merge_sift_down(m, i);
	}
	if (m->nheap == 0)
		return 0;
	struct lane *l = &m->lane[m->heap[0].lane];
	uint32_t s = l->heap[0];
	struct lane_key k = l->key[s];
	if (lk_lt(&k, &m->last)) {
		mfail(m, TRACE_ECORRUPT, "at byte %llu: out of order on a second reading "
		      "(the file changed?)", (unsigned long long)k.pos);
		copy_msg(m->msg, err, errlen);
		return m->state;
	}
	m->last = k;
	memcpy(rec, &l->rec[s], record_bytes(l->rec[s].type));
	l->heap[0] = l->heap[--l->n];
	lane_sift_down(l, 0);
	l->spare[l->nspare++] = s;
	if (lane_fill(m, l) < 0) {
		copy_msg(m->msg, err, errlen);
		return m->state;
	}
	if (l->n == 0)
		m->heap[0] = m->heap[--m->nheap];
	else
		m->heap[0].key = *lane_min(l);
	if (m->nheap > 0)
		merge_sift_down(m, 0);
	return 1;
}

size_t trace_merge_bytes(const struct trace_merge *m)
{
	size_t b = m->bytes;
	for (uint32_t i = 0; i < m->nlane; i++)
		b += m->lane[i].rd->bcap > m->lane[i].rd->chunk ? m->lane[i].rd->bcap - m->lane[i].rd->chunk : 0;
	return b;
}
