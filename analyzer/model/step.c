/*
 * step.c - what a training step runs beside the forward and backward
 * passes: data parallelism's traffic (DDP's gradient buckets; ZeRO and
 * FSDP's parameter gathers, copies in and out of their flat buffers, and
 * gradient reduce-scatters; HSDP's all-reduce across nodes) and the
 * optimizer step (multi-tensor AdamW or SGD, fused or foreach, or on the
 * host under --offload).  model.c's build calls these at each layer of
 * the backward pass and once after it; memory.c states the same buffers.
 */
#include "analyzer/model/build.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One multi-tensor pass of the optimizer step over P elements of
 * `tensors` parameter tensors in `launches` launches (each a 65,536-element
 * chunk per thread block, MultiTensorApply.cuh), moving bytes_per_elem
 * each: one foreach or fused op, its first launch carrying the call and
 * its lists (cpu.c), the others launched from inside it; per_tensor: a
 * launch per tensor, each its own call (bitsandbytes' loop). */
static void optimizer_pass(struct bld *B, const char *name, enum pred_op op, double P,
			   uint64_t launches, double bytes_per_elem, uint32_t tensors, int per_tensor)
{
	double per = P / (double)launches;
	for (uint64_t l = 0; l < launches; l++) {
		struct model_kernel *k = bld_push(B);
		if (!k)
			return;
		if (per_tensor)
			k->op_tensors = 1;
		else if (l == 0)
			k->op_tensors = tensors;
		else
			k->in_op = 1;
		k->k.name = name;
		k->k.op = op;
		k->k.grid[0] = (uint32_t)(ceil(per / 65536.0) > 0 ? ceil(per / 65536.0) : 1);
		k->k.grid[1] = k->k.grid[2] = 1;
		k->k.block[0] = 512;
		k->k.block[1] = k->k.block[2] = 1;
		k->k.m = (uint64_t)per;
		k->k.n = 1;
		k->k.batch = 1;
		k->k.flops = 4.0 * per;
		k->k.bytes = bytes_per_elem * per;
	}
}

/* --offload: DeepSpeed's offload_optimizer (device cpu; ZeRO-Offload, Ren
 * et al. 2021, USENIX ATC) over this rank's P parameters, after backward:
 *  - its gradients copied to the host's pinned FP32 buffer (DeepSpeed
 *    casts them to FP32 on the GPU and copies them, 4 bytes a parameter:
 *    stage_1_and_2.py's async_inplace_copy_grad_to_fp32_buffer_from_gpu,
 *    as recalled, not read here);
 *  - the gradients' norm summed over the ranks (a 4-byte all-reduce)
 *    unless --no-grad-clip;
 *  - DeepSpeedCPUAdam on the host: p, g, m, v read and p, m, v written in
 *    FP32 (fused AdamW's 28 bytes, training-stacks.md section 5), the
 *    norm's read of the gradients (4) and the 16-bit parameters written
 *    for the copy back (the dtype's bytes), at a rank's share of the
 *    host's DRAM bandwidth (o->host_rank_gbps: systems.csv's peak, so a
 *    bound the step reaches at best; the CPU's arithmetic, ~10 FLOPs a
 *    parameter, is far below what its cores issue);
 *  - the 16-bit parameters copied back, the dtype's bytes.
 * In that order, none overlapped with the GPU's work: DeepSpeed's stage 2
 * overlaps the gradients' copies with backward (overlap_comm), and its
 * one-step delayed update overlaps the CPU step with the next forward;
 * neither is modelled, so the copies (a fraction of the CPU step: 6 of
 * its 34 bytes at PCIe's 3-10x lower rate) count in full. */
static void offload_step(struct bld *B, double P)
{
	const struct model_opts *o = B->o;
	double clip = o->no_grad_clip ? 0 : 4.0;
	k_host_copy(B, MODEL_COPY_DTOH, 4.0 * P, 0);
	if (!o->no_grad_clip && model_grad_ranks(o) > 1)
		k_comm_elem(B, COMM_ALL_REDUCE, 4.0, 4.0, o->hsdp ? MODEL_GROUP_SHARD : MODEL_GROUP_DP, 0);
	k_host_copy(B, MODEL_COPY_HTOD, B->esz * P, P * (28.0 + clip + B->esz) / o->host_rank_gbps);
}

/* Optimizer step over this GPU's parameters (training-stacks.md section 5).
 * The state is in the dtype, or FP32 in mixed precision (model_mixed:
 * FP32 master weights, moments and gradients, as FSDP's sharded flat
 * parameters, Megatron's main_grad and autocast's FP32 model keep them).
 * AdamW in PyTorch 2's foreach implementation (_multi_tensor_adamw) runs 8
 * multi-tensor passes: mul_(p) (weight decay), lerp_(m, g), mul_(v),
 * addcmul_(v, g, g), sqrt(v), div_, add_(eps), addcdiv_(p, m, denom),
 * touching 2 + 3 + 2 + 4 + 2 + 2 + 2 + 4 = 21 tensors an element (84
 * bytes a parameter in FP32: the notes' "~80"), each launched once per
 * ~36 tensors or per 320 chunks of 64 Ki elements; fused=True runs one
 * pass reading p, g, m, v and writing p, m, v (28 bytes in FP32).  SGD
 * without momentum is one foreach add.
 * Before it the gradients' norm is clipped, as the stacks do by default
 * (Megatron's --clip-grad 1.0: multi_tensor_l2norm, then
 * multi_tensor_scale, clip_grads.py; torch's clip_grad_norm_: a foreach
 * norm, then a foreach mul by the clamped coefficient): a reading pass, the
 * norm summed over the ranks whose shards it covers (a 4-byte all-reduce on
 * the compute stream) and a scaling pass (o->no_grad_clip: none of it).
 * After it Megatron (--stack te) in mixed precision copies the FP32 main
 * parameters into the 16-bit model's (_copy_main_params_to_model_params):
 * 4 bytes read and esz written a parameter. */
void bld_optimizer_step(struct bld *B)
{
	const struct model_opts *o = B->o;
	/* the trained parameters (--lora: the adapters alone) */
	double P = B->s->params_trainable;
	uint32_t tensors = B->s->param_tensors_trainable ? B->s->param_tensors_trainable : 1;
	if (o->optimizer == MODEL_OPTIM_NONE || o->mode != MODEL_TRAINING)
		return;
	uint32_t dp = model_grad_ranks(o);
	if (o->zero && dp > 1) {
		/* each rank steps its shard: ZeroRedundancyOptimizer a dp-th
		 * of the tensors, FSDP one flat tensor per unit; under --ep the
		 * experts' over their data-parallel group, dp / ep ranks */
		double X = model_ep(o) > 1 ? B->s->expert_params : 0;
		P = (P - X) / dp + X * model_ep(o) / o->dp;
		tensors = o->zero == 1 ? (uint32_t)cdiv(tensors, dp) : B->nunits;
	}
	B->ph = MODEL_PH_OPTIMIZER;
	B->layer = -1;
	if (o->offload) {
		offload_step(B, P);
		return;
	}
	int mixed = model_mixed(o);
	double st = mixed ? 4.0 : B->esz;      /* bytes of p, g, m, v */
	int passes, per_tensor = 0;
	double rw;              /* tensors touched per element per pass */
	double moments8 = 0;    /* bytes per element of 8-bit moments     */
	const char *name;
	if (o->adam_8bit) {
		/* bitsandbytes' AdamW8bit (optim="adamw_8bit" in the HF
		 * Trainer): its Python loops over the parameters, one kernel
		 * per tensor reading and writing the parameter, reading the
		 * gradient, and each 8-bit moment with its block's FP32 absmax
		 * (dynamic quantization, a block of 256); cpu.c charges each
		 * launch as an op called from Python */
		passes = 1, rw = 3, name = "kOptimizerStatic8bit2StateBlockwise<ADAM>";
		per_tensor = 1;
		moments8 = 2 * 2 * MODEL_ADAM8_MOMENT_BYTES;   /* both read and written */
	} else if (o->optimizer == MODEL_OPTIM_SGD) {
		passes = 1, rw = 3, name = "multi_tensor_apply_kernel<TensorListMetadata<2>, AxpbyFunctor>";
	} else if (o->fused_optimizer) {
		passes = 1, rw = 7, name = "multi_tensor_apply_kernel<FusedAdamMathFunctor<float, 4>>";
	} else {
		passes = 8, rw = 21.0 / 8, name = "multi_tensor_apply_kernel<TensorListMetadata<3>, PointwiseOpScalarFunctor>";
	}
	double chunks = ceil(P / 65536.0);
	uint64_t launches = cdiv(tensors, 36);
	uint64_t by_chunks = (uint64_t)ceil(chunks / 320.0);
	if (by_chunks > launches)
		launches = by_chunks;
	if (!launches)
		launches = 1;
	if (!o->no_grad_clip) {
		optimizer_pass(B, "multi_tensor_apply_kernel<TensorListMetadata<1>, LpNormFunctor<float>>",
			       PRED_OP_REDUCTION, P, launches, st, tensors, 0);
		if (o->zero && dp > 1)   /* NCCL's stream, after the gradients' */
			k_comm_elem(B, COMM_ALL_REDUCE, 4.0, 4.0, o->hsdp ? MODEL_GROUP_SHARD : MODEL_GROUP_DP,
				    MODEL_ASYNC_AFTER);
		optimizer_pass(B, "multi_tensor_apply_kernel<TensorListMetadata<1>, BinaryOpScalarTensorFunctor>",
			       PRED_OP_ELEMENTWISE, P, launches, 2.0 * st, tensors, 0);
	}
	/* the moments take the parameters' dtype (zeros_like); 8-bit ones a
	 * byte each way and 4 bytes of absmax per 256 */
	for (int p = 0; p < passes; p++)
		optimizer_pass(B, name, PRED_OP_ELEMENTWISE, P, per_tensor ? tensors : launches,
			       rw * st + moments8, tensors, per_tensor);
	if (mixed && o->stack == MODEL_STACK_TE)
		optimizer_pass(B, "multi_tensor_apply_kernel<TensorListMetadata<2>, ScaleFunctor>",
			       PRED_OP_ELEMENTWISE, P, launches, 4.0 + B->esz, tensors, 0);
}

/* DDP all-reduces gradients in 25 MB buckets as backward produces them;
 * under --ep the experts' gradients in buckets of their own over the
 * expert data-parallel group (g MODEL_GROUP_EDP). */
void bld_dp_buckets(struct bld *B, double grad_bytes, double *pending, int final,
		       enum model_group g)
{
	const double bucket = 25.0 * 1024 * 1024;
	uint32_t ranks = g == MODEL_GROUP_EDP ? B->o->dp / model_ep(B->o) : model_grad_ranks(B->o);
	if (ranks <= 1)
		return;
	*pending += grad_bytes;
	while (*pending >= bucket || (final && *pending > 0)) {
		double sz = *pending >= bucket ? bucket : *pending;
		k_comm(B, COMM_ALL_REDUCE, sz, g, MODEL_ASYNC_AFTER);
		struct model_kernel *k = bld_last_kernel(B);
		if (k)
			k->role = MODEL_ROLE_DP_SYNC;
		*pending -= sz;
	}
}

/* ZeRO's collectives.  --zero 1: DDP's all-reduces, then each rank's
 * updated shard all-gathered after the step.  --zero 2 and 3 (FSDP):
 * each unit (a layer; the embeddings, final norm and head together) is
 * all-gathered before its forward, issued ahead on the side stream (the
 * CPU runs ahead of the GPU, so the next unit's gather overlaps this
 * one's compute), and its gradients reduce-scattered once its backward
 * is done; --zero 3 gathers each layer again for its backward, the next
 * one's gather issued before this one's backward (BACKWARD_PRE).  The
 * root unit stays gathered from forward to backward, as FSDP's root does.
 *
 * Under a pipeline (pp > 1: FSDP2 as torchtitan runs it with torch's
 * pipeline schedules) the stage keeps its parameters gathered from the
 * first microbatch's forward to the last one's backward (torchtitan sets
 * reshard_after_forward False under PP; the schedule turns the gradient
 * sync off but for the last microbatch: torch.distributed.pipelining's
 * stage, set_requires_gradient_sync / set_reshard_after_backward), so each
 * unit is gathered once and reduce-scattered once a step, never regathered
 * for backward: the gathers and reduce-scatters are built here as without
 * a pipeline and the program (program.c) issues them once a step with the
 * data-parallel collectives, not overlapped, as it issues ZeRO-1's; FSDP2's
 * copy-out after each gather and copy-in before each reduce-scatter, also
 * once a step, with them (step_once). */
int bld_sharded(const struct bld *B)
{
	return B->o->zero >= 2 && model_grad_ranks(B->o) > 1;
}

/* A unit's all-gather; under --ep two, the dense parameters' over the
 * data-parallel group, then the routed experts' over the expert
 * data-parallel group (torchtitan shards the experts over dp / ep ranks:
 * dp_shard_mod_ep), the second the one the unit's compute waits for (a
 * unit without experts gathers none: 0 bytes, no time).  Returns the last
 * one's index + 1. */
uint32_t bld_zero_gather(struct bld *B, int32_t layer, int async)
{
	int32_t keep = B->layer;
	double x = model_ep(B->o) > 1 ? B->unit_x[layer + 1] : 0;
	B->layer = layer;
	k_comm(B, COMM_ALL_GATHER, (B->unit[layer + 1] - x) * B->esz,
	       B->o->hsdp ? MODEL_GROUP_SHARD : MODEL_GROUP_DP, async);
	if (model_ep(B->o) > 1)
		k_comm(B, COMM_ALL_GATHER, x * B->esz, MODEL_GROUP_EDP, async);
	B->layer = keep;
	return B->err ? 0 : (uint32_t)B->s->n;
}

/* Bytes an element of the gradients FSDP reduce-scatters: FP32 where the
 * state is mixed precision (torchtitan's reduce_dtype, the only value it
 * allows; Composer's DEFAULT mode), else the dtype's; --fsdp-reduce
 * overrides (Composer's PURE mode reduces in BF16).  Megatron's FSDP
 * keeps the dtype's, as before. */
static double reduce_esz(const struct bld *B)
{
	const struct model_opts *o = B->o;
	if (model_fsdp_impl(o) == MODEL_FSDP_MEGATRON)
		return B->esz;
	if (o->fsdp_reduce_bytes)
		return o->fsdp_reduce_bytes;
	return model_mixed(o) ? 4.0 : B->esz;
}

/* A memory-bound copy of n elements moving bytes, FSDP's, of unit layer
 * (-1 the root's): on the compute
 * stream, outside any fusion.  FSDP2 runs its reduce-scatter copy-in on
 * the reduce-scatter stream and FSDP1 its casts and divisions on the
 * post-backward stream, but there they take the SMs that the compute
 * stream's kernels would (a cuBLAS GEMM's CTA on Hopper holds an SM's
 * shared memory, so the two do not share one), so they are costed where
 * their time goes: in line with the compute. */
static void fsdp_copy(struct bld *B, int32_t layer, const char *name, double n, double bytes)
{
	uint64_t keep = B->cols;
	int32_t keep_layer = B->layer;
	B->cols = 1;
	B->layer = layer;
	k_vector(B, name, PRED_OP_ELEMENTWISE, n > 1 ? n : 1, 1.0, 1.0, 0.0);
	B->cols = keep;
	B->layer = keep_layer;
	struct model_kernel *k = bld_last_kernel(B);
	if (k) {
		k->k.bytes = bytes;
		k->role = MODEL_ROLE_FSDP_COPY;
	}
}

/* Under a pipeline FSDP2 gathers and reduce-scatters a unit once a step
 * (bld_sharded()), so the copy just pushed around those runs once a step too,
 * with them (the program's step_once). */
static void fsdp_pp_once(struct bld *B)
{
	struct model_kernel *k = B->o->pp > 1 ? bld_last_kernel(B) : NULL;
	if (k)
		k->step_once = 1;
}

/* FSDP2's copy-out after a unit's all-gather (torch's
 * foreach_all_gather_copy_out: split_with_sizes_copy of the gathered
 * buffer into each parameter, on the compute stream once the gather is
 * done; training-stacks.md section 6): n elements read and written in the
 * dtype.  FSDP1 gathers into its flat parameter, whose views the modules
 * use, and Megatron into its buffers: no copy.  Returns the kernel's
 * index + 1 (0 none) for its size to be set once the unit's is known. */
uint32_t bld_zero_copy_out(struct bld *B, int32_t layer, double n)
{
	if (model_fsdp_impl(B->o) != MODEL_FSDP_2 || B->err)
		return 0;
	fsdp_copy(B, layer, "split_with_sizes_copy_out_contiguous_no_cast_kernel", n,
		  2.0 * n * B->esz);
	fsdp_pp_once(B);
	return B->err ? 0 : (uint32_t)B->s->n;
}

/* Under a pipeline a unit's gradients are reduced once a step, after the
 * last microbatch (bld_sharded()): the program issues a kernel of role
 * MODEL_ROLE_DP_SYNC with the data-parallel all-reduces. */
static void zero_pp_once(struct bld *B)
{
	struct model_kernel *k = B->o->pp > 1 ? bld_last_kernel(B) : NULL;
	if (k)
		k->role = MODEL_ROLE_DP_SYNC;
}

/* FSDP1's factor of the gradients divided before the reduce-scatter
 * (torch/distributed/fsdp/_init_utils.py, _get_gradient_predivide_factor:
 * f doubles from 1 while it divides world and world / f exceeds f: 4 of
 * 8 ranks, 16 of 128); the rest, world / f, divides the shard after it. */
static uint32_t fsdp1_predivide(uint32_t world)
{
	uint32_t f = 1;
	while (world % f == 0 && world / f > f)
		f *= 2;
	return f;
}

/* What runs before a unit's reduce-scatter, its n gradient elements:
 *   FSDP2 (foreach_reduce): _chunk_cat of the gradients into one flat
 *     input, cast to the reduce dtype on the way (read in the dtype,
 *     written in the reduce dtype); the reduction's average is NCCL's
 *     (PREMUL_SUM / AVG: no divide kernel; training-stacks.md section 5);
 *   FSDP1 (_post_backward_hook, _reduce_grad): the flat gradient arrives
 *     whole (the backward of the split that gives the modules their views
 *     of the flat parameter writes it: a copy in the dtype), is cast to
 *     the reduce dtype where that differs (.to(reduce_dtype)), divided by
 *     fsdp1_predivide() before the reduce-scatter and by the rest after
 *     it, on the shard;
 *   Megatron's FSDP reduces its gradient buffer in place: nothing.
 * Under FSDP1 and FSDP2 the gradients are taken by AccumulateGrad without
 * an add (each unsharded gradient is None when backward reaches it, FSDP
 * having freed the last one), so ops.c emits none. */
static void zero_copy_in(struct bld *B, int32_t layer, double n, double rb)
{
	enum model_fsdp impl = model_fsdp_impl(B->o);
	if (impl == MODEL_FSDP_2) {
		/* under a pipeline once a step, with the reduce-scatter */
		fsdp_copy(B, layer, "chunk_cat_cuda_kernel", n, n * (B->esz + rb));
		fsdp_pp_once(B);
	} else if (impl == MODEL_FSDP_1) {
		fsdp_copy(B, layer, "CatArrayBatchedCopy_contig", n, 2.0 * n * B->esz);
		if (rb != B->esz)
			fsdp_copy(B, layer, "vectorized_elementwise_kernel<4, copy_kernel>", n,
				  n * (B->esz + rb));
		fsdp_copy(B, layer, "vectorized_elementwise_kernel<4, DivFunctor>", n, 2.0 * n * rb);
	}
}

void bld_zero_reduce(struct bld *B, int32_t layer)
{
	/* the trained parameters' gradients (--lora: the adapters') */
	double n = B->unit_t[layer + 1];
	if (!(n > 0))
		return;
	double rb = reduce_esz(B);
	zero_copy_in(B, layer, n, rb);
	uint32_t shard = B->o->hsdp ? model_shard_ranks(B->o) : model_grad_ranks(B->o);
	/* under --ep the routed experts' gradients over their own group, as
	 * bld_zero_gather() gathers them */
	double x = model_ep(B->o) > 1 ? B->unit_x[layer + 1] : 0;
	k_comm_elem(B, COMM_REDUCE_SCATTER, (n - x) * rb, rb,
		    B->o->hsdp ? MODEL_GROUP_SHARD : MODEL_GROUP_DP, MODEL_ASYNC_AFTER);
	zero_pp_once(B);
	if (x > 0) {
		k_comm_elem(B, COMM_REDUCE_SCATTER, x * rb, rb, MODEL_GROUP_EDP, MODEL_ASYNC_AFTER);
		zero_pp_once(B);
	}
	/* FSDP1's division by the rest of the world size, on the shard once
	 * the reduce-scatter is done (on the post-backward stream; costed
	 * in line as the others, waiting for nothing) */
	uint32_t world = model_grad_ranks(B->o);
	if (model_fsdp_impl(B->o) == MODEL_FSDP_1 && world / fsdp1_predivide(world) > 1)
		fsdp_copy(B, layer, "vectorized_elementwise_kernel<4, DivFunctor>", n / shard,
			  2.0 * n / shard * rb);
	/* HSDP: the node's shard then all-reduced with the other nodes' */
	if (B->o->hsdp && model_grad_ranks(B->o) > model_shard_ranks(B->o)) {
		k_comm_elem(B, COMM_ALL_REDUCE, n * rb / model_shard_ranks(B->o), rb,
			    MODEL_GROUP_REPLICA, MODEL_ASYNC_AFTER);
		zero_pp_once(B);
	}
}
