/*
 * check_occupancy.c - gpu_occupancy() against hand-computed cases and,
 * when the CUDA toolkit's cuda_occupancy.h is available (HAVE_CUDA_OCC),
 * against NVIDIA's calculator on 33,000 randomized launches (fixed seed)
 * spread over every compute capability of the table, plus edge cases.
 *
 * The reference is given device properties typed here from the CUDA
 * programming guide (what cudaGetDeviceProperties reports), not read from
 * our limits table, so a wrong figure in cc_limits.csv fails the test.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_specs/gpu.h"
#include "tests/check_run.h"

#ifdef HAVE_CUDA_OCC
#include <cuda_occupancy.h>
#endif

#define LAUNCHES_PER_CC 3000

static const struct gpu_cc_limits *cc(uint32_t v)
{
	const struct gpu_cc_limits *l = gpu_cc_find(v);

	ck_assert_msg(l != NULL, "cc %u missing", v);
	return l;
}

static struct gpu_occupancy occ(uint32_t ccv, uint32_t threads, uint32_t regs,
				uint32_t smem, uint32_t dyn, int carveout)
{
	struct gpu_occupancy o;

	ck_assert_int_eq(gpu_occupancy_carveout(cc(ccv), threads, regs, smem, dyn,
						carveout, &o), 0);
	return o;
}

/* ---- hand-computed cases ------------------------------------------- */

/* Each expected value is worked out in the comment from the rules of the
 * programming guide, not taken from the implementation. */
struct hand_case {
	uint32_t cc, threads, regs, smem, dyn;
	int carveout;
	uint32_t blocks;
	enum gpu_occ_limit why;
};

static const struct hand_case hand[] = {
	/* 32 warps/block, 64 slots -> 2; 32 regs: 1024/warp, 16 warps per
	 * quarter -> 64 warps -> 2 as well; tie names warps. */
	{ 80, 1024, 32, 0, 0, -1, 2, GPU_OCC_WARPS },
	/* 64 regs: 2048/warp x 32 warps = 65536 fits; 8 warps/quarter -> 1. */
	{ 80, 1024, 64, 0, 0, -1, 1, GPU_OCC_REGS },
	/* 65 regs: 2080 -> 2304/warp x 32 > 65536: cannot run. */
	{ 80, 1024, 65, 0, 0, -1, 0, GPU_OCC_INVALID },
	/* 255 regs: 8160 -> 8192/warp; 8 warps x 8192 = 65536 fits; 2 warps
	 * per quarter -> 8 warps -> 1 block. */
	{ 90, 256, 255, 0, 0, -1, 1, GPU_OCC_REGS },
	/* 9 warps round up to 12 x 8192 > 65536: cannot run. */
	{ 90, 288, 255, 0, 0, -1, 0, GPU_OCC_INVALID },
	/* 1 warp rounds up to 4 x 8192 = 32768 fits; 8 warps -> 8 blocks. */
	{ 86, 32, 255, 0, 0, -1, 8, GPU_OCC_REGS },
	/* GP100 has 2 register halves: 192 regs = 6144/warp, 32768/6144 = 5
	 * per half -> 10 warps; GP104 has quarters: 16384/6144 = 2 -> 8. */
	{ 60, 32, 192, 0, 0, -1, 10, GPU_OCC_REGS },
	{ 61, 32, 192, 0, 0, -1, 8, GPU_OCC_REGS },
	/* 21 warps x 88 regs (2816/warp) fit GP100's halves (22 x 2816 =
	 * 61952) but not GP10x's quarters (24 x 2816 = 67584): Pascal refuses
	 * it everywhere.  20 warps fit both: 32768/2816 = 11 per half -> 22
	 * warps -> 1 block. */
	{ 60, 669, 88, 0, 0, -1, 0, GPU_OCC_INVALID },
	{ 60, 640, 88, 0, 0, -1, 1, GPU_OCC_REGS },
	/* Tiny blocks: the block-slot limit of each architecture. */
	{ 89, 32, 0, 0, 0, -1, 24, GPU_OCC_BLOCKS },
	{ 86, 32, 0, 0, 0, -1, 16, GPU_OCC_BLOCKS },
	{ 75, 32, 0, 0, 0, -1, 16, GPU_OCC_BLOCKS },
	{ 120, 32, 0, 0, 0, -1, 24, GPU_OCC_BLOCKS },
	{ 100, 32, 0, 0, 0, -1, 32, GPU_OCC_BLOCKS },
	/* Turing: 1024 threads fill the 32 warp slots. */
	{ 75, 1024, 0, 0, 0, -1, 1, GPU_OCC_WARPS },
	/* Ada: 48 slots / 10 warps (320 threads) = 4. */
	{ 89, 320, 0, 0, 0, -1, 4, GPU_OCC_WARPS },
	/* Block sizes that cannot run. */
	{ 80, 1025, 0, 0, 0, -1, 0, GPU_OCC_INVALID },
	{ 80, 0, 0, 0, 0, -1, 0, GPU_OCC_INVALID },
	/* Hopper opt-in maximum: 227 KB + 1 KB reserve = 233472 = the 228 KB
	 * carveout: 1 block; one byte more cannot run. */
	{ 90, 128, 0, 0, 232448, -1, 1, GPU_OCC_SMEM },
	{ 90, 128, 0, 0, 232449, -1, 0, GPU_OCC_INVALID },
	/* A100: 163 KB opt-in split between static and dynamic. */
	{ 80, 128, 0, 49152, 117760, -1, 1, GPU_OCC_SMEM },
	{ 80, 128, 0, 49152, 117761, -1, 0, GPU_OCC_INVALID },
	/* Ampere GA10x: exactly 48 KB + 1 KB reserve = 50176 B, 100 KB SM -> 2. */
	{ 86, 128, 0, 0, 49152, -1, 2, GPU_OCC_SMEM },
	{ 86, 128, 0, 49152, 0, -1, 2, GPU_OCC_SMEM },
	/* Turing: 64 KB is the most a block may have. */
	{ 75, 128, 0, 32768, 32768, -1, 1, GPU_OCC_SMEM },
	{ 75, 128, 0, 32768, 32769, -1, 0, GPU_OCC_INVALID },
	/* Pascal: no opt-in, 48 KB per block. */
	{ 61, 128, 0, 0, 49152, -1, 2, GPU_OCC_SMEM },
	{ 61, 128, 0, 0, 49153, -1, 0, GPU_OCC_INVALID },
	/* Granularity: 3000 B -> 3072 (256 B units) on Volta: 96 KB / 3 KB =
	 * 32, equal to the block limit (named first). */
	{ 70, 32, 0, 0, 3000, -1, 32, GPU_OCC_BLOCKS },
	/* GA10x: 6000 + 1024 = 7024 -> 7040 (128 B units); 102400 / 7040 = 14. */
	{ 86, 64, 0, 6000, 0, -1, 14, GPU_OCC_SMEM },
	/* Carveout preference 0 on A100: 1 KB + 1 KB reserve = 2048 needs the
	 * 8 KB carveout -> 4 blocks.  On Turing the smallest carveout is 32 KB:
	 * 4 KB blocks -> 8 (the default 64 KB would hold 16). */
	{ 80, 64, 0, 1024, 0, 0, 4, GPU_OCC_SMEM },
	{ 75, 32, 0, 4096, 0, 0, 8, GPU_OCC_SMEM },
	{ 75, 32, 0, 4096, 0, -1, 16, GPU_OCC_BLOCKS },
	/* Preference 50% of 228 KB = 114 KB -> the 132 KB carveout; blocks of
	 * 32 KB + 1 KB reserve (33 KB) -> 4. */
	{ 90, 64, 0, 0, 32768, 50, 4, GPU_OCC_SMEM },
};

START_TEST(test_hand_cases)
{
	for (size_t i = 0; i < sizeof hand / sizeof hand[0]; i++) {
		const struct hand_case *h = &hand[i];
		struct gpu_occupancy o = occ(h->cc, h->threads, h->regs, h->smem, h->dyn,
					     h->carveout);
		const struct gpu_cc_limits *l = cc(h->cc);
		uint32_t warps = (h->threads + 31) / 32;

		ck_assert_msg(o.blocks_per_sm == h->blocks && o.limited_by == h->why,
			      "case %zu (cc %u, %u threads, %u regs, %u+%u smem): got %u by %s, want %u by %s",
			      i, h->cc, h->threads, h->regs, h->smem, h->dyn, o.blocks_per_sm,
			      gpu_occ_limit_name(o.limited_by), h->blocks,
			      gpu_occ_limit_name(h->why));
		ck_assert_uint_eq(o.active_warps, h->blocks * warps);
		ck_assert_double_eq_tol(o.occupancy,
					(double)h->blocks * warps / l->max_warps_per_sm, 1e-12);
	}
}
END_TEST

START_TEST(test_bad_arguments)
{
	struct gpu_occupancy o;
	const struct gpu_cc_limits *l = cc(80);

	ck_assert_int_eq(gpu_occupancy(NULL, 128, 32, 0, 0, &o), -EINVAL);
	ck_assert_int_eq(gpu_occupancy(l, 128, 32, 0, 0, NULL), -EINVAL);
	ck_assert_int_eq(gpu_occupancy_carveout(l, 128, 32, 0, 0, 101, &o), -EINVAL);
	ck_assert_int_eq(gpu_occupancy_carveout(l, 128, 32, 0, 0, -2, &o), -EINVAL);
	/* 256 registers exceed the ISA's 255 (the reference header admits
	 * 256 from cc 7.0 on, a value no compiled kernel can have). */
	ck_assert_int_eq(gpu_occupancy(l, 32, 256, 0, 0, &o), 0);
	ck_assert_uint_eq(o.blocks_per_sm, 0);
	ck_assert_int_eq(o.limited_by, GPU_OCC_INVALID);
	/* Huge shared memory must not wrap around. */
	ck_assert_int_eq(gpu_occupancy(l, 32, 0, UINT32_MAX, UINT32_MAX, &o), 0);
	ck_assert_uint_eq(o.blocks_per_sm, 0);
	ck_assert_int_eq(gpu_occupancy(l, UINT32_MAX, UINT32_MAX, 0, 0, &o), 0);
	ck_assert_uint_eq(o.blocks_per_sm, 0);
}
END_TEST

/* Every GPU's limits are a known compute capability. */
START_TEST(test_every_gpu_has_limits)
{
	size_t n;
	const struct gpu_spec *g = gpu_all(&n);

	for (size_t i = 0; i < n; i++) {
		ck_assert_ptr_nonnull(g[i].limits);
		ck_assert_ptr_eq(g[i].limits, gpu_cc_find(g[i].cc));
	}
}
END_TEST

#ifdef HAVE_CUDA_OCC

/* What cudaGetDeviceProperties reports per compute capability (CUDA C++
 * Programming Guide, Technical Specifications per Compute Capability). */
struct devprops {
	uint32_t cc;
	int threads_per_sm;
	size_t smem_per_sm, smem_optin, reserved;
};

static const struct devprops props_table[] = {
	{ 52, 2048, 96 * 1024, 48 * 1024, 0 },
	{ 60, 2048, 64 * 1024, 48 * 1024, 0 },
	{ 61, 2048, 96 * 1024, 48 * 1024, 0 },
	{ 70, 2048, 96 * 1024, 96 * 1024, 0 },
	{ 75, 1024, 64 * 1024, 64 * 1024, 0 },
	{ 80, 2048, 164 * 1024, 163 * 1024, 1024 },
	{ 86, 1536, 100 * 1024, 99 * 1024, 1024 },
	{ 87, 1536, 164 * 1024, 163 * 1024, 1024 },
	{ 89, 1536, 100 * 1024, 99 * 1024, 1024 },
	{ 90, 2048, 228 * 1024, 227 * 1024, 1024 },
	{ 100, 2048, 228 * 1024, 227 * 1024, 1024 },
	{ 120, 1536, 100 * 1024, 99 * 1024, 1024 },
};

static const struct devprops *props_for(uint32_t ccv)
{
	for (size_t i = 0; i < sizeof props_table / sizeof props_table[0]; i++)
		if (props_table[i].cc == ccv)
			return &props_table[i];
	return NULL;
}

/* Blocks per SM and limiting-factor bits from NVIDIA's calculator; the
 * launch is described as an opted-in kernel whose maximum dynamic shared
 * memory is what it uses, as the runtime describes a launched kernel. */
static int reference(const struct devprops *p, int threads, int regs, size_t smem,
		     size_t dyn, int carveout, int barriers, unsigned *factors)
{
	cudaOccDeviceProp prop;
	cudaOccFuncAttributes attr;
	cudaOccDeviceState state;
	cudaOccResult res;

	memset(&prop, 0, sizeof prop);
	memset(&attr, 0, sizeof attr);
	memset(&state, 0, sizeof state);
	memset(&res, 0, sizeof res);
	prop.computeMajor = (int)(p->cc / 10);
	prop.computeMinor = (int)(p->cc % 10);
	prop.maxThreadsPerBlock = 1024;
	prop.maxThreadsPerMultiprocessor = p->threads_per_sm;
	prop.regsPerBlock = p->cc == 52 ? 32768 : 65536;   /* 32K on GM20x only */
	prop.regsPerMultiprocessor = 65536;
	prop.warpSize = 32;
	prop.sharedMemPerBlock = 48 * 1024;
	prop.sharedMemPerMultiprocessor = p->smem_per_sm;
	prop.numSms = 1;
	prop.sharedMemPerBlockOptin = p->smem_optin;
	prop.reservedSharedMemPerBlock = p->reserved;
	attr.maxThreadsPerBlock = 1024;
	attr.numRegs = regs;
	attr.sharedSizeBytes = smem;
	attr.partitionedGCConfig = PARTITIONED_GC_OFF;
	attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
	attr.maxDynamicSharedSizeBytes = dyn;
	attr.numBlockBarriers = barriers;
	state.cacheConfig = CACHE_PREFER_NONE;
	state.carveoutConfig = carveout;
	*factors = 0;
	if (cudaOccMaxActiveBlocksPerMultiprocessor(&res, &prop, &attr, &state, threads,
						    dyn) != CUDA_OCC_SUCCESS)
		return 0;
	*factors = res.limitingFactors;
	return res.activeBlocksPerMultiprocessor;
}

static unsigned factor_bit(enum gpu_occ_limit l)
{
	switch (l) {
	case GPU_OCC_WARPS: return OCC_LIMIT_WARPS;
	case GPU_OCC_REGS: return OCC_LIMIT_REGISTERS;
	case GPU_OCC_SMEM: return OCC_LIMIT_SHARED_MEMORY;
	case GPU_OCC_BLOCKS: return OCC_LIMIT_BLOCKS;
	default: return 0;
	}
}

/* splitmix64: a fixed, portable sequence. */
static uint64_t rng_state;

static uint64_t rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t below(uint32_t n)
{
	return n ? (uint32_t)(rng() % n) : 0;
}

/* Shared memory near the interesting limits of p, or anywhere. */
static void random_smem(const struct devprops *p, uint32_t *smem, uint32_t *dyn)
{
	uint32_t optin = (uint32_t)p->smem_optin;
	uint32_t total;

	switch (below(6)) {
	case 0:
		*smem = 0;
		*dyn = 0;
		return;
	case 1:  /* within 48 KB, static only */
		*smem = below(48 * 1024 + 1);
		*dyn = 0;
		return;
	case 2:  /* a few hundred bytes around the opt-in limit */
		total = optin - 512 + below(1024);
		break;
	case 3:  /* a few hundred bytes around 48 KB */
		total = 48 * 1024 - 512 + below(1024);
		break;
	case 4:  /* multiples of 1 KB up to a bit beyond the limit */
		total = 1024 * below(optin / 1024 + 3);
		break;
	default: /* anything up to a bit beyond the limit */
		total = below(optin + 4096);
		break;
	}
	*smem = below(2) ? below((total < 48 * 1024 ? total : 48 * 1024) + 1) : 0;
	*dyn = total - *smem;
}

static uint32_t random_threads(void)
{
	switch (below(8)) {
	case 0: return 1024;
	case 1: return 1 + below(32);
	case 2: return 1025 + below(64);   /* cannot run */
	case 3: return 32 * (1 + below(32));
	default: return 1 + below(1024);
	}
}

static uint32_t random_regs(void)
{
	switch (below(6)) {
	case 0: return 255;
	case 1: return 0;
	case 2: return 8 * below(32);      /* what compilers typically emit */
	default: return below(256);
	}
}

START_TEST(test_against_cuda_occupancy)
{
	size_t n;
	const struct gpu_cc_limits *all = gpu_cc_all(&n);
	unsigned long checked = 0, nonzero = 0, zero = 0;

	rng_state = 20260101;
	ck_assert_uint_ge(n, 10);
	for (size_t c = 0; c < n; c++) {
		const struct gpu_cc_limits *l = &all[c];
		if (gpu_cc_is_amd(l->cc))
			continue;  /* no CUDA reference for an AMD CU */
		const struct devprops *p = props_for(l->cc);

		ck_assert_msg(p != NULL, "no reference device properties for cc %u", l->cc);
		for (int i = 0; i < LAUNCHES_PER_CC; i++) {
			uint32_t threads = random_threads(), regs = random_regs(), smem, dyn;
			int carveout = below(5) == 0 ? (int)below(101) : -1;
			int barriers = (int)below(2);
			struct gpu_occupancy o;
			unsigned factors;
			int want;

			random_smem(p, &smem, &dyn);
			want = reference(p, (int)threads, (int)regs, smem, dyn, carveout,
					 barriers, &factors);
			ck_assert_int_eq(gpu_occupancy_carveout(l, threads, regs, smem, dyn,
								carveout, &o), 0);
			ck_assert_msg(o.blocks_per_sm == (uint32_t)want,
				      "cc %u: %u threads, %u regs, %u static + %u dynamic smem, "
				      "carveout %d: got %u blocks, cuda_occupancy.h says %d",
				      l->cc, threads, regs, smem, dyn, carveout,
				      o.blocks_per_sm, want);
			if (want > 0) {
				ck_assert_msg(factors & factor_bit(o.limited_by),
					      "cc %u: %u threads, %u regs, %u+%u smem: limited_by %s "
					      "is not among the reference's factors 0x%x",
					      l->cc, threads, regs, smem, dyn,
					      gpu_occ_limit_name(o.limited_by), factors);
				nonzero++;
			} else {
				ck_assert_int_eq(o.limited_by, GPU_OCC_INVALID);
				zero++;
			}
			checked++;
		}
	}
	ck_assert_uint_ge(checked, 10000);
	/* The sample must exercise both runnable and impossible launches. */
	ck_assert_uint_ge(zero, checked / 4);
	ck_assert_uint_ge(nonzero, checked / 4);
	fprintf(stderr, "check_occupancy: %lu randomized launches over %zu compute "
		"capabilities agree with cuda_occupancy.h (%lu cannot run)\n",
		checked, n, zero);
}
END_TEST

/* Exhaustive over block size and registers on each cc, no shared memory:
 * the register and warp rules on their own. */
START_TEST(test_exhaustive_regs_threads)
{
	size_t n;
	const struct gpu_cc_limits *all = gpu_cc_all(&n);

	for (size_t c = 0; c < n; c++) {
		if (gpu_cc_is_amd(all[c].cc))
			continue;
		const struct devprops *p = props_for(all[c].cc);

		ck_assert_ptr_nonnull(p);
		for (uint32_t t = 32; t <= 1024; t += 32) {
			for (uint32_t r = 0; r <= 255; r += 3) {
				struct gpu_occupancy o;
				unsigned f;
				int want = reference(p, (int)t, (int)r, 0, 0, -1, 0, &f);

				ck_assert_int_eq(gpu_occupancy(&all[c], t, r, 0, 0, &o), 0);
				ck_assert_msg(o.blocks_per_sm == (uint32_t)want,
					      "cc %u, %u threads, %u regs: got %u, want %d",
					      all[c].cc, t, r, o.blocks_per_sm, want);
			}
		}
	}
}
END_TEST

/* Our limits table agrees with the device properties typed above. */
START_TEST(test_limits_match_device_properties)
{
	size_t n;
	const struct gpu_cc_limits *all = gpu_cc_all(&n);

	for (size_t c = 0; c < n; c++) {
		if (gpu_cc_is_amd(all[c].cc))
			continue;
		const struct devprops *p = props_for(all[c].cc);

		ck_assert_ptr_nonnull(p);
		ck_assert_uint_eq(all[c].max_threads_per_sm, (uint32_t)p->threads_per_sm);
		ck_assert_uint_eq(all[c].max_warps_per_sm * 32, (uint32_t)p->threads_per_sm);
		ck_assert_uint_eq(all[c].smem_per_sm, p->smem_per_sm);
		ck_assert_uint_eq(all[c].smem_per_block_optin, p->smem_optin);
		ck_assert_uint_eq(all[c].smem_reserved_per_block, p->reserved);
	}
}
END_TEST

#endif /* HAVE_CUDA_OCC */

static Suite *occupancy_suite(void)
{
	Suite *s = suite_create("occupancy");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_hand_cases);
	tcase_add_test(tc, test_bad_arguments);
	tcase_add_test(tc, test_every_gpu_has_limits);
#ifdef HAVE_CUDA_OCC
	tcase_add_test(tc, test_against_cuda_occupancy);
	tcase_add_test(tc, test_exhaustive_regs_threads);
	tcase_add_test(tc, test_limits_match_device_properties);
#else
	fprintf(stderr, "check_occupancy: cuda_occupancy.h not found (set CUDA_HOME): "
		"skipping the comparison with NVIDIA's calculator\n");
#endif
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(occupancy_suite());
}
