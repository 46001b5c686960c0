/*
 * bench_figures.c - `surfer-bench figures`: every GPU's achievable figures
 * (gpu_specs/figures.h) with where each comes from, and each rule checked
 * on every measured GPU with that GPU's whole architecture held out.
 */
#include "tools/lab/bench_figures.h"
#include "gpu_specs/figures.h"
#include "gpu_specs/gpu.h"
#include "predictor/tcgemm.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PROG "surfer-bench"

/* A short provenance mark for the table. */
static const char *mark(enum gpu_provenance p)
{
	static const char *const m[GPU_PROV_COUNT] = {"-", "D", "P", "M", "S", "R", "F"};
	return (unsigned)p < GPU_PROV_COUNT ? m[p] : "?";
}

/* gpu-benches gpu-small-kernels, one file: each line a size (elements,
 * then its kB) and the throughputs of the variants, GB/s.  Fits t = a + V
 * / b by least squares over the sizes up to 1 MiB (V = 16 bytes an
 * element, each size's fastest variant) into *a_us.  0, or -1 when the
 * file cannot be read or holds fewer than two sizes. */
static int small_kernels_fit(const char *path, double *a_us, size_t *nsizes)
{
	FILE *f = fopen(path, "r");
	char line[512];
	double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char kb[32];
		double elems, best = 0;
		int used;
		if (sscanf(line, "%lf %31s%n", &elems, kb, &used) != 2 || !strstr(kb, "kB") || !(elems > 0))
			continue;
		double bytes = elems * 16, gbps;
		int k;
		for (const char *q = line + used; sscanf(q, "%lf%n", &gbps, &k) == 1; q += k)
			if (gbps > best)
				best = gbps;
		if (!(best > 0) || bytes > 1048576)
			continue;
		double t_us = bytes / (best * 1e3);
		n++, sx += bytes, sy += t_us, sxx += bytes * bytes, sxy += bytes * t_us;
	}
	fclose(f);
	double det = n * sxx - sx * sx;
	if (n < 2 || !(det > 0))
		return -1;
	*a_us = (sy - (n * sxy - sx * sy) / det * sx) / n;
	*nsizes = (size_t)n;
	return 0;
}

/* --data DIR: the launch figures fitted again from the gpu-small-kernels
 * files and set beside the table's.  The exit code: 0 when every one
 * agrees to 0.01 us, 1 when one does not, 2 when the folder is missing. */
static int figures_recompute(const char *data)
{
	static const struct { const char *file, *gpu; enum gpu_figure_kind kind; } files[] = {
		{"a100_80", "a100-sxm4-80", GPU_FIG_LAUNCH_US}, {"a100_80_graph", "a100-sxm4-80", GPU_FIG_GRAPH_LAUNCH_US},
		{"a40", "a40", GPU_FIG_LAUNCH_US}, {"a40_graph", "a40", GPU_FIG_GRAPH_LAUNCH_US},
		{"h200", "h200", GPU_FIG_LAUNCH_US}, {"h200_graph", "h200", GPU_FIG_GRAPH_LAUNCH_US},
		{"l40", "l40", GPU_FIG_LAUNCH_US}, {"l40_graph", "l40", GPU_FIG_GRAPH_LAUNCH_US},
		{"mi210", "mi210", GPU_FIG_LAUNCH_US}, {"mi210_graph", "mi210", GPU_FIG_GRAPH_LAUNCH_US},
	};
	char dir[4096], path[4200];
	int bad = 0;
	snprintf(dir, sizeof(dir), "%s/gpu-reference/gpu-benches/gpu-small-kernels", data);
	FILE *probe;
	snprintf(path, sizeof(path), "%s/%s.txt", dir, files[0].file);
	if (!(probe = fopen(path, "r"))) {
		fprintf(stderr, PROG ": figures: no gpu-small-kernels files in '%s'\n", dir);
		return 2;
	}
	fclose(probe);
	printf("\nlaunch figures fitted again from %s:\n", dir);
	printf("%-16s %-14s %-16s %6s %10s %10s\n", "figure", "gpu", "file", "sizes", "table", "fitted");
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		const struct gpu_spec *g = gpu_find(files[i].gpu);
		struct gpu_figure_value v;
		double a_us;
		size_t n;
		snprintf(path, sizeof(path), "%s/%s.txt", dir, files[i].file);
		if (!g || gpu_figure(g, files[i].kind, 0, &v) != GPU_PROV_MICROBENCH ||
		    small_kernels_fit(path, &a_us, &n)) {
			printf("%-16s %-14s %-16s cannot be compared\n", gpu_figure_name(files[i].kind),
			       files[i].gpu, files[i].file);
			bad = 1;
			continue;
		}
		int agrees = fabs(a_us - v.value) <= 0.0051;
		printf("%-16s %-14s %-16s %6zu %10.2f %10.3f %s\n", gpu_figure_name(files[i].kind), files[i].gpu,
		       files[i].file, n, v.value, a_us, agrees ? "agrees" : "DIFFERS");
		bad |= !agrees;
	}
	return bad;
}

int bench_figures_main(const struct bench_args *a)
{
	if (a->help) {
		printf("usage: " PROG " figures [--data DIR]\n"
		       "  every GPU's achievable figures with their provenance, and the rules that fill\n"
		       "  a GPU none measured, each checked with the measured GPU's architecture held out;\n"
		       "  --data DIR: the launch figures fitted again from DIR's gpu-benches files\n"
		       "  (exit 1 when one differs from the table)\n");
		return 0;
	}
	size_t ng;
	const struct gpu_spec *all = gpu_all(&ng);
	printf("%-24s", "gpu");
	for (int f = 0; f < GPU_FIG_COUNT; f++)
		printf(" %15s", gpu_figure_name((enum gpu_figure_kind)f));
	printf("  fp32 issue  tcgemm mamf\n");
	for (size_t i = 0; i < ng; i++) {
		printf("%-24s", all[i].id);
		for (int f = 0; f < GPU_FIG_COUNT; f++) {
			struct gpu_figure_value v;
			enum gpu_provenance p = gpu_figure(&all[i], (enum gpu_figure_kind)f, 0, &v);
			if (p == GPU_PROV_NONE)
				printf(" %15s", "-");
			else
				printf(" %13.*f %s", v.value >= 100 ? 0 : 3, v.value, mark(p));
		}
		printf("  %10.3f", gpu_fp32_issue_factor(&all[i]));
		enum gpu_provenance tp;
		double share = tcgemm_mamf_share(&all[i], NULL, &tp);
		if (share > 0)
			printf("  %9.3f %s\n", share,
			       tp == GPU_PROV_RULE && !gpu_cc_is_amd(all[i].cc) ? "T" : mark(tp));
		else
			printf("  %11s\n", "-");
	}
	printf("(P public microbenchmark, M measured by us, S the same die measured, R the rule,\n"
	       " F another predictor's device table, D datasheet; fp32 issue: the factor on the\n"
	       " datasheet FP32 rate; tcgemm mamf: the share of the dense peak the tensor-core GEMM\n"
	       " model takes for a GPU's best large matmul, its mamf_bf16 figure or, T, tcgemm's\n"
	       " fitted rule (predictor/tcgemm.c))\n\n");
	printf("each rule against the measured GPUs, their architecture held out:\n");
	printf("%-16s %-24s %10s %10s %8s\n", "figure", "gpu", "measured", "rule", "error");
	for (int f = 0; f < GPU_FIG_COUNT; f++) {
		double sum = 0;
		size_t n = 0;
		for (size_t i = 0; i < ng; i++) {
			struct gpu_figure_value own, held;
			if (gpu_figure(&all[i], (enum gpu_figure_kind)f, 0, &own) != GPU_PROV_MICROBENCH ||
			    strcmp(own.from, all[i].id))
				continue;
			if (gpu_figure(&all[i], (enum gpu_figure_kind)f, all[i].cc, &held) != GPU_PROV_RULE) {
				printf("%-16s %-24s %10.3f %10s\n", gpu_figure_name((enum gpu_figure_kind)f),
				       all[i].id, own.value, "none");
				continue;
			}
			double e = (held.value - own.value) / own.value * 100;
			printf("%-16s %-24s %10.3f %10.3f %+7.1f%%\n", gpu_figure_name((enum gpu_figure_kind)f),
			       all[i].id, own.value, held.value, e);
			sum += fabs(e);
			n++;
		}
		if (n)
			printf("%-16s %-24s %30.1f%% mean |error| over %zu GPUs\n",
			       gpu_figure_name((enum gpu_figure_kind)f), "all", sum / (double)n, n);
	}
	return a->data ? figures_recompute(a->data) : 0;
}
