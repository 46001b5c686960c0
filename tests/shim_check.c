/*
 * shim_check.c - compares a recorded trace with what the fake driver saw.
 *
 *   shim_check TRACE FAKELOG [--kernels N] [--copies N] [--timing NAME]
 *              [--traced-names] [--no-durations] [--lib-calls N] [--stacks]
 *              [--captured N] [--replays N] [--copy-times]
 *
 * The fake's log lists every launch it received with the thread, name,
 * dimensions, attributes, stream id and virtual start/end.  For each thread
 * of the trace, its kernels in sequence order must equal the fake's lines
 * of that thread in log order: same name, grid, block, cluster, dynamic and
 * static shared memory, registers, stream id, and (unless --no-durations)
 * end - start equal to the fake's virtual duration within 2 ns.  With
 * --traced-names, log lines of names absent from the trace are skipped
 * (capture windows).  Kernels launched into a stream capture ran nowhere:
 * they are not compared, only counted (--captured N); nor are graph
 * replays timed whole by events (cuGraphLaunch records, --replays N: each
 * must have GPU times; the fake's lines of their kernels are skipped with
 * --traced-names).  --copy-times: every
 * copy and set has GPU times, lasting bytes / 100 ns (the fake's rule).  Exit 0 when
 * everything matches, 1 with a reason otherwise, 2 on bad input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace.h"

struct k {
	long tid;
	char name[128];
	unsigned g[3], b[3], c[3], dyn, regs, smem;
	unsigned long long stream, dur, seq;
	int used;
};

static int cmp_seq(const void *a, const void *b)
{
	const struct k *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int fail(const char *fmt, const char *a, long b)
{
	fprintf(stderr, "shim_check: ");
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: shim_check TRACE FAKELOG [options]\n");
		return 2;
	}
	long want_k = -1, want_c = -1, want_lib = -1, want_cap = -1, ncap = 0, want_rep = -1, nrep = 0;
	const char *timing = NULL;
	int traced_names = 0;
	int durations = 1, stacks = 0, copy_times = 0;
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--kernels") && i + 1 < argc)
			want_k = atol(argv[++i]);
		else if (!strcmp(argv[i], "--copies") && i + 1 < argc)
			want_c = atol(argv[++i]);
		else if (!strcmp(argv[i], "--captured") && i + 1 < argc)
			want_cap = atol(argv[++i]);
		else if (!strcmp(argv[i], "--replays") && i + 1 < argc)
			want_rep = atol(argv[++i]);
		else if (!strcmp(argv[i], "--lib-calls") && i + 1 < argc)
			want_lib = atol(argv[++i]);
		else if (!strcmp(argv[i], "--timing") && i + 1 < argc)
			timing = argv[++i];
		else if (!strcmp(argv[i], "--traced-names"))
			traced_names = 1;
		else if (!strcmp(argv[i], "--no-durations"))
			durations = 0;
		else if (!strcmp(argv[i], "--copy-times"))
			copy_times = 1;
		else if (!strcmp(argv[i], "--stacks"))
			stacks = 1;
		else {
			fprintf(stderr, "shim_check: unknown option '%s'\n", argv[i]);
			return 2;
		}
	}
	char err[256];
	struct trace_reader *r;
	if (trace_reader_open(&r, argv[1], err, sizeof err) != 0) {
		fprintf(stderr, "shim_check: cannot read '%s': %s\n", argv[1], err);
		return 1;
	}
	const struct trace_header *h = trace_reader_header(r);
	if (timing && strcmp(trace_timing_name(h->timing), timing) != 0) {
		fprintf(stderr, "shim_check: timing is %s (%s), expected %s\n",
			trace_timing_name(h->timing), h->timing_note, timing);
		return 1;
	}
	if (strcmp(h->device.name, "Fake GPU 9000") != 0 || h->device.sm_count != 132 ||
	    h->device.cc_major != 9 || h->device.driver_version != 13000)
		return fail("header device is '%s' with %ld SMs, not the fake's", h->device.name,
			    (long)h->device.sm_count);

	size_t nt = 0, cap = 1024;
	struct k *t = calloc(cap, sizeof *t);
	long ncopies = 0, nlib = 0, nlinked = 0, nstacked = 0;
	struct trace_record rec;
	int rc;
	while ((rc = trace_reader_next(r, &rec, err, sizeof err)) == 1) {
		if (rec.type == TRACE_MEMCPY || rec.type == TRACE_MEMSET) {
			const struct trace_copy *c = &rec.u.copy;
			ncopies++;
			if (copy_times && (!c->start_ns || c->end_ns - c->start_ns != c->bytes / 100))
				return fail("%s: a copy lasted %ld ns on the GPU", "copy-times",
					    (long)c->end_ns - (long)c->start_ns);
		}
		if (rec.type == TRACE_GEMM || rec.type == TRACE_CONV)
			nlib++;
		if (rec.type != TRACE_KERNEL)
			continue;
		const struct trace_kernel *kk = &rec.u.kernel;
		if (kk->flags & TRACE_KF_CAPTURED) {
			if (kk->start_ns || kk->end_ns)
				return fail("captured kernel '%s' seq %ld has GPU times",
					    trace_reader_string(r, kk->name, NULL), (long)kk->seq);
			ncap++;
			continue;
		}
		const char *kname = trace_reader_string(r, kk->name, NULL);
		if ((kk->flags & TRACE_KF_GRAPH) && kname && !strcmp(kname, "cuGraphLaunch")) {
			if (!kk->start_ns || kk->end_ns <= kk->start_ns)
				return fail("graph replay (%s) seq %ld has no GPU times", kname, (long)kk->seq);
			nrep++;
			continue;
		}
		if (nt == cap)
			t = realloc(t, (cap *= 2) * sizeof *t);
		struct k *x = &t[nt++];
		memset(x, 0, sizeof *x);
		x->tid = kk->thread;
		const char *nm = trace_reader_string(r, kk->name, NULL);
		snprintf(x->name, sizeof x->name, "%s", nm ? nm : "?");
		memcpy(x->g, kk->grid, sizeof x->g);
		memcpy(x->b, kk->block, sizeof x->b);
		memcpy(x->c, kk->cluster, sizeof x->c);
		x->dyn = kk->dyn_smem;
		x->regs = kk->regs;
		x->smem = kk->static_smem;
		x->stream = kk->stream;
		x->dur = kk->end_ns >= kk->start_ns ? kk->end_ns - kk->start_ns : 0;
		x->seq = kk->seq;
		if (kk->lib_call)
			nlinked++;
		if (kk->stack)
			nstacked++;
		if (durations && (kk->start_ns == 0 || kk->end_ns == 0))
			return fail("kernel '%s' seq %ld has no GPU times", x->name, (long)kk->seq);
	}
	if (rc != 0) {
		fprintf(stderr, "shim_check: '%s': %s\n", argv[1], err);
		return 1;
	}
	if (stacks && (nstacked != (long)nt || trace_reader_stack(r, 1) == NULL))
		return fail("%s: %ld kernels without a resolvable stack", "stacks",
			    (long)nt - nstacked);
	qsort(t, nt, sizeof *t, cmp_seq);
	/* Each thread's next record not yet matched: t is in thread and
	 * sequence order, so a cursor per thread (a scan from the start for
	 * each of the fake's lines took minutes at 400,000 kernels) */
	struct cursor { long tid; size_t next; } *cur = NULL;
	size_t ncur = 0;
	for (size_t i = 0; i < nt; i++) {
		if (i > 0 && t[i].tid == t[i - 1].tid)
			continue;
		struct cursor *c2 = realloc(cur, (ncur + 1) * sizeof *cur);
		if (!c2)
			return fail("%s: out of memory (%ld)", "cursors", (long)ncur);
		cur = c2;
		cur[ncur].tid = t[i].tid;
		cur[ncur++].next = i;
	}

	FILE *f = fopen(argv[2], "r");
	if (!f) {
		fprintf(stderr, "shim_check: cannot read '%s'\n", argv[2]);
		return 2;
	}
	char line[512];
	size_t matched = 0;
	while (fgets(line, sizeof line, f)) {
		struct k y;
		unsigned long long s0, s1;
		memset(&y, 0, sizeof y);
		if (line[0] != 'K')
			continue;
		if (sscanf(line, "K %ld %127s %u %u %u %u %u %u %u %u %u %u %u %u %llu %llu %llu", &y.tid,
			   y.name, &y.g[0], &y.g[1], &y.g[2], &y.b[0], &y.b[1], &y.b[2], &y.c[0],
			   &y.c[1], &y.c[2], &y.dyn, &y.regs, &y.smem, &y.stream, &s0, &s1) != 17)
			return fail("bad fake log line: %s%ld", line, 0);
		y.dur = s1 - s0;
		/* Only the threads this trace recorded (the log is shared by a
		 * forked parent and child). */
		struct cursor *c = NULL;
		size_t lo = 0, hi = ncur;
		while (lo < hi) { /* the cursors are in thread order too */
			size_t mid = lo + (hi - lo) / 2;
			if (cur[mid].tid < y.tid)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < ncur && cur[lo].tid == y.tid)
			c = &cur[lo];
		if (!c)
			continue;
		struct k *x = c->next < nt && t[c->next].tid == y.tid ? &t[c->next] : NULL;
		if (traced_names) {
			/* Capture windows: only kernels whose name the trace has. */
			int known = 0;
			for (size_t i = 0; i < nt && !known; i++)
				known = !strcmp(t[i].name, y.name);
			if (!known)
				continue;
		}
		if (!x)
			return fail("the fake ran '%s' on thread %ld, the trace has no record", y.name, y.tid);
		x->used = 1;
		c->next++;
		matched++;
		if (strcmp(x->name, y.name) != 0)
			return fail("name '%s' in the trace, seq %ld: the fake ran another", x->name, (long)x->seq);
		if (memcmp(x->g, y.g, sizeof x->g) || memcmp(x->b, y.b, sizeof x->b) ||
		    memcmp(x->c, y.c, sizeof x->c))
			return fail("dims of '%s' differ (seq %ld)", x->name, (long)x->seq);
		if (x->dyn != y.dyn || x->regs != y.regs || x->smem != y.smem)
			return fail("smem/regs of '%s' differ (seq %ld)", x->name, (long)x->seq);
		if (x->stream != y.stream)
			return fail("stream of '%s' differs (seq %ld)", x->name, (long)x->seq);
		if (durations && (x->dur + 2 < y.dur || x->dur > y.dur + 2))
			return fail("duration of '%s' differs by %ld ns", x->name,
				    (long)x->dur - (long)y.dur);
	}
	fclose(f);
	for (size_t i = 0; i < nt; i++)
		if (!t[i].used)
			return fail("trace kernel '%s' seq %ld was never run by the fake", t[i].name,
				    (long)t[i].seq);
	if (want_k >= 0 && (long)nt != want_k)
		return fail("%s: %ld kernels", "count", (long)nt);
	if (want_cap >= 0 && ncap != want_cap)
		return fail("%s: %ld captured kernels", "count", ncap);
	if (want_rep >= 0 && nrep != want_rep)
		return fail("%s: %ld graph replays", "count", nrep);
	if (want_c >= 0 && ncopies != want_c)
		return fail("%s: %ld copies/sets", "count", ncopies);
	if (want_lib >= 0 && (nlib != want_lib || nlinked == 0))
		return fail("%s: %ld library records", "count", nlib);
	printf("shim_check: %s: %zu kernels match the fake driver (%s timing)\n", argv[1], matched,
	       trace_timing_name(h->timing));
	trace_reader_free(r);
	free(cur);
	free(t);
	return 0;
}
