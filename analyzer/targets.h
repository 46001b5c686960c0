/*
 * targets.h - the target GPUs of an analysis as the command line names
 * them: by id, marketing name or alias (gpu_find), with the closest ids
 * suggested for a name the table does not know, each GPU once, and "every
 * GPU" (--all-targets) without the ones a --model run cannot be predicted
 * on.
 */
#ifndef SURFER_TARGETS_H
#define SURFER_TARGETS_H

#include <stddef.h>

#include "analyzer/model/model.h"
#include "gpu_specs/gpu.h"

/* Finds the GPU name names.  Returns 0 with *out, or SURFER_EINVAL with
 * one line in err: "unknown GPU 'X' (closest: a, b, c); see --list-gpus"
 * (or without the closest when none is near). */
int target_find(const char *name, const struct gpu_spec **out, char *err, size_t errlen);

/* Appends g to targets[0..*n) unless it is there already.  Returns 0, or
 * SURFER_EINVAL with a reason in err when max are there. */
int target_add(const struct gpu_spec **targets, size_t *n, size_t max, const struct gpu_spec *g,
	       char *err, size_t errlen);

/* Appends every GPU of the table; with model (a --model run's options;
 * NULL for a trace) only those model_target_check accepts, counting the
 * others in *left (the first one's reason, naming it, in first).  Returns 0, or
 * SURFER_EINVAL with a reason in err. */
int target_add_all(const struct gpu_spec **targets, size_t *n, size_t max,
		   const struct model_opts *model, size_t *left, char *first, size_t firstcap,
		   char *err, size_t errlen);

#endif
