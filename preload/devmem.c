/*
 * devmem.c - device memory the program holds through the driver's
 * allocators (cuMemAlloc, cuMemAllocAsync, cuMemCreate and their frees),
 * and the most it held at once: the trailer's peak_device_bytes, which the
 * analyzer compares with each target's memory.  Counted from the start,
 * whatever is being recorded.
 *
 * Allocations are rare (PyTorch's caching allocator keeps its segments),
 * so one lock of its own is enough; nothing else is locked while it is
 * held (the writer lock may be held around it, to read the peak).
 *
 * Must never: change errno (called right after the driver returned); lose
 * a byte of the count when the map cannot grow (such a block is counted
 * and never seen freed: the peak errs high, not low).
 */
#include <errno.h>
#include <pthread.h>

#include "preload/recorder.h"

static struct {
	pthread_mutex_t mu;
	struct hmap size;             /* device pointer -> bytes                */
	uint64_t held, peak;          /* bytes                                  */
} M = { .mu = PTHREAD_MUTEX_INITIALIZER };

void preload_mem_alloc(uint64_t ptr, uint64_t bytes)
{
	if (!ptr || !bytes)
		return;
	int e = errno;             /* the host program's, as the driver left it */
	pthread_mutex_lock(&M.mu);
	/* a pointer the map cannot hold is still counted (never freed) */
	const uint64_t *old = hmap_get(&M.size, ptr);
	if (old)
		M.held -= *old;
	hmap_put(&M.size, ptr, bytes);
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
	const uint64_t *b = hmap_get(&M.size, ptr);
	if (b) {
		M.held -= *b;
		hmap_del(&M.size, ptr);
	}
	pthread_mutex_unlock(&M.mu);
	errno = e;
}

uint64_t preload_mem_peak(void)
{
	pthread_mutex_lock(&M.mu);
	uint64_t p = M.peak;
	pthread_mutex_unlock(&M.mu);
	return p;
}
