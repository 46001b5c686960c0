/*
 * fuzz_trace.c - the trace reader on any bytes, as surfer-dump reads a trace
 * (every record, the strings and stacks they name) and as surfer-analyze
 * does (fuzz_analyze: analysis_run with --origin given, so a header naming
 * no known GPU still reaches the kernel table, the predictor and the
 * replay, then the text and JSON reports, which shorten the kernel names
 * the trace gives).
 */
#include "tests/fuzz/fuzz.h"

#include "trace/trace.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size, "trace.mp");

	if (read_all(path))
		fuzz_analyze(path, "fuzz_trace");
	return 0;
}
