/*
 * serve.c - a model configuration to the kernels a serving engine issues:
 * vLLM V1 and SGLang, for Llama-style decoders (Llama 3.x, Mistral,
 * Mixtral, Qwen2/2.5, Qwen3, Qwen3-MoE).  It reuses build.h's emitters and
 * writes what docs/serving-engines.md reads from the engines' source
 * (vLLM main @ 9aaf83ef5, 2026-05; SGLang main @ 8905cbd42, v0.5.15; the
 * kernel libraries FlashAttention @ 0251105a, vLLM's fork @ 617264c1,
 * FlashInfer @ fb28d724), not what Hugging Face's eager modules call:
 *
 *  - one forward pass serves a batch of requests, each with n new tokens
 *    after p cached ones (a prompt: p = 0; a decode step: n = 1): the
 *    tokens of all requests are one ragged [T, H] activation, no padding
 *    between prompts;
 *  - per layer (serving-engines.md 1.1, 1.2): fused residual add + RMSNorm
 *    (one kernel; the first layer's input norm has no residual), QKV as one
 *    GEMM (merged column-parallel), Qwen3's q/k norm (SGLang: one fused
 *    kernel since PR #15835; vLLM: fused into the rotary kernel by Inductor),
 *    rotary embedding in place, the KV-cache write (one kernel), attention
 *    (ragged prefill over the prompts; decode reads each sequence's paged
 *    cache once, KV heads only, never repeated per query head), o_proj,
 *    the tensor-parallel all-reduce, fused add + RMSNorm, gate_up as one
 *    GEMM, SiLU-and-mul (one kernel), down_proj, all-reduce;
 *  - mixture of experts (vLLM fused_moe/, SGLang's Triton fused MoE): the
 *    router GEMM, top-k softmax, the block alignment of the routed rows,
 *    the grouped w13 GEMM over the experts the batch's tokens hit,
 *    SiLU-and-mul, the grouped w2 GEMM, the sum over the top-k; experts
 *    split over the TP ranks (the engines' default), or with --ep whole
 *    experts over the TP ranks, or over data-parallel attention ranks with
 *    the tokens dispatched and combined by all-to-all;
 *  - the end of the model: the final fused add + RMSNorm over every token,
 *    the last token of each request gathered, the LM head on those rows
 *    only, an all-gather of the logits under TP, sampling (SGLang
 *    bench_one_batch: greedy argmax; vLLM: temperature, softmax,
 *    exponential race, argmax);
 *  - CUDA graphs: a decode step (uniform, one token per request) up to the
 *    engine's largest captured batch replays one graph padded to the
 *    smallest captured size >= the batch (its GEMMs, norms and
 *    all-reduces run the padded rows); SGLang's graph holds the LM head,
 *    vLLM's does not (compute_logits runs after it); vLLM runs prefill
 *    steps of up to 512 tokens as piecewise graphs with attention and the
 *    KV write eager between the pieces.  Larger batches run eagerly;
 *  - chunked prefill (--chunk): the prompts go through in steps of at most
 *    that many tokens, in order, a prompt split where the budget ends
 *    (vLLM's scheduler); each step ends with a synchronization;
 *  - each step starts with the engine's CPU work (scheduling, input
 *    preparation, the graph or kernel launches) before its first kernel;
 *  - FP8 (--dtype fp8, or by default a checkpoint whose
 *    quantization_config says fp8, DeepSeek-V3's): the decoder's linears
 *    W8A8 as the engines serve such checkpoints (SGLang's and vLLM's Fp8
 *    linear and fused-MoE methods, block-scaled): each GEMM's input
 *    quantized to FP8 by a per-token-group kernel (groups of 128, an FP32
 *    scale each; the MoE's w13 input once per token, its w2 input per
 *    routed row), the GEMM FP8 x FP8 into BF16 (DeepGEMM or CUTLASS on
 *    Hopper: the tensor-core model's FP8 rate), the weights a byte each;
 *    MLA's absorbed per-head products too (SGLang's bmm_fp8).  The
 *    embedding, the LM head, the routers, the norms and attention stay
 *    BF16.  vLLM's Inductor can fuse the quantization into the norm or
 *    SiLU-and-mul before it; it is kept a kernel of its own here, as
 *    SGLang runs it;
 *  - AWQ and GPTQ checkpoints of 4 or 8 bits: the decoder's linears
 *    weight-only, as both engines run them on sm_80 and later through the
 *    Marlin kernels (vLLM's awq_marlin / gptq_marlin; fused_marlin_moe for
 *    the experts): the GEMM in the activation dtype, its weights streamed
 *    at their packed bytes with scales and zero points (the operator
 *    record's b_bytes) and widened in registers, no quantization kernel
 *    before it (the activations stay 16-bit); MLA's per-head products,
 *    the embedding, the LM head and the routers stay 16-bit;
 *  - the KV cache in the activation dtype (the engines' kv_cache_dtype
 *    auto), or with --kv-cache-dtype fp8 a byte an element: the cache
 *    writes store a byte, the attention kernels read one (the call's
 *    kv_bytes) and convert it in registers.
 *
 * Attention kernels are emitted as PRED_OP_ATTENTION records that carry
 * the work (FLOPs, bytes, heads) and leave the choice of kernel
 * (FlashAttention-2/3, FlashInfer) to the predictor, which knows the
 * target; the builder, like a trace, knows no GPU.
 */
#include "analyzer/model/attn.h"
#include "analyzer/model/build.h"
#include "analyzer/model/moe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One request of a forward pass: n new tokens after p cached ones. */
struct sreq {
	uint64_t n, p;
};

/* One cudaGraphLaunch of a whole decode graph, CPU side (the driver
 * uploads the executable graph's launch work; ~10 us in SGLang's replay
 * path, which also copies the step's inputs into the graph's buffers). */
#define SERVE_GRAPH_LAUNCH_NS 30000.0

/* vLLM piecewise prefill graphs up to this many tokens
 * (max_cudagraph_capture_size with the default max_num_seqs). */
#define VLLM_GRAPH_MAX_TOKENS 512u

struct srv {
	struct bld *B;
	enum model_engine eng;
	uint64_t nh, nkv, d, h, I, V, E, K; /* per GPU after TP */
	uint64_t Im, Is;          /* a routed expert's and the shared experts' width */
	int fp8;                  /* the linears in FP8 (W8A8)               */
	double wq;                /* the linears weight-only quantized: bytes
				   * a weight (AWQ/GPTQ, Marlin); 0 none    */
	int wq_experts;           /* only the experts' (gpt-oss's MXFP4)     */
	const char *wq_moe;       /* the experts' weight-only GEMM kernel    */
	int kv8;                  /* the KV cache in FP8 (--kv-cache-dtype)  */
	int graph;                /* the pass's kernels are graph-launched   */
	int eager_attn;           /* piecewise graph: attention stays eager  */
	uint32_t passes;          /* forward passes built                    */
};

/* The batch sizes an engine captures decode graphs for, by default
 * (serving-engines.md 2.1, 2.2): the smallest one >= b, 0 above the
 * largest.  SGLang: [1,2,4,8,12] + 16..256/8 + 272..496/16 + 512../32 up
 * to max_bs; max_bs depends on GPU memory and TP (32 or 160 on 48 GB
 * cards, 256 or 512 on 80-141 GB ones); the builder knows no GPU and takes
 * 256.  vLLM: [1,2,4] + 8..248/8 + 256..512/16. */
static uint64_t graph_batch(enum model_engine eng, uint64_t b)
{
	if (eng == MODEL_ENGINE_SGLANG) {
		static const uint64_t small[] = { 1, 2, 4, 8, 12 };
		for (size_t i = 0; i < sizeof(small) / sizeof(small[0]); i++)
			if (b <= small[i])
				return small[i];
		if (b <= 256)
			return cdiv(b, 8) * 8;
		return 0;
	}
	if (b <= 4)
		return b <= 1 ? 1 : b <= 2 ? 2 : 4;
	if (b <= 248)
		return cdiv(b, 8) * 8;
	if (b <= 512)
		return cdiv(b, 16) * 16;
	return 0;
}

static void mark(struct srv *S)
{
	struct model_kernel *k = bld_last_kernel(S->B);
	if (k)
		k->graph = (uint8_t)S->graph;
}

/* Fused residual add + RMSNorm over rows tokens (residual 0: the first
 * layer's plain RMSNorm): FlashInfer's FusedAddRMSNorm in SGLang, one CTA
 * per row of min(1024, H/8) threads; an Inductor reduction in vLLM.
 * Reads x (and the residual), writes y (and the new residual). */
static void add_norm(struct srv *S, uint64_t rows, int residual)
{
	struct bld *B = S->B;
	uint32_t block = (uint32_t)(S->h / 8 < 1024 ? S->h / 8 : 1024);
	const char *name = S->eng == MODEL_ENGINE_VLLM
		? (residual ? "triton_red_fused_add_mean_mul_pow_rsqrt" : "triton_red_fused_mean_mul_pow_rsqrt")
		: (residual ? "FusedAddRMSNormKernel" : "RMSNormKernel");
	B->cols = S->h;
	k_rows(B, name, PRED_OP_NORM, rows, S->h, residual ? 2.0 : 1.0, residual ? 2.0 : 1.0, 5.0,
	       block < 32 ? 32 : block);
	mark(S);
}

/* An element-wise kernel over n elements of rows of cols. */
static void vec(struct srv *S, const char *name, double n, uint64_t cols, double nin, double nout,
		double flops)
{
	S->B->cols = cols;
	k_vector(S->B, name, PRED_OP_ELEMENTWISE, n, nin, nout, flops);
	mark(S);
}

static void gemm(struct srv *S, uint64_t batch, uint64_t m, uint64_t n, uint64_t k)
{
	k_gemm(S->B, batch, m, n, k);
	mark(S);
}

/* Bytes a cached key or value element takes: a byte in an FP8 cache (the
 * engines' cache kernels convert with their scale as they store), else
 * the activation's size. */
static double kv_esz(const struct srv *S)
{
	return S->kv8 ? 1.0 : S->B->esz;
}

/* The per-token-group FP8 quantization of n elements of a GEMM's input
 * (rows of cols): 16-bit in, a byte and a 4-byte scale per 128 out. */
static void quant(struct srv *S, double n, uint64_t cols)
{
	vec(S, S->eng == MODEL_ENGINE_VLLM ? "_per_token_group_quant_fp8"
	    : "per_token_group_quant_8bit_kernel", n, cols, 1.0,
	    (1.0 + 4.0 / 128.0) / S->B->esz, 4.0);
}

/* Which library runs an FP8 linear: the dense ones DeepGEMM (SGLang on
 * Hopper) or vLLM's CUTLASS block-FP8 kernel, the experts the Triton
 * fused-MoE kernel, both sizing their tiles to the shape; MLA's absorbed
 * per-head products cuBLASLt (SGLang's bmm_fp8), whose FP8 kernels keep
 * 128 x 128 tiles.  The tensor-core model tells them by these names
 * (tcgemm.c, tc_fills_sms()). */
enum lin_kind { LIN_DENSE, LIN_MOE, LIN_BMM };

/* A linear of the decoder: batch x (m x k) x (k x n), its weights n x k
 * (each of batch).  FP8: its input of qn elements (m x k x batch unless a
 * grouped GEMM's rows repeat tokens) quantized first, the GEMM in FP8 by
 * the library of its kind, the weights counted a byte each. */
static void linear_q(struct srv *S, enum lin_kind kind, uint64_t batch, uint64_t m, uint64_t n,
		     uint64_t k, double qn)
{
	struct bld *B = S->B;
	if (S->wq > 0 && (kind == LIN_MOE || (kind == LIN_DENSE && !S->wq_experts))) {
		/* Marlin: the weights' packed bytes streamed, widened in
		 * registers, the 16-bit MMAs of the dtype */
		B->gemm_b_bytes = S->wq;
		gemm(S, batch, m, n, k);
		B->gemm_b_bytes = 0;
		struct model_kernel *g = bld_last_kernel(B);
		if (g)
			g->k.name = kind == LIN_MOE ? S->wq_moe : "marlin::Marlin";
		return;
	}
	if (!S->fp8) {
		/* 16-bit experts run the same Triton fused-MoE kernel as FP8
		 * ones (vLLM's and SGLang's fused_moe for unquantized weights) */
		gemm(S, batch, m, n, k);
		struct model_kernel *g = kind == LIN_MOE ? bld_last_kernel(B) : NULL;
		if (g)
			g->k.name = "fused_moe_kernel";
		return;
	}
	quant(S, qn, k);
	enum gpu_dtype keep = B->gemm_dt;
	B->gemm_dt = GPU_DT_FP8;
	gemm(S, batch, m, n, k);
	B->gemm_dt = keep;
	struct model_kernel *g = bld_last_kernel(B);
	if (g && kind == LIN_MOE)
		g->k.name = "fused_moe_kernel";
	else if (g && kind == LIN_DENSE)
		g->k.name = S->eng == MODEL_ENGINE_VLLM
			    ? "cutlass::device_kernel<vllm::cutlass_3x_gemm_fp8_blockwise>"
			    : "deep_gemm::fp8_gemm_kernel";
}

static void linear(struct srv *S, uint64_t batch, uint64_t m, uint64_t n, uint64_t k)
{
	linear_q(S, batch > 1 ? LIN_BMM : LIN_DENSE, batch, m, n, k,
		 (double)batch * (double)m * (double)k);
}

/* Parameters of the decoder's linears (the experts' when moe): in FP8 a
 * byte each, weight-only quantized wq bytes (memory.c). */
static void linear_params(struct srv *S, int moe, double elems, uint32_t tensors)
{
	bld_add_params(S->B, elems, tensors);
	if (S->fp8)
		S->B->s->params_fp8 += elems;
	else if (S->wq > 0 && (moe || !S->wq_experts))
		S->B->s->params_wq += elems;
}

/* The tensor-parallel all-reduce of a row-parallel layer's output. */
static void all_reduce(struct srv *S, uint64_t rows)
{
	struct bld *B = S->B;
	if (B->tp <= 1)
		return;
	double bytes = (double)rows * S->h * B->esz;
	k_comm(B, COMM_ALL_REDUCE, bytes, MODEL_GROUP_TP, 0);
	mark(S);
	/* the engines' custom all-reduce (predictor/comm.c says where it
	 * applies and falls back to NCCL): one-shot for TP 2 and small
	 * messages, two-shot above; the kernel's template type is half in
	 * FP16 */
	static const char *const names[2][2] = {
		{ "cross_device_reduce_1stage<__nv_bfloat16, 8>", "cross_device_reduce_1stage<half, 8>" },
		{ "cross_device_reduce_2stage<__nv_bfloat16, 8>", "cross_device_reduce_2stage<half, 8>" },
	};
	struct model_kernel *k = bld_last_kernel(B);
	int stages = comm_custom_all_reduce_stages(bytes, B->tp);
	if (k && stages)
		k->k.name = names[stages - 1][B->o->dtype == GPU_DT_FP16];
}

/* The pass's attention: one call over its requests (attn.h), the work it
 * carries; the target picks the kernel.  vLLM: FlashAttention (FA3 on
 * Hopper, FA2 elsewhere, its fork's split-KV kernel over the paged cache).
 * SGLang: FA3 on Hopper, FlashInfer on Ampere and Ada (serving-engines.md
 * 1.2), described as FlashAttention too: FlashInfer's prefill and decode
 * kernels do the same work with the same tiles' worth of waste.  A
 * sliding-window layer (Gemma 2/3's local ones) attends to the last
 * `window` keys (FlashAttention's window_size_left = window - 1, as vLLM
 * and SGLang pass Gemma's sliding_window): the call carries the window,
 * each query's keys and the tiles counted with it.  MLA (DeepSeek):
 * prefill runs the up-projected MHA form (q/k dims nope + rope, v dims
 * v_dim, every head its own K and V); decode the absorbed form over the
 * latent cache, one KV head of kv_lora + rope, values kv_lora wide.
 * --attention fa2, fa3 or flashinfer names the backend (vLLM's
 * VLLM_ATTENTION_BACKEND, SGLang's --attention-backend) for the non-MLA
 * calls; anything else is the engine's own pick. */
static void attention(struct srv *S, const struct sreq *r, size_t nr, int decode, uint64_t window)
{
	const struct model_config *c = S->B->c;
	struct pred_attn a;
	enum model_attention given = S->B->o->attention;
	enum pred_attn_impl impl = given == MODEL_ATTN_FA2 || given == MODEL_ATTN_FA3 ||
				   given == MODEL_ATTN_FLASHINFER ? model_attention_impl(S->B->o)
				   : decode && S->eng == MODEL_ENGINE_SGLANG ? PRED_ATTN_FLASHINFER
				   : PRED_ATTN_FLASH;
	if (c->kv_lora) {
		mla_attn_init(&a, c, (uint32_t)S->nh, decode);
		if (!decode)
			a.impl = impl;
	} else {
		attention_init(&a, impl, decode ? PRED_ATTN_DECODE : PRED_ATTN_PREFILL, 1,
			  (uint32_t)S->nh, (uint32_t)S->nkv, (uint32_t)S->d, (uint32_t)S->d);
	}
	a.window = c->kv_lora ? 0 : window;
	a.kv_bytes = S->kv8 ? 1 : 0;
	for (size_t i = 0; i < nr; i++)
		attention_add_seqs(&a, 1, r[i].n, r[i].n + r[i].p);
	attn_emit(S->B, &a);
	struct model_kernel *k = bld_last_kernel(S->B);
	if (k && k->k.op == PRED_OP_ATTENTION)
		k->graph = (uint8_t)(S->graph && !S->eager_attn);
}

/* A gated MLP of inner width I over T tokens: gate_up, act-and-mul, down;
 * without a gate (StarCoder, Falcon, MPT, Nemotron, Phi: arch_alias.c) up,
 * the activation kernel, down. */
static void dense_mlp(struct srv *S, uint64_t T, uint64_t I)
{
	const struct model_config *c = S->B->c;
	int gelu = c->act == MODEL_ACT_GELU_TANH || c->act == MODEL_ACT_GELU ||
		   c->act == MODEL_ACT_GELU_NEW;
	if (!c->gated) {
		linear(S, 1, T, I, S->h);                                   /* up */
		vec(S, S->eng == MODEL_ENGINE_VLLM ? (gelu ? "triton_poi_fused_gelu" : "triton_poi_fused_relu")
		    : gelu ? "activation_kernel<gelu>" : "activation_kernel<relu>",
		    (double)T * I, I, 1.0, 1.0, gelu ? 8.0 : 1.0);
		linear(S, 1, T, S->h, I);                                   /* down */
		linear_params(S, 0, 2.0 * (double)S->h * (double)I, 2);
		return;
	}
	linear(S, 1, T, 2 * I, S->h);                                       /* gate_up */
	vec(S, S->eng == MODEL_ENGINE_VLLM ? (gelu ? "triton_poi_fused_gelu_mul" : "triton_poi_fused_mul_silu")
	    : gelu ? "act_and_mul_kernel<gelu_tanh>" : "act_and_mul_kernel<silu>",
	    (double)T * I, I, 2.0, 1.0, 5.0);
	linear(S, 1, T, S->h, I);                                           /* down */
	linear_params(S, 0, 3.0 * (double)S->h * (double)I, 3);
}

/* The MLP of layer li over T tokens: dense (DeepSeek's first layers too),
 * or routed experts (and the shared ones). */
static void mlp(struct srv *S, uint64_t T, uint32_t li)
{
	struct bld *B = S->B;
	const struct model_config *c = B->c;
	if (S->E > 1 && model_layer_moe(c, li)) {
		/* uniform routing: the rows of this GPU's experts (moe.h); with
		 * data-parallel attention (--ep = --dp, --tp 1) each GPU's own
		 * tokens dispatched to the experts' GPUs and combined back by
		 * all-to-all (SGLang's --moe-a2a-backend deepep, vLLM's
		 * all2all backends), else every GPU routes the whole batch */
		int a2a = model_ep(B->o) > 1 && B->o->tp == 1;
		struct moe_route rt;
		moe_route_init(&rt, c, model_ep(B->o), T, a2a, B->esz);
		uint64_t E = S->E, K = S->K, I = S->Im, hit = rt.hit, rows = rt.rows;
		double routed = a2a ? (double)rt.local * rt.rows : (double)T * K * rt.local / E;
		gemm(S, 1, T, E, S->h);                                     /* router */
		B->cols = E;
		k_rows(B, c->kv_lora || c->router_bias ? "biased_grouped_topk_kernel" : "topkGatingSoftmax",
		       PRED_OP_SOFTMAX, T, E, 1.0, 1.0, 5.0, 128);
		mark(S);
		vec(S, "moe_align_block_size_kernel", (double)T * K, K, 1.0, 1.0, 1.0);
		if (a2a) {
			k_comm(B, COMM_ALL_TO_ALL, rt.dispatch_bytes, MODEL_GROUP_EP, 0);
			mark(S);
		}
		/* FP8: the tokens' hidden states quantized once for w13
		 * (before the dispatch under all-to-all, which sends FP8),
		 * the routed rows' activations for w2 */
		linear_q(S, LIN_MOE, hit, rows, 2 * I, S->h, (double)T * S->h);         /* w13 */
		vec(S, "act_and_mul_kernel<silu>", routed * I, I, 2.0, 1.0, 5.0);
		linear_q(S, LIN_MOE, hit, rows, S->h, I, routed * I);               /* w2 */
		if (a2a) {
			k_comm(B, COMM_ALL_TO_ALL, rt.dispatch_bytes, MODEL_GROUP_EP, 0);
			mark(S);
		}
		B->cols = S->h;
		k_rows(B, "moe_sum_kernel", PRED_OP_REDUCTION, T, K * S->h, 1.0, 1.0 / (double)K, 1.0, 256);
		mark(S);
		linear_params(S, 1, (double)rt.local * 3.0 * (double)S->h * (double)I, 3);
		bld_add_params(B, (double)S->h * (double)E, 1);     /* the router, 16-bit */
		if (S->Is) {
			dense_mlp(S, T, S->Is);                             /* shared experts */
			if (!c->kv_lora) {
				/* Qwen2-MoE: sigmoid(shared_expert_gate(x)) * shared */
				gemm(S, 1, T, 1, S->h);
				vec(S, "vectorized_elementwise_kernel<4, sigmoid_mul>", (double)T * S->h, S->h,
				    2.0, 1.0, 5.0);
			}
			vec(S, "vectorized_elementwise_kernel<4, AddFunctor>", (double)T * S->h, S->h,
			    2.0, 1.0, 1.0);
		}
		return;
	}
	dense_mlp(S, T, S->I);
}

/* MLA's projections before attention (DeepSeek-V2/V3, SGLang's
 * deepseek_v2.py): q through its low rank (q_a, its norm, q_b) or one q
 * projection; the compressed kv_a (latent + the shared rope key) and its
 * norm; rotary on the rope parts.  Prefill up-projects the latent of every
 * key (kv_b); decode absorbs W_UK into q (a batched GEMM per head). */
static void mla_in(struct srv *S, const struct sreq *r, size_t nr, uint64_t T, int decode)
{
	struct bld *B = S->B;
	const struct model_config *c = B->c;
	uint64_t qd = S->nh * (c->qk_nope + c->qk_rope), kva = c->kv_lora + c->qk_rope;
	if (c->q_lora) {
		linear(S, 1, T, c->q_lora + kva, S->h);             /* fused q_a + kv_a */
		B->cols = c->q_lora;
		k_rows(B, "RMSNormKernel", PRED_OP_NORM, T, c->q_lora, 1.0, 1.0, 5.0, 128);
		mark(S);
		linear(S, 1, T, qd, c->q_lora);                     /* q_b */
	} else {
		linear(S, 1, T, qd, S->h);                          /* q */
		linear(S, 1, T, kva, S->h);                         /* kv_a */
	}
	linear_params(S, 0, mla_params(c, (double)S->nh), 4);
	B->cols = c->kv_lora;
	k_rows(B, "RMSNormKernel", PRED_OP_NORM, T, c->kv_lora, 1.0, 1.0, 5.0, 128);
	mark(S);
	vec(S, "BatchQKApplyRotaryPosIdsCosSinCache", (double)T * (S->nh + 1) * c->qk_rope, c->qk_rope,
	    1.0, 1.0, 3.0);
	vec(S, "store_kvcache", (double)T * kva, kva, 1.0, kv_esz(S) / B->esz, 0.0);
	if (decode) {
		linear(S, S->nh, T, c->kv_lora, c->qk_nope);        /* q_nope W_UK */
		return;
	}
	uint64_t keys = 0;
	for (size_t i = 0; i < nr; i++)
		keys += r[i].n + r[i].p;
	linear(S, 1, keys, S->nh * (c->qk_nope + c->v_dim), c->kv_lora);  /* kv_b */
}

/* One decoder layer li over the pass's T tokens (r: its requests). */
static void layer(struct srv *S, const struct sreq *r, size_t nr, uint64_t T, uint32_t li, int decode)
{
	struct bld *B = S->B;
	const struct model_config *c = B->c;
	uint64_t window = model_layer_window(c, li);
	add_norm(S, T, li != 0);
	if (c->kv_lora) {
		mla_in(S, r, nr, T, decode);
		attention(S, r, nr, decode, 0);
		if (decode)
			linear(S, S->nh, T, c->v_dim, c->kv_lora);  /* W_UV */
		linear(S, 1, T, S->h, S->nh * c->v_dim);            /* o_proj */
	} else {
		uint64_t qkv = (S->nh + 2 * S->nkv) * S->d;
		linear(S, 1, T, qkv, S->h);
		linear_params(S, 0, (double)S->h * (double)qkv + (double)S->nh * S->d * (double)S->h, 2);
		double qk = (double)T * (double)(S->nh + S->nkv) * (double)S->d;
		if (c->qk_norm && S->eng == MODEL_ENGINE_SGLANG) {
			B->cols = S->d;
			k_rows(B, "fused_inplace_qknorm", PRED_OP_NORM, T * (S->nh + S->nkv), S->d, 1.0, 1.0,
			       5.0, 128);
			mark(S);
		}
		/* rotary in place on q and k (vLLM: Inductor's kernel, with q/k
		 * norm fused in for Qwen3) */
		vec(S, S->eng == MODEL_ENGINE_VLLM ? "triton_poi_fused_rotary_embedding"
		    : "BatchQKApplyRotaryPosIdsCosSinCache", qk, S->d, 1.0, 1.0, c->qk_norm ? 8.0 : 3.0);
		/* the new tokens' K and V into the cache */
		vec(S, S->eng == MODEL_ENGINE_VLLM ? "reshape_and_cache_flash_kernel" : "store_kvcache",
		    2.0 * (double)T * (double)S->nkv * (double)S->d, S->d, 1.0, kv_esz(S) / B->esz, 0.0);
		if (S->eager_attn) {
			struct model_kernel *k = bld_last_kernel(B);
			if (k)
				k->graph = 0;
		}
		attention(S, r, nr, decode, window);
		linear(S, 1, T, S->h, S->nh * S->d);                        /* o_proj */
	}
	all_reduce(S, T);
	if (c->sandwich_norm)   /* Gemma: post_attention_layernorm */
		add_norm(S, T, 0);
	add_norm(S, T, 1);
	mlp(S, T, li);
	all_reduce(S, T);
	if (c->sandwich_norm)   /* Gemma: post_feedforward_layernorm */
		add_norm(S, T, 0);
}

/* One forward pass over requests r (decode: one token each), its rows
 * padded to a captured graph size when it replays a graph. */
static void forward(struct srv *S, const struct sreq *r, size_t nr, int decode)
{
	struct bld *B = S->B;
	const struct model_config *c = B->c;
	uint64_t T = 0;
	for (size_t i = 0; i < nr; i++)
		T += r[i].n;
	S->graph = 0;
	S->eager_attn = 0;
	uint64_t rows = T;
	if (decode) {
		uint64_t g = graph_batch(S->eng, nr);
		if (g) {
			S->graph = 1;
			rows = g;
		}
	} else if (S->eng == MODEL_ENGINE_VLLM && T <= VLLM_GRAPH_MAX_TOKENS) {
		uint64_t g = graph_batch(S->eng, T);
		if (g) {
			S->graph = 1;
			S->eager_attn = 1;
			rows = g;
		}
	}
	size_t first_kernel = B->s->n;
	S->passes++;
	B->layer = -1;
	B->cols = S->h;
	op_embed(B, rows, S->h, S->V, 0);
	mark(S);
	all_reduce(S, rows);                 /* vocab-parallel embedding */
	if (c->embed_scale)                  /* Gemma: embeddings x sqrt(hidden) */
		vec(S, "vectorized_elementwise_kernel<4, MulFunctor>", (double)rows * S->h, S->h, 1.0, 1.0, 1.0);
	double act = (double)rows * (double)((S->nh + 2 * S->nkv) * S->d > 2 * S->I ?
					     (S->nh + 2 * S->nkv) * S->d : 2 * S->I) * B->esz;
	/* pipeline stages (--pp): a step's batch goes through them one after
	 * the other (one batch in flight, as a latency benchmark runs it), its
	 * activations sent from stage to stage; each stage's pass is its own
	 * graph replay */
	uint32_t per_stage = (uint32_t)cdiv(c->layers, B->o->pp);
	for (uint32_t i = 0; i < c->layers; i++) {
		B->layer = (int32_t)i;
		if (i && i % per_stage == 0) {
			k_comm(B, COMM_SEND_RECV, (double)rows * S->h * B->esz, MODEL_GROUP_PP, 0);
			if (B->tp > 1)   /* the residual too: vLLM sends both */
				k_comm(B, COMM_SEND_RECV, (double)rows * S->h * B->esz, MODEL_GROUP_PP, 0);
		}
		layer(S, r, nr, rows, i, decode);
	}
	B->layer = -1;
	add_norm(S, rows, 1);
	/* the last token of each request; decode: every row is one */
	uint64_t R = nr;
	if (!decode)
		vec(S, "index_select_last_tokens", (double)R * S->h, S->h, 1.0, 1.0, 0.0);
	uint64_t lm_rows = decode ? rows : R;
	int graph_head = S->graph && S->eng == MODEL_ENGINE_SGLANG;
	int keep = S->graph;
	S->graph = graph_head;
	gemm(S, 1, lm_rows, S->V, S->h);                                    /* LM head */
	if (B->tp > 1) {
		k_comm(B, COMM_ALL_GATHER, (double)lm_rows * S->V * B->tp * B->esz, MODEL_GROUP_TP, 0);
		mark(S);
	}
	S->graph = 0;
	double logits = (double)R * (double)S->V * B->tp;
	B->cols = S->V * B->tp;
	if (c->final_softcap)                /* Gemma 2: cap * tanh(logits / cap) */
		vec(S, "vectorized_elementwise_kernel<4, tanh_softcap>", logits, S->V * B->tp, 1.0, 1.0, 3.0);
	if (S->eng == MODEL_ENGINE_VLLM) {
		/* logits.float() / temperature, softmax, exponential noise,
		 * divide, argmax (v1/sample/sampler.py).  Every kernel after
		 * the cast moves FP32 elements, counted here in 4-byte units
		 * (the cast and divide read the logits in the model's dtype):
		 * the softmax reads and writes 8 bytes an element, where the
		 * model's dtype counted 4 (described in the vector dtype still,
		 * as the model's other upcast softmaxes are, op_softmax_fp32) */
		double keep = B->esz;
		B->esz = 4.0;
		vec(S, "vectorized_elementwise_kernel<4, DivFunctor>", logits, S->V * B->tp,
		    keep / 4.0, 1.0, 1.0);
		k_softmax(B, "cunn_SoftMaxForward<4, float, float, float, SoftMaxForwardEpilogue>",
			  R, S->V * B->tp, 1.0);
		vec(S, "vectorized_elementwise_kernel<4, exponential_kernel>", logits, S->V * B->tp, 0.0, 1.0, 4.0);
		vec(S, "vectorized_elementwise_kernel<4, DivFunctor>", logits, S->V * B->tp, 2.0, 1.0, 1.0);
		B->esz = keep;
	}
	k_rows(B, "reduce_kernel<512, 1, ReduceOp<float, ArgMaxOps<float>>>", PRED_OP_REDUCTION, R,
	       S->V * B->tp, S->eng == MODEL_ENGINE_VLLM ? 2.0 : 1.0, 0.0, 1.0, 512);
	S->graph = keep;
	/* the step's CPU work before its first launch, and the synchronization
	 * that ends the previous step */
	if (!B->err && first_kernel < B->s->n) {
		struct model_kernel *k0 = &B->s->v[first_kernel];
		k0->cpu_before_ns = (S->eng == MODEL_ENGINE_VLLM ? MODEL_VLLM_STEP_CPU_NS : MODEL_SERVE_STEP_CPU_NS) +
				    (S->graph ? SERVE_GRAPH_LAUNCH_NS : 0);
		k0->sync_before = first_kernel > 0;
	}
	if (act > B->s->act_peak_bytes)
		B->s->act_peak_bytes = act;
	double lg = (double)lm_rows * (double)S->V * 4.0 * B->tp;
	if (lg > B->s->act_peak_bytes)
		B->s->act_peak_bytes = lg;
}

/* The cache one sequence of l tokens holds: every token in the full
 * layers, the last window in the sliding-window ones. */
static double kv_seq_bytes(const struct model_seq *s, double l)
{
	return s->kv_token_bytes * l +
	       s->kv_window_token_bytes * (s->kv_window && l > s->kv_window ? s->kv_window : l);
}

double model_kv_cache_bytes(const struct model_seq *s, const uint32_t *len, uint32_t n, uint32_t len_all,
			    double add)
{
	double b = 0;
	for (uint32_t i = 0; i < n; i++)
		b += kv_seq_bytes(s, (len ? len[i] : len_all) + add);
	return b;
}

/* The requests' lengths as o gives them: o->lens, else batch x seq. */
static uint32_t len_of(const struct model_opts *o, uint32_t i)
{
	return o->lens ? o->lens[i] : o->seq;
}

static uint32_t count_of(const struct model_opts *o)
{
	return o->lens ? o->nlens : o->batch;
}

/* The tokens request i generates: o->new_lens, else new_tokens each. */
static uint32_t new_of(const struct model_opts *o, uint32_t i)
{
	return o->new_lens ? o->new_lens[i] : o->new_tokens;
}

double model_serve_kv_bytes(const struct model_seq *s, const struct model_opts *o)
{
	uint32_t n = count_of(o);
	if (!o->new_lens)
		return model_kv_cache_bytes(s, o->lens, n, o->seq,
					    o->new_tokens > 1 ? o->new_tokens - 1.0 : 0.0);
	/* between two steps at which some sequence ends, the cache only
	 * grows: the peak is after the prefill (step 0) or at a sequence's
	 * last step */
	double peak = 0;
	for (uint32_t k = 0; k <= n; k++) {
		uint32_t j = k < n ? new_of(o, k) - 1 : 0;
		double b = 0;
		for (uint32_t i = 0; i < n; i++)
			if (new_of(o, i) > j || !j)
				b += kv_seq_bytes(s, (double)len_of(o, i) + j);
		peak = b > peak ? b : peak;
	}
	return peak;
}

static int check(const struct model_config *c, const struct model_opts *o, char *err, size_t errlen)
{
	if (c->family != MODEL_FAM_LLAMA) {
		snprintf(err, errlen, "--engine %s: model '%s' is of the %s family; the engine builder "
			 "knows the Llama family (Llama, Mistral, Mixtral, Qwen2/2.5, Qwen3, Qwen2/3-MoE, Gemma, "
			 "DeepSeek-V2/V3)",
			 model_engine_name(o->engine), c->name, model_family_name(c->family));
		return SURFER_EINVAL;
	}
	if (o->mode != MODEL_PREFILL && o->mode != MODEL_DECODE && o->mode != MODEL_SERVE &&
	    o->mode != MODEL_INFERENCE) {
		snprintf(err, errlen, "--engine %s runs --mode prefill, decode or serve",
			 model_engine_name(o->engine));
		return SURFER_EINVAL;
	}
	if (o->dtype != GPU_DT_BF16 && o->dtype != GPU_DT_FP16) {
		snprintf(err, errlen, "--engine %s serves 16-bit or FP8 weights: --dtype bf16, fp16 or fp8",
			 model_engine_name(o->engine));
		return SURFER_EINVAL;
	}
	if (o->fp8 && o->wq_bytes > 0) {
		snprintf(err, errlen, "--dtype fp8: '%s' is a %.24s checkpoint of %s-bit weights, "
			 "served weight-only with 16-bit math: --dtype fp16 or bf16", c->name, c->quant,
			 o->wq_bytes < 0.75 ? "4" : "8");
		return SURFER_EINVAL;
	}
	/* what only a training step or transformers' modules have: refused,
	 * never silently dropped (--grad-accum would repeat the pass) */
	const char *train = o->optimizer ? "--optimizer" : model_training_flag(o);
	if (!train)
		train = o->stack ? "--stack"
		: o->cuda_graphs ? "--cuda-graphs (the engines' decode graphs are built already)"
		: model_cp(o) > 1 ? "--cp" : o->sp ? "--sequence-parallel"
		: o->hsdp ? "--hsdp" : o->mtp ? "--mtp" : o->vpp > 1 ? "--vpp"
		: o->expert_capacity ? "--expert-capacity (the engines drop no routed token)"
		: o->head != MODEL_HEAD_LM ? "--head classify" : o->offload ? "--offload"
		: o->host_mem_gbps > 0 ? "--host-mem-gbps"
		: o->liger ? "--liger (Hugging Face's modules; the engines fuse their own kernels)"
		: o->norm_given ? "--norm (Hugging Face's modules; the engines' norms are fused)"
		: o->precision != MODEL_PREC_AUTO ? "--precision (a training stack's state; the engines "
						    "serve the weights in the --dtype they load)" : NULL;
	if (train) {
		snprintf(err, errlen, "--engine %s: %s is not an option of a serving engine",
			 model_engine_name(o->engine), train);
		return SURFER_EINVAL;
	}
	/* sdpa (SGLang's torch_native backend) is not built either: refused,
	 * not replaced by the engine's pick (eager is the hf default, and
	 * reads as "the engine's pick" here; named on the command line it is
	 * refused before, main.c) */
	if (o->attention == MODEL_ATTN_CUDNN || o->attention == MODEL_ATTN_TRITON ||
	    o->attention == MODEL_ATTN_SDPA) {
		snprintf(err, errlen, "--engine %s: --attention %s is not one of its attention "
			 "backends modelled here; use flash (the engine's pick), fa2, fa3 or flashinfer",
			 model_engine_name(o->engine), model_attention_name(o->attention));
		return SURFER_EINVAL;
	}
	/* --dp: independent replicas (inference has no collective between
	 * them), each built as one: its batch, its tensor-parallel GPUs */
	if (o->zero || !o->pp || o->pp > c->layers) {
		snprintf(err, errlen, "--engine %s: replicas (--dp) of tensor-parallel GPUs (--tp) in "
			 "pipeline stages (--pp, at most the %u layers); --zero is not built",
			 model_engine_name(o->engine), c->layers);
		return SURFER_EINVAL;
	}
	uint32_t kv = c->kv_heads ? c->kv_heads : c->heads;
	if (!o->tp || c->heads % o->tp || c->ffn % o->tp || (kv % o->tp && o->tp % kv) ||
	    c->moe_ffn % o->tp || c->shared_ffn % o->tp) {
		snprintf(err, errlen, "--tp %u does not divide the %u heads or the MLP width %u",
			 o->tp, c->heads, c->ffn);
		return SURFER_EINVAL;
	}
	uint32_t ep = model_ep(o);
	if (ep > 1 && (c->experts <= 1 || c->experts % ep || (ep != o->tp && (o->tp != 1 || ep != o->dp)))) {
		snprintf(err, errlen, "--ep %u: the engines split a mixture of experts' experts whole over "
			 "the tensor-parallel GPUs (--ep equal to --tp, %u) or over data-parallel attention "
			 "ranks (--ep equal to --dp with --tp 1); it must divide the %u experts",
			 ep, o->tp, c->experts);
		return SURFER_EINVAL;
	}
	if (o->moe_route_nodes || o->moe_dispatch_fp8 || o->moe_a2a_overlap) {
		snprintf(err, errlen, "--moe-route-nodes, --moe-dispatch-fp8 and --moe-a2a-overlap shape "
			 "the training all-to-alls of --ep, not an engine's");
		return SURFER_EINVAL;
	}
	uint32_t n = count_of(o);
	if (!n || n > (1u << 20)) {
		snprintf(err, errlen, "the batch must hold 1 to 1048576 sequences");
		return SURFER_EINVAL;
	}
	for (uint32_t i = 0; i < n; i++)
		if (len_of(o, i) > (1u << 24) || (!len_of(o, i) && o->mode != MODEL_DECODE)) {
			snprintf(err, errlen, "sequence %u: length %u (1 to 16777216 tokens)", i + 1,
				 len_of(o, i));
			return SURFER_EINVAL;
		}
	if (o->mode == MODEL_SERVE && !o->new_tokens) {
		snprintf(err, errlen, "--mode serve needs --new-tokens N (N >= 1)");
		return SURFER_EINVAL;
	}
	for (uint32_t i = 0; o->mode == MODEL_SERVE && o->new_lens && i < n; i++)
		if (!new_of(o, i) || new_of(o, i) > o->new_tokens) {
			snprintf(err, errlen, "sequence %u: %u new tokens (1 to the most, %u)", i + 1,
				 new_of(o, i), o->new_tokens);
			return SURFER_EINVAL;
		}
	return 0;
}

/* The prompts of o through prefill passes of at most o->chunk tokens
 * (0: one pass); each pass's requests with the tokens cached before. */
static int prefill(struct srv *S, const struct model_opts *o)
{
	uint32_t n = count_of(o);
	struct sreq *r = malloc(n * sizeof(*r));
	uint64_t *done = calloc(n, sizeof(*done));
	if (!r || !done) {
		free(r);
		free(done);
		return SURFER_ENOMEM;
	}
	uint32_t next = 0;
	while (next < n && !S->B->err) {
		uint64_t budget = o->chunk ? o->chunk : UINT64_MAX;
		size_t nr = 0;
		for (uint32_t i = next; i < n && budget > 0; i++) {
			uint64_t left = len_of(o, i) - done[i];
			uint64_t take = left < budget ? left : budget;
			r[nr].n = take;
			r[nr].p = done[i];
			nr++;
			budget -= take;
			done[i] += take;
		}
		forward(S, r, nr, 0);
		while (next < n && done[next] == len_of(o, next))
			next++;
	}
	free(r);
	free(done);
	return 0;
}

/* Decode step j of a served batch (1-based: the step that feeds each
 * sequence's j-th token, after its prompt and j - 1 earlier ones), of the
 * sequences still generating (new_of() > j: a sequence leaves the batch
 * after its last token, as the engines' schedulers free it); j 0 is
 * --mode decode's one step, every sequence after its cached tokens. */
static int decode_step(struct srv *S, const struct model_opts *o, uint32_t j)
{
	uint32_t n = count_of(o), nr = 0;
	struct sreq *r = malloc(n * sizeof(*r));
	if (!r)
		return SURFER_ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		if (j && new_of(o, i) <= j)
			continue;
		r[nr].n = 1;
		r[nr].p = len_of(o, i) + (j ? j - 1 : 0);
		nr++;
	}
	forward(S, r, nr, 1);
	free(r);
	return 0;
}

int serve_build(const struct model_config *c, const struct model_opts *o, struct model_seq *s,
		char *err, size_t errlen)
{
	int rc = check(c, o, err, errlen);
	if (rc)
		return rc;
	struct bld B;
	bld_init(&B, c, o, s);
	struct srv S;
	memset(&S, 0, sizeof(S));
	S.B = &B;
	S.eng = o->engine;
	S.fp8 = o->fp8;
	S.wq = o->fp8 ? 0 : o->wq_bytes;
	S.wq_experts = o->wq_experts_only;
	/* the experts' weight-only kernel: Marlin's fused MoE for AWQ and
	 * GPTQ; gpt-oss's MXFP4 experts run Triton's matmul_ogs kernels
	 * (triton_kernels, vLLM's and SGLang's path on Hopper) */
	S.wq_moe = !strcasecmp(c->quant, "mxfp4") ? "_matmul_ogs" : "fused_marlin_moe";
	S.kv8 = o->kv_fp8;
	S.nh = c->heads / o->tp;
	uint64_t kvh = c->kv_heads ? c->kv_heads : c->heads;
	S.nkv = kvh >= o->tp ? kvh / o->tp : 1;
	S.d = c->head_dim;
	S.h = c->hidden;
	S.I = c->ffn / o->tp;
	/* --ep: each GPU holds whole experts, E / ep of them */
	S.Im = (c->moe_ffn ? c->moe_ffn : c->ffn) / (model_ep(o) > 1 ? 1 : o->tp);
	S.Is = c->shared_ffn / o->tp;
	S.E = c->experts > 1 ? c->experts : 0;
	S.K = c->experts_per_tok ? c->experts_per_tok : 1;
	/* vLLM pads the vocabulary to a multiple of 64 before splitting it */
	uint64_t vocab = S.eng == MODEL_ENGINE_VLLM ? cdiv(c->vocab, 64) * 64 : c->vocab;
	S.V = cdiv(vocab, o->tp);
	s->params_total = model_config_params(c);
	s->micro_batch = count_of(o);
	s->microbatches = 1;

	uint32_t n = count_of(o);
	if (o->mode == MODEL_DECODE) {
		rc = decode_step(&S, o, 0);
	} else {
		rc = prefill(&S, o);
		if (!rc && o->mode == MODEL_SERVE) {
			/* the prefill gave the first token; each step adds one
			 * (new_tokens is the most any sequence generates) */
			for (uint32_t j = 1; j < o->new_tokens && !rc && !B.err; j++)
				rc = decode_step(&S, o, j);
		}
	}
	/* the weights once: every pass above counted them, the FP8 and the
	 * weight-only quantized ones among them too */
	if (S.passes > 1) {
		s->params /= S.passes;
		s->params_fp8 /= S.passes;
		s->params_wq /= S.passes;
		s->param_tensors /= S.passes;
	}
	/* one GPU's share: its stage's layers (their quantized linears
	 * alike); the embedding on the first stage, the LM head on the last
	 * (the larger of the two counted) */
	s->params = s->params / o->pp + (double)S.V * S.h * (c->tied || o->pp > 1 ? 1.0 : 2.0);
	s->params_fp8 /= o->pp;
	s->params_wq /= o->pp;
	/* MLA caches one latent row per token (kv_lora + rope), the same on
	 * every TP rank; the others K and V of their KV heads.  A sliding-
	 * window layer (Gemma 2/3's local ones, gpt-oss's banded ones) holds
	 * the last `window` tokens of each sequence: vLLM V1's hybrid KV
	 * cache manager frees the blocks that fall out of the window
	 * (SlidingWindowManager), SGLang's hybrid SWA pool evicts them; the
	 * block granularity (vLLM's 16 tokens) is not counted.  Gemma 3's
	 * five local layers of six at 30000 tokens: 2.7 GiB in place of
	 * 14.2. */
	double kv_e = kv_esz(&S), tok = c->kv_lora ? (double)(c->kv_lora + c->qk_rope) * kv_e
						    : 2.0 * (double)S.nkv * (double)S.d * kv_e;
	uint32_t local = 0;
	for (uint32_t li = 0; li < c->layers && !c->kv_lora; li++)
		local += model_layer_window(c, li) ? 1 : 0;
	s->kv_token_bytes = tok * (c->layers - local) / o->pp;
	s->kv_window_token_bytes = tok * local / o->pp;
	s->kv_window = local ? c->window : 0;
	/* the cache at the pass's end: a decode step's token appended; a
	 * served batch's n - 1 steps after its prompt */
	s->kv_cache_bytes = o->mode == MODEL_SERVE ? model_serve_kv_bytes(s, o)
			    : model_kv_cache_bytes(s, o->lens, n, o->seq, o->mode == MODEL_DECODE ? 1.0 : 0.0);
	s->stage_layers = (uint32_t)cdiv(c->layers, o->pp);
	if (rc || B.err) {
		model_seq_release(s);
		snprintf(err, errlen, "%s", rc ? "out of memory" : bld_error(&B));
		return rc ? rc : B.err;
	}
	return 0;
}
