/*
 * arch_alias.h - decoder-only architectures built as the Llama family
 * (config.c): MPT, Falcon, StarCoder (GPTBigCode) and StarCoder2, BLOOM,
 * Nemotron, Phi, OLMo and OLMo 2, Granite, Cohere, InternLM2, StableLM and
 * GLM.  Their layers differ from Llama's in what builds no kernel of its
 * own here, or a kernel of the same cost (LayerNorm for RMSNorm, ALiBi or
 * partial rotary for rotary, attention and MLP side by side), and in what
 * the family's fields say (no gate projection, the activation, biases,
 * tied embeddings, one key/value head, learned positions).  Their configs
 * name the same sizes with keys of their own.
 *
 * Must never: guess a size (a key the architecture's own config class has
 * no default for stays absent, and config.c says which is missing), or
 * take an architecture in whose layers differ in cost (mixtures of
 * experts, sliding windows on some layers, state-space blocks): those are
 * refused by config.c as for any config.
 */
#ifndef SURFER_ARCH_ALIAS_H
#define SURFER_ARCH_ALIAS_H

#include <jansson.h>

/* What the family's keys cannot say: set on the parsed config after it. */
struct arch_alias_flags {
	int gated;              /* a gate projection (SwiGLU, GeGLU); 0: up, act, down */
	int learned_positions;  /* a learned table of max_position_embeddings rows */
	int qk_norm;            /* a norm over q and k (OLMo 2)                */
};

/* When root's model_type is one of the architectures above: *llama is a
 * new copy of root that names its sizes, activation, biases and tying with
 * Llama's keys (hidden_size, num_attention_heads, num_key_value_heads,
 * num_hidden_layers, intermediate_size, vocab_size, max_position_embeddings,
 * hidden_act, attention_bias, tie_word_embeddings), model_type "llama",
 * the rest of root kept; *f what those keys cannot say.  Returns 1 then,
 * 0 when root is none of them, -1 when out of memory, -2 when the config
 * lacks a size (*missing: its key as the architecture names it). */
int arch_alias(json_t *root, json_t **llama, struct arch_alias_flags *f, const char **missing);

/* The model_types taken, comma-separated, for an error message. */
const char *arch_alias_names(void);

#endif
