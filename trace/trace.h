/*
 * trace.h - the surfer trace format: one writer, one streaming reader.
 *
 * This module is the only contract between the recorder (preload/), the
 * importers (tools/) and the analyzer (analyzer/).  The byte layout is
 * specified in docs/trace-format.md; nothing else may pack or unpack it.
 *
 * A trace is a plain sequence of msgpack arrays.  The first element of each
 * array is its record type (enum trace_type); the rest are positional fields.
 * Readers ignore trailing fields they do not know (minor versions add fields
 * at the end) and default missing trailing fields, so old readers read new
 * minor versions and new readers read old ones.  A newer major version is
 * rejected.
 *
 * Constraints kept:
 *  - the writer never allocates per record on the hot path beyond its chunk
 *    buffer and the string table, and writes whole chunks through a sink;
 *  - the reader's memory is bounded by the number of distinct strings (and
 *    stacks), never by the file size, and it validates every field.
 *
 * Order (docs/trace-format.md, "Order"): the file holds records in the order
 * they were written, the threads of a program interleaved in runs.  The
 * order of events is (cpu_ns, seq), and between records with equal keys
 * their order in the file.  trace_merge_* returns the records in that order
 * from a second reading of the file, holding a window of records per
 * thread: memory bounded by the threads, not by the records.
 */
#ifndef SURFER_TRACE_H
#define SURFER_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "trace/surfer_err.h"

#define TRACE_MAGIC "surfer-trace"
#define TRACE_VERSION_MAJOR 1
#define TRACE_VERSION_MINOR 12

/* Limits every reader enforces and the writer respects, so that a corrupt
 * length can never make a reader allocate more than a few MiB at once. */
#define TRACE_STRING_MAX (256u * 1024)    /* bytes of one interned string   */
#define TRACE_RECORD_MAX (1024u * 1024)   /* bytes of one encoded record    */

/* Error codes returned by trace_* functions (0 is success): surfer's codes
 * (surfer_err.h) under this module's names. */
enum {
	TRACE_OK = SURFER_OK,
	TRACE_EIO = SURFER_EIO,             /* read/write/open failed (errno kept)      */
	TRACE_ECORRUPT = SURFER_ECORRUPT,   /* malformed data: a field has a bad type/value */
	TRACE_EVERSION = SURFER_EVERSION,   /* newer major version or not a surfer trace */
	TRACE_ETRUNC = SURFER_ETRUNC,       /* the data ends inside or before the trailer */
	TRACE_ENOMEM = SURFER_ENOMEM,
	TRACE_EINVAL = SURFER_EINVAL,       /* API misuse (record before header, ...)   */
};

/* Record types: the first element of every msgpack array in the file. */
enum trace_type {
	TRACE_HEADER = 1,
	TRACE_STRING = 2,   /* interned string definition                    */
	TRACE_KERNEL = 3,
	TRACE_GEMM = 4,
	TRACE_CONV = 5,
	TRACE_MEMCPY = 6,
	TRACE_MEMSET = 7,
	TRACE_SYNC = 8,
	TRACE_MARKER = 9,
	TRACE_STACK = 10,   /* a deduplicated, symbolized launch call stack  */
	TRACE_TRAILER = 11,
	TRACE_OP = 12,      /* 1.2: what a kernel computes, as a program builder
			     * describes it (see struct trace_op)           */
	TRACE_TYPE_MAX
};

/* Data types of library calls (GEMM operands, convolution tensors). */
enum trace_dtype {
	TRACE_DT_UNKNOWN = 0,
	TRACE_DT_F32, TRACE_DT_F64, TRACE_DT_F16, TRACE_DT_BF16, TRACE_DT_TF32,
	TRACE_DT_F8E4M3, TRACE_DT_F8E5M2, TRACE_DT_F4, TRACE_DT_I8, TRACE_DT_I32,
	TRACE_DT_COUNT
};

/* How GPU times were obtained. */
enum trace_timing {
	TRACE_TIMING_NONE = 0,     /* no GPU times: only CPU launch times      */
	TRACE_TIMING_CUPTI,        /* CUPTI activity records                   */
	TRACE_TIMING_EVENTS,       /* CUDA events around each launch           */
	TRACE_TIMING_IMPORTED,     /* converted from another tool's trace      */
	TRACE_TIMING_SYNTHETIC,    /* written by a test or a generator         */
	TRACE_TIMING_BUILT,        /* 1.2: built from a model configuration by a
				    * program builder (surfer-analyze --model
				    * --write-trace): no GPU ran it, so there is
				    * no origin GPU and no GPU time; kernels carry
				    * OP records                                */
	TRACE_TIMING_COUNT
};

/* The GPU the trace was recorded on, as the driver reported it. */
struct trace_device {
	char name[96];              /* cuDeviceGetName, e.g. "NVIDIA H100 80GB HBM3" */
	uint32_t cc_major, cc_minor;
	uint32_t sm_count;
	uint32_t clock_khz;         /* SM clock (boost), kHz; 0 unknown          */
	uint32_t mem_clock_khz;     /* memory clock, kHz; 0 unknown              */
	uint32_t mem_bus_bits;      /* global memory bus width, bits             */
	uint64_t mem_bytes;         /* total global memory                       */
	uint32_t l2_bytes;
	uint32_t max_threads_per_sm;
	uint32_t max_blocks_per_sm;
	uint32_t regs_per_sm;
	uint32_t smem_per_sm;       /* bytes                                     */
	uint32_t smem_per_block_optin; /* bytes                                  */
	uint32_t driver_version;    /* cuDriverGetVersion, e.g. 12040            */
	uint32_t runtime_version;   /* 0 unknown                                 */
};

struct trace_header {
	uint32_t version_major, version_minor; /* filled by the writer/reader */
	char tool_version[32];
	char host[64];
	uint32_t pid;
	uint64_t start_unix_ns;     /* wall clock at start                       */
	char cmdline[512];          /* argv joined by spaces, truncated          */
	enum trace_timing timing;
	char timing_note[128];      /* why this timing method (e.g. CUPTI error) */
	struct trace_device device;
	uint32_t world_size;        /* 1.5: GPUs of the job that wait for each
				     * other at every step (a training job's
				     * data x tensor x pipeline x context ranks:
				     * torchrun's WORLD_SIZE, a profile's
				     * distributedInfo, a built training step's
				     * layout); the analyzer runs the step at the
				     * pace of the slowest of them (pace.h).
				     * 0 unknown or none: one GPU's pace       */
	double power_limit_w;       /* 1.6: the boards ran capped at this, W,
				     * below their TDP (a built step's
				     * --power-limit); the analyzer derates each
				     * target's compute to it.  0: at the TDP  */
};

/* Flags of a kernel record. */
enum {
	TRACE_KF_COOPERATIVE = 1u << 0,
	TRACE_KF_GRAPH = 1u << 1,      /* run by a CUDA graph replay            */
	TRACE_KF_CAPTURED = 1u << 2,   /* launched during stream capture        */
	TRACE_KF_PTSZ = 1u << 3,       /* per-thread default stream semantics   */
	TRACE_KF_EX = 1u << 4,         /* launched through cuLaunchKernelEx     */
	TRACE_KF_PEER = 1u << 5,       /* 1.2, built traces: work of a peer GPU
					* this one waits behind (a pipeline
					* stage's bubble): it holds the stream
					* for its time but is not this GPU's
					* kernel time or launches             */
};

/* Times are nanoseconds: cpu_ns on the recorder's CLOCK_MONOTONIC (or the
 * importer's CPU clock), start_ns/end_ns on the GPU clock as CUPTI or the
 * events gave them, converted to the same base when known.  0 = unknown. */
struct trace_kernel {
	uint64_t seq;               /* launch sequence number, unique per trace  */
	uint32_t name;              /* interned string id of the (mangled) name  */
	uint32_t grid[3], block[3], cluster[3]; /* cluster {0,0,0} = none        */
	uint32_t regs;              /* registers per thread                      */
	uint32_t static_smem;       /* bytes per block                           */
	uint32_t dyn_smem;          /* bytes per block                           */
	uint64_t stream;            /* stream id (cuStreamGetId or importer's)   */
	uint32_t thread;            /* OS thread id of the launching thread      */
	uint32_t flags;             /* TRACE_KF_*                                */
	uint64_t cpu_ns;            /* CPU time of the launch call               */
	uint64_t start_ns, end_ns;  /* GPU execution, 0 when unknown             */
	uint64_t lib_call;          /* seq of the GEMM/conv record that launched it, 0 none */
	int32_t iteration;          /* -1 when not inside a delimited iteration */
	uint32_t stack;             /* stack id (TRACE_STACK), 0 none            */
	uint64_t graph;             /* 1.12: the stream capture a CUDA graph came
				     * from (cuStreamGetCaptureInfo's id, unique
				     * in the process): of a captured launch, the
				     * capture it was recorded into; of a replay
				     * (flag GRAPH: a whole replay, or one kernel
				     * of it), the capture of the graph its
				     * executable graph was instantiated from.
				     * 0 none or unknown (a graph built node by
				     * node, an older trace)                  */
	uint64_t replay;            /* 1.12: a kernel CUPTI reported of a graph
				     * replay: the seq of that replay's
				     * cuGraphLaunch (its kernels share it); 0
				     * otherwise                              */
};

enum trace_gemm_api {
	TRACE_GEMM_UNKNOWN = 0,
	TRACE_GEMM_SGEMM, TRACE_GEMM_DGEMM, TRACE_GEMM_HGEMM,
	TRACE_GEMM_GEMMEX,
	TRACE_GEMM_SGEMM_STRIDED_BATCHED, TRACE_GEMM_DGEMM_STRIDED_BATCHED,
	TRACE_GEMM_HGEMM_STRIDED_BATCHED, TRACE_GEMM_GEMM_STRIDED_BATCHED_EX,
	TRACE_GEMM_GEMM_BATCHED_EX,
	TRACE_GEMM_LT_MATMUL,
	TRACE_GEMM_IMPORTED,        /* shape inferred by an importer            */
	TRACE_GEMM_API_COUNT
};

/* A GEMM library call: D[m x n] = A[m x k] * B[k x n] (column-major, after
 * the transposes), batch times. */
struct trace_gemm {
	uint64_t seq;               /* shares the numbering with kernels         */
	enum trace_gemm_api api;
	uint64_t m, n, k, batch;
	uint8_t trans_a, trans_b;   /* 0 = N, 1 = T, 2 = C                       */
	enum trace_dtype a_type, b_type, c_type, compute_type;
	uint32_t epilogue;          /* cublasLtEpilogue_t value, 1 = default     */
	uint64_t stream;
	uint32_t thread;
	uint64_t cpu_ns;
};

enum trace_conv_dir {
	TRACE_CONV_FWD = 0, TRACE_CONV_BWD_DATA = 1, TRACE_CONV_BWD_FILTER = 2,
	TRACE_CONV_DIR_COUNT
};

enum trace_conv_api {
	TRACE_CONV_API_UNKNOWN = 0, TRACE_CONV_API_V7, TRACE_CONV_API_BACKEND,
	TRACE_CONV_API_IMPORTED, TRACE_CONV_API_COUNT
};

#define TRACE_CONV_MAXDIM 5
/* A convolution: dims are NCHW-ordered (N, C, [D,] H, W), nbdims of them;
 * the filter is (K, C/groups, [T,] R, S). */
struct trace_conv {
	uint64_t seq;
	enum trace_conv_api api;
	enum trace_conv_dir dir;
	uint32_t nbdims;                      /* 4 (2-D conv) or 5 (3-D conv)  */
	int64_t in[TRACE_CONV_MAXDIM];
	int64_t filt[TRACE_CONV_MAXDIM];
	int64_t out[TRACE_CONV_MAXDIM];
	int64_t stride[3], pad[3], dilation[3]; /* nbdims-2 of them are used    */
	uint32_t groups;
	enum trace_dtype dtype, compute_type;
	uint64_t stream;
	uint32_t thread;
	uint64_t cpu_ns;
};

enum trace_copy_kind {
	TRACE_COPY_UNKNOWN = 0, TRACE_COPY_HTOD, TRACE_COPY_DTOH, TRACE_COPY_DTOD,
	TRACE_COPY_HTOH, TRACE_COPY_PTOP, TRACE_COPY_KIND_COUNT
};

/* The host memory a copy reads or writes (1.2).  It decides whether the
 * call returns before the copy runs: a copy between the device and pageable
 * memory goes through a staging buffer, so even cudaMemcpyAsync waits for
 * the stream to reach it and (to pageable) for the copy to end. */
enum trace_host_mem {
	TRACE_HOST_UNKNOWN = 0,    /* not asked, or no host side (DtoD, memset) */
	TRACE_HOST_PAGEABLE,       /* ordinary (malloc, stack) memory          */
	TRACE_HOST_PINNED,         /* page-locked: cuMemHostAlloc, registered  */
	TRACE_HOST_MEM_COUNT
};

/* A memcpy (kind set) or memset (kind = TRACE_COPY_UNKNOWN). */
struct trace_copy {
	uint64_t seq;
	uint64_t bytes;
	enum trace_copy_kind kind;
	uint8_t async;
	uint64_t stream;
	uint32_t thread;
	uint64_t cpu_ns;            /* CPU time of the call                      */
	uint64_t cpu_end_ns;        /* CPU time the call returned (blocking copy) */
	uint64_t start_ns, end_ns;  /* GPU times, 0 unknown                      */
	enum trace_host_mem host_mem; /* 1.2: the host side's memory (HtoD
				     * source, DtoH destination, HtoH either);
				     * unknown for older traces              */
	uint32_t copies;            /* 1.11: copies the record stands for: a
				     * batched copy's count (cuMemcpyBatchAsync:
				     * bytes their sum, start_ns to end_ns all
				     * of them); 0 or 1 one copy or set      */
};

enum trace_sync_kind {
	TRACE_SYNC_CTX = 0, TRACE_SYNC_STREAM, TRACE_SYNC_EVENT,
	TRACE_SYNC_STREAM_WAIT_EVENT, TRACE_SYNC_OTHER,
	TRACE_SYNC_EVENT_RECORD,    /* 1.1: an event recorded on stream; no wait */
	TRACE_SYNC_KIND_COUNT
};

/* The CPU blocked from cpu_ns to cpu_end_ns waiting for the GPU; or (1.1)
 * an event was recorded on a stream (EVENT_RECORD) for a later
 * STREAM_WAIT_EVENT (a stream waits, not the CPU) or EVENT wait to name. */
struct trace_sync {
	uint64_t seq;
	enum trace_sync_kind kind;
	uint64_t stream;            /* the stream waited on (0 for ctx); for
				     * STREAM_WAIT_EVENT the stream that waits;
				     * for EVENT_RECORD the one recorded on     */
	uint32_t thread;
	uint64_t cpu_ns, cpu_end_ns;
	uint64_t event;             /* 1.1: the event (an opaque id) of EVENT,
				     * STREAM_WAIT_EVENT, EVENT_RECORD; 0 unknown */
};

enum trace_marker_kind {
	TRACE_MARK_CAPTURE_START = 0,  /* cuProfilerStart                      */
	TRACE_MARK_CAPTURE_STOP,       /* cuProfilerStop                       */
	TRACE_MARK_RANGE_PUSH,         /* named range begins                   */
	TRACE_MARK_RANGE_POP,
	TRACE_MARK_ITERATION,          /* an iteration boundary                */
	TRACE_MARK_KIND_COUNT
};

/* What a TRACE_OP describes: the values of the predictor's enum pred_op. */
enum trace_op_kind {
	TRACE_OPK_UNKNOWN = 0, TRACE_OPK_GEMM, TRACE_OPK_CONV, TRACE_OPK_ELEMENTWISE,
	TRACE_OPK_REDUCTION, TRACE_OPK_SOFTMAX, TRACE_OPK_NORM, TRACE_OPK_ATTENTION,
	TRACE_OPK_MEMCPY, TRACE_OPK_MEMSET, TRACE_OPK_COMM,
	TRACE_OPK_COUNT
};

/* The collective a TRACE_OPK_COMM op runs (1.3 added broadcast, reduce
 * and all_to_all). */
enum trace_collective {
	TRACE_COLL_NONE = 0, TRACE_COLL_ALL_REDUCE, TRACE_COLL_ALL_GATHER,
	TRACE_COLL_REDUCE_SCATTER, TRACE_COLL_SEND_RECV,
	TRACE_COLL_BROADCAST, TRACE_COLL_REDUCE, TRACE_COLL_ALL_TO_ALL,
	TRACE_COLL_COUNT
};

/* 1.3: which fused attention kernel a TRACE_OPK_ATTENTION op runs.  A built
 * trace is target-independent, so an implementation names a family whose
 * kernel the predictor picks per target GPU (predictor/attention.h):
 * FLASH is FlashAttention as flash-attn and vLLM pick it, FA3 on compute
 * capability 9.0 and FA2 elsewhere; FLASHINFER and CUDNN run their
 * Hopper (warpgroup MMA) kernels on 9.0 as well. */
enum trace_attn_impl {
	TRACE_ATTN_NONE = 0,        /* no description (an attention kernel of
				     * 1.2, or not fused attention)          */
	TRACE_ATTN_FLASH, TRACE_ATTN_FA2, TRACE_ATTN_FA3, TRACE_ATTN_FLASHINFER,
	TRACE_ATTN_CUDNN,
	TRACE_ATTN_TRITON,          /* 1.4: flash-attn's Triton kernel
				     * (flash_attn_triton.py, as llm-foundry's
				     * attn_impl triton runs it)             */
	TRACE_ATTN_EFFICIENT,       /* 1.10: PyTorch's memory-efficient SDPA
				     * backend (the CUTLASS kernels from
				     * xFormers: fmha_cutlassF, fmha_cutlassB),
				     * which every dtype and an additive mask
				     * run on; on every compute capability   */
	TRACE_ATTN_IMPL_COUNT
};

/* 1.3: what an attention kernel computes. */
enum trace_attn_form {
	TRACE_ATTN_PREFILL = 0,     /* each sequence's queries attend to its keys
				     * (training, prefill; a ragged batch of
				     * prompts, with or without a cached prefix) */
	TRACE_ATTN_DECODE,          /* a few queries per sequence over a paged
				     * KV cache, split-KV with a combine step */
	TRACE_ATTN_MLA_DECODE,      /* DeepSeek-V2/V3 absorbed MLA decode: one
				     * latent KV head of head_dim = kv_lora_rank
				     * + rope dim, values its first head_dim_v */
	TRACE_ATTN_FORM_COUNT
};

/* 1.3: the shape of a fused attention call, per GPU (after tensor
 * parallelism).  All zero when the op is not described attention. */
struct trace_attn {
	enum trace_attn_impl impl;
	enum trace_attn_form form;
	uint8_t backward;           /* 1: the backward pass (dQ, dK, dV)        */
	uint8_t causal;             /* 1: the causal mask (pairs says its effect) */
	uint32_t seqs;              /* sequences in the batch                    */
	uint32_t heads;             /* query heads                               */
	uint32_t kv_heads;          /* key/value heads (GQA); divides heads      */
	uint32_t head_dim;          /* of Q and K                                */
	uint32_t head_dim_v;        /* of V and the output                       */
	uint64_t q_tokens;          /* queries, summed over the sequences        */
	uint64_t kv_tokens;         /* keys each sequence attends to (its cache
				     * and its new tokens), summed               */
	uint64_t max_kv;            /* keys of the longest sequence              */
	double pairs;               /* (query, key) pairs attended, summed over
				     * the sequences, the mask applied: per
				     * sequence of n new tokens after p cached
				     * ones n (p + (n + 1) / 2) when causal,
				     * n (p + n) when not                    */
	uint64_t window;            /* 1.7, causal: a sliding window, the keys a
				     * query attends at most (itself and the
				     * window - 1 before it; pairs and each
				     * sequence's keys counted with it); 0 none */
	uint8_t kv_bytes;           /* 1.8: bytes a cached key or value element
				     * is stored in (1: an FP8 KV cache, read
				     * and converted by the kernel); 0 the op's
				     * dtype's                                 */
	uint32_t bias_heads;        /* 1.10, prefill: heads of an additive bias
				     * (attn_mask) the kernel reads, one
				     * (query, key) element per pair of each
				     * sequence in the op's dtype: 1 one for
				     * every head (broadcast), heads one per
				     * head; 0 none                            */
};

/* 1.2: an operator as a program builder describes it: the target-
 * independent numbers the predictor works from when no GPU ran the kernel
 * (a recorder writes GEMM and CONV records instead).  The kernel it
 * launched names it by lib_call, as a kernel names its GEMM call.  1.3: a
 * collective a recorder saw (an NCCL call) or an importer read (a
 * torch.profiler nccl:* annotation) is an OP of kind COMM too. */
struct trace_op {
	uint64_t seq;               /* shares the numbering with kernels         */
	enum trace_op_kind kind;
	enum trace_dtype dtype;     /* math dtype                                */
	uint64_t m, n, k, batch;    /* GEMM: batch x (m x k) * (k x n), row-major;
				     * vector ops: rows x cols in m, n; 0 unknown;
				     * COMM all-to-all of routed tokens: n the
				     * nodes a token goes to at most (node-
				     * limited routing, 0 none), k its rows */
	double flops;               /* total floating-point operations           */
	double bytes;               /* minimum DRAM traffic, bytes               */
	uint8_t b_transposed;       /* GEMM: the second operand is read transposed */
	double reread_bytes;        /* a broadcast operand read again per repetition
				     * unless it stays in L2: the DRAM bytes the
				     * re-reads add, ...                         */
	double reuse_bytes;         /* ... and the bytes streamed between two uses
				     * (a GPU whose L2 is smaller pays reread)   */
	enum trace_collective collective; /* COMM: which; NONE otherwise          */
	uint32_t ranks;             /* COMM: GPUs in the group                   */
	uint64_t stream;
	uint32_t thread;
	uint64_t cpu_ns;
	struct trace_attn attn;     /* 1.3, ATTENTION: the call's shape          */
	int32_t rank;               /* 1.3, COMM: this process's rank in the
				     * group; -1 unknown                       */
	uint64_t comm;              /* 1.3, COMM: the communicator (an opaque
				     * id: calls on one group share it); 0 unknown */
	uint32_t node_ranks;        /* 1.3, COMM: ranks of the group that share
				     * a node; 0: as the target system packs
				     * them (as many per node as it holds)     */
	uint8_t accumulate;         /* 1.4, GEMM: 1 the product is added into an
				     * FP32 output (beta = 1: C read and written
				     * in FP32, a weight gradient into its FP32
				     * main gradient); 0 written in the dtype   */
	double b_bytes;             /* 1.9, GEMM: bytes an element of the second
				     * operand (the weights) takes in memory when
				     * stored narrower than the dtype and widened
				     * in registers, its scales included (weight-
				     * only quantization: AWQ/GPTQ 4-bit with a
				     * 16-bit scale per 128, 0.5 + 2 / 128);
				     * 0 the dtype's                          */
};

struct trace_marker {
	uint64_t seq;
	enum trace_marker_kind kind;
	uint32_t name;              /* string id, 0 = none                      */
	uint32_t thread;
	uint64_t cpu_ns;
	int32_t iteration;          /* iteration that starts/ends here, -1 none */
};

#define TRACE_STACK_MAXFRAMES 64
/* A distinct launch call stack: frames[i] are string ids of
 * "module+0xoffset symbol+0xoffset" (innermost first). */
struct trace_stack {
	uint32_t id;                /* > 0                                      */
	uint32_t nframes;
	uint32_t frames[TRACE_STACK_MAXFRAMES];
};

/* Counts written at the end; the reader compares them with what it read. */
struct trace_trailer {
	uint64_t count[TRACE_TYPE_MAX]; /* records of each type, trailer excluded */
	uint64_t end_unix_ns;
	uint64_t dropped;           /* records the recorder had to drop         */
	uint64_t peak_device_bytes; /* 1.1: most device memory the program held at
				     * once through the driver's allocators
				     * (cuMemAlloc, cuMemAllocAsync, cuMemCreate);
				     * 0 unknown */
};

struct trace_record {
	enum trace_type type;
	union {
		struct trace_kernel kernel;
		struct trace_gemm gemm;
		struct trace_conv conv;
		struct trace_copy copy;     /* TRACE_MEMCPY and TRACE_MEMSET */
		struct trace_sync sync;
		struct trace_marker marker;
		struct trace_stack stack;
		struct trace_trailer trailer;
		struct trace_op op;
	} u;
};

/* ---- names of enum values (for dumps and reports; "?" when out of range) */
const char *trace_type_name(enum trace_type t);
const char *trace_dtype_name(enum trace_dtype d);
const char *trace_timing_name(enum trace_timing t);
const char *trace_gemm_api_name(enum trace_gemm_api a);
const char *trace_conv_dir_name(enum trace_conv_dir d);
const char *trace_conv_api_name(enum trace_conv_api a);
const char *trace_copy_kind_name(enum trace_copy_kind k);
const char *trace_host_mem_name(enum trace_host_mem m);
const char *trace_sync_kind_name(enum trace_sync_kind k);
const char *trace_marker_kind_name(enum trace_marker_kind k);
const char *trace_op_kind_name(enum trace_op_kind k);
const char *trace_collective_name(enum trace_collective c);
const char *trace_attn_impl_name(enum trace_attn_impl i);
const char *trace_attn_form_name(enum trace_attn_form f);
/* Size in bytes of one element of dtype d (TF32 and F32 are 4; F4 reports 1;
 * 0 for unknown). */
double trace_dtype_bytes(enum trace_dtype d);

/* ---- writer --------------------------------------------------------- */

/* A sink receives whole chunks; returns 0 on success, negative on failure
 * (after which the writer stops writing and returns TRACE_EIO). */
typedef int (*trace_sink_fn)(void *ctx, const void *buf, size_t len);

struct trace_writer;

/* Creates a writer that buffers up to chunk_bytes (0 = 64 KiB) and hands
 * each full chunk to sink.  The caller keeps ownership of ctx.  NULL on
 * allocation failure. */
struct trace_writer *trace_writer_new(trace_sink_fn sink, void *ctx, size_t chunk_bytes);

/* Creates a writer to a new file at path (created 0644, truncated).
 * Returns NULL and sets *err (TRACE_EIO with errno, or TRACE_ENOMEM). */
struct trace_writer *trace_writer_open(const char *path, size_t chunk_bytes, int *err);

/* Writes the header; must be the first call.  version fields are filled. */
int trace_writer_header(struct trace_writer *w, const struct trace_header *h);

/* Returns the id (>= 1) of string s[0..len), writing its definition the
 * first time it is seen.  Returns 0 on failure (0 also means "no string"
 * in records).  Not thread-safe: callers serialize writer access. */
uint32_t trace_writer_intern(struct trace_writer *w, const char *s, size_t len);

/* Appends one record (any type but HEADER, STRING and TRAILER).  String ids
 * inside it must come from trace_writer_intern on this writer. */
int trace_writer_record(struct trace_writer *w, const struct trace_record *rec);

/* Hands the buffered bytes to the sink now. */
int trace_writer_flush(struct trace_writer *w);

/* Counts of records written so far, by type. */
const struct trace_trailer *trace_writer_counts(const struct trace_writer *w);

/* Adds to the "dropped" count reported in the trailer. */
void trace_writer_add_dropped(struct trace_writer *w, uint64_t n);

/* Sets the trailer's peak_device_bytes. */
void trace_writer_set_peak_device_bytes(struct trace_writer *w, uint64_t bytes);

/* Writes the trailer and flushes.  The writer accepts nothing afterwards. */
int trace_writer_finish(struct trace_writer *w);

/* Frees the writer (closing its file if trace_writer_open made it) without
 * writing a trailer: a trace freed unfinished reads as truncated. */
void trace_writer_free(struct trace_writer *w);

/* ---- reader --------------------------------------------------------- */

struct trace_reader;

/* Opens path ("-" = stdin) and reads its header.  Returns 0 and *out, or a
 * negative code with a one-line reason in err (may be NULL). */
int trace_reader_open(struct trace_reader **out, const char *path,
		      char *err, size_t errlen);

/* Same over a caller-owned memory buffer, which must outlive the reader. */
int trace_reader_open_mem(struct trace_reader **out, const void *buf, size_t len,
			  char *err, size_t errlen);

const struct trace_header *trace_reader_header(const struct trace_reader *r);

/* Reads the next record other than STRING (strings are absorbed into the
 * string table).  Returns 1 with *rec filled, 0 at the trailer (*rec holds
 * it; later calls return 0 again), TRACE_ETRUNC when the data ends before
 * the trailer (err says "truncated after N records"), or another negative
 * code with a reason in err.  After an error every later call returns the
 * same code. */
int trace_reader_next(struct trace_reader *r, struct trace_record *rec,
		      char *err, size_t errlen);

/* The string with id, or NULL for 0 / unknown ids.  *len (may be NULL)
 * receives its length.  The string is NUL-terminated and owned by the
 * reader until trace_reader_free. */
const char *trace_reader_string(const struct trace_reader *r, uint32_t id, size_t *len);

/* Number of distinct strings read so far. */
uint32_t trace_reader_nstrings(const struct trace_reader *r);

/* Number of records returned so far by trace_reader_next (strings excluded). */
uint64_t trace_reader_count(const struct trace_reader *r);

/* The stack with id read so far, or NULL. */
const struct trace_stack *trace_reader_stack(const struct trace_reader *r, uint32_t id);

void trace_reader_free(struct trace_reader *r);

/* ---- reading in order ---------------------------------------------- */

/* The window, in records of one thread, within which a thread's records
 * may be out of (cpu_ns, seq) order for trace_merge_open to sort them. */
#define TRACE_ORDER_WINDOW 16384u

/* Makes r note, as it reads, what trace_merge_open needs: for every thread
 * the byte ranges of its records and whether a window of window records
 * (0 = TRACE_ORDER_WINDOW) puts them in order.  Call it before the first
 * trace_reader_next.  Memory: a few KiB per thread and, for a thread whose
 * records are out of order, window x 16 bytes.  0, TRACE_EINVAL (records
 * were read already) or TRACE_ENOMEM. */
int trace_reader_keep_order(struct trace_reader *r, uint32_t window);

struct trace_merge;

/* Opens a second reading of r's input that returns the records r returned
 * (strings and stacks excepted: r has them) in (cpu_ns, seq, file position)
 * order.  r must keep order (trace_reader_keep_order), be read to its end
 * (the trailer or the error that stopped it), read a regular file or
 * memory, and outlive the merge.  Returns 0 and *out; TRACE_EINVAL with a
 * reason in err when a thread's records are out of order beyond the window
 * or r does not keep order; TRACE_EIO when the input cannot be read again;
 * TRACE_ENOMEM. */
int trace_merge_open(struct trace_merge **out, const struct trace_reader *r,
		     char *err, size_t errlen);

/* The next record in order: 1 with *rec (TRACE_KERNEL, GEMM, CONV, MEMCPY,
 * MEMSET, SYNC, MARKER or OP; its string and stack ids are r's), 0 at the end,
 * or a negative code with a reason in err (also when the file changed since
 * r read it).  After an error every later call returns the same code. */
int trace_merge_next(struct trace_merge *m, struct trace_record *rec, char *err, size_t errlen);

/* Bytes the merge holds (buffers, windows), for tests of its bound. */
size_t trace_merge_bytes(const struct trace_merge *m);

void trace_merge_free(struct trace_merge *m);

#endif
