/*
 * tcgemm.h - the tensor-core GEMM model: the time of a TF32/FP16/BF16/FP8/
 * INT8 matrix multiply of known shape on any GPU with tensor cores, from the
 * GPU's dense peak and bandwidth and a handful of constants fitted on
 * measured GEMMs (tcgemm_params.c), from scratch or as a ratio to a time
 * measured on another GPU.
 */
#ifndef SURFER_TCGEMM_H
#define SURFER_TCGEMM_H

#include <stddef.h>

#include "gpu_specs/figures.h"
#include "predictor/predict.h"

/* Output tile of one thread block, rows x cols: 128 x 128, the common
 * cuBLAS/CUTLASS tensor-core tile through compute capability 8.x, and
 * 128 x 256 from 9.0 (the warpgroup MMA kernels cuBLAS runs on Hopper,
 * "sm90_xmma_gemm_..._tilesize128x256x64"); the model's wave and padding
 * terms count these.  The wider Hopper tile lowers the held-out error on
 * H800 (19.4% -> 17.1%) and on the other GPUs through the fit, except H20
 * (24.1% -> 25.8%); using it on Ampere too made A100 and A40 worse. */
#define TCGEMM_TILE 128
#define TCGEMM_TILE_N_SM90 256
/* The shallowest slice of K a split-K small-M GEMM gives one SM, elements:
 * four 64-deep main-loop steps (tcgemm.c's small-M paragraph). */
#define TCGEMM_SPLIT_K_MIN 256

/* FP8 GEMMs (cuBLASLt's FP8 kernels on Ada and Hopper) as waves of
 * 128 x 128 output tiles, one per SM at a time (tcgemm.c says why); eff 0
 * leaves FP8 to the general formula. */
struct tcgemm_fp8 {
	double eff;               /* fraction of an SM's FP8 peak a tile's main
				   * loop reaches                             */
	double feed_bpc;          /* operand bytes an SM takes in per clock
				   * (a tile reads 256 per step of K)         */
	double bw_eff;            /* fraction of achievable DRAM bandwidth    */
	double overhead_ns;       /* fixed launch-to-completion cost, ns      */
	double w_ref;             /* board W per dense FP16 TFLOP/s below which
				   * the power limit binds                    */
	double power_pow;         /* the cap: (W/TFLOP/s / w_ref)^power_pow   */
	double boost_ns;          /* the cap's slowdown grows in as t / (t +
				   * boost_ns) of the main loops' time t      */
	int l2;                   /* a tile's operands through the SM's L2
				   * port and the GEMM's through the L2
				   * (tcgemm.c; the held-out form's)          */
	double l2_q;              /* exponent joining those times to the
				   * compute time, as mem_pow; 0: their max   */
};

/* The constants of the model (see tcgemm.c for the formula). */
struct tcgemm_params {
	double eff[GPU_DT_COUNT]; /* asymptotic fraction by dtype (0 = use
				   * eff[GPU_DT_FP16]) of the dense peak, or
				   * with mamf_1024 > 0 of the GPU's
				   * achievable matmul rate (its MAMF figure,
				   * else the rule's)                         */
	double k0;                /* K depth (elements) lost to prologue and
				   * epilogue per tile: K/(K+k0) efficiency   */
	double wave_pow;          /* exponent on the wave-quantization
				   * efficiency tiles/(waves*SMs), 0..1        */
	double pad_pow;           /* exponent on the tile-padding efficiency
				   * m*n/(padded m * padded n), wave_pow..1;
				   * >= wave_pow keeps the time monotonic in
				   * the shape (see tcgemm.c)                 */
	double power_w_ref;       /* board watts per dense FP16 TFLOP/s (times
				   * the tensor width's power_rate_pow, see
				   * tcgemm.c) below which the sustained clock
				   * drops; <= 0 disables the power term      */
	double power_pow;         /* exponent of that drop, 0..2              */
	double power_rate_pow;    /* exponent on the tensor width (dense FP16
				   * FLOP per clock per SM / 1024) that scales
				   * the watts per TFLOP/s the power term
				   * compares: 0 = plain W per TFLOP/s, 1 = W
				   * per SM and GHz                           */
	double mamf_1024;         /* the achievable-matmul rule: the share of
				   * the dense peak a GPU of 1024 FP16 FLOP per
				   * clock per SM and watts enough reaches in
				   * the best large BF16 matmul (its MAMF);
				   * <= 0: no figures and no rule, eff_dt x
				   * the power term alone                     */
	double rate_pow;          /* the rule's exponent on the tensor width:
				   * share x (width / 1024)^-rate_pow          */
	double bw_eff;            /* fraction of the DRAM bandwidth of kernel-
				   * level sources (tcgemm.c's tc_bw_bytes())  */
	double overhead_ns;       /* fixed launch-to-completion cost, ns      */
	double mem_pow;           /* exponent q joining the compute and memory
				   * times as (t_c^q + t_m^q)^(1/q), 1..32;
				   * 0: their max (tcgemm.c)                  */
	struct tcgemm_fp8 fp8;    /* the FP8 tile-wave form; fp8.eff 0: off    */
};

/* The constants fitted on the measured GEMMs (tcgemm_params.c). */
extern const struct tcgemm_params tcgemm_default_params;

/* Model time in ns of k on g with constants p (p NULL: the defaults).
 * Returns a negative value when k is not a tensor-core GEMM with a known
 * shape (op GEMM, m, n, k > 0, dtype TF32/FP16/BF16/FP8/INT8) or g has no
 * figures for it. */
double tcgemm_model_ns(const struct pred_kernel *k, const struct gpu_spec *g,
		       const struct tcgemm_params *p);

/* The FLOP/s a tensor-core GEMM of dtype dt reaches on g when no wave,
 * padding or depth loss applies (a huge GEMM): the dense peak x eff_dt x
 * the share of p (NULL: the defaults): the dtype's MAMF figure (FP8's
 * where g or its die has one, else BF16's) or the rule at the clock g
 * holds (tcgemm_mamf_share()); without a rule, the vendor's matrix
 * efficiency x the power term.  Other tensor-core kernels (fused attention,
 * predictor/attention.c) take their main loop's rate from it.  0 when dt
 * has no tensor-core rate on g. */
double tcgemm_rate_flops(const struct gpu_spec *g, enum gpu_dtype dt,
			 const struct tcgemm_params *p);

/* Predicts k on target with constants p (NULL: the defaults): with an
 * origin time (origin not NULL, k->origin_ns > 0) T_o * model(target) /
 * model(origin), else the model itself.  Fills out (method PRED_ROOFLINE:
 * an analytic bound with fitted efficiencies; roofline_ns, memory_bound
 * and the waves set) and returns 0, or a negative value when k is not a
 * tensor-core GEMM with a known shape. */
int tcgemm_predict(const struct pred_kernel *k, const struct gpu_spec *origin,
		   const struct gpu_spec *target, const struct tcgemm_params *p,
		   struct pred_result *out);

/* One measured GEMM for fitting: the kernel (shape and dtype), the GPU it
 * ran on, and its time. */
struct tcgemm_sample {
	struct pred_kernel k;
	const struct gpu_spec *gpu;
	double ns;                /* measured time, ns (> 0)                  */
};

/* Fits the constants to n samples by least squares on log(model/measured),
 * each GPU's samples weighted equally in total (so no GPU dominates by its
 * row count).  *p holds the starting point on entry and the fit on return.
 * eff[FP16] and the eff of each other dtype present in the samples whose
 * eff is > 0 on entry are fitted; a dtype whose eff is 0 stays 0 (it
 * shares FP16's).  The power term is fitted only when power_w_ref > 0 on
 * entry (else it stays off).  The FP8 tile-wave constants (p->fp8) are
 * fitted on the FP8 samples alone when p->fp8.eff > 0 on entry, and set
 * off (eff 0) when there is none.  The rule (p->mamf_1024 > 0 on entry) is fitted
 * on the samples and on the MAMF figures measured on the NVIDIA GPUs
 * themselves, but those of the nexclude compute capabilities exclude_cc
 * (the architecture a caller holds out; the samples are the caller's to
 * choose).  *rms_log receives
 * the weighted RMS of the log error (may be NULL).  Returns 0, -EINVAL for
 * no usable sample, -ENOMEM. */
int tcgemm_fit(const struct tcgemm_sample *s, size_t n, const uint32_t *exclude_cc,
	       size_t nexclude, struct tcgemm_params *p, double *rms_log);

/* The share of the dense peak g reaches in its best large BF16 matmul as
 * p (NULL: the defaults) takes it: g's MAMF figure (gpu_specs/figures.h:
 * measured on g or on a board of its die; for AMD parts also the vendor's
 * median), else the rule of p, fitted with exclude_cc's figures left out
 * (the caller's choice), times the clock g holds under load over its boost
 * clock where that was measured on g or its die (tcgemm.c).  *prov (may be NULL) receives the figure's
 * provenance, GPU_PROV_RULE for tcgemm's rule.  0 when p has no rule
 * (mamf_1024 <= 0) or g no tensor cores. */
double tcgemm_mamf_share(const struct gpu_spec *g, const struct tcgemm_params *p,
			 enum gpu_provenance *prov);

/* The rule's share for g alone (no figure) at the clock g holds under
 * load (tcgemm.c), 0 without a rule. */
double tcgemm_mamf_rule(const struct gpu_spec *g, const struct tcgemm_params *p);

#endif
