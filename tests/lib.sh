# tests/lib.sh - what the shell tests share; a test sources it first:
#	. "$(dirname "$0")/lib.sh"
# and gets B (the build folder: $BUILD, else build), the counters n (checks
# run) and fail (checks failed), and:
#	check DESCRIPTION STATUS   counts a check; prints "FAIL: DESCRIPTION"
#	                           when STATUS is not 0
#	test_tmp NAME              tmp: a new folder under $TMPDIR (else /tmp),
#	                           removed when the test exits
#	finish NAME                prints "NAME: P of N passed"; its status is
#	                           the test's (0 when every check passed)
#	refuses WANT CMD ARGS...   counts a check: CMD exits 2 with WANT the
#	                           one line on stderr (after test_tmp)
B="${BUILD:-build}"
n=0
fail=0

check() { # check DESCRIPTION STATUS
	n=$((n + 1))
	if [ "$2" -ne 0 ]; then
		echo "FAIL: $1"
		fail=$((fail + 1))
	fi
}

test_tmp() { # test_tmp NAME
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") || exit 1
	trap 'rm -rf "$tmp"' EXIT
}

finish() { # finish NAME
	echo "$1: $((n - fail)) of $n passed"
	[ "$fail" -eq 0 ]
}

refuses() { # refuses WANT CMD ARGS...
	want=$1
	shift
	"$@" >/dev/null 2>"$tmp/refused"
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/refused")" -eq 1 ] && [ "$(cat "$tmp/refused")" = "$want" ]
	check "'$*': exit 2 and '$want' (got $rc, '$(cat "$tmp/refused")')" $?
}
