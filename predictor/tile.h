/*
 * tile.h - the tile-level model: tile shapes from kernel names and launch
 * geometry, NeuSight-style features, an MLP predicting utilisation, bounded
 * by the roofline; from scratch or as an origin/target ratio.
 */
#ifndef SURFER_TILE_H
#define SURFER_TILE_H

#include <stddef.h>
#include <stdint.h>
#include "predictor/predict.h"

/* The tile model's weights: an MLP ensemble per family, the GEMM curve,
 * the per-family floors, the power cap's energy and the library's tile
 * picks (tilepick.c), as surfer-train wrote them.  Opaque; built by
 * tile_model_new() (empty) or tile_model_load_*(), immutable once loaded
 * except for tile_model_set_sustain_pj() on one's own model.  Every
 * function below that reads a tile_model takes NULL as the empty model
 * (no MLPs, no curve, no floors, no power cap, no picks). */
struct tile_model;

/* Predicts k on target with the tile model of p (its weights, its floor
 * switch, its AMD scale; predict.h).  When origin is not NULL and
 * k->origin_ns > 0 the measurement is used, linearly: T_o x model(t) /
 * model(o) (T_o itself when origin is target), so the prediction scales
 * with the origin time as predict.h promises.  Fills what it applied
 * (weights, floor, AMD scale; the target's) into out.  Returns 0, or a
 * negative code when the model cannot describe k. */
int tile_predict(const struct predictor *p, const struct pred_kernel *k,
		 const struct gpu_spec *origin, const struct gpu_spec *target,
		 struct pred_result *out);

/* ---- tile shapes (tiles.c) ------------------------------------------ */

enum tile_kind {
	TILE_UNKNOWN = 0,
	TILE_GEMM,          /* a block computes a tm x tn output tile        */
	TILE_ELEMENTWISE,   /* a block handles block threads x vec elements  */
	TILE_ROW            /* a block (or a warp) handles whole rows        */
};

struct tile_shape {
	enum tile_kind kind;
	/* GEMM: the block's output tile; t0 spans the library's first output
	 * dimension (the output's columns, n, for PyTorch's row-major calls
	 * into column-major cuBLAS), t1 its rows (m); tk the k-step, split
	 * the slicing/split-k factor (1 none).  0 = unknown. */
	uint32_t t0, t1, tk, split;
	uint32_t vec;       /* elementwise: elements per thread access       */
	uint32_t arch;      /* cc the kernel was built for (maxwell_ 50, volta_
			     * 70, turing_ 75, ampere_ 80, sm90_ 90), 0 unknown */
};

/* Reads the tile a kernel name announces: cuBLAS/cuDNN (`maxwell_sgemm_
 * 128x64_nn`, `volta_sgemm_32x32_sliced1x4_tn`, `ampere_sgemm_...`,
 * `..._tilesize128x128x32_...`, `sm90_xmma_gemm_...`), CUTLASS
 * (`cutlass_80_tensorop_s1688gemm_256x128_32x3_nn`), Triton (`triton_poi_`,
 * `triton_red_`, `triton_mm`) and PyTorch's at::native elementwise, softmax
 * and layer-norm kernels.  Returns 0 and fills out when the name says
 * something, -1 otherwise (out is then zeroed). */
int tile_from_name(const char *name, struct tile_shape *out);

/* Infers a GEMM tile from the grid and the GEMM shape (batch x m x n) when
 * the name gives none: the power-of-two tile that yields the grid.  0 or -1
 * when k is not a GEMM with a grid. */
int tile_from_launch(const struct pred_kernel *k, struct tile_shape *out);

/* A canonical GEMM tile for k (batch x m x n outputs) on target, used
 * where tile_pick_lookup() has nothing: the largest of 128x128, 128x64,
 * 64x64, 128x32, 32x128 that still gives every SM a block, else 32x32. */
void tile_gemm_pick(const struct pred_kernel *k, const struct gpu_spec *target,
		    struct tile_shape *out);

/* ---- the library's tile picks (tilepick.c) -------------------------- */

/* Which tile g's library picks for GEMM k, from the pick tables m
 * carries (surfer-train records them per training GPU): g's own table,
 * else that of a board of g's architecture (compute capability); the
 * nearest recorded shape cell when k's is empty.  0 and fills out, or -1
 * (no table of g's architecture, or no cell near k's); callers then use
 * tile_gemm_pick(). */
int tile_pick_lookup(const struct tile_model *m, const struct pred_kernel *k,
		     const struct gpu_spec *g, struct tile_shape *out);
/* The training GPU whose table tile_pick_lookup() uses for g; NULL none. */
const struct gpu_spec *tile_pick_source(const struct tile_model *m, const struct gpu_spec *g);
/* A GEMM's shape cell: octaves of m, n, k and batch, and whether it is
 * batched (23 bits). */
uint32_t tile_pick_key(const struct pred_kernel *k);
/* A tile as 9 bits (log2 of t0, t1 and split). */
uint32_t tile_pick_code(const struct tile_shape *t);
#define TILE_PICK_MAXGPU 16
/* The pick tables of one set of weights: per training GPU, its entries
 * (cell key << 9 | tile code, keys ascending). */
struct tile_pick_table {
	const struct gpu_spec *gpu;
	uint32_t n;
	uint32_t *e;            /* n entries, owned                          */
	int own;                /* 1: recorded from one of our own GPUs'
				 * measurements (surfer-train --picks-data),
				 * held out with its figures              */
};
struct tile_picks {
	struct tile_pick_table t[TILE_PICK_MAXGPU];
	int n;
};
/* Parses a pick section of a weights blob and appends its tables to out
 * (zeroed by the caller before the first), marked own when own is 1: u32
 * count, then per GPU u32 id length, the GPU id, u32 n and n u32 entries
 * (keys ascending); GPUs this build does not know are skipped.  *used is the
 * section's length.  0, or -1 (malformed or more than TILE_PICK_MAXGPU
 * tables in all; out unchanged).  tile_picks_release() frees the
 * entries. */
int tile_picks_parse(struct tile_picks *out, const unsigned char *p, size_t len, int own,
		     size_t *used);
void tile_picks_release(struct tile_picks *p);
/* m's tables (NULL for the empty model). */
const struct tile_picks *tile_model_picks(const struct tile_model *m);

/* ---- features and weights (tile.c) ---------------------------------- */

/* The model families, one MLP each. */
enum tile_family {
	TILE_FAM_GEMM = 0, TILE_FAM_ELEMENTWISE, TILE_FAM_SOFTMAX, TILE_FAM_NORM,
	TILE_FAM_COUNT
};

#define TILE_NFEAT 24   /* features per family (unused ones are 0) */
/* A family may have several models (an ensemble of members trained with
 * other seeds on other row samples); its time is their geometric mean. */
#define TILE_MAX_MEMBERS 8

/* The family of k's operator, or -1 when the model does not cover it. */
int tile_family_of(const struct pred_kernel *k);

/* Computes the features of k on g under weights m (their power cap and
 * tile picks) given its GEMM tile t (NULL: the one tile_pick_lookup() or
 * else tile_gemm_pick() predicts), and the roofline time base_ns the
 * utilisation divides.  Returns the family, or -1 when k cannot be
 * described (no shape, unknown operator, missing figures). */
int tile_features(const struct tile_model *m, const struct pred_kernel *k,
		  const struct gpu_spec *g, const struct tile_shape *t, double feat[TILE_NFEAT],
		  double *base_ns);

/* Turns the MLP's raw output into a time: base_ns / sigmoid(out), i.e. the
 * model predicts utilisation u in (0,1) of the roofline. */
double tile_time_from_output(double out, double base_ns);

/* The model's time is never more than TILE_MAX_SLOWDOWN x the roofline
 * plus TILE_MAX_EXTRA_NS: NeuSight's slowest kernels relative to their
 * roofline are ~110x (+1.3 ms, odd-shaped linears) and the launch floor
 * is 25-60 us, so the cap never binds on measured kernels but stops an
 * MLP extrapolating far outside its data (column reductions came out at
 * 1e8 x the roofline).  tile_clamp_ns() applies it. */
#define TILE_MAX_SLOWDOWN 256.0
#define TILE_MAX_EXTRA_NS 2e6
double tile_clamp_ns(double ns, double base_ns);

/* The power cap (power.c): the fraction of the FP32 peak g sustains, from
 * its TDP, node and the energy per core-cycle at 16 nm that weights m
 * carry (1 when they carry none); the features and the roofline use the
 * peak times it.  tile_model_set_sustain_pj() sets that energy on one's
 * own model (surfer-train, before computing features);
 * tile_model_sustain_pj() reads it. */
double tile_sustained_fraction(const struct tile_model *m, const struct gpu_spec *g);
void tile_model_set_sustain_pj(struct tile_model *m, double pj);
double tile_model_sustain_pj(const struct tile_model *m);
/* AMD targets: each kernel class's time times a scale, plus a fixed cost
 * per kernel (a predictor's, predict.h): how ROCm's PyTorch and rocBLAS
 * kernels compare with the CUDA ones the model learnt from (tools/lab/profile.c fits both on NeuSight's
 * per-operator profiles of AMD GPUs; predictor/amd_scale.c holds the
 * compiled-in ones).  The classes are the tile-model families with GEMMs
 * whose second operand is read transposed (attention's Q K^T) apart from
 * the others, and softmax split in two, as PyTorch dispatches it: a warp
 * per row up to 1024 columns, a block per row beyond.  Applied to the work
 * term before the floor, on AMD targets only, so that an AMD origin and an
 * AMD target cancel in the ratio. */
enum tile_amd_class {
	TILE_AMD_GEMM = 0, TILE_AMD_GEMM_BT, TILE_AMD_ELEMENTWISE, TILE_AMD_SOFTMAX_WARP,
	TILE_AMD_SOFTMAX_BLOCK, TILE_AMD_NORM, TILE_AMD_NCLASS
};
struct tile_amd_scale {
	double scale[TILE_AMD_NCLASS];
	double fixed_ns;        /* added to every kernel's time */
};
/* The compiled-in scale (predictor/amd_scale.c, surfer-bench profile --emit). */
extern const struct tile_amd_scale tile_amd_scale_default;
extern const char *const tile_amd_class_names[TILE_AMD_NCLASS];
/* k's class, or -1 when the tile model has no family for it. */
int tile_amd_class_of(const struct pred_kernel *k);

/* Hopper's FP32 GEMM tiles: on a target of compute capability 9.x whose
 * figures are kept (gpu_specs/figures.h), a GEMM's work term (before the
 * floor, as the AMD scale) times the scale of its tile and batching,
 * measured over predicted on our own GPU of that architecture
 * (predictor/tile_sm90_scale.c, `surfer-bench tile-scale`; tile.c says
 * why).  A tile and batching with no entry: 1. */
struct tile_own_scale {
	uint16_t t0, t1;        /* the tile, NeuSight's t0 x t1             */
	uint8_t batched;        /* 1: a batched GEMM (bmm), 0: one GEMM     */
	uint16_t n;             /* the GEMMs it was measured on             */
	double scale;           /* measured over predicted, their median    */
};
struct tile_own_scales {
	const struct tile_own_scale *e;
	size_t n;
};
/* The compiled-in ones: our H100's and H200's (predictor/tile_sm90_scale.c). */
extern const struct tile_own_scales tile_sm90_scales;
/* 1 when GEMM k is batched for the scale: more than one batch, each with
 * its own second operand (a bmm); a batch over one shared weight (a
 * linear layer over a 3-D input, NeuSight's linear rows with B > 1, whose
 * bytes count the weight once) is one GEMM of B x M rows to cuBLAS. */
int tile_gemm_batched(const struct pred_kernel *k);
/* The scale s gives GEMM k on g run with tile t (1 when none applies: g
 * not 9.x, its figures held out, s NULL or without the entry). */
double tile_own_scale(const struct tile_own_scales *s, const struct pred_kernel *k,
		      const struct gpu_spec *g, const struct tile_shape *t);
/* The tile GEMM k runs with on g: tin when it names one, else the one g's
 * library is predicted to pick (tilepick.c), else the canonical rule. */
void tile_gemm_of(const struct tile_model *m, const struct pred_kernel *k, const struct gpu_spec *g,
		  const struct tile_shape *tin, struct tile_shape *out);

/* The GEMM curve: a few-constant model of an FP32 GEMM's time that the
 * GEMM family's MLP prediction is blended with (the geometric mean of the
 * two), fitted by surfer-train on the same rows.  With 128 x 128 output
 * tiles over B x M x N, e_wave = tiles / (waves x SMs) and e_pad = M N /
 * the padded tiles' area,
 *
 *   time = max(F / (P x e^c0 x e_wave^c1 x e_pad^c2), bytes / (BW x e^c3))
 *
 * with P the FP32 peak the power cap sustains and BW the achievable
 * bandwidth.  tile_curve_terms() fills t with F / P and bytes / BW (ns),
 * log e_wave and log e_pad for k on g under weights m (their power cap;
 * -1 when k is not an FP32 GEMM of known shape); tile_curve_ns() is the
 * time for constants c; and
 * tile_curve_valid() says whether c is inside the physical region (no
 * efficiency above 1, 0 <= c1 <= c2 <= 2, which keeps the time
 * non-decreasing in the shape as tcgemm.c explains). */
#define TILE_CURVE_NPARAM 4
int tile_curve_terms(const struct tile_model *m, const struct pred_kernel *k,
		     const struct gpu_spec *g, double t[4]);
double tile_curve_ns(const double t[4], const double c[TILE_CURVE_NPARAM]);
int tile_curve_valid(const double c[TILE_CURVE_NPARAM]);
/* m's constants: 1 and c filled when m carries a curve, else 0. */
int tile_curve_params(const struct tile_model *m, double c[TILE_CURVE_NPARAM]);

/* The floor of family fam in weights m, ns: the model's time is floor +
 * base_ns / utilisation.  NeuSight's timings of a PyTorch op never go
 * below 25-60 us (launch and event overhead of the measuring host);
 * surfer-train sets it from the training GPUs' 1st percentile times
 * (train.c).  0 when the weights carry none.  Predictions leave it out
 * unless the predictor's tile_floor is set (predict.h): a kernel's
 * duration as a profiler or a trace records it has no host overhead in
 * it; surfer-bench accuracy, which compares with NeuSight's op timings,
 * turns it on. */
double tile_floor_ns(const struct tile_model *m, int fam);
/* Combines the floor F and the work term W = base / u into the time,
 * (F^p + W^p)^(1/p) with p = TILE_FLOOR_P (W alone when F is 0); the
 * weights are trained for the p they were built with. */
#define TILE_FLOOR_P 1.0
double tile_with_floor(double floor_ns, double work_ns);

/* Weights blob: "STIL", u32 version (1 to 5), u32 count, (version 2) u32
 * sustain energy in fJ (pJ x 1000) and u32 floor (ns) per family, then
 * per model u32
 * family, u32 feature count, and an mlp blob (a family may repeat, up to
 * TILE_MAX_MEMBERS times: an ensemble); (version 4) then u32
 * TILE_CURVE_NPARAM and the GEMM curve's constants as IEEE doubles (u64
 * little-endian bit patterns); (version 3) then the pick tables
 * (tile_picks_parse); (version 5) then those of our own GPUs, the
 * tables marked own.  tile_model_load_blob() builds a model from a blob,
 * tile_model_load_file() from a file, tile_model_load_builtin() from the
 * compiled-in blob (tile_weights.c; the empty model when it is empty);
 * each returns 0 and *out (free with tile_model_free), or -1 (malformed)
 * / -2 (unreadable, out of memory).  tile_model_new() returns an empty
 * model, or NULL when out of memory. */
int tile_model_load_blob(const unsigned char *blob, size_t len, struct tile_model **out);
int tile_model_load_file(const char *path, struct tile_model **out);
int tile_model_load_builtin(struct tile_model **out);
struct tile_model *tile_model_new(void);
void tile_model_free(struct tile_model *m);

/* Nonzero when m carries a model for family fam. */
int tile_model_has(const struct tile_model *m, int fam);

/* The compiled-in weights (predictor/tile_weights.c, written by surfer-train). */
extern const unsigned char tile_weights_blob[];
extern const size_t tile_weights_blob_len;

#endif
