/*
 * calibrate.h - `surfer-bench calibrate`: the interval table and its
 * held-out coverage (tools/lab/calibrate.c).
 */
#ifndef SURFER_BENCH_CALIBRATE_H
#define SURFER_BENCH_CALIBRATE_H

#include "tools/lab/bench_args.h"

/* surfer-bench calibrate [--emit] [--interval P] DIR|FILE.csv...: prints
 * predictor/interval_table.c (--emit) or the coverage table; returns the
 * exit code (0, or 2 for bad input). */
int bench_calibrate_main(const struct bench_args *a);

#endif
