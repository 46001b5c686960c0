#!/bin/sh
# Golden tests of surfer-analyze: each case in tests/golden/cases writes a
# synthetic trace (build/tests/mkanalyzer step, or mkanalyzer blocking for a
# DEVICE given as blocking:HOW:DEVICE), analyzes it and compares
# everything printed with tests/golden/NAME.out.
#   GOLDEN_UPDATE=1 sh tests/golden/run.sh    rewrites the .out files
#                                             (review the diff before committing)
BUILD=${BUILD:-build}
dir=$(dirname "$0")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/golden.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0
n=0
while IFS=';' read -r name mk args; do
	case "$name" in ''|'#'*) continue ;; esac
	n=$((n + 1))
	trace="$tmp/$name.mp"
	dev=${mk%% --*}
	[ "$dev" = "$mk" ] && opts="" || opts=${mk#"$dev"}
	# "blocking:HOW:DEVICE" writes mkanalyzer's blocking-copy step instead
	case "$dev" in
	blocking:*) how=${dev#blocking:}; dev=${how#*:}; how=${how%%:*}
		set -- blocking "$dev" "$how" "$trace" ;;
	*) set -- step "$dev" "$trace" ;;
	esac
	# shellcheck disable=SC2086
	if ! "$BUILD/tests/mkanalyzer" "$@" $opts; then
		echo "golden $name: cannot write the trace"; failed=$((failed + 1)); continue
	fi
	# shellcheck disable=SC2086
	set -- $(echo "$args" | sed "s|TRACE|$trace|g")
	"$BUILD/surfer-analyze" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	{
		cat "$tmp/out"
		echo "--- stderr"
		sed "s|$tmp/||g" "$tmp/err"
		echo "--- exit $rc"
	} >"$tmp/$name.got"
	case "$args" in
	*--json*) ;;
	*) if ! awk 'length > 100 { exit 1 }' "$tmp/out"; then
		echo "golden $name: a line is wider than 100 columns"; failed=$((failed + 1))
	   fi ;;
	esac
	if [ -n "$GOLDEN_UPDATE" ]; then
		cp "$tmp/$name.got" "$dir/$name.out"
	elif ! diff -u "$dir/$name.out" "$tmp/$name.got"; then
		echo "golden $name: FAILED"; failed=$((failed + 1))
	fi
done <"$dir/cases"
echo "golden: $((n - failed)) of $n passed"
[ $failed -eq 0 ]
