/*
 * stacks.c - native call stacks of launches (SURFER_STACKS=1).
 *
 * On each launch the stack is taken with libunwind's unw_backtrace (raw
 * return addresses, ~100-300 ns), hashed, and looked up in a lock-free
 * insert-only table: a known stack costs the unwind and one probe, a new
 * one a copy of its addresses.  Symbolizing costs microseconds per frame,
 * so it happens once per distinct stack, with dladdr ("module+0xoffset
 * symbol+0xoffset"), when the first kernel using it is written (the trace
 * format wants a stack defined before it is referenced).  Never called from
 * the dlsym/dlopen hooks.
 *
 * libunwind is opened here, with RTLD_LOCAL, and only when stacks are
 * asked for; libsurfer.so never links it.  Linked, libunwind.so.8 sits in
 * the process's global scope ahead of libgcc_s, and its _Unwind_*
 * exports (and a weak backtrace) take over every C++ exception of the
 * host where the program does not link libgcc_s (python3 does not): a
 * throw and catch took 60.2 us against 0.66 (a C++ loop of 20,000 under
 * LD_PRELOAD of libunwind.so.8 alone), SURFER_DISABLE=1 or not.  Opened local, its
 * symbols serve only the pointer taken from it.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload/preload.h"

#define TABLE 8192u
#define SKIP 3 /* preload_stack_capture, preload_launch_end (or _graph_end), the hook */

static struct sslot {
	atomic_uint_fast64_t hash;    /* 0 empty                                 */
	atomic_int ready;
	uint32_t id, n;
	uint32_t written_gen;         /* writer generation it was written to   */
	void **pcs;
} table[TABLE];
static struct sslot *by_id[TABLE + 1];
static atomic_uint next_id = 1;

#define UNWIND_SONAME "libunwind.so.8"

static int (*unwind_backtrace)(void **, int);
static pthread_once_t unwind_once = PTHREAD_ONCE_INIT;

static void unwind_open(void)
{
	void *h = dlopen(UNWIND_SONAME, RTLD_NOW | RTLD_LOCAL);
	void *f = h ? dlsym(h, "unw_backtrace") : NULL;
	if (!f) {
		preload_warn("SURFER_STACKS=1: %s: %s; launches recorded without their stacks",
			     UNWIND_SONAME, h ? "no unw_backtrace" : dlerror());
		return;
	}
	*(void **)&unwind_backtrace = f;
}

uint32_t preload_stack_capture(void)
{
	void *pcs[TRACE_STACK_MAXFRAMES + SKIP];
	pthread_once(&unwind_once, unwind_open);
	if (!unwind_backtrace)
		return 0;
	int n = unwind_backtrace(pcs, (int)(sizeof pcs / sizeof *pcs));
	if (n <= SKIP)
		return 0;
	void **f = pcs + SKIP;
	n -= SKIP;
	/* FNV-1a over the addresses; 0 is reserved for empty slots. */
	uint64_t h = 1469598103934665603ULL;
	for (int i = 0; i < n; i++) {
		h ^= (uint64_t)(uintptr_t)f[i];
		h *= 1099511628211ULL;
	}
	h |= 1;
	for (uint32_t probe = 0, i = (uint32_t)(h >> 7) & (TABLE - 1); probe < 256;
	     probe++, i = (i + 1) & (TABLE - 1)) {
		struct sslot *s = &table[i];
		uint_fast64_t cur = atomic_load_explicit(&s->hash, memory_order_acquire);
		if (cur == 0) {
			uint_fast64_t zero = 0;
			if (atomic_compare_exchange_strong(&s->hash, &zero, h)) {
				s->pcs = malloc((size_t)n * sizeof *s->pcs);
				if (!s->pcs)
					return 0;
				memcpy(s->pcs, f, (size_t)n * sizeof *f);
				s->n = (uint32_t)n;
				s->id = atomic_fetch_add(&next_id, 1);
				if (s->id > TABLE) {
					s->id = 0;
					return 0;
				}
				by_id[s->id] = s;
				atomic_store_explicit(&s->ready, 1, memory_order_release);
				return s->id;
			}
			cur = zero;
		}
		if (cur == h)
			return atomic_load_explicit(&s->ready, memory_order_acquire) ? s->id : 0;
	}
	return 0;
}

static uint32_t frame_string(struct trace_writer *w, void *pc)
{
	char buf[512];
	Dl_info info;
	/* A return address points after the call: look up pc - 1. */
	void *q = (char *)pc - 1;
	if (dladdr(q, &info) && info.dli_fname) {
		const char *mod = strrchr(info.dli_fname, '/');
		mod = mod ? mod + 1 : info.dli_fname;
		int n = snprintf(buf, sizeof buf, "%s+0x%lx", mod,
				 (unsigned long)((char *)pc - (char *)info.dli_fbase));
		if (info.dli_sname && n > 0 && (size_t)n < sizeof buf)
			snprintf(buf + n, sizeof buf - (size_t)n, " %s+0x%lx", info.dli_sname,
				 (unsigned long)((char *)pc - (char *)info.dli_saddr));
	} else {
		snprintf(buf, sizeof buf, "?+0x%lx", (unsigned long)(uintptr_t)pc);
	}
	return trace_writer_intern(w, buf, strlen(buf));
}

int preload_stack_write(struct trace_writer *w, uint32_t id, uint32_t gen)
{
	struct sslot *s = id && id <= TABLE ? by_id[id] : NULL;
	if (!s || !atomic_load_explicit(&s->ready, memory_order_acquire))
		return -1;
	if (s->written_gen == gen)
		return 0;
	struct trace_record r;
	memset(&r, 0, sizeof r);
	r.type = TRACE_STACK;
	r.u.stack.id = s->id;
	r.u.stack.nframes = s->n < TRACE_STACK_MAXFRAMES ? s->n : TRACE_STACK_MAXFRAMES;
	for (uint32_t k = 0; k < r.u.stack.nframes; k++)
		r.u.stack.frames[k] = frame_string(w, s->pcs[k]);
	if (trace_writer_record(w, &r) != 0)
		return -1;
	s->written_gen = gen;
	return 0;
}
