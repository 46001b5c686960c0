/*
 * figures.h - what a GPU achieves, not what its datasheet promises: the
 * FP32 FMA rate under load, the clock it holds there, DRAM and L2
 * bandwidth, the tensor cores' best matmul rate per dtype and the time a
 * kernel launch costs, each with where it comes from.
 *
 * Provenance, strongest first: measured on the GPU itself (by us, or by a
 * public microbenchmark: te42kyfo/gpu-benches, the ml-engineering MAMF
 * table), the same die (another board with the same compute capability
 * and SM count was measured), a rule (fitted on the measured GPUs of other
 * architectures: `surfer-bench figures` prints each rule's error with the
 * predicted GPU's architecture held out), another predictor's device table
 * (a DRAM figure with no method stated: kept as the GPU's figure, but the
 * rule ranks above it where it is used for tensor-core GEMMs, gpus.c's
 * gpu_mem_bw_kernel_gbps(), and no rule is built from it), the datasheet.  Nothing here is
 * fitted by looking at predictions of a held-out GPU.
 */
#ifndef SURFER_FIGURES_H
#define SURFER_FIGURES_H

#include <stddef.h>
#include <stdint.h>

#include "gpu_specs/gpu.h"

enum gpu_figure_kind {
	GPU_FIG_FP32_FMA_EFF = 0, /* FP32 FMA rate under load over the datasheet
				   * rate at the clock it ran (0..1)          */
	GPU_FIG_FMA_CLOCK,        /* the clock held under that load over the
				   * boost clock (0..1)                        */
	GPU_FIG_DRAM_BW,          /* achievable DRAM bandwidth, GB/s           */
	GPU_FIG_L2_BW,            /* L2 bandwidth at a quarter of its capacity,
				   * GB/s                                       */
	GPU_FIG_MAMF_BF16,        /* best BF16 matmul rate over the datasheet's
				   * (0..1)                                     */
	GPU_FIG_MAMF_FP8,         /* the same for FP8 (e4m3)                  */
	GPU_FIG_L2_PEAK_BW,       /* L2 bandwidth at its best data set (a few
				   * MB, each SM's reads served by the near
				   * L2 partition), GB/s                      */
	GPU_FIG_FP32_GEMM_EFF,    /* a large FP32 GEMM's (SGEMM, TF32 off)
				   * rate over the datasheet FP32 rate (0..1);
				   * used where the SM's FP32 lanes are its own
				   * (gpu_fp32_dedicated_lanes())              */
	GPU_FIG_LAUNCH_US,        /* one kernel's time when tiny kernels are
				   * launched back to back on a stream, us:
				   * the launch overhead (the host's launch
				   * call or the GPU's front end, whichever
				   * is slower)                               */
	GPU_FIG_GRAPH_LAUNCH_US,  /* the same launched from a CUDA graph, us:
				   * the GPU's own cost per kernel             */
	GPU_FIG_COUNT
};

enum gpu_provenance {
	GPU_PROV_NONE = 0,        /* no figure and no rule                     */
	GPU_PROV_DATASHEET,
	GPU_PROV_MICROBENCH,      /* a public microbenchmark of this GPU       */
	GPU_PROV_MEASURED,        /* measured by us on this GPU                */
	GPU_PROV_SAME_DIE,        /* measured on a board of the same die       */
	GPU_PROV_RULE,            /* filled by the figure's rule               */
	GPU_PROV_DEVICE_TABLE,    /* another predictor's device table (Habitat's
				   * devices.yml, CentML's devices.csv): no
				   * kernel, size or clock stated; DRAM only
				   * (gpu_mem_bw_devices_file())                */
	GPU_PROV_COUNT
};

struct gpu_figure_value {
	double value;             /* in the kind's unit; 0 when PROV_NONE      */
	enum gpu_provenance prov;
	const char *source;       /* static: the measurement or the rule       */
	const char *from;         /* the GPU id measured (MICROBENCH, MEASURED,
				   * SAME_DIE), else NULL                       */
};

/* Figure f of g.  exclude_cc != 0 leaves every GPU of that compute
 * capability out of the table, measurements and rules alike (how the
 * rules are checked: the GPU's own architecture held out).  Returns
 * out->prov. */
enum gpu_provenance gpu_figure(const struct gpu_spec *g, enum gpu_figure_kind f, uint32_t exclude_cc,
			       struct gpu_figure_value *out);

/* The FP32 issue efficiency of g relative to the GPUs whose SMs issue
 * every FP32 lane each cycle (the kind the tile model was trained on:
 * their FP32 FMA efficiency, so 1 for them): what gpu_fp32_simt_tflops()
 * multiplies the datasheet rate by.  1 for AMD parts. */
double gpu_fp32_issue_factor(const struct gpu_spec *g);

/* Whether g's SMs count FP32 lanes that share their issue slots (compute
 * capability 8.6 on, 96 or more FP32 lanes per SM: GA10x, Ada, Hopper,
 * Blackwell): the datasheet rate needs every warp instruction to be an
 * FP32 one issued back to back. */
int gpu_fp32_dual_issue(const struct gpu_spec *g);

/* Whether g's 128 FP32 lanes per SM are FP32 units of their own, not
 * shared with INT32 (Hopper, compute capability 9.x, and the data-centre
 * Blackwell parts, 10.x: 64 INT32 units beside them), where GA10x, Ada and
 * the RTX Blackwell parts (8.6, 8.9, 12.x) issue half their FP32 lanes'
 * work through units INT32 shares. */
int gpu_fp32_dedicated_lanes(const struct gpu_spec *g);

/* The compute capability whose measured figures the predictors' own use
 * of them leaves out (gpu_fp32_gemm_tflops()), 0 for none: a bench sets
 * the predicted GPU's before predicting it, so a figure measured on that
 * GPU (its own SGEMM) does not stand behind a number reported as held
 * out.  Process-wide, as the benches predict one GPU at a time. */
void gpu_figures_hold_out(uint32_t cc);
uint32_t gpu_figures_held_out(void);

const char *gpu_figure_name(enum gpu_figure_kind f);
const char *gpu_provenance_name(enum gpu_provenance p);

#endif
