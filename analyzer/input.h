/*
 * input.h - what surfer-analyze does with its input before analyzing it:
 * standard input spooled to a file (a trace far out of order is read
 * twice), and a file that is not a surfer trace recognised by its bytes
 * when surfer-import converts it.
 */
#ifndef SURFER_INPUT_H
#define SURFER_INPUT_H

#include <stddef.h>
#include <stdio.h>

/* Copies in to a new temporary file in $TMPDIR (else /tmp) whose name
 * goes to path (len bytes); the caller unlinks it.  Returns 0, or
 * SURFER_EINVAL with one line in err (nothing left behind). */
int input_spool(FILE *in, char *path, size_t len, char *err, size_t errlen);

/* When the file at path is not a surfer trace but one surfer-import reads
 * (a torch.profiler JSON, gzipped or not; an Nsight Systems SQLite export;
 * an Nsight Systems report by its name) and input_import() could not
 * convert it, writes into out one line saying how to, prefixed by prog,
 * and returns 1; else 0.  The bytes decide, not the name. */
int input_import_hint(const char *path, const char *prog, char *out, size_t cap);

/* Which surfer-import front end reads the file at path: "kineto" (a
 * torch.profiler JSON, gzipped or not) or "nsys" (an Nsight Systems SQLite
 * export), by its first bytes; NULL for anything else, and for what is not
 * a regular file (a pipe's bytes are not read). */
const char *input_import_format(const char *path);

/*
 * When the file at path is one surfer-import reads, converts it into a
 * new temporary surfer trace (named into out, len bytes; the caller
 * unlinks it) by running surfer-import, found beside this program or on
 * PATH, with origin (a GPU name, NULL none) as its --origin.  The
 * importer's summary and warnings go to standard error, so that standard
 * output stays the analysis' (--json).  Returns 0 when path is no such
 * file (out empty), 1 when converted, -1 when surfer-import could not be
 * run (out empty: the caller says how to convert), or -2 when it ran and
 * failed, having said why on standard error: *status is its exit status.
 */
int input_import(const char *path, const char *origin, char *out, size_t len, int *status);

#endif
