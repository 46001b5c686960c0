#!/bin/sh
# Runs every Check suite and shell test named on the command line
# (suites, then "--", then scripts); fails if any fails.
failed=0
ran=0
mode=bin
for t in "$@"; do
	if [ "$t" = "--" ]; then mode=script; continue; fi
	ran=$((ran + 1))
	echo "== $t"
	if [ $mode = bin ]; then
		case "$t" in /*) bin=$t ;; *) bin=./$t ;; esac # BUILD may be absolute
		"$bin" || { echo "FAILED: $t"; failed=$((failed + 1)); }
	else
		sh "$t" || { echo "FAILED: $t"; failed=$((failed + 1)); }
	fi
done
echo "programs: $((ran - failed)) passed, $failed failed"
[ $failed -eq 0 ]
