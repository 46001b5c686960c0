/*
 * timeline.c - replay of one recorded iteration (or several) with measured
 * and predicted durations.
 *
 * Model, per lane (the measured lane and one per target):
 *  - Each CPU thread replays its recorded calls at their recorded times
 *    plus its own shift; the shift changes only where the thread waited for
 *    the GPU (a synchronization or a blocking copy): it resumes when the
 *    awaited work ends on this lane, plus the wake-up delay it had in the
 *    measurement.  So a faster GPU shortens CPU waits and every later call
 *    of that thread moves earlier; CPU work between calls (Python, the
 *    framework) is unchanged, and other threads keep their own pace.
 *  - A kernel or copy starts no earlier than its launch (CPU time + shift)
 *    and no earlier than the end of the previous work on its stream, plus
 *    the gap it had in the measurement after the later of those two
 *    (launch latency, inter-kernel gap; negative for programmatic
 *    dependent launch overlap).  Its duration is the measured one times the
 *    configuration's predicted ratio (or the predicted time when it has no
 *    measurement; a configuration predicted less than in proportion to its
 *    measured time takes scale x measured^(1 - pull), timeline.h).
 *  - An event recorded on a stream marks the end of the work before it on
 *    that stream, per lane; a stream that waits for the event
 *    (cuStreamWaitEvent) starts its next work no earlier, and a CPU that
 *    synchronizes on it (cuEventSynchronize) resumes when that work ends.
 *    So work on one stream that needs another's (NCCL, side streams, the
 *    caching allocator) waits for it on every target.
 *  - Where the whole GPU is idle until a kernel starts, the GPU waited on
 *    the CPU; that stretch stays CPU time on every target, so a launch-bound
 *    program is not predicted to speed up on a faster GPU.
 *  - An iteration runs from its start boundary to the next one, or to its
 *    end boundary (a capture stop) or the end of the GPU work it launched,
 *    whichever is later; the last one ends with all the work (the later of
 *    the last CPU call and the last GPU work).  The iteration time is the
 *    total over iterations with work divided by their number; time outside
 *    iterations (warm-up, between a stop and the next start) is replayed
 *    but not counted.
 *  - A peer's work (a pipeline stage's bubble in a built trace: the
 *    microbatches the earlier stages run while this one waits) holds its
 *    stream like any kernel and so lengthens the iteration, but is not
 *    this GPU's kernel time, launches or configuration totals.
 * With the measured ratios (scale 1) every lane reproduces the measured
 * start and end times exactly: the replay of the origin GPU is the
 * measurement.
 *
 * The measured lane uses the recorded GPU times directly.  Memory: per
 * stream x lane and per configuration x lane, never per launch.
 */
#include "analyzer/timeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trace/hmap.h"

/* Dense indexes of 64-bit ids (streams, threads, events), each with one
 * value per lane: the common hash map from an id to its index, the last hit
 * cached (consecutive events mostly share a stream and a thread). */
struct tl_map {
	struct hmap index;        /* id -> index                               */
	double *vals;             /* n x nlanes                                */
	uint32_t n, cap;
	uint64_t last_id;
	uint32_t last;
	int have_last;
};

struct tl_lane {
	double busy;              /* end of the latest work on any stream      */
	double cpu_last;          /* latest CPU time reached                   */
	double win_start;         /* start of the open iteration               */
	double span;              /* total time of the closed iterations       */
	double count_from;        /* GPU idle time counts from here (the start
				   * of the current run of adjacent iterations) */
	double gpu_wait;          /* whole-GPU idle before launches, in window */
	double kernel_ns, copy_ns;
};

struct timeline {
	uint32_t ntargets, nlanes, nconfigs;
	const struct tl_kernel_pred *pred;
	const struct tl_target *targets;
	struct tl_lane *lanes;    /* nlanes; lane 0 measured                   */
	struct tl_map streams;    /* per stream x lane: end of its last work   */
	struct tl_map threads;    /* per thread x lane: predicted CPU time -
				   * recorded CPU time (the shift)             */
	struct tl_map events;     /* per event x lane: end of the work before
				   * its latest record on its stream           */
	double *acc;              /* nconfigs x nlanes                         */
	uint64_t *launches;       /* nconfigs                                  */
	int seen_boundary;        /* an iteration start or end was seen        */
	int open;                 /* inside an iteration (before any boundary:
				   * the whole trace is one)                   */
	int work_in_window;       /* the open iteration has kernels or copies  */
	uint32_t windows;         /* closed iterations with work               */
	int started;              /* any event seen                            */
	int64_t dep;              /* the stream the work being placed waited
				   * for (tl_infer_dep), -1 none               */
	double dep_gap;           /* its measured delay after that stream's end */
	timeline_placed_fn cb;    /* placement callback, NULL none             */
	void *cb_ctx;
};

static int tl_map_grow(struct tl_map *m, uint32_t nlanes)
{
	uint32_t cap = m->cap ? m->cap * 2 : 16;
	double *vals = realloc(m->vals, (size_t)cap * nlanes * sizeof(*vals));
	if (!vals)
		return -1;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

/* Row of id in m (its nlanes values), added with every value `init` when
 * new; NULL on allocation failure. */
static double *tl_map_row(struct tl_map *m, uint32_t nlanes, uint64_t id, double init,
			  int64_t *index)
{
	const uint64_t *at;
	uint32_t i;

	if (m->have_last && m->last_id == id) {
		i = m->last;
		goto found;
	}
	if ((at = hmap_get(&m->index, id))) {
		i = (uint32_t)*at;
		goto remember;
	}
	if (m->n == m->cap && tl_map_grow(m, nlanes) < 0)
		return NULL;
	if (hmap_put(&m->index, id, m->n) < 0)
		return NULL;
	i = m->n++;
	for (uint32_t l = 0; l < nlanes; l++)
		m->vals[(size_t)i * nlanes + l] = init;
remember:
	m->last_id = id;
	m->last = i;
	m->have_last = 1;
found:
	if (index)
		*index = i;
	return &m->vals[(size_t)i * nlanes];
}

/* Row of id in m, or NULL when id was never added. */
static const double *tl_map_find(const struct tl_map *m, uint32_t nlanes, uint64_t id)
{
	const uint64_t *at = hmap_get(&m->index, id);

	return at ? &m->vals[(size_t)*at * nlanes] : NULL;
}

static void tl_map_release(struct tl_map *m)
{
	hmap_release(&m->index);
	free(m->vals);
}

struct timeline *timeline_new(uint32_t ntargets, uint32_t nconfigs,
			      const struct tl_kernel_pred *pred, const struct tl_target *targets)
{
	struct timeline *tl = calloc(1, sizeof(*tl));

	if (!tl)
		return NULL;
	tl->ntargets = ntargets;
	tl->nlanes = ntargets + 1;
	tl->nconfigs = nconfigs;
	tl->pred = pred;
	tl->targets = targets;
	tl->lanes = calloc(tl->nlanes, sizeof(*tl->lanes));
	tl->nconfigs = 0;
	if (!tl->lanes || timeline_set_configs(tl, nconfigs, pred) < 0) {
		timeline_free(tl);
		return NULL;
	}
	return tl;
}

int timeline_set_configs(struct timeline *tl, uint32_t nconfigs, const struct tl_kernel_pred *pred)
{
	size_t n = nconfigs ? nconfigs : 1, old = tl->nconfigs;
	double *acc;
	uint64_t *l;

	if (nconfigs < tl->nconfigs)
		return -1;
	acc = realloc(tl->acc, n * tl->nlanes * sizeof(*acc));
	if (!acc)
		return -1;
	tl->acc = acc;
	l = realloc(tl->launches, n * sizeof(*l));
	if (!l)
		return -1;
	tl->launches = l;
	memset(acc + old * tl->nlanes, 0, (n - old) * tl->nlanes * sizeof(*acc));
	memset(l + old, 0, (n - old) * sizeof(*l));
	tl->nconfigs = nconfigs;
	tl->pred = pred;
	return 0;
}

void timeline_set_callback(struct timeline *tl, timeline_placed_fn fn, void *ctx)
{
	tl->cb = fn;
	tl->cb_ctx = ctx;
}

/* Reports one placement to the callback (only called when there is one). */
static void tl_emit(const struct timeline *tl, const struct tl_event *ev, uint32_t l,
		    double launch, double start, double end, double meas, int cpu_wait)
{
	struct tl_placed p;

	p.ev = ev;
	p.lane = l;
	p.launch_ns = launch;
	p.start_ns = start;
	p.end_ns = end;
	p.meas_ns = meas;
	p.cpu_wait = cpu_wait;
	p.counted = tl->open;
	tl->cb(tl->cb_ctx, &p);
}

void timeline_free(struct timeline *tl)
{
	if (!tl)
		return;
	free(tl->lanes);
	tl_map_release(&tl->streams);
	tl_map_release(&tl->threads);
	tl_map_release(&tl->events);
	free(tl->acc);
	free(tl->launches);
	free(tl);
}

/* Dense index of stream id (every lane idle when new); -1 on allocation
 * failure. */
static int64_t tl_stream(struct timeline *tl, uint64_t id)
{
	int64_t i;

	return tl_map_row(&tl->streams, tl->nlanes, id, -INFINITY, &i) ? i : -1;
}

/* The shifts (one per lane) of the thread that made ev's call. */
static double *tl_shift(struct timeline *tl, const struct tl_event *ev)
{
	return tl_map_row(&tl->threads, tl->nlanes, ev->thread, 0.0, NULL);
}

/* Start of the first iteration when the trace has no boundaries: the first
 * event's CPU time. */
static void tl_start(struct timeline *tl, double cpu_ns)
{
	if (tl->started)
		return;
	tl->started = 1;
	tl->open = 1;
	for (uint32_t l = 0; l < tl->nlanes; l++) {
		tl->lanes[l].win_start = cpu_ns;
		tl->lanes[l].count_from = cpu_ns;
		tl->lanes[l].cpu_last = cpu_ns;
		tl->lanes[l].busy = -INFINITY;
	}
}

/* Places work of duration dur on stream index s of lane l; returns its end
 * and sets *startp.  gap is the measured delay after max(launch, stream
 * end). */
static double tl_place(struct timeline *tl, uint32_t l, int64_t s, double launch, double gap,
		       double dur, int count, double *startp)
{
	struct tl_lane *ln = &tl->lanes[l];
	double *send = &tl->streams.vals[(size_t)s * tl->nlanes + l];
	double start = fmax(launch, *send) + gap;

	if (tl->dep >= 0)
		start = fmax(start, tl->streams.vals[(size_t)tl->dep * tl->nlanes + l] + tl->dep_gap);
	double end = start + dur;

	*startp = start;
	if (count && start > ln->busy)
		ln->gpu_wait += start - fmax(ln->busy, ln->count_from);
	*send = end;
	if (end > ln->busy)
		ln->busy = end;
	return end;
}

/*
 * Work that started long after both its launch and the end of its stream's
 * previous work waited for something else: in a trace without the event
 * records that name it, another stream's work (an event the stream waited
 * for, NCCL's side stream) or SMs that stream held.  The stream whose
 * latest work ended last before the start is taken as what it waited for,
 * so on a target the work starts when that stream's work ends there, plus
 * the measured delay after it; the rest of the gap stays as measured.
 */
#define TL_DEP_GAP_NS 20000.0
static double tl_infer_dep(struct timeline *tl, int64_t s, double meas_start, double gap)
{
	double best = -INFINITY;

	tl->dep = -1;
	if (!(gap > TL_DEP_GAP_NS))
		return gap;
	for (uint32_t i = 0; i < tl->streams.n; i++) {
		double e = tl->streams.vals[(size_t)i * tl->nlanes];

		if ((int64_t)i != s && e <= meas_start && e > best) {
			best = e;
			tl->dep = i;
		}
	}
	if (tl->dep < 0 || !(meas_start - best < gap)) {
		tl->dep = -1;
		return gap;
	}
	/* the delay after what it waited for also stands for its launch
	 * latency; the measured start is max(launch, stream, that) + it */
	tl->dep_gap = meas_start - best;
	return tl->dep_gap;
}

static void tl_cpu(struct tl_lane *ln, double t)
{
	if (t > ln->cpu_last)
		ln->cpu_last = t;
}

static int tl_work(struct timeline *tl, const struct tl_event *ev)
{
	int64_t s = tl_stream(tl, ev->stream);
	double *shift = tl_shift(tl, ev);
	double *send0, meas_start, meas_end, meas_dur, gap, start, end0;
	int count = tl->open;
	int kernel = ev->kind == TL_KERNEL;

	if (s < 0 || !shift)
		return -1;
	if (kernel && ev->config >= tl->nconfigs)
		return -1;
	if (count)
		tl->work_in_window = 1;
	send0 = &tl->streams.vals[(size_t)s * tl->nlanes];
	/* The measurement: recorded times, or (without them) the work starts
	 * when both its launch and its stream allow and lasts what the CPU
	 * waited for a blocking copy, else nothing. */
	if (ev->has_gpu) {
		meas_start = ev->start_ns;
		meas_end = ev->end_ns;
	} else {
		meas_start = fmax(ev->cpu_ns, *send0);
		meas_end = meas_start + (ev->est_ns > 0 ? ev->est_ns : 0);
	}
	meas_dur = meas_end - meas_start;
	gap = meas_start - fmax(ev->cpu_ns, *send0);
	gap = tl_infer_dep(tl, s, meas_start, gap);

	/* lane 0: measured */
	end0 = tl_place(tl, 0, s, ev->cpu_ns, gap, meas_dur, count, &start);
	tl_cpu(&tl->lanes[0], ev->cpu_ns);
	if (!kernel && ev->blocking)
		tl_cpu(&tl->lanes[0], fmax(ev->cpu_end_ns, ev->cpu_ns));
	if (tl->cb) {
		tl_emit(tl, ev, 0, ev->cpu_ns, start, end0, meas_dur, 0);
		if (!kernel && ev->blocking)
			tl_emit(tl, ev, 0, ev->cpu_ns, ev->cpu_ns, fmax(ev->cpu_end_ns, ev->cpu_ns),
				meas_dur, 1);
	}
	if (count && !ev->peer) {
		if (kernel) {
			tl->acc[(size_t)ev->config * tl->nlanes] += meas_dur;
			tl->launches[ev->config]++;
			tl->lanes[0].kernel_ns += meas_dur;
		} else {
			tl->lanes[0].copy_ns += meas_dur;
		}
	}

	for (uint32_t t = 0; t < tl->ntargets; t++) {
		uint32_t l = t + 1;
		struct tl_lane *ln = &tl->lanes[l];
		double launch = ev->cpu_ns + shift[l], dur, end;

		if (kernel) {
			const struct tl_kernel_pred *p = &tl->pred[(size_t)ev->config * tl->ntargets + t];
			if (!((ev->has_gpu || ev->est_ns > 0) && p->scale > 0))
				dur = p->ns;
			else if (p->pull > 0)
				dur = p->scale * pow(meas_dur, 1 - p->pull);
			else
				dur = meas_dur * p->scale;
		} else {
			dur = meas_dur * tl->targets[t].copy_scale[ev->copy];
		}
		end = tl_place(tl, l, s, launch, gap, dur, count, &start);
		tl_cpu(ln, launch);
		if (tl->cb)
			tl_emit(tl, ev, l, launch, start, end, meas_dur, 0);
		if (!kernel && ev->blocking) {
			/* The CPU resumes after the copy, with its measured wake-up delay. */
			double wake = ev->no_wake ? 0 : fmax(ev->cpu_end_ns, ev->cpu_ns) - meas_end;
			double resume = fmax(launch, end + wake);
			shift[l] = resume - fmax(ev->cpu_end_ns, ev->cpu_ns);
			tl_cpu(ln, resume);
			if (tl->cb)
				tl_emit(tl, ev, l, launch, launch, resume, meas_dur, 1);
		}
		if (count && !ev->peer) {
			if (kernel)
				tl->acc[(size_t)ev->config * tl->nlanes + l] += dur;
			if (kernel)
				ln->kernel_ns += dur;
			else
				ln->copy_ns += dur;
		}
	}
	return 0;
}

/* The end of the awaited work on lane l. */
static double tl_awaited(const struct timeline *tl, uint32_t l, int64_t s, int all)
{
	double t = tl->lanes[l].busy;

	if (!all && s >= 0)
		t = tl->streams.vals[(size_t)s * tl->nlanes + l];
	return isfinite(t) ? t : -INFINITY;
}

static int tl_sync(struct timeline *tl, const struct tl_event *ev)
{
	int all = ev->wait_all;
	int64_t s = -1;
	double cpu_end = fmax(ev->cpu_end_ns, ev->cpu_ns), aw_meas, wake;
	double *shift = tl_shift(tl, ev);

	if (!shift)
		return -1;
	if (!all) {
		s = tl_stream(tl, ev->stream);
		if (s < 0)
			return -1;
	}
	/* the event's recorded work, when it was recorded in the trace */
	const double *evt = ev->event ? tl_map_find(&tl->events, tl->nlanes, ev->event) : NULL;

	tl_cpu(&tl->lanes[0], cpu_end);
	if (ev->no_cpu_wait) {
		if (evt && s >= 0) {
			/* the stream's next work waits for the event's */
			double *send = &tl->streams.vals[(size_t)s * tl->nlanes];
			for (uint32_t l = 0; l < tl->nlanes; l++)
				send[l] = fmax(send[l], evt[l]);
		}
		for (uint32_t l = 1; l < tl->nlanes; l++)
			tl_cpu(&tl->lanes[l], ev->cpu_ns + shift[l]);
		return 0;
	}
	if (tl->cb)
		tl_emit(tl, ev, 0, ev->cpu_ns, ev->cpu_ns, cpu_end, 0, 1);
	aw_meas = evt ? (isfinite(evt[0]) ? evt[0] : -INFINITY) : tl_awaited(tl, 0, s, all);
	/* The wake-up delay: how long after the later of the call and the
	 * awaited work the CPU returned (may be negative with clock noise). */
	wake = ev->no_wake ? 0 : cpu_end - fmax(ev->cpu_ns, aw_meas);
	for (uint32_t l = 1; l < tl->nlanes; l++) {
		struct tl_lane *ln = &tl->lanes[l];
		double call = ev->cpu_ns + shift[l];
		double aw = evt ? (isfinite(evt[l]) ? evt[l] : -INFINITY) : tl_awaited(tl, l, s, all);
		double resume = fmax(call, fmax(call, aw) + wake);

		shift[l] = resume - cpu_end;
		tl_cpu(ln, resume);
		if (tl->cb)
			tl_emit(tl, ev, l, call, call, resume, 0, 1);
	}
	return 0;
}

/* ev records an event on its stream: on every lane the event stands for
 * the end of the stream's work so far (a later record of the same event
 * replaces it, as CUDA's does). */
static int tl_record(struct timeline *tl, const struct tl_event *ev)
{
	int64_t s = tl_stream(tl, ev->stream);
	double *shift = tl_shift(tl, ev);
	double *row;

	if (s < 0 || !shift)
		return -1;
	if (!ev->event)
		return 0;
	row = tl_map_row(&tl->events, tl->nlanes, ev->event, -INFINITY, NULL);
	if (!row)
		return -1;
	for (uint32_t l = 0; l < tl->nlanes; l++) {
		row[l] = tl->streams.vals[(size_t)s * tl->nlanes + l];
		tl_cpu(&tl->lanes[l], ev->cpu_ns + shift[l]);
	}
	return 0;
}

/* An iteration starts at ev: the first boundary drops what came before
 * (warm-up); a later one closes the open window. */
static int tl_boundary(struct timeline *tl, const struct tl_event *ev)
{
	int first = !tl->seen_boundary;
	double *shift = tl_shift(tl, ev);

	if (!shift)
		return -1;
	for (uint32_t l = 0; l < tl->nlanes; l++) {
		struct tl_lane *ln = &tl->lanes[l];
		double t = ev->cpu_ns + shift[l];

		if (first) {
			ln->span = 0;
			ln->gpu_wait = 0;
			ln->kernel_ns = 0;
			ln->copy_ns = 0;
		} else if (tl->open) {
			ln->span += t - ln->win_start;
		}
		if (first || !tl->open)
			ln->count_from = t;
		ln->win_start = t;
		tl_cpu(ln, t);
		if (tl->cb)
			tl_emit(tl, ev, l, t, t, t, 0, 0);
	}
	if (first) {
		memset(tl->acc, 0, (size_t)tl->nlanes * (tl->nconfigs ? tl->nconfigs : 1) *
				   sizeof(*tl->acc));
		memset(tl->launches, 0, (tl->nconfigs ? tl->nconfigs : 1) * sizeof(*tl->launches));
		tl->windows = 0;
	} else if (tl->open) {
		tl->windows += tl->work_in_window;
	}
	tl->seen_boundary = 1;
	tl->open = 1;
	tl->work_in_window = 0;
	return 0;
}

/* The open iteration ends at ev (a capture stop): it lasts until ev or
 * until the GPU work already launched ends, whichever is later; what
 * follows until the next start is replayed but not counted. */
static int tl_window_end(struct timeline *tl, const struct tl_event *ev)
{
	double *shift = tl_shift(tl, ev);

	if (!shift)
		return -1;
	for (uint32_t l = 0; l < tl->nlanes; l++) {
		struct tl_lane *ln = &tl->lanes[l];
		double t = ev->cpu_ns + shift[l];

		if (tl->open)
			ln->span += fmax(t, ln->busy) - ln->win_start;
		tl_cpu(ln, t);
	}
	if (tl->open)
		tl->windows += tl->work_in_window;
	tl->seen_boundary = 1;
	tl->open = 0;
	tl->work_in_window = 0;
	return 0;
}

int timeline_add(struct timeline *tl, const struct tl_event *ev)
{
	tl_start(tl, ev->cpu_ns);
	switch (ev->kind) {
	case TL_KERNEL:
	case TL_COPY:
		return tl_work(tl, ev);
	case TL_SYNC:
		return tl_sync(tl, ev);
	case TL_ITERATION:
		return tl_boundary(tl, ev);
	case TL_ITERATION_END:
		return tl_window_end(tl, ev);
	case TL_EVENT_RECORD:
		return tl_record(tl, ev);
	default:
		return -1;
	}
}

void timeline_finish(struct timeline *tl, struct tl_summary *measured, struct tl_summary *pred)
{
	uint32_t n = tl->windows + (tl->open && tl->work_in_window);

	if (n == 0)
		n = 1;
	for (uint32_t l = 0; l < tl->nlanes; l++) {
		struct tl_lane *ln = &tl->lanes[l];
		struct tl_summary *s = l == 0 ? measured : &pred[l - 1];
		double span = ln->span;

		memset(s, 0, sizeof(*s));
		if (!tl->started)
			continue;
		if (tl->open)   /* the last window ends with all the work */
			span += fmax(ln->cpu_last, ln->busy) - ln->win_start;
		s->span_ns = span > 0 ? span : 0;
		s->iterations = n;
		s->iteration_ns = s->span_ns / n;
		s->gpu_wait_cpu_ns = ln->gpu_wait / n;
		s->kernel_ns = ln->kernel_ns / n;
		s->copy_ns = ln->copy_ns / n;
	}
}

double timeline_config_ns(const struct timeline *tl, uint32_t c, uint32_t lane)
{
	return c < tl->nconfigs && lane < tl->nlanes ? tl->acc[(size_t)c * tl->nlanes + lane] : 0;
}

uint64_t timeline_config_launches(const struct timeline *tl, uint32_t c)
{
	return c < tl->nconfigs ? tl->launches[c] : 0;
}

/* The slowest GPU sets a synchronous step's pace.  Boards of one model
 * differ: "~5% MAMF spread between GPUs of one node is normal and the
 * slowest sets the pace" (training-stacks.md sec. 9, from ml-engineering's
 * MAMF notes: GPU Boost holds each board at the clock its own power and
 * temperature budget allows).  A step waits at its gradient reductions (and
 * every layer's tensor-parallel collectives, every pipeline boundary) for
 * the last of its n GPUs.  The GPU table's figures (the MAMF that tcgemm
 * rests on) are taken as the middle of a spread of s = 5 % and the n GPUs
 * as spread evenly over it: the slowest lies s / (n + 1) above its bottom,
 * s/2 (n - 1) / (n + 1) below the middle: 1.9 % for 8 GPUs, 2.4 % for 64,
 * 2.5 % at most.  The spread is the notes', not fitted. */
#define TL_GPU_SPREAD 0.05

double timeline_pace(uint32_t world_size)
{
	if (world_size <= 1)
		return 1;
	double n = world_size;
	return 1 - TL_GPU_SPREAD / 2 * (n - 1) / (n + 1);
}
