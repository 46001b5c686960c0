/*
 * rowwise.h - PyTorch's FP32 row-wise forward kernels (layer norm, softmax,
 * log-softmax) from their DRAM traffic: each pass over a row after the
 * first reads it again, from L2 while the rows in flight fit there, else
 * from DRAM (rowwise.c says why and with what numbers).
 *
 * Contract: rowwise_kind_of() says whether a kernel is one of them (op,
 * dtype FP32, rows and columns known, a forward kernel by its name when it
 * has one); the model functions return -1 for any other.  Times are in
 * ns, bytes in bytes, bandwidths in GB/s (= bytes/ns).  Nothing here
 * allocates; the functions are pure and thread-safe.
 */
#ifndef SURFER_ROWWISE_H
#define SURFER_ROWWISE_H

#include <stddef.h>
#include <stdint.h>

#include "predictor/predict.h"

/* FLOPs per element of the row-wise operators, as the model builder and
 * the profile importer describe them (the roofline and the tile model
 * read them; the row-wise model runs on the traffic): layer norm's mean,
 * variance, normalisation, scale and shift; softmax's max, subtraction,
 * exponential, sum and division (log-softmax alike). */
#define ROWWISE_NORM_FLOPS 8.0
#define ROWWISE_SOFTMAX_FLOPS 5.0

/* The kernels, by how many times they read a row. */
enum rowwise_kind {
	ROWWISE_NORM = 0,      /* vectorized_layer_norm_kernel: statistics,
				* then the normalised row: 2 reads        */
	ROWWISE_SOFTMAX_BLOCK, /* cunn_SoftMaxForward (softmax, log-softmax):
				* max, sum of exponentials, output: 3     */
	ROWWISE_SOFTMAX_WARP,  /* softmax_warp_forward: the row held in
				* registers: 1                            */
	ROWWISE_KIND_COUNT
};

struct rowwise_params {
	/* the share of the achievable DRAM bandwidth (gpu_mem_bw_eff_gbps)
	 * each kind streams its traffic at */
	double eff[ROWWISE_KIND_COUNT];
	/* the share of L2 the rows in flight may fill before re-reads go to
	 * DRAM (below 1: L2 is split in partitions, other data shares it) */
	double l2_share;
	/* the host floor of NeuSight's op timings (pred_config.tile_floor),
	 * ns: layer norm, softmax */
	double host_floor_ns[2];
	/* the floor F and the traffic's time W join as (F^p + W^p)^(1/p): a
	 * host's dispatch overlaps a kernel in part */
	double floor_p;
};

/* Fitted on NeuSight's FP32 layer-norm and softmax test shapes, every
 * architecture (surfer-bench rowwise --emit). */
extern const struct rowwise_params rowwise_default_params;

/* The kind of k, or -1 when the model does not describe it. */
int rowwise_kind_of(const struct pred_kernel *k);

/* The threads of a block of PyTorch's cunn_SoftMaxForward over rows of
 * cols FP32 columns, as SoftMax_getBlockSize() picks it: the power of two
 * covering cols / 4 (its loads' width) / 2, 32 to 1024. */
unsigned rowwise_softmax_block_threads(uint64_t cols);

/* The rows in flight on g: SMs x the blocks of k's size an SM holds. */
double rowwise_rows_in_flight(const struct pred_kernel *k, const struct gpu_spec *g);

/* k's DRAM traffic on g, bytes: one write and one read of every element,
 * and the further reads of its kind at the share of them L2 misses. */
double rowwise_bytes(const struct pred_kernel *k, const struct gpu_spec *g,
		     const struct rowwise_params *p);

/* k's traffic time on g alone, ns (no floor); -1 when not described. */
double rowwise_traffic_ns(const struct pred_kernel *k, const struct gpu_spec *g,
			  const struct rowwise_params *p);

/* Whether `auto` takes the model for k on g.  Where the times hold
 * NeuSight's host floor (host_floor set: pred_config.tile_floor), when
 * k's traffic outlasts the floor of its kind (below, the tile model,
 * which learnt that launch-bound regime from NeuSight's sweep); where
 * they are the kernel's own (a trace, a config's kernels), whenever the
 * model describes k. */
int rowwise_covers(const struct pred_kernel *k, const struct gpu_spec *g,
		   const struct rowwise_params *p, int host_floor);

/* k's time on g, ns: its traffic at the kind's share of the bandwidth,
 * joined with the host floor of NeuSight's timings when host_floor is
 * set, else the cost of an empty launch (PRED_NO_BASIS_NS).  -1 when not
 * described. */
double rowwise_model_ns(const struct pred_kernel *k, const struct gpu_spec *g,
			const struct rowwise_params *p, int host_floor);

/* predict_kernel's PRED_ROWWISE: the model on target, as a ratio of the
 * origin's measured time when k has one.  0, or -1 (out untouched). */
int rowwise_predict(const struct pred_kernel *k, const struct gpu_spec *origin,
		    const struct gpu_spec *target, const struct rowwise_params *p,
		    int host_floor, struct pred_result *out);

/* One measurement to fit on: a kernel of known shape on gpu, its measured
 * time, and whether that time holds NeuSight's host floor. */
struct rowwise_sample {
	struct pred_kernel k;
	const struct gpu_spec *gpu;
	double ns;
	int host_floor;
};

/* Least squares on log(model / measured) over the samples of the kinds the
 * model describes, Nelder-Mead from the compiled-in constants; each GPU
 * weighs as much as another.  0 and *out, or -1 when no sample is usable. */
int rowwise_fit(const struct rowwise_sample *s, size_t n, struct rowwise_params *out);

#endif
