#!/bin/sh
# deps.sh - tools/deps.sh, the installer `make demo`, `make test` and
# .ci/run share, over fake dpkg-query, apt-get, sudo and id on a PATH of
# their own: it installs exactly what packages.txt lists for the stage and
# is missing, says what and why, uses sudo only when not root, prints one
# line naming the packages where it cannot install them, and make stops
# then (NODEPS=1 builds anyway).
. "$(dirname "$0")/lib.sh"
test_tmp deps
T=$tmp
mkdir "$T/bin"
for t in sh awk cut tr grep dirname env cat; do
	p=$(command -v $t) && ln -s "$p" "$T/bin/$t"
done
# dpkg-query: the packages named in $T/missing are not installed
cat >"$T/bin/dpkg-query" <<EOF2
#!/bin/sh
for last; do :; done
if grep -qx "\$last" "$T/missing" 2>/dev/null; then
	echo "unknown ok not-installed"
else
	echo "install ok installed"
fi
EOF2
cat >"$T/bin/apt-get" <<EOF2
#!/bin/sh
echo "apt-get \$*" >>"$T/log"
[ ! -f "$T/aptfails" ]
EOF2
cat >"$T/bin/sudo" <<EOF2
#!/bin/sh
echo "sudo \$*" >>"$T/log"
exec "\$@"
EOF2
cat >"$T/bin/id" <<EOF2
#!/bin/sh
cat "$T/uid"
EOF2
chmod +x "$T/bin/dpkg-query" "$T/bin/apt-get" "$T/bin/sudo" "$T/bin/id"
deps() { # deps STAGE: runs tools/deps.sh with the fakes only
	rm -f "$T/log"
	PATH="$T/bin" sh tools/deps.sh "$@" >"$T/out" 2>"$T/err"
}
install_line() { grep '^apt-get install' "$T/log" 2>/dev/null | sed 's/.*--no-install-recommends //'; }

# 1. Everything there: silent, nothing run.
: >"$T/missing"
echo 0 >"$T/uid"
deps test
rc=$?
[ $rc -eq 0 ] && [ ! -s "$T/err" ] && [ ! -s "$T/out" ] && [ ! -f "$T/log" ]
check "all present: exit 0, silent, no apt-get (rc $rc: $(cat "$T/err"))" $?

# 2. As root, two missing: apt-get installs exactly them, each named with why.
printf 'libmsgpack-dev\ncheck\n' >"$T/missing"
deps test
rc=$?
[ $rc -eq 0 ] && [ "$(install_line)" = "libmsgpack-dev check" ] && ! grep -q '^sudo' "$T/log"
check "root: apt-get install libmsgpack-dev check, no sudo (rc $rc: $(cat "$T/log"))" $?
grep -q 'installing the missing packages with apt-get' "$T/err" &&
	grep -q '^  libmsgpack-dev  *msgpack-c: the trace format' "$T/err" &&
	grep -q '^  check  *the unit-test framework' "$T/err"
check "says what it installs and why ($(cat "$T/err"))" $?
[ ! -s "$T/out" ]
check "messages go to standard error (make reads standard output)" $?

# 3. The build stage leaves the test-only packages alone.
deps build
[ "$(install_line)" = "libmsgpack-dev" ]
check "build stage: only libmsgpack-dev ($(install_line))" $?

# 4. Not root, sudo there: through sudo.
echo 1000 >"$T/uid"
deps test
rc=$?
[ $rc -eq 0 ] && grep -q '^sudo .*apt-get install .*libmsgpack-dev check' "$T/log" &&
	grep -q 'with sudo apt-get' "$T/err"
check "not root: sudo apt-get (rc $rc: $(cat "$T/log"))" $?

# 5. Not root, no sudo: one line naming the packages, exit 1, nothing run.
mv "$T/bin/sudo" "$T/sudo.off"
deps test
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q 'libmsgpack-dev check' "$T/err" &&
	[ ! -f "$T/log" ]
check "no root, no sudo: exit 1, one line naming them (rc $rc: $(cat "$T/err"))" $?
mv "$T/sudo.off" "$T/bin/sudo"

# 6. apt-get fails (no network): exit 1, the last line names them.
echo 0 >"$T/uid"
: >"$T/aptfails"
deps test
rc=$?
[ $rc -eq 1 ] && tail -1 "$T/err" | grep -q 'could not install: libmsgpack-dev check'
check "apt-get failing: exit 1 and the packages (rc $rc: $(tail -1 "$T/err"))" $?
rm -f "$T/aptfails"

# 7. Not Debian: a note, exit 0.
mv "$T/bin/dpkg-query" "$T/dpkg.off"
deps test
rc=$?
[ $rc -eq 0 ] && grep -q 'not a Debian system.*libmsgpack-dev' "$T/err"
check "no dpkg: exit 0 and the list (rc $rc)" $?
mv "$T/dpkg.off" "$T/bin/dpkg-query"

# 8. Bad stage: usage, exit 2.
deps bogus
check "bad stage: exit 2" $([ $? -eq 2 ]; echo $?)

# 9. make demo stops when the packages cannot be installed; NODEPS=1 does
#    not ask.  (make -n: nothing is built.)
if command -v make >/dev/null 2>&1; then
	mk=$(command -v make)
	: >"$T/aptfails"
	PATH="$T/bin:$PATH" env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u NODEPS "$mk" -n --no-print-directory demo >/dev/null 2>"$T/err"
	rc=$?
	[ $rc -ne 0 ] && grep -q 'could not install: libmsgpack-dev' "$T/err" && grep -q 'NODEPS=1' "$T/err"
	check "make demo stops on missing packages (rc $rc: $(cat "$T/err"))" $?
	rm -f "$T/log"
	PATH="$T/bin:$PATH" env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u NODEPS "$mk" -n --no-print-directory demo NODEPS=1 >/dev/null 2>"$T/err"
	rc=$?
	[ $rc -eq 0 ] && [ ! -f "$T/log" ]
	check "make demo NODEPS=1 installs nothing (rc $rc: $(cat "$T/err"))" $?
	rm -f "$T/aptfails"
fi

# 10. One list: .ci/run installs through it and names no package itself.
grep -q 'tools/deps.sh test' .ci/run && ! grep -q 'libmsgpack-dev' .ci/run
check ".ci/run uses tools/deps.sh and packages.txt" $?
grep -q '^clang  *test' packages.txt && grep -q '^libclang-rt-dev  *test' packages.txt
check "packages.txt keeps clang and libclang-rt-dev for the fuzz tests" $?

finish "deps.sh"
