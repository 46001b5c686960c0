/*
 * csv.h - the one CSV reader: the GPU tables at build time (tools/gpugen.c)
 * and every public measurement set the benchmarks read (NeuSight, Vidur,
 * PipeWeave, DeepBench).
 *
 * A row at a time from a stream, RFC 4180 quoting: a field that starts with
 * a double quote ends at the next lone quote, may hold commas and line
 * breaks, and writes a quote as "".  A quote inside an unquoted field is an
 * ordinary character.  Lines end in LF or CRLF; the line end is not part of
 * the last field.  Errors name the file and the line the row began on
 * ("gpus.csv:12: unterminated quote").
 *
 * Constraints kept: no line or field length limit (memory grows with the
 * longest row, never with the file); the reader never prints or exits.
 *
 * Why not Debian's libcsv: its last upstream release (3.0.3) is from 2013,
 * it reports no line numbers (errors could not name file:line), it trims
 * blanks around unquoted fields unless told otherwise, and its callback
 * interface needs about as much code around it as this reader is.
 */
#ifndef SURFER_CSV_H
#define SURFER_CSV_H

#include <stddef.h>
#include <stdio.h>

#include "trace/surfer_err.h"

/* Flags of csv_open() / csv_init(). */
enum {
	CSV_COMMENTS = 1,  /* lines starting with '#', and empty lines, are not rows */
};

struct csv_reader {
	/* The current row after csv_next() returned 1: nfield >= 1 fields,
	 * each NUL-terminated, unquoted; valid until the next call. */
	char **field;
	size_t nfield;
	unsigned long line;        /* 1-based line the current row began on  */
	char err[4352];            /* "path:line: reason" after an error      */

	/* private */
	FILE *fp;
	const char *path;
	unsigned flags;
	int own_fp;
	int status;                /* the error returned, once there is one   */
	unsigned long lines_read;
	char *raw;                 /* getline() buffer                        */
	size_t raw_cap;
	char *text;                /* the row's fields, NUL-separated         */
	size_t text_len, text_cap;
	size_t *start;             /* offset of each field in text            */
	size_t field_cap;
};

/* Opens path for reading; the caller releases r with csv_release().
 * Returns 0, or SURFER_EIO with errno from fopen (r needs no release
 * then). */
int csv_open(struct csv_reader *r, const char *path, unsigned flags);

/* Reads from fp, which stays the caller's; path only names it in errors. */
void csv_init(struct csv_reader *r, FILE *fp, const char *path, unsigned flags);

/* Reads the next row.  Returns 1 (a row in r->field), 0 at the end of the
 * input, or a surfer_err code with r->err set: SURFER_ECORRUPT for a quote
 * left open at the end of the input or text after a closing quote,
 * SURFER_ENOMEM, SURFER_EIO.  After an error the reader only returns that
 * error again. */
int csv_next(struct csv_reader *r);

/* The index of the current row's field equal to name, -1 when none. */
int csv_col(const struct csv_reader *r, const char *name);

/* Field i of the current row, "" when the row has fewer fields. */
const char *csv_field(const struct csv_reader *r, size_t i);

/* Frees the buffers, and closes the file csv_open() opened. */
void csv_release(struct csv_reader *r);

#endif
