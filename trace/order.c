/*
 * order.c - what a first, file-order reading of a trace learns about the
 * order of its records, so that a second reading can return them in CPU
 * order (trace_merge_open, reader.c) without holding them all.
 *
 * A recorder writes each thread's records from that thread's buffer, so
 * the file interleaves the threads in runs, and a thread's own records are
 * in CPU order or nearly so (GPU times that arrive late).  For every thread
 * this keeps:
 *  - the byte ranges of its runs (segments), so a second reading can follow
 *    one thread through the file;
 *  - whether its records are in (cpu_ns, seq) order, and if not, whether a
 *    window of W records puts them in order: the same test the merge's
 *    window applies, simulated on the keys (a ring of the last W keys while
 *    the thread is in order, a min-heap once it is not).
 *
 * Memory: 16 bytes a segment, at most TRACE_ORDER_MAX_SEGS of them (beyond,
 * neighbouring segments of a thread are joined and a reader of the joined
 * range skips the other threads' records in it), and at most W keys of 16
 * bytes per thread: bounded by the number of threads, never by the number
 * of records.
 */
#include <stdlib.h>
#include <string.h>

#include "trace/hmap.h"
#include "trace/internal.h"
#include "trace/trace.h"

struct okey {
	uint64_t cpu, seq;
};

struct othread {
	uint32_t thread;
	uint8_t sorted;              /* no key below the one before it        */
	uint8_t beyond;              /* not in order within the window        */
	uint8_t have_popped;
	uint64_t records;
	struct okey last;            /* the latest key                        */
	struct okey popped;          /* the key that left the window last     */
	struct okey *ring;           /* sorted: the last min(records, W) keys  */
	uint32_t rcap;
	struct okey *heap;           /* not sorted: the window, a min-heap    */
	uint32_t hn;
	struct trace_order_seg *seg;
	uint32_t nseg, capseg;
};

struct trace_order {
	uint32_t window;             /* W, records                            */
	struct othread *t;
	uint32_t nt, capt;
	struct hmap ids;             /* thread id -> index in t               */
	uint32_t cur;                /* the thread of the latest record + 1, 0 none */
	uint64_t nseg;               /* segments of every thread              */
	int coarse;                  /* segments were joined                  */
	size_t bytes;                /* held by the key windows               */
};

static int key_lt(struct okey a, struct okey b)
{
	return a.cpu < b.cpu || (a.cpu == b.cpu && a.seq < b.seq);
}

struct trace_order *trace_order_new(uint32_t window)
{
	struct trace_order *o = calloc(1, sizeof(*o));
	if (o)
		o->window = window ? window : TRACE_ORDER_WINDOW;
	return o;
}

void trace_order_free(struct trace_order *o)
{
	if (!o)
		return;
	for (uint32_t i = 0; i < o->nt; i++) {
		free(o->t[i].ring);
		free(o->t[i].heap);
		free(o->t[i].seg);
	}
	free(o->t);
	hmap_release(&o->ids);
	free(o);
}

static void heap_up(struct okey *h, uint32_t i)
{
	while (i > 0) {
		uint32_t p = (i - 1) / 2;
		if (!key_lt(h[i], h[p]))
			break;
		struct okey x = h[i];
		h[i] = h[p];
		h[p] = x;
		i = p;
	}
}

static struct okey heap_pop(struct okey *h, uint32_t *n)
{
	struct okey top = h[0];
	h[0] = h[--*n];
	for (uint32_t i = 0;;) {
		uint32_t l = 2 * i + 1, m = i;
		if (l < *n && key_lt(h[l], h[m]))
			m = l;
		if (l + 1 < *n && key_lt(h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			break;
		struct okey x = h[i];
		h[i] = h[m];
		h[m] = x;
		i = m;
	}
	return top;
}

/* The first key below its predecessor: the window so far (the last
 * min(records, W) keys, oldest first, hence ascending) becomes a heap. */
static int to_heap(struct trace_order *o, struct othread *t)
{
	uint32_t w = o->window;
	uint32_t n = t->records < w ? (uint32_t)t->records : w;
	t->heap = malloc((size_t)w * sizeof(*t->heap));
	if (!t->heap)
		return TRACE_ENOMEM;
	o->bytes += (size_t)w * sizeof(*t->heap);
	if (t->records <= w) {
		memcpy(t->heap, t->ring, (size_t)n * sizeof(*t->heap));
	} else {
		uint32_t at = (uint32_t)(t->records % w);   /* the oldest */
		memcpy(t->heap, t->ring + at, (size_t)(w - at) * sizeof(*t->heap));
		memcpy(t->heap + (w - at), t->ring, (size_t)at * sizeof(*t->heap));
	}
	t->hn = n;
	o->bytes -= (size_t)t->rcap * sizeof(*t->ring);
	free(t->ring);
	t->ring = NULL;
	t->rcap = 0;
	t->sorted = 0;
	return 0;
}

/* Passes key k through the thread's simulated window. */
static int window_note(struct trace_order *o, struct othread *t, struct okey k)
{
	uint32_t w = o->window;
	if (t->sorted && t->records > 0 && key_lt(k, t->last)) {
		if (to_heap(o, t) < 0)
			return TRACE_ENOMEM;
	}
	if (t->sorted) {
		/* In order so far: the window is the last W keys, and the one
		 * that leaves it is the oldest. */
		if (t->records == t->rcap && t->rcap < w) {
			uint32_t ncap = t->rcap ? t->rcap * 2 : 64;
			if (ncap > w)
				ncap = w;
			struct okey *nr = realloc(t->ring, (size_t)ncap * sizeof(*nr));
			if (!nr)
				return TRACE_ENOMEM;
			o->bytes += (size_t)(ncap - t->rcap) * sizeof(*nr);
			t->ring = nr;
			t->rcap = ncap;
		}
		struct okey *slot = &t->ring[t->records % w];
		if (t->records >= w) {
			t->popped = *slot;
			t->have_popped = 1;
		}
		*slot = k;
	} else {
		if (t->hn == w) {
			t->popped = heap_pop(t->heap, &t->hn);
			t->have_popped = 1;
		}
		if (t->have_popped && key_lt(k, t->popped)) {
			/* older than a record the window already let go */
			t->beyond = 1;
			o->bytes -= (size_t)w * sizeof(*t->heap);
			free(t->heap);
			t->heap = NULL;
			t->hn = 0;
			return 0;
		}
		t->heap[t->hn++] = k;
		heap_up(t->heap, t->hn - 1);
	}
	return 0;
}

/* Joins each thread's segments pairwise (see the top of the file). */
static void coarsen(struct trace_order *o)
{
	o->nseg = 0;
	for (uint32_t i = 0; i < o->nt; i++) {
		struct othread *t = &o->t[i];
		uint32_t n = 0;
		for (uint32_t j = 0; j < t->nseg; j += 2, n++) {
			t->seg[n].start = t->seg[j].start;
			t->seg[n].end = t->seg[j + 1 < t->nseg ? j + 1 : j].end;
		}
		t->nseg = n;
		o->nseg += n;
	}
	o->coarse = 1;
}

static struct othread *thread_of(struct trace_order *o, uint32_t thread)
{
	if (o->cur && o->t[o->cur - 1].thread == thread)
		return &o->t[o->cur - 1];
	uint64_t *at = hmap_get(&o->ids, thread);
	if (at)
		return &o->t[*at];
	if (o->nt == o->capt) {
		uint32_t ncap = o->capt ? o->capt * 2 : 8;
		struct othread *nt = realloc(o->t, (size_t)ncap * sizeof(*nt));
		if (!nt)
			return NULL;
		o->t = nt;
		o->capt = ncap;
	}
	if (hmap_put(&o->ids, thread, o->nt) < 0)
		return NULL;
	struct othread *t = &o->t[o->nt++];
	memset(t, 0, sizeof(*t));
	t->thread = thread;
	t->sorted = 1;
	return t;
}

int trace_order_note(struct trace_order *o, uint32_t thread, uint64_t cpu_ns, uint64_t seq,
		     uint64_t start, uint64_t end)
{
	struct othread *t = thread_of(o, thread);
	if (!t)
		return TRACE_ENOMEM;
	uint32_t idx = (uint32_t)(t - o->t) + 1;
	if (o->cur == idx && t->nseg > 0) {
		t->seg[t->nseg - 1].end = end;
	} else {
		if (t->nseg == t->capseg) {
			uint32_t ncap = t->capseg ? t->capseg * 2 : 16;
			struct trace_order_seg *ns = realloc(t->seg, (size_t)ncap * sizeof(*ns));
			if (!ns)
				return TRACE_ENOMEM;
			t->seg = ns;
			t->capseg = ncap;
		}
		t->seg[t->nseg++] = (struct trace_order_seg){ start, end };
		if (++o->nseg > TRACE_ORDER_MAX_SEGS)
			coarsen(o);
	}
	o->cur = idx;
	struct okey k = { cpu_ns, seq };
	if (!t->beyond && window_note(o, t, k) < 0)
		return TRACE_ENOMEM;
	t->last = k;
	t->records++;
	return 0;
}

uint32_t trace_order_window(const struct trace_order *o)
{
	return o->window;
}

uint32_t trace_order_threads(const struct trace_order *o)
{
	return o->nt;
}

void trace_order_thread(const struct trace_order *o, uint32_t i, struct trace_order_thread *out)
{
	const struct othread *t = &o->t[i];
	out->thread = t->thread;
	out->sorted = t->sorted;
	out->beyond = t->beyond;
	out->records = t->records;
	out->seg = t->seg;
	out->nseg = t->nseg;
}

int trace_order_coarse(const struct trace_order *o)
{
	return o->coarse;
}

size_t trace_order_bytes(const struct trace_order *o)
{
	size_t b = sizeof(*o) + (size_t)o->capt * sizeof(*o->t) + (size_t)o->ids.cap * sizeof(struct hmap_slot);
	for (uint32_t i = 0; i < o->nt; i++)
		b += (size_t)o->t[i].capseg * sizeof(struct trace_order_seg);
	return b + o->bytes;
}
