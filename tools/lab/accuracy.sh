#!/bin/sh
# accuracy.sh - the held-out accuracy table (`make accuracy`).
#
# For each of the five GPUs of NeuSight's kernel data: train the tile model
# (and fit the convolution model: --heldout-conv) without its whole
# architecture (surfer-train --holdout leaves out every
# board of the GPU's compute capability: the P4 goes with DeepBench's
# TITAN X Pascal, TITAN Xp and GTX 1080 Ti, the V100 PCIe with the V100
# SXM2), then predict that GPU from each of the others and from scratch
# with every method (surfer-bench accuracy --method all), on NeuSight's
# sweep and on its test shapes, and gather the reports into markdown
# tables (surfer-bench table).  Writes $BUILD/accuracy/{*.json,table.md},
# test/*.{json,csv} and sweep/*.csv (every held-out prediction, what
# `make calibrate` reads).
set -e
BUILD=${BUILD:-build}
DATA=${DATA:-../shared/data/neusight}
OUT=$BUILD/accuracy
if [ ! -d "$DATA/kernels" ]; then
	echo "accuracy: no NeuSight data under '$DATA' (set NEUSIGHT_DATA=...); skipped" >&2
	exit 0
fi
mkdir -p "$OUT" "$OUT/test" "$OUT/sweep"
# NeuSight's test shapes (the models' own GEMM and vector shapes) train
# too, the held-out GPU's rows excepted; the tables are over the sweep.
TEST_DATA=""
[ -d "$DATA/kernels-test" ] && TEST_DATA="--data $DATA/kernels-test"
# DeepBench's FP32 GEMMs on eight other boards train the GEMM model too
# (surfer-train --holdout leaves out every board of the held-out GPU's architecture).
DEEPBENCH=${DEEPBENCH:-$DATA/../deepbench/csv/results/train}
[ -d "$DEEPBENCH" ] && TEST_DATA="$TEST_DATA --data $DEEPBENCH"
GPUS="Tesla_P4 Tesla_P100-PCIE-16GB Tesla_T4 Tesla_V100-PCIE-32GB NVIDIA_A100-PCIE-40GB"
name() { echo "$1" | tr _ ' '; }
# The five trainings, JOBS at a time (each uses one core).
JOBS=${JOBS:-2}
n=0
for h in $GPUS; do
	H=$(name "$h")
	echo "accuracy: training without $H's architecture" >&2
	rm -f "$OUT/w_$h.bin"
	"$BUILD/surfer-train" --data "$DATA/kernels" $TEST_DATA --holdout "$H" \
		--out "$OUT/w_$h.bin" --quiet &
	n=$((n + 1))
	[ $((n % JOBS)) -eq 0 ] && wait
done
wait
for h in $GPUS; do
	[ -s "$OUT/w_$h.bin" ] || { echo "accuracy: training without $(name "$h") failed" >&2; exit 1; }
done
# auto's exponents across architectures (predictor/predict.c, struct
# pred_shrink), each fitted on the a = 1 predictions of the other four
# architectures' pairs only: the compiled-in ones saw all five.
shrink() {
	case $1 in
	Tesla_P4) echo 0.15,0.25 ;;
	*) echo 0.05,0 ;;
	esac
}
reports=""
tests=""
for h in $GPUS; do
	H=$(name "$h")
	S=$(shrink "$h")
	for o in $GPUS none; do
		[ "$o" = "$h" ] && continue
		O=$(name "$o")
		"$BUILD/surfer-bench" accuracy --dataset "$DATA/kernels" --origin "$O" --target "$H" \
			--method all --weights "$OUT/w_$h.bin" --heldout-conv --shrink "$S" --json \
			--dump "$OUT/sweep/$h--$o.csv" \
			> "$OUT/$h--$o.json"
		reports="$reports $OUT/$h--$o.json"
		if [ -d "$DATA/kernels-test" ]; then
			"$BUILD/surfer-bench" accuracy --dataset "$DATA/kernels-test" --origin "$O" \
				--target "$H" --method all --weights "$OUT/w_$h.bin" --shrink "$S" --json \
				--dump "$OUT/test/$h--$o.csv" > "$OUT/test/$h--$o.json"
			tests="$tests $OUT/test/$h--$o.json"
		fi
	done
done
"$BUILD/surfer-bench" table $reports > "$OUT/table.md"
if [ -n "$tests" ]; then
	echo >> "$OUT/table.md"
	echo "NeuSight's test shapes:" >> "$OUT/table.md"
	"$BUILD/surfer-bench" table $tests >> "$OUT/table.md"
fi
cat "$OUT/table.md"
