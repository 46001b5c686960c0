/*
 * analyze.h - one analysis of a trace: read it, group its launches into the
 * kernel table, predict every configuration on every target, replay the
 * timeline, and collect what the reports print.
 *
 * The trace is streamed once (the kernel table, the predictions and the
 * replay advance together), so memory is bounded by the number of distinct
 * configurations, strings and streams, not by the number of launches.  A
 * trace out of CPU order beyond a 16384-event window (some imports) is read
 * again and replayed from a compact sorted copy of its events (about 100
 * bytes a launch).
 *
 * A built trace (timing `built`: a program builder's, e.g. --model's)
 * has no origin GPU and nothing measured: each kernel is predicted from
 * the operator record that describes it, the measured figures stay 0 and
 * collectives it describes count apart from the kernel time.
 */
#ifndef SURFER_ANALYZE_H
#define SURFER_ANALYZE_H

#include <stddef.h>
#include <stdint.h>

#include "gpu_specs/gpu.h"
#include "trace/surfer_err.h"
#include "predictor/interval.h"
#include "predictor/predict.h"
#include "predictor/tile.h"

/* What an analysis_span is. */
enum analysis_span_kind {
	ANALYSIS_SPAN_KERNEL = 0,   /* a kernel on its stream                   */
	ANALYSIS_SPAN_COPY,         /* a memcpy or memset on its stream         */
	ANALYSIS_SPAN_WAIT,         /* a CPU thread waited for the GPU          */
	ANALYSIS_SPAN_ITERATION,    /* an iteration starts (start == end)       */
	ANALYSIS_SPAN_RESTART       /* the replay starts over (the trace was out
				     * of order beyond the reorder window):
				     * forget every span received so far        */
};

/* One replayed launch, copy, CPU wait or iteration start on one lane, as
 * the replay places it (see analysis_options.on_span).  Times are ns from
 * the first CPU time in the trace. */
struct analysis_span {
	enum analysis_span_kind kind;
	size_t lane;                  /* 0 the measurement, 1 + t target t         */
	uint32_t config;              /* KERNEL: its configuration (a stable index) */
	const char *name;             /* KERNEL: the kernel's name; COPY: the copy
				       * class; WAIT: what was waited for (borrowed
				       * for the call)                             */
	uint64_t stream;              /* KERNEL, COPY: the stream id              */
	uint32_t thread;              /* the CPU thread that made the call        */
	double launch_ns;             /* the call's CPU time on this lane         */
	double start_ns, end_ns;      /* the work (or the CPU wait) on this lane  */
	double origin_ns;             /* KERNEL, COPY: the measured duration      */
	uint32_t grid[3], block[3];   /* KERNEL                                   */
	enum pred_method method;      /* KERNEL on a target: the method used      */
	int memory_bound;             /* KERNEL on a target: 1 / 0, -1 unknown    */
	int counted;                  /* inside a counted iteration               */
};

typedef void (*analysis_span_fn)(void *ctx, const struct analysis_span *s);

struct analysis_options {
	const struct gpu_spec *origin;         /* NULL: the GPU named in the trace  */
	const struct gpu_spec *const *targets; /* ntargets GPUs to predict          */
	size_t ntargets;
	const struct gpu_system *system;       /* the machine collectives run on, for
						* the target that is its GPU; NULL (or
						* another target): the target's
						* default system (gpu_system_default) */
	enum pred_method method;
	const struct predictor *pred;          /* NULL: the defaults (predict.h)    */
	uint32_t reorder_window;               /* events; 0 = the default (16384)   */
	int sorted_copy;                       /* out of order beyond the window:
						* replay from the sorted copy, not
						* the second reading in order (tests
						* compare the two)                 */
	double interval;                       /* probability of the intervals around
						* the predictions (interval.h), 0 < P
						* < 1; 0: IV_DEFAULT_P (0.8)         */
	analysis_span_fn on_span;              /* NULL, or called for every span of
						* the replay on every lane (nothing
						* is stored: a trace of any length
						* streams through it)             */
	void *span_ctx;
};

/* The kernels sharing one name (all their configurations). */
struct analysis_group {
	const char *name;             /* owned by the analysis                      */
	enum pred_op op;
	uint64_t launches;            /* over the counted iterations                */
	double origin_ns;             /* measured, per iteration                    */
	double pred_ns;               /* predicted, per iteration                   */
	double pred_low_ns, pred_high_ns; /* the interval around pred_ns: each
				       * configuration's by its method, class and
				       * the target's distance (interval.h)         */
	enum pred_method method;      /* the method behind most of pred_ns          */
	int memory_bound;             /* 1 / 0 for most of pred_ns, -1 unknown      */
};

struct analysis_target {
	const struct gpu_spec *gpu;
	enum pred_method method;      /* the method asked for                       */
	double iteration_ns;          /* predicted iteration time                   */
	/* The interval of probability `interval` around iteration_ns: the
	 * held-out errors of whole iterations (interval.h) applied to the
	 * kernel time the models predicted (identity excluded); the CPU's
	 * time, copies and waits as the replay has them. */
	double iteration_low_ns, iteration_high_ns;
	double interval;              /* its probability, 0..1                      */
	enum pred_distance distance;  /* how far the target is from the data        */
	enum pred_distance interval_distance; /* the distance of the held-out
				       * iterations the interval came from (farther
				       * than distance where the table has none)    */
	enum pred_method interval_method; /* their key: PRED_TCGEMM, iterations
				       * the tensor-core models set, or PRED_AUTO
				       * (interval_iteration_method())              */
	double kernel_ns, copy_ns;    /* per iteration: predicted kernel/copy time  */
	double gpu_wait_cpu_ns;       /* per iteration: whole GPU idle, waiting for launches */
	double memory_bound_ns, compute_bound_ns, unknown_bound_ns; /* kernel_ns split */
	double method_ns[PRED_METHOD_COUNT]; /* kernel_ns split by the method used  */
	double price_usd_per_hour;    /* set by the caller for cost reports; 0 none */
	/* The machine whose links its collectives are timed on: the options'
	 * system where it holds this GPU or one of the same links, else the
	 * GPU's default (NULL: none known, the GPU's own links alone);
	 * reported for a run of more than one GPU */
	const struct gpu_system *system;
	double op_ns[PRED_OP_COUNT], op_origin_ns[PRED_OP_COUNT];
	struct analysis_group *groups; /* by pred_ns, largest first                 */
	size_t ngroups;
};

struct analysis {
	char device[160];             /* the origin GPU as the trace names it (or the
				       * --model run described)                     */
	const struct gpu_spec *origin;
	uint64_t kernels;             /* kernel launches read (captured excluded)   */
	uint64_t captured;            /* launches captured into CUDA graphs (not run) */
	uint64_t records;             /* records read (strings excluded)            */
	uint32_t configs;             /* distinct kernel configurations             */
	uint32_t iterations;          /* iterations the times are averaged over     */
	double measured_ns;           /* measured iteration time                    */
	double measured_kernel_ns, measured_copy_ns, measured_gpu_wait_cpu_ns;
	int truncated;                /* the trace ended early: warning says where  */
	int reread_in_order;          /* records were out of CPU order beyond the
				       * reorder window: replayed from a second
				       * reading in order, thread by thread       */
	int sorted_in_memory;         /* ... and a thread's own records too (or the
				       * two readings disagreed): replayed from a
				       * sorted copy of every event               */
	int untimed;                  /* no GPU times: measured_ns is CPU time only */
	uint64_t peak_device_bytes;   /* most device memory the program held (trailer), 0 unknown */
	uint32_t world_size;          /* GPUs of the step in lockstep (header), 0 unknown */
	double pace;                  /* share of their compute peaks the targets were
				       * predicted at: timeline_pace(world_size), 1 alone */
	struct tile_amd_scale amd_scale; /* the scale the predictor applied to the
				       * tile model's times on AMD targets        */
	char warning[512];
	size_t ntargets;
	struct analysis_target *targets;
	char **names;                 /* group names (owned)                        */
	size_t nnames;
};

/* Analyzes the trace at path (a regular file: a trace far out of order is
 * read twice).  Returns 0
 * with *out (free with analysis_free), or a negative code with a one-line
 * reason in err: SURFER_EINVAL for bad input (unreadable or corrupt
 * trace, unknown origin GPU), SURFER_ENOMEM. */
int analysis_run(const char *path, const struct analysis_options *o, struct analysis **out,
		 char *err, size_t errlen);

/* Same over a trace held in memory (buf, len bytes, borrowed for the
 * call); name stands for it in messages. */
int analysis_run_mem(const void *buf, size_t len, const char *name,
		     const struct analysis_options *o, struct analysis **out, char *err, size_t errlen);

void analysis_free(struct analysis *a);

/* Appends one warning to a's (joined by "; "). */
void analysis_warn(struct analysis *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends to a's warning the targets whose memory is smaller than bytes:
 * "WHAT need X GiB: more than A, B have". */
void analysis_warn_memory(struct analysis *a, double bytes, const char *what);

#endif
