/*
 * import_kineto.c - reads a torch.profiler (Kineto) Chrome-trace JSON file,
 * plain or gzip-compressed, into an import_set.
 *
 * The text is streamed: zlib's gzread (which also reads uncompressed files
 * unchanged) feeds 256 KiB chunks to yajl, an event-driven JSON parser, so
 * no document tree is ever built; the callbacks below keep a stack of what
 * each open container is and collect one event's fields at a time.  Only
 * these survive the event that carries them:
 *   cat "kernel"                      -> kernel (name, grid, block,
 *                                        "registers per thread", "shared
 *                                        memory", stream, device, times)
 *   cat "gpu_memcpy" / "gpu_memset"   -> copy / set (bytes; direction and
 *                                        pageable or pinned host memory
 *                                        from the name)
 *   cat "cuda_runtime" / "cuda_driver": launch, copy, set and event
 *                                        record calls (CPU time, thread, by
 *                                        correlation id); device/stream/
 *                                        event synchronize and stream wait
 *                                        event calls -> sync records
 *   cat "cuda_sync"                   -> the stream a sync call waited on;
 *                                        for a wait that names its event's
 *                                        record (wait_on_stream,
 *                                        wait_on_cuda_event_record_corr_id)
 *                                        that event and its record
 *   cat "user_annotation" ProfilerStep#N -> iteration N (or --step)
 *   cat "cpu_op" aten::mm/addmm/bmm/baddbmm with "Input Dims" (traces
 *                                        taken with record_shapes=True)
 *                                     -> the GEMM shape of the kernels
 *                                        launched inside it
 *   cat "cpu_op" aten::convolution/_convolution/cudnn_convolution with
 *                                        "Input Dims" and "Concrete Inputs"
 *                                        (record_shapes=True, PyTorch 2.1
 *                                        and later: stride, padding,
 *                                        dilation, transposed, groups)
 *                                     -> a forward convolution record
 *                                        (struct trace_conv, as the
 *                                        recorder writes cuDNN's
 *                                        descriptors) for the kernels
 *                                        launched inside it; without
 *                                        "Concrete Inputs" the output size
 *                                        is unknown and none is written
 *   cat "cpu_op" aten::convolution_backward with the same
 *                                     -> the backward convolution records
 *                                        its output_mask asks for (the
 *                                        inputs' and the filters'
 *                                        gradients), its kernels split
 *                                        between them (common.c)
 *   cat "cpu_op" aten::_scaled_dot_product_flash_attention,
 *                _cudnn_attention and their _backward ops, with "Input
 *                Dims" and is_causal in "Concrete Inputs"
 *                                     -> an attention OP record (its
 *                                        shape, FLOPs, bytes) for the
 *                                        kernels launched inside it
 *   cat "cpu_op" aten::native_layer_norm, aten::_softmax and
 *                _log_softmax with "Input Dims" (and the softmax's dim
 *                in "Concrete Inputs")
 *                                     -> a norm or softmax OP record (its
 *                                        rows, columns, FLOPs, bytes) for
 *                                        the kernels launched inside it
 *   cat "cpu_op" record_param_comms with "Collective name", "In/Out msg
 *                                        nelems", "Group size", "dtype"
 *                                        (PyTorch 2.1 and later); cat
 *                                        "user_annotation" nccl:NAME with
 *                                        "Input Dims"/"Input type" (older)
 *                                     -> the collective of the NCCL
 *                                        kernels launched inside it
 *   deviceProperties[]                -> the header's device
 *   with keep_cpu, every "X" event of cat "cpu_op", "cuda_runtime",
 *   "cuda_driver" or "user_annotation" -> a CPU span (import_cpu_nest)
 *   distributedInfo.world_size        -> the group of a collective the
 *                                        trace does not size
 * Kineto writes times in microseconds with up to three decimals; they are
 * converted to nanoseconds from the number's text, exactly.
 */
#include "tools/import/import.h"
#include "predictor/attention.h"
#include "predictor/rowwise.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <yajl/yajl_parse.h>
#include <zlib.h>

/* What an open JSON container is. */
enum ctx {
	C_SKIP = 0,   /* not interesting: its contents are ignored */
	C_TOP,        /* the top-level object                       */
	C_EVENTS,     /* "traceEvents": [ ... ]                      */
	C_EVENT,      /* one event object                           */
	C_ARGS,       /* its "args" object                          */
	C_DIM,        /* args "grid" / "block": [x, y, z]            */
	C_DEVPROPS,   /* "deviceProperties": [ ... ]                 */
	C_DEVPROP,    /* one device object                          */
	C_IDIMS,      /* args "Input Dims": [[...], [...]]           */
	C_IDIM,       /* the dims of one input                      */
	C_ITYPES,     /* args "Input type": ["float", ...]          */
	C_ISTRIDES,   /* args "Input Strides": [[...], [...]]        */
	C_ISTRIDE,    /* the strides of one input                   */
	C_CONCRETE,   /* args "Concrete Inputs": ["", "[1, 1]", ...] */
	C_DISTINFO,   /* "distributedInfo": { ... }                  */
};

/* Keys the parser acts on, per container. */
enum key {
	K_OTHER = 0,
	/* top level */
	K_TRACE_EVENTS, K_DEVICE_PROPERTIES, K_BASE_TIME, K_DRIVER_VERSION,
	K_RUNTIME_VERSION,
	/* event */
	K_PH, K_CAT, K_NAME, K_TID, K_TS, K_DUR, K_ARGS,
	/* args */
	K_GRID, K_BLOCK, K_REGS, K_SMEM, K_STREAM, K_DEVICE, K_CORRELATION,
	K_BYTES, K_INPUT_DIMS, K_INPUT_TYPE, K_INPUT_STRIDES, K_CONCRETE, K_WAIT_STREAM, K_WAIT_RECORD,
	K_COLL_NAME, K_IN_NELEMS, K_OUT_NELEMS, K_GROUP_SIZE, K_COMM_DTYPE,
	/* distributedInfo */
	K_DIST_INFO, K_WORLD_SIZE,
	/* device properties */
	K_ID, K_DNAME, K_CC_MAJOR, K_CC_MINOR, K_NUM_SMS, K_TOTAL_MEM,
	K_MAX_THREADS_SM, K_REGS_SM, K_SMEM_SM, K_SMEM_OPTIN, K_MAX_BLOCKS_SM,
	K_L2,
};

struct keyname {
	enum ctx in;
	const char *name;
	enum key key;
};

static const struct keyname keys[] = {
	{ C_TOP, "traceEvents", K_TRACE_EVENTS },
	{ C_TOP, "deviceProperties", K_DEVICE_PROPERTIES },
	{ C_TOP, "baseTimeNanoseconds", K_BASE_TIME },
	{ C_TOP, "cuda_driver_version", K_DRIVER_VERSION },
	{ C_TOP, "cuda_runtime_version", K_RUNTIME_VERSION },
	{ C_TOP, "distributedInfo", K_DIST_INFO },
	{ C_DISTINFO, "world_size", K_WORLD_SIZE },
	{ C_EVENT, "ph", K_PH },
	{ C_EVENT, "cat", K_CAT },
	{ C_EVENT, "name", K_NAME },
	{ C_EVENT, "tid", K_TID },
	{ C_EVENT, "ts", K_TS },
	{ C_EVENT, "dur", K_DUR },
	{ C_EVENT, "args", K_ARGS },
	{ C_ARGS, "grid", K_GRID },
	{ C_ARGS, "block", K_BLOCK },
	{ C_ARGS, "registers per thread", K_REGS },
	{ C_ARGS, "shared memory", K_SMEM },
	{ C_ARGS, "stream", K_STREAM },
	{ C_ARGS, "device", K_DEVICE },
	{ C_ARGS, "correlation", K_CORRELATION },
	{ C_ARGS, "bytes", K_BYTES },
	{ C_ARGS, "Input Dims", K_INPUT_DIMS },
	{ C_ARGS, "Input type", K_INPUT_TYPE },
	{ C_ARGS, "Input Strides", K_INPUT_STRIDES },
	{ C_ARGS, "Concrete Inputs", K_CONCRETE },
	{ C_ARGS, "wait_on_stream", K_WAIT_STREAM },
	{ C_ARGS, "wait_on_cuda_event_record_corr_id", K_WAIT_RECORD },
	{ C_ARGS, "Collective name", K_COLL_NAME },
	{ C_ARGS, "In msg nelems", K_IN_NELEMS },
	{ C_ARGS, "Out msg nelems", K_OUT_NELEMS },
	{ C_ARGS, "Group size", K_GROUP_SIZE },
	{ C_ARGS, "dtype", K_COMM_DTYPE },
	{ C_DEVPROP, "id", K_ID },
	{ C_DEVPROP, "name", K_DNAME },
	{ C_DEVPROP, "computeMajor", K_CC_MAJOR },
	{ C_DEVPROP, "computeMinor", K_CC_MINOR },
	{ C_DEVPROP, "numSms", K_NUM_SMS },
	{ C_DEVPROP, "totalGlobalMem", K_TOTAL_MEM },
	{ C_DEVPROP, "maxThreadsPerMultiprocessor", K_MAX_THREADS_SM },
	{ C_DEVPROP, "regsPerMultiprocessor", K_REGS_SM },
	{ C_DEVPROP, "sharedMemPerMultiprocessor", K_SMEM_SM },
	{ C_DEVPROP, "sharedMemPerBlockOptin", K_SMEM_OPTIN },
	{ C_DEVPROP, "maxBlocksPerMultiProcessor", K_MAX_BLOCKS_SM },
	{ C_DEVPROP, "l2CacheSize", K_L2 },
};

/* Event categories kept. */
enum cat {
	CAT_OTHER = 0, CAT_KERNEL, CAT_MEMCPY, CAT_MEMSET, CAT_RUNTIME,
	CAT_SYNC, CAT_ANNOTATION, CAT_CPU_OP,
};

/* Inputs of a CPU op whose shapes are kept (a GEMM op's operands are among
 * its first three, a convolution's input and filter its first two, fused
 * attention's query, key and value its first three or, in its backward
 * op, the three after grad_out, the memory-efficient backward's attn_bias
 * the fifth, flash-attn's varlen backward's cu_seqlens the tenth and
 * eleventh), and dims per input (at most 4: a GEMM's batch, rows,
 * columns; a 2-D convolution's N, C, H, W; attention's batch, heads,
 * tokens, head dim, its bias's batch, heads, queries, keys). */
#define NIN 11
#define NDIM 4
/* Concrete inputs kept: seventeen, as many as the fused attention ops
 * take before their scale or window (sdpa_ops: the cuDNN backward op's
 * is_causal is its fifteenth; varlen_ops: the varlen backward's
 * window_size_left its seventeenth); aten::convolution_backward's eleven (grad_output, input,
 * weight, bias_sizes, stride, padding, dilation, transposed,
 * output_padding, groups, output_mask; aten::convolution's first nine are
 * input, weight, bias, then the same); of each at most three values (a
 * 2-D convolution's height and width, output_mask's three flags). */
#define NCONC 17
#define NCVAL 3

#define MAXDEPTH 64

/* The fields of the event being parsed. */
struct scratch {
	char ph;
	enum cat cat;
	char *name;
	size_t name_len, name_cap;
	int has_tid, has_ts, has_stream, has_device, has_corr, has_wait_stream;
	int64_t tid;
	uint64_t ts_ns, dur_ns;
	uint32_t grid[3], block[3];
	uint32_t regs, smem;
	uint64_t stream, corr, bytes;
	uint64_t wait_stream;       /* cuda_sync: where the awaited event was
				     * recorded                               */
	uint64_t wait_record;       /* and the correlation of that record, 0 */
	int64_t device;
	int nin;                    /* inputs seen in "Input Dims"             */
	int ndim[NIN];              /* dims of each, NDIM + 1 when more        */
	int64_t dims[NIN][NDIM];
	int ntype;                  /* entries seen in "Input type"            */
	enum trace_dtype type[NIN];
	int nsin;                   /* inputs seen in "Input Strides" (newer
				     * PyTorch; absent, nothing is known)     */
	int nstride[NIN];           /* strides of each, NDIM + 1 when more     */
	int64_t strides[NIN][NDIM];
	int nconc;                  /* entries seen in "Concrete Inputs"       */
	int ncval[NCONC];           /* integers read from each: 0 when it is
				     * empty ("", a tensor) or not integers    */
	int64_t cval[NCONC][NCVAL];
	enum trace_collective coll; /* record_param_comms "Collective name"    */
	uint64_t in_nelems, out_nelems;
	uint32_t group_size;
	enum trace_dtype comm_dtype;
};

struct parser {
	struct import_set *set;
	enum ctx stack[MAXDEPTH];
	enum key key[MAXDEPTH];   /* current key of each open object         */
	int depth;                /* open containers (may exceed MAXDEPTH)   */
	int dim;                  /* next index in a grid/block array         */
	int saw_events;
	struct scratch ev;
	struct import_device dev; /* the device object being parsed          */
	int dev_has_id;
	int failed;               /* an allocation failed                     */
	const char *bad;          /* a field had an impossible value          */
};

/* ---- numbers -------------------------------------------------------- */

/* Parses a JSON integer; 0 on success. */
static int parse_int(const char *s, size_t len, int64_t *out)
{
	size_t i = 0;
	int neg = 0;
	if (i < len && s[i] == '-') {
		neg = 1;
		i++;
	}
	if (i == len)
		return -1;
	uint64_t v = 0;
	for (; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > (uint64_t)INT64_MAX)
		return -1;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

/* Parses a non-negative integer or an integral-valued number; 0 on success. */
static int parse_uint(const char *s, size_t len, uint64_t *out)
{
	int64_t v;
	if (parse_int(s, len, &v) == 0) {
		if (v < 0)
			return -1;
		*out = (uint64_t)v;
		return 0;
	}
	char buf[64];
	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	char *end;
	double d = strtod(buf, &end);
	if (*end || !(d >= 0) || d > 1.8e19 || d != (double)(uint64_t)d)
		return -1;
	*out = (uint64_t)d;
	return 0;
}

/* Converts microseconds written as decimal text to nanoseconds, exactly
 * for up to three decimals (rounding half up beyond); values in exponent
 * form go through strtod.  0 on success. */
static int us_to_ns(const char *s, size_t len, uint64_t *out)
{
	uint64_t ip = 0, frac = 0;
	size_t i = 0;
	int digits = 0;
	if (len && s[0] == '-')
		return -1;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (ip > UINT64_MAX / 10000)
			return -1;
		ip = ip * 10 + (uint64_t)(s[i] - '0');
		digits++;
	}
	if (!digits)
		return -1;
	int round_up = 0;
	if (i < len && s[i] == '.') {
		int n = 0;
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++, n++) {
			if (n < 3)
				frac = frac * 10 + (uint64_t)(s[i] - '0');
			else if (n == 3)
				round_up = s[i] >= '5';
		}
		for (; n < 3; n++)
			frac *= 10;
	}
	if (i < len) {   /* exponent */
		char buf[64];
		if (len >= sizeof(buf))
			return -1;
		memcpy(buf, s, len);
		buf[len] = '\0';
		double d = strtod(buf, NULL) * 1000.0 + 0.5;
		if (!(d >= 0) || d > 1.8e19)
			return -1;
		*out = (uint64_t)d;
		return 0;
	}
	*out = ip * 1000 + frac + (uint64_t)round_up;
	return 0;
}

/* ---- classification ------------------------------------------------- */

static int starts(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);
	return len >= n && memcmp(s, prefix, n) == 0;
}

static int equals(const char *s, size_t len, const char *lit)
{
	return strlen(lit) == len && memcmp(s, lit, len) == 0;
}

static int contains(const char *s, size_t len, const char *needle)
{
	size_t n = strlen(needle);
	for (size_t i = 0; i + n <= len; i++)
		if (memcmp(s + i, needle, n) == 0)
			return 1;
	return 0;
}

static enum cat classify_cat(const unsigned char *s, size_t len)
{
	const char *c = (const char *)s;
	if (equals(c, len, "kernel"))
		return CAT_KERNEL;
	if (equals(c, len, "gpu_memcpy"))
		return CAT_MEMCPY;
	if (equals(c, len, "gpu_memset"))
		return CAT_MEMSET;
	if (equals(c, len, "cuda_runtime") || equals(c, len, "cuda_driver"))
		return CAT_RUNTIME;
	if (equals(c, len, "cuda_sync"))
		return CAT_SYNC;
	if (equals(c, len, "user_annotation"))
		return CAT_ANNOTATION;
	if (equals(c, len, "cpu_op"))
		return CAT_CPU_OP;
	return CAT_OTHER;
}

/* Copy direction from Kineto's activity name, e.g. "Memcpy HtoD (Pageable
 * -> Device)"; CUDA-array copies have no surfer kind. */
static enum trace_copy_kind copy_kind(const char *s, size_t len)
{
	static const struct { const char *tag; enum trace_copy_kind kind; } t[] = {
		{ " HtoD", TRACE_COPY_HTOD }, { " DtoH", TRACE_COPY_DTOH },
		{ " DtoD", TRACE_COPY_DTOD }, { " HtoH", TRACE_COPY_HTOH },
		{ " PtoP", TRACE_COPY_PTOP },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (contains(s, len, t[i].tag))
			return t[i].kind;
	return TRACE_COPY_UNKNOWN;
}

/* The host memory of a copy, from the same name: "(Device -> Pageable)",
 * "(Pinned -> Device)". */
static enum trace_host_mem host_mem(const char *s, size_t len)
{
	if (contains(s, len, "Pageable"))
		return TRACE_HOST_PAGEABLE;
	if (contains(s, len, "Pinned"))
		return TRACE_HOST_PINNED;
	return TRACE_HOST_UNKNOWN;
}

/* What an API call is to surfer. */
enum call_role { ROLE_NONE = 0, ROLE_LAUNCH, ROLE_COPY, ROLE_SYNC, ROLE_RECORD };

static enum call_role classify_call(const char *n, size_t len, uint32_t *flags,
				    enum trace_sync_kind *sync)
{
	*flags = 0;
	if (starts(n, len, "cudaLaunch") || starts(n, len, "cuLaunch") ||
	    starts(n, len, "cudaGraphLaunch") || starts(n, len, "cuGraphLaunch")) {
		if (contains(n, len, "Cooperative"))
			*flags |= TRACE_KF_COOPERATIVE;
		if (contains(n, len, "Graph"))
			*flags |= TRACE_KF_GRAPH;
		if (contains(n, len, "KernelEx"))
			*flags |= TRACE_KF_EX;
		if (contains(n, len, "_ptsz"))
			*flags |= TRACE_KF_PTSZ;
		return ROLE_LAUNCH;
	}
	if (starts(n, len, "cudaMemcpy") || starts(n, len, "cudaMemset") ||
	    starts(n, len, "cuMemcpy") || starts(n, len, "cuMemset"))
		return ROLE_COPY;
	if (starts(n, len, "cudaDeviceSynchronize") || starts(n, len, "cuCtxSynchronize")) {
		*sync = TRACE_SYNC_CTX;
		return ROLE_SYNC;
	}
	if (starts(n, len, "cudaStreamSynchronize") || starts(n, len, "cuStreamSynchronize")) {
		*sync = TRACE_SYNC_STREAM;
		return ROLE_SYNC;
	}
	if (starts(n, len, "cudaEventSynchronize") || starts(n, len, "cuEventSynchronize")) {
		*sync = TRACE_SYNC_EVENT;
		return ROLE_SYNC;
	}
	/* the CPU does not wait: kept only when its cuda_sync names the
	 * event's record (import_finish drops it otherwise) */
	if (starts(n, len, "cudaStreamWaitEvent") || starts(n, len, "cuStreamWaitEvent")) {
		*sync = TRACE_SYNC_STREAM_WAIT_EVENT;
		return ROLE_SYNC;
	}
	if (starts(n, len, "cudaEventRecord") || starts(n, len, "cuEventRecord"))
		return ROLE_RECORD;
	return ROLE_NONE;
}

/* ---- GEMM ops -------------------------------------------------------- */

/* The dtype of a profiler "Input type" string. */
static enum trace_dtype input_dtype(const char *s, size_t len)
{
	if (equals(s, len, "float"))
		return TRACE_DT_F32;
	if (equals(s, len, "double"))
		return TRACE_DT_F64;
	if (equals(s, len, "c10::Half"))
		return TRACE_DT_F16;
	if (equals(s, len, "c10::BFloat16"))
		return TRACE_DT_BF16;
	if (equals(s, len, "c10::Float8_e4m3fn") || equals(s, len, "c10::Float8_e4m3fnuz"))
		return TRACE_DT_F8E4M3;
	if (equals(s, len, "c10::Float8_e5m2") || equals(s, len, "c10::Float8_e5m2fnuz"))
		return TRACE_DT_F8E5M2;
	return TRACE_DT_UNKNOWN;
}

/* PyTorch's name of a collective (record_param_comms "Collective name":
 * allreduce, _allgather_base, allgather_into_tensor_coalesced,
 * reduce_scatter_tensor_coalesced, alltoall_base, send, ...; or the NAME
 * of an nccl:NAME annotation: all_reduce, all_gather, all_to_all, ...);
 * none for barrier and what is not a collective. */
static enum trace_collective collective_of(const char *s, size_t len)
{
	if (contains(s, len, "reduce_scatter") || contains(s, len, "reducescatter"))
		return TRACE_COLL_REDUCE_SCATTER;
	if (contains(s, len, "allreduce") || contains(s, len, "all_reduce"))
		return TRACE_COLL_ALL_REDUCE;
	if (contains(s, len, "allgather") || contains(s, len, "all_gather"))
		return TRACE_COLL_ALL_GATHER;
	if (contains(s, len, "alltoall") || contains(s, len, "all_to_all"))
		return TRACE_COLL_ALL_TO_ALL;
	if (contains(s, len, "broadcast"))
		return TRACE_COLL_BROADCAST;
	if (starts(s, len, "reduce"))
		return TRACE_COLL_REDUCE;
	if (starts(s, len, "send") || starts(s, len, "recv"))
		return TRACE_COLL_SEND_RECV;
	return TRACE_COLL_NONE;
}

/* record_param_comms "dtype": c10's ScalarType names. */
static enum trace_dtype comm_dtype(const char *s, size_t len)
{
	static const struct { const char *name; enum trace_dtype t; } names[] = {
		{ "Float", TRACE_DT_F32 }, { "Double", TRACE_DT_F64 }, { "Half", TRACE_DT_F16 },
		{ "BFloat16", TRACE_DT_BF16 }, { "Int", TRACE_DT_I32 }, { "Char", TRACE_DT_I8 },
		{ "Byte", TRACE_DT_I8 }, { "Float8_e4m3fn", TRACE_DT_F8E4M3 },
		{ "Float8_e5m2", TRACE_DT_F8E5M2 },
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (equals(s, len, names[i].name))
			return names[i].t;
	return TRACE_DT_UNKNOWN;
}

/* Bytes of an element of t as the collectives move them (int64 "Long" and
 * unknown types count 4). */
static double comm_elem_bytes(enum trace_dtype t)
{
	double b = trace_dtype_bytes(t);
	return b > 0 ? b : 4;
}

/* The product of the n dims d, 0 when one is not positive or the product
 * would pass 2^62 (no tensor's element count does). */
static uint64_t dims_product(const int64_t *d, int n)
{
	uint64_t p = 1;
	for (int i = 0; i < n; i++) {
		if (d[i] <= 0 || (uint64_t)d[i] > (UINT64_C(1) << 62) / p)
			return 0;
		p *= (uint64_t)d[i];
	}
	return p;
}

/* Fills g (collective set) from a CPU op or annotation that calls an NCCL
 * collective, with bytes as comm.h counts them: the reduced buffer, the
 * whole all-gather output or reduce-scatter input, the all-to-all send
 * buffer.  record_param_comms gives the element counts of this rank's
 * input and output; an nccl:NAME annotation its input's dims (all-gather:
 * this rank's shard, times the group).  0, or -1 when it is no collective. */
static int coll_shape(const struct scratch *e, struct import_gemm *g)
{
	const char *n = e->name ? e->name : "";
	size_t len = e->name_len;
	if (e->cat == CAT_CPU_OP && equals(n, len, "record_param_comms") && e->coll) {
		g->collective = (uint8_t)e->coll;
		g->dtype = (uint8_t)e->comm_dtype;
		g->ranks = e->group_size;
		double el = comm_elem_bytes(e->comm_dtype), in = (double)e->in_nelems * el;
		double out = (double)e->out_nelems * el;
		g->bytes = e->coll == TRACE_COLL_ALL_GATHER ? out : in > out ? in : out;
		return g->bytes > 0 ? 0 : -1;
	}
	if (e->cat != CAT_ANNOTATION || !starts(n, len, "nccl:") || e->nin < 1 || e->ndim[0] < 1 ||
	    e->ndim[0] > 3)
		return -1;
	g->collective = (uint8_t)collective_of(n + 5, len - 5);
	if (!g->collective)
		return -1;
	g->dtype = (uint8_t)(e->ntype > 0 ? e->type[0] : TRACE_DT_UNKNOWN);
	g->bytes = (double)dims_product(e->dims[0], e->ndim[0]) * comm_elem_bytes(g->dtype);
	g->per_rank = g->collective == TRACE_COLL_ALL_GATHER;
	return g->bytes > 0 ? 0 : -1;
}

/* Fills g's shape from a GEMM op's inputs: aten::mm (A, B), addmm (bias,
 * A, B), bmm (A, B batched), baddbmm (C, A, B batched), _scaled_mm (A, B,
 * their scales...: the FP8 GEMM torchao's float8 linears and
 * torch._scaled_mm call, cuBLASLt's), A being m x k and B k x n.  0, or -1
 * when the op is another one or the dims do not fit. */
static int gemm_shape(const struct scratch *e, struct import_gemm *g)
{
	const char *n = e->name ? e->name : "";
	size_t len = e->name_len;
	int a, batched;
	if (equals(n, len, "aten::mm") || equals(n, len, "aten::_scaled_mm"))
		a = 0, batched = 0;
	else if (equals(n, len, "aten::addmm"))
		a = 1, batched = 0;
	else if (equals(n, len, "aten::bmm"))
		a = 0, batched = 1;
	else if (equals(n, len, "aten::baddbmm"))
		a = 1, batched = 1;
	else
		return -1;
	int b = a + 1, want = batched ? 3 : 2;
	if (e->nin <= b || e->ndim[a] != want || e->ndim[b] != want)
		return -1;
	const int64_t *da = e->dims[a], *db = e->dims[b];
	int o = batched;            /* offset of the matrix dims */
	if (batched && da[0] != db[0])
		return -1;
	if (da[o + 1] != db[o])     /* A's columns are B's rows */
		return -1;
	for (int i = 0; i < want; i++)
		if (da[i] <= 0 || db[i] <= 0)
			return -1;
	g->batch = batched ? (uint64_t)da[0] : 1;
	g->m = (uint64_t)da[o];
	g->k = (uint64_t)da[o + 1];
	g->n = (uint64_t)db[o + 1];
	g->dtype = (uint8_t)(e->ntype > a ? e->type[a] : TRACE_DT_UNKNOWN);
	/* B is a transposed view when its strides say its rows are adjacent
	 * (the K^T of attention's Q K^T, the W^T of nn.Linear): unit stride
	 * along k, not along n.  Without strides it counts as contiguous. */
	const int64_t *sb = e->strides[b];
	g->b_transposed = e->nsin > b && e->nstride[b] == want && db[o] > 1 && db[o + 1] > 1 &&
			  sb[o] == 1 && sb[o + 1] != 1;
	return 0;
}

/* Where aten's convolution ops hold their arguments: aten::convolution
 * and aten::_convolution (input, weight, bias, stride, padding, dilation,
 * transposed, output_padding, groups, ...), aten::cudnn_convolution
 * (input, weight, padding, stride, dilation, groups, ...: no bias, never
 * transposed), aten::convolution_backward (grad_output, input, weight,
 * bias_sizes, stride, padding, dilation, transposed, output_padding,
 * groups, output_mask: the passes asked for).  input: the index of the
 * input's dims (the weight's follow; a backward op's grad_output's are
 * first); -1: the op has no such argument. */
struct conv_args {
	const char *name;
	int input, stride, pad, dilation, transposed, groups, mask;
};

static const struct conv_args conv_ops[] = {
	{ "aten::convolution", 0, 3, 4, 5, 6, 8, -1 },
	{ "aten::_convolution", 0, 3, 4, 5, 6, 8, -1 },
	{ "aten::cudnn_convolution", 0, 3, 2, 4, -1, 5, -1 },
	{ "aten::convolution_backward", 1, 4, 5, 6, 7, 9, 10 },
};

/* Concrete input i's two values (a 2-D convolution's height and width), a
 * single one standing for both as PyTorch expands it; 0, or -1 when the
 * trace holds none. */
static int conv_pair(const struct scratch *e, int i, int64_t v[2])
{
	if (i < 0 || i >= e->nconc || i >= NCONC || e->ncval[i] < 1)
		return -1;
	v[0] = e->cval[i][0];
	v[1] = e->ncval[i] > 1 ? e->cval[i][1] : e->cval[i][0];
	return 0;
}

/* Concrete input i as its one integer (a bool as 0 or 1); 0, or -1 when
 * the trace holds none there, or a list. */
static int conc_one(const struct scratch *e, int i, int64_t *v)
{
	if (i < 0 || i >= e->nconc || i >= NCONC || e->ncval[i] != 1)
		return -1;
	*v = e->cval[i][0];
	return 0;
}

/* Fills c with the 2-D convolution a convolution op describes: input (N,
 * C, H, W) and filter (K, C/groups, R, S) from "Input Dims", stride,
 * padding, dilation and groups from "Concrete Inputs", and the output (N,
 * K, P, Q) by cuDNN's formula
 *   P = (H + 2 pad_h - dilation_h (R - 1) - 1) / stride_h + 1
 * (Q likewise with W, S).  A forward op's record has dir
 * TRACE_CONV_FWD and *mask 0; aten::convolution_backward's grad_output
 * must be that output, *mask is its output_mask's first two flags (bit 0
 * the inputs' gradient, bit 1 the filters'; both when the trace does not
 * give it) and dir TRACE_CONV_BWD_DATA, or BWD_FILTER when only the
 * filters' is asked for.  Returns 0; 1 when the op is a convolution whose
 * stride, padding, dilation or groups the trace does not give (a trace
 * without "Concrete Inputs": P and Q are then unknown and nothing is
 * guessed); -1 when it is another op, a transposed or non-2-D convolution,
 * or the values do not fit together. */
static int conv_shape(const struct scratch *e, struct trace_conv *c, unsigned *mask)
{
	const char *n = e->name ? e->name : "";
	const struct conv_args *a = NULL;
	for (size_t i = 0; i < sizeof conv_ops / sizeof conv_ops[0]; i++)
		if (equals(n, e->name_len, conv_ops[i].name))
			a = &conv_ops[i];
	if (!a || e->nin < a->input + 2)
		return -1;
	for (int x = 0; x < a->input + 2; x++)
		for (int i = 0; i < 4; i++)
			if (e->ndim[x] != 4 || e->dims[x][i] <= 0)
				return -1;
	const int64_t *in = e->dims[a->input], *f = e->dims[a->input + 1];
	int64_t st[2], pad[2], dil[2], tr[2], grp[2];
	if (a->transposed >= 0 && conv_pair(e, a->transposed, tr) == 0 && tr[0] != 0)
		return -1;
	if (conv_pair(e, a->stride, st) || conv_pair(e, a->pad, pad) ||
	    conv_pair(e, a->dilation, dil) || conv_pair(e, a->groups, grp))
		return 1;
	int64_t g = grp[0];
	if (g < 1 || g > UINT32_MAX || in[1] != f[1] * g || f[0] % g)
		return -1;
	int64_t out[4] = { in[0], f[0], 0, 0 };
	for (int d = 0; d < 2; d++) {
		if (st[d] < 1 || pad[d] < 0 || dil[d] < 1)
			return -1;
		int64_t span = dil[d] * (f[2 + d] - 1) + 1;   /* the filter's reach */
		if (in[2 + d] + 2 * pad[d] < span)
			return -1;
		out[2 + d] = (in[2 + d] + 2 * pad[d] - span) / st[d] + 1;
	}
	enum trace_conv_dir dir = TRACE_CONV_FWD;
	*mask = 0;
	if (a->input > 0) {    /* the backward op: grad_output is the output */
		for (int i = 0; i < 4; i++)
			if (e->dims[0][i] != out[i])
				return -1;
		*mask = 3;
		if (a->mask < e->nconc && a->mask < NCONC && e->ncval[a->mask] >= 2)
			*mask = (e->cval[a->mask][0] ? 1u : 0u) | (e->cval[a->mask][1] ? 2u : 0u);
		dir = *mask == 2 ? TRACE_CONV_BWD_FILTER : TRACE_CONV_BWD_DATA;
	}
	enum trace_dtype t = e->ntype > a->input ? e->type[a->input] : TRACE_DT_UNKNOWN;
	*c = (struct trace_conv){
		.api = TRACE_CONV_API_IMPORTED, .dir = dir, .nbdims = 4,
		.in = { in[0], in[1], in[2], in[3] }, .filt = { f[0], f[1], f[2], f[3] },
		.out = { out[0], out[1], out[2], out[3] },
		.stride = { st[0], st[1] }, .pad = { pad[0], pad[1] },
		.dilation = { dil[0], dil[1] }, .groups = (uint32_t)g,
		.dtype = t, .compute_type = t == TRACE_DT_F64 ? TRACE_DT_F64 : TRACE_DT_F32 };
	return 0;
}

/* PyTorch's fused attention ops (scaled_dot_product_attention's backends,
 * native_functions.yaml): the implementation each runs, whether it is the
 * backward pass, the index of the query (key and value follow it), of
 * is_causal and of attn_bias in its arguments (-1: none read).
 * _scaled_dot_product_flash_attention is FlashAttention-2 on every
 * architecture (PyTorch bundles FA2 alone); _backward's arguments start
 * with grad_out.  The memory-efficient backend is what PyTorch runs for
 * an attn_mask, for FP32 and where FlashAttention has no kernel (before
 * 8.0); its attn_bias (Hugging Face's [B, 1, S_q, S_kv] mask where the
 * batch pads, T5's position bias) is read by the kernel, one element a
 * pair and head of the bias. */
struct sdpa_args {
	const char *name;
	enum trace_attn_impl impl;
	int backward, query, causal, bias;
	int bshd;                   /* 1: (batch, tokens, heads, head dim)   */
	int window;                 /* window_size_left's index, -1: none     */
};

/* flash-attn's own ops (the package's torch.library ops from 2.6 on, what
 * Hugging Face's attn_implementation="flash_attention_2" and llm-foundry
 * call): _flash_attn_forward(q, k, v, dropout_p, softmax_scale, causal,
 * window_size_left, window_size_right, softcap, alibi_slopes,
 * return_softmax) and _flash_attn_backward(dout, q, k, v, out,
 * softmax_lse, dq, dk, dv, dropout_p, softmax_scale, causal,
 * window_size_left, ...), tensors (batch, tokens, heads, head dim); a
 * window_size_left w >= 0 on a causal call is a sliding window of w + 1
 * keys.  Their varlen forms: varlen_ops below.
 * Written from memory of flash_attn_interface.py, not checked against a
 * recorded profile. */
static const struct sdpa_args sdpa_ops[] = {
	{ "aten::_scaled_dot_product_flash_attention", TRACE_ATTN_FA2, 0, 0, 4, -1, 0, -1 },
	{ "aten::_scaled_dot_product_flash_attention_backward", TRACE_ATTN_FA2, 1, 1, 11, -1, 0,
	  -1 },
	{ "aten::_scaled_dot_product_cudnn_attention", TRACE_ATTN_CUDNN, 0, 0, 6, 3, 0, -1 },
	{ "aten::_scaled_dot_product_cudnn_attention_backward", TRACE_ATTN_CUDNN, 1, 1, 14, -1, 0,
	  -1 },
	{ "aten::_scaled_dot_product_efficient_attention", TRACE_ATTN_EFFICIENT, 0, 0, 6, 3, 0, -1 },
	{ "aten::_scaled_dot_product_efficient_attention_backward", TRACE_ATTN_EFFICIENT, 1, 1, 11,
	  4, 0, -1 },
	{ "flash_attn::_flash_attn_forward", TRACE_ATTN_FA2, 0, 0, 5, -1, 1, 6 },
	{ "flash_attn::_flash_attn_backward", TRACE_ATTN_FA2, 1, 1, 11, -1, 1, 12 },
};

/* Whether the n dims d are each a positive count a u32 field holds (the
 * attention record's heads, head dims and sequences). */
static int dims_u32(const int64_t *d, int n)
{
	for (int i = 0; i < n; i++)
		if (d[i] <= 0 || d[i] > UINT32_MAX)
			return 0;
	return 1;
}

/* A flash-attn call's sliding window from its window_size_left, concrete
 * input i: w >= 0 on a causal call is a window of w + 1 keys (0, none,
 * when that covers the longest sequence's keys); -1 (none) or no value,
 * no window.  0, or -1 for a window on a call that is not causal (one on
 * both sides, which no record describes). */
static int conc_window(const struct scratch *e, int i, int causal, int64_t keys,
		       uint64_t *window)
{
	int64_t w;
	*window = 0;
	if (conc_one(e, i, &w) != 0 || w < 0)
		return 0;
	if (!causal)
		return -1;
	if (w + 1 < keys)
		*window = (uint64_t)w + 1;
	return 0;
}

/* g's attention from the call pa, its dtype the query's (input query):
 * FLOPs and bytes by attention_work(), as the model builder counts its
 * own. */
static void attn_record(const struct scratch *e, int query, int backward, struct pred_attn *pa,
			struct import_gemm *g)
{
	enum trace_dtype t = e->ntype > query ? e->type[query] : TRACE_DT_UNKNOWN;
	double esz = trace_dtype_bytes(t);
	attention_work(pa, esz > 0 ? esz : 2, backward, &g->flops, &g->bytes);
	g->dtype = (uint8_t)t;
	pa->backward = (uint8_t)backward;
	attention_to_trace(pa, &g->attn);
}

/* Fills g's attention (the call's shape, dtype, FLOPs and bytes, as the
 * model builder describes its own) from a fused
 * attention op: query (B, H, S_q, D), key (B, H_kv, S_kv, D) and value
 * (B, H_kv, S_kv, D_v) (flash-attn's ops: B, S, H, D) and the bias's
 * heads (B or 1, H or 1, S_q, S_kv) from "Input Dims", is_causal and a
 * window from "Concrete Inputs" (a causal mask as
 * PyTorch aligns it when S_q = S_kv; the queries taken as the last S_q
 * keys' otherwise; with a bias and no is_causal every pair is computed,
 * the mask being the bias's), FLOPs and bytes by attention_work().
 * Returns 0; -1 for another op; 1 for one of these whose dims do not fit
 * together or whose is_causal the trace does not give (no record). */
static int sdpa_shape(const struct scratch *e, struct import_gemm *g)
{
	const struct sdpa_args *a = NULL;
	for (size_t i = 0; i < sizeof sdpa_ops / sizeof sdpa_ops[0]; i++)
		if (equals(e->name ? e->name : "", e->name_len, sdpa_ops[i].name))
			a = &sdpa_ops[i];
	if (!a)
		return -1;
	if (e->nin < a->query + 3)
		return 1;
	/* query, key and value as (batch, heads, tokens, head dim) */
	int64_t q[4], k[4], v[4];
	int64_t *qkv[3] = { q, k, v };
	for (int i = 0; i < 3; i++) {
		const int64_t *d = e->dims[a->query + i];
		if (e->ndim[a->query + i] != 4)
			return 1;
		qkv[i][0] = d[0], qkv[i][3] = d[3];
		qkv[i][1] = d[a->bshd ? 2 : 1];
		qkv[i][2] = d[a->bshd ? 1 : 2];
	}
	if (!dims_u32(q, 4) || !dims_u32(k, 4) || !dims_u32(v, 4))
		return 1;
	int64_t c;
	if (k[0] != q[0] || v[0] != q[0] || k[1] != v[1] || q[1] % k[1] || k[3] != q[3] ||
	    v[2] != k[2] || q[2] > k[2] || (double)q[0] * (double)k[2] > 1e15 ||
	    conc_one(e, a->causal, &c) || (c & ~1))
		return 1;
	/* B sequences of S_q queries each attending the last S_q of its S_kv
	 * keys, as the model builder counts a batch (attention_add_seqs()) */
	int causal = (int)c;
	/* a sliding window: w + 1 keys of a causal query (w the
	 * window_size_left; -1 none); a window on both sides is not described */
	uint64_t window;
	if (conc_window(e, a->window, causal, k[2], &window))
		return 1;
	/* the bias: [B or 1, H or 1, S_q, S_kv] (a missing one has no dims) */
	uint32_t bias_heads = 0;
	if (a->bias >= 0 && a->bias < e->nin && e->ndim[a->bias] == 4) {
		const int64_t *b = e->dims[a->bias];
		if ((b[0] != 1 && b[0] != q[0]) || (b[1] != 1 && b[1] != q[1]) || b[2] != q[2] ||
		    b[3] != k[2])
			return 1;
		bias_heads = (uint32_t)b[1];
	}
	struct pred_attn pa = {
		.impl = (enum pred_attn_impl)a->impl, .form = PRED_ATTN_PREFILL,
		.causal = (uint8_t)causal, .seqs = (uint32_t)q[0], .heads = (uint32_t)q[1],
		.kv_heads = (uint32_t)k[1], .head_dim = (uint32_t)q[3], .head_dim_v = (uint32_t)v[3],
		.q_tokens = (uint64_t)(q[0] * q[2]), .kv_tokens = (uint64_t)(q[0] * k[2]),
		.max_kv = (uint64_t)k[2],
		.pairs = (double)q[0] * attention_pairs((double)q[2], (double)k[2], causal,
						       (double)window),
		.window = window, .bias_heads = bias_heads };
	attn_record(e, a->query, a->backward, &pa, g);
	return 0;
}

/* flash-attn's varlen ops (the package's torch.library ops from 2.6 on:
 * Hugging Face's flash_attention_2 over a padded or packed batch, packed
 * training): the batch's tokens packed as (tokens, heads, head dim), the
 * sequences' bounds in cu_seqlens_q and cu_seqlens_k (B + 1 offsets, on
 * the GPU: the profile gives their length, not their values) and the
 * longest sequence's lengths as max_seqlen_q and max_seqlen_k.
 * _flash_attn_varlen_forward(q, k, v, cu_seqlens_q, cu_seqlens_k,
 * max_seqlen_q, max_seqlen_k, dropout_p, softmax_scale, causal,
 * window_size_left, window_size_right, softcap, alibi_slopes,
 * return_softmax, block_table, ...) and _flash_attn_varlen_backward(dout,
 * q, k, v, out, softmax_lse, dq, dk, dv, cu_seqlens_q, cu_seqlens_k,
 * max_seqlen_q, max_seqlen_k, dropout_p, softmax_scale, causal,
 * window_size_left, ...): the index of the query, of cu_seqlens_q
 * (cu_seqlens_k follows it), of max_seqlen_q (max_seqlen_k follows), of
 * causal and of window_size_left.  Written from memory of
 * flash_attn_interface.py, not checked against a recorded profile. */
struct varlen_args {
	const char *name;
	int backward, query, cu_seqlens, max_seqlen, causal, window;
};

static const struct varlen_args varlen_ops[] = {
	{ "flash_attn::_flash_attn_varlen_forward", 0, 0, 3, 5, 9, 10 },
	{ "flash_attn::_flash_attn_varlen_backward", 1, 1, 9, 11, 15, 16 },
};

/* Fills g's attention from a varlen op.  B sequences, T_q and T_kv tokens
 * in all, the longest M_q and M_kv: the profile does not give the other
 * lengths, so the longest is taken as one sequence and the other B - 1
 * as equal, (T - M) / (B - 1) each: exact for a batch of equal lengths
 * (T = B M, packed training) and for one of two lengths, and it keeps
 * the batch's total and its longest (a sequence of every length between
 * would have fewer causal pairs).  *estimated is set when the lengths
 * are so guessed (T_q != B M_q or T_kv != B M_kv).  A paged KV cache
 * (block_table: a 4-D key) is not described.  0; -1 for another op; 1
 * for one whose dims or arguments do not fit together. */
static int varlen_shape(const struct scratch *e, struct import_gemm *g, int *estimated)
{
	const struct varlen_args *a = NULL;
	for (size_t i = 0; i < sizeof varlen_ops / sizeof varlen_ops[0]; i++)
		if (equals(e->name ? e->name : "", e->name_len, varlen_ops[i].name))
			a = &varlen_ops[i];
	if (!a)
		return -1;
	if (e->nin < a->cu_seqlens + 2)
		return 1;
	/* query, key and value as (tokens, heads, head dim) */
	for (int i = 0; i < 3; i++)
		if (e->ndim[a->query + i] != 3)
			return 1;
	const int64_t *q = e->dims[a->query], *k = e->dims[a->query + 1], *v = e->dims[a->query + 2];
	const int *nd = &e->ndim[a->cu_seqlens];
	const int64_t *cq = e->dims[a->cu_seqlens], *ck = e->dims[a->cu_seqlens + 1];
	int64_t mq, mk, c;
	if (nd[0] != 1 || nd[1] != 1 || cq[0] != ck[0] || cq[0] < 2 ||
	    conc_one(e, a->max_seqlen, &mq) || conc_one(e, a->max_seqlen + 1, &mk) ||
	    conc_one(e, a->causal, &c) || (c & ~1))
		return 1;
	if (!dims_u32(q, 3) || !dims_u32(k, 3) || !dims_u32(v, 3))
		return 1;
	int64_t B = cq[0] - 1;
	int causal = (int)c;
	/* every sequence at most the longest, the longest one of them */
	if (k[0] != v[0] || k[1] != v[1] || q[1] % k[1] || k[2] != q[2] || B > UINT32_MAX ||
	    mq < 1 || mk < 1 || mq > q[0] || mk > k[0] || (double)q[0] > (double)B * mq ||
	    (double)k[0] > (double)B * mk || (B == 1 && (mq != q[0] || mk != k[0])))
		return 1;
	double rq = B > 1 ? (double)(q[0] - mq) / (double)(B - 1) : 0;
	double rk = B > 1 ? (double)(k[0] - mk) / (double)(B - 1) : 0;
	/* a causal query is one of its sequence's last keys */
	if (causal && (mq > mk || rq > rk))
		return 1;
	uint64_t window;
	if (conc_window(e, a->window, causal, mk, &window))
		return 1;
	struct pred_attn pa = {
		.impl = PRED_ATTN_FA2, .form = PRED_ATTN_PREFILL, .causal = (uint8_t)causal,
		.seqs = (uint32_t)B, .heads = (uint32_t)q[1], .kv_heads = (uint32_t)k[1],
		.head_dim = (uint32_t)q[2], .head_dim_v = (uint32_t)v[2],
		.q_tokens = (uint64_t)q[0], .kv_tokens = (uint64_t)k[0], .max_kv = (uint64_t)mk,
		.pairs = attention_pairs((double)mq, (double)mk, causal, (double)window) +
			 (double)(B - 1) * attention_pairs(rq, rk, causal, (double)window),
		.window = window };
	/* in doubles: B x M may pass int64's range on a bad trace */
	*estimated = (double)q[0] != (double)B * mq || (double)k[0] != (double)B * mk;
	attn_record(e, a->query, a->backward, &pa, g);
	return 0;
}

/* A fused attention op's record: sdpa_shape(), else varlen_shape(). */
static int attn_shape(const struct scratch *e, struct import_gemm *g, int *estimated)
{
	int rc = sdpa_shape(e, g);
	return rc < 0 ? varlen_shape(e, g, estimated) : rc;
}

/* ---- row-wise operators ---------------------------------------------- */

/* Fills g with the row-wise op e is, from its "Input Dims": PyTorch's
 * forward layer norm, aten::native_layer_norm (input, normalized_shape,
 * weight, bias, eps), over the input's last dims as many as the weight's
 * (else the bias's, else normalized_shape's values in "Concrete Inputs":
 * a layer norm without affine parameters); aten::_softmax and
 * aten::_log_softmax (self, dim, half_to_float) over dim, from "Concrete
 * Inputs", taken only as the last dim (PyTorch runs a spatial kernel for
 * another).  g gets rows and columns in m and n, the input's dtype, and
 * the FLOPs and minimum traffic the model builder gives its own
 * (analyzer/model/ops.c: each element read once and written once, the
 * output in FP32 when half_to_float).  The backward ops are not read:
 * their kernels' traffic (the saved statistics, the gradient) is another
 * that neither the row-wise nor the vector-op model was fitted on, so
 * they keep scaling.  Returns 0; -1 for another op or dims that do not fit
 * together; 1 for one of these whose normalized dims or softmax dim the
 * trace does not give, or whose input has more dims than are kept. */
static int rows_shape(const struct scratch *e, struct import_gemm *g)
{
	const char *n = e->name ? e->name : "";
	size_t len = e->name_len;
	int norm = equals(n, len, "aten::native_layer_norm");
	int log_sm = equals(n, len, "aten::_log_softmax");
	if (!norm && !log_sm && !equals(n, len, "aten::_softmax"))
		return -1;
	if (e->nin < 1 || e->ndim[0] < 1)
		return 1;
	int nd = e->ndim[0];
	if (nd > NDIM)
		return 1;
	const int64_t *in = e->dims[0];
	int last;                   /* the first of the dims reduced over */
	if (norm) {
		const int64_t *w = NULL;
		int nw = 0;
		for (int i = 2; i <= 3 && !w; i++)
			if (e->nin > i && e->ndim[i] >= 1 && e->ndim[i] <= NDIM)
				w = e->dims[i], nw = e->ndim[i];
		if (!w && e->nconc > 1 && e->ncval[1] >= 1)
			w = e->cval[1], nw = e->ncval[1];
		if (!w)
			return 1;
		if (nw > nd)
			return -1;
		last = nd - nw;
		for (int i = 0; i < nw; i++)
			if (in[last + i] != w[i])
				return -1;
	} else {
		int64_t d;
		if (conc_one(e, 1, &d) != 0)
			return 1;
		if (d < 0)
			d += nd;
		if (d != nd - 1)
			return -1;
		last = nd - 1;
	}
	uint64_t rows = dims_product(in, last), cols = dims_product(in + last, nd - last);
	if (!rows || !cols)         /* no dims before the reduced ones: 1 row */
		return -1;
	enum trace_dtype t = e->ntype > 0 ? e->type[0] : TRACE_DT_UNKNOWN;
	double esz = trace_dtype_bytes(t), out_esz = esz;
	int64_t half_to_float;
	if (!norm && conc_one(e, 2, &half_to_float) == 0 && half_to_float)
		out_esz = 4;
	if (!(esz > 0))
		return -1;
	double elems = (double)rows * (double)cols;
	g->rows_op = norm ? TRACE_OPK_NORM : TRACE_OPK_SOFTMAX;
	g->m = rows;
	g->n = cols;
	g->batch = 1;
	g->dtype = (uint8_t)t;
	g->flops = (norm ? ROWWISE_NORM_FLOPS : ROWWISE_SOFTMAX_FLOPS) * elems;
	g->bytes = elems * (esz + out_esz);
	return 0;
}

/* Parses one "Concrete Inputs" entry: "" (a tensor or no value), an
 * integer ("1"), a bool ("True", "False": 1, 0), or a list of them ("[2,
 * 2]", "[True, True, False]").  Anything else counts as no value. */
static void add_concrete(struct scratch *e, const char *s, size_t len)
{
	int i = e->nconc++;
	if (i >= NCONC)
		return;
	e->ncval[i] = 0;
	if (equals(s, len, "True") || equals(s, len, "False")) {
		e->cval[i][0] = s[0] == 'T';
		e->ncval[i] = 1;
		return;
	}
	if (len >= 2 && s[0] == '[' && s[len - 1] == ']') {
		s++;
		len -= 2;
	}
	int nv = 0;
	for (size_t at = 0; at < len;) {
		size_t end = at;
		while (end < len && s[end] != ',')
			end++;
		size_t b = at, t = end;
		while (b < t && s[b] == ' ')
			b++;
		while (t > b && s[t - 1] == ' ')
			t--;
		int64_t v;
		if (equals(s + b, t - b, "True") || equals(s + b, t - b, "False"))
			v = s[b] == 'T';
		else if (parse_int(s + b, t - b, &v))
			return;
		if (nv == NCVAL)
			return;
		e->cval[i][nv++] = v;
		at = end + 1;
	}
	e->ncval[i] = nv;
}

/* Keeps g (a GEMM's shape or a collective) for the kernels launched inside
 * e's span on its thread; -1 when out of memory. */
static int add_lib_span(struct import_set *s, const struct scratch *e, const struct import_gemm *g)
{
	struct import_gemm *d = import_add_gemm(s);
	if (!d)
		return -1;
	*d = *g;
	d->cpu_ns = e->ts_ns;
	d->cpu_end_ns = e->ts_ns + e->dur_ns;
	d->thread = (uint32_t)e->tid;
	return 0;
}

/* ---- the CPU side ---------------------------------------------------- */

/* Keeps e as a CPU span (keep_cpu); -1 when out of memory. */
static int keep_cpu_span(struct import_set *s, const struct scratch *e)
{
	struct import_cpu_span *c = import_add_cpu_span(s);
	if (!c || !(c->name = import_intern(s, e->name ? e->name : "", e->name_len)))
		return -1;
	c->cat = e->cat == CAT_CPU_OP ? IMPORT_CPU_OP
		: e->cat == CAT_RUNTIME ? IMPORT_CPU_CALL : IMPORT_CPU_ANNOTATION;
	c->ts_ns = e->ts_ns;
	c->dur_ns = e->dur_ns;
	c->tid = e->tid;
	return 0;
}

static int cmp_cpu_span(const void *a, const void *b)
{
	const struct import_cpu_span *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	if (x->dur_ns != y->dur_ns)
		return x->dur_ns > y->dur_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void import_cpu_nest(struct import_set *set)
{
	struct import_cpu_span *v = set->cpu;
	qsort(v, set->ncpu, sizeof(*v), cmp_cpu_span);
	int64_t top = -1;           /* the thread's last top-level op */
	for (size_t i = 0; i < set->ncpu; i++) {
		if (i && v[i].tid != v[i - 1].tid)
			top = -1;
		uint64_t end = top >= 0 ? v[top].ts_ns + v[top].dur_ns : 0;
		if (v[i].cat == IMPORT_CPU_OP) {
			if (top < 0 || v[i].ts_ns >= end)
				top = (int64_t)i;
			v[i].outer = top;
		} else {
			v[i].outer = top >= 0 && v[i].ts_ns <= end ? top : -1;
		}
	}
}

/* ---- one event ------------------------------------------------------ */

static void finish_event(struct parser *p)
{
	struct scratch *e = &p->ev;
	if (e->ph != 'X' || e->cat == CAT_OTHER || !e->has_ts)
		return;
	struct import_set *s = p->set;
	uint32_t flags = 0;
	enum trace_sync_kind sk = TRACE_SYNC_OTHER;
	struct import_event *o;
	if (s->keep_cpu && (e->cat == CAT_CPU_OP || e->cat == CAT_RUNTIME ||
			    e->cat == CAT_ANNOTATION) && keep_cpu_span(s, e))
		goto nomem;
	switch (e->cat) {
	case CAT_KERNEL:
	case CAT_MEMCPY:
	case CAT_MEMSET:
		if (!(o = import_add_event(s)))
			goto nomem;
		o->kind = e->cat == CAT_KERNEL ? IMPORT_KERNEL
			: e->cat == CAT_MEMCPY ? IMPORT_MEMCPY : IMPORT_MEMSET;
		o->start_ns = e->ts_ns;
		o->end_ns = e->ts_ns + e->dur_ns;
		o->stream = e->stream;
		o->corr = e->has_corr ? e->corr : 0;
		o->has_device = (uint8_t)e->has_device;
		o->device = (int32_t)e->device;
		o->bytes = e->bytes;
		o->async = 1;
		if (e->cat == CAT_KERNEL) {
			if (!(o->name = import_intern(s, e->name ? e->name : "", e->name_len)))
				goto nomem;
			memcpy(o->grid, e->grid, sizeof(o->grid));
			memcpy(o->block, e->block, sizeof(o->block));
			o->regs = e->regs;
			/* Kineto reports static + dynamic shared memory as one
			 * figure.  Static shared memory cannot exceed 48 KB, so
			 * a larger total needs the dynamic opt-in: keep it as
			 * dynamic then (occupancy only uses the sum). */
			if (e->smem > 48 * 1024)
				o->dyn_smem = e->smem;
			else
				o->static_smem = e->smem;
		} else if (e->cat == CAT_MEMCPY) {
			o->sub = (uint8_t)copy_kind(e->name ? e->name : "", e->name_len);
			o->host_mem = (uint8_t)host_mem(e->name ? e->name : "", e->name_len);
		}
		return;
	case CAT_RUNTIME: {
		enum call_role r = classify_call(e->name ? e->name : "", e->name_len, &flags, &sk);
		if (r == ROLE_NONE)
			return;
		if (r == ROLE_SYNC) {
			if (!(o = import_add_event(s)))
				goto nomem;
			o->kind = IMPORT_SYNC;
			o->sub = (uint8_t)sk;
			o->cpu_ns = e->ts_ns;
			o->cpu_end_ns = e->ts_ns + e->dur_ns;
			o->thread = (uint32_t)e->tid;
			o->corr = e->has_corr ? e->corr : 0;
			return;
		}
		if (!e->has_corr)
			return;
		struct import_call *c = import_add_call(s);
		if (!c)
			goto nomem;
		c->corr = e->corr;
		c->cpu_ns = e->ts_ns;
		c->cpu_end_ns = e->ts_ns + e->dur_ns;
		c->thread = (uint32_t)e->tid;
		c->flags = flags;
		c->async = r == ROLE_LAUNCH || contains(e->name, e->name_len, "Async");
		return;
	}
	case CAT_SYNC:
		if (!e->has_corr)
			return;
		if (!(o = import_add_event(s)))
			goto nomem;
		o->kind = IMPORT_GPU_SYNC;
		o->corr = e->corr;
		o->stream = e->stream;
		o->has_device = (uint8_t)e->has_device;
		o->device = (int32_t)e->device;
		/* The record's correlation is the event's id: unique per
		 * cudaEventRecord call, nonzero, and the same in every wait
		 * that names that record.  Without the recording stream the
		 * record cannot be placed, but the wait still names it. */
		if (e->wait_record) {
			o->event = e->wait_record;
			if (e->has_wait_stream) {
				struct import_evrec *r = import_add_evrec(s);
				if (!r)
					goto nomem;
				r->corr = e->wait_record;
				r->stream = e->wait_stream;
				r->device = (int32_t)e->device;
				r->has_device = (uint8_t)e->has_device;
			}
		}
		return;
	case CAT_CPU_OP: {
		struct import_gemm g;
		memset(&g, 0, sizeof(g));
		unsigned mask = 0;
		int conv = e->has_tid ? conv_shape(e, &g.conv, &mask) : -1;
		if (conv == 0 && g.conv.dir != TRACE_CONV_FWD) {
			/* no gradient asked: no record (its kernels are none) */
			if (!mask)
				return;
			g.conv_bwd = (uint8_t)mask;
		}
		/* counted once per convolution, at its outermost op */
		if (conv == 1 && (equals(e->name, e->name_len, "aten::convolution") ||
				  equals(e->name, e->name_len, "aten::convolution_backward")))
			s->conv_unsized++;
		int attn = 0, rows = 0, estimated = 0;
		if (!e->has_tid || (conv != 0 && gemm_shape(e, &g) != 0 && coll_shape(e, &g) != 0 &&
				    (attn = attn_shape(e, &g, &estimated)) != 0 &&
				    (rows = rows_shape(e, &g)) != 0)) {
			if (attn == 1)
				s->attn_unsized++;
			if (rows == 1)
				s->rows_unsized++;
			return;
		}
		if (estimated)
			s->attn_estimated++;
		if (add_lib_span(s, e, &g))
			goto nomem;
		return;
	}
	case CAT_ANNOTATION: {
		int64_t n;
		struct import_gemm g;
		memset(&g, 0, sizeof(g));
		if (e->has_tid && coll_shape(e, &g) == 0) {
			if (add_lib_span(s, e, &g))
				goto nomem;
			return;
		}
		import_note_range(s, e->name ? e->name : "", e->name_len);
		if (!import_step_match(s->step, e->name ? e->name : "", e->name_len, &n))
			return;
		if (!(o = import_add_event(s)))
			goto nomem;
		o->kind = IMPORT_STEP;
		o->iteration = (int32_t)n;
		o->cpu_ns = e->ts_ns;
		o->cpu_end_ns = e->ts_ns + e->dur_ns;
		o->thread = (uint32_t)e->tid;
		if (!(o->name = import_intern(s, e->name, e->name_len)))
			goto nomem;
		return;
	}
	default:
		return;
	}
nomem:
	p->failed = 1;
}

static void reset_event(struct scratch *e)
{
	char *name = e->name;
	size_t cap = e->name_cap;
	memset(e, 0, sizeof(*e));
	e->name = name;
	e->name_cap = cap;
}

/* ---- yajl callbacks ------------------------------------------------- */

static enum ctx top(const struct parser *p)
{
	return p->depth >= 1 && p->depth <= MAXDEPTH ? p->stack[p->depth - 1] : C_SKIP;
}

static enum key cur_key(const struct parser *p)
{
	return p->depth >= 1 && p->depth <= MAXDEPTH ? p->key[p->depth - 1] : K_OTHER;
}

/* One more input's dims (or strides) begin: none of its values seen yet. */
static void open_input(int *nin, int *count)
{
	if (*nin < NIN)
		count[*nin] = 0;
	(*nin)++;
}

static int push(struct parser *p, int is_map)
{
	enum ctx parent = top(p);
	enum key k = cur_key(p);
	enum ctx c = C_SKIP;
	if (p->depth == 0)
		c = is_map ? C_TOP : C_SKIP;
	else if (parent == C_TOP && k == K_TRACE_EVENTS && !is_map)
		c = C_EVENTS;
	else if (parent == C_TOP && k == K_DEVICE_PROPERTIES && !is_map)
		c = C_DEVPROPS;
	else if (parent == C_TOP && k == K_DIST_INFO && is_map)
		c = C_DISTINFO;
	else if (parent == C_EVENTS && is_map)
		c = C_EVENT;
	else if (parent == C_EVENT && k == K_ARGS && is_map)
		c = C_ARGS;
	else if (parent == C_ARGS && (k == K_GRID || k == K_BLOCK) && !is_map)
		c = C_DIM;
	else if (parent == C_DEVPROPS && is_map)
		c = C_DEVPROP;
	else if (parent == C_ARGS && k == K_INPUT_DIMS && !is_map)
		c = C_IDIMS;
	else if (parent == C_IDIMS && !is_map)
		c = C_IDIM;
	else if (parent == C_ARGS && k == K_INPUT_TYPE && !is_map)
		c = C_ITYPES;
	else if (parent == C_ARGS && k == K_INPUT_STRIDES && !is_map)
		c = C_ISTRIDES;
	else if (parent == C_ISTRIDES && !is_map)
		c = C_ISTRIDE;
	else if (parent == C_ARGS && k == K_CONCRETE && !is_map)
		c = C_CONCRETE;
	if (parent == C_CONCRETE)   /* a container: an entry without a value */
		add_concrete(&p->ev, "", 0);
	if (c == C_IDIM)
		open_input(&p->ev.nin, p->ev.ndim);
	if (c == C_ISTRIDE)
		open_input(&p->ev.nsin, p->ev.nstride);
	if (c == C_EVENT)
		reset_event(&p->ev);
	if (c == C_EVENTS)
		p->saw_events = 1;
	if (c == C_DIM)
		p->dim = 0;
	if (c == C_DEVPROP) {
		memset(&p->dev, 0, sizeof(p->dev));
		p->dev_has_id = 0;
	}
	if (p->depth < MAXDEPTH) {
		p->stack[p->depth] = c;
		p->key[p->depth] = K_OTHER;
	}
	p->depth++;
	return 1;
}

static int pop(struct parser *p)
{
	enum ctx c = top(p);
	p->depth--;
	if (c == C_EVENT)
		finish_event(p);
	else if (c == C_DEVPROP && p->dev_has_id) {
		struct import_device *d = import_device_slot(p->set, p->dev.id);
		if (!d)
			p->failed = 1;
		else
			*d = p->dev;
	}
	return !p->failed;
}

static int cb_start_map(void *ctx) { return push(ctx, 1); }
static int cb_start_array(void *ctx) { return push(ctx, 0); }
static int cb_end(void *ctx) { return pop(ctx); }

static int cb_key(void *ctx, const unsigned char *k, size_t len)
{
	struct parser *p = ctx;
	enum ctx c = top(p);
	if (c == C_SKIP || p->depth > MAXDEPTH)
		return 1;
	enum key found = K_OTHER;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (keys[i].in == c && equals((const char *)k, len, keys[i].name)) {
			found = keys[i].key;
			break;
		}
	p->key[p->depth - 1] = found;
	return 1;
}

static int cb_string(void *ctx, const unsigned char *s, size_t len)
{
	struct parser *p = ctx;
	enum ctx c = top(p);
	enum key k = cur_key(p);
	if (c == C_EVENT) {
		if (k == K_PH)
			p->ev.ph = len == 1 ? (char)s[0] : '?';
		else if (k == K_CAT)
			p->ev.cat = classify_cat(s, len);
		else if (k == K_NAME) {
			if (len + 1 > p->ev.name_cap) {
				size_t cap = len + 1 > 256 ? len + 1 : 256;
				char *n = realloc(p->ev.name, cap);
				if (!n) {
					p->failed = 1;
					return 0;
				}
				p->ev.name = n;
				p->ev.name_cap = cap;
			}
			memcpy(p->ev.name, s, len);
			p->ev.name[len] = '\0';
			p->ev.name_len = len;
		}
	} else if (c == C_ARGS && k == K_COLL_NAME) {
		p->ev.coll = collective_of((const char *)s, len);
	} else if (c == C_ARGS && k == K_COMM_DTYPE) {
		p->ev.comm_dtype = comm_dtype((const char *)s, len);
	} else if (c == C_CONCRETE) {
		add_concrete(&p->ev, (const char *)s, len);
	} else if (c == C_ITYPES) {
		if (p->ev.ntype < NIN)
			p->ev.type[p->ev.ntype] = input_dtype((const char *)s, len);
		p->ev.ntype++;
	} else if (c == C_DEVPROP && k == K_DNAME) {
		size_t n = len < sizeof(p->dev.dev.name) - 1 ? len : sizeof(p->dev.dev.name) - 1;
		memcpy(p->dev.dev.name, s, n);
		p->dev.dev.name[n] = '\0';
	}
	return 1;
}

/* Stores v in *dst when it fits 32 bits, else flags the field as bad. */
static void set_u32(struct parser *p, uint32_t *dst, uint64_t v, const char *what)
{
	if (v > UINT32_MAX)
		p->bad = what;
	else
		*dst = (uint32_t)v;
}

/* Appends s to the last of nin inputs' dims (or strides): count[in]
 * becomes NDIM + 1 when there are too many to use. */
static void add_dim(int nin, int *count, int64_t (*vals)[NDIM], const char *s, size_t len)
{
	int in = nin - 1;
	int64_t i;
	if (in < 0 || in >= NIN)
		return;
	if (count[in] < NDIM && parse_int(s, len, &i) == 0)
		vals[in][count[in]] = i;
	if (count[in] <= NDIM)
		count[in]++;
}

static int number_value(void *ctx, const char *s, size_t len)
{
	struct parser *p = ctx;
	enum ctx c = top(p);
	enum key k = cur_key(p);
	struct scratch *e = &p->ev;
	uint64_t u = 0;
	int64_t i = 0;
	switch (c) {
	case C_TOP:
		if (parse_uint(s, len, &u))
			return 1;
		if (k == K_BASE_TIME)
			p->set->base_unix_ns = u;
		else if (k == K_DRIVER_VERSION)
			set_u32(p, &p->set->driver_version, u, "cuda_driver_version");
		else if (k == K_RUNTIME_VERSION)
			set_u32(p, &p->set->runtime_version, u, "cuda_runtime_version");
		return 1;
	case C_EVENT:
		if (k == K_TS) {
			if (us_to_ns(s, len, &e->ts_ns))
				p->bad = "ts";
			e->has_ts = 1;
		} else if (k == K_DUR) {
			if (us_to_ns(s, len, &e->dur_ns))
				e->dur_ns = 0;   /* Kineto writes dur -1 for open spans */
		} else if (k == K_TID && parse_int(s, len, &i) == 0) {
			e->tid = i;
			e->has_tid = 1;
		}
		return 1;
	case C_ARGS:
		if (k == K_OTHER || parse_uint(s, len, &u))
			return 1;
		switch (k) {
		case K_REGS: set_u32(p, &e->regs, u, "registers per thread"); break;
		case K_SMEM: set_u32(p, &e->smem, u, "shared memory"); break;
		case K_STREAM: e->stream = u; e->has_stream = 1; break;
		case K_DEVICE:
			if (u > INT32_MAX)
				p->bad = "device";
			e->device = (int64_t)u;
			e->has_device = 1;
			break;
		case K_CORRELATION: e->corr = u; e->has_corr = 1; break;
		case K_BYTES: e->bytes = u; break;
		case K_WAIT_STREAM: e->wait_stream = u; e->has_wait_stream = 1; break;
		case K_WAIT_RECORD: e->wait_record = u; break;
		case K_IN_NELEMS: e->in_nelems = u; break;
		case K_OUT_NELEMS: e->out_nelems = u; break;
		case K_GROUP_SIZE: set_u32(p, &e->group_size, u, "Group size"); break;
		default: break;
		}
		return 1;
	case C_DISTINFO:
		if (k == K_WORLD_SIZE && parse_uint(s, len, &u) == 0)
			set_u32(p, &p->set->world_size, u, "world_size");
		return 1;
	case C_DIM: {
		enum key dk = p->depth >= 2 && p->depth - 1 <= MAXDEPTH ? p->key[p->depth - 2] : K_OTHER;
		uint32_t *dst = dk == K_GRID ? e->grid : e->block;
		if (p->dim < 3 && parse_uint(s, len, &u) == 0)
			set_u32(p, &dst[p->dim], u, dk == K_GRID ? "grid" : "block");
		p->dim++;
		return 1;
	}
	case C_IDIM:
		add_dim(e->nin, e->ndim, e->dims, s, len);
		return 1;
	case C_ISTRIDE:
		add_dim(e->nsin, e->nstride, e->strides, s, len);
		return 1;
	case C_CONCRETE:
		add_concrete(e, s, len);
		return 1;
	case C_ITYPES:
		if (e->ntype < NIN)
			e->type[e->ntype] = TRACE_DT_UNKNOWN;
		e->ntype++;
		return 1;
	case C_DEVPROP: {
		if (parse_uint(s, len, &u))
			return 1;
		struct trace_device *d = &p->dev.dev;
		switch (k) {
		case K_ID:
			if (u > INT32_MAX)
				p->bad = "deviceProperties id";
			p->dev.id = (int32_t)u;
			p->dev_has_id = 1;
			break;
		case K_CC_MAJOR: set_u32(p, &d->cc_major, u, "computeMajor"); break;
		case K_CC_MINOR: set_u32(p, &d->cc_minor, u, "computeMinor"); break;
		case K_NUM_SMS: set_u32(p, &d->sm_count, u, "numSms"); break;
		case K_TOTAL_MEM: d->mem_bytes = u; break;
		case K_MAX_THREADS_SM: set_u32(p, &d->max_threads_per_sm, u, "maxThreadsPerMultiprocessor"); break;
		case K_REGS_SM: set_u32(p, &d->regs_per_sm, u, "regsPerMultiprocessor"); break;
		case K_SMEM_SM: set_u32(p, &d->smem_per_sm, u, "sharedMemPerMultiprocessor"); break;
		case K_SMEM_OPTIN: set_u32(p, &d->smem_per_block_optin, u, "sharedMemPerBlockOptin"); break;
		case K_MAX_BLOCKS_SM: set_u32(p, &d->max_blocks_per_sm, u, "maxBlocksPerMultiProcessor"); break;
		case K_L2: set_u32(p, &d->l2_bytes, u, "l2CacheSize"); break;
		default: break;
		}
		return 1;
	}
	default:
		return 1;
	}
}

/* A null or a bool among the concrete inputs still takes its place. */
static int cb_null(void *ctx)
{
	struct parser *p = ctx;
	if (top(p) == C_CONCRETE)
		add_concrete(&p->ev, "", 0);
	return 1;
}

static int cb_bool(void *ctx, int v)
{
	struct parser *p = ctx;
	if (top(p) == C_CONCRETE)
		add_concrete(&p->ev, v ? "True" : "False", v ? 4 : 5);
	return 1;
}

/* A bad value stops the parse where it is, so the error can say where. */
static int cb_number(void *ctx, const char *s, size_t len)
{
	struct parser *p = ctx;
	return number_value(ctx, s, len) && !p->bad;
}

static const yajl_callbacks callbacks = {
	.yajl_null = cb_null,
	.yajl_boolean = cb_bool,
	.yajl_number = cb_number,
	.yajl_string = cb_string,
	.yajl_start_map = cb_start_map,
	.yajl_map_key = cb_key,
	.yajl_end_map = cb_end,
	.yajl_start_array = cb_start_array,
	.yajl_end_array = cb_end,
};

/* ---- driver --------------------------------------------------------- */

/* yajl's message, on one line. */
static void json_error(yajl_handle h, const unsigned char *buf, size_t len,
		       uint64_t offset, char *err, size_t errlen)
{
	unsigned char *msg = yajl_get_error(h, 0, buf, len);
	char *m = (char *)msg;
	for (char *q = m; q && *q; q++)
		if (*q == '\n' || *q == '\r')
			*q = ' ';
	size_t n = m ? strlen(m) : 0;
	while (n && m[n - 1] == ' ')
		m[--n] = '\0';
	snprintf(err, errlen, "invalid JSON near byte %llu: %s",
		 (unsigned long long)offset, m ? m : "parse error");
	yajl_free_error(h, msg);
}

int import_kineto_read(struct import_set *set, const char *path,
		       import_progress_fn progress, void *pctx,
		       char *err, size_t errlen)
{
	struct stat sb;
	uint64_t total = stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
	gzFile gz = gzopen(path, "rb");
	if (!gz) {
		snprintf(err, errlen, "cannot open '%s': %s", path,
			 errno ? strerror(errno) : "out of memory");
		return errno ? SURFER_EIO : SURFER_ENOMEM;
	}
	gzbuffer(gz, 1 << 18);
	snprintf(set->source, sizeof(set->source), "kineto");
	snprintf(set->input, sizeof(set->input), "%s", path);

	struct parser *p = calloc(1, sizeof(*p));
	enum { CHUNK = 1 << 18 };
	unsigned char *buf = malloc(CHUNK);
	yajl_handle h = p ? yajl_alloc(&callbacks, NULL, p) : NULL;
	int rc = 0;
	if (!p || !buf || !h) {
		snprintf(err, errlen, "out of memory");
		rc = SURFER_ENOMEM;
		goto out;
	}
	p->set = set;
	uint64_t consumed = 0;
	for (;;) {
		int n = gzread(gz, buf, CHUNK);
		if (n < 0) {
			int zerr;
			const char *m = gzerror(gz, &zerr);
			snprintf(err, errlen, "cannot read '%s': %s", path,
				 zerr == Z_ERRNO ? strerror(errno) : m);
			rc = zerr == Z_ERRNO ? SURFER_EIO : SURFER_ECORRUPT;
			goto out;
		}
		yajl_status st = n ? yajl_parse(h, buf, (size_t)n) : yajl_complete_parse(h);
		if (p->failed) {
			snprintf(err, errlen, "out of memory");
			rc = SURFER_ENOMEM;
			goto out;
		}
		if (p->bad) {
			snprintf(err, errlen, "bad value of '%s' near byte %llu", p->bad,
				 (unsigned long long)(consumed + yajl_get_bytes_consumed(h)));
			rc = SURFER_ECORRUPT;
			goto out;
		}
		if (st != yajl_status_ok) {
			json_error(h, buf, (size_t)n, consumed + yajl_get_bytes_consumed(h),
				   err, errlen);
			rc = SURFER_ECORRUPT;
			goto out;
		}
		consumed += (uint64_t)n;
		if (progress)
			progress(pctx, (uint64_t)gzoffset(gz), total);
		if (!n)
			break;
	}
	if (!p->saw_events) {
		snprintf(err, errlen, "not a Kineto trace: no \"traceEvents\" array");
		rc = SURFER_ECORRUPT;
	}
out:
	if (h)
		yajl_free(h);
	if (p)
		free(p->ev.name);
	free(p);
	free(buf);
	gzclose(gz);
	return rc;
}
