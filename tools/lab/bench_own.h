/*
 * bench_own.h - `surfer-bench own`: our own measurements of a GPU
 * (tools/gpu/kernels.py's ours/{gemm,sdpa,decode,vec,model}.csv, committed
 * under data/<gpu>/ours) against the tensor-core GEMM, fused attention,
 * vector-op and model-path predictions with the GPU's architecture held
 * out of every fit (tools/lab/bench_own.c).
 */
#ifndef SURFER_BENCH_OWN_H
#define SURFER_BENCH_OWN_H

#include <stddef.h>
#include <stdint.h>

#include "predictor/predict.h"
#include "tools/lab/bench_args.h"
#include "trace/csv.h"

/* Runs the subcommand with the options of a: --dataset DIR (the ours/
 * folder), --data DIR (the shared data folder the held-out constants are
 * fitted on; absent: the compiled-in ones, reported as not held out),
 * --gpu GPU (default: the files' Device column), --rows (every row).
 * Prints the tables on stdout; returns the exit code (0, or 2 for bad
 * input or unreadable data). */
int bench_own_main(const struct bench_args *a);

struct tcgemm_params;
struct attn_params;
struct vecop_params;

/* The constants a GPU of compute capability cc is predicted with when its
 * architecture is held out, fitted on the measurements under data (the
 * shared data folder) of every other GPU as `make bench-serving` fits
 * them: the tensor-core GEMM constants (bench_tc_fit_heldout), the
 * attention main loop's efficiency on those (attention_fit_mma_eff), the
 * vector-op constants (bench_vec_fit_heldout; the compiled-in ones where
 * no row of cc is among theirs).  Returns 0, or -1 with a reason in err
 * (*tc, *at and *vp are then the compiled-in ones). */
int bench_heldout_constants(const char *data, uint32_t cc, struct tcgemm_params *tc,
			    struct attn_params *at, struct vecop_params *vp, char *err, size_t errlen);

/* The kernels kernels.py times for one row of its file kind ("gemm",
 * "sdpa", "decode" or "vec"; v the row's numbers in the file's column
 * order: gemm m, n, k; sdpa batch, heads, seq, head_dim, and 1 for
 * "fwd+bwd"; decode batch, heads, kv_heads, head_dim, context; vec rows,
 * hidden) into k[0..max): a GEMM (dtype given), a causal FlashAttention-2
 * forward (and for fwd+bwd its backward's four kernels), a decode
 * attention call, a BF16 vector operator of op (add, mul, gelu, silu,
 * softmax, layer_norm, rms_norm) with its bytes.  Returns how many, or -1
 * for a kind, dtype or op it does not know or numbers out of range. */
int bench_own_kernels(const char *kind, const char *op_or_dtype, const double *v, size_t nv,
		      struct pred_kernel *k, size_t max);

/* Whether the current row of a kernels.py file was timed "queued" (its
 * calls back to back behind a spin kernel: the kernel's time alone) by its
 * timing column col; -1 (a file without the column, as the H200's of
 * 2026-12-04) or any other value: timed alone, each call between its two
 * events, the host's dispatch in the time. */
int bench_own_row_queued(const struct csv_reader *csv, int col);

#endif
