/*
 * bench_published.h - the `published` subcommand of surfer-bench: published
 * training step times predicted from the --model flags that express them.
 */
#ifndef SURFER_BENCH_PUBLISHED_H
#define SURFER_BENCH_PUBLISHED_H

#include "tools/lab/bench_args.h"

/* surfer-bench published --data DIR [--before]: prints a markdown table of
 * the runs (measured, predicted, error, missing features, flags) and the
 * mean errors inside one node and across nodes.  Returns the exit code (0,
 * or 2 for bad input). */
int bench_published_main(const struct bench_args *a);

#endif
