/*
 * chrome.c - streaming writer of the Chrome trace-event format (the JSON
 * object form: {"traceEvents": [...]}, as documented in Google's "Trace
 * Event Format" and read by Perfetto and chrome://tracing).
 *
 * Layout: pid 1 + lane (lane 0 the origin's measured replay, 1 + t target
 * t); within a process, tid 1 + k for the k-th CPU thread seen (launches as
 * instant events, waits as complete events) and tid 100001 + k for the k-th
 * stream (kernels and copies as complete events).  ts and dur are in us
 * with three decimals, so ns are kept exactly.  Process and thread names
 * are metadata events written at the end (the format allows them anywhere),
 * once every lane and id is known.
 *
 * Each event is printed directly; strings that come from the trace (kernel
 * names) are escaped by jansson once per configuration and cached, so a
 * trace of any length streams through in memory bounded by its
 * configurations, streams and threads.
 */
#include "analyzer/chrome.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#define CT_STREAM_TID 100001

struct ct_ids {
	uint64_t *ids;
	size_t n, cap;
	size_t last;              /* index of the last hit                     */
};

struct ct_name {
	const char *raw;          /* the span's name it was escaped from       */
	char *esc;
};

struct chrome_trace {
	FILE *f;
	long body;                /* offset of the first event                 */
	int nevents;              /* events written since the body (0 or more) */
	struct ct_ids streams, threads;
	struct ct_name *names;    /* per configuration: its last name, escaped */
	size_t nnames;
	size_t maxlane;           /* the largest lane seen                     */
	int failed;               /* 1 out of memory, 2 write, 3 restart       */
};

static void ct_fail(struct chrome_trace *ct, int why)
{
	if (!ct->failed)
		ct->failed = why;
}

/* Dense index of id (added when new); -1 when out of memory. */
static int64_t ct_index(struct ct_ids *m, uint64_t id)
{
	if (m->n && m->ids[m->last] == id)
		return (int64_t)m->last;
	for (size_t i = 0; i < m->n; i++)
		if (m->ids[i] == id)
			return (int64_t)(m->last = i);
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 16;
		uint64_t *p = realloc(m->ids, cap * sizeof(*p));
		if (!p)
			return -1;
		m->ids = p;
		m->cap = cap;
	}
	m->ids[m->n] = id;
	return (int64_t)(m->last = m->n++);
}

/* s as a JSON string literal (quotes included), malloc'd; bytes that are
 * not valid UTF-8 become '?'.  NULL when out of memory. */
static char *ct_escape(const char *s)
{
	json_t *j = json_string(s);
	char *out;

	if (!j) {
		char *copy = strdup(s);
		if (!copy)
			return NULL;
		for (char *p = copy; *p; p++)
			if ((unsigned char)*p >= 0x80)
				*p = '?';
		j = json_string(copy);
		free(copy);
		if (!j)
			return NULL;
	}
	out = json_dumps(j, JSON_ENCODE_ANY);
	json_decref(j);
	return out;
}

/* The escaped name of configuration c (cached; escaped anew where a
 * target names the configuration otherwise: a custom all-reduce that runs
 * as NCCL's there, analyze.c). */
static const char *ct_kernel_name(struct chrome_trace *ct, uint32_t c, const char *name)
{
	if (c >= ct->nnames) {
		size_t n = ct->nnames ? ct->nnames : 64;
		struct ct_name *p;

		while (n <= c)
			n *= 2;
		p = realloc(ct->names, n * sizeof(*p));
		if (!p)
			return NULL;
		memset(p + ct->nnames, 0, (n - ct->nnames) * sizeof(*p));
		ct->names = p;
		ct->nnames = n;
	}
	struct ct_name *e = &ct->names[c];
	if (!e->esc || e->raw != name) {
		free(e->esc);
		e->esc = ct_escape(name ? name : "(unnamed)");
		e->raw = name;
	}
	return e->esc;
}

struct chrome_trace *chrome_trace_new(FILE *f)
{
	struct chrome_trace *ct = calloc(1, sizeof(*ct));

	if (!ct)
		return NULL;
	ct->f = f;
	if (fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", f) == EOF)
		ct_fail(ct, 2);
	ct->body = ftell(f);
	return ct;
}

/* Starts an event (the separator before all but the first). */
static void ct_begin(struct chrome_trace *ct)
{
	if (ct->nevents++)
		fputs(",\n", ct->f);
}

static double ct_us(double ns)
{
	return ns / 1000.0;
}

/* The forgotten first replay of a trace out of order: back to the header. */
static void ct_restart(struct chrome_trace *ct)
{
	if (fflush(ct->f) || ct->body < 0 || fseek(ct->f, ct->body, SEEK_SET) ||
	    ftruncate(fileno(ct->f), ct->body))
		ct_fail(ct, 3);
	ct->nevents = 0;
}

static const char *ct_bound(int memory_bound)
{
	return memory_bound > 0 ? "memory" : memory_bound == 0 ? "compute" : "unknown";
}

void chrome_trace_span(void *ctx, const struct analysis_span *s)
{
	struct chrome_trace *ct = ctx;
	int64_t th, st = 0;
	unsigned pid = (unsigned)s->lane + 1;
	const char *name;

	if (s->kind == ANALYSIS_SPAN_RESTART) {
		ct_restart(ct);
		return;
	}
	if (!isfinite(s->start_ns) || !isfinite(s->end_ns) || !isfinite(s->launch_ns))
		return;
	if (s->lane > ct->maxlane)
		ct->maxlane = s->lane;
	th = ct_index(&ct->threads, s->thread);
	if (s->kind == ANALYSIS_SPAN_KERNEL || s->kind == ANALYSIS_SPAN_COPY)
		st = ct_index(&ct->streams, s->stream);
	if (th < 0 || st < 0) {
		ct_fail(ct, 1);
		return;
	}
	switch (s->kind) {
	case ANALYSIS_SPAN_KERNEL:
		name = ct_kernel_name(ct, s->config, s->name);
		if (!name) {
			ct_fail(ct, 1);
			return;
		}
		/* the launch on its CPU thread, then the kernel on its stream */
		ct_begin(ct);
		fprintf(ct->f, "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"launch\",\"name\":%s,\"pid\":%u,"
			"\"tid\":%lld,\"ts\":%.3f}", name, pid, (long long)th + 1, ct_us(s->launch_ns));
		ct_begin(ct);
		fprintf(ct->f, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":%s,\"pid\":%u,\"tid\":%lld,"
			"\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"grid\":[%u,%u,%u],\"block\":[%u,%u,%u],"
			"\"method\":\"%s\",\"bound\":\"%s\",\"origin_us\":%.3f,\"pred_us\":%.3f,"
			"\"counted\":%s}}",
			name, pid, (long long)st + CT_STREAM_TID, ct_us(s->start_ns),
			ct_us(s->end_ns - s->start_ns), s->grid[0], s->grid[1], s->grid[2], s->block[0],
			s->block[1], s->block[2], s->lane ? pred_method_name(s->method) : "measured",
			ct_bound(s->memory_bound), ct_us(s->origin_ns), ct_us(s->end_ns - s->start_ns),
			s->counted ? "true" : "false");
		break;
	case ANALYSIS_SPAN_COPY:
		ct_begin(ct);
		fprintf(ct->f, "{\"ph\":\"X\",\"cat\":\"copy\",\"name\":\"%s\",\"pid\":%u,\"tid\":%lld,"
			"\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"origin_us\":%.3f,\"pred_us\":%.3f,"
			"\"counted\":%s}}",
			s->name, pid, (long long)st + CT_STREAM_TID, ct_us(s->start_ns),
			ct_us(s->end_ns - s->start_ns), ct_us(s->origin_ns),
			ct_us(s->end_ns - s->start_ns), s->counted ? "true" : "false");
		break;
	case ANALYSIS_SPAN_WAIT:
		ct_begin(ct);
		fprintf(ct->f, "{\"ph\":\"X\",\"cat\":\"wait\",\"name\":\"%s\",\"pid\":%u,\"tid\":%lld,"
			"\"ts\":%.3f,\"dur\":%.3f}",
			s->name, pid, (long long)th + 1, ct_us(s->start_ns),
			ct_us(s->end_ns - s->start_ns));
		break;
	case ANALYSIS_SPAN_ITERATION:
		ct_begin(ct);
		fprintf(ct->f, "{\"ph\":\"i\",\"s\":\"p\",\"cat\":\"iteration\",\"name\":\"iteration\","
			"\"pid\":%u,\"tid\":%lld,\"ts\":%.3f}", pid, (long long)th + 1,
			ct_us(s->start_ns));
		break;
	default:
		break;
	}
}

/* A metadata event: name (process_name, thread_name, ..._sort_index) of
 * pid/tid with args {key: value} (value already JSON). */
static void ct_meta(struct chrome_trace *ct, const char *name, unsigned pid, long long tid,
		    const char *key, const char *value)
{
	ct_begin(ct);
	fprintf(ct->f, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%u,\"tid\":%lld,\"args\":{\"%s\":%s}}",
		name, pid, tid, key, value);
}

/* Process name and sort index of lane l. */
static int ct_process(struct chrome_trace *ct, const struct analysis *a, size_t l)
{
	char label[256], num[32], *esc;

	if (l == 0)
		snprintf(label, sizeof(label), "%s %s (%s)", a->origin ? a->origin->id : "origin",
			 a->untimed ? "estimated, the trace has no GPU times" : "measured", a->device);
	else if (l - 1 < a->ntargets)
		snprintf(label, sizeof(label), "%s predicted (%s)", a->targets[l - 1].gpu->id,
			 a->targets[l - 1].gpu->name);
	else
		snprintf(label, sizeof(label), "lane %zu", l);
	esc = ct_escape(label);
	if (!esc)
		return -1;
	ct_meta(ct, "process_name", (unsigned)l + 1, 0, "name", esc);
	free(esc);
	snprintf(num, sizeof(num), "%zu", l);
	ct_meta(ct, "process_sort_index", (unsigned)l + 1, 0, "sort_index", num);
	return 0;
}

int chrome_trace_finish(struct chrome_trace *ct, const struct analysis *a, char *err,
			size_t errlen)
{
	size_t lanes = a->ntargets + 1;
	char label[64], num[32];

	if (ct->maxlane + 1 > lanes)
		lanes = ct->maxlane + 1;
	/* a built trace (--model) measured nothing: no origin lane */
	for (size_t l = a->origin ? 0 : 1; l < lanes && !ct->failed; l++) {
		if (ct_process(ct, a, l) < 0) {
			ct_fail(ct, 1);
			break;
		}
		for (size_t k = 0; k < ct->threads.n; k++) {
			snprintf(label, sizeof(label), "\"CPU thread %llu\"",
				 (unsigned long long)ct->threads.ids[k]);
			ct_meta(ct, "thread_name", (unsigned)l + 1, (long long)k + 1, "name", label);
			snprintf(num, sizeof(num), "%zu", k);
			ct_meta(ct, "thread_sort_index", (unsigned)l + 1, (long long)k + 1,
				"sort_index", num);
		}
		for (size_t k = 0; k < ct->streams.n; k++) {
			long long tid = (long long)k + CT_STREAM_TID;

			snprintf(label, sizeof(label), "\"stream %llu\"",
				 (unsigned long long)ct->streams.ids[k]);
			ct_meta(ct, "thread_name", (unsigned)l + 1, tid, "name", label);
			snprintf(num, sizeof(num), "%lld", tid);
			ct_meta(ct, "thread_sort_index", (unsigned)l + 1, tid, "sort_index", num);
		}
	}
	fputs("\n]}\n", ct->f);
	if (!ct->failed && (ferror(ct->f) || fflush(ct->f)))
		ct_fail(ct, 2);
	switch (ct->failed) {
	case 0:
		return 0;
	case 1:
		snprintf(err, errlen, "out of memory");
		break;
	case 3:
		snprintf(err, errlen, "the trace is out of order and the output cannot be rewound "
				      "(write it to a regular file)");
		break;
	default:
		snprintf(err, errlen, "%s", strerror(errno ? errno : EIO));
		break;
	}
	return -1;
}

void chrome_trace_free(struct chrome_trace *ct)
{
	if (!ct)
		return;
	free(ct->streams.ids);
	free(ct->threads.ids);
	for (size_t i = 0; i < ct->nnames; i++)
		free(ct->names[i].esc);
	free(ct->names);
	free(ct);
}
