#!/bin/sh
# make bench: end-to-end speed of surfer-analyze (read, predict, replay,
# report) on one core, two targets, on two traces of a million launches:
#   1 thread    one launching thread, records in CPU order;
#   4 threads   the same launches from four threads, each thread's records
#               written in runs of 32768 (per-thread buffers drained when
#               full), out of CPU order far beyond the reorder window.
# For each: the median of BENCH_RUNS runs (5) of CPU time (kernels/s) and of
# peak RSS, next to the same of the starting code's surfer-analyze, run
# alternately with it under the same load (the machine may be shared), and
# their ratio.
#   BENCH_BASE=PATH   the surfer-analyze to compare with; default: built once
#                     from commit BENCH_BASE_COMMIT (eac3229, before the
#                     reader's rewrite) into $BUILD/bench/base; "none": no
#                     comparison.
BUILD=${BUILD:-build}
N=${BENCH_KERNELS:-1000000}
RUNS=${BENCH_RUNS:-5}
BASE_COMMIT=${BENCH_BASE_COMMIT:-eac3229}
DEVICE="NVIDIA A100-SXM4-80GB"
dir="$BUILD/bench"
mkdir -p "$dir"

t1="$dir/analyzer-$N.mp"
t4="$dir/analyzer-$N-4t.mp"
[ -s "$t1" ] || "$BUILD/tests/mkanalyzer" bench "$DEVICE" "$N" "$t1" || exit 1
[ -s "$t4" ] || "$BUILD/tests/mkanalyzer" bench "$DEVICE" "$N" "$t4" 4 32768 || exit 1

base=${BENCH_BASE:-}
if [ -z "$base" ]; then
	base="$dir/base/build/surfer-analyze"
	if [ ! -x "$base" ]; then
		if git cat-file -e "$BASE_COMMIT^{commit}" 2>/dev/null; then
			echo "bench-analyzer: building the starting code ($BASE_COMMIT) into $dir/base"
			rm -rf "$dir/base" && mkdir -p "$dir/base" &&
				git archive "$BASE_COMMIT" | tar -x -C "$dir/base" &&
				nice -n 10 make -s -C "$dir/base" BUILD=build SANITIZE= CI=1 -j2 build/surfer-analyze >"$dir/base.log" 2>&1 ||
				{ echo "bench-analyzer: cannot build $BASE_COMMIT (see $dir/base.log)"; base=none; }
		else
			echo "bench-analyzer: commit $BASE_COMMIT not in this checkout: no comparison"
			base=none
		fi
	fi
fi

pin=""
command -v taskset >/dev/null 2>&1 && pin="taskset -c 0"

# run BINARY TRACE TAG: one timed run, appending "cpu_s rss_kb" to $dir/TAG.runs
run() {
	/usr/bin/time -f "%U %S %M" -o "$dir/analyzer.time" \
		nice -n 10 $pin "$1" "$2" --target h100-sxm --target t4 >"$dir/$3.out" || exit 1
	awk '{ print $1 + $2, $3 }' "$dir/analyzer.time" >>"$dir/$3.runs"
}

# median COLUMN TAG
median() {
	awk -v c="$1" '{ print $c }' "$dir/$2.runs" | sort -g |
		awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

for t in 1 4; do
	trace=$t1
	[ "$t" = 4 ] && trace=$t4
	rm -f "$dir/new$t.runs" "$dir/base$t.runs"
	i=0
	while [ $i -lt "$RUNS" ]; do
		run "$BUILD/surfer-analyze" "$trace" "new$t"
		[ "$base" = none ] || run "$base" "$trace" "base$t"
		i=$((i + 1))
	done
	# every line of the starting code's report is in this one (later work
	# adds lines, such as a legend, and changes none of the numbers)
	if [ "$base" != none ] && grep -v -x -F -f "$dir/new$t.out" "$dir/base$t.out" >/dev/null; then
		echo "bench-analyzer: $t thread(s): the report's numbers differ from $BASE_COMMIT's:"
		grep -v -x -F -f "$dir/new$t.out" "$dir/base$t.out" | head -5
	fi
	cpu=$(median 1 "new$t")
	rss=$(median 2 "new$t")
	size=$(wc -c <"$trace")
	if [ "$base" = none ]; then
		awk -v t="$t" -v n="$N" -v cpu="$cpu" -v rss="$rss" -v size="$size" -v r="$RUNS" 'BEGIN {
			printf "bench-analyzer: %d thread%s, %d kernels (%.0f MB trace), 2 targets, one core, " \
			       "median of %d: %.3f s CPU (%.2f M kernels/s), peak RSS %.1f MB\n",
			       t, (t > 1 ? "s" : ""), n, size / 1e6, r, cpu, (cpu > 0 ? n / cpu / 1e6 : 0), rss / 1024 }'
	else
		bcpu=$(median 1 "base$t")
		brss=$(median 2 "base$t")
		awk -v t="$t" -v n="$N" -v cpu="$cpu" -v rss="$rss" -v size="$size" -v r="$RUNS" \
			-v bcpu="$bcpu" -v brss="$brss" -v bc="$BASE_COMMIT" 'BEGIN {
			printf "bench-analyzer: %d thread%s, %d kernels (%.0f MB trace), 2 targets, one core, " \
			       "median of %d: %.3f s CPU = %.2f M kernels/s (%.2fx %s: %.2f M/s), " \
			       "peak RSS %.1f MB (%.2fx %s: %.1f MB)\n",
			       t, (t > 1 ? "s" : ""), n, size / 1e6, r, cpu, n / cpu / 1e6, bcpu / cpu, bc,
			       n / bcpu / 1e6, rss / 1024, rss / brss, bc, brss / 1024 }'
	fi
done
