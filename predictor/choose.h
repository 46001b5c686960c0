/*
 * choose.h - the rule `--method auto` uses to pick a method per kernel.
 */
#ifndef SURFER_CHOOSE_H
#define SURFER_CHOOSE_H

#include "predictor/predict.h"

/* The method `auto` uses for k with predictor p (whose weights say which
 * families the tile model covers; never PRED_AUTO).  origin is NULL when
 * no origin time exists. */
enum pred_method pred_choose(const struct predictor *p, const struct pred_kernel *k,
			     const struct gpu_spec *origin, const struct gpu_spec *target);

#endif
