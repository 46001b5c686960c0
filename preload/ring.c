/*
 * ring.c - per-thread rings of records and the registry of threads.
 *
 * Each thread that records gets a ring of PRELOAD_RING entries on its
 * first record.  A state is never freed (the exit path may still drain it,
 * and the registry is walked without the owner's knowledge), but when its
 * thread exits, its ring drained, it is taken by the next thread that
 * records: a program that starts a thread per request (a threaded web
 * server around a model) held 311 KB for every thread it ever ran, an
 * address space growing without end (shim_test.sh churn: 400 threads in
 * turn, 123 MB of it before, 120 kB after).
 * The owner fills entries and advances head without a lock (recorder.h's
 * inline preload_ring_slot/publish); whoever holds the writer lock moves
 * tail: the writer thread every 20 ms or when a ring is half full, the
 * owner itself when its ring is full, when it waited for the GPU without a
 * writer thread, and when it exits.
 *
 * Must never: take the writer lock on the launch path except to drain a
 * full ring; drain another process's rings (a forked child inherits its
 * parent's entries and drops them); hand a state to a new thread before
 * every entry of its old one was drained.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/recorder.h"

__thread struct preload_thread *preload_tls_thread __attribute__((tls_model("initial-exec")));

static struct {
	pthread_mutex_t lock;         /* guards threads                          */
	struct preload_thread *threads;
	pthread_key_t key;            /* destructor: thread_gone                 */
} R = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* The thread's key destructor: its entries drained (or, recording over,
 * dropped), its events cache returned, its state free for another thread.
 * The state stays registered (the exit path may still read it).  A hook
 * the thread runs after this (another library's destructor launching)
 * registers a state again, whose destructor the key runs again. */
static void thread_gone(void *p)
{
	struct preload_thread *t = p;
	if (!t || t->pid != getpid())
		return;
	preload_ring_flush(t);
	preload_events_thread_gone();
	pthread_mutex_lock(&R.lock);
	if (preload_tls_thread == t)
		preload_tls_thread = NULL;
	t->gone = 1;
	pthread_mutex_unlock(&R.lock);
}

int preload_ring_init(void)
{
	return pthread_key_create(&R.key, thread_gone);
}

/* A registered state whose thread exited, every entry drained (R.lock
 * held); NULL when none. */
static struct preload_thread *free_state_locked(pid_t pid)
{
	for (struct preload_thread *t = R.threads; t; t = t->next)
		if (t->gone && t->pid == pid &&
		    atomic_load_explicit(&t->tail, memory_order_acquire) ==
			    atomic_load_explicit(&t->head, memory_order_relaxed))
			return t;
	return NULL;
}

struct preload_thread *preload_thread_new(void)
{
	preload_init();
	pid_t pid = getpid();
	pthread_mutex_lock(&R.lock);
	struct preload_thread *t = free_state_locked(pid);
	if (t) {
		/* head and tail go on from where they are: the ring is empty */
		t->gone = 0;
		t->seq_next = t->seq_end = 0;
		t->kicked_at = atomic_load_explicit(&t->head, memory_order_relaxed);
		t->lib_depth = 0;
		t->lib_seq = 0;
	}
	pthread_mutex_unlock(&R.lock);
	if (!t) {
		if ((t = calloc(1, sizeof *t)) == NULL)
			return NULL;
		t->pid = pid;
		pthread_mutex_lock(&R.lock);
		t->next = R.threads;
		R.threads = t;
		pthread_mutex_unlock(&R.lock);
	}
	t->tid = (uint32_t)syscall(SYS_gettid);
	pthread_setspecific(R.key, t);
	preload_tls_thread = t;
	if (preload_core.state == PRELOAD_ST_ON)
		preload_wt_start();
	return t;
}

/* Hands every published entry of t to the pending table or the trace
 * (writer lock held). */
static void drain_locked(struct preload_thread *t)
{
	struct preload_core *g = &preload_core;
	uint64_t tail = atomic_load_explicit(&t->tail, memory_order_relaxed);
	uint64_t head = atomic_load_explicit(&t->head, memory_order_acquire);
	for (; tail != head; tail++) {
		struct preload_entry *e = &t->ring[tail % PRELOAD_RING];
		if (e->rec.type == TRACE_TYPE_MAX) {
			if (e->ev[0])
				preload_events_put(e->ev, e->ev_slot);
			continue;
		}
		if (g->state != PRELOAD_ST_ON) {
			if (e->ev[0])
				preload_events_put(e->ev, e->ev_slot);
			continue;
		}
		int timed = (e->rec.type == TRACE_KERNEL && !e->graph &&
			     !(e->rec.u.kernel.flags & TRACE_KF_CAPTURED) &&
			     (e->ev[0] || g->timing == TRACE_TIMING_CUPTI)) ||
			    (e->graph && g->timing == TRACE_TIMING_CUPTI) ||
			    (g->timing == TRACE_TIMING_CUPTI &&
			     (e->rec.type == TRACE_MEMCPY || e->rec.type == TRACE_MEMSET));
		if (timed)
			preload_pend_add(e);
		else
			preload_out_write(&e->rec, e->fi);
	}
	atomic_store_explicit(&t->tail, tail, memory_order_release);
}

void preload_ring_flush(struct preload_thread *t)
{
	pthread_mutex_lock(&preload_core.lock);
	drain_locked(t);
	if (preload_core.timing == TRACE_TIMING_EVENTS)
		preload_pend_harvest(0);
	pthread_mutex_unlock(&preload_core.lock);
}

void preload_ring_filling(struct preload_thread *t, uint64_t head, uint64_t fill)
{
	if (fill >= PRELOAD_RING) {
		preload_ring_flush(t);
	} else if (head - t->kicked_at >= PRELOAD_KICK / 2) {
		t->kicked_at = head;
		preload_wt_nudge();
	}
}

void preload_ring_drain_all_locked(void)
{
	pthread_mutex_lock(&R.lock);
	for (struct preload_thread *t = R.threads; t; t = t->next)
		if (t->pid == preload_core.pid)
			drain_locked(t);
	pthread_mutex_unlock(&R.lock);
}

void preload_ring_fork_prepare(void)
{
	pthread_mutex_lock(&R.lock);
}

void preload_ring_fork_parent(void)
{
	pthread_mutex_unlock(&R.lock);
}

void preload_ring_fork_child(void)
{
	pthread_mutex_init(&R.lock, NULL);
	struct preload_thread *me = preload_tls_thread;
	if (me)
		me->tid = (uint32_t)syscall(SYS_gettid);
	/* The parent's other threads do not exist here: their states, their
	 * entries dropped, are free for the child's threads. */
	for (struct preload_thread *t = R.threads; t; t = t->next) {
		atomic_store(&t->tail, atomic_load(&t->head));
		t->pid = preload_core.pid;
		t->gone = t != me;
	}
}
