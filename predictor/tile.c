/*
 * tile.c - placeholder until the tile model lands: reports that it cannot
 * describe any kernel, so callers fall back to other methods.
 */
#include "predictor/tile.h"

int tile_predict(const struct pred_kernel *k, const struct gpu_spec *origin,
		 const struct gpu_spec *target, struct pred_result *out)
{
	(void)k; (void)origin; (void)target; (void)out;
	return -1;
}
