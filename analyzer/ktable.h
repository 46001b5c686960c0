/*
 * ktable.h - the kernel table: launches grouped by configuration (name,
 * grid, block, registers, shared memory, and the shape and dtype of the
 * library call that launched them).  A large iteration has millions of
 * launches but a few thousand configurations; each is predicted once.
 * Memory is bounded by the number of configurations.
 */
#ifndef SURFER_KTABLE_H
#define SURFER_KTABLE_H

#include <stdint.h>

#include "gpu_specs/gpu.h"
#include "predictor/predict.h"
#include "trace/trace.h"

/* The library-call record a kernel names by lib_call: none, a GEMM or a
 * convolution a recorder saw, or an operator a program builder described
 * (TRACE_OP: the kernel was never run, its description is all there is). */
enum ktable_lib_kind { KTABLE_LIB_NONE = 0, KTABLE_LIB_GEMM, KTABLE_LIB_CONV, KTABLE_LIB_OP };

/* What a GEMM, convolution or operator record says about the kernels it
 * launched. */
struct ktable_lib {
	enum ktable_lib_kind kind;
	enum gpu_dtype dtype;         /* math dtype                               */
	uint64_t m, n, k, batch;      /* GEMM; conv: its implicit GEMM's m, n, k  */
	double flops;                 /* total FLOPs of the call                  */
	double bytes;                 /* minimum DRAM traffic, bytes              */
	uint8_t b_transposed;         /* GEMM: a batched product whose second
				       * operand is a transposed view (attention's
				       * Q K^T), pred_kernel's flag               */
	/* KTABLE_LIB_OP only, as the operator record gives them: */
	enum trace_op_kind op;
	enum trace_collective collective;
	uint32_t ranks;
	uint32_t node_ranks;          /* ranks of the group in one node, 0 packed */
	double reread_bytes, reuse_bytes;
	uint8_t accumulate;           /* GEMM: added into an FP32 output (beta 1) */
	double b_bytes;               /* GEMM: the weights' bytes an element when
				       * narrower than dtype, 0 dtype's          */
	uint32_t attn;                /* an ATTENTION op's shape: its id in the
				       * table (ktable_attn), 0 none              */
	struct pred_conv conv;        /* CONV: a forward convolution's geometry
				       * (all 0 for the backward ones) and pass */
};

/* The grouping key.  Built only by ktable_key_init (padding is zeroed, the
 * key is hashed and compared as bytes). */
struct ktable_key {
	uint32_t name;                /* string id in the trace                   */
	uint32_t grid[3], block[3];
	uint32_t regs, smem_static, smem_dynamic;
	uint32_t lib_kind, dtype, b_transposed;
	uint32_t op, collective, ranks, node_ranks; /* KTABLE_LIB_OP             */
	uint32_t attn;                /* KTABLE_LIB_OP: the attention shape's id */
	uint32_t accumulate;          /* KTABLE_LIB_OP: pred_kernel's flag       */
	struct pred_conv conv;        /* KTABLE_LIB_CONV: ktable_lib's            */
	uint64_t m, n, k, batch;
	double flops, bytes;
	double reread_bytes, reuse_bytes; /* KTABLE_LIB_OP                       */
	double b_bytes;               /* KTABLE_LIB_OP: pred_kernel's            */
	uint64_t graph;               /* a CUDA graph replay timed whole (flag
				       * graph, no replay seq): the capture its
				       * graph came from (trace.h), so that
				       * replays of different graphs are apart;
				       * 0 for every other kernel                */
};

struct ktable_entry {
	struct ktable_key key;
	uint64_t launches;
	uint64_t timed;               /* launches with a measured duration        */
	double sum_ns;                /* their total measured duration            */
};

struct ktable;

/* Fills key from a kernel record and the library call that launched it
 * (lib may be NULL). */
void ktable_key_init(struct ktable_key *key, const struct trace_kernel *k,
		     const struct ktable_lib *lib);

/* Fills lib from a GEMM or convolution record: the math dtype, FLOPs and
 * minimum bytes (formulas in ktable.c). */
void ktable_lib_from_gemm(struct ktable_lib *lib, const struct trace_gemm *g);
void ktable_lib_from_conv(struct ktable_lib *lib, const struct trace_conv *c);

/* Fills lib from an operator record (its numbers as given), an attention
 * shape interned in t (the shapes are few: built traces only carry them,
 * and their kernel configurations share them).  0, or -1 when out of
 * memory (lib then has no shape). */
int ktable_lib_from_op(struct ktable *t, struct ktable_lib *lib, const struct trace_op *o);

/* The attention shape with id (>= 1) in t, NULL for 0 or an unknown id;
 * owned by t. */
const struct pred_attn *ktable_attn(const struct ktable *t, uint32_t id);

/* The math dtype a GEMM/conv record's operand and compute types imply. */
enum gpu_dtype ktable_dtype(enum trace_dtype operand, enum trace_dtype compute);

struct ktable *ktable_new(void);
void ktable_free(struct ktable *t);

/* Index of key, adding an empty entry when new.  -1 on allocation failure. */
int64_t ktable_intern(struct ktable *t, const struct ktable_key *key);

/* Index of key, or -1 when absent. */
int64_t ktable_find(const struct ktable *t, const struct ktable_key *key);

uint32_t ktable_count(const struct ktable *t);

/* Entry i (< ktable_count), owned by the table; valid until the next
 * ktable_intern. */
struct ktable_entry *ktable_entry(struct ktable *t, uint32_t i);

#endif
