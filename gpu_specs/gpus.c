/*
 * gpus.c - lookup in the compiled GPU table (build/gen/gpus_table.c, made
 * from gpu_specs/gpus.csv): by id, marketing name or alias, suggestions for
 * unknown names, per-compute-capability limits and derived bandwidths; and
 * in the systems table (gpu_specs/systems.csv) by id or name.
 *
 * Names are compared as keys: lower case, without spaces, '-' and '_', and
 * without a leading "nvidia", then "tesla" or "geforce".  So "Tesla T4",
 * "NVIDIA T4" and "t4" are the same key, as are "NVIDIA A100-PCIE-40GB" and
 * "a100 pcie 40gb".  A name no key matches is then compared by its words
 * in any order (token_key()): cluster inventories and benchmark tables
 * write "A100-80GB-SXM4" or "A100 40GB PCIe" for the board the driver
 * calls "NVIDIA A100-SXM4-80GB"; such a name finds a GPU only when exactly
 * one GPU has a name of those words, so "V100-PCIe" (16 or 32 GB) finds
 * none (gpu_named_by() names both).  gpu_named_by() reads looser words as
 * well: "sxm" for a board's "sxm4" or "sxm5", and a memory size or type its
 * names lack but its figures hold ("L40S 48GB", "H100 SXM 80GB HBM3").
 * tests/check_gpu.c checks that no key, and no set of words, names two
 * GPUs.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_specs/figures.h"
#include "gpu_specs/gpus_table.h"
#include "trace/editdist.h"

#define KEY_MAX 128

/* Writes the comparison key of name into key (truncated to KEY_MAX-1). */
static void make_key(const char *name, char key[KEY_MAX])
{
	static const char *const prefixes[] = { "nvidia", "tesla", "geforce" };
	size_t n = 0;
	const char *k;

	for (const char *p = name; *p && n < KEY_MAX - 1; p++) {
		if (*p == ' ' || *p == '-' || *p == '_' || *p == '\t')
			continue;
		key[n++] = (char)tolower((unsigned char)*p);
	}
	key[n] = '\0';
	k = key;
	if (strncmp(k, prefixes[0], 6) == 0)
		k += 6;
	for (size_t i = 1; i < sizeof prefixes / sizeof prefixes[0]; i++) {
		size_t len = strlen(prefixes[i]);

		if (strncmp(k, prefixes[i], len) == 0) {
			k += len;
			break;
		}
	}
	memmove(key, k, strlen(k) + 1);
}

const struct gpu_spec *gpu_all(size_t *n)
{
	if (n)
		*n = gpu_table_len;
	return gpu_table;
}

const struct gpu_cc_limits *gpu_cc_all(size_t *n)
{
	if (n)
		*n = gpu_cc_table_len;
	return gpu_cc_table;
}

/* Whether name has key's key (g: any_name()'s, unused; NULL for a
 * system). */
static int key_matches(const struct gpu_spec *g, const char *name, const char *key)
{
	char k[KEY_MAX];

	(void)g;
	make_key(name, k);
	return strcmp(k, key) == 0;
}

/* The key of name in key; 0 when there is none (NULL or empty). */
static int lookup_key(const char *name, char key[KEY_MAX])
{
	if (!name)
		return 0;
	make_key(name, key);
	return key[0] != '\0';
}

/* The words of name in key, sorted and joined by ' ': the runs of letters
 * and digits, lower case, without "nvidia", "tesla" and "geforce", a
 * number followed by "gb" joined to it ("80 GB" and "80GB" are one word).
 * Empty when name has no other word. */
static void token_key(const char *name, char key[KEY_MAX])
{
	enum { MAX_WORDS = 16, WORD_MAX = 32 };
	char words[MAX_WORDS][WORD_MAX];
	size_t n = 0, len = 0;

	key[0] = '\0';
	for (const char *p = name; *p && n < MAX_WORDS;) {
		size_t w = 0;

		while (*p && !isalnum((unsigned char)*p))
			p++;
		while (isalnum((unsigned char)*p)) {
			if (w < WORD_MAX - 1)
				words[n][w++] = (char)tolower((unsigned char)*p);
			p++;
		}
		words[n][w] = '\0';
		if (!w || !strcmp(words[n], "nvidia") || !strcmp(words[n], "tesla") ||
		    !strcmp(words[n], "geforce"))
			continue;
		if (!strcmp(words[n], "gb") && n > 0 &&
		    strspn(words[n - 1], "0123456789") == strlen(words[n - 1]) &&
		    strlen(words[n - 1]) + 2 < WORD_MAX) {
			strcat(words[n - 1], "gb");
			continue;
		}
		n++;
	}
	/* insertion sort: a name has a handful of words */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(words[j - 1], words[j]) > 0; j--) {
			char t[WORD_MAX];

			memcpy(t, words[j], WORD_MAX);
			memcpy(words[j], words[j - 1], WORD_MAX);
			memcpy(words[j - 1], t, WORD_MAX);
		}
	for (size_t i = 0; i < n; i++) {
		size_t wl = strlen(words[i]);

		if (len + wl + 2 > KEY_MAX)
			break;
		if (len)
			key[len++] = ' ';
		memcpy(key + len, words[i], wl + 1);
		len += wl;
	}
}

/* Whether match(g, n, arg) holds for any name n of g: its id, its name
 * or an alias. */
static int any_name(const struct gpu_spec *g,
		    int (*match)(const struct gpu_spec *, const char *, const char *), const char *arg)
{
	if (match(g, g->id, arg) || match(g, g->name, arg))
		return 1;
	for (const char *const *a = g->aliases; *a; a++)
		if (match(g, *a, arg))
			return 1;
	return 0;
}

static int words_match(const struct gpu_spec *g, const char *name, const char *words)
{
	char k[KEY_MAX];

	(void)g;
	token_key(name, k);
	return strcmp(k, words) == 0;
}

/* The one GPU with a name (id, name or alias) of the same words as name;
 * NULL when none or more than one has. */
static const struct gpu_spec *find_by_words(const char *name)
{
	char words[KEY_MAX];
	const struct gpu_spec *found = NULL;

	token_key(name, words);
	if (!words[0])
		return NULL;
	for (size_t i = 0; i < gpu_table_len; i++) {
		if (any_name(&gpu_table[i], words_match, words)) {
			if (found)
				return NULL;
			found = &gpu_table[i];
		}
	}
	return found;
}

/* Whether query word w (n characters) stands for name word x (m): the
 * same word, or a form factor without its generation ("sxm" for the
 * "sxm4" or "sxm5" of a board's name: benchmark tables write "A100 SXM"
 * and "H100 SXM 80GB"). */
static int word_is(const char *w, size_t n, const char *x, size_t m)
{
	if (m == n && !strncmp(x, w, n))
		return 1;
	return n == 3 && !strncmp(w, "sxm", 3) && m == 4 && !strncmp(x, "sxm", 3) &&
	       isdigit((unsigned char)x[3]);
}

/* Whether query word w (n characters) says what g's figures say though
 * its names do not: its memory size ("48gb" of an L40S, "80gb" of the
 * H100 SXM5 the driver calls "NVIDIA H100 80GB HBM3") or a memory type
 * ("hbm3", "gddr6"), which names the memory, not the board. */
static int word_of_memory(const struct gpu_spec *g, const char *w, size_t n)
{
	if (n > 2 && !strncmp(w + n - 2, "gb", 2) && strspn(w, "0123456789") == n - 2)
		return g->mem_gb > 0 && strtoul(w, NULL, 10) == (unsigned long)lround(g->mem_gb);
	return (n > 3 && !strncmp(w, "hbm", 3)) || (n > 4 && !strncmp(w, "gddr", 4));
}

/* Whether every word of words (token_key()'s form) is a word of the
 * name's (word_is()), or one of g's memory (word_of_memory()), and at
 * least one is a word of the name's. */
static int words_within(const struct gpu_spec *g, const char *name, const char *words)
{
	char k[KEY_MAX];
	int named = 0;

	token_key(name, k);
	for (const char *w = words; *w;) {
		size_t n = strcspn(w, " ");
		int found = 0;

		for (const char *x = k; *x && !found;) {
			size_t m = strcspn(x, " ");

			found = word_is(w, n, x, m);
			x += m + (x[m] == ' ');
		}
		if (!found && !word_of_memory(g, w, n))
			return 0;
		named |= found;
		w += n + (w[n] == ' ');
	}
	return named;
}

size_t gpu_named_by(const char *name, const char **out, size_t max)
{
	char words[KEY_MAX];
	size_t got = 0;

	if (!name || !out)
		return 0;
	token_key(name, words);
	if (!words[0])
		return 0;
	for (size_t i = 0; i < gpu_table_len; i++) {
		if (any_name(&gpu_table[i], words_within, words)) {
			if (got < max)
				out[got] = gpu_table[i].id;
			got++;
		}
	}
	return got;
}

const struct gpu_spec *gpu_find(const char *name)
{
	char key[KEY_MAX];

	if (!lookup_key(name, key))
		return NULL;
	for (size_t i = 0; i < gpu_table_len; i++)
		if (any_name(&gpu_table[i], key_matches, key))
			return &gpu_table[i];
	return find_by_words(name);
}

/* How far name is from the typed key: twice the edit distance, or twice
 * the distance to name's prefix of the key's length plus one, whichever is
 * less, so that "h1000" ranks the H100 family (prefix "h100p", 1 edit)
 * before "p100" (2 edits) and after "h100" itself (1 edit). */
static unsigned distance_to(const char *key, const char *name)
{
	char k[KEY_MAX];
	size_t len = strlen(key);
	unsigned full, pre;

	make_key(name, k);
	full = 2 * edit_distance(key, k, (unsigned)-1);
	if (strlen(k) > len) {
		k[len] = '\0';
		pre = 2 * edit_distance(key, k, (unsigned)-1) + 1;
		if (pre < full)
			return pre;
	}
	return full;
}

size_t gpu_suggest(const char *name, const char **out, size_t max)
{
	char key[KEY_MAX];
	unsigned dist[512];
	size_t n = gpu_table_len < 512 ? gpu_table_len : 512;
	size_t got = 0;

	if (!name || !out || max == 0)
		return 0;
	make_key(name, key);
	for (size_t i = 0; i < n; i++) {
		const struct gpu_spec *g = &gpu_table[i];
		unsigned best = distance_to(key, g->id);
		unsigned v = distance_to(key, g->name);

		if (v < best)
			best = v;
		for (const char *const *a = g->aliases; *a; a++) {
			v = distance_to(key, *a);
			if (v < best)
				best = v;
		}
		dist[i] = best;
	}
	/* Selection of the max smallest distances; ties keep table order. */
	while (got < max && got < n) {
		size_t pick = n;

		for (size_t i = 0; i < n; i++)
			if (dist[i] != (unsigned)-1 && (pick == n || dist[i] < dist[pick]))
				pick = i;
		if (pick == n)
			break;
		out[got++] = gpu_table[pick].id;
		dist[pick] = (unsigned)-1;
	}
	return got;
}

const struct gpu_cc_limits *gpu_cc_find(uint32_t cc)
{
	for (size_t i = 0; i < gpu_cc_table_len; i++)
		if (gpu_cc_table[i].cc == cc)
			return &gpu_cc_table[i];
	return NULL;
}

double gpu_fp32_simt_tflops(const struct gpu_spec *g)
{
	if (!g || !(g->peak_tflops[GPU_DT_FP32] > 0))
		return 0.0;
	return g->peak_tflops[GPU_DT_FP32] * gpu_fp32_issue_factor(g);
}

double gpu_fp32_gemm_tflops(const struct gpu_spec *g)
{
	double t = gpu_fp32_simt_tflops(g);
	if (g && gpu_cc_is_amd(g->cc))
		return 2 * t;
	/* Hopper's and data-centre Blackwell's 128 lanes are all FP32 (GA10x
	 * and Ada share half of theirs with INT32): an SGEMM main loop, almost
	 * all FFMA, is not held to the FMA benchmark's rate there.  What a
	 * large SGEMM reaches is the GPU's figure (measured on the H200, its
	 * die's boards, the rule for the other parts of this SM kind), else
	 * the main loop's instruction mix (gpu.h). */
	if (g && gpu_fp32_dedicated_lanes(g) && t > 0) {
		struct gpu_figure_value v;
		if (gpu_figure(g, GPU_FIG_FP32_GEMM_EFF, gpu_figures_held_out(), &v) != GPU_PROV_NONE &&
		    v.value > 0)
			return g->peak_tflops[GPU_DT_FP32] * v.value;
		return g->peak_tflops[GPU_DT_FP32] * GPU_FP32_HOPPER_GEMM_EFF;
	}
	return t;
}

double gpu_matrix_eff(const struct gpu_spec *g)
{
	return g && gpu_cc_is_amd(g->cc) ? GPU_AMD_MATRIX_EFF : 1.0;
}

char *gpu_cc_string(uint32_t cc, char *buf, size_t len)
{
	if (gpu_cc_is_amd(cc))
		snprintf(buf, len, "gfx%x", cc - GPU_CC_AMD);
	else
		snprintf(buf, len, "%u.%u", cc / 10, cc % 10);
	return buf;
}

int gpu_mem_hbm(const struct gpu_spec *g)
{
	if (!g)
		return 0;
	if (gpu_cc_is_amd(g->cc))
		return 1;
	return (g->cc % 10 == 0 && g->cc >= 60 && g->cc <= 90) || g->cc / 10 == 10;
}

/* The GDDR6 (and GDDR6X) generations: Turing, GA10x and Ada (7.5, 8.6,
 * 8.9); the measured GDDR boards are of these. */
static int gpu_mem_gddr6(const struct gpu_spec *g)
{
	return g->cc == 75 || g->cc == 86 || g->cc == 89;
}

int gpu_mem_ecc_inband(const struct gpu_spec *g)
{
	if (!g || gpu_mem_hbm(g) || !(g->mem_mib > 0) || !(g->mem_gb > 0))
		return -1;
	return g->mem_mib / (g->mem_gb * 1024.0) < 0.95;
}

/*
 * Why GDDR boards are told apart.  A decode step of an LLM reads its
 * weights and KV cache once: its time is the bandwidth.  On PipeWeave's
 * SGLang decode steps the boards of one die differ by more than their
 * datasheets: the A40 takes 1.23-1.24x the RTX A6000's step (the same
 * GA102; 768 / 696 = 1.10x the bandwidth) and the L40 1.21-1.25x the RTX
 * 6000 Ada's (AD102; 960 / 864 = 1.11x).  Their driver-reported sizes say
 * why: the A40 and L40 keep 1/16 of their memory for ECC check bits
 * (0.924 and 0.925 of the marketed GiB), the two workstation boards do
 * not (0.990, 0.987).  GDDR has no side band for the check bits: with ECC
 * on they travel with the data, so at most 15/16 of the bandwidth carries
 * data.  gpu-benches measured its A40 and L40 with ECC off (their reads
 * reach 0.976 of the datasheet, past 15/16), so those figures take the
 * 15/16 for the boards the table describes; a GDDR board with no
 * measurement takes the two's median share with ECC off, 15/16 of it with
 * ECC on (0.890, the old default's value), the NVIDIA median (0.89) when
 * its ECC state is unknown.  make bench-serving, decode mean error (step
 * constant fitted per held-out architecture): 8.3 -> 6.2 % (Ampere 9.1 ->
 * 2.9, Ada 10.1 -> 6.6); with the share of the other architecture's
 * board alone (0.944 for the Ampere boards, 0.953 for the Ada ones),
 * Ampere 3.3 and Ada 6.1 % against 3.0 and 6.1 with both (after the
 * changes that followed: FA3's decode tiles, NCCL's LL over PCIe).
 */
/* A board's achievable bandwidth from its measured figure (when
 * use_measured and it has one) or the rule: 15/16 of the figure with
 * in-band ECC where the measurement ran without it. */
static double mem_bw_eff(const struct gpu_spec *g, int use_measured)
{
	if (!g)
		return 0.0;
	int ecc = gpu_mem_ecc_inband(g);
	if (use_measured && g->mem_bw_measured_gbps > 0.0) {
		if (ecc == 1 && g->mem_bw_measured_gbps > g->mem_bw_gbps * GPU_MEM_ECC_INBAND_SHARE)
			return g->mem_bw_measured_gbps * GPU_MEM_ECC_INBAND_SHARE;
		return g->mem_bw_measured_gbps;
	}
	if (gpu_cc_is_amd(g->cc))
		return g->mem_bw_gbps * GPU_MEM_BW_EFF_DEFAULT_AMD;
	if (ecc >= 0 && gpu_mem_gddr6(g))
		return g->mem_bw_gbps * GPU_MEM_BW_EFF_GDDR * (ecc ? GPU_MEM_ECC_INBAND_SHARE : 1.0);
	return g->mem_bw_gbps * GPU_MEM_BW_EFF_DEFAULT;
}

double gpu_mem_bw_eff_gbps(const struct gpu_spec *g)
{
	return mem_bw_eff(g, 1);
}

/*
 * Which measured bandwidths come from a device table.  gpus.csv's
 * mem_bw_meas_gbps holds gpu-benches' gpu-stream figure where one exists
 * (a load-and-store stream kernel, sizes and block counts stated, the
 * best of scale and triad) and else the figure of Habitat's devices.yml
 * or CentML's devices.csv, which state no kernel, size or clock and copy
 * some datasheet figures verbatim (the P4's 192 and the GTX 1080 Ti's 484
 * GB/s).  On the three GPUs both measured the table's figure is below
 * the kernel-level one by 7-16 % (V100 739 against 814, A100 40GB 1160
 * against 1381, A40 614 against 663 GB/s), and the rule (datasheet x the
 * median share of the other architectures' gpu-stream figures) comes
 * nearer it than the table does: V100 +1.3 %, A100 +3.1 %, A40 -5.1 %
 * (mean 3.2 %, `surfer-bench figures`) against -9.2, -16.0 and -7.4 % (10.9 %).
 * gpu_mem_bw_kernel_gbps() ranks the sources so: kernel-level
 * measurement, the rule, the device table.  Only the tensor-core GEMM
 * model takes it (predictor/tcgemm.c says what it moved): NeuSight's
 * FP32 element-wise kernels on the T4 and the P100 run at their device
 * tables' figures (the T4's adds at 238-243 GB/s against 239, the P100's
 * at 510 against 501), and with the rule's 285 GB/s for the T4 in every
 * model make accuracy's held-out T4 vector kernels went from 8.7 to 15.8 %
 * error on NeuSight's test shapes (from 14.8 to 12.2 % on its sweep); the
 * other models keep gpu_mem_bw_eff_gbps().
 */
static const char *const mem_bw_devices_file_ids[] = { "p100-pcie", "t4", "rtx-2080ti", "l4" };

int gpu_mem_bw_devices_file(const struct gpu_spec *g)
{
	if (!g || !(g->mem_bw_measured_gbps > 0.0))
		return 0;
	for (size_t i = 0; i < sizeof mem_bw_devices_file_ids / sizeof mem_bw_devices_file_ids[0]; i++)
		if (!strcmp(g->id, mem_bw_devices_file_ids[i]))
			return 1;
	return 0;
}

double gpu_mem_bw_kernel_gbps(const struct gpu_spec *g)
{
	return mem_bw_eff(g, !gpu_mem_bw_devices_file(g));
}

double gpu_mem_bytes(const struct gpu_spec *g)
{
	if (!g)
		return 0.0;
	if (g->mem_mib > 0.0)
		return g->mem_mib * 1048576.0;
	return g->mem_gb * 1073741824.0 * GPU_MEM_UNKNOWN_RATIO;
}

/*
 * What a PyTorch process cannot give its tensors, by architecture.
 *
 * The CUDA context: the driver's per-process state and the device code of
 * the modules loaded.  CUDA 11.7+ loads modules lazily (PyTorch sets
 * CUDA_MODULE_LOADING=LAZY), so the context holds the kernels a program
 * has run, not all of libtorch_cuda's; the figures grow with the
 * generation as the SM count and the libraries' per-architecture kernels
 * do.  unsure: no measurement of them is in this repository; they are the
 * upper end of what public reports of PyTorch 2 on CUDA 12 give for a
 * process after its first kernels (nvidia-smi's process memory, 250-600
 * MiB); tools/gpu/measure.sh writes memory.json whose
 * context_and_libraries_mib is the measurement to replace them with.
 *
 * The libraries' workspaces, from PyTorch's source
 * (aten/src/ATen/cuda/CublasHandlePool.cpp): cuBLAS's per handle and
 * stream, CUBLAS_WORKSPACE_CONFIG's default ":4096:2:16:8" (2 x 4 MiB + 8
 * x 16 KiB) below compute capability 9.0 and ":4096:8" (32 MiB) from it on,
 * and cuBLASLt's, 1 MiB (TORCH_CUBLASLT_WORKSPACE_SIZE) below 9.0, the
 * cuBLAS size from it on.  The caching allocator's rounding (512 bytes,
 * 2 MiB segments) and fragmentation are not counted: they depend on the
 * program's allocation order.
 */
double gpu_mem_reserve_bytes(const struct gpu_spec *g, const char **source)
{
	static const struct {
		uint32_t cc_below;   /* the row holds below this cc */
		double context_mib, workspace_mib;
	} rows[] = {
		{ 70, 300, 8.125 + 1 },     /* Maxwell, Pascal */
		{ 80, 400, 8.125 + 1 },     /* Volta, Turing   */
		{ 90, 500, 8.125 + 1 },     /* Ampere, Ada     */
		{ 100, 600, 32 + 32 },      /* Hopper          */
		{ GPU_CC_AMD, 700, 32 + 32 }, /* Blackwell     */
	};
	double mib = 500 + 32 + 32;  /* AMD (unsure): Ampere's context, Hopper's workspaces */

	if (source)
		*source = "estimate (unsure): context per architecture from public reports of PyTorch 2 "
			  "on CUDA 12, workspaces from PyTorch's defaults";
	if (!g)
		return 0.0;
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		if (g->cc < rows[i].cc_below) {
			mib = rows[i].context_mib + rows[i].workspace_mib;
			break;
		}
	return mib * 1048576.0;
}

double gpu_mem_usable_bytes(const struct gpu_spec *g)
{
	double b = gpu_mem_bytes(g) - gpu_mem_reserve_bytes(g, NULL);

	return b > 0 ? b : 0.0;
}

/*
 * Theoretical per-direction rate of the host link.  PCIe: transfer rate per
 * lane times line-code efficiency / 8 bits (PCI-SIG base specifications:
 * gen1/2 8b/10b, gen3-5 128b/130b, gen6 PAM4 FLIT mode with 242/256 payload).
 * pcie_gen = pcie_lanes = 0 marks a Grace-attached GPU whose host link is
 * NVLink-C2C, 900 GB/s both directions (GH200/GB200 datasheets).
 */
double gpu_host_link_gbps(const struct gpu_spec *g)
{
	static const double gbps_per_lane[] = {
		0.0, 2.5 * 8 / 10 / 8, 5.0 * 8 / 10 / 8, 8.0 * 128 / 130 / 8,
		16.0 * 128 / 130 / 8, 32.0 * 128 / 130 / 8, 64.0 * 242 / 256 / 8
	};

	if (!g)
		return 0.0;
	if (g->pcie_gen == 0 && g->pcie_lanes == 0)
		return 900.0 / 2;
	if (g->pcie_gen >= sizeof gbps_per_lane / sizeof gbps_per_lane[0])
		return 0.0;
	return gbps_per_lane[g->pcie_gen] * g->pcie_lanes;
}

const char *gpu_occ_limit_name(enum gpu_occ_limit l)
{
	switch (l) {
	case GPU_OCC_NONE: return "none";
	case GPU_OCC_BLOCKS: return "blocks";
	case GPU_OCC_WARPS: return "warps";
	case GPU_OCC_REGS: return "registers";
	case GPU_OCC_SMEM: return "shared_memory";
	case GPU_OCC_INVALID: return "invalid";
	}
	return "unknown";
}

double gpu_dtype_bytes(enum gpu_dtype d)
{
	switch (d) {
	case GPU_DT_FP64:                   return 8;
	case GPU_DT_FP16: case GPU_DT_BF16: return 2;
	case GPU_DT_FP8: case GPU_DT_INT8:  return 1;
	case GPU_DT_FP4:                    return 0.5;
	default:                            return 4;   /* FP32, TF32 (stored as FP32) */
	}
}

const char *gpu_dtype_name(enum gpu_dtype d)
{
	static const char *const names[GPU_DT_COUNT] = {
		[GPU_DT_FP32] = "fp32", [GPU_DT_FP64] = "fp64", [GPU_DT_TF32] = "tf32",
		[GPU_DT_FP16] = "fp16", [GPU_DT_BF16] = "bf16", [GPU_DT_FP8] = "fp8",
		[GPU_DT_INT8] = "int8", [GPU_DT_FP4] = "fp4",
	};

	if ((unsigned)d >= GPU_DT_COUNT)
		return "unknown";
	return names[d];
}

/* ---- systems ---------------------------------------------------------- */

const struct gpu_system *gpu_system_all(size_t *n)
{
	if (n)
		*n = gpu_system_table_len;
	return gpu_system_table;
}

const struct gpu_system *gpu_system_find(const char *name)
{
	char key[KEY_MAX];

	if (!lookup_key(name, key))
		return NULL;
	for (size_t i = 0; i < gpu_system_table_len; i++)
		if (key_matches(NULL, gpu_system_table[i].id, key) ||
		    key_matches(NULL, gpu_system_table[i].name, key))
			return &gpu_system_table[i];
	return NULL;
}

int gpu_same(const struct gpu_spec *a, const struct gpu_spec *b)
{
	return a && b && (a == b || (a->id && b->id && strcmp(a->id, b->id) == 0));
}

const struct gpu_system *gpu_system_default(const struct gpu_spec *g)
{
	for (size_t i = 0; g && i < gpu_system_table_len; i++)
		if (gpu_system_table[i].is_default && gpu_same(gpu_system_table[i].gpu, g))
			return &gpu_system_table[i];
	return NULL;
}

enum gpu_system_fit gpu_system_fit(const struct gpu_system *s, const struct gpu_spec *g)
{
	if (!s || !g || !s->gpu)
		return GPU_SYSTEM_OTHER;
	if (gpu_same(s->gpu, g))
		return GPU_SYSTEM_HOLDS;
	const struct gpu_spec *h = s->gpu;
	if (h->cc == g->cc && h->nvlink_gbps == g->nvlink_gbps && h->nvlink_peers == g->nvlink_peers &&
	    h->pcie_gen == g->pcie_gen)
		return GPU_SYSTEM_SAME_LINKS;
	return GPU_SYSTEM_OTHER;
}

const struct gpu_system *gpu_system_for(const struct gpu_system *named, const struct gpu_spec *g)
{
	if (named && (!g || gpu_system_fit(named, g) != GPU_SYSTEM_OTHER))
		return named;
	return gpu_system_default(g);
}

double gpu_system_net_gbps(const struct gpu_system *s)
{
	if (!s || s->nic_gbit <= 0 || s->nics_per_node == 0 || s->gpus_per_node == 0)
		return 0;
	return s->nic_gbit / 8.0 * s->nics_per_node / s->gpus_per_node;
}

const char *gpu_net_name(enum gpu_net n)
{
	static const char *const names[] = { "none", "ib-hdr", "ib-ndr", "roce", "efa", "eth" };
	return (unsigned)n < GPU_NET_COUNT ? names[n] : "?";
}

struct gpu_spec *gpu_derate_compute(const struct gpu_spec *g, double f, struct gpu_spec *out)
{
	*out = *g;
	for (int d = 0; d < GPU_DT_COUNT; d++)
		out->peak_tflops[d] *= f;
	out->boost_clock_mhz = (uint32_t)lround(g->boost_clock_mhz * f);
	if (out->base_clock_mhz > out->boost_clock_mhz)
		out->base_clock_mhz = out->boost_clock_mhz;
	out->clock_share = gpu_clock_share(g) * f;
	return out;
}

double gpu_clock_share(const struct gpu_spec *g)
{
	return g && g->clock_share > 0 ? g->clock_share : 1;
}

double gpu_row_rate(const struct gpu_spec *g, double x)
{
	return x / gpu_clock_share(g);
}

double gpu_memory_bound_clock_mhz(const struct gpu_spec *g)
{
	return g ? g->boost_clock_mhz / gpu_clock_share(g) : 0;
}
