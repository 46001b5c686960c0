/*
 * bench_vec.h - `surfer-bench vec`: held-out accuracy of the vector-op
 * model (predictor/vecop.c) against the roofline and the tile model
 * (tools/bench_vec.c).
 */
#ifndef SURFER_BENCH_VEC_H
#define SURFER_BENCH_VEC_H

/* Runs the subcommand; argv[0] is the subcommand's name.  Prints the
 * table (or the fitted constants with --emit) on stdout; returns the exit
 * code (0, or 2 for bad input or unreadable data). */
int bench_vec_main(int argc, char **argv);

#endif
