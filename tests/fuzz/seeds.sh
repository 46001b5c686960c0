#!/bin/sh
# Remakes the generated seeds of the fuzz corpora from the tests' own trace
# generators (run after `make`, from the repository root):
#   corpus/trace/     traces from tests/mktrace.c and tests/mkanalyzer.c
#   corpus/baseline/  a baseline surfer-analyze --save-baseline wrote
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
"$MK" step "NVIDIA A100-SXM4-40GB" "$C/baseline.mp" --layers 1
"$BUILD/surfer-analyze" "$C/baseline.mp" -t h100-sxm -t t4 --save-baseline "$C/baseline/step.json" >/dev/null
rm -f "$C/baseline.mp"
