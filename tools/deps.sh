#!/bin/sh
# deps.sh - installs the Debian packages of packages.txt that are missing,
# saying which and why; `make demo` (STAGE build) and `make test` and
# .ci/run (STAGE test) call it before building.
#
#   sh tools/deps.sh build|test
#
# As root it runs apt-get; otherwise sudo apt-get.  Where neither can (no
# sudo, apt-get failing, no network) it prints one line naming the missing
# packages and exits 1.  On a system without dpkg it only says what to have
# installed and exits 0 (the build then says what it lacks).  Nothing is
# printed when everything is present.
set -u
stage=${1:-test}
case $stage in
build | test) ;;
*) echo "deps.sh: usage: deps.sh build|test" >&2; exit 2 ;;
esac
list=$(dirname "$0")/../packages.txt
[ -f "$list" ] || { echo "deps.sh: cannot read $list" >&2; exit 2; }

# The packages STAGE needs, "name<TAB>why" a line.
wanted=$(awk -v stage="$stage" '
	/^[ \t]*(#|$)/ { next }
	stage == "test" || $2 == "build" {
		why = $0; sub(/^[^ \t]+[ \t]+[^ \t]+[ \t]+/, "", why)
		print $1 "\t" why
	}' "$list")
names=$(printf '%s\n' "$wanted" | cut -f1 | tr '\n' ' ')

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "deps.sh: not a Debian system (no dpkg-query); make sure these are installed: $names" >&2
	exit 0
fi
missing=""
for p in $names; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q ' installed$' || missing="$missing $p"
done
missing=${missing# }
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
	as=""
elif command -v sudo >/dev/null 2>&1; then
	as="sudo"
else
	echo "deps.sh: missing packages: $missing; not root and no sudo: run as root 'apt-get install $missing'" >&2
	exit 1
fi
echo "deps.sh: installing the missing packages with ${as:+$as }apt-get:" >&2
for p in $missing; do
	printf '%s\n' "$wanted" | awk -F '\t' -v p="$p" '$1 == p { printf "  %-18s %s\n", $1, $2 }' >&2
done
export DEBIAN_FRONTEND=noninteractive
if ! $as apt-get update -qq >&2 ||
	! $as env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >&2; then
	echo "deps.sh: apt-get could not install: $missing; install them and run make again" >&2
	exit 1
fi
