/*
 * bench_tile_scale.h - `surfer-bench tile-scale`: Hopper's FP32 GEMM tile
 * scales (predictor/tile.c's tile_own_scale()) from our own measurements,
 * as predictor/tile_sm90_scale.c (tools/lab/bench_tile_scale.c).
 */
#ifndef SURFER_BENCH_TILE_SCALE_H
#define SURFER_BENCH_TILE_SCALE_H

#include "tools/lab/bench_args.h"

/* Runs the subcommand with the options of a: the file on stdout; returns
 * the exit code (0, or 2 for bad input or too few rows). */
int bench_tile_scale_main(const struct bench_args *a);

#endif
