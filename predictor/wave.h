/*
 * wave.h - Habitat's wave scaling of a measured kernel time from the GPU it
 * was measured on to another GPU, with the defects of the public
 * implementation fixed (see wave.c).
 */
#ifndef SURFER_WAVE_H
#define SURFER_WAVE_H

#include "predictor/predict.h"

/* Gamma, the memory-boundedness of k (0 = compute-bound, 1 = memory-bound),
 * from its arithmetic intensity and g's ridge point when flops and bytes are
 * known, else the estimate for its op class that wave.c documents.  Sets
 * *from_intensity (may be NULL) to 1 when the intensity was used. */
double wave_gamma(const struct pred_kernel *k, const struct gpu_spec *g, int *from_intensity);

/* Scales k->origin_ns from origin to target.  Returns 0 with out filled
 * (method PRED_WAVE), or -1 when there is no origin time or a GPU is
 * missing. */
int wave_predict(const struct pred_kernel *k, const struct gpu_spec *origin,
		 const struct gpu_spec *target, struct pred_result *out);

#endif
