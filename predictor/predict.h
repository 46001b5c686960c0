/*
 * predict.h - one interface over every way surfer predicts a kernel's time
 * on a target GPU: wave scaling (wave.c), the roofline (roofline.c) and the
 * tile model (tile.c + mlp.c), with `auto` choosing among them (predict.c).
 *
 * The analyzer, the accuracy harness (surfer-bench) and the config path
 * (--model) all describe a kernel with struct pred_kernel and call
 * predict_kernel(); nothing else turns a kernel into a predicted time.
 *
 * Everything a prediction depends on besides the kernel and the two GPUs
 * (the tile model's weights and curve, whether its times include the
 * measuring host's floor, the AMD scale) is one struct predictor, built
 * once and passed to every call: there is no process-wide predictor
 * state, so one call with one predictor always gives one answer, and
 * what it applied comes back in struct pred_result.
 */
#ifndef SURFER_PREDICT_H
#define SURFER_PREDICT_H

#include <stddef.h>
#include <stdint.h>
#include "gpu_specs/gpu.h"
#include "trace/surfer_err.h"

struct tile_model;      /* predictor/tile.h */
struct tile_amd_scale;  /* predictor/tile.h */
struct tile_own_scales; /* predictor/tile.h */
struct conv_params;     /* predictor/conv.h */
struct tcgemm_params;   /* predictor/tcgemm.h */
struct comm_params;     /* predictor/comm.h */
struct attn_params;     /* predictor/attention.h */
struct vecop_params;    /* predictor/vecop.h */
struct rowwise_params;  /* predictor/rowwise.h */

/* ns: a kernel of unknown work with no measurement (about the cost of the
 * smallest kernels on current GPUs, 2-3 us launch to completion); also
 * the vector-op model's floor where no kernel-level timing is left to fit
 * one on (tools/lab/bench_vec.c). */
#define PRED_NO_BASIS_NS 2500.0

enum pred_method {
	PRED_AUTO = 0,
	PRED_WAVE,        /* Habitat wave scaling (needs an origin time)       */
	PRED_MLP,         /* tile model; ratio form when an origin time exists */
	PRED_ROOFLINE,    /* max(flops/peak, bytes/bandwidth) (+ ratio form)   */
	PRED_IDENTITY,    /* origin == target: the measured time unchanged     */
	PRED_TCGEMM,      /* tensor-core GEMM model (tcgemm.c); ratio form too */
	PRED_VECOP,       /* memory-bound vector-op model (vecop.c); ratio too */
	PRED_ATTENTION,   /* fused attention of known shape (attention.c);
			   * ratio form too                                  */
	PRED_CONV,        /* convolution model (conv.c); ratio form too        */
	PRED_COMM,        /* a collective: comm.c over the target's links; set
			   * by the analyzer, never asked of predict_kernel   */
	PRED_ROWWISE,     /* FP32 layer norm and softmax from their passes'
			   * DRAM traffic (rowwise.c); ratio form too         */
	PRED_METHOD_COUNT
};

/* What a kernel computes, as far as surfer can tell. */
enum pred_op {
	PRED_OP_UNKNOWN = 0,
	PRED_OP_GEMM,       /* linear, matmul, bmm                              */
	PRED_OP_CONV,
	PRED_OP_ELEMENTWISE,
	PRED_OP_REDUCTION,
	PRED_OP_SOFTMAX,
	PRED_OP_NORM,       /* layernorm, rmsnorm, batchnorm                     */
	PRED_OP_ATTENTION,  /* fused attention (flash, SDPA)                     */
	PRED_OP_MEMCPY,
	PRED_OP_MEMSET,
	PRED_OP_COMM,       /* NCCL collectives                                  */
	PRED_OP_COUNT
};

/* Fused attention implementations and forms: the values of trace.h's
 * enum trace_attn_impl and trace_attn_form (predictor/attention.h says
 * which kernel each runs on a target). */
enum pred_attn_impl {
	PRED_ATTN_NONE = 0,   /* not described                                 */
	PRED_ATTN_FLASH,      /* FA3 on compute capability 9.0, FA2 elsewhere  */
	PRED_ATTN_FA2, PRED_ATTN_FA3, PRED_ATTN_FLASHINFER, PRED_ATTN_CUDNN,
	PRED_ATTN_TRITON,     /* flash-attn's Triton kernel (llm-foundry's
			       * attn_impl triton): mma.sync on every GPU    */
	PRED_ATTN_EFFICIENT,  /* PyTorch's memory-efficient SDPA backend
			       * (xFormers' CUTLASS kernels): every dtype,
			       * an additive bias, every GPU from 5.0    */
	PRED_ATTN_IMPL_COUNT
};
enum pred_attn_form {
	PRED_ATTN_PREFILL = 0, PRED_ATTN_DECODE, PRED_ATTN_MLA_DECODE, PRED_ATTN_FORM_COUNT
};

/* A convolution's pass: the forward one, the gradient of its inputs
 * (cuDNN's dgrad: an implicit GEMM of N H W pixels by C channels over K R
 * S) or of its filters (wgrad: K filters by C R S taps over N P Q). */
enum pred_conv_pass { PRED_CONV_FWD = 0, PRED_CONV_DGRAD, PRED_CONV_WGRAD };

/* A forward convolution's geometry, where the caller knows it (a recorded
 * cuDNN descriptor, a NeuSight row); all 0: unknown.  predictor/conv.c
 * reads it to say where cuDNN's Winograd algorithm applies (a 3 x 3
 * filter at unit stride) and how its 4 x 4 output tiles pad P x Q. */
struct pred_conv {
	uint32_t r, s;                /* filter height and width                 */
	uint32_t p, q;                /* output height and width                 */
	uint32_t unit;                /* 1: every stride and dilation 1 and one
				       * group; 0 otherwise or unknown            */
	uint32_t pass;                /* enum pred_conv_pass: which of the
				       * three a recorded call ran (the backward
				       * ones have no geometry above)             */
};

/* The shape of a fused attention call (trace.h's struct trace_attn, whose
 * comments give the meaning of each field); impl NONE: not described. */
struct pred_attn {
	enum pred_attn_impl impl;
	enum pred_attn_form form;
	uint8_t backward, causal;
	uint32_t seqs, heads, kv_heads, head_dim, head_dim_v;
	uint64_t q_tokens, kv_tokens, max_kv;
	double pairs;                 /* attended (query, key) pairs            */
	uint64_t window;              /* causal sliding window: keys a query
				       * attends at most (itself included); 0
				       * none                                   */
	uint8_t kv_bytes;             /* bytes a cached K or V element is
				       * stored in (1: an FP8 KV cache); 0 the
				       * kernel's dtype's                       */
	uint32_t bias_heads;          /* heads of an additive bias read per
				       * pair: 1 broadcast, heads; 0 none       */
};

/* One distinct kernel configuration.  Unknown numbers are 0. */
struct pred_kernel {
	const char *name;             /* kernel name (may be NULL)               */
	uint32_t grid[3], block[3];
	uint32_t regs;                /* registers per thread                    */
	uint32_t smem_static, smem_dynamic; /* bytes per block                    */
	enum pred_op op;
	enum gpu_dtype dtype;         /* math dtype (GPU_DT_FP32 by default)     */
	/* GEMM: batch x (m x k) * (k x n); vector ops: rows x cols in m, n. */
	uint64_t m, n, k, batch;
	double flops;                 /* total floating-point operations         */
	double bytes;                 /* minimum DRAM traffic, bytes             */
	double origin_ns;             /* measured on the origin GPU; <= 0 none   */
	/* GEMM: the second operand is read transposed (attention's Q K^T on
	 * a K^T view); 0 none or unknown.  Only the AMD scale reads it. */
	uint8_t b_transposed;
	/* GEMM: the product is added into an FP32 output (beta = 1): the
	 * output read and written at 4 bytes an element; 0 written once in
	 * the output dtype.  Only the tensor-core model reads it. */
	uint8_t accumulate;
	/* GEMM: bytes an element of the second operand (the weights) takes
	 * in memory when stored narrower than dtype and widened in registers
	 * (weight-only quantization, trace.h's b_bytes); 0 dtype's.  Only
	 * the tensor-core model reads it: the math stays in dtype. */
	double b_bytes;
	/* PRED_OP_ATTENTION: the call's shape when a program builder gave it
	 * (attn.impl != PRED_ATTN_NONE); predictor/attention.c predicts it. */
	struct pred_attn attn;
	/* PRED_OP_CONV: its geometry when known (all 0 otherwise). */
	struct pred_conv conv;
};

/* How a prediction was obtained, for reports and for debugging. */
struct pred_result {
	double ns;                    /* predicted time on the target            */
	enum pred_method method;      /* the method that produced ns             */
	double gamma;                 /* memory-boundedness used (wave), -1 n/a  */
	double waves_origin, waves_target;
	double occ_origin, occ_target;/* theoretical occupancy, 0..1             */
	int memory_bound;             /* 1 memory-bound, 0 compute-bound, -1 ?   */
	double roofline_ns;           /* lower bound on the target               */
	/* What the tile model applied (PRED_MLP; 0 / NULL otherwise), on the
	 * target's side: */
	const char *weights;          /* its weights: "compiled-in" or the file
				       * (owned by the predictor)                */
	double floor_ns;              /* the family's host floor in ns, 0 none   */
	double amd_scale;             /* the AMD class scale the work term was
				       * multiplied by; 0 not an AMD target      */
	double amd_fixed_ns;          /* the AMD fixed cost added per kernel     */
	/* How ns follows the origin time: as origin_ns^(1 - pull).  0: in
	 * proportion (every method, and `auto` within an architecture); 1 - a
	 * where `auto` pulled a tile-model kernel toward the model's own time
	 * across architectures (struct pred_shrink), the convolution
	 * constants' shape_pull where it pulled a convolution (conv_pull()).  A caller that scales ns
	 * to another launch of the same kernel, measured d instead of
	 * origin_ns, takes ns x (d / origin_ns)^(1 - pull) (analyze.c). */
	double pull;
};

/* How much of the origin's own deviation from the tile model `auto`
 * carries to a target of another architecture (compute capability, or
 * AMD gfx target): T_t = model_t x (T_o / model_o)^a, a in [0, 1].  a = 1
 * is the ratio form (the origin's deviation carried in full), a = 0 the
 * shape alone.  Between boards of one architecture a is 1 (predict.c says
 * why and what was measured). */
struct pred_shrink {
	double gemm;                  /* a for FP32 GEMMs (the tile model's)     */
	double vector;                /* a for FP32 elementwise, softmax, norm   */
	int conv_pull;                /* 1: a whole convolution's ratio is pulled
				       * toward the model's shape time by the
				       * convolution constants' own shape_pull
				       * (conv_pull(), conv.h); 0: the ratio     */
};
/* The compiled-in exponents (fitted on NeuSight's five architectures,
 * predict.c), and 1 everywhere: the ratio form, linear in the origin's
 * time, what the CI gate compares (analyzer/main.c). */
extern const struct pred_shrink pred_shrink_default, pred_shrink_full;

/* How to build a predictor.  All zero (or pred_config NULL) is the
 * default: the compiled-in weights, no floor, the compiled-in AMD scale
 * and exponents. */
struct pred_config {
	const char *weights;          /* tile-model weights surfer-train wrote;
				       * NULL: the compiled-in ones              */
	const struct tile_model *tile;/* weights already loaded (borrowed: they
				       * must outlive the predictor); overrides
				       * weights                                  */
	int tile_floor;               /* 1: tile-model times include the host
				       * floor of the weights (a NeuSight op
				       * timing has it, a kernel in a trace not) */
	const struct tile_amd_scale *amd_scale; /* copied; NULL: the compiled-in
				       * one (predictor/amd_scale.c)             */
	const struct tile_own_scales *own_scales; /* Hopper's FP32 GEMM tile
				       * scales (borrowed); NULL: the compiled-in
				       * ones (predictor/tile_sm90_scale.c)     */
	const struct conv_params *conv; /* the convolution model's constants,
				       * copied; NULL: the compiled-in ones
				       * (predictor/conv_params.c)               */
	const struct tcgemm_params *tcgemm; /* the tensor-core GEMM model's
				       * constants (its GEMMs and the rate of
				       * fused attention's main loop), copied;
				       * NULL: the compiled-in ones
				       * (predictor/tcgemm_params.c)             */
	const struct comm_params *comm; /* the collective model's constants,
				       * copied; NULL: the compiled-in ones
				       * (predictor/comm.c)                      */
	const struct attn_params *attn; /* the fused attention model's
				       * constants, copied; NULL: the
				       * compiled-in ones (predictor/attention.c);
				       * a fixed_ns of 0 takes the elementwise
				       * floor of the vector-op constants below */
	const struct vecop_params *vecop; /* the vector-op model's constants
				       * (16-bit elementwise, norm, softmax,
				       * reduction kernels), copied; NULL: the
				       * compiled-in ones (predictor/vecop.c)    */
	const struct rowwise_params *rowwise; /* the row-wise model's constants
				       * (FP32 layer norm and softmax), copied;
				       * NULL: the compiled-in ones
				       * (predictor/rowwise.c)                   */
	const struct pred_shrink *shrink; /* copied; NULL: pred_shrink_default;
				       * &pred_shrink_full: every method linear
				       * in the origin's time                    */
};

/* A predictor: the configuration above, resolved.  Opaque and immutable;
 * one may be shared by threads.  predictor_new() returns 0 and *out (free
 * with predictor_free), or SURFER_EINVAL when the weights cannot be read
 * or are not a file surfer-train wrote (err says which), SURFER_ENOMEM. */
struct predictor;
int predictor_new(const struct pred_config *c, struct predictor **out, char *err, size_t errlen);
void predictor_free(struct predictor *p);
/* What p applies, for reports: its weights (never NULL: the empty model
 * when the compiled-in blob is empty), their source ("compiled-in" or the
 * file name), whether tile-model times include the floor, and the AMD
 * scale (a pointer into p). */
const struct tile_model *predictor_tile(const struct predictor *p);
const char *predictor_weights(const struct predictor *p);
int predictor_tile_floor(const struct predictor *p);
const struct tile_amd_scale *predictor_amd_scale(const struct predictor *p);
const struct tile_own_scales *predictor_own_scales(const struct predictor *p);
const struct pred_shrink *predictor_shrink(const struct predictor *p);
/* The tensor-core GEMM constants p applies (a pointer into p). */
const struct tcgemm_params *predictor_tcgemm(const struct predictor *p);
/* The collective, attention and vector-op constants p applies (pointers
 * into p). */
const struct comm_params *predictor_comm(const struct predictor *p);
const struct attn_params *predictor_attn(const struct predictor *p);
const struct vecop_params *predictor_vecop(const struct predictor *p);
const struct rowwise_params *predictor_rowwise(const struct predictor *p);

/* Predicts k on target with predictor p.  origin is the GPU k.origin_ns
 * was measured on, or NULL (from-scratch prediction; wave scaling is then
 * unavailable).  Returns 0, or a negative code when method cannot handle k
 * (PRED_WAVE with no origin time, ...) or p is NULL; `auto` always
 * succeeds.
 *
 * The contract with a measured origin (origin not NULL, k.origin_ns > 0):
 * with every method (auto, wave, mlp, roofline, tcgemm, vecop, identity)
 * the prediction is k.origin_ns times a ratio that depends on the rest of
 * k, on p and on the two GPUs only, never on k.origin_ns itself; which
 * method answers, whether it succeeds and every other field of the result
 * do not depend on it either.  So a configuration whose origin time grew
 * by x% is predicted x% slower on every target, and the analyzer may
 * predict each configuration once and scale each launch of it by its own
 * measured time (analyze.c).  One exception: `auto` on a tile-model kernel
 * (FP32 GEMM, elementwise, softmax, norm) with origin and target of
 * different architectures is model_t x (T_o / model_o)^a (struct
 * pred_shrink; the prediction grows by (1 + x)^a - 1), unless p was built
 * with pred_shrink_full, which makes every method linear: the CI gate
 * builds it so (analyzer/main.c) and sees a regression of the origin in
 * full.  The result's pull says the exponent (ns grows as origin_ns^(1 -
 * pull)), and the analyzer applies it to each launch's own measured time
 * (analyze.c, timeline.h), not the ratio of the launch that made the
 * configuration known.  From-scratch
 * predictions (no origin time) use the shape alone.
 * tests/check_predict.c (origin_time_linear, shrink_across_architectures)
 * and tests/analyzer_gate.sh keep it. */
int predict_kernel(const struct predictor *p, const struct pred_kernel *k,
		   const struct gpu_spec *origin, const struct gpu_spec *target,
		   enum pred_method method, struct pred_result *out);

/* The GPU's own time per kernel that a from-scratch prediction r leaves
 * out, in ns: what the target spends between one kernel of a stream and
 * the next beyond the kernels' work (the front end fetching the launch,
 * the grid's start and drain), which a kernel queued behind another pays
 * however fast the host launches it.  The figures table's
 * graph_launch_us for the target (gpu_specs/figures.h: the period of
 * tiny kernels launched from a CUDA graph, where no host call is left in
 * the loop; H200 1.26, A100 1.34, L40 0.94 us; the vendor's median by
 * rule, held out with gpu_figures_held_out()'s architecture).
 * 0 where r's time already holds such a cost: a measured time (identity,
 * wave scaling), a model fitted on timed kernels with a fixed term of its
 * own (tcgemm's overhead_ns, vecop's floors, attention's fixed_ns, the
 * collectives' latency), the tile model or the convolution model with the
 * host floor of NeuSight's op timings (pred_config.tile_floor), or an AMD
 * target's tile-model time (the AMD scale's fixed cost per kernel, fitted
 * on its operator profiles, stands for it there).
 * What remains is the tile model's, the convolution model's and the
 * roofline's kernel times, fitted or bounded as the work alone.  The
 * analyzer adds it to each kernel a program builder made (analyze.c),
 * not to a recorded one (the trace replay keeps each launch's measured
 * gap after its stream's previous work, timeline.c). */
double predict_gpu_cost_ns(const struct predictor *p, const struct pred_result *r,
			   const struct gpu_spec *target);

/* Classifies a kernel by its name and launch (and fills op, dtype and what
 * can be inferred of flops/bytes when they are 0). */
void predict_classify(struct pred_kernel *k);

/* An ATen elementwise kernel's launch read from its name (mangled or not):
 * elements per thread (vectorized_elementwise_kernel: 4, as PyTorch's
 * Loops.cuh launches FP32 work; elementwise_kernel<nt, vt>: vt) and the
 * tensors it touches (its std::array / at::detail::Array<char*, N>, 0 when
 * the name does not say).  Returns 0, or -1 when the name is not one. */
int predict_aten_elementwise(const char *name, double *elems_per_thread, unsigned *operands);

/* g = the convolution k as the GEMM its kernels compute: its implicit
 * GEMM's m, n, k (pred_kernel's, per pass), FLOPs and bytes, op GEMM,
 * batch 1, no origin time, the pass kept in g->conv.pass (tcgemm.c splits
 * a filter gradient's reduction over idle SMs) and the rest of the
 * convolution's geometry cleared (choose.c: a tensor-core convolution
 * goes to the tensor-core GEMM model). */
void predict_conv_as_gemm(const struct pred_kernel *k, struct pred_kernel *g);

const char *pred_method_name(enum pred_method m);
int pred_method_parse(const char *s, enum pred_method *out);
const char *pred_op_name(enum pred_op o);

/* The bytes g's DRAM carries besides a kernel's own for a broadcast
 * operand read again on every repetition (an attention mask added to every
 * head's scores): reread when reuse (the bytes the kernel streams between
 * two uses of one element) exceeds g's L2, so the operand has left it;
 * else 0.  The model builder records both figures per kernel, the analysis
 * applies the rule per target, and the profile harness to measured ops. */
double pred_reread_bytes(double reread, double reuse, const struct gpu_spec *g);

#endif
