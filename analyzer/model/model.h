/*
 * model.h - predict an iteration from a model's configuration, with no GPU
 * and no trace: a Hugging Face config (or a built-in name) becomes the
 * kernel sequence a PyTorch eager run issues (model.c), written as the
 * program a recorder would have seen (program.c) and analyzed like a
 * trace: each kernel predicted from scratch, the launches replayed by the
 * one timeline; --dp/--tp/--pp add collectives timed by comm.c.
 *
 * The sequence follows what Hugging Face transformers' eager modules call
 * into ATen, layer by layer: embeddings, norms, the Q/K/V GEMMs, eager
 * attention (bmm, scale, mask, softmax, dropout, bmm) or one fused SDPA
 * kernel, output projection, residual adds, the MLP with its activation,
 * the final norm, the LM head and (optionally) the loss.  Training adds the
 * backward kernels of every forward op in reverse order, one gradient
 * accumulation add per parameter tensor, and the optimizer step.
 */
#ifndef SURFER_MODEL_H
#define SURFER_MODEL_H

#include "trace/surfer_err.h"

#include <stddef.h>
#include <stdint.h>
#include "predictor/comm.h"
#include "predictor/predict.h"

/* Architectures whose module structure model.c knows. */
enum model_family {
	MODEL_FAM_GPT2 = 0, /* GPT-2, GPT-3 style (HF GPT2LMHeadModel), GPT-NeoX */
	MODEL_FAM_BERT,     /* BERT encoder with the MLM head                  */
	MODEL_FAM_OPT,      /* OPT decoder                                     */
	MODEL_FAM_LLAMA,    /* Llama, Mistral, Qwen2, Gemma, Phi-3: RMSNorm,
			     * RoPE, gated MLP; Mixtral: top-k experts      */
	MODEL_FAM_T5,       /* T5 and Switch (encoder-decoder, optional MoE)    */
	MODEL_FAM_COUNT
};

/* MLP activation, as the HF module computes it. */
enum model_act {
	MODEL_ACT_GELU = 0,   /* one erf-GELU kernel                               */
	MODEL_ACT_GELU_NEW,   /* HF NewGELUActivation: 8 elementwise kernels (tanh) */
	MODEL_ACT_GELU_TANH,  /* gelu(approximate='tanh'): one kernel              */
	MODEL_ACT_RELU,
	MODEL_ACT_SILU,
	MODEL_ACT_COUNT
};

/* A model's shape, as read from config.json (config.c). */
struct model_config {
	char name[64];
	enum model_family family;
	uint32_t layers;      /* decoder (or encoder-only) layers; T5: encoder */
	uint32_t dec_layers;  /* T5: decoder layers; 0 otherwise               */
	uint32_t hidden;      /* d_model                                      */
	uint32_t heads;       /* attention heads                              */
	uint32_t kv_heads;    /* key/value heads (GQA); == heads when absent  */
	uint32_t head_dim;    /* per-head width (hidden / heads unless given) */
	uint32_t ffn;         /* MLP inner width                              */
	uint32_t vocab;
	uint32_t type_vocab;  /* BERT token types; 0 none                     */
	enum model_act act;
	int gated;            /* gated MLP (SwiGLU): gate and up projections  */
	int qkv_bias;         /* projections carry a bias                     */
	int tied;             /* LM head shares the token embedding           */
	uint32_t experts;     /* experts per sparse MLP (Switch, Mixtral); 0 dense */
	uint32_t experts_per_tok; /* experts each token is routed to (top-k):
				   * Switch 1, Mixtral 2                      */
	uint32_t sparse_step; /* every sparse_step-th layer is sparse         */
	uint32_t capacity;    /* Switch: tokens per expert per sequence; 0 = all */
	double dropout;       /* hidden dropout probability                   */
	double attn_dropout;  /* attention-probability dropout                */
	int qk_norm;          /* Qwen3, Gemma 3: RMSNorm over each head of q, k */
	uint32_t moe_ffn;     /* Qwen2/3-MoE, DeepSeek: each routed expert's
			       * inner width (Qwen: ffn is that width too;
			       * DeepSeek: ffn is the dense layers'); 0 none */
	uint32_t shared_ffn;  /* the shared experts' inner width in all
			       * (Qwen2-MoE, DeepSeek), 0 none             */
	uint32_t moe_step;    /* Llama 4: every moe_step-th layer's MLP is the
			       * experts (interleave_moe_layer_step; Maverick
			       * 2), the others dense of ffn; 0 or 1 every
			       * layer's                                     */
	uint32_t first_dense; /* DeepSeek: the first layers have a dense MLP
			       * of ffn (first_k_dense_replace)            */
	/* DeepSeek-V3's router: sigmoid scores plus a per-expert bias that
	 * only picks the top k (topk_method noaux_tc, the auxiliary-loss-free
	 * balancing; no gradient flows into it); 0: softmax scores */
	int router_bias;
	uint32_t mtp_layers;  /* DeepSeek-V3: multi-token-prediction modules
			       * (num_nextn_predict_layers); built only
			       * with --mtp (model_opts.mtp)               */
	/* DeepSeek-V2/V3 multi-head latent attention (0: none): q through a
	 * q_lora rank (0: a plain q projection), K and V through a kv_lora
	 * latent; per head nope + rope dims of q/k, v_dim of v. */
	uint32_t q_lora, kv_lora, qk_nope, qk_rope, v_dim;
	/* Gemma 2/3: sliding-window layers attend to the last `window` keys;
	 * layer i is such a layer when (i + 1) % local_period != 0 (Gemma 2
	 * every other, Gemma 3 five of six); 0 none. */
	uint32_t window, local_period;
	int embed_scale;      /* Gemma (1, 2, 3): embeddings x sqrt(hidden)  */
	int norm_unit_offset; /* Gemma (1, 2, 3): RMSNorm scales by 1 +
			       * weight, in FP32, and casts last           */
	int sandwich_norm;    /* Gemma 2/3: norms after attention and around
			       * the MLP too (four a layer)                */
	int final_softcap;    /* Gemma 2: tanh soft-capping of the logits    */
	int attn_softcap;     /* Gemma 2: and of every attention score       */
	int oss;              /* gpt-oss: attention sinks (a logit per head
			       * in each row's softmax), biased o_proj and
			       * router, its experts' clamped GLU (model.c,
			       * mlp_topk)                                  */
	/* What Hugging Face's eager modules as model.c builds them lack for
	 * this config (Qwen2-MoE's shared experts): the reason hf refuses it,
	 * "" when none.  The engine builder builds it. */
	char hf_refusal[200];
	/* A quantized checkpoint: quantization_config's quant_method ("fp8",
	 * "awq", "gptq", "compressed-tensors", ...; "quantized" when it names
	 * none), "" when none.  Its weights are built in --dtype all the same
	 * (no quantized GEMM is built); the run says so in its warning. */
	char quant[24];
	/* Its quantization_config's weight bits (bits, AWQ's w_bit), group
	 * size (group_size, AWQ's q_group_size; -1 or 0: a scale per output
	 * channel) and whether a group carries a zero point (AWQ's
	 * zero_point, true by default; GPTQ's sym false); 0 when not given. */
	uint32_t quant_bits;
	int32_t quant_group;
	int quant_zeros;
	/* What the engines serve it as: FP8 linears, W8A8 (quant_method fp8;
	 * compressed-tensors with FP8 weights and activations), or weight-only
	 * of quant_bits (AWQ, GPTQ; compressed-tensors with integer weights
	 * and no activation quantization); neither for any other. */
	int quant_fp8, quant_weight_only;
	/* A group's scale in bytes (0: 16-bit, 2; MXFP4's E8M0: 1) and
	 * whether only the experts' linears are quantized (MXFP4's gpt-oss). */
	uint32_t quant_scale_bytes;
	int quant_experts_only;
	/* The checkpoint's torch_dtype ("bfloat16", "float16", "float32";
	 * newer configs write it as "dtype"), "" when the config names none
	 * (a built-in): what vLLM's and SGLang's --dtype auto serves
	 * (model_engine_dtype()). */
	char torch_dtype[16];
	/* The positions the model was trained for (max_position_embeddings,
	 * else GPT-2's n_positions or n_ctx), 0 when the config gives none
	 * (T5's relative buckets, a built-in without the key); whether its
	 * position embedding is a learned table of that many rows (GPT-2,
	 * GPT-Neo, BERT, OPT: a position past it has no row, and the program
	 * fails) rather than rotary (a longer sequence runs, beyond what the
	 * model learnt).  run.c refuses or warns (model_positions_check()). */
	uint32_t max_positions;
	int learned_positions;
};

/* MODEL_DECODE: one step of autoregressive generation with the KV cache
 * (Hugging Face generate() in eager mode): each of the batch's sequences
 * adds one token to seq cached ones.  MODEL_GENERATE: a whole generate()
 * call, the prompt's forward pass then the decode steps; run.c puts
 * it together from an inference and a decode build (model_build refuses
 * it). */
enum model_mode { MODEL_INFERENCE = 0, MODEL_TRAINING, MODEL_DECODE, MODEL_GENERATE,
		  MODEL_PREFILL, MODEL_SERVE };
/* Who runs the model: Hugging Face transformers in eager mode (model.c),
 * or a serving engine's kernels (serve.c): vLLM V1, SGLang.  MODEL_PREFILL
 * (one forward over a batch of prompts of their own lengths) and
 * MODEL_SERVE (that prefill, then decode steps over the growing cache; run.c
 * puts it together, model_build refuses it) are the engines' modes. */
enum model_engine { MODEL_ENGINE_HF = 0, MODEL_ENGINE_VLLM, MODEL_ENGINE_SGLANG };
enum model_optimizer { MODEL_OPTIM_NONE = 0, MODEL_OPTIM_SGD, MODEL_OPTIM_ADAMW };
/* EAGER: the modules' matmul-softmax-matmul; SDPA: one fused kernel per
 * call (F.scaled_dot_product_attention) with K/V repeated per query head.
 * The others are fused attention kernels as attn.h describes them
 * (backward in training), KV heads read as they are: FLASH as flash-attn
 * picks it per GPU (FA3 on Hopper, FA2 elsewhere; under MODEL_STACK_TE
 * cuDNN's, as Transformer Engine picks it); FA2; FA3 (compute capability
 * 9.x only); CUDNN (cuDNN's fused flash attention: TE's FusedAttention,
 * PyTorch's cuDNN SDPA backend); FLASHINFER (inference only: it has no
 * backward); TRITON (flash-attn's Triton kernel, flash_attn_triton.py, as
 * llm-foundry's attn_impl triton runs it; head dims up to 128). */
enum model_attention { MODEL_ATTN_EAGER = 0, MODEL_ATTN_SDPA, MODEL_ATTN_FLASH, MODEL_ATTN_FA2,
		       MODEL_ATTN_FA3, MODEL_ATTN_CUDNN, MODEL_ATTN_FLASHINFER, MODEL_ATTN_TRITON,
		       MODEL_ATTN_COUNT };
/* Activation checkpointing: none; selective (torchtitan's per-op policy:
 * the matmuls' and attention's outputs saved, every second matmul of a
 * block and every other op recomputed; under MODEL_STACK_TE Megatron's
 * core-attention recompute); full (each block's forward run again before
 * its backward, only the block's input kept). */
enum model_ckpt { MODEL_CKPT_NONE = 0, MODEL_CKPT_SELECTIVE, MODEL_CKPT_FULL };
/* How the step is built: eager PyTorch (one kernel per ATen op); compile
 * (torch.compile / Inductor: each chain of pointwise ops and reductions
 * between two library kernels one Triton kernel); te (Transformer Engine
 * and Megatron's fusions: the same chains fused, Q/K/V and gate/up as one
 * GEMM, the wgrad GEMM accumulating into the FP32 main gradient). */
enum model_stack { MODEL_STACK_EAGER = 0, MODEL_STACK_COMPILE, MODEL_STACK_TE };
/* FP8 linears (--dtype fp8): how the scales are taken (torchao float8's
 * tensorwise and rowwise; Transformer Engine's delayed scaling; MXFP8, a
 * power-of-two scale per 32 elements, Blackwell's block-scaled GEMMs:
 * TE's MXFP8BlockScaling). */
enum model_fp8_recipe { MODEL_FP8_TENSORWISE = 0, MODEL_FP8_ROWWISE, MODEL_FP8_DELAYED,
			MODEL_FP8_MXFP8 };
/* How a 16-bit training run keeps its state (memory.c): pure (the model
 * cast to the dtype, as the Hugging Face harness does: weights, gradients
 * and AdamW's moments all 16-bit) or mixed (FP32 master weights and
 * moments; Megatron's FP32 main gradients under te).  AUTO: mixed under
 * --stack te, FP8 or more than one GPU, of any parallelism, at any ZeRO
 * stage (the stacks that shard, replicate or split a model keep FP32
 * masters at every stage: Megatron/NeMo, nanotron, torchtitan,
 * llm-foundry, DeepSpeed; only the sharding changes with --zero); pure on
 * one GPU, as the harness trains.
 * AUTOCAST: torch.autocast over FP32 parameters (Hugging Face Trainer's
 * bf16=True / fp16=True, torch.amp with DDP): the state of MIXED, and
 * under the eager stack the casts autocast launches on every call (ops.c,
 * model_autocast()); in inference, Hugging Face's FP32 model under
 * torch.autocast.  No effect in FP32/TF32. */
enum model_precision { MODEL_PREC_AUTO = 0, MODEL_PREC_PURE, MODEL_PREC_MIXED, MODEL_PREC_AUTOCAST };
/* Which FSDP runs --zero 2|3 (model.c's fsdp_impl(); what each copies
 * around its collectives): AUTO is FSDP2 (fully_shard: torchtitan, NeMo
 * AutoModel) under eager and compile, Megatron-Core's FSDP (gradients
 * and parameters in its own flat buffers: no copies) under --stack te;
 * 1 is FSDP1 (FullyShardedDataParallel with flat parameters: llm-foundry
 * / Composer). */
enum model_fsdp { MODEL_FSDP_AUTO = 0, MODEL_FSDP_1, MODEL_FSDP_2, MODEL_FSDP_MEGATRON };
/* The head on top of the layers: the pretraining / language-model head
 * (LM head; BERT: BertForPreTraining's MLM + NSP heads), or a sequence
 * classifier with MODEL_CLASSIFY_LABELS outputs (HF *ForSequenceClassification:
 * BERT's pooler, dropout and classifier on the first token; decoders' final
 * norm and a bias-free score projection of every token). */
enum model_head { MODEL_HEAD_LM = 0, MODEL_HEAD_CLASSIFY };
/* How a pipeline (--pp) splits the layers over its stages
 * (--pp-partition, stage.c): UNIFORM as Megatron does by default (each
 * stage layers / pp of them, the embedding on the first, the final norm,
 * LM head and loss on the last); COST as nanotron's build_model does
 * (each pipeline block to the stage of its cumulative compute cost: a
 * decoder layer 4 h^2 + 3 h ffn, the LM head V h, everything else 0). */
enum model_pp_partition { MODEL_PP_UNIFORM = 0, MODEL_PP_COST };
#define MODEL_CLASSIFY_LABELS 2

/* What is run: one iteration of batch x seq tokens (decode: batch tokens,
 * each attending to seq cached ones and itself). */
struct model_opts {
	uint32_t batch, seq;
	enum model_mode mode;
	enum gpu_dtype dtype;          /* FP32, TF32, BF16 or FP16            */
	enum model_optimizer optimizer;
	enum model_attention attention;
	enum model_head head;          /* LM / pretraining head or classifier */
	int loss;                      /* training: log_softmax + nll (+ backward) */
	int fused_optimizer;           /* AdamW(fused=True): one kernel a pass */
	int adam_8bit;                 /* bitsandbytes' AdamW8bit: both moments
					* in 8 bits, a block's FP32 absmax per
					* 256, one kernel per parameter tensor */
	double power_limit_w;          /* --power-limit: the boards run capped at
					* this, W (below each target's TDP,
					* model_target_check); 0 at their TDP  */
	uint32_t dp, tp, pp;           /* parallel degrees (1 = none)         */
	uint32_t microbatches;         /* pipeline microbatches (pp > 1)      */
	/* Training state sharded over the dp ranks (ZeRO stages): 0 none
	 * (DDP), 1 the optimizer's state (ZeroRedundancyOptimizer over DDP),
	 * 2 and the gradients (FSDP SHARD_GRAD_OP), 3 and the parameters
	 * (FSDP FULL_SHARD).  No effect with dp 1. */
	uint32_t zero;
	enum pred_method method;       /* kernel predictor (PRED_AUTO default) */
	const struct predictor *pred;  /* its state; NULL: the defaults      */
	double interval;               /* probability of the intervals (0..1);
					* 0: the analysis's default        */
	/* Mixture of experts: tokens each expert takes per sequence at most;
	 * 0 (default) every routed token, MODEL_CAPACITY_CONFIG the config's
	 * expert_capacity (Hugging Face's router drops the rest). */
	int64_t expert_capacity;
	enum model_ckpt act_ckpt;      /* activation checkpointing            */
	uint32_t ckpt_layers;          /* --act-ckpt-layers: under full, only
					* the first N layers of each pipeline
					* stage recomputed (Megatron's
					* recompute_method block), the others
					* keep everything; 0 every layer      */
	enum model_stack stack;        /* eager, compile or te                 */
	int liger;                     /* --liger: Liger's Triton kernels patched
					* into the Hugging Face modules
					* (use_liger_kernel=True): fused RMSNorm
					* (fused_norm set too), RoPE, SwiGLU or
					* GeGLU, and in training the LM head's
					* fused linear cross-entropy           */
	int fused_norm;                /* --norm fused: each RMSNorm one kernel
					* forward and one backward (with its
					* weight's partial sums reduced after),
					* not Hugging Face's eager chain       */
	int norm_given;                /* --norm given (eager or fused)        */
	enum model_precision precision; /* training state: pure or mixed      */
	int cuda_graphs;               /* each compiled region (a block's
					* forward, its backward) replayed as
					* a CUDA graph                        */
	/* Linears in FP8 (dtype is then BF16 for everything else). */
	int fp8;
	enum model_fp8_recipe fp8_recipe;
	/* Engines: the decoder's linears weight-only quantized, as vLLM and
	 * SGLang serve AWQ and GPTQ checkpoints (Marlin kernels): the bytes a
	 * weight takes with its scales and zero points (4-bit, a 16-bit scale
	 * per 128: 0.5156), the math in dtype; 0 none (serve.c). */
	double wq_bytes;
	int wq_experts_only;      /* only the experts' linears are (gpt-oss) */
	/* Gradients accumulated in an FP32 buffer over the micro-batches
	 * (nanotron's accumulate_grad_in_fp32): each AccumulateGrad add reads
	 * the gradient and reads and writes the FP32 buffer.  --stack te does
	 * it in the weight-gradient GEMM (Megatron's main_grad) regardless. */
	int grad_fp32;
	/* --offload: the optimizer's step on the host's CPUs (DeepSpeed's
	 * offload_optimizer with device cpu: ZeRO-Offload), with --zero 1-3:
	 * the rank's gradients copied to the host, AdamW there, the 16-bit
	 * parameters copied back; the FP32 state in host memory (model.c
	 * offload_step(), memory.c).  host_mem_gbps: --host-mem-gbps, the
	 * host's DRAM bandwidth per node, GB/s (0: the system's,
	 * systems.csv); host_rank_gbps: a rank's share of it, set by
	 * model_opts_place(). */
	int offload;
	double host_mem_gbps, host_rank_gbps;
	/* No gradient-norm clipping before the optimizer step (the stacks
	 * clip at 1.0 by default: Megatron's --clip-grad, torch's
	 * clip_grad_norm_ in torchtitan, nanotron, the HF Trainer). */
	int no_grad_clip;
	/* --fsdp: the FSDP implementation (--zero 2|3), and --fsdp-reduce:
	 * the dtype FSDP reduce-scatters the gradients in, bytes an element
	 * (0: 4 when the training state is mixed precision, FSDP2's
	 * reduce_dtype in torchtitan and Composer's DEFAULT mode; else the
	 * dtype's; 2: Composer's PURE mode) */
	enum model_fsdp fsdp;
	uint32_t fsdp_reduce_bytes;
	/* Micro-batches per optimizer step (gradient accumulation, 1 none):
	 * batch sequences each; DDP and ZeRO-1 synchronize the gradients on
	 * the last one only (no_sync), FSDP on every one. */
	uint32_t grad_accum;
	/* --lora R: low-rank adapters of rank R (PEFT's LoraConfig) on the
	 * decoder layers' linears, the model frozen (training only); with
	 * lora_attn_only on the attention projections alone */
	uint32_t lora_rank;
	int lora_attn_only;
	/* --qlora: the adapted linears' frozen weights in bitsandbytes' NF4
	 * (QLoRA), dequantized to --dtype before each GEMM that reads them */
	int qlora;
	enum model_engine engine;      /* MODEL_ENGINE_HF by default           */
	int kv_fp8;                    /* engines: --kv-cache-dtype fp8, the KV
					* cache stored in FP8 (serve.c)         */
	/* Engines: the batch's sequences, each of its own length (borrowed;
	 * NULL: batch sequences of seq tokens).  Prefill and serve: the prompt
	 * lengths; decode: the tokens each sequence has cached. */
	const uint32_t *lens;
	uint32_t nlens;
	uint32_t chunk;                /* prefill: tokens per forward pass at
					* most (chunked prefill), 0 all at once */
	uint32_t new_tokens;           /* serve: tokens generated per sequence
					* (the most of new_lens when given)    */
	/* serve: the tokens each of the batch's sequences generates (borrowed,
	 * count_of(o) of them; NULL: new_tokens each).  A sequence leaves the
	 * batch after its last token, as the engines' schedulers free it. */
	const uint32_t *new_lens;
	/* The most kernels the build may hold, 0 the default (build.h's
	 * MODEL_MAX_KERNELS); past it model_build fails with SURFER_EINVAL. */
	uint32_t max_kernels;
	/* The machine (model_opts_place): the system (gpu_specs/systems.csv;
	 * NULL: the target's default), GPUs per node (0 with no system, no
	 * --nodes and no --gpus-per-node: one node holds every rank, as
	 * before), nodes (0: as many as the ranks take).  Ranks are laid out
	 * tensor-parallel fastest, then context-, data-parallel, then pipeline
	 * stages (Megatron's order): a TP group stays in a node, a DP group
	 * crosses nodes once tp x cp x dp exceeds one. */
	const struct gpu_system *system;
	uint32_t nodes, gpus_per_node;
	/* GPUs one NVLink domain joins where it spans hosts (GB200 NVL72: 72
	 * of 18 hosts of 4), set with gpus_per_node by model_place_domain():
	 * collectives among ranks of one domain stay off the network; 0: a
	 * domain is a host */
	uint32_t nvlink_gpus;
	/* FSDP (--zero 2 or 3) as HSDP: parameters sharded over the data-
	 * parallel ranks of one node, replicated across nodes; gradients
	 * reduce-scattered in the node, then all-reduced across */
	int hsdp;
	/* Sequence parallelism with tensor parallelism (Megatron's
	 * sequence_parallel, nanotron's tp_mode REDUCE_SCATTER; tp > 1):
	 * outside the tensor-parallel regions (norms, residual adds,
	 * dropout, pipeline sends) the activations are split over the tp
	 * ranks along the sequence, T / tp tokens each; a column-parallel
	 * linear's input is all-gathered (its gradient reduce-scattered in
	 * backward) and a row-parallel linear's output reduce-scattered
	 * (its gradient all-gathered) instead of the all-reduces.  In
	 * training the activations kept for backward between those regions
	 * split the same way (memory.c). */
	int sp;
	/* Context parallelism: the sequence split over cp ranks; attention's
	 * keys and values passed around the ring (ring attention), overlapped
	 * with the attention compute; 0 or 1 none */
	uint32_t cp;
	/* Expert parallelism: the routed experts of each MoE layer split over
	 * ep ranks (0 or 1 none).  Training: ep data-parallel ranks (ep
	 * divides dp; ranks tensor-parallel fastest, then context, then expert
	 * parallel, as Megatron-Core orders them) hold a dp-th of the experts
	 * each, the routed tokens dispatched to them and combined back by
	 * all-to-all; engines: ep equals tp, each GPU holding E / ep whole
	 * experts instead of a tp-th of every one, or dp with tp 1 (data-
	 * parallel attention, the tokens moved by all-to-all). */
	uint32_t ep;
	/* Training with ep > 1, DeepSeek-V3's all-to-all (its report, section
	 * 3.2.2 and 3.3.2; DeepEP's kernels): each token's rows go to at most
	 * moe_route_nodes nodes (0: no limit), one copy per node over the
	 * network, forwarded inside it over NVLink; moe_dispatch_fp8: the two
	 * all-to-alls that move rows towards the experts (the forward's
	 * dispatch, the combine's gradient) in FP8 with a scale per 128
	 * elements, the two back in BF16; moe_a2a_overlap: each all-to-all on
	 * the side stream, hidden behind the compute that follows it until
	 * the next one (DualPipe, Megatron-Core's EP A2A overlap). */
	uint32_t moe_route_nodes;
	int moe_dispatch_fp8;
	int moe_a2a_overlap;
	/* DeepSeek-V3's multi-token prediction modules in training (its
	 * num_nextn_predict_layers; 0 default: off) */
	uint32_t mtp;
	/* Interleaved 1F1B (Megatron's virtual pipeline stages, --pp only):
	 * each pipeline rank's layers cut into vpp model chunks of
	 * layers / (pp x vpp), rank r holding chunks r, r + pp, ...: the
	 * bubble (pp - 1) / vpp microbatch times, vpp boundary crossings each
	 * way per microbatch; 0 or 1 none */
	uint32_t vpp;
	enum model_pp_partition pp_partition;
	/* The pipeline stage built, plus one (0: the last, the one holding
	 * the LM head); model_pp_pick_stage() (run.h) sets it to the slowest
	 * where the stages differ by more than the head. */
	uint32_t pp_stage;
};
#define MODEL_CAPACITY_CONFIG (-1)

/* Sets o to: inference, fp32, eager attention, no loss, no optimizer, no
 * parallelism, batch 1, seq 128. */
void model_opts_init(struct model_opts *o);

/* The process groups a collective runs in. */
enum model_group {
	MODEL_GROUP_TP, MODEL_GROUP_CP, MODEL_GROUP_DP, MODEL_GROUP_PP,
	MODEL_GROUP_SHARD,     /* HSDP: the data-parallel ranks of one node  */
	MODEL_GROUP_REPLICA,   /* HSDP: one rank of each node's shard group  */
	MODEL_GROUP_EP,        /* the ranks that split one layer's experts   */
	MODEL_GROUP_EDP,       /* the ranks that hold the same experts: the
				* data-parallel group of the expert weights */
	MODEL_GROUP_EMBED,     /* the first and the last pipeline stage (the
				* tied embedding and LM head) */
};

/* Ranks of group g under o and how many of them share a node (o's
 * layout: model_opts above); every rank in one node when o places none.
 * MODEL_GROUP_DP is the dp x cp ranks of model_grad_ranks(). */
void model_group(const struct model_opts *o, enum model_group g, uint32_t *ranks,
		 uint32_t *node_ranks);

/* o's context-parallel degree (1 when unset). */
uint32_t model_cp(const struct model_opts *o);

/* o's expert-parallel degree (1 when unset). */
uint32_t model_ep(const struct model_opts *o);

/* The ranks that hold the same parameters and sum their gradients: the
 * data-parallel degree times the context-parallel one (each CP rank
 * computes its part of the sequence's gradients; torchtitan's FSDP and
 * Megatron's distributed optimizer shard and reduce over dp x cp). */
uint32_t model_grad_ranks(const struct model_opts *o);

/* The ranks FSDP shards the training state over: model_grad_ranks(), or
 * under HSDP those of one node. */
uint32_t model_shard_ranks(const struct model_opts *o);

/* Places o's ranks on nodes for target g: with --system, --nodes or
 * --gpus-per-node, fills gpus_per_node (the system's, or g's default
 * system's, else 8) and, with nodes and no --dp, the data-parallel degree
 * that fills them.  0, or SURFER_EINVAL with a one-line reason in err
 * (the layout does not fill the nodes, --hsdp without FSDP or nodes). */
int model_opts_place(struct model_opts *o, const struct gpu_spec *g, char *err, size_t errlen);

/* Sets o->nvlink_gpus from the system o's ranks run on (o->system, or g's
 * default): its NVLink domain where that spans more GPUs than the host's
 * gpus_per_node o runs on, else 0.  model_opts_place() calls it. */
void model_place_domain(struct model_opts *o, const struct gpu_spec *g);

/* --offload on target g: sets o->host_rank_gbps, a rank's share of the
 * host's DRAM bandwidth (--host-mem-gbps or the system's host_mem_gbps,
 * over its GPUs per node).  0 (nothing to do without --offload), or
 * SURFER_EINVAL with the reason in err when the system's figure is
 * unknown and none was given.  model_opts_place() calls it. */
int model_offload_place(struct model_opts *o, const struct gpu_spec *g, char *err, size_t errlen);

enum model_phase {
	MODEL_PH_FORWARD = 0, MODEL_PH_BACKWARD, MODEL_PH_OPTIMIZER, MODEL_PH_COMM,
	MODEL_PH_COUNT
};

/* One kernel launch of the sequence.  k.name points to a static string. */
/* Bytes an NF4 weight takes in bitsandbytes' 4-bit storage as QLoRA loads
 * a model (bnb_4bit_quant_type nf4, bnb_4bit_use_double_quant): 4 bits,
 * an absmax per block of 64 weights quantized to 8 bits, and an FP32 scale
 * of those per 256 blocks: 0.5 + 1/64 + 4/16384. */
#define MODEL_NF4_BYTES (0.5 + 1.0 / 64 + 4.0 / 16384)

struct model_kernel {
	struct pred_kernel k;
	enum model_phase phase;
	int32_t layer;          /* transformer layer, -1 outside the layers    */
	enum comm_op comm;   /* MODEL_PH_COMM: which collective            */
	uint32_t ranks;         /* MODEL_PH_COMM: group size                  */
	uint32_t node_ranks;    /* MODEL_PH_COMM: ranks of the group in one
				 * node; 0 packed (as many as a node holds) */
	/* 0 on the compute stream; MODEL_ASYNC_AFTER on the side stream once
	 * the compute stream's work so far is done (a gradient bucket);
	 * MODEL_ASYNC_FREE on the side stream, depending on nothing (an FSDP
	 * all-gather of parameter shards, issued ahead). */
	int async;
	uint32_t wait;          /* 1 + index of the collective this kernel
				 * waits for (its layer's parameters), 0 none */
	/* Launched by a CUDA graph replay (nonzero: the graph's id): a run of
	 * consecutive kernels of one graph is one graph launch for the CPU
	 * (program.c). */
	uint8_t graph;
	/* The CPU work before this kernel's launch beyond one launch (an
	 * engine step's scheduling and input preparation), ns. */
	double cpu_before_ns;
	/* The CPU waits for every stream before this kernel's launch (the
	 * previous engine step's result read back). */
	uint8_t sync_before;
	/* A broadcast operand that is read again for every repetition unless
	 * it stays in L2 (an attention mask [B,1,S,S] added to the scores of
	 * every head): the DRAM bytes the re-reads add, and the bytes the
	 * kernel streams between two uses of one of its elements.
	 * pred_reread_bytes() says which a GPU pays. */
	double reread_bytes, reuse_bytes;
	/* MODEL_ROLE_GRAD_ACC: AccumulateGrad's add into .grad (eager, outside
	 * any compiled graph; Megatron's wgrad GEMM does it itself);
	 * MODEL_ROLE_PER_STEP: once per optimizer step, not per micro-batch
	 * (Transformer Engine's FP8 weight casts); MODEL_ROLE_DP_SYNC: a data-
	 * parallel gradient all-reduce (DDP's buckets), on the last micro-batch
	 * only; MODEL_ROLE_RECOMPUTE: a forward kernel run again in backward;
	 * MODEL_ROLE_FSDP_COPY: FSDP's copies around its collectives (outside
	 * any compiled graph, never fused). */
	uint8_t role;
	/* Under a pipeline (pp > 1): issued once a step with the data-parallel
	 * collectives after the last microbatch, not in every microbatch
	 * (FSDP2's copy-out and copy-in around the gather and reduce-scatter
	 * it runs once a step there, model.c sharded()). */
	uint8_t step_once;
	/* A copy between the device and the host's pinned memory in place of
	 * a kernel (MODEL_COPY_DTOH, _HTOD; k.bytes its size), blocking the
	 * CPU until it is done: --offload's gradients and parameters; the
	 * count of a nonzero (op_nonzero()). */
	uint8_t copy;
	/* Launched from C++ by the same aten op as the kernel before it (a
	 * nonzero's copy and select, the indexing kernel after them), not by
	 * a call from Python: its CPU cost is one launch
	 * (MODEL_LAUNCH_NS_DEFAULT), not a forward op's (model_cpu_ns()). */
	uint8_t in_op;
	/* An optimizer step's launch that opens a foreach or fused op: the
	 * parameter tensors of the op's lists (its CPU cost grows with them,
	 * MODEL_CPU_FOREACH_TENSOR_NS); the op's further launches are in_op. */
	uint32_t op_tensors;
};
enum { MODEL_COPY_NONE = 0, MODEL_COPY_DTOH, MODEL_COPY_HTOD };

enum { MODEL_ASYNC_AFTER = 1, MODEL_ASYNC_FREE = 2 };
enum { MODEL_ROLE_NONE = 0, MODEL_ROLE_GRAD_ACC, MODEL_ROLE_PER_STEP, MODEL_ROLE_DP_SYNC,
       MODEL_ROLE_RECOMPUTE, MODEL_ROLE_FSDP_COPY };

/* The kernel sequence of one iteration on one GPU (one pipeline stage). */
struct model_seq {
	struct model_kernel *v;
	size_t n, cap;
	double params;          /* parameters held by this GPU                */
	double params_fp8;      /* of params: held in FP8, one byte each (an
				 * engine's FP8 linears, serve.c)           */
	double params_wq;       /* of params: weight-only quantized, wq_bytes
				 * each (an engine's AWQ/GPTQ linears)      */
	double params_total;    /* parameters of the whole model              */
	double params_trainable; /* of params: the ones a training step
				  * trains (all, or --lora's adapters)      */
	double params_nf4;      /* of params: held in NF4 (--qlora),
				  * MODEL_NF4_BYTES each                    */
	uint32_t param_tensors_trainable;
	uint32_t param_tensors; /* parameter tensors held by this GPU         */
	uint32_t stage_layers;  /* layers run by this GPU                     */
	double kv_cache_bytes;  /* decode: the K and V cache this GPU holds    */
	/* an engine's cache by layer kind (serve.c): bytes a cached token
	 * takes in the full-context layers and in the sliding-window ones
	 * of this GPU, and the window those keep (0 none) */
	double kv_token_bytes, kv_window_token_bytes;
	uint32_t kv_window;
	uint64_t micro_batch;   /* sequences of one (pipeline micro)batch      */
	uint32_t microbatches;  /* microbatches of the iteration (1 unless pp) */
	uint32_t first_layer;   /* first layer of this GPU's stage             */
	/* FSDP's units (--zero 2, 3): each layer, and the root (embeddings,
	 * final norm and head); their parameters held by this GPU. */
	double layer_params;    /* the largest layer's                        */
	double root_params;     /* the root's                                 */
	double act_peak_bytes;  /* engines: the largest short-lived tensors of
				 * a pass (activations, fp32 logits)        */
	double expert_params;   /* of params: the routed experts' weights
				 * (split over the expert-parallel ranks;
				 * their optimizer state sharded over the
				 * expert data-parallel group)              */
};

/* Errors are surfer_err codes (trace/surfer_err.h): SURFER_EINVAL (a bad
 * option or an inconsistent configuration), SURFER_ENOMEM, SURFER_ECORRUPT
 * (a config file unreadable or malformed), SURFER_EUNKNOWN (an unknown
 * built-in name or architecture). */

/* The microbatches an iteration under o runs: 1 without pipeline stages,
 * else o->microbatches (0: as many as stages), at most one per sequence. */
uint32_t model_microbatches(const struct model_opts *o);

/* Builds the kernel sequence of c run as o into s (initialized here; the
 * caller releases it with model_seq_release).  Returns 0, or SURFER_EINVAL
 * with a reason in err when o or c cannot be run (tp not dividing the
 * heads, zero sizes, ...). */
int model_build(const struct model_config *c, const struct model_opts *o,
		struct model_seq *s, char *err, size_t errlen);

/* Releases s; its kernel array is kept for the thread's next build when it
 * is the largest the thread has released (model_thread_cache_drop() frees
 * it). */
void model_seq_release(struct model_seq *s);
/* Frees what this thread's builds and model_time() keep for the next one
 * (the largest kernel array and program buffer released): a thread that
 * builds and times no more calls it before it ends. */
void model_thread_cache_drop(void);

/* Whether layer i (encoder layers first, then the decoder's) of a T5 /
 * Switch model has a sparse MLP (every sparse_step-th of each stack). */
int model_layer_sparse(const struct model_config *c, uint32_t i);

/* Tokens each expert takes per sequence at most under o, 0 for all. */
uint64_t model_expert_capacity(const struct model_config *c, const struct model_opts *o);

/* The kernel model_build emits for one FP32 forward operator of an eager
 * run, for comparisons with measured operators: a GEMM batch x (m x k) *
 * (k x n) (PRED_OP_GEMM; rows = m, cols = n), an element-wise op over rows
 * x cols reading nin tensors per element with flops per element
 * (PRED_OP_ELEMENTWISE), a softmax or a layer norm over rows of cols
 * (PRED_OP_SOFTMAX, PRED_OP_NORM).  0, or -1 (another op, a zero size). */
int model_forward_kernel(enum pred_op op, uint64_t batch, uint64_t rows, uint64_t cols,
			 uint64_t k, double nin, double flops, struct pred_kernel *out);

/* Sum of the FLOPs of the sequence's kernels of one phase. */
double model_seq_flops(const struct model_seq *s, enum model_phase ph);
/* The K and V cache, bytes on this GPU, of an engine's n sequences of
 * len[i] + add cached tokens each, from s's per-token figures (serve.c):
 * a sliding-window layer holds the last kv_window of them. */
double model_kv_cache_bytes(const struct model_seq *s, const uint32_t *len, uint32_t n, uint32_t len_all,
			    double add);
/* The K and V cache, bytes on this GPU, of o's served batch (--mode
 * serve) at its fullest: each sequence's prompt and the tokens it has fed
 * back, the sequences that ended freed (o->new_lens); with one new_tokens
 * for all, the cache the last step holds. */
double model_serve_kv_bytes(const struct model_seq *s, const struct model_opts *o);

/* Number of kernels of one phase. */
size_t model_seq_count(const struct model_seq *s, enum model_phase ph);

/* ---- configs (config.c) -------------------------------------------- */

/* Reads a Hugging Face config.json.  Returns 0, SURFER_ECORRUPT (unreadable
 * or not JSON, reason in err) or SURFER_EUNKNOWN (architecture it does not
 * know).  The name is the file's base name without ".json". */
int model_config_load(const char *path, struct model_config *c, char *err, size_t errlen);

/* Same over a JSON text; name is copied into c->name. */
int model_config_parse(const char *json, const char *name, struct model_config *c,
		       char *err, size_t errlen);

/* Fills c with the built-in model name (case-insensitive; '-', '_' and '.'
 * ignored).  Returns 0 or SURFER_EUNKNOWN. */
int model_config_builtin(const char *name, struct model_config *c);

/* A built-in name or a config file path: tries the file when arg ends in
 * ".json" or names an existing file, else the built-in table. */
int model_config_resolve(const char *arg, struct model_config *c, char *err, size_t errlen);

/* The built-in names, NULL-terminated. */
const char *const *model_config_builtin_names(void);

/* The model's parameters, approximately (weights of the attention and MLP
 * projections and the embeddings; biases and norms left out). */
double model_config_params(const struct model_config *c);

/* Prints the built-in models (name, architecture, layers, hidden size,
 * heads, experts, parameters) as text or JSON.  0, or -1 on a write error. */
int model_list_print(FILE *f, int json);

const char *model_family_name(enum model_family f);
const char *model_phase_name(enum model_phase p);
int model_mode_parse(const char *s, enum model_mode *out);
/* The mode's name as --mode spells it; with engine set, inference (a
 * forward over the prompts) is named prefill, as an engine runs it. */
const char *model_mode_name(enum model_mode m, int engine);
/* hf, vllm or sglang. */
int model_engine_parse(const char *s, enum model_engine *out);
const char *model_engine_name(enum model_engine e);

/* The first flag set in o that only a training step has (--act-ckpt,
 * --grad-accum, --grad-fp32, --no-grad-clip, --fsdp-reduce), as the user
 * wrote it; NULL when none.  Refused outside --mode training and on a
 * serving engine, never silently dropped. */
const char *model_training_flag(const struct model_opts *o);
int model_optimizer_parse(const char *s, enum model_optimizer *out);
/* --attention: eager, sdpa, flash, fa2, fa3, cudnn, flashinfer, triton;
 * 0 or SURFER_EINVAL. */
int model_attention_parse(const char *s, enum model_attention *out);
const char *model_attention_name(enum model_attention a);
/* The fused kernel family o's attention runs (PRED_ATTN_NONE for eager and
 * SDPA): FLASH under --stack te is cuDNN's (Transformer Engine picks its
 * FusedAttention on Hopper and later when it qualifies, and on 16-bit
 * inputs: not FP32). */
enum pred_attn_impl model_attention_impl(const struct model_opts *o);
/* fp32, tf32, bf16, fp16 (also float32, float16, bfloat16); fp8 is
 * parsed by model_cli_set (BF16 with FP8 linears). */
int model_dtype_parse(const char *s, enum gpu_dtype *out);

/* ---- memory (memory.c) --------------------------------------------- */

/* The device memory one iteration takes on one GPU, in bytes, as PyTorch's
 * caching allocator counts it (torch.cuda.max_memory_allocated): the
 * tensors autograd keeps for the backward pass, from the Hugging Face
 * modules' ops and what each op saves (derivatives.yaml), plus the state
 * and the short-lived tensors at the moment of the peak.  The CUDA context
 * and the allocator's fragmentation come on top and are not counted. */
struct model_memory {
	double weights;      /* parameters at the dtype's size                 */
	double gradients;    /* training: their gradients (DDP: and its buckets) */
	double optimizer;    /* AdamW's two moments (--stack te mixed: and the
			      * FP32 master copy)                         */
	double activations;  /* training: the tensors saved for backward, of
			      * every microbatch in flight on the stage      */
	double kv_cache;     /* decode and generate: the K and V cache         */
	double transient;    /* tensors alive only around the peak (logits and
			      * their gradient, attention scores in inference,
			      * AdamW's temporary)                          */
	double peak;         /* the most allocated at any one time            */
};

/* Fills m for c run as o, s being the sequence model_build made of it
 * (its params, stage and microbatch).  The peak is not the sum of the
 * parts: a training step peaks either where the backward pass starts
 * (every activation saved) or at its end (every gradient made), whichever
 * is higher, and AdamW's step after it. */
void model_memory(const struct model_config *c, const struct model_opts *o,
		  const struct model_seq *s, struct model_memory *m);

/* CPU cost of one eager PyTorch op launch, ns: Python + dispatcher +
 * cudaLaunchKernel.  See program.c for the source of the figure.  The flat
 * cost of what model_cpu_ns() does not model (collectives, the serving
 * engines' kernels). */
#define MODEL_LAUNCH_NS_DEFAULT 6000.0

/* The CPU time of one forward aten op called from Python with its kernel,
 * ns: 11-18 us per eager torch.matmul in a Python loop without syncs
 * (NVIDIA DGX Cloud benchmarking, microbenchmarks/cpu_overhead/README.md),
 * the middle taken.  Hugging Face's eager modules add their nn.Module
 * calls: ~5 us an nn.Linear, 2-3 us an empty module (pytorch/pytorch PR
 * #50431); MODEL_CPU_LAYER_MODULES of the latter per decoder layer (the
 * layer, its attention and MLP containers, two norms, the activation). */
#define MODEL_CPU_FORWARD_NS 14500.0
#define MODEL_CPU_LINEAR_CALL_NS 5000.0
#define MODEL_CPU_MODULE_CALL_NS 2500.0
#define MODEL_CPU_LAYER_MODULES 6
/* A backward node issued by the C++ autograd engine, ns: the forward op's
 * figure times the ratio of the two measured on torch.profiler traces
 * (surfer-bench cpu: median interval per kernel between launching nodes
 * over that between launching ops from Python, 0.76 on the A100 traces,
 * 0.80 on the V100 host's). */
#define MODEL_CPU_BACKWARD_NS (MODEL_CPU_FORWARD_NS * 0.76)
/* The CPU time per launch of a foreach optimizer step on the one trace
 * with an optimizer's launches, ns: the forward op's figure times the
 * ratio measured there (surfer-bench cpu: nccl-a100, SGD foreach over
 * ResNet-50's 161 parameter tensors, 11.2 times its forward kernel, 3
 * launches a foreach op).  It sets MODEL_CPU_FOREACH_TENSOR_NS. */
#define MODEL_CPU_OPTIMIZER_NS (MODEL_CPU_FORWARD_NS * 11.2)
/* Bytes a parameter's moment takes under bitsandbytes' AdamW8bit (the
 * adam_8bit option): one byte, and an FP32 absmax per block of 256 (its
 * blockwise dynamic quantization); memory.c holds two such moments a
 * parameter, step.c reads and writes both. */
#define MODEL_ADAM8_MOMENT_BYTES (1.0 + 4.0 / 256)

/* What that walk costs per tensor of an op's lists, ns.  A foreach op is
 * one call from Python (MODEL_CPU_FORWARD_NS) that groups its lists and
 * dispatches over every tensor, then launches from C++
 * (multi_tensor_apply's loop: MODEL_LAUNCH_NS_DEFAULT each) a kernel per
 * 320 chunks of 65536 elements or per list of tensors filled.  The trace's
 * op, 3 launches over 161 tensors, took 3 x MODEL_CPU_OPTIMIZER_NS; what
 * the call and its two further launches leave of it is the lists'. Charged
 * per launch instead, an 8-billion-parameter model's foreach AdamW came
 * out 382 launches an op at 162 us each, 0.5 s of CPU a step. */
#define MODEL_CPU_FOREACH_TENSOR_NS \
	((3 * MODEL_CPU_OPTIMIZER_NS - MODEL_CPU_FORWARD_NS - 2 * MODEL_LAUNCH_NS_DEFAULT) / 161)

/* The CPU time before kernel i of s is launched, ns, as the stack of o
 * issues it (cpu.c): per forward op from Python, plus Hugging Face's
 * module calls at a layer's first forward kernel under eager; per backward
 * node; per optimizer launch; per Inductor kernel plus MODEL_GRAPH_CALL_NS
 * at each compiled block under compile; one launch per CUDA graph replay.
 * The flat --launch-us replaces all of it (program.c). */
double model_cpu_ns(const struct model_opts *o, const struct model_seq *s, size_t i);

/* The launch cost meaning "model_cpu_ns() per kernel" where a launch cost
 * is passed (model_time(), struct model_program). */
#define MODEL_LAUNCH_AUTO (-1.0)

/* The CPU time between two kernel launches of the stack o runs, ns:
 * eager and te MODEL_LAUNCH_NS_DEFAULT; compile 6.5 us (Inductor's
 * CachingAutotuner.run per Triton kernel, tritonbench PR #1016).  With
 * CUDA graphs a graph's replay costs MODEL_GRAPH_CALL_NS instead of its
 * kernels' launches. */
double model_launch_ns(const struct model_opts *o);

/* CPU time of one compiled graph's call with CUDA graphs: ~25 us fixed per
 * graph call (guards, the replay), tritonbench PR #1016's ~33 us for a
 * one-kernel graph end to end. */
#define MODEL_GRAPH_CALL_NS 25000.0

/* Whether o's activation checkpointing applies to the layer rel-th of its
 * pipeline stage of stage_layers layers (0 its first): every layer under
 * selective and full, under full with --act-ckpt-layers N the first N only
 * (Megatron's recompute_method block: the first N layers checkpointed, the
 * rest keep their activations), counted in each model chunk of
 * stage_layers / vpp layers under --vpp (each virtual stage is a model of
 * its own, whose block recomputes its own first N); a rel past the stage's
 * layers (an MTP module) is past N; 0 without checkpointing. */
int model_ckpt_layer(const struct model_opts *o, uint32_t stage_layers, uint32_t rel);

/* Pipeline stage k (0 .. o->pp - 1) of c under o->pp_partition: its
 * first layer in *first and its number of layers in *n (decoder layers
 * counted after the encoder's).  Returns 1 when the stage runs the
 * final norm, the LM head and the loss, 0 when not, SURFER_EINVAL when
 * the partition leaves some stage with neither a layer nor the head (the
 * reason in err, which may be NULL).  Without a pipeline stage 0 holds
 * every layer and the head. */
int model_pp_stage(const struct model_config *c, const struct model_opts *o, uint32_t k,
		   uint32_t *first, uint32_t *n, char *err, size_t errlen);
/* The stage o builds (0 .. pp - 1): o->pp_stage - 1, or the last. */
uint32_t model_pp_built_stage(const struct model_opts *o);
/* --pp-partition: uniform or cost.  0 or SURFER_EINVAL. */
int model_pp_partition_parse(const char *s, enum model_pp_partition *out);

/* Parsers of --act-ckpt (none, selective, full), --stack (eager, compile,
 * te) and --fp8-recipe (tensorwise, rowwise, delayed): 0 or SURFER_EINVAL. */
int model_ckpt_parse(const char *s, enum model_ckpt *out);
int model_stack_parse(const char *s, enum model_stack *out);
/* --precision: pure or mixed (also auto). */
int model_precision_parse(const char *s, enum model_precision *out);
/* Parses --fsdp (1, 2, megatron, auto): 0 or SURFER_EINVAL. */
int model_fsdp_parse(const char *s, enum model_fsdp *out);
/* The FSDP that runs o's training (MODEL_FSDP_1, _2 or _MEGATRON), or
 * MODEL_FSDP_AUTO when nothing is sharded (not training, --zero 0|1, or
 * one data-parallel rank). */
enum model_fsdp model_fsdp_impl(const struct model_opts *o);
/* The keys layer li attends to at most: a sliding-window layer's window
 * (layer li is one when (li + 1) % local_period != 0), else 0 for every
 * key. */
uint32_t model_layer_window(const struct model_config *c, uint32_t li);
/* Whether layer li's MLP is c's routed experts: a model with experts,
 * past its first_dense dense layers, on every moe_step-th layer. */
int model_layer_moe(const struct model_config *c, uint32_t li);
/* Whether the builders run c's experts as grouped GEMMs after a router
 * (DeepSeek's, GLM-4.5's and Llama 4's layout; any model's under --ep)
 * rather than Hugging Face's per-expert loop (Mixtral, Qwen-MoE). */
int model_moe_grouped(const struct model_config *c, const struct model_opts *o);
/* Whether o's layout is one --lora's adapters are built in: no tensor or
 * pipeline parallelism, and QLoRA's NF4 weights not sharded by FSDP (the
 * build refuses the rest with the reason; --plan hides those layouts). */
int model_lora_layout(const struct model_opts *o);
/* Whether o's training state is mixed precision (FP32 master weights):
 * --precision mixed or autocast, or by default under te, FP8 or data
 * parallelism, never for --lora (the frozen model stays in its dtype). */
int model_mixed(const struct model_opts *o);
/* Whether torch.autocast runs over o's FP32 parameters and launches its
 * casts: --precision autocast under the eager stack of Hugging Face's
 * modules (not an engine), in a 16-bit dtype; training or inference
 * (ops.c says which casts, memory.c what they hold). */
int model_autocast(const struct model_opts *o);
/* --liger's fused linear cross-entropy: the tokens of each chunk of T, by
 * Liger's rule next_pow2(ceil(T / ceil(V / H))) (so a chunk's logits are
 * about the size of the hidden states), when o's step runs it (training
 * with its loss on an LM head, the vocabulary whole: no --tp); else 0. */
uint64_t model_liger_chunk(const struct model_config *c, const struct model_opts *o, uint64_t T);
int model_fp8_recipe_parse(const char *s, enum model_fp8_recipe *out);
/* The serving engines' CPU work per step that no kernel shows (serve.c).
 * SGLang (MODEL_SERVE_STEP_CPU_NS): bench_one_batch prepares every step's
 * batch in Python between two synchronizations (prepare_for_decode, the
 * forward batch, the attention backend's metadata, the sampler's argmax
 * read back), the one constant fitted on PipeWeave's measured SGLang
 * steps: the median over the 28 runs of measured minus predicted without
 * it, never below 0 (surfer-bench serving refits it with each GPU
 * architecture held out, on the other architectures' steps as the
 * tensor-core constants fitted without it predict them).  It is 0: since
 * the tensor-core model takes the GEMMs' DRAM bandwidth from kernel-level
 * sources and joins compute and memory by a power mean (tcgemm.c, bw_eff
 * 0.90 -> 0.83) the median step is predicted at or above the measured one
 * without it, over all 28 runs and with each architecture held out (0.00,
 * 0.00, 0.07, 0.00, 0.00 ms: all runs, without Ampere, Ada, Hopper,
 * Blackwell).  It had been 0.82 ms (0.84, 0.83, 1.50, 0.69 held out), 0.60
 * before that, 0 when the decode GEMMs ran the large GEMMs' 128-row tiles:
 * the step's CPU time is not separable from the decode GEMMs' bandwidth
 * share in these runs, and whatever that share leaves is taken as it.
 * vLLM (MODEL_VLLM_STEP_CPU_NS): its engine core schedules and prepares
 * inputs too, but the four measured whole batches of `vllm bench latency`
 * come out better without a constant (mean 2.9 % at 0, 3.4 % at SGLang's
 * 0.53 ms), so none is added. */
#define MODEL_SERVE_STEP_CPU_NS 0.0
#define MODEL_VLLM_STEP_CPU_NS 0.0

#endif
