/*
 * hooks_cudnn_none.c - the cuDNN hook table of a recorder built without
 * cuDNN's headers (cudnn.h ships with cuDNN, not with the CUDA toolkit).
 *
 * The table is empty: cuDNN's entry points pass through unwrapped, so a
 * convolution is recorded as the kernels it launches, without the CONV
 * record of its shapes that hooks_cudnn.c writes.  Everything else of the
 * recorder is the same.
 */
#include "preload/preload.h"

struct preload_hook preload_cudnn_hooks[1] = {
	{ NULL, { NULL, NULL }, 0, { NULL, NULL }, { NULL, NULL } },
};
