/*
 * roofline.h - the roofline bound of a kernel on a GPU: the larger of its
 * compute time at peak throughput and its DRAM time at achievable bandwidth.
 * Shared by wave scaling (the ridge point that sets gamma) and by the
 * roofline method itself.
 */
#ifndef SURFER_ROOFLINE_H
#define SURFER_ROOFLINE_H

#include "predictor/predict.h"

/* Peak throughput of g for dtype dt in FLOP/s.  A dtype the GPU has no
 * figure for falls back along FP8 -> FP16 -> FP32, BF16 -> FP16 -> FP32,
 * TF32 -> FP32, INT8 -> FP16 -> FP32, FP4 -> FP8 -> ...; 0 when nothing is
 * known. */
double roofline_peak_flops(const struct gpu_spec *g, enum gpu_dtype dt);
/* The same for kernel k: its FP32 peak is gpu_fp32_gemm_tflops() when k is
 * a GEMM, convolution or attention (the matrix units' FP32 rate on AMD). */
double roofline_kernel_peak_flops(const struct pred_kernel *k, const struct gpu_spec *g,
				  enum gpu_dtype dt);

/* Achievable DRAM bandwidth of g in bytes/s (gpu_mem_bw_eff_gbps). */
double roofline_bw_bytes(const struct gpu_spec *g);

/* Roofline time of k on g in ns: max(flops/peak, bytes/bandwidth).  Sets
 * *memory_bound (may be NULL) to 1 when the bandwidth term dominates.
 * Returns a negative value when k's work (flops and bytes) is unknown. */
double roofline_ns(const struct pred_kernel *k, const struct gpu_spec *g, int *memory_bound);

/* A kernel's time from its compute time t_c and its memory time t_m when
 * it hides neither fully behind the other: their power mean
 * (t_c^q + t_m^q)^(1/q), q > 0 (1: the sum, large: the max); the max itself
 * for q <= 0 (the roofline's join) and where either is not finite and
 * positive.  The fitted models' q: tcgemm.c's mem_pow and l2_q, conv.c's
 * overlap_pow. */
double roofline_join_ns(double t_c, double t_m, double q);

/* The roofline method: with an origin time T_o (origin not NULL and
 * k->origin_ns > 0) the ratio form T_o * roof(target) / roof(origin),
 * otherwise the bound itself.  Returns 0, or -1 when k's work is unknown. */
int roofline_predict(const struct pred_kernel *k, const struct gpu_spec *origin,
		     const struct gpu_spec *target, struct pred_result *out);

#endif
