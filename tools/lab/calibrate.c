/*
 * calibrate.c - `surfer-bench calibrate`: the interval table
 * (predictor/interval_table.c) from held-out predictions, and how often
 * its intervals hold the measured time on architectures it did not see.
 *
 * Reads what `make accuracy` and `make bench-e2e` leave behind with every
 * target's architecture held out of every fit: directories of
 * `surfer-bench accuracy --dump` files named TARGET--ORIGIN.csv (ORIGIN
 * "none": from the shape alone), `surfer-bench tensorcore --dump` files
 * (the tensor-core GEMM model, each GPU's architecture out of the fit)
 * and `surfer-bench e2e --dump` files of whole iterations (and `surfer-bench
 * serving --dump`'s, SGLang's prefills and decode steps, in their layout),
 * each of its kind (interval_iteration_method()).  Each row gives
 * one error, log(predicted / measured), keyed by method, kernel class,
 * distance and source (a measured origin or the shape).  From a trace the
 * distance is the origin's (pred_distance_between(): the same die, as
 * DeepBench's TITAN Xp to its GTX 1080 Ti or PipeWeave's H800 to its H20,
 * the same architecture, or a new one); from the shape it is the dump's
 * distance column (the GPUs its weights learnt from: a board held out
 * alone is the same die as its die's others), a new architecture where
 * the dump has none.  A key taken from one input is not taken again from
 * a later one, so the first directory (NeuSight's test shapes, the
 * models' own kernels) speaks for the keys it has and a later one (the
 * sweep) only adds the others (convolutions), another (DeepBench's boards
 * of one die) its distances.
 *
 * Coverage is checked the way the table will be used on a new GPU: for each
 * group (an architecture; at the same die a board: group_of()), the
 * quantiles of every other group's errors, and the share of its own
 * measured times inside the interval they give.  A key of too few groups
 * has no interval of its own (the spread of a new group's bias is not
 * learnt from one; key_enough()): the lookup takes the next farther
 * distance, and so does its coverage line.
 */
#include "tools/lab/calibrate.h"
#include "gpu_specs/die.h"
#include "predictor/interval.h"
#include "tools/lab/neusight.h"
#include "tools/lab/stats.h"
#include "trace/csv.h"
#include "trace/surfer_err.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PROG "surfer-bench"

/* A key of fewer held-out predictions is left to the fallbacks. */
#define IV_MIN_ROWS 30

struct cal_row {
	uint32_t cc;            /* the target's group (group_of())          */
	uint8_t method;         /* enum pred_method; PRED_AUTO: auto's       */
	uint8_t cls;            /* enum interval_class                      */
	uint8_t src;            /* enum pred_source                         */
	uint8_t dist;           /* enum pred_distance                       */
	float err;              /* log(predicted / measured)                */
};

struct cal_set {
	struct cal_row *r;
	size_t n, cap;
};

static int cal_add(struct cal_set *s, const struct cal_row *r)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 4096;
		struct cal_row *p = realloc(s->r, cap * sizeof *p);
		if (!p)
			return -1;
		s->r = p;
		s->cap = cap;
	}
	s->r[s->n++] = *r;
	return 0;
}

/* The GPU of a dump file's name part: NeuSight's directory names with
 * '_' for ' ' ("Tesla_P4"). */
static const struct gpu_spec *gpu_of_part(const char *part, size_t len)
{
	char name[128];
	if (len >= sizeof name)
		return NULL;
	for (size_t i = 0; i < len; i++)
		name[i] = part[i] == '_' ? ' ' : part[i];
	name[len] = '\0';
	return gpu_find(name);
}

static int method_of(const char *s)
{
	if (!strcmp(s, "auto")) return PRED_AUTO;
	if (!strcmp(s, "tcgemm")) return PRED_TCGEMM;
	if (!strcmp(s, "mlp")) return PRED_MLP;
	if (!strcmp(s, "roofline")) return PRED_ROOFLINE;
	if (!strcmp(s, "wave")) return PRED_WAVE;
	return -1;            /* the naive ratios are no method of surfer's */
}

/* The keys an input gave: the later inputs do not add to them. */
struct key_seen {
	uint8_t k[PRED_METHOD_COUNT][IV_CLASS_COUNT][PRED_SRC_COUNT][PRED_DIST_COUNT];
};

#define DUMP_NCOL 5

/* What a dump's rows go to: the columns named in col (resolved from the
 * header into idx) and the row's fields there. */
struct dump_reader {
	const char *what;                 /* "accuracy", "e2e" or "tensorcore"  */
	const char *col[DUMP_NCOL];       /* NULL-terminated if fewer           */
	int optional;                     /* columns from this one on may be
					   * absent (their field NULL); 0 none  */
	int (*row)(struct dump_reader *d, const char *f[DUMP_NCOL]);
	struct cal_set *s;
	const struct gpu_spec *target, *origin; /* accuracy dumps: of the name  */
	int src;
	const struct key_seen *seen;      /* keys earlier inputs gave           */
	struct key_seen *got;             /* keys this one gives                */
};

/*
 * The group of a held-out target at distance dist: what is new to the
 * data at that distance, and so what the interval must hold for a new
 * one of.  A new architecture (its compute capability, AMD's gfx target
 * too), a new die of a known architecture (the die's first board in the
 * table), a new board of a known die (the board).  The rows of one group
 * share its bias; the calibration leaves out one group at a time.
 */
#define GRP_DIE   (1u << 29)
#define GRP_BOARD (1u << 30)

static uint32_t group_of(const struct gpu_spec *g, int dist)
{
	size_t n;
	const struct gpu_spec *all = gpu_all(&n);
	if (dist == PRED_DIST_NEW_ARCH)
		return g->cc;
	for (size_t i = 0; i < n; i++)
		if (dist == PRED_DIST_SAME_DIE ? gpu_same(&all[i], g) : gpu_same_die(&all[i], g))
			return (dist == PRED_DIST_SAME_DIE ? GRP_BOARD : GRP_DIE) | (uint32_t)i;
	return g->cc;
}

static const char *group_name(uint32_t grp, char *buf, size_t len)
{
	size_t n;
	const struct gpu_spec *all = gpu_all(&n);
	uint32_t i = grp & ~(GRP_DIE | GRP_BOARD);
	if ((grp & (GRP_DIE | GRP_BOARD)) && i < n)
		snprintf(buf, len, "%s", grp & GRP_DIE ? gpu_die(&all[i]) : all[i].id);
	else if (gpu_cc_is_amd(grp))
		snprintf(buf, len, "gfx%x", grp - GPU_CC_AMD);
	else
		snprintf(buf, len, "sm_%u", grp);
	return buf;
}

/* Adds a row of key (m, c, src, dist) of target g unless an earlier input
 * gave the key: 0, or -1 when out of memory. */
static int add_row(struct dump_reader *d, const struct gpu_spec *g, int m, int c, int src,
		   int dist, double err)
{
	if (d->seen->k[m][c][src][dist])
		return 0;
	d->got->k[m][c][src][dist] = 1;
	struct cal_row x = { group_of(g, dist), (uint8_t)m, (uint8_t)c, (uint8_t)src, (uint8_t)dist,
			     (float)err };
	return cal_add(d->s, &x);
}

/* Reads one dump through d: 0, or -1 after a message. */
static int read_dump(struct dump_reader *d, const char *path)
{
	struct csv_reader r;
	if (csv_open(&r, path, 0) != 0) {
		fprintf(stderr, PROG ": cannot read '%s': %s\n", path, strerror(errno));
		return -1;
	}
	int rc, idx[DUMP_NCOL] = {-1, -1, -1, -1, -1}, header = 1;
	while ((rc = csv_next(&r)) == 1) {
		const char *f[DUMP_NCOL] = {0};
		if (header) {
			header = 0;
			for (int i = 0; i < DUMP_NCOL && d->col[i]; i++)
				if ((idx[i] = csv_col(&r, d->col[i])) < 0 &&
				    !(d->optional && i >= d->optional)) {
					fprintf(stderr, PROG ": '%s': not a surfer-bench %s dump\n", path,
						d->what);
					csv_release(&r);
					return -1;
				}
			continue;
		}
		for (int i = 0; i < DUMP_NCOL && d->col[i]; i++)
			f[i] = idx[i] >= 0 ? csv_field(&r, (size_t)idx[i]) : NULL;
		if (d->row(d, f) != 0) {
			fprintf(stderr, PROG ": out of memory\n");
			csv_release(&r);
			return -1;
		}
	}
	if (rc < 0)
		fprintf(stderr, PROG ": %s\n", r.err);
	csv_release(&r);
	return rc < 0 ? -1 : 0;
}

/* An accuracy dump's row: method, op, target_ns, predicted_ns and (dumps
 * since the distance keys) the distance the harness gave the prediction:
 * from a config, from the GPUs its weights learnt from (a board held out
 * alone is the same die as its die's others).  Without the column: the
 * origin's distance, or from a config a new architecture (the target's
 * was out of the weights). */
static int kernel_row(struct dump_reader *d, const char *f[DUMP_NCOL])
{
	int m = method_of(f[0]);
	double truth = atof(f[2]), pred = atof(f[3]);
	if (m < 0 || !(truth > 0) || !(pred > 0))
		return 0;
	int dist = d->src == PRED_SRC_TRACE ? pred_distance_between(d->origin, d->target)
					    : PRED_DIST_NEW_ARCH;
	for (int k = 0; f[4] && k < PRED_DIST_COUNT; k++)
		if (!strcmp(f[4], pred_distance_name((enum pred_distance)k)))
			dist = k;
	return add_row(d, d->target, m, interval_class_of(ns_op_class(f[1])), d->src, dist,
		       log(pred / truth));
}

/* An e2e dump's row (surfer-bench e2e and serving write them): gpu,
 * weights, measured_ms, predicted_ms and, in dumps since the iterations'
 * two keys, method, the key the prediction's interval takes
 * (interval_iteration_method(): tcgemm or auto; auto without the column,
 * as every dump before was); the held-out ones are iterations predicted
 * from a model config. */
static int iteration_row(struct dump_reader *d, const char *f[DUMP_NCOL])
{
	const struct gpu_spec *g = gpu_find(f[0]);
	double truth = atof(f[2]), pred = atof(f[3]);
	int m = f[4] && !strcmp(f[4], "tcgemm") ? PRED_TCGEMM : PRED_AUTO;
	if (!g || strcmp(f[1], "held-out") || !(truth > 0) || !(pred > 0))
		return 0;
	return add_row(d, g, m, IV_CLASS_ITERATION, PRED_SRC_CONFIG, PRED_DIST_NEW_ARCH,
		       log(pred / truth));
}

/* A tensorcore dump's row: gpu, measured_ns, tc_scratch_ns (from the
 * shape), tc_ratio_ns (from the same shape measured on origin; -1 none),
 * origin: method tcgemm, both sources. */
static int tc_row(struct dump_reader *d, const char *f[DUMP_NCOL])
{
	const struct gpu_spec *g = gpu_find(f[0]), *o = f[4][0] ? gpu_find(f[4]) : NULL;
	double truth = atof(f[1]), scratch = atof(f[2]), ratio = atof(f[3]);
	int rc = 0;
	if (!g || !(truth > 0))
		return 0;
	if (scratch > 0)
		rc = add_row(d, g, PRED_TCGEMM, IV_CLASS_GEMM, PRED_SRC_CONFIG, PRED_DIST_NEW_ARCH,
			     log(scratch / truth));
	if (rc == 0 && ratio > 0 && o)
		rc = add_row(d, g, PRED_TCGEMM, IV_CLASS_GEMM, PRED_SRC_TRACE,
			     pred_distance_between(o, g), log(ratio / truth));
	return rc;
}

static int read_kernel_dir(struct cal_set *s, const char *dir, const struct key_seen *seen,
			   struct key_seen *got)
{
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, PROG ": cannot read '%s': %s\n", dir, strerror(errno));
		return -1;
	}
	int rc = 0;
	struct dirent *e;
	while (rc == 0 && (e = readdir(d))) {
		const char *n = e->d_name, *sep = strstr(n, "--");
		size_t len = strlen(n);
		if (!sep || len < 5 || strcmp(n + len - 4, ".csv"))
			continue;
		const struct gpu_spec *t = gpu_of_part(n, (size_t)(sep - n)), *og = NULL;
		const char *o = sep + 2;
		size_t olen = (size_t)(n + len - 4 - o);
		int src = olen == 4 && !strncmp(o, "none", 4) ? PRED_SRC_CONFIG : PRED_SRC_TRACE;
		if (src == PRED_SRC_TRACE)
			og = gpu_of_part(o, olen);
		if (!t || (src == PRED_SRC_TRACE && !og)) {
			fprintf(stderr, PROG ": '%s/%s': no GPU named TARGET--ORIGIN.csv\n", dir, n);
			rc = -1;
			break;
		}
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, n);
		struct dump_reader d = { "accuracy",
					 {"method", "op", "target_ns", "predicted_ns", "distance"}, 4,
					 kernel_row, s, t, og, src, seen, got };
		rc = read_dump(&d, path);
	}
	closedir(d);
	return rc;
}

/* A dump file: whole iterations (surfer-bench e2e --dump) or tensor-core
 * GEMMs (surfer-bench tensorcore --dump), told apart by the header. */
static int read_file(struct cal_set *s, const char *path, const struct key_seen *seen,
		     struct key_seen *got)
{
	struct csv_reader r;
	if (csv_open(&r, path, 0) != 0) {
		fprintf(stderr, PROG ": cannot read '%s': %s\n", path, strerror(errno));
		return -1;
	}
	int tc = csv_next(&r) == 1 && csv_col(&r, "tc_ratio_ns") >= 0;
	csv_release(&r);
	struct dump_reader e2e = { "e2e", {"gpu", "weights", "measured_ms", "predicted_ms", "method"}, 4,
				   iteration_row, s, NULL, NULL, PRED_SRC_CONFIG, seen, got };
	struct dump_reader tcd = { "tensorcore",
				   {"gpu", "measured_ns", "tc_scratch_ns", "tc_ratio_ns", "origin"}, 0,
				   tc_row, s, NULL, NULL, PRED_SRC_TRACE, seen, got };
	return read_dump(tc ? &tcd : &e2e, path);
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return (x > y) - (x < y);
}

/* The errors of rows matching (method, cls, src, dist) of architecture
 * cc, sorted, into out. */
static size_t select_errs(const struct cal_set *s, int method, int cls, int src, int dist,
			  uint32_t cc, float *out)
{
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct cal_row *r = &s->r[i];
		if (r->src != src || r->method != method || r->cc != cc || r->dist != dist ||
		    (cls != IV_CLASS_ANY && r->cls != cls) ||
		    (cls == IV_CLASS_ANY && r->cls == IV_CLASS_ITERATION))
			continue;
		out[n++] = r->err;
	}
	qsort(out, n, sizeof *out, cmp_float);
	return n;
}

/* The quantiles of a sorted sample at 0, 1/40, ..., 1 (linear between
 * order statistics). */
static void quantiles(const float *v, size_t n, float q[IV_NQ])
{
	for (int j = 0; j < IV_NQ; j++) {
		double x = (double)j / (IV_NQ - 1) * (double)(n - 1);
		size_t i = (size_t)x;
		q[j] = i + 1 < n ? (float)(v[i] + (x - (double)i) * (v[i + 1] - v[i])) : v[n - 1];
	}
}

#define CAL_MAX_ARCH 32

/* The architectures of the set's rows at distance dist (-1: any), ascending. */
static size_t archs_of(const struct cal_set *s, int dist, uint32_t *cc, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (dist >= 0 && s->r[i].dist != (enum pred_distance)dist)
			continue;
		size_t j = 0;
		while (j < n && cc[j] != s->r[i].cc)
			j++;
		if (j == n && n < max)
			cc[n++] = s->r[i].cc;
	}
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && cc[j - 1] > cc[j]; j--) {
			uint32_t t = cc[j];
			cc[j] = cc[j - 1];
			cc[j - 1] = t;
		}
	return n;
}

/* Points per architecture in a mixture of architectures. */
#define CAL_NPOS 200

/* The value of probability u of a sorted sample of n with the
 * finite-sample (Weibull) positions: the k-th smallest of n stands at
 * k / (n + 1), so a new draw is above the largest with probability
 * 1 / (n + 1); linear between, the extremes beyond. */
static double order_stat(const float *v, size_t n, double u)
{
	double r = u * (double)(n + 1);
	if (r <= 1)
		return v[0];
	if (r >= (double)n)
		return v[n - 1];
	size_t i = (size_t)r;
	return v[i - 1] + (r - (double)i) * (v[i] - v[i - 1]);
}

/* One key's (method, class, source) held-out errors, per architecture. */
struct key_errs {
	size_t k;                            /* architectures with rows       */
	uint32_t cc[CAL_MAX_ARCH];
	float *err[CAL_MAX_ARCH];            /* log(pred / measured), sorted  */
	size_t n[CAL_MAX_ARCH];
	float pos[CAL_MAX_ARCH][CAL_NPOS];   /* at (j + 0.5) / CAL_NPOS       */
};

static void key_free(struct key_errs *ke)
{
	for (size_t a = 0; a < ke->k; a++)
		free(ke->err[a]);
	free(ke);
}

/* The key's errors of every architecture of the set: NULL when out of
 * memory (after a message). */
static struct key_errs *key_load(const struct cal_set *s, int method, int cls, int src, int dist)
{
	uint32_t cc[CAL_MAX_ARCH];
	size_t na = archs_of(s, -1, cc, CAL_MAX_ARCH);
	struct key_errs *ke = calloc(1, sizeof *ke);
	float *v = malloc((s->n ? s->n : 1) * sizeof *v);
	if (!ke || !v)
		goto oom;
	for (size_t a = 0; a < na; a++) {
		size_t n = select_errs(s, method, cls, src, dist, cc[a], v);
		if (!n)
			continue;
		size_t i = ke->k;
		if (!(ke->err[i] = malloc(n * sizeof *v)))
			goto oom;
		memcpy(ke->err[i], v, n * sizeof *v);
		ke->cc[i] = cc[a];
		ke->n[i] = n;
		for (int j = 0; j < CAL_NPOS; j++)
			ke->pos[i][j] = (float)order_stat(v, n, (j + 0.5) / CAL_NPOS);
		ke->k++;
	}
	free(v);
	return ke;
oom:
	fprintf(stderr, PROG ": out of memory\n");
	free(v);
	if (ke)
		key_free(ke);
	return NULL;
}

/* The quantiles of the mixture of the architectures of mask (bit a:
 * ke->cc[a]), each weighted alike, into q; mix: room for k * CAL_NPOS. */
static void mixture(const struct key_errs *ke, uint32_t mask, float *mix, float q[IV_NQ])
{
	size_t m = 0;
	for (size_t a = 0; a < ke->k; a++)
		if (mask >> a & 1) {
			memcpy(mix + m, ke->pos[a], sizeof ke->pos[a]);
			m += CAL_NPOS;
		}
	qsort(mix, m, sizeof *mix, cmp_float);
	quantiles(mix, m, q);
}

/* The quantile of probability p of a row's quantiles q. */
static double q_at(const float q[IV_NQ], double p)
{
	struct interval_row r;
	memcpy(r.q, q, sizeof r.q);
	return interval_quantile(&r, p);
}

/* The factor about the median c that an interval [lo, hi] around it needs
 * to hold the error e: 0 at the median, 1 at its bounds, the side's. */
static double needed_scale(double e, double c, double lo, double hi)
{
	double half = e >= c ? hi - c : lo - c;
	if (e == c)
		return 0;
	return fabs(half) > 1e-9 ? (e - c) / half : HUGE_VAL;
}

/* What the widening factor's rank weighs (--weigh). */
enum cal_weigh {
	CAL_WEIGH_RE = 0,     /* the groups' coverages, random-effects mean: default */
	CAL_WEIGH_ROWS,       /* each left-out error alike                           */
	CAL_WEIGH_GROUPS,     /* each group alike                                    */
};

static const char *const weigh_name[] = { "re", "rows", "groups" };

/* The factor of rank ceil(P (n + 1)) among the n left-out errors' factors
 * score (sorted here), each error one vote (--weigh rows). */
static double factor_rows_pooled(float *score, size_t ns)
{
	qsort(score, ns, sizeof *score, cmp_float);
	size_t rank = (size_t)ceil(IV_DEFAULT_P * (double)(ns + 1) - 1e-9);
	return score[(rank < ns ? rank : ns) - 1];
}

struct scored {
	float s;              /* the factor an error needs */
	uint8_t g;            /* its group's index among those used */
};

static int cmp_scored(const void *a, const void *b)
{
	return cmp_float(&((const struct scored *)a)->s, &((const struct scored *)b)->s);
}

/* The smallest of the factors score (each group's of the mask use in
 * turn, the groups in ke's order) at which the left-out groups' coverages
 * (the share of each group's factors at most it) reach P on average: each
 * group alike (CAL_WEIGH_GROUPS), or their random-effects mean
 * (CAL_WEIGH_RE, lab_re_mean()).  HUGE_VAL when out of memory. */
static double factor_groups(const struct key_errs *ke, uint32_t use, const float *score, size_t ns,
			    enum cal_weigh w)
{
	struct scored *all = malloc(ns * sizeof *all);
	size_t hit[CAL_MAX_ARCH] = {0}, n[CAL_MAX_ARCH], k = 0, off = 0;
	if (!all)
		return HUGE_VAL;
	for (size_t b = 0; b < ke->k; b++) {
		if (!(use >> b & 1))
			continue;
		for (size_t i = 0; i < ke->n[b]; i++)
			all[off + i] = (struct scored){ score[off + i], (uint8_t)k };
		off += ke->n[b];
		n[k++] = ke->n[b];
	}
	qsort(all, ns, sizeof *all, cmp_scored);
	double s = all[ns - 1].s;
	for (size_t i = 0; i < ns; i++) {
		hit[all[i].g]++;
		if (i + 1 < ns && all[i + 1].s == all[i].s)
			continue;             /* ties: the coverage at this factor */
		double cov = 0;
		if (w == CAL_WEIGH_RE) {
			cov = lab_re_mean(hit, n, k, NULL);
		} else {
			for (size_t g = 0; g < k; g++)
				cov += (double)hit[g] / (double)n[g];
			cov /= (double)k;
		}
		if (cov >= IV_DEFAULT_P - 1e-12) {
			s = all[i].s;
			break;
		}
	}
	free(all);
	return s;
}

/*
 * The quantiles of a key's errors, the architecture exclude_cc left out
 * (0: none), into q, and the factor that widened them into *scale;
 * returns the rows behind them (0: none, q untouched).
 *
 * The held-out errors are a bias per architecture first (one GPU's
 * kernels all fast, another's all slow) and a scatter around it, and a
 * new GPU is one more architecture, of which the data hold only K (4 for
 * kernels, 6 for iterations, once one is held out).  The table takes
 *
 *   1. the mixture of the K architectures' errors, each architecture
 *      weighted alike (its errors at CAL_NPOS finite-sample positions,
 *      order_stat()), so that no architecture counts by its number of
 *      kernels, and
 *   2. widens (or narrows) it about its median by one factor s per key:
 *      each of the K architectures in turn is left out, the mixture of
 *      the other K - 1 built, and every error of the one left out gives
 *      the factor that mixture's 80 % interval would have needed to hold
 *      it (needed_scale()); each left-out architecture's coverage at a
 *      factor is the share of its errors needing at most it, and s is the
 *      smallest factor at which the random-effects mean of those K
 *      coverages reaches 80 % (factor_groups(), lab_re_mean(): each
 *      architecture's coverage counts by 1 / (its binomial variance +
 *      the variance between architectures)).  So s is what the mixture
 *      of known architectures needed to hold 80 % of the measured times
 *      of an architecture it did not contain, learnt from the K
 *      architectures alone: the coverage reported for a held-out
 *      architecture never saw its errors, neither in the mixture nor in
 *      s (two levels of leave-one-architecture-out).
 *
 * The factor is fitted at the default probability (IV_DEFAULT_P); other
 * probabilities take the widened mixture's quantiles as they are.  A key
 * needs two architectures (one to leave out, one to predict it).
 *
 * Why, with the numbers (make calibrate, 80 % interval, each architecture
 * against the others, over the held-out predictions of 5b70714):  the
 * earlier estimator, a new bias from the Student-t prediction interval
 * of the K medians (mean, sd sqrt(1 + 1/K), K - 1 degrees of freedom)
 * plus every architecture's residuals, held 84.3 % of the kernels and
 * 91.6 % of the iterations: the P4's iterations, 15-27 % fast on
 * BERT-Large, set the spread of every other architecture's medians and
 * widened its iteration interval to about -13 .. +24 % of the
 * prediction, which held 75 of their 80 iterations.  A mean and a
 * standard deviation of four to six numbers follow the farthest one; the
 * rank of a left-out factor among n moves by one far-off architecture's
 * share of the rows only (the P4: 3 of 83 iterations).  The rows' rank: 82.9 %
 * of the kernels, 74.7 % of the iterations (one of 83 short of 75 %;
 * the 50 % interval 55.3 and 49.4 %, the 90 % one 90.6 and 89.2 %).
 * Chosen on the previous dumps (a426bc5) before these were made, among:
 * the mixture alone (no factor), 75.3 / 73.5 %; the median and MAD of
 * the medians in place of the mean and sd, 77.7 / 81.9 % (GEMMs from
 * another GPU 69.5 %); every quantile shifted by its own left-out rank
 * (conformalized quantiles), 78.6 / 73.5 %; one factor per side, 79.1 /
 * 73.5 % (which side a new architecture's bias falls on is not learnt
 * from four: how far is); the rows' rank, 81.5 / 78.3 %.  Each architecture's
 * factors weighted alike in the rank instead of each row: 82.5 / 74.7 %
 * there, 83.8 / 80.7 % here; not taken, as with four architectures the
 * 80 % point then falls inside the farthest one's factors (the P4's
 * would set every other architecture's).  On seven architectures the
 * iterations' coverage moves by several points with any one of them.
 *
 * What the factor's rank weighs (--weigh re, the default, rows or
 * groups).  It was each left-out error alike before (rows: the
 * factor of rank ceil(0.8 (n + 1)) of the n), where an architecture
 * counts by its number of rows; two rows of README's table held under
 * 75 %: iterations 74.7 % of 83 (gfx90a, MI210 and MI250, is 32 of
 * them and held 59 %) and tensor-core GEMMs from the shape 73.1 % of
 * 79,784 (the A100 and the A40 are 58,440).  The cause is that
 * weighting, not the number of architectures or the nested leave-out:
 * on made-up errors of known structure run through this code
 * (tools/lab/calibrate_sim.py, 300 runs each: a bias per group of sd
 * tau, a scatter of sd about 1, rows per group exponential of mean 20
 * or 20 each), with equal groups every rule holds 80-83 % at any tau
 * and G (7 groups, tau 4: rows 83.2, re 82.6 %); with unequal ones the
 * rows' rank holds 80.9 % of 7 groups without biases but 79.4 % at tau
 * 2 and 76.9 % at tau 4 (each group alike 78.7 %), since the factor is
 * then learnt from the two or three largest groups; re holds 80.7,
 * 81.9, 81.6 % there (83.1 % each alike), and 81.7-84.8 % of five
 * groups (rows 79.9-82.1 %).  No finite-sample correction of the
 * quantile level across groups helps: with four to six groups left in,
 * ceil(0.8 (K + 1)) / K is 1 (the largest factor of all), and the
 * simulations show no shortfall to correct with equal groups, only the
 * small excess of a factor learnt on K - 1 architectures' mixtures
 * and applied to K's.
 *
 * A new GPU is one more architecture, predicted on the same workloads
 * as any other, so what its interval must hold is the mean of the
 * architectures' coverages, each alike: the groups' rank (the smallest
 * factor at which their plain mean reaches 80 %) targets it, the
 * random-effects mean targets it with each architecture's coverage
 * weighed by how precisely its rows measure it (3 iterations of the P4
 * count less than 32 of gfx90a when the architectures agree; alike when
 * their spread dwarfs that), and is the pooled rate when they do not
 * differ at all.  On the predictions of 0a5c36a (errors pooled / each
 * architecture alike, rows -> re; groups in brackets): kernels 81.1 /
 * 82.6 -> 82.2 / 83.5 % (82.2 / 83.5), iterations 74.7 / 72.5 -> 77.1 /
 * 75.1 (80.7 / 81.2), tensor-core GEMMs from a trace 78.4 / 72.6 ->
 * 87.5 / 78.3 (87.5 / 80.1), from the shape 73.1 / 73.7 -> 76.3 / 76.6
 * (77.9 / 77.9), the same die's GEMMs 80.9 / 84.8 -> 77.2 / 81.8 (77.1
 * / 81.5).  Every key holds 75-85 % of each architecture alike; the
 * tensor-core GEMMs from a trace hold 87.5 % of the errors pooled,
 * 99.4 % of which are the A100's and the A40's (87.5, 87.6 % each: the
 * V100 and T4, 160 rows each, 74.4 and 63.8 %).  re rather than groups:
 * the same target with less scatter where groups have few rows (7
 * groups without biases: sd across runs 4.5 against 6.1 points).
 */
static size_t key_quantiles(const struct key_errs *ke, uint32_t exclude_cc, enum cal_weigh w,
			    float q[IV_NQ], double *scale)
{
	uint32_t use = 0;
	size_t nrows = 0, got = 0, ns = 0, k = 0;
	for (size_t a = 0; a < ke->k; a++)
		if (ke->cc[a] != exclude_cc) {
			use |= 1u << a;
			nrows += ke->n[a];
			k++;
		}
	if (k < 2)
		return 0;
	float *mix = malloc(ke->k * CAL_NPOS * sizeof *mix), *score = malloc(nrows * sizeof *score);
	if (!mix || !score)
		goto out;
	for (size_t b = 0; b < ke->k; b++) {
		if (!(use >> b & 1))
			continue;
		float qb[IV_NQ];
		mixture(ke, use & ~(1u << b), mix, qb);
		double c = q_at(qb, 0.5), lo = q_at(qb, (1 - IV_DEFAULT_P) / 2),
		       hi = q_at(qb, (1 + IV_DEFAULT_P) / 2);
		size_t b0 = ns;
		for (size_t i = 0; i < ke->n[b]; i++)
			score[ns++] = (float)needed_scale(ke->err[b][i], c, lo, hi);
		qsort(score + b0, ns - b0, sizeof *score, cmp_float);
	}
	double s = w == CAL_WEIGH_ROWS ? factor_rows_pooled(score, ns) : factor_groups(ke, use, score, ns, w);
	if (!isfinite(s))
		goto out;
	mixture(ke, use, mix, q);
	double c = q_at(q, 0.5);
	for (int j = 0; j < IV_NQ; j++)
		q[j] = (float)(c + s * (q[j] - c));
	*scale = s;
	got = nrows;
out:
	free(mix);
	free(score);
	return got;
}

/* Whether a key of k groups at distance dist gets a row of its own.  A
 * new architecture's needs two (one to leave out, one to predict it); a
 * nearer distance's three, so that its coverage is checked too (each
 * group against an interval built from two others) before it replaces
 * the farther distance's interval, which holds it already (a farther
 * distance's errors are the wider kind). */
static int key_enough(size_t k, int dist)
{
	return k >= (dist == PRED_DIST_NEW_ARCH ? 2u : 3u);
}

/* Held-out rows inside the interval, and all of them, per group. */
struct tally {
	uint32_t cc[CAL_MAX_ARCH];
	size_t in[CAL_MAX_ARCH], n[CAL_MAX_ARCH], k;
};

static void tally_add(struct tally *t, uint32_t cc, size_t in, size_t n)
{
	size_t a = 0;
	while (a < t->k && t->cc[a] != cc)
		a++;
	if (a == t->k) {
		if (t->k == CAL_MAX_ARCH)
			return;
		t->cc[t->k++] = cc;
	}
	t->in[a] += in;
	t->n[a] += n;
}

/* The lines of a tally: one per group, then all; label on the first. */
static void tally_print(const struct tally *t, const char *label)
{
	size_t in = 0, n = 0;
	double alike = 0;     /* the groups' shares covered, summed */
	char an[32];
	for (size_t a = 0; a < t->k; a++) {
		printf("%-36s %-14s %6zu %7.1f%%\n", a ? "" : label,
		       group_name(t->cc[a], an, sizeof an), t->n[a],
		       100.0 * (double)t->in[a] / (double)t->n[a]);
		in += t->in[a];
		n += t->n[a];
		alike += (double)t->in[a] / (double)t->n[a];
	}
	if (n) {
		double se, re = lab_re_mean(t->in, t->n, t->k, &se);
		printf("%-36s %-14s %6zu %7.1f%%   (each group alike %.1f%%, random-effects %.1f +- %.1f%%)\n",
		       "", "all", n, 100.0 * (double)in / (double)n, 100.0 * alike / (double)t->k,
		       100 * re, 100 * se);
	}
}

/* The lines of one key (method, class, source, distance): each group's
 * rows against the interval the table would give without that group,
 * into tot.  A key of too few groups for a row of its own is checked
 * against the interval the lookup takes instead (the next farther
 * distance with a row, without the group where it has one). */
static int coverage_line(const struct cal_set *s, int method, int cls, int src, int dist,
			 double prob, enum cal_weigh w, struct tally *tot)
{
	struct key_errs *ke = key_load(s, method, cls, src, dist), *fb = NULL;
	if (!ke)
		return -1;
	int fd = dist;
	if (!key_enough(ke->k, dist) && ke->k) {
		for (fd = dist + 1; fd < PRED_DIST_COUNT; fd++) {
			if (!(fb = key_load(s, method, cls, src, fd))) {
				key_free(ke);
				return -1;
			}
			if (key_enough(fb->k, fd))
				break;
			key_free(fb);
			fb = NULL;
		}
	}
	size_t tot_in = 0, tot_n = 0, ngroups = 0, g_in[CAL_MAX_ARCH], g_n[CAL_MAX_ARCH];
	double sum_ape = 0, alike = 0;
	int any = 0;
	char an[32], label[64];
	snprintf(label, sizeof label, "%s %s %s %s", pred_method_name((enum pred_method)method),
		 interval_class_name((enum interval_class)cls), pred_source_name((enum pred_source)src),
		 pred_distance_name((enum pred_distance)dist));
	if (ke->k && !key_enough(ke->k, dist)) {
		printf("%-36s (%zu group%s: no interval of its own, %s)\n", label, ke->k,
		       ke->k == 1 ? "" : "s",
		       fb ? (fd == PRED_DIST_SAME_ARCH ? "same-architecture's" : "new-architecture's")
			  : "none farther");
		any = 1;
	}
	for (size_t a = 0; a < ke->k; a++) {
		struct interval_row row = {0};
		double scale;
		if (fb) {
			/* the farther key's interval, this group's architecture
			 * left out of it where it has rows there */
			uint32_t cc = (ke->cc[a] & (GRP_DIE | GRP_BOARD)) ? 0 : ke->cc[a];
			size_t n;
			const struct gpu_spec *all = gpu_all(&n);
			if (ke->cc[a] & (GRP_DIE | GRP_BOARD))
				cc = all[ke->cc[a] & ~(GRP_DIE | GRP_BOARD)].cc;
			if (!key_quantiles(fb, fd == PRED_DIST_NEW_ARCH ? cc : 0, w, row.q, &scale))
				continue;
		} else if (!key_quantiles(ke, ke->cc[a], w, row.q, &scale)) {
			continue;
		}
		double lo = interval_quantile(&row, (1 - prob) / 2), hi = interval_quantile(&row, (1 + prob) / 2);
		size_t in = 0, n = ke->n[a];
		double ape = 0;
		for (size_t i = 0; i < n; i++) {
			in += ke->err[a][i] >= lo && ke->err[a][i] <= hi;
			ape += fabs(expm1(ke->err[a][i])) * 100;
		}
		printf("%-36s %-14s %6zu %7.1f%% %9.1f%%   (interval %+.0f%% .. %+.0f%% of the prediction, scale %.2f)\n",
		       any ? "" : label, group_name(ke->cc[a], an, sizeof an), n,
		       100.0 * (double)in / (double)n, ape / (double)n, expm1(-hi) * 100,
		       expm1(-lo) * 100, scale);
		any = 1;
		tally_add(tot, ke->cc[a], in, n);
		g_in[ngroups] = in;
		g_n[ngroups] = n;
		tot_in += in;
		tot_n += n;
		sum_ape += ape;
		alike += (double)in / (double)n;
		ngroups++;
	}
	if (tot_n) {
		double se, re = lab_re_mean(g_in, g_n, ngroups, &se);
		printf("%-36s %-14s %6zu %7.1f%% %9.1f%%   (each group alike %.1f%%, random-effects %.1f +- %.1f%%)\n",
		       "", "all", tot_n, 100.0 * (double)tot_in / (double)tot_n, sum_ape / (double)tot_n,
		       100.0 * alike / (double)ngroups, 100 * re, 100 * se);
	}
	key_free(ke);
	if (fb)
		key_free(fb);
	return 0;
}

static const char *method_sym(int m)
{
	return m == PRED_MLP ? "PRED_MLP" : m == PRED_ROOFLINE ? "PRED_ROOFLINE" :
	       m == PRED_WAVE ? "PRED_WAVE" : m == PRED_TCGEMM ? "PRED_TCGEMM" : "PRED_AUTO";
}

static const char *const class_sym[IV_CLASS_COUNT] = {
	"IV_CLASS_GEMM", "IV_CLASS_VECTOR", "IV_CLASS_CONV", "IV_CLASS_ANY", "IV_CLASS_ITERATION",
};

static const char *const dist_sym[PRED_DIST_COUNT] = {
	"PRED_DIST_SAME_DIE", "PRED_DIST_SAME_ARCH", "PRED_DIST_NEW_ARCH",
};

static const int cal_methods[] = { PRED_AUTO, PRED_MLP, PRED_ROOFLINE, PRED_WAVE, PRED_TCGEMM };

static int emit(const struct cal_set *s, int argc, char **argv, enum cal_weigh w)
{
	printf("/*\n * interval_table.c - generated by `make calibrate`:\n *\n *   " PROG " calibrate --emit%s%s",
	       w != CAL_WEIGH_RE ? " --weigh " : "", w != CAL_WEIGH_RE ? weigh_name[w] : "");
	/* the inputs, a line each past the first: the table's header stays
	 * readable with our own GPUs' joined */
	for (int i = 0; i < argc; i++)
		printf(i ? " \\\n *       %s" : " %s", argv[i]);
	printf("\n *\n"
	       " * do not edit.  Quantiles of log(predicted / measured) at probabilities\n"
	       " * 0, 1/40, ..., 1 of held-out predictions: every target's architecture\n"
	       " * left out of every fit, the groups' errors (architectures; at a\n"
	       " * nearer distance dies or boards) mixed and widened about their median\n"
	       " * by the factor in each row's comment (tools/lab/calibrate.c,\n"
	       " * predictor/interval.h).\n */\n"
	       "#include \"predictor/interval.h\"\n\n"
	       "const struct interval_row interval_table[] = {\n");
	size_t rows = 0;
	for (int dist = PRED_DIST_NEW_ARCH; dist >= 0; dist--)
		for (int src = 0; src < PRED_SRC_COUNT; src++)
			for (int c = 0; c < IV_CLASS_COUNT; c++)
				for (size_t m = 0; m < sizeof cal_methods / sizeof cal_methods[0]; m++) {
					/* every class pooled: of the methods of every
					 * class, at a new architecture (a nearer
					 * distance's data are GEMMs alone) */
					if ((c == IV_CLASS_ITERATION && cal_methods[m] != PRED_AUTO &&
					     cal_methods[m] != PRED_TCGEMM) ||
					    (c == IV_CLASS_ANY && (cal_methods[m] == PRED_TCGEMM ||
								   dist != PRED_DIST_NEW_ARCH)))
						continue;
					struct key_errs *ke = key_load(s, cal_methods[m], c, src, dist);
					if (!ke)
						return -1;
					float q[IV_NQ];
					double scale = 0;
					size_t n = 0, k = ke->k, nrows = 0;
					for (size_t a = 0; a < k; a++)
						nrows += ke->n[a];
					if (key_enough(k, dist))
						n = key_quantiles(ke, 0, w, q, &scale);
					key_free(ke);
					const char *what[] = {
						pred_method_name((enum pred_method)cal_methods[m]),
						interval_class_name((enum interval_class)c),
						pred_source_name((enum pred_source)src),
						pred_distance_name((enum pred_distance)dist) };
					if (n < IV_MIN_ROWS) {
						if (nrows)
							printf("\t/* %s %s %s %s: %zu rows of %zu group%s, too few:"
							       " the lookup takes a farther key */\n", what[0],
							       what[1], what[2], what[3], nrows, k,
							       k == 1 ? "" : "s");
						continue;
					}
					printf("\t{ %s, %s, %s, %s, %zu, {", method_sym(cal_methods[m]),
					       class_sym[c], dist_sym[dist],
					       src == PRED_SRC_TRACE ? "PRED_SRC_TRACE" : "PRED_SRC_CONFIG", n);
					for (int j = 0; j < IV_NQ; j++)
						printf("%s%s%.4ff", j ? "," : "", j % 8 ? " " : "\n\t\t", q[j]);
					printf(" } },   /* %s %s %s%s%s: %zu %s, scale %.3f */\n", what[0],
					       what[1], what[2], dist == PRED_DIST_NEW_ARCH ? "" : " ",
					       dist == PRED_DIST_NEW_ARCH ? "" : what[3], k,
					       dist == PRED_DIST_NEW_ARCH ? "architectures" :
					       dist == PRED_DIST_SAME_DIE ? "boards" : "dies", scale);
					rows++;
				}
	printf("};\nconst size_t interval_table_len = %zu;\n", rows);
	/* the architectures (groups at a new architecture) whose errors the
	 * rows hold: a coverage counted on one of them is in-sample */
	uint32_t arch[CAL_MAX_ARCH];
	size_t na = archs_of(s, PRED_DIST_NEW_ARCH, arch, CAL_MAX_ARCH);
	printf("\n/* the architectures whose held-out errors the rows hold */\n"
	       "const uint32_t interval_table_archs[] = {");
	for (size_t i = 0; i < na; i++) {
		printf("%s%s", i ? "," : "", i % 6 ? " " : "\n\t");
		if (gpu_cc_is_amd(arch[i]))
			printf("GPU_CC_AMD + 0x%x", arch[i] - GPU_CC_AMD);
		else
			printf("%u", arch[i]);
	}
	printf("\n};\nconst size_t interval_table_narchs = %zu;\n", na);
	return 0;
}

int bench_calibrate_main(const struct bench_args *a)
{
	if (a->help || !a->noperands) {
		fprintf(a->help ? stdout : stderr,
			"usage: " PROG " calibrate [--emit] [--interval P] [--weigh re|rows|groups] DIR|FILE.csv...\n"
			"  DIR: surfer-bench accuracy --dump files TARGET--ORIGIN.csv (make accuracy);\n"
			"  FILE.csv: surfer-bench e2e or serving --dump (held-out iterations) or tensorcore\n"
			"  --dump;\n"
			"  +DIR, +FILE.csv: more of the input before it (another GPU's predictions of the\n"
			"  same kind: the keys an earlier input gave are not taken from a later one);\n"
			"  the interval table as C (--emit), else the held-out coverage of the P\n"
			"  interval (default 80); --weigh: the widening factor's rank over the\n"
			"  left-out groups' coverages, their random-effects mean (re, the default),\n"
			"  over the left-out errors pooled (rows) or each group alike (groups)\n");
		return a->help ? 0 : surfer_exit_code(SURFER_EINVAL);
	}
	double prob = IV_DEFAULT_P;
	enum cal_weigh w = CAL_WEIGH_RE;
	if (a->weigh) {
		while (w <= CAL_WEIGH_GROUPS && strcmp(a->weigh, weigh_name[w]))
			w++;
		if (w > CAL_WEIGH_GROUPS) {
			fprintf(stderr, PROG ": bad --weigh '%s' (re, rows or groups)\n", a->weigh);
			return surfer_exit_code(SURFER_EINVAL);
		}
	}
	if (a->interval) {
		char *end;
		prob = strtod(a->interval, &end) / 100;
		if (*end || !(prob > 0 && prob < 1)) {
			fprintf(stderr, PROG ": bad --interval '%s' (a percentage between 0 and 100)\n",
				a->interval);
			return surfer_exit_code(SURFER_EINVAL);
		}
	}
	struct cal_set s = {0};
	/* seen: the keys every input read so far gave; before: those of the
	 * inputs before the current one (a +PATH is part of the input before
	 * it, and takes the keys that input could) */
	struct key_seen seen = {{{{{0}}}}}, before = seen;
	int rc = 0;
	for (int i = 0; i < a->noperands && rc == 0; i++) {
		const char *path = a->operands[i];
		if (path[0] == '+' && i > 0)
			path++;
		else
			before = seen;
		struct key_seen got = {{{{{0}}}}};
		struct stat st;
		if (stat(path, &st) != 0) {
			fprintf(stderr, PROG ": cannot read '%s': %s\n", path, strerror(errno));
			rc = -1;
		} else if (S_ISDIR(st.st_mode)) {
			rc = read_kernel_dir(&s, path, &before, &got);
		} else {
			rc = read_file(&s, path, &before, &got);
		}
		for (size_t j = 0; j < sizeof got.k; j++)
			(&seen.k[0][0][0][0])[j] |= (&got.k[0][0][0][0])[j];
	}
	if (rc == 0 && a->emit) {
		rc = emit(&s, a->noperands, a->operands, w);
	} else if (rc == 0) {
		struct tally kern[PRED_DIST_COUNT], tc[PRED_DIST_COUNT], iter, iter_tc;
		memset(kern, 0, sizeof kern);
		memset(tc, 0, sizeof tc);
		memset(&iter, 0, sizeof iter);
		memset(&iter_tc, 0, sizeof iter_tc);
		printf("held-out coverage of the %.0f%% interval of `auto` and of the tensor-core GEMM\n"
		       "model, and of whole iterations of each kind (interval_iteration_method())\n"
		       "(each group against the quantiles of the others, widened by the factor\n"
		       "fitted on the others at %.0f%%: a group is an architecture, at the same die a\n"
		       "board; MAPE of its predictions)\n", prob * 100, IV_DEFAULT_P * 100);
		printf("%-36s %-14s %6s %8s %10s\n", "method class source distance", "group", "n",
		       "covered", "MAPE");
		for (int dist = PRED_DIST_NEW_ARCH; dist >= 0 && rc == 0; dist--)
			for (int c = 0; c < IV_CLASS_COUNT && rc == 0; c++)
				for (int src = 0; src < PRED_SRC_COUNT && rc == 0; src++)
					if (c != IV_CLASS_ANY)
						rc = coverage_line(&s, PRED_AUTO, c, src, dist, prob, w,
								   c == IV_CLASS_ITERATION ? &iter : &kern[dist]);
		for (int dist = PRED_DIST_NEW_ARCH; dist >= 0 && rc == 0; dist--)
			for (int src = 0; src < PRED_SRC_COUNT && rc == 0; src++)
				rc = coverage_line(&s, PRED_TCGEMM, IV_CLASS_GEMM, src, dist, prob, w,
						   &tc[dist]);
		if (rc == 0)
			rc = coverage_line(&s, PRED_TCGEMM, IV_CLASS_ITERATION, PRED_SRC_CONFIG,
					   PRED_DIST_NEW_ARCH, prob, w, &iter_tc);
		if (rc == 0) {
			printf("\npooled per held-out group\n");
			for (int dist = PRED_DIST_NEW_ARCH; dist >= 0; dist--) {
				char label[64];
				snprintf(label, sizeof label, "kernels%s%s", dist == PRED_DIST_NEW_ARCH ? "" : ", ",
					 dist == PRED_DIST_NEW_ARCH ? "" : pred_distance_name((enum pred_distance)dist));
				tally_print(&kern[dist], label);
			}
			tally_print(&iter, "iterations");
			tally_print(&iter_tc, "iterations, tensor-core");
			for (int dist = PRED_DIST_NEW_ARCH; dist >= 0; dist--) {
				char label[64];
				snprintf(label, sizeof label, "tensor-core GEMMs, %s",
					 pred_distance_name((enum pred_distance)dist));
				tally_print(&tc[dist], label);
			}
		}
	}
	free(s.r);
	return rc == 0 ? 0 : surfer_exit_code(SURFER_EINVAL);
}
