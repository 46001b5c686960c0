/*
 * u64map.c - the uint64 -> pointer map of the recorder's tables (the
 * pending records by seq, CUPTI's correlation ids, reports waiting for
 * their record, device allocations by pointer).
 *
 * Open addressing with linear probing, at most half full, deletion by
 * backward shift (no tombstones, so a table that sees millions of
 * insertions and deletions never needs a rebuild).
 *
 * Must never: lock (the caller's lock guards a map), or allocate except
 * when a put grows the table; a failed growth leaves the map as it was.
 */
#include <stdlib.h>
#include <string.h>

#include "preload/recorder.h"

static int grow(struct preload_u64map *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 1024;
	uint64_t *nk = calloc(ncap, sizeof *nk);
	void **nv = calloc(ncap, sizeof *nv);
	if (!nk || !nv) {
		free(nk);
		free(nv);
		return -1;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->keys[i])
			continue;
		size_t j = preload_mix64(m->keys[i]) & (ncap - 1);
		while (nk[j])
			j = (j + 1) & (ncap - 1);
		nk[j] = m->keys[i];
		nv[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = nk;
	m->vals = nv;
	m->cap = ncap;
	return 0;
}

void *preload_u64map_get(const struct preload_u64map *m, uint64_t k)
{
	if (!m->cap || !k)
		return NULL;
	for (size_t i = preload_mix64(k) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == k)
			return m->vals[i];
		if (!m->keys[i])
			return NULL;
	}
}

int preload_u64map_put(struct preload_u64map *m, uint64_t k, void *v)
{
	if (!k)
		return -1;
	if ((m->n + 1) * 2 > m->cap && grow(m) < 0)
		return -1;
	size_t i = preload_mix64(k) & (m->cap - 1);
	while (m->keys[i] && m->keys[i] != k)
		i = (i + 1) & (m->cap - 1);
	if (!m->keys[i])
		m->n++;
	m->keys[i] = k;
	m->vals[i] = v;
	return 0;
}

void preload_u64map_del(struct preload_u64map *m, uint64_t k)
{
	if (!m->cap || !k)
		return;
	size_t mask = m->cap - 1, i = preload_mix64(k) & mask;
	while (m->keys[i] != k) {
		if (!m->keys[i])
			return;
		i = (i + 1) & mask;
	}
	/* Backward shift keeps every probe chain unbroken without tombstones. */
	for (size_t j = i;;) {
		m->keys[i] = 0;
		for (;;) {
			j = (j + 1) & mask;
			if (!m->keys[j]) {
				m->n--;
				return;
			}
			size_t home = preload_mix64(m->keys[j]) & mask;
			if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
				continue;
			break;
		}
		m->keys[i] = m->keys[j];
		m->vals[i] = m->vals[j];
		i = j;
	}
}

void preload_u64map_clear(struct preload_u64map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof *m);
}
