/*
 * bench_vec.c - `surfer-bench vec`: held-out accuracy of the vector-op
 * model (predictor/vecop.c) from the shape alone, against the bare
 * roofline (what `auto` gave 16-bit vector kernels before vecop) and the
 * FP32 tile model fed the kernels' bytes.
 *
 * Data (--data DIR, the layout of the shared data folder):
 *  - vidur/compute/{a100,a40}/ORG/MODEL/mlp.csv: FP16 LLM operators per
 *    layer vs tokens T and tensor-parallel degree tp (medians in ms).  With
 *    E = n_embd, I = n_expanded_embd, hd = E / n_head, 2-byte elements:
 *      input_layernorm  norm,        T x E,  reads and writes T x E
 *      add              elementwise, T x E,  two reads, one write
 *      mlp_act          elementwise, T x I/tp; gated (SiLU x up): reads
 *                       2 T I/tp, writes T I/tp; else GELU: one read, one
 *                       write
 *      attn_rope        elementwise, T x (n_head + n_kv_head) hd / tp,
 *                       q and k read and written in place
 *    The A100 is taken as the SXM4 80GB part (as bench_tc.c does).
 *    Held out: the constants are fitted on one GPU and predict the other.
 *  - neusight/kernels/{add,mul,...,ln,softmax}/ (CSV files): FP32 PyTorch vector
 *    operators on five GPUs (tools/lab/neusight.c gives bytes and FLOPs);
 *    each GPU held out in turn, the constants fitted on the other four;
 *    the tile model uses its compiled-in weights (trained on all five, so
 *    its column there is not held out) with NeuSight's host floor.
 * Columns: vecop-bw and vecop, the one-limit form at bw_exp 1 and at the
 * exponent NeuSight's rows choose; vecop-sm, the two-limit form
 * (vecop_fit_sm: floor + bytes / BW + bytes / (b x SMs x clock)).
 * MAPE is the mean of |predicted / measured - 1| in percent, per operator
 * and over all rows of one run.
 */
#include "tools/lab/bench_vec.h"
#include "trace/surfer_err.h"
#include "tools/lab/vidur.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_specs/gpu.h"
#include "predictor/predict.h"
#include "predictor/tile.h"
#include "predictor/vecop.h"
#include "tools/lab/neusight.h"

#define PROG "surfer-bench"

/* Vidur's operators. */
enum { VB_NORM, VB_ADD, VB_ACT, VB_ROPE, VB_NOPS };
static const char *const vb_opname[VB_NOPS] = {"input_layernorm", "add", "mlp_act",
						"attn_rope"};

struct vb_row {
	const struct gpu_spec *gpu;
	int op;                  /* VB_* (vidur) or an index into ns_ops */
	struct pred_kernel k;
	double ns;
};

struct vb_set {
	struct vb_row *r;
	size_t n, cap;
};

static int vb_push(struct vb_set *s, const struct vb_row *row)
{
	if (s->n == s->cap) {
		size_t nc = s->cap ? 2 * s->cap : 4096;
		struct vb_row *nr = realloc(s->r, nc * sizeof *nr);
		if (!nr)
			return -ENOMEM;
		s->r = nr, s->cap = nc;
	}
	s->r[s->n++] = *row;
	return 0;
}

static int vb_vidur_row(void *ctx, const struct vidur_row *r, const struct gpu_spec *g)
{
	struct vb_set *s = ctx;
	double h = r->n_head, kv = r->n_kv_head, e = r->n_embd, ff = r->n_expanded_embd;
	double t = r->num_tokens, tp = r->tp;
	int gated = r->gated, rc = 0;
	if (!(h > 0) || !(tp > 0) || !(e > 0) || !(t > 0) || !(ff > 0))
		return 0;
	double hd = e / h;
	/* columns, element reads + writes per row element, FLOPs per element */
	double cols[VB_NOPS] = {e, e, ff / tp, (h + kv) * hd / tp};
	double acc[VB_NOPS] = {2, 3, gated ? 3 : 2, 2};
	double fpe[VB_NOPS] = {5, 1, gated ? 6 : 10, 3};
	for (int i = 0; i < VB_NOPS && rc == 0; i++) {
		struct vb_row row = {.gpu = g, .op = i};
		double ms = r->median_ms[i];
		if (!(ms > 0))
			continue;
		row.ns = ms * 1e6;
		row.k.op = i == VB_NORM ? PRED_OP_NORM : PRED_OP_ELEMENTWISE;
		row.k.dtype = GPU_DT_FP16;
		row.k.m = (uint64_t)t;
		row.k.n = (uint64_t)cols[i];
		row.k.bytes = 2.0 * acc[i] * t * cols[i];
		if (i == VB_NORM)
			row.k.bytes += 2.0 * e;   /* the weight */
		row.k.flops = fpe[i] * t * cols[i];
		rc = vb_push(s, &row);
	}
	return rc;
}

/* Fits every class on the rows of s not measured on held (NULL: all rows)
 * into p; classes without rows keep p's values.  sm: the two-limit form
 * (vecop_fit_sm: eff 1, bw_exp 1, sm_bpc and floor fitted).  Returns the
 * rows used. */
static size_t vb_fit(const struct vb_set *s, const struct gpu_spec *held,
		     struct vecop_params *p, int sm, int verbose)
{
	struct vecop_sample *smp = malloc((s->n ? s->n : 1) * sizeof *smp);
	size_t used = 0;
	if (!smp)
		return 0;
	for (int c = 0; c < VECOP_COUNT; c++) {
		size_t n = 0;
		for (size_t i = 0; i < s->n; i++) {
			if (s->r[i].gpu == held || vecop_class_of(&s->r[i].k) != c)
				continue;
			smp[n].bytes = vecop_bytes(&s->r[i].k);
			smp[n].bw_gbps = vecop_rate_gbps(s->r[i].gpu, sm ? 1 : p->bw_exp);
			smp[n].ns = s->r[i].ns;
			smp[n].sm_ghz = vecop_sm_ghz(s->r[i].gpu);
			n++;
		}
		double e, fl, m;
		if (sm && n && vecop_fit_sm(smp, n, &e, &fl, &m) == 0) {
			p->eff[c] = 1, p->sm_bpc[c] = e, p->floor_ns[c] = fl;
			used += n;
			if (verbose)
				printf("  class %d: %zu rows, %.2f B per SM-cycle, floor %.0f ns, "
				       "in-sample MAPE %.1f%%\n", c, n, e, fl, m);
		} else if (!sm && n && vecop_fit(smp, n, &e, &fl, &m) == 0) {
			p->eff[c] = e, p->floor_ns[c] = fl;
			used += n;
			if (verbose)
				printf("  class %d: %zu rows, eff %.2f, floor %.0f ns, in-sample MAPE "
				       "%.1f%%\n", c, n, e, fl, m);
		}
	}
	free(smp);
	return used;
}

/* Drops the rows of s measured on a GPU whose compute capability is one of
 * the ncc in cc_out; returns how many. */
static size_t vb_drop(struct vb_set *s, const uint32_t *cc_out, size_t ncc)
{
	size_t kept = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (!gpu_cc_in(s->r[i].gpu->cc, cc_out, ncc))
			s->r[kept++] = s->r[i];
	}
	size_t dropped = s->n - kept;
	s->n = kept;
	return dropped;
}

enum { VB_ROOF, VB_TILE, VB_VECBW, VB_VECOP, VB_VECSM, VB_AUTO, VB_NCOL };
static const char *const vb_colname[VB_NCOL] = {"roofline", "tile", "vecop-bw", "vecop",
						"vecop-sm", "auto"};

struct vb_acc {
	double sum[VB_NCOL];
	size_t n;
};

static void vb_add(struct vb_acc *a, const double pred[VB_NCOL], double meas)
{
	for (int c = 0; c < VB_NCOL; c++)
		a->sum[c] += fabs(pred[c] / meas - 1) * 100;
	a->n++;
}

static void vb_print(const char *label, const struct vb_acc *a)
{
	printf("  %-18s %6zu", label, a->n);
	for (int c = 0; c < VB_NCOL; c++)
		printf(" %9.1f", a->n ? a->sum[c] / (double)a->n : 0.0);
	printf("\n");
}

static void vb_header(const char *title)
{
	printf("%s\n  %-18s %6s", title, "operator", "rows");
	for (int c = 0; c < VB_NCOL; c++)
		printf(" %9s", vb_colname[c]);
	printf("\n");
}

/* Predicts row r on its GPU with every method; vecop with constants p
 * (pbw: bw_exp 1; psm: the two-limit form). */
static void vb_predict(const struct predictor *pr, const struct vb_row *r,
		       const struct vecop_params *pbw, const struct vecop_params *p,
		       const struct vecop_params *psm, double pred[VB_NCOL])
{
	struct pred_result res;
	pred[VB_ROOF] = predict_kernel(pr, &r->k, NULL, r->gpu, PRED_ROOFLINE, &res) == 0 ? res.ns : 0;
	pred[VB_TILE] = predict_kernel(pr, &r->k, NULL, r->gpu, PRED_MLP, &res) == 0 ? res.ns : 0;
	pred[VB_VECBW] = vecop_model_ns(&r->k, r->gpu, pbw);
	pred[VB_VECOP] = vecop_model_ns(&r->k, r->gpu, p);
	pred[VB_VECSM] = vecop_model_ns(&r->k, r->gpu, psm);
	pred[VB_AUTO] = predict_kernel(pr, &r->k, NULL, r->gpu, PRED_AUTO, &res) == 0 ? res.ns : 0;
	for (int c = 0; c < VB_NCOL; c++)
		if (!(pred[c] > 0))
			pred[c] = 0;   /* counts as a 100% error */
}

/* Held-out table of s: each GPU predicted by constants fitted on the others. */
static void vb_heldout(const struct predictor *pr, const struct vb_set *s, const char *title, const char *const *opnames,
		       int nops, double bw_exp)
{
	const struct gpu_spec *gpus[16];
	size_t ng = 0;
	for (size_t i = 0; i < s->n; i++) {
		size_t g = 0;
		while (g < ng && gpus[g] != s->r[i].gpu)
			g++;
		if (g == ng && ng < 16)
			gpus[ng++] = s->r[i].gpu;
	}
	struct vb_acc *per = calloc((size_t)nops * ng + 1, sizeof *per);
	struct vb_acc all = {0};
	if (!per)
		return;
	vb_header(title);
	for (size_t g = 0; g < ng; g++) {
		struct vecop_params p = vecop_default_params, pbw = vecop_default_params;
		struct vecop_params psm = vecop_default_params;
		struct vb_acc gpu_all = {0};
		pbw.bw_exp = 1;
		p.bw_exp = bw_exp;
		psm.bw_exp = 1;
		vb_fit(s, gpus[g], &pbw, 0, 0);
		vb_fit(s, gpus[g], &p, 0, 0);
		vb_fit(s, gpus[g], &psm, 1, 0);
		for (size_t i = 0; i < s->n; i++) {
			double pred[VB_NCOL];
			if (s->r[i].gpu != gpus[g])
				continue;
			vb_predict(pr, &s->r[i], &pbw, &p, &psm, pred);
			vb_add(&per[g * (size_t)nops + (size_t)s->r[i].op], pred, s->r[i].ns);
			vb_add(&gpu_all, pred, s->r[i].ns);
			vb_add(&all, pred, s->r[i].ns);
		}
		printf(" %s held out (e.g. %s: eff %.2f floor %.0f ns; norm: eff %.2f floor %.0f ns)\n",
		       gpus[g]->id, "elementwise", p.eff[VECOP_ELEMENTWISE],
		       p.floor_ns[VECOP_ELEMENTWISE], p.eff[VECOP_NORM], p.floor_ns[VECOP_NORM]);
		printf("  vecop-sm: elementwise %.3g B per SM-cycle, floor %.0f ns; norm %.3g, %.0f ns\n",
		       psm.sm_bpc[VECOP_ELEMENTWISE], psm.floor_ns[VECOP_ELEMENTWISE],
		       psm.sm_bpc[VECOP_NORM], psm.floor_ns[VECOP_NORM]);
		for (int o = 0; o < nops; o++)
			if (per[g * (size_t)nops + (size_t)o].n)
				vb_print(opnames[o], &per[g * (size_t)nops + (size_t)o]);
		vb_print("all", &gpu_all);
	}
	vb_print("overall", &all);
	printf("\n");
	free(per);
}

/* With a measurement on the other GPU (Vidur rows of the same operator
 * and shape on both): Habitat's wave scaling (what `auto` uses) against
 * vecop's ratio T_o x model(target) / model(origin), constants fitted on
 * the origin GPU only. */
static void vb_measured(const struct predictor *pr, const struct vb_set *s, const char *const *opnames, int nops,
			double bw_exp)
{
	const struct gpu_spec *gpus[2] = {NULL, NULL};
	for (size_t i = 0; i < s->n; i++) {
		if (!gpus[0])
			gpus[0] = s->r[i].gpu;
		else if (s->r[i].gpu != gpus[0] && !gpus[1])
			gpus[1] = s->r[i].gpu;
	}
	if (!gpus[1])
		return;
	printf("Vidur FP16 operators with the other GPU's time, MAPE %%\n  %-18s %6s %9s %9s "
	       "%9s %9s\n", "operator", "pairs", "wave", "vecop-r", "roofl-r", "vecsm-r");
	double tot[4] = {0};
	size_t ntot = 0;
	for (int t = 0; t < 2; t++) {
		const struct gpu_spec *tg = gpus[t], *og = gpus[1 - t];
		struct vecop_params p = vecop_default_params, psm = vecop_default_params;
		p.bw_exp = bw_exp;
		psm.bw_exp = 1;
		vb_fit(s, tg, &p, 0, 0);   /* every row not on the target: the origin's */
		vb_fit(s, tg, &psm, 1, 0);
		printf(" %s from %s\n", tg->id, og->id);
		for (int o = 0; o < nops; o++) {
			double sum[4] = {0};
			size_t n = 0;
			for (size_t i = 0; i < s->n; i++) {
				const struct vb_row *r = &s->r[i];
				if (r->gpu != tg || r->op != o)
					continue;
				const struct vb_row *q = NULL;
				for (size_t j = 0; j < s->n && !q; j++)
					if (s->r[j].gpu == og && s->r[j].op == o &&
					    s->r[j].k.m == r->k.m && s->r[j].k.n == r->k.n &&
					    s->r[j].k.bytes == r->k.bytes)
						q = &s->r[j];
				if (!q)
					continue;
				struct pred_kernel k = r->k;
				struct pred_result res;
				double pred[4];
				k.origin_ns = q->ns;
				pred[0] = predict_kernel(pr, &k, og, tg, PRED_WAVE, &res) == 0 ? res.ns : 0;
				double mt = vecop_model_ns(&k, tg, &p), mo = vecop_model_ns(&k, og, &p);
				pred[1] = mt > 0 && mo > 0 ? q->ns * mt / mo : 0;
				pred[2] = predict_kernel(pr, &k, og, tg, PRED_ROOFLINE, &res) == 0 ? res.ns : 0;
				mt = vecop_model_ns(&k, tg, &psm), mo = vecop_model_ns(&k, og, &psm);
				pred[3] = mt > 0 && mo > 0 ? q->ns * mt / mo : 0;
				for (int c = 0; c < 4; c++) {
					double e = pred[c] > 0 ? fabs(pred[c] / r->ns - 1) * 100 : 100;
					sum[c] += e;
					tot[c] += e;
				}
				n++;
				ntot++;
			}
			if (n)
				printf("  %-18s %6zu %9.1f %9.1f %9.1f %9.1f\n", opnames[o], n,
				       sum[0] / (double)n, sum[1] / (double)n, sum[2] / (double)n,
				       sum[3] / (double)n);
		}
	}
	if (ntot)
		printf("  %-18s %6zu %9.1f %9.1f %9.1f %9.1f\n\n", "overall", ntot,
		       tot[0] / (double)ntot, tot[1] / (double)ntot, tot[2] / (double)ntot,
		       tot[3] / (double)ntot);
}

/* The held-out MAPE (%) of vecop at exponent a on s, each GPU predicted
 * by a fit on the others, every stride-th row. */
static double vb_exp_mape(const struct vb_set *s, double a, size_t stride)
{
	struct vb_set sub = {0};
	const struct gpu_spec *gpus[16];
	size_t ng = 0;
	double sum = 0;
	size_t cnt = 0;
	for (size_t i = 0; i < s->n; i += stride) {
		if (vb_push(&sub, &s->r[i]) != 0) {
			free(sub.r);
			return INFINITY;
		}
		size_t g = 0;
		while (g < ng && gpus[g] != s->r[i].gpu)
			g++;
		if (g == ng && ng < 16)
			gpus[ng++] = s->r[i].gpu;
	}
	for (size_t g = 0; g < ng; g++) {
		struct vecop_params p = vecop_default_params;
		p.bw_exp = a;
		vb_fit(&sub, gpus[g], &p, 0, 0);
		for (size_t i = 0; i < sub.n; i++) {
			if (sub.r[i].gpu != gpus[g])
				continue;
			double t = vecop_model_ns(&sub.r[i].k, gpus[g], &p);
			sum += t > 0 ? fabs(t / sub.r[i].ns - 1) * 100 : 100;
			cnt++;
		}
	}
	free(sub.r);
	return cnt ? sum / (double)cnt : INFINITY;
}

static const char *const ns_ops[] = {"add", "addu", "mul", "mulu", "div", "divu", "pow",
				     "powu", "relu", "tanh", "gelu", "ln", "softmax"};
#define NS_NOPS ((int)(sizeof ns_ops / sizeof ns_ops[0]))

static int vb_load_neusight(struct vb_set *s, const char *root)
{
	char path[4096], err[256];
	for (int o = 0; o < NS_NOPS; o++) {
		struct ns_set ns = {0};
		snprintf(path, sizeof path, "%s/neusight/kernels/%s", root, ns_ops[o]);
		if (ns_load(&ns, path, NULL, NULL, err, sizeof err) != 0) {
			ns_release(&ns);
			continue;
		}
		for (size_t i = 0; i < ns.n; i++) {
			struct vb_row row = {.gpu = ns.rows[i].gpu, .op = o};
			if (!row.gpu || strcmp(ns.rows[i].op, ns_ops[o]) != 0 ||
			    ns_kernel(&ns.rows[i], 0, &row.k) != 0 || vecop_class_of(&row.k) < 0)
				continue;
			row.k.name = NULL;
			row.ns = ns.rows[i].latency_ms * 1e6;
			if (row.ns > 0 && vb_push(s, &row) != 0) {
				ns_release(&ns);
				return -ENOMEM;
			}
		}
		ns_release(&ns);
	}
	return 0;
}

static void vb_usage(FILE *f)
{
	fprintf(f, "usage: " PROG " vec --data DIR [--emit]\n"
		   "  held-out MAPE of the vector-op model (vecop.c) on Vidur's FP16 operators\n"
		   "  (A100 and A40, each predicted by a fit on the other) and NeuSight's FP32\n"
		   "  vector operators (each GPU by a fit on the others), against the roofline\n"
		   "  and the tile model, and vecop-sm, the two-limit form (DRAM plus the SMs'\n"
		   "  issue, vecop_fit_sm); --emit fits on every 16-bit row and prints the\n"
		   "  constants for vecop.c\n");
}

/* Reads Vidur's 16-bit operators (A100 80GB, A40) into vid and NeuSight's
 * FP32 vector operators into nsv, both under data; either may be absent.
 * Returns 0, or a negative errno with the reason in err (a file that is
 * not Vidur's, out of memory). */
static int vb_load(const char *data, struct vb_set *vid, struct vb_set *nsv, char *err,
		   size_t errlen)
{
	err[0] = 0;
	int rc = vidur_each_row(data, "a100", "a100-sxm4-80", vb_opname, VB_NOPS, vb_vidur_row, vid,
				err, errlen);
	if (rc == 0 || rc == -ENOENT)
		rc = vidur_each_row(data, "a40", "a40", vb_opname, VB_NOPS, vb_vidur_row, vid,
				    err, errlen);
	if (rc == -ENOENT)
		rc = 0;
	if (rc == 0)
		rc = vb_load_neusight(nsv, data);
	if (rc < 0 && !err[0])
		snprintf(err, errlen, "%s", strerror(-rc));
	return rc;
}

/* The bandwidth exponent a in 0, 0.1, ..., 1 that predicts nsv's FP32
 * operators best held out per GPU (vb_exp_mape, every 4th row), never
 * the 16-bit rows the constants are then tested on; 1 (bandwidth only)
 * when nsv is empty.  verbose prints each a's error. */
static double vb_choose_exp(const struct vb_set *nsv, int verbose)
{
	double bw_exp = 1, best = INFINITY;
	if (!nsv->n)
		return bw_exp;
	if (verbose)
		printf("bandwidth exponent a, NeuSight FP32 held-out vecop MAPE %% (every 4th row):\n");
	for (int i = 0; i <= 10; i++) {
		double m = vb_exp_mape(nsv, i / 10.0, 4);
		if (verbose)
			printf("  a=%.1f %.1f\n", i / 10.0, m);
		if (m < best)
			best = m, bw_exp = i / 10.0;
	}
	if (verbose)
		printf("  chosen a=%.1f\n\n", bw_exp);
	return bw_exp;
}

/* The constants of vecop.c fitted on vid and nsv into *p: bw_exp by
 * vb_choose_exp on nsv; eff and floor of each class on vid's 16-bit rows;
 * a class without rows takes the norm's (softmax and reductions are
 * row-wise passes like it).  Returns the rows fitted.
 *
 * When vid has no row (its GPUs, the A100 and the A40, held out), eff is
 * fitted on nsv's FP32 rows by their bytes: a memory-bound kernel takes
 * its bytes over the bandwidth it reaches, whatever the dtype moving
 * them.  Their floor is not the kernel's: NeuSight times a PyTorch op
 * with CUDA events around it, the host's dispatch included, and the fit
 * without the A100 gives 26 us elementwise and 44 us for the norm
 * against Vidur's 1.8 and 3.1 us kernels: with them `make bench-serving`
 * put the A40's decode steps 17.9 % off (3.1 % with the floor below), its
 * prefills 1.6 % (1.7).
 * No kernel-level timing of a vector op outside Ampere is in the data,
 * so every class then takes PRED_NO_BASIS_NS, the launch-to-completion
 * time predict.c gives a kernel it knows nothing of. */
static size_t vb_fit_constants(const struct vb_set *vid, const struct vb_set *nsv,
			       struct vecop_params *p, int verbose)
{
	const struct vb_set *s = vid->n ? vid : nsv;
	int has[VECOP_COUNT] = {0};
	*p = vecop_default_params;
	p->bw_exp = vb_choose_exp(nsv, verbose);
	for (size_t i = 0; i < s->n; i++)
		has[vecop_class_of(&s->r[i].k)] = 1;
	size_t used = vb_fit(s, NULL, p, 0, verbose);
	for (int c = VECOP_SOFTMAX; c < VECOP_COUNT; c++)
		if (!has[c]) {
			p->eff[c] = p->eff[VECOP_NORM];
			p->floor_ns[c] = p->floor_ns[VECOP_NORM];
		}
	if (!vid->n)
		for (int c = 0; c < VECOP_COUNT; c++)
			p->floor_ns[c] = PRED_NO_BASIS_NS;
	return used;
}

int bench_vec_fit_heldout(const char *root, const uint32_t *cc_out, size_t ncc,
			  struct vecop_params *p, char *err, size_t errlen)
{
	struct vb_set vid = {0}, nsv = {0};
	int rc = vb_load(root, &vid, &nsv, err, errlen);
	if (rc == 0 && vid.n + nsv.n == 0) {
		snprintf(err, errlen, "no vector-op rows under '%s'", root);
		rc = -ENOENT;
	}
	if (rc == 0) {
		size_t out = vb_drop(&vid, cc_out, ncc) + vb_drop(&nsv, cc_out, ncc);
		if (out == 0)
			rc = 1;
		else if (vb_fit_constants(&vid, &nsv, p, 0) == 0) {
			snprintf(err, errlen, "no vector-op rows under '%s' but those left out", root);
			rc = -ENOENT;
		}
	}
	free(vid.r);
	free(nsv.r);
	return rc < 0 ? -1 : rc;
}

int bench_vec_main(const struct bench_args *a)
{
	const char *data = a->data;
	int emit = a->emit;

	if (a->help) {
		vb_usage(stdout);
		return 0;
	}
	if (!data) {
		vb_usage(stderr);
		return surfer_exit_code(SURFER_EINVAL);
	}
	struct vb_set vid = {0}, nsv = {0};
	char err[4608];
	int rc = vb_load(data, &vid, &nsv, err, sizeof err);
	if (rc < 0 || vid.n == 0) {
		fprintf(stderr, PROG ": cannot read Vidur data under '%s': %s\n", data,
			rc < 0 ? err : "no rows found");
		free(vid.r);
		free(nsv.r);
		return surfer_exit_code(SURFER_EINVAL);
	}
	if (emit) {
		struct vecop_params p;
		printf("/* %zu Vidur FP16 rows on A100 80GB and A40 */\n", vid.n);
		vb_fit_constants(&vid, &nsv, &p, 1);
		printf("const struct vecop_params vecop_default_params = {\n\t.eff = {");
		for (int c = 0; c < VECOP_COUNT; c++)
			printf("%s%.3f", c ? ", " : "", p.eff[c]);
		printf("},\n\t.floor_ns = {");
		for (int c = 0; c < VECOP_COUNT; c++)
			printf("%s%.0f", c ? ", " : "", p.floor_ns[c]);
		printf("},\n\t.bw_exp = %.1f,\n};\n", p.bw_exp);
		struct vecop_params q = vecop_default_params;
		printf("/* the two-limit form (vecop-sm; sm_bpc, eff 1, bw_exp 1) on the same rows: */\n");
		vb_fit(&vid, NULL, &q, 1, 1);
		free(vid.r);
		free(nsv.r);
		return 0;
	}
	double bw_exp = vb_choose_exp(&nsv, 1);
	/* the tile model as traces see it, and as NeuSight's op timings
	 * (with the measuring host's floor) */
	struct pred_config floor_on = { .tile_floor = 1 };
	struct predictor *pred = NULL, *pred_floor = NULL;
	char perr[128];
	if (predictor_new(NULL, &pred, perr, sizeof perr) != 0 ||
	    predictor_new(&floor_on, &pred_floor, perr, sizeof perr) != 0) {
		fprintf(stderr, "surfer-bench: %s\n", perr);
		predictor_free(pred);
		free(vid.r);
		free(nsv.r);
		return surfer_exit_code(SURFER_EINVAL);
	}
	printf("vecop-bw: fitted with a=1 (bandwidth only); vecop: with the chosen a; auto: "
	       "`--method auto` with the compiled-in constants (fitted on every Vidur row, so "
	       "in-sample there)\n\n");
	vb_heldout(pred, &vid, "Vidur FP16 operators, MAPE % from the shape (vecop fitted on the "
			 "other GPU)", vb_opname, VB_NOPS, bw_exp);
	vb_measured(pred, &vid, vb_opname, VB_NOPS, bw_exp);
	if (nsv.n) {
		vb_heldout(pred_floor, &nsv, "NeuSight FP32 vector operators, MAPE % from the shape (vecop "
				 "fitted on the other GPUs; tile in-sample, with its host floor)",
			   ns_ops, NS_NOPS, bw_exp);
	}
	predictor_free(pred);
	predictor_free(pred_floor);
	free(vid.r);
	free(nsv.r);
	return 0;
}
