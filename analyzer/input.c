/*
 * input.c - spooling standard input and recognising the files
 * surfer-import converts (input.h).
 */
#include "analyzer/input.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/surfer_err.h"

int input_spool(FILE *in, char *path, size_t len, char *err, size_t errlen)
{
	const char *dir = getenv("TMPDIR");
	char buf[65536];
	size_t n;
	FILE *f;
	int fd;

	snprintf(path, len, "%s/surfer-analyze-XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0 || !(f = fdopen(fd, "wb"))) {
		snprintf(err, errlen, "cannot spool standard input: %s", strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		path[0] = 0;
		return SURFER_EINVAL;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, f) != n)
			break;
	if (ferror(in) || ferror(f) || fclose(f)) {
		snprintf(err, errlen, "cannot spool standard input: %s", strerror(errno));
		unlink(path);
		path[0] = 0;
		return SURFER_EINVAL;
	}
	return 0;
}

int input_import_hint(const char *path, const char *prog, char *out, size_t cap)
{
	unsigned char b[16] = { 0 };
	FILE *f = fopen(path, "rb");
	size_t n;
	const char *kind = NULL, *how = NULL;

	if (!f)
		return 0;
	n = fread(b, 1, sizeof(b), f);
	fclose(f);
	if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b) {
		kind = "a gzipped file (a torch.profiler trace?)";
		how = "kineto";
	} else if (n >= 1 && (b[0] == '{' || b[0] == '[')) {
		kind = "JSON (a torch.profiler trace?)";
		how = "kineto";
	} else if (n >= 15 && memcmp(b, "SQLite format 3", 15) == 0) {
		kind = "an SQLite database (an Nsight Systems export?)";
		how = "nsys";
	} else if (strstr(path, ".nsys-rep")) {
		snprintf(out, cap, "%s: '%s' is an Nsight Systems report: export it with 'nsys export "
			 "--type sqlite' and convert that with 'surfer-import nsys'", prog, path);
		return 1;
	}
	if (!kind)
		return 0;
	snprintf(out, cap, "%s: '%s' is %s, not a surfer trace: convert it with 'surfer-import %s "
		 "%s -o trace.mp'", prog, path, kind, how, path);
	return 1;
}
