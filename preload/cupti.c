/*
 * cupti.c - GPU timing from CUPTI activity records.
 *
 * libcupti is opened at run time, so the recorder loads (and falls back to
 * events) where it is missing.  We enable CONCURRENT_KERNEL (it does not
 * serialize kernels, KIND_KERNEL does), MEMCPY, MEMSET, MEMCPY2,
 * EXTERNAL_CORRELATION and DRIVER, and push our launch sequence number as a
 * CUSTOM0 external id around each launch: CUPTI then reports, per buffer,
 * which of its correlation ids belongs to which of our records.  DRIVER is
 * needed although its records are skipped: CUPTI writes an external
 * correlation record only in front of an API record (cupti_activity.h),
 * so without it every kernel came back unjoined (seen on an H200).
 * A kernel launched through the CUDA runtime carries the correlation id
 * of the runtime's API record, which began before our push: for those we
 * also enable the runtime's API records and hand each one's correlation
 * id and [start, end] to the sink, which finds the launch our hook
 * recorded inside that call (joins.c).
 *
 * MEMCPY2: CUPTI reports a peer-to-peer copy (cuMemcpyPeer, cuMemcpyPeerAsync,
 * a device-to-device copy between two GPUs) only as a MEMCPY2 record, never
 * as a MEMCPY one (cupti_activity.h), so without it such copies never got
 * GPU times.  Its record is CUpti_ActivityMemcpyPtoP4, whose correlationId
 * sits at offset 60 where Memcpy6's sits at 44: it is read through its own
 * struct, never as a Memcpy6.  A CUPTI that refuses the kind keeps the other
 * kinds on (noted): losing peer copies' GPU times is cheaper than falling
 * back to events, which lose every graph replay's kernels.
 *
 * The buffer walk uses the loaded CUPTI's cuptiActivityGetNextRecord and
 * reads the record layouts of the CUPTI 13 headers (CUpti_ActivityKernel10,
 * Memcpy6, MemcpyPtoP4, Memset4); older CUPTIs return earlier versions of
 * these structs, whose fields we read are at the same offsets.  It needs
 * no GPU, so it is tested on hand-built buffers.
 *
 * Buffer ownership: we read and free only the buffers we allocated.
 * Another CUPTI client in the process (torch.profiler's kineto) registers
 * its own buffer callbacks; the last registration wins, and CUPTI then
 * completes the buffers the other client's request callback gave it
 * through ours (and ours through its).  free() of such a foreign buffer
 * corrupts the heap, and its records are not ours to join.  Our
 * outstanding buffers are kept in a registry by address and size, since a
 * foreign buffer cannot be recognised by reading memory around it (a
 * header in front of it may be unmapped); a buffer not in it is left
 * untouched and counted (one verbose note).
 *
 * The buffers are read in CUPTI's callback, under the writer lock.  Tried:
 * queueing them there for the writer thread to read, so that CUPTI, which
 * may hold the program's CUDA calls while its callback runs, is let go at
 * once.  On an H200 it changed nothing it was meant to: the 3-5 ms some
 * windows spend between the program's last synchronize and its
 * cuProfilerStop stayed (a CUDA-graph step's second window, a compiled
 * step's first two, in both runs), and a CPU-bound GPT-2 step recorded
 * 54-80 ms in its windows against 39-49 ms with the buffers read here
 * (one run each, on two machines).
 *
 * Must never: call into the recorder except through the sink it was
 * started with (and log.c's clock and notes), so it links and tests alone;
 * hold a completed buffer of ours (it is freed once reported); read or
 * free a buffer it did not allocate.
 */
#include <dlfcn.h>
#include <stdatomic.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cupti.h>

#include "preload/preload.h"

typedef CUptiResult (*register_fn)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc);
typedef CUptiResult (*kind_fn)(CUpti_ActivityKind);
typedef CUptiResult (*flush_fn)(uint32_t);
typedef CUptiResult (*next_fn)(uint8_t *, size_t, CUpti_Activity **);
typedef CUptiResult (*push_fn)(CUpti_ExternalCorrelationKind, uint64_t);
typedef CUptiResult (*pop_fn)(CUpti_ExternalCorrelationKind, uint64_t *);
typedef CUptiResult (*result_str_fn)(CUptiResult, const char **);
typedef CUptiResult (*timestamp_fn)(uint64_t *);
typedef CUptiResult (*dropped_fn)(CUcontext, uint32_t, size_t *);
typedef CUptiResult (*version_fn)(uint32_t *);

static struct {
	void *lib;
	register_fn reg;
	kind_fn enable, disable;
	flush_fn flush;
	next_fn next;
	push_fn push;
	pop_fn pop;
	result_str_fn result_str;
	timestamp_fn timestamp;
	dropped_fn dropped;          /* cuptiActivityGetNumDroppedRecords        */
	const struct preload_cupti_sink *sink;
	_Atomic int64_t offset_ns;  /* recorder clock - CUPTI clock            */
	atomic_ullong offset_err_ns;/* half the bracket of the reading kept    */
	atomic_ullong offset_at_ns; /* our clock when it was read              */
	atomic_int clock_known;     /* offset_ns measured                      */
	int runtime_records;        /* the runtime's API records are on        */
	int peer_records;           /* MEMCPY2 (peer-to-peer copies) is on     */
	int copy_count;             /* its memcpy records count a batch's copies */
	int on;
	atomic_ullong incomplete;   /* reports handed over unfinished          */
	atomic_ullong foreign;      /* completed buffers we did not allocate   */
	atomic_ullong declined;     /* requests refused: the registry was full */
} C;

/* Size of each activity buffer we hand CUPTI, bytes. */
#define BUF_BYTES (8u << 20)
/* How many of our buffers CUPTI may hold at once.  A slot is freed when
 * the buffer comes back; one of ours completed through another client's
 * callback never does.  CUPTI holds a few at a time: 256 (2 GiB of
 * buffers) is reached only by such leaks, and then a request is declined
 * (CUPTI counts what it drops for want of a buffer). */
#define OWN_SLOTS 256
/* Our outstanding buffers, by address: CAS-claimed slots, NULL when free
 * (CUPTI's callbacks run on its threads, with no lock of ours). */
static _Atomic(uint8_t *) own_bufs[OWN_SLOTS];

/* Folders of the loaded libraries that look like CUDA's (a path naming
 * "nvidia" or "cuda"): pip's CUDA wheels keep libcupti beside libcublas
 * (nvidia/cu13/lib) or in a sibling package (nvidia/cuda_cupti/lib), off
 * the loader's search path. */
#define CUPTI_DIRS 32
struct cupti_dirs {
	char d[CUPTI_DIRS][512];
	int n;
};

static int collect_dir(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct cupti_dirs *l = data;
	const char *name = info->dlpi_name, *slash = name ? strrchr(name, '/') : NULL;
	if (!slash || l->n >= CUPTI_DIRS || (size_t)(slash - name) >= sizeof l->d[0])
		return 0;
	size_t len = (size_t)(slash - name);
	char dir[512];
	memcpy(dir, name, len);
	dir[len] = 0;
	if (!strstr(dir, "nvidia") && !strstr(dir, "cuda"))
		return 0;
	for (int i = 0; i < l->n; i++)
		if (strcmp(l->d[i], dir) == 0)
			return 0;
	memcpy(l->d[l->n++], dir, len + 1);
	return 0;
}

/* Opens libcupti from beside the program's own CUDA libraries (not from
 * inside dl_iterate_phdr: the loader's lock is held there). */
static void *open_beside_loaded(void)
{
	static struct cupti_dirs l;  /* 16 KiB: off the launching thread's stack */
	static const char *const rel[] = {
		"/libcupti.so.13", "/libcupti.so.12", "/../../cuda_cupti/lib/libcupti.so.13",
		"/../../cuda_cupti/lib/libcupti.so.12",
	};
	l.n = 0;
	dl_iterate_phdr(collect_dir, &l);
	for (int i = 0; i < l.n; i++)
		for (size_t j = 0; j < sizeof rel / sizeof *rel; j++) {
			char path[600];
			snprintf(path, sizeof path, "%s%s", l.d[i], rel[j]);
			void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
			if (h) {
				preload_note("libcupti: %s", path);
				return h;
			}
		}
	return NULL;
}

int preload_cupti_load(char *why, size_t whylen)
{
	if (C.lib)
		return 0;
	/* SURFER_CUPTI_PATH, else the one beside the program's CUDA libraries
	 * (it matches the runtime the program uses), else the loader's. */
	const char *env = getenv("SURFER_CUPTI_PATH");
	if (env && *env)
		C.lib = dlopen(env, RTLD_NOW | RTLD_LOCAL);
	if (!C.lib)
		C.lib = open_beside_loaded();
	const char *names[] = { "libcupti.so.13", "libcupti.so.12", "libcupti.so" };
	for (size_t i = 0; i < sizeof names / sizeof *names && !C.lib; i++)
		C.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!C.lib) {
		snprintf(why, whylen, "libcupti not found");
		return -1;
	}
	C.reg = (register_fn)dlsym(C.lib, "cuptiActivityRegisterCallbacks");
	C.enable = (kind_fn)dlsym(C.lib, "cuptiActivityEnable");
	C.disable = (kind_fn)dlsym(C.lib, "cuptiActivityDisable");
	C.flush = (flush_fn)dlsym(C.lib, "cuptiActivityFlushAll");
	C.next = (next_fn)dlsym(C.lib, "cuptiActivityGetNextRecord");
	C.push = (push_fn)dlsym(C.lib, "cuptiActivityPushExternalCorrelationId");
	C.pop = (pop_fn)dlsym(C.lib, "cuptiActivityPopExternalCorrelationId");
	C.result_str = (result_str_fn)dlsym(C.lib, "cuptiGetResultString");
	C.timestamp = (timestamp_fn)dlsym(C.lib, "cuptiGetTimestamp");
	C.dropped = (dropped_fn)dlsym(C.lib, "cuptiActivityGetNumDroppedRecords");
	/* A batch of copies (cuMemcpyBatchAsync, CUDA 12.8) comes as memcpy
	 * records that count the copies each covers (Memcpy6's copyCount, past
	 * the end of the Memcpy5 that earlier CUPTIs write): read only from a
	 * CUPTI of API version 26 (12.8) or later (cupti_version.h; 13.0 went
	 * to 130000). */
	version_fn version = (version_fn)dlsym(C.lib, "cuptiGetVersion");
	uint32_t v = 0;
	C.copy_count = version && version(&v) == CUPTI_SUCCESS && v >= 26;
	if (!C.reg || !C.enable || !C.flush || !C.next || !C.push || !C.pop) {
		snprintf(why, whylen, "libcupti lacks the activity API");
		dlclose(C.lib);
		C.lib = NULL;
		return -1;
	}
	return 0;
}

static enum trace_copy_kind copy_kind(uint8_t k)
{
	switch (k) {
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return TRACE_COPY_HTOD;
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return TRACE_COPY_DTOH;
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return TRACE_COPY_DTOD;
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return TRACE_COPY_HTOH;
	case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return TRACE_COPY_PTOP;
	default: return TRACE_COPY_UNKNOWN;
	}
}

/* Whether a record's [start, end] is a span (CUPTI writes 0 until the
 * activity ended). */
static int has_span(uint64_t start, uint64_t end)
{
	return start && end >= start;
}

/* A forced flush hands over buffers whose records are not all finished;
 * such a report has no times (0) and is never completed, so it is
 * counted and left out: its launch stays without GPU times rather than
 * taking 0 as its start, or another launch's report. */
static int unfinished(uint64_t start, uint64_t end)
{
	if (has_span(start, end))
		return 0;
	atomic_fetch_add(&C.incomplete, 1);
	return 1;
}

static void one_record(const CUpti_Activity *a, const struct preload_cupti_sink *s, int pass)
{
	if (pass == 0) {
		if (a->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
			const CUpti_ActivityExternalCorrelation *x = (const void *)a;
			if (x->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0 && s->external)
				s->external(s->ctx, x->correlationId, x->externalId);
		} else if (a->kind == CUPTI_ACTIVITY_KIND_RUNTIME && s->call) {
			const CUpti_ActivityAPI *r = (const void *)a;
			if (has_span(r->start, r->end))
				s->call(s->ctx, r->correlationId, r->start, r->end);
		}
		return;
	}
	if ((a->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || a->kind == CUPTI_ACTIVITY_KIND_KERNEL) &&
	    s->kernel) {
		const CUpti_ActivityKernel10 *k = (const void *)a;
		if (unfinished(k->start, k->end))
			return;
		struct preload_cupti_kernel o = {
			.correlation = k->correlationId, .name = k->name,
			.grid = { (uint32_t)k->gridX, (uint32_t)k->gridY, (uint32_t)k->gridZ },
			.block = { (uint32_t)k->blockX, (uint32_t)k->blockY, (uint32_t)k->blockZ },
			.cluster = { k->clusterX, k->clusterY, k->clusterZ },
			.regs = k->registersPerThread, .static_smem = (uint32_t)k->staticSharedMemory,
			.dyn_smem = (uint32_t)k->dynamicSharedMemory, .stream = k->streamId,
			.start_ns = k->start, .end_ns = k->end, .graph_id = k->graphId,
			.graph_node_id = k->graphNodeId,
		};
		s->kernel(s->ctx, &o);
	} else if (a->kind == CUPTI_ACTIVITY_KIND_MEMCPY && s->copy) {
		const CUpti_ActivityMemcpy6 *m = (const void *)a;
		if (unfinished(m->start, m->end))
			return;
		struct preload_cupti_copy o = {
			.correlation = m->correlationId, .memset = 0, .bytes = m->bytes,
			.copies = C.copy_count && m->copyCount ? m->copyCount : 1,
			.kind = copy_kind(m->copyKind), .stream = m->streamId,
			.start_ns = m->start, .end_ns = m->end,
		};
		s->copy(s->ctx, &o);
	} else if (a->kind == CUPTI_ACTIVITY_KIND_MEMCPY2 && s->copy) {
		/* its own struct: correlationId is at another offset */
		const CUpti_ActivityMemcpyPtoP4 *m = (const void *)a;
		if (unfinished(m->start, m->end))
			return;
		enum trace_copy_kind kind = copy_kind(m->copyKind);
		struct preload_cupti_copy o = {
			.correlation = m->correlationId, .memset = 0, .bytes = m->bytes, .copies = 1,
			.kind = kind == TRACE_COPY_UNKNOWN ? TRACE_COPY_PTOP : kind,
			.stream = m->streamId, .start_ns = m->start, .end_ns = m->end,
		};
		s->copy(s->ctx, &o);
	} else if (a->kind == CUPTI_ACTIVITY_KIND_MEMSET && s->copy) {
		const CUpti_ActivityMemset4 *m = (const void *)a;
		if (unfinished(m->start, m->end))
			return;
		struct preload_cupti_copy o = {
			.correlation = m->correlationId, .memset = 1, .bytes = m->bytes, .copies = 1,
			.kind = TRACE_COPY_UNKNOWN, .stream = m->streamId,
			.start_ns = m->start, .end_ns = m->end,
		};
		s->copy(s->ctx, &o);
	}
}

int preload_cupti_parse(uint8_t *buf, size_t valid, const struct preload_cupti_sink *sink)
{
	if (!C.next || !sink)
		return -1;
	int n = 0;
	/* Two passes: the correlation records may follow the activity they
	 * name, and the joins need them first. */
	for (int pass = 0; pass < 2; pass++) {
		CUpti_Activity *rec = NULL;
		for (;;) {
			CUptiResult r = C.next(buf, valid, &rec);
			if (r != CUPTI_SUCCESS)
				break; /* CUPTI_ERROR_MAX_LIMIT_REACHED at the end */
			one_record(rec, sink, pass);
			if (pass == 1)
				n++;
		}
	}
	return n;
}

/* How fast CUPTI's clock and ours may drift apart, in parts per million:
 * a board's crystal is good to about 50, and CUPTI's clock is the host's
 * already, so this bounds it from above. */
#define CLOCK_DRIFT_PPM 50
/* The widest bracket a clock reading may have and still be used, ns: a
 * wider one had the thread descheduled inside it. */
#define CLOCK_MAX_BRACKET_NS 20000u

/* CUPTI's clock against ours: the reading bracketed tightest of five (the
 * joins compare GPU starts and API calls with launch times).  Taken at the
 * start and again before each buffer is read, so the two clocks cannot
 * drift apart over a long run; a reading bracketed wider than
 * CLOCK_MAX_BRACKET_NS is not used.  A new reading replaces the one
 * kept only where it is no less certain: its half-bracket at most the
 * kept one's plus the drift since.  Taken every time, a loose reading of
 * a loaded machine (bracketed at 10-18 us) replaced a tight one (0.1 us)
 * and moved every GPU time of the next buffer by microseconds: shim_test's
 * cupti-runtime-rewindow beside two busy loops timed up to 34 of 150
 * kernels 0.04-18 us before their own launches. */
static void measure_offset(void)
{
	uint64_t best = CLOCK_MAX_BRACKET_NS;
	int64_t off = 0;
	for (int i = 0; i < 5 && C.timestamp; i++) {
		uint64_t ts = 0, a = preload_now_ns();
		if (C.timestamp(&ts) != CUPTI_SUCCESS || !ts)
			break;
		uint64_t b = preload_now_ns();
		if (b - a < best) {
			best = b - a;
			off = (int64_t)(a + (b - a) / 2) - (int64_t)ts;
		}
	}
	if (best >= CLOCK_MAX_BRACKET_NS)
		return;
	uint64_t now = preload_now_ns();
	if (atomic_load(&C.clock_known)) {
		uint64_t at = atomic_load(&C.offset_at_ns);
		uint64_t drift = now > at ? (now - at) / (1000000 / CLOCK_DRIFT_PPM) : 0;
		if (best / 2 > atomic_load(&C.offset_err_ns) + drift)
			return;
	}
	atomic_store(&C.offset_ns, off);
	atomic_store(&C.offset_err_ns, best / 2);
	atomic_store(&C.offset_at_ns, now);
	atomic_store(&C.clock_known, 1);
}

/* The runtime's API records: a kernel, copy or set the CUDA runtime
 * started carries the correlation id of the runtime call's record
 * (joins.c).  The whole kind, as torch.profiler enables it: on an H200
 * (CUPTI 13), with the launch calls alone selected through
 * cuptiActivityEnableRuntimeApi (which returned success), none of 3291
 * kernels joined through one (no record came, or it came after the
 * kernels' and they had been matched already), where torch.profiler's
 * trace of the same step has cudaLaunchKernel's record for every kernel,
 * with the kernel's correlation id.  Not fatal when refused: the joins
 * then match by kernel and stream. */
static void enable_runtime_records(void)
{
	C.runtime_records = C.enable(CUPTI_ACTIVITY_KIND_RUNTIME) == CUPTI_SUCCESS;
	preload_note("runtime API records: %s", C.runtime_records ? "on" : "refused (joins by kernel and stream)");
}

/* Peer-to-peer copies come only as MEMCPY2 records (the header says why
 * it is enabled).  Not fatal when refused: those copies then keep CPU
 * times only, and the other kinds stay on. */
static void enable_peer_records(void)
{
	C.peer_records = C.enable(CUPTI_ACTIVITY_KIND_MEMCPY2) == CUPTI_SUCCESS;
	preload_note("peer-to-peer copy records: %s",
		     C.peer_records ? "on" : "refused (copies between GPUs keep CPU times only)");
}

/* Claims a free registry slot for p; 0, or -1 when all are taken. */
static int own_add(uint8_t *p)
{
	for (int i = 0; i < OWN_SLOTS; i++) {
		uint8_t *none = NULL;
		if (atomic_load_explicit(&own_bufs[i], memory_order_relaxed) == NULL &&
		    atomic_compare_exchange_strong(&own_bufs[i], &none, p))
			return 0;
	}
	return -1;
}

/* 1 if p (size bytes, as CUPTI reports it back) is a buffer we handed
 * CUPTI, releasing its slot; 0 for anyone else's.  The size is checked
 * too: an address of ours another client freed may be its buffer now. */
static int own_take(uint8_t *p, size_t size)
{
	if (size != BUF_BYTES)
		return 0;
	for (int i = 0; i < OWN_SLOTS; i++) {
		uint8_t *mine = p;
		if (atomic_load_explicit(&own_bufs[i], memory_order_relaxed) == p &&
		    atomic_compare_exchange_strong(&own_bufs[i], &mine, NULL))
			return 1;
	}
	return 0;
}

static void CUPTIAPI buffer_requested(uint8_t **buf, size_t *size, size_t *max_records)
{
	/* CUPTI's records are ACTIVITY_RECORD_ALIGNMENT-aligned within the
	 * buffer, so the buffer itself must be too (cupti_common.h) */
	void *p = NULL;
	if (posix_memalign(&p, ACTIVITY_RECORD_ALIGNMENT, BUF_BYTES) != 0)
		p = NULL;
	if (p && own_add(p) < 0) {
		free(p);
		p = NULL;
		if (atomic_fetch_add(&C.declined, 1) == 0)
			preload_note("CUPTI buffer request declined: %d buffers out already", OWN_SLOTS);
	}
	*buf = p;
	*size = p ? BUF_BYTES : 0;
	*max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size,
				      size_t valid)
{
	if (!buf)
		return;
	if (!own_take(buf, size)) {
		/* another CUPTI client's (the header says why): its owner
		 * reads and frees it, if ever; we must not */
		if (atomic_fetch_add(&C.foreign, 1) == 0)
			preload_note("CUPTI handed over a buffer the recorder did not allocate "
				     "(another CUPTI client's, such as torch.profiler's): left alone");
		return;
	}
	const struct preload_cupti_sink *s = C.sink;
	if (valid && s) {
		measure_offset();
		if (s->begin)
			s->begin(s->ctx);
		preload_cupti_parse(buf, valid, s);
		/* records CUPTI could not keep for this buffer (its device
		 * buffer full): their work stays without GPU times */
		size_t lost = 0;
		if (C.dropped && C.dropped(ctx, stream, &lost) == CUPTI_SUCCESS && lost && s->lost)
			s->lost(s->ctx, lost);
		if (s->end)
			s->end(s->ctx);
	}
	free(buf);
}

static const char *result_name(CUptiResult r)
{
	const char *s = NULL;
	if (!C.result_str || C.result_str(r, &s) != CUPTI_SUCCESS || !s)
		s = "unknown CUPTI error";
	return s;
}

/* What the recorder turns on besides the runtime's API records and
 * MEMCPY2, which may be refused (enable_runtime_records, enable_peer_records). */
static const CUpti_ActivityKind kinds[] = {
	CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, CUPTI_ACTIVITY_KIND_DRIVER,
	CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
	CUPTI_ACTIVITY_KIND_MEMSET,
};

int preload_cupti_start(const struct preload_cupti_sink *sink, char *why, size_t whylen)
{
	if (preload_cupti_load(why, whylen) < 0)
		return -1;
	C.sink = sink;
	CUptiResult r = C.reg(buffer_requested, buffer_completed);
	if (r != CUPTI_SUCCESS) {
		snprintf(why, whylen, "cuptiActivityRegisterCallbacks: %s", result_name(r));
		return -1;
	}
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
		r = C.enable(kinds[i]);
		if (r != CUPTI_SUCCESS) {
			snprintf(why, whylen, "cuptiActivityEnable(%d): %s", (int)kinds[i],
				 result_name(r));
			/* Leave CUPTI as we found it: events take over. */
			for (size_t j = 0; j < i && C.disable; j++)
				C.disable(kinds[j]);
			C.sink = NULL;
			return -1;
		}
	}
	enable_peer_records();
	enable_runtime_records();
	measure_offset();
	C.on = 1;
	return 0;
}

void preload_cupti_stop(void)
{
	if (!C.on)
		return;
	C.on = 0;
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds && C.disable; i++)
		C.disable(kinds[i]);
	if (C.runtime_records && C.disable)
		C.disable(CUPTI_ACTIVITY_KIND_RUNTIME);
	C.runtime_records = 0;
	if (C.peer_records && C.disable)
		C.disable(CUPTI_ACTIVITY_KIND_MEMCPY2);
	C.peer_records = 0;
	unsigned long long n = atomic_load(&C.foreign);
	if (n)
		preload_note("%llu CUPTI buffers of another client left alone", n);
	/* what CUPTI still hands over is freed unread */
	C.sink = NULL;
}

void preload_cupti_push(uint64_t seq)
{
	C.push(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, seq);
}

void preload_cupti_pop(void)
{
	uint64_t last;
	C.pop(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
}

/* forced: every buffer, finished or not (cuptiActivityFlushAll), only
 * once the GPU is idle (after a context synchronize, at teardown); else
 * the buffers whose records have all finished.  Forced every 250 ms
 * while a torch.compile'd step kept 190 ms of work queued on an H200, the
 * flush handed over the queued kernels' reports unfinished: 201 of the
 * step's 306 kernels went untimed. */
void preload_cupti_flush(int forced)
{
	if (C.on)
		C.flush(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
}

unsigned long long preload_cupti_unfinished(void)
{
	return atomic_load(&C.incomplete);
}

int preload_cupti_runtime_records(void)
{
	return C.runtime_records;
}

int preload_cupti_clock_known(void)
{
	return atomic_load(&C.clock_known);
}

uint64_t preload_cupti_clock_err_ns(void)
{
	return atomic_load(&C.offset_err_ns);
}

uint64_t preload_cupti_to_cpu_ns(uint64_t gpu_ns)
{
	if (!gpu_ns)
		return 0;
	int64_t v = (int64_t)gpu_ns + atomic_load(&C.offset_ns);
	return v > 0 ? (uint64_t)v : 0;
}
