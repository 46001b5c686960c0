/*
 * csv.c - the one CSV reader (see csv.h).
 *
 * Physical lines come from getline(), so no line is too long; a row is
 * unquoted into one buffer, its fields NUL-separated, and the field
 * pointers are set once the row is complete (the buffer may move while it
 * grows).  A quoted field still open at the end of a line continues on the
 * next one, with "\n" for the line break.  A UTF-8 byte-order mark at the
 * start of the input is dropped.
 */
#include "trace/csv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

void csv_init(struct csv_reader *r, FILE *fp, const char *path, unsigned flags)
{
	memset(r, 0, sizeof *r);
	r->fp = fp;
	r->path = path;
	r->flags = flags;
}

int csv_open(struct csv_reader *r, const char *path, unsigned flags)
{
	FILE *fp = fopen(path, "r");
	if (!fp)
		return SURFER_EIO;
	csv_init(r, fp, path, flags);
	r->own_fp = 1;
	return 0;
}

void csv_release(struct csv_reader *r)
{
	if (r->own_fp && r->fp)
		fclose(r->fp);
	free(r->raw);
	free(r->text);
	free(r->start);
	free(r->field);
	memset(r, 0, sizeof *r);
}

__attribute__((format(printf, 3, 4)))
static int fail(struct csv_reader *r, int code, const char *fmt, ...)
{
	int n = snprintf(r->err, sizeof r->err, "%s:%lu: ", r->path, r->line);
	va_list ap;
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < sizeof r->err)
		vsnprintf(r->err + n, sizeof r->err - (size_t)n, fmt, ap);
	va_end(ap);
	r->status = code;
	return code;
}

/* Reads one physical line into raw without its LF or CRLF: its length, or
 * -1 at the end of the input (r->status set on a read error). */
static ssize_t read_line(struct csv_reader *r)
{
	ssize_t n = getline(&r->raw, &r->raw_cap, r->fp);
	if (n < 0) {
		if (ferror(r->fp))
			fail(r, SURFER_EIO, "read error");
		else if (errno == ENOMEM && !feof(r->fp))
			fail(r, SURFER_ENOMEM, "out of memory");
		return -1;
	}
	/* a UTF-8 byte-order mark before the first line (what spreadsheets
	 * write to a "CSV UTF-8" file) is not part of the first field */
	if (r->lines_read == 0 && n >= 3 && (unsigned char)r->raw[0] == 0xef &&
	    (unsigned char)r->raw[1] == 0xbb && (unsigned char)r->raw[2] == 0xbf) {
		memmove(r->raw, r->raw + 3, (size_t)n - 2);
		n -= 3;
	}
	r->lines_read++;
	if (n > 0 && r->raw[n - 1] == '\n')
		r->raw[--n] = '\0';
	if (n > 0 && r->raw[n - 1] == '\r')
		r->raw[--n] = '\0';
	return n;
}

static int put(struct csv_reader *r, char c)
{
	if (r->text_len == r->text_cap) {
		size_t nc = r->text_cap ? 2 * r->text_cap : 256;
		char *t = realloc(r->text, nc);
		if (!t)
			return -1;
		r->text = t;
		r->text_cap = nc;
	}
	r->text[r->text_len++] = c;
	return 0;
}

static int new_field(struct csv_reader *r)
{
	if (r->nfield == r->field_cap) {
		size_t nc = r->field_cap ? 2 * r->field_cap : 32;
		size_t *s = realloc(r->start, nc * sizeof *s);
		if (!s)
			return -1;
		r->start = s;
		char **f = realloc(r->field, nc * sizeof *f);
		if (!f)
			return -1;
		r->field = f;
		r->field_cap = nc;
	}
	r->start[r->nfield++] = r->text_len;
	return 0;
}

int csv_next(struct csv_reader *r)
{
	if (r->status < 0)
		return r->status;
	ssize_t len;
	do {
		if ((len = read_line(r)) < 0)
			return r->status;
	} while ((r->flags & CSV_COMMENTS) && (len == 0 || r->raw[0] == '#'));
	r->line = r->lines_read;
	r->nfield = 0;
	r->text_len = 0;
	const char *p = r->raw, *end = r->raw + len;
	for (;;) {
		if (new_field(r) != 0)
			return fail(r, SURFER_ENOMEM, "out of memory");
		if (p < end && *p == '"') {
			p++;
			for (;;) {
				if (p == end) {
					/* the field holds a line break */
					if ((len = read_line(r)) < 0)
						return r->status < 0 ? r->status
								     : fail(r, SURFER_ECORRUPT, "unterminated quote");
					p = r->raw;
					end = r->raw + len;
					if (put(r, '\n') != 0)
						return fail(r, SURFER_ENOMEM, "out of memory");
					continue;
				}
				if (*p == '"') {
					if (p + 1 < end && p[1] == '"') {
						p += 2;
					} else {
						p++;
						break;
					}
					if (put(r, '"') != 0)
						return fail(r, SURFER_ENOMEM, "out of memory");
					continue;
				}
				if (put(r, *p++) != 0)
					return fail(r, SURFER_ENOMEM, "out of memory");
			}
			if (p < end && *p != ',')
				return fail(r, SURFER_ECORRUPT, "text after a closing quote");
		} else {
			while (p < end && *p != ',')
				if (put(r, *p++) != 0)
					return fail(r, SURFER_ENOMEM, "out of memory");
		}
		if (put(r, '\0') != 0)
			return fail(r, SURFER_ENOMEM, "out of memory");
		if (p == end)
			break;
		p++;                      /* the comma */
	}
	for (size_t i = 0; i < r->nfield; i++)
		r->field[i] = r->text + r->start[i];
	return 1;
}

int csv_col(const struct csv_reader *r, const char *name)
{
	for (size_t i = 0; i < r->nfield; i++)
		if (strcmp(r->field[i], name) == 0)
			return (int)i;
	return -1;
}

const char *csv_field(const struct csv_reader *r, size_t i)
{
	return i < r->nfield ? r->field[i] : "";
}
