#!/bin/sh
# shim_bench.sh - CPU cost the recorder adds per launch (make bench).
# Runs tests/shim_bench through the fake driver without and with
# libsurfer.so in several modes and prints ns/launch, the overhead and the
# ratio.  Each figure is the best of 3 runs (the machine is shared).
B=${BUILD:-build}
N=${SHIM_BENCH_N:-1000000}
T=$(mktemp -d "${TMPDIR:-/tmp}/shimbench.XXXXXX")
trap 'rm -rf "$T"' EXIT
best() { # best ENV... : "wall cpu" ns/launch, each the minimum of 5 runs
	w="" c=""
	for i in 1 2 3 4 5; do
		v=$(env LD_LIBRARY_PATH="$B/tests" SURFER_OUTPUT="$T/b.mp" "$@" $B/tests/shim_bench $N $THREADS) || exit 1
		w="$w ${v% *}" c="$c ${v#* }"
		rm -f "$T/b.mp"
	done
	min() { echo "$@" | awk '{ m = $1; for (i = 2; i <= NF; i++) if ($i < m) m = $i; print m }'; }
	echo "$(min $w) $(min $c)"
}
for THREADS in 1 2; do
	base=$(best FAKE_CUDA_LOG=)
	echo "threads=$THREADS, $N launches per thread (wall ns/launch/thread, process CPU ns/launch)"
	echo "$base" | awk '{ printf "  %-36s wall %7.1f          cpu %7.1f\n", "without libsurfer", $1, $2 }'
	for mode in "SURFER_DISABLE=1" "SURFER_TIMING=none" "SURFER_TIMING=events" \
		"SURFER_TIMING=none SURFER_STACKS=1"; do
		v=$(best LD_PRELOAD=$B/libsurfer.so $mode)
		echo "$base $v" | awk -v m="$mode" '{ printf "  %-36s wall %7.1f (x%.1f)  cpu %7.1f (+%.0f ns, x%.1f)\n", m, $3, $3 / $1, $4, $4 - $2, $4 / $2 }'
	done
done
