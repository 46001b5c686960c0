/*
 * attention.h - the fused attention model: the time of a FlashAttention-2,
 * FlashAttention-3, FlashInfer, cuDNN, Triton or PyTorch memory-efficient
 * fused attention call of known shape (struct pred_attn) on any NVIDIA GPU
 * with tensor cores (the memory-efficient kernels on any from 5.0), from the
 * kernel the implementation runs there (its tiles, thread blocks, waves,
 * split-KV count), the tensor-core rate of tcgemm.c, the exponential rate
 * of the SMs and the DRAM bandwidth.  attention.c gives every formula
 * with its source and the fitted constants with their held-out errors.
 */
#ifndef SURFER_ATTENTION_H
#define SURFER_ATTENTION_H

#include <stddef.h>
#include <stdint.h>

#include "predictor/predict.h"

struct tcgemm_params;   /* predictor/tcgemm.h */

/* How a call runs on one GPU, and the terms of its time. */
struct attn_plan {
	enum pred_attn_impl impl;   /* the kernel family on this GPU: FA2 or FA3
				     * for FLASH; FLASHINFER and CUDNN kept    */
	int async_mma;              /* 1: warpgroup MMA kernels (FA3 class, cc
				     * >= 9.0), softmax overlapped with the
				     * matrix products; 0: mma.sync (FA2 class) */
	int simt;                   /* 1: FlashInfer's CUDA-core decode kernel */
	uint32_t block_m, block_n;  /* tile: query rows x keys of one step      */
	uint32_t ctas_per_sm;       /* thread blocks resident per SM            */
	uint32_t splits;            /* split-KV chunks per (sequence, KV head)  */
	double chunk_keys;          /* decode: the keys of the longest thread
				     * block (a chunk, or a whole sequence)    */
	double ctas;                /* thread blocks launched (all splits)      */
	double waves;               /* ctas / (SMs x ctas_per_sm), rounded up   */
	double e_wave;              /* ctas / (waves x SMs x ctas_per_sm)       */
	double e_pad;               /* attended pairs / pairs the tiles compute */
	double mma_flops;           /* matrix FLOPs the tiles compute           */
	double exps;                /* exponentials the tiles compute           */
	double bytes;               /* DRAM bytes                               */
	double mma_ns, exp_ns, compute_ns, mem_ns, combine_ns, fixed_ns;
	double ns;                  /* the model's time                         */
	int memory_bound;
};

/* The main-loop efficiency of attention relative to tcgemm_rate_flops(),
 * fitted on published figures (attention.c); exposed for the fit's
 * documentation test. */
extern const double attention_mma_eff;
/* The share of that rate mma.sync kernels (FA2) reach on GPUs whose peak
 * needs the asynchronous MMA (compute capability 9.x, 10.x). */
extern const double attention_sync_on_async_eff;
/* The backward (dQ, dK, dV) kernel's matrix rate as a share of the
 * forward's, from published backward figures (attention.c). */
extern const double attention_bwd_eff;
/* flash-attn's Triton kernel (PRED_ATTN_TRITON): the share of the speed
 * of the FA2 class it reaches on the same tiles (attention.c). */
extern const double attention_triton_share;

/* The fitted constants as one set: the compiled-in values above, or a
 * fit without some GPUs (make bench-serving holds out each architecture
 * it reports on: attention_fit_mma_eff). */
struct attn_params {
	double mma_eff;             /* attention_mma_eff                        */
	double sync_on_async_eff;   /* attention_sync_on_async_eff              */
	double bwd_eff;             /* attention_bwd_eff                        */
	double fixed_ns;            /* a kernel's launch-to-completion floor,
				     * ns: the vector-op model's elementwise
				     * floor (T_fixed, attention.c); 0: that
				     * of vecop_default_params (a predictor
				     * sets its own vector-op constants' one) */
};
extern const struct attn_params attention_default_params;

/* Plans k (op PRED_OP_ATTENTION with k->attn.impl set) on g and fills p,
 * the main loop's tensor-core rate that of the GEMM constants tc (NULL:
 * the defaults, tcgemm.h).  Returns 0, or -1 when k has no attention
 * shape, g has no tensor cores (compute capability below 7.0; 5.0 for the
 * memory-efficient kernels), is an AMD part or has no figures, or k is a
 * memory-efficient call other than a prefill. */
int attention_plan(const struct pred_kernel *k, const struct gpu_spec *g,
		   const struct tcgemm_params *tc, struct attn_plan *p);

/* attention_plan() with the attention constants ap (NULL: the
 * compiled-in attention_default_params); attention_plan() is this with
 * NULL. */
int attention_plan_with(const struct pred_kernel *k, const struct gpu_spec *g,
			const struct tcgemm_params *tc, const struct attn_params *ap,
			struct attn_plan *p);

/* The main-loop efficiency (attn_params.mma_eff) at which FA2 on the A100
 * (cc 8.0; FA2 paper: 230 TFLOP/s, head dim 128) and FA3 on the H100 SXM5
 * (FA3 paper: 740 TFLOP/s, head dim 256) forward kernels of the papers'
 * benchmark (16k tokens, hidden 2048, non-causal, BF16) reach their
 * published rates with GEMM constants tc: the geometric mean over the
 * figures whose GPU's compute capability is not among the ncc in
 * cc_out.  Returns it, or -1 when every figure is left out. */
double attention_fit_mma_eff(const struct tcgemm_params *tc, const uint32_t *cc_out, size_t ncc);

/* The model's time of k on g with GEMM constants tc (NULL: the
 * defaults), ns; -1 when attention_plan refuses. */
double attention_model_ns(const struct pred_kernel *k, const struct gpu_spec *g,
			  const struct tcgemm_params *tc);

/* predict_kernel's PRED_ATTENTION: the model's time on target with GEMM
 * constants tc (NULL: the defaults); with a measured origin (origin not
 * NULL, k->origin_ns > 0) the ratio T_o x model(target) / model(origin).
 * Fills out (waves, bound, roofline); 0 or -1. */
int attention_predict(const struct pred_kernel *k, const struct gpu_spec *origin,
		      const struct gpu_spec *target, const struct tcgemm_params *tc,
		      struct pred_result *out);
/* attention_predict() with the attention constants ap (NULL: the
 * compiled-in ones). */
int attention_predict_with(const struct pred_kernel *k, const struct gpu_spec *origin,
			   const struct gpu_spec *target, const struct tcgemm_params *tc,
			   const struct attn_params *ap, struct pred_result *out);

/* The work of the fused attention call a in elements of esz bytes: its
 * FLOPs (the two GEMMs of the forward pass over the pairs attended, the
 * five of the backward) and its minimum DRAM bytes (Q, K, V and O once;
 * the backward reads them and dO and writes dQ, dK, dV and an FP32 row
 * per query and head), into *flops and *bytes (the model builder's and
 * the profiler importer's attention calls alike). */
void attention_work(const struct pred_attn *a, double esz, int backward, double *flops,
		    double *bytes);

struct trace_attn;
/* The trace record's form of a call's shape and back (trace.h's struct
 * trace_attn holds the same fields): what the model builder and the
 * profiler importer write, and what the analyzer reads. */
void attention_to_trace(const struct pred_attn *a, struct trace_attn *t);
void attention_from_trace(const struct trace_attn *t, struct pred_attn *a);

/* The (query, key) pairs one sequence of q_len queries attends, the last
 * q_len of its kv_len keys: q_len kv_len without the causal mask; with it
 * query j (0-based) sees kv_len - q_len + j + 1 keys, at most window of
 * them when window > 0 (a sliding window: the query itself and the
 * window - 1 keys before it).  Without a window the causal sum is
 * q_len (kv_len - q_len + (q_len + 1) / 2). */
double attention_pairs(double q_len, double kv_len, int causal, double window);

/* Sets a to an empty batch of one call: implementation, form, causal
 * mask, query heads, KV heads (dividing heads), head dims of Q/K and of V
 * (0: head_dim). */
void attention_init(struct pred_attn *a, enum pred_attn_impl impl, enum pred_attn_form form,
		    int causal, uint32_t heads, uint32_t kv_heads, uint32_t head_dim,
		    uint32_t head_dim_v);

/* Adds count sequences, each with q_len new queries attending to kv_len
 * keys (its cached tokens and its q_len new ones, kv_len >= q_len): the
 * pairs they attend, q_len (kv_len - q_len + (q_len + 1) / 2) each when
 * causal (the queries are the last q_len of the keys), q_len kv_len when
 * not.  A causal call with a->window set (a sliding window of that many
 * keys, set after attention_init) counts each query's keys up to the window
 * (attention_pairs) and the keys the queries read, at most
 * q_len + window - 1 of the kv_len: the cache before the first query's
 * window is not read.  Returns 0, or -1 (a zero length, kv_len < q_len)
 * leaving a as it was. */
int attention_add_seqs(struct pred_attn *a, uint64_t count, uint64_t q_len, uint64_t kv_len);

/* The shape of a FlashAttention-2 kernel (forward, or one of the
 * backward's) from its name, mangled or not, and its grid (attn_name.c
 * says what is read and what assumed): a's shape, FA2, one prefill of
 * grid[1] sequences, and 0 for the forward, 1 for the backward's main
 * kernel, 2 for one of the backward's streaming kernels (dot_do_o, the
 * converts: their work is not the attention's); -1 for any other kernel
 * (a left as it was). */
int attention_from_name(const char *name, const uint32_t grid[3], struct pred_attn *a);

/* The split-KV count of FlashAttention's num_splits_heuristic
 * (csrc/flash_attn/flash_api.cpp, and FA3's hopper/heuristics.h): none
 * when the blocks = sequences x heads x query blocks fill 80 % of slots;
 * otherwise the smallest count whose wave efficiency n / ceil(n), n =
 * blocks x splits / slots, reaches 85 % of the best over 1..max_splits
 * (at most slots and n_blocks; a count that gives a split no more KV
 * blocks than the one before is skipped). */
uint32_t attention_num_splits(double blocks, uint32_t slots, uint32_t n_blocks,
			      uint32_t max_splits);

#endif
