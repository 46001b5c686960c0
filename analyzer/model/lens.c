/*
 * lens.c - lists of lengths for the engines' runs (lens.h): typed, in a
 * file, or in a column of a CSV file with a header.  One reader for the
 * three options, so that a prompt trace and its output lengths are read
 * alike and a bad row is named the same way.
 */
#include "analyzer/model/lens.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "trace/csv.h"
#include "trace/trace.h"

#define LENS_MOST (1ul << 24)

/* Why a length of 0 is refused, per option. */
static const char *zero_reason(const char *opt)
{
	switch (opt[0]) {
	case 'p':
		return "a prompt holds at least 1 token";
	case 'c':
		return "a decode step's cache holds at least its prompt (1 token or more)";
	default:
		return "a sequence generates at least 1 token (the prefill's)";
	}
}

/* Lengths from text: numbers separated by one comma or by white space
 * (a file may hold one a line).  Every length is at least 1 (zero_reason());
 * an empty item (",5", "5,,6", "5,") is a typo, not a length.  what names
 * the source in messages: the typed list (cut at 40 characters) or the
 * file (whole). */
static int parse_list(const char *opt, const char *text, const char *what, uint32_t *dst,
		      uint32_t *count, char *err, size_t errlen)
{
	const char *p = text;
	uint32_t n = 0;
	int wlen = what == text ? 40 : 4096;
	int comma = 0;                     /* a comma seen since the last length */
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ',') {
			if (*p == ',' && (comma || !n)) {
				snprintf(err, errlen, "bad --%s '%.*s': length %u is empty (two commas, "
					 "or one at the start)", opt, wlen, what, n + 1);
				return SURFER_EINVAL;
			}
			comma |= *p == ',';
			p++;
		}
		if (!*p)
			break;
		char *end;
		errno = 0;
		unsigned long x = strtoul(p, &end, 10);
		if (end == p || errno || *p == '-' || *p == '+' || x > LENS_MOST ||
		    (*end && *end != ',' && *end != ' ' && *end != '\t' && *end != '\n' && *end != '\r')) {
			int tl = (int)strcspn(p, ", \t\r\n");   /* the bad item, not the rest */
			snprintf(err, errlen, "bad --%s '%.*s': '%.*s' (length %u): lengths of 1 to 16777216 "
				 "tokens separated by commas are expected", opt, wlen, what, tl < 20 ? tl : 20, p,
				 n + 1);
			return SURFER_EINVAL;
		}
		if (x == 0) {
			snprintf(err, errlen, "bad --%s '%.*s': length %u is 0; %s", opt, wlen, what, n + 1,
				 zero_reason(opt));
			return SURFER_EINVAL;
		}
		if (n == MODEL_LENS_MAX) {
			snprintf(err, errlen, "--%s: more than %d sequences", opt, MODEL_LENS_MAX);
			return SURFER_EINVAL;
		}
		dst[n++] = (uint32_t)x;
		comma = 0;
		p = end;
	}
	if (comma) {
		snprintf(err, errlen, "bad --%s '%.*s': length %u is empty (a comma at the end)", opt,
			 wlen, what, n + 1);
		return SURFER_EINVAL;
	}
	if (!n) {
		snprintf(err, errlen, "--%s '%.*s': no length given", opt, wlen, what);
		return SURFER_EINVAL;
	}
	*count = n;
	return 0;
}

/* Header field j of r, less the UTF-8 byte order mark a spreadsheet's
 * export puts before the first. */
static const char *csv_header(const struct csv_reader *r, size_t j)
{
	const char *f = r->field[j];
	return j == 0 && !strncmp(f, "\xEF\xBB\xBF", 3) ? f + 3 : f;
}

/*
 * The header names known to hold each option's lengths.  Prompts:
 * PipeWeave's workloads' num_prefill_tokens, Azure's LLM inference traces'
 * ContextTokens (the prompt, beside GeneratedTokens), and the names
 * request logs commonly give it.  --context-lens: the tokens each sequence
 * has cached, and nothing of a prompt's (a decode step's cache holds its
 * generated tokens too, so a prompt column is named explicitly there).
 * --new-tokens: the tokens generated (Azure's GeneratedTokens, vLLM's and
 * OpenAI's output and completion counts, PipeWeave's num_decode_tokens
 * and output_tokens: both in its workloads, the trace's lengths and the
 * one length its benchmark ran, so a file with both must name one).
 */
static const char *const prompt_cols[] = {
	"num_prefill_tokens", "prompt_len", "prompt_length", "prompt_tokens", "num_prompt_tokens",
	"input_len", "input_length", "input_tokens", "ContextTokens", NULL,
};
static const char *const context_cols[] = {
	"context_len", "context_length", "context_tokens", "kv_len", "cache_len", "seq_len", NULL,
};
static const char *const output_cols[] = {
	"num_decode_tokens", "output_tokens", "output_len", "output_length", "num_output_tokens",
	"completion_tokens", "generated_tokens", "GeneratedTokens", "new_tokens", NULL,
};

static const char *const *known_cols(const char *opt)
{
	return opt[0] == 'p' ? prompt_cols : opt[0] == 'c' ? context_cols : output_cols;
}

static const char *col_kind(const char *opt)
{
	return opt[0] == 'p' ? "prompt lengths" : opt[0] == 'c' ? "cached lengths" : "output lengths";
}

/* The column of r's header (just read) that col names, else the one
 * known column, else the only column: its index, or -1 with err set. */
static int pick_column(const char *opt, const char *path, const struct csv_reader *r,
		       const char *col, char *err, size_t errlen)
{
	char cols[256] = "";
	size_t used = 0;
	for (size_t j = 0; j < r->nfield && used < sizeof cols - 1; j++)
		used += (size_t)snprintf(cols + used, sizeof cols - used, "%s%s", j ? ", " : "",
					 csv_header(r, j));
	if (col) {
		char *end;
		unsigned long i = strtoul(col, &end, 10);
		if (end != col && !*end && i >= 1 && i <= r->nfield)
			return (int)i - 1;
		for (size_t j = 0; j < r->nfield; j++)
			if (!strcasecmp(csv_header(r, j), col))
				return (int)j;
		snprintf(err, errlen, "--%s: '%s' has no column '%s'; its columns: %s", opt, path, col,
			 cols);
		return -1;
	}
	const char *const *names = known_cols(opt);
	int c = -1, other = -1;
	for (size_t j = 0; j < r->nfield; j++)
		for (size_t i = 0; names[i]; i++)
			if (!strcasecmp(csv_header(r, j), names[i])) {
				if (c < 0)
					c = (int)j;
				else if (other < 0)
					other = (int)j;
			}
	if (other >= 0) {
		snprintf(err, errlen, "--%s: '%s' has two columns of %s, %s and %s: name one "
			 "(@%s:COLUMN)", opt, path, col_kind(opt), csv_header(r, (size_t)c),
			 csv_header(r, (size_t)other), path);
		return -1;
	}
	if (c < 0 && r->nfield == 1)
		c = 0;
	if (c < 0)
		snprintf(err, errlen, "--%s: no column of '%s' is known to hold %s; its columns: %s "
			 "(name one: @%s:COLUMN)", opt, path, col_kind(opt), cols, path);
	return c;
}

/* A column of a CSV file with a header line (the text set_lens() read of
 * path), into dst. */
static int parse_csv(const char *opt, const char *path, const char *text, size_t len,
		     const char *col, uint32_t *dst, uint32_t *count, char *err, size_t errlen)
{
	FILE *fp = fmemopen((void *)text, len, "r");
	if (!fp)
		return SURFER_ENOMEM;
	struct csv_reader r;
	csv_init(&r, fp, path, CSV_COMMENTS);
	int rc = csv_next(&r), c = -1;
	if (rc != 1) {
		snprintf(err, errlen, "--%s: %s", opt, rc < 0 ? r.err : "the file is empty");
		rc = SURFER_EINVAL;
		goto out;
	}
	if ((c = pick_column(opt, path, &r, col, err, errlen)) < 0) {
		rc = SURFER_EINVAL;
		goto out;
	}
	char name[64];
	snprintf(name, sizeof name, "%s", csv_header(&r, (size_t)c));
	uint32_t n = 0;
	while ((rc = csv_next(&r)) == 1) {
		const char *f = csv_field(&r, (size_t)c), *p = f;
		while (*p == ' ' || *p == '\t')
			p++;
		char *end = NULL;
		errno = 0;
		unsigned long x = isdigit((unsigned char)*p) ? strtoul(p, &end, 10) : 0;
		if (x) {
			while (*end == ' ' || *end == '\t')
				end++;
		}
		if (!x || errno || *end || x > LENS_MOST) {
			snprintf(err, errlen, "--%s: %s:%lu: column '%s' holds '%.20s', not a length of 1 to "
				 "16777216 tokens", opt, path, r.line, name, f);
			rc = SURFER_EINVAL;
			goto out;
		}
		if (n == MODEL_LENS_MAX) {
			snprintf(err, errlen, "--%s: '%s' holds more than %d sequences", opt, path,
				 MODEL_LENS_MAX);
			rc = SURFER_EINVAL;
			goto out;
		}
		dst[n++] = (uint32_t)x;
	}
	if (rc < 0) {
		snprintf(err, errlen, "--%s: %s", opt, r.err);
		rc = SURFER_EINVAL;
	} else if (!n) {
		snprintf(err, errlen, "--%s: '%s' has a header and no rows", opt, path);
		rc = SURFER_EINVAL;
	} else {
		*count = n;
		rc = 0;
	}
out:
	csv_release(&r);
	fclose(fp);
	return rc;
}

/* Whether text begins with a header line: its first character that is
 * not blank starts a name (a letter, '_', a quote, or the byte order mark
 * before one), where a list starts with a length ("5,x" stays a list with
 * a bad length). */
static int has_header(const char *text)
{
	const unsigned char *p = (const unsigned char *)text;
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return isalpha(*p) || *p == '_' || *p == '"' || *p >= 0x80;
}

int model_lens_read(const char *opt, const char *v, uint32_t *dst, uint32_t *count, char *err,
		    size_t errlen)
{
	if (v[0] != '@')
		return parse_list(opt, v, v, dst, count, err, errlen);
	/* @FILE, or @FILE:COLUMN where FILE itself does not open */
	char *path = strdup(v + 1);
	if (!path)
		return SURFER_ENOMEM;
	const char *col = NULL;
	FILE *f = fopen(path, "r");
	int open_errno = errno;
	char *colon = strrchr(path, ':');
	if (!f && colon && colon[1]) {
		*colon = 0;
		f = fopen(path, "r");
		if (f)
			col = colon + 1;
		else
			*colon = ':';
	}
	if (!f) {
		snprintf(err, errlen, "--%s: cannot read '%s': %s", opt, path, strerror(open_errno));
		free(path);
		return SURFER_EINVAL;
	}
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap + 1);
	if (!buf) {
		fclose(f);
		free(path);
		return SURFER_ENOMEM;
	}
	size_t got;
	while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			char *nb = cap < (1u << 26) ? realloc(buf, 2 * cap + 1) : NULL;
			if (!nb) {
				free(buf);
				fclose(f);
				snprintf(err, errlen, "--%s: '%s' is too large", opt, path);
				free(path);
				return SURFER_EINVAL;
			}
			buf = nb;
			cap *= 2;
		}
	}
	int bad = ferror(f);
	fclose(f);
	buf[n] = 0;
	int rc;
	if (bad) {
		snprintf(err, errlen, "--%s: cannot read '%s'", opt, path);
		rc = SURFER_EINVAL;
	} else if (col || has_header(buf)) {
		rc = parse_csv(opt, path, buf, n, col, dst, count, err, errlen);
	} else {
		rc = parse_list(opt, buf, path, dst, count, err, errlen);
	}
	free(buf);
	free(path);
	return rc;
}
