#!/bin/sh
# make bench: end-to-end speed of surfer-analyze (read, predict, replay,
# report) on a trace of one million kernel launches and two targets, on one
# core; prints kernels per second and peak resident memory.
BUILD=${BUILD:-build}
N=${BENCH_KERNELS:-1000000}
trace="$BUILD/bench/analyzer-$N.mp"
mkdir -p "$BUILD/bench"
if [ ! -s "$trace" ]; then
	"$BUILD/tests/mkanalyzer" bench "NVIDIA A100-SXM4-80GB" "$N" "$trace" || exit 1
fi
pin=""
command -v taskset >/dev/null 2>&1 && pin="taskset -c 0"
best=""
for run in 1 2 3; do
	/usr/bin/time -f "%e %U %S %M" -o "$BUILD/bench/analyzer.time" \
		$pin "$BUILD/surfer-analyze" "$trace" --target h100-sxm --target t4 >"$BUILD/bench/analyzer.out" ||
		exit 1
	read -r secs user sys rss <"$BUILD/bench/analyzer.time"
	if [ -z "$best" ] || awk "BEGIN { exit !($secs < $best) }"; then
		best=$secs; best_cpu=$(awk "BEGIN { print $user + $sys }"); best_rss=$rss
	fi
done
size=$(wc -c <"$trace")
awk -v n="$N" -v s="$best" -v cpu="$best_cpu" -v rss="$best_rss" -v size="$size" 'BEGIN {
	printf "bench-analyzer: %d kernels (%.0f MB trace), 2 targets, one core: %.2f s wall " \
	       "(%.2f M kernels/s), %.2f s CPU (%.2f M kernels/s), peak RSS %.1f MB\n",
	       n, size / 1e6, s, (s > 0 ? n / s / 1e6 : 0), cpu, (cpu > 0 ? n / cpu / 1e6 : 0), rss / 1024 }'
