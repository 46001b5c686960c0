/*
 * wave.c - wave scaling: a measured kernel time moved from the origin GPU to
 * a target GPU by Habitat's model (Yu, Gao, Golikov, Pekhimenko, "Habitat: A
 * Runtime-Based Computational Performance Predictor for Deep Neural Network
 * Training", USENIX ATC 2021, section 3.2).
 *
 * A kernel of B thread blocks runs in ceil(B/W) waves, W = SMs x resident
 * blocks per SM.  One wave's time is interpolated geometrically between a
 * memory-bound wave (W blocks' traffic over bandwidth D) and a compute-bound
 * one (per-SM compute rate C), with gamma the memory-boundedness.  The
 * paper's Eq. (1):
 *
 *   T_d = ceil(B/W_d) * (D_o*W_d / (D_d*W_o))^g * (C_o/C_d)^(1-g) / ceil(B/W_o) * T_o
 *
 * and gamma from the roofline (the paper's Eq. (2)), x = arithmetic
 * intensity (FLOP/byte), R = ridge point (peak FLOP/s / bandwidth):
 *
 *   g = 1 - 0.5*x/R  when x <= R,    g = 0.5*R/x  otherwise.
 *
 * Defects of the public implementation fixed here:
 *  - W is SMs x resident blocks per SM from the occupancy of the kernel's own
 *    launch (threads, registers, shared memory) on each GPU's compute
 *    capability (gpu_occupancy), not the SM ratio, and it works for
 *    compute capability 8.0 and later;
 *  - C is the per-SM compute rate at boost clock (dense peak of the kernel's
 *    math unit / SMs, i.e. boost clock x FLOP per cycle per SM) so that a
 *    generation with twice the FP32 or tensor throughput per SM per cycle is
 *    not mistaken for an equal one; when a GPU lacks the peak figure both
 *    sides use the boost clock, as Eq. (1) has it;
 *  - the exact ceil() form of Eq. (1) is always used (tail waves), never the
 *    many-wave approximation, and a wave holds min(B, W) blocks: a kernel
 *    smaller than one wave moves only its own blocks' traffic, so a GPU with
 *    a larger W does not make it slower;
 *  - gamma comes from the kernel's real FLOPs and bytes when the trace has
 *    them (GEMM and convolution records, elementwise launch estimates), and
 *    from the documented per-op estimate below otherwise, never from the
 *    bandwidth ratio alone.
 */
#include "predictor/wave.h"

#include <math.h>

#include "predictor/roofline.h"

/* Tensor-core ops compute in their dtype's unit; everything else runs on the
 * SIMT FP32 (or FP64) pipes. */
static enum gpu_dtype wave_math_unit(const struct pred_kernel *k)
{
	switch (k->op) {
	case PRED_OP_GEMM:
	case PRED_OP_CONV:
	case PRED_OP_ATTENTION:
		return k->dtype;
	default:
		return k->dtype == GPU_DT_FP64 ? GPU_DT_FP64 : GPU_DT_FP32;
	}
}

static double wave_ridge(const struct pred_kernel *k, const struct gpu_spec *g)
{
	double peak = roofline_kernel_peak_flops(k, g, wave_math_unit(k));
	double bw = roofline_bw_bytes(g);
	return (peak > 0 && bw > 0) ? peak / bw : 0;
}

/* Gamma as a function of intensity x and ridge R (Eq. (2)). */
static double wave_gamma_of(double x, double r)
{
	if (x <= r)
		return 1.0 - 0.5 * x / r;
	return 0.5 * r / x;
}

/*
 * Without FLOPs and bytes, gamma is estimated from the op class:
 *  - streaming ops (elementwise, reductions, norms, softmax, copies) do about
 *    one FLOP per 4-byte element read: x = 0.25 FLOP/byte, far below every
 *    ridge point (R >= 5 FLOP/byte on the GPUs in the table), g ~ 0.99;
 *  - GEMM-like ops (GEMM, conv, attention) of unknown shape: DL shapes sit
 *    around the ridge of tensor-core GPUs, so x = R, g = 0.5;
 *  - NCCL kernels move data: g = 1;
 *  - unknown kernels: g = 0.75, between the two, leaning to memory-bound
 *    because most unrecognised DL kernels are fused pointwise code.
 */
double wave_gamma(const struct pred_kernel *k, const struct gpu_spec *g, int *from_intensity)
{
	double r = wave_ridge(k, g);

	if (from_intensity)
		*from_intensity = 0;
	if (k->flops > 0 && k->bytes > 0 && r > 0) {
		if (from_intensity)
			*from_intensity = 1;
		return wave_gamma_of(k->flops / k->bytes, r);
	}
	switch (k->op) {
	case PRED_OP_ELEMENTWISE:
	case PRED_OP_REDUCTION:
	case PRED_OP_SOFTMAX:
	case PRED_OP_NORM:
	case PRED_OP_MEMCPY:
	case PRED_OP_MEMSET:
		return r > 0 ? wave_gamma_of(0.25, r) : 1.0;
	case PRED_OP_GEMM:
	case PRED_OP_CONV:
	case PRED_OP_ATTENTION:
		return 0.5;
	case PRED_OP_COMM:
		return 1.0;
	default:
		return 0.75;
	}
}

/* Resident blocks per SM of k on g; a launch that cannot be resident there
 * (too much shared memory, unknown compute capability) counts as one block
 * per SM: the library would pick another kernel on that GPU, and one block
 * per SM is the most conservative wave size. */
static uint32_t wave_blocks_per_sm(const struct pred_kernel *k, const struct gpu_spec *g,
				   double *occ)
{
	struct gpu_occupancy o;
	uint32_t threads = k->block[0] * (k->block[1] ? k->block[1] : 1) *
			   (k->block[2] ? k->block[2] : 1);

	*occ = 0;
	if (!g->limits || threads == 0)
		return 1;
	if (gpu_occupancy(g->limits, threads, k->regs, k->smem_static, k->smem_dynamic, &o) < 0 ||
	    o.blocks_per_sm == 0)
		return 1;
	*occ = o.occupancy;
	return o.blocks_per_sm;
}

/* C_o / C_d: per-SM compute rate ratio (see the header comment). */
static double wave_compute_ratio(const struct pred_kernel *k, const struct gpu_spec *o,
				 const struct gpu_spec *d)
{
	enum gpu_dtype unit = wave_math_unit(k);
	double po = roofline_kernel_peak_flops(k, o, unit), pd = roofline_kernel_peak_flops(k, d, unit);

	if (po > 0 && pd > 0 && o->sms && d->sms)
		return (po / o->sms) / (pd / d->sms);
	if (o->boost_clock_mhz && d->boost_clock_mhz)
		return (double)o->boost_clock_mhz / d->boost_clock_mhz;
	return 1.0;
}

int wave_predict(const struct pred_kernel *k, const struct gpu_spec *origin,
		 const struct gpu_spec *target, struct pred_result *out)
{
	double occ_o, occ_d;
	uint64_t b;
	double w_o, w_d, waves_o, waves_d, d_o, d_d, gamma, mem, comp;
	int mb;

	if (!origin || !target || !(k->origin_ns > 0) || !origin->sms || !target->sms)
		return -1;
	b = (uint64_t)(k->grid[0] ? k->grid[0] : 1) * (k->grid[1] ? k->grid[1] : 1) *
	    (k->grid[2] ? k->grid[2] : 1);
	w_o = (double)origin->sms * wave_blocks_per_sm(k, origin, &occ_o);
	w_d = (double)target->sms * wave_blocks_per_sm(k, target, &occ_d);
	waves_o = ceil((double)b / w_o);
	waves_d = ceil((double)b / w_d);
	d_o = roofline_bw_bytes(origin);
	d_d = roofline_bw_bytes(target);
	gamma = wave_gamma(k, origin, NULL);
	/* Eq. (1), with min(B, W) blocks in a wave. */
	mem = (d_o > 0 && d_d > 0) ? (d_o * fmin((double)b, w_d)) / (d_d * fmin((double)b, w_o)) : 1.0;
	comp = wave_compute_ratio(k, origin, target);

	out->ns = k->origin_ns * (waves_d / waves_o) * pow(mem, gamma) * pow(comp, 1.0 - gamma);
	out->method = PRED_WAVE;
	out->gamma = gamma;
	out->waves_origin = waves_o;
	out->waves_target = waves_d;
	out->occ_origin = occ_o;
	out->occ_target = occ_d;
	/* gamma = 0.5 is the ridge point itself, the estimate for a GEMM of
	 * unknown shape: neither verdict is known. */
	out->memory_bound = gamma > 0.5 ? 1 : gamma < 0.5 ? 0 : -1;
	out->roofline_ns = roofline_ns(k, target, &mb);
	if (out->roofline_ns < 0)
		out->roofline_ns = 0;
	return 0;
}
