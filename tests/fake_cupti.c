/*
 * fake_cupti.c - a fake libcupti for testing the recorder's CUPTI path end
 * to end without a GPU.
 *
 * It implements the activity API the recorder uses.  At each pop of an
 * external correlation id it asks the fake driver which kernels the thread
 * launched since the push, and queues a CUpti_ActivityKernel10 for each (one
 * correlation id per API call: a graph replay gives several kernels with the
 * same id) followed by the CUpti_ActivityExternalCorrelation naming the id,
 * after the kernels as real CUPTI may do.  cuptiActivityFlushAll hands the
 * queue over through the registered buffer callbacks.  Timestamps are the
 * fake driver's virtual stream clocks.  With FAKE_CUPTI_EAGER=1 every pop
 * hands its records over at once, before the launch hook has returned (as
 * a GPU that finishes a kernel immediately would).
 *
 * As real CUPTI does (cupti_activity.h, cuptiActivityPushExternalCorrelationId;
 * seen on an H200 with CUPTI 2025.1), the external correlation record is
 * written only in front of an API activity record: unless the recorder
 * enabled CUPTI_ACTIVITY_KIND_DRIVER (or RUNTIME), the kernels come with
 * correlation ids that nothing names.  FAKE_CUPTI_EXTERNAL=none leaves the
 * correlation records out altogether, as for a launch through the CUDA
 * runtime (its kernel carries the runtime API record's correlation id, made
 * outside the recorder's push); =late queues them apart and hands them over
 * in a buffer after the kernels' (CUPTI keeps API records in per-thread
 * buffers).  FAKE_CUPTI_CLOCK=real puts the reports on the recorder's clock
 * (CLOCK_MONOTONIC, + 1 s as CUPTI's own): a kernel starts when it was
 * launched or its stream's previous kernel ends, and lasts what the fake
 * driver's virtual clock gave it.  FAKE_CUPTI_ENABLE_MS=N makes the first
 * cuptiActivityEnable take N ms; FAKE_CUPTI_RENAME=1 gives every kernel
 * report another name than its launch's.  FAKE_CUPTI_EXTERNAL=runtime
 * leaves the correlation records out as =none does and, where the
 * recorder enabled the runtime's API records (the RUNTIME kind), writes the launch's
 * runtime API record instead: its correlation id, and a span around the
 * launch on the real clock (1 us before it to the pop that follows the
 * call's return); =runtime-late
 * hands those records over in a buffer after the kernels', as =late
 * (FAKE_CUPTI_API_DELAY_MS=N: N ms after it).
 * FAKE_CUPTI_LOSE=N leaves out every N-th kernel report (CUPTI lost some
 * on an H200, right after its start) and counts it for
 * cuptiActivityGetNumDroppedRecords.  FAKE_CUPTI_UNFINISHED=1 (with
 * FAKE_CUPTI_CLOCK=real) makes a report whose end is still ahead of the
 * clock unfinished, as for a kernel the GPU still runs: a forced flush
 * hands it over without times (as CUPTI's incomplete records), a plain
 * flush keeps the buffer holding it back (cupti_activity.h,
 * cuptiActivityFlushAll).
 *
 * FAKE_CUPTI_PEER=1 makes every device-to-device copy a peer-to-peer one
 * (device 0 to 1; the fake driver's cuMemcpyPeer is such a copy): as real
 * CUPTI (cupti_activity.h, CUPTI_ACTIVITY_KIND_MEMCPY2) it is reported as a
 * CUpti_ActivityMemcpyPtoP4 where MEMCPY2 is enabled, and not at all
 * otherwise.  FAKE_CUPTI_REFUSE=K makes cuptiActivityEnable refuse kind K
 * (a number), as a CUPTI that does not support it.
 * fake_cupti_complete_foreign hands a buffer the caller allocated to the
 * registered completion callback, as CUPTI does with the buffers another
 * client's request callback gave it (torch.profiler's kineto registers
 * callbacks of its own; the last registration wins).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cupti.h>

#define API __attribute__((visibility("default")))

struct fake_cuda_launch {
	char name[128];
	unsigned grid[3], block[3], cluster[3], dyn_smem;
	int regs, smem;
	unsigned long long stream, start, end;
	int copy_kind;              /* -1 kernel, 0 memset, 1 HtoD, 2 DtoH, 3 DtoD */
	unsigned long long bytes;
	unsigned long long real_ns;  /* CLOCK_MONOTONIC at the launch      */
	unsigned graph_id;           /* a graph replay's kernel: its graph  */
	unsigned long long node_id;  /* and graph node                      */
	unsigned long long real_start, real_end; /* when it runs on CLOCK_MONOTONIC */
	unsigned long long copies;   /* copies a batch's report covers, 0 one */
};
void fake_cuda_track_launches(int on);
int fake_cuda_take_launches(struct fake_cuda_launch *out, int max);

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static CUpti_BuffersCallbackRequestFunc req;
static CUpti_BuffersCallbackCompleteFunc done;
static uint8_t *queue, *apiq;
static size_t qlen, qcap, alen, acap;
static uint32_t next_corr = 100;
static int api_kinds;           /* DRIVER or RUNTIME activity enabled */
static int runtime_kinds;       /* the runtime's launch records enabled */
static size_t n_lost;           /* reports left out, not yet asked for  */
static unsigned long long kinds_on; /* bit per enabled activity kind    */
static __thread uint64_t ext_stack[16];
static __thread int ext_depth;
/* Names must outlive the buffer: keep every one. */
static char **names;
static size_t nnames;

static void append_to(uint8_t **q, size_t *len, size_t *cap, const void *rec, size_t n)
{
	size_t padded = (n + 7) & ~(size_t)7;
	if (*len + padded > *cap) {
		*cap = (*cap + padded) * 2;
		*q = realloc(*q, *cap);
	}
	memset(*q + *len, 0, padded);
	memcpy(*q + *len, rec, n);
	*len += padded;
}

static void append(const void *rec, size_t n)
{
	append_to(&queue, &qlen, &qcap, rec, n);
}

static size_t record_size(CUpti_ActivityKind k)
{
	return k == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ? sizeof(CUpti_ActivityKernel10)
		: k == CUPTI_ACTIVITY_KIND_MEMCPY ? sizeof(CUpti_ActivityMemcpy6)
		: k == CUPTI_ACTIVITY_KIND_MEMCPY2 ? sizeof(CUpti_ActivityMemcpyPtoP4)
		: k == CUPTI_ACTIVITY_KIND_MEMSET ? sizeof(CUpti_ActivityMemset4)
		: k == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION ? sizeof(CUpti_ActivityExternalCorrelation)
		: k == CUPTI_ACTIVITY_KIND_DRIVER || k == CUPTI_ACTIVITY_KIND_RUNTIME ? sizeof(CUpti_ActivityAPI)
		: 0;
}

API CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc r,
					       CUpti_BuffersCallbackCompleteFunc c)
{
	req = r;
	done = c;
	return CUPTI_SUCCESS;
}

API CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind)
{
	/* FAKE_CUPTI_ENABLE_MS: the first enable takes that long (CUPTI's
	 * start on a real GPU: tens of ms) */
	static int started;
	const char *ms = getenv("FAKE_CUPTI_ENABLE_MS");
	if (!started++ && ms && atoi(ms) > 0) {
		struct timespec d = { atoi(ms) / 1000, (long)(atoi(ms) % 1000) * 1000000L };
		nanosleep(&d, NULL);
	}
	const char *refuse = getenv("FAKE_CUPTI_REFUSE");
	if (refuse && *refuse && atoi(refuse) == (int)kind)
		return CUPTI_ERROR_NOT_COMPATIBLE;
	if (kind == CUPTI_ACTIVITY_KIND_DRIVER || kind == CUPTI_ACTIVITY_KIND_RUNTIME)
		api_kinds = 1;
	if (kind == CUPTI_ACTIVITY_KIND_RUNTIME)
		runtime_kinds = 1;
	if ((unsigned)kind < 64)
		kinds_on |= 1ull << kind;
	fake_cuda_track_launches(1);
	return CUPTI_SUCCESS;
}


API CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind)
{
	if (kind == CUPTI_ACTIVITY_KIND_DRIVER || kind == CUPTI_ACTIVITY_KIND_RUNTIME)
		api_kinds = 0;
	if (kind == CUPTI_ACTIVITY_KIND_RUNTIME)
		runtime_kinds = 0;
	if ((unsigned)kind < 64)
		kinds_on &= ~(1ull << kind);
	if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
		fake_cuda_track_launches(0);
	return CUPTI_SUCCESS;
}

/* FAKE_CUPTI_STATE=FILE: at exit, how many activity kinds are still on. */
__attribute__((destructor)) static void say_state(void)
{
	const char *f = getenv("FAKE_CUPTI_STATE");
	FILE *o = f ? fopen(f, "w") : NULL;
	if (!o)
		return;
	fprintf(o, "%d kinds on\n", __builtin_popcountll(kinds_on));
	fclose(o);
}

static uint64_t mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int real_clock(void)
{
	const char *c = getenv("FAKE_CUPTI_CLOCK");
	return c && !strcmp(c, "real");
}

/* FAKE_CUPTI_TS_SLOW=N: past its N-th call cuptiGetTimestamp waits 15 us
 * before it reads the clock, as a thread descheduled inside the call: the
 * caller's bracket around it is 15 us wide and the reading sits at its
 * end. */
API CUptiResult cuptiGetTimestamp(uint64_t *ts)
{
	static atomic_int calls;
	const char *slow = getenv("FAKE_CUPTI_TS_SLOW");
	if (slow && atomic_fetch_add(&calls, 1) >= atoi(slow)) {
		uint64_t until = mono_ns() + 15000;
		while (mono_ns() < until)
			;
	}
	*ts = real_clock() ? mono_ns() + 1000000000ull : 0;
	return CUPTI_SUCCESS;
}

/* A record's start and end on CUPTI's clock (1 s ahead of the driver's):
 * the launch's own, or with FAKE_CUPTI_CLOCK=real when the fake driver
 * runs it on the real clock (its stream's work back to back from the
 * launch on; the driver's synchronizations wait for the same). */
static void record_times(const struct fake_cuda_launch *l, uint64_t *start, uint64_t *end)
{
	int real = real_clock();
	*start = (real ? l->real_start : l->start) + 1000000000ull;
	*end = (real ? l->real_end : l->end) + 1000000000ull;
}

/* CUPTI's API version (cupti_version.h): 13.0 Update 1's, or
 * FAKE_CUPTI_VERSION's (24, 12.6: a CUPTI whose memcpy records end before
 * copyCount, which the recorder must then not read). */
API CUptiResult cuptiGetVersion(uint32_t *version)
{
	const char *v = getenv("FAKE_CUPTI_VERSION");
	*version = v && *v ? (uint32_t)strtoul(v, NULL, 10) : 130001u;
	return CUPTI_SUCCESS;
}

API CUptiResult cuptiGetResultString(CUptiResult r, const char **s)
{
	(void)r;
	*s = "fake CUPTI error";
	return CUPTI_SUCCESS;
}

/* Queues the reports of n launches under one correlation id (mu held). */
static void report(const struct fake_cuda_launch *l, int n, uint32_t corr)
{
	for (int i = 0; i < n; i++) {
		if (l[i].copy_kind == 0) {
			CUpti_ActivityMemset4 m;
			memset(&m, 0, sizeof m);
			m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
			m.bytes = l[i].bytes;
			m.correlationId = corr;
			m.streamId = (uint32_t)l[i].stream;
			record_times(&l[i], &m.start, &m.end);
			append(&m, sizeof m);
			continue;
		}
		const char *peer = getenv("FAKE_CUPTI_PEER");
		if (l[i].copy_kind == 3 && peer && *peer == '1') {
			/* a copy between two GPUs: MEMCPY2's record or none */
			if (!(kinds_on & (1ull << CUPTI_ACTIVITY_KIND_MEMCPY2)))
				continue;
			CUpti_ActivityMemcpyPtoP4 m;
			memset(&m, 0, sizeof m);
			m.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
			m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
			m.srcKind = m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
			m.bytes = l[i].bytes;
			m.deviceId = 0;
			m.contextId = 1;
			m.streamId = (uint32_t)l[i].stream;
			m.srcDeviceId = 0;
			m.srcContextId = 1;
			m.dstDeviceId = 1;
			m.dstContextId = 2;
			m.correlationId = corr;
			record_times(&l[i], &m.start, &m.end);
			append(&m, sizeof m);
			continue;
		}
		if (l[i].copy_kind > 0) {
			static const uint8_t kinds[] = { 0, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD,
							 CUPTI_ACTIVITY_MEMCPY_KIND_DTOH,
							 CUPTI_ACTIVITY_MEMCPY_KIND_DTOD };
			CUpti_ActivityMemcpy6 m;
			memset(&m, 0, sizeof m);
			m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
			m.copyKind = kinds[l[i].copy_kind & 3];
			m.bytes = l[i].bytes;
			m.copyCount = l[i].copies ? l[i].copies : 1;
			m.correlationId = corr;
			m.streamId = (uint32_t)l[i].stream;
			record_times(&l[i], &m.start, &m.end);
			append(&m, sizeof m);
			continue;
		}
		static unsigned long kernels_seen;
		const char *lose = getenv("FAKE_CUPTI_LOSE");
		if (lose && atoi(lose) > 0 && ++kernels_seen % (unsigned long)atoi(lose) == 0) {
			n_lost++;
			continue;
		}
		CUpti_ActivityKernel10 r;
		memset(&r, 0, sizeof r);
		r.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
		r.correlationId = corr;
		names = realloc(names, (nnames + 1) * sizeof *names);
		names[nnames] = strdup(l[i].name);
		if (getenv("FAKE_CUPTI_RENAME")) { /* a report no launch matches */
			names[nnames] = realloc(names[nnames], strlen(l[i].name) + 8);
			strcat(names[nnames], "_other");
		}
		r.name = names[nnames++];
		r.gridX = (int32_t)l[i].grid[0]; r.gridY = (int32_t)l[i].grid[1]; r.gridZ = (int32_t)l[i].grid[2];
		r.blockX = (int32_t)l[i].block[0]; r.blockY = (int32_t)l[i].block[1]; r.blockZ = (int32_t)l[i].block[2];
		r.clusterX = l[i].cluster[0]; r.clusterY = l[i].cluster[1]; r.clusterZ = l[i].cluster[2];
		r.dynamicSharedMemory = (int32_t)l[i].dyn_smem;
		r.staticSharedMemory = l[i].smem;
		r.registersPerThread = (uint16_t)l[i].regs;
		r.streamId = (uint32_t)l[i].stream;
		r.graphId = l[i].graph_id;
		r.graphNodeId = l[i].node_id;
		/* CUPTI timestamps are never 0: shift the virtual clock by 1 s. */
		record_times(&l[i], &r.start, &r.end);
		append(&r, sizeof r);
	}
}

API CUptiResult cuptiActivityPushExternalCorrelationId(CUpti_ExternalCorrelationKind k, uint64_t id)
{
	(void)k;
	if (ext_depth < 16)
		ext_stack[ext_depth] = id;
	ext_depth++;
	/* launches made outside any push (the recorder left them out) are
	 * reported too, under a correlation id nothing names */
	struct fake_cuda_launch out[64];
	int n = fake_cuda_take_launches(out, 64);
	if (n > 0) {
		pthread_mutex_lock(&mu);
		report(out, n, next_corr++);
		pthread_mutex_unlock(&mu);
	}
	return CUPTI_SUCCESS;
}

API CUptiResult cuptiActivityFlushAll(uint32_t flag);

API CUptiResult cuptiActivityPopExternalCorrelationId(CUpti_ExternalCorrelationKind k, uint64_t *last)
{
	if (ext_depth == 0)
		return CUPTI_ERROR_INVALID_PARAMETER;
	uint64_t id = ext_stack[--ext_depth];
	*last = id;
	struct fake_cuda_launch l[64];
	int n = fake_cuda_take_launches(l, 64);
	if (n == 0)
		return CUPTI_SUCCESS;
	pthread_mutex_lock(&mu);
	uint32_t corr = next_corr++;
	report(l, n, corr);
	const char *ext = getenv("FAKE_CUPTI_EXTERNAL");
	int late = ext && !strcmp(ext, "late");
	int runtime = ext && (!strcmp(ext, "runtime") || !strcmp(ext, "runtime-late"));
	if (runtime && runtime_kinds && real_clock()) {
		/* the runtime call around the launch, as cudaLaunchKernel's record */
		CUpti_ActivityAPI a;
		memset(&a, 0, sizeof a);
		a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
		a.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
		a.correlationId = corr;
		a.start = l[0].real_ns - 1000 + 1000000000ull;
		/* it ends when the call returns: before the hook pops, and so
		 * before the thread's next launch (a fixed span past the launch
		 * took in the next launches of a tight loop) */
		a.end = mono_ns() + 1000000000ull;
		if (!strcmp(ext, "runtime-late"))
			append_to(&apiq, &alen, &acap, &a, sizeof a);
		else
			append(&a, sizeof a);
	}
	if (api_kinds && !(ext && (!strcmp(ext, "none") || runtime))) {
		/* the launch's driver API record, the correlation record first */
		CUpti_ActivityExternalCorrelation x;
		memset(&x, 0, sizeof x);
		x.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
		x.externalKind = k;
		x.externalId = id;
		x.correlationId = corr;
		if (late)
			append_to(&apiq, &alen, &acap, &x, sizeof x);
		else
			append(&x, sizeof x);
		CUpti_ActivityAPI a;
		memset(&a, 0, sizeof a);
		a.kind = CUPTI_ACTIVITY_KIND_DRIVER;
		a.cbid = 307; /* cuLaunchKernel's driver callback id */
		a.correlationId = corr;
		a.start = 1000000000ull;
		a.end = 1000000001ull;
		if (late)
			append_to(&apiq, &alen, &acap, &a, sizeof a);
		else
			append(&a, sizeof a);
	}
	pthread_mutex_unlock(&mu);
	const char *eager = getenv("FAKE_CUPTI_EAGER");
	if (eager && *eager == '1')
		cuptiActivityFlushAll(0);
	return CUPTI_SUCCESS;
}

static CUptiResult hand_over(uint8_t *q, size_t n)
{
	if (!n || !req || !done) {
		free(q);
		return CUPTI_SUCCESS;
	}
	uint8_t *buf;
	size_t size, max;
	req(&buf, &size, &max);
	if (!buf || size < n) {
		free(q);
		return CUPTI_ERROR_OUT_OF_MEMORY;
	}
	memcpy(buf, q, n);
	free(q);
	done(NULL, 0, buf, size, n);
	return CUPTI_SUCCESS;
}

/* FAKE_CUPTI_UNFINISHED: how many of the n bytes of records at q have
 * not ended on the real clock; zero: their times are cleared (mu held). */
static int unfinished(uint8_t *q, size_t n, int zero)
{
	const char *u = getenv("FAKE_CUPTI_UNFINISHED");
	if (!u || *u != '1' || !real_clock())
		return 0;
	uint64_t now = mono_ns() + 1000000000ull;
	int left = 0;
	for (size_t at = 0; at < n;) {
		CUpti_Activity *r = (CUpti_Activity *)(q + at);
		size_t size = record_size(r->kind);
		uint64_t *start = NULL, *end = NULL;
		if (r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
			start = &((CUpti_ActivityKernel10 *)r)->start;
			end = &((CUpti_ActivityKernel10 *)r)->end;
		} else if (r->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
			start = &((CUpti_ActivityMemcpy6 *)r)->start;
			end = &((CUpti_ActivityMemcpy6 *)r)->end;
		} else if (r->kind == CUPTI_ACTIVITY_KIND_MEMCPY2) {
			start = &((CUpti_ActivityMemcpyPtoP4 *)r)->start;
			end = &((CUpti_ActivityMemcpyPtoP4 *)r)->end;
		} else if (r->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
			start = &((CUpti_ActivityMemset4 *)r)->start;
			end = &((CUpti_ActivityMemset4 *)r)->end;
		}
		if (end && *end > now) {
			left++;
			if (zero)
				*start = *end = 0;
		}
		if (!size)
			break;
		at += (size + 7) & ~(size_t)7;
	}
	return left;
}

API CUptiResult cuptiActivityFlushAll(uint32_t flag)
{
	pthread_mutex_lock(&mu);
	if (unfinished(queue, qlen, (flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) != 0) &&
	    !(flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)) {
		pthread_mutex_unlock(&mu);
		return CUPTI_SUCCESS;
	}
	uint8_t *q = queue, *a = apiq;
	size_t n = qlen, na = alen;
	queue = apiq = NULL;
	qlen = qcap = alen = acap = 0;
	pthread_mutex_unlock(&mu);
	/* the kernels' buffer first, the API records' after (FAKE_CUPTI_API_
	 * DELAY_MS later: a loaded machine's scheduler between the two) */
	CUptiResult r = hand_over(q, n);
	const char *dl = getenv("FAKE_CUPTI_API_DELAY_MS");
	if (dl && na && atoi(dl) > 0) {
		struct timespec ts = { atoi(dl) / 1000, (long)(atoi(dl) % 1000) * 1000000L };
		nanosleep(&ts, NULL);
	}
	CUptiResult r2 = hand_over(a, na);
	return r != CUPTI_SUCCESS ? r : r2;
}

/* Hands buf (size bytes, valid of them records) to the registered
 * completion callback although no request callback gave it; the caller
 * still owns it afterwards. */
API void fake_cupti_complete_foreign(uint8_t *buf, size_t size, size_t valid);
void fake_cupti_complete_foreign(uint8_t *buf, size_t size, size_t valid)
{
	if (done)
		done(NULL, 0, buf, size, valid);
}

API CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext ctx, uint32_t stream, size_t *dropped)
{
	(void)ctx;
	(void)stream;
	pthread_mutex_lock(&mu);
	*dropped = n_lost;
	n_lost = 0;
	pthread_mutex_unlock(&mu);
	return CUPTI_SUCCESS;
}

API CUptiResult cuptiActivityGetNextRecord(uint8_t *buf, size_t valid, CUpti_Activity **rec)
{
	uint8_t *p;
	if (!*rec) {
		p = buf;
	} else {
		size_t n = record_size((*rec)->kind);
		if (!n)
			return CUPTI_ERROR_INVALID_KIND;
		p = (uint8_t *)*rec + ((n + 7) & ~(size_t)7);
	}
	if (p >= buf + valid)
		return CUPTI_ERROR_MAX_LIMIT_REACHED;
	*rec = (CUpti_Activity *)p;
	return CUPTI_SUCCESS;
}
