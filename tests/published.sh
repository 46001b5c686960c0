#!/bin/sh
# published.sh - surfer-bench published against the published training
# step times of ../shared/data/published (skipped when the folder is
# absent: the data never enters the repository).  Every run is predicted,
# each row of the table carries an error, and the training-stack flags
# (gradient accumulation, activation checkpointing, FP8, stacks) predict
# the runs closer than the flags the model path had before them.
. "$(dirname "$0")/lib.sh"
DATA="${SHARED_DATA:-../shared/data}/published"
if [ ! -f "$DATA/training-runs.csv" ]; then
	echo "published: skipped ($DATA absent)"
	exit 0
fi
test_tmp published
"$B/surfer-bench" published --data "$DATA" >"$tmp/after" 2>"$tmp/err"
check "published exits 0 ($(cat "$tmp/err"))" $?
"$B/surfer-bench" published --data "$DATA" --before >"$tmp/before" 2>"$tmp/err"
check "published --before exits 0 ($(cat "$tmp/err"))" $?
runs=$(grep -c '^| [A-Z]' "$tmp/after")
rows=$(($(wc -l <"$DATA/training-runs.csv") - 1))
total=$(sed -n 's/^\([0-9]*\) runs predicted of \([0-9]*\).*/\1 \2/p' "$tmp/after")
[ "$total" = "$runs $runs" ] && [ "$runs" -gt 0 ]
check "every run of the table predicted ($total; $runs rows)" $?
[ "$rows" -ge "$runs" ]
check "no more rows than runs in the CSV ($runs, $rows lines)" $?
grep '^| [A-Z]' "$tmp/after" | awk -F'|' '$6 !~ /^ [-+][0-9.]+% $/ { bad = 1 } END { exit bad }'
check "each row has an error" $?
mean() { sed -n 's/.*mean |error| \([0-9.]*\)%.*/\1/p' "$1"; }
a=$(mean "$tmp/after")
b=$(mean "$tmp/before")
awk -v a="$a" -v b="$b" 'BEGIN { exit !(a > 0 && a < b) }'
check "the stacks' flags predict closer than before ($a% vs $b%)" $?
grep -q -- '--grad-accum' "$tmp/after" && ! grep -q -- '--grad-accum' "$tmp/before"
check "the flags printed per run differ as --before says" $?
finish published
