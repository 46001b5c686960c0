/*
 * bench_vec.h - `surfer-bench vec`: held-out accuracy of the vector-op
 * model (predictor/vecop.c) against the roofline and the tile model
 * (tools/lab/bench_vec.c).
 */
#ifndef SURFER_BENCH_VEC_H
#define SURFER_BENCH_VEC_H

#include <stddef.h>
#include <stdint.h>

#include "tools/lab/bench_args.h"

struct vecop_params;

/* Runs the subcommand with the options of a.  Prints the
 * table (or the fitted constants with --emit) on stdout; returns the exit
 * code (0, or 2 for bad input or unreadable data). */
int bench_vec_main(const struct bench_args *a);

/* Fits the vector-op constants as `surfer-bench vec --emit` does, on the
 * rows under root (the shared data folder's layout: Vidur's 16-bit
 * operators, NeuSight's FP32 vector operators) of every GPU whose compute
 * capability is none of the ncc in cc_out: the bandwidth exponent on
 * NeuSight's rows, eff and floor per class on Vidur's rows, or, when none
 * is left, on NeuSight's by their bytes.  Returns 0 with *p; 1, *p
 * untouched, when no row is of those GPUs (the compiled-in constants,
 * fitted on these rows, never saw them); -1 with a reason in err (no
 * rows under root, none left, a read error). */
int bench_vec_fit_heldout(const char *root, const uint32_t *cc_out, size_t ncc,
			  struct vecop_params *p, char *err, size_t errlen);

#endif
