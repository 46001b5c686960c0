/*
 * export.c - CSV and HTML renderings of an analysis.
 *
 * CSV follows RFC 4180: fields with a comma, a quote or a line break are
 * quoted, quotes doubled.  The HTML report is one file: inline CSS, an
 * inline SVG chart, no scripts, fonts or images from elsewhere; every text
 * from the trace (kernel and device names) is escaped for HTML.
 */
#include "analyzer/export.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "analyzer/report.h"
#include "trace/surfer_err.h"

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

/* The parts of a target's bar, in the order drawn: kernel time by bound
 * (collectives apart), copies, and the GPU's waits for the CPU.  They are
 * what the iteration is made of, not a partition of it: kernels of several
 * streams overlap, so the parts can add up to more than the iteration (the
 * mark on the bar). */
enum { EX_COMPUTE, EX_MEMORY, EX_UNKNOWN, EX_COMM, EX_COPY, EX_WAIT, EX_NPARTS };
static const char *const ex_part_class[EX_NPARTS] = {
	"compute", "memory", "unknown", "comm", "copy", "wait",
};
static const char *const ex_part_name[EX_NPARTS] = {
	"compute-bound kernels", "memory-bound kernels", "kernels of unknown bound",
	"communication kernels", "copies", "GPU waits on the CPU",
};

/* The parts of t in ms.  Collectives are in kernel_ns and its bound split
 * for a trace, apart from both for --model: taken out of the bound split
 * (unknown first) only when the split holds more than the other ops. */
static void ex_parts(const struct analysis_target *t, double *ms)
{
	double comm = t->op_ns[PRED_OP_COMM], other = 0;
	double b[3] = { t->compute_bound_ns, t->memory_bound_ns, t->unknown_bound_ns };

	for (int o = 0; o < PRED_OP_COUNT; o++)
		if (o != PRED_OP_COMM)
			other += t->op_ns[o];
	if (comm > 0 && b[0] + b[1] + b[2] > other + 1e-6 * (other + comm)) {
		double left = comm;
		for (int i = 2; i >= 0 && left > 0; i--) {
			double take = b[i] < left ? b[i] : left;
			b[i] -= take;
			left -= take;
		}
	}
	ms[EX_COMPUTE] = report_ms(b[0]);
	ms[EX_MEMORY] = report_ms(b[1]);
	ms[EX_UNKNOWN] = report_ms(b[2]);
	ms[EX_COMM] = report_ms(comm);
	ms[EX_COPY] = report_ms(t->copy_ns);
	ms[EX_WAIT] = report_ms(t->gpu_wait_cpu_ns);
}

/* One target's bar: its parts stacked, a mark at the predicted iteration
 * and the iteration's time right of the bar. */
static void ex_stacked(FILE *f, size_t row, const struct analysis_target *t, double max_ms)
{
	double span = EX_CHART_WIDTH - EX_CHART_LABEL - EX_CHART_VALUE;
	double y = 10 + (double)row * EX_CHART_BAR, x = EX_CHART_LABEL, ms[EX_NPARTS];
	double it = report_ms(t->iteration_ns);

	ex_parts(t, ms);
	fprintf(f, "<text x=\"%d\" y=\"%.0f\" text-anchor=\"end\">", EX_CHART_LABEL - 8, y + 15);
	ex_html(f, t->gpu->id);
	fputs("</text>\n", f);
	for (int p = 0; p < EX_NPARTS; p++) {
		double w = max_ms > 0 && isfinite(ms[p]) && ms[p] > 0 ? span * ms[p] / max_ms : 0;
		if (!(w > 0))
			continue;
		fprintf(f, "<rect class=\"%s\" x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%d\">"
			"<title>", ex_part_class[p], x, y, w, EX_CHART_BAR - 6);
		ex_html(f, t->gpu->id);
		fprintf(f, ": %s %.3f ms</title></rect>\n", ex_part_name[p], ms[p]);
		x += w;
	}
	double xi = EX_CHART_LABEL + (max_ms > 0 && isfinite(it) ? span * it / max_ms : 0);
	fprintf(f, "<line class=\"iteration\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\">"
		"<title>predicted iteration %.3f ms</title></line>\n", xi, xi, y - 2, y + EX_CHART_BAR - 4,
		it);
	fprintf(f, "<text x=\"%.1f\" y=\"%.0f\">%.3f ms</text>\n", (x > xi ? x : xi) + 6, y + 15, it);
}

static void ex_chart(FILE *f, const struct analysis *a)
{
	int measured = !ex_no_origin(a) && a->measured_ns > 0;
	size_t rows = a->ntargets + (size_t)measured;
	double max_ms = measured ? report_ms(a->measured_ns) : 0;
	char label[192];

	for (size_t t = 0; t < a->ntargets; t++) {
		double ms[EX_NPARTS], sum = 0;
		ex_parts(&a->targets[t], ms);
		for (int p = 0; p < EX_NPARTS; p++)
			sum += isfinite(ms[p]) ? ms[p] : 0;
		if (isfinite(a->targets[t].iteration_ns) && report_ms(a->targets[t].iteration_ns) > max_ms)
			max_ms = report_ms(a->targets[t].iteration_ns);
		if (sum > max_ms)
			max_ms = sum;
	}
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
		ex_stacked(f, t + (size_t)measured, &a->targets[t], max_ms);
	fputs("</svg>\n<p class=\"key\">", f);
	for (int p = 0; p < EX_NPARTS; p++)
		fprintf(f, "<span class=\"%s\">&#9632;</span> %s%s", ex_part_class[p], ex_part_name[p],
			p + 1 < EX_NPARTS ? " &nbsp; " : "");
	fputs(" &nbsp; | the predicted iteration</p>\n", f);
}

static void ex_summary(FILE *f, const struct analysis *a, const struct report_model *rm)
{
	int priced = 0, tokens = 0, memory = rm && rm->memory.peak > 0, verdicts = 0;
	char v[160];

	for (size_t t = 0; t < a->ntargets; t++) {
		priced |= a->targets[t].price_usd_per_hour > 0;
		tokens |= report_tokens_per_s(&a->targets[t], rm) > 0;
		report_verdict(a, &a->targets[t], v, sizeof(v));
		verdicts |= v[0] != 0;
	}
	fputs("<table>\n<tr><th>target</th><th>predicted ms</th>", f);
	if (a->measured_ns > 0)
		fputs("<th>x measured</th>", f);
	fputs("<th>kernels ms</th><th>copies ms</th><th>GPU waits ms</th><th>memory-bound</th>"
	      "<th>compute-bound</th><th>methods</th>", f);
	if (priced)
		fputs("<th>USD/hour</th><th>USD per iteration</th><th>USD per million iterations</th>",
		      f);
	if (tokens)
		fprintf(f, "<th>tokens/s</th>%s", priced ? "<th>USD per million tokens</th>" : "");
	if (memory)
		fputs("<th>memory needed GiB</th><th>usable GiB</th><th>fits</th><th>largest batch</th>", f);
	if (verdicts)
		fputs("<th>verdict</th>", f);
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
		char usd[32];
		int has_cost = report_cost(at, rm, &it_usd, &m_usd) == 0;
		if (priced && has_cost) {
			report_usd(it_usd, usd, sizeof(usd));
			fprintf(f, "<td class=\"n\">%.2f</td><td class=\"n\">%s</td>"
				"<td class=\"n\">%.2f</td>", at->price_usd_per_hour, usd, m_usd);
		} else if (priced) {
			fputs("<td></td><td></td><td></td>", f);
		}
		if (tokens) {
			fprintf(f, "<td class=\"n\">%.0f</td>", report_tokens_per_s(at, rm));
			if (priced && has_cost && rm->tokens_per_iteration > 0) {
				report_usd(it_usd / rm->tokens_per_iteration * 1e6, usd, sizeof(usd));
				fprintf(f, "<td class=\"n\">%s</td>", usd);
			} else if (priced) {
				fputs("<td></td>", f);
			}
		}
		if (memory) {
			double have = gpu_mem_usable_bytes(at->gpu);
			fprintf(f, "<td class=\"n\">%.2f</td><td class=\"n\">%.2f</td><td>%s</td>",
				rm->memory.peak / 1073741824.0, have / 1073741824.0,
				rm->memory.peak <= have ? "yes" : "no");
			if (rm->max_batch_fits)
				fprintf(f, "<td class=\"n\">%u</td>", rm->max_batch_fits[t]);
			else    /* sequences of given lengths: no batch to grow */
				fputs("<td class=\"n\">-</td>", f);
		}
		if (verdicts) {
			report_verdict(a, at, v, sizeof(v));
			fputs("<td>", f);
			ex_html(f, v);
			fputs("</td>", f);
		}
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

int export_html(FILE *f, const struct analysis *a, const struct report_model *m, size_t top)
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
	      "rect.compute{fill:#4878b8}rect.memory{fill:#8fb3de}rect.unknown{fill:#c8c8c8}\n"
	      "rect.comm{fill:#b86b48}rect.copy{fill:#e0b050}rect.wait{fill:#d9534f}\n"
	      "line.iteration{stroke:#222;stroke-width:2}\n"
	      ".compute{color:#4878b8}.memory{color:#8fb3de}.unknown{color:#c8c8c8}.comm{color:#b86b48}"
	      ".copy{color:#e0b050}.wait{color:#d9534f}\n"
	      "dl.legend dt{font-weight:bold;float:left;clear:left;width:7em}"
	      "dl.legend dd{margin-left:8em}\n"
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
	ex_summary(f, a, m);
	for (size_t t = 0; t < a->ntargets; t++)
		ex_kernels(f, a, &a->targets[t], top);
	size_t nl;
	const struct report_legend_item *l = report_legend(!ex_no_origin(a), &nl);
	fputs("<h2>Legend</h2>\n<dl class=\"legend\">\n", f);
	for (size_t i = 0; i < nl; i++) {
		fputs("<dt>", f);
		ex_html(f, l[i].term);
		fputs("</dt><dd>", f);
		ex_html(f, l[i].text);
		fputs("</dd>\n", f);
	}
	fputs("</dl>\n<p>Times are per iteration. Made by surfer-analyze " SURFER_VERSION ".</p>\n"
	      "</body>\n</html>\n", f);
	return ferror(f) ? -1 : 0;
}

FILE *export_open(const char *what, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "w");

	if (!f)
		snprintf(err, errlen, "cannot write %s '%s': %s", what, path, strerror(errno));
	return f;
}

int export_close(FILE *f, int rc, const char *what, const char *path, char *err, size_t errlen)
{
	int bad = rc < 0 || ferror(f);

	if (fclose(f))
		bad = 1;
	if (!bad)
		return 0;
	snprintf(err, errlen, "cannot write %s '%s': %s", what, path,
		 errno ? strerror(errno) : "write error");
	return SURFER_EWRITE;
}

int export_write_file(enum export_kind kind, const char *what, const char *path,
		      const struct analysis *a, const struct report_model *m, size_t top, char *err,
		      size_t errlen)
{
	FILE *f = export_open(what, path, err, errlen);

	if (!f)
		return SURFER_EIO;
	return export_close(f, kind == EXPORT_HTML ? export_html(f, a, m, top) : export_csv(f, a), what,
			    path, err, errlen);
}
