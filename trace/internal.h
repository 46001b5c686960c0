/*
 * internal.h - what the trace writer and reader share and nobody else uses:
 * the record field layout, the semantic validation both sides apply, and a
 * small uint32 -> uint32 hash map.
 *
 * The writer refuses exactly what the reader would reject, so a trace the
 * writer accepted is always readable.
 */
#ifndef SURFER_TRACE_INTERNAL_H
#define SURFER_TRACE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"

/* Number of leading fields (record type included) a record must carry;
 * later fields default when absent.  docs/trace-format.md lists them. */
#define TRACE_REQ_HEADER 4   /* type, magic, major, minor          */
#define TRACE_REQ_STRING 3   /* type, id, bytes                    */
#define TRACE_REQ_KERNEL 9   /* type, seq, name, grid[3], block[3] */
#define TRACE_REQ_GEMM 6     /* type, seq, api, m, n, k            */
#define TRACE_REQ_CONV 8     /* type, seq, api, dir, nbdims, in, filt, out */
#define TRACE_REQ_COPY 4     /* type, seq, bytes, kind             */
#define TRACE_REQ_SYNC 3     /* type, seq, kind                    */
#define TRACE_REQ_MARKER 3   /* type, seq, kind                    */
#define TRACE_REQ_STACK 3    /* type, id, frames                   */
#define TRACE_REQ_TRAILER 2  /* type, counts                       */
#define TRACE_REQ_OP 3       /* type, seq, kind                    */

/* Sanity bounds of library-call shapes (a corrupt value must not reach
 * the predictor's arithmetic). */
#define TRACE_GEMM_DIM_MAX (UINT64_C(1) << 48)
#define TRACE_CONV_DIM_MAX (INT64_C(1) << 40)
#define TRACE_CONV_PARAM_MAX (INT64_C(1) << 31)
#define TRACE_SMEM_MAX (1u << 20)          /* bytes per block */
#define TRACE_MAX_STRINGS (1u << 24)
#define TRACE_MAX_STACKS (1u << 22)
#define TRACE_MAX_STRING_BYTES (UINT64_C(1) << 30)  /* all strings together */

/* Open-addressing map from nonzero uint32 keys to uint32 values. */
struct trace_u32map {
	uint32_t *keys, *vals;
	uint32_t cap, n;   /* cap is 0 or a power of two */
};

/* Returns a pointer to the value of key, or NULL. */
uint32_t *trace_u32map_get(const struct trace_u32map *m, uint32_t key);
/* Inserts or replaces; returns 0, or TRACE_ENOMEM. */
int trace_u32map_put(struct trace_u32map *m, uint32_t key, uint32_t val);
void trace_u32map_release(struct trace_u32map *m);

/* Checks the values of rec (not its encoding) against the rules of
 * docs/trace-format.md: string ids must be <= nstrings, stack ids must be
 * in stacks, dimensions sane.  Returns 0, or TRACE_ECORRUPT with a reason
 * ("field: what is wrong") in msg. */
int trace_validate_record(const struct trace_record *rec, uint32_t nstrings,
			  const struct trace_u32map *stacks, char *msg, size_t msglen);

/* Checks the enum values and bounds of a header; same conventions. */
int trace_validate_header(const struct trace_header *h, char *msg, size_t msglen);

#endif
