/*
 * check_gpu.c - the compiled GPU table: unique ids, names and aliases,
 * figures within sane bounds and consistent with each other, lookups by the
 * names the CUDA driver reports, suggestions for typos, derived bandwidths
 * and the --list-gpus output (text and JSON).
 */
#include <check.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "gpu_specs/die.h"
#include "gpu_specs/figures.h"
#include "gpu_specs/gpu.h"
#include "tests/check_run.h"

/* The documented key rule, written again here: lower case, no ' ', '-'
 * or '_', no leading "nvidia" and then no leading "tesla"/"geforce". */
static void norm(const char *s, char *out, size_t size)
{
	char tmp[256];
	size_t n = 0;
	const char *p;

	for (; *s && n + 1 < sizeof tmp; s++)
		if (!strchr(" -_\t", *s))
			tmp[n++] = (char)tolower((unsigned char)*s);
	tmp[n] = '\0';
	p = tmp;
	if (strncmp(p, "nvidia", 6) == 0)
		p += 6;
	if (strncmp(p, "tesla", 5) == 0)
		p += 5;
	else if (strncmp(p, "geforce", 7) == 0)
		p += 7;
	snprintf(out, size, "%s", p);
}

struct key {
	const char *text;
	const struct gpu_spec *gpu;
};

static size_t all_keys(struct key *keys, size_t max)
{
	size_t n, k = 0;
	const struct gpu_spec *g = gpu_all(&n);

	for (size_t i = 0; i < n; i++) {
		ck_assert_uint_lt(k + 2, max);
		keys[k++] = (struct key){ g[i].id, &g[i] };
		keys[k++] = (struct key){ g[i].name, &g[i] };
		for (const char *const *a = g[i].aliases; *a; a++) {
			ck_assert_uint_lt(k, max);
			keys[k++] = (struct key){ *a, &g[i] };
		}
	}
	return k;
}

START_TEST(test_keys_unique)
{
	static struct key keys[1024];
	size_t n = all_keys(keys, 1024);

	for (size_t i = 0; i < n; i++) {
		char a[256], b[256];

		norm(keys[i].text, a, sizeof a);
		ck_assert_msg(a[0] != '\0', "empty key '%s'", keys[i].text);
		/* every key finds its own GPU */
		ck_assert_msg(gpu_find(keys[i].text) == keys[i].gpu,
			      "'%s' does not find %s", keys[i].text, keys[i].gpu->id);
		for (size_t j = i + 1; j < n; j++) {
			norm(keys[j].text, b, sizeof b);
			if (keys[i].gpu != keys[j].gpu) {
				ck_assert_msg(strcmp(a, b) != 0,
					      "'%s' (%s) and '%s' (%s) are the same name",
					      keys[i].text, keys[i].gpu->id, keys[j].text,
					      keys[j].gpu->id);
			} else if (keys[i].text != keys[i].gpu->name) {
				/* within one GPU only the spelling may differ (an
				 * alias may repeat the name: it is the driver's) */
				ck_assert_msg(strcasecmp(keys[i].text, keys[j].text) != 0,
					      "%s lists '%s' twice", keys[i].gpu->id,
					      keys[i].text);
			}
		}
	}
}
END_TEST

/* Every id, name and alias of two words or more, its words reversed
 * ("NVIDIA A100-SXM4-80GB" as "80GB SXM4 A100 NVIDIA"), finds its own GPU:
 * no two GPUs have names of the same words. */
START_TEST(test_words_any_order)
{
	static struct key keys[1024];
	size_t n = all_keys(keys, 1024), checked = 0;

	for (size_t i = 0; i < n; i++) {
		char copy[256], rev[256] = "";
		char *words[32], *save = NULL;
		size_t nw = 0;

		snprintf(copy, sizeof copy, "%s", keys[i].text);
		for (char *w = strtok_r(copy, " -_", &save); w && nw < 32; w = strtok_r(NULL, " -_", &save))
			words[nw++] = w;
		if (nw < 2)
			continue;
		for (size_t k = nw; k-- > 0;) {
			strncat(rev, words[k], sizeof rev - strlen(rev) - 1);
			if (k)
				strncat(rev, " ", sizeof rev - strlen(rev) - 1);
		}
		ck_assert_msg(gpu_find(rev) == keys[i].gpu, "'%s' (from '%s') does not find %s",
			      rev, keys[i].text, keys[i].gpu->id);
		checked++;
	}
	ck_assert_uint_gt(checked, 100);
}
END_TEST

START_TEST(test_ids_well_formed)
{
	size_t n;
	const struct gpu_spec *g = gpu_all(&n);

	ck_assert_uint_ge(n, 33);
	for (size_t i = 0; i < n; i++)
		for (const char *p = g[i].id; *p; p++)
			ck_assert_msg(islower((unsigned char)*p) || isdigit((unsigned char)*p) ||
				      *p == '-', "id '%s'", g[i].id);
}
END_TEST

/* FP32 lanes per SM (CUDA programming guide, arithmetic instructions; an
 * AMD CU's four 16-lane SIMDs). */
static double fp32_lanes(uint32_t cc)
{
	if (gpu_cc_is_amd(cc))
		return 64;
	switch (cc) {
	case 60: case 70: case 75: case 80: return 64;
	default: return 128;
	}
}

#define IN(v, lo, hi) ck_assert_msg((v) >= (lo) && (v) <= (hi), \
	"%s: %s = %g not in [%g, %g]", g->id, #v, (double)(v), (double)(lo), (double)(hi))

START_TEST(test_figures_sane)
{
	size_t n;
	const struct gpu_spec *all = gpu_all(&n);

	for (size_t i = 0; i < n; i++) {
		const struct gpu_spec *g = &all[i];
		const double *t = g->peak_tflops;
		double expect_fp32;

		ck_assert_ptr_nonnull(gpu_cc_find(g->cc));
		ck_assert_msg(g->name[0] && g->source[0], "%s: empty name or source", g->id);
		int amd = gpu_cc_is_amd(g->cc);
		IN(g->sms, 10, amd ? 320 : 200);
		IN(g->base_clock_mhz, 500, 2400);
		IN(g->boost_clock_mhz, 1000, 3000);
		/* AMD publishes the peak engine clock only (base = boost) */
		ck_assert_msg(amd ? g->base_clock_mhz == g->boost_clock_mhz :
			      g->base_clock_mhz < g->boost_clock_mhz, "%s: base, boost", g->id);
		IN(g->mem_gb, 8, amd ? 256 : 200);
		IN(g->mem_bw_gbps, 150, 10000);
		if (g->mem_bw_measured_gbps > 0) {
			IN(g->mem_bw_measured_gbps, 0.6 * g->mem_bw_gbps, g->mem_bw_gbps);
		}
		IN(g->l2_mb, 1, 160);
		IN(t[GPU_DT_FP32], 4, 150);
		IN(t[GPU_DT_FP64], 0.1, amd ? 100 : 50);
		/* FP32 peak = 2 FLOP x lanes x SMs x boost clock, within 15% (the
		 * H20's datasheet 44 TF with 78 SMs is the farthest, 11%). */
		expect_fp32 = 2 * fp32_lanes(g->cc) * g->sms * g->boost_clock_mhz * 1e-6;
		ck_assert_msg(fabs(t[GPU_DT_FP32] / expect_fp32 - 1) < 0.15,
			      "%s: fp32 %.1f TF but %u SMs at %u MHz give %.1f", g->id,
			      t[GPU_DT_FP32], g->sms, g->boost_clock_mhz, expect_fp32);
		if (amd) {
			/* CDNA: FP16, BF16 and INT8 matrix rates from gfx908 on,
			 * TF32 (xf32) and FP8 from gfx942 (MI300) on, no FP4 */
			int cdna3 = g->cc >= GPU_CC_AMD + 0x940;
			ck_assert_msg((t[GPU_DT_TF32] > 0) == cdna3, "%s: tf32", g->id);
			ck_assert_msg((t[GPU_DT_FP8] > 0) == cdna3, "%s: fp8", g->id);
			ck_assert_msg(t[GPU_DT_FP4] == 0, "%s: fp4", g->id);
			IN(t[GPU_DT_FP16], 7.5 * t[GPU_DT_FP32], 16.5 * t[GPU_DT_FP32]);
			IN(t[GPU_DT_BF16], 0.5 * t[GPU_DT_FP16], t[GPU_DT_FP16]);
			IN(t[GPU_DT_INT8], t[GPU_DT_FP16], 2.001 * t[GPU_DT_FP16]);
			ck_assert_uint_eq(g->pcie_lanes, 16);
			IN(g->tdp_w, 250, 1000);
			continue;
		}
		/* Dtypes exist from the architecture that introduced them. */
		ck_assert_msg((t[GPU_DT_TF32] > 0) == (g->cc >= 80), "%s: tf32", g->id);
		ck_assert_msg((t[GPU_DT_BF16] > 0) == (g->cc >= 80), "%s: bf16", g->id);
		ck_assert_msg((t[GPU_DT_FP8] > 0) == (g->cc >= 89), "%s: fp8", g->id);
		ck_assert_msg((t[GPU_DT_FP4] > 0) == (g->cc >= 100), "%s: fp4", g->id);
		/* no FP16 arithmetic on GM20x (cc 5.2); 1/64 rate on GP10x (6.1) */
		ck_assert_msg((t[GPU_DT_FP16] > 0) == (g->cc != 61 && g->cc != 52), "%s: fp16", g->id);
		if (g->cc >= 70) {
			/* tensor cores: each narrower type at least as fast
			 * (datasheets round, hence the slack) */
			IN(t[GPU_DT_FP16], 1.95 * t[GPU_DT_FP32], 3000);
			if (t[GPU_DT_TF32] > 0) {
				IN(t[GPU_DT_TF32], 0, t[GPU_DT_FP16]);
				IN(t[GPU_DT_BF16], t[GPU_DT_FP16], t[GPU_DT_FP16]);
			}
			IN(t[GPU_DT_INT8], t[GPU_DT_FP16] * (g->cc == 70 ? 0.4 : 1), 6000);
			if (t[GPU_DT_FP8] > 0) {
				IN(t[GPU_DT_FP8], t[GPU_DT_FP16], 2.03 * t[GPU_DT_FP16]);
			}
			if (t[GPU_DT_FP4] > 0) {
				IN(t[GPU_DT_FP4], t[GPU_DT_FP8], 4 * t[GPU_DT_FP8]);
			}
		}
		if (g->pcie_gen == 0) {
			ck_assert_uint_eq(g->pcie_lanes, 0);
		} else {
			IN(g->pcie_gen, 3, 6);
			ck_assert_uint_eq(g->pcie_lanes, 16);
		}
		IN(g->nvlink_gbps, 0, 1800);
		/* an NVLink domain joins 2 (bridged cards), 8 (boards) or 72 */
		ck_assert_msg((g->nvlink_gbps > 0) == (g->nvlink_peers > 0), "%s: NVLink %g GB/s, %u peers",
			      g->id, g->nvlink_gbps, g->nvlink_peers);
		ck_assert_msg(g->nvlink_peers == 0 || g->nvlink_peers == 2 || g->nvlink_peers == 8 ||
			      g->nvlink_peers == 72, "%s: %u peers", g->id, g->nvlink_peers);
		IN(g->tdp_w, 60, 1500);
	}
}
END_TEST

/* Figures the research notes warn about. */
START_TEST(test_known_traps)
{
	ck_assert_uint_eq(gpu_find("l4")->sms, 58);
	ck_assert_double_eq(gpu_find("h100-sxm")->mem_bw_gbps, 3350);
	ck_assert_uint_eq(gpu_find("p4")->sms, 20);
	ck_assert_uint_eq(gpu_find("h100-sxm")->boost_clock_mhz, 1980);
}
END_TEST

/* The AD102 boards' tensor rates with FP32 accumulation, per SM and clock
 * (dense BF16 FLOP): the L40 and L20 datasheets give 512, and the RTX 6000
 * Ada takes theirs, not its datasheet's 364.2 TFLOP/s (1024: the rate with
 * FP16 accumulation), which PipeWeave's runs contradict (its prefill is
 * slower than the L40's on the same prompts); TF32 at half, FP8 and INT8
 * at twice, as on the L40. */
static double per_sm_clock(const struct gpu_spec *g, enum gpu_dtype dt)
{
	return g->peak_tflops[dt] * 1e6 / ((double)g->sms * g->boost_clock_mhz);
}

START_TEST(test_ada_tensor_rates)
{
	const struct gpu_spec *ada = gpu_find("rtx-6000-ada"), *l40 = gpu_find("l40"), *l20 = gpu_find("l20");
	ck_assert_ptr_nonnull(ada);
	ck_assert_ptr_nonnull(l40);
	ck_assert_ptr_nonnull(l20);
	ck_assert_double_eq_tol(per_sm_clock(l40, GPU_DT_BF16), 512, 2);
	ck_assert_double_eq_tol(per_sm_clock(l20, GPU_DT_BF16), 512, 5);
	static const enum gpu_dtype dts[] = { GPU_DT_TF32, GPU_DT_FP16, GPU_DT_BF16, GPU_DT_FP8, GPU_DT_INT8 };
	for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++) {
		double a = per_sm_clock(ada, dts[i]), l = per_sm_clock(l40, dts[i]);
		ck_assert_msg(fabs(a / l - 1) < 0.005, "dtype %d: RTX 6000 Ada %.1f, L40 %.1f per SM and clock",
			      (int)dts[i], a, l);
	}
}
END_TEST

START_TEST(test_find_driver_names)
{
	static const char *const cases[][2] = {
		{ "Tesla T4", "t4" },
		{ "Tesla P4", "p4" },
		{ "Tesla P100-PCIE-16GB", "p100-pcie" },
		{ "Tesla V100-PCIE-32GB", "v100-pcie-32" },
		{ "Tesla V100-SXM2-16GB", "v100-sxm2-16" },
		{ "NVIDIA A100-PCIE-40GB", "a100-pcie-40" },
		{ "NVIDIA A100 80GB PCIe", "a100-pcie-80" },
		{ "NVIDIA A100-SXM4-40GB", "a100-sxm4-40" },
		{ "NVIDIA A100-SXM4-80GB", "a100-sxm4-80" },
		{ "NVIDIA H100 80GB HBM3", "h100-sxm" },
		{ "NVIDIA H100 PCIe", "h100-pcie" },
		{ "NVIDIA H100 NVL", "h100-nvl" },
		{ "NVIDIA H200", "h200" },
		{ "NVIDIA H200 NVL", "h200-nvl" },
		{ "NVIDIA L4", "l4" },
		{ "NVIDIA GeForce RTX 4090", "rtx-4090" },
		{ "NVIDIA H800", "h800" },
		{ "NVIDIA H20", "h20" },
		/* case, separators and vendor prefixes do not matter */
		{ "nvidia a100-sxm4-80gb", "a100-sxm4-80" },
		{ "TESLA t4", "t4" },
		{ "a100_sxm4_80gb", "a100-sxm4-80" },
		{ "A100 PCIE 40GB", "a100-pcie-40" },
		{ "RTX 4090", "rtx-4090" },
		{ "L40S", "l40s" },
		/* the same words in another order, as inventories write them */
		{ "A100-80GB-SXM4", "a100-sxm4-80" },
		{ "A100-40GB-PCIe", "a100-pcie-40" },
		{ "80 GB A100 SXM4", "a100-sxm4-80" },
		{ "Tesla V100 32GB PCIe", "v100-pcie-32" },
		/* short forms */
		{ "a100", "a100-sxm4-40" },
		{ "h100", "h100-sxm" },
		{ "NVIDIA H100", "h100-sxm" },
		{ "v100", "v100-sxm2-16" },
		{ "p100", "p100-pcie" },
		{ "t4", "t4" },
		{ "b200", "b200" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct gpu_spec *g = gpu_find(cases[i][0]);

		ck_assert_msg(g != NULL, "'%s' not found", cases[i][0]);
		ck_assert_str_eq(g->id, cases[i][1]);
	}
	ck_assert_ptr_null(gpu_find(NULL));
	ck_assert_ptr_null(gpu_find(""));
	ck_assert_ptr_null(gpu_find("NVIDIA"));
	ck_assert_ptr_null(gpu_find("h1000"));
	/* words of two boards (16 and 32 GB) name neither */
	ck_assert_ptr_null(gpu_find("V100-PCIe"));
	ck_assert_ptr_null(gpu_find("A100 SXM4"));
	/* a word too many or too few is not the same words */
	ck_assert_ptr_null(gpu_find("A100-80GB-SXM4-HGX"));
	/* what such words may mean: every GPU with a name holding them */
	const char *ids[4];
	ck_assert_uint_eq(gpu_named_by("V100-PCIe", ids, 4), 2);
	ck_assert_str_eq(ids[0], "v100-pcie-16");
	ck_assert_str_eq(ids[1], "v100-pcie-32");
	ck_assert_uint_eq(gpu_named_by("sxm4 a100", ids, 4), 2);
	ck_assert_uint_eq(gpu_named_by("A100-80GB-SXM4", ids, 4), 1);
	ck_assert_str_eq(ids[0], "a100-sxm4-80");
	ck_assert_uint_eq(gpu_named_by("RTX", ids, 1), 10);  /* counted past max */
	ck_assert_uint_eq(gpu_named_by("A100-80GB-SXM4-HGX", ids, 4), 0);
	ck_assert_uint_eq(gpu_named_by("NVIDIA", ids, 4), 0);
	/* a form factor without its generation, and the memory a board's
	 * figures hold where its names do not say it */
	ck_assert_uint_eq(gpu_named_by("A100 SXM", ids, 4), 2);
	ck_assert_str_eq(ids[0], "a100-sxm4-40");
	ck_assert_str_eq(ids[1], "a100-sxm4-80");
	ck_assert_uint_eq(gpu_named_by("H100 SXM 80GB", ids, 4), 1);
	ck_assert_str_eq(ids[0], "h100-sxm");
	ck_assert_uint_eq(gpu_named_by("H100 SXM5 80GB HBM3", ids, 4), 1);
	ck_assert_str_eq(ids[0], "h100-sxm");
	ck_assert_uint_eq(gpu_named_by("L40S 48GB", ids, 4), 1);
	ck_assert_str_eq(ids[0], "l40s");
	ck_assert_uint_eq(gpu_named_by("L40S 96GB", ids, 4), 0);   /* not its memory */
	ck_assert_uint_eq(gpu_named_by("A100 SXMX", ids, 4), 0);
	ck_assert_ptr_null(gpu_find("Radeon MI300X"));
}
END_TEST

static int suggested(const char *name, const char *id, size_t within)
{
	const char *out[8];
	size_t n = gpu_suggest(name, out, within);

	for (size_t i = 0; i < n; i++)
		if (strcmp(out[i], id) == 0)
			return 1;
	return 0;
}

START_TEST(test_suggest)
{
	const char *out[64];
	size_t n;

	gpu_all(&n);
	ck_assert(suggested("a100-sxm-80", "a100-sxm4-80", 1));
	ck_assert(suggested("rtx409", "rtx-4090", 1));
	ck_assert(suggested("h10", "h100-sxm", 3));
	/* a typo in a family name suggests the family */
	ck_assert(suggested("h1000", "h100-sxm", 1));
	ck_assert(suggested("h1000", "h100-pcie", 3));
	ck_assert(suggested("h1000", "h100-nvl", 3));
	ck_assert(suggested("rtx4009", "rtx-4090", 1));  /* transposition */
	ck_assert(suggested("Tesla V100-PCIE-32G", "v100-pcie-32", 1));
	ck_assert(suggested("h1oo", "h100-sxm", 1));
	ck_assert(suggested("a6000ada", "rtx-a6000", 3));
	ck_assert(suggested("l40z", "l40s", 2));
	ck_assert(suggested("l40z", "l40", 2));
	ck_assert_uint_eq(gpu_suggest("x", out, 0), 0);
	ck_assert_uint_eq(gpu_suggest(NULL, out, 3), 0);
	ck_assert_uint_eq(gpu_suggest("x", out, 3), 3);
	ck_assert_uint_eq(gpu_suggest("x", out, 64), n);
	/* a very long name does not overflow anything */
	char big[4096];
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	ck_assert_uint_eq(gpu_suggest(big, out, 2), 2);
	ck_assert_ptr_null(gpu_find(big));
}
END_TEST

START_TEST(test_cc_table)
{
	size_t n;
	const struct gpu_cc_limits *l = gpu_cc_all(&n);
	static const uint32_t needed[] = { 60, 61, 70, 75, 80, 86, 89, 90, 100, 120 };

	for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++)
		ck_assert_msg(gpu_cc_find(needed[i]) != NULL, "cc %u", needed[i]);
	ck_assert_ptr_null(gpu_cc_find(81));
	ck_assert_ptr_null(gpu_cc_find(0));
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			ck_assert_uint_gt(l[i].cc, l[i - 1].cc);
		ck_assert_uint_eq(l[i].max_warps_per_sm * 32, l[i].max_threads_per_sm);
		if (gpu_cc_is_amd(l[i].cc)) {
			/* a CU: 64 KB of LDS, 512 VGPRs, 4 SIMDs x 512 x 64 lanes */
			ck_assert_uint_eq(l[i].smem_per_sm, 65536);
			ck_assert_uint_eq(l[i].max_regs_per_thread, 512);
			ck_assert_uint_eq(l[i].regs_per_sm, 4 * 512 * 64);
			continue;
		}
		ck_assert_uint_eq(l[i].max_regs_per_thread, 255);
		ck_assert_uint_eq(l[i].smem_alloc_unit, l[i].cc >= 80 ? 128 : 256);
		ck_assert_uint_eq(l[i].smem_reserved_per_block, l[i].cc >= 80 ? 1024 : 0);
		ck_assert_uint_eq(l[i].carveouts_kb[l[i].ncarveouts - 1] * 1024, l[i].smem_per_sm);
		ck_assert_uint_eq(l[i].smem_per_block_optin + l[i].smem_reserved_per_block,
				  l[i].cc >= 70 ? l[i].smem_per_sm : 48 * 1024);
	}
}
END_TEST

/* AMD Instinct parts: found by the names ROCm's PyTorch reports, cc as
 * the gfx target, FP32 GEMMs at the matrix units' rate. */
START_TEST(test_amd)
{
	const struct gpu_spec *mi210 = gpu_find("AMD Instinct MI210"),
			      *mi250 = gpu_find("AMD_Instinct_MI250"), *mi300 = gpu_find("mi300x"),
			      *a100 = gpu_find("a100-pcie-40");
	char cc[16];

	ck_assert_ptr_nonnull(mi210);
	ck_assert_ptr_nonnull(mi250);
	ck_assert_ptr_nonnull(mi300);
	ck_assert_str_eq(mi250->id, "mi250");
	ck_assert(gpu_cc_is_amd(mi210->cc) && !gpu_cc_is_amd(a100->cc));
	ck_assert_str_eq(gpu_cc_string(mi210->cc, cc, sizeof cc), "gfx90a");
	ck_assert_str_eq(gpu_cc_string(mi300->cc, cc, sizeof cc), "gfx942");
	ck_assert_str_eq(gpu_cc_string(a100->cc, cc, sizeof cc), "8.0");
	ck_assert_ptr_eq(mi210->limits, gpu_cc_find(GPU_CC_AMD + 0x90a));
	ck_assert_double_eq_tol(gpu_fp32_simt_tflops(mi210), 22.6, 1e-12);
	ck_assert_double_eq_tol(gpu_fp32_gemm_tflops(mi210), 45.2, 1e-12);
	ck_assert_double_eq_tol(gpu_fp32_gemm_tflops(mi300), 163.4, 1e-12);
	ck_assert_double_eq_tol(gpu_fp32_gemm_tflops(a100), gpu_fp32_simt_tflops(a100), 1e-12);
	ck_assert_double_eq(gpu_matrix_eff(mi300), GPU_AMD_MATRIX_EFF);
	ck_assert_double_eq(gpu_matrix_eff(a100), 1);
	/* One GCD: half the module's 208 CUs and 128 GB. */
	ck_assert_uint_eq(mi250->sms, 104);
	ck_assert_double_eq(mi250->mem_gb, 64);
}
END_TEST

START_TEST(test_bandwidths)
{
	size_t n;
	const struct gpu_spec *g = gpu_all(&n);
	double ratios[64];
	size_t m = 0;

	ck_assert_double_eq(gpu_mem_bw_eff_gbps(gpu_find("t4")), 239);
	ck_assert_double_eq_tol(gpu_mem_bw_eff_gbps(gpu_find("h100-sxm")), 3350 * 0.89, 1e-9);
	ck_assert_double_eq(gpu_mem_bw_eff_gbps(NULL), 0);
	/* The default efficiency is the median of the measured ratios (of the
	 * NVIDIA parts; AMD's two measured parts give AMD's default). */
	ck_assert_double_eq_tol(gpu_mem_bw_eff_gbps(gpu_find("mi300x")), 5300 * 0.85, 1e-9);
	ck_assert_double_eq(gpu_mem_bw_eff_gbps(gpu_find("mi100")), 1044);
	ck_assert_double_eq_tol(GPU_MEM_BW_EFF_DEFAULT_AMD, 1044 / 1228.8, 0.01);
	ck_assert_double_eq_tol(GPU_MEM_BW_EFF_DEFAULT_AMD, 1399 / 1638.4, 0.01);
	for (size_t i = 0; i < n; i++)
		if (g[i].mem_bw_measured_gbps > 0 && m < 64 && !gpu_cc_is_amd(g[i].cc))
			ratios[m++] = g[i].mem_bw_measured_gbps / g[i].mem_bw_gbps;
	ck_assert_uint_ge(m, 5);
	for (size_t i = 1; i < m; i++)
		for (size_t j = i; j > 0 && ratios[j - 1] > ratios[j]; j--) {
			double t = ratios[j];
			ratios[j] = ratios[j - 1];
			ratios[j - 1] = t;
		}
	double median = m % 2 ? ratios[m / 2] : (ratios[m / 2 - 1] + ratios[m / 2]) / 2;
	ck_assert_double_eq_tol(GPU_MEM_BW_EFF_DEFAULT, median, 0.02);

	/* PCIe x16: 8, 16, 32 GT/s with 128b/130b coding. */
	ck_assert_double_eq_tol(gpu_host_link_gbps(gpu_find("t4")), 8.0 * 16 * 128 / 130 / 8, 1e-9);
	ck_assert_double_eq_tol(gpu_host_link_gbps(gpu_find("a100")), 31.507692, 1e-5);
	ck_assert_double_eq_tol(gpu_host_link_gbps(gpu_find("h100")), 63.015385, 1e-5);
	ck_assert_double_eq(gpu_host_link_gbps(gpu_find("gh200")), 450);
	ck_assert_double_eq(gpu_host_link_gbps(NULL), 0);
}
END_TEST

/* The kind of DRAM and in-band ECC (gpus.c): GDDR6 boards whose driver
 * size shows the 1/16 reserved for check bits carry data on 15/16 of the
 * pins' rate; gpu-benches measured the A40 and L40 with ECC off (reads
 * past 15/16 of the datasheet), the boards of the table run it on; a GDDR6
 * board measured by no one takes the median of those two (663/696 and
 * 816/864), 15/16 of it with ECC on; HBM, GDDR7 and boards of unknown
 * size keep the NVIDIA median. */
START_TEST(test_ecc_bandwidth)
{
	ck_assert_int_eq(gpu_mem_hbm(gpu_find("h100-sxm")), 1);
	ck_assert_int_eq(gpu_mem_hbm(gpu_find("v100-sxm2-16")), 1);
	ck_assert_int_eq(gpu_mem_hbm(gpu_find("b200")), 1);
	ck_assert_int_eq(gpu_mem_hbm(gpu_find("mi300x")), 1);
	ck_assert_int_eq(gpu_mem_hbm(gpu_find("a40")), 0);
	ck_assert_int_eq(gpu_mem_hbm(gpu_find("rtx-pro-6000-blackwell")), 0);
	ck_assert_int_eq(gpu_mem_hbm(NULL), 0);
	ck_assert_int_eq(gpu_mem_ecc_inband(gpu_find("a40")), 1);
	ck_assert_int_eq(gpu_mem_ecc_inband(gpu_find("l20")), 1);
	ck_assert_int_eq(gpu_mem_ecc_inband(gpu_find("t4")), 1);
	ck_assert_int_eq(gpu_mem_ecc_inband(gpu_find("rtx-a6000")), 0);
	ck_assert_int_eq(gpu_mem_ecc_inband(gpu_find("rtx-6000-ada")), 0);
	ck_assert_int_eq(gpu_mem_ecc_inband(gpu_find("h100-sxm")), -1);
	ck_assert_int_eq(gpu_mem_ecc_inband(gpu_find("rtx-4090")), -1);

	double gddr = (663.0 / 696 + 816.0 / 864) / 2;
	ck_assert_double_eq_tol(GPU_MEM_BW_EFF_GDDR, gddr, 0.001);
	ck_assert_double_eq_tol(gpu_mem_bw_eff_gbps(gpu_find("a40")), 663 * 15.0 / 16, 1e-9);
	ck_assert_double_eq_tol(gpu_mem_bw_eff_gbps(gpu_find("l40")), 816 * 15.0 / 16, 1e-9);
	/* measured below 15/16 of the datasheet: with ECC on already */
	ck_assert_double_eq(gpu_mem_bw_eff_gbps(gpu_find("t4")), 239);
	ck_assert_double_eq(gpu_mem_bw_eff_gbps(gpu_find("l4")), 254);
	ck_assert_double_eq_tol(gpu_mem_bw_eff_gbps(gpu_find("rtx-a6000")), 768 * GPU_MEM_BW_EFF_GDDR, 1e-9);
	ck_assert_double_eq_tol(gpu_mem_bw_eff_gbps(gpu_find("l20")),
				864 * GPU_MEM_BW_EFF_GDDR * 15 / 16, 1e-9);
	ck_assert_double_eq_tol(gpu_mem_bw_eff_gbps(gpu_find("rtx-4090")), 1008 * 0.89, 1e-9);
	ck_assert_double_eq_tol(gpu_mem_bw_eff_gbps(gpu_find("rtx-pro-6000-blackwell")), 1792 * 0.89, 1e-9);
	/* the two boards of a die: the ECC-off one at least the datasheets'
	 * ratio faster, and by the check bits' share more */
	double r = gpu_mem_bw_eff_gbps(gpu_find("rtx-6000-ada")) / gpu_mem_bw_eff_gbps(gpu_find("l40"));
	ck_assert_msg(r > 960.0 / 864 * 16 / 15 * 0.99, "6000 Ada / L40 %.3f", r);

	/* Kernel-level sources first: a device table's figure gives way to the
	 * rule the same board would take unmeasured; a gpu-stream figure
	 * stays, and every other model keeps the table's figure. */
	const struct gpu_spec *t4 = gpu_find("t4"), *a40 = gpu_find("a40");
	struct gpu_spec bare = *t4;
	bare.mem_bw_measured_gbps = 0;
	ck_assert_int_eq(gpu_mem_bw_devices_file(t4), 1);
	ck_assert_int_eq(gpu_mem_bw_devices_file(a40), 0);
	ck_assert_int_eq(gpu_mem_bw_devices_file(&bare), 0);
	ck_assert_int_eq(gpu_mem_bw_devices_file(NULL), 0);
	ck_assert_double_eq(gpu_mem_bw_kernel_gbps(t4), gpu_mem_bw_eff_gbps(&bare));
	ck_assert(gpu_mem_bw_kernel_gbps(t4) > gpu_mem_bw_eff_gbps(t4));
	ck_assert_double_eq(gpu_mem_bw_kernel_gbps(a40), gpu_mem_bw_eff_gbps(a40));
	ck_assert_double_eq(gpu_mem_bw_kernel_gbps(NULL), 0);
}
END_TEST

/* Every measured bandwidth whose source is a device table (Habitat's
 * devices.yml, CentML's devices.csv) is marked so, and no other. */
START_TEST(test_mem_bw_sources)
{
	size_t n;
	const struct gpu_spec *all = gpu_all(&n);
	for (size_t i = 0; i < n; i++) {
		/* the source's "measured bw: ..." item, up to the next ';' */
		const char *m = all[i].source ? strstr(all[i].source, "measured bw") : NULL;
		char item[256] = "";
		if (m)
			snprintf(item, sizeof item, "%.*s", (int)strcspn(m, ";"), m);
		int devices = all[i].mem_bw_measured_gbps > 0 &&
			      (strstr(item, "devices.csv") || strstr(item, "devices.yml"));
		ck_assert_msg(gpu_mem_bw_devices_file(&all[i]) == devices, "%s: %d, source '%s'",
			      all[i].id, gpu_mem_bw_devices_file(&all[i]), all[i].source);
	}
}
END_TEST

/* Memory as the driver reports it: every figure the table has is a part of
 * the marketed size (GDDR6 with ECC keeps 1/16, HBM about 1 %), named in
 * the source; what a program can use is less by the context's share;
 * unknown figures fall back below the marketed GiB. */
START_TEST(test_memory)
{
	size_t n;
	const struct gpu_spec *all = gpu_all(&n);
	const double MiB = 1048576.0, GiB = 1073741824.0;

	for (size_t i = 0; i < n; i++) {
		const struct gpu_spec *g = &all[i];
		double total = gpu_mem_bytes(g), usable = gpu_mem_usable_bytes(g);
		if (g->mem_mib > 0) {
			ck_assert_double_eq(total, g->mem_mib * MiB);
			IN(g->mem_mib / 1024, 0.92 * g->mem_gb, g->mem_gb);
			ck_assert_msg(strstr(g->source, "mem: ") != NULL, "%s: memory source", g->id);
		} else {
			ck_assert_double_eq(total, g->mem_gb * GiB * GPU_MEM_UNKNOWN_RATIO);
		}
		double reserve = gpu_mem_reserve_bytes(g, NULL);
		IN(reserve / MiB, 250, 1024);
		ck_assert_double_eq(usable, total - reserve);
	}
	/* L4: 23034 MiB as nvidia-smi reports it, under 22.6 GiB usable
	 * (the 24 GB of the datasheet would hold a 23.3 GiB model) */
	const struct gpu_spec *l4 = gpu_find("l4");
	ck_assert_double_eq(gpu_mem_bytes(l4), 23034 * MiB);
	ck_assert(gpu_mem_usable_bytes(l4) < 22.6 * GiB);
	ck_assert(gpu_mem_usable_bytes(l4) > 21.5 * GiB);
	/* the A100 40GB as torch.profiler traces recorded it */
	ck_assert_double_eq(gpu_mem_bytes(gpu_find("NVIDIA A100-PG509-200")), 42297524224.0);
	const char *src = NULL;
	gpu_mem_reserve_bytes(l4, &src);
	ck_assert_ptr_nonnull(src);
}
END_TEST

START_TEST(test_names)
{
	ck_assert_str_eq(gpu_dtype_name(GPU_DT_BF16), "bf16");
	ck_assert_str_eq(gpu_dtype_name(GPU_DT_FP4), "fp4");
	ck_assert_str_eq(gpu_dtype_name(GPU_DT_COUNT), "unknown");
	ck_assert_str_eq(gpu_occ_limit_name(GPU_OCC_SMEM), "shared_memory");
	ck_assert_str_eq(gpu_occ_limit_name(GPU_OCC_INVALID), "invalid");
}
END_TEST

static char *capture(int json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(gpu_list_print(f, json), 0);
	fclose(f);
	return buf;
}

/* The FP32 rate code can issue: 64-lane SMs and Pascal's 128-lane GP104
 * the datasheet figure; parts with 128 FP32 lanes per SM from cc 8.6 on
 * the FMA rate gpu-benches' gpu-roofline measured (GFLOP/s at the clock
 * it ran, over the datasheet rate at that clock) relative to the A100's,
 * on the GPU itself or its die, else the median of the measured ones.
 * GEMMs run at the same rate on NVIDIA, Hopper's included. */
START_TEST(test_fp32_simt)
{
	const double a100 = 19192.0 / 19500;              /* 1410 MHz = boost */
	const double a40 = 23723.0 / (37.4e3 * 1725 / 1740);
	const double l40 = 50855.0 / (90.5e3 * 2220 / 2490);
	const double h200 = 42558.0 / 67e3;               /* 1980 MHz = boost */
	const double med = h200;                          /* a40 > h200 > l40 */
	static const char *const full[] = {"a100-sxm4-80", "v100-pcie-32", "t4", "p4"};
	const struct { const char *id; double eff; } derated[] = {
		{"a40", a40 / a100}, {"l40", l40 / a100}, {"h200", h200 / a100},
		{"h100-sxm", h200 / a100},                /* the H200's die (132 SMs) */
		{"h100-pcie", med / a100}, {"l4", med / a100}, {"rtx-3090", med / a100},
	};
	ck_assert(a40 > h200 && h200 > l40);
	for (size_t i = 0; i < sizeof full / sizeof full[0]; i++) {
		const struct gpu_spec *g = gpu_find(full[i]);
		ck_assert_msg(g != NULL, "%s", full[i]);
		ck_assert_double_eq_tol(gpu_fp32_simt_tflops(g), g->peak_tflops[GPU_DT_FP32], 1e-9);
		ck_assert_double_eq_tol(gpu_fp32_gemm_tflops(g), g->peak_tflops[GPU_DT_FP32], 1e-9);
	}
	for (size_t i = 0; i < sizeof derated / sizeof derated[0]; i++) {
		const struct gpu_spec *g = gpu_find(derated[i].id);
		ck_assert_msg(g != NULL, "%s", derated[i].id);
		double want = g->peak_tflops[GPU_DT_FP32] * derated[i].eff;
		ck_assert_msg(fabs(gpu_fp32_simt_tflops(g) - want) < 1e-9, "%s: %g, want %g",
			      derated[i].id, gpu_fp32_simt_tflops(g), want);
		/* Hopper's SGEMM is not held to the FMA loop's rate: the
		 * H200's measured 4096^3 SGEMM, 50.75 of its 67 TFLOP/s
		 * (2.700-2.716 ms, figures.c), that share of every Hopper
		 * part's peak (its die's 132-SM boards, the rule for the H100
		 * PCIe's 114) */
		if (g->cc == 90)
			want = g->peak_tflops[GPU_DT_FP32] * 50.75 / 67;
		ck_assert_msg(fabs(gpu_fp32_gemm_tflops(g) - want) < 1e-9, "%s: GEMM %g, want %g",
			      derated[i].id, gpu_fp32_gemm_tflops(g), want);
	}
	ck_assert_double_eq(gpu_fp32_simt_tflops(NULL), 0);
	/* The B200's 128 lanes per SM are FP32 units of their own, like
	 * Hopper's: its SGEMM takes the H200's measured share of the peak
	 * by the rule, 75 x 50.75 / 67 = 56.81 TFLOP/s (not its FMA loop's
	 * share, which made it slower than the H200); the RTX PRO 6000
	 * (12.0) shares its lanes with INT32 and keeps the FMA loop's */
	const struct gpu_spec *b200 = gpu_find("b200"), *h200g = gpu_find("h200");
	const struct gpu_spec *pro = gpu_find("rtx-pro-6000-blackwell");
	ck_assert(b200 && h200g && pro);
	ck_assert(gpu_fp32_dedicated_lanes(b200) && gpu_fp32_dedicated_lanes(h200g) &&
		  !gpu_fp32_dedicated_lanes(pro) && !gpu_fp32_dedicated_lanes(gpu_find("l40")));
	ck_assert_msg(fabs(gpu_fp32_gemm_tflops(b200) - 75 * 50.75 / 67) < 1e-9, "B200 GEMM %g",
		      gpu_fp32_gemm_tflops(b200));
	ck_assert(gpu_fp32_gemm_tflops(b200) > gpu_fp32_gemm_tflops(h200g));
	ck_assert_double_eq_tol(gpu_fp32_gemm_tflops(pro), gpu_fp32_simt_tflops(pro), 1e-12);
	/* Hopper held out: the B200's rule has no measured GPU of its kind */
	struct gpu_figure_value v;
	ck_assert_int_eq(gpu_figure(b200, GPU_FIG_FP32_GEMM_EFF, 90, &v), GPU_PROV_NONE);
	ck_assert_int_eq(gpu_figure(h200g, GPU_FIG_FP32_GEMM_EFF, 0, &v), GPU_PROV_MEASURED);
	ck_assert_int_eq(gpu_figure(gpu_find("h100-sxm"), GPU_FIG_FP32_GEMM_EFF, 0, &v), GPU_PROV_SAME_DIE);
	/* a bench holding Hopper out: the H200's own SGEMM does not stand
	 * behind it, the instruction count (0.93 x 67) does, and the B200,
	 * with no measured GPU of its kind left, takes the count too */
	gpu_figures_hold_out(90);
	ck_assert_double_eq_tol(gpu_fp32_gemm_tflops(h200g), 0.93 * 67, 1e-9);
	ck_assert_double_eq_tol(gpu_fp32_gemm_tflops(b200), 0.93 * 75, 1e-9);
	gpu_figures_hold_out(0);
	ck_assert_double_eq_tol(gpu_fp32_gemm_tflops(h200g), 50.75, 1e-9);
}
END_TEST

/* Every figure says where it comes from; a rule checked with the GPU's
 * own architecture held out never uses that architecture's rows. */
START_TEST(test_figures)
{
	struct gpu_figure_value v;
	const struct gpu_spec *h200 = gpu_find("h200"), *h100 = gpu_find("h100-sxm");
	ck_assert_int_eq(gpu_figure(h200, GPU_FIG_FP32_FMA_EFF, 0, &v), GPU_PROV_MICROBENCH);
	ck_assert_double_eq_tol(v.value, 42558.0 / 67e3, 1e-12);
	ck_assert_int_eq(gpu_figure(h100, GPU_FIG_FP32_FMA_EFF, 0, &v), GPU_PROV_SAME_DIE);
	ck_assert_str_eq(v.from, "h200");
	/* Hopper held out: the median of the A40 and the L40 */
	ck_assert_int_eq(gpu_figure(h200, GPU_FIG_FP32_FMA_EFF, 90, &v), GPU_PROV_RULE);
	ck_assert_double_eq_tol(v.value, (23723.0 / (37.4e3 * 1725 / 1740) +
					  50855.0 / (90.5e3 * 2220 / 2490)) / 2, 1e-12);
	/* the T4's bandwidth from CentML's device table, and held out the
	 * datasheet times the median of the others' measured shares */
	const struct gpu_spec *t4 = gpu_find("t4");
	ck_assert_int_eq(gpu_figure(t4, GPU_FIG_DRAM_BW, 0, &v), GPU_PROV_DEVICE_TABLE);
	ck_assert_double_eq_tol(v.value, t4->mem_bw_measured_gbps, 1e-12);
	ck_assert_int_eq(gpu_figure(gpu_find("a40"), GPU_FIG_DRAM_BW, 0, &v), GPU_PROV_MICROBENCH);
	ck_assert_int_eq(gpu_figure(t4, GPU_FIG_DRAM_BW, 75, &v), GPU_PROV_RULE);
	ck_assert(v.value > 0.6 * t4->mem_bw_gbps && v.value < t4->mem_bw_gbps);
	/* AMD's MAMF rule takes AMD's rows only: MI300X 0.514 and MI325X
	 * 0.604 are one architecture, so with it held out nothing is left */
	const struct gpu_spec *mi300 = gpu_find("mi300x");
	ck_assert_int_eq(gpu_figure(mi300, GPU_FIG_MAMF_BF16, 0, &v), GPU_PROV_MICROBENCH);
	ck_assert_int_eq(gpu_figure(mi300, GPU_FIG_MAMF_BF16, mi300->cc, &v), GPU_PROV_NONE);
	ck_assert_str_eq(gpu_provenance_name(GPU_PROV_SAME_DIE), "same die");
	/* launch costs: in a CUDA graph below a stream's on every measured
	 * GPU; the H100 SXM takes the H200's (GH100 at 132 SMs both); a GPU
	 * none measured the median of NVIDIA's four (A100 2.59, H200 2.46,
	 * A40 1.95, L40 1.59: 2.205 us), AMD's the MI210's alone; with Hopper
	 * held out the H200 gets the median of the other three */
	const struct gpu_spec *l40 = gpu_find("l40"), *a100 = gpu_find("a100-sxm4-80");
	struct gpu_figure_value g;
	for (const struct gpu_spec *const *m = (const struct gpu_spec *const[]){ h200, l40, a100, NULL }; *m; m++) {
		ck_assert_int_eq(gpu_figure(*m, GPU_FIG_LAUNCH_US, 0, &v), GPU_PROV_MICROBENCH);
		ck_assert_int_eq(gpu_figure(*m, GPU_FIG_GRAPH_LAUNCH_US, 0, &g), GPU_PROV_MICROBENCH);
		ck_assert(g.value > 0.3 * v.value && g.value < v.value);
	}
	ck_assert_int_eq(gpu_figure(h100, GPU_FIG_GRAPH_LAUNCH_US, 0, &v), GPU_PROV_SAME_DIE);
	ck_assert_str_eq(v.from, "h200");
	ck_assert_double_eq_tol(v.value, 1.26, 1e-12);
	ck_assert_int_eq(gpu_figure(gpu_find("rtx-4090"), GPU_FIG_LAUNCH_US, 0, &v), GPU_PROV_RULE);
	ck_assert_double_eq_tol(v.value, (2.46 + 1.95) / 2, 1e-12);
	ck_assert_int_eq(gpu_figure(mi300, GPU_FIG_GRAPH_LAUNCH_US, 0, &v), GPU_PROV_RULE);
	ck_assert_double_eq_tol(v.value, 1.99, 1e-12);
	ck_assert_int_eq(gpu_figure(h200, GPU_FIG_LAUNCH_US, 90, &v), GPU_PROV_RULE);
	ck_assert_double_eq_tol(v.value, 1.95, 1e-12);
	ck_assert_str_eq(gpu_figure_name(GPU_FIG_GRAPH_LAUNCH_US), "graph_launch_us");
}
END_TEST

START_TEST(test_list_text)
{
	size_t n, lines = 0;
	char *out = capture(0);

	gpu_all(&n);
	for (char *p = out, *nl; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		ck_assert_ptr_nonnull(nl);
		ck_assert_msg(nl - p <= 100, "line %zu is %td columns", lines, nl - p);
		lines++;
	}
	ck_assert_uint_eq(lines, n + 2);
	ck_assert_ptr_nonnull(strstr(out, "\nrtx-pro-6000-blackwell "));
	ck_assert_int_eq(gpu_list_print(NULL, 0), -EINVAL);
	free(out);
}
END_TEST

START_TEST(test_list_json)
{
	size_t n;
	const struct gpu_spec *g = gpu_all(&n);
	char *out = capture(1);
	json_error_t err;
	json_t *arr = json_loads(out, 0, &err);

	ck_assert_msg(arr != NULL, "bad JSON: %s", err.text);
	ck_assert(json_is_array(arr));
	ck_assert_uint_eq(json_array_size(arr), n);
	for (size_t i = 0; i < n; i++) {
		json_t *o = json_array_get(arr, i), *al = json_object_get(o, "aliases");
		json_t *tt = json_object_get(o, "tensor_tflops");
		char cc[16];
		size_t na = 0;

		if (gpu_cc_is_amd(g[i].cc))
			snprintf(cc, sizeof cc, "gfx%x", g[i].cc - GPU_CC_AMD);
		else
			snprintf(cc, sizeof cc, "%u.%u", g[i].cc / 10, g[i].cc % 10);
		ck_assert_str_eq(json_string_value(json_object_get(o, "id")), g[i].id);
		ck_assert_str_eq(json_string_value(json_object_get(o, "name")), g[i].name);
		ck_assert_str_eq(json_string_value(json_object_get(o, "cc")), cc);
		ck_assert(json_is_array(al));
		while (g[i].aliases[na])
			na++;
		ck_assert_uint_eq(json_array_size(al), na);
		ck_assert_int_eq(json_integer_value(json_object_get(o, "sms")), g[i].sms);
		ck_assert_int_eq(json_integer_value(json_object_get(o, "boost_clock_mhz")),
				 g[i].boost_clock_mhz);
		ck_assert_double_eq(json_number_value(json_object_get(o, "mem_gb")), g[i].mem_gb);
		ck_assert_double_eq(json_number_value(json_object_get(o, "mem_bw_gbps")),
				    g[i].mem_bw_gbps);
		ck_assert_double_eq(json_number_value(json_object_get(o, "l2_mb")), g[i].l2_mb);
		ck_assert_double_eq_tol(json_number_value(json_object_get(o, "fp32_tflops")),
					g[i].peak_tflops[GPU_DT_FP32], 1e-6);
		ck_assert(json_is_object(tt));
		if (g[i].cc >= 80)
			ck_assert_double_eq_tol(json_number_value(json_object_get(tt, "bf16")),
						g[i].peak_tflops[GPU_DT_BF16], 1e-6);
		else
			ck_assert_ptr_null(json_object_get(tt, "bf16"));
	}
	json_decref(arr);
	free(out);
}
END_TEST

/* The systems table: each row's GPU is known, one default per GPU, and the
 * network figures are per GPU as the datasheets put them (DGX H100: 8 NICs
 * of 400 Gb/s for 8 GPUs = 50 GB/s a GPU; AWS p5: 32 x 100 Gb/s, also 50;
 * g6.48xlarge: one 100 Gb/s NIC for 8 L4 = 1.5625). */
START_TEST(test_systems)
{
	size_t n;
	const struct gpu_system *all = gpu_system_all(&n);
	ck_assert_uint_ge(n, 10);
	for (size_t i = 0; i < n; i++) {
		ck_assert_ptr_nonnull(all[i].gpu);
		ck_assert_uint_ge(all[i].gpus_per_node, 1);
		ck_assert_ptr_eq(gpu_system_find(all[i].id), &all[i]);
		if (all[i].is_default)
			ck_assert_ptr_eq(gpu_system_default(all[i].gpu), &all[i]);
	}
	const struct gpu_system *d = gpu_system_find("DGX H100");
	ck_assert_ptr_nonnull(d);
	ck_assert_str_eq(d->id, "dgx-h100");
	ck_assert_ptr_eq(d->gpu, gpu_find("h100-sxm"));
	ck_assert_ptr_eq(gpu_system_default(gpu_find("h100")), d);
	/* a copy of the row (a power-capped target) sits in the same system */
	struct gpu_spec copy = *gpu_find("h100-sxm");
	ck_assert_ptr_eq(gpu_system_default(&copy), d);
	ck_assert_int_eq(d->nvls, 1);
	ck_assert_double_eq_tol(gpu_system_net_gbps(d), 50, 1e-9);
	ck_assert_double_eq_tol(gpu_system_net_gbps(gpu_system_find("p5-h100")), 50, 1e-9);
	ck_assert_double_eq_tol(gpu_system_net_gbps(gpu_system_find("pcie-l4-8")), 1.5625, 1e-9);
	ck_assert_int_eq(gpu_system_find("dgx-a100-80")->nvls, 0);
	ck_assert_uint_eq(gpu_system_find("gb200-nvl72")->nvlink_domain, 72);
	ck_assert_ptr_null(gpu_system_find("dgx-z900"));
	ck_assert_ptr_null(gpu_system_default(gpu_find("m40")));
	ck_assert_str_eq(gpu_net_name(GPU_NET_IB_NDR), "ib-ndr");
	/* what a DGX H100 holds (H100 SXM5: cc 9.0, 900 GB/s NVLink among 8,
	 * PCIe 5.0): its GPU and a capped copy; the H100 SXM 96 GB (cc 9.0,
	 * the same NVLink and PCIe) on the same links; not an A100 SXM4
	 * (cc 8.0, 600 GB/s) nor the H100 PCIe (cc 9.0, NVLink bridges of
	 * 600 GB/s between 2) */
	ck_assert_int_eq(gpu_system_fit(d, gpu_find("h100-sxm")), GPU_SYSTEM_HOLDS);
	ck_assert_int_eq(gpu_system_fit(d, &copy), GPU_SYSTEM_HOLDS);
	ck_assert_int_eq(gpu_system_fit(d, gpu_find("h100-sxm-96")), GPU_SYSTEM_SAME_LINKS);
	ck_assert_int_eq(gpu_system_fit(d, gpu_find("a100-sxm4-80")), GPU_SYSTEM_OTHER);
	ck_assert_int_eq(gpu_system_fit(d, gpu_find("h100-pcie")), GPU_SYSTEM_OTHER);
	ck_assert_int_eq(gpu_system_fit(NULL, gpu_find("h100-sxm")), GPU_SYSTEM_OTHER);
	/* the machine a GPU's collectives take: a named system that holds it
	 * or its links, else the GPU's own default (the A100 SXM4 80GB's DGX
	 * A100), the named one where there is no GPU to hold, none at all for
	 * a GPU without a default and nothing named (the M40) */
	const struct gpu_system *a100 = gpu_system_default(gpu_find("a100-sxm4-80"));
	ck_assert_ptr_nonnull(a100);
	ck_assert_ptr_eq(gpu_system_for(d, gpu_find("h100-sxm")), d);
	ck_assert_ptr_eq(gpu_system_for(d, gpu_find("h100-sxm-96")), d);
	ck_assert_ptr_eq(gpu_system_for(d, gpu_find("a100-sxm4-80")), a100);
	ck_assert_ptr_eq(gpu_system_for(NULL, gpu_find("a100-sxm4-80")), a100);
	ck_assert_ptr_eq(gpu_system_for(d, NULL), d);
	ck_assert_ptr_null(gpu_system_for(NULL, gpu_find("m40")));
}
END_TEST

/* Every GPU has a die, a die never spans two compute capabilities, and the
 * pairs the whitepapers name share one (GP102: TITAN X Pascal, TITAN Xp,
 * GTX 1080 Ti; GH100: H20, H800; GA100: A100 PCIe and SXM4, A30) while
 * boards of one compute capability and another die do not (the P4's
 * GP104, the A40's GA102 against the A10's). */
START_TEST(test_dies)
{
	size_t n;
	const struct gpu_spec *all = gpu_all(&n);
	for (size_t i = 0; i < n; i++) {
		ck_assert_msg(gpu_die(&all[i]) != NULL, "%s has no die in die.c", all[i].id);
		for (size_t j = 0; j < n; j++)
			if (gpu_same_die(&all[i], &all[j]))
				ck_assert_uint_eq(all[i].cc, all[j].cc);
	}
	static const char *const same[][2] = {
		{"titan-xp", "gtx-1080-ti"}, {"titan-x-pascal", "titan-xp"}, {"h20", "h800"},
		{"a100-pcie-40", "a100-sxm4-80"}, {"a100-pcie-40", "a30"}, {"m40", "titan-x-maxwell"},
		{"v100-pcie-32", "v100-sxm2-16"}, {"a10", "a40"},
	};
	for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
		ck_assert_msg(gpu_same_die(gpu_find(same[i][0]), gpu_find(same[i][1])), "%s %s",
			      same[i][0], same[i][1]);
	ck_assert(!gpu_same_die(gpu_find("p4"), gpu_find("titan-xp")));
	ck_assert(!gpu_same_die(gpu_find("t4"), gpu_find("rtx-2080ti")));
	ck_assert(!gpu_same_die(gpu_find("l4"), gpu_find("l40")));
	ck_assert(!gpu_same_die(NULL, gpu_find("l40")));
	ck_assert_str_eq(gpu_die(gpu_find("NVIDIA H20")), "gh100");
	/* a copy of a row (a power-capped target) keeps its die */
	struct gpu_spec copy = *gpu_find("h800");
	ck_assert(gpu_same_die(&copy, gpu_find("h20")));
}
END_TEST

/* The H100 SXM5 with 96 GB of HBM2e (torchtitan's published runs, capped at
 * 500 W): a board of the H100 SXM5's die and module, found by what a user
 * types, its bandwidth derived from the H100 PCIe's HBM2e stacks (80 GB in
 * five stacks of 16 GB at 2000 GB/s; 96 GB is six), its compute the SXM5's,
 * in a system of its own, and with room for 96 GB less what the rule keeps
 * back where the driver's figure is unknown. */
START_TEST(test_h100_hbm2e)
{
	const struct gpu_spec *v = gpu_find("H100 96GB"), *sxm = gpu_find("h100-sxm"),
			      *pcie = gpu_find("h100-pcie");
	ck_assert_ptr_nonnull(v);
	ck_assert_ptr_eq(gpu_find("h100 96gb hbm2e"), v);
	ck_assert_ptr_eq(gpu_find("h100-hbm2e"), v);
	ck_assert_ptr_ne(gpu_find("h100"), v);
	ck_assert(gpu_same_die(v, sxm));
	ck_assert_uint_eq(v->sms, sxm->sms);
	ck_assert_uint_eq(v->tdp_w, sxm->tdp_w);
	for (int d = 0; d < GPU_DT_COUNT; d++)
		ck_assert_double_eq(v->peak_tflops[d], sxm->peak_tflops[d]);
	ck_assert_double_eq(pcie->mem_gb, 5 * 16);
	ck_assert_double_eq(v->mem_gb, 6 * 16);
	ck_assert_double_eq_tol(v->mem_bw_gbps, pcie->mem_bw_gbps / (pcie->mem_gb / 16) * (v->mem_gb / 16), 1e-9);
	ck_assert(gpu_mem_hbm(v));
	ck_assert_double_lt(gpu_mem_bw_eff_gbps(v), gpu_mem_bw_eff_gbps(sxm));
	ck_assert_double_gt(gpu_mem_usable_bytes(v), gpu_mem_usable_bytes(sxm));
	ck_assert_double_lt(gpu_mem_bytes(v), 96.0 * 1024 * 1024 * 1024);
	ck_assert_ptr_nonnull(strstr(v->source, "derived"));
	const struct gpu_system *s = gpu_system_default(v);
	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_eq(s->gpu, v);
	ck_assert_uint_eq(s->gpus_per_node, 8);
}
END_TEST

static Suite *gpu_suite(void)
{
	Suite *s = suite_create("gpu");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_keys_unique);
	tcase_add_test(tc, test_words_any_order);
	tcase_add_test(tc, test_ids_well_formed);
	tcase_add_test(tc, test_figures_sane);
	tcase_add_test(tc, test_known_traps);
	tcase_add_test(tc, test_ada_tensor_rates);
	tcase_add_test(tc, test_find_driver_names);
	tcase_add_test(tc, test_suggest);
	tcase_add_test(tc, test_cc_table);
	tcase_add_test(tc, test_bandwidths);
	tcase_add_test(tc, test_amd);
	tcase_add_test(tc, test_systems);
	tcase_add_test(tc, test_dies);
	tcase_add_test(tc, test_h100_hbm2e);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_memory);
	tcase_add_test(tc, test_ecc_bandwidth);
	tcase_add_test(tc, test_list_text);
	tcase_add_test(tc, test_list_json);
	tcase_add_test(tc, test_fp32_simt);
	tcase_add_test(tc, test_figures);
	tcase_add_test(tc, test_mem_bw_sources);
	tcase_add_test(tc, test_figures);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(gpu_suite());
}
