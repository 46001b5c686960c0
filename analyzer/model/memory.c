/*
 * memory.c - the device memory of one iteration of a model config on one
 * GPU (see model.h).
 *
 * Training keeps, from the forward pass to the backward pass, the tensors
 * each op's derivative reads (PyTorch saves only those, and saves a tensor
 * once however many ops read it).  Per op of the Hugging Face modules, in
 * elements of the activation dtype unless noted:
 *   linear (addmm, matmul)   its input;
 *   bmm / matmul of two      both operands (q and k; the probabilities and v);
 *   softmax                  its output;
 *   dropout                  its mask, one byte an element;
 *   layer norm               its input, and a mean and rstd per row (FP32);
 *   RMS norm (eager)         x (FP32 for 16-bit dtypes) and the normalised
 *                            x before the weight;
 *   x * scalar, x / scalar, x + y, copies, masks added: nothing;
 *   GELU, SiLU               their input; ReLU its output; tanh its output;
 *   x * y (two tensors)      both.
 * The output of one op is often what the next one saves (the MLP's
 * activation output is the down projection's input): each tensor is counted
 * once, by its producer, in the per-layer sums below.
 *
 * Activation checkpointing keeps less (layer_ckpt()); FP8 under
 * Transformer Engine's delayed scaling keeps an FP8 copy of the weights.
 * Tensor parallelism splits what attention and the MLP keep inside;
 * sequence parallelism (--sequence-parallel) also what lies between them
 * (struct shp's Tr).  --grad-fp32 adds an FP32 gradient buffer where the
 * gradients are 16-bit.
 *
 * Inference under no_grad keeps nothing between ops: its peak is the
 * weights plus the largest set of tensors alive at once (the attention
 * scores and their scaled copy; the MLP's widest intermediates; the
 * logits), the same harness as tools/gpu/e2e.py (use_cache off).
 */
#include "analyzer/model/model.h"
#include "analyzer/model/moe.h"

#include <math.h>
#include <string.h>

/* One layer's tensor sizes on this GPU, in elements. */
struct shp {
	double b, sl, kv;       /* sequences, queries and keys per sequence   */
	double T;               /* tokens b x sl                              */
	double Tr;              /* tokens of the hidden-wide tensors kept: T,
				 * or T / tp under sequence parallelism       */
	double h;               /* hidden                                     */
	double a, q;            /* heads of this GPU, and heads x head_dim    */
	double kvq;             /* the width K and V are kept at each: q where
				 * they are repeated to every query head (eager,
				 * SDPA: repeat_kv), the KV heads' where a fused
				 * kernel reads them as they are (GQA)        */
	double f;               /* MLP width of this GPU                      */
	double S;               /* attention scores b x a x sl x kv           */
	double e;               /* bytes per element                          */
	int half;               /* 16-bit activations                         */
	int sdpa;               /* fused attention kernel                     */
	int out_merged;         /* its output is the merged heads the output
				 * projection keeps (one tensor): a fused
				 * kernel's (b, s, heads, d) output viewed as
				 * (b, s, heads x d); SDPA's (b, heads, s, d)
				 * is transposed into a copy                  */
	int fused_norm;         /* RMSNorm one kernel (--stack te, --norm fused) */
	int train;
};

/* Tensors an MLP activation keeps, its output included, per element of the
 * MLP's width: NewGELU's eight ops keep x (pow), tanh's output, 0.5 x and
 * 1 + tanh (the final product); GELU and SiLU their input and output; ReLU
 * its output, which the down projection reads too. */
static double act_tensors(enum model_act a)
{
	switch (a) {
	case MODEL_ACT_GELU_NEW: return 5;
	case MODEL_ACT_RELU: return 1;
	case MODEL_ACT_GELU:
	case MODEL_ACT_GELU_TANH:
	case MODEL_ACT_SILU:
	default: return 2;
	}
}

static double ln_saved(const struct shp *z)
{
	return z->Tr * z->h * z->e + 8 * z->Tr;
}

/* An RMSNorm of rows x cols: eager (Hugging Face's LlamaRMSNorm) keeps
 * the input cast to FP32 (16-bit models; the input itself in FP32), the
 * normalised tensor cast back (the weight's product reads it) and the
 * FP32 reciprocal of each row's RMS; a fused kernel (Transformer Engine's
 * RMSNorm and LayerNormLinear, as Megatron and DeepSeek's stacks run it;
 * --norm fused's) its input and the reciprocals only (te.pytorch rmsnorm save_for_backward:
 * inputmat, rsigma). */
static double rms_of(const struct shp *z, double rows, double cols)
{
	if (z->fused_norm)
		return rows * cols * z->e + 4 * rows;
	return rows * cols * (z->half ? 4 : z->e) + rows * cols * z->e + 4 * rows;
}

static double rms_saved(const struct shp *z)
{
	return rms_of(z, z->Tr, z->h);
}

static double mask_bytes(double n, double p)
{
	return p > 0 ? n : 0;
}

/* Attention from the projections' outputs to the output projection's
 * input: q, k and v kept by the two matmuls or the fused kernel (k and v
 * after repeat_kv where the model repeats them, z->kvq), the merged heads
 * kept by the output projection; eager: the
 * softmax output (FP32 where the module computes it so), the probabilities
 * the second matmul reads when they are another tensor (dropout's output,
 * a cast back to 16 bits) and dropout's mask; the scale and the mask
 * keep nothing (a product by a number, an addition). */
static double attn_saved(const struct shp *z, int softmax_fp32, double p)
{
	double qkv = z->T * (z->q + 2 * z->kvq) * z->e, merged = z->T * z->q * z->e;
	if (z->sdpa) /* the kernel keeps its output and a logsumexp per row */
		return qkv + merged + (z->out_merged ? 0 : z->T * z->q * z->e) + z->b * z->a * z->sl * 4;
	double esm = softmax_fp32 ? 4 : z->e;
	double probs = p > 0 ? z->S * z->e : softmax_fp32 && z->half ? z->S * z->e : 0;
	return qkv + merged + z->S * esm + probs + mask_bytes(z->S, p);
}

/* What a layer's backward holds at once beyond the tensors it saved, at
 * most: under eager attention two score-sized gradients (b x heads x s x
 * kv), the probabilities' and the one the next op makes from it (the
 * dropout's, the softmax backward's, the mask-and-scale's), each dropped
 * once the next exists; FP32 where the softmax runs in FP32 (the Llama
 * and T5 families' eager attention, attn_saved()'s softmax_fp32).  A fused
 * kernel recomputes its tiles and holds none.  An MLP's gradients are
 * token-by-width, an eighth of these at 2048 tokens or more and 16 heads,
 * and are left out. */
static double layer_bwd_transient(const struct model_config *c, const struct shp *z)
{
	if (z->sdpa || c->kv_lora)
		return 0;
	int fp32 = c->family != MODEL_FAM_GPT2 && c->family != MODEL_FAM_BERT &&
		   c->family != MODEL_FAM_OPT;
	return 2 * z->S * (fp32 ? 4 : z->e);
}

/* A dense MLP of tokens rows from its input (kept for in_rows of them:
 * z->Tr under sequence parallelism) to the down projection's input. */
static double mlp_saved(const struct model_config *c, const struct shp *z, double tokens,
			double in_rows, double p_act)
{
	double F = tokens * z->f * z->e;
	double in = in_rows * z->h * z->e;
	if (c->gated) /* act(gate) * up: the product keeps up and act's output */
		return in + (act_tensors(c->act) + 2) * F;
	return in + act_tensors(c->act) * F + (p_act > 0 ? F + tokens * z->f : 0);
}

/* DeepSeek's attention (model.c's layer_mla) from its input norm to the
 * output projection's input: the norm, its output (q_a's and kv_a's
 * input), each latent's norm and its output (q_b's, kv_b's input), the
 * fused kernel's q, k (nope + rope per head), v, output and log-sum-exp,
 * the merged heads; then the MLP's norm. */
static double mla_saved(const struct model_config *c, const struct shp *z)
{
	double T = z->T, e = z->e, qk = c->qk_nope + c->qk_rope;
	double r = rms_saved(z) + T * z->h * e;
	if (c->q_lora)
		r += rms_of(z, T, c->q_lora) + T * c->q_lora * e;
	r += rms_of(z, T, c->kv_lora) + T * c->kv_lora * e;
	r += T * z->a * (2 * qk + 3 * c->v_dim) * e + z->b * z->a * z->sl * 4;
	return r + rms_saved(z);
}

/* The grouped MoE of model.c's mlp_grouped: its input (the router's, the
 * permute's and the shared experts' one tensor), the FP32 scores and the
 * top-k probabilities and indices; per routed row of this GPU (uniform
 * load, moe.h) the grouped fc1's input and output, SwiGLU's output (fc2's
 * input) and fc2's output (unpermute weights it); the shared experts'
 * gate, up and product. */
static double grouped_saved(const struct model_config *c, const struct model_opts *o,
			    const struct shp *z)
{
	struct moe_route r;
	moe_route_init(&r, c, model_ep(o), (uint64_t)z->T, 1, z->e);
	double I = (double)(c->moe_ffn ? c->moe_ffn : c->ffn) / (o->tp ? o->tp : 1);
	double R = (double)r.local * (double)r.rows, e = z->e;
	double s = z->T * z->h * e + z->T * c->experts * 4 + z->T * r.k * 12;
	s += R * (2 * z->h + (c->gated ? 3 : 2) * I) * e;
	if (c->shared_ffn)
		s += (act_tensors(c->act) + 2) * z->T * (c->shared_ffn / (o->tp ? o->tp : 1)) * e;
	return s;
}

/* A dense Llama layer built of Transformer Engine's modules (--stack te,
 * fused attention): each LayerNormLinear / LayerNormMLP keeps its input,
 * the normalised output (the GEMM's wgrad input) and rstd per row
 * (layernorm_linear.py, layernorm_mlp.py save_for_backward); the fused
 * attention q, k and v at their own widths (GQA's k and v are not
 * repeated), its output (also the projection's input) and the softmax
 * statistics; the MLP the fused gate/up GEMM's output (SwiGLU's input)
 * and SwiGLU's output (fc2's input).  In 16 bits, per token, h wide,
 * Llama-3-8B's widths (q = h, k = v = h / 4, f = 3.5 h): 4 + 3 + 2 + 4 +
 * 14 + 7 = 34 h bytes, Korthikanti et al.'s 34 s b h. */
static double te_layer_saved(const struct model_config *c, const struct model_opts *o,
			     const struct shp *z)
{
	double T = z->T, e = z->e, X = z->Tr * z->h * e;
	double kvd = (c->kv_heads ? c->kv_heads : c->heads) / (double)(o->tp ? o->tp : 1) * c->head_dim;
	double norm = 2 * X + 4 * z->Tr;
	double attn = T * (z->q + 2 * kvd) * e + T * z->q * e + z->b * z->a * z->sl * 4;
	return 2 * norm + attn + 3 * T * z->f * e;
}

/* A dense Llama layer compiled by torch.compile with a fused attention
 * (--stack compile): AOTAutograd's min-cut partitioner
 * (torch/_functorch/partitioners.py) saves the fewest bytes from which
 * backward recomputes the rest with fusible ops only (pointwise ops,
 * views, and reductions whose output is not much smaller than their
 * input; never a matmul or the attention kernel): each RMSNorm's input and
 * its rstd per row (the normalised output, a product of the two and the
 * weight, is recomputed), q, k and v at their own widths (the rotary
 * embedding and GQA's repeat recomputed from them), the attention's
 * output and logsumexp, the gate and up projections' outputs (SwiGLU's
 * product, the down projection's input, recomputed).  In 16 bits, per
 * token, Llama-3-8B's widths: 2 + 2 + 3 + 2 + 14 = 23 h bytes, where
 * eager keeps about 58 h and Transformer Engine's modules 34 h. */
static double compile_layer_saved(const struct model_config *c, const struct model_opts *o,
				  const struct shp *z)
{
	double T = z->T, e = z->e, X = z->Tr * z->h * e;
	double kvd = (c->kv_heads ? c->kv_heads : c->heads) / (double)(o->tp ? o->tp : 1) * c->head_dim;
	double norm = X + 4 * z->Tr;
	double attn = T * (z->q + 2 * kvd) * e + T * z->q * e + z->b * z->a * z->sl * 4;
	return 2 * norm + attn + 2 * T * z->f * e;
}

/* Saved bytes of transformer layer i (0-based over encoder then decoder). */
static double layer_saved(const struct model_config *c, const struct model_opts *o,
			  const struct shp *z, uint32_t i)
{
	/* X: a hidden-wide tensor of the block (its input, a norm's output);
	 * Xf: one of the MoE router's, kept for every token */
	double X = z->Tr * z->h * z->e, mh = mask_bytes(z->Tr * z->h, c->dropout);
	double Xf = z->T * z->h * z->e;
	switch (c->family) {
	case MODEL_FAM_GPT2:
		return ln_saved(z) + X + attn_saved(z, 0, c->attn_dropout) + mh +
		       ln_saved(z) + mlp_saved(c, z, z->T, z->Tr, 0) + mh;
	case MODEL_FAM_BERT:
		return X + attn_saved(z, 0, c->attn_dropout) + mh + ln_saved(z) +
		       mlp_saved(c, z, z->T, z->Tr, 0) + mh + ln_saved(z);
	case MODEL_FAM_OPT:
		return ln_saved(z) + X + attn_saved(z, 0, c->attn_dropout) + mh +
		       ln_saved(z) + mlp_saved(c, z, z->T, z->Tr, 0) + mh;
	case MODEL_FAM_LLAMA: {
		int moe = model_layer_moe(c, i), grouped = moe && model_moe_grouped(c, o);
		if (c->kv_lora)
			return mla_saved(c, z) + (grouped ? grouped_saved(c, o, z)
							  : mlp_saved(c, z, z->T, z->Tr, 0));
		/* Gemma 2/3: the norms after attention and after the MLP, their
		 * inputs and statistics; Gemma 2's eager soft-capping keeps its
		 * tanh's output (the division and the product by the cap
		 * nothing) */
		double gemma = (c->sandwich_norm ? 2 * rms_saved(z) : 0) +
			       (c->attn_softcap && !z->sdpa ? z->S * z->e : 0);
		if (o->stack == MODEL_STACK_TE && z->sdpa && c->gated && c->experts <= 1)
			return te_layer_saved(c, o, z) + gemma;
		if (o->stack == MODEL_STACK_COMPILE && z->sdpa && c->gated && c->experts <= 1)
			return compile_layer_saved(c, o, z) + gemma;
		double r = rms_saved(z) + X + attn_saved(z, 1, c->attn_dropout) + rms_saved(z) + gemma;
		if (grouped)
			return r + grouped_saved(c, o, z);
		if (moe) {
			/* router, then each token's K experts: the gathered
			 * tokens, their MLP, and the weighted product */
			double K = c->experts_per_tok ? c->experts_per_tok : 1;
			/* gpt-oss's GLU: the clamps' inputs (gate_up, 2 f) and
			 * alpha x gate beside what a gated MLP keeps */
			double oss = c->oss ? 2 * K * z->T * z->f * z->e : 0;
			return r + Xf + z->T * c->experts * 4 + 2 * K * Xf +
			       mlp_saved(c, z, K * z->T, K * z->T, 0) - K * Xf + oss;
		}
		return r + mlp_saved(c, z, z->T, z->Tr, 0);
	}
	case MODEL_FAM_T5:
	default: {
		int dec = i >= c->layers;
		double r = 0;
		for (int blk = 0; blk < (dec ? 2 : 1); blk++)
			r += rms_saved(z) + X + attn_saved(z, 1, c->dropout) + mh;
		r += rms_saved(z) + mh;
		if (!model_layer_sparse(c, i))
			return r + mlp_saved(c, z, z->T, z->Tr, c->dropout);
		/* router (its input, FP32 probabilities), the tokens each
		 * expert takes, their MLP and the scaled output */
		double tok = z->T;
		uint64_t cap = model_expert_capacity(c, o);
		if (cap && c->experts && z->b * (double)cap * c->experts < tok)
			tok = z->b * (double)cap * c->experts;
		return r + Xf + z->T * c->experts * 4 + mlp_saved(c, z, tok, tok, c->dropout) + Xf;
	}
	}
}

/* Saved bytes of layer i (the rel-th of its pipeline stage of `stage`
 * layers) under
 * activation checkpointing, and in *work what its backward holds while
 * its forward is recomputed; a layer --act-ckpt-layers leaves out keeps
 * everything (model_ckpt_layer()).  full: the
 * block's input (checkpoint_wrapper keeps it), the whole layer's set during
 * its recompute.  selective, eager and compile (torchtitan's per-op
 * policy): the block's input, the outputs of the odd matmuls of the block
 * by forward order and the attention's output (Llama q, v, gate, down;
 * GPT-2's fused c_attn and c_fc; OPT and BERT q, v, fc1), what the
 * recompute rebuilds in between held for one layer at a time; under te
 * (Megatron's core_attn recompute) the s x s tensors of eager attention
 * only, which fused attention does not keep anyway. */
static double layer_ckpt(const struct model_config *c, const struct model_opts *o,
			 const struct shp *z, uint32_t i, uint32_t stage, uint32_t rel, double *work)
{
	double full = layer_saved(c, o, z, i), X = z->Tr * z->h * z->e;
	*work = 0;
	if (!model_ckpt_layer(o, stage, rel))  /* none, or past --act-ckpt-layers */
		return full;
	if (o->act_ckpt == MODEL_CKPT_FULL) {
		*work = full;
		return X;
	}
	if (o->stack == MODEL_STACK_TE) {
		if (z->sdpa)
			return full;
		struct shp f = *z;
		f.sdpa = 1;
		double kept = layer_saved(c, o, &f, i);
		*work = full - kept;
		return kept;
	}
	double kvd = (c->kv_heads ? c->kv_heads : c->heads) / (double)(o->tp ? o->tp : 1) * c->head_dim;
	double odd;
	switch (c->family) {
	case MODEL_FAM_LLAMA: odd = z->q + kvd + z->f + z->h * z->Tr / z->T; break;
	case MODEL_FAM_GPT2: odd = 3 * z->q + z->f; break;
	case MODEL_FAM_OPT: case MODEL_FAM_BERT: odd = 2 * z->q + z->f; break;
	default: odd = (full / (z->T * z->e) - z->h * z->Tr / z->T) / 2; break;
	}
	double kept = X + z->T * z->e * (odd + z->q) + z->b * z->a * z->sl * 4;
	if (kept > full)
		kept = full;
	*work = full - kept;
	return kept;
}

/* Saved bytes of the embeddings (first stage) and of the head and its
 * logits (last stage), and the head's transient at the start of backward. */
static double embed_saved(const struct model_config *c, const struct shp *z)
{
	double mh = mask_bytes(z->Tr * z->h, c->dropout);
	switch (c->family) {
	case MODEL_FAM_BERT: return ln_saved(z) + mh;
	case MODEL_FAM_LLAMA: return 0;
	case MODEL_FAM_T5:  /* encoder and decoder inputs; the encoder's final norm */
		return c->dec_layers ? 2 * mh + rms_saved(z) : mh;
	default: return mh;
	}
}

static double head_saved(const struct model_config *c, const struct model_opts *o,
			 const struct shp *z, double logits)
{
	double X = z->Tr * z->h * z->e;
	if (o->head == MODEL_HEAD_CLASSIFY)
		return c->family == MODEL_FAM_BERT ? 0 : ln_saved(z) + X;
	/* the logits as the model returns them; the loss's log_softmax output,
	 * FP32 (every stack upcasts the logits for it) */
	double keep = logits * (o->loss ? 1 + 4 / z->e : 1);
	switch (c->family) {
	case MODEL_FAM_BERT: /* MLM transform: dense, GELU, layer norm, decoder */
		return X + 2 * X + 8 * z->Tr + X + keep;
	case MODEL_FAM_LLAMA:   /* Gemma 2's final soft-capping: its tanh's output */
		return rms_saved(z) + X + keep + (c->final_softcap ? logits : 0);
	case MODEL_FAM_T5: return rms_saved(z) + mask_bytes(z->Tr * z->h, c->dropout) + X + keep;
	default: return ln_saved(z) + X + keep;
	}
}

/* Inference: the most one layer or the head has alive at once. */
static double inference_transient(const struct model_config *c, const struct model_opts *o,
				  const struct shp *z, double logits)
{
	double X = z->T * z->h * z->e, Q = z->T * z->q * z->e;
	double esm = c->family == MODEL_FAM_LLAMA || c->family == MODEL_FAM_T5 ? 4 : z->e;
	/* the residual and normed input, q, k, v, the scores and the
	 * scaled / masked / softmaxed copy being made of them (the softmax
	 * in FP32 where the module asks for it, from 16-bit scores) */
	double attn = 2 * X + 3 * Q + (z->sdpa ? Q : z->S * (z->e + esm));
	double widest = c->gated || c->act == MODEL_ACT_GELU_NEW ? 3 : 2;
	double mtok = c->experts > 1 ? z->T * (c->experts_per_tok ? c->experts_per_tok : 1) / c->experts
				     : z->T;
	double mlp = 2 * X + widest * mtok * z->f * z->e;
	/* OPT's and Llama's [b, 1, s, s] float mask lives through the pass;
	 * T5's position bias, the relative bias with the mask added
	 * ([b, heads, s, kv]), is made by a stack's first layer and handed
	 * to every later one: the decoder holds its self-attention's and
	 * its cross-attention's (zeros plus the encoder's mask) at once */
	double mask4 = c->family == MODEL_FAM_OPT || c->family == MODEL_FAM_LLAMA
		       ? z->b * z->sl * z->kv * z->e
		       : c->family == MODEL_FAM_T5 ? (c->dec_layers ? 2 : 1) * z->S * z->e : 0;
	double head = X + logits;
	(void)o;
	double t = attn > mlp ? attn : mlp;
	return mask4 + (t > head ? t : head);
}

static double maxd(double a, double b)
{
	return a > b ? a : b;
}

void model_memory(const struct model_config *c, const struct model_opts *o,
		  const struct model_seq *s, struct model_memory *m)
{
	memset(m, 0, sizeof(*m));
	struct shp z;
	uint32_t tp = o->tp ? o->tp : 1;
	z.e = gpu_dtype_bytes(o->dtype);
	z.half = o->dtype == GPU_DT_BF16 || o->dtype == GPU_DT_FP16;
	z.sdpa = o->attention != MODEL_ATTN_EAGER;
	int fused = model_attention_impl(o) != PRED_ATTN_NONE;
	z.out_merged = fused;
	z.fused_norm = o->stack == MODEL_STACK_TE || o->fused_norm;
	z.train = o->mode == MODEL_TRAINING;
	z.b = s->micro_batch ? (double)s->micro_batch : (double)o->batch;
	/* context parallelism: a GPU holds seq / cp of each sequence (ring
	 * attention runs its queries against one chunk of keys at a time) */
	z.sl = o->mode == MODEL_DECODE ? 1 : (double)(o->seq / model_cp(o));
	z.kv = o->mode == MODEL_DECODE ? (double)o->seq + 1 : z.sl;
	z.T = z.b * z.sl;
	/* Sequence parallelism (--sequence-parallel; Korthikanti et al. 2022,
	 * sec. 4.2.2) splits what tensor parallelism leaves whole
	 * along the sequence: each of the tp ranks runs the norms and dropouts
	 * of, and keeps the hidden-wide tensors (the residual, the norms'
	 * inputs, outputs and statistics, the dropout masks, the linears'
	 * hidden-wide inputs, all-gathered again in backward) for, 1 / tp of
	 * the tokens */
	z.Tr = o->sp && tp > 1 && z.train ? z.T / tp : z.T;
	z.h = c->hidden;
	z.a = c->heads / tp;
	z.q = z.a * c->head_dim;
	/* model.c's attention_core: a fused kernel (--attention flash, fa2,
	 * fa3, cudnn, triton) takes a Llama-family model's K and V at their
	 * KV heads (flash_attn_func's GQA), where eager and SDPA attend over
	 * them repeated to every query head */
	z.kvq = fused && c->family == MODEL_FAM_LLAMA && c->kv_heads
		? (double)(c->kv_heads / tp ? c->kv_heads / tp : 1) * c->head_dim : z.q;
	z.f = (double)(c->ffn / tp);
	z.S = z.b * z.a * z.sl * z.kv;
	double logits = (o->head == MODEL_HEAD_CLASSIFY ? MODEL_CLASSIFY_LABELS
			 : ceil((double)c->vocab / tp)) * z.T * z.e;

	/* an engine's FP8 linears hold a byte a weight (their block or
	 * channel scales, 4 bytes per 128 x 128 block or per row, left out);
	 * its AWQ/GPTQ linears o->wq_bytes, their scales and zero points in */
	m->weights = (s->params - s->params_fp8 - s->params_wq - s->params_nf4) * z.e + s->params_fp8 +
		     s->params_wq * o->wq_bytes + s->params_nf4 * MODEL_NF4_BYTES;
	/* torch.autocast over the FP32 model in inference: the FP32
	 * parameters and their 16-bit casts, cached for the autocast region
	 * (ops.c) */
	if (!z.train && model_autocast(o))
		m->weights = s->params * (4 + z.e);
	m->kv_cache = s->kv_cache_bytes;
	if (o->engine != MODEL_ENGINE_HF) {
		/* an engine holds the weights and its cache; a pass's largest
		 * activations and logits come and go (serve.c) */
		m->transient = s->act_peak_bytes;
		m->peak = m->weights + m->kv_cache + m->transient;
		return;
	}
	if (!z.train) {
		if (o->mode == MODEL_DECODE || s->kv_cache_bytes > 0) {
			/* a step concatenates one layer's cache into a new
			 * tensor before the old one goes */
			double layer_cache = s->stage_layers ? s->kv_cache_bytes / s->stage_layers : 0;
			double step = layer_cache + (double)(o->head == MODEL_HEAD_CLASSIFY ? 2 : c->vocab) /
					tp * z.b * z.e;
			m->transient = o->mode == MODEL_DECODE ? step
				       : maxd(step, inference_transient(c, o, &z, logits));
		} else {
			m->transient = inference_transient(c, o, &z, logits);
		}
		m->peak = m->weights + m->kv_cache + m->transient;
		return;
	}

	/* the stage holding the head (the last; every layer without a
	 * pipeline), whichever stage s is */
	uint32_t total = c->layers + c->dec_layers, first, last_n;
	if (model_pp_stage(c, o, o->pp > 1 ? o->pp - 1 : 0, &first, &last_n, NULL, 0) < 0) {
		first = s->first_layer;
		last_n = s->stage_layers;
	}
	/* --liger's fused linear cross-entropy holds no logits: a chunk's
	 * (model_liger_chunk()) while it runs, and the input's gradient (the
	 * head's input counted) from forward on */
	double head_logits = logits, head_transient = logits * (o->loss ? 1 + 4 / z.e : 1);
	uint64_t chunk = model_liger_chunk(c, o, (uint64_t)z.T);
	if (chunk) {
		head_logits = 0;
		head_transient = (double)chunk * c->vocab * z.e;
	}
	double last = 0, work = 0, w;
	for (uint32_t i = first; i < first + last_n && i < total; i++) {
		last += layer_ckpt(c, o, &z, i, last_n, i - first, &w);
		work = maxd(work, w);
	}
	last += head_saved(c, o, &z, head_logits);
	for (uint32_t k = 0; k < o->mtp; k++) {
		/* an MTP module (model.c): its two norms, their concatenation
		 * (the projection's input), its layer, its head and logits */
		last += 2 * rms_saved(&z) + 2 * z.Tr * z.h * z.e +
			layer_ckpt(c, o, &z, total + k, last_n, last_n + k, &w) + head_saved(c, o, &z, logits);
		work = maxd(work, w);
	}
	if (first == 0)
		last += embed_saved(c, &z);
	double acts = last;
	if (o->pp > 1) {
		/* 1F1B: stage k holds min(pp - k, microbatches) microbatches of
		 * its layers when its first backward starts (the step's
		 * microbatches: every gradient-accumulation pass's), the first
		 * stage pp of them and its embeddings, the last one, with the
		 * head (above).  Interleaved (vpp chunks): Megatron's
		 * schedule (schedules.py, forward_backward_pipelining_with_
		 * interleaving) runs 2 (pp - 1) + (vpp - 1) pp warm-up chunk
		 * forwards on the first rank, then one more before its first
		 * backward, at most every chunk of every microbatch: that many
		 * chunks of layers / vpp layers each. */
		double M = (double)s->microbatches * (o->grad_accum > 1 ? o->grad_accum : 1);
		for (uint32_t k = 0; k + 1 < o->pp; k++) {
			uint32_t f, n;
			if (model_pp_stage(c, o, k, &f, &n, NULL, 0) < 0)
				break;
			double inflight = M < o->pp - k ? M : o->pp - k;
			if (o->vpp > 1 && k == 0) {
				double v = o->vpp, chunks = 2.0 * (o->pp - 1) + (v - 1) * o->pp + 1;
				inflight = (chunks < M * v ? chunks : M * v) / v;
			}
			double held = 0;
			for (uint32_t i = f; i < f + n && i < total; i++)
				held += layer_ckpt(c, o, &z, i, n, i - f, &w);
			held *= inflight;
			if (k == 0)
				held += embed_saved(c, &z);
			acts = maxd(acts, held);
		}
	}
	m->activations = acts;
	/* the gradient of the logits (the harness's ones, or the loss's:
	 * log_softmax's FP32 one and its cast to the logits' dtype) */
	m->transient = head_transient + work;
	/* Once the head's backward has run, the first layer's backward: the
	 * loss's gradients and log_softmax's saved FP32 output are gone, a
	 * harness's gradients of the outputs (torch.autograd.backward(outs,
	 * grads)) live until the call returns, and the layer holds
	 * layer_bwd_transient() beside its recompute's set.  The head's
	 * weight gradient, new from here on, is added below where the
	 * gradients are not counted already. */
	double after_head = work + layer_bwd_transient(c, &z) +
			    (o->loss ? -head_logits * 4 / z.e : head_transient);
	/* ZeRO (Rajbhandari et al. 2020): each of the dp ranks keeps a dp-th
	 * of the optimizer's state (--zero 1), of the gradients (2) and of
	 * the parameters (3).  FSDP holds a layer's full gradient until it is
	 * reduce-scattered, and the root's (embeddings and head) until the
	 * end of backward; under FULL_SHARD the root's full parameters and
	 * two layers' (the one running and the one prefetched), while
	 * SHARD_GRAD_OP keeps every unit gathered from its forward to the
	 * end of backward. */
	double W = s->params * z.e, L = s->layer_params * z.e, R = s->root_params * z.e;
	uint32_t dp = model_grad_ranks(o), zero = dp > 1 ? o->zero : 0;
	/* HSDP shards within a node: over its data-parallel ranks only.  The
	 * ranks are dp x cp (model_grad_ranks): a sequence's cp ranks hold
	 * the same parameters, and Megatron's distributed optimizer shards
	 * over its data-parallel group with context parallelism
	 * (parallel_state's data_parallel_group_with_cp), torchtitan's FSDP
	 * over dp_shard x cp. */
	/* --lora (in one dtype: model_mixed()): every weight is held (FSDP:
	 * sharded, shard_w), only the adapters take gradients and optimizer
	 * state; P, Wt, the trained parameters, shard their share of this
	 * rank, lt the trained share of a unit */
	double P = s->params_trainable, Wt = P * z.e;
	double ranks = zero >= 2 ? model_shard_ranks(o) : dp;
	double shard = zero ? Wt / ranks : Wt, shard_w = zero >= 2 ? W / ranks : shard;
	double lt = W > 0 ? Wt / W : 1;
	if (zero && model_ep(o) > 1) {
		/* the experts' state over their data-parallel group, dp / ep
		 * (ZeRO-1; FSDP2's dp_shard_mod_ep, model.c zero_gather()) */
		double X = s->expert_params * z.e;
		shard = (W - X) / dp + X * model_ep(o) / o->dp;
	}
	/* DDP's bucket copy; Megatron's DDP reduces its contiguous gradient
	 * buffer in place (buckets are views of it) */
	double ddp = zero < 2 && dp > 1 && o->stack != MODEL_STACK_TE ? Wt : 0;
	/* FSDP under a pipeline (model.c sharded()): every unit of the stage
	 * stays gathered through the step, as SHARD_GRAD_OP keeps it, and its
	 * 16-bit gradients accumulate over the microbatches until the last
	 * one's reduce-scatter */
	int pp_fsdp = zero >= 2 && o->pp > 1;
	/* FSDP reshards after backward; else the weights as held (--qlora's
	 * NF4 ones at their size) */
	double weights_step = zero >= 2 ? shard_w : m->weights;
	double grads_step, sn = shard / z.e;          /* parameters in this rank's shard */
	double adam = o->optimizer == MODEL_OPTIM_ADAMW;
	/* bitsandbytes' AdamW8bit: both moments in 8 bits, whatever the
	 * parameters' dtype */
	double mom8 = o->adam_8bit ? 2 * MODEL_ADAM8_MOMENT_BYTES : 0;
	double gbuf = 0;  /* a gradient buffer that lives through the step */
	if (o->offload) {
		/* DeepSpeed with offload_optimizer (model.c offload_step()):
		 * the model's parameters and gradients in the dtype on the GPU
		 * (ZeRO-3 partitions the parameters, gathering the root's and
		 * two layers' as FSDP does; ZeRO-2 the gradients, a layer's
		 * whole until its reduce-scatter), the FP32 master, its
		 * gradients and the moments in host memory; the step reads
		 * nothing more on the GPU */
		m->weights = zero == 3 ? shard + R + 2 * L : W;
		m->gradients = zero >= 2 ? shard + R + L : W;
		m->optimizer = 0;
		weights_step = grads_step = 0;
	} else if (!model_mixed(o)) {
		/* one dtype throughout (FP32, or the model cast to 16 bits) */
		if (zero == 2 || pp_fsdp)
			m->weights = W + shard_w;
		else if (zero == 3)
			m->weights = shard_w + R + 2 * L;
		m->gradients = zero >= 2 ? shard + (pp_fsdp ? Wt : (R + L) * lt) : Wt + ddp;
		m->optimizer = mom8 > 0 ? mom8 * sn : adam * 2 * shard;
		/* --grad-fp32 (nanotron's accumulate_grad_in_fp32): an FP32
		 * buffer beside the 16-bit gradients, 4 bytes for each
		 * parameter whose gradient this rank keeps, allocated once
		 * (the other branches' gradients are FP32 already) */
		if (o->grad_fp32 && z.e < 4)
			gbuf = 4 * (zero >= 2 ? sn : P);
		m->gradients += gbuf;
		grads_step = zero >= 2 ? shard + gbuf : m->gradients;
	} else if (o->stack == MODEL_STACK_TE && zero < 2) {
		/* Megatron (MLM docs/user-guide/features/dist_optimizer.md),
		 * bytes per parameter, d ranks sharding the optimizer:
		 *   bf16 params + fp32 grads: 18 plain, 6 + 12/d distributed
		 *     (params 2, main grads 4; master 4 + two moments 8 / d);
		 *   fp16: 20 plain, 4 + 16/d (params 2, grads 2; an FP32 copy
		 *     of the gradient 4 + master 4 + moments 8 / d);
		 *   fp32: 16 and 8 + 8/d (the pure branch above).
		 * bf16 accumulates and reduces in FP32 (arguments.py forces
		 * accumulate_allreduce_grads_in_fp32 on for bf16). */
		double fp16 = o->dtype == GPU_DT_FP16;
		m->gradients = s->params * (fp16 ? 2 : 4);
		m->optimizer = sn * ((fp16 ? 8 : 4) + adam * 8);
		grads_step = m->gradients;
	} else if (zero >= 2) {
		/* FSDP mixed precision (torchtitan's FSDP2 param_dtype bf16,
		 * reduce_dtype fp32; llm-foundry's FSDP1 DEFAULT/PURE): the
		 * sharded parameters are FP32 (the master, 4 / d), the optimizer
		 * sees the FP32 shard (gradients 4 / d, moments 8 / d); the
		 * unsharded 16-bit parameters are gathered per unit (FULL_SHARD:
		 * the root's and two layers', running and prefetched;
		 * SHARD_GRAD_OP: all of them from forward to the end of
		 * backward) and a unit's 16-bit gradient lives until its
		 * reduce-scatter.  3 zero, d ranks: 16 / d + transients.
		 * torchao float8 under FSDP2 (tensorwise) gathers the layers'
		 * weights in FP8, one byte a parameter (model.c fp8_gathers);
		 * the root stays 16-bit. */
		double g8 = o->fp8 && o->fp8_recipe == MODEL_FP8_TENSORWISE ? 1 / z.e : 1;
		m->weights = 4 * sn + (zero == 3 && !pp_fsdp ? R + 2 * L * g8 : R + (W - R) * g8);
		m->gradients = 4 * sn + (pp_fsdp ? W : R + L);
		m->optimizer = mom8 > 0 ? mom8 * sn : adam * 8 * sn;
		weights_step = grads_step = 4 * sn;
	} else {
		/* autocast (torch.amp) over FP32 parameters, DDP or ZeRO-1:
		 * FP32 weights 4, their 16-bit casts made in forward and saved
		 * for backward (autocast's cast cache; freed with the graph),
		 * FP32 gradients 4 and DDP's FP32 bucket copy 4, moments 8 / d. */
		ddp = ddp / z.e * 4;
		m->weights = 4 * s->params + W;
		m->gradients = 4 * P + ddp;
		m->optimizer = mom8 > 0 ? mom8 * sn : adam * 8 * sn;
		weights_step = 4 * s->params;
		grads_step = m->gradients;
	}
	/* FP8 weight copies (bytes a parameter): delayed scaling's, 1, and
	 * MXFP8's under te, both layouts with their scales, 2 + 2 / 32.
	 * Kept for the step where the weights are (DDP, ZeRO-1, SHARD_GRAD_OP
	 * and FSDP under a pipeline, whose units stay gathered); under
	 * FULL_SHARD a copy exists only while its unit is gathered, the
	 * running layer's and the prefetched one's as the 16-bit weights
	 * above (torchao casts the gathered weight at each forward and keeps
	 * no FP8 copy, training-stacks.md section 2; a copy of every unit
	 * kept through the step would undo the sharding).  The whole
	 * model's was counted under FULL_SHARD too: Llama-3-8B, batch 1 x
	 * 8192, --dp 8 --zero 3 on an H100, 83.6 GiB (not fitting) where
	 * 76.5 are counted now */
	double fp8_copy = !o->fp8 ? 0
			  : o->fp8_recipe == MODEL_FP8_DELAYED ? 1
			  : o->fp8_recipe == MODEL_FP8_MXFP8 && o->stack == MODEL_STACK_TE ? 2 * (1 + 1.0 / 32)
											    : 0;
	if (fp8_copy > 0)
		m->weights += fp8_copy * (zero == 3 && !pp_fsdp ? 2 * L / z.e : s->params);
	/* Activations are freed layer by layer as the gradients appear, so
	 * a pass peaks at its start or at its end.  But where the gradients
	 * outlive a micro-batch (--grad-accum above 1, or a pipeline's
	 * microbatches: .grad accumulates until the step) the later
	 * micro-batches' activations come on top of them; FSDP without a
	 * pipeline frees each unsharded gradient at its reduce-scatter, and
	 * only its shard (counted in gradients) stays.  DDP's bucket copy is
	 * in both terms once. */
	double M = (double)s->microbatches * (o->grad_accum > 1 ? o->grad_accum : 1);
	int kept = M > 1 && !(zero >= 2 && o->pp <= 1);
	/* the head's weight gradient (the tied embedding's), vocab x hidden
	 * of this GPU, in the gradients' dtype: FP32 under autocast, the
	 * 16-bit one FSDP reduces, else the parameters'; counted already
	 * where the gradients live through the pass (kept, Megatron's
	 * buffer); none under --lora, which freezes the head */
	double head_wgrad = o->head == MODEL_HEAD_CLASSIFY || kept || o->lora_rank ||
				    (o->stack == MODEL_STACK_TE && zero < 2)
			    ? 0
			    : ceil((double)c->vocab / tp) * c->hidden *
				      (model_mixed(o) && zero < 2 ? 4 : z.e);
	if (after_head + head_wgrad > m->transient)
		m->transient = after_head + head_wgrad;
	double start = m->activations + m->transient + ddp;
	double pass = m->weights + m->optimizer + gbuf +
		      (kept ? start + m->gradients - gbuf - ddp : maxd(start, m->gradients - gbuf));
	if (o->stack == MODEL_STACK_TE && zero < 2) /* Megatron's contiguous */
		pass = m->weights + m->optimizer + start + m->gradients; /* grad buffer lives throughout */
	double step = 0;
	if (o->optimizer != MODEL_OPTIM_NONE) {
		/* foreach AdamW takes a full-size sqrt of the second moment */
		double tmp = adam && !o->fused_optimizer && !o->adam_8bit ? m->optimizer / 2 : 0;
		if (adam && model_mixed(o) && o->stack == MODEL_STACK_TE && zero < 2)
			tmp = tmp ? 4 * sn : 0;  /* FP32, as the moments */
		step = weights_step + grads_step + m->optimizer + tmp;
		if (step > pass)
			m->transient = tmp;
	}
	m->peak = maxd(pass, step);
}
