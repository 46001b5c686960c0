/*
 * bench_tc.h - `surfer-bench tensorcore`, the held-out accuracy of the
 * tensor-core GEMM model (tools/lab/bench_tc.c).
 */
#ifndef SURFER_BENCH_TC_H
#define SURFER_BENCH_TC_H

#include "tools/lab/bench_args.h"

/* Runs the subcommand with the options of a.  Prints the table (or the
 * fitted constants with --emit) on stdout; returns the exit code (0, or 2
 * for bad input or unreadable data). */
int bench_tc_main(const struct bench_args *a);

#endif
