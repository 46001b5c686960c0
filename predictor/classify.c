/*
 * classify.c - predict_classify(): what a kernel computes and in which
 * dtype, from its name (cuBLAS/cuBLASLt, CUTLASS, cuDNN, ATen, Triton,
 * FlashAttention, NCCL naming conventions) and its launch, and estimates of
 * its FLOPs and DRAM bytes where the trace did not give them.  An FP32
 * GEMM or convolution whose name says tensor cores is TF32, whatever dtype
 * the trace gave its library call.
 *
 * Estimates (documented because they feed gamma and the roofline):
 *  - GEMM with m, n, k known: 2*m*n*k*batch FLOPs; (m*k + k*n + m*n)*batch
 *    elements moved once each (the minimum traffic; tiles re-read from L2
 *    are not DRAM traffic).
 *  - Elementwise kernels: elements = m*n when the caller knows the shape,
 *    else threads x elements per thread, with 4 elements per thread for
 *    ATen's vectorized_elementwise_kernel (thread_work_size 4 in ATen's
 *    cuda/Loops.cuh for FP32: 128-thread blocks, each thread 4 elements;
 *    on NeuSight's 3,219 FP32 rows threads x 4 is the tensor's size in
 *    95 %, the rest are the first of several launches a 64-bit-indexed
 *    tensor is split into), vt for elementwise_kernel<nt, vt>, and 1 for
 *    others (Triton pointwise kernels launch one program per XBLOCK
 *    elements with ~1 element per thread at XBLOCK = block size).  Bytes =
 *    N x elements x dtype size with N the tensors in the kernel's
 *    Array<char*, N> (output and inputs), 3 when the name does not say;
 *    FLOPs = elements (one op each).
 *  - Softmax and norms with a rows x cols shape in m, n: bytes =
 *    2 x m*n x dtype size (read once, write once), FLOPs = 5 x m*n
 *    (max, subtract, exp, sum, divide; mean/variance/scale for norms).
 *  - FlashAttention-2 kernels: the shape their name and grid give
 *    (attn_name.c), FLOPs and bytes as attention_work counts a call's.
 * Nothing is invented for other kernels: their flops and bytes stay 0.
 */
#include "predictor/predict.h"
#include "predictor/attention.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int cls_has(const char *s, const char *const *needles)
{
	for (; *needles; needles++)
		if (strcasestr(s, *needles))
			return 1;
	return 0;
}

/* Whether s names FlashAttention: "flash" other than in "flashinfer". */
static int cls_flash(const char *s)
{
	for (const char *p = s; (p = strcasestr(p, "flash")) != NULL; p += 5)
		if (strncasecmp(p + 5, "infer", 5) != 0)
			return 1;
	return 0;
}

/* Order matters: conv before GEMM (cuDNN's implicit_convolve_sgemm), split-K
 * reductions before GEMM, attention before both. */
static enum pred_op cls_op(const char *s)
{
	static const char *const comm[] = {"nccl", NULL};
	/* FlashAttention (flash_fwd_kernel, flash_fwd_splitkv_kernel,
	 * flash_bwd_*, FA3's flash::FlashAttnFwdSm90 in cutlass::device_kernel),
	 * xFormers/PyTorch's fmha_cutlassF/B, cuDNN's generated
	 * ..._native_sdpa_..., TRT-LLM's fmha kernels, FlashInfer's
	 * BatchPrefillWith..., BatchDecodeWith..., SinglePrefillWith...,
	 * MergeStates; "flash" only where it is not FlashInfer's namespace,
	 * which also holds its norm, activation and sampling kernels. */
	static const char *const attn[] = {"fmha", "attention", "sdpa", "mha_fwd", "mha_bwd",
					   "prefillwith", "decodewith", "mergestate", NULL};
	static const char *const conv[] = {"convolve", "convolution", "conv1d", "conv2d",
					   "conv3d", "conv_", "fprop", "dgrad", "wgrad",
					   "winograd", "fft2d", NULL};
	static const char *const splitk[] = {"splitkreduce", NULL};
	static const char *const gemm[] = {"gemm", "matmul", "nvjet", "cutlass", "cublas",
					   "xmma", "s884", "h884", "s1688", "h1688", "s16816",
					   "h16816", "i8816", "wmma", "triton_tem_", "_mm_",
					   "bmm", NULL};
	static const char *const softmax[] = {"softmax", NULL};
	static const char *const norm[] = {"layer_norm", "layernorm", "rms_norm", "rmsnorm",
					   "batch_norm", "batchnorm", "group_norm", "groupnorm",
					   "instance_norm", "bn_fw", "bn_bw", "norm_kernel",
					   "ln_fwd", "ln_bwd", "cuComputeGradInput",
					   "cuApplyLayerNorm", NULL};
	static const char *const reduce[] = {"reduce", "reduction", "triton_red_",
					     "triton_per_", "argmax", "argmin", "cub::device",
					     "scan", NULL};
	static const char *const elem[] = {"elementwise", "triton_poi_", "vectorized_",
					   "unrolled_", "fill", "copy", "catarray", "cat_",
					   "index", "gather", "scatter", "where", "pointwise",
					   "embedding", "dropout", "multi_tensor_apply",
					   "distribution", "transpose", "permute", "pool",
					   "upsample", "pad", "clamp", "relu", "gelu", "silu",
					   "sigmoid", "tanh", NULL};

	/* FBGEMM's namespace holds "gemm" but names embedding and index
	 * kernels: classify by what follows it. */
	const char *ns = strstr(s, "fbgemm_gpu::");
	if (ns)
		s = ns + strlen("fbgemm_gpu::");
	if (cls_has(s, comm))
		return PRED_OP_COMM;
	if (cls_has(s, attn) || cls_flash(s))
		return PRED_OP_ATTENTION;
	if (cls_has(s, conv))
		return PRED_OP_CONV;
	if (cls_has(s, splitk))
		return PRED_OP_REDUCTION;
	if (cls_has(s, gemm))
		return PRED_OP_GEMM;
	if (cls_has(s, softmax))
		return PRED_OP_SOFTMAX;
	if (cls_has(s, norm))
		return PRED_OP_NORM;
	if (cls_has(s, reduce))
		return PRED_OP_REDUCTION;
	if (cls_has(s, elem))
		return PRED_OP_ELEMENTWISE;
	return PRED_OP_UNKNOWN;
}

/* The narrowest type named wins: FP8 before BF16 before FP16 ("bf16" holds
 * "f16"), and a kernel naming FP16 operands with FP32 accumulation
 * ("f16f16_f32") is an FP16 kernel. */
static enum gpu_dtype cls_dtype(const char *s)
{
	static const char *const fp8[] = {"e4m3", "e5m2", "fp8", "f8f8", NULL};
	static const char *const bf16[] = {"bf16", "bfloat16", NULL};
	static const char *const fp16[] = {"f16", "fp16", "half", "h884", "h1688", "h16816",
					   "hgemm", "hmma", NULL};
	static const char *const tf32[] = {"tf32", NULL};
	static const char *const i8[] = {"int8", "imma", "i8816", "_i8", "s8s8", NULL};
	static const char *const f64[] = {"double", "dgemm", "f64", "fp64", "d884", NULL};

	if (cls_has(s, fp8))
		return GPU_DT_FP8;
	if (cls_has(s, bf16))
		return GPU_DT_BF16;
	if (cls_has(s, fp16))
		return GPU_DT_FP16;
	if (cls_has(s, tf32))
		return GPU_DT_TF32;
	if (cls_has(s, i8))
		return GPU_DT_INT8;
	if (cls_has(s, f64))
		return GPU_DT_FP64;
	return GPU_DT_FP32;
}

/*
 * Whether a GEMM or convolution kernel's name says it runs on tensor cores,
 * by the naming of the libraries that make them: CUTLASS's "tensorop"
 * (cutlass_80_tensorop_s1688gemm_..., cutlass3x_sm90_tensorop_...), the
 * MMA instruction shapes of cuBLAS and CUTLASS names (s1688 and s16816:
 * FP32 accumulation of TF32 or 16-bit inputs; h884, h1688, h16816, i8816),
 * Hopper's warpgroup MMA (wgmma), cuBLASLt's xmma and sm90/sm100 kernels
 * and cuBLAS 12's nvjet kernels.  A SIMT kernel says so ("simt", "sgemm",
 * cuBLASLt's f32f32_f32f32: FP32 inputs computed in FP32, or the xmma
 * kernels' math instruction, "ffma": FP32 fused multiply-adds); it wins.
 * The complex SGEMM of cuDNN's FFT convolutions names no real FP32 pair
 * (sm80_xmma_gemm_cf32cf32_f32f32_cf32_..._ffma_...): taken as TF32, our
 * H200's ResNet-50 profile put its 24 + 45 launches on a V100 at 31 x
 * their time (no TF32 there: the FP32 rate against Hopper's TF32 one).
 */
static int cls_tensor_core(const char *s)
{
	static const char *const simt[] = {"simt", "sgemm", "f32f32_f32f32", "ffma", NULL};
	static const char *const tc[] = {"tensorop", "s1688", "s16816", "h884", "h1688",
					 "h16816", "i8816", "hmma", "imma", "wgmma", "xmma",
					 "sm90_", "sm100_", "nvjet", "tf32", NULL};

	return !cls_has(s, simt) && cls_has(s, tc);
}

/* cuBLAS 12's nvjet kernels name their operand types with one letter each
 * after "nvjet_" (nvjet_hsh_...: FP16 inputs, FP32 compute, FP16 output);
 * the first is the inputs'.  FP32 at the tensor cores is TF32. */
static enum gpu_dtype cls_nvjet_dtype(const char *s)
{
	const char *p = strstr(s, "nvjet_");

	if (!p)
		return GPU_DT_COUNT;
	switch (p[strlen("nvjet_")]) {
	case 'h': return GPU_DT_FP16;
	case 'b': return GPU_DT_BF16;
	case 'e': case 'q': return GPU_DT_FP8;
	case 's': case 't': return GPU_DT_TF32;
	default: return GPU_DT_COUNT;
	}
}

/* The number after the first of the needles, or 0. */
static unsigned long cls_number_after(const char *s, const char *const *needles)
{
	for (; *needles; needles++) {
		const char *p = strstr(s, *needles);
		if (p)
			return strtoul(p + strlen(*needles), NULL, 10);
	}
	return 0;
}

int predict_aten_elementwise(const char *name, double *elems_per_thread, unsigned *operands)
{
	/* demangled and Itanium-mangled spellings */
	static const char *const arr[] = {"array<char*, ", "Array<char*, ", "arrayIPcLm",
					  "ArrayIPcLi", NULL};
	static const char *const vt2[] = {"elementwise_kernel<128, ", "elementwise_kernelILi128ELi",
					  NULL};
	if (!name || !strstr(name, "elementwise_kernel"))
		return -1;
	unsigned long n = cls_number_after(name, arr);
	*operands = n >= 1 && n <= 16 ? (unsigned)n : 0;
	if (strstr(name, "vectorized_elementwise_kernel")) {
		*elems_per_thread = 4;
	} else {
		unsigned long vt = cls_number_after(name, vt2);
		*elems_per_thread = vt >= 1 && vt <= 16 ? (double)vt : 4;
	}
	return 0;
}

void predict_classify(struct pred_kernel *k)
{
	double elt, elems;

	if (!k)
		return;
	if (k->name && *k->name) {
		if (k->op == PRED_OP_UNKNOWN)
			k->op = cls_op(k->name);
		if (k->dtype == GPU_DT_FP32) {
			enum gpu_dtype nv = cls_nvjet_dtype(k->name);
			k->dtype = nv != GPU_DT_COUNT ? nv : cls_dtype(k->name);
		}
		/* FP32 operands on tensor cores are TF32 (the profiler's
		 * "float" input type says what PyTorch passed, not what the
		 * kernel computes in) */
		if (k->dtype == GPU_DT_FP32 && (k->op == PRED_OP_GEMM || k->op == PRED_OP_CONV) &&
		    cls_tensor_core(k->name))
			k->dtype = GPU_DT_TF32;
	}
	elt = gpu_dtype_bytes(k->dtype);
	/* a FlashAttention-2 kernel without the call that launched it (a
	 * recorded trace): its shape from its name and grid (attn_name.c);
	 * the backward's streaming kernels keep no shape (not the attention
	 * model's work) but their bytes: O and dO in the dtype and the FP32
	 * dQ accumulator for dot_do_o, that accumulator in and dQ out for
	 * the converts, one FLOP an element */
	struct pred_attn a;
	int fa2 = k->op == PRED_OP_ATTENTION && k->attn.impl == PRED_ATTN_NONE && k->name &&
		  !(k->flops > 0 || k->bytes > 0) ? attention_from_name(k->name, k->grid, &a) : -1;
	if (fa2 == 0 || fa2 == 1) {
		k->attn = a;
		attention_work(&k->attn, elt, fa2, &k->flops, &k->bytes);
		return;
	}
	if (fa2 == 2) {
		double e = (double)a.q_tokens * a.heads * a.head_dim;
		k->flops = e;
		k->bytes = e * (strstr(k->name, "dot_do_o") ? 2 * elt + 4 : 4 + elt);
		return;
	}
	if (k->flops > 0 || k->bytes > 0)
		return;

	switch (k->op) {
	case PRED_OP_GEMM:
		if (k->m && k->n && k->k) {
			double b = k->batch ? (double)k->batch : 1.0;
			double m = (double)k->m, n = (double)k->n, kk = (double)k->k;
			k->flops = 2.0 * m * n * kk * b;
			k->bytes = (m * kk + kk * n + m * n) * b * elt;
		}
		break;
	case PRED_OP_ELEMENTWISE: {
		double per = 1;   /* not ATen's (Triton pointwise): ~1 per thread */
		unsigned ops = 0;
		if (k->name)
			predict_aten_elementwise(k->name, &per, &ops);
		if (k->m && k->n) {
			elems = (double)k->m * (double)k->n;
		} else {
			double threads = (double)(k->grid[0] ? k->grid[0] : 1) *
					 (k->grid[1] ? k->grid[1] : 1) * (k->grid[2] ? k->grid[2] : 1) *
					 (k->block[0] ? k->block[0] : 1) *
					 (k->block[1] ? k->block[1] : 1) * (k->block[2] ? k->block[2] : 1);
			elems = threads * per;
		}
		k->bytes = (ops ? ops : 3) * elems * elt;
		k->flops = elems;
		break;
	}
	case PRED_OP_SOFTMAX:
	case PRED_OP_NORM:
		if (k->m && k->n) {
			elems = (double)k->m * (double)k->n;
			k->bytes = 2.0 * elems * elt;
			k->flops = 5.0 * elems;
		}
		break;
	default:
		break;
	}
}
