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
 * A predictor may carry others (pred_config.vecop): `make bench-serving`
 * predicts Ampere with a fit that saw neither the A100 nor the A40
 * (bench_vec_fit_heldout: eff on NeuSight's FP32 rows of four older
 * architectures by their bytes, the floor a documented fallback).
 *
 * The two-limit form, floor + bytes / BW + bytes / (b x SMs x clock)
 * (sm_bpc = b, eff 1, bw_exp 1), says why one share of the bandwidth
 * cannot fit both GPUs: the A100 80GB has 2.8x the A40's bandwidth but
 * 1.04x its SM-cycles, and at 32 MiB and more Vidur's residual add
 * reaches 0.97 and 0.92 of each GPU's measured bandwidth while the RMS
 * norm reaches 0.40 and 0.68, SiLU-and-mul 0.57 and 0.89, rotary 0.49 and
 * 0.85: kernels with few bytes in flight per thread are held by what the
 * SMs issue (Little's law).  `make bench-vec`, held out, column vecop-sm:
 * 33.3 -> 25.6 % (norm 33.6 -> 14.1 on the A100, 59.2 -> 8.1 on the A40;
 * the add 22.4 -> 40.7 on the A100, as the elementwise class mixes it
 * with SiLU-and-mul and rotary).  It is not compiled in: with it `make
 * bench-serving` prefill goes 8.8 -> 9.5 % (Hopper 4.9 -> 7.1), as
 * SGLang's vectorised kernels are not held back like Vidur's.
 */
#include "predictor/vecop.h"

#include <math.h>
#include <string.h>


/* 58440 Vidur FP16 rows on A100 80GB and A40, bw_exp 0.9 (in-sample MAPE
 * 26.4% elementwise, 15.5% norm), fitted with the A40 at 663 GB/s.  The
 * refit with the table's 621.6 (its in-band ECC: surfer-bench vec --emit
 * gives bw_exp 1.0, eff 0.928 / 0.653, floor 1872 / 3924 ns) leaves `make
 * bench-serving` at 8.8 / 4.3 / 5.4 % (P / D / T) but takes `make
 * bench-published` from 9.8 to 11.4 %, so these stay. */
const struct vecop_params vecop_default_params = {
	.eff = {0.668, 0.474, 0.474, 0.474},
	.floor_ns = {1792, 3065, 3065, 3065},
	.bw_exp = 0.9,
};

double vecop_rate_gbps(const struct gpu_spec *g, double bw_exp)
{
	double bw = gpu_mem_bw_eff_gbps(g);
	double sm = vecop_sm_ghz(g) * 64;
	if (!(bw > 0))
		return 0;
	if (bw_exp >= 1)
		return bw;
	if (!(sm > 0))
		return 0;
	return pow(bw, bw_exp) * pow(sm, 1 - bw_exp);
}

/* A board under a power cap lowers its SM clock only while a kernel would
 * draw more than the cap; a memory-bound kernel does not (the memory clock
 * stays and the SMs wait on DRAM), and the slowest board of a job is
 * slowest at compute, so the SM term sees the clock the record's row has
 * (gpu_memory_bound_clock_mhz; with the capped clock here a 500 W H100's
 * vector kernels came out 3.4 % slower, from this term alone). */
double vecop_sm_ghz(const struct gpu_spec *g)
{
	double s = (double)g->sms * gpu_memory_bound_clock_mhz(g) * 1e-3;
	return s > 0 ? s : 0;
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
	double t = p->floor_ns[c] + bytes / (p->eff[c] * bw);
	if (p->sm_bpc[c] > 0) {
		/* the two limits add: the smooth bound with no third constant */
		double sm = vecop_sm_ghz(g);
		if (!(sm > 0))
			return -1;
		t += bytes / (p->sm_bpc[c] * sm);
	}
	return t;
}

int vecop_predict(const struct pred_kernel *k, const struct gpu_spec *origin,
		  const struct gpu_spec *target, const struct vecop_params *p,
		  struct pred_result *out)
{
	if (!k || !target || !out)
		return -1;
	double t = vecop_model_ns(k, target, p);
	if (!(t > 0))
		return -1;
	memset(out, 0, sizeof *out);
	out->gamma = -1;
	out->memory_bound = 1;
	out->method = PRED_VECOP;
	out->ns = t;
	if (origin && k->origin_ns > 0) {
		double o = vecop_model_ns(k, origin, p);
		if (!(o > 0))
			return -1;
		out->ns = k->origin_ns * t / o;
	}
	return 0;
}

/* Mean |pred/meas - 1| of the samples at floor fl and slope x: x / eff
 * of the DRAM term, or (sm) the DRAM term at eff 1 plus x = 1 / sm_bpc of
 * the SM term. */
static double vecop_mape(const struct vecop_sample *s, size_t n, double x, double fl, int sm)
{
	double sum = 0;
	for (size_t i = 0; i < n; i++) {
		double t = sm ? fl + s[i].bytes / s[i].bw_gbps + x * s[i].bytes / s[i].sm_ghz
			      : fl + x * s[i].bytes / s[i].bw_gbps;
		sum += fabs(t / s[i].ns - 1);
	}
	return sum / (double)n;
}

/* min over X of the error at floor fl; *xbest gets the X.  X = 1/eff in
 * 1/4-100, or (sm) 1/sm_bpc in 0-4. */
static double vecop_best_x(const struct vecop_sample *s, size_t n, double fl, int sm,
			   double *xbest)
{
	double lo = sm ? 0 : 1 / 4.0, hi = sm ? 4 : 1 / 0.01;
	for (int it = 0; it < (sm ? 50 : 40); it++) {
		double a = lo + (hi - lo) / 3, b = hi - (hi - lo) / 3;
		if (vecop_mape(s, n, a, fl, sm) <= vecop_mape(s, n, b, fl, sm))
			hi = b;
		else
			lo = a;
	}
	*xbest = (lo + hi) / 2;
	return vecop_mape(s, n, *xbest, fl, sm);
}

/* Nested ternary searches: the floor in 0-100 us outside, X inside. */
static int vecop_fit_any(const struct vecop_sample *s, size_t n, int sm, double *x,
			 double *floor_ns, double *mape)
{
	if (!s || !n || !x || !floor_ns)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!(s[i].bytes > 0) || !(s[i].bw_gbps > 0) || !(s[i].ns > 0) ||
		    (sm && !(s[i].sm_ghz > 0)))
			return -1;
	double lo = 0, hi = 100000, xb;
	for (int it = 0; it < 40; it++) {
		double a = lo + (hi - lo) / 3, b = hi - (hi - lo) / 3;
		if (vecop_best_x(s, n, a, sm, &xb) <= vecop_best_x(s, n, b, sm, &xb))
			hi = b;
		else
			lo = a;
	}
	double fl = (lo + hi) / 2, m = vecop_best_x(s, n, fl, sm, x);
	*floor_ns = fl;
	if (mape)
		*mape = m * 100;
	return 0;
}

int vecop_fit(const struct vecop_sample *s, size_t n, double *eff, double *floor_ns,
	      double *mape)
{
	double x;
	if (!eff || vecop_fit_any(s, n, 0, &x, floor_ns, mape) != 0)
		return -1;
	*eff = 1 / x;
	return 0;
}

int vecop_fit_sm(const struct vecop_sample *s, size_t n, double *sm_bpc, double *floor_ns,
		 double *mape)
{
	double x;
	if (!sm_bpc || vecop_fit_any(s, n, 1, &x, floor_ns, mape) != 0)
		return -1;
	*sm_bpc = x > 1e-6 ? 1 / x : VECOP_SM_BPC_NONE;
	return 0;
}
