/*
 * calibrate.c - `surfer-bench calibrate`: the interval table
 * (predictor/interval_table.c) from held-out predictions, and how often
 * its intervals hold the measured time on architectures it did not see.
 *
 * Reads what `make accuracy` and `make bench-e2e` leave behind with every
 * target's architecture held out of every fit: directories of
 * `surfer-bench accuracy --dump` files named TARGET--ORIGIN.csv (ORIGIN
 * "none": from the shape alone) and `surfer-bench e2e --dump` files of
 * whole iterations.  Each row gives one error, log(predicted / measured),
 * keyed by method, kernel class, distance (new architecture: the target's
 * was held out) and source (a measured origin or the shape).  A class
 * taken from one directory is not taken again from a later one, so the
 * first directory (NeuSight's test shapes, the models' own kernels) speaks
 * for the classes it has and a later one (the sweep) only adds the others
 * (convolutions).
 *
 * Coverage is checked the way the table will be used on a new GPU: for each
 * architecture, the quantiles of every other architecture's errors, and
 * the share of its own measured times inside the interval they give.
 */
#include "tools/lab/calibrate.h"
#include "predictor/interval.h"
#include "tools/lab/neusight.h"
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
	uint32_t cc;            /* the target's compute capability          */
	uint8_t method;         /* enum pred_method; PRED_AUTO: auto's       */
	uint8_t cls;            /* enum interval_class                      */
	uint8_t src;            /* enum pred_source                         */
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
	if (!strcmp(s, "mlp")) return PRED_MLP;
	if (!strcmp(s, "roofline")) return PRED_ROOFLINE;
	if (!strcmp(s, "wave")) return PRED_WAVE;
	return -1;            /* the naive ratios are no method of surfer's */
}

/* What a dump's rows go to: the columns named in col (resolved from the
 * header into idx) and the row's fields there. */
struct dump_reader {
	const char *what;                 /* "accuracy" or "e2e", for errors    */
	const char *col[4];
	int (*row)(struct dump_reader *d, const char *f[4]);
	struct cal_set *s;
	const struct gpu_spec *target;    /* accuracy dumps: of the file name   */
	int src;
	const int (*seen)[PRED_SRC_COUNT];
	int (*got)[PRED_SRC_COUNT];
};

/* Reads one dump through d: 0, or -1 after a message. */
static int read_dump(struct dump_reader *d, const char *path)
{
	struct csv_reader r;
	if (csv_open(&r, path, 0) != 0) {
		fprintf(stderr, PROG ": cannot read '%s': %s\n", path, strerror(errno));
		return -1;
	}
	int rc, idx[4] = {-1, -1, -1, -1}, header = 1;
	while ((rc = csv_next(&r)) == 1) {
		const char *f[4];
		if (header) {
			header = 0;
			for (int i = 0; i < 4; i++)
				if ((idx[i] = csv_col(&r, d->col[i])) < 0) {
					fprintf(stderr, PROG ": '%s': not a surfer-bench %s dump\n", path,
						d->what);
					csv_release(&r);
					return -1;
				}
			continue;
		}
		for (int i = 0; i < 4; i++)
			f[i] = csv_field(&r, (size_t)idx[i]);
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

/* An accuracy dump's row: method, op, target_ns, predicted_ns. */
static int kernel_row(struct dump_reader *d, const char *f[4])
{
	int m = method_of(f[0]);
	double truth = atof(f[2]), pred = atof(f[3]);
	if (m < 0 || !(truth > 0) || !(pred > 0))
		return 0;
	int c = interval_class_of(ns_op_class(f[1]));
	if (d->seen[c][d->src])
		return 0;
	d->got[c][d->src] = 1;
	struct cal_row x = { d->target->cc, (uint8_t)m, (uint8_t)c, (uint8_t)d->src,
			     (float)log(pred / truth) };
	return cal_add(d->s, &x);
}

/* An e2e dump's row: gpu, weights, measured_ms, predicted_ms; the
 * held-out ones are iterations predicted from a model config. */
static int iteration_row(struct dump_reader *d, const char *f[4])
{
	const struct gpu_spec *g = gpu_find(f[0]);
	double truth = atof(f[2]), pred = atof(f[3]);
	if (!g || strcmp(f[1], "held-out") || !(truth > 0) || !(pred > 0))
		return 0;
	struct cal_row x = { g->cc, PRED_AUTO, IV_CLASS_ITERATION, PRED_SRC_CONFIG,
			     (float)log(pred / truth) };
	return cal_add(d->s, &x);
}

static int read_kernel_dir(struct cal_set *s, const char *dir,
			   int seen[IV_CLASS_COUNT][PRED_SRC_COUNT])
{
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, PROG ": cannot read '%s': %s\n", dir, strerror(errno));
		return -1;
	}
	int got[IV_CLASS_COUNT][PRED_SRC_COUNT] = {{0}}, rc = 0;
	struct dirent *e;
	while (rc == 0 && (e = readdir(d))) {
		const char *n = e->d_name, *sep = strstr(n, "--");
		size_t len = strlen(n);
		if (!sep || len < 5 || strcmp(n + len - 4, ".csv"))
			continue;
		const struct gpu_spec *t = gpu_of_part(n, (size_t)(sep - n));
		const char *o = sep + 2;
		size_t olen = (size_t)(n + len - 4 - o);
		int src = olen == 4 && !strncmp(o, "none", 4) ? PRED_SRC_CONFIG : PRED_SRC_TRACE;
		if (!t || (src == PRED_SRC_TRACE && !gpu_of_part(o, olen))) {
			fprintf(stderr, PROG ": '%s/%s': no GPU named TARGET--ORIGIN.csv\n", dir, n);
			rc = -1;
			break;
		}
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, n);
		struct dump_reader d = { "accuracy", {"method", "op", "target_ns", "predicted_ns"},
					 kernel_row, s, t, src, (const int (*)[PRED_SRC_COUNT])seen, got };
		rc = read_dump(&d, path);
	}
	closedir(d);
	for (int c = 0; c < IV_CLASS_COUNT; c++)
		for (int k = 0; k < PRED_SRC_COUNT; k++)
			seen[c][k] |= got[c][k];
	return rc;
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return (x > y) - (x < y);
}

/* The errors of rows matching (method, cls, src), of architecture cc only
 * (only) or of every other one (!only; cc 0: all), sorted, into *out. */
static size_t select_errs(const struct cal_set *s, int method, int cls, int src, uint32_t cc,
			  int only, float *out)
{
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct cal_row *r = &s->r[i];
		if (r->src != src || r->method != method ||
		    (cls != IV_CLASS_ANY && r->cls != cls) ||
		    (cls == IV_CLASS_ANY && r->cls == IV_CLASS_ITERATION))
			continue;
		if (cc && (only ? r->cc != cc : r->cc == cc))
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

/* The architectures of the set, ascending. */
static size_t archs_of(const struct cal_set *s, uint32_t *cc, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++) {
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

/* P(T <= t) for Student's t with nu degrees of freedom (Abramowitz and
 * Stegun 26.7.3 and 26.7.4: closed forms in theta = atan(t / sqrt(nu)),
 * odd and even nu). */
static double t_cdf(double t, int nu)
{
	double th = atan(fabs(t) / sqrt(nu)), c2 = cos(th) * cos(th), a;
	if (nu % 2) {
		double term = cos(th), sum = nu > 1 ? term : 0;
		for (int k = 3; k <= nu - 2; k += 2) {
			term *= c2 * (k - 1) / k;
			sum += term;
		}
		a = 2 / M_PI * (th + sin(th) * sum);
	} else {
		double term = 1, sum = 1;
		for (int k = 2; k <= nu - 2; k += 2) {
			term *= c2 * (k - 1) / k;
			sum += term;
		}
		a = sin(th) * sum;
	}
	return t >= 0 ? 0.5 + a / 2 : 0.5 - a / 2;
}

/* The quantile of probability p (0 < p < 1) of Student's t with nu
 * degrees of freedom, by bisection of t_cdf. */
static double t_quantile(double p, int nu)
{
	double lo = -1e6, hi = 1e6;
	for (int i = 0; i < 200 && hi - lo > 1e-9 * (1 + fabs(lo)); i++) {
		double mid = (lo + hi) / 2;
		if (t_cdf(mid, nu) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* Points per architecture: of its residuals, and of the new bias. */
#define CAL_NRES 200
#define CAL_NBIAS 200

/* The value of probability u of a sorted sample of n with the
 * finite-sample (Weibull) positions: the k-th smallest of n stands at
 * k / (n + 1), so a new draw is above the largest with probability
 * 1 / (n + 1) (the ceil((n + 1) u)-th order statistic of split-conformal
 * prediction); linear between, the extremes beyond. */
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

/*
 * The quantiles of a key's errors, architecture exclude_cc left out (0:
 * none), into q; returns the rows behind them (0: none, q untouched).
 *
 * The held-out errors are a bias per architecture first (one GPU's
 * kernels all fast, another's all slow) and a scatter around it, and a
 * new GPU is one more architecture: one more draw of the bias, of which
 * the data hold only K (4 to 7).  So an error is taken as
 *
 *   e = b + r,  b ~ mean(m) + sd(m) sqrt(1 + 1/K) t_(K-1),
 *
 * m the K architectures' median errors, t_(K-1) Student's t: the
 * prediction interval of one more draw from a normal population whose
 * mean and spread are known only from K draws; and r any architecture's
 * residual around its own median, each architecture weighted alike (its
 * residuals at finite-sample positions, order_stat()).  The quantiles
 * are those of the sum over a grid of both.  Two earlier estimators,
 * each architecture against the others' quantiles (make calibrate):
 * the rows pooled held 69.9 % of the held-out iterations in the 80 %
 * interval; each architecture's median plus every residual (the biases
 * seen, each once) 77.1 %, but 3.3 % of the P4's vector operators and
 * 11.8 % of the P100's from the shape, whose biases lay beyond every
 * other architecture's: a new architecture falls beyond the K seen with
 * probability 2 / (K + 1), which the t distribution's tails carry.  With
 * one architecture the spread of biases is unknown: no quantiles.
 */
static size_t key_quantiles(const struct cal_set *s, int method, int cls, int src,
			    uint32_t exclude_cc, float q[IV_NQ])
{
	uint32_t cc[32];
	size_t na = archs_of(s, cc, 32), nrows = 0, k = 0, got = 0;
	double bias[32];
	float *v = malloc((s->n ? s->n : 1) * sizeof *v);
	float *res = malloc(32 * CAL_NRES * sizeof *res), *sample = NULL;
	if (!v || !res)
		goto out;
	for (size_t a = 0; a < na; a++) {
		if (cc[a] == exclude_cc)
			continue;
		size_t n = select_errs(s, method, cls, src, cc[a], 1, v);
		if (!n)
			continue;
		double med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
		for (size_t i = 0; i < n; i++)
			v[i] -= (float)med;
		for (int j = 0; j < CAL_NRES; j++)
			res[k * CAL_NRES + (size_t)j] = (float)order_stat(v, n, (j + 0.5) / CAL_NRES);
		bias[k++] = med;
		nrows += n;
	}
	if (k < 2)
		goto out;
	double mean = 0, var = 0;
	for (size_t i = 0; i < k; i++)
		mean += bias[i] / (double)k;
	for (size_t i = 0; i < k; i++)
		var += (bias[i] - mean) * (bias[i] - mean) / (double)(k - 1);
	double scale = sqrt(var * (1 + 1.0 / (double)k));
	size_t nres = k * CAL_NRES, ns = nres * CAL_NBIAS;
	sample = malloc(ns * sizeof *sample);
	if (!sample)
		goto out;
	for (int j = 0; j < CAL_NBIAS; j++) {
		double b = mean + scale * t_quantile((j + 0.5) / CAL_NBIAS, (int)k - 1);
		for (size_t i = 0; i < nres; i++)
			sample[(size_t)j * nres + i] = (float)(b + res[i]);
	}
	qsort(sample, ns, sizeof *sample, cmp_float);
	quantiles(sample, ns, q);
	got = nrows;
out:
	free(v);
	free(res);
	free(sample);
	return got;
}

static const char *arch_name(uint32_t cc, char *buf, size_t len)
{
	if (gpu_cc_is_amd(cc))
		snprintf(buf, len, "gfx%x", cc - GPU_CC_AMD);
	else
		snprintf(buf, len, "sm_%u", cc);
	return buf;
}

/* What auto did on class c from source src: the rows the table's
 * PRED_AUTO key pools. */
static void coverage_line(const struct cal_set *s, int cls, int src, double prob, float *own)
{
	uint32_t cc[32];
	size_t na = archs_of(s, cc, 32), tot_in = 0, tot = 0;
	double sum_ape = 0;
	int any = 0;
	for (size_t a = 0; a < na; a++) {
		size_t nown = select_errs(s, PRED_AUTO, cls, src, cc[a], 1, own);
		if (!nown)
			continue;
		struct interval_row row = {0};
		if (!key_quantiles(s, PRED_AUTO, cls, src, cc[a], row.q))
			continue;
		double lo = interval_quantile(&row, (1 - prob) / 2), hi = interval_quantile(&row, (1 + prob) / 2);
		size_t in = 0;
		double ape = 0;
		for (size_t i = 0; i < nown; i++) {
			in += own[i] >= lo && own[i] <= hi;
			ape += fabs(expm1(own[i])) * 100;
		}
		char an[16];
		if (!any)
			printf("%-10s %-7s", interval_class_name((enum interval_class)cls),
			       pred_source_name((enum pred_source)src));
		else
			printf("%-18s", "");
		any = 1;
		printf(" %-8s %6zu %7.1f%% %9.1f%%   (interval %+.0f%% .. %+.0f%% of the prediction)\n",
		       arch_name(cc[a], an, sizeof an), nown, 100.0 * (double)in / (double)nown,
		       ape / (double)nown, expm1(-hi) * 100, expm1(-lo) * 100);
		tot_in += in;
		tot += nown;
		sum_ape += ape;
	}
	if (tot)
		printf("%-18s %-8s %6zu %7.1f%% %9.1f%%\n", "", "all", tot,
		       100.0 * (double)tot_in / (double)tot, sum_ape / (double)tot);
}

static const char *method_sym(int m)
{
	return m == PRED_MLP ? "PRED_MLP" : m == PRED_ROOFLINE ? "PRED_ROOFLINE" :
	       m == PRED_WAVE ? "PRED_WAVE" : "PRED_AUTO";
}

static const char *const class_sym[IV_CLASS_COUNT] = {
	"IV_CLASS_GEMM", "IV_CLASS_VECTOR", "IV_CLASS_CONV", "IV_CLASS_ANY", "IV_CLASS_ITERATION",
};

static void emit(const struct cal_set *s, int argc, char **argv)
{
	static const int methods[] = { PRED_AUTO, PRED_MLP, PRED_ROOFLINE, PRED_WAVE };
	printf("/*\n * interval_table.c - generated by `make calibrate`:\n *\n *   " PROG " calibrate --emit");
	for (int i = 0; i < argc; i++)
		printf(" %s", argv[i]);
	printf("\n *\n"
	       " * do not edit.  Quantiles of log(predicted / measured) at probabilities\n"
	       " * 0, 1/40, ..., 1 of held-out predictions: every target's architecture\n"
	       " * left out of every fit (predictor/interval.h).\n */\n"
	       "#include \"predictor/interval.h\"\n\n"
	       "const struct interval_row interval_table[] = {\n");
	size_t rows = 0;
	for (int src = 0; src < PRED_SRC_COUNT; src++)
		for (int c = 0; c < IV_CLASS_COUNT; c++)
			for (size_t m = 0; m < sizeof methods / sizeof methods[0]; m++) {
				if (c == IV_CLASS_ITERATION && methods[m] != PRED_AUTO)
					continue;
				float q[IV_NQ];
				size_t n = key_quantiles(s, methods[m], c, src, 0, q);
				if (n < IV_MIN_ROWS)
					continue;
				printf("\t{ %s, %s, PRED_DIST_NEW_ARCH, %s, %zu, {", method_sym(methods[m]),
				       class_sym[c], src == PRED_SRC_TRACE ? "PRED_SRC_TRACE" : "PRED_SRC_CONFIG", n);
				for (int j = 0; j < IV_NQ; j++)
					printf("%s%s%.4ff", j ? "," : "", j % 8 ? " " : "\n\t\t", q[j]);
				printf(" } },   /* %s %s %s */\n", pred_method_name((enum pred_method)methods[m]),
				       interval_class_name((enum interval_class)c),
				       pred_source_name((enum pred_source)src));
				rows++;
			}
	printf("};\nconst size_t interval_table_len = %zu;\n", rows);
}

int bench_calibrate_main(const struct bench_args *a)
{
	if (a->help || !a->noperands) {
		fprintf(a->help ? stdout : stderr,
			"usage: " PROG " calibrate [--emit] [--interval P] DIR|FILE.csv...\n"
			"  DIR: surfer-bench accuracy --dump files TARGET--ORIGIN.csv (make accuracy);\n"
			"  FILE.csv: surfer-bench e2e --dump (held-out iterations); the interval table\n"
			"  as C (--emit), else the held-out coverage of the P interval (default 80)\n");
		return a->help ? 0 : surfer_exit_code(SURFER_EINVAL);
	}
	double prob = IV_DEFAULT_P;
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
	int seen[IV_CLASS_COUNT][PRED_SRC_COUNT] = {{0}}, rc = 0;
	for (int i = 0; i < a->noperands && rc == 0; i++) {
		struct stat st;
		if (stat(a->operands[i], &st) != 0) {
			fprintf(stderr, PROG ": cannot read '%s': %s\n", a->operands[i], strerror(errno));
			rc = -1;
		} else if (S_ISDIR(st.st_mode)) {
			rc = read_kernel_dir(&s, a->operands[i], seen);
		} else {
			struct dump_reader d = { "e2e", {"gpu", "weights", "measured_ms", "predicted_ms"},
						 iteration_row, &s, NULL, PRED_SRC_CONFIG, NULL, NULL };
			rc = read_dump(&d, a->operands[i]);
		}
	}
	float *own = rc == 0 ? malloc((s.n ? s.n : 1) * sizeof *own) : NULL;
	if (rc == 0 && !own) {
		fprintf(stderr, PROG ": out of memory\n");
		rc = -1;
	}
	if (rc == 0 && a->emit) {
		emit(&s, a->noperands, a->operands);
	} else if (rc == 0) {
		printf("held-out coverage of the %.0f%% interval of `auto` (each architecture against the\n"
		       "quantiles of the others; MAPE of its predictions)\n", prob * 100);
		printf("%-10s %-7s %-8s %6s %8s %10s\n", "class", "source", "arch", "n", "covered", "MAPE");
		for (int c = 0; c < IV_CLASS_COUNT; c++)
			for (int src = 0; src < PRED_SRC_COUNT; src++)
				if (c != IV_CLASS_ANY)
					coverage_line(&s, c, src, prob, own);
	}
	free(own);
	free(s.r);
	return rc == 0 ? 0 : surfer_exit_code(SURFER_EINVAL);
}
