/*
 * run.h - surfer-analyze --model: a model configuration predicted on
 * the targets and packaged as an analysis, so the text and JSON reports
 * and the baseline gate are the same as for a trace.
 */
#ifndef SURFER_MODELRUN_H
#define SURFER_MODELRUN_H

#include <stddef.h>
#include <stdio.h>

#include "analyzer/analyze.h"
#include "analyzer/report.h"
#include "analyzer/model/lens.h"
#include "analyzer/model/model.h"

/* The most sequences --prompt-lens, --context-lens and --new-tokens take. */
#define MODEL_CLI_MAX_LENS MODEL_LENS_MAX

/* The most tokens --new-tokens has a sequence generate. */
#define MODEL_NEW_TOKENS_MAX (1u << 20)

/* The --model options as the command line gives them. */
struct model_cli {
	const char *model;        /* config.json path or built-in name; NULL = none */
	struct model_opts opts;
	double launch_ns;         /* CPU cost per launch                        */
	uint64_t launch_gaps;     /* --launch-us-from: the gaps launch_ns is the
				   * median of (0: not from a trace)            */
	uint32_t new_tokens;      /* --mode generate: tokens generated per sequence */
	uint32_t plan_gpus;       /* --plan N: every layout of N GPUs; 0 none */
	int plan_rank;            /* --plan with --rank: 0 the tables; 1 one
				   * line per target, its best layout, the
				   * fastest target first; 2 the cheapest */
	uint32_t jobs;            /* --jobs N: layouts --plan predicts at once;
				   * 0 = model_plan_jobs()'s default          */
	const char *write_trace;  /* --write-trace FILE: the built program as a
				   * trace; NULL none                         */
	int set;                  /* some model option was given               */
	int launch_set;           /* --launch-us or --launch-us-from given     */
	int ckpt_set;             /* --act-ckpt given (else --plan tries them) */
	int zero_set;             /* --zero given (else --plan tries 0, 1 and 3
				   * in training)                             */
	int fp8_recipe_set;       /* --fp8-recipe given (it needs --dtype fp8)  */
	int lora_targets_set;     /* --lora-targets given (it needs --lora)     */
	int dtype_set;            /* --dtype given (else an engine serves the
				   * checkpoint's, model_engine_dtype())       */
	int attention_set;        /* --attention given (else MLA in 16 bits and
				   * --stack te take flash,
				   * model_cli_defaults())                    */
	/* --prompt-lens / --context-lens: each sequence's length (opts.lens
	 * points here once given) */
	uint32_t lens[MODEL_CLI_MAX_LENS];
	uint32_t nlens;
	int lens_kind;            /* 0 none, 1 prompt lengths, 2 context lengths */
	int new_tokens_set;       /* --new-tokens given                        */
	/* --new-tokens L1,L2,...|@FILE: the tokens each sequence generates
	 * (opts.new_lens points here once given; new_tokens their most) */
	uint32_t new_lens[MODEL_CLI_MAX_LENS];
	uint32_t n_new_lens;
	const char *shape_opt;    /* "--batch" or "--seq" when given, else NULL */
};

/* The CPU time between two launches of m's run: --launch-us (or -from)
 * when given, else MODEL_LAUNCH_AUTO (each kernel's CPU cost as its stack
 * issues it, model_cpu_ns()). */
double model_cli_launch_ns(const struct model_cli *m);

/* --engine vllm|sglang without --dtype: m's dtype set to what the engines'
 * --dtype auto serves c in (its torch_dtype, BF16 when it names none, FP8
 * for an FP8 checkpoint).  Leaves a run with --dtype, or with --engine hf,
 * as it is. */
void model_engine_dtype(struct model_cli *m, const struct model_config *c);

/* What a run takes that its flags leave unsaid, applied to m in this
 * order, by the run and by --plan alike (each default in one place):
 *  - the engine's dtype and FP8 Marlin (model_engine_dtype(),
 *    model_engine_fp8_marlin());
 *  - without --attention, a training or inference step under --engine hf
 *    takes --attention flash where its stack runs no eager chain: an MLA
 *    model (DeepSeek-V2/V3, c->kv_lora) in 16 bits, the one form
 *    model_build() builds MLA in, and --stack te in 16 bits or FP8
 *    (Transformer Engine's fused attention); FP32, TF32 and the
 *    transformers decode path keep an MLA model's refusal;
 *  - without --act-ckpt, --qlora training takes full checkpointing
 *    (PEFT's prepare_model_for_kbit_training() default);
 *  - without --fp8-recipe, --dtype fp8 under --stack te takes delayed
 *    scaling, Transformer Engine's and Megatron-LM's default (tensorwise,
 *    torchao's, stays the other stacks').
 * d says which of the chosen ones the input line names;
 * model_defaults_words() writes those words (", MLA as flash attention",
 * ...; "" for none) into buf. */
enum model_attn_default { MODEL_ATTN_DEFAULT_NONE = 0, MODEL_ATTN_DEFAULT_MLA, MODEL_ATTN_DEFAULT_TE };
struct model_defaults {
	enum model_attn_default attn;   /* the attention chosen, or none    */
	int qlora_ckpt;                 /* --act-ckpt full chosen for QLoRA */
};
void model_cli_defaults(struct model_cli *m, const struct model_config *c,
			const struct gpu_spec *const *targets, size_t ntargets, struct model_defaults *d);
void model_defaults_words(const struct model_defaults *d, char *buf, size_t n);

/* vLLM's FP8 checkpoints on GPUs without FP8 tensor cores: its FP8 Marlin
 * kernel, the weights a byte each widened to the activation dtype in
 * registers (W8A16, weight-only: m's wq_bytes 1, its per-channel or
 * per-block scales left out), where W8A8 cannot run.  Only when every one
 * of the n targets is such a GPU of compute capability 8.0 on (an A100,
 * A10, A40) and the checkpoint, not --dtype fp8, asked for FP8: one build
 * serves every target, and a mixed list keeps W8A8 (the GPUs without FP8
 * then refused by model_target_check()).  SGLang's FP8 path needs FP8
 * tensor cores and is left so. */
void model_engine_fp8_marlin(struct model_cli *m, const struct model_config *c,
			     const struct gpu_spec *const *targets, size_t n);

/* The bytes a weight of c's decoder linears takes as the engines serve a
 * weight-only checkpoint of 4 or 8 bits (AWQ, GPTQ, compressed-tensors'
 * W4A16 and W8A16; Marlin): the bits, a 16-bit scale per group and a zero
 * point (bits) per group where it has them; 0 for any other checkpoint
 * (FP8 is W8A8, model_engine_dtype()). */
double model_wq_bytes(const struct model_config *c);

/* The positions m's run gives a sequence: its tokens (--seq, the longest
 * of --prompt-lens), a decode step's cached ones and the new one, and
 * with --mode serve or generate the new tokens fed back (all but the
 * last). */
uint64_t model_cli_positions(const struct model_cli *m);

/* c against the positions m's run needs: SURFER_EINVAL with err when c's
 * learned position table has fewer rows (GPT-2 at --seq 2048: the
 * program fails at its first step); 0 otherwise, with warn set (else
 * "") when c is rotary and was trained on fewer positions (a longer
 * context runs, beyond what the model learnt; vLLM and SGLang refuse it
 * unless told to allow it; warn may be NULL with warnlen 0). */
int model_positions_check(const struct model_config *c, const struct model_cli *m, char *warn,
			  size_t warnlen, char *err, size_t errlen);

/* The dtype a run's or a plan's header names: "fp8 rowwise" and the like
 * for --dtype fp8 (the linears in FP8, o->dtype BF16 for the rest), else
 * o->dtype's name.  A static string. */
const char *model_dtype_label(const struct model_opts *o);

/* Sets m to the defaults (batch 1, seq 128 ... see model_opts_init; the
 * loss computed in training; launch cost per stack, model_cpu_ns()). */
void model_cli_init(struct model_cli *m);

/* The long options model_cli_set understands, NULL-terminated, each
 * taking a value: model, batch, seq, mode, dtype, optimizer, attention,
 * dp, tp, pp, microbatches, launch-us, launch-us-from, expert-capacity,
 * new-tokens, plan, write-trace, engine, prompt-lens, context-lens,
 * chunk, act-ckpt, grad-accum, stack, fp8-recipe, power-limit, nodes,
 * gpus-per-node, cp, vpp, ep, mtp; cuda-graphs, hsdp, grad-fp32 and sp
 * take none (value NULL). */
const char *const *model_cli_options(void);

/* Applies option name (without "--") with value.  Returns 0, or
 * SURFER_EINVAL with a one-line reason in err for a bad value or an
 * unknown name.
 * prompt-lens and context-lens take L1,L2,... or @FILE (lengths separated
 * by commas or white space); they set opts.lens and opts.nlens (and batch,
 * the number of lengths).
 * launch-us-from TRACE sets the launch cost to the median gap between
 * consecutive kernel launches of one CPU thread in a recorded trace (a
 * host's and framework's figure, docs/model.md); SURFER_ENOMEM. */
int model_cli_set(struct model_cli *m, const char *name, const char *value,
		  char *err, size_t errlen);

/* The tokens one batch of m's served sequences generates: the sum of one
 * --new-tokens per sequence, or batch x N. */
double model_cli_generated_tokens(const struct model_cli *m);

/* The tokens one replica's iteration of m counts for throughput and price:
 * a served batch's generated ones, a generate() call's batch x N, one per
 * sequence of a decode step, else every sequence's length (a list's, or
 * --seq), times a training step's --grad-accum micro-batches. */
double model_cli_tokens(const struct model_cli *m);

/* The options of m that go with some --mode only, against its mode
 * (after an engine's generate became serve): --prompt-lens (prefill,
 * serve), --context-lens (decode), --new-tokens (serve, generate; one per
 * sequence serve alone, as many as the sequences), --chunk (prefill,
 * serve).  0, or SURFER_EINVAL with a one-line reason in err. */
int model_cli_check_modes(const struct model_cli *m, char *err, size_t errlen);

/* Whether a model at o's dtype can be predicted on g: 0, or SURFER_EINVAL
 * with a one-line reason in err.  BF16 needs BF16 units (compute capability 8.0
 * on, every AMD part in the table): on a V100 or a T4 PyTorch runs BF16
 * through emulation (cuBLAS has no BF16 tensor-core kernel for them) at a
 * rate no public measurement gives, and the tensor-core GEMM model would
 * take the FP16 tensor-core rate for it, so such a run is refused rather
 * than predicted.  --attention fa3 needs compute capability 9.x (flash-attn's
 * hopper/ kernels), fa2 and cudnn 8.0 or later. */
int model_target_check(const struct model_opts *o, const struct gpu_spec *g, char *err,
		       size_t errlen);

/* Builds the model's run, writes it as the trace a recorder would have
 * written of it (program.c; to m->write_trace too when set) and analyzes
 * that like any trace with o (targets, method, span callback; o->origin is
 * ignored): one timeline for both.  What only the model knows (its memory
 * estimate, tokens per iteration, GPUs per iteration, the largest batch
 * that fits each target) goes to *rm for the reports.  Returns 0 with *out
 * (free with analysis_free) and *rm (free with report_model_free),
 * SURFER_EINVAL for a bad model or options, SURFER_EIO for an unwritable
 * --write-trace (reason in err), SURFER_ENOMEM. */
int model_analysis_run(const struct model_cli *m, const struct analysis_options *o,
		       struct analysis **out, struct report_model *rm, char *err, size_t errlen);

/* What model_time says about one iteration on one GPU. */
struct model_timing {
	double iteration_ns;     /* predicted iteration time (replayed)        */
	double iteration_low_ns, iteration_high_ns; /* its interval (analyze.h)  */
	double interval;         /* the interval's probability                  */
	double compute_ns;       /* sum of compute kernel times                */
	double comm_ns;          /* sum of collective times                    */
	double comm_exposed_ns;  /* collective time not hidden by compute      */
	double phase_ns[MODEL_PH_COUNT]; /* kernel time by phase               */
	double cpu_bound_ns;     /* GPU idle waiting for launches              */
	double bubble_ns;        /* pipeline bubble (pp > 1)                   */
	size_t kernels;          /* launches on this GPU                        */
	double method_ns[PRED_METHOD_COUNT]; /* kernel time by predictor method */
	double op_ns[PRED_OP_COUNT]; /* kernel time by op class (GEMM, attention, ...) */
};

/* Predicts the run s (built from o) on target, launch_ns between launches,
 * through the same trace and timeline as model_analysis_run, into *out.
 * Returns 0, SURFER_EINVAL (bad arguments, a kernel a trace cannot hold) or
 * SURFER_ENOMEM. */
int model_time(const struct model_seq *s, const struct model_opts *o,
	       const struct gpu_spec *target, double launch_ns, struct model_timing *out);

/* Under --pp-partition cost (o->pp > 1, the training builder, no stage
 * chosen yet): predicts each pipeline stage's step on target (built as
 * that stage, launch_ns between launches, model_time) and sets
 * o->pp_stage to the slowest, the one that bounds the step (stage.c).
 * Leaves o as it is otherwise, the last stage built.  0, or
 * model_build's or model_time's error. */
int model_pp_pick_stage(const struct model_config *c, struct model_opts *o,
			const struct gpu_spec *target, double launch_ns);

/* The most layouts --plan predicts at once (--jobs). */
#define MODEL_PLAN_MAX_JOBS 256

/* How many layouts --plan predicts at once: --jobs, else one per online
 * CPU, at most 16 and at most one per GB of available memory (each layout
 * holds its built step and its trace while it is timed: about 0.6 GB for
 * DeepSeek-V3 on 1024 GPUs). */
uint32_t model_plan_jobs(const struct model_cli *m);

/* --plan: writes to f, as text or JSON, every data x tensor x pipeline
 * layout of m->plan_gpus GPUs for the global batch m->opts.batch, each
 * predicted on every target with its memory estimate, fastest first
 * (plan.c); usd_per_hour (NULL, or one per target, 0 none) adds each
 * layout's cost per million tokens, for all its GPUs.  With
 * m->plan_rank, one text line per target instead: its fastest layout
 * that fits, the targets fastest (or cheapest) first.  0, SURFER_EINVAL
 * for a bad model or options (reason in err), SURFER_ENOMEM,
 * SURFER_EWRITE when f cannot be written. */
int model_plan_write(FILE *f, const struct model_cli *m, const struct gpu_spec *const *targets,
		     size_t ntargets, const double *usd_per_hour, enum pred_method method, int json,
		     char *err, size_t errlen);

#endif
