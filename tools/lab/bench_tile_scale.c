/*
 * bench_tile_scale.c - `surfer-bench tile-scale --data PATH --gpu GPU`:
 * the scale per tile and batching of a Hopper GPU's FP32 GEMMs (tile.c's
 * tile_own_scale()), from our own measurements of that GPU, printed as
 * predictor/tile_sm90_scale.c.
 *
 * Each FP32 GEMM row under PATH (NeuSight's layout: our
 * data/<GPU>/kernels/gemm.csv) of a GPU of GPU's compute capability (our
 * H100 and H200 together) that ran TS_MIN_MS or more is predicted
 * from its shape by the compiled-in tile model with no scale and no host
 * floor (the work term the scale multiplies; our harness's own floor,
 * some 15 us, is under 5 % of such a kernel), and keyed by the tile the
 * model takes for it (the GPU's pick) and whether it is batched.  A key
 * with TS_MIN_ROWS rows or more gets the median of measured over
 * predicted, but for the tile and batching of the GPU's fp32_gemm_eff
 * figure's own GEMM (4096^3), which the figure pins already.  The comment
 * of the file carries the check of the rule on the rows themselves,
 * two-fold: the even rows' scales applied to the odd rows and the
 * reverse, MAPE without and with them.
 */
#include "tools/lab/bench_tile_scale.h"
#include "tools/lab/neusight.h"
#include "tools/lab/stats.h"
#include "trace/surfer_err.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_specs/gpu.h"
#include "predictor/predict.h"
#include "predictor/tile.h"

#define PROG "surfer-bench"
#define TS_MIN_MS 0.3   /* a kernel this long holds our harness's floor
			 * (15 us) to under 5 % of it                   */
#define TS_MIN_ROWS 3   /* rows a key needs for a scale of its own      */
#define TS_MAXKEY 64

static void ts_usage(FILE *f)
{
	fprintf(f, "usage: " PROG " tile-scale --data PATH --gpu GPU\n"
		   "  prints predictor/tile_sm90_scale.c: per tile and batching, the median\n"
		   "  of measured over predicted (the compiled-in tile model from the shape,\n"
		   "  no scale, no host floor) of the FP32 GEMMs of %.1f ms or more under PATH\n"
		   "  (NeuSight's layout) of every GPU of GPU's compute capability, keys of\n"
		   "  %d rows or more; its comment holds the two-fold check of the scales on\n"
		   "  those rows\n",
		TS_MIN_MS, TS_MIN_ROWS);
}

struct ts_row {
	struct tile_own_scale key; /* t0, t1, batched                        */
	double log_ratio;          /* log(measured / predicted)              */
};

static int ts_same(const struct tile_own_scale *a, const struct tile_own_scale *b)
{
	return a->t0 == b->t0 && a->t1 == b->t1 && a->batched == b->batched;
}

/* The scales of the rows of parity part (-1: all) into e[], no key equal
 * to skip; their count. */
static size_t ts_scales(const struct ts_row *r, size_t n, int part, const struct tile_own_scale *skip,
			struct tile_own_scale *e)
{
	size_t ne = 0;
	double *v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (part >= 0 && (int)(i % 2) != part)
			continue;
		size_t j = 0;
		while (j < ne && !ts_same(&e[j], &r[i].key))
			j++;
		if (j == ne && ne < TS_MAXKEY)
			e[ne++] = r[i].key;
	}
	size_t kept = 0;
	for (size_t j = 0; j < ne; j++) {
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if ((part < 0 || (int)(i % 2) == part) && ts_same(&e[j], &r[i].key))
				v[m++] = r[i].log_ratio;
		if (m < TS_MIN_ROWS || ts_same(&e[j], skip))
			continue;
		e[kept] = e[j];
		e[kept].n = (uint16_t)m;
		e[kept].scale = exp(lab_median(v, m));
		kept++;
	}
	free(v);
	return kept;
}

/* MAPE in % of the rows of parity part with the scales e[] (ne 0: none). */
static double ts_mape(const struct ts_row *r, size_t n, int part, const struct tile_own_scale *e,
		      size_t ne)
{
	double sum = 0;
	size_t m = 0;
	for (size_t i = (size_t)part; i < n; i += 2) {
		double s = 1;
		for (size_t j = 0; j < ne; j++)
			if (ts_same(&e[j], &r[i].key))
				s = e[j].scale;
		/* predicted / measured = exp(-log_ratio) times the scale */
		sum += fabs(s * exp(-r[i].log_ratio) - 1) * 100;
		m++;
	}
	return m ? sum / (double)m : NAN;
}

int bench_tile_scale_main(const struct bench_args *a)
{
	if (a->help) {
		ts_usage(stdout);
		return 0;
	}
	if (!a->data || !a->gpu) {
		fprintf(stderr, PROG ": tile-scale: --data PATH and --gpu GPU are needed\n");
		return surfer_exit_code(SURFER_EINVAL);
	}
	const struct gpu_spec *g = gpu_find(a->gpu);
	if (!g) {
		fprintf(stderr, PROG ": tile-scale: unknown GPU '%s'\n", a->gpu);
		return surfer_exit_code(SURFER_EINVAL);
	}
	struct ns_set set;
	char err[512];
	memset(&set, 0, sizeof set);
	if (ns_load_format(&set, a->data, NS_FMT_NEUSIGHT, NULL, NULL, err, sizeof err) != 0) {
		fprintf(stderr, PROG ": tile-scale: cannot load '%s': %s\n", a->data, err);
		ns_release(&set);
		return surfer_exit_code(SURFER_EINVAL);
	}
	static const struct tile_own_scales none = {NULL, 0};
	struct pred_config pc = {.own_scales = &none};
	struct predictor *p;
	if (predictor_new(&pc, &p, err, sizeof err) != 0) {
		fprintf(stderr, PROG ": tile-scale: %s\n", err);
		ns_release(&set);
		return surfer_exit_code(SURFER_EINVAL);
	}
	struct ts_row *r = calloc(set.n ? set.n : 1, sizeof(*r));
	const struct gpu_spec *used[8];
	size_t n = 0, nused = 0, per[8] = {0};
	for (size_t i = 0; r && i < set.n; i++) {
		const struct ns_row *row = &set.rows[i];
		struct pred_kernel k;
		struct pred_result res;
		struct tile_shape t;
		if (!row->gpu || row->gpu->cc != g->cc || ns_op_class(row->op) != PRED_OP_GEMM ||
		    row->dtype != GPU_DT_FP32 || !(row->latency_ms >= TS_MIN_MS) ||
		    ns_kernel(row, 0, &k) != 0 || tile_predict(p, &k, NULL, row->gpu, &res) != 0 ||
		    !(res.ns > 0))
			continue;
		size_t u = 0;
		while (u < nused && used[u] != row->gpu)
			u++;
		if (u == nused && nused < 8)
			used[nused++] = row->gpu;
		if (u < 8)
			per[u]++;
		tile_gemm_of(predictor_tile(p), &k, row->gpu, NULL, &t);
		r[n].key = (struct tile_own_scale){.t0 = (uint16_t)t.t0, .t1 = (uint16_t)t.t1,
						   .batched = (uint8_t)tile_gemm_batched(&k)};
		r[n].log_ratio = log(row->latency_ms * 1e6 / res.ns);
		n++;
	}
	/* The figure's own GEMM (4096^3, one GEMM: the fp32_gemm_eff figure,
	 * tile.c's fig_gemm_scale()) is timed at the measured rate already;
	 * a scale on its tile and batching would move it off the figure. */
	struct pred_kernel fk = {.op = PRED_OP_GEMM, .dtype = GPU_DT_FP32, .batch = 1,
				 .m = 4096, .n = 4096, .k = 4096};
	struct tile_shape ft;
	tile_gemm_of(predictor_tile(p), &fk, g, NULL, &ft);
	struct tile_own_scale fig = {.t0 = (uint16_t)ft.t0, .t1 = (uint16_t)ft.t1, .batched = 0};
	struct tile_own_scale all[TS_MAXKEY], half[TS_MAXKEY];
	size_t nall = r ? ts_scales(r, n, -1, &fig, all) : 0;
	int rc = 0;
	if (!r || !nall) {
		fprintf(stderr, PROG ": tile-scale: %s\n",
			!r ? "out of memory"
			   : "no tile and batching has enough FP32 GEMMs of GPUs of the GPU's compute "
			     "capability under the data");
		rc = surfer_exit_code(SURFER_EINVAL);
	} else {
		double fold[2][2];
		for (int part = 0; part < 2; part++) {
			size_t nh = ts_scales(r, n, part, &fig, half);
			fold[part][0] = ts_mape(r, n, 1 - part, NULL, 0);
			fold[part][1] = ts_mape(r, n, 1 - part, half, nh);
		}
		printf("/*\n * tile_sm90_scale.c - generated by `build/surfer-bench tile-scale --data DIR\n"
		       " * --gpu %s`, DIR holding our data/<GPU>/kernels/gemm.csv of the GPUs\n"
		       " * below, after the tile weights: it predicts with the compiled-in model;\n"
		       " * do not edit.  Per tile and batching, the median of measured over\n"
		       " * predicted of the %zu FP32 GEMMs of %.1f ms or more (tile.c,\n"
		       " * tile_own_scale()) of",
		       g->id, n, TS_MIN_MS);
		for (size_t u = 0; u < nused; u++)
			printf("%s %s (%zu)", u ? (u + 1 == nused ? " and" : ",") : "", used[u]->id, per[u]);
		printf(".\n * Two-fold on those rows (the even rows' scales on the odd ones, and\n"
		       " * the reverse), MAPE without -> with: %.1f -> %.1f %% / %.1f -> %.1f %%.\n"
		       " */\n"
		       "#include \"predictor/tile.h\"\n\nstatic const struct tile_own_scale e[] = {\n",
		       fold[0][0], fold[0][1], fold[1][0], fold[1][1]);
		for (size_t j = 0; j < nall; j++)
			printf("\t{%u, %u, %u, %u, %.4f},\n", all[j].t0, all[j].t1, all[j].batched,
			       all[j].n, all[j].scale);
		printf("};\n\nconst struct tile_own_scales tile_sm90_scales = {e, sizeof e / sizeof e[0]};\n");
	}
	free(r);
	predictor_free(p);
	ns_release(&set);
	return rc;
}
