/*
 * ops.c - the model builder's kernel emitters (see build.h): one function
 * per ATen op an eager module calls, emitting the kernels it launches, and
 * the backward kernels autograd launches for each remembered op.
 *
 * Launch geometry follows ATen's launchers: vectorized elementwise kernels
 * handle 4 elements x 128 threads = 512 elements per block; softmax uses the
 * warp-per-row kernel up to 1024 columns and one block per row above;
 * layernorm runs one block per row; GEMM grids come from a cuBLAS-like tile
 * choice (128x128, 128x64, 64x64, 32x32 by output size).
 */
#include "analyzer/model/build.h"
#include "analyzer/model/attn.h"
#include "predictor/rowwise.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void bld_init(struct bld *B, const struct model_config *c, const struct model_opts *o,
	      struct model_seq *s)
{
	memset(B, 0, sizeof(*B));
	B->s = s;
	B->c = c;
	B->o = o;
	B->layer = -1;
	B->tp = o->tp;
	B->vec_dt = o->dtype == GPU_DT_TF32 ? GPU_DT_FP32 : o->dtype;
	B->gemm_dt = o->dtype;
	B->esz = gpu_dtype_bytes(o->dtype);
}

void bld_spare_keep(struct bld_spare *sp, void *p, size_t cap)
{
	if (p && cap > sp->cap) {
		free(sp->p);
		sp->p = p;
		sp->cap = cap;
	} else {
		free(p);
	}
}

void *bld_spare_take(struct bld_spare *sp, size_t *cap)
{
	void *p = sp->p;
	*cap = sp->cap;
	sp->p = NULL;
	sp->cap = 0;
	return p;
}

void bld_spare_drop(struct bld_spare *sp)
{
	free(sp->p);
	sp->p = NULL;
	sp->cap = 0;
}

/* A thread's largest released kernel array, handed to its next build's
 * first push: growing every build's array from nothing (realloc's copies
 * and the fresh pages they touch) took about a third of a plan's time
 * (perf, Qwen3-235B-A22B on 64 GPUs). */
static _Thread_local struct bld_spare spare_kernels;

void bld_keep_array(struct model_kernel *v, size_t cap)
{
	bld_spare_keep(&spare_kernels, v, cap);
}

void bld_drop_array(void)
{
	bld_spare_drop(&spare_kernels);
}

struct model_kernel *bld_push(struct bld *B)
{
	struct model_seq *s = B->s;
	if (B->err)
		return NULL;
	if (s->n >= (B->o->max_kernels ? B->o->max_kernels : MODEL_MAX_KERNELS)) {
		B->err = SURFER_EINVAL;
		return NULL;
	}
	if (!s->cap)
		s->v = bld_spare_take(&spare_kernels, &s->cap);
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		struct model_kernel *v = realloc(s->v, cap * sizeof(*v));
		if (!v) {
			B->err = SURFER_ENOMEM;
			return NULL;
		}
		s->v = v;
		s->cap = cap;
	}
	struct model_kernel *k = &s->v[s->n++];
	memset(k, 0, sizeof(*k));
	k->phase = B->ph;
	k->layer = B->layer;
	k->k.dtype = B->vec_dt;
	k->wait = B->wait_next;
	B->wait_next = 0;
	return k;
}

const char *bld_error(const struct bld *B)
{
	return B->err == SURFER_EINVAL ? "the iteration would launch more kernels than surfer builds"
				       : "out of memory";
}

/* The kernel the last emitter pushed, NULL after an error. */
struct model_kernel *bld_last_kernel(struct bld *B)
{
	return B->err || !B->s->n ? NULL : &B->s->v[B->s->n - 1];
}

void bld_mark_in_op(struct bld *B)
{
	struct model_kernel *k = bld_last_kernel(B);
	if (k)
		k->in_op = 1;
}

void bld_remember(struct bld *B, const struct fop *f)
{
	if (B->err || B->o->mode != MODEL_TRAINING)
		return;
	if (B->nops == B->capops) {
		size_t cap = B->capops ? B->capops * 2 : 256;
		struct fop *v = realloc(B->ops, cap * sizeof(*v));
		if (!v) {
			B->err = SURFER_ENOMEM;
			return;
		}
		B->ops = v;
		B->capops = cap;
	}
	B->ops[B->nops] = *f;
	B->ops[B->nops].layer = B->layer;
	/* under --lora everything but the adapters is frozen */
	B->ops[B->nops].frozen = B->o->lora_rank && !B->lora_adapter && f->param;
	B->nops++;
}

void bld_add_params(struct bld *B, double elems, uint32_t tensors)
{
	/* trained: every parameter, or under --lora the adapters' alone */
	int trained = B->lora_adapter || !B->o->lora_rank;
	B->s->params += elems;
	B->s->param_tensors += tensors;
	if (trained) {
		B->s->params_trainable += elems;
		B->s->param_tensors_trainable += tensors;
	}
	if (B->unit_t && trained && B->layer + 1 >= 0 && (uint32_t)(B->layer + 1) < B->nunits)
		B->unit_t[B->layer + 1] += elems;
	if (B->unit && B->layer + 1 >= 0 && (uint32_t)(B->layer + 1) < B->nunits)
		B->unit[B->layer + 1] += elems;
}

/* ---- kernel emitters ---------------------------------------------------- */

/* A vector kernel over n elements, 512 elements per 128-thread block. */
void k_vector(struct bld *B, const char *name, enum pred_op op, double n,
	      double nin, double nout, double flops_per_elem)
{
	struct model_kernel *k = bld_push(B);
	if (!k)
		return;
	k->k.name = name;
	k->k.op = op;
	k->k.grid[0] = (uint32_t)(cdiv((uint64_t)n, 512) ? cdiv((uint64_t)n, 512) : 1);
	k->k.grid[1] = k->k.grid[2] = 1;
	k->k.block[0] = 128;
	k->k.block[1] = k->k.block[2] = 1;
	/* rows x cols as the tensor is laid out, as NeuSight's vector-op data
	 * describes its kernels (B x H) */
	uint64_t cols = B->cols ? B->cols : 1;
	if (cols > (uint64_t)n || (uint64_t)n % cols)
		cols = 1;
	k->k.m = (uint64_t)n / cols;
	k->k.n = cols;
	k->k.batch = 1;
	k->k.flops = flops_per_elem * n;
	k->k.bytes = (nin + nout) * n * B->esz;
}

struct model_kernel *k_host_copy(struct bld *B, int kind, double bytes, double cpu_ns)
{
	struct model_kernel *k = bld_push(B);
	if (!k)
		return NULL;
	k->k.name = kind == MODEL_COPY_DTOH ? "memcpy DtoH" : "memcpy HtoD";
	k->k.op = PRED_OP_ELEMENTWISE;
	k->k.bytes = bytes;
	k->copy = (uint8_t)kind;
	k->cpu_before_ns = cpu_ns;
	k->sync_before = cpu_ns > 0;
	return k;
}

void k_memset(struct bld *B, double bytes)
{
	struct model_kernel *k = bld_push(B);
	if (!k)
		return;
	k->k.name = "vectorized_elementwise_kernel<4, FillFunctor>";
	k->k.op = PRED_OP_MEMSET;
	uint64_t n = (uint64_t)(bytes / B->esz);
	k->k.grid[0] = (uint32_t)(cdiv(n, 512) ? cdiv(n, 512) : 1);
	k->k.grid[1] = k->k.grid[2] = 1;
	k->k.block[0] = 128;
	k->k.block[1] = k->k.block[2] = 1;
	k->k.m = n;
	k->k.n = 1;
	k->k.batch = 1;
	k->k.bytes = bytes;
}

/* GEMM names by tile and dtype class: the tile model reads the tile from
 * the name, as it does for recorded cuBLAS kernels. */
static const char *gemm_name(enum gpu_dtype dt, uint32_t tm, uint32_t tn)
{
	static const char *const simt[] = {
		"sgemm_128x128_nn", "sgemm_128x64_nn", "sgemm_64x64_nn", "sgemm_32x32_nn"
	};
	static const char *const tc[] = {
		"gemm_tensorop_128x128_nn", "gemm_tensorop_128x64_nn",
		"gemm_tensorop_64x64_nn", "gemm_tensorop_32x32_nn"
	};
	int i = tm == 128 ? (tn == 128 ? 0 : 1) : tm == 64 ? 2 : 3;
	return dt == GPU_DT_FP32 || dt == GPU_DT_FP64 ? simt[i] : tc[i];
}

/* One GEMM: batch x (m x k) * (k x n). */
void k_gemm(struct bld *B, uint64_t batch, uint64_t m, uint64_t n, uint64_t kk)
{
	struct model_kernel *k = bld_push(B);
	if (!k)
		return;
	uint32_t tm, tn;
	/* cuBLAS heuristics prefer the largest tile that still yields a few
	 * blocks per output; small outputs get small tiles. */
	if (m >= 128 && n >= 128 && (double)m * (double)n * (double)batch >= 128.0 * 128 * 64)
		tm = 128, tn = 128;
	else if (m >= 128 && n >= 64)
		tm = 128, tn = 64;
	else if (m >= 64 && n >= 64)
		tm = 64, tn = 64;
	else
		tm = 32, tn = 32;
	k->k.name = gemm_name(B->gemm_dt, tm, tn);
	k->k.op = PRED_OP_GEMM;
	k->k.dtype = B->gemm_dt;
	k->k.grid[0] = (uint32_t)cdiv(m, tm);
	k->k.grid[1] = (uint32_t)cdiv(n, tn);
	k->k.grid[2] = (uint32_t)(batch ? batch : 1);
	k->k.block[0] = tm * tn >= 128 * 128 ? 256 : 128;
	k->k.block[1] = k->k.block[2] = 1;
	k->k.m = m;
	k->k.n = n;
	k->k.k = kk;
	k->k.batch = batch ? batch : 1;
	k->k.flops = 2.0 * (double)m * (double)n * (double)kk * (double)k->k.batch;
	double in = bld_gemm_in_bytes(B, B->gemm_dt);
	/* weight-only quantized weights at their own bytes */
	double wb = B->gemm_b_bytes > 0 && B->gemm_b_bytes < in ? B->gemm_b_bytes : in;
	k->k.b_bytes = wb < in ? wb : 0;
	k->k.bytes = ((double)m * kk * in + (double)kk * n * wb + (double)m * n * B->esz) *
		     (double)k->k.batch;
}

/* FP8 operands, a byte each; the others (and the output of every GEMM) in
 * the activation dtype. */
double bld_gemm_in_bytes(const struct bld *B, enum gpu_dtype dt)
{
	return dt == GPU_DT_FP8 ? 1.0 : B->esz;
}

void k_softmax(struct bld *B, const char *name, uint64_t rows, uint64_t cols, double nin)
{
	struct model_kernel *k = bld_push(B);
	if (!k)
		return;
	k->k.name = name;
	k->k.op = PRED_OP_SOFTMAX;
	if (cols <= 1024) {
		/* softmax_warp_forward: 4 warps of 128 threads, a warp per row
		 * (two rows when the row fits in 128 columns). */
		uint64_t rows_per_block = cols <= 128 ? 8 : 4;
		k->k.grid[0] = (uint32_t)cdiv(rows, rows_per_block);
		k->k.block[0] = 128;
	} else {
		/* cunn_SoftMaxForward: a block per row, of the size
		 * SoftMax_getBlockSize() takes (predictor/rowwise.h; ILP 4 for
		 * float, halved to keep half the row vectorised): NeuSight's
		 * launches show 256 threads at 1600 and 2048 columns, 512 at
		 * 4096. */
		k->k.grid[0] = (uint32_t)rows;
		k->k.block[0] = rowwise_softmax_block_threads(cols);
	}
	k->k.grid[1] = k->k.grid[2] = 1;
	k->k.block[1] = k->k.block[2] = 1;
	k->k.m = rows;
	k->k.n = cols;
	k->k.batch = 1;
	k->k.flops = ROWWISE_SOFTMAX_FLOPS * (double)rows * (double)cols;
	k->k.bytes = (nin + 1.0) * (double)rows * (double)cols * B->esz;
}

void k_rows(struct bld *B, const char *name, enum pred_op op, uint64_t rows,
	    uint64_t cols, double nin, double nout, double flops_per_elem, uint32_t block)
{
	struct model_kernel *k = bld_push(B);
	if (!k)
		return;
	k->k.name = name;
	k->k.op = op;
	k->k.grid[0] = (uint32_t)(rows ? rows : 1);
	k->k.grid[1] = k->k.grid[2] = 1;
	k->k.block[0] = block;
	k->k.block[1] = k->k.block[2] = 1;
	k->k.m = rows;
	k->k.n = cols;
	k->k.batch = 1;
	k->k.flops = flops_per_elem * (double)rows * (double)cols;
	k->k.bytes = (nin + nout) * (double)rows * (double)cols * B->esz;
}

/* Column reduction: out[c] = sum_r in[r][c] (bias gradients).  Described
 * as cols reductions of length rows each (one block per output, as a
 * row kernel), the form the vector-operator models know. */
void k_colsum(struct bld *B, uint64_t rows, uint64_t cols)
{
	k_rows(B, "reduce_kernel<512, 1, ReduceOp<float, func_wrapper<float, sum>>>",
	       PRED_OP_REDUCTION, cols, rows, 1.0, 0.0, 1.0, 256);
}

/* A collective of group g (its ranks and how many share a node from the
 * layout, model_group()) over elements of the activations' dtype. */
void k_comm(struct bld *B, enum comm_op op, double bytes, enum model_group g, int async)
{
	k_comm_elem(B, op, bytes, B->esz, g, async);
}

/* The same over elements of elem bytes (4: an FP32 reduction, the
 * gradients' under mixed precision, a loss statistic), which only the
 * kernel's name says: NCCL's reducing kernels are one per dtype
 * (ncclDevKernel_AllReduce_Sum_bf16_RING_LL and the like, named by their
 * LL specialization whatever protocol runs), the bytes give the time. */
void k_comm_elem(struct bld *B, enum comm_op op, double bytes, double elem, enum model_group g,
		 int async)
{
	struct model_kernel *k = bld_push(B);
	if (!k)
		return;
	/* NCCL runs an all-to-all as grouped sends and receives: its kernel
	 * is the SendRecv one */
	static const char *const names[] = {
		"", "", "ncclDevKernel_AllGather_RING_LL", "", "ncclDevKernel_SendRecv",
		"ncclDevKernel_Broadcast_RING_LL", "", "ncclDevKernel_SendRecv"
	};
	static const char *const typed[][3] = {   /* f32, f16, bf16 */
		[COMM_ALL_REDUCE] = { "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
				      "ncclDevKernel_AllReduce_Sum_f16_RING_LL",
				      "ncclDevKernel_AllReduce_Sum_bf16_RING_LL" },
		[COMM_REDUCE_SCATTER] = { "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL",
					  "ncclDevKernel_ReduceScatter_Sum_f16_RING_LL",
					  "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL" },
		[COMM_REDUCE] = { "ncclDevKernel_Reduce_Sum_f32_RING_LL",
				  "ncclDevKernel_Reduce_Sum_f16_RING_LL",
				  "ncclDevKernel_Reduce_Sum_bf16_RING_LL" },
	};
	int t = elem != 2.0 ? 0 : B->o->dtype == GPU_DT_FP16 ? 1 : 2;
	k->k.name = op == COMM_ALL_REDUCE || op == COMM_REDUCE_SCATTER || op == COMM_REDUCE ? typed[op][t]
		    : (unsigned)op < sizeof(names) / sizeof(names[0]) ? names[op] : "";
	k->k.op = PRED_OP_COMM;
	k->k.grid[0] = k->k.grid[1] = k->k.grid[2] = 1;
	k->k.block[0] = 512;
	k->k.block[1] = k->k.block[2] = 1;
	k->k.batch = 1;
	k->k.bytes = bytes;
	k->k.m = (uint64_t)bytes;
	k->phase = MODEL_PH_COMM;
	k->comm = op;
	model_group(B->o, g, &k->ranks, &k->node_ranks);
	k->async = async;
	/* a wait is the compute stream's: a collective on the side stream
	 * follows the side stream's order and leaves it to the next kernel */
	if (async && k->wait) {
		B->wait_next = k->wait;
		k->wait = 0;
	}
}

/* ---- forward ops ------------------------------------------------------- */

/*
 * torch.autocast (--precision autocast, eager): the parameters stay FP32
 * and each matmul (linear, bmm; its autocast op list) casts its FP32
 * operands to the 16-bit dtype on every call, each cast a kernel of its
 * own (at::_to_copy: `bfloat16_copy_kernel_cuda` reading 4 bytes and
 * writing 2 an element); norms and softmax run in FP32 (autocast's FP32
 * list), so the matmuls after them cast their input as well, each linear
 * that reads it (Q, K and V each; autocast caches only the casts of
 * parameters, once per forward).  Backward casts each of those gradients
 * back to FP32 (the casts' own backward, `direct_copy_kernel_cuda`).
 * Recorded on our H200 (tools/gpu/check.sh's gpt2-bf16: GPT-2 124M,
 * batch 8 x 512, under autocast with SDPA) the step launched 1097 kernels,
 * 404 of them copies (195 casts to BF16, 147 direct copies), where the
 * model without these casts launched 726 and with them launches 972
 * (docs/model.md, Memory, says which of the rest it lacks).  Approximate
 * where a norm's FP32 output reaches a matmul through elementwise ops (the
 * rotary embedding after Qwen3's q/k norms): those casts are left out.
 * torch.compile fuses the casts into its kernels, and Transformer Engine
 * keeps 16-bit weights: only the eager stack pays them; under FSDP only
 * the inputs' (autocast_weights()).  In inference (Hugging Face's eager
 * model, FP32, run under torch.autocast) the same casts, forward only: a
 * parameter's cast is cached for the autocast region (a leaf that
 * requires grad, which a loaded model's parameters do under no_grad
 * too), so a generation's decode steps, inside the prefill's region,
 * cast the inputs alone.  Which runs launch them: model_autocast().
 */

/* One autocast cast of n elements: to the 16-bit dtype (FP32 read) or
 * back to FP32 (16-bit read). */
static void k_cast(struct bld *B, double n, int to_half)
{
	uint64_t keep = B->cols;
	double wide = 4.0 / B->esz;     /* an FP32 element in activation elements */
	B->cols = 1;
	if (to_half)
		k_vector(B, "vectorized_elementwise_kernel<8, bfloat16_copy_kernel_cuda>",
			 PRED_OP_ELEMENTWISE, n, wide, 1.0, 0.0);
	else
		k_vector(B, "unrolled_elementwise_kernel<direct_copy_kernel_cuda>", PRED_OP_ELEMENTWISE,
			 n, 1.0, wide, 0.0);
	B->cols = keep;
}

/* Whether autocast casts a linear's weight from FP32: not under FSDP,
 * whose mixed precision gathers the parameters in the 16-bit dtype
 * already (FSDP2's param_dtype, FSDP1's DEFAULT/PURE) and casts their
 * gradients for the reduce-scatter itself; not in a decode step, whose
 * generation's prefill cached the casts (model_autocast()). */
static int autocast_weights(const struct bld *B)
{
	return model_fsdp_impl(B->o) == MODEL_FSDP_AUTO && B->o->mode != MODEL_DECODE;
}

int bld_fp8_linear(const struct bld *B, uint64_t in, uint64_t out)
{
	/* the linears of the blocks: the LM head and routers stay BF16
	 * (torchao's filter_fqns, Megatron's output layer); FP8 GEMMs need
	 * dimensions divisible by 16 (torchao skips the others) */
	return B->o->fp8 && B->layer >= 0 && !B->high_precision && in % 16 == 0 && out % 16 == 0 &&
	       out > 64;
}

/* A memory-bound FP8 scaling kernel over n elements moving bytes. */
static void k_scale(struct bld *B, const char *name, enum pred_op op, double n, double bytes)
{
	k_vector(B, name, op, n, 1.0, 0.0, 1.0);
	struct model_kernel *k = bld_last_kernel(B);
	if (k)
		k->k.bytes = bytes;
}

/* The kernel just pushed runs once per optimizer step. */
static void per_step(struct bld *B)
{
	struct model_kernel *k = bld_last_kernel(B);
	if (k)
		k->role = MODEL_ROLE_PER_STEP;
}

/* HBM traffic per recipe, in bytes of the 16-bit source N (torchao's
 * torchao/testing/training/roofline_utils.py for tensorwise and rowwise,
 * the first read not fused into the producer; Transformer Engine's docs
 * for delayed scaling: one read, FP8 and its transpose written by one
 * fused cast-transpose kernel on Hopper; for MXFP8: each block of 32
 * takes its scale from its own amax inside the kernel, no amax pass, and
 * the rowwise and columnwise copies, each with its one-byte E8M0 scale
 * per 32 elements, are both written by one quantize kernel):
 *   tensorwise  input / grad: amax 2N, cast 2N read + 2 x 1N written;
 *               weight: amax 2N, forward cast 3N, backward cast 3N;
 *               under --stack te (Transformer Engine's current scaling)
 *               the weight's amax 2N and cast 4N once per step;
 *   rowwise     input: dim-0 cast 3N forward, 5N backward (transpose and
 *               dim-1 cast of the saved BF16 input: torchao's autograd
 *               function saves the input in high precision and makes the
 *               transposed FP8 copies in backward); weight 3N forward,
 *               7N backward; grad 8N (dim-0 cast with the BF16
 *               transpose 5N, dim-1 cast 3N);
 *   delayed     input, weight, grad: cast-transpose 4N, the weight once per
 *               optimizer step (cached across micro-batches). */
void bld_fp8_casts(struct bld *B, int forward, double x, double w, double saved_x)
{
	const char *amax = "reduce_kernel<512, 1, ReduceOp<float, MaxOps<float>>>";
	const char *cast = "fp8_scaled_cast_kernel<__nv_fp8_e4m3>";
	const char *ct = "cast_transpose_kernel<__nv_fp8_e4m3>";
	const char *mx = "quantize_mxfp8_kernel<__nv_fp8_e4m3>";
	double e = B->esz;
	uint64_t keep = B->cols;
	B->cols = 1;
	switch (B->o->fp8_recipe) {
	case MODEL_FP8_TENSORWISE:
		if (x > 0) {
			k_scale(B, amax, PRED_OP_REDUCTION, x, x * e);
			k_scale(B, cast, PRED_OP_ELEMENTWISE, x, x * e + 2 * x);
		}
		if (!(w > 0))
			break;
		if (B->o->stack == MODEL_STACK_TE) {
			/* Transformer Engine's current scaling: the weight's
			 * amax and one cast to FP8 and its transpose, once per
			 * optimizer step (cached across micro-batches when
			 * is_first_microbatch is passed, as Megatron does) */
			if (forward) {
				k_scale(B, amax, PRED_OP_REDUCTION, w, w * e);
				per_step(B);
				k_scale(B, cast, PRED_OP_ELEMENTWISE, w, w * e + 2 * w);
				per_step(B);
			}
			break;
		}
		if (forward)
			k_scale(B, amax, PRED_OP_REDUCTION, w, w * e);
		k_scale(B, cast, PRED_OP_ELEMENTWISE, w, w * e + w);
		break;
	case MODEL_FP8_ROWWISE:
		/* each row's amax is taken inside its cast kernel (no
		 * pass of its own), but every operand is read again in
		 * backward for its transposed copy; the input's was once
		 * left out here (only the gradient's was counted), which
		 * made rowwise cheaper than tensorwise */
		if (forward) {
			if (x > 0)
				k_scale(B, cast, PRED_OP_ELEMENTWISE, x, x * e + x);
			if (w > 0)
				k_scale(B, cast, PRED_OP_ELEMENTWISE, w, w * e + w);
			break;
		}
		if (x > 0) {
			k_scale(B, cast, PRED_OP_ELEMENTWISE, x, 2.5 * x * e);
			k_scale(B, cast, PRED_OP_ELEMENTWISE, x, x * e + x);
		}
		if (saved_x > 0)
			k_scale(B, cast, PRED_OP_ELEMENTWISE, saved_x, 2.5 * saved_x * e);
		if (w > 0)
			k_scale(B, cast, PRED_OP_ELEMENTWISE, w, 3.5 * w * e);
		break;
	case MODEL_FP8_MXFP8:
		/* input, weight, grad: 2N read, 2 x (N + N / 32) written; under
		 * --stack te the weight's once per optimizer step (cached as
		 * delayed scaling's is), else in forward every micro-batch */
		if (x > 0)
			k_scale(B, mx, PRED_OP_ELEMENTWISE, x, x * e + 2 * x * (1 + 1.0 / 32));
		if (forward && w > 0) {
			k_scale(B, mx, PRED_OP_ELEMENTWISE, w, w * e + 2 * w * (1 + 1.0 / 32));
			if (B->o->stack == MODEL_STACK_TE)
				per_step(B);
		}
		break;
	case MODEL_FP8_DELAYED:
	default:
		if (x > 0)
			k_scale(B, ct, PRED_OP_ELEMENTWISE, x, x * e + 2 * x);
		if (forward && w > 0) {
			k_scale(B, ct, PRED_OP_ELEMENTWISE, w, w * e + 2 * w);
			per_step(B);
		}
		break;
	}
	B->cols = keep;
}

/* One GEMM in FP8 (the inputs scaled to E4M3/E5M2, BF16 out). */
static void k_gemm_fp8(struct bld *B, uint64_t batch, uint64_t m, uint64_t n, uint64_t kk, int fp8)
{
	enum gpu_dtype keep = B->gemm_dt;
	if (fp8)
		B->gemm_dt = GPU_DT_FP8;
	k_gemm(B, batch, m, n, kk);
	B->gemm_dt = keep;
}

/* Whether a linear's operand of elems elements (its input forward, its
 * output's gradient backward) is the FP8 tensor the last sequence-parallel
 * all-gather brought: right after the gather, or after a linear that read
 * it (Q, K, V; gate, up), so no cast of its own. */
static int fp8_gathered(const struct bld *B, double elems)
{
	return B->fp8_gather_at && B->fp8_gathered == elems &&
	       (B->fp8_gather_at == B->s->n || (B->last_in.fp8 && B->last_in.after == B->s->n));
}

/* Whether a linear about to read an m x in input reads the one the last
 * linear read (B->last_in). */
static int same_input(const struct bld *B, uint64_t m, uint64_t in)
{
	return B->last_in.after == B->s->n && B->last_in.m == m && B->last_in.in == in;
}

/* --lora R: the adapter beside a decoder layer's linear (PEFT's
 * lora.Linear: result = base(x) + lora_B(lora_A(x)) * scaling, dropout 0):
 * x (m x in) through A (in x R) and B (R x out), trainable, the product
 * scaled and added to the frozen linear's output.  Not the LM head, the
 * embeddings or a tied linear (PEFT's all-linear leaves the head out);
 * with --lora-targets attn not the MLP's.  The next sibling linear reads
 * the same x (Q, K, V; gate, up): last_in says so past the adapter's
 * kernels. */
static int lora_target(const struct bld *B, int tied)
{
	const struct model_opts *o = B->o;
	return o->lora_rank && !B->lora_adapter && o->mode == MODEL_TRAINING && !tied && B->layer >= 0 &&
	       (uint32_t)B->layer < B->c->layers + B->c->dec_layers && !(o->lora_attn_only && B->in_mlp);
}

/* --qlora: bitsandbytes' dequantization of an NF4 weight (in x out) to
 * the 16-bit dtype before the GEMM that reads it (matmul_4bit's training
 * path: dequantize_4bit, then the dense GEMM), forward and again for the
 * input's gradient: MODEL_NF4_BYTES read, esz written per weight. */
static void nf4_dequantize(struct bld *B, uint64_t in, uint64_t out)
{
	uint64_t cols = B->cols;
	B->cols = out;
	k_vector(B, "kDequantizeBlockwise<__nv_bfloat16, 512, 64, 8, 2>", PRED_OP_ELEMENTWISE,
		 (double)in * out, MODEL_NF4_BYTES / B->esz, 1.0, 2.0);
	B->cols = cols;
}

static void lora_adapter(struct bld *B, uint64_t m, uint64_t in, uint64_t out, int tied)
{
	const struct model_opts *o = B->o;
	if (!lora_target(B, tied))
		return;
	struct bld_last_in keep = B->last_in;
	uint64_t cols = B->cols;
	B->lora_adapter = 1;
	op_linear(B, m, in, o->lora_rank, 0, 0);
	op_linear(B, m, o->lora_rank, out, 0, 0);
	B->cols = out;
	op_ew(B, "vectorized_elementwise_kernel<4, MulFunctor>", (double)m * out, 1, 1, 1, NULL);
	op_ew(B, "vectorized_elementwise_kernel<4, AddFunctor>", (double)m * out, 2, 1, 0, NULL);
	B->lora_adapter = 0;
	B->cols = cols;
	B->last_in = keep;
	B->last_in.after = B->s->n;
}

void op_linear(struct bld *B, uint64_t m, uint64_t in, uint64_t out, int bias, int tied)
{
	int fp8 = bld_fp8_linear(B, in, out);
	double x_bwd = 0;
	int cast_x = 0;
	if (model_autocast(B->o) && !fp8) {
		/* the input when FP32 (a norm's output, or the one a sibling
		 * linear just cast), the weight and the bias every call */
		cast_x = B->act_fp32 || (B->last_in.cast && same_input(B, m, in));
		if (cast_x)
			k_cast(B, (double)m * in, 1);
		if (autocast_weights(B)) {
			k_cast(B, (double)in * out, 1);
			if (bias)
				k_cast(B, (double)out, 1);
		}
	}
	if (fp8) {
		/* Q, K, V (gate, up) read one input: compiled code and TE's
		 * LayerNormLinear scale it once; gathered in FP8, it is
		 * scaled already (op_tp) */
		int same = (B->o->stack != MODEL_STACK_EAGER && B->last_in.fp8 && same_input(B, m, in)) ||
			   fp8_gathered(B, (double)m * in);
		bld_fp8_casts(B, 1, same ? 0 : (double)m * in, (double)in * out, 0);
		x_bwd = same ? 0 : (double)m * in;
	}
	int adapted = lora_target(B, tied), nf4 = B->o->qlora && adapted;
	if (nf4)
		nf4_dequantize(B, in, out);
	k_gemm_fp8(B, 1, m, out, in, fp8);
	B->last_in.after = B->s->n;
	B->last_in.m = m;
	B->last_in.in = in;
	B->last_in.fp8 = fp8;
	B->last_in.cast = cast_x;
	B->act_fp32 = 0;        /* the output is 16-bit */
	struct fop f = { .kind = F_LINEAR, .a = m, .b = in, .c = out, .flag = bias | (cast_x ? 4 : 0), .fp8 = fp8,
			 .fp8_x_bwd = x_bwd, .param = 1, .param_elems = (double)in * out + (bias ? (double)out : 0) };
	if (tied) {
		f.flag |= 2;
	} else {
		bld_add_params(B, f.param_elems, bias ? 2 : 1);
	}
	if (adapted)
		f.flag |= 16;
	if (nf4) {
		f.flag |= 8;
		B->s->params_nf4 += (double)in * out;
	}
	bld_remember(B, &f);
	lora_adapter(B, m, in, out, tied);
}

void op_bmm(struct bld *B, uint64_t batch, uint64_t m, uint64_t n, uint64_t kk)
{
	/* autocast: the probabilities of eager attention (softmax's FP32
	 * output, m x kk) cast before they multiply V */
	int cast_a = model_autocast(B->o) && B->act_fp32;
	if (cast_a)
		k_cast(B, (double)batch * m * kk, 1);
	k_gemm(B, batch, m, n, kk);
	B->act_fp32 = 0;
	struct fop f = { .kind = F_BMM, .a = m, .b = n, .c = kk, .d = batch, .flag = cast_a ? 4 : 0 };
	bld_remember(B, &f);
}

void op_grouped(struct bld *B, uint64_t experts, uint64_t m, uint64_t in, uint64_t out)
{
	int fp8 = bld_fp8_linear(B, in, out);
	double w = (double)experts * in * out;
	if (fp8)
		bld_fp8_casts(B, 1, (double)experts * m * in, w, 0);
	k_gemm_fp8(B, experts, m, out, in, fp8);
	bld_add_params(B, w, 1);
	B->s->expert_params += w;
	if (B->unit_x && B->layer + 1 >= 0 && (uint32_t)(B->layer + 1) < B->nunits)
		B->unit_x[B->layer + 1] += w;
	struct fop f = { .kind = F_GROUPED, .a = m, .b = in, .c = out, .d = experts, .fp8 = fp8,
			 .fp8_x_bwd = fp8 ? (double)experts * m * in : 0, .param = 1, .param_elems = w };
	bld_remember(B, &f);
}

/* DeepEP's FP8 dispatch (DeepSeek-V3's report, section 3.3.2: the
 * activations before the up-projections and the gradients before the
 * down-projections dispatched in FP8, both combines kept in BF16): one
 * byte an element and one FP32 scale per 1 x 128 tile. */
#define A2A_FP8_BYTES (1.0 + 4.0 / 128.0)

/* One all-to-all of op_a2a (build.h), forward or backward: bytes at the
 * activations' size, towards the experts or back. */
static void k_a2a(struct bld *B, double bytes, uint64_t k, int to_experts)
{
	const struct model_opts *o = B->o;
	if (o->moe_dispatch_fp8 && to_experts)
		bytes = bytes / B->esz * A2A_FP8_BYTES;
	k_comm(B, COMM_ALL_TO_ALL, bytes, MODEL_GROUP_EP, o->moe_a2a_overlap ? MODEL_ASYNC_AFTER : 0);
	struct model_kernel *mk = bld_last_kernel(B);
	if (!mk)
		return;
	if (o->moe_route_nodes) {
		mk->k.n = o->moe_route_nodes;
		mk->k.k = k;
	}
	/* the overlap (DualPipe's chunk pairs, Megatron-Core's EP A2A
	 * overlap): the all-to-all runs beside the compute that follows it;
	 * the compute after the next all-to-all waits for it, so each pair
	 * takes the longer of the two */
	if (o->moe_a2a_overlap) {
		struct model_kernel a2a = *mk;
		B->wait_next = B->a2a_last;
		B->a2a_last = (uint32_t)B->s->n;
		/* the SMs it holds, taken from the compute beside it: the same
		 * all-to-all on the compute stream, timed as their share
		 * (comm_a2a_sm_share_ns) */
		struct model_kernel *sk = bld_push(B);
		if (!sk)
			return;
		uint32_t wait = sk->wait;
		*sk = a2a;
		sk->async = 0;
		sk->wait = wait;
		sk->k.name = COMM_A2A_SM_SHARE_NAME;
	}
}

void op_a2a(struct bld *B, double bytes, uint64_t k, int to_experts)
{
	if (model_ep(B->o) <= 1)
		return;
	k_a2a(B, bytes, k, to_experts);
	struct fop f = { .kind = F_A2A, .a = (uint64_t)bytes, .c = k, .flag = to_experts };
	bld_remember(B, &f);
}

/* An elementwise op: name of its forward kernel, elements, tensors read,
 * FLOPs per element, number of backward kernels and their name. */
void op_ew(struct bld *B, const char *name, double n, double nin, double flops,
	   int nbwd, const char *bwd_name)
{
	B->act_fp32 = 0;
	k_vector(B, name, PRED_OP_ELEMENTWISE, n, nin, 1.0, flops);
	struct fop f = { .kind = F_EW, .a = (uint64_t)n, .b = B->cols, .nin = nin, .nbwd = nbwd,
			 .bwd_name = bwd_name };
	bld_remember(B, &f);
}

void op_nonzero(struct bld *B, double n)
{
	uint64_t cols = B->cols;
	/* cub's count over the mask, from the Python call; then, inside the
	 * op, the count (a 64-bit integer) copied to the host, the CPU
	 * waiting, and the select */
	k_rows(B, "DeviceReduceSingleTileKernel", PRED_OP_REDUCTION, 1, (uint64_t)n, 1.0, 0.0,
	       1.0, 512);
	k_host_copy(B, MODEL_COPY_DTOH, 8, 0);
	bld_mark_in_op(B);
	B->cols = 1;
	k_vector(B, "DeviceSelectSweepKernel", PRED_OP_ELEMENTWISE, n, 1, 1.0, 1);
	bld_mark_in_op(B);
	B->cols = cols;
}

void op_softmax(struct bld *B, uint64_t rows, uint64_t cols)
{
	k_softmax(B, cols <= 1024 ? "softmax_warp_forward<float, float, float, 10>"
				  : "cunn_SoftMaxForward<4, float, float, float, SoftMaxForwardEpilogue>",
		  rows, cols, 1.0);
	struct fop f = { .kind = F_SOFTMAX, .a = rows, .b = cols };
	bld_remember(B, &f);
	B->act_fp32 = 1;
}

/* An elementwise op whose tensors take esz bytes an element where the
 * activations' take another size; its backward's alike (struct fop). */
static void op_ew_esz(struct bld *B, double esz, const char *name, double n, double nin,
		      double flops, int nbwd, const char *bwd_name)
{
	double keep = B->esz;
	size_t at = B->nops;
	B->esz = esz;
	op_ew(B, name, n, nin, flops, nbwd, bwd_name);
	B->esz = keep;
	if (B->nops > at)
		B->ops[B->nops - 1].esz = esz;
}

void op_fused_ew(struct bld *B, const char *name, double n, double nin, double flops,
		 const char *bwd_name, double bwd_in, double bwd_out)
{
	size_t at = B->nops;
	op_ew(B, name, n, nin, flops, 1, bwd_name);
	if (B->nops > at) {
		B->ops[B->nops - 1].bwd_in = bwd_in;
		B->ops[B->nops - 1].bwd_out = bwd_out;
	}
}

/* softmax(x, dim=-1, dtype=torch.float32).to(x.dtype), eager attention's
 * in the Llama family of Hugging Face models: in a 16-bit model the
 * softmax reads 2 bytes an element and writes 4, its backward reads the
 * FP32 gradient and output and writes the 16-bit gradient (10 bytes), and
 * the cast back moves 6.  upcast: T5's softmax(x.float()).type_as(x), the
 * cast to FP32 a kernel of its own and the softmax FP32 both ways.
 * Compiled stacks fuse the chain (fuse.c), which then moves the 16-bit
 * scores and probabilities alone. */
void op_softmax_fp32(struct bld *B, uint64_t rows, uint64_t cols, int upcast)
{
	int half = B->o->dtype == GPU_DT_BF16 || B->o->dtype == GPU_DT_FP16;
	int wide = half && B->o->stack == MODEL_STACK_EAGER;
	double keep = B->esz, n = (double)rows * (double)cols;
	double cast = wide ? (keep + 4.0) / 2 : keep;
	if (half && upcast)
		op_ew_esz(B, cast, "vectorized_elementwise_kernel<4, CopyFunctor>", n, 1, 0, 1,
			  "vectorized_elementwise_kernel<4, CopyFunctor>");
	B->esz = !wide ? keep : upcast ? 4.0 : cast;
	size_t at = B->nops;
	op_softmax(B, rows, cols);
	B->esz = keep;
	if (wide && B->nops > at)
		B->ops[B->nops - 1].esz = upcast ? 4.0 : (2 * 4.0 + keep) / 3;
	if (half)
		op_ew_esz(B, cast, "vectorized_elementwise_kernel<4, CopyFunctor>", n, 1, 0, 1,
			  "vectorized_elementwise_kernel<4, CopyFunctor>");
}

void op_layernorm(struct bld *B, uint64_t rows, uint64_t cols)
{
	k_rows(B, "vectorized_layer_norm_kernel<float, float>", PRED_OP_NORM, rows, cols,
	       1.0, 1.0, ROWWISE_NORM_FLOPS, 32);
	/* a block of 32 x 4 threads per row, as NeuSight's launches show */
	struct model_kernel *k = bld_last_kernel(B);
	if (k)
		k->k.block[1] = 4;
	bld_add_params(B, 2.0 * (double)cols, 2);
	struct fop f = { .kind = F_NORM, .a = rows, .b = cols, .param = 1,
			 .param_elems = 2.0 * (double)cols };
	bld_remember(B, &f);
	B->act_fp32 = 1;
}

int model_forward_kernel(enum pred_op op, uint64_t batch, uint64_t rows, uint64_t cols,
			 uint64_t k, double nin, double flops, struct pred_kernel *out)
{
	struct model_seq s;
	struct model_opts o;
	memset(&s, 0, sizeof s);
	model_opts_init(&o);
	struct bld B = { .s = &s, .o = &o, .esz = 4, .gemm_dt = GPU_DT_FP32,
			 .vec_dt = GPU_DT_FP32, .cols = cols };
	if (!rows || !cols || !batch || (op == PRED_OP_GEMM && !k))
		return -1;
	switch (op) {
	case PRED_OP_GEMM:
		k_gemm(&B, batch, rows, cols, k);
		break;
	case PRED_OP_ELEMENTWISE:
		k_vector(&B, "vectorized_elementwise_kernel<4, AddFunctor>", PRED_OP_ELEMENTWISE,
			 (double)rows * (double)cols, nin, 1.0, flops);
		break;
	case PRED_OP_SOFTMAX:
		op_softmax(&B, rows, cols);
		break;
	case PRED_OP_NORM:
		op_layernorm(&B, rows, cols);
		break;
	default:
		return -1;
	}
	int rc = s.n == 1 && !B.err ? 0 : -1;
	if (rc == 0)
		*out = s.v[0].k;
	free(s.v);
	return rc;
}

/* HF LlamaRMSNorm / T5LayerNorm in eager mode: x.pow(2).mean(-1), + eps,
 * rsqrt, x * r, weight * x.  The statistic and x * r are computed on
 * hidden_states.to(torch.float32): in a 16-bit model those kernels move
 * 4-byte elements and the casts into and out of FP32 6 bytes an element
 * (their mean size, 3), where LlamaRMSNorm then multiplies the 16-bit
 * result by the 16-bit weight.  GemmaRMSNorm (every Gemma) multiplies by
 * (1.0 + weight.float()) in FP32 and casts last: the weight's cast (none
 * in FP32) and the add are kernels of `cols` elements, the product and its
 * gradients FP32.  Under autocast the activations stay at the 16-bit size
 * throughout, as k_cast() takes them; compiled and Transformer Engine
 * stacks fuse the norm (fuse.c), its FP32 in registers, so it moves what
 * its 16-bit input and output take.  --norm fused: one kernel reads x and
 * the weight and writes y and each row's reciprocal RMS (Liger's, Apex's,
 * nanotron's TritonRMSNorm, PyTorch's own nn.RMSNorm kernel: our H100 ran
 * F.rms_norm of 32768 x 14336 BF16 in 0.955 ms, 1.97 TB/s for one read
 * and one write, data/NVIDIA_H100_80GB_HBM3/ours/vec.csv); Gemma's
 * (1 + weight) is an offset inside it. */
void op_rmsnorm(struct bld *B, uint64_t rows, uint64_t cols)
{
	B->cols = cols;
	if (B->o->fused_norm && B->o->stack == MODEL_STACK_EAGER) {
		k_rows(B, "rms_norm_fwd_fused", PRED_OP_NORM, rows, cols, 1.0,
		       1.0 + 4.0 / ((double)cols * B->esz), 4.0, 128);
		bld_add_params(B, (double)cols, 1);
		struct fop f = { .kind = F_NORM, .a = rows, .b = cols, .param = 1,
				 .param_elems = (double)cols, .flag = 1 };
		bld_remember(B, &f);
		B->act_fp32 = 1;
		return;
	}
	int half = B->o->dtype == GPU_DT_BF16 || B->o->dtype == GPU_DT_FP16;
	int gemma = B->c && B->c->norm_unit_offset;
	double wide = half && !model_autocast(B->o) && B->o->stack == MODEL_STACK_EAGER ? 4.0 : B->esz;
	double cast = (B->esz + wide) / 2;
	double n = (double)rows * (double)cols;
	if (half)
		op_ew_esz(B, cast, "vectorized_elementwise_kernel<4, CopyFunctor>", n, 1, 0, 1,
			  "vectorized_elementwise_kernel<4, CopyFunctor>");
	op_ew_esz(B, wide, "vectorized_elementwise_kernel<4, pow_tensor_scalar_kernel>", n, 1, 1, 2,
		  "vectorized_elementwise_kernel<4, MulFunctor>");
	double keep_esz = B->esz;
	B->esz = wide;
	k_rows(B, "reduce_kernel<512, 1, ReduceOp<float, MeanOps<float, float>>>",
	       PRED_OP_REDUCTION, rows, cols, 1.0, 0.0, 1.0, 512);
	B->esz = keep_esz;
	{
		struct fop f = { .kind = F_REDUCE, .a = rows, .b = cols, .esz = wide };
		bld_remember(B, &f);
	}
	uint64_t keep = B->cols;
	B->cols = 1;
	op_ew_esz(B, wide, "vectorized_elementwise_kernel<4, AddFunctor>", (double)rows, 1, 1, 0, NULL);
	op_ew_esz(B, wide, "vectorized_elementwise_kernel<4, rsqrt_kernel_cuda>", (double)rows, 1, 1, 1,
		  "vectorized_elementwise_kernel<4, rsqrt_backward>");
	B->cols = keep;
	op_ew_esz(B, wide, "elementwise_kernel<128, 4, MulFunctor>", n, 1, 1, 2,
		  "elementwise_kernel<128, 4, MulFunctor>");
	if (gemma) {
		B->cols = cols;
		if (half && !model_autocast(B->o))   /* self.weight.float() */
			op_ew_esz(B, cast, "vectorized_elementwise_kernel<4, CopyFunctor>", (double)cols,
				  1, 0, 1, "vectorized_elementwise_kernel<4, CopyFunctor>");
		/* 1.0 + weight: its gradient passes through */
		op_ew_esz(B, wide, "vectorized_elementwise_kernel<4, AddFunctor>", (double)cols, 1, 1, 0,
			  NULL);
		B->cols = keep;
		op_ew_esz(B, wide, "elementwise_kernel<128, 4, MulFunctor>", n, 1, 1, 1,
			  "elementwise_kernel<128, 4, MulFunctor>");
		if (half)                       /* .type_as(x) */
			op_ew_esz(B, cast, "vectorized_elementwise_kernel<4, CopyFunctor>", n, 1, 0, 1,
				  "vectorized_elementwise_kernel<4, CopyFunctor>");
	} else {
		if (half)
			op_ew_esz(B, cast, "vectorized_elementwise_kernel<4, CopyFunctor>", n, 1, 0, 1,
				  "vectorized_elementwise_kernel<4, CopyFunctor>");
		op_ew(B, "elementwise_kernel<128, 4, MulFunctor>", n, 1, 1, 1,
		      "elementwise_kernel<128, 4, MulFunctor>");
	}
	bld_add_params(B, (double)cols, 1);
	struct fop f = { .kind = F_REDUCE, .a = rows, .b = cols, .param = 1,
			 .param_elems = (double)cols, .flag = 1, .esz = gemma ? wide : 0 };
	bld_remember(B, &f);
	B->act_fp32 = 1;
}

void op_dropout(struct bld *B, double n, double p)
{
	if (B->o->mode != MODEL_TRAINING || p <= 0)
		return;
	/* native_dropout: writes the output and a one-byte mask. */
	k_vector(B, "fused_dropout_kernel_vec<float, float, unsigned int, 1, 4, bool>",
		 PRED_OP_ELEMENTWISE, n, 1.0, 1.0 + 1.0 / B->esz, 4.0);
	struct fop f = { .kind = F_DROPOUT, .a = (uint64_t)n, .b = B->cols };
	bld_remember(B, &f);
}

void op_embed(struct bld *B, uint64_t tokens, uint64_t dim, uint64_t rows, int count_params)
{
	struct model_kernel *k = bld_push(B);
	if (k) {
		k->k.name = "indexSelectLargeIndex<float, long, unsigned int, 2, 2, -2, true>";
		k->k.op = PRED_OP_ELEMENTWISE;
		uint64_t n = tokens * dim;
		k->k.grid[0] = (uint32_t)(cdiv(n, 128) < 65535 ? cdiv(n, 128) : 65535);
		k->k.grid[1] = k->k.grid[2] = 1;
		k->k.block[0] = 128;
		k->k.block[1] = k->k.block[2] = 1;
		k->k.m = n;
		k->k.n = 1;
		k->k.batch = 1;
		k->k.bytes = 2.0 * (double)n * B->esz + 8.0 * (double)tokens;
	}
	if (count_params)
		bld_add_params(B, (double)rows * dim, 1);
	struct fop f = { .kind = F_EMBED, .a = tokens, .b = dim, .c = rows,
			 .param = 1, .param_elems = (double)rows * dim };
	bld_remember(B, &f);
}

void op_sdpa(struct bld *B, uint64_t bh, uint64_t sq, uint64_t sk, uint64_t d, int causal)
{
	struct model_kernel *k = bld_push(B);
	if (k) {
		int half = B->o->dtype == GPU_DT_BF16 || B->o->dtype == GPU_DT_FP16;
		k->k.name = half ? "flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 64, 4>>"
				 : "fmha_cutlassF_f32_aligned_64x64_rf_sm80";
		k->k.op = PRED_OP_ATTENTION;
		k->k.dtype = B->gemm_dt;
		k->k.grid[0] = (uint32_t)cdiv(sq, half ? 128 : 64);
		k->k.grid[1] = (uint32_t)bh;
		k->k.grid[2] = 1;
		k->k.block[0] = 128;
		k->k.block[1] = k->k.block[2] = 1;
		k->k.m = sq;
		k->k.n = sk;
		k->k.k = d;
		k->k.batch = bh;
		/* QK^T and PV: 4 s_q s_k d FLOPs per head, half of it when causal
		 * (the kernels skip fully masked tiles). */
		k->k.flops = 4.0 * (double)bh * (double)sq * (double)sk * (double)d * (causal ? 0.5 : 1.0);
		k->k.bytes = (2.0 * (double)sq + 2.0 * (double)sk) * (double)d * (double)bh * B->esz;
	}
	struct fop f = { .kind = F_SDPA, .a = sq, .b = sk, .c = d, .d = bh, .flag = causal };
	bld_remember(B, &f);
}

/* Tensor-parallel all-reduce of n activation elements in the forward pass
 * (row-parallel output) or in the backward pass (column-parallel input). */
/* Which stacks gather the sequence-parallel activations in FP8 (before a
 * column-parallel linear forward, the row-parallel output's gradient
 * backward), casting each rank's shard first:
 *  - torchao's tensorwise recipe under tensor parallelism (torchtitan
 *    turns Float8ColwiseParallel / Float8RowwiseParallel and
 *    PrepareFloat8ModuleInput on with tensorwise float8 and TP; tensorwise
 *    only): the module's input cast to FP8 on the shard, then
 *    redistributed (all-gathered) as FP8 and shared by the linears that
 *    read it (Q, K, V; gate, up); the output's gradient cast to FP8
 *    (NoopFwToFloat8BwDynamic) before its redistribution's backward, the
 *    all-gather;
 *  - Transformer Engine under delayed or current scaling
 *    (training-stacks.md sections 4 and 7: LayerNormLinear's norm output
 *    all-gathered in FP8, the gradients too, "amax reduced over TP
 *    first"; grad_output_preprocess: the gradient cast, then gathered).
 * Dynamic scaling (tensorwise; TE's current scaling) needs one scale for
 * the gathered tensor: the shard's amax all-reduced (MAX) over the
 * tensor-parallel group first, a 4-byte all-reduce; delayed scaling takes
 * its scale from the history (its amaxes reduced once a step, left out).
 * Rowwise recipes gather BF16 and cast after (torchao); MXFP8 is left at
 * BF16 here (its scales per 32 elements along one dimension do not
 * survive a gather along the other for the transposed copy). */
double bld_sp_fp8_bytes(const struct bld *B)
{
	const struct model_opts *o = B->o;
	if (!o->fp8 || B->layer < 0 || B->high_precision)
		return 0;
	if (o->fp8_recipe == MODEL_FP8_TENSORWISE)
		return 1;
	return o->stack == MODEL_STACK_TE && o->fp8_recipe == MODEL_FP8_DELAYED ? 1 : 0;
}

/* A sequence-parallel all-gather of n activation elements: in FP8 where
 * the stack gathers so (bld_sp_fp8_bytes(): the shard's cast, for dynamic
 * scaling its amax all-reduced, before it; the linears after it cast no
 * input of their own), else in the dtype. */
static void sp_gather(struct bld *B, int forward, double n)
{
	double e = bld_sp_fp8_bytes(B);
	if (e > 0) {
		bld_fp8_casts(B, forward, n / B->tp, 0, 0);
		if (B->o->fp8_recipe == MODEL_FP8_TENSORWISE)
			k_comm_elem(B, COMM_ALL_REDUCE, 4.0, 4.0, MODEL_GROUP_TP, 0);
	}
	k_comm(B, COMM_ALL_GATHER, n * (e > 0 ? e : B->esz), MODEL_GROUP_TP, 0);
	B->fp8_gather_at = e > 0 && !B->err ? B->s->n : 0;
	B->fp8_gathered = n;
}

void op_tp(struct bld *B, int forward, double n)
{
	if (B->tp <= 1)
		return;
	if (B->o->sp && !forward)
		sp_gather(B, 1, n);
	else if (B->o->sp)
		k_comm(B, COMM_REDUCE_SCATTER, n * B->esz, MODEL_GROUP_TP, 0);
	else if (forward)
		k_comm(B, COMM_ALL_REDUCE, n * B->esz, MODEL_GROUP_TP, 0);
	struct fop f = { .kind = forward ? F_TP_FWD : F_TP_BWD, .a = (uint64_t)n };
	bld_remember(B, &f);
}

void op_cp(struct bld *B, double step_bytes)
{
	uint32_t cp = model_cp(B->o);
	if (cp <= 1)
		return;
	k_comm(B, COMM_SEND_RECV, (cp - 1) * step_bytes, MODEL_GROUP_CP, MODEL_ASYNC_AFTER);
	struct fop f = { .kind = F_CP, .a = (uint64_t)step_bytes };
	bld_remember(B, &f);
}

/* ---- backward ----------------------------------------------------------- */

/* Megatron's gradient-accumulation fusion (gradient_accumulation_fusion,
 * on by default with TE; TE's fuse_wgrad_accumulation): the weight-
 * gradient GEMM just pushed adds its product into the weight's FP32
 * main_grad (beta = 1) every micro-batch instead of writing a gradient
 * that AccumulateGrad then adds (stack_fuse drops those adds). */
static void wgrad_into_main_grad(struct bld *B)
{
	struct model_kernel *k = bld_last_kernel(B);
	if (!k || k->k.op != PRED_OP_GEMM)
		return;
	double out = k->k.dtype == GPU_DT_FP32 || k->k.dtype == GPU_DT_TF32 ? 4.0 : 2.0;
	k->k.accumulate = 1;
	k->k.bytes += (double)k->k.m * (double)k->k.n * (double)(k->k.batch ? k->k.batch : 1) *
		      (8.0 - out);
}

void bld_grad_accumulate(struct bld *B, double elems, uint64_t cols)
{
	/* FSDP1 and FSDP2 free each unsharded gradient after its reduce-
	 * scatter: AccumulateGrad finds none and takes the new one as it is
	 * (model.c's zero_copy_in has what they copy instead).  Under a
	 * pipeline FSDP2 reduces once a step (model.c sharded()) and the
	 * unsharded gradients accumulate over the microbatches as DDP's do. */
	enum model_fsdp fsdp = model_fsdp_impl(B->o);
	if ((fsdp == MODEL_FSDP_1 || fsdp == MODEL_FSDP_2) && B->o->pp <= 1)
		return;
	B->cols = cols;
	/* AccumulateGrad: param.grad += grad (NeuSight times it apart as "acc"). */
	k_vector(B, "vectorized_elementwise_kernel<4, AddFunctor>", PRED_OP_ELEMENTWISE,
		 elems, 2.0, 1.0, 1.0);
	struct model_kernel *k = bld_last_kernel(B);
	if (k)
		k->role = MODEL_ROLE_GRAD_ACC;
	/* --grad-fp32 (nanotron's accumulate_grad_in_fp32): a hook adds the
	 * gradient into the parameter's FP32 buffer every micro-batch: the
	 * gradient read in the dtype, the buffer read and written in FP32 */
	if (k && B->o->grad_fp32)
		k->k.bytes = elems * (B->esz + 8.0);
}

/*
 * Megatron's column-parallel linears (tensor_parallel/layers.py,
 * LinearWithGradAccumulationAndAsyncCommunication; Transformer Engine's
 * Linear and LayerNormLinear alike: "overlap dgrad-RS/AR with wgrad")
 * issue their input-gradient's reduce-scatter (under sequence
 * parallelism; the all-reduce without it) asynchronously right after the
 * dgrad GEMM and run the weight-gradient GEMM while it goes, waiting for it
 * only before the op below them reads the gradient; under sequence
 * parallelism they all-gather their saved input shard again for that
 * wgrad, issued before the dgrad GEMM and waited for by the wgrad
 * (CUDA_DEVICE_MAX_CONNECTIONS=1 keeps the two in that order on one
 * stream).  Q, K and V (gate and up) read one input: their dgrads come
 * first, the collective after the last of them, then their wgrads.  f is
 * such a linear when the fops before it, back to the tensor-parallel
 * region's entry (F_TP_BWD), are linears reading the same input.  --stack
 * te only: the eager stacks' (DTensor's, nanotron's default) wait for
 * each collective where it is issued.
 */
static int tp_wgrad_deferred(const struct bld *B, const struct fop *f)
{
	if (B->o->stack != MODEL_STACK_TE || B->tp <= 1 || f->frozen || (f->flag & 8) ||
	    B->ntp_defer >= sizeof(B->tp_defer) / sizeof(B->tp_defer[0]))
		return 0;
	const struct fop *p = f;
	while (p > B->ops && p[-1].kind == F_LINEAR && p[-1].layer == f->layer && p[-1].b == f->b &&
	       p[-1].a == f->a)
		p--;
	return p > B->ops && p[-1].kind == F_TP_BWD && p[-1].layer == f->layer;
}

/* A linear's weight gradient dW = dY^T X and what follows it: Megatron's
 * accumulation into main_grad, the bias's column sum, autocast's casts
 * back, AccumulateGrad. */
static void linear_wgrad(struct bld *B, const struct fop *f)
{
	k_gemm_fp8(B, 1, f->c, f->b, f->a, f->fp8);
	if (B->o->stack == MODEL_STACK_TE)
		wgrad_into_main_grad(B);
	if (f->flag & 1)
		k_colsum(B, f->a, f->c);
	if (model_autocast(B->o) && !f->fp8) {
		/* the casts' backward: each gradient back to FP32 */
		if (autocast_weights(B)) {
			k_cast(B, (double)f->b * f->c, 0);
			if (f->flag & 1)
				k_cast(B, (double)f->c, 0);
		}
		if (f->flag & 4)
			k_cast(B, (double)f->a * f->b, 0);
	}
	bld_grad_accumulate(B, f->param_elems, f->b);
}

static void backward_op(struct bld *B, const struct fop *f)
{
	switch (f->kind) {
	case F_LINEAR: {
		/* dX = dY W: (m x out) (out x in); dW = dY^T X: (out x m) (m x in).
		 * dY gathered in FP8 (op_tp) is cast already. */
		int defer = tp_wgrad_deferred(B, f);
		if (f->fp8)
			bld_fp8_casts(B, 0, fp8_gathered(B, (double)f->a * f->c) ? 0 : (double)f->a * f->c,
				      (double)f->b * f->c, f->fp8_x_bwd);
		if (f->flag & 8)
			nf4_dequantize(B, f->b, f->c);
		if (defer && !B->ntp_defer && B->o->sp) {
			double e = bld_sp_fp8_bytes(B);
			k_comm(B, COMM_ALL_GATHER, (double)f->a * f->b * (e > 0 ? e : B->esz), MODEL_GROUP_TP,
			       MODEL_ASYNC_AFTER);
			B->tp_regather = B->err ? 0 : (uint32_t)B->s->n;
		}
		k_gemm_fp8(B, 1, f->a, f->b, f->c, f->fp8);
		if (f->frozen) {
			/* --lora: the input's gradient alone, summed with its
			 * adapter's where it has one (autograd adds the two) */
			B->cols = f->b;
			if (f->flag & 16)
				k_vector(B, "vectorized_elementwise_kernel<4, AddFunctor>", PRED_OP_ELEMENTWISE,
					 (double)f->a * f->b, 2.0, 1.0, 1.0);
			if (f->flag & 4)
				k_cast(B, (double)f->a * f->b, 0);
			break;
		}
		if (defer) {
			B->tp_defer[B->ntp_defer++] = f;
			break;
		}
		linear_wgrad(B, f);
		break;
	}
	case F_BMM:
		k_gemm(B, f->d, f->a, f->c, f->b);
		k_gemm(B, f->d, f->c, f->b, f->a);
		if (f->flag & 4)
			k_cast(B, (double)f->d * f->a * f->c, 0);
		break;
	case F_EW: {
		/* Derivatives of ops with a scalar operand (x * c, x / c, copies,
		 * where) read only the incoming gradient; tanh, GELU, SiLU, ReLU,
		 * products of two tensors and gradient sums read two tensors. */
		const char *nm = f->bwd_name;
		double rd = 2.0;
		if ((!nm && f->nin <= 1.0) ||
		    (nm && (strstr(nm, "DivFunctor") || strstr(nm, "CopyFunctor") || strstr(nm, "where"))))
			rd = 1.0;
		double wr = 1.0;
		if (f->bwd_in > 0) {
			rd = f->bwd_in;
			wr = f->bwd_out;
		}
		B->cols = f->b;
		for (int i = 0; i < f->nbwd; i++)
			k_vector(B, nm ? nm : "vectorized_elementwise_kernel<4, MulFunctor>",
				 PRED_OP_ELEMENTWISE, (double)f->a, rd, wr, 1.0);
		break;
	}
	case F_SOFTMAX:
		k_softmax(B, f->b <= 1024 ? "softmax_warp_backward<float, float, float, 10>"
					  : "cunn_SoftMaxBackward<4, float, float, float, SoftMaxBackwardEpilogue>",
			  f->a, f->b, 2.0);
		break;
	case F_NORM:
		if (f->flag) {
			/* a fused RMSNorm: dx from dy, x, the weight and the
			 * reciprocals in one kernel that writes the weight's
			 * partial sums per block (128 rows of them taken), summed
			 * after */
			k_rows(B, "rms_norm_bwd_fused", PRED_OP_NORM, f->a, f->b, 2.0, 1.0, 8.0, 128);
			if (f->frozen)
				break;
			k_colsum(B, f->a < 128 ? f->a : 128, f->b);
			bld_grad_accumulate(B, f->param_elems, f->b);
			break;
		}
		k_rows(B, "layer_norm_grad_input_kernel<float, float>", PRED_OP_NORM, f->a, f->b,
		       2.0, 1.0, 10.0, 256);
		if (f->frozen)
			break;
		k_rows(B, "GammaBetaBackwardCUDAKernel<float, float>", PRED_OP_REDUCTION,
		       f->b, f->a, 2.0, 0.0, 2.0, 256);
		bld_grad_accumulate(B, f->param_elems, f->b);
		break;
	case F_REDUCE:
		if (f->flag && f->frozen)
			break;
		if (f->flag) {
			/* RMSNorm weight: grad of weight * x is a sum over rows. */
			k_colsum(B, f->a, f->b);
			bld_grad_accumulate(B, f->param_elems, f->b);
		} else {
			/* mean backward: expand and divide. */
			B->cols = f->b;
			k_vector(B, "vectorized_elementwise_kernel<4, DivFunctor>", PRED_OP_ELEMENTWISE,
				 (double)f->a * (double)f->b, 1.0, 1.0, 1.0);
		}
		break;
	case F_DROPOUT:
		B->cols = f->b;
		k_vector(B, "masked_scale_kernel<bool, float, float>", PRED_OP_ELEMENTWISE,
			 (double)f->a, 1.0 + 1.0 / B->esz, 1.0, 1.0);
		break;
	case F_EMBED: {
		if (f->frozen)  /* --lora: no gradient of the table */
			break;
		/* embedding_dense_backward: a zero-filled dense gradient of the
		 * whole table, then the rows of the used tokens added in (the
		 * feature kernel up to 3072 indices, sort + segment sums above). */
		k_memset(B, (double)f->c * (double)f->b * B->esz);
		B->cols = 1;
		if (f->a > 3072) {
			for (int i = 0; i < 4; i++)
				k_vector(B, "DeviceRadixSortOnesweepKernel", PRED_OP_ELEMENTWISE,
					 (double)f->a, 2.0, 2.0, 0.0);
			B->cols = f->b;
			k_vector(B, "compute_grad_weight<float>", PRED_OP_ELEMENTWISE,
				 (double)f->a * (double)f->b, 1.0, 1.0, 1.0);
			k_vector(B, "sum_and_scatter<float>", PRED_OP_ELEMENTWISE,
				 (double)f->a * (double)f->b, 1.0, 1.0, 1.0);
		} else {
			B->cols = f->b;
			k_vector(B, "embedding_backward_feature_kernel<float, float, long>",
				 PRED_OP_ELEMENTWISE, (double)f->a * (double)f->b, 1.0, 1.0, 1.0);
		}
		bld_grad_accumulate(B, f->param_elems, f->b);
		break;
	}
	case F_LOSS:
		/* nll_loss backward: zero-filled grad of the logits + scatter;
		 * log_softmax backward: one row kernel. */
		k_memset(B, (double)f->a * (double)f->b * B->esz);
		B->cols = 1;
		k_vector(B, "nll_loss_backward_reduce_cuda_kernel_2d<float, long>",
			 PRED_OP_ELEMENTWISE, (double)f->a, 1.0, 1.0, 1.0);
		k_softmax(B, "cunn_SoftMaxBackward<4, float, float, float, LogSoftMaxBackwardEpilogue>",
			  f->a, f->b, 2.0);
		if (f->flag) {  /* the upcast's gradient, to the 16-bit logits */
			B->cols = f->b;
			k_vector(B, "vectorized_elementwise_kernel<8, bfloat16_copy_kernel_cuda>",
				 PRED_OP_ELEMENTWISE, (double)f->a * f->b, 1.0, 0.5, 0.0);
		}
		break;
	case F_SDPA: {
		struct model_kernel *k = bld_push(B);
		if (!k)
			break;
		int half = B->o->dtype == GPU_DT_BF16 || B->o->dtype == GPU_DT_FP16;
		k->k.name = half ? "flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<64, 128, 128, 8>>"
				 : "fmha_cutlassB_f32_aligned_64x64_k64_sm80";
		k->k.op = PRED_OP_ATTENTION;
		k->k.dtype = B->gemm_dt;
		k->k.grid[0] = (uint32_t)cdiv(f->b, 128);
		k->k.grid[1] = (uint32_t)f->d;
		k->k.grid[2] = 1;
		k->k.block[0] = 256;
		k->k.block[1] = k->k.block[2] = 1;
		k->k.m = f->a;
		k->k.n = f->b;
		k->k.k = f->c;
		k->k.batch = f->d;
		/* Five s_q x s_k x d products (recomputed S, dP, dV, dQ, dK):
		 * 2.5 times the forward FLOPs. */
		k->k.flops = 10.0 * (double)f->d * (double)f->a * (double)f->b * (double)f->c *
			     (f->flag ? 0.5 : 1.0);
		k->k.bytes = 4.0 * (double)(f->a + f->b) * (double)f->c * (double)f->d * B->esz;
		break;
	}
	case F_ATTN:
		attn_emit_backward(B, &f->attn);
		break;
	case F_GROUPED: {
		/* per expert dX = dY W (m x out)(out x in), dW = dY^T X */
		double w = f->param_elems;
		if (f->fp8)
			bld_fp8_casts(B, 0, (double)f->d * f->a * f->c, w, f->fp8_x_bwd);
		k_gemm_fp8(B, f->d, f->a, f->b, f->c, f->fp8);
		k_gemm_fp8(B, f->d, f->c, f->b, f->a, f->fp8);
		bld_grad_accumulate(B, w, f->b);
		break;
	}
	case F_A2A:
		k_a2a(B, (double)f->a, f->c, !f->flag);
		break;
	case F_TP_FWD:
		/* sequence parallelism: the reduce-scatter's gradient gathered */
		if (B->o->sp)
			sp_gather(B, 0, (double)f->a);
		break;
	case F_TP_BWD:
		/* the input's gradient summed over the ranks (sequence
		 * parallelism: and scattered back to their shards).  Megatron
		 * also gathers the saved input shards again for the weight-
		 * gradient GEMM, on another stream while the dgrad GEMM runs
		 * (tensor_parallel/layers.py): emitted under --stack te with
		 * the collective's overlap (tp_wgrad_deferred()); for the
		 * eager stacks (nanotron's, whose backward was not read here)
		 * taken as hidden and not built, as before. */
		/* Megatron's, with wgrads deferred: issued after the dgrads,
		 * the wgrads run while it goes (tp_wgrad_deferred()) */
		k_comm(B, B->o->sp ? COMM_REDUCE_SCATTER : COMM_ALL_REDUCE, (double)f->a * B->esz,
		       MODEL_GROUP_TP, B->ntp_defer ? MODEL_ASYNC_AFTER : 0);
		if (!B->ntp_defer)
			break;
		uint32_t rs = B->err ? 0 : (uint32_t)B->s->n;
		B->wait_next = B->tp_regather;
		for (uint32_t i = 0; i < B->ntp_defer; i++) {
			linear_wgrad(B, B->tp_defer[i]);
			B->tp_flushed_elems += B->tp_defer[i]->param_elems;
		}
		B->ntp_defer = 0;
		B->tp_regather = 0;
		B->wait_next = rs;
		break;
	case F_PP_SEND:
		k_comm(B, COMM_SEND_RECV, (double)f->a * B->esz, MODEL_GROUP_PP, f->flag);
		break;
	case F_CP:
		/* the keys and values again, and their gradients back */
		k_comm(B, COMM_SEND_RECV, 2.0 * (model_cp(B->o) - 1) * (double)f->a,
		       MODEL_GROUP_CP, MODEL_ASYNC_AFTER);
		break;
	}
}

void bld_backward_op(struct bld *B, const struct fop *f)
{
	double keep = B->esz;
	B->layer = f->layer;
	if (f->esz > 0)
		B->esz = f->esz;
	backward_op(B, f);
	B->esz = keep;
}
