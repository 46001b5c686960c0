#!/bin/sh
# surfer-analyze on traces the recorder wrote (libsurfer.so over the fake
# driver, CUDA-event and CUPTI timing): predicting the recording GPU must
# reproduce the measured iteration time exactly.  Skipped when the recorder
# or its test programs were not built.
BUILD=${BUILD:-build}
B=$BUILD
SHIM="$B/libsurfer.so"
if [ ! -f "$SHIM" ] || [ ! -x "$B/tests/shim_runtime" ]; then
	echo "analyzer_shim: skipped (no recorder build)"
	exit 0
fi
PRE=$SHIM
case "$SANITIZE" in
address*) PRE="$(${CC:-cc} -print-file-name=libasan.so) $SHIM"
	export ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 ;;
esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/anshim.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0
n=0
for mode in "basic 7" "threads 4 200" graph capture; do
	for timing in events cupti; do
		n=$((n + 1))
		t="$tmp/t.mp"
		rm -f "$t"
		env LD_LIBRARY_PATH="$B/tests" LD_PRELOAD="$PRE" SURFER_TIMING=$timing \
			SURFER_CUPTI_PATH="$B/tests/fakelib/libcupti.so.13" SURFER_OUTPUT="$t" \
			"$B/tests/shim_runtime" $mode >/dev/null 2>&1
		if [ ! -s "$t" ]; then
			echo "analyzer_shim: $mode/$timing: no trace recorded"; failed=$((failed + 1)); continue
		fi
		# the fake driver's device is unknown to the table: name an origin
		if ! "$B/surfer-analyze" "$t" --origin a100-sxm4-80 -t a100-sxm4-80 -t h100-sxm --json \
			>"$tmp/out" 2>"$tmp/err"; then
			echo "analyzer_shim: $mode/$timing: analysis failed"; cat "$tmp/err"
			failed=$((failed + 1)); continue
		fi
		meas=$(grep -o '"measured_ms": [^,]*' "$tmp/out" | head -1 | cut -d' ' -f2)
		pred=$(grep -o '"iteration_ms": [^,]*' "$tmp/out" | head -1 | cut -d' ' -f2)
		if [ -z "$meas" ] || [ "$meas" != "$pred" ]; then
			echo "analyzer_shim: $mode/$timing: identity $pred ms, measured $meas ms"
			failed=$((failed + 1))
		fi
	done
done
echo "analyzer_shim: $((n - failed)) of $n passed"
[ $failed -eq 0 ]
