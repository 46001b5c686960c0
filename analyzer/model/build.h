/*
 * build.h - the model builder's state and its kernel emitters, shared by
 * the files that write an architecture's kernel sequence (model.c: Hugging
 * Face eager modules; step.c: the optimizer step and data parallelism's
 * traffic; fuse.c: what a stack fuses; serve.c: the serving engines).
 * Internal to analyzer/model: nothing outside it
 * includes this header.
 *
 * An emitter appends the kernels ATen launches for one op to B->s, at the
 * builder's current phase and layer, with the launch geometry of ATen's
 * launchers (ops.c says which).  The op_* emitters also remember the op
 * (training only) so that bld_backward_op can emit what autograd launches
 * for it; k_* emitters append one kernel and remember nothing.  After an
 * error (B->err set: SURFER_ENOMEM, or SURFER_EINVAL past
 * the kernel limit) every emitter does nothing.
 */
#ifndef SURFER_MODEL_BUILD_H
#define SURFER_MODEL_BUILD_H

#include "analyzer/model/model.h"

/* ---- forward ops remembered for the backward pass -------------------- */

enum fop_kind {
	F_LINEAR, F_BMM, F_EW, F_SOFTMAX, F_NORM, F_DROPOUT, F_EMBED,
	F_LOSS, F_SDPA, F_REDUCE, F_TP_FWD, F_TP_BWD, F_PP_SEND, F_CP,
	F_ATTN,                 /* fused attention (attn.h): its shape in attn */
	F_GROUPED,              /* grouped GEMM of d experts, a rows each      */
	F_A2A                   /* expert-parallel all-to-all of a bytes      */
};

struct fop {
	enum fop_kind kind;
	int32_t layer;
	uint64_t a, b, c, d;    /* shape; meaning per kind (see the emitters) */
	int flag;               /* linear: bias 1, tied 2, NF4 weight 8
				 * (--qlora), a --lora adapter beside it
				 * 16; linear and bmm:
				 * 4 its input cast by autocast; sdpa:
				 * causal; pp send: its model_kernel async
				 * value; reduce: an RMSNorm's weight; norm:
				 * a fused RMSNorm (--norm fused)          */
	int nbwd;               /* elementwise: backward kernels              */
	double bwd_in, bwd_out; /* elementwise: tensors each backward kernel
				 * reads and writes where a fused kernel's
				 * own (Liger's); 0 bld_backward_op()'s rule */
	double nin;             /* elementwise: tensors read per element      */
	const char *bwd_name;   /* elementwise: backward kernel name          */
	int param;              /* owns parameters (grad accumulation)        */
	int fp8;                /* linear: its GEMMs in FP8                   */
	double fp8_x_bwd;       /* FP8 linear: its input's elements the recipe
				 * casts again in backward (rowwise's dim-1
				 * copy), 0 where a linear before it that read
				 * the same input casts them               */
	double param_elems;
	double esz;             /* elementwise and reductions: bytes per
				 * element of the tensors they move when not
				 * the activations' (an eager norm's FP32
				 * internals 4, a cast between 2 and 4 bytes
				 * their mean, 3); 0 the activations'       */
	int frozen;             /* --lora: its parameters take no gradient    */
	struct pred_attn attn;  /* F_ATTN: the call                           */
};

struct bld {
	struct model_seq *s;
	const struct model_config *c;
	const struct model_opts *o;
	enum model_phase ph;
	int32_t layer;
	double esz;             /* bytes per activation element              */
	enum gpu_dtype gemm_dt; /* math dtype of GEMMs                       */
	double gemm_b_bytes;    /* bytes a GEMM's weight element takes when
				 * narrower than gemm_dt's (weight-only
				 * quantization, serve.c); 0 the dtype's     */
	enum gpu_dtype vec_dt;  /* math dtype of vector kernels              */
	struct fop *ops;
	size_t nops, capops;
	int err;
	/* parallel sharding of one layer */
	uint32_t tp;
	uint64_t b, sl, T;      /* microbatch, sequence length, tokens b*sl  */
	uint64_t Ts;            /* tokens outside the tensor-parallel regions:
				 * T, or T / tp under sequence parallelism */
	uint64_t kv;            /* keys each query attends to: sl, or in a
				 * decode step the cache and the new token */
	uint64_t cols;          /* last dimension of the tensors the next vector
				 * kernels work on (their rows x cols shape) */
	double *unit;           /* parameters per FSDP unit: [0] outside the
				 * layers, [1 + i] layer i                  */
	double *unit_t;         /* of those, the trained ones (--lora's
				 * adapters; every one without --lora)     */
	double *unit_x;         /* of those, the routed experts' (this rank's
				 * under --ep: FSDP shards them over the
				 * expert data-parallel group)              */
	uint32_t nunits;
	uint32_t wait_next;     /* the next kernel's wait (model_kernel.wait) */
	/* forward kernels of each unit, [lo, hi) in s->v, for recompute:
	 * [0] outside the layers, [1 + i] layer i */
	size_t *fwd_lo, *fwd_hi;
	/* the input the last linear read: a linear launched right after its
	 * GEMM, nothing between, with an input of the same shape reads the
	 * same tensor (Q, K, V; gate, up), already scaled or cast */
	struct bld_last_in {
		size_t after;           /* s->n after its GEMM                    */
		uint64_t m, in;         /* the input's rows and width             */
		int fp8;                /* scaled to FP8 for it                   */
		int cast;               /* cast to 16 bits for it (autocast)      */
	} last_in;
	size_t fp8_gather_at;   /* s->n after the last FP8 sequence-parallel
				 * all-gather (op_tp), 0 none              */
	double fp8_gathered;    /* its elements (a T x h tensor, already in
				 * FP8: the linears after it cast none)     */
	int high_precision;     /* the next linears stay out of FP8 (routers) */
	int lora_adapter;       /* emitting a --lora adapter: trainable       */
	int in_mlp;             /* emitting an MLP's linears (--lora attn)    */
	int act_fp32;           /* autocast: the activation the next matmul
				 * reads is FP32 (a norm's or softmax's)   */
	uint32_t a2a_last;      /* --moe-a2a-overlap: 1 + index of the last
				 * all-to-all, 0 none yet                  */
	/* --stack te under tensor parallelism: the column-parallel linears
	 * whose weight-gradient GEMMs wait for their input-gradient's
	 * reduce-scatter (all-reduce) to be issued, so that they run while it
	 * does (ops.c, tp_wgrad_deferred()) */
	const struct fop *tp_defer[4];
	uint32_t ntp_defer;
	uint32_t tp_regather;   /* 1 + index of the saved input's all-gather
				 * for those wgrads (sequence parallelism) */
	double tp_flushed_elems; /* their parameters, for the data-parallel
				  * buckets once their wgrads are emitted   */
};

/* The most kernels one built iteration may hold by default
 * (model_opts.max_kernels): 4 Mi launches, 1 GiB of model_kernel.  Real
 * iterations stay far below it (Llama 3.1 405B over 8 pipeline stages
 * with 64 microbatches launches 0.14 M per GPU; an
 * unsharded 2 T-parameter model's foreach AdamW about 1.2 M); a config that
 * passes it (a hidden size of 256000 makes the optimizer alone launch tens
 * of millions) is refused rather than exhausting the machine's memory. */
#define MODEL_MAX_KERNELS (4u << 20)

/* The reason for B->err, for model_build's error text. */
const char *bld_error(const struct bld *B);

static inline uint64_t cdiv(uint64_t a, uint64_t b)
{
	return b ? (a + b - 1) / b : 0;
}

/* Appends a zeroed kernel at the builder's phase, layer, vector dtype and
 * pending wait; NULL after an error. */
/* Sets B to an empty builder of c run as o into s: outside the layers,
 * o's TP degree, GEMMs in o's dtype, vector kernels in it too (FP32 for a
 * TF32 run: TF32 is a matmul mode), activations at its size. */
void bld_init(struct bld *B, const struct model_config *c, const struct model_opts *o,
	      struct model_seq *s);

struct model_kernel *bld_push(struct bld *B);
/* A buffer a thread keeps between builds: the largest it has released,
 * cap in its owner's units, handed to the next build that starts empty (a
 * plan builds and times one model hundreds of times).  The kernel arrays
 * (ops.c) and the program buffers (run.c) each have one. */
struct bld_spare {
	void *p;
	size_t cap;
};
/* Keeps p (cap) in sp when it is larger than what sp holds, freeing the
 * smaller of the two. */
void bld_spare_keep(struct bld_spare *sp, void *p, size_t cap);
/* What sp holds (NULL and *cap 0 when nothing), sp left empty. */
void *bld_spare_take(struct bld_spare *sp, size_t *cap);
void bld_spare_drop(struct bld_spare *sp);

/* Frees v (cap kernels), or keeps it for the thread's next bld_push()
 * when it is the largest the thread has released (model_seq_release()). */
void bld_keep_array(struct model_kernel *v, size_t cap);
/* Frees the array bld_keep_array() kept for this thread. */
void bld_drop_array(void);

/* The kernel the last emitter pushed, NULL after an error. */
struct model_kernel *bld_last_kernel(struct bld *B);

/* Marks the kernel the last emitter pushed as launched inside the op of
 * the kernel before it (model_kernel.in_op); nothing after an error. */
void bld_mark_in_op(struct bld *B);

/* Keeps f (at the current layer) for the backward pass; training only. */
void bld_remember(struct bld *B, const struct fop *f);

/* Counts parameters held by this GPU, and into the current FSDP unit. */
void bld_add_params(struct bld *B, double elems, uint32_t tensors);

/* A vector kernel over n elements, 512 elements per 128-thread block. */
void k_vector(struct bld *B, const char *name, enum pred_op op, double n,
	      double nin, double nout, double flops_per_elem);

/* A copy of bytes between the GPU and the host's pinned memory (kind
 * MODEL_COPY_DTOH or _HTOD), on the compute stream, the CPU waiting for
 * it; cpu_ns of CPU work before it is issued, after every stream is done
 * (none: 0).  Returns the copy, NULL on a build error. */
struct model_kernel *k_host_copy(struct bld *B, int kind, double bytes, double cpu_ns);

/* A fill of bytes (zero_(), the FillFunctor kernel). */
void k_memset(struct bld *B, double bytes);

/* One GEMM: batch x (m x k) * (k x n). */
void k_gemm(struct bld *B, uint64_t batch, uint64_t m, uint64_t n, uint64_t kk);

/* A softmax (or its backward, nin 2) over rows of cols. */
void k_softmax(struct bld *B, const char *name, uint64_t rows, uint64_t cols, double nin);

void k_rows(struct bld *B, const char *name, enum pred_op op, uint64_t rows,
	    uint64_t cols, double nin, double nout, double flops_per_elem, uint32_t block);

/* Column reduction: out[c] = sum_r in[r][c] (bias gradients).  Described
 * as cols reductions of length rows each (one block per output, as a
 * row kernel), the form the vector-operator models know. */
void k_colsum(struct bld *B, uint64_t rows, uint64_t cols);

/* A collective of bytes over ranks GPUs (async: model_kernel.async). */
void k_comm(struct bld *B, enum comm_op op, double bytes, enum model_group g, int async);
void k_comm_elem(struct bld *B, enum comm_op op, double bytes, double elem, enum model_group g,
		 int async);

void op_linear(struct bld *B, uint64_t m, uint64_t in, uint64_t out, int bias, int tied);

void op_bmm(struct bld *B, uint64_t batch, uint64_t m, uint64_t n, uint64_t kk);

/* PyTorch's nonzero over n elements on the GPU, as torch.where(mask),
 * mask.nonzero() and indexing with a boolean mask (x[mask], x[mask] = y)
 * run it: the output's size is the count of nonzero elements, so the op
 * counts them (a reduction), copies the count to the host and waits for
 * it, then writes the indices (DeviceSelectSweepKernel).  The CPU thus
 * waits for every kernel queued before it, and the GPU then idles while
 * the CPU launches what follows.  Forward only (autograd keeps the
 * indices). */
void op_nonzero(struct bld *B, double n);

/* An elementwise op: name of its forward kernel, elements, tensors read,
 * FLOPs per element, number of backward kernels and their name. */
void op_ew(struct bld *B, const char *name, double n, double nin, double flops,
	   int nbwd, const char *bwd_name);

/* A fused elementwise kernel (Liger's): op_ew with one backward kernel
 * that reads bwd_in tensors and writes bwd_out, its own counts. */
void op_fused_ew(struct bld *B, const char *name, double n, double nin, double flops,
		 const char *bwd_name, double bwd_in, double bwd_out);

void op_softmax(struct bld *B, uint64_t rows, uint64_t cols);
void op_softmax_fp32(struct bld *B, uint64_t rows, uint64_t cols, int upcast);

void op_layernorm(struct bld *B, uint64_t rows, uint64_t cols);

/* HF LlamaRMSNorm / T5LayerNorm in eager mode: x.pow(2).mean(-1), + eps,
 * rsqrt, x * r, weight * x (plus casts to and from fp32 for 16-bit). */
void op_rmsnorm(struct bld *B, uint64_t rows, uint64_t cols);

void op_dropout(struct bld *B, double n, double p);

void op_embed(struct bld *B, uint64_t tokens, uint64_t dim, uint64_t rows, int count_params);

void op_sdpa(struct bld *B, uint64_t bh, uint64_t sq, uint64_t sk, uint64_t d, int causal);

/* Tensor parallelism's collective on n activation elements (the full
 * T x h tensor): at a row-parallel output (forward 1) an all-reduce in
 * the forward pass, at a column-parallel input (forward 0) one in the
 * backward pass; under sequence parallelism (o->sp) a reduce-scatter at
 * the output and an all-gather at the input, each with its transpose in
 * the backward pass.  Under FP8 with a recipe that gathers in FP8
 * (bld_sp_fp8_bytes()) each all-gather moves FP8, cast on the rank's
 * shard before it. */
void op_tp(struct bld *B, int forward, double n);
/* The routed experts' GEMMs of one MoE layer on this GPU: experts
 * matrices (m x in) * (in x out), their weights parameters (counted in
 * s->expert_params too); FP8 like a linear.  Backward: the grouped dX and
 * dW GEMMs. */
void op_grouped(struct bld *B, uint64_t experts, uint64_t m, uint64_t in, uint64_t out);

/* Expert parallelism's token dispatch (to_experts 1) or combine (0): an
 * all-to-all of bytes (each rank's send buffer of k rows a token, in the
 * activations' dtype) over the expert-parallel group; its backward moves
 * the gradients the other way.  o->moe_dispatch_fp8: a move towards the
 * experts in FP8; o->moe_route_nodes: node-limited (the kernel's n and k,
 * the trace OP's, carry the limit and k for the collective model);
 * o->moe_a2a_overlap: on the side stream, the kernel after the next
 * all-to-all waiting for it.  Nothing when o->ep is 1. */
void op_a2a(struct bld *B, double bytes, uint64_t k, int to_experts);

/* Context parallelism: the keys and values of one ring step (bytes) passed
 * to the next rank cp - 1 times around the ring, on the side stream while
 * the attention computes; backward passes them and their gradients. */
void op_cp(struct bld *B, double step_bytes);

/* --dtype fp8: the scaling kernels of one linear's operands, per the
 * recipe, before its GEMMs (forward: input and weight; backward: the
 * output's gradient and the weight's transposed copy); x 0: the input's
 * left out (already scaled for the previous linear); w 0: the weight's.
 * In backward, saved_x_elems is the saved input the recipe scales again
 * for the weight gradient (rowwise's dim-1 copy; 0 in forward). */
void bld_fp8_casts(struct bld *B, int forward, double x_elems, double w_elems, double saved_x_elems);

/* Bytes an element of a sequence-parallel all-gather of the layers'
 * activations moves under B's FP8 recipe when the stack gathers them in
 * FP8, 0 when it gathers them in the dtype (ops.c says which do). */
double bld_sp_fp8_bytes(const struct bld *B);

/* Bytes an element of a GEMM's input operands of dtype dt takes (k_gemm's
 * traffic): one for FP8, else the activation dtype's. */
double bld_gemm_in_bytes(const struct bld *B, enum gpu_dtype dt);

/* Whether the linear of this shape runs in FP8 under B's options. */
int bld_fp8_linear(const struct bld *B, uint64_t in, uint64_t out);

/* AccumulateGrad: param.grad += grad over elems. */
void bld_grad_accumulate(struct bld *B, double elems, uint64_t cols);

/* The kernels autograd launches for the remembered op f. */
void bld_backward_op(struct bld *B, const struct fop *f);

/* ---- the step beside the passes (step.c) ------------------------------ */

/* The optimizer step after the backward pass: gradient clipping, the
 * multi-tensor AdamW or SGD passes, Megatron's copy to the model's
 * parameters (or, --offload, the host's step and its copies). */
void bld_optimizer_step(struct bld *B);
/* DDP: grad_bytes more gradients into *pending, all-reduced over group g
 * in 25 MB buckets as they fill (final: the rest too). */
void bld_dp_buckets(struct bld *B, double grad_bytes, double *pending, int final,
		    enum model_group g);
/* Whether parameters are sharded (ZeRO-2|3 / FSDP over > 1 ranks). */
int bld_sharded(const struct bld *B);
/* A unit's parameter all-gather(s); returns the last one's index + 1. */
uint32_t bld_zero_gather(struct bld *B, int32_t layer, int async);
/* FSDP2's copy-out after a unit's gather; its index + 1 (0 none). */
uint32_t bld_zero_copy_out(struct bld *B, int32_t layer, double n);
/* A unit's gradient copy-in and reduce-scatter (HSDP: and all-reduce). */
void bld_zero_reduce(struct bld *B, int32_t layer);

/* ---- what a stack does to the built sequence (fuse.c) ----------------- */

/* --stack compile|te: fusible kernels folded into their neighbours. */
void bld_stack_fuse(struct bld *B);
/* --dtype fp8 under FSDP: the weights' all-gathers in FP8. */
void bld_fp8_gathers(struct bld *B);
/* --cuda-graphs: each block's forward and backward one graph. */
void bld_graph_regions(struct bld *B);

/* model_build for o->engine vLLM or SGLang (serve.c): the engine's
 * kernels for o->mode prefill, decode or serve (inference: a prefill of
 * batch x seq).  Same contract as model_build. */
int serve_build(const struct model_config *c, const struct model_opts *o, struct model_seq *s,
		char *err, size_t errlen);

#endif
