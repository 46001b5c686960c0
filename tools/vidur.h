/*
 * vidur.h - the layout of Vidur's operator measurements
 * (vidur/compute/<gpu>/<org>/<model>/mlp.csv), walked once for every
 * benchmark that reads them.
 */
#ifndef SURFER_VIDUR_H
#define SURFER_VIDUR_H

#include "gpu_specs/gpu.h"

/* Called with the path of one mlp.csv and the GPU it was measured on;
 * returns 0, -ENOENT when the file is absent (ignored), or another
 * negative code, which stops the walk. */
typedef int (*vidur_csv_fn)(void *ctx, const char *path, const struct gpu_spec *g);

/* Calls fn for every <root>/vidur/compute/<sub>/<org>/<model>/mlp.csv, with
 * gpu (a name gpu_find knows) as the GPU.  Returns 0, -ENOENT when the
 * folder or the GPU is unknown, or the first other error fn returned. */
int vidur_each_csv(const char *root, const char *sub, const char *gpu, vidur_csv_fn fn,
		   void *ctx);

#endif
