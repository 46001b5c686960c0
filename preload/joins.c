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
 * A report carries the correlation id of the API call that started its
 * work.  Three ways lead from it to our record, most certain first:
 *   correlation  the call was our hook's own driver call (cuBLAS's, Triton's
 *                launches): CUPTI's external correlation record names our
 *                sequence number;
 *   call         the call was a runtime call (PyTorch's launches): its API
 *                record gives the call's [start, end], and our hook recorded
 *                the launch inside it, so the launch of the same kernel on
 *                our clock within that span is the one (not yet seen on a
 *                GPU: in the one run that had it, on an H200, no runtime
 *                record came, docs/recorder.md);
 *   kernel       neither is known (an older CUPTI, the runtime's records
 *                refused or late): the earliest pending launch of the same
 *                kernel on the stream that no later launch has overtaken
 *                (on an H200, where CUPTI lost 121 reports of a GPT-2 step's
 *                3291, each lost report had shifted every later launch of
 *                its kernel by one: iteration 0's backward took iteration
 *                1's times).
 * The count of each is noted at the end (SURFER_VERBOSE).
 *
 * Must never: be called by cupti.c except through preload_joins_sink;
 * join a report to a launch made after the reported kernel started, or to
 * one outside the call that named it; hold a report forever (a bounded
 * list, 200 ms, then counted as dropped).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "preload/recorder.h"

static struct {
	struct hmap corr;             /* CUPTI correlation id -> our seq         */
	struct hmap call_start;       /* runtime call's correlation id -> its    */
	struct hmap call_end;         /* start and end, CUPTI's clock (ns)       */
	struct hmap stream_start;     /* stream -> start of its joined launch    */
	struct hmap stream_launch;    /* that started last, and when it was      */
				      /* launched (our clock, ns)                */
	uint64_t by_correlation, by_call, by_kernel, not_recorded, overtaken, cupti_lost, given_up;
} J;

/* A runtime call's span and our launch time against it.  The hook records
 * its launch before it calls the runtime, so a call's own launch is at or
 * before the call's start, and after the call's end only as far as the
 * clocks' reading is off (cupti.c keeps the tightest reading:
 * preload_cupti_clock_err_ns(), plus CALL_LATE_NS for the clock's own
 * granularity); a launch later than that is the thread's next one or
 * another thread's, never this one.  Before the call the hook's own time
 * and whatever delays the thread inside it: one descheduled there (beside
 * two busy loops) launched 5.8 ms after it recorded the launch.  With a
 * 20 us slack on both sides, as before, its report went to the next
 * launch and each later report to the launch after its own (shim_test's
 * cupti-runtime-rewindow, its launches 0.4 us apart).  CALL_EARLY_NS,
 * four times that delay, bounds how far back a report looks: a launch
 * left waiting longer stays untimed rather than take the report of a
 * later call (a window's last launch whose report CUPTI lost, and the
 * same kernel launched again after the window).  Earlier candidates had
 * their reports joined first; the nearest before the call wins (another
 * thread's launch of the same kernel inside the span is told apart by
 * distance: the nearest wins). */
#define CALL_EARLY_NS 25000000u
#define CALL_LATE_NS 1000u
/* A report whose call ended this recently may name a launch whose hook has
 * not handed its record over yet (not on a real GPU, where the runtime's
 * record is written after the hook returned, but a fake CUPTI that writes
 * it inside the hook can be read in between, and a loaded machine can
 * hold the hook there for milliseconds): retried, not given up, as long
 * as any waiting report (UNJOINED_NS). */
#define CALL_RECENT_NS UNJOINED_NS

/* How long a report waits for its launch to be handed over, ns. */
#define UNJOINED_NS 200000000u

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

static void cupti_call(void *ctx, uint32_t corr, uint64_t start_ns, uint64_t end_ns)
{
	(void)ctx;
	if (J.call_start.count > (1u << 20)) {
		hmap_release(&J.call_start);
		hmap_release(&J.call_end);
	}
	if (corr) {
		hmap_put(&J.call_start, corr, start_ns);
		hmap_put(&J.call_end, corr, end_ns);
	}
}

/* Where a report's launch may have been recorded: inside the runtime call
 * its correlation names (known = 1: lo..hi on our clock, widened by the
 * slack; at = the call's own span), else anywhere (known = 0); and on its
 * stream not before overtaken_ns (our clock; 0: anywhere): a launch made
 * before it was overtaken (ran()). */
struct span {
	int known;
	uint64_t lo, hi, at_lo, at_hi;
	uint64_t overtaken_ns;
};

static struct span call_span(uint32_t corr)
{
	struct span s = { 0, 0, UINT64_MAX, 0, UINT64_MAX, 0 };
	const uint64_t *a = hmap_get(&J.call_start, corr), *b = hmap_get(&J.call_end, corr);
	if (!a || !b || !preload_cupti_clock_known())
		return s;
	s.known = 1;
	s.at_lo = preload_cupti_to_cpu_ns(*a);
	s.at_hi = preload_cupti_to_cpu_ns(*b);
	s.lo = s.at_lo > CALL_EARLY_NS ? s.at_lo - CALL_EARLY_NS : 0;
	s.hi = s.at_hi + preload_cupti_clock_err_ns() + CALL_LATE_NS;
	return s;
}

/* How far t is from the call's own span (0 inside), a launch recorded
 * after the call ended (within the clocks' error: call_span()) behind
 * every one recorded before it: by distance alone, a launch delayed
 * inside the hook (a loaded machine) lost to the next launch of a tight
 * loop, and shim_test's cupti-runtime-rewindow beside two busy loops gave
 * 14-34 of 150 kernels the report of the launch before theirs. */
static uint64_t off_call(const struct span *s, uint64_t t)
{
	return t < s->at_lo ? s->at_lo - t : t > s->at_hi ? t - s->at_hi + CALL_EARLY_NS : 0;
}

/* CUPTI's own count of records it dropped: said once, and counted as
 * dropped records where every launch is recorded (no windows). */
static void cupti_lost(void *ctx, size_t n)
{
	(void)ctx;
	if (!J.cupti_lost)
		preload_warn("CUPTI dropped activity records: some kernels will have no GPU times");
	J.cupti_lost += n;
	if (counts_as_dropped())
		preload_out_dropped(n);
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

/*
 * A stream runs its work in launch order.  Per stream, the joined launch
 * that started last and when it was launched: a pending launch made before
 * it was run before it, so a report that started after it is not that
 * launch's, whose own report was lost.  CUPTI lost reports right after its
 * start on an H200 (GPT-2's first backward, 121 kernels), and without this
 * rule each lost report gave every later launch of its kernel on the
 * stream the next one's report (the next iteration's, there).
 */
static uint64_t pend_stream(const struct preload_pend *p)
{
	return p->rec.type == TRACE_KERNEL ? p->rec.u.kernel.stream : p->rec.u.copy.stream;
}

/* p is about to be joined to a report that started at start_ns. */
static void ran(const struct preload_pend *p, uint64_t start_ns)
{
	uint64_t st = pend_stream(p);
	const uint64_t *last = hmap_get(&J.stream_start, st);
	if (!last || start_ns > *last) {
		hmap_put(&J.stream_start, st, start_ns);
		hmap_put(&J.stream_launch, st, pend_cpu_ns(p));
	}
}

/* Where the launch of a report on stream st that started at start_ns (our
 * clock) may have been recorded: call_span() of its correlation, and on st
 * after the launch of the stream's last-started joined work if that
 * started before it (every launch made before that one was overtaken). */
static struct span report_span(uint32_t corr, uint64_t st, uint64_t start_ns)
{
	struct span c = call_span(corr);
	const uint64_t *s = hmap_get(&J.stream_start, st), *l = hmap_get(&J.stream_launch, st);
	if (start_ns && s && l && *s < start_ns)
		c.overtaken_ns = *l;
	return c;
}

/* Whether p, a candidate, goes before q: inside a known call the one
 * nearer the call, else the one launched first. */
static int before(const struct span *c, const struct preload_pend *p, const struct preload_pend *q)
{
	uint64_t tp = pend_cpu_ns(p), tq = pend_cpu_ns(q);
	if (c->known) {
		uint64_t dp = off_call(c, tp), dq = off_call(c, tq);
		if (dp != dq)
			return dp < dq;
	}
	return tp < tq;
}

/* Keeps p if it goes before the candidates so far: *same among those on
 * the report's stream, *any among all.  Inside a known call only, and
 * not when overtaken on the report's stream. */
static void consider(const struct span *c, struct preload_pend *p, int on_stream, struct preload_pend **same,
		     struct preload_pend **any)
{
	uint64_t t = pend_cpu_ns(p);
	if (t < c->lo || t > c->hi)
		return;
	if (on_stream && !p->graph && t < c->overtaken_ns) {
		J.overtaken++;
		return;
	}
	if (on_stream && (!*same || before(c, p, *same)))
		*same = p;
	if (!*any || before(c, p, *any))
		*any = p;
}

/* The launch k reports: the earliest-launched pending one of the same
 * kernel on its stream, else (a stream the driver and CUPTI number apart)
 * on any, never one launched after k started.  Earliest by launch time,
 * not by the pending list's order: threads' launches are published in
 * batches, so PyTorch's autograd thread's launches can enter the list
 * after later ones of the main thread on the same stream. */
static struct preload_pend *match_kernel(const struct preload_cupti_kernel *k, const struct span *c)
{
	if (k->graph_id || !k->name || preload_out_open() < 0)
		return NULL;
	uint32_t name = preload_out_intern(k->name);
	uint64_t limit = launched_by(k->start_ns);
	struct preload_pend *same = NULL, *any = NULL;
	for (struct preload_pend *p = preload_pend_head(); p && name; p = p->next)
		if (p->rec.type == TRACE_KERNEL && !p->graph && p->rec.u.kernel.cpu_ns <= limit &&
		    same_kernel(&p->rec.u.kernel, name, k))
			consider(c, p, p->rec.u.kernel.stream == k->stream, &same, &any);
	return same ? same : any;
}

/* A graph replay's kernel no correlation names: the earliest-launched
 * pending replay on its stream (else on any) that was launched before it
 * started and has not had this graph node yet.  The replays launched
 * before that one on its stream have run all their nodes: released. */
static struct preload_pend *match_graph(const struct preload_cupti_kernel *k, const struct span *c)
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
			consider(c, p, p->rec.u.kernel.stream == k->stream, &same, &any);
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
static struct preload_pend *match_copy(const struct preload_cupti_copy *c, const struct span *call)
{
	uint64_t limit = launched_by(c->start_ns);
	struct preload_pend *same = NULL, *any = NULL;
	for (struct preload_pend *p = preload_pend_head(); p; p = p->next)
		if (p->rec.type == (c->memset ? TRACE_MEMSET : TRACE_MEMCPY) &&
		    p->rec.u.copy.bytes == c->bytes && p->rec.u.copy.cpu_ns <= limit)
			consider(call, p, p->rec.u.copy.stream == c->stream, &same, &any);
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

/* The runtime call named by corr was matched (or is known to have no
 * recorded launch): its span is no longer needed, except a graph
 * launch's, which all of the graph's kernels name. */
static void call_done(uint32_t corr)
{
	hmap_del(&J.call_start, corr);
	hmap_del(&J.call_end, corr);
}

/* A report whose runtime call is known and holds no recorded launch: the
 * launch was made outside a capture window (0: its call ended so recently
 * that the launching hook may still hold the record: retried). */
static int not_recorded(const struct span *c, uint32_t corr, int graph)
{
	if (preload_now_ns() - c->at_hi < CALL_RECENT_NS)
		return 0;
	J.not_recorded++;
	if (counts_as_dropped())
		preload_out_dropped(1);
	if (!graph)
		call_done(corr);
	return 1;
}

/* 1 when the report is settled: joined to its launch (now, or as an
 * orphan kept by seq), or known to have none.  first: no pending launch
 * was made before it, so a report whose kernel started earlier (or whose
 * call ended earlier) needs no search (0: search). */
static int try_kernel(const struct preload_cupti_kernel *k, uint64_t first, int guess)
{
	const uint64_t *ext = hmap_get(&J.corr, k->correlation);
	uint64_t seq = ext ? *ext : 0;
	struct preload_pend *p = seq ? preload_pend_by_seq(seq) : NULL;
	uint64_t start = preload_cupti_to_cpu_ns(k->start_ns);
	if (p && p->rec.type == TRACE_KERNEL) {
		J.by_correlation++;
		if (!p->graph)
			ran(p, start);
		preload_pend_join_kernel(p, k);
		return 1;
	}
	if (seq) {
		J.by_correlation++;
		preload_pend_orphan(seq, k);
		return 1;
	}
	struct span c = report_span(k->correlation, k->stream, start);
	if (c.known) {
		p = c.hi < first ? NULL : k->graph_id ? match_graph(k, &c) : match_kernel(k, &c);
		if (!p)
			return not_recorded(&c, k->correlation, k->graph_id != 0);
		J.by_call++;
		if (!k->graph_id) {
			call_done(k->correlation);
			ran(p, start);
		}
		preload_pend_join_kernel(p, k);
		return 1;
	}
	if (!guess || launched_by(k->start_ns) < first)
		return 0;
	if ((p = k->graph_id ? match_graph(k, &c) : match_kernel(k, &c)) != NULL) {
		J.by_kernel++;
		if (!k->graph_id)
			ran(p, start);
		preload_pend_join_kernel(p, k);
		return 1;
	}
	return 0;
}

static int try_copy(const struct preload_cupti_copy *c, uint64_t first, int guess)
{
	const uint64_t *ext = hmap_get(&J.corr, c->correlation);
	uint64_t seq = ext ? *ext : 0;
	struct preload_pend *p = seq ? preload_pend_by_seq(seq) : NULL;
	uint64_t start = preload_cupti_to_cpu_ns(c->start_ns);
	if (p && (p->rec.type == TRACE_MEMCPY || p->rec.type == TRACE_MEMSET)) {
		J.by_correlation++;
		ran(p, start);
		preload_pend_join_copy(p, c);
		return 1;
	}
	if (seq)
		return 0;
	struct span call = report_span(c->correlation, c->stream, start);
	if (call.known) {
		p = call.hi < first ? NULL : match_copy(c, &call);
		if (!p)
			return not_recorded(&call, c->correlation, 0);
		J.by_call++;
		call_done(c->correlation);
		ran(p, start);
		preload_pend_join_copy(p, c);
		return 1;
	}
	if (!guess || launched_by(c->start_ns) < first || !(p = match_copy(c, &call)))
		return 0;
	J.by_kernel++;
	ran(p, start);
	preload_pend_join_copy(p, c);
	return 1;
}

/* With the runtime's records on, a report neither correlation names yet
 * waits for them before it is matched by kernel and stream: CUPTI keeps
 * API records in buffers of their own, which can come after the kernels'
 * (the external correlation records did on an H200).  DEFER_NS after it
 * came, or at the end, it is matched by kernel and stream. */
#define DEFER_NS 50000000u
static int guess_now(void)
{
	return !preload_cupti_runtime_records() || !preload_cupti_clock_known();
}

static void cupti_kernel(void *ctx, const struct preload_cupti_kernel *k)
{
	(void)ctx;
	if (!try_kernel(k, 0, guess_now()))
		keep_unjoined(k, NULL);
}

static void cupti_copy(void *ctx, const struct preload_cupti_copy *c)
{
	(void)ctx;
	if (!try_copy(c, 0, guess_now()))
		keep_unjoined(NULL, c);
}

/* Retries the waiting reports.  A launch still unpublished is a call in
 * flight when its report came (enqueued, not yet returned), handed over
 * microseconds later, so a report unmatched UNJOINED_NS after it came (or
 * at the end), by correlation, call or kernel and stream, is given up
 * (UNJOINED_NS is defined at the top).  Before a buffer's records (pre)
 * a report neither guesses by kernel and stream past DEFER_NS nor is
 * given up: the buffer may hold the runtime call it waits for, which a
 * loaded machine can hand over later than DEFER_NS, or UNJOINED_NS,
 * after the kernels' buffer (shim_test's cupti-runtime-late joined 15 of
 * 16 reports by their calls so, the 16th given up just before the
 * buffer that named its call); after the records (cupti_end) it may. */
static void retry_unjoined(int last, int pre)
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
		int guess = last || guess_now() || (!pre && now - u->seen_ns >= DEFER_NS);
		int done = u->copy ? try_copy(&u->c, first, guess) : try_kernel(&u->k, first, guess);
		if (done || last || (!pre && now - u->seen_ns >= UNJOINED_NS)) {
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
 * published so far.  The reports still waiting are retried before the
 * buffer's (they are older: taken first, they keep the stream's order)
 * and again after its correlations and runtime calls are known. */
static void cupti_begin(void *ctx)
{
	(void)ctx;
	pthread_mutex_lock(&preload_core.lock);
	preload_ring_drain_all_locked();
	retry_unjoined(0, 1);
}

/*
 * A pending launch that a launch made after it on its stream has overtaken
 * (ran()) ran before that one, whose report came: its own report was lost
 * (CUPTI lost 121 of a GPT-2 step's 3291 on an H200), or waits among the
 * unjoined ones, which came before the overtaking report did.  Nothing
 * joins it by kernel and stream any more (consider()), yet it stayed
 * pending to the end: in a long run (a server recorded for hours) the
 * table grew by every lost report, and every report's search walked them
 * all.  GIVE_UP_NS after it was first seen overtaken, with no report
 * waiting from before that, it is written without GPU times, as the end
 * would have written it (shim_test.sh cupti-lost-long).  The wait is five
 * times the 200 ms a report waits for its launch: the runtime's call
 * records, which a report may wait for, came 300 ms late once on a loaded
 * machine (cupti-runtime-later).
 */
#define GIVE_UP_NS 1000000000u
static void give_up_overtaken(void)
{
	uint64_t now = preload_now_ns();
	uint64_t waiting_since = unjoined_head ? unjoined_head->seen_ns : UINT64_MAX;
	for (struct preload_pend *p = preload_pend_head(), *n; p; p = n) {
		n = p->next;
		if (p->graph)
			continue;
		const uint64_t *l = hmap_get(&J.stream_launch, pend_stream(p));
		if (!l || *l <= pend_cpu_ns(p))
			continue;
		if (!p->overtaken_ns) {
			p->overtaken_ns = now;
		} else if (now - p->overtaken_ns >= GIVE_UP_NS && waiting_since > p->overtaken_ns) {
			J.given_up++;
			preload_pend_give_up(p);
		}
	}
}

static void cupti_end(void *ctx)
{
	(void)ctx;
	retry_unjoined(0, 0);
	give_up_overtaken();
	pthread_mutex_unlock(&preload_core.lock);
}

const struct preload_cupti_sink preload_joins_sink = {
	.ctx = NULL,
	.begin = cupti_begin,
	.end = cupti_end,
	.external = cupti_external,
	.call = cupti_call,
	.lost = cupti_lost,
	.kernel = cupti_kernel,
	.copy = cupti_copy,
};

void preload_joins_finish(void)
{
	retry_unjoined(1, 0);
	preload_note("CUPTI reports joined: %llu by correlation, %llu by runtime call, %llu by kernel and "
		     "stream; %llu of launches not recorded (outside the windows); %llu times a launch "
		     "was passed over as overtaken; %llu written untimed once overtaken; %llu dropped by "
		     "CUPTI; %llu handed over unfinished",
		     (unsigned long long)J.by_correlation, (unsigned long long)J.by_call,
		     (unsigned long long)J.by_kernel, (unsigned long long)J.not_recorded,
		     (unsigned long long)J.overtaken, (unsigned long long)J.given_up,
		     (unsigned long long)J.cupti_lost, preload_cupti_unfinished());
}

void preload_joins_fork_child(void)
{
	/* the parent's tables are leaked: the child's CUPTI is off */
	hmap_init(&J.corr);
	hmap_init(&J.call_start);
	hmap_init(&J.call_end);
	hmap_init(&J.stream_start);
	hmap_init(&J.stream_launch);
	J.by_correlation = J.by_call = J.by_kernel = J.not_recorded = J.overtaken = J.cupti_lost = 0;
	J.given_up = 0;
}
