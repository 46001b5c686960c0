/*
 * dump.c - surfer-dump: prints a trace as JSON lines, one object per
 * record, the header first (the conversion is tools/tracejson.c).
 *
 * Exit status: 0 (also for a truncated trace, after a warning), 2 for bad
 * usage and for unreadable or corrupt input.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "tools/tracejson.h"
#include "trace/surfer_err.h"
#include "trace/trace.h"

static const char *prog = "surfer-dump";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [--strings] [--no-header] FILE\n"
		"Print the surfer trace FILE (\"-\" = standard input) as JSON lines:\n"
		"the header, then one object per record.\n"
		"  --strings     also print the string table at the end\n"
		"  --no-header   do not print the header line\n"
		"  --help        show this help\n"
		"  --version     show the version\n",
		prog);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "strings", no_argument, NULL, 's' },
		{ "no-header", no_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 },
	};
	int want_strings = 0, want_header = 1, c;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return 0;
		case 'V': printf("%s %s (trace format %d.%d)\n", prog, SURFER_VERSION,
				 TRACE_VERSION_MAJOR, TRACE_VERSION_MINOR);
			  return 0;
		case 's': want_strings = 1; break;
		case 'H': want_header = 0; break;
		default: usage(stderr); return surfer_exit_code(SURFER_EINVAL);
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return surfer_exit_code(SURFER_EINVAL);
	}
	const char *path = argv[optind];
	static char outbuf[1 << 20];
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));

	char err[256];
	struct trace_reader *r = NULL;
	int rc = trace_reader_open(&r, path, err, sizeof(err));
	if (rc == TRACE_ETRUNC) {
		fprintf(stderr, "%s: warning: '%s': %s\n", prog, path, err);
		return 0;
	}
	if (rc < 0) {
		fprintf(stderr, "%s: cannot read '%s': %s\n", prog, path, err);
		return surfer_exit_code(rc);
	}
	struct trace_json *j = trace_json_new();
	if (!j) {
		trace_reader_free(r);
		fprintf(stderr, "%s: out of memory\n", prog);
		return surfer_exit_code(SURFER_ENOMEM);
	}
	int out_failed = want_header ? trace_json_emit(j, stdout, trace_json_header(trace_reader_header(r))) : 0;
	struct trace_record rec;
	while (!out_failed && (rc = trace_reader_next(r, &rec, err, sizeof(err))) >= 0) {
		out_failed = trace_json_emit(j, stdout, trace_json_record(j, r, &rec));
		if (rc == 0)
			break;
	}
	if (!out_failed && want_strings)
		out_failed = trace_json_strings(j, stdout, r);
	trace_reader_free(r);
	trace_json_free(j);
	if (fflush(stdout) != 0 || out_failed) {
		fprintf(stderr, "%s: cannot write the output\n", prog);
		return surfer_exit_code(SURFER_EWRITE);
	}
	if (rc == TRACE_ETRUNC) {
		fprintf(stderr, "%s: warning: '%s': %s\n", prog, path, err);
		return 0;
	}
	if (rc < 0) {
		fprintf(stderr, "%s: cannot read '%s': %s\n", prog, path, err);
		return surfer_exit_code(rc);
	}
	return 0;
}
