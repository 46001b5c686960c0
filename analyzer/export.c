/*
 * export.c - CSV and HTML renderings of an analysis.
 *
 * CSV follows RFC 4180: fields with a comma, a quote or a line break are
 * quoted, quotes doubled.  The HTML report is one file: inline CSS, an
 * inline SVG chart, no scripts, fonts or images from elsewhere; every text
 * from the trace (kernel and device names) is escaped for HTML.
 */
#include "analyzer/export.h"

#include <math.h>
#include <string.h>

#include "analyzer/report.h"

static const char *ex_bound(int memory_bound)
{
	return memory_bound > 0 ? "memory" : memory_bound == 0 ? "compute" : "unknown";
}

/* Nothing was measured (a model config): no origin columns. */
static int ex_no_origin(const struct analysis *a)
{
	return !a->origin && a->measured_ns <= 0;
}

static void ex_csv_field(FILE *f, const char *s)
{
	if (!s)
		s = "";
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

int export_csv(FILE *f, const struct analysis *a)
{
	double iters = a->iterations ? a->iterations : 1;

	fputs("target,kernel,calls_per_iteration,origin_ms,predicted_ms,method,bound,op\n", f);
	for (size_t t = 0; t < a->ntargets; t++) {
		const struct analysis_target *at = &a->targets[t];

		for (size_t i = 0; i < at->ngroups; i++) {
			const struct analysis_group *g = &at->groups[i];

			ex_csv_field(f, at->gpu->id);
			fputc(',', f);
			ex_csv_field(f, g->name);
			fprintf(f, ",%.6g,", (double)g->launches / iters);
			if (!ex_no_origin(a))
				fprintf(f, "%.6f", report_ms(g->origin_ns));
			fprintf(f, ",%.6f,%s,%s,%s\n", report_ms(g->pred_ns), pred_method_name(g->method),
				ex_bound(g->memory_bound), pred_op_name(g->op));
		}
	}
	return ferror(f) ? -1 : 0;
}

/* Writes s escaped for HTML text and attribute values; control bytes
 * become '?'. */
static void ex_html(FILE *f, const char *s)
{
	if (!s)
		return;
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
			break;
		}
	}
}

#define EX_CHART_WIDTH 900
#define EX_CHART_LABEL 260     /* px for the labels left of the bars        */
#define EX_CHART_VALUE 110     /* px for the values right of the bars       */
#define EX_CHART_BAR 26        /* px per bar, spacing included              */

/* One bar of the chart. */
static void ex_bar(FILE *f, size_t row, const char *label, double ms, double max_ms,
		   const char *cls)
{
	double span = EX_CHART_WIDTH - EX_CHART_LABEL - EX_CHART_VALUE;
	double w = max_ms > 0 && isfinite(ms) ? span * ms / max_ms : 0;
	double y = 10 + (double)row * EX_CHART_BAR;

	if (w < 0)
		w = 0;
	fprintf(f, "<text x=\"%d\" y=\"%.0f\" text-anchor=\"end\">", EX_CHART_LABEL - 8, y + 15);
	ex_html(f, label);
	fprintf(f, "</text>\n<rect class=\"%s\" x=\"%d\" y=\"%.0f\" width=\"%.1f\" height=\"%d\">"
		"<title>", cls, EX_CHART_LABEL, y, w, EX_CHART_BAR - 6);
	ex_html(f, label);
	fprintf(f, ": %.3f ms</title></rect>\n", ms);
	fprintf(f, "<text x=\"%.1f\" y=\"%.0f\">%.3f ms</text>\n", EX_CHART_LABEL + w + 6, y + 15, ms);
}

static void ex_chart(FILE *f, const struct analysis *a)
{
	int measured = !ex_no_origin(a) && a->measured_ns > 0;
	size_t rows = a->ntargets + (size_t)measured;
	double max_ms = measured ? report_ms(a->measured_ns) : 0;
	char label[192];

	for (size_t t = 0; t < a->ntargets; t++)
		if (isfinite(a->targets[t].iteration_ns) && report_ms(a->targets[t].iteration_ns) > max_ms)
			max_ms = report_ms(a->targets[t].iteration_ns);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%zu\" "
		"viewBox=\"0 0 %d %zu\" role=\"img\" aria-label=\"predicted iteration time per "
		"target\">\n", EX_CHART_WIDTH, rows * EX_CHART_BAR + 20, EX_CHART_WIDTH,
		rows * EX_CHART_BAR + 20);
	if (measured) {
		snprintf(label, sizeof(label), "%s (%s)", a->origin ? a->origin->id : a->device,
			 a->untimed ? "CPU times only" : "measured");
		ex_bar(f, 0, label, report_ms(a->measured_ns), max_ms, "measured");
	}
	for (size_t t = 0; t < a->ntargets; t++)
		ex_bar(f, t + (size_t)measured, a->targets[t].gpu->id,
		       report_ms(a->targets[t].iteration_ns), max_ms, "predicted");
	fputs("</svg>\n", f);
}

static void ex_summary(FILE *f, const struct analysis *a)
{
	int priced = 0;

	for (size_t t = 0; t < a->ntargets; t++)
		priced |= a->targets[t].price_usd_per_hour > 0;
	fputs("<table>\n<tr><th>target</th><th>predicted ms</th>", f);
	if (a->measured_ns > 0)
		fputs("<th>x measured</th>", f);
	fputs("<th>kernels ms</th><th>copies ms</th><th>GPU waits ms</th><th>memory-bound</th>"
	      "<th>compute-bound</th><th>methods</th>", f);
	if (priced)
		fputs("<th>USD/hour</th><th>USD per iteration</th><th>USD per million iterations</th>",
		      f);
	fputs("</tr>\n", f);
	for (size_t t = 0; t < a->ntargets; t++) {
		const struct analysis_target *at = &a->targets[t];
		double it_usd, m_usd;

		fputs("<tr><td>", f);
		ex_html(f, at->gpu->id);
		fprintf(f, "</td><td class=\"n\">%.3f</td>", report_ms(at->iteration_ns));
		if (a->measured_ns > 0)
			fprintf(f, "<td class=\"n\">%.2fx</td>", at->iteration_ns / a->measured_ns);
		fprintf(f, "<td class=\"n\">%.3f</td><td class=\"n\">%.3f</td><td class=\"n\">%.3f</td>"
			"<td class=\"n\">%.1f%%</td><td class=\"n\">%.1f%%</td><td>",
			report_ms(at->kernel_ns), report_ms(at->copy_ns), report_ms(at->gpu_wait_cpu_ns),
			report_pct(at->memory_bound_ns, at->kernel_ns),
			report_pct(at->compute_bound_ns, at->kernel_ns));
		for (int m = 0, first = 1; m < PRED_METHOD_COUNT; m++)
			if (at->method_ns[m] > 0) {
				fprintf(f, "%s%s %.1f%%", first ? "" : ", ",
					pred_method_name((enum pred_method)m),
					report_pct(at->method_ns[m], at->kernel_ns));
				first = 0;
			}
		fputs("</td>", f);
		if (priced && report_cost(at, &it_usd, &m_usd) == 0)
			fprintf(f, "<td class=\"n\">%.2f</td><td class=\"n\">%.3g</td>"
				"<td class=\"n\">%.2f</td>", at->price_usd_per_hour, it_usd, m_usd);
		else if (priced)
			fputs("<td></td><td></td><td></td>", f);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void ex_kernels(FILE *f, const struct analysis *a, const struct analysis_target *at,
		       size_t top)
{
	size_t n = top && top < at->ngroups ? top : at->ngroups;
	double iters = a->iterations ? a->iterations : 1;
	char name[101];

	fputs("<h2>", f);
	ex_html(f, at->gpu->id);
	fputs(" (", f);
	ex_html(f, at->gpu->name);
	fprintf(f, "): %.3f ms per iteration</h2>\n<table>\n<tr><th>kernel</th><th>op</th>"
		"<th>calls/it</th>", report_ms(at->iteration_ns));
	if (!ex_no_origin(a))
		fputs("<th>origin ms</th>", f);
	fputs("<th>pred ms</th><th>share</th><th>method</th><th>bound</th></tr>\n", f);
	for (size_t i = 0; i < n; i++) {
		const struct analysis_group *g = &at->groups[i];

		report_short_name(g->name, name, sizeof(name) - 1);
		fputs("<tr><td title=\"", f);
		ex_html(f, g->name);
		fputs("\">", f);
		ex_html(f, name);
		fprintf(f, "</td><td>%s</td><td class=\"n\">%.6g</td>", pred_op_name(g->op),
			(double)g->launches / iters);
		if (!ex_no_origin(a))
			fprintf(f, "<td class=\"n\">%.3f</td>", report_ms(g->origin_ns));
		fprintf(f, "<td class=\"n\">%.3f</td><td class=\"n\">%.1f%%</td><td>%s</td>"
			"<td>%s</td></tr>\n", report_ms(g->pred_ns), report_pct(g->pred_ns, at->kernel_ns),
			pred_method_name(g->method), ex_bound(g->memory_bound));
	}
	fputs("</table>\n", f);
}

int export_html(FILE *f, const struct analysis *a, size_t top)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<title>surfer-analyze: ", f);
	ex_html(f, a->device);
	fputs("</title>\n<style>\n"
	      "body{font-family:system-ui,sans-serif;margin:2em;color:#222}\n"
	      "table{border-collapse:collapse;margin:1em 0}\n"
	      "th,td{border:1px solid #ccc;padding:3px 8px;text-align:left}td:first-child{white-space:nowrap}\n"
	      "th{background:#eee}td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
	      "svg text{font-size:13px;fill:#222}\n"
	      "rect.predicted{fill:#4878b8}rect.measured{fill:#999}\n"
	      "</style>\n</head>\n<body>\n<h1>Predicted iteration time</h1>\n<p>", f);
	if (ex_no_origin(a)) {
		fputs("Input: ", f);
		ex_html(f, a->device);
		fprintf(f, "; %llu kernel launches per iteration.",
			(unsigned long long)a->kernels);
	} else {
		fputs("Origin: ", f);
		ex_html(f, a->origin ? a->origin->id : "?");
		fputs(" (", f);
		ex_html(f, a->device);
		fprintf(f, "); %llu kernels, %u configurations, %u iteration%s; measured %.3f ms per "
			"iteration%s.", (unsigned long long)a->kernels, a->configs, a->iterations,
			a->iterations == 1 ? "" : "s", report_ms(a->measured_ns),
			a->untimed ? " (no GPU times in the trace: kernels predicted from scratch)" : "");
	}
	fputs("</p>\n", f);
	if (a->warning[0]) {
		fputs("<p><strong>Warning:</strong> ", f);
		ex_html(f, a->warning);
		fputs("</p>\n", f);
	}
	ex_chart(f, a);
	ex_summary(f, a);
	for (size_t t = 0; t < a->ntargets; t++)
		ex_kernels(f, a, &a->targets[t], top);
	fputs("<p>Times are per iteration. Made by surfer-analyze " SURFER_VERSION ".</p>\n"
	      "</body>\n</html>\n", f);
	return ferror(f) ? -1 : 0;
}
