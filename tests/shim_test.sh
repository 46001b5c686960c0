#!/bin/sh
# shim_test.sh - runs the recorder against the fake driver and compares each
# trace with what the fake saw (tests/shim_check.c), plus exit codes, fork,
# threads, capture windows, failure modes and the exported symbol list.
B=${BUILD:-build}
SHIM=$B/libsurfer.so
CHECK=$B/tests/shim_check
T=$(mktemp -d "${TMPDIR:-/tmp}/shimtest.XXXXXX")
trap 'rm -rf "$T"' EXIT
fails=0
pass() { echo "ok - $1"; }
fail() { echo "FAIL - $1"; fails=$((fails + 1)); }

# The sanitizer runtime must come first in LD_PRELOAD when the shim uses it.
PRE=$SHIM
case "$SANITIZE" in
address*) PRE="$(${CC:-cc} -print-file-name=libasan.so) $SHIM"
	export ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 ;;
thread*) PRE="$(${CC:-cc} -print-file-name=libtsan.so) $SHIM" ;;
esac

run() { # run NAME EXPECTED_EXIT ENV... -- PROGRAM ARGS...
	name=$1 want=$2
	shift 2
	envs=""
	while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
	shift
	rm -f "$T/fake.log"
	env FAKE_CUDA_LOG="$T/fake.log" LD_LIBRARY_PATH="$B/tests" LD_PRELOAD="$PRE" $envs \
		"$@" >"$T/$name.out" 2>"$T/$name.err"
	got=$?
	if [ "$got" -ne "$want" ]; then
		fail "$name: exit $got, expected $want"
		cat "$T/$name.err"
		return 1
	fi
	return 0
}

dropped() { # dropped TRACE: the trailer's count of dropped records
	$B/surfer-dump "$1" | grep '"type":"trailer"' | sed 's/.*"dropped":\([0-9]*\).*/\1/'
}

# own_reports NAME TRACE N: every one of the trace's N kernels timed, none
# before its launch (each window launch kept its own CUPTI report)
own_reports() {
	if $B/surfer-dump "$2" | python3 -c '
import json, sys
n = int(sys.argv[1])
ks = [r for r in map(json.loads, sys.stdin) if r["type"] == "kernel"]
early = [r for r in ks if "start_ns" not in r or r["start_ns"] < r["cpu_ns"]]
assert len(ks) == n and not early, "%d kernels, %d untimed or timed before their launch" % (len(ks), len(early))
' "$3"; then pass "$1: window launches keep their own reports"; else fail "$1: window launches keep their own reports"; fi
}

# first_window NAME TRACE: two windows, the first under 100 ms (what the
# recorder's start costs is not inside it)
first_window() {
	if $B/surfer-dump "$2" | python3 -c '
import json, sys
m = [r for r in map(json.loads, sys.stdin) if r["type"] == "marker"]
s = [r["cpu_ns"] for r in m if r["kind"] == "capture_start"]
e = [r["cpu_ns"] for r in m if r["kind"] == "capture_stop"]
assert len(s) == 2 == len(e), m
assert e[0] - s[0] < 100e6, "first window %.0f ms" % ((e[0] - s[0]) / 1e6)
'; then pass "$1: the first window is the step's"; else fail "$1: the first window is the step's"; fi
}

# lost_shift_none NAME TRACE MESSAGE [KERNELS UNTIMED]: of `shim_runtime
# spaced KERNELS ...` (default 16) with one report in four lost, the UNTIMED
# (default 4) untimed and every other kernel started within 250 us of its
# own launch (none took a later launch's report)
lost_shift_none() {
	if $B/surfer-dump "$2" | python3 -c '
import json, sys
want_k, want_u = int(sys.argv[1]), int(sys.argv[2])
ks = [r for r in map(json.loads, sys.stdin) if r["type"] == "kernel"]
untimed = [r for r in ks if "start_ns" not in r]
late = [(r["start_ns"] - r["cpu_ns"]) / 1e3 for r in ks if "start_ns" in r and not 0 <= r["start_ns"] - r["cpu_ns"] < 250e3]
assert len(ks) == want_k and len(untimed) == want_u and not late, "%d kernels, %d untimed, starts off their launch (us): %s" % (len(ks), len(untimed), late[:20])
' "${4:-16}" "${5:-4}"; then pass "$1: $3"; else fail "$1: $3"; fi
}

# vm_growth NAME LIMIT_KB WHAT: the growth of the address space the program
# printed ("vm_growth_kb N" on its standard output) is under LIMIT_KB; not
# under a sanitizer, whose own memory makes the size meaningless.
vm_growth() {
	grow=$(sed -n 's/^vm_growth_kb //p' "$T/$1.out")
	if [ -n "$SANITIZE" ]; then
		echo "skip - $1: the address space under a sanitizer"
	elif [ -n "$grow" ] && [ "$grow" -ge 0 ] && [ "$grow" -lt "$2" ]; then
		pass "$1: $3 grew the address space by $grow kB"
	else
		fail "$1: $3 grew the address space by '$grow' kB (at most $2 expected)"
	fi
}

check() { # check NAME TRACE ARGS...
	name=$1 trace=$2
	shift 2
	if "$CHECK" "$trace" "$T/fake.log" "$@" >"$T/$name.chk" 2>&1; then
		pass "$name"
	else
		fail "$name"
		cat "$T/$name.chk"
	fi
}

# 1. The runtime protocol, every launch kind, copies; the exit code is kept.
if run runtime 7 SURFER_TIMING=events SURFER_OUTPUT="$T/rt.mp" -- $B/tests/shim_runtime basic 7; then
	check runtime "$T/rt.mp" --kernels 8 --copies 2 --timing events
fi

# 1a. The launcher's WORLD_SIZE goes into the header (the GPUs whose pace the
# step keeps); without it the header says 0.
if run world 0 WORLD_SIZE=16 SURFER_TIMING=events SURFER_OUTPUT="$T/world.mp" -- $B/tests/shim_runtime basic 0; then
	if $B/surfer-dump "$T/world.mp" | head -1 | grep -q '"world_size":16' &&
	   $B/surfer-dump "$T/rt.mp" | head -1 | grep -q '"world_size":0'; then
		pass "WORLD_SIZE recorded in the header"
	else
		fail "WORLD_SIZE recorded in the header"
	fi
fi

# 1b. Events: cuEventRecord (legacy and per-thread), cuStreamWaitEvent and
#     cuEventSynchronize become sync records naming the same event, the
#     record before the wait, on the streams the program used; the trailer
#     holds the most device memory held at once (10 MiB, shim_runtime.c).
if run events 0 SURFER_TIMING=events SURFER_OUTPUT="$T/ev.mp" -- $B/tests/shim_runtime events; then
	check events "$T/ev.mp" --kernels 2 --timing events
	$B/surfer-dump "$T/ev.mp" >"$T/ev.json" 2>&1
	if python3 - "$T/ev.json" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
k = {r["name"]: r for r in recs if r["type"] == "kernel"}
s = [r for r in recs if r["type"] == "sync"]
rec = [r for r in s if r["kind"] == "event_record"]
wait = [r for r in s if r["kind"] == "stream_wait_event"]
esync = [r for r in s if r["kind"] == "event"]
assert len(rec) == 2 and len(wait) == 1 and len(esync) == 1, s
assert rec[0]["stream"] == k["producer"]["stream"] and rec[0]["event"] > 0, rec
assert wait[0]["stream"] == k["consumer"]["stream"] != k["producer"]["stream"], wait
assert wait[0]["event"] == rec[0]["event"] and rec[0]["seq"] < wait[0]["seq"], (rec, wait)
assert rec[1]["stream"] == k["consumer"]["stream"] and rec[1]["event"] != rec[0]["event"], rec
assert esync[0]["event"] == rec[1]["event"] and esync[0]["stream"] == 0, esync
t = [r for r in recs if r["type"] == "trailer"]
assert t and t[0]["peak_device_bytes"] == 10 << 20, t
PY
	then pass "events: records, wait and sync name the same event"; else fail "events: records, wait and sync name the same event"; fi
	$B/surfer-analyze "$T/ev.mp" --origin h100-sxm --target a100 >"$T/ev.txt" 2>&1 && pass "events: analyzed" ||
		{ fail "events: analyzed"; cat "$T/ev.txt"; }
fi

# 1c. Host memory: the driver's answer (cuPointerGetAttribute) for each copy's
#     host side is in the trace, pageable for the stack, pinned for
#     cuMemHostAlloc'd memory and an address inside it (what the analyzer
#     makes of them: check_analyze's blocking_copy_scales).
if run hostmem 0 SURFER_TIMING=events SURFER_OUTPUT="$T/hm.mp" -- $B/tests/shim_runtime hostmem; then
	check hostmem "$T/hm.mp" --kernels 1 --copies 4 --timing events
	$B/surfer-dump "$T/hm.mp" >"$T/hm.json" 2>&1
	if python3 - "$T/hm.json" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
c = [(r["kind"], r["async"], r["bytes"], r["host_mem"]) for r in recs if r["type"] == "memcpy"]
assert c == [("dtoh", True, 4, "pageable"), ("dtoh", True, 4096, "pinned"),
             ("htod", True, 2048, "pinned"), ("dtoh", False, 4, "pageable")], c
PY
	then pass "hostmem: pageable and pinned host memory recorded"; else fail "hostmem: pageable and pinned host memory recorded"; cat "$T/hm.json"; fi
	$B/surfer-analyze "$T/hm.mp" --origin h100-sxm --target a100 >"$T/hm.txt" 2>&1 &&
		pass "hostmem: analyzed" || { fail "hostmem: analyzed"; cat "$T/hm.txt"; }
fi

# 1d. Every driver entry point the recorder hooks, each variant, once
#     succeeding and once failing (shim_runtime.c, calls()): the program
#     checks results, errno both ways and the copies; here the trace.  A
#     copy or set per successful call (unified copies: the direction from
#     both sides; a per-thread call's stream is the thread's, 10000 + tid on
#     the fake), a kernel per successful launch with its flags (1
#     cooperative, 8 per-thread, 16 Ex), a record per graph replay (2:
#     events time it whole), the synchronizations of both
#     passes but event records only of the first, and the first pass's
#     allocations as the peak (21 MiB + 8 KiB: cuMemCreate's and the
#     pools' too).  A batch of copies is one record: its bytes the sum, its
#     direction and host memory those of the copies that move the most,
#     its count in "copies".
if run calls 0 SURFER_TIMING=events SURFER_OUTPUT="$T/calls.mp" -- $B/tests/shim_runtime calls; then
	check calls "$T/calls.mp" --kernels 6 --replays 2 --copies 58 --traced-names --timing events
	$B/surfer-dump "$T/calls.mp" >"$T/calls.json" 2>&1
	if python3 - "$T/calls.json" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
tid = recs[1]["thread"]
pt, s1, legacy = 10000 + tid, 100, 1
c = [(r["bytes"], r.get("kind", "set"), r["async"], r["stream"], r["host_mem"]) for r in recs
     if r["type"] in ("memcpy", "memset")]
want = [(101, "dtod", False, legacy, "unknown"), (102, "dtoh", False, pt, "pageable"),
        (103, "htod", True, s1, "pinned"), (104, "dtod", True, pt, "unknown"),
        (105, "htod", False, legacy, "pageable"), (106, "htod", False, pt, "pinned"),
        (107, "dtoh", False, legacy, "pinned"), (108, "dtoh", False, pt, "pageable"),
        (109, "dtod", False, legacy, "unknown"), (110, "dtod", False, pt, "unknown"),
        (111, "htod", True, s1, "pinned"), (112, "htod", True, pt, "pageable"),
        (113, "dtoh", True, s1, "pinned"), (114, "dtoh", True, pt, "pageable"),
        (115, "dtod", True, s1, "unknown"), (116, "dtod", True, pt, "unknown"),
        (117, "set", False, legacy, "unknown"), (118, "set", False, pt, "unknown"),
        (119 * 4, "set", False, legacy, "unknown"), (120 * 4, "set", False, pt, "unknown"),
        (121, "set", True, s1, "unknown"), (122, "set", True, pt, "unknown"),
        (123 * 4, "set", True, s1, "unknown"), (124 * 4, "set", True, pt, "unknown"),
        (125, "ptop", False, legacy, "unknown"), (126, "ptop", False, pt, "unknown"),
        (127, "ptop", True, s1, "unknown"), (128, "ptop", True, pt, "unknown"),
        (129 * 2, "set", False, legacy, "unknown"), (130 * 2, "set", False, pt, "unknown"),
        (131 * 2, "set", True, s1, "unknown"), (132 * 2, "set", True, pt, "unknown"),
        (48, "htod", False, legacy, "pageable"), (49, "dtod", False, pt, "unknown"),
        (50, "dtoh", True, s1, "pinned"), (51, "dtod", True, pt, "unknown"),
        (52, "dtod", False, legacy, "unknown"), (53, "htod", False, pt, "pinned"),
        (56, "htod", False, legacy, "pageable"), (57, "dtod", False, pt, "unknown"),
        (58, "dtoh", True, s1, "pinned"), (59, "dtod", True, pt, "unknown"),
        (120, "set", False, legacy, "unknown"), (122, "set", False, pt, "unknown"),
        (248, "set", False, legacy, "unknown"), (252, "set", False, pt, "unknown"),
        (512, "set", False, legacy, "unknown"), (520, "set", False, pt, "unknown"),
        (132, "set", True, s1, "unknown"), (134, "set", True, pt, "unknown"),
        (272, "set", True, s1, "unknown"), (276, "set", True, pt, "unknown"),
        (560, "set", True, s1, "unknown"), (568, "set", True, pt, "unknown"),
        (90, "dtod", True, s1, "unknown"), (110, "htod", True, pt, "pageable"),
        (91, "dtod", True, s1, "unknown"), (111, "htod", True, pt, "pageable")]
assert c == want, "\n".join(map(str, c))
n = [r.get("copies", 1) for r in recs if r["type"] in ("memcpy", "memset")]
assert n == [1] * (len(n) - 4) + [3] * 4, n
k = [(r["name"], r["flags"], r["stream"]) for r in recs if r["type"] == "kernel"]
assert k == [("calls_launch", 0, s1), ("calls_launch_ptsz", 8, pt), ("calls_coop", 1, s1),
             ("calls_coop_ptsz", 9, pt), ("calls_ex", 16, s1), ("calls_ex_ptsz", 24, pt),
             ("cuGraphLaunch", 2, s1), ("cuGraphLaunch", 10, pt)], k
y = [(r["kind"], r["stream"]) for r in recs if r["type"] == "sync"]
both = [("ctx", 0), ("ctx", 0), ("stream", s1), ("stream", pt), ("event", 0), ("stream_wait_event", s1),
        ("stream_wait_event", pt)]
assert y == both + [("event_record", s1), ("event_record", pt)] * 2 + both, y
t = recs[-1]
assert t["type"] == "trailer" and t["peak_device_bytes"] == (21 << 20) + 8192, t
PY
	then pass "calls: every hooked entry point recorded as called"; else fail "calls: every hooked entry point recorded as called"; fi
fi

# 1e. A kernel handle the driver gives another kernel after its module was
#     unloaded (the fake hands the freed handle to the next module's kernel,
#     as the driver may): each launch under its own kernel's name and
#     attributes (the first kernel's, kept by the handle cache, before).
if run unload 0 SURFER_TIMING=events SURFER_OUTPUT="$T/unload.mp" -- $B/tests/shim_runtime unload; then
	check unload "$T/unload.mp" --kernels 3 --timing events
fi

# 2. Default timing: CUPTI cannot run on the fake; events are used and the
#    header says why.
if run cupti-fallback 0 SURFER_OUTPUT="$T/fb.mp" -- $B/tests/shim_runtime basic; then
	check cupti-fallback "$T/fb.mp" --kernels 8 --timing events
	if $B/surfer-dump "$T/fb.mp" 2>/dev/null | head -1 | grep -q '"timing_note":"CUDA events: CUPTI unusable'; then
		pass "cupti-fallback note"
	else
		fail "cupti-fallback note"
	fi
fi

# 2a. No SURFER_CUPTI_PATH, libcupti off the search path but beside the
#     CUDA libraries the program loaded (pip's nvidia/cu13/lib, and the
#     cu12 wheels' nvidia/cuda_cupti/lib next to nvidia/cublas/lib): found.
mkdir -p "$T/site/nvidia/cu13/lib" "$T/site12/nvidia/cublas/lib" "$T/site12/nvidia/cuda_cupti/lib"
cp $B/tests/libcuda.so.1 $B/tests/fakelib/libcupti.so.13 "$T/site/nvidia/cu13/lib/"
cp $B/tests/libcuda.so.1 "$T/site12/nvidia/cublas/lib/"
cp $B/tests/fakelib/libcupti.so.13 "$T/site12/nvidia/cuda_cupti/lib/libcupti.so.12"
for site in site/nvidia/cu13/lib site12/nvidia/cublas/lib; do
	rm -f "$T/fake.log"
	env FAKE_CUDA_LOG="$T/fake.log" LD_LIBRARY_PATH="$T/$site" LD_PRELOAD="$PRE" SURFER_OUTPUT="$T/pip.mp" \
		$B/tests/shim_runtime basic >"$T/pip.out" 2>"$T/pip.err"
	if [ $? -eq 0 ] && $B/surfer-dump "$T/pip.mp" 2>/dev/null | head -1 | grep -q '"timing":"cupti"'; then
		pass "libcupti beside the loaded CUDA libraries ($site)"
	else
		fail "libcupti beside the loaded CUDA libraries ($site)"
		cat "$T/pip.err"
	fi
done

# 2b. The CUPTI path end to end with a fake libcupti fed by the fake driver:
#     kernels joined by external correlation id (the correlation records come
#     after the kernels), and the kernels of two graph replays recorded from
#     CUPTI's reports with the graph flag.
if run cupti 0 SURFER_CUPTI_PATH="$B/tests/fakelib/libcupti.so.13" SURFER_OUTPUT="$T/cu.mp" \
	-- $B/tests/shim_runtime graph 2; then
	check cupti "$T/cu.mp" --kernels 12 --copies 2 --copy-times --timing cupti
	n=$($B/surfer-dump "$T/cu.mp" | grep -c '"name":"graph_node_[ab]".*"flags":2,')
	[ "$n" -eq 4 ] && pass "cupti: graph replay kernels" || fail "cupti: $n graph kernels, expected 4"
fi

# 2b-graph. Without CUPTI (events) a graph replay's kernels are the driver's
#     to run and nobody reports them: each replay is one record flagged
#     graph, named cuGraphLaunch, timed whole by a pair of events on its
#     stream (before, nothing of a replay was kept): its GPU time the two
#     kernels the fake runs for it, back to back.
if run graph-events 0 SURFER_TIMING=events SURFER_OUTPUT="$T/ge.mp" -- $B/tests/shim_runtime graph 2; then
	check graph-events "$T/ge.mp" --kernels 8 --replays 2 --traced-names --timing events
	if $B/surfer-dump "$T/ge.mp" | python3 -c '
import json, sys
log = [l.split() for l in open(sys.argv[1]) if l.startswith("K ") and "graph_node_" in l]
nodes = [int(l[-1]) - int(l[-2]) for l in log]
want = [nodes[i] + nodes[i + 1] for i in range(0, len(nodes), 2)]
got = [r["duration_ns"] for r in map(json.loads, sys.stdin) if r.get("name") == "cuGraphLaunch"]
assert len(want) == 2 and got == want, (got, want)
' "$T/fake.log"; then pass "graph-events: each replay timed whole"; else fail "graph-events: each replay timed whole"; fi
	$B/surfer-analyze "$T/ge.mp" --origin h100-sxm --target a100 >"$T/ge.txt" 2>&1 &&
		grep -q "2 CUDA graph replays timed whole" "$T/ge.txt" &&
		pass "graph-events: the analyzer says the replays were timed whole" ||
		{ fail "graph-events: the analyzer says the replays were timed whole"; cat "$T/ge.txt"; }
fi

# 2b-batch. A batch of copies (cuMemcpyBatchAsync), which CUPTI reports in
#     several records under its call's correlation id, each counting the
#     copies it covers (the fake: 5 copies in 3 reports): one record of the
#     batch, its bytes their sum, its GPU time from the first report's
#     start to the last one's end (--copy-times: bytes / 100 ns on the
#     fake).  A CUPTI before 12.8 (API version 24) counts no copies: each
#     report counts one, and the batch is written with all three at the end.
for v in 130001 24; do
	if run cupti-batch-$v 0 FAKE_CUPTI_VERSION=$v SURFER_CUPTI_PATH="$B/tests/fakelib/libcupti.so.13" \
		SURFER_OUTPUT="$T/cb$v.mp" -- $B/tests/shim_runtime batch 5; then
		check cupti-batch-$v "$T/cb$v.mp" --kernels 0 --copies 2 --copy-times --timing cupti
		n=$($B/surfer-dump "$T/cb$v.mp" | grep -c '"bytes":150000,.*"copies":5')
		[ "$n" -eq 2 ] && pass "cupti-batch-$v: one record a batch" ||
			fail "cupti-batch-$v: $n records of 5 copies, expected 2"
	fi
done

# 2b'. Reports delivered before the launch hook has handed its record over
#      (FAKE_CUPTI_EAGER): kept and joined when the record arrives.
if run cupti-eager 0 FAKE_CUPTI_EAGER=1 SURFER_CUPTI_PATH="$B/tests/fakelib/libcupti.so.13" \
	SURFER_OUTPUT="$T/ce.mp" -- $B/tests/shim_runtime graph 2; then
	check cupti-eager "$T/ce.mp" --kernels 12 --timing cupti
fi

# 2b''. Kernels and copies no correlation record names (launched through the
#       CUDA runtime, as PyTorch's are) or whose records come in a later
#       buffer: joined to their launches by stream, kernel and shape, every
#       one timed, none dropped; with FAKE_CUPTI_EAGER the reports come
#       before their launches are published and wait for them; with
#       FAKE_CUPTI_CLOCK=real the launch-time bound is in force.  The graph
#       replays' kernels need the correlation: these runs have no graphs.
for ext in none late none-eager none-real; do
	eager=0 clock=virtual
	[ $ext = none-eager ] && eager=1
	[ $ext = none-real ] && clock=real
	if run cupti-ext-$ext 0 FAKE_CUPTI_EXTERNAL=${ext%-*} FAKE_CUPTI_EAGER=$eager FAKE_CUPTI_CLOCK=$clock \
		SURFER_CUPTI_PATH="$B/tests/fakelib/libcupti.so.13" \
		SURFER_OUTPUT="$T/cx.mp" -- $B/tests/shim_runtime basic; then
		check cupti-ext-$ext "$T/cx.mp" --kernels 8 --copy-times --timing cupti
		d=$(dropped "$T/cx.mp")
		[ "$d" = 0 ] && pass "cupti-ext-$ext: none dropped" || fail "cupti-ext-$ext: $d dropped"
	fi
done

# 2b'''. Two threads taking turns on one stream (PyTorch's main and autograd
#        threads), no correlation records: each report goes to the launch
#        it ran, the earliest pending one, although threads publish their
#        launches in batches (on the fake, a stream's GPU times grow with
#        its launches: sorted by launch time they must too).
if run cupti-handoff 0 FAKE_CUPTI_EXTERNAL=none SURFER_CUPTI_PATH="$B/tests/fakelib/libcupti.so.13" \
	SURFER_OUTPUT="$T/ho.mp" -- $B/tests/shim_runtime handoff 3000; then
	check cupti-handoff "$T/ho.mp" --kernels 6000 --timing cupti
	if $B/surfer-dump "$T/ho.mp" | python3 -c '
import json, sys
ks = sorted((r["cpu_ns"], r["start_ns"]) for r in map(json.loads, sys.stdin)
            if r["type"] == "kernel" and "start_ns" in r)
bad = sum(1 for a, b in zip(ks, ks[1:]) if b[1] < a[1])
assert len(ks) == 6000 and bad == 0, "%d kernels, %d out of launch order" % (len(ks), bad)
'; then pass "cupti-handoff: reports in launch order"; else fail "cupti-handoff: reports in launch order"; fi
fi

# 2b''''. The same kernel launched before each profiler window and inside
#         it, no correlation records, reports on the recorder's clock: the
#         reports of the launches left out (a warm-up) never take a
#         window's launch, which came after they ran.
if run cupti-rewindow 0 FAKE_CUPTI_EXTERNAL=none FAKE_CUPTI_CLOCK=real SURFER_ITERATIONS=3 \
	SURFER_CUPTI_PATH="$B/tests/fakelib/libcupti.so.13" SURFER_OUTPUT="$T/rw.mp" \
	-- $B/tests/shim_runtime rewindow 3 50; then
	own_reports cupti-rewindow "$T/rw.mp" 150
	d=$(dropped "$T/rw.mp")
	[ "$d" = 0 ] && pass "cupti-rewindow: kernels run between windows are not dropped records" ||
		fail "cupti-rewindow: $d dropped"
fi
# ... but a report that matches no launch of a window is counted as dropped.
if run cupti-unmatched 0 FAKE_CUPTI_EXTERNAL=none FAKE_CUPTI_RENAME=1 FAKE_CUPTI_CLOCK=real \
	SURFER_CUPTI_PATH="$B/tests/fakelib/libcupti.so.13" SURFER_OUTPUT="$T/um.mp" \
	-- $B/tests/shim_runtime rewindow 2 5; then
	d=$(dropped "$T/um.mp")
	[ "$d" = 20 ] && pass "cupti-unmatched: 20 dropped" || fail "cupti-unmatched: $d dropped, expected 20"
fi

# 2b'''''. CUPTI's start (slow on a real GPU: 29-50 ms on an H200) happens
#          before the first profiler window opens, not inside it: the
#          window's span is the program's step, not the recorder's setup.
if run cupti-window-start 0 FAKE_CUPTI_ENABLE_MS=300 SURFER_ITERATIONS=2 \
	SURFER_CUPTI_PATH="$B/tests/fakelib/libcupti.so.13" SURFER_OUTPUT="$T/ws.mp" \
	-- $B/tests/shim_runtime windows 2 3; then
	first_window cupti-window-start "$T/ws.mp"
fi

# 2b-runtime. Kernels launched through the CUDA runtime whose reports name
#            the runtime call (its API record: FAKE_CUPTI_EXTERNAL=runtime),
#            one report in four lost (FAKE_CUPTI_LOSE, as CUPTI lost some
#            right after its start on an H200), launches 500 us apart: each
#            report goes to the launch inside its call, so only the four
#            launches whose reports were lost go untimed.  Matched by kernel
#            and stream instead, each lost report shifted every later launch
#            onto the next one's report (every start 500 us late).
if run cupti-runtime-lost 0 FAKE_CUPTI_EXTERNAL=runtime FAKE_CUPTI_LOSE=4 FAKE_CUPTI_CLOCK=real \
	SURFER_VERBOSE=1 SURFER_CUPTI_PATH="$B/tests/fakelib/libcupti.so.13" SURFER_OUTPUT="$T/rl.mp" \
	-- $B/tests/shim_runtime spaced 16 500; then
	lost_shift_none cupti-runtime-lost "$T/rl.mp" "each report on the launch of its call"
	grep -q "12 by runtime call" "$T/cupti-runtime-lost.err" && pass "cupti-runtime-lost: joined by runtime call" ||
		fail "cupti-runtime-lost: joined by runtime call: $(grep 'reports joined' "$T/cupti-runtime-lost.err")"
	d=$(dropped "$T/rl.mp")
	[ "$d" = 4 ] && pass "cupti-runtime-lost: CUPTI's dropped records counted" ||
		fail "cupti-runtime-lost: $d dropped, expected CUPTI's 4"
	grep -q "CUPTI dropped activity records" "$T/cupti-runtime-lost.err" && pass "cupti-runtime-lost: said" ||
		fail "cupti-runtime-lost: no warning of CUPTI's dropped records"
fi

# The runtime's records in a buffer after the kernels' (CUPTI keeps API
# records in buffers of their own): the reports wait for them.
if run cupti-runtime-late 0 FAKE_CUPTI_EXTERNAL=runtime-late FAKE_CUPTI_CLOCK=real SURFER_VERBOSE=1 \
	SURFER_CUPTI_PATH="$B/tests/fakelib/libcupti.so.13" SURFER_OUTPUT="$T/rt.mp" \
	-- $B/tests/shim_runtime spaced 16 500; then
	grep -q "16 by runtime call" "$T/cupti-runtime-late.err" && pass "cupti-runtime-late: the reports wait for their calls" ||
		fail "cupti-runtime-late: the reports wait for their calls: $(grep 'reports joined' "$T/cupti-runtime-late.err")"
fi
# ... however late the calls' buffer comes (300 ms: past the 50 ms after
# which a report is matched by kernel and stream, and the 200 ms after
# which it is given up; a loaded machine's scheduler did that once)
if run cupti-runtime-later 0 FAKE_CUPTI_EXTERNAL=runtime-late FAKE_CUPTI_API_DELAY_MS=300 \
	FAKE_CUPTI_CLOCK=real SURFER_VERBOSE=1 SURFER_CUPTI_PATH="$B/tests/fakelib/libcupti.so.13" \
	SURFER_OUTPUT="$T/rt2.mp" -- $B/tests/shim_runtime spaced 16 500; then
	grep -q "16 by runtime call" "$T/cupti-runtime-later.err" &&
		pass "cupti-runtime-later: the reports wait for a late buffer of calls" ||
		fail "cupti-runtime-later: $(grep 'reports joined' "$T/cupti-runtime-later.err")"
fi

# The same without the runtime's records (an older CUPTI): matched by
# kernel and stream, a launch another one launched after it on the stream
# has overtaken (it started before the report did) is passed over, so a
# lost report leaves its own launch untimed and takes no other's.
if run cupti-lost-overtaken 0 FAKE_CUPTI_EXTERNAL=none FAKE_CUPTI_LOSE=4 FAKE_CUPTI_CLOCK=real \
	SURFER_CUPTI_PATH="$B/tests/fakelib/libcupti.so.13" SURFER_OUTPUT="$T/lo.mp" \
	-- $B/tests/shim_runtime spaced 16 500; then
	lost_shift_none cupti-lost-overtaken "$T/lo.mp" "a lost report shifts no launch"
fi

# ... and over a longer run (2,000 launches 1 ms apart, one report in four
# lost): a launch overtaken a second ago, no report waiting from before,
# is written untimed at once instead of staying pending to the end, where
# every report's search walked it; the trace is the same: every launch,
# the lost ones untimed, no report on another's launch.
if run cupti-lost-long 0 FAKE_CUPTI_EXTERNAL=none FAKE_CUPTI_LOSE=4 FAKE_CUPTI_CLOCK=real SURFER_VERBOSE=1 \
	SURFER_CUPTI_PATH="$B/tests/fakelib/libcupti.so.13" SURFER_OUTPUT="$T/ll.mp" \
	-- $B/tests/shim_runtime spaced 2000 1000; then
	lost_shift_none cupti-lost-long "$T/ll.mp" "every launch kept, the lost ones untimed" 2000 500
	n=$(sed -n 's/.* \([0-9]*\) written untimed once overtaken.*/\1/p' "$T/cupti-lost-long.err")
	if [ -n "$n" ] && [ "$n" -ge 100 ] && [ "$n" -le 500 ]; then
		pass "cupti-lost-long: $n lost reports' launches written before the end"
	else
		fail "cupti-lost-long: '$n' launches written untimed once overtaken: $(grep 'reports joined' "$T/cupti-lost-long.err")"
	fi
fi

# A queue of GPU work deeper than the writer's 250 ms between flushes
# (FAKE_CUPTI_UNFINISHED: a report is unfinished until its kernel ends on
# the real clock): the periodic flushes take only finished buffers, so
# every kernel keeps its times; forced, they took the queued kernels'
# reports unfinished (on an H200, 201 of a compiled step's 306 kernels).
if run cupti-queued 0 FAKE_CUPTI_EXTERNAL=runtime FAKE_CUPTI_CLOCK=real FAKE_CUPTI_UNFINISHED=1 SURFER_VERBOSE=1 \
	SURFER_CUPTI_PATH="$B/tests/fakelib/libcupti.so.13" SURFER_OUTPUT="$T/qu.mp" \
	-- $B/tests/shim_runtime queued 8 800; then
	check cupti-queued "$T/qu.mp" --kernels 8 --timing cupti
	grep -q "0 handed over unfinished" "$T/cupti-queued.err" && pass "cupti-queued: no report taken unfinished" ||
		fail "cupti-queued: $(grep 'reports joined' "$T/cupti-queued.err")"
fi

# ... and when the runtime's exit handler releases the context with that
# queue still running (a program that ends without synchronizing): the
# recorder waits for the GPU before its forced flush, as the events path
# does, so that no report is taken unfinished.
if run cupti-queued-release 0 FAKE_CUPTI_EXTERNAL=runtime FAKE_CUPTI_CLOCK=real FAKE_CUPTI_UNFINISHED=1 \
	SURFER_VERBOSE=1 SURFER_CUPTI_PATH="$B/tests/fakelib/libcupti.so.13" SURFER_OUTPUT="$T/qr.mp" \
	-- $B/tests/shim_runtime queued-release 8 400; then
	check cupti-queued-release "$T/qr.mp" --kernels 8 --timing cupti
	grep -q "0 handed over unfinished" "$T/cupti-queued-release.err" &&
		pass "cupti-queued-release: no report taken unfinished" ||
		fail "cupti-queued-release: $(grep 'reports joined' "$T/cupti-queued-release.err")"
fi

# ... and in capture windows: the reports of the launches before each
# window (not recorded) are let go, the window's keep their own.
if run cupti-runtime-rewindow 0 FAKE_CUPTI_EXTERNAL=runtime FAKE_CUPTI_CLOCK=real SURFER_ITERATIONS=3 \
	SURFER_CUPTI_PATH="$B/tests/fakelib/libcupti.so.13" SURFER_OUTPUT="$T/rr.mp" \
	-- $B/tests/shim_runtime rewindow 3 50; then
	own_reports cupti-runtime-rewindow "$T/rr.mp" 150
	d=$(dropped "$T/rr.mp")
	[ "$d" = 0 ] && pass "cupti-runtime-rewindow: none dropped" || fail "cupti-runtime-rewindow: $d dropped"
fi
# ... and when the clock readings before each buffer are loose (each
# cuptiGetTimestamp past the first five held 15 us, its reading at the end
# of the bracket: an offset 7.5 us off), the tight first reading is kept:
# no kernel timed before its own launch (preload/cupti.c, measure_offset).
if run cupti-loose-clock 0 FAKE_CUPTI_EXTERNAL=runtime FAKE_CUPTI_CLOCK=real FAKE_CUPTI_TS_SLOW=5 \
	SURFER_ITERATIONS=3 SURFER_CUPTI_PATH="$B/tests/fakelib/libcupti.so.13" SURFER_OUTPUT="$T/lc.mp" \
	-- $B/tests/shim_runtime rewindow 3 50; then
	own_reports cupti-loose-clock "$T/lc.mp" 150
fi

# 2b-early. What the first calls after CUPTI's start cost (4-6 ms on an
#             H200; here FAKE_CUDA_FIRST_TRACKED_MS=200 on the first launch
#             CUPTI tracks) is paid before the first capture window when
#             the program launches before it, not inside the window.
if run cupti-early-start 0 FAKE_CUDA_FIRST_TRACKED_MS=200 SURFER_ITERATIONS=2 \
	SURFER_CUPTI_PATH="$B/tests/fakelib/libcupti.so.13" SURFER_OUTPUT="$T/es.mp" \
	-- $B/tests/shim_runtime rewindow 2 5; then
	first_window cupti-early-start "$T/es.mp"
fi

# 2b-stop. Once the last window is recorded the trace is finished and the
#          program runs on without CUPTI: every kind the recorder turned on
#          is off again (on an H200 CUPTI cost a CUDA-graph decode step 6 %
#          and a CPU-bound GPT-2 step a third).
if run cupti-stop 0 FAKE_CUPTI_STATE="$T/cupti-state" SURFER_ITERATIONS=2 \
	SURFER_CUPTI_PATH="$B/tests/fakelib/libcupti.so.13" SURFER_OUTPUT="$T/cs.mp" \
	-- $B/tests/shim_runtime windows 4 3; then
	grep -qx "0 kinds on" "$T/cupti-state" && pass "cupti-stop: CUPTI off after the trace" ||
		fail "cupti-stop: $(cat "$T/cupti-state" 2>/dev/null) after the trace"
	n=$($B/surfer-dump "$T/cs.mp" | grep -c '"type":"kernel".*"start_ns"')
	[ "$n" = 6 ] && pass "cupti-stop: the two windows' kernels timed" || fail "cupti-stop: $n timed kernels, expected 6"
fi

# 2b''''''. Graph replays with no correlation records (a runtime
#           cudaGraphLaunch): each replay's kernels are recorded from
#           CUPTI's reports, one of each graph node per replay, none dropped.
if run cupti-graph-none 0 FAKE_CUPTI_EXTERNAL=none SURFER_CUPTI_PATH="$B/tests/fakelib/libcupti.so.13" \
	SURFER_OUTPUT="$T/gn.mp" -- $B/tests/shim_runtime graph 3; then
	check cupti-graph-none "$T/gn.mp" --kernels 14 --copies 2 --copy-times --timing cupti
	if $B/surfer-dump "$T/gn.mp" | python3 -c '
import json, sys, collections
rs = list(map(json.loads, sys.stdin))
g = collections.defaultdict(list)
for r in rs:
    if r["type"] == "kernel" and r["name"].startswith("graph_node_"):
        assert r["flags"] & 2 and "start_ns" in r, r
        g[r["cpu_ns"]].append(r["name"])
assert len(g) == 3 and all(sorted(v) == ["graph_node_a", "graph_node_b"] for v in g.values()), dict(g)
d = [r for r in rs if r["type"] == "trailer"][0]["dropped"]
assert d == 0, d
'; then pass "cupti-graph-none: one of each node per replay"; else fail "cupti-graph-none: one of each node per replay"; fi
fi

# 2c. Launches into a stream capture are recorded with the captured flag and
#     no GPU times, with events and with CUPTI; the launch after is timed.
for tm in events cupti; do
	if run capture-$tm 0 SURFER_TIMING=$tm SURFER_CUPTI_PATH="$B/tests/fakelib/libcupti.so.13" \
		SURFER_OUTPUT="$T/cap.mp" -- $B/tests/shim_runtime capture; then
		n=$($B/surfer-dump "$T/cap.mp" | grep '"name":"captured_kernel"' | grep -c '"flags":4,')
		[ "$n" -eq 2 ] && pass "capture ($tm): flagged" || fail "capture ($tm): $n flagged"
		check capture-$tm "$T/cap.mp" --kernels 1 --captured 2 --timing $tm
	fi
done

# 2c'. CUDA graphs name the captures they came from (shim_runtime graphs:
#      three kernels captured, two of one function with other grids, the
#      graph instantiated and replayed twice; the executable graph and the
#      graph destroyed, another kernel captured and replayed once under the
#      same handles, which the fake hands out again; then a graph built
#      node by node under them, replayed once).  Every captured launch
#      carries its capture's id in graph (nonzero, the two captures apart).
#      With events each replay is one cuGraphLaunch record naming its
#      executable graph's capture: the third the second capture's, the
#      built graph's none (a destroyed graph's entry is forgotten; kept, it
#      named the second capture).  With CUPTI each replay's kernels carry
#      the capture, and as replay the seq of their cuGraphLaunch: shared
#      within a replay, apart between replays, between the seqs of the
#      launches made just before and after it on the thread, and no
#      record's own; their names and shapes are the captured ones, in
#      capture order.
for tm in events cupti; do
	if run graphs-$tm 0 SURFER_TIMING=$tm SURFER_CUPTI_PATH="$B/tests/fakelib/libcupti.so.13" \
		SURFER_OUTPUT="$T/gr-$tm.mp" -- $B/tests/shim_runtime graphs; then
		[ $tm = events ] && check graphs-$tm "$T/gr-$tm.mp" --kernels 4 --captured 4 --replays 4 \
			--traced-names --timing events
		if $B/surfer-dump "$T/gr-$tm.mp" | python3 -c '
import json, sys
tm = sys.argv[1]
recs = list(map(json.loads, sys.stdin))
ks = sorted((r for r in recs if r["type"] == "kernel"), key=lambda r: r["seq"])
shape = lambda r: (r["name"], r["grid"], r["block"], r["dyn_smem"])
cap = [r for r in ks if r["flags"] & 4]
assert [shape(r) for r in cap] == [("graph_gemm", [4, 1, 1], [128, 1, 1], 0), ("graph_gemm", [8, 2, 1], [128, 1, 1], 0),
                                   ("graph_norm", [2, 1, 1], [256, 1, 1], 512), ("graph_tail", [6, 1, 1], [64, 1, 1], 0)], cap
c1, c2 = cap[0].get("graph", 0), cap[3].get("graph", 0)
assert c1 and c2 and c1 != c2 and all(r.get("graph") == c1 for r in cap[:3]), ("captures", c1, c2, cap)
after = [r for r in ks if r["name"] == "after_replay"]
assert len(after) == 4 and not any("graph" in r or "replay" in r for r in after), after
lo, hi = [cap[2]["seq"], after[0]["seq"], cap[3]["seq"], after[2]["seq"]], [r["seq"] for r in after]
built = [{"name": "graph_built", "grid": [3, 1, 1], "block": [64, 1, 1], "dyn_smem": 0}]
want = [(c1, cap[:3]), (c1, cap[:3]), (c2, cap[3:]), (0, built)]
if tm == "events":
    reps = [r for r in ks if r["name"] == "cuGraphLaunch"]
    assert [r.get("graph", 0) for r in reps] == [c for c, _ in want], ("replays", reps)
    assert all(r["flags"] & 2 and "start_ns" in r and lo[i] < r["seq"] < hi[i] for i, r in enumerate(reps)), reps
else:
    gk = [r for r in ks if r["flags"] & 2]
    ids = sorted(set(r.get("replay", 0) for r in gk))
    assert len(ids) == 4 and all(lo[i] < ids[i] < hi[i] for i in range(4)), ("replay seqs", ids, lo, hi)
    assert not set(ids) & set(r["seq"] for r in recs if "seq" in r), ids
    for rid, (c, kernels) in zip(ids, want):
        got = [r for r in gk if r.get("replay") == rid]
        assert [shape(r) for r in got] == [shape(r) for r in kernels], ("replay", rid, got)
        assert all(r.get("graph", 0) == c and "start_ns" in r for r in got), ("replay", rid, got)
' $tm; then pass "graphs ($tm): replays name their captures"; else fail "graphs ($tm): replays name their captures"; fi
		# the analyzer predicts the three linked replays from their
		# captured kernels and says the built graph's has none
		[ $tm = events ] && { $B/surfer-analyze "$T/gr-$tm.mp" --origin h100-sxm --target a100 \
			>"$T/gr-$tm.txt" 2>&1 &&
			grep -q "1 CUDA graph replays timed whole .* captures not in the trace" "$T/gr-$tm.txt" &&
			grep -q "3 CUDA graph replays timed whole .* predicted from the kernels captured" \
				"$T/gr-$tm.txt" &&
			pass "graphs (events): the analyzer predicts the replays from their captures" ||
			{ fail "graphs (events): the analyzer predicts the replays from their captures"
			  cat "$T/gr-$tm.txt"; }; }
	fi
done

# 2c''. A graph captured before the recorded windows (SURFER_SKIP=1
#      SURFER_ITERATIONS=1: the second of three), as serving engines
#      capture theirs at start-up: its launches are recorded all the same
#      (captured, untimed: a cuBLAS GEMM's record and its two kernels on the
#      capturing stream, a kernel), and its replay in the window names
#      them; a kernel launched beside the capture on another stream is
#      not recorded, nor anything of the other windows.
for tm in events cupti; do
	if run graphs-windows-$tm 0 FAKE_CUPTI_CLOCK=real SURFER_TIMING=$tm SURFER_SKIP=1 SURFER_ITERATIONS=1 \
		SURFER_CUPTI_PATH="$B/tests/fakelib/libcupti.so.13" SURFER_OUTPUT="$T/gw-$tm.mp" \
		-- $B/tests/shim_runtime graphs-windows "$B/tests/fakelib/libcublasLt.so.13" \
		"$B/tests/fakelib/libcublas.so.13"; then
		if $B/surfer-dump "$T/gw-$tm.mp" | python3 -c '
import json, sys
tm = sys.argv[1]
recs = list(map(json.loads, sys.stdin))
ks = [r for r in recs if r["type"] == "kernel"]
gemms = [r for r in recs if r["type"] == "gemm"]
cap = [r for r in ks if r["flags"] & 4]
assert [r["name"] for r in cap] == ["sgemm_outer_kernel", "lt_inner_kernel", "graph_norm"], cap
g = cap[0].get("graph", 0)
assert g and all(r.get("graph") == g for r in cap), cap
assert len(gemms) == 1 and [r["lib_call"] for r in cap] == [gemms[0]["seq"]] * 2 + [0], (gemms, cap)
assert not any(r["name"] == "beside_capture" for r in ks), ks
after = [r for r in ks if r["name"] == "after_replay"]
assert len(after) == 1 and after[0]["iteration"] == 1, after
rep = [r for r in ks if r["flags"] & 2]
if tm == "events":
    assert [(r["name"], r.get("graph")) for r in rep] == [("cuGraphLaunch", g)], rep
else:
    assert [(r["name"], r.get("graph")) for r in rep] == [(r["name"], g) for r in cap], rep
' $tm; then pass "graphs-windows ($tm): a capture before the windows is recorded"
		else fail "graphs-windows ($tm): a capture before the windows is recorded"; fi
		# the analyzer gives the replayed GEMM kernels their captured
		# call's shape (CUPTI), or the whole replay its captured kernels
		if $B/surfer-analyze "$T/gw-$tm.mp" --origin h100-sxm --target a100 --json 2>"$T/gw-$tm.err" |
			python3 -c '
import json, sys
tm, err = sys.argv[1], open(sys.argv[2]).read()
rows = {r["kernel"]: r for r in json.load(sys.stdin)["predictions"][0]["breakdown"]}
if tm == "cupti":
    assert all(rows[k]["op"] == "gemm" for k in ("sgemm_outer_kernel", "lt_inner_kernel")), rows
else:
    assert "1 CUDA graph replays timed whole" in err and "predicted from the kernels captured" in err, err
' $tm "$T/gw-$tm.err"; then pass "graphs-windows ($tm): the analyzer takes the captured shapes"
		else fail "graphs-windows ($tm): the analyzer takes the captured shapes"; fi
	fi
done

# 2d. A capture in the global mode (torch.cuda.graph's default) held open
#     while kernels launch beside it: the event pairs of those are harvested
#     meanwhile, by the writer thread and by the capturing thread when its
#     ring fills, and a query, synchronize or elapsed time from a thread in
#     the global mode would invalidate the capture (the fake refuses such
#     calls as the driver does, cuda.h's cuThreadExchangeStreamCaptureMode).
#     The capture survives, and the launches beside it are timed.
if run capture-busy 0 SURFER_TIMING=events SURFER_OUTPUT="$T/capb.mp" -- $B/tests/shim_runtime capture-busy 150; then
	pass "capture-busy: the capture survives the harvest"
	check capture-busy "$T/capb.mp" --kernels 150 --captured 1 --timing events
fi

# 2e. The header's GPU is the program's: device 1 of two (the fake's
#     FAKE_CUDA_DEVICE), though the header is written by the writer thread,
#     where no context is current (launches 30 ms apart: it drains first).
if run device1 0 FAKE_CUDA_DEVICE=1 SURFER_TIMING=events SURFER_OUTPUT="$T/dev1.mp" \
	-- $B/tests/shim_runtime spaced 6 30000; then
	if $B/surfer-dump "$T/dev1.mp" | grep '"type":"header"' | grep -q '"name":"Fake GPU 9000 #1"'; then
		pass "device1: the header names device 1"
	else
		fail "device1: the header names $($B/surfer-dump "$T/dev1.mp" | grep '"type":"header"' |
			sed 's/.*"device":{"name":"\([^"]*\)".*/\1/')"
	fi
fi

# 2f. Events belong to a context: one thread driving two GPUs (launches
#     alternating between the primary contexts of devices 0 and 1, each on
#     its device's stream) has every launch timed, device 1's too (the 20
#     of them went untimed with one pool and one reference), and so has a
#     program that resets its device (cudaDeviceReset) and goes on (the
#     fake's reset kills the context's events, as the driver's does).
if run two-gpus 0 FAKE_CUDA_DEVICE=1 SURFER_TIMING=events SURFER_OUTPUT="$T/two.mp" \
	-- $B/tests/shim_runtime two-gpus 40; then
	check two-gpus "$T/two.mp" --kernels 40 --timing events
fi
if run ctx-reset 0 SURFER_TIMING=events SURFER_OUTPUT="$T/reset.mp" -- $B/tests/shim_runtime reset 10; then
	check ctx-reset "$T/reset.mp" --kernels 20 --timing events
fi

# 3. Eight threads launching concurrently on their own and per-thread streams.
if run threads 0 SURFER_TIMING=events SURFER_OUTPUT="$T/th.mp" -- $B/tests/shim_runtime threads 8 600; then
	check threads "$T/th.mp" --kernels 4800 --timing events
fi

# 3b. A thread per request (a threaded server around a model): 400 threads
#     one after another, 10 launches each.  Every kernel is kept under its
#     own thread, and an exited thread's state serves the next: the address
#     space grew by about 123 MB (311 KB a thread) before, by 120 kB after.
#     One malloc arena (MALLOC_ARENA_MAX=1): a thread's new arena reserves
#     64 MB of address space that is not ours.  Sanitizers' own per-thread
#     memory makes the size meaningless there.
if run churn 0 MALLOC_ARENA_MAX=1 SURFER_TIMING=events SURFER_OUTPUT="$T/churn.mp" \
	-- $B/tests/shim_runtime churn 400 10; then
	check churn "$T/churn.mp" --kernels 4000 --timing events
	vm_growth churn 16384 "400 threads, one after another"
fi

# 3c. More kernels than the handle cache's first table holds (20,000, as a
#     compiled model's Triton kernels over many shapes), each launched 20
#     times: every one keeps its name and attributes, and the rounds after
#     the first allocate nothing (a copy per launch of the kernels past the
#     table before: 2,112 kB more after nine more rounds, 4.4 MB after 19).
if run handles 0 MALLOC_ARENA_MAX=1 SURFER_TIMING=events SURFER_OUTPUT="$T/handles.mp" \
	-- $B/tests/shim_runtime handles 20000 20; then
	check handles "$T/handles.mp" --kernels 400000 --timing events
	vm_growth handles 1024 "19 more rounds of 20,000 kernels"
fi

# 4. Direct calls (-lcuda), a constructor launching before main, and fork:
#    the child writes its own trace, the parent's stays intact.
if run direct 5 SURFER_TIMING=events SURFER_OUTPUT="$T/d-%p.mp" -- $B/tests/shim_direct 5; then
	n=$(ls "$T"/d-*.mp 2>/dev/null | wc -l)
	[ "$n" -eq 2 ] && pass "fork: two traces" || fail "fork: $n traces, expected 2"
	for f in "$T"/d-*.mp; do
		if $B/surfer-dump "$f" | grep -q '"name":"child_kernel"'; then
			check fork-child "$f" --kernels 3 --timing events
			if $B/surfer-dump "$f" | grep -q '"name":"triton_direct"'; then
				fail "fork-child holds its parent's kernels"
			fi
		else
			check fork-parent "$f" --kernels 7 --timing events
		fi
	done
	if for f in "$T"/d-*.mp; do $B/surfer-dump "$f"; done | grep -q '"name":"ctor_kernel"'; then
		pass "constructor launch recorded"
	else
		fail "constructor launch recorded"
	fi
fi

# 5. Without %p a child appends its pid instead of writing the parent's file.
if run fork-nopid 0 SURFER_TIMING=events SURFER_OUTPUT="$T/same.mp" -- $B/tests/shim_direct; then
	check fork-nopid-parent "$T/same.mp" --kernels 7
	n=$(ls "$T"/same.mp.* 2>/dev/null | wc -l)
	[ "$n" -eq 1 ] && pass "fork-nopid child file" || fail "fork-nopid child file ($n)"
fi

# 6. Capture windows: SURFER_SKIP=2 SURFER_ITERATIONS=2 keeps windows 2 and 3.
if run windows 0 SURFER_TIMING=events SURFER_SKIP=2 SURFER_ITERATIONS=2 SURFER_OUTPUT="$T/w.mp" \
	-- $B/tests/shim_runtime windows 5 3; then
	check windows "$T/w.mp" --kernels 6 --traced-names
	names=$($B/surfer-dump "$T/w.mp" | grep '"type":"kernel"' | sed 's/.*"name":"\([^"]*\)".*/\1/' | sort -u | tr '\n' ' ')
	[ "$names" = "iter_2 iter_3 " ] && pass "windows: iter_2 and iter_3 only" || fail "windows: got '$names'"
	its=$($B/surfer-dump "$T/w.mp" | grep '"type":"kernel"' | sed 's/.*"iteration":\([-0-9]*\).*/\1/' | sort -u | tr '\n' ' ')
	[ "$its" = "2 3 " ] && pass "windows: iteration numbers" || fail "windows: iterations '$its'"
fi

# 7. SURFER_DISABLE=1 writes nothing and changes nothing.
if run disabled 4 SURFER_DISABLE=1 SURFER_OUTPUT="$T/no.mp" -- $B/tests/shim_runtime basic 4; then
	[ ! -e "$T/no.mp" ] && pass "disabled: no trace" || fail "disabled: a trace was written"
fi

# 7a. The switches read words too: SURFER_DISABLE=true records nothing; a
#     word that is no switch is reported once and leaves the default.
if run disabled-word 4 SURFER_DISABLE=True SURFER_OUTPUT="$T/no2.mp" -- $B/tests/shim_runtime basic 4; then
	[ ! -e "$T/no2.mp" ] && pass "disabled: SURFER_DISABLE=True, no trace" || fail "disabled: SURFER_DISABLE=True wrote a trace"
fi
if run disabled-bad 4 SURFER_DISABLE=maybe SURFER_TIMING=events SURFER_OUTPUT="$T/no3.mp" -- $B/tests/shim_runtime basic 4; then
	if [ -s "$T/no3.mp" ] && [ "$(grep -c "ignoring SURFER_DISABLE='maybe'" "$T/disabled-bad.err")" -eq 1 ]; then
		pass "disabled: SURFER_DISABLE=maybe reported, recorded"
	else
		fail "disabled: SURFER_DISABLE=maybe"; cat "$T/disabled-bad.err"
	fi
fi

# 7b. A process that uses no CUDA (the shells and compilers a program runs)
#     writes no trace.
mkdir -p "$T/nocuda"
case "$SHIM" in /*) abs_shim=$SHIM ;; *) abs_shim=$(pwd)/$SHIM ;; esac # BUILD may be absolute
abs_pre=$(echo "$PRE" | sed "s|$SHIM|$abs_shim|")
(cd "$T/nocuda" && LD_PRELOAD="$abs_pre" cat /dev/null)
st=$?
n=$(ls "$T/nocuda" | wc -l)
[ "$st" -eq 0 ] && [ "$n" -eq 0 ] && pass "no CUDA: no trace" || fail "no CUDA: exit $st, $n files"

# 8. An unwritable output: one warning, the program's result unchanged.
if run unwritable 6 SURFER_OUTPUT="$T/missing/dir/x.mp" -- $B/tests/shim_runtime basic 6; then
	n=$(grep -c '^libsurfer:' "$T/unwritable.err")
	[ "$n" -eq 1 ] && pass "unwritable: one warning" || { fail "unwritable: $n warnings"; cat "$T/unwritable.err"; }
fi

# 8b. A full disk (/dev/full): one warning, the program's result unchanged.
if [ -w /dev/full ] && run full-disk 0 SURFER_TIMING=events SURFER_OUTPUT=/dev/full -- $B/tests/shim_runtime threads 2 3000; then
	n=$(grep -c '^libsurfer:' "$T/full-disk.err")
	[ "$n" -eq 1 ] && pass "full disk: one warning" || { fail "full disk: $n warnings"; cat "$T/full-disk.err"; }
fi

# 9. SIGTERM flushes: the trace reads back complete, the signal still kills.
rm -f "$T/fake.log" "$T/ready"
env FAKE_CUDA_LOG="$T/fake.log" LD_LIBRARY_PATH="$B/tests" LD_PRELOAD="$PRE" SURFER_TIMING=events \
	SURFER_OUTPUT="$T/sig.mp" $B/tests/shim_runtime hang 40 >"$T/ready" 2>"$T/sig.err" &
pid=$!
i=0
while ! grep -q ready "$T/ready" 2>/dev/null && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
kill -TERM $pid
wait $pid 2>/dev/null
st=$?
[ "$st" -eq 143 ] && pass "sigterm: killed by SIGTERM" || fail "sigterm: exit status $st"
check sigterm "$T/sig.mp" --kernels 40 --no-durations

# 10. SURFER_STACKS=1: every kernel carries a stack that the trace defines.
#     libunwind is opened then, not linked (test 14).  (Not under
#     ThreadSanitizer: libunwind's thread-exit destructor crashes inside its
#     runtime.)
case "$SANITIZE" in thread*) echo "skip - stacks under ThreadSanitizer" ;; *) false ;; esac ||
if run stacks 0 SURFER_TIMING=events SURFER_STACKS=1 SURFER_OUTPUT="$T/st.mp" -- $B/tests/shim_runtime basic; then
	check stacks "$T/st.mp" --kernels 8 --stacks
	if $B/surfer-dump "$T/st.mp" | grep '"type":"stack"' | grep -q 'shim_runtime'; then
		pass "stacks: frames symbolized"
	else
		fail "stacks: frames symbolized"
	fi
fi

# 11. The real cuBLASLt, cuBLAS and cuDNN through the interposed entry
#     points: statuses unchanged, one record per call with the shapes the
#     program set (see tests/shim_libs.c).
if [ -x $B/tests/shim_libs ]; then
	$B/tests/shim_libs >"$T/libs.plain" 2>&1
	if run libs 0 SURFER_OUTPUT="$T/libs.mp" -- $B/tests/shim_libs; then
		cmp -s "$T/libs.plain" "$T/libs.out" && pass "libs: statuses unchanged" || fail "libs: statuses differ"
		$B/surfer-dump "$T/libs.mp" >"$T/libs.json" 2>&1
		for want in \
			'"type":"gemm","seq":[0-9]*,"api":"lt_matmul","m":128,"n":32,"k":64,"batch":1,"trans_a":"T","trans_b":"N","a_type":"bf16","b_type":"bf16","c_type":"bf16","compute_type":"tf32","epilogue":4,' \
			'"type":"gemm","seq":[0-9]*,"api":"sgemm","m":10,"n":20,"k":30,"batch":1,"trans_a":"N","trans_b":"T","a_type":"f32",' \
			'"type":"conv","seq":[0-9]*,"api":"backend","dir":"fwd","nbdims":4,"in":\[8,3,32,32\],"filt":\[16,3,5,5\],"out":\[8,16,28,28\],"stride":\[1,1\],"pad":\[0,0\],"dilation":\[1,1\],"groups":1,"dtype":"f16","compute_type":"f32"' \
			'"type":"conv","seq":[0-9]*,"api":"v7","dir":"fwd","nbdims":4,"in":\[4,8,16,16\],"filt":\[6,4,3,3\],"out":\[4,6,8,8\],"stride":\[2,2\],"pad":\[1,1\],"dilation":\[1,1\],"groups":2,"dtype":"f32"' \
			'"type":"conv","seq":[0-9]*,"api":"v7","dir":"bwd_data","nbdims":4,"in":\[4,8,16,16\],"filt":\[6,4,3,3\],"out":\[4,6,8,8\],"stride":\[2,2\],"pad":\[1,1\],"dilation":\[1,1\],"groups":2,"dtype":"f32"' \
			'"type":"conv","seq":[0-9]*,"api":"v7","dir":"bwd_filter","nbdims":4,"in":\[4,8,16,16\],"filt":\[6,4,3,3\],"out":\[4,6,8,8\],"stride":\[2,2\],"pad":\[1,1\],"dilation":\[1,1\],"groups":2,"dtype":"f32"'; do
			grep -q "$want" "$T/libs.json" || { fail "libs: no record matching $want"; }
		done
		n=$(grep -c '"type":"\(gemm\|conv\)"' "$T/libs.json")
		[ "$n" -eq 6 ] && pass "libs: six library records" || fail "libs: $n library records"
	fi
else
	echo "skip - libs: cuBLASLt/cuDNN not in the toolkit"
fi

# 11'. A cuDNN plan made from heuristics results (fake libcudnn; the cuDNN
#      frontend's way, PyTorch's): the two configs the heuristics filled give
#      one CONV record each, with the graph's shapes, and their kernels carry
#      its seq; the third config asked for (not filled) and one never asked
#      about give none, their kernels linked to nothing.
if [ -x $B/tests/shim_cudnn ]; then
	if run cudnn 0 SURFER_TIMING=events SURFER_OUTPUT="$T/cd.mp" LD_LIBRARY_PATH="$B/tests:$B/tests/fakecudnn" \
		-- $B/tests/shim_cudnn; then
		got=$($B/surfer-dump "$T/cd.mp" | awk '
			/"type":"conv"/ { match($0, /"seq":[0-9]+/); c[substr($0, RSTART + 6, RLENGTH - 6)] = 1; nc++
				if ($0 !~ /"dir":"fwd","nbdims":4,"in":\[16,64,56,56\],"filt":\[128,64,3,3\],"out":\[16,128,28,28\],"stride":\[2,2\],"pad":\[1,1\],"dilation":\[1,1\],"groups":1,"dtype":"f32"/) bad++ }
			/"type":"kernel"/ { match($0, /"lib_call":[0-9]+/); l = substr($0, RSTART + 11, RLENGTH - 11)
				k++; if (k <= 2) { if (!(l in c)) bad++ } else if (l != 0) bad++ }
			END { printf "%d %d %d", nc, k, bad + 0 }')
		[ "$got" = "2 4 0" ] && pass "cudnn: plans from heuristics recorded, kernels linked" ||
			fail "cudnn: conv records, kernels, errors '$got' (want '2 4 0')"
		grep -q "plans 0 0 0 0" "$T/cudnn.out" && pass "cudnn: statuses unchanged" || fail "cudnn: statuses"
	fi
	# a plan run into a graph captured before the recorded window: its
	# CONV record and captured kernel recorded all the same, the replay in
	# the window naming that capture
	if run cudnn-capture 0 SURFER_TIMING=events SURFER_SKIP=1 SURFER_ITERATIONS=1 SURFER_OUTPUT="$T/cdc.mp" \
		LD_LIBRARY_PATH="$B/tests:$B/tests/fakecudnn" -- $B/tests/shim_cudnn capture; then
		if $B/surfer-dump "$T/cdc.mp" | python3 -c '
import json, sys
recs = list(map(json.loads, sys.stdin))
convs = [r for r in recs if r["type"] == "conv"]
ks = [r for r in recs if r["type"] == "kernel"]
cap = [r for r in ks if r["flags"] & 4]
assert len(convs) == 1 and [(r["name"], r["lib_call"]) for r in cap] == [("conv_fake_kernel", convs[0]["seq"])], (convs, cap)
g = cap[0].get("graph")
assert g and [(r["name"], r.get("graph")) for r in ks if r["flags"] & 2] == [("cuGraphLaunch", g)], ks
'; then pass "cudnn-capture: a plan captured before the window is recorded"
		else fail "cudnn-capture: a plan captured before the window is recorded"; fi
	fi
else
	echo "skip - cudnn: built without cuDNN's headers"
fi

# 12. Library calls that launch kernels, with cuBLAS calling cuBLASLt inside
#     (fake libraries): one GEMM record per user call, each of its two
#     kernels carries its seq, the kernel outside carries none.
if run nested 0 SURFER_TIMING=events SURFER_OUTPUT="$T/n.mp" LD_LIBRARY_PATH="$B/tests:$B/tests/fakelib" \
	-- $B/tests/shim_nested; then
	check nested "$T/n.mp" --kernels 5 --timing events
	got=$($B/surfer-dump "$T/n.mp" | awk '
		/"type":"gemm"/ { match($0, /"seq":[0-9]+/); g[substr($0, RSTART + 6, RLENGTH - 6)] = 1; ng++ }
		/"type":"kernel"/ { match($0, /"lib_call":[0-9]+/); l = substr($0, RSTART + 11, RLENGTH - 11)
			match($0, /"name":"[a-z_]+"/); n = substr($0, RSTART + 8, RLENGTH - 9)
			if (n == "outside_kernel") { if (l != 0) bad++ } else if (!(l in g)) bad++; else per[l]++ }
		END { for (k in per) if (per[k] != 2) bad++; printf "%d %d", ng, bad + 0 }')
	[ "$got" = "2 0" ] && pass "nested: kernels linked to their GEMM" || fail "nested: gemm count and errors '$got'"
fi

# 12'. Every cuBLAS/cuBLASLt GEMM entry point (fake libraries): statuses and
#      errno pass through (shim_cublas checks), and each call, a failing one
#      too, is one GEMM record with the API, shape, transposes, batch and
#      types it was called with (cuBLASLt's shape comes from descriptors the
#      fake cannot describe: unknown).
if run cublas 0 SURFER_TIMING=events SURFER_OUTPUT="$T/bl.mp" LD_LIBRARY_PATH="$B/tests:$B/tests/fakelib" \
	-- $B/tests/shim_cublas; then
	pass "cublas: statuses and errno unchanged"
	$B/surfer-dump "$T/bl.mp" >"$T/bl.json" 2>&1
	if python3 - "$T/bl.json" <<'PY'
import json, sys
g = [tuple(r[f] for f in ("api", "m", "n", "k", "batch", "trans_a", "trans_b", "a_type", "b_type",
                          "c_type", "compute_type"))
     for r in map(json.loads, open(sys.argv[1])) if r["type"] == "gemm"]
want = [("sgemm", 10, 20, 30, 1, "N", "T", "f32", "f32", "f32", "f32"),
        ("dgemm", 11, 21, 31, 1, "T", "N", "f64", "f64", "f64", "f64"),
        ("hgemm", 12, 22, 32, 1, "N", "N", "f16", "f16", "f16", "f16"),
        ("gemmex", 13, 23, 33, 1, "C", "N", "bf16", "bf16", "f32", "tf32"),
        ("sgemm_strided_batched", 14, 24, 34, 2, "N", "N", "f32", "f32", "f32", "f32"),
        ("dgemm_strided_batched", 15, 25, 35, 3, "T", "T", "f64", "f64", "f64", "f64"),
        ("hgemm_strided_batched", 16, 26, 36, 4, "N", "T", "f16", "f16", "f16", "f16"),
        ("gemm_strided_batched_ex", 17, 27, 37, 5, "T", "N", "f16", "f16", "f16", "f16"),
        ("gemm_batched_ex", 18, 28, 38, 6, "N", "N", "f8e4m3", "f8e4m3", "bf16", "f32"),
        ("lt_matmul", 0, 0, 0, 1, "N", "N", "unknown", "unknown", "unknown", "unknown")]
assert g == want, "\n".join(map(str, g))
PY
	then pass "cublas: a GEMM record per call"; else fail "cublas: a GEMM record per call"; fi
fi

# 12a. NCCL: one OP record per collective (a group summed at its end), with
#     the communicator's size and rank from NCCL; the kernels NCCL launched
#     carry its seq; the fake's error result (broadcast) comes back as is.
#     Expected bytes, by hand: all-reduce 1000 x 4; all-gather 256 x 2 x 4
#     ranks; broadcast 10 x 1; reduce-scatter group 2 x 128 x 2 x 4;
#     all-to-all 4 peers x 100 x 4; send/recv 64; reduce 50 x 4;
#     ncclAlltoAll 25 x 4 to each of 4 ranks.  Errno passes through both
#     ways (shim_nccl checks).
if run nccl 0 SURFER_TIMING=events SURFER_OUTPUT="$T/nc.mp" LD_LIBRARY_PATH="$B/tests:$B/tests/fakelib" \
	-- $B/tests/shim_nccl; then
	pass "nccl: results unchanged"
	got=$($B/surfer-dump "$T/nc.mp" | awk '
		/"type":"op"/ { match($0, /"seq":[0-9]+/); s = substr($0, RSTART + 6, RLENGTH - 6)
			match($0, /"collective":"[a-z_]+"/); c = substr($0, RSTART + 14, RLENGTH - 15)
			match($0, /"bytes":[0-9.e+]+/); b = substr($0, RSTART + 8, RLENGTH - 8) + 0
			match($0, /"ranks":[0-9]+/); n = substr($0, RSTART + 8, RLENGTH - 8)
			match($0, /"rank":-?[0-9]+/); r = substr($0, RSTART + 7, RLENGTH - 7)
			op[s] = 1; out = out c ":" b ":" n ":" r " " }
		/"type":"kernel"/ { match($0, /"lib_call":[0-9]+/); l = substr($0, RSTART + 11, RLENGTH - 11)
			if (!(l in op)) bad++; nk++ }
		END { printf "%s| %d %d", out, nk, bad + 0 }')
	want="all_reduce:4000:4:1 all_gather:2048:4:1 broadcast:10:4:1 reduce_scatter:2048:4:1 all_to_all:1600:4:1 send_recv:64:4:1 reduce:200:4:1 all_to_all:400:4:1 | 8 0"
	[ "$got" = "$want" ] && pass "nccl: records and kernel links" || fail "nccl: got '$got', want '$want'"
fi

# 12b. The hook tables are indexed by their enums and resolve.c walks each to
#     its empty end entry: an index without its entry would cut the walk
#     short and leave every later hook unwrapped.
for f in preload/hooks_cuda.c preload/hooks_cublas.c preload/hooks_cudnn.c preload/hooks_nccl.c; do
	ids=$(awk '/^enum \{/ { e = 1; s = "" } e { s = s $0 } e && /^\};/ { e = 0; if (s ~ /_COUNT/) print s }' "$f" |
		grep -ow 'H[KBDN]_[A-Z0-9_]*' | grep -v '_COUNT$' | sort)
	[ "$f" = preload/hooks_cuda.c ] && ids=$(printf '%s\nPRELOAD_HK_GETPROC\nPRELOAD_HK_GETPROC_V2' "$ids" | sort)
	have=$(sed -n 's/^	\[\([A-Z0-9_]*\)\] = \(E\|EV\|PRELOAD_LIB_HOOK\)(.*/\1/p' "$f" | sort)
	if [ -n "$ids" ] && [ "$ids" = "$have" ]; then
		pass "hook table of $f: an entry per index"
	else
		fail "hook table of $f: indices without entries: $(printf '%s\n' "$ids" | grep -vxF "$have" | tr '\n' ' ')"
	fi
done

# 13. What the shim exports: the hooks and nothing else.
exp=$(nm -D --defined-only "$SHIM" | awk '{print $3}' | sort | tr '\n' ' ')
bad=$(echo "$exp" | tr ' ' '\n' | grep -v -E '^(cu[A-Za-z0-9_]+|nccl[A-Za-z]+|dlsym|dlvsym)?$' | tr '\n' ' ')
if [ -z "$bad" ]; then pass "nm -D: only hooks exported"; else fail "nm -D: also exports $bad"; fi
for s in dlsym dlvsym cuGetProcAddress cuGetProcAddress_v2 cuLaunchKernel cuLaunchKernel_ptsz \
	cuLaunchKernelEx cuLaunchKernelEx_ptsz cuLaunchCooperativeKernel cuLaunchCooperativeKernel_ptsz \
	cuGraphLaunch cuGraphLaunch_ptsz; do
	case " $exp" in *" $s "*) ;; *) fail "nm -D: $s not exported" ;; esac
done

# 14. What the shim needs: no unwinder.  libunwind linked in would put its
#     _Unwind_* ahead of libgcc_s's in the host's global scope and take over
#     every C++ exception (stacks.c opens it RTLD_LOCAL instead, test 10).
needed=$(readelf -d "$SHIM" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
case "$needed" in
"") fail "readelf -d: no NEEDED entries read" ;;
*unwind*|*gcc_s*) fail "readelf -d: the shim needs an unwinder ($needed)" ;;
*) pass "readelf -d: no unwinder among $needed" ;;
esac

echo "shim_test: $fails failed"
[ "$fails" -eq 0 ]
