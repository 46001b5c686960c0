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

# A check's status is the $? its line passes after the description's
# command substitutions (check "took $(cat "$tmp/t") ms" $?): dash, the sh
# tests/run.sh runs them with, keeps the tested command's status there;
# bash passes the last substitution's, which would pass every such check.
# Under a shell that does, the test runs again under dash, or stops.
_status_of() { echo "$2"; }
if [ "$(false; _status_of "$(true)" $?)" != 1 ]; then
	if [ -z "$SURFER_TEST_DASH" ] && command -v dash >/dev/null 2>&1; then
		SURFER_TEST_DASH=1 exec dash "$0" "$@"
	fi
	echo "$0: this shell gives \$? the status of a command substitution; run it with dash" >&2
	exit 1
fi

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
