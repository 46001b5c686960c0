/*
 * fuzz_trace.c - the trace reader on any bytes, as surfer-dump reads a trace
 * (every record, the strings and stacks they name) and as surfer-analyze
 * does (analysis_run with --origin given, so a header naming no known GPU
 * still reaches the kernel table, the predictor and the replay), then its
 * text and JSON reports (report.c shortens the kernel names the trace
 * gives), which must hold finite, non-negative times.  The
 * reorder window is 8 events instead of 16384, so that small inputs out of
 * order also take the path that reads the trace twice and sorts it.
 */
#include "tests/fuzz/fuzz.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/analyze.h"
#include "analyzer/report.h"
#include "gpu_specs/gpu.h"
#include "trace/trace.h"

static const struct gpu_spec *targets[1];
static const struct gpu_spec *origin;
static FILE *null_out;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	origin = gpu_find("a100");
	targets[0] = gpu_find("h100-sxm");
	null_out = fopen("/dev/null", "w");
	if (!origin || !targets[0] || !null_out) {
		fprintf(stderr, "fuzz_trace: no a100 or h100-sxm in the GPU table, or no /dev/null\n");
		abort();
	}
	return 0;
}

/* Reads every record; returns whether the header was read (analysis_run
 * stops at the same place otherwise, after its allocations: skipping it
 * then makes the target several times faster). */
static int read_all(const char *path)
{
	struct trace_reader *r;
	struct trace_record rec;
	char err[256];
	size_t len;

	if (trace_reader_open(&r, path, err, sizeof(err)) < 0)
		return 0;
	while (trace_reader_next(r, &rec, err, sizeof(err)) > 0) {
		if (rec.type == TRACE_KERNEL) {
			const struct trace_stack *st = trace_reader_stack(r, rec.u.kernel.stack);
			trace_reader_string(r, rec.u.kernel.name, &len);
			for (uint32_t i = 0; st && i < st->nframes; i++)
				trace_reader_string(r, st->frames[i], &len);
		} else if (rec.type == TRACE_MARKER) {
			trace_reader_string(r, rec.u.marker.name, &len);
		}
	}
	trace_reader_free(r);
	return 1;
}

static void check_time(double ns, const char *what)
{
	if (!isfinite(ns) || ns < 0) {
		fprintf(stderr, "fuzz_trace: %s is %g ns\n", what, ns);
		abort();
	}
}

static void check_times(const struct analysis *a)
{
	check_time(a->measured_ns, "the measured iteration");
	check_time(a->measured_kernel_ns, "the measured kernel time");
	for (size_t t = 0; t < a->ntargets; t++) {
		const struct analysis_target *at = &a->targets[t];
		check_time(at->iteration_ns, "a predicted iteration");
		check_time(at->kernel_ns, "a predicted kernel time");
		check_time(at->copy_ns, "a predicted copy time");
		for (size_t g = 0; g < at->ngroups; g++)
			check_time(at->groups[g].pred_ns, "a kernel's predicted time");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size, "trace.mp");
	struct analysis_options o;
	struct analysis *a;
	char err[256];

	if (!read_all(path))
		return 0;
	memset(&o, 0, sizeof(o));
	o.origin = origin;
	o.targets = targets;
	o.ntargets = 1;
	o.method = PRED_AUTO;
	o.reorder_window = 8;
	if (analysis_run(path, &o, &a, err, sizeof(err)) != 0)
		return 0;
	check_times(a);
	report_text(null_out, a, NULL, 10, 0);
	report_json_write(null_out, a, NULL, 10);
	analysis_free(a);
	return 0;
}
