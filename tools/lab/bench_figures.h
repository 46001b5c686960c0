/*
 * bench_figures.h - `surfer-bench figures` (tools/lab/bench_figures.c).
 */
#ifndef SURFER_BENCH_FIGURES_H
#define SURFER_BENCH_FIGURES_H

#include "tools/lab/bench_args.h"

/* Prints every GPU's figures with their provenance and the held-out check
 * of each rule; returns the exit code (0). */
int bench_figures_main(const struct bench_args *a);

#endif
