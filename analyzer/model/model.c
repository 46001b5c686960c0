/*
 * model.c - a model configuration to the kernel sequence of one PyTorch
 * eager iteration (see model.h for the scope).
 *
 * The forward pass is written once per architecture as a list of ops that
 * mirrors the Hugging Face modules (GPT2Block, BertLayer, OPTDecoderLayer,
 * LlamaDecoderLayer, T5Block / SwitchTransformersSparseMLP).  Each op emits
 * the kernels ATen launches for it and is remembered, so that training can
 * walk the ops backwards and emit what autograd launches for each:
 *   linear  y = x W^T (+ b)   -> dX = dY W (GEMM), dW = dY^T X (GEMM),
 *                               db = sum over rows (reduction);
 *   bmm     C = A B           -> dA = dC B^T, dB = A^T dC (two GEMMs);
 *   softmax                   -> softmax_backward_data (one kernel);
 *   layernorm                 -> grad-input and gamma/beta kernels;
 *   dropout                   -> masked_scale (one kernel);
 *   elementwise               -> the number of kernels its derivative
 *                               formula in ATen's derivatives.yaml takes;
 *   embedding                 -> zero-filled dense gradient + scatter.
 * After each parameter's gradient is ready, AccumulateGrad adds it into
 * .grad (one add per parameter tensor: NeuSight's "acc" latency).
 *
 */
#include "analyzer/model/build.h"
#include "analyzer/model/attn.h"
#include "analyzer/model/moe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- architectures ----------------------------------------------------- */

/* scores [B,H,Sq,Sk] + mask [B,1,Sq,Sk]: the mask is read once per head
 * unless the Sq x Sk slices of the scores, the result and the mask that
 * pass between two heads stay in L2.  NeuSight's profiles of OPT's
 * [B,32,2048,2048] add (50 MB between reuses) ran 24-38 % slower than a
 * single read of the mask predicts on all eight GPUs, the A100's 40 MB L2
 * included. */
static void mask_per_head(struct bld *B, double n, uint64_t heads, uint64_t sq, uint64_t sk)
{
	op_ew(B, "elementwise_kernel<128, 4, AddFunctor>", n, 1.0 + 1.0 / (double)heads, 1, 0,
	      NULL);
	struct model_kernel *mk = bld_last_kernel(B);
	if (!mk)
		return;
	mk->reread_bytes = n * (1.0 - 1.0 / (double)heads) * B->esz;
	mk->reuse_bytes = 3.0 * (double)sq * (double)sk * B->esz;
}

/* Gemma 2's soft-capping of n scores or logits, x = tanh(x / cap) * cap:
 * three kernels, each with its backward. */
static void softcap(struct bld *B, double n)
{
	op_ew(B, "vectorized_elementwise_kernel<4, DivFunctor>", n, 1, 1, 1,
	      "vectorized_elementwise_kernel<4, DivFunctor>");
	op_ew(B, "vectorized_elementwise_kernel<4, tanh_kernel_cuda>", n, 1, 4, 1,
	      "vectorized_elementwise_kernel<4, tanh_backward_kernel_cuda>");
	op_ew(B, "vectorized_elementwise_kernel<4, MulFunctor>", n, 1, 1, 1,
	      "vectorized_elementwise_kernel<4, MulFunctor>");
}

/* Eager attention core: scores, scale, mask, softmax, dropout, context.
 * window: a sliding-window layer's keys (Gemma 2/3; 0 every key).  Hugging
 * Face masks the far keys (eager: the same kernels as a causal mask; SDPA:
 * a float mask, so the memory-efficient backend over every pair once the
 * keys pass the window, the flash backend up to it), and flash_attn_func
 * skips them (window_size), as the engines' kernels do.  scale: 0 none, 1
 * the scores divided (GPT-2's and Llama's), 2 multiplied (OPT's). */
static void attention_core(struct bld *B, uint64_t heads, uint64_t sq, uint64_t sk,
			   uint64_t d, int causal, int scale, int mask_kind, double p, uint32_t window)
{
	const struct model_config *c = B->c;
	uint64_t bh = B->b * heads;
	if (model_cp(B->o) > 1) {
		/* ring attention: this rank's keys and values, one step */
		uint64_t kvh = c->kv_heads ? c->kv_heads / B->tp : heads;
		op_cp(B, 2.0 * (double)B->b * (double)B->sl * (double)(kvh ? kvh : 1) * (double)d * B->esz);
	}
	enum pred_attn_impl impl = model_attention_impl(B->o);
	int half = B->o->dtype == GPU_DT_BF16 || B->o->dtype == GPU_DT_FP16;
	uint32_t bias_heads = 0;
	if (B->o->attention == MODEL_ATTN_SDPA) {
		/* F.scaled_dot_product_attention on 16-bit inputs with no mask
		 * (causal, or no padding) takes its flash backend: FlashAttention-
		 * 2's kernels as PyTorch vendors them (fmha forward; dot_do_o,
		 * dq_dk_dv and convert_dq backward), the attention model's FA2,
		 * over K and V already repeated to every query head (Hugging
		 * Face's and torchtitan's repeat_kv).  FP32 and T5's position
		 * bias (a float mask, [B, H, S, S], every pair computed) take
		 * the memory-efficient backend, the model's EFFICIENT class; a
		 * decode step's one query stays one kernel of FLOPs and bytes. */
		if (sq == 1) {
			op_sdpa(B, bh, sq, sk, d, 0);
			return;
		}
		impl = half && mask_kind != 5 ? PRED_ATTN_FA2 : PRED_ATTN_EFFICIENT;
		if (mask_kind == 5) {
			bias_heads = (uint32_t)heads;
			causal = 0;
		} else if (window && sk > window) {
			/* the sliding-window mask, [b, 1, sq, sk], every pair */
			impl = PRED_ATTN_EFFICIENT;
			bias_heads = 1;
			causal = 0;
		}
		window = 0;
	}
	if (impl != PRED_ATTN_NONE) {
		/* Hugging Face's flash_attention_2: flash_attn_func on (b, s, heads,
		 * d) with the KV heads as they are (no repeat_kv); a decode step's
		 * single query takes the split-KV kernel (the Triton kernel has
		 * none: its forward over one query row) */
		uint64_t kvh = B->o->attention == MODEL_ATTN_SDPA ? heads
			: c->family == MODEL_FAM_LLAMA && c->kv_heads ? c->kv_heads / B->tp : heads;
		struct pred_attn a;
		int decode = sq == 1 && sk > 1 && impl != PRED_ATTN_TRITON;
		attention_init(&a, impl, decode ? PRED_ATTN_DECODE : PRED_ATTN_PREFILL,
			  causal && sq > 1, (uint32_t)heads, (uint32_t)(kvh ? kvh : 1), (uint32_t)d, 0);
		a.window = a.causal ? window : 0;
		attention_add_seqs(&a, B->b, sq, sk);
		a.bias_heads = bias_heads;
		if (model_cp(B->o) > 1 && a.causal)
			/* ring attention, load-balanced (zigzag): a cp-th of the
			 * sequence's causal pairs, not the last block's */
			a.pairs = (double)B->b * (double)sk * ((double)sk + 1) / 2 / model_cp(B->o);
		attn_emit(B, &a);
		return;
	}
	double n = (double)bh * (double)sq * (double)sk;
	uint64_t keep = B->cols;
	B->cols = sk;
	op_bmm(B, bh, sq, sk, d);
	struct model_kernel *qk = bld_last_kernel(B);
	if (qk)                         /* matmul(q, k.transpose(-1, -2)) */
		qk->k.b_transposed = 1;
	if (scale == 1)
		op_ew(B, "vectorized_elementwise_kernel<4, DivFunctor>", n, 1, 1, 1,
		      "vectorized_elementwise_kernel<4, DivFunctor>");
	else if (scale == 2) /* OPT: `* scaling` with scaling 1.0 (below) */
		op_ew(B, "vectorized_elementwise_kernel<4, MulFunctor>", n, 1, 1, 1,
		      "vectorized_elementwise_kernel<4, MulFunctor>");
	if (c->attn_softcap)    /* Gemma 2: before the mask */
		softcap(B, n);
	switch (mask_kind) {
	case 1: /* GPT-2: torch.where(causal_mask, w, min) */
		op_ew(B, "elementwise_kernel<128, 4, where_kernel_impl>", n, 1.1, 1, 1,
		      "elementwise_kernel<128, 4, where_kernel_impl>");
		break;
	case 2: /* additive mask broadcast over heads and queries (BERT's
		 * [B,1,1,S]) */
		op_ew(B, "elementwise_kernel<128, 4, AddFunctor>", n, 1.1, 1, 0, NULL);
		break;
	case 5: /* T5: scores += position_bias, the bias and mask that the
		 * stack's first layer materialized as [B,H,S,S] */
		op_ew(B, "vectorized_elementwise_kernel<4, AddFunctor>", n, 2, 1, 0, NULL);
		break;
	case 3: /* OPT: add a [B,1,S,S] mask (no torch.max since the module
		 * moved to eager_attention_forward) */
	case 4: /* Llama and its kind: add a [B,1,S,S] causal mask */
		mask_per_head(B, n, heads, sq, sk);
		break;
	default:
		break;
	}
	if (c->oss) {
		/* gpt-oss: each head's sink logit joins every row (cat), the
		 * row's max subtracted, softmax in the scores' dtype, the
		 * sink's column dropped (a view the second matmul reads) */
		double n1 = (double)bh * (double)sq * (double)(sk + 1);
		B->cols = sk + 1;
		op_ew(B, "CatArrayBatchedCopy<float, unsigned int, 4, 64, 64>", n1, 1, 0, 1,
		      "elementwise_kernel<128, 4, CopyFunctor>");
		k_rows(B, "reduce_kernel<512, 1, ReduceOp<float, func_wrapper<float, max>>>",
		       PRED_OP_REDUCTION, bh * sq, sk + 1, 1.0, 0.0, 1.0, 512);
		op_ew(B, "elementwise_kernel<128, 4, SubFunctor>", n1, 1.0 + 1.0 / (double)(sk + 1), 1, 1,
		      "reduce_kernel<512, 1, ReduceOp<float, func_wrapper<float, sum>>>");
		op_softmax(B, bh * sq, sk + 1);
		B->cols = sk;
	} else if (c->family == MODEL_FAM_LLAMA || c->family == MODEL_FAM_T5) {
		op_softmax_fp32(B, bh * sq, sk, c->family == MODEL_FAM_T5);
	} else {
		op_softmax(B, bh * sq, sk);
	}
	op_dropout(B, n, p);
	op_bmm(B, bh, sq, d, sk);
	B->cols = keep;
}

static void mlp_activation(struct bld *B, double n)
{
	switch (B->c->act) {
	case MODEL_ACT_GELU_NEW:
		/* 0.5*x*(1+tanh(sqrt(2/pi)*(x+0.044715*x^3))): mul, pow, mul, add,
		 * mul, tanh, add, mul; backward per derivatives.yaml. */
		op_ew(B, "vectorized_elementwise_kernel<4, MulFunctor>", n, 1, 1, 1, NULL);
		op_ew(B, "vectorized_elementwise_kernel<4, pow_tensor_scalar_kernel>", n, 1, 2, 3, NULL);
		op_ew(B, "vectorized_elementwise_kernel<4, MulFunctor>", n, 1, 1, 1, NULL);
		op_ew(B, "vectorized_elementwise_kernel<4, AddFunctor>", n, 2, 1, 1,
		      "vectorized_elementwise_kernel<4, AddFunctor>");
		op_ew(B, "vectorized_elementwise_kernel<4, MulFunctor>", n, 1, 1, 1, NULL);
		op_ew(B, "vectorized_elementwise_kernel<4, tanh_kernel_cuda>", n, 1, 4, 1,
		      "vectorized_elementwise_kernel<4, tanh_backward_kernel_cuda>");
		op_ew(B, "vectorized_elementwise_kernel<4, AddFunctor>", n, 1, 1, 1,
		      "vectorized_elementwise_kernel<4, AddFunctor>");
		op_ew(B, "vectorized_elementwise_kernel<4, MulFunctor>", n, 2, 1, 2, NULL);
		break;
	case MODEL_ACT_GELU:
		op_ew(B, "vectorized_elementwise_kernel<4, GeluCUDAKernelImpl>", n, 1, 8, 1,
		      "vectorized_elementwise_kernel<4, GeluBackwardCUDAKernelImpl>");
		break;
	case MODEL_ACT_GELU_TANH:
		op_ew(B, "vectorized_elementwise_kernel<4, GeluCUDAKernelImpl>", n, 1, 10, 1,
		      "vectorized_elementwise_kernel<4, GeluBackwardCUDAKernelImpl>");
		break;
	case MODEL_ACT_RELU:
		op_ew(B, "vectorized_elementwise_kernel<4, clamp_min_scalar_kernel>", n, 1, 1, 1,
		      "vectorized_elementwise_kernel<4, threshold_kernel>");
		break;
	case MODEL_ACT_SILU:
	default:
		op_ew(B, "vectorized_elementwise_kernel<4, silu_kernel>", n, 1, 4, 1,
		      "vectorized_elementwise_kernel<4, silu_backward_kernel>");
		break;
	}
}

/* The MLP's projections on m tokens of inner width f: up (and gate when
 * gated) projection, activation, dropout p_act, down projection.  Dense
 * layers and every expert run it. */
static void mlp_body(struct bld *B, uint64_t m, uint64_t f, int gated, int bias, double p_act)
{
	uint64_t h = B->c->hidden;
	int keep = B->in_mlp;
	B->in_mlp = 1;
	B->cols = f;
	if (gated && B->o->liger) {
		/* LigerSiLUMulFunction / LigerGELUMulFunction: act(gate) * up
		 * one kernel reading both; its backward one kernel reading the
		 * gradient and both inputs and writing both their gradients
		 * (the activation recomputed) */
		op_linear(B, m, h, f, bias, 0);
		op_linear(B, m, h, f, bias, 0);
		int silu = B->c->act == MODEL_ACT_SILU;
		op_fused_ew(B, silu ? "_swiglu_forward_kernel" : "_geglu_tanh_forward_kernel", (double)m * f,
			    2, silu ? 6 : 12, silu ? "_swiglu_backward_kernel" : "_geglu_tanh_backward_kernel",
			    3, 2);
	} else if (gated) {
		op_linear(B, m, h, f, bias, 0);
		op_linear(B, m, h, f, bias, 0);
		mlp_activation(B, (double)m * f);
		op_ew(B, "vectorized_elementwise_kernel<4, MulFunctor>", (double)m * f, 2, 1, 2, NULL);
	} else {
		op_linear(B, m, h, f, bias, 0);
		mlp_activation(B, (double)m * f);
	}
	op_dropout(B, (double)m * f, p_act);
	op_linear(B, m, f, h, bias, 0);
	B->cols = h;
	B->in_mlp = keep;
}

/* A dense MLP on m tokens (sharded by tp). */
static void mlp_dense(struct bld *B, uint64_t m, int bias, double p_act)
{
	uint64_t h = B->c->hidden;
	op_tp(B, 0, (double)m * h);
	mlp_body(B, m, B->c->ffn / B->tp, B->c->gated, bias, p_act);
	op_tp(B, 1, (double)m * h);
}

static void residual(struct bld *B)
{
	B->cols = B->c->hidden;
	op_ew(B, "vectorized_elementwise_kernel<4, AddFunctor>", (double)B->Ts * B->c->hidden, 2, 1, 0, NULL);
}

/* After attention: the heads merged (permute + contiguous), the output
 * projection, its tensor-parallel all-reduce, Gemma 2/3's
 * post_attention_layernorm, dropout p and the residual add. */
static void attn_out(struct bld *B, int bias, double p)
{
	uint64_t T = B->T, h = B->c->hidden, nh = B->c->heads / B->tp, d = B->c->head_dim;
	op_ew(B, "elementwise_kernel<128, 4, CopyFunctor>", (double)T * nh * d, 1, 0, 0, NULL);
	op_linear(B, T, nh * d, h, bias, 0);
	op_tp(B, 1, (double)T * h);
	if (B->c->sandwich_norm)
		op_rmsnorm(B, B->Ts, h);
	op_dropout(B, (double)B->Ts * h, p);
	residual(B);
}

/* A decode step appends the new token's keys and values to the cache:
 * Hugging Face's cache update is a torch.cat per tensor, which copies the
 * whole cache (b, kv heads, cached + 1, d) for K and for V. */
static void kv_append(struct bld *B, uint64_t kv_heads)
{
	if (B->o->mode != MODEL_DECODE)
		return;
	uint64_t keep = B->cols;
	B->cols = B->c->head_dim;
	double n = (double)B->b * (double)kv_heads * (double)B->kv * (double)B->c->head_dim;
	for (int i = 0; i < 2; i++)
		op_ew(B, "CatArrayBatchedCopy<float, unsigned int, 4, 64, 64>", n, 1, 0, 0, NULL);
	B->cols = keep;
}

static void layer_gpt2(struct bld *B)
{
	const struct model_config *c = B->c;
	uint64_t T = B->T, h = c->hidden, nh = c->heads / B->tp, d = c->head_dim;
	op_layernorm(B, B->Ts, h);
	op_tp(B, 0, (double)T * h);
	op_linear(B, T, h, 3 * nh * d, 1, 0);
	kv_append(B, nh);
	attention_core(B, nh, B->sl, B->kv, d, 1, 1, 1, c->attn_dropout, 0);
	attn_out(B, 1, c->dropout);
	op_layernorm(B, B->Ts, h);
	mlp_dense(B, T, 1, 0);
	op_dropout(B, (double)B->Ts * h, c->dropout);
	residual(B);
}

static void layer_bert(struct bld *B)
{
	const struct model_config *c = B->c;
	uint64_t T = B->T, h = c->hidden, nh = c->heads / B->tp, d = c->head_dim;
	op_tp(B, 0, (double)T * h);
	op_linear(B, T, h, nh * d, 1, 0);
	op_linear(B, T, h, nh * d, 1, 0);
	op_linear(B, T, h, nh * d, 1, 0);
	attention_core(B, nh, B->sl, B->kv, d, 0, 1, 2, c->attn_dropout, 0);
	attn_out(B, 1, c->dropout);
	op_layernorm(B, B->Ts, h);
	mlp_dense(B, T, 1, 0);
	op_dropout(B, (double)B->Ts * h, c->dropout);
	residual(B);
	op_layernorm(B, B->Ts, h);
}

static void layer_opt(struct bld *B)
{
	const struct model_config *c = B->c;
	uint64_t T = B->T, h = c->hidden, nh = c->heads / B->tp, d = c->head_dim;
	double n = (double)T * nh * d;
	op_layernorm(B, B->Ts, h);
	op_tp(B, 0, (double)T * h);
	op_linear(B, T, h, nh * d, 1, 0);
	op_ew(B, "vectorized_elementwise_kernel<4, MulFunctor>", n, 1, 1, 1, NULL);
	op_linear(B, T, h, nh * d, 1, 0);
	op_ew(B, "elementwise_kernel<128, 4, CopyFunctor>", n, 1, 0, 0, NULL);
	op_linear(B, T, h, nh * d, 1, 0);
	op_ew(B, "elementwise_kernel<128, 4, CopyFunctor>", n, 1, 0, 0, NULL);
	op_ew(B, "elementwise_kernel<128, 4, CopyFunctor>", n, 1, 0, 0, NULL);
	kv_append(B, nh);
	/* transformers' OPTAttention as its shared eager_attention_forward
	 * (transformers 5; the 4.x module's torch.max(w, finfo.min) after
	 * the mask is gone): q scaled after its projection (above), the
	 * scores then multiplied by a scaling of 1.0 (a kernel still), the
	 * mask added.  The product by a Python number keeps nothing for the
	 * backward, where torch.max kept the masked scores: OPT-1.3B
	 * training, 1 x 2048 in FP32 on our H100 (transformers 5.17), peak
	 * 34.4 GiB estimated with them against 24.3 measured */
	attention_core(B, nh, B->sl, B->kv, d, 1, 2, 3, c->attn_dropout, 0);
	attn_out(B, 1, c->dropout);
	op_layernorm(B, B->Ts, h);
	mlp_dense(B, T, 1, 0);
	op_dropout(B, (double)B->Ts * h, c->dropout);
	residual(B);
}

/* Rotary embedding on n elements: x*cos + rotate_half(x)*sin with
 * rotate_half = cat(-x2, x1). */
static void rope(struct bld *B, double n)
{
	uint64_t keep = B->cols;
	B->cols = B->c->head_dim;
	op_ew(B, "elementwise_kernel<128, 4, MulFunctor>", n, 1.5, 1, 1, NULL);
	op_ew(B, "vectorized_elementwise_kernel<4, neg_kernel>", n / 2, 1, 1, 1, NULL);
	op_ew(B, "CatArrayBatchedCopy<float, unsigned int, 4, 64, 64>", n, 1, 0, 1,
	      "elementwise_kernel<128, 4, CopyFunctor>");
	op_ew(B, "elementwise_kernel<128, 4, MulFunctor>", n, 1.5, 1, 1, NULL);
	op_ew(B, "vectorized_elementwise_kernel<4, AddFunctor>", n, 2, 1, 0, NULL);
	B->cols = keep;
}

/* Liger's RoPE (liger_rotary_pos_emb): one Triton kernel rotates q and k
 * in place, n elements of both, reading cos and sin per token; its
 * backward the same kernel on their gradients. */
static void rope_liger(struct bld *B, double n)
{
	uint64_t keep = B->cols;
	B->cols = B->c->head_dim;
	op_fused_ew(B, "_triton_rope", n, 1, 3, "_triton_rope", 1, 1);   /* in place */
	B->cols = keep;
}

int model_layer_sparse(const struct model_config *c, uint32_t i)
{
	uint32_t idx = i >= c->layers ? i - c->layers : i;
	return c->family == MODEL_FAM_T5 && c->experts > 1 && c->sparse_step &&
	       idx % c->sparse_step == c->sparse_step - 1;
}

uint64_t model_expert_capacity(const struct model_config *c, const struct model_opts *o)
{
	return o->expert_capacity == MODEL_CAPACITY_CONFIG ? c->capacity
	       : o->expert_capacity > 0 ? (uint64_t)o->expert_capacity : 0;
}

/* Top-k mixture of experts, as Mixtral's sparse MoE block runs in eager
 * mode: the router (linear, softmax, topk, the weights renormalised), the
 * zeroed output and the one-hot expert mask; then per expert torch.where
 * on its mask, the tokens routed to it gathered, its gated MLP, the
 * routing weight applied and index_add into the output.  Each expert
 * takes an even share (T k / E) of the routed tokens.  torch.where is a
 * nonzero (op_nonzero()): the CPU waits for the GPU once per expert. */
/* One gpt-oss expert over m tokens as GptOssExperts runs it in training:
 * gate_up = x @ W[e] + b[e] (one GEMM of 2f, then the bias added: its
 * gradient a column sum), gate = gate_up[..., ::2].clamp(max=limit), up =
 * gate_up[..., 1::2].clamp(-limit, limit) (strided reads), glu = gate *
 * sigmoid(alpha * gate), (up + 1) * glu, then down_proj and its bias. */
static void mlp_oss_body(struct bld *B, uint64_t m, uint64_t f)
{
	uint64_t h = B->c->hidden;
	double n = (double)m * f;
	const char *colsum = "reduce_kernel<512, 1, ReduceOp<float, func_wrapper<float, sum>>>";
	int keep = B->in_mlp;
	B->in_mlp = 1;
	op_linear(B, m, h, 2 * f, 0, 0);
	B->cols = 2 * f;
	op_ew(B, "vectorized_elementwise_kernel<4, AddFunctor>", 2 * n, 1, 1, 1, colsum);
	B->cols = f;
	op_ew(B, "elementwise_kernel<128, 4, clamp_max_scalar_kernel>", n, 1, 1, 1,
	      "elementwise_kernel<128, 4, where_kernel_impl>");
	op_ew(B, "elementwise_kernel<128, 4, clamp_scalar_kernel>", n, 1, 2, 1,
	      "elementwise_kernel<128, 4, where_kernel_impl>");
	op_ew(B, "vectorized_elementwise_kernel<4, MulFunctor>", n, 1, 1, 1,
	      "vectorized_elementwise_kernel<4, MulFunctor>");
	op_ew(B, "vectorized_elementwise_kernel<4, sigmoid_kernel_cuda>", n, 1, 4, 1,
	      "vectorized_elementwise_kernel<4, sigmoid_backward_kernel_cuda>");
	op_ew(B, "vectorized_elementwise_kernel<4, MulFunctor>", n, 2, 1, 2, NULL);
	op_ew(B, "vectorized_elementwise_kernel<4, AddFunctor>", n, 1, 1, 0, NULL);
	op_ew(B, "vectorized_elementwise_kernel<4, MulFunctor>", n, 2, 1, 2, NULL);
	op_linear(B, m, f, h, 0, 0);
	B->cols = h;
	op_ew(B, "vectorized_elementwise_kernel<4, AddFunctor>", (double)m * h, 1, 1, 1, colsum);
	B->in_mlp = keep;
}

static void mlp_topk(struct bld *B)
{
	const struct model_config *c = B->c;
	uint64_t T = B->T, h = c->hidden, E = c->experts, f = c->ffn / B->tp;
	uint64_t K = c->experts_per_tok ? c->experts_per_tok : 1;
	uint64_t m = cdiv(T * K, E);
	op_tp(B, 0, (double)T * h);
	op_linear(B, T, h, E, c->oss, 0);
	if (c->oss) {
		/* GptOssTopKRouter: a biased router, the top k of its logits,
		 * their softmax, scattered into zeros of T x E */
		B->cols = E;
		op_ew(B, "gatherTopK<float, unsigned int, 2, false>", (double)T * E, 1, 2, 1,
		      "scatter_gather_elementwise_kernel<128, 4>");
		op_softmax(B, T, K);
		op_ew(B, "vectorized_elementwise_kernel<4, FillFunctor>", (double)T * E, 0, 0, 0, NULL);
		op_ew(B, "scatter_gather_elementwise_kernel<128, 4>", (double)T * K, 1, 0, 1,
		      "scatter_gather_elementwise_kernel<128, 4>");
	} else {
		op_softmax(B, T, E);
		B->cols = E;
		op_ew(B, "gatherTopK<float, unsigned int, 2, false>", (double)T * E, 1, 2, 1,
		      "scatter_gather_elementwise_kernel<128, 4>");
		B->cols = K;
		k_rows(B, "reduce_kernel<512, 1, ReduceOp<float, func_wrapper<float, sum>>>",
		       PRED_OP_REDUCTION, T, K, 1.0, 0.0, 1.0, 512);
		op_ew(B, "vectorized_elementwise_kernel<4, DivFunctor>", (double)T * K, 2, 1, 2, NULL);
	}
	B->cols = h;
	op_ew(B, "vectorized_elementwise_kernel<4, FillFunctor>", (double)T * h, 0, 0, 0, NULL);
	B->cols = E;
	op_ew(B, "vectorized_elementwise_kernel<4, FillFunctor>", (double)T * K * E, 0, 0, 0, NULL);
	op_ew(B, "scatter_gather_elementwise_kernel<128, 4>", (double)T * K, 1, 0, 0, NULL);
	op_ew(B, "elementwise_kernel<128, 4, CopyFunctor>", (double)T * K * E, 1, 0, 0, NULL);
	for (uint64_t e = 0; e < E; e++) {
		op_nonzero(B, (double)T * K);
		B->cols = h;
		op_ew(B, "index_elementwise_kernel<128, 4, index_kernel>", (double)m * h, 1, 0, 1,
		      "index_put_kernel");
		if (c->oss)
			mlp_oss_body(B, m, f);
		else
			mlp_body(B, m, f, c->gated, 0, 0);
		op_ew(B, "elementwise_kernel<128, 4, MulFunctor>", (double)m * h, 2, 1, 2, NULL);
		op_ew(B, "indexFuncLargeIndex<float, long, unsigned int, 2, 2, -2, true>", (double)m * h,
		      2, 1, 1, "index_elementwise_kernel<128, 4, index_kernel>");
	}
	op_tp(B, 1, (double)T * h);
	B->cols = h;
}

/* A mixture of experts as Megatron-Core's MoELayer runs it with grouped
 * GEMMs and the all-to-all token dispatcher (moe/router.py,
 * token_dispatcher.py, experts.py's TEGroupedMLP, the fused permute): the
 * router's linear (kept out of FP8), the scores (DeepSeek-V3: sigmoid,
 * plus the expert bias that only steers the choice, no gradient into it;
 * else softmax), the top k, V3's selected scores normalized, the routed
 * scaling; each token's row copied to its k experts' order (permute), the
 * rows sent to the experts' ranks (all-to-all over --ep), sorted by local
 * expert when a rank holds several; one grouped GEMM for every local
 * expert's gate and up projections, SwiGLU, the grouped down projection;
 * the way back (sort, all-to-all, unpermute: each token's k rows weighted
 * and summed); the shared experts' dense MLP on every token and the sum.
 * The load is uniform (moe.h): each expert takes ep T k / E rows.  Used
 * for DeepSeek and for any --ep run; Mixtral and Qwen-MoE without --ep
 * keep Hugging Face's per-expert loop (mlp_topk). */
static void mlp_grouped(struct bld *B)
{
	const struct model_config *c = B->c;
	uint64_t T = B->T, h = c->hidden;
	uint32_t ep = model_ep(B->o);
	struct moe_route r;
	moe_route_init(&r, c, ep, T, 1, B->esz);
	uint64_t E = r.experts, K = r.k, I = (c->moe_ffn ? c->moe_ffn : c->ffn) / B->tp;
	op_tp(B, 0, (double)T * h);
	B->high_precision = 1;
	op_linear(B, T, h, E, 0, 0);
	B->high_precision = 0;
	B->cols = E;
	if (c->router_bias) {
		op_ew(B, "vectorized_elementwise_kernel<4, sigmoid_kernel_cuda>", (double)T * E, 1, 4, 1,
		      "vectorized_elementwise_kernel<4, sigmoid_backward_kernel_cuda>");
		op_ew(B, "vectorized_elementwise_kernel<4, AddFunctor>", (double)T * E, 1, 1, 0, NULL);
	} else {
		op_softmax(B, T, E);
	}
	op_ew(B, "gatherTopK<float, unsigned int, 2, false>", (double)T * E, 1, 2, 1,
	      "scatter_gather_elementwise_kernel<128, 4>");
	B->cols = K;
	if (c->router_bias) {
		k_rows(B, "reduce_kernel<512, 1, ReduceOp<float, func_wrapper<float, sum>>>",
		       PRED_OP_REDUCTION, T, K, 1.0, 0.0, 1.0, 512);
		op_ew(B, "vectorized_elementwise_kernel<4, DivFunctor>", (double)T * K, 2, 1, 2, NULL);
	}
	op_ew(B, "vectorized_elementwise_kernel<4, MulFunctor>", (double)T * K, 1, 1, 1, NULL);
	B->cols = h;
	double routed = (double)T * K * h, local = (double)r.local * r.rows * h;
	op_ew(B, "moe_permute_kernel", routed, 1.0 / (double)K, 0, 1, "moe_unpermute_kernel");
	op_a2a(B, r.dispatch_bytes, K, 1);
	if (ep > 1 && r.local > 1)
		op_ew(B, "moe_sort_chunks_kernel", local, 1, 0, 1, "moe_sort_chunks_kernel");
	op_grouped(B, r.local, r.rows, h, c->gated ? 2 * I : I);
	B->cols = I;
	double n = (double)r.local * r.rows * I;
	if (c->gated)
		op_ew(B, "swiglu_kernel", n, 2, 5, 1, "swiglu_backward_kernel");
	else
		mlp_activation(B, n);
	op_grouped(B, r.local, r.rows, I, h);
	B->cols = h;
	if (ep > 1 && r.local > 1)
		op_ew(B, "moe_sort_chunks_kernel", local, 1, 0, 1, "moe_sort_chunks_kernel");
	op_a2a(B, r.dispatch_bytes, K, 0);
	/* reads the k rows of each token, writes one */
	op_ew(B, "moe_unpermute_kernel", routed, 1, 1, 1, "moe_permute_kernel");
	struct model_kernel *uk = bld_last_kernel(B);
	if (uk)
		uk->k.bytes = (1.0 + 1.0 / (double)K) * routed * B->esz;
	if (c->shared_ffn) {
		mlp_body(B, T, c->shared_ffn / B->tp, 1, 0, 0);
		op_ew(B, "vectorized_elementwise_kernel<4, AddFunctor>", (double)T * h, 2, 1, 0, NULL);
	}
	op_tp(B, 1, (double)T * h);
}

/* A DeepSeek-V2/V3 decoder layer (DeepseekV3DecoderLayer; Megatron-Core's
 * MLASelfAttention): RMSNorm; q through its low rank (q_a, RMSNorm, q_b) or
 * one projection; kv_a (the latent and the shared rope key), RMSNorm of
 * the latent, kv_b (each head's K nope part and V); rotary on q's and the
 * shared key's rope parts; q and k put together (nope + rope per head);
 * fused attention in the up-projected form (moe.h); the output projection,
 * the residual; RMSNorm and the MLP: dense in the first first_dense
 * layers, the routed and shared experts after.  q_a and kv_a are whole on
 * every tensor-parallel rank. */
static void layer_mla(struct bld *B)
{
	const struct model_config *c = B->c;
	uint64_t T = B->T, h = c->hidden, nh = c->heads / B->tp;
	uint64_t qd = nh * (c->qk_nope + c->qk_rope);
	op_rmsnorm(B, B->Ts, h);
	op_tp(B, 0, (double)T * h);
	if (c->q_lora) {
		op_linear(B, T, h, c->q_lora, 0, 0);
		op_rmsnorm(B, T, c->q_lora);
		op_linear(B, T, c->q_lora, qd, 0, 0);
	} else {
		op_linear(B, T, h, qd, 0, 0);
	}
	op_linear(B, T, h, c->kv_lora + c->qk_rope, 0, 0);
	op_rmsnorm(B, T, c->kv_lora);
	op_linear(B, T, c->kv_lora, nh * (c->qk_nope + c->v_dim), 0, 0);
	rope(B, (double)T * nh * c->qk_rope);
	rope(B, (double)T * c->qk_rope);
	B->cols = c->qk_nope + c->qk_rope;
	for (int i = 0; i < 2; i++)
		op_ew(B, "CatArrayBatchedCopy<float, unsigned int, 4, 64, 64>", (double)T * qd, 1, 0, 1,
		      "elementwise_kernel<128, 4, CopyFunctor>");
	struct pred_attn a;
	mla_attn_init(&a, c, (uint32_t)nh, 0);
	a.impl = model_attention_impl(B->o);   /* --attention's kernel, as attention_core */
	attention_add_seqs(&a, B->b, B->sl, B->kv);
	attn_emit(B, &a);
	B->cols = h;
	op_ew(B, "elementwise_kernel<128, 4, CopyFunctor>", (double)T * nh * c->v_dim, 1, 0, 0, NULL);
	op_linear(B, T, nh * c->v_dim, h, 0, 0);
	op_tp(B, 1, (double)T * h);
	residual(B);
	op_rmsnorm(B, B->Ts, h);
	if (model_layer_moe(c, (uint32_t)B->layer))
		mlp_grouped(B);
	else
		mlp_dense(B, T, 0, 0);
	residual(B);
}

static void layer_llama(struct bld *B)
{
	const struct model_config *c = B->c;
	uint64_t T = B->T, h = c->hidden, nh = c->heads / B->tp, d = c->head_dim;
	uint64_t nkv = c->kv_heads / B->tp;
	if (nkv == 0)
		nkv = 1;
	op_rmsnorm(B, B->Ts, h);
	op_tp(B, 0, (double)T * h);
	op_linear(B, T, h, nh * d, c->qkv_bias, 0);
	op_linear(B, T, h, nkv * d, c->qkv_bias, 0);
	op_linear(B, T, h, nkv * d, c->qkv_bias, 0);
	if (c->qk_norm) {       /* Qwen3Attention: q_norm, k_norm per head */
		op_rmsnorm(B, T * nh, d);
		op_rmsnorm(B, T * nkv, d);
		B->cols = h;
	}
	if (B->o->liger)
		rope_liger(B, (double)T * (nh + nkv) * d);
	else {
		rope(B, (double)T * nh * d);
		rope(B, (double)T * nkv * d);
	}
	kv_append(B, nkv);
	if (nkv < nh && model_attention_impl(B->o) == PRED_ATTN_NONE) {
		/* repeat_kv: expand + reshape copies K and V (all B->kv
		 * positions of them) to every head. */
		double n = (double)B->b * (double)nh * (double)B->kv * (double)d;
		op_ew(B, "elementwise_kernel<128, 4, CopyFunctor>", n, 1, 0, 1,
		      "reduce_kernel<512, 1, ReduceOp<float, func_wrapper<float, sum>>>");
		op_ew(B, "elementwise_kernel<128, 4, CopyFunctor>", n, 1, 0, 1,
		      "reduce_kernel<512, 1, ReduceOp<float, func_wrapper<float, sum>>>");
	}
	attention_core(B, nh, B->sl, B->kv, d, 1, 1, 4, c->attn_dropout,
		       model_layer_window(c, (uint32_t)B->layer));
	attn_out(B, c->oss && c->qkv_bias, 0);   /* no residual dropout; gpt-oss's o_proj biased */
	op_rmsnorm(B, B->Ts, h);
	/* GLM-4.5's and Llama 4's dense layers, then the routed and shared
	 * experts as the stacks that train them run them (mlp_grouped) */
	if (!model_layer_moe(c, (uint32_t)B->layer))
		mlp_dense(B, T, 0, 0);
	else if (model_moe_grouped(c, B->o))
		mlp_grouped(B);
	else
		mlp_topk(B);
	if (c->sandwich_norm)   /* Gemma 2/3: post_feedforward_layernorm */
		op_rmsnorm(B, B->Ts, h);
	residual(B);
}

/* Switch sparse MLP: router (fp32 linear, softmax, argmax, one-hot,
 * cumsum capacity check), then each expert on the tokens routed to it
 * (gather, wi, relu, wo, scatter), scaled by the router probability, as
 * SwitchTransformersSparseMLP.forward runs it: the gather and the scatter
 * index with the expert's boolean mask, two nonzeros an expert. */
static void mlp_sparse(struct bld *B)
{
	const struct model_config *c = B->c;
	uint64_t T = B->T, h = c->hidden, E = c->experts;
	op_linear(B, T, h, E, 0, 0);
	op_softmax(B, T, E);
	B->cols = E;
	for (int i = 0; i < 6; i++)
		op_ew(B, "vectorized_elementwise_kernel<4, CompareFunctor>", (double)T * E, 1, 1, 0, NULL);
	/* Each expert takes an even share of the tokens.  Hugging Face's
	 * Top1Router drops what exceeds expert_capacity per sequence (64 in
	 * the public Switch configs), but NeuSight's measured Switch
	 * iterations (A100, V100, sequences of 512 and 2048) take the time of
	 * every token reaching its expert: with the cap they were predicted
	 * 15-27% fast, without it as close as the dense models on the same
	 * GPUs (docs/model.md).  So the cap applies only when asked for
	 * (--expert-capacity N|config). */
	uint64_t per = cdiv(B->sl, E);
	uint64_t cap = model_expert_capacity(c, B->o);
	if (cap && per > cap)
		per = cap;
	uint64_t m = B->b * per;
	B->cols = h;
	op_ew(B, "elementwise_kernel<128, 4, CopyFunctor>", (double)T * h, 1, 0, 0, NULL);
	for (uint64_t e = 0; e < E; e++) {
		/* hidden_states[mask] and next_states[mask] = ...: each indexes
		 * with the expert's boolean mask over the tokens, a nonzero
		 * inside the op before its kernel */
		op_nonzero(B, (double)T);
		B->cols = h;
		op_ew(B, "index_elementwise_kernel<128, 4, index_kernel>", (double)m * h, 1, 0, 1,
		      "index_put_kernel");
		bld_mark_in_op(B);
		mlp_body(B, m, c->ffn, 0, 0, c->dropout);   /* Switch's experts: not gated */
		op_nonzero(B, (double)T);
		B->cols = h;
		op_ew(B, "index_put_kernel", (double)m * h, 1, 0, 1,
		      "index_elementwise_kernel<128, 4, index_kernel>");
		bld_mark_in_op(B);
	}
	op_ew(B, "elementwise_kernel<128, 4, MulFunctor>", (double)T * h, 2, 1, 2, NULL);
}

/* T5 block (encoder when cross == 0): RMS norm, attention with the
 * relative position bias added, residual; decoder adds cross-attention;
 * then the MLP (dense or sparse). */
static void layer_t5(struct bld *B, int decoder, int sparse)
{
	const struct model_config *c = B->c;
	uint64_t T = B->T, h = c->hidden, nh = c->heads / B->tp, d = c->head_dim;
	int nblocks = decoder ? 2 : 1;
	for (int i = 0; i < nblocks; i++) {
		op_rmsnorm(B, B->Ts, h);
		op_tp(B, 0, (double)T * h);
		op_linear(B, T, h, nh * d, 0, 0);
		op_linear(B, T, h, nh * d, 0, 0);
		op_linear(B, T, h, nh * d, 0, 0);
		attention_core(B, nh, B->sl, B->sl, d, decoder && i == 0, 0, 5, c->dropout, 0);
		attn_out(B, 0, c->dropout);
	}
	op_rmsnorm(B, B->Ts, h);
	if (sparse)
		mlp_sparse(B);
	else
		mlp_dense(B, T, 0, c->dropout);
	op_dropout(B, (double)B->Ts * h, c->dropout);
	residual(B);
}

/* Relative position bias of T5: bucket arithmetic on s x s, an embedding
 * lookup of s*s rows and a permute copy; computed by the first layer. */
static void t5_position_bias(struct bld *B, int decoder)
{
	double ss = (double)B->sl * (double)B->sl;
	uint64_t nh = B->c->heads / B->tp;
	/* the bias broadcast over the batch: read once, written b times */
	double nb = (double)B->b * (double)nh * ss, nin = 1.0 / (double)B->b;
	B->cols = B->sl;
	for (int i = 0; i < 8; i++)
		op_ew(B, "vectorized_elementwise_kernel<4, BucketFunctor>", ss, 1, 1, 0, NULL);
	op_embed(B, B->sl * B->sl, nh, 32, 1);
	/* T5Attention (first layer of a stack): position_bias = bias + mask,
	 * the (1, heads, s, s) bias plus the extended mask materialized as
	 * (b, heads, s, s), which every layer then adds to its scores. */
	op_ew(B, "elementwise_kernel<128, 4, AddFunctor>", nb, nin, 1, 0, NULL);
	if (decoder) {
		/* the cross-attention has no relative bias: torch.zeros((1,
		 * heads, s, s_k)) + the encoder mask, once per decoder stack */
		k_vector(B, "vectorized_elementwise_kernel<4, FillFunctor>", PRED_OP_ELEMENTWISE,
			 (double)nh * ss, 0.0, 1.0, 0.0);
		op_ew(B, "elementwise_kernel<128, 4, AddFunctor>", nb, nin, 1, 0, NULL);
	}
	B->cols = B->c->hidden;
}

/* Liger's fused linear cross-entropy (LigerFusedLinearCrossEntropyLoss,
 * what use_liger_kernel gives a causal LM's training forward): the head's
 * GEMMs and the loss's gradient run in forward, in chunks of `chunk`
 * tokens (model_liger_chunk(), Liger's rule, which memory.c sizes too),
 * and the T x V logits are never held.  Each chunk: the logits GEMM, the cross-entropy kernel
 * (a row's online max and sum, then its gradient written over the
 * logits: three passes; Gemma 2's soft-capping inside it), the input's
 * gradient GEMM into its slice (a copy), the weight's by addmm (reading
 * what it adds to); before them the two gradients zero-filled, after them
 * the loss summed.  Backward scales nothing (torch.equal(grad_output, 1),
 * a host sync): the gradients reach the final norm and the weight as
 * computed. */
static void liger_flce(struct bld *B, int tied, uint64_t chunk)
{
	const struct model_config *c = B->c;
	uint64_t V = c->vocab, H = c->hidden, T = B->T;
	uint64_t n = cdiv(T, chunk);
	int wgrad = !B->o->lora_rank;   /* PEFT leaves the head frozen */
	if (wgrad)
		k_memset(B, (double)V * H * B->esz);
	k_memset(B, (double)T * H * B->esz);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t r = i + 1 < n ? chunk : T - chunk * (n - 1);
		k_gemm(B, 1, r, V, H);
		struct model_kernel *lk = bld_last_kernel(B);
		if (lk)
			lk->k.b_transposed = 1;
		k_rows(B, "liger_cross_entropy_kernel", PRED_OP_SOFTMAX, r, V, 2.0, 1.0, 6.0, 32);
		k_gemm(B, 1, r, H, V);
		B->cols = H;
		k_vector(B, "vectorized_elementwise_kernel<4, CopyFunctor>", PRED_OP_ELEMENTWISE,
			 (double)r * H, 1.0, 1.0, 0.0);
		if (wgrad) {
			k_gemm(B, 1, V, H, r);
			struct model_kernel *wk = bld_last_kernel(B);
			if (wk)
				wk->k.bytes += (double)V * H * B->esz;   /* beta 1 */
		}
	}
	B->cols = 1;
	k_rows(B, "reduce_kernel<512, 1, ReduceOp<float, func_wrapper<float, sum>>>",
	       PRED_OP_REDUCTION, 1, T, 4.0 / B->esz, 0.0, 1.0, 512);
	if (!tied)
		bld_add_params(B, (double)V * H, 1);
}

static void lm_head_and_loss(struct bld *B, int tied)
{
	const struct model_config *c = B->c;
	uint64_t chunk = model_liger_chunk(c, B->o, B->T);
	if (chunk) {
		liger_flce(B, tied, chunk);
		return;
	}
	uint64_t V = cdiv(c->vocab, B->tp);
	op_tp(B, 0, (double)B->T * c->hidden);
	op_linear(B, B->T, c->hidden, V, 0, tied);
	if (c->final_softcap) {
		B->cols = V;
		softcap(B, (double)B->T * V);
	}
	if (B->o->loss && B->o->mode == MODEL_TRAINING) {
		/* The loss as today's stacks take it: the labels shifted, not
		 * the logits (transformers' ForCausalLMLoss pads and slices
		 * them since 4.46; torchtitan and Megatron load them shifted),
		 * every row's 16-bit logits upcast to FP32 (ForCausalLMLoss's
		 * logits.float(), torchtitan's and Megatron's .float(),
		 * autocast's list), log_softmax and nll in FP32 and back (their
		 * fop 4 bytes an element), the cast's gradient to the 16-bit
		 * logits.  Before, the logits' shift copy of transformers 4.45
		 * and a 16-bit log_softmax (FP32 under autocast). */
		uint64_t rows = B->T;
		double n = (double)rows * V, keep = B->esz;
		int upcast = B->esz < 4;
		B->cols = V;
		if (upcast)
			k_vector(B, "unrolled_elementwise_kernel<direct_copy_kernel_cuda>",
				 PRED_OP_ELEMENTWISE, n, 1.0, 4.0 / keep, 0.0);
		B->esz = 4;
		k_softmax(B, "cunn_SoftMaxForward<4, float, float, float, LogSoftMaxForwardEpilogue>",
			  rows, V, 1.0);
		B->esz = keep;
		B->cols = 1;
		k_vector(B, "nll_loss_forward_reduce_cuda_kernel_2d<float, long>", PRED_OP_REDUCTION,
			 (double)rows, 1.0, 0.0, 1.0);
		if (B->tp > 1)
			k_comm_elem(B, COMM_ALL_REDUCE, 3.0 * (double)rows * 4.0, 4.0, MODEL_GROUP_TP, 0);
		struct fop f = { .kind = F_LOSS, .a = rows, .b = V, .esz = 4, .flag = upcast };
		bld_remember(B, &f);
	}
}

/* DeepSeek-V3's multi-token prediction (--mtp N, training; its report,
 * sec. 2.2), after the main model's head on the last pipeline stage (where
 * DualPipe also puts the embedding, which the modules share): module k
 * normalizes the previous depth's last hidden states and the embeddings of
 * the tokens k + 1 ahead (RMSNorm each), concatenates them and projects
 * 2 h to h, runs one more decoder layer (MLA and the experts), a norm of
 * its own and the shared LM head with its cross-entropy loss.  Its kernels
 * belong to a layer of their own, numbered after the model's. */
static void mtp_modules(struct bld *B, uint32_t total)
{
	const struct model_config *c = B->c;
	uint64_t T = B->T, h = c->hidden;
	for (uint32_t k = 0; k < B->o->mtp && !B->err; k++) {
		uint32_t li = total + k;
		B->layer = (int32_t)li;
		B->fwd_lo[li + 1] = B->s->n;
		B->cols = h;
		op_rmsnorm(B, T, h);
		op_embed(B, T, h, c->vocab, 0);
		op_rmsnorm(B, T, h);
		op_ew(B, "CatArrayBatchedCopy<float, unsigned int, 4, 64, 64>", 2.0 * (double)T * h, 1, 0, 1,
		      "elementwise_kernel<128, 4, CopyFunctor>");
		op_linear(B, T, 2 * h, h, 0, 0);
		layer_mla(B);
		op_rmsnorm(B, T, h);
		lm_head_and_loss(B, 1);
		B->fwd_hi[li + 1] = B->err ? 0 : B->s->n;
	}
	B->layer = -1;
}

int model_lora_layout(const struct model_opts *o)
{
	return o->tp <= 1 && o->pp <= 1 && !(o->qlora && o->zero >= 2 && model_grad_ranks(o) > 1);
}

const char *model_training_flag(const struct model_opts *o)
{
	return o->lora_rank ? "--lora" : o->act_ckpt ? "--act-ckpt" : o->grad_accum > 1 ? "--grad-accum"
		: o->grad_fp32 ? "--grad-fp32" : o->no_grad_clip ? "--no-grad-clip"
		: o->fsdp_reduce_bytes ? "--fsdp-reduce" : o->fsdp != MODEL_FSDP_AUTO ? "--fsdp" : NULL;
}

static int check_config(const struct model_config *c, const struct model_opts *o,
			char *err, size_t errlen)
{
	if (!c->hidden || !c->heads || !c->layers || !c->vocab || !c->ffn || !c->head_dim) {
		snprintf(err, errlen, "model '%s' lacks a size (hidden, heads, layers, vocab, ffn)", c->name);
		return SURFER_EINVAL;
	}
	if (c->hf_refusal[0]) {
		snprintf(err, errlen, "%s", c->hf_refusal);
		return SURFER_EUNKNOWN;
	}
	if (!o->batch || !o->seq || o->seq > (1u << 20) || o->batch > (1u << 20)) {
		snprintf(err, errlen, "batch and sequence length must be between 1 and 1048576");
		return SURFER_EINVAL;
	}
	if (!o->dp || !o->tp || !o->pp || o->dp > 65536 || o->tp > 1024 || o->pp > 1024) {
		snprintf(err, errlen, "--dp, --tp and --pp must be positive");
		return SURFER_EINVAL;
	}
	if (o->kv_fp8) {
		snprintf(err, errlen, "--kv-cache-dtype fp8 is a serving engine's cache: add --engine vllm "
			 "or sglang");
		return SURFER_EINVAL;
	}
	uint32_t kv = c->kv_heads ? c->kv_heads : c->heads;
	if (c->heads % o->tp || c->ffn % o->tp) {
		snprintf(err, errlen, "--tp %u does not divide the %u heads or the MLP width %u",
			 o->tp, c->heads, c->ffn);
		return SURFER_EINVAL;
	}
	/* Megatron (num_query_groups % tensor_model_parallel_size), torchtitan
	 * and transformers' tp_plan shard K and V by whole heads, column-
	 * parallel: a rank needs one at least.  (The serving engines replicate
	 * KV heads past that, serve.c.) */
	if (kv % o->tp) {
		snprintf(err, errlen, "--tp %u does not divide the %u key/value heads: training stacks "
			 "shard K and V by whole heads (--engine vllm or sglang replicates them)", o->tp, kv);
		return SURFER_EINVAL;
	}
	int fused = o->attention != MODEL_ATTN_EAGER && o->attention != MODEL_ATTN_SDPA;
	const char *attn = model_attention_name(o->attention);
	if (fused && o->dtype != GPU_DT_BF16 && o->dtype != GPU_DT_FP16) {
		/* flash-attn, cuDNN's and FlashInfer's fused kernels and the
		 * Triton one run FP16 and BF16 only (FA3 also FP8 inputs) */
		snprintf(err, errlen, "--attention %s needs --dtype bf16 or fp16", attn);
		return SURFER_EINVAL;
	}
	if (fused && c->family == MODEL_FAM_T5) {
		/* T5 adds its relative position bias to the scores, which the
		 * FlashAttention kernels do not take (Hugging Face's T5 has no
		 * flash_attention_2) */
		snprintf(err, errlen, "model '%s': --attention %s takes no position bias (T5); "
			 "use eager or sdpa", c->name, attn);
		return SURFER_EINVAL;
	}
	if (o->attention == MODEL_ATTN_FLASHINFER && o->mode == MODEL_TRAINING) {
		snprintf(err, errlen, "--attention flashinfer has no backward kernels (FlashInfer "
			 "serves inference); train with flash, fa2, fa3, cudnn or triton");
		return SURFER_EINVAL;
	}
	if (o->attention == MODEL_ATTN_TRITON && c->head_dim > 128) {
		snprintf(err, errlen, "model '%s': --attention triton takes head dims up to 128 "
			 "(flash_attn_triton.py), not %u", c->name, c->head_dim);
		return SURFER_EINVAL;
	}
	if (o->mode == MODEL_GENERATE) {
		snprintf(err, errlen, "generate is built as an inference and a decode pass");
		return SURFER_EINVAL;
	}
	if (o->mode == MODEL_PREFILL || o->mode == MODEL_SERVE || o->lens || o->chunk) {
		snprintf(err, errlen, "--mode prefill and serve, --prompt-lens, --context-lens and "
			 "--chunk describe a serving engine: add --engine vllm or sglang");
		return SURFER_EINVAL;
	}
	if (o->mode == MODEL_DECODE &&
	    (c->family == MODEL_FAM_BERT || c->family == MODEL_FAM_T5 || o->head == MODEL_HEAD_CLASSIFY)) {
		snprintf(err, errlen, "model '%s': --mode decode and generate need a decoder-only "
			 "language model (GPT-2, OPT, Llama family)", c->name);
		return SURFER_EINVAL;
	}
	if (o->head == MODEL_HEAD_CLASSIFY && c->family == MODEL_FAM_T5) {
		snprintf(err, errlen, "model '%s': no sequence-classification head for T5", c->name);
		return SURFER_EINVAL;
	}
	uint32_t layers = c->layers + c->dec_layers;
	if (o->pp > layers) {
		snprintf(err, errlen, "--pp %u exceeds the %u layers", o->pp, layers);
		return SURFER_EINVAL;
	}
	if (c->kv_lora && (model_attention_impl(o) == PRED_ATTN_NONE || o->mode == MODEL_DECODE ||
			   model_cp(o) > 1)) {
		/* MLA's attention is one fused kernel (FlashAttention, cuDNN)
		 * in every stack that trains it; its decode step is the
		 * absorbed form the engines run */
		snprintf(err, errlen, "model '%s': multi-head latent attention is built as fused attention "
			 "(--attention flash, fa2, fa3 or cudnn; flash when none is given) in --dtype bf16, "
			 "fp16 or fp8 for training and inference, without --cp; decode runs with --engine "
			 "sglang or vllm", c->name);
		return SURFER_EINVAL;
	}
	if (c->oss && o->stack == MODEL_STACK_EAGER && o->attention != MODEL_ATTN_EAGER) {
		/* transformers' GptOssPreTrainedModel supports neither SDPA nor
		 * flash_attention_2: the sinks join the scores in its eager
		 * attention (attention_core), and a fused kernel without them
		 * would be another model */
		snprintf(err, errlen, "model '%s': Hugging Face's gpt-oss runs its attention sinks in "
			 "eager attention only (no SDPA or flash_attention_2 support); use --attention "
			 "eager, or --stack te's fused attention, or serve it with --engine sglang or vllm",
			 c->name);
		return SURFER_EINVAL;
	}
	if ((c->sandwich_norm || c->oss) && (o->mode == MODEL_DECODE || model_cp(o) > 1)) {
		/* transformers' generate() gives Gemma 2/3 its HybridCache (a
		 * static cache of the longest length for the global layers, a
		 * rolling one of the window for the local ones) and gpt-oss
		 * window-long caches for its banded layers, not the
		 * DynamicCache's concatenation built here */
		snprintf(err, errlen, "model '%s': Hugging Face's decode of sliding-window layers (Gemma "
			 "2/3's HybridCache, gpt-oss's window caches) and ring attention (--cp) over them "
			 "are not built; decode runs with --engine sglang or vllm", c->name);
		return SURFER_EINVAL;
	}
	if (o->mtp && (!c->kv_lora || o->mode != MODEL_TRAINING || o->zero >= 2 || o->mtp > 8)) {
		snprintf(err, errlen, "--mtp %u: multi-token prediction is DeepSeek-V3's (an MLA model), "
			 "1 to 8 modules, in training without --zero 2 or 3", o->mtp);
		return SURFER_EINVAL;
	}
	uint32_t ep = model_ep(o);
	if (ep > 1 && (c->experts <= 1 || c->family != MODEL_FAM_LLAMA || c->experts % ep)) {
		snprintf(err, errlen, "--ep %u splits the routed experts: model '%s' has %u%s", ep, c->name,
			 c->experts > 1 ? c->experts : 0,
			 c->family != MODEL_FAM_LLAMA && c->experts > 1 ? " (expert parallelism of the Llama "
			 "family's top-k experts only)" : " experts, which it does not divide");
		return SURFER_EINVAL;
	}
	if (ep > 1 && o->dp % ep) {
		snprintf(err, errlen, "--ep %u must divide --dp %u: the expert-parallel ranks are data-parallel "
			 "ranks of the dense layers (dp x tp x pp x cp GPUs in all)", ep, o->dp);
		return SURFER_EINVAL;
	}
	if ((o->moe_route_nodes || o->moe_dispatch_fp8 || o->moe_a2a_overlap) &&
	    (ep <= 1 || o->mode != MODEL_TRAINING)) {
		snprintf(err, errlen, "--moe-route-nodes, --moe-dispatch-fp8 and --moe-a2a-overlap shape "
			 "the training all-to-alls of --ep: they need --mode training and --ep above 1");
		return SURFER_EINVAL;
	}
	if (ep > 1 && o->zero >= 2 && (o->hsdp || model_fsdp_impl(o) != MODEL_FSDP_2)) {
		/* FSDP2 shards the experts over dp / ep ranks (torchtitan);
		 * HSDP's replicas and the other FSDPs have no such group here */
		snprintf(err, errlen, "--ep %u with --zero %u: only FSDP2 (--fsdp 2, torchtitan's) without "
			 "--hsdp shards the experts; --zero 1 shards the optimizer state", ep, o->zero);
		return SURFER_EINVAL;
	}
	if (o->vpp > 1) {
		/* Megatron asserts the same: a stage's layers split evenly into
		 * its model chunks */
		uint32_t per = (layers + o->pp - 1) / o->pp;
		if (o->pp <= 1 || o->engine != MODEL_ENGINE_HF || per % o->vpp) {
			snprintf(err, errlen, "--vpp %u cuts a pipeline stage's layers into model chunks: "
				 "it needs --pp and must divide the %u layers of a stage", o->vpp,
				 o->pp > 1 ? per : layers);
			return SURFER_EINVAL;
		}
		if (o->pp_partition == MODEL_PP_COST) {
			/* interleaving is Megatron's; nanotron's cost split runs
			 * one model chunk a stage */
			snprintf(err, errlen, "--vpp %u interleaves Megatron's even split: it does not "
				 "combine with --pp-partition cost", o->vpp);
			return SURFER_EINVAL;
		}
	}
	if (o->pp_stage > (o->pp ? o->pp : 1)) {
		snprintf(err, errlen, "pipeline stage %u of %u", o->pp_stage, o->pp);
		return SURFER_EINVAL;
	}
	uint32_t cp = model_cp(o);
	if (cp > 1 && (o->mode == MODEL_DECODE || o->seq % cp)) {
		snprintf(err, errlen, "--cp %u splits the sequence: it needs a sequence length it divides "
			 "(%u) and no decode", cp, o->seq);
		return SURFER_EINVAL;
	}
	if (o->hsdp && (o->zero < 2 || !o->gpus_per_node)) {
		snprintf(err, errlen, "--hsdp shards FSDP (--zero 2 or 3) within a node: it needs --nodes, "
			 "--gpus-per-node or --system");
		return SURFER_EINVAL;
	}
	if (o->ckpt_layers && (o->act_ckpt != MODEL_CKPT_FULL || o->mode != MODEL_TRAINING)) {
		snprintf(err, errlen, "--act-ckpt-layers %u chooses the layers --act-ckpt full "
			 "recomputes: it needs --act-ckpt full and --mode training", o->ckpt_layers);
		return SURFER_EINVAL;
	}
	if (o->zero > 3) {
		snprintf(err, errlen, "--zero %u: the stages are 0 to 3", o->zero);
		return SURFER_EINVAL;
	}
	if (o->qlora && (!o->lora_rank || (o->dtype != GPU_DT_BF16 && o->dtype != GPU_DT_FP16) ||
			 model_mixed(o))) {
		snprintf(err, errlen, "--qlora holds the weights --lora adapts in NF4 and computes in the "
			 "16-bit --dtype (bitsandbytes' compute dtype): it needs --lora R and --dtype bf16 "
			 "or fp16, --precision pure");
		return SURFER_EINVAL;
	}
	if (o->liger && (c->family != MODEL_FAM_LLAMA || c->kv_lora || c->oss || !c->gated ||
			 (c->act != MODEL_ACT_SILU && c->act != MODEL_ACT_GELU_TANH))) {
		/* apply_liger_kernel_to_llama and its kind patch the gated
		 * decoders: not GPT-2, BERT, OPT, T5, MLA or gpt-oss */
		snprintf(err, errlen, "--liger patches Hugging Face's gated decoders (Llama, Mistral, "
			 "Mixtral, Qwen, Gemma, Phi-3); '%s' is not one of them", c->name);
		return SURFER_EINVAL;
	}
	if (o->liger && (o->stack != MODEL_STACK_EAGER || o->tp > 1 || o->pp > 1 || model_cp(o) > 1 ||
			 o->fp8)) {
		/* its fused cross-entropy holds the whole vocabulary (no TP),
		 * and the HF Trainer runs it without a pipeline */
		snprintf(err, errlen, "--liger runs under the eager stack on one GPU or data parallel: "
			 "no --tp, --pp, --cp, FP8 or --stack compile|te");
		return SURFER_EINVAL;
	}
	if (o->lora_rank && (c->experts > 1 || c->family == MODEL_FAM_T5)) {
		snprintf(err, errlen, "--lora %u: the adapters are built for dense decoder models; '%s' %s",
			 o->lora_rank, c->name, c->experts > 1 ? "has mixture-of-experts layers"
							       : "is an encoder-decoder (T5)");
		return SURFER_EINVAL;
	}
	if (o->lora_rank && (!model_lora_layout(o) || model_cp(o) > 1 || o->fp8 || o->offload ||
			     o->stack == MODEL_STACK_TE)) {
		/* what the adapters are built for: PEFT on one GPU, under DDP
		 * (HF Trainer) or FSDP (torchtune's distributed recipes) */
		snprintf(err, errlen, "--lora %u is built on one GPU or data parallel (--dp with "
			 "--zero 0 to 3; --qlora without FSDP), without --tp, --pp, --cp, --offload, FP8 or "
			 "--stack te", o->lora_rank);
		return SURFER_EINVAL;
	}
	if (o->adam_8bit && (o->stack == MODEL_STACK_TE || o->offload)) {
		/* Megatron's distributed optimizer and DeepSpeed's CPU Adam are
		 * their own */
		snprintf(err, errlen, "--optimizer adamw-8bit is bitsandbytes' AdamW8bit: not under "
			 "--stack te (Megatron's optimizer) or --offload (DeepSpeed's CPU Adam)");
		return SURFER_EINVAL;
	}
	if (o->offload && (o->mode != MODEL_TRAINING || !o->zero ||
			   (o->optimizer != MODEL_OPTIM_ADAMW) || (o->pp > 1 && o->zero > 1))) {
		/* DeepSpeed's CPU optimizer is its Adam; its pipeline engine
		 * runs ZeRO stage 1 only */
		snprintf(err, errlen, "--offload runs AdamW's step on the CPU as DeepSpeed's ZeRO does: "
			 "it needs --mode training, --zero 1, 2 or 3 (1 with --pp) and --optimizer adamw");
		return SURFER_EINVAL;
	}
	if (o->offload && !(o->host_rank_gbps > 0)) {
		snprintf(err, errlen, "--offload: no host memory bandwidth (--host-mem-gbps, or a "
			 "system of systems.csv that lists one)");
		return SURFER_EINVAL;
	}
	if (o->zero && o->mode != MODEL_TRAINING) {
		snprintf(err, errlen, "--zero shards the training state: it needs --mode training");
		return SURFER_EINVAL;
	}
	/* what only a training step has: refused, never silently dropped */
	const char *train = model_training_flag(o);
	if (train && o->mode != MODEL_TRAINING) {
		snprintf(err, errlen, "%s shapes a training step: it needs --mode training", train);
		return SURFER_EINVAL;
	}
	if (o->zero >= 2 && model_grad_ranks(o) > 1 && o->pp > 1 &&
	    model_fsdp_impl(o) != MODEL_FSDP_2) {
		/* FSDP2 under torch's pipeline schedules is what torchtitan
		 * runs (bld_sharded() says how); FSDP1 and Megatron's FSDP have no
		 * pipeline schedule of their own */
		snprintf(err, errlen, "--zero %u --fsdp %s does not combine with --pp (FSDP2, --fsdp 2, "
			 "does: torchtitan's; or --zero 1)", o->zero,
			 model_fsdp_impl(o) == MODEL_FSDP_1 ? "1" : "megatron");
		return SURFER_EINVAL;
	}
	if (o->pp > 1 && o->microbatches > o->batch) {
		/* a microbatch holds whole sequences of --batch */
		snprintf(err, errlen, "--microbatches %u exceeds --batch %u: a microbatch holds whole "
			 "sequences (--grad-accum N runs N micro-batches of --batch)", o->microbatches,
			 o->batch);
		return SURFER_EINVAL;
	}
	if (o->pp > 1) {
		uint32_t mb = model_microbatches(o);
		if (o->batch % mb) {
			snprintf(err, errlen, "batch %u is not a multiple of the %u microbatches",
				 o->batch, mb);
			return SURFER_EINVAL;
		}
	}
	return 0;
}

int model_ckpt_layer(const struct model_opts *o, uint32_t stage_layers, uint32_t rel)
{
	if (o->act_ckpt == MODEL_CKPT_NONE || o->mode != MODEL_TRAINING)
		return 0;
	if (o->act_ckpt != MODEL_CKPT_FULL || !o->ckpt_layers)
		return 1;
	/* Megatron-Core builds one model per virtual stage (the model list of
	 * interleaving), each with a TransformerBlock of its chunk's layers,
	 * whose _checkpointed_forward under recompute_method block
	 * checkpoints its first recompute_num_layers
	 * (megatron/core/transformer/transformer_block.py) */
	if (o->vpp > 1 && rel < stage_layers && stage_layers % o->vpp == 0)
		rel %= stage_layers / o->vpp;
	return rel < o->ckpt_layers;
}

uint32_t model_cp(const struct model_opts *o)
{
	return o->cp > 1 ? o->cp : 1;
}

uint32_t model_grad_ranks(const struct model_opts *o)
{
	return (o->dp ? o->dp : 1) * model_cp(o);
}

uint32_t model_ep(const struct model_opts *o)
{
	return o->ep > 1 ? o->ep : 1;
}

uint32_t model_shard_ranks(const struct model_opts *o)
{
	uint32_t dp = model_grad_ranks(o), inner = o->tp ? o->tp : 1;
	if (!o->hsdp || !o->gpus_per_node)
		return dp;
	uint32_t s = o->gpus_per_node > inner ? o->gpus_per_node / inner : 1;
	return s < dp ? s : dp;
}

void model_group(const struct model_opts *o, enum model_group g, uint32_t *ranks,
		 uint32_t *node_ranks)
{
	uint32_t tp = o->tp ? o->tp : 1, cp = model_cp(o), dp = model_grad_ranks(o);
	uint32_t shard = model_shard_ranks(o), n = 1, inner = 1;
	switch (g) {
	case MODEL_GROUP_TP: n = tp; break;
	case MODEL_GROUP_CP: n = cp; inner = tp; break;
	case MODEL_GROUP_DP: n = dp; inner = tp; break;           /* dp x cp ranks */
	case MODEL_GROUP_PP: n = 2; inner = tp * dp; break;       /* a stage and the next */
	case MODEL_GROUP_SHARD: n = shard; inner = tp; break;
	case MODEL_GROUP_REPLICA: n = dp / shard; inner = tp * shard; break;
	case MODEL_GROUP_EP: n = model_ep(o); inner = tp * cp; break;
	case MODEL_GROUP_EDP: n = o->dp / model_ep(o); inner = tp * cp * model_ep(o); break;
	case MODEL_GROUP_EMBED: /* stage 0 and stage pp - 1 */
		n = 2;
		inner = tp * dp * ((o->pp > 1 ? o->pp : 2) - 1);
		break;
	}
	*ranks = n;
	/* members inner ranks apart: a node of G holds G / inner of them;
	 * the first and the last stage share one when the pipeline's pp tp
	 * dp ranks fit in it (the stages outermost, from a node's start).
	 * G is the NVLink domain where it spans hosts (NVL72): the comm
	 * model times a group inside it over NVLink, not the network */
	uint32_t G = o->nvlink_gpus > o->gpus_per_node ? o->nvlink_gpus : o->gpus_per_node;
	uint32_t per = !G ? n : G > inner ? G / inner : 1;
	if (g == MODEL_GROUP_EMBED && (uint64_t)inner + (uint64_t)tp * dp <= G)
		per = 2;
	*node_ranks = per < n ? per : n;
}

int model_offload_place(struct model_opts *o, const struct gpu_spec *g, char *err, size_t errlen)
{
	if (!o->offload)
		return 0;
	const struct gpu_system *s = gpu_system_for(o->system, g);
	double node = o->host_mem_gbps > 0 ? o->host_mem_gbps : s ? s->host_mem_gbps : 0;
	uint32_t per = o->gpus_per_node ? o->gpus_per_node : s && s->gpus_per_node ? s->gpus_per_node : 8;
	if (!(node > 0)) {
		snprintf(err, errlen, "--offload: the host memory bandwidth of %s is not in systems.csv; "
			 "give it with --host-mem-gbps (GB/s per node)", s ? s->id : g ? g->id : "the system");
		return SURFER_EINVAL;
	}
	o->host_rank_gbps = node / per;
	return 0;
}

void model_place_domain(struct model_opts *o, const struct gpu_spec *g)
{
	const struct gpu_system *s = gpu_system_for(o->system, g);
	/* only the system's own hosts lie in its domain: --gpus-per-node 4 on
	 * an 8-GPU HGX board names 4-GPU nodes, no domain across them */
	o->nvlink_gpus = s && o->gpus_per_node == s->gpus_per_node &&
			 s->nvlink_domain > s->gpus_per_node ? s->nvlink_domain : 0;
}

int model_opts_place(struct model_opts *o, const struct gpu_spec *g, char *err, size_t errlen)
{
	if (model_offload_place(o, g, err, errlen))
		return SURFER_EINVAL;
	if (!o->system && !o->nodes && !o->gpus_per_node)
		return 0;
	const struct gpu_system *s = gpu_system_for(o->system, g);
	if (!o->gpus_per_node)
		o->gpus_per_node = s ? s->gpus_per_node : 8;
	model_place_domain(o, g);
	uint32_t tp = o->tp ? o->tp : 1, pp = o->pp ? o->pp : 1, cp = model_cp(o);
	uint64_t inner = (uint64_t)tp * pp * cp, used = inner * (o->dp ? o->dp : 1);
	if (o->nodes) {
		uint64_t world = (uint64_t)o->nodes * o->gpus_per_node;
		if (o->dp <= 1 && world % inner == 0 && world / inner <= 65536) {
			o->dp = (uint32_t)(world / inner);
			used = world;
		}
		if (used != world) {
			snprintf(err, errlen, "--nodes %u of %u GPUs make %llu, but dp x tp x pp x cp is "
				 "%llu", o->nodes, o->gpus_per_node, (unsigned long long)world,
				 (unsigned long long)used);
			return SURFER_EINVAL;
		}
	}
	if (o->hsdp && model_grad_ranks(o) % model_shard_ranks(o)) {
		snprintf(err, errlen, "--hsdp: %u data-parallel ranks are not whole nodes of %u",
			 model_grad_ranks(o), model_shard_ranks(o));
		return SURFER_EINVAL;
	}
	return 0;
}

/* Whether forward kernel k (of a block, in forward order; *mm counts the
 * block's matmuls so far) is run again before the block's backward under
 * the checkpointing policy.  full: every kernel but FSDP's gathers (the
 * parameters stay gathered from the pre-backward hook).  selective, eager
 * and compile (torchtitan's per-op policy, activation_checkpoint.py): the
 * outputs of matmuls (odd ones by forward order), attention kernels,
 * reduce-scatters and all-to-alls are saved; every second mm/linear and
 * every other op recomputed.  selective under te (Megatron's recompute_modules
 * core_attn): the attention forward only. */
static int recomputed(const struct bld *B, const struct model_kernel *k, uint32_t *mm)
{
	/* the side stream's gathers and buckets are not recomputed; an
	 * overlapped all-to-all is (--moe-a2a-overlap) */
	if (k->phase == MODEL_PH_COMM && k->async && k->comm != COMM_ALL_TO_ALL)
		return 0;
	if (B->o->act_ckpt == MODEL_CKPT_FULL)
		return 1;
	if (B->o->stack == MODEL_STACK_TE)
		return k->k.op == PRED_OP_ATTENTION;
	if (k->k.op == PRED_OP_ATTENTION ||
	    (k->phase == MODEL_PH_COMM && (k->comm == COMM_REDUCE_SCATTER || k->comm == COMM_ALL_TO_ALL)))
		return 0;
	if (k->k.op == PRED_OP_GEMM) {
		if (k->k.batch > 1)    /* bmm: in the save list */
			return 0;
		return ++*mm % 2 == 0;
	}
	return k->role != MODEL_ROLE_PER_STEP;
}

/* The forward kernels of layer `layer` run again (activation
 * checkpointing), on the compute stream before its backward; under
 * --act-ckpt-layers N only those of the first N layers of the stage, of
 * each model chunk under --vpp (model_ckpt_layer()). */
static void recompute_layer(struct bld *B, int32_t layer)
{
	if (B->o->act_ckpt == MODEL_CKPT_NONE || layer < 0 || !B->fwd_hi ||
	    !model_ckpt_layer(B->o, B->s->stage_layers, (uint32_t)layer - B->s->first_layer))
		return;
	size_t lo = B->fwd_lo[layer + 1], hi = B->fwd_hi[layer + 1];
	uint32_t mm = 0;
	for (size_t i = lo; i < hi && !B->err; i++) {
		struct model_kernel src = B->s->v[i];
		if (!recomputed(B, &src, &mm))
			continue;
		struct model_kernel *k = bld_push(B);
		if (!k)
			return;
		uint32_t wait = k->wait;
		*k = src;
		k->wait = wait;
		k->phase = src.phase == MODEL_PH_COMM ? MODEL_PH_COMM : MODEL_PH_BACKWARD;
		k->role = MODEL_ROLE_RECOMPUTE;
	}
}

/* The backward pass, from the last op to the first. */
static void backward(struct bld *B)
{
	const struct model_opts *o = B->o;
	double pending = 0, expert_pending = 0;
	int shard = bld_sharded(B), regather = shard && o->zero == 3 && o->pp <= 1, ep = model_ep(o) > 1;
	uint32_t *gather = regather ? calloc(B->nunits, sizeof(*gather)) : NULL;
	if (regather && !gather) {
		B->err = SURFER_ENOMEM;
		return;
	}
	int32_t cur = INT32_MIN, rc_layer = INT32_MIN, first = (int32_t)B->s->first_layer;
	for (size_t i = B->nops; i-- > 0;) {
		const struct fop *f = &B->ops[i];
		if (shard && f->layer != cur) {
			if (cur >= 0)
				bld_zero_reduce(B, cur);
			int32_t next = f->layer >= 0 ? f->layer - 1 : (int32_t)B->nunits - 2;
			if (regather && next >= first && !gather[next + 1])
				gather[next + 1] = bld_zero_gather(B, next, MODEL_ASYNC_FREE);
			if (regather && f->layer >= 0) {
				if (!gather[f->layer + 1])
					gather[f->layer + 1] = bld_zero_gather(B, f->layer, MODEL_ASYNC_FREE);
				B->wait_next = gather[f->layer + 1];
				bld_zero_copy_out(B, f->layer, B->unit[f->layer + 1]);
			}
			cur = f->layer;
		}
		if (f->layer != rc_layer) {
			rc_layer = f->layer;
			recompute_layer(B, rc_layer);
			B->ph = MODEL_PH_BACKWARD;
		}
		uint32_t deferred = B->ntp_defer;
		bld_backward_op(B, f);
		B->ph = MODEL_PH_BACKWARD;
		/* a linear whose wgrad waits for its tensor-parallel collective
		 * (ops.c) joins the buckets once its wgrad is emitted */
		if (B->ntp_defer > deferred)
			continue;
		if (!shard && B->tp_flushed_elems > 0)
			bld_dp_buckets(B, B->tp_flushed_elems * B->esz, &pending, 0, MODEL_GROUP_DP);
		B->tp_flushed_elems = 0;
		if (!shard && f->param && ep && f->kind == F_GROUPED)
			bld_dp_buckets(B, f->param_elems * B->esz, &expert_pending, 0, MODEL_GROUP_EDP);
		else if (!shard && f->param && !f->frozen && !(f->kind == F_LINEAR && (f->flag & 2)))
			bld_dp_buckets(B, f->param_elems * B->esz, &pending, 0, MODEL_GROUP_DP);
	}
	B->layer = -1;
	B->wait_next = 0;
	if (shard) {
		if (cur >= 0)
			bld_zero_reduce(B, cur);
		bld_zero_reduce(B, -1);
	} else {
		bld_dp_buckets(B, 0, &pending, 1, MODEL_GROUP_DP);
		if (ep)
			bld_dp_buckets(B, 0, &expert_pending, 1, MODEL_GROUP_EDP);
	}
	free(gather);
}

double model_config_params(const struct model_config *c)
{
	double h = c->hidden, f = c->ffn, V = c->vocab, d = c->head_dim;
	double nh = c->heads, kv = c->kv_heads ? c->kv_heads : c->heads;
	double attn = h * nh * d * 2 + h * kv * d * 2;
	double mlp = h * f * (c->gated ? 3 : 2);
	double layer = attn + mlp;
	if (c->family == MODEL_FAM_T5) {
		double sparse_layers = 0;
		if (c->experts && c->sparse_step)
			sparse_layers = (double)((c->layers + c->dec_layers) / c->sparse_step);
		return (c->layers + c->dec_layers) * layer + c->dec_layers * attn +
		       sparse_layers * mlp * (c->experts - 1) + V * h;
	}
	if (c->kv_lora) {        /* MLA: q (through its rank), kv_a, kv_b, o */
		attn = mla_params(c, nh);
		layer = attn + mlp;
	}
	if (c->moe_ffn && c->experts > 1) {
		/* routed experts of moe_ffn, the shared ones, the router; the
		 * other layers (DeepSeek's first_dense, Llama 4 Maverick's every
		 * other) keep a dense MLP of ffn */
		double moe = 3.0 * h * c->moe_ffn * c->experts + 3.0 * h * c->shared_ffn + h * c->experts;
		double sparse = 0;
		for (uint32_t li = 0; li < c->layers; li++)
			sparse += model_layer_moe(c, li);
		return (c->layers - sparse) * (attn + mlp) + sparse * (attn + moe) + V * h * (c->tied ? 1 : 2);
	}
	if (c->experts > 1)      /* Mixtral: every layer's MLP, E times, + router */
		layer += mlp * (c->experts - 1) + h * c->experts;
	return c->layers * layer + V * h * (c->tied ? 1 : 2);
}

static void embeddings(struct bld *B)
{
	const struct model_config *c = B->c;
	uint64_t T = B->T, h = c->hidden, sl = B->sl;
	double bss = (double)B->b * (double)sl * (double)B->kv;   /* (b, 1, s, keys) mask */
	B->cols = h;
	switch (c->family) {
	case MODEL_FAM_GPT2:
		op_embed(B, T, h, c->vocab, 1);
		op_embed(B, sl, h, B->kv, 1);
		op_ew(B, "vectorized_elementwise_kernel<4, AddFunctor>", (double)T * h, 2, 1, 0, NULL);
		op_dropout(B, (double)T * h, c->dropout);
		break;
	case MODEL_FAM_BERT:
		/* BertModel with no attention_mask: torch.ones(b, s), then
		 * get_extended_attention_mask's (1.0 - m) * finfo.min on the
		 * (b, 1, 1, s) view; no gradient flows into them. */
		B->cols = sl;
		k_vector(B, "vectorized_elementwise_kernel<4, FillFunctor>", PRED_OP_ELEMENTWISE,
			 (double)T, 0.0, 1.0, 0.0);
		k_vector(B, "vectorized_elementwise_kernel<4, RsubFunctor>", PRED_OP_ELEMENTWISE,
			 (double)T, 1.0, 1.0, 1.0);
		k_vector(B, "vectorized_elementwise_kernel<4, MulFunctor>", PRED_OP_ELEMENTWISE,
			 (double)T, 1.0, 1.0, 1.0);
		B->cols = h;
		op_embed(B, T, h, c->vocab, 1);
		if (c->type_vocab) {
			op_embed(B, T, h, c->type_vocab, 1);
			op_ew(B, "vectorized_elementwise_kernel<4, AddFunctor>", (double)T * h, 2, 1, 0, NULL);
		}
		op_embed(B, sl, h, sl, 1);
		op_ew(B, "vectorized_elementwise_kernel<4, AddFunctor>", (double)T * h, 2, 1, 0, NULL);
		op_layernorm(B, T, h);
		op_dropout(B, (double)T * h, c->dropout);
		break;
	case MODEL_FAM_OPT:
		op_embed(B, T, h, c->vocab, 1);
		/* causal + padding mask of (b, 1, s, s): sub, to, masked_fill x2, bool */
		B->cols = sl;
		for (int i = 0; i < 5; i++)
			k_vector(B, "elementwise_kernel<128, 4, masked_fill_kernel>", PRED_OP_ELEMENTWISE,
				 bss, 1.0, 1.0, 1.0);
		B->cols = h;
		op_embed(B, T, h, B->kv + 2, 1);
		op_ew(B, "vectorized_elementwise_kernel<4, AddFunctor>", (double)T * h, 2, 1, 0, NULL);
		op_dropout(B, (double)T * h, c->dropout);
		break;
	case MODEL_FAM_LLAMA:
		op_embed(B, T, h, c->vocab, 1);
		if (c->embed_scale)     /* Gemma: embeddings x sqrt(hidden) */
			op_ew(B, "vectorized_elementwise_kernel<4, MulFunctor>", (double)T * h, 1, 1, 1,
			      "vectorized_elementwise_kernel<4, MulFunctor>");
		/* 4-D causal mask of (b, 1, s, s) and the rotary cos/sin tables;
		 * local layers' sliding-window mask beside it */
		B->cols = sl;
		for (int i = 0; i < (c->window && c->local_period ? 6 : 3); i++)
			k_vector(B, "elementwise_kernel<128, 4, masked_fill_kernel>", PRED_OP_ELEMENTWISE,
				 bss, 1.0, 1.0, 1.0);
		B->cols = c->head_dim;
		for (int i = 0; i < 4; i++)
			k_vector(B, "vectorized_elementwise_kernel<4, cos_kernel_cuda>", PRED_OP_ELEMENTWISE,
				 (double)sl * c->head_dim, 1.0, 1.0, 4.0);
		break;
	case MODEL_FAM_T5:
	default:
		op_embed(B, T, h, c->vocab, 1);
		op_dropout(B, (double)T * h, c->dropout);
		break;
	}
}

static void head(struct bld *B, int has_embed)
{
	const struct model_config *c = B->c;
	uint64_t T = B->T, h = c->hidden;
	int tied = c->tied && has_embed;
	if (B->o->head == MODEL_HEAD_CLASSIFY && c->family == MODEL_FAM_BERT) {
		/* BertForSequenceClassification: pooler (dense + tanh on the
		 * first token), dropout, classifier. */
		op_linear(B, B->b, h, h, 1, 0);
		op_ew(B, "vectorized_elementwise_kernel<4, tanh_kernel_cuda>", (double)B->b * h, 1, 4, 1,
		      "vectorized_elementwise_kernel<4, tanh_backward_kernel_cuda>");
		op_dropout(B, (double)B->b * h, c->dropout);
		op_linear(B, B->b, h, MODEL_CLASSIFY_LABELS, 1, 0);
		return;
	}
	switch (c->family) {
	case MODEL_FAM_BERT:
		/* BertForPreTraining: pooler + NSP head on the first token, and
		 * the MLM transform (dense, gelu, LN) before the decoder. */
		op_linear(B, B->b, h, h, 1, 0);
		op_ew(B, "vectorized_elementwise_kernel<4, tanh_kernel_cuda>", (double)B->b * h, 1, 4, 1,
		      "vectorized_elementwise_kernel<4, tanh_backward_kernel_cuda>");
		op_linear(B, T, h, h, 1, 0);
		op_ew(B, "vectorized_elementwise_kernel<4, GeluCUDAKernelImpl>", (double)T * h, 1, 8, 1,
		      "vectorized_elementwise_kernel<4, GeluBackwardCUDAKernelImpl>");
		op_layernorm(B, T, h);
		lm_head_and_loss(B, tied);
		op_linear(B, B->b, h, 2, 1, 0);
		return;
	case MODEL_FAM_GPT2:
	case MODEL_FAM_OPT:
		op_layernorm(B, B->Ts, h);
		break;
	case MODEL_FAM_LLAMA:
		op_rmsnorm(B, B->Ts, h);
		break;
	case MODEL_FAM_T5:
	default:
		op_rmsnorm(B, T, h);
		op_dropout(B, (double)T * h, c->dropout);
		if (c->tied)
			op_ew(B, "vectorized_elementwise_kernel<4, MulFunctor>", (double)T * h, 1, 1, 1, NULL);
		break;
	}
	if (B->o->head == MODEL_HEAD_CLASSIFY) {
		/* GPT2/OPT/Llama ForSequenceClassification: score = Linear(h, labels,
		 * bias=False) over every token, then the last token's row is
		 * picked (an index, no kernel of note). */
		op_linear(B, T, h, MODEL_CLASSIFY_LABELS, 0, 0);
		return;
	}
	lm_head_and_loss(B, tied);
}

/* Tied embeddings under a pipeline: the first stage holds the token
 * embedding, the last the LM head, one weight in two copies, so after
 * the step's last backward the two gradients are summed between those
 * two stages, once a step before the optimizer (Megatron-Core's
 * finalize_model_grads, _allreduce_word_embedding_grads over the
 * embedding group; nanotron's sync_tied_weights_gradients over the tied
 * ranks): an all-reduce of vocab / tp x hidden gradients, FP32 where
 * they accumulate in FP32 (--grad-fp32; --stack te's main_grad). */
static void tied_grad_sync(struct bld *B, int has_embed, int has_head)
{
	const struct model_opts *o = B->o;
	if (o->pp <= 1 || !B->c->tied || !(has_embed || has_head) || o->mode != MODEL_TRAINING ||
	    o->head == MODEL_HEAD_CLASSIFY)
		return;
	double esz = o->grad_fp32 || o->stack == MODEL_STACK_TE ? 4.0 : B->esz;
	B->layer = -1;
	k_comm(B, COMM_ALL_REDUCE, (double)cdiv(B->c->vocab, B->tp) * B->c->hidden * esz,
	       MODEL_GROUP_EMBED, 0);
	struct model_kernel *k = bld_last_kernel(B);
	if (k)
		k->step_once = 1;
}

/* A pipeline stage boundary crossed: the activations received from the
 * previous stage in forward (one send/recv; T / tp tokens of them under
 * sequence parallelism, as Megatron sends the shard), their gradient sent back in
 * backward (F_PP_SEND).  1F1B's exchanges block the compute stream
 * (Megatron's schedule without interleaving waits for each); interleaved,
 * they are overlapped with the next chunk's compute on the side stream
 * (overlap_p2p_comm, schedules.py). */
static void pp_boundary(struct bld *B)
{
	int async = B->o->vpp > 1 ? MODEL_ASYNC_AFTER : 0;
	k_comm(B, COMM_SEND_RECV, (double)B->Ts * B->c->hidden * B->esz, MODEL_GROUP_PP, async);
	struct fop f = { .kind = F_PP_SEND, .a = B->Ts * B->c->hidden, .flag = async };
	bld_remember(B, &f);
}

uint32_t model_microbatches(const struct model_opts *o)
{
	uint32_t mb;

	if (o->pp <= 1)
		return 1;
	mb = o->microbatches ? o->microbatches : o->pp;
	return mb < o->batch ? mb : o->batch ? o->batch : 1;
}

void model_opts_init(struct model_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->batch = 1;
	o->seq = 128;
	o->mode = MODEL_INFERENCE;
	o->dtype = GPU_DT_FP32;
	o->optimizer = MODEL_OPTIM_NONE;
	o->attention = MODEL_ATTN_EAGER;
	o->dp = o->tp = o->pp = 1;
}

int model_build(const struct model_config *c, const struct model_opts *o,
		struct model_seq *s, char *err, size_t errlen)
{
	char dummy[8];
	if (!err) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	memset(s, 0, sizeof(*s));
	if (o->engine != MODEL_ENGINE_HF)
		return serve_build(c, o, s, err, errlen);
	int rc = check_config(c, o, err, errlen);
	if (rc)
		return rc;

	struct bld B;
	bld_init(&B, c, o, s);
	uint32_t mb = model_microbatches(o);
	B.b = o->batch / mb;
	s->micro_batch = B.b;
	s->microbatches = mb;
	B.sl = o->mode == MODEL_DECODE ? 1 : o->seq / model_cp(o);
	B.kv = o->mode == MODEL_DECODE ? (uint64_t)o->seq + 1 : o->seq;
	B.T = B.b * B.sl;
	B.Ts = o->sp && o->tp > 1 ? cdiv(B.T, o->tp) : B.T;
	s->params_total = model_config_params(c);

	/* Pipeline parallelism: one stage is modelled (model_pp_built_stage:
	 * the last, which runs the LM head and the loss, or the slowest one
	 * model_pp_pick_stage() found, stage.c); it receives its input from
	 * the previous stage and sends the gradient back, and sends its
	 * output to the next and receives that gradient. */
	uint32_t total = c->layers + c->dec_layers;
	uint32_t stage = model_pp_built_stage(o), first, per_stage;
	int has_head = model_pp_stage(c, o, stage, &first, &per_stage, err, errlen);
	if (has_head < 0)
		return has_head;
	int has_embed = stage == 0;
	s->stage_layers = per_stage;
	s->first_layer = first;
	if (o->mode == MODEL_DECODE) {
		/* every sequence of the batch keeps its cache between steps */
		uint64_t kvh = c->kv_heads ? c->kv_heads : c->heads;
		kvh = kvh >= o->tp ? kvh / o->tp : 1;
		s->kv_cache_bytes = 2.0 * s->stage_layers * (double)o->batch * (double)kvh *
				    (double)B.kv * c->head_dim * B.esz;
	}

	B.nunits = total + 1 + o->mtp;   /* the MTP modules' layers after the others */
	B.unit = calloc(B.nunits, sizeof(*B.unit));
	B.unit_x = calloc(B.nunits, sizeof(*B.unit_x));
	B.unit_t = calloc(B.nunits, sizeof(*B.unit_t));
	uint32_t *gathers = calloc(B.nunits, sizeof(*gathers));
	B.fwd_lo = calloc(B.nunits, sizeof(*B.fwd_lo));
	B.fwd_hi = calloc(B.nunits, sizeof(*B.fwd_hi));
	if (!B.unit || !B.unit_x || !B.unit_t || !gathers || !B.fwd_lo || !B.fwd_hi) {
		free(B.unit);
		free(B.unit_x);
		free(B.unit_t);
		free(gathers);
		free(B.fwd_lo);
		free(B.fwd_hi);
		return SURFER_ENOMEM;
	}
	B.ph = MODEL_PH_FORWARD;
	uint32_t *copies = calloc(B.nunits, sizeof(*copies));   /* FSDP2's copy-outs */
	if (!copies) {
		free(B.unit);
		free(B.unit_x);
		free(B.unit_t);
		free(gathers);
		free(B.fwd_lo);
		free(B.fwd_hi);
		return SURFER_ENOMEM;
	}
	if (bld_sharded(&B)) {
		B.wait_next = gathers[0] = bld_zero_gather(&B, -1, MODEL_ASYNC_FREE);
		copies[0] = bld_zero_copy_out(&B, -1, 0);
	}
	/* interleaved 1F1B: the stage's model chunks of `chunk` layers, each
	 * receiving its input from the previous rank (and its gradient sent
	 * back in backward); their exchanges belong to their chunk's first
	 * layer */
	uint32_t chunk = o->vpp > 1 ? per_stage / o->vpp : 0;
	if (has_embed) {
		embeddings(&B);
	} else {
		if (chunk)
			B.layer = (int32_t)first;
		pp_boundary(&B);
	}
	for (uint32_t i = first; i < first + per_stage; i++) {
		B.layer = (int32_t)i;
		B.cols = c->hidden;
		if (chunk && i > first && (i - first) % chunk == 0)
			pp_boundary(&B);
		if (bld_sharded(&B)) {
			B.wait_next = gathers[i + 1] = bld_zero_gather(&B, (int32_t)i, MODEL_ASYNC_FREE);
			copies[i + 1] = bld_zero_copy_out(&B, (int32_t)i, 0);
		}
		B.fwd_lo[i + 1] = s->n;
		switch (c->family) {
		case MODEL_FAM_GPT2: layer_gpt2(&B); break;
		case MODEL_FAM_BERT: layer_bert(&B); break;
		case MODEL_FAM_OPT: layer_opt(&B); break;
		case MODEL_FAM_LLAMA:
			if (c->kv_lora)
				layer_mla(&B);
			else
				layer_llama(&B);
			break;
		case MODEL_FAM_T5:
		default: {
			int dec = i >= c->layers;
			uint32_t idx = dec ? i - c->layers : i;
			int sparse = model_layer_sparse(c, i);
			if (dec && idx == 0) {
				B.layer = -1;
				op_rmsnorm(&B, B.T, c->hidden);      /* encoder final norm */
				op_embed(&B, B.T, c->hidden, c->vocab, 0); /* decoder input */
				B.layer = (int32_t)i;
			}
			if (idx == 0)
				t5_position_bias(&B, dec);
			layer_t5(&B, dec, sparse);
			break;
		}
		}
		B.fwd_hi[i + 1] = B.err ? 0 : s->n;
	}
	B.layer = -1;
	if (has_head) {
		head(&B, has_embed);
		mtp_modules(&B, total);
	} else {
		pp_boundary(&B);   /* the output to the next stage */
	}

	/* the forward gathers' sizes, now that every unit's are known */
	for (uint32_t u = 0; u < B.nunits && !B.err; u++)
		if (gathers[u]) {
			struct pred_kernel *k = &s->v[gathers[u] - 1].k;
			double x = model_ep(o) > 1 ? B.unit_x[u] : 0;
			k->bytes = (model_ep(o) > 1 ? x : B.unit[u]) * B.esz;
			k->m = (uint64_t)k->bytes;
			if (model_ep(o) > 1) {   /* the dense part's, just before */
				k = &s->v[gathers[u] - 2].k;
				k->bytes = (B.unit[u] - x) * B.esz;
				k->m = (uint64_t)k->bytes;
			}
			if (copies[u]) {
				struct pred_kernel *c = &s->v[copies[u] - 1].k;
				uint64_t n = B.unit[u] > 1 ? (uint64_t)B.unit[u] : 1;
				c->grid[0] = (uint32_t)(cdiv(n, 512) ? cdiv(n, 512) : 1);
				c->m = n;
				c->bytes = 2.0 * B.unit[u] * B.esz;
			}
		}
	s->root_params = B.unit[0];
	for (uint32_t u = 1; u < B.nunits; u++)
		if (B.unit[u] > s->layer_params)
			s->layer_params = B.unit[u];

	if (o->mode == MODEL_TRAINING && !B.err) {
		B.ph = MODEL_PH_BACKWARD;
		backward(&B);
		tied_grad_sync(&B, has_embed, has_head);
		bld_fp8_gathers(&B);
		bld_stack_fuse(&B);
		bld_optimizer_step(&B);
		if (o->zero == 1 && model_grad_ranks(o) > 1 && model_ep(o) > 1) {
			/* the dense shards over dp, the experts' over dp / ep */
			k_comm(&B, COMM_ALL_GATHER, (s->params - s->expert_params) * B.esz, MODEL_GROUP_DP,
			       MODEL_ASYNC_AFTER);
			if (o->dp > model_ep(o))
				k_comm(&B, COMM_ALL_GATHER, s->expert_params * B.esz, MODEL_GROUP_EDP,
				       MODEL_ASYNC_AFTER);
		} else if (o->zero == 1 && model_grad_ranks(o) > 1) {
			k_comm(&B, COMM_ALL_GATHER, s->params_trainable * B.esz, MODEL_GROUP_DP,
			       MODEL_ASYNC_AFTER);
		}
	}
	if (o->mode != MODEL_TRAINING)
		bld_stack_fuse(&B);
	bld_graph_regions(&B);
	free(gathers);
	free(copies);
	free(B.unit);
	free(B.unit_x);
	free(B.unit_t);
	free(B.fwd_lo);
	free(B.fwd_hi);
	free(B.ops);
	if (B.err) {
		model_seq_release(s);
		snprintf(err, errlen, "%s", bld_error(&B));
		return B.err;
	}
	return 0;
}

void model_seq_release(struct model_seq *s)
{
	if (!s)
		return;
	bld_keep_array(s->v, s->cap);
	memset(s, 0, sizeof(*s));
}

double model_seq_flops(const struct model_seq *s, enum model_phase ph)
{
	double f = 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].phase == ph)
			f += s->v[i].k.flops;
	return f;
}

size_t model_seq_count(const struct model_seq *s, enum model_phase ph)
{
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++)
		n += s->v[i].phase == ph;
	return n;
}

const char *model_family_name(enum model_family f)
{
	static const char *const names[] = { "gpt2", "bert", "opt", "llama", "t5" };
	return (unsigned)f < MODEL_FAM_COUNT ? names[f] : "?";
}

const char *model_phase_name(enum model_phase p)
{
	static const char *const names[] = { "forward", "backward", "optimizer", "communication" };
	return (unsigned)p < MODEL_PH_COUNT ? names[p] : "?";
}
