/*
 * log.c - the recorder's wall clock and its "libsurfer: ..." lines (the
 * monotonic clock, read on every launch, is inline in preload.h).
 *
 * A leaf: it calls nothing of the recorder, so the timing sources and the
 * test suites can link it alone.  Warnings always appear, each distinct
 * message once (a failing hook must not flood the host's stderr); notes
 * only with SURFER_VERBOSE.
 *
 * Must never: allocate, take a lock, or change errno (a hook calls it
 * between the real function's return and its own), or write anywhere but
 * file descriptor 2 with one write(2) per line.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "preload/preload.h"

static int verbose;            /* SURFER_VERBOSE, set once by settings.c */

uint64_t preload_unix_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void preload_log_verbose(int on)
{
	verbose = on;
}

/* One "libsurfer: ..." line on stderr; errno is kept. */
static void vsay(const char *fmt, va_list ap)
{
	int e = errno;
	char line[512];
	int n = snprintf(line, sizeof line, "libsurfer: ");
	vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
	size_t len = strlen(line);
	if (len + 1 < sizeof line)
		line[len++] = '\n';
	ssize_t w = write(2, line, len);
	(void)w;
	errno = e;
}

void preload_warn(const char *fmt, ...)
{
	/* Each distinct format warns once: a failing hook must not flood. */
	static const char *seen[32];
	static atomic_int nseen;
	int n = atomic_load(&nseen);
	for (int i = 0; i < n && i < 32; i++)
		if (seen[i] == fmt)
			return;
	int slot = atomic_fetch_add(&nseen, 1);
	if (slot < 32)
		seen[slot] = fmt;
	va_list ap;
	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}

void preload_note(const char *fmt, ...)
{
	if (!verbose)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}
