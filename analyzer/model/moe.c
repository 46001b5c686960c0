/*
 * moe.c - mixture-of-experts load and MLA shapes shared by the builders
 * (moe.h).  DeepSeek-V2/V3's modules (modeling_deepseek.py; Megatron-Core's
 * multi_latent_attention.py and moe/ layers; SGLang's deepseek_v2.py) are
 * the reference for the shapes; the kernels each builder emits around them
 * are its own (model.c: training and Hugging Face-style inference; serve.c:
 * the engines).
 */
#include "analyzer/model/moe.h"
#include "analyzer/model/attn.h"

double mla_params(const struct model_config *c, double nh)
{
	double h = c->hidden, qd = nh * (c->qk_nope + c->qk_rope);
	double q = c->q_lora ? h * c->q_lora + (double)c->q_lora * qd : h * qd;
	return q + h * (c->kv_lora + c->qk_rope) + (double)c->kv_lora * nh * (c->qk_nope + c->v_dim) +
	       nh * c->v_dim * h;
}

void mla_attn_init(struct pred_attn *a, const struct model_config *c, uint32_t heads, int decode)
{
	if (decode)
		attention_init(a, PRED_ATTN_FLASH, PRED_ATTN_MLA_DECODE, 1, heads, 1, c->kv_lora + c->qk_rope,
			  c->kv_lora);
	else
		attention_init(a, PRED_ATTN_FLASH, PRED_ATTN_PREFILL, 1, heads, heads, c->qk_nope + c->qk_rope,
			  c->v_dim);
}

void moe_route_init(struct moe_route *r, const struct model_config *c, uint32_t ep, uint64_t T,
		    int dispatch, double esz)
{
	uint64_t E = c->experts > 1 ? c->experts : 1, K = c->experts_per_tok ? c->experts_per_tok : 1;
	if (!ep)
		ep = 1;
	r->experts = E;
	r->local = E / ep ? E / ep : 1;
	r->k = K;
	r->dispatch_bytes = 0;
	if (dispatch) {
		r->hit = r->local;
		r->rows = cdiv((uint64_t)ep * T * K, E);
		if (ep > 1)
			r->dispatch_bytes = (double)T * K * c->hidden * esz;
		return;
	}
	double miss = 1.0;
	for (uint64_t t = 0; t < T && miss > 1e-9; t++)
		miss *= 1.0 - (double)K / (double)E;
	uint64_t hit = (uint64_t)((double)r->local * (1.0 - miss) + 0.999);
	r->hit = hit < 1 ? 1 : hit > r->local ? r->local : hit;
	r->rows = cdiv(T * K * r->local / E, r->hit);
}
