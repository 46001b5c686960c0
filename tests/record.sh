#!/bin/sh
# record.sh - `surfer record` over the fake driver: the trace it writes is
# one surfer analyze reads; the program's exit status, the signal that
# ended it and its output come through; signals sent to surfer record
# reach the program; LD_PRELOAD already set is kept, the recorder after it;
# the options become the SURFER_* settings; a forked child's trace is
# reported too; bad usage is one line and exit 2.  Skipped when the
# recorder was not built (no CUDA headers).
. "$(dirname "$0")/lib.sh"
if [ ! -f "$B/libsurfer.so" ]; then
	echo "record.sh: skipped: $B/libsurfer.so was not built (it needs the CUDA headers)"
	exit 0
fi
test_tmp record
T=$tmp
S=$(cd "$B" && pwd)/surfer
RT=$(cd "$B/tests" && pwd)/shim_runtime
DIRECT=$(cd "$B/tests" && pwd)/shim_direct
export LD_LIBRARY_PATH="$(cd "$B/tests" && pwd)"
# The sanitizer runtime must come first in LD_PRELOAD when the tools use it.
case "$SANITIZE" in
address*) export LD_PRELOAD="$(${CC:-cc} -print-file-name=libasan.so)"
	export ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 ;;
thread*) export LD_PRELOAD="$(${CC:-cc} -print-file-name=libtsan.so)" ;;
esac

# 1. Record, exit status kept, the line names the trace; analyze reads it.
(cd "$T" && "$S" record --timing events -o run-%p.mp -- "$RT" basic 7 >out 2>err)
rc=$?
check "exit status of the program (7), got $rc: $(cat "$T/err")" $([ $rc -eq 7 ]; echo $?)
set -- "$T"/run-*.mp
[ $# -eq 1 ] && [ -s "$1" ]
check "one trace run-<pid>.mp written ($*)" $?
trace=$1
grep -q "^surfer-record: run-[0-9]*\\.mp: 8 kernels, whole run (no profiler windows), timing events.*, nothing lost\$" "$T/err"
check "summary line: 8 kernels, timing events, nothing lost ($(cat "$T/err"))" $?
# the fake driver's device is unknown to the table: name an origin
"$S" analyze "$trace" --origin a100-sxm4-80 --target a100-sxm4-80 --target h100-sxm >"$T/an" 2>&1
check "surfer analyze reads the trace ($(head -3 "$T/an"))" $?
grep -q 'h100' "$T/an"
check "the report names the H100 target" $?

# 2. Options become settings: two of five windows after skipping one,
#    three kernels each (shim_runtime windows 5 3).
(cd "$T" && "$S" record --skip 1 --iterations 2 --timing none --stacks -o win.mp -- \
	"$RT" windows 5 3 >/dev/null 2>err)
check "windows run exits 0 ($(cat "$T/err"))" $?
grep -q "^surfer-record: win\\.mp: 6 kernels, 2 iterations, timing none" "$T/err"
check "--skip 1 --iterations 2: 6 kernels in 2 iterations ($(cat "$T/err"))" $?
"$B/surfer-dump" "$T/win.mp" | grep '"type":"kernel"' | head -1 | grep -q '"stack":[1-9]'
check "--stacks: kernels carry a stack" $?

# 3. The program's standard streams are its own.
out=$(echo hello | "$S" record -o "$T/cat.mp" -- sh -c 'cat; echo err >&2' 2>"$T/err")
[ "$out" = hello ] && grep -q '^err$' "$T/err"
check "stdin/stdout/stderr reach the program (out '$out')" $?
grep -q "no trace written to '$T/cat.mp'" "$T/err"
check "a program without CUDA calls: no trace, said so" $?

# 4. A program killed by a signal: 128 + the signal.
"$S" record -o "$T/k.mp" -- sh -c 'kill -KILL $$' 2>/dev/null
rc=$?
check "killed by SIGKILL: exit 137, got $rc" $([ $rc -eq 137 ]; echo $?)

# 5. SIGTERM sent to surfer record reaches the program; the recorder
#    finishes the trace; status 143.
mkfifo "$T/fifo"
"$S" record --timing events -o "$T/hang.mp" -- "$RT" hang 5 >"$T/fifo" 2>"$T/hang.err" &
pid=$!
read -r ready <"$T/fifo"
kill -TERM $pid
wait $pid
rc=$?
check "SIGTERM forwarded: exit 143, got $rc (ready '$ready')" $([ $rc -eq 143 ]; echo $?)
grep -q "hang\\.mp: 5 kernels,.*nothing lost" "$T/hang.err"
check "the signalled program's trace is complete ($(cat "$T/hang.err"))" $?
# a program that handles the signal decides the status
"$S" record -o "$T/t.mp" -- sh -c 'trap "exit 5" TERM; echo ready; while :; do sleep 0.05; done' \
	>"$T/fifo" 2>/dev/null &
pid=$!
read -r ready <"$T/fifo"
kill -TERM $pid
wait $pid
rc=$?
check "a program trapping SIGTERM exits 5, got $rc" $([ $rc -eq 5 ]; echo $?)

# 6. LD_PRELOAD already set stays first; the recorder is appended.
lib=$(cd "$B" && pwd)/libsurfer.so
first="${LD_PRELOAD:+$LD_PRELOAD:}$LD_LIBRARY_PATH/libcuda.so.1"
got=$(LD_PRELOAD="$first" "$S" record -o "$T/e.mp" -- \
	sh -c 'echo "$LD_PRELOAD|$SURFER_OUTPUT|$SURFER_TIMING|$SURFER_STACKS"' 2>/dev/null)
case $got in
"$first:$lib|$T/e.mp||") true ;;
*) false ;;
esac
check "LD_PRELOAD appended, SURFER_OUTPUT set, nothing else ($got)" $?

# 7. A forked child's trace is found, with %p and without.
(cd "$T" && "$S" record --timing events -o fk-%p.mp -- "$DIRECT" \
	>/dev/null 2>err)
check "fork program exits 0 ($(cat "$T/err"))" $?
[ "$(grep -c '^surfer-record: fk-[0-9]*\.mp: ' "$T/err")" -eq 2 ]
check "two traces with %p ($(cat "$T/err"))" $?
"$S" record --timing events -o "$T/same.mp" -- "$DIRECT" >/dev/null 2>"$T/err"
grep -q "same\\.mp: 7 kernels" "$T/err" && grep -q "same\\.mp\\.[0-9]*: 3 kernels" "$T/err"
check "parent and child traces without %p ($(cat "$T/err"))" $?

# 8. Bad usage: one line, exit 2.
for args in "--timing gpu -- true" "--skip x -- true" "--iterations -1 -- true" "" "--bogus -- true"; do
	# shellcheck disable=SC2086
	"$S" record $args >/dev/null 2>"$T/err"
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ]
	check "surfer record $args: exit 2 and one line (rc $rc: $(cat "$T/err"))" $?
done
"$S" record -- "$T/nonexistent" 2>"$T/err"
rc=$?
[ $rc -eq 127 ] && grep -q "cannot run" "$T/err"
check "a missing program: 127 and why (rc $rc)" $?

finish "record.sh"
