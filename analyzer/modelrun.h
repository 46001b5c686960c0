/*
 * modelrun.h - surfer-analyze --model: a model configuration predicted on
 * the targets and packaged as an analysis, so the text and JSON reports
 * and the baseline gate are the same as for a trace.
 */
#ifndef SURFER_MODELRUN_H
#define SURFER_MODELRUN_H

#include <stddef.h>
#include <stdio.h>

#include "analyzer/analyze.h"
#include "analyzer/model.h"

/* The --model options as the command line gives them. */
struct model_cli {
	const char *model;        /* config.json path or built-in name; NULL = none */
	struct model_opts opts;
	double launch_ns;         /* CPU cost per launch                        */
	uint64_t launch_gaps;     /* --launch-us-from: the gaps launch_ns is the
				   * median of (0: not from a trace)            */
	uint32_t new_tokens;      /* --mode generate: tokens generated per sequence */
	uint32_t plan_gpus;       /* --plan N: every layout of N GPUs; 0 none */
	int set;                  /* some model option was given               */
};

/* Sets m to the defaults (batch 1, seq 128 ... see model_opts_init; the
 * loss computed in training; launch cost MODEL_LAUNCH_NS_DEFAULT). */
void model_cli_init(struct model_cli *m);

/* The long options model_cli_set understands, NULL-terminated, each
 * taking a value: model, batch, seq, mode, dtype, optimizer, attention,
 * dp, tp, pp, microbatches, launch-us, launch-us-from, expert-capacity,
 * new-tokens, plan. */
const char *const *model_cli_options(void);

/* Applies option name (without "--") with value.  Returns 0, or -2 with a
 * one-line reason in err for a bad value or an unknown name.
 * launch-us-from TRACE sets the launch cost to the median gap between
 * consecutive kernel launches of one CPU thread in a recorded trace (a
 * host's and framework's figure, docs/model.md); -1 out of memory. */
int model_cli_set(struct model_cli *m, const char *name, const char *value,
		  char *err, size_t errlen);

/* Whether a model at o's dtype can be predicted on g: 0, or -2 with a
 * one-line reason in err.  BF16 needs BF16 units (compute capability 8.0
 * on, every AMD part in the table): on a V100 or a T4 PyTorch runs BF16
 * through emulation (cuBLAS has no BF16 tensor-core kernel for them) at a
 * rate no public measurement gives, and the tensor-core GEMM model would
 * take the FP16 tensor-core rate for it, so such a run is refused rather
 * than predicted. */
int model_target_check(const struct model_opts *o, const struct gpu_spec *g, char *err,
		       size_t errlen);

/* Builds the model's kernel sequence and predicts it on every target.
 * Returns 0 with *out (free with analysis_free), -2 for a bad model or
 * options (reason in err), -1 out of memory. */
int model_analysis_run(const struct model_cli *m, const struct gpu_spec *const *targets,
		       size_t ntargets, enum pred_method method, struct analysis **out,
		       char *err, size_t errlen);

/* --plan: writes to f, as text or JSON, every data x tensor x pipeline
 * layout of m->plan_gpus GPUs for the global batch m->opts.batch, each
 * predicted on every target with its memory estimate, fastest first
 * (modelplan.c); usd_per_hour (NULL, or one per target, 0 none) adds each
 * layout's cost per million tokens, for all its GPUs.  0, -2 for a bad
 * model or options (reason in err), -1 out of memory or a write error. */
int model_plan_write(FILE *f, const struct model_cli *m, const struct gpu_spec *const *targets,
		     size_t ntargets, const double *usd_per_hour, enum pred_method method, int json,
		     char *err, size_t errlen);

#endif
