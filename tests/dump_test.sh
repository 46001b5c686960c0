#!/bin/sh
# dump_test.sh - runs surfer-dump on traces written by tests/mktrace and
# checks its JSON lines (with python3) and exit codes.  The expected values
# are those mktrace.c writes, restated here by hand.
set -u
B=${BUILD:-build}
DUMP=$B/surfer-dump
MK=$B/tests/mktrace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "dump_test: FAIL: $*"
	exit 1
}

command -v python3 >/dev/null 2>&1 || fail "python3 is needed to check the JSON output"

"$MK" "$tmp/t.mp" || fail "mktrace failed"
"$DUMP" "$tmp/t.mp" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || fail "complete trace: exit $rc"
[ -s "$tmp/err" ] && fail "complete trace: unexpected stderr: $(cat "$tmp/err")"

python3 - "$tmp/out" <<'EOF' || fail "JSON content of the complete trace"
import json, sys
recs = [json.loads(line) for line in open(sys.argv[1])]
types = [r["type"] for r in recs]
assert types == ["header", "stack", "marker", "gemm", "kernel", "kernel", "conv",
                 "memcpy", "memset", "sync", "kernel", "marker", "trailer"], types
h = recs[0]
assert h["device"]["name"] == "NVIDIA H100 80GB HBM3", h
assert h["device"]["cc_major"] == 9 and h["device"]["sm_count"] == 132, h
assert h["version"] == "1.12" and h["world_size"] == 0 and h["power_limit_w"] == 0 and h["pid"] == 4242 and h["timing"] == "synthetic", h
assert h["cmdline"] == "python train.py --steps 2", h
st = recs[1]
assert st["id"] == 7 and st["frames"] == ["libtorch.so+0x10 at::mm+0x4"], st
m = recs[2]
assert m["kind"] == "iteration" and m["name"] == "step" and m["iteration"] == 0, m
g = recs[3]
assert (g["m"], g["n"], g["k"], g["batch"]) == (4096, 1024, 512, 1), g
assert g["api"] == "lt_matmul" and g["trans_a"] == "T" and g["trans_b"] == "N", g
assert g["a_type"] == "bf16" and g["compute_type"] == "f32", g
k = recs[4]
assert k["name"] == "sm90_xmma_gemm_bf16", k
assert k["grid"] == [128, 8, 1] and k["block"] == [256, 1, 1] and k["cluster"] == [2, 1, 1], k
assert k["stream"] == 7 and k["regs"] == 168 and k["dyn_smem"] == 232448, k
assert k["start_ns"] == 5000 and k["end_ns"] == 5750 and k["duration_ns"] == 750, k
assert k["lib_call"] == 2 and k["stack"] == 7 and k["flags"] == 16, k
k = recs[5]
assert k["name"] == "relu_kernel" and k["grid"] == [1024, 1, 1], k
assert "duration_ns" not in k and "start_ns" not in k and "end_ns" not in k, k
k = recs[10]
assert k["duration_ns"] == 40 and k["iteration"] == 1, k
c = recs[6]
assert c["dir"] == "bwd_data" and c["api"] == "v7" and c["nbdims"] == 4, c
assert c["in"] == [32, 64, 56, 56] and c["filt"] == [128, 64, 3, 3], c
assert c["out"] == [32, 128, 56, 56] and c["pad"] == [1, 1] and c["stride"] == [1, 1], c
assert c["dtype"] == "f16", c
mc = recs[7]
assert mc["kind"] == "htod" and mc["bytes"] == 1048576 and mc["async"] is True, mc
assert mc["duration_ns"] == 100 and mc["host_mem"] == "pinned", mc
ms = recs[8]
assert ms["bytes"] == 4096 and "kind" not in ms and "duration_ns" not in ms, ms
assert ms["host_mem"] == "unknown", ms
s = recs[9]
assert s["kind"] == "stream" and s["cpu_end_ns"] == 7000, s
m = recs[11]
assert m["kind"] == "capture_stop" and m["name"] is None and m["iteration"] == -1, m
t = recs[12]
assert t["counts"]["kernel"] == 3 and t["counts"]["string"] == 4, t
assert t["counts"]["marker"] == 2 and t["dropped"] == 0, t
EOF

# Standard input gives the same output.
"$DUMP" - <"$tmp/t.mp" >"$tmp/out2" 2>/dev/null || fail "stdin: nonzero exit"
cmp -s "$tmp/out" "$tmp/out2" || fail "stdin output differs"

# --no-header drops the first line only; --strings adds the table.
"$DUMP" --no-header "$tmp/t.mp" >"$tmp/nh" || fail "--no-header: nonzero exit"
tail -n +2 "$tmp/out" | cmp -s - "$tmp/nh" || fail "--no-header output"
"$DUMP" --strings "$tmp/t.mp" >"$tmp/st" || fail "--strings: nonzero exit"
python3 - "$tmp/st" <<'EOF' || fail "--strings content"
import json, sys
recs = [json.loads(line) for line in open(sys.argv[1])]
strs = {r["id"]: r["value"] for r in recs if r["type"] == "string"}
assert strs == {1: "sm90_xmma_gemm_bf16", 2: "relu_kernel", 3: "step",
                4: "libtorch.so+0x10 at::mm+0x4"}, strs
EOF

# A truncated trace: what it holds, a warning, exit 0.
"$MK" --truncated "$tmp/tr.mp" || fail "mktrace --truncated failed"
"$DUMP" "$tmp/tr.mp" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || fail "truncated trace: exit $rc"
[ "$(cat "$tmp/err")" = "surfer-dump: warning: '$tmp/tr.mp': truncated after 10 records" ] ||
	fail "truncated trace: stderr '$(cat "$tmp/err")'"
[ "$(wc -l <"$tmp/out")" -eq 11 ] || fail "truncated trace: $(wc -l <"$tmp/out") lines, want 11"
head -n 11 "$tmp/out" | tail -n 1 | grep -q '"type":"kernel","seq":9' || fail "truncated trace: last record"

# An empty file is a trace truncated before its header.
: >"$tmp/empty.mp"
"$DUMP" "$tmp/empty.mp" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$tmp/out" ] || fail "empty file: exit $rc"
grep -q "truncated after 0 records" "$tmp/err" || fail "empty file: stderr '$(cat "$tmp/err")'"

# Missing, garbage and corrupt input: exit 2 and one line on stderr.
check_bad() {
	"$DUMP" "$1" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] || fail "$2: exit $rc, want 2"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "$2: stderr is not one line"
	grep -q "^surfer-dump: cannot read '$1': $3" "$tmp/err" || fail "$2: stderr '$(cat "$tmp/err")'"
}
check_bad "$tmp/missing.mp" "missing file" "No such file or directory"
printf 'this is not a trace\n' >"$tmp/garbage.mp"
check_bad "$tmp/garbage.mp" "garbage" "not a surfer trace"
# The complete trace with its last byte (the trailer's dropped count)
# replaced by 0xc1, a byte msgpack never uses.
size=$(wc -c <"$tmp/t.mp")
head -c $((size - 1)) "$tmp/t.mp" >"$tmp/bad.mp"
printf '\301' >>"$tmp/bad.mp"
check_bad "$tmp/bad.mp" "corrupt trailer" "at byte"

# Options.
"$DUMP" --help >/dev/null || fail "--help: nonzero exit"
"$DUMP" --version | grep -q "^surfer-dump " || fail "--version"
"$DUMP" --bogus "$tmp/t.mp" >/dev/null 2>&1
[ $? -eq 2 ] || fail "an unknown option should exit 2"
echo "dump_test: ok"
