/*
 * bench_rowwise.h - `surfer-bench rowwise`: the FP32 row-wise model
 * (predictor/rowwise.c) fitted with each architecture held out, against
 * the tile model and the roofline (tools/lab/bench_rowwise.c).
 */
#ifndef SURFER_BENCH_ROWWISE_H
#define SURFER_BENCH_ROWWISE_H

#include <stddef.h>
#include <stdint.h>

#include "tools/lab/bench_args.h"

/* Runs the subcommand with the options of a: the tables on stdout, or with
 * --emit the constants fitted on every architecture as rowwise.c's
 * initializer.  Returns the exit code (0, or 2 for bad input or
 * unreadable data). */
int bench_rowwise_main(const struct bench_args *a);

struct rowwise_params;

/* The row-wise model fitted (rowwise_fit()) on the layer-norm and softmax
 * rows under path (NeuSight's layout, with its host floor: its test
 * shapes, as make accuracy and bench-e2e hold them) of every GPU whose
 * compute capability is not cc_out.  0 with *p, or -1 with a reason in
 * err (unreadable, no such row left). */
int bench_rowwise_fit_heldout(const char *path, uint32_t cc_out, struct rowwise_params *p,
			      char *err, size_t errlen);

#endif
