/*
 * recording.h - what `surfer record` does around the program it records:
 * find the recorder (libsurfer.so), put it and the SURFER_* settings into
 * the environment, run the program as a child with signals passed on, then
 * find the traces the run wrote and summarize each with the trace reader.
 *
 * Library code: nothing here prints or exits; errors come back as a
 * negative value with a one-line reason in a caller-provided buffer.
 */
#ifndef SURFER_RECORDING_H
#define SURFER_RECORDING_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"

/* Finds libsurfer.so for this program: first beside its executable (the
 * build tree, analyzer/sibling.c's folder), then in ../lib/ (the install
 * prefix).  Returns 0 with the absolute path in out, or -1 with the places
 * looked at in err. */
int recording_find_preload(char *out, size_t outlen, char *err, size_t errlen);

/* Returns the new value of LD_PRELOAD: old (may be NULL or empty) with lib
 * appended after a ':' so that libraries already preloaded (a sanitizer
 * runtime that must come first) keep their place.  Heap string owned by
 * the caller; NULL on allocation failure. */
char *recording_preload_value(const char *old, const char *lib);

/* Runs argv[0] (searched on PATH) with argv and the current environment,
 * stdin/stdout/stderr inherited.  Signals sent to this process by another
 * process (kill, a job scheduler's SIGTERM) are passed on to the child;
 * those the terminal sends reach the child directly as a member of the
 * foreground process group and are not sent twice.  Returns the child's
 * exit status, 128 + the signal when a signal ended it, 127 when argv[0]
 * cannot be found, 126 when it cannot be run (err says why), or -1 when
 * no child could be started (err says why). */
int recording_run(char *const argv[], char *err, size_t errlen);

/* The traces a run may write to: the SURFER_OUTPUT pattern split into its
 * directory and a file name in which %p stands for a pid (a forked child
 * writes <name>.<pid> when the name has no %p).  A snapshot of the
 * matching files is taken before the run so that after it only the files
 * the run created or rewrote are reported. */
struct recording_files {
	char dir[1024];
	char name[256];             /* the pattern's last component            */
	size_t n, cap;
	struct recording_file {
		char *path;         /* dir/name, heap                          */
		int64_t mtime_ns;   /* modification time when seen             */
		int64_t size;       /* bytes                                   */
	} *files;
};

/* Fills f with the files matching pattern now.  0, or -1 (no memory, a %p
 * in the directory part) with a reason in err.  Release with
 * recording_files_release. */
int recording_files_scan(struct recording_files *f, const char *pattern,
			 char *err, size_t errlen);

/* Leaves in after only the files that are not in before, or whose time or
 * size changed, sorted by path. */
void recording_files_new(struct recording_files *after, const struct recording_files *before);

void recording_files_release(struct recording_files *f);

/* What one trace holds, for the line printed after the run. */
struct recording_summary {
	uint64_t kernels;           /* kernel records                          */
	uint64_t records;           /* records of any kind read                */
	uint32_t iterations;        /* distinct iteration indices of kernels;
				     * 0 when no profiler window was recorded  */
	enum trace_timing timing;
	char timing_note[128];      /* the header's reason for the timing      */
	uint64_t dropped;           /* the trailer's count of dropped records  */
	int truncated;              /* no trailer: the process was killed      */
	char error[256];            /* a corrupt trace: what the reader said   */
};

/* Reads the trace at path to its end.  0 with *s filled (also for a
 * truncated or corrupt trace, which s describes), or a negative trace
 * error with a reason in err when it cannot be opened at all. */
int recording_summarize(const char *path, struct recording_summary *s,
			char *err, size_t errlen);

/* Formats s as one line without a newline ("812 kernels, 5 iterations,
 * timing cupti, nothing lost") into out. */
void recording_summary_format(const struct recording_summary *s, char *out, size_t outlen);

#endif
