/*
 * bench_e2e.h - the `e2e` and `comm` subcommands of surfer-bench.
 */
#ifndef SURFER_BENCH_E2E_H
#define SURFER_BENCH_E2E_H

/* surfer-bench e2e --labels DIR --configs DIR [...]: argv[0] is "e2e".
 * Prints the comparison; returns the exit code (0, or 2 for bad input). */
int bench_e2e_main(int argc, char **argv);

/* surfer-bench comm DIR...: collective times against NCCL measurements. */
int bench_comm_main(int argc, char **argv);

#endif
