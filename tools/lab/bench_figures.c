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

int bench_figures_main(const struct bench_args *a)
{
	if (a->help) {
		printf("usage: " PROG " figures\n"
		       "  every GPU's achievable figures with their provenance, and the rules that fill\n"
		       "  a GPU none measured, each checked with the measured GPU's architecture held out\n");
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
	return 0;
}
