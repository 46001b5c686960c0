/*
 * record.c - surfer-record (`surfer record`): runs a program under the
 * recorder and says where its traces went.
 *
 *   surfer record [-o FILE] [--skip N] [--iterations N]
 *                 [--timing cupti|events|none] [--stacks] -- PROGRAM ARGS...
 *
 * Exit status: the program's (128 + the signal that ended it; 127 when it
 * cannot be found, 126 when it cannot be run), 2 for bad usage or when the
 * recorder cannot be found.  The trace lines go to standard error so that
 * the program's standard output stays its own.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/optfail.h"
#include "tools/recording.h"

#define PROG "surfer-record"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: surfer record [options] -- PROGRAM [ARGS...]\n"
		"Runs PROGRAM under the recorder (libsurfer.so) and prints where each trace\n"
		"went, one line per trace: kernels, iterations, timing, anything lost.\n"
		"\n"
		"  -o, --output FILE        trace path; %%p becomes the pid (default surfer-%%p.mp;\n"
		"                           without %%p a forked child writes FILE.<pid>)\n"
		"      --skip N             skip the first N profiler windows\n"
		"      --iterations N       record N profiler windows, then finish the trace\n"
		"      --timing T           cupti, events or none (default cupti, falling back\n"
		"                           to events)\n"
		"      --stacks             record the native call stack of each launch\n"
		"  -h, --help               show this help\n"
		"      --version            show the version\n"
		"\n"
		"Exit status: PROGRAM's (128 + the signal that ended it). See surfer-record(1).\n");
}

static int bad(const char *msg, const char *arg)
{
	fprintf(stderr, PROG ": %s '%s'; see --help\n", msg, arg);
	return 2;
}

/* A count: digits only, at most 2^31 - 1. */
static int count_arg(const char *s)
{
	if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 9)
		return -1;
	return atoi(s);
}

int main(int argc, char **argv)
{
	enum { OPT_SKIP = 256, OPT_ITER, OPT_TIMING, OPT_STACKS, OPT_VERSION };
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"skip", required_argument, NULL, OPT_SKIP},
		{"iterations", required_argument, NULL, OPT_ITER},
		{"timing", required_argument, NULL, OPT_TIMING},
		{"stacks", no_argument, NULL, OPT_STACKS},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, OPT_VERSION},
		{NULL, 0, NULL, 0},
	};
	const char *output = "surfer-%p.mp", *skip = NULL, *iters = NULL, *timing = NULL;
	int stacks = 0, c;
	opterr = 0;
	/* '+': options end at PROGRAM, so its own options are left alone */
	while ((c = getopt_long(argc, argv, "+o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': output = optarg; break;
		case OPT_SKIP: skip = optarg; break;
		case OPT_ITER: iters = optarg; break;
		case OPT_TIMING: timing = optarg; break;
		case OPT_STACKS: stacks = 1; break;
		case 'h': usage(stdout); return 0;
		case OPT_VERSION: printf(PROG " " SURFER_VERSION "\n"); return 0;
		case ':': return bad("missing value for", argv[optind - 1]);
		default: {
			char why[256];
			optfail_describe(argv[optind - 1], opts, why, sizeof why);
			fprintf(stderr, PROG ": %s; see --help\n", why);
			return 2;
		}
		}
	}
	if (skip && count_arg(skip) < 0)
		return bad("--skip takes a count, not", skip);
	if (iters && count_arg(iters) < 0)
		return bad("--iterations takes a count, not", iters);
	if (timing && strcmp(timing, "cupti") && strcmp(timing, "events") && strcmp(timing, "none"))
		return bad("--timing takes cupti, events or none, not", timing);
	if (!*output)
		return bad("--output takes a path, not", output);
	if (optind >= argc) {
		fprintf(stderr, PROG ": no program to record; usage: surfer record [options] -- PROGRAM [ARGS...]\n");
		return 2;
	}

	char lib[1200], err[1400];
	if (recording_find_preload(lib, sizeof lib, err, sizeof err) < 0) {
		fprintf(stderr, PROG ": cannot find the recorder: %s (was it built? it needs the CUDA headers)\n", err);
		return 2;
	}
	char *pre = recording_preload_value(getenv("LD_PRELOAD"), lib);
	if (!pre || setenv("LD_PRELOAD", pre, 1) != 0 || setenv("SURFER_OUTPUT", output, 1) != 0 ||
	    (skip && setenv("SURFER_SKIP", skip, 1) != 0) ||
	    (iters && setenv("SURFER_ITERATIONS", iters, 1) != 0) ||
	    (timing && setenv("SURFER_TIMING", timing, 1) != 0) ||
	    (stacks && setenv("SURFER_STACKS", "1", 1) != 0)) {
		fprintf(stderr, PROG ": out of memory\n");
		return 2;
	}
	free(pre);

	struct recording_files before, after;
	if (recording_files_scan(&before, output, err, sizeof err) < 0)
		return bad(err, output);

	err[0] = 0;
	int status = recording_run(argv + optind, err, sizeof err);
	if (status < 0 || (status >= 126 && *err)) {
		fprintf(stderr, PROG ": %s\n", err);
		recording_files_release(&before);
		return status < 0 ? 2 : status;
	}

	if (recording_files_scan(&after, output, err, sizeof err) == 0) {
		recording_files_new(&after, &before);
		if (after.n == 0)
			fprintf(stderr, PROG ": no trace written to '%s' (the program made no "
				"CUDA calls, or SURFER_DISABLE is set)\n", output);
		for (size_t i = 0; i < after.n; i++) {
			struct recording_summary s;
			char line[700];
			if (recording_summarize(after.files[i].path, &s, err, sizeof err) < 0)
				fprintf(stderr, PROG ": %s: unreadable: %s\n", after.files[i].path, err);
			else {
				recording_summary_format(&s, line, sizeof line);
				fprintf(stderr, PROG ": %s: %s\n", after.files[i].path, line);
			}
		}
		recording_files_release(&after);
	}
	recording_files_release(&before);
	return status;
}
