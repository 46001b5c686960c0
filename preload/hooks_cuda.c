/*
 * hooks_cuda.c - the driver API hooks: kernel launches, graph launches,
 * memcpy/memset, synchronizations, the profiler start/stop markers, the
 * calls that change what a handle or a context is (unloads, resets), and
 * the graph calls that say which capture a graph came from.
 *
 * Each hook is both exported under the driver's name (programs linked with
 * -lcuda, Triton's launcher) and handed out by our cuGetProcAddress (the
 * CUDA runtime and the runtimes inside cuBLAS/cuDNN).  Variant 1 of an
 * entry is the per-thread-default-stream function (_ptsz/_ptds): a NULL
 * stream there means the calling thread's stream, not the legacy one.
 *
 * Every hook calls the real function exactly once with the caller's
 * arguments, returns its result unchanged and keeps errno; recording is
 * skipped when it is off or anything is missing.  One shape for all: the
 * real function is resolved (none: CUDA_ERROR_NOT_FOUND, nothing called or
 * recorded), its family's *_before decides once whether the call is
 * recorded and does the recorder's work before it, the real function runs,
 * and the family's *_after records what happened and returns the real
 * result.  The before and after functions are where errno is kept: the
 * driver sees the caller's errno, the caller the driver's.  A family
 * writes its work once; a hook writes only its signature and the call.
 */
#include <errno.h>
#include <string.h>

#include <cuda.h>

#include "preload/preload.h"

/* cuda.h maps cuMemcpyBatchAsync onto 13.0's cuMemcpyBatchAsync_v2; the
 * driver still exports 12.8's under the plain name, which is hooked too.
 * The same for cuGraphExecUpdate (12.0's _v2; 10.2's under the plain name). */
#undef cuMemcpyBatchAsync
#undef cuGraphExecUpdate

/* One typedef per real signature. */
typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
			      unsigned, unsigned, CUstream, void **, void **);
typedef CUresult (*launch_ex_fn)(const CUlaunchConfig *, CUfunction, void **, void **);
typedef CUresult (*launch_coop_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
				   unsigned, unsigned, CUstream, void **);
typedef CUresult (*graph_launch_fn)(CUgraphExec, CUstream);
typedef CUresult (*end_capture_fn)(CUstream, CUgraph *);
typedef CUresult (*begin_capture_fn)(CUstream, CUstreamCaptureMode);
typedef CUresult (*capture_to_graph_fn)(CUstream, CUgraph, const CUgraphNode *, const CUgraphEdgeData *,
					size_t, CUstreamCaptureMode);
typedef CUresult (*instantiate_flags_fn)(CUgraphExec *, CUgraph, unsigned long long);
typedef CUresult (*instantiate_params_fn)(CUgraphExec *, CUgraph, CUDA_GRAPH_INSTANTIATE_PARAMS *);
typedef CUresult (*instantiate_v2_fn)(CUgraphExec *, CUgraph, CUgraphNode *, char *, size_t);
typedef CUresult (*exec_update_fn)(CUgraphExec, CUgraph, CUgraphExecUpdateResultInfo *);
typedef CUresult (*exec_update_v1_fn)(CUgraphExec, CUgraph, CUgraphNode *, CUgraphExecUpdateResult *);
typedef CUresult (*graph_destroy_fn)(CUgraph);
typedef CUresult (*exec_destroy_fn)(CUgraphExec);
typedef CUresult (*memcpy_fn)(CUdeviceptr, CUdeviceptr, size_t);
typedef CUresult (*memcpy_async_fn)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
typedef CUresult (*htod_fn)(CUdeviceptr, const void *, size_t);
typedef CUresult (*htod_async_fn)(CUdeviceptr, const void *, size_t, CUstream);
typedef CUresult (*dtoh_fn)(void *, CUdeviceptr, size_t);
typedef CUresult (*dtoh_async_fn)(void *, CUdeviceptr, size_t, CUstream);
typedef CUresult (*memset8_fn)(CUdeviceptr, unsigned char, size_t);
typedef CUresult (*memset32_fn)(CUdeviceptr, unsigned int, size_t);
typedef CUresult (*memset8_async_fn)(CUdeviceptr, unsigned char, size_t, CUstream);
typedef CUresult (*memset32_async_fn)(CUdeviceptr, unsigned int, size_t, CUstream);
typedef CUresult (*memset16_fn)(CUdeviceptr, unsigned short, size_t);
typedef CUresult (*memset16_async_fn)(CUdeviceptr, unsigned short, size_t, CUstream);
typedef CUresult (*set2d8_fn)(CUdeviceptr, size_t, unsigned char, size_t, size_t);
typedef CUresult (*set2d16_fn)(CUdeviceptr, size_t, unsigned short, size_t, size_t);
typedef CUresult (*set2d32_fn)(CUdeviceptr, size_t, unsigned int, size_t, size_t);
typedef CUresult (*set2d8_async_fn)(CUdeviceptr, size_t, unsigned char, size_t, size_t, CUstream);
typedef CUresult (*set2d16_async_fn)(CUdeviceptr, size_t, unsigned short, size_t, size_t, CUstream);
typedef CUresult (*set2d32_async_fn)(CUdeviceptr, size_t, unsigned int, size_t, size_t, CUstream);
typedef CUresult (*batch_fn)(CUdeviceptr *, CUdeviceptr *, size_t *, size_t, CUmemcpyAttributes *,
			     size_t *, size_t, size_t *, CUstream);
typedef CUresult (*batch_v2_fn)(CUdeviceptr *, CUdeviceptr *, size_t *, size_t, CUmemcpyAttributes *,
				size_t *, size_t, CUstream);
typedef CUresult (*peer_fn)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t);
typedef CUresult (*peer_async_fn)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream);
typedef CUresult (*copy2d_fn)(const CUDA_MEMCPY2D *);
typedef CUresult (*copy2d_async_fn)(const CUDA_MEMCPY2D *, CUstream);
typedef CUresult (*copy3d_fn)(const CUDA_MEMCPY3D *);
typedef CUresult (*copy3d_async_fn)(const CUDA_MEMCPY3D *, CUstream);
typedef CUresult (*void_fn)(void);
typedef CUresult (*ctx_v2_fn)(CUcontext);
typedef CUresult (*stream_fn)(CUstream);
typedef CUresult (*event_fn)(CUevent);
typedef CUresult (*wait_event_fn)(CUstream, CUevent, unsigned int);
typedef CUresult (*record_fn)(CUevent, CUstream);
typedef CUresult (*mem_alloc_fn)(CUdeviceptr *, size_t);
typedef CUresult (*mem_free_fn)(CUdeviceptr);
typedef CUresult (*mem_alloc_async_fn)(CUdeviceptr *, size_t, CUstream);
typedef CUresult (*mem_free_async_fn)(CUdeviceptr, CUstream);
typedef CUresult (*mem_alloc_pool_fn)(CUdeviceptr *, size_t, CUmemoryPool, CUstream);
typedef CUresult (*mem_create_fn)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,
				  unsigned long long);
typedef CUresult (*mem_release_fn)(CUmemGenericAllocationHandle);
typedef CUresult (*record_flags_fn)(CUevent, CUstream, unsigned int);
typedef CUresult (*ptr_attr_fn)(void *, CUpointer_attribute, CUdeviceptr);
typedef CUresult (*host_flags_fn)(unsigned int *, void *);
typedef CUresult (*device_fn)(CUdevice);
typedef CUresult (*module_unload_fn)(CUmodule);
typedef CUresult (*library_unload_fn)(CUlibrary);
typedef CUresult (*ctx_fn)(CUcontext);

/* Indices in preload_cuda_hooks (the getters' two come first, preload.h). */
enum {
	HK_LAUNCH = PRELOAD_HK_GETPROC_V2 + 1, HK_LAUNCH_EX, HK_LAUNCH_COOP, HK_GRAPH, HK_MEMCPY, HK_MEMCPY_ASYNC,
	HK_HTOD, HK_DTOH, HK_DTOD, HK_HTOD_ASYNC, HK_DTOH_ASYNC, HK_DTOD_ASYNC,
	HK_MEMSET8, HK_MEMSET32, HK_MEMSET8_ASYNC, HK_MEMSET32_ASYNC,
	HK_MEMSET16, HK_MEMSET16_ASYNC, HK_PEER, HK_PEER_ASYNC,
	HK_COPY2D, HK_COPY2D_ASYNC, HK_COPY2D_UNALIGNED, HK_COPY3D, HK_COPY3D_ASYNC,
	HK_SET2D8, HK_SET2D16, HK_SET2D32, HK_SET2D8_ASYNC, HK_SET2D16_ASYNC, HK_SET2D32_ASYNC,
	HK_BATCH, HK_BATCH_V2,
	HK_CTX_SYNC, HK_CTX_SYNC_V2, HK_STREAM_SYNC, HK_EVENT_SYNC, HK_WAIT_EVENT, HK_RECORD, HK_RECORD_FLAGS,
	HK_MEM_ALLOC, HK_MEM_FREE, HK_MEM_ALLOC_ASYNC, HK_MEM_FREE_ASYNC, HK_MEM_ALLOC_POOL,
	HK_MEM_CREATE, HK_MEM_RELEASE,
	HK_PROF_START, HK_PROF_STOP,
	HK_PRIMARY_RELEASE, HK_PRIMARY_RESET, HK_CTX_DESTROY,
	HK_MODULE_UNLOAD, HK_LIBRARY_UNLOAD,
	HK_BEGIN_CAPTURE, HK_END_CAPTURE, HK_CAPTURE_TO_GRAPH, HK_INSTANTIATE_FLAGS, HK_INSTANTIATE_PARAMS, HK_INSTANTIATE_V2,
	HK_EXEC_UPDATE, HK_EXEC_UPDATE_V1, HK_GRAPH_DESTROY, HK_EXEC_DESTROY,
	HK_COUNT
};

#define REAL(type, idx, v) ((type)preload_hook_real(&preload_cuda_hooks[idx], v, "libcuda.so.1"))

/* ---- launches --------------------------------------------------------- */

/* A launch hook's call: recorded or not (decided once, before the real
 * call), what the recorder knows of it, and errno kept across the
 * recorder's work on either side of the real call. */
struct launch_call {
	int on;
	int e;
	struct preload_launch l;
	struct preload_launch_tok tok;
};

/* Before the real call of a kernel launch described by c->l. */
static void kernel_before(struct launch_call *c)
{
	c->e = errno;
	preload_launch_begin(&c->l, &c->tok);
	errno = c->e;
}

/* After it: the record (when the launch succeeded); returns r.  Inlined
 * whatever the optimization level: the launch's stack (stacks.c) skips a
 * fixed number of frames, preload_launch_end's and the hook's. */
static inline __attribute__((always_inline)) CUresult kernel_after(struct launch_call *c,
								   CUresult r)
{
	if (!c->on)
		return r;
	c->e = errno;
	preload_launch_end(&c->l, &c->tok, r);
	errno = c->e;
	return r;
}

/* cuLaunchKernel and cuLaunchCooperativeKernel: the launch is its
 * arguments; flags are the TRACE_KF_* of the entry point, beyond v's. */
static void args_before(struct launch_call *c, int v, uint32_t flags, CUfunction f, unsigned gx,
			unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
			unsigned smem, CUstream s)
{
	c->on = preload_recording_on(s, v);
	if (!c->on) {
		preload_not_recorded();
		return;
	}
	c->l = (struct preload_launch){ .f = f, .grid = { gx, gy, gz }, .block = { bx, by, bz },
					.dyn_smem = smem, .stream = s,
					.flags = flags | (v ? TRACE_KF_PTSZ : 0) };
	kernel_before(c);
}

/* cuLaunchKernelEx: the launch is its configuration and attributes (a
 * cluster shape, cooperative); a NULL configuration is not recorded. */
static void config_before(struct launch_call *c, int v, const CUlaunchConfig *cfg, CUfunction f)
{
	c->on = cfg && preload_recording_on(cfg->hStream, v);
	if (!c->on) {
		preload_not_recorded();
		return;
	}
	c->l = (struct preload_launch){ .f = f,
					.grid = { cfg->gridDimX, cfg->gridDimY, cfg->gridDimZ },
					.block = { cfg->blockDimX, cfg->blockDimY, cfg->blockDimZ },
					.dyn_smem = cfg->sharedMemBytes, .stream = cfg->hStream,
					.flags = TRACE_KF_EX | (v ? TRACE_KF_PTSZ : 0) };
	for (unsigned i = 0; cfg->attrs && i < cfg->numAttrs; i++) {
		const CUlaunchAttribute *a = &cfg->attrs[i];
		if (a->id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
			c->l.cluster[0] = a->value.clusterDim.x;
			c->l.cluster[1] = a->value.clusterDim.y;
			c->l.cluster[2] = a->value.clusterDim.z;
		} else if (a->id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE && a->value.cooperative) {
			c->l.flags |= TRACE_KF_COOPERATIVE;
		}
	}
	kernel_before(c);
}

static CUresult launch(int v, CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
		       unsigned by, unsigned bz, unsigned smem, CUstream s, void **params,
		       void **extra)
{
	launch_fn real = REAL(launch_fn, HK_LAUNCH, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	struct launch_call c;
	args_before(&c, v, 0, f, gx, gy, gz, bx, by, bz, smem, s);
	return kernel_after(&c, real(f, gx, gy, gz, bx, by, bz, smem, s, params, extra));
}

static CUresult launch_coop(int v, CUfunction f, unsigned gx, unsigned gy, unsigned gz,
			    unsigned bx, unsigned by, unsigned bz, unsigned smem, CUstream s,
			    void **params)
{
	launch_coop_fn real = REAL(launch_coop_fn, HK_LAUNCH_COOP, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	struct launch_call c;
	args_before(&c, v, TRACE_KF_COOPERATIVE, f, gx, gy, gz, bx, by, bz, smem, s);
	return kernel_after(&c, real(f, gx, gy, gz, bx, by, bz, smem, s, params));
}

static CUresult launch_ex(int v, const CUlaunchConfig *cfg, CUfunction f, void **params,
			  void **extra)
{
	launch_ex_fn real = REAL(launch_ex_fn, HK_LAUNCH_EX, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	struct launch_call c;
	config_before(&c, v, cfg, f);
	return kernel_after(&c, real(cfg, f, params, extra));
}

/* A graph replay: its kernels come from CUPTI (entries.c); the call only
 * carries its seq and its executable graph's capture to them. */
static CUresult graph_launch(int v, CUgraphExec g, CUstream s)
{
	graph_launch_fn real = REAL(graph_launch_fn, HK_GRAPH, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	struct launch_call c;
	c.on = preload_recording_on(s, v);
	if (c.on) {
		c.e = errno;
		preload_graph_begin(s, v, g, &c.tok);
		errno = c.e;
	} else {
		preload_not_recorded();
	}
	CUresult r = real(g, s);
	if (c.on) {
		c.e = errno;
		preload_graph_end(s, v, &c.tok, r);
		errno = c.e;
	}
	return r;
}

/* ---- copies and sets --------------------------------------------------- */

/*
 * What memory a pointer is, as the driver knows it.  The analyzer needs to
 * know whether a copy's host side is page-locked: a copy to or from
 * pageable memory goes through the driver's staging buffer, so even
 * cuMemcpyAsync returns only once the stream reached it (to pageable: once
 * it is done) and the CPU waits there.  cuPointerGetAttribute's memory type
 * is host for page-locked memory (cuMemHostAlloc, cuMemAllocHost,
 * cuMemHostRegister) and device for device memory; for memory the driver
 * does not know (malloc, the stack) it fails with CUDA_ERROR_INVALID_VALUE:
 * pageable.  Without it, cuMemHostGetFlags answers for a pointer known to
 * be host memory (cuMemHostAlloc'd: pinned).  Any other answer (no context, a driver shutting down) is
 * unknown.  Both are read-only queries of the driver's address map; they
 * are made only while recording, after the copy itself succeeded (so the
 * driver and the pointer's context are live), and never during a capture
 * check or from a CUPTI callback.  Resolved once through resolve.c.
 */
enum mem_of { MEM_UNKNOWN = 0, MEM_DEVICE, MEM_PINNED, MEM_PAGEABLE };

static enum mem_of mem_of(CUdeviceptr p, int known_host)
{
	static ptr_attr_fn attr_cache;
	static host_flags_fn flags_cache;
	static int resolved;
	if (!__atomic_load_n(&resolved, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&attr_cache, (ptr_attr_fn)preload_driver_sym("cuPointerGetAttribute"),
				 __ATOMIC_RELAXED);
		__atomic_store_n(&flags_cache, (host_flags_fn)preload_driver_sym("cuMemHostGetFlags"),
				 __ATOMIC_RELAXED);
		__atomic_store_n(&resolved, 1, __ATOMIC_RELEASE);
	}
	ptr_attr_fn attr = __atomic_load_n(&attr_cache, __ATOMIC_RELAXED);
	host_flags_fn flags = __atomic_load_n(&flags_cache, __ATOMIC_RELAXED);
	if (!p)
		return MEM_UNKNOWN;
	if (attr) {
		unsigned int t = 0;
		CUresult r = attr(&t, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p);
		if (r == CUDA_SUCCESS)
			return t == CU_MEMORYTYPE_DEVICE ? MEM_DEVICE
			     : t == CU_MEMORYTYPE_HOST ? MEM_PINNED : MEM_UNKNOWN;
		return r == CUDA_ERROR_INVALID_VALUE ? MEM_PAGEABLE : MEM_UNKNOWN;
	}
	if (flags && known_host) {   /* it cannot tell device memory */
		unsigned int f = 0;
		CUresult r = flags(&f, (void *)(uintptr_t)p);
		return r == CUDA_SUCCESS ? MEM_PINNED : r == CUDA_ERROR_INVALID_VALUE ? MEM_PAGEABLE
										      : MEM_UNKNOWN;
	}
	return MEM_UNKNOWN;
}

static enum trace_host_mem host_mem_of(enum mem_of m)
{
	return m == MEM_PINNED ? TRACE_HOST_PINNED : m == MEM_PAGEABLE ? TRACE_HOST_PAGEABLE
								       : TRACE_HOST_UNKNOWN;
}

/* What a copy moved between: its direction and its host side's memory.  A
 * unified-address copy's direction comes from the memory type of each side
 * (memory the driver does not know is host); a host side of a known
 * direction is asked about only for itself (host). */
struct copy_mem {
	enum trace_copy_kind kind;
	enum trace_host_mem host;
};

static struct copy_mem unified_mem(CUdeviceptr dst, CUdeviceptr src)
{
	struct copy_mem c = { TRACE_COPY_UNKNOWN, TRACE_HOST_UNKNOWN };
	enum mem_of d = mem_of(dst, 0), s = mem_of(src, 0);
	if (d == MEM_UNKNOWN && s == MEM_UNKNOWN)
		return c;
	int dev_d = d == MEM_DEVICE, dev_s = s == MEM_DEVICE;
	c.kind = dev_d && dev_s ? TRACE_COPY_DTOD : dev_d ? TRACE_COPY_HTOD
		 : dev_s ? TRACE_COPY_DTOH : TRACE_COPY_HTOH;
	if (c.kind == TRACE_COPY_HTOD)
		c.host = host_mem_of(s);
	else if (c.kind == TRACE_COPY_DTOH)
		c.host = host_mem_of(d);
	else if (c.kind == TRACE_COPY_HTOH)  /* pageable on either side stages it */
		c.host = d == MEM_PAGEABLE || s == MEM_PAGEABLE ? TRACE_HOST_PAGEABLE
							       : host_mem_of(d);
	return c;
}

static struct copy_mem host_side(enum trace_copy_kind kind, const void *host)
{
	struct copy_mem c = { kind, host_mem_of(mem_of((CUdeviceptr)(uintptr_t)host, 1)) };
	return c;
}

/* sides says which of dst and src are asked what memory they are (only
 * after a successful copy, see mem_of). */
enum copy_sides { SIDES_NONE = 0, SIDES_UNIFIED, SIDES_HOST_SRC, SIDES_HOST_DST, SIDES_TYPED };

/* A pitched copy's side: the memory type its parameters name and its
 * pointer (host, device or unified; an array is device memory). */
struct typed_side {
	CUmemorytype type;
	CUdeviceptr ptr;
};

static int typed_device(const struct typed_side *s)
{
	return s->type == CU_MEMORYTYPE_DEVICE || s->type == CU_MEMORYTYPE_ARRAY ||
	       (s->type == CU_MEMORYTYPE_UNIFIED && mem_of(s->ptr, 0) == MEM_DEVICE);
}

/* A pitched copy's direction from its sides' memory types, a host side
 * asked what memory it is (as a unified copy's, only after it succeeded). */
static struct copy_mem copy_mem_typed(const struct typed_side *src, const struct typed_side *dst)
{
	int dd = typed_device(dst), ds = typed_device(src);
	struct copy_mem c = { dd && ds ? TRACE_COPY_DTOD : dd ? TRACE_COPY_HTOD
			      : ds ? TRACE_COPY_DTOH : TRACE_COPY_HTOH, TRACE_HOST_UNKNOWN };
	if (c.kind == TRACE_COPY_HTOD)
		c.host = host_mem_of(mem_of(src->ptr, 1));
	else if (c.kind == TRACE_COPY_DTOH)
		c.host = host_mem_of(mem_of(dst->ptr, 1));
	return c;
}

/* What each copy and set entry point records, by HK_* index: the record,
 * the direction (UNKNOWN: from the sides), whether the call is
 * asynchronous, which pointers are asked about, and the bytes of one
 * element of its count. */
static const struct copy_desc {
	uint8_t type;                 /* TRACE_MEMCPY or TRACE_MEMSET          */
	uint8_t kind;                 /* enum trace_copy_kind                  */
	uint8_t async;
	uint8_t sides;                /* enum copy_sides                       */
	uint8_t elem;                 /* bytes per counted element             */
} copies[HK_COUNT] = {
	[HK_MEMCPY] = { TRACE_MEMCPY, TRACE_COPY_UNKNOWN, 0, SIDES_UNIFIED, 1 },
	[HK_MEMCPY_ASYNC] = { TRACE_MEMCPY, TRACE_COPY_UNKNOWN, 1, SIDES_UNIFIED, 1 },
	[HK_HTOD] = { TRACE_MEMCPY, TRACE_COPY_HTOD, 0, SIDES_HOST_SRC, 1 },
	[HK_DTOH] = { TRACE_MEMCPY, TRACE_COPY_DTOH, 0, SIDES_HOST_DST, 1 },
	[HK_DTOD] = { TRACE_MEMCPY, TRACE_COPY_DTOD, 0, SIDES_NONE, 1 },
	[HK_HTOD_ASYNC] = { TRACE_MEMCPY, TRACE_COPY_HTOD, 1, SIDES_HOST_SRC, 1 },
	[HK_DTOH_ASYNC] = { TRACE_MEMCPY, TRACE_COPY_DTOH, 1, SIDES_HOST_DST, 1 },
	[HK_DTOD_ASYNC] = { TRACE_MEMCPY, TRACE_COPY_DTOD, 1, SIDES_NONE, 1 },
	[HK_MEMSET8] = { TRACE_MEMSET, TRACE_COPY_UNKNOWN, 0, SIDES_NONE, 1 },
	[HK_MEMSET32] = { TRACE_MEMSET, TRACE_COPY_UNKNOWN, 0, SIDES_NONE, 4 },
	[HK_MEMSET8_ASYNC] = { TRACE_MEMSET, TRACE_COPY_UNKNOWN, 1, SIDES_NONE, 1 },
	[HK_MEMSET32_ASYNC] = { TRACE_MEMSET, TRACE_COPY_UNKNOWN, 1, SIDES_NONE, 4 },
	[HK_MEMSET16] = { TRACE_MEMSET, TRACE_COPY_UNKNOWN, 0, SIDES_NONE, 2 },
	[HK_MEMSET16_ASYNC] = { TRACE_MEMSET, TRACE_COPY_UNKNOWN, 1, SIDES_NONE, 2 },
	/* between two GPUs' memory (PyTorch's caching allocator's memcpyAsync
	 * takes it for a copy across GPUs without peer access when its
	 * segments are expandable) */
	[HK_PEER] = { TRACE_MEMCPY, TRACE_COPY_PTOP, 0, SIDES_NONE, 1 },
	[HK_PEER_ASYNC] = { TRACE_MEMCPY, TRACE_COPY_PTOP, 1, SIDES_NONE, 1 },
	/* pitched copies: the direction and host memory from the parameters'
	 * memory types (copy_mem_typed()) */
	[HK_COPY2D] = { TRACE_MEMCPY, TRACE_COPY_UNKNOWN, 0, SIDES_TYPED, 1 },
	[HK_COPY2D_ASYNC] = { TRACE_MEMCPY, TRACE_COPY_UNKNOWN, 1, SIDES_TYPED, 1 },
	[HK_COPY2D_UNALIGNED] = { TRACE_MEMCPY, TRACE_COPY_UNKNOWN, 0, SIDES_TYPED, 1 },
	[HK_COPY3D] = { TRACE_MEMCPY, TRACE_COPY_UNKNOWN, 0, SIDES_TYPED, 1 },
	[HK_COPY3D_ASYNC] = { TRACE_MEMCPY, TRACE_COPY_UNKNOWN, 1, SIDES_TYPED, 1 },
	/* pitched sets: width x height elements (the pitch is skipped) */
	[HK_SET2D8] = { TRACE_MEMSET, TRACE_COPY_UNKNOWN, 0, SIDES_NONE, 1 },
	[HK_SET2D16] = { TRACE_MEMSET, TRACE_COPY_UNKNOWN, 0, SIDES_NONE, 2 },
	[HK_SET2D32] = { TRACE_MEMSET, TRACE_COPY_UNKNOWN, 0, SIDES_NONE, 4 },
	[HK_SET2D8_ASYNC] = { TRACE_MEMSET, TRACE_COPY_UNKNOWN, 1, SIDES_NONE, 1 },
	[HK_SET2D16_ASYNC] = { TRACE_MEMSET, TRACE_COPY_UNKNOWN, 1, SIDES_NONE, 2 },
	[HK_SET2D32_ASYNC] = { TRACE_MEMSET, TRACE_COPY_UNKNOWN, 1, SIDES_NONE, 4 },
	/* a batch of unified-address copies, one record (batch_after()) */
	[HK_BATCH] = { TRACE_MEMCPY, TRACE_COPY_UNKNOWN, 1, SIDES_UNIFIED, 1 },
	[HK_BATCH_V2] = { TRACE_MEMCPY, TRACE_COPY_UNKNOWN, 1, SIDES_UNIFIED, 1 },
};

/* A copy, set or synchronization hook's call: recorded or not (decided
 * once, before the real call), errno kept across the recorder's work on
 * either side of it, the CPU time it started. */
struct call {
	int on;
	int e;
	int idx, v;                   /* HK_* index and variant                */
	uint64_t t0;                  /* CPU time at the start, ns             */
	uint64_t seq;                 /* copies: their record's seq            */
};

/* Resolves the real function of entry idx, variant v, and starts the
 * call; NULL when the driver lacks it (the hook returns
 * CUDA_ERROR_NOT_FOUND and nothing is recorded). */
static void *call_before(struct call *c, int idx, int v)
{
	void *real = REAL(void *, idx, v);
	c->on = real && preload_recording();
	c->idx = idx;
	c->v = v;
	if (c->on) {
		c->e = errno;
		c->t0 = preload_now_ns();
		errno = c->e;
	}
	return real;
}

/* Copies also carry their seq to CUPTI, which times them. */
static void *copy_before(struct call *c, int idx, int v)
{
	void *real = call_before(c, idx, v);
	if (c->on) {
		c->seq = preload_op_begin();
		errno = c->e;
	}
	return real;
}

/* The recorded copy's call is over: errno kept (put back by the caller),
 * its CUPTI correlation taken back; its CPU end time. */
static uint64_t copy_end(struct call *c)
{
	c->e = errno;
	uint64_t t1 = preload_now_ns();
	preload_op_end();
	return t1;
}

/* After the real copy or set of n elements (dst and src as addresses; s
 * NULL for a synchronous one; a pitched copy's typed sides in tsrc and
 * tdst, else NULL): its record when it succeeded; returns r. */
static CUresult copy_after_typed(struct call *c, CUresult r, size_t n, CUstream s, CUdeviceptr dst,
				 CUdeviceptr src, const struct typed_side *tsrc,
				 const struct typed_side *tdst)
{
	if (!c->on)
		return r;
	const struct copy_desc *d = &copies[c->idx];
	uint64_t t1 = copy_end(c);
	if (r == CUDA_SUCCESS) {
		struct copy_mem m = { (enum trace_copy_kind)d->kind, TRACE_HOST_UNKNOWN };
		if (d->sides == SIDES_UNIFIED)
			m = unified_mem(dst, src);
		else if (d->sides == SIDES_HOST_SRC)
			m = host_side(m.kind, (const void *)(uintptr_t)src);
		else if (d->sides == SIDES_HOST_DST)
			m = host_side(m.kind, (const void *)(uintptr_t)dst);
		else if (d->sides == SIDES_TYPED && tsrc && tdst)
			m = copy_mem_typed(tsrc, tdst);
		preload_copy(c->seq, d->type, (uint64_t)n * d->elem, 1, m.kind, m.host, d->async, s,
			     c->v, c->t0, t1);
	}
	errno = c->e;
	return r;
}

static CUresult copy_after(struct call *c, CUresult r, size_t n, CUstream s, CUdeviceptr dst,
			   CUdeviceptr src)
{
	return copy_after_typed(c, r, n, s, dst, src, NULL, NULL);
}

/* After a synchronization, stream wait or event record: its record (an
 * event record only when the driver accepted it: what a later wait waits
 * for); returns r. */
static CUresult sync_after(struct call *c, CUresult r, enum trace_sync_kind kind, CUstream s,
			   CUevent ev)
{
	if (!c->on || (kind == TRACE_SYNC_EVENT_RECORD && r != CUDA_SUCCESS))
		return r;
	c->e = errno;
	preload_sync(kind, s, c->v, c->t0, preload_now_ns(), (uint64_t)(uintptr_t)ev);
	errno = c->e;
	return r;
}

/* The copies and sets, one function per real signature; idx tells which
 * entry point (copies[]).  A host pointer is passed on as an address. */
#define ADDR(p) ((CUdeviceptr)(uintptr_t)(p))

static CUresult copy_dd(int idx, int v, CUdeviceptr d, CUdeviceptr s, size_t n)
{
	struct call c;
	memcpy_fn real = (memcpy_fn)copy_before(&c, idx, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return copy_after(&c, real(d, s, n), n, NULL, d, s);
}

static CUresult copy_dd_async(int idx, int v, CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st)
{
	struct call c;
	memcpy_async_fn real = (memcpy_async_fn)copy_before(&c, idx, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return copy_after(&c, real(d, s, n, st), n, st, d, s);
}

static CUresult htod(int v, CUdeviceptr d, const void *s, size_t n)
{
	struct call c;
	htod_fn real = (htod_fn)copy_before(&c, HK_HTOD, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return copy_after(&c, real(d, s, n), n, NULL, d, ADDR(s));
}

static CUresult htod_async(int v, CUdeviceptr d, const void *s, size_t n, CUstream st)
{
	struct call c;
	htod_async_fn real = (htod_async_fn)copy_before(&c, HK_HTOD_ASYNC, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return copy_after(&c, real(d, s, n, st), n, st, d, ADDR(s));
}

static CUresult dtoh(int v, void *d, CUdeviceptr s, size_t n)
{
	struct call c;
	dtoh_fn real = (dtoh_fn)copy_before(&c, HK_DTOH, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return copy_after(&c, real(d, s, n), n, NULL, ADDR(d), s);
}

static CUresult dtoh_async(int v, void *d, CUdeviceptr s, size_t n, CUstream st)
{
	struct call c;
	dtoh_async_fn real = (dtoh_async_fn)copy_before(&c, HK_DTOH_ASYNC, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return copy_after(&c, real(d, s, n, st), n, st, ADDR(d), s);
}

static CUresult memset8(int v, CUdeviceptr d, unsigned char x, size_t n)
{
	struct call c;
	memset8_fn real = (memset8_fn)copy_before(&c, HK_MEMSET8, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return copy_after(&c, real(d, x, n), n, NULL, d, 0);
}

static CUresult memset32(int v, CUdeviceptr d, unsigned int x, size_t n)
{
	struct call c;
	memset32_fn real = (memset32_fn)copy_before(&c, HK_MEMSET32, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return copy_after(&c, real(d, x, n), n, NULL, d, 0);
}

static CUresult memset8_async(int v, CUdeviceptr d, unsigned char x, size_t n, CUstream st)
{
	struct call c;
	memset8_async_fn real = (memset8_async_fn)copy_before(&c, HK_MEMSET8_ASYNC, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return copy_after(&c, real(d, x, n, st), n, st, d, 0);
}

static CUresult memset32_async(int v, CUdeviceptr d, unsigned int x, size_t n, CUstream st)
{
	struct call c;
	memset32_async_fn real = (memset32_async_fn)copy_before(&c, HK_MEMSET32_ASYNC, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return copy_after(&c, real(d, x, n, st), n, st, d, 0);
}

static CUresult memset16(int v, CUdeviceptr d, unsigned short x, size_t n)
{
	struct call c;
	memset16_fn real = (memset16_fn)copy_before(&c, HK_MEMSET16, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return copy_after(&c, real(d, x, n), n, NULL, d, 0);
}

static CUresult memset16_async(int v, CUdeviceptr d, unsigned short x, size_t n, CUstream st)
{
	struct call c;
	memset16_async_fn real = (memset16_async_fn)copy_before(&c, HK_MEMSET16_ASYNC, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return copy_after(&c, real(d, x, n, st), n, st, d, 0);
}

static CUresult peer(int v, CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n)
{
	struct call c;
	peer_fn real = (peer_fn)copy_before(&c, HK_PEER, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return copy_after(&c, real(d, dc, s, sc, n), n, NULL, d, s);
}

static CUresult peer_async(int v, CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n,
			   CUstream st)
{
	struct call c;
	peer_async_fn real = (peer_async_fn)copy_before(&c, HK_PEER_ASYNC, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return copy_after(&c, real(d, dc, s, sc, n, st), n, st, d, s);
}

/* Pitched sets: w x h elements of elem bytes (copies[]), rows pitch bytes
 * apart.  One function for the three element sizes: the value goes to the
 * real function with the width its signature takes. */
static CUresult set2d(int idx, int v, CUdeviceptr d, size_t pitch, unsigned x, size_t w, size_t h,
		      CUstream st)
{
	struct call c;
	void *real = copy_before(&c, idx, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	CUresult r;
	switch (idx) {
	case HK_SET2D8: r = ((set2d8_fn)real)(d, pitch, (unsigned char)x, w, h); break;
	case HK_SET2D16: r = ((set2d16_fn)real)(d, pitch, (unsigned short)x, w, h); break;
	case HK_SET2D32: r = ((set2d32_fn)real)(d, pitch, x, w, h); break;
	case HK_SET2D8_ASYNC: r = ((set2d8_async_fn)real)(d, pitch, (unsigned char)x, w, h, st); break;
	case HK_SET2D16_ASYNC: r = ((set2d16_async_fn)real)(d, pitch, (unsigned short)x, w, h, st); break;
	default: r = ((set2d32_async_fn)real)(d, pitch, x, w, h, st); break;
	}
	return copy_after(&c, r, w * h, copies[idx].async ? st : NULL, d, 0);
}

/*
 * A batch of copies (cuMemcpyBatchAsync: vLLM's and SGLang's KV-cache
 * offload moves a step's blocks so, CUDA 12.8 and later).  The batch runs
 * as a whole in stream order, its copies in no order among themselves, and
 * CUPTI reports it under its call's correlation id in one or more records,
 * each counting the copies it covers: one record of the batch, bytes their
 * sum, copies their count (pending.c joins the reports).  Its direction and
 * host memory are those of the copies that move the most bytes, from each
 * side's memory type as for cuMemcpyAsync; at most BATCH_ASKED copies are
 * asked about (two driver queries each), so that a batch of thousands of
 * blocks does not cost the call thousands of queries: the rest are taken
 * to go as the ones asked about.
 */
#define BATCH_ASKED 64

static CUresult batch_after(struct call *c, CUresult r, CUdeviceptr *dsts, CUdeviceptr *srcs,
			    const size_t *sizes, size_t count, CUstream st)
{
	if (!c->on)
		return r;
	const struct copy_desc *d = &copies[c->idx];
	uint64_t t1 = copy_end(c);
	if (r == CUDA_SUCCESS && dsts && srcs && sizes && count) {
		struct copy_mem cls[4];
		uint64_t cls_bytes[4] = { 0 }, bytes = 0;
		int ncls = 0;
		for (size_t i = 0; i < count; i++) {
			bytes += sizes[i];
			if (i >= BATCH_ASKED)
				continue;
			struct copy_mem m = unified_mem(dsts[i], srcs[i]);
			int k = 0;
			while (k < ncls && (cls[k].kind != m.kind || cls[k].host != m.host))
				k++;
			if (k == ncls && ncls == 4)   /* more sides than kept: the last */
				k = 3;
			else if (k == ncls)
				cls[ncls++] = m;
			cls_bytes[k] += sizes[i];
		}
		int best = 0;
		for (int k = 1; k < ncls; k++)
			if (cls_bytes[k] > cls_bytes[best])
				best = k;
		uint32_t n = count > UINT32_MAX ? UINT32_MAX : (uint32_t)count;
		preload_copy(c->seq, d->type, bytes, n, cls[best].kind, cls[best].host, d->async, st, c->v,
			     c->t0, t1);
	}
	errno = c->e;
	return r;
}

static CUresult batch(int v, CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
		      CUmemcpyAttributes *attrs, size_t *attr_idx, size_t nattrs, size_t *fail_idx,
		      CUstream st)
{
	struct call c;
	batch_fn real = (batch_fn)copy_before(&c, HK_BATCH, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return batch_after(&c, real(dsts, srcs, sizes, count, attrs, attr_idx, nattrs, fail_idx, st),
			   dsts, srcs, sizes, count, st);
}

static CUresult batch_v2(int v, CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
			 CUmemcpyAttributes *attrs, size_t *attr_idx, size_t nattrs, CUstream st)
{
	struct call c;
	batch_v2_fn real = (batch_v2_fn)copy_before(&c, HK_BATCH_V2, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return batch_after(&c, real(dsts, srcs, sizes, count, attrs, attr_idx, nattrs, st), dsts, srcs,
			   sizes, count, st);
}

/* A pitched copy's side as its parameters name it: the host pointer for
 * host memory, else the device pointer. */
static struct typed_side typed_side_of(CUmemorytype type, const void *host, CUdeviceptr dev)
{
	struct typed_side s = { type, type == CU_MEMORYTYPE_HOST ? ADDR(host) : dev };
	return s;
}

/* After a pitched copy of bytes (width x height, x depth in 3D) between
 * src and dst, on stream st when async: its record, as copy_after(). */
static CUresult pitched_after(struct call *c, CUresult r, size_t bytes, CUstream st,
			      struct typed_side src, struct typed_side dst)
{
	return copy_after_typed(c, r, bytes, copies[c->idx].async ? st : NULL, dst.ptr, src.ptr,
				&src, &dst);
}

static CUresult copy2d(int idx, int v, const CUDA_MEMCPY2D *p, CUstream st)
{
	struct call c;
	void *real = copy_before(&c, idx, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	CUresult r = idx == HK_COPY2D_ASYNC ? ((copy2d_async_fn)real)(p, st) : ((copy2d_fn)real)(p);
	if (!p)
		return copy_after(&c, r, 0, st, 0, 0);
	return pitched_after(&c, r, p->WidthInBytes * p->Height, st,
			     typed_side_of(p->srcMemoryType, p->srcHost, p->srcDevice),
			     typed_side_of(p->dstMemoryType, p->dstHost, p->dstDevice));
}

static CUresult copy3d(int idx, int v, const CUDA_MEMCPY3D *p, CUstream st)
{
	struct call c;
	void *real = copy_before(&c, idx, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	CUresult r = idx == HK_COPY3D_ASYNC ? ((copy3d_async_fn)real)(p, st) : ((copy3d_fn)real)(p);
	if (!p)
		return copy_after(&c, r, 0, st, 0, 0);
	return pitched_after(&c, r, p->WidthInBytes * p->Height * p->Depth, st,
			     typed_side_of(p->srcMemoryType, p->srcHost, p->srcDevice),
			     typed_side_of(p->dstMemoryType, p->dstHost, p->dstDevice));
}

/* ---- synchronizations and markers -------------------------------------- */

static CUresult ctx_sync(void)
{
	struct call c;
	void_fn real = (void_fn)call_before(&c, HK_CTX_SYNC, 0);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return sync_after(&c, real(), TRACE_SYNC_CTX, NULL, NULL);
}

/* CUDA 13's cuCtxSynchronize (cuGetProcAddress version 13000 and later)
 * takes the context to wait for; the CUDA 13 runtime's
 * cudaDeviceSynchronize calls it (on an H200, PyTorch 2.11's
 * torch.cuda.synchronize left no sync record before this entry). */
static CUresult ctx_sync_v2(CUcontext ctx)
{
	struct call c;
	ctx_v2_fn real = (ctx_v2_fn)call_before(&c, HK_CTX_SYNC_V2, 0);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return sync_after(&c, real(ctx), TRACE_SYNC_CTX, NULL, NULL);
}

static CUresult stream_sync(int v, CUstream s)
{
	struct call c;
	stream_fn real = (stream_fn)call_before(&c, HK_STREAM_SYNC, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return sync_after(&c, real(s), TRACE_SYNC_STREAM, s, NULL);
}

static CUresult event_sync(CUevent ev)
{
	struct call c;
	event_fn real = (event_fn)call_before(&c, HK_EVENT_SYNC, 0);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return sync_after(&c, real(ev), TRACE_SYNC_EVENT, NULL, ev);
}

static CUresult wait_event(int v, CUstream s, CUevent ev, unsigned flags)
{
	struct call c;
	wait_event_fn real = (wait_event_fn)call_before(&c, HK_WAIT_EVENT, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return sync_after(&c, real(s, ev, flags), TRACE_SYNC_STREAM_WAIT_EVENT, s, ev);
}

/* An event recorded on a stream: what a later stream wait or event sync
 * on it waits for (the analyzer replays the dependency). */
static CUresult event_record(int v, CUevent ev, CUstream s)
{
	struct call c;
	record_fn real = (record_fn)call_before(&c, HK_RECORD, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return sync_after(&c, real(ev, s), TRACE_SYNC_EVENT_RECORD, s, ev);
}

static CUresult event_record_flags(int v, CUevent ev, CUstream s, unsigned flags)
{
	struct call c;
	record_flags_fn real = (record_flags_fn)call_before(&c, HK_RECORD_FLAGS, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return sync_after(&c, real(ev, s, flags), TRACE_SYNC_EVENT_RECORD, s, ev);
}

/* ---- device memory ------------------------------------------------------- */

/* Allocations and frees only update the held-bytes count (no record, no
 * timing; the count keeps errno): the trailer reports the peak.  Each
 * counts what the driver did (*p is read only when it succeeded), and
 * returns r. */
static CUresult allocated(CUresult r, const CUdeviceptr *p, size_t n)
{
	if (r == CUDA_SUCCESS && p)
		preload_mem_alloc((uint64_t)*p, n);
	return r;
}

static CUresult freed(CUresult r, uint64_t id)
{
	if (r == CUDA_SUCCESS)
		preload_mem_free(id);
	return r;
}

static CUresult mem_alloc(CUdeviceptr *p, size_t n)
{
	mem_alloc_fn real = REAL(mem_alloc_fn, HK_MEM_ALLOC, 0);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return allocated(real(p, n), p, n);
}

static CUresult mem_free(CUdeviceptr p)
{
	mem_free_fn real = REAL(mem_free_fn, HK_MEM_FREE, 0);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return freed(real(p), p);
}

static CUresult mem_alloc_async(int v, CUdeviceptr *p, size_t n, CUstream s)
{
	mem_alloc_async_fn real = REAL(mem_alloc_async_fn, HK_MEM_ALLOC_ASYNC, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return allocated(real(p, n, s), p, n);
}

/* From a memory pool (cudaMallocFromPoolAsync; PyTorch's cudaMallocAsync
 * backend with a pool of its own): counted as held device memory, as
 * cuMemAllocAsync's (a pool located in host memory, CUDA 12.6, too). */
static CUresult mem_alloc_pool(int v, CUdeviceptr *p, size_t n, CUmemoryPool pool, CUstream s)
{
	mem_alloc_pool_fn real = REAL(mem_alloc_pool_fn, HK_MEM_ALLOC_POOL, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return allocated(real(p, n, pool, s), p, n);
}

static CUresult mem_free_async(int v, CUdeviceptr p, CUstream s)
{
	mem_free_async_fn real = REAL(mem_free_async_fn, HK_MEM_FREE_ASYNC, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return freed(real(p, s), p);
}

/* Physical memory of the virtual memory API (PyTorch's expandable
 * segments map it into one range): counted by its handle, device memory
 * only.  Handles are tagged apart from device pointers in the count. */
#define MEM_HANDLE_TAG (1ull << 63)

static CUresult mem_create(CUmemGenericAllocationHandle *h, size_t n, const CUmemAllocationProp *prop,
			   unsigned long long flags)
{
	mem_create_fn real = REAL(mem_create_fn, HK_MEM_CREATE, 0);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	CUresult r = real(h, n, prop, flags);
	if (r == CUDA_SUCCESS && h && prop && prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE)
		preload_mem_alloc((uint64_t)*h | MEM_HANDLE_TAG, n);
	return r;
}

static CUresult mem_release(CUmemGenericAllocationHandle h)
{
	mem_release_fn real = REAL(mem_release_fn, HK_MEM_RELEASE, 0);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return freed(real(h), (uint64_t)h | MEM_HANDLE_TAG);
}

static CUresult profiler(int start)
{
	void_fn real = REAL(void_fn, start ? HK_PROF_START : HK_PROF_STOP, 0);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	int e = errno;
	preload_init();
	if (!start)
		preload_profiler(0);
	errno = e;
	CUresult r = real();
	e = errno;
	if (start)
		preload_profiler(1);
	errno = e;
	return r;
}

/* The CUDA runtime releases its primary context in its own exit handler,
 * which runs before ours: collect the GPU times while the context lives. */
static CUresult teardown(int idx, CUdevice dev, CUcontext ctx)
{
	void *real = REAL(void *, idx, 0);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	if (preload_recording()) {
		int e = errno;
		preload_before_teardown(idx == HK_CTX_DESTROY ? (void *)ctx : NULL, (int)dev);
		errno = e;
	}
	return idx == HK_CTX_DESTROY ? ((ctx_fn)real)(ctx) : ((device_fn)real)(dev);
}

/* A module or library unloaded: the driver may give its kernels' handles
 * to the next one's kernels, so the handle cache asks each handle again at
 * its next launch (funcinfo.c).  Nothing is recorded. */
static CUresult unload(int idx, void *h)
{
	void *real = REAL(void *, idx, 0);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	CUresult r = idx == HK_MODULE_UNLOAD ? ((module_unload_fn)real)((CUmodule)h)
					     : ((library_unload_fn)real)((CUlibrary)h);
	if (r == CUDA_SUCCESS)
		preload_funcinfo_unloaded();  /* an atomic add: errno untouched */
	return r;
}

/* ---- graphs -------------------------------------------------------------- */

/*
 * Which capture each graph and executable graph came from (graphs.c): a
 * replay's records name it.  These hooks record nothing of their own and
 * time nothing; graphs.c keeps errno and takes only its own lock.  A
 * capture is remembered only while recording (its launches are then in
 * the trace, flagged captured with the same id); an executable graph takes
 * what its graph has, and a destroyed handle is forgotten, at any time (a
 * handle the driver freed and made again must not keep its old capture).
 */

/* A capture begun on s: while one is open, launches on a capturing stream
 * are recorded outside the windows too (graphs.c); returns r. */
static CUresult begin_capture(int v, CUstream s, CUstreamCaptureMode mode)
{
	begin_capture_fn real = REAL(begin_capture_fn, HK_BEGIN_CAPTURE, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	CUresult r = real(s, mode);
	if (r == CUDA_SUCCESS)
		preload_capture_begun();
	return r;
}

/* The end of a capture on s (its id asked before the call, while the
 * capture runs): the graph it hands out holds it when its launches were
 * recorded; the capture is closed once s no longer captures (an
 * invalidated capture ends too, with an error; a call from the wrong
 * thread leaves it open).  Returns r. */
static CUresult end_capture(int v, CUstream s, CUgraph *g)
{
	end_capture_fn real = REAL(end_capture_fn, HK_END_CAPTURE, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	uint64_t capture_id = 0, after;
	int on = preload_recording_on(s, v);
	int was = preload_stream_capture(s, v, &capture_id);
	CUresult r = real(s, g);
	int e = errno;
	if (was && !preload_stream_capture(s, v, &after))
		preload_capture_ended();
	errno = e;
	if (r == CUDA_SUCCESS && g)
		preload_graphs_captured(*g, on ? capture_id : 0);
	return r;
}

/* A capture begun into an existing graph (CUDA 12.3): the graph holds the
 * stream's new capture (cuStreamEndCapture hands the same graph back). */
static CUresult capture_to_graph(int v, CUstream s, CUgraph g, const CUgraphNode *deps,
				 const CUgraphEdgeData *edges, size_t ndeps, CUstreamCaptureMode mode)
{
	capture_to_graph_fn real = REAL(capture_to_graph_fn, HK_CAPTURE_TO_GRAPH, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	CUresult r = real(s, g, deps, edges, ndeps, mode);
	uint64_t capture_id = 0;
	if (r == CUDA_SUCCESS) {
		preload_capture_begun();
		if (preload_recording_on(s, v))
			preload_stream_capture(s, v, &capture_id);
		preload_graphs_captured(g, capture_id);
	}
	return r;
}

/* After an instantiation or update that made *x run graph g: x takes g's
 * capture (none known: x's entry goes); returns r. */
static CUresult instantiated(CUresult r, CUgraphExec *x, CUgraph g)
{
	if (r == CUDA_SUCCESS && x)
		preload_graphs_instantiated(*x, g);
	return r;
}

static CUresult instantiate_flags(CUgraphExec *x, CUgraph g, unsigned long long flags)
{
	instantiate_flags_fn real = REAL(instantiate_flags_fn, HK_INSTANTIATE_FLAGS, 0);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return instantiated(real(x, g, flags), x, g);
}

static CUresult instantiate_params(int v, CUgraphExec *x, CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
	instantiate_params_fn real = REAL(instantiate_params_fn, HK_INSTANTIATE_PARAMS, v);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return instantiated(real(x, g, p), x, g);
}

/* CUDA 11's cuGraphInstantiate (the error node and log buffer), which
 * binaries built before 12.0 call. */
static CUresult instantiate_v2(CUgraphExec *x, CUgraph g, CUgraphNode *err_node, char *log, size_t n)
{
	instantiate_v2_fn real = REAL(instantiate_v2_fn, HK_INSTANTIATE_V2, 0);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return instantiated(real(x, g, err_node, log, n), x, g);
}

static CUresult exec_update(CUgraphExec x, CUgraph g, CUgraphExecUpdateResultInfo *info)
{
	exec_update_fn real = REAL(exec_update_fn, HK_EXEC_UPDATE, 0);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return instantiated(real(x, g, info), &x, g);
}

/* CUDA 10.2's (an error node and a result), which binaries built before
 * 12.0 call: kept unhooked, an executable graph updated through it would
 * keep naming the capture it was made from. */
static CUresult exec_update_v1(CUgraphExec x, CUgraph g, CUgraphNode *err_node, CUgraphExecUpdateResult *res)
{
	exec_update_v1_fn real = REAL(exec_update_v1_fn, HK_EXEC_UPDATE_V1, 0);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	return instantiated(real(x, g, err_node, res), &x, g);
}

/* Destroyed handles are forgotten before the call: once the driver has
 * freed one it may hand it to another thread's new graph at once, whose
 * entry a forget after the call would remove. */
static CUresult graph_destroy(CUgraph g)
{
	graph_destroy_fn real = REAL(graph_destroy_fn, HK_GRAPH_DESTROY, 0);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	preload_graphs_forget_graph(g);
	return real(g);
}

static CUresult exec_destroy(CUgraphExec x)
{
	exec_destroy_fn real = REAL(exec_destroy_fn, HK_EXEC_DESTROY, 0);
	if (!real)
		return CUDA_ERROR_NOT_FOUND;
	preload_graphs_forget_exec(x);
	return real(x);
}

/* ---- the exported names ----------------------------------------------- */

/* Prototypes of the names cuda.h does not declare in this configuration. */
#define LAUNCH_ARGS CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, \
	unsigned by, unsigned bz, unsigned smem, CUstream s, void **p
PRELOAD_EXPORT CUresult cuLaunchKernel_ptsz(LAUNCH_ARGS, void **x);
PRELOAD_EXPORT CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *c, CUfunction f, void **p,
					      void **x);
PRELOAD_EXPORT CUresult cuLaunchCooperativeKernel_ptsz(LAUNCH_ARGS);
PRELOAD_EXPORT CUresult cuGraphLaunch_ptsz(CUgraphExec g, CUstream s);
PRELOAD_EXPORT CUresult cuMemcpy_ptds(CUdeviceptr d, CUdeviceptr s, size_t n);
PRELOAD_EXPORT CUresult cuMemcpyAsync_ptsz(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st);
PRELOAD_EXPORT CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr d, const void *s, size_t n);
PRELOAD_EXPORT CUresult cuMemcpyDtoH_v2_ptds(void *d, CUdeviceptr s, size_t n);
PRELOAD_EXPORT CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr d, CUdeviceptr s, size_t n);
PRELOAD_EXPORT CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr d, const void *s, size_t n,
						  CUstream st);
PRELOAD_EXPORT CUresult cuMemcpyDtoHAsync_v2_ptsz(void *d, CUdeviceptr s, size_t n, CUstream st);
PRELOAD_EXPORT CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr d, CUdeviceptr s, size_t n,
						  CUstream st);
PRELOAD_EXPORT CUresult cuMemsetD8_v2_ptds(CUdeviceptr d, unsigned char c, size_t n);
PRELOAD_EXPORT CUresult cuMemsetD32_v2_ptds(CUdeviceptr d, unsigned int c, size_t n);
PRELOAD_EXPORT CUresult cuMemsetD8Async_ptsz(CUdeviceptr d, unsigned char c, size_t n,
					     CUstream st);
PRELOAD_EXPORT CUresult cuMemsetD32Async_ptsz(CUdeviceptr d, unsigned int c, size_t n,
					      CUstream st);
PRELOAD_EXPORT CUresult cuMemsetD16_v2_ptds(CUdeviceptr d, unsigned short c, size_t n);
PRELOAD_EXPORT CUresult cuMemsetD16Async_ptsz(CUdeviceptr d, unsigned short c, size_t n,
					      CUstream st);
PRELOAD_EXPORT CUresult cuMemcpyPeer_ptds(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc,
					  size_t n);
PRELOAD_EXPORT CUresult cuMemcpyPeerAsync_ptsz(CUdeviceptr d, CUcontext dc, CUdeviceptr s,
					       CUcontext sc, size_t n, CUstream st);
PRELOAD_EXPORT CUresult cuMemcpy2D_v2_ptds(const CUDA_MEMCPY2D *p);
PRELOAD_EXPORT CUresult cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D *p, CUstream st);
PRELOAD_EXPORT CUresult cuMemcpy2DUnaligned_v2_ptds(const CUDA_MEMCPY2D *p);
PRELOAD_EXPORT CUresult cuMemcpy3D_v2_ptds(const CUDA_MEMCPY3D *p);
PRELOAD_EXPORT CUresult cuMemcpy3DAsync_v2_ptsz(const CUDA_MEMCPY3D *p, CUstream st);
PRELOAD_EXPORT CUresult cuStreamSynchronize_ptsz(CUstream s);
PRELOAD_EXPORT CUresult cuStreamWaitEvent_ptsz(CUstream s, CUevent ev, unsigned int flags);
PRELOAD_EXPORT CUresult cuEventRecord_ptsz(CUevent ev, CUstream s);
PRELOAD_EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr *p, size_t n, CUstream s);
PRELOAD_EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr p, CUstream s);
PRELOAD_EXPORT CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *p, size_t n, CUmemoryPool pool,
						     CUstream s);
PRELOAD_EXPORT CUresult cuMemsetD2D8_v2_ptds(CUdeviceptr d, size_t pitch, unsigned char x, size_t w,
					     size_t h);
PRELOAD_EXPORT CUresult cuMemsetD2D16_v2_ptds(CUdeviceptr d, size_t pitch, unsigned short x, size_t w,
					      size_t h);
PRELOAD_EXPORT CUresult cuMemsetD2D32_v2_ptds(CUdeviceptr d, size_t pitch, unsigned int x, size_t w,
					      size_t h);
PRELOAD_EXPORT CUresult cuMemsetD2D8Async_ptsz(CUdeviceptr d, size_t pitch, unsigned char x, size_t w,
					       size_t h, CUstream st);
PRELOAD_EXPORT CUresult cuMemsetD2D16Async_ptsz(CUdeviceptr d, size_t pitch, unsigned short x,
						size_t w, size_t h, CUstream st);
PRELOAD_EXPORT CUresult cuMemsetD2D32Async_ptsz(CUdeviceptr d, size_t pitch, unsigned int x, size_t w,
						size_t h, CUstream st);
#define BATCH_ARGS CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count, \
	CUmemcpyAttributes *attrs, size_t *attr_idx, size_t nattrs
PRELOAD_EXPORT CUresult cuMemcpyBatchAsync(BATCH_ARGS, size_t *fail_idx, CUstream st);
PRELOAD_EXPORT CUresult cuMemcpyBatchAsync_ptsz(BATCH_ARGS, size_t *fail_idx, CUstream st);
PRELOAD_EXPORT CUresult cuMemcpyBatchAsync_v2(BATCH_ARGS, CUstream st);
PRELOAD_EXPORT CUresult cuMemcpyBatchAsync_v2_ptsz(BATCH_ARGS, CUstream st);
PRELOAD_EXPORT CUresult cuEventRecordWithFlags_ptsz(CUevent ev, CUstream s, unsigned int flags);
PRELOAD_EXPORT CUresult cuProfilerStart(void);
PRELOAD_EXPORT CUresult cuProfilerStop(void);
PRELOAD_EXPORT CUresult cuStreamEndCapture_ptsz(CUstream s, CUgraph *g);
PRELOAD_EXPORT CUresult cuStreamBeginCapture_v2_ptsz(CUstream s, CUstreamCaptureMode mode);
PRELOAD_EXPORT CUresult cuGraphExecUpdate(CUgraphExec x, CUgraph g, CUgraphNode *err_node,
					  CUgraphExecUpdateResult *res);
PRELOAD_EXPORT CUresult cuStreamBeginCaptureToGraph_ptsz(CUstream s, CUgraph g, const CUgraphNode *deps,
							 const CUgraphEdgeData *edges, size_t ndeps,
							 CUstreamCaptureMode mode);
PRELOAD_EXPORT CUresult cuGraphInstantiateWithParams_ptsz(CUgraphExec *x, CUgraph g,
							  CUDA_GRAPH_INSTANTIATE_PARAMS *p);
PRELOAD_EXPORT CUresult cuGraphInstantiate_v2(CUgraphExec *x, CUgraph g, CUgraphNode *err_node, char *log,
					      size_t n);

#define ARGS f, gx, gy, gz, bx, by, bz, smem, s, p
PRELOAD_EXPORT CUresult cuLaunchKernel(LAUNCH_ARGS, void **x) { return launch(0, ARGS, x); }
CUresult cuLaunchKernel_ptsz(LAUNCH_ARGS, void **x) { return launch(1, ARGS, x); }
PRELOAD_EXPORT CUresult cuLaunchKernelEx(const CUlaunchConfig *c, CUfunction f, void **p, void **x)
{
	return launch_ex(0, c, f, p, x);
}
CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *c, CUfunction f, void **p, void **x)
{
	return launch_ex(1, c, f, p, x);
}
PRELOAD_EXPORT CUresult cuLaunchCooperativeKernel(LAUNCH_ARGS) { return launch_coop(0, ARGS); }
CUresult cuLaunchCooperativeKernel_ptsz(LAUNCH_ARGS) { return launch_coop(1, ARGS); }
PRELOAD_EXPORT CUresult cuGraphLaunch(CUgraphExec g, CUstream s) { return graph_launch(0, g, s); }
CUresult cuGraphLaunch_ptsz(CUgraphExec g, CUstream s) { return graph_launch(1, g, s); }

PRELOAD_EXPORT CUresult cuMemcpy(CUdeviceptr d, CUdeviceptr s, size_t n)
{
	return copy_dd(HK_MEMCPY, 0, d, s, n);
}
CUresult cuMemcpy_ptds(CUdeviceptr d, CUdeviceptr s, size_t n)
{
	return copy_dd(HK_MEMCPY, 1, d, s, n);
}
PRELOAD_EXPORT CUresult cuMemcpyAsync(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st)
{
	return copy_dd_async(HK_MEMCPY_ASYNC, 0, d, s, n, st);
}
CUresult cuMemcpyAsync_ptsz(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st)
{
	return copy_dd_async(HK_MEMCPY_ASYNC, 1, d, s, n, st);
}
PRELOAD_EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n) { return htod(0, d, s, n); }
CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr d, const void *s, size_t n) { return htod(1, d, s, n); }
PRELOAD_EXPORT CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n) { return dtoh(0, d, s, n); }
CUresult cuMemcpyDtoH_v2_ptds(void *d, CUdeviceptr s, size_t n) { return dtoh(1, d, s, n); }
PRELOAD_EXPORT CUresult cuMemcpyDtoD_v2(CUdeviceptr d, CUdeviceptr s, size_t n)
{
	return copy_dd(HK_DTOD, 0, d, s, n);
}
CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr d, CUdeviceptr s, size_t n)
{
	return copy_dd(HK_DTOD, 1, d, s, n);
}
PRELOAD_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n, CUstream st)
{
	return htod_async(0, d, s, n, st);
}
CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr d, const void *s, size_t n, CUstream st)
{
	return htod_async(1, d, s, n, st);
}
PRELOAD_EXPORT CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, CUstream st)
{
	return dtoh_async(0, d, s, n, st);
}
CUresult cuMemcpyDtoHAsync_v2_ptsz(void *d, CUdeviceptr s, size_t n, CUstream st)
{
	return dtoh_async(1, d, s, n, st);
}
PRELOAD_EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st)
{
	return copy_dd_async(HK_DTOD_ASYNC, 0, d, s, n, st);
}
CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st)
{
	return copy_dd_async(HK_DTOD_ASYNC, 1, d, s, n, st);
}
PRELOAD_EXPORT CUresult cuMemsetD8_v2(CUdeviceptr d, unsigned char c, size_t n) { return memset8(0, d, c, n); }
CUresult cuMemsetD8_v2_ptds(CUdeviceptr d, unsigned char c, size_t n) { return memset8(1, d, c, n); }
PRELOAD_EXPORT CUresult cuMemsetD32_v2(CUdeviceptr d, unsigned int c, size_t n) { return memset32(0, d, c, n); }
CUresult cuMemsetD32_v2_ptds(CUdeviceptr d, unsigned int c, size_t n) { return memset32(1, d, c, n); }
PRELOAD_EXPORT CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char c, size_t n, CUstream st)
{
	return memset8_async(0, d, c, n, st);
}
CUresult cuMemsetD8Async_ptsz(CUdeviceptr d, unsigned char c, size_t n, CUstream st)
{
	return memset8_async(1, d, c, n, st);
}
PRELOAD_EXPORT CUresult cuMemsetD32Async(CUdeviceptr d, unsigned int c, size_t n, CUstream st)
{
	return memset32_async(0, d, c, n, st);
}
CUresult cuMemsetD32Async_ptsz(CUdeviceptr d, unsigned int c, size_t n, CUstream st)
{
	return memset32_async(1, d, c, n, st);
}
PRELOAD_EXPORT CUresult cuMemsetD16_v2(CUdeviceptr d, unsigned short c, size_t n)
{
	return memset16(0, d, c, n);
}
CUresult cuMemsetD16_v2_ptds(CUdeviceptr d, unsigned short c, size_t n) { return memset16(1, d, c, n); }
PRELOAD_EXPORT CUresult cuMemsetD16Async(CUdeviceptr d, unsigned short c, size_t n, CUstream st)
{
	return memset16_async(0, d, c, n, st);
}
CUresult cuMemsetD16Async_ptsz(CUdeviceptr d, unsigned short c, size_t n, CUstream st)
{
	return memset16_async(1, d, c, n, st);
}
PRELOAD_EXPORT CUresult cuMemcpyPeer(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n)
{
	return peer(0, d, dc, s, sc, n);
}
CUresult cuMemcpyPeer_ptds(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n)
{
	return peer(1, d, dc, s, sc, n);
}
PRELOAD_EXPORT CUresult cuMemcpyPeerAsync(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc,
					  size_t n, CUstream st)
{
	return peer_async(0, d, dc, s, sc, n, st);
}
CUresult cuMemcpyPeerAsync_ptsz(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n,
				CUstream st)
{
	return peer_async(1, d, dc, s, sc, n, st);
}
PRELOAD_EXPORT CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *p) { return copy2d(HK_COPY2D, 0, p, NULL); }
CUresult cuMemcpy2D_v2_ptds(const CUDA_MEMCPY2D *p) { return copy2d(HK_COPY2D, 1, p, NULL); }
PRELOAD_EXPORT CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *p, CUstream st)
{
	return copy2d(HK_COPY2D_ASYNC, 0, p, st);
}
CUresult cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D *p, CUstream st)
{
	return copy2d(HK_COPY2D_ASYNC, 1, p, st);
}
PRELOAD_EXPORT CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D *p)
{
	return copy2d(HK_COPY2D_UNALIGNED, 0, p, NULL);
}
CUresult cuMemcpy2DUnaligned_v2_ptds(const CUDA_MEMCPY2D *p)
{
	return copy2d(HK_COPY2D_UNALIGNED, 1, p, NULL);
}
PRELOAD_EXPORT CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *p) { return copy3d(HK_COPY3D, 0, p, NULL); }
CUresult cuMemcpy3D_v2_ptds(const CUDA_MEMCPY3D *p) { return copy3d(HK_COPY3D, 1, p, NULL); }
PRELOAD_EXPORT CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *p, CUstream st)
{
	return copy3d(HK_COPY3D_ASYNC, 0, p, st);
}
CUresult cuMemcpy3DAsync_v2_ptsz(const CUDA_MEMCPY3D *p, CUstream st)
{
	return copy3d(HK_COPY3D_ASYNC, 1, p, st);
}
#define SET2D(n, t, idx) \
	PRELOAD_EXPORT CUresult cuMemsetD2D##n##_v2(CUdeviceptr d, size_t pitch, t x, size_t w, size_t h) \
	{ return set2d(idx, 0, d, pitch, x, w, h, NULL); } \
	CUresult cuMemsetD2D##n##_v2_ptds(CUdeviceptr d, size_t pitch, t x, size_t w, size_t h) \
	{ return set2d(idx, 1, d, pitch, x, w, h, NULL); } \
	PRELOAD_EXPORT CUresult cuMemsetD2D##n##Async(CUdeviceptr d, size_t pitch, t x, size_t w, \
						    size_t h, CUstream st) \
	{ return set2d(idx##_ASYNC, 0, d, pitch, x, w, h, st); } \
	CUresult cuMemsetD2D##n##Async_ptsz(CUdeviceptr d, size_t pitch, t x, size_t w, size_t h, \
					  CUstream st) \
	{ return set2d(idx##_ASYNC, 1, d, pitch, x, w, h, st); }
SET2D(8, unsigned char, HK_SET2D8)
SET2D(16, unsigned short, HK_SET2D16)
SET2D(32, unsigned int, HK_SET2D32)
#define BATCH_CALL dsts, srcs, sizes, count, attrs, attr_idx, nattrs
CUresult cuMemcpyBatchAsync(BATCH_ARGS, size_t *fail_idx, CUstream st)
{
	return batch(0, BATCH_CALL, fail_idx, st);
}
CUresult cuMemcpyBatchAsync_ptsz(BATCH_ARGS, size_t *fail_idx, CUstream st)
{
	return batch(1, BATCH_CALL, fail_idx, st);
}
CUresult cuMemcpyBatchAsync_v2(BATCH_ARGS, CUstream st) { return batch_v2(0, BATCH_CALL, st); }
CUresult cuMemcpyBatchAsync_v2_ptsz(BATCH_ARGS, CUstream st) { return batch_v2(1, BATCH_CALL, st); }
PRELOAD_EXPORT CUresult cuCtxSynchronize(void) { return ctx_sync(); }
PRELOAD_EXPORT CUresult cuCtxSynchronize_v2(CUcontext ctx);
PRELOAD_EXPORT CUresult cuCtxSynchronize_v2(CUcontext ctx) { return ctx_sync_v2(ctx); }
PRELOAD_EXPORT CUresult cuStreamSynchronize(CUstream s) { return stream_sync(0, s); }
CUresult cuStreamSynchronize_ptsz(CUstream s) { return stream_sync(1, s); }
PRELOAD_EXPORT CUresult cuEventSynchronize(CUevent ev) { return event_sync(ev); }
PRELOAD_EXPORT CUresult cuStreamWaitEvent(CUstream s, CUevent ev, unsigned int flags)
{
	return wait_event(0, s, ev, flags);
}
CUresult cuStreamWaitEvent_ptsz(CUstream s, CUevent ev, unsigned int flags)
{
	return wait_event(1, s, ev, flags);
}
PRELOAD_EXPORT CUresult cuEventRecord(CUevent ev, CUstream s) { return event_record(0, ev, s); }
CUresult cuEventRecord_ptsz(CUevent ev, CUstream s) { return event_record(1, ev, s); }
PRELOAD_EXPORT CUresult cuEventRecordWithFlags(CUevent ev, CUstream s, unsigned int flags)
{
	return event_record_flags(0, ev, s, flags);
}
CUresult cuEventRecordWithFlags_ptsz(CUevent ev, CUstream s, unsigned int flags)
{
	return event_record_flags(1, ev, s, flags);
}
PRELOAD_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) { return mem_alloc(p, n); }
PRELOAD_EXPORT CUresult cuMemFree_v2(CUdeviceptr p) { return mem_free(p); }
PRELOAD_EXPORT CUresult cuMemAllocAsync(CUdeviceptr *p, size_t n, CUstream s)
{
	return mem_alloc_async(0, p, n, s);
}
CUresult cuMemAllocAsync_ptsz(CUdeviceptr *p, size_t n, CUstream s) { return mem_alloc_async(1, p, n, s); }
PRELOAD_EXPORT CUresult cuMemFreeAsync(CUdeviceptr p, CUstream s) { return mem_free_async(0, p, s); }
CUresult cuMemFreeAsync_ptsz(CUdeviceptr p, CUstream s) { return mem_free_async(1, p, s); }
PRELOAD_EXPORT CUresult cuMemAllocFromPoolAsync(CUdeviceptr *p, size_t n, CUmemoryPool pool, CUstream s)
{
	return mem_alloc_pool(0, p, n, pool, s);
}
CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *p, size_t n, CUmemoryPool pool, CUstream s)
{
	return mem_alloc_pool(1, p, n, pool, s);
}
PRELOAD_EXPORT CUresult cuMemCreate(CUmemGenericAllocationHandle *h, size_t n,
				   const CUmemAllocationProp *prop, unsigned long long flags)
{
	return mem_create(h, n, prop, flags);
}
PRELOAD_EXPORT CUresult cuMemRelease(CUmemGenericAllocationHandle h) { return mem_release(h); }
PRELOAD_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) { return teardown(HK_PRIMARY_RELEASE, d, NULL); }
PRELOAD_EXPORT CUresult cuDevicePrimaryCtxReset_v2(CUdevice d) { return teardown(HK_PRIMARY_RESET, d, NULL); }
PRELOAD_EXPORT CUresult cuCtxDestroy_v2(CUcontext c) { return teardown(HK_CTX_DESTROY, 0, c); }
PRELOAD_EXPORT CUresult cuModuleUnload(CUmodule m) { return unload(HK_MODULE_UNLOAD, m); }
PRELOAD_EXPORT CUresult cuLibraryUnload(CUlibrary l) { return unload(HK_LIBRARY_UNLOAD, l); }
PRELOAD_EXPORT CUresult cuProfilerStart(void) { return profiler(1); }
PRELOAD_EXPORT CUresult cuProfilerStop(void) { return profiler(0); }
PRELOAD_EXPORT CUresult cuStreamBeginCapture_v2(CUstream s, CUstreamCaptureMode mode)
{
	return begin_capture(0, s, mode);
}
CUresult cuStreamBeginCapture_v2_ptsz(CUstream s, CUstreamCaptureMode mode) { return begin_capture(1, s, mode); }
PRELOAD_EXPORT CUresult cuStreamEndCapture(CUstream s, CUgraph *g) { return end_capture(0, s, g); }
CUresult cuStreamEndCapture_ptsz(CUstream s, CUgraph *g) { return end_capture(1, s, g); }
PRELOAD_EXPORT CUresult cuStreamBeginCaptureToGraph(CUstream s, CUgraph g, const CUgraphNode *deps,
						    const CUgraphEdgeData *edges, size_t ndeps,
						    CUstreamCaptureMode mode)
{
	return capture_to_graph(0, s, g, deps, edges, ndeps, mode);
}
CUresult cuStreamBeginCaptureToGraph_ptsz(CUstream s, CUgraph g, const CUgraphNode *deps,
					  const CUgraphEdgeData *edges, size_t ndeps, CUstreamCaptureMode mode)
{
	return capture_to_graph(1, s, g, deps, edges, ndeps, mode);
}
PRELOAD_EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec *x, CUgraph g, unsigned long long flags)
{
	return instantiate_flags(x, g, flags);
}
PRELOAD_EXPORT CUresult cuGraphInstantiateWithParams(CUgraphExec *x, CUgraph g,
						     CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
	return instantiate_params(0, x, g, p);
}
CUresult cuGraphInstantiateWithParams_ptsz(CUgraphExec *x, CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
	return instantiate_params(1, x, g, p);
}
CUresult cuGraphInstantiate_v2(CUgraphExec *x, CUgraph g, CUgraphNode *err_node, char *log, size_t n)
{
	return instantiate_v2(x, g, err_node, log, n);
}
PRELOAD_EXPORT CUresult cuGraphExecUpdate(CUgraphExec x, CUgraph g, CUgraphNode *err_node,
					  CUgraphExecUpdateResult *res)
{
	return exec_update_v1(x, g, err_node, res);
}
PRELOAD_EXPORT CUresult cuGraphExecUpdate_v2(CUgraphExec x, CUgraph g, CUgraphExecUpdateResultInfo *info)
{
	return exec_update(x, g, info);
}
PRELOAD_EXPORT CUresult cuGraphDestroy(CUgraph g) { return graph_destroy(g); }
PRELOAD_EXPORT CUresult cuGraphExecDestroy(CUgraphExec x) { return exec_destroy(x); }

/* ---- the table, indexed by HK_* (resolve.c walks it to the empty end) ---- */

#define EV(base, s0, s1, ver, maxver, h0, h1) \
	{ base, { s0, s1 }, ver, { (void *)(h0), (void *)(h1) }, { NULL, NULL }, maxver }
#define E(base, s0, s1, ver, h0, h1) EV(base, s0, s1, ver, 0, h0, h1)
struct preload_hook preload_cuda_hooks[HK_COUNT + 1] = {
	[PRELOAD_HK_GETPROC] = E("cuGetProcAddress", "cuGetProcAddress", NULL, 0, preload_getproc4,
		NULL),
	[PRELOAD_HK_GETPROC_V2] = E("cuGetProcAddress_v2", "cuGetProcAddress_v2", NULL, 0,
		preload_getproc5, NULL),
	[HK_LAUNCH] = E("cuLaunchKernel", "cuLaunchKernel", "cuLaunchKernel_ptsz", 4000,
		cuLaunchKernel, cuLaunchKernel_ptsz),
	[HK_LAUNCH_EX] = E("cuLaunchKernelEx", "cuLaunchKernelEx", "cuLaunchKernelEx_ptsz", 11060,
		cuLaunchKernelEx, cuLaunchKernelEx_ptsz),
	[HK_LAUNCH_COOP] = E("cuLaunchCooperativeKernel", "cuLaunchCooperativeKernel",
		"cuLaunchCooperativeKernel_ptsz", 9000, cuLaunchCooperativeKernel,
		cuLaunchCooperativeKernel_ptsz),
	[HK_GRAPH] = E("cuGraphLaunch", "cuGraphLaunch", "cuGraphLaunch_ptsz", 10000, cuGraphLaunch,
		cuGraphLaunch_ptsz),
	[HK_MEMCPY] = E("cuMemcpy", "cuMemcpy", "cuMemcpy_ptds", 4000, cuMemcpy, cuMemcpy_ptds),
	[HK_MEMCPY_ASYNC] = E("cuMemcpyAsync", "cuMemcpyAsync", "cuMemcpyAsync_ptsz", 4000,
		cuMemcpyAsync, cuMemcpyAsync_ptsz),
	[HK_HTOD] = E("cuMemcpyHtoD", "cuMemcpyHtoD_v2", "cuMemcpyHtoD_v2_ptds", 3020,
		cuMemcpyHtoD_v2, cuMemcpyHtoD_v2_ptds),
	[HK_DTOH] = E("cuMemcpyDtoH", "cuMemcpyDtoH_v2", "cuMemcpyDtoH_v2_ptds", 3020,
		cuMemcpyDtoH_v2, cuMemcpyDtoH_v2_ptds),
	[HK_DTOD] = E("cuMemcpyDtoD", "cuMemcpyDtoD_v2", "cuMemcpyDtoD_v2_ptds", 3020,
		cuMemcpyDtoD_v2, cuMemcpyDtoD_v2_ptds),
	[HK_HTOD_ASYNC] = E("cuMemcpyHtoDAsync", "cuMemcpyHtoDAsync_v2",
		"cuMemcpyHtoDAsync_v2_ptsz", 3020, cuMemcpyHtoDAsync_v2, cuMemcpyHtoDAsync_v2_ptsz),
	[HK_DTOH_ASYNC] = E("cuMemcpyDtoHAsync", "cuMemcpyDtoHAsync_v2",
		"cuMemcpyDtoHAsync_v2_ptsz", 3020, cuMemcpyDtoHAsync_v2, cuMemcpyDtoHAsync_v2_ptsz),
	[HK_DTOD_ASYNC] = E("cuMemcpyDtoDAsync", "cuMemcpyDtoDAsync_v2",
		"cuMemcpyDtoDAsync_v2_ptsz", 3020, cuMemcpyDtoDAsync_v2, cuMemcpyDtoDAsync_v2_ptsz),
	[HK_MEMSET8] = E("cuMemsetD8", "cuMemsetD8_v2", "cuMemsetD8_v2_ptds", 3020, cuMemsetD8_v2,
		cuMemsetD8_v2_ptds),
	[HK_MEMSET32] = E("cuMemsetD32", "cuMemsetD32_v2", "cuMemsetD32_v2_ptds", 3020,
		cuMemsetD32_v2, cuMemsetD32_v2_ptds),
	[HK_MEMSET8_ASYNC] = E("cuMemsetD8Async", "cuMemsetD8Async", "cuMemsetD8Async_ptsz", 3020,
		cuMemsetD8Async, cuMemsetD8Async_ptsz),
	[HK_MEMSET32_ASYNC] = E("cuMemsetD32Async", "cuMemsetD32Async", "cuMemsetD32Async_ptsz",
		3020, cuMemsetD32Async, cuMemsetD32Async_ptsz),
	[HK_MEMSET16] = E("cuMemsetD16", "cuMemsetD16_v2", "cuMemsetD16_v2_ptds", 3020, cuMemsetD16_v2,
		cuMemsetD16_v2_ptds),
	[HK_MEMSET16_ASYNC] = E("cuMemsetD16Async", "cuMemsetD16Async", "cuMemsetD16Async_ptsz",
		3020, cuMemsetD16Async, cuMemsetD16Async_ptsz),
	[HK_PEER] = E("cuMemcpyPeer", "cuMemcpyPeer", "cuMemcpyPeer_ptds", 4000, cuMemcpyPeer,
		cuMemcpyPeer_ptds),
	[HK_PEER_ASYNC] = E("cuMemcpyPeerAsync", "cuMemcpyPeerAsync", "cuMemcpyPeerAsync_ptsz", 4000,
		cuMemcpyPeerAsync, cuMemcpyPeerAsync_ptsz),
	[HK_COPY2D] = E("cuMemcpy2D", "cuMemcpy2D_v2", "cuMemcpy2D_v2_ptds", 3020, cuMemcpy2D_v2,
		cuMemcpy2D_v2_ptds),
	[HK_COPY2D_ASYNC] = E("cuMemcpy2DAsync", "cuMemcpy2DAsync_v2", "cuMemcpy2DAsync_v2_ptsz", 3020,
		cuMemcpy2DAsync_v2, cuMemcpy2DAsync_v2_ptsz),
	[HK_COPY2D_UNALIGNED] = E("cuMemcpy2DUnaligned", "cuMemcpy2DUnaligned_v2",
		"cuMemcpy2DUnaligned_v2_ptds", 3020, cuMemcpy2DUnaligned_v2, cuMemcpy2DUnaligned_v2_ptds),
	[HK_COPY3D] = E("cuMemcpy3D", "cuMemcpy3D_v2", "cuMemcpy3D_v2_ptds", 3020, cuMemcpy3D_v2,
		cuMemcpy3D_v2_ptds),
	[HK_COPY3D_ASYNC] = E("cuMemcpy3DAsync", "cuMemcpy3DAsync_v2", "cuMemcpy3DAsync_v2_ptsz", 3020,
		cuMemcpy3DAsync_v2, cuMemcpy3DAsync_v2_ptsz),
	[HK_SET2D8] = E("cuMemsetD2D8", "cuMemsetD2D8_v2", "cuMemsetD2D8_v2_ptds", 3020,
		cuMemsetD2D8_v2, cuMemsetD2D8_v2_ptds),
	[HK_SET2D16] = E("cuMemsetD2D16", "cuMemsetD2D16_v2", "cuMemsetD2D16_v2_ptds", 3020,
		cuMemsetD2D16_v2, cuMemsetD2D16_v2_ptds),
	[HK_SET2D32] = E("cuMemsetD2D32", "cuMemsetD2D32_v2", "cuMemsetD2D32_v2_ptds", 3020,
		cuMemsetD2D32_v2, cuMemsetD2D32_v2_ptds),
	[HK_SET2D8_ASYNC] = E("cuMemsetD2D8Async", "cuMemsetD2D8Async", "cuMemsetD2D8Async_ptsz", 3020,
		cuMemsetD2D8Async, cuMemsetD2D8Async_ptsz),
	[HK_SET2D16_ASYNC] = E("cuMemsetD2D16Async", "cuMemsetD2D16Async", "cuMemsetD2D16Async_ptsz",
		3020, cuMemsetD2D16Async, cuMemsetD2D16Async_ptsz),
	[HK_SET2D32_ASYNC] = E("cuMemsetD2D32Async", "cuMemsetD2D32Async", "cuMemsetD2D32Async_ptsz",
		3020, cuMemsetD2D32Async, cuMemsetD2D32Async_ptsz),
	/* 12.8 took a failIdx, 13.0 dropped it (cuda.h's _v2) */
	[HK_BATCH] = EV("cuMemcpyBatchAsync", "cuMemcpyBatchAsync", "cuMemcpyBatchAsync_ptsz", 12080,
		13000, cuMemcpyBatchAsync, cuMemcpyBatchAsync_ptsz),
	[HK_BATCH_V2] = E("cuMemcpyBatchAsync", "cuMemcpyBatchAsync_v2", "cuMemcpyBatchAsync_v2_ptsz",
		13000, cuMemcpyBatchAsync_v2, cuMemcpyBatchAsync_v2_ptsz),
	[HK_CTX_SYNC] = EV("cuCtxSynchronize", "cuCtxSynchronize", NULL, 2000, 13000, cuCtxSynchronize,
		NULL),
	[HK_CTX_SYNC_V2] = E("cuCtxSynchronize", "cuCtxSynchronize_v2", NULL, 13000, cuCtxSynchronize_v2,
		NULL),
	[HK_STREAM_SYNC] = E("cuStreamSynchronize", "cuStreamSynchronize",
		"cuStreamSynchronize_ptsz", 2000, cuStreamSynchronize, cuStreamSynchronize_ptsz),
	[HK_EVENT_SYNC] = E("cuEventSynchronize", "cuEventSynchronize", NULL, 2000,
		cuEventSynchronize, NULL),
	[HK_WAIT_EVENT] = E("cuStreamWaitEvent", "cuStreamWaitEvent", "cuStreamWaitEvent_ptsz",
		2000, cuStreamWaitEvent, cuStreamWaitEvent_ptsz),
	[HK_RECORD] = E("cuEventRecord", "cuEventRecord", "cuEventRecord_ptsz", 2000, cuEventRecord,
		cuEventRecord_ptsz),
	[HK_RECORD_FLAGS] = E("cuEventRecordWithFlags", "cuEventRecordWithFlags",
		"cuEventRecordWithFlags_ptsz", 11010, cuEventRecordWithFlags,
		cuEventRecordWithFlags_ptsz),
	[HK_MEM_ALLOC] = E("cuMemAlloc", "cuMemAlloc_v2", NULL, 3020, cuMemAlloc_v2, NULL),
	[HK_MEM_FREE] = E("cuMemFree", "cuMemFree_v2", NULL, 3020, cuMemFree_v2, NULL),
	[HK_MEM_ALLOC_ASYNC] = E("cuMemAllocAsync", "cuMemAllocAsync", "cuMemAllocAsync_ptsz",
		11020, cuMemAllocAsync, cuMemAllocAsync_ptsz),
	[HK_MEM_FREE_ASYNC] = E("cuMemFreeAsync", "cuMemFreeAsync", "cuMemFreeAsync_ptsz", 11020,
		cuMemFreeAsync, cuMemFreeAsync_ptsz),
	[HK_MEM_ALLOC_POOL] = E("cuMemAllocFromPoolAsync", "cuMemAllocFromPoolAsync",
		"cuMemAllocFromPoolAsync_ptsz", 11020, cuMemAllocFromPoolAsync,
		cuMemAllocFromPoolAsync_ptsz),
	[HK_MEM_CREATE] = E("cuMemCreate", "cuMemCreate", NULL, 10020, cuMemCreate, NULL),
	[HK_MEM_RELEASE] = E("cuMemRelease", "cuMemRelease", NULL, 10020, cuMemRelease, NULL),
	[HK_PROF_START] = E("cuProfilerStart", "cuProfilerStart", NULL, 4000, cuProfilerStart,
		NULL),
	[HK_PROF_STOP] = E("cuProfilerStop", "cuProfilerStop", NULL, 4000, cuProfilerStop, NULL),
	[HK_PRIMARY_RELEASE] = E("cuDevicePrimaryCtxRelease", "cuDevicePrimaryCtxRelease_v2", NULL,
		11000, cuDevicePrimaryCtxRelease_v2, NULL),
	[HK_PRIMARY_RESET] = E("cuDevicePrimaryCtxReset", "cuDevicePrimaryCtxReset_v2", NULL, 11000,
		cuDevicePrimaryCtxReset_v2, NULL),
	[HK_CTX_DESTROY] = E("cuCtxDestroy", "cuCtxDestroy_v2", NULL, 4000, cuCtxDestroy_v2, NULL),
	[HK_MODULE_UNLOAD] = E("cuModuleUnload", "cuModuleUnload", NULL, 2000, cuModuleUnload, NULL),
	[HK_LIBRARY_UNLOAD] = E("cuLibraryUnload", "cuLibraryUnload", NULL, 12000, cuLibraryUnload, NULL),
	/* 10.1's, with a mode (cuda.h's cuStreamBeginCapture); 10.0's without
	 * one is not hooked */
	[HK_BEGIN_CAPTURE] = E("cuStreamBeginCapture", "cuStreamBeginCapture_v2", "cuStreamBeginCapture_v2_ptsz",
		10010, cuStreamBeginCapture_v2, cuStreamBeginCapture_v2_ptsz),
	[HK_END_CAPTURE] = E("cuStreamEndCapture", "cuStreamEndCapture", "cuStreamEndCapture_ptsz", 10000,
		cuStreamEndCapture, cuStreamEndCapture_ptsz),
	[HK_CAPTURE_TO_GRAPH] = E("cuStreamBeginCaptureToGraph", "cuStreamBeginCaptureToGraph",
		"cuStreamBeginCaptureToGraph_ptsz", 12030, cuStreamBeginCaptureToGraph,
		cuStreamBeginCaptureToGraph_ptsz),
	[HK_INSTANTIATE_FLAGS] = E("cuGraphInstantiateWithFlags", "cuGraphInstantiateWithFlags", NULL, 11040,
		cuGraphInstantiateWithFlags, NULL),
	[HK_INSTANTIATE_PARAMS] = E("cuGraphInstantiateWithParams", "cuGraphInstantiateWithParams",
		"cuGraphInstantiateWithParams_ptsz", 12000, cuGraphInstantiateWithParams,
		cuGraphInstantiateWithParams_ptsz),
	/* 11.0's; cuda.h's 12.0 gave the name cuGraphInstantiateWithFlags's
	 * signature, which later versions are left to (passed through) */
	[HK_INSTANTIATE_V2] = EV("cuGraphInstantiate", "cuGraphInstantiate_v2", NULL, 11000, 12000,
		cuGraphInstantiate_v2, NULL),
	/* 12.0's (a result info); 10.2's, an error node and a result, the
	 * versions before */
	[HK_EXEC_UPDATE] = E("cuGraphExecUpdate", "cuGraphExecUpdate_v2", NULL, 12000, cuGraphExecUpdate_v2,
		NULL),
	[HK_EXEC_UPDATE_V1] = EV("cuGraphExecUpdate", "cuGraphExecUpdate", NULL, 10020, 12000,
		cuGraphExecUpdate, NULL),
	[HK_GRAPH_DESTROY] = E("cuGraphDestroy", "cuGraphDestroy", NULL, 10000, cuGraphDestroy, NULL),
	[HK_EXEC_DESTROY] = E("cuGraphExecDestroy", "cuGraphExecDestroy", NULL, 10000, cuGraphExecDestroy,
		NULL),
	[HK_COUNT] = { NULL, { NULL, NULL }, 0, { NULL, NULL }, { NULL, NULL }, 0 },
};
