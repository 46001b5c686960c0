/*
 * die.h - which silicon a GPU of the table is: boards of one die (the
 * TITAN Xp and the GTX 1080 Ti are both GP102, the H20 and the H800 both
 * GH100, every A100 and the A30 GA100) run the same SM design, caches and
 * tile picks and differ in enabled SMs, clocks, memory and power; boards of
 * one compute capability may still be different dies (the P4's GP104 and
 * the GP102 boards are all 6.1).  The interval of a prediction is narrower
 * the nearer the target is to what was measured (predictor/interval.h).
 *
 * The table lives in die.c, by canonical id; tests/check_gpu.c checks that
 * every GPU of gpus.csv has a die and that a die never spans two compute
 * capabilities.
 */
#ifndef SURFER_GPU_DIE_H
#define SURFER_GPU_DIE_H

#include "gpu_specs/gpu.h"

/* The die of g in lower case ("gp102", "gh100", AMD: "aldebaran"), NULL
 * when g is NULL or the table does not know it. */
const char *gpu_die(const struct gpu_spec *g);

/* Whether a and b are the same die: both known and equal, or the same
 * board.  0 when either is NULL. */
int gpu_same_die(const struct gpu_spec *a, const struct gpu_spec *b);

#endif
