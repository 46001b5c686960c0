/*
 * import.c - surfer-import: turns another profiler's trace into a surfer
 * trace, so a program profiled once with torch.profiler or Nsight Systems
 * can be predicted without running it again.
 *
 *   surfer-import kineto TRACE.json[.gz] -o OUT.mp [--origin GPU] [--device N]
 *                        [--step NAME]
 *   surfer-import nsys REPORT.sqlite -o OUT.mp [same options]
 *   surfer-import FILE -o OUT.mp [same options]   (the format from the file)
 *
 * This file parses arguments, draws the progress bar and reports; the
 * readers are tools/import/kineto.c and nsys.c, the writing tools/import/common.c.
 * Exit status: 0 done, 1 out of memory or cannot write, 2 bad usage or input.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/input.h"
#include "analyzer/optfail.h"
#include "analyzer/progress.h"
#include "tools/import/import.h"
#include "trace/surfer_err.h"

static const char *prog = "surfer-import";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s kineto TRACE.json[.gz] -o OUT.mp [options]\n"
		"       %s nsys REPORT.sqlite -o OUT.mp [options]\n"
		"       %s TRACE -o OUT.mp [options]\n"
		"\n"
		"Converts a torch.profiler (Kineto) trace or an Nsight Systems SQLite\n"
		"export (nsys export --type sqlite) into a surfer trace.  Without the\n"
		"format word the file's first bytes say which: SQLite's header an nsys\n"
		"export, JSON (plain or gzip) a Kineto trace.\n"
		"\n"
		"options:\n"
		"  -o, --output FILE  the surfer trace to write (required)\n"
		"  --origin GPU       the GPU the trace was recorded on, when the trace's\n"
		"                     own device name is not in the GPU database\n"
		"  --device N         import GPU N (default: the one with most kernels)\n"
		"  --step NAME        ranges (annotations, NVTX) named NAME or NAME#N are\n"
		"                     the iterations (default ProfilerStep)\n"
		"  -q, --quiet        no summary line, warnings or progress bar\n"
		"  --version          print the version\n"
		"  -h, --help         this help\n",
		prog, prog, prog);
}

static int parse_device(const char *s, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > 1 << 20)
		return -1;
	*out = (int)v;
	return 0;
}

/* ", N collectives", ", N convolutions" and the like for the ops the
 * input described, else "" (static buffer). */
static const char *coll_note(const struct import_stats *st)
{
	static char buf[192];
	int n = 0;
	buf[0] = '\0';
	if (st->collectives)
		n = snprintf(buf, sizeof(buf), ", %llu collectives",
			     (unsigned long long)st->collectives);
	if (st->convs && n >= 0 && (size_t)n < sizeof(buf))
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, ", %llu convolutions",
			      (unsigned long long)st->convs);
	if (st->attentions && n >= 0 && (size_t)n < sizeof(buf))
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, ", %llu attention calls",
			      (unsigned long long)st->attentions);
	if (st->rows_ops && n >= 0 && (size_t)n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - (size_t)n, ", %llu norms and softmaxes",
			 (unsigned long long)st->rows_ops);
	return buf;
}

int main(int argc, char **argv)
{
	const char *fmt = NULL, *in = NULL, *out = NULL;
	struct import_opts opts = { NULL, -1 };
	const char *step = NULL;
	int quiet = 0;
	enum { OPT_ORIGIN = 256, OPT_DEVICE, OPT_STEP, OPT_VERSION };
	static const struct option lopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"origin", required_argument, NULL, OPT_ORIGIN},
		{"device", required_argument, NULL, OPT_DEVICE},
		{"step", required_argument, NULL, OPT_STEP},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, OPT_VERSION},
		{NULL, 0, NULL, 0},
	};
	int c;
	char why[256];
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:qh", lopts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case OPT_ORIGIN: opts.origin = optarg; break;
		case OPT_STEP: step = optarg; break;
		case OPT_DEVICE:
			if (parse_device(optarg, &opts.device)) {
				fprintf(stderr, "%s: bad --device '%s': not a GPU ordinal\n", prog, optarg);
				return surfer_exit_code(SURFER_EINVAL);
			}
			break;
		case 'q': quiet = 1; break;
		case 'h': usage(stdout); return 0;
		case OPT_VERSION: printf("%s %s\n", prog, SURFER_VERSION); return 0;
		case ':':
			fprintf(stderr, "%s: option '%s' needs a value\n", prog, argv[optind - 1]);
			return surfer_exit_code(SURFER_EINVAL);
		default:
			optfail_describe(argv[optind - 1], lopts, why, sizeof why);
			fprintf(stderr, "%s: %s; try --help\n", prog, why);
			return surfer_exit_code(SURFER_EINVAL);
		}
	}
	for (int i = optind; i < argc; i++) {
		if (!fmt) {
			fmt = argv[i];
		} else if (!in) {
			in = argv[i];
		} else {
			fprintf(stderr, "%s: unexpected argument '%s' (try --help)\n", prog, argv[i]);
			return surfer_exit_code(SURFER_EINVAL);
		}
	}
	/* one file and no format word: its first bytes say which, as they
	 * do for surfer-analyze (input_import_format()) */
	if (fmt && !in && strcmp(fmt, "kineto") && strcmp(fmt, "nsys")) {
		FILE *f = fopen(fmt, "rb");
		in = fmt;
		if (!f) {
			fprintf(stderr, "%s: cannot open '%s': %s\n", prog, in, strerror(errno));
			return surfer_exit_code(SURFER_EINVAL);
		}
		fclose(f);
		if (!(fmt = input_import_format(in))) {
			fprintf(stderr, "%s: '%s' is neither a torch.profiler trace (JSON, plain or gzip) "
				"nor an Nsight Systems SQLite export: name its format (kineto or nsys) "
				"before it\n", prog, in);
			return surfer_exit_code(SURFER_EINVAL);
		}
	}
	if (!fmt || !in || !out) {
		fprintf(stderr, "%s: %s (try --help)\n", prog,
			!fmt ? "missing the input format (kineto or nsys)"
			: !in ? "missing the input file" : "missing -o OUT.mp");
		return surfer_exit_code(SURFER_EINVAL);
	}
	int kineto = !strcmp(fmt, "kineto");
	if (!kineto && strcmp(fmt, "nsys")) {
		fprintf(stderr, "%s: unknown input format '%s': kineto or nsys\n", prog, fmt);
		return surfer_exit_code(SURFER_EINVAL);
	}

	/* a bar only where someone watches, once the wait is noticeable */
	struct progress bar;
	progress_start(&bar, prog, "reading", quiet);

	struct import_set set;
	import_set_init(&set);
	set.step = step;
	char err[512];
	int rc = kineto ? import_kineto_read(&set, in, progress_draw, &bar, err, sizeof(err))
			: import_nsys_read(&set, in, err, sizeof(err));
	progress_end(&bar);
	struct import_stats st;
	if (rc == 0)
		rc = import_finish(&set, &opts, out, &st, err, sizeof(err));
	import_set_release(&set);
	if (rc) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return surfer_exit_code(rc);
	}
	if (!quiet) {
		printf("%s: %llu kernels, %llu copies, %llu sets, %llu syncs, %llu markers, "
		       "%llu GEMM shapes%s from GPU %d (%s) -> '%s'\n", prog,
		       (unsigned long long)st.kernels, (unsigned long long)st.memcpys,
		       (unsigned long long)st.memsets, (unsigned long long)st.syncs,
		       (unsigned long long)st.markers, (unsigned long long)st.gemms,
		       coll_note(&st), st.device, st.origin, out);
		if (!st.kernels)
			fprintf(stderr, "%s: warning: no kernels on GPU %d in '%s': nothing for "
				"surfer-analyze to predict but copies\n", prog, st.device, in);
		if (!st.steps)
			fprintf(stderr, "%s: note: no %s#N ranges: surfer-analyze will take the whole "
				"trace as one iteration (name the ranges that are steps with --step)\n",
				prog, step ? step : "ProfilerStep");
		if (st.event_records || st.event_waits)
			fprintf(stderr, "%s: note: of the syncs, %llu events recorded and %llu "
				"waits for an event\n", prog,
				(unsigned long long)st.event_records,
				(unsigned long long)st.event_waits);
		if (st.conv_unsized)
			fprintf(stderr, "%s: warning: %llu convolutions without stride and "
				"padding (\"Concrete Inputs\", PyTorch 2.1 and later with "
				"record_shapes=True): their output size is unknown, so their "
				"kernels get no convolution shape\n", prog,
				(unsigned long long)st.conv_unsized);
		if (st.attn_unsized)
			fprintf(stderr, "%s: warning: %llu fused attention ops without their "
				"shapes or is_causal (\"Input Dims\" and \"Concrete Inputs\", "
				"PyTorch 2.1 and later with record_shapes=True), or over a paged KV "
				"cache: their kernels keep wave scaling\n", prog,
				(unsigned long long)st.attn_unsized);
		if (st.rows_unsized)
			fprintf(stderr, "%s: warning: %llu layer norms or softmaxes without "
				"their normalized dims or softmax dim (\"Input Dims\" and "
				"\"Concrete Inputs\", PyTorch 2.1 and later with "
				"record_shapes=True): their kernels keep wave scaling\n", prog,
				(unsigned long long)st.rows_unsized);
		if (st.attn_estimated)
			fprintf(stderr, "%s: note: %llu varlen attention ops of unequal "
				"sequences: the profile gives their total, count and longest, not "
				"each length, so the longest is taken as one and the others as "
				"equal\n", prog, (unsigned long long)st.attn_estimated);
		if (st.unmatched)
			fprintf(stderr, "%s: warning: %llu GPU activities have no launch call "
				"in the trace (CPU times unknown)\n", prog,
				(unsigned long long)st.unmatched);
		if (st.invalid)
			fprintf(stderr, "%s: warning: %llu records with impossible values "
				"(zero grid, too many registers, ...) dropped\n", prog,
				(unsigned long long)st.invalid);
		if (st.after)
			fprintf(stderr, "%s: note: %llu records after the last iteration "
				"left out\n", prog, (unsigned long long)st.after);
		if (st.nested)
			fprintf(stderr, "%s: note: %llu step ranges inside another step ignored\n",
				prog, (unsigned long long)st.nested);
		if (st.skipped)
			fprintf(stderr, "%s: note: %llu activities of other GPUs skipped "
				"(choose one with --device)\n", prog,
				(unsigned long long)st.skipped);
	}
	return 0;
}
