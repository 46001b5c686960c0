/*
 * bench_power.h - `surfer-bench power`: the tile model's FP32 power cap
 * against measured FMA runs (tools/lab/bench_power.c).
 */
#ifndef SURFER_BENCH_POWER_H
#define SURFER_BENCH_POWER_H

#include "tools/lab/bench_args.h"

/* Runs the subcommand with the options of a.  Prints the table
 * on stdout; returns the exit code (0, or 2 for bad input or no data). */
int bench_power_main(const struct bench_args *a);

#endif
