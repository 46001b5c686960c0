/*
 * recorder.c - the recorder's state: settings, per-thread record buffers,
 * the one trace writer, timing joins, capture windows, fork and exit.
 *
 * Data flow: a hook fills an entry in its thread's ring (no lock, no
 * allocation after the thread's first record).  When the ring is full, at a
 * synchronization, at thread exit and at process exit the ring is drained
 * under the writer lock: records without GPU times are written at once,
 * kernels (and, with CUPTI, copies) wait in the pending table until their
 * events complete or CUPTI reports them, then are written.  The writer hands
 * 64 KiB chunks to the file, so SIGKILL loses at most the unwritten tail.
 *
 * Constraints kept: the writer lock is the only global lock and is taken
 * only to drain a ring; a forked child never writes its parent's records or
 * file; any failure turns recording off with one warning.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "preload/preload.h"

struct preload_settings preload_cfg;

/* ---- small utilities --------------------------------------------------- */

uint64_t preload_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t unix_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void vsay(const char *fmt, va_list ap)
{
	char line[512];
	int n = snprintf(line, sizeof line, "libsurfer: ");
	vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
	size_t len = strlen(line);
	if (len + 1 < sizeof line)
		line[len++] = '\n';
	ssize_t w = write(2, line, len);
	(void)w;
}

void preload_warn(const char *fmt, ...)
{
	/* Each distinct format warns once: a failing hook must not flood. */
	static const char *seen[32];
	static atomic_int nseen;
	int n = atomic_load(&nseen);
	for (int i = 0; i < n && i < 32; i++)
		if (seen[i] == fmt)
			return;
	int slot = atomic_fetch_add(&nseen, 1);
	if (slot < 32)
		seen[slot] = fmt;
	int e = errno;
	va_list ap;
	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
	errno = e;
}

void preload_note(const char *fmt, ...)
{
	if (!preload_cfg.verbose)
		return;
	int e = errno;
	va_list ap;
	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
	errno = e;
}

/* ---- a uint64 -> pointer map (open addressing, backward-shift delete) -- */

struct u64map {
	uint64_t *keys;            /* 0 = empty                                */
	void **vals;
	size_t cap, n;
};

static size_t mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k;
}

static int map_grow(struct u64map *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 1024;
	uint64_t *nk = calloc(ncap, sizeof *nk);
	void **nv = calloc(ncap, sizeof *nv);
	if (!nk || !nv) {
		free(nk);
		free(nv);
		return -1;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->keys[i])
			continue;
		size_t j = mix(m->keys[i]) & (ncap - 1);
		while (nk[j])
			j = (j + 1) & (ncap - 1);
		nk[j] = m->keys[i];
		nv[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = nk;
	m->vals = nv;
	m->cap = ncap;
	return 0;
}

static void *map_get(const struct u64map *m, uint64_t k)
{
	if (!m->cap || !k)
		return NULL;
	for (size_t i = mix(k) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == k)
			return m->vals[i];
		if (!m->keys[i])
			return NULL;
	}
}

static int map_put(struct u64map *m, uint64_t k, void *v)
{
	if (!k)
		return -1;
	if ((m->n + 1) * 2 > m->cap && map_grow(m) < 0)
		return -1;
	size_t i = mix(k) & (m->cap - 1);
	while (m->keys[i] && m->keys[i] != k)
		i = (i + 1) & (m->cap - 1);
	if (!m->keys[i])
		m->n++;
	m->keys[i] = k;
	m->vals[i] = v;
	return 0;
}

static void map_del(struct u64map *m, uint64_t k)
{
	if (!m->cap || !k)
		return;
	size_t mask = m->cap - 1, i = mix(k) & mask;
	while (m->keys[i] != k) {
		if (!m->keys[i])
			return;
		i = (i + 1) & mask;
	}
	/* Backward shift keeps every probe chain unbroken without tombstones. */
	for (size_t j = i;;) {
		m->keys[i] = 0;
		for (;;) {
			j = (j + 1) & mask;
			if (!m->keys[j]) {
				m->n--;
				return;
			}
			size_t home = mix(m->keys[j]) & mask;
			if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
				continue;
			break;
		}
		m->keys[i] = m->keys[j];
		m->vals[i] = m->vals[j];
		i = j;
	}
}

static void map_clear(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof *m);
}

/* ---- global state ------------------------------------------------------ */

enum { ST_OFF = 0, ST_ON, ST_DONE };

struct entry {
	struct trace_record rec;
	struct preload_funcinfo *fi;  /* kernels: cached name/attributes       */
	preload_event ev[2];          /* events timing, NULL when none         */
	uint8_t graph;                /* a cuGraphLaunch placeholder            */
};

#define RING 1024u              /* records per thread before it drains itself */
#define KICK (RING / 2)         /* fill at which the writer thread is woken    */
#define EVCACHE 64

struct preload_thread {
	struct entry ring[RING];
	atomic_uint_fast64_t head;    /* written by the owner thread            */
	atomic_uint_fast64_t tail;    /* advanced under the writer lock         */
	uint32_t tid;
	pid_t pid;
	uint64_t seq_next, seq_end;   /* this thread's block of sequence numbers */
	uint64_t kicked_at;           /* head when the writer was last woken     */
	int lib_depth;
	uint64_t lib_seq;
	struct preload_thread *next;
};

/* A record waiting for its GPU times. */
struct pend {
	struct trace_record rec;
	preload_event ev[2];
	uint8_t graph;
	struct pend *prev, *next;     /* FIFO order                              */
	uint64_t *nodes;              /* graph: nodes reported without correlation */
	uint32_t nnodes, capnodes;
};

static struct {
	pthread_mutex_t lock;         /* the writer lock                         */
	struct trace_writer *w;
	uint32_t gen;                 /* bumped per writer (fork)                */
	pid_t pid, root_pid;
	atomic_int state;             /* ST_*                                    */
	atomic_int rec;               /* what preload_recording() returns        */
	int capture;                  /* inside the capture window               */
	atomic_int timing;            /* enum trace_timing in use                */
	char timing_note[128];
	int timing_decided;
	atomic_uint_fast64_t seq;
	atomic_int iteration;         /* current window, -1 outside              */
	int windows;                  /* cuProfilerStart calls seen              */
	pthread_mutex_t reg_lock;     /* thread registry                         */
	struct preload_thread *threads;
	pthread_key_t key;
	struct u64map pending;        /* seq -> struct pend                      */
	struct pend *phead, *ptail;
	size_t npending;
	struct u64map corr;           /* CUPTI correlation id -> our seq         */
	struct u64map orphans;        /* seq -> CUPTI reports that came first    */
	uint64_t last_cupti_flush_ns;
} G = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.reg_lock = PTHREAD_MUTEX_INITIALIZER,
	.rec = -1,
	.iteration = -1,
	.seq = 1,
};

static __thread struct preload_thread *tls_thread __attribute__((tls_model("initial-exec")));

int preload_recording(void)
{
	int r = atomic_load_explicit(&G.rec, memory_order_relaxed);
	if (__builtin_expect(r < 0, 0)) {
		/* Another library's constructor may launch before ours ran. */
		preload_init();
		r = atomic_load(&G.rec);
	}
	return r > 0;
}

static void update_rec(void)
{
	atomic_store(&G.rec, G.state == ST_ON && G.capture);
}

static void turn_off(void)
{
	G.state = ST_DONE;
	update_rec();
}

/* ---- settings ----------------------------------------------------------- */

static int env_int(const char *name, int dflt)
{
	const char *s = getenv(name);
	if (!s || !*s)
		return dflt;
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || v < 0 || v > 1000000000) {
		preload_warn("ignoring %s='%s': not a count", name, s);
		return dflt;
	}
	return (int)v;
}

/* A switch: a number (0 off, any other on), yes/no, true/false, on/off
 * (any case); anything else is reported and leaves the default
 * (SURFER_DISABLE=true must not record). */
static int env_flag(const char *name, int dflt)
{
	static const char *const on[] = {"yes", "true", "on"}, *const off[] = {"no", "false", "off"};
	const char *s = getenv(name);
	if (!s || !*s)
		return dflt;
	char *end;
	long v = strtol(s, &end, 10);
	if (!*end)
		return v != 0;
	for (size_t i = 0; i < sizeof on / sizeof on[0]; i++) {
		if (!strcasecmp(s, on[i]))
			return 1;
		if (!strcasecmp(s, off[i]))
			return 0;
	}
	preload_warn("ignoring %s='%s': use 1 or 0", name, s);
	return dflt;
}

static void thread_gone(void *p);
static void at_exit(void);
static void on_signal(int sig);
static void fork_prepare(void);
static void fork_parent(void);
static void fork_child(void);

static void init_once(void)
{
	struct preload_settings *c = &preload_cfg;
	c->disabled = env_flag("SURFER_DISABLE", 0);
	c->verbose = env_flag("SURFER_VERBOSE", 0);
	c->skip = env_int("SURFER_SKIP", 0);
	c->iterations = env_int("SURFER_ITERATIONS", 0);
	c->stacks = env_flag("SURFER_STACKS", 0);
	const char *t = getenv("SURFER_TIMING");
	c->timing = TRACE_TIMING_CUPTI;
	if (t && strcmp(t, "events") == 0)
		c->timing = TRACE_TIMING_EVENTS;
	else if (t && strcmp(t, "none") == 0)
		c->timing = TRACE_TIMING_NONE;
	else if (t && *t && strcmp(t, "cupti") != 0)
		preload_warn("ignoring SURFER_TIMING='%s': use cupti, events or none", t);
	const char *o = getenv("SURFER_OUTPUT");
	snprintf(c->output, sizeof c->output, "%s", o && *o ? o : "surfer-%p.mp");
	atomic_store(&G.rec, 0);
	if (c->disabled)
		return;
	G.pid = G.root_pid = getpid();
	G.capture = !(c->skip || c->iterations);
	if (pthread_key_create(&G.key, thread_gone) != 0) {
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
	G.state = ST_ON;
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

/* ---- per-thread state --------------------------------------------------- */

static void writer_start(void);

static struct preload_thread *thread_state(void)
{
	struct preload_thread *t = tls_thread;
	if (__builtin_expect(t != NULL, 1))
		return t;
	preload_init();
	t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->tid = (uint32_t)syscall(SYS_gettid);
	t->pid = getpid();
	pthread_mutex_lock(&G.reg_lock);
	t->next = G.threads;
	G.threads = t;
	pthread_mutex_unlock(&G.reg_lock);
	pthread_setspecific(G.key, t);
	tls_thread = t;
	if (G.state == ST_ON)
		writer_start();
	return t;
}

static uint64_t next_seq(struct preload_thread *t)
{
	/* Blocks of 64 keep threads off one shared counter on every launch. */
	if (t->seq_next == t->seq_end) {
		t->seq_next = atomic_fetch_add(&G.seq, 64);
		t->seq_end = t->seq_next + 64;
	}
	return t->seq_next++;
}

static void drain_locked(struct preload_thread *t);
static void harvest_locked(int wait);
static void drain_all_locked(void);

/* Drains the calling thread's ring under the writer lock. */
static void flush_thread(struct preload_thread *t)
{
	pthread_mutex_lock(&G.lock);
	drain_locked(t);
	if (G.timing == TRACE_TIMING_EVENTS)
		harvest_locked(0);
	pthread_mutex_unlock(&G.lock);
}

/* ---- the writer thread ----------------------------------------------------
 * Drains every ring every 20 ms, or sooner when a ring is half full, so the
 * launching threads only fill entries; a thread whose ring is full drains it
 * itself (also the fallback when the writer thread cannot be started). */

static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int started, kick, stop;
	pthread_t th;
} WT = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0 };

static void *writer_main(void *arg)
{
	(void)arg;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL); /* signals go to the host's threads */
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
		if (stop)
			return NULL;
		/* CUPTI hands buffers over when full; ask for them every second
		 * so the pending kernels do not pile up (not under G.lock: the
		 * delivery takes it). */
		uint64_t now = preload_now_ns();
		if (G.timing == TRACE_TIMING_CUPTI && now - G.last_cupti_flush_ns > 1000000000u) {
			G.last_cupti_flush_ns = now;
			preload_cupti_flush();
		}
		pthread_mutex_lock(&G.lock);
		if (G.state == ST_ON) {
			drain_all_locked();
			if (G.timing == TRACE_TIMING_EVENTS)
				harvest_locked(0);
		}
		pthread_mutex_unlock(&G.lock);
	}
}

static void writer_start(void)
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

static void writer_kick(void)
{
	pthread_mutex_lock(&WT.mu);
	WT.kick = 1;
	pthread_cond_signal(&WT.cv);
	pthread_mutex_unlock(&WT.mu);
}

/* Stops the writer thread (not from a signal handler, not under G.lock). */
static void writer_stop(void)
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

/* A free ring slot, draining first when the ring is full. */
static struct entry *slot(struct preload_thread *t)
{
	uint64_t h = atomic_load_explicit(&t->head, memory_order_relaxed);
	uint64_t fill = h - atomic_load_explicit(&t->tail, memory_order_acquire);
	if (__builtin_expect(fill >= KICK, 0)) {
		if (fill >= RING) {
			flush_thread(t);
		} else if (h - t->kicked_at >= KICK / 2) {
			t->kicked_at = h;
			if (!WT.started)
				writer_start();
			if (WT.started == 1)
				writer_kick();
		}
	}
	struct entry *e = &t->ring[h % RING];
	e->fi = NULL;
	e->ev[0] = e->ev[1] = NULL;
	e->graph = 0;
	return e;
}

static void publish(struct preload_thread *t)
{
	atomic_fetch_add_explicit(&t->head, 1, memory_order_release);
}

static void thread_gone(void *p)
{
	struct preload_thread *t = p;
	if (t && t->pid == getpid() && G.state == ST_ON)
		flush_thread(t);
	/* The state stays registered (the exit path may still read it). */
}

/* ---- kernel handle cache ------------------------------------------------ */

typedef preload_cures (*get_name_fn)(const char **, void *);
typedef preload_cures (*func_attr_fn)(int *, int, void *);
typedef preload_cures (*kernel_func_fn)(void **, void *);
typedef preload_cures (*stream_id_fn)(void *, unsigned long long *);

static struct {
	int loaded;
	get_name_fn func_name, kernel_name;
	func_attr_fn func_attr;
	kernel_func_fn kernel_func;
	stream_id_fn stream_id, stream_id_ptsz;
} D;

/* Loads the driver functions the recorder calls, once the driver is there
 * (cuBLAS or cuDNN may be called before it is loaded). */
static void load_driver_utils(void)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	if (__atomic_load_n(&D.loaded, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&mu);
	if (!D.loaded && preload_driver_sym("cuInit")) {
		D.func_name = (get_name_fn)preload_driver_sym("cuFuncGetName");
		D.kernel_name = (get_name_fn)preload_driver_sym("cuKernelGetName");
		D.func_attr = (func_attr_fn)preload_driver_sym("cuFuncGetAttribute");
		D.kernel_func = (kernel_func_fn)preload_driver_sym("cuKernelGetFunction");
		D.stream_id = (stream_id_fn)preload_driver_sym("cuStreamGetId");
		D.stream_id_ptsz = (stream_id_fn)preload_driver_sym("cuStreamGetId_ptsz");
		if (!D.func_name && !D.kernel_name)
			preload_warn("the driver has no cuFuncGetName: kernels are recorded without names");
		__atomic_store_n(&D.loaded, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&mu);
}

uint64_t preload_stream_id(preload_stream s, int ptsz)
{
	load_driver_utils();
	unsigned long long id = 0;
	/* A NULL stream in a _ptsz call is the thread's per-thread stream. */
	if (ptsz && s == NULL)
		s = PRELOAD_STREAM_PER_THREAD;
	if (D.stream_id && D.stream_id(s, &id) == 0)
		return id;
	return 0;
}

static void fill_funcinfo(struct preload_funcinfo *fi, preload_func f)
{
	load_driver_utils();
	const char *name = NULL;
	void *fn = f;
	if (!D.func_name || D.func_name(&name, f) != 0) {
		name = NULL;
		/* A CUkernel passed as CUfunction (CUDA 12 library API). */
		if (D.kernel_name && D.kernel_name(&name, f) != 0)
			name = NULL;
		void *kf = NULL;
		if (D.kernel_func && D.kernel_func(&kf, f) == 0 && kf)
			fn = kf;
	}
	fi->name = name ? strdup(name) : NULL;
	int v;
	if (D.func_attr && D.func_attr(&v, 4 /* CU_FUNC_ATTRIBUTE_NUM_REGS */, fn) == 0)
		fi->regs = (uint32_t)v;
	if (D.func_attr && D.func_attr(&v, 1 /* CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES */, fn) == 0)
		fi->static_smem = (uint32_t)v;
}

#define FC_SIZE 16384u
static struct fc_slot {
	_Atomic(uintptr_t) key;
	atomic_int ready;
	struct preload_funcinfo info;
} fcache[FC_SIZE];

static struct preload_funcinfo *funcinfo(preload_func f)
{
	uintptr_t k = (uintptr_t)f;
	size_t i = mix(k) & (FC_SIZE - 1);
	for (int probe = 0; k && probe < 64; probe++, i = (i + 1) & (FC_SIZE - 1)) {
		struct fc_slot *s = &fcache[i];
		uintptr_t cur = atomic_load_explicit(&s->key, memory_order_acquire);
		if (cur == 0) {
			uintptr_t zero = 0;
			if (!atomic_compare_exchange_strong(&s->key, &zero, k)) {
				if (zero != k)
					continue;
				cur = k;
			} else {
				fill_funcinfo(&s->info, f);
				atomic_store_explicit(&s->ready, 1, memory_order_release);
				return &s->info;
			}
		}
		if (cur == k) {
			if (atomic_load_explicit(&s->ready, memory_order_acquire))
				return &s->info;
			break; /* another thread is filling it */
		}
	}
	/* Table full or busy: an uncached copy, kept for the process's life. */
	struct preload_funcinfo *fi = calloc(1, sizeof *fi);
	if (fi)
		fill_funcinfo(fi, f);
	return fi;
}

/* ---- timing choice ------------------------------------------------------ */

static void cupti_external(void *ctx, uint32_t corr, uint64_t ext);
static void cupti_kernel(void *ctx, const struct preload_cupti_kernel *k);
static void cupti_copy(void *ctx, const struct preload_cupti_copy *c);
static const struct preload_cupti_sink cupti_sink = {
	NULL, cupti_external, cupti_kernel, cupti_copy,
};

static void decide_timing(void)
{
	char why[128] = "";
	int want = preload_cfg.timing;
	if (want == TRACE_TIMING_CUPTI) {
		if (preload_cupti_start(&cupti_sink, why, sizeof why) == 0) {
			G.timing = TRACE_TIMING_CUPTI;
			snprintf(G.timing_note, sizeof G.timing_note, "CUPTI activity records");
			preload_note("timing: CUPTI");
			return;
		}
		preload_note("CUPTI unusable (%s): timing with CUDA events", why);
		want = TRACE_TIMING_EVENTS;
	}
	if (want == TRACE_TIMING_EVENTS) {
		char why2[128] = "";
		if (preload_events_init(why2, sizeof why2) == 0) {
			G.timing = TRACE_TIMING_EVENTS;
			if (why[0])
				snprintf(G.timing_note, sizeof G.timing_note,
					 "CUDA events: CUPTI unusable: %.96s", why);
			else
				snprintf(G.timing_note, sizeof G.timing_note,
					 "CUDA events: SURFER_TIMING=events");
			return;
		}
		preload_warn("no GPU timing: %s", why2);
		snprintf(G.timing_note, sizeof G.timing_note, "none: %.58s%s%.58s", why,
			 why[0] ? "; " : "", why2);
		G.timing = TRACE_TIMING_NONE;
		return;
	}
	G.timing = TRACE_TIMING_NONE;
	snprintf(G.timing_note, sizeof G.timing_note, "none: SURFER_TIMING=none");
}

static pthread_once_t timing_once = PTHREAD_ONCE_INIT;

/* ---- hooks' entry points ------------------------------------------------- */

void preload_launch_begin(const struct preload_launch *l, struct preload_launch_tok *tok)
{
	tok->active = 0;
	struct preload_thread *t = thread_state();
	if (!t)
		return;
	pthread_once(&timing_once, decide_timing);
	tok->t = t;
	tok->seq = next_seq(t);
	tok->ev[0] = tok->ev[1] = NULL;
	tok->active = 1;
	int ptsz = (l->flags & TRACE_KF_PTSZ) != 0;
	tok->captured = G.timing != TRACE_TIMING_NONE && preload_stream_capturing(l->stream, ptsz);
	if (G.timing == TRACE_TIMING_CUPTI) {
		preload_cupti_push(tok->seq);
	} else if (G.timing == TRACE_TIMING_EVENTS && !tok->captured) {
		if (preload_events_get(tok->ev) == 0)
			preload_events_record(tok->ev[0], l->stream, ptsz);
	}
	tok->cpu_ns = preload_now_ns();
}

void preload_launch_end(const struct preload_launch *l, struct preload_launch_tok *tok,
			preload_cures result)
{
	if (!tok->active)
		return;
	struct preload_thread *t = tok->t;
	int ptsz = (l->flags & TRACE_KF_PTSZ) != 0;
	if (G.timing == TRACE_TIMING_CUPTI)
		preload_cupti_pop();
	else if (tok->ev[0] && result == 0)
		preload_events_record(tok->ev[1], l->stream, ptsz);
	struct entry *e = slot(t);
	if (result != 0) {
		/* A failed launch ran nothing: give the events back unrecorded. */
		if (tok->ev[0]) {
			e->ev[0] = tok->ev[0];
			e->ev[1] = tok->ev[1];
			e->rec.type = TRACE_TYPE_MAX; /* recycled by the drain, not written */
			publish(t);
		}
		return;
	}
	e->ev[0] = tok->ev[0];
	e->ev[1] = tok->ev[1];
	e->fi = funcinfo(l->f);
	e->rec.type = TRACE_KERNEL;
	struct trace_kernel *k = &e->rec.u.kernel;
	memset(k, 0, sizeof *k);
	k->seq = tok->seq;
	for (int i = 0; i < 3; i++) {
		k->grid[i] = l->grid[i];
		k->block[i] = l->block[i];
		k->cluster[i] = l->cluster[i];
	}
	if (e->fi) {
		k->regs = e->fi->regs;
		k->static_smem = e->fi->static_smem;
	}
	k->dyn_smem = l->dyn_smem;
	k->stream = preload_stream_id(l->stream, ptsz);
	k->thread = t->tid;
	k->flags = l->flags;
	if (tok->captured)
		k->flags |= TRACE_KF_CAPTURED;
	k->cpu_ns = tok->cpu_ns;
	k->lib_call = t->lib_depth > 0 ? t->lib_seq : 0;
	k->iteration = atomic_load_explicit(&G.iteration, memory_order_relaxed);
	k->stack = preload_cfg.stacks ? preload_stack_capture() : 0;
	publish(t);
}

void preload_graph_begin(preload_stream s, int ptsz, struct preload_launch_tok *tok)
{
	(void)s;
	(void)ptsz;
	tok->active = 0;
	struct preload_thread *t = thread_state();
	if (!t)
		return;
	pthread_once(&timing_once, decide_timing);
	tok->t = t;
	tok->seq = next_seq(t);
	tok->active = 1;
	if (G.timing == TRACE_TIMING_CUPTI)
		preload_cupti_push(tok->seq);
	tok->cpu_ns = preload_now_ns();
}

void preload_graph_end(preload_stream s, int ptsz, struct preload_launch_tok *tok, preload_cures r)
{
	if (!tok->active)
		return;
	if (G.timing == TRACE_TIMING_CUPTI)
		preload_cupti_pop();
	/* Without CUPTI the kernels of a replay are invisible: nothing to keep. */
	if (r != 0 || G.timing != TRACE_TIMING_CUPTI)
		return;
	struct preload_thread *t = tok->t;
	struct entry *e = slot(t);
	e->graph = 1;
	e->rec.type = TRACE_KERNEL;
	struct trace_kernel *k = &e->rec.u.kernel;
	memset(k, 0, sizeof *k);
	k->seq = tok->seq;
	k->stream = preload_stream_id(s, ptsz);
	k->thread = t->tid;
	k->flags = TRACE_KF_GRAPH | (ptsz ? TRACE_KF_PTSZ : 0);
	k->cpu_ns = tok->cpu_ns;
	k->lib_call = t->lib_depth > 0 ? t->lib_seq : 0;
	k->iteration = atomic_load_explicit(&G.iteration, memory_order_relaxed);
	publish(t);
}

uint64_t preload_op_begin(void)
{
	struct preload_thread *t = thread_state();
	if (!t)
		return 0;
	pthread_once(&timing_once, decide_timing);
	uint64_t seq = next_seq(t);
	if (G.timing == TRACE_TIMING_CUPTI)
		preload_cupti_push(seq);
	return seq;
}

void preload_op_end(void)
{
	if (G.timing == TRACE_TIMING_CUPTI && tls_thread)
		preload_cupti_pop();
}

void preload_copy(uint64_t seq, int type, uint64_t bytes, enum trace_copy_kind kind,
		  enum trace_host_mem host_mem, int async, preload_stream s, int ptsz,
		  uint64_t cpu_ns, uint64_t cpu_end_ns)
{
	struct preload_thread *t = thread_state();
	if (!t)
		return;
	struct entry *e = slot(t);
	e->rec.type = (enum trace_type)type;
	struct trace_copy *c = &e->rec.u.copy;
	memset(c, 0, sizeof *c);
	c->seq = seq ? seq : next_seq(t);
	c->bytes = bytes;
	c->kind = kind;
	c->host_mem = host_mem;
	c->async = (uint8_t)async;
	c->stream = preload_stream_id(s, ptsz);
	c->thread = t->tid;
	c->cpu_ns = cpu_ns;
	c->cpu_end_ns = cpu_end_ns;
	publish(t);
}

void preload_sync(enum trace_sync_kind kind, preload_stream s, int ptsz, uint64_t cpu_ns,
		  uint64_t cpu_end_ns, uint64_t event)
{
	struct preload_thread *t = thread_state();
	if (!t)
		return;
	struct entry *e = slot(t);
	e->rec.type = TRACE_SYNC;
	struct trace_sync *y = &e->rec.u.sync;
	memset(y, 0, sizeof *y);
	y->seq = next_seq(t);
	y->kind = kind;
	/* a context or event sync names no stream (the event's own says
	 * which work it waits for) */
	y->stream = kind == TRACE_SYNC_CTX || kind == TRACE_SYNC_EVENT ? 0 : preload_stream_id(s, ptsz);
	y->thread = t->tid;
	y->cpu_ns = cpu_ns;
	y->cpu_end_ns = cpu_end_ns;
	y->event = event;
	publish(t);
	/* Without a writer thread, a thread that waited for the GPU writes. */
	if (kind != TRACE_SYNC_STREAM_WAIT_EVENT && kind != TRACE_SYNC_EVENT_RECORD && WT.started != 1)
		flush_thread(t);
}

/* ---- device memory held ------------------------------------------------ */

/* What the program holds through the driver's allocators, and the most it
 * held at once: the trailer's peak_device_bytes, which the analyzer
 * compares with each target's memory.  Counted from the start, whatever
 * is being recorded.  Allocations are rare (PyTorch's caching allocator
 * keeps its segments), so one lock is enough. */
static struct {
	pthread_mutex_t mu;
	struct u64map size;           /* device pointer -> bytes                */
	uint64_t held, peak;
} M = { .mu = PTHREAD_MUTEX_INITIALIZER };

void preload_mem_alloc(uint64_t ptr, uint64_t bytes)
{
	if (!ptr || !bytes)
		return;
	int e = errno;             /* the host program's, as the driver left it */
	pthread_mutex_lock(&M.mu);
	/* a pointer the map cannot hold is still counted (never freed) */
	void *old = map_get(&M.size, ptr);
	if (old)
		M.held -= (uint64_t)(uintptr_t)old;
	map_put(&M.size, ptr, (void *)(uintptr_t)bytes);
	M.held += bytes;
	if (M.held > M.peak)
		M.peak = M.held;
	pthread_mutex_unlock(&M.mu);
	errno = e;
}

void preload_mem_free(uint64_t ptr)
{
	if (!ptr)
		return;
	int e = errno;
	pthread_mutex_lock(&M.mu);
	uint64_t b = (uint64_t)(uintptr_t)map_get(&M.size, ptr);
	if (b) {
		map_del(&M.size, ptr);
		M.held -= b;
	}
	pthread_mutex_unlock(&M.mu);
	errno = e;
}

static uint64_t mem_peak(void)
{
	pthread_mutex_lock(&M.mu);
	uint64_t p = M.peak;
	pthread_mutex_unlock(&M.mu);
	return p;
}

void preload_before_teardown(void)
{
	if (G.timing == TRACE_TIMING_CUPTI) {
		preload_cupti_flush();
		return;
	}
	if (G.timing != TRACE_TIMING_EVENTS)
		return;
	typedef preload_cures (*sync_fn)(void);
	sync_fn sync = (sync_fn)preload_driver_sym("cuCtxSynchronize");
	if (sync)
		sync();
	pthread_mutex_lock(&G.lock);
	if (G.state == ST_ON) {
		drain_all_locked();
		harvest_locked(1);
	}
	pthread_mutex_unlock(&G.lock);
}

int preload_lib_enter(uint64_t *seq)
{
	struct preload_thread *t = thread_state();
	if (!t)
		return 0;
	if (t->lib_depth++ > 0)
		return 0;
	t->lib_seq = *seq = next_seq(t);
	return 1;
}

void preload_lib_leave(void)
{
	struct preload_thread *t = tls_thread;
	if (t && t->lib_depth > 0)
		t->lib_depth--;
}

void preload_gemm(struct trace_gemm *g)
{
	struct preload_thread *t = thread_state();
	if (!t)
		return;
	struct entry *e = slot(t);
	e->rec.type = TRACE_GEMM;
	g->thread = t->tid;
	g->cpu_ns = preload_now_ns();
	e->rec.u.gemm = *g;
	publish(t);
}

void preload_conv(struct trace_conv *c)
{
	struct preload_thread *t = thread_state();
	if (!t)
		return;
	struct entry *e = slot(t);
	e->rec.type = TRACE_CONV;
	c->thread = t->tid;
	c->cpu_ns = preload_now_ns();
	e->rec.u.conv = *c;
	publish(t);
}

static void finish(int from_signal);

static void marker(enum trace_marker_kind kind, int iteration)
{
	struct preload_thread *t = thread_state();
	if (!t)
		return;
	struct entry *e = slot(t);
	e->rec.type = TRACE_MARKER;
	struct trace_marker *m = &e->rec.u.marker;
	memset(m, 0, sizeof *m);
	m->seq = next_seq(t);
	m->kind = kind;
	m->thread = t->tid;
	m->cpu_ns = preload_now_ns();
	m->iteration = iteration;
	publish(t);
}

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

void preload_profiler(int start)
{
	if (G.state != ST_ON)
		return;
	const struct preload_settings *c = &preload_cfg;
	int windowed = c->skip || c->iterations;
	if (start) {
		/* Settle the timing (CUPTI's start costs tens of ms on a real
		 * GPU) before the window opens, not at its first launch. */
		if (preload_driver_sym("cuInit"))
			pthread_once(&timing_once, decide_timing);
		int idx = G.windows++;
		if (windowed)
			G.capture = idx >= c->skip && (!c->iterations || idx < c->skip + c->iterations);
		update_rec();
		atomic_store(&G.iteration, idx);
		if (G.capture)
			marker(TRACE_MARK_CAPTURE_START, idx);
		return;
	}
	int idx = atomic_load(&G.iteration);
	if (idx < 0)
		return;
	if (G.capture)
		marker(TRACE_MARK_CAPTURE_STOP, idx);
	atomic_store(&G.iteration, -1);
	if (windowed) {
		G.capture = 0;
		update_rec();
		if (c->iterations && idx + 1 >= c->skip + c->iterations)
			finish(0);
	}
}

/* ---- the writer (all below runs under G.lock) --------------------------- */

typedef preload_cures (*dev_get_fn)(int *, int);
typedef preload_cures (*ctx_dev_fn)(int *);
typedef preload_cures (*dev_name_fn)(char *, int, int);
typedef preload_cures (*dev_attr_fn)(int *, int, int);
typedef preload_cures (*dev_mem_fn)(size_t *, int);
typedef preload_cures (*drv_ver_fn)(int *);

static void device_props(struct trace_device *d)
{
	ctx_dev_fn ctx_dev = (ctx_dev_fn)preload_driver_sym("cuCtxGetDevice");
	dev_get_fn dev_get = (dev_get_fn)preload_driver_sym("cuDeviceGet");
	dev_name_fn name = (dev_name_fn)preload_driver_sym("cuDeviceGetName");
	dev_attr_fn attr = (dev_attr_fn)preload_driver_sym("cuDeviceGetAttribute");
	dev_mem_fn mem = (dev_mem_fn)preload_driver_sym("cuDeviceTotalMem_v2");
	drv_ver_fn ver = (drv_ver_fn)preload_driver_sym("cuDriverGetVersion");
	int dev = 0, v;
	if (!ctx_dev || ctx_dev(&dev) != 0) {
		dev = 0;
		if (!dev_get || dev_get(&dev, 0) != 0)
			return;
	}
	if (name && name(d->name, (int)sizeof d->name, dev) != 0)
		d->name[0] = 0;
	d->name[sizeof d->name - 1] = 0;
	/* CUdevice_attribute values, cuda.h */
	static const struct { int attr; size_t off; } A[] = {
		{ 75, offsetof(struct trace_device, cc_major) },
		{ 76, offsetof(struct trace_device, cc_minor) },
		{ 16, offsetof(struct trace_device, sm_count) },
		{ 13, offsetof(struct trace_device, clock_khz) },
		{ 36, offsetof(struct trace_device, mem_clock_khz) },
		{ 37, offsetof(struct trace_device, mem_bus_bits) },
		{ 38, offsetof(struct trace_device, l2_bytes) },
		{ 39, offsetof(struct trace_device, max_threads_per_sm) },
		{ 106, offsetof(struct trace_device, max_blocks_per_sm) },
		{ 82, offsetof(struct trace_device, regs_per_sm) },
		{ 81, offsetof(struct trace_device, smem_per_sm) },
		{ 97, offsetof(struct trace_device, smem_per_block_optin) },
	};
	for (size_t i = 0; attr && i < sizeof A / sizeof *A; i++)
		if (attr(&v, A[i].attr, dev) == 0 && v >= 0)
			*(uint32_t *)((char *)d + A[i].off) = (uint32_t)v;
	size_t bytes;
	if (mem && mem(&bytes, dev) == 0)
		d->mem_bytes = bytes;
	if (ver && ver(&v) == 0)
		d->driver_version = (uint32_t)v;
}

static void expand_output(char *out, size_t n)
{
	const char *src = preload_cfg.output;
	size_t o = 0;
	int had_pid = 0;
	for (const char *p = src; *p && o + 1 < n; p++) {
		if (p[0] == '%' && p[1] == 'p') {
			o += (size_t)snprintf(out + o, n - o, "%d", (int)G.pid);
			had_pid = 1;
			p++;
		} else {
			out[o++] = *p;
		}
	}
	if (o >= n)
		o = n - 1;
	out[o] = 0;
	/* A child never writes into its parent's file. */
	if (!had_pid && G.pid != G.root_pid)
		snprintf(out + o, n - o, ".%d", (int)G.pid);
}

static int open_writer(void)
{
	if (G.w)
		return 0;
	if (G.state != ST_ON)
		return -1;
	char path[1100];
	expand_output(path, sizeof path);
	int err = 0;
	G.w = trace_writer_open(path, 0, &err);
	if (!G.w) {
		preload_warn("cannot write '%s': %s: recording off", path,
			     err == TRACE_ENOMEM ? "out of memory" : strerror(errno));
		turn_off();
		return -1;
	}
	G.gen++;
	struct trace_header h;
	memset(&h, 0, sizeof h);
	snprintf(h.tool_version, sizeof h.tool_version, "libsurfer %s", SURFER_VERSION);
	gethostname(h.host, sizeof h.host - 1);
	h.pid = (uint32_t)G.pid;
	h.start_unix_ns = unix_ns();
	FILE *f = fopen("/proc/self/cmdline", "re");
	if (f) {
		size_t n = fread(h.cmdline, 1, sizeof h.cmdline - 1, f);
		for (size_t i = 0; n && i < n - 1; i++)
			if (!h.cmdline[i])
				h.cmdline[i] = ' ';
		fclose(f);
	}
	/* The header is written once: settle the timing now if a driver is
	 * there to time with (a sync can come before the first launch). */
	if (preload_driver_sym("cuInit"))
		pthread_once(&timing_once, decide_timing);
	else if (!G.timing_note[0])
		snprintf(G.timing_note, sizeof G.timing_note, "none: the CUDA driver was not loaded");
	h.timing = (enum trace_timing)G.timing;
	snprintf(h.timing_note, sizeof h.timing_note, "%s", G.timing_note);
	device_props(&h.device);
	if (trace_writer_header(G.w, &h) != 0) {
		preload_warn("cannot write '%s': %s: recording off", path, strerror(errno));
		turn_off();
		return -1;
	}
	preload_note("writing %s (timing: %s)", path, trace_timing_name(h.timing));
	return 0;
}

static void write_locked(struct trace_record *rec, struct preload_funcinfo *fi)
{
	if (open_writer() < 0)
		return;
	if (rec->type == TRACE_KERNEL && fi && fi->name) {
		if (fi->name_gen != G.gen) {
			fi->name_id = trace_writer_intern(G.w, fi->name, strlen(fi->name));
			fi->name_gen = G.gen;
		}
		rec->u.kernel.name = fi->name_id;
	}
	if (rec->type == TRACE_KERNEL && rec->u.kernel.stack &&
	    preload_stack_write(G.w, rec->u.kernel.stack, G.gen) != 0)
		rec->u.kernel.stack = 0;
	if (trace_writer_record(G.w, rec) != 0) {
		preload_warn("cannot write the trace (%s): recording off", strerror(errno));
		turn_off();
	}
}

/* Pending nodes are recycled (under G.lock): a malloc/free per kernel made
 * the allocator grow and trim its heap continuously. */
static struct pend *pend_free_list;
static size_t pend_nfree;

static struct pend *pend_alloc(void)
{
	struct pend *p = pend_free_list;
	if (p) {
		pend_free_list = p->next;
		pend_nfree--;
		return p;
	}
	p = malloc(sizeof *p);
	if (p) {
		p->nodes = NULL;
		p->nnodes = p->capnodes = 0;
	}
	return p;
}

static void pend_release(struct pend *p)
{
	free(p->nodes);
	p->nodes = NULL;
	p->nnodes = p->capnodes = 0;
	if (pend_nfree >= 65536) {
		free(p);
		return;
	}
	p->next = pend_free_list;
	pend_free_list = p;
	pend_nfree++;
}

static void pend_unlink(struct pend *p)
{
	if (p->prev)
		p->prev->next = p->next;
	else
		G.phead = p->next;
	if (p->next)
		p->next->prev = p->prev;
	else
		G.ptail = p->prev;
	G.npending--;
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

static void adopt_orphans(struct pend *p, uint64_t seq);

/* Kernel names of pending records: kept alongside (the pend holds only the
 * record) by interning at drain time. */
static void add_pending(struct entry *e)
{
	struct pend *p = pend_alloc();
	if (!p) {
		write_locked(&e->rec, e->fi);
		return;
	}
	if (e->rec.type == TRACE_KERNEL && e->fi && e->fi->name && open_writer() == 0) {
		if (e->fi->name_gen != G.gen) {
			e->fi->name_id = trace_writer_intern(G.w, e->fi->name, strlen(e->fi->name));
			e->fi->name_gen = G.gen;
		}
		e->rec.u.kernel.name = e->fi->name_id;
	}
	p->rec = e->rec;
	p->ev[0] = e->ev[0];
	p->ev[1] = e->ev[1];
	p->graph = e->graph;
	p->next = NULL;
	p->prev = G.ptail;
	if (G.ptail)
		G.ptail->next = p;
	else
		G.phead = p;
	G.ptail = p;
	G.npending++;
	if (G.timing == TRACE_TIMING_CUPTI) {
		map_put(&G.pending, rec_seq(&p->rec), p);
		if (p->rec.type == TRACE_KERNEL)
			adopt_orphans(p, rec_seq(&p->rec));
	}
}

static void drain_locked(struct preload_thread *t)
{
	uint64_t tail = atomic_load_explicit(&t->tail, memory_order_relaxed);
	uint64_t head = atomic_load_explicit(&t->head, memory_order_acquire);
	for (; tail != head; tail++) {
		struct entry *e = &t->ring[tail % RING];
		if (e->rec.type == TRACE_TYPE_MAX) {
			if (e->ev[0])
				preload_events_put(e->ev);
			continue;
		}
		if (G.state != ST_ON) {
			if (e->ev[0])
				preload_events_put(e->ev);
			continue;
		}
		int timed = (e->rec.type == TRACE_KERNEL && !e->graph &&
			     !(e->rec.u.kernel.flags & TRACE_KF_CAPTURED) &&
			     (e->ev[0] || G.timing == TRACE_TIMING_CUPTI)) ||
			    (e->graph && G.timing == TRACE_TIMING_CUPTI) ||
			    (G.timing == TRACE_TIMING_CUPTI &&
			     (e->rec.type == TRACE_MEMCPY || e->rec.type == TRACE_MEMSET));
		if (timed)
			add_pending(e);
		else
			write_locked(&e->rec, e->fi);
	}
	atomic_store_explicit(&t->tail, tail, memory_order_release);
}

static void drain_all_locked(void)
{
	pthread_mutex_lock(&G.reg_lock);
	for (struct preload_thread *t = G.threads; t; t = t->next)
		if (t->pid == G.pid)
			drain_locked(t);
	pthread_mutex_unlock(&G.reg_lock);
}

/* Events: writes the pending kernels whose events completed (all of them
 * when wait is set); stops after a run of unfinished ones. */
static void harvest_locked(int wait)
{
	int misses = 0;
	for (struct pend *p = G.phead, *n; p && misses < 64; p = n) {
		n = p->next;
		if (!p->ev[0])
			continue;
		uint64_t s = 0, e = 0;
		int r = preload_events_resolve(p->ev, wait, &s, &e);
		if (r == 0) {
			misses++;
			continue;
		}
		misses = 0;
		if (r > 0) {
			p->rec.u.kernel.start_ns = s;
			p->rec.u.kernel.end_ns = e;
		}
		preload_events_put(p->ev);
		pend_unlink(p);
		write_locked(&p->rec, NULL);
		pend_release(p);
	}
}

/* ---- CUPTI joins (called from CUPTI's buffer-completion thread) --------- */

static void cupti_external(void *ctx, uint32_t corr, uint64_t ext)
{
	(void)ctx;
	if (G.corr.n > (1u << 20))
		map_clear(&G.corr);
	map_put(&G.corr, corr, (void *)(uintptr_t)ext);
}

/* Applies one CUPTI kernel report to its pending record: a launch gets its
 * GPU times and is written; a graph replay gets one kernel record per
 * report, from CUPTI's view.  Returns 1 when p was written and released. */
static int join_kernel(struct pend *p, const struct preload_cupti_kernel *k)
{
	uint64_t s = preload_cupti_to_cpu_ns(k->start_ns), e = preload_cupti_to_cpu_ns(k->end_ns);
	if (!p->graph) {
		p->rec.u.kernel.start_ns = s;
		p->rec.u.kernel.end_ns = e;
		map_del(&G.pending, p->rec.u.kernel.seq);
		pend_unlink(p);
		write_locked(&p->rec, NULL);
		pend_release(p);
		return 1;
	}
	struct trace_record r = p->rec;
	struct trace_kernel *kr = &r.u.kernel;
	kr->seq = atomic_fetch_add(&G.seq, 1);
	if (open_writer() < 0)
		return 0;
	kr->name = k->name ? trace_writer_intern(G.w, k->name, strlen(k->name)) : 0;
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
	write_locked(&r, NULL);
	return 0;
}

/* A report that came before its launch record was handed over (the GPU
 * can finish a kernel before the launching thread publishes it): kept by
 * seq until the record arrives. */
struct orphan {
	struct preload_cupti_kernel k;
	struct orphan *next;
};

static void keep_orphan(uint64_t seq, const struct preload_cupti_kernel *k)
{
	struct orphan *o = malloc(sizeof *o);
	if (!o)
		return;
	o->k = *k;
	o->k.name = k->name ? strdup(k->name) : NULL;
	o->next = NULL;
	/* In report order: a graph's kernels keep their order. */
	struct orphan *head = map_get(&G.orphans, seq), *t = head;
	while (t && t->next)
		t = t->next;
	if (t)
		t->next = o;
	else
		map_put(&G.orphans, seq, o);
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
static void adopt_orphans(struct pend *p, uint64_t seq)
{
	struct orphan *o = map_get(&G.orphans, seq);
	if (!o)
		return;
	map_del(&G.orphans, seq);
	int done = 0;
	for (struct orphan *x = o; x && !done; x = x->next)
		done = join_kernel(p, &x->k);
	free_orphans(o);
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

static uint64_t pend_cpu_ns(const struct pend *p)
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
static void consider(struct pend *p, int on_stream, struct pend **same, struct pend **any)
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
static struct pend *match_kernel(const struct preload_cupti_kernel *k)
{
	if (k->graph_id || !k->name || open_writer() < 0)
		return NULL;
	uint32_t name = trace_writer_intern(G.w, k->name, strlen(k->name));
	uint64_t limit = launched_by(k->start_ns);
	struct pend *same = NULL, *any = NULL;
	for (struct pend *p = G.phead; p && name; p = p->next)
		if (p->rec.type == TRACE_KERNEL && !p->graph && p->rec.u.kernel.cpu_ns <= limit &&
		    same_kernel(&p->rec.u.kernel, name, k))
			consider(p, p->rec.u.kernel.stream == k->stream, &same, &any);
	return same ? same : any;
}

/* A graph replay's kernel no correlation names: the earliest-launched
 * pending replay on its stream (else on any) that was launched before it
 * started and has not had this graph node yet.  The replays launched
 * before that one on its stream have run all their nodes: released. */
static struct pend *match_graph(const struct preload_cupti_kernel *k)
{
	uint64_t limit = launched_by(k->start_ns);
	struct pend *same = NULL, *any = NULL;
	for (struct pend *p = G.phead; p; p = p->next) {
		if (!p->graph || p->rec.u.kernel.cpu_ns > limit)
			continue;
		int seen = 0;
		for (uint32_t i = 0; i < p->nnodes && !seen; i++)
			seen = p->nodes[i] == k->graph_node_id;
		if (!seen)
			consider(p, p->rec.u.kernel.stream == k->stream, &same, &any);
	}
	struct pend *m = same ? same : any;
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
	for (struct pend *p = G.phead, *n; p; p = n) {
		n = p->next;
		if (p->graph && p != m && p->rec.u.kernel.stream == m->rec.u.kernel.stream &&
		    p->rec.u.kernel.cpu_ns < m->rec.u.kernel.cpu_ns && p->nnodes) {
			map_del(&G.pending, p->rec.u.kernel.seq);
			pend_unlink(p);
			pend_release(p);
		}
	}
	return m;
}

/* The same for a copy or set, by its size. */
static struct pend *match_copy(const struct preload_cupti_copy *c)
{
	uint64_t limit = launched_by(c->start_ns);
	struct pend *same = NULL, *any = NULL;
	for (struct pend *p = G.phead; p; p = p->next)
		if (p->rec.type == (c->memset ? TRACE_MEMSET : TRACE_MEMCPY) &&
		    p->rec.u.copy.bytes == c->bytes && p->rec.u.copy.cpu_ns <= limit)
			consider(p, p->rec.u.copy.stream == c->stream, &same, &any);
	return same ? same : any;
}

static void join_copy(struct pend *p, const struct preload_cupti_copy *c)
{
	p->rec.u.copy.start_ns = preload_cupti_to_cpu_ns(c->start_ns);
	p->rec.u.copy.end_ns = preload_cupti_to_cpu_ns(c->end_ns);
	map_del(&G.pending, p->rec.u.copy.seq);
	pend_unlink(p);
	write_locked(&p->rec, NULL);
	pend_release(p);
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
		if (counts_as_dropped() && open_writer() == 0)
			trace_writer_add_dropped(G.w, 1);
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
	uint64_t seq = (uint64_t)(uintptr_t)map_get(&G.corr, k->correlation);
	struct pend *p = seq ? map_get(&G.pending, seq) : NULL;
	if (p && p->rec.type == TRACE_KERNEL) {
		join_kernel(p, k);
		return 1;
	}
	if (seq) {
		keep_orphan(seq, k);
		return 1;
	}
	if (launched_by(k->start_ns) < first)
		return 0;
	if ((p = k->graph_id ? match_graph(k) : match_kernel(k)) != NULL) {
		join_kernel(p, k);
		return 1;
	}
	return 0;
}

static int try_copy(const struct preload_cupti_copy *c, uint64_t first)
{
	uint64_t seq = (uint64_t)(uintptr_t)map_get(&G.corr, c->correlation);
	struct pend *p = seq ? map_get(&G.pending, seq) : NULL;
	if (!p || (p->rec.type != TRACE_MEMCPY && p->rec.type != TRACE_MEMSET))
		p = seq || launched_by(c->start_ns) < first ? NULL : match_copy(c);
	if (!p)
		return 0;
	join_copy(p, c);
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
	for (struct pend *p = G.phead; p; p = p->next)
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
	if (lost && open_writer() == 0)
		trace_writer_add_dropped(G.w, lost);
}

/* CUPTI calls these around a buffer's records: the joins need the lock and
 * every launch published so far. */
void preload_cupti_deliver_begin(void)
{
	pthread_mutex_lock(&G.lock);
	drain_all_locked();
	retry_unjoined(0);
}

void preload_cupti_deliver_end(void)
{
	pthread_mutex_unlock(&G.lock);
}

/* ---- end of recording ------------------------------------------------------ */

typedef preload_cures (*ctx_sync_fn)(void);

static void finish(int from_signal)
{
	if (G.state != ST_ON || G.pid != getpid())
		return;
	if (!from_signal) {
		writer_stop();
		/* the last kernels' events and CUPTI reports are complete
		 * once they ran */
		ctx_sync_fn sync = (ctx_sync_fn)preload_driver_sym("cuCtxSynchronize");
		if (sync && (G.timing == TRACE_TIMING_EVENTS || G.timing == TRACE_TIMING_CUPTI))
			sync();
		if (G.timing == TRACE_TIMING_CUPTI)
			preload_cupti_flush();
		pthread_mutex_lock(&G.lock);
	} else if (pthread_mutex_trylock(&G.lock) != 0) {
		return;
	}
	if (G.state == ST_ON) {
		drain_all_locked();
		if (G.timing == TRACE_TIMING_EVENTS && !from_signal)
			harvest_locked(1);
		if (!from_signal)
			retry_unjoined(1);
		/* What is still pending has no GPU times. */
		for (struct pend *p = G.phead, *n; p; p = n) {
			n = p->next;
			if (!p->graph)
				write_locked(&p->rec, NULL);
			pend_release(p);
		}
		G.phead = G.ptail = NULL;
		G.npending = 0;
		map_clear(&G.pending);
		for (size_t i = 0; i < G.orphans.cap; i++)
			if (G.orphans.keys[i])
				free_orphans(G.orphans.vals[i]);
		map_clear(&G.orphans);
		/* A process that recorded nothing (a shell, a compiler the
		 * program ran) leaves no file behind. */
		if (G.w) {
			trace_writer_set_peak_device_bytes(G.w, mem_peak());
			if (trace_writer_finish(G.w) != 0)
				preload_warn("cannot finish the trace: %s", strerror(errno));
			trace_writer_free(G.w);
			G.w = NULL;
		}
		turn_off();
	}
	pthread_mutex_unlock(&G.lock);
}

static void at_exit(void)
{
	int e = errno;
	finish(0);
	errno = e;
}

static void on_signal(int sig)
{
	int e = errno;
	finish(1);
	errno = e;
	raise(sig); /* SA_RESETHAND restored the default action */
}

/* ---- fork ------------------------------------------------------------------ */

static void fork_prepare(void)
{
	pthread_mutex_lock(&WT.mu);
	pthread_mutex_lock(&G.lock);
	pthread_mutex_lock(&G.reg_lock);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&G.reg_lock);
	pthread_mutex_unlock(&G.lock);
	pthread_mutex_unlock(&WT.mu);
}

static void fork_child(void)
{
	pthread_mutex_init(&G.lock, NULL);
	pthread_mutex_init(&G.reg_lock, NULL);
	/* The writer thread was not forked: the child starts its own. */
	pthread_mutex_init(&WT.mu, NULL);
	pthread_cond_init(&WT.cv, NULL);
	WT.started = WT.kick = WT.stop = 0;
	/* The parent's writer, records and events are the parent's: forget them
	 * (the writer is leaked on purpose; freeing it would flush into the
	 * parent's file). */
	G.w = NULL;
	G.pid = getpid();
	struct preload_thread *me = tls_thread;
	if (me)
		me->tid = (uint32_t)syscall(SYS_gettid);
	for (struct preload_thread *t = G.threads; t; t = t->next) {
		atomic_store(&t->tail, atomic_load(&t->head));
		t->pid = G.pid;
	}
	G.threads = me;
	if (me)
		me->next = NULL;
	G.phead = G.ptail = NULL;
	G.npending = 0;
	memset(&G.pending, 0, sizeof G.pending);
	memset(&G.corr, 0, sizeof G.corr);
	memset(&G.orphans, 0, sizeof G.orphans);
	if (G.state == ST_ON && G.timing == TRACE_TIMING_CUPTI) {
		/* CUPTI does not follow fork; the child records CPU times only. */
		G.timing = TRACE_TIMING_NONE;
		snprintf(G.timing_note, sizeof G.timing_note, "none: forked child");
	}
}
