/*
 * bench_conv_train.h - `surfer-bench conv-train`, the convolution model on
 * DeepBench's forward and backward FP32 convolutions
 * (tools/lab/bench_conv_train.c).
 */
#ifndef SURFER_BENCH_CONV_TRAIN_H
#define SURFER_BENCH_CONV_TRAIN_H

#include "tools/lab/bench_args.h"

/* Runs the subcommand with the options of a: the table on stdout; returns
 * the exit code (0, or 2 for bad input or unreadable data). */
int bench_conv_train_main(const struct bench_args *a);

#endif
