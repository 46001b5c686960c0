/*
 * bench_conv.h - `surfer-bench conv`, the held-out accuracy of the
 * convolution model (tools/lab/bench_conv.c).
 */
#ifndef SURFER_BENCH_CONV_H
#define SURFER_BENCH_CONV_H

#include <stddef.h>
#include <stdint.h>

#include "tools/lab/bench_args.h"

/* Runs the subcommand with the options of a: the table (or the fitted
 * constants with --emit) on stdout; returns the exit code (0, or 2 for bad
 * input or unreadable data). */
int bench_conv_main(const struct bench_args *a);

struct conv_params;

/* Fits the convolution model's constants on the NeuSight-layout
 * convolution rows under path of every GPU whose compute capability is
 * not cc_out (what `surfer-bench accuracy --heldout-conv` predicts its
 * target with), starting from the compiled-in ones.  Returns the number of
 * pairs fitted (then *p holds the fit), 0 when path has no two GPUs of
 * other architectures with convolutions in common (*p untouched), or -1
 * with a reason in err. */
long bench_conv_fit_heldout(const char *path, uint32_t cc_out, struct conv_params *p, char *err,
			    size_t errlen);

#endif
