/*
 * conv.h - the convolution model: cuDNN's forward convolution kernels as
 * what they are, an implicit GEMM of M = N P Q output pixels by N = K
 * filters over a reduction of K = C R S, cut into the tile the kernel's
 * name announces, with the algorithm (implicit GEMM, GEMM over an
 * unrolled input, Winograd fused or not, FFT) read from the name too, and
 * a handful of constants fitted on measured convolutions (conv_params.c),
 * used as a ratio to a time measured on another GPU.  The backward passes
 * (pred_conv.pass) are the implicit GEMMs of their direction with the
 * same constants (checked on DeepBench's: surfer-bench conv-train).
 */
#ifndef SURFER_CONV_H
#define SURFER_CONV_H

#include <stddef.h>

#include "predictor/predict.h"

/* The slices cuDNN's filter-gradient kernels are taken to split a
 * reduction of red output pixels into on g when tiles output tiles (K x C
 * R S) leave SMs idle: floor(SMs / tiles), each slice at least 1024 pixels
 * deep, at least 1 (conv.c gives the reasons; the FP32 model and
 * tcgemm.c's tensor-core filter gradient both take it). */
double conv_wgrad_split(double tiles, double red, const struct gpu_spec *g);

/* The algorithms cuDNN runs a forward convolution with, as its kernel
 * names show them. */
enum conv_algo {
	CONV_ALGO_IGEMM = 0,   /* implicit GEMM: scudnn_128x64_relu_...,
				* implicit_convolve_sgemm, precomputed_... */
	CONV_ALGO_GEMM,        /* the input unrolled, then an SGEMM:
				* explicit_convolve_sgemm, <arch>_sgemm_...  */
	CONV_ALGO_WINOGRAD,    /* fused Winograd: scudnn_winograd_128x128    */
	CONV_ALGO_WINOGRAD_NF, /* Winograd with transforms as kernels of
				* their own: winograd_nonfused::...           */
	CONV_ALGO_FFT,         /* FFT: fft2d_r2c_..., <arch>_gcgemm_...      */
	CONV_ALGO_COUNT
};

/* The algorithm of a convolution's kernel name (NULL or unknown names:
 * CONV_ALGO_IGEMM, what cuDNN's heuristics pick most often). */
enum conv_algo conv_algo_of(const char *name);
const char *conv_algo_name(enum conv_algo a);

/* 1 when g's cuDNN runs FP32 Winograd kernels (compute capability below
 * 9.0, and AMD's MIOpen; conv.c says why), 0 otherwise. */
int conv_has_winograd(const struct gpu_spec *g);

/* The constants of the model (see conv.c for the formula). */
struct conv_params {
	double eff[CONV_ALGO_COUNT]; /* sustained fraction of the FP32 peak on
				      * the direct convolution's FLOPs, per
				      * algorithm (> 1 where the algorithm
				      * does fewer: Winograd, FFT)           */
	/* From the shape alone (a config's convolution: no kernel name, no
	 * grid, no origin time) the model's absolute time is what is
	 * predicted; these set it, fitted on absolute times with every
	 * other constant kept (conv_fit_shape()). */
	double shape_eff;         /* sustained fraction of the FP32 peak on
				   * the direct FLOPs: the mix of algorithms
				   * cuDNN picks (> 1: Winograd's savings)   */
	double shape_ramp_flop;   /* the work at which half of it is reached:
				   * the compute term is (F + ramp) / rate,
				   * a fixed amount of the GPU's own work    */
	double shape_pad_pow;     /* exponent on the tile's padding efficiency
				   * m n / (m, n rounded up): 128 x 64, 128 x
				   * 32 for at most 32 filters              */
	double shape_bw_eff;      /* fraction of achievable DRAM bandwidth   */
	double shape_red_steps;   /* a tile's fixed cost (loading its first
				   * operands, writing its output) in steps
				   * of the reduction: the work is F (1 +
				   * steps / (C R S))                        */
	double shape_floor_ns;    /* its floor (with floor 1), instead of floor_ns,
				   * at most the fastest time it was fitted on */
	/* Where the geometry says Winograd applies (pred_kernel.conv: 3 x 3,
	 * unit stride), the shape's time is the soft minimum of the implicit
	 * GEMM's and Winograd's (conv.c); shape_wino_eff <= 0: no Winograd
	 * term. */
	double shape_wino_eff;    /* sustained fraction of the FP32 peak on
				   * the Winograd GEMM's FLOPs (36 products
				   * per 4 x 4 output tile and channel pair) */
	double shape_wino_steps;  /* its tile's fixed cost in steps of its
				   * reduction (C)                           */
	double shape_softmin;     /* a: (T_i^-a + T_w^-a)^(-1/a), cuDNN's
				   * pick of the faster, blurred where the
				   * two are close                           */
	double shape_pull;        /* conv_pull(): across architectures how
				   * far the ratio is pulled toward the
				   * shape's time S_t, S_t x (ratio /
				   * S_t)^(1 - pull) (conv_fit_pull())       */
	double shape_cap_pow;     /* conv_pull(): before the pull the ratio R
				   * is capped softly at C = S_t x
				   * e^shape_cap, (R^-a + C^-a)^(-1/a), a =
				   * shape_cap_pow; <= 0: no cap            */
	double shape_cap;         /* log of the cap's level above S_t        */
	double wave_pow;          /* exponent on the wave efficiency          */
	double bw_eff;            /* fraction of achievable DRAM bandwidth    */
	double overlap_pow;       /* k: compute and memory times combine as
				   * (t_c^k + t_m^k)^(1/k); <= 0: max()     */
	double smem_pow;          /* exponent on min(1, shared memory per SM /
				   * 96 KB) for the implicit-GEMM and fused
				   * Winograd kernels (conv.c)               */
	double power_pj16;        /* FP32 energy per core-cycle at 16 nm, pJ
				   * (power_cap_pj()); <= 0 no cap         */
	double boost_ns;          /* how long a power-limited board holds its
				   * boost clock: the cap's slowdown grows in
				   * as t / (t + boost_ns) of the work time t */
	double floor_ns;          /* a measuring host's floor per operator
				   * (NeuSight's op timings), added only when
				   * the predictor's tile_floor is set        */
};

/* The constants fitted on measured convolutions (conv_params.c). */
extern const struct conv_params conv_default_params;

/* The shape constants (struct conv_params's shape_* of the same names)
 * measured on one architecture's own convolutions, for its targets in
 * place of those fitted on NeuSight's four GPUs (conv.c, "From the shape
 * alone"; docs/conv.md, "Hopper as the target"). */
struct conv_shape {
	double eff, ramp_flop, pad_pow, bw_eff, red_steps, floor_ns, wino_eff, wino_steps, softmin;
};

/* Fitted on our H200's FP32 sweep (cuDNN 9.19; conv_params.c), for
 * targets of compute capability 9.x whose figures are not held out
 * (gpu_specs/figures.h's gpu_figures_hold_out()). */
extern const struct conv_shape conv_sm90_shape;

/* 1 when g's convolutions from the shape take constants measured on its
 * own architecture (conv_sm90_shape), 0 otherwise. */
int conv_has_own_shape(const struct gpu_spec *g);

/* Model time in ns of convolution k on g with constants p (NULL: the
 * defaults), with the floor when floor is 1.  k needs op PRED_OP_CONV,
 * dtype FP32, its implicit GEMM's m, n, k and its FLOPs and bytes; the
 * name gives the algorithm and the tile (128 x 64 when it has none).
 * Returns a negative value when k is no such convolution or g has no FP32
 * figures. */
double conv_model_ns(const struct pred_kernel *k, const struct gpu_spec *g,
		     const struct conv_params *p, int floor);

/* Predicts k on target with constants p (NULL: the defaults): with an
 * origin time (origin not NULL, k->origin_ns > 0) T_o * model(target) /
 * model(origin), else the model's time from the shape alone (k's name and
 * grid are then ignored: a config's convolution, the shape_* constants),
 * with the floor when floor is 1.
 * Fills out (method PRED_CONV, waves, memory_bound, roofline_ns) and
 * returns 0, or a negative value when the model does not describe k. */
int conv_predict(const struct pred_kernel *k, const struct gpu_spec *origin,
		 const struct gpu_spec *target, const struct conv_params *p, int floor,
		 struct pred_result *out);

/* Pulls out, conv_predict()'s ratio R for k from origin to target (same
 * p and floor), toward the model's time from the shape alone S_t: first
 * capped softly at C = S_t x e^shape_cap where shape_cap_pow a > 0, R' =
 * (R^-a + C^-a)^(-1/a), then S_t x (R' / S_t)^(1 - p->shape_pull); sets
 * out->pull to 1 - d log ns / d log origin_ns there (ns then grows as
 * origin_ns^(1 - pull) around origin_ns: 1 - (1 - shape_pull) / (1 +
 * (R / C)^a)), where origin and target differ in compute capability and
 * shape_pull > 0 or a > 0; across the Winograd boundary, where k's
 * geometry suits Winograd, S_t itself, pull 1: the origin's cuDNN has
 * no Winograd and the target's has (conv_has_winograd()), or the other
 * way round onto a target with shape constants of its own architecture
 * (conv_has_own_shape()); returns 0, or -1 with out untouched (one
 * architecture, no pull nor cap, no origin time, no shape time, or a
 * backward pass: k->conv.pass).  This
 * is partial pooling as auto does it for the tile model (predict.h,
 * struct pred_shrink): conv_predict() itself stays linear in the origin's
 * time.  It needs k to be a whole convolution (an operator's time, as
 * NeuSight's timings are): a trace's kernel is often a part of one (the
 * transforms and the GEMM of one cuDNN call each carry the whole
 * convolution's shape), whose shape time is not its own. */
int conv_pull(const struct pred_kernel *k, const struct gpu_spec *origin,
	      const struct gpu_spec *target, const struct conv_params *p, int floor,
	      struct pred_result *out);

/* 1 when k's time is a whole convolution's, the time conv_pull()'s shape
 * model stands for: an operator's time (no name, or a list of kernels
 * separated by ';', as NeuSight's timings name them), or a kernel of
 * cuDNN's one-kernel algorithms (implicit GEMM, fused Winograd); 0 for a
 * part of one (an SGEMM, a Winograd transform, an FFT step: each
 * carries the whole convolution's shape, whose time is not its own). */
int conv_whole(const struct pred_kernel *k);

/* One convolution measured on two GPUs, for fitting: the kernel as the
 * origin recorded it (name, shape, FLOPs, bytes, k.origin_ns), the two
 * GPUs and the target's time. */
struct conv_sample {
	struct pred_kernel k;
	const struct gpu_spec *origin, *target;
	double ns;                /* measured on the target, ns (> 0)       */
	const char *target_name;  /* the target's kernel (its algorithm and
				   * tile); NULL: the origin's, k.name      */
};

/* Fits the constants to n samples by least squares on the log error of
 * the ratio form (with the floor), each ordered pair of GPUs weighted
 * equally in total.  *p holds the starting point on entry and the fit on
 * return; *rms_log the weighted RMS of the log error (may be NULL).  0,
 * -EINVAL (no usable sample), -ENOMEM. */
int conv_fit(const struct conv_sample *s, size_t n, struct conv_params *p, double *rms_log);

/* Fits the shape_* constants alone (every other constant kept from *p) to
 * n samples by least squares on the log error of the model's own time
 * (with the floor) against the measured s[i].ns: each sample is a
 * convolution as a config gives it (s[i].k without a name or grid; origin,
 * k.origin_ns and target_name are not read), measured on s[i].target,
 * each GPU weighted equally in total.  *rms_log as conv_fit().  0, -EINVAL
 * (no usable sample), -ENOMEM. */
int conv_fit_shape(const struct conv_sample *s, size_t n, struct conv_params *p,
		   double *rms_log);

/* Fits shape_pull, shape_cap_pow and shape_cap alone (every other
 * constant kept from *p) to the n samples whose origin and target differ
 * in compute capability, on the log error of conv_pull() with the floor,
 * each ordered pair of GPUs weighted equally: the best of a in {none, 1,
 * 2, 4, 8, 16, 32, 64}, shape_cap in {0, 0.05, ..., 2} and shape_pull in
 * {0, 0.01, ..., 1}.  *rms_log as conv_fit().
 * 0, -EINVAL (no such sample), -ENOMEM. */
int conv_fit_pull(const struct conv_sample *s, size_t n, struct conv_params *p, double *rms_log);

/* ---- cuDNN's own picks on an architecture (conv_pick.c) -------------- */

/* The kernels cuDNN 9 runs a forward FP32 3 x 3 unit-stride convolution
 * with on Hopper, as our H200's and H100's kernel names show them: three
 * implicit-GEMM tiles (sm80_xmma_fprop_implicit_gemm_..._tilesizeMxNx8)
 * and FFT at three transform sizes (fft2d_r2c_LxL, a complex GEMM over
 * the frequencies, fft2d_c2r_LxL), the largest also as one complex GEMM
 * per frequency. */
enum conv_kind {
	CONV_KIND_IG_32X32 = 0,
	CONV_KIND_IG_32X32_INDEXED, /* its indexed variant
				     * (fprop_implicit_gemm_indexed_...)      */
	CONV_KIND_IG_128X32,
	CONV_KIND_IG_256X64,
	CONV_KIND_FFT_16,
	CONV_KIND_FFT_32,
	CONV_KIND_FFT_64,
	CONV_KIND_FFT_64_PER_FREQ, /* 64 x 64 transforms with one complex GEMM
				    * launched per frequency (2112 of them) */
	CONV_KIND_COUNT
};

/* The kind of a measured convolution from its main kernel's name and the
 * ';'-separated names of every kernel it launched (either may be NULL);
 * -1 when it is none of them. */
int conv_kind_of(const char *kname, const char *kernels);
const char *conv_kind_name(enum conv_kind c);

/* One measured convolution of a pick table: its implicit GEMM's rows
 * (N P Q), columns (K filters) and reduction (C R S), its output's side
 * P, and the kind cuDNN ran. */
struct conv_pick_row {
	uint32_t m, n, k, q;
	uint8_t kind;
};

/* The constants of one kind (conv_pick.c gives the formulas). */
struct conv_kind_params {
	double eff;         /* sustained fraction of the FP32 rate the FMA
			     * loop reaches (gpu_fp32_simt_tflops()): on the
			     * tile's work (implicit GEMM), on the complex
			     * GEMM's FLOPs (FFT)                          */
	double steps;       /* implicit GEMM: a tile's fixed cost in steps
			     * of its reduction                            */
	double blocks;      /* implicit GEMM: blocks an SM runs at once     */
	double overlap_pow; /* implicit GEMM: roofline_join_ns()'s q        */
	double mem_x;       /* FFT: its traffic (the transforms written and
			     * read) over the DRAM bandwidth, times this    */
	double launch_ns;   /* FFT with a GEMM per frequency: each one's
			     * time (launch and a small GEMM)              */
	double floor_ns;    /* the measuring host's floor, added with floor */
};

/* An architecture's table: the shapes measured on one GPU of it, the kind
 * cuDNN ran for each, and each kind's constants fitted on the same rows. */
struct conv_picks {
	const struct conv_pick_row *rows;
	size_t n;
	struct conv_kind_params kind[CONV_KIND_COUNT];
};

/* Our H200's 3797 FP32 sweep shapes (cuDNN 9.19), for targets of
 * compute capability 9.x whose figures are not held out
 * (conv_has_own_shape()); conv_sm90_picks.c says how it was made. */
extern const struct conv_picks conv_sm90_picks;

/* The kind g's cuDNN is taken to pick for forward convolution k: the
 * vote of the CONV_PICK_VOTES measured shapes of t nearest to k (octaves
 * of m, n, k and q summed).  -1 when t has no rows or k is not a forward
 * FP32 3 x 3 unit-stride convolution. */
#define CONV_PICK_VOTES 15
int conv_pick_kind(const struct conv_picks *t, const struct pred_kernel *k);

/* The time of forward convolution k on g run as kind c with constants
 * kp, ns, with kp's floor when floor is 1; *memory_bound (may be NULL) 1
 * when an implicit GEMM's DRAM traffic outlasts its math (0 for FFT,
 * whose transforms run at the SMs' pace).  Negative when k or g lacks
 * what the formula needs. */
double conv_kind_ns(const struct pred_kernel *k, const struct gpu_spec *g, enum conv_kind c,
		    const struct conv_kind_params *kp, int floor, int *memory_bound);

/* Fits kind c's constants to the n samples s[i] (forward convolutions as
 * a config gives them, measured s[i].ns on s[i].target) by least squares
 * on the log error with the floor; *kp receives them, *rms_log the RMS
 * (may be NULL).  0, -EINVAL (no usable sample). */
int conv_kind_fit(const struct conv_sample *s, size_t n, enum conv_kind c,
		  struct conv_kind_params *kp, double *rms_log);

#endif
