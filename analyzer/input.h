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
 * an Nsight Systems report by its name), writes into out one line saying
 * how to convert it, prefixed by prog, and returns 1; else 0.  The bytes
 * decide, not the name. */
int input_import_hint(const char *path, const char *prog, char *out, size_t cap);

#endif
