/*
 * fuzz_file.c - the scratch directory of a fuzz target process (fuzz.h).
 */
#include "tests/fuzz/fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
