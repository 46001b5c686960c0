/*
 * vecop.c - the memory-bound model of vector operators: a kernel that
 * streams its operands once takes floor + bytes / (eff x BW), with BW the
 * GPU's achievable DRAM bandwidth (gpu_mem_bw_eff_gbps: a STREAM-like
 * measurement when known), eff the fraction of it the operator class's
 * kernels reach and floor the time of a nearly empty launch.
 *
 * Why not the roofline: a 16-bit layer norm or SiLU never reaches the
 * datasheet bandwidth (Vidur's FP16 operators: 35-60% of it on A100 80GB,
 * 55-85% on A40) and a kernel of a few KiB still takes 2-5 us, which the
 * roofline puts at a few ns.  Why not the tile model: its MLPs were trained
 * on FP32 PyTorch kernels whose grids and per-element work differ.
 *
 * The constants below come from `make bench-vec ARGS=--emit`
 * (surfer-bench vec --data DIR --emit): the bandwidth exponent is the one
 * that predicts NeuSight's FP32 vector operators best held out per GPU
 * (five GPUs, 0.9; 1.0 is within 0.1 point), eff and floor are fitted on
 * Vidur's FP16 operators on A100 and A40 together; `make bench-vec` fits
 * on one GPU and predicts the other.  Softmax and reductions have no
 * 16-bit data and take the norm's constants (a row-wise pass like it).
 */
#include "predictor/vecop.h"

#include <math.h>
#include <string.h>

/* 58440 Vidur FP16 rows on A100 80GB and A40, bw_exp 0.9 (in-sample MAPE
 * 26.4% elementwise, 15.5% norm). */
const struct vecop_params vecop_default_params = {
	.eff = {0.668, 0.474, 0.474, 0.474},
	.floor_ns = {1792, 3065, 3065, 3065},
	.bw_exp = 0.9,
};

double vecop_rate_gbps(const struct gpu_spec *g, double bw_exp)
{
	double bw = gpu_mem_bw_eff_gbps(g);
	double sm = (double)g->sms * g->boost_clock_mhz * 1e-3 * 64;
	if (!(bw > 0))
		return 0;
	if (bw_exp >= 1)
		return bw;
	if (!(sm > 0))
		return 0;
	return pow(bw, bw_exp) * pow(sm, 1 - bw_exp);
}

int vecop_class_of(const struct pred_kernel *k)
{
	switch (k->op) {
	case PRED_OP_ELEMENTWISE: return VECOP_ELEMENTWISE;
	case PRED_OP_NORM:        return VECOP_NORM;
	case PRED_OP_SOFTMAX:     return VECOP_SOFTMAX;
	case PRED_OP_REDUCTION:   return VECOP_REDUCTION;
	default:                  return -1;
	}
}

double vecop_bytes(const struct pred_kernel *k)
{
	int c = vecop_class_of(k);
	if (k->bytes > 0)
		return k->bytes;
	if (c < 0 || !k->m || !k->n)
		return 0;
	double numel = (double)k->m * (double)k->n * (k->batch ? (double)k->batch : 1);
	/* one read and one write per element; a reduction's output is small */
	return numel * gpu_dtype_bytes(k->dtype) * (c == VECOP_REDUCTION ? 1 : 2);
}

double vecop_model_ns(const struct pred_kernel *k, const struct gpu_spec *g,
		      const struct vecop_params *p)
{
	int c = vecop_class_of(k);
	if (!p)
		p = &vecop_default_params;
	if (c < 0 || !g)
		return -1;
	double bytes = vecop_bytes(k), bw = vecop_rate_gbps(g, p->bw_exp);
	if (!(bytes > 0) || !(bw > 0) || !(p->eff[c] > 0))
		return -1;
	/* GB/s = bytes/ns */
	return p->floor_ns[c] + bytes / (p->eff[c] * bw);
}

int vecop_predict(const struct pred_kernel *k, const struct gpu_spec *origin,
		  const struct gpu_spec *target, struct pred_result *out)
{
	if (!k || !target || !out)
		return -1;
	double t = vecop_model_ns(k, target, NULL);
	if (!(t > 0))
		return -1;
	memset(out, 0, sizeof *out);
	out->gamma = -1;
	out->memory_bound = 1;
	out->method = PRED_VECOP;
	out->ns = t;
	if (origin && k->origin_ns > 0) {
		double o = vecop_model_ns(k, origin, NULL);
		if (!(o > 0))
			return -1;
		out->ns = k->origin_ns * t / o;
	}
	return 0;
}

/* Mean |pred/meas - 1| of the samples at (eff, floor). */
static double vecop_mape(const struct vecop_sample *s, size_t n, double eff, double fl)
{
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += fabs((fl + s[i].bytes / (eff * s[i].bw_gbps)) / s[i].ns - 1);
	return sum / (double)n;
}

/* min over X of the error at floor fl; *xbest gets the X. */
static double vecop_best_x(const struct vecop_sample *s, size_t n, double fl, double *xbest)
{
	double lo = 1 / 4.0, hi = 1 / 0.01;
	for (int it = 0; it < 40; it++) {
		double a = lo + (hi - lo) / 3, b = hi - (hi - lo) / 3;
		if (vecop_mape(s, n, 1 / a, fl) <= vecop_mape(s, n, 1 / b, fl))
			hi = b;
		else
			lo = a;
	}
	*xbest = (lo + hi) / 2;
	return vecop_mape(s, n, 1 / *xbest, fl);
}

int vecop_fit(const struct vecop_sample *s, size_t n, double *eff, double *floor_ns,
	      double *mape)
{
	if (!s || !n || !eff || !floor_ns)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!(s[i].bytes > 0) || !(s[i].bw_gbps > 0) || !(s[i].ns > 0))
			return -1;
	double lo = 0, hi = 100000, x;
	for (int it = 0; it < 40; it++) {
		double a = lo + (hi - lo) / 3, b = hi - (hi - lo) / 3;
		if (vecop_best_x(s, n, a, &x) <= vecop_best_x(s, n, b, &x))
			hi = b;
		else
			lo = a;
	}
	double fl = (lo + hi) / 2, m = vecop_best_x(s, n, fl, &x);
	*eff = 1 / x;
	*floor_ns = fl;
	if (mape)
		*mape = m * 100;
	return 0;
}
