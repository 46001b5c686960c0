/*
 * choose.c - the `auto` rule (provisional until the tile model lands):
 * wave scaling when an origin time exists, the roofline otherwise.
 */
#include "predictor/choose.h"

enum pred_method pred_choose(const struct pred_kernel *k, const struct gpu_spec *origin,
			     const struct gpu_spec *target)
{
	(void)target;
	if (origin && k->origin_ns > 0)
		return PRED_WAVE;
	return PRED_ROOFLINE;
}
