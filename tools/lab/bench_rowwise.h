/*
 * bench_rowwise.h - `surfer-bench rowwise`: the FP32 row-wise model
 * (predictor/rowwise.c) fitted with each architecture held out, against
 * the tile model and the roofline (tools/lab/bench_rowwise.c).
 */
#ifndef SURFER_BENCH_ROWWISE_H
#define SURFER_BENCH_ROWWISE_H

#include "tools/lab/bench_args.h"

/* Runs the subcommand with the options of a: the tables on stdout, or with
 * --emit the constants fitted on every architecture as rowwise.c's
 * initializer.  Returns the exit code (0, or 2 for bad input or
 * unreadable data). */
int bench_rowwise_main(const struct bench_args *a);

#endif
