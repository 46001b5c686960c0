/*
 * fuzz_weights.c - the tile model's weights reader on any bytes, as
 * surfer-analyze --weights FILE and surfer-bench --weights run it:
 * tile_model_load_blob(), then, on what it accepts, a GEMM's tile pick
 * and its prediction on a board with a table of its own (the A100 PCIe)
 * and on one that takes a table of its architecture or of our own GPUs
 * (an H800), with and without Hopper held out.
 */
#include "tests/fuzz/fuzz.h"

#include <string.h>

#include "gpu_specs/figures.h"
#include "gpu_specs/gpu.h"
#include "predictor/predict.h"
#include "predictor/tile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tile_model *m;
	if (tile_model_load_blob(data, size, &m) != 0)
		return 0;
	static const char *const gpus[] = {"a100-pcie-40", "h800"};
	struct pred_kernel k;
	memset(&k, 0, sizeof(k));
	k.op = PRED_OP_GEMM;
	k.dtype = GPU_DT_FP32;
	k.batch = 16;
	k.m = 512;
	k.n = 512;
	k.k = 64;
	for (int held = 0; held < 2; held++) {
		gpu_figures_hold_out(held ? 90 : 0);
		for (size_t i = 0; i < sizeof(gpus) / sizeof(gpus[0]); i++) {
			const struct gpu_spec *g = gpu_find(gpus[i]);
			struct tile_shape t;
			double f[TILE_NFEAT], base;
			(void)tile_pick_source(m, g);
			(void)tile_pick_lookup(m, &k, g, &t);
			(void)tile_features(m, &k, g, NULL, f, &base);
		}
	}
	gpu_figures_hold_out(0);
	tile_model_free(m);
	return 0;
}
