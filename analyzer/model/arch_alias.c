/*
 * arch_alias.c - the architectures config.c builds as the Llama family
 * (arch_alias.h): one row each, from the architecture's configuration
 * class in Hugging Face transformers (its keys and defaults) and its
 * modelling file (what a layer runs).
 */
#include "analyzer/model/arch_alias.h"

#include <string.h>
#include <strings.h>

typedef int (*alias_prep)(json_t *src, json_t *dst);

struct alias {
	const char *type;          /* model_type                                */
	/* its keys read as Llama's: pairs, its key then Llama's; NULL ends */
	const char *renames[12];
	int gated;
	const char *act_key;       /* its activation's key (NULL: hidden_act)    */
	const char *act;           /* the activation when the config names none */
	const char *bias_key;      /* whether its projections carry biases;
				    * NULL: always bias_default             */
	int bias_default, bias_negated;
	int tied_default;          /* tie_word_embeddings when absent           */
	int ffn_mult;              /* intermediate size = ffn_mult x hidden when
				    * the config gives none; 0: it must     */
	int learned_positions, qk_norm;
	alias_prep prep;           /* what the renames cannot say, or NULL     */
};

static int set_int(json_t *o, const char *key, json_int_t v)
{
	return json_object_set_new(o, key, json_integer(v));
}

static json_int_t int_or(json_t *o, const char *key, json_int_t def)
{
	json_t *v = json_object_get(o, key);
	return json_is_integer(v) ? json_integer_value(v) : def;
}

static int bool_or(json_t *o, const char *key, int def)
{
	json_t *v = json_object_get(o, key);
	return json_is_boolean(v) ? json_is_true(v) : def;
}

/* MPT (MptConfig, llm-foundry's): the MLP is expansion_ratio (4) times
 * d_model wide; attn_config may give kv_n_heads (grouped-query attention
 * in llm-foundry's configs; absent in Hugging Face's MptAttentionConfig:
 * every head has its own); its activation is ffn_config's ffn_act_fn,
 * exact GELU by default. */
static int mpt_prep(json_t *src, json_t *dst)
{
	json_t *ac = json_object_get(src, "attn_config"), *fc = json_object_get(src, "ffn_config");
	json_t *d = json_object_get(src, "d_model"), *r = json_object_get(src, "expansion_ratio");
	if (json_is_integer(d) && !json_object_get(dst, "intermediate_size")) {
		double ratio = json_is_number(r) ? json_number_value(r) : 4.0;
		if (ratio > 0 && ratio < 1024 &&
		    set_int(dst, "intermediate_size", (json_int_t)(ratio * (double)json_integer_value(d) + 0.5)))
			return -1;
	}
	if (json_is_object(ac) && json_is_integer(json_object_get(ac, "kv_n_heads")) &&
	    set_int(dst, "num_key_value_heads", json_integer_value(json_object_get(ac, "kv_n_heads"))))
		return -1;
	json_t *act = json_is_object(fc) ? json_object_get(json_object_get(fc, "ffn_act_fn"), "name") : NULL;
	if (json_is_string(act) && json_object_set(dst, "hidden_act", act))
		return -1;
	return 0;
}

/* Falcon: with new_decoder_architecture (40B, 180B) num_kv_heads key/value
 * heads; before it (7B) one when multi_query (the default), else every
 * head its own. */
static int falcon_prep(json_t *src, json_t *dst)
{
	json_int_t heads = int_or(dst, "num_attention_heads", 0), kv;
	if (bool_or(src, "new_decoder_architecture", 0))
		kv = int_or(src, "num_kv_heads", heads);
	else
		kv = bool_or(src, "multi_query", 1) ? 1 : heads;
	return kv > 0 ? set_int(dst, "num_key_value_heads", kv) : 0;
}

/* StarCoder (GPTBigCode): one key/value head when multi_query (the
 * default). */
static int bigcode_prep(json_t *src, json_t *dst)
{
	json_int_t heads = int_or(dst, "num_attention_heads", 0);
	return set_int(dst, "num_key_value_heads", bool_or(src, "multi_query", 1) ? 1 : heads);
}

/* StarCoder2: every layer attends to the last sliding_window (4096) keys;
 * like Mistral's window (config.c) it is not built: the layers attend to
 * every token, exact up to the window. */
static int starcoder2_prep(json_t *src, json_t *dst)
{
	(void)src;
	json_object_del(dst, "sliding_window");
	return 0;
}

/* act: the activation when the config names none; bias_key: whether the
 * projections carry biases (bias_default when absent; negated: the key
 * says there are none); ffn_mult: the MLP's width over hidden when the
 * config gives none */
static const struct alias aliases[] = {
	{ .type = "mpt", .renames = { "d_model", "hidden_size", "n_heads", "num_attention_heads", "n_layers",
				      "num_hidden_layers", "max_seq_len", "max_position_embeddings", NULL },
	  .act = "gelu", .bias_key = "no_bias", .bias_negated = 1, .tied_default = 1, .prep = mpt_prep },
	{ .type = "falcon", .renames = { "n_head", "num_attention_heads", "n_layer", "num_hidden_layers",
					 "ffn_hidden_size", "intermediate_size", NULL },
	  .act = "gelu", .bias_key = "bias", .tied_default = 1, .ffn_mult = 4, .prep = falcon_prep },
	{ .type = "RefinedWeb", .renames = { "n_head", "num_attention_heads", "n_layer", "num_hidden_layers", NULL },
	  .act = "gelu", .bias_key = "bias", .tied_default = 1, .ffn_mult = 4, .prep = falcon_prep },
	{ .type = "RefinedWebModel", .renames = { "n_head", "num_attention_heads", "n_layer", "num_hidden_layers",
						  NULL },
	  .act = "gelu", .bias_key = "bias", .tied_default = 1, .ffn_mult = 4, .prep = falcon_prep },
	{ .type = "gpt_bigcode", .renames = { "n_embd", "hidden_size", "n_head", "num_attention_heads", "n_layer",
					      "num_hidden_layers", "n_inner", "intermediate_size", "n_positions",
					      "max_position_embeddings", NULL },
	  .act_key = "activation_function", .act = "gelu_pytorch_tanh", .bias_default = 1, .tied_default = 1,
	  .ffn_mult = 4, .learned_positions = 1, .prep = bigcode_prep },
	{ .type = "starcoder2", .act = "gelu_pytorch_tanh", .bias_key = "use_bias", .bias_default = 1,
	  .tied_default = 1, .prep = starcoder2_prep },
	{ .type = "bloom", .renames = { "n_embed", "hidden_size", "n_head", "num_attention_heads", "n_layer",
					"num_hidden_layers", NULL },
	  .act = "gelu_pytorch_tanh", .bias_default = 1, .tied_default = 1, .ffn_mult = 4 },
	{ .type = "nemotron", .act = "relu2", .bias_key = "attention_bias" },
	{ .type = "phi", .act = "gelu_new", .bias_default = 1 },
	{ .type = "olmo", .gated = 1, .act = "silu", .bias_key = "attention_bias" },
	{ .type = "olmo2", .gated = 1, .act = "silu", .bias_key = "attention_bias", .qk_norm = 1 },
	{ .type = "granite", .gated = 1, .act = "silu", .bias_key = "attention_bias" },
	{ .type = "cohere", .gated = 1, .act = "silu", .bias_key = "attention_bias", .tied_default = 1 },
	{ .type = "internlm2", .gated = 1, .act = "silu", .bias_key = "bias", .bias_default = 1 },
	{ .type = "stablelm", .gated = 1, .act = "silu", .bias_key = "use_qkv_bias" },
	{ .type = "glm", .gated = 1, .act = "silu", .bias_key = "attention_bias", .bias_default = 1 },
	{ .type = "glm4", .gated = 1, .act = "silu", .bias_key = "attention_bias", .bias_default = 1 },
};

const char *arch_alias_names(void)
{
	return "mpt, falcon, gpt_bigcode, starcoder2, bloom, nemotron, phi, olmo, olmo2, granite, "
	       "cohere, internlm2, stablelm, glm, glm4";
}

int arch_alias(json_t *root, json_t **llama, struct arch_alias_flags *f, const char **missing)
{
	json_t *mt = json_object_get(root, "model_type");
	const struct alias *a = NULL;
	*llama = NULL;
	if (!json_is_string(mt))
		return 0;
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]) && !a; i++)
		if (!strcasecmp(json_string_value(mt), aliases[i].type))
			a = &aliases[i];
	if (!a)
		return 0;
	json_t *d = json_deep_copy(root);
	if (!d)
		return -1;
	int bad = json_object_set_new(d, "model_type", json_string("llama"));
	for (size_t i = 0; a->renames[i] && a->renames[i + 1]; i += 2) {
		json_t *v = json_object_get(root, a->renames[i]);
		if (v && !json_object_get(root, a->renames[i + 1]))
			bad |= json_object_set(d, a->renames[i + 1], v);
	}
	json_t *act = json_object_get(root, a->act_key ? a->act_key : "hidden_act");
	bad |= json_object_set_new(d, "hidden_act", json_is_string(act) ? json_copy(act)
								  : json_string(a->act));
	int bias = a->bias_key ? bool_or(root, a->bias_key, a->bias_negated ? !a->bias_default
									       : a->bias_default)
			       : a->bias_default;
	if (a->bias_key && a->bias_negated)
		bias = !bias;
	bad |= json_object_set_new(d, "attention_bias", json_boolean(bias));
	bad |= json_object_set_new(d, "tie_word_embeddings",
				   json_boolean(bool_or(root, "tie_word_embeddings", a->tied_default)));
	/* the key/value heads: an architecture that names none has one per
	 * head (the Llama default, num_attention_heads) unless prep says */
	if (a->prep && a->prep(root, d))
		bad = 1;
	json_int_t hidden = int_or(d, "hidden_size", 0);
	if (!json_object_get(d, "intermediate_size") && a->ffn_mult && hidden > 0)
		bad |= set_int(d, "intermediate_size", a->ffn_mult * hidden);
	if (bad) {
		json_decref(d);
		return -1;
	}
	/* the sizes: Llama's defaults are no other architecture's */
	static const char *const sizes[] = {
		"hidden_size", "num_attention_heads", "num_hidden_layers", "intermediate_size",
		"vocab_size",
	};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (!json_object_get(d, sizes[i])) {
			*missing = sizes[i];
			for (size_t j = 0; a->renames[j] && a->renames[j + 1]; j += 2)
				if (!strcmp(a->renames[j + 1], sizes[i]))
					*missing = a->renames[j];
			json_decref(d);
			return -2;
		}
	f->gated = a->gated;
	f->learned_positions = a->learned_positions;
	f->qk_norm = a->qk_norm;
	*llama = d;
	return 1;
}
