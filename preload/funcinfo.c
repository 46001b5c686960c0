/*
 * funcinfo.c - what the recorder asks the driver about a launch: a kernel
 * handle's name, registers and static shared memory (once per handle, in
 * a lock-free cache), and a stream's id.
 *
 * The cache is a chain of tables of FC_SIZE slots claimed by compare-and-
 * swap: the first thread to launch a handle fills its slot, later launches
 * read it without a lock (one waiting for a slot being filled yields until
 * it is).  A handle that finds no free slot within 64 probes goes on to the
 * next table, made when first needed.  Before, such a handle got a copy of
 * its own at every launch, never freed: a program past 16,384 kernels (a
 * compiled model's Triton kernels over many shapes) leaked one at every
 * launch of them (shim_test.sh handles: 20,000 kernels launched 20 times,
 * 4,356 kB of address space after the first round before, none after).
 *
 * A module or library unloaded (cuModuleUnload, cuLibraryUnload: CuPy
 * frees its compiled kernels' modules so) frees its kernels' handles, and
 * the driver may hand the same address to the next module's kernel; the
 * cache kept the first kernel's name and attributes for it (shim_test.sh
 * unload).  Each unload now counts a generation, and a handle's facts are
 * asked again on its first launch after one, into new facts that replace
 * the old in its slot: the old stay allocated, as a launch recorded before
 * may still point at them until it is written.
 *
 * Must never: lock or allocate on a launch of a known handle (but its first
 * after an unload); call the driver through our own hooks (the functions
 * come from the loaded libcuda.so.1 directly).
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "preload/recorder.h"

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

/* The first half of MurmurHash3's 64-bit finalizer, inlined: it runs on
 * every launch. */
static inline size_t mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k;
}

/* Not trace/hmap.h: every launch reads this table without a lock and
 * threads insert with compare-and-swap, where the common map wants its
 * caller to lock. */
#define FC_SIZE 16384u
struct fc_slot {
	_Atomic(uintptr_t) key;
	_Atomic(struct preload_funcinfo *) info; /* NULL while being filled */
};
/* Modules and libraries unloaded so far (preload_funcinfo_unloaded). */
static atomic_uint fc_unloads;
/* Facts of a handle whose own could not be allocated (no memory): no
 * name, and never of the current generation, so asked again. */
static struct preload_funcinfo fc_unknown = { .unloads = UINT32_MAX };

void preload_funcinfo_unloaded(void)
{
	atomic_fetch_add_explicit(&fc_unloads, 1, memory_order_release);
}

/* New facts of f, asked of the driver, as of generation gen. */
static struct preload_funcinfo *new_info(preload_func f, unsigned gen)
{
	struct preload_funcinfo *fi = calloc(1, sizeof *fi);
	if (!fi)
		return NULL;
	fill_funcinfo(fi, f);
	fi->unloads = gen;
	return fi;
}

/* The facts of s's handle f, fi, are older than the last unload: new ones
 * in their place (fi is left allocated: see the top).  Another thread's
 * new ones win a race. */
static struct preload_funcinfo *refresh(struct fc_slot *s, struct preload_funcinfo *fi, preload_func f,
					unsigned gen)
{
	struct preload_funcinfo *n = new_info(f, gen);
	if (!n)
		return fi;
	if (!atomic_compare_exchange_strong_explicit(&s->info, &fi, n, memory_order_acq_rel,
						     memory_order_acquire)) {
		free((void *)n->name);
		free(n);
		return fi; /* the facts another thread put there */
	}
	return n;
}
struct fc_table {
	struct fc_slot slot[FC_SIZE];
	_Atomic(struct fc_table *) next; /* where handles go this one has no room for */
};
static struct fc_table fc_first;

/* The table after t, made if there is none yet; NULL without memory. */
static struct fc_table *next_table(struct fc_table *t)
{
	struct fc_table *n = atomic_load_explicit(&t->next, memory_order_acquire);
	if (n)
		return n;
	n = calloc(1, sizeof *n);
	if (!n)
		return NULL;
	struct fc_table *seen = NULL;
	if (!atomic_compare_exchange_strong(&t->next, &seen, n)) {
		free(n); /* another thread's table is in place */
		n = seen;
	}
	return n;
}

/* A slot another thread claimed for k is filled within a few driver calls;
 * a bounded wait (a signal handler launching on the filling thread would
 * wait for itself), then the launch goes without what the driver says. */
static struct preload_funcinfo *wait_ready(struct fc_slot *s)
{
	for (int spin = 0; spin < 100000; spin++) {
		struct preload_funcinfo *fi = atomic_load_explicit(&s->info, memory_order_acquire);
		if (fi)
			return fi;
		sched_yield();
	}
	return NULL;
}

struct preload_funcinfo *preload_funcinfo_get(preload_func f)
{
	uintptr_t k = (uintptr_t)f;
	if (!k)
		return NULL;
	for (struct fc_table *t = &fc_first; t; t = next_table(t)) {
		size_t i = mix(k) & (FC_SIZE - 1);
		for (int probe = 0; probe < 64; probe++, i = (i + 1) & (FC_SIZE - 1)) {
			struct fc_slot *s = &t->slot[i];
			uintptr_t cur = atomic_load_explicit(&s->key, memory_order_acquire);
			if (cur == 0) {
				uintptr_t zero = 0;
				if (atomic_compare_exchange_strong(&s->key, &zero, k)) {
					unsigned gen = atomic_load_explicit(&fc_unloads, memory_order_acquire);
					struct preload_funcinfo *fi = new_info(f, gen);
					if (!fi)
						fi = &fc_unknown;
					atomic_store_explicit(&s->info, fi, memory_order_release);
					return fi;
				}
				cur = zero; /* taken meanwhile: by k, or go on probing */
			}
			if (cur == k) {
				struct preload_funcinfo *fi = atomic_load_explicit(&s->info, memory_order_acquire);
				if (!fi && !(fi = wait_ready(s)))
					return NULL;
				unsigned gen = atomic_load_explicit(&fc_unloads, memory_order_acquire);
				return fi->unloads == gen ? fi : refresh(s, fi, f, gen);
			}
		}
	}
	return NULL; /* no memory for another table */
}
