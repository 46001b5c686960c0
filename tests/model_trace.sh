#!/bin/sh
# model_trace.sh - one timeline for a model and a trace: surfer-analyze
# --model ... --write-trace FILE writes the built program as a surfer trace,
# and analyzing FILE predicts the iteration the model path predicted, on
# every GPU surfer knows (within 0.1 %), for training (DDP, ZeRO 3, pipeline
# stages), inference, decode and generate, with FlashAttention kernels too
# (and a serving engine's sliding window); --chrome-trace, --html and --csv
# work with --model.  The JSON checks need python3 (skipped without it).
. "$(dirname "$0")/lib.sh"
BIN="$B/surfer-analyze"
DUMP="$B/surfer-dump"
test_tmp model_trace

if ! command -v python3 >/dev/null 2>&1; then
	echo "model_trace: skipped (no python3)"
	exit 0
fi

# same_times NAME ARGS...: the model's prediction and its written trace's
# on every target.
same_times() {
	name=$1
	shift
	"$BIN" --model "$@" --all-targets --json --write-trace "$tmp/$name.mp" >"$tmp/$name.model.json" \
		2>"$tmp/err"
	check "$name: --write-trace exits 0 ($(cat "$tmp/err"))" $?
	"$BIN" "$tmp/$name.mp" --all-targets --json >"$tmp/$name.trace.json" 2>"$tmp/err"
	check "$name: the written trace analyzes ($(cat "$tmp/err"))" $?
	python3 - "$tmp/$name.model.json" "$tmp/$name.trace.json" <<'PY'
import json, sys
m, t = (json.load(open(p)) for p in sys.argv[1:3])
pm = {p["target"]: p for p in m["predictions"]}
pt = {p["target"]: p for p in t["predictions"]}
# (--all-targets leaves out the GPUs a model run refuses: BF16 without
# BF16 units; the trace is predicted on all of them)
assert len(pm) > 20 and set(pm) <= set(pt), (len(pm), set(pm) - set(pt))
for g in pm:
    a, b = pm[g]["iteration_ms"], pt[g]["iteration_ms"]
    assert a > 0 and abs(a - b) <= 1e-3 * a, (g, a, b)
    assert abs(pm[g]["kernel_ms"] - pt[g]["kernel_ms"]) <= 1e-3 * pm[g]["kernel_ms"], g
PY
	check "$name: the trace predicts the model's iteration on every target" $?
}

same_times ddp gpt2 --mode training --batch 2 --seq 128 --dp 4 --optimizer adamw
same_times zero3 gpt2 --mode training --batch 2 --seq 128 --dp 8 --zero 3 --optimizer adamw
# boards capped below their TDP: the header carries the cap (GPUs whose TDP
# is below it are left out of the model's --all-targets)
same_times capped gpt2 --mode training --batch 2 --seq 128 --dp 2 --dtype bf16 --optimizer adamw \
	--power-limit 250
same_times pp gpt2-medium --mode training --batch 8 --seq 256 --pp 4 --microbatches 8 --dp 2
same_times inference bert-base --batch 4 --seq 256 --head classify
same_times decode llama-3-8b --mode decode --batch 8 --seq 1024 --dtype bf16 --tp 2
same_times generate gpt2 --mode generate --batch 2 --seq 64 --new-tokens 8
# FlashAttention kernels described by their shape (trace format 1.3):
# training (forward and backward) and a generate's decode steps
same_times flash_train llama-3-8b --mode training --batch 1 --seq 512 --dtype bf16 --attention flash
# training stacks: gradient accumulation, recompute, FP8, fused kernels, CUDA graphs
same_times stack_te llama-3.2-1b --mode training --batch 1 --seq 512 --dtype bf16 \
	--attention flash --stack te --act-ckpt full --grad-accum 3 --dp 4 --zero 1 --optimizer adamw-fused
same_times stack_compile gpt2 --mode training --batch 2 --seq 128 --dtype bf16 --stack compile \
	--cuda-graphs --act-ckpt selective --grad-accum 2 --dp 8 --zero 3 --optimizer adamw
same_times flash_generate llama-3-8b --mode generate --batch 4 --seq 256 --new-tokens 4 --dtype bf16 \
	--attention flash --tp 2
# a serving engine's sliding window (format 1.7): Gemma 2's local layers
# attend to 4096 keys, the 6000-token prompt's later queries and the decode
# step's cache beyond it
same_times engine_window gemma-2-2b --engine sglang --dtype bf16 --mode prefill --prompt-lens 6000,300
same_times engine_window_decode gemma-2-2b --engine vllm --dtype bf16 --mode decode --context-lens 6000,300
"$DUMP" "$tmp/engine_window.mp" | grep -q '"attn_window":4096'
check "the written engine trace carries the local layers' window" $?

# What a recorder would have written: one operator record per kernel, no
# GPU times, a timing that says no GPU ran it, the DDP buckets on a second
# stream after an event, the pipeline's bubble as peer work.
"$DUMP" "$tmp/ddp.mp" >"$tmp/ddp.jsonl" 2>"$tmp/err"
check "surfer-dump reads the written trace ($(cat "$tmp/err"))" $?
python3 - "$tmp/ddp.jsonl" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert recs[0]["type"] == "header" and recs[0]["timing"] == "built", recs[0]
kernels = [r for r in recs if r["type"] == "kernel"]
ops = {r["seq"]: r for r in recs if r["type"] == "op"}
assert kernels and all(k["lib_call"] in ops for k in kernels)
assert all(k.get("start_ns", 0) == 0 for k in kernels)
side = [k for k in kernels if k["stream"] == 2]
assert side and all(ops[k["lib_call"]]["kind"] == "comm" for k in side), len(side)
assert any(r["type"] == "sync" and r["kind"] == "stream_wait_event" for r in recs)
# its 4 data-parallel GPUs wait for each other: the step's world size
assert recs[0]["world_size"] == 4, recs[0]
PY
check "the written DDP trace: operator records, no GPU times, buckets after an event, world size 4" $?
# a pipeline of dp 2 x pp 4 is 8 GPUs; inference on one, and a served
# engine, none
"$DUMP" "$tmp/pp.mp" | head -1 | grep -q '"world_size":8'
check "the written pipeline trace's world size is dp x pp = 8" $?
"$DUMP" "$tmp/capped.mp" | head -1 | grep -q '"power_limit_w":250'
check "the written trace of a capped run carries --power-limit 250" $?
"$BIN" --model gpt2 --batch 1 --seq 64 --tp 2 -t a100 --write-trace "$tmp/inf.mp" >/dev/null 2>"$tmp/err"
check "--write-trace of a tp 2 inference exits 0 ($(cat "$tmp/err"))" $?
"$DUMP" "$tmp/inf.mp" | head -1 | grep -q '"world_size":0'
check "an inference pass is not paced by its tensor-parallel peers" $?
"$DUMP" "$tmp/pp.mp" | grep -c '"flags":32' >"$tmp/peers"
# pp 4: three microbatches of peer work before the stage's eight
python3 - "$tmp/pp.mp" "$tmp/peers" "$tmp/pp.model.json" <<'PY'
import json, sys
peers = int(open(sys.argv[2]).read())
kernels = json.load(open(sys.argv[3]))["origin"]["kernels"]
assert peers > 0 and kernels > 8 * peers // 3, (peers, kernels)
PY
check "pp 4: the bubble is written as peer work" $?

# --chrome-trace with --model: one kernel event per launch on each
# target's lane (no measured lane), the last ending with the iteration.
"$BIN" --model gpt2 --batch 1 --seq 128 -t a100 -t h100 --json --chrome-trace "$tmp/c.json" \
	>"$tmp/c.report.json" 2>"$tmp/err"
check "--chrome-trace with --model exits 0 ($(cat "$tmp/err"))" $?
python3 - "$tmp/c.json" "$tmp/c.report.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
rep = json.load(open(sys.argv[2]))
launches = rep["origin"]["kernels"]
assert not [e for e in ev if e.get("pid") == 1], "a measured lane"
for lane, p in enumerate(rep["predictions"], start=2):
    k = [e for e in ev if e.get("pid") == lane and e.get("ph") == "X" and e.get("cat") == "kernel"]
    assert len(k) == launches, (lane, len(k), launches)
    end_ms = max(e["ts"] + e["dur"] for e in k) / 1e3
    assert abs(end_ms - p["iteration_ms"]) <= 1e-3 * p["iteration_ms"], (end_ms, p["iteration_ms"])
PY
check "--chrome-trace: every launch on each target's lane, ending with the iteration" $?

# --html and --csv with --model: written, the CSV's rows of each target
# sum to its predicted kernel time plus its collectives.
"$BIN" --model gpt2 --batch 2 --seq 128 --mode training --dp 2 -t a100 --json --top 0 \
	--html "$tmp/m.html" --csv "$tmp/m.csv" >"$tmp/h.json" 2>/dev/null
check "--html and --csv with --model exit 0" $?
grep -q '</html>' "$tmp/m.html" && grep -q 'a100' "$tmp/m.html"
check "--html with --model: a whole document naming the target" $?
python3 - "$tmp/m.csv" "$tmp/h.json" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
p = json.load(open(sys.argv[2]))["predictions"][0]
total = sum(float(r["predicted_ms"]) for r in rows)
comm = sum(float(r["predicted_ms"]) for r in rows if r["op"] == "comm")
assert comm > 0 and abs(total - comm - p["kernel_ms"]) <= 1e-3 * p["kernel_ms"] + 1e-5, (total, comm, p)
PY
check "--csv with --model: rows sum to the kernel time and the collectives" $?

# --write-trace that cannot be written, or without --model: exit 2, one line.
for args in "--model gpt2 -t a100 --write-trace $tmp/no/such/dir/x.mp" "-t a100 --write-trace $tmp/x.mp"; do
	# shellcheck disable=SC2086
	"$BIN" $args >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q '^surfer-analyze: ' "$tmp/err"
	check "surfer-analyze $args: exit 2 with one line (got $rc: $(cat "$tmp/err"))" $?
done

finish "model_trace"
