/*
 * conv_pick.c - which kernel cuDNN runs a forward convolution with on an
 * architecture whose picks we measured, and that kernel's time.
 *
 * Why: the shape form (conv.c) times a config's convolution as one
 * implicit GEMM of an assumed 128 x 64 (or 128 x 32) tile at one fitted
 * efficiency.  On Hopper cuDNN 9.19 runs no Winograd and picks among
 * tiles whose efficiencies differ twofold: on our H200's 3797 sweep
 * shapes 1624 ran sm80_xmma_fprop_implicit_gemm's 32 x 32 tile (small
 * outputs over long reductions; 222 of them its indexed variant, 1.3 x
 * as slow), 938 its 256 x 64, 728 its 128 x 32, and
 * 497 FFT (363 with 16 x 16 transforms, 86 with 32 x 32, 48 with 64 x
 * 64, 10 of them as one complex GEMM launched per frequency).  The shape
 * form missed the H100's 4875 by 24.2 % (its 256 x 64 shapes a median
 * 25 % slow, its FFT ones 24 % fast) where each kind timed as itself,
 * told the kind, misses them by about 10.6 %.  So the kind is learnt as
 * the tile picks are (tilepick.c) and each kind has its own constants,
 * both from the same measured rows.
 *
 * The pick: the vote of the CONV_PICK_VOTES measured shapes nearest in
 * octaves of the implicit GEMM's rows, columns and reduction and of the
 * output's side (cuDNN's FFT picks follow the image's size, not the
 * GEMM's).  Chosen on the H200 alone, the even rows' table and constants
 * predicting the odd rows and the reverse (the time error of the kind so
 * picked, written into conv_sm90_picks.c by its generator): 1, 5, 9, 15,
 * 25 and 41 voters 28.0 / 20.0, 17.1 / 17.6, 15.7 / 14.5, 14.6 / 14.7,
 * 14.5 / 14.1 and 14.4 / 14.4 %; 15, where it levels off (12.9 / 12.7 %
 * with the indexed kind split off later).  The vote misses the kernel
 * cuDNN ran on a sixth of the H100's shapes, which is most of what
 * remains.
 *
 * The kinds' times, each kind's constants fitted on its own rows:
 *  - implicit GEMM, an M x N tile over the reduction K: blocks of the
 *    tile, b at a time on each SM, each taking 2 M N (K + steps) FLOPs of
 *    an SM's share of the FMA rate times eff; the last wave counted whole:
 *      t_c = ceil(tiles / (SMs b)) b 2 M N (K + steps) / (P_32 / SMs x eff)
 *    joined with the traffic's time bytes / BW by roofline_join_ns();
 *    b is the best of 1, 2, 3, 4, 6 and 8 (the 32 x 32 tile's two-warp
 *    blocks fit 2 on the H200, the larger tiles 1);
 *  - FFT with L x L transforms: the overlap-save tiles of L - R + 1
 *    outputs per side, T = ceil((Q + R - 1) / (L - R + 1))^2 per image,
 *    and L (L/2 + 1) frequencies; the complex GEMM's 8 N T C K F FLOPs at
 *    eff of the FMA rate, plus the transformed input, filters and output
 *    (8 F bytes each of N T C, K C and N T K values) written and read once
 *    beside the convolution's own bytes, mem_x FMA-rate FLOPs a byte:
 *    separate kernels, so the times add.  The transforms are timed at the
 *    SMs' pace, not the DRAM's: the H100 (3.35 TB/s) runs every FFT shape
 *    of the sweep the H200 (4.8 TB/s) ran with the same kernel in its
 *    time, as it does the implicit GEMMs (median ratio 1.000; set after
 *    seeing the H100, docs/conv.md);
 *  - the per-frequency FFT adds its 2112 launches (64 x 33 frequencies),
 *    launch_ns each.
 * The floor is the measuring host's (added only with floor, as conv.c's
 * shape floor).
 */
#include "predictor/conv.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "predictor/nelder.h"
#include "predictor/roofline.h"

static const struct {
	const char *name;
	uint32_t tm, tn; /* implicit GEMM: its tile                        */
	uint32_t fft;    /* FFT: its transform's side L                    */
	int per_freq;    /* FFT: one complex GEMM launched per frequency   */
} kinds[CONV_KIND_COUNT] = {
	[CONV_KIND_IG_32X32] = {"implicit-gemm-32x32", 32, 32, 0, 0},
	[CONV_KIND_IG_32X32_INDEXED] = {"implicit-gemm-32x32-indexed", 32, 32, 0, 0},
	[CONV_KIND_IG_128X32] = {"implicit-gemm-128x32", 128, 32, 0, 0},
	[CONV_KIND_IG_256X64] = {"implicit-gemm-256x64", 256, 64, 0, 0},
	[CONV_KIND_FFT_16] = {"fft-16", 0, 0, 16, 0},
	[CONV_KIND_FFT_32] = {"fft-32", 0, 0, 32, 0},
	[CONV_KIND_FFT_64] = {"fft-64", 0, 0, 64, 0},
	[CONV_KIND_FFT_64_PER_FREQ] = {"fft-64-per-frequency", 0, 0, 64, 1},
};

const char *conv_kind_name(enum conv_kind c)
{
	return (unsigned)c < CONV_KIND_COUNT ? kinds[c].name : "?";
}

static int has(const char *hay, const char *needle)
{
	return hay && strstr(hay, needle) != NULL;
}

int conv_kind_of(const char *kname, const char *kernels)
{
	static const char *const fft[] = {"fft2d_r2c_16x16", "fft2d_r2c_32x32", "fft2d_r2c_64x64"};
	for (int i = 0; i < 3; i++)
		if (has(kernels, fft[i]) || has(kname, fft[i])) {
			/* more than one complex GEMM: one per frequency */
			const char *g = kernels ? strstr(kernels, "cf32cf32") : NULL;
			if (i == 2 && g && strstr(g + 1, "cf32cf32"))
				return CONV_KIND_FFT_64_PER_FREQ;
			return CONV_KIND_FFT_16 + i;
		}
	if (!has(kname, "fprop_implicit_gemm"))
		return -1;
	/* the indexed variant (seen with the 32 x 32 tile only: large C and
	 * K, small images) runs 1.3 x the plain one's time on like shapes */
	if (has(kname, "fprop_implicit_gemm_indexed") && has(kname, "tilesize32x32x"))
		return CONV_KIND_IG_32X32_INDEXED;
	for (int c = CONV_KIND_IG_32X32; c <= CONV_KIND_IG_256X64; c++) {
		char tile[40];
		snprintf(tile, sizeof tile, "tilesize%ux%ux", kinds[c].tm, kinds[c].tn);
		if (c != CONV_KIND_IG_32X32_INDEXED && has(kname, tile))
			return c;
	}
	return -1;
}

/* The geometry the tables hold: forward, FP32, 3 x 3, unit stride, with
 * its implicit GEMM's dims and output side. */
static int pick_shape(const struct pred_kernel *k)
{
	return k && k->op == PRED_OP_CONV && k->dtype == GPU_DT_FP32 &&
	       k->conv.pass == PRED_CONV_FWD && k->conv.r == 3 && k->conv.s == 3 && k->conv.unit &&
	       k->conv.q && k->m && k->n && k->k;
}

static double octaves(double a, double b)
{
	return fabs(log2(a) - log2(b));
}

int conv_pick_kind(const struct conv_picks *t, const struct pred_kernel *k)
{
	double near[CONV_PICK_VOTES];
	int kind[CONV_PICK_VOTES], have = 0;
	if (!t || !t->n || !pick_shape(k))
		return -1;
	/* the CONV_PICK_VOTES nearest rows, in order of distance (the first
	 * of equals kept first) */
	for (size_t i = 0; i < t->n; i++) {
		const struct conv_pick_row *r = &t->rows[i];
		if (r->kind >= CONV_KIND_COUNT || !r->m || !r->n || !r->k || !r->q)
			continue;
		double d = octaves(r->m, k->m) + octaves(r->n, k->n) + octaves(r->k, k->k) +
			   octaves(r->q, k->conv.q);
		if (have == CONV_PICK_VOTES && d >= near[have - 1])
			continue;
		int j = have < CONV_PICK_VOTES ? have++ : have - 1;
		for (; j > 0 && near[j - 1] > d; j--) {
			near[j] = near[j - 1];
			kind[j] = kind[j - 1];
		}
		near[j] = d;
		kind[j] = r->kind;
	}
	/* the most votes; between equal counts the kind of the nearer row */
	int votes[CONV_KIND_COUNT] = {0}, best = -1;
	for (int j = 0; j < have; j++)
		votes[kind[j]]++;
	for (int j = 0; j < have; j++)
		if (best < 0 || votes[kind[j]] > votes[best])
			best = kind[j];
	return best;
}

double conv_kind_ns(const struct pred_kernel *k, const struct gpu_spec *g, enum conv_kind c,
		    const struct conv_kind_params *kp, int floor, int *memory_bound)
{
	if (!pick_shape(k) || !g || !g->sms || !kp || (unsigned)c >= CONV_KIND_COUNT ||
	    !(kp->eff > 0) || !(k->bytes > 0))
		return -1;
	double rate = gpu_fp32_simt_tflops(g) * 1e3, bw = roofline_bw_bytes(g) * 1e-9; /* per ns */
	if (!(rate > 0) || !(bw > 0))
		return -1;
	double t_c, t_m, t;
	if (kinds[c].fft) {
		double L = kinds[c].fft, r = k->conv.r, q = k->conv.q;
		double imgs = (double)k->m / (q * (double)k->conv.p), ch = (double)k->k / (r * r);
		double side = ceil((q + r - 1) / (L - r + 1)), tiles = imgs * side * side;
		double f = L * (L / 2 + 1), kf = (double)k->n;
		t_c = 8 * tiles * ch * kf * f / (rate * kp->eff);
		t_m = (k->bytes + 16 * f * (tiles * ch + kf * ch + tiles * kf)) / rate *
		      (kp->mem_x > 0 ? kp->mem_x : 1);
		t = t_c + t_m + (kinds[c].per_freq ? f * kp->launch_ns : 0);
	} else {
		double tm = kinds[c].tm, tn = kinds[c].tn, b = kp->blocks >= 1 ? kp->blocks : 1;
		double tiles = ceil((double)k->m / tm) * ceil((double)k->n / tn);
		double waves = ceil(tiles / (g->sms * b));
		t_c = waves * b * 2 * tm * tn * ((double)k->k + kp->steps) / (rate / g->sms * kp->eff);
		t_m = k->bytes / bw;
		t = roofline_join_ns(t_c, t_m, kp->overlap_pow);
	}
	/* the FFT's transforms are timed at the SMs' pace, not the DRAM's */
	if (memory_bound)
		*memory_bound = !kinds[c].fft && t_m > t_c;
	t += floor ? kp->floor_ns : 0;
	return t > 0 && isfinite(t) ? t : -1;
}

/* ---- fitting --------------------------------------------------------- */

struct kind_problem {
	const struct conv_sample *s;
	size_t n;
	enum conv_kind c;
	double blocks;
};

/* x: log eff, log floor_ns, then log steps and log (overlap_pow - 1)
 * (implicit GEMM) or log mem_x (FFT); the FFT with a GEMM per frequency
 * (too few rows for more) log launch_ns and log floor_ns alone, its
 * GEMMs' FLOPs and traffic inside each launch's time (eff, mem_x at the
 * bounds below). */
#define KIND_MAX_EFF 64.0 /* above: no compute term the data can see */
#define KIND_MIN_MEM_X 1e-3

static void kind_unpack(const struct kind_problem *pr, const double *x, struct conv_kind_params *kp)
{
	memset(kp, 0, sizeof *kp);
	if (kinds[pr->c].per_freq) {
		kp->launch_ns = exp(x[0]);
		kp->floor_ns = exp(x[1]);
		kp->eff = KIND_MAX_EFF;
		kp->mem_x = KIND_MIN_MEM_X;
		return;
	}
	kp->eff = exp(x[0]);
	kp->floor_ns = exp(x[1]);
	if (kinds[pr->c].fft) {
		kp->mem_x = exp(x[2]);
	} else {
		kp->steps = exp(x[2]);
		kp->overlap_pow = 1 + exp(x[3]);
		kp->blocks = pr->blocks;
	}
}

static double kind_loss(const double *x, void *ctx)
{
	const struct kind_problem *pr = ctx;
	struct conv_kind_params kp;
	double sum = 0;
	size_t used = 0;
	kind_unpack(pr, x, &kp);
	if (kp.floor_ns > 100e3 || kp.overlap_pow > 50 || kp.eff > KIND_MAX_EFF ||
	    (kp.mem_x > 0 && kp.mem_x < KIND_MIN_MEM_X))
		return INFINITY;
	for (size_t i = 0; i < pr->n; i++) {
		double t = conv_kind_ns(&pr->s[i].k, pr->s[i].target, pr->c, &kp, 1, NULL);
		if (!(t > 0))
			continue;
		double e = log(t / pr->s[i].ns);
		sum += e * e;
		used++;
	}
	return used ? sum / used : INFINITY;
}

int conv_kind_fit(const struct conv_sample *s, size_t n, enum conv_kind c,
		  struct conv_kind_params *kp, double *rms_log)
{
	static const double blocks[] = {1, 2, 3, 4, 6, 8};
	int fft = (unsigned)c < CONV_KIND_COUNT && kinds[c].fft, nb = fft ? 1 : 6;
	double best = INFINITY;
	if (!s || !n || !kp || (unsigned)c >= CONV_KIND_COUNT)
		return -EINVAL;
	for (int i = 0; i < nb; i++) {
		struct kind_problem pr = {.s = s, .n = n, .c = c, .blocks = blocks[i]};
		double x[4] = {kinds[c].per_freq ? log(10e3) : 0, log(10e3), fft ? 0 : log(32), 0};
		int d = kinds[c].per_freq ? 2 : fft ? 3 : 4;
		double v = nelder_mead_restarts(kind_loss, &pr, x, d, 0.5, 0.1, 2000, 5);
		if (v < best) {
			best = v;
			kind_unpack(&pr, x, kp);
		}
	}
	if (!isfinite(best))
		return -EINVAL;
	if (rms_log)
		*rms_log = sqrt(best);
	return 0;
}
