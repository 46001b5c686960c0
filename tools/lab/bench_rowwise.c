/*
 * bench_rowwise.c - `surfer-bench rowwise`: the FP32 row-wise model
 * (predictor/rowwise.c: layer norm, softmax) with each architecture held
 * out, beside the tile model and the roofline.
 *
 * Data (--data DIR, the shared data folder's layout):
 *  - neusight/kernels/{ln,softmax}/: NeuSight's sweep on P4, P100, T4,
 *    V100 and A100 PCIe (PyTorch 2.1, times with its harness's host
 *    floor);
 *  - neusight/kernels-test/{ln,softmax}.csv: the paper's test shapes on
 *    the same GPUs;
 *  - --own DIR (default: the repository's data/; none to skip): our own
 *    GPUs' NeuSight-layout rows (DIR/<GPU>/kernels/vec.csv, timed back to
 *    back: no host floor), predicted by the fit on all five (no Hopper row
 *    is in it).
 * The model is fitted (rowwise_fit()) on the test shapes of every
 * architecture but the one predicted, as the tile model trains on them
 * (fitted on the sweep as well, the test shapes' error doubled:
 * rowwise.c); --emit fits on all of them and prints the constants for
 * rowwise.c.
 * For each GPU and operator the MAPE (mean of |predicted / measured - 1|,
 * %) from the shape on its sweep rows and on its test shapes, and from
 * each other GPU's test-shape time (the ratio form, mean of the origins),
 * for the row-wise model, the tile model (its weights trained without the
 * GPU when --holdout-weights DIR holds DIR/w_<GPU>.bin as make accuracy
 * writes them, else the compiled-in ones, trained on the five: in-sample,
 * and the line says so) and the roofline.
 */
#include "tools/lab/bench_rowwise.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gpu_specs/gpu.h"
#include "predictor/predict.h"
#include "predictor/rowwise.h"
#include "predictor/tile.h"
#include "tools/lab/neusight.h"
#include "tools/lab/profile.h"
#include "trace/surfer_err.h"

#define PROG "surfer-bench"
#define RB_MAX_GPUS 16

enum { RB_LN, RB_SOFTMAX, RB_NOPS };
static const char *const rb_opname[RB_NOPS] = {"ln", "softmax"};
/* the columns: the row-wise model, the tile model, the roofline */
enum { RB_ROWWISE, RB_TILE, RB_ROOF, RB_AUTO, RB_NCOLS };
static const enum pred_method rb_method[RB_NCOLS] = {PRED_ROWWISE, PRED_MLP, PRED_ROOFLINE,
						      PRED_AUTO};

static int rb_op(const char *op)
{
	return !strcmp(op, "ln") ? RB_LN : !strcmp(op, "softmax") ? RB_SOFTMAX : -1;
}

struct rb_sum {
	double ape[RB_NOPS][RB_NCOLS];
	size_t n[RB_NOPS][RB_NCOLS];
};

static void rb_add(struct rb_sum *s, int op, int col, double pred, double meas)
{
	if (pred > 0 && meas > 0) {
		s->ape[op][col] += fabs(pred / meas - 1);
		s->n[op][col]++;
	}
}

static double rb_mape(const struct rb_sum *s, int op, int col)
{
	return s->n[op][col] ? 100 * s->ape[op][col] / (double)s->n[op][col] : NAN;
}

/* Adds one GPU's MAPE per operator and column of g to all (where g has
 * rows), for the mean over the GPUs. */
static void rb_add_gpu(struct rb_sum *all, const struct rb_sum *g)
{
	for (int op = 0; op < RB_NOPS; op++)
		for (int c = 0; c < RB_NCOLS; c++)
			if (g->n[op][c]) {
				all->ape[op][c] += rb_mape(g, op, c);
				all->n[op][c]++;
			}
}

/* The mean over the GPUs rb_add_gpu() added, %. */
static double rb_mean(const struct rb_sum *all, int op, int col)
{
	return all->ape[op][col] / (double)all->n[op][col];
}

/* Loads path's rows (skipped quietly when absent); -1 on a read error. */
static int rb_load(struct ns_set *s, const char *path)
{
	struct stat st;
	char err[512];
	if (stat(path, &st) != 0)
		return 0;
	if (ns_load(s, path, NULL, NULL, err, sizeof err) != 0) {
		fprintf(stderr, PROG ": rowwise: %s\n", err);
		return -1;
	}
	return 0;
}

/* The samples of set s (ln and softmax rows of known GPUs) not of
 * architecture cc_out (0: every one), appended to *v. */
static int rb_samples(const struct ns_set *s, int host_floor, uint32_t cc_out,
		      struct rowwise_sample **v, size_t *n, size_t *cap)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct ns_row *r = &s->rows[i];
		struct rowwise_sample x = {.host_floor = host_floor};
		if (!r->gpu || rb_op(r->op) < 0 || (cc_out && r->gpu->cc == cc_out) ||
		    ns_kernel(r, 1, &x.k) != 0 || rowwise_kind_of(&x.k) < 0)
			continue;
		x.k.origin_ns = 0;
		x.gpu = r->gpu;
		x.ns = r->latency_ms * 1e6;
		if (*n == *cap) {
			size_t nc = *cap ? 2 * *cap : 4096;
			struct rowwise_sample *nv = realloc(*v, nc * sizeof *nv);
			if (!nv)
				return -1;
			*v = nv, *cap = nc;
		}
		(*v)[(*n)++] = x;
	}
	return 0;
}

/* The model fitted on set's rows of every architecture but cc_out (0:
 * all of them). */
static int rb_fit(const struct ns_set *set, uint32_t cc_out, struct rowwise_params *p)
{
	struct rowwise_sample *v = NULL;
	size_t n = 0, cap = 0;
	int rc = rb_samples(set, 1, cc_out, &v, &n, &cap);
	if (rc == 0)
		rc = rowwise_fit(v, n, p);
	free(v);
	return rc;
}

/* The columns' predictions of row r on its GPU, from the shape
 * (origin NULL) or from o's time of the same shape. */
static void rb_predict(const struct predictor *p, const struct ns_row *r, const struct ns_row *o,
		       struct rb_sum *s)
{
	struct pred_kernel k;
	if (ns_kernel(o ? o : r, o != NULL, &k) != 0)
		return;
	int op = rb_op(r->op);
	for (int c = 0; c < RB_NCOLS; c++) {
		struct pred_result res;
		if (c == RB_ROOF && o)
			continue;
		if (predict_kernel(p, &k, o ? o->gpu : NULL, r->gpu, rb_method[c], &res) == 0 &&
		    (res.method == rb_method[c] || c == RB_ROOF || c == RB_AUTO))
			rb_add(s, op, c, res.ns, r->latency_ms * 1e6);
	}
}

int bench_rowwise_fit_heldout(const char *path, uint32_t cc_out, struct rowwise_params *p,
			      char *err, size_t errlen)
{
	struct ns_set s = {0};
	int rc = -1;
	if (ns_load(&s, path, NULL, NULL, err, errlen) != 0)
		goto out;
	if (rb_fit(&s, cc_out, p) != 0) {
		snprintf(err, errlen, "no FP32 layer-norm or softmax row of another architecture");
		goto out;
	}
	rc = 0;
out:
	ns_release(&s);
	return rc;
}

/* A predictor of the tile model tm (borrowed: the caller frees it after
 * the predictor) and the row-wise constants rw; NULL on failure. */
static struct predictor *rb_predictor(struct tile_model *tm, int host_floor,
				      const struct rowwise_params *rw)
{
	struct pred_config pc = {.tile = tm, .tile_floor = host_floor, .rowwise = rw};
	struct predictor *p = NULL;
	char err[256];
	if (predictor_new(&pc, &p, err, sizeof err) != 0) {
		fprintf(stderr, PROG ": rowwise: %s\n", err);
		return NULL;
	}
	return p;
}

static void rb_print_emit(const struct rowwise_params *p)
{
	printf("const struct rowwise_params rowwise_default_params = {\n");
	printf("\t.eff = {%.3f, %.3f, %.3f},\n", p->eff[0], p->eff[1], p->eff[2]);
	printf("\t.l2_share = %.3f,\n", p->l2_share);
	printf("\t.host_floor_ns = {%.0f, %.0f},\n", p->host_floor_ns[0], p->host_floor_ns[1]);
	printf("\t.floor_p = %.2f,\n", p->floor_p);
	printf("};\n");
}

static void rb_print_line(const char *gpu, const char *what, const struct rb_sum *s, const char *note)
{
	for (int op = 0; op < RB_NOPS; op++) {
		if (!s->n[op][RB_ROWWISE])
			continue;
		printf("  %-22s %-10s %-8s %5zu  %8.1f %8.1f %8.1f %8.1f%s\n", gpu, what, rb_opname[op],
		       s->n[op][RB_ROWWISE], rb_mape(s, op, RB_ROWWISE), rb_mape(s, op, RB_TILE),
		       rb_mape(s, op, RB_ROOF), rb_mape(s, op, RB_AUTO), note);
	}
}

/* The GPUs of sets a and b, in order of first appearance. */
static size_t rb_gpus(const struct ns_set *a, const struct ns_set *b, const struct gpu_spec **g)
{
	size_t n = 0;
	const struct ns_set *sets[2] = {a, b};
	for (int j = 0; j < 2; j++)
		for (size_t i = 0; i < sets[j]->n; i++) {
			const struct gpu_spec *x = sets[j]->rows[i].gpu;
			size_t k = 0;
			if (!x || rb_op(sets[j]->rows[i].op) < 0)
				continue;
			while (k < n && g[k] != x)
				k++;
			if (k == n && n < RB_MAX_GPUS)
				g[n++] = x;
		}
	return n;
}

static int rb_run(const struct bench_args *a, struct ns_set *sweep, struct ns_set *test,
		  struct ns_set *own)
{
	const struct gpu_spec *gpus[RB_MAX_GPUS];
	size_t ng = rb_gpus(sweep, test, gpus);
	struct rb_sum all_shape = {0}, all_ratio = {0}, all_sweep = {0};
	int all_tile_held = 1;
	printf("# surfer-bench rowwise: FP32 layer norm and softmax, MAPE %%, each architecture out of\n"
	       "# the row-wise model's fit; tile: the tile model; roofline from the shape only\n");
	printf("  %-22s %-10s %-8s %5s  %8s %8s %8s %8s\n", "gpu", "rows", "op", "n", "rowwise", "tile",
	       "roofline", "auto");
	for (size_t gi = 0; gi < ng + 1; gi++) {
		int is_own = gi == ng;
		const struct gpu_spec *g = is_own ? NULL : gpus[gi];
		struct rowwise_params fit;
		if (rb_fit(test, is_own ? 0 : g->cc, &fit) != 0) {
			fprintf(stderr, PROG ": rowwise: no test-shape rows to fit on\n");
			return 2;
		}
		if (is_own) {
			/* our own GPUs: every row predicted by the fit on the five,
			 * without the host floor (timed back to back) */
			const struct gpu_spec *og[RB_MAX_GPUS];
			struct ns_set none = {0};
			size_t no = rb_gpus(own, &none, og);
			struct tile_model *tm = NULL;
			struct predictor *p = tile_model_load_builtin(&tm) == 0 ? rb_predictor(tm, 0, &fit) : NULL;
			for (size_t j = 0; p && j < no; j++) {
				struct rb_sum s = {0};
				for (size_t i = 0; i < own->n; i++)
					if (own->rows[i].gpu == og[j] && rb_op(own->rows[i].op) >= 0)
						rb_predict(p, &own->rows[i], NULL, &s);
				rb_print_line(og[j]->id, "own", &s,
					      "  (no host floor; tile: compiled-in, no row of its architecture)");
			}
			int ok = p != NULL;
			predictor_free(p);
			tile_model_free(tm);
			if (!ok)
				return 2;
			break;
		}
		/* the GPU's directory name as make accuracy writes its weights */
		char gname[128];
		const char *dev = NULL;
		for (size_t i = 0; i < test->n && !dev; i++)
			if (test->rows[i].gpu == g)
				dev = test->rows[i].device;
		for (size_t i = 0; i < sweep->n && !dev; i++)
			if (sweep->rows[i].gpu == g)
				dev = sweep->rows[i].device;
		snprintf(gname, sizeof gname, "%s", dev ? dev : g->id);
		for (char *c = gname; *c; c++)
			if (*c == ' ')
				*c = '_';
		struct tile_model *tm = NULL;
		int held = a->holdout ? prof_holdout_weights(a->holdout, gname, &tm)
				      : (tile_model_load_builtin(&tm) == 0 ? 0 : -1);
		if (held < 0)
			return 2;
		all_tile_held &= held == 1;
		struct predictor *p = rb_predictor(tm, 1, &fit);
		if (!p) {
			tile_model_free(tm);
			return 2;
		}
		struct rb_sum sw = {0}, ts = {0}, tr = {0};
		for (size_t i = 0; i < sweep->n; i++)
			if (sweep->rows[i].gpu == g && rb_op(sweep->rows[i].op) >= 0)
				rb_predict(p, &sweep->rows[i], NULL, &sw);
		for (size_t i = 0; i < test->n; i++) {
			const struct ns_row *r = &test->rows[i];
			if (r->gpu != g || rb_op(r->op) < 0)
				continue;
			rb_predict(p, r, NULL, &ts);
			/* from each other GPU's time of the same shape */
			for (size_t j = 0; j < test->n; j++) {
				const struct ns_row *o = &test->rows[j];
				if (o->gpu && o->gpu != g && o->op == r->op && o->ndims == r->ndims &&
				    !memcmp(o->dims, r->dims, sizeof o->dims))
					rb_predict(p, r, o, &tr);
			}
		}
		const char *note = held == 1 ? "" : "  (tile: compiled-in weights, in-sample)";
		printf("  %-22s fitted without sm_%u: eff %.3f / %.3f / %.3f (norm, block, warp softmax), "
		       "l2_share %.3f, host floor %.0f / %.0f ns, p %.2f\n", g->id, g->cc, fit.eff[0], fit.eff[1],
		       fit.eff[2], fit.l2_share, fit.host_floor_ns[0], fit.host_floor_ns[1], fit.floor_p);
		rb_print_line(g->id, "sweep", &sw, note);
		rb_print_line(g->id, "test", &ts, note);
		rb_print_line(g->id, "test-ratio", &tr, note);
		rb_add_gpu(&all_shape, &ts);
		rb_add_gpu(&all_ratio, &tr);
		rb_add_gpu(&all_sweep, &sw);
		predictor_free(p);
		tile_model_free(tm);
	}
	printf("mean over the GPUs held out%s:\n",
	       all_tile_held ? "" : "; the tile model in-sample");
	for (int op = 0; op < RB_NOPS; op++) {
		printf("  %-8s test, shape      rowwise %5.1f  tile %5.1f  roofline %5.1f  auto %5.1f\n",
		       rb_opname[op], rb_mean(&all_shape, op, RB_ROWWISE), rb_mean(&all_shape, op, RB_TILE),
		       rb_mean(&all_shape, op, RB_ROOF), rb_mean(&all_shape, op, RB_AUTO));
		printf("  %-8s sweep, shape     rowwise %5.1f  tile %5.1f  roofline %5.1f  auto %5.1f\n",
		       rb_opname[op], rb_mean(&all_sweep, op, RB_ROWWISE), rb_mean(&all_sweep, op, RB_TILE),
		       rb_mean(&all_sweep, op, RB_ROOF), rb_mean(&all_sweep, op, RB_AUTO));
		printf("  %-8s test, other GPU  rowwise %5.1f  tile %5.1f  auto %5.1f\n", rb_opname[op],
		       rb_mean(&all_ratio, op, RB_ROWWISE), rb_mean(&all_ratio, op, RB_TILE),
		       rb_mean(&all_ratio, op, RB_AUTO));
	}
	return 0;
}

int bench_rowwise_main(const struct bench_args *a)
{
	if (!a->help && !a->data) {
		fprintf(stderr, PROG ": rowwise: --data DIR is needed; see " PROG " rowwise --help\n");
		return 2;
	}
	if (a->help) {
		fprintf(stdout,
			"usage: " PROG " rowwise --data DIR [--own DIR|none] [--holdout-weights DIR] [--emit]\n"
			"  the FP32 row-wise model (layer norm, softmax: predictor/rowwise.c) fitted on\n"
			"  NeuSight's test shapes (DIR/neusight/kernels-test) with each architecture\n"
			"  held out, predicting its sweep (DIR/neusight/kernels) and test shapes and our\n"
			"  own GPUs' rows (--own, default data/), beside the tile model\n"
			"  (--holdout-weights: make accuracy's w_<GPU>.bin) and the roofline; --emit:\n"
			"  the constants fitted on every architecture, as C\n");
		return 0;
	}
	char path[4096];
	struct ns_set sweep = {0}, test = {0}, own = {0};
	int rc = 2;
	snprintf(path, sizeof path, "%s/neusight/kernels/ln", a->data);
	if (rb_load(&sweep, path) != 0)
		goto out;
	snprintf(path, sizeof path, "%s/neusight/kernels/softmax", a->data);
	if (rb_load(&sweep, path) != 0)
		goto out;
	if (!sweep.n) {
		fprintf(stderr, PROG ": rowwise: no layer-norm or softmax rows under %s/neusight/kernels\n",
			a->data);
		goto out;
	}
	snprintf(path, sizeof path, "%s/neusight/kernels-test/ln.csv", a->data);
	if (rb_load(&test, path) != 0)
		goto out;
	snprintf(path, sizeof path, "%s/neusight/kernels-test/softmax.csv", a->data);
	if (rb_load(&test, path) != 0)
		goto out;
	if (a->emit) {
		struct rowwise_params p;
		if (rb_fit(&test, 0, &p) != 0) {
			fprintf(stderr, PROG ": rowwise: no usable test-shape rows\n");
			goto out;
		}
		rb_print_emit(&p);
		rc = 0;
		goto out;
	}
	const char *own_dir = a->own ? a->own : "data";
	DIR *d = strcmp(own_dir, "none") ? opendir(own_dir) : NULL;
	for (struct dirent *e; d && (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s/kernels/vec.csv", own_dir, e->d_name);
		if (rb_load(&own, path) != 0) {
			closedir(d);
			goto out;
		}
	}
	if (d)
		closedir(d);
	rc = rb_run(a, &sweep, &test, &own);
out:
	ns_release(&sweep);
	ns_release(&test);
	ns_release(&own);
	return rc;
}
