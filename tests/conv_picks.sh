#!/bin/sh
# conv_picks.sh - predictor/conv_sm90_picks.c is what its generator makes of
# our H200's measured convolutions (data/NVIDIA_H200/kernels/conv.csv), byte
# for byte, and the generator refuses what it cannot make a table of with
# one line and exit 2.
. "$(dirname "$0")/lib.sh"
test_tmp conv_picks

mkdir "$tmp/h200"
cp data/NVIDIA_H200/kernels/conv.csv "$tmp/h200/conv.csv"
"$B/surfer-bench" conv --data "$tmp/h200" --emit-picks --gpu h200 >"$tmp/picks.c" 2>"$tmp/err"
check "the generator runs on the H200's rows" $?
cmp -s "$tmp/picks.c" predictor/conv_sm90_picks.c
check "predictor/conv_sm90_picks.c is the generator's output" $?
grep -q '^ \* Two-fold, ' "$tmp/picks.c"
check "the table's comment carries its two-fold check" $?

refuses "surfer-bench: conv: --emit-picks needs --gpu GPU" "$B/surfer-bench" conv --data "$tmp/h200" --emit-picks
mkdir "$tmp/v100"
printf 'OPName,Latency,Device,Kernel Name,Kernels,B,Input_Channel,Output_Channel,Kernel_Szie,Input_Size,Stride,Padding\nconv,0.5,Tesla V100-PCIE-32GB,volta_sgemm_64x64_nn,;volta_sgemm_64x64_nn,8,64,64,3,56,1,1\n' \
	>"$tmp/v100/v100.csv"
refuses "surfer-bench: conv: v100-pcie-32 ran no convolution with any of the kernels --emit-picks knows (cuDNN 9's FP32 implicit GEMMs and FFTs, conv_kind_of())" \
	"$B/surfer-bench" conv --data "$tmp/v100" --emit-picks --gpu v100-pcie-32
refuses "surfer-bench: conv: --gpu 'v100-pcie-32' goes with --emit or --emit-picks only" \
	"$B/surfer-bench" conv --data "$tmp/v100" --gpu v100-pcie-32
finish conv_picks
