/*
 * roofline.c - the roofline model (Williams, Waterman, Patterson, CACM 2009):
 * a kernel takes at least max(flops / peak FLOP/s, bytes / DRAM bandwidth).
 *
 * Peaks are dense datasheet figures for the kernel's math dtype; bandwidth is
 * the achievable one (gpu_mem_bw_eff_gbps), because no kernel streams at the
 * datasheet figure.  As a predictor the bound is used in ratio form when an
 * origin time exists (T_d = T_o * roof_d / roof_o), which cancels the
 * kernel's distance from the roof as long as it is similar on both GPUs.
 */
#include "predictor/roofline.h"

#include <math.h>
#include <stddef.h>

static double peak_flops(const struct gpu_spec *g, enum gpu_dtype dt, int matrix)
{
	/* Each dtype's fallback when the GPU has no unit for it: the next wider
	 * type it would be computed in. */
	static const enum gpu_dtype next[GPU_DT_COUNT] = {
		[GPU_DT_FP32] = GPU_DT_COUNT,
		[GPU_DT_FP64] = GPU_DT_FP32,
		[GPU_DT_TF32] = GPU_DT_FP32,
		[GPU_DT_FP16] = GPU_DT_FP32,
		[GPU_DT_BF16] = GPU_DT_FP16,
		[GPU_DT_FP8] = GPU_DT_FP16,
		[GPU_DT_INT8] = GPU_DT_FP16,
		[GPU_DT_FP4] = GPU_DT_FP8,
	};
	if (!g)
		return 0;
	if ((unsigned)dt >= GPU_DT_COUNT)
		dt = GPU_DT_FP32;
	for (int guard = 0; guard < GPU_DT_COUNT && dt < GPU_DT_COUNT; guard++) {
		if (g->peak_tflops[dt] > 0)
			return (dt != GPU_DT_FP32 ? g->peak_tflops[dt] :
				matrix ? gpu_fp32_gemm_tflops(g) : gpu_fp32_simt_tflops(g)) * 1e12;
		dt = next[dt];
	}
	return 0;
}

double roofline_peak_flops(const struct gpu_spec *g, enum gpu_dtype dt)
{
	return peak_flops(g, dt, 0);
}

/* GEMMs, convolutions and attention run on the matrix units where a GPU
 * has FP32 ones (gpu_fp32_gemm_tflops()); everything else on the vector
 * ALUs. */
double roofline_kernel_peak_flops(const struct pred_kernel *k, const struct gpu_spec *g,
				  enum gpu_dtype dt)
{
	int matrix = k && (k->op == PRED_OP_GEMM || k->op == PRED_OP_CONV ||
			   k->op == PRED_OP_ATTENTION);
	return peak_flops(g, dt, matrix);
}

double roofline_bw_bytes(const struct gpu_spec *g)
{
	return g ? gpu_mem_bw_eff_gbps(g) * 1e9 : 0;
}

double roofline_join_ns(double t_c, double t_m, double q)
{
	double hi = t_c > t_m ? t_c : t_m;
	if (!(q > 0) || !(hi < INFINITY) || !(hi > 0))
		return hi;
	return hi * pow(pow(t_c / hi, q) + pow(t_m / hi, q), 1 / q);
}

double roofline_ns(const struct pred_kernel *k, const struct gpu_spec *g, int *memory_bound)
{
	double peak = roofline_kernel_peak_flops(k, g, k->dtype);
	double bw = roofline_bw_bytes(g);
	double t_c = (k->flops > 0 && peak > 0) ? k->flops / peak * 1e9 : 0;
	double t_m = (k->bytes > 0 && bw > 0) ? k->bytes / bw * 1e9 : 0;

	if (memory_bound)
		*memory_bound = -1;
	if (t_c <= 0 && t_m <= 0)
		return -1;
	if (memory_bound)
		*memory_bound = t_m >= t_c;
	return fmax(t_c, t_m);
}

int roofline_predict(const struct pred_kernel *k, const struct gpu_spec *origin,
		     const struct gpu_spec *target, struct pred_result *out)
{
	int mb_t, mb_o;
	double roof_t = roofline_ns(k, target, &mb_t);

	if (roof_t <= 0)
		return -1;
	out->method = PRED_ROOFLINE;
	out->roofline_ns = roof_t;
	out->memory_bound = mb_t;
	out->ns = roof_t;
	if (origin && k->origin_ns > 0) {
		double roof_o = roofline_ns(k, origin, &mb_o);
		if (roof_o > 0)
			out->ns = k->origin_ns * roof_t / roof_o;
	}
	return 0;
}
