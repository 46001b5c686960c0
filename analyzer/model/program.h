/*
 * program.h - a built model run written as the program a recorder would
 * have seen: the header says what was built (no GPU ran it), every kernel
 * comes with the operator record that describes it (TRACE_OP: op, dtype,
 * shape, FLOPs, bytes, collective), launched by one CPU thread on a compute
 * stream and a side stream, with the event records, stream waits and
 * synchronizations that order them.  The analyzer reads it like any trace
 * (analyze.c, timeline.c): nothing here predicts or replays.
 */
#ifndef SURFER_MODELPROG_H
#define SURFER_MODELPROG_H

#include <stdint.h>

#include "analyzer/model/model.h"
#include "trace/trace.h"

/* The ids the program uses: its one CPU thread, the compute stream and the
 * side stream (DDP's buckets, FSDP's gathers), and the CPU time of the
 * iteration's start (any nonzero base: 0 means unknown in a trace). */
#define MODELPROG_THREAD 1u
#define MODELPROG_STREAM 1u
#define MODELPROG_SIDE_STREAM 2u
#define MODELPROG_T0_NS 1000000000ull

/* One iteration to write. */
struct model_program {
	const struct model_seq *seq;    /* the iteration (pp > 1: one microbatch
					 * of the stage, then its tail)         */
	const struct model_opts *opts;  /* what seq was built with              */
	const struct model_seq *decode; /* generate: a decode step run after seq,
					 * decode_steps times; NULL none        */
	const struct model_opts *decode_opts;
	uint32_t decode_steps;
	double launch_ns;               /* CPU time between two launches, ns;
					 * MODEL_LAUNCH_AUTO: model_cpu_ns() of
					 * each kernel                          */
	const char *device;             /* the header's device: what was built   */
};

/* Called for every kernel as it is written, in order: mk the kernel, peer
 * 1 when it stands for a peer's work (the pipeline bubble). */
typedef void (*model_program_kernel_fn)(void *ctx, const struct model_kernel *mk, int peer);

/* The GPUs a built step of o runs in lockstep, the header's world_size:
 * dp x tp x pp x cp of a training step; 0 for inference and the serving
 * engines, whose replicas do not wait for each other and whose passes are
 * too short for the boards' sustained clocks to part (timeline_pace). */
uint32_t model_program_world(const struct model_opts *o);

/* Writes p to w (header, records, trailer; w is left finished).  fn, when
 * not NULL, sees each kernel written.  Returns 0 or a negative trace_*
 * code (TRACE_EINVAL: a kernel the trace format cannot hold). */
int model_program_write(const struct model_program *p, struct trace_writer *w,
			model_program_kernel_fn fn, void *ctx);

#endif
