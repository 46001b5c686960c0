#!/bin/sh
# serving_bench.sh - surfer-bench serving on PipeWeave's measured SGLang runs
# when the shared data is there (skipped otherwise): one row per measured run
# with its three real medians and an error column per method, the per-GPU
# means for every GPU the runs name, the held-out step constant and
# tensor-core, collective, attention and vector-op constants; and bad input exiting 2 with one line.  The runs
# over every GPU take the compiled-in tensor-core constants (--gemm-data
# none: a fit per architecture takes 20 s); one GPU's run refits them.  The
# vector-op fit without Ampere (15 s) runs once.
. "$(dirname "$0")/lib.sh"
BIN="$B/surfer-bench"
test_tmp serving_bench

"$BIN" serving --data "$tmp/none" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]
check "missing data: exit 2 with one line (got $rc: $(cat "$tmp/err"))" $?
"$BIN" serving --data "$tmp" --gemm-data "$tmp/none" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "gemm-data" "$tmp/err"
check "--gemm-data not a folder: exit 2 with one line (got $rc: $(cat "$tmp/err"))" $?

D="${SERVING_DATA:-../shared/data/pipeweave/e2e}"
if [ ! -d "$D/real" ]; then
	echo "serving_bench: $D absent: the data run skipped"
	finish serving_bench
	exit $?
fi
"$BIN" serving --data "$D" --gemm-data none >"$tmp/out" 2>"$tmp/err"
check "serving exits 0 ($(head -c 300 "$tmp/err"))" $?
# a run row: gpu tp model workload reps, three real values, then
# '|'-separated groups: surfer P D T, hf P D, pipeweave, neusight, habitat
# P D T, roofline P T
runs=$(awk -F'|' 'NF == 8 && $1 ~ /^[A-Za-z]/ && $1 !~ /^gpu/' "$tmp/out" | wc -l)
[ "$runs" -ge 20 ]; check "one row per measured run ($runs, at least 20)" $?
bad=$(awk -F'|' 'NF == 8 && $1 ~ /^[A-Za-z]/ && $1 !~ /^gpu/ {
	n = split($1, a, " "); if (n != 8 || a[5] < 1 || a[6] <= 0 || a[7] <= 0 || a[8] <= 0) print;
	if (split($2, s, " ") != 3) print }' "$tmp/out" | wc -l)
[ "$bad" -eq 0 ]; check "every run row has reps, real P/D/T and surfer's three errors ($bad bad)" $?
gpus=$(sed -n '/^mean error/,/^all/p' "$tmp/out" | awk 'NF == 19' | wc -l)
[ "$gpus" -ge 9 ]; check "per-GPU means for 8 GPUs and all ($gpus rows of 18 numbers)" $?
grep -q "held out" "$tmp/out"; check "the step constant fitted per held-out architecture" $?
[ "$(grep -c '^  [a-z]* *the compiled-in tensor-core constants' "$tmp/out")" -eq 4 ]
check "--gemm-data none: the compiled-in tensor-core constants for every architecture" $?
# how often the interval held each part: inside, below and above add up to
# the runs
awk -v n="$runs" '/^80 % intervals \(the committed/ { c = 0; for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/ && $(i + 1) == "/" && $(i + 3) == "/") {
	c++; if ($i + $(i + 2) + $(i + 4) != n) bad = 1 } } END { exit !(c == 3 && !bad) }' "$tmp/out"
check "interval coverage of prefill, decode and whole batch over the $runs runs" $?
vruns=$(sed -n '/^# vLLM/,$p' "$tmp/out" | awk -F'|' 'NF == 2 && $1 ~ /^H/' | wc -l)
grep -Eq "the measured batch inside / below / above: [0-9]+ / [0-9]+ / [0-9]+ of $vruns\$" "$tmp/out" &&
	[ "$vruns" -ge 1 ]
check "interval coverage of the $vruns vLLM batches" $?
# the repetitions that drift: the RTX 6000 Ada's arxiv_8 prefill, its last
# repetition over its first as the file orders them (read here from the
# file), and no run listed that moved less than 3 %
f="$D/real/e2e_RTX_6000_Ada.jsonl"
if [ -f "$f" ]; then
	want=$(grep '"run_name": *"Qwen2.5-14B-arxiv_8"' "$f" |
		sed -n 's/.*"prefill_latency": *\([0-9.eE+-]*\).*/\1/p' |
		awk 'NR == 1 { a = $1 } { b = $1 } END { if (NR > 1) printf "%+.1f", (b / a - 1) * 100 }')
	line=$(grep '^prefill from the first repetition to the last' "$tmp/out")
	case "$line" in *"RTX_6000_Ada tp 1 Qwen2.5-14B arxiv_8 $want %;"*) ok=0 ;; *) ok=1 ;; esac
	[ -n "$want" ] && [ "$ok" -eq 0 ] &&
		echo "$line" | tr ';' '\n' | awk 'NF >= 6 { v = $(NF - 1); if (v < 0) v = -v; if (v < 3) bad = 1 } END { exit bad }'
	check "the prefill's drift over the repetitions ($want % on the RTX 6000 Ada's arxiv_8)" $?
fi
# the collective constants refitted without each architecture (NCCL files
# beside the e2e folder): without Hopper no NVLS measurement is left, and
# NVLS takes the ring's efficiency; --compiled comm keeps them
if [ -d "$D/../collective" ]; then
	grep '^  hopper *attention eff' "$tmp/out" |
		awk '{ for (i = 1; i <= NF; i++) { if ($i == "NVLink") a = $(i + 1); if ($i == "NVLS") b = $(i + 1) } }
		     END { exit !(a != "" && a == b && a != "0.750,") }'
	check "collectives fitted without Hopper: NVLS at the ring's efficiency" $?
	"$BIN" serving --data "$D" --gemm-data none --compiled comm,attn --gpu h800 >"$tmp/cc" 2>"$tmp/err"
	grep -q '^  hopper *attention eff 1\.279 .*NVLink 0\.750, 50\.0 us.*(compiled-in)' "$tmp/cc"
	check "--compiled comm,attn: the compiled-in collectives and attention" $?
fi
# the vector-op constants: Ampere's fitted without the A100 and A40
# (NeuSight's FP32 operators, the fallback floor), the others compiled-in
if [ -d "$D/../../neusight/kernels" ]; then
	grep -q '^  ampere *vector ops: .*elementwise eff [0-9.]* floor 2500 ns' "$tmp/out" &&
		[ "$(grep -c '^  [a-z]* *vector ops: .*(compiled-in: fitted on no GPU of it)' "$tmp/out")" -eq 3 ]
	check "vector-op constants fitted without Ampere, compiled-in for the others" $?
fi
# --rows: each run's prefill by part; the parts of one GPU's kernels add up
# to no more than the predicted prefill (one stream; the prefill is read
# back from its error, printed to 0.1 %), the GEMMs' predicted rate is a
# share of the peak (0.3 to 1), and the implied one is there for every run
"$BIN" serving --data "$D" --rows --gemm-data none --compiled vec >"$tmp/rows" 2>"$tmp/err"
check "serving --rows exits 0 ($(head -c 300 "$tmp/err"))" $?
sed -n '/^# prefill by part/,/^$/p' "$tmp/rows" | awk -F'|' 'NF == 3 && $1 !~ /^gpu/' >"$tmp/parts"
[ "$(wc -l <"$tmp/parts")" -eq "$runs" ]; check "one parts row per run ($(wc -l <"$tmp/parts") of $runs)" $?
bad=$(awk -F'|' '{ n = split($1, a, " "); split($2, p, " "); split($3, q, " ");
	pred = a[n - 1] * (1 + a[n] / 100); sum = p[1] + p[2] + p[3] + p[4];
	if (sum > pred + a[n - 1] * 0.0006 + 1 || q[2] < 0.3 || q[2] > 1 || !(q[3] > 0)) print }' "$tmp/parts" | wc -l)
[ "$bad" -eq 0 ]; check "parts within the prefill, shares of the peak ($bad bad)" $?
# one GPU with GEMM data beside the runs: its architecture's own constants,
# a line with the fitted efficiency and the H20's share of its peak (up to
# 1.069: its boost clock, 1980 MHz, over the 1853 its peak is quoted at)
"$BIN" serving --data "$D" --rows --gpu h20 --dump "$tmp/h20.csv" >"$tmp/h20" 2>"$tmp/err"
check "--rows with --gpu ($(head -c 300 "$tmp/err"))" $?
grep -q '^H20 .*|.*|' "$tmp/h20"; check "--rows with --gpu: the H20's rows" $?
# --dump: each run's prefill and decode step as an e2e dump's rows (what
# make calibrate reads), the H20's held out (its constants refitted without
# Hopper) and predicted by the tensor-core models; their measured and
# predicted times are the table's (its errors to 0.1 %)
h20runs=$(awk -F'|' 'NF == 8 && $1 ~ /^H20 /' "$tmp/h20" | wc -l)
head -1 "$tmp/h20.csv" | grep -qx 'gpu,config,weights,measured_ms,predicted_ms,method' &&
	[ "$(grep -c '^h20,[^,]*-prefill,held-out,[0-9.]*,[0-9.]*,tcgemm$' "$tmp/h20.csv")" -eq "$h20runs" ] &&
	[ "$(grep -c '^h20,[^,]*-decode,held-out,[0-9.]*,[0-9.]*,tcgemm$' "$tmp/h20.csv")" -eq "$h20runs" ] &&
	[ "$h20runs" -ge 4 ]
check "--dump: the H20's $h20runs prefills and decode steps, held out" $?
awk -F'|' 'NF == 8 && $1 ~ /^H20 / { split($2, e, " "); print e[1] }' "$tmp/h20" >"$tmp/h20-table"
awk -F, '/-prefill,/ { printf "%.1f\n", 100 * ($5 / $4 > 1 ? $5 / $4 - 1 : 1 - $5 / $4) }' "$tmp/h20.csv" >"$tmp/h20-dump"
cmp -s "$tmp/h20-table" "$tmp/h20-dump"
check "--dump: the prefills' errors are the table's" $?
if [ -f "$D/../../pipeweave/gemm_fp8_train.csv" ]; then
	sed -n '/^constants fitted without/,/^$/p' "$tmp/h20" |
		grep -Eq '^  hopper *eff 0\.[0-9]*, .*share: h20 (0\.[0-9]|1\.0[0-6])'
	check "tensor-core constants fitted without Hopper, the H20's share" $?
fi
finish serving_bench
