/*
 * profile.h - NeuSight's per-operator profiles of whole models
 * (labels/<GPU>/<model>-<inf|train>-<seq>-<batch>.csv beside the .json that
 * holds the iteration time): every forward operator of one eager PyTorch run
 * with its input shapes and measured time, one transformer layer of them
 * (the iteration runs it num_layer times).  Read into the kernel records
 * the accuracy harness builds from NeuSight's kernel rows, predicted, and
 * summed per tile-model family; surfer-bench profile prints the comparison
 * and fits the AMD scale (predictor/amd_scale.c) from them.
 */
#ifndef SURFER_PROFILE_H
#define SURFER_PROFILE_H

#include <stddef.h>
#include <stdio.h>

#include "predictor/tile.h"
#include "tools/lab/bench_args.h"
#include "tools/lab/neusight.h"

struct prof_op {
	struct ns_row row;      /* op ("linear", "bmm", "add", "divu", "softmax",
				 * "ln", ...) and dims; device and gpu unset   */
	double nin, flops;      /* element-wise: tensors read and FLOPs per
				 * element (a broadcast operand counts its share) */
	double reread_bytes, reuse_bytes; /* a float operand broadcast over an
				 * outer dimension: as model_kernel's        */
	int b_transposed;       /* matmul/bmm whose second input is a
				 * transpose node (Q K^T)                     */
	double raw_ms;          /* measured forward time of one call           */
	double overhead_ms;     /* the profiler's cost of a call like it: the
				 * median of the profile's kernel-less nodes
				 * (views, sizes, eval dropout) of its kind   */
	double ms;              /* raw_ms less overhead_ms (half of raw_ms at
				 * least): the kernels' time                  */
	double mult;            /* runs per iteration (num_layer in a layer)   */
	const char *config;     /* the profile's file name (static per set)    */
	const char *node;       /* the graph node's name, e.g. "softmax"       */
};

struct prof_set {
	struct prof_op *v;
	size_t n, cap;
	char **strings;         /* owned copies of config and node names       */
	size_t nstrings, capstrings;
};

/* Appends the operators of one profile (a CSV; num_layer from the JSON of
 * the same name, 1 when absent) that the tile model describes: Linear
 * modules, addmm, matmul and bmm, softmax, layer norm, and element-wise
 * arithmetic and activations.  View, shape and Python ops, dropout in
 * evaluation, embeddings and copies are left out.  Each operator's time
 * is its own less the profiler's cost of a call, taken from the nodes that
 * launch no kernel (views, sizes, dropout in evaluation), module calls and
 * function calls apart.  0, or -1 with a reason
 * in err (unreadable file, no header). */
int prof_load_file(struct prof_set *s, const char *csv, char *err, size_t errlen);

/* Every inference profile (*-inf-*.csv) of dir, in sorted order.  0, or -1
 * (unreadable directory). */
int prof_load_dir(struct prof_set *s, const char *dir, char *err, size_t errlen);

void prof_release(struct prof_set *s);

/* The kernel record of op as the model-config path emits it for that
 * shape (model_forward_kernel()): 0, or -1. */
int prof_kernel(const struct prof_op *op, struct pred_kernel *k);

/* Rows a class needs before its scale is fitted; with fewer it stays 1. */
#define PROF_MIN_ROWS 3
/* Operators shorter than this are left out: their time is mostly the
 * profiler's cost of a call, which is subtracted but not known well. */
#define PROF_MIN_MS_DEFAULT 0.05
/* The fixed cost per kernel is searched from 0 to this, in steps of 0.5 us. */
#define PROF_MAX_FIXED_NS 40000.0

/* Fits the AMD scale on every AMD GPU's inference profiles under labels
 * (labels/<GPU>/) but those of skip's architecture (every GPU of its gfx target: the
 * MI250 goes with the MI210; NULL: none), operators of min_ms or
 * more predicted by the tile model with weights tm, the scale at 1 and no
 * fixed cost.  For a fixed cost
 * c per kernel, each class's scale is the geometric mean over the GPUs of
 * its (measured - c) over its predicted time (times summed over the
 * class's operators, each as often as it runs); c is the one, 0 to
 * PROF_MAX_FIXED_NS, whose scale gives the least mean |log(predicted /
 * measured)| over every operator.  Returns the number of AMD GPUs used (0: scale 1, c 0), or -1 (unreadable
 * labels). */
int prof_fit_amd(const struct tile_model *tm, const char *labels, const struct gpu_spec *skip,
		 double min_ms, struct tile_amd_scale *out, char *err, size_t errlen);

/* A labels directory's GPU: "Tesla_T4", "NVIDIA_A100-PCIE-40GB",
 * "AMD_Instinct_MI210" (underscores for spaces, a vendor or product-line
 * prefix dropped when the database does not know the whole name). */
const struct gpu_spec *prof_gpu_of_dir(const char *dir);
/* The entries of dir but "." and "..", sorted; NULL when unreadable.
 * prof_free_list() releases them. */
char **prof_list_dir(const char *dir, size_t *n);
void prof_free_list(char **v, size_t n);

/* The --gpu and --weights options of surfer-bench e2e and profile: NAME
 * must be a known GPU, FILE a weights file, loaded into *tm (the
 * compiled-in weights without one; free with tile_model_free).  0, or -1
 * after a one-line error on stderr. */
int prof_gpu_and_weights(const char *only, const char *weights, struct tile_model **tm);

/* GPU directory gpu_dir's held-out weights: DIR/w_<gpu_dir>.bin (make
 * accuracy writes them) into *tm, returning 1, or the compiled-in ones,
 * returning 0; -1 when neither loads.  Free *tm with tile_model_free. */
int prof_holdout_weights(const char *holdout, const char *gpu_dir, struct tile_model **tm);

/* surfer-bench profile --labels DIR [--gpu NAME] [--min-ms MS] [--emit]. */
int bench_profile_main(const struct bench_args *a);

#endif
