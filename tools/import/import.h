/*
 * import.h - what the surfer-import front ends (Kineto JSON, Nsight Systems
 * SQLite) produce, and the shared code that turns it into a surfer trace.
 *
 * A front end reads its input once, keeping only the records surfer needs
 * in a compact form (struct import_event, about 120 bytes each) plus an
 * interned string pool; everything else (CPU ops, flows, annotations other
 * than iteration steps) is dropped while parsing, unless the caller asks
 * for the CPU side (keep_cpu).  So memory grows with the
 * number of GPU activities and launch calls, never with the size of the
 * input text.  import_finish() then joins launch calls to GPU activities,
 * picks the device, sorts, numbers the iterations and writes the trace.
 */
#ifndef SURFER_IMPORT_H
#define SURFER_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "trace/strpool.h"
#include "trace/trace.h"

/* import_* functions return 0 or a surfer_err code (trace/surfer_err.h):
 * SURFER_EIO (the input cannot be read), SURFER_ECORRUPT (it is malformed),
 * SURFER_EDEVICE (no usable device: unknown, none, ambiguous),
 * SURFER_EINVAL (--step names no range of the input), SURFER_EWRITE (the
 * trace cannot be written), SURFER_ENOMEM. */

/* What an event is, before the join (values above TRACE_TYPE_MAX are
 * importer-internal). */
enum import_kind {
	IMPORT_KERNEL = TRACE_KERNEL,
	IMPORT_MEMCPY = TRACE_MEMCPY,
	IMPORT_MEMSET = TRACE_MEMSET,
	IMPORT_SYNC = TRACE_SYNC,
	IMPORT_STEP = 100,     /* an iteration step: [cpu_ns, cpu_end_ns)     */
	IMPORT_GPU_SYNC,       /* GPU side of a sync call: gives its stream   */
};

/* One record before it becomes a trace record.  GPU activities carry the
 * correlation id of the API call that issued them; import_finish copies
 * the CPU time and thread of that call into them. */
struct import_event {
	uint8_t kind;               /* enum import_kind                       */
	uint8_t sub;                /* copy kind / sync kind                  */
	uint8_t async;              /* memcpy/memset issued by an *Async call */
	uint8_t has_device;         /* device is known                        */
	uint8_t host_mem;           /* memcpy: enum trace_host_mem            */
	int32_t device;             /* GPU ordinal                            */
	uint32_t name;              /* pool string id, 0 none                 */
	uint32_t grid[3], block[3];
	uint32_t regs, static_smem, dyn_smem;
	uint32_t thread;
	uint32_t flags;             /* TRACE_KF_*                             */
	int32_t iteration;          /* step number (IMPORT_STEP)              */
	uint64_t stream;
	uint64_t corr;              /* correlation id, 0 none                 */
	uint64_t cpu_ns, cpu_end_ns; /* API call, 0 unknown                   */
	uint64_t start_ns, end_ns;  /* GPU activity, 0 unknown                */
	union {
		uint64_t bytes;     /* memcpy / memset                        */
		uint64_t event;     /* IMPORT_SYNC, IMPORT_GPU_SYNC: the event
				     * (its record's correlation), 0 none    */
	};
};

/* An API call that issued GPU work (launch, copy, set), waited on it, or
 * recorded an event (cudaEventRecord, which a wait names). */
struct import_call {
	uint64_t corr;
	uint64_t cpu_ns, cpu_end_ns;
	uint32_t thread;
	uint32_t flags;             /* TRACE_KF_* implied by the API          */
	uint8_t async;              /* 1 for *Async copies and sets           */
};

/* An event record that a wait names (Kineto's cuda_sync "Stream Wait
 * Event" with wait_on_cuda_event_record_corr_id): the correlation of the
 * cudaEventRecord call, which is the event's id, and the stream it was
 * recorded on.  One per wait, so duplicates are merged in finish. */
struct import_evrec {
	uint64_t corr;
	uint64_t stream;
	int32_t device;
	uint8_t has_device;
};

/* A CPU op that calls a GEMM library (aten::mm, addmm, bmm, baddbmm) with
 * the shapes the profiler recorded (record_shapes=True): batch x (m x k)
 * times (k x n), row-major as PyTorch sees it; or (collective set) one
 * that calls an NCCL collective (record_param_comms, nccl:* annotations);
 * or (conv.nbdims set) a forward convolution (aten::convolution,
 * _convolution, cudnn_convolution), described as the recorder describes
 * cuDNN's: in trace.h's struct trace_conv (seq, stream, thread and CPU
 * time are filled when it is written); or (attn.impl set) a fused
 * attention call; or (rows_op set) a layer norm, softmax or log-softmax
 * over rows.  Kernels launched inside [cpu_ns, cpu_end_ns) on its thread
 * are that op's; of nested ops (aten::convolution around
 * aten::cudnn_convolution), the innermost one open at the launch. */
struct import_gemm {
	uint64_t cpu_ns, cpu_end_ns;
	uint32_t thread;
	uint64_t m, n, k, batch;
	uint8_t dtype;              /* enum trace_dtype                       */
	uint8_t b_transposed;       /* B (k x n) is a transposed view: cuBLAS's
				     * A operand with trans_a = T              */
	uint8_t collective;         /* enum trace_collective; none: a GEMM    */
	uint32_t ranks;             /* collective: the group's size, 0 unknown
				     * (then the input's world size)          */
	double bytes;               /* collective: bytes as comm.h counts them,
				     * or one rank's share of them when
				     * per_rank (times the group's size)      */
	uint8_t per_rank;
	struct trace_conv conv;     /* nbdims 0: no convolution               */
	struct trace_attn attn;     /* impl NONE: no fused attention; else the
				     * call's shape (dtype its dtype, bytes
				     * its minimum traffic)                   */
	uint8_t rows_op;            /* enum trace_op_kind: NORM or SOFTMAX, a
				     * row-wise op over m rows of n columns
				     * (dtype its input's, bytes its minimum
				     * traffic); 0 none                       */
	double flops;               /* attention, row-wise op: its FLOPs      */
	uint8_t conv_bwd;           /* conv is a backward pass (dir
				     * BWD_DATA; BWD_FILTER when only that):
				     * bit 0 the inputs' gradient, bit 1 the
				     * filters'; both: the op's kernels are
				     * split between two records (common.c)   */
};

/* The CPU side of a Kineto trace, for what measures it (surfer-bench cpu)
 * rather than imports it: kept only when import_set.keep_cpu is set, one
 * span per complete ("X") event of these categories, in file order. */
enum import_cpu_cat {
	IMPORT_CPU_OP = 1,          /* "cpu_op": an aten op, an autograd node */
	IMPORT_CPU_CALL,            /* "cuda_runtime" / "cuda_driver": any call */
	IMPORT_CPU_ANNOTATION,      /* "user_annotation": record_function     */
};

struct import_cpu_span {
	uint64_t ts_ns, dur_ns;     /* start and duration, ns as in the input */
	int64_t tid;                /* the input's thread id, 0 when absent   */
	uint64_t seq;               /* position among the spans in the file   */
	int64_t outer;              /* after import_cpu_nest: see there       */
	uint32_t name;              /* pool id (import_string), 0 none        */
	uint8_t cat;                /* enum import_cpu_cat                    */
};

/* Names of the numbered ranges ("NAME#N", the way ProfilerStep#N is) an
 * input holds, for saying which steps it has when --step names none. */
#define IMPORT_MAX_RANGES 8
struct import_range {
	char name[48];              /* NAME, cut to 47 bytes                  */
	uint64_t count;             /* ranges of that name                    */
};

/* A device the input describes. */
struct import_device {
	int32_t id;
	struct trace_device dev;
};

/* Everything a front end collected. */
struct import_set {
	struct import_event *ev;
	size_t nev, capev;
	struct import_call *call;
	size_t ncall, capcall;
	struct import_device *devs;
	size_t ndevs;
	struct import_gemm *gemm;   /* sorted by thread, then time, in finish */
	size_t ngemm, capgemm;
	struct import_evrec *evrec; /* sorted by corr in finish               */
	size_t nevrec, capevrec;
	struct strpool strs;        /* import id i is the pool's id i - 1     */
	/* header facts the input gave */
	uint64_t base_unix_ns;      /* add to times for wall clock, 0 unknown */
	uint32_t driver_version, runtime_version;
	char source[16];            /* "kineto", "nsys"                       */
	char input[256];            /* input file name, for the cmdline field */
	const char *step;           /* name of the ranges that are iterations,
				     * set before reading (NULL: ProfilerStep) */
	uint64_t skipped;           /* events dropped (other devices, ...)    */
	struct import_range ranges[IMPORT_MAX_RANGES]; /* the first distinct names */
	size_t nranges;
	uint64_t conv_unsized;      /* convolutions whose stride, padding,
				     * dilation or groups the input does not
				     * give: no record for their kernels      */
	uint64_t attn_unsized;      /* fused attention ops whose shapes or
				     * is_causal the input does not give      */
	uint64_t attn_estimated;    /* varlen attention ops whose sequences'
				     * lengths were estimated (kineto.c)      */
	uint64_t rows_unsized;      /* layer norms and softmaxes whose
				     * normalized dims or softmax dim the
				     * input does not give                    */
	uint32_t world_size;        /* processes of the distributed job, 0
				     * unknown: the group of a collective the
				     * input does not size                    */
	int keep_cpu;               /* set before reading: keep cpu below     */
	struct import_cpu_span *cpu; /* Kineto's CPU spans (keep_cpu)         */
	size_t ncpu, capcpu;
};

/* Options of import_finish. */
struct import_opts {
	const char *origin;         /* --origin: GPU name or id, NULL = trace's */
	int device;                 /* --device: ordinal, -1 = the busiest    */
};

/* Counts reported after a successful import. */
struct import_stats {
	uint64_t kernels, memcpys, memsets, syncs, markers;
	uint64_t gemms;             /* GEMM records from CPU ops' shapes      */
	uint64_t collectives;       /* OP records of NCCL collectives         */
	uint64_t convs;             /* convolution records from CPU ops       */
	uint64_t attentions;        /* OP records of fused attention calls    */
	uint64_t rows_ops;          /* OP records of layer norms, softmaxes  */
	uint64_t conv_unsized;      /* convolutions left without one: the
				     * input gives no stride or padding       */
	uint64_t attn_unsized;      /* fused attention ops left without one:
				     * no shapes or no is_causal, or a paged
				     * KV cache                               */
	uint64_t attn_estimated;    /* of the records, varlen calls whose
				     * sequences' lengths are estimated from
				     * their total, count and longest         */
	uint64_t rows_unsized;      /* layer norms and softmaxes left without
				     * one: no normalized dims, or no softmax
				     * dim (no "Concrete Inputs")             */
	uint64_t event_records;     /* of the syncs: events recorded          */
	uint64_t event_waits;       /* syncs that name an event               */
	uint64_t unmatched;         /* activities with no matching API call   */
	uint64_t skipped;           /* activities of other devices            */
	uint64_t invalid;           /* records with impossible values, dropped */
	uint64_t nested;            /* step ranges inside another, ignored    */
	uint64_t after;             /* records after the last step, dropped   */
	uint64_t after_kernels;     /* of which kernels                       */
	uint64_t steps;             /* iteration ranges found                 */
	int device;                 /* the device imported                    */
	char device_name[96];       /* as the input named it                  */
	char origin[96];            /* the database name written as device    */
};

/* Progress: called now and then with the bytes of input done and the total
 * (0 when unknown). */
typedef void (*import_progress_fn)(void *ctx, uint64_t done, uint64_t total);

void import_set_init(struct import_set *s);
void import_set_release(struct import_set *s);

/* Appends a zeroed event and returns it, NULL on allocation failure. */
struct import_event *import_add_event(struct import_set *s);
struct import_call *import_add_call(struct import_set *s);
struct import_gemm *import_add_gemm(struct import_set *s);
struct import_evrec *import_add_evrec(struct import_set *s);
struct import_cpu_span *import_add_cpu_span(struct import_set *s);
/* Returns the device slot for id (created zeroed on first use), NULL on
 * allocation failure. */
struct import_device *import_device_slot(struct import_set *s, int32_t id);

/* Whether the range name n[0..len) delimits an iteration: it is step
 * (default "ProfilerStep") followed by "#N", or step itself.  *number
 * receives N, or -1 when the name carries no number (import_finish then
 * numbers such steps 0, 1, ... in time order). */
int import_step_match(const char *step, const char *n, size_t len, int64_t *number);

/* Notes a range (annotation, NVTX) named n[0..len) of the input: when it
 * is "NAME#N", NAME is counted in set->ranges (the first
 * IMPORT_MAX_RANGES distinct names). */
void import_note_range(struct import_set *set, const char *n, size_t len);

/* Returns the pool id (>= 1) of s[0..len), 0 on allocation failure. */
uint32_t import_intern(struct import_set *set, const char *s, size_t len);
/* The pool string with id, or NULL. */
const char *import_string(const struct import_set *set, uint32_t id);

/* Reads a Kineto (torch.profiler) JSON trace, plain or gzip-compressed,
 * into set.  Returns 0, or a negative code with a one-line reason in err. */
int import_kineto_read(struct import_set *set, const char *path,
		       import_progress_fn progress, void *pctx,
		       char *err, size_t errlen);

/* Sorts set->cpu by thread, then start, the enclosing span first (the
 * longer of two that start together; file order last), and nests it the
 * way a thread's call tree reads: an op is top-level when it starts at or
 * after the end of its thread's previous top-level op, and otherwise
 * inside that one (an op that starts inside one and ends after it is still inside it).
 * outer is then the index in set->cpu of the top-level op a span is in:
 * for a top-level op its own, for any other op the thread's previous
 * top-level op, for a call or an annotation that op when the span starts
 * no later than its end (a call in the op's last microsecond is still
 * its own), else -1. */
void import_cpu_nest(struct import_set *set);

/* Reads an Nsight Systems SQLite export into set.  Same contract. */
int import_nsys_read(struct import_set *set, const char *path,
		     char *err, size_t errlen);

/* Joins, sorts and writes set as a surfer trace to out_path.  The origin
 * device must be one gpu_find knows (the input's name, or opts->origin);
 * otherwise SURFER_EDEVICE with a reason that suggests --origin.  A step
 * name given in set->step that no range of the input has is SURFER_EINVAL,
 * with a reason naming the numbered ranges it has.  On failure no output
 * file is left behind.  stats may be NULL. */
int import_finish(struct import_set *set, const struct import_opts *opts,
		  const char *out_path, struct import_stats *stats,
		  char *err, size_t errlen);

#endif
