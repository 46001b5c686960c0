/*
 * tile.h - the tile-level model: tile shapes from kernel names and launch
 * geometry, NeuSight-style features, an MLP predicting utilisation, bounded
 * by the roofline; from scratch or as an origin/target ratio.
 */
#ifndef SURFER_TILE_H
#define SURFER_TILE_H

#include "predictor/predict.h"

/* Predicts k on target with the tile model.  When origin is not NULL and
 * k->origin_ns > 0 the model is used as a ratio (T_o * model(t) / model(o)).
 * Returns 0, or a negative code when the model cannot describe k. */
int tile_predict(const struct pred_kernel *k, const struct gpu_spec *origin,
		 const struct gpu_spec *target, struct pred_result *out);

#endif
