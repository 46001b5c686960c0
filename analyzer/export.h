/*
 * export.h - the analysis as files for other tools: the breakdown as CSV
 * (spreadsheets, pandas) and a self-contained HTML report (a browser, no
 * network).  Like report.c, these only format what the analysis computed.
 */
#ifndef SURFER_EXPORT_H
#define SURFER_EXPORT_H

#include <stddef.h>
#include <stdio.h>

#include "analyzer/analyze.h"
#include "analyzer/report.h"

/* Writes one header line and one row per kernel group per target (every
 * group: the rows of a target sum to its predicted kernel time):
 * target,kernel,calls_per_iteration,origin_ms,predicted_ms,method,bound,op
 * (RFC 4180 quoting; origin_ms empty when nothing was measured).  Returns
 * 0, or -1 when writing failed. */
int export_csv(FILE *f, const struct analysis *a);

/* Writes an HTML document with no external resources: an inline SVG bar
 * chart of the predicted iteration time per target (and the measured one),
 * a summary table (shares of bound and method, costs when priced) and the
 * top kernel groups of each target (top 0 = all); m: a model run's
 * estimates (tokens, memory), NULL for a trace.  Every string is escaped.
 * Returns 0, or -1 when writing failed. */
int export_html(FILE *f, const struct analysis *a, const struct report_model *m, size_t top);

/* Opens path for writing as the output what names (an option such as
 * "--html"); NULL with "cannot write WHAT 'PATH': REASON" in err. */
FILE *export_open(const char *what, const char *path, char *err, size_t errlen);

/* Closes f, opened by export_open, after a writer returned rc.  Returns 0,
 * or SURFER_EWRITE with "cannot write WHAT 'PATH': REASON" in err when
 * writing (rc < 0) or closing failed. */
int export_close(FILE *f, int rc, const char *what, const char *path, char *err, size_t errlen);

enum export_kind { EXPORT_HTML, EXPORT_CSV };

/* Writes a as kind (export_html with m and top, or export_csv) into the
 * file at path.  Returns 0, SURFER_EIO when it cannot be opened or
 * SURFER_EWRITE when writing failed, with one line in err. */
int export_write_file(enum export_kind kind, const char *what, const char *path,
		      const struct analysis *a, const struct report_model *m, size_t top, char *err,
		      size_t errlen);

#endif
