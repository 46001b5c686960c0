/*
 * fuse.c - how a stack rewrites the eager kernel sequence model.c builds:
 * torch.compile's and Transformer Engine's fusion of element-wise ops,
 * norms and reductions into their neighbours (--stack compile|te), FSDP's
 * FP8 weight all-gathers (--dtype fp8 under --zero 3) and the CUDA graph
 * regions of --cuda-graphs.  Each runs once over the built sequence.
 */
#include "analyzer/model/build.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- stacks: what torch.compile and Transformer Engine do to the ops -- */

/* A kernel Inductor (or TE and Megatron's fused modules) folds into its
 * neighbours: element-wise ops, norms, softmax and reductions.  Library
 * kernels (cuBLAS GEMMs, attention, NCCL, the MoE permute and unpermute
 * kernels: custom ops to Inductor, TE's own in Megatron), fills and
 * AccumulateGrad (run by the autograd engine outside the compiled graph)
 * are not. */
static int fusible(const struct model_kernel *k)
{
	if (k->phase == MODEL_PH_COMM || k->phase == MODEL_PH_OPTIMIZER ||
	    k->role == MODEL_ROLE_GRAD_ACC || k->role == MODEL_ROLE_PER_STEP ||
	    k->role == MODEL_ROLE_FSDP_COPY ||
	    (k->k.name && !strncmp(k->k.name, "flash_", 6)) ||  /* FlashAttention's own */
	    (k->k.name && !strncmp(k->k.name, "moe_", 4)))      /* TE's permute kernels */
		return 0;
	switch (k->k.op) {
	case PRED_OP_ELEMENTWISE: case PRED_OP_REDUCTION: case PRED_OP_NORM: case PRED_OP_SOFTMAX:
		return 1;
	default:
		return 0;
	}
}

/* An FP8 scaling kernel (ops.c's bld_fp8_casts). */
static int scaling(const struct model_kernel *k)
{
	return k->k.name && (strstr(k->k.name, "fp8_") || strstr(k->k.name, "cast_transpose") ||
			     strstr(k->k.name, "MaxOps"));
}

static int reduces(const struct model_kernel *k)
{
	return k->k.op != PRED_OP_ELEMENTWISE;
}

/* Folds kernel k into the fused kernel f: the chain reads its inputs once
 * and writes its outputs once, so its traffic is that of its largest
 * member (a norm reads x and writes y however many ops compute it;
 * SiLU(g) * u reads g and u and writes one tensor); its FLOPs are the
 * members' sum; it takes the largest member's launch shape and a
 * reduction's kind. */
static void fold(struct model_kernel *f, const struct model_kernel *k)
{
	double flops = f->k.flops + k->k.flops;
	if (k->k.bytes > f->k.bytes) {
		enum pred_op op = reduces(f) && !reduces(k) ? f->k.op : k->k.op;
		uint32_t wait = f->wait;
		const char *name = f->k.name;
		*f = *k;
		f->k.op = op;
		f->k.name = name;
		if (!f->wait)
			f->wait = wait;
	} else {
		if (reduces(k) && !reduces(f))
			f->k.op = k->k.op;
		if (!f->wait)
			f->wait = k->wait;
	}
	f->k.flops = flops;
	f->reread_bytes = f->reuse_bytes = 0;
}

/* Rewrites s->v for o->stack: each maximal chain of fusible kernels of one
 * phase and layer (other kernels of the side stream between them do not
 * break it) becomes one Triton kernel, a chain holding reductions of one
 * shape at most (a norm's row reduction fuses with its prologue and
 * epilogue; the column sum of its weight gradient starts another
 * kernel).  te also joins the forward GEMMs that read one input (Q, K and
 * V; gate and up: Megatron's linear_qkv and linear_fc1) and drops the
 * gradient accumulation adds (Megatron's gradient-accumulation fusion: the
 * wgrad GEMM accumulates into main_grad).  Collective indices (wait) are
 * renumbered; B->fwd_lo/hi are no longer valid afterwards. */
void bld_stack_fuse(struct bld *B)
{
	const struct model_opts *o = B->o;
	struct model_seq *s = B->s;
	if (o->stack == MODEL_STACK_EAGER || B->err || !s->n)
		return;
	uint32_t *map = malloc(s->n * sizeof(*map));   /* old index -> 1 + new */
	if (!map) {
		B->err = SURFER_ENOMEM;
		return;
	}
	size_t out = 0, open = SIZE_MAX;               /* the chain being fused */
	int open_sc = 0;                               /* it holds a scaling kernel */
	size_t gemm = SIZE_MAX;                        /* the last forward GEMM */
	uint64_t red_m = 0, red_n = 0;
	for (size_t i = 0; i < s->n; i++) {
		struct model_kernel k = s->v[i];
		if (o->stack == MODEL_STACK_TE && k.role == MODEL_ROLE_GRAD_ACC) {
			map[i] = out ? (uint32_t)out : 1;
			continue;
		}
		if (k.phase == MODEL_PH_COMM && k.async) {  /* other stream: kept, chain open */
			map[i] = (uint32_t)(out + 1);
			s->v[out++] = k;
			continue;
		}
		if (fusible(&k)) {
			int sc = scaling(&k);
			struct model_kernel *f = open != SIZE_MAX ? &s->v[open] : NULL;
			int same = f && f->phase == k.phase && f->layer == k.layer &&
				   (sc && o->stack != MODEL_STACK_TE
					    ? !open_sc
					    : !(reduces(&k) && red_m && (k.k.m != red_m || k.k.n != red_n)));
			/* Transformer Engine quantizes a linear's input, and in
			 * backward its output gradient, inside its own module
			 * (Linear's cast, grad_output_preprocess's cast-
			 * transpose): only the norm of a LayerNormLinear writes
			 * FP8 itself (training-stacks.md section 4); Megatron's
			 * compiled activation and the other modules' kernels
			 * around it are another library's, so the cast stays a
			 * kernel of its own */
			if (sc && o->stack == MODEL_STACK_TE &&
			    !(same && k.phase == MODEL_PH_FORWARD && reduces(f))) {
				map[i] = (uint32_t)(out + 1);
				s->v[out++] = k;
				open = SIZE_MAX;
				continue;
			}
			/* torchao under torch.compile: a chain holds one FP8
			 * scaling kernel at most.  Each cast reads a tensor of
			 * its own (the input, the weight, the gradient, the
			 * saved input's transposed copy) or needs the amax a
			 * kernel before it finished (tensorwise), so their
			 * traffic adds up; only the first may fold into the
			 * kernel that produced its operand (torchao's roofline
			 * "fuse_with_prev", a norm writing the input: the
			 * tensorwise amax, or rowwise's dim-0 cast, whose row
			 * amax is the norm's row), and then its read is saved
			 * but not its writes (the FP8 copies, rowwise's BF16
			 * transpose: torchao saves the BF16 input for backward,
			 * so the norm writes it as well; TE's LayerNormLinear
			 * norm writes FP8 in place of its 16-bit output, a
			 * fold at the largest member's bytes, above).  Folded
			 * together at the
			 * largest member's bytes, rowwise's five backward casts
			 * cost one and its forward cast none, and it came out
			 * faster than tensorwise (Llama-3-8B, FSDP, H100: 633
			 * against 660 ms a step) */
			if (sc && same && open_sc)
				same = 0;
			if (same) {
				double bytes = f->k.bytes +
					       (k.k.bytes - (double)k.k.m * k.k.n * B->esz);
				fold(f, &k);
				if (sc && o->stack != MODEL_STACK_TE)
					f->k.bytes = bytes;
				open_sc |= sc;
			} else {
				open = out;
				open_sc = sc;
				red_m = red_n = 0;
				k.k.name = NULL;
				s->v[out++] = k;
				f = &s->v[open];
				f->reread_bytes = f->reuse_bytes = 0;
			}
			if (reduces(&k) && !red_m)
				red_m = k.k.m, red_n = k.k.n;
			f->k.name = reduces(f) ? "triton_red_fused_kernel" : "triton_poi_fused_kernel";
			map[i] = (uint32_t)(open + 1);
			if (!sc)
				gemm = SIZE_MAX;
			continue;
		}
		open = SIZE_MAX;
		if (o->stack == MODEL_STACK_TE && k.k.op == PRED_OP_GEMM && k.k.batch <= 1 &&
		    k.phase == MODEL_PH_FORWARD && gemm != SIZE_MAX) {
			struct model_kernel *g = &s->v[gemm];
			if (g->layer == k.layer && g->k.m == k.k.m && g->k.k == k.k.k &&
			    g->k.dtype == k.k.dtype) {
				uint64_t tn = g->k.grid[1] ? cdiv(g->k.n, g->k.grid[1]) : 128;
				tn = tn > 64 ? 128 : tn > 32 ? 64 : 32;
				g->k.n += k.k.n;
				g->k.grid[1] = (uint32_t)cdiv(g->k.n, tn);
				g->k.flops += k.k.flops;
				/* the input they share is read once, at the
				 * operands' width (a byte in FP8) */
				g->k.bytes += k.k.bytes - (double)k.k.m * k.k.k * bld_gemm_in_bytes(B, k.k.dtype);
				map[i] = (uint32_t)(gemm + 1);
				continue;
			}
		}
		if (!scaling(&k))
			gemm = k.k.op == PRED_OP_GEMM && k.phase == MODEL_PH_FORWARD ? out : SIZE_MAX;
		map[i] = (uint32_t)(out + 1);
		s->v[out++] = k;
	}
	for (size_t i = 0; i < out; i++)
		if (s->v[i].wait)
			s->v[i].wait = map[s->v[i].wait - 1];
	s->n = out;
	free(map);
}

/* torchao float8 with FSDP2 (tensorwise only: config.py asserts it):
 * fsdp_pre_all_gather casts each weight shard to FP8 before the
 * all-gather, so a layer's gather moves one byte per parameter of its
 * linears instead of two (the norms' few weights, gathered in 16 bits,
 * left out).  The root unit (embeddings, LM head) stays BF16. */
void bld_fp8_gathers(struct bld *B)
{
	const struct model_opts *o = B->o;
	if (!o->fp8 || o->fp8_recipe != MODEL_FP8_TENSORWISE || o->zero < 2 || model_grad_ranks(o) <= 1 ||
	    B->err)
		return;
	for (size_t i = 0; i < B->s->n; i++) {
		struct model_kernel *k = &B->s->v[i];
		if (k->phase == MODEL_PH_COMM && k->comm == COMM_ALL_GATHER && k->layer >= 0) {
			k->k.bytes /= B->esz;
			k->k.m = (uint64_t)k->k.bytes;
		}
	}
}

/* --cuda-graphs: each block's forward and each block's backward is a
 * compiled region replayed as one CUDA graph (torch.compile's CUDA graph
 * trees; Megatron's per-layer TE graphs), its kernels issued by one replay
 * that costs MODEL_GRAPH_CALL_NS of CPU time; collectives, the optimizer,
 * AccumulateGrad, FSDP's copies (its hooks') and the kernels outside the
 * blocks stay eager. */
void bld_graph_regions(struct bld *B)
{
	struct model_seq *s = B->s;
	if (!B->o->cuda_graphs || B->err)
		return;
	for (size_t i = 0; i < s->n; i++) {
		struct model_kernel *k = &s->v[i];
		if (k->layer < 0 || k->phase == MODEL_PH_COMM || k->phase == MODEL_PH_OPTIMIZER ||
		    k->role == MODEL_ROLE_GRAD_ACC || k->role == MODEL_ROLE_FSDP_COPY)
			continue;
		/* ids 1..254, a new one at each block and pass */
		k->graph = (uint8_t)(1 + ((uint32_t)k->layer * 2 + (k->phase == MODEL_PH_BACKWARD)) % 254);
		if (i == 0 || s->v[i - 1].graph != k->graph)
			k->cpu_before_ns = MODEL_GRAPH_CALL_NS - model_launch_ns(B->o);
	}
}
