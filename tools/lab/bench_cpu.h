/*
 * bench_cpu.h - `surfer-bench cpu`: the CPU time PyTorch spends issuing
 * each op, measured on torch.profiler (Kineto) traces: ops from Python
 * (forward), autograd-engine nodes (backward) and optimizer steps, per
 * launched kernel and per op; fitted on the A100 traces and checked on the
 * V100 one, and the reverse (bench_cpu.c).
 */
#ifndef SURFER_BENCH_CPU_H
#define SURFER_BENCH_CPU_H

#include "tools/lab/bench_args.h"

/* Runs the measurement on the traces in a->data and prints it; returns the
 * exit code (1 when a hold-out check is beyond its stated tolerance). */
int bench_cpu_main(const struct bench_args *a);

#endif
