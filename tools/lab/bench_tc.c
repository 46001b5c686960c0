/*
 * bench_tc.c - `surfer-bench tensorcore`: held-out accuracy of the
 * tensor-core GEMM model (predictor/tcgemm.c) on measured GEMMs, against
 * the bare roofline (from scratch) and Habitat's wave scaling (from the
 * same shape measured on another GPU), and the fit of the committed
 * constants (--emit).
 *
 * Data (read from --data DIR, the layout of the shared data folder):
 *  - pipeweave/gemm_fp8_{train,test}.csv: FP8 GEMMs on H20 and H800
 *    (M, N, K, avg_duration in us, hardware);
 *  - vidur/compute/{a100,a40}/ORG/MODEL/mlp.csv: FP16 LLM projections per
 *    layer vs tokens (medians in ms), shapes from the model columns
 *    (vidur_gemm_shapes());
 *  - deepbench/csv/results/train/DeepBench_NV_{V100,T4}__Results_-_FP16_ip_
 *    Mixed_math.csv: the "Dense Matrix Multiplication" section (M, N, K,
 *    time in ms).
 * The A100 of Vidur is taken as the SXM4 80GB part, DeepBench's V100 as the
 * SXM2 16GB.
 * With --own DIR (data: the repository's measurements, run from its root),
 * our own too: DIR/<GPU>/ours/gemm.csv, the 16-bit and FP8 GEMMs
 * tools/gpu/kernels.py timed on a lent GPU (data/README.md), one more
 * architecture (tc_load_own()).  Not by default: the committed constants
 * are fitted on the shared data alone (tcgemm_params.c says what --own
 * data did to them).
 */
#include "tools/lab/bench_tc.h"
#include "tools/lab/bench_own.h"
#include "trace/surfer_err.h"
#include "tools/lab/vidur.h"
#include "trace/csv.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predictor/roofline.h"
#include "predictor/tcgemm.h"
#include "predictor/wave.h"

#define PROG "surfer-bench"

struct tc_set {
	struct tcgemm_sample *s;
	size_t n, cap;
	int *src;                 /* data source of each sample (pairs form within one) */
	int *layout;              /* operand layout (DeepBench's A and B transposes:
				   * another kernel); pairs share it          */
};

/* The data sources; only PipeWeave splits its GEMMs into a training and a
 * test file, and no fit sees the test file. */
enum { TC_SRC_PW_TRAIN, TC_SRC_VIDUR, TC_SRC_DEEPBENCH, TC_SRC_PW_TEST, TC_SRC_OWN };

/* --own: the folder of our own measurements; NULL (the default, or
 * none): left out. */
static const char *tc_own_root;

void bench_tc_own_data(const char *dir)
{
	tc_own_root = dir && strcmp(dir, "none") ? dir : NULL;
}

static int tc_add(struct tc_set *set, const struct gpu_spec *g, enum gpu_dtype dt, uint64_t m,
		  uint64_t n, uint64_t k, double ns, int src, int layout)
{
	if (!g || m == 0 || n == 0 || k == 0 || !(ns > 0))
		return 0;
	if (set->n == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 1024;
		struct tcgemm_sample *s = realloc(set->s, cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		set->s = s;
		int *src2 = realloc(set->src, cap * sizeof(*src2));
		if (!src2)
			return -ENOMEM;
		set->src = src2;
		int *lay = realloc(set->layout, cap * sizeof(*lay));
		if (!lay)
			return -ENOMEM;
		set->layout = lay;
		set->cap = cap;
	}
	struct tcgemm_sample *x = &set->s[set->n];
	memset(x, 0, sizeof(*x));
	x->k.op = PRED_OP_GEMM;
	x->k.dtype = dt;
	x->k.m = m, x->k.n = n, x->k.k = k, x->k.batch = 1;
	x->k.flops = 2.0 * (double)m * (double)n * (double)k;
	x->gpu = g;
	x->ns = ns;
	set->layout[set->n] = layout;
	set->src[set->n++] = src;
	return 0;
}

/* Releases csv after a read error, its "path:line: reason" in err. */
static int tc_csv_error(struct csv_reader *csv, int rc, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s", csv->err);
	csv_release(csv);
	return rc;
}

static int tc_load_pipeweave(struct tc_set *set, const char *path, int src, char *err,
			     size_t errlen)
{
	struct csv_reader csv;
	if (csv_open(&csv, path, 0) != 0)
		return -ENOENT;
	int cm = -1, cn = -1, ck = -1, ct = -1, ch = -1, rc = csv_next(&csv);
	if (rc < 0)
		return tc_csv_error(&csv, rc, err, errlen);
	if (rc == 1) {
		cm = csv_col(&csv, "M"), cn = csv_col(&csv, "N"), ck = csv_col(&csv, "K");
		ct = csv_col(&csv, "avg_duration"), ch = csv_col(&csv, "hardware");
	}
	if (cm < 0 || cn < 0 || ck < 0 || ct < 0 || ch < 0) {
		snprintf(err, errlen, "'%s': no M, N, K, avg_duration and hardware columns", path);
		csv_release(&csv);
		return -EINVAL;
	}
	rc = 0;
	while (rc == 0 && (rc = csv_next(&csv)) == 1) {
		char **f = csv.field;
		int nf = (int)csv.nfield;
		rc = 0;
		if (nf <= cm || nf <= cn || nf <= ck || nf <= ct || nf <= ch)
			continue;
		rc = tc_add(set, gpu_find(f[ch]), GPU_DT_FP8, strtoull(f[cm], NULL, 10),
			    strtoull(f[cn], NULL, 10), strtoull(f[ck], NULL, 10),
			    strtod(f[ct], NULL) * 1e3, src, 0);
	}
	if (rc < 0 && csv.err[0])
		return tc_csv_error(&csv, rc, err, errlen);
	csv_release(&csv);
	return rc;
}

/* Vidur's four projection GEMMs of one mlp.csv row (FP16, tokens x in ->
 * out, tensor-parallel shards; vidur.h). */
static int tc_vidur_row(void *ctx, const struct vidur_row *r, const struct gpu_spec *g)
{
	struct tc_set *set = ctx;
	uint64_t sh[4][2], t = (uint64_t)r->num_tokens;
	int rc = 0;
	if (vidur_gemm_shapes(r, sh) != 0)
		return 0;
	for (int i = 0; i < 4 && rc == 0; i++)
		rc = tc_add(set, g, GPU_DT_FP16, t, sh[i][1], sh[i][0], r->median_ms[i] * 1e6,
			    TC_SRC_VIDUR, 0);
	return rc;
}

static int tc_load_deepbench(struct tc_set *set, const char *path, const char *gpu,
			     char *err, size_t errlen)
{
	const struct gpu_spec *g = gpu_find(gpu);
	int in = 0, rc = 0;
	struct csv_reader csv;
	if (!g || csv_open(&csv, path, 0) != 0)
		return -ENOENT;
	/* Sections start with a named first field; the GEMM rows, under
	 * "Dense Matrix Multiplication,,M,N,K,A Transpose,B Transpose,,Time
	 * (msec),...", have an empty first field. */
	while (rc == 0 && (rc = csv_next(&csv)) == 1) {
		char **f = csv.field;
		rc = 0;
		if (f[0][0]) {
			in = !strcmp(f[0], "Dense Matrix Multiplication");
			continue;
		}
		if (!in || csv.nfield < 9)
			continue;
		/* The same M, N, K with other transposes runs another kernel
		 * (1760 x 16 x 1760 on the T4: 61 us NN, 36 us NT): pairs
		 * match them too. */
		rc = tc_add(set, g, GPU_DT_FP16, strtoull(f[2], NULL, 10), strtoull(f[3], NULL, 10),
			    strtoull(f[4], NULL, 10), strtod(f[8], NULL) * 1e6, TC_SRC_DEEPBENCH,
			    (f[5][0] == 'T') * 2 + (f[6][0] == 'T'));
	}
	if (rc < 0 && csv.err[0])
		return tc_csv_error(&csv, rc, err, errlen);
	csv_release(&csv);
	return rc;
}

/* Our own GEMMs of one GPU: DIR/<GPU>/ours/gemm.csv (dtype, m, n, k,
 * latency_ms, Device; timing where kernels.py wrote it).  A row timed
 * "queued" is the kernel's time (its calls queued behind a spin kernel, run
 * back to back).  Any other (no timing column: the H200's of 2026-12-04,
 * each call alone between two CUDA events on an idle GPU) holds the host's
 * dispatch too (the smallest GEMMs 23-45 us on the H200, their kernels a
 * few; bench_own.c's OWN_LARGE_MS): of those, only GEMMs whose kernel takes
 * 0.4 ms or more even at the datasheet peak of their dtype are taken, where
 * that dispatch is under a tenth of the time: chosen on the shape, not on
 * the measurement or a prediction.  The FP32 rows run SIMT (the tile
 * model's) and are not taken. */
#define TC_OWN_MIN_PEAK_MS 0.4

static int tc_load_own_file(struct tc_set *set, const char *path, char *err, size_t errlen)
{
	struct csv_reader csv;
	if (csv_open(&csv, path, 0) != 0)
		return 0;
	int rc = csv_next(&csv), cd = -1, cm = -1, cn = -1, ck = -1, ct = -1, cg = -1, cq = -1;
	if (rc < 0)
		return tc_csv_error(&csv, rc, err, errlen);
	if (rc == 1) {
		cd = csv_col(&csv, "dtype"), cm = csv_col(&csv, "m"), cn = csv_col(&csv, "n");
		ck = csv_col(&csv, "k"), ct = csv_col(&csv, "latency_ms"), cg = csv_col(&csv, "Device");
		cq = csv_col(&csv, "timing");
	}
	if (cd < 0 || cm < 0 || cn < 0 || ck < 0 || ct < 0 || cg < 0) {
		snprintf(err, errlen, "'%s': no dtype, m, n, k, latency_ms and Device columns", path);
		csv_release(&csv);
		return -EINVAL;
	}
	rc = 0;
	while (rc == 0 && (rc = csv_next(&csv)) == 1) {
		rc = 0;
		/* the row as `surfer-bench own` reads it: its dtype and shape */
		double v[3] = {strtod(csv_field(&csv, (size_t)cm), NULL),
			       strtod(csv_field(&csv, (size_t)cn), NULL),
			       strtod(csv_field(&csv, (size_t)ck), NULL)};
		struct pred_kernel k;
		if (bench_own_kernels("gemm", csv_field(&csv, (size_t)cd), v, 3, &k, 1) != 1 ||
		    (k.dtype != GPU_DT_BF16 && k.dtype != GPU_DT_FP16 && k.dtype != GPU_DT_FP8))
			continue;
		const struct gpu_spec *g = gpu_find(csv_field(&csv, (size_t)cg));
		if (!g) {
			snprintf(err, errlen, "%s:%lu: unknown GPU '%s'", path, csv.line,
				 csv_field(&csv, (size_t)cg));
			csv_release(&csv);
			return -EINVAL;
		}
		double peak = roofline_peak_flops(g, k.dtype);
		if (!(peak > 0) ||
		    (!bench_own_row_queued(&csv, cq) && k.flops / peak * 1e3 < TC_OWN_MIN_PEAK_MS))
			continue;
		rc = tc_add(set, g, k.dtype, k.m, k.n, k.k,
			    strtod(csv_field(&csv, (size_t)ct), NULL) * 1e6, TC_SRC_OWN, 0);
	}
	if (rc < 0 && csv.err[0])
		return tc_csv_error(&csv, rc, err, errlen);
	csv_release(&csv);
	return rc;
}

/* Every DIR/<GPU>/ours/gemm.csv of the --own folder (absent: none), in
 * the order of their names, so a fit reads them alike on every machine. */
static int tc_load_own(struct tc_set *set, char *err, size_t errlen)
{
	struct dirent **e = NULL;
	int n = tc_own_root ? scandir(tc_own_root, &e, NULL, alphasort) : 0, rc = 0;
	for (int i = 0; i < n; i++) {
		char p[4096];
		if (rc == 0 && e[i]->d_name[0] != '.') {
			snprintf(p, sizeof p, "%s/%s/ours/gemm.csv", tc_own_root, e[i]->d_name);
			rc = tc_load_own_file(set, p, err, errlen);
		}
		free(e[i]);
	}
	free(e);
	return rc;
}

static int tc_load_all(struct tc_set *set, const char *root, char *err, size_t errlen)
{
	char p[4096];
	int rc;
	static const char *const pw[] = {"gemm_fp8_train.csv", "gemm_fp8_test.csv"};
	static const int pw_src[] = {TC_SRC_PW_TRAIN, TC_SRC_PW_TEST};
	static const char *const db[][2] = {
		{"DeepBench_NV_V100__Results_-_FP16_ip_Mixed_math.csv", "v100-sxm2-16"},
		{"DeepBench_NV_T4__Results_-_FP16_ip_Mixed_math.csv", "t4"},
	};

	err[0] = 0;
	for (int i = 0; i < 2; i++) {
		snprintf(p, sizeof p, "%s/pipeweave/%s", root, pw[i]);
		if ((rc = tc_load_pipeweave(set, p, pw_src[i], err, errlen)) < 0 && rc != -ENOENT)
			return rc;
	}
	if ((rc = vidur_each_row(root, "a100", "a100-sxm4-80", vidur_gemm_ops, 4, tc_vidur_row, set,
				 err, errlen)) < 0 && rc != -ENOENT)
		return rc;
	if ((rc = vidur_each_row(root, "a40", "a40", vidur_gemm_ops, 4, tc_vidur_row, set,
				 err, errlen)) < 0 && rc != -ENOENT)
		return rc;
	for (int i = 0; i < 2; i++) {
		snprintf(p, sizeof p, "%s/deepbench/csv/results/train/%s", root, db[i][0]);
		if ((rc = tc_load_deepbench(set, p, db[i][1], err, errlen)) < 0 && rc != -ENOENT)
			return rc;
	}
	return set->n ? tc_load_own(set, err, errlen) : 0;
}

/* ---- pairs: the same shape measured on another GPU of the same source -- */

static const struct tc_set *tc_sort_set;

static int tc_cmp(const void *a, const void *b)
{
	const struct tcgemm_sample *x = &tc_sort_set->s[*(const size_t *)a];
	const struct tcgemm_sample *y = &tc_sort_set->s[*(const size_t *)b];
	int sx = tc_sort_set->src[*(const size_t *)a], sy = tc_sort_set->src[*(const size_t *)b];
	int lx = tc_sort_set->layout[*(const size_t *)a], ly = tc_sort_set->layout[*(const size_t *)b];
	if (sx != sy)
		return sx < sy ? -1 : 1;
	if (lx != ly)
		return lx < ly ? -1 : 1;
	if (x->k.m != y->k.m)
		return x->k.m < y->k.m ? -1 : 1;
	if (x->k.n != y->k.n)
		return x->k.n < y->k.n ? -1 : 1;
	if (x->k.k != y->k.k)
		return x->k.k < y->k.k ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* pair[i] = a sample of the same source, operand layout and shape on
 * another GPU, or -1. */
static long *tc_pairs(const struct tc_set *set)
{
	size_t *idx = malloc(set->n * sizeof(*idx));
	long *pair = malloc(set->n * sizeof(*pair));
	if (!idx || !pair) {
		free(idx), free(pair);
		return NULL;
	}
	for (size_t i = 0; i < set->n; i++)
		idx[i] = i, pair[i] = -1;
	tc_sort_set = set;
	qsort(idx, set->n, sizeof(*idx), tc_cmp);
	for (size_t a = 0; a < set->n;) {
		size_t b = a + 1;
		const struct tcgemm_sample *x = &set->s[idx[a]];
		while (b < set->n && set->src[idx[b]] == set->src[idx[a]] &&
		       set->layout[idx[b]] == set->layout[idx[a]] && set->s[idx[b]].k.m == x->k.m && set->s[idx[b]].k.n == x->k.n &&
		       set->s[idx[b]].k.k == x->k.k)
			b++;
		for (size_t i = a; i < b; i++)
			for (size_t j = a; j < b && pair[idx[i]] < 0; j++)
				if (set->s[idx[j]].gpu != set->s[idx[i]].gpu)
					pair[idx[i]] = (long)idx[j];
		a = b;
	}
	free(idx);
	return pair;
}

/* A cuBLAS-like launch for wave scaling: one 256-thread block per output
 * tile, 128 registers per thread (what the large tensor-core kernels use). */
static void tc_launch(struct pred_kernel *k)
{
	uint64_t tiles = ((k->m + TCGEMM_TILE - 1) / TCGEMM_TILE) *
			 ((k->n + TCGEMM_TILE - 1) / TCGEMM_TILE);
	k->grid[0] = (uint32_t)(tiles < UINT32_MAX ? tiles : UINT32_MAX);
	k->grid[1] = k->grid[2] = 1;
	k->block[0] = 256, k->block[1] = k->block[2] = 1;
	k->regs = 128;
	double in = k->dtype == GPU_DT_FP8 ? 1 : 2;
	k->bytes = ((double)k->m * k->k + (double)k->k * k->n) * in + (double)k->m * k->n * 2;
}

enum { TC_ROOF, TC_SCRATCH, TC_WAVE, TC_RATIO, TC_NCOL };
static const char *const tc_colname[TC_NCOL] = {"roofline", "tc-scratch", "wave(orig)",
						  "tc-ratio(orig)"};

static void tc_print_params(FILE *out, const struct tcgemm_params *p, const char *indent)
{
	if (p->eff[GPU_DT_FP8] > 0)
		fprintf(out, "%s.eff = {[GPU_DT_FP16] = %.4f, [GPU_DT_FP8] = %.4f},\n", indent,
			p->eff[GPU_DT_FP16], p->eff[GPU_DT_FP8]);
	else
		fprintf(out, "%s.eff = {[GPU_DT_FP16] = %.4f},\n", indent, p->eff[GPU_DT_FP16]);
	fprintf(out, "%s.k0 = %.2f,\n%s.wave_pow = %.4f,\n%s.pad_pow = %.4f,\n", indent, p->k0,
		indent, p->wave_pow, indent, p->pad_pow);
	fprintf(out, "%s.power_w_ref = %.4f,\n%s.power_pow = %.4f,\n%s.power_rate_pow = %.4f,\n",
		indent, p->power_w_ref, indent, p->power_pow, indent, p->power_rate_pow);
	fprintf(out, "%s.mamf_1024 = %.4f,\n%s.rate_pow = %.4f,\n", indent, p->mamf_1024, indent,
		p->rate_pow);
	fprintf(out, "%s.bw_eff = %.4f,\n%s.overhead_ns = %.1f,\n", indent, p->bw_eff, indent,
		p->overhead_ns);
	if (p->mem_pow > 0)
		fprintf(out, "%s.mem_pow = %.3f,\n", indent, p->mem_pow);
	if (p->fp8.eff > 0)
		fprintf(out, "%s.fp8 = {\n%s\t.eff = %.4f,\n%s\t.feed_bpc = %.3f,\n"
			"%s\t.bw_eff = %.4f,\n%s\t.overhead_ns = %.1f,\n%s\t.w_ref = %.4f,\n"
			"%s\t.power_pow = %.4f,\n%s\t.boost_ns = %.1f,\n%s},\n", indent, indent,
			p->fp8.eff, indent, p->fp8.feed_bpc, indent, p->fp8.bw_eff, indent,
			p->fp8.overhead_ns, indent, p->fp8.w_ref, indent, p->fp8.power_pow, indent,
			p->fp8.boost_ns, indent);
}

/* The variant the table and --emit fit: one asymptotic efficiency for all
 * dtypes (the default: held out, it beats an FP8 efficiency of its own,
 * which only two GPUs inform, on 4 of 6 GPUs) or one per dtype
 * (--per-dtype); the GPUs' MAMF figures and the rule for the others (the
 * default; --no-figures: one efficiency of the dense peak for every GPU,
 * the model before them), the rule with its power term (the default) or
 * the tensor width alone (--no-power), the compute and memory times
 * joined by the fitted power mean (the default) or their max
 * (--max-form). */
static int tc_tie = 1, tc_power = 1, tc_figures = 1, tc_join = 1;

static struct tcgemm_params tc_start(void)
{
	struct tcgemm_params p;
	memset(&p, 0, sizeof p);
	p.eff[GPU_DT_FP16] = 0.7;
	p.eff[GPU_DT_FP8] = tc_tie ? 0 : 0.6;
	p.k0 = 64, p.wave_pow = 0.5, p.pad_pow = 0.7;
	p.power_w_ref = tc_power ? 2 : 0;
	p.power_pow = tc_power ? 0.3 : 0;
	p.mamf_1024 = tc_figures ? 0.85 : 0;
	p.bw_eff = 0.9, p.overhead_ns = 5000;
	p.mem_pow = tc_join ? 4 : 0;
	p.fp8.eff = 0.9;          /* fit the FP8 tile-wave form (tcgemm.c) */
	return p;
}

/* Fits the constants on the training rows (no PipeWeave test file) of
 * GPUs whose compute capability is not cc_out (0: every GPU); rms, when
 * not NULL, gets the fit's rms log error.  A fit is the same whichever
 * table asks for it (the held-out rows, the pairs, the MAMF rule), so each
 * is made once per run. */
static struct {
	uint32_t cc;
	struct tcgemm_params p;
	double rms;
} tc_fits[16];
static size_t tc_nfits;

/* The fit on the training rows of GPUs whose compute capability is none
 * of the ncc in cc_out, their MAMF figures left out too. */
static int tc_fit_excluding(const struct tc_set *set, const uint32_t *cc_out, size_t ncc,
			    struct tcgemm_params *p, double *rms)
{
	struct tcgemm_sample *train = malloc((set->n ? set->n : 1) * sizeof(*train));
	size_t nt = 0;
	if (!train)
		return -ENOMEM;
	for (size_t i = 0; i < set->n; i++) {
		if (!gpu_cc_in(set->s[i].gpu->cc, cc_out, ncc) && set->src[i] != TC_SRC_PW_TEST)
			train[nt++] = set->s[i];
	}
	*p = tc_start();
	int rc = tcgemm_fit(train, nt, cc_out, ncc, p, rms);
	free(train);
	return rc;
}

static int tc_fit_without(const struct tc_set *set, uint32_t cc_out, struct tcgemm_params *p,
			  double *rms)
{
	for (size_t i = 0; i < tc_nfits; i++)
		if (tc_fits[i].cc == cc_out) {
			*p = tc_fits[i].p;
			if (rms)
				*rms = tc_fits[i].rms;
			return 0;
		}
	double r = 0;
	int rc = tc_fit_excluding(set, &cc_out, cc_out ? 1 : 0, p, &r);
	if (rc == 0 && tc_nfits < sizeof tc_fits / sizeof tc_fits[0]) {
		tc_fits[tc_nfits].cc = cc_out;
		tc_fits[tc_nfits].p = *p;
		tc_fits[tc_nfits++].rms = r;
	}
	if (rms)
		*rms = r;
	return rc;
}

static int tc_heldout(const struct tc_set *set, const long *pair, const struct gpu_spec *h,
		      FILE *dump)
{
	size_t cnt[TC_NCOL] = {0};
	double err[TC_NCOL] = {0}, rms;
	/* The whole architecture out (every GPU of h's compute capability),
	 * and no test file. */
	struct tcgemm_params p;
	int rc = tc_fit_without(set, h->cc, &p, &rms);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < set->n; i++) {
		const struct tcgemm_sample *x = &set->s[i];
		if (x->gpu != h)
			continue;
		struct pred_kernel k = x->k;
		double pred[TC_NCOL];
		tc_launch(&k);
		for (int c = 0; c < TC_NCOL; c++)
			pred[c] = -1;
		pred[TC_ROOF] = roofline_ns(&k, h, NULL);
		pred[TC_SCRATCH] = tcgemm_model_ns(&k, h, &p);
		if (pair[i] >= 0) {
			const struct tcgemm_sample *o = &set->s[pair[i]];
			struct pred_result r;
			k.origin_ns = o->ns;
			if (wave_predict(&k, o->gpu, h, &r) == 0)
				pred[TC_WAVE] = r.ns;
			double mo = tcgemm_model_ns(&k, o->gpu, &p);
			if (mo > 0 && pred[TC_SCRATCH] > 0)
				pred[TC_RATIO] = o->ns * pred[TC_SCRATCH] / mo;
		}
		if (dump)
			fprintf(dump, "%s,%s,%llu,%llu,%llu,%.1f,%.1f,%.1f,%.1f,%.1f,%s\n", h->id,
				gpu_dtype_name(k.dtype), (unsigned long long)k.m,
				(unsigned long long)k.n, (unsigned long long)k.k, x->ns,
				pred[TC_ROOF], pred[TC_SCRATCH], pred[TC_WAVE], pred[TC_RATIO],
				pair[i] >= 0 ? set->s[pair[i]].gpu->id : "");
		for (int c = 0; c < TC_NCOL; c++)
			if (pred[c] > 0) {
				err[c] += fabs(pred[c] - x->ns) / x->ns;
				cnt[c]++;
			}
	}
	printf("%-14s %6zu %6zu", h->id, cnt[TC_ROOF], cnt[TC_RATIO]);
	for (int c = 0; c < TC_NCOL; c++)
		if (cnt[c])
			printf(" %14.1f%%", 100 * err[c] / (double)cnt[c]);
		else
			printf(" %15s", "-");
	printf("   (fit: rms log %.3f, eff %.2f", rms, p.eff[GPU_DT_FP16]);
	if (p.eff[GPU_DT_FP8] > 0)
		printf(" fp8 %.2f", p.eff[GPU_DT_FP8]);
	if (p.mamf_1024 > 0) {
		enum gpu_provenance pv;
		double sh = tcgemm_mamf_share(h, &p, &pv);
		printf(" mamf %.3f %s", sh, pv == GPU_PROV_RULE ? "rule" : "figure");
	}
	printf(" k0 %.0f", p.k0);
	if (p.power_w_ref > 0)
		printf(" W/TF %.2f^%.2f", p.power_w_ref, p.power_pow);
	printf(" overhead %.1f us)\n", p.overhead_ns / 1e3);
	return 0;
}

/* ---- pairs: the ratio form against the naive ratios ------------------- */

enum { TP_FLOPS, TP_BW, TP_ROOF, TP_TC_ARCH, TP_TC_TRAIN, TP_NCOL };
static const char *const tp_colname[TP_NCOL] = {"flops-ratio", "bw-ratio", "roofline",
						  "tc(arch out)", "tc(train fit)"};

/* Every ordered pair of GPUs of one data source: MAPE of the target
 * predicted from the origin's measured time by the FLOP/s ratio (the
 * dtype's dense peaks), the datasheet bandwidth ratio, the roofline ratio
 * and the tensor-core model's ratio, fitted without the target's
 * architecture and fitted on every training file; over PipeWeave's test
 * file where the source has one. */
static int tc_pair_table(const struct tc_set *set, const long *pair, uint32_t only_cc)
{
	struct tcgemm_params train_fit, arch_fit[8];
	uint32_t arch_cc[8];
	int narch = 0, rc = tc_fit_without(set, 0, &train_fit, NULL);
	const struct gpu_spec *po[32], *pt[32];
	int psrc[32], np = 0;
	double err[32][TP_NCOL];
	size_t cnt[32];
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < set->n; i++) {
		if (pair[i] < 0 || set->src[i] == TC_SRC_PW_TRAIN ||
		    (only_cc && set->s[i].gpu->cc != only_cc))
			continue;
		const struct gpu_spec *t = set->s[i].gpu, *o = set->s[pair[i]].gpu;
		int j = 0;
		while (j < np && !(po[j] == o && pt[j] == t && psrc[j] == set->src[i]))
			j++;
		if (j == np) {
			if (np == 32)
				continue;
			po[np] = o, pt[np] = t, psrc[np] = set->src[i], cnt[np] = 0;
			memset(err[np], 0, sizeof err[np]);
			np++;
		}
		int a = 0;
		while (a < narch && arch_cc[a] != t->cc)
			a++;
		if (a == narch) {
			if (narch == 8)
				continue;
			arch_cc[narch] = t->cc;
			if ((rc = tc_fit_without(set, t->cc, &arch_fit[narch], NULL)) < 0)
				return rc;
			narch++;
		}
		struct pred_kernel k = set->s[i].k;
		double on = set->s[pair[i]].ns, tn = set->s[i].ns, pred[TP_NCOL];
		tc_launch(&k);
		int dt = k.dtype;
		pred[TP_FLOPS] = on * o->peak_tflops[dt] / t->peak_tflops[dt];
		pred[TP_BW] = on * o->mem_bw_gbps / t->mem_bw_gbps;
		pred[TP_ROOF] = on * roofline_ns(&k, t, NULL) / roofline_ns(&k, o, NULL);
		pred[TP_TC_ARCH] = on * tcgemm_model_ns(&k, t, &arch_fit[a]) /
				   tcgemm_model_ns(&k, o, &arch_fit[a]);
		pred[TP_TC_TRAIN] = on * tcgemm_model_ns(&k, t, &train_fit) /
				    tcgemm_model_ns(&k, o, &train_fit);
		for (int c = 0; c < TP_NCOL; c++)
			err[j][c] += fabs(pred[c] - tn) / tn;
		cnt[j]++;
	}
	printf("\n%-14s %-14s %6s", "origin", "target", "n");
	for (int c = 0; c < TP_NCOL; c++)
		printf(" %14s", tp_colname[c]);
	printf("   (MAPE of the ratio form)\n");
	double sum[TP_NCOL] = {0};
	for (int j = 0; j < np; j++) {
		printf("%-14s %-14s %6zu", po[j]->id, pt[j]->id, cnt[j]);
		for (int c = 0; c < TP_NCOL; c++) {
			printf(" %13.1f%%", 100 * err[j][c] / (double)cnt[j]);
			sum[c] += 100 * err[j][c] / (double)cnt[j];
		}
		printf("\n");
	}
	printf("%-14s %-14s %6s", "mean", "", "");
	for (int c = 0; c < TP_NCOL; c++)
		printf(" %13.1f%%", np ? sum[c] / np : 0);
	printf("\n(PipeWeave pairs over its test file; tc(arch out): constants fitted without "
	       "the target's architecture)\n");
	return 0;
}

/* The rule against the MAMF figures: for each NVIDIA GPU measured itself,
 * the share the rule fitted without its architecture (its GEMMs and its
 * figures out) gives, beside the figure. */
static int tc_mamf_table(const struct tc_set *set, uint32_t only_cc)
{
	size_t ng, n = 0;
	const struct gpu_spec *all = gpu_all(&ng);
	uint32_t done[16];
	size_t nd = 0;
	double sum = 0;
	printf("\n%-14s %10s %10s %8s   (the rule fitted without the GPU's architecture, its GEMMs "
	       "and figures)\n", "mamf_bf16", "figure", "rule", "error");
	for (size_t i = 0; i < ng; i++) {
		struct gpu_figure_value v;
		const struct gpu_spec *g = &all[i];
		if (gpu_cc_is_amd(g->cc) || gpu_figure(g, GPU_FIG_MAMF_BF16, 0, &v) != GPU_PROV_MICROBENCH ||
		    !v.from || strcmp(v.from, g->id) || (only_cc && g->cc != only_cc))
			continue;
		size_t d = 0;
		while (d < nd && done[d] != g->cc)
			d++;
		if (d < nd || nd == 16)
			continue;
		done[nd++] = g->cc;
		struct tcgemm_params p;
		int rc = tc_fit_without(set, g->cc, &p, NULL);
		if (rc < 0)
			return rc;
		for (size_t j = i; j < ng; j++) {
			const struct gpu_spec *h = &all[j];
			if (h->cc != g->cc || gpu_figure(h, GPU_FIG_MAMF_BF16, 0, &v) != GPU_PROV_MICROBENCH ||
			    !v.from || strcmp(v.from, h->id))
				continue;
			double r = tcgemm_mamf_rule(h, &p), e = (r / v.value - 1) * 100;
			printf("%-14s %10.3f %10.3f %+7.1f%%\n", h->id, v.value, r, e);
			sum += fabs(e);
			n++;
		}
	}
	if (n)
		printf("%-14s %30.1f%% mean |error| over %zu GPUs\n", "all", sum / (double)n, n);
	return 0;
}

static void tc_usage(FILE *f)
{
	fprintf(f, "usage: " PROG " tensorcore --data DIR [--emit] [--dump FILE.csv] [--per-dtype]\n"
		   "       [--no-power] [--no-figures] [--max-form] [--mamf] [--gpu GPU]\n"
		   "       [--own DIR|none]\n"
		   "  held-out MAPE of the tensor-core GEMM model on measured GEMMs (each GPU\n"
		   "  predicted by a fit on the others) vs the roofline and wave scaling, and\n"
		   "  the MAMF rule against each architecture's figures, held out;\n"
		   "  --emit fits on every GPU and prints the constants for tcgemm_params.c\n"
		   "  (with --gpu, without that GPU's architecture);\n"
		   "  --dump writes every held-out prediction as CSV; --per-dtype fits an FP8\n"
		   "  efficiency of its own; --no-power leaves the rule's power term out,\n"
		   "  --no-figures the MAMF figures and the rule (see tcgemm.c); --max-form\n"
		   "  joins the compute and memory times by their max, not the fitted power\n"
		   "  mean; --mamf prints\n"
		   "  only the rule's table; --gpu GPU: only GPU's architecture held out (its\n"
		   "  rows, the pairs whose target it is, its MAMF figures); --own DIR: our\n"
		   "  own measurements too, DIR/<GPU>/ours/gemm.csv (data: the repository's,\n"
		   "  run from its root), one more architecture of every fit (default none)\n");
}

int bench_tc_main(const struct bench_args *a)
{
	const char *data = a->data, *dump_path = a->dump;
	FILE *dump = NULL;
	int emit = a->emit;

	if (a->help) {
		tc_usage(stdout);
		return 0;
	}
	if (a->per_dtype)
		tc_tie = 0;
	if (a->no_power)
		tc_power = 0;
	if (a->no_figures)
		tc_figures = 0;
	if (a->max_form)
		tc_join = 0;
	if (!data) {
		tc_usage(stderr);
		return surfer_exit_code(SURFER_EINVAL);
	}
	if (dump_path) {
		dump = fopen(dump_path, "w");
		if (!dump) {
			fprintf(stderr, PROG ": cannot write '%s': %s\n", dump_path, strerror(errno));
			return surfer_exit_code(SURFER_EWRITE);
		}
		fprintf(dump, "gpu,dtype,m,n,k,measured_ns,roofline_ns,tc_scratch_ns,wave_ns,"
			      "tc_ratio_ns,origin\n");
	}
	struct tc_set set = {0};
	char err[4608];
	int rc = tc_load_all(&set, data, err, sizeof err);
	if (rc < 0 || set.n == 0) {
		fprintf(stderr, PROG ": cannot read GEMM data under '%s': %s\n", data,
			rc < 0 ? (err[0] ? err : strerror(-rc)) : "no GEMM rows found");
		free(set.s), free(set.src), free(set.layout);
		if (dump)
			fclose(dump);
		return surfer_exit_code(SURFER_EINVAL);
	}
	const struct gpu_spec *gpus[16];
	size_t ng = 0;
	for (size_t i = 0; i < set.n; i++) {
		size_t g = 0;
		while (g < ng && gpus[g] != set.s[i].gpu)
			g++;
		if (g == ng && ng < 16)
			gpus[ng++] = set.s[i].gpu;
	}
	const struct gpu_spec *only = a->gpu ? gpu_find(a->gpu) : NULL;
	if (a->gpu && !only) {
		fprintf(stderr, PROG ": tensorcore: unknown GPU '%s'\n", a->gpu);
		free(set.s), free(set.src), free(set.layout);
		if (dump)
			fclose(dump);
		return surfer_exit_code(SURFER_EINVAL);
	}
	uint32_t only_cc = only ? only->cc : 0;
	if (a->mamf) {
		rc = tc_figures ? tc_mamf_table(&set, only_cc) : 0;
	} else if (emit) {
		struct tcgemm_params p;
		size_t nfit = 0, ngfit = 0;
		for (size_t i = 0; i < set.n; i++)
			nfit += set.src[i] != TC_SRC_PW_TEST && set.s[i].gpu->cc != only_cc;
		for (size_t g = 0; g < ng; g++)
			ngfit += gpus[g]->cc != only_cc;
		rc = tc_fit_without(&set, only_cc, &p, NULL);
		if (rc == 0 && only_cc)
			printf("/* fitted without compute capability %u.%u (--gpu %s) */\n",
			       only_cc / 10, only_cc % 10, a->gpu);
		if (rc == 0) {
			printf("/* %zu GEMMs on %zu GPUs (PipeWeave's test file left out) */\n", nfit,
			       ngfit);
			printf("const struct tcgemm_params tcgemm_default_params = {\n");
			tc_print_params(stdout, &p, "\t");
			printf("};\n");
		}
	} else {
		long *pair = tc_pairs(&set);
		if (!pair) {
			rc = -ENOMEM;
		} else {
			printf("%-14s %6s %6s", "held-out", "n", "pairs");
			for (int c = 0; c < TC_NCOL; c++)
				printf(" %15s", tc_colname[c]);
			printf("   (MAPE; fit on the other GPUs)\n");
			for (size_t g = 0; g < ng && rc == 0; g++)
				if (!only_cc || gpus[g]->cc == only_cc)
					rc = tc_heldout(&set, pair, gpus[g], dump);
			printf("(orig) columns: over the pairs, the same shape measured on the other GPU "
			       "of its data source as the origin; each fit leaves out every GPU of the "
			       "held-out one's architecture and PipeWeave's test file\n");
			if (rc == 0)
				rc = tc_pair_table(&set, pair, only_cc);
			if (rc == 0 && tc_figures)
				rc = tc_mamf_table(&set, only_cc);
			free(pair);
		}
	}
	free(set.s), free(set.src), free(set.layout);
	if (dump && fclose(dump) != 0 && rc == 0)
		rc = -EIO;
	if (rc < 0) {
		fprintf(stderr, PROG ": tensorcore: %s\n", strerror(-rc));
		return surfer_exit_code(SURFER_EINVAL);
	}
	return 0;
}

int bench_tc_fit_heldout(const char *root, const uint32_t *cc_out, size_t ncc,
			 struct tcgemm_params *p, char *err, size_t errlen)
{
	struct tc_set set = {0};
	int rc = tc_load_all(&set, root, err, errlen);
	if (rc == 0 && set.n == 0) {
		snprintf(err, errlen, "no GEMM rows under '%s'", root);
		rc = -ENOENT;
	} else if (rc < 0 && !err[0]) {
		snprintf(err, errlen, "cannot read GEMM data under '%s': %s", root, strerror(-rc));
	}
	if (rc == 0 && (rc = tc_fit_excluding(&set, cc_out, ncc, p, NULL)) < 0)
		snprintf(err, errlen, "the tensor-core fit failed: %s", strerror(-rc));
	free(set.s), free(set.src), free(set.layout);
	return rc < 0 ? -1 : 0;
}
