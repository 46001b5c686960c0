/*
 * attn.h - the model builder's fused attention kernels: one call of
 * FlashAttention-2/3, FlashInfer, cuDNN's fused attention or flash-attn's
 * Triton kernel, described by
 * its shape (struct pred_attn, predict.h) so that the trace carries it
 * (TRACE_OP 1.3) and predictor/attention.c predicts it per target GPU.
 *
 * Usage, from any builder holding the state of build.h:
 *
 *     struct pred_attn a;
 *     attention_init(&a, PRED_ATTN_FLASH, PRED_ATTN_PREFILL, 1, heads, kv_heads, 128, 128);
 *     for (i = 0; i < nreq; i++)                   // a ragged batch of prompts
 *             attention_add_seqs(&a, 1, new_tokens[i], cached[i] + new_tokens[i]);
 *     attn_emit(B, &a);
 *
 * A decode step is form PRED_ATTN_DECODE with one query per sequence
 * (attention_add_seqs(&a, batch, 1, context + 1)); DeepSeek's absorbed MLA decode
 * is form PRED_ATTN_MLA_DECODE with kv_heads 1, head_dim kv_lora_rank +
 * rope dim and head_dim_v kv_lora_rank.  Heads are per GPU (after tensor
 * parallelism).  The shape keeps sums and the longest sequence, and the
 * predictor counts tiles on the mean sequence: describe sequences as they
 * are (a sliding window split into one-query sequences is charged a full
 * query block each: docs/attention.md, "Not modelled").
 */
#ifndef SURFER_MODEL_ATTN_H
#define SURFER_MODEL_ATTN_H

#include "analyzer/model/build.h"
#include "predictor/attention.h"   /* attention_init, attention_add_seqs */

/* Fills k's attention fields as one kernel of the call a (the forward, or
 * with backward the main dQ/dK/dV kernel): op, dtype dt, the shape in
 * k->attn, the grid as FlashAttention launches it (query blocks of 128,
 * heads, sequences; sequences and KV heads for a decode), m/n/k/batch,
 * and its FLOPs and minimum DRAM bytes at esz bytes an element.  Other
 * fields (the name) are left as they are. */
void attn_describe(struct pred_kernel *k, const struct pred_attn *a, enum gpu_dtype dt,
		   double esz, int backward);

/* Emits the forward kernel of the call a (one kernel, PRED_OP_ATTENTION,
 * its FLOPs and minimum bytes filled, the shape in k.attn; the name of the
 * implementation's kernel), at the builder's phase and layer, in the
 * model's math dtype (B->gemm_dt).  In training the call is remembered,
 * and bld_backward_op emits its backward (attn_emit_backward).  Does
 * nothing after an error, or when a has no sequence (B->err unchanged). */
void attn_emit(struct bld *B, const struct pred_attn *a);

/* Emits the backward of the call a as FlashAttention's three kernels
 * (flash_bwd_launch_template.h, FA2 and FA3 alike; flash_attn_triton.py's
 * preprocess, _bwd_kernel and dQ copy the same way): the row sums of
 * dO * O, the main dQ/dK/dV kernel (described, backward = 1), and the
 * conversion of the FP32 dQ accumulator to the dtype. */
void attn_emit_backward(struct bld *B, const struct pred_attn *a);

#endif
