/*
 * graphs.c - the kernels captured into CUDA graphs, for their replays
 * (graphs.h says what and why).
 *
 * Per capture: its launches in capture order, and its classes (the
 * distinct name, grid and block among them), each with its first launch;
 * a launch links to the next of its class.  Per replay in flight: one
 * cursor per class of its capture, the next launch of the class it has not
 * matched, and how many launches are left; a replay whose every launch was
 * matched is forgotten.
 */
#include "analyzer/graphs.h"

#include <stdlib.h>
#include <string.h>

#include "trace/hmap.h"

#define NONE UINT32_MAX

/* A class of a capture's launches: its first and last launch, linked by
 * next_same in between. */
struct graph_class {
	uint32_t first, last;
};

struct capture {
	uint64_t id;
	struct graph_launch *l;
	uint32_t n, cap;
	struct graph_class *cls;
	uint32_t ncls, capcls;
	struct hmap classes;          /* hash of (name, grid, block) -> class    */
};

struct replay {
	uint64_t seq;                 /* the replay's cuGraphLaunch              */
	uint32_t capture;
	uint32_t left;                /* launches not matched yet                */
	uint32_t *next;               /* per class: its next launch to match     */
};

struct graphs {
	struct capture *c;
	uint32_t n, cap;
	struct hmap by_id;            /* capture id -> index in c                */
	struct replay *r;
	uint32_t nr, capr;
	struct hmap by_replay;        /* replay seq -> index in r                */
};

static int grow(void **p, uint32_t *cap, uint32_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	uint32_t n = *cap ? 2 * *cap : 16;
	while (n < need)
		n *= 2;
	void *q = realloc(*p, (size_t)n * size);
	if (!q)
		return TRACE_ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

static uint64_t class_hash(const struct trace_kernel *k)
{
	uint64_t h = hmap_hash_u64(k->name);
	for (int i = 0; i < 3; i++) {
		h = hmap_hash_add(h, k->grid[i]);
		h = hmap_hash_add(h, k->block[i]);
	}
	return h;
}

static int same_class(const struct trace_kernel *a, const struct trace_kernel *b)
{
	return a->name == b->name && !memcmp(a->grid, b->grid, sizeof(a->grid)) &&
	       !memcmp(a->block, b->block, sizeof(a->block));
}

/* hmap equality: the class whose first launch is like the key's kernel */
static int class_eq(const void *ctx, uint64_t val, const void *key)
{
	const struct capture *c = ctx;
	return same_class(&c->l[c->cls[val].first].k, key);
}

struct graphs *graphs_new(void)
{
	return calloc(1, sizeof(struct graphs));
}

static void forget_replays(struct graphs *g)
{
	for (uint32_t i = 0; i < g->nr; i++)
		free(g->r[i].next);
	g->nr = 0;
	hmap_release(&g->by_replay);
}

void graphs_free(struct graphs *g)
{
	if (!g)
		return;
	forget_replays(g);
	free(g->r);
	for (uint32_t i = 0; i < g->n; i++) {
		free(g->c[i].l);
		free(g->c[i].cls);
		hmap_release(&g->c[i].classes);
	}
	free(g->c);
	hmap_release(&g->by_id);
	free(g);
}

void graphs_rewind(struct graphs *g)
{
	forget_replays(g);
}

static struct capture *capture_of(const struct graphs *g, uint64_t id)
{
	const uint64_t *i = id ? hmap_get(&g->by_id, id) : NULL;
	return i ? &g->c[*i] : NULL;
}

int graphs_capture(struct graphs *g, const struct trace_kernel *k, const struct ktable_lib *lib)
{
	struct capture *c = capture_of(g, k->graph);
	if (!c) {
		if (grow((void **)&g->c, &g->cap, g->n + 1, sizeof(*g->c)) < 0 ||
		    hmap_put(&g->by_id, k->graph, g->n) < 0)
			return TRACE_ENOMEM;
		c = &g->c[g->n++];
		memset(c, 0, sizeof(*c));
		c->id = k->graph;
	}
	if (grow((void **)&c->l, &c->cap, c->n + 1, sizeof(*c->l)) < 0)
		return TRACE_ENOMEM;

	uint64_t h = class_hash(k), *v;
	uint32_t at = c->n;
	struct graph_launch *l = &c->l[at];
	l->k = *k;
	l->next_same = NONE;
	memset(&l->lib, 0, sizeof(l->lib));
	if (lib)
		l->lib = *lib;
	v = hmap_find(&c->classes, h, class_eq, c, k);
	if (v) {
		c->l[c->cls[*v].last].next_same = at;
		c->cls[*v].last = at;
	} else {
		if (grow((void **)&c->cls, &c->capcls, c->ncls + 1, sizeof(*c->cls)) < 0)
			return TRACE_ENOMEM;
		c->cls[c->ncls] = (struct graph_class){ at, at };
		if (hmap_add(&c->classes, h, c->ncls) < 0)
			return TRACE_ENOMEM;
		c->ncls++;
	}
	c->n++;
	return 0;
}

/* The cursors of replay seq of capture ci, started when new; NULL out of
 * memory. */
static struct replay *replay_of(struct graphs *g, uint64_t seq, uint32_t ci)
{
	uint64_t *i = hmap_get(&g->by_replay, seq);
	if (i)
		return &g->r[*i];
	if (g->nr >= GRAPHS_LIVE_REPLAYS)
		forget_replays(g);
	const struct capture *c = &g->c[ci];
	if (grow((void **)&g->r, &g->capr, g->nr + 1, sizeof(*g->r)) < 0)
		return NULL;
	uint32_t *next = malloc((size_t)c->ncls * sizeof(*next));
	if (!next || hmap_put(&g->by_replay, seq, g->nr) < 0) {
		free(next);
		return NULL;
	}
	for (uint32_t k = 0; k < c->ncls; k++)
		next[k] = c->cls[k].first;
	struct replay *r = &g->r[g->nr++];
	*r = (struct replay){ .seq = seq, .capture = ci, .left = c->n, .next = next };
	return r;
}

/* Forgets replay r: the last one moves into its place. */
static void replay_done(struct graphs *g, struct replay *r)
{
	uint32_t at = (uint32_t)(r - g->r);
	free(r->next);
	hmap_del(&g->by_replay, r->seq);
	if (at != --g->nr) {
		g->r[at] = g->r[g->nr];
		hmap_put(&g->by_replay, g->r[at].seq, at);   /* an existing key: no growth */
	}
}

const struct ktable_lib *graphs_replayed_lib(struct graphs *g, const struct trace_kernel *k)
{
	struct capture *c = k->replay ? capture_of(g, k->graph) : NULL;
	if (!c)
		return NULL;
	const uint64_t *cl = hmap_find(&c->classes, class_hash(k), class_eq, c, k);
	if (!cl)
		return NULL;
	struct replay *r = replay_of(g, k->replay, (uint32_t)(c - g->c));
	if (!r || r->next[*cl] == NONE)
		return NULL;
	const struct graph_launch *l = &c->l[r->next[*cl]];
	r->next[*cl] = l->next_same;
	if (--r->left == 0)
		replay_done(g, r);
	return l->lib.kind != KTABLE_LIB_NONE ? &l->lib : NULL;
}

const struct graph_launch *graphs_capture_launches(const struct graphs *g, uint64_t id, size_t *n)
{
	const struct capture *c = capture_of(g, id);
	*n = c ? c->n : 0;
	return c ? c->l : NULL;
}
