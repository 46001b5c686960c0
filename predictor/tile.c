/*
 * tile.c - the tile model: NeuSight-style features of a kernel's tiles on a
 * GPU, one small MLP per operator family (an ensemble of up to eight for
 * GEMMs, averaged, and blended with a four-constant GEMM curve) predicting
 * the utilisation of the roofline, used from scratch or as an
 * origin/target ratio.
 *
 * Features (NeuSight, Lee et al. ASPLOS 2025, section 4.2, all log2): the
 * time one tile's FLOPs take at one SM's peak, the time its bytes take at one
 * SM's share of the bandwidth, the number of waves, and the memory and L2
 * pressure of the data a wave touches; plus the whole kernel's roofline
 * terms and its shape; the GEMM tile is the one the GPU's library picks
 * (tilepick.c).  The MLP's output o gives the
 * utilisation u = sigmoid(o), and time = roofline / u, so a prediction
 * from the shape can never beat the roofline.  A per-family floor (the launch and timing
 * overhead of the measuring host) is added, and the FP32 peak is the one
 * the GPU's power limit sustains.  With a measured origin the prediction
 * is the ratio T_o * model(target) / model(origin) (Habitat, Yu et al.
 * ATC 2021, section 3.3), which cancels what the model gets wrong about
 * the kernel on both GPUs and is linear in T_o (predict.h's contract); a
 * measurement faster than the model's origin time carries over, below the
 * target's roofline if need be.
 */
#include "predictor/tile.h"
#include "gpu_specs/figures.h"
#include "predictor/mlp.h"
#include "predictor/power.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One set of weights (tile.h).  Built by tile_model_load_*() and only
 * read afterwards, except surfer-train's tile_model_set_sustain_pj() on
 * the model it builds. */
struct tile_model {
	struct mlp *models[TILE_FAM_COUNT][TILE_MAX_MEMBERS];
	int nmembers[TILE_FAM_COUNT];
	/* The GEMM curve's constants (tile.h); has_curve 0: the weights
	 * carry none and GEMMs are the MLP's alone. */
	double curve[TILE_CURVE_NPARAM];
	int has_curve;
	/* Energy of one FP32 core-cycle (an FMA) scaled to 16 nm, in pJ,
	 * that the weights were trained with; 0: no power cap. */
	double sustain_pj16;
	/* Per family, the time every measured kernel takes at least (launch
	 * and timing overhead), added to the roofline / utilisation term
	 * when the predictor asks for it; 0: none. */
	double floor_ns[TILE_FAM_COUNT];
	struct tile_picks picks;
};

const char *const tile_amd_class_names[TILE_AMD_NCLASS] = {
	"gemm", "gemm-bt", "elementwise", "softmax-warp", "softmax-block", "norm"
};

int tile_amd_class_of(const struct pred_kernel *k)
{
	switch (tile_family_of(k)) {
	case TILE_FAM_GEMM:
		return k->b_transposed ? TILE_AMD_GEMM_BT : TILE_AMD_GEMM;
	case TILE_FAM_ELEMENTWISE:
		return TILE_AMD_ELEMENTWISE;
	case TILE_FAM_SOFTMAX:
		return k->n > 1024 ? TILE_AMD_SOFTMAX_BLOCK : TILE_AMD_SOFTMAX_WARP;
	case TILE_FAM_NORM:
		return TILE_AMD_NORM;
	default:
		return -1;
	}
}

double tile_floor_ns(const struct tile_model *m, int fam)
{
	return m && fam >= 0 && fam < TILE_FAM_COUNT ? m->floor_ns[fam] : 0;
}

static double lg(double v) { return log2(v > 1e-30 ? v : 1e-30); }

int tile_family_of(const struct pred_kernel *k)
{
	switch (k->op) {
	case PRED_OP_GEMM:        return TILE_FAM_GEMM;
	case PRED_OP_ELEMENTWISE: return TILE_FAM_ELEMENTWISE;
	case PRED_OP_SOFTMAX:     return TILE_FAM_SOFTMAX;
	case PRED_OP_NORM:
	case PRED_OP_REDUCTION:   return TILE_FAM_NORM;
	default:                  return -1;
	}
}

double tile_model_sustain_pj(const struct tile_model *m) { return m ? m->sustain_pj16 : 0; }
void tile_model_set_sustain_pj(struct tile_model *m, double pj) { m->sustain_pj16 = pj > 0 ? pj : 0; }

/* The fraction of the boost-clock FP32 peak g sustains under its power
 * limit (power.c), with the energy at 16 nm that surfer-train fitted on
 * the training GPUs alone and stored in the weights, and the node rule it
 * was fitted with. */
double tile_sustained_fraction(const struct tile_model *m, const struct gpu_spec *g)
{
	return power_sustained_fraction(g, tile_model_sustain_pj(m), POWER_NODE_SQUARE12);
}

/* FP32 peak in FLOP/ns at the clock the power limit sustains (the rate
 * code can issue: for a GEMM gpu_fp32_gemm_tflops() x gpu_matrix_eff(),
 * else gpu_fp32_simt_tflops()), times scale: the tile model covers the FP32
 * kernels it was trained on; other dtypes use that dtype's peak when the
 * GPU lists it. */
static double peak_flops_per_ns(const struct tile_model *m, const struct gpu_spec *g,
				enum gpu_dtype dt, int gemm, double scale)
{
	double t = (dt < GPU_DT_COUNT && dt != GPU_DT_FP32) ? g->peak_tflops[dt] : 0;
	if (!(t > 0))
		t = gemm ? gpu_fp32_gemm_tflops(g) : gpu_fp32_simt_tflops(g);
	if (gemm)
		t *= gpu_matrix_eff(g);
	return t * 1e3 * tile_sustained_fraction(m, g) * scale;
}

static double fig_gemm_scale(const struct tile_model *m, const struct gpu_spec *g);

/* Achievable DRAM bandwidth in bytes/ns (GB/s): the public measurement
 * when the GPU database has one, which is what a streaming kernel sees. */
static double bw_bytes_per_ns(const struct gpu_spec *g)
{
	double bw = gpu_mem_bw_eff_gbps(g);
	return bw > 0 ? bw : g->mem_bw_gbps;
}

/* The GPU enters only through the work divided by its throughput (tile
 * time at one SM's peak, waves, pressure on L2, roofline terms): raw figures
 * such as the SM count, the bandwidth or the TDP identify the GPU among the
 * few it was trained on, and a new GPU then gets what the model learnt for
 * its nearest neighbour (docs/tile-model.md).  Features 17..23 are spare
 * and kept 0, so weights keep their shape if some are added. */

void tile_gemm_of(const struct tile_model *m, const struct pred_kernel *k, const struct gpu_spec *g,
		  const struct tile_shape *tin, struct tile_shape *out)
{
	/* The tile the library picked (surfer-train passes the one the
	 * measured kernel's name shows; with a measured origin, the origin
	 * is described by its kernel's), else the one g's library is
	 * predicted to pick (tilepick.c), else the canonical rule. */
	if (tin && tin->kind == TILE_GEMM && tin->t0 && tin->t1)
		*out = *tin;
	else if (tile_pick_lookup(m, k, g, out) != 0)
		tile_gemm_pick(k, g, out);
}

/* The GEMM features of k on g with the tile tile_gemm_of() gives (into
 * *used, when not NULL). */
static int gemm_feats(const struct tile_model *m, const struct pred_kernel *k,
		      const struct gpu_spec *g, const struct tile_shape *tin, double *f,
		      double *base_ns, double scale, struct tile_shape *used)
{
	struct tile_shape t;
	if (!k->m || !k->n || !k->k)
		return -1;
	tile_gemm_of(m, k, g, tin, &t);
	if (used)
		*used = t;
	double B = k->batch ? (double)k->batch : 1, M = (double)k->m, N = (double)k->n,
	       K = (double)k->k;
	double peak = peak_flops_per_ns(m, g, k->dtype, 1, scale), bw = bw_bytes_per_ns(g);
	double esz = 4;
	double flops = k->flops > 0 ? k->flops : 2 * B * M * N * K;
	double bytes = k->bytes > 0 ? k->bytes : esz * B * (M * K + K * N + M * N);
	double sms = g->sms;
	/* NeuSight's tile: t0 x t1 outputs, each needing the full reduction. */
	double t0 = t.t0, t1 = t.t1;
	double blocks = B * ceil(N / t0) * ceil(M / t1);
	double waves = ceil(blocks / sms);
	double tile_flops = 2 * t0 * t1 * K;
	double tile_bytes = esz * (t0 * K + K * t1 + t0 * t1);
	double l2 = (g->l2_mb > 0 ? g->l2_mb : 1) * 1048576.0;
	double mem = (g->mem_gb > 0 ? g->mem_gb : 8) * 1e9;
	*base_ns = fmax(flops / peak, bytes / bw);
	f[0] = lg(tile_flops / (peak / sms));
	f[1] = lg(tile_bytes / (bw / sms));
	f[2] = lg(waves);
	f[3] = blocks / (waves * sms);              /* fill of the last wave */
	f[4] = lg(waves * tile_bytes / (mem / sms));
	f[5] = lg(waves * tile_bytes / (l2 / sms));
	f[6] = lg(flops / peak);
	f[7] = lg(bytes / bw);
	f[8] = lg(B);
	f[9] = lg(M);
	f[10] = lg(N);
	f[11] = lg(K);
	/* f[12..14] (the tile's sides and split) stay 0: the tile enters
	 * through the work it implies (tile time, waves, fill, pressure).  As
	 * inputs of their own they let the model tie a tile to the GPUs that
	 * used it (the P4's slow 64x64 GEMMs made a held-out P100 slow with
	 * that tile); without them, held out, GEMMs 21.8% -> 21.1% and
	 * iterations 12.6% -> 10.6% (five-member ensembles, docs/tile-model.md). */
	f[15] = lg(flops / bytes);
	f[16] = lg(blocks);
	return 0;
}

/* Vector operators: a row-wise or elementwise pass over m rows of n
 * elements.  The grid is PyTorch's choice (a function of the shape, not of
 * the GPU); when unknown it is inferred as PyTorch computes it. */
static int vector_feats(const struct tile_model *m, const struct pred_kernel *k,
			const struct gpu_spec *g, int fam, double *f, double *base_ns)
{
	if (!k->m || !k->n)
		return -1;
	double rows = (double)k->m, cols = (double)k->n, numel = rows * cols;
	double peak = peak_flops_per_ns(m, g, k->dtype, 0, 1), bw = bw_bytes_per_ns(g);
	/* one read and one write of each element, at the dtype's size */
	double esz = (k->dtype == GPU_DT_FP16 || k->dtype == GPU_DT_BF16) ? 2 : 4;
	double bytes = k->bytes > 0 ? k->bytes : 2 * esz * numel;
	double flops = k->flops > 0 ? k->flops : numel;
	double threads = (double)k->block[0] * (k->block[1] ? k->block[1] : 1) *
			 (k->block[2] ? k->block[2] : 1);
	double blocks = (double)k->grid[0] * (k->grid[1] ? k->grid[1] : 1) *
			(k->grid[2] ? k->grid[2] : 1);
	if (!(threads > 0))
		threads = 128;
	if (!(blocks > 0))
		blocks = fam == TILE_FAM_ELEMENTWISE ? ceil(numel / (threads * 4)) : rows;
	double maxthr = (g->limits && g->limits->max_threads_per_sm) ?
			g->limits->max_threads_per_sm : 2048;
	double per_sm = floor(maxthr / threads);
	if (per_sm < 1)
		per_sm = 1;
	double sms = g->sms;
	double waves = ceil(blocks / (sms * per_sm));
	double tile_bytes = bytes / blocks;
	double l2 = (g->l2_mb > 0 ? g->l2_mb : 1) * 1048576.0;
	*base_ns = fmax(flops / peak, bytes / bw);
	f[0] = lg(tile_bytes / (bw / sms));
	f[1] = lg(flops / blocks / (peak / sms));
	f[2] = lg(waves);
	f[3] = blocks / (waves * sms * per_sm);
	f[4] = lg(bytes / l2);
	f[5] = lg(flops / peak);
	f[6] = lg(bytes / bw);
	f[7] = lg(rows);
	f[8] = lg(cols);
	f[9] = lg(numel);
	f[10] = lg(bytes / numel);                  /* operands per element */
	f[11] = lg(flops / numel);                  /* work per element     */
	f[12] = lg(threads);
	f[13] = lg(blocks);
	f[14] = lg(blocks / sms);
	for (int i = 15; i < 17; i++)
		f[i] = 0;
	return 0;
}

/* tile_features() with the GEMM peak times scale; a GEMM's tile into
 * *used (may be NULL). */
static int features_at(const struct tile_model *m, const struct pred_kernel *k,
		       const struct gpu_spec *g, const struct tile_shape *t, double feat[TILE_NFEAT],
		       double *base_ns, double scale, struct tile_shape *used)
{
	int fam = tile_family_of(k);
	/* Trained on FP32 SIMT kernels only (NeuSight's data, TF32 off): a
	 * tensor-core kernel's utilisation is another story the model has not
	 * seen, so it declines and callers fall back to wave scaling.  Vector
	 * operators are memory-bound and their features are bytes and FLOPs,
	 * so 16-bit ones are described with their bytes (surfer-bench vec
	 * measures how well; `auto` prefers vecop.c for them, choose.c). */
	int dt_ok = k->dtype == GPU_DT_FP32 ||
		    (fam != TILE_FAM_GEMM && (k->dtype == GPU_DT_FP16 || k->dtype == GPU_DT_BF16));
	if (fam < 0 || !dt_ok || !g || !g->sms ||
	    !(g->peak_tflops[GPU_DT_FP32] > 0) || !(g->mem_bw_gbps > 0))
		return -1;
	memset(feat, 0, TILE_NFEAT * sizeof *feat);
	int rc = fam == TILE_FAM_GEMM ? gemm_feats(m, k, g, t, feat, base_ns, scale, used)
				      : vector_feats(m, k, g, fam, feat, base_ns);
	if (rc != 0)
		return -1;
	for (int i = 0; i < TILE_NFEAT; i++)
		if (!isfinite(feat[i]))
			return -1;
	return fam;
}

/* A GEMM's scale of the FP32 peak (fig_gemm_scale()); 1 for the rest. */
static double family_scale(const struct tile_model *m, const struct pred_kernel *k,
			   const struct gpu_spec *g)
{
	return k && tile_family_of(k) == TILE_FAM_GEMM ? fig_gemm_scale(m, g) : 1;
}

int tile_features(const struct tile_model *m, const struct pred_kernel *k,
		  const struct gpu_spec *g, const struct tile_shape *t, double feat[TILE_NFEAT],
		  double *base_ns)
{
	return features_at(m, k, g, t, feat, base_ns, family_scale(m, k, g), NULL);
}

double tile_time_from_output(double out, double base_ns)
{
	/* u = sigmoid(out); base / u = base * (1 + exp(-out)). */
	if (out < -700)
		out = -700;
	return base_ns * (1.0 + exp(-out));
}

double tile_with_floor(double floor_ns_, double work_ns)
{
	/* (F^p + W^p)^(1/p): p = 1 adds the overhead to the kernel, a
	 * larger p overlaps them (a smooth maximum).  p = 4 fits far better
	 * in-sample (elementwise 2% against 14%) but held out did worse on
	 * iterations, so TILE_FLOOR_P is 1 (docs/tile-model.md). */
	if (!(floor_ns_ > 0))
		return work_ns;
	double r = work_ns / floor_ns_;
	return floor_ns_ * pow(1 + pow(r, TILE_FLOOR_P), 1.0 / TILE_FLOOR_P);
}

double tile_clamp_ns(double ns, double base_ns)
{
	double cap = TILE_MAX_SLOWDOWN * base_ns + TILE_MAX_EXTRA_NS;
	return ns < cap ? ns : cap;
}

/* ---- the GEMM curve ---------------------------------------------------- */

static int curve_terms(const struct tile_model *m, const struct pred_kernel *k,
		       const struct gpu_spec *g, double t[4], double scale)
{
	if (!k || !g || k->op != PRED_OP_GEMM || k->dtype != GPU_DT_FP32 || !k->m || !k->n ||
	    !k->k || !g->sms || !(g->peak_tflops[GPU_DT_FP32] > 0) || !(g->mem_bw_gbps > 0))
		return -1;
	double B = k->batch ? (double)k->batch : 1, M = (double)k->m, N = (double)k->n,
	       K = (double)k->k;
	double tm = ceil(M / 128), tn = ceil(N / 128), tiles = B * tm * tn;
	double waves = ceil(tiles / g->sms);
	double flops = k->flops > 0 ? k->flops : 2 * B * M * N * K;
	double bytes = k->bytes > 0 ? k->bytes : 4 * B * (M * K + K * N + M * N);
	t[0] = flops / peak_flops_per_ns(m, g, GPU_DT_FP32, 1, scale);
	t[1] = bytes / bw_bytes_per_ns(g);
	t[2] = log(tiles / (waves * g->sms));
	t[3] = log(M * N / (tm * 128 * tn * 128));
	return isfinite(t[0]) && isfinite(t[1]) ? 0 : -1;
}

int tile_curve_terms(const struct tile_model *m, const struct pred_kernel *k,
		     const struct gpu_spec *g, double t[4])
{
	return curve_terms(m, k, g, t, fig_gemm_scale(m, g));
}

double tile_curve_ns(const double t[4], const double c[TILE_CURVE_NPARAM])
{
	double eff = exp(c[0] + c[1] * t[2] + c[2] * t[3]);
	return fmax(t[0] / eff, t[1] / exp(c[3]));
}

/* The ensemble's time for features f (the geometric mean of its members':
 * they were trained on log time); a GEMM's blended with the curve (its
 * geometric mean), whose few constants carry to a new GPU more steadily
 * than the MLP's many, at the same scale of the peak. */
static double mlp_curve_ns(const struct tile_model *m, int fam, const double *f, double base_ns,
			   const struct pred_kernel *k, const struct gpu_spec *g, double scale)
{
	double y, logw = 0, ct[4];
	for (int j = 0; j < m->nmembers[fam]; j++) {
		mlp_forward(m->models[fam][j], f, &y);
		logw += log(tile_time_from_output(y, base_ns));
	}
	double w = exp(logw / m->nmembers[fam]);
	if (fam == TILE_FAM_GEMM && m->has_curve && curve_terms(m, k, g, ct, scale) == 0)
		w = sqrt(w * tile_curve_ns(ct, m->curve));
	return w;
}

/*
 * The scale of the FP32 GEMM peak that makes the model time the figure's
 * own GEMM at the figure's rate, on a GPU whose GEMM rate is its
 * fp32_gemm_eff figure (gpus.c's gpu_fp32_gemm_tflops(): Hopper and
 * data-centre Blackwell, measured, from the same die or the rule); 1
 * elsewhere.
 *
 * Everywhere else the peak is what the FP32 lanes can issue (the FMA rate
 * under load) and the model's utilisation of it is what it learnt: a
 * large SGEMM on the training GPUs is timed at 0.86-0.89 of it.  The
 * figure is not such a peak but a large SGEMM's measured rate, which that
 * utilisation would then lower a second time: the H200's 4096^3, 50.75
 * TFLOP/s measured, was predicted at 45 from its own figure (11 % slow),
 * its FP32 iterations 4-11 % slow.  So the model is held to the figure at
 * the shape it was measured at, and every other shape keeps the model's
 * own relation to it.  Nothing is fitted: the scale is the model's own
 * reference time over the figure's.  Held out (the GPU's SM kind out of
 * the figures) no figure exists and the peak stays the main loop's
 * instruction mix (GPU_FP32_HOPPER_GEMM_EFF), a peak of the first kind.
 */
#define FIG_GEMM_DIM 4096 /* the square SGEMM the figure was measured at   */
#define FIG_GEMM_ITERS 3  /* each step moves the reference time by the
			   * ratio left; the utilisation's weak pull on the
			   * peak leaves under 1e-3 of it after the second */

static double fig_gemm_scale(const struct tile_model *m, const struct gpu_spec *g)
{
	struct gpu_figure_value v;
	if (!m || !g || !gpu_fp32_dedicated_lanes(g) || !tile_model_has(m, TILE_FAM_GEMM) ||
	    gpu_figure(g, GPU_FIG_FP32_GEMM_EFF, gpu_figures_held_out(), &v) == GPU_PROV_NONE ||
	    !(v.value > 0))
		return 1;
	struct pred_kernel k;
	memset(&k, 0, sizeof k);
	k.op = PRED_OP_GEMM;
	k.dtype = GPU_DT_FP32;
	k.m = k.n = k.k = FIG_GEMM_DIM;
	k.batch = 1;
	double d = FIG_GEMM_DIM, rate = gpu_fp32_gemm_tflops(g) * gpu_matrix_eff(g) * 1e3;
	double want_ns = 2 * d * d * d / rate, s = 1, f[TILE_NFEAT], base;
	if (!(want_ns > 0))
		return 1;
	for (int i = 0; i < FIG_GEMM_ITERS; i++) {
		if (features_at(m, &k, g, NULL, f, &base, s, NULL) != TILE_FAM_GEMM)
			return 1;
		double ns = mlp_curve_ns(m, TILE_FAM_GEMM, f, base, &k, g, s);
		if (!(ns > 0) || !isfinite(ns))
			return 1;
		s *= ns / want_ns;
	}
	return s;
}

int tile_gemm_batched(const struct pred_kernel *k)
{
	if (!k || k->batch <= 1)
		return 0;
	double B = (double)k->batch, M = (double)k->m, N = (double)k->n, K = (double)k->k;
	double e = gpu_dtype_bytes(k->dtype), both = e * B * (M * K + M * N);
	double shared = both + e * K * N, own = both + e * B * K * N;
	/* no byte count: a batch of its own operands, as a trace's strided
	 * batched GEMM is */
	return !(k->bytes > 0) || fabs(k->bytes - own) <= fabs(k->bytes - shared);
}

/*
 * Hopper's tiles (tile_own_scale()).  The MLP learnt what each of cuBLAS's
 * SIMT tiles sustains from five GPUs of 64-lane SMs; on Hopper's 128
 * dedicated FP32 lanes the tiles do not keep those proportions, and the
 * way they miss is the same on our H200 and our H100, tile by tile: from
 * the shape with the figures kept, of the GEMMs of NeuSight's test shapes
 * that ran 0.1 ms or more (log of predicted over measured, medians, H200 /
 * H100): batched 128 x 64 +0.34 / +0.37, 64 x 128 +0.27 / +0.19, 64 x 64
 * +0.20 / +0.14, 128 x 32 -0.28 / -0.15, 32 x 32 -0.23 / -0.22, 64 x 256
 * -0.14 / -0.11, 128 x 128 -0.01 / -0.05; unbatched 128 x 64 -0.23 /
 * -0.20, 128 x 128 +0.01 / 0.00.  So a 9.x target whose figures are kept
 * takes, per tile and batching, the median of measured over predicted on
 * our H100's and H200's GEMMs (the work term, before the floor; none for
 * the tile and batching of the figure's own GEMM, which the figure pins),
 * generated into tile_sm90_scale.c by surfer-bench tile-scale.  Each board
 * from the other's rows alone: test-shape GEMMs H100 15.0 -> 12.8 %, H200
 * 14.5 -> 10.8 % (docs/tile-model.md, "Hopper's tiles").  Held out no
 * scale applies.
 */
double tile_own_scale(const struct tile_own_scales *s, const struct pred_kernel *k,
		      const struct gpu_spec *g, const struct tile_shape *t)
{
	if (!s || !k || !g || !t || gpu_cc_is_amd(g->cc) || g->cc / 10 != 9 ||
	    gpu_figures_held_out() == g->cc)
		return 1;
	uint8_t batched = (uint8_t)tile_gemm_batched(k);
	for (size_t i = 0; i < s->n; i++)
		if (s->e[i].t0 == t->t0 && s->e[i].t1 == t->t1 && s->e[i].batched == batched &&
		    s->e[i].scale > 0)
			return s->e[i].scale;
	return 1;
}

int tile_curve_valid(const double c[TILE_CURVE_NPARAM])
{
	for (int i = 0; i < TILE_CURVE_NPARAM; i++)
		if (!isfinite(c[i]))
			return 0;
	return c[0] <= 0 && c[3] <= 0 && c[1] >= 0 && c[2] >= c[1] && c[2] <= 2;
}

int tile_curve_params(const struct tile_model *m, double c[TILE_CURVE_NPARAM])
{
	if (!m || !m->has_curve)
		return 0;
	memcpy(c, m->curve, sizeof m->curve);
	return 1;
}

/* ---- weights --------------------------------------------------------- */

static uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

struct tile_model *tile_model_new(void)
{
	return calloc(1, sizeof(struct tile_model));
}

void tile_model_free(struct tile_model *m)
{
	if (!m)
		return;
	for (int f = 0; f < TILE_FAM_COUNT; f++)
		for (int j = 0; j < m->nmembers[f]; j++)
			mlp_free(m->models[f][j]);
	tile_picks_release(&m->picks);
	free(m);
}

const struct tile_picks *tile_model_picks(const struct tile_model *m)
{
	return m ? &m->picks : NULL;
}

int tile_model_load_blob(const unsigned char *blob, size_t len, struct tile_model **out)
{
	struct tile_model *m;
	*out = NULL;
	if (len < 12 || memcmp(blob, "STIL", 4) != 0 || rd32(blob + 4) < 1 || rd32(blob + 4) > 5)
		return -1;
	if (!(m = tile_model_new()))
		return -2;
	uint32_t version = rd32(blob + 4), count = rd32(blob + 8);
	size_t off = 12;
	if (version >= 2) {
		/* v2: the power-cap energy (pJ x 1000) and the floors (ns). */
		if (len < 16 + 4 * TILE_FAM_COUNT)
			goto bad;
		m->sustain_pj16 = rd32(blob + 12) / 1000.0;
		for (int f = 0; f < TILE_FAM_COUNT; f++)
			m->floor_ns[f] = rd32(blob + 16 + 4 * f);
		off = 16 + 4 * TILE_FAM_COUNT;
	}
	for (uint32_t i = 0; i < count; i++) {
		if (len - off < 8)
			goto bad;
		uint32_t fam = rd32(blob + off), nfeat = rd32(blob + off + 4);
		off += 8;
		struct mlp *mm;
		size_t used;
		if (fam >= TILE_FAM_COUNT || nfeat != TILE_NFEAT ||
		    m->nmembers[fam] == TILE_MAX_MEMBERS || mlp_load(blob + off, len - off, &mm, &used) != 0)
			goto bad;
		if (mlp_inputs(mm) != TILE_NFEAT || mlp_outputs(mm) != 1) {
			mlp_free(mm);
			goto bad;
		}
		m->models[fam][m->nmembers[fam]++] = mm;
		off += used;
	}
	if (version >= 4) {
		if (len - off < 4 + 8 * TILE_CURVE_NPARAM || rd32(blob + off) != TILE_CURVE_NPARAM)
			goto bad;
		off += 4;
		for (int i = 0; i < TILE_CURVE_NPARAM; i++, off += 8) {
			uint64_t bits = (uint64_t)rd32(blob + off) | (uint64_t)rd32(blob + off + 4) << 32;
			memcpy(&m->curve[i], &bits, sizeof m->curve[i]);
		}
		if (!tile_curve_valid(m->curve))
			goto bad;
		m->has_curve = 1;
	}
	/* v3: the training GPUs' tile picks; v5: then our own GPUs' */
	size_t used = 0;
	if (version >= 3 && tile_picks_parse(&m->picks, blob + off, len - off, 0, &used) != 0)
		goto bad;
	off += used;
	used = 0;
	if (version >= 5 && tile_picks_parse(&m->picks, blob + off, len - off, 1, &used) != 0)
		goto bad;
	off += used;
	if (version >= 3 && off != len)
		goto bad;
	*out = m;
	return 0;
bad:
	tile_model_free(m);
	return -1;
}

int tile_model_load_file(const char *path, struct tile_model **out)
{
	*out = NULL;
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return -2;
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0, n;
	do {
		if (len == cap) {
			cap = cap ? cap * 2 : 65536;
			unsigned char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(fp);
				return -2;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, fp);
		len += n;
	} while (n > 0);
	int err = ferror(fp);
	fclose(fp);
	int rc = err ? -2 : tile_model_load_blob(buf, len, out);
	free(buf);
	return rc;
}

int tile_model_load_builtin(struct tile_model **out)
{
	/* A compiled-in blob that does not parse (none can: check_tile
	 * loads it) leaves the model empty, as an empty blob does. */
	if (tile_weights_blob_len > 0 &&
	    tile_model_load_blob(tile_weights_blob, tile_weights_blob_len, out) == 0)
		return 0;
	*out = tile_model_new();
	return *out ? 0 : -2;
}

int tile_model_has(const struct tile_model *m, int fam)
{
	return m && fam >= 0 && fam < TILE_FAM_COUNT && m->nmembers[fam] > 0;
}

/* What model_ns() applied on top of the MLP and the curve. */
struct tile_applied {
	double floor_ns;        /* the family's floor, 0 when left out       */
	double amd_scale;       /* the AMD class scale, 0 not an AMD target  */
	double amd_fixed_ns;
};

/* p's model's time for k on g; -1 when it cannot say.  *mem_bound: 1 when
 * the bytes term of the roofline is the larger. */
static double model_ns(const struct predictor *p, const struct pred_kernel *k,
		       const struct gpu_spec *g, const struct tile_shape *tile, double *base_ns,
		       int *mem_bound, struct tile_applied *ap)
{
	const struct tile_model *m = predictor_tile(p);
	double f[TILE_NFEAT], scale = family_scale(m, k, g);
	struct tile_shape t;
	int fam = features_at(m, k, g, tile, f, base_ns, scale, &t);
	if (fam < 0 || !tile_model_has(m, fam))
		return -1;
	/* f[6]/f[7] (GEMM) and f[5]/f[6] (vector) are log2 of the FLOP and
	 * byte terms of the roofline. */
	*mem_bound = fam == TILE_FAM_GEMM ? f[7] >= f[6] : f[6] >= f[5];
	double w = mlp_curve_ns(m, fam, f, *base_ns, k, g, scale);
	memset(ap, 0, sizeof *ap);
	if (fam == TILE_FAM_GEMM)
		w *= tile_own_scale(predictor_own_scales(p), k, g, &t);
	int ac = gpu_cc_is_amd(g->cc) ? tile_amd_class_of(k) : -1;
	if (ac >= 0) {
		const struct tile_amd_scale *as = predictor_amd_scale(p);
		w = w * as->scale[ac] + as->fixed_ns;
		ap->amd_scale = as->scale[ac];
		ap->amd_fixed_ns = as->fixed_ns;
	}
	ap->floor_ns = predictor_tile_floor(p) ? m->floor_ns[fam] : 0;
	return tile_clamp_ns(tile_with_floor(ap->floor_ns, w), *base_ns);
}

int tile_predict(const struct predictor *p, const struct pred_kernel *k,
		 const struct gpu_spec *origin, const struct gpu_spec *target,
		 struct pred_result *out)
{
	double base_t, base_o, t_ns, o_ns;
	int mb_t = -1, mb_o = -1;
	struct tile_applied at, ao;
	if (!p || !k || !target || !out)
		return -1;
	int ratio = origin && k->origin_ns > 0;
	t_ns = model_ns(p, k, target, NULL, &base_t, &mb_t, &at);
	if (t_ns <= 0)
		return -1;
	memset(out, 0, sizeof *out);
	out->method = PRED_MLP;
	out->gamma = -1;
	out->memory_bound = mb_t;
	out->roofline_ns = base_t;
	out->ns = t_ns;
	out->weights = predictor_weights(p);
	out->floor_ns = at.floor_ns;
	out->amd_scale = at.amd_scale;
	out->amd_fixed_ns = at.amd_fixed_ns;
	if (ratio) {
		/* The origin ran the tile its kernel's name shows. */
		struct tile_shape ot;
		int named = k->op == PRED_OP_GEMM && tile_from_name(k->name, &ot) == 0 &&
			    ot.kind == TILE_GEMM;
		o_ns = model_ns(p, k, origin, named ? &ot : NULL, &base_o, &mb_o, &ao);
		if (o_ns <= 0)
			return -1;
		/* The measurement times the model's target/origin ratio, and
		 * nothing else: linear in T_o, as predict.h promises (the
		 * geometric mean of this and the model's own time did better
		 * on NeuSight's kernels but moved by half as much as the
		 * measurement; no floor at the target's roofline either,
		 * which would stop a fast kernel's prediction from following
		 * it).  t_ns and o_ns are each clamped already. */
		out->ns = origin == target ? k->origin_ns : k->origin_ns * (t_ns / o_ns);
	}
	return 0;
}
