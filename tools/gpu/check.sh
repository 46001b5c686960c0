#!/bin/sh
# tools/gpu/check.sh [BUNDLE [OUTDIR]]: the recorder against torch.profiler
# on a real GPU, in one run of about six minutes.  BUNDLE is what `make
# devcheck-bundle` writes (default .devcheck: the recorder, surfer-analyze,
# surfer-dump, surfer-import and the shared libraries they need, built on
# another machine), OUTDIR where the results go (default $OUT, else
# /tmp/surfer-gpu-check).  Needs python3 with PyTorch, torchvision and
# transformers.  Without a GPU it says so and exits 0.
#
# Each workload of tools/gpu/workload.py (gemm, gpt2, gpt2-bf16, decode,
# resnet50, compiled, graph) runs three times, the same seeded steps:
#   plain     its step time alone;
#   recorded  under LD_PRELOAD=libsurfer.so, the last 3 steps in profiler
#             windows, one iteration of the trace each;
#   profiled  the same 3 steps under torch.profiler (ProfilerStep#i).
# A separate process each: CUPTI takes one activity subscriber per process.
# Then "pair": gpt2-bf16 and decode in two processes at once, recorded
# together and profiled together (DDP ranks and DataLoader workers share a
# GPU this way).  For each, tools/gpu/compare.py prints PASS or FAIL lines:
#   kernels     every kernel the profiler saw is in the recording, same
#               names, same counts, with GPU times;
#   durations   each within 2% of the profiler's (or GPU_CHECK_FLOOR_NS,
#               default 500 ns, for kernels of a few microseconds);
#   iteration   the iteration's GPU span within 1%;
#   libraries   cuBLAS/cuBLASLt/cuDNN calls with shapes, each library
#               kernel linked to one (for graph, each replayed one through
#               the launch captured into its graph, before the windows);
#   overhead    the step with the recorder at most 1% slower than without,
#               where the step is GPU-bound (the GPU busy 90% of it or more);
#   replay      surfer-analyze on the trace, the recording GPU as target,
#               within 5% of the measured step;
# and, where the workload wrote its model config, surfer-analyze --model
# against the measured step and, per operator class, the profile's kernel
# time against the model's (lines without a verdict).
# OUTDIR/summary.txt has every line; OUTDIR/<workload>/ the traces, logs and
# analyses; OUTDIR/examples/<workload>/ what examples/ takes: trace.mp,
# profile.json.gz (torch.profiler's), meta.json (GPU and its name in
# gpu_specs, driver, CUDA, cuDNN, PyTorch versions, measured step times,
# the command); tests/examples_test.sh checks such folders.
#
# GPU_CHECK_WORKLOAD replaces the workload command, GPU_CHECK_ORIGIN names
# the recording GPU (tests/gpu_check_test.sh runs it over the fake driver),
# GPU_CHECK_WORKLOADS the list (default all, then pair), GPU_CHECK_LIBS those
# checked for library calls, GPU_CHECK_FLOOR_NS and GPU_CHECK_REPLAY_PCT the
# limits above, GPU_CHECK_BUDGET_S the time after which no
# further workload starts (default 420).
set -u
here=$(cd "$(dirname "$0")" && pwd)
bundle=$(cd "${1:-.devcheck}" 2>/dev/null && pwd) || { echo "gpu_check: no bundle ${1:-.devcheck} (make devcheck-bundle)"; exit 2; }
out=${2:-${OUT:-/tmp/surfer-gpu-check}}
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
sum="$out/summary.txt"
: >"$sum"
say() { echo "$*" | tee -a "$sum"; }
t_start=$(date +%s)
budget=${GPU_CHECK_BUDGET_S:-420}
floor=${GPU_CHECK_FLOOR_NS:-500}
libs_in=${GPU_CHECK_LIBS-gemm gpt2 gpt2-bf16 decode resnet50 compiled graph pair-a pair-b}

if ! nvidia-smi -L >"$out/nvidia-smi.txt" 2>&1; then
	echo "gpu_check: no GPU here (nvidia-smi failed), skipped"
	exit 0
fi
# The bundle's libraries come from the build machine and may be older than
# this machine's (its libstdc++ older than the one PyTorch needs): a
# directory on LD_LIBRARY_PATH is searched before the system's, so the
# bundle's lib/ is put there for our own programs alone (ours), and the
# recorded process gets only what libsurfer.so cannot find on this machine
# (libunwind, typically), linked one by one into $out/.preload-lib.
ours() { LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"; }
prelib="$out/.preload-lib"
rm -rf "$prelib" && mkdir -p "$prelib"
for _ in 1 2 3; do # a library found may need another the machine lacks
	LD_LIBRARY_PATH="$prelib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ldd "$bundle/bin/libsurfer.so" 2>/dev/null |
		awk '$2 == "=>" && $3 == "not" { print $1 }' | while read -r l; do
		[ -e "$bundle/lib/$l" ] && ln -sf "$bundle/lib/$l" "$prelib/$l"
	done
done
analyze="$bundle/bin/surfer-analyze"
dump="$bundle/bin/surfer-dump"
import="$bundle/bin/surfer-import"
shim="$bundle/bin/libsurfer.so"
for p in "$analyze" "$dump" "$import"; do
	ours "$p" --version >/dev/null 2>&1 || { say "FAIL: $p does not run here"; exit 1; }
done
say "device: $(head -1 "$out/nvidia-smi.txt"); cupti: ${SURFER_CUPTI_PATH:-the recorder's search}"

cmp="python3 $here/compare.py"
workload=${GPU_CHECK_WORKLOAD:-python3 $here/workload.py}
origin=${GPU_CHECK_ORIGIN:-}
target=$origin # the recording GPU's gpu_specs name, from the first trace
fail=0
# verdicts LINES...: appends compare.py's lines, counting the failures
verdicts() {
	while IFS= read -r l; do
		say "$l"
		case $l in FAIL*) fail=$((fail + 1)) ;; esac
	done
}
field() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {'d': d}))" "$1" "$2"; }

# recorded NAME DIR W: the recorded run of workload W into DIR (background-able)
recorded() {
	SURFER_OUTPUT="$2/trace.mp" SURFER_ITERATIONS=3 SURFER_VERBOSE=1 LD_PRELOAD="$shim" \
		LD_LIBRARY_PATH="$prelib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		$workload "$3" "$2/rec.json" --windows 3 >"$2/rec.log" 2>&1
}
profiled() {
	$workload "$3" "$2/prof.json" --windows 3 --profile "$2/profile.json" >"$2/prof.log" 2>&1
}
plain() {
	$workload "$3" "$2/plain.json" >"$2/plain.log" 2>&1
}

# judge NAME DIR W: everything that compares the three runs of one workload
judge() {
	n=$1 d=$2 jw=$3
	for f in plain rec prof; do
		[ -s "$d/$f.json" ] || { say "FAIL $n: the $f run failed (see $n/$f.log)"; fail=$((fail + 1)); return; }
	done
	[ -s "$d/trace.mp" ] || { say "FAIL $n: no trace (see $n/rec.log)"; fail=$((fail + 1)); return; }
	ours "$dump" "$d/trace.mp" >"$d/trace.jsonl" 2>"$d/dump.err" ||
		{ say "FAIL $n: surfer-dump: $(head -1 "$d/dump.err")"; fail=$((fail + 1)); return; }
	ours "$import" -q kineto "$d/profile.json" -o "$d/profile.mp" ${origin:+--origin $origin} 2>"$d/import.err" &&
		ours "$dump" "$d/profile.mp" >"$d/profile.jsonl" 2>>"$d/import.err" ||
		{ say "FAIL $n: surfer-import of the profile: $(head -1 "$d/import.err")"; fail=$((fail + 1)); return; }
	# what the import read of the profile's library ops (no verdict: the
	# argument positions of the attention ops are PyTorch's and flash-attn's
	# schemas as written from memory; gpt2-bf16 and bert-pad should show
	# attention records, resnet50 convolution records)
	say "     $n: the profile's import: $(grep -c '"attn_impl"' "$d/profile.jsonl") attention records," \
		"$(grep -c '"type": *"conv"' "$d/profile.jsonl") convolution records"
	libs=
	case " $libs_in " in *" $n "*) libs=--libs ;; esac
	$cmp kernels "$n" "$d/trace.jsonl" "$d/profile.jsonl" --floor-ns "$floor" $libs >"$d/compare.txt" 2>&1
	[ $? -le 1 ] || echo "FAIL $n: compare.py: $(head -1 "$d/compare.txt")" >>"$d/compare.txt"
	verdicts <"$d/compare.txt"
	$cmp overhead "$n" "$d/plain.json" "$d/rec.json" "$d/trace.jsonl" >"$d/overhead.txt" 2>&1
	verdicts <"$d/overhead.txt"
	# the recording GPU as gpu_specs names it: the analyzer's origin for the
	# trace's device (a fixed default named an H200 on an H100 run)
	[ -n "$target" ] || { ours "$analyze" "$d/trace.mp" --target l4 --json >"$d/origin.json" 2>/dev/null &&
		target=$(field "$d/origin.json" "d['origin']['gpu']" 2>/dev/null); }
	[ -n "$target" ] || { say "FAIL $n: surfer-analyze cannot name the recording GPU"; fail=$((fail + 1)); return; }
	if ours "$analyze" "$d/trace.mp" ${origin:+--origin $origin} --target "$target" --target h100-sxm \
		--target a100-sxm4-80 --target l4 --json >"$d/analyze.json" 2>"$d/analyze.err"; then
		$cmp replay "$n" "$d/analyze.json" "$d/rec.json" --limit-pct "${GPU_CHECK_REPLAY_PCT:-5}" \
			>"$d/replay.txt" 2>&1
		verdicts <"$d/replay.txt"
	else
		say "FAIL $n: surfer-analyze on the trace: $(head -1 "$d/analyze.err")"
		fail=$((fail + 1))
	fi
	if [ -f "$d/plain.json.config.json" ]; then
		b=$(field "$d/plain.json" "d['batch']"); s=$(field "$d/plain.json" "d['seq']")
		mode=$(field "$d/plain.json" "d['mode']"); dt=$(field "$d/plain.json" "d['dtype']")
		flags=$(field "$d/plain.json" "' '.join(d.get('model_flags', []))")
		# shellcheck disable=SC2086
		if ours "$analyze" --model "$d/plain.json.config.json" --batch "$b" --seq "$s" --mode "$mode" --dtype "$dt" \
			$flags --target "$target" --json >"$d/model.json" 2>"$d/model.err"; then
			say "     $n: --model ($mode, batch $b, seq $s, $dt${flags:+ $flags}) -> $target: $(field "$d/model.json" "'%.3f' % d['predictions'][0]['iteration_ms']") ms vs $(field "$d/plain.json" "'%.3f' % d['step_ms']") measured"
			# where the difference sits: the profile's kernels per
			# operator class against the model's (no verdict)
			ours "$analyze" "$d/profile.mp" ${origin:+--origin $origin} --target "$target" --json \
				>"$d/profile-analyze.json" 2>/dev/null &&
				$cmp ops "$n" "$d/profile-analyze.json" "$d/model.json" >"$d/ops.txt" 2>&1 &&
				while IFS= read -r l; do say "$l"; done <"$d/ops.txt"
		else
			say "FAIL $n: surfer-analyze --model: $(head -1 "$d/model.err")"
			fail=$((fail + 1))
		fi
	fi
	# what examples/<name>/ takes
	e="$out/examples/$n"
	mkdir -p "$e"
	cp "$d/trace.mp" "$e/trace.mp"
	gzip -c "$d/profile.json" >"$e/profile.json.gz"
	python3 - "$d" "$e/meta.json" "$n" "$target" <<'PY'
import json, sys
d, out, name, target = sys.argv[1:]
p, r = json.load(open(d + "/plain.json")), json.load(open(d + "/rec.json"))
keep = ("workload", "device", "driver", "cuda", "cudnn", "torch", "batch", "seq", "mode", "dtype")
m = {k: p[k] for k in keep if k in p}
m.update(name=name, surfer_gpu=target, step_ms=p["step_ms"], steps_ms=p["steps_ms"], recorded_step_ms=r["step_ms"],
         recorded_command=r.get("command"), iterations_in_trace=r.get("windows"))
json.dump(m, open(out, "w"), indent=1)
PY
}

over() { [ $(($(date +%s) - t_start)) -ge "$budget" ]; }
for w in ${GPU_CHECK_WORKLOADS:-gemm gpt2 gpt2-bf16 decode resnet50 compiled graph pair}; do
	if over; then
		say "SKIP $w: the budget of $budget s is spent"
		continue
	fi
	if [ "$w" = pair ]; then
		# two processes at once, in each of the three modes
		for m in plain recorded profiled; do
			mkdir -p "$out/pair-a" "$out/pair-b"
			$m pair-a "$out/pair-a" gpt2-bf16 &
			pa=$!
			$m pair-b "$out/pair-b" decode &
			pb=$!
			wait $pa; wait $pb
		done
		judge pair-a "$out/pair-a" gpt2-bf16
		judge pair-b "$out/pair-b" decode
		continue
	fi
	d="$out/$w"
	mkdir -p "$d"
	plain "$w" "$d" "$w"
	recorded "$w" "$d" "$w"
	profiled "$w" "$d" "$w"
	judge "$w" "$d" "$w"
done
say "gpu_check: $fail failures in $(($(date +%s) - t_start)) s"
[ $fail -eq 0 ]
