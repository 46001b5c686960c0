/*
 * graphs.h - the kernels captured into CUDA graphs, for their replays.
 *
 * A launch made while its stream captures a graph (TRACE_KF_CAPTURED) runs
 * nothing; the graph's replays run it later, as kernels a trace knows less
 * about.  CUPTI reports each kernel of a replay by name and grid alone: no
 * library call names its shape (cuBLAS was called at the capture, not at
 * the replay).  Without CUPTI a replay is one record timed whole, its
 * kernels unknown.  The capture is where the shapes are: a captured GEMM's
 * launch names its cuBLAS call (lib_call) as any launch does.  This table
 * keeps, per capture (the kernel record's graph id, trace.h), its launches
 * in capture order with the library call each named, and answers:
 *
 *  - for a kernel of a replay (its record's replay is the replay's seq):
 *    the library call of the captured launch it is, the first launch of
 *    its graph's capture with its name, grid and block that the same
 *    replay has not matched yet (graphs_replayed_lib).  Kernels of one
 *    configuration keep their capture order in a replay: a graph captured
 *    from streams keeps each stream's order in its edges, and CUPTI reports
 *    a stream's kernels in the order they ran;
 *  - for a replay timed whole: its graph's captured launches
 *    (graphs_capture_launches).
 *
 * Must never: match a replayed kernel to a launch of another name, grid or
 * block (a kernel it cannot match keeps what its own record says); grow
 * with the replays (memory is the captured launches, once per capture, and
 * a cursor per configuration of each replay whose kernels are still
 * coming, at most GRAPHS_LIVE_REPLAYS of them).
 */
#ifndef SURFER_GRAPHS_H
#define SURFER_GRAPHS_H

#include <stddef.h>
#include <stdint.h>

#include "analyzer/ktable.h"
#include "trace/trace.h"

/* Replays whose kernels are still coming, at most: past it (reports CUPTI
 * lost leave their replays unfinished) every cursor is dropped and the
 * replays in flight start matching again from their captures' first
 * launches. */
#define GRAPHS_LIVE_REPLAYS 4096

/* A captured launch: its record and the library call it named. */
struct graph_launch {
	struct trace_kernel k;
	struct ktable_lib lib;        /* kind KTABLE_LIB_NONE: it named none     */
	uint32_t next_same;           /* the capture's next launch of the same
				       * name, grid and block; UINT32_MAX none  */
};

struct graphs;

struct graphs *graphs_new(void);
void graphs_free(struct graphs *g);

/* Adds a captured launch (k->graph its capture, nonzero) with the library
 * call it named (NULL none).  0, or TRACE_ENOMEM. */
int graphs_capture(struct graphs *g, const struct trace_kernel *k, const struct ktable_lib *lib);

/* The library call of the captured launch a replayed kernel is (k->graph
 * and k->replay nonzero), NULL when the capture is not in the trace, no
 * launch of it matches, or that launch named none.  Each call consumes the
 * launch it matched for k's replay.  TRACE_ENOMEM is not reported: a
 * replay without a cursor matches nothing. */
const struct ktable_lib *graphs_replayed_lib(struct graphs *g, const struct trace_kernel *k);

/* The launches captured for graph id, in capture order (*n of them); NULL
 * and 0 when the trace holds none. */
const struct graph_launch *graphs_capture_launches(const struct graphs *g, uint64_t id, size_t *n);

/* Forgets every replay's cursors: a second reading of the trace matches
 * its replays' kernels again from the start. */
void graphs_rewind(struct graphs *g);

#endif
