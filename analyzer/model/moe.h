/*
 * moe.h - what the two builders share of mixture-of-experts layers and of
 * DeepSeek's multi-head latent attention (MLA): model.c's training and
 * inference step and serve.c's engines describe the same weights, the
 * same attention calls and the same routed load; this module says it once.
 * Internal to analyzer/model.
 */
#ifndef SURFER_MODEL_MOE_H
#define SURFER_MODEL_MOE_H

#include "analyzer/model/build.h"

/* MLA's projection weights of one layer with heads query heads (a GPU's
 * share under tensor parallelism; q_a and kv_a are whole on every GPU):
 * q through its low rank (q_a, q_b) or one q projection, kv_a (the latent
 * and the shared rope key), kv_b (each head's K nope part and V), o. */
double mla_params(const struct model_config *c, double heads);

/* Sets a to MLA's attention call of heads query heads: decode, the
 * absorbed form over the latent cache (one KV head of kv_lora + rope
 * dims, values kv_lora wide; FlashMLA's kernel); else the up-projected
 * form every prefill and training step runs (each head its own K and V,
 * q/k dims nope + rope, v_dim values).  Causal; no sequence added. */
void mla_attn_init(struct pred_attn *a, const struct model_config *c, uint32_t heads, int decode);

/* The routed load of one MoE layer on one GPU at uniform routing (each
 * token's top-k experts spread evenly over the E experts). */
struct moe_route {
	uint64_t experts;   /* routed experts of the layer, E                 */
	uint64_t local;     /* those this GPU holds: E / ep                   */
	uint64_t k;         /* experts per token                              */
	uint64_t hit;       /* of local, those some token reaches             */
	uint64_t rows;      /* token rows each of them takes (rounded up)     */
	double dispatch_bytes; /* training: one rank's all-to-all send buffer
				* (its T k routed token rows), bytes; 0 at ep 1 */
};

/* Fills r for T tokens of c under expert parallelism ep, rows of esz
 * bytes of `hidden` elements.  dispatch (training): each of the ep ranks
 * has its own T tokens and sends their T k rows to the experts' ranks, so
 * an expert takes ep T k / E rows, and every local expert is hit.  No
 * dispatch (engines): the T tokens are on every rank; a local expert is
 * reached with probability 1 - (1 - k / E)^T (the expected number hit),
 * and the T k local / E rows of this GPU go evenly to those. */
void moe_route_init(struct moe_route *r, const struct model_config *c, uint32_t ep, uint64_t T,
		    int dispatch, double esz);

#endif
