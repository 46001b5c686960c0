/*
 * internal.h - what the trace writer and reader share and nobody else uses:
 * the record field layout and the semantic validation both sides apply.
 *
 * The writer refuses exactly what the reader would reject, so a trace the
 * writer accepted is always readable.
 */
#ifndef SURFER_TRACE_INTERNAL_H
#define SURFER_TRACE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "trace/hmap.h"
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

/* Checks the values of rec (not its encoding) against the rules of
 * docs/trace-format.md: string ids must be <= nstrings, stack ids must be
 * keys of stacks (an exact-key hmap), dimensions sane.  Returns 0, or TRACE_ECORRUPT with a reason
 * ("field: what is wrong") in msg. */
int trace_validate_record(const struct trace_record *rec, uint32_t nstrings,
			  const struct hmap *stacks, char *msg, size_t msglen);

/* Checks the enum values and bounds of a header; same conventions. */
int trace_validate_header(const struct trace_header *h, char *msg, size_t msglen);

/* The ordering key of rec (docs/trace-format.md, "Order"): 1 with its
 * thread, cpu_ns and seq for the record types that have them (kernel, GEMM,
 * conv, memcpy, memset, sync, marker, op), 0 for the others. */
int trace_record_key(const struct trace_record *rec, uint32_t *thread, uint64_t *cpu_ns,
		     uint64_t *seq);

/* ---- order.c: the order of a trace's records, thread by thread ------- */

/* Segments a trace_order keeps before joining neighbours (16 bytes each). */
#define TRACE_ORDER_MAX_SEGS (1u << 16)

struct trace_order;

/* Bytes [start, end) of the file: whole records, the first and the last of
 * them of one thread. */
struct trace_order_seg {
	uint64_t start, end;
};

struct trace_order_thread {
	uint32_t thread;
	int sorted;                  /* its keys never go down                  */
	int beyond;                  /* a window of W records does not sort them */
	uint64_t records;
	const struct trace_order_seg *seg;  /* owned by the trace_order         */
	uint32_t nseg;
};

/* A tracker with a window of W records (0 = TRACE_ORDER_WINDOW); NULL on
 * allocation failure. */
struct trace_order *trace_order_new(uint32_t window);

/* Notes a record of thread at bytes [start, end) with key (cpu_ns, seq), in
 * file order.  0 or TRACE_ENOMEM. */
int trace_order_note(struct trace_order *o, uint32_t thread, uint64_t cpu_ns, uint64_t seq,
		     uint64_t start, uint64_t end);

uint32_t trace_order_window(const struct trace_order *o);
/* Threads noted so far, and what is known of thread i (in order of first
 * appearance). */
uint32_t trace_order_threads(const struct trace_order *o);
void trace_order_thread(const struct trace_order *o, uint32_t i, struct trace_order_thread *out);
/* 1 when segments were joined: a segment may then hold other threads'
 * records, which a reader of it skips. */
int trace_order_coarse(const struct trace_order *o);
/* Bytes the tracker holds. */
size_t trace_order_bytes(const struct trace_order *o);
void trace_order_free(struct trace_order *o);

#endif
