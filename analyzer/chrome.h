/*
 * chrome.h - the predicted timelines as a Chrome trace-event JSON document
 * (opens in Perfetto and chrome://tracing): one process per lane (the
 * origin's measured replay, then each target), one thread per stream for
 * kernels and copies and one per CPU thread for launches and waits.
 *
 * Spans stream in from the analysis (analysis_options.on_span) and are
 * written as they come, one event at a time; only the stream and thread ids
 * and the escaped kernel names (one per configuration) are kept.
 */
#ifndef SURFER_CHROME_H
#define SURFER_CHROME_H

#include <stdio.h>

#include "analyzer/analyze.h"

struct chrome_trace;

/* Starts a document on f (borrowed; it must stay open until
 * chrome_trace_finish, and be a regular file when the analysis may replay
 * twice: a restart truncates it back to the header).  NULL when out of
 * memory. */
struct chrome_trace *chrome_trace_new(FILE *f);

/* An analysis_span_fn: pass it as analysis_options.on_span with the
 * chrome_trace as span_ctx.  Failures are remembered for
 * chrome_trace_finish. */
void chrome_trace_span(void *ctx, const struct analysis_span *s);

/* Names the processes (lane 0 after a's origin, lane 1 + t after target t)
 * and threads and ends the document.  Returns 0, or -1 when anything
 * failed (out of memory, a write or a restart), with a reason in err. */
int chrome_trace_finish(struct chrome_trace *ct, const struct analysis *a, char *err,
			size_t errlen);

void chrome_trace_free(struct chrome_trace *ct);

#endif
