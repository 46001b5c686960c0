/*
 * recorder.h - the recorder's own pieces, shared by the files that keep the
 * records between a hook and the trace file.  The hooks and the timing
 * sources (events.c, cupti.c) do not include it: they see preload.h.
 *
 *   recorder.c       the state every piece reads (on, off, timing, windows),
 *                    start, the timing choice, capture windows, exit, fork
 *   log.c            clocks and the "libsurfer:" lines (leaf)
 *   settings.c       SURFER_* environment -> preload_cfg
 *   ring.c           per-thread rings of records and the thread registry
 *   writer_thread.c  the thread that drains the rings every 20 ms
 *   entries.c        what the hooks call: a launch, copy, sync, ... becomes
 *                    an entry in the calling thread's ring
 *   funcinfo.c       the kernel-handle cache (names, registers, static
 *                    shared memory) and stream ids, asked of the driver
 *   pending.c        records waiting for their GPU times
 *   joins.c          the CUPTI sink: which report belongs to which record
 *   output.c         the one trace writer: header, records, trailer
 *   devmem.c         device memory held, for the trailer's peak
 *
 * Who may call whom: the hooks call entries.c (and devmem.c); entries.c
 * fills rings; ring.c, writer_thread.c and recorder.c drain them into
 * pending.c and output.c; joins.c is called only by CUPTI through its sink
 * and calls pending.c and output.c.  Nothing here is called by events.c or
 * cupti.c except through the sink.
 *
 * Locks, always taken in this order: the writer thread's mutex, the writer
 * lock (preload_core.lock: the trace writer, the pending table, the joins,
 * ring tails), the thread registry's lock.  The memory count's lock
 * (devmem.c) and the event pool's lock (events.c) are innermost: nothing
 * is locked while either is held.
 */
#ifndef SURFER_PRELOAD_RECORDER_H
#define SURFER_PRELOAD_RECORDER_H

#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>

#include "preload/preload.h"
#include "trace/hmap.h"

/* ---- recorder.c -------------------------------------------------------- */

enum { PRELOAD_ST_OFF = 0, PRELOAD_ST_ON, PRELOAD_ST_DONE };

/* The state every piece reads.  Fields without a note are changed only
 * under the writer lock or before threads record. */
struct preload_core {
	pthread_mutex_t lock;         /* the writer lock                         */
	pid_t pid, root_pid;          /* this process, the first one recorded   */
	atomic_int state;             /* PRELOAD_ST_*                            */
	atomic_int rec;               /* what preload_recording() returns, -1
	                               * before initialization                   */
	int capture;                  /* inside the capture window               */
	atomic_int timing;            /* enum trace_timing in use                */
	char timing_note[128];        /* why, for the header                     */
	atomic_uint_fast64_t seq;     /* next block of sequence numbers          */
	atomic_int iteration;         /* current window, -1 outside              */
	atomic_int windows;           /* cuProfilerStart calls seen              */
	int device;                   /* the device current on the thread that
	                               * settled the timing (the first launch or
	                               * call recorded), -1 unknown: the header's
	                               * GPU (output.c)                           */
};
extern struct preload_core preload_core;

/* Recording ends for good (a write failed, the trace was finished). */
void preload_turn_off(void);

/* Settles which timing source is used, once (CUPTI's start costs tens of
 * ms on a real GPU: callers choose when). */
extern pthread_once_t preload_timing_once;
void preload_timing_decide(void);
static inline void preload_timing_settle(void)
{
	pthread_once(&preload_timing_once, preload_timing_decide);
}

/* ---- settings.c -------------------------------------------------------- */

/* Reads the SURFER_* variables into preload_cfg (once, from init). */
void preload_settings_load(void);

/* ---- ring.c ------------------------------------------------------------- */

/* One record as the hook left it, before the writer sees it. */
struct preload_entry {
	struct trace_record rec;      /* type TRACE_TYPE_MAX: events to recycle */
	struct preload_funcinfo *fi;  /* kernels: cached name/attributes       */
	preload_event ev[2];          /* events timing, NULL when none         */
	uint8_t ev_slot;              /* their context's slot (events.c)       */
	uint8_t graph;                /* a cuGraphLaunch placeholder            */
};

#define PRELOAD_RING 1024u              /* records per thread before it drains itself */
#define PRELOAD_KICK (PRELOAD_RING / 2) /* fill at which the writer thread is woken    */

struct preload_thread {
	struct preload_entry ring[PRELOAD_RING];
	atomic_uint_fast64_t head;    /* written by the owner thread            */
	atomic_uint_fast64_t tail;    /* advanced under the writer lock         */
	uint32_t tid;
	pid_t pid;
	uint64_t seq_next, seq_end;   /* this thread's block of sequence numbers */
	uint64_t kicked_at;           /* head when the writer was last woken     */
	int lib_depth;                /* library calls the thread is inside     */
	uint64_t lib_seq;             /* seq of the outermost one               */
	int gone;                     /* its thread exited, its ring drained:   */
				      /* free for the next new thread (R.lock)  */
	struct preload_thread *next;  /* the registry                           */
};

extern __thread struct preload_thread *preload_tls_thread
	__attribute__((tls_model("initial-exec")));

/* Creates the thread key whose destructor drains an exiting thread's ring;
 * 0 on success. */
int preload_ring_init(void);
/* The calling thread's state, registered on its first record (the state
 * of an exited thread if one is free, else allocated); NULL when that
 * failed. */
struct preload_thread *preload_thread_new(void);
static inline struct preload_thread *preload_thread_get(void)
{
	struct preload_thread *t = preload_tls_thread;
	if (__builtin_expect(t != NULL, 1))
		return t;
	return preload_thread_new();
}

static inline uint64_t preload_seq_next(struct preload_thread *t)
{
	/* Blocks of 64 keep threads off one shared counter on every launch. */
	if (t->seq_next == t->seq_end) {
		t->seq_next = atomic_fetch_add(&preload_core.seq, 64);
		t->seq_end = t->seq_next + 64;
	}
	return t->seq_next++;
}

/* A ring at least half full: wakes the writer thread, or drains the ring
 * itself when it is full. */
void preload_ring_filling(struct preload_thread *t, uint64_t head, uint64_t fill);

/* A free ring slot, draining first when the ring is full. */
static inline struct preload_entry *preload_ring_slot(struct preload_thread *t)
{
	uint64_t h = atomic_load_explicit(&t->head, memory_order_relaxed);
	uint64_t fill = h - atomic_load_explicit(&t->tail, memory_order_acquire);
	if (__builtin_expect(fill >= PRELOAD_KICK, 0))
		preload_ring_filling(t, h, fill);
	struct preload_entry *e = &t->ring[h % PRELOAD_RING];
	e->fi = NULL;
	e->ev[0] = e->ev[1] = NULL;
	e->graph = 0;
	return e;
}

/* Hands the slot filled last to the writer. */
static inline void preload_ring_publish(struct preload_thread *t)
{
	atomic_fetch_add_explicit(&t->head, 1, memory_order_release);
}

/* Drains the calling thread's ring under the writer lock. */
void preload_ring_flush(struct preload_thread *t);
/* Drains every ring of this process (writer lock held). */
void preload_ring_drain_all_locked(void);
/* fork: the registry's lock around it; in the child, only the forking
 * thread's state stays, its ring emptied. */
void preload_ring_fork_prepare(void);
void preload_ring_fork_parent(void);
void preload_ring_fork_child(void);

/* ---- writer_thread.c ---------------------------------------------------- */

/* Starts the writer thread once; without it threads drain their own rings. */
void preload_wt_start(void);
/* Wakes it (starting it when not tried yet). */
void preload_wt_nudge(void);
/* 1 while it runs. */
int preload_wt_running(void);
/* From a signal handler: hands sig to the writer thread, which finishes
 * the trace and sends sig to the process again (recorder.c, on_signal).
 * 0, or -1 when the thread is not running (the caller finishes). */
int preload_wt_signal(int sig);
/* On the writer thread, for a signal handed over: writes what is known and
 * the trailer, then kill(getpid(), sig). */
void preload_signalled(int sig);
/* Stops and joins it (not from a signal handler, not under the writer lock). */
void preload_wt_stop(void);
void preload_wt_fork_prepare(void);
void preload_wt_fork_parent(void);
void preload_wt_fork_child(void);

/* ---- entries.c ---------------------------------------------------------- */

/* A capture marker record (window start or stop) from the calling thread. */
void preload_marker(enum trace_marker_kind kind, int iteration);

/* ---- funcinfo.c --------------------------------------------------------- */

/* The cached facts of a kernel handle (never freed; one copy a handle,
 * and one more after each module unload it is launched after); NULL for a
 * NULL handle or a slot another thread is slow to fill.  Lock-free: called
 * on every launch. */
struct preload_funcinfo *preload_funcinfo_get(preload_func f);

/* ---- pending.c (writer lock held for all) -------------------------------- */

/* A record waiting for its GPU times. */
struct preload_pend {
	struct trace_record rec;
	preload_event ev[2];
	uint8_t ev_slot;              /* their context's slot (events.c)       */
	uint8_t graph;                /* a graph replay: CUPTI's kernels of it  */
	struct preload_pend *prev, *next; /* FIFO order                          */
	uint64_t *nodes;              /* graph: nodes reported without correlation */
	uint32_t nnodes, capnodes;
	uint64_t overtaken_ns;        /* CUPTI: when a launch made after it on its */
				      /* stream was first seen run (our clock);  */
				      /* 0 before (joins.c)                       */
	uint64_t copies_seen;         /* CUPTI: copies its reports counted so far */
};

/* Kernels timed by events or CUPTI, graph replays and (CUPTI) copies go to
 * the pending table; everything else is written at once. */
void preload_pend_add(struct preload_entry *e);
/* Writes p without GPU times and forgets it: its report will not come. */
void preload_pend_give_up(struct preload_pend *p);
/* The oldest pending record (follow ->next); NULL when none. */
struct preload_pend *preload_pend_head(void);
/* The pending record of a sequence number (CUPTI timing only), or NULL. */
struct preload_pend *preload_pend_by_seq(uint64_t seq);
/* Applies a CUPTI kernel report to p: a launch gets its GPU times and is
 * written; a graph replay gets one kernel record per report.  Returns 1
 * when p was written and released. */
int preload_pend_join_kernel(struct preload_pend *p, const struct preload_cupti_kernel *k);
/* Applies a CUPTI copy report to p; writes and releases it once its
 * reports counted all its copies (a batch may come as several). */
void preload_pend_join_copy(struct preload_pend *p, const struct preload_cupti_copy *c);
/* Forgets p unwritten (a graph replay whose kernels all came). */
void preload_pend_drop(struct preload_pend *p);
/* Keeps a kernel report whose record (seq) is not pending yet; it is
 * applied when the record arrives. */
void preload_pend_orphan(uint64_t seq, const struct preload_cupti_kernel *k);
/* Events: writes the pending kernels whose events completed (all of them
 * when wait is set). */
void preload_pend_harvest(int wait);
/* End: writes what is still pending without GPU times, frees the table. */
void preload_pend_finish(void);
/* fork child: forgets the parent's records. */
void preload_pend_fork_child(void);

/* ---- joins.c (CUPTI's sink) ---------------------------------------------- */

extern const struct preload_cupti_sink preload_joins_sink;
/* End: retries the reports still waiting for their launch, once, and
 * counts the rest as dropped (writer lock held). */
void preload_joins_finish(void);
/* fork child: forgets the parent's correlations. */
void preload_joins_fork_child(void);

/* ---- output.c (writer lock held for all) ---------------------------------- */

/* Opens the trace and writes its header on first use; 0 when open, -1
 * when recording is (now) off. */
int preload_out_open(void);
/* Writes one record (kernels: their name from fi), opening first. */
void preload_out_write(struct trace_record *rec, struct preload_funcinfo *fi);
/* Sets a kernel record's name id from fi (the trace must be open). */
void preload_out_name_kernel(struct trace_record *rec, struct preload_funcinfo *fi);
/* Interned id of a name in the open trace. */
uint32_t preload_out_intern(const char *name);
/* Counts n records lost in the trailer (opens the trace first). */
void preload_out_dropped(uint64_t n);
/* Writes the trailer and closes the trace, if one was opened. */
void preload_out_close(void);
/* fork child: forgets the parent's writer (leaked: freeing it would flush
 * into the parent's file). */
void preload_out_fork_child(void);

/* ---- devmem.c ------------------------------------------------------------ */

/* The most device memory the program held at once, bytes. */
uint64_t preload_mem_peak(void);

/* ---- the maps of pointers (trace/hmap.h, exact keys) -------------------- */

/* The pointer stored for key, NULL when absent. */
static inline void *preload_map_get(const struct hmap *m, uint64_t key)
{
	const uint64_t *v = hmap_get(m, key);
	return v ? (void *)(uintptr_t)*v : NULL;
}

/* Stores p for key (allocates when the table grows); 0, or negative when
 * out of memory (the map is then unchanged). */
static inline int preload_map_put(struct hmap *m, uint64_t key, void *p)
{
	return hmap_put(m, key, (uint64_t)(uintptr_t)p);
}

#endif
