/*
 * config.c - model shapes from Hugging Face config.json files (jansson)
 * and a table of built-in models, plus the option parsers of --model.
 *
 * Keys follow transformers' configuration classes: GPT2Config (n_embd,
 * n_head, n_layer, n_inner), BertConfig / OPTConfig / LlamaConfig
 * (hidden_size, num_attention_heads, num_hidden_layers, intermediate_size or
 * ffn_dim, num_key_value_heads, head_dim), T5Config / SwitchTransformersConfig
 * (d_model, num_heads, d_kv, d_ff, num_layers, num_decoder_layers,
 * num_experts, encoder_sparse_step), MixtralConfig (num_local_experts,
 * num_experts_per_tok), GemmaConfig (hidden_activation, head_dim),
 * Phi3Config.  Absent keys take the class defaults.
 * The built-in figures are those of the published configs on the Hub
 * (GPT-3 from Brown et al. 2020, Table 2.1).
 */
#include "analyzer/model/model.h"
#include "analyzer/model/arch_alias.h"
#include "trace/editdist.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <jansson.h>

static void normalize(const char *in, char *out, size_t n)
{
	size_t j = 0;
	for (; *in && j + 1 < n; in++) {
		if (*in == '-' || *in == '_' || *in == '.' || *in == ' ')
			continue;
		out[j++] = (char)tolower((unsigned char)*in);
	}
	out[j] = 0;
}

/* ---- built-in table ----------------------------------------------------- */

struct builtin {
	const char *name;
	enum model_family fam;
	uint32_t layers, dec_layers, hidden, heads, kv_heads, head_dim, ffn, vocab, type_vocab;
	enum model_act act;
	int gated, qkv_bias, tied;
	uint32_t experts, sparse_step;
	double dropout, attn_dropout;
	uint32_t positions;   /* max_position_embeddings (n_positions): the
			       * learned table's rows of GPT-2, BERT and OPT,
			       * a rotary model's context (its config.json);
			       * 0 unknown or relative */
};

static const struct builtin builtins[] = {
	{ "gpt2", MODEL_FAM_GPT2, 12, 0, 768, 12, 12, 64, 3072, 50257, 0, MODEL_ACT_GELU_NEW, 0, 1, 1, 0, 0, 0.1, 0.1, 1024 },
	{ "gpt2-medium", MODEL_FAM_GPT2, 24, 0, 1024, 16, 16, 64, 4096, 50257, 0, MODEL_ACT_GELU_NEW, 0, 1, 1, 0, 0, 0.1, 0.1, 1024 },
	{ "gpt2-large", MODEL_FAM_GPT2, 36, 0, 1280, 20, 20, 64, 5120, 50257, 0, MODEL_ACT_GELU_NEW, 0, 1, 1, 0, 0, 0.1, 0.1, 1024 },
	{ "gpt2-xl", MODEL_FAM_GPT2, 48, 0, 1600, 25, 25, 64, 6400, 50257, 0, MODEL_ACT_GELU_NEW, 0, 1, 1, 0, 0, 0.1, 0.1, 1024 },
	{ "gpt3-xl", MODEL_FAM_GPT2, 24, 0, 2048, 16, 16, 128, 8192, 50257, 0, MODEL_ACT_GELU_NEW, 0, 1, 1, 0, 0, 0.1, 0.1, 2048 },
	{ "gpt3-2.7b", MODEL_FAM_GPT2, 32, 0, 2560, 32, 32, 80, 10240, 50257, 0, MODEL_ACT_GELU_NEW, 0, 1, 1, 0, 0, 0.1, 0.1, 2048 },
	{ "gpt3-6.7b", MODEL_FAM_GPT2, 32, 0, 4096, 32, 32, 128, 16384, 50257, 0, MODEL_ACT_GELU_NEW, 0, 1, 1, 0, 0, 0.1, 0.1, 2048 },
	{ "gpt3-13b", MODEL_FAM_GPT2, 40, 0, 5120, 40, 40, 128, 20480, 50257, 0, MODEL_ACT_GELU_NEW, 0, 1, 1, 0, 0, 0.1, 0.1, 2048 },
	/* GPT-3 175B (Brown et al. 2020, table 2.1: 96 layers, d_model 12288,
	 * 96 heads of 128, d_ff 4 d_model, 2048 tokens), the model of
	 * Megatron's and NeMo's gpt3_175b recipes */
	{ "gpt3-175b", MODEL_FAM_GPT2, 96, 0, 12288, 96, 96, 128, 49152, 50257, 0, MODEL_ACT_GELU_NEW, 0, 1, 1, 0, 0, 0.1, 0.1, 2048 },
	{ "bert-base", MODEL_FAM_BERT, 12, 0, 768, 12, 12, 64, 3072, 30522, 2, MODEL_ACT_GELU, 0, 1, 1, 0, 0, 0.1, 0.1, 512 },
	{ "bert-large", MODEL_FAM_BERT, 24, 0, 1024, 16, 16, 64, 4096, 30522, 2, MODEL_ACT_GELU, 0, 1, 1, 0, 0, 0.1, 0.1, 512 },
	{ "opt-1.3b", MODEL_FAM_OPT, 24, 0, 2048, 32, 32, 64, 8192, 50272, 0, MODEL_ACT_RELU, 0, 1, 1, 0, 0, 0.1, 0.0, 2048 },
	{ "opt-6.7b", MODEL_FAM_OPT, 32, 0, 4096, 32, 32, 128, 16384, 50272, 0, MODEL_ACT_RELU, 0, 1, 1, 0, 0, 0.1, 0.0, 2048 },
	{ "llama-2-7b", MODEL_FAM_LLAMA, 32, 0, 4096, 32, 32, 128, 11008, 32000, 0, MODEL_ACT_SILU, 1, 0, 0, 0, 0, 0.0, 0.0, 4096 },
	{ "llama-3-8b", MODEL_FAM_LLAMA, 32, 0, 4096, 32, 8, 128, 14336, 128256, 0, MODEL_ACT_SILU, 1, 0, 0, 0, 0, 0.0, 0.0, 8192 },
	/* meta-llama/Llama-3.1-8B, -70B and -405B config.json (rope_scaling:
	 * no kernel of its own; 3.1-8B's sizes are 3-8B's);
	 * mistralai/Mixtral-8x22B-v0.1 config.json */
	{ "llama-3.1-8b", MODEL_FAM_LLAMA, 32, 0, 4096, 32, 8, 128, 14336, 128256, 0, MODEL_ACT_SILU, 1, 0, 0, 0, 0, 0.0, 0.0, 131072 },
	{ "llama-3.1-70b", MODEL_FAM_LLAMA, 80, 0, 8192, 64, 8, 128, 28672, 128256, 0, MODEL_ACT_SILU, 1, 0, 0, 0, 0, 0.0, 0.0, 131072 },
	{ "llama-3.1-405b", MODEL_FAM_LLAMA, 126, 0, 16384, 128, 8, 128, 53248, 128256, 0, MODEL_ACT_SILU, 1, 0, 0, 0, 0, 0.0, 0.0, 131072 },
	/* meta-llama/Meta-Llama-3-70B (3.1-70B's sizes, 8192 positions),
	 * Llama-3.3-70B-Instruct (3.1-70B's config), Llama-2-13b-hf and
	 * Llama-2-70b-hf (GQA, 8 KV heads), Llama-3.2-3B (tied) config.json */
	{ "llama-3-70b", MODEL_FAM_LLAMA, 80, 0, 8192, 64, 8, 128, 28672, 128256, 0, MODEL_ACT_SILU, 1, 0, 0, 0, 0, 0.0, 0.0, 8192 },
	{ "llama-3.3-70b", MODEL_FAM_LLAMA, 80, 0, 8192, 64, 8, 128, 28672, 128256, 0, MODEL_ACT_SILU, 1, 0, 0, 0, 0, 0.0, 0.0, 131072 },
	{ "llama-2-13b", MODEL_FAM_LLAMA, 40, 0, 5120, 40, 40, 128, 13824, 32000, 0, MODEL_ACT_SILU, 1, 0, 0, 0, 0, 0.0, 0.0, 4096 },
	{ "llama-2-70b", MODEL_FAM_LLAMA, 80, 0, 8192, 64, 8, 128, 28672, 32000, 0, MODEL_ACT_SILU, 1, 0, 0, 0, 0, 0.0, 0.0, 4096 },
	{ "llama-3.2-3b", MODEL_FAM_LLAMA, 28, 0, 3072, 24, 8, 128, 8192, 128256, 0, MODEL_ACT_SILU, 1, 0, 1, 0, 0, 0.0, 0.0, 131072 },
	/* codellama/CodeLlama-34b-hf and 01-ai/Yi-34B config.json (Llama's
	 * modules, GQA with 8 KV heads) */
	{ "codellama-34b", MODEL_FAM_LLAMA, 48, 0, 8192, 64, 8, 128, 22016, 32000, 0, MODEL_ACT_SILU, 1, 0, 0, 0, 0, 0.0, 0.0, 16384 },
	{ "yi-34b", MODEL_FAM_LLAMA, 60, 0, 7168, 56, 8, 128, 20480, 64000, 0, MODEL_ACT_SILU, 1, 0, 0, 0, 0, 0.0, 0.0, 4096 },
	{ "mixtral-8x22b", MODEL_FAM_LLAMA, 56, 0, 6144, 48, 8, 128, 16384, 32768, 0, MODEL_ACT_SILU, 1, 0, 0, 8, 1, 0.0, 0.0, 65536 },
	{ "llama-3.2-1b", MODEL_FAM_LLAMA, 16, 0, 2048, 32, 8, 64, 8192, 128256, 0, MODEL_ACT_SILU, 1, 0, 1, 0, 0, 0.0, 0.0, 131072 },
	{ "mistral-7b", MODEL_FAM_LLAMA, 32, 0, 4096, 32, 8, 128, 14336, 32000, 0, MODEL_ACT_SILU, 1, 0, 0, 0, 0, 0.0, 0.0, 32768 },
	{ "qwen2-7b", MODEL_FAM_LLAMA, 28, 0, 3584, 28, 4, 128, 18944, 152064, 0, MODEL_ACT_SILU, 1, 1, 0, 0, 0, 0.0, 0.0, 0 },
	{ "mixtral-8x7b", MODEL_FAM_LLAMA, 32, 0, 4096, 32, 8, 128, 14336, 32000, 0, MODEL_ACT_SILU, 1, 0, 0, 8, 1, 0.0, 0.0, 32768 },
	{ "gemma-7b", MODEL_FAM_LLAMA, 28, 0, 3072, 16, 16, 256, 24576, 256000, 0, MODEL_ACT_GELU_TANH, 1, 0, 1, 0, 0, 0.0, 0.0, 8192 },
	{ "t5-base", MODEL_FAM_T5, 12, 12, 768, 12, 12, 64, 3072, 32128, 0, MODEL_ACT_RELU, 0, 0, 1, 0, 0, 0.1, 0.1, 0 },
	{ "t5-large", MODEL_FAM_T5, 24, 24, 1024, 16, 16, 64, 4096, 32128, 0, MODEL_ACT_RELU, 0, 0, 1, 0, 0, 0.1, 0.1, 0 },
	{ "switch-base-8", MODEL_FAM_T5, 12, 12, 768, 12, 12, 64, 3072, 32128, 0, MODEL_ACT_RELU, 0, 0, 1, 8, 2, 0.1, 0.1, 0 },
};

/*
 * Built-ins given as the keys of their published config.json (Hugging Face
 * Hub, the repository named beside each), parsed by the same fill() as a
 * config file: a name and the file it stands for build the same model,
 * local layers, q/k norms, soft-capping and experts included.  Only the
 * keys fill() reads are kept.  Qwen2.5-14B/32B and Qwen3-14B/32B are
 * checked against the configs in PipeWeave's data (tests/model_cli.sh,
 * when ../shared/data is there); every one's parameter count against its
 * model card.
 */
static const struct {
	const char *name;
	const char *json;
} json_builtins[] = {
	/* Qwen/Qwen3-0.6B ... Qwen3-32B: q/k norms, head_dim 128, no bias */
	{ "qwen3-0.6b", "{\"model_type\":\"qwen3\","
	  "\"max_position_embeddings\":40960,\"hidden_size\":1024,\"intermediate_size\":3072,"
	  "\"num_hidden_layers\":28,\"num_attention_heads\":16,\"num_key_value_heads\":8,\"head_dim\":128,"
	  "\"vocab_size\":151936,\"tie_word_embeddings\":true,\"hidden_act\":\"silu\"}" },
	{ "qwen3-1.7b", "{\"model_type\":\"qwen3\","
	  "\"max_position_embeddings\":40960,\"hidden_size\":2048,\"intermediate_size\":6144,"
	  "\"num_hidden_layers\":28,\"num_attention_heads\":16,\"num_key_value_heads\":8,\"head_dim\":128,"
	  "\"vocab_size\":151936,\"tie_word_embeddings\":true,\"hidden_act\":\"silu\"}" },
	{ "qwen3-4b", "{\"model_type\":\"qwen3\","
	  "\"max_position_embeddings\":40960,\"hidden_size\":2560,\"intermediate_size\":9728,"
	  "\"num_hidden_layers\":36,\"num_attention_heads\":32,\"num_key_value_heads\":8,\"head_dim\":128,"
	  "\"vocab_size\":151936,\"tie_word_embeddings\":true,\"hidden_act\":\"silu\"}" },
	{ "qwen3-8b", "{\"model_type\":\"qwen3\","
	  "\"max_position_embeddings\":40960,\"hidden_size\":4096,\"intermediate_size\":12288,"
	  "\"num_hidden_layers\":36,\"num_attention_heads\":32,\"num_key_value_heads\":8,\"head_dim\":128,"
	  "\"vocab_size\":151936,\"tie_word_embeddings\":false,\"hidden_act\":\"silu\"}" },
	{ "qwen3-14b", "{\"model_type\":\"qwen3\","
	  "\"max_position_embeddings\":40960,\"hidden_size\":5120,\"intermediate_size\":17408,"
	  "\"num_hidden_layers\":40,\"num_attention_heads\":40,\"num_key_value_heads\":8,\"head_dim\":128,"
	  "\"vocab_size\":151936,\"tie_word_embeddings\":false,\"hidden_act\":\"silu\"}" },
	{ "qwen3-32b", "{\"model_type\":\"qwen3\","
	  "\"max_position_embeddings\":40960,\"hidden_size\":5120,\"intermediate_size\":25600,"
	  "\"num_hidden_layers\":64,\"num_attention_heads\":64,\"num_key_value_heads\":8,\"head_dim\":128,"
	  "\"vocab_size\":151936,\"tie_word_embeddings\":false,\"hidden_act\":\"silu\"}" },
	/* Qwen/Qwen3-30B-A3B, Qwen3-235B-A22B: 128 experts, top 8, no
	 * shared expert, every layer sparse */
	{ "qwen3-30b-a3b", "{\"model_type\":\"qwen3_moe\","
	  "\"max_position_embeddings\":40960,\"hidden_size\":2048,\"intermediate_size\":6144,"
	  "\"moe_intermediate_size\":768,\"num_experts\":128,\"num_experts_per_tok\":8,"
	  "\"num_hidden_layers\":48,\"num_attention_heads\":32,\"num_key_value_heads\":4,\"head_dim\":128,"
	  "\"vocab_size\":151936,\"tie_word_embeddings\":false,\"hidden_act\":\"silu\"}" },
	{ "qwen3-235b-a22b", "{\"model_type\":\"qwen3_moe\","
	  "\"max_position_embeddings\":40960,\"hidden_size\":4096,\"intermediate_size\":12288,"
	  "\"moe_intermediate_size\":1536,\"num_experts\":128,\"num_experts_per_tok\":8,"
	  "\"num_hidden_layers\":94,\"num_attention_heads\":64,\"num_key_value_heads\":4,\"head_dim\":128,"
	  "\"vocab_size\":151936,\"tie_word_embeddings\":false,\"hidden_act\":\"silu\"}" },
	/* Qwen/Qwen2.5-7B ... 72B (Instruct alike): QKV bias, full attention
	 * (use_sliding_window false) */
	{ "qwen2.5-7b", "{\"model_type\":\"qwen2\",\"hidden_size\":3584,\"intermediate_size\":18944,"
	  "\"num_hidden_layers\":28,\"num_attention_heads\":28,\"num_key_value_heads\":4,"
	  "\"vocab_size\":152064,\"tie_word_embeddings\":false,\"use_sliding_window\":false,"
	  "\"hidden_act\":\"silu\"}" },
	{ "qwen2.5-14b", "{\"model_type\":\"qwen2\","
	  "\"max_position_embeddings\":32768,\"hidden_size\":5120,\"intermediate_size\":13824,"
	  "\"num_hidden_layers\":48,\"num_attention_heads\":40,\"num_key_value_heads\":8,"
	  "\"vocab_size\":152064,\"tie_word_embeddings\":false,\"use_sliding_window\":false,"
	  "\"hidden_act\":\"silu\"}" },
	{ "qwen2.5-32b", "{\"model_type\":\"qwen2\","
	  "\"max_position_embeddings\":32768,\"hidden_size\":5120,\"intermediate_size\":27648,"
	  "\"num_hidden_layers\":64,\"num_attention_heads\":40,\"num_key_value_heads\":8,"
	  "\"vocab_size\":152064,\"tie_word_embeddings\":false,\"use_sliding_window\":false,"
	  "\"hidden_act\":\"silu\"}" },
	{ "qwen2.5-72b", "{\"model_type\":\"qwen2\",\"hidden_size\":8192,\"intermediate_size\":29568,"
	  "\"num_hidden_layers\":80,\"num_attention_heads\":64,\"num_key_value_heads\":8,"
	  "\"vocab_size\":152064,\"tie_word_embeddings\":false,\"use_sliding_window\":false,"
	  "\"hidden_act\":\"silu\"}" },
	/* google/gemma-2-2b, -9b, -27b: local (4096) and global layers
	 * alternate, scores and logits soft-capped, tied embeddings */
	{ "gemma-2-2b", "{\"model_type\":\"gemma2\","
	  "\"max_position_embeddings\":8192,\"hidden_size\":2304,\"intermediate_size\":9216,"
	  "\"num_hidden_layers\":26,\"num_attention_heads\":8,\"num_key_value_heads\":4,\"head_dim\":256,"
	  "\"vocab_size\":256000,\"sliding_window\":4096,\"attn_logit_softcapping\":50.0,"
	  "\"final_logit_softcapping\":30.0,\"hidden_activation\":\"gelu_pytorch_tanh\"}" },
	{ "gemma-2-9b", "{\"model_type\":\"gemma2\","
	  "\"max_position_embeddings\":8192,\"hidden_size\":3584,\"intermediate_size\":14336,"
	  "\"num_hidden_layers\":42,\"num_attention_heads\":16,\"num_key_value_heads\":8,\"head_dim\":256,"
	  "\"vocab_size\":256000,\"sliding_window\":4096,\"attn_logit_softcapping\":50.0,"
	  "\"final_logit_softcapping\":30.0,\"hidden_activation\":\"gelu_pytorch_tanh\"}" },
	{ "gemma-2-27b", "{\"model_type\":\"gemma2\","
	  "\"max_position_embeddings\":8192,\"hidden_size\":4608,\"intermediate_size\":36864,"
	  "\"num_hidden_layers\":46,\"num_attention_heads\":32,\"num_key_value_heads\":16,\"head_dim\":128,"
	  "\"vocab_size\":256000,\"sliding_window\":4096,\"attn_logit_softcapping\":50.0,"
	  "\"final_logit_softcapping\":30.0,\"hidden_activation\":\"gelu_pytorch_tanh\"}" },
	/* google/gemma-3-1b-pt and the text_config of gemma-3-4b/12b/27b-pt:
	 * five local layers (window 512, else 1024) to one global, q/k norms */
	{ "gemma-3-1b", "{\"model_type\":\"gemma3_text\","
	  "\"max_position_embeddings\":32768,\"hidden_size\":1152,\"intermediate_size\":6912,"
	  "\"num_hidden_layers\":26,\"num_attention_heads\":4,\"num_key_value_heads\":1,\"head_dim\":256,"
	  "\"vocab_size\":262144,\"sliding_window\":512,\"sliding_window_pattern\":6,"
	  "\"hidden_activation\":\"gelu_pytorch_tanh\"}" },
	{ "gemma-3-4b", "{\"model_type\":\"gemma3_text\","
	  "\"max_position_embeddings\":131072,\"hidden_size\":2560,\"intermediate_size\":10240,"
	  "\"num_hidden_layers\":34,\"num_attention_heads\":8,\"num_key_value_heads\":4,\"head_dim\":256,"
	  "\"vocab_size\":262208,\"sliding_window\":1024,\"sliding_window_pattern\":6,"
	  "\"hidden_activation\":\"gelu_pytorch_tanh\"}" },
	{ "gemma-3-12b", "{\"model_type\":\"gemma3_text\","
	  "\"max_position_embeddings\":131072,\"hidden_size\":3840,\"intermediate_size\":15360,"
	  "\"num_hidden_layers\":48,\"num_attention_heads\":16,\"num_key_value_heads\":8,\"head_dim\":256,"
	  "\"vocab_size\":262208,\"sliding_window\":1024,\"sliding_window_pattern\":6,"
	  "\"hidden_activation\":\"gelu_pytorch_tanh\"}" },
	{ "gemma-3-27b", "{\"model_type\":\"gemma3_text\","
	  "\"max_position_embeddings\":131072,\"hidden_size\":5376,\"intermediate_size\":21504,"
	  "\"num_hidden_layers\":62,\"num_attention_heads\":32,\"num_key_value_heads\":16,\"head_dim\":128,"
	  "\"vocab_size\":262208,\"sliding_window\":1024,\"sliding_window_pattern\":6,"
	  "\"hidden_activation\":\"gelu_pytorch_tanh\"}" },
	/* deepseek-ai/DeepSeek-V3 and DeepSeek-V2: MLA (q and kv through low
	 * ranks), a dense MLP on the first first_k_dense_replace layers, then
	 * routed experts with shared ones; V3's router scores by sigmoid with
	 * an expert bias (noaux_tc) and its one multi-token-prediction module
	 * (built with --mtp only).  V3's only release stores its linears in
	 * FP8 with a scale per 128 x 128 block (its quantization_config), so
	 * the engines serve it in FP8 as they load that checkpoint; V2's is
	 * BF16. */
	{ "deepseek-v3", "{\"model_type\":\"deepseek_v3\",\"hidden_size\":7168,\"intermediate_size\":18432,"
	  "\"moe_intermediate_size\":2048,\"n_routed_experts\":256,\"n_shared_experts\":1,"
	  "\"num_experts_per_tok\":8,\"first_k_dense_replace\":3,\"moe_layer_freq\":1,"
	  "\"num_hidden_layers\":61,\"num_attention_heads\":128,\"num_key_value_heads\":128,"
	  "\"q_lora_rank\":1536,\"kv_lora_rank\":512,\"qk_nope_head_dim\":128,\"qk_rope_head_dim\":64,"
	  "\"v_head_dim\":128,\"vocab_size\":129280,\"topk_method\":\"noaux_tc\",\"scoring_func\":\"sigmoid\","
	  "\"norm_topk_prob\":true,\"num_nextn_predict_layers\":1,\"tie_word_embeddings\":false,"
	  "\"hidden_act\":\"silu\",\"max_position_embeddings\":163840,\"torch_dtype\":\"bfloat16\","
	  "\"quantization_config\":{\"quant_method\":\"fp8\",\"fmt\":\"e4m3\",\"activation_scheme\":\"dynamic\","
	  "\"weight_block_size\":[128,128]}}" },
	{ "deepseek-v2", "{\"model_type\":\"deepseek_v2\",\"hidden_size\":5120,\"intermediate_size\":12288,"
	  "\"moe_intermediate_size\":1536,\"n_routed_experts\":160,\"n_shared_experts\":2,"
	  "\"num_experts_per_tok\":6,\"first_k_dense_replace\":1,\"moe_layer_freq\":1,"
	  "\"num_hidden_layers\":60,\"num_attention_heads\":128,\"num_key_value_heads\":128,"
	  "\"q_lora_rank\":1536,\"kv_lora_rank\":512,\"qk_nope_head_dim\":128,\"qk_rope_head_dim\":64,"
	  "\"v_head_dim\":128,\"vocab_size\":102400,\"topk_method\":\"group_limited_greedy\","
	  "\"scoring_func\":\"softmax\",\"norm_topk_prob\":false,\"tie_word_embeddings\":false,"
	  "\"hidden_act\":\"silu\",\"max_position_embeddings\":163840,\"torch_dtype\":\"bfloat16\"}" },
	/* deepseek-ai/DeepSeek-V2-Lite: MLA without the query's compression
	 * (q_lora_rank null: q_proj straight from the hidden state), 64
	 * routed experts and 2 shared, 6 a token, the first layer dense */
	{ "deepseek-v2-lite", "{\"model_type\":\"deepseek_v2\",\"hidden_size\":2048,\"intermediate_size\":10944,"
	  "\"moe_intermediate_size\":1408,\"n_routed_experts\":64,\"n_shared_experts\":2,"
	  "\"num_experts_per_tok\":6,\"first_k_dense_replace\":1,\"moe_layer_freq\":1,"
	  "\"num_hidden_layers\":27,\"num_attention_heads\":16,\"num_key_value_heads\":16,"
	  "\"q_lora_rank\":null,\"kv_lora_rank\":512,\"qk_nope_head_dim\":128,\"qk_rope_head_dim\":64,"
	  "\"v_head_dim\":128,\"vocab_size\":102400,\"topk_method\":\"greedy\","
	  "\"scoring_func\":\"softmax\",\"norm_topk_prob\":false,\"tie_word_embeddings\":false,"
	  "\"hidden_act\":\"silu\",\"max_position_embeddings\":163840,\"torch_dtype\":\"bfloat16\"}" },
	/* zai-org/GLM-4.5 and GLM-4.5-Air: grouped-query attention (head_dim
	 * 128, 96 heads over a 5120 or 4096 model, biases on q, k and v; the
	 * 355B's per-head q and k norms), a dense MLP on the first
	 * first_k_dense_replace layers, then routed experts with a shared one,
	 * scored as DeepSeek-V3's (sigmoid with a correction bias): 355B and
	 * 106B parameters as their model cards give, the multi-token
	 * prediction layer not built */
	{ "glm-4.5", "{\"model_type\":\"glm4_moe\",\"hidden_size\":5120,\"intermediate_size\":12288,"
	  "\"moe_intermediate_size\":1536,\"n_routed_experts\":160,\"n_shared_experts\":1,"
	  "\"num_experts_per_tok\":8,\"first_k_dense_replace\":3,\"num_hidden_layers\":92,"
	  "\"num_attention_heads\":96,\"num_key_value_heads\":8,\"head_dim\":128,\"attention_bias\":true,"
	  "\"use_qk_norm\":true,\"partial_rotary_factor\":0.5,\"vocab_size\":151552,"
	  "\"num_nextn_predict_layers\":1,\"tie_word_embeddings\":false,\"hidden_act\":\"silu\","
	  "\"max_position_embeddings\":131072,\"torch_dtype\":\"bfloat16\"}" },
	{ "glm-4.5-air", "{\"model_type\":\"glm4_moe\",\"hidden_size\":4096,\"intermediate_size\":10944,"
	  "\"moe_intermediate_size\":1408,\"n_routed_experts\":128,\"n_shared_experts\":1,"
	  "\"num_experts_per_tok\":8,\"first_k_dense_replace\":1,\"num_hidden_layers\":46,"
	  "\"num_attention_heads\":96,\"num_key_value_heads\":8,\"head_dim\":128,\"attention_bias\":true,"
	  "\"use_qk_norm\":false,\"partial_rotary_factor\":0.5,\"vocab_size\":151552,"
	  "\"num_nextn_predict_layers\":1,\"tie_word_embeddings\":false,\"hidden_act\":\"silu\","
	  "\"max_position_embeddings\":131072,\"torch_dtype\":\"bfloat16\"}" },
	/* meta-llama/Llama-4-Scout-17B-16E and -Maverick-17B-128E: their
	 * text_config (the language model; the vision encoder runs only on
	 * images): 16 and 128 routed experts of 8192 and a shared one, top 1,
	 * on every layer (Scout) or every other (Maverick, the others a dense
	 * MLP of 16384); chunked attention of 8192 on three layers of four;
	 * 107.8B and 400.7B parameters built (the cards' 109B and 400B count
	 * the vision encoder) */
	{ "llama-4-scout", "{\"model_type\":\"llama4_text\",\"hidden_size\":5120,\"intermediate_size\":8192,"
	  "\"intermediate_size_mlp\":16384,\"num_hidden_layers\":48,\"num_attention_heads\":40,"
	  "\"num_key_value_heads\":8,\"head_dim\":128,\"num_local_experts\":16,\"num_experts_per_tok\":1,"
	  "\"interleave_moe_layer_step\":1,\"attention_chunk_size\":8192,\"use_qk_norm\":true,"
	  "\"vocab_size\":202048,\"tie_word_embeddings\":false,\"hidden_act\":\"silu\","
	  "\"max_position_embeddings\":10485760,\"torch_dtype\":\"bfloat16\"}" },
	{ "llama-4-maverick", "{\"model_type\":\"llama4_text\",\"hidden_size\":5120,\"intermediate_size\":8192,"
	  "\"intermediate_size_mlp\":16384,\"num_hidden_layers\":48,\"num_attention_heads\":40,"
	  "\"num_key_value_heads\":8,\"head_dim\":128,\"num_local_experts\":128,\"num_experts_per_tok\":1,"
	  "\"interleave_moe_layer_step\":2,\"attention_chunk_size\":8192,\"use_qk_norm\":false,"
	  "\"vocab_size\":202048,\"tie_word_embeddings\":false,\"hidden_act\":\"silu\","
	  "\"max_position_embeddings\":1048576,\"torch_dtype\":\"bfloat16\"}" },
	/* openai/gpt-oss-20b and -120b: Mixtral-style experts of
	 * intermediate_size, four a token, attention with biases and sinks,
	 * 128-token sliding windows on every other layer (layer_types starts
	 * sliding, full); the experts' weights MXFP4 (20.9B and 116.8B
	 * parameters, as their model cards give) */
	{ "gpt-oss-20b", "{\"model_type\":\"gpt_oss\",\"hidden_size\":2880,\"intermediate_size\":2880,"
	  "\"num_hidden_layers\":24,\"num_attention_heads\":64,\"num_key_value_heads\":8,\"head_dim\":64,"
	  "\"num_local_experts\":32,\"num_experts_per_tok\":4,\"vocab_size\":201088,"
	  "\"attention_bias\":true,\"tie_word_embeddings\":false,\"sliding_window\":128,"
	  "\"layer_types\":[\"sliding_attention\",\"full_attention\"],\"max_position_embeddings\":131072,"
	  "\"torch_dtype\":\"bfloat16\",\"quantization_config\":{\"quant_method\":\"mxfp4\"}}" },
	{ "gpt-oss-120b", "{\"model_type\":\"gpt_oss\",\"hidden_size\":2880,\"intermediate_size\":2880,"
	  "\"num_hidden_layers\":36,\"num_attention_heads\":64,\"num_key_value_heads\":8,\"head_dim\":64,"
	  "\"num_local_experts\":128,\"num_experts_per_tok\":4,\"vocab_size\":201088,"
	  "\"attention_bias\":true,\"tie_word_embeddings\":false,\"sliding_window\":128,"
	  "\"layer_types\":[\"sliding_attention\",\"full_attention\"],\"max_position_embeddings\":131072,"
	  "\"torch_dtype\":\"bfloat16\",\"quantization_config\":{\"quant_method\":\"mxfp4\"}}" },
};

#define NBUILTIN (sizeof(builtins) / sizeof(builtins[0]))
#define NJSON_BUILTIN (sizeof(json_builtins) / sizeof(json_builtins[0]))

const char *const *model_config_builtin_names(void)
{
	static const char *names[NBUILTIN + NJSON_BUILTIN + 1];
	for (size_t i = 0; i < NBUILTIN; i++)
		names[i] = builtins[i].name;
	for (size_t i = 0; i < NJSON_BUILTIN; i++)
		names[NBUILTIN + i] = json_builtins[i].name;
	names[NBUILTIN + NJSON_BUILTIN] = NULL;
	return names;
}

int model_config_builtin(const char *name, struct model_config *c)
{
	char want[64], have[64];
	normalize(name, want, sizeof(want));
	for (size_t i = 0; i < NBUILTIN; i++) {
		const struct builtin *b = &builtins[i];
		normalize(b->name, have, sizeof(have));
		if (strcmp(want, have) != 0)
			continue;
		memset(c, 0, sizeof(*c));
		snprintf(c->name, sizeof(c->name), "%s", b->name);
		c->family = b->fam;
		c->layers = b->layers;
		c->dec_layers = b->dec_layers;
		c->hidden = b->hidden;
		c->heads = b->heads;
		c->kv_heads = b->kv_heads;
		c->head_dim = b->head_dim;
		c->ffn = b->ffn;
		c->vocab = b->vocab;
		c->type_vocab = b->type_vocab;
		c->act = b->act;
		c->gated = b->gated;
		c->qkv_bias = b->qkv_bias;
		c->tied = b->tied;
		c->experts = b->experts;
		c->experts_per_tok = b->experts ? (b->fam == MODEL_FAM_T5 ? 1 : 2) : 0;
		c->sparse_step = b->sparse_step;
		/* SwitchTransformersConfig's default; Mixtral drops no token */
		c->capacity = b->experts && b->fam == MODEL_FAM_T5 ? 64 : 0;
		c->dropout = b->dropout;
		c->attn_dropout = b->attn_dropout;
		/* gemma-7b, the one Gemma row of this table */
		c->embed_scale = !strncmp(b->name, "gemma", 5);
		c->norm_unit_offset = c->embed_scale;
		/* GPT-2's n_positions, BERT's and OPT's max_position_embeddings
		 * (their published config.json; NeuSight's GPT-3 configs 2048),
		 * a learned table as fill() takes those families' to be; a
		 * rotary built-in's context where its config.json was read (a
		 * run past it warns, model_positions_check()) */
		c->max_positions = b->positions;
		c->learned_positions = b->positions && (b->fam == MODEL_FAM_GPT2 || b->fam == MODEL_FAM_BERT ||
							b->fam == MODEL_FAM_OPT);
		return 0;
	}
	for (size_t i = 0; i < NJSON_BUILTIN; i++) {
		normalize(json_builtins[i].name, have, sizeof(have));
		if (strcmp(want, have) == 0) {
			/* the reason hf refuses a Gemma 2/3 is written through err */
			char err[256];
			return model_config_parse(json_builtins[i].json, json_builtins[i].name, c, err,
						  sizeof(err));
		}
	}
	return SURFER_EUNKNOWN;
}

/* ---- config.json ------------------------------------------------------- */

/* An unsigned integer key, or def when absent/null; -1 when malformed. */
static int64_t get_uint(json_t *o, const char *key, int64_t def)
{
	json_t *v = json_object_get(o, key);
	if (!v || json_is_null(v))
		return def;
	if (json_is_integer(v)) {
		json_int_t x = json_integer_value(v);
		return x < 0 || x > (json_int_t)1 << 31 ? -1 : (int64_t)x;
	}
	if (json_is_real(v)) {
		double x = json_real_value(v);
		return x < 0 || x > 2147483648.0 || x != (double)(int64_t)x ? -1 : (int64_t)x;
	}
	return -1;
}

static double get_real(json_t *o, const char *key, double def)
{
	json_t *v = json_object_get(o, key);
	if (json_is_number(v)) {
		double x = json_number_value(v);
		return x >= 0 && x <= 1 ? x : def;
	}
	return def;
}

static const char *get_str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

static int get_bool(json_t *o, const char *key, int def)
{
	json_t *v = json_object_get(o, key);
	return json_is_boolean(v) ? json_is_true(v) : def;
}

static enum model_act parse_act(const char *s, enum model_act def)
{
	if (!s)
		return def;
	if (strstr(s, "gelu_new") || strstr(s, "gelu_fast"))
		return MODEL_ACT_GELU_NEW;
	if (strstr(s, "gelu_pytorch_tanh"))
		return MODEL_ACT_GELU_TANH;
	if (strstr(s, "gelu"))
		return MODEL_ACT_GELU;
	if (strstr(s, "relu"))
		return MODEL_ACT_RELU;
	if (strstr(s, "silu") || strstr(s, "swish"))
		return MODEL_ACT_SILU;
	return def;
}

/* The first architecture class the config names, NULL when none. */
static const char *arch_of(json_t *root)
{
	json_t *a = json_object_get(root, "architectures");
	if (json_is_array(a) && json_array_size(a) > 0 && json_is_string(json_array_get(a, 0)))
		return json_string_value(json_array_get(a, 0));
	return NULL;
}

/* A key that is set: present, not null, not false, not 0. */
static int is_set(json_t *root, const char *key)
{
	json_t *v = json_object_get(root, key);
	return v && !json_is_null(v) && !json_is_false(v) &&
	       !(json_is_number(v) && json_number_value(v) == 0);
}

/* Whether the string array at key holds an element containing what. */
static int array_has(json_t *root, const char *key, const char *what)
{
	json_t *a = json_object_get(root, key), *e;
	size_t i;
	if (!json_is_array(a))
		return 0;
	json_array_foreach(a, i, e) {
		if (json_is_string(e) && strstr(json_string_value(e), what))
			return 1;
		/* gpt_neo's attention_types: [[["global", "local"], 12]] */
		if (json_is_array(e) && json_array_size(e) && json_is_array(json_array_get(e, 0))) {
			json_t *in = json_array_get(e, 0), *x;
			size_t j;
			json_array_foreach(in, j, x)
				if (json_is_string(x) && strstr(json_string_value(x), what))
					return 1;
		}
	}
	return 0;
}

/*
 * What a config asks for that the builder has no kernels for, named in
 * err: a layer built without it would be another model's (a dense Qwen2
 * for Qwen2-MoE's 60 experts, Gemma 1 for Gemma 3's local attention), so
 * such configs are refused rather than built as their neighbour.
 *   - experts other than Mixtral's (num_local_experts, top-k routed) and
 *     Switch Transformers' (num_experts in a T5 stack): Qwen-MoE's
 *     num_experts with a shared expert, moe_intermediate_size (DeepSeek's
 *     n_routed_experts too, but fill() lets DeepSeek-V2/V3 through: the
 *     builder has their layers);
 *   - sliding-window (local) attention, except Mistral's, Mixtral's and
 *     Phi-3's: their Hugging Face modules compute every score and mask the
 *     far ones (eager and SDPA alike), the same kernels as full attention;
 *     Gemma 2 and 3 interleave local and global layers (layer_types,
 *     sliding_window_pattern) with more norms than a Llama layer has,
 *     GPT-Neo has "local" layers, Qwen2 uses a window when
 *     use_sliding_window is true;
 *   - soft-capped attention or logits (Gemma 2: tanh on every score).
 * SURFER_EUNKNOWN when one is found, else 0.
 */
static int unsupported(json_t *root, const char *mt, char *err, size_t errlen)
{
	const char *arch = arch_of(root), *who = arch ? arch : mt ? mt : "config";
	int t5 = mt && (!strcasecmp(mt, "switch_transformers") || !strcasecmp(mt, "t5") ||
			!strcasecmp(mt, "mt5"));
	/* Qwen3-MoE: every layer's MLP is num_experts routed experts of
	 * moe_intermediate_size, no shared expert (Qwen3MoeSparseMoeBlock) */
	int qwen3_moe = mt && !strcasecmp(mt, "qwen3_moe");
	static const char *const moe[] = {
		"num_experts", "n_routed_experts", "moe_intermediate_size",
		"shared_expert_intermediate_size",
	};
	for (size_t i = 0; i < sizeof(moe) / sizeof(moe[0]); i++)
		if (is_set(root, moe[i]) && !(t5 && !strcmp(moe[i], "num_experts")) &&
		    !(qwen3_moe && (!strcmp(moe[i], "num_experts") || !strcmp(moe[i], "moe_intermediate_size")))) {
			snprintf(err, errlen, "'%s': its mixture-of-experts layers (%s) are not built; "
				 "surfer builds Mixtral's, Switch's, Qwen2-MoE's, Qwen3-MoE's, "
				 "DeepSeek-V2/V3's and GLM-4.5's", who, moe[i]);
			return SURFER_EUNKNOWN;
		}
	int mistral = mt && (!strcasecmp(mt, "mistral") || !strcasecmp(mt, "mixtral") ||
			     !strcasecmp(mt, "phi3"));
	json_t *use = json_object_get(root, "use_sliding_window");
	const char *local = NULL;
	if (array_has(root, "layer_types", "sliding"))
		local = "layer_types";
	else if (is_set(root, "sliding_window_pattern"))
		local = "sliding_window_pattern";
	else if (array_has(root, "attention_types", "local") || array_has(root, "attention_layers", "local"))
		local = "attention_types";
	else if (!mistral && is_set(root, "sliding_window") && !json_is_false(use))
		local = "sliding_window";
	if (local) {
		char win[48] = "";
		json_t *w = json_object_get(root, "sliding_window");
		if (json_is_integer(w) && strcmp(local, "sliding_window"))
			snprintf(win, sizeof(win), "sliding_window %lld, ", (long long)json_integer_value(w));
		else if (json_is_integer(w))
			snprintf(win, sizeof(win), " %lld", (long long)json_integer_value(w));
		snprintf(err, errlen, "'%s': sliding-window attention (%s%s) is not built; surfer's "
			 "layers attend to every token", who, !strcmp(local, "sliding_window") ? local : win,
			 !strcmp(local, "sliding_window") ? win : local);
		return SURFER_EUNKNOWN;
	}
	static const char *const cap[] = { "attn_logit_softcapping", "final_logit_softcapping" };
	for (size_t i = 0; i < sizeof(cap) / sizeof(cap[0]); i++)
		if (is_set(root, cap[i])) {
			snprintf(err, errlen, "'%s': soft-capping (%s) is not built", who, cap[i]);
			return SURFER_EUNKNOWN;
		}
	return 0;
}

/* The family of a config: its model_type when it has one (an unknown
 * model_type is refused, not guessed from a class name that starts like a
 * known one: Qwen2MoeForCausalLM is no Qwen2), else its architecture class
 * when that is a known family's prefix followed by "For", "LMHead" or
 * "Model" (LlamaForCausalLM, GPT2LMHeadModel, BertModel). */
static int family_of(json_t *root, enum model_family *f)
{
	const char *mt = get_str(root, "model_type");
	const char *arch = arch_of(root);
	struct { const char *key; enum model_family f; } map[] = {
		{ "gpt2", MODEL_FAM_GPT2 }, { "gpt_neox", MODEL_FAM_GPT2 }, { "gptneox", MODEL_FAM_GPT2 },
		{ "gpt_neo", MODEL_FAM_GPT2 }, { "gptj", MODEL_FAM_GPT2 },
		{ "bert", MODEL_FAM_BERT }, { "roberta", MODEL_FAM_BERT },
		{ "opt", MODEL_FAM_OPT },
		{ "llama", MODEL_FAM_LLAMA }, { "mistral", MODEL_FAM_LLAMA }, { "qwen2", MODEL_FAM_LLAMA },
		{ "mixtral", MODEL_FAM_LLAMA }, { "gemma", MODEL_FAM_LLAMA }, { "gemma2", MODEL_FAM_LLAMA },
		{ "phi3", MODEL_FAM_LLAMA }, { "qwen3", MODEL_FAM_LLAMA }, { "qwen3_moe", MODEL_FAM_LLAMA },
		{ "qwen2_moe", MODEL_FAM_LLAMA }, { "deepseek_v2", MODEL_FAM_LLAMA },
		{ "deepseek_v3", MODEL_FAM_LLAMA }, { "gemma3_text", MODEL_FAM_LLAMA },
		{ "gpt_oss", MODEL_FAM_LLAMA }, { "glm4_moe", MODEL_FAM_LLAMA }, { "llama4_text", MODEL_FAM_LLAMA },
		{ "switch_transformers", MODEL_FAM_T5 }, { "t5", MODEL_FAM_T5 }, { "mt5", MODEL_FAM_T5 },
	};
	for (size_t i = 0; mt && i < sizeof(map) / sizeof(map[0]); i++)
		if (strcasecmp(mt, map[i].key) == 0) {
			*f = map[i].f;
			return 0;
		}
	if (arch && !mt) {
		struct { const char *prefix; enum model_family f; } am[] = {
			{ "GPT2", MODEL_FAM_GPT2 }, { "GPTNeoX", MODEL_FAM_GPT2 }, { "Bert", MODEL_FAM_BERT },
			{ "OPT", MODEL_FAM_OPT }, { "Llama", MODEL_FAM_LLAMA }, { "Mistral", MODEL_FAM_LLAMA },
			{ "Qwen2", MODEL_FAM_LLAMA }, { "Qwen3", MODEL_FAM_LLAMA }, { "Mixtral", MODEL_FAM_LLAMA }, { "Gemma", MODEL_FAM_LLAMA },
			{ "Phi3", MODEL_FAM_LLAMA }, { "GptOss", MODEL_FAM_LLAMA },
			{ "SwitchTransformers", MODEL_FAM_T5 }, { "T5", MODEL_FAM_T5 },
		};
		for (size_t i = 0; i < sizeof(am) / sizeof(am[0]); i++) {
			size_t n = strlen(am[i].prefix);
			const char *rest = arch + n;
			if (strncmp(arch, am[i].prefix, n) != 0 ||
			    (strncmp(rest, "For", 3) && strncmp(rest, "LMHead", 6) && strncmp(rest, "Model", 5)))
				continue;
			{
				*f = am[i].f;
				return 0;
			}
		}
	}
	return SURFER_EUNKNOWN;
}

/* llm-compressor's quantization_config (quant_method compressed-tensors,
 * the format of the quantized checkpoints vLLM's own releases ship): the
 * first of config_groups says what its Linear layers hold.  Integer
 * weights of 4 or 8 bits without activation quantization (W4A16, W8A16:
 * weights.num_bits, group_size, strategy group or channel, symmetric) are
 * served weight-only through Marlin, as AWQ and GPTQ are; FP8 weights with
 * FP8 activations (FP8-dynamic, W8A8) as an FP8 checkpoint; anything else
 * (INT8 W8A8, FP4) is left to the warning that its weights were built in
 * the activation dtype. */
static void compressed_tensors(json_t *quant, struct model_config *c)
{
	json_t *groups = json_object_get(quant, "config_groups");
	const char *key;
	json_t *g, *first = NULL;
	json_object_foreach(groups, key, g) {
		if (json_is_object(g)) {
			first = g;
			break;
		}
	}
	if (!first)
		return;
	json_t *w = json_object_get(first, "weights"), *a = json_object_get(first, "input_activations");
	if (!json_is_object(w))
		return;
	const char *wt = get_str(w, "type"), *at = json_is_object(a) ? get_str(a, "type") : NULL;
	int64_t bits = get_uint(w, "num_bits", 0), abits = json_is_object(a) ? get_uint(a, "num_bits", 0) : 0;
	if (wt && !strcasecmp(wt, "int") && !json_is_object(a) && (bits == 4 || bits == 8)) {
		const char *st = get_str(w, "strategy");
		int64_t gs = get_uint(w, "group_size", 0);
		c->quant_weight_only = 1;
		c->quant_bits = (uint32_t)bits;
		c->quant_group = st && !strcasecmp(st, "group") && gs > 0 && gs <= 1 << 20 ? (int32_t)gs : -1;
		c->quant_zeros = !get_bool(w, "symmetric", 1);
	} else if (wt && !strcasecmp(wt, "float") && bits == 8 && at && !strcasecmp(at, "float") &&
		   abits == 8) {
		c->quant_fp8 = 1;
	}
}

/* The period of local and global layers that layer_types gives (Gemma 2/3,
 * gpt-oss: the local ones first, the first "full_attention" one ends a
 * period), else def. */
static int64_t full_layer_period(json_t *root, int64_t def)
{
	json_t *lt = json_object_get(root, "layer_types"), *e;
	size_t li;
	if (json_is_array(lt))
		json_array_foreach(lt, li, e)
			if (json_is_string(e) && strstr(json_string_value(e), "full"))
				return (int64_t)li + 1;
	return def;
}

static int fill(json_t *root, struct model_config *c, char *err, size_t errlen)
{
	enum model_family fam;
	const char *mtype = get_str(root, "model_type");
	const char *td = get_str(root, "torch_dtype");
	if (!td)
		td = get_str(root, "dtype");
	if (td)
		snprintf(c->torch_dtype, sizeof(c->torch_dtype), "%s", td);
	json_t *quant = json_object_get(root, "quantization_config");
	if (json_is_object(quant)) {
		const char *qm = get_str(quant, "quant_method");
		snprintf(c->quant, sizeof(c->quant), "%s", qm && *qm ? qm : "quantized");
		int64_t bits = get_uint(quant, "bits", get_uint(quant, "w_bit", 0));
		c->quant_bits = bits > 0 && bits <= 16 ? (uint32_t)bits : 0;
		json_t *gs = json_object_get(quant, "group_size");
		if (!gs)
			gs = json_object_get(quant, "q_group_size");
		c->quant_group = json_is_integer(gs) && json_integer_value(gs) >= -1 &&
				 json_integer_value(gs) <= 1 << 20 ? (int32_t)json_integer_value(gs) : 0;
		int awq = qm && !strncasecmp(qm, "awq", 3);
		c->quant_zeros = awq ? get_bool(quant, "zero_point", 1) : !get_bool(quant, "sym", 1);
		c->quant_fp8 = qm && !strcasecmp(qm, "fp8");
		c->quant_weight_only = qm && (awq || !strncasecmp(qm, "gptq", 4));
		if (qm && !strcasecmp(qm, "mxfp4")) {
			/* gpt-oss: the experts' weights in OCP MXFP4, 4-bit
			 * E2M1 with an 8-bit (E8M0) scale per 32; attention,
			 * the router, the embedding and the head stay 16-bit
			 * (its modules_to_not_convert) */
			c->quant_weight_only = 1;
			c->quant_bits = 4;
			c->quant_group = 32;
			c->quant_scale_bytes = 1;
			c->quant_zeros = 0;
			c->quant_experts_only = 1;
		}
		if (qm && !strcasecmp(qm, "compressed-tensors"))
			compressed_tensors(quant, c);
	}
	/* Multimodal checkpoints around a language model of a type read here,
	 * in text_config: Gemma 3's 4B, 12B and 27B (gemma3: always a
	 * Gemma3TextConfig, which may omit its model_type), Mistral Small 3.1
	 * and 3.2 (mistral3), LLaVA (llava, llava_next, llava_onevision),
	 * PaliGemma, Idefics3 and Llama 4.  The language model is built alone
	 * (text prompts: the vision tower runs only on images); a text_config
	 * without a model_type takes its wrapper class's default text model. */
	static const struct { const char *wrapper, *text; int always; } vlm[] = {
		{ "gemma3", "gemma3_text", 1 }, { "mistral3", "mistral", 0 }, { "llava", "llama", 0 },
		{ "llava_next", "llama", 0 }, { "llava_onevision", "qwen2", 0 },
		{ "paligemma", "gemma", 0 }, { "idefics3", "llama", 0 }, { "llama4", "llama4_text", 0 },
	};
	json_t *text = json_object_get(root, "text_config");
	for (size_t i = 0; mtype && json_is_object(text) && i < sizeof(vlm) / sizeof(vlm[0]); i++) {
		if (strcasecmp(mtype, vlm[i].wrapper))
			continue;
		json_t *t = json_copy(text);
		if (!t || ((vlm[i].always || !get_str(t, "model_type")) &&
			   json_object_set_new(t, "model_type", json_string(vlm[i].text)))) {
			json_decref(t);
			return SURFER_ENOMEM;
		}
		int rc = fill(t, c, err, errlen);
		json_decref(t);
		return rc;
	}
	/* MPT, Falcon, StarCoder, OLMo and the others of arch_alias.c: read
	 * with Llama's keys, then what those cannot say */
	json_t *as;
	struct arch_alias_flags af;
	const char *missing = NULL;
	int al = arch_alias(root, &as, &af, &missing);
	if (al == -2) {
		snprintf(err, errlen, "config lacks '%s' (%s)", missing, mtype);
		return SURFER_ECORRUPT;
	}
	if (al < 0)
		return SURFER_ENOMEM;
	if (al) {
		int rc = fill(as, c, err, errlen);
		json_decref(as);
		if (rc)
			return rc;
		c->gated = af.gated;
		c->learned_positions = af.learned_positions && c->max_positions;
		c->qk_norm |= af.qk_norm;
		return 0;
	}
	/* the engine builder's architectures beyond Hugging Face's eager
	 * Llama: parsed in full, refused by hf with the reason (model.c) */
	static const char *const engine_only[] = {
		"qwen2_moe", "deepseek_v2", "deepseek_v3", "gemma2", "gemma3_text", "gpt_oss", "glm4_moe",
	};
	int engine = 0;
	for (size_t i = 0; mtype && i < sizeof(engine_only) / sizeof(engine_only[0]); i++)
		engine |= !strcasecmp(mtype, engine_only[i]);
	/* DeepSeek-V2/V3 and GLM-4.5: model.c builds their MLA and MoE
	 * layers too; Gemma 2 and 3 their local layers, sandwich norms and
	 * soft-capping; gpt-oss its banded layers, sinks and experts */
	int deepseek = mtype && !strncasecmp(mtype, "deepseek_v", 10);
	int glm_moe = mtype && !strcasecmp(mtype, "glm4_moe");
	int local_built = mtype && (!strcasecmp(mtype, "gemma2") || !strcasecmp(mtype, "gemma3_text") ||
				    !strcasecmp(mtype, "gpt_oss"));
	if (unsupported(root, mtype, err, errlen)) {
		if (!engine)
			return SURFER_EUNKNOWN;
		if (!deepseek && !glm_moe && !local_built)
			snprintf(c->hf_refusal, sizeof(c->hf_refusal), "%s (--engine vllm or sglang builds it)",
				 err);
		err[0] = 0;
	}
	if (family_of(root, &fam)) {
		const char *mt = get_str(root, "model_type");
		const char *arch = arch_of(root);
		snprintf(err, errlen, "unknown architecture '%s' (known: gpt2, gpt_neox, bert, opt, llama, mistral, qwen2, qwen2_moe, qwen3, qwen3_moe, mixtral, gemma, gemma2, gemma3, phi3, deepseek_v2, deepseek_v3, glm4_moe, llama4, gpt_oss, t5, switch_transformers, %s)",
			 mt ? mt : arch ? arch : "?", arch_alias_names());
		return SURFER_EUNKNOWN;
	}
	c->family = fam;
	int64_t pos = get_uint(root, "max_position_embeddings",
			       get_uint(root, "n_positions", get_uint(root, "n_ctx", 0)));
	/* RoBERTa's table starts its positions after padding_idx (1): 514
	 * rows hold 512 tokens */
	if (mtype && !strcasecmp(mtype, "roberta") && pos > 2)
		pos -= 2;
	c->max_positions = pos > 0 && pos <= UINT32_MAX ? (uint32_t)pos : 0;
	/* a learned table: GPT-2, GPT-Neo, BERT and RoBERTa, OPT; GPT-NeoX
	 * and GPT-J (built as GPT-2) rotate */
	c->learned_positions = c->max_positions &&
		(fam == MODEL_FAM_BERT || fam == MODEL_FAM_OPT ||
		 (fam == MODEL_FAM_GPT2 && !(mtype && (!strncasecmp(mtype, "gpt_neox", 8) ||
						      !strcasecmp(mtype, "gptneox") ||
						      !strcasecmp(mtype, "gptj")))));
	int64_t layers = 0, dec = 0, hidden = 0, heads = 0, kv = 0, hd = 0, ffn = 0, vocab = 0, tv = 0;
	int64_t experts = 0, step = 0, cap = 0, topk = 0;
	switch (fam) {
	case MODEL_FAM_GPT2:
		hidden = get_uint(root, "n_embd", get_uint(root, "hidden_size", 768));
		heads = get_uint(root, "n_head", get_uint(root, "num_attention_heads", 12));
		layers = get_uint(root, "n_layer", get_uint(root, "num_hidden_layers", 12));
		ffn = get_uint(root, "n_inner", get_uint(root, "intermediate_size", hidden > 0 ? 4 * hidden : 0));
		vocab = get_uint(root, "vocab_size", 50257);
		c->act = parse_act(get_str(root, "activation_function"),
				   parse_act(get_str(root, "hidden_act"), MODEL_ACT_GELU_NEW));
		c->qkv_bias = 1;
		c->tied = get_bool(root, "tie_word_embeddings", 1);
		c->dropout = get_real(root, "resid_pdrop", get_real(root, "hidden_dropout", 0.1));
		c->attn_dropout = get_real(root, "attn_pdrop", get_real(root, "attention_dropout", 0.1));
		break;
	case MODEL_FAM_BERT:
		hidden = get_uint(root, "hidden_size", 768);
		heads = get_uint(root, "num_attention_heads", 12);
		layers = get_uint(root, "num_hidden_layers", 12);
		ffn = get_uint(root, "intermediate_size", 3072);
		vocab = get_uint(root, "vocab_size", 30522);
		tv = get_uint(root, "type_vocab_size", 2);
		c->act = parse_act(get_str(root, "hidden_act"), MODEL_ACT_GELU);
		c->qkv_bias = 1;
		c->tied = get_bool(root, "tie_word_embeddings", 1);
		c->dropout = get_real(root, "hidden_dropout_prob", 0.1);
		c->attn_dropout = get_real(root, "attention_probs_dropout_prob", 0.1);
		break;
	case MODEL_FAM_OPT:
		hidden = get_uint(root, "hidden_size", 768);
		heads = get_uint(root, "num_attention_heads", 12);
		layers = get_uint(root, "num_hidden_layers", 12);
		ffn = get_uint(root, "ffn_dim", 3072);
		vocab = get_uint(root, "vocab_size", 50272);
		c->act = parse_act(get_str(root, "activation_function"), MODEL_ACT_RELU);
		c->qkv_bias = get_bool(root, "enable_bias", 1);
		c->tied = get_bool(root, "tie_word_embeddings", 1);
		c->dropout = get_real(root, "dropout", 0.1);
		c->attn_dropout = get_real(root, "attention_dropout", 0.0);
		break;
	case MODEL_FAM_LLAMA: {
		const char *mt = get_str(root, "model_type");
		/* a key a config leaves out takes its class's default:
		 * LlamaConfig's, or Gemma3TextConfig's (the multimodal
		 * checkpoints' text_config gives only what differs from it:
		 * Gemma 3 4B has no head counts) */
		int g3 = mt && !strcasecmp(mt, "gemma3_text");
		hidden = get_uint(root, "hidden_size", g3 ? 2304 : 4096);
		heads = get_uint(root, "num_attention_heads", g3 ? 8 : 32);
		layers = get_uint(root, "num_hidden_layers", g3 ? 26 : 32);
		ffn = get_uint(root, "intermediate_size", g3 ? 9216 : 11008);
		vocab = get_uint(root, "vocab_size", g3 ? 262208 : 32000);
		kv = get_uint(root, "num_key_value_heads", g3 ? 4 : heads);
		hd = get_uint(root, "head_dim", g3 ? 256 : 0);
		int gemma = mt && strncasecmp(mt, "gemma", 5) == 0;
		/* Gemma: GeGLU (hidden_activation, else hidden_act), tied */
		c->act = parse_act(get_str(root, "hidden_activation"),
				   parse_act(get_str(root, "hidden_act"), g3 ? MODEL_ACT_GELU_TANH : MODEL_ACT_SILU));
		c->gated = 1;
		c->qkv_bias = get_bool(root, "attention_bias", mt && strcasecmp(mt, "qwen2") == 0);
		c->tied = get_bool(root, "tie_word_embeddings", gemma);
		c->embed_scale = gemma;   /* GemmaModel's normalizer, every version */
		c->norm_unit_offset = gemma;  /* GemmaRMSNorm's (1 + weight), every version */
		/* Mixtral: every layer's MLP is num_local_experts experts, each
		 * token routed to num_experts_per_tok of them */
		experts = get_uint(root, "num_local_experts", 0);
		if (mt && !strcasecmp(mt, "qwen3_moe")) {
			experts = get_uint(root, "num_experts", 128);
			ffn = get_uint(root, "moe_intermediate_size", 768);
			c->moe_ffn = ffn > 0 ? (uint32_t)ffn : 0;
		}
		if (mt && !strcasecmp(mt, "qwen2_moe")) {
			/* Qwen2MoeSparseMoeBlock: routed experts and one shared
			 * expert of shared_expert_intermediate_size */
			experts = get_uint(root, "num_experts", 60);
			ffn = get_uint(root, "moe_intermediate_size", 1408);
			c->moe_ffn = ffn > 0 ? (uint32_t)ffn : 0;
			int64_t sh = get_uint(root, "shared_expert_intermediate_size", 0);
			c->shared_ffn = sh > 0 ? (uint32_t)sh : 0;
		}
		int glm = mt && !strcasecmp(mt, "glm4_moe");
		if (mt && (!strncasecmp(mt, "deepseek_v", 10) || glm)) {
			/* DeepseekV2/V3, Glm4Moe: the first first_k_dense_replace
			 * layers dense (intermediate_size), then n_routed_experts
			 * of moe_intermediate_size and n_shared_experts of it;
			 * GLM-4.5 scores them as V3 does (sigmoid, with the
			 * correction bias e_score_correction_bias: no
			 * topk_method key) */
			experts = get_uint(root, "n_routed_experts", 0);
			int64_t mf = get_uint(root, "moe_intermediate_size", 0);
			int64_t ns = get_uint(root, "n_shared_experts", 0);
			int64_t fd = get_uint(root, "first_k_dense_replace", 0);
			c->moe_ffn = mf > 0 ? (uint32_t)mf : 0;
			c->shared_ffn = mf > 0 && ns > 0 ? (uint32_t)(mf * ns) : 0;
			c->first_dense = fd > 0 ? (uint32_t)fd : 0;
			c->router_bias = glm;
		}
		if (mt && !strncasecmp(mt, "deepseek_v", 10)) {
			/* and MLA */
			int64_t ql = get_uint(root, "q_lora_rank", 0), kl = get_uint(root, "kv_lora_rank", 512);
			int64_t qn = get_uint(root, "qk_nope_head_dim", 128), qr = get_uint(root, "qk_rope_head_dim", 64);
			int64_t vd = get_uint(root, "v_head_dim", 128);
			if (ql < 0 || kl <= 0 || qn <= 0 || qr <= 0 || vd <= 0) {
				snprintf(err, errlen, "config has a bad MLA size (kv_lora_rank %lld, qk dims %lld + %lld, v %lld)",
					 (long long)kl, (long long)qn, (long long)qr, (long long)vd);
				return SURFER_ECORRUPT;
			}
			const char *tm = get_str(root, "topk_method");
			c->router_bias = tm && !strcasecmp(tm, "noaux_tc");
			int64_t mtp = get_uint(root, "num_nextn_predict_layers", 0);
			c->mtp_layers = mtp > 0 ? (uint32_t)mtp : 0;
			c->q_lora = (uint32_t)ql;
			c->kv_lora = (uint32_t)kl;
			c->qk_nope = (uint32_t)qn;
			c->qk_rope = (uint32_t)qr;
			c->v_dim = (uint32_t)vd;
			hd = qn + qr;
		}
		if (gemma && strcasecmp(mt, "gemma") != 0) {
			/* Gemma 2: local and global layers alternate; Gemma 3: five
			 * local, one global (sliding_window_pattern, or the first
			 * full_attention of layer_types) */
			int64_t w = get_uint(root, "sliding_window", 4096);
			int64_t period = full_layer_period(root, get_uint(root, "sliding_window_pattern",
									  !strcasecmp(mt, "gemma2") ? 2 : 6));
			c->window = w > 0 ? (uint32_t)w : 0;
			c->local_period = period > 0 ? (uint32_t)period : 0;
			c->sandwich_norm = 1;
			c->final_softcap = is_set(root, "final_logit_softcapping");
			c->attn_softcap = is_set(root, "attn_logit_softcapping");
		}
		if (mt && !strcasecmp(mt, "llama4_text")) {
			/* Llama4TextConfig: num_local_experts routed experts of
			 * intermediate_size and one shared expert of it on every
			 * interleave_moe_layer_step-th layer (Scout 1, Maverick
			 * 2), the others a dense MLP of intermediate_size_mlp;
			 * the RoPE layers attend within chunks of
			 * attention_chunk_size, every fourth (no_rope_layers'
			 * zeros: NoPE) to all, the chunk built as a window of
			 * its size (the cost of a chunk's last token, an upper
			 * bound; exact up to it) */
			int64_t mf = get_uint(root, "intermediate_size", 8192);
			ffn = get_uint(root, "intermediate_size_mlp", 16384);
			c->moe_ffn = mf > 0 ? (uint32_t)mf : 0;
			c->shared_ffn = c->moe_ffn;
			int64_t st = get_uint(root, "interleave_moe_layer_step", 1);
			c->moe_step = st > 1 ? (uint32_t)st : 0;
			int64_t w = get_uint(root, "attention_chunk_size", 8192);
			int64_t period = 4;
			json_t *nr = json_object_get(root, "no_rope_layers");
			for (size_t i = 0; json_is_array(nr) && i < json_array_size(nr); i++)
				if (json_is_integer(json_array_get(nr, i)) &&
				    json_integer_value(json_array_get(nr, i)) == 0) {
					period = (int64_t)i + 1;
					break;
				}
			c->window = w > 0 ? (uint32_t)w : 0;
			c->local_period = period > 1 ? (uint32_t)period : 0;
		}
		if (mt && !strcasecmp(mt, "gpt_oss")) {
			/* GptOss: num_local_experts of intermediate_size (as
			 * Mixtral's), experts_per_token of them; every other
			 * layer attends to the last sliding_window keys
			 * (layer_types: sliding first), the others to all; the
			 * attention sinks, biases and the experts' GLU as
			 * model_config.oss says (no kernel of their own to the
			 * engines) */
			experts = get_uint(root, "num_local_experts", 32);
			c->oss = 1;
			int64_t w = get_uint(root, "sliding_window", 128), period = full_layer_period(root, 2);
			c->window = w > 0 ? (uint32_t)w : 0;
			c->local_period = period > 0 ? (uint32_t)period : 0;
		}
		topk = experts ? get_uint(root, "num_experts_per_tok",
					  get_uint(root, "experts_per_token", 2)) : 0;
		step = experts ? 1 : 0;
		/* Qwen3, Gemma 3 (GLM-4.5 with use_qk_norm): q_norm and k_norm,
		 * an RMSNorm over each head */
		c->qk_norm = mt && (!strncasecmp(mt, "qwen3", 5) || !strncasecmp(mt, "gemma3", 6) ||
				    ((glm || !strcasecmp(mt, "llama4_text")) && get_bool(root, "use_qk_norm", 0)));
		c->dropout = 0;
		c->attn_dropout = get_real(root, "attention_dropout", 0.0);
		break;
	}
	case MODEL_FAM_T5:
	default: {
		hidden = get_uint(root, "d_model", 512);
		heads = get_uint(root, "num_heads", 8);
		hd = get_uint(root, "d_kv", 64);
		ffn = get_uint(root, "d_ff", 2048);
		layers = get_uint(root, "num_layers", 6);
		dec = get_uint(root, "num_decoder_layers", layers);
		vocab = get_uint(root, "vocab_size", 32128);
		experts = get_uint(root, "num_experts", 0);
		step = get_uint(root, "encoder_sparse_step", experts ? 2 : 0);
		cap = get_uint(root, "expert_capacity", experts ? 64 : 0);
		topk = experts ? 1 : 0;
		const char *ff = get_str(root, "feed_forward_proj");
		c->gated = ff && strncmp(ff, "gated-", 6) == 0;
		c->act = parse_act(ff ? ff : get_str(root, "dense_act_fn"), MODEL_ACT_RELU);
		c->tied = get_bool(root, "tie_word_embeddings", 1);
		c->dropout = get_real(root, "dropout_rate", 0.1);
		c->attn_dropout = c->dropout;
		break;
	}
	}
	if (layers <= 0 || hidden <= 0 || heads <= 0 || ffn <= 0 || vocab <= 0 || kv < 0 || hd < 0 ||
	    dec < 0 || tv < 0 || experts < 0 || step < 0 || cap < 0 || topk < 0 || topk > experts ||
	    experts > 4096 || layers > 100000 || hidden > 1 << 20 ||
	    heads > hidden) {
		char moe[64] = "";
		if (experts || topk)
			snprintf(moe, sizeof(moe), ", experts %lld, top-k %lld", (long long)experts,
				 (long long)topk);
		snprintf(err, errlen, "config lacks or has a bad size (layers %lld, hidden %lld, heads %lld, ffn %lld, vocab %lld%s)",
			 (long long)layers, (long long)hidden, (long long)heads, (long long)ffn,
			 (long long)vocab, moe);
		return SURFER_ECORRUPT;
	}
	if (!hd) {
		if (hidden % heads) {
			snprintf(err, errlen, "hidden size %lld is not a multiple of the %lld heads",
				 (long long)hidden, (long long)heads);
			return SURFER_ECORRUPT;
		}
		hd = hidden / heads;
	}
	/* absent: every head its own K and V; else grouped-query attention,
	 * whose groups need the heads to be a multiple of the K/V heads (a
	 * model that loads could not be built otherwise) */
	if (kv && (kv > heads || heads % kv)) {
		snprintf(err, errlen, "%lld key/value heads do not divide the %lld attention heads",
			 (long long)kv, (long long)heads);
		return SURFER_ECORRUPT;
	}
	if (kv == 0)
		kv = heads;
	c->layers = (uint32_t)layers;
	c->dec_layers = fam == MODEL_FAM_T5 ? (uint32_t)dec : 0;
	c->hidden = (uint32_t)hidden;
	c->heads = (uint32_t)heads;
	c->kv_heads = (uint32_t)kv;
	c->head_dim = (uint32_t)hd;
	c->ffn = (uint32_t)ffn;
	c->vocab = (uint32_t)vocab;
	c->type_vocab = (uint32_t)tv;
	c->experts = (uint32_t)experts;
	c->experts_per_tok = (uint32_t)topk;
	c->sparse_step = (uint32_t)step;
	c->capacity = (uint32_t)cap;
	return 0;
}

int model_config_parse(const char *json, const char *name, struct model_config *c,
		       char *err, size_t errlen)
{
	char dummy[8];
	if (!err) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name ? name : "model");
	json_error_t je;
	json_t *root = json_loads(json, 0, &je);
	if (!root) {
		snprintf(err, errlen, "line %d: %s", je.line, je.text);
		return SURFER_ECORRUPT;
	}
	if (!json_is_object(root)) {
		json_decref(root);
		snprintf(err, errlen, "not a JSON object");
		return SURFER_ECORRUPT;
	}
	int rc = fill(root, c, err, errlen);
	json_decref(root);
	return rc;
}

int model_config_load(const char *path, struct model_config *c, char *err, size_t errlen)
{
	char dummy[8];
	if (!err) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	memset(c, 0, sizeof(*c));
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	if (!root) {
		/* jansson names the file only when it cannot open it */
		if (je.line > 0)
			snprintf(err, errlen, "'%s' line %d: %s", path, je.line, je.text);
		else
			snprintf(err, errlen, "%s", je.text);
		return SURFER_ECORRUPT;
	}
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	snprintf(c->name, sizeof(c->name), "%s", base);
	char *dot = strstr(c->name, ".json");
	if (dot && dot[5] == 0)
		*dot = 0;
	/* a checkpoint's config.json is named by its folder (Llama-3.1-8B/
	 * config.json: Llama-3.1-8B) */
	if (!strcmp(base, "config.json") && base > path + 1) {
		const char *end = base - 1, *start = end;
		while (start > path && start[-1] != '/')
			start--;
		if (end > start)
			snprintf(c->name, sizeof(c->name), "%.*s", (int)(end - start), start);
	}
	int rc;
	if (!json_is_object(root)) {
		snprintf(err, errlen, "'%s': not a JSON object", path);
		rc = SURFER_ECORRUPT;
	} else {
		rc = fill(root, c, err, errlen);
	}
	json_decref(root);
	return rc;
}

/* Whether seg (len bytes) is a name part that does not change a model's
 * shapes: a fine-tune's (Instruct, Chat, it), the Hub's conversions (hf),
 * a base model's, or a release's version (v0.1, v1.0). */
static int shape_free_suffix(const char *seg, size_t len)
{
	static const char *const words[] = { "hf", "instruct", "chat", "base", "it" };
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (len == strlen(words[i]) && !strncasecmp(seg, words[i], len))
			return 1;
	if (len < 2 || tolower((unsigned char)seg[0]) != 'v' || !isdigit((unsigned char)seg[1]))
		return 0;
	for (size_t i = 1; i < len; i++)
		if (!isdigit((unsigned char)seg[i]) && seg[i] != '.')
			return 0;
	return 1;
}

/* A built-in named by its Hugging Face repository, as users copy it from
 * the Hub: "meta-llama/Meta-Llama-3-8B", "mistralai/Mixtral-8x7B-
 * Instruct-v0.1", "Qwen/Qwen3-32B": the name after the owner, without
 * Meta's "Meta-" and without the suffixes that leave the shapes as they
 * are (shape_free_suffix()).  Tried only where no file and no built-in
 * has the name itself.  0 with *c, or SURFER_EUNKNOWN. */
static int builtin_by_hub_id(const char *arg, struct model_config *c)
{
	const char *slash = strrchr(arg, '/');
	char name[128];
	snprintf(name, sizeof(name), "%s", slash ? slash + 1 : arg);
	char *at = name;
	if (!strncasecmp(at, "meta-", 5))
		at += 5;
	for (;;) {
		if (model_config_builtin(at, c) == 0)
			return 0;
		char *dash = strrchr(at, '-');
		if (!dash || !shape_free_suffix(dash + 1, strlen(dash + 1)))
			return SURFER_EUNKNOWN;
		*dash = 0;
	}
}

/* "; closest: A, B" for the error of an unknown name: up to three built-in
 * names within three edits of it (compared as normalize() writes them, so
 * "Llama_3_8B" is "llama-3-8b"), nearest first; "" when none is. */
static void builtin_closest(const char *name, char *out, size_t n)
{
	enum { MAX_SHOWN = 3, MAX_EDITS = 3 };
	const char *const *names = model_config_builtin_names();
	const char *pick[MAX_SHOWN];
	unsigned dist[MAX_SHOWN];
	size_t got = 0;
	char want[64], have[64];

	out[0] = '\0';
	normalize(name, want, sizeof want);
	for (const char *const *p = names; *p; p++) {
		normalize(*p, have, sizeof have);
		unsigned d = edit_distance(want, have, MAX_EDITS);
		if (d > MAX_EDITS)
			continue;
		/* insert in order of distance, ties in table order */
		size_t at = got < MAX_SHOWN ? got : MAX_SHOWN;
		while (at > 0 && dist[at - 1] > d)
			at--;
		if (at == MAX_SHOWN)
			continue;
		for (size_t k = (got < MAX_SHOWN ? got : MAX_SHOWN - 1); k > at; k--)
			pick[k] = pick[k - 1], dist[k] = dist[k - 1];
		pick[at] = *p;
		dist[at] = d;
		if (got < MAX_SHOWN)
			got++;
	}
	size_t w = 0;
	for (size_t i = 0; i < got && w < n; i++)
		w += (size_t)snprintf(out + w, n - w, "%s%s", i ? ", " : "; closest: ", pick[i]);
}

int model_config_resolve(const char *arg, struct model_config *c, char *err, size_t errlen)
{
	struct stat st;
	size_t n = strlen(arg);
	/* a checkpoint's folder (a Hugging Face snapshot, a save_pretrained
	 * output): its config.json */
	if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) {
		char path[4096];
		int len = snprintf(path, sizeof(path), "%s%sconfig.json", arg,
				   n && arg[n - 1] == '/' ? "" : "/");
		if (len < 0 || (size_t)len >= sizeof(path) || stat(path, &st) != 0) {
			if (err)
				snprintf(err, errlen, "'%s' is a folder without a config.json", arg);
			return SURFER_EINVAL;
		}
		return model_config_load(path, c, err, errlen);
	}
	if ((n > 5 && strcmp(arg + n - 5, ".json") == 0) || stat(arg, &st) == 0)
		return model_config_load(arg, c, err, errlen);
	int rc = model_config_builtin(arg, c);
	if (rc)
		rc = builtin_by_hub_id(arg, c);
	if (rc && err) {
		char near[160];
		builtin_closest(arg, near, sizeof near);
		snprintf(err, errlen, "no file and no built-in model named '%s'%s (--list-models lists them)",
			 arg, near);
	}
	return rc;
}

/* ---- option parsers ------------------------------------------------------ */

const char *model_mode_name(enum model_mode m, int engine)
{
	switch (m) {
	case MODEL_TRAINING: return "training";
	case MODEL_DECODE: return "decode";
	case MODEL_GENERATE: return "generate";
	case MODEL_PREFILL: return "prefill";
	case MODEL_SERVE: return "serve";
	default: return engine ? "prefill" : "inference";
	}
}

int model_mode_parse(const char *s, enum model_mode *out)
{
	if (strcasecmp(s, "inference") == 0 || strcasecmp(s, "inf") == 0)
		*out = MODEL_INFERENCE;
	else if (strcasecmp(s, "training") == 0 || strcasecmp(s, "train") == 0)
		*out = MODEL_TRAINING;
	else if (strcasecmp(s, "decode") == 0)
		*out = MODEL_DECODE;
	else if (strcasecmp(s, "generate") == 0)
		*out = MODEL_GENERATE;
	else if (strcasecmp(s, "prefill") == 0)
		*out = MODEL_PREFILL;
	else if (strcasecmp(s, "serve") == 0)
		*out = MODEL_SERVE;
	else
		return SURFER_EINVAL;
	return 0;
}

int model_engine_parse(const char *s, enum model_engine *out)
{
	if (strcasecmp(s, "hf") == 0 || strcasecmp(s, "transformers") == 0)
		*out = MODEL_ENGINE_HF;
	else if (strcasecmp(s, "vllm") == 0)
		*out = MODEL_ENGINE_VLLM;
	else if (strcasecmp(s, "sglang") == 0)
		*out = MODEL_ENGINE_SGLANG;
	else
		return SURFER_EINVAL;
	return 0;
}

const char *model_engine_name(enum model_engine e)
{
	static const char *const names[] = { "hf", "vllm", "sglang" };
	return (unsigned)e <= MODEL_ENGINE_SGLANG ? names[e] : "?";
}

int model_optimizer_parse(const char *s, enum model_optimizer *out)
{
	if (strcasecmp(s, "none") == 0)
		*out = MODEL_OPTIM_NONE;
	else if (strcasecmp(s, "sgd") == 0)
		*out = MODEL_OPTIM_SGD;
	else if (strcasecmp(s, "adamw") == 0 || strcasecmp(s, "adam") == 0 ||
		 strcasecmp(s, "adamw-foreach") == 0 || strcasecmp(s, "adamw-fused") == 0 ||
		 strcasecmp(s, "adamw-8bit") == 0)
		*out = MODEL_OPTIM_ADAMW;
	else
		return SURFER_EINVAL;
	return 0;
}

static const char *const attention_names[MODEL_ATTN_COUNT] = {
	"eager", "sdpa", "flash", "fa2", "fa3", "cudnn", "flashinfer", "triton",
};

int model_attention_parse(const char *s, enum model_attention *out)
{
	for (int i = 0; i < MODEL_ATTN_COUNT; i++)
		if (strcmp(s, attention_names[i]) == 0) {
			*out = (enum model_attention)i;
			return 0;
		}
	return SURFER_EINVAL;
}

const char *model_attention_name(enum model_attention a)
{
	return (unsigned)a < MODEL_ATTN_COUNT ? attention_names[a] : "?";
}

enum pred_attn_impl model_attention_impl(const struct model_opts *o)
{
	switch (o->attention) {
	case MODEL_ATTN_FLASH:
		return o->stack == MODEL_STACK_TE && o->dtype != GPU_DT_FP32 ? PRED_ATTN_CUDNN
									       : PRED_ATTN_FLASH;
	case MODEL_ATTN_FA2:
		return PRED_ATTN_FA2;
	case MODEL_ATTN_FA3:
		return PRED_ATTN_FA3;
	case MODEL_ATTN_CUDNN:
		return PRED_ATTN_CUDNN;
	case MODEL_ATTN_FLASHINFER:
		return PRED_ATTN_FLASHINFER;
	case MODEL_ATTN_TRITON:
		return PRED_ATTN_TRITON;
	default:
		return PRED_ATTN_NONE;
	}
}

int model_ckpt_parse(const char *s, enum model_ckpt *out)
{
	if (strcasecmp(s, "none") == 0)
		*out = MODEL_CKPT_NONE;
	else if (strcasecmp(s, "selective") == 0)
		*out = MODEL_CKPT_SELECTIVE;
	else if (strcasecmp(s, "full") == 0)
		*out = MODEL_CKPT_FULL;
	else
		return SURFER_EINVAL;
	return 0;
}

int model_stack_parse(const char *s, enum model_stack *out)
{
	if (strcasecmp(s, "eager") == 0)
		*out = MODEL_STACK_EAGER;
	else if (strcasecmp(s, "compile") == 0)
		*out = MODEL_STACK_COMPILE;
	else if (strcasecmp(s, "te") == 0)
		*out = MODEL_STACK_TE;
	else
		return SURFER_EINVAL;
	return 0;
}

int model_precision_parse(const char *s, enum model_precision *out)
{
	if (strcasecmp(s, "pure") == 0)
		*out = MODEL_PREC_PURE;
	else if (strcasecmp(s, "mixed") == 0)
		*out = MODEL_PREC_MIXED;
	else if (strcasecmp(s, "autocast") == 0)
		*out = MODEL_PREC_AUTOCAST;
	else if (strcasecmp(s, "auto") == 0)
		*out = MODEL_PREC_AUTO;
	else
		return SURFER_EINVAL;
	return 0;
}

int model_fsdp_parse(const char *s, enum model_fsdp *out)
{
	if (strcmp(s, "1") == 0)
		*out = MODEL_FSDP_1;
	else if (strcmp(s, "2") == 0)
		*out = MODEL_FSDP_2;
	else if (strcasecmp(s, "megatron") == 0)
		*out = MODEL_FSDP_MEGATRON;
	else if (strcasecmp(s, "auto") == 0)
		*out = MODEL_FSDP_AUTO;
	else
		return SURFER_EINVAL;
	return 0;
}

enum model_fsdp model_fsdp_impl(const struct model_opts *o)
{
	if (o->mode != MODEL_TRAINING || o->zero < 2 || model_grad_ranks(o) <= 1)
		return MODEL_FSDP_AUTO;
	if (o->fsdp != MODEL_FSDP_AUTO)
		return o->fsdp;
	return o->stack == MODEL_STACK_TE ? MODEL_FSDP_MEGATRON : MODEL_FSDP_2;
}

uint32_t model_layer_window(const struct model_config *c, uint32_t li)
{
	return c->window && c->local_period && (li + 1) % c->local_period ? c->window : 0;
}

int model_layer_moe(const struct model_config *c, uint32_t li)
{
	return c->experts > 1 && li >= c->first_dense && (c->moe_step <= 1 || (li + 1) % c->moe_step == 0);
}

int model_moe_grouped(const struct model_config *c, const struct model_opts *o)
{
	return c->experts > 1 && (c->kv_lora || model_ep(o) > 1 || c->shared_ffn || c->first_dense ||
				  c->moe_step > 1);
}

uint64_t model_liger_chunk(const struct model_config *c, const struct model_opts *o, uint64_t T)
{
	if (!o->liger || !o->loss || o->mode != MODEL_TRAINING || o->head == MODEL_HEAD_CLASSIFY ||
	    o->tp > 1 || !T || !c->hidden)
		return 0;
	uint64_t inc = (c->vocab + c->hidden - 1) / c->hidden;
	uint64_t rows = inc ? (T + inc - 1) / inc : T, chunk = 1;
	while (chunk < rows)
		chunk <<= 1;
	return chunk < T ? chunk : T;
}

int model_autocast(const struct model_opts *o)
{
	return o->precision == MODEL_PREC_AUTOCAST && o->stack == MODEL_STACK_EAGER &&
	       o->engine == MODEL_ENGINE_HF && (o->dtype == GPU_DT_BF16 || o->dtype == GPU_DT_FP16);
}

int model_mixed(const struct model_opts *o)
{
	if (o->mode != MODEL_TRAINING || (o->dtype != GPU_DT_BF16 && o->dtype != GPU_DT_FP16))
		return 0;
	if (o->precision != MODEL_PREC_AUTO)
		return o->precision == MODEL_PREC_MIXED || o->precision == MODEL_PREC_AUTOCAST;
	/* --lora: PEFT trains adapters on a model loaded in the dtype
	 * (torch_dtype), no FP32 copy of what is frozen.  More than one GPU
	 * of any parallelism (not only data-parallel ranks): Megatron's and
	 * nanotron's TP and PP keep FP32 masters as their DP does, so a
	 * plan's dp 1 x tp x pp layouts hold the state its dp > 1 ones do */
	uint64_t gpus = (uint64_t)model_grad_ranks(o) * (o->tp ? o->tp : 1) * (o->pp ? o->pp : 1);
	return !o->lora_rank && (o->stack == MODEL_STACK_TE || o->fp8 || gpus > 1);
}

int model_fp8_recipe_parse(const char *s, enum model_fp8_recipe *out)
{
	if (strcasecmp(s, "tensorwise") == 0)
		*out = MODEL_FP8_TENSORWISE;
	else if (strcasecmp(s, "rowwise") == 0)
		*out = MODEL_FP8_ROWWISE;
	else if (strcasecmp(s, "delayed") == 0)
		*out = MODEL_FP8_DELAYED;
	else if (strcasecmp(s, "mxfp8") == 0)
		*out = MODEL_FP8_MXFP8;
	else
		return SURFER_EINVAL;
	return 0;
}

double model_launch_ns(const struct model_opts *o)
{
	return o->stack == MODEL_STACK_COMPILE ? 6500.0 : MODEL_LAUNCH_NS_DEFAULT;
}

int model_dtype_parse(const char *s, enum gpu_dtype *out)
{
	if (strcasecmp(s, "fp32") == 0 || strcasecmp(s, "float32") == 0)
		*out = GPU_DT_FP32;
	else if (strcasecmp(s, "tf32") == 0)
		*out = GPU_DT_TF32;
	else if (strcasecmp(s, "bf16") == 0 || strcasecmp(s, "bfloat16") == 0)
		*out = GPU_DT_BF16;
	else if (strcasecmp(s, "fp16") == 0 || strcasecmp(s, "float16") == 0 || strcasecmp(s, "half") == 0)
		*out = GPU_DT_FP16;
	else
		return SURFER_EINVAL;
	return 0;
}

int model_list_print(FILE *f, int json)
{
	const char *const *names = model_config_builtin_names();
	struct model_config c;
	if (json) {
		json_t *arr = json_array();
		if (!arr)
			return -1;
		for (size_t i = 0; names[i]; i++) {
			if (model_config_builtin(names[i], &c))
				continue;
			json_t *o = json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:f}",
					      "name", names[i], "architecture", model_family_name(c.family),
					      "layers", (json_int_t)(c.layers + c.dec_layers),
					      "hidden", (json_int_t)c.hidden, "heads", (json_int_t)c.heads,
					      "kv_heads", (json_int_t)c.kv_heads, "ffn", (json_int_t)c.ffn,
					      "experts", (json_int_t)c.experts,
					      "experts_per_token", (json_int_t)c.experts_per_tok,
					      "params", model_config_params(&c));
			/* the positions the model was trained for; null unknown
			 * (T5's relative ones, three rotary built-ins) */
			if (o && json_object_set_new(o, "max_positions", c.max_positions ?
						     json_integer(c.max_positions) : json_null())) {
				json_decref(o);
				o = NULL;
			}
			if (!o || json_array_append_new(arr, o)) {
				json_decref(arr);
				return -1;
			}
		}
		int rc = json_dumpf(arr, f, JSON_INDENT(2)) == 0 && fputc('\n', f) != EOF ? 0 : -1;
		json_decref(arr);
		return rc;
	}
	if (fprintf(f, "%-16s %-6s %6s %6s %5s %4s %6s %7s %8s %8s\n", "name", "arch", "layers", "hidden",
		    "heads", "kv", "ffn", "experts", "params", "context") < 0)
		return -1;
	for (size_t i = 0; names[i]; i++) {
		if (model_config_builtin(names[i], &c))
			continue;
		char ex[16] = "-";
		if (c.experts)
			snprintf(ex, sizeof(ex), "%u/%u", c.experts_per_tok, c.experts);
		char ctx[16] = "-";
		if (c.max_positions)
			snprintf(ctx, sizeof(ctx), "%u", c.max_positions);
		if (fprintf(f, "%-16s %-6s %6u %6u %5u %4u %6u %7s %7.2fB %8s\n", names[i],
			    model_family_name(c.family), c.layers + c.dec_layers, c.hidden, c.heads,
			    c.kv_heads, c.ffn, ex, model_config_params(&c) / 1e9, ctx) < 0)
			return -1;
	}
	return 0;
}
