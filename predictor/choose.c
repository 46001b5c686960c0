/*
 * choose.c - the `auto` rule: which method predicts a kernel.
 *
 *   1. origin and target are the same GPU, with a measured time: identity.
 *   2. the tile model covers the kernel (a GEMM, elementwise, softmax or
 *      norm kernel with its shape, and weights for that family): the tile
 *      model, as a ratio when an origin time exists.
 *   3. an origin time exists: Habitat's wave scaling.
 *   4. otherwise the roofline.
 *
 * Why the tile model before wave scaling: held out one GPU at a time from
 * NeuSight's five (P4, P100, T4, V100, A100-PCIE-40GB; the model trained on
 * the other four) and predicting it from each of the others, the tile model
 * ratio had the lower mean error on GEMMs and on vector operators; see the
 * table `make accuracy` writes (README, "Accuracy").  Wave scaling is kept
 * for what the model does not describe (convolutions, attention, unknown
 * kernels), where it still beats the plain roofline given a measurement.
 */
#include "predictor/choose.h"
#include "predictor/tile.h"

enum pred_method pred_choose(const struct pred_kernel *k, const struct gpu_spec *origin,
			     const struct gpu_spec *target)
{
	int measured = origin && k->origin_ns > 0;
	if (measured && origin == target)
		return PRED_IDENTITY;
	int fam = tile_family_of(k);
	if (fam >= 0 && tile_model_has(fam)) {
		double f[TILE_NFEAT], base;
		if (tile_features(k, target, NULL, f, &base) >= 0 &&
		    (!measured || tile_features(k, origin, NULL, f, &base) >= 0))
			return PRED_MLP;
	}
	if (measured)
		return PRED_WAVE;
	return PRED_ROOFLINE;
}
