/*
 * bench_vec.h - `surfer-bench vec`: held-out accuracy of the vector-op
 * model (predictor/vecop.c) against the roofline and the tile model
 * (tools/lab/bench_vec.c).
 */
#ifndef SURFER_BENCH_VEC_H
#define SURFER_BENCH_VEC_H

#include "tools/lab/bench_args.h"

/* Runs the subcommand with the options of a.  Prints the
 * table (or the fitted constants with --emit) on stdout; returns the exit
 * code (0, or 2 for bad input or unreadable data). */
int bench_vec_main(const struct bench_args *a);

#endif
