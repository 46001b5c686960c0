/*
 * rowwise.c - PyTorch's FP32 row-wise forward kernels (rowwise.h).
 *
 * Why a model of their own.  The tile model learns a vector kernel's
 * utilisation from its shape and the GPU's figures, and on a GPU outside
 * its training range it guesses: NeuSight's test shapes from the shape,
 * each architecture out of the training, layer norm 5.9-26.9 % (T4) and
 * softmax 13.8-33.7 % on the five old GPUs, and on our H100 and H200
 * (Hopper out) 21.0 / 28.4 % and 19.2 / 30.5 %, with neighbouring widths
 * predicted 38 % fast and 92 % slow (the H100's 8192 x 1600 and 8192 x
 * 3072).  What those kernels do is simpler than that.  Measured bytes
 * over time, relative to each GPU's achievable bandwidth (kernels of 0.2
 * ms and more, the write and one read of each element counted), they sit
 * on a few plateaus, the same on every GPU:
 *  - layer norm (vectorized_layer_norm_kernel, a block of 128 threads per
 *    row) at 0.62-0.69 once the rows are wide, on all seven GPUs (P4 0.56),
 *    and at 0.86-0.94 on the A100 and H100 at 1024-2048 columns: the
 *    kernel reads its row twice (statistics, then the normalised output),
 *    and 2 reads + 1 write at full speed is 2/3 of 1 + 1;
 *  - softmax at up to 1024 columns (softmax_warp_forward, the row in a
 *    warp's registers) at 0.8-1.0 everywhere;
 *  - softmax beyond (cunn_SoftMaxForward: the max, the sum of exponentials
 *    and the output each read the row) at 0.42-0.56 on the P4, V100 and
 *    P100 once wide, 0.5 on the A100 at 16384 columns but 0.9 at 4096-
 *    8192, 0.87 on the H100 at 16384.
 * The second and third reads hit L2 when the rows the GPU holds at once
 * fit there: rows in flight = SMs x blocks an SM holds, each a row of
 * columns x 4 bytes.  The V100 (6 MB of L2, 80 SMs x 4 blocks of 512
 * threads) falls from 0.83 at 4096 columns (5.2 MB in flight) to 0.57 at
 * 6400 (8.2 MB); the T4 (4 MB, 40 SMs x 2 blocks) from 0.80 at 6400 to
 * 0.57 at 10240; the A100 (40 MB in two halves) from 0.90 at 8192 (14
 * MB) to 0.50 at 16384 (28 MB); the H100's layer norm (50 MB, 132 SMs x
 * 16 blocks of 128) from 0.93 at 2048 columns (17 MB) to 0.68 at 4096.
 * So the traffic is
 *
 *   bytes = 4 x rows x cols x (2 + r x miss),
 *   miss  = max(0, 1 - l2_share x L2 / (rows in flight x cols x 4)),
 *
 * r the kind's further reads (layer norm 1, block softmax 2, warp softmax
 * 0), and the time bytes / (eff_kind x BW) plus a floor: the host floor
 * of NeuSight's op timings (its harness times a Python call, 25-45 us on
 * its hosts) or, for a kernel timed alone, an empty launch, joined as
 * (F^p + W^p)^(1/p).  Seven constants (three shares, l2_share, two host
 * floors, p), fitted on NeuSight's FP32 layer-norm and softmax test shapes
 * (`surfer-bench rowwise`: 750 rows on P4, P100, T4, V100 and A100 PCIe,
 * each architecture out in turn, as the tile model trains on them; their
 * numbers are in that bench, choose.c and docs/accuracy.md).  The folds
 * agree where the physics is: the shares 0.91-0.98 (the P4's fold's warp
 * softmax 1.03), l2_share 0.34-0.37; the host floors (15-54 us) and p
 * (0.74-1.24) move with which hosts are left.  What the shares leave is
 * DRAM's own efficiency, the re-reads explain the rest.  Fitted on
 * NeuSight's sweep as well (twenty times the rows, most of them under
 * the floor), the shares fell to 0.70-0.85 and the test shapes' error
 * rose to 17.6 / 17.0 % from 6.9 / 14.0: its small kernels ask for a
 * higher floor than the large ones show, which is why `auto` leaves those
 * to the tile model where the times hold that floor (ROWWISE_COVER
 * below), and only there.
 *
 * Not described (the tile model keeps them): backward passes (their reads
 * of the saved output and the incoming gradient), 16-bit kernels (the
 * vector-op model, vecop.c, fitted on Vidur's), batch norm, row-wise
 * kernels of other libraries, and AMD GPUs (ROCm's kernels, and the tile
 * model's AMD scale per class fitted on their profiles: with this model on
 * them, make bench-e2e's AMD iterations went 8.7 -> 9.1 %).  PyTorch's
 * own choices are PyTorch 2.1's, NeuSight's version: the warp kernel up
 * to 1024 columns, SoftMax_getBlockSize()'s block (analyzer/model/ops.c
 * builds the same); a recorded kernel's name and launch say what ran
 * instead (PyTorch 2.11 on our H100 ran the warp kernel to 2048 columns
 * and blocks of 1024 threads beyond).
 */
#include "predictor/rowwise.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "predictor/nelder.h"

/* Where the times hold NeuSight's host floor, `auto` takes the model where
 * a kernel's traffic outlasts its kind's floor: below, NeuSight's timings
 * are the harness's more than the kernel's, and the tile model, trained on
 * that regime, does better (make accuracy's sweep, mostly such kernels,
 * from the shape with each architecture held out: layer norm / softmax,
 * the model everywhere 21.5 / 19.3 %, the tile model 13.9 / 16.8, split
 * here 13.6 / 14.6; at half the floor 15.0 / 14.1, at twice 12.5 / 15.1;
 * the test shapes, larger, unchanged by any of them).  Where the times are
 * the kernels' own (a trace's, a config's, our harness's), the model takes
 * every size: our H100's and H200's rows of NeuSight's test shapes,
 * timed back to back, Hopper in neither model, layer norm 7.5 -> 7.0 and
 * 18.0 -> 17.3 %, softmax 12.6 -> 12.3 and 23.5 -> 22.9 % against the
 * split (make bench-rowwise); make bench-e2e's NVIDIA FP32 iterations
 * 5.78 -> 5.77 % (12 of 40 move, by 0.1 % or less); our H100's dense FP32
 * iterations held out 11.79 -> 11.74 %.  And a trace's kernel keeps
 * its measured time in the ratio, where the tile model's vector family
 * across architectures predicts from the shape alone (pred_shrink's
 * vector exponent 0). */
#define ROWWISE_COVER 1.0

/* surfer-bench rowwise --data ../shared/data --emit: NeuSight's test shapes
 * of its five GPUs (the rows with its host floor; no Hopper row). */
const struct rowwise_params rowwise_default_params = {
	.eff = {0.926, 0.941, 0.952},
	.l2_share = 0.352,
	.host_floor_ns = {31499, 26107},
	.floor_p = 0.98,
};

static int has(const char *s, const char *sub)
{
	return s && strstr(s, sub) != NULL;
}

int rowwise_kind_of(const struct pred_kernel *k)
{
	if (!k || k->dtype != GPU_DT_FP32 || !k->m || !k->n)
		return -1;
	const char *nm = k->name;
	/* a backward kernel reads the saved output and the gradient: another
	 * traffic */
	if (has(nm, "ackward") || has(nm, "_bwd") || has(nm, "grad"))
		return -1;
	/* PyTorch's vectorized layer norm (a row's columns a multiple of its
	 * 4-wide loads); its other path splits the passes over two kernels
	 * (RowwiseMomentsCUDAKernel, LayerNormForwardCUDAKernel) */
	if (k->op == PRED_OP_NORM)
		return nm ? (has(nm, "vectorized_layer_norm") ? ROWWISE_NORM : -1)
			  : (k->n % 4 == 0 ? ROWWISE_NORM : -1);
	if (k->op != PRED_OP_SOFTMAX)
		return -1;
	if (has(nm, "softmax_warp"))
		return ROWWISE_SOFTMAX_WARP;
	/* cunn_SpatialSoftMaxForward, a softmax over an inner dim, reads its
	 * rows strided: not this traffic */
	if (has(nm, "SoftMaxForward") && !has(nm, "Spatial"))
		return ROWWISE_SOFTMAX_BLOCK;
	if (nm)
		return -1;
	/* from the shape: PyTorch's dispatch (persistent softmax up to 1024
	 * columns of 4 bytes) */
	return k->n <= 1024 ? ROWWISE_SOFTMAX_WARP : ROWWISE_SOFTMAX_BLOCK;
}

unsigned rowwise_softmax_block_threads(uint64_t cols)
{
	uint64_t t = 32;
	while (t < cols / 4 / 2 && t < 1024)
		t *= 2;
	return (unsigned)t;
}

/* Threads of a block of k: its launch, else what PyTorch 2.1 launches. */
static double block_threads(const struct pred_kernel *k, int kind)
{
	double t = (double)k->block[0] * (k->block[1] ? k->block[1] : 1) *
		   (k->block[2] ? k->block[2] : 1);
	if (k->block[0] && t > 0)
		return t;
	if (kind == ROWWISE_NORM)
		return 128;                 /* 32 x 4 */
	if (kind == ROWWISE_SOFTMAX_WARP)
		return 128;                 /* 4 warps, a row each */
	return rowwise_softmax_block_threads(k->n);
}

/* Each public entry below classifies its kernel once (rowwise_kind_of()
 * reads the name) and passes the kind to these. */
static double rw_rows_in_flight(const struct pred_kernel *k, const struct gpu_spec *g, int kind)
{
	if (kind < 0 || !g || !g->sms)
		return 0;
	double maxthr = g->limits && g->limits->max_threads_per_sm ? g->limits->max_threads_per_sm : 2048;
	double maxblk = g->limits && g->limits->max_blocks_per_sm ? g->limits->max_blocks_per_sm : 32;
	double per_sm = floor(maxthr / block_threads(k, kind));
	if (per_sm > maxblk)
		per_sm = maxblk;
	if (per_sm < 1)
		per_sm = 1;
	double rows = (double)k->m * (k->batch ? (double)k->batch : 1);
	double n = per_sm * g->sms;
	return n < rows ? n : rows;
}

double rowwise_rows_in_flight(const struct pred_kernel *k, const struct gpu_spec *g)
{
	return rw_rows_in_flight(k, g, rowwise_kind_of(k));
}

static double rw_bytes(const struct pred_kernel *k, const struct gpu_spec *g,
		       const struct rowwise_params *p, int kind)
{
	static const double rereads[ROWWISE_KIND_COUNT] = {1, 2, 0};
	if (kind < 0 || !g || !p)
		return -1;
	double rows = (double)k->m * (k->batch ? (double)k->batch : 1), cols = (double)k->n;
	double inflight = rw_rows_in_flight(k, g, kind) * cols * 4;
	double l2 = g->l2_mb > 0 ? g->l2_mb * 1048576.0 : 0;
	double miss = inflight > 0 ? 1 - p->l2_share * l2 / inflight : 1;
	if (miss < 0)
		miss = 0;
	return 4 * rows * cols * (2 + rereads[kind] * miss);
}

double rowwise_bytes(const struct pred_kernel *k, const struct gpu_spec *g,
		     const struct rowwise_params *p)
{
	return rw_bytes(k, g, p, rowwise_kind_of(k));
}

static double rw_traffic_ns(const struct pred_kernel *k, const struct gpu_spec *g,
			    const struct rowwise_params *p, int kind)
{
	/* ROCm's kernels are others (64-wide wavefronts, their own blocks),
	 * and no AMD row was fitted: an AMD GPU keeps the tile model and its
	 * AMD scale per class (amd_scale.c) */
	double bw = g && !gpu_cc_is_amd(g->cc) ? gpu_mem_bw_eff_gbps(g) : 0;
	if (kind < 0 || !(bw > 0) || !(p->eff[kind] > 0))
		return -1;
	double bytes = rw_bytes(k, g, p, kind);
	return bytes > 0 ? bytes / (p->eff[kind] * bw) : -1;
}

double rowwise_traffic_ns(const struct pred_kernel *k, const struct gpu_spec *g,
			  const struct rowwise_params *p)
{
	return rw_traffic_ns(k, g, p ? p : &rowwise_default_params, rowwise_kind_of(k));
}

/* The host floor of NeuSight's timings of kind's operator. */
static double host_floor_of(const struct rowwise_params *p, int kind)
{
	return p->host_floor_ns[kind == ROWWISE_NORM ? 0 : 1];
}

int rowwise_covers(const struct pred_kernel *k, const struct gpu_spec *g,
		   const struct rowwise_params *p, int host_floor)
{
	if (!p)
		p = &rowwise_default_params;
	int kind = rowwise_kind_of(k);
	double w = rw_traffic_ns(k, g, p, kind);
	return w > 0 && (!host_floor || w >= ROWWISE_COVER * host_floor_of(p, kind));
}

double rowwise_model_ns(const struct pred_kernel *k, const struct gpu_spec *g,
			const struct rowwise_params *p, int host_floor)
{
	if (!p)
		p = &rowwise_default_params;
	int kind = rowwise_kind_of(k);
	double w = rw_traffic_ns(k, g, p, kind);
	if (!(w > 0))
		return -1;
	double f = host_floor ? host_floor_of(p, kind) : PRED_NO_BASIS_NS;
	double q = p->floor_p > 0 ? p->floor_p : 1;
	return pow(pow(f, q) + pow(w, q), 1 / q);
}

int rowwise_predict(const struct pred_kernel *k, const struct gpu_spec *origin,
		    const struct gpu_spec *target, const struct rowwise_params *p,
		    int host_floor, struct pred_result *out)
{
	if (!k || !target || !out)
		return -1;
	double t = rowwise_model_ns(k, target, p, host_floor);
	if (!(t > 0))
		return -1;
	if (origin && k->origin_ns > 0) {
		double o = rowwise_model_ns(k, origin, p, host_floor);
		if (!(o > 0))
			return -1;
		t = k->origin_ns * t / o;
	}
	memset(out, 0, sizeof *out);
	out->ns = t;
	out->method = PRED_ROWWISE;
	out->gamma = -1;
	out->memory_bound = 1;
	return 0;
}

/* ---- fitting ------------------------------------------------------------ */

struct rw_fit_ctx {
	const struct rowwise_sample *s;
	size_t n;
	double *weight;    /* per sample: 1 / (samples of its GPU) */
};

/* x: log of the three shares, logit of l2_share, log of the two floors,
 * log of the floor's exponent */
static void rw_unpack(const double *x, struct rowwise_params *p)
{
	for (int i = 0; i < ROWWISE_KIND_COUNT; i++)
		p->eff[i] = exp(x[i]);
	p->l2_share = 1 / (1 + exp(-x[3]));
	p->host_floor_ns[0] = exp(x[4]);
	p->host_floor_ns[1] = exp(x[5]);
	p->floor_p = exp(x[6]);
}

static double rw_loss(const double *x, void *vctx)
{
	const struct rw_fit_ctx *c = vctx;
	struct rowwise_params p;
	rw_unpack(x, &p);
	double sum = 0;
	for (size_t i = 0; i < c->n; i++) {
		if (!(c->weight[i] > 0))
			continue;
		double m = rowwise_model_ns(&c->s[i].k, c->s[i].gpu, &p, c->s[i].host_floor);
		if (!(m > 0))
			return INFINITY;
		double e = log(m / c->s[i].ns);
		sum += c->weight[i] * e * e;
	}
	return sum;
}

int rowwise_fit(const struct rowwise_sample *s, size_t n, struct rowwise_params *out)
{
	if (!s || !n || !out)
		return -1;
	double *w = calloc(n, sizeof *w);
	size_t *slot = calloc(n, sizeof *slot);
	if (!w || !slot) {
		free(w);
		free(slot);
		return -1;
	}
	/* each GPU weighs as much as another: its samples share a weight of 1 */
	enum { RW_MAX_GPUS = 64 };
	const struct gpu_spec *gpus[RW_MAX_GPUS];
	size_t count[RW_MAX_GPUS] = {0}, ngpus = 0, used = 0;
	for (size_t i = 0; i < n; i++) {
		if (!s[i].gpu || !(s[i].ns > 0) || rowwise_kind_of(&s[i].k) < 0)
			continue;
		size_t g = 0;
		while (g < ngpus && gpus[g] != s[i].gpu)
			g++;
		if (g == ngpus) {
			if (ngpus == RW_MAX_GPUS)
				continue;
			gpus[ngpus++] = s[i].gpu;
		}
		count[g]++;
		slot[i] = g + 1;
		used++;
	}
	for (size_t i = 0; i < n; i++)
		if (slot[i])
			w[i] = 1.0 / (double)count[slot[i] - 1];
	free(slot);
	if (!used) {
		free(w);
		return -1;
	}
	const struct rowwise_params *d = &rowwise_default_params;
	double x[7] = {log(d->eff[0]), log(d->eff[1]), log(d->eff[2]),
		       log(d->l2_share / (1 - d->l2_share)), log(d->host_floor_ns[0]),
		       log(d->host_floor_ns[1]), log(d->floor_p)};
	struct rw_fit_ctx c = {s, n, w};
	nelder_mead_restarts(rw_loss, &c, x, 7, 0.3, 0.05, 3000, 8);
	rw_unpack(x, out);
	free(w);
	return 0;
}
