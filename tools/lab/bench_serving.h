/*
 * bench_serving.h - `surfer-bench serving`: surfer's serving predictions
 * (--engine sglang and hf) against PipeWeave's measured SGLang runs, beside
 * PipeWeave's, NeuSight's, Habitat's and the roofline's (bench_serving.c).
 */
#ifndef SURFER_BENCH_SERVING_H
#define SURFER_BENCH_SERVING_H

#include "tools/lab/bench_args.h"

/* Runs the comparison on a->data (a->gpu: one GPU only) and prints it;
 * returns the exit code. */
int bench_serving_main(const struct bench_args *a);

#endif
