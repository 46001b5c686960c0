/*
 * fuzz.c - what the fuzz targets share (fuzz.h): the scratch directory of a
 * target process, and the checks of a trace an input became.
 */
#include "tests/fuzz/fuzz.h"

#include <dirent.h>
#include <math.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/analyze.h"
#include "analyzer/report.h"
#include "gpu_specs/gpu.h"
#include "trace/trace.h"

static char dir[256];

/* The paths handed out, one per name (a target uses two or three names). */
static struct named {
	char name[64];
	char path[512];
} names[8];

static void remove_dir(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[512];

	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		unlink(p);
	}
	closedir(d);
	rmdir(dir);
}

const char *fuzz_path(const char *name)
{
	if (!dir[0]) {
		const char *t = getenv("TMPDIR");
		snprintf(dir, sizeof(dir), "%s/surfer-fuzz.XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(dir)) {
			fprintf(stderr, "fuzz: cannot create a scratch directory '%s': %s\n", dir,
				strerror(errno));
			abort();
		}
		atexit(remove_dir);
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!names[i].name[0]) {
			snprintf(names[i].name, sizeof(names[i].name), "%s", name);
			snprintf(names[i].path, sizeof(names[i].path), "%s/%s", dir, name);
		}
		if (strcmp(names[i].name, name) == 0)
			return names[i].path;
	}
	fprintf(stderr, "fuzz: too many scratch file names\n");
	abort();
}

const char *fuzz_file(const uint8_t *data, size_t size, const char *name)
{
	const char *p = fuzz_path(name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0) {
		fprintf(stderr, "fuzz: cannot write '%s': %s\n", p, strerror(errno));
		abort();
	}
	while (size > 0) {
		ssize_t n = write(fd, data, size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "fuzz: cannot write '%s': %s\n", p, strerror(errno));
			abort();
		}
		data += n;
		size -= (size_t)n;
	}
	close(fd);
	return p;
}

void fuzz_check_trace(const char *path, const char *who)
{
	struct trace_reader *r;
	struct trace_record rec;
	char err[256] = "";
	int rc = trace_reader_open(&r, path, err, sizeof(err));

	if (rc < 0) {
		fprintf(stderr, "%s: wrote a trace the reader refuses: %s\n", who, err);
		abort();
	}
	while ((rc = trace_reader_next(r, &rec, err, sizeof(err))) > 0)
		;
	trace_reader_free(r);
	if (rc < 0) {
		fprintf(stderr, "%s: wrote a trace the reader refuses: %s\n", who, err);
		abort();
	}
}

static void check_time(double ns, const char *what, const char *who)
{
	if (!isfinite(ns) || ns < 0) {
		fprintf(stderr, "%s: %s is %g ns\n", who, what, ns);
		abort();
	}
}

static void check_times(const struct analysis *a, const char *who)
{
	check_time(a->measured_ns, "the measured iteration", who);
	check_time(a->measured_kernel_ns, "the measured kernel time", who);
	for (size_t t = 0; t < a->ntargets; t++) {
		const struct analysis_target *at = &a->targets[t];
		check_time(at->iteration_ns, "a predicted iteration", who);
		check_time(at->kernel_ns, "a predicted kernel time", who);
		check_time(at->copy_ns, "a predicted copy time", who);
		for (size_t g = 0; g < at->ngroups; g++)
			check_time(at->groups[g].pred_ns, "a kernel's predicted time", who);
	}
}

void fuzz_analyze(const char *path, const char *who)
{
	static const struct gpu_spec *targets[1];
	static const struct gpu_spec *origin;
	static FILE *null_out;
	struct analysis_options o;
	struct analysis *a;
	char err[256];

	if (!null_out) {
		origin = gpu_find("a100");
		targets[0] = gpu_find("h100-sxm");
		null_out = fopen("/dev/null", "w");
		if (!origin || !targets[0] || !null_out) {
			fprintf(stderr, "%s: no a100 or h100-sxm in the GPU table, or no /dev/null\n",
				who);
			abort();
		}
	}
	memset(&o, 0, sizeof(o));
	o.origin = origin;
	o.targets = targets;
	o.ntargets = 1;
	o.method = PRED_AUTO;
	o.reorder_window = 8;
	if (analysis_run(path, &o, &a, err, sizeof(err)) != 0)
		return;
	check_times(a, who);
	report_text(null_out, a, NULL, 10, 0);
	report_json_write(null_out, a, NULL, 10);
	analysis_free(a);
}
