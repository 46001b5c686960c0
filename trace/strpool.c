/*
 * strpool.c - interned strings in arena blocks, indexed by the one hash map
 * (hashed keys: the map stores the string's hash and its id; equality
 * compares the stored copy).  See strpool.h for the contract.
 */
#include "trace/strpool.h"
#include "trace/trace.h"

#include <stdlib.h>
#include <string.h>

#define BLOCK_BYTES (64u * 1024)

struct strpool_block {
	struct strpool_block *next;
	size_t used, cap;
	char data[];
};

struct probe_key {
	const char *s;
	size_t len;
};

static int same(const void *ctx, uint64_t val, const void *key)
{
	const struct strpool *sp = ctx;
	const struct probe_key *k = key;
	const struct strpool_str *e = &sp->str[val];
	return e->len == k->len && memcmp(e->p, k->s, k->len) == 0;
}

void strpool_init(struct strpool *sp)
{
	memset(sp, 0, sizeof(*sp));
}

void strpool_release(struct strpool *sp)
{
	struct strpool_block *b = sp->arena;
	while (b) {
		struct strpool_block *next = b->next;
		free(b);
		b = next;
	}
	free(sp->str);
	hmap_release(&sp->map);
	strpool_init(sp);
}

/* A copy of s with a NUL after it, in the arena; NULL when out of memory. */
static char *copy(struct strpool *sp, const char *s, size_t len)
{
	struct strpool_block *b = sp->arena;
	size_t need = len + 1;
	if (!b || b->cap - b->used < need) {
		size_t cap = need > BLOCK_BYTES ? need : BLOCK_BYTES;
		struct strpool_block *nb = malloc(sizeof(*nb) + cap);
		if (!nb)
			return NULL;
		nb->used = 0;
		nb->cap = cap;
		if (b && need > BLOCK_BYTES) {
			/* A long string gets its own block behind the current one,
			 * so the current block's free space stays in use. */
			nb->next = b->next;
			b->next = nb;
		} else {
			nb->next = b;
			sp->arena = nb;
		}
		b = nb;
	}
	char *p = b->data + b->used;
	if (len)
		memcpy(p, s, len);
	p[len] = '\0';
	b->used += need;
	return p;
}

int64_t strpool_lookup(const struct strpool *sp, const char *s, size_t len)
{
	struct probe_key k = { s, len };
	const uint64_t *v = hmap_find(&sp->map, hmap_hash_bytes(s, len), same, sp, &k);
	return v ? (int64_t)*v : -1;
}

int64_t strpool_intern(struct strpool *sp, const char *s, size_t len, int *added)
{
	if (added)
		*added = 0;
	if (len > UINT32_MAX || sp->n == UINT32_MAX)
		return TRACE_ENOMEM;
	uint64_t h = hmap_hash_bytes(s, len);
	struct probe_key k = { s, len };
	const uint64_t *v = hmap_find(&sp->map, h, same, sp, &k);
	if (v)
		return (int64_t)*v;
	if (sp->n == sp->cap) {
		uint32_t nc = sp->cap ? sp->cap * 2 : 256;
		struct strpool_str *ns = realloc(sp->str, (size_t)nc * sizeof(*ns));
		if (!ns)
			return TRACE_ENOMEM;
		sp->str = ns;
		sp->cap = nc;
	}
	if (hmap_reserve(&sp->map, sp->n + 1) < 0)
		return TRACE_ENOMEM;
	char *p = copy(sp, s, len);
	if (!p)
		return TRACE_ENOMEM;
	uint32_t id = sp->n;
	sp->str[id].p = p;
	sp->str[id].len = (uint32_t)len;
	/* Cannot fail: room was reserved above. */
	(void)hmap_add(&sp->map, h, id);
	sp->n++;
	sp->bytes += len;
	if (added)
		*added = 1;
	return id;
}

const char *strpool_get(const struct strpool *sp, uint32_t id, uint32_t *len)
{
	if (id >= sp->n)
		return NULL;
	if (len)
		*len = sp->str[id].len;
	return sp->str[id].p;
}
