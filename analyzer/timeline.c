/*
 * timeline.c - replay of one recorded iteration (or several) with measured
 * and predicted durations.
 *
 * Model, per lane (the measured lane and one per target):
 *  - The CPU replays its recorded calls at their recorded times plus a
 *    shift; the shift changes only where the CPU waited for the GPU (a
 *    synchronization or a blocking copy): it resumes when the awaited work
 *    ends on this lane, plus the wake-up delay it had in the measurement.
 *    So a faster GPU shortens CPU waits and every later launch moves
 *    earlier; CPU work between calls (Python, the framework) is unchanged.
 *  - A kernel or copy starts no earlier than its launch (CPU time + shift)
 *    and no earlier than the end of the previous work on its stream, plus
 *    the gap it had in the measurement after the later of those two
 *    (launch latency, inter-kernel gap; negative for programmatic
 *    dependent launch overlap).  Its duration is the measured one times the
 *    configuration's predicted ratio (or the predicted time when it has no
 *    measurement).
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

struct tl_lane {
	double shift;             /* predicted CPU time - recorded CPU time    */
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
	/* streams: open addressing over ids, dense indexes */
	uint64_t *stream_ids;     /* nstreams                                  */
	uint32_t *stream_slots;   /* cap_slots, index + 1, 0 empty             */
	uint32_t nstreams, cap_streams, cap_slots;
	double *stream_end;       /* nstreams x nlanes                         */
	double *acc;              /* nconfigs x nlanes                         */
	uint64_t *launches;       /* nconfigs                                  */
	int seen_boundary;        /* an iteration start or end was seen        */
	int open;                 /* inside an iteration (before any boundary:
				   * the whole trace is one)                   */
	int work_in_window;       /* the open iteration has kernels or copies  */
	uint32_t windows;         /* closed iterations with work               */
	int started;              /* any event seen                            */
	uint64_t last_stream;
	uint32_t last_index;
	int have_last;
};

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

void timeline_free(struct timeline *tl)
{
	if (!tl)
		return;
	free(tl->lanes);
	free(tl->stream_ids);
	free(tl->stream_slots);
	free(tl->stream_end);
	free(tl->acc);
	free(tl->launches);
	free(tl);
}

static uint32_t tl_hash(uint64_t id, uint32_t mask)
{
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdULL;
	id ^= id >> 33;
	return (uint32_t)id & mask;
}

static int tl_grow_streams(struct timeline *tl)
{
	uint32_t cap = tl->cap_streams ? tl->cap_streams * 2 : 16;
	uint32_t slots = cap * 2;
	uint64_t *ids = realloc(tl->stream_ids, cap * sizeof(*ids));
	double *ends;
	uint32_t *sl;

	if (!ids)
		return -1;
	tl->stream_ids = ids;
	ends = realloc(tl->stream_end, (size_t)cap * tl->nlanes * sizeof(*ends));
	if (!ends)
		return -1;
	tl->stream_end = ends;
	sl = calloc(slots, sizeof(*sl));
	if (!sl)
		return -1;
	for (uint32_t i = 0; i < tl->nstreams; i++) {
		uint32_t h = tl_hash(ids[i], slots - 1);
		while (sl[h])
			h = (h + 1) & (slots - 1);
		sl[h] = i + 1;
	}
	free(tl->stream_slots);
	tl->stream_slots = sl;
	tl->cap_streams = cap;
	tl->cap_slots = slots;
	return 0;
}

/* Dense index of stream id, adding it (with every lane idle) if new; -1 on
 * allocation failure. */
static int64_t tl_stream(struct timeline *tl, uint64_t id)
{
	uint32_t h;

	if (tl->have_last && tl->last_stream == id)
		return tl->last_index;
	if (tl->nstreams == tl->cap_streams && tl_grow_streams(tl) < 0)
		return -1;
	h = tl_hash(id, tl->cap_slots - 1);
	while (tl->stream_slots[h]) {
		uint32_t i = tl->stream_slots[h] - 1;
		if (tl->stream_ids[i] == id)
			goto found;
		h = (h + 1) & (tl->cap_slots - 1);
	}
	tl->stream_slots[h] = tl->nstreams + 1;
	tl->stream_ids[tl->nstreams] = id;
	for (uint32_t l = 0; l < tl->nlanes; l++)
		tl->stream_end[(size_t)tl->nstreams * tl->nlanes + l] = -INFINITY;
	tl->nstreams++;
	h = tl->stream_slots[h] - 1;
	tl->last_stream = id;
	tl->last_index = h;
	tl->have_last = 1;
	return h;
found:
	tl->last_stream = id;
	tl->last_index = tl->stream_slots[h] - 1;
	tl->have_last = 1;
	return tl->last_index;
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

/* Places work of duration dur on stream index s of lane l; returns its end.
 * gap is the measured delay after max(launch, stream end). */
static double tl_place(struct timeline *tl, uint32_t l, int64_t s, double launch, double gap,
		       double dur, int count)
{
	struct tl_lane *ln = &tl->lanes[l];
	double *send = &tl->stream_end[(size_t)s * tl->nlanes + l];
	double start = fmax(launch, *send) + gap;
	double end = start + dur;

	if (count && start > ln->busy)
		ln->gpu_wait += start - fmax(ln->busy, ln->count_from);
	*send = end;
	if (end > ln->busy)
		ln->busy = end;
	return end;
}

static void tl_cpu(struct tl_lane *ln, double t)
{
	if (t > ln->cpu_last)
		ln->cpu_last = t;
}

static int tl_work(struct timeline *tl, const struct tl_event *ev)
{
	int64_t s = tl_stream(tl, ev->stream);
	double *send0, meas_start, meas_end, meas_dur, gap;
	int count = tl->open;
	int kernel = ev->kind == TL_KERNEL;

	if (s < 0)
		return -1;
	if (kernel && ev->config >= tl->nconfigs)
		return -1;
	if (count)
		tl->work_in_window = 1;
	send0 = &tl->stream_end[(size_t)s * tl->nlanes];
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

	/* lane 0: measured */
	tl_place(tl, 0, s, ev->cpu_ns, gap, meas_dur, count);
	tl_cpu(&tl->lanes[0], ev->cpu_ns);
	if (!kernel && ev->blocking)
		tl_cpu(&tl->lanes[0], fmax(ev->cpu_end_ns, ev->cpu_ns));
	if (count) {
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
		double launch = ev->cpu_ns + ln->shift, dur, end;

		if (kernel) {
			const struct tl_kernel_pred *p = &tl->pred[(size_t)ev->config * tl->ntargets + t];
			dur = ((ev->has_gpu || ev->est_ns > 0) && p->scale > 0) ? meas_dur * p->scale
										 : p->ns;
		} else {
			dur = meas_dur * tl->targets[t].copy_scale[ev->copy];
		}
		end = tl_place(tl, l, s, launch, gap, dur, count);
		tl_cpu(ln, launch);
		if (!kernel && ev->blocking) {
			/* The CPU resumes after the copy, with its measured wake-up delay. */
			double wake = ev->no_wake ? 0 : fmax(ev->cpu_end_ns, ev->cpu_ns) - meas_end;
			double resume = fmax(launch, end + wake);
			ln->shift = resume - fmax(ev->cpu_end_ns, ev->cpu_ns);
			tl_cpu(ln, resume);
		}
		if (count) {
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
		t = tl->stream_end[(size_t)s * tl->nlanes + l];
	return isfinite(t) ? t : -INFINITY;
}

static int tl_sync(struct timeline *tl, const struct tl_event *ev)
{
	int all = ev->wait_all;
	int64_t s = -1;
	double cpu_end = fmax(ev->cpu_end_ns, ev->cpu_ns), aw_meas, wake;

	if (!all) {
		s = tl_stream(tl, ev->stream);
		if (s < 0)
			return -1;
	}
	tl_cpu(&tl->lanes[0], cpu_end);
	if (ev->no_cpu_wait) {
		for (uint32_t l = 1; l < tl->nlanes; l++)
			tl_cpu(&tl->lanes[l], ev->cpu_ns + tl->lanes[l].shift);
		return 0;
	}
	aw_meas = tl_awaited(tl, 0, s, all);
	/* The wake-up delay: how long after the later of the call and the
	 * awaited work the CPU returned (may be negative with clock noise). */
	wake = ev->no_wake ? 0 : cpu_end - fmax(ev->cpu_ns, aw_meas);
	for (uint32_t l = 1; l < tl->nlanes; l++) {
		struct tl_lane *ln = &tl->lanes[l];
		double call = ev->cpu_ns + ln->shift;
		double resume = fmax(call, fmax(call, tl_awaited(tl, l, s, all)) + wake);

		ln->shift = resume - cpu_end;
		tl_cpu(ln, resume);
	}
	return 0;
}

/* An iteration starts at ev: the first boundary drops what came before
 * (warm-up); a later one closes the open window. */
static void tl_boundary(struct timeline *tl, const struct tl_event *ev)
{
	int first = !tl->seen_boundary;

	for (uint32_t l = 0; l < tl->nlanes; l++) {
		struct tl_lane *ln = &tl->lanes[l];
		double t = ev->cpu_ns + ln->shift;

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
}

/* The open iteration ends at ev (a capture stop): it lasts until ev or
 * until the GPU work already launched ends, whichever is later; what
 * follows until the next start is replayed but not counted. */
static void tl_window_end(struct timeline *tl, const struct tl_event *ev)
{
	for (uint32_t l = 0; l < tl->nlanes; l++) {
		struct tl_lane *ln = &tl->lanes[l];
		double t = ev->cpu_ns + ln->shift;

		if (tl->open)
			ln->span += fmax(t, ln->busy) - ln->win_start;
		tl_cpu(ln, t);
	}
	if (tl->open)
		tl->windows += tl->work_in_window;
	tl->seen_boundary = 1;
	tl->open = 0;
	tl->work_in_window = 0;
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
		tl_boundary(tl, ev);
		return 0;
	case TL_ITERATION_END:
		tl_window_end(tl, ev);
		return 0;
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
