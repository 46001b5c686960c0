/*
 * attn_name.c - attention_from_name(): the shape of a FlashAttention-2
 * kernel from its name and grid.
 *
 * Why: PyTorch's scaled_dot_product_attention (its flash backend, which
 * bundles FlashAttention-2 as pytorch_flash::) and the flash-attn package
 * (flash::) launch their kernels from their own code, through no library
 * call the recorder hooks, so a recorded trace has the kernel and its grid
 * but no shape, and its attention went to wave scaling: compute and
 * bandwidth weighed half and half whatever the shape.  Between our H200
 * and H100 that put every long attention about 20 % slow where the two ran
 * the same kernels within 2-7 % of each other (compute-bound, equal tensor
 * rates): 31.4 / 28.2 % -> 9.7 / 10.2 % on our SDPA rows, forward / forward
 * and backward (`surfer-bench own --origin`, docs/attention.md, "Recorded
 * traces").  A profiler trace's SDPA ops carry their shapes and go through
 * the importer instead (docs/import.md); this is for kernels without one.
 *
 * What FlashAttention-2's launch templates give (csrc/flash_attn/src/
 * flash_fwd_launch_template.h and flash_bwd_launch_template.h; PyTorch's
 * copy the same), with B sequences, H heads, S queries and keys:
 *   flash_fwd_kernel<Flash_fwd_kernel_traits<d, Bm, Bn, warps, ...>,
 *                    Is_dropout, Is_causal, ...>             grid (ceil(S/Bm), B, H)
 *   flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<
 *       d, Bm, Bn, ...>, Is_dropout, Is_causal, ...>         grid (ceil(S/Bn), B, H)
 *   flash_bwd_dot_do_o_kernel<Clear_dQaccum, traits>,
 *   flash_bwd_convert_dq_kernel<traits>                      grid (ceil(S/Bm), B, H)
 *   flash_bwd_clear_dkvaccum_kernel, flash_bwd_convert_dkv_kernel
 *                                                            grid (ceil(S/Bn), B, H)
 * The forward and the main backward kernel do the attention's work and
 * take the attention model (their shape in a); the backward's others
 * stream O and dO (dot_do_o: their row sums, and the FP32 dQ accumulator
 * zeroed) or the FP32 dQ or dK/dV accumulators (the converts) once, and
 * are told apart (2) so that the caller counts them as such: as
 * FlashAttention's own benchmark leaves them out of the backward's FLOPs.
 * The traits' first three integers are the head dim and the two tiles;
 * each traits struct holds two bools of its own (Is_Q_in_regs and
 * Share_Q_K_smem; Is_V_in_regs and No_double_buffer), so Is_causal is the
 * fourth bool of the name in the forward and main backward kernels (their
 * template lists have kept Is_dropout, Is_causal first since 2.0).  The
 * other backward kernels do not say; they stream O and dO or dQ once and
 * are taken as not causal.  The name may be mangled (the recorder's:
 * Li128E for an integer, Lb1E for true) or demangled (a profiler's: 128,
 * true).
 *
 * What is assumed: keys as many as queries (self-attention: the grid
 * gives one length, to a tile: S is rounded up to Bm or Bn), KV heads as
 * many as query heads (a GQA group's K and V read once per group would be
 * fewer bytes; prefill attention is compute-bound, and a ratio across GPUs
 * moves little with it).  Not read: the split-KV forward (its grid folds
 * sequences and heads together, and the cache length it reads is not in
 * the launch), FlashAttention-3's persistent kernels (a grid of SMs),
 * cuDNN's and the memory-efficient kernels (their names give no head dim).
 */
#include "predictor/attention.h"

#include <ctype.h>
#include <string.h>

/* The next integer literal at or after *p: Li128E in a mangled name, 128
 * in a demangled one; -1 at the end. */
static long next_int(const char **p)
{
	const char *s = *p;
	while (*s && !isdigit((unsigned char)*s))
		s++;
	if (!*s)
		return -1;
	long v = 0;
	for (; isdigit((unsigned char)*s) && v < 1000000; s++)
		v = v * 10 + (*s - '0');
	*p = s;
	return v;
}

/* The n-th (1-based) bool literal of the name: Lb0E / Lb1E mangled,
 * false / true demangled; -1 when it has fewer. */
static int nth_bool(const char *name, int n)
{
	for (const char *s = name; *s; s++) {
		int v = -1;
		if (s[0] == 'L' && s[1] == 'b' && (s[2] == '0' || s[2] == '1') && s[3] == 'E')
			v = s[2] == '1';
		else if (s > name && (isalnum((unsigned char)s[-1]) || s[-1] == '_'))
			continue;   /* inside a word */
		else if (!strncmp(s, "true", 4) && !isalnum((unsigned char)s[4]) && s[4] != '_')
			v = 1;
		else if (!strncmp(s, "false", 5) && !isalnum((unsigned char)s[5]) && s[5] != '_')
			v = 0;
		if (v >= 0 && --n == 0)
			return v;
	}
	return -1;
}

int attention_from_name(const char *name, const uint32_t grid[3], struct pred_attn *a)
{
	if (!name || !grid || !a || !strstr(name, "flash_") || strstr(name, "splitkv"))
		return -1;
	/* the backward kernels that walk the keys: the main one, and the
	 * dK/dV accumulators' clear and convert */
	int seqk = strstr(name, "seqk_parallel") != NULL, dkv = strstr(name, "dkv") != NULL;
	int backward;
	const char *traits = strstr(name, "Flash_fwd_kernel_traits");
	if (traits && strstr(name, "flash_fwd_kernel"))
		backward = 0;
	else if ((traits = strstr(name, "Flash_bwd_kernel_traits")) != NULL &&
		 (seqk || dkv || strstr(name, "dot_do_o") || strstr(name, "convert_dq")))
		backward = 1;   /* not the old loop kernel: its grid is (B, H) */
	else
		return -1;
	const char *p = traits + strlen("Flash_fwd_kernel_traits");
	long d = next_int(&p), bm = next_int(&p), bn = next_int(&p);
	if (d < 16 || d > 512 || bm < 16 || bm > 256 || bn < 16 || bn > 256)
		return -1;
	/* the grid's first dimension counts query tiles (Bm) or, in the
	 * kernels that walk the keys, key tiles (Bn) */
	uint64_t tile = (uint64_t)(backward && (seqk || dkv) ? bn : bm);
	int main_loop = !backward || seqk;
	int causal = main_loop && nth_bool(name, 4) == 1;
	if (!grid[0] || !grid[1] || !grid[2])
		return -1;
	uint64_t S = (uint64_t)grid[0] * tile;
	struct pred_attn n;
	attention_init(&n, PRED_ATTN_FA2, PRED_ATTN_PREFILL, causal, grid[2], grid[2], (uint32_t)d, 0);
	if (attention_add_seqs(&n, grid[1], S, S) < 0)
		return -1;
	n.backward = (uint8_t)backward;
	*a = n;
	return main_loop ? backward : 2;
}
