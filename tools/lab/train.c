/*
 * train.c - surfer-train: fits the tile model's MLPs (one per operator
 * family) to kernel measurements in NeuSight's CSV layout, with a fixed
 * seed, and writes the weights blob (.bin) or the C file the build compiles
 * in (.c).  Rows of a --holdout GPU's architecture (every board of its compute
 * capability) are never read into the training set.
 *
 * Loss: squared error of log time, time = roofline / sigmoid(o) (tile.c),
 * which weighs relative errors alike for 10 us and 100 ms kernels.
 */
#include "predictor/mlp.h"
#include "predictor/nelder.h"
#include "predictor/power.h"
#include "predictor/tile.h"
#include "tools/lab/neusight.h"
#include "tools/lab/stats.h"
#include "trace/surfer_err.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROG "surfer-train"

static const char *const fam_names[TILE_FAM_COUNT] = {"gemm", "elementwise", "softmax", "norm"};

struct opts {
	const char *data[8];
	int ndata;
	const char *picks_data[8]; /* --picks-data: rows whose library's tile
				    * picks are recorded, nothing trained    */
	int npicks_data;
	const struct gpu_spec *holdout[8];
	int nholdout;
	const char *out;
	unsigned epochs;
	unsigned max_rows;
	unsigned layers, width;
	uint64_t seed;
	double lr;
	int quiet;
	int no_power_cap;
	int no_floor;
	int no_curve;
	unsigned members;   /* GEMM ensemble size */
};

struct sample {
	double f[TILE_NFEAT];
	double floor;       /* its GPU's floor in the family, ns */
	const struct gpu_spec *gpu;
	const char *op;     /* interned OPName */
	double log_base;    /* log of the roofline time, ns */
	double log_y;       /* log of the measured time, ns */
	double curve[4];    /* GEMMs: the curve's terms (tile.h); curve[0] 0: not fitted to */
};

struct samples {
	struct sample *v;
	size_t n, cap;
};

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: " PROG " --data PATH [--data PATH...] [--holdout GPU...] --out FILE\n"
		"                    [--epochs N] [--max-rows N] [--layers N] [--width N]\n"
		"                    [--lr X] [--seed N] [--members N] [--no-power-cap] [--no-floor]\n"
		"                    [--no-curve] [--picks-data PATH...] [--quiet]\n"
		"Trains the tile model on NeuSight-layout kernel CSVs (files or directories)\n"
		"and writes its weights: FILE.bin (load with --weights) or FILE.c (compiled in).\n"
		"--picks-data: CSVs of the same layout whose GEMMs' tiles (their kernel names)\n"
		"are recorded as their GPU's tile picks and not trained on (our own GPUs).\n");
}

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void shuffle(size_t *idx, size_t n, uint64_t *s)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = rng_next(s) % i;
		size_t t = idx[i - 1]; idx[i - 1] = idx[j]; idx[j] = t;
	}
}

static int push(struct samples *s, const struct sample *x)
{
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 4096;
		struct sample *nv = realloc(s->v, nc * sizeof *nv);
		if (!nv)
			return -1;
		s->v = nv;
		s->cap = nc;
	}
	s->v[s->n++] = *x;
	return 0;
}

static void progress(const struct opts *o, const char *fam, unsigned ep, double loss)
{
	if (o->quiet || !isatty(2))
		return;
	int w = 30, done = (int)((double)ep / o->epochs * w);
	fprintf(stderr, "\r%-12s [", fam);
	for (int i = 0; i < w; i++)
		fputc(i < done ? '#' : '.', stderr);
	fprintf(stderr, "] %3u/%u  log-rmse %.4f", ep, o->epochs, loss);
	fflush(stderr);
}

/* Mean absolute percentage error of m on samples idx[0..n). */
static double eval_mape(const struct mlp *m, const struct samples *s, const size_t *idx, size_t n)
{
	double sum = 0;
	for (size_t i = 0; i < n; i++) {
		const struct sample *x = &s->v[idx[i]];
		double y;
		mlp_forward(m, x->f, &y);
		double p = tile_with_floor(x->floor, tile_time_from_output(y, exp(x->log_base)));
		double t = exp(x->log_y);
		sum += fabs(p - t) / t;
	}
	return n ? 100 * sum / n : 0;
}

static struct mlp *train_family(const struct opts *o, int fam, struct samples *s)
{
	uint64_t rs = o->seed * 1000003 + (uint64_t)fam;
	size_t *idx = malloc(s->n * sizeof *idx);
	if (!idx)
		return NULL;
	for (size_t i = 0; i < s->n; i++)
		idx[i] = i;
	shuffle(idx, s->n, &rs);
	size_t n = s->n;
	if (o->max_rows && n > o->max_rows)
		n = o->max_rows;
	/* 5% of the rows, never trained on, report generalisation. */
	size_t nval = n / 20, ntr = n - nval;
	size_t *tr = idx + nval;

	double mean[TILE_NFEAT] = {0}, sd[TILE_NFEAT] = {0};
	for (size_t i = 0; i < ntr; i++)
		for (int j = 0; j < TILE_NFEAT; j++)
			mean[j] += s->v[tr[i]].f[j] / ntr;
	for (size_t i = 0; i < ntr; i++)
		for (int j = 0; j < TILE_NFEAT; j++) {
			double d = s->v[tr[i]].f[j] - mean[j];
			sd[j] += d * d / ntr;
		}
	for (int j = 0; j < TILE_NFEAT; j++)
		sd[j] = sd[j] > 1e-12 ? sqrt(sd[j]) : 1;

	unsigned sizes[MLP_MAX_LAYERS + 1];
	sizes[0] = TILE_NFEAT;
	for (unsigned l = 1; l <= o->layers; l++)
		sizes[l] = o->width;
	sizes[o->layers + 1] = 1;
	struct mlp *m = mlp_new(sizes, o->layers + 1, o->seed + (uint64_t)fam);
	if (!m) {
		free(idx);
		return NULL;
	}
	mlp_set_norm(m, mean, sd);

	const unsigned batch = 64;
	double loss = 0;
	for (unsigned ep = 0; ep < o->epochs; ep++) {
		/* Cosine decay of the learning rate to 5% over the run. */
		double lr = o->lr * (0.05 + 0.95 * 0.5 * (1 + cos(M_PI * ep / o->epochs)));
		shuffle(tr, ntr, &rs);
		double sum = 0;
		unsigned inb = 0;
		for (size_t i = 0; i < ntr; i++) {
			const struct sample *x = &s->v[tr[i]];
			double y;
			mlp_train_forward(m, x->f, &y);
			/* pred = (F^p + W^p)^(1/p), W = base / sigmoid(y) =
			 * base (1 + e^-y); d log pred / dy = W^p / (F^p + W^p)
			 * x d log W / dy = W^p / (F^p + W^p) x -e^-y / (1 + e^-y). */
			double ey = exp(-(y > -60 ? y : -60));
			double w = exp(x->log_base) * (1 + ey);
			double pred = tile_with_floor(x->floor, w);
			double share = x->floor > 0 ? pow(w / pred, TILE_FLOOR_P) : 1;
			double err = log(pred) - x->log_y;
			double dy = 2 * err * share * (-ey / (1 + ey));
			sum += err * err;
			mlp_backward(m, &dy);
			if (++inb == batch) {
				mlp_adam_step(m, lr, inb);
				inb = 0;
			}
		}
		mlp_adam_step(m, lr, inb);
		loss = sqrt(sum / (ntr ? ntr : 1));
		progress(o, fam_names[fam], ep + 1, loss);
	}
	if (!o->quiet && isatty(2))
		fputc('\n', stderr);
	if (!o->quiet)
		fprintf(stderr, PROG ": %-11s %zu rows, train MAPE %.1f%%, validation MAPE %.1f%% (%zu rows)\n",
			fam_names[fam], ntr, eval_mape(m, s, tr, ntr), eval_mape(m, s, idx, nval), nval);
	free(idx);
	return m;
}

/* The energy per FP32 core-cycle at 16 nm (pJ) for the power cap of
 * tile.c, from the training rows alone: each GPU's best utilisation of the
 * datasheet peak on large GEMMs (the highest median over the decades of
 * 1e10, 1e11 and 1e12 FLOPs, past the small-shape regime), relative to the
 * best GPU's; a GPU below 0.9 of it is taken as power-limited at that
 * fraction s, giving E = 2 TDP / (peak s) / (nm/16)^2; E is their
 * geometric mean (0 when no GPU is limited).  Returns E.
 *
 * The pool takes every GPU to 16 nm as (nm/16)^2, which is what
 * power_node_energy()'s POWER_NODE_SQUARE12 does from 12 nm up; the one newer GPU the data has,
 * the A100 PCIe, enters at 0.86 of the best GPU although its shortfall is
 * not power (gpu-benches' pure FMA run of the A100 SXM4 draws 185 W), and
 * converted with that rule's nm below 12 nm instead it pulls E
 * from 60.2 to 55.7 pJ: NeuSight's held-out iterations went from 6.6% to
 * 9.3% (a median in place of the geometric mean: 7.5% and 8.9% for seeds 1
 * and 2, against 6.6% and 8.9%), so the pool keeps its convention. */
#define SUS_MAXG 16
#define SUS_DEC 3
struct sus_gpu {
	const struct gpu_spec *g;
	double *u[SUS_DEC];
	size_t n[SUS_DEC], cap[SUS_DEC];
};

/* A held-out GPU's architecture is held out with it: rows of any board
 * of the same compute capability (DeepBench's V100 SXM2 when the V100 PCIe
 * is held out, its TITAN Xp, TITAN X Pascal and GTX 1080 Ti when the P4
 * is) would tell the model what a GPU of a new architecture cannot: its
 * tile picks, its FP32 rate under load and its power cap. */
static int held_out(const struct opts *o, const struct gpu_spec *g)
{
	for (int h = 0; h < o->nholdout; h++)
		if (g->cc == o->holdout[h]->cc)
			return 1;
	return 0;
}

static double fit_sustain(const struct ns_set *set, const struct opts *o)
{
	struct sus_gpu gs[SUS_MAXG];
	int ng = 0;
	memset(gs, 0, sizeof gs);
	for (size_t i = 0; i < set->n; i++) {
		const struct ns_row *r = &set->rows[i];
		struct pred_kernel k;
		if (!r->gpu || held_out(o, r->gpu) || ns_kernel(r, 1, &k) != 0 ||
		    tile_family_of(&k) != TILE_FAM_GEMM || !(r->latency_ms > 0) || !(r->gpu->peak_tflops[GPU_DT_FP32] > 0))
			continue;
		double B = k.batch ? (double)k.batch : 1;
		double fl = k.flops > 0 ? k.flops : 2 * B * (double)k.m * (double)k.n * (double)k.k;
		if (fl < 1e10 || fl >= 1e13)
			continue;
		int d = fl < 1e11 ? 0 : fl < 1e12 ? 1 : 2;
		int j = 0;
		while (j < ng && gs[j].g != r->gpu)
			j++;
		if (j == ng) {
			if (ng == SUS_MAXG)
				continue;
			gs[ng++].g = r->gpu;
		}
		if (gs[j].n[d] == gs[j].cap[d]) {
			size_t nc = gs[j].cap[d] ? 2 * gs[j].cap[d] : 256;
			double *nv = realloc(gs[j].u[d], nc * sizeof *nv);
			if (!nv)
				continue;
			gs[j].u[d] = nv;
			gs[j].cap[d] = nc;
		}
		gs[j].u[d][gs[j].n[d]++] = fl / (r->latency_ms * 1e-3) / (r->gpu->peak_tflops[GPU_DT_FP32] * 1e12);
	}
	double med[SUS_MAXG], best = 0, lsum = 0;
	int nlim = 0;
	for (int j = 0; j < ng; j++) {
		med[j] = 0;
		for (int d = 0; d < SUS_DEC; d++) {
			if (gs[j].n[d] < 20)
				continue;
			qsort(gs[j].u[d], gs[j].n[d], sizeof *gs[j].u[d], lab_cmp_double);
			double m = gs[j].u[d][gs[j].n[d] / 2];
			if (m > med[j])
				med[j] = m;
		}
		if (med[j] > best)
			best = med[j];
	}
	for (int j = 0; j < ng; j++) {
		double s = best > 0 ? med[j] / best : 1;
		if (s < 0.9 && s > 0 && gs[j].g->tdp_w) {
			double e = 2.0 * gs[j].g->tdp_w / (gs[j].g->peak_tflops[GPU_DT_FP32] * 1e12 * s);
			double r = power_node_nm(gs[j].g->cc) / 16;
			e /= r * r;
			lsum += log(e * 1e12);
			nlim++;
			if (!o->quiet)
				fprintf(stderr, PROG ": %s power-limited at %.2f of the best utilisation: %.1f pJ at 16 nm\n",
					gs[j].g->name, s, e * 1e12);
		}
		for (int d = 0; d < SUS_DEC; d++)
			free(gs[j].u[d]);
	}
	return nlim ? exp(lsum / nlim) : 0;
}

/* Each family's floor (tile.h).  Per training GPU and operator (add,
 * relu, ...) the 1st percentile of its times: what a row of that GPU and
 * operator takes at least, the measuring host's launch and timing
 * overhead, which the MLP should not have to explain from the GPU's
 * figures.  A GPU not seen gets the lowest of the training GPUs' family
 * floors: the hosts add 0-25 us above it that nothing about the GPU
 * predicts, and under absolute percentage error an overestimate costs
 * more than an underestimate of the same size. */
#define FL_MAXK 128
struct floor_acc {
	const struct gpu_spec *g[FL_MAXK];
	const char *op[FL_MAXK];    /* NULL: the whole family */
	double *t[FL_MAXK];
	size_t n[FL_MAXK], cap[FL_MAXK];
	double fl[FL_MAXK];
	int nk;
};

static int floor_key(const struct floor_acc *a, const struct gpu_spec *g, const char *op)
{
	for (int j = 0; j < a->nk; j++)
		if (a->g[j] == g && a->op[j] == op)
			return j;
	return -1;
}

static void floor_add(struct floor_acc *a, const struct gpu_spec *g, const char *op, double ns)
{
	int j = floor_key(a, g, op);
	if (j < 0) {
		if (a->nk == FL_MAXK)
			return;
		j = a->nk++;
		a->g[j] = g;
		a->op[j] = op;
	}
	if (a->n[j] == a->cap[j]) {
		size_t nc = a->cap[j] ? 2 * a->cap[j] : 1024;
		double *nv = realloc(a->t[j], nc * sizeof *nv);
		if (!nv)
			return;
		a->t[j] = nv;
		a->cap[j] = nc;
	}
	a->t[j][a->n[j]++] = ns;
}

/* Fills a->fl (0 with under 100 rows) and returns the floor for a GPU
 * not seen. */
static double floor_fit(struct floor_acc *a)
{
	double lo = 0;
	for (int j = 0; j < a->nk; j++) {
		a->fl[j] = 0;
		if (a->n[j] >= 100) {
			qsort(a->t[j], a->n[j], sizeof *a->t[j], lab_cmp_double);
			a->fl[j] = a->t[j][a->n[j] / 100];
			if (!a->op[j] && (lo == 0 || a->fl[j] < lo))
				lo = a->fl[j];
		}
		free(a->t[j]);
		a->t[j] = NULL;
	}
	return lo;
}

/* The library's tile picks (tilepick.c): one (GPU, shape cell, tile)
 * observation per training GEMM whose kernel name shows its tile; each
 * GPU's table keeps the most frequent tile of every cell. */
struct pick_obs {
	const struct gpu_spec *gpu;
	uint32_t key, code;
};

struct pick_acc {
	struct pick_obs *v;
	size_t n, cap;
};

static int pick_add(struct pick_acc *a, const struct gpu_spec *g, uint32_t key, uint32_t code)
{
	if (a->n == a->cap) {
		size_t nc = a->cap ? 2 * a->cap : 4096;
		struct pick_obs *nv = realloc(a->v, nc * sizeof *nv);
		if (!nv)
			return -1;
		a->v = nv;
		a->cap = nc;
	}
	a->v[a->n++] = (struct pick_obs){g, key, code};
	return 0;
}

static int cmp_obs(const void *pa, const void *pb)
{
	const struct pick_obs *a = pa, *b = pb;
	/* GPUs in the order of their ids, so the output is the same from run to run */
	int c = strcmp(a->gpu->id, b->gpu->id);
	if (c)
		return c;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->code < b->code ? -1 : a->code > b->code;
}

/* Makes room for need more bytes in *buf. */
static int reserve(unsigned char **buf, size_t len, size_t *cap, size_t need)
{
	if (len + need <= *cap)
		return 0;
	size_t nc = 2 * (len + need);
	unsigned char *nb = realloc(*buf, nc);
	if (!nb)
		return -1;
	*buf = nb;
	*cap = nc;
	return 0;
}

static int put32(unsigned char **buf, size_t *len, size_t *cap, uint32_t v)
{
	if (reserve(buf, *len, cap, 4))
		return -1;
	for (int b = 0; b < 4; b++)
		(*buf)[(*len)++] = (v >> (8 * b)) & 0xff;
	return 0;
}

/* The GEMM curve (tile.h): the fit of its constants to the times of the
 * GEMM samples that carry its terms (NeuSight-layout rows; each row's
 * floor added, as the MLP's are), least squares on log time with every
 * training GPU weighted equally. */
struct curve_problem {
	const struct samples *s;
	const double *w;
};

static double curve_loss(const double *x, void *ctx)
{
	const struct curve_problem *pr = ctx;
	if (!tile_curve_valid(x))
		return INFINITY;
	double sum = 0;
	for (size_t i = 0; i < pr->s->n; i++) {
		if (!(pr->w[i] > 0))
			continue;
		const struct sample *v = &pr->s->v[i];
		double e = log(v->floor + tile_curve_ns(v->curve, x)) - v->log_y;
		sum += pr->w[i] * e * e;
	}
	return sum;
}

/* Fits x; returns the RMS log error, or -1 with no rows or no memory. */
static double curve_fit(const struct samples *s, double x[TILE_CURVE_NPARAM])
{
	enum { MAXG = 64 };
	const struct gpu_spec *g[MAXG];
	size_t cnt[MAXG] = {0};
	int ng = 0;
	double *w = calloc(s->n ? s->n : 1, sizeof *w);
	int *gi = calloc(s->n ? s->n : 1, sizeof *gi);     /* row -> GPU, -1 unused */
	if (!w || !gi) {
		free(w);
		free(gi);
		return -1;
	}
	for (size_t i = 0; i < s->n; i++) {
		gi[i] = -1;
		if (!(s->v[i].curve[0] > 0))
			continue;
		int j = 0;
		while (j < ng && g[j] != s->v[i].gpu)
			j++;
		if (j == ng) {
			if (ng == MAXG)
				continue;
			g[ng++] = s->v[i].gpu;
		}
		cnt[j]++;
		gi[i] = j;
	}
	for (size_t i = 0; i < s->n; i++)
		if (gi[i] >= 0)
			w[i] = 1.0 / ((double)cnt[gi[i]] * ng);
	free(gi);
	if (!ng) {
		free(w);
		return -1;
	}
	struct curve_problem pr = {s, w};
	x[0] = log(0.8), x[1] = 0.5, x[2] = 0.5, x[3] = log(0.9);
	double loss = nelder_mead_restarts(curve_loss, &pr, x, TILE_CURVE_NPARAM, 0.3, 0.1, 4000, 4);
	free(w);
	return sqrt(loss);
}

/* Whether k is a GEMM whose kernel name gives its tile (into t): the tile
 * its library picked, which a training row is described with and every
 * named GEMM records as its GPU's pick. */
static int named_gemm_tile(const struct pred_kernel *k, struct tile_shape *t)
{
	return tile_family_of(k) == TILE_FAM_GEMM && tile_from_name(k->name, t) == 0 &&
	       t->kind == TILE_GEMM && t->t0 && t->t1;
}

/* The tile picks of --picks-data's rows: the tile each GEMM's kernel name
 * shows, recorded for its GPU as a training row's is, the rows trained on
 * by nothing (no model, power cap, floor or curve sees them).  What they
 * are for: the picks of a GPU of our own (data/<GPU>/kernels/gemm.csv),
 * which a board of its architecture then takes (tilepick.c), where its
 * times, measured by another harness than NeuSight's, are not in the
 * pool (docs/tile-model.md, "Our Hopper measurements in the pool").  A
 * --holdout architecture's rows are left out here too.  0, or -1 with a
 * message. */
static int picks_only(const struct opts *o, struct pick_acc *picks)
{
	for (int i = 0; i < o->npicks_data; i++) {
		struct ns_set set;
		char err[512];
		size_t n = 0;
		memset(&set, 0, sizeof set);
		if (ns_load(&set, o->picks_data[i], NULL, NULL, err, sizeof err) != 0) {
			fprintf(stderr, PROG ": cannot load --picks-data: %s\n", err);
			ns_release(&set);
			return -1;
		}
		for (size_t j = 0; j < set.n; j++) {
			const struct ns_row *r = &set.rows[j];
			struct pred_kernel k;
			struct tile_shape t;
			if (!r->gpu || held_out(o, r->gpu) || ns_kernel(r, 1, &k) != 0 ||
			    !named_gemm_tile(&k, &t))
				continue;
			if (pick_add(picks, r->gpu, tile_pick_key(&k), tile_pick_code(&t)) != 0) {
				fprintf(stderr, PROG ": out of memory\n");
				ns_release(&set);
				return -1;
			}
			n++;
		}
		if (!o->quiet)
			fprintf(stderr, PROG ": %s: %zu GEMMs' tile picks (not trained on)\n",
				o->picks_data[i], n);
		ns_release(&set);
	}
	return 0;
}

/* Appends the pick section (tile_picks_parse's layout) to blob. */
static int pick_write(struct pick_acc *a, unsigned char **blob, size_t *len, size_t *cap, int quiet)
{
	if (a->n)     /* no named GEMMs: no picks, and qsort takes no NULL */
		qsort(a->v, a->n, sizeof *a->v, cmp_obs);
	uint32_t ngpu = 0;
	for (size_t i = 0; i < a->n; i++)
		if (i == 0 || a->v[i].gpu != a->v[i - 1].gpu)
			ngpu++;
	if (ngpu > TILE_PICK_MAXGPU)
		ngpu = TILE_PICK_MAXGPU;
	if (put32(blob, len, cap, ngpu))
		return -1;
	size_t i = 0;
	for (uint32_t g = 0; g < ngpu; g++) {
		const struct gpu_spec *gpu = a->v[i].gpu;
		size_t nl = strlen(gpu->id);
		if (put32(blob, len, cap, (uint32_t)nl) || reserve(blob, *len, cap, nl))
			return -1;
		memcpy(*blob + *len, gpu->id, nl);
		*len += nl;
		size_t nat = *len;          /* the entry count, written below */
		if (put32(blob, len, cap, 0))
			return -1;
		uint32_t cells = 0;
		size_t obs = 0, agree = 0;
		while (i < a->n && a->v[i].gpu == gpu) {
			/* one cell: runs of equal codes, keep the longest (the
			 * smallest code on a tie) */
			uint32_t key = a->v[i].key, best = 0;
			size_t bestn = 0, cn = 0;
			while (i < a->n && a->v[i].gpu == gpu && a->v[i].key == key) {
				size_t j = i;
				while (j < a->n && a->v[j].gpu == gpu && a->v[j].key == key &&
				       a->v[j].code == a->v[i].code)
					j++;
				if (j - i > bestn) {
					bestn = j - i;
					best = a->v[i].code;
				}
				cn += j - i;
				i = j;
			}
			if (put32(blob, len, cap, key << 9 | best))
				return -1;
			cells++;
			obs += cn;
			agree += bestn;
		}
		for (int b = 0; b < 4; b++)
			(*blob)[nat + b] = (cells >> (8 * b)) & 0xff;
		if (!quiet)
			fprintf(stderr, PROG ": %-22s tile picks: %u cells from %zu GEMMs, "
				"the cell's tile is the one picked for %.1f%% of them\n",
				gpu->id, cells, obs, obs ? 100.0 * agree / obs : 0);
	}
	return 0;
}

static int write_out(const char *path, const unsigned char *blob, size_t len)
{
	FILE *fp = fopen(path, "wb");
	if (!fp)
		return -1;
	size_t l = strlen(path);
	if (l > 2 && strcmp(path + l - 2, ".c") == 0) {
		fprintf(fp, "/*\n * tile_weights.c - the tile model's weights, generated by surfer-train\n"
			    " * from NeuSight's kernel measurements (README, The compiled-in weights); do not edit.\n */\n"
			    "#include \"predictor/tile.h\"\n\n"
			    "const size_t tile_weights_blob_len = %zu;\n"
			    "const unsigned char tile_weights_blob[] = {\n", len);
		for (size_t i = 0; i < len; i++)
			fprintf(fp, "%s%u,%s", i % 16 ? "" : "\t", blob[i], i % 16 == 15 || i + 1 == len ? "\n" : "");
		fprintf(fp, "};\n");
	} else {
		fwrite(blob, 1, len, fp);
	}
	int bad = ferror(fp);
	return fclose(fp) == 0 && !bad ? 0 : -1;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	memset(o, 0, sizeof *o);
	o->epochs = 40;
	o->max_rows = 40000;
	o->layers = 3;
	o->width = 48;
	o->seed = 1;
	o->lr = 3e-3;
	o->members = TILE_MAX_MEMBERS;   /* 8: held out, GEMMs 22.0 -> 21.3%, iterations 6.7 -> 6.6% against 5 */
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		} else if (!strcmp(a, "--quiet")) {
			o->quiet = 1;
			continue;
		} else if (!strcmp(a, "--no-power-cap")) {
			o->no_power_cap = 1;
			continue;
		} else if (!strcmp(a, "--no-floor")) {
			o->no_floor = 1;
			continue;
		} else if (!strcmp(a, "--no-curve")) {
			o->no_curve = 1;
			continue;
		}
		if (!v) {
			fprintf(stderr, PROG ": option '%s': missing value\n", a);
			return -1;
		}
		i++;
		char *end = NULL;
		if (!strcmp(a, "--data")) {
			if (o->ndata == 8) { fprintf(stderr, PROG ": too many --data\n"); return -1; }
			o->data[o->ndata++] = v;
		} else if (!strcmp(a, "--picks-data")) {
			if (o->npicks_data == 8) { fprintf(stderr, PROG ": too many --picks-data\n"); return -1; }
			o->picks_data[o->npicks_data++] = v;
		} else if (!strcmp(a, "--holdout")) {
			const struct gpu_spec *g = gpu_find(v);
			if (!g) { fprintf(stderr, PROG ": unknown GPU '%s'\n", v); return -1; }
			if (o->nholdout == 8) { fprintf(stderr, PROG ": too many --holdout\n"); return -1; }
			o->holdout[o->nholdout++] = g;
		} else if (!strcmp(a, "--out")) {
			o->out = v;
		} else if (!strcmp(a, "--epochs")) {
			o->epochs = (unsigned)strtoul(v, &end, 10);
		} else if (!strcmp(a, "--max-rows")) {
			o->max_rows = (unsigned)strtoul(v, &end, 10);
		} else if (!strcmp(a, "--layers")) {
			o->layers = (unsigned)strtoul(v, &end, 10);
		} else if (!strcmp(a, "--width")) {
			o->width = (unsigned)strtoul(v, &end, 10);
		} else if (!strcmp(a, "--seed")) {
			o->seed = strtoull(v, &end, 10);
		} else if (!strcmp(a, "--lr")) {
			o->lr = strtod(v, &end);
		} else if (!strcmp(a, "--members")) {
			o->members = (unsigned)strtoul(v, &end, 10);
		} else {
			fprintf(stderr, PROG ": unknown option '%s'\n", a);
			return -1;
		}
		if (end && *end) {
			fprintf(stderr, PROG ": option '%s': bad value '%s'\n", a, v);
			return -1;
		}
	}
	if (!o->ndata || !o->out) {
		fprintf(stderr, PROG ": --data and --out are required\n");
		return -1;
	}
	if (o->npicks_data && o->no_curve) {
		fprintf(stderr, PROG ": --picks-data needs the GEMM curve (no --no-curve)\n");
		return -1;
	}
	if (o->epochs < 1 || o->layers < 1 || o->layers + 1 > MLP_MAX_LAYERS || o->width < 1 ||
	    o->width > MLP_MAX_WIDTH || !(o->lr > 0) || o->members < 1 ||
	    o->members > TILE_MAX_MEMBERS) {
		fprintf(stderr, PROG ": out of range: --epochs >= 1, --layers 1 to %d, --width 1 to %d, "
			"--lr > 0, --members 1 to %d\n", MLP_MAX_LAYERS - 1, MLP_MAX_WIDTH, TILE_MAX_MEMBERS);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--version")) {
		printf(PROG " " SURFER_VERSION "\n");
		return 0;
	}
	if (parse_args(argc, argv, &o) != 0) {
		usage(stderr);
		return surfer_exit_code(SURFER_EINVAL);
	}
	struct ns_set set;
	char err[512];
	memset(&set, 0, sizeof set);
	for (int i = 0; i < o.ndata; i++)
		if (ns_load(&set, o.data[i], NULL, NULL, err, sizeof err) != 0) {
			fprintf(stderr, PROG ": cannot load data: %s\n", err);
			ns_release(&set);
			return surfer_exit_code(SURFER_EINVAL);
		}
	/* our own GPUs' picks (version 5), read before anything is trained:
	 * a bad --picks-data stops the run here, not after it */
	struct pick_acc own;
	memset(&own, 0, sizeof own);
	if (picks_only(&o, &own) != 0) {
		ns_release(&set);
		return surfer_exit_code(SURFER_EINVAL);
	}
	double pj = o.no_power_cap ? 0 : fit_sustain(&set, &o);
	/* The features are computed under the power cap just fitted and
	 * nothing else of a model: no tile picks (a GEMM whose kernel name
	 * shows no tile gets tile_gemm_pick()'s). */
	struct tile_model *fm = tile_model_new();
	if (!fm) {
		fprintf(stderr, PROG ": out of memory\n");
		ns_release(&set);
		return surfer_exit_code(SURFER_ENOMEM);
	}
	tile_model_set_sustain_pj(fm, pj);
	if (!o.quiet)
		fprintf(stderr, PROG ": power cap: %.1f pJ per FP32 core-cycle at 16 nm\n", pj);
	struct samples fam[TILE_FAM_COUNT];
	memset(fam, 0, sizeof fam);
	struct floor_acc facc[TILE_FAM_COUNT];
	memset(facc, 0, sizeof facc);
	size_t unknown = 0, held = 0;
	struct pick_acc picks;
	memset(&picks, 0, sizeof picks);
	for (size_t i = 0; i < set.n; i++) {
		const struct ns_row *r = &set.rows[i];
		if (!r->gpu) {
			unknown++;
			continue;
		}
		if (held_out(&o, r->gpu)) {
			held++;
			continue;
		}
		struct pred_kernel k;
		struct sample x;
		double base;
		if (ns_kernel(r, 1, &k) != 0)
			continue;
		/* A GEMM is described with the tile its library picked (the
		 * kernel name's), and the pick is recorded for tilepick.c. */
		struct tile_shape t;
		int named = named_gemm_tile(&k, &t);
		int f = tile_features(fm, &k, r->gpu, named ? &t : NULL, x.f, &base);
		if (f < 0)
			continue;
		if (named && pick_add(&picks, r->gpu, tile_pick_key(&k), tile_pick_code(&t)) != 0) {
			fprintf(stderr, PROG ": out of memory\n");
			return surfer_exit_code(SURFER_ENOMEM);
		}
		x.log_base = log(base);
		x.log_y = log(r->latency_ms * 1e6);
		x.floor = 0;
		x.gpu = r->gpu;
		x.op = r->op;
		if (!o.no_floor) {
			/* DeepBench's rows ("matmul") were timed by another
			 * host: they get their own floor and leave the one a
			 * new GPU gets (NeuSight's host's) alone. */
			if (strcmp(r->op, "matmul") != 0)
				floor_add(&facc[f], r->gpu, NULL, r->latency_ms * 1e6);
			floor_add(&facc[f], r->gpu, r->op, r->latency_ms * 1e6);
		}
		/* A row the curve is not fitted to gets zero terms and no
		 * weight: one it cannot describe, and DeepBench's ("matmul"), which
		 * time whole cuBLAS calls in another harness: with them (eight
		 * boards against NeuSight's four) the curve fitted their large
		 * GEMMs rather than PyTorch's (held out, iterations 7.8% and
		 * 8.4% for two seeds' weights against 6.8% and 7.7%, a check
		 * before the curve was trained in, docs/tile-model.md). */
		if (f != TILE_FAM_GEMM || !strcmp(r->op, "matmul") ||
		    tile_curve_terms(fm, &k, r->gpu, x.curve) != 0)
			memset(x.curve, 0, sizeof x.curve);
		if (push(&fam[f], &x) != 0) {
			fprintf(stderr, PROG ": out of memory\n");
			return surfer_exit_code(SURFER_ENOMEM);
		}
	}
	if (!o.quiet)
		fprintf(stderr, PROG ": %zu rows read, %zu of held-out GPUs skipped, %zu of unknown GPUs skipped\n",
			set.n, held, unknown);
	ns_release(&set);
	tile_model_free(fm);
	double floors[TILE_FAM_COUNT];
	for (int f = 0; f < TILE_FAM_COUNT; f++) {
		/* Each training row carries its own GPU's and operator's
		 * floor; a new GPU gets floor_fit()'s. */
		floors[f] = floor_fit(&facc[f]);
		for (size_t i = 0; i < fam[f].n; i++) {
			int j = floor_key(&facc[f], fam[f].v[i].gpu, fam[f].v[i].op);
			if (j < 0 || !(facc[f].fl[j] > 0))
				j = floor_key(&facc[f], fam[f].v[i].gpu, NULL);
			fam[f].v[i].floor = j >= 0 && facc[f].fl[j] > 0 ? facc[f].fl[j] : floors[f];
		}
		if (!o.quiet)
			fprintf(stderr, PROG ": %-11s floor %.1f us\n", fam_names[f], floors[f] / 1e3);
	}

	double cx[TILE_CURVE_NPARAM];
	int curve = 0;
	if (!o.no_curve) {
		double rms = curve_fit(&fam[TILE_FAM_GEMM], cx);
		curve = rms >= 0;
		if (curve && !o.quiet)
			fprintf(stderr, PROG ": GEMM curve: efficiency %.3f, wave exponent %.3f, "
				"padding exponent %.3f, bandwidth %.3f (rms log %.3f)\n",
				exp(cx[0]), cx[1], cx[2], exp(cx[3]), rms);
	}

	/* Blob: "STIL", version, count, then (family, nfeat, mlp blob)... */
	size_t cap = 1 << 20, len = 16 + 4 * TILE_FAM_COUNT;
	unsigned char *blob = malloc(cap);
	int count = 0, rc = 0;
	if (!blob)
		return surfer_exit_code(SURFER_ENOMEM);
	/* The GEMM family is an ensemble of o.members models, each with its
	 * own seed (initial weights, row sample, order): held out, one seed's
	 * GEMM error swung by up to 10 points on a GPU from seed to seed. */
	for (int f = 0; f < TILE_FAM_COUNT; f++)
	for (unsigned j = 0; j < (f == TILE_FAM_GEMM ? o.members : 1) && fam[f].n >= 20; j++) {
		struct opts om = o;
		om.seed = o.seed + 7919u * (uint64_t)j;
		struct mlp *m = train_family(&om, f, &fam[f]);
		unsigned char *mb;
		size_t ml;
		if (!m || mlp_save(m, &mb, &ml) != 0) {
			fprintf(stderr, PROG ": out of memory\n");
			return surfer_exit_code(SURFER_ENOMEM);
		}
		mlp_free(m);
		if (len + 8 + ml > cap) {
			cap = (len + 8 + ml) * 2;
			unsigned char *nb = realloc(blob, cap);
			if (!nb)
				return surfer_exit_code(SURFER_ENOMEM);
			blob = nb;
		}
		uint32_t hdr[2] = {(uint32_t)f, TILE_NFEAT};
		for (int h = 0; h < 2; h++)
			for (int b = 0; b < 4; b++)
				blob[len + 4 * h + b] = (hdr[h] >> (8 * b)) & 0xff;
		memcpy(blob + len + 8, mb, ml);
		len += 8 + ml;
		free(mb);
		count++;
	}
	for (int f = 0; f < TILE_FAM_COUNT; f++)
		free(fam[f].v);
	if (curve) {
		if (put32(&blob, &len, &cap, TILE_CURVE_NPARAM))
			return surfer_exit_code(SURFER_ENOMEM);
		for (int i = 0; i < TILE_CURVE_NPARAM; i++) {
			uint64_t bits;
			memcpy(&bits, &cx[i], sizeof bits);
			if (put32(&blob, &len, &cap, (uint32_t)bits) ||
			    put32(&blob, &len, &cap, (uint32_t)(bits >> 32)))
				return surfer_exit_code(SURFER_ENOMEM);
		}
	}
	/* version 5: our own GPUs' picks in a section of their own, after
	 * the curve (a curve that did not fit leaves version 3) */
	if (own.n && !curve) {
		fprintf(stderr, PROG ": --picks-data needs the GEMM curve (no --no-curve)\n");
		return surfer_exit_code(SURFER_EINVAL);
	}
	if (pick_write(&picks, &blob, &len, &cap, o.quiet) != 0 ||
	    (own.n && pick_write(&own, &blob, &len, &cap, o.quiet) != 0)) {
		fprintf(stderr, PROG ": out of memory\n");
		return surfer_exit_code(SURFER_ENOMEM);
	}
	free(picks.v);
	free(own.v);
	memcpy(blob, "STIL", 4);
	uint32_t hv[3] = {own.n ? 5 : curve ? 4 : 3, (uint32_t)count, (uint32_t)lround(pj * 1000)};
	for (int j = 0; j < 3; j++)
		for (int b = 0; b < 4; b++)
			blob[4 + 4 * j + b] = (hv[j] >> (8 * b)) & 0xff;
	for (int f = 0; f < TILE_FAM_COUNT; f++) {
		uint32_t v = (uint32_t)lround(floors[f]);
		for (int b = 0; b < 4; b++)
			blob[16 + 4 * f + b] = (v >> (8 * b)) & 0xff;
	}
	if (count == 0) {
		fprintf(stderr, PROG ": no usable rows in the data\n");
		rc = surfer_exit_code(SURFER_EINVAL);
	} else if (write_out(o.out, blob, len) != 0) {
		fprintf(stderr, PROG ": cannot write '%s'\n", o.out);
		rc = surfer_exit_code(SURFER_EWRITE);
	}
	free(blob);
	return rc;
}
