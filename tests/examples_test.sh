#!/bin/sh
# examples_test.sh [DIR] - the example traces recorded on a real GPU
# (DIR/<name>/ as tools/gpu/check.sh leaves them under OUTDIR/examples:
# trace.mp, profile.json.gz, meta.json), each checked three ways:
#   identity  surfer-analyze on the trace, the recording GPU as target,
#             within EXAMPLES_IDENTITY_PCT (default 5) of the step time
#             measured while recording (meta.json recorded_step_ms);
#   golden    its predictions on two other GPUs (a100-sxm4-80, l4) equal to
#             golden.txt, to the microsecond; `examples_test.sh --write-golden
#             [DIR]` writes golden.txt once, from a reviewed build;
#   import    torch.profiler's trace of the same steps, through surfer-import,
#             has the same kernels, names and counts (tools/gpu/compare.py).
# DIR defaults to examples/.  A folder whose trace names a fake device (the
# test driver's) is skipped unless EXAMPLES_ALLOW_FAKE is set (as
# tests/gpu_check_test.sh does over check.sh's output); with no folder left
# the test says so and passes.
. "$(dirname "$0")/lib.sh"
test_tmp examples
write=
[ "${1:-}" = "--write-golden" ] && { write=1; shift; }
dir=${1:-examples}
pct=${EXAMPLES_IDENTITY_PCT:-5}
targets="a100-sxm4-80 l4"
seen=0
for e in "$dir"/*/; do
	[ -f "$e/meta.json" ] && [ -f "$e/trace.mp" ] || continue
	e=${e%/}
	name=$(basename "$e")
	dev=$($B/surfer-dump "$e/trace.mp" 2>/dev/null | head -1 |
		python3 -c "import json, sys; print(json.load(sys.stdin)['device']['name'])" 2>/dev/null)
	case "$dev" in
	*Fake* | "") [ -n "${EXAMPLES_ALLOW_FAKE:-}" ] || { echo "examples_test: $name: recorded on '$dev', not a real GPU: skipped"; continue; } ;;
	esac
	seen=$((seen + 1))
	gpu=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['surfer_gpu'])" "$e/meta.json")
	set --
	for t in $targets; do set -- "$@" --target "$t"; done
	$B/surfer-analyze "$e/trace.mp" --origin "$gpu" --target "$gpu" "$@" --json >"$tmp/a.json" 2>"$tmp/a.err"
	check "$name: surfer-analyze runs ($(head -1 "$tmp/a.err"))" $?
	python3 - "$e/meta.json" "$tmp/a.json" "$pct" >"$tmp/r.txt" 2>&1 <<'PY'
import json, sys
m, a, pct = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), float(sys.argv[3])
p, s = a["predictions"][0]["iteration_ms"], m["recorded_step_ms"]
print("%.3f ms vs %.3f ms measured, %+.1f%%" % (p, s, 100 * (p / s - 1)))
sys.exit(abs(p / s - 1) * 100 > pct)
PY
	check "$name: identity on the recording GPU ($(head -1 "$tmp/r.txt"))" $?
	python3 -c "
import json, sys
for t in json.load(open(sys.argv[1]))['predictions'][1:]:
    print('%s %.3f' % (t['target'], t['iteration_ms']))" "$tmp/a.json" >"$tmp/golden.txt"
	if [ -n "$write" ]; then
		cp "$tmp/golden.txt" "$e/golden.txt"
		echo "examples_test: wrote $e/golden.txt"
	fi
	cmp -s "$tmp/golden.txt" "$e/golden.txt"
	check "$name: predictions on $targets equal golden.txt ($(tr '\n' ' ' <"$tmp/golden.txt")vs $(cat "$e/golden.txt" 2>/dev/null | tr '\n' ' ')))" $?
	$B/surfer-import -q kineto "$e/profile.json.gz" -o "$tmp/p.mp" --origin "$gpu" 2>"$tmp/i.err" &&
		$B/surfer-dump "$tmp/p.mp" >"$tmp/p.jsonl" && $B/surfer-dump "$e/trace.mp" >"$tmp/t.jsonl" &&
		python3 tools/gpu/compare.py kernels "$name" "$tmp/t.jsonl" "$tmp/p.jsonl" >"$tmp/k.txt" 2>&1
	grep -q "^PASS $name: kernels:" "$tmp/k.txt"
	check "$name: the torch.profiler trace imports to the same kernels ($(head -1 "$tmp/k.txt"))" $?
done
[ $seen -eq 0 ] && echo "examples_test: no example traced on a real GPU in $dir/: skipped"
finish "examples_test"
