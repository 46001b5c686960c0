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
 * fake driver's virtual stream clocks.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cupti.h>

#define API __attribute__((visibility("default")))

struct fake_cuda_launch {
	char name[128];
	unsigned grid[3], block[3], cluster[3], dyn_smem;
	int regs, smem;
	unsigned long long stream, start, end;
};
void fake_cuda_track_launches(int on);
int fake_cuda_take_launches(struct fake_cuda_launch *out, int max);

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static CUpti_BuffersCallbackRequestFunc req;
static CUpti_BuffersCallbackCompleteFunc done;
static uint8_t *queue;
static size_t qlen, qcap;
static uint32_t next_corr = 100;
static __thread uint64_t ext_stack[16];
static __thread int ext_depth;
/* Names must outlive the buffer: keep every one. */
static char **names;
static size_t nnames;

static void append(const void *rec, size_t n)
{
	size_t padded = (n + 7) & ~(size_t)7;
	if (qlen + padded > qcap) {
		qcap = (qcap + padded) * 2;
		queue = realloc(queue, qcap);
	}
	memset(queue + qlen, 0, padded);
	memcpy(queue + qlen, rec, n);
	qlen += padded;
}

static size_t record_size(CUpti_ActivityKind k)
{
	return k == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ? sizeof(CUpti_ActivityKernel10)
		: k == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION ? sizeof(CUpti_ActivityExternalCorrelation)
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
	(void)kind;
	fake_cuda_track_launches(1);
	return CUPTI_SUCCESS;
}

API CUptiResult cuptiGetTimestamp(uint64_t *ts)
{
	*ts = 0;
	return CUPTI_SUCCESS;
}

API CUptiResult cuptiGetResultString(CUptiResult r, const char **s)
{
	(void)r;
	*s = "fake CUPTI error";
	return CUPTI_SUCCESS;
}

API CUptiResult cuptiActivityPushExternalCorrelationId(CUpti_ExternalCorrelationKind k, uint64_t id)
{
	(void)k;
	if (ext_depth < 16)
		ext_stack[ext_depth] = id;
	ext_depth++;
	struct fake_cuda_launch drop[64];
	fake_cuda_take_launches(drop, 64); /* forget launches made outside */
	return CUPTI_SUCCESS;
}

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
	for (int i = 0; i < n; i++) {
		CUpti_ActivityKernel10 r;
		memset(&r, 0, sizeof r);
		r.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
		r.correlationId = corr;
		names = realloc(names, (nnames + 1) * sizeof *names);
		names[nnames] = strdup(l[i].name);
		r.name = names[nnames++];
		r.gridX = (int32_t)l[i].grid[0]; r.gridY = (int32_t)l[i].grid[1]; r.gridZ = (int32_t)l[i].grid[2];
		r.blockX = (int32_t)l[i].block[0]; r.blockY = (int32_t)l[i].block[1]; r.blockZ = (int32_t)l[i].block[2];
		r.clusterX = l[i].cluster[0]; r.clusterY = l[i].cluster[1]; r.clusterZ = l[i].cluster[2];
		r.dynamicSharedMemory = (int32_t)l[i].dyn_smem;
		r.staticSharedMemory = l[i].smem;
		r.registersPerThread = (uint16_t)l[i].regs;
		r.streamId = (uint32_t)l[i].stream;
		/* CUPTI timestamps are never 0: shift the virtual clock by 1 s. */
		r.start = l[i].start + 1000000000ull;
		r.end = l[i].end + 1000000000ull;
		append(&r, sizeof r);
	}
	CUpti_ActivityExternalCorrelation x;
	memset(&x, 0, sizeof x);
	x.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
	x.externalKind = k;
	x.externalId = id;
	x.correlationId = corr;
	append(&x, sizeof x);
	pthread_mutex_unlock(&mu);
	return CUPTI_SUCCESS;
}

API CUptiResult cuptiActivityFlushAll(uint32_t flag)
{
	(void)flag;
	pthread_mutex_lock(&mu);
	uint8_t *q = queue;
	size_t n = qlen;
	queue = NULL;
	qlen = qcap = 0;
	pthread_mutex_unlock(&mu);
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
