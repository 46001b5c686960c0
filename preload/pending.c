/*
 * pending.c - records waiting for their GPU times: kernels timed by
 * events, and with CUPTI kernels, graph replays, copies and sets.
 *
 * A FIFO list in drain order (events are harvested from its front), with
 * a map by sequence number for CUPTI reports that name their record, and
 * the reports that came before their record was drained (the GPU can
 * finish a kernel before the launching thread hands its entry over),
 * kept by sequence number until the record arrives.  List nodes are
 * recycled: a malloc/free per kernel made the allocator grow and trim its
 * heap continuously.
 *
 * Everything here runs under the writer lock.
 *
 * Must never: write a record twice or lose one that was drained (at the
 * end what is still pending is written without GPU times; only graph
 * replay placeholders, which are not records, are dropped).
 */
#include <stdlib.h>
#include <string.h>

#include "preload/recorder.h"

static struct {
	struct preload_pend *head, *tail;
	size_t n;
	struct hmap by_seq;            /* seq -> struct preload_pend (CUPTI)     */
	struct hmap orphans;           /* seq -> struct orphan list              */
	struct preload_pend *free_list;
	size_t nfree;
} P;

static struct preload_pend *pend_alloc(void)
{
	struct preload_pend *p = P.free_list;
	if (p) {
		P.free_list = p->next;
		P.nfree--;
		return p;
	}
	p = malloc(sizeof *p);
	if (p) {
		p->nodes = NULL;
		p->nnodes = p->capnodes = 0;
	}
	return p;
}

static void pend_release(struct preload_pend *p)
{
	free(p->nodes);
	p->nodes = NULL;
	p->nnodes = p->capnodes = 0;
	if (P.nfree >= 65536) {
		free(p);
		return;
	}
	p->next = P.free_list;
	P.free_list = p;
	P.nfree++;
}

static void pend_unlink(struct preload_pend *p)
{
	if (p->prev)
		p->prev->next = p->next;
	else
		P.head = p->next;
	if (p->next)
		p->next->prev = p->prev;
	else
		P.tail = p->prev;
	P.n--;
}

static uint64_t rec_seq(const struct trace_record *r)
{
	switch (r->type) {
	case TRACE_KERNEL: return r->u.kernel.seq;
	case TRACE_MEMCPY:
	case TRACE_MEMSET: return r->u.copy.seq;
	default: return 0;
	}
}

/* ---- reports that came first --------------------------------------------- */

struct orphan {
	struct preload_cupti_kernel k;
	struct orphan *next;
};

void preload_pend_orphan(uint64_t seq, const struct preload_cupti_kernel *k)
{
	struct orphan *o = malloc(sizeof *o);
	if (!o)
		return;
	o->k = *k;
	o->k.name = k->name ? strdup(k->name) : NULL;
	o->next = NULL;
	/* In report order: a graph's kernels keep their order. */
	struct orphan *head = preload_map_get(&P.orphans, seq), *t = head;
	while (t && t->next)
		t = t->next;
	if (t)
		t->next = o;
	else
		preload_map_put(&P.orphans, seq, o);
}

static void free_orphans(struct orphan *o)
{
	while (o) {
		struct orphan *n = o->next;
		free((char *)o->k.name);
		free(o);
		o = n;
	}
}

/* A record entering the pending table takes the reports kept for it. */
static void adopt_orphans(struct preload_pend *p, uint64_t seq)
{
	struct orphan *o = preload_map_get(&P.orphans, seq);
	if (!o)
		return;
	hmap_del(&P.orphans, seq);
	int done = 0;
	for (struct orphan *x = o; x && !done; x = x->next)
		done = preload_pend_join_kernel(p, &x->k);
	free_orphans(o);
}

/* ---- the table ------------------------------------------------------------ */

/* Kernel names of pending records: kept alongside (the pend holds only the
 * record) by interning at drain time. */
void preload_pend_add(struct preload_entry *e)
{
	struct preload_pend *p = pend_alloc();
	if (!p) {
		preload_out_write(&e->rec, e->fi);
		return;
	}
	if (e->rec.type == TRACE_KERNEL && e->fi && e->fi->name && preload_out_open() == 0)
		preload_out_name_kernel(&e->rec, e->fi);
	p->rec = e->rec;
	p->ev[0] = e->ev[0];
	p->ev[1] = e->ev[1];
	p->ev_slot = e->ev_slot;
	p->graph = e->graph;
	p->overtaken_ns = 0;
	p->copies_seen = 0;
	p->next = NULL;
	p->prev = P.tail;
	if (P.tail)
		P.tail->next = p;
	else
		P.head = p;
	P.tail = p;
	P.n++;
	if (preload_core.timing == TRACE_TIMING_CUPTI) {
		preload_map_put(&P.by_seq, rec_seq(&p->rec), p);
		if (p->rec.type == TRACE_KERNEL)
			adopt_orphans(p, rec_seq(&p->rec));
	}
}

struct preload_pend *preload_pend_head(void)
{
	return P.head;
}

struct preload_pend *preload_pend_by_seq(uint64_t seq)
{
	return preload_map_get(&P.by_seq, seq);
}

/* Writes p and forgets it. */
static void complete(struct preload_pend *p)
{
	hmap_del(&P.by_seq, rec_seq(&p->rec));
	pend_unlink(p);
	preload_out_write(&p->rec, NULL);
	pend_release(p);
}

int preload_pend_join_kernel(struct preload_pend *p, const struct preload_cupti_kernel *k)
{
	uint64_t s = preload_cupti_to_cpu_ns(k->start_ns), e = preload_cupti_to_cpu_ns(k->end_ns);
	if (!p->graph) {
		p->rec.u.kernel.start_ns = s;
		p->rec.u.kernel.end_ns = e;
		complete(p);
		return 1;
	}
	/* One kernel of a graph replay: a record of its own, from CUPTI's
	 * view, with a sequence number of its own; it keeps the replay's
	 * graph (its capture) and names the replay by its seq, which every
	 * kernel of that replay shares. */
	struct trace_record r = p->rec;
	struct trace_kernel *kr = &r.u.kernel;
	kr->replay = p->rec.u.kernel.seq;
	kr->seq = atomic_fetch_add(&preload_core.seq, 1);
	if (preload_out_open() < 0)
		return 0;
	kr->name = k->name ? preload_out_intern(k->name) : 0;
	for (int i = 0; i < 3; i++) {
		kr->grid[i] = k->grid[i];
		kr->block[i] = k->block[i];
		kr->cluster[i] = k->cluster[i];
	}
	kr->regs = k->regs;
	kr->static_smem = k->static_smem;
	kr->dyn_smem = k->dyn_smem;
	kr->start_ns = s;
	kr->end_ns = e;
	preload_out_write(&r, NULL);
	return 0;
}

/* A batch of copies (cuMemcpyBatchAsync) comes as one or more reports
 * under its call's correlation id, each counting the copies it covers
 * (CUPTI groups a batch's copies as it sees fit): the record runs from the
 * first start to the last end and is written once every copy of it was
 * reported.  A CUPTI that does not count (before 12.8) counts each report
 * as one; a batch whose reports fall short is written with what came when
 * it is given up or at the end. */
void preload_pend_join_copy(struct preload_pend *p, const struct preload_cupti_copy *c)
{
	struct trace_copy *r = &p->rec.u.copy;
	uint64_t s = preload_cupti_to_cpu_ns(c->start_ns), e = preload_cupti_to_cpu_ns(c->end_ns);
	if (p->copies_seen == 0 || s < r->start_ns)
		r->start_ns = s;
	if (p->copies_seen == 0 || e > r->end_ns)
		r->end_ns = e;
	p->copies_seen += c->copies ? c->copies : 1;
	if (p->copies_seen >= (r->copies ? r->copies : 1))
		complete(p);
}

void preload_pend_give_up(struct preload_pend *p)
{
	complete(p);
}

void preload_pend_drop(struct preload_pend *p)
{
	hmap_del(&P.by_seq, rec_seq(&p->rec));
	pend_unlink(p);
	pend_release(p);
}

/* Stops after a run of 64 unfinished pairs (each query is a driver call
 * made under the writer lock); the next harvest takes up from the front.
 * In the relaxed capture mode: a graph may be captured meanwhile
 * (events.c). */
void preload_pend_harvest(int wait)
{
	int misses = 0, mode = P.head ? preload_events_relax() : -1;
	for (struct preload_pend *p = P.head, *n; p && misses < 64; p = n) {
		n = p->next;
		if (!p->ev[0])
			continue;
		uint64_t s = 0, e = 0;
		int r = preload_events_resolve(p->ev, p->ev_slot, wait, &s, &e);
		if (r == 0) {
			misses++;
			continue;
		}
		misses = 0;
		if (r > 0) {
			p->rec.u.kernel.start_ns = s;
			p->rec.u.kernel.end_ns = e;
		}
		preload_events_put(p->ev, p->ev_slot);
		pend_unlink(p);
		preload_out_write(&p->rec, NULL);
		pend_release(p);
	}
	preload_events_unrelax(mode);
}

void preload_pend_finish(void)
{
	/* What is still pending has no GPU times (a batch of copies whose
	 * reports counted fewer copies than it holds: those that came). */
	for (struct preload_pend *p = P.head, *n; p; p = n) {
		n = p->next;
		if (!p->graph)
			preload_out_write(&p->rec, NULL);
		pend_release(p);
	}
	P.head = P.tail = NULL;
	P.n = 0;
	hmap_release(&P.by_seq);
	uint32_t pos = 0;
	for (const struct hmap_slot *o; (o = hmap_next(&P.orphans, &pos)) != NULL;)
		free_orphans((struct orphan *)(uintptr_t)o->val);
	hmap_release(&P.orphans);
}

void preload_pend_fork_child(void)
{
	/* the parent's nodes and maps are leaked, not freed: cheap, and
	 * nothing of them may reach the child's trace */
	P.head = P.tail = NULL;
	P.n = 0;
	hmap_init(&P.by_seq);
	hmap_init(&P.orphans);
}
