#!/bin/sh
# accuracy.sh - the held-out accuracy table (`make accuracy`).
#
# For each of the five GPUs of NeuSight's kernel data: train the tile model
# on the other four (surfer-train --holdout), then predict that GPU from each
# of the others and from scratch with every method (surfer-bench accuracy
# --method all), and gather the reports into markdown tables
# (surfer-bench table).  Writes $BUILD/accuracy/{*.json,table.md}.
set -e
BUILD=${BUILD:-build}
DATA=${DATA:-../shared/data/neusight}
OUT=$BUILD/accuracy
if [ ! -d "$DATA/kernels" ]; then
	echo "accuracy: no NeuSight data under '$DATA' (set NEUSIGHT_DATA=...); skipped" >&2
	exit 0
fi
mkdir -p "$OUT"
# NeuSight's test shapes (the models' own GEMM and vector shapes) train
# too, the held-out GPU's rows excepted; the tables are over the sweep.
TEST_DATA=""
[ -d "$DATA/kernels-test" ] && TEST_DATA="--data $DATA/kernels-test"
# DeepBench's FP32 GEMMs on eight other boards train the GEMM model too
# (surfer-train --holdout leaves out every board of the held-out GPU's chip).
DEEPBENCH=${DEEPBENCH:-$DATA/../deepbench/csv/results/train}
[ -d "$DEEPBENCH" ] && TEST_DATA="$TEST_DATA --data $DEEPBENCH"
GPUS="Tesla_P4 Tesla_P100-PCIE-16GB Tesla_T4 Tesla_V100-PCIE-32GB NVIDIA_A100-PCIE-40GB"
name() { echo "$1" | tr _ ' '; }
# The five trainings, JOBS at a time (each uses one core).
JOBS=${JOBS:-2}
n=0
for h in $GPUS; do
	H=$(name "$h")
	echo "accuracy: training without $H" >&2
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
reports=""
for h in $GPUS; do
	H=$(name "$h")
	for o in $GPUS none; do
		[ "$o" = "$h" ] && continue
		O=$(name "$o")
		"$BUILD/surfer-bench" accuracy --dataset "$DATA/kernels" --origin "$O" --target "$H" \
			--method all --weights "$OUT/w_$h.bin" --json > "$OUT/$h--$o.json"
		reports="$reports $OUT/$h--$o.json"
	done
done
"$BUILD/surfer-bench" table $reports > "$OUT/table.md"
cat "$OUT/table.md"
