/*
 * check_model.c - the config path: kernel sequences checked against
 * hand-derived counts, shapes and FLOPs; config.json parsing; collective
 * sizes and times.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "predictor/comm.h"
#include "analyzer/model/model.h"
#include "analyzer/model/run.h"
#include "tests/check_run.h"

static struct model_config gpt2_small(void)
{
	struct model_config c;
	ck_assert_int_eq(model_config_builtin("gpt2", &c), 0);
	return c;
}

static double layer_sum(const struct model_seq *s, int32_t layer, enum model_phase ph,
			enum pred_op op, size_t *count)
{
	double f = 0;
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct model_kernel *k = &s->v[i];
		if (k->layer != layer || k->phase != ph || (op != PRED_OP_COUNT && k->k.op != op))
			continue;
		f += k->k.flops;
		n++;
	}
	if (count)
		*count = n;
	return f;
}

/* Every built-in name finds itself, not another (names are compared with
 * case, '-', '_', '.' and ' ' ignored: "qwen2.5-7b" and "qwen2-57b" would
 * be one name); the ones kept as config.json keys carry what that file
 * would give: Qwen3's q/k norms, Qwen3-MoE's experts of
 * moe_intermediate_size, Gemma's local layers and sandwich norms. */
START_TEST(builtin_names_distinct)
{
	const char *const *names = model_config_builtin_names();
	struct model_config c;
	size_t n = 0;
	for (; names[n]; n++) {
		ck_assert_int_eq(model_config_builtin(names[n], &c), 0);
		ck_assert_str_eq(c.name, names[n]);
	}
	ck_assert_uint_ge(n, 45);
	ck_assert_int_eq(model_config_builtin("Qwen3-30B-A3B", &c), 0);
	ck_assert(c.qk_norm && c.experts == 128 && c.experts_per_tok == 8 && c.moe_ffn == 768);
	ck_assert_int_eq(model_config_builtin("gemma_2_27b", &c), 0);
	ck_assert(c.window == 4096 && c.local_period == 2 && c.sandwich_norm && c.final_softcap);
	ck_assert(c.tied && c.head_dim == 128 && c.attn_softcap && !c.hf_refusal[0]);
	ck_assert_int_eq(model_config_builtin("gpt-oss-20b", &c), 0);
	ck_assert(c.window == 128 && c.local_period == 2 && c.oss && !c.hf_refusal[0]);
	ck_assert_int_eq(model_config_builtin("gemma-3-1b", &c), 0);
	ck_assert(c.window == 512 && c.local_period == 6 && c.qk_norm && !c.final_softcap);
	ck_assert(c.embed_scale);
	/* Gemma 1, a row of the C table, scales its embeddings too; Llama not */
	ck_assert_int_eq(model_config_builtin("gemma-7b", &c), 0);
	ck_assert(c.embed_scale && !c.sandwich_norm);
	ck_assert_int_eq(model_config_builtin("llama-3-8b", &c), 0);
	ck_assert(!c.embed_scale);
	ck_assert_int_eq(model_config_builtin("qwen2.5-7b", &c), 0);
	ck_assert(c.qkv_bias && !c.window && !c.qk_norm);
	ck_assert_int_eq(model_config_builtin("qwen3.5-7b", &c), SURFER_EUNKNOWN);
}
END_TEST

START_TEST(gpt2_layer_flops)
{
	/* Forward GEMM FLOPs of a GPT-2 layer (Narayanan et al. 2021):
	 * QKV 6bsh^2, projection 2bsh^2, MLP 16bsh^2 and the two attention
	 * products 4bs^2h. */
	struct model_config c = gpt2_small();
	struct model_opts o;
	model_opts_init(&o);
	o.batch = 4;
	o.seq = 512;
	struct model_seq s;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	double b = 4, sl = 512, h = 768;
	double want = 24 * b * sl * h * h + 4 * b * sl * sl * h;
	double got = layer_sum(&s, 3, MODEL_PH_FORWARD, PRED_OP_GEMM, NULL);
	ck_assert_double_eq_tol(got, want, want * 1e-12);
	model_seq_release(&s);
}
END_TEST

START_TEST(gpt2_layer_kernels)
{
	/* Inference: ln_1, c_attn, QK^T, /sqrt(d), where(mask), softmax, PV,
	 * merge-heads copy, c_proj, residual add, ln_2, c_fc, 8 kernels of
	 * gelu_new, c_proj, residual add = 22. */
	struct model_config c = gpt2_small();
	struct model_opts o;
	model_opts_init(&o);
	o.batch = 2;
	o.seq = 256;
	struct model_seq s;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	size_t n;
	layer_sum(&s, 0, MODEL_PH_FORWARD, PRED_OP_COUNT, &n);
	ck_assert_uint_eq(n, 22);
	layer_sum(&s, 0, MODEL_PH_FORWARD, PRED_OP_GEMM, &n);
	ck_assert_uint_eq(n, 6);
	ck_assert_uint_eq(model_seq_count(&s, MODEL_PH_BACKWARD), 0);
	/* the first GEMM of layer 0 is c_attn: (b*s x h) * (h x 3h) */
	const struct model_kernel *q = NULL;
	for (size_t i = 0; i < s.n && !q; i++)
		if (s.v[i].layer == 0 && s.v[i].k.op == PRED_OP_GEMM)
			q = &s.v[i];
	ck_assert_ptr_nonnull(q);
	ck_assert_uint_eq(q->k.m, 512);
	ck_assert_uint_eq(q->k.n, 2304);
	ck_assert_uint_eq(q->k.k, 768);
	ck_assert_uint_eq(q->k.grid[0] * q->k.grid[1], (512 / 128) * (2304 / 128));
	model_seq_release(&s);

	/* SDPA replaces QK^T, scale, mask, softmax, PV by one kernel: 18. */
	o.attention = MODEL_ATTN_SDPA;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	layer_sum(&s, 0, MODEL_PH_FORWARD, PRED_OP_COUNT, &n);
	ck_assert_uint_eq(n, 18);
	layer_sum(&s, 0, MODEL_PH_FORWARD, PRED_OP_ATTENTION, &n);
	ck_assert_uint_eq(n, 1);
	model_seq_release(&s);

	/* Training adds the attention, residual and MLP dropouts: 25. */
	o.attention = MODEL_ATTN_EAGER;
	o.mode = MODEL_TRAINING;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	layer_sum(&s, 0, MODEL_PH_FORWARD, PRED_OP_COUNT, &n);
	ck_assert_uint_eq(n, 25);
	model_seq_release(&s);
}
END_TEST

/* --attention flash: one described kernel per layer, the KV heads read as
 * they are (no repeat_kv copies), its backward as FlashAttention's three
 * kernels; a decode step is one split-KV decode call.  Llama-3-8B (32
 * heads, 8 KV heads, head dim 128), 2 sequences of 100 tokens. */
START_TEST(flash_attention_calls)
{
	struct model_config c;
	struct model_opts o;
	struct model_seq s;
	char err[128];
	ck_assert_int_eq(model_config_builtin("llama-3-8b", &c), 0);
	model_opts_init(&o);
	o.batch = 2;
	o.seq = 100;
	o.dtype = GPU_DT_BF16;
	o.mode = MODEL_TRAINING;
	o.attention = MODEL_ATTN_FLASH;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	size_t fwd = 0, bwd = 0, copies0 = 0, sdpa_copies0;
	for (size_t i = 0; i < s.n; i++) {
		const struct model_kernel *k = &s.v[i];
		if (k->layer == 0 && k->phase == MODEL_PH_FORWARD &&
		    !strcmp(k->k.name, "elementwise_kernel<128, 4, CopyFunctor>"))
			copies0++;
		if (k->k.op != PRED_OP_ATTENTION)
			continue;
		const struct pred_attn *a = &k->k.attn;
		ck_assert_int_eq(a->impl, PRED_ATTN_FLASH);
		ck_assert_int_eq(a->form, PRED_ATTN_PREFILL);
		ck_assert_uint_eq(a->heads, 32);
		ck_assert_uint_eq(a->kv_heads, 8);
		ck_assert_uint_eq(a->seqs, 2);
		ck_assert_uint_eq(a->q_tokens, 200);
		ck_assert_uint_eq(a->kv_tokens, 200);
		/* causal: 100 * 101 / 2 pairs per sequence */
		ck_assert(a->pairs == 10100.0);
		if (a->backward) {
			bwd++;
			/* 2 (3 x 128 + 2 x 128) x 32 heads x 10100 pairs */
			ck_assert(k->k.flops == 2.0 * 640 * 32 * 10100);
		} else {
			fwd++;
			ck_assert(k->k.flops == 2.0 * 256 * 32 * 10100);
			/* Q, O: 200 x 32 x 256; K, V: 200 x 8 x 256; 2 bytes */
			ck_assert(k->k.bytes == 2.0 * (200.0 * 32 * 256 + 200.0 * 8 * 256));
		}
	}
	ck_assert_uint_eq(fwd, 32);
	ck_assert_uint_eq(bwd, 32);
	model_seq_release(&s);
	/* SDPA copies K and V to every head (repeat_kv: 2 more copies), then
	 * runs PyTorch's flash backend: FA2's kernels over 32 KV heads, the
	 * forward reading K and V of every head (200 x 32 x 256 x 2 bytes) */
	o.attention = MODEL_ATTN_SDPA;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	sdpa_copies0 = 0;
	fwd = bwd = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct model_kernel *k = &s.v[i];
		if (k->layer == 0 && k->phase == MODEL_PH_FORWARD &&
		    !strcmp(k->k.name, "elementwise_kernel<128, 4, CopyFunctor>"))
			sdpa_copies0++;
		if (k->k.op != PRED_OP_ATTENTION)
			continue;
		const struct pred_attn *a = &k->k.attn;
		ck_assert_int_eq(a->impl, PRED_ATTN_FA2);
		ck_assert_uint_eq(a->heads, 32);
		ck_assert_uint_eq(a->kv_heads, 32);
		ck_assert(a->pairs == 10100.0);
		if (a->backward) {
			bwd++;
		} else {
			fwd++;
			ck_assert(k->k.bytes == 2.0 * (200.0 * 32 * 256 + 200.0 * 32 * 256));
		}
	}
	ck_assert_uint_eq(sdpa_copies0, copies0 + 2);
	ck_assert_uint_eq(fwd, 32);
	ck_assert_uint_eq(bwd, 32);
	model_seq_release(&s);
	/* in FP32 SDPA takes its memory-efficient backend: the attention
	 * model's EFFICIENT class on the same shape, the forward reading 4-byte
	 * elements, one backward kernel a layer (no dot_do_o or convert_dq) */
	o.dtype = GPU_DT_FP32;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	fwd = bwd = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct model_kernel *k = &s.v[i];
		if (!strcmp(k->k.name, "flash_bwd_dot_do_o_kernel") ||
		    !strcmp(k->k.name, "flash_bwd_convert_dq_kernel"))
			ck_abort_msg("%s in an FP32 SDPA step", k->k.name);
		if (k->k.op != PRED_OP_ATTENTION)
			continue;
		const struct pred_attn *a = &k->k.attn;
		ck_assert_int_eq(a->impl, PRED_ATTN_EFFICIENT);
		ck_assert_uint_eq(a->kv_heads, 32);
		ck_assert(a->pairs == 10100.0);
		ck_assert_uint_eq(a->bias_heads, 0);
		if (a->backward) {
			bwd++;
		} else {
			fwd++;
			ck_assert(k->k.bytes == 4.0 * (200.0 * 32 * 256 + 200.0 * 32 * 256));
		}
	}
	ck_assert_uint_eq(fwd, 32);
	ck_assert_uint_eq(bwd, 32);
	model_seq_release(&s);
	o.dtype = GPU_DT_BF16;

	/* a decode step of 4 sequences with 50 cached tokens: one query each
	 * over 51 keys, no mask left to apply */
	o.attention = MODEL_ATTN_FLASH;
	o.mode = MODEL_DECODE;
	o.batch = 4;
	o.seq = 50;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	size_t dec = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct pred_attn *a = &s.v[i].k.attn;
		if (s.v[i].k.op != PRED_OP_ATTENTION)
			continue;
		dec++;
		ck_assert_int_eq(a->form, PRED_ATTN_DECODE);
		ck_assert_uint_eq(a->q_tokens, 4);
		ck_assert_uint_eq(a->kv_tokens, 204);
		ck_assert_uint_eq(a->max_kv, 51);
		ck_assert(a->pairs == 204.0);
	}
	ck_assert_uint_eq(dec, 32);
	model_seq_release(&s);

	/* flash-attn has no FP32 kernels */
	o.dtype = GPU_DT_FP32;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), SURFER_EINVAL);
	ck_assert(strstr(err, "flash") != NULL);
	/* nor a bias added to the scores (T5's relative positions) */
	ck_assert_int_eq(model_config_builtin("t5-base", &c), 0);
	o.dtype = GPU_DT_BF16;
	o.mode = MODEL_INFERENCE;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), SURFER_EINVAL);
	ck_assert(strstr(err, "position bias") != NULL);
	/* SDPA takes that bias as its attn_mask: the memory-efficient backend,
	 * a bias per head (T5's [B, H, S, S] position bias), every pair of
	 * the 128 x 128 computed, the decoder's causal mask inside the bias */
	o.attention = MODEL_ATTN_SDPA;
	o.batch = 2;
	o.seq = 128;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	size_t eff = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct pred_attn *a = &s.v[i].k.attn;
		if (s.v[i].k.op != PRED_OP_ATTENTION || a->form != PRED_ATTN_PREFILL)
			continue;
		ck_assert_int_eq(a->impl, PRED_ATTN_EFFICIENT);
		ck_assert_uint_eq(a->bias_heads, a->heads);
		ck_assert_uint_eq(a->causal, 0);
		ck_assert(a->pairs == 2.0 * 128 * 128);
		eff++;
	}
	ck_assert_uint_gt(eff, 0);
	model_seq_release(&s);
}
END_TEST

START_TEST(backward_is_twice_forward)
{
	/* Every forward GEMM has two backward GEMMs of the same size. */
	struct model_config c;
	ck_assert_int_eq(model_config_builtin("bert-large", &c), 0);
	struct model_opts o;
	model_opts_init(&o);
	o.batch = 2;
	o.seq = 512;
	o.mode = MODEL_TRAINING;
	struct model_seq s;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	size_t nf, nb;
	double f = layer_sum(&s, 5, MODEL_PH_FORWARD, PRED_OP_GEMM, &nf);
	double b = layer_sum(&s, 5, MODEL_PH_BACKWARD, PRED_OP_GEMM, &nb);
	ck_assert_uint_eq(nb, 2 * nf);
	ck_assert_double_eq_tol(b, 2 * f, f * 1e-12);
	/* BERT layer: Q, K, V, output, intermediate, output dense + 2 bmm */
	ck_assert_uint_eq(nf, 8);
	model_seq_release(&s);
}
END_TEST

START_TEST(kernel_limit)
{
	/* A build may hold max_kernels kernels and no more: one fewer than a
	 * BERT-Large training step launches makes it fail cleanly. */
	struct model_config c;
	ck_assert_int_eq(model_config_builtin("bert-large", &c), 0);
	struct model_opts o;
	model_opts_init(&o);
	o.mode = MODEL_TRAINING;
	o.optimizer = MODEL_OPTIM_ADAMW;
	struct model_seq s;
	char err[128] = "";
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	size_t n = s.n;
	model_seq_release(&s);
	ck_assert_uint_gt(n, 1000);
	o.max_kernels = (uint32_t)n;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	ck_assert_uint_eq(s.n, n);
	model_seq_release(&s);
	o.max_kernels = (uint32_t)n - 1;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), SURFER_EINVAL);
	ck_assert(strstr(err, "more kernels") != NULL);
	ck_assert_ptr_null(s.v);
}
END_TEST

START_TEST(classify_head)
{
	/* BertForSequenceClassification outside the layers: the pooler
	 * (b x h x h) and the 2-label classifier, 2bh^2 + 4bh FLOPs, instead
	 * of BertForPreTraining's MLM transform and T x h x vocab decoder. */
	struct model_config c;
	ck_assert_int_eq(model_config_builtin("bert-large", &c), 0);
	struct model_opts o;
	model_opts_init(&o);
	o.batch = 8;
	o.seq = 512;
	o.head = MODEL_HEAD_CLASSIFY;
	struct model_seq s;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	size_t n;
	double f = layer_sum(&s, -1, MODEL_PH_FORWARD, PRED_OP_GEMM, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_double_eq_tol(f, 2.0 * 8 * 1024 * 1024 + 4.0 * 8 * 1024, 1.0);
	model_seq_release(&s);
	/* the default head keeps the decoder: T x h x vocab among them */
	o.head = MODEL_HEAD_LM;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	f = layer_sum(&s, -1, MODEL_PH_FORWARD, PRED_OP_GEMM, &n);
	ck_assert_uint_eq(n, 4);
	ck_assert_double_ge(f, 2.0 * 4096 * 1024 * 30522);
	model_seq_release(&s);
	/* GPT-2: a bias-free score projection of every token, T x h x 2 */
	c = gpt2_small();
	o.batch = 2;
	o.seq = 128;
	o.head = MODEL_HEAD_CLASSIFY;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	f = layer_sum(&s, -1, MODEL_PH_FORWARD, PRED_OP_GEMM, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_double_eq_tol(f, 2.0 * 256 * 768 * 2, 1e-6);
	model_seq_release(&s);
}
END_TEST

START_TEST(gpt2_params)
{
	/* GPT-2 small has 124,439,808 parameters (wte 50257x768, wpe
	 * 1024x768, 12 layers of 7,087,872, ln_f 1536). */
	struct model_config c = gpt2_small();
	struct model_opts o;
	model_opts_init(&o);
	o.seq = 1024;
	o.mode = MODEL_TRAINING;
	struct model_seq s;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	ck_assert_double_eq(s.params, 124439808.0);
	model_seq_release(&s);
}
END_TEST

START_TEST(llama_gqa_shapes)
{
	struct model_config c;
	ck_assert_int_eq(model_config_builtin("Llama_3-8B", &c), 0);
	ck_assert_uint_eq(c.kv_heads, 8);
	struct model_opts o;
	model_opts_init(&o);
	o.batch = 1;
	o.seq = 2048;
	o.dtype = GPU_DT_BF16;
	struct model_seq s;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	/* layer GEMMs: q (4096), k (1024), v (1024), o, gate, up, down, 2 bmm */
	uint64_t want_n[] = { 4096, 1024, 1024 };
	size_t g = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct model_kernel *k = &s.v[i];
		if (k->layer != 1 || k->k.op != PRED_OP_GEMM)
			continue;
		if (g < 3)
			ck_assert_uint_eq(k->k.n, want_n[g]);
		ck_assert_int_eq(k->k.dtype, GPU_DT_BF16);
		g++;
	}
	ck_assert_uint_eq(g, 9);
	/* Llama-3-8B: 8.03 B parameters */
	ck_assert_double_eq_tol(s.params, 8.03e9, 0.01e9);
	model_seq_release(&s);
}
END_TEST

/* Llama's [B,1,S,S] causal mask is added to every head's scores: once
 * what streams between two heads (the scores', the result's and the
 * mask's S x S slices) outgrows L2, every head reads the mask again. */
START_TEST(mask_reread_per_head)
{
	struct model_config c;
	ck_assert_int_eq(model_config_builtin("Llama_3-8B", &c), 0);
	struct model_opts o;
	model_opts_init(&o);
	o.batch = 2;
	o.seq = 2048;
	struct model_seq s;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	double n = 2.0 * 32 * 2048 * 2048, found = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct model_kernel *k = &s.v[i];
		if (k->layer != 1 || !(k->reread_bytes > 0))
			continue;
		found++;
		ck_assert_int_eq(k->k.op, PRED_OP_ELEMENTWISE);
		/* read once: scores and result plus 1/32 of them for the mask */
		ck_assert_double_eq_tol(k->k.bytes, n * 4 * (2 + 1.0 / 32), 1);
		ck_assert_double_eq_tol(k->reread_bytes, n * 4 * (1 - 1.0 / 32), 1);
		ck_assert_double_eq_tol(k->reuse_bytes, 3.0 * 2048 * 2048 * 4, 1);
	}
	ck_assert_double_eq(found, 1);
	/* the layer's first bmm is Q K^T on a K^T view, the second P V */
	int bmm = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct model_kernel *k = &s.v[i];
		if (k->layer != 1 || k->k.op != PRED_OP_GEMM || k->k.batch < 2)
			continue;
		ck_assert_int_eq(k->k.b_transposed, bmm == 0);
		bmm++;
	}
	ck_assert_int_eq(bmm, 2);
	model_seq_release(&s);
	/* 48 MB between reuses: the A100's 40 MB L2 re-reads, a 60 MB one not */
	const struct gpu_spec *a100 = gpu_find("a100");
	ck_assert_ptr_nonnull(a100);
	ck_assert_double_eq(pred_reread_bytes(7, 48.0 * 1048576, a100), 7);
	ck_assert_double_eq(pred_reread_bytes(7, 30.0 * 1048576, a100), 0);
	ck_assert_double_eq(pred_reread_bytes(0, 48.0 * 1048576, a100), 0);
	/* T5 adds the [B,H,S,S] bias its first layer materialized: two full
	 * reads, no re-read rule */
	ck_assert_int_eq(model_config_builtin("t5-base", &c), 0);
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	double nt5 = 2.0 * 12 * 2048 * 2048;
	int adds = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct model_kernel *k = &s.v[i];
		ck_assert_double_eq(k->reread_bytes, 0);
		if (k->layer == 1 && k->k.op == PRED_OP_ELEMENTWISE && k->k.bytes == nt5 * 4 * 3)
			adds++;
	}
	ck_assert_int_ge(adds, 1);
	model_seq_release(&s);
	/* BERT's [B,1,1,S] mask stays a single read */
	ck_assert_int_eq(model_config_builtin("bert-large", &c), 0);
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	for (size_t i = 0; i < s.n; i++)
		ck_assert_double_eq(s.v[i].reread_bytes, 0);
	model_seq_release(&s);
}
END_TEST

static const char *gpt2_json =
	"{\"model_type\": \"gpt2\", \"n_embd\": 256, \"n_head\": 4, \"n_layer\": 3,"
	" \"vocab_size\": 1000, \"activation_function\": \"gelu_new\", \"n_inner\": null}";

START_TEST(parse_configs)
{
	struct model_config c;
	char err[256];
	ck_assert_int_eq(model_config_parse(gpt2_json, "tiny", &c, err, sizeof(err)), 0);
	ck_assert_int_eq(c.family, MODEL_FAM_GPT2);
	ck_assert_uint_eq(c.hidden, 256);
	ck_assert_uint_eq(c.ffn, 1024);
	ck_assert_uint_eq(c.head_dim, 64);
	ck_assert_uint_eq(c.layers, 3);
	ck_assert_int_eq(c.act, MODEL_ACT_GELU_NEW);
	ck_assert_str_eq(c.name, "tiny");

	const char *llama = "{\"architectures\": [\"MistralForCausalLM\"], \"hidden_size\": 512,"
			    " \"num_attention_heads\": 8, \"num_key_value_heads\": 2,"
			    " \"num_hidden_layers\": 2, \"intermediate_size\": 1408, \"vocab_size\": 3200}";
	ck_assert_int_eq(model_config_parse(llama, "m", &c, err, sizeof(err)), 0);
	ck_assert_int_eq(c.family, MODEL_FAM_LLAMA);
	ck_assert_uint_eq(c.kv_heads, 2);
	ck_assert_uint_eq(c.head_dim, 64);
	ck_assert_int_eq(c.gated, 1);
	ck_assert_int_eq(c.tied, 0);

	const char *sw = "{\"model_type\": \"switch_transformers\", \"d_model\": 128, \"num_heads\": 4,"
			 " \"d_kv\": 16, \"d_ff\": 256, \"num_layers\": 4, \"num_decoder_layers\": 2,"
			 " \"num_experts\": 4, \"encoder_sparse_step\": 2, \"vocab_size\": 500}";
	ck_assert_int_eq(model_config_parse(sw, "s", &c, err, sizeof(err)), 0);
	ck_assert_int_eq(c.family, MODEL_FAM_T5);
	ck_assert_uint_eq(c.dec_layers, 2);
	ck_assert_uint_eq(c.experts, 4);
	ck_assert_uint_eq(c.head_dim, 16);
	ck_assert_uint_eq(c.capacity, 64); /* SwitchTransformersConfig default */
	struct model_opts o;
	model_opts_init(&o);
	o.seq = 64;
	o.mode = MODEL_TRAINING;
	struct model_seq s;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	ck_assert_uint_gt(model_seq_count(&s, MODEL_PH_BACKWARD), 0);
	/* SwitchTransformersSparseMLP indexes with each expert's boolean mask
	 * twice (the gather, the scatter): a nonzero each, the CPU waiting for
	 * its count, then the select and the indexing kernel launched inside
	 * the same op; 4 experts in 3 sparse layers, forward only */
	size_t waits = 0;
	ck_assert_int_eq(s.v[0].copy, MODEL_COPY_NONE);
	for (size_t i = 1; i + 2 < s.n; i++)
		if (s.v[i].copy == MODEL_COPY_DTOH) {
			ck_assert_int_eq(s.v[i].phase, MODEL_PH_FORWARD);
			ck_assert_str_eq(s.v[i - 1].k.name, "DeviceReduceSingleTileKernel");
			ck_assert_str_eq(s.v[i + 1].k.name, "DeviceSelectSweepKernel");
			ck_assert(!s.v[i - 1].in_op && s.v[i].in_op && s.v[i + 1].in_op && s.v[i + 2].in_op);
			ck_assert(strstr(s.v[i + 2].k.name, "index") != NULL);
			waits++;
		}
	ck_assert_uint_eq(waits, 2 * 4 * 3);
	model_seq_release(&s);

	/* The experts' first GEMM (d_model 128 -> d_ff 256): batch 2 x seq
	 * 64 over 4 experts is 32 tokens each; --expert-capacity 8 keeps 8 of
	 * each sequence (16), `config` the config's 64 (no cut at 16 per
	 * sequence).  2 sparse encoder layers + 1 sparse decoder layer. */
	const struct { int64_t cap; uint64_t m; } caps[] = {
		{ 0, 32 }, { 8, 16 }, { MODEL_CAPACITY_CONFIG, 32 },
	};
	for (size_t ci = 0; ci < sizeof(caps) / sizeof(caps[0]); ci++) {
		model_opts_init(&o);
		o.batch = 2;
		o.seq = 64;
		o.expert_capacity = caps[ci].cap;
		ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
		size_t nexp = 0;
		for (size_t i = 0; i < s.n; i++) {
			const struct pred_kernel *k = &s.v[i].k;
			/* (the 3 dense layers' MLP has all 128 tokens) */
			if (k->op == PRED_OP_GEMM && k->k == 128 && k->n == 256 && k->m != 128) {
				ck_assert_uint_eq(k->m, caps[ci].m);
				nexp++;
			}
		}
		ck_assert_uint_eq(nexp, 3 * 4);
		model_seq_release(&s);
	}

	/* bad inputs */
	ck_assert_int_eq(model_config_parse("{\"model_type\": \"gpt2\", \"n_embd\": ", "x", &c, err, sizeof(err)), SURFER_ECORRUPT);
	ck_assert_int_eq(model_config_parse("[1, 2]", "x", &c, err, sizeof(err)), SURFER_ECORRUPT);
	ck_assert_int_eq(model_config_parse("{\"model_type\": \"mamba\"}", "x", &c, err, sizeof(err)), SURFER_EUNKNOWN);
	ck_assert_int_eq(model_config_parse("{\"model_type\": \"gpt2\", \"n_embd\": 250, \"n_head\": 3}", "x", &c, err, sizeof(err)), SURFER_ECORRUPT);
	ck_assert_int_eq(model_config_parse("{\"model_type\": \"bert\", \"hidden_size\": -4}", "x", &c, err, sizeof(err)), SURFER_ECORRUPT);
	ck_assert_int_eq(model_config_builtin("gpt-9", &c), SURFER_EUNKNOWN);
	/* More experts than the parser takes: the message names them. */
	ck_assert_int_eq(model_config_parse("{\"model_type\": \"mixtral\", \"num_hidden_layers\": 2, "
					    "\"hidden_size\": 64, \"num_attention_heads\": 4, "
					    "\"intermediate_size\": 128, \"num_local_experts\": 100000, "
					    "\"num_experts_per_tok\": 2}", "x", &c, err, sizeof(err)), SURFER_ECORRUPT);
	ck_assert_msg(strstr(err, "experts 100000, top-k 2") != NULL, "%s", err);
	/* Grouped-query attention needs the heads in whole groups: 32 heads
	 * over 5 K/V heads, or more K/V heads than heads, is refused (it was
	 * built as 32 K/V heads without a word); absent, every head has its own */
	const char *gqa = "{\"model_type\": \"llama\", \"hidden_size\": 512, \"num_attention_heads\": 32,"
			  " \"num_hidden_layers\": 2, \"intermediate_size\": 1024, \"vocab_size\": 1000";
	char cfg[512];
	snprintf(cfg, sizeof(cfg), "%s, \"num_key_value_heads\": 5}", gqa);
	ck_assert_int_eq(model_config_parse(cfg, "x", &c, err, sizeof(err)), SURFER_ECORRUPT);
	ck_assert_msg(strstr(err, "5 key/value heads do not divide the 32 attention heads") != NULL, "%s", err);
	snprintf(cfg, sizeof(cfg), "%s, \"num_key_value_heads\": 64}", gqa);
	ck_assert_int_eq(model_config_parse(cfg, "x", &c, err, sizeof(err)), SURFER_ECORRUPT);
	snprintf(cfg, sizeof(cfg), "%s}", gqa);
	ck_assert_int_eq(model_config_parse(cfg, "x", &c, err, sizeof(err)), 0);
	ck_assert_uint_eq(c.kv_heads, 32);
	snprintf(cfg, sizeof(cfg), "%s, \"num_key_value_heads\": 8}", gqa);
	ck_assert_int_eq(model_config_parse(cfg, "x", &c, err, sizeof(err)), 0);
	ck_assert_uint_eq(c.kv_heads, 8);
}
END_TEST

/* A Mixtral-style config (4 experts, top 2, every layer sparse): the
 * parse, the parameter count and the forward GEMM work of a layer worked
 * by hand, a torch.where per expert; Gemma's GeGLU, head_dim and tied
 * embeddings; a top-k above the expert count refused. */
START_TEST(mixtral_and_gemma)
{
	const char *mx = "{\"model_type\": \"mixtral\", \"hidden_size\": 256,"
			 " \"num_attention_heads\": 8, \"num_key_value_heads\": 2,"
			 " \"num_hidden_layers\": 2, \"intermediate_size\": 512, \"vocab_size\": 1000,"
			 " \"num_local_experts\": 4, \"num_experts_per_tok\": 2}";
	struct model_config c;
	char err[256];
	ck_assert_int_eq(model_config_parse(mx, "mx", &c, err, sizeof(err)), 0);
	ck_assert_int_eq(c.family, MODEL_FAM_LLAMA);
	ck_assert_uint_eq(c.experts, 4);
	ck_assert_uint_eq(c.experts_per_tok, 2);
	ck_assert_uint_eq(c.capacity, 0);
	struct model_opts o;
	model_opts_init(&o);
	o.batch = 2;
	o.seq = 64;
	struct model_seq s;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	/* per layer: q 256x256, k and v 256x64, o 256x256, router 256x4,
	 * norms 2x256, 4 experts of 3 x 256x512 */
	double h = 256, f = 512, kvd = 64, E = 4;
	double layer = 2 * h * h + 2 * h * kvd + h * E + 2 * h + E * 3 * h * f;
	double want_params = 2 * layer + 2 * 1000 * h + h;   /* untied embed + head, final norm */
	ck_assert_double_eq(s.params, want_params);
	/* forward GEMMs of layer 1: 128 tokens; projections 2T(h h + 2 h kvd + h h);
	 * router 2T h E; each expert 64 tokens (128 x 2 / 4) x 3 GEMMs of h x f;
	 * attention 2 x 2 b heads s^2 d (b 2, 8 heads of 32, s 64). */
	double T = 128, want = 2 * T * (2 * h * h + 2 * h * kvd) + 2 * T * h * E +
			       E * 3 * 2 * 64 * h * f + 2 * 2 * 2 * 8 * 64.0 * 64 * 32;
	ck_assert_double_eq_tol(layer_sum(&s, 1, MODEL_PH_FORWARD, PRED_OP_GEMM, NULL), want, want * 1e-12);
	size_t wheres = 0;
	for (size_t i = 0; i < s.n; i++)
		wheres += s.v[i].layer == 1 && strcmp(s.v[i].k.name, "DeviceSelectSweepKernel") == 0;
	ck_assert_uint_eq(wheres, 4);
	/* each torch.where is a nonzero: the count copied to the host, the CPU
	 * waiting, before the select */
	size_t waits = 0;
	for (size_t i = 0; i + 1 < s.n; i++)
		if (s.v[i].layer == 1 && s.v[i].copy == MODEL_COPY_DTOH) {
			ck_assert_str_eq(s.v[i + 1].k.name, "DeviceSelectSweepKernel");
			ck_assert(s.v[i].in_op && s.v[i + 1].in_op);
			waits++;
		}
	ck_assert_uint_eq(waits, 4);
	model_seq_release(&s);

	const char *gm = "{\"model_type\": \"gemma\", \"hidden_size\": 384, \"num_attention_heads\": 4,"
			 " \"num_key_value_heads\": 1, \"head_dim\": 128, \"num_hidden_layers\": 2,"
			 " \"intermediate_size\": 1024, \"vocab_size\": 2000,"
			 " \"hidden_act\": \"gelu\", \"hidden_activation\": \"gelu_pytorch_tanh\"}";
	ck_assert_int_eq(model_config_parse(gm, "g", &c, err, sizeof(err)), 0);
	ck_assert_int_eq(c.family, MODEL_FAM_LLAMA);
	ck_assert_int_eq(c.act, MODEL_ACT_GELU_TANH);
	ck_assert_uint_eq(c.head_dim, 128);
	ck_assert_int_eq(c.tied, 1);
	ck_assert_uint_eq(c.experts, 0);

	const char *bad = "{\"model_type\": \"mixtral\", \"hidden_size\": 256, \"num_attention_heads\": 8,"
			  " \"num_hidden_layers\": 2, \"intermediate_size\": 512, \"vocab_size\": 1000,"
			  " \"num_local_experts\": 2, \"num_experts_per_tok\": 3}";
	ck_assert_int_eq(model_config_parse(bad, "b", &c, err, sizeof(err)), SURFER_ECORRUPT);
	ck_assert_int_eq(model_config_builtin("mixtral-8x7b", &c), 0);
	ck_assert_uint_eq(c.experts_per_tok, 2);
}
END_TEST

START_TEST(load_config_file)
{
	char path[] = "/tmp/check_model_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, gpt2_json, strlen(gpt2_json)), (ssize_t)strlen(gpt2_json));
	close(fd);
	struct model_config c;
	char err[256];
	ck_assert_int_eq(model_config_resolve(path, &c, err, sizeof(err)), 0);
	ck_assert_uint_eq(c.hidden, 256);
	unlink(path);
	ck_assert_int_ne(model_config_resolve("/nonexistent/config.json", &c, err, sizeof(err)), 0);
	ck_assert_int_eq(model_config_resolve("gpt2-large", &c, err, sizeof(err)), 0);
	ck_assert_uint_eq(c.layers, 36);
}
END_TEST

/* GPT-2 small trained on 2 x 1024 tokens a GPU, nothing else set. */
static struct model_opts gpt2_training(void)
{
	struct model_opts o;
	model_opts_init(&o);
	o.batch = 2;
	o.seq = 1024;
	o.mode = MODEL_TRAINING;
	return o;
}

/* The index of s's first backward kernel (s->n when none). */
static size_t first_backward(const struct model_seq *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].phase == MODEL_PH_BACKWARD)
			return i;
	return s->n;
}

START_TEST(collective_sizes)
{
	struct model_config c = gpt2_small();
	struct model_opts o = gpt2_training();
	o.dp = 4;
	struct model_seq s;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	/* DDP all-reduces every gradient once: 4 bytes per parameter. */
	double ar = 0;
	for (size_t i = 0; i < s.n; i++)
		if (s.v[i].phase == MODEL_PH_COMM) {
			ck_assert_int_eq(s.v[i].comm, COMM_ALL_REDUCE);
			ck_assert_uint_eq(s.v[i].ranks, 4);
			ck_assert_int_eq(s.v[i].async, 1);
			ar += s.v[i].k.bytes;
		}
	ck_assert_double_eq_tol(ar, 4.0 * 124439808.0, 1);
	model_seq_release(&s);

	/* Megatron tensor parallelism: two all-reduces of b*s*h activations
	 * per layer forward and two backward. */
	o.dp = 1;
	o.tp = 4;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	for (size_t i = 0; i < s.n; i++)
		if (s.v[i].phase == MODEL_PH_COMM && s.v[i].layer == 2)
			ck_assert_double_eq(s.v[i].k.bytes, 2.0 * 1024 * 768 * 4);
	/* forward ones come before the first backward kernel */
	size_t nf = 0, nb = 0, first_bwd = first_backward(&s);
	for (size_t i = 0; i < s.n; i++)
		if (s.v[i].phase == MODEL_PH_COMM && s.v[i].layer == 2)
			*(i < first_bwd ? &nf : &nb) += 1;
	ck_assert_uint_eq(nf, 2);
	ck_assert_uint_eq(nb, 2);
	/* the QKV GEMM of a rank is a quarter of the full one */
	for (size_t i = 0; i < s.n; i++)
		if (s.v[i].layer == 2 && s.v[i].k.op == PRED_OP_GEMM) {
			ck_assert_uint_eq(s.v[i].k.n, 3 * 768 / 4);
			break;
		}
	model_seq_release(&s);

	/* tp must divide the heads */
	o.tp = 5;
	char err[200];
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), SURFER_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "--tp"));

	/* pipeline: the last stage runs layers/pp layers and a send/recv of
	 * the microbatch's activations each way */
	o.tp = 1;
	o.pp = 4;
	o.batch = 8;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	ck_assert_uint_eq(s.stage_layers, 3);
	size_t sr = 0;
	for (size_t i = 0; i < s.n; i++)
		if (s.v[i].comm == COMM_SEND_RECV) {
			ck_assert_double_eq(s.v[i].k.bytes, 2.0 * 1024 * 768 * 4);
			sr++;
		}
	ck_assert_uint_eq(sr, 2);
	model_seq_release(&s);

	/* interleaved: 3 chunks of the stage's 3 layers, each receiving its
	 * input and sending its gradient back, overlapped on the side stream;
	 * 2 chunks do not divide 3 layers */
	o.mode = MODEL_TRAINING;
	o.vpp = 3;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	sr = 0;
	for (size_t i = 0; i < s.n; i++)
		if (s.v[i].comm == COMM_SEND_RECV) {
			ck_assert_int_eq(s.v[i].async, MODEL_ASYNC_AFTER);
			ck_assert_int_ge(s.v[i].layer, 9);
			sr++;
		}
	ck_assert_uint_eq(sr, 6);
	model_seq_release(&s);
	o.vpp = 2;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), SURFER_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "--vpp 2"));
	o.pp = 1;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), SURFER_EINVAL);
}
END_TEST

/* Sequence parallelism (Megatron's sequence_parallel): with tp 4 the norms
 * and residual adds of a layer run on a quarter of the tokens, and the
 * all-reduces become an all-gather of the full T x h tensor before each
 * column-parallel linear and a reduce-scatter after each row-parallel one
 * (forward: AG, RS, AG, RS; backward their transposes); a pipeline stage
 * sends its shard.  At tp 1 it changes nothing. */
START_TEST(sequence_parallel)
{
	struct model_config c = gpt2_small();
	struct model_opts o = gpt2_training();
	o.tp = 4;
	o.sp = 1;
	struct model_seq s;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	size_t first_bwd = first_backward(&s);
	enum comm_op fwd[4], bwd[4];
	size_t nf = 0, nb = 0, norms = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct model_kernel *k = &s.v[i];
		if (k->layer != 2)
			continue;
		if (k->phase == MODEL_PH_COMM) {
			ck_assert_double_eq(k->k.bytes, 2.0 * 1024 * 768 * 4);
			ck_assert_uint_eq(k->ranks, 4);
			if (i < first_bwd && nf < 4)
				fwd[nf++] = k->comm;
			else if (i >= first_bwd && nb < 4)
				bwd[nb++] = k->comm;
			else
				ck_abort_msg("more than 4 collectives a pass");
		}
		/* layer norms forward: 2048 / 4 rows of 768 */
		if (k->k.op == PRED_OP_NORM && i < first_bwd) {
			ck_assert_uint_eq(k->k.m, 512);
			norms++;
		}
	}
	ck_assert_uint_eq(nf, 4);
	ck_assert_uint_eq(nb, 4);
	ck_assert_uint_eq(norms, 2);
	ck_assert_int_eq(fwd[0], COMM_ALL_GATHER);
	ck_assert_int_eq(fwd[1], COMM_REDUCE_SCATTER);
	ck_assert_int_eq(fwd[2], COMM_ALL_GATHER);
	ck_assert_int_eq(fwd[3], COMM_REDUCE_SCATTER);
	for (size_t i = 0; i < 4; i++)   /* backward: MLP first */
		ck_assert_int_eq(bwd[i], i % 2 ? COMM_REDUCE_SCATTER : COMM_ALL_GATHER);
	/* the residual adds (2 tensors read, 1 written) over 2048 x 768 / 4;
	 * GELU's adds, inside the MLP's region, keep their 2048 x 3072 / 4 */
	size_t adds = 0, full = 0;
	for (size_t i = 0; i < first_bwd; i++)
		if (s.v[i].layer == 2 && s.v[i].k.name &&
		    !strcmp(s.v[i].k.name, "vectorized_elementwise_kernel<4, AddFunctor>")) {
			if (fabs(s.v[i].k.bytes - 3.0 * 512 * 768 * 4) < 1)
				adds++;
			else if (s.v[i].k.bytes >= 2.0 * 2048 * 768 * 4)
				full++;
		}
	ck_assert_uint_eq(adds, 2);
	ck_assert_uint_eq(full, 2);
	model_seq_release(&s);

	/* a pipeline stage receives and sends a quarter of a microbatch's
	 * activations (2 microbatches of 1 x 1024 tokens) */
	o.pp = 2;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	size_t sr = 0;
	for (size_t i = 0; i < s.n; i++)
		if (s.v[i].comm == COMM_SEND_RECV) {
			ck_assert_double_eq(s.v[i].k.bytes, 256.0 * 768 * 4);
			sr++;
		}
	ck_assert_uint_eq(sr, 2);
	model_seq_release(&s);

	/* tp 1: the same iteration with and without */
	o.pp = 1;
	o.tp = 1;
	struct model_seq a;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	o.sp = 0;
	ck_assert_int_eq(model_build(&c, &o, &a, NULL, 0), 0);
	ck_assert_uint_eq(s.n, a.n);
	for (size_t i = 0; i < s.n; i++) {
		ck_assert_double_eq(s.v[i].k.bytes, a.v[i].k.bytes);
		ck_assert_double_eq(s.v[i].k.flops, a.v[i].k.flops);
	}
	model_seq_release(&s);
	model_seq_release(&a);
}
END_TEST

START_TEST(collective_times)
{
	struct comm_link l = { .bw_gbps = 100, .latency_us = 10, .step_us = 5, .p2p_us = 3, .nvlink = 1 };
	/* all-reduce of 1 GB over 4 ranks: 2*3/4 GB at 100 GB/s = 15 ms,
	 * plus 10 + 2*5 us */
	ck_assert_double_eq_tol(comm_time_ns(COMM_ALL_REDUCE, 1e9, 4, &l), 15e6 + 20e3, 1);
	ck_assert_double_eq_tol(comm_time_ns(COMM_ALL_GATHER, 1e9, 4, &l), 7.5e6 + 20e3, 1);
	ck_assert_double_eq_tol(comm_time_ns(COMM_SEND_RECV, 1e9, 2, &l), 10e6 + 3e3, 1);
	ck_assert_double_eq(comm_time_ns(COMM_ALL_REDUCE, 1e9, 1, &l), 0);
}
END_TEST

/* PCIe A100s are bridged in pairs: 2 ranks use the bridge, 4 cross PCIe
 * 4.0 x16 (16 GT/s x 16 lanes x 128/130 / 8 = 31.5 GB/s) at 0.75 with
 * 5 us per ring step; SXM4 boards keep NVLink for 8. */
START_TEST(bridged_pairs_cross_pcie)
{
	const struct gpu_spec *pc = gpu_find("a100-pcie-80"), *sx = gpu_find("a100-sxm4-80");
	ck_assert_ptr_nonnull(pc);
	ck_assert_ptr_nonnull(sx);
	ck_assert_uint_eq(pc->nvlink_peers, 2);
	ck_assert_uint_eq(sx->nvlink_peers, 8);
	struct comm_link l, wide;
	comm_link_init(pc, &l, &wide);
	double gen4 = 16.0 * 16 * 128 / 130 / 8;
	/* 2 ranks: 1e8 bytes once over 225 GB/s (600 / 2 x 0.75) + 50 us */
	ck_assert_double_eq_tol(comm_time_ns(COMM_ALL_REDUCE, 1e8, 2, &l), 50e3 + 1e8 / 225, 1);
	/* 4 ranks: 1.5e8 bytes over 0.75 x gen4, 30 us + 2 steps of 5 us */
	ck_assert_double_eq_tol(comm_time_ns(COMM_ALL_REDUCE, 1e8, 4, &l),
				40e3 + 1.5e8 / (0.75 * gen4), 10);
	comm_link_init(sx, &l, &wide);
	ck_assert_double_eq_tol(comm_time_ns(COMM_ALL_REDUCE, 1e8, 8, &l),
				50e3 + 1.75e8 / 225, 1);
	/* send/recv over NVLink: the message once at 0.8 of 300 GB/s + 8 us */
	ck_assert_double_eq_tol(comm_time_ns(COMM_SEND_RECV, 1e8, 2, &l), 8e3 + 1e8 / 240, 1);
	/* no NVLink at all: PCIe through host memory at 0.36 (a T4: PCIe 3.0
	 * x16, 8 GT/s) */
	comm_link_init(gpu_find("t4"), &l, &wide);
	double gen3 = 8.0 * 16 * 128 / 130 / 8;
	ck_assert_double_eq_tol(comm_time_ns(COMM_ALL_REDUCE, 1e8, 2, &l), 30e3 + 1e8 / (0.36 * gen3), 10);
	/* PCIe boxes: PipeWeave's RTX PRO 6000 box's cards reach each other
	 * peer-to-peer in pairs (systems.csv's pcie_p2p 2): two ranks at
	 * 0.75 of PCIe 5.0 x16 (32 GT/s x 16 x 128/130 / 8 = 63.02 GB/s),
	 * four through host memory at 0.36 (1.5e8 bytes, 30 us + 2 steps of
	 * 5 us); the RTX 6000 Ada box goes through host memory: 0.36 of PCIe
	 * 4.0 x16 (31.51 GB/s; its NCCL pairs measured 11.2-11.4 GB/s of bus
	 * bandwidth, 0.36) */
	double gen5 = 32.0 * 16 * 128 / 130 / 8;
	ck_assert_uint_eq(gpu_system_find("pcie-rtxpro6000-4")->pcie_p2p, 2);
	ck_assert_uint_eq(gpu_system_find("pcie-rtx6000ada-2")->pcie_p2p, 0);
	comm_link_init_system(gpu_find("rtx-pro-6000-blackwell"), NULL, &l, &wide);
	ck_assert_double_eq_tol(l.bw_gbps, 0.75 * gen5, 1e-9);
	ck_assert_double_eq_tol(comm_time_ns(COMM_ALL_REDUCE, 1e8, 2, &l), 30e3 + 1e8 / (0.75 * gen5), 10);
	ck_assert_double_eq_tol(comm_time_ns(COMM_ALL_REDUCE, 1e8, 4, &l), 40e3 + 1.5e8 / (0.36 * gen5), 10);
	comm_link_init_system(gpu_find("rtx-6000-ada"), NULL, &l, &wide);
	ck_assert_double_eq_tol(l.bw_gbps, 0.36 * gen4, 1e-9);
	/* the GPU alone (no system): not known, the host-memory rate */
	comm_link_init(gpu_find("rtx-pro-6000-blackwell"), &l, &wide);
	ck_assert_double_eq_tol(l.bw_gbps, 0.36 * gen5, 1e-9);
}
END_TEST

/* Hopper's eight-GPU NVSwitch boards: an all-reduce of all eight is NVLS,
 * the buffer once each way at 0.6 of 450 GB/s (900 / 2); of four, a ring
 * at 0.75; all-gather never NVLS.  An A100 board (no NVLS) stays a ring. */
START_TEST(nvls_on_hopper_boards)
{
	const struct gpu_spec *h = gpu_find("h100-sxm");
	ck_assert_ptr_nonnull(h);
	ck_assert_uint_eq(h->nvlink_peers, 8);
	struct comm_link l, wide;
	comm_link_init(h, &l, &wide);
	ck_assert_double_eq_tol(comm_time_ns(COMM_ALL_REDUCE, 1e8, 8, &l), 50e3 + 1e8 / 270, 1);
	ck_assert_double_eq_tol(comm_time_ns(COMM_ALL_REDUCE, 1e8, 4, &l),
				50e3 + 1.5e8 / 337.5, 1);
	/* all-gather: a ring; LL128 (14 us + 7 steps of 1.9 us, 0.92 of the
	 * rate) just beats Simple (50 us) at 100 MB */
	ck_assert_double_eq_tol(comm_time_ns(COMM_ALL_GATHER, 1e8, 8, &l),
				(14 + 7 * 1.9) * 1e3 + 0.875e8 / (337.5 * 0.92), 1);
	ck_assert(comm_time_ns(COMM_ALL_GATHER, 1e8, 8, &l) < 50e3 + 0.875e8 / 337.5);
	/* at 1 MB LL128's latency wins clearly: 27.3 us + 2.8 us */
	ck_assert_double_eq_tol(comm_time_ns(COMM_ALL_GATHER, 1e6, 8, &l),
				(14 + 7 * 1.9) * 1e3 + 0.875e6 / (337.5 * 0.92), 1);
	/* NVLS is the faster of the two for eight ranks */
	ck_assert(comm_time_ns(COMM_ALL_REDUCE, 1e9, 8, &l) <
		  50e3 + 1.75e9 / 337.5);
	comm_link_init(gpu_find("a100-sxm4-80"), &l, &wide);
	ck_assert_double_eq(l.nvls_gbps, 0);
}
END_TEST

/* Two DGX H100 nodes (8x 400 Gb/s NDR per node, 0.8 of the line rate: 40
 * GB/s a GPU, 320 GB/s a node): a 16-rank ring all-reduce runs at
 * min(337.5 NVLink ring, 8 x 40) = 320 GB/s on 2 x 15/16 of the buffer;
 * NVLSTree moves the buffer through the switch at 270 and 2 x the buffer
 * through the node's NICs at 320.  Large messages: the ring wins. */
START_TEST(allreduce_across_nodes)
{
	const struct gpu_system *s = gpu_system_find("dgx-h100");
	ck_assert_ptr_nonnull(s);
	struct comm_link l, wide;
	comm_link_init_system(NULL, s, &l, &wide);
	ck_assert_uint_eq(l.node_gpus, 8);
	ck_assert_double_eq_tol(l.net_gbps, 40, 1e-9);
	double S = 1e9;
	double ring = (50 + 2 * 14) * 1e3 + 2 * 15.0 / 16 * S / 320;
	double nvlstree = (50 + 2 * 20.9) * 1e3 + 2 * S / 320;
	double t = comm_group_ns(COMM_ALL_REDUCE, S, 16, 8, &l);
	ck_assert_double_eq_tol(t, ring < nvlstree ? ring : nvlstree, 1);
	/* packed by default: 16 ranks fill two nodes of 8 */
	ck_assert_double_eq(comm_group_ns(COMM_ALL_REDUCE, S, 16, 0, &l), t);
	/* one rank per node (HSDP's replicate group): one GPU's NICs, 40 GB/s */
	double one = comm_group_ns(COMM_ALL_REDUCE, S, 2, 1, &l);
	ck_assert(one > S / 40 && one < 1.1 * S / 40 + 100e3);
	/* inside one node nothing changes */
	struct comm_link l1, w1;
	comm_link_init(gpu_find("h100-sxm"), &l1, &w1);
	ck_assert_double_eq(comm_group_ns(COMM_ALL_REDUCE, S, 8, 8, &l), comm_time_ns(COMM_ALL_REDUCE, S, 8, &l1));
	/* a slower network is slower: the same nodes on AWS p5 (EFA 15 us) */
	struct comm_link lp, wp;
	comm_link_init_system(NULL, gpu_system_find("p5-h100"), &lp, &wp);
	ck_assert(comm_group_ns(COMM_ALL_REDUCE, 1e5, 16, 8, &lp) > comm_group_ns(COMM_ALL_REDUCE, 1e5, 16, 8, &l));
	/* all-gather across 4 nodes: a ring of 31/32 of the output at 320 GB/s,
	 * LL128's latency (14 + 28 x 1.9 + 3 x 4 us) below Simple's (50 + 3 x 14) */
	double ag = comm_group_ns(COMM_ALL_GATHER, S, 32, 8, &l);
	double simple = (50 + 3 * 14) * 1e3 + 31.0 / 32 * S / 320;
	double ll128 = (14 + 28 * 1.9 + 3 * 4) * 1e3 + 31.0 / 32 * S / (320 * 0.92);
	ck_assert_double_eq_tol(ag, simple < ll128 ? simple : ll128, 1);
	/* send/recv across nodes: one NIC (50 GB/s line, 40 achievable) */
	ck_assert_double_eq_tol(comm_group_ns(COMM_SEND_RECV, S, 2, 1, &l), (8 + 14) * 1e3 + S / 40, 1);
}
END_TEST

/* GB200 NVL72: 72 GPUs of 18 hosts in one NVLink domain: a 64-rank
 * all-reduce never touches the network. */
START_TEST(nvl72_domain_spans_hosts)
{
	struct comm_link l, wide;
	comm_link_init_system(NULL, gpu_system_find("gb200-nvl72"), &l, &wide);
	ck_assert_uint_eq(l.node_gpus, 72);
	ck_assert_uint_eq(l.peers, 72);
	double in = comm_group_ns(COMM_ALL_REDUCE, 1e9, 64, 0, &l);
	/* NVLS at 0.6 of 900 GB/s: the buffer once */
	ck_assert_double_eq_tol(in, 50e3 + 1e9 / 540, 1);
	/* 144 ranks leave the domain */
	ck_assert(comm_group_ns(COMM_ALL_REDUCE, 1e9, 144, 0, &l) > in);
}
END_TEST

/* vLLM's custom all-reduce: one-shot reads every peer's buffer, 6 us; the
 * 8-rank rule switches to two-shot at 256 KiB; NCCL above 8 MiB; nothing
 * without NVLink. */
START_TEST(custom_allreduce)
{
	struct comm_link l, wide;
	comm_link_init(gpu_find("h100-sxm"), &l, &wide);
	/* NVLink at 0.75 of 450 GB/s = 337.5; 6 us a stage */
	ck_assert_double_eq_tol(comm_custom_all_reduce_ns(64 * 1024, 8, &l), 6e3 + 7 * 65536 / 337.5, 1e-6);
	ck_assert_double_eq_tol(comm_custom_all_reduce_ns(1 << 20, 8, &l),
				12e3 + 2 * 7.0 / 8 * (1 << 20) / 337.5, 1e-6);
	ck_assert_double_eq_tol(comm_custom_all_reduce_ns(1 << 20, 2, &l), 6e3 + (1 << 20) / 337.5, 1e-6);
	ck_assert_double_eq(comm_custom_all_reduce_ns(16 << 20, 8, &l), 0);
	ck_assert_double_eq(comm_custom_all_reduce_ns(4096, 3, &l), 0);
	/* a few us where NCCL's floor is tens */
	ck_assert(comm_custom_all_reduce_ns(64 * 1024, 8, &l) < comm_time_ns(COMM_ALL_REDUCE, 64 * 1024, 8, &l) / 3);
	comm_link_init(gpu_find("l40s"), &l, &wide);
	ck_assert_double_eq(comm_custom_all_reduce_ns(4096, 2, &l), 0);
}
END_TEST

/* The constants as a set: NULL is the compiled-in set; another set moves
 * what it names (the ring's efficiency, the custom all-reduce's stage)
 * and a predictor hands its copy on. */
START_TEST(comm_params_set)
{
	const struct gpu_spec *h = gpu_find("h100-sxm");
	struct comm_link l, w, ld, wd;
	comm_link_init(h, &ld, &wd);
	comm_link_init_params(h, NULL, NULL, &l, &w);
	ck_assert_double_eq(l.bw_gbps, ld.bw_gbps);
	ck_assert_double_eq(l.custom_ar_us, 6.0);
	struct comm_params p = comm_default_params;
	p.nvlink_eff /= 2;
	p.custom_ar_stage_us = 3;
	p.nvlink_latency_us = 0;
	comm_link_init_params(h, NULL, &p, &l, &w);
	ck_assert_double_eq_tol(l.bw_gbps, ld.bw_gbps / 2, 1e-9);
	/* one-shot at TP 2: 3 us, the buffer at half the rate */
	ck_assert_double_eq_tol(comm_custom_all_reduce_ns(1 << 20, 2, &l), 3e3 + (1 << 20) / (ld.bw_gbps / 2),
				1e-6);
	/* a 1 GB ring all-reduce of 4 (no NVLS below 8 ranks) twice as long
	 * less the latency taken out */
	double a = comm_time_ns(COMM_ALL_REDUCE, 1e9, 4, &ld), b = comm_time_ns(COMM_ALL_REDUCE, 1e9, 4, &l);
	ck_assert_double_eq_tol(b, 2 * (a - 50e3), 1e-3 * a);
	struct pred_config pc = { .comm = &p };
	struct predictor *pr;
	ck_assert_int_eq(predictor_new(&pc, &pr, NULL, 0), 0);
	ck_assert_double_eq(predictor_comm(pr)->custom_ar_stage_us, 3);
	predictor_free(pr);
	ck_assert_int_eq(predictor_new(NULL, &pr, NULL, 0), 0);
	ck_assert_double_eq(predictor_comm(pr)->nvlink_eff, comm_default_params.nvlink_eff);
	predictor_free(pr);
}
END_TEST

/* The bytes the optimizer step of c run as o moves. */
static double optimizer_bytes(const struct model_config *c, const struct model_opts *o)
{
	struct model_seq s;
	ck_assert_int_eq(model_build(c, o, &s, NULL, 0), 0);
	double bytes = 0;
	for (size_t i = 0; i < s.n; i++)
		if (s.v[i].phase == MODEL_PH_OPTIMIZER)
			bytes += s.v[i].k.bytes;
	model_seq_release(&s);
	return bytes;
}

/* GPT-2 small's 124,439,808 parameters trained one sequence of 1024 with
 * AdamW, no gradient clipping. */
static const double GPT2_SMALL_PARAMS = 124439808.0;

static void gpt2_adamw(struct model_opts *o)
{
	model_opts_init(o);
	o->seq = 1024;
	o->mode = MODEL_TRAINING;
	o->optimizer = MODEL_OPTIM_ADAMW;
	o->no_grad_clip = 1;
}

START_TEST(optimizer_traffic)
{
	struct model_config c = gpt2_small();
	const double P = GPT2_SMALL_PARAMS;
	struct model_opts o;
	gpt2_adamw(&o);
	o.fused_optimizer = 1;
	/* fused AdamW reads p, g, m, v and writes p, m, v: 28 bytes/param */
	ck_assert_double_eq_tol(optimizer_bytes(&c, &o), 28.0 * P, 1);
	/* clipping: the norm reads g (4), the scaling reads and writes it (8) */
	o.no_grad_clip = 0;
	ck_assert_double_eq_tol(optimizer_bytes(&c, &o), (28.0 + 12.0) * P, 1);
	/* foreach: mul 2, lerp 3, mul 2, addcmul 4, sqrt 2, div 2, add 2,
	 * addcdiv 4 tensors an element, 8 passes: 84 bytes in FP32 */
	o.no_grad_clip = 1;
	o.fused_optimizer = 0;
	ck_assert_double_eq_tol(optimizer_bytes(&c, &o), 84.0 * P, 1);
	o.fused_optimizer = 1;
	/* a pure BF16 model's moments are BF16 (Adam's zeros_like): 14 bytes,
	 * 6 more to clip its BF16 gradients */
	o.dtype = GPU_DT_BF16;
	o.precision = MODEL_PREC_PURE;
	ck_assert_double_eq_tol(optimizer_bytes(&c, &o), 14.0 * P, 1);
	o.no_grad_clip = 0;
	ck_assert_double_eq_tol(optimizer_bytes(&c, &o), (14.0 + 6.0) * P, 1);
	/* mixed precision: FP32 master state and gradients as in FP32; under
	 * te Megatron copies the FP32 parameters into the BF16 model's after
	 * the step (4 read, 2 written) */
	o.precision = MODEL_PREC_MIXED;
	ck_assert_double_eq_tol(optimizer_bytes(&c, &o), (28.0 + 12.0) * P, 1);
	o.stack = MODEL_STACK_TE;
	ck_assert_double_eq_tol(optimizer_bytes(&c, &o), (28.0 + 12.0 + 6.0) * P, 1);
	o.stack = MODEL_STACK_EAGER;
	/* a sharded state's norm is summed over the ranks: one 4-byte all-
	 * reduce over them between the norm and the scaling; DDP's full
	 * gradients need none */
	o.dp = 8;
	o.zero = 1;
	struct model_seq s;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	size_t norm = s.n, ar = s.n, scale = s.n;
	for (size_t i = 0; i < s.n; i++) {
		const struct model_kernel *k = &s.v[i];
		if (k->k.name && strstr(k->k.name, "LpNormFunctor") && norm == s.n)
			norm = i;
		if (k->phase == MODEL_PH_COMM && k->k.bytes == 4.0) {
			ck_assert_int_eq(k->comm, COMM_ALL_REDUCE);
			ck_assert_uint_eq(k->ranks, 8);
			ar = i;
		}
		if (k->k.name && strstr(k->k.name, "BinaryOpScalarTensorFunctor") && scale == s.n)
			scale = i;
	}
	ck_assert_uint_lt(norm, ar);
	ck_assert_uint_lt(ar, scale);
	ck_assert_uint_lt(scale, s.n);
	model_seq_release(&s);
	o.zero = 0;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	for (size_t i = 0; i < s.n; i++)
		ck_assert(!(s.v[i].phase == MODEL_PH_COMM && s.v[i].k.bytes == 4.0));
	model_seq_release(&s);
	o.dp = 1;
	o.dtype = GPU_DT_FP32;
	o.optimizer = MODEL_OPTIM_NONE;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	ck_assert_uint_eq(model_seq_count(&s, MODEL_PH_OPTIMIZER), 0);
	model_seq_release(&s);
}
END_TEST

START_TEST(loss_kernels)
{
	/* The causal-LM loss as transformers 4.46 on (ForCausalLMLoss),
	 * torchtitan and Megatron take it: over every row (the labels are
	 * shifted, not the logits), log_softmax over the vocabulary and nll
	 * forward; zero-filled logits gradient, nll and log_softmax backward.
	 * In BF16 the logits are cast to FP32 first and the gradient back, and
	 * log_softmax reads and writes 4-byte elements (8 bytes an element
	 * forward, 12 backward).  Inference never computes it. */
	struct model_config c = gpt2_small();
	struct model_opts o;
	model_opts_init(&o);
	o.batch = 2;
	o.seq = 64;
	o.mode = MODEL_TRAINING;
	for (int bf16 = 0; bf16 < 2; bf16++) {
		struct model_seq a, b;
		o.dtype = bf16 ? GPU_DT_BF16 : GPU_DT_FP32;
		o.loss = 0;
		ck_assert_int_eq(model_build(&c, &o, &a, NULL, 0), 0);
		o.loss = 1;
		ck_assert_int_eq(model_build(&c, &o, &b, NULL, 0), 0);
		ck_assert_uint_eq(model_seq_count(&b, MODEL_PH_FORWARD),
				  model_seq_count(&a, MODEL_PH_FORWARD) + 2 + bf16);
		ck_assert_uint_eq(model_seq_count(&b, MODEL_PH_BACKWARD),
				  model_seq_count(&a, MODEL_PH_BACKWARD) + 3 + bf16);
		int found = 0;
		for (size_t i = 0; i < b.n; i++)
			if (b.v[i].k.op == PRED_OP_SOFTMAX && b.v[i].k.n == 50257) {
				ck_assert_uint_eq(b.v[i].k.m, 2 * 64);
				ck_assert_double_eq_tol(b.v[i].k.bytes,
							(b.v[i].phase == MODEL_PH_FORWARD ? 8.0 : 12.0) * 128 * 50257, 1);
				found++;
			}
		ck_assert_int_eq(found, 2);
		model_seq_release(&a);
		model_seq_release(&b);
	}
	o.dtype = GPU_DT_FP32;
	o.mode = MODEL_INFERENCE;
	struct model_seq b;
	ck_assert_int_eq(model_build(&c, &o, &b, NULL, 0), 0);
	for (size_t i = 0; i < b.n; i++)
		if (b.v[i].k.op == PRED_OP_SOFTMAX)
			ck_assert_uint_ne(b.v[i].k.n, 50257);
	model_seq_release(&b);
}
END_TEST

/* A hand-made sequence of collectives (their times are closed-form) to
 * check the replay: launches 6 us apart, stream order, the side stream. */
static void push_comm(struct model_seq *s, double bytes, int async, enum model_phase ph)
{
	struct model_kernel *k = &s->v[s->n++];
	memset(k, 0, sizeof(*k));
	k->k.name = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
	k->k.grid[0] = k->k.grid[1] = k->k.grid[2] = 1;  /* a launch as model.c's */
	k->k.block[0] = 512;
	k->k.block[1] = k->k.block[2] = 1;
	k->k.op = PRED_OP_COMM;
	k->k.bytes = bytes;
	k->phase = ph;
	k->comm = COMM_ALL_REDUCE;
	k->ranks = 4;
	k->async = async;
	k->layer = -1;
}

/* A kernel of the hand-made sequences below: a one-block element-wise
 * kernel (gemm 0) or a 64 x 64 x 64 GEMM of one batch (an nn.Linear's), both
 * far shorter than any CPU cost between two launches. */
static void push_tiny(struct model_seq *s, enum model_phase ph, int32_t layer, int gemm)
{
	struct model_kernel *k = &s->v[s->n++];
	memset(k, 0, sizeof(*k));
	k->k.name = gemm ? "ampere_sgemm_64x64_nn" : "vectorized_elementwise_kernel";
	k->k.grid[0] = k->k.grid[1] = k->k.grid[2] = 1;
	k->k.block[0] = 128;
	k->k.block[1] = k->k.block[2] = 1;
	k->k.op = gemm ? PRED_OP_GEMM : PRED_OP_ELEMENTWISE;
	k->k.m = gemm ? 64 : 1024;
	k->k.n = gemm ? 64 : 1;
	k->k.k = gemm ? 64 : 0;
	k->k.batch = 1;
	k->k.flops = gemm ? 2.0 * 64 * 64 * 64 : 1024;
	k->k.bytes = gemm ? 3.0 * 64 * 64 * 4 : 8192;
	k->phase = ph;
	k->layer = layer;
}

/* The CPU time the timeline gives the run s under o's stack: every kernel
 * is shorter than the CPU time before the next, so the GPU idles before
 * each one and the iteration is the CPU's time plus the last kernel's;
 * the last kernel's is read from a run at a flat 100 us a launch, whose
 * CPU time is flat_ns. */
static double cpu_time(const struct model_seq *s, const struct model_opts *o,
		       const struct gpu_spec *g, double flat_ns)
{
	struct model_timing flat, t;
	ck_assert_int_eq(model_time(s, o, g, 100e3, &flat), 0);
	ck_assert_int_eq(model_time(s, o, g, MODEL_LAUNCH_AUTO, &t), 0);
	double last = flat.iteration_ns - flat_ns;
	ck_assert(last > 0 && last < 6000);
	return t.iteration_ns - last;
}

/* The CPU cost per stack, worked by hand on one layer (an element-wise
 * kernel and an nn.Linear's GEMM forward, two kernels backward) and one
 * optimizer launch, through the timeline. */
START_TEST(cpu_cost_per_stack)
{
	const struct gpu_spec *g = gpu_find("a100-sxm4-80");
	struct model_kernel v[8];
	struct model_seq s;
	struct model_opts o;
	memset(&s, 0, sizeof(s));
	s.v = v;
	push_tiny(&s, MODEL_PH_FORWARD, 0, 0);
	push_tiny(&s, MODEL_PH_FORWARD, 0, 1);
	push_tiny(&s, MODEL_PH_BACKWARD, 0, 1);
	push_tiny(&s, MODEL_PH_BACKWARD, 0, 0);
	push_tiny(&s, MODEL_PH_OPTIMIZER, -1, 0);
	v[4].op_tensors = 161;
	push_tiny(&s, MODEL_PH_OPTIMIZER, -1, 0);
	v[5].in_op = 1;
	model_opts_init(&o);
	o.mode = MODEL_TRAINING;
	/* eager Hugging Face: 14.5 us a forward op, the layer's modules at
	 * its first kernel (one nn.Linear 5 us, six other modules 2.5 us
	 * each), 0.76 x 14.5 = 11.02 us a backward node; the optimizer's
	 * foreach op over 161 tensors, as the trace's (3 launches at 11.2 x
	 * 14.5 = 162.4 us each), less the two launches from inside it (6 us
	 * each), then one such launch */
	double fwd = 14500, bwd = 11020, opt = 3 * 162400 - 2 * 6000 + 6000;
	ck_assert_double_eq_tol(cpu_time(&s, &o, g, (double)s.n * 100e3), fwd + 5000 + 6 * 2500 + fwd + 2 * bwd + opt, 1);
	/* Transformer Engine's modules: no Hugging Face module calls */
	o.stack = MODEL_STACK_TE;
	ck_assert_double_eq_tol(cpu_time(&s, &o, g, (double)s.n * 100e3), 2 * fwd + 2 * bwd + opt, 1);
	/* compile: 6.5 us an Inductor kernel, 25 us a compiled block's call
	 * (its forward, its backward); the optimizer stays eager */
	o.stack = MODEL_STACK_COMPILE;
	ck_assert_double_eq_tol(cpu_time(&s, &o, g, (double)s.n * 100e3), 4 * 6500 + 2 * 25000 + opt, 1);
	/* with CUDA graphs each block's replay is one 25 us call */
	for (size_t i = 0; i < 4; i++)
		v[i].graph = (uint8_t)(1 + (i >= 2));
	v[0].cpu_before_ns = v[2].cpu_before_ns = 25000 - 6500;
	ck_assert_double_eq_tol(cpu_time(&s, &o, g, 4 * 100e3 + 2 * 18500), 2 * 25000 + opt, 1);
	/* activation checkpointing's recomputed forward in backward is a
	 * forward from Python again, its modules included */
	memset(v, 0, sizeof(v));
	s.n = 0;
	push_tiny(&s, MODEL_PH_FORWARD, 0, 1);
	push_tiny(&s, MODEL_PH_BACKWARD, 0, 1);
	v[1].role = MODEL_ROLE_RECOMPUTE;
	push_tiny(&s, MODEL_PH_BACKWARD, 0, 0);
	o.stack = MODEL_STACK_EAGER;
	ck_assert_double_eq_tol(cpu_time(&s, &o, g, (double)s.n * 100e3), 2 * (fwd + 5000 + 6 * 2500) + bwd, 1);
	/* a serving engine's kernels keep the flat 6 us */
	o.engine = MODEL_ENGINE_SGLANG;
	ck_assert_double_eq_tol(cpu_time(&s, &o, g, (double)s.n * 100e3), 3 * 6000, 1);
	/* a kernel launched inside the op of the one before it (a nonzero's
	 * select) costs one launch, 6 us, not a forward op's 14.5 */
	o.engine = MODEL_ENGINE_HF;
	s.n = 0;
	push_tiny(&s, MODEL_PH_FORWARD, -1, 0);
	push_tiny(&s, MODEL_PH_FORWARD, -1, 0);
	v[1].in_op = 1;
	ck_assert_double_eq_tol(cpu_time(&s, &o, g, (double)s.n * 100e3), fwd + 6000, 1);
}
END_TEST

/* A nonzero's wait (op_nonzero()): its count's copy to the host blocks
 * the CPU until the work queued before it is done, and the select
 * launched inside the op after it costs one launch.  After an all-reduce
 * of t1 issued at 6 us the copy (issued at 12 us) waits for it, and the
 * select is issued 6 us after the copy ends: 12 us + t1 + the copy + the
 * select.  At a flat 100 us a launch, 200 us + the same three, so the
 * two differ by exactly 188 us; with the copy not blocking, the select
 * would queue behind the all-reduce at 6 us + t1 (a difference of 194 us
 * from the flat run), and launched as a forward op it would cost 14.5 us
 * (179.5 us). */
START_TEST(nonzero_waits)
{
	const struct gpu_spec *g = gpu_find("a100-sxm4-80");
	struct model_kernel v[4];
	struct model_seq s;
	struct model_opts o;
	struct model_timing flat, t;
	memset(&s, 0, sizeof(s));
	memset(v, 0, sizeof(v));
	s.v = v;
	model_opts_init(&o);
	push_comm(&s, 1e8, 0, MODEL_PH_COMM);
	struct model_kernel *c = &v[s.n++];
	c->k.name = "memcpy DtoH";
	c->k.op = PRED_OP_ELEMENTWISE;
	c->k.bytes = 8;
	c->copy = MODEL_COPY_DTOH;
	c->in_op = 1;
	c->phase = MODEL_PH_FORWARD;
	c->layer = -1;
	push_tiny(&s, MODEL_PH_FORWARD, -1, 0);
	v[2].in_op = 1;
	ck_assert_int_eq(model_time(&s, &o, g, 100e3, &flat), 0);
	ck_assert_int_eq(model_time(&s, &o, g, MODEL_LAUNCH_AUTO, &t), 0);
	ck_assert_double_gt(flat.iteration_ns, 200e3);
	ck_assert_double_eq_tol(flat.iteration_ns - t.iteration_ns, 188e3, 1);
	ck_assert_double_eq_tol(t.cpu_bound_ns, 6000 + 6000, 1);
}
END_TEST

START_TEST(replay)
{
	const struct gpu_spec *g = gpu_find("a100-sxm4-80");
	ck_assert_ptr_nonnull(g);
	struct comm_link l, wide;
	comm_link_init(g, &l, &wide);
	/* 600 GB/s NVLink: 300 per direction at 0.75 */
	ck_assert_double_eq_tol(l.bw_gbps, 225, 1e-9);
	double t1 = comm_time_ns(COMM_ALL_REDUCE, 1e8, 4, &l);
	double t2 = comm_time_ns(COMM_ALL_REDUCE, 5e7, 4, &l);
	ck_assert_double_eq_tol(t1, 50e3 + 1.5e8 / 225, 1e-6);

	struct model_kernel v[8];
	struct model_seq s;
	memset(&s, 0, sizeof(s));
	s.v = v;
	struct model_opts o;
	model_opts_init(&o);
	struct model_timing t;
	/* two kernels on one stream: issued at 6 us, back to back after */
	push_comm(&s, 1e8, 0, MODEL_PH_COMM);
	push_comm(&s, 5e7, 0, MODEL_PH_COMM);
	ck_assert_int_eq(model_time(&s, &o, g, 6000, &t), 0);
	ck_assert_double_eq_tol(t.iteration_ns, 6000 + t1 + t2, 1e-3);
	ck_assert_double_eq_tol(t.comm_ns, t1 + t2, 1e-3);
	ck_assert_uint_eq(t.kernels, 2);
	/* the second on the side stream overlaps the first: it starts when
	 * issued (12 us) but not before stream 0's work issued so far ends */
	s.v[1].async = 1;
	ck_assert_int_eq(model_time(&s, &o, g, 6000, &t), 0);
	ck_assert_double_eq_tol(t.iteration_ns, 6000 + t1 + t2, 1e-3);
	s.n = 0;
	push_comm(&s, 5e7, 1, MODEL_PH_COMM);
	push_comm(&s, 1e8, 0, MODEL_PH_COMM);
	ck_assert_int_eq(model_time(&s, &o, g, 6000, &t), 0);
	/* async first (6 us .. 6 us + t2), then stream 0 from 12 us, after
	 * the SMs the side-stream collective holds (24 of the A100's 108 SMs
	 * for four ranks: predictor/comm.c) taken on stream 0 from 6 us */
	ck_assert_double_eq_tol(t.iteration_ns,
				fmax(6000 + t2, fmax(12000, 6000 + t2 * 24 / 108) + t1), 1e-3);
	/* pipeline: 4 microbatches over 2 stages take 5 microbatch times */
	o.pp = 2;
	o.batch = 4;
	o.microbatches = 4;
	s.n = 0;
	push_comm(&s, 1e8, 0, MODEL_PH_COMM);
	ck_assert_int_eq(model_time(&s, &o, g, 6000, &t), 0);
	ck_assert_double_eq_tol(t.iteration_ns, 5 * (6000 + t1), 1e-3);
	ck_assert_double_eq_tol(t.bubble_ns, 6000 + t1, 1e-3);
	ck_assert_double_eq_tol(t.comm_ns, 4 * t1, 1e-3);
	/* interleaved, 2 chunks of one layer each: the bubble is one pass of
	 * the first chunk (its one kernel), then 4 microbatches of both;
	 * t1 > 6 us, so a microbatch's second kernel queues behind its first */
	s.n = 0;
	push_comm(&s, 1e8, 0, MODEL_PH_COMM);
	push_comm(&s, 1e8, 0, MODEL_PH_COMM);
	s.v[0].layer = 0;
	s.v[1].layer = 1;
	s.first_layer = 0;
	s.stage_layers = 2;
	ck_assert_int_eq(model_time(&s, &o, g, 6000, &t), 0);
	ck_assert_double_eq_tol(t.iteration_ns, 5 * 6000 + 10 * t1, 1e-3);
	ck_assert_double_eq_tol(t.bubble_ns, 6000 + 2 * t1, 1e-3);
	o.vpp = 2;
	ck_assert_int_eq(model_time(&s, &o, g, 6000, &t), 0);
	ck_assert_double_eq_tol(t.iteration_ns, 5 * 6000 + 9 * t1, 1e-3);
	ck_assert_double_eq_tol(t.bubble_ns, 6000 + t1, 1e-3);
	ck_assert_double_eq_tol(t.comm_ns, 8 * t1, 1e-3);
	/* a kernel run once a step beside the data-parallel collectives
	 * (step_once: FSDP2's copies under a pipeline): the 5 passes of the
	 * first, then the second once after them, issued 6 us after the last
	 * pass's synchronization: 6 (6 us + t1) */
	o.vpp = 0;
	s.v[0].layer = s.v[1].layer = -1;
	s.v[1].step_once = 1;
	ck_assert_int_eq(model_time(&s, &o, g, 6000, &t), 0);
	ck_assert_double_eq_tol(t.iteration_ns, 6 * (6000 + t1), 1e-3);
	ck_assert_double_eq_tol(t.comm_ns, 5 * t1, 1e-3);
	/* once per optimizer step (Transformer Engine's FP8 weight casts):
	 * in the bubble's peer pass and the stage's first microbatch, not the
	 * 3 after: 2 passes of both (6 us, then t1 and t1 back to back as
	 * t1 > 6 us) and 3 of the first, 5 x 6 us + 7 t1 */
	s.v[1].step_once = 0;
	s.v[1].role = MODEL_ROLE_PER_STEP;
	ck_assert_int_eq(model_time(&s, &o, g, 6000, &t), 0);
	ck_assert_double_gt(t1, 6000);
	ck_assert_double_eq_tol(t.iteration_ns, 5 * 6000 + 7 * t1, 1e-3);
}
END_TEST

/* A decode step (--mode decode): b new tokens after S cached ones.
 * Llama-3-8B layer, worked by hand: the projections are GEMMs of b rows
 * (q 4096, k 1024, v 1024, o 4096; gate, up, down 14336), 2 b h (4096 +
 * 1024 + 1024 + 4096 + 3 x 14336) h FLOPs... with h = 4096 on the input
 * side; the two attention products 4 b heads (S + 1) d; the cache append
 * copies b x 8 kv heads x (S + 1) x 128 elements for K and for V; the
 * cache is 2 x 32 layers x b x 8 x (S + 1) x 128 x 2 bytes in BF16. */
/* Llama-3-8B, one BF16 decode step of 4 sequences after 1000 cached tokens. */
static void llama3_decode(struct model_config *c, struct model_opts *o)
{
	ck_assert_int_eq(model_config_builtin("llama-3-8b", c), 0);
	model_opts_init(o);
	ck_assert_int_eq(model_mode_parse("decode", &o->mode), 0);
	o->batch = 4;
	o->seq = 1000;
	o->dtype = GPU_DT_BF16;
}

START_TEST(decode_step)
{
	struct model_config c;
	struct model_opts o;
	llama3_decode(&c, &o);
	struct model_seq s;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	double b = 4, S1 = 1001, h = 4096, d = 128;
	double proj = 2 * b * h * (4096 + 1024 + 1024 + 4096) + 2 * b * h * 14336 * 3;
	double attn = 4 * b * 32 * S1 * d;
	double got = layer_sum(&s, 5, MODEL_PH_FORWARD, PRED_OP_GEMM, NULL);
	ck_assert_double_eq_tol(got, proj + attn, (proj + attn) * 1e-12);
	size_t cats = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct model_kernel *k = &s.v[i];
		if (k->layer == 5 && !strncmp(k->k.name, "CatArrayBatchedCopy", 19) &&
		    k->k.m * k->k.n == (uint64_t)(b * 8 * S1 * d))
			cats++;
		/* every GEMM of the layers has b rows (or one query per head) */
		if (k->layer == 5 && k->k.op == PRED_OP_GEMM && k->k.batch <= 1)
			ck_assert_uint_eq(k->k.m, 4);
	}
	ck_assert_uint_eq(cats, 2);
	ck_assert_double_eq_tol(s.kv_cache_bytes, 2 * 32 * b * 8 * S1 * d * 2, 1);
	/* the LM head projects the b new tokens only */
	double head = 0;
	for (size_t i = 0; i < s.n; i++)
		if (s.v[i].layer == -1 && s.v[i].k.op == PRED_OP_GEMM)
			head += s.v[i].k.flops;
	ck_assert_double_eq_tol(head, 2 * b * h * 128256, 1);
	model_seq_release(&s);

	/* a longer cache costs more (the cache copies and attention grow),
	 * and the step is far cheaper than running the S tokens again */
	const struct gpu_spec *g = gpu_find("a100-sxm4-80");
	ck_assert_ptr_nonnull(g);
	struct model_timing t1, t2, tp;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	ck_assert_int_eq(model_time(&s, &o, g, 6000, &t1), 0);
	model_seq_release(&s);
	o.seq = 8000;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	ck_assert_int_eq(model_time(&s, &o, g, 6000, &t2), 0);
	model_seq_release(&s);
	ck_assert(t2.iteration_ns > 1.2 * t1.iteration_ns);
	o.mode = MODEL_INFERENCE;
	o.seq = 1000;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	ck_assert_int_eq(model_time(&s, &o, g, 6000, &tp), 0);
	model_seq_release(&s);
	ck_assert(tp.iteration_ns > 10 * t1.iteration_ns);
	/* weights are read once per step: at least 16 GB over the HBM */
	ck_assert(t1.iteration_ns > 16.06e9 / (g->mem_bw_gbps * 1e9) * 1e9);

	/* encoder-only and encoder-decoder models have no decode step here */
	struct model_config bert;
	ck_assert_int_eq(model_config_builtin("bert-large", &bert), 0);
	o.mode = MODEL_DECODE;
	char err[160];
	ck_assert_int_eq(model_build(&bert, &o, &s, err, sizeof err), SURFER_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "decode"));
	ck_assert_int_eq(model_config_builtin("t5-base", &bert), 0);
	ck_assert_int_eq(model_build(&bert, &o, &s, err, sizeof err), SURFER_EINVAL);
}
END_TEST

/* The memory a configuration takes (model_memory) on one GPU, built and
 * estimated in one go. */
static struct model_memory mem_of(const struct model_config *c, const struct model_opts *o)
{
	struct model_seq s;
	struct model_memory m;
	ck_assert_int_eq(model_build(c, o, &s, NULL, 0), 0);
	model_memory(c, o, &s, &m);
	model_seq_release(&s);
	return m;
}

/* A GPT-2 with erf GELU in FP16, L layers, training, over tp GPUs of
 * tensor parallelism (sp: with sequence parallelism). */
static struct model_memory gpt2_fp16_mem_tp(uint32_t layers, uint32_t batch, enum model_attention at,
					    uint32_t tp, int sp)
{
	struct model_config c = gpt2_small();
	c.layers = layers;
	c.act = MODEL_ACT_GELU;
	struct model_opts o;
	model_opts_init(&o);
	o.mode = MODEL_TRAINING;
	o.dtype = GPU_DT_FP16;
	o.batch = batch;
	o.seq = 256;
	o.attention = at;
	o.tp = tp;
	o.sp = sp;
	return mem_of(&c, &o);
}

static struct model_memory gpt2_fp16_mem(uint32_t layers, uint32_t batch, enum model_attention at)
{
	return gpt2_fp16_mem_tp(layers, batch, at, 1, 0);
}

START_TEST(memory_layer_megatron)
{
	/* Korthikanti et al., "Reducing Activation Recomputation in Large
	 * Transformer Models" (2022), eq. 1: a transformer layer with 16-bit
	 * activations, GELU and dropout keeps s b h (34 + 5 a s / h) bytes for
	 * its backward pass; it leaves out the layer norms' mean and rstd (two
	 * FP32 numbers per token, two norms).  One layer is the difference
	 * between 13 and 12 layers. */
	struct model_memory m13 = gpt2_fp16_mem(13, 2, MODEL_ATTN_EAGER);
	struct model_memory m12 = gpt2_fp16_mem(12, 2, MODEL_ATTN_EAGER);
	double sl = 256, b = 2, h = 768, a = 12;
	double want = sl * b * h * (34 + 5 * a * sl / h) + 2 * 8 * sl * b;
	ck_assert_double_eq_tol(m13.activations - m12.activations, want, 1e-6 * want);
	/* fused attention keeps no s x s tensor: q, k, v, its output, the
	 * merged heads (2 bytes each of s b h) and a logsumexp per row and
	 * head instead of the scores, probabilities and mask */
	struct model_memory f13 = gpt2_fp16_mem(13, 2, MODEL_ATTN_SDPA);
	struct model_memory f12 = gpt2_fp16_mem(12, 2, MODEL_ATTN_SDPA);
	double fused = sl * b * h * (34 + 2) + 4 * b * a * sl + 2 * 8 * sl * b;
	ck_assert_double_eq_tol(f13.activations - f12.activations, fused, 1e-6 * fused);
	/* saved activations grow with the batch, the weights do not */
	struct model_memory b4 = gpt2_fp16_mem(12, 4, MODEL_ATTN_EAGER);
	ck_assert_double_eq_tol(b4.activations, 2 * m12.activations, 1e-9 * b4.activations);
	ck_assert_double_eq(b4.weights, m12.weights);
}
END_TEST

START_TEST(memory_layer_opt)
{
	/* transformers 5's OPT decoder layer in FP32 training, from its
	 * modules (eager_attention_forward, dropout 0.1 on the two residual
	 * branches, none on the attention probabilities or after ReLU): the
	 * attention norm's input and output, q and k as the matmul's copies,
	 * v's, the softmax output (the second matmul's input too), the merged
	 * heads, the final norm's input and output, fc1's output (ReLU keeps
	 * it, fc2 reads it), two dropout masks of a byte an element, each
	 * norm's mean and rstd.  The scores times a scaling of 1.0 and plus
	 * the mask keep nothing: the 4.x module's torch.max after the mask
	 * kept the masked scores, one more s x s tensor a head. */
	struct model_config c;
	ck_assert_int_eq(model_config_builtin("opt-1.3b", &c), 0);
	struct model_opts o;
	model_opts_init(&o);
	o.mode = MODEL_TRAINING;
	o.batch = 1;
	o.seq = 256;
	c.layers = 13;
	struct model_memory m13 = mem_of(&c, &o);
	c.layers = 12;
	struct model_memory m12 = mem_of(&c, &o);
	double T = 256, h = 2048, a = 32, f = 8192;
	double X = T * h * 4, S = a * T * T * 4, F = T * f * 4;
	double want = 8 * X + S + F + 2 * T * h + 2 * 8 * T;
	ck_assert_double_eq_tol(m13.activations - m12.activations, want, 1e-6 * want);
}
END_TEST

START_TEST(memory_state_and_peak)
{
	struct model_config c = gpt2_small();
	struct model_opts o;
	model_opts_init(&o);
	o.batch = 4;
	o.seq = 512;
	struct model_seq s;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	double P = s.params;
	model_seq_release(&s);
	/* inference: the weights and the tensors alive at once, nothing kept */
	struct model_memory inf = mem_of(&c, &o);
	ck_assert_double_eq(inf.weights, 4 * P);
	ck_assert_double_eq(inf.activations, 0);
	ck_assert_double_eq(inf.gradients, 0);
	/* the logits of every token (4 x 512 x 50257 FP32) are alive at the end */
	ck_assert(inf.transient >= 4.0 * 512 * 50257 * 4);
	ck_assert_double_eq_tol(inf.peak, inf.weights + inf.transient, 1);

	o.mode = MODEL_TRAINING;
	struct model_memory tr = mem_of(&c, &o);
	ck_assert_double_eq(tr.gradients, 4 * P);
	ck_assert(tr.activations > inf.transient);
	/* the backward pass peaks at its start: saved activations and the
	 * logits' gradient, above every gradient at its end */
	ck_assert_double_eq_tol(tr.peak, tr.weights + tr.activations + tr.transient, 1);

	/* AdamW: two moments, and its foreach step's sqrt of the second
	 * moment at the step; one token of context leaves the step the peak */
	o.optimizer = MODEL_OPTIM_ADAMW;
	o.batch = 1;
	o.seq = 1;
	struct model_memory ad = mem_of(&c, &o);
	ck_assert_double_eq(ad.optimizer, 2 * ad.weights);
	ck_assert_double_eq_tol(ad.peak, 5 * ad.weights, 1);
	o.fused_optimizer = 1;
	ad = mem_of(&c, &o);
	ck_assert_double_eq_tol(ad.peak, 4 * ad.weights, 1);

	/* DDP keeps a bucket copy of the gradients */
	o.optimizer = MODEL_OPTIM_NONE;
	o.fused_optimizer = 0;
	o.batch = 4;
	o.seq = 512;
	struct model_memory one = mem_of(&c, &o);
	o.dp = 4;
	struct model_memory dp = mem_of(&c, &o);
	ck_assert_double_eq_tol(dp.peak - one.peak, 4 * P, 1);
}
END_TEST

/* Pipeline partitions (stage.c).  nanotron's Llama 1B (h 2048, ffn 4096,
 * 24 layers, 32 heads of 64, vocab 50257, tied) on 4 stages by compute
 * cost: a layer costs 4 h^2 + 3 ffn h = 16777216 + 25165824 = 41943040,
 * the head V h = 102926336, the total 24 x 41943040 + 102926336 =
 * 1109559296, the thresholds a quarter of it apart: 277389824,
 * 554779648, 832169472.  After layer k (1-based) the cost is
 * 41943040 k: 7 layers (293601280) pass the first threshold, 14
 * (587202560) the second, 20 (838860800) the third, each crossing layer
 * staying on the earlier stage: 7, 7, 6 and 4 layers with the head.
 * The uniform split: 6 a stage, the head on the last.  A middle stage's
 * GEMMs are its layers', so 7 layers' are 7 / 6 of 6 layers'; the last
 * stage's are 4 / 6 of them plus the head's 2 T h V; a middle stage
 * sends and receives at both ends (4 send/recvs), the first and the last
 * at one (2); those two sum the tied weight's gradient once a step. */
START_TEST(pp_partition)
{
	struct model_config c;
	struct model_opts o;
	char err[200];
	ck_assert_int_eq(model_config_builtin("llama-3-8b", &c), 0);
	c.hidden = 2048;
	c.ffn = 4096;
	c.layers = 24;
	c.heads = c.kv_heads = 32;
	c.head_dim = 64;
	c.vocab = 50257;
	c.tied = 1;
	model_opts_init(&o);
	o.mode = MODEL_TRAINING;
	o.dtype = GPU_DT_BF16;
	o.attention = MODEL_ATTN_FLASH;
	o.batch = 4;
	o.seq = 1024;
	o.pp = 4;
	o.microbatches = 4;
	o.pp_partition = MODEL_PP_COST;
	static const uint32_t want_first[4] = { 0, 7, 14, 20 }, want_n[4] = { 7, 7, 6, 4 };
	for (uint32_t k = 0; k < 4; k++) {
		uint32_t f, n;
		ck_assert_int_eq(model_pp_stage(&c, &o, k, &f, &n, err, sizeof(err)), k == 3);
		ck_assert_uint_eq(f, want_first[k]);
		ck_assert_uint_eq(n, want_n[k]);
	}
	o.pp_partition = MODEL_PP_UNIFORM;
	for (uint32_t k = 0; k < 4; k++) {
		uint32_t f, n;
		ck_assert_int_eq(model_pp_stage(&c, &o, k, &f, &n, err, sizeof(err)), k == 3);
		ck_assert_uint_eq(f, 6 * k);
		ck_assert_uint_eq(n, 6);
	}

	/* the stages built: GEMM FLOPs of the forward and the send/recvs */
	o.pp_partition = MODEL_PP_COST;
	double gemm[4];
	size_t sends[4], tied[4];
	for (uint32_t k = 0; k < 4; k++) {
		struct model_seq s;
		o.pp_stage = k + 1;
		ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
		ck_assert_uint_eq(s.first_layer, want_first[k]);
		ck_assert_uint_eq(s.stage_layers, want_n[k]);
		gemm[k] = 0;
		sends[k] = tied[k] = 0;
		for (size_t i = 0; i < s.n; i++) {
			if (s.v[i].phase == MODEL_PH_FORWARD && s.v[i].k.op == PRED_OP_GEMM)
				gemm[k] += s.v[i].k.flops;
			sends[k] += s.v[i].comm == COMM_SEND_RECV;
			if (s.v[i].comm == COMM_ALL_REDUCE) {
				/* the tied weight's BF16 gradient, 50257 x 2048 x 2
				 * bytes, between the first and the last stage, once a
				 * step */
				ck_assert_double_eq(s.v[i].k.bytes, 205852672.0);
				ck_assert_uint_eq(s.v[i].ranks, 2);
				ck_assert(s.v[i].step_once);
				tied[k]++;
			}
		}
		model_seq_release(&s);
	}
	double T = 1024, head = 2.0 * T * 2048 * 50257;
	ck_assert_double_eq_tol(gemm[1] / gemm[2], 7.0 / 6.0, 1e-12);
	ck_assert_double_eq_tol(gemm[0] / gemm[2], 7.0 / 6.0, 1e-12);
	ck_assert_double_eq_tol(gemm[3], 4.0 / 6.0 * gemm[2] + head, 1e-6 * head);
	ck_assert_uint_eq(sends[0], 2);
	ck_assert_uint_eq(sends[1], 4);
	ck_assert_uint_eq(sends[2], 4);
	ck_assert_uint_eq(sends[3], 2);
	ck_assert_uint_eq(tied[0], 1);
	ck_assert_uint_eq(tied[1] + tied[2], 0);
	ck_assert_uint_eq(tied[3], 1);

	/* the slowest stage is one of the two of 7 layers (the head is 2.45
	 * layers by the cost, by FLOPs 206 against 84 MFLOP a token) */
	o.pp_stage = 0;
	ck_assert_int_eq(model_pp_pick_stage(&c, &o, gpu_find("h100-sxm"), MODEL_LAUNCH_AUTO), 0);
	ck_assert(o.pp_stage == 1 || o.pp_stage == 2);
	/* the uniform split keeps the last stage, without predicting */
	o.pp_stage = 0;
	o.pp_partition = MODEL_PP_UNIFORM;
	ck_assert_int_eq(model_pp_pick_stage(&c, &o, gpu_find("h100-sxm"), MODEL_LAUNCH_AUTO), 0);
	ck_assert_uint_eq(o.pp_stage, 0);
	ck_assert_uint_eq(model_pp_built_stage(&o), 3);

	/* 1F1B memory: the first stage holds 4 microbatches of its layers
	 * (Llama keeps nothing for its embedding), 7 of them by cost where
	 * the uniform split has 6 */
	struct model_memory mu = mem_of(&c, &o);
	o.pp_partition = MODEL_PP_COST;
	struct model_memory mc = mem_of(&c, &o);
	ck_assert_double_eq_tol(mc.activations / mu.activations, 7.0 / 6.0, 1e-9);

	/* 12 stages: the head on stage 10, the loss past it on 11 (the
	 * cumulative cost crosses stage 10's threshold at the head): refused;
	 * so is interleaving, Megatron's */
	struct model_seq s;
	o.pp = 12;
	o.microbatches = 4;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), SURFER_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "--pp-partition cost"));
	o.pp = 4;
	o.vpp = 2;
	o.batch = 4;
	c.layers = 24;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), SURFER_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "--pp-partition cost"));
	enum model_pp_partition pt;
	ck_assert_int_eq(model_pp_partition_parse("cost", &pt), 0);
	ck_assert_int_eq(pt, MODEL_PP_COST);
	ck_assert_int_eq(model_pp_partition_parse("even", &pt), SURFER_EINVAL);
}
END_TEST

START_TEST(memory_parallel)
{
	/* tp: every s x s and MLP tensor and the projections' outputs split;
	 * pp (1F1B): the first stage holds pp microbatches of its layers (a
	 * classifier head, so that the last stage's logits stay small) */
	struct model_config c = gpt2_small();
	c.layers = 4;
	struct model_opts o;
	model_opts_init(&o);
	o.mode = MODEL_TRAINING;
	o.head = MODEL_HEAD_CLASSIFY;
	o.batch = 2;
	o.seq = 128;
	struct model_memory base = mem_of(&c, &o);
	o.tp = 2;
	struct model_memory tp = mem_of(&c, &o);
	ck_assert(tp.activations < 0.75 * base.activations);
	ck_assert(tp.activations > 0.5 * base.activations);
	o.tp = 1;

	/* one layer of one sequence, from two layer counts */
	o.batch = 1;
	struct model_memory l4 = mem_of(&c, &o);
	c.layers = 3;
	struct model_memory l3 = mem_of(&c, &o);
	double layer = l4.activations - l3.activations;
	c.layers = 4;
	o.batch = 2;
	o.pp = 2;
	o.microbatches = 2;
	struct model_memory pp = mem_of(&c, &o);
	/* first stage: 2 layers x 2 microbatches of one sequence, and the
	 * embeddings' dropout mask (a byte per element of 128 x 768) */
	ck_assert_double_eq_tol(pp.activations, 4 * layer + 128 * 768, 1);
	/* the same 2 microbatches as one each of 2 gradient-accumulation
	 * passes: one pipeline of 2, the same 2 in flight */
	o.batch = 1;
	o.microbatches = 1;
	o.grad_accum = 2;
	pp = mem_of(&c, &o);
	ck_assert_double_eq_tol(pp.activations, 4 * layer + 128 * 768, 1);
	/* interleaved, 2 chunks of one layer, 4 microbatches: Megatron's first
	 * rank runs 2 (pp - 1) + (vpp - 1) pp = 4 warm-up chunk forwards and
	 * one more before its first backward: 5 layers of one sequence */
	o.grad_accum = 4;
	o.vpp = 2;
	pp = mem_of(&c, &o);
	ck_assert_double_eq_tol(pp.activations, 5 * layer + 128 * 768, 1);
	/* 2 microbatches: every chunk of both runs forward first (4 layers) */
	o.grad_accum = 2;
	pp = mem_of(&c, &o);
	ck_assert_double_eq_tol(pp.activations, 4 * layer + 128 * 768, 1);
}
END_TEST

START_TEST(memory_llama_layer)
{
	/* One LlamaDecoderLayer in FP32 training (eager, GQA, SwiGLU, no
	 * dropout), the tensors autograd keeps, listed from the module:
	 * input_layernorm: x (pow, x * rsqrt), rsqrt per token, the normalised
	 * x (weight * x); q/k/v_proj: their input; the two matmuls: q after
	 * RoPE, k and v after repeat_kv (all heads); softmax (FP32): its
	 * output, which the second matmul reads too; o_proj: the merged heads;
	 * post_attention_layernorm as the first; gate/up_proj: their input;
	 * SiLU: its input (gate's output) and output; act * up: up's output
	 * (and SiLU's output); down_proj: the product. */
	struct model_config c;
	char err[128];
	const char *js = "{\"model_type\": \"llama\", \"hidden_size\": 256, \"num_attention_heads\": 4,"
			 " \"num_key_value_heads\": 2, \"num_hidden_layers\": %d, \"intermediate_size\": 688,"
			 " \"vocab_size\": 1000}";
	char buf[512];
	struct model_opts o;
	model_opts_init(&o);
	o.mode = MODEL_TRAINING;
	o.batch = 3;
	o.seq = 100;
	double acts[2];
	for (int i = 0; i < 2; i++) {
		snprintf(buf, sizeof(buf), js, 2 + i);
		ck_assert_int_eq(model_config_parse(buf, "t", &c, err, sizeof(err)), 0);
		acts[i] = mem_of(&c, &o).activations;
	}
	double T = 300, h = 256, q = 4 * 64, f = 688, S = 3 * 4 * 100 * 100;
	double norm = 2 * T * h * 4 + T * 4;
	double want = norm + T * h * 4 + 3 * T * q * 4 + S * 4 + T * q * 4 + norm +
		      T * h * 4 + 4 * T * f * 4;
	ck_assert_double_eq_tol(acts[1] - acts[0], want, 1e-6 * want);
}
END_TEST

/* A Llama-3-8B layer under Transformer Engine (--stack te, fused
 * attention, bf16), per token: LayerNormLinear's input, normalised output
 * (2 + 2 h bytes) and rstd (4), q, k and v at GQA widths (2 h + 0.5 h +
 * 0.5 h), the attention's output (2 h) and log-sum-exp per head (4 x 32),
 * LayerNormMLP as the first norm, gate/up's output (2 x 14336 x 2) and
 * SwiGLU's (14336 x 2): 34 h + 8 + 128 bytes, 34 h being
 * Korthikanti et al.'s s b h 34. */
static void llama_te_opts(struct model_config *c, struct model_opts *o)
{
	ck_assert_int_eq(model_config_builtin("llama-3-8b", c), 0);
	model_opts_init(o);
	o->mode = MODEL_TRAINING;
	o->dtype = GPU_DT_BF16;
	o->attention = MODEL_ATTN_FLASH;
	o->stack = MODEL_STACK_TE;
	o->batch = 1;
	o->seq = 4096;
}

START_TEST(memory_te_layer)
{
	struct model_config c;
	struct model_opts o;
	llama_te_opts(&c, &o);
	double acts[2];
	for (int i = 0; i < 2; i++) {
		c.layers = 2 + (uint32_t)i;
		acts[i] = mem_of(&c, &o).activations;
	}
	double T = 4096, h = 4096;
	double want = T * (34 * h + 2 * 4 + 32 * 4);
	ck_assert_double_eq_tol(acts[1] - acts[0], want, 1e-9 * want);
	/* The Hugging Face modules keep more, per token: each LlamaRMSNorm its
	 * FP32 input (4 h), its BF16 normalised input of the weight's product
	 * (2 h) and the product, the projections' input (2 h), where a
	 * LayerNormLinear keeps 2 h + 2 h: 8 h more for the two; the MLP
	 * SiLU's input and output, up's output and the product (4 x 7 h)
	 * where LayerNormMLP keeps 21 h: 7 h more.  (K and V at the KV heads
	 * in both: a fused kernel reads them unrepeated.) */
	o.stack = MODEL_STACK_EAGER;
	double eager[2];
	for (int i = 0; i < 2; i++) {
		c.layers = 2 + (uint32_t)i;
		eager[i] = mem_of(&c, &o).activations;
	}
	ck_assert(eager[1] - eager[0] >= want + T * 15 * h);
}
END_TEST

/* The same layer compiled (--stack compile): what AOTAutograd's min-cut
 * partitioner saves, per token: the two RMSNorms' inputs (2 h bytes each)
 * and rstd (4 each), q, k and v at GQA widths (2 h + 0.5 h + 0.5 h), the
 * attention's output (2 h) and log-sum-exp per head (4 x 32), the gate's
 * and up's outputs (2 x 14336 x 2 = 14 h): 23 h + 8 + 128 bytes, less than
 * Transformer Engine's modules keep; and full checkpointing keeps the
 * block's input alone, as it does eager. */
START_TEST(memory_compile_layer)
{
	struct model_config c;
	struct model_opts o;
	llama_te_opts(&c, &o);
	o.stack = MODEL_STACK_COMPILE;
	double acts[2], full[2];
	for (int i = 0; i < 2; i++) {
		c.layers = 2 + (uint32_t)i;
		o.act_ckpt = MODEL_CKPT_NONE;
		acts[i] = mem_of(&c, &o).activations;
		o.act_ckpt = MODEL_CKPT_FULL;
		full[i] = mem_of(&c, &o).activations;
	}
	double T = 4096, h = 4096;
	double want = T * (23 * h + 2 * 4 + 32 * 4);
	ck_assert_double_eq_tol(acts[1] - acts[0], want, 1e-9 * want);
	ck_assert_double_eq_tol(full[1] - full[0], T * h * 2, 1e-9 * T * h);
}
END_TEST

/* A fused RMSNorm keeps its input and the FP32 reciprocals (Transformer
 * Engine's rmsnorm: inputmat, rsigma); Hugging Face's eager LlamaRMSNorm
 * keeps the input cast to FP32 as well.  One more DeepSeek-V3 layer (MLA
 * and the dense MLP, layers counted before the first MoE one) under
 * --stack te against eager: the FP32 copies of its four norms' inputs
 * (the layer's two of h = 7168, the q and kv latents' of 1536 and 512),
 * 4 bytes each a token, and nothing else. */
/* bitsandbytes' AdamW8bit on a pure BF16 GPT-2 small: one kernel per
 * parameter tensor (no multi-tensor launches), each reading and writing
 * the parameter (2 + 2 bytes), reading the gradient (2) and reading and
 * writing both 8-bit moments with their FP32 absmax per 256 (2 x 2 x
 * (1 + 4 / 256)): 10.0625 bytes a parameter; its state 2 x (1 + 4 / 256)
 * bytes a parameter where AdamW's BF16 moments take 4 and FP32 ones 8;
 * refused under --stack te. */
START_TEST(adamw_8bit)
{
	struct model_config c = gpt2_small();
	const double P = GPT2_SMALL_PARAMS;
	struct model_opts o;
	gpt2_adamw(&o);
	o.dtype = GPU_DT_BF16;
	o.precision = MODEL_PREC_PURE;
	o.adam_8bit = 1;
	ck_assert_double_eq_tol(optimizer_bytes(&c, &o), 10.0625 * P, 1);
	struct model_seq s;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	size_t launches = 0;
	for (size_t i = 0; i < s.n; i++)
		launches += s.v[i].phase == MODEL_PH_OPTIMIZER &&
			    !strcmp(s.v[i].k.name, "kOptimizerStatic8bit2StateBlockwise<ADAM>");
	ck_assert_uint_eq(launches, s.param_tensors_trainable);
	ck_assert_uint_gt(launches, 100);       /* GPT-2 small: 148 tensors */
	struct model_memory m;
	model_memory(&c, &o, &s, &m);
	model_seq_release(&s);
	ck_assert_double_eq_tol(m.optimizer, 2 * (1 + 4.0 / 256) * P, 1);
	o.adam_8bit = 0;
	ck_assert_double_eq_tol(mem_of(&c, &o).optimizer, 4.0 * P, 1);
	o.adam_8bit = 1;
	o.precision = MODEL_PREC_MIXED;
	ck_assert_double_eq_tol(mem_of(&c, &o).optimizer, 2 * (1 + 4.0 / 256) * P, 1);
	o.stack = MODEL_STACK_TE;
	char err[200];
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), SURFER_EINVAL);
	ck_assert(strstr(err, "bitsandbytes"));
}
END_TEST

START_TEST(memory_fused_rmsnorm)
{
	struct model_config c;
	struct model_opts o;
	ck_assert_int_eq(model_config_builtin("deepseek-v3", &c), 0);
	model_opts_init(&o);
	o.mode = MODEL_TRAINING;
	o.dtype = GPU_DT_BF16;
	o.attention = MODEL_ATTN_FLASH;
	o.batch = 1;
	o.seq = 1024;
	double d[2];
	for (int st = 0; st < 2; st++) {
		o.stack = st ? MODEL_STACK_TE : MODEL_STACK_EAGER;
		c.layers = c.first_dense = 2;
		double a2 = mem_of(&c, &o).activations;
		c.layers = c.first_dense = 3;
		d[st] = mem_of(&c, &o).activations - a2;
	}
	double T = 1024;
	double want = T * (7168 + 1536 + 512 + 7168) * 4;
	ck_assert_double_eq_tol(d[0] - d[1], want, 1e-9 * want);
}
END_TEST

START_TEST(memory_decode)
{
	struct model_config c;
	struct model_opts o;
	llama3_decode(&c, &o);
	struct model_memory m = mem_of(&c, &o);
	/* the cache: K and V of 32 layers, 8 KV heads of 128, 1001 tokens */
	double cache = 2 * 32 * 4 * 8 * 1001 * 128 * 2.0;
	ck_assert_double_eq_tol(m.kv_cache, cache, 1);
	/* a step copies one layer's cache and writes b rows of logits */
	ck_assert_double_eq_tol(m.transient, cache / 32 + 4 * 128256 * 2.0, 1);
	ck_assert_double_eq_tol(m.peak, m.weights + m.kv_cache + m.transient, 1);
}
END_TEST

/* GPT-2 small's FSDP units, counted from the module: a block is c_attn
 * (h x 3h + 3h), c_proj (h x h + h), c_fc (h x 4h + 4h), the MLP's c_proj
 * (4h x h + h) and two layer norms (2h each): 12 h^2 + 13 h; the root is
 * wte (50257 x h), wpe (1024 x h) and ln_f (2h), the head tied to wte. */
#define GPT2_LAYER (12.0 * 768 * 768 + 13.0 * 768)
#define GPT2_ROOT ((50257.0 + 1024.0) * 768 + 2.0 * 768)

static struct model_opts zero_opts(uint32_t zero)
{
	struct model_opts o;
	model_opts_init(&o);
	o.mode = MODEL_TRAINING;
	o.optimizer = MODEL_OPTIM_ADAMW;
	o.batch = 2;
	o.seq = 1024;
	o.dp = 8;
	o.zero = zero;
	/* the clipping's 4-byte all-reduce left out: optimizer_traffic
	 * checks it */
	o.no_grad_clip = 1;
	return o;
}

START_TEST(memory_zero)
{
	/* Rajbhandari et al. 2020, sec. 5: with Psi parameters, Nd ranks and
	 * K bytes of optimizer state per parameter, a rank holds
	 * 2 Psi + 2 Psi + K Psi / Nd (P_os), 2 Psi + (2 + K) Psi / Nd (P_os+g)
	 * and (2 + 2 + K) Psi / Nd (P_os+g+p), in 16-bit weights; here in FP32
	 * with AdamW's two FP32 moments: 4, 4 and K = 8 bytes.  FSDP adds a
	 * layer's and the root's unsharded gradient (reduce-scattered when
	 * done), and under FULL_SHARD the root's gathered weights and two
	 * layers' (running, prefetched); DDP's bucket copy stays with P_os. */
	struct model_config c = gpt2_small();
	double P = 124439808.0, d = 8;
	struct model_opts o = zero_opts(0);
	struct model_seq s;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	ck_assert_double_eq(s.params, P);
	ck_assert_double_eq(s.layer_params, GPT2_LAYER);
	ck_assert_double_eq(s.root_params, GPT2_ROOT);
	model_seq_release(&s);

	struct model_memory m[4];
	for (uint32_t z = 0; z < 4; z++) {
		o = zero_opts(z);
		m[z] = mem_of(&c, &o);
	}
	ck_assert_double_eq_tol(m[0].weights + m[0].gradients + m[0].optimizer, (4 + 4 + 4 + 8) * P, 1);
	ck_assert_double_eq_tol(m[1].optimizer, 8 * P / d, 1);
	ck_assert_double_eq_tol(m[1].weights + m[1].gradients, (4 + 4 + 4) * P, 1);
	ck_assert_double_eq_tol(m[2].gradients, 4 * P / d + 4 * (GPT2_LAYER + GPT2_ROOT), 1);
	ck_assert_double_eq_tol(m[2].weights, 4 * P + 4 * P / d, 1);
	ck_assert_double_eq_tol(m[3].weights, 4 * P / d + 4 * (GPT2_ROOT + 2 * GPT2_LAYER), 1);
	ck_assert_double_eq_tol(m[3].optimizer, 8 * P / d, 1);
	for (int z = 1; z < 4; z++) {
		ck_assert(m[z].peak < m[z - 1].peak);
		ck_assert_double_eq(m[z].activations, m[0].activations);
	}
	/* one rank shards nothing */
	o = zero_opts(3);
	o.dp = 1;
	struct model_memory one = mem_of(&c, &o);
	o.zero = 0;
	struct model_memory plain = mem_of(&c, &o);
	ck_assert_double_eq(one.peak, plain.peak);
}
END_TEST

/* The backward after the head's (memory.c, layer_bwd_transient()): GPT-2
 * small in FP32, one sequence of 1024, fed gradients of its logits as a
 * harness does (no loss, no optimizer).  At the start of backward the
 * logits' gradient (1024 x 50257 x 4 bytes) comes on top of the saved
 * tensors; in the last layer's backward that gradient is still held (the
 * caller's), the head's weight gradient (the tied embedding's, 50257 x 768
 * x 4) exists, and eager attention holds two FP32 score gradients (2 x 12
 * heads x 1024 x 1024 x 4), which SDPA's fused kernel does not. */
START_TEST(memory_backward_after_head)
{
	struct model_config c = gpt2_small();
	struct model_opts o;
	model_opts_init(&o);
	o.mode = MODEL_TRAINING;
	o.optimizer = MODEL_OPTIM_NONE;
	o.batch = 1;
	o.seq = 1024;
	double seed = 1024.0 * 50257 * 4, wgrad = 50257.0 * 768 * 4, scores = 2 * 12 * 1024.0 * 1024 * 4;
	o.attention = MODEL_ATTN_EAGER;
	struct model_memory eager = mem_of(&c, &o);
	ck_assert_double_eq_tol(eager.transient, seed + wgrad + scores, 1);
	o.attention = MODEL_ATTN_SDPA;
	struct model_memory sdpa = mem_of(&c, &o);
	ck_assert_double_eq_tol(sdpa.transient, seed + wgrad, 1);
	ck_assert_double_eq_tol(eager.peak - eager.activations, sdpa.peak - sdpa.activations + scores, 1);
	/* with gradient accumulation the gradients are held through the pass
	 * and counted there: the head's is not counted twice */
	o.grad_accum = 2;
	struct model_memory acc = mem_of(&c, &o);
	ck_assert_double_eq_tol(acc.transient, seed, 1);
}
END_TEST

/* T5's position bias in inference (memory.c, inference_transient()):
 * t5-base in FP32, one sequence of 2048 (so eager attention's set is the
 * largest).  A decoder layer's attention holds the residual and its normed
 * input, q, k and v (768 wide each) and the scores with the softmax's
 * copy (12 heads x 2048 x 2048, FP32 both); the decoder stack holds its
 * self-attention's and its cross-attention's bias ([1, 12, 2048, 2048]
 * each) from its first layer to its last. */
START_TEST(memory_t5_position_bias)
{
	struct model_config c;
	ck_assert_int_eq(model_config_builtin("t5-base", &c), 0);
	struct model_opts o;
	model_opts_init(&o);
	o.mode = MODEL_INFERENCE;
	o.batch = 1;
	o.seq = 2048;
	struct model_memory m = mem_of(&c, &o);
	double S = 12 * 2048.0 * 2048, X = 2048.0 * 768 * 4;
	ck_assert_double_eq_tol(m.transient, 2 * X + 3 * X + 2 * S * 4 + 2 * S * 4, 1);
}
END_TEST

/* Gradients that outlive a micro-batch: under --grad-accum 2 DDP's .grad
 * (4 P in FP32) and its bucket copy (4 P) hold through the second
 * micro-batch's forward, so the peak is weights + moments + activations +
 * transient + gradients (the bucket once, counted in the gradients); with
 * one micro-batch the larger of the pass's start and its gradients.  FSDP
 * (--zero 3) frees each unsharded gradient at its reduce-scatter: the same
 * peak at 1 and 2 micro-batches. */
START_TEST(memory_grads_kept)
{
	struct model_config c = gpt2_small();
	double P = 124439808.0;
	struct model_opts o = zero_opts(0);
	struct model_memory one = mem_of(&c, &o);
	o.grad_accum = 2;
	struct model_memory two = mem_of(&c, &o);
	ck_assert_double_eq_tol(two.gradients, 8 * P, 1);
	ck_assert_double_eq_tol(two.peak, two.weights + two.optimizer + two.activations +
				two.transient + two.gradients, 1);
	ck_assert_double_eq_tol(one.peak, one.weights + one.optimizer +
				(one.activations + one.transient + 4 * P > one.gradients
				 ? one.activations + one.transient + 4 * P : one.gradients), 1);
	/* one's pass already holds the head's weight gradient from its
	 * backward on (the tied embedding's, 50257 x 768 in FP32), which
	 * two counts among its gradients */
	ck_assert_double_ge(two.peak, one.peak + 4 * P - 4 * 50257.0 * 768 - 1);
	o = zero_opts(3);
	struct model_memory f1 = mem_of(&c, &o);
	o.grad_accum = 2;
	struct model_memory f2 = mem_of(&c, &o);
	ck_assert_double_eq(f1.peak, f2.peak);
}
END_TEST

/* State bytes per parameter (weights + gradients + optimizer) of a
 * 16-bit run, counted by hand from each stack's documentation.  Megatron
 * (MLM docs/user-guide/features/dist_optimizer.md): bf16 params with FP32
 * grads 18 plain, 6 + 12/d distributed; fp16 20 and 4 + 16/d; fp32 16 and
 * 8 + 8/d.  FSDP2 (torchtitan, param bf16, reduce fp32): FP32 sharded
 * parameters, gradients and two moments, 16/d, plus the gathered bf16
 * root and two layers and the bf16 unsharded gradients of the root and one
 * layer.  torch.amp over DDP: FP32 weights 4, their bf16 casts 2, FP32
 * gradients 4 and bucket 4, moments 8. */
static double state_per_param(const struct model_memory *m, double P)
{
	return (m->weights + m->gradients + m->optimizer) / P;
}

START_TEST(memory_mixed)
{
	struct model_config c = gpt2_small();
	double P = 124439808.0, d = 8;
	struct model_opts o = zero_opts(1);
	o.stack = MODEL_STACK_TE;
	o.dtype = GPU_DT_BF16;
	struct model_memory m = mem_of(&c, &o);
	ck_assert_double_eq_tol(state_per_param(&m, P), 6 + 12 / d, 1e-9);  /* 7.5 */
	ck_assert_double_eq_tol(m.weights, 2 * P, 1);
	ck_assert_double_eq_tol(m.gradients, 4 * P, 1);
	o.zero = 0;
	m = mem_of(&c, &o);
	ck_assert_double_eq_tol(state_per_param(&m, P), 18, 1e-9);
	o.dtype = GPU_DT_FP16;
	m = mem_of(&c, &o);
	ck_assert_double_eq_tol(state_per_param(&m, P), 20, 1e-9);
	o.zero = 1;
	m = mem_of(&c, &o);
	ck_assert_double_eq_tol(state_per_param(&m, P), 4 + 16 / d, 1e-9);
	o.dtype = GPU_DT_FP32;
	m = mem_of(&c, &o);
	ck_assert_double_eq_tol(state_per_param(&m, P), 8 + 8 / d, 1e-9);
	o.zero = 0;
	m = mem_of(&c, &o);
	ck_assert_double_eq_tol(state_per_param(&m, P), 16, 1e-9);

	/* FP8 under Transformer Engine's delayed scaling: one more byte */
	o = zero_opts(1);
	o.stack = MODEL_STACK_TE;
	o.dtype = GPU_DT_BF16;
	o.fp8 = 1;
	o.fp8_recipe = MODEL_FP8_DELAYED;
	m = mem_of(&c, &o);
	ck_assert_double_eq_tol(state_per_param(&m, P), 6 + 12 / d + 1, 1e-9);

	/* FSDP2 FULL_SHARD, eager: mixed by default */
	o = zero_opts(3);
	o.dtype = GPU_DT_BF16;
	m = mem_of(&c, &o);
	ck_assert_double_eq_tol(m.weights, 4 * P / d + 2 * (GPT2_ROOT + 2 * GPT2_LAYER), 1);
	ck_assert_double_eq_tol(m.gradients, 4 * P / d + 2 * (GPT2_ROOT + GPT2_LAYER), 1);
	ck_assert_double_eq_tol(m.optimizer, 8 * P / d, 1);
	/* torchao float8 tensorwise gathers the layers in FP8: 1 byte */
	o.fp8 = 1;
	struct model_memory f8 = mem_of(&c, &o);
	ck_assert_double_eq_tol(f8.weights, 4 * P / d + 2 * GPT2_ROOT + 2 * GPT2_LAYER, 1);
	o.fp8_recipe = MODEL_FP8_ROWWISE; /* no FP8 gather: 16-bit */
	f8 = mem_of(&c, &o);
	ck_assert_double_eq_tol(f8.weights, m.weights, 1);
	/* delayed scaling gathers 16-bit too; its FP8 copies (1 byte a
	 * parameter) exist while their unit is gathered: the running layer's
	 * and the prefetched one's, 2 x 7087872 bytes, not the whole model's
	 * P = 124439808 (counted once) */
	o.fp8_recipe = MODEL_FP8_DELAYED;
	f8 = mem_of(&c, &o);
	ck_assert_double_eq_tol(f8.weights, m.weights + 2 * GPT2_LAYER, 1);
	/* SHARD_GRAD_OP keeps every unit gathered through the pass, and so
	 * their FP8 copies: P more bytes */
	o.zero = 2;
	struct model_memory z2 = mem_of(&c, &o);
	o.fp8 = 0;
	struct model_memory z2b = mem_of(&c, &o);
	ck_assert_double_eq_tol(z2.weights, z2b.weights + P, 1);
	o.fp8 = 1;
	o.zero = 3;
	o.fp8 = 0;
	o.precision = MODEL_PREC_PURE; /* all bf16: 2 + 2 + 4 over d */
	m = mem_of(&c, &o);
	ck_assert_double_eq_tol(m.weights + m.gradients + m.optimizer,
				8 * P / d + 2 * (2 * GPT2_ROOT + 3 * GPT2_LAYER), 1);

	/* torch.amp over DDP */
	o = zero_opts(0);
	o.dtype = GPU_DT_BF16;
	o.precision = MODEL_PREC_MIXED;
	m = mem_of(&c, &o);
	ck_assert_double_eq_tol(state_per_param(&m, P), 4 + 2 + 4 + 4 + 8, 1e-9);
	/* eager DDP + ZeRO-1 over d ranks: mixed by default, as at ZeRO-2|3
	 * (autocast: 4 + 2 + 4 + 4 + 8 / d = 15; it was pure, so ZeRO-3 came
	 * out above ZeRO-1); the Hugging Face harness's model.to(bf16) with
	 * --precision pure: 2 + 2 + 2 (bucket) + 4 / d */
	o = zero_opts(1);
	o.dtype = GPU_DT_BF16;
	m = mem_of(&c, &o);
	ck_assert_double_eq_tol(state_per_param(&m, P), 4 + 2 + 4 + 4 + 8 / d, 1e-9);
	o.precision = MODEL_PREC_PURE;
	m = mem_of(&c, &o);
	ck_assert_double_eq_tol(state_per_param(&m, P), 6 + 4 / d, 1e-9);
	/* so at the defaults each ZeRO stage holds less than the one before
	 * (same precision: only the sharding changes) */
	double before = 1e300;
	for (uint32_t z = 0; z <= 3; z++) {
		o = zero_opts(z);
		o.dtype = GPU_DT_BF16;
		m = mem_of(&c, &o);
		ck_assert_double_lt(m.weights + m.gradients + m.optimizer, before);
		before = m.weights + m.gradients + m.optimizer;
	}
	/* one GPU: the harness's pure stays the default */
	o = zero_opts(0);
	o.dp = 1;
	o.dtype = GPU_DT_BF16;
	ck_assert_int_eq(model_mixed(&o), 0);
}
END_TEST

/* Sequence parallelism (--sequence-parallel), Korthikanti et al. 2022: with tensor
 * parallelism over t GPUs a GPT layer (16-bit, GELU, dropout, eager
 * attention) keeps s b h (10 + 24 / t + 5 a s / (h t)) bytes (eq. 2): the
 * attention's and MLP's insides split over t, while the two layer norms'
 * inputs (2 + 2), the two dropout masks (1 + 1) and the inputs of the
 * first linear of attention and of the MLP (2 + 2) stay whole; sequence
 * parallelism splits those 10 along the sequence too: s b h (34 / t +
 * 5 a s / (h t)) (sec. 4.2.2).  The norms' statistics (two FP32 numbers a
 * row, two norms) split with their rows.  Under --stack te a Llama-3-8B
 * layer keeps 8 h whole (two LayerNormLinear inputs and normalised
 * outputs, 2 h each) and 26 h split (memory_te_layer's 34 h), and its 8
 * bytes of rstd a token; sequence parallelism splits all of it.  Without
 * --tp, or in inference, it changes nothing in memory. */
START_TEST(memory_sequence_parallel)
{
	double sl = 256, b = 2, h = 768, a = 12, t = 2;
	double per[2][2]; /* [sp][layers 12, 13] */
	for (int sp = 0; sp < 2; sp++)
		for (int i = 0; i < 2; i++)
			per[sp][i] = gpt2_fp16_mem_tp(12 + (uint32_t)i, 2, MODEL_ATTN_EAGER, 2, sp).activations;
	double tp_only = sl * b * h * (10 + 24 / t + 5 * a * sl / (h * t)) + 2 * 8 * sl * b;
	double with_sp = sl * b * h * (34 / t + 5 * a * sl / (h * t)) + 2 * 8 * sl * b / t;
	ck_assert_double_eq_tol(per[0][1] - per[0][0], tp_only, 1e-6 * tp_only);
	ck_assert_double_eq_tol(per[1][1] - per[1][0], with_sp, 1e-6 * with_sp);

	struct model_config c;
	struct model_opts o;
	llama_te_opts(&c, &o);
	o.tp = 4;
	double te[2][2];
	for (int sp = 0; sp < 2; sp++)
		for (int i = 0; i < 2; i++) {
			c.layers = 2 + (uint32_t)i;
			o.sp = sp;
			te[sp][i] = mem_of(&c, &o).activations;
		}
	double T = 4096, H = 4096, tt = 4;
	double lse = 32 / tt * 4; /* a log-sum-exp per head of this GPU */
	double te_tp = T * (8 * H + 26 * H / tt + 8 + lse);
	double te_sp = T * (34 * H / tt + 8 / tt + lse);
	ck_assert_double_eq_tol(te[0][1] - te[0][0], te_tp, 1e-9 * te_tp);
	ck_assert_double_eq_tol(te[1][1] - te[1][0], te_sp, 1e-9 * te_sp);

	/* one GPU of tensor parallelism, or inference: nothing to split */
	o.tp = 1;
	o.sp = 0;
	struct model_memory m0 = mem_of(&c, &o);
	o.sp = 1;
	struct model_memory m1 = mem_of(&c, &o);
	ck_assert_double_eq(m1.peak, m0.peak);
	o.tp = 4;
	o.mode = MODEL_INFERENCE;
	o.sp = 0;
	m0 = mem_of(&c, &o);
	o.sp = 1;
	m1 = mem_of(&c, &o);
	ck_assert_double_eq(m1.peak, m0.peak);
}
END_TEST

/* --grad-fp32 (nanotron's accumulate_grad_in_fp32) keeps an FP32 buffer
 * of 4 bytes for each parameter whose gradient the rank holds, beside the
 * 16-bit gradients, from the start of the pass to the step.  Where the
 * gradients are FP32 already (FP32 training, autocast's FP32 parameters,
 * Megatron's main_grad under --stack te) there is no second buffer. */
/* The memory of o without and with --grad-fp32. */
static void grad_fp32_pair(const struct model_config *c, struct model_opts o,
			   struct model_memory *off, struct model_memory *on)
{
	o.grad_fp32 = 0;
	*off = mem_of(c, &o);
	o.grad_fp32 = 1;
	*on = mem_of(c, &o);
}

START_TEST(memory_grad_fp32)
{
	struct model_config c = gpt2_small();
	double P = 124439808.0, d = 8;
	struct model_memory m, g;
	/* bf16 pure, DDP + ZeRO-1: 2 + 2 (bucket) + 4 / d, and 4 more */
	struct model_opts o = zero_opts(1);
	o.dtype = GPU_DT_BF16;
	o.precision = MODEL_PREC_PURE;
	grad_fp32_pair(&c, o, &m, &g);
	ck_assert_double_eq_tol(state_per_param(&g, P), 2 + 2 + 2 + 4 / d + 4, 1e-9);
	ck_assert_double_eq_tol(g.gradients - m.gradients, 4 * P, 1);
	/* the buffer is there where the pass peaks, at the start of
	 * backward (2 x 1024 tokens a GPU keep more than the gradients) */
	ck_assert_double_eq_tol(m.peak, m.weights + m.optimizer + m.activations + m.transient + 2 * P, 1);
	ck_assert_double_eq_tol(g.peak - m.peak, 4 * P, 1);
	/* FSDP FULL_SHARD, pure bf16: the buffer of the rank's shard */
	o = zero_opts(3);
	o.dtype = GPU_DT_BF16;
	o.precision = MODEL_PREC_PURE;
	grad_fp32_pair(&c, o, &m, &g);
	ck_assert_double_eq_tol(g.gradients - m.gradients, 4 * P / d, 1);
	/* FP32 gradients already: FP32 training, Megatron's main_grad */
	grad_fp32_pair(&c, zero_opts(1), &m, &g);
	ck_assert_double_eq(g.peak, m.peak);
	o = zero_opts(1);
	o.dtype = GPU_DT_BF16;
	o.stack = MODEL_STACK_TE;
	grad_fp32_pair(&c, o, &m, &g);
	ck_assert_double_eq(g.peak, m.peak);
	ck_assert_double_eq_tol(state_per_param(&g, P), 6 + 12 / d, 1e-9);
}
END_TEST

/* The collectives of each stage, per rank, in bytes of FP32 buffers. */
START_TEST(zero_collectives)
{
	struct model_config c = gpt2_small();
	double P = 124439808.0;
	struct model_seq s;
	for (uint32_t z = 0; z < 4; z++) {
		struct model_opts o = zero_opts(z);
		o.fused_optimizer = 1;
		ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
		double bytes[COMM_SEND_RECV + 1] = { 0 };
		size_t count[COMM_SEND_RECV + 1] = { 0 };
		double opt = 0;
		size_t last_opt = 0;
		for (size_t i = 0; i < s.n; i++) {
			const struct model_kernel *k = &s.v[i];
			if (k->phase == MODEL_PH_OPTIMIZER) {
				opt += k->k.bytes;
				last_opt = i;
			}
			if (k->phase != MODEL_PH_COMM)
				continue;
			ck_assert_uint_eq(k->ranks, 8);
			bytes[k->comm] += k->k.bytes;
			count[k->comm]++;
		}
		if (z < 2) {
			/* DDP's all-reduces: every gradient once */
			ck_assert_double_eq_tol(bytes[COMM_ALL_REDUCE], 4 * P, 1);
			ck_assert_uint_eq(count[COMM_REDUCE_SCATTER], 0);
		} else {
			/* one reduce-scatter per unit, every gradient once */
			ck_assert_uint_eq(count[COMM_ALL_REDUCE], 0);
			ck_assert_uint_eq(count[COMM_REDUCE_SCATTER], 13);
			ck_assert_double_eq_tol(bytes[COMM_REDUCE_SCATTER], 4 * P, 1);
		}
		if (z == 0)
			ck_assert_uint_eq(count[COMM_ALL_GATHER], 0);
		if (z == 1) {
			/* the updated shards, gathered once the step is done */
			ck_assert_uint_eq(count[COMM_ALL_GATHER], 1);
			ck_assert_int_eq(s.v[s.n - 1].comm, COMM_ALL_GATHER);
			ck_assert_uint_lt(last_opt, s.n - 1);
		}
		if (z == 2) {
			ck_assert_uint_eq(count[COMM_ALL_GATHER], 13);
			ck_assert_double_eq_tol(bytes[COMM_ALL_GATHER], 4 * P, 1);
		}
		if (z == 3) {
			/* the layers again for backward, the root kept */
			ck_assert_uint_eq(count[COMM_ALL_GATHER], 25);
			ck_assert_double_eq_tol(bytes[COMM_ALL_GATHER], 4 * (2 * P - GPT2_ROOT), 1);
		}
		/* fused AdamW steps this rank's eighth of the parameters at 28
		 * bytes each (optimizer_traffic) */
		double want = z ? P / 8 : P;
		ck_assert_double_eq_tol(opt, 28 * want, 1);
		model_seq_release(&s);
	}
}
END_TEST

/* What each FSDP copies around its collectives, per rank and step, in
 * bytes of the documented kernels (training-stacks.md sections 5 and 6;
 * torch's FSDP1 _post_backward_hook): gpt2 small in BF16 with mixed
 * precision over 8 ranks, --zero 3.  FSDP2: a copy-out after every
 * gather (read and written in BF16: twice the gathered bytes), its
 * reduce-scatter input cat in FP32 from BF16 (6 bytes an element) and
 * reduced in FP32.  FSDP1: the flat gradient's copy (4 bytes), its cast
 * to FP32 (6), the division before (8) and on the shard after (4 + 4
 * over 8 ranks, the rest of 8 / 4).  Neither adds in AccumulateGrad.
 * Composer's PURE mode (BF16 reduce): no cast, division in BF16.
 * Megatron's FSDP (under te): none of it, reduced in the dtype. */
static void fsdp_traffic(const struct model_opts *o, double *copy_out, double *copy_in,
			 double *rs, size_t *outs, size_t *acc)
{
	struct model_config c = gpt2_small();
	struct model_seq s;
	ck_assert_int_eq(model_build(&c, o, &s, NULL, 0), 0);
	*copy_out = *copy_in = *rs = 0;
	*outs = *acc = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct model_kernel *k = &s.v[i];
		if (k->phase == MODEL_PH_COMM && k->comm == COMM_REDUCE_SCATTER)
			*rs += k->k.bytes;
		if (k->role == MODEL_ROLE_GRAD_ACC)
			(*acc)++;
		if (k->role != MODEL_ROLE_FSDP_COPY)
			continue;
		ck_assert_int_eq(k->async, 0);   /* costed in line with compute */
		if (strstr(k->k.name, "split_with_sizes")) {
			*copy_out += k->k.bytes;
			(*outs)++;
		} else {
			*copy_in += k->k.bytes;
		}
	}
	model_seq_release(&s);
}

START_TEST(fsdp_copies)
{
	double P = 124439808.0, out, in, rs;
	size_t outs, acc;
	struct model_opts o = zero_opts(3);
	o.dtype = GPU_DT_BF16;
	fsdp_traffic(&o, &out, &in, &rs, &outs, &acc);   /* auto: FSDP2 */
	ck_assert_uint_eq(outs, 25);
	ck_assert_double_eq_tol(out, 4 * (2 * P - GPT2_ROOT), 1);
	ck_assert_double_eq_tol(in, 6 * P, 1);
	ck_assert_double_eq_tol(rs, 4 * P, 1);
	ck_assert_uint_eq(acc, 0);

	o.fsdp = MODEL_FSDP_1;
	fsdp_traffic(&o, &out, &in, &rs, &outs, &acc);
	ck_assert_uint_eq(outs, 0);
	ck_assert_double_eq_tol(in, (4 + 6 + 8) * P + 8 * P / 8, 1);
	ck_assert_double_eq_tol(rs, 4 * P, 1);
	ck_assert_uint_eq(acc, 0);

	o.fsdp_reduce_bytes = 2;
	fsdp_traffic(&o, &out, &in, &rs, &outs, &acc);
	ck_assert_double_eq_tol(in, (4 + 4) * P + 4 * P / 8, 1);
	ck_assert_double_eq_tol(rs, 2 * P, 1);

	o = zero_opts(3);
	o.dtype = GPU_DT_BF16;
	o.stack = MODEL_STACK_TE;
	fsdp_traffic(&o, &out, &in, &rs, &outs, &acc);
	ck_assert_double_eq(out + in, 0);
	ck_assert_double_eq_tol(rs, 2 * P, 1);

	/* FSDP's hooks issue the copies: outside a block's CUDA graph */
	o = zero_opts(3);
	o.dtype = GPU_DT_BF16;
	o.cuda_graphs = 1;
	struct model_config c = gpt2_small();
	struct model_seq s;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	size_t copies = 0, graphed = 0;
	for (size_t i = 0; i < s.n; i++) {
		copies += s.v[i].role == MODEL_ROLE_FSDP_COPY;
		graphed += s.v[i].role == MODEL_ROLE_FSDP_COPY && s.v[i].graph;
	}
	ck_assert_uint_gt(copies, 0);
	ck_assert_uint_eq(graphed, 0);
	model_seq_release(&s);

	/* under a pipeline (pp 2, FSDP2 as torchtitan runs it) each unit of
	 * the stage is gathered and reduce-scattered once a step, and so are
	 * its copies (step_once): a copy-out reads and writes what the gather
	 * brought (2 x its BF16 bytes), the copy-in reads BF16 and writes the
	 * FP32 the reduce-scatter sends (6 bytes an element against 4) */
	o = zero_opts(3);
	o.dtype = GPU_DT_BF16;
	o.pp = 2;
	o.batch = 2;
	o.microbatches = 2;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	double ag = 0;
	size_t gathers = 0, once = 0;
	out = in = rs = 0;
	outs = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct model_kernel *k = &s.v[i];
		if (k->phase == MODEL_PH_COMM && k->comm == COMM_ALL_GATHER) {
			ag += k->k.bytes;
			gathers++;
		}
		if (k->phase == MODEL_PH_COMM && k->comm == COMM_REDUCE_SCATTER)
			rs += k->k.bytes;
		if (k->role != MODEL_ROLE_FSDP_COPY)
			continue;
		once += k->step_once;
		if (strstr(k->k.name, "split_with_sizes")) {
			out += k->k.bytes;
			outs++;
		} else {
			in += k->k.bytes;
		}
	}
	ck_assert_uint_gt(gathers, 0);
	ck_assert_uint_eq(outs, gathers);
	ck_assert_double_eq_tol(out, 2 * ag, 1);
	ck_assert_double_eq_tol(in, 1.5 * rs, 1);
	ck_assert_uint_gt(once, gathers);
	model_seq_release(&s);

	/* nothing sharded: DDP keeps its adds */
	o = zero_opts(1);
	o.dtype = GPU_DT_BF16;
	fsdp_traffic(&o, &out, &in, &rs, &outs, &acc);
	ck_assert_double_eq(out + in + rs, 0);
	ck_assert_uint_gt(acc, 0);
	ck_assert_int_eq(model_fsdp_impl(&o), MODEL_FSDP_AUTO);
}
END_TEST

/* Ranks laid out tensor-parallel fastest, then data-parallel, then
 * pipeline stages, on nodes of 8: with tp 4 a node holds 2 ranks of each
 * data-parallel group; tp 8 fills a node, so every DP member is in another
 * node and pipeline sends cross nodes too.  Without a layout every group
 * is in one node, as before. */
START_TEST(group_placement)
{
	struct model_opts o;
	uint32_t n, per;
	model_opts_init(&o);
	o.tp = 4;
	o.dp = 8;
	o.pp = 2;
	model_group(&o, MODEL_GROUP_DP, &n, &per);
	ck_assert_uint_eq(n, 8);
	ck_assert_uint_eq(per, 8);
	o.gpus_per_node = 8;
	model_group(&o, MODEL_GROUP_TP, &n, &per);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(per, 4);
	model_group(&o, MODEL_GROUP_DP, &n, &per);
	ck_assert_uint_eq(n, 8);
	ck_assert_uint_eq(per, 2);
	model_group(&o, MODEL_GROUP_PP, &n, &per);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(per, 1);
	o.tp = 8;
	model_group(&o, MODEL_GROUP_DP, &n, &per);
	ck_assert_uint_eq(per, 1);
	/* one node of 8 holds a whole dp 4 x tp 2 layout, and its stages */
	o.tp = 2;
	o.dp = 2;
	model_group(&o, MODEL_GROUP_PP, &n, &per);
	ck_assert_uint_eq(per, 2);
	/* the first and the last of 2 stages of tp 2 x dp 2 are ranks 0-3
	 * and 4-7, one node; of 4 stages 0-3 and 12-15, two nodes; of 4
	 * stages of dp 2 (NB3's layout) ranks 0-1 and 6-7, one node */
	model_group(&o, MODEL_GROUP_EMBED, &n, &per);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(per, 2);
	o.pp = 4;
	model_group(&o, MODEL_GROUP_EMBED, &n, &per);
	ck_assert_uint_eq(per, 1);
	o.tp = 1;
	model_group(&o, MODEL_GROUP_EMBED, &n, &per);
	ck_assert_uint_eq(per, 2);
	o.tp = 2;
	/* HSDP: dp 16 x tp 2 on nodes of 8 shards over the node's 4 DP ranks,
	 * replicates over 4 nodes, one rank in each */
	o.dp = 16;
	o.pp = 1;
	o.zero = 3;
	o.hsdp = 1;
	ck_assert_uint_eq(model_shard_ranks(&o), 4);
	model_group(&o, MODEL_GROUP_SHARD, &n, &per);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(per, 4);
	model_group(&o, MODEL_GROUP_REPLICA, &n, &per);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(per, 1);
	/* context parallel ranks sit between TP and DP; the gradients are
	 * summed (and FSDP shards) over dp x cp = 32 ranks, tp 2 apart: 4 in
	 * a node of 8 */
	o.hsdp = 0;
	o.cp = 2;
	model_group(&o, MODEL_GROUP_CP, &n, &per);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(per, 2);
	model_group(&o, MODEL_GROUP_DP, &n, &per);
	ck_assert_uint_eq(n, 32);
	ck_assert_uint_eq(per, 4);
	ck_assert_uint_eq(model_grad_ranks(&o), 32);
	ck_assert_uint_eq(model_shard_ranks(&o), 32);
	/* HSDP with cp: a node's 4 dp x cp ranks shard, 8 nodes replicate */
	o.hsdp = 1;
	ck_assert_uint_eq(model_shard_ranks(&o), 4);
	model_group(&o, MODEL_GROUP_REPLICA, &n, &per);
	ck_assert_uint_eq(n, 8);
	ck_assert_uint_eq(per, 1);
}
END_TEST

/* FP32 gradient accumulation.  --stack te: each weight-gradient GEMM
 * adds into the FP32 main_grad (Megatron's gradient-accumulation fusion):
 * one per linear, half the backward GEMMs with FlashAttention, each
 * moving its BF16 operands and its output read and written in FP32, and
 * no AccumulateGrad add after it.  --grad-fp32 (nanotron): every
 * AccumulateGrad add reads the BF16 gradient (2 bytes) and reads and
 * writes the FP32 buffer (4 + 4). */
START_TEST(fp32_main_grad)
{
	struct model_config c = gpt2_small();
	struct model_opts o;
	model_opts_init(&o);
	o.mode = MODEL_TRAINING;
	o.dtype = GPU_DT_BF16;
	o.attention = MODEL_ATTN_FLASH;
	o.seq = 512;
	o.stack = MODEL_STACK_TE;
	struct model_seq s;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	size_t acc = 0, bwd = 0, adds = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct pred_kernel *k = &s.v[i].k;
		adds += s.v[i].role == MODEL_ROLE_GRAD_ACC;
		if (k->op != PRED_OP_GEMM || s.v[i].phase != MODEL_PH_BACKWARD)
			continue;
		bwd++;
		if (!k->accumulate)
			continue;
		acc++;
		ck_assert_double_eq_tol(k->bytes, ((double)k->m * k->k + (double)k->k * k->n) * 2 +
						  (double)k->m * k->n * 8, 1);
	}
	ck_assert_uint_gt(acc, 12);
	ck_assert_uint_eq(2 * acc, bwd);
	ck_assert_uint_eq(adds, 0);
	model_seq_release(&s);

	o.stack = MODEL_STACK_EAGER;
	o.grad_fp32 = 1;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	for (size_t i = 0; i < s.n; i++) {
		const struct pred_kernel *k = &s.v[i].k;
		ck_assert(!k->accumulate);
		if (s.v[i].role == MODEL_ROLE_GRAD_ACC) {
			ck_assert_double_eq_tol(k->bytes, (double)k->m * k->n * 10, 1e-6);
			adds++;
		}
	}
	ck_assert_uint_gt(adds, 12);
	model_seq_release(&s);
}
END_TEST

/* FSDP with context parallelism (torchtitan's and NeMo AutoModel's
 * dp_shard_cp mesh; Megatron's data-parallel group with context
 * parallelism): each CP rank computes the gradients of its part of the
 * sequences, so dp 2 x cp 2 on one node of 8 gathers and reduce-scatters
 * over 4 ranks and keeps a quarter of AdamW's two FP32 moments (8 bytes
 * per parameter); DDP over cp 2 alone all-reduces its gradients over the
 * two CP ranks. */
START_TEST(fsdp_over_cp)
{
	struct model_config c = gpt2_small();
	double P = 124439808.0;
	struct model_opts o = zero_opts(3);
	o.dp = 2;
	o.cp = 2;
	o.gpus_per_node = 8;
	struct model_seq s;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	size_t ag = 0, rs = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct model_kernel *k = &s.v[i];
		if (k->comm != COMM_ALL_GATHER && k->comm != COMM_REDUCE_SCATTER)
			continue;
		ck_assert_uint_eq(k->ranks, 4);
		ck_assert_uint_eq(k->node_ranks, 4);
		ag += k->comm == COMM_ALL_GATHER;
		rs += k->comm == COMM_REDUCE_SCATTER;
	}
	/* 12 layers and the root forward, the layers again in backward */
	ck_assert_uint_eq(ag, 25);
	ck_assert_uint_eq(rs, 13);
	model_seq_release(&s);
	struct model_memory m = mem_of(&c, &o);
	ck_assert_double_eq_tol(m.optimizer, 8 * P / 4, 1);

	o = zero_opts(0);
	o.dp = 1;
	o.cp = 2;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	double ar = 0;
	for (size_t i = 0; i < s.n; i++)
		if (s.v[i].comm == COMM_ALL_REDUCE) {
			ck_assert_uint_eq(s.v[i].ranks, 2);
			ar += s.v[i].k.bytes;
		}
	/* every FP32 gradient once */
	ck_assert_double_eq_tol(ar, 4 * P, 1);
	model_seq_release(&s);
}
END_TEST

/* --nodes fills the nodes with data-parallel ranks when --dp is not given,
 * and refuses a layout that does not fill them. */
START_TEST(place_on_nodes)
{
	struct model_opts o;
	char err[200];
	model_opts_init(&o);
	o.nodes = 4;
	o.tp = 8;
	ck_assert_int_eq(model_opts_place(&o, gpu_find("h100-sxm"), err, sizeof(err)), 0);
	ck_assert_uint_eq(o.gpus_per_node, 8);     /* dgx-h100 */
	ck_assert_uint_eq(o.dp, 4);
	model_opts_init(&o);
	o.nodes = 2;
	o.dp = 3;
	ck_assert_int_eq(model_opts_place(&o, gpu_find("h100-sxm"), err, sizeof(err)), SURFER_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "--nodes 2"));
	/* the system's node: GB200 trays of 4 */
	model_opts_init(&o);
	o.system = gpu_system_find("gb200-nvl72");
	o.nodes = 18;
	ck_assert_int_eq(model_opts_place(&o, NULL, err, sizeof(err)), 0);
	ck_assert_uint_eq(o.gpus_per_node, 4);
	ck_assert_uint_eq(o.dp, 72);
	/* nothing asked: one node, nothing filled */
	model_opts_init(&o);
	o.dp = 16;
	ck_assert_int_eq(model_opts_place(&o, gpu_find("h100-sxm"), err, sizeof(err)), 0);
	ck_assert_uint_eq(o.gpus_per_node, 0);
	/* --hsdp needs FSDP and a node size */
	model_opts_init(&o);
	o.mode = MODEL_TRAINING;
	o.dp = 16;
	o.hsdp = 1;
	struct model_config c = gpt2_small();
	struct model_seq s;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), SURFER_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "--hsdp"));
}
END_TEST

/* HSDP: each unit's gradients reduce-scattered over the node's 8 ranks,
 * then its shard (a unit over 8) all-reduced over the 2 nodes; gathers in
 * the node.  The training state is sharded 8 ways, not 16: memory between
 * FSDP over 16 and over 8. */
START_TEST(hsdp_collectives)
{
	struct model_config c = gpt2_small();
	double P = 124439808.0;
	struct model_opts o = zero_opts(3);
	o.dp = 16;
	o.gpus_per_node = 8;
	o.hsdp = 1;
	struct model_seq s;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	double rs = 0, ar = 0;
	size_t nrs = 0, nar = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct model_kernel *k = &s.v[i];
		if (k->phase != MODEL_PH_COMM)
			continue;
		if (k->comm == COMM_REDUCE_SCATTER || k->comm == COMM_ALL_GATHER) {
			ck_assert_uint_eq(k->ranks, 8);
			ck_assert_uint_eq(k->node_ranks, 8);
		}
		if (k->comm == COMM_REDUCE_SCATTER)
			rs += k->k.bytes, nrs++;
		if (k->comm == COMM_ALL_REDUCE) {
			ck_assert_uint_eq(k->ranks, 2);
			ck_assert_uint_eq(k->node_ranks, 1);
			ar += k->k.bytes, nar++;
		}
	}
	ck_assert_uint_eq(nrs, 13);
	ck_assert_uint_eq(nar, 13);
	ck_assert_double_eq_tol(rs, 4 * P, 1);
	ck_assert_double_eq_tol(ar, 4 * P / 8, 1);
	model_seq_release(&s);
	struct model_memory h = mem_of(&c, &o);
	o.hsdp = 0;
	struct model_memory f16 = mem_of(&c, &o);
	o.dp = 8;
	o.gpus_per_node = 0;
	struct model_memory f8 = mem_of(&c, &o);
	ck_assert_double_eq_tol(h.optimizer, 8 * P / 8, 1);
	ck_assert_double_eq_tol(f16.optimizer, 8 * P / 16, 1);
	ck_assert_double_eq_tol(h.peak, f8.peak, 1);
	ck_assert(f16.peak < h.peak);
}
END_TEST

/* Context parallelism 4 on a 4096-token sequence: each rank runs 1024
 * tokens' linears, attends to all 4096 keys, and passes its keys and
 * values (2 x 1024 x 768 x 4 bytes per layer) three times around the ring
 * forward, and them and their gradients back. */
START_TEST(context_parallel)
{
	struct model_config c = gpt2_small();
	struct model_opts o;
	model_opts_init(&o);
	o.mode = MODEL_TRAINING;
	o.seq = 1024;
	o.attention = MODEL_ATTN_SDPA;
	struct model_seq one, four;
	ck_assert_int_eq(model_build(&c, &o, &one, NULL, 0), 0);
	o.seq = 4096;
	o.cp = 4;
	ck_assert_int_eq(model_build(&c, &o, &four, NULL, 0), 0);
	double bytes = 0, attn1 = 0, attn4 = 0;
	uint64_t m1 = 0, m4 = 0;
	size_t n = 0;
	for (size_t i = 0; i < four.n; i++) {
		const struct model_kernel *k = &four.v[i];
		if (k->phase == MODEL_PH_COMM && k->comm != COMM_ALL_REDUCE) {
			/* the ring; the all-reduces sum the four ranks' gradients */
			ck_assert_int_eq(k->comm, COMM_SEND_RECV);
			ck_assert_uint_eq(k->ranks, 4);
			n++;
			bytes += k->k.bytes;
		}
		if (k->k.op == PRED_OP_ATTENTION && k->phase == MODEL_PH_FORWARD)
			attn4 += k->k.flops;
		if (k->k.op == PRED_OP_GEMM && !m4)
			m4 = k->k.m;
	}
	for (size_t i = 0; i < one.n; i++) {
		if (one.v[i].k.op == PRED_OP_ATTENTION && one.v[i].phase == MODEL_PH_FORWARD)
			attn1 += one.v[i].k.flops;
		if (one.v[i].k.op == PRED_OP_GEMM && !m1)
			m1 = one.v[i].k.m;
	}
	double step = 2.0 * 1024 * 768 * 4;
	ck_assert_uint_eq(n, 24);   /* a forward and a backward exchange per layer */
	ck_assert_double_eq_tol(bytes, 12 * (3 * step + 6 * step), 1);
	/* 1024 queries against 4096 keys: zigzag's quarter of the sequence's
	 * causal pairs, 4096 x 4097 / 2 / 4, against one rank's 1024 x 1025 /
	 * 2 (the memory-efficient kernels of FP32 SDPA count pairs exactly) */
	ck_assert_double_eq_tol(attn4, attn1 * (4096.0 * 4097 / 8) / (1024.0 * 1025 / 2),
				attn1 * 1e-9);
	/* the linears run 1024 tokens, as without cp */
	ck_assert_uint_eq(m4, m1);
	model_seq_release(&one);
	model_seq_release(&four);
	/* FlashAttention's described shape: a quarter of the 4096-token
	 * sequence's causal pairs, 4096 x 4097 / 2 / 4, per sequence and head */
	o.attention = MODEL_ATTN_FLASH;
	o.dtype = GPU_DT_BF16;
	ck_assert_int_eq(model_build(&c, &o, &four, NULL, 0), 0);
	int seen = 0;
	for (size_t i = 0; i < four.n; i++)
		if (four.v[i].k.op == PRED_OP_ATTENTION && four.v[i].phase == MODEL_PH_FORWARD) {
			ck_assert_double_eq_tol(four.v[i].k.attn.pairs, 4096.0 * 4097 / 2 / 4, 1e-6);
			seen++;
		}
	ck_assert_int_eq(seen, 12);
	model_seq_release(&four);
	o.attention = MODEL_ATTN_SDPA;
	o.dtype = GPU_DT_FP32;
	o.seq = 4095;
	ck_assert_int_eq(model_build(&c, &o, &four, NULL, 0), SURFER_EINVAL);
}
END_TEST

/* FSDP's waits: a layer's first kernel waits for that layer's all-gather,
 * issued on the side stream ahead of it; in backward (--zero 3) the next
 * layer's gather is issued before this layer's kernels. */
START_TEST(zero_waits)
{
	struct model_config c = gpt2_small();
	struct model_opts o = zero_opts(3);
	struct model_seq s;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	int seen[2][12] = { { 0 } };
	for (size_t i = 0; i < s.n; i++) {
		const struct model_kernel *k = &s.v[i];
		if (k->phase == MODEL_PH_COMM && k->comm == COMM_ALL_GATHER)
			ck_assert_int_eq(k->async, MODEL_ASYNC_FREE);
		if (k->phase == MODEL_PH_COMM && k->comm == COMM_REDUCE_SCATTER)
			ck_assert_int_eq(k->async, MODEL_ASYNC_AFTER);
		if (k->phase == MODEL_PH_COMM || k->layer < 0)
			continue;
		int bwd = k->phase == MODEL_PH_BACKWARD;
		if (seen[bwd][k->layer]++)
			continue;
		/* the first kernel of the layer in this pass */
		ck_assert_uint_gt(k->wait, 0);
		ck_assert_uint_lt(k->wait - 1, i);
		const struct model_kernel *g = &s.v[k->wait - 1];
		ck_assert_int_eq(g->comm, COMM_ALL_GATHER);
		ck_assert_int_eq(g->layer, k->layer);
		ck_assert_double_eq(g->k.bytes, 4 * GPT2_LAYER);
		if (bwd && k->layer < 11) {
			/* issued before the backward of the layer above began */
			size_t above = 0;
			for (size_t j = 0; j < i; j++)
				if (s.v[j].phase == MODEL_PH_BACKWARD && s.v[j].layer == k->layer + 1) {
					above = j;
					break;
				}
			ck_assert_uint_lt(k->wait - 1, above);
		}
	}
	for (int l = 0; l < 12; l++)
		ck_assert(seen[0][l] && seen[1][l]);
	model_seq_release(&s);

	/* The replay: no compute before the root's gather (the embeddings
	 * wait for it) and no step before the root's reduce-scatter, the
	 * last collective of backward; so an iteration takes at least the
	 * compute and those two, which a replay ignoring waits undercuts. */
	const struct gpu_spec *gpu = gpu_find("h100-sxm");
	ck_assert_ptr_nonnull(gpu);
	struct comm_link l, wide;
	comm_link_init(gpu, &l, &wide);
	struct model_timing t;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	ck_assert_int_eq(model_time(&s, &o, gpu, 6000, &t), 0);
	double root = comm_time_ns(COMM_ALL_GATHER, 4 * GPT2_ROOT, 8, &l) +
		      comm_time_ns(COMM_REDUCE_SCATTER, 4 * GPT2_ROOT, 8, &l);
	ck_assert(t.iteration_ns >= t.compute_ns + root);
	/* the compute stream also carries the SMs each side-stream
	 * collective holds (24 of 108 for these eight ranks: comm.c), which
	 * the root's two waits hide; a replay without waits runs them all */
	double held = 0;
	for (size_t i = 0; i < s.n; i++)
		if (s.v[i].async && s.v[i].phase == MODEL_PH_COMM)
			held += comm_time_ns(s.v[i].comm, s.v[i].k.bytes, s.v[i].ranks, &l) * 24 / 108;
	ck_assert(held > 0);
	for (size_t i = 0; i < s.n; i++)
		s.v[i].wait = 0;
	struct model_timing free_t;
	ck_assert_int_eq(model_time(&s, &o, gpu, 6000, &free_t), 0);
	ck_assert(free_t.iteration_ns < t.compute_ns + held + root);
	ck_assert(free_t.iteration_ns < t.iteration_ns);
	model_seq_release(&s);
}
END_TEST


/* Training stacks.  Activation checkpointing: full runs every block's
 * forward kernels again in backward (the backward's GEMM FLOPs grow by
 * exactly the blocks' forward GEMM FLOPs); torchtitan's selective policy
 * recomputes every second matmul of a block (GPT-2: c_attn, c_proj, c_fc,
 * c_proj -> the two c_proj, 2bsh^2 + 8bsh^2) and no attention product. */
START_TEST(act_ckpt_recompute)
{
	struct model_config c = gpt2_small();
	struct model_opts o = zero_opts(0);
	o.dp = 1;
	o.dtype = GPU_DT_BF16;
	o.attention = MODEL_ATTN_SDPA;
	struct model_seq s0, sf, ss;
	ck_assert_int_eq(model_build(&c, &o, &s0, NULL, 0), 0);
	o.act_ckpt = MODEL_CKPT_FULL;
	ck_assert_int_eq(model_build(&c, &o, &sf, NULL, 0), 0);
	o.act_ckpt = MODEL_CKPT_SELECTIVE;
	ck_assert_int_eq(model_build(&c, &o, &ss, NULL, 0), 0);
	double b = 2, sl = 1024, h = 768;
	for (int32_t l = 0; l < 12; l++) {
		double fwd = layer_sum(&s0, l, MODEL_PH_FORWARD, PRED_OP_GEMM, NULL);
		double bwd0 = layer_sum(&s0, l, MODEL_PH_BACKWARD, PRED_OP_GEMM, NULL);
		double bwdf = layer_sum(&sf, l, MODEL_PH_BACKWARD, PRED_OP_GEMM, NULL);
		double bwds = layer_sum(&ss, l, MODEL_PH_BACKWARD, PRED_OP_GEMM, NULL);
		ck_assert_double_eq_tol(fwd, 24 * b * sl * h * h, 1);
		ck_assert_double_eq_tol(bwdf - bwd0, fwd, 1);
		ck_assert_double_eq_tol(bwds - bwd0, 10 * b * sl * h * h, 1);
		double att0 = layer_sum(&s0, l, MODEL_PH_BACKWARD, PRED_OP_ATTENTION, NULL);
		double atts = layer_sum(&ss, l, MODEL_PH_BACKWARD, PRED_OP_ATTENTION, NULL);
		double attf = layer_sum(&sf, l, MODEL_PH_BACKWARD, PRED_OP_ATTENTION, NULL);
		ck_assert_double_eq_tol(atts, att0, 1);
		ck_assert_double_gt(attf, att0);
	}
	/* the forward is the same, the memory less */
	ck_assert_double_eq_tol(model_seq_flops(&sf, MODEL_PH_FORWARD),
				model_seq_flops(&s0, MODEL_PH_FORWARD), 1);
	struct model_memory m0, mf;
	o.act_ckpt = MODEL_CKPT_NONE;
	model_memory(&c, &o, &s0, &m0);
	o.act_ckpt = MODEL_CKPT_FULL;
	model_memory(&c, &o, &sf, &mf);
	/* full keeps each block's input, b s h 16-bit elements */
	double X = b * sl * h * 2;
	ck_assert_double_lt(mf.activations, m0.activations / 5);
	ck_assert_double_ge(mf.activations, 12 * X);
	/* --act-ckpt-layers 3 (Megatron's recompute_method block): the first
	 * 3 of the 12 layers recomputed, the other 9 as without checkpointing;
	 * a quarter of full's saving (GPT-2's layers keep the same bytes) */
	struct model_seq sp;
	struct model_memory mp;
	o.ckpt_layers = 3;
	ck_assert_int_eq(model_build(&c, &o, &sp, NULL, 0), 0);
	for (int32_t l = 0; l < 12; l++) {
		double fwd = layer_sum(&s0, l, MODEL_PH_FORWARD, PRED_OP_GEMM, NULL);
		double bwd0 = layer_sum(&s0, l, MODEL_PH_BACKWARD, PRED_OP_GEMM, NULL);
		double bwdp = layer_sum(&sp, l, MODEL_PH_BACKWARD, PRED_OP_GEMM, NULL);
		ck_assert_double_eq_tol(bwdp - bwd0, l < 3 ? fwd : 0, 1);
	}
	model_memory(&c, &o, &sp, &mp);
	ck_assert_double_eq_tol(mp.activations,
				m0.activations - (m0.activations - mf.activations) / 4,
				1e-9 * m0.activations);
	model_seq_release(&sp);
	/* under interleaving (pp 2, vpp 2) each model chunk of the last
	 * stage's 6 layers (6-8, 9-11) is a block of its own recomputing its
	 * first layer: layers 6 and 9, not 6 alone; the forward of a layer
	 * is 24 b s h^2 FLOPs of GEMMs (b 2 over the 2 microbatches: 1 each) */
	struct model_seq sv0, sv;
	struct model_opts ov = o;
	ov.pp = ov.vpp = ov.microbatches = 2;
	ov.act_ckpt = MODEL_CKPT_NONE;
	ov.ckpt_layers = 0;
	ck_assert_int_eq(model_build(&c, &ov, &sv0, NULL, 0), 0);
	ov.act_ckpt = MODEL_CKPT_FULL;
	ov.ckpt_layers = 1;
	ck_assert_int_eq(model_build(&c, &ov, &sv, NULL, 0), 0);
	for (int32_t l = 6; l < 12; l++) {
		double bwd0 = layer_sum(&sv0, l, MODEL_PH_BACKWARD, PRED_OP_GEMM, NULL);
		double bwd = layer_sum(&sv, l, MODEL_PH_BACKWARD, PRED_OP_GEMM, NULL);
		ck_assert_double_eq_tol(bwd - bwd0, l == 6 || l == 9 ? 24 * 1 * sl * h * h : 0, 1);
	}
	model_seq_release(&sv0);
	model_seq_release(&sv);
	/* it chooses layers for full: with selective or none it is refused */
	char err[160];
	o.act_ckpt = MODEL_CKPT_SELECTIVE;
	ck_assert_int_eq(model_build(&c, &o, &sp, err, sizeof(err)), SURFER_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "--act-ckpt-layers 3"));
	model_seq_release(&s0);
	model_seq_release(&sf);
	model_seq_release(&ss);
}
END_TEST

/* Gradient accumulation: N micro-batches take N times the compute, and
 * DDP's all-reduces run once (no_sync), so on a GPU the step takes less
 * than N single steps and more than N - 1. */
START_TEST(grad_accum_steps)
{
	struct model_config c = gpt2_small();
	struct model_opts o = zero_opts(0);
	o.dtype = GPU_DT_BF16;
	const struct gpu_spec *g = gpu_find("a100-sxm4-80");
	ck_assert_ptr_nonnull(g);
	struct model_seq s;
	struct model_timing t1, t4;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	ck_assert_int_eq(model_time(&s, &o, g, 6000, &t1), 0);
	o.grad_accum = 4;
	ck_assert_int_eq(model_time(&s, &o, g, 6000, &t4), 0);
	ck_assert_double_eq_tol(t4.phase_ns[MODEL_PH_FORWARD], 4 * t1.phase_ns[MODEL_PH_FORWARD],
				t1.phase_ns[MODEL_PH_FORWARD] * 1e-9);
	ck_assert_double_eq_tol(t4.phase_ns[MODEL_PH_OPTIMIZER], t1.phase_ns[MODEL_PH_OPTIMIZER],
				t1.phase_ns[MODEL_PH_OPTIMIZER] * 1e-9);
	ck_assert_double_eq_tol(t4.comm_ns, t1.comm_ns, t1.comm_ns * 1e-9);
	ck_assert_double_lt(t4.iteration_ns, 4 * t1.iteration_ns);
	ck_assert_double_gt(t4.iteration_ns, 3 * t1.iteration_ns);
	/* FSDP reduce-scatters every micro-batch */
	model_seq_release(&s);
	o = zero_opts(3);
	o.dtype = GPU_DT_BF16;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	ck_assert_int_eq(model_time(&s, &o, g, 6000, &t1), 0);
	o.grad_accum = 4;
	ck_assert_int_eq(model_time(&s, &o, g, 6000, &t4), 0);
	ck_assert_double_gt(t4.comm_ns, 3.9 * t1.comm_ns);
	model_seq_release(&s);
}
END_TEST

/* Stacks: compile fuses the element-wise chains (fewer kernels, the same
 * GEMMs and attention); te also joins Q/K/V and gate/up and drops the
 * gradient-accumulation adds. */
START_TEST(stack_fusion)
{
	struct model_config c;
	ck_assert_int_eq(model_config_builtin("llama-3.2-1b", &c), 0);
	struct model_opts o = zero_opts(0);
	o.dp = 1;
	o.dtype = GPU_DT_BF16;
	o.attention = MODEL_ATTN_SDPA;
	struct model_seq se, sc, st;
	ck_assert_int_eq(model_build(&c, &o, &se, NULL, 0), 0);
	o.stack = MODEL_STACK_COMPILE;
	ck_assert_int_eq(model_build(&c, &o, &sc, NULL, 0), 0);
	o.stack = MODEL_STACK_TE;
	ck_assert_int_eq(model_build(&c, &o, &st, NULL, 0), 0);
	size_t ne, nc, nt, ge, gc, gt;
	layer_sum(&se, 5, MODEL_PH_FORWARD, PRED_OP_COUNT, &ne);
	layer_sum(&sc, 5, MODEL_PH_FORWARD, PRED_OP_COUNT, &nc);
	layer_sum(&st, 5, MODEL_PH_FORWARD, PRED_OP_COUNT, &nt);
	double fe = layer_sum(&se, 5, MODEL_PH_FORWARD, PRED_OP_GEMM, &ge);
	double fc = layer_sum(&sc, 5, MODEL_PH_FORWARD, PRED_OP_GEMM, &gc);
	double ft = layer_sum(&st, 5, MODEL_PH_FORWARD, PRED_OP_GEMM, &gt);
	/* Llama layer, eager: 7 GEMMs and about 40 other kernels; compiled:
	 * the 7 GEMMs, the attention and one kernel per chain between them
	 * (norm; RoPE of q and k with the KV repeat; head merge; residual +
	 * norm; SiLU * up; residual) */
	ck_assert_uint_eq(ge, 7);
	ck_assert_uint_eq(gc, 7);
	ck_assert_uint_eq(gt, 4);               /* qkv, o, gate+up, down */
	ck_assert_uint_gt(ne, 35);
	ck_assert_uint_le(nc, 7 + 1 + 6);
	ck_assert_double_eq_tol(fc, fe, 1);
	ck_assert_double_eq_tol(ft, fe, 1);
	ck_assert_uint_lt(nt, nc);
	size_t acc_e = 0, acc_t = 0;
	for (size_t i = 0; i < se.n; i++)
		acc_e += se.v[i].role == MODEL_ROLE_GRAD_ACC;
	for (size_t i = 0; i < st.n; i++)
		acc_t += st.v[i].role == MODEL_ROLE_GRAD_ACC;
	ck_assert_uint_gt(acc_e, 0);
	ck_assert_uint_eq(acc_t, 0);
	model_seq_release(&se);
	model_seq_release(&sc);
	model_seq_release(&st);
}
END_TEST

/* Count and bytes of the kernels named name in a layer and phase. */
static size_t named(const struct model_seq *s, int32_t layer, enum model_phase ph, const char *name,
		    double *bytes)
{
	size_t n = 0;
	*bytes = 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].layer == layer && s->v[i].phase == ph && !strcmp(s->v[i].k.name, name)) {
			n++;
			*bytes += s->v[i].k.bytes;
		}
	return n;
}

/* --precision autocast under the eager stack: GPT-2's block (LN, c_attn,
 * SDPA, c_proj, LN, c_fc, GELU, c_proj; every linear with a bias) casts in
 * forward the four weights and four biases and the two inputs that come
 * from a LayerNorm (c_attn's, c_fc's): 10; backward casts the same ten
 * gradients back.  Bytes: 6 an element (4 read, 2 written, or back), so
 * the forward's are 6 x (4h^2 + h (c_attn W 3h^2, c_proj h^2, c_fc 4h^2,
 * c_proj 4h^2: 12 h^2) + biases (3h + h + 4h + h = 9h) + inputs 2 T h).
 * The LM head adds its input and tied weight and the logits' cast;
 * --precision mixed (FP32 master, no autocast) and --stack compile launch
 * none. */
START_TEST(autocast_casts)
{
	struct model_config c;
	ck_assert_int_eq(model_config_builtin("gpt2", &c), 0);
	struct model_opts o = zero_opts(0);
	o.dp = 1;
	o.batch = 2;
	o.seq = 128;
	o.dtype = GPU_DT_BF16;
	o.attention = MODEL_ATTN_SDPA;
	o.precision = MODEL_PREC_AUTOCAST;
	o.loss = 1;
	struct model_seq sa, sm, sc;
	ck_assert_int_eq(model_build(&c, &o, &sa, NULL, 0), 0);
	o.precision = MODEL_PREC_MIXED;
	ck_assert_int_eq(model_build(&c, &o, &sm, NULL, 0), 0);
	o.precision = MODEL_PREC_AUTOCAST;
	o.stack = MODEL_STACK_COMPILE;
	ck_assert_int_eq(model_build(&c, &o, &sc, NULL, 0), 0);
	const char *to16 = "vectorized_elementwise_kernel<8, bfloat16_copy_kernel_cuda>";
	const char *to32 = "unrolled_elementwise_kernel<direct_copy_kernel_cuda>";
	double h = 768, T = 2 * 128, bf, bb;
	ck_assert_uint_eq(named(&sa, 3, MODEL_PH_FORWARD, to16, &bf), 10);
	ck_assert_uint_eq(named(&sa, 3, MODEL_PH_BACKWARD, to32, &bb), 10);
	double elems = 12 * h * h + 9 * h + 2 * T * h;
	ck_assert_double_eq_tol(bf, 6 * elems, 1);
	ck_assert_double_eq_tol(bb, 6 * elems, 1);
	size_t na, nm, nc;
	layer_sum(&sa, 3, MODEL_PH_FORWARD, PRED_OP_COUNT, &na);
	layer_sum(&sm, 3, MODEL_PH_FORWARD, PRED_OP_COUNT, &nm);
	layer_sum(&sc, 3, MODEL_PH_FORWARD, PRED_OP_COUNT, &nc);
	ck_assert_uint_eq(na, nm + 10);
	ck_assert_uint_eq(named(&sc, 3, MODEL_PH_FORWARD, to16, &bf), 0);
	/* the whole step: 20 a block, the LM head's input and weight each
	 * way (4); the logits' cast to FP32 for the loss, and its gradient
	 * back, are in both (every stack upcasts them) */
	ck_assert_uint_eq(sa.n, sm.n + 20 * c.layers + 4);
	/* under FSDP (--zero 3 over 8 ranks) the weights arrive gathered in
	 * 16 bits: only the two inputs a norm made are cast, each way */
	struct model_seq sf, sg;
	o.stack = MODEL_STACK_EAGER;
	o.dp = 8;
	o.zero = 3;
	ck_assert_int_eq(model_build(&c, &o, &sf, NULL, 0), 0);
	ck_assert_uint_eq(named(&sf, 3, MODEL_PH_FORWARD, to16, &bf), 2);
	ck_assert_double_eq_tol(bf, 6 * 2 * T * h, 1);
	o.precision = MODEL_PREC_MIXED;
	ck_assert_int_eq(model_build(&c, &o, &sg, NULL, 0), 0);
	ck_assert_uint_eq(named(&sg, 3, MODEL_PH_FORWARD, to16, &bf), 0);
	model_seq_release(&sf);
	model_seq_release(&sg);
	model_seq_release(&sa);
	model_seq_release(&sm);
	model_seq_release(&sc);
}
END_TEST

/* FP8: the blocks' linears run their three GEMMs in FP8, the LM head in
 * BF16; tensorwise scaling reads each input 2 + 2 times and writes it
 * twice in FP8 (torchao's roofline: 6N bytes of a 16-bit N). */
START_TEST(fp8_linears)
{
	struct model_config c;
	ck_assert_int_eq(model_config_builtin("llama-3.2-1b", &c), 0);
	struct model_opts o = zero_opts(0);
	o.dp = 1;
	o.dtype = GPU_DT_BF16;
	o.fp8 = 1;
	struct model_seq s;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	size_t fp8 = 0, bf16 = 0, scale = 0;
	double first = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct model_kernel *k = &s.v[i];
		if (k->k.op == PRED_OP_GEMM && k->k.batch <= 1) {
			if (k->k.dtype == GPU_DT_FP8) {
				fp8++;
				ck_assert_int_ge(k->layer, 0);
			} else {
				bf16++;
			}
		}
		if (k->layer == 0 && k->phase == MODEL_PH_FORWARD &&
		    (strstr(k->k.name, "MaxOps") || strstr(k->k.name, "fp8_scaled_cast"))) {
			if (scale < 2)  /* the q projection's input: amax, cast */
				first += k->k.bytes;
			scale++;
		}
	}
	ck_assert_uint_eq(fp8, 16 * 7 * 3);
	ck_assert_uint_eq(bf16, 3);             /* the LM head: forward, dX, dW */
	ck_assert_uint_eq(scale, 7 * 4);        /* input and weight: amax, cast */
	double N = 2.0 * 1024 * 2048;           /* b s h */
	ck_assert_double_eq_tol(first, 6 * N, 1);
	model_seq_release(&s);
	const struct gpu_spec *a100 = gpu_find("a100-sxm4-80");
	char err[200];
	ck_assert_int_eq(model_target_check(&o, a100, err, sizeof(err)), SURFER_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "fp8"));
}
END_TEST

/* Transformer Engine's FP8 casts (--stack te): a linear's input and its
 * output gradient are quantized inside TE's module, so only the casts
 * that follow a LayerNormLinear's norm (Q/K/V, gate/up) fold into it;
 * the attention output's and the MLP activation's casts and all seven
 * gradients' stay kernels of their own.  Delayed scaling: one
 * cast-transpose each (2 bytes read, 2 written an element), the weights'
 * once a step; current scaling (tensorwise under te): amax and cast each
 * (the norm cannot scale before the amax pass: the four inputs' casts),
 * the weights' once a step and never in backward. */
START_TEST(fp8_te_casts)
{
	struct model_config c;
	ck_assert_int_eq(model_config_builtin("llama-3.2-1b", &c), 0);
	struct model_opts o = zero_opts(0);
	o.dp = 1;
	o.dtype = GPU_DT_BF16;
	o.fp8 = 1;
	o.stack = MODEL_STACK_TE;
	/* MXFP8 (Blackwell): one quantize kernel a tensor as delayed scaling
	 * (no amax pass: each block of 32 scales itself), both layouts and
	 * their E8M0 scales written: 2 + 2 x (1 + 1 / 32) bytes an element;
	 * the weights' once a step under te, every forward in eager */
	static const enum model_fp8_recipe recipe[] = { MODEL_FP8_DELAYED, MODEL_FP8_TENSORWISE,
							 MODEL_FP8_MXFP8, MODEL_FP8_MXFP8 };
	double T = 2.0 * 1024, f = 8192;
	for (int r = 0; r < 4; r++) {
		struct model_seq s;
		o.fp8_recipe = recipe[r];
		if (r == 3)
			o.stack = MODEL_STACK_EAGER;
		ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
		size_t fwd = 0, bwd = 0, step = 0;
		double biggest = 0;
		for (size_t i = 0; i < s.n; i++) {
			const struct model_kernel *k = &s.v[i];
			if (k->layer != 3 || !k->k.name ||
			    !(strstr(k->k.name, "cast_transpose") || strstr(k->k.name, "fp8_scaled_cast") ||
			      strstr(k->k.name, "MaxOps") || strstr(k->k.name, "quantize_mxfp8")))
				continue;
			if (k->role == MODEL_ROLE_PER_STEP)
				step++;
			else if (k->phase == MODEL_PH_FORWARD)
				fwd++;
			else
				bwd++;
			if (k->role != MODEL_ROLE_PER_STEP && k->phase == MODEL_PH_FORWARD &&
			    k->k.bytes > biggest)
				biggest = k->k.bytes;
		}
		if (r == 3) {
			/* eager (torchao's MX linears): each of the 7 linears'
			 * input and weight quantized every forward */
			ck_assert_uint_eq(step, 0);
			ck_assert_uint_eq(fwd, 14);
			ck_assert_double_eq_tol(biggest, (2 + 2 * (1 + 1.0 / 32)) * T * f, 1);
			model_seq_release(&s);
			break;
		}
		size_t per = r == 1 ? 2 : 1;   /* kernels a tensor: cast-transpose; amax, cast */
		/* current scaling needs the whole tensor's amax before it can
		 * scale, so no norm writes FP8 there: all four inputs' casts */
		ck_assert_uint_eq(fwd, r != 1 ? 2 : 4 * per);
		ck_assert_uint_eq(bwd, 7 * per);
		ck_assert_uint_eq(step, 7 * per);
		/* the activation's cast, T x f: read 2, written 1 + 1 (MXFP8:
		 * and a scale byte per 32 elements of each copy) */
		ck_assert_double_eq_tol(biggest, (r == 2 ? 2 + 2 * (1 + 1.0 / 32) : 4) * T * f, 1);
		model_seq_release(&s);
	}
}
END_TEST

/* torchao's recipes' scaling traffic (training-stacks.md section 2, the
 * roofline table, bytes per element of each operand): tensorwise 6 an
 * input or output gradient (amax 2, cast 2 read + 1 + 1 written), 8 a
 * weight (amax 2, casts 3 + 3); rowwise 8 an input or gradient (dim-0
 * cast with the BF16 transpose 5, dim-1 cast 3), 10 a weight.  Llama 3.2
 * 1B's layer 3, 2 x 1024 = 2048 tokens, its seven linears (in, out):
 * q and o (2048, 2048), k and v (2048, 512), gate and up (2048, 8192),
 * down (8192, 2048).  Eager, each linear its own casts:
 *   inputs   X = 2048 x (6 x 2048 + 8192)                 = 41943040
 *   weights  W = 2 x 2048^2 + 2 x 2048 x 512 + 3 x 2048 x 8192
 *                                                         = 60817408
 *   grads    G = 2048 x (3 x 2048 + 2 x 512 + 2 x 8192)   = 48234496
 * tensorwise 6X + 8W + 6G = 1027604480 bytes, rowwise 8X + 10W + 8G =
 * 1329594368 (the saved input's dim-1 copy once left out: 3X, 1119879168,
 * below tensorwise).  Under compile Q, K, V and gate, up share their
 * input's casts (X' = 2048 x (3 x 2048 + 8192) = 29360128) and the first
 * scaling kernel of an operand may fold into its producer, saving its 2
 * bytes of read in both recipes alike, so rowwise's layer moves
 * 2 (X' + W + G) = 276824064 bytes more than tensorwise's (the other
 * kernels the same). */
static double layer3_bytes(const struct model_opts *o, int scaling_only)
{
	struct model_config c;
	ck_assert_int_eq(model_config_builtin("llama-3.2-1b", &c), 0);
	struct model_seq s;
	ck_assert_int_eq(model_build(&c, o, &s, NULL, 0), 0);
	double bytes = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct model_kernel *k = &s.v[i];
		if (k->layer != 3 || (k->phase != MODEL_PH_FORWARD && k->phase != MODEL_PH_BACKWARD))
			continue;
		if (scaling_only && !(k->k.name && (strstr(k->k.name, "fp8_scaled_cast") ||
						     strstr(k->k.name, "MaxOps"))))
			continue;
		bytes += k->k.bytes;
	}
	model_seq_release(&s);
	return bytes;
}

START_TEST(fp8_recipe_traffic)
{
	struct model_opts o = zero_opts(0);
	o.dp = 1;
	o.dtype = GPU_DT_BF16;
	o.fp8 = 1;
	o.attention = MODEL_ATTN_FLASH;
	o.fp8_recipe = MODEL_FP8_TENSORWISE;
	ck_assert_double_eq_tol(layer3_bytes(&o, 1), 1027604480.0, 1);
	o.fp8_recipe = MODEL_FP8_ROWWISE;
	ck_assert_double_eq_tol(layer3_bytes(&o, 1), 1329594368.0, 1);
	o.stack = MODEL_STACK_COMPILE;
	double rw = layer3_bytes(&o, 0);
	o.fp8_recipe = MODEL_FP8_TENSORWISE;
	ck_assert_double_eq_tol(rw - layer3_bytes(&o, 0), 276824064.0, 1);
}
END_TEST

/* FSDP with torchao's tensorwise FP8 gathers a layer's weights at one
 * byte a parameter, the root unit at two; CUDA graphs make each block's
 * forward one replay (one launch's CPU time for its kernels). */
START_TEST(fp8_gathers_and_graphs)
{
	struct model_config c = gpt2_small();
	struct model_opts o = zero_opts(3);
	o.dtype = GPU_DT_BF16;
	struct model_seq s16, s8;
	ck_assert_int_eq(model_build(&c, &o, &s16, NULL, 0), 0);
	o.fp8 = 1;
	ck_assert_int_eq(model_build(&c, &o, &s8, NULL, 0), 0);
	double l16 = 0, l8 = 0, r16 = 0, r8 = 0;
	for (size_t i = 0; i < s16.n; i++)
		if (s16.v[i].phase == MODEL_PH_COMM && s16.v[i].comm == COMM_ALL_GATHER)
			*(s16.v[i].layer >= 0 ? &l16 : &r16) += s16.v[i].k.bytes;
	for (size_t i = 0; i < s8.n; i++)
		if (s8.v[i].phase == MODEL_PH_COMM && s8.v[i].comm == COMM_ALL_GATHER)
			*(s8.v[i].layer >= 0 ? &l8 : &r8) += s8.v[i].k.bytes;
	ck_assert_double_gt(l16, 0);
	ck_assert_double_eq_tol(l8, l16 / 2, 1);
	ck_assert_double_eq_tol(r8, r16, 1);
	model_seq_release(&s16);
	model_seq_release(&s8);

	o = zero_opts(0);
	o.dp = 1;
	o.dtype = GPU_DT_BF16;
	o.cuda_graphs = 1;
	ck_assert_int_eq(model_build(&c, &o, &s8, NULL, 0), 0);
	size_t starts = 0, fwd = 0;
	for (size_t i = 0; i < s8.n; i++) {
		const struct model_kernel *k = &s8.v[i];
		if (k->layer == 4 && k->phase == MODEL_PH_FORWARD) {
			ck_assert_uint_ne(k->graph, 0);
			fwd++;
			starts += k->cpu_before_ns > 0;
		}
		if (k->layer < 0 || k->phase == MODEL_PH_OPTIMIZER)
			ck_assert_uint_eq(k->graph, 0);
	}
	ck_assert_uint_gt(fwd, 10);
	ck_assert_uint_eq(starts, 1);          /* one replay for the block's forward */
	model_seq_release(&s8);
}
END_TEST

/* Sequence parallelism under FP8 (ops.c, bld_sp_fp8_bytes): Llama 3.2 1B
 * (hidden 2048) at tp 2, 2 x 1024 tokens.  Each layer all-gathers a
 * 2048 x 2048 tensor four times (the attention's and the MLP's inputs
 * forward, the two row-parallel outputs' gradients backward): 8388608
 * bytes each in BF16, 4194304 in FP8 under torchao's tensorwise recipe
 * and Transformer Engine's delayed scaling, BF16 again under rowwise.
 * Tensorwise casts the shard first and all-reduces its amax (a 4-byte
 * all-reduce a gather); delayed needs none.  Eager tensorwise forward,
 * layer 3: each of the 7 linears' input and weight take an amax and a
 * cast, 28 kernels; gathered in FP8, Q, K, V share their cast input and
 * gate and up theirs, each cast once on the shard: 2 + 2 (o) + 2 + 2
 * (down) inputs' kernels and 14 weights', 22. */
static void sp_gathers(const struct model_opts *o, double *ag, size_t *ar4, size_t *fwd_scale)
{
	struct model_config c;
	ck_assert_int_eq(model_config_builtin("llama-3.2-1b", &c), 0);
	struct model_seq s;
	ck_assert_int_eq(model_build(&c, o, &s, NULL, 0), 0);
	*ag = 0;
	*ar4 = *fwd_scale = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct model_kernel *k = &s.v[i];
		if (k->layer != 3)
			continue;
		if (k->phase == MODEL_PH_COMM && k->comm == COMM_ALL_GATHER)
			*ag += k->k.bytes;
		if (k->phase == MODEL_PH_COMM && k->comm == COMM_ALL_REDUCE && k->k.bytes == 4)
			(*ar4)++;
		if (k->phase == MODEL_PH_FORWARD && k->k.name &&
		    (strstr(k->k.name, "fp8_scaled_cast") || strstr(k->k.name, "MaxOps")))
			(*fwd_scale)++;
	}
	model_seq_release(&s);
}

START_TEST(fp8_sp_gathers)
{
	struct model_opts o = zero_opts(0);
	o.dp = 1;
	o.tp = 2;
	o.sp = 1;
	o.dtype = GPU_DT_BF16;
	double ag;
	size_t ar4, scale;
	sp_gathers(&o, &ag, &ar4, &scale);
	ck_assert_double_eq(ag, 4 * 8388608.0);
	ck_assert_uint_eq(ar4, 0);
	o.fp8 = 1;
	o.fp8_recipe = MODEL_FP8_ROWWISE;
	sp_gathers(&o, &ag, &ar4, &scale);
	ck_assert_double_eq(ag, 4 * 8388608.0);
	o.fp8_recipe = MODEL_FP8_TENSORWISE;
	sp_gathers(&o, &ag, &ar4, &scale);
	ck_assert_double_eq(ag, 4 * 4194304.0);
	ck_assert_uint_eq(ar4, 4);
	ck_assert_uint_eq(scale, 22);
	o.sp = 0;                       /* all-reduces, each linear its own cast */
	sp_gathers(&o, &ag, &ar4, &scale);
	ck_assert_double_eq(ag, 0);
	ck_assert_uint_eq(scale, 28);
	o.sp = 1;
	o.stack = MODEL_STACK_TE;
	o.fp8_recipe = MODEL_FP8_DELAYED;
	sp_gathers(&o, &ag, &ar4, &scale);
	/* and Megatron's two re-gathers of the column-parallel linears' saved
	 * input shards for their wgrads (tp_wgrad_overlap), in FP8 too */
	ck_assert_double_eq(ag, 6 * 4194304.0);
	ck_assert_uint_eq(ar4, 0);
}
END_TEST

/* Megatron's column-parallel linears under --stack te: the input
 * gradient's reduce-scatter (sequence parallelism) is issued on the side
 * stream after the dgrads of Q, K and V (gate and up), their wgrads run
 * while it goes, the first of them waiting for the saved input's
 * re-gather (issued before the first dgrad), and the op below waits for
 * the reduce-scatter; without sequence parallelism the all-reduce alike,
 * no re-gather.  The eager stack waits for each where it is issued.  The
 * replay hides part of them: the step is shorter than the same kernels
 * with the collectives serialized on the compute stream. */
/* Transformer Engine's linear_qkv in FP8 (Q, K and V joined into one GEMM
 * by bld_stack_fuse()): one read of its 8192 x 4096 input at a byte an
 * element, its 4096 x (1024 + 2 x 256) weight at a byte, its output in
 * BF16, Llama-3.1-8B at tensor parallelism 4.  The join took the shared
 * input off at two bytes an element, twice: the GEMM's bytes came out
 * negative and the build was refused. */
START_TEST(te_fp8_qkv_bytes)
{
	struct model_config c;
	ck_assert_int_eq(model_config_builtin("llama-3.1-8b", &c), 0);
	struct model_opts o;
	model_opts_init(&o);
	o.mode = MODEL_TRAINING;
	o.dtype = GPU_DT_BF16;
	o.fp8 = 1;
	o.stack = MODEL_STACK_TE;
	o.attention = MODEL_ATTN_FLASH;
	o.tp = 4;
	o.batch = 1;
	o.seq = 8192;
	struct model_seq s;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	int found = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct model_kernel *k = &s.v[i];
		ck_assert(k->k.bytes >= 0);
		if (k->phase == MODEL_PH_FORWARD && k->k.op == PRED_OP_GEMM && k->layer == 0 &&
		    k->k.n == 1536 && k->k.k == 4096) {
			double want = 8192.0 * 4096 * 1 + 4096.0 * 1536 * 1 + 8192.0 * 1536 * 2;
			ck_assert_double_eq_tol(k->k.bytes, want, 1e-9 * want);
			found++;
		}
	}
	ck_assert_int_eq(found, 1);
	model_seq_release(&s);
}
END_TEST

START_TEST(tp_wgrad_overlap)
{
	struct model_config c;
	ck_assert_int_eq(model_config_builtin("llama-3.2-1b", &c), 0);
	const struct gpu_spec *gpu = gpu_find("h100-sxm");
	ck_assert_ptr_nonnull(gpu);
	for (int sp = 1; sp >= 0; sp--) {
		struct model_opts o = zero_opts(0);
		o.dp = 1;
		o.tp = 2;
		o.sp = sp;
		o.dtype = GPU_DT_BF16;
		o.stack = MODEL_STACK_TE;
		o.attention = MODEL_ATTN_FLASH;
		struct model_seq s;
		ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
		size_t overlapped = 0, regathers = 0;
		for (size_t i = 0; i < s.n; i++) {
			const struct model_kernel *k = &s.v[i];
			if (k->phase != MODEL_PH_COMM || k->layer != 3 || k->ranks != 2)
				continue;
			if (k->comm == COMM_ALL_GATHER && k->async) {
				regathers++;
				/* a T x h shard gathered: 2 x 1024 tokens of 2048, BF16 */
				ck_assert_double_eq(k->k.bytes, 2.0 * 1024 * 2048 * 2);
			}
			if (k->comm != (sp ? COMM_REDUCE_SCATTER : COMM_ALL_REDUCE) || !k->async)
				continue;
			overlapped++;
			ck_assert_int_eq(k->async, MODEL_ASYNC_AFTER);
			/* before it a dgrad GEMM; after it the wgrads (K = the
			 * tokens), the first waiting for the re-gather; then a
			 * kernel waiting for it */
			ck_assert_int_eq(s.v[i - 1].k.op, PRED_OP_GEMM);
			size_t j = i + 1, wgrads = 0;
			ck_assert_int_eq(s.v[j].k.op, PRED_OP_GEMM);
			if (sp) {
				ck_assert_uint_gt(s.v[j].wait, 0);
				const struct model_kernel *g = &s.v[s.v[j].wait - 1];
				ck_assert_int_eq(g->comm, COMM_ALL_GATHER);
				ck_assert_int_eq(g->async, MODEL_ASYNC_AFTER);
				ck_assert_uint_lt(s.v[j].wait - 1, i);
			} else {
				ck_assert_uint_eq(s.v[j].wait, 0);
			}
			for (; j < s.n && s.v[j].wait != i + 1; j++)
				if (s.v[j].k.op == PRED_OP_GEMM && s.v[j].k.k == 2048)
					wgrads++;
			ck_assert_uint_lt(j, s.n);
			ck_assert_int_eq(s.v[j].async, 0);
			ck_assert_uint_ge(wgrads, 2);    /* Q, K, V or gate, up */
		}
		ck_assert_uint_eq(overlapped, 2);        /* attention's and the MLP's */
		ck_assert_uint_eq(regathers, sp ? 2 : 0);

		struct model_timing t, serial;
		ck_assert_int_eq(model_time(&s, &o, gpu, 6000, &t), 0);
		for (size_t i = 0; i < s.n; i++) {
			if (s.v[i].phase == MODEL_PH_COMM && s.v[i].ranks == 2)
				s.v[i].async = 0;
			s.v[i].wait = 0;
		}
		ck_assert_int_eq(model_time(&s, &o, gpu, 6000, &serial), 0);
		ck_assert_double_eq_tol(t.compute_ns, serial.compute_ns, 1);
		ck_assert(t.iteration_ns < serial.iteration_ns - 1000);
		model_seq_release(&s);

		/* the eager stack: each on the compute stream */
		o.stack = MODEL_STACK_EAGER;
		ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
		for (size_t i = 0; i < s.n; i++)
			if (s.v[i].phase == MODEL_PH_COMM && s.v[i].ranks == 2)
				ck_assert_int_eq(s.v[i].async, 0);
		model_seq_release(&s);
	}
}
END_TEST

/* --offload (DeepSpeed's offload_optimizer): gpt2 small (124439808
 * parameters) in BF16 over 8 ranks, --zero 2, on an H100 of a DGX H100
 * (host DRAM 614.4 GB/s over 8 GPUs: 76.8 GB/s a rank).  The rank's
 * 15554976 parameters: their gradients to the host in FP32 (62219904
 * bytes), the norm's 4-byte all-reduce, the CPU's AdamW over 28 + 4 + 2
 * bytes a parameter (528869184 bytes at 76.8 GB/s: 6886317 ns) before
 * the BF16 parameters come back (31109952 bytes); no optimizer kernel on
 * the GPU, no optimizer state in its memory. */
START_TEST(offload_step)
{
	struct model_config c = gpt2_small();
	struct model_opts o = zero_opts(2);
	o.dtype = GPU_DT_BF16;
	o.no_grad_clip = 0;
	o.offload = 1;
	const struct gpu_spec *g = gpu_find("h100-sxm");
	char err[200];
	ck_assert_int_eq(model_offload_place(&o, g, err, sizeof(err)), 0);
	ck_assert_double_eq_tol(o.host_rank_gbps, 76.8, 1e-9);
	struct model_seq s;
	ck_assert_msg(model_build(&c, &o, &s, err, sizeof(err)) == 0, "%s", err);
	double P = 124439808.0 / 8;
	size_t dtoh = 0, htod = 0, kernels = 0, ar4 = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct model_kernel *k = &s.v[i];
		if (k->phase == MODEL_PH_COMM && k->k.bytes == 4)
			ar4++;
		if (k->phase != MODEL_PH_OPTIMIZER)
			continue;
		if (k->copy == MODEL_COPY_DTOH) {
			dtoh++;
			ck_assert_double_eq_tol(k->k.bytes, 4 * P, 1);
		} else if (k->copy == MODEL_COPY_HTOD) {
			htod++;
			ck_assert_double_eq_tol(k->k.bytes, 2 * P, 1);
			ck_assert_double_eq_tol(k->cpu_before_ns, 528869184.0 / 76.8, 1);
			ck_assert_int_eq(k->sync_before, 1);
		} else {
			kernels++;
		}
	}
	ck_assert_uint_eq(dtoh, 1);
	ck_assert_uint_eq(htod, 1);
	ck_assert_uint_eq(ar4, 1);
	ck_assert_uint_eq(kernels, 0);
	struct model_memory m;
	model_memory(&c, &o, &s, &m);
	ck_assert_double_eq(m.optimizer, 0);
	ck_assert_double_eq_tol(m.weights, 2 * 124439808.0, 1);
	model_seq_release(&s);
	/* --host-mem-gbps 200 per node of 8: 25 GB/s a rank; a system with no
	 * figure and none given is refused, as are ZeRO 0 and ZeRO 2 under a
	 * pipeline (DeepSpeed's pipeline engine runs ZeRO-1) */
	o.host_mem_gbps = 200;
	ck_assert_int_eq(model_offload_place(&o, g, err, sizeof(err)), 0);
	ck_assert_double_eq_tol(o.host_rank_gbps, 25, 1e-9);
	o.host_mem_gbps = 0;
	o.host_rank_gbps = 0;
	ck_assert_int_eq(model_offload_place(&o, gpu_find("l40s"), err, sizeof(err)), SURFER_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "--host-mem-gbps"));
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), SURFER_EINVAL);
	o.host_rank_gbps = 25;
	o.zero = 0;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), SURFER_EINVAL);
	o.zero = 2;
	o.pp = 2;
	o.microbatches = 2;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), SURFER_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "--offload"));
}
END_TEST

/* A built trace's copies take their bytes over the target's host link:
 * 1e9 bytes on an H100 (PCIe 5.0 x16, 63.015385 GB/s) take 15869140 ns;
 * issued 6 us in, the CPU blocked until done; the second after a device
 * synchronization and 1 ms of CPU work, 6 us of launch: 12 us + 1 ms + 2
 * copies. */
START_TEST(built_copies)
{
	const struct gpu_spec *g = gpu_find("h100-sxm");
	struct model_kernel v[2];
	struct model_seq s;
	memset(&s, 0, sizeof(s));
	memset(v, 0, sizeof(v));
	s.v = v;
	s.n = 2;
	v[0].k.name = "memcpy DtoH";
	v[0].k.bytes = 1e9;
	v[0].copy = MODEL_COPY_DTOH;
	v[0].phase = v[1].phase = MODEL_PH_OPTIMIZER;
	v[0].layer = v[1].layer = -1;
	v[1] = v[0];
	v[1].k.name = "memcpy HtoD";
	v[1].copy = MODEL_COPY_HTOD;
	v[1].cpu_before_ns = 1e6;
	v[1].sync_before = 1;
	struct model_opts o;
	model_opts_init(&o);
	struct model_timing t;
	ck_assert_int_eq(model_time(&s, &o, g, 6000, &t), 0);
	double c1 = 1e9 / 63.015385;
	ck_assert_double_eq_tol(t.iteration_ns, 12000 + 1e6 + 2 * c1, 10);
	ck_assert_uint_eq(t.kernels, 0);
}
END_TEST

/* A step's time on g with opts o (the cap, if any, in o). */
static double step_ns(const struct model_opts *o, const struct gpu_spec *g)
{
	struct model_config c;
	struct model_seq s;
	struct model_timing t;
	ck_assert_int_eq(model_config_builtin("gpt2", &c), 0);
	ck_assert_int_eq(model_build(&c, o, &s, NULL, 0), 0);
	ck_assert_int_eq(model_time(&s, o, g, MODEL_LAUNCH_AUTO, &t), 0);
	model_seq_release(&s);
	return t.iteration_ns;
}

/* --power-limit: the built program's header carries the cap and the
 * analysis predicts on the target with its compute peaks and clocks
 * scaled by the clock share the cap leaves (predictor/power.c: 500 of
 * 700 W is below the voltage floor at 0.90 of the TDP, so 0.714286 /
 * 0.90^(2/3) = 0.766261, not the 0.714 of a linear rule), its TDP and
 * memory bandwidth kept (the same time as on such a derated copy without
 * a cap: the power rules read the row's figures); at the TDP the GPU is
 * itself. */
START_TEST(power_limit_target)
{
	struct model_cli m;
	model_cli_init(&m);
	char err[200];
	const struct gpu_spec *g = gpu_find("h100-sxm");
	struct gpu_spec tmp;
	struct model_opts o;
	model_opts_init(&o);
	o.mode = MODEL_TRAINING;
	o.dtype = GPU_DT_BF16;
	o.batch = 8;
	o.seq = 512;
	double full = step_ns(&o, g);
	gpu_derate_compute(g, 0.766261, &tmp);
	ck_assert_double_eq_tol(tmp.peak_tflops[GPU_DT_BF16], g->peak_tflops[GPU_DT_BF16] * 0.766261, 1e-9);
	ck_assert_double_eq(tmp.mem_bw_gbps, g->mem_bw_gbps);
	ck_assert_uint_eq(tmp.tdp_w, g->tdp_w);
	double slow = step_ns(&o, &tmp);
	o.power_limit_w = 500;
	double capped = step_ns(&o, g);
	ck_assert(slow > full * 1.05);
	ck_assert_double_eq_tol(capped, slow, 1e-5 * slow);
	/* the linear rule's copy (500 / 700) is slower than the cap */
	gpu_derate_compute(g, 500.0 / 700, &tmp);
	ck_assert(step_ns(&o, &tmp) > capped * 1.01);
	o.power_limit_w = 0;
	o.power_limit_w = 700;
	ck_assert_double_eq_tol(step_ns(&o, g), full, 1e-6 * full);
	ck_assert_int_eq(model_cli_set(&m, "power-limit", "500", err, sizeof(err)), 0);
	ck_assert_double_eq(m.opts.power_limit_w, 500);
	ck_assert_int_eq(model_target_check(&m.opts, g, err, sizeof(err)), 0);
	/* at the TDP the board is itself; above it (an H100 SXM's 700 W) the
	 * run is refused with the reason, not predicted at the TDP silently */
	ck_assert_int_eq(model_cli_set(&m, "power-limit", "700", err, sizeof(err)), 0);
	ck_assert_int_eq(model_target_check(&m.opts, g, err, sizeof(err)), 0);
	ck_assert_int_eq(model_cli_set(&m, "power-limit", "800", err, sizeof(err)), 0);
	ck_assert_int_eq(model_target_check(&m.opts, g, err, sizeof(err)), SURFER_EINVAL);
	ck_assert_str_eq(err, "--power-limit 800 W on h100-sxm: above its 700 W TDP; surfer predicts "
			 "boards capped at or below their TDP");
	ck_assert_int_eq(model_cli_set(&m, "power-limit", "lots", err, sizeof(err)), SURFER_EINVAL);
	ck_assert_int_eq(model_cli_set(&m, "act-ckpt", "some", err, sizeof(err)), SURFER_EINVAL);
	ck_assert_int_eq(model_cli_set(&m, "stack", "jax", err, sizeof(err)), SURFER_EINVAL);
	ck_assert_int_eq(model_cli_set(&m, "grad-accum", "0", err, sizeof(err)), SURFER_EINVAL);
	/* each kernel's cost as its stack issues it unless --launch-us is given */
	ck_assert_int_eq(model_cli_set(&m, "stack", "compile", err, sizeof(err)), 0);
	ck_assert_double_eq(model_cli_launch_ns(&m), MODEL_LAUNCH_AUTO);
	ck_assert_double_eq(model_launch_ns(&m.opts), 6500);
	ck_assert_int_eq(model_cli_set(&m, "launch-us", "20", err, sizeof(err)), 0);
	ck_assert_double_eq(model_cli_launch_ns(&m), 20000);
}
END_TEST

START_TEST(bad_options)
{
	struct model_config c = gpt2_small();
	struct model_opts o;
	model_opts_init(&o);
	struct model_seq s;
	o.batch = 0;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), SURFER_EINVAL);
	o.batch = 3;
	o.pp = 2;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), SURFER_EINVAL);
	o.pp = 100;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), SURFER_EINVAL);
	enum gpu_dtype dt;
	ck_assert_int_eq(model_dtype_parse("bf16", &dt), 0);
	ck_assert_int_eq(dt, GPU_DT_BF16);
	ck_assert_int_ne(model_dtype_parse("int3", &dt), 0);
	enum model_mode m;
	ck_assert_int_ne(model_mode_parse("serving", &m), 0);
}
END_TEST

/* A Llama-style config of hand-checkable sizes: 2 layers, hidden 256, 8
 * heads of 32, 2 KV heads, MLP 512, vocab 1100. */
static struct model_config tiny_llama(void)
{
	struct model_config c;
	memset(&c, 0, sizeof(c));
	snprintf(c.name, sizeof(c.name), "tiny");
	c.family = MODEL_FAM_LLAMA;
	c.layers = 2;
	c.hidden = 256;
	c.heads = 8;
	c.kv_heads = 2;
	c.head_dim = 32;
	c.ffn = 512;
	c.vocab = 1100;
	c.act = MODEL_ACT_SILU;
	c.gated = 1;
	return c;
}

/* --lora 8 on the tiny Llama (2 layers, hidden 256, 8 heads and 2 KV
 * heads of 32, gated MLP of 512): rank-8 adapters beside q (256 -> 256),
 * k and v (256 -> 64), o (256 -> 256), gate and up (256 -> 512) and down
 * (512 -> 256): 8 x (512 + 320 + 320 + 512 + 768 + 768 + 768) = 31744 a
 * layer, 63488 trained; the rest frozen: no weight gradient, one GEMM a
 * frozen linear in backward (the LM head's too), AdamW over the adapters,
 * gradients and moments of theirs only. */
START_TEST(lora_adapters)
{
	struct model_config c = tiny_llama();
	struct model_opts o;
	model_opts_init(&o);
	o.mode = MODEL_TRAINING;
	o.dtype = GPU_DT_BF16;
	o.optimizer = MODEL_OPTIM_ADAMW;
	o.fused_optimizer = 1;
	o.batch = 2;
	o.seq = 64;
	struct model_seq full, s;
	char err[200];
	ck_assert_int_eq(model_build(&c, &o, &full, err, sizeof(err)), 0);
	o.lora_rank = 8;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	ck_assert_double_eq_tol(s.params_trainable, 63488, 1e-9);
	ck_assert_double_eq_tol(s.params, full.params + 63488, 1e-6);
	/* forward: 7 linears a layer, each with its two adapter GEMMs, + head */
	size_t fwd = 0, bwd = 0, bwd_full = 0;
	double opt_elems = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct pred_kernel *k = &s.v[i].k;
		fwd += k->op == PRED_OP_GEMM && s.v[i].phase == MODEL_PH_FORWARD && k->batch <= 1;
		bwd += k->op == PRED_OP_GEMM && s.v[i].phase == MODEL_PH_BACKWARD && k->batch <= 1;
		/* fused AdamW in one dtype: p, g, m, v read, p, m, v written,
		 * 2 bytes each */
		if (s.v[i].phase == MODEL_PH_OPTIMIZER && k->name && strstr(k->name, "FusedAdam"))
			opt_elems += k->bytes / 14.0;
	}
	for (size_t i = 0; i < full.n; i++)
		bwd_full += full.v[i].k.op == PRED_OP_GEMM && full.v[i].phase == MODEL_PH_BACKWARD &&
			    full.v[i].k.batch <= 1;
	ck_assert_uint_eq(fwd, 2 * 7 * 3 + 1);
	/* full: two GEMMs a linear; LoRA: one a frozen linear, two an adapter */
	ck_assert_uint_eq(bwd_full, 2 * (2 * 7 + 1));
	ck_assert_uint_eq(bwd, 2 * 7 * (1 + 4) + 1);
	ck_assert_double_eq_tol(opt_elems, 63488, 1);
	struct model_memory mf, ml;
	model_memory(&c, &o, &s, &ml);
	o.lora_rank = 0;
	model_memory(&c, &o, &full, &mf);
	ck_assert_double_eq_tol(ml.gradients, 63488 * 2.0, 1e-6);
	ck_assert_double_eq_tol(ml.optimizer, 63488 * 2.0 * 2, 1e-6);
	ck_assert_double_eq_tol(mf.gradients, full.params * 2.0, 1e-6);
	model_seq_release(&full);
	model_seq_release(&s);
	/* under DDP the adapters' gradients alone are all-reduced: 63488 x 2
	 * bytes, one bucket */
	o.lora_rank = 8;
	o.dp = 2;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	double ar = 0;
	size_t nar = 0;
	for (size_t i = 0; i < s.n; i++)
		if (s.v[i].phase == MODEL_PH_COMM && s.v[i].comm == COMM_ALL_REDUCE) {
			ar += s.v[i].k.bytes;
			nar++;
		}
	ck_assert_uint_eq(nar, 1);
	ck_assert_double_eq_tol(ar, 63488 * 2.0, 1e-6);
	/* the frozen model stays BF16 under DDP: no FP32 master of it */
	ck_assert_int_eq(model_mixed(&o), 0);
	model_memory(&c, &o, &s, &ml);
	ck_assert_double_eq_tol(ml.weights, s.params * 2.0, 1e-6);
	model_seq_release(&s);
	/* under FSDP every unit is gathered whole, the adapters' gradients
	 * alone reduce-scattered (a layer's each: 31744 x 2 bytes) */
	o.zero = 3;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	double rs = 0, ag = 0;
	for (size_t i = 0; i < s.n; i++) {
		if (s.v[i].phase != MODEL_PH_COMM)
			continue;
		if (s.v[i].comm == COMM_REDUCE_SCATTER) {
			ck_assert_double_eq_tol(s.v[i].k.bytes, 31744 * 2.0, 1e-6);
			rs += s.v[i].k.bytes;
		}
		if (s.v[i].comm == COMM_ALL_GATHER)
			ag += s.v[i].k.bytes;
	}
	ck_assert_double_eq_tol(rs, 63488 * 2.0, 1e-6);
	ck_assert(ag >= s.params * 2.0);
	model_memory(&c, &o, &s, &ml);
	ck_assert(ml.optimizer <= 63488 * 2.0 + 1);   /* AdamW's two moments of a half */
	o.zero = 0;
	model_seq_release(&s);
	o.dp = 1;
	/* --lora-targets attn: q, k, v and o alone, 8 x (512 + 320 + 320 +
	 * 512) a layer */
	o.lora_rank = 8;
	o.lora_attn_only = 1;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	ck_assert_double_eq_tol(s.params_trainable, 2 * 8 * (512 + 320 + 320 + 512), 1e-9);
	/* in backward each adapter adds its two gradient accumulations and
	 * the sum of its input's gradient with the frozen linear's; a linear
	 * without one (the MLP's here, the head) sums nothing: 2 layers x 3
	 * MLP adapters x 3 adds fewer than with every linear adapted */
	size_t adds_attn = 0, adds_all = 0;
	for (size_t i = 0; i < s.n; i++)
		adds_attn += s.v[i].phase == MODEL_PH_BACKWARD && s.v[i].k.name &&
			     strstr(s.v[i].k.name, "AddFunctor");
	model_seq_release(&s);
	o.lora_attn_only = 0;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	for (size_t i = 0; i < s.n; i++)
		adds_all += s.v[i].phase == MODEL_PH_BACKWARD && s.v[i].k.name &&
			    strstr(s.v[i].k.name, "AddFunctor");
	ck_assert_uint_eq(adds_all - adds_attn, 2 * 3 * 3);
	model_seq_release(&s);
	o.lora_attn_only = 1;
	/* --qlora: the adapted linears' weights in NF4, 2 x (256 x 256 x 2 +
	 * 2 x 256 x 64 + 3 x 256 x 512) = 1114112 of them, each dequantized
	 * before its forward GEMM and its input-gradient GEMM */
	o.lora_attn_only = 0;
	o.qlora = 1;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	ck_assert_double_eq_tol(s.params_nf4, 1114112, 1e-9);
	size_t deq[MODEL_PH_COUNT] = {0};
	for (size_t i = 0; i < s.n; i++)
		if (s.v[i].k.name && strstr(s.v[i].k.name, "kDequantizeBlockwise"))
			deq[s.v[i].phase]++;
	ck_assert_uint_eq(deq[MODEL_PH_FORWARD], 14);
	ck_assert_uint_eq(deq[MODEL_PH_BACKWARD], 14);
	model_memory(&c, &o, &s, &ml);
	ck_assert_double_eq_tol(ml.weights, (s.params - 1114112) * 2.0 + 1114112 * (0.5 + 1.0 / 64 + 4.0 / 16384),
				1e-6);
	model_seq_release(&s);
	o.qlora = 0;
	/* what the adapters are not built for */
	o.tp = 2;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), SURFER_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "--lora 8"));
	o.tp = 1;
	c.experts = 4;
	c.experts_per_tok = 2;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), SURFER_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "mixture-of-experts"));
	c.experts = c.experts_per_tok = 0;
	o.mode = MODEL_INFERENCE;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), SURFER_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "--lora"));
}
END_TEST

START_TEST(engine_decode_step)
{
	/* SGLang decode of 3 sequences with 100, 200, 300 cached tokens: the
	 * attention reads each cache once, KV heads only: (101 + 201 + 301)
	 * keys x 2 KV heads x 32 x (K and V) x 2 bytes, plus q and o of 3
	 * tokens x 8 heads x 32 x 2 x 2 bytes.  The graph pads 3 rows to 4
	 * (the captured sizes 1, 2, 4, 8, 12, ...): QKV is [4, 256] x [256,
	 * (8 + 4) x 32]; the LM head runs on every row, inside the graph;
	 * only the argmax after it is launched on its own. */
	struct model_config c = tiny_llama();
	struct model_opts o;
	model_opts_init(&o);
	uint32_t ctx[3] = { 100, 200, 300 };
	o.engine = MODEL_ENGINE_SGLANG;
	o.mode = MODEL_DECODE;
	o.dtype = GPU_DT_BF16;
	o.lens = ctx;
	o.nlens = o.batch = 3;
	struct model_seq s;
	char err[200];
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	size_t attn = 0, gemm = 0, eager = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct pred_kernel *k = &s.v[i].k;
		if (k->op == PRED_OP_ATTENTION) {
			double want = 603.0 * 2 * 32 * 2 * 2 + 3.0 * 8 * 32 * 2 * 2;
			ck_assert_double_eq_tol(k->bytes, want, 1e-9 * want);
			/* SGLang's decode backend off Hopper (the target
			 * runs FA3's tiles on Hopper, attention.c) */
			ck_assert_int_eq(k->attn.impl, PRED_ATTN_FLASHINFER);
			attn++;
		}
		if (k->op == PRED_OP_GEMM && gemm++ == 0) {
			ck_assert_uint_eq(k->m, 4);
			ck_assert_uint_eq(k->n, 12 * 32);
			ck_assert_uint_eq(k->k, 256);
		}
		if (k->op == PRED_OP_GEMM && k->n == 1100)
			ck_assert_uint_eq(k->m, 4);
		eager += !s.v[i].graph;
	}
	ck_assert_uint_eq(attn, 2);
	ck_assert_uint_eq(eager, 1);
	/* the step's CPU time: at least a graph launch (tens of
	 * microseconds) and at most bench_one_batch's Python
	 * between two synchronized steps, under a millisecond on PipeWeave's
	 * measured steps */
	ck_assert(s.v[0].cpu_before_ns > 5e3 && s.v[0].cpu_before_ns < 1e6);
	/* the cache after the step: 603 tokens x 2 layers x 2 x 2 x 32 x 2 B */
	ck_assert_double_eq_tol(s.kv_cache_bytes, 603.0 * 2 * 2 * 2 * 32 * 2, 1e-6);
	model_seq_release(&s);
	/* vLLM's measured whole batches leave no per-step constant: the graph
	 * launch alone */
	o.engine = MODEL_ENGINE_VLLM;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	ck_assert(s.v[0].cpu_before_ns > 0 && s.v[0].cpu_before_ns < 0.1e6);
	/* vLLM decodes with FlashAttention (FA2 off Hopper) */
	for (size_t i = 0; i < s.n; i++)
		if (s.v[i].k.op == PRED_OP_ATTENTION)
			ck_assert_int_eq(s.v[i].k.attn.impl, PRED_ATTN_FLASH);
	model_seq_release(&s);
	/* --attention fa2 names SGLang's backend: kept */
	o.engine = MODEL_ENGINE_SGLANG;
	o.attention = MODEL_ATTN_FA2;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	for (size_t i = 0; i < s.n; i++)
		if (s.v[i].k.op == PRED_OP_ATTENTION)
			ck_assert_int_eq(s.v[i].k.attn.impl, PRED_ATTN_FA2);
	model_seq_release(&s);
}
END_TEST

/* Architectures built as the Llama family (arch_alias.c): each config's
 * own keys and defaults, and the parameter count its release states or
 * the hand count from its sizes. */
START_TEST(parse_aliases)
{
	struct model_config c;
	char err[256];
	struct model_opts o;
	struct model_seq s;
	/* MPT-7B (mosaicml/mpt-7b): 32 x (4 x 4096^2 + 2 x 4096 x 16384) +
	 * 50432 x 4096 tied = 6.649e9 ("6.7B"); no biases, exact GELU, ALiBi */
	const char *mpt = "{\"model_type\": \"mpt\", \"d_model\": 4096, \"n_heads\": 32, \"n_layers\": 32,"
			  " \"expansion_ratio\": 4, \"max_seq_len\": 2048, \"vocab_size\": 50432,"
			  " \"no_bias\": true, \"attn_config\": {\"alibi\": true}}";
	ck_assert_int_eq(model_config_parse(mpt, "mpt", &c, err, sizeof(err)), 0);
	ck_assert_int_eq(c.family, MODEL_FAM_LLAMA);
	ck_assert_uint_eq(c.ffn, 16384);
	ck_assert_uint_eq(c.kv_heads, 32);
	ck_assert_int_eq(c.gated, 0);
	ck_assert_int_eq(c.qkv_bias, 0);
	ck_assert_int_eq(c.tied, 1);
	ck_assert_int_eq(c.act, MODEL_ACT_GELU);
	ck_assert_int_eq(c.learned_positions, 0);
	model_opts_init(&o);
	o.seq = 128;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	ck_assert_double_eq_tol(s.params_total, 6.649e9, 0.001e9);
	model_seq_release(&s);
	/* ... with no_bias false, biases */
	const char *mptb = "{\"model_type\": \"mpt\", \"d_model\": 256, \"n_heads\": 4, \"n_layers\": 2,"
			   " \"vocab_size\": 500, \"no_bias\": false}";
	ck_assert_int_eq(model_config_parse(mptb, "mpt", &c, err, sizeof(err)), 0);
	ck_assert_int_eq(c.qkv_bias, 1);
	ck_assert_uint_eq(c.ffn, 1024); /* expansion_ratio's default 4 */

	/* Falcon-7B (tiiuae/falcon-7b): multi-query (one KV head of 64),
	 * 4 x 4544 MLP, no biases, tied: 32 x (2 x 4544^2 + 2 x 4544 x 64 +
	 * 2 x 4544 x 18176) + 65024 x 4544 = 6.921e9 */
	const char *falcon = "{\"model_type\": \"falcon\", \"hidden_size\": 4544, \"num_attention_heads\": 71,"
			     " \"num_hidden_layers\": 32, \"multi_query\": true, \"new_decoder_architecture\":"
			     " false, \"bias\": false, \"vocab_size\": 65024}";
	ck_assert_int_eq(model_config_parse(falcon, "f", &c, err, sizeof(err)), 0);
	ck_assert_uint_eq(c.kv_heads, 1);
	ck_assert_uint_eq(c.head_dim, 64);
	ck_assert_uint_eq(c.ffn, 18176);
	ck_assert_int_eq(c.gated, 0);
	ck_assert_int_eq(c.tied, 1);
	model_opts_init(&o);
	o.seq = 128;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	ck_assert_double_eq_tol(s.params_total, 6.921e9, 0.001e9);
	model_seq_release(&s);
	/* Falcon-40B's new decoder: num_kv_heads of them */
	const char *f40 = "{\"model_type\": \"falcon\", \"hidden_size\": 8192, \"num_attention_heads\": 128,"
			  " \"num_hidden_layers\": 60, \"new_decoder_architecture\": true, \"num_kv_heads\": 8,"
			  " \"vocab_size\": 65024}";
	ck_assert_int_eq(model_config_parse(f40, "f", &c, err, sizeof(err)), 0);
	ck_assert_uint_eq(c.kv_heads, 8);

	/* StarCoder (GPTBigCode): GPT-2's keys, multi-query, learned
	 * positions, biases */
	const char *sc = "{\"model_type\": \"gpt_bigcode\", \"n_embd\": 6144, \"n_head\": 48, \"n_layer\": 40,"
			 " \"n_inner\": 24576, \"n_positions\": 8192, \"vocab_size\": 49152}";
	ck_assert_int_eq(model_config_parse(sc, "sc", &c, err, sizeof(err)), 0);
	ck_assert_uint_eq(c.kv_heads, 1);
	ck_assert_uint_eq(c.layers, 40);
	ck_assert_int_eq(c.learned_positions, 1);
	ck_assert_uint_eq(c.max_positions, 8192);
	ck_assert_int_eq(c.qkv_bias, 1);
	ck_assert_int_eq(c.act, MODEL_ACT_GELU_TANH);

	/* OLMo 2: Llama's keys, a norm over q and k; Nemotron: squared ReLU,
	 * no gate */
	const char *olmo = "{\"model_type\": \"olmo2\", \"hidden_size\": 512, \"num_attention_heads\": 8,"
			   " \"num_hidden_layers\": 2, \"intermediate_size\": 1024, \"vocab_size\": 1000}";
	ck_assert_int_eq(model_config_parse(olmo, "o", &c, err, sizeof(err)), 0);
	ck_assert_int_eq(c.gated, 1);
	ck_assert_int_eq(c.qk_norm, 1);
	const char *nem = "{\"model_type\": \"nemotron\", \"hidden_size\": 512, \"num_attention_heads\": 8,"
			  " \"num_key_value_heads\": 2, \"num_hidden_layers\": 2, \"intermediate_size\": 2048,"
			  " \"hidden_act\": \"relu2\", \"vocab_size\": 1000}";
	ck_assert_int_eq(model_config_parse(nem, "n", &c, err, sizeof(err)), 0);
	ck_assert_int_eq(c.gated, 0);
	ck_assert_int_eq(c.act, MODEL_ACT_RELU);
	/* served: up [T, 2048], down [T, 512]; no gate_up of 2 x 2048 */
	model_opts_init(&o);
	uint32_t ctx[2] = { 100, 200 };
	o.engine = MODEL_ENGINE_VLLM;
	o.mode = MODEL_DECODE;
	o.dtype = GPU_DT_BF16;
	o.lens = ctx;
	o.nlens = o.batch = 2;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	size_t up = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct pred_kernel *k = &s.v[i].k;
		if (k->op != PRED_OP_GEMM)
			continue;
		ck_assert_uint_ne(k->n, 4096);
		up += k->n == 2048 && k->k == 512;
	}
	ck_assert_uint_eq(up, 2);
	model_seq_release(&s);

	/* Mistral Small 3.1 (mistral3): its language model, text_config:
	 * 40 x (5120 x 32 x 128 x 2 + 5120 x 8 x 128 x 2 + 3 x 5120 x 32768)
	 * + 2 x 131072 x 5120 = 23.57e9; a LLaVA text_config without its type
	 * is LlavaConfig's default Llama */
	const char *m3 = "{\"model_type\": \"mistral3\", \"vision_config\": {\"hidden_size\": 1024},"
			 " \"text_config\": {\"model_type\": \"mistral\", \"hidden_size\": 5120,"
			 " \"intermediate_size\": 32768, \"num_attention_heads\": 32, \"num_key_value_heads\": 8,"
			 " \"head_dim\": 128, \"num_hidden_layers\": 40, \"vocab_size\": 131072}}";
	ck_assert_int_eq(model_config_parse(m3, "m3", &c, err, sizeof(err)), 0);
	ck_assert_double_eq_tol(model_config_params(&c), 23.57e9, 0.01e9);
	const char *llava = "{\"model_type\": \"llava\", \"text_config\": {\"hidden_size\": 512,"
			    " \"num_attention_heads\": 8, \"num_hidden_layers\": 2, \"intermediate_size\": 1024,"
			    " \"vocab_size\": 1000}}";
	ck_assert_int_eq(model_config_parse(llava, "l", &c, err, sizeof(err)), 0);
	ck_assert_int_eq(c.family, MODEL_FAM_LLAMA);
	ck_assert_int_eq(c.gated, 1);

	/* a size the architecture's keys do not give is not Llama's default */
	const char *bad = "{\"model_type\": \"mpt\", \"n_heads\": 32, \"n_layers\": 32, \"vocab_size\": 50432}";
	ck_assert_int_eq(model_config_parse(bad, "b", &c, err, sizeof(err)), SURFER_ECORRUPT);
	ck_assert_ptr_nonnull(strstr(err, "'d_model'"));
}
END_TEST

/* GLM-4.5 (glm4_moe): DeepSeek's dense-then-routed MLPs with a shared
 * expert and a biased sigmoid router over grouped-query attention.  The
 * 355B's hand count: attention 92 x (5120 x 96 x 128 x 2 + 5120 x 8 x 128
 * x 2) = 12.54e9; 3 dense MLPs of 3 x 5120 x 12288 = 0.566e9; 89 MoE
 * layers of 160 + 1 experts of 3 x 5120 x 1536 and a 5120 x 160 router =
 * 338.1e9; embedding and head 2 x 151552 x 5120 = 1.55e9: 352.8e9 (the
 * model card's 355B counts its multi-token-prediction layer, not built;
 * the biases and norms are not counted). */
START_TEST(glm_moe)
{
	struct model_config c;
	ck_assert_int_eq(model_config_builtin("glm-4.5", &c), 0);
	ck_assert_uint_eq(c.experts, 160);
	ck_assert_uint_eq(c.experts_per_tok, 8);
	ck_assert_uint_eq(c.moe_ffn, 1536);
	ck_assert_uint_eq(c.shared_ffn, 1536);
	ck_assert_uint_eq(c.first_dense, 3);
	ck_assert_uint_eq(c.kv_heads, 8);
	ck_assert_uint_eq(c.head_dim, 128);
	ck_assert_uint_eq(c.kv_lora, 0);
	ck_assert_int_eq(c.router_bias, 1);
	ck_assert_int_eq(c.qk_norm, 1);
	double want = 92.0 * (5120.0 * 96 * 128 * 2 + 5120.0 * 8 * 128 * 2) + 3 * 3.0 * 5120 * 12288 +
		      89 * (161 * 3.0 * 5120 * 1536 + 5120.0 * 160) + 2.0 * 151552 * 5120;
	ck_assert_double_eq_tol(model_config_params(&c), want, 1e-9 * want);
	ck_assert_int_eq(model_config_builtin("glm-4.5-air", &c), 0);
	ck_assert_int_eq(c.qk_norm, 0);
	/* training (the hf builder, as DeepSeek's): layer 0 a dense MLP of
	 * 10944, the others the experts' grouped GEMMs and the shared one */
	struct model_opts o;
	model_opts_init(&o);
	o.mode = MODEL_TRAINING;
	o.dtype = GPU_DT_BF16;
	o.attention = MODEL_ATTN_FLASH;
	o.seq = 256;
	struct model_seq s;
	char err[200];
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	size_t dense_up = 0, shared_down = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct pred_kernel *k = &s.v[i].k;
		if (k->op != PRED_OP_GEMM || s.v[i].phase != MODEL_PH_FORWARD)
			continue;
		dense_up += k->n == 10944 && k->k == 4096;
		shared_down += k->n == 4096 && k->k == 1408 && k->m == 256;
	}
	ck_assert_uint_eq(dense_up, 2);          /* gate and up, layer 0 */
	ck_assert_uint_eq(shared_down, 45);      /* the shared expert of 45 MoE layers */
	model_seq_release(&s);
	/* the serving engines route with the biased kernel */
	model_opts_init(&o);
	uint32_t ctx[2] = { 100, 200 };
	o.engine = MODEL_ENGINE_SGLANG;
	o.mode = MODEL_DECODE;
	o.dtype = GPU_DT_BF16;
	o.lens = ctx;
	o.nlens = o.batch = 2;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	size_t biased = 0;
	for (size_t i = 0; i < s.n; i++)
		biased += s.v[i].k.name && !strcmp(s.v[i].k.name, "biased_grouped_topk_kernel");
	ck_assert_uint_eq(biased, 45);
	model_seq_release(&s);
}
END_TEST

/* Llama 4 (llama4_text; the llama4 checkpoints' text_config): Maverick's
 * hand count: attention 48 x (5120 x 40 x 128 x 2 + 5120 x 8 x 128 x 2) =
 * 3.02e9; 24 MoE layers of 128 + 1 experts of 3 x 5120 x 8192 and a 5120
 * x 128 router = 389.6e9; 24 dense MLPs of 3 x 5120 x 16384 = 6.04e9;
 * embedding and head 2 x 202048 x 5120 = 2.07e9: 400.7e9. */
START_TEST(llama4_moe)
{
	struct model_config c;
	ck_assert_int_eq(model_config_builtin("llama-4-maverick", &c), 0);
	double want = 48.0 * (5120.0 * 40 * 128 * 2 + 5120.0 * 8 * 128 * 2) +
		      24 * (129 * 3.0 * 5120 * 8192 + 5120.0 * 128) + 24 * 3.0 * 5120 * 16384 +
		      2.0 * 202048 * 5120;
	ck_assert_double_eq_tol(model_config_params(&c), want, 1e-9 * want);
	ck_assert_int_eq(model_layer_moe(&c, 0), 0);
	ck_assert_int_eq(model_layer_moe(&c, 1), 1);
	ck_assert_int_eq(model_layer_moe(&c, 47), 1);
	ck_assert_uint_eq(c.window, 8192);
	ck_assert_uint_eq(c.local_period, 4);
	/* the multimodal checkpoint's config: its text_config */
	const char *wrap = "{\"model_type\": \"llama4\", \"vision_config\": {\"hidden_size\": 1408},"
			   " \"text_config\": {\"model_type\": \"llama4_text\", \"hidden_size\": 512,"
			   " \"intermediate_size\": 256, \"intermediate_size_mlp\": 1024,"
			   " \"num_hidden_layers\": 4, \"num_attention_heads\": 8, \"num_key_value_heads\": 2,"
			   " \"head_dim\": 64, \"num_local_experts\": 4, \"num_experts_per_tok\": 1,"
			   " \"interleave_moe_layer_step\": 1, \"vocab_size\": 1000,"
			   " \"no_rope_layers\": [1, 1, 1, 0]}}";
	char err[200];
	ck_assert_int_eq(model_config_parse(wrap, "l4", &c, err, sizeof(err)), 0);
	ck_assert_uint_eq(c.experts, 4);
	ck_assert_uint_eq(c.moe_ffn, 256);
	ck_assert_uint_eq(c.shared_ffn, 256);
	ck_assert_uint_eq(c.ffn, 1024);
	ck_assert_int_eq(model_layer_moe(&c, 0), 1);
	/* served: every layer routes (top 1 of 4) and runs the shared expert:
	 * its down projection [T, 256] -> 512 on each of the 4 layers */
	struct model_opts o;
	model_opts_init(&o);
	uint32_t ctx[2] = { 100, 200 };
	o.engine = MODEL_ENGINE_VLLM;
	o.mode = MODEL_DECODE;
	o.dtype = GPU_DT_BF16;
	o.lens = ctx;
	o.nlens = o.batch = 2;
	struct model_seq s;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	size_t routers = 0;
	for (size_t i = 0; i < s.n; i++)
		routers += s.v[i].k.op == PRED_OP_GEMM && s.v[i].k.n == 4 && s.v[i].k.k == 512;
	ck_assert_uint_eq(routers, 4);
	model_seq_release(&s);
}
END_TEST

START_TEST(engine_prefill_last_tokens)
{
	/* vLLM prefill of prompts of 600 and 700 tokens (above its 512-token
	 * piecewise graphs: eager): the GEMMs take the 1300 tokens as one
	 * ragged batch, the LM head only the 2 last tokens; attention is
	 * causal per prompt, 4 x 8 x 32 x n (n + 1) / 2 FLOPs each. */
	struct model_config c = tiny_llama();
	struct model_opts o;
	model_opts_init(&o);
	uint32_t lens[2] = { 600, 700 };
	o.engine = MODEL_ENGINE_VLLM;
	o.mode = MODEL_PREFILL;
	o.dtype = GPU_DT_BF16;
	o.lens = lens;
	o.nlens = o.batch = 2;
	struct model_seq s;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	int head = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct pred_kernel *k = &s.v[i].k;
		ck_assert(!s.v[i].graph);
		if (k->op == PRED_OP_GEMM && k->n == 1152) {  /* vocab padded to 64 */
			ck_assert_uint_eq(k->m, 2);
			head++;
		} else if (k->op == PRED_OP_GEMM) {
			ck_assert_uint_eq(k->m, 1300);
		}
		if (k->op == PRED_OP_ATTENTION) {
			double want = 4.0 * 8 * 32 * (600.0 * 601 / 2 + 700.0 * 701 / 2);
			ck_assert_double_eq_tol(k->flops, want, 1e-9 * want);
		}
	}
	ck_assert_int_eq(head, 1);
	model_seq_release(&s);
	/* hf refuses the engines' mode */
	o.engine = MODEL_ENGINE_HF;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), SURFER_EINVAL);
}
END_TEST

/* DeepSeek-V3 training as its report runs it, on the last of 16 pipeline
 * stages (layers 57-60 of 61, all four MoE), one 4096-token sequence per
 * rank, BF16, ZeRO-1, nodes of 8. */
static struct model_opts ds_opts(uint32_t dp, uint32_t ep)
{
	struct model_opts o = zero_opts(1);
	o.dtype = GPU_DT_BF16;
	o.attention = MODEL_ATTN_FLASH;
	o.batch = 1;
	o.seq = 4096;
	o.pp = 16;
	o.dp = dp;
	o.ep = ep;
	o.gpus_per_node = 8;
	return o;
}

START_TEST(moe_ep_dispatch)
{
	/* Each MoE layer's dispatch and combine move the rank's 4096 tokens x
	 * top 8 routed rows of hidden 7168 BF16 values: 4096 x 8 x 7168 x 2 =
	 * 469762048 bytes, in forward and again in backward: 4 layers x 4
	 * all-to-alls over the 64 ranks of --ep 64, 8 of them per node.  The
	 * rank holds 256 / 64 = 4 experts, each taking 64 x 4096 x 8 / 256 =
	 * 8192 rows; the experts' gradients are all-reduced over dp / ep = 2
	 * ranks. */
	struct model_config c;
	ck_assert_int_eq(model_config_builtin("deepseek-v3", &c), 0);
	struct model_opts o = ds_opts(128, 64);
	struct model_seq s;
	char err[256];
	ck_assert_msg(model_build(&c, &o, &s, err, sizeof(err)) == 0, "%s", err);
	int a2a = 0, grouped = 0, edp = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct model_kernel *k = &s.v[i];
		if (k->phase == MODEL_PH_COMM && k->comm == COMM_ALL_TO_ALL) {
			ck_assert_double_eq(k->k.bytes, 469762048.0);
			ck_assert_uint_eq(k->ranks, 64);
			ck_assert_uint_eq(k->node_ranks, 8);
			a2a++;
		}
		if (k->phase == MODEL_PH_FORWARD && k->k.op == PRED_OP_GEMM && k->k.batch > 1) {
			ck_assert_uint_eq(k->k.batch, 4);
			ck_assert_uint_eq(k->k.m, 8192);
			grouped++;
		}
		if (k->phase == MODEL_PH_COMM && k->comm == COMM_ALL_REDUCE && k->ranks == 2)
			edp++;
	}
	ck_assert_int_eq(a2a, 16);
	ck_assert_int_eq(grouped, 8);
	ck_assert_int_gt(edp, 0);
	model_seq_release(&s);
	/* no expert parallelism, no all-to-all */
	o = ds_opts(128, 1);
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	for (size_t i = 0; i < s.n; i++)
		ck_assert(!(s.v[i].phase == MODEL_PH_COMM && s.v[i].comm == COMM_ALL_TO_ALL));
	model_seq_release(&s);
}
END_TEST

/* FSDP2 with expert parallelism (torchtitan: the experts sharded over
 * dp / ep ranks, dp_shard_mod_ep): each MoE layer's unit gathered in two,
 * its dense parameters over the 128 data-parallel ranks and its 4 local
 * experts (3 x 7168 x 2048 each: 176160768 parameters, 352321536 BF16
 * bytes) over dp / ep = 2; their gradients reduce-scattered the same way
 * in FP32 (704643072 bytes).  The moments: 8 bytes a parameter of the
 * rank's shard, the dense ones over 128 ranks, the experts' over 2. */
START_TEST(moe_fsdp_ep)
{
	struct model_config c;
	ck_assert_int_eq(model_config_builtin("deepseek-v3", &c), 0);
	struct model_opts o = ds_opts(128, 64);
	o.zero = 3;
	o.optimizer = MODEL_OPTIM_ADAMW;
	struct model_seq s;
	char err[256];
	ck_assert_msg(model_build(&c, &o, &s, err, sizeof(err)) == 0, "%s", err);
	const double x = 4.0 * 3 * 7168 * 2048;
	int ag_x = 0, ag_d = 0, rs_x = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct model_kernel *k = &s.v[i];
		if (k->phase != MODEL_PH_COMM || k->layer < 57 || k->layer > 60)
			continue;
		if (k->comm == COMM_ALL_GATHER && k->ranks == 2) {
			ck_assert_double_eq(k->k.bytes, 2 * x);
			ag_x++;
		} else if (k->comm == COMM_ALL_GATHER && k->ranks == 128) {
			/* MLA (q_a 7168 x 1536 and its norm, q_b 1536 x 128 x
			 * 192, kv_a 7168 x 576 and its norm, kv_b 512 x 128 x
			 * 256, o 128 x 128 x 7168), the shared expert (3 x
			 * 7168 x 2048), the router (7168 x 256) and two norms:
			 * 232996864 parameters */
			ck_assert_double_eq_tol(k->k.bytes, 2 * 232996864.0, 2 * 512);
			ag_d++;
		} else if (k->comm == COMM_REDUCE_SCATTER && k->ranks == 2) {
			ck_assert_double_eq(k->k.bytes, 4 * x);
			rs_x++;
		}
	}
	/* under the pipeline each unit once a step (no regather) */
	ck_assert_int_eq(ag_x, 4);
	ck_assert_int_eq(ag_d, 4);
	ck_assert_int_eq(rs_x, 4);
	ck_assert_double_eq_tol(s.expert_params, 4 * x, 1);
	struct model_memory m;
	model_memory(&c, &o, &s, &m);
	double sn = (s.params - s.expert_params) / 128 + s.expert_params / 2;
	ck_assert_double_eq_tol(m.optimizer, 8 * sn, 1e-9 * m.optimizer);
	model_seq_release(&s);
	/* HSDP has no expert group here: refused */
	o.hsdp = 1;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), SURFER_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "--ep 64 with --zero 3"));
}
END_TEST

START_TEST(moe_a2a_route_fp8_overlap)
{
	/* --moe-dispatch-fp8: the forward's dispatch and the combine's
	 * gradient move towards the experts in FP8, 4096 x 8 x 7168 x (1 +
	 * 4 / 128) = 242221056 bytes; the combine and the dispatch's gradient
	 * in BF16, 469762048 (moe_ep_dispatch).  Per layer in order: dispatch,
	 * combine, then backward the combine's gradient, the dispatch's. */
	struct model_config c;
	ck_assert_int_eq(model_config_builtin("deepseek-v3", &c), 0);
	struct model_opts o = ds_opts(128, 64);
	o.moe_dispatch_fp8 = 1;
	o.moe_route_nodes = 4;
	o.moe_a2a_overlap = 1;
	struct model_seq s;
	char err[256];
	ck_assert_msg(model_build(&c, &o, &s, err, sizeof(err)) == 0, "%s", err);
	const double fp8 = 4096.0 * 8 * 7168 * (1 + 4.0 / 128), bf16 = 469762048.0;
	int n = 0;
	size_t prev = 0;         /* 1 + index of the last all-to-all */
	for (size_t i = 0; i < s.n; i++) {
		const struct model_kernel *k = &s.v[i];
		if (!(k->phase == MODEL_PH_COMM && k->comm == COMM_ALL_TO_ALL))
			continue;
		/* forward dispatch, combine per layer; backward (layers in
		 * reverse) the combine's gradient, the dispatch's: FP8 and
		 * BF16 alternate throughout */
		ck_assert_double_eq(k->k.bytes, n++ % 2 ? bf16 : fp8);
		/* node-limited: the limit and the rows a token for the
		 * collective model */
		ck_assert_uint_eq(k->k.n, 4);
		ck_assert_uint_eq(k->k.k, 8);
		ck_assert_int_eq(k->async, MODEL_ASYNC_AFTER);
		/* after it on the compute stream the SMs it holds, the same
		 * all-to-all renamed, waiting for the one before */
		ck_assert_str_eq(s.v[i + 1].k.name, COMM_A2A_SM_SHARE_NAME);
		ck_assert_int_eq(s.v[i + 1].async, 0);
		ck_assert_double_eq(s.v[i + 1].k.bytes, k->k.bytes);
		ck_assert_uint_eq(s.v[i + 1].wait, prev);
		prev = i + 1;
		i++;
	}
	ck_assert_int_eq(n, 16);
	model_seq_release(&s);
	/* none of the three: as before */
	o = ds_opts(128, 64);
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	for (size_t i = 0; i < s.n; i++)
		if (s.v[i].phase == MODEL_PH_COMM && s.v[i].comm == COMM_ALL_TO_ALL)
			ck_assert(!s.v[i].async && !s.v[i].k.n && !s.v[i + 1].wait);
	model_seq_release(&s);
}
END_TEST

START_TEST(comm_routed_a2a)
{
	/* 64 ranks on 8 nodes of 8, a send buffer B = 1e8 bytes of 8 rows a
	 * token.  Links: NVLink 160 GB/s per pair, 50 GB/s of network per
	 * GPU.  Plain: 56/64 of B leaves through the NICs, B 7/8 / 50 =
	 * 1.75e6 ns; 7/64 over NVLink, less.  Node-limited to 4 nodes: a
	 * token crosses to 4 x 7/8 = 3.5 nodes, one row of B / 8 each:
	 * B 3.5 / 8 / 50 = 875000 ns; inside, 7/8 of B over NVLink:
	 * B 7/8 / 160 = 546875 ns, less.  Same latency: 875000 ns saved. */
	struct comm_link l;
	memset(&l, 0, sizeof(l));
	l.bw_gbps = 160;
	l.p2p_gbps = 160;
	l.p2p_us = 5;
	l.latency_us = 10;
	l.nvlink = 1;
	l.node_gpus = 8;
	l.net_gbps = 50;
	l.net_p2p_gbps = 50;
	l.net_hop_us = 2;
	double B = 1e8, plain = comm_group_ns(COMM_ALL_TO_ALL, B, 64, 8, &l);
	ck_assert_double_eq_tol(plain - comm_routed_a2a_ns(B, 8, 4, 64, 8, &l), 875000, 1e-3);
	/* no limit, or one node: the plain all-to-all */
	ck_assert_double_eq(comm_routed_a2a_ns(B, 8, 0, 64, 8, &l), plain);
	ck_assert_double_eq(comm_routed_a2a_ns(B, 8, 4, 8, 8, &l), comm_group_ns(COMM_ALL_TO_ALL, B, 8, 8, &l));
	/* a slow NVLink (20 GB/s) bounds it: plain B 7/8 / 50 = 1.75e6 over
	 * the network (B 7/64 / 20 = 546875 inside); routed B 7/8 / 20 =
	 * 4.375e6 inside, 2625000 ns more */
	l.bw_gbps = l.p2p_gbps = 20;
	plain = comm_group_ns(COMM_ALL_TO_ALL, B, 64, 8, &l);
	ck_assert_double_eq_tol(comm_routed_a2a_ns(B, 8, 4, 64, 8, &l) - plain, 2625000, 1e-3);
	/* the SMs an overlapped all-to-all holds: 20 of an H800's 132, so
	 * 1 ms of it takes 1e6 x 20 / 132 = 151515.15 ns from the compute
	 * beside it; all of it on a GPU of 16 SMs */
	ck_assert_double_eq_tol(comm_a2a_sm_share_ns(1e6, 132), 151515.1515, 1e-3);
	ck_assert_double_eq(comm_a2a_sm_share_ns(1e6, 16), 1e6);
	ck_assert(comm_is_a2a_sm_share("moe_a2a_overlap_sm_share") && !comm_is_a2a_sm_share("ncclDevKernel_SendRecv"));
	/* M above the rows: a token reaches at most k = 2 nodes, 2 x 7/8
	 * copies of B / 2 a row = 7/8 B, as the plain all-to-all */
	l.bw_gbps = l.p2p_gbps = 160;
	ck_assert_double_eq_tol(comm_routed_a2a_ns(B, 2, 8, 64, 8, &l),
				comm_group_ns(COMM_ALL_TO_ALL, B, 64, 8, &l), 1e-3);
}
END_TEST

START_TEST(moe_ep_memory)
{
	/* The four layers' routed experts: 4 x 256 x 3 x 7168 x 2048 =
	 * 45097156608 weights.  --ep 8 leaves each GPU an eighth of them, so
	 * its weights and gradients (and DDP's bucket copy) shrink by 7/8 of
	 * them at 2 bytes each; their AdamW moments, sharded by ZeRO-1 over the
	 * dp / ep ranks that hold the same experts, are X / 8 either way at dp
	 * 8 (ep 1: X over 8 ranks; ep 8: X / 8 over 1), and halve at dp 16. */
	struct model_config c;
	ck_assert_int_eq(model_config_builtin("deepseek-v3", &c), 0);
	const double X = 4.0 * 256 * 3 * 7168 * 2048;
	struct model_seq s1, s8;
	struct model_opts o1 = ds_opts(8, 1), o8 = ds_opts(8, 8);
	o1.precision = o8.precision = MODEL_PREC_PURE;   /* 2 bytes throughout */
	ck_assert_int_eq(model_build(&c, &o1, &s1, NULL, 0), 0);
	ck_assert_int_eq(model_build(&c, &o8, &s8, NULL, 0), 0);
	ck_assert_double_eq(s1.expert_params, X);
	ck_assert_double_eq(s8.expert_params, X / 8);
	ck_assert_double_eq_tol(s1.params - s8.params, X * 7 / 8, 1);
	struct model_memory m1, m8;
	model_memory(&c, &o1, &s1, &m1);
	model_memory(&c, &o8, &s8, &m8);
	ck_assert_double_eq_tol(m1.weights - m8.weights, 2 * X * 7 / 8, 16);
	ck_assert_double_eq_tol(m1.gradients - m8.gradients, 2 * 2 * X * 7 / 8, 16);
	ck_assert_double_eq_tol(m1.optimizer, m8.optimizer, 16);
	/* at uniform load a GPU's experts take its own T k rows either way
	 * (ep 1: T k / 256 for each of 256; ep 8: 8 T k / 256 for each of 32):
	 * the same activations */
	ck_assert_double_eq_tol(m1.activations, m8.activations, 16);
	double dense = s8.params - s8.expert_params;
	ck_assert_double_eq_tol(m8.optimizer, 2 * 2 * (dense / 8 + X / 8), 16);
	model_seq_release(&s8);
	struct model_opts o16 = ds_opts(16, 8);
	o16.precision = MODEL_PREC_PURE;
	ck_assert_int_eq(model_build(&c, &o16, &s8, NULL, 0), 0);
	model_memory(&c, &o16, &s8, &m8);
	ck_assert_double_eq_tol(m8.optimizer, 2 * 2 * (dense / 16 + X / 16), 16);
	model_seq_release(&s8);
	model_seq_release(&s1);
}
END_TEST

START_TEST(mla_training)
{
	/* DeepSeek-V3's attention in training: 128 heads of q/k 128 + 64 and
	 * v 128 dims, each head its own K and V; a causal 4096-token sequence
	 * attends 4096 x 4097 / 2 pairs: 2 (192 + 128) FLOPs per pair and head
	 * forward, 2 (3 x 192 + 2 x 128) backward.  V3's router scores by
	 * sigmoid (the expert bias added for the choice), V2's by softmax;
	 * the router stays out of FP8. */
	struct model_config c;
	ck_assert_int_eq(model_config_builtin("deepseek-v3", &c), 0);
	struct model_opts o = ds_opts(8, 8);
	o.fp8 = 1;
	struct model_seq s;
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	double pairs = 4096.0 * 4097 / 2;
	int fwd = 0, bwd = 0, sigmoid = 0, router = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct pred_kernel *k = &s.v[i].k;
		if (k->op == PRED_OP_ATTENTION && k->attn.impl != PRED_ATTN_NONE) {
			ck_assert_uint_eq(k->attn.heads, 128);
			ck_assert_uint_eq(k->attn.kv_heads, 128);
			ck_assert_uint_eq(k->attn.head_dim, 192);
			ck_assert_uint_eq(k->attn.head_dim_v, 128);
			double want = (k->attn.backward ? 2.0 * (3 * 192 + 2 * 128) : 2.0 * (192 + 128)) * 128 * pairs;
			ck_assert_double_eq_tol(k->flops, want, 1e-9 * want);
			if (k->attn.backward)
				bwd++;
			else
				fwd++;
		}
		if (k->name && strstr(k->name, "sigmoid_kernel"))
			sigmoid++;
		if (s.v[i].phase == MODEL_PH_FORWARD && k->op == PRED_OP_GEMM && k->n == 256) {
			ck_assert_int_eq(k->dtype, GPU_DT_BF16);
			router++;
		}
	}
	ck_assert_int_eq(fwd, 4);
	ck_assert_int_eq(bwd, 4);
	ck_assert_int_eq(sigmoid, 4);
	ck_assert_int_eq(router, 4);
	model_seq_release(&s);
	ck_assert_int_eq(model_config_builtin("deepseek-v2", &c), 0);
	o = ds_opts(8, 8);
	ck_assert_int_eq(model_build(&c, &o, &s, NULL, 0), 0);
	int softmax = 0;
	for (size_t i = 0; i < s.n; i++)
		softmax += s.v[i].phase == MODEL_PH_FORWARD && s.v[i].k.op == PRED_OP_SOFTMAX &&
			   s.v[i].k.n == 160;
	ck_assert_int_eq(softmax, 4);
	model_seq_release(&s);
}
END_TEST

START_TEST(mtp_module)
{
	/* --mtp 1 adds DeepSeek-V3's prediction module to the last stage: the
	 * 2h -> h projection, one more MLA + MoE layer (its MLA weights, 256 / 8
	 * routed experts of 3 x 7168 x 2048, the shared expert, the router),
	 * five norms of 7168 (the two inputs', the layer's two, the head's; the
	 * q and kv latents' 1536 and 512) and no embedding or head weights (the
	 * main model's, shared): one more attention call forward, one more LM
	 * head GEMM (129280 wide).  Off by default. */
	struct model_config c;
	ck_assert_int_eq(model_config_builtin("deepseek-v3", &c), 0);
	ck_assert_uint_eq(c.mtp_layers, 1);
	double h = 7168;
	double mla = h * 1536 + 1536.0 * 128 * 192 + h * (512 + 64) + 512.0 * 128 * (128 + 128) + 128.0 * 128 * h;
	double want = 2 * h * h + mla + 32 * 3 * h * 2048 + 3 * h * 2048 + h * 256 + 5 * h + 1536 + 512;
	struct model_seq s0, s1;
	struct model_opts o = ds_opts(8, 8);
	ck_assert_int_eq(model_build(&c, &o, &s0, NULL, 0), 0);
	o.mtp = 1;
	ck_assert_int_eq(model_build(&c, &o, &s1, NULL, 0), 0);
	ck_assert_double_eq_tol(s1.params - s0.params, want, 1);
	int attn[2] = { 0, 0 }, heads[2] = { 0, 0 };
	const struct model_seq *sv[2] = { &s0, &s1 };
	for (int j = 0; j < 2; j++)
		for (size_t i = 0; i < sv[j]->n; i++) {
			const struct model_kernel *k = &sv[j]->v[i];
			if (k->phase != MODEL_PH_FORWARD)
				continue;
			attn[j] += k->k.op == PRED_OP_ATTENTION;
			heads[j] += k->k.op == PRED_OP_GEMM && k->k.n == 129280;
		}
	ck_assert_int_eq(attn[1], attn[0] + 1);
	ck_assert_int_eq(heads[1], heads[0] + 1);
	model_seq_release(&s0);
	model_seq_release(&s1);
	struct model_config dense;
	ck_assert_int_eq(model_config_builtin("llama-3-8b", &dense), 0);
	o.pp = 1;
	ck_assert_int_eq(model_build(&dense, &o, &s1, NULL, 0), SURFER_EINVAL);
}
END_TEST

START_TEST(moe_ep_refusals)
{
	struct model_config c, dense;
	ck_assert_int_eq(model_config_builtin("deepseek-v3", &c), 0);
	ck_assert_int_eq(model_config_builtin("llama-3-8b", &dense), 0);
	struct model_seq s;
	char err[300];
	struct model_opts o = ds_opts(6, 3);          /* 256 experts % 3 */
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), SURFER_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "--ep 3"));
	o = ds_opts(8, 16);                           /* ep beyond dp */
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), SURFER_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "must divide --dp 8"));
	o = ds_opts(8, 8);                            /* FSDP1 has no expert group */
	o.zero = 3;
	o.pp = 1;
	o.fsdp = MODEL_FSDP_1;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), SURFER_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "only FSDP2"));
	o = ds_opts(8, 2);
	o.attention = MODEL_ATTN_SDPA;                /* MLA is fused attention */
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), SURFER_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "--attention flash"));
	o = ds_opts(8, 2);
	o.pp = 1;
	ck_assert_int_eq(model_build(&dense, &o, &s, err, sizeof(err)), SURFER_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "has 0 experts"));
	/* engines: whole experts over the tensor-parallel GPUs */
	o = ds_opts(1, 4);
	o.mode = MODEL_DECODE;
	o.engine = MODEL_ENGINE_SGLANG;
	o.zero = 0;
	o.pp = 1;
	o.tp = 8;
	o.batch = 4;
	/* an engine has no optimizer: refused, then the ep rule */
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), SURFER_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "--optimizer is not an option of a serving engine"));
	o.optimizer = MODEL_OPTIM_NONE;
	/* nor clipping (zero_opts' no_grad_clip): refused the same way */
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), SURFER_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "--no-grad-clip is not an option of a serving engine"));
	o.no_grad_clip = 0;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), SURFER_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "--ep equal to --tp"));
	o.ep = 8;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	/* same weights as tensor-parallel experts: E / 8 whole ones */
	double ep_params = s.params;
	model_seq_release(&s);
	o.ep = 1;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	ck_assert_double_eq(s.params, ep_params);
	model_seq_release(&s);
	/* data-parallel attention (--dp 8 --tp 1 --ep 8): each GPU's 4 decode
	 * tokens x top 8 rows of 7168 BF16 values, 4 x 8 x 7168 x 2 = 458752
	 * bytes, dispatched and combined by all-to-all in each of the 58 MoE
	 * layers over the 8 GPUs */
	o.tp = 1;
	o.dp = 8;
	o.ep = 8;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	int a2a = 0;
	for (size_t i = 0; i < s.n; i++)
		if (s.v[i].phase == MODEL_PH_COMM && s.v[i].comm == COMM_ALL_TO_ALL) {
			ck_assert_double_eq(s.v[i].k.bytes, 458752.0);
			ck_assert_uint_eq(s.v[i].ranks, 8);
			a2a++;
		}
	ck_assert_int_eq(a2a, 2 * 58);
	model_seq_release(&s);
	o.dp = 4;                                     /* neither tp nor dp */
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), SURFER_EINVAL);
}
END_TEST

START_TEST(engine_mla_and_windows)
{
	/* DeepSeek-style MLA: a decode step of 2 sequences with 100 cached
	 * tokens caches one latent row (kv_lora 64 + rope 16) per token and
	 * layer: 2 layers x 202 x 80 x 2 bytes; its attention is the absorbed
	 * form, one KV head of 80 dims, values 64 wide.  The training and
	 * inference builder takes it with fused attention only. */
	static const char *mla =
		"{\"model_type\": \"deepseek_v3\", \"hidden_size\": 256, \"num_attention_heads\": 4,"
		" \"num_key_value_heads\": 4, \"num_hidden_layers\": 2, \"intermediate_size\": 512,"
		" \"moe_intermediate_size\": 64, \"n_routed_experts\": 8, \"n_shared_experts\": 1,"
		" \"num_experts_per_tok\": 2, \"first_k_dense_replace\": 1, \"q_lora_rank\": 0,"
		" \"kv_lora_rank\": 64, \"qk_nope_head_dim\": 32, \"qk_rope_head_dim\": 16,"
		" \"v_head_dim\": 32, \"vocab_size\": 1000}";
	struct model_config c;
	char err[300];
	ck_assert_int_eq(model_config_parse(mla, "mla", &c, err, sizeof(err)), 0);
	ck_assert_uint_eq(c.kv_lora, 64);
	struct model_opts o;
	model_opts_init(&o);
	o.engine = MODEL_ENGINE_SGLANG;
	o.mode = MODEL_DECODE;
	o.dtype = GPU_DT_BF16;
	o.batch = 2;
	o.seq = 100;
	struct model_seq s;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	ck_assert_double_eq_tol(s.kv_cache_bytes, 2.0 * 202 * 80 * 2, 1e-6);
	int mla_calls = 0, grouped = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct pred_kernel *k = &s.v[i].k;
		if (k->op == PRED_OP_ATTENTION) {
			ck_assert_int_eq(k->attn.form, PRED_ATTN_MLA_DECODE);
			ck_assert_uint_eq(k->attn.kv_heads, 1);
			ck_assert_uint_eq(k->attn.head_dim, 80);
			ck_assert_uint_eq(k->attn.head_dim_v, 64);
			mla_calls++;
		}
		/* the routed experts only in layer 1 (layer 0 is dense) */
		if (k->op == PRED_OP_GEMM && k->batch > 1 && k->k == 256) {
			ck_assert_int_eq(s.v[i].layer, 1);
			grouped++;
		}
	}
	ck_assert_int_eq(mla_calls, 2);
	ck_assert_int_eq(grouped, 1);
	model_seq_release(&s);
	o.engine = MODEL_ENGINE_HF;
	o.mode = MODEL_INFERENCE;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), SURFER_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "--attention flash"));
	o.attention = MODEL_ATTN_FLASH;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	model_seq_release(&s);

	/* Gemma 2: layer 0 attends to the last 64 keys, layer 1 to all.  A
	 * 200-token prompt: layer 0's pairs are the causal block of the first
	 * 64 queries (64 x 65 / 2) and 136 queries of 64 keys; layer 1's
	 * 200 x 201 / 2.  Layer 0's call is one sequence of 200 queries and
	 * keys with the window, as FlashAttention runs it (window_size_left
	 * 63), not 137 sequences.  A decode step of 2 sequences after 300
	 * tokens: layer 0 reads each one's last 64 keys (itself and 63
	 * cached), layer 1 all 301. */
	static const char *gemma =
		"{\"model_type\": \"gemma2\", \"hidden_size\": 256, \"num_attention_heads\": 4,"
		" \"num_key_value_heads\": 2, \"head_dim\": 64, \"num_hidden_layers\": 2,"
		" \"intermediate_size\": 512, \"vocab_size\": 1000, \"sliding_window\": 64,"
		" \"final_logit_softcapping\": 30.0, \"attn_logit_softcapping\": 50.0,"
		" \"hidden_activation\": \"gelu_pytorch_tanh\"}";
	ck_assert_int_eq(model_config_parse(gemma, "gemma", &c, err, sizeof(err)), 0);
	o.engine = MODEL_ENGINE_VLLM;
	o.mode = MODEL_PREFILL;
	o.batch = 1;
	o.seq = 200;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	double pairs[2] = { 0, 0 };
	for (size_t i = 0; i < s.n; i++) {
		const struct pred_attn *a = &s.v[i].k.attn;
		if (s.v[i].k.op != PRED_OP_ATTENTION)
			continue;
		pairs[s.v[i].layer] += a->pairs;
		ck_assert_uint_eq(a->seqs, 1);
		ck_assert_uint_eq(a->q_tokens, 200);
		ck_assert_uint_eq(a->kv_tokens, 200);
		ck_assert_uint_eq(a->window, s.v[i].layer == 0 ? 64 : 0);
	}
	ck_assert_double_eq_tol(pairs[0], 64.0 * 65 / 2 + 136.0 * 64, 1e-9);
	ck_assert_double_eq_tol(pairs[1], 200.0 * 201 / 2, 1e-9);
	model_seq_release(&s);
	o.mode = MODEL_DECODE;
	o.batch = 2;
	o.seq = 300;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	int calls = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct pred_attn *a = &s.v[i].k.attn;
		if (s.v[i].k.op != PRED_OP_ATTENTION)
			continue;
		calls++;
		uint64_t keys = s.v[i].layer == 0 ? 64 : 301;
		ck_assert_uint_eq(a->seqs, 2);
		ck_assert_uint_eq(a->kv_tokens, 2 * keys);
		ck_assert_uint_eq(a->max_kv, keys);
		ck_assert_double_eq_tol(a->pairs, 2.0 * keys, 1e-9);
	}
	ck_assert_int_eq(calls, 2);
	model_seq_release(&s);
}
END_TEST

/* Gemma 2 under Hugging Face's modules (transformers' Gemma2DecoderLayer,
 * eager_attention_forward, Gemma2ForCausalLM), two layers, layer 0 local
 * (64 keys), a 200-token sequence in BF16 training:
 *   - four RMSNorms a layer (input, post-attention, pre- and
 *     post-feedforward) and the final one: 9 rsqrt kernels of 200 rows;
 *   - tanh soft-capping of every score (eager) and of the logits: 3 tanh
 *     kernels forward, 3 tanh_backward, the logits' of 200 x 1000;
 *   - the embeddings times sqrt(hidden): a product of 200 x 256 outside the
 *     layers;
 *   - --attention flash: layer 0's call has the window (its pairs those of
 *     the engines' test above), layer 1's is causal over every key; SDPA:
 *     layer 0's float mask takes the memory-efficient backend over all
 *     200 x 200 pairs, one mask head, layer 1 the flash backend, causal;
 *   - decode (Hugging Face's HybridCache) and --cp are refused. */
/* A config of JSON text parsed into c, and o a BF16 training step of one
 * sequence of seq tokens. */
static void bf16_step(const char *json, const char *name, uint32_t seq, struct model_config *c,
		      struct model_opts *o)
{
	char err[256];
	ck_assert_msg(model_config_parse(json, name, c, err, sizeof(err)) == 0, "%s", err);
	model_opts_init(o);
	o->batch = 1;
	o->seq = seq;
	o->dtype = GPU_DT_BF16;
	o->mode = MODEL_TRAINING;
}

/* Hugging Face's eager RMSNorm computes in FP32 (hidden_states.to(
 * torch.float32)) and its Llama-family eager attention takes the softmax
 * in FP32: in a BF16 model those kernels move 4 bytes an element, the
 * casts into and out of FP32 2 + 4.  Gemma's norm adds (1 + weight) in
 * FP32 and casts last; --norm fused is one kernel each way. */
static double bytes_per_elem(const struct model_kernel *k)
{
	return k->k.bytes / ((double)k->k.m * (double)k->k.n);
}

START_TEST(rmsnorm_fp32_internals)
{
	static const char *llama =
		"{\"model_type\": \"llama\", \"hidden_size\": 256, \"num_attention_heads\": 4,"
		" \"num_key_value_heads\": 4, \"num_hidden_layers\": 1, \"intermediate_size\": 512,"
		" \"vocab_size\": 1000}";
	static const char *gemma =
		"{\"model_type\": \"gemma\", \"hidden_size\": 256, \"num_attention_heads\": 4,"
		" \"num_key_value_heads\": 4, \"head_dim\": 64, \"num_hidden_layers\": 1,"
		" \"intermediate_size\": 512, \"vocab_size\": 1000}";
	struct model_config c;
	struct model_opts o;
	struct model_seq s;
	char err[256];
	const double n = 100.0 * 256;   /* one norm's elements */
	for (int dt = 0; dt < 2; dt++) {
		bf16_step(llama, "llama", 100, &c, &o);
		if (dt)
			o.dtype = GPU_DT_FP32;
		ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
		int pow = 0, casts = 0, xr = 0, wx = 0, mean = 0, smax = 0, scast = 0;
		for (size_t i = 0; i < s.n; i++) {
			const struct model_kernel *k = &s.v[i];
			if (k->phase != MODEL_PH_FORWARD)
				continue;
			double per = bytes_per_elem(k), rows_n = (double)k->k.m * k->k.n;
			if (strstr(k->k.name, "pow_tensor_scalar")) {
				pow++;
				ck_assert_double_eq_tol(per, 8.0, 1e-9);
			}
			if (strstr(k->k.name, "MeanOps")) {
				mean++;
				ck_assert_double_eq_tol(k->k.bytes, 4.0 * n, 1e-6);
			}
			if (!strcmp(k->k.name, "vectorized_elementwise_kernel<4, CopyFunctor>")) {
				if (rows_n == n) {
					casts++;
					ck_assert_double_eq_tol(per, 6.0, 1e-9);
				} else if (rows_n == 4.0 * 100 * 100) {
					scast++;        /* the probabilities back to BF16 */
					ck_assert_double_eq_tol(per, 6.0, 1e-9);
				}
			}
			if (!strcmp(k->k.name, "elementwise_kernel<128, 4, MulFunctor>") && rows_n == n) {
				if (per == 8.0)
					xr++;
				else if (per == (dt ? 8.0 : 4.0))
					wx++;
			}
			if (k->k.op == PRED_OP_SOFTMAX && k->layer == 0) {
				smax++;
				ck_assert_double_eq_tol(bytes_per_elem(k), dt ? 8.0 : 6.0, 1e-9);
			}
		}
		/* two norms in the layer, the final one */
		ck_assert_int_eq(pow, 3);
		ck_assert_int_eq(mean, 3);
		ck_assert_int_eq(casts, dt ? 0 : 6);
		ck_assert_int_eq(scast, dt ? 0 : 1);
		ck_assert_int_eq(smax, 1);
		if (dt) {
			ck_assert_int_eq(xr + wx, 6);   /* FP32 both */
		} else {
			ck_assert_int_eq(xr, 3);
			ck_assert_int_eq(wx, 3);
		}
		model_seq_release(&s);
	}

	/* Gemma: (1 + weight) over the weight's 256 elements, its cast from
	 * BF16, the product FP32, in each of the three norms */
	bf16_step(gemma, "gemma", 100, &c, &o);
	ck_assert(c.norm_unit_offset);
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	int one_plus = 0, wcast = 0, fp32_mul = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct model_kernel *k = &s.v[i];
		if (k->phase != MODEL_PH_FORWARD || (k->k.m * k->k.n != 256 && k->k.m * k->k.n != 100 * 256))
			continue;
		if (k->k.m * k->k.n == 256 && strstr(k->k.name, "AddFunctor"))
			one_plus += bytes_per_elem(k) == 8.0;
		if (k->k.m * k->k.n == 256 && strstr(k->k.name, "CopyFunctor"))
			wcast += bytes_per_elem(k) == 6.0;
		if (k->k.m * k->k.n == 100 * 256 && !strcmp(k->k.name, "elementwise_kernel<128, 4, MulFunctor>"))
			fp32_mul += bytes_per_elem(k) == 8.0;
	}
	ck_assert_int_eq(one_plus, 3);
	ck_assert_int_eq(wcast, 3);
	ck_assert_int_eq(fp32_mul, 6);  /* x * r and the (1 + weight) product */
	model_seq_release(&s);

	/* --norm fused: one kernel forward reading x and writing y (2 + 2
	 * bytes an element, 4 a row for the reciprocal), one backward and
	 * the weight's partial sums; no eager chain */
	ck_assert_int_eq(model_config_parse(llama, "llama", &c, err, sizeof(err)), 0);
	o.fused_norm = 1;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	int fwd = 0, bwd = 0, eager = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct model_kernel *k = &s.v[i];
		if (!strcmp(k->k.name, "rms_norm_fwd_fused")) {
			fwd++;
			ck_assert_double_eq_tol(k->k.bytes, 4.0 * n + 4.0 * 100, 1e-6);
		}
		bwd += !strcmp(k->k.name, "rms_norm_bwd_fused");
		eager += strstr(k->k.name, "pow_tensor_scalar") || strstr(k->k.name, "rsqrt");
	}
	ck_assert_int_eq(fwd, 3);
	ck_assert_int_eq(bwd, 3);
	ck_assert_int_eq(eager, 0);
	model_seq_release(&s);
}
END_TEST

/* --liger: Liger's kernels in the Hugging Face modules.  A Llama of 2
 * layers, hidden 256, 4 heads and 2 KV heads of 64, FFN 512, vocabulary
 * 1000, 100 tokens in BF16: each RMSNorm one kernel; q and k rotated by
 * one kernel in place (2 x 100 x (4 + 2) x 64 elements moved, again in
 * backward); act(gate) * up one kernel reading two tensors and writing
 * one, its backward reading three and writing two; the head's GEMMs and
 * the loss in forward, in chunks of next_pow2(ceil(100 / ceil(1000 /
 * 256))) = 32 tokens (32, 32, 32 and 4), no GEMM of the vocabulary in
 * backward, and no logits held. */
START_TEST(liger_kernels)
{
	static const char *llama =
		"{\"model_type\": \"llama\", \"hidden_size\": 256, \"num_attention_heads\": 4,"
		" \"num_key_value_heads\": 2, \"num_hidden_layers\": 2, \"intermediate_size\": 512,"
		" \"vocab_size\": 1000}";
	struct model_config c;
	struct model_opts o;
	struct model_seq s;
	char err[256];
	bf16_step(llama, "llama", 100, &c, &o);
	o.optimizer = MODEL_OPTIM_ADAMW;
	o.loss = 1;
	o.liger = o.fused_norm = 1;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	int norms = 0, rope_f = 0, rope_b = 0, glu_f = 0, glu_b = 0, ce = 0, vocab_bwd = 0, eager = 0;
	uint64_t ce_rows = 0;
	const double qk = 100.0 * (4 + 2) * 64, mf = 100.0 * 512;
	for (size_t i = 0; i < s.n; i++) {
		const struct model_kernel *k = &s.v[i];
		int fwd = k->phase == MODEL_PH_FORWARD, bwd = k->phase == MODEL_PH_BACKWARD;
		norms += fwd && !strcmp(k->k.name, "rms_norm_fwd_fused");
		if (!strcmp(k->k.name, "_triton_rope")) {
			rope_f += fwd;
			rope_b += bwd;
			ck_assert_double_eq_tol(k->k.bytes, 2 * qk * 2, 1e-6);
		}
		if (fwd && !strcmp(k->k.name, "_swiglu_forward_kernel")) {
			glu_f++;
			ck_assert_double_eq_tol(k->k.bytes, 3 * mf * 2, 1e-6);
		}
		if (bwd && !strcmp(k->k.name, "_swiglu_backward_kernel")) {
			glu_b++;
			ck_assert_double_eq_tol(k->k.bytes, 5 * mf * 2, 1e-6);
		}
		if (!strcmp(k->k.name, "liger_cross_entropy_kernel")) {
			ck_assert(fwd);
			ce++;
			ce_rows += k->k.m;
			ck_assert_uint_eq(k->k.n, 1000);
			ck_assert(k->k.m == 32 || k->k.m == 4);
		}
		vocab_bwd += bwd && k->k.op == PRED_OP_GEMM &&
			     (k->k.m == 1000 || k->k.n == 1000 || k->k.k == 1000);
		eager += strstr(k->k.name, "pow_tensor_scalar") || strstr(k->k.name, "silu_kernel") ||
			 strstr(k->k.name, "neg_kernel") || strstr(k->k.name, "LogSoftMax");
	}
	ck_assert_int_eq(norms, 5);
	ck_assert_int_eq(rope_f, 2);
	ck_assert_int_eq(rope_b, 2);
	ck_assert_int_eq(glu_f, 2);
	ck_assert_int_eq(glu_b, 2);
	ck_assert_int_eq(ce, 4);
	ck_assert_uint_eq(ce_rows, 100);
	ck_assert_int_eq(vocab_bwd, 0);
	ck_assert_int_eq(eager, 0);
	model_seq_release(&s);
	/* memory without an optimizer step's own transient: without Liger
	 * the logits (100 x 1000 x 2 bytes) held and log_softmax's FP32
	 * output beside them, their gradients (FP32, and cast to BF16: 3 x
	 * the logits) at the start of backward; with it a chunk's logits (32
	 * x 1000).  After the head's backward, the last layer's: its eager
	 * attention's two FP32 score gradients (2 x 4 heads x 100 x 100 x 4
	 * bytes) and the head's BF16 weight gradient (1000 x 256 x 2), less
	 * log_softmax's FP32 output, which goes with the head's backward
	 * (100 x 1000 x 4; none under Liger).  The transient is the larger
	 * of the two: 600000 without Liger (the start), 832000 with it. */
	o.optimizer = MODEL_OPTIM_NONE;
	struct model_memory with = mem_of(&c, &o);
	o.liger = o.fused_norm = 0;
	struct model_memory without = mem_of(&c, &o);
	double logits = 100.0 * 1000 * 2, scores = 2 * 4 * 100.0 * 100 * 4, wgrad = 1000.0 * 256 * 2;
	double start = 3 * logits, after_head = scores + wgrad - 2 * logits;
	ck_assert_double_eq_tol(without.transient, start > after_head ? start : after_head, 1e-6);
	ck_assert_double_eq_tol(with.transient, scores + wgrad, 1e-6);
	ck_assert_double_gt(with.transient, 32 * 1000 * 2);
	ck_assert(without.activations - with.activations >= 2 * 100.0 * 1000 * 2);

	/* what Liger does not patch, and where its loss cannot run */
	o.liger = 1;
	struct model_config g = gpt2_small();
	ck_assert_int_eq(model_build(&g, &o, &s, err, sizeof(err)), SURFER_EINVAL);
	ck_assert(strstr(err, "gated decoders"));
	o.tp = 2;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), SURFER_EINVAL);
	ck_assert(strstr(err, "no --tp"));
}
END_TEST

START_TEST(gemma_hf_layers)
{
	static const char *gemma =
		"{\"model_type\": \"gemma2\", \"hidden_size\": 256, \"num_attention_heads\": 4,"
		" \"num_key_value_heads\": 2, \"head_dim\": 64, \"num_hidden_layers\": 2,"
		" \"intermediate_size\": 512, \"vocab_size\": 1000, \"sliding_window\": 64,"
		" \"final_logit_softcapping\": 30.0, \"attn_logit_softcapping\": 50.0,"
		" \"hidden_activation\": \"gelu_pytorch_tanh\"}";
	struct model_config c;
	struct model_opts o;
	struct model_seq s;
	char err[256];
	bf16_step(gemma, "gemma", 200, &c, &o);
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	int rsqrt = 0, tanh_f = 0, tanh_b = 0, logits_tanh = 0, scaled = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct model_kernel *k = &s.v[i];
		if (k->phase == MODEL_PH_FORWARD && strstr(k->k.name, "rsqrt_kernel_cuda")) {
			rsqrt++;
			ck_assert(k->k.flops == 200.0);   /* a flop an element */
		}
		if (k->phase == MODEL_PH_FORWARD && strstr(k->k.name, "tanh_kernel_cuda")) {
			tanh_f++;
			logits_tanh += k->layer < 0 && k->k.flops == 4.0 * 200 * 1000;
		}
		if (k->phase == MODEL_PH_BACKWARD && strstr(k->k.name, "tanh_backward_kernel_cuda"))
			tanh_b++;
		if (k->phase == MODEL_PH_FORWARD && k->layer < 0 &&
		    !strcmp(k->k.name, "vectorized_elementwise_kernel<4, MulFunctor>") &&
		    k->k.flops == 200.0 * 256)
			scaled++;
	}
	ck_assert_int_eq(rsqrt, 9);
	ck_assert_int_eq(tanh_f, 3);
	ck_assert_int_eq(tanh_b, 3);
	ck_assert_int_eq(logits_tanh, 1);
	ck_assert_int_eq(scaled, 1);
	model_seq_release(&s);

	o.attention = MODEL_ATTN_FLASH;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	int calls = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct pred_attn *a = &s.v[i].k.attn;
		if (s.v[i].k.op != PRED_OP_ATTENTION || a->backward)
			continue;
		calls++;
		ck_assert(a->causal);
		ck_assert_uint_eq(a->window, s.v[i].layer == 0 ? 64 : 0);
		ck_assert_double_eq_tol(a->pairs, s.v[i].layer == 0 ? 64.0 * 65 / 2 + 136.0 * 64
								     : 200.0 * 201 / 2, 1e-9);
	}
	ck_assert_int_eq(calls, 2);
	model_seq_release(&s);

	o.attention = MODEL_ATTN_SDPA;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	calls = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct pred_attn *a = &s.v[i].k.attn;
		if (s.v[i].k.op != PRED_OP_ATTENTION || a->backward)
			continue;
		calls++;
		ck_assert_int_eq(a->impl, s.v[i].layer == 0 ? PRED_ATTN_EFFICIENT : PRED_ATTN_FA2);
		ck_assert_int_eq(a->causal, s.v[i].layer != 0);
		ck_assert_uint_eq(a->bias_heads, s.v[i].layer == 0 ? 1 : 0);
		ck_assert_uint_eq(a->window, 0);
		ck_assert_double_eq_tol(a->pairs, s.v[i].layer == 0 ? 200.0 * 200 : 200.0 * 201 / 2, 1e-9);
	}
	ck_assert_int_eq(calls, 2);
	model_seq_release(&s);

	o.mode = MODEL_DECODE;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), SURFER_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "HybridCache"));
	o.mode = MODEL_TRAINING;
	o.cp = 2;
	o.dp = 2;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), SURFER_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "--cp"));
}
END_TEST

/* gpt-oss under Hugging Face's modules in training (transformers'
 * GptOssAttention's eager_attention_forward with sinks, GptOssTopKRouter,
 * GptOssExperts' training loop): two layers (layer 0 banded), 4 experts,
 * 2 a token, 100 tokens, eager attention in BF16:
 *   - each layer's sink: the scores with one more column (cat of 4 heads
 *     x 100 rows x 101), the row max, the softmax over 101 columns, no
 *     cast after it (the softmax runs in the scores' dtype);
 *   - the router: top-k of the logits, softmax over k = 2 columns;
 *   - each expert of each layer: two clamps, one sigmoid; forward
 *     8 sigmoids, backward 8 sigmoid_backward;
 *   - decode refused (its window caches). */
START_TEST(gpt_oss_hf_layers)
{
	static const char *oss =
		"{\"model_type\": \"gpt_oss\", \"hidden_size\": 128, \"num_attention_heads\": 4,"
		" \"num_key_value_heads\": 2, \"head_dim\": 32, \"num_hidden_layers\": 2,"
		" \"intermediate_size\": 128, \"vocab_size\": 1000, \"sliding_window\": 16,"
		" \"num_local_experts\": 4, \"experts_per_token\": 2, \"attention_bias\": true,"
		" \"layer_types\": [\"sliding_attention\", \"full_attention\"]}";
	struct model_config c;
	struct model_opts o;
	struct model_seq s;
	char err[256];
	bf16_step(oss, "oss", 100, &c, &o);
	ck_assert(c.oss && c.experts == 4 && c.experts_per_tok == 2 && !c.hf_refusal[0]);
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), 0);
	int cats = 0, softmax101 = 0, softmax_k = 0, clamps = 0, sig_f = 0, sig_b = 0;
	for (size_t i = 0; i < s.n; i++) {
		const struct model_kernel *k = &s.v[i];
		if (k->phase == MODEL_PH_BACKWARD && strstr(k->k.name, "sigmoid_backward_kernel_cuda"))
			sig_b++;
		if (k->phase != MODEL_PH_FORWARD || k->layer < 0)
			continue;
		if (strstr(k->k.name, "CatArrayBatchedCopy") && k->k.m * k->k.n == 4 * 100 * 101)
			cats++;
		if (k->k.op == PRED_OP_SOFTMAX && k->k.n == 101 && k->k.m == 400)
			softmax101++;
		if (k->k.op == PRED_OP_SOFTMAX && k->k.n == 2 && k->k.m == 100)
			softmax_k++;
		clamps += strstr(k->k.name, "clamp_max_scalar_kernel") || strstr(k->k.name, "clamp_scalar_kernel");
		sig_f += strstr(k->k.name, "sigmoid_kernel_cuda") != NULL;
	}
	ck_assert_int_eq(cats, 2);
	ck_assert_int_eq(softmax101, 2);
	ck_assert_int_eq(softmax_k, 2);
	ck_assert_int_eq(clamps, 2 * 2 * 4);
	ck_assert_int_eq(sig_f, 2 * 4);
	ck_assert_int_eq(sig_b, 2 * 4);
	model_seq_release(&s);
	o.mode = MODEL_DECODE;
	ck_assert_int_eq(model_build(&c, &o, &s, err, sizeof(err)), SURFER_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "gpt-oss's window caches"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("model");
	TCase *t = tcase_create("core");
	tcase_add_test(t, builtin_names_distinct);
	tcase_add_test(t, parse_aliases);
	tcase_add_test(t, glm_moe);
	tcase_add_test(t, llama4_moe);
	tcase_add_test(t, lora_adapters);
	tcase_add_test(t, gpt2_layer_flops);
	tcase_add_test(t, gpt2_layer_kernels);
	tcase_add_test(t, flash_attention_calls);
	tcase_add_test(t, pp_partition);
	tcase_add_test(t, backward_is_twice_forward);
	tcase_add_test(t, kernel_limit);
	tcase_add_test(t, classify_head);
	tcase_add_test(t, gpt2_params);
	tcase_add_test(t, llama_gqa_shapes);
	tcase_add_test(t, parse_configs);
	tcase_add_test(t, mixtral_and_gemma);
	tcase_add_test(t, gemma_hf_layers);
	tcase_add_test(t, rmsnorm_fp32_internals);
	tcase_add_test(t, liger_kernels);
	tcase_add_test(t, gpt_oss_hf_layers);
	tcase_add_test(t, nonzero_waits);
	tcase_add_test(t, load_config_file);
	tcase_add_test(t, collective_sizes);
	tcase_add_test(t, sequence_parallel);
	tcase_add_test(t, collective_times);
	tcase_add_test(t, bridged_pairs_cross_pcie);
	tcase_add_test(t, nvls_on_hopper_boards);
	tcase_add_test(t, allreduce_across_nodes);
	tcase_add_test(t, nvl72_domain_spans_hosts);
	tcase_add_test(t, custom_allreduce);
	tcase_add_test(t, comm_params_set);
	tcase_add_test(t, group_placement);
	tcase_add_test(t, fsdp_over_cp);
	tcase_add_test(t, fp32_main_grad);
	tcase_add_test(t, place_on_nodes);
	tcase_add_test(t, hsdp_collectives);
	tcase_add_test(t, context_parallel);
	tcase_add_test(t, optimizer_traffic);
	tcase_add_test(t, adamw_8bit);
	tcase_add_test(t, loss_kernels);
	tcase_add_test(t, replay);
	tcase_add_test(t, cpu_cost_per_stack);
	tcase_add_test(t, decode_step);
	tcase_add_test(t, bad_options);
	tcase_add_test(t, mask_reread_per_head);
	tcase_add_test(t, memory_layer_megatron);
	tcase_add_test(t, memory_layer_opt);
	tcase_add_test(t, memory_state_and_peak);
	tcase_add_test(t, memory_parallel);
	tcase_add_test(t, memory_decode);
	tcase_add_test(t, memory_llama_layer);
	tcase_add_test(t, memory_zero);
	tcase_add_test(t, memory_grads_kept);
	tcase_add_test(t, memory_backward_after_head);
	tcase_add_test(t, memory_t5_position_bias);
	tcase_add_test(t, memory_mixed);
	tcase_add_test(t, memory_te_layer);
	tcase_add_test(t, memory_compile_layer);
	tcase_add_test(t, memory_fused_rmsnorm);
	tcase_add_test(t, memory_sequence_parallel);
	tcase_add_test(t, memory_grad_fp32);
	tcase_add_test(t, zero_collectives);
	tcase_add_test(t, fsdp_copies);
	tcase_add_test(t, zero_waits);
	tcase_add_test(t, act_ckpt_recompute);
	tcase_add_test(t, grad_accum_steps);
	tcase_add_test(t, stack_fusion);
	tcase_add_test(t, autocast_casts);
	tcase_add_test(t, fp8_linears);
	tcase_add_test(t, fp8_te_casts);
	tcase_add_test(t, fp8_recipe_traffic);
	tcase_add_test(t, power_limit_target);
	tcase_add_test(t, fp8_gathers_and_graphs);
	tcase_add_test(t, engine_decode_step);
	tcase_add_test(t, engine_prefill_last_tokens);
	tcase_add_test(t, engine_mla_and_windows);
	tcase_add_test(t, moe_ep_dispatch);
	tcase_add_test(t, moe_fsdp_ep);
	tcase_add_test(t, moe_a2a_route_fp8_overlap);
	tcase_add_test(t, comm_routed_a2a);
	tcase_add_test(t, moe_ep_memory);
	tcase_add_test(t, mla_training);
	tcase_add_test(t, moe_ep_refusals);
	tcase_add_test(t, mtp_module);
	tcase_add_test(t, fp8_sp_gathers);
	tcase_add_test(t, tp_wgrad_overlap);
	tcase_add_test(t, te_fp8_qkv_bytes);
	tcase_add_test(t, offload_step);
	tcase_add_test(t, built_copies);
	suite_add_tcase(s, t);
	return check_run(s);
}
