/*
 * occupancy.c - resident thread blocks per SM of a kernel launch, computed
 * the way the CUDA driver does under default settings, for every compute
 * capability in gpu_specs/cc_limits.csv.  Pure arithmetic on the limits
 * table: no CUDA header or library is needed (the analyzer builds without
 * the toolkit).  tests/check_occupancy.c holds it against NVIDIA's
 * cuda_occupancy.h on randomized launches.
 *
 * The rules (CUDA C++ Programming Guide, "Hardware Multithreading" and
 * "Technical Specifications"; the tuning guides for the carveouts):
 *
 *  - A block takes ceil(threads / 32) warp slots; an SM has
 *    max_warps_per_sm of them and holds at most max_blocks_per_sm blocks.
 *  - Registers are given to warps: regs x 32 rounded up to reg_alloc_unit
 *    (256).  The register file is split evenly among the SM's
 *    sub-partitions (warp_alloc_granularity: 4, or 2 on GP100) and a warp
 *    lives in one, so the SM holds floor(regs_per_sm / parts / per_warp) x
 *    parts warps.  A block fits at all only if per_warp x its warps rounded
 *    up to a multiple of parts is at most max_regs_per_block (the hardware
 *    check assumes every sub-partition allocates at once).  On Pascal a
 *    block must also pass that check with 4 parts, as on GP10x, even on
 *    2-part GP100 (CUDA keeps a kernel that cannot run on one Pascal part
 *    from running on any): 21 warps x 88 registers fits 22 x 2816 = 61952
 *    but not 24 x 2816 = 67584, so it cannot run on a P100.
 *  - Shared memory per block is static + dynamic + the per-block reserve
 *    the driver keeps from cc 8.0 on (1 KB), rounded up to smem_alloc_unit
 *    (256 B before cc 8.0, 128 B after).  The per-block limit is 48 KB plus
 *    the reserve, or the opt-in maximum plus the reserve when the block
 *    asks for more than 48 KB: a kernel that launched with more must have
 *    opted in (cudaFuncAttributeMaxDynamicSharedMemorySize).
 *  - From Volta on the SM's shared memory is a carveout of the unified L1.
 *    The preference (default: none, which means the largest carveout) is
 *    rounded up to the next carveout the hardware offers; if a single block
 *    needs more than the preferred carveout, the smallest carveout that
 *    holds one block is used instead.  Pre-Volta parts have a fixed size.
 *  - Blocks per SM is the smallest of the four limits; 0 if the launch
 *    cannot run (bad block size, too many registers or shared memory).
 */
#include <errno.h>
#include <stdint.h>

#include "gpu_specs/gpu.h"

#define WARP_SIZE 32u
#define SMEM_PER_BLOCK_DEFAULT (48u * 1024u)  /* bytes without opt-in */
#define NO_LIMIT UINT32_MAX

static uint64_t round_up(uint64_t x, uint64_t unit)
{
	return unit ? (x + unit - 1) / unit * unit : x;
}

/* Does a block of warps with per_warp registers each pass the per-block
 * register check when warps are allocated in groups of parts? */
static int regs_fit_block(const struct gpu_cc_limits *lim, uint64_t per_warp,
			  uint32_t warps, uint32_t parts)
{
	return per_warp * round_up(warps, parts) <= lim->max_regs_per_block;
}

/* Blocks per SM allowed by registers; 0 when the block cannot run. */
static uint32_t regs_limit(const struct gpu_cc_limits *lim, uint32_t regs,
			   uint32_t warps)
{
	uint64_t per_warp = round_up((uint64_t)regs * WARP_SIZE, lim->reg_alloc_unit);
	uint32_t parts = lim->warp_alloc_granularity ? lim->warp_alloc_granularity : 1;
	uint64_t warps_per_part;

	if (per_warp == 0)
		return NO_LIMIT;
	if (!regs_fit_block(lim, per_warp, warps, parts))
		return 0;
	if (lim->cc / 10 == 6 && !regs_fit_block(lim, per_warp, warps, 4))
		return 0;
	warps_per_part = lim->regs_per_sm / parts / per_warp;
	return (uint32_t)(warps_per_part * parts / warps);
}

/* Smallest carveout (bytes) holding bytes; 0 when none does. */
static uint64_t carveout_at_least(const struct gpu_cc_limits *lim, uint64_t bytes)
{
	for (uint32_t i = 0; i < lim->ncarveouts; i++) {
		uint64_t c = (uint64_t)lim->carveouts_kb[i] * 1024;

		if (c >= bytes)
			return c;
	}
	return 0;
}

/* Blocks per SM allowed by shared memory; 0 when the block cannot run. */
static uint32_t smem_limit(const struct gpu_cc_limits *lim, uint32_t smem_static,
			   uint32_t smem_dynamic, int carveout_pct)
{
	uint64_t need = (uint64_t)smem_static + smem_dynamic + lim->smem_reserved_per_block;
	uint64_t alloc = round_up(need, lim->smem_alloc_unit);
	uint64_t block_max, pref, sm_smem;

	block_max = need > SMEM_PER_BLOCK_DEFAULT ? lim->smem_per_block_optin
						  : SMEM_PER_BLOCK_DEFAULT;
	if (alloc > block_max + lim->smem_reserved_per_block)
		return 0;
	if (lim->ncarveouts <= 1) {
		sm_smem = lim->smem_per_sm;
	} else {
		pref = carveout_pct < 0 ? lim->smem_per_sm
					: (uint64_t)carveout_pct * lim->smem_per_sm / 100;
		pref = carveout_at_least(lim, pref);
		sm_smem = pref >= alloc ? pref : carveout_at_least(lim, alloc);
		if (sm_smem < alloc)
			return 0;
	}
	if (alloc == 0)
		return NO_LIMIT;
	return (uint32_t)(sm_smem / alloc);
}

int gpu_occupancy_carveout(const struct gpu_cc_limits *lim,
			   uint32_t threads_per_block, uint32_t regs_per_thread,
			   uint32_t smem_static, uint32_t smem_dynamic,
			   int carveout_pct, struct gpu_occupancy *out)
{
	uint32_t warps, by_warps, by_regs, by_smem, blocks;
	enum gpu_occ_limit why;

	if (!lim || !out || carveout_pct < -1 || carveout_pct > 100)
		return -EINVAL;
	*out = (struct gpu_occupancy){ .limited_by = GPU_OCC_INVALID };
	if (threads_per_block == 0 || threads_per_block > lim->max_threads_per_block ||
	    regs_per_thread > lim->max_regs_per_thread || lim->max_warps_per_sm == 0)
		return 0;
	warps = (threads_per_block + WARP_SIZE - 1) / WARP_SIZE;
	by_warps = lim->max_warps_per_sm / warps;
	by_regs = regs_limit(lim, regs_per_thread, warps);
	by_smem = smem_limit(lim, smem_static, smem_dynamic, carveout_pct);

	/* On a tie the slot limits are named first: fewer registers or less
	 * shared memory would not let more blocks in. */
	blocks = by_warps;
	why = GPU_OCC_WARPS;
	if (lim->max_blocks_per_sm < blocks) {
		blocks = lim->max_blocks_per_sm;
		why = GPU_OCC_BLOCKS;
	}
	if (by_regs < blocks) {
		blocks = by_regs;
		why = GPU_OCC_REGS;
	}
	if (by_smem < blocks) {
		blocks = by_smem;
		why = GPU_OCC_SMEM;
	}
	if (blocks == 0)
		return 0;
	out->blocks_per_sm = blocks;
	out->active_warps = blocks * warps;
	out->occupancy = (double)out->active_warps / lim->max_warps_per_sm;
	out->limited_by = why;
	return 0;
}

int gpu_occupancy(const struct gpu_cc_limits *lim, uint32_t threads_per_block,
		  uint32_t regs_per_thread, uint32_t smem_static,
		  uint32_t smem_dynamic, struct gpu_occupancy *out)
{
	return gpu_occupancy_carveout(lim, threads_per_block, regs_per_thread,
				      smem_static, smem_dynamic, -1, out);
}
