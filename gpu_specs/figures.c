/*
 * figures.c - the achievable figures of figures.h: the measured ones with
 * their sources, and the rule that fills each figure for a GPU none
 * measured.
 *
 * Each rule is computed from the table itself at the time of the call,
 * over the GPUs of other architectures than the one excluded, so a rule
 * has no constant of its own to tune and `surfer-bench figures` can check
 * it on every measured GPU with that GPU's architecture held out.
 */
#include "gpu_specs/figures.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_specs/die.h"

struct fig_row {
	const char *gpu;          /* GPU id (gpus.csv)                        */
	enum gpu_figure_kind kind;
	double value;
	enum gpu_provenance prov;
	const char *source;
};

/*
 * gpu-benches gpu-roofline (te42kyfo/gpu-benches, GPL-3.0; the figures
 * only): the highest FP32 rate of the run, an FMA loop at about 100
 * FLOP/byte, over the datasheet rate at the clock it reported then, and
 * that clock over the boost clock.
 * gpu-l2-cache: the bandwidth at the data set nearest a quarter of L2,
 * and its highest over the data sets (the L2's best rate, l2_peak).
 * ml-engineering's MAMF table (CC-BY-SA): best BF16 / FP8 matmul over its
 * "theory" column.
 */
static const struct fig_row fig_rows[] = {
	{ "a100-sxm4-40", GPU_FIG_FP32_FMA_EFF, 19192.0 / 19500, GPU_PROV_MICROBENCH,
	  "gpu-benches gpu-roofline alex_a100_40: 19192 GFLOP/s at 1410 MHz" },
	{ "a40", GPU_FIG_FP32_FMA_EFF, 23723.0 / (37400 * 1725 / 1740.0), GPU_PROV_MICROBENCH,
	  "gpu-benches gpu-roofline alex_a40: 23723 GFLOP/s at 1725 MHz" },
	{ "l40", GPU_FIG_FP32_FMA_EFF, 50855.0 / (90500 * 2220 / 2490.0), GPU_PROV_MICROBENCH,
	  "gpu-benches gpu-roofline genoa_l40: 50855 GFLOP/s at 2220 MHz" },
	{ "h200", GPU_FIG_FP32_FMA_EFF, 42558.0 / 67000, GPU_PROV_MICROBENCH,
	  "gpu-benches gpu-roofline h200: 42558 GFLOP/s at 1980 MHz" },
	{ "a100-sxm4-40", GPU_FIG_FMA_CLOCK, 1410.0 / 1410, GPU_PROV_MICROBENCH,
	  "gpu-benches gpu-roofline alex_a100_40: 1410 MHz, 181 W" },
	{ "a40", GPU_FIG_FMA_CLOCK, 1725.0 / 1740, GPU_PROV_MICROBENCH,
	  "gpu-benches gpu-roofline alex_a40: 1725 MHz, 300 W" },
	/* genoa_l40 holds two boards: device 0 idles at 2490 MHz and draws
	 * up to 314 W (the L40: 2490 MHz, 300 W), device 1 at 2520 MHz and
	 * up to 359 W (the L40S: 2520 MHz, 350 W) */
	{ "l40", GPU_FIG_FMA_CLOCK, 1740.0 / 2490, GPU_PROV_MICROBENCH,
	  "gpu-benches gpu-roofline genoa_l40 device 0: 1740 MHz, 302 W" },
	{ "l40s", GPU_FIG_FMA_CLOCK, 2220.0 / 2520, GPU_PROV_MICROBENCH,
	  "gpu-benches gpu-roofline genoa_l40 device 1: 2220 MHz, 352 W" },
	{ "h200", GPU_FIG_FMA_CLOCK, 1980.0 / 1980, GPU_PROV_MICROBENCH,
	  "gpu-benches gpu-roofline h200: 1980 MHz, 398 W" },
	{ "a100-sxm4-80", GPU_FIG_L2_BW, 5264.0, GPU_PROV_MICROBENCH,
	  "gpu-benches gpu-l2-cache a100_80, 10 MB" },
	{ "h100-pcie", GPU_FIG_L2_BW, 6992.5, GPU_PROV_MICROBENCH,
	  "gpu-benches gpu-l2-cache h100_pcie, 12 MB" },
	{ "h200", GPU_FIG_L2_BW, 9716.0, GPU_PROV_MICROBENCH,
	  "gpu-benches gpu-l2-cache h200, 12 MB" },
	{ "l40", GPU_FIG_L2_BW, 5187.8, GPU_PROV_MICROBENCH,
	  "gpu-benches gpu-l2-cache l40, 23 MB" },
	{ "mi100", GPU_FIG_L2_BW, 2672.8, GPU_PROV_MICROBENCH,
	  "gpu-benches gpu-l2-cache mi100, 1.9 MB" },
	{ "mi210", GPU_FIG_L2_BW, 4827.7, GPU_PROV_MICROBENCH,
	  "gpu-benches gpu-l2-cache mi210, 2 MB" },
	{ "a100-sxm4-80", GPU_FIG_L2_PEAK_BW, 5481.9, GPU_PROV_MICROBENCH,
	  "gpu-benches gpu-l2-cache a100_80, best at 2 MB" },
	{ "h100-pcie", GPU_FIG_L2_PEAK_BW, 7758.1, GPU_PROV_MICROBENCH,
	  "gpu-benches gpu-l2-cache h100_pcie, best at 1 MB" },
	{ "h200", GPU_FIG_L2_PEAK_BW, 13526.6, GPU_PROV_MICROBENCH,
	  "gpu-benches gpu-l2-cache h200, best at 1.5 MB" },
	{ "l40", GPU_FIG_L2_PEAK_BW, 5331.9, GPU_PROV_MICROBENCH,
	  "gpu-benches gpu-l2-cache l40, best at 8 MB" },
	{ "mi100", GPU_FIG_L2_PEAK_BW, 2726.3, GPU_PROV_MICROBENCH,
	  "gpu-benches gpu-l2-cache mi100, best at 5.6 MB" },
	{ "mi210", GPU_FIG_L2_PEAK_BW, 5105.8, GPU_PROV_MICROBENCH,
	  "gpu-benches gpu-l2-cache mi210, best at 3.5 MB" },
	/* "A100 SXM" and "A100 PCIe" without their memory size: the 80 GB
	 * boards (unsure); the same die gives every A100 board the figure */
	{ "a100-sxm4-80", GPU_FIG_MAMF_BF16, 271.2 / 312, GPU_PROV_MICROBENCH,
	  "ml-engineering MAMF: A100 SXM 271.2 of 312 TFLOP/s (memory size not given)" },
	{ "a100-pcie-80", GPU_FIG_MAMF_BF16, 252.9 / 312, GPU_PROV_MICROBENCH,
	  "ml-engineering MAMF: A100 PCIe 252.9 of 312 TFLOP/s (memory size not given)" },
	{ "h100-sxm", GPU_FIG_MAMF_BF16, 794.5 / 989, GPU_PROV_MICROBENCH,
	  "ml-engineering MAMF: H100 SXM 794.5 of 989 TFLOP/s" },
	{ "h200", GPU_FIG_MAMF_BF16, 794.5 / 989, GPU_PROV_MICROBENCH,
	  "ml-engineering MAMF: H100 SXM 794.5 of 989 TFLOP/s, \"H200 is the same\"" },
	{ "gh200", GPU_FIG_MAMF_BF16, 828.6 / 989, GPU_PROV_MICROBENCH,
	  "ml-engineering MAMF: GH200 828.6 of 989 TFLOP/s" },
	{ "b200", GPU_FIG_MAMF_BF16, 1745.0 / 2250, GPU_PROV_MICROBENCH,
	  "ml-engineering MAMF: B200 1745 of 2250 TFLOP/s" },
	{ "gb200", GPU_FIG_MAMF_BF16, 1822.0 / 2500, GPU_PROV_MICROBENCH,
	  "ml-engineering MAMF: GB200 1822 of 2500 TFLOP/s" },
	{ "mi300x", GPU_FIG_MAMF_BF16, 668.4 / 1300, GPU_PROV_MICROBENCH,
	  "ml-engineering MAMF: MI300X 668.4 of 1300 TFLOP/s" },
	{ "mi325x", GPU_FIG_MAMF_BF16, 784.9 / 1300, GPU_PROV_MICROBENCH,
	  "ml-engineering MAMF: MI325X 784.9 of 1300 TFLOP/s" },
	{ "h100-sxm", GPU_FIG_MAMF_FP8, 1402.6 / 1979, GPU_PROV_MICROBENCH,
	  "ml-engineering MAMF: H100 SXM FP8 1402.6 of 1979 TFLOP/s" },
	{ "h200", GPU_FIG_MAMF_FP8, 1453.4 / 1979, GPU_PROV_MICROBENCH,
	  "ml-engineering MAMF: H200 SXM FP8 1453.4 of 1979 TFLOP/s" },
	{ "gh200", GPU_FIG_MAMF_FP8, 1535.0 / 1979, GPU_PROV_MICROBENCH,
	  "ml-engineering MAMF: GH200 FP8 1535 of 1979 TFLOP/s" },
	{ "b200", GPU_FIG_MAMF_FP8, 3432.5 / 4500, GPU_PROV_MICROBENCH,
	  "ml-engineering MAMF: B200 FP8 3432.5 of 4500 TFLOP/s" },
	{ "gb200", GPU_FIG_MAMF_FP8, 3615.6 / 5000, GPU_PROV_MICROBENCH,
	  "ml-engineering MAMF: GB200 FP8 3615.6 of 5000 TFLOP/s" },
	/* Measured by us, 2026-12-04 (driver 580.159.04, CUDA 13.0, PyTorch
	 * 2.11.0+cu130, cuBLAS's sm80_xmma_gemm_f32f32 256x128x8 kernel):
	 * torch.mm of two 4096 x 4096 FP32 matrices, TF32 off, 2.700-2.716 ms
	 * in six timed runs (tools/gpu/check.sh gemm), 50.6-50.9 TFLOP/s of the
	 * 67 the datasheet gives at 1980 MHz; the 63 largest of NeuSight's FP32
	 * GEMM test shapes timed there (data/NVIDIA_H200/kernels/gemm.csv,
	 * over 50 GFLOP each) reach a median 0.743 and at most 0.788 of it. */
	{ "h200", GPU_FIG_FP32_GEMM_EFF, 50.75 / 67.0, GPU_PROV_MEASURED,
	  "measured by us: H200 SGEMM 4096^3, 50.6-50.9 of 67 TFLOP/s (tools/gpu/check.sh gemm)" },
	/* gpu-benches gpu-small-kernels: 10000 launches of a streaming scale
	 * kernel queued back to back per data size, on a stream and (the
	 * _graph files) from a CUDA graph.  The figure is the intercept a of
	 * t = a + V / b, least squares over the sizes up to 1 MiB (V = 16
	 * bytes an element, a double read and one written; each size's
	 * fastest column), to the hundredth of a microsecond: `surfer-bench
	 * figures --data ../shared/data` fits the files again and compares.
	 * The files' A100 is the 80 GB board (the gpu-l2-cache rows' too). */
	{ "a100-sxm4-80", GPU_FIG_LAUNCH_US, 2.59, GPU_PROV_MICROBENCH,
	  "gpu-benches gpu-small-kernels a100_80: 2.59 us a kernel, 37 sizes up to 1 MiB" },
	{ "a40", GPU_FIG_LAUNCH_US, 1.95, GPU_PROV_MICROBENCH,
	  "gpu-benches gpu-small-kernels a40: 1.95 us a kernel, 48 sizes up to 1 MiB" },
	{ "h200", GPU_FIG_LAUNCH_US, 2.46, GPU_PROV_MICROBENCH,
	  "gpu-benches gpu-small-kernels h200: 2.46 us a kernel, 48 sizes up to 1 MiB" },
	{ "l40", GPU_FIG_LAUNCH_US, 1.59, GPU_PROV_MICROBENCH,
	  "gpu-benches gpu-small-kernels l40: 1.59 us a kernel, 48 sizes up to 1 MiB" },
	{ "mi210", GPU_FIG_LAUNCH_US, 2.05, GPU_PROV_MICROBENCH,
	  "gpu-benches gpu-small-kernels mi210: 2.05 us a kernel, 37 sizes up to 1 MiB" },
	{ "a100-sxm4-80", GPU_FIG_GRAPH_LAUNCH_US, 1.34, GPU_PROV_MICROBENCH,
	  "gpu-benches gpu-small-kernels a100_80_graph: 1.34 us a kernel in a CUDA graph" },
	{ "a40", GPU_FIG_GRAPH_LAUNCH_US, 1.08, GPU_PROV_MICROBENCH,
	  "gpu-benches gpu-small-kernels a40_graph: 1.08 us a kernel in a CUDA graph" },
	{ "h200", GPU_FIG_GRAPH_LAUNCH_US, 1.26, GPU_PROV_MICROBENCH,
	  "gpu-benches gpu-small-kernels h200_graph: 1.26 us a kernel in a CUDA graph" },
	{ "l40", GPU_FIG_GRAPH_LAUNCH_US, 0.94, GPU_PROV_MICROBENCH,
	  "gpu-benches gpu-small-kernels l40_graph: 0.94 us a kernel in a CUDA graph" },
	{ "mi210", GPU_FIG_GRAPH_LAUNCH_US, 1.99, GPU_PROV_MICROBENCH,
	  "gpu-benches gpu-small-kernels mi210_graph: 1.99 us a kernel in a HIP graph" },
};
#define FIG_NROWS (sizeof fig_rows / sizeof fig_rows[0])

/* Each row's GPU, looked up once: gpu_figure() runs for every tensor-core
 * GEMM the predictor models (and every sample of tcgemm's fit), and
 * gpu_find() compares names. */
static const struct gpu_spec *fig_gpu[FIG_NROWS];
static pthread_once_t fig_once = PTHREAD_ONCE_INIT;

static void fig_resolve(void)
{
	for (size_t i = 0; i < FIG_NROWS; i++)
		fig_gpu[i] = gpu_find(fig_rows[i].gpu);
}

static const struct gpu_spec *row_gpu(size_t i)
{
	pthread_once(&fig_once, fig_resolve);
	return fig_gpu[i];
}

static _Atomic uint32_t fig_held_out_cc;

void gpu_figures_hold_out(uint32_t cc)
{
	fig_held_out_cc = cc;
}

uint32_t gpu_figures_held_out(void)
{
	return fig_held_out_cc;
}

int gpu_fp32_dedicated_lanes(const struct gpu_spec *g)
{
	return gpu_fp32_dual_issue(g) && (g->cc / 10 == 9 || g->cc / 10 == 10);
}

int gpu_fp32_dual_issue(const struct gpu_spec *g)
{
	if (!g || gpu_cc_is_amd(g->cc) || g->cc < 86 || !(g->peak_tflops[GPU_DT_FP32] > 0) ||
	    !g->sms || !g->boost_clock_mhz)
		return 0;
	double lanes = g->peak_tflops[GPU_DT_FP32] * 1e6 / (2.0 * g->sms * g->boost_clock_mhz);
	return lanes >= 96;
}

/* The measured row of kind f for GPU g (itself, else a board of its die,
 * gpu_same_die(), with as many SMs: a cut-down board of the die, the H20's
 * 78 SMs of GH100, runs other clocks and power per SM), none of compute
 * capability exclude_cc. */
static const struct fig_row *measured(const struct gpu_spec *g, enum gpu_figure_kind f,
				      uint32_t exclude_cc, const struct gpu_spec **of)
{
	const struct fig_row *die = NULL;
	const struct gpu_spec *die_g = NULL;
	if (g->cc == exclude_cc)
		return NULL;
	for (size_t i = 0; i < FIG_NROWS; i++) {
		const struct gpu_spec *m = fig_rows[i].kind == f ? row_gpu(i) : NULL;
		if (!m)
			continue;
		if (m == g) {
			*of = m;
			return &fig_rows[i];
		}
		if (!die && gpu_same_die(m, g) && m->sms == g->sms) {
			die = &fig_rows[i];
			die_g = m;
		}
	}
	*of = die_g;
	return die;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_dbl);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The value a figure's row says, in the kind's unit, normalised for the
 * rule: the L2 bandwidth per SM and clock (bytes), the others as they are. */
static double rule_unit(const struct gpu_spec *m, enum gpu_figure_kind f, double v)
{
	if (f == GPU_FIG_L2_BW || f == GPU_FIG_L2_PEAK_BW)
		return v * 1e3 / ((double)m->sms * m->boost_clock_mhz);
	if (f == GPU_FIG_DRAM_BW)
		return v / m->mem_bw_gbps;
	return v;
}

/* The rule of figure f for g: the median over the measured GPUs of g's
 * kind (vendor; for the FP32 figures, whether the SM dual-issues FP32) of
 * other architectures than exclude_cc; DRAM over gpus.csv's measured
 * bandwidths of kernel-level sources (no device table's).  Returns the
 * number of GPUs behind it. */
static size_t rule(const struct gpu_spec *g, enum gpu_figure_kind f, uint32_t exclude_cc, double *out)
{
	double v[64];
	size_t n = 0, ng;
	const struct gpu_spec *all = gpu_all(&ng);
	int amd = gpu_cc_is_amd(g->cc), dual = gpu_fp32_dual_issue(g);
	if (f == GPU_FIG_DRAM_BW) {
		for (size_t i = 0; i < ng && n < 64; i++)
			if (all[i].mem_bw_measured_gbps > 0 && all[i].cc != exclude_cc &&
			    gpu_cc_is_amd(all[i].cc) == amd && all[i].mem_bw_gbps > 0 &&
			    !gpu_mem_bw_devices_file(&all[i]))
				v[n++] = rule_unit(&all[i], f, all[i].mem_bw_measured_gbps);
	} else {
		for (size_t i = 0; i < FIG_NROWS && n < 64; i++) {
			const struct gpu_spec *m = fig_rows[i].kind == f ? row_gpu(i) : NULL;
			if (!m || m->cc == exclude_cc || gpu_cc_is_amd(m->cc) != amd)
				continue;
			if ((f == GPU_FIG_FP32_FMA_EFF || f == GPU_FIG_FMA_CLOCK) &&
			    gpu_fp32_dual_issue(m) != dual)
				continue;
			if (f == GPU_FIG_FP32_GEMM_EFF &&
			    gpu_fp32_dedicated_lanes(m) != gpu_fp32_dedicated_lanes(g))
				continue;
			v[n++] = rule_unit(m, f, fig_rows[i].value);
		}
	}
	if (!n)
		return 0;
	double r = median(v, n);
	if (f == GPU_FIG_L2_BW || f == GPU_FIG_L2_PEAK_BW)
		r *= (double)g->sms * g->boost_clock_mhz / 1e3;
	else if (f == GPU_FIG_DRAM_BW)
		r *= g->mem_bw_gbps;
	*out = r;
	return n;
}

enum gpu_provenance gpu_figure(const struct gpu_spec *g, enum gpu_figure_kind f, uint32_t exclude_cc,
			       struct gpu_figure_value *out)
{
	static const char *const rules[GPU_FIG_COUNT] = {
		[GPU_FIG_FP32_FMA_EFF] = "rule: median of the measured GPUs of its SM kind",
		[GPU_FIG_FMA_CLOCK] = "rule: median of the measured GPUs of its SM kind",
		[GPU_FIG_DRAM_BW] = "rule: datasheet x the vendor's median measured/datasheet",
		[GPU_FIG_L2_BW] = "rule: the vendor's median bytes per SM and clock x SMs x boost",
		[GPU_FIG_MAMF_BF16] = "rule: the vendor's median measured share of the datasheet",
		[GPU_FIG_MAMF_FP8] = "rule: the vendor's median measured share of the datasheet",
		[GPU_FIG_L2_PEAK_BW] = "rule: the vendor's median bytes per SM and clock x SMs x boost",
		[GPU_FIG_FP32_GEMM_EFF] = "rule: median of the measured GPUs of its SM kind",
		[GPU_FIG_LAUNCH_US] = "rule: the vendor's median measured",
		[GPU_FIG_GRAPH_LAUNCH_US] = "rule: the vendor's median measured",
	};
	const struct gpu_spec *of = NULL;
	const struct fig_row *r;
	memset(out, 0, sizeof *out);
	if (!g || (unsigned)f >= GPU_FIG_COUNT)
		return GPU_PROV_NONE;
	if (f == GPU_FIG_DRAM_BW && g->mem_bw_measured_gbps > 0 && g->cc != exclude_cc) {
		out->value = g->mem_bw_measured_gbps;
		out->prov = gpu_mem_bw_devices_file(g) ? GPU_PROV_DEVICE_TABLE : GPU_PROV_MICROBENCH;
		out->source = g->source;
		out->from = g->id;
		return out->prov;
	}
	if (f != GPU_FIG_DRAM_BW && (r = measured(g, f, exclude_cc, &of))) {
		out->value = r->value;
		out->prov = of == g ? r->prov : GPU_PROV_SAME_DIE;
		out->source = r->source;
		out->from = of->id;
		return out->prov;
	}
	if (rule(g, f, exclude_cc, &out->value)) {
		out->prov = GPU_PROV_RULE;
		out->source = rules[f];
		return out->prov;
	}
	if (f == GPU_FIG_DRAM_BW && g->mem_bw_gbps > 0) {
		out->value = g->mem_bw_gbps;
		out->prov = GPU_PROV_DATASHEET;
		out->source = "datasheet";
	}
	return out->prov;
}

double gpu_fp32_issue_factor(const struct gpu_spec *g)
{
	struct gpu_figure_value own;
	double v[64], ref;
	size_t n = 0;
	if (!gpu_fp32_dual_issue(g) || gpu_figure(g, GPU_FIG_FP32_FMA_EFF, 0, &own) == GPU_PROV_NONE)
		return 1;
	/* the GPUs the tile model learnt from issue every lane each cycle:
	 * the median FMA efficiency of the measured ones of that kind is the
	 * unit (the A100 SXM4's 0.98) */
	for (size_t i = 0; i < FIG_NROWS && n < 64; i++) {
		const struct gpu_spec *m = row_gpu(i);
		if (fig_rows[i].kind == GPU_FIG_FP32_FMA_EFF && m && !gpu_cc_is_amd(m->cc) &&
		    !gpu_fp32_dual_issue(m))
			v[n++] = fig_rows[i].value;
	}
	ref = n ? median(v, n) : 0;
	return ref > 0 ? own.value / ref : 1;
}

const char *gpu_figure_name(enum gpu_figure_kind f)
{
	static const char *const names[GPU_FIG_COUNT] = {
		"fp32_fma_eff", "fma_clock", "dram_bw_gbps", "l2_bw_gbps", "mamf_bf16", "mamf_fp8",
		"l2_peak_bw_gbps", "fp32_gemm_eff", "launch_us", "graph_launch_us",
	};
	return (unsigned)f < GPU_FIG_COUNT ? names[f] : "?";
}

const char *gpu_provenance_name(enum gpu_provenance p)
{
	static const char *const names[GPU_PROV_COUNT] = {
		"none", "datasheet", "microbenchmark", "measured", "same die", "rule", "device table",
	};
	return (unsigned)p < GPU_PROV_COUNT ? names[p] : "?";
}
