/*
 * bench_e2e.h - the `e2e` and `comm` subcommands of surfer-bench.
 */
#ifndef SURFER_BENCH_E2E_H
#define SURFER_BENCH_E2E_H

#include <stddef.h>
#include <stdint.h>

#include "tools/lab/bench_args.h"

/* surfer-bench e2e --labels DIR --configs DIR [...].  Prints the
 * comparison; returns the exit code (0, or 2 for bad input). */
int bench_e2e_main(const struct bench_args *a);

/* surfer-bench comm DIR...: collective times against NCCL measurements
 * (the directories are a's operands). */
int bench_comm_main(const struct bench_args *a);

/* Refits the collective model's constants (struct comm_params) the way
 * comm.c's were fitted, on the node-local NCCL measurements of 1 MB and
 * more under dirs (DIR/<GPU>/{all_reduce,send_recv}.csv: vidur's and
 * PipeWeave's folders), leaving out every GPU whose compute capability is
 * among the ncc in cc_out.  A constant no measurement is left for keeps
 * the compiled-in value, but NVLS's efficiency, which takes the ring's.
 * err_pct receives the fit's mean error (%) of ring, NVLS, send/recv,
 * PCIe and bridged-pair measurements (NaN: none).  0, or -1 with err
 * when nothing is left to fit on. */
struct comm_params;
int bench_comm_fit(const char *const *dirs, size_t ndirs, const uint32_t *cc_out, size_t ncc,
		   struct comm_params *p, double err_pct[5], char *err, size_t errlen);

#endif
