#!/bin/sh
# make test's short run of each fuzz target (tests/fuzz/fuzz.mk): every seed
# of its committed corpus, then FUZZ_TEST_SECONDS (default 4) of fuzzing from
# them.  Skipped, saying why, when clang cannot link a libFuzzer program
# (FUZZ_OK is set by the Makefile).
FUZZ_BUILD=${FUZZ_BUILD:-build-fuzz}
secs=${FUZZ_TEST_SECONDS:-4}
if [ "$FUZZ_OK" != yes ]; then
	echo "fuzz: skipped: clang with libFuzzer not found (apt-get install clang libclang-rt-dev)"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fuzzrun.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
# the targets' scratch files too (a target killed leaves its own behind)
export TMPDIR="$tmp"
failed=0
for bin in "$FUZZ_BUILD"/fuzz_*; do
	[ -x "$bin" ] || continue
	t=${bin##*/fuzz_}
	seeds=tests/fuzz/corpus/$t
	if [ ! -d "$seeds" ] || [ -z "$(ls "$seeds")" ]; then
		echo "fuzz: $t: no seed corpus in $seeds"; failed=$((failed + 1)); continue
	fi
	mkdir -p "$tmp/$t"
	dict=
	[ -f "tests/fuzz/$t.dict" ] && dict="-dict=tests/fuzz/$t.dict"
	# new inputs go to the scratch corpus (the first directory), never
	# into the committed seeds; a crash leaves its input in $tmp
	if ! "$bin" $dict -max_total_time="$secs" -seed=1 -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$tmp/" "$tmp/$t" "$seeds" >"$tmp/$t.log" 2>&1; then
		echo "fuzz: $t: FAILED"; tail -n 40 "$tmp/$t.log"
		for a in "$tmp"/crash-* "$tmp"/leak-* "$tmp"/timeout-* "$tmp"/oom-*; do
			[ -f "$a" ] && { echo "input ($a):"; od -c "$a" | head -n 20; }
		done
		failed=$((failed + 1))
		continue
	fi
	echo "fuzz: $t: $(ls "$seeds" | wc -l) seeds, $(grep -o 'Done [0-9]* runs' "$tmp/$t.log" | tail -n 1)"
done
n=$(ls "$FUZZ_BUILD"/fuzz_* 2>/dev/null | wc -l)
if [ "$n" -eq 0 ]; then
	echo "fuzz: no targets built in $FUZZ_BUILD"; exit 1
fi
[ "$failed" -eq 0 ]
