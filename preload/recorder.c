/*
 * recorder.c - the recorder's life: the state every piece reads, start,
 * the choice of timing source, capture windows, context teardown, exit,
 * signals and fork.
 *
 * Data flow: a hook fills an entry in its thread's ring (entries.c, ring.c:
 * no lock, no allocation after the thread's first record).  When the ring
 * is half full the writer thread is woken (writer_thread.c); when it is
 * full, at a synchronization, at thread exit and at process exit the ring
 * is drained under the writer lock: records without GPU times are written
 * at once (output.c), kernels (and, with CUPTI, copies) wait in the pending
 * table (pending.c) until their events complete or CUPTI reports them
 * (joins.c), then are written.  The writer hands 64 KiB chunks to the file,
 * so SIGKILL loses at most the unwritten tail.
 *
 * Constraints kept: the writer lock is the only global lock and is taken
 * only to drain a ring; a forked child never writes its parent's records or
 * file; any failure turns recording off with one warning; the host's
 * signal dispositions are changed only where it kept the default action.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload/recorder.h"

struct preload_core preload_core = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.rec = -1,
	.iteration = -1,
	.seq = 1,
	.device = -1,
};

int preload_recording(void)
{
	int r = atomic_load_explicit(&preload_core.rec, memory_order_relaxed);
	if (__builtin_expect(r < 0, 0)) {
		/* Another library's constructor may launch before ours ran. */
		preload_init();
		r = atomic_load(&preload_core.rec);
	}
	return r > 0;
}

static void update_rec(void)
{
	atomic_store(&preload_core.rec, preload_core.state == PRELOAD_ST_ON && preload_core.capture);
}

void preload_turn_off(void)
{
	preload_core.state = PRELOAD_ST_DONE;
	update_rec();
}

/* ---- start -------------------------------------------------------------- */

static void at_exit(void);
static void on_signal(int sig);
static void fork_prepare(void);
static void fork_parent(void);
static void fork_child(void);

static void init_once(void)
{
	const struct preload_settings *c = &preload_cfg;
	preload_settings_load();
	atomic_store(&preload_core.rec, 0);
	if (c->disabled)
		return;
	preload_core.pid = preload_core.root_pid = getpid();
	preload_core.capture = !(c->skip || c->iterations);
	if (preload_ring_init() != 0) {
		preload_warn("cannot create a thread key: recording off");
		return;
	}
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	atexit(at_exit);
	/* SIGTERM/SIGINT flush only where the program kept the default action. */
	int sigs[] = { SIGTERM, SIGINT };
	for (size_t i = 0; i < 2; i++) {
		struct sigaction old;
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL &&
		    !(old.sa_flags & SA_SIGINFO)) {
			struct sigaction sa;
			memset(&sa, 0, sizeof sa);
			sa.sa_handler = on_signal;
			sa.sa_flags = SA_RESETHAND | SA_RESTART;
			sigemptyset(&sa.sa_mask);
			sigaction(sigs[i], &sa, NULL);
		}
	}
	preload_core.state = PRELOAD_ST_ON;
	update_rec();
	preload_note("recording to %s", c->output);
}

static pthread_once_t init_ctl = PTHREAD_ONCE_INIT;

void preload_init(void)
{
	pthread_once(&init_ctl, init_once);
}

__attribute__((constructor)) static void preload_ctor(void)
{
	preload_init();
}

/* ---- timing choice ------------------------------------------------------ */

pthread_once_t preload_timing_once = PTHREAD_ONCE_INIT;

/* CUPTI when asked (the default) and usable, else CUDA events, else none;
 * the note says why, for the header. */
void preload_timing_decide(void)
{
	struct preload_core *g = &preload_core;
	char why[128] = "";
	int want = preload_cfg.timing;
	/* The header is written by whichever thread drains the first record,
	 * often the writer thread, which has no context current: the device
	 * is taken here, on the hooked thread whose first call settles the
	 * timing. */
	typedef preload_cures (*ctx_dev_fn)(int *);
	ctx_dev_fn ctx_dev = (ctx_dev_fn)preload_driver_sym("cuCtxGetDevice");
	int dev;
	if (ctx_dev && ctx_dev(&dev) == 0 && dev >= 0)
		g->device = dev;
	if (want == TRACE_TIMING_CUPTI) {
		if (preload_cupti_start(&preload_joins_sink, why, sizeof why) == 0) {
			g->timing = TRACE_TIMING_CUPTI;
			snprintf(g->timing_note, sizeof g->timing_note, "CUPTI activity records");
			preload_note("timing: CUPTI");
			return;
		}
		preload_note("CUPTI unusable (%s): timing with CUDA events", why);
		want = TRACE_TIMING_EVENTS;
	}
	if (want == TRACE_TIMING_EVENTS) {
		char why2[128] = "";
		if (preload_events_init(why2, sizeof why2) == 0) {
			g->timing = TRACE_TIMING_EVENTS;
			if (why[0])
				snprintf(g->timing_note, sizeof g->timing_note,
					 "CUDA events: CUPTI unusable: %.96s", why);
			else
				snprintf(g->timing_note, sizeof g->timing_note,
					 "CUDA events: SURFER_TIMING=events");
			return;
		}
		preload_warn("no GPU timing: %s", why2);
		snprintf(g->timing_note, sizeof g->timing_note, "none: %.58s%s%.58s", why,
			 why[0] ? "; " : "", why2);
		g->timing = TRACE_TIMING_NONE;
		return;
	}
	g->timing = TRACE_TIMING_NONE;
	snprintf(g->timing_note, sizeof g->timing_note, "none: SURFER_TIMING=none");
}

/* ---- capture windows ---------------------------------------------------- */

/* A program recorded in capture windows starts the timing at its first
 * launch, not at the first window: CUPTI's start (29-50 ms on an H200) and
 * what the program's next calls pay after it (4-6 ms between the first
 * window's opening and its first launch, on an H200, in each of five
 * workloads; under 0.2 ms in the windows after) then fall in the
 * program's warm-up.  CUPTI reports the kernels run before the window;
 * joins.c finds no recorded launch for them and lets them go. */
void preload_not_recorded(void)
{
	const struct preload_core *g = &preload_core;
	const struct preload_settings *c = &preload_cfg;
	if (g->state == PRELOAD_ST_ON && atomic_load_explicit(&g->windows, memory_order_relaxed) == 0 &&
	    (c->skip || c->iterations)) {
		int e = errno; /* the driver must see the program's */
		preload_timing_settle();
		errno = e;
	}
}

static void finish(int from_signal);

void preload_profiler(int start)
{
	struct preload_core *g = &preload_core;
	if (g->state != PRELOAD_ST_ON)
		return;
	const struct preload_settings *c = &preload_cfg;
	int windowed = c->skip || c->iterations;
	if (start) {
		/* Settle the timing (CUPTI's start costs tens of ms on a real
		 * GPU) before the window opens, not at its first launch. */
		if (preload_driver_sym("cuInit"))
			preload_timing_settle();
		int idx = g->windows++;
		if (windowed)
			g->capture = idx >= c->skip && (!c->iterations || idx < c->skip + c->iterations);
		update_rec();
		atomic_store(&g->iteration, idx);
		if (g->capture)
			preload_marker(TRACE_MARK_CAPTURE_START, idx);
		return;
	}
	int idx = atomic_load(&g->iteration);
	if (idx < 0)
		return;
	if (g->capture)
		preload_marker(TRACE_MARK_CAPTURE_STOP, idx);
	atomic_store(&g->iteration, -1);
	if (windowed) {
		g->capture = 0;
		update_rec();
		if (c->iterations && idx + 1 >= c->skip + c->iterations) {
			finish(0);
			/* The trace is complete and the program runs on: without
			 * CUPTI's cost (on an H200, a CUDA-graph decode step 10.8
			 * ms with CUPTI on against 10.2 without, a CPU-bound GPT-2
			 * step 48-50 against 37.5).  Only here, not at exit, where
			 * the runtime has released its context already. */
			if (g->timing == TRACE_TIMING_CUPTI)
				preload_cupti_stop();
		}
	}
}

/* ---- context teardown, end of recording ----------------------------------- */

typedef preload_cures (*ctx_sync_fn)(void);

/* Before a context goes (the runtime's exit handler releases its primary
 * context before our exit handler runs): the GPU is waited for first, with
 * CUPTI as with events.  A forced flush of a running kernel's buffer hands
 * its report over unfinished, and lost (cupti.c, preload_cupti_flush): a
 * program that ends with its last step still queued lost that step's
 * reports (shim_test.sh cupti-queued-release: 8 of 8 before). */
void preload_before_teardown(void *ctx, int device)
{
	struct preload_core *g = &preload_core;
	if (g->timing != TRACE_TIMING_CUPTI && g->timing != TRACE_TIMING_EVENTS)
		return;
	ctx_sync_fn sync = (ctx_sync_fn)preload_driver_sym("cuCtxSynchronize");
	if (sync)
		sync();
	if (g->timing == TRACE_TIMING_CUPTI) {
		preload_cupti_flush(1);
		return;
	}
	pthread_mutex_lock(&g->lock);
	if (g->state == PRELOAD_ST_ON) {
		preload_ring_drain_all_locked();
		preload_pend_harvest(1);
	}
	/* its events go with it: a later context of the same handle gets a
	 * slot of its own (events.c) */
	preload_events_ctx_gone(ctx, device);
	pthread_mutex_unlock(&g->lock);
}

/* Writes everything known and the trailer.  from_signal: only what needs
 * no waiting for the GPU; 1 in a signal handler (and only if the writer
 * lock is free), 2 on the writer thread for a signal the handler handed
 * over (the lock is waited for: no thread is interrupted). */
static void finish(int from_signal)
{
	struct preload_core *g = &preload_core;
	if (g->state != PRELOAD_ST_ON || g->pid != getpid())
		return;
	if (from_signal == 2) {
		pthread_mutex_lock(&g->lock);
	} else if (!from_signal) {
		preload_wt_stop();
		/* the last kernels' events and CUPTI reports are complete
		 * once they ran */
		ctx_sync_fn sync = (ctx_sync_fn)preload_driver_sym("cuCtxSynchronize");
		if (sync && (g->timing == TRACE_TIMING_EVENTS || g->timing == TRACE_TIMING_CUPTI))
			sync();
		if (g->timing == TRACE_TIMING_CUPTI)
			preload_cupti_flush(1);
		pthread_mutex_lock(&g->lock);
	} else if (pthread_mutex_trylock(&g->lock) != 0) {
		return;
	}
	if (g->state == PRELOAD_ST_ON) {
		preload_ring_drain_all_locked();
		if (g->timing == TRACE_TIMING_EVENTS && !from_signal)
			preload_pend_harvest(1);
		if (!from_signal)
			preload_joins_finish();
		preload_pend_finish();
		/* A process that recorded nothing (a shell, a compiler the
		 * program ran) leaves no file behind. */
		preload_out_close();
		preload_turn_off();
	}
	pthread_mutex_unlock(&g->lock);
}

static void at_exit(void)
{
	int e = errno;
	finish(0);
	errno = e;
}

/*
 * SIGTERM and SIGINT where the host kept the default action (torchrun
 * stops its workers with SIGTERM).  The handler runs on whatever thread
 * the signal interrupted, maybe inside malloc holding its lock, and
 * writing the trace allocates (the rings' drain, the string table):
 * finished there, the process could hang on its own malloc lock until torchrun's
 * SIGKILL, and lose the trace besides.  So the handler only hands the
 * signal to the writer thread, which blocks every signal and polls every
 * 20 ms, and returns; that thread writes what is known and the trailer
 * (not waiting for the GPU, as a dying process cannot) and sends the
 * signal again to the process, whose action SA_RESETHAND has made the
 * default: the program dies of it as it would have, at most ~20 ms and
 * the trace's tail later.  Without the writer thread (it could not be
 * started) the handler finishes what it can itself, as before: only if
 * the writer lock is free.
 */
void preload_signalled(int sig)
{
	int e = errno;
	finish(2);
	errno = e;
	kill(getpid(), sig);
}

static void on_signal(int sig)
{
	int e = errno;
	if (preload_wt_signal(sig) == 0) {
		errno = e;
		return;
	}
	finish(1);
	errno = e;
	raise(sig); /* SA_RESETHAND restored the default action */
}

/* ---- fork ------------------------------------------------------------------ */

static void fork_prepare(void)
{
	preload_wt_fork_prepare();
	pthread_mutex_lock(&preload_core.lock);
	preload_ring_fork_prepare();
}

static void fork_parent(void)
{
	preload_ring_fork_parent();
	pthread_mutex_unlock(&preload_core.lock);
	preload_wt_fork_parent();
}

static void fork_child(void)
{
	struct preload_core *g = &preload_core;
	pthread_mutex_init(&g->lock, NULL);
	/* The writer thread was not forked: the child starts its own. */
	preload_wt_fork_child();
	/* The parent's writer, records and events are the parent's: forget
	 * them. */
	preload_out_fork_child();
	g->pid = getpid();
	preload_ring_fork_child();
	preload_pend_fork_child();
	preload_joins_fork_child();
	if (g->state == PRELOAD_ST_ON && g->timing == TRACE_TIMING_CUPTI) {
		/* CUPTI does not follow fork; the child records CPU times only. */
		g->timing = TRACE_TIMING_NONE;
		snprintf(g->timing_note, sizeof g->timing_note, "none: forked child");
	}
}
