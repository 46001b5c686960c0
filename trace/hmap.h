/*
 * hmap.h - the one hash map of surfer: open addressing with linear probing,
 * 64-bit keys to 64-bit values, used by the recorder, the trace reader and
 * writer, the importers, the kernel table and the timeline.
 *
 * Two ways to key it, on the same table (do not mix them in one map):
 *  - exact keys: the key is a 64-bit number (a correlation id, a handle, a
 *    stream).  hmap_get / hmap_put / hmap_del.
 *  - hashed keys: the key is something larger (a string, a kernel
 *    configuration) that the caller keeps, usually in an array indexed by
 *    the value.  The map stores the key's 64-bit hash and the value; an
 *    equality callback decides between entries of equal hash.
 *    hmap_find / hmap_find_or_add / hmap_add / hmap_remove.
 *
 * Contract: the load is kept at most 1/2, so a probe is short; capacities
 * are powers of two; memory is cap x 24 bytes, allocated with calloc only
 * when the map grows (never on lookups or deletions); returned value
 * pointers stay valid until the next insertion.  Not thread-safe: the
 * caller locks.  Errors are TRACE_ENOMEM (trace.h); nothing is printed.
 */
#ifndef SURFER_HMAP_H
#define SURFER_HMAP_H

#include <stddef.h>
#include <stdint.h>

struct hmap_slot {
	uint64_t key;      /* the exact key, or the hash of a hashed key */
	uint64_t val;
	uint32_t used;     /* 1 in use, 0 empty                          */
};

struct hmap {
	struct hmap_slot *slot;  /* cap slots, NULL before the first insertion */
	uint32_t cap;            /* a power of two, or 0                      */
	uint32_t count;          /* entries in use                            */
};

/* The caller's equality of a hashed key: nonzero when the entry whose value
 * is val has key (ctx is passed through). */
typedef int (*hmap_eq_fn)(const void *ctx, uint64_t val, const void *key);

/* Initializes an empty map (no allocation); a zeroed struct is empty too. */
void hmap_init(struct hmap *m);

/* Frees the slots; the map is empty and usable again. */
void hmap_release(struct hmap *m);

/* Makes room for n entries without growing again.  0 or TRACE_ENOMEM. */
int hmap_reserve(struct hmap *m, uint32_t n);

/* ---- exact 64-bit keys ------------------------------------------------ */

/* The value stored for key, or NULL. */
uint64_t *hmap_get(const struct hmap *m, uint64_t key);

/* Stores val for key, replacing a previous value.  0 or TRACE_ENOMEM. */
int hmap_put(struct hmap *m, uint64_t key, uint64_t val);

/* Removes key.  1 when it was there, 0 when not. */
int hmap_del(struct hmap *m, uint64_t key);

/* ---- hashed keys ------------------------------------------------------ */

/* The value of the entry with this hash for which eq(ctx, val, key) holds,
 * or NULL. */
uint64_t *hmap_find(const struct hmap *m, uint64_t hash, hmap_eq_fn eq, const void *ctx,
		    const void *key);

/* Finds key as hmap_find does; when absent adds it with value val.  *out
 * (when out is not NULL) points at the stored value either way.  Returns 1
 * found, 0 added, or TRACE_ENOMEM (nothing added). */
int hmap_find_or_add(struct hmap *m, uint64_t hash, hmap_eq_fn eq, const void *ctx,
		     const void *key, uint64_t val, uint64_t **out);

/* Adds an entry the caller knows is absent.  0 or TRACE_ENOMEM. */
int hmap_add(struct hmap *m, uint64_t hash, uint64_t val);

/* Removes the entry hmap_find would return.  1 removed, 0 absent. */
int hmap_remove(struct hmap *m, uint64_t hash, hmap_eq_fn eq, const void *ctx, const void *key);

/* ---- iteration and hashing -------------------------------------------- */

/* The next slot in use at or after *pos (start with *pos = 0), advancing
 * *pos past it; NULL at the end.  The order is the table's, not insertion. */
const struct hmap_slot *hmap_next(const struct hmap *m, uint32_t *pos);

/* A 64-bit hash of n bytes (FNV-1a, then the finalizer below, so that short
 * strings differing in their last byte spread over the table). */
uint64_t hmap_hash_bytes(const void *p, size_t n);

/* A bijective mix of a 64-bit number (splitmix64's finalizer): distinct
 * numbers keep distinct hashes, consecutive ones land far apart.  Inline:
 * every probe calls it. */
static inline uint64_t hmap_hash_u64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

/* Combines a hash h with one more 64-bit word (for keys made of fields):
 * FNV-1a over whole words, mixed at the end by the map.  Inline: a kernel
 * table key is 20-odd words hashed per launch. */
static inline uint64_t hmap_hash_add(uint64_t h, uint64_t word)
{
	return (h ^ word) * 1099511628211ull;
}

#endif
