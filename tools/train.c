/*
 * train.c - surfer-train: fits the tile model's MLPs (one per operator
 * family) to kernel measurements in NeuSight's CSV layout, with a fixed
 * seed, and writes the weights blob (.bin) or the C file the build compiles
 * in (.c).  Rows of --holdout GPUs are never read into the training set.
 *
 * Loss: squared error of log time, time = roofline / sigmoid(o) (tile.c),
 * which weighs relative errors alike for 10 us and 100 ms kernels.
 */
#include "predictor/mlp.h"
#include "predictor/tile.h"
#include "tools/neusight.h"

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
	const struct gpu_spec *holdout[8];
	int nholdout;
	const char *out;
	unsigned epochs;
	unsigned max_rows;
	unsigned layers, width;
	uint64_t seed;
	double lr;
	int quiet;
};

struct sample {
	double f[TILE_NFEAT];
	double log_base;    /* log of the roofline time, ns */
	double log_y;       /* log of the measured time, ns */
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
		"                    [--lr X] [--seed N] [--quiet]\n"
		"Trains the tile model on NeuSight-layout kernel CSVs (files or directories)\n"
		"and writes its weights: FILE.bin (load with --weights) or FILE.c (compiled in).\n");
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
		double p = tile_time_from_output(y, exp(x->log_base));
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
			/* log pred = log base - log sigmoid(y) = log base + softplus(-y) */
			double sp = y > -30 ? log1p(exp(-y)) : -y;
			double err = x->log_base + sp - x->log_y;
			double sig = 1 / (1 + exp(-y));
			double dy = 2 * err * (-(1 - sig));
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

static int write_out(const char *path, const unsigned char *blob, size_t len)
{
	FILE *fp = fopen(path, "wb");
	if (!fp)
		return -1;
	size_t l = strlen(path);
	if (l > 2 && strcmp(path + l - 2, ".c") == 0) {
		fprintf(fp, "/*\n * tile_weights.c - the tile model's weights, generated by surfer-train\n"
			    " * from NeuSight's kernel measurements (see README: Training); do not edit.\n */\n"
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
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		} else if (!strcmp(a, "--quiet")) {
			o->quiet = 1;
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
	if (o->epochs < 1 || o->layers < 1 || o->layers + 1 > MLP_MAX_LAYERS || o->width < 1 ||
	    o->width > MLP_MAX_WIDTH || !(o->lr > 0)) {
		fprintf(stderr, PROG ": bad --epochs, --layers, --width or --lr\n");
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
		return 2;
	}
	struct ns_set set;
	char err[512];
	memset(&set, 0, sizeof set);
	for (int i = 0; i < o.ndata; i++)
		if (ns_load(&set, o.data[i], NULL, NULL, err, sizeof err) != 0) {
			fprintf(stderr, PROG ": cannot load data: %s\n", err);
			ns_release(&set);
			return 2;
		}
	struct samples fam[TILE_FAM_COUNT];
	memset(fam, 0, sizeof fam);
	size_t unknown = 0, held = 0;
	for (size_t i = 0; i < set.n; i++) {
		const struct ns_row *r = &set.rows[i];
		if (!r->gpu) {
			unknown++;
			continue;
		}
		int skip = 0;
		for (int h = 0; h < o.nholdout; h++)
			if (r->gpu == o.holdout[h])
				skip = 1;
		if (skip) {
			held++;
			continue;
		}
		struct pred_kernel k;
		struct sample x;
		double base;
		if (ns_kernel(r, 1, &k) != 0)
			continue;
		int f = tile_features(&k, r->gpu, NULL, x.f, &base);
		if (f < 0)
			continue;
		x.log_base = log(base);
		x.log_y = log(r->latency_ms * 1e6);
		if (push(&fam[f], &x) != 0) {
			fprintf(stderr, PROG ": out of memory\n");
			return 2;
		}
	}
	if (!o.quiet)
		fprintf(stderr, PROG ": %zu rows read, %zu of held-out GPUs skipped, %zu of unknown GPUs skipped\n",
			set.n, held, unknown);
	ns_release(&set);

	/* Blob: "STIL", version, count, then (family, nfeat, mlp blob)... */
	size_t cap = 1 << 20, len = 12;
	unsigned char *blob = malloc(cap);
	int count = 0, rc = 0;
	if (!blob)
		return 2;
	for (int f = 0; f < TILE_FAM_COUNT; f++) {
		if (fam[f].n < 20)
			continue;
		struct mlp *m = train_family(&o, f, &fam[f]);
		unsigned char *mb;
		size_t ml;
		if (!m || mlp_save(m, &mb, &ml) != 0) {
			fprintf(stderr, PROG ": out of memory\n");
			return 2;
		}
		mlp_free(m);
		if (len + 8 + ml > cap) {
			cap = (len + 8 + ml) * 2;
			unsigned char *nb = realloc(blob, cap);
			if (!nb)
				return 2;
			blob = nb;
		}
		uint32_t hdr[2] = {(uint32_t)f, TILE_NFEAT};
		for (int j = 0; j < 2; j++)
			for (int b = 0; b < 4; b++)
				blob[len + 4 * j + b] = (hdr[j] >> (8 * b)) & 0xff;
		memcpy(blob + len + 8, mb, ml);
		len += 8 + ml;
		free(mb);
		count++;
	}
	for (int f = 0; f < TILE_FAM_COUNT; f++)
		free(fam[f].v);
	memcpy(blob, "STIL", 4);
	uint32_t hv[2] = {1, (uint32_t)count};
	for (int j = 0; j < 2; j++)
		for (int b = 0; b < 4; b++)
			blob[4 + 4 * j + b] = (hv[j] >> (8 * b)) & 0xff;
	if (count == 0) {
		fprintf(stderr, PROG ": no usable rows in the data\n");
		rc = 2;
	} else if (write_out(o.out, blob, len) != 0) {
		fprintf(stderr, PROG ": cannot write '%s'\n", o.out);
		rc = 2;
	}
	free(blob);
	return rc;
}
