#!/bin/sh
# Remakes the generated seeds of the fuzz corpora from the tests' own trace
# generators (run after `make`, from the repository root):
#   corpus/trace/     traces from tests/mktrace.c and tests/mkanalyzer.c
#   corpus/baseline/  a baseline surfer-analyze --save-baseline wrote
#   corpus/weights/   tiny tile-model weights surfer-train wrote from our own
#                     H200's kernels (format 3, and 5 with the H100's picks)
# (v1.1-*.mp are the same generators' traces in format 1.1, kept for the
# reader's older-minor path.)  The other corpora (Kineto JSON, nsys SQL, config.json, NeuSight CSV) are
# small hand-written files kept as they are, and so are the lengths lists and
# workloads of corpus/lens/ (their first byte picks the option and the form).
set -e
BUILD=${BUILD:-build}
C=tests/fuzz/corpus
MK=$BUILD/tests/mkanalyzer
mkdir -p "$C/trace" "$C/baseline"
"$BUILD/tests/mktrace" "$C/trace/mktrace.mp"
"$BUILD/tests/mktrace" --truncated "$C/trace/mktrace-truncated.mp"
"$MK" step "NVIDIA A100-SXM4-40GB" "$C/trace/step.mp" --layers 1
"$MK" step "NVIDIA A100-SXM4-40GB" "$C/trace/step-2it.mp" --layers 1 --iterations 2
"$MK" step "Tesla T4" "$C/trace/shuffled.mp" --layers 1 --shuffle
"$MK" step "Tesla T4" "$C/trace/launch-bound.mp" --layers 1 --launch-bound
"$MK" step "NVIDIA H100 80GB HBM3" "$C/trace/no-gpu-times.mp" --layers 1 --no-gpu-times
"$MK" step "NVIDIA A100-SXM4-40GB" "$C/trace/truncated.mp" --layers 1 --truncate
"$MK" step "NVIDIA A100-SXM4-40GB" "$C/trace/graphs-cupti.mp" --layers 2 --cuda-graphs cupti
"$MK" step "NVIDIA A100-SXM4-40GB" "$C/trace/graphs-events.mp" --layers 2 --cuda-graphs events
"$MK" step "NVIDIA A100-SXM4-40GB" "$C/baseline.mp" --layers 1
"$BUILD/surfer-analyze" "$C/baseline.mp" -t h100-sxm -t t4 --save-baseline "$C/baseline/step.json" >/dev/null
rm -f "$C/baseline.mp"
mkdir -p "$C/weights"
TINY="--data data/NVIDIA_H200/kernels --epochs 1 --max-rows 60 --members 1 --layers 1 --width 2 --quiet"
# shellcheck disable=SC2086
"$BUILD/surfer-train" $TINY --no-curve --out "$C/weights/tiny-v3.bin"
# shellcheck disable=SC2086
"$BUILD/surfer-train" $TINY --picks-data data/NVIDIA_H100_80GB_HBM3/kernels/gemm.csv \
	--out "$C/weights/tiny-v5.bin"
