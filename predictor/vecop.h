/*
 * vecop.h - the memory-bound model of vector operators (elementwise,
 * norms, softmax, reductions): time = floor + bytes / (eff x achievable
 * DRAM bandwidth), with one (eff, floor) pair per operator class fitted on
 * measured kernels (vecop.c).  Used by `auto` for 16-bit vector kernels,
 * which the FP32 tile model does not describe.
 */
#ifndef SURFER_VECOP_H
#define SURFER_VECOP_H

#include <stddef.h>
#include "predictor/predict.h"

/* The operator classes with constants of their own. */
enum vecop_class {
	VECOP_ELEMENTWISE = 0, VECOP_NORM, VECOP_SOFTMAX, VECOP_REDUCTION, VECOP_COUNT
};

/* The class of k's operator, or -1 when k is not a vector operator. */
int vecop_class_of(const struct pred_kernel *k);

/* The DRAM traffic of k: k->bytes when known, else from the shape m x n
 * and the dtype size: elementwise, norm and softmax read and write each
 * element once (2 x), a reduction reads it once.  0 when unknown. */
double vecop_bytes(const struct pred_kernel *k);

/* The constants: per class eff, the fraction of the GPU's streaming rate
 * (vecop_rate_gbps) its kernels reach on large tensors, and floor_ns, the
 * time of a kernel with almost no data; bw_exp, shared, how the rate
 * follows the DRAM bandwidth rather than the SMs (vecop_rate_gbps).
 * sm_bpc, per class, adds a second limit when positive: the bytes per
 * SM-cycle the class's kernels move when their SMs, not DRAM, hold them
 * back (vecop_model_ns); 0 leaves it out (the compiled-in constants). */
struct vecop_params {
	double eff[VECOP_COUNT];
	double floor_ns[VECOP_COUNT];   /* ns                               */
	double bw_exp;
	double sm_bpc[VECOP_COUNT];     /* bytes per SM-cycle; 0: no limit  */
};

/* The streaming rate of g, GB/s: BW^a x S^(1-a) with BW the achievable
 * DRAM bandwidth (gpu_mem_bw_eff_gbps), S = SMs x boost clock x 64 bytes
 * per SM-cycle (what the SMs can issue: two 32-byte sectors a cycle) and
 * a = bw_exp.  a = 1 is a pure bandwidth model; a < 1 says a kernel's
 * loads in flight per SM, not DRAM, limit it on GPUs with much bandwidth
 * per SM (Little's law).  0 when g's figures are unknown. */
double vecop_rate_gbps(const struct gpu_spec *g, double bw_exp);

/* SM-cycles per ns of g: SMs x boost clock in GHz (the GB/s of one byte
 * per SM-cycle), at the clock of g's table row where g is a derated copy
 * (gpu_memory_bound_clock_mhz(): memory-bound kernels neither draw a power
 * cap nor take the slowest board's pace).  0 when g's figures are
 * unknown. */
double vecop_sm_ghz(const struct gpu_spec *g);

/* The compiled-in constants (vecop.c, with the command that fits them). */
extern const struct vecop_params vecop_default_params;

/* The model's time of k on g with constants p (NULL: the defaults), ns:
 * floor + bytes / (eff x vecop_rate_gbps), plus bytes / (sm_bpc x
 * vecop_sm_ghz) when sm_bpc is positive; -1 when k is not a vector
 * operator or its bytes or g's bandwidth (or SMs, with sm_bpc) are
 * unknown. */
double vecop_model_ns(const struct pred_kernel *k, const struct gpu_spec *g,
		      const struct vecop_params *p);

/* predict_kernel's PRED_VECOP: the model's time on target with constants
 * p (NULL: the defaults; a predictor passes its own, predictor_vecop);
 * with a measured origin the ratio T_o x model(target) / model(origin).
 * 0 or -1. */
int vecop_predict(const struct pred_kernel *k, const struct gpu_spec *origin,
		  const struct gpu_spec *target, const struct vecop_params *p,
		  struct pred_result *out);

/* One measured kernel for the fit. */
struct vecop_sample {
	double bytes;       /* DRAM traffic                               */
	double bw_gbps;     /* the GPU's vecop_rate_gbps at bw_exp, GB/s  */
	double ns;          /* measured time                              */
	double sm_ghz;      /* the GPU's vecop_sm_ghz (vecop_fit_sm only) */
};

/* Fits (eff, floor) of one class to n samples by minimising the mean
 * absolute percentage error.  The error |(F + X b/r) / t - 1| is convex
 * in (F, X = 1/eff) jointly (an affine map inside an absolute value), so
 * its minimum over X is convex in F and nested ternary searches (F in
 * 0-100 us, eff in 0.01-4) find the global minimum.  Returns 0, or -1
 * when n is 0 or a sample is invalid. */
int vecop_fit(const struct vecop_sample *s, size_t n, double *eff, double *floor_ns,
	      double *mape);

/* The same for the two-limit form with eff 1 and bw_exp 1: fits (sm_bpc,
 * floor) of floor + bytes / bw_gbps + bytes / (sm_bpc x sm_ghz), bw_gbps
 * then being the GPU's gpu_mem_bw_eff_gbps.  The error is convex in
 * (floor, X = 1 / sm_bpc) alike; X is searched in 0-4 SM-cycles per byte
 * and X under 1e-6 (the SMs never limit) gives VECOP_SM_BPC_NONE.  0, or
 * -1 when n is 0 or a sample is invalid. */
int vecop_fit_sm(const struct vecop_sample *s, size_t n, double *sm_bpc, double *floor_ns,
		 double *mape);

/* sm_bpc of a class whose kernels the SMs never hold back. */
#define VECOP_SM_BPC_NONE 1e9

#endif
