#!/bin/sh
# docs_cli.sh - the manual pages and --help say what the programs do: every
# long option a program's --help lists (surfer and every surfer-VERB) is in
# its man page (docs/man), the
# model modes are named there, --help says what --batch means with --dp and
# --plan, and a file surfer-import reads, given to surfer-analyze, gets the
# command that converts it.
. "$(dirname "$0")/lib.sh"
test_tmp docs_cli

# The man page as plain text: groff's "\-" is a hyphen.
man_text() {
	sed 's/\\-/-/g; s/\\f[BIRP]//g' "docs/man/$1.1"
}

for p in surfer surfer-record surfer-analyze surfer-import surfer-dump surfer-occupancy surfer-train \
	surfer-bench; do
	[ -x "$B/$p" ] || { check "$p is built" 1; continue; }
	"$B/$p" --help >"$tmp/help" 2>&1
	man_text "$p" >"$tmp/man"
	opts=$(grep -o -- '--[a-z][a-z0-9-]*' "$tmp/help" | sort -u)
	[ -n "$opts" ]; check "$p --help lists options" $?
	for o in $opts; do
		grep -q -- "$o\\([^a-z0-9-]\\|\$\\)" "$tmp/man"
		check "$p(1) lists $o" $?
	done
done

# The --model modes, each a word of surfer-analyze(1) and of --help.
"$B/surfer-analyze" --help >"$tmp/help"
man_text surfer-analyze >"$tmp/man"
for w in inference training decode generate; do
	grep -qw "$w" "$tmp/man" && grep -qw "$w" "$tmp/help"
	check "surfer-analyze(1) and --help name --mode $w" $?
done
# --batch per data-parallel rank with --dp, the whole iteration's with --plan
grep -A6 -- '--model CONFIG|NAME' "$tmp/help" | grep -q 'per data-parallel rank with' &&
	grep -A6 -- '--model CONFIG|NAME' "$tmp/help" | grep -q 'with --plan, B is the'
check "--help says what --batch means with --dp and with --plan" $?

# A torch.profiler trace (gzipped JSON) or an Nsight Systems export handed
# to surfer-analyze goes to surfer-import (tests/analyze_import.sh); these
# empty ones it refuses: exit 2 and its one line.
printf '{"traceEvents": []}' >"$tmp/prof.json"
gzip -c "$tmp/prof.json" >"$tmp/prof.json.gz"
printf 'SQLite format 3\000' >"$tmp/rep.sqlite"
for f in prof.json.gz prof.json rep.sqlite; do
	"$B/surfer-analyze" "$tmp/$f" --target a100 >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^surfer-import: " "$tmp/err"
	check "$f: exit 2 and surfer-import's one line (rc $rc: $(cat "$tmp/err"))" $?
done
# a damaged surfer trace is not sent to the importer
printf 'garbage' >"$tmp/bad.mp"
"$B/surfer-analyze" "$tmp/bad.mp" --target a100 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && ! grep -q 'surfer-import' "$tmp/err"
check "a damaged trace is not called an import ($(cat "$tmp/err"))" $?

finish "docs_cli.sh"
