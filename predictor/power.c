/*
 * power.c - the FP32 power cap (power.h).
 *
 * With E joules per core-cycle, the CUDA cores draw cores x clock x E =
 * P_32 / 2 x E at full rate (an FMA is two FLOPs), so a board of power
 * limit TDP sustains 2 TDP / (P_32 E) of its boost-clock peak when that is
 * below 1.  This is why the 70-75 W P4 and T4 reach 0.4-0.6 of their
 * datasheet rate on long GEMMs and convolutions.  E depends on the node.
 * Dynamic energy is C V^2, C about proportional to the feature size; the
 * supply voltage fell from planar 28 nm to FinFET 16 nm and hardly since
 * (TSMC 12FFN, Volta and Turing, is a 16FF derivative), which is
 * POWER_NODE_LINEAR.  The tile model's weights were fitted with
 * POWER_NODE_SQUARE12 (its energy from its training GPUs' GEMM shortfalls,
 * pooled at 16 nm as (nm / 16)^2, tools/lab/train.c), which makes 12 nm
 * 0.56 of 16 nm where the linear rule says 0.75.
 *
 * One rule for both models was measured, each architecture held out, and
 * neither carries across (docs/tile-model.md, docs/conv.md):
 *  - POWER_NODE_SQUARE12 for convolutions, with the same measured 18.9 pJ
 *    at 7 nm (57.6 pJ at 16 nm under it): 21.7 % mean over the twelve
 *    pairs of NeuSight's sweep against 17.4 % (surfer-bench conv; the P4
 *    from the other three 30-38 % against 16-24 %: the P4 and the T4 are
 *    the only power-limited boards, and the rule carries one's energy to
 *    the other wrongly);
 *  - POWER_NODE_LINEAR for the tile model, retrained with its pool
 *    converted by it (51.3 pJ): NeuSight's test-shape GEMMs from another
 *    GPU / from the shape 26.6 / 20.4 % against 27.8 / 19.1 % (without the
 *    P4 22.7 / 17.9 against 17.6 / 12.8) and its 40 NVIDIA iterations
 *    11.2 % against 5.6 % (the V100 PCIe came out capped at 0.93, the T4
 *    at 0.45);
 *  - POWER_NODE_LINEAR with the measured POWER_FMA_PJ16 for the tile model
 *    too, retrained: 24.1 / 18.7 % (without the P4 19.6 / 15.2 %),
 *    iterations 8.4 % (V100 3.5 -> 9.1 %: with the P100 no longer capped,
 *    its GEMM shortfall, 0.71 of the V100's utilisation, which the fitted
 *    cap had absorbed, moved into the MLP and slowed every GPU like it).
 * So both rules live here, each model naming its own.
 */
#include "predictor/power.h"

#include <math.h>

double power_node_nm(uint32_t cc)
{
	/* TSMC 16FF (Pascal), 12FFN (Volta, Turing), 7N (A100), Samsung 8N
	 * (GA10x), TSMC 4N / a 5 nm class process (Ada, Hopper, Blackwell);
	 * AMD: TSMC N7 (MI100, gfx908), N6 (MI200, gfx90a), N5 compute dies
	 * (MI300, gfx942 and later). */
	if (gpu_cc_is_amd(cc)) {
		uint32_t gfx = cc - GPU_CC_AMD;
		return gfx < 0x90a ? 7 : gfx < 0x940 ? 6 : 5;
	}
	if (cc < 60) return 28;
	if (cc < 70) return 16;
	if (cc < 80) return 12;
	if (cc == 80) return 7;
	if (cc < 89) return 8;
	return 5;
}

/* POWER_NODE_SQUARE12 below 12 nm: against gpu-benches' pure FMA runs
 * (2 x board power / FLOP rate at the clock each ran; make bench-power),
 * with the committed tile weights' 60.2 pJ at 16 nm, 7 nm 19.7 pJ (A100
 * SXM4 40GB, 8 boards: 18.6-20.3 measured), 8 nm 22.6 (A40: 25.2-25.7),
 * 5 nm 14.1 (L40: 15.2 and 13.8; H200: 18.7); with (nm / 16)^2 all the
 * way the energies at 5-8 nm were 1.7-3x below those measurements. */
double power_node_energy(uint32_t cc, enum power_node_rule r)
{
	double nm = power_node_nm(cc);
	if (nm > 16 || (r == POWER_NODE_SQUARE12 && nm >= 12))
		return (nm / 16) * (nm / 16);
	if (r == POWER_NODE_LINEAR)
		return nm / 16;
	return (12.0 / 16) * (12.0 / 16) * (nm / 12);
}

/* g's CUDA-core FP32 rate, TFLOP/s, as its table row has it: a copy capped
 * below its TDP or paced by a job's slowest carries the clock share in
 * its peaks and keeps the row's TDP (gpu_row_rate()), so the cap of the
 * row is the one that applies on top of that share. */
static double pw_row_simt_tflops(const struct gpu_spec *g)
{
	return g ? gpu_row_rate(g, gpu_fp32_simt_tflops(g)) : 0;
}

double power_cap_pj(const struct gpu_spec *g, enum power_node_rule r)
{
	double simt = pw_row_simt_tflops(g);
	if (!g || !g->tdp_w || !(simt > 0) || gpu_cc_is_amd(g->cc))
		return INFINITY;
	/* 2 TDP / (P_32 x E x node) = 1 at E = 2 TDP / (P_32 x node), in pJ
	 * with P_32 in TFLOP/s */
	return 2.0 * g->tdp_w / (simt * power_node_energy(g->cc, r));
}

double power_sustained_fraction(const struct gpu_spec *g, double pj16, enum power_node_rule r)
{
	if (!(pj16 > 0) || isinf(power_cap_pj(g, r)))
		return 1;
	double e = pj16 * 1e-12 * power_node_energy(g->cc, r);  /* J per core-cycle */
	double s = 2.0 * g->tdp_w / (pw_row_simt_tflops(g) * 1e12 * e);
	return s < 1 ? s : 1;
}

/*
 * The power cap of a board run below its TDP (power.h).  Dynamic power is
 * C V^2 f; GPU Boost lowers the clock, and with it the voltage along the
 * part's V-F curve, until the board draws the cap.  Above the voltage
 * floor V follows f and the power goes as f^3, so the clock goes as the
 * cube root of the cap; below the floor only f moves and the clock goes
 * in proportion to the power, as in the FP32 cap above (a constant energy
 * per core-cycle).  Static power is left out, as the FP32 cap leaves it
 * out.  The floor is bounded by the within-board measurements there are
 * (training-stacks.md sec. 9):
 *  - an RTX 3090 capped at 315 of 350 W (0.90) ran prefill 3 % slower:
 *    the cube root gives 0.965, the proportion 0.90, so a 0.90 cap is
 *    still above the floor: POWER_VFLOOR_W <= 0.90;
 *  - a GB300 capped at 500 of 1400 W (0.357) ran cuBLAS GEMMs at 617
 *    TFLOP/s against 1600-2174 uncapped (0.28-0.39): the cube root would
 *    give 0.71, the proportion below the floor 0.357 / POWER_VFLOOR_W^(2/3)
 *    <= 0.39 needs POWER_VFLOOR_W >= 0.877.
 * POWER_VFLOOR_W = 0.90 takes the first bound (the GB300 then at 0.383).  Other
 * public points agree within their spread: an H200 NVL at 600 of 700 W
 * (0.857: 0.92 here) ran TE's BF16 GEMMs at 0.90 of the 700 W H100's rate
 * per peak; "10-15 %" slower steps for H100 at 600 W (unverified) against
 * 0.92 of the GEMM rate here.  Not used, because they compare different
 * boards: the A100 PCIe (300 W) reaches 0.93 of the SXM's (400 W) matmul
 * rate at the same peak clock (0.80 here; the SXM's GEMMs need not draw
 * its 400 W), and the tensor-core model's cross-GPU power rule
 * (tcgemm.c: share ~ (W / peak)^0.28, fitted across boards whose boost
 * clocks their makers chose for their TDP), which would keep the GB300 at
 * 0.75 at 500 W against the measured 0.28-0.39.
 */
double power_cap_clock_share(double cap_w, double tdp_w)
{
	if (!(cap_w > 0) || !(tdp_w > 0) || !(cap_w < tdp_w))
		return 1;
	double w = cap_w / tdp_w, fv = cbrt(POWER_VFLOOR_W), f;
	f = w >= POWER_VFLOOR_W ? cbrt(w) : w / (fv * fv);
	return f > POWER_CAP_MIN_SHARE ? f : POWER_CAP_MIN_SHARE;
}
