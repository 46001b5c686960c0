/*
 * bench_conv.h - `surfer-bench conv`, the held-out accuracy of the
 * convolution model (tools/lab/bench_conv.c).
 */
#ifndef SURFER_BENCH_CONV_H
#define SURFER_BENCH_CONV_H

#include "tools/lab/bench_args.h"

/* Runs the subcommand with the options of a: the table (or the fitted
 * constants with --emit) on stdout; returns the exit code (0, or 2 for bad
 * input or unreadable data). */
int bench_conv_main(const struct bench_args *a);

#endif
