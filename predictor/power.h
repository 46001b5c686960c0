/*
 * power.h - the FP32 power cap of the tile model (tile.c) and the
 * convolution model (conv.c), in one place: a board whose TDP cannot feed
 * its CUDA cores at the boost clock sustains only part of its datasheet
 * FP32 rate.  The energy of a core-cycle scales with the chip's process
 * node; each model supplies the energy at 16 nm it uses (the tile model
 * fits it on its training GPUs and stores it in its weights, the
 * convolution model takes the measured POWER_FMA_PJ16) and the node rule
 * its constants were fitted with (power.c says why the two models keep
 * different ones, with the held-out measurements).
 */
#ifndef SURFER_POWER_H
#define SURFER_POWER_H

#include <stdint.h>

#include "gpu_specs/gpu.h"

/* The energy of an FP32 FMA core-cycle at 16 nm, pJ, measured: gpu-benches'
 * FMA loop on the A100 SXM4 40GB (2 x 181 W / 19192 GFLOP/s = 18.9 pJ at
 * 7 nm, gpu_specs/figures.c) over POWER_NODE_LINEAR's 7/16. */
#define POWER_FMA_PJ16 43.1

/* How the energy of a core-cycle scales from 16 nm to another node. */
enum power_node_rule {
	POWER_NODE_LINEAR,    /* nm / 16 at 16 nm and below, (nm / 16)^2 above:
			       * the convolution model's                       */
	POWER_NODE_SQUARE12,  /* (nm / 16)^2 down to 12 nm, (12/16)^2 nm / 12
			       * below: the tile model's (its fitted energy and
			       * weights assume it)                            */
};

/* The process node (nm) of compute capability cc's chips (public die
 * facts, not fitted). */
double power_node_nm(uint32_t cc);

/* The energy of an FP32 core-cycle on a chip of compute capability cc
 * relative to 16 nm under rule r. */
double power_node_energy(uint32_t cc, enum power_node_rule r);

/* The energy per FP32 core-cycle at 16 nm, pJ, above which g's power
 * limit binds under rule r: 2 TDP / (P_32 x power_node_energy()), with P_32
 * the CUDA cores' FP32 rate in TFLOP/s; INFINITY when g (NULL included)
 * has no TDP or FP32 rate, or is an AMD part (its FP32 GEMMs run on matrix
 * units, whose energy nothing here measures). */
double power_cap_pj(const struct gpu_spec *g, enum power_node_rule r);

/* The fraction of the boost-clock FP32 peak g sustains when a core-cycle
 * at 16 nm costs pj16 picojoules under rule r: min(1, power_cap_pj(g, r) /
 * pj16); 1 when pj16 <= 0 (no cap). */
double power_sustained_fraction(const struct gpu_spec *g, double pj16, enum power_node_rule r);

/* A board capped below its TDP (--power-limit, a trace header's
 * power_limit_w): the clock GPU Boost leaves a compute-bound kernel.
 * Dynamic power is clock x voltage^2 and the voltage follows the clock
 * down to the part's floor, so a cap takes the clock as the cube root of
 * the power near the TDP and in proportion to it below the floor (the
 * FP32 cap's constant energy per core-cycle, power.c).  POWER_VFLOOR_W is
 * the share of the TDP at which the voltage stops falling: the clock
 * there is its cube root (power.c gives the measurements that bound it). */
#define POWER_VFLOOR_W 0.90

/* The share of its uncapped SM clock a board of TDP tdp_w keeps under a
 * compute-bound load when capped at cap_w watts: w^(1/3) with w = cap / TDP
 * down to POWER_VFLOOR_W, then w / POWER_VFLOOR_W^(2/3) (the two meet
 * there); 1 when there is no cap
 * (cap_w <= 0), no TDP or the cap is not below it; at least
 * POWER_CAP_MIN_SHARE.  Every compute peak (FP32 cores and tensor cores
 * alike) takes it; a memory-bound kernel keeps its clock
 * (gpu_memory_bound_clock_mhz()). */
double power_cap_clock_share(double cap_w, double tdp_w);

/* The smallest share power_cap_clock_share() returns (a cap near 0 W). */
#define POWER_CAP_MIN_SHARE 0.05


#endif
