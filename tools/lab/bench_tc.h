/*
 * bench_tc.h - `surfer-bench tensorcore`, the held-out accuracy of the
 * tensor-core GEMM model (tools/lab/bench_tc.c).
 */
#ifndef SURFER_BENCH_TC_H
#define SURFER_BENCH_TC_H

#include <stddef.h>
#include <stdint.h>

#include "tools/lab/bench_args.h"

/* Runs the subcommand with the options of a.  Prints the table (or the
 * fitted constants with --emit) on stdout; returns the exit code (0, or 2
 * for bad input or unreadable data). */
int bench_tc_main(const struct bench_args *a);

struct tcgemm_params;

/* Fits the tensor-core GEMM constants as `surfer-bench tensorcore --emit`
 * does (the same starting point and variant), on the measured GEMMs under
 * root (the shared data folder's layout; PipeWeave's test file left out)
 * of every GPU whose compute capability is none of the ncc in cc_out,
 * whose MAMF figures are left out of the rule's fit too: the constants a
 * bench predicts that architecture with.  Returns 0 with *p, or -1 with a
 * reason in err (no GEMM data under root, a read error). */
int bench_tc_fit_heldout(const char *root, const uint32_t *cc_out, size_t ncc,
			 struct tcgemm_params *p, char *err, size_t errlen);

/* Where the fits find our own measurements (DIR/<GPU>/ours/gemm.csv; data
 * is the repository's, as run from its root); none, the default: the
 * shared data alone. */
void bench_tc_own_data(const char *dir);

#endif
