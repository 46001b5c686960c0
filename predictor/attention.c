/*
 * attention.c - the fused attention model (attention.h).
 *
 * A call is described by its shape (struct pred_attn): S sequences, H
 * query heads, Hkv KV heads (group G = H / Hkv), head dims d (Q, K) and
 * dv (V, O), q and kv tokens summed over the sequences, the longest
 * sequence's keys and P, the (query, key) pairs attended.  On a target GPU
 * the model picks the kernel the implementation runs there, then
 *
 *   T = max(T_compute, T_mem) + T_combine + T_fixed
 *
 * Kernel (serving-engines.md 1.1-1.3, 4; training-stacks.md 3, 4):
 *  - FLASH runs FA3 on compute capability 9.x (flash-attn's hopper/ build;
 *    vLLM's get_flash_attn_version, SGLang's fa3 backend) and FA2
 *    elsewhere (a prefill before 8.0: the memory-efficient kernels,
 *    below, as PyTorch's SDPA falls back to them); FA3 asked for on
 *    another GPU runs FA2 (it has no kernel there); FlashInfer and cuDNN
 *    run warpgroup-MMA kernels on 9.x (FlashInfer's sm90 prefill backend,
 *    cuDNN's sm90 sdpa kernels) and mma.sync kernels before.  "async" below is the asynchronous-MMA
 *    class, taken to cover 10.x (B200: tcgen05 kernels, unverified) but not
 *    12.x (RTX Blackwell: mma.sync only).
 *  - Forward tiles block_m x block_n (keys per step), by head dim d:
 *    FA2 (flash_fwd_launch_template.h): d <= 64 128 x 128; d <= 128
 *    128 x 64 on 8.0 and 9.0+, and on 8.6/8.9 (its is_sm8x: 99 KB of
 *    shared memory) 64 x 64 causal, 128 x 32 not; larger d 128 x 64 on
 *    8.0 and 9.0+, 64 x 64 on 8.6/8.9.
 *    FA3 (hopper/tile_size.h, BF16): d <= 64 192 x 128 causal, 192 x 192
 *    not; d <= 128 128 x 128 causal (and paged), 128 x 176 not; d <= 256
 *    128 x 80 (d <= 192 taken as 128 x 112, and the FP8 kernels as using
 *    the BF16 tiles: both unverified).  FlashInfer's and cuDNN's tiles are taken as
 *    FA2's / FA3's of their class (their own tile choices are not in the
 *    notes).
 *  - Backward (dQ, dK, dV kernel; both classes, flash_bwd_launch_template.h
 *    and hopper/): block_m 64 query rows x block_n 128 keys for d <= 128,
 *    64 x 64 above; one thread block per key block (seqk-parallel).  Its
 *    causal tiles are those the forward's walk visits on these blocks:
 *    for key block j the query blocks from the diagonal down (the
 *    kernel's m_block_min), the diagonal ones computed in full.
 *  - EFFICIENT, PyTorch's memory-efficient SDPA kernels (xFormers'
 *    CUTLASS FMHA; what PyTorch runs for an attn_mask, for FP32 and
 *    before 8.0): prefill only, from compute capability 5.0; the math per
 *    dtype and architecture (attn_eff_math()), the tiles by PyTorch's
 *    dispatch (attn_eff_tile()), the main loop at FA2's efficiency (no
 *    figure of these kernels exists: a ratio between two GPUs running
 *    them cancels it); an additive bias read once per pair and bias head.
 *  - TRITON, flash-attn's flash_attn_triton.py (llm-foundry's
 *    attn_impl 'triton', run on the pre-MLIR Triton it pins): mma.sync
 *    on every GPU (that Triton has no warpgroup MMA), BLOCK_M = BLOCK_N =
 *    128 forward and backward, num_warps 8 above head dim 64 (one thread
 *    block per SM: 8 warps of ~255 registers fill the register file),
 *    head dims up to 128, no decode kernel; its backward is autotuned
 *    between one program per (sequence, head) and one per key block
 *    (SEQUENCE_PARALLEL): the better-filled grid is taken.
 *  - Decode (split-KV): FA2's flash_fwd_splitkv_kernel, kBlockM 64, kBlockN
 *    256 / 128 / 64 for d <= 64 / <= 128 / more; FA3 (the async class)
 *    runs its forward kernel with splits, at the forward's tiles for a
 *    paged cache (hopper/tile_size.h: 128 x 128 for d 128, 192 x 128 for d
 *    <= 64: tile_size_fwd_sm90 has no smaller kBlockM for one query); the
 *    query heads of a GQA group packed into the rows (FA2's
 *    seqlenq_ngroups_swapped, FA3's PackGQA, FlashInfer's tensor-core
 *    decode), so a group of G heads computes a whole block_m-row tile per
 *    key block: on a part of little tensor throughput per byte the padded
 *    rows make decode compute-bound (the H20, 148 TFLOP/s over 4 TB/s: a
 *    group of 5 fills 5 of 128 rows: 5.9 ms of attention a step of
 *    Qwen2.5-14B at 3.6k tokens x 8, 3.0 with 64-row tiles, 1.6 at the
 *    bytes' rate; the measured step is 18.05 ms); make bench-serving, the
 *    step constant refitted per held-out architecture: H20 Qwen2.5-14B
 *    decode -20.6 / -23.7 % -> -4.3 / -5.7 %, Llama-3.1-70B at TP 8
 *    -4.5 / +8.1 % -> +1.3 / +15.5 %, the latter's GEMMs at 64 rows
 *    already 2 ms over; the H800 stays memory-bound).  The split count
 *    by attention_num_splits over 2 x SMs slots (FA2) or SMs (FA3), at most
 *    128 splits, on the longest sequence's KV blocks.  FlashInfer's
 *    CUDA-core decode kernel (group < 4: SGLang's should_use_tensor_core)
 *    computes on the FP32 units.  When splits > 1 a combine kernel reads
 *    the FP32 partial outputs and log-sum-exps: splits x q x H x (dv + 1)
 *    x 4 bytes, and writes the output.
 *  - FlashInfer decode off the async class (SGLang's backend on Ampere,
 *    Ada and RTX Blackwell; the async class runs FA3's tiles, what
 *    SGLang's fa3 backend runs on Hopper): the tensor-core kernel takes
 *    the packed group as a 16-row query tile (64 above 16 rows, 128 above
 *    64: FI FA2DetermineCtaTileQ), the CUDA-core kernel below a group of
 *    4 (its DecodePlan sizes the grid by the occupancy API, taken as the
 *    tensor-core plan's 2 blocks per SM: unverified; vLLM's FlashInfer
 *    backend takes the tensor-core kernel for every group, not told
 *    apart here); FI's own split plan (attn_fi_chunk(): chunks of at least 128 keys
 *    sized so that the work items fill 2 thread blocks per SM, one item
 *    per request when even that does not fit), the items' FP32 partial
 *    outputs written and merged by VariableLengthMergeStates on every
 *    step (split-KV is on under CUDA graphs).  What it costs per sequence
 *    is small: on PipeWeave's SGLang runs the step grows 4.6-7.8 ms from
 *    8 to 32 sequences of Qwen2.5-14B on the A40, L40, L20, RTX A6000 and
 *    RTX 6000 Ada (predicted 1.8-2.7), and this plan adds 0.1-0.2 ms of
 *    it (A40 at 32 sequences: 11.12 -> 11.33 ms of attention a step: one
 *    thread block per request and head, 256 on 168 slots, the merge's
 *    5 MB of partials); the longest request (4100 keys, one thread block)
 *    would need a block to stream 6.5 GB/s for its tail to make the rest,
 *    and the L40 and RTX 6000 Ada, with the same plan (35 items of 2050
 *    keys) grow by 7.4 and 4.6 ms.  make bench-serving with the compiled-
 *    in constants (--gemm-data none --compiled comm,attn), decode 5.2 ->
 *    5.2 %, whole batch 5.6 -> 5.7.
 *  - MLA decode (DeepSeek's absorbed form, FlashMLA): 64 query heads x 64
 *    keys per step, the latent row (d = kv_lora_rank + rope, V its first
 *    dv) read once per key.
 *  - Thread blocks per SM: 1 for the async class (FA3's kernels take most
 *    of the 227 KB); for mma.sync kernels as many as fit the SM's shared
 *    memory with (block_m d + 2 block_n d) elements each (Q tile, K and V
 *    tiles), at most 2 (4 warps of ~255 registers: 2 x 128 x 255 of the
 *    64 Ki registers).
 * Compute (FLOPs counted on whole tiles: causal diagonal tiles and ragged
 * edges are computed in full, a decode's packed rows padded to block_m):
 *  - the tiles one (sequence, head) visits are counted on the mean
 *    sequence (q / S queries after kv / S - q / S cached keys): for query
 *    block i the keys up to min(kv, prefix + (i + 1) block_m) when causal
 *    (with a sliding window of w keys, from the block of the block's first
 *    row's first key on: Gemma 2/3's local layers), all kv when not, in
 *    blocks of block_n.  e_pad = pairs of that mean
 *    sequence / the tiles' block_m x block_n area; the call computes
 *    P / e_pad pairs per head, so a ragged batch keeps its exact P.
 *  - matrix FLOPs 2 (d + dv) per computed pair and head forward (Q K^T,
 *    P V), 2 (3 d + 2 dv) backward (S recomputed, dP, dV, dQ, dK);
 *    T_mma = FLOPs / (R x eff x e_wave), R = tcgemm_rate_flops() of the
 *    dtype (the rate a huge GEMM reaches on that GPU: its peak, matrix
 *    efficiency and power term), eff = attention_mma_eff, e_wave the wave
 *    quantization of the thread blocks over the SMs (as tcgemm's);
 *  - one exponential per computed pair and head (forward; the backward
 *    recomputes P), on the SMs' multi-function units: 16 per clock per SM
 *    on every compute capability from 5.0 to 9.0 (CUDA C programming
 *    guide, arithmetic instruction throughput: exp2, log2, rcp, rsqrt,
 *    sin, cos); at boost clock that is the 3.9 TFLOP/s of "special
 *    functions" the FA3 paper gives for the H100 SXM5 (16 x 132 x 1.98
 *    GHz = 4.2), against 989 TFLOP/s of BF16 matrix math: with d = 128
 *    the matrix work is 512 FLOPs per exponential, so the exponentials
 *    take half the matrix time at peak (FA3 paper, section 3.1);
 *  - T_compute = T_mma + T_exp in both classes.  The FA3 paper overlaps
 *    the softmax with the products (ping-pong scheduling, section 3.1-
 *    3.2), but its own forward figures (figure 5, BF16, 16k tokens, non-
 *    causal, read from the plot: 497, 648 and 740 TFLOP/s at head dims
 *    64, 128 and 256) fall with the head dim as the serial sum predicts:
 *    the rate each needs on top of the sum is within 3 % of the others
 *    (1.159, 1.180, 1.113 x the old one), where the overlapped max needs
 *    0.61, 0.81 and 0.91 x.  The exponential count stands for all of the
 *    softmax's work (max, rescaling, conversions) that the overlap leaves
 *    exposed.  The Triton kernel's compute time is FA2's model over
 *    attention_triton_share (below).
 * Memory: Q, O read/written once per query and head, K and V once per key
 * and KV head (each thread block of a GQA group reads its KV head from
 * L2 after the first), the latent row once per key for MLA; the backward
 * reads Q, K, V, O, dO and writes dQ, dK, dV (the FP32 dQ accumulation
 * stays in L2).  T_mem = bytes / BW, BW the achievable bandwidth
 * (roofline_bw_bytes: FlashInfer's decode kernels reach close to all of
 * it on long sequences, FlashInfer blog 2024-01-03); a decode with fewer
 * thread blocks than SMs gets what they can issue, min(BW, blocks x 64
 * bytes per clock), and never less time than its longest thread block
 * (the longest sequence's chunk of keys) takes at one SM's 64 bytes per
 * clock.
 * T_fixed: a kernel's launch-to-completion floor, the one vecop.c fits for
 * elementwise kernels (Vidur's FP16 kernels; attn_params.fixed_ns, which a
 * predictor sets from its own vector-op constants), paid again by the
 * combine kernel.
 *
 * The fitted constants, from published kernel figures only (the papers'
 * benchmark: 16k tokens, hidden 2048 (head dim d, 2048 / d heads), non-
 * causal, BF16/FP16; 4 d heads s^2 FLOPs forward, 2.5 x backward):
 *  eff (attention_mma_eff), the main loop's rate relative to tcgemm's GEMM
 *  rate, from the forward at its best:
 *   FA2 on the A100 (cc 8.0), d 128: 230 TFLOP/s (FA2 paper, Dao 2023,
 *     section 4.1: "up to 230 TFLOPs/s", 73 % of 312);
 *   FA3 on the H100 SXM5 (cc 9.0), d 256: 740 TFLOP/s (FA3 paper, Shah
 *     et al. 2024, abstract: "up to 740 TFLOPs/s (75% utilization)").
 *  Fitted on each alone, eff = 1.247 (A100) and 1.313 (H100); each held-
 *  out architecture predicted from the other's fit: the H100's FA3 at 709
 *  TFLOP/s (-4.2 %), the A100's FA2 at 240 (+4.3 %).  The compiled-in
 *  eff (the geometric mean) gives 235 (+2.1 %) and 724 (-2.1 %); FA3 at d
 *  128 and 64 (figures above, not fitted) 611 (-5.7 %) and 480 (-3.5 %).
 *  eff > 1: tcgemm's rate is the share of the GPU's MAMF figure a huge
 *  GEMM of its data reaches (0.891 x 0.869 of the A100's peak, 0.891 x
 *  0.803 of the H100's), below what the best kernels reach on these two.
 *  (Fitted when tcgemm's eff_dt was 0.871 at 1.276, 1.344 and 1.3095;
 *  the products with tcgemm's rate, all the fit sees, are unchanged.)
 *  (With one share of the peak for every GPU, 0.77, the two fitted alone
 *  agreed better: 1.259 and 1.227, +2.2 % and -2.1 % held out; the MAMF
 *  figures put the H100's GEMMs 7.6 % lower against the A100's than its
 *  FA3 kernel stands against FA2.)
 *  attention_bwd_eff, the backward kernel's rate as a share of the
 *  forward's (the backward's five products, its dS elementwise work and
 *  dQ's FP32 accumulation run below the forward's two), from the backward
 *  figures, read from the papers' plots (bar labels at 16k, d 128):
 *   FA2 on the A100: 196 TFLOP/s (FA2 paper, figure 6, "Attention
 *     backward speed on A100"; with the 230 forward it gives 205 forward
 *     + backward, as figure 4's bars);
 *   FA3 on the H100: 561 TFLOP/s (FA3 paper, figure 6, backward, BF16).
 *  (These and the FA3 forward values 497 and 648 above are readings of
 *  the plots, not re-checked against the papers when written: a reading
 *  off by 5 % moves the fit by as much; check them before relying.)
 *  Each alone: 0.716 (A100) and 0.716 (H100) of the joint forward rate;
 *  with eff and the share both fitted on one architecture, the other's
 *  backward is predicted at 561 TFLOP/s on the H100 and 196 on the A100
 *  (0.0 % both: the backward's rate is their product, the same fitted on
 *  either; with one share of the peak for every GPU in tcgemm it was
 *  +7.3 % and -7.1 %).  The compiled-in share (geometric mean, 0.716)
 *  gives 196 and 561 (0.0 %).  The old single constant put the
 *  backward above the forward (its 10 d FLOPs per exponential against 4
 *  d): 230 on the A100, 810 on the H100.
 * Checks, fitted on nothing (tests/check_attention.c keeps them):
 *  - FA3 FP8 on the H100, head dim 256: predicted 1.23 PFLOP/s against
 *    "close to 1.2 PFLOPs/s" (FA3 abstract): +2.7 % (the FP8 kernels' own
 *    overheads, the in-kernel V transpose of section 3.3, not modelled);
 *  - FlashMLA on the H800 (deepseek-ai/FlashMLA README: 3000 GB/s memory-
 *    bound, 580 TFLOP/s compute-bound, later 660): batch 128, 128 heads,
 *    4096 cached tokens: predicted memory-bound at 2960 GB/s (-1 %);
 *  - FA2 on the H100 (what flash-attn's FA2 build, PyTorch's flash SDPA
 *    and HF's flash_attention_2 run there) reaches 35 % of the peak (FA3
 *    paper): mma.sync does not reach the warpgroup MMA's rate, so the
 *    sync class on 9.x/10.x takes a factor of its own (below), fitted on
 *    that one figure; forward + backward then comes out at 297 TFLOP/s
 *    against the FA2 paper's "up to 335 TFLOPs/s" on the H100 (-11 %).
 * No per-kernel attention timing exists in the shared data (Vidur's tables
 * have no attention rows, the Kineto traces no flash kernels, NeuSight's
 * only eager attention), so nothing else is fitted; decode and FlashInfer's
 * and cuDNN's kernels use the constants of their class, unfitted.
 */
#include "predictor/attention.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "predictor/roofline.h"
#include "predictor/tcgemm.h"
#include "predictor/vecop.h"
#include "trace/trace.h"

/* See the fit above. */
#define ATTN_MMA_EFF 1.2794
const double attention_mma_eff = ATTN_MMA_EFF;

/* The backward's main-loop rate as a share of the forward's: see the fit
 * above (the backward figures). */
#define ATTN_BWD_EFF 0.7159
const double attention_bwd_eff = ATTN_BWD_EFF;

/* mma.sync kernels (FA2) on a GPU whose peak needs the asynchronous MMA
 * (9.x, 10.x): the rate above times this, from the FA3 paper's figure
 * of FA2 on the H100, "only 35% utilization" (abstract; taken as its
 * forward at hdim 128, 16k tokens): 346 TFLOP/s.  Fitted on the one
 * architecture it applies to: no held-out check exists.  The FA2 paper's
 * "up to 335 TFLOPs/s" on the H100 (forward + backward) checks it with
 * the backward share (above). */
#define ATTN_SYNC_ON_ASYNC_EFF 0.4731
const double attention_sync_on_async_eff = ATTN_SYNC_ON_ASYNC_EFF;

const struct attn_params attention_default_params = {
	.mma_eff = ATTN_MMA_EFF,
	.sync_on_async_eff = ATTN_SYNC_ON_ASYNC_EFF,
	.bwd_eff = ATTN_BWD_EFF,
};

/* flash-attn's Triton kernel against FA2 on the same shape: FA2 is
 * "1.3-2.5x faster than FlashAttention in Triton" (FA2 paper, Dao 2023,
 * section 4.1, A100, forward + backward over its benchmark grid); the
 * middle of that range on a log scale, 1.80x, as the Triton kernel's
 * share of the speed FA2's model gives on the same tiles.  The figure's
 * bars could not be read here: the stated range is the uncertainty
 * (1.3x and 2.5x are -28 % and +39 % on this share).  That those bars
 * ran flash-attn's own Triton kernel (the one llm-foundry copied) rather
 * than Triton's tutorial kernel is assumed. */
const double attention_triton_share = 1.0 / 1.80;

/* Multi-function unit results (exp2) per clock per SM. */
#define ATTN_MUFU_PER_CLK 16.0

/* Bytes one SM's loads bring in per clock at most: two 32-byte sectors,
 * the per-SM issue limit vecop.h's streaming rate uses. */
#define ATTN_SM_BYTES_PER_CLK 64.0

static double attn_dsize(enum gpu_dtype dt)
{
	return dt == GPU_DT_FP8 ? 1.0 : dt == GPU_DT_FP32 || dt == GPU_DT_TF32 ? 4.0 : 2.0;
}

uint32_t attention_num_splits(double blocks, uint32_t slots, uint32_t n_blocks,
			      uint32_t max_splits)
{
	if (slots == 0 || blocks >= 0.8 * slots)
		return 1;
	if (max_splits > slots)
		max_splits = slots;
	if (max_splits > n_blocks)
		max_splits = n_blocks;
	double best = 0, eff[256];
	if (max_splits > 256)
		max_splits = 256;
	for (uint32_t s = 1; s <= max_splits; s++) {
		int eligible = s == 1 || (n_blocks + s - 1) / s != (n_blocks + s - 2) / (s - 1);
		double n = blocks * s / slots;
		eff[s - 1] = eligible ? n / ceil(n) : 0;
		if (eff[s - 1] > best)
			best = eff[s - 1];
	}
	for (uint32_t s = 1; s <= max_splits; s++)
		if (eff[s - 1] > 0 && eff[s - 1] >= 0.85 * best)
			return s;
	return 1;
}

/* FlashInfer's decode plan (FI scheduler.cuh: PrefillPlan for the
 * tensor-core kernel, DecodePlan for the CUDA-core one).  A work item is
 * one query tile of one request over one chunk of its keys; a thread
 * block runs one item of one KV head.  The plan sizes the grid at 2 thread
 * blocks per SM (num_blocks_per_sm 2), so at most max_batch_size_if_split
 * = 2 SMs / Hkv items: the KV chunk is the smallest (at least 128 tokens
 * at SGLang's page size 1: min_kv_chunk_size = 128 / page_size) whose
 * items fit (PrefillBinarySearchKVChunkSize); when one item per request
 * does not fit, each request is one item (no split).  Under CUDA graphs
 * (the engines' decode) split-KV is on whatever the count, so the merge
 * kernel always runs.  The call carries the sequences' count, their keys'
 * sum and the longest, not each length: a request of L keys makes
 * ceil(L / c) items, exactly S ceil(max / c) when the S lengths are equal,
 * else taken as L / c + 1/2 on the mean (at most S ceil(max / c), at least
 * the longest's ceil(max / c) beside one for each other).  Returns the
 * chunk in keys and sets *items (all requests, one KV head). */
static double attn_fi_items(double S, double kv, double max_kv, double qtiles, double c)
{
	double per_max = ceil(max_kv / c);
	if (kv >= S * max_kv * (1 - 1e-9))
		return qtiles * S * per_max;
	return qtiles * fmax(S - 1 + per_max, fmin(S * per_max, kv / c + S / 2));
}

static double attn_fi_chunk(double S, double kv, double max_kv, double qtiles, double fit,
			    double *items)
{
	double lo = 128, hi = max_kv > 128 ? max_kv : 128;
	if (attn_fi_items(S, kv, max_kv, qtiles, hi) > fit) {
		*items = qtiles * S;
		return hi;
	}
	while (lo < hi) {          /* the smallest chunk whose items fit */
		double mid = floor((lo + hi) / 2);
		if (attn_fi_items(S, kv, max_kv, qtiles, mid) > fit)
			lo = mid + 1;
		else
			hi = mid;
	}
	*items = attn_fi_items(S, kv, max_kv, qtiles, hi);
	return hi;
}

/* FA2's small-shared-memory parts (its is_sm8x: 8.6, 8.7, 8.9), which take
 * narrower tiles than 8.0 and everything from 9.0 on. */
static int attn_sm8x(uint32_t cc)
{
	return cc > 80 && cc < 90;
}

/* Compute capabilities with the asynchronous (warpgroup / tcgen05) MMA that
 * FA3-class kernels use: 9.x and 10.x (12.x, the RTX Blackwell parts, has
 * only mma.sync). */
static int attn_async_arch(uint32_t cc)
{
	return cc >= 90 && cc < 120;
}

/* The forward prefill tile of the class on g (see the top of the file). */
static void attn_fwd_tile(int async, uint32_t cc, uint32_t d, int causal, uint32_t *bm,
			  uint32_t *bn)
{
	if (async) {
		if (d <= 64)
			*bm = 192, *bn = causal ? 128 : 192;
		else if (d <= 128)
			*bm = 128, *bn = causal ? 128 : 176;
		else if (d <= 192)
			*bm = 128, *bn = 112;
		else
			*bm = 128, *bn = 80;
		return;
	}
	if (d <= 64)
		*bm = 128, *bn = 128;
	else if (d <= 128 && !attn_sm8x(cc))
		*bm = 128, *bn = 64;
	else if (d <= 128)
		*bm = causal ? 64 : 128, *bn = causal ? 64 : 32;
	else if (!attn_sm8x(cc))
		*bm = 128, *bn = 64;
	else
		*bm = 64, *bn = 64;
}

/* The share of slots n thread blocks fill in their last wave (all
 * waves): n / (ceil(n / slots) x slots). */
static double attn_fill(double n, double slots)
{
	return n > 0 && slots > 0 ? n / (ceil(n / slots) * slots) : 0;
}

/*
 * A causal prefill's thread blocks do unequal work: forward, query block i
 * visits the key blocks up to its diagonal (i + 1 of them without a
 * prefix), backward, key block j the query blocks from its diagonal down.
 * The SMs take the blocks in launch order as slots free up (a block runs
 * at its own pace whether or not another shares its SM), so the kernel
 * ends with its last slot, not when the work spread evenly would:
 * attn_fill() counts blocks as equal: a single wave ends with the
 * diagonal's longest block while most slots idle.  The share of the
 * slots' time kept busy, total work / (slots x makespan), by list
 * scheduling of the mean sequence's blocks in launch order (FA2's grid
 * m_block, batch, head: a head's query blocks in order, flash_fwd_kernel.h;
 * the backward's key blocks likewise), group after group (sequence,
 * head), up to ATTN_LIST_WAVES waves (beyond them the tail is a small
 * share of the time: attn_fill()).  With every group alike the order
 * hardly matters (shortest or longest first give the same makespan on
 * the shapes of tests/check_attention.c), so one rule serves FA2, FA3's
 * longest-first scheduler, cuDNN, FlashInfer and the Triton kernel.
 * Measured, our H100's causal FA2 SDPA rows
 * (data/NVIDIA_H100_80GB_HBM3/ours/sdpa.csv: 1 x 32 heads x 1024 tokens,
 * head dim 64, one wave of 256 blocks of 1-8 key blocks each, the longest
 * 1.78 x the mean) ran 1.80 x the evenly spread time.  No constant.
 */
#define ATTN_LIST_WAVES 16.0

static void attn_heap_down(double *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < n && h[l] < h[m])
			m = l;
		if (r < n && h[r] < h[m])
			m = r;
		if (m == i)
			return;
		double t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* Key blocks of block_n query block i of a causal call visits: q queries
 * after kv - q cached keys, up to its last row's key; with a sliding
 * window of w keys (0: none) from the block holding its first row's first
 * key, row - w + 1 (FlashAttention's n_block_min for a local mask,
 * window_size_left = w - 1: flash_fwd_kernel.h, hopper/block.h). */
static double attn_qblock_tiles(double i, double q, double kv, double w, uint32_t bm, uint32_t bn)
{
	double prefix = kv - q, keys = prefix + fmin((i + 1) * bm, q);
	double first = w > 0 ? fmax(0, prefix + i * bm - w + 1) : 0;
	return ceil(fmin(keys, kv) / bn) - floor(first / bn);
}

static double attn_causal_fill(double q, double kv, uint32_t bm, uint32_t bn, double groups,
			       double slots, int backward, double fallback)
{
	double per = backward ? ceil(kv / bn) : ceil(q / bm), prefix = kv - q;
	double n = per * groups;
	slots = floor(slots);
	if (!(n > 0) || slots < 1 || n > ATTN_LIST_WAVES * slots || per > 65536)
		return fallback;
	double *size = malloc((size_t)per * sizeof(*size));
	double *slot = malloc((size_t)slots * sizeof(*slot));
	if (!size || !slot) {
		free(size);
		free(slot);
		return fallback;
	}
	for (size_t i = 0; i < (size_t)per; i++) {
		double t;
		if (!backward) {
			t = attn_qblock_tiles((double)i, q, kv, 0, bm, bn);
		} else {
			double r0 = fmax(0, (double)i * bn - prefix);
			t = r0 >= q ? 0 : ceil(q / bm) - floor(r0 / bm);
		}
		size[i] = t;
	}
	memset(slot, 0, (size_t)slots * sizeof(*slot));
	double total = 0, end = 0;
	for (double g = 0; g < groups; g++)
		for (size_t i = 0; i < (size_t)per; i++) {
			slot[0] += size[i];          /* the slot that frees first */
			total += size[i];
			if (slot[0] > end)
				end = slot[0];
			attn_heap_down(slot, (size_t)slots, 0);
		}
	free(size);
	free(slot);
	return end > 0 ? total / (slots * end) : fallback;
}

/* Thread blocks of an mma.sync prefill kernel resident per SM: as many as
 * g's shared memory holds with the Q tile and one K and one V tile each
 * (e bytes an element, head dim d), at most 2: FA2's 4 warps of ~255
 * registers take half the register file; the Triton kernel's 8 warps
 * (num_warps 8 for head dims above 64) take all of it: 1. */
static uint32_t attn_ctas_per_sm(int triton, double d, const struct attn_plan *p, double e,
				 const struct gpu_spec *g)
{
	double tile = (p->block_m * d + 2.0 * p->block_n * d) * e;
	double smem = g->limits ? g->limits->smem_per_sm : 0;
	double most = triton && d > 64 ? 1 : 2;
	return smem > 0 && tile > 0 ? (uint32_t)fmax(1, fmin(most, floor(smem / tile))) : 1;
}

/* Query blocks counted one by one at most; a longer sequence samples this
 * many evenly spaced blocks (a trace may describe any length: the time to
 * plan one must not grow with it). */
#define ATTN_TILE_SAMPLES 4096.0

/* Tiles of block_m x block_n one (sequence, head) of q queries after kv - q
 * cached keys visits; causal: each query block's (attn_qblock_tiles()). */
static double attn_tiles(double q, double kv, int causal, double w, uint32_t bm, uint32_t bn)
{
	double mb = ceil(q / bm), t = 0;
	if (!causal)
		return mb * ceil(kv / bn);
	double step = mb > ATTN_TILE_SAMPLES ? mb / ATTN_TILE_SAMPLES : 1;
	for (double x = 0; x < mb; x += step)
		t += attn_qblock_tiles(floor(x), q, kv, w, bm, bn) * (x + step <= mb ? step : mb - x);
	return t;
}

double attention_pairs(double q_len, double kv_len, int causal, double window)
{
	if (!causal)
		return q_len * kv_len;
	double prefix = kv_len - q_len;
	if (!(window > 0) || window >= kv_len)
		return q_len * (prefix + (q_len + 1) / 2);
	/* the first query sees prefix + 1 keys, each next one one more, up
	 * to the window: m queries below it, the rest at it */
	double first = prefix + 1;
	if (first >= window)
		return q_len * window;
	double m = fmin(q_len, window - first + 1);
	return m * first + m * (m - 1) / 2 + (q_len - m) * window;
}

void attention_init(struct pred_attn *a, enum pred_attn_impl impl, enum pred_attn_form form,
		    int causal, uint32_t heads, uint32_t kv_heads, uint32_t head_dim,
		    uint32_t head_dim_v)
{
	memset(a, 0, sizeof(*a));
	a->impl = impl;
	a->form = form;
	a->causal = causal != 0;
	a->heads = heads;
	a->kv_heads = kv_heads ? kv_heads : heads;
	a->head_dim = head_dim;
	a->head_dim_v = head_dim_v ? head_dim_v : head_dim;
}

int attention_add_seqs(struct pred_attn *a, uint64_t count, uint64_t q_len, uint64_t kv_len)
{
	if (!count || !q_len || kv_len < q_len || count > UINT32_MAX - a->seqs)
		return -1;
	/* a sliding window: the cached keys before the first query's window
	 * are never read */
	if (a->causal && a->window && kv_len - q_len > a->window - 1)
		kv_len = q_len + a->window - 1;
	double q = (double)q_len, kv = (double)kv_len;
	double per = attention_pairs(q, kv, a->causal, (double)a->window);
	a->seqs += (uint32_t)count;
	a->q_tokens += count * q_len;
	a->kv_tokens += count * kv_len;
	if (kv_len > a->max_kv)
		a->max_kv = kv_len;
	a->pairs += (double)count * per;
	return 0;
}

/* The math of PyTorch's memory-efficient kernels on g (its mem_eff_attention
 * gemm_kernel_utils.h, DefaultGemmType, as xFormers wrote it): 16-bit
 * inputs on mma.sync tensor cores from 7.0 (884 on Volta, 1688 on Turing,
 * 16816 from Ampere); FP32 inputs from 8.0 as three TF32 MMAs a product
 * (cutlass's OpMultiplyAddFastF32: the operands split into a TF32 high
 * and low part, FP32 accuracy at a third of the TF32 rate); everything
 * else on the CUDA cores (SIMT).  Written from memory of that file, not
 * checked against it here. */
enum attn_eff_math { ATTN_EFF_TC16, ATTN_EFF_3XTF32, ATTN_EFF_SIMT };

static enum attn_eff_math attn_eff_math(uint32_t cc, enum gpu_dtype dt)
{
	if ((dt == GPU_DT_FP16 || dt == GPU_DT_BF16) && cc >= 70)
		return ATTN_EFF_TC16;
	if ((dt == GPU_DT_FP32 || dt == GPU_DT_TF32) && cc >= 80)
		return ATTN_EFF_3XTF32;
	return ATTN_EFF_SIMT;
}

/* The memory-efficient kernels' tiles, queries x keys of one step, as
 * their names carry them (fmha_cutlassF_f16_aligned_64x128_rf_sm80:
 * kQueriesPerBlock x kKeysPerBlock; fmha_cutlassB_..._128x64_k128_sm80:
 * kBlockSizeI x kBlockSizeJ): PyTorch's dispatch takes the first kernel of
 * its list whose largest head dim (kMaxK) holds the call's.  Forward: 64 x
 * 64 up to head dim 64; up to 128, 64 x 128 for tensor-core 16-bit on 8.0
 * and later (the register-file kernel), else 32 x 128; above 128, 32 x 128
 * (the kernels that keep the output in global memory).  Backward: 128 x
 * 64 for 16-bit on 8.0 and later with head dims 65-128 (their shared
 * memory holds the larger tile), else 64 x 64.  From memory of the
 * kernels' names in profiles and of the dispatch order, not checked here. */
static void attn_eff_tile(uint32_t cc, enum attn_eff_math m, int backward, uint32_t d,
			  uint32_t *bm, uint32_t *bn)
{
	int big = m == ATTN_EFF_TC16 && cc >= 80;
	if (backward) {
		*bm = big && d > 64 && d <= 128 ? 128 : 64;
		*bn = 64;
	} else if (d <= 64) {
		*bm = 64, *bn = 64;
	} else if (d <= 128 && big) {
		*bm = 64, *bn = 128;
	} else {
		*bm = 32, *bn = 128;
	}
}

int attention_plan(const struct pred_kernel *k, const struct gpu_spec *g,
		   const struct tcgemm_params *tc, struct attn_plan *p)
{
	return attention_plan_with(k, g, tc, NULL, p);
}

int attention_plan_with(const struct pred_kernel *k, const struct gpu_spec *g,
			const struct tcgemm_params *tc, const struct attn_params *ap,
			struct attn_plan *p)
{
	if (!ap)
		ap = &attention_default_params;
	if (!k || !g || !p)
		return -1;
	const struct pred_attn *a = &k->attn;
	if (k->op != PRED_OP_ATTENTION || a->impl == PRED_ATTN_NONE ||
	    (unsigned)a->impl >= PRED_ATTN_IMPL_COUNT || (unsigned)a->form >= PRED_ATTN_FORM_COUNT ||
	    !a->seqs || !a->heads || !a->kv_heads || !a->head_dim || !a->q_tokens ||
	    !a->kv_tokens || !(a->pairs > 0) || gpu_cc_is_amd(g->cc) || !g->sms ||
	    !g->boost_clock_mhz)
		return -1;
	/* the memory-efficient kernels are built from 5.0 on (their SIMT
	 * form), every other family needs tensor cores.  FlashAttention-2
	 * and cuDNN's fused attention need 8.0: a prefill asked of them on
	 * an older GPU runs the memory-efficient kernels, what PyTorch's
	 * scaled_dot_product_attention falls back to there (flash-attn's
	 * own package refuses such a GPU; a Kineto trace's flash or cuDNN op
	 * is SDPA's). */
	int efficient = a->impl == PRED_ATTN_EFFICIENT ||
			(g->cc < 80 && a->form == PRED_ATTN_PREFILL &&
			 (a->impl == PRED_ATTN_FLASH || a->impl == PRED_ATTN_FA2 ||
			  a->impl == PRED_ATTN_FA3 || a->impl == PRED_ATTN_CUDNN));
	if (g->cc < (efficient ? 50u : 70u) || (efficient && a->form != PRED_ATTN_PREFILL))
		return -1;
	memset(p, 0, sizeof(*p));
	/* FP8 inputs run at the FP8 rate on the async class only (FA3's FP8
	 * kernels); elsewhere FlashAttention has no FP8 kernel: 16-bit. */
	int triton = a->impl == PRED_ATTN_TRITON;
	int async = attn_async_arch(g->cc) && a->impl != PRED_ATTN_FA2 && !triton;
	/* flash_attn_triton.py asserts head dim <= 128 and runs no decode
	 * kernel of its own */
	if (triton && (a->head_dim > 128 || a->head_dim_v > 128 || a->form != PRED_ATTN_PREFILL))
		return -1;
	enum gpu_dtype dt = k->dtype == GPU_DT_FP8 && async ? GPU_DT_FP8
			    : k->dtype == GPU_DT_FP16 ? GPU_DT_FP16 : GPU_DT_BF16;
	enum attn_eff_math em = ATTN_EFF_TC16;
	if (efficient) {
		/* no warpgroup-MMA kernel: the 8.0 build on 9.x and 10.x */
		async = 0;
		em = attn_eff_math(g->cc, k->dtype == GPU_DT_FP32 || k->dtype == GPU_DT_TF32
					  ? GPU_DT_FP32 : dt);
	}
	double R = em == ATTN_EFF_SIMT ? gpu_fp32_simt_tflops(g) * 1e12
		   : em == ATTN_EFF_3XTF32 ? tcgemm_rate_flops(g, GPU_DT_TF32, tc) / 3.0
		   : tcgemm_rate_flops(g, dt, tc);
	double BW = roofline_bw_bytes(g);
	double mufu = ATTN_MUFU_PER_CLK * g->sms * g->boost_clock_mhz * 1e6;
	if (!(R > 0) || !(BW > 0))
		return -1;
	p->async_mma = async;
	p->impl = efficient ? PRED_ATTN_EFFICIENT
		  : a->impl == PRED_ATTN_FLASH || a->impl == PRED_ATTN_FA3
		  ? (async ? PRED_ATTN_FA3 : PRED_ATTN_FA2) : a->impl;

	double S = a->seqs, H = a->heads, Hkv = a->kv_heads, G = H / Hkv;
	double d = a->head_dim, dv = a->head_dim_v ? a->head_dim_v : a->head_dim;
	double e = attn_dsize(k->dtype), qm = (double)a->q_tokens / S, km = (double)a->kv_tokens / S;
	/* the keys' and values' bytes an element: an FP8 cache's 1 (the
	 * kernel loads it so and converts it in registers), else the dtype's */
	double ekv = a->kv_bytes ? (double)a->kv_bytes : e;
	double sms = g->sms, q = (double)a->q_tokens, kv = (double)a->kv_tokens;
	double per_pair = a->backward ? 2.0 * (3.0 * d + 2.0 * dv) : 2.0 * (d + dv);
	double rows, rows_pad;   /* decode: packed query rows per (seq, KV head) */

	p->ctas_per_sm = 1;
	p->splits = 1;
	p->fixed_ns = ap->fixed_ns > 0 ? ap->fixed_ns : vecop_default_params.floor_ns[VECOP_ELEMENTWISE];
	if (a->form == PRED_ATTN_PREFILL) {
		if (triton) {
			p->block_m = p->block_n = 128;
		} else if (efficient) {
			attn_eff_tile(g->cc, em, a->backward, a->head_dim, &p->block_m, &p->block_n);
		} else if (a->backward) {
			p->block_m = 64;
			p->block_n = d <= 128 ? 128 : 64;
		} else {
			attn_fwd_tile(async, g->cc, a->head_dim, a->causal, &p->block_m, &p->block_n);
		}
		double area = attn_tiles(qm, km, a->causal, (double)a->window, p->block_m,
					 p->block_n) * p->block_m * p->block_n;
		double mean_pairs = attention_pairs(qm, km, a->causal, (double)a->window);
		p->e_pad = area > 0 ? fmin(1.0, mean_pairs / area) : 1;
		p->ctas = a->backward ? S * H * ceil(km / p->block_n) : S * H * ceil(qm / p->block_m);
		/* The memory-efficient backward runs one thread block per
		 * (sequence, head) over its key blocks, the keys split over
		 * more blocks (num_splits_key, dQ accumulated in FP32) while
		 * the grid leaves SMs idle: taken as the split that fills two
		 * blocks per SM, at most one block per key block (unverified:
		 * PyTorch's choice of num_splits_key was not read). */
		if (efficient && a->backward)
			p->ctas = S * H * fmin(ceil(km / p->block_n), fmax(1, floor(2 * sms / (S * H))));
		/* Triton's backward is autotuned between one program per
		 * (sequence, head) looping over the key blocks and one per key
		 * block (SEQUENCE_PARALLEL, dQ by atomic adds): the one that
		 * fills the SMs better (the same work either way) */
		if (triton && a->backward)
			p->ctas = attn_fill(S * H, sms * attn_ctas_per_sm(triton, d, p, e, g)) >
				  attn_fill(p->ctas, sms * attn_ctas_per_sm(triton, d, p, e, g))
				  ? S * H : p->ctas;
		p->mma_flops = per_pair * H * a->pairs / p->e_pad;
		p->exps = H * a->pairs / p->e_pad;
		if (!a->backward)
			p->bytes = e * q * H * (d + dv) + ekv * kv * Hkv * (d + dv);
		else
			p->bytes = e * (2.0 * q * H * (d + dv) + 2.0 * kv * Hkv * (d + dv)) + 4.0 * q * H;
		/* an additive bias: one element per pair of each bias head,
		 * read once (a broadcast bias's heads share it through L2) */
		p->bytes += e * a->bias_heads * qm * km * S;
	} else {
		int mla = a->form == PRED_ATTN_MLA_DECODE;
		double qlen = ceil(qm);
		p->block_m = 64;
		p->block_n = mla ? 64 : d <= 64 ? 256 : d <= 128 ? 128 : 64;
		/* FA3 has no split-KV kernel of its own: its decode is the
		 * forward kernel at the forward's tiles, the paged ones (block_n
		 * 128 for d <= 128, as causal) */
		if (async && !mla)
			attn_fwd_tile(async, g->cc, a->head_dim, 1, &p->block_m, &p->block_n);
		rows = G * qlen;
		int fi = !mla && !async && a->impl == PRED_ATTN_FLASHINFER;
		/* FlashInfer's tensor-core decode runs its prefill kernel with
		 * the packed group as the query tile: 16 rows up to 16 packed
		 * rows, 64 up to 64, else 128 (FI FA2DetermineCtaTileQ, compute
		 * capability 8.0 and up) */
		if (fi)
			p->block_m = rows <= 16 ? 16 : rows <= 64 ? 64 : 128;
		rows_pad = ceil(rows / p->block_m) * p->block_m;
		p->simt = fi && G < 4;
		if (p->simt)
			rows_pad = rows;
		double mblocks = p->simt ? 1 : ceil(rows / p->block_m);
		double kv_row = mla ? d : Hkv * (d + dv);
		p->bytes = e * q * H * (d + dv) + ekv * kv * kv_row;
		if (fi) {
			double items;
			p->chunk_keys = attn_fi_chunk(S, kv, (double)a->max_kv, mblocks, floor(2 * sms / Hkv),
						   &items);
			p->ctas = items * Hkv;
			p->splits = (uint32_t)fmax(1, round(items / (S * mblocks)));
			/* the items' FP32 partial outputs and log-sum-exps,
			 * written by the attention kernel and read by the merge
			 * (VariableLengthMergeStates), which writes the output */
			double part = items * qlen * H * (dv + 1) * 4.0;
			p->bytes += part;
			p->combine_ns = (part + q * H * dv * e) / BW * 1e9 + p->fixed_ns;
		} else {
			uint32_t nblk = (uint32_t)fmin(ceil((double)a->max_kv / p->block_n), 1e9);
			uint32_t slots = (uint32_t)(async || mla ? sms : 2 * sms);
			p->splits = attention_num_splits(S * Hkv * mblocks, slots, nblk, 128);
			p->ctas = S * Hkv * mblocks * p->splits;
			p->chunk_keys = ceil(ceil((double)a->max_kv / p->block_n) / p->splits) * p->block_n;
			if (p->splits > 1) {
				double cb = p->splits * q * H * (dv + 1) * 4.0 + q * H * dv * e;
				p->combine_ns = cb / BW * 1e9 + p->fixed_ns;
			}
		}
		p->e_pad = rows / rows_pad;
		p->mma_flops = per_pair * H * a->pairs / p->e_pad;
		p->exps = H * a->pairs / p->e_pad;
	}
	if (!async && a->form == PRED_ATTN_PREFILL)
		p->ctas_per_sm = attn_ctas_per_sm(triton, d, p, e, g);
	double slots = sms * p->ctas_per_sm;
	p->waves = ceil(p->ctas / slots);
	p->e_wave = attn_fill(p->ctas, slots);
	/* a causal prefill's unequal blocks (attn_causal_fill()) */
	if (a->form == PRED_ATTN_PREFILL && a->causal && !a->window && !efficient) {
		double per = a->backward ? ceil(km / p->block_n) : ceil(qm / p->block_m);
		if (p->ctas == S * H * per)
			p->e_wave = attn_causal_fill(qm, km, p->block_m, p->block_n, S * H, slots,
						     a->backward, p->e_wave);
	}

	p->simt = p->simt || em == ATTN_EFF_SIMT;
	double rate = p->simt ? gpu_fp32_simt_tflops(g) * 1e12 : R * ap->mma_eff;
	if (!async && attn_async_arch(g->cc))
		rate *= ap->sync_on_async_eff;
	if (a->backward)
		rate *= ap->bwd_eff;
	if (!(rate > 0))
		return -1;
	p->mma_ns = p->mma_flops / (rate * p->e_wave) * 1e9;
	p->exp_ns = p->exps / (mufu * p->e_wave) * 1e9;
	p->compute_ns = p->mma_ns + p->exp_ns;
	if (triton)
		p->compute_ns /= attention_triton_share;
	p->mem_ns = p->bytes / BW * 1e9;
	if (a->form != PRED_ATTN_PREFILL) {
		/* fewer thread blocks than SMs pull what their SMs can issue;
		 * the longest one (the longest sequence's chunk) no faster
		 * than one SM, at the clock a memory-bound kernel keeps */
		double sm_rate = fmin(BW, ATTN_SM_BYTES_PER_CLK * gpu_memory_bound_clock_mhz(g) * 1e6);
		double kv_row = a->form == PRED_ATTN_MLA_DECODE ? d : d + dv;
		double longest = fmin((double)a->max_kv, p->chunk_keys) * kv_row * e;
		p->mem_ns = fmax(p->bytes / fmin(BW, p->ctas * sm_rate), longest / sm_rate) * 1e9;
	}
	p->memory_bound = p->mem_ns > p->compute_ns;
	p->ns = fmax(p->compute_ns, p->mem_ns) + p->combine_ns + p->fixed_ns;
	return 0;
}

double attention_model_ns(const struct pred_kernel *k, const struct gpu_spec *g,
			  const struct tcgemm_params *tc)
{
	struct attn_plan p;
	return attention_plan(k, g, tc, &p) == 0 ? p.ns : -1;
}

int attention_predict(const struct pred_kernel *k, const struct gpu_spec *origin,
		      const struct gpu_spec *target, const struct tcgemm_params *tc,
		      struct pred_result *out)
{
	return attention_predict_with(k, origin, target, tc, NULL, out);
}

int attention_predict_with(const struct pred_kernel *k, const struct gpu_spec *origin,
			   const struct gpu_spec *target, const struct tcgemm_params *tc,
			   const struct attn_params *ap, struct pred_result *out)
{
	struct attn_plan pt, po;

	if (!out || attention_plan_with(k, target, tc, ap, &pt) < 0)
		return -1;
	memset(out, 0, sizeof(*out));
	out->gamma = -1;
	out->method = PRED_ATTENTION;
	out->memory_bound = pt.memory_bound;
	out->waves_target = pt.waves;
	out->roofline_ns = roofline_ns(k, target, NULL);
	out->ns = pt.ns;
	if (origin && k->origin_ns > 0) {
		if (attention_plan_with(k, origin, tc, ap, &po) < 0)
			return -1;
		out->waves_origin = po.waves;
		out->ns = k->origin_ns * pt.ns / po.ns;
	}
	return out->ns > 0 ? 0 : -1;
}

/*
 * The fit of attn_params.mma_eff (the top of the file): each published
 * forward figure alone gives the eff at which the model's time of its
 * benchmark call equals the figure's, found by bisection (the time falls
 * as eff grows); the fit is the geometric mean of those not left out.
 * With tcgemm's compiled-in constants and both figures it gives the
 * compiled-in 1.2794 (tests/check_attention.c).
 */
static const struct {
	enum pred_attn_impl impl;
	uint32_t d;
	const char *gpu;
	double tflops;
} attn_fit_figs[] = {
	{ PRED_ATTN_FA2, 128, "a100-sxm4-80", 230 },   /* FA2 paper, section 4.1 */
	{ PRED_ATTN_FA3, 256, "h100-sxm", 740 },       /* FA3 paper, abstract   */
};

double attention_fit_mma_eff(const struct tcgemm_params *tc, const uint32_t *cc_out, size_t ncc)
{
	double logsum = 0;
	int n = 0;
	for (size_t f = 0; f < sizeof(attn_fit_figs) / sizeof(attn_fit_figs[0]); f++) {
		const struct gpu_spec *g = gpu_find(attn_fit_figs[f].gpu);
		if (!g || gpu_cc_in(g->cc, cc_out, ncc))
			continue;
		/* 16k tokens, hidden 2048: 2048 / d heads, non-causal, BF16 */
		struct pred_kernel k;
		memset(&k, 0, sizeof(k));
		uint32_t d = attn_fit_figs[f].d;
		k.op = PRED_OP_ATTENTION;
		k.dtype = GPU_DT_BF16;
		k.attn.impl = attn_fit_figs[f].impl;
		k.attn.form = PRED_ATTN_PREFILL;
		k.attn.seqs = 1;
		k.attn.heads = k.attn.kv_heads = 2048 / d;
		k.attn.head_dim = k.attn.head_dim_v = d;
		k.attn.q_tokens = k.attn.kv_tokens = k.attn.max_kv = 16384;
		k.attn.pairs = 16384.0 * 16384.0;
		double want_ns = 4.0 * 2048 * 16384.0 * 16384.0 / (attn_fit_figs[f].tflops * 1e12) * 1e9;
		double lo = 0.05, hi = 20;
		struct attn_params ap = attention_default_params;
		struct attn_plan p;
		for (int it = 0; it < 100; it++) {
			ap.mma_eff = sqrt(lo * hi);
			if (attention_plan_with(&k, g, tc, &ap, &p) < 0)
				return -1;
			if (p.ns > want_ns)
				lo = ap.mma_eff;
			else
				hi = ap.mma_eff;
		}
		logsum += log(sqrt(lo * hi));
		n++;
	}
	return n ? exp(logsum / n) : -1;
}

void attention_work(const struct pred_attn *a, double esz, int backward, double *flops,
		    double *bytes)
{
	double e = esz, H = a->heads, Hkv = a->kv_heads, d = a->head_dim, dv = a->head_dim_v;
	double q = (double)a->q_tokens, kv = (double)a->kv_tokens;
	double kv_bytes = a->form == PRED_ATTN_MLA_DECODE ? kv * d : kv * Hkv * (d + dv);
	if (!backward) {
		*flops = 2.0 * (d + dv) * H * a->pairs;
		*bytes = e * q * H * (d + dv) + (a->kv_bytes ? a->kv_bytes : e) * kv_bytes;
	} else {
		*flops = 2.0 * (3.0 * d + 2.0 * dv) * H * a->pairs;
		*bytes = e * (2.0 * q * H * (d + dv) + 2.0 * kv_bytes) + 4.0 * q * H;
	}
	/* an additive bias, one element per (query, key) of each sequence
	 * and bias head (the sequences taken as equal) */
	if (a->bias_heads && a->seqs)
		*bytes += e * a->bias_heads * q * kv / a->seqs;
}

void attention_to_trace(const struct pred_attn *a, struct trace_attn *t)
{
	*t = (struct trace_attn){
		.impl = (enum trace_attn_impl)a->impl, .form = (enum trace_attn_form)a->form,
		.backward = a->backward, .causal = a->causal, .seqs = a->seqs, .heads = a->heads,
		.kv_heads = a->kv_heads, .head_dim = a->head_dim, .head_dim_v = a->head_dim_v,
		.q_tokens = a->q_tokens, .kv_tokens = a->kv_tokens, .max_kv = a->max_kv,
		.pairs = a->pairs, .window = a->window, .kv_bytes = a->kv_bytes,
		.bias_heads = a->bias_heads };
}

void attention_from_trace(const struct trace_attn *t, struct pred_attn *a)
{
	*a = (struct pred_attn){
		.impl = (enum pred_attn_impl)t->impl, .form = (enum pred_attn_form)t->form,
		.backward = t->backward, .causal = t->causal, .seqs = t->seqs, .heads = t->heads,
		.kv_heads = t->kv_heads, .head_dim = t->head_dim, .head_dim_v = t->head_dim_v,
		.q_tokens = t->q_tokens, .kv_tokens = t->kv_tokens, .max_kv = t->max_kv,
		.pairs = t->pairs, .window = t->window, .kv_bytes = t->kv_bytes,
		.bias_heads = t->bias_heads };
}
