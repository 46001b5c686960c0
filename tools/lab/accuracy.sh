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
#
# For the intervals of a target near the data (predictor/interval.h), held
# out the same way: DeepBench's FP32 GEMMs predicted from another board of
# the target's die (GP102: TITAN X Pascal, TITAN Xp, GTX 1080 Ti, with the
# weights trained without sm_61; GM200: M40, TITAN X, with weights trained
# without sm_52), into deepbench/*.csv, and the tensor-core GEMM model's
# held-out predictions (surfer-bench tensorcore --dump: each GPU's
# architecture out of the fit; H20 from H800 the same die) into
# tensorcore.csv.
#
# REUSE_WEIGHTS=1 keeps the weights w_*.bin already in $BUILD/accuracy
# (trained by an earlier run of the same surfer-train and data) and trains
# only those missing: the predictions alone take minutes, the five
# trainings longer.
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
# OWN_TRAIN=data: our own GPUs' FP32 GEMM and vector test shapes
# (data/<GPU>/kernels/{gemm,vec}.csv, Hopper) train too, one more
# architecture that is never the held-out one.  Off by default: with them
# the held-out GEMMs of every NeuSight GPU got worse (docs/tile-model.md,
# "Our Hopper measurements in the pool"); the switch reproduces that.
if [ -n "${OWN_TRAIN:-}" ]; then
	rm -rf "$OUT/own-kernels"
	mkdir -p "$OUT/own-kernels"
	for f in "$OWN_TRAIN"/*/kernels/gemm.csv "$OWN_TRAIN"/*/kernels/vec.csv; do
		[ -f "$f" ] || continue
		g=$(basename "$(dirname "$(dirname "$f")")")
		ln -s "$(cd "$(dirname "$f")" && pwd)/$(basename "$f")" "$OUT/own-kernels/$g-$(basename "$f")"
	done
	TEST_DATA="$TEST_DATA --data $OUT/own-kernels"
fi
GPUS="Tesla_P4 Tesla_P100-PCIE-16GB Tesla_T4 Tesla_V100-PCIE-32GB NVIDIA_A100-PCIE-40GB"
# sm_52 held out too for DeepBench's Maxwell boards
TRAIN=$GPUS
[ -d "$DEEPBENCH" ] && TRAIN="$GPUS Tesla_M40"
name() { echo "$1" | tr _ ' '; }
# The trainings, JOBS at a time (each uses one core; so do the predictions).
JOBS=${JOBS:-2}
n=0
for h in $TRAIN; do
	H=$(name "$h")
	if [ "${REUSE_WEIGHTS:-0}" = 1 ] && [ -s "$OUT/w_$h.bin" ]; then
		echo "accuracy: reusing $OUT/w_$h.bin (REUSE_WEIGHTS=1)" >&2
		continue
	fi
	echo "accuracy: training without $H's architecture" >&2
	rm -f "$OUT/w_$h.bin"
	"$BUILD/surfer-train" --data "$DATA/kernels" $TEST_DATA --holdout "$H" \
		--out "$OUT/w_$h.bin" --quiet &
	n=$((n + 1))
	[ $((n % JOBS)) -eq 0 ] && wait
done
wait
for h in $TRAIN; do
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
# The row-wise model (FP32 layer norm and softmax) fitted on NeuSight's test
# shapes of the other architectures, as the tile model trains on them.
RW=""
[ -d "$DATA/kernels-test" ] && RW="--heldout-rowwise $DATA/kernels-test"
# The predictions, one held-out GPU per job, JOBS at a time (an earlier
# run's reports and dumps removed first: a failed job leaves none).
rm -f "$OUT"/*--*.json "$OUT"/test/*--*.json "$OUT"/test/*--*.csv "$OUT"/sweep/*--*.csv
n=0
for h in $GPUS; do
	(
	H=$(name "$h")
	S=$(shrink "$h")
	for o in $GPUS none; do
		[ "$o" = "$h" ] && continue
		O=$(name "$o")
		"$BUILD/surfer-bench" accuracy --dataset "$DATA/kernels" --origin "$O" --target "$H" \
			--method all --weights "$OUT/w_$h.bin" --heldout-conv $RW --shrink "$S" --json --hold-out-figures \
			--dump "$OUT/sweep/$h--$o.csv" \
			> "$OUT/$h--$o.json"
		if [ -d "$DATA/kernels-test" ]; then
			"$BUILD/surfer-bench" accuracy --dataset "$DATA/kernels-test" --origin "$O" \
				--target "$H" --method all --weights "$OUT/w_$h.bin" $RW --shrink "$S" --json --hold-out-figures \
				--dump "$OUT/test/$h--$o.csv" > "$OUT/test/$h--$o.json"
		fi
	done
	) &
	n=$((n + 1))
	[ $((n % JOBS)) -eq 0 ] && wait
done
wait
reports=""
tests=""
for h in $GPUS; do
	for o in $GPUS none; do
		[ "$o" = "$h" ] && continue
		[ -s "$OUT/$h--$o.json" ] || { echo "accuracy: no report $OUT/$h--$o.json" >&2; exit 1; }
		reports="$reports $OUT/$h--$o.json"
		if [ -d "$DATA/kernels-test" ]; then
			[ -s "$OUT/test/$h--$o.json" ] || { echo "accuracy: no report $OUT/test/$h--$o.json" >&2; exit 1; }
			tests="$tests $OUT/test/$h--$o.json"
		fi
	done
done
# Boards of one die: DeepBench's FP32 GEMMs, target TARGET--ORIGIN.csv by id.
if [ -d "$DEEPBENCH" ]; then
	rm -rf "$OUT/deepbench"
	mkdir -p "$OUT/deepbench"
	for die in "Tesla_P4:titan-x-pascal titan-xp gtx-1080-ti" "Tesla_M40:m40 titan-x-maxwell"; do
		w=${die%%:*}
		boards=${die#*:}
		for t in $boards; do
			for o in $boards; do
				[ "$o" = "$t" ] && continue
				"$BUILD/surfer-bench" accuracy --format deepbench --dataset "$DEEPBENCH" \
					--origin "$o" --target "$t" --method all --weights "$OUT/w_$w.bin" \
					--json --hold-out-figures --dump "$OUT/deepbench/$t--$o.csv" > "$OUT/deepbench/$t--$o.json"
			done
		done
	done
fi
# The tensor-core GEMM model, each GPU's architecture out of its fit.
if [ -f "$DATA/../pipeweave/gemm_fp8_train.csv" ]; then
	"$BUILD/surfer-bench" tensorcore --data "$DATA/.." --dump "$OUT/tensorcore.csv" \
		> "$OUT/tensorcore.txt"
fi
"$BUILD/surfer-bench" table $reports > "$OUT/table.md"
if [ -n "$tests" ]; then
	echo >> "$OUT/table.md"
	echo "NeuSight's test shapes:" >> "$OUT/table.md"
	"$BUILD/surfer-bench" table $tests >> "$OUT/table.md"
fi
cat "$OUT/table.md"
