/*
 * strpool.h - the one string pool: interns byte strings, giving each
 * distinct string a dense id (0, 1, 2, ... in order of first sight) and a
 * stable NUL-terminated copy.  Kernel names repeat millions of times in a
 * trace and a few thousand are distinct; the writer, the reader and the
 * importers keep each once.
 *
 * Contract: strings are stored in 64 KiB arena blocks (a longer string gets
 * a block of its own) and never move, so a returned pointer lives until
 * strpool_release; strings may contain NUL bytes (lengths are explicit; the
 * stored copy has one more NUL after them).  Not thread-safe.  Errors are
 * TRACE_ENOMEM (trace.h); nothing is printed.
 */
#ifndef SURFER_STRPOOL_H
#define SURFER_STRPOOL_H

#include "trace/hmap.h"

#include <stddef.h>
#include <stdint.h>

struct strpool_block;

struct strpool_str {
	const char *p;      /* NUL-terminated copy in the arena */
	uint32_t len;       /* bytes, without the terminating NUL */
};

struct strpool {
	struct hmap map;               /* hash -> id                          */
	struct strpool_str *str;       /* str[id], n entries                  */
	uint32_t n, cap;
	uint64_t bytes;                /* sum of the lengths, without NULs    */
	struct strpool_block *arena;   /* newest block first                  */
};

/* Initializes an empty pool (no allocation); a zeroed struct is empty too. */
void strpool_init(struct strpool *sp);

/* Frees every string and the table; the pool is empty and usable again. */
void strpool_release(struct strpool *sp);

/* The id of s[0..len), interning a copy on first sight: the id (>= 0), or
 * TRACE_ENOMEM (the pool is unchanged).  *added (when not NULL) is 1 when
 * the string was new. */
int64_t strpool_intern(struct strpool *sp, const char *s, size_t len, int *added);

/* The id of s[0..len) when interned, else -1; never allocates. */
int64_t strpool_lookup(const struct strpool *sp, const char *s, size_t len);

/* The string of id (NUL-terminated; *len its length when len is not NULL),
 * or NULL when id is out of range. */
const char *strpool_get(const struct strpool *sp, uint32_t id, uint32_t *len);

/* Number of distinct strings. */
static inline uint32_t strpool_count(const struct strpool *sp) { return sp->n; }

#endif
