#!/bin/sh
# surfer_cli.sh - the entry point: `surfer VERB` runs surfer-VERB with its
# arguments and status, `surfer help VERB` shows VERB's manual page, every
# verb has a program and a page, unknown verbs are one line and exit 2; the
# bash completion offers verbs, options, GPU ids and model names; `make
# install` puts the completion where bash-completion finds it and `surfer
# record` finds the installed recorder; the README's example trace reads.
. "$(dirname "$0")/lib.sh"
S=$B/surfer
test_tmp surfer_cli
T=$tmp

verbs=$("$S" --help | sed -n '/^verbs/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
[ "$(echo $verbs)" = "record analyze import dump occupancy bench train" ]
check "surfer --help lists the seven verbs ($(echo $verbs))" $?
for v in $verbs; do
	[ -x "$B/surfer-$v" ]
	check "surfer-$v is built" $?
	[ -f "docs/man/surfer-$v.1" ]
	check "surfer-$v(1) exists" $?
	"$S" "$v" --help >"$T/a" 2>&1
	ra=$?
	"$B/surfer-$v" --help >"$T/b" 2>&1
	rb=$?
	[ $ra -eq $rb ] && cmp -s "$T/a" "$T/b" && [ -s "$T/a" ]
	check "surfer $v --help is surfer-$v --help" $?
	command -v man >/dev/null 2>&1 || continue
	MANPAGER=cat PAGER=cat MANWIDTH=80 "$S" help "$v" >"$T/man" 2>"$T/err" </dev/null
	rc=$?
	[ $rc -eq 0 ] && grep -q "surfer-$v" "$T/man" && grep -q 'SYNOPSIS' "$T/man"
	check "surfer help $v shows surfer-$v(1) (rc $rc: $(head -2 "$T/err"))" $?
done
[ -f docs/man/surfer.1 ]
check "surfer(1) exists" $?

# arguments and status pass through: a dump of a missing file fails with 2
"$S" dump "$T/none.mp" >/dev/null 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && grep -q "^surfer-dump: .*none.mp" "$T/err"
check "surfer dump passes arguments and status (rc $rc: $(cat "$T/err"))" $?
"$S" --version | grep -q "^surfer $(sed -n 's/^VERSION := //p' Makefile)\$"
check "surfer --version" $?
for bad in "frobnicate" "help frobnicate" ""; do
	# shellcheck disable=SC2086
	"$S" $bad >/dev/null 2>"$T/err"
	rc=$?
	[ $rc -eq 2 ] && { [ -z "$bad" ] || [ "$(wc -l <"$T/err")" -eq 1 ]; }
	check "surfer $bad: exit 2 and one line (rc $rc)" $?
done
# a misspelt verb names the nearest one; a word far from every verb does not
"$S" analyse x.mp >/dev/null 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && grep -q "^surfer: 'analyse' is not a surfer verb (did you mean 'analyze'?)" "$T/err"
check "surfer analyse: did you mean 'analyze'? (rc $rc: $(cat "$T/err"))" $?
"$S" frobnicate >/dev/null 2>"$T/err"
! grep -q 'did you mean' "$T/err"
check "surfer frobnicate: no guess ($(cat "$T/err"))" $?
# a verb whose program is missing: 127, and where it was looked for
mkdir "$T/bin"
cp "$S" "$T/bin/surfer"
PATH=/usr/bin:/bin "$T/bin/surfer" record -- true 2>"$T/err"
rc=$?
[ $rc -eq 127 ] && grep -q "surfer-record" "$T/err"
check "a missing surfer-record: 127 and its name (rc $rc: $(cat "$T/err"))" $?
# ... and found on PATH when not beside surfer
PATH="$(cd "$B" && pwd):/usr/bin:/bin" "$T/bin/surfer" dump --version >"$T/out" 2>&1
grep -q '^surfer-dump ' "$T/out"
check "surfer-VERB found on PATH ($(cat "$T/out"))" $?

# the example trace the README analyzes first reads, and says it came
# from the fake driver
"$S" analyze examples/fake-driver.mp --origin h100-sxm --target a100 --target h100 >"$T/ex" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q '^origin .*(Fake GPU 9000)' "$T/ex" && grep -q '^target .*H100' "$T/ex"
check "surfer analyze examples/fake-driver.mp (rc $rc: $(head -2 "$T/ex"))" $?
grep -q 'fake-driver.mp.*test driver' examples/README.md && grep -q 'make example-trace' examples/README.md
check "examples/README.md labels the trace and says how it is made" $?

# bash completion
if command -v bash >/dev/null 2>&1; then
	complete_words() { # complete_words WORD... : COMPREPLY for the last word, one a line
		bash -c '. tools/surfer.bash
			COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
			_surfer; printf "%s\n" "${COMPREPLY[@]}"' complete "$@"
	}
	complete_words "$S" "" >"$T/c"
	for v in $verbs help; do grep -qx "$v" "$T/c" || break; done
	check "completes the verbs ($(echo $(cat "$T/c")))" $?
	complete_words "$S" record --ti >"$T/c"
	[ "$(cat "$T/c")" = "--timing" ]
	check "completes surfer record --ti to --timing ($(cat "$T/c"))" $?
	complete_words "$S" record --timing "" >"$T/c"
	[ "$(echo $(cat "$T/c"))" = "cupti events none" ]
	check "completes --timing values" $?
	complete_words "$S" analyze x.mp --target h10 >"$T/c"
	grep -qx 'h100-sxm' "$T/c" && ! grep -qv '^h10' "$T/c"
	check "completes GPU ids after --target ($(echo $(cat "$T/c")))" $?
	complete_words "$B/surfer-analyze" --model gpt2- >"$T/c"
	grep -qx 'gpt2-large' "$T/c"
	check "completes built-in models after surfer-analyze --model ($(echo $(cat "$T/c")))" $?
	complete_words "$S" analyze --list-g >"$T/c"
	[ "$(cat "$T/c")" = "--list-gpus" ]
	check "completes surfer-analyze's options ($(cat "$T/c"))" $?
	complete_words "$S" analyze --model x --engine "" >"$T/c"
	[ "$(echo $(cat "$T/c"))" = "hf vllm sglang" ]
	check "completes --engine values ($(echo $(cat "$T/c")))" $?
	complete_words "$S" analyze --model x --kv-cache-dtype fp8_ >"$T/c"
	[ "$(echo $(cat "$T/c"))" = "fp8_e4m3 fp8_e5m2" ]
	check "completes --kv-cache-dtype values ($(echo $(cat "$T/c")))" $?
	complete_words "$S" analyze --model x --mode s >"$T/c"
	[ "$(echo $(cat "$T/c"))" = "serve" ]
	check "completes --mode serve ($(echo $(cat "$T/c")))" $?
	complete_words "$S" help re >"$T/c"
	[ "$(cat "$T/c")" = "record" ]
	check "completes surfer help VERB" $?
fi

# installed: the completion and its links, surfer help reading the
# installed page, surfer record finding lib/libsurfer.so
if make --no-print-directory -s install PREFIX="$T/usr" BUILD="$B" >"$T/log" 2>&1; then
	c=$T/usr/share/bash-completion/completions
	[ -f "$c/surfer" ] && [ -L "$c/surfer-analyze" ] && [ -L "$c/surfer-record" ]
	check "make install puts the completion for surfer and surfer-VERB" $?
	! command -v man >/dev/null 2>&1 ||
	(cd / && MANPAGER=cat PAGER=cat "$T/usr/bin/surfer" help analyze </dev/null 2>&1 | grep -q 'surfer-analyze')
	check "installed surfer help analyze" $?
	# (a sanitized recorder needs its runtime preloaded first: not here)
	if [ -f "$B/libsurfer.so" ] && [ -z "$SANITIZE" ]; then
		(cd "$T" && LD_PRELOAD= "$T/usr/bin/surfer" record -o "$T/i.mp" -- sh -c 'echo "$LD_PRELOAD"' \
			>"$T/out" 2>/dev/null)
		[ "$(cat "$T/out")" = "$T/usr/lib/libsurfer.so" ]
		check "installed surfer record preloads PREFIX/lib/libsurfer.so ($(cat "$T/out"))" $?
	fi
else
	cat "$T/log"
	check "make install" 1
fi

finish "surfer_cli.sh"
