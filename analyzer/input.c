/*
 * input.c - spooling standard input and recognising the files
 * surfer-import converts (input.h).
 */
#include "analyzer/input.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyzer/sibling.h"
#include "trace/surfer_err.h"

/* A new temporary file named stem-XXXXXX in $TMPDIR (else /tmp), its name
 * into path (len bytes): its descriptor, or -1 (errno set). */
static int temp_file(const char *stem, char *path, size_t len)
{
	const char *dir = getenv("TMPDIR");
	snprintf(path, len, "%s/%s-XXXXXX", dir && *dir ? dir : "/tmp", stem);
	return mkstemp(path);
}

int input_spool(FILE *in, char *path, size_t len, char *err, size_t errlen)
{
	char buf[65536];
	size_t n;
	FILE *f;
	int fd = temp_file("surfer-analyze", path, len);

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
	const char *fmt = input_import_format(path);

	if (!fmt && strstr(path, ".nsys-rep")) {
		snprintf(out, cap, "%s: '%s' is an Nsight Systems report: export it with 'nsys export "
			 "--type sqlite' and analyze that", prog, path);
		return 1;
	}
	if (!fmt)
		return 0;
	snprintf(out, cap, "%s: '%s' is %s, not a surfer trace, and surfer-import (beside %s or on "
		 "PATH) could not be run: convert it with 'surfer-import %s %s -o trace.mp'", prog, path,
		 !strcmp(fmt, "nsys") ? "an SQLite database (an Nsight Systems export?)"
		 : "JSON (a torch.profiler trace?)", prog, fmt, path);
	return 1;
}

const char *input_import_format(const char *path)
{
	unsigned char b[16] = { 0 };
	struct stat st;
	FILE *f;
	size_t n;

	/* only a regular file is looked into: the first bytes of a pipe
	 * (surfer-analyze <(...)) would be gone for the analysis */
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || !(f = fopen(path, "rb")))
		return NULL;
	n = fread(b, 1, sizeof(b), f);
	fclose(f);
	if ((n >= 2 && b[0] == 0x1f && b[1] == 0x8b) || (n >= 1 && (b[0] == '{' || b[0] == '[')))
		return "kineto";
	if (n >= 15 && memcmp(b, "SQLite format 3", 15) == 0)
		return "nsys";
	return NULL;
}

/* The exit status a child gives when its exec failed: the shell's "command
 * not found". */
#define EXEC_FAILED 127

int input_import(const char *path, const char *origin, char *out, size_t len, int *status)
{
	const char *fmt = input_import_format(path);
	char prog[PATH_MAX + 64];
	int fd, st = 0;
	pid_t pid, w;

	out[0] = 0;
	*status = 0;
	if (!fmt)
		return 0;
	if ((fd = temp_file("surfer-import", out, len)) < 0) {
		out[0] = 0;
		return -1;
	}
	close(fd);
	sibling_path("surfer-import", prog, sizeof(prog));
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		/* the importer's summary line to standard error, beside its
		 * warnings: standard output is the analysis' */
		if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(EXEC_FAILED);
		const char *argv[] = { "surfer-import", fmt, path, "-o", out,
				       origin ? "--origin" : NULL, origin, NULL };
		execvp(prog, (char *const *)argv);
		_exit(EXEC_FAILED);
	}
	/* a signal the program catches (a terminal's resize) must not end
	 * the wait early: the importer would still be writing the file */
	w = pid;
	if (pid > 0)
		while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
			;
	int ran = pid > 0 && w == pid && WIFEXITED(st) && WEXITSTATUS(st) != EXEC_FAILED;
	if (ran && WEXITSTATUS(st) == 0)
		return 1;
	unlink(out);
	out[0] = 0;
	if (!ran)
		return -1;
	*status = WEXITSTATUS(st);
	return -2;
}
