/*
 * bench_cpu.c - `surfer-bench cpu --data DIR`: what PyTorch's CPU spends
 * issuing work, read from torch.profiler (Kineto) traces (the .json.gz files of DIR)
 * by the importer's reader (tools/import/kineto.c: its CPU spans and their
 * nesting, import_cpu_nest).
 *
 * On each CPU thread the top-level "cpu_op" events (those no other op of
 * the thread encloses) are the calls the program made: an aten op called
 * from Python, an autograd-engine node ("autograd::engine::evaluate_
 * function: ..." on the backward thread), the ops of an optimizer step
 * (inside an "Optimizer.step#" annotation).  Each takes the CPU from its
 * start to the start of the next top-level op of the thread: the op itself,
 * the Python (or the engine) between the two, and the ops that launch
 * nothing (views, shape checks), whose cost a kernel launch elsewhere
 * carries.  The kernels an op launched are the launch calls
 * (cudaLaunchKernel and friends) inside it.  Per class:
 *   per kernel = the class's CPU time / its kernels launched,
 *   per op     = the same / its ops that launched at least one kernel,
 * and the spread of the interval from one launching op to the next (median,
 * 10th and 90th percentile), per op and per kernel.  An interval is left
 * out when it waits: the op synchronizes (cudaStreamSynchronize, a blocking
 * cudaMemcpy, ...), the thread sits idle more than CB_IDLE_US after it, it
 * takes more than CB_STALL_US per kernel it launched (a launch call that
 * blocked: the first one loads the module), or the next op is of another
 * class.
 *
 * The traces were taken with the profiler on (record_shapes, stacks): its
 * bookkeeping per recorded event is in every figure, so they are upper
 * bounds of an unprofiled run; the ratios between classes are what carries
 * over (the model path uses the backward-to-forward ratio, model.h).
 *
 * Hold-out: the per-kernel figures (time over kernels) of the A100 traces predict the V100
 * trace's CPU time per class (kernels x figure), and the reverse.  The V100
 * trace comes from another host (another CPU), so a host's absolute speed
 * does not carry over; the backward-to-forward ratio should.  Tolerances:
 * the ratio within CB_RATIO_TOL, each class's time within CB_TIME_TOL;
 * exit status 1 beyond them.
 */
#include "tools/lab/bench_cpu.h"
#include "tools/lab/stats.h"

#include "tools/import/import.h"
#include "trace/surfer_err.h"

#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "surfer-bench"
#define CB_IDLE_US 1000.0  /* a gap longer than this after an op is a wait */
#define CB_STALL_US 2000.0 /* more per kernel launched: a blocked call     */
#define CB_RATIO_TOL 0.25  /* hold-out: backward / forward per kernel     */
#define CB_TIME_TOL 0.50   /* hold-out: a class's CPU time                 */
#define CB_MAX_TRACES 32

enum cb_class { CB_FWD = 0, CB_BWD, CB_OPT, CB_NCLASS };
static const char *const cb_class_name[CB_NCLASS] = {"forward (Python)", "backward (engine)",
						      "optimizer"};

/* What a class took on one trace (or a pool of traces). */
struct cb_stat {
	double cpu_us;       /* CPU time of the intervals kept              */
	double kernels;      /* kernels launched in them                    */
	double ops;          /* ops among them that launched a kernel        */
	double *iv, *ivk;    /* launching op to the next: us, us per kernel  */
	size_t n, cap;
};

struct cb_trace {
	char name[256];
	int v100;            /* the host of the V100 run                     */
	struct cb_stat st[CB_NCLASS];
};

static int cb_push(struct cb_stat *s, double iv, double ivk)
{
	if (s->n == s->cap) {
		size_t c = s->cap ? s->cap * 2 : 256;
		double *a = realloc(s->iv, c * sizeof *a), *b;
		if (!a)
			return -1;
		s->iv = a;
		b = realloc(s->ivk, c * sizeof *b);
		if (!b)
			return -1;
		s->ivk = b;
		s->cap = c;
	}
	s->iv[s->n] = iv;
	s->ivk[s->n++] = ivk;
	return 0;
}

static int is_launch(const char *n)
{
	return !strcmp(n, "cudaLaunchKernel") || !strcmp(n, "cudaLaunchKernelExC") ||
	       !strcmp(n, "cuLaunchKernel") || !strcmp(n, "cuLaunchKernelEx") ||
	       !strcmp(n, "cudaLaunchCooperativeKernel");
}

static int is_sync(const char *n)
{
	return !strcmp(n, "cudaStreamSynchronize") || !strcmp(n, "cudaDeviceSynchronize") ||
	       !strcmp(n, "cudaEventSynchronize") || !strcmp(n, "cudaMemcpy");
}

/* Microseconds, as the trace wrote them: below 2^53 ns the division is
 * exact to the double nearest the decimal text (what strtod gives it). */
static double us(uint64_t ns)
{
	return ns < (1ull << 53) ? (double)ns / 1e3
				 : (double)(ns / 1000) + (double)(ns % 1000) / 1e3;
}

/* Reads path's CPU spans into set, nested (import_cpu_nest); 0, or the
 * reader's error code with err set. */
static int cb_load(const char *path, struct import_set *set, int *v100, char *err,
		   size_t errlen)
{
	set->keep_cpu = 1;
	int rc = import_kineto_read(set, path, NULL, NULL, err, errlen);
	if (rc)
		return rc;
	const char *dev = set->ndevs ? set->devs[0].dev.name : NULL;
	*v100 = dev && strstr(dev, "V100");
	import_cpu_nest(set);
	return 0;
}

/* One top-level op of a thread: its class, launches, whether it waits. */
struct cb_top {
	double ts, dur;
	int cls, launches, sync;
};

/* The top-level ops of the thread s->cpu[lo..hi) into t; returns their
 * count. */
static size_t cb_tops(const struct import_set *s, size_t lo, size_t hi, struct cb_top *t)
{
	size_t m = 0;
	double opt_end = -INFINITY;

	for (size_t i = lo; i < hi; i++) {
		const struct import_cpu_span *e = &s->cpu[i];
		const char *name = import_string(s, e->name);
		double ts = us(e->ts_ns), dur = us(e->dur_ns);
		if (e->cat == IMPORT_CPU_ANNOTATION && !strncmp(name, "Optimizer.step#", 15)) {
			opt_end = fmax(opt_end, ts + dur);
		} else if (e->cat == IMPORT_CPU_OP && e->outer == (int64_t)i) {
			int bwd = !strncmp(name, "autograd::engine::evaluate_function", 35);
			t[m++] = (struct cb_top){ts, dur, bwd ? CB_BWD : ts < opt_end ? CB_OPT : CB_FWD,
						 0, 0};
		} else if (m && e->cat == IMPORT_CPU_CALL && e->outer >= 0 && is_launch(name)) {
			t[m - 1].launches++;
		} else if (m && e->cat == IMPORT_CPU_CALL && e->outer >= 0 && is_sync(name)) {
			t[m - 1].sync = 1;
		}
	}
	return m;
}

static int cb_measure(const struct import_set *set, struct cb_trace *tr)
{
	const struct import_cpu_span *v = set->cpu;
	size_t n = set->ncpu;
	struct cb_top *t = malloc((n ? n : 1) * sizeof *t);
	if (!t)
		return -1;
	for (size_t lo = 0, hi; lo < n; lo = hi) {
		for (hi = lo; hi < n && v[hi].tid == v[lo].tid; hi++)
			;
		size_t m = cb_tops(set, lo, hi, t);
		const struct cb_top *last = NULL; /* the last launching op of the run */
		for (size_t i = 0; i < m; i++) {
			const struct cb_top *o = &t[i];
			int cont = i + 1 < m && t[i + 1].cls == o->cls && !o->sync &&
				   t[i + 1].ts - o->ts - o->dur <= CB_IDLE_US &&
				   t[i + 1].ts - o->ts <= CB_STALL_US * (o->launches ? o->launches : 1);
			struct cb_stat *s = &tr->st[o->cls];
			if (o->launches && last &&
			    cb_push(s, o->ts - last->ts, (o->ts - last->ts) / last->launches))
				goto oom;
			if (o->launches)
				last = o;
			if (!cont) {
				last = NULL;
				continue;
			}
			s->cpu_us += t[i + 1].ts - o->ts;
			s->kernels += o->launches;
			s->ops += o->launches > 0;
		}
	}
	free(t);
	return 0;
oom:
	free(t);
	return -1;
}

static void cb_row(const char *trace, int c, struct cb_stat *s)
{
	if (!s->kernels)
		return;
	double kmed = lab_quantile(s->ivk, s->n, 0.5), k10 = lab_quantile(s->ivk, s->n, 0.1),
	       k90 = lab_quantile(s->ivk, s->n, 0.9);
	double omed = lab_quantile(s->iv, s->n, 0.5), o10 = lab_quantile(s->iv, s->n, 0.1),
	       o90 = lab_quantile(s->iv, s->n, 0.9);
	printf("%-22s %-18s %6.0f %7.0f %9.1f %8.1f %8.1f | %6.1f %6.1f-%-7.1f | %6.1f %6.1f-%-7.1f\n",
	       trace, cb_class_name[c], s->ops, s->kernels, s->cpu_us / 1e3, s->cpu_us / s->kernels,
	       s->cpu_us / (s->ops ? s->ops : 1), omed, o10, o90, kmed, k10, k90);
}

/* The trace's classes against its forward ops, medians per kernel: one
 * host, so its speed cancels (model.h takes the backward and optimizer
 * figures this way). */
static void cb_ratios(struct cb_trace *t)
{
	struct cb_stat *f = &t->st[CB_FWD];
	if (!f->n)
		return;
	double fm = lab_quantile(f->ivk, f->n, 0.5);
	printf("%-22s per kernel over forward's (medians):", t->name);
	for (int c = CB_BWD; c < CB_NCLASS; c++)
		if (t->st[c].n)
			printf(" %s %.2f", cb_class_name[c], lab_quantile(t->st[c].ivk, t->st[c].n, 0.5) / fm);
	printf("\n");
}

/* Pools the traces of one host (v100 0 or 1) into p. */
static int cb_pool(struct cb_trace *tr, int nt, int v100, struct cb_stat *p)
{
	memset(p, 0, CB_NCLASS * sizeof *p);
	for (int i = 0; i < nt; i++) {
		if (tr[i].v100 != v100)
			continue;
		for (int c = 0; c < CB_NCLASS; c++) {
			struct cb_stat *s = &tr[i].st[c];
			p[c].cpu_us += s->cpu_us, p[c].kernels += s->kernels, p[c].ops += s->ops;
			for (size_t j = 0; j < s->n; j++)
				if (cb_push(&p[c], s->iv[j], s->ivk[j]))
					return -1;
		}
	}
	return 0;
}

static void cb_stat_release(struct cb_stat *s)
{
	free(s->iv);
	free(s->ivk);
	memset(s, 0, sizeof *s);
}

/* Fits on host fit's pool, checks on the other's; returns the number of
 * checks beyond tolerance. */
static int cb_holdout(struct cb_stat *pool, int fit)
{
	struct cb_stat *f = pool + (fit ? CB_NCLASS : 0), *c = pool + (fit ? 0 : CB_NCLASS);
	const char *fn = fit ? "V100" : "A100", *cn = fit ? "A100" : "V100";
	int bad = 0;

	printf("fit on the %s host, checked on the %s host:\n", fn, cn);
	for (int k = 0; k < CB_NCLASS; k++) {
		if (!f[k].kernels || !c[k].kernels) {
			printf("  %-18s not in both\n", cb_class_name[k]);
			continue;
		}
		double fig = f[k].cpu_us / f[k].kernels;
		double pred = fig * c[k].kernels, err = pred / c[k].cpu_us - 1;
		int out = fabs(err) > CB_TIME_TOL;
		bad += out;
		printf("  %-18s %6.1f us per kernel x %6.0f kernels = %8.1f ms, measured %8.1f ms: "
		       "%+6.1f%%%s\n", cb_class_name[k], fig, c[k].kernels, pred / 1e3,
		       c[k].cpu_us / 1e3, 100 * err, out ? " (beyond tolerance)" : "");
	}
	if (f[CB_FWD].n && f[CB_BWD].n && c[CB_FWD].n && c[CB_BWD].n) {
		/* per launching node over per launching op (medians): what
		 * model.h's MODEL_CPU_BACKWARD_NS takes; then the classes' whole
		 * time per kernel, views and the like included */
		double rf = lab_quantile(f[CB_BWD].ivk, f[CB_BWD].n, 0.5) /
			    lab_quantile(f[CB_FWD].ivk, f[CB_FWD].n, 0.5);
		double rc = lab_quantile(c[CB_BWD].ivk, c[CB_BWD].n, 0.5) /
			    lab_quantile(c[CB_FWD].ivk, c[CB_FWD].n, 0.5);
		double af = f[CB_BWD].cpu_us / f[CB_BWD].kernels / (f[CB_FWD].cpu_us / f[CB_FWD].kernels);
		double ac = c[CB_BWD].cpu_us / c[CB_BWD].kernels / (c[CB_FWD].cpu_us / c[CB_FWD].kernels);
		int out = fabs(rf / rc - 1) > CB_RATIO_TOL;
		bad += out;
		printf("  backward / forward per kernel, medians: %.2f fitted, %.2f on the %s host: "
		       "%+.1f%%%s\n", rf, rc, cn, 100 * (rf / rc - 1), out ? " (beyond tolerance)" : "");
		printf("  backward / forward per kernel, whole time: %.2f fitted, %.2f on the %s host\n",
		       af, ac, cn);
	}
	return bad;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int bench_cpu_main(const struct bench_args *a)
{
	if (a->help || !a->data) {
		fprintf(a->help ? stdout : stderr,
			"usage: " PROG " cpu --data DIR  (CPU issue cost per op class from the\n"
			"                                Kineto traces DIR/*.json.gz)\n");
		return a->help ? 0 : surfer_exit_code(SURFER_EINVAL);
	}
	DIR *d = opendir(a->data);
	if (!d) {
		fprintf(stderr, PROG ": cannot open '%s'\n", a->data);
		return surfer_exit_code(SURFER_EIO);
	}
	char *names[CB_MAX_TRACES];
	int nn = 0;
	for (struct dirent *de; (de = readdir(d)) && nn < CB_MAX_TRACES;) {
		size_t l = strlen(de->d_name);
		if (l > 8 && !strcmp(de->d_name + l - 8, ".json.gz") && (names[nn] = strdup(de->d_name)))
			nn++;
	}
	closedir(d);
	qsort(names, (size_t)nn, sizeof *names, cmp_str);

	struct cb_trace *tr = calloc((size_t)(nn ? nn : 1), sizeof *tr);
	struct cb_stat pool[2 * CB_NCLASS];
	int nt = 0, rc = 0, bad = 0;
	if (!tr) {
		fprintf(stderr, PROG ": out of memory\n");
		return surfer_exit_code(SURFER_ENOMEM);
	}
	printf("# CPU time per launched kernel and per op, from torch.profiler traces (profiler on:\n"
	       "# upper bounds of an unprofiled run).  time: the class's CPU time (ms); per kernel,\n"
	       "# per op: that time over its kernels, over its launching ops (us); then the interval\n"
	       "# from one launching op to the next: median, 10th-90th percentile, per op and per kernel.\n");
	printf("%-22s %-18s %6s %7s %9s %8s %8s | %-21s | %-21s\n", "trace", "class", "ops",
	       "kernels", "time ms", "us/kern", "us/op", "op med p10-p90", "kernel med p10-p90");
	for (int i = 0; i < nn && !rc; i++) {
		char path[1024], err[1536];
		struct import_set set;
		import_set_init(&set);
		snprintf(path, sizeof path, "%s/%s", a->data, names[i]);
		snprintf(tr[nt].name, sizeof tr[nt].name, "%.*s", (int)(strlen(names[i]) - 8), names[i]);
		int lrc = cb_load(path, &set, &tr[nt].v100, err, sizeof err);
		if (lrc) {
			fprintf(stderr, PROG ": '%s': %s\n", path, err);
			rc = surfer_exit_code(lrc);
		} else if (cb_measure(&set, &tr[nt])) {
			fprintf(stderr, PROG ": out of memory\n");
			rc = surfer_exit_code(SURFER_ENOMEM);
		} else {
			for (int c = 0; c < CB_NCLASS; c++)
				cb_row(tr[nt].name, c, &tr[nt].st[c]);
			cb_ratios(&tr[nt]);
			nt++;
		}
		import_set_release(&set);
	}
	if (!rc && (cb_pool(tr, nt, 0, pool) || cb_pool(tr, nt, 1, pool + CB_NCLASS))) {
		fprintf(stderr, PROG ": out of memory\n");
		rc = surfer_exit_code(SURFER_ENOMEM);
	}
	if (!rc) {
		printf("\nhold-out (the V100 trace ran on another host: another CPU); tolerance: a class's\n"
		       "time within %.0f%%, the backward/forward ratio within %.0f%%\n",
		       100 * CB_TIME_TOL, 100 * CB_RATIO_TOL);
		bad = cb_holdout(pool, 0) + cb_holdout(pool, 1);
		for (int c = 0; c < 2 * CB_NCLASS; c++)
			cb_stat_release(&pool[c]);
	}
	for (int i = 0; i < nt; i++)
		for (int c = 0; c < CB_NCLASS; c++)
			cb_stat_release(&tr[i].st[c]);
	for (int i = 0; i < nn; i++)
		free(names[i]);
	free(tr);
	return rc ? rc : bad ? 1 : 0;
}
