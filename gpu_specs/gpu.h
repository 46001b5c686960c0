/*
 * gpu.h - the GPU database: figures of every GPU surfer knows, lookup by
 * id/name/alias, and the per-compute-capability limits occupancy needs.
 *
 * The table lives in gpu_specs/gpus.csv and is compiled into the binaries
 * (no data path at run time).  Records are plain value structs, read-only.
 */
#ifndef SURFER_GPU_H
#define SURFER_GPU_H

#include <stddef.h>
#include <stdint.h>

/* Dense tensor-core (or SIMT where no tensor cores) peak throughput by dtype. */
enum gpu_dtype {
	GPU_DT_FP32 = 0,   /* SIMT FP32 (no tensor cores)      */
	GPU_DT_FP64,       /* SIMT FP64                        */
	GPU_DT_TF32,       /* tensor cores, dense              */
	GPU_DT_FP16,
	GPU_DT_BF16,
	GPU_DT_FP8,
	GPU_DT_INT8,
	GPU_DT_FP4,
	GPU_DT_COUNT
};

/* AMD Instinct GPUs have no compute capability: their cc is GPU_CC_AMD
 * plus the hex number of their LLVM gfx target (gfx908 -> GPU_CC_AMD +
 * 0x908), written "gfx908" in the CSV files.  Every cc stays distinct, and
 * a rule that belongs to NVIDIA's compute capabilities (cc >= 86: dual-
 * issue FP32; cc >= 90: Hopper tiles, NVLink SHARP) asks gpu_cc_is_amd()
 * first. */
#define GPU_CC_AMD 0x10000u
static inline int gpu_cc_is_amd(uint32_t cc) { return cc >= GPU_CC_AMD; }

/* Whether cc is one of the n in list (a fit's held-out architectures). */
static inline int gpu_cc_in(uint32_t cc, const uint32_t *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == cc)
			return 1;
	return 0;
}

/* cc as people write it: "8.6", or "gfx90a" for an AMD part.  Returns buf. */
char *gpu_cc_string(uint32_t cc, char *buf, size_t len);

/* Limits of one compute capability (CUDA programming guide, occupancy
 * calculator data; for AMD the CDNA ISA guides' per-CU limits). */
struct gpu_cc_limits {
	uint32_t cc;                    /* major*10 + minor, e.g. 86             */
	uint32_t max_blocks_per_sm;
	uint32_t max_threads_per_sm;
	uint32_t max_warps_per_sm;
	uint32_t max_threads_per_block;
	uint32_t regs_per_sm;           /* 32-bit registers                      */
	uint32_t max_regs_per_block;
	uint32_t max_regs_per_thread;
	uint32_t reg_alloc_unit;        /* registers, allocated per warp         */
	uint32_t warp_alloc_granularity;
	uint32_t smem_per_sm;           /* bytes, max configurable               */
	uint32_t smem_per_block_optin;  /* bytes                                 */
	uint32_t smem_alloc_unit;       /* bytes                                 */
	uint32_t smem_reserved_per_block; /* bytes the driver reserves per block */
	const uint32_t *carveouts_kb;   /* shared-memory carveout options (KB)   */
	uint32_t ncarveouts;
};

struct gpu_spec {
	const char *id;                 /* canonical, e.g. "h100-sxm"            */
	const char *name;               /* marketing name, "NVIDIA H100 SXM5 80GB" */
	const char *const *aliases;     /* driver names and short forms, NULL-terminated */
	uint32_t cc;                    /* major*10 + minor                      */
	uint32_t sms;
	uint32_t base_clock_mhz, boost_clock_mhz;
	double mem_gb;                  /* DRAM size, GB as marketed             */
	double mem_mib;                 /* as the driver reports it (totalGlobalMem
					 * or nvidia-smi), MiB; 0 unknown: see
					 * gpu_mem_bytes()                       */
	double mem_bw_gbps;             /* datasheet DRAM bandwidth, GB/s        */
	double mem_bw_measured_gbps;    /* achievable (public measurement), 0 unknown */
	double l2_mb;
	double peak_tflops[GPU_DT_COUNT]; /* dense peak, TFLOP/s (TOPS for INT8); 0 = none */
	uint32_t pcie_gen, pcie_lanes;
	double nvlink_gbps;             /* total NVLink bandwidth, GB/s; 0 none  */
	uint32_t nvlink_peers;          /* GPUs one NVLink domain joins (2: bridged
					 * PCIe cards, 8: HGX/DGX boards); 0 none */
	uint32_t tdp_w;
	const char *source;             /* where the figures come from           */
	const struct gpu_cc_limits *limits;
	double clock_share;             /* share of its table row's SM clock the
					 * compute peaks and clocks of a derated
					 * copy carry (gpu_derate_compute); 0 in
					 * a table row: read gpu_clock_share()   */
};

/* All GPUs, in table order, and their number. */
const struct gpu_spec *gpu_all(size_t *n);

/* Finds a GPU by id, marketing name or alias, case-insensitively (and
 * ignoring '-', '_' and spaces differences as the implementation documents).
 * NULL when unknown. */
const struct gpu_spec *gpu_find(const char *name);

/* Whether a and b are the same board: the same row, or rows of the same id
 * (a copy of a row whose figures a run derates, --power-limit).  0 when
 * either is NULL. */
int gpu_same(const struct gpu_spec *a, const struct gpu_spec *b);

/* The GPUs a name no key matches may mean: those with a name holding all of
 * its words (gpu_find()'s word rule: "V100-PCIe" is within "Tesla V100
 * PCIe 16GB" and "... 32GB"), a word "sxm" standing for a name's "sxm4" or
 * "sxm5", and a memory size or type the GPU's names lack standing for its
 * memory ("L40S 48GB", "H100 SXM 80GB HBM3").  Writes up to max ids into
 * out; returns how many GPUs there are (possibly more than max). */
size_t gpu_named_by(const char *name, const char **out, size_t max);

/* Writes up to max closest known ids to name (edit distance) into out;
 * returns how many. */
size_t gpu_suggest(const char *name, const char **out, size_t max);

/* Limits for compute capability cc (major*10+minor), NULL when unknown. */
const struct gpu_cc_limits *gpu_cc_find(uint32_t cc);

/* Achievable DRAM bandwidth in GB/s: the measured one when known, else the
 * datasheet figure times a documented efficiency; a GDDR board that runs
 * in-band ECC (gpu_mem_ecc_inband()) carries data on 15/16 of it
 * (gpus.c says where each figure comes from). */
double gpu_mem_bw_eff_gbps(const struct gpu_spec *g);

/* Whether g's measured DRAM bandwidth (gpus.csv's mem_bw_meas_gbps) is a
 * figure of another predictor's device table (Habitat's devices.yml,
 * CentML's devices.csv: P100 PCIe, T4, RTX 2080 Ti, L4) rather than a
 * kernel-level stream benchmark (gpu-benches' gpu-stream). */
int gpu_mem_bw_devices_file(const struct gpu_spec *g);

/* gpu_mem_bw_eff_gbps() from kernel-level sources only: a device-table
 * figure (gpu_mem_bw_devices_file()) gives way to the rule a board with no
 * measurement takes (gpus.c says why and who uses which). */
double gpu_mem_bw_kernel_gbps(const struct gpu_spec *g);

/* Whether g's DRAM is HBM: 1 for NVIDIA's x.0 dies from 6.0 to 9.0 and the
 * 10.x ones (GP100, GV100, GA100, GH100, GB100/GB110) and AMD's Instinct
 * parts, 0 for the rest (GDDR; LPDDR on Jetson-class parts). */
int gpu_mem_hbm(const struct gpu_spec *g);

/* Whether g's table memory size shows in-band ECC on: 1 when the driver's
 * figure (mem_mib) is below 0.95 of the marketed GiB on a board without
 * HBM (GDDR ECC keeps 1/16 of the memory for its check bits: A40 0.924,
 * L40 0.925, L20 0.928, L4 0.937, T4 0.938; ECC off 0.987-0.990), 0 when
 * it is not, -1 when the table has no figure or the DRAM is HBM (its ECC
 * bits travel beside the data, at no cost in bandwidth or size). */
int gpu_mem_ecc_inband(const struct gpu_spec *g);

/* The FP32 rate of the CUDA cores that code can issue, TFLOP/s: the
 * datasheet peak times gpu_fp32_issue_factor() (figures.h): 1 where every
 * FP32 lane issues each cycle (the GPUs the tile model learnt from), and
 * on parts whose datasheet counts 128 FP32 lanes per SM from compute
 * capability 8.6 on (GA10x, Ada, Hopper, Blackwell) the FMA efficiency
 * gpu-benches' gpu-roofline measured on that GPU or its die (A40, L40,
 * H200), else the median of the measured ones of other architectures,
 * over the A100's (0.98).  0 when the GPU lists no FP32 peak. */
double gpu_fp32_simt_tflops(const struct gpu_spec *g);

/* The FP32 rate a GEMM can reach, TFLOP/s: the CUDA cores' on NVIDIA
 * (gpu_fp32_simt_tflops()), but where the 128 lanes per SM are all FP32
 * units (Hopper, data-centre Blackwell: gpu_fp32_dedicated_lanes()) the
 * datasheet peak times the GPU's fp32_gemm_eff figure (figures.h: measured
 * by us on the H200, 0.757; its die's boards; the rule for the others),
 * and with no figure at all (its SM kind held out) times
 * GPU_FP32_HOPPER_GEMM_EFF: the FFMA share of an SGEMM main loop, counted
 * from the instructions of cuBLAS's SIMT tile (256 x 128 x 8, 256
 * threads: per k step 128 FFMA, 6 LDS.128 and about 1.5 other
 * instructions of the global-to-shared copy and the loop, 0.94; 128 x
 * 128: 0.93), not fitted to any measurement.  A pure FMA loop with its
 * loads and counter (gpu_fp32_simt_tflops()) reaches less there: 0.61 of
 * the peak on the H200 at 1980 MHz (gpu-benches).  The H200's measured
 * SGEMMs (0.743 median over NeuSight's 63 largest test shapes, 0.757 at
 * 4096^3) lie between the two: the instruction count is 23 % too fast
 * there, and NeuSight's FP32 iterations on the H200 come out 17.1 % fast
 * with it.  With a figure the rate is a whole SGEMM's, not a peak under
 * which a tile runs: the tile model holds its time of the figure's GEMM
 * to it (tile.c's fig_gemm_scale()).  On AMD CDNA 1-3
 * the matrix cores' FP32 MFMA rate, twice the vector ALUs' unpacked FP32
 * rate the fp32 column holds (MI100 46.1 against 23.1, MI210 45.3 against
 * 22.6, MI300X 163.4 against 81.7 TF in AMD's datasheets), which rocBLAS
 * and hipBLASLt use for SGEMM. */
double gpu_fp32_gemm_tflops(const struct gpu_spec *g);
#define GPU_FP32_HOPPER_GEMM_EFF 0.93

/* The share of the datasheet matrix rate PyTorch's matmuls reach on g's
 * vendor relative to NVIDIA's: 1 on NVIDIA; on AMD the median efficiency
 * of AMD's parts in the ml-engineering MAMF table (best BF16 matmul over
 * the datasheet peak: MI300X 51.4%, MI325X 60.4%, MI355X 68.0%) over
 * NVIDIA's median (80.3% over seven parts, A100 to GB200): 0.75.  The
 * GEMM models trained on NVIDIA GPUs scale an AMD part's matrix peaks by
 * it. */
#define GPU_AMD_MATRIX_EFF 0.75
double gpu_matrix_eff(const struct gpu_spec *g);

/* Device memory as the driver reports it, bytes: mem_mib x 2^20, or when
 * the table has no figure mem_gb GiB x GPU_MEM_UNKNOWN_RATIO, the lowest
 * ratio of a known figure to its marketed size (the A40's 0.924: GDDR6
 * with ECC on keeps 1/16 for the check bits, HBM parts lose about 1 %). */
#define GPU_MEM_UNKNOWN_RATIO 0.92
double gpu_mem_bytes(const struct gpu_spec *g);

/* What a PyTorch process cannot use of gpu_mem_bytes(), bytes: the CUDA (or
 * HIP) context of the process with its loaded modules, and the workspaces
 * and rounding of the libraries and the caching allocator, by architecture
 * (the figures and their sources are in gpus.c).  *source, when not NULL,
 * gets a static string naming where the figure comes from. */
double gpu_mem_reserve_bytes(const struct gpu_spec *g, const char **source);

/* gpu_mem_bytes() less gpu_mem_reserve_bytes(): what a model's tensors can
 * take, bytes (the capacity "fits" and "max_batch_fits" compare with). */
double gpu_mem_usable_bytes(const struct gpu_spec *g);

/* Host-to-device link bandwidth in GB/s per direction (PCIe gen x lanes). */
double gpu_host_link_gbps(const struct gpu_spec *g);

/* Writes to *out g with its SM clock at f (0 < f < 1) of g's: its compute
 * peaks and clocks scaled by f, its memory bandwidth, TDP and the rest
 * unchanged, and f kept in out->clock_share (times g's own share when g is
 * itself a derated copy): a board capped below its power, the slowest
 * board of a job.  Returns out. */
struct gpu_spec *gpu_derate_compute(const struct gpu_spec *g, double f, struct gpu_spec *out);

/* The share of its table row's SM clock g's compute figures carry: the
 * product of the derates gpu_derate_compute() gave a copy, 1 for a table
 * row (clock_share 0) and for NULL. */
double gpu_clock_share(const struct gpu_spec *g);

/* A compute figure of g (a peak or a rate derived from its peaks, TFLOP/s
 * or FLOP/s) as g's table row has it: x / gpu_clock_share(g).  A derated
 * copy keeps its row's TDP and scales its peaks, so the power rules (the
 * tensor-core model's watts per TFLOP/s, the FP32 cap of power.c) read
 * the row's figures through this and the derate reaches a prediction
 * once, through the copy's peaks; with the copy's own peaks the rules
 * would count it a second time (an L40S at 300 W: GEMMs 1.157x longer
 * where the clock share alone gives 1.087x). */
double gpu_row_rate(const struct gpu_spec *g, double x);

/* The SM clock a memory-bound kernel runs g's SMs at, MHz: the table row's
 * boost clock, in a derated copy too (boost_clock_mhz / gpu_clock_share()).
 * Both derates are of a compute-bound load: a kernel that waits on DRAM
 * draws less than a power cap, so GPU Boost leaves its clock where it is
 * (training-stacks.md sec. 9: under a binding cap the SM clock drops, the
 * memory clock does not move), and the spread between boards of one model
 * that sets a job's pace is a spread of sustained matrix rate (the MAMF
 * notes of the same section).  The memory-bound models (vecop.c's SM
 * term, attention.c's per-SM issue rate of decode) read their clock here
 * and nowhere else.  0 when g is NULL or has no clock. */
double gpu_memory_bound_clock_mhz(const struct gpu_spec *g);

/* ---- systems --------------------------------------------------------- */

/* The network between nodes. */
enum gpu_net {
	GPU_NET_NONE = 0, GPU_NET_IB_HDR, GPU_NET_IB_NDR, GPU_NET_ROCE, GPU_NET_EFA,
	GPU_NET_ETH, GPU_NET_COUNT
};

/* A machine GPUs come in (gpu_specs/systems.csv): the node, what joins its
 * GPUs, the network between nodes.  Plain value records, read-only. */
struct gpu_system {
	const char *id;                 /* "dgx-h100"                            */
	const char *name;               /* "NVIDIA DGX H100"                     */
	const struct gpu_spec *gpu;     /* the GPU it holds                      */
	uint32_t gpus_per_node;         /* GPUs of one host                      */
	uint32_t nvlink_domain;         /* GPUs one NVLink domain joins (may span
					 * hosts: 72 on GB200 NVL72); 0 none     */
	int nvls;                       /* NVLink SHARP in the NVSwitches        */
	uint32_t nics_per_node;         /* compute NICs of a host                */
	double nic_gbit;                /* line rate of one NIC, Gb/s; 0 unknown */
	enum gpu_net net;
	double net_latency_us;          /* one-way GPU-to-GPU across nodes, us   */
	int sharp;                      /* in-network reduction (IB SHARP)       */
	uint32_t pcie_p2p;              /* GPUs without NVLink that reach each
					 * other peer-to-peer over PCIe (one
					 * group, e.g. behind one switch); rings
					 * of more go through host memory; 0:
					 * none, or unknown                      */
	int is_default;                 /* the system its GPU assumes            */
	double host_mem_gbps;           /* the host CPUs' DRAM peak, GB/s; 0
					 * unknown                              */
	const char *source;
};

/* All systems, in table order, and their number. */
const struct gpu_system *gpu_system_all(size_t *n);

/* A system by id or name (compared as gpu_find() compares GPU names); NULL
 * when unknown. */
const struct gpu_system *gpu_system_find(const char *name);

/* The system a run on g assumes: the row marked default for g (gpu_same:
 * a derated copy of a row keeps its system); NULL when
 * the table has none (the collective model then takes one node of g's
 * NVLink domain, or 8 PCIe cards, and no network). */
const struct gpu_system *gpu_system_default(const struct gpu_spec *g);

/* Whether s can hold g: GPU_SYSTEM_HOLDS when g is its GPU (gpu_same),
 * GPU_SYSTEM_SAME_LINKS when g is another GPU of the same compute
 * capability with the same NVLink (bandwidth and domain) and PCIe
 * generation, so the system's links are the ones g would have (the H100
 * SXM 96 GB on a DGX H100's InfiniBand network), GPU_SYSTEM_OTHER
 * otherwise (an A100 on a DGX H100: other links, another machine). */
enum gpu_system_fit { GPU_SYSTEM_OTHER = 0, GPU_SYSTEM_HOLDS, GPU_SYSTEM_SAME_LINKS };
enum gpu_system_fit gpu_system_fit(const struct gpu_system *s, const struct gpu_spec *g);

/* The machine whose links g's collectives take: named (a --system) where
 * it holds g or a GPU of the same links (gpu_system_fit()) or g is NULL
 * (no GPU to hold: the system's own), else g's default system; NULL when
 * neither is known. */
const struct gpu_system *gpu_system_for(const struct gpu_system *named, const struct gpu_spec *g);

/* Network rate one GPU of s can use per direction when every GPU of its
 * node sends at once, GB/s of line rate: NICs x rate / GPUs; 0 unknown. */
double gpu_system_net_gbps(const struct gpu_system *s);

const char *gpu_net_name(enum gpu_net n);

/* ---- occupancy ------------------------------------------------------ */

enum gpu_occ_limit {
	GPU_OCC_NONE = 0, GPU_OCC_BLOCKS, GPU_OCC_WARPS, GPU_OCC_REGS,
	GPU_OCC_SMEM, GPU_OCC_INVALID  /* the launch cannot run at all */
};

struct gpu_occupancy {
	uint32_t blocks_per_sm;         /* resident blocks per SM, 0 = cannot run */
	uint32_t active_warps;          /* per SM                               */
	double occupancy;               /* active warps / max warps per SM      */
	enum gpu_occ_limit limited_by;
};

/* Resident blocks per SM of a launch, as the driver computes it under
 * default settings (cudaOccupancyMaxActiveBlocksPerMultiprocessor with the
 * default carveout preference; dynamic shared memory above 48 KB counts as
 * opted in).  smem_static and smem_dynamic are bytes per block. */
int gpu_occupancy(const struct gpu_cc_limits *lim, uint32_t threads_per_block,
		  uint32_t regs_per_thread, uint32_t smem_static,
		  uint32_t smem_dynamic, struct gpu_occupancy *out);

const char *gpu_occ_limit_name(enum gpu_occ_limit l);
const char *gpu_dtype_name(enum gpu_dtype d);
/* Bytes an element of d takes in memory (TF32 is stored as FP32; 4 for an
 * unknown type). */
double gpu_dtype_bytes(enum gpu_dtype d);

/* ---- additions ------------------------------------------------------ */

#include <stdio.h>

/* Efficiency gpu_mem_bw_eff_gbps() applies to the datasheet bandwidth when
 * no measurement is known: the median of measured/datasheet over the GPUs
 * of gpus.csv of the same vendor that have a measurement (NVIDIA 0.68 to
 * 0.95; AMD: the MI100 0.850 and the MI210 0.854). */
#define GPU_MEM_BW_EFF_DEFAULT 0.89
#define GPU_MEM_BW_EFF_DEFAULT_AMD 0.85
/* The same for an NVIDIA GDDR board whose ECC state the table knows
 * (gpu_mem_ecc_inband() >= 0), with ECC off: the median of the GDDR boards
 * gpu-benches' gpu-stream measured (A40 663 of 696, 0.953; L40 816 of 864,
 * 0.944), both with ECC off as their reads prove (679 and 844 GB/s, 0.976
 * of the datasheet: more than in-band ECC's 15/16 leaves).  Either alone:
 * 0.953 and 0.944 (gpus.c: the decode errors with the held-out
 * architecture's board left out). */
#define GPU_MEM_BW_EFF_GDDR 0.949
/* The share of a GDDR board's bandwidth that carries data with in-band ECC
 * on: one check byte travels over the same pins per 16 bytes (the 1/16 of
 * the memory it reserves). */
#define GPU_MEM_ECC_INBAND_SHARE (15.0 / 16.0)

/* All compute capabilities with known limits, ascending, and their number. */
const struct gpu_cc_limits *gpu_cc_all(size_t *n);

/* Like gpu_occupancy() with an explicit shared-memory carveout preference
 * in percent of the largest carveout (cudaFuncAttributePreferredShared-
 * MemoryCarveout): -1 is the default (no preference), 0..100 a preference.
 * Returns -EINVAL for a NULL argument or a preference outside -1..100. */
int gpu_occupancy_carveout(const struct gpu_cc_limits *lim,
			   uint32_t threads_per_block, uint32_t regs_per_thread,
			   uint32_t smem_static, uint32_t smem_dynamic,
			   int carveout_pct, struct gpu_occupancy *out);

/* Prints every GPU to f: a table that fits 100 columns (json == 0) or a
 * JSON array of objects (json != 0) with id, name, aliases (array), cc (a
 * string "major.minor"), sms, base_clock_mhz, boost_clock_mhz, mem_gb,
 * mem_mib (null when unknown), mem_usable_gib (gpu_mem_usable_bytes()),
 * mem_bw_gbps, mem_bw_measured_gbps (null when unknown), l2_mb,
 * fp32_tflops, fp64_tflops, tensor_tflops (object by dtype name: tf32,
 * fp16, bf16, fp8, int8, fp4; only those the GPU has), pcie_gen,
 * pcie_lanes, nvlink_gbps, tdp_w, source.  Returns 0, or -EIO when writing
 * fails, -ENOMEM when out of memory.  Needs -ljansson at link time. */
int gpu_list_print(FILE *f, int json);

#endif
