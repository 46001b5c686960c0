/*
 * hmap.c - open addressing with linear probing and backward-shift deletion
 * (no tombstones, so a table that sees many insertions and deletions - the
 * recorder's pending launches - never degrades).  See hmap.h for the
 * contract.
 *
 * Both key modes place an entry at hmap_hash_u64(slot.key) & (cap - 1):
 * for exact keys slot.key is the key, for hashed keys the caller's hash;
 * mixing again costs a few cycles and protects callers whose hashes are
 * weak in the low bits.
 */
#include "trace/hmap.h"
#include "trace/trace.h"

#include <stdlib.h>
#include <string.h>

uint64_t hmap_hash_bytes(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 1099511628211ull;
	}
	return hmap_hash_u64(h);
}

void hmap_init(struct hmap *m)
{
	memset(m, 0, sizeof(*m));
}

void hmap_release(struct hmap *m)
{
	free(m->slot);
	hmap_init(m);
}

static uint32_t home(const struct hmap *m, uint64_t key)
{
	return (uint32_t)hmap_hash_u64(key) & (m->cap - 1);
}

static int resize(struct hmap *m, uint32_t ncap)
{
	struct hmap_slot *ns = calloc(ncap, sizeof(*ns));
	if (!ns)
		return TRACE_ENOMEM;
	struct hmap old = *m;
	m->slot = ns;
	m->cap = ncap;
	for (uint32_t j = 0; j < old.cap; j++) {
		if (!old.slot[j].used)
			continue;
		uint32_t i = home(m, old.slot[j].key);
		while (ns[i].used)
			i = (i + 1) & (ncap - 1);
		ns[i] = old.slot[j];
	}
	free(old.slot);
	return 0;
}

int hmap_reserve(struct hmap *m, uint32_t n)
{
	/* Load at most 1/2: cap >= 2n, a power of two, at least 16. */
	uint64_t want = (uint64_t)n * 2;
	uint64_t cap = m->cap ? m->cap : 16;
	while (cap < want)
		cap *= 2;
	if (cap > (1ull << 31))
		return TRACE_ENOMEM;
	return cap == m->cap ? 0 : resize(m, (uint32_t)cap);
}

static int grow_for_one(struct hmap *m)
{
	if ((uint64_t)(m->count + 1) * 2 <= m->cap)
		return 0;
	return hmap_reserve(m, m->count + 1);
}

/* The slot holding (key, eq-match) or, when absent, the empty slot where it
 * would go; *found says which.  cap must be > 0. */
static uint32_t probe(const struct hmap *m, uint64_t key, hmap_eq_fn eq, const void *ctx,
		      const void *k, int *found)
{
	uint32_t mask = m->cap - 1;
	for (uint32_t i = home(m, key);; i = (i + 1) & mask) {
		const struct hmap_slot *s = &m->slot[i];
		if (!s->used) {
			*found = 0;
			return i;
		}
		if (s->key == key && (!eq || eq(ctx, s->val, k))) {
			*found = 1;
			return i;
		}
	}
}

static void erase(struct hmap *m, uint32_t i)
{
	/* Backward shift: pull later entries of the cluster into the hole when
	 * their home is not between the hole and themselves (cyclically). */
	uint32_t mask = m->cap - 1;
	for (uint32_t j = (i + 1) & mask; m->slot[j].used; j = (j + 1) & mask) {
		uint32_t h = home(m, m->slot[j].key);
		int between = i <= j ? (i < h && h <= j) : (i < h || h <= j);
		if (between)
			continue;
		m->slot[i] = m->slot[j];
		i = j;
	}
	memset(&m->slot[i], 0, sizeof(m->slot[i]));
	m->count--;
}

uint64_t *hmap_get(const struct hmap *m, uint64_t key)
{
	return hmap_find(m, key, NULL, NULL, NULL);
}

int hmap_put(struct hmap *m, uint64_t key, uint64_t val)
{
	uint64_t *v;
	int rc = hmap_find_or_add(m, key, NULL, NULL, NULL, val, &v);
	if (rc == 1)
		*v = val;
	return rc < 0 ? rc : 0;
}

int hmap_del(struct hmap *m, uint64_t key)
{
	return hmap_remove(m, key, NULL, NULL, NULL);
}

uint64_t *hmap_find(const struct hmap *m, uint64_t hash, hmap_eq_fn eq, const void *ctx,
		    const void *key)
{
	if (!m->cap)
		return NULL;
	int found;
	uint32_t i = probe(m, hash, eq, ctx, key, &found);
	return found ? &m->slot[i].val : NULL;
}

int hmap_find_or_add(struct hmap *m, uint64_t hash, hmap_eq_fn eq, const void *ctx,
		     const void *key, uint64_t val, uint64_t **out)
{
	int found = 0;
	uint32_t i = 0;
	if (m->cap) {
		i = probe(m, hash, eq, ctx, key, &found);
		if (found) {
			if (out)
				*out = &m->slot[i].val;
			return 1;
		}
	}
	if ((uint64_t)(m->count + 1) * 2 > m->cap) {
		int rc = hmap_reserve(m, m->count + 1);
		if (rc < 0)
			return rc;
		i = probe(m, hash, eq, ctx, key, &found);
	}
	m->slot[i].key = hash;
	m->slot[i].val = val;
	m->slot[i].used = 1;
	m->count++;
	if (out)
		*out = &m->slot[i].val;
	return 0;
}

int hmap_add(struct hmap *m, uint64_t hash, uint64_t val)
{
	int rc = grow_for_one(m);
	if (rc < 0)
		return rc;
	uint32_t mask = m->cap - 1, i = home(m, hash);
	while (m->slot[i].used)
		i = (i + 1) & mask;
	m->slot[i].key = hash;
	m->slot[i].val = val;
	m->slot[i].used = 1;
	m->count++;
	return 0;
}

int hmap_remove(struct hmap *m, uint64_t hash, hmap_eq_fn eq, const void *ctx, const void *key)
{
	if (!m->cap)
		return 0;
	int found;
	uint32_t i = probe(m, hash, eq, ctx, key, &found);
	if (!found)
		return 0;
	erase(m, i);
	return 1;
}

const struct hmap_slot *hmap_next(const struct hmap *m, uint32_t *pos)
{
	while (*pos < m->cap) {
		const struct hmap_slot *s = &m->slot[(*pos)++];
		if (s->used)
			return s;
	}
	return NULL;
}
