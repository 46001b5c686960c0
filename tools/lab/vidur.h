/*
 * vidur.h - Vidur's operator measurements
 * (vidur/compute/<gpu>/<org>/<model>/mlp.csv), walked and parsed once for
 * every benchmark that reads them (with trace/csv.h).
 */
#ifndef SURFER_VIDUR_H
#define SURFER_VIDUR_H

#include <stdint.h>

#include "gpu_specs/gpu.h"

/* One row of an mlp.csv: the model's shape and the median time (ms) of each
 * operator asked for, in the order asked (0 when the cell is empty).  The
 * numbers are the cells as strtod reads them. */
#define VIDUR_MAXOPS 8
struct vidur_row {
	double n_head, n_kv_head, n_embd, n_expanded_embd;
	double num_tokens, tp;          /* num_tensor_parallel_workers */
	int gated;                      /* use_gated_mlp is "True"     */
	double median_ms[VIDUR_MAXOPS];
};

/* The four projection GEMMs of a decoder layer, in the order of
 * vidur_gemm_ops, as (input features, output features) per token, from the
 * model's columns with head_dim = n_embd / n_head and tp the tensor-
 * parallel degree:
 *   attn_pre_proj  n_embd -> (n_head + 2 n_kv_head) head_dim / tp
 *   attn_post_proj n_head head_dim / tp -> n_embd
 *   mlp_up_proj    n_embd -> n_expanded_embd (x2 gated) / tp
 *   mlp_down_proj  n_expanded_embd / tp -> n_embd
 * (these give 220-250 TFLOP/s on A100 and 110-120 on A40 at 4096 tokens,
 * 70-80% of peak, which confirms the reading).  Returns 0, or -1 when the
 * row lacks heads, width or tp. */
extern const char *const vidur_gemm_ops[4];
int vidur_gemm_shapes(const struct vidur_row *r, uint64_t in_out[4][2]);

/* Called per row with the GPU it was measured on; a nonzero return stops
 * the walk and is returned. */
typedef int (*vidur_row_fn)(void *ctx, const struct vidur_row *r, const struct gpu_spec *g);

/* Calls fn for every row of every <root>/vidur/compute/<sub>/<org>/<model>/
 * mlp.csv, with gpu (a name gpu_find knows) as the GPU and the medians of
 * time_stats.<ops[i]>.median (nops <= VIDUR_MAXOPS).  Returns 0, -ENOENT
 * when the folder or the GPU is unknown, -EINVAL when a file lacks a
 * column or is not CSV (the file, and the line, in err), or what fn
 * returned (err empty). */
int vidur_each_row(const char *root, const char *sub, const char *gpu, const char *const *ops,
		   int nops, vidur_row_fn fn, void *ctx, char *err, size_t errlen);

/* The same over one GPU's folder dir (<org>/<model>/mlp.csv below it),
 * measured on g. */
int vidur_each_row_in(const char *dir, const struct gpu_spec *g, const char *const *ops,
		      int nops, vidur_row_fn fn, void *ctx, char *err, size_t errlen);

#endif
