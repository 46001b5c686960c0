#!/bin/sh
# own.sh - `make bench-h200`: our own measurements of a GPU (data/<gpu>/,
# tools/gpu/measure.sh's layout; data/README.md) predicted with the GPU's
# architecture out of every fit: the tables of docs/accuracy.md, "Measured
# by us: NVIDIA H200".
#
#  1. FP32 iterations (NeuSight's protocol: eager attention, TF32 off):
#     surfer-bench e2e with the compiled-in tile-model weights, which were
#     trained on NeuSight's five GPUs and DeepBench's boards (sm_52-sm_80:
#     no Hopper); then with --with-figures, the measured figures of the
#     GPU's die kept (a same-architecture number, not a held-out one);
#  2. the same iterations in BF16 with SDPA: --dtype bf16 --attention sdpa,
#     the tensor-core, attention and vector-op constants refitted without
#     the GPU's compute capability (--data);
#  3. NeuSight's FP32 test shapes: surfer-bench accuracy --method all from
#     each of NeuSight's five GPUs (their rows of kernels-test, read from
#     the shared data) and from the shape, over a folder of links to both
#     (the dataset is one path), with --hold-out-figures, then surfer-bench
#     table; 3b from the shape with the figures kept (surfer-bench
#     accuracy's default; Hopper's tile picks and tile scales among them);
#  4. tools/gpu/kernels.py's GEMMs, attention, vector operators and decode
#     steps: surfer-bench own --data (held out as in 2); with another of
#     our GPUs' folders, its SDPA times predicting this one's as a
#     recorded trace's FlashAttention-2 kernels (--origin);
#  5. NeuSight's FP32 conv sweep shapes: surfer-bench conv --target, the
#     convolution model fitted on NeuSight's four GPUs (sm_60-sm_75), each
#     of them the origin of every shape the GPU measured; 5b the other way
#     round (--origin): the GPU's times predict NeuSight's four, each
#     target's architecture out of its fit, the GPU in none; 5c with the
#     picks and constants of its architecture (accuracy's default, not held
#     out; 5's dumps for make calibrate pass --hold-out-figures).
# 3 and 5's held-out dumps time the kernels without NeuSight's host floor
# (surfer-bench accuracy --no-host-floor): tools/gpu/sweep.py queues each
# shape's calls back to back between their events, so its times show the
# host only where a call is shorter than its dispatch (a few us), where
# NeuSight's op timings hold 25-60 us, and the tile model's family floors
# and the convolution model's floor_ns are those hosts'.  5c keeps
# the floor: with the figures of its architecture a Hopper target takes
# conv_sm90_shape, whose floor was fitted on our H200's own rows.
# Every held-out prediction of 1, 2, 3 and 5, and 4's tensor-core GEMMs, is
# dumped under $BUILD/own/<gpu>/ (e2e-*.csv, test/, sweep/, tensorcore.csv),
# where `make calibrate` takes the GPU as one more architecture of the
# interval table.
# The shared data is read at run time (NeuSight's configs and test shapes,
# the GEMM and operator data the held-out constants are fitted on); absent,
# the bench says so and stops.  Nothing is fitted on the GPU's own rows.
set -e
BUILD=${BUILD:-build}
SHARED=${SHARED:-../shared/data}
GPU=${GPU:-NVIDIA_H200}
TARGET=${TARGET:-h200}
B=$BUILD/surfer-bench
D=data/$GPU
if [ ! -d "$SHARED/neusight/kernels-test" ]; then
	echo "bench-h200: $SHARED/neusight absent (set SHARED=...), skipped"
	exit 0
fi
OUT=$BUILD/own/$GPU
rm -rf "$OUT"
mkdir -p "$OUT/kernels" "$OUT/test"
echo "== 1. FP32 iterations, eager attention (compiled-in tile weights: no Hopper in their data)"
"$B" e2e --labels "$D/labels" --configs "$SHARED/neusight/model_configs" --dump "$OUT/e2e-fp32.csv"
echo
echo "== 1b. the same with the figures measured on the GPU's architecture (what surfer-analyze gives its user; not held out)"
"$B" e2e --labels "$D/labels" --configs "$SHARED/neusight/model_configs" --with-figures | grep "mean |error|"
echo
echo "== 2. BF16 iterations, SDPA (constants fitted without the GPU's compute capability)"
"$B" e2e --labels "$D/labels-bf16" --configs "$SHARED/neusight/model_configs" --dtype bf16 \
	--attention sdpa --data "$SHARED" --dump "$OUT/e2e-bf16.csv"
echo
echo "== 3. NeuSight's FP32 test shapes (gemm / vector MAPE %; --method all)"
abs() { (cd "$(dirname "$1")" && echo "$(pwd)/$(basename "$1")"); }
for f in "$SHARED"/neusight/kernels-test/*.csv; do ln -s "$(abs "$f")" "$OUT/kernels/neusight-$(basename "$f")"; done
for f in "$D"/kernels/gemm.csv "$D"/kernels/vec.csv; do ln -s "$(abs "$f")" "$OUT/kernels/$GPU-$(basename "$f")"; done
reports=""
for o in P4 P100 T4 V100-PCIE-32GB A100-PCIE-40GB none; do
	"$B" accuracy --dataset "$OUT/kernels" --origin "$o" --target "$TARGET" --method all --json --no-host-floor \
		--hold-out-figures --dump "$OUT/test/$TARGET--$o.csv" >"$OUT/accuracy-$o.json"
	reports="$reports $OUT/accuracy-$o.json"
done
# shellcheck disable=SC2086
"$B" table $reports
echo
echo "== 3b. the same from the shape with the figures of its architecture (what surfer-analyze gives its user;"
echo "   not held out: the compiled-in weights carry our H100's and H200's tile picks, the GPU's own among them,"
echo "   and tile_sm90_scale.c the tile scales of their GEMMs)"
"$B" accuracy --dataset "$OUT/kernels" --origin none --target "$TARGET" --method auto --no-host-floor |
	grep -E '^auto +(gemm|vector|bmm|linear) '
echo
echo "== 4. tools/gpu/kernels.py's measurements (constants fitted without the GPU's compute capability)"
# 4b (--origin): the SDPA rows from another of our GPUs' times, the
# kernels named as a recorded trace names them (docs/attention.md,
# "Recorded traces")
ORIGIN=
for o in data/*/ours; do
	if [ "$o" != "$D/ours" ] && [ -f "$o/sdpa.csv" ]; then ORIGIN=$o; break; fi
done
"$B" own --dataset "$D/ours" --data "$SHARED" --dump "$OUT/tensorcore.csv" ${ORIGIN:+--origin "$ORIGIN"}
echo
echo "== 5. NeuSight's FP32 conv sweep shapes (the model fitted on NeuSight's four GPUs, not this one)"
if [ -f "$D/kernels/conv.csv" ] && [ -d "$SHARED/neusight/kernels/conv" ]; then
	mkdir -p "$OUT/conv"
	for f in "$SHARED"/neusight/kernels/conv/*.csv; do ln -s "$(abs "$f")" "$OUT/conv/$(basename "$f")"; done
	ln -s "$(abs "$D/kernels/conv.csv")" "$OUT/conv/$GPU.csv"
	"$B" conv --data "$OUT/conv" --target "$TARGET"
	echo
	echo "== 5b. the other way round: the GPU's conv times as the origin of NeuSight's four (docs/conv.md)"
	"$B" conv --data "$OUT/conv" --origin "$TARGET" | sed -n '1,/^(each fit/p'
	echo
	echo "== 5c. with cuDNN's picks and kernel constants measured on the GPU's architecture (conv_sm90_picks, from"
	echo "   our H200's rows: in-sample for the H200, a same-architecture check for the H100; not held out)"
	for o in V100-PCIE-32GB none; do
		"$B" accuracy --dataset "$OUT/conv" --origin "$o" --target "$TARGET" --method auto |
			grep -E '^accuracy|^auto +conv'
	done
	# the same shapes through `surfer-bench accuracy` (the compiled-in
	# convolution constants: fitted on those four, none of this
	# architecture), for `make calibrate`
	mkdir -p "$OUT/sweep"
	for o in P4 P100 T4 V100-PCIE-32GB none; do
		"$B" accuracy --dataset "$OUT/conv" --origin "$o" --target "$TARGET" --method all --json --no-host-floor \
			--hold-out-figures --dump "$OUT/sweep/$TARGET--$o.csv" >/dev/null
	done
else
	echo "no conv rows for $GPU, or $SHARED/neusight/kernels/conv absent: skipped"
fi
