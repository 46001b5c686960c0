/*
 * neusight.h - kernel measurements in NeuSight's CSV layout (a file, or every
 * CSV under a directory), and the GEMMs of PipeWeave, Vidur and DeepBench in
 * the same rows, turned into the kernel records the recorder would have
 * produced, paired across GPUs, and the error statistics of the accuracy
 * harness.  Used by surfer-bench and surfer-train.
 */
#ifndef SURFER_NEUSIGHT_H
#define SURFER_NEUSIGHT_H

#include <stddef.h>
#include <stdint.h>
#include "predictor/predict.h"

struct strpool;

#define NS_MAXDIMS 11

struct ns_row {
	const char *op;           /* OPName ("bmm", "add", "ln", ...), interned */
	const char *device;       /* Device column, interned                    */
	const struct gpu_spec *gpu; /* gpu_find(device), NULL when unknown      */
	const char *kname;        /* Kernel Name, interned ("" when absent)     */
	const char *kernels;      /* NeuSight's Kernels column: every kernel of
				   * the op, ';'-separated, interned ("")     */
	enum gpu_dtype dtype;     /* math dtype: FP32 (NeuSight, DeepBench
				   * "Float"), FP16, FP8 (PipeWeave)          */
	double latency_ms;
	uint32_t grid[3], block[3];
	uint64_t dims[NS_MAXDIMS];/* B,M,N,K (GEMM); B,H (vector); NeuSight's
				   * conv: its 7; DeepBench's conv2d_*: N, C,
				   * H, W, K, R, S, pad_h, pad_w, stride_h,
				   * stride_w                                 */
	unsigned ndims;
};

struct ns_set {
	struct ns_row *rows;
	size_t n, cap;
	struct strpool *strings;  /* the rows' strings (private)                */
};

/* Reads every row of path (a CSV file or a directory searched recursively
 * for *.csv, in sorted order) into s, which the caller zeroes first and
 * releases with ns_release().  Rows whose device's GPU is not keep (when
 * keep is not NULL) are skipped.  Returns 0, or -1 with a reason in err. */
int ns_load(struct ns_set *s, const char *path, const struct gpu_spec *keep,
	    const struct gpu_spec *keep2, char *err, size_t errlen);
void ns_release(struct ns_set *s);

/* The layouts ns_load_format() reads:
 *  - NS_FMT_AUTO: what ns_load() reads (NeuSight CSVs, DeepBench FP32);
 *  - NS_FMT_NEUSIGHT: NeuSight's kernel CSVs only;
 *  - NS_FMT_PIPEWEAVE: M, N, K, avg_duration (us), hardware: FP8 GEMMs,
 *    C (M x N) = A (M x K) B (K x N);
 *  - NS_FMT_VIDUR: Vidur's compute folder (<dir>/<gpu>/<org>/<model>/
 *    mlp.csv; dir the data root, vidur/ or vidur/compute/): its four FP16
 *    projection GEMMs per row;
 *  - NS_FMT_DEEPBENCH: DeepBench's results files, the GEMMs of FP32
 *    ("Float") and of FP16 tensor-core math ("16 bit multiplication").
 * Every GEMM becomes a row in NeuSight's convention (B, M, N the
 * reduction, K the output's columns). */
enum ns_format {
	NS_FMT_AUTO = 0, NS_FMT_NEUSIGHT, NS_FMT_PIPEWEAVE, NS_FMT_VIDUR, NS_FMT_DEEPBENCH,
	NS_FMT_COUNT
};
/* The format named s ("neusight", "pipeweave", "vidur", "deepbench",
 * "auto"); 0, or -1 when s names none. */
int ns_format_parse(const char *s, enum ns_format *out);

/* ns_load() for one layout.  GPU names in the data resolve through
 * gpu_find(); where the data names a die and not a board (Vidur's "a100")
 * the board among keep and keep2 of that die is taken.  Returns 0, or -1
 * with a reason in err. */
int ns_load_format(struct ns_set *s, const char *path, enum ns_format fmt,
		   const struct gpu_spec *keep, const struct gpu_spec *keep2, char *err,
		   size_t errlen);

/* DeepBench's training convolutions (csv/results/train, the "Convolution"
 * section of each FP32 results file, and of the FP16 ones of tensor-core
 * math, rows of dtype FP16): per shape, the forward pass, the
 * gradient with respect to the inputs and to the filters as three rows,
 * ops "conv2d_fwd", "conv2d_dgrad" and "conv2d_wgrad" (a time DeepBench
 * gives as N/A: no row), 11 dims as struct ns_row says, each a whole cuDNN
 * call without a kernel name.  Loaded into s as ns_load_format() does;
 * only these rows.  0, or -1 with a reason in err. */
int ns_load_deepbench_conv(struct ns_set *s, const char *path, char *err, size_t errlen);

/* The operator class of an OPName (PRED_OP_GEMM for bmm/linear, ...). */
enum pred_op ns_op_class(const char *op);

/* Builds the kernel record of row r as the recorder would have produced it:
 * name, grid, block, origin time and the library (GEMM, convolution: a
 * conv2d_* row through the analyzer's own ktable_lib_from_conv(), as a
 * recorded cuDNN call of that direction) or vector shape, FP32.  With
 * launch == 0 only the operator and shape are kept (NeuSight's
 * from-scratch setting: no name, no grid, no time).  0, or -1 when the row
 * has no usable shape. */
int ns_kernel(const struct ns_row *r, int launch, struct pred_kernel *k);

/* One origin row and the target row of the same operator and shape. */
struct ns_pair {
	const struct ns_row *origin, *target;
};

/* Pairs the rows of s measured on origin with those measured on target,
 * by operator and shape; op (NULL: all) keeps one operator.  With origin
 * NULL every target row is returned unpaired (origin = NULL).  Duplicate
 * shapes pair once.  *out is malloc'd (caller frees).  0 or -1 (memory). */
int ns_pairs(const struct ns_set *s, const struct gpu_spec *origin,
	     const struct gpu_spec *target, const char *op,
	     struct ns_pair **out, size_t *n);

/* Error statistics of absolute percentage errors (in percent). */
struct ns_stats {
	size_t n;
	double mape, median, p90;
};

/* Mean; median (mean of the two middle values when n is even); 90th
 * percentile by linear interpolation between closest ranks (rank
 * 0.9*(n-1), 0-based).  ape is sorted in place. */
void ns_stats_compute(double *ape, size_t n, struct ns_stats *out);

#endif
