/*
 * gpus_table.h - the tables tools/gpugen.c generates from gpu_specs/gpus.csv,
 * gpu_specs/cc_limits.csv and gpu_specs/systems.csv into
 * build/gen/gpus_table.c.  Internal to gpu_specs/: everything else goes
 * through gpu.h.
 */
#ifndef SURFER_GPUS_TABLE_H
#define SURFER_GPUS_TABLE_H

#include "gpu_specs/gpu.h"

extern const struct gpu_cc_limits gpu_cc_table[];
extern const size_t gpu_cc_table_len;
extern const struct gpu_spec gpu_table[];
extern const size_t gpu_table_len;
extern const struct gpu_system gpu_system_table[];
extern const size_t gpu_system_table_len;

#endif
