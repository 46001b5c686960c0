/*
 * bench_e2e.h - the `e2e` and `comm` subcommands of surfer-bench.
 */
#ifndef SURFER_BENCH_E2E_H
#define SURFER_BENCH_E2E_H

#include "tools/lab/bench_args.h"

/* surfer-bench e2e --labels DIR --configs DIR [...].  Prints the
 * comparison; returns the exit code (0, or 2 for bad input). */
int bench_e2e_main(const struct bench_args *a);

/* surfer-bench comm DIR...: collective times against NCCL measurements
 * (the directories are a's operands). */
int bench_comm_main(const struct bench_args *a);

#endif
