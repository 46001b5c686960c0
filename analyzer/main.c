/*
 * main.c - surfer-analyze: predicts the iteration time of a recorded trace
 * on other GPUs, prints a report, and gates CI on predicted regressions.
 * Parses arguments and orchestrates; the work is in analyze.c (or
 * model/run.c for --model), report.c, export.c, chrome.c, baseline.c,
 * targets.c (GPU names), prices.c (--price) and input.c (standard input,
 * files surfer-import converts).
 *
 * Exit codes: 0 success, 2 bad input (one line on stderr), 3 predicted
 * regression beyond --max-regression, 1 internal failure (out of memory,
 * output not written).
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/analyze.h"
#include "analyzer/baseline.h"
#include "analyzer/optfail.h"
#include "analyzer/chrome.h"
#include "analyzer/export.h"
#include "analyzer/input.h"
#include "analyzer/model/run.h"
#include "analyzer/prices.h"
#include "analyzer/report.h"
#include "analyzer/targets.h"
#include "gpu_specs/gpu.h"
#include "trace/surfer_err.h"
#include "predictor/tile.h"

#define PROG "surfer-analyze"
#define MAX_TARGETS 256

struct cli {
	const char *trace;
	const struct gpu_spec *targets[MAX_TARGETS];
	size_t ntargets;
	int all_targets;
	const struct gpu_spec *origin;
	const char *origin_arg;   /* --origin as given: surfer-import's too */
	enum pred_method method;
	int json;
	size_t top;
	const char *save_baseline;
	const char *baseline;
	double max_regression;    /* percent, or BASELINE_AUTO */
	int have_max_regression;
	double interval;          /* --interval P / 100; 0: the default */
	int list_gpus;
	int list_models;
	const char *weights;      /* --weights FILE; NULL: the compiled-in ones */
	struct model_cli model;   /* --model and its options */
	const char *chrome_trace; /* output files, NULL none */
	const char *html;
	const char *csv;
	struct price_list prices; /* --price */
	const struct gpu_system *system; /* --system; NULL: each target's default */
	/* --nics and --nic-gbit: the network of --system's machine as the
	 * user's cluster has it, in system_net (a copy of the row) */
	uint32_t nics;            /* compute NICs per node; 0: the row's     */
	double nic_gbit;          /* line rate of one NIC, Gb/s; 0: the row's */
	struct gpu_system system_net;
	int color;                /* 0 never, 1 always, -1 auto */
	int rank;                 /* --rank: 0 none, 1 time, 2 cost */
	/* --all-targets' note on the GPUs it left out, said once the run has
	 * succeeded: a run refused for another reason (a model that does not
	 * resolve, --attention fa2 in FP32) says that reason alone, in one
	 * line; "" none */
	char left_note[512];
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " TRACE --target GPU [--target GPU ...] [options]\n"
		"       " PROG " --model CONFIG.json|NAME --batch B --seq S --target GPU [options]\n"
		"       " PROG " --list-gpus [--json]\n"
		"       " PROG " --list-models [--json]\n"
		"\n"
		"Predicts the iteration time of the program recorded in TRACE on other GPUs.\n"
		"\n"
		"  -t, --target GPU          predict on GPU (id, name or alias; repeatable)\n"
		"  -a, --all-targets         predict on every GPU surfer knows\n"
		"  -o, --origin GPU          the GPU the trace was recorded on (default: the\n"
		"                            device named in the trace)\n"
		"  -m, --method M            auto, wave, mlp, roofline, tcgemm, vecop, attention, conv or rowwise\n"
		"                            (default auto: chosen per kernel)\n"
		"  -j, --json                print one JSON document instead of the text report\n"
		"  -n, --top N               kernels listed per target (default 10, 0 = all)\n"
		"      --save-baseline FILE  write the predictions as a baseline for the gate\n"
		"                            (with --baseline: every kernel as the ratio to\n"
		"                            its measured time, linear in it)\n"
		"      --baseline FILE       compare with a baseline; exit 3 when a target's\n"
		"      --max-regression PCT  predicted iteration time grew by more than PCT %%\n"
		"                            (default 0); auto: beyond the top of the\n"
		"                            baseline's interval\n"
		"      --interval P          the P %% interval around every prediction\n"
		"                            (default 80; 0 < P < 100)\n"
		"      --list-gpus           list the GPUs surfer knows\n"
		"      --list-models         list the built-in models (--model NAME)\n"
		"      --chrome-trace FILE   write the predicted timelines as a Chrome trace\n"
		"                            (Perfetto, chrome://tracing)\n"
		"      --html FILE           write a self-contained HTML report\n"
		"      --csv FILE            write the kernel breakdown of every target as CSV\n"
		"      --price GPU=USD       hourly price of GPU (an id, name or alias as\n"
		"                            --target takes, or a family such as a100 for\n"
		"                            every A100): adds the cost per iteration, per\n"
		"                            million iterations and per million tokens\n"
		"                            (repeatable; with --plan too); a bare USD\n"
		"                            prices the targets no GPU=USD names\n"
		"      --system NAME         the machine the targets sit in (links inside a\n"
		"                            node, network between; gpu_specs/systems.csv;\n"
		"                            default: each target's own); its GPU is the\n"
		"                            target when none is given; a target of other\n"
		"                            links (another compute capability, NVLink or\n"
		"                            PCIe) is refused\n"
		"      --nics N              with --system: compute NICs per node (1-64) in\n"
		"                            place of the system's, for a cluster networked\n"
		"                            otherwise\n"
		"      --nic-gbit G          with --system: line rate of one NIC, Gb/s (1-3200)\n"
		"                            in place of the system's\n"
		"      --rank time|cost      one line per target instead of the report,\n"
		"                            fastest or cheapest first (with --plan: its\n"
		"                            fastest layout that fits)\n"
		"      --weights FILE        tile-model weights written by surfer-train, in\n"
		"                            place of the compiled-in ones\n"
		"      --color[=WHEN]        colour the text report: auto (default: when\n"
		"                            standard output is a terminal and NO_COLOR is\n"
		"                            unset), always or never\n"
		"\n"
		"Without a trace, from a model configuration (Hugging Face config.json, a\n"
		"checkpoint's folder holding one, or a built-in name such as gpt2-large,\n"
		"bert-large, llama-3-8b, or its Hugging Face id, meta-llama/Meta-Llama-3-8B):\n"
		"      --model CONFIG|NAME   the model; --batch B, --seq S (default 1, 128):\n"
		"                            B sequences per GPU, per data-parallel rank with\n"
		"                            --dp (the iteration has dp x B), split into the\n"
		"                            microbatches with --pp; with --plan, B is the\n"
		"                            whole iteration's batch, split over the dp ranks\n"
		"      --mode M              inference (default), training, decode (one\n"
		"                            generation step: B new tokens after S cached)\n"
		"                            or generate (the prompt's pass, then decode\n"
		"                            steps up to --new-tokens N, default 128)\n"
		"      --dtype D             fp32 (default), tf32, bf16, fp16, or fp8 (linears in\n"
		"                            FP8, BF16 elsewhere); --engine vllm|sglang: the\n"
		"                            checkpoint's torch_dtype by default (float32 as\n"
		"                            fp16, as the engines' --dtype auto; bf16 when the\n"
		"                            config names none; fp8 for an FP8 checkpoint)\n"
		"      --fp8-recipe R        tensorwise (default), rowwise (torchao float8),\n"
		"                            delayed (Transformer Engine; --stack te's default)\n"
		"                            or mxfp8 (Blackwell)\n"
		"      --optimizer O         none (default), sgd, adamw (foreach), adamw-fused or\n"
		"                            adamw-8bit (bitsandbytes' AdamW8bit)\n"
		"      --act-ckpt A          activation checkpointing: none (default), selective\n"
		"                            or full\n"
		"      --act-ckpt-layers N   with --act-ckpt full: only the first N layers of\n"
		"                            each pipeline stage, of each model chunk with\n"
		"                            --vpp (Megatron's recompute_method block;\n"
		"                            torchtitan's every k-th block: L / k)\n"
		"      --grad-accum N        micro-batches of --batch per optimizer step\n"
		"      --lora R              LoRA fine-tuning: rank-R adapters (PEFT's) on the\n"
		"                            decoder layers' linears, the rest frozen: no\n"
		"                            weight gradients, optimizer over the adapters\n"
		"      --lora-targets T      all (every linear of the layers, default) or attn\n"
		"                            (the attention projections)\n"
		"      --qlora               with --lora: the adapted linears' weights in\n"
		"                            NF4 (QLoRA, bitsandbytes), dequantized per GEMM;\n"
		"                            --act-ckpt full unless given (PEFT's default)\n"
		"      --grad-fp32           gradients accumulated in an FP32 buffer (nanotron's\n"
		"                            accumulate_grad_in_fp32; --stack te: main_grad)\n"
		"      --no-grad-clip        no gradient-norm clipping before the optimizer step\n"
		"                            (the stacks clip at 1.0 by default)\n"
		"      --offload             with --zero 1-3: AdamW's step on the CPU (DeepSpeed's\n"
		"                            offload_optimizer): gradients to the host, the\n"
		"                            parameters back, the FP32 state in host memory\n"
		"      --host-mem-gbps G     the host's DRAM bandwidth per node for --offload,\n"
		"                            GB/s (default: the system's, systems.csv)\n"
		"      --fsdp F              --zero 2|3 as FSDP 1 (flat parameters: llm-foundry),\n"
		"                            2 (fully_shard) or megatron (its buffers); default\n"
		"                            2, megatron under --stack te\n"
		"      --fsdp-reduce D       FSDP's gradient reduce-scatter in fp32 (default in\n"
		"                            mixed precision) or bf16\n"
		"      --stack S             eager (default), compile (torch.compile) or te\n"
		"                            (Transformer Engine / Megatron fused kernels)\n"
		"      --norm N              how an eager stack runs RMSNorm: eager (default:\n"
		"                            Hugging Face's modules, FP32 inside) or fused (one\n"
		"                            kernel: Liger, Apex, nanotron's TritonRMSNorm,\n"
		"                            PyTorch's fused nn.RMSNorm)\n"
		"      --liger               Liger's kernels in the Hugging Face modules\n"
		"                            (use_liger_kernel=True): RMSNorm, RoPE, SwiGLU/\n"
		"                            GeGLU fused, the LM head's linear cross-entropy\n"
		"                            in chunks, its logits never held\n"
		"      --precision P         training state of bf16/fp16: pure (16-bit weights,\n"
		"                            gradients, moments), mixed (FP32 master) or autocast\n"
		"                            (mixed, and torch.autocast's casts of each matmul's\n"
		"                            FP32 operands: HF Trainer's bf16=True); default\n"
		"                            mixed under --stack te, fp8 or more than one GPU\n"
		"                            (any --dp, --tp, --pp, --cp), pure on one GPU;\n"
		"                            in inference autocast runs the FP32 model under\n"
		"                            torch.autocast (the weights cast once a forward,\n"
		"                            a generation's prefill; each matmul's FP32 input)\n"
		"      --cuda-graphs         each block's forward and backward one CUDA graph\n"
		"      --power-limit W       the boards capped at W watts\n"
		"      --attention A         eager (default), sdpa, or a fused kernel (bf16/fp16):\n"
		"                            flash (FA3 on Hopper, FA2 elsewhere; cuDNN's under\n"
		"                            --stack te), fa2, fa3 (Hopper only), cudnn,\n"
		"                            flashinfer (no training) or triton (llm-foundry's);\n"
		"                            an MLA model (DeepSeek-V2/V3) and --stack te take\n"
		"                            flash by default\n"
		"      --head H              lm (default: LM / pretraining head) or classify\n"
		"      --dp N --tp N --pp N  data, tensor and pipeline parallel degrees\n"
		"      --microbatches M      pipeline microbatches (default pp)\n"
		"      --vpp V               interleaved 1F1B: V model chunks per pipeline\n"
		"                            stage (Megatron's virtual pipeline stages)\n"
		"      --pp-partition P      how --pp splits the layers: uniform (default,\n"
		"                            Megatron's; the last stage modelled) or cost\n"
		"                            (nanotron's split by block compute cost; the\n"
		"                            slowest stage on the first target modelled)\n"
		"      --zero Z              training state sharded over the dp ranks: 0 none\n"
		"                            (default, DDP), 1 optimizer state, 2 and gradients\n"
		"                            (FSDP SHARD_GRAD_OP), 3 and parameters (FULL_SHARD)\n"
		"      --nodes N             N nodes of --gpus-per-node G GPUs (default: the\n"
		"                            system's); no --dp: the dp that fills them\n"
		"      --gpus-per-node G     GPUs of one node\n"
		"      --cp N                context parallel degree (ring attention)\n"
		"      --hsdp                with --zero 2|3: shard within a node, replicate\n"
		"                            across nodes (HSDP)\n"
		"      --sequence-parallel   with --tp: norms, residuals and dropout on the\n"
		"                            sequence's tp-th, all-gathers and reduce-scatters\n"
		"                            in place of the all-reduces (Megatron, nanotron)\n"
		"      --ep N                expert parallel degree: the routed experts split\n"
		"                            over N of the dp ranks (engines: N = tp, or\n"
		"                            N = dp with tp 1)\n"
		"      --mtp N               DeepSeek-V3's N multi-token-prediction modules\n"
		"                            in training (default: none)\n"
		"      --moe-route-nodes M   training with --ep: each token's rows sent to at\n"
		"                            most M nodes, once per node, forwarded over NVLink\n"
		"      --moe-dispatch-fp8    training with --ep: the all-to-alls towards the\n"
		"                            experts in FP8 (1 byte + a scale per 128), back BF16\n"
		"      --moe-a2a-overlap     training with --ep: each all-to-all hidden behind the\n"
		"                            compute up to the next one (DualPipe, Megatron's\n"
		"                            EP A2A overlap)\n"
		"      --plan N              every dp x tp x pp layout of N GPUs for the global\n"
		"                            batch B, fastest first, with each one's memory\n"
		"                            (an engine's --mode serve: its batch, TTFT, TPOT)\n"
		"      --jobs N              --plan predicts N layouts at once, each on a thread\n"
		"                            (default: one per online CPU, at most 16 and one per\n"
		"                            GB of available memory; the same table for every N)\n"
		"      --launch-us US        a flat CPU cost per kernel launch (default: per stack\n"
		"                            and op class, docs/model.md \"CPU cost\")\n"
		"      --launch-us-from TRACE  that cost from a recorded trace: the median gap between\n"
		"                            one thread's kernel launches\n"
		"      --expert-capacity N   MoE: tokens per expert per sequence at most;\n"
		"                            none (default: every token) or config\n"
		"      --write-trace FILE    write the built program as a surfer trace (no\n"
		"                            GPU times; analyzing it predicts the same)\n"
		"      --engine E            hf (default: transformers eager), vllm or sglang\n"
		"                            (the serving engine's kernels, CUDA graphs and\n"
		"                            all-reduces), with --mode prefill, decode or serve\n"
		"      --mode prefill --prompt-lens L1,L2,...|@FILE   one forward over the\n"
		"                            prompts (@FILE:COLUMN: a CSV workload's column);\n"
		"                            --mode decode with --context-lens (or\n"
		"                            --batch B --seq S): one step; --mode serve\n"
		"                            --prompt-lens ... --new-tokens N: the prefill, then\n"
		"                            N-1 steps (time to first token, per output token);\n"
		"                            --new-tokens N1,N2,...|@FILE[:COLUMN]: each\n"
		"                            sequence's own, leaving the batch at its end\n"
		"      --chunk TOKENS        chunked prefill: at most TOKENS per forward\n"
		"      --kv-cache-dtype D    auto (default: the dtype's) or fp8 (fp8_e4m3,\n"
		"                            fp8_e5m2): the KV cache a byte an element\n"
		"  -h, --help                this help\n"
		"  -V, --version             the version\n"
		"\n"
		"TRACE may be - for standard input.  Exit status: 0 success, 2 bad input,\n"
		"3 predicted regression, 1 internal failure.\n");
}

/* Prints an error as one line: a trace's or a config's strings quoted in
 * it (a device or kernel name, a model_type) may hold any byte, and a
 * control character among them would break the line. */
static void print_error(const char *err)
{
	fputs(PROG ": ", stderr);
	for (const unsigned char *p = (const unsigned char *)err; *p; p++)
		fputc(*p < 0x20 || *p == 0x7f ? '?' : *p, stderr);
	fputc('\n', stderr);
}

/* Prints one line "surfer-analyze: ..." on stderr; returns the exit code
 * of bad input. */
__attribute__((format(printf, 1, 2))) static int bad(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	print_error(msg);
	return surfer_exit_code(SURFER_EINVAL);
}

/* Prints the reason of a library call that failed with rc; returns rc's
 * exit code. */
static int failed(int rc, const char *err)
{
	print_error(err);
	return surfer_exit_code(rc);
}

static int find_gpu(const char *name, const struct gpu_spec **out)
{
	char err[512];
	int rc = target_find(name, out, err, sizeof(err));

	return rc ? failed(rc, err) : 0;
}

static int add_target(struct cli *c, const struct gpu_spec *g)
{
	char err[128];
	int rc = target_add(c->targets, &c->ntargets, MAX_TARGETS, g, err, sizeof(err));

	return rc ? failed(rc, err) : 0;
}

static int parse_number(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return errno || end == s || *end || *out != *out ? -1 : 0;
}

enum { OPT_SAVE = 256, OPT_BASELINE, OPT_MAXREG, OPT_LIST, OPT_MODEL, OPT_CHROME, OPT_HTML,
       OPT_CSV, OPT_PRICE, OPT_COLOR, OPT_WEIGHTS, OPT_LIST_MODELS, OPT_RANK, OPT_INTERVAL,
       OPT_SYSTEM, OPT_NICS, OPT_NIC_GBIT };

/* --nics and --nic-gbit: --system's row copied with the user's network
 * between nodes, which every collective across nodes then takes
 * (predictor/comm.c reads a system's NICs and their rate, nothing else of
 * the network changes: its kind, latency and in-network reduction stay
 * the row's).  0, or the exit code of a refusal. */
static int network_override(struct cli *c)
{
	if (!c->system)
		return bad("--nics and --nic-gbit change the network of the machine --system names: "
			   "give --system (gpu_specs/systems.csv)");
	if (c->system->net == GPU_NET_NONE || !(c->system->nic_gbit > 0) || !c->system->nics_per_node)
		return bad("--system %s has no network between nodes in gpu_specs/systems.csv for "
			   "--nics and --nic-gbit to change: give a system of its GPU with one",
			   c->system->id);
	c->system_net = *c->system;
	if (c->nics)
		c->system_net.nics_per_node = c->nics;
	if (c->nic_gbit > 0)
		c->system_net.nic_gbit = c->nic_gbit;
	c->system = c->model.opts.system = &c->system_net;
	return 0;
}

/* Returns -1 to go on, else an exit code. */
static int parse(int argc, char **argv, struct cli *c)
{
	static const struct option opts[] = {
		{"target", required_argument, NULL, 't'},
		{"all-targets", no_argument, NULL, 'a'},
		{"origin", required_argument, NULL, 'o'},
		{"method", required_argument, NULL, 'm'},
		{"json", no_argument, NULL, 'j'},
		{"top", required_argument, NULL, 'n'},
		{"save-baseline", required_argument, NULL, OPT_SAVE},
		{"baseline", required_argument, NULL, OPT_BASELINE},
		{"max-regression", required_argument, NULL, OPT_MAXREG},
		{"interval", required_argument, NULL, OPT_INTERVAL},
		{"list-gpus", no_argument, NULL, OPT_LIST},
		{"list-models", no_argument, NULL, OPT_LIST_MODELS},
		{"chrome-trace", required_argument, NULL, OPT_CHROME},
		{"html", required_argument, NULL, OPT_HTML},
		{"csv", required_argument, NULL, OPT_CSV},
		{"price", required_argument, NULL, OPT_PRICE},
		{"rank", required_argument, NULL, OPT_RANK},
		{"system", required_argument, NULL, OPT_SYSTEM},
		{"nics", required_argument, NULL, OPT_NICS},
		{"nic-gbit", required_argument, NULL, OPT_NIC_GBIT},
		{"nodes", required_argument, NULL, OPT_MODEL},
		{"gpus-per-node", required_argument, NULL, OPT_MODEL},
		{"cp", required_argument, NULL, OPT_MODEL},
		{"hsdp", no_argument, NULL, OPT_MODEL},
		{"ep", required_argument, NULL, OPT_MODEL},
		{"mtp", required_argument, NULL, OPT_MODEL},
		{"moe-route-nodes", required_argument, NULL, OPT_MODEL},
		{"moe-dispatch-fp8", no_argument, NULL, OPT_MODEL},
		{"moe-a2a-overlap", no_argument, NULL, OPT_MODEL},
		{"vpp", required_argument, NULL, OPT_MODEL},
		{"pp-partition", required_argument, NULL, OPT_MODEL},
		{"grad-fp32", no_argument, NULL, OPT_MODEL},
		{"offload", no_argument, NULL, OPT_MODEL},
		{"host-mem-gbps", required_argument, NULL, OPT_MODEL},
		{"sequence-parallel", no_argument, NULL, OPT_MODEL},
		{"no-grad-clip", no_argument, NULL, OPT_MODEL},
		{"fsdp", required_argument, NULL, OPT_MODEL},
		{"fsdp-reduce", required_argument, NULL, OPT_MODEL},
		{"color", optional_argument, NULL, OPT_COLOR},
		{"weights", required_argument, NULL, OPT_WEIGHTS},
		{"colour", optional_argument, NULL, OPT_COLOR},
		{"model", required_argument, NULL, OPT_MODEL},
		{"batch", required_argument, NULL, OPT_MODEL},
		{"seq", required_argument, NULL, OPT_MODEL},
		{"mode", required_argument, NULL, OPT_MODEL},
		{"dtype", required_argument, NULL, OPT_MODEL},
		{"optimizer", required_argument, NULL, OPT_MODEL},
		{"attention", required_argument, NULL, OPT_MODEL},
		{"head", required_argument, NULL, OPT_MODEL},
		{"dp", required_argument, NULL, OPT_MODEL},
		{"tp", required_argument, NULL, OPT_MODEL},
		{"pp", required_argument, NULL, OPT_MODEL},
		{"microbatches", required_argument, NULL, OPT_MODEL},
		{"zero", required_argument, NULL, OPT_MODEL},
		{"launch-us", required_argument, NULL, OPT_MODEL},
		{"launch-us-from", required_argument, NULL, OPT_MODEL},
		{"expert-capacity", required_argument, NULL, OPT_MODEL},
		{"new-tokens", required_argument, NULL, OPT_MODEL},
		{"plan", required_argument, NULL, OPT_MODEL},
		{"jobs", required_argument, NULL, OPT_MODEL},
		{"write-trace", required_argument, NULL, OPT_MODEL},
		{"act-ckpt", required_argument, NULL, OPT_MODEL},
		{"act-ckpt-layers", required_argument, NULL, OPT_MODEL},
		{"grad-accum", required_argument, NULL, OPT_MODEL},
		{"lora", required_argument, NULL, OPT_MODEL},
		{"lora-targets", required_argument, NULL, OPT_MODEL},
		{"qlora", no_argument, NULL, OPT_MODEL},
		{"stack", required_argument, NULL, OPT_MODEL},
		{"norm", required_argument, NULL, OPT_MODEL},
		{"liger", no_argument, NULL, OPT_MODEL},
		{"precision", required_argument, NULL, OPT_MODEL},
		{"fp8-recipe", required_argument, NULL, OPT_MODEL},
		{"cuda-graphs", no_argument, NULL, OPT_MODEL},
		{"power-limit", required_argument, NULL, OPT_MODEL},
		{"engine", required_argument, NULL, OPT_MODEL},
		{"prompt-lens", required_argument, NULL, OPT_MODEL},
		{"context-lens", required_argument, NULL, OPT_MODEL},
		{"chunk", required_argument, NULL, OPT_MODEL},
		{"kv-cache-dtype", required_argument, NULL, OPT_MODEL},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	const struct gpu_spec *g;
	double v;
	int o, rc, li = 0;
	char merr[256];

	model_cli_init(&c->model);
	c->method = PRED_AUTO;
	c->top = 10;
	c->color = -1;
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":t:ao:m:jn:hV", opts, &li)) != -1) {
		switch (o) {
		case 't':
			if ((rc = find_gpu(optarg, &g)) || (rc = add_target(c, g)))
				return rc;
			break;
		case 'a':
			c->all_targets = 1;
			break;
		case 'o':
			if ((rc = find_gpu(optarg, &c->origin)))
				return rc;
			c->origin_arg = optarg;
			break;
		case 'm':
			if (pred_method_parse(optarg, &c->method) < 0 || c->method == PRED_IDENTITY ||
			    c->method == PRED_COMM)
				return bad("bad --method '%s': use auto, wave, mlp, roofline, tcgemm, vecop, attention, conv or rowwise", optarg);
			break;
		case 'j':
			c->json = 1;
			break;
		case 'n':
			if (parse_number(optarg, &v) < 0 || v < 0 || v > 1e9 || v != (double)(size_t)v)
				return bad("bad --top '%s': a count is expected", optarg);
			c->top = (size_t)v;
			break;
		case OPT_SAVE:
			c->save_baseline = optarg;
			break;
		case OPT_BASELINE:
			c->baseline = optarg;
			break;
		case OPT_MAXREG:
			if (!strcmp(optarg, "auto"))
				v = BASELINE_AUTO;
			else if (parse_number(optarg, &v) < 0 || v < 0)
				return bad("bad --max-regression '%s': a percentage >= 0 or auto is expected",
					   optarg);
			c->max_regression = v;
			c->have_max_regression = 1;
			break;
		case OPT_INTERVAL:
			if (parse_number(optarg, &v) < 0 || !(v > 0 && v < 100))
				return bad("bad --interval '%s': a percentage between 0 and 100 is expected",
					   optarg);
			/* P is a percentage: 0.8 is a 0.8 % interval, almost
			 * surely meant as 80 %; said, not reinterpreted */
			if (v < 1)
				fprintf(stderr, PROG ": warning: --interval %s is a %g %% interval; "
					"an 80 %% one is --interval 80\n", optarg, v);
			c->interval = v / 100;
			c->model.opts.interval = c->interval;
			break;
		case OPT_LIST:
			c->list_gpus = 1;
			break;
		case OPT_LIST_MODELS:
			c->list_models = 1;
			break;
		case OPT_CHROME:
		case OPT_HTML:
		case OPT_CSV:
			if (!*optarg)
				return bad("--%s needs a file name", opts[li].name);
			if (o == OPT_CHROME)
				c->chrome_trace = optarg;
			else if (o == OPT_HTML)
				c->html = optarg;
			else
				c->csv = optarg;
			break;
		case OPT_PRICE:
			if ((rc = prices_add(&c->prices, optarg, merr, sizeof(merr))))
				return failed(rc, merr);
			break;
		case OPT_SYSTEM:
			if (!(c->system = gpu_system_find(optarg)))
				return bad("unknown system '%s' (the systems are gpu_specs/systems.csv's ids: "
					   "dgx-a100-80, dgx-h100, p5-h100, dgx-h200, dgx-b200, gb200-nvl72, "
					   "pcie-l40s-8, ...)", optarg);
			c->model.opts.system = c->system;
			break;
		case OPT_NICS:
			if (parse_number(optarg, &v) < 0 || !(v >= 1 && v <= 64) || v != (double)(uint32_t)v)
				return bad("bad --nics '%s': a count of NICs per node from 1 to 64 is expected",
					   optarg);
			c->nics = (uint32_t)v;
			break;
		case OPT_NIC_GBIT:
			if (parse_number(optarg, &v) < 0 || !(v >= 1 && v <= 3200))
				return bad("bad --nic-gbit '%s': a NIC's line rate from 1 to 3200 Gb/s is expected",
					   optarg);
			c->nic_gbit = v;
			break;
		case OPT_RANK:
			if (!strcmp(optarg, "time"))
				c->rank = 1;
			else if (!strcmp(optarg, "cost"))
				c->rank = 2;
			else
				return bad("bad --rank '%s': use time or cost", optarg);
			break;
		case OPT_COLOR:
			/* "--color WHEN" as well as "--color=WHEN" */
			if (!optarg && optind < argc &&
			    (strcmp(argv[optind], "auto") == 0 || strcmp(argv[optind], "always") == 0 ||
			     strcmp(argv[optind], "never") == 0))
				optarg = argv[optind++];
			if (!optarg || strcmp(optarg, "always") == 0)
				c->color = 1;
			else if (strcmp(optarg, "never") == 0)
				c->color = 0;
			else if (strcmp(optarg, "auto") == 0)
				c->color = -1;
			else
				return bad("bad --color '%s': use auto, always or never", optarg);
			break;
		case OPT_WEIGHTS: {
			/* checked here, loaded into the predictor main() builds */
			struct tile_model *tm;
			if (tile_model_load_file(optarg, &tm) != 0)
				return bad("cannot load tile-model weights '%s' (not a file surfer-train wrote)", optarg);
			tile_model_free(tm);
			c->weights = optarg;
			break;
		}
		case OPT_MODEL:
			if ((rc = model_cli_set(&c->model, opts[li].name, optarg, merr, sizeof(merr))) == SURFER_ENOMEM) {
				fprintf(stderr, PROG ": out of memory\n");
				return surfer_exit_code(rc);
			} else if (rc) {
				return bad("%s%s", merr, "");
			}
			if (!strcmp(opts[li].name, "launch-us-from"))
				fprintf(stderr, PROG ": note: %.2f us per launch, the median of %llu gaps between "
					"kernel launches in '%s'\n", c->model.launch_ns / 1e3,
					(unsigned long long)c->model.launch_gaps, optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf(PROG " %s\n", SURFER_VERSION);
			return 0;
		case ':':
			return bad("option '%s' needs a value", argv[optind - 1]);
		default:
			optfail_describe(argv[optind - 1], opts, merr, sizeof merr);
			return bad("%s; see --help", merr);
		}
	}
	if (c->list_gpus || c->list_models)
		return -1;
	if (c->model.set && optind < argc)
		return bad("give a trace or --model, not both ('%s')", argv[optind]);
	if (c->model.set && !c->model.model)
		return bad("model options given without --model CONFIG.json|NAME");
	if (c->model.lora_targets_set && !c->model.opts.lora_rank)
		return bad("--lora-targets chooses the linears --lora R adapts: add --lora");
	if (c->model.fp8_recipe_set && !c->model.opts.fp8)
		return bad("--fp8-recipe chooses the scaling of --dtype fp8's linears: add --dtype fp8");
	if (c->model.fp8_recipe_set && c->model.opts.engine != MODEL_ENGINE_HF)
		return bad("--fp8-recipe is a training stack's scaling: --engine %s serves FP8 linears "
			   "block-scaled, as it loads FP8 checkpoints", model_engine_name(c->model.opts.engine));
	/* layout options without the layout they shape (--plan tries the
	 * layouts that take them) */
	const struct model_opts *mo = &c->model.opts;
	if (!c->model.plan_gpus && mo->sp && mo->tp <= 1)
		return bad("--sequence-parallel splits the norms' and residual adds' activations over "
			   "--tp's ranks: it needs --tp above 1 (or --plan)");
	if (!c->model.plan_gpus && mo->microbatches && mo->pp <= 1)
		return bad("--microbatches M splits --batch over a pipeline: it needs --pp above 1 (or "
			   "--plan; --grad-accum N runs N micro-batches without one)");
	if (!c->model.plan_gpus && mo->pp_partition == MODEL_PP_COST && mo->pp <= 1)
		return bad("--pp-partition cost places the layers on --pp's stages: it needs --pp above 1 "
			   "(or --plan)");
	const char *fsdp_flag = mo->fsdp != MODEL_FSDP_AUTO ? "--fsdp" : mo->fsdp_reduce_bytes ? "--fsdp-reduce" : NULL;
	if (!c->model.plan_gpus && fsdp_flag && mo->zero < 2 && mo->mode == MODEL_TRAINING)
		return bad("%s shapes the FSDP that shards --zero 2 or 3: give one of them (or --plan)", fsdp_flag);
	if (c->model.attention_set && mo->attention == MODEL_ATTN_EAGER && mo->engine != MODEL_ENGINE_HF)
		return bad("--engine %s: --attention eager is not one of its attention backends modelled "
			   "here; use flash (the engine's pick), fa2, fa3 or flashinfer",
			   model_engine_name(mo->engine));
	if (mo->precision != MODEL_PREC_AUTO && mo->engine == MODEL_ENGINE_HF &&
	    (mo->dtype == GPU_DT_FP32 || mo->dtype == GPU_DT_TF32))
		return bad("--precision chooses how a 16-bit or FP8 --dtype trains: give --dtype bf16, fp16 "
			   "or fp8");
	if (mo->host_mem_gbps > 0 && !mo->offload)
		return bad("--host-mem-gbps is the host memory --offload streams the optimizer over: "
			   "add --offload");
	if (c->model.plan_gpus && (c->save_baseline || c->baseline || c->html || c->csv || c->chrome_trace ||
				   c->model.write_trace))
		return bad("--plan prints its table only: --save-baseline, --baseline, --html, --csv, "
			   "--chrome-trace and --write-trace take one layout (--dp, --tp, --pp)");
	if (c->model.jobs && !c->model.plan_gpus)
		return bad("--jobs N sets how many layouts --plan predicts at once: add --plan");
	if (optind >= argc && !c->model.set)
		return bad("no trace given; see --help");
	if (optind + 1 < argc)
		return bad("unexpected argument '%s'; see --help", argv[optind + 1]);
	c->trace = c->model.set ? c->model.model : argv[optind];
	if (c->all_targets) {
		size_t left;
		char first[256];
		/* an engine without --dtype serves the checkpoint's dtype
		 * (model_engine_dtype()): the GPUs left out are those it
		 * cannot run (a config that does not resolve is refused by the
		 * run, with its reason) */
		struct model_cli served = c->model;
		struct model_config mc;
		char cerr[256];
		if (served.set && served.opts.engine != MODEL_ENGINE_HF &&
		    !model_config_resolve(served.model, &mc, cerr, sizeof(cerr)))
			model_engine_dtype(&served, &mc);
		if ((rc = target_add_all(c->targets, &c->ntargets, MAX_TARGETS,
					 c->model.set ? &served.opts : NULL, &left, first, sizeof(first),
					 merr, sizeof(merr))))
			return failed(rc, merr);
		if (left && c->ntargets == 0)
			return bad("--all-targets leaves no GPU the model can be predicted on: %zu refuse it "
				   "(the first: %s)", left, first);
		if (left)
			snprintf(c->left_note, sizeof(c->left_note),
				 PROG ": note: --all-targets leaves out %zu GPUs the model cannot be "
				 "predicted on (the first: %s)", left, first);
	}
	if ((c->nics || c->nic_gbit > 0) && (rc = network_override(c)))
		return rc;
	if (c->ntargets == 0 && c->system && (rc = add_target(c, c->system->gpu)))
		return rc;
	if (c->ntargets == 0) {
		/* a model that does not resolve is said first: naming a GPU
		 * would only lead to that refusal */
		struct model_config mc;
		char cerr[512];
		if (c->model.set && model_config_resolve(c->model.model, &mc, cerr, sizeof(cerr)))
			return bad("%s", cerr);
		return bad("no target GPU: give --target GPU or --all-targets");
	}
	/* --system names the machine the targets sit in: a GPU it cannot
	 * hold would be timed over another machine's links */
	for (size_t i = 0; c->system && i < c->ntargets; i++) {
		const struct gpu_spec *g = c->targets[i], *h = c->system->gpu;
		enum gpu_system_fit fit = gpu_system_fit(c->system, g);
		if (fit == GPU_SYSTEM_OTHER && c->all_targets)
			return bad("--system %s holds %s GPUs only, and --all-targets puts every GPU in it: "
				   "give one of the two", c->system->id, h->id);
		if (fit == GPU_SYSTEM_OTHER) {
			const struct gpu_system *d = gpu_system_default(g);
			return bad("--system %s holds %s GPUs, not %s: give %s%s%s, or leave --target out "
				   "to predict the system's %s",
				   c->system->id, h->id, g->id,
				   d ? "--system " : "a system of that GPU (gpu_specs/systems.csv)",
				   d ? d->id : "", d ? " (its default)" : "", h->id);
		}
		if (fit == GPU_SYSTEM_SAME_LINKS)
			fprintf(stderr, PROG ": note: --system %s holds %s GPUs; %s timed on its links (the "
				"same compute capability, NVLink and PCIe)\n", c->system->id, h->id, g->id);
	}
	if (c->rank && c->json)
		return bad("--rank prints its own lines: give it without --json");
	c->model.plan_rank = c->rank;
	if (c->rank == 2 && !c->prices.n && !(c->prices.any_usd_per_hour > 0))
		return bad("--rank cost needs --price GPU=USD_PER_HOUR for the targets");
	if (c->have_max_regression && !c->baseline)
		return bad("--max-regression needs --baseline FILE");
	if (c->color < 0) {
		/* https://no-color.org: NO_COLOR set and not empty turns colour off */
		const char *nc = getenv("NO_COLOR");
		c->color = isatty(STDOUT_FILENO) && !(nc && *nc);
	}
	return -1;
}

static int gate(const struct analysis *a, const struct cli *c)
{
	struct baseline_verdict v[MAX_TARGETS];
	size_t n;
	char err[512];
	FILE *f = c->json ? stderr : stdout;
	int rc = baseline_compare(a, c->baseline, c->max_regression, v, MAX_TARGETS, &n, err,
				  sizeof(err));

	if (rc < 0) {
		print_error(err);
		return surfer_exit_code(rc);
	}
	if (!c->json)
		fputc('\n', f);
	baseline_print(f, v, n, c->color && !c->json);
	return rc == 1 ? 3 : 0;
}

/* The prices given with --price onto the targets they name (price_of());
 * a price no target takes is said on stderr. */
static void apply_prices(struct analysis *a, struct cli *c)
{
	for (size_t t = 0; t < a->ntargets; t++)
		a->targets[t].price_usd_per_hour = prices_of(&c->prices, a->targets[t].gpu);
	prices_warn_unused(&c->prices, stderr, PROG);
}

/* The --html and --csv files; returns 0 or an exit code. */
static int write_exports(const struct analysis *a, const struct report_model *m,
			 const struct cli *c)
{
	char err[1024];
	int rc = 0, w;

	if (c->html && (w = export_write_file(EXPORT_HTML, "--html", c->html, a, m, c->top, err,
					      sizeof(err)))) {
		rc = failed(w, err);
		if (w == SURFER_EIO)
			return rc;
	}
	if (c->csv && (w = export_write_file(EXPORT_CSV, "--csv", c->csv, a, m, c->top, err,
					     sizeof(err))))
		rc = failed(w, err);
	return rc;
}

int main(int argc, char **argv)
{
	struct cli c;
	struct analysis_options o;
	struct pred_config pc = { 0 };
	struct predictor *pred;
	struct analysis *a = NULL;
	struct report_model rm = { 0 }, *m = NULL; /* m: what a --model run adds */
	struct chrome_trace *ct = NULL;
	FILE *ctf = NULL;
	char err[512], spool[4096] = "", imported[4096] = "";
	const char *path;
	int rc;

	memset(&c, 0, sizeof(c));
	rc = parse(argc, argv, &c);
	if (rc >= 0)
		return rc;
	if (c.list_gpus)
		return surfer_exit_code(gpu_list_print(stdout, c.json) < 0 ? SURFER_EWRITE : 0);
	if (c.list_models)
		return surfer_exit_code(model_list_print(stdout, c.json) < 0 ? SURFER_EWRITE : 0);

	if (c.baseline && (rc = baseline_check(c.baseline, err, sizeof(err))) < 0) {
		print_error(err);
		return surfer_exit_code(rc);
	}
	path = c.trace;
	pc.weights = c.weights;
	/* The gate compares ratio-form predictions, linear in the measured
	 * times (predict.h): `auto` elsewhere pulls a tile-model kernel
	 * predicted across architectures toward the model's own time, and a
	 * GEMM 10% slower on the origin would move such a target by 0.5%.
	 * Both sides of the comparison are made so: --save-baseline too (and
	 * baselines written before the pull were made so too). */
	if (c.baseline || c.save_baseline)
		pc.shrink = &pred_shrink_full;
	if ((rc = predictor_new(&pc, &pred, err, sizeof(err))) < 0) {
		print_error(err);
		return surfer_exit_code(rc);
	}
	c.model.opts.pred = pred;
	if (c.model.set && c.model.plan_gpus) {
		double usd[MAX_TARGETS];
		for (size_t t = 0; t < c.ntargets; t++)
			usd[t] = prices_of(&c.prices, c.targets[t]);
		prices_warn_unused(&c.prices, stderr, PROG);
		rc = model_plan_write(stdout, &c.model, c.targets, c.ntargets, usd, c.method, c.json, err,
				      sizeof(err));
		predictor_free(pred);
		if (rc < 0)
			print_error(err);
		else if (c.left_note[0])
			fprintf(stderr, "%s\n", c.left_note);
		return surfer_exit_code(rc);
	}
	if (!c.model.set && strcmp(path, "-") == 0) {
		if ((rc = input_spool(stdin, spool, sizeof(spool), err, sizeof(err)))) {
			predictor_free(pred);
			return failed(rc, err);
		}
		path = spool;
	}
	/* a torch.profiler or Nsight Systems file: surfer-import converts it
	 * first, as `surfer-import FORMAT FILE -o T.mp` would */
	if (!c.model.set) {
		int status;
		int ir = input_import(path, c.origin_arg, imported, sizeof(imported), &status);
		if (ir == 1) {
			path = imported;
		} else if (ir == -2) {
			predictor_free(pred);
			if (spool[0])
				unlink(spool);
			return status;
		}
	}
	memset(&o, 0, sizeof(o));
	o.origin = c.origin;
	o.targets = c.targets;
	o.ntargets = c.ntargets;
	o.system = c.system;
	o.method = c.method;
	o.pred = pred;
	o.interval = c.interval;
	if (c.chrome_trace) {
		if (!(ctf = export_open("--chrome-trace", c.chrome_trace, err, sizeof(err)))) {
			print_error(err);
			rc = SURFER_EIO;
			goto chrome_failed;
		}
		if (!(ct = chrome_trace_new(ctf))) {
			fclose(ctf);
			fprintf(stderr, PROG ": out of memory\n");
			rc = SURFER_ENOMEM;
			goto chrome_failed;
		}
		o.on_span = chrome_trace_span;
		o.span_ctx = ct;
	}
	if (c.model.set)
		rc = model_analysis_run(&c.model, &o, &a, &rm, err, sizeof(err));
	else
		rc = analysis_run(path, &o, &a, err, sizeof(err));
	predictor_free(pred);
	pred = NULL;
	if (rc < 0) {
		char hint[1024];
		if (rc == SURFER_EINVAL && !c.model.set && !imported[0] && strstr(err, "not a surfer trace") &&
		    input_import_hint(path, PROG, hint, sizeof(hint)))
			fprintf(stderr, "%s\n", hint);
		else
			print_error(err);
	} else if (c.left_note[0]) {
		fprintf(stderr, "%s\n", c.left_note);
	}
	if (ct) {
		int w = rc < 0 ? 0 : chrome_trace_finish(ct, a, err, sizeof(err));

		chrome_trace_free(ct);
		if (fclose(ctf) && w == 0) {
			snprintf(err, sizeof(err), "%s", strerror(errno));
			w = -1;
		}
		if (w < 0) {
			fprintf(stderr, PROG ": cannot write --chrome-trace '%s': %s\n", c.chrome_trace,
				err);
			analysis_free(a);
			a = NULL;
			report_model_free(&rm);
			rc = SURFER_EWRITE;
		}
	}
chrome_failed:
	predictor_free(pred);
	if (spool[0])
		unlink(spool);
	if (imported[0])
		unlink(imported);
	if (rc < 0)
		return surfer_exit_code(rc);
	if (c.model.set)
		m = &rm;
	apply_prices(a, &c);
	if (a->warning[0])
		fprintf(stderr, PROG ": warning: '%s': %s\n", c.trace, a->warning);
	if (c.rank)
		rc = report_rank(stdout, a, m, c.rank == 2);
	else if (c.json)
		rc = report_json_write(stdout, a, m, c.top);
	else
		rc = report_text(stdout, a, m, c.top, c.color);
	if (rc < 0 || fflush(stdout)) {
		fprintf(stderr, PROG ": cannot write the report: %s\n", strerror(errno));
		analysis_free(a);
		report_model_free(m);
		return surfer_exit_code(SURFER_EWRITE);
	}
	rc = write_exports(a, m, &c);
	if (c.save_baseline) {
		int brc = baseline_save(a, m, c.save_baseline, err, sizeof(err));

		if (brc < 0) {
			print_error(err);
			rc = surfer_exit_code(brc);
		}
	}
	if (!rc && c.baseline)
		rc = gate(a, &c);
	analysis_free(a);
	report_model_free(m);
	return rc;
}
