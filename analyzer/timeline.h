/*
 * timeline.h - the iteration timeline: replays the recorded CPU launches,
 * stream order, synchronizations and copies with measured durations (the
 * measured lane) and with predicted durations (one lane per target GPU),
 * and turns them into iteration times.  It is the only place where kernel
 * times become an iteration time.
 *
 * Events are fed one at a time in CPU order; the state is per stream and
 * per configuration (never per launch), so a trace of any length replays in
 * bounded memory.  Times may be negative (any fixed origin works).
 */
#ifndef SURFER_TIMELINE_H
#define SURFER_TIMELINE_H

#include <stdint.h>

enum tl_kind {
	TL_KERNEL = 0,   /* a kernel launch                                     */
	TL_COPY,         /* a memcpy or memset                                  */
	TL_SYNC,         /* the CPU waited for GPU work                         */
	TL_ITERATION,    /* an iteration starts (at cpu_ns)                     */
	TL_ITERATION_END, /* the iteration ends (a capture stop), at cpu_ns     */
	TL_EVENT_RECORD, /* an event recorded on stream: marks the work before
			  * it for a later stream wait or event sync; no wait */
	TL_KIND_COUNT
};

/* How a copy's duration scales from the origin to a target. */
enum tl_copy_class {
	TL_COPY_HOST = 0,  /* host <-> device: host link bandwidth             */
	TL_COPY_DEVICE,    /* device <-> device and memset: DRAM bandwidth     */
	TL_COPY_PEER,      /* peer to peer: NVLink (or host link)             */
	TL_COPY_NONE,      /* host to host: unchanged                          */
	TL_COPY_CLASS_COUNT
};

/* One event.  Times are ns on one clock (the CPU's), relative to any fixed
 * origin; GPU times already moved onto the CPU clock. */
struct tl_event {
	enum tl_kind kind;
	uint32_t config;          /* TL_KERNEL: kernel-table index             */
	uint64_t stream;          /* stream id; TL_SYNC: the stream waited on  */
	uint32_t thread;          /* CPU thread that made the call             */
	double cpu_ns;            /* CPU time of the call                      */
	double cpu_end_ns;        /* CPU time the call returned (sync, blocking copy) */
	double start_ns, end_ns;  /* measured GPU execution, when has_gpu      */
	int has_gpu;
	int blocking;             /* TL_COPY: the CPU waited for the copy      */
	enum tl_copy_class copy;  /* TL_COPY                                   */
	int wait_all;             /* TL_SYNC: waits for every stream           */
	int no_cpu_wait;          /* TL_SYNC: does not block the CPU (stream wait
				   * event: stream waits for event's work)     */
	uint64_t event;           /* TL_EVENT_RECORD, TL_SYNC: the event, 0 none;
				   * a sync on an event recorded earlier waits
				   * for the work before that record          */
	int no_wake;              /* TL_SYNC, blocking TL_COPY: the trace has no GPU
				   * times, so the measured wait is not known to be
				   * CPU time: the CPU resumes when the predicted
				   * work ends                                   */
	int peer;                 /* TL_KERNEL: work of a peer GPU this one waits
				   * behind (a pipeline stage's bubble in a built
				   * trace): placed on its stream and counted in
				   * the iteration's time, not in kernel time or
				   * the configuration's totals               */
	double est_ns;            /* without GPU times: the estimated duration on
				   * the origin (TL_COPY: bytes / bandwidth;
				   * TL_KERNEL: the mean of its configuration's
				   * measured launches), 0 unknown               */
};

/* Duration of a kernel configuration on one target: scale x measured^(1 -
 * pull) (measured or est_ns, in ns) when the launch has one and scale > 0,
 * else ns.  pull 0 (the usual case): measured x scale, the ratio; above 0
 * the prediction follows each launch's measured time less than in
 * proportion (predict.h, struct pred_result's pull), each launch by its
 * own, so that which launch made the configuration known does not matter. */
struct tl_kernel_pred {
	double scale;             /* ns^pull; with pull 0 a plain ratio        */
	double ns;
	double pull;
};

/* Per target: copy duration multipliers by enum tl_copy_class. */
struct tl_target {
	double copy_scale[TL_COPY_CLASS_COUNT];
};

/* Results of one lane (the measured one or a target). */
struct tl_summary {
	double iteration_ns;      /* mean time of one iteration                */
	double span_ns;           /* first boundary to the end of all work     */
	uint32_t iterations;
	double gpu_wait_cpu_ns;   /* per iteration: whole GPU idle, waiting for a launch */
	double kernel_ns;         /* per iteration: sum of kernel durations    */
	double copy_ns;           /* per iteration: sum of copy durations      */
};

struct timeline;

/* One piece of the replay on one lane, reported to the placement callback
 * as it is placed: a kernel or copy on its stream, a CPU wait (a
 * synchronization, or the CPU side of a blocking copy) or an iteration
 * start. */
struct tl_placed {
	const struct tl_event *ev;  /* the event (borrowed for the call)        */
	uint32_t lane;              /* 0 measured, 1 + t target t               */
	double launch_ns;           /* the call's CPU time on this lane         */
	double start_ns, end_ns;    /* TL_KERNEL, TL_COPY: the work on its
				     * stream; TL_SYNC, blocking TL_COPY: the
				     * CPU wait (call to resume); TL_ITERATION:
				     * both the boundary                        */
	double meas_ns;             /* TL_KERNEL, TL_COPY: measured duration    */
	int cpu_wait;               /* the span is a CPU wait, not GPU work     */
	int counted;                /* inside a counted iteration               */
};

typedef void (*timeline_placed_fn)(void *ctx, const struct tl_placed *p);

/* Creates a timeline for ntargets targets over nconfigs configurations.
 * pred holds nconfigs x ntargets entries (pred[c * ntargets + t]) and
 * targets ntargets entries; both are borrowed and must outlive the
 * timeline.  NULL on allocation failure. */
struct timeline *timeline_new(uint32_t ntargets, uint32_t nconfigs,
			      const struct tl_kernel_pred *pred, const struct tl_target *targets);

/* Replays one event.  Returns 0, or -1 on allocation failure or a bad
 * config index (the event is then ignored). */
int timeline_add(struct timeline *tl, const struct tl_event *ev);

/* Finishes the replay: fills *measured and pred[0..ntargets).  Callable
 * once all events were added; may be called again (same results). */
void timeline_finish(struct timeline *tl, struct tl_summary *measured, struct tl_summary *pred);

/* Declares more configurations: nconfigs (>= the current number) with their
 * predictions in pred (nconfigs x ntargets, borrowed, replacing the previous
 * array).  Returns 0, or -1 on allocation failure. */
int timeline_set_configs(struct timeline *tl, uint32_t nconfigs, const struct tl_kernel_pred *pred);

/* Sum of the durations of configuration c over the counted iterations (not
 * divided by their number): lane 0 is measured, lane 1 + t target t. */
double timeline_config_ns(const struct timeline *tl, uint32_t c, uint32_t lane);

/* Launches of configuration c over the counted iterations. */
uint64_t timeline_config_launches(const struct timeline *tl, uint32_t c);

/* Calls fn(ctx, p) for every piece of work, CPU wait and iteration start
 * on every lane as the replay places it (fn NULL: none, the default).
 * Events arrive in the order they were added, lane by lane; nothing is
 * stored. */
void timeline_set_callback(struct timeline *tl, timeline_placed_fn fn, void *ctx);

void timeline_free(struct timeline *tl);

/* The share of its compute rate a GPU keeps in a step that world_size GPUs
 * run in lockstep (the trace header's world_size): 1 for 0 or 1 GPU, below
 * 1 for more, as the slowest board sets the pace (timeline.c).  The
 * analysis derates each target's compute peaks by it (gpu_derate_compute),
 * for a recorded trace and a built one alike. */
double timeline_pace(uint32_t world_size);

#endif
