/*
 * vidur.h - Vidur's operator measurements
 * (vidur/compute/<gpu>/<org>/<model>/mlp.csv), walked and parsed once for
 * every benchmark that reads them (with trace/csv.h).
 */
#ifndef SURFER_VIDUR_H
#define SURFER_VIDUR_H

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
