/*
 * lens.h - lists of lengths for the engines' runs: --prompt-lens (each
 * prompt's tokens), --context-lens (each decode step's cached tokens) and
 * --new-tokens (the tokens each sequence generates), typed out or read
 * from a file: a plain list, or a column of a CSV file with a header (a
 * workload or request trace: PipeWeave's workloads, Azure's LLM inference
 * traces, a request log).
 */
#ifndef SURFER_MODEL_LENS_H
#define SURFER_MODEL_LENS_H

#include <stddef.h>
#include <stdint.h>

/* The most lengths one list holds. */
#define MODEL_LENS_MAX 4096

/*
 * Reads the lengths v gives for option opt ("prompt-lens", "context-lens"
 * or "new-tokens", without the dashes) into dst[0..*n), at most
 * MODEL_LENS_MAX, each 1 to 16777216:
 *  - L1,L2,...: numbers separated by one comma or by white space;
 *  - @FILE: a file holding such a list (one a line, say), or a CSV file
 *    with a header line (its first character that is not blank starts a
 *    name), whose column is the one of a name known to hold opt's lengths,
 *    else its only column; two known columns are an ambiguity, not a pick;
 *  - @FILE:COLUMN: the column of that header name (any case) or 1-based
 *    number, where FILE:COLUMN itself is no file.
 * A UTF-8 byte order mark and CRLF lines are read.  0, SURFER_EINVAL with
 * a one-line reason in err (the file and line of a bad row, the file's
 * columns when none fits), or SURFER_ENOMEM.
 */
int model_lens_read(const char *opt, const char *v, uint32_t *dst, uint32_t *n, char *err,
		    size_t errlen);

#endif
