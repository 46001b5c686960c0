/*
 * bench_own.c - `surfer-bench own`: our own measurements of one GPU
 * (tools/gpu/kernels.py, committed under data/<gpu>/ours) against surfer's
 * predictions from the shape, with the GPU's architecture (its compute
 * capability) out of every fit.
 *
 * Files of --dataset DIR (each optional, read at run time):
 *  - gemm.csv   dtype (bf16, fp16, tf32, fp8), m, n, k, latency_ms:
 *               torch.matmul / torch._scaled_mm, one GEMM each;
 *  - sdpa.csv   batch, heads, seq, head_dim, pass (fwd, fwd+bwd),
 *               latency_ms: causal SDPA on the flash backend, BF16:
 *               PyTorch's vendored FlashAttention-2 (forward; backward's
 *               dot_do_o, dq_dk_dv and convert_dq kernels);
 *  - decode.csv batch, heads, kv_heads, head_dim, context, latency_ms: one
 *               query token per sequence against `context` cached keys,
 *               SDPA with enable_gqa (the flash backend's split-KV
 *               forward, K and V not repeated);
 *  - vec.csv    op, rows, hidden, latency_ms: BF16 PyTorch operators;
 *  - model.csv  model, batch, context, latency_ms: kernels.py's decode step
 *               (its own loop, not transformers': per layer RMSNorm, one
 *               QKV GEMM, SDPA over a fixed cache, O, one gate+up GEMM,
 *               SiLU x up, down; final norm and LM head; no rotary, no
 *               cache append, no embedding or sampling, eager, no CUDA
 *               graph), predicted as `surfer-analyze --model NAME --mode
 *               decode --batch B --seq CONTEXT --dtype bf16` with each
 *               engine in own_engines[] (none of them is that loop: the
 *               table says how far each is).
 * Held out: with --data (the shared data folder) the tensor-core GEMM
 * constants (bench_tc_fit_heldout), the attention main loop's efficiency
 * (attention_fit_mma_eff on those) and the vector-op constants
 * (bench_vec_fit_heldout) are fitted without every GPU of the target's
 * compute capability, as `make bench-serving` fits them; the FP32 tile
 * model's compiled-in weights never saw a GPU newer than sm_80.  Without
 * --data the compiled-in constants stand (fitted with the H20's and
 * H800's GEMMs) and the header says "not held out".  Nothing is fitted on
 * these rows.
 * Columns: the roofline from the shape (PRED_ROOFLINE), auto with the
 * held-out constants, auto with the compiled-in ones; MAPE %, and the
 * median signed error of the held-out column.
 */
#include "tools/lab/bench_own.h"
#include "tools/lab/bench_tc.h"
#include "tools/lab/bench_vec.h"
#include "tools/lab/stats.h"
#include "analyzer/model/attn.h"
#include "analyzer/model/model.h"
#include "analyzer/model/run.h"
#include "gpu_specs/figures.h"
#include "gpu_specs/gpu.h"
#include "predictor/attention.h"
#include "predictor/tcgemm.h"
#include "predictor/vecop.h"
#include "trace/csv.h"
#include "trace/surfer_err.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "surfer-bench"
#define OWN_MAXK 4              /* kernels of one row: fwd+bwd's four    */
#define OWN_MAXROWS 4096        /* rows per group                        */

/* One group of rows (a dtype, a pass, an op): each row's measured and
 * predicted ms per column. */
enum { OC_ROOF, OC_HELD, OC_COMPILED, OC_NCOL };
static const char *const own_colname[OC_NCOL] = {"roofline", "auto held out", "auto compiled-in"};

struct own_group {
	char name[48];
	size_t n;
	double sum[OC_NCOL];          /* sum of |pred / meas - 1| x 100       */
	double err[OWN_MAXROWS];      /* signed % of the held-out column      */
};

struct own_table {
	struct own_group g[32];
	size_t n;
};

/* Rows predicted (held out) at this or more go into a second table too:
 * each call timed alone (bench_own_row_queued()) also holds PyTorch's
 * dispatch on the host while the GPU waits (NeuSight's floors, 26 and 44
 * us per operator; our smallest GEMMs take 23-45 us, their kernels a
 * few), which no kernel model
 * describes; from 0.5 ms on it is under a tenth of the time.  Chosen on
 * the prediction, not the measurement, so the selection does not follow
 * the error. */
#define OWN_LARGE_MS 0.5

static struct own_group *own_group_of(struct own_table *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->g[i].name, name))
			return &t->g[i];
	if (t->n == sizeof t->g / sizeof t->g[0])
		return NULL;
	struct own_group *g = &t->g[t->n++];
	memset(g, 0, sizeof *g);
	snprintf(g->name, sizeof g->name, "%s", name);
	return g;
}

static void own_add(struct own_table *t, const char *name, double meas_ms, const double pred_ms[OC_NCOL])
{
	struct own_group *g = own_group_of(t, name);
	if (!g || g->n == OWN_MAXROWS || !(meas_ms > 0))
		return;
	for (int c = 0; c < OC_NCOL; c++) /* no prediction counts as 100 % */
		g->sum[c] += pred_ms[c] > 0 ? fabs(pred_ms[c] / meas_ms - 1) * 100 : 100;
	g->err[g->n++] = pred_ms[OC_HELD] > 0 ? (pred_ms[OC_HELD] / meas_ms - 1) * 100 : -100;
}

/* Prints t's groups and, for kernels (engines 0), all rows together; for
 * model.csv's engines (engines 1) no roofline and no total, the groups
 * being one set of rows predicted three ways. */
static void own_print(struct own_table *t, const char *title, int engines)
{
	if (!t->n)
		return;
	printf("\n%s: MAPE %%\n%-22s %5s %10s %14s %17s %22s\n", title, "group", "rows", own_colname[0],
	       own_colname[1], own_colname[2], "held out, median error");
	struct own_group all = { .name = "all" };
	for (size_t i = 0; i <= t->n; i++) {
		struct own_group *g = i < t->n ? &t->g[i] : &all;
		if (i < t->n) {
			for (int c = 0; c < OC_NCOL; c++)
				all.sum[c] += g->sum[c];
			for (size_t r = 0; r < g->n && all.n < OWN_MAXROWS; r++)
				all.err[all.n++] = g->err[r];
		}
		if (!g->n || (i == t->n && (t->n == 1 || engines)))
			continue;
		double n = (double)g->n;
		char roof[16] = "-";
		if (!engines)
			snprintf(roof, sizeof roof, "%.1f", g->sum[OC_ROOF] / n);
		printf("%-22s %5zu %10s %14.1f %17.1f %+21.1f%%\n", g->name, g->n, roof,
		       g->sum[OC_HELD] / n, g->sum[OC_COMPILED] / n, lab_median(g->err, g->n));
	}
}

int bench_heldout_constants(const char *data, uint32_t cc, struct tcgemm_params *tc,
			    struct attn_params *at, struct vecop_params *vp, char *err, size_t errlen)
{
	*tc = tcgemm_default_params;
	*at = attention_default_params;
	*vp = vecop_default_params;
	char e[256];
	if (bench_tc_fit_heldout(data, &cc, 1, tc, e, sizeof e) < 0) {
		snprintf(err, errlen, "tensor-core constants: %s", e);
		*tc = tcgemm_default_params;
		return -1;
	}
	double eff = attention_fit_mma_eff(tc, &cc, 1);
	if (eff > 0)
		at->mma_eff = eff;
	if (bench_vec_fit_heldout(data, &cc, 1, vp, e, sizeof e) < 0) {
		snprintf(err, errlen, "vector-op constants: %s", e);
		*tc = tcgemm_default_params;
		*at = attention_default_params;
		*vp = vecop_default_params;
		return -1;
	}
	return 0;
}

/* ---- a row's kernels --------------------------------------------------- */

static int own_dtype(const char *s, enum gpu_dtype *dt)
{
	static const struct { const char *name; enum gpu_dtype dt; } m[] = {
		{"bf16", GPU_DT_BF16}, {"fp16", GPU_DT_FP16}, {"tf32", GPU_DT_TF32}, {"fp8", GPU_DT_FP8},
		{"fp32", GPU_DT_FP32},
	};
	for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
		if (!strcmp(s, m[i].name)) {
			*dt = m[i].dt;
			return 0;
		}
	return -1;
}

/* A BF16 vector kernel of rows x cols elements moving bytes. */
static void own_vector(struct pred_kernel *k, enum pred_op op, double rows, double cols, double bytes,
		       double flops_per_elem)
{
	memset(k, 0, sizeof *k);
	k->op = op;
	k->dtype = GPU_DT_BF16;
	k->m = (uint64_t)rows;
	k->n = (uint64_t)cols;
	k->batch = 1;
	k->grid[0] = (uint32_t)fmax(1, ceil(rows * cols / 512));
	k->grid[1] = k->grid[2] = 1;
	k->block[0] = 128, k->block[1] = k->block[2] = 1;
	k->bytes = bytes;
	k->flops = flops_per_elem * rows * cols;
}

int bench_own_kernels(const char *kind, const char *op_or_dtype, const double *v, size_t nv,
		      struct pred_kernel *k, size_t max)
{
	for (size_t i = 0; i < nv; i++)
		if (!(v[i] >= 0 && v[i] < 1e9))
			return -1;
	if (!strcmp(kind, "gemm")) {
		enum gpu_dtype dt;
		if (nv < 3 || max < 1 || own_dtype(op_or_dtype, &dt) || !(v[0] >= 1 && v[1] >= 1 && v[2] >= 1))
			return -1;
		memset(k, 0, sizeof *k);
		k->op = PRED_OP_GEMM;
		k->dtype = dt;
		k->m = (uint64_t)v[0], k->n = (uint64_t)v[1], k->k = (uint64_t)v[2], k->batch = 1;
		k->flops = 2.0 * v[0] * v[1] * v[2];
		/* inputs at their width (TF32 reads FP32), the output BF16 for
		 * FP8 (_scaled_mm's out_dtype) and in the dtype otherwise */
		int wide = dt == GPU_DT_TF32 || dt == GPU_DT_FP32;
		double in = dt == GPU_DT_FP8 ? 1 : wide ? 4 : 2;
		double out = wide ? 4 : 2;
		k->bytes = (v[0] * v[2] + v[2] * v[1]) * in + v[0] * v[1] * out;
		return 1;
	}
	if (!strcmp(kind, "sdpa") || !strcmp(kind, "decode")) {
		int decode = kind[0] == 'd';
		if (nv < 5 || v[0] < 1 || v[1] < 1 || v[2] < 1 || v[3] < 1 || (decode && v[4] < 1))
			return -1;
		uint32_t heads = (uint32_t)v[1], kvh = decode ? (uint32_t)v[2] : heads;
		uint32_t d = (uint32_t)(decode ? v[3] : v[3]);
		if (kvh == 0 || heads % kvh)
			return -1;
		struct pred_attn a;
		attention_init(&a, PRED_ATTN_FA2, decode ? PRED_ATTN_DECODE : PRED_ATTN_PREFILL, !decode, heads,
			  kvh, d, 0);
		uint64_t seq = (uint64_t)v[2];
		if (attention_add_seqs(&a, (uint64_t)v[0], decode ? 1 : seq, decode ? (uint64_t)v[4] : seq))
			return -1;
		int bwd = !decode && v[4] != 0;
		if ((size_t)(bwd ? 4 : 1) > max)
			return -1;
		memset(k, 0, (size_t)(bwd ? 4 : 1) * sizeof *k);
		attn_describe(&k[0], &a, GPU_DT_BF16, 2, 0);
		if (!bwd)
			return 1;
		/* the backward (attn_emit_backward): dot_do_o reads dO and O and
		 * writes an FP32 row per query and head, zeroing the FP32 dQ
		 * accumulator; then dq_dk_dv; then convert_dq, FP32 dQ to BF16 */
		double q = (double)a.q_tokens, H = heads, hd = d;
		own_vector(&k[1], PRED_OP_REDUCTION, q * H, hd, 4 * q * H * hd + 4 * q * H * hd + 4 * q * H, 2);
		attn_describe(&k[2], &a, GPU_DT_BF16, 2, 1);
		own_vector(&k[3], PRED_OP_ELEMENTWISE, q * H, hd, 6 * q * H * hd, 1);
		return 4;
	}
	if (!strcmp(kind, "vec")) {
		/* bytes per element: two BF16 inputs and one output (add, mul),
		 * one and one (the rest); F.layer_norm / F.rms_norm without a
		 * weight */
		static const struct { const char *op; enum pred_op pop; double rw, flops; } ops[] = {
			{"add", PRED_OP_ELEMENTWISE, 6, 1}, {"mul", PRED_OP_ELEMENTWISE, 6, 1},
			{"gelu", PRED_OP_ELEMENTWISE, 4, 10}, {"silu", PRED_OP_ELEMENTWISE, 4, 5},
			{"softmax", PRED_OP_SOFTMAX, 4, 5}, {"layer_norm", PRED_OP_NORM, 4, 5},
			{"rms_norm", PRED_OP_NORM, 4, 4},
		};
		if (nv < 2 || max < 1 || v[0] < 1 || v[1] < 1)
			return -1;
		for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
			if (!strcmp(op_or_dtype, ops[i].op)) {
				own_vector(k, ops[i].pop, v[0], v[1], ops[i].rw * v[0] * v[1], ops[i].flops);
				return 1;
			}
		return -1;
	}
	return -1;
}

/* ---- the files ----------------------------------------------------------- */

struct own_preds {
	const struct predictor *held, *compiled;
	const struct gpu_spec *g;
	int rows;                     /* --rows: print each row              */
	FILE *dump;                   /* --dump: the tensor-core GEMMs' held-
				       * out predictions, as surfer-bench
				       * tensorcore --dump writes them        */
};

/* Sum over the row's kernels of method m's prediction with p, ms; 0 when
 * one has none. */
static double own_predict(const struct predictor *p, const struct gpu_spec *g,
			  const struct pred_kernel *k, int nk, enum pred_method m)
{
	double ns = 0;
	for (int i = 0; i < nk; i++) {
		struct pred_result r;
		if (predict_kernel(p, &k[i], NULL, g, m, &r) != 0 || !(r.ns > 0))
			return 0;
		ns += r.ns;
	}
	return ns / 1e6;
}

/* Columns of the kernel file kind: the group key's column (the dtype, op
 * or pass; -1: one group) and the numbers, in bench_own_kernels' order. */
static const struct own_file {
	const char *kind, *key;
	const char *num[5];
} own_files[] = {
	{"gemm", "dtype", {"m", "n", "k"}},
	{"sdpa", "pass", {"batch", "heads", "seq", "head_dim"}},
	{"decode", NULL, {"batch", "heads", "kv_heads", "head_dim", "context"}},
	{"vec", "op", {"rows", "hidden"}},
};

int bench_own_row_queued(const struct csv_reader *csv, int col)
{
	return col >= 0 && !strcmp(csv_field(csv, (size_t)col), "queued");
}

/* How many of a file's rows were timed queued and how many alone
 * (bench_own_row_queued()). */
struct own_timing {
	size_t queued, alone;
};

/* Reads DIR/<kind>.csv and adds each row to t, counting in *how how its
 * rows were timed.  0 (absent files too: *seen stays 0), or -1 with a
 * message printed. */
static int own_kernel_file(const char *dir, const struct own_file *f, const struct own_preds *op,
			   struct own_table *t, struct own_table *large, int *seen,
			   struct own_timing *how)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s.csv", dir, f->kind);
	struct csv_reader csv;
	if (csv_open(&csv, path, 0) != 0)
		return 0;
	*seen = 1;
	int rc = csv_next(&csv), ckey = -1, clat = -1, ctim = -1, cnum[5];
	size_t nnum = 0;
	if (rc == 1) {
		ckey = f->key ? csv_col(&csv, f->key) : -2;
		clat = csv_col(&csv, "latency_ms");
		ctim = csv_col(&csv, "timing");
		for (; nnum < 5 && f->num[nnum]; nnum++)
			cnum[nnum] = csv_col(&csv, f->num[nnum]);
	}
	int bad = rc != 1 || ckey == -1 || clat < 0;
	for (size_t i = 0; i < nnum; i++)
		bad |= cnum[i] < 0;
	if (bad) {
		char cols[128] = "";
		for (size_t i = 0, n = 0; i < 6 && n < sizeof cols; i++) {
			const char *c = i == 0 ? f->key : f->num[i - 1];
			if (c)
				n += (size_t)snprintf(cols + n, sizeof cols - n, "%s, ", c);
		}
		fprintf(stderr, PROG ": own: '%s' is not kernels.py's %s.csv (no %slatency_ms columns)\n",
			path, f->kind, cols);
		csv_release(&csv);
		return -1;
	}
	while ((rc = csv_next(&csv)) == 1) {
		double v[5];
		const char *key = ckey >= 0 ? csv_field(&csv, (size_t)ckey) : "";
		for (size_t i = 0; i < nnum; i++)
			v[i] = strtod(csv_field(&csv, (size_t)cnum[i]), NULL);
		/* sdpa: the pass as the fifth number (1 for fwd+bwd) */
		if (!strcmp(f->kind, "sdpa"))
			v[nnum] = !strcmp(key, "fwd+bwd");
		struct pred_kernel k[OWN_MAXK];
		int nk = bench_own_kernels(f->kind, key, v, nnum + !strcmp(f->kind, "sdpa"), k, OWN_MAXK);
		double meas = strtod(csv_field(&csv, (size_t)clat), NULL);
		if (nk <= 0 || !(meas > 0)) {
			fprintf(stderr, PROG ": own: %s:%lu: a row it cannot read, skipped\n", path, csv.line);
			continue;
		}
		if (bench_own_row_queued(&csv, ctim))
			how->queued++;
		else
			how->alone++;
		double pred[OC_NCOL] = {
			own_predict(op->compiled, op->g, k, nk, PRED_ROOFLINE),
			own_predict(op->held, op->g, k, nk, PRED_AUTO),
			own_predict(op->compiled, op->g, k, nk, PRED_AUTO),
		};
		char name[48];
		snprintf(name, sizeof name, "%s%s%s", f->kind, *key ? " " : "", key);
		own_add(t, name, meas, pred);
		/* the tensor-core model's GEMMs (16-bit and FP8; FP32 takes the
		 * tile model) from the shape, for surfer-bench calibrate: those
		 * predicted at OWN_LARGE_MS or more, whose time is the kernel's */
		if (op->dump && !strcmp(f->kind, "gemm") && k[0].dtype != GPU_DT_FP32 &&
		    k[0].dtype != GPU_DT_TF32 && pred[OC_HELD] >= OWN_LARGE_MS)
			fprintf(op->dump, "%s,%s,%.0f,%.0f,%.0f,%.1f,%.1f,%.1f,-1.0,-1.0,\n", op->g->id,
				key, v[0], v[1], v[2], meas * 1e6, pred[OC_ROOF] * 1e6,
				pred[OC_HELD] * 1e6);
		if (pred[OC_HELD] >= OWN_LARGE_MS)
			own_add(large, name, meas, pred);
		if (op->rows) {
			printf("%-18s", name);
			for (size_t i = 0; i < nnum; i++)
				printf(" %7.0f", v[i]);
			printf("  %9.4f ms  roofline %+7.1f%%  held out %+7.1f%%\n", meas,
			       (pred[OC_ROOF] / meas - 1) * 100, (pred[OC_HELD] / meas - 1) * 100);
		}
	}
	if (rc < 0)
		fprintf(stderr, PROG ": own: %s\n", csv.err);
	csv_release(&csv);
	return rc < 0 ? -1 : 0;
}

/* ---- sdpa.csv from another GPU's times, as a recorded trace has it ------ */

/* A row's nk kernels (forward; or forward, dot_do_o, dq_dk_dv, convert_dq,
 * as bench_own_kernels gives them) as the recorder sees them: PyTorch's
 * FlashAttention-2, mangled names and grids, no shape; names[i] of size
 * 512.  named 0: a name that says attention and nothing
 * more (what such a kernel was before attention_from_name()). */
static void own_recorded(int nk, uint32_t b, uint32_t h, uint32_t s, uint32_t d, int named,
			 char (*names)[512], struct pred_kernel *out)
{
	/* the tiles FlashAttention-2 takes on sm80 and sm90 (flash_fwd_launch_
	 * template.h, flash_bwd_launch_template.h: head dim 64 and 128) */
	uint32_t fbn = d <= 64 ? 128 : 64, bbm = d <= 64 ? 128 : 64, bbn = 128;
	char ftr[160], btr[200];
	snprintf(ftr, sizeof ftr, "23Flash_fwd_kernel_traitsILi%uELi128ELi%uELi4ELb0ELb0EN7cutlass10bfloat16_tE"
		 "19Flash_kernel_traitsILi%uELi128ELi%uELi4ES2_EE", d, fbn, d, fbn);
	snprintf(btr, sizeof btr, "23Flash_bwd_kernel_traitsILi%uELi%uELi%uELi8ELi2ELi4ELi2ELb0ELb0E"
		 "N7cutlass10bfloat16_tE19Flash_kernel_traitsILi%uELi%uELi%uELi8ES2_EE", d, bbm, bbn, d,
		 bbm, bbn);
	for (int i = 0; i < nk; i++) {
		memset(&out[i], 0, sizeof out[i]);
		out[i].dtype = GPU_DT_BF16;
		out[i].block[0] = i == 0 ? 128 : 256;
		out[i].block[1] = out[i].block[2] = 1;
		uint32_t tile = i == 0 ? 128 : i == 2 ? bbn : bbm;
		out[i].grid[0] = (s + tile - 1) / tile;
		out[i].grid[1] = b;
		out[i].grid[2] = h;
		if (!named)
			snprintf(names[i], 512, "flash_attention_kernel_%d", i);
		else if (i == 0)
			snprintf(names[i], 512, "_ZN13pytorch_flash16flash_fwd_kernelI%sLb0ELb1ELb0ELb0ELb1ELb1ELb0ELb0E"
				 "EEvNS_16Flash_fwd_paramsE", ftr);
		else if (i == 1)
			snprintf(names[i], 512, "_ZN13pytorch_flash25flash_bwd_dot_do_o_kernelILb1E%sEEvNS_16"
				 "Flash_bwd_paramsE", btr);
		else if (i == 2)
			snprintf(names[i], 512, "_ZN13pytorch_flash44flash_bwd_dq_dk_dv_loop_seqk_parallel_kernelI%s"
				 "Lb0ELb1ELb0ELb0ELb1ELb1ELb0EEEvNS_16Flash_bwd_paramsE", btr);
		else
			snprintf(names[i], 512, "_ZN13pytorch_flash27flash_bwd_convert_dq_kernelI%sEEvNS_16"
				 "Flash_bwd_paramsEi", btr);
		out[i].name = names[i];
		predict_classify(&out[i]);
	}
}

/* One sdpa.csv row's time on g from its time on og (o_ms), as a recorded
 * trace's kernels carry it: split over the row's kernels as the model
 * splits it on og, each kernel scaled by PRED_AUTO from og to g. */
static double own_from_origin(const struct predictor *p, const struct gpu_spec *og,
			      const struct gpu_spec *g, const struct pred_kernel *k, int nk,
			      const double v[5], int named, double o_ms)
{
	struct pred_kernel rec[OWN_MAXK];
	char names[OWN_MAXK][512];
	double share[OWN_MAXK], sum = 0, ns = 0;
	for (int i = 0; i < nk; i++) {
		struct pred_result r;
		if (predict_kernel(p, &k[i], NULL, og, PRED_AUTO, &r) != 0 || !(r.ns > 0))
			return 0;
		share[i] = r.ns;
		sum += r.ns;
	}
	own_recorded(nk, (uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2], (uint32_t)v[3], named, names, rec);
	for (int i = 0; i < nk; i++) {
		struct pred_result r;
		rec[i].origin_ns = o_ms * 1e6 * share[i] / sum;
		if (predict_kernel(p, &rec[i], og, g, PRED_AUTO, &r) != 0 || !(r.ns > 0))
			return 0;
		ns += r.ns;
	}
	return ns / 1e6;
}

/* The rows of DIR/sdpa.csv: batch, heads, seq, head_dim and the pass (1
 * for fwd+bwd) in key[i], the latency in ms[i]; at most max.  The count,
 * 0 without the file (absent is 0 rows), or -1 with a message printed. */
enum { OWN_SDPA_ROWS = 1024 };
static long own_sdpa_rows(const char *dir, double (*key)[5], double *ms, size_t max)
{
	static const char *const cols[] = {"batch", "heads", "seq", "head_dim", "pass", "latency_ms"};
	char path[4096];
	snprintf(path, sizeof path, "%s/sdpa.csv", dir);
	struct csv_reader csv;
	if (csv_open(&csv, path, 0) != 0)
		return 0;
	int rc = csv_next(&csv), c[6];
	for (int i = 0; i < 6; i++)
		if ((c[i] = rc == 1 ? csv_col(&csv, cols[i]) : -1) < 0) {
			fprintf(stderr, PROG ": own: '%s' is not kernels.py's sdpa.csv (no %s column)\n", path,
				cols[i]);
			csv_release(&csv);
			return -1;
		}
	size_t n = 0;
	while (n < max && (rc = csv_next(&csv)) == 1) {
		for (int i = 0; i < 4; i++)
			key[n][i] = strtod(csv_field(&csv, (size_t)c[i]), NULL);
		key[n][4] = !strcmp(csv_field(&csv, (size_t)c[4]), "fwd+bwd");
		ms[n++] = strtod(csv_field(&csv, (size_t)c[5]), NULL);
	}
	if (rc < 0)
		fprintf(stderr, PROG ": own: %s\n", csv.err);
	csv_release(&csv);
	return rc < 0 ? -1 : (long)n;
}

/* sdpa.csv's rows measured on both GPUs, at OWN_LARGE_MS or more on the
 * origin (its rows may hold the host's dispatch below that): this GPU's
 * time from the origin's, the kernels named as the recorder records them
 * (their shape from the name) against unnamed (wave scaling); MAPE. */
static int own_sdpa_from(const char *dir, const char *odir, const struct own_preds *op,
			 const struct gpu_spec *og)
{
	static double key[OWN_SDPA_ROWS][5], ms[OWN_SDPA_ROWS], okey[OWN_SDPA_ROWS][5], oms[OWN_SDPA_ROWS];
	long na = own_sdpa_rows(dir, key, ms, OWN_SDPA_ROWS);
	long no = na > 0 ? own_sdpa_rows(odir, okey, oms, OWN_SDPA_ROWS) : 0;
	if (na <= 0 || no < 0)
		return na < 0 || no < 0 ? -1 : 0;
	if (no == 0) {
		fprintf(stderr, PROG ": own: no sdpa.csv under '%s'\n", odir);
		return -1;
	}
	double err[2][2] = {{0}}; /* [pass][named] */
	size_t n[2] = {0};
	printf("\nsdpa from %s's times, as a recorded trace's kernels (PyTorch's FlashAttention-2 by name "
	       "and grid), rows of %.1f ms or more there; MAPE %% (--rows: each row's signed error):\n",
	       og->id, OWN_LARGE_MS);
	for (long i = 0; i < na; i++) {
		const double *v = key[i];
		double meas = ms[i];
		long j = 0;
		while (j < no && memcmp(okey[j], v, sizeof key[i]) != 0)
			j++;
		struct pred_kernel k[OWN_MAXK];
		int nk = bench_own_kernels("sdpa", "", v, 5, k, OWN_MAXK);
		if (j == no || nk <= 0 || !(meas > 0) || !(oms[j] >= OWN_LARGE_MS))
			continue;
		double by_name = own_from_origin(op->held, og, op->g, k, nk, v, 1, oms[j]);
		double wave = own_from_origin(op->held, og, op->g, k, nk, v, 0, oms[j]);
		if (!(by_name > 0) || !(wave > 0))
			continue;
		int pass = v[4] != 0;
		err[pass][1] += fabs(by_name / meas - 1);
		err[pass][0] += fabs(wave / meas - 1);
		n[pass]++;
		if (op->rows)
			printf("  %-7s %3.0f x %3.0f x %5.0f d %3.0f  %s %9.4f  here %9.4f ms  by name %+6.1f%%  "
			       "unnamed %+6.1f%%\n", pass ? "fwd+bwd" : "fwd", v[0], v[1], v[2], v[3], og->id,
			       oms[j], meas, (by_name / meas - 1) * 100, (wave / meas - 1) * 100);
	}
	for (int pass = 0; pass < 2; pass++)
		if (n[pass])
			printf("  %-7s %zu rows: by name (the attention model's ratio) %.1f %%, unnamed (wave "
			       "scaling) %.1f %%\n", pass ? "fwd+bwd" : "fwd", n[pass],
			       100 * err[pass][1] / (double)n[pass], 100 * err[pass][0] / (double)n[pass]);
	return 0;
}

/* The engines model.csv's steps are predicted with, as surfer-analyze
 * options (name, value pairs). */
static const struct { const char *label; const char *opt[4]; } own_engines[] = {
	{"hf eager (default)", {NULL}},
	{"hf --attention sdpa", {"attention", "sdpa"}},
	{"sglang", {"engine", "sglang"}},
};
#define OWN_NENG (sizeof own_engines / sizeof own_engines[0])

/* A decode step of model at batch x context on g with predictor p and
 * engine e, ms; 0 when it cannot be built. */
static double own_step_ms(const char *model, unsigned batch, unsigned context, size_t e,
			  const struct predictor *p, const struct gpu_spec *g)
{
	struct model_cli m;
	struct model_config c;
	char err[256], b[16], s[16];
	model_cli_init(&m);
	snprintf(b, sizeof b, "%u", batch);
	snprintf(s, sizeof s, "%u", context);
	const char *set[][2] = {{"mode", "decode"}, {"batch", b}, {"seq", s}, {"dtype", "bf16"},
				{own_engines[e].opt[0], own_engines[e].opt[1]}};
	for (size_t i = 0; i < sizeof set / sizeof set[0]; i++)
		if (set[i][0] && model_cli_set(&m, set[i][0], set[i][1], err, sizeof err) != 0)
			return 0;
	if (model_config_resolve(model, &c, err, sizeof err) != 0)
		return 0;
	m.opts.pred = p;
	struct model_seq sq;
	if (model_build(&c, &m.opts, &sq, err, sizeof err) != 0)
		return 0;
	struct model_timing t;
	int rc = model_time(&sq, &m.opts, g, model_cli_launch_ns(&m), &t);
	model_seq_release(&sq);
	return rc == 0 ? t.iteration_ns / 1e6 : 0;
}

static int own_model_file(const char *dir, const struct own_preds *op, int *seen)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/model.csv", dir);
	struct csv_reader csv;
	if (csv_open(&csv, path, 0) != 0)
		return 0;
	*seen = 1;
	int rc = csv_next(&csv);
	int cm = rc == 1 ? csv_col(&csv, "model") : -1, cb = rc == 1 ? csv_col(&csv, "batch") : -1;
	int cc = rc == 1 ? csv_col(&csv, "context") : -1, cl = rc == 1 ? csv_col(&csv, "latency_ms") : -1;
	if (cm < 0 || cb < 0 || cc < 0 || cl < 0) {
		fprintf(stderr, PROG ": own: '%s' is not kernels.py's model.csv (no model, batch, context, "
			"latency_ms columns)\n", path);
		csv_release(&csv);
		return -1;
	}
	static struct own_table t;
	t.n = 0;
	printf("\nmodel.csv: decode steps (kernels.py's loop) against surfer-analyze --mode decode --dtype bf16,"
	       " held-out constants; ms (error)\n%-12s %5s %7s %9s", "model", "batch", "context", "measured");
	for (size_t e = 0; e < OWN_NENG; e++)
		printf(" %22s", own_engines[e].label);
	putchar('\n');
	while ((rc = csv_next(&csv)) == 1) {
		const char *model = csv_field(&csv, (size_t)cm);
		unsigned batch = (unsigned)strtoul(csv_field(&csv, (size_t)cb), NULL, 10);
		unsigned ctx = (unsigned)strtoul(csv_field(&csv, (size_t)cc), NULL, 10);
		double meas = strtod(csv_field(&csv, (size_t)cl), NULL);
		if (!batch || !ctx || !(meas > 0)) {
			fprintf(stderr, PROG ": own: %s:%lu: a row it cannot read, skipped\n", path, csv.line);
			continue;
		}
		printf("%-12s %5u %7u %9.3f", model, batch, ctx, meas);
		for (size_t e = 0; e < OWN_NENG; e++) {
			double pr = own_step_ms(model, batch, ctx, e, op->held, op->g);
			double pred[OC_NCOL] = {0, pr, own_step_ms(model, batch, ctx, e, op->compiled, op->g)};
			own_add(&t, own_engines[e].label, meas, pred);
			if (pr > 0)
				printf(" %10.3f (%+7.1f%%)", pr, (pr / meas - 1) * 100);
			else
				printf(" %22s", "refused");
		}
		putchar('\n');
	}
	if (rc < 0)
		fprintf(stderr, PROG ": own: %s\n", csv.err);
	csv_release(&csv);
	own_print(&t, "model.csv per engine", 1);
	return rc < 0 ? -1 : 0;
}

/* The GPU the files name (their first data row's Device), NULL when none. */
static const struct gpu_spec *own_device(const char *dir)
{
	for (size_t i = 0; i < sizeof own_files / sizeof own_files[0]; i++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/%s.csv", dir, own_files[i].kind);
		struct csv_reader csv;
		if (csv_open(&csv, path, 0) != 0)
			continue;
		const struct gpu_spec *g = NULL;
		if (csv_next(&csv) == 1) {
			int c = csv_col(&csv, "Device");
			if (c >= 0 && csv_next(&csv) == 1)
				g = gpu_find(csv_field(&csv, (size_t)c));
		}
		csv_release(&csv);
		if (g)
			return g;
	}
	return NULL;
}

static void own_usage(FILE *f)
{
	fprintf(f, "usage: " PROG " own --dataset DIR [--data SHARED] [--gpu GPU] [--origin DIR2] [--rows]\n"
		   "  DIR: tools/gpu/kernels.py's {gemm,sdpa,decode,vec,model}.csv (data/<gpu>/ours)\n"
		   "  --data: the shared data folder the constants are refitted on without the GPU's\n"
		   "  compute capability (absent: the compiled-in constants, not held out)\n"
		   "  --gpu: the GPU predicted (default: the files' Device column)\n"
		   "  --origin DIR2: another GPU's kernels.py files: sdpa.csv's rows predicted\n"
		   "  from its times as a recorded trace's kernels (by name and grid, and\n"
		   "  unnamed: wave scaling), with the held-out constants under --data\n"
		   "  --dump FILE.csv: the 16-bit and FP8 GEMMs' held-out predictions of 0.5 ms\n"
		   "  or more (needs --data), in surfer-bench tensorcore --dump's columns: what\n"
		   "  surfer-bench calibrate reads\n");
}

int bench_own_main(const struct bench_args *a)
{
	if (a->help) {
		own_usage(stdout);
		return 0;
	}
	if (!a->dataset) {
		own_usage(stderr);
		return surfer_exit_code(SURFER_EINVAL);
	}
	const struct gpu_spec *g = a->gpu ? gpu_find(a->gpu) : own_device(a->dataset);
	if (!g) {
		if (a->gpu)
			fprintf(stderr, PROG ": own: unknown GPU '%s'\n", a->gpu);
		else
			fprintf(stderr, PROG ": own: no kernels.py file with a known Device under '%s'\n",
				a->dataset);
		return surfer_exit_code(SURFER_EINVAL);
	}
	const struct gpu_spec *og = a->origin ? own_device(a->origin) : NULL;
	if (a->origin && !og) {
		fprintf(stderr, PROG ": own: --origin: no kernels.py file with a known Device under '%s'\n",
			a->origin);
		return surfer_exit_code(SURFER_EINVAL);
	}
	/* nothing measured on g's architecture behind its FP32 GEMM rate */
	gpu_figures_hold_out(g->cc);
	struct tcgemm_params tc = tcgemm_default_params;
	struct attn_params at = attention_default_params;
	struct vecop_params vp = vecop_default_params;
	uint32_t cc = g->cc;
	char err[256];
	int held = 0;
	if (a->data) {
		if (bench_heldout_constants(a->data, cc, &tc, &at, &vp, err, sizeof err) < 0) {
			fprintf(stderr, PROG ": own: constants without sm_%u: %s\n", cc, err);
			return surfer_exit_code(SURFER_EINVAL);
		}
		held = 1;
	}
	struct pred_config hc = { .tcgemm = &tc, .attn = &at, .vecop = &vp };
	struct predictor *ph = NULL, *pc = NULL;
	if (predictor_new(&hc, &ph, err, sizeof err) != 0 || predictor_new(NULL, &pc, err, sizeof err) != 0) {
		fprintf(stderr, PROG ": own: %s\n", err);
		predictor_free(ph);
		return surfer_exit_code(SURFER_EINVAL);
	}
	printf("%s (%s, sm_%u): %s\n", g->id, g->name, cc,
	       held ? "tensor-core, attention and vector-op constants fitted without its compute "
		      "capability"
		    : "compiled-in constants (no --data): NOT held out");
	if (held)
		printf("held out: tensor-core FP16/BF16 eff %.3f (compiled-in %.3f), mamf_1024 %.3f (%.3f); "
		       "attention mma_eff %.3f (%.3f); vector-op bw_exp %.2f (%.2f)\n",
		       tc.eff[GPU_DT_FP16], tcgemm_default_params.eff[GPU_DT_FP16], tc.mamf_1024,
		       tcgemm_default_params.mamf_1024, at.mma_eff, attention_default_params.mma_eff,
		       vp.bw_exp, vecop_default_params.bw_exp);
	struct own_preds op = { .held = ph, .compiled = pc, .g = g, .rows = a->rows };
	if (a->dump && !held) {
		fprintf(stderr, PROG ": own: --dump writes held-out predictions: it needs --data\n");
		predictor_free(ph);
		predictor_free(pc);
		return surfer_exit_code(SURFER_EINVAL);
	}
	if (a->dump && !(op.dump = fopen(a->dump, "w"))) {
		fprintf(stderr, PROG ": own: cannot write '%s': %s\n", a->dump, strerror(errno));
		predictor_free(ph);
		predictor_free(pc);
		return surfer_exit_code(SURFER_EINVAL);
	}
	if (op.dump)
		fprintf(op.dump, "gpu,dtype,m,n,k,measured_ns,roofline_ns,tc_scratch_ns,wave_ns,"
				 "tc_ratio_ns,origin\n");
	static struct own_table t, large;   /* 2 x 32 groups of 4096 rows */
	t.n = large.n = 0;
	int seen = 0, rc = 0;
	struct own_timing how[sizeof own_files / sizeof own_files[0]] = {{0}};
	for (size_t i = 0; i < sizeof own_files / sizeof own_files[0] && rc == 0; i++)
		rc = own_kernel_file(a->dataset, &own_files[i], &op, &t, &large, &seen, &how[i]);
	printf("rows timed alone (each call between its two events: the host's dispatch in the time) / "
	       "queued (back to back, the kernels alone):");
	for (size_t i = 0; i < sizeof own_files / sizeof own_files[0]; i++)
		if (how[i].alone + how[i].queued)
			printf(" %s %zu / %zu", own_files[i].kind, how[i].alone, how[i].queued);
	printf("\n");
	own_print(&t, "kernels, from the shape, every row", 0);
	own_print(&large, "kernels, from the shape, rows predicted at 0.5 ms or more", 0);
	if (rc == 0)
		rc = own_model_file(a->dataset, &op, &seen);
	if (rc == 0 && og)
		rc = own_sdpa_from(a->dataset, a->origin, &op, og);
	predictor_free(ph);
	predictor_free(pc);
	if (op.dump && fclose(op.dump) != 0 && rc == 0) {
		fprintf(stderr, PROG ": own: cannot write '%s'\n", a->dump);
		rc = -1;
	}
	if (rc == 0 && !seen) {
		fprintf(stderr, PROG ": own: no kernels.py file under '%s'\n", a->dataset);
		rc = -1;
	}
	return rc ? surfer_exit_code(SURFER_EINVAL) : 0;
}
