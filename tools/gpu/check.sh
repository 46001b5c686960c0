#!/bin/sh
# tools/gpu/check.sh [BUNDLE [OUTDIR]]: the checks that need a real GPU, in
# one run of a few minutes.  BUNDLE is what `make devcheck-bundle` writes
# (default .devcheck: the recorder, surfer-analyze, surfer-dump and the
# shared libraries they need, built on another machine), OUTDIR where the
# results go (default $OUT, else /tmp/surfer-gpu-check).  Needs python3
# with PyTorch and transformers.  Without a GPU it says so and exits 0.
#
# What it checks, each workload of tools/gpu/workload.py (FP32 GEMMs, a
# GPT-2 training step, a Llama-style BF16 decode step):
#   1. the program's own step time with and without LD_PRELOAD=libsurfer.so
#      (the recorder must not slow it noticeably), with CUPTI timing;
#   2. the trace: kernels recorded in the profiler windows, library calls;
#   3. surfer-analyze on the trace with the recording GPU as the target
#      (identity: the replayed timeline against the measured step) and on
#      other GPUs (it must run);
#   4. surfer-analyze --model on the same config (GPT-2, the decode step)
#      against the measured step: a GPU the tile model never saw.
# Everything lands in OUTDIR; summary.txt has one line per comparison.
# GPU_CHECK_WORKLOAD replaces the workload command and GPU_CHECK_ORIGIN names
# the recording GPU (tests/gpu_check_test.sh runs it over the fake driver).
set -u
here=$(cd "$(dirname "$0")" && pwd)
bundle=$(cd "${1:-.devcheck}" 2>/dev/null && pwd) || { echo "gpu_check: no bundle ${1:-.devcheck} (make devcheck-bundle)"; exit 2; }
out=${2:-${OUT:-/tmp/surfer-gpu-check}}
mkdir -p "$out"
sum="$out/summary.txt"
: >"$sum"
say() { echo "$*" | tee -a "$sum"; }

if ! nvidia-smi -L >"$out/nvidia-smi.txt" 2>&1; then
	echo "gpu_check: no GPU here (nvidia-smi failed), skipped"
	exit 0
fi
# last on the path: the machine's own copies of these libraries win
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$bundle/lib"
analyze="$bundle/bin/surfer-analyze"
dump="$bundle/bin/surfer-dump"
shim="$bundle/bin/libsurfer.so"
"$analyze" --version >/dev/null 2>&1 || { say "FAIL: $analyze does not run here"; exit 1; }

# CUPTI: SURFER_CUPTI_PATH if set, else the recorder's own search (beside
# the program's CUDA libraries, then the loader's path); each trace's line
# says which it loaded.
say "device: $(head -1 "$out/nvidia-smi.txt"); cupti: ${SURFER_CUPTI_PATH:-the recorder's search}"

# pct MEASURED PREDICTED: signed percentage error
pct() { python3 -c "import sys; m, p = float(sys.argv[1]), float(sys.argv[2]); print('%+.1f%%' % (100 * (p / m - 1)))" "$1" "$2"; }
field() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {'d': d}))" "$1" "$2"; }

workload=${GPU_CHECK_WORKLOAD:-python3 $here/gpu_workload.py}
origin=${GPU_CHECK_ORIGIN:+--origin $GPU_CHECK_ORIGIN}
fail=0
for w in gemm gpt2 decode; do
	plain="$out/$w.json"
	rec="$out/$w-rec.json"
	trace="$out/$w.mp"
	if ! $workload "$w" "$plain" >"$out/$w.log" 2>&1; then
		say "FAIL: $w: the workload itself failed (see $w.log)"
		fail=$((fail + 1))
		continue
	fi
	SURFER_OUTPUT="$trace" SURFER_ITERATIONS=3 SURFER_VERBOSE=1 LD_PRELOAD="$shim" \
		$workload "$w" "$rec" --windows 3 >"$out/$w-rec.log" 2>&1
	rc=$?
	if [ $rc -ne 0 ] || [ ! -s "$trace" ]; then
		say "FAIL: $w under the recorder: exit $rc, trace $(wc -c <"$trace" 2>/dev/null || echo missing) bytes (see $w-rec.log)"
		fail=$((fail + 1))
		continue
	fi
	m=$(field "$plain" "d['step_ms']")
	mr=$(field "$rec" "d['step_ms']")
	say "$w: step $m ms alone, $mr ms recorded ($(pct "$m" "$mr") overhead); $(grep -m1 -o 'libcupti: .*\|timing: .*' "$out/$w-rec.log" | head -1)"
	"$dump" "$trace" >"$out/$w-dump.jsonl" 2>"$out/$w-dump.err" ||
		{ say "FAIL: $w: surfer-dump failed"; fail=$((fail + 1)); }
	nk=$(grep -c '"type":"kernel"' "$out/$w-dump.jsonl")
	nt=$(grep '"type":"kernel"' "$out/$w-dump.jsonl" | grep -c '"start_ns"')
	say "  trace: $nk kernels ($nt with GPU times), $(grep -c '"type":"gemm"\|"type":"conv"' "$out/$w-dump.jsonl") GEMM/conv library calls, timing $(head -1 "$out/$w-dump.jsonl" | python3 -c "import json, sys; print(json.load(sys.stdin).get('timing'))"), dropped $(grep '"type":"trailer"' "$out/$w-dump.jsonl" | python3 -c "import json, sys; print(json.load(sys.stdin).get('dropped'))")"
	# every kernel of the windows must carry its GPU start and end
	[ "$nk" -gt 0 ] && [ "$nt" -eq "$nk" ] ||
		{ say "FAIL: $w: $((nk - nt)) of $nk kernels without GPU times"; fail=$((fail + 1)); }
	if "$analyze" "$trace" $origin --target h200 --target h100-sxm --target a100-sxm4-80 --target l4 --json \
		>"$out/$w-analyze.json" 2>"$out/$w-analyze.err"; then
		p=$(field "$out/$w-analyze.json" "'%.3f' % d['predictions'][0]['iteration_ms']")
		say "  trace -> $(field "$out/$w-analyze.json" "d['predictions'][0]['target']"): $p ms per window vs $mr measured ($(pct "$mr" "$p")); others: $(field "$out/$w-analyze.json" "' '.join('%s %.3f' % (t['target'], t['iteration_ms']) for t in d['predictions'][1:])") ms"
	else
		say "FAIL: $w: surfer-analyze on the trace: $(head -1 "$out/$w-analyze.err")"
		fail=$((fail + 1))
	fi
	if [ -f "$plain.config.json" ]; then
		b=$(field "$plain" "d['batch']"); s=$(field "$plain" "d['seq']")
		mode=$(field "$plain" "d['mode']"); dt=$(field "$plain" "d['dtype']")
		if "$analyze" --model "$plain.config.json" --batch "$b" --seq "$s" --mode "$mode" --dtype "$dt" \
			--target h200 --json >"$out/$w-model.json" 2>"$out/$w-model.err"; then
			p=$(field "$out/$w-model.json" "'%.3f' % d['predictions'][0]['iteration_ms']")
			say "  --model ($mode, batch $b, seq $s, $dt) -> h200: $p ms vs $m measured ($(pct "$m" "$p"))"
		else
			say "FAIL: $w: surfer-analyze --model: $(head -1 "$out/$w-model.err")"
			fail=$((fail + 1))
		fi
	fi
done
say "gpu_check: $fail failures"
[ $fail -eq 0 ]
