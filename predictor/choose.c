/*
 * choose.c - the `auto` rule: which method predicts a kernel.
 *
 *   1. origin and target are the same GPU, with a measured time: identity.
 *   1b. a tensor-core GEMM (TF32/FP16/BF16/FP8/INT8) of known shape: the
 *      tensor-core GEMM model (tcgemm.c), as a ratio when an origin time
 *      exists.
 *   1c. a fused attention kernel whose shape a program builder or a
 *      profiler trace's op gave (pred_kernel.attn): the attention model
 *      (attention.c), as a ratio when an origin time exists.  Kernels the
 *      recorder saw have no shape (no library call names it) and keep
 *      wave scaling (4).
 *   1d. a 16-bit (FP16/BF16) convolution of known implicit GEMM (a
 *      recorded or imported cuDNN call, any pass): the tensor-core GEMM
 *      model on that GEMM (predict_conv_as_gemm()), as a ratio when an
 *      origin time exists.  DeepBench's FP16 convolutions of tensor-core
 *      math, V100 <-> T4 (one cuDNN, 7.6.2), the model's constants
 *      fitted without the target's architecture (surfer-bench
 *      conv-train): forward 41.1 -> 20.7 %, gradient of the inputs 37.2
 *      -> 20.8 %, of the filters 62.3 -> 53.5 % (its reduction split
 *      over idle SMs as the FP32 model's, tcgemm.c) against the roofline
 *      ratio they took before (the FLOP/s ratio 25.3 / 23.2 / 65.1 %).
 *      BF16 takes it as the same kernels in another type; TF32 is not
 *      measured and keeps the roofline (3).
 *   2a. an FP32 layer norm, softmax or log-softmax forward kernel of known
 *      rows and columns on an NVIDIA GPU (a config's, a profile's whose
 *      op gave them), whose traffic outlasts its kind's host floor where
 *      the times hold NeuSight's (rowwise_covers()): the row-wise model
 *      (rowwise.c), as a ratio when an origin time exists.  `surfer-bench
 *      rowwise`, NeuSight's test shapes, each architecture out of the
 *      model's fit and the tile model's training: layer norm from the
 *      shape 6.9 % (the tile model 13.9, the roofline 31.2), from another
 *      GPU's time 8.3 % (14.0); softmax 14.0 % (24.8, 27.8) and 13.9 %
 *      (21.0); on NeuSight's sweep, mostly kernels below the floor, 13.6 /
 *      14.6 % against the tile model's 13.9 / 16.8; our H100's and H200's
 *      rows (no host floor: every size), no Hopper in either fit: layer
 *      norm 7.0 / 17.3 % (the tile model 21.0 / 28.4), softmax 12.3 /
 *      22.9 % (19.2 / 30.5).
 *   2. the tile model covers the kernel (an FP32 GEMM, elementwise, softmax
 *      or norm kernel whose shape is known, and weights for that family):
 *      the tile model, as a ratio when an origin time exists (across
 *      architectures pulled toward the model's own time: predict.c,
 *      struct pred_shrink).
 *   2b. a 16-bit (FP16/BF16) elementwise, norm, softmax or reduction
 *      kernel of known bytes: the memory-bound vector-op model (vecop.c),
 *      as a ratio when an origin time exists.
 *   3. a convolution the convolution model describes (conv.c: FP32 with
 *      its implicit GEMM's shape): the model, as a ratio when an origin
 *      time exists (across architectures a whole convolution's pulled
 *      toward the model's shape time: predict.c, conv_pull()), else from
 *      the shape alone; another convolution with an origin time and known
 *      FLOPs and bytes: the roofline ratio.
 *   4. any other kernel with an origin time: Habitat's wave scaling.
 *   5. otherwise the roofline.
 *
 * The numbers behind the rule (`make accuracy`: NeuSight's five GPUs, each
 * held out in turn, the tile model trained on the other four, predicted
 * from each of the others; mean of the per-pair MAPE):
 *   - tile model vs wave scaling, GEMMs 26.2% vs 56.6%, vector operators
 *     21.6% vs 86.1%; the tile model was the better of the two for every
 *     operator, and from scratch (21.4% / 15.0%) it beats its own ratio
 *     form, but only the ratio follows the measurement (predict.h);
 *   - tensor-core GEMMs (`surfer-bench tensorcore`: 79,784 measured FP8
 *     and FP16 GEMMs on H20, H800, A100, A40, V100, T4, each GPU held out
 *     in turn): tcgemm from the shape 17.8% mean MAPE, its ratio form from
 *     another GPU's time 21.6%, wave scaling 28.2%, roofline 41.2%; the
 *     shape alone was better than the ratio on 5 of the 6 GPUs, but only
 *     the ratio follows the measurement: a change that makes the origin's
 *     GEMM slower must make the prediction slower (the CI gate), so the
 *     ratio form is used whenever a measurement exists; FP8 GEMMs in the
 *     tile-wave form (tcgemm.c): H20 to H800 and back on PipeWeave's test
 *     file 6.2% / 6.2% (FLOP/s ratio 54.6% / 149%);
 *   - 16-bit vector operators (`make bench-vec`: Vidur's FP16 norm, add,
 *     activation and rope on A100 80GB and A40, constants fitted on one
 *     GPU, the other predicted): vecop from the shape 31.4% MAPE against
 *     the bare roofline's 37.6% (the tile model, fed their bytes, gives
 *     the roofline's numbers: its MLP saturates at utilisation 1 there);
 *     from the other GPU's time, vecop's ratio 32.3% against wave
 *     scaling's 43.1% and the roofline ratio's 48.1%;
 *   - convolutions (`surfer-bench conv --data ../shared/data/neusight/
 *     kernels/conv`: NeuSight's FP32 sweep, about 4,950 shapes on P4, P100,
 *     T4, V100, each architecture out of every fit; mean of the per-pair
 *     MAPE): from another GPU's time the convolution model's ratio 14.0%,
 *     pulled toward its shape time across architectures (auto) 12.8%,
 *     the roofline ratio 21.1%, the FLOP/s ratio 21.1%; per held-out
 *     architecture P100 14.4 / 14.7 / 20.4%, P4 14.9 / 13.2 / 21.3%, T4
 *     13.5 / 11.3 / 21.1%, V100 13.2 / 11.9 / 21.5% (ratio / pulled /
 *     roofline ratio).  From the shape alone
 *     (no origin time: a config's convolution) the model's own time
 *     21.8% against the roofline's 43.6%: P100 25.7 / 43.6%, P4 22.9 /
 *     41.1%, T4 17.2 / 47.8%, V100 21.6 / 42.0% (docs/conv.md).  16-bit
 *     (tensor-core) convolutions go to the tensor-core GEMM model (1d);
 *     TF32 ones keep the roofline: nothing measured them.
 */
#include "predictor/choose.h"
#include "predictor/attention.h"
#include "predictor/conv.h"
#include "predictor/rowwise.h"
#include "predictor/tcgemm.h"
#include "predictor/tile.h"
#include "predictor/vecop.h"

enum pred_method pred_choose(const struct predictor *p, const struct pred_kernel *k,
			     const struct gpu_spec *origin, const struct gpu_spec *target)
{
	const struct tile_model *tm = predictor_tile(p);
	const struct tcgemm_params *tc = predictor_tcgemm(p);
	const struct vecop_params *vp = predictor_vecop(p);
	const struct rowwise_params *rw = predictor_rowwise(p);
	int measured = origin && k->origin_ns > 0;
	int vec16 = vecop_class_of(k) >= 0 &&
		    (k->dtype == GPU_DT_FP16 || k->dtype == GPU_DT_BF16);
	if (measured && origin == target)
		return PRED_IDENTITY;
	if (k->op == PRED_OP_GEMM && tcgemm_model_ns(k, target, tc) > 0)
		return PRED_TCGEMM;
	if (k->op == PRED_OP_ATTENTION && attention_model_ns(k, target, tc) > 0 &&
	    (!measured || attention_model_ns(k, origin, tc) > 0))
		return PRED_ATTENTION;
	if (k->op == PRED_OP_CONV && (k->dtype == GPU_DT_FP16 || k->dtype == GPU_DT_BF16)) {
		struct pred_kernel g;
		predict_conv_as_gemm(k, &g);
		if (tcgemm_model_ns(&g, target, tc) > 0 && (!measured || tcgemm_model_ns(&g, origin, tc) > 0))
			return PRED_TCGEMM;
	}
	if (vec16 && vecop_model_ns(k, target, vp) > 0 &&
	    (!measured || vecop_model_ns(k, origin, vp) > 0))
		return PRED_VECOP;
	if (rowwise_covers(k, target, rw, predictor_tile_floor(p)) &&
	    (!measured || rowwise_model_ns(k, origin, rw, 0) > 0))
		return PRED_ROWWISE;
	int fam = tile_family_of(k);
	if (!vec16 && fam >= 0 && tile_model_has(tm, fam)) {
		double f[TILE_NFEAT], base;
		if (tile_features(tm, k, target, NULL, f, &base) >= 0 &&
		    (!measured || tile_features(tm, k, origin, NULL, f, &base) >= 0))
			return PRED_MLP;
	}
	/* without an origin time the model from the shape: 21.8 % held out
	 * against the roofline's 43.6 % (above) */
	if (k->op == PRED_OP_CONV && conv_model_ns(k, target, NULL, 0) > 0 &&
	    (!measured || conv_model_ns(k, origin, NULL, 0) > 0))
		return PRED_CONV;
	if (measured && k->op == PRED_OP_CONV && k->flops > 0 && k->bytes > 0)
		return PRED_ROOFLINE;
	if (measured)
		return PRED_WAVE;
	return PRED_ROOFLINE;
}
