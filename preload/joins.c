/*
 * joins.c - the sink CUPTI reports into: which of its kernel, copy and set
 * reports belongs to which pending record.
 *
 * CUPTI delivers a completed activity buffer on a thread of its own:
 * begin (takes the writer lock, drains every ring so every launch made so
 * far is pending, retries the reports still waiting), then per buffer the
 * correlation records (CUPTI correlation id -> our sequence number, pushed
 * as external id around each launch), then the reports, then end.
 *
 * Must never: be called by cupti.c except through preload_joins_sink;
 * join a report to a launch made after the reported kernel started; hold a
 * report forever (a bounded list, 200 ms, then counted as dropped).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "preload/recorder.h"

static struct {
	struct hmap corr;             /* CUPTI correlation id -> our seq         */
} J;

/* A kernel starts after its launch call began; what CUPTI's clock reading
 * against ours may be off by. */
#define LAUNCH_CLOCK_SLACK_NS 50000u

/* Whether a CUPTI report that matches no launch counts as dropped: with
 * capture windows the kernels run between them are reported too and
 * cannot be told from a window's (whose kernels may start after it
 * closed), so only without windows; a window's kernel left untimed shows
 * as a kernel record without GPU times. */
static int counts_as_dropped(void)
{
	const struct preload_settings *c = &preload_cfg;
	return !(c->skip || c->iterations);
}

static void cupti_external(void *ctx, uint32_t corr, uint64_t ext)
{
	(void)ctx;
	if (J.corr.count > (1u << 20))
		hmap_release(&J.corr);
	/* correlation 0 is kept for none: such a report is matched by
	 * kernel, below */
	if (corr)
		hmap_put(&J.corr, corr, ext);
}

/*
 * Reports no external correlation names.  CUPTI writes the correlation
 * record only in front of an API record made inside our push, and a kernel
 * launched through the CUDA runtime carries the correlation id of the
 * runtime's API record, made outside it (on an H200 every PyTorch and
 * cuBLAS-Lt kernel came so; only cuBLAS's own driver launches were named).
 * Such a report is joined to the earliest-launched pending launch of the
 * same kernel (name, grid, block) on its stream: a stream runs its work in
 * launch order, so that launch is the one it reports.  A report whose
 * launch is not published yet waits in a bounded list, retried at each
 * buffer (retry_unjoined()).
 */
struct unjoined {
	int copy;                     /* 1: c, 0: k                              */
	uint64_t seen_ns;             /* when it came                            */
	struct preload_cupti_kernel k;
	struct preload_cupti_copy c;
	struct unjoined *next;
};
static struct unjoined *unjoined_head, **unjoined_tail = &unjoined_head;
static size_t n_unjoined;
#define MAX_UNJOINED 65536

static int same_kernel(const struct trace_kernel *r, uint32_t name, const struct preload_cupti_kernel *k)
{
	for (int i = 0; i < 3; i++)
		if (r->grid[i] != k->grid[i] || r->block[i] != k->block[i])
			return 0;
	return r->name == name;
}

static uint64_t pend_cpu_ns(const struct preload_pend *p)
{
	return p->rec.type == TRACE_KERNEL ? p->rec.u.kernel.cpu_ns : p->rec.u.copy.cpu_ns;
}

/* Launches made after this GPU start cannot be the one it reports. */
static uint64_t launched_by(uint64_t gpu_start_ns)
{
	if (!preload_cupti_clock_known() || !gpu_start_ns)
		return UINT64_MAX;
	return preload_cupti_to_cpu_ns(gpu_start_ns) + LAUNCH_CLOCK_SLACK_NS;
}

/* Keeps p if it was launched before the candidates so far: *same among
 * those on the report's stream, *any among all. */
static void consider(struct preload_pend *p, int on_stream, struct preload_pend **same, struct preload_pend **any)
{
	uint64_t t = pend_cpu_ns(p);
	if (on_stream && (!*same || t < pend_cpu_ns(*same)))
		*same = p;
	if (!*any || t < pend_cpu_ns(*any))
		*any = p;
}

/* The launch k reports: the earliest-launched pending one of the same
 * kernel on its stream, else (a stream the driver and CUPTI number apart)
 * on any, never one launched after k started.  Earliest by launch time,
 * not by the pending list's order: threads' launches are published in
 * batches, so PyTorch's autograd thread's launches can enter the list
 * after later ones of the main thread on the same stream. */
static struct preload_pend *match_kernel(const struct preload_cupti_kernel *k)
{
	if (k->graph_id || !k->name || preload_out_open() < 0)
		return NULL;
	uint32_t name = preload_out_intern(k->name);
	uint64_t limit = launched_by(k->start_ns);
	struct preload_pend *same = NULL, *any = NULL;
	for (struct preload_pend *p = preload_pend_head(); p && name; p = p->next)
		if (p->rec.type == TRACE_KERNEL && !p->graph && p->rec.u.kernel.cpu_ns <= limit &&
		    same_kernel(&p->rec.u.kernel, name, k))
			consider(p, p->rec.u.kernel.stream == k->stream, &same, &any);
	return same ? same : any;
}

/* A graph replay's kernel no correlation names: the earliest-launched
 * pending replay on its stream (else on any) that was launched before it
 * started and has not had this graph node yet.  The replays launched
 * before that one on its stream have run all their nodes: released. */
static struct preload_pend *match_graph(const struct preload_cupti_kernel *k)
{
	uint64_t limit = launched_by(k->start_ns);
	struct preload_pend *same = NULL, *any = NULL;
	for (struct preload_pend *p = preload_pend_head(); p; p = p->next) {
		if (!p->graph || p->rec.u.kernel.cpu_ns > limit)
			continue;
		int seen = 0;
		for (uint32_t i = 0; i < p->nnodes && !seen; i++)
			seen = p->nodes[i] == k->graph_node_id;
		if (!seen)
			consider(p, p->rec.u.kernel.stream == k->stream, &same, &any);
	}
	struct preload_pend *m = same ? same : any;
	if (!m)
		return NULL;
	if (m->nnodes == m->capnodes) {
		uint32_t cap = m->capnodes ? 2 * m->capnodes : 16;
		uint64_t *n = realloc(m->nodes, cap * sizeof *n);
		if (!n)
			return m;  /* joined, though a later node may come here too */
		m->nodes = n;
		m->capnodes = cap;
	}
	m->nodes[m->nnodes++] = k->graph_node_id;
	for (struct preload_pend *p = preload_pend_head(), *n; p; p = n) {
		n = p->next;
		if (p->graph && p != m && p->rec.u.kernel.stream == m->rec.u.kernel.stream &&
		    p->rec.u.kernel.cpu_ns < m->rec.u.kernel.cpu_ns && p->nnodes) {
			preload_pend_drop(p);
		}
	}
	return m;
}

/* The same for a copy or set, by its size. */
static struct preload_pend *match_copy(const struct preload_cupti_copy *c)
{
	uint64_t limit = launched_by(c->start_ns);
	struct preload_pend *same = NULL, *any = NULL;
	for (struct preload_pend *p = preload_pend_head(); p; p = p->next)
		if (p->rec.type == (c->memset ? TRACE_MEMSET : TRACE_MEMCPY) &&
		    p->rec.u.copy.bytes == c->bytes && p->rec.u.copy.cpu_ns <= limit)
			consider(p, p->rec.u.copy.stream == c->stream, &same, &any);
	return same ? same : any;
}

static void keep_unjoined(const struct preload_cupti_kernel *k, const struct preload_cupti_copy *c)
{
	struct unjoined *u = n_unjoined < MAX_UNJOINED ? calloc(1, sizeof *u) : NULL;
	if (u && k) {
		u->k = *k;
		u->k.name = k->name ? strdup(k->name) : NULL;
		if (k->name && !u->k.name) {
			free(u);
			u = NULL;
		}
	} else if (u) {
		u->copy = 1;
		u->c = *c;
	}
	if (!u) {
		if (counts_as_dropped())
			preload_out_dropped(1);
		return;
	}
	u->seen_ns = preload_now_ns();
	*unjoined_tail = u;
	unjoined_tail = &u->next;
	n_unjoined++;
}

/* 1 when the report found its launch (now or as an orphan kept by seq).
 * first: no pending launch was made before it, so a report whose kernel
 * started earlier needs no search (0: search). */
static int try_kernel(const struct preload_cupti_kernel *k, uint64_t first)
{
	const uint64_t *ext = hmap_get(&J.corr, k->correlation);
	uint64_t seq = ext ? *ext : 0;
	struct preload_pend *p = seq ? preload_pend_by_seq(seq) : NULL;
	if (p && p->rec.type == TRACE_KERNEL) {
		preload_pend_join_kernel(p, k);
		return 1;
	}
	if (seq) {
		preload_pend_orphan(seq, k);
		return 1;
	}
	if (launched_by(k->start_ns) < first)
		return 0;
	if ((p = k->graph_id ? match_graph(k) : match_kernel(k)) != NULL) {
		preload_pend_join_kernel(p, k);
		return 1;
	}
	return 0;
}

static int try_copy(const struct preload_cupti_copy *c, uint64_t first)
{
	const uint64_t *ext = hmap_get(&J.corr, c->correlation);
	uint64_t seq = ext ? *ext : 0;
	struct preload_pend *p = seq ? preload_pend_by_seq(seq) : NULL;
	if (!p || (p->rec.type != TRACE_MEMCPY && p->rec.type != TRACE_MEMSET))
		p = seq || launched_by(c->start_ns) < first ? NULL : match_copy(c);
	if (!p)
		return 0;
	preload_pend_join_copy(p, c);
	return 1;
}

static void cupti_kernel(void *ctx, const struct preload_cupti_kernel *k)
{
	(void)ctx;
	if (!try_kernel(k, 0))
		keep_unjoined(k, NULL);
}

static void cupti_copy(void *ctx, const struct preload_cupti_copy *c)
{
	(void)ctx;
	if (!try_copy(c, 0))
		keep_unjoined(NULL, c);
}

/* Retries the waiting reports.  A launch still unpublished is a call in
 * flight when its report came (enqueued, not yet returned), handed over
 * microseconds later, so a report unmatched UNJOINED_NS after it came (or
 * at the end) is given up. */
#define UNJOINED_NS 200000000u
static void retry_unjoined(int last)
{
	struct unjoined *u = unjoined_head, *keep = NULL, **kt = &keep;
	size_t left = 0, lost = 0;
	uint64_t now = preload_now_ns(), first = UINT64_MAX;
	/* the earliest pending launch, once: most waiting reports are of
	 * kernels run before it (between profiler windows) */
	for (struct preload_pend *p = preload_pend_head(); p; p = p->next)
		if (pend_cpu_ns(p) < first)
			first = pend_cpu_ns(p);
	unjoined_head = NULL;
	unjoined_tail = &unjoined_head;
	while (u) {
		struct unjoined *n = u->next;
		int done = u->copy ? try_copy(&u->c, first) : try_kernel(&u->k, first);
		if (done || last || now - u->seen_ns >= UNJOINED_NS) {
			lost += !done && counts_as_dropped();
			free((char *)u->k.name);
			free(u);
		} else {
			u->next = NULL;
			*kt = u;
			kt = &u->next;
			left++;
		}
		u = n;
	}
	unjoined_head = keep;
	unjoined_tail = keep ? kt : &unjoined_head;
	n_unjoined = left;
	if (lost)
		preload_out_dropped(lost);
}

/* Around a buffer's records: the joins need the lock and every launch
 * published so far. */
static void cupti_begin(void *ctx)
{
	(void)ctx;
	pthread_mutex_lock(&preload_core.lock);
	preload_ring_drain_all_locked();
	retry_unjoined(0);
}

static void cupti_end(void *ctx)
{
	(void)ctx;
	pthread_mutex_unlock(&preload_core.lock);
}

const struct preload_cupti_sink preload_joins_sink = {
	.ctx = NULL,
	.begin = cupti_begin,
	.end = cupti_end,
	.external = cupti_external,
	.kernel = cupti_kernel,
	.copy = cupti_copy,
};

void preload_joins_finish(void)
{
	retry_unjoined(1);
}

void preload_joins_fork_child(void)
{
	/* the parent's table is leaked: the child's CUPTI is off */
	hmap_init(&J.corr);
}
