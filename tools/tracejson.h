/*
 * tracejson.h - surfer trace records as JSON objects, for surfer-dump and
 * anything else that wants a trace in JSON.  Field names follow
 * docs/trace-format.md; enum values are written by name and string ids
 * resolved to their strings (bytes that are not UTF-8 become '?').
 * Integers past INT64_MAX are written as decimal strings.
 *
 * Kernel records dominate a trace, so the converter keeps one kernel
 * object and updates it in place, and converts each kernel name once: the
 * object trace_json_record returns for a kernel is only valid until the
 * next call.
 */
#ifndef SURFER_TRACEJSON_H
#define SURFER_TRACEJSON_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "trace/trace.h"

struct trace_json;

/* A converter; NULL when out of memory.  Free with trace_json_free. */
struct trace_json *trace_json_new(void);
void trace_json_free(struct trace_json *j);

/* The header as {"type": "header", ..., "device": {...}} (a new object). */
json_t *trace_json_header(const struct trace_header *h);

/* One record of r as an object with its "type" (a reference the caller
 * owns). */
json_t *trace_json_record(struct trace_json *j, const struct trace_reader *r,
			  const struct trace_record *rec);

/* Writes o to f as one compact line and releases the caller's reference
 * (o NULL: fails).  Returns 0, -1 when writing failed or out of memory. */
int trace_json_emit(struct trace_json *j, FILE *f, json_t *o);

/* Writes every string of r's table as {"type": "string", "id", "value"},
 * one a line.  Returns 0, -1 when writing failed. */
int trace_json_strings(struct trace_json *j, FILE *f, const struct trace_reader *r);

#endif
