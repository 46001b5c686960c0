/*
 * writer_thread.c - the thread that drains every ring every 20 ms, or
 * sooner when a ring is half full, so the launching threads only fill
 * entries.  A thread whose ring is full drains it itself, which is also
 * the fallback when this thread cannot be started.  With CUPTI it also
 * asks for CUPTI's buffers every 250 ms, so pending kernels and the reports
 * waiting for their runtime calls' records do not pile up.
 *
 * A SIGTERM or SIGINT the recorder handles is handed to this thread
 * (preload_wt_signal: one atomic store, all a handler may do), which
 * finishes the trace and sends the signal on within one poll
 * (recorder.c, on_signal, says why not in the handler).
 *
 * Must never: receive the host's signals (all blocked here), be joined
 * from a signal handler or under the writer lock, or be relied on in a
 * forked child (which starts its own).
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>

#include "preload/recorder.h"

static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int started;                  /* 0 not tried, 1 running, -1 failed      */
	int kick, stop;
	pthread_t th;
	uint64_t last_cupti_flush_ns;
} WT = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, 0 };
static atomic_int wt_alive;       /* writer_main runs (what a handler reads) */
static atomic_int wt_signal;      /* a signal handed over, 0 none           */

static void *writer_main(void *arg)
{
	(void)arg;
	struct preload_core *g = &preload_core;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL); /* signals go to the host's threads */
	atomic_store(&wt_alive, 1);
	for (;;) {
		pthread_mutex_lock(&WT.mu);
		if (!WT.kick && !WT.stop) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 20000000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&WT.cv, &WT.mu, &ts);
		}
		int stop = WT.stop;
		WT.kick = 0;
		pthread_mutex_unlock(&WT.mu);
		int sig = atomic_exchange(&wt_signal, 0);
		if (sig) {
			preload_signalled(sig);
			continue; /* the process dies of sig meanwhile */
		}
		if (stop) {
			atomic_store(&wt_alive, 0);
			return NULL;
		}
		/* CUPTI hands buffers over when full; ask for the finished
		 * ones every 250 ms so the pending kernels and waiting reports
		 * do not pile up (a CPU-bound PyTorch step launches 60 000
		 * kernels a second; not under the writer lock: the delivery
		 * takes it).  Not forced: the GPU may still run what the
		 * buffers report (cupti.c, preload_cupti_flush). */
		uint64_t now = preload_now_ns();
		if (g->timing == TRACE_TIMING_CUPTI && now - WT.last_cupti_flush_ns > 250000000u) {
			WT.last_cupti_flush_ns = now;
			preload_cupti_flush(0);
		}
		pthread_mutex_lock(&g->lock);
		if (g->state == PRELOAD_ST_ON) {
			preload_ring_drain_all_locked();
			if (g->timing == TRACE_TIMING_EVENTS)
				preload_pend_harvest(0);
		}
		pthread_mutex_unlock(&g->lock);
	}
}

void preload_wt_start(void)
{
	pthread_mutex_lock(&WT.mu);
	if (!WT.started) {
		WT.started = 1;
		WT.stop = 0;
		pthread_attr_t a;
		pthread_attr_init(&a);
		pthread_attr_setstacksize(&a, 256 * 1024);
		if (pthread_create(&WT.th, &a, writer_main, NULL) != 0)
			WT.started = -1; /* threads drain their own rings */
		pthread_attr_destroy(&a);
	}
	pthread_mutex_unlock(&WT.mu);
}

void preload_wt_nudge(void)
{
	if (!WT.started)
		preload_wt_start();
	if (WT.started == 1) {
		pthread_mutex_lock(&WT.mu);
		WT.kick = 1;
		pthread_cond_signal(&WT.cv);
		pthread_mutex_unlock(&WT.mu);
	}
}

int preload_wt_running(void)
{
	return WT.started == 1;
}

int preload_wt_signal(int sig)
{
	if (!atomic_load(&wt_alive))
		return -1;
	atomic_store(&wt_signal, sig);
	return 0;
}

void preload_wt_stop(void)
{
	pthread_mutex_lock(&WT.mu);
	int running = WT.started == 1 && !pthread_equal(WT.th, pthread_self());
	WT.stop = 1;
	pthread_cond_signal(&WT.cv);
	pthread_mutex_unlock(&WT.mu);
	if (running)
		pthread_join(WT.th, NULL);
	WT.started = 0;
}

void preload_wt_fork_prepare(void)
{
	pthread_mutex_lock(&WT.mu);
}

void preload_wt_fork_parent(void)
{
	pthread_mutex_unlock(&WT.mu);
}

void preload_wt_fork_child(void)
{
	pthread_mutex_init(&WT.mu, NULL);
	pthread_cond_init(&WT.cv, NULL);
	WT.started = WT.kick = WT.stop = 0;
	atomic_store(&wt_alive, 0);
	atomic_store(&wt_signal, 0);
}
