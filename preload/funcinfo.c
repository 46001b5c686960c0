/*
 * funcinfo.c - what the recorder asks the driver about a launch: a kernel
 * handle's name, registers and static shared memory (once per handle, in
 * a lock-free cache), and a stream's id.
 *
 * The cache is a fixed table of FC_SIZE slots claimed by compare-and-swap:
 * the first thread to launch a handle fills its slot, later launches read
 * it without a lock.  A handle that finds no slot within 64 probes (or its
 * slot still being filled) gets an uncached copy, kept for the process's
 * life.  A handle the driver reuses after its module is unloaded keeps the
 * first kernel's name.
 *
 * Must never: lock or allocate on a launch of a known handle; call the
 * driver through our own hooks (the functions come from the loaded
 * libcuda.so.1 directly).
 */
#include <pthread.h>
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
static struct fc_slot {
	_Atomic(uintptr_t) key;
	atomic_int ready;
	struct preload_funcinfo info;
} fcache[FC_SIZE];

struct preload_funcinfo *preload_funcinfo_get(preload_func f)
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
