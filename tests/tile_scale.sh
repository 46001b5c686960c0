#!/bin/sh
# tile_scale.sh - predictor/tile_sm90_scale.c is what its generator makes of
# our H100's and H200's measured FP32 GEMMs (data/<GPU>/kernels/gemm.csv)
# with the compiled-in tile weights, byte for byte (retraining the weights
# without regenerating it fails here), and the generator refuses what it
# cannot use with one line and exit 2.
. "$(dirname "$0")/lib.sh"
test_tmp tile_scale

mkdir "$tmp/hopper"
cp data/NVIDIA_H100_80GB_HBM3/kernels/gemm.csv "$tmp/hopper/h100-gemm.csv"
cp data/NVIDIA_H200/kernels/gemm.csv "$tmp/hopper/h200-gemm.csv"
"$B/surfer-bench" tile-scale --data "$tmp/hopper" --gpu h200 >"$tmp/scale.c" 2>"$tmp/err"
check "the generator runs on the H100's and H200's rows" $?
cmp -s "$tmp/scale.c" predictor/tile_sm90_scale.c
check "predictor/tile_sm90_scale.c is the generator's output" $?
grep -q ' \* the reverse), MAPE without -> with: ' "$tmp/scale.c"
check "the table's comment carries its two-fold check" $?

refuses "surfer-bench: tile-scale: --data PATH and --gpu GPU are needed" "$B/surfer-bench" tile-scale --data "$tmp/hopper"
refuses "surfer-bench: tile-scale: unknown GPU 'nosuch'" "$B/surfer-bench" tile-scale --data "$tmp/hopper" --gpu nosuch
refuses "surfer-bench: tile-scale: no tile and batching has enough FP32 GEMMs of GPUs of the GPU's compute capability under the data" \
	"$B/surfer-bench" tile-scale --data "$tmp/hopper" --gpu a100-sxm4-80
finish tile_scale
