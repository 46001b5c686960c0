#!/bin/sh
# install.sh - `make install PREFIX=<temp dir>` installs every program with a
# man page, and each installed program runs from there (--version) with the
# build tree out of its way.
set -u
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
dir=$(mktemp -d /tmp/surfer-install.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
fail=0
no() { echo "install.sh: $*"; fail=1; }

if ! $MAKE --no-print-directory -s install PREFIX="$dir/usr" BUILD="$BUILD" >"$dir/log" 2>&1; then
	cat "$dir/log"
	echo "install.sh: make install failed"
	exit 1
fi
version=$(sed -n 's/^VERSION := //p' Makefile)
n=0
for p in "$dir"/usr/bin/*; do
	[ -f "$p" ] || { no "nothing installed in bin/"; break; }
	name=$(basename "$p")
	n=$((n + 1))
	[ -x "$p" ] || no "$name is not executable"
	[ -f "$dir/usr/share/man/man1/$name.1" ] || no "$name has no man page"
	# run from an empty directory so nothing is found relative to the tree
	out=$(cd "$dir" && "$p" --version 2>&1) || no "$name --version failed: $out"
	case $out in
	*"$version"*) ;;
	*) no "$name --version does not print $version: $out" ;;
	esac
done
# every program the build makes is installed
for p in $($MAKE --no-print-directory -s -p -q all BUILD="$BUILD" 2>/dev/null |
	   sed -n 's/^PROGRAMS := //p' | head -1); do
	[ -f "$dir/usr/bin/$(basename "$p")" ] || no "$(basename "$p") not installed"
done
if [ -f "$BUILD/libsurfer.so" ]; then
	[ -f "$dir/usr/lib/libsurfer.so" ] || no "lib/libsurfer.so not installed"
fi
for m in "$dir"/usr/share/man/man1/*.1 "$dir"/usr/share/man/man7/*.7; do
	[ -f "$m" ] || continue
	if command -v groff >/dev/null 2>&1; then
		w=$(groff -man -Tutf8 -ww -z "$m" 2>&1)
		[ -z "$w" ] || no "$(basename "$m"): $w"
	fi
done
[ $fail -eq 0 ] && echo "install.sh: $n programs installed with man pages, each runs --version"
exit $fail
