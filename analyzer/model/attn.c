/*
 * attn.c - fused attention kernels in a built program (attn.h).
 *
 * What is counted (per GPU, H query heads, Hkv KV heads, d = head_dim,
 * dv = head_dim_v, e bytes per element, P pairs):
 *  - forward FLOPs 2 (d + dv) H P: Q K^T and P V (FlashAttention's
 *    benchmarks count 4 d per pair with d = dv; the causal mask halves P);
 *  - backward FLOPs 2 (3 d + 2 dv) H P: S = Q K^T recomputed, dP = dO V^T,
 *    dV += P^T dO, dQ += dS K, dK += dS^T Q (2.5 x the forward, the ratio
 *    FlashAttention's benchmark uses);
 *  - minimum DRAM bytes: Q read and O written once per query and head;
 *    K and V read once per key and KV head (every query head of a GQA
 *    group shares them: FlashAttention's and FlashInfer's kernels load a
 *    KV head once for its group); MLA's latent row once per key (K and V
 *    are the same row); the backward reads Q, K, V, O, dO and writes dQ,
 *    dK, dV, plus the FP32 log-sum-exp row per query and head.
 * The kernel names are those the implementations' sources give their
 * kernels (flash_fwd_kernel, flash_fwd_splitkv_kernel, FA3's
 * FlashAttnFwdSm90, FlashInfer's BatchPrefillWithRaggedKVCacheKernel and
 * BatchDecodeWithPagedKVCacheKernel, cuDNN's generated sdpa kernels,
 * flash_attn_triton.py's _fwd_kernel, _bwd_preprocess_do_o_dot and
 * _bwd_kernel, whose FP32 dQ the Python wrapper copies to the dtype); the
 * prediction reads the shape, not the name.
 */
#include "analyzer/model/attn.h"

#include <string.h>

#include "predictor/attention.h"

static const char *attn_fwd_name(const struct pred_attn *a)
{
	if (a->form == PRED_ATTN_MLA_DECODE)
		return "flash_fwd_splitkv_mla_kernel";
	switch (a->impl) {
	case PRED_ATTN_FA3:
		return "cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90>>";
	case PRED_ATTN_FLASHINFER:
		return a->form == PRED_ATTN_DECODE ? "BatchDecodeWithPagedKVCacheKernel"
						   : "BatchPrefillWithRaggedKVCacheKernel";
	case PRED_ATTN_CUDNN:
		return "cudnn_generated_fort_native_sdpa_flash_fprop";
	case PRED_ATTN_TRITON:
		return "_fwd_kernel";
	case PRED_ATTN_EFFICIENT:
		return "fmha_cutlassF_aligned_sm80";
	default:
		return a->form == PRED_ATTN_DECODE ? "flash_fwd_splitkv_kernel" : "flash_fwd_kernel";
	}
}

void attn_describe(struct pred_kernel *k, const struct pred_attn *a, enum gpu_dtype dt,
		   double esz, int backward)
{
	k->op = PRED_OP_ATTENTION;
	k->dtype = dt;
	k->attn = *a;
	k->attn.backward = backward != 0;
	if (a->form == PRED_ATTN_PREFILL) {
		k->grid[0] = (uint32_t)cdiv(cdiv(a->q_tokens, a->seqs), 128);
		k->grid[1] = a->heads;
		k->grid[2] = a->seqs;
	} else {
		k->grid[0] = a->seqs;
		k->grid[1] = a->kv_heads;
		k->grid[2] = 1;
	}
	k->block[0] = backward ? 256 : 128;
	k->block[1] = k->block[2] = 1;
	k->m = a->q_tokens;
	k->n = a->kv_tokens;
	k->k = a->head_dim;
	k->batch = a->heads;
	attention_work(a, esz, backward, &k->flops, &k->bytes);
}

/* One attention kernel of the call a, in the model's math dtype. */
static void attn_kernel(struct bld *B, const struct pred_attn *a, const char *name,
			int backward)
{
	struct model_kernel *mk = bld_push(B);
	if (!mk)
		return;
	mk->k.name = name;
	attn_describe(&mk->k, a, B->gemm_dt, B->esz, backward);
}

void attn_emit(struct bld *B, const struct pred_attn *a)
{
	if (B->err || !a->seqs || a->impl == PRED_ATTN_NONE)
		return;
	attn_kernel(B, a, attn_fwd_name(a), 0);
	struct fop f = { .kind = F_ATTN, .attn = *a };
	bld_remember(B, &f);
}

void attn_emit_backward(struct bld *B, const struct pred_attn *a)
{
	if (B->err || !a->seqs || a->impl == PRED_ATTN_NONE)
		return;
	double q = (double)a->q_tokens, H = a->heads, dv = a->head_dim_v, d = a->head_dim;
	/* the memory-efficient backward: one kernel (its delta and dQ kept
	 * inside; the helper kernels of a key split, if any, not emitted) */
	if (a->impl == PRED_ATTN_EFFICIENT) {
		attn_kernel(B, a, "fmha_cutlassB_aligned_sm80", 1);
		return;
	}
	uint64_t keep = B->cols;
	/* flash_bwd_dot_do_o: D = rowsum(dO * O), read dO and O, write an FP32
	 * row per query and head (and zero the FP32 dQ accumulator) */
	B->cols = a->head_dim_v;
	k_vector(B, a->impl == PRED_ATTN_TRITON ? "_bwd_preprocess_do_o_dot"
		 : "flash_bwd_dot_do_o_kernel", PRED_OP_REDUCTION, q * H * dv, 2.0,
		 (4.0 * d / dv + 4.0 / dv) / B->esz, 2.0);
	attn_kernel(B, a, a->impl == PRED_ATTN_FA3 ? "cutlass::device_kernel<flash::FlashAttnBwdSm90>"
		    : a->impl == PRED_ATTN_CUDNN ? "cudnn_generated_fort_native_sdpa_flash_bprop"
		    : a->impl == PRED_ATTN_TRITON ? "_bwd_kernel"
		    : "flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel", 1);
	/* flash_bwd_convert_dq: the FP32 dQ accumulator to the dtype */
	B->cols = a->head_dim;
	k_vector(B, a->impl == PRED_ATTN_TRITON ? "elementwise_kernel<128, 4, CopyFunctor>"
		 : "flash_bwd_convert_dq_kernel", PRED_OP_ELEMENTWISE, q * H * d, 4.0 / B->esz,
		 1.0, 1.0);
	B->cols = keep;
}
