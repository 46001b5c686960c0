/*
 * check_outputs.c - the outputs of surfer-analyze beyond the text report:
 * the timeline's placement callback on a hand-worked case, the spans of a
 * whole analysis against the GPU times recorded in the trace (read back
 * independently with the trace reader), the Chrome trace document parsed
 * back with jansson (also after a restart of an out-of-order trace), and
 * the cost arithmetic.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "analyzer/analyze.h"
#include "analyzer/chrome.h"
#include "analyzer/export.h"
#include "analyzer/report.h"
#include "analyzer/timeline.h"
#include "tests/synth.h"
#include "trace/trace.h"
#include "tests/check_run.h"

/* ---- the timeline callback ------------------------------------------ */

#define MAX_PLACED 64
static struct tl_placed placed[MAX_PLACED];
static struct tl_event placed_ev[MAX_PLACED];
static int nplaced;

static void on_placed(void *ctx, const struct tl_placed *p)
{
	(void)ctx;
	ck_assert_int_lt(nplaced, MAX_PLACED);
	placed_ev[nplaced] = *p->ev;
	placed[nplaced] = *p;
	placed[nplaced].ev = &placed_ev[nplaced];
	nplaced++;
}

static void add(struct timeline *tl, enum tl_kind kind, double cpu, double cpu_end, double start,
		double end)
{
	struct tl_event e;

	memset(&e, 0, sizeof(e));
	e.kind = kind;
	e.stream = 7;
	e.thread = 1;
	e.cpu_ns = cpu;
	e.cpu_end_ns = cpu_end;
	e.start_ns = start;
	e.end_ns = end;
	e.has_gpu = kind == TL_KERNEL;
	ck_assert_int_eq(timeline_add(tl, &e), 0);
}

/* Kernels A (launched at 0, ran 10-110) and B (launched at 5, queued
 * behind A, ran 110-160), then a stream sync called at 20 that returned at
 * 170.  Target 0 keeps the measured durations, target 1 halves them.
 * By hand, from the rules in timeline.c:
 *   lanes 0 and 1: A 10-110, B 110-160, wait 20-170;
 *   lane 2: A starts at its launch 0 + measured gap 10 = 10, lasts 50 ->
 *     10-60; B: gap 110 - max(5, 110) = 0, starts at max(5, 60) = 60,
 *     lasts 25 -> 60-85; the sync's wake-up delay is 170 - max(20, 160) =
 *     10, so the CPU resumes at max(20, 85) + 10 = 95: wait 20-95. */
static void hand_case(struct timeline *tl)
{
	add(tl, TL_KERNEL, 0, 0, 10, 110);
	add(tl, TL_KERNEL, 5, 5, 110, 160);
	add(tl, TL_SYNC, 20, 170, 0, 0);
}

START_TEST(timeline_callback_hand_case)
{
	static const struct tl_kernel_pred pred[2] = {{1.0, 0, 0}, {0.5, 0, 0}};
	static const struct {
		uint32_t lane;
		int wait;
		double launch, start, end, meas;
	} want[] = {
		{0, 0, 0, 10, 110, 100}, {1, 0, 0, 10, 110, 100}, {2, 0, 0, 10, 60, 100},
		{0, 0, 5, 110, 160, 50}, {1, 0, 5, 110, 160, 50}, {2, 0, 5, 60, 85, 50},
		{0, 1, 20, 20, 170, 0},  {1, 1, 20, 20, 170, 0},  {2, 1, 20, 20, 95, 0},
	};
	struct tl_target tgt[2];
	struct timeline *tl;

	for (int t = 0; t < 2; t++)
		for (int c = 0; c < TL_COPY_CLASS_COUNT; c++)
			tgt[t].copy_scale[c] = 1.0;
	tl = timeline_new(2, 1, pred, tgt);
	ck_assert_ptr_nonnull(tl);
	nplaced = 0;
	timeline_set_callback(tl, on_placed, NULL);
	hand_case(tl);
	ck_assert_int_eq(nplaced, (int)(sizeof(want) / sizeof(want[0])));
	for (int i = 0; i < nplaced; i++) {
		ck_assert_uint_eq(placed[i].lane, want[i].lane);
		ck_assert_int_eq(placed[i].cpu_wait, want[i].wait);
		ck_assert_msg(placed[i].launch_ns == want[i].launch && placed[i].start_ns == want[i].start &&
				      placed[i].end_ns == want[i].end,
			      "span %d: %.1f %.1f-%.1f, want %.1f %.1f-%.1f", i, placed[i].launch_ns,
			      placed[i].start_ns, placed[i].end_ns, want[i].launch, want[i].start,
			      want[i].end);
		if (!want[i].wait)
			ck_assert(placed[i].meas_ns == want[i].meas);
		ck_assert_int_eq(placed[i].counted, 1);
	}
	timeline_free(tl);
}
END_TEST

START_TEST(timeline_callback_changes_nothing)
{
	static const struct tl_kernel_pred pred[2] = {{1.0, 0, 0}, {0.5, 0, 0}};
	struct tl_target tgt[2];
	struct tl_summary m[2], p[2][2];

	for (int t = 0; t < 2; t++)
		for (int c = 0; c < TL_COPY_CLASS_COUNT; c++)
			tgt[t].copy_scale[c] = 1.0;
	for (int with = 0; with < 2; with++) {
		struct timeline *tl = timeline_new(2, 1, pred, tgt);

		ck_assert_ptr_nonnull(tl);
		nplaced = 0;
		if (with)
			timeline_set_callback(tl, on_placed, NULL);
		hand_case(tl);
		timeline_finish(tl, &m[with], p[with]);
		timeline_free(tl);
	}
	ck_assert(memcmp(&m[0], &m[1], sizeof(m[0])) == 0);
	ck_assert(memcmp(p[0], p[1], sizeof(p[0])) == 0);
	/* lane 2 by hand: the window runs from the first event (0) to the
	 * later of the last CPU time (95) and the last GPU work (85) */
	ck_assert(p[1][1].iteration_ns == 95);
	ck_assert(m[1].iteration_ns == 170);
}
END_TEST

/* ---- spans of a whole analysis ---------------------------------------- */

static char path[256], out_path[256];

static void tmpname(char *buf, size_t len)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	snprintf(buf, len, "%s/check_outputs-XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(buf);
	ck_assert_int_ge(fd, 0);
	close(fd);
}

static void setup(void)
{
	tmpname(path, sizeof(path));
	tmpname(out_path, sizeof(out_path));
}

static void teardown(void)
{
	unlink(path);
	unlink(out_path);
}

struct kspan {
	double start, end;
};

struct collect {
	struct kspan *k[3];       /* kernel spans per lane                     */
	size_t nk[3], cap[3];
	int restarts;
};

static void collect_span(void *ctx, const struct analysis_span *s)
{
	struct collect *c = ctx;

	if (s->kind == ANALYSIS_SPAN_RESTART) {
		c->restarts++;
		memset(c->nk, 0, sizeof(c->nk));
		return;
	}
	if (s->kind != ANALYSIS_SPAN_KERNEL)
		return;
	ck_assert_uint_lt(s->lane, 3);
	if (c->nk[s->lane] == c->cap[s->lane]) {
		c->cap[s->lane] = c->cap[s->lane] ? 2 * c->cap[s->lane] : 64;
		c->k[s->lane] = realloc(c->k[s->lane], c->cap[s->lane] * sizeof(struct kspan));
		ck_assert_ptr_nonnull(c->k[s->lane]);
	}
	c->k[s->lane][c->nk[s->lane]].start = s->start_ns;
	c->k[s->lane][c->nk[s->lane]++].end = s->end_ns;
	ck_assert_ptr_nonnull(s->name);
	ck_assert_uint_gt(s->block[0], 0);
}

static int kspan_cmp(const void *pa, const void *pb)
{
	const struct kspan *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->end > b->end) - (a->end < b->end);
}

/* The kernels' recorded GPU times relative to the first CPU time in the
 * trace, sorted: read with the trace reader, not the analysis. */
static size_t recorded_kernels(const char *p, struct kspan **out)
{
	struct trace_reader *r;
	struct trace_record rec;
	char err[160];
	size_t n = 0, cap = 64;
	int64_t t0 = 0;
	int have_t0 = 0;
	struct kspan *k = malloc(cap * sizeof(*k));

	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(trace_reader_open(&r, p, err, sizeof(err)), 0);
	while (trace_reader_next(r, &rec, err, sizeof(err)) == 1) {
		uint64_t cpu = 0;

		switch (rec.type) {
		case TRACE_KERNEL: cpu = rec.u.kernel.cpu_ns; break;
		case TRACE_MEMCPY: case TRACE_MEMSET: cpu = rec.u.copy.cpu_ns; break;
		case TRACE_SYNC: cpu = rec.u.sync.cpu_ns; break;
		case TRACE_MARKER: cpu = rec.u.marker.cpu_ns; break;
		default: break;
		}
		if (cpu && !have_t0) {
			t0 = (int64_t)cpu;
			have_t0 = 1;
		}
		if (rec.type != TRACE_KERNEL || (rec.u.kernel.flags & TRACE_KF_CAPTURED))
			continue;
		if (n == cap) {
			cap *= 2;
			k = realloc(k, cap * sizeof(*k));
			ck_assert_ptr_nonnull(k);
		}
		k[n].start = (double)((int64_t)rec.u.kernel.start_ns - t0);
		k[n++].end = (double)((int64_t)rec.u.kernel.end_ns - t0);
	}
	trace_reader_free(r);
	qsort(k, n, sizeof(*k), kspan_cmp);
	*out = k;
	return n;
}

static void collect_release(struct collect *c)
{
	for (int l = 0; l < 3; l++)
		free(c->k[l]);
}

/* Origin == target 0 (identity): the measured lane and target 0 replay
 * exactly the recorded GPU times; target 1 has one span per launch too. */
static void check_identity_spans(int shuffle)
{
	const struct gpu_spec *targets[2] = {gpu_find("a100-sxm4-40"), gpu_find("t4")};
	struct analysis_options o = {.targets = targets, .ntargets = 2, .method = PRED_WAVE};
	struct synth_opts so;
	struct collect c;
	struct analysis *a = NULL;
	struct kspan *rec;
	size_t n;
	char err[256];

	memset(&c, 0, sizeof(c));
	synth_defaults(&so, "NVIDIA A100-SXM4-40GB");
	so.iterations = 2;
	so.shuffle = shuffle;
	ck_assert_int_eq(synth_write(path, &so), 0);
	o.on_span = collect_span;
	o.span_ctx = &c;
	o.reorder_window = shuffle ? 1 : 0;   /* a 1-event window forces the restart */
	ck_assert_int_eq(analysis_run(path, &o, &a, err, sizeof(err)), 0);
	ck_assert_int_eq(c.restarts, shuffle ? 1 : 0);
	ck_assert_int_eq(a->sorted_in_memory, shuffle);
	n = recorded_kernels(path, &rec);
	ck_assert_uint_eq(n, a->kernels);
	for (int l = 0; l < 3; l++) {
		ck_assert_uint_eq(c.nk[l], n);
		qsort(c.k[l], c.nk[l], sizeof(struct kspan), kspan_cmp);
	}
	for (size_t i = 0; i < n; i++)
		for (int l = 0; l < 2; l++)
			ck_assert_msg(fabs(c.k[l][i].start - rec[i].start) < 1e-3 &&
					      fabs(c.k[l][i].end - rec[i].end) < 1e-3,
				      "lane %d kernel %zu: %.1f-%.1f, recorded %.1f-%.1f", l, i,
				      c.k[l][i].start, c.k[l][i].end, rec[i].start, rec[i].end);
	free(rec);
	collect_release(&c);
	analysis_free(a);
}

START_TEST(analysis_spans_identity)
{
	check_identity_spans(0);
}
END_TEST

START_TEST(analysis_spans_after_restart)
{
	check_identity_spans(1);
}
END_TEST

/* ---- the Chrome trace -------------------------------------------------- */

static void check_chrome(int shuffle)
{
	const struct gpu_spec *targets[2] = {gpu_find("h100-sxm"), gpu_find("t4")};
	struct analysis_options o = {.targets = targets, .ntargets = 2, .method = PRED_WAVE};
	struct synth_opts so;
	struct analysis *a = NULL;
	struct chrome_trace *ct;
	json_t *doc, *evs, *ev;
	json_error_t jerr;
	size_t i, kernels[4] = {0}, names[4] = {0};
	double busy[4] = {0};
	char err[256];
	FILE *f;

	synth_defaults(&so, "NVIDIA A100-SXM4-40GB");
	so.iterations = 3;
	so.shuffle = shuffle;
	ck_assert_int_eq(synth_write(path, &so), 0);
	f = fopen(out_path, "w");
	ck_assert_ptr_nonnull(f);
	ct = chrome_trace_new(f);
	ck_assert_ptr_nonnull(ct);
	o.on_span = chrome_trace_span;
	o.span_ctx = ct;
	o.reorder_window = shuffle ? 1 : 0;
	ck_assert_int_eq(analysis_run(path, &o, &a, err, sizeof(err)), 0);
	ck_assert_int_eq(chrome_trace_finish(ct, a, err, sizeof(err)), 0);
	chrome_trace_free(ct);
	ck_assert_int_eq(fclose(f), 0);

	doc = json_load_file(out_path, 0, &jerr);
	ck_assert_msg(doc != NULL, "not JSON: %s line %d", jerr.text, jerr.line);
	evs = json_object_get(doc, "traceEvents");
	ck_assert(json_is_array(evs));
	json_array_foreach(evs, i, ev) {
		const char *ph = json_string_value(json_object_get(ev, "ph"));
		const char *cat = json_string_value(json_object_get(ev, "cat"));
		const char *nm = json_string_value(json_object_get(ev, "name"));
		json_int_t pid = json_integer_value(json_object_get(ev, "pid"));

		ck_assert_ptr_nonnull(ph);
		ck_assert_ptr_nonnull(nm);
		ck_assert(pid >= 1 && pid <= 3);
		if (strcmp(ph, "M") == 0 && strcmp(nm, "process_name") == 0)
			names[pid]++;
		if (strcmp(ph, "X") == 0 && cat && strcmp(cat, "kernel") == 0) {
			json_t *args = json_object_get(ev, "args");
			double dur = json_number_value(json_object_get(ev, "dur"));

			kernels[pid]++;
			ck_assert(json_is_array(json_object_get(args, "grid")));
			ck_assert(json_is_array(json_object_get(args, "block")));
			ck_assert(json_is_string(json_object_get(args, "method")));
			ck_assert(fabs(json_number_value(json_object_get(args, "pred_us")) - dur) < 1e-9);
			if (json_is_true(json_object_get(args, "counted")))
				busy[pid] += dur;
		}
	}
	for (int p = 1; p <= 3; p++) {
		ck_assert_uint_eq(names[p], 1);
		ck_assert_uint_eq(kernels[p], a->kernels);   /* one per launch per lane */
	}
	/* counted kernel time per iteration = the analysis' kernel time */
	ck_assert(fabs(busy[1] / a->iterations - a->measured_kernel_ns / 1e3) < 1e-2);
	for (int t = 0; t < 2; t++)
		ck_assert_msg(fabs(busy[t + 2] / a->iterations - a->targets[t].kernel_ns / 1e3) < 1e-2,
			      "target %d: %.3f us vs %.3f us", t, busy[t + 2] / a->iterations,
			      a->targets[t].kernel_ns / 1e3);
	json_decref(doc);
	analysis_free(a);
}

START_TEST(chrome_trace_document)
{
	check_chrome(0);
}
END_TEST

START_TEST(chrome_trace_after_restart)
{
	check_chrome(1);
}
END_TEST

/* ---- cost ---------------------------------------------------------------- */

START_TEST(cost_arithmetic)
{
	struct analysis_target t;
	double it, m;

	memset(&t, 0, sizeof(t));
	t.iteration_ns = 2e6;                 /* 2 ms */
	ck_assert_int_eq(report_cost(&t, NULL, &it, &m), -1);   /* no price */
	ck_assert(it == 0 && m == 0);
	/* 3.6 USD/hour = 0.001 USD/s; 0.002 s -> 2e-6 USD; a million -> 2 USD */
	t.price_usd_per_hour = 3.6;
	ck_assert_int_eq(report_cost(&t, NULL, &it, &m), 0);
	ck_assert(fabs(it - 2e-6) < 1e-15);
	ck_assert(fabs(m - 2.0) < 1e-9);
	/* 98.32 USD/hour for 250 ms: 98.32 / 3600 * 0.25 = 0.0068277... */
	t.price_usd_per_hour = 98.32;
	t.iteration_ns = 250e6;
	ck_assert_int_eq(report_cost(&t, NULL, &it, &m), 0);
	ck_assert(fabs(it - 0.00682777777777) < 1e-12);
	ck_assert(fabs(m - 6827.77777777) < 1e-5);
	/* a --model run on 4 GPUs pays for 4: 4 x 0.0068277... = 0.0273111... */
	struct report_model rm;
	memset(&rm, 0, sizeof(rm));
	rm.gpus = 4;
	ck_assert_int_eq(report_cost(&t, &rm, &it, &m), 0);
	ck_assert(fabs(it - 0.02731111111111) < 1e-12);
	/* 1000 tokens an iteration of 250 ms: 4000 tokens/s; a trace has none */
	rm.tokens_per_iteration = 1000;
	ck_assert(fabs(report_tokens_per_s(&t, &rm) - 4000.0) < 1e-9);
	ck_assert(report_tokens_per_s(&t, NULL) == 0);
}
END_TEST

/* ---- escaping in HTML and CSV ------------------------------------------ */

/* A hand-made analysis whose names carry markup, quotes and commas. */
static void hostile_analysis(struct analysis *a, struct analysis_target *t,
			     struct analysis_group *g)
{
	memset(a, 0, sizeof(*a));
	memset(t, 0, sizeof(*t));
	memset(g, 0, sizeof(*g) * 2);
	snprintf(a->device, sizeof(a->device), "GPU <b>\"&'");
	a->origin = gpu_find("a100-sxm4-40");
	a->iterations = 2;
	a->kernels = 6;
	a->measured_ns = 3e6;
	a->ntargets = 1;
	a->targets = t;
	t->gpu = gpu_find("h100-sxm");
	t->iteration_ns = 1.5e6;
	t->kernel_ns = 1e6;
	t->price_usd_per_hour = 7.2;
	t->groups = g;
	t->ngroups = 2;
	g[0].name = "<script>alert(\"x\")</script>";
	g[0].launches = 4;
	g[0].pred_ns = 0.75e6;
	g[0].origin_ns = 1.5e6;
	g[1].name = "a,\"b\"";
	g[1].launches = 2;
	g[1].pred_ns = 0.25e6;
	g[1].origin_ns = 0.5e6;
}

static char *render(int html, const struct analysis *a)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(html ? export_html(f, a, NULL, 0) : export_csv(f, a), 0);
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

START_TEST(html_escapes_everything)
{
	struct analysis a;
	struct analysis_target t;
	struct analysis_group g[2];
	char *h;

	hostile_analysis(&a, &t, g);
	h = render(1, &a);
	ck_assert_ptr_null(strstr(h, "<script"));
	ck_assert_ptr_null(strstr(h, "<b>"));
	ck_assert_ptr_nonnull(strstr(h, "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"));
	ck_assert_ptr_nonnull(strstr(h, "GPU &lt;b&gt;&quot;&amp;&#39;"));
	ck_assert_ptr_nonnull(strstr(h, "<svg"));
	ck_assert_ptr_nonnull(strstr(h, "h100-sxm"));
	/* 7.2 USD/hour x 1.5 ms = 7.2 / 3600 x 0.0015 = 3e-6 USD, in fixed
	 * notation to three digits; 3 USD a million */
	ck_assert_ptr_nonnull(strstr(h, "<td class=\"n\">0.00000300</td><td class=\"n\">3.00</td>"));
	free(h);
}
END_TEST

START_TEST(csv_quotes_and_rows)
{
	struct analysis a;
	struct analysis_target t;
	struct analysis_group g[2];
	char *c;

	hostile_analysis(&a, &t, g);
	c = render(0, &a);
	/* 4 launches over 2 iterations = 2 calls per iteration; RFC 4180 quoting */
	ck_assert_str_eq(c, "target,kernel,calls_per_iteration,origin_ms,predicted_ms,method,bound,op\n"
			    "h100-sxm,\"<script>alert(\"\"x\"\")</script>\",2,1.500000,0.750000,auto,compute,unknown\n"
			    "h100-sxm,\"a,\"\"b\"\"\",1,0.500000,0.250000,auto,compute,unknown\n");
	free(c);
}
END_TEST

static Suite *outputs_suite(void)
{
	Suite *s = suite_create("outputs");
	TCase *tc = tcase_create("timeline");

	tcase_add_test(tc, timeline_callback_hand_case);
	tcase_add_test(tc, timeline_callback_changes_nothing);
	tcase_add_test(tc, cost_arithmetic);
	tcase_add_test(tc, html_escapes_everything);
	tcase_add_test(tc, csv_quotes_and_rows);
	suite_add_tcase(s, tc);
	tc = tcase_create("analysis");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, analysis_spans_identity);
	tcase_add_test(tc, analysis_spans_after_restart);
	tcase_add_test(tc, chrome_trace_document);
	tcase_add_test(tc, chrome_trace_after_restart);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(outputs_suite());
}
