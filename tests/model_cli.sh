#!/bin/sh
# model_cli.sh - surfer-analyze --model: the README command runs well under
# a second with one prediction per target, a faster GPU is predicted
# faster, collectives appear apart, and bad input exits 2 with one line.
. "$(dirname "$0")/lib.sh"
BIN="$B/surfer-analyze"
test_tmp model_cli

t0=$(date +%s%N)
"$BIN" --model gpt2-large --batch 2 --seq 1024 --mode training --target a100 --target h100 \
	--json >"$tmp/out.json" 2>"$tmp/err"
rc=$?
t1=$(date +%s%N)
check "README command exits 0 (got $rc: $(cat "$tmp/err"))" $rc
ms=$(( (t1 - t0) / 1000000 ))
limit=1000
[ -n "$SANITIZE" ] && limit=20000
[ $ms -lt $limit ]; check "README command takes $ms ms (limit $limit)" $?
a100=$(grep -A3 '"target": "a100' "$tmp/out.json" | sed -n 's/.*"iteration_ms": \([0-9.e+]*\).*/\1/p')
h100=$(grep -A3 '"target": "h100' "$tmp/out.json" | sed -n 's/.*"iteration_ms": \([0-9.e+]*\).*/\1/p')
[ -n "$a100" ] && [ -n "$h100" ]; check "two predictions in the JSON (a100 '$a100', h100 '$h100')" $?
awk -v a="$a100" -v h="$h100" 'BEGIN { exit !(h > 0 && a > h) }'
check "H100 predicted faster than A100 ($h100 < $a100 ms)" $?
# gpt2-large training of 2 x 1024 tokens is at least 6 * 774M * 2048 FLOPs
# (forward + backward) = 9.5 PFLOP: more than 9.5e15 / 19.5e12 s = 488 ms at
# the A100's FP32 peak.
awk -v a="$a100" 'BEGIN { exit !(a > 488) }'
check "A100 prediction $a100 ms above the FP32 peak bound 488 ms" $?

# Memory: its weights and gradients alone are 2 x 774M x 4 bytes = 5.8 GiB;
# the estimate fits both GPUs at this batch and says so in the JSON, and
# four times the batch (its activations four times as large) no longer
# fits the A100 40GB: a warning, and exit 0 still.
peak=$(sed -n 's/.*"peak_gib": \([0-9.e+]*\).*/\1/p' "$tmp/out.json")
awk -v p="$peak" 'BEGIN { exit !(p > 5.8 && p < 40) }'
check "peak memory $peak GiB between the state (5.8) and the A100's 40" $?
[ "$(grep -c '"memory_fits": true' "$tmp/out.json")" -eq 2 ]
check "both targets fit ($(grep -c '"memory_fits"' "$tmp/out.json") memory_fits)" $?
# The largest batch said to fit the A100 fits it, one more does not.
mb=$(grep -A40 '"target": "a100' "$tmp/out.json" | sed -n 's/.*"max_batch_fits": \([0-9]*\).*/\1/p' | head -1)
fits() { # fits BATCH: the A100's memory_fits at that batch
	"$BIN" --model gpt2-large --batch "$1" --seq 1024 --mode training --target a100 --json 2>/dev/null |
		sed -n 's/.*"memory_fits": \(true\|false\).*/\1/p'
}
[ -n "$mb" ] && [ "$mb" -ge 2 ] && [ "$(fits "$mb")" = true ] && [ "$(fits $((mb + 1)))" = false ]
check "batch $mb is the largest that fits the A100 40GB" $?
"$BIN" --model gpt2-large --batch 8 --seq 1024 --mode training --target a100 --target h200 \
	--top 0 >"$tmp/b8.txt" 2>"$tmp/b8.err"
check "batch 8 exits 0 ($(cat "$tmp/b8.err"))" $?
grep -q 'memory .*GiB needed, 38\.[0-9]* GiB usable here: does not fit' "$tmp/b8.txt"
check "batch 8 does not fit the A100 40GB" $?
grep -q 'memory .* of 139\.[0-9]* GiB usable' "$tmp/b8.txt"
check "batch 8 fits the H200's 139.8 GiB less its reserve ($(grep -c '^memory' "$tmp/b8.txt") memory lines)" $?
[ "$(wc -l <"$tmp/b8.err")" -eq 1 ] && grep -q 'a100-sxm4-40' "$tmp/b8.err" && ! grep -q 'h200' "$tmp/b8.err"
check "one warning line naming the A100 only ($(cat "$tmp/b8.err"))" $?

"$BIN" --model gpt2 --batch 2 --seq 128 --mode training --dp 4 --target a100 >"$tmp/dp.txt" 2>&1
check "--dp 4 exits 0" $?
grep -q 'comm ' "$tmp/dp.txt"; check "--dp 4 reports communication apart" $?

cat >"$tmp/tiny.json" <<'JSON'
{"model_type": "llama", "hidden_size": 256, "num_attention_heads": 4,
 "num_key_value_heads": 2, "num_hidden_layers": 2, "intermediate_size": 688,
 "vocab_size": 1000}
JSON
"$BIN" --model "$tmp/tiny.json" --seq 64 --target t4 >/dev/null 2>"$tmp/err"
check "config file accepted ($(cat "$tmp/err"))" $?
# Its FP32 kernels are tiny (a few hundred ns of work each by the tile
# model and the roofline), yet each one queued behind another costs the
# GPU its own time per kernel: gpu-benches' H200 runs tiny kernels from a
# CUDA graph at 1.26 us apiece (predict.h, predict_gpu_cost_ns), so the
# kernels of one pass take at least 1.2 us each.
"$BIN" --model "$tmp/tiny.json" --seq 16 --target h200 --json >"$tmp/tiny.out" 2>"$tmp/err"
nk=$(sed -n 's/^ *"kernels": \([0-9]*\),$/\1/p' "$tmp/tiny.out" | head -1)
kms=$(sed -n 's/.*"kernel_ms": \([0-9.e+-]*\).*/\1/p' "$tmp/tiny.out" | head -1)
awk -v n="$nk" -v k="$kms" 'BEGIN { exit !(n > 10 && k * 1000 >= 1.2 * n && k * 1000 < 5 * n) }'
check "tiny model on the H200: $nk kernels in $kms ms, 1.2-5 us each" $?

# The CI gate on a model: the same model passes (exit 0); twice the batch
# grows the iteration far beyond a 10% limit (exit 3).
"$BIN" --model gpt2 --batch 8 --seq 256 --target a100 --save-baseline "$tmp/base.json" >/dev/null 2>&1
check "--save-baseline with --model" $?
"$BIN" --model gpt2 --batch 8 --seq 256 --target a100 --baseline "$tmp/base.json" \
	--max-regression 10 >/dev/null 2>&1
check "same model passes the gate" $?
"$BIN" --model gpt2 --batch 16 --seq 256 --target a100 --baseline "$tmp/base.json" \
	--max-regression 10 >"$tmp/gate.txt" 2>&1
[ $? -eq 3 ] && grep -q REGRESSION "$tmp/gate.txt"
check "doubled batch fails the gate with exit 3" $?

# ms_of FILE: the first iteration_ms of a JSON document
ms_of() { sed -n 's/.*"iteration_ms": \([0-9.e+]*\).*/\1/p' "$1" | head -1; }

# bad_input ARGS...: exit 2, one line on stderr starting with the program name
bad_input() {
	n=$((n + 1))
	"$BIN" "$@" >/dev/null 2>"$tmp/err"
	rc=$?
	lines=$(wc -l <"$tmp/err")
	if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q '^surfer-analyze: ' "$tmp/err"; then
		echo "FAIL: surfer-analyze $* -> exit $rc, stderr: $(cat "$tmp/err")"
		fail=$((fail + 1))
	fi
}
bad_input --model no-such-model --target a100
# the words of two boards: both named, exit 2
bad_input --model gpt2 --target V100-PCIe
"$BIN" --model gpt2 --target V100-PCIe 2>&1 | grep -q "names 2 GPUs: v100-pcie-16, v100-pcie-32"
check "--target V100-PCIe names the 16 and 32 GB boards" $?
# a checkpoint's folder: its config.json, the model named by the folder
mkdir -p "$tmp/Tiny-Llama" "$tmp/empty-ckpt"
printf '{"model_type": "llama", "hidden_size": 512, "intermediate_size": 1024,
"num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 4,
"vocab_size": 1000}\n' >"$tmp/Tiny-Llama/config.json"
for m in "$tmp/Tiny-Llama" "$tmp/Tiny-Llama/" "$tmp/Tiny-Llama/config.json"; do
	"$BIN" --model "$m" --batch 1 --seq 64 --target a100 2>/dev/null | grep -q '^input .*model Tiny-Llama, inference'
	check "--model $m: the folder's config.json, named Tiny-Llama" $?
done
bad_input --model "$tmp/empty-ckpt" --target a100
grep -q "folder without a config.json" "$tmp/err"
check "a folder without config.json: said so ($(cat "$tmp/err"))" $?
bad_input --model gpt2 --batch 0 --target a100
bad_input --model gpt2 --tp 5 --target a100
# K and V shard by whole heads in training: Llama-3.1-70B's 8 take no TP 16
bad_input --model llama-3.1-70b --mode training --dtype bf16 --tp 16 --target h100
grep -q "8 key/value heads" "$tmp/err"
check "TP 16 over 8 KV heads: the heads named ($(cat "$tmp/err"))" $?
# ... and a plan of 64 GPUs lists those layouts with the reason, none chosen
"$BIN" --model llama-3.1-70b --mode training --batch 1 --seq 8192 --dtype bf16 --plan 64 \
	--target h100 >"$tmp/kvplan.txt" 2>/dev/null
grep -E '^ +1 +16 +4 ' "$tmp/kvplan.txt" | grep -q 'key/value heads' &&
	! grep -E '^ +[0-9]+ +(16|32|64) ' "$tmp/kvplan.txt" | grep -q 'fastest'
check "--plan: TP 16, 32 and 64 over 8 KV heads refused with the reason" $?
# the engines replicate KV heads past TP 8: vLLM at TP 16 builds
"$BIN" --model llama-3.1-70b --engine vllm --mode decode --batch 8 --seq 1000 --tp 16 \
	--target h100 >/dev/null 2>&1
check "an engine at TP 16 over 8 KV heads builds (replicated)" $?
bad_input --model gpt2 --mode serving --target a100
bad_input --model gpt2 --dtype int3 --target a100
bad_input --model gpt2 --pp 2 --batch 3 --target a100
bad_input --model gpt2 --plan 0 --target a100
bad_input --model gpt2 --plan 4 --tp 2 --target a100
bad_input --model gpt2 --plan 4 --mode generate --target a100
# an engine's plan: --batch x --seq split over the replicas; a list of
# lengths (prompts, caches or outputs, one per sequence) dealt to them in
# turn, sequence i to replica i mod dp, the layout its slowest replica with
# the largest memory of any.  Prompts of 100, 200, 300 and 400 generating
# 4, 2, 3 and 1 on 2 GPUs: dp 2 is replica 0 (100 and 300, 4 and 3 new,
# three steps) beside replica 1 (200 and 400, one step): replica 0's run;
# dp 1 x tp 2 the --tp 2 run of all four.
P="--model llama-3.2-1b --engine sglang --dtype bf16 --target h100 --json --mode serve"
"$BIN" $P --prompt-lens 100,200,300,400 --new-tokens 4,2,3,1 --plan 2 >"$tmp/lplan.json" 2>"$tmp/err" &&
"$BIN" $P --prompt-lens 100,300 --new-tokens 4,3 >"$tmp/lr0.json" 2>/dev/null &&
"$BIN" $P --prompt-lens 200,400 --new-tokens 2,1 >"$tmp/lr1.json" 2>/dev/null &&
"$BIN" $P --prompt-lens 100,200,300,400 --new-tokens 4,2,3,1 --tp 2 >"$tmp/ltp2.json" 2>/dev/null &&
python3 - "$tmp/lplan.json" "$tmp/lr0.json" "$tmp/lr1.json" "$tmp/ltp2.json" <<'PY'
import json, sys
plan, r0, r1, tp2 = (json.load(open(f)) for f in sys.argv[1:])
assert plan["global_batch"] == 4 and plan["seq"] == 400, plan
ls = {(l["dp"], l["tp"], l["pp"]): l for l in plan["targets"][0]["layouts"]}
p0, p1 = r0["predictions"][0], r1["predictions"][0]
assert p0["iteration_ms"] > p1["iteration_ms"], (p0["iteration_ms"], p1["iteration_ms"])
for key, run, peak in (((2, 1, 1), p0, max(r0["memory"]["peak_gib"], r1["memory"]["peak_gib"])),
                       ((1, 2, 1), tp2["predictions"][0], tp2["memory"]["peak_gib"])):
    l = ls[key]
    for a in ("iteration_ms", "ttft_ms"):
        assert abs(l[a] - run[a]) < 1e-6 * run[a], (key, a, l[a], run[a])
    assert abs(l["memory_peak_gib"] - peak) < 1e-9, (key, l["memory_peak_gib"], peak)
    assert abs(l["tokens_per_s"] - 10 / (l["iteration_ms"] / 1e3)) < 1e-6 * l["tokens_per_s"], l
PY
check "--plan with lengths and outputs: dealt to the replicas, the slowest one's run ($(cat "$tmp/err"))" $?
# more replicas than sequences: that layout is skipped with the reason
"$BIN" --model llama-3.2-1b --engine sglang --dtype bf16 --target h100 --mode prefill --prompt-lens 100,200 \
	--plan 4 2>/dev/null | grep -q "2 sequences not dealt to 4 replicas"
check "--plan 4 over 2 prompts: dp 4 skipped, the reason named" $?
bad_input --model llama-3.1-8b --mode inference --prompt-lens 100,200 --plan 4 --target h100
# a plan refuses what the run refuses: outputs not one per prompt, prompts
# for a decode step
bad_input --model llama-3.2-1b --engine sglang --dtype bf16 --mode serve --prompt-lens 100,200,300 \
	--new-tokens 3,1 --plan 2 --target h100
bad_input --model llama-3.2-1b --engine sglang --dtype bf16 --mode decode --prompt-lens 100,200 --plan 2 --target h100
# a served batch's plan: each layout's whole batch, its time to first
# token and mean step, as the run of that layout gives them (dp 1 x tp 4:
# the --tp 4 run; dp 4 x tp 1: --dp 4 with a quarter of the batch), the
# tokens generated per second
"$BIN" --model llama-3.1-8b --engine sglang --dtype bf16 --mode serve --batch 8 --seq 1000 --new-tokens 16 \
	--plan 4 --target h100 --json >"$tmp/splan.json" 2>"$tmp/err" &&
"$BIN" --model llama-3.1-8b --engine sglang --dtype bf16 --mode serve --batch 8 --seq 1000 --new-tokens 16 \
	--tp 4 --target h100 --json >"$tmp/stp4.json" 2>/dev/null &&
"$BIN" --model llama-3.1-8b --engine sglang --dtype bf16 --mode serve --batch 2 --seq 1000 --new-tokens 16 \
	--dp 4 --target h100 --json >"$tmp/sdp4.json" 2>/dev/null &&
python3 - "$tmp/splan.json" "$tmp/stp4.json" "$tmp/sdp4.json" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))
assert plan["mode"] == "serve" and plan["new_tokens"] == 16, plan
ls = {(l["dp"], l["tp"], l["pp"]): l for l in plan["targets"][0]["layouts"]}
for key, path in (((1, 4, 1), sys.argv[2]), ((4, 1, 1), sys.argv[3])):
    run = json.load(open(path))
    p, l = run["predictions"][0], ls[key]
    for a, b in (("iteration_ms", "iteration_ms"), ("ttft_ms", "ttft_ms")):
        assert abs(l[a] - p[b]) < 1e-6 * p[b], (key, a, l[a], p[b])
    # the plan's step is the whole less the prefill over 15 steps; the
    # run's the mean of its steps predicted one by one
    assert abs(l["tpot_mean_ms"] - p["tpot_mean_ms"]) < 0.01 * p["tpot_mean_ms"], (key, l, p)
    assert abs(l["memory_peak_gib"] - run["memory"]["peak_gib"]) < 1e-9, (key, l, run["memory"])
    assert abs(l["tokens_per_s"] - 8 * 16 / (l["iteration_ms"] / 1e3)) < 1e-6 * l["tokens_per_s"], l
PY
check "--plan of a served batch: each layout as its run (ttft, steps, memory; $(cat "$tmp/err"))" $?
"$BIN" --model llama-3.1-8b --engine sglang --dtype bf16 --mode prefill --batch 4 --seq 1000 --plan 4 \
	--target h100 2>/dev/null | head -1 | grep -q '^plan       sglang llama-3.1-8b, prefill, 4 sequences of 1000 over 4 GPUs'
check "an engine's plan names the engine and prefill" $?
bad_input --model gpt2 --plan 4 --target a100 --save-baseline "$tmp/nobase.json"
# --jobs: the layouts predicted on several threads at once give the table
# one thread gives, byte for byte, text and JSON (a layout written into
# another's slot, or a race in the predictors, would show here; two
# targets, a pipeline, MoE expert parallelism and the checkpointing retry
# of the layouts that do not fit); --jobs needs --plan, and a count
bad_input --model gpt2 --jobs 2 --target a100
bad_input --model gpt2 --plan 4 --jobs 0 --target a100
bad_input --model gpt2 --plan 4 --jobs 1000 --target a100
for fmt in "" --json; do
	for j in 1 3; do
		"$BIN" --model mixtral-8x7b --mode training --dtype bf16 --attention flash --batch 16 \
			--seq 2048 --plan 8 --target h100 --target a100 --jobs $j $fmt \
			>"$tmp/jobs$j$fmt.out" 2>"$tmp/jobs$j.err"
		check "--plan --jobs $j $fmt exits 0 ($(head -1 "$tmp/jobs$j.err"))" $?
	done
	cmp -s "$tmp/jobs1$fmt.out" "$tmp/jobs3$fmt.out" && [ "$(grep -c fastest "$tmp/jobs1$fmt.out")$fmt" != "0" ] &&
		[ -s "$tmp/jobs1$fmt.out" ]
	check "--plan --jobs 3 $fmt: the table --jobs 1 gives" $?
done
# the plan's progress bar: on a terminal (script(1) gives it one) it runs to
# 100 % and is wiped before the table; to a file or pipe nothing of it
# (the runs above: their standard error is empty)
[ ! -s "$tmp/jobs1.err" ] && [ ! -s "$tmp/jobs3.err" ]
check "--plan draws nothing on standard error off a terminal" $?
if command -v script >/dev/null 2>&1; then
	script -qc "$BIN --model mixtral-8x7b --mode training --dtype bf16 --attention flash --batch 16 --seq 2048 --plan 8 --target h100 --target a100 --jobs 2" \
		"$tmp/tty.txt" >/dev/null 2>&1
	grep -a -q 'surfer-analyze: --plan \[#*\] 100%' "$tmp/tty.txt" &&
		grep -a -q '^target     a100' "$tmp/tty.txt"
	check "--plan on a terminal: a bar to 100 %, then the tables" $?
else
	echo "model_cli: no script(1): the plan's progress bar on a terminal not checked"
fi
# flags that a run would otherwise drop without a word: a scaling recipe
# without FP8 linears, training-only flags outside training (the hf path and
# the engines), and the values --fsdp and --fsdp-reduce take named
bad_input --model llama-3.1-8b --mode training --dtype bf16 --fp8-recipe rowwise --target h100
bad_input --model llama-3.1-8b --mode training --dtype bf16 --fp8-recipe rowwise --plan 8 --target h100
bad_input --model gpt2 --act-ckpt full --target a100
bad_input --model gpt2 --mode decode --grad-accum 4 --target a100
bad_input --model gpt2 --mode generate --no-grad-clip --target a100
bad_input --model llama-3.1-8b --engine vllm --mode decode --dtype bf16 --offload --target h100
bad_input --model llama-3.1-8b --engine sglang --mode decode --dtype bf16 --fsdp-reduce bf16 --target h100
bad_input --model llama-3.1-8b --engine sglang --mode decode --dtype bf16 --attention sdpa --target h100
# a plan none of whose layouts builds: the reason, exit 2 (it printed a
# table of the same refusal per layout and exited 0)
bad_input --model llama-3.1-8b --engine sglang --mode training --dtype bf16 --plan 8 --target h100
"$BIN" --model gpt2 --mode training --dp 2 --zero 3 --fsdp 7 --target a100 2>&1 >/dev/null |
	grep -q "bad --fsdp '7': 1, 2 or megatron is expected"
check "--fsdp 7 names the values it takes" $?

# --plan 8: every dp x tp x pp of 8 GPUs (tp 1, 2, 4, 8 with the pp
# dividing what is left: 4 + 3 + 2 + 1 = 10 layouts) for one global batch,
# fastest first; the layout dp 2 is the run --dp 2 with half the batch per
# rank, to the same time and memory.
"$BIN" --model gpt2-medium --mode training --batch 16 --seq 512 --plan 8 --zero 0 --target a100 --json \
	>"$tmp/plan.json" 2>"$tmp/err"
check "--plan 8 exits 0 ($(cat "$tmp/err"))" $?
"$BIN" --model gpt2-medium --mode training --batch 8 --seq 512 --dp 2 --tp 4 --target a100 --json \
	>"$tmp/dp2.json" 2>/dev/null
python3 - "$tmp/plan.json" "$tmp/dp2.json" <<'PY'
import json, sys
plan, run = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
ls = plan["targets"][0]["layouts"]
assert plan["global_batch"] == 16 and len(ls) == 10, (plan["global_batch"], len(ls))
assert sorted((l["dp"], l["tp"], l["pp"]) for l in ls) == sorted(
    (8 // t // p, t, p) for t in (1, 2, 4, 8) for p in (1, 2, 4, 8) if 8 % (t * p) == 0)
built = [l for l in ls if "iteration_ms" in l]
assert len(built) >= 6, ls   # gpt2-medium's 16 heads take every tp
t = [l["iteration_ms"] for l in built]
assert t == sorted(t), t
l = [l for l in built if (l["dp"], l["tp"], l["pp"]) == (2, 4, 1)][0]
p = run["predictions"][0]
assert abs(l["iteration_ms"] - p["iteration_ms"]) < 1e-6 * p["iteration_ms"], (l, p["iteration_ms"])
assert abs(l["memory_peak_gib"] - run["memory"]["peak_gib"]) < 1e-9, (l, run["memory"])
assert abs(l["tokens_per_s"] - 16 * 512 / (l["iteration_ms"] / 1e3)) < 1e-6 * l["tokens_per_s"]
PY
check "--plan 8: ten layouts, fastest first, dp 2 x tp 4 as the --dp 2 --tp 4 run" $?
# A pipeline layout without --microbatches is predicted with the fewest
# microbatches, at least pp, that split its rank's batch and with the
# fewest, at least 4 pp (bubble under a fifth): 64 sequences on pp 8 as 8 or
# 32 microbatches; the plan keeps the faster of the two runs (both fit).
# --microbatches above --batch is refused, not taken as --batch in silence.
bad_input --model gpt2 --mode training --batch 1 --pp 2 --microbatches 4 --target a100
"$BIN" --model gpt2-medium --mode training --batch 64 --seq 512 --plan 8 --zero 0 --target a100 --json \
	>"$tmp/planmb.json" 2>"$tmp/err"
check "--plan 8 of 64 sequences exits 0 ($(cat "$tmp/err"))" $?
for mb in 8 32; do
	"$BIN" --model gpt2-medium --mode training --batch 64 --seq 512 --pp 8 --microbatches $mb \
		--target a100 --json >"$tmp/pp8-$mb.json" 2>/dev/null
done
python3 - "$tmp/planmb.json" "$tmp/pp8-8.json" "$tmp/pp8-32.json" <<'PY'
import json, sys
ls = json.load(open(sys.argv[1]))["targets"][0]["layouts"]
l = [l for l in ls if (l["dp"], l["tp"], l["pp"]) == (1, 1, 8)][0]
runs = {mb: json.load(open(a))["predictions"][0] for mb, a in ((8, sys.argv[2]), (32, sys.argv[3]))}
assert all(r["memory_fits"] for r in runs.values()), runs
best = min(runs, key=lambda mb: runs[mb]["iteration_ms"])
assert l["microbatches"] == best, (l, {mb: r["iteration_ms"] for mb, r in runs.items()})
assert abs(l["iteration_ms"] - runs[best]["iteration_ms"]) < 1e-6 * l["iteration_ms"], l
PY
check "--plan: a pipeline of 64 sequences on pp 8 as the faster of 8 and 32 microbatches" $?
# --plan N --cp C: every sequence split over C ranks, the layouts spread
# dp x tp x pp over N / C (they took all N, so each layout ran on C N GPUs
# while the plan said N); each as its run, whose 16 ranks take two nodes.
bad_input --model gpt2 --mode training --plan 16 --cp 3 --target h100
"$BIN" --model llama-3.2-1b --mode training --batch 16 --seq 4096 --dtype bf16 --attention flash \
	--optimizer adamw-fused --act-ckpt none --plan 16 --cp 2 --zero 3 --target h100 --json \
	>"$tmp/plancp.json" 2>"$tmp/err"
check "--plan 16 --cp 2 exits 0 ($(cat "$tmp/err"))" $?
"$BIN" --model llama-3.2-1b --mode training --batch 2 --seq 4096 --dtype bf16 --attention flash \
	--optimizer adamw-fused --act-ckpt none --dp 8 --cp 2 --zero 3 --target h100 --json \
	>"$tmp/runcp.json" 2>/dev/null
python3 - "$tmp/plancp.json" "$tmp/runcp.json" <<'PY'
import json, sys
ls = json.load(open(sys.argv[1]))["targets"][0]["layouts"]
assert ls and all(l["dp"] * l["tp"] * l["pp"] == 8 for l in ls), ls
l = [l for l in ls if (l["dp"], l["tp"], l["pp"]) == (8, 1, 1) and not l.get("hsdp")][0]
p = json.load(open(sys.argv[2]))["predictions"][0]
assert abs(l["iteration_ms"] - p["iteration_ms"]) < 1e-6 * p["iteration_ms"], (l, p["iteration_ms"])
PY
check "--plan 16 --cp 2: dp x tp x pp = 8, dp 8 as the --dp 8 --cp 2 run" $?
"$BIN" --model gpt2-medium --mode training --batch 16 --seq 512 --plan 8 --zero 0 --target a100 >"$tmp/plan.txt" 2>&1
[ "$(grep -c 'fastest that fits' "$tmp/plan.txt")" -eq 1 ]
check "the text plan marks one layout the fastest that fits" $?
# Layouts that fit come before those that do not, even when these are
# faster: Llama-3-8B's FP32 AdamW training of 16 x 2048 on 8 H100s has
# layouts without a pipeline predicted faster than any that fits (DDP
# alone holds 16 bytes a parameter, 8.0e9 x 16 B = 119 GiB > 78 GiB).
"$BIN" --model llama-3-8b --mode training --batch 16 --seq 2048 --plan 8 --zero 0 --act-ckpt none \
	--target h100 >"$tmp/plan_fit.txt" 2>&1
awk '/does not fit/ { nofit = 1 } /fastest that fits/ { if (nofit) bad = 1; fits = 1 }
     END { exit !(fits && nofit && !bad) }' "$tmp/plan_fit.txt"
check "--plan lists the layouts that fit before those that do not" $?
# A training layout that does not fit as asked is tried with the rank's
# batch in gradient-accumulation steps (and with checkpointing): Llama-3-8B
# in BF16, 64 sequences of 4096 on 8 H100s under FSDP.  At dp 8 a rank's 8
# sequences at once do not fit; the plan keeps the fastest that fits, and
# that row is the run of its micro-batch with --grad-accum.
"$BIN" --model llama-3-8b --mode training --batch 64 --seq 4096 --dtype bf16 --attention flash \
	--optimizer adamw-fused --plan 8 --zero 3 --target h100 --json >"$tmp/planga.json" 2>"$tmp/err"
check "--plan 8 of 64 x 4096 exits 0 ($(cat "$tmp/err"))" $?
ga=$(python3 -c 'import json,sys
ls = json.load(open(sys.argv[1]))["targets"][0]["layouts"]
l = [l for l in ls if l["dp"] == 8][0]
print(l.get("grad_accum", 1), l.get("act_ckpt", "none"))' "$tmp/planga.json")
set -- $ga
"$BIN" --model llama-3-8b --mode training --batch $((8 / $1)) --grad-accum "$1" --act-ckpt "$2" --seq 4096 \
	--dtype bf16 --attention flash --optimizer adamw-fused --dp 8 --zero 3 --target h100 --json \
	>"$tmp/runga.json" 2>/dev/null
"$BIN" --model llama-3-8b --mode training --batch 8 --seq 4096 --dtype bf16 --attention flash \
	--optimizer adamw-fused --dp 8 --zero 3 --target h100 --json >"$tmp/run8.json" 2>/dev/null
python3 - "$tmp/planga.json" "$tmp/runga.json" "$tmp/run8.json" <<'PY'
import json, sys
ls = json.load(open(sys.argv[1]))["targets"][0]["layouts"]
l = [l for l in ls if l["dp"] == 8][0]
run = json.load(open(sys.argv[2]))["predictions"][0]
whole = json.load(open(sys.argv[3]))["predictions"][0]
assert not whole["memory_fits"], whole["memory_fits"]
assert l["grad_accum"] > 1 and l["memory_fits"] and run["memory_fits"], l
assert abs(l["iteration_ms"] - run["iteration_ms"]) <= 1e-6 * run["iteration_ms"], (l, run["iteration_ms"])
assert abs(l["tokens_per_s"] - run["tokens_per_s"]) <= 1e-6 * run["tokens_per_s"], (l, run["tokens_per_s"])
PY
check "--plan: dp 8 of 64 x 4096 in $1 accumulation steps ($2 checkpointing), as that run; 8 at once does not fit" $?
# --plan with --grad-accum N: each micro-step splits --batch, the step is N
# of them; the header and the JSON say so, and tokens/s counts all N
"$BIN" --model gpt2 --mode training --batch 16 --seq 128 --plan 4 --grad-accum 4 --zero 0 --target a100 \
	2>/dev/null | head -1 | grep -q ', 16 sequences of 128 x 4 accumulation steps over 4 GPUs'
check "--plan --grad-accum 4: the header names the accumulation steps" $?
"$BIN" --model gpt2 --mode training --batch 16 --seq 128 --plan 4 --grad-accum 4 --zero 0 --target a100 --json \
	>"$tmp/planga4.json" 2>/dev/null
python3 - "$tmp/planga4.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["grad_accum"] == 4 and d["global_batch"] == 16, d.get("grad_accum")
l = [l for l in d["targets"][0]["layouts"] if "iteration_ms" in l][0]
tok = 16 * 128 * 4 / (l["iteration_ms"] / 1e3)
assert abs(l["tokens_per_s"] - tok) <= 1e-6 * tok, (l["tokens_per_s"], tok)
PY
check "--plan --grad-accum 4: JSON grad_accum 4, tokens/s over 4 x 16 x 128 tokens" $?
# --zero: ZeRO's stages over the dp ranks.  Llama-3-8B's AdamW training in
# BF16 at one sequence of 2048 per rank does not fit an 80 GB H100 under
# DDP (weights, gradients, their bucket copy and two moments are 5 x 16 GB
# before activations); with the state sharded over 8 ranks it does, and
# FSDP1's stages do not combine with pipeline stages (FSDP2's do, below).
bad_input --model gpt2 --mode training --dp 2 --zero 4 --target a100
bad_input --model gpt2 --dp 2 --zero 2 --target a100
bad_input --model gpt2 --mode training --dp 2 --pp 2 --batch 2 --zero 3 --fsdp 1 --target a100
bad_input --model gpt2 --plan 4 --zero 1 --target a100
"$BIN" --model llama-3-8b --mode training --batch 8 --seq 2048 --dtype bf16 --optimizer adamw \
	--plan 8 --zero 0 --target h100 --json >"$tmp/plan0.json" 2>"$tmp/err"
check "--plan 8 of Llama-3-8B exits 0 ($(cat "$tmp/err"))" $?
"$BIN" --model llama-3-8b --mode training --batch 8 --seq 2048 --dtype bf16 --optimizer adamw \
	--plan 8 --zero 3 --target h100 --json >"$tmp/plan3.json" 2>"$tmp/err"
check "--plan 8 --zero 3 of Llama-3-8B exits 0 ($(cat "$tmp/err"))" $?
"$BIN" --model llama-3-8b --mode training --batch 1 --seq 2048 --dtype bf16 --optimizer adamw \
	--dp 8 --zero 3 --target h100 --json >"$tmp/z3.json" 2>/dev/null
python3 - "$tmp/plan0.json" "$tmp/plan3.json" "$tmp/z3.json" <<'PY'
import json, sys
p0, p3, run = (json.load(open(a)) for a in sys.argv[1:4])
assert p0["zero"] == 0 and p3["zero"] == 3
l0 = {(l["dp"], l["tp"], l["pp"]): l for l in p0["targets"][0]["layouts"]}
l3 = {(l["dp"], l["tp"], l["pp"]): l for l in p3["targets"][0]["layouts"]}
assert not l0[(8, 1, 1)]["memory_fits"], l0[(8, 1, 1)]
assert l3[(8, 1, 1)]["memory_fits"], l3[(8, 1, 1)]
assert l3[(8, 1, 1)]["memory_peak_gib"] < l0[(8, 1, 1)]["memory_peak_gib"] - 40
for k, l in l3.items():
    if k[0] > 1 and k[2] > 1:   # FSDP2 under a pipeline: built
        assert "skipped" not in l and l["iteration_ms"] > 0, l
    elif k[0] == 1:   # one rank shards nothing
        assert l == l0[k], (l, l0[k])
p = run["predictions"][0]
assert abs(l3[(8, 1, 1)]["iteration_ms"] - p["iteration_ms"]) < 1e-6 * p["iteration_ms"]
assert abs(l3[(8, 1, 1)]["memory_peak_gib"] - run["memory"]["peak_gib"]) < 1e-9
PY
check "--zero 3: dp 8 of Llama-3-8B fits an H100, as the --dp 8 --zero 3 run; dp x pp built too" $?
# --plan without --zero tries FSDP2 under a pipeline too, and a mixture of
# experts' --ep under FSDP; --stack te (Megatron's FSDP) neither
for st in eager te; do
	"$BIN" --model llama-3.2-1b --mode training --batch 16 --seq 1024 --dtype bf16 --attention flash \
		--optimizer adamw-fused --plan 8 --stack $st --target h100 --json >"$tmp/pfpp-$st.json" 2>/dev/null
	check "--plan 8 --stack $st exits 0" $?
done
"$BIN" --model mixtral-8x7b --mode training --batch 8 --seq 1024 --dtype bf16 --attention flash \
	--optimizer adamw-fused --plan 8 --target h100 --json >"$tmp/pfep.json" 2>/dev/null
check "--plan 8 of Mixtral exits 0" $?
python3 - "$tmp/pfpp-eager.json" "$tmp/pfpp-te.json" "$tmp/pfep.json" <<'PY'
import json, sys
e, t, m = (json.load(open(f))["targets"][0]["layouts"] for f in sys.argv[1:4])
def z3pp(L):
    return {(l["dp"], l["tp"], l["pp"]) for l in L if l.get("zero") == 3 and l["pp"] > 1}
assert z3pp(e) == {(4, 1, 2), (2, 2, 2), (2, 1, 4)}, z3pp(e)
assert not z3pp(t), z3pp(t)
eps = {(l["dp"], l.get("ep")) for l in m if l.get("zero") == 3 and l["tp"] == 1 and l["pp"] == 1}
assert eps == {(8, None), (8, 2), (8, 4), (8, 8)}, eps
PY
check "--plan: FSDP2 with a pipeline and with --ep tried, Megatron's FSDP with neither" $?
# Training without --zero: each layout of several data-parallel ranks also
# as ZeRO-1 and as FSDP (ZeRO 3), each the same
# prediction as the plan at that --zero; one rank shards nothing, so those
# rows are not tried (FSDP2 with a pipeline is).
"$BIN" --model llama-3-8b --mode training --batch 8 --seq 2048 --dtype bf16 --optimizer adamw \
	--plan 8 --target h100 --json >"$tmp/planz.json" 2>"$tmp/err"
check "--plan 8 without --zero exits 0 ($(cat "$tmp/err"))" $?
"$BIN" --model llama-3-8b --mode training --batch 8 --seq 2048 --dtype bf16 --optimizer adamw \
	--plan 8 --zero 1 --target h100 --json >"$tmp/plan1.json" 2>"$tmp/err"
python3 - "$tmp/planz.json" "$tmp/plan0.json" "$tmp/plan1.json" "$tmp/plan3.json" <<'PY'
import json, sys
pz, p0, p1, p3 = (json.load(open(a)) for a in sys.argv[1:5])
lz = {(l["dp"], l["tp"], l["pp"], l["zero"]): l for l in pz["targets"][0]["layouts"]}
assert len(lz) == len(pz["targets"][0]["layouts"])
for z, p in ((0, p0), (1, p1), (3, p3)):
    for l in p["targets"][0]["layouts"]:
        k = (l["dp"], l["tp"], l["pp"], z)
        if z and l["dp"] == 1:
            assert k not in lz, k
            continue
        m = dict(lz[k])
        del m["zero"]
        assert m == l, (k, m, l)
assert len(lz) == 10 + 6 + 6, sorted(lz)
best = [l for l in pz["targets"][0]["layouts"] if l.get("memory_fits")][0]
assert best["zero"] > 0, best   # DDP of dp 8 does not fit; a sharded layout is fastest
PY
check "--plan without --zero tries DDP, ZeRO-1 and FSDP: each row as its --zero plan's" $?
# --plan carries --sequence-parallel and --grad-fp32 into every layout's
# memory.  Sequence parallelism splits the norms' activations of the tp > 1
# layouts only, and gives each layout the memory and time of its own run;
# --grad-fp32 adds the FP32 gradient buffer of the pure bf16 model
# (--precision pure: with dp > 1 the default is mixed, whose gradients are
# FP32 already): dp 8 holds all 8,030,261,248 parameters, 4 bytes each =
# 29.92 GiB.
plan_args="--model llama-3-8b --mode training --batch 8 --seq 2048 --dtype bf16 --attention flash
	--optimizer adamw-fused --act-ckpt none --plan 8 --zero 0 --target h100 --json"
"$BIN" $plan_args --stack te >"$tmp/nosp.json" 2>"$tmp/err"
check "--plan 8 --stack te exits 0 ($(cat "$tmp/err"))" $?
"$BIN" $plan_args --stack te --sequence-parallel >"$tmp/sp.json" 2>"$tmp/err"
check "--plan 8 --stack te --sequence-parallel exits 0 ($(cat "$tmp/err"))" $?
"$BIN" --model llama-3-8b --mode training --batch 4 --seq 2048 --dtype bf16 --attention flash \
	--optimizer adamw-fused --stack te --dp 2 --tp 4 --sequence-parallel --target h100 --json \
	>"$tmp/sprun.json" 2>/dev/null
"$BIN" $plan_args --precision pure >"$tmp/g16.json" 2>"$tmp/err"
"$BIN" $plan_args --precision pure --grad-fp32 >"$tmp/g32.json" 2>"$tmp/err"
check "--plan 8 --grad-fp32 exits 0 ($(cat "$tmp/err"))" $?
python3 - "$tmp/nosp.json" "$tmp/sp.json" "$tmp/sprun.json" "$tmp/g16.json" "$tmp/g32.json" <<'PY'
import json, sys
a, b, run, g16, g32 = (json.load(open(x)) for x in sys.argv[1:6])
lay = lambda p: {(l["dp"], l["tp"], l["pp"]): l for l in p["targets"][0]["layouts"] if "iteration_ms" in l}
a, b, g16, g32 = lay(a), lay(b), lay(g16), lay(g32)
assert a.keys() == b.keys() and len(a) >= 6, (a.keys(), b.keys())
for k in a:
    if k[1] == 1:
        assert a[k] == b[k], (k, a[k], b[k])
    else:
        assert b[k]["memory_peak_gib"] < a[k]["memory_peak_gib"] - 1, (k, a[k], b[k])
p = run["predictions"][0]
assert abs(b[(2, 4, 1)]["memory_peak_gib"] - run["memory"]["peak_gib"]) < 1e-9, (b[(2, 4, 1)], run["memory"])
assert abs(b[(2, 4, 1)]["iteration_ms"] - p["iteration_ms"]) < 1e-6 * p["iteration_ms"]
d = g32[(8, 1, 1)]["memory_peak_gib"] - g16[(8, 1, 1)]["memory_peak_gib"]
assert abs(d - 4 * 8030261248 / 2**30) < 1e-6, d
for k in g16:
    assert g32[k]["memory_peak_gib"] > g16[k]["memory_peak_gib"], k
PY
check "--plan with --sequence-parallel: tp > 1 layouts smaller, as their run; --grad-fp32: +29.92 GiB at dp 8" $?
# Mixed precision (--stack te: Megatron's FP32 master and main gradients):
# plain DDP keeps 18 bytes a parameter against the model cast to bf16's
# 2 + 2 + 4 = 8 (Megatron's DDP reduces its gradient buffer in place, no
# bucket copy): 10 x 8,030,261,248 bytes = 74.8 GiB more, which takes
# dp 8 off an 80 GB H100 while dp 4 x tp 2 still fits.
for p in pure mixed; do
	"$BIN" --model llama-3-8b --mode training --batch 8 --seq 2048 --dtype bf16 \
		--optimizer adamw-fused --attention flash --stack te --act-ckpt full --precision $p \
		--plan 8 --zero 0 --target h100 --json >"$tmp/plan-$p.json" 2>"$tmp/err"
	check "--plan 8 --precision $p exits 0 ($(cat "$tmp/err"))" $?
done
python3 - "$tmp/plan-pure.json" "$tmp/plan-mixed.json" <<'PY'
import json, sys
pure, mixed = ({(l["dp"], l["tp"], l["pp"]): l for l in json.load(open(a))["targets"][0]["layouts"]}
               for a in sys.argv[1:3])
P = 8030261248
assert pure[(8, 1, 1)]["memory_fits"], pure[(8, 1, 1)]
assert not mixed[(8, 1, 1)]["memory_fits"], mixed[(8, 1, 1)]
d = mixed[(8, 1, 1)]["memory_peak_gib"] - pure[(8, 1, 1)]["memory_peak_gib"]
assert abs(d - 10 * P / 2**30) < 0.01, d
assert mixed[(4, 2, 1)]["memory_fits"], mixed[(4, 2, 1)]
PY
check "--plan: Megatron's 18 B/param takes dp 8 of Llama-3-8B off an H100 (pure bf16 fits)" $?
bad_input --model gpt2 --mode training --precision half --target a100
# a cap above the board's TDP (an H100 SXM's 700 W) is refused, not
# predicted at the TDP in silence; --all-targets leaves such GPUs out
bad_input --model gpt2 --power-limit 800 --target h100-sxm
# --offload: the host's bandwidth must come from the system or the flag
bad_input --model gpt2 --mode training --optimizer adamw --dp 8 --zero 2 --offload --target l40s
bad_input --model gpt2 --mode training --optimizer adamw --dp 8 --zero 2 --offload --host-mem-gbps fast --target h100-sxm
bad_input --model gpt2 --mode training --optimizer adamw --dp 8 --offload --target h100-sxm
"$BIN" --model gpt2 --power-limit 300 --all-targets --json >"$tmp/pl.json" 2>"$tmp/err"
check "--power-limit 300 --all-targets exits 0 ($(cat "$tmp/err"))" $?
python3 - "$tmp/pl.json" <<'PY'
import json, sys
t = {p["target"] for p in json.load(open(sys.argv[1]))["predictions"]}
assert "h100-sxm" in t and "t4" not in t, sorted(t)
PY
check "--power-limit 300 --all-targets: the H100 predicted, the 70 W T4 left out" $?
# The H100 of torchtitan's published runs, named as a user would, capped as
# they ran it: 500 of its 700 W.  The GEMMs (compute-bound) take 1 / 0.766
# as long (the clock 500 / 700 leaves below the voltage floor at 0.90 of
# the TDP: 0.714 / 0.90^(2/3), predictor/power.c; a few of them partly
# memory-bound), the element-wise kernels (memory-bound: the memory clock
# stays, and they do not draw the cap) as long as uncapped.
for cap in "" "--power-limit 500"; do
	"$BIN" --model llama-3-8b --mode training --batch 1 --seq 2048 --dtype bf16 --attention flash \
		--optimizer adamw-fused --target "H100 96GB" $cap --top 0 --json \
		>"$tmp/pl96${cap:+-500}.json" 2>"$tmp/err"
	check "H100 96GB ${cap:-uncapped} exits 0 ($(cat "$tmp/err"))" $?
done
python3 - "$tmp/pl96.json" "$tmp/pl96-500.json" <<'PY'
import json, sys
def ops(path):
    p = json.load(open(path))["predictions"][0]
    assert p["target"] == "h100-sxm-96", p["target"]
    t = {}
    for k in p["breakdown"]:
        t[k["op"]] = t.get(k["op"], 0) + k["predicted_ms"]
    return p["iteration_ms"], t
(i0, o0), (i5, o5) = ops(sys.argv[1]), ops(sys.argv[2])
f = (500 / 700) / 0.9 ** (2 / 3)
assert 0.98 / f < o5["gemm"] / o0["gemm"] <= 1 / f + 1e-9, (o0["gemm"], o5["gemm"], 1 / f)
assert abs(o5["elementwise"] / o0["elementwise"] - 1) < 1e-3, (o0["elementwise"], o5["elementwise"])
assert i5 > i0, (i0, i5)
PY
check "H100 96GB at 500 W: GEMMs 1.30x as long, element-wise kernels as long as uncapped" $?
# --plan's header names FP8 training as a run's does (it said bf16, the
# dtype of what is not a linear)
"$BIN" --model gpt2 --mode training --batch 8 --dtype fp8 --fp8-recipe rowwise --plan 8 --target h100 \
	2>&1 | head -1 | grep -q "over 8 GPUs, fp8 rowwise, zero"
check "--plan --dtype fp8 names fp8 rowwise" $?
# --plan under a cap says so, in the text and the JSON, and plans capped
"$BIN" --model gpt2 --mode training --batch 8 --plan 8 --target "H100 96GB" --power-limit 500 \
	>"$tmp/plancap.txt" 2>&1 &&
	grep -q "^target     h100-sxm-96 .*, capped at 500 W$" "$tmp/plancap.txt"
check "--plan --power-limit 500 names the cap" $?
for cap in "" "--power-limit 500"; do
	"$BIN" --model llama-3.2-1b --mode training --batch 16 --seq 2048 --dtype bf16 --attention flash \
		--act-ckpt none --plan 8 --zero 0 --target "H100 96GB" $cap --json \
		>"$tmp/plancap${cap:+-500}.json" 2>/dev/null
done
python3 - "$tmp/plancap.json" "$tmp/plancap-500.json" <<'PY'
import json, sys
a, b = (json.load(open(f))["targets"][0] for f in sys.argv[1:3])
assert "power_limit_w" not in a and b["power_limit_w"] == 500, (a.keys(), b.get("power_limit_w"))
ta = {(l["dp"], l["tp"], l["pp"]): l["iteration_ms"] for l in a["layouts"] if "iteration_ms" in l}
tb = {(l["dp"], l["tp"], l["pp"]): l["iteration_ms"] for l in b["layouts"] if "iteration_ms" in l}
assert ta and all(tb[k] > ta[k] for k in ta), (ta, tb)
PY
check "--plan --power-limit 500: every layout of a compute-bound step slower, the JSON names the cap" $?
bad_input --batch 4 --target a100
bad_input --model gpt2 --target a100 some-trace.mp
printf '{"model_type": "gpt2", "n_embd": ' >"$tmp/broken.json"
bad_input --model "$tmp/broken.json" --target a100
bad_input --model "$tmp/missing.json" --target a100
bad_input --model gpt2 --target a100 --method wave
bad_input --model bert-large --mode decode --target a100

# A decode step with a long cache: the memory counts the KV cache
# (Llama-2-7B: 32 layers x 32 KV heads x 128 x K and V x 2 bytes = 0.5 MiB
# per token in FP16; 32 x 4096 tokens = 64 GiB, plus 12.6 GiB of weights,
# plus the one layer's cache, 2 GiB, that the step's concatenation copies)
# and the warning names the 24 GB L4, not the 141 GB H200.
"$BIN" --model llama-2-7b --mode decode --batch 32 --seq 4095 --dtype fp16 \
	--target l4 --target h200 >"$tmp/dec.txt" 2>&1
grep -q "weights 12\.5[0-9], KV cache 64\.00, transient 2\.00" "$tmp/dec.txt" &&
	grep -q "need 78\.[56] GiB: more than l4 has" "$tmp/dec.txt" &&
	grep -q "decode, batch 32, seq 4095" "$tmp/dec.txt"
check "decode: KV cache in the memory warning" $?

# Throughput: tokens an iteration processes over its predicted time (batch x
# seq x dp for a step of training, batch x dp for a decode step), and the
# price per million tokens from --price.
"$BIN" --model gpt2 --batch 4 --seq 256 --dp 2 --mode training --target a100 --price a100=2 \
	--json >"$tmp/tok.json" 2>/dev/null &&
"$BIN" --model gpt2 --batch 4 --seq 256 --mode decode --target a100 --json >"$tmp/tokd.json" &&
"$BIN" --model gpt2 --batch 4 --seq 256 --mode decode --target a100 >"$tmp/tokd.txt"
python3 - "$tmp/tok.json" "$tmp/tokd.json" "$tmp/tokd.txt" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["predictions"][0]
assert t["tokens_per_iteration"] == 4 * 256 * 2, t
assert abs(t["tokens_per_s"] - 2048 / (t["iteration_ms"] / 1e3)) < 1e-6 * t["tokens_per_s"], t
usd = 2.0 * 2 * t["iteration_ms"] / 1e3 / 3600   # $2/hour for each of the 2 GPUs
assert abs(t["cost_per_iteration_usd"] - usd) < 1e-9 * usd, t
assert abs(t["cost_per_million_tokens_usd"] - usd / 2048 * 1e6) < 1e-9 * usd * 1e6, t
d = json.load(open(sys.argv[2]))["predictions"][0]
assert d["tokens_per_iteration"] == 4, d
text = open(sys.argv[3]).read()
assert "throughput %.0f tokens/s" % (4 / (d["iteration_ms"] / 1e3)) in text, text
PY
check "tokens per second and price per million tokens" $?

# generate = the prompt's forward pass + (N - 1) decode steps, predicted at
# the middle cache length: rebuilt here from separate inference and decode
# runs; bounded by all steps at the shortest and at the longest cache; N
# new tokens per sequence; N = 1 is the prompt's pass alone.
g="--model llama-3.2-1b --batch 32 --dtype bf16 --target h100-sxm --json"
"$BIN" $g --mode generate --seq 4000 --new-tokens 2001 -n 0 >"$tmp/gen.json" 2>/dev/null &&
"$BIN" $g --mode generate --seq 4000 --new-tokens 1 >"$tmp/gen1.json" 2>/dev/null &&
"$BIN" $g --mode inference --seq 4000 >"$tmp/pre.json" 2>/dev/null &&
"$BIN" $g --mode decode --seq 4999 >"$tmp/mid.json" 2>/dev/null &&
"$BIN" $g --mode decode --seq 4000 >"$tmp/lo.json" 2>/dev/null &&
"$BIN" $g --mode decode --seq 5999 >"$tmp/hi.json" 2>/dev/null
python3 - "$tmp" <<'PY'
import json, sys
t = sys.argv[1]
p = lambda n: json.load(open("%s/%s.json" % (t, n)))["predictions"][0]
gen, pre, mid, lo, hi = p("gen"), p("pre"), p("mid"), p("lo"), p("hi")
want = pre["iteration_ms"] + 2000 * mid["iteration_ms"]
assert abs(gen["iteration_ms"] - want) < 1e-6 * want, (gen["iteration_ms"], want)
assert lo["iteration_ms"] < mid["iteration_ms"] < hi["iteration_ms"], (lo, mid, hi)
assert pre["iteration_ms"] + 2000 * lo["iteration_ms"] < gen["iteration_ms"] < \
    pre["iteration_ms"] + 2000 * hi["iteration_ms"]
assert gen["tokens_per_iteration"] == 32 * 2001, gen
# the kernel groups of both passes merged: they add up to the kernel time
assert abs(sum(k["predicted_ms"] for k in gen["breakdown"]) - gen["kernel_ms"]) < 1e-6 * gen["kernel_ms"]
assert abs(p("gen1")["iteration_ms"] - pre["iteration_ms"]) < 1e-9 * pre["iteration_ms"]
PY
check "generate: prompt pass + (N - 1) decode steps at the middle cache length" $?
bad_input --model gpt2 --mode generate --new-tokens 0 --target a100
bad_input --model t5-base --mode generate --target a100

# --method reaches the from-scratch predictions: the bare roofline is a lower
# bound, so forcing it cannot predict a longer iteration than auto, and the
# report names the method asked for.
"$BIN" --model gpt2 --batch 8 --seq 1024 --target a100 --json >"$tmp/auto.json" &&
"$BIN" --model gpt2 --batch 8 --seq 1024 --target a100 --method roofline --json >"$tmp/roof.json"
python3 - "$tmp/auto.json" "$tmp/roof.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["predictions"][0]
r = json.load(open(sys.argv[2]))["predictions"][0]
assert r["method"] == "roofline", r["method"]
assert 0 < r["iteration_ms"] < a["iteration_ms"], (r["iteration_ms"], a["iteration_ms"])
PY
check "--method roofline with --model: named in the report, faster than auto" $?

# --weights: weights surfer-train writes from a small sweep (one GPU, GEMMs
# 4x-16x slower than the compiled-in model expects) replace the compiled-in
# ones and move the GEMM-bound prediction; a cut file is refused with one line.
TRAIN="${BUILD:-build}/surfer-train"
{
	echo "OPName,Latency,Device,Kernel Name,Grid x,Grid y,Grid z,Block x,Block y,Block z,B,M,N,K"
	for mm in 256 512 1024 2048 4096; do for nn in 256 1024 4096; do for kk in 512 2048; do
		# FLOPs / 0.5 TFLOP/s, in ms: an eighth of a T4's rate
		awk -v m=$mm -v n=$nn -v k=$kk 'BEGIN { printf "linear,%.6f,Tesla T4,,0,0,0,0,0,0,1,%d,%d,%d\n", 2*m*n*k/0.5e9, m, n, k }'
	done; done; done
} >"$tmp/slow.csv"
"$TRAIN" --data "$tmp/slow.csv" --out "$tmp/w.bin" --epochs 30 --members 1 --quiet 2>"$tmp/err"
check "surfer-train writes weights ($(cat "$tmp/err"))" $?
"$BIN" --model gpt2 --batch 8 --seq 512 --target t4 --json >"$tmp/built.json" &&
"$BIN" --model gpt2 --batch 8 --seq 512 --target t4 --weights "$tmp/w.bin" --json >"$tmp/mine.json"
check "--weights FILE accepted" $?
python3 - "$tmp/built.json" "$tmp/mine.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))["predictions"][0]["iteration_ms"]
m = json.load(open(sys.argv[2]))["predictions"][0]["iteration_ms"]
assert m > 1.5 * b, (b, m)
PY
check "weights trained on slow GEMMs predict a slower iteration" $?
head -c 100 "$tmp/w.bin" >"$tmp/cut.bin"
bad_input --model gpt2 --target t4 --weights "$tmp/cut.bin"
bad_input --model gpt2 --target t4 --weights "$tmp/none.bin"

# The model's state against the GPU's memory: Mixtral-8x7B has 46.70 B
# parameters (32 layers of 4096x4096 q and o, 4096x1024 k and v, 8 experts of
# 3 x 4096x14336, a 4096x8 router and two norms, plus 2 x 32000x4096 untied
# embeddings and the final norm), 87.0 GiB in BF16: more than an H100's
# 80 GiB, less than an H200's 141; Llama-3-8B training with AdamW in BF16
# holds 4 x 2 bytes per parameter (59.8 GiB): too much for a 40 GB A100.
"$BIN" --model mixtral-8x7b --seq 256 --dtype bf16 --target h100-sxm --target h200 >"$tmp/mx.txt" 2>/dev/null
grep -q '^memory .* weights 8[67]\.[0-9]*, transient' "$tmp/mx.txt" &&
	grep -q '^warning    .* need 87.0 GiB: more than h100-sxm has$' "$tmp/mx.txt"
check "Mixtral in BF16 does not fit an H100 (warning: $(grep warning "$tmp/mx.txt"))" $?
"$BIN" --model llama-3-8b --mode training --optimizer adamw --dtype bf16 --target a100 \
	--target h200 >"$tmp/l3.txt" 2>/dev/null
# (and the step's foreach sqrt, another 2 bytes a parameter: 74.8 GiB)
grep -q 'weights 14\.9[0-9], gradients 14\.9[0-9], optimizer 29\.9[0-9]' "$tmp/l3.txt" &&
	grep -q 'need 74.8 GiB: more than a100-sxm4-40 has' "$tmp/l3.txt"
check "Llama-3-8B AdamW training does not fit a 40 GB A100 ($(grep warning "$tmp/l3.txt"))" $?
# With --tp 2 half the parameters per GPU need 39.84 GiB in pure BF16:
# under the 40 GB of the datasheet, over the 38.9 GiB the A100's driver and
# PyTorch's context leave; with --tp 4 it fits.
"$BIN" --model llama-3-8b --mode training --optimizer adamw --dtype bf16 --precision pure --tp 2 \
	--target a100 >"$tmp/l3tp.txt" 2>/dev/null
grep -q 'need 39.8 GiB: more than a100-sxm4-40 has' "$tmp/l3tp.txt"
check "with --tp 2 it does not fit the usable 38.9 GiB" $?
"$BIN" --model llama-3-8b --mode training --optimizer adamw --dtype bf16 --precision pure --tp 4 \
	--target a100 >"$tmp/l3tp.txt" 2>/dev/null
! grep -q 'GiB: more than' "$tmp/l3tp.txt"
check "with --tp 4 it fits (a quarter of the parameters per GPU)" $?
# More than one GPU of any parallelism keeps FP32 masters by default, as
# more than one data-parallel rank does (Megatron's TP and PP: 18 bytes a
# parameter, training-stacks.md sec. 5): --tp 2 and --pp 2 alone state
# what --precision mixed states for their half of the parameters (BF16 and
# FP32 weights, FP32 gradients and moments: 18 bytes each, twice pure
# BF16's 8 and more), not pure BF16's; one GPU stays pure.
mem_of() { sed -n 's/^memory  *\([0-9.]*\) GiB at the peak.*/\1/p' "$1"; }
for par in "--tp 2" "--pp 2" ""; do
	for prec in "" "--precision mixed" "--precision pure"; do
		"$BIN" --model llama-3-8b --mode training --optimizer adamw --dtype bf16 --batch 2 --seq 1024 \
			$par $prec --target h200 >"$tmp/prec.txt" 2>/dev/null
		mem_of "$tmp/prec.txt" >"$tmp/prec_${par#--}_${prec#--precision }.mem"
	done
done
for par in "tp 2" "pp 2"; do
	d=$(cat "$tmp/prec_${par}_.mem"); mx=$(cat "$tmp/prec_${par}_mixed.mem"); pu=$(cat "$tmp/prec_${par}_pure.mem")
	[ -n "$d" ] && [ "$d" = "$mx" ] && awk -v m="$mx" -v p="$pu" 'BEGIN { exit !(m > p + 20) }'
	check "--$par alone keeps FP32 masters by default: $d GiB, mixed $mx, pure $pu" $?
done
d=$(cat "$tmp/prec__.mem"); pu=$(cat "$tmp/prec__pure.mem")
[ -n "$d" ] && [ "$d" = "$pu" ]
check "one GPU stays pure by default: $d GiB, pure $pu" $?
# --all-targets: the GPUs a step does not fit are named while the line has
# room and counted after it, and the sentence ends whole (it was cut in
# the middle of a GPU's id behind the data-parallel note); as many GPUs in
# all as --all-targets predicts (1154 GiB a GPU fits none)
"$BIN" --model llama-3.1-70b --mode training --dtype bf16 --attention flash --batch 8 --seq 4096 \
	--dp 8 --zero 3 --all-targets >"$tmp/allt.txt" 2>/dev/null
nt=$(grep -c '^target ' "$tmp/allt.txt")
named=$(grep '^warning' "$tmp/allt.txt" | sed -n 's/.*GiB: more than \(.*\) and [0-9]* more have$/\1/p' |
	tr ',' '\n' | grep -c .)
more=$(grep '^warning' "$tmp/allt.txt" | sed -n 's/.* and \([0-9]*\) more have$/\1/p')
[ -n "$more" ] && [ "$named" -ge 3 ] && [ $((named + more)) -eq "$nt" ]
check "--all-targets: $named GPUs named and ${more:-?} counted, $nt targets in all" $?
# an engine without --dtype serves the checkpoint's BF16: --all-targets
# leaves out the GPUs without BF16 tensor cores, as it does for --dtype
# bf16 (it stopped at the M40 with exit 2)
"$BIN" --model llama-3.1-8b --engine vllm --mode decode --batch 8 --seq 1000 --all-targets \
	>"$tmp/alle.txt" 2>"$tmp/alle.err"
rc=$?
"$BIN" --model llama-3.1-8b --engine vllm --dtype bf16 --mode decode --batch 8 --seq 1000 \
	--all-targets 2>/dev/null | grep -c '^target ' >"$tmp/alle.n"
[ $rc -eq 0 ] && grep -q 'note: --all-targets leaves out [0-9]* GPUs' "$tmp/alle.err" &&
	[ "$(grep -c '^target ' "$tmp/alle.txt")" -eq "$(cat "$tmp/alle.n")" ] && ! grep -q '^target .*m40' "$tmp/alle.txt"
check "--engine vllm --all-targets: the GPUs its BF16 runs on, as with --dtype bf16 (rc $rc)" $?

# Real memory: the L4 reports 23034 MiB (22.49 GiB), of which the CUDA
# context and the libraries' workspaces take their share, so Llama-3-8B's
# inference of 10 x 2048 tokens in BF16 (14.96 GiB of weights and 8.36 of
# scores and their softmax, 23.32 GiB) does not fit it, though it is under
# the 24 GB of the datasheet; the JSON's capacity is under 22.6 GiB, and
# the plan's capacity is the same one.
"$BIN" --model llama-3-8b --batch 10 --seq 2048 --dtype bf16 -t l4 >"$tmp/l4.txt" 2>"$tmp/l4.err"
check "Llama-3-8B on an L4 exits 0 ($(cat "$tmp/l4.err"))" $?
grep -q '^memory     23\.3[0-9] GiB needed, 2[12]\.[0-9]* GiB usable here: does not fit' "$tmp/l4.txt" &&
	grep -q 'need 23.3 GiB: more than l4 has' "$tmp/l4.err"
check "Llama-3-8B at batch 10 does not fit the L4 ($(grep '^memory' "$tmp/l4.txt" | tail -1))" $?
"$BIN" --model llama-3-8b --batch 10 --seq 2048 --dtype bf16 -t l4 --json >"$tmp/l4.json" 2>/dev/null &&
"$BIN" --model llama-3-8b --batch 10 --seq 2048 --dtype bf16 -t l4 --plan 1 --json >"$tmp/l4p.json" 2>/dev/null
python3 - "$tmp/l4.json" "$tmp/l4p.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["predictions"][0]
assert 21 < p["memory_usable_gib"] < 22.6 and p["memory_fits"] is False, p
assert p["max_batch_fits"] < 10, p
t = json.load(open(sys.argv[2]))["targets"][0]
assert t["memory_usable_gib"] == p["memory_usable_gib"], t
assert t["layouts"][0]["memory_fits"] is False, t
PY
check "the L4's usable memory under 22.6 GiB in the JSON and the plan" $?

# Configs read completely: what the builder has no kernels for is refused
# with one line naming it, never built as the nearest known architecture
# (Qwen2-MoE as a dense Qwen2, Gemma 3 as Gemma 1); Mistral's window (a
# mask over the same scores) and Qwen2's unused one are built.
cat >"$tmp/qmoe.json" <<'EOF'
{"architectures": ["Qwen2MoeForCausalLM"], "model_type": "qwen2_moe", "hidden_size": 2048,
 "num_attention_heads": 16, "num_key_value_heads": 16, "num_hidden_layers": 24,
 "intermediate_size": 5632, "moe_intermediate_size": 1408, "num_experts": 60,
 "num_experts_per_tok": 4, "shared_expert_intermediate_size": 5632, "vocab_size": 151936,
 "sliding_window": 32768, "use_sliding_window": false}
EOF
cat >"$tmp/gemma3.json" <<'EOF'
{"architectures": ["Gemma3ForCausalLM"], "model_type": "gemma3_text", "hidden_size": 1152,
 "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 256, "num_hidden_layers": 26,
 "intermediate_size": 6912, "vocab_size": 262144, "sliding_window": 512,
 "sliding_window_pattern": 6, "query_pre_attn_scalar": 256}
EOF
# Intervals of iterations beyond 10 s read as milliseconds (four significant
# digits, whole from 1000 ms), never in exponent form ("5.334e+04"), in the
# report and in --plan's table (its three layouts of 2 GPUs).
"$BIN" --model gpt2-large --mode training --batch 32 --seq 1024 --target t4 >"$tmp/long.txt" 2>/dev/null
"$BIN" --model gpt2-large --mode training --batch 32 --seq 1024 --plan 2 --zero 0 --target t4 >>"$tmp/long.txt" 2>/dev/null
grep -q '^predicted  [0-9]\{5\}\.[0-9]* ms per iteration (80%: [0-9]\{5\}-[0-9]\{5\} ms)' "$tmp/long.txt" &&
	[ "$(grep -c '  [0-9]\{5\}-[0-9]\{5\}  ' "$tmp/long.txt")" -eq 3 ] && ! grep -q 'e+0' "$tmp/long.txt"
check "intervals beyond 10 s in plain milliseconds ($(grep -m1 '^predicted' "$tmp/long.txt"))" $?

# The interval's distance: from a config, the A100 SXM4 80GB is the die of
# the A100 PCIe 40GB the models learnt from (GA100) and the H100 a new
# architecture; no held-out iteration of a board of a known die exists,
# so both iterations' intervals come from new architectures, and say so.
"$BIN" --model gpt2 --mode training --batch 8 --seq 1024 --target a100-sxm4-80 --target h100-sxm \
	--json >"$tmp/dist.json" 2>/dev/null
python3 - "$tmp/dist.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["predictions"]
got = [(x["distance"], x["interval_distance"]) for x in t]
want = [("same-die", "new-architecture"), ("new-architecture", "new-architecture")]
sys.exit(0 if got == want else 1)
PY
check "interval_distance: the farther distance the interval came from" $?

# The interval's kind: an SGLang prefill in BF16 (its GEMMs and attention
# the tensor-core models') takes the tensor-core iterations' errors, an
# FP32 eager iteration (the tile model's) the other iterations'; JSON
# interval_method says which.
"$BIN" --model qwen2.5-7b --engine sglang --mode prefill --prompt-lens 2048,1024 --dtype bf16 \
	--target h100-sxm --json >"$tmp/kind-tc.json" 2>/dev/null &&
	"$BIN" --model gpt2 --batch 8 --seq 512 --target t4 --json >"$tmp/kind-auto.json" 2>/dev/null
python3 - "$tmp/kind-tc.json" "$tmp/kind-auto.json" <<'PY'
import json, sys
tc, auto = (json.load(open(f))["predictions"][0] for f in sys.argv[1:3])
ok = tc["interval_method"] == "tcgemm" and auto["interval_method"] == "auto"
ok = ok and tc["methods"].get("tcgemm", 0) > tc["methods"].get("vecop", 0)
ok = ok and auto["methods"].get("mlp", 0) > auto["methods"].get("tcgemm", 0)
for p in (tc, auto):
    ok = ok and p["iteration_ms_low"] < p["iteration_ms"] < p["iteration_ms_high"]
sys.exit(0 if ok else 1)
PY
check "interval_method: tensor-core iterations and the others" $?

# The header names what runs: --dtype fp8 with its recipe (it said bf16,
# the dtype of everything but the linears), one sequence in the singular.
"$BIN" --model llama-3-8b --mode training --batch 1 --seq 512 --dtype fp8 --fp8-recipe rowwise \
	--optimizer adamw --target h100-sxm 2>/dev/null | grep -q '^input .*, fp8 rowwise$'
check "--dtype fp8 --fp8-recipe rowwise named in the input line" $?
"$BIN" --model llama-3-8b --engine vllm --mode decode --batch 1 --seq 128 --dtype bf16 --target h100-sxm \
	2>/dev/null | grep -q '^input .*, 1 sequence of 128 tokens'
check "one served sequence in the singular" $?

# Gemma 3 4B's multimodal config.json: the language model in text_config,
# which names only what differs from Gemma3TextConfig (transformers'
# defaults: 8 heads, 4 KV heads, head_dim 256, vocabulary 262208,
# gelu_pytorch_tanh).  Served, it is the same model as the flat config
# spelling those defaults out; --engine hf refuses it with one line.
cat >"$tmp/gemma3mm.json" <<'EOF'
{"architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3",
 "text_config": {"hidden_size": 2560, "intermediate_size": 10240, "model_type": "gemma3_text",
  "num_hidden_layers": 34, "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
  "sliding_window": 1024},
 "vision_config": {"hidden_size": 1152, "num_hidden_layers": 27, "model_type": "siglip_vision_model"}}
EOF
cat >"$tmp/gemma3flat.json" <<'EOF'
{"architectures": ["Gemma3ForCausalLM"], "model_type": "gemma3_text", "hidden_size": 2560,
 "intermediate_size": 10240, "num_hidden_layers": 34, "num_attention_heads": 8,
 "num_key_value_heads": 4, "head_dim": 256, "vocab_size": 262208, "sliding_window": 1024,
 "sliding_window_pattern": 6, "hidden_activation": "gelu_pytorch_tanh"}
EOF
# g3_twins EXT WHAT TWINS ARGS...: both configs run with ARGS (each checked
# as WHAT), their predictions equal (checked as TWINS)
g3_twins() {
	ext=$1 what=$2 twins=$3
	shift 3
	for f in gemma3mm gemma3flat; do
		"$BIN" --model "$tmp/$f.json" "$@" --json >"$tmp/$f.$ext" 2>"$tmp/err"
		check "$f $what (rc $?: $(cat "$tmp/err"))" $?
	done
	g3m=$(ms_of "$tmp/gemma3mm.$ext")
	g3f=$(ms_of "$tmp/gemma3flat.$ext")
	[ -n "$g3m" ] && [ "$g3m" = "$g3f" ]
	check "$twins ($g3m = $g3f ms)" $?
}
g3_twins out served "Gemma 3 text_config predicted as its flat twin" --engine vllm --mode decode \
	--batch 8 --seq 2048 --dtype bf16 --target l20
g3_twins hf "built by --engine hf" "Gemma 3 multimodal trained as its flat twin under --engine hf" \
	--mode training --batch 1 --seq 2048 --dtype bf16 --optimizer adamw --target a100
# the class name alone (no model_type, no expert keys) is no Qwen2 either
cat >"$tmp/qarch.json" <<'EOF'
{"architectures": ["Qwen2MoeForCausalLM"], "hidden_size": 2048, "num_attention_heads": 16,
 "num_hidden_layers": 24, "intermediate_size": 5632, "vocab_size": 151936}
EOF
cat >"$tmp/gptneo.json" <<'EOF'
{"model_type": "gpt_neo", "hidden_size": 768, "num_heads": 12, "num_layers": 4, "vocab_size": 50257,
 "attention_layers": ["global", "local", "global", "local"], "window_size": 256}
EOF
cat >"$tmp/mistral.json" <<'EOF'
{"architectures": ["MistralForCausalLM"], "model_type": "mistral", "hidden_size": 4096,
 "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32,
 "intermediate_size": 14336, "vocab_size": 32000, "sliding_window": 4096}
EOF
for f in qmoe:num_experts gptneo:attention_types qarch:Qwen2MoeForCausalLM; do
	"$BIN" --model "$tmp/${f%%:*}.json" --target a100 >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "${f#*:}" "$tmp/err"
	check "${f%%:*} refused with one line naming ${f#*:} (rc $rc: $(cat "$tmp/err"))" $?
done
"$BIN" --model "$tmp/mistral.json" --target a100 >/dev/null 2>"$tmp/err"
check "Mistral with its 4096-token window is built ($(cat "$tmp/err"))" $?

# BF16 where there are no BF16 tensor cores is refused (one line naming the
# GPU and the dtype), not predicted at the FP16 tensor-core rate; FP16
# there is predicted; --all-targets leaves those GPUs out with a note.
for t in v100 t4; do
	"$BIN" --model gpt2 --dtype bf16 --target a100 --target $t >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "bf16 on $t.*no BF16" "$tmp/err"
	check "bf16 on $t refused (rc $rc: $(cat "$tmp/err"))" $?
done
"$BIN" --model gpt2 --dtype bf16 --target t4 --plan 2 >/dev/null 2>&1
[ $? -eq 2 ]; check "bf16 on t4 refused by --plan too" $?
"$BIN" --model gpt2 --dtype fp16 --target v100 >/dev/null 2>&1
check "fp16 on v100 predicted" $?
"$BIN" --model gpt2 --dtype bf16 --all-targets --json >"$tmp/all.json" 2>"$tmp/err"
check "bf16 --all-targets exits 0" $?
! grep -q '"target": "\(v100\|t4\)' "$tmp/all.json" && grep -q '"target": "a100-sxm4-40"' "$tmp/all.json" &&
	grep -q 'leaves out 15 GPUs .*(the first: --dtype bf16 on .*no BF16' "$tmp/err"
check "bf16 --all-targets leaves the V100s and the T4 out ($(cat "$tmp/err"))" $?
# a board in a benchmark table's words: the form factor without its
# generation, the memory its names lack
for t in "H100 SXM 80GB:h100-sxm" "L40S 48GB:l40s" "A100 80GB SXM:a100-sxm4-80"; do
	"$BIN" --model gpt2 --target "${t%%:*}" 2>/dev/null | grep -q "^target  *${t#*:} "
	check "--target '${t%%:*}' is ${t#*:}" $?
done
"$BIN" --model gpt2 --target "A100 SXM" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "names 2 GPUs: a100-sxm4-40, a100-sxm4-80" "$tmp/err"
check "--target 'A100 SXM' names the two boards ($(cat "$tmp/err"))" $?
# a run refused for a reason of its own says that reason alone: the note on
# the GPUs --all-targets left out came first, two lines for one bad input
"$BIN" --model gpt2 --attention fa2 --all-targets >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q 'fa2 needs --dtype bf16 or fp16' "$tmp/err"
check "--all-targets with --attention fa2 in FP32: exit 2 and one line (rc $rc: $(cat "$tmp/err"))" $?
"$BIN" --model no-such-model --dtype bf16 --all-targets >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "no-such-model" "$tmp/err"
check "--all-targets with an unknown model: exit 2 and one line (rc $rc: $(cat "$tmp/err"))" $?
# every GPU refuses the run: --all-targets says so and why, not "no target
# GPU: give --target GPU or --all-targets" to a command that gave the latter
"$BIN" --model gpt2 --power-limit 2000 --all-targets >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
	grep -q 'all-targets leaves no GPU .*(the first: --power-limit 2000 W on' "$tmp/err"
check "--all-targets that every GPU refuses: exit 2, the reason in one line (rc $rc: $(cat "$tmp/err"))" $?

# A fused kernel (flash_attn_func, Hugging Face's flash_attention_2) reads a
# GQA model's K and V at their 8 KV heads, where SDPA attends over them
# repeated to all 32 (repeat_kv), and keeps them so for backward; its
# output, (b, s, heads, d), is the output projection's input viewed, where
# SDPA's (b, heads, s, d) is transposed into a copy the projection keeps
# beside the one SDPA keeps.  Llama-3.1-8B at 1 x 8192 tokens in BF16 keeps
# (2 x (4096 - 1024) + 4096) x 8192 x 2 bytes a layer more under SDPA, 32
# layers: 5.0 GiB; GPT2-Large (no GQA) at 1 x 1024, 36 layers of 1280: the
# copy alone, 0.088 GiB.  (The estimate counted both as SDPA's.)
for m in llama-3.1-8b:8192:10240:32 gpt2-large:1024:1280:36; do
	name=${m%%:*}; rest=${m#*:}; seq=${rest%%:*}; rest=${rest#*:}; w=${rest%%:*}; L=${rest#*:}
	for a in sdpa fa2; do
		"$BIN" --model "$name" --mode training --batch 1 --seq "$seq" --dtype bf16 --attention $a \
			-t h100 --json 2>/dev/null | sed -n 's/.*"activations_gib": \([0-9.e+]*\).*/\1/p' >"$tmp/act.$a"
	done
	awk -v s="$(cat "$tmp/act.sdpa")" -v f="$(cat "$tmp/act.fa2")" -v T="$seq" -v w="$w" -v L="$L" \
		'BEGIN { d = (s - f) * 1073741824; x = w * T * 2 * L; exit !(s > 0 && f > 0 && d > 0.99 * x && d < 1.01 * x) }'
	check "$name: a fused kernel keeps K and V at the KV heads and its output once: sdpa $(cat "$tmp/act.sdpa") - fa2 $(cat "$tmp/act.fa2") GiB" $?
done

# --attention sdpa is PyTorch's FlashAttention-2 over K/V repeated to every
# head, --attention flash FlashAttention-3 on Hopper over the 8 KV heads: on
# an H100 the SDPA step cannot be the faster (it once was, 845 against 868
# ms, its kernels timed at the tensor cores' peak by the roofline).
sdpa_args="--model llama-3.1-8b --mode training --batch 2 --seq 4096 --dtype bf16 --optimizer adamw
	--dp 8 --zero 3 --target h100 --json"
sd=$("$BIN" $sdpa_args --attention sdpa 2>/dev/null | sed -n 's/.*"iteration_ms": \([0-9.e+]*\).*/\1/p' | head -1)
fl=$("$BIN" $sdpa_args --attention flash 2>/dev/null | sed -n 's/.*"iteration_ms": \([0-9.e+]*\).*/\1/p' | head -1)
awk -v s="$sd" -v f="$fl" 'BEGIN { exit !(s > 0 && f > 0 && s >= f) }'
check "H100: --attention sdpa (FA2, repeated K/V) $sd ms not faster than flash (FA3) $fl ms" $?

# GB200 NVL72: 18 hosts of 4 GPUs in one NVLink domain.  Tensor parallelism
# of 16 spans 4 hosts but never the network, where two HGX B200 nodes'
# TP 16 crosses InfiniBand; the GB200's peaks are the higher, so its step
# is the shorter.  (Its collectives were once placed on 4-GPU nodes and
# timed over the network: 2538 ms against the B200's 1800, Llama-3.1-70B;
# Llama-2-7B's 32 key/value heads take TP 16, which its 8 do not.)
nvl_args="--model llama-2-7b --mode training --batch 4 --seq 4096 --dtype bf16 --optimizer adamw
	--attention flash --act-ckpt full --zero 1 --tp 16 --json"
gb=$("$BIN" $nvl_args --target gb200 2>/dev/null | sed -n 's/.*"iteration_ms": \([0-9.e+]*\).*/\1/p' | head -1)
bw=$("$BIN" $nvl_args --target b200 2>/dev/null | sed -n 's/.*"iteration_ms": \([0-9.e+]*\).*/\1/p' | head -1)
awk -v g="$gb" -v b="$bw" 'BEGIN { exit !(g > 0 && b > 0 && g < b) }'
check "TP 16 inside GB200 NVL72's domain ($gb ms) faster than over two B200 nodes ($bw ms)" $?

# a config file that is no JSON (or no object): the line names the file
printf 'model_type = llama\n' >"$tmp/notjson.json"
"$BIN" --model "$tmp/notjson.json" --target h100 2>"$tmp/err" >/dev/null
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "'$tmp/notjson.json' line 1: " "$tmp/err"
check "a config that is no JSON: exit 2, its name and line ($(cat "$tmp/err"))" $?
printf '[1]\n' >"$tmp/array.json"
"$BIN" --model "$tmp/array.json" --target h100 2>&1 >/dev/null | grep -q "'$tmp/array.json': not a JSON object"
check "a config that is a JSON array names the file" $?

# --list-models: every built-in name, with parameter counts within 1% of the
# published ones (model cards: GPT-2 124M, Llama-2-7B 6.74B, Llama-3-8B
# and Llama-3.1-8B 8.03B, Llama-3.1-70B 70.6B, Llama-3.1-405B 405.9B,
# Mistral-7B 7.24B, Qwen2-7B 7.62B, Mixtral-8x7B 46.7B, Gemma-7B 8.54B,
# Switch-base-8 620M; Meta-Llama-3-70B and Llama-3.3-70B 70.6B, Llama-2-13b
# 13.0B, Llama-2-70b 69.0B, Llama-3.2-3B 3.21B; GPT-3 175B 175.0B (Brown
# et al. table 2.1), CodeLlama-34b 33.7B, Yi-34B 34.4B, DeepSeek-V2-Lite
# 15.7B); an unknown name points to the list.
"$BIN" --list-models --json >"$tmp/models.json" 2>"$tmp/err"
check "--list-models --json exits 0 ($(cat "$tmp/err"))" $?
python3 - "$tmp/models.json" <<'PY'
import json, sys
m = {x["name"]: x for x in json.load(open(sys.argv[1]))}
want = {"gpt2": 124e6, "llama-2-7b": 6.74e9, "llama-3-8b": 8.03e9, "llama-3.1-8b": 8.03e9,
        "llama-3.1-70b": 70.6e9, "llama-3.1-405b": 405.9e9, "mistral-7b": 7.24e9,
        "llama-3-70b": 70.6e9, "llama-3.3-70b": 70.6e9, "llama-2-13b": 13.0e9,
        "llama-2-70b": 69.0e9, "llama-3.2-3b": 3.21e9, "gpt3-175b": 175.0e9,
        "codellama-34b": 33.7e9, "yi-34b": 34.4e9, "deepseek-v2-lite": 15.7e9,
        "qwen2-7b": 7.62e9, "mixtral-8x7b": 46.7e9, "gemma-7b": 8.54e9, "switch-base-8": 620e6}
for name, p in want.items():
    assert abs(m[name]["params"] / p - 1) < 0.01, (name, m[name]["params"], p)
assert m["mixtral-8x7b"]["experts"] == 8 and m["mixtral-8x7b"]["experts_per_token"] == 2
assert len(m) >= 20
# the positions of their config.json (GPT-2's n_positions, Llama-3's and
# 3.1's max_position_embeddings), none for T5's relative ones
ctx = {"gpt2": 1024, "bert-large": 512, "llama-3-8b": 8192, "llama-3.1-70b": 131072, "t5-base": None,
       "llama-3-70b": 8192, "llama-2-70b": 4096, "llama-3.2-3b": 131072}
for name, n in ctx.items():
    assert m[name]["max_positions"] == n, (name, m[name]["max_positions"], n)
PY
check "--list-models: published parameter counts and positions" $?
"$BIN" --list-models | awk '$1 == "llama-3-8b" { ok = $NF == 8192 } $1 == "t5-base" { t5 = $NF == "-" }
	END { exit !(ok && t5) }'
check "--list-models text: llama-3-8b's context 8192, t5-base's none" $?
"$BIN" --list-models | grep -q '^mixtral-8x7b '
check "--list-models text lists mixtral-8x7b" $?
# Qwen3, Qwen3-MoE, Qwen2.5, Gemma 2 and 3 by name: parameter counts
# within 1% of their model cards (Qwen3-0.6B 0.6B, -1.7B 1.7B, -4B 4.0B,
# -8B 8.2B, -14B 14.8B, -32B 32.8B, -30B-A3B 30.5B, -235B-A22B 235B;
# Qwen2.5-7B 7.61B, -14B 14.7B, -72B 72.7B; gemma-2-2b 2.61B, -9b 9.24B,
# -27b 27.2B; gemma-3-1b 1.0B, and the language models of gemma-3-4b,
# -12b, -27b: 3.88B, 11.77B, 27.0B of 4.3, 12.2, 27.4 with the vision
# tower; gpt-oss-20b 20.9B and -120b 116.8B), the MoEs' experts and their
# top-k.
python3 - "$tmp/models.json" <<'PY'
import json, sys
m = {x["name"]: x for x in json.load(open(sys.argv[1]))}
# the card's figure, as it is rounded: within 1 % or half its last digit
want = {"qwen3-0.6b": "0.6", "qwen3-1.7b": "1.7", "qwen3-4b": "4.0", "qwen3-8b": "8.2",
        "qwen3-14b": "14.8", "qwen3-32b": "32.8", "qwen3-30b-a3b": "30.5", "qwen3-235b-a22b": "235",
        "qwen2.5-7b": "7.61", "qwen2.5-14b": "14.7", "qwen2.5-72b": "72.7",
        "gemma-2-2b": "2.61", "gemma-2-9b": "9.24", "gemma-2-27b": "27.2",
        "gemma-3-1b": "1.0", "gemma-3-4b": "3.88", "gemma-3-12b": "11.77", "gemma-3-27b": "27.0",
        "gpt-oss-20b": "20.9", "gpt-oss-120b": "116.8"}
for name, card in want.items():
    p = float(card) * 1e9
    digit = 10 ** -len(card.split(".")[1]) if "." in card else 1
    tol = max(0.01 * p, 0.5 * digit * 1e9)
    assert abs(m[name]["params"] - p) <= tol, (name, m[name]["params"], p)
for name in ("qwen3-30b-a3b", "qwen3-235b-a22b"):
    assert m[name]["experts"] == 128 and m[name]["experts_per_token"] == 8, name
assert m["gpt-oss-120b"]["experts"] == 128 and m["gpt-oss-20b"]["experts"] == 32
assert m["gpt-oss-20b"]["experts_per_token"] == 4
PY
check "--list-models: Qwen3, Qwen2.5, Gemma 2/3 at their published parameter counts" $?
# A name is read as its config file is: Gemma 2's and gpt-oss's local
# layers are built under hf (their decode, transformers' sliding-window
# caches, is not); and the spellings --model accepts for a name.
for m in gemma-2-9b gpt-oss-20b; do
	"$BIN" --model $m --batch 1 --seq 128 --dtype bf16 --target h100 >/dev/null 2>"$tmp/err"
	check "$m under hf: built ($(cat "$tmp/err"))" $?
	bad_input --model $m --mode decode --batch 1 --seq 128 --dtype bf16 --target h100
	grep -q "sliding-window layers (Gemma 2/3's HybridCache, gpt-oss's window caches)" "$tmp/err"
	check "$m's decode under hf: refused ($(cat "$tmp/err"))" $?
done
# transformers has no SDPA or flash_attention_2 for gpt-oss's sinks:
# asked for, refused with the ways out named; Gemma 2 takes them
for a in sdpa flash; do
	bad_input --model gpt-oss-20b --attention $a --batch 1 --seq 128 --dtype bf16 --target h100
	grep -q "gpt-oss runs its attention sinks in eager attention only.*--engine sglang or vllm" "$tmp/err"
	check "gpt-oss under hf with --attention $a: refused ($(cat "$tmp/err"))" $?
	"$BIN" --model gemma-2-9b --attention $a --batch 1 --seq 128 --dtype bf16 --target h100 >/dev/null 2>&1
	check "gemma-2-9b under hf with --attention $a: built" $?
done
for spelled in Qwen3-8B qwen3_8b QWEN3-8B; do
	"$BIN" --model "$spelled" --engine sglang --mode prefill --prompt-lens 64 --dtype bf16 --target h100 \
		>/dev/null 2>"$tmp/err" || break
done
check "--model Qwen3-8B, qwen3_8b and QWEN3-8B name qwen3-8b ($(cat "$tmp/err"))" $?
# A built-in by its Hugging Face repository, as copied from the Hub: the
# owner, Meta's "Meta-" and the suffixes that leave the shapes (Instruct,
# -hf, a version) dropped; the model and its time are the built-in's.  A
# suffix that may change the shapes is not dropped.
jm() { "$BIN" --model "$1" --mode training --batch 1 --seq 256 --dtype bf16 --target h100 --json 2>"$tmp/err" |
	python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["origin"]["device"].split(",")[0].split()[-1], d["predictions"][0]["iteration_ms"])'; }
for pair in llama-3-8b:meta-llama/Meta-Llama-3-8B llama-3.1-8b:meta-llama/Llama-3.1-8B-Instruct \
	    mixtral-8x7b:mistralai/Mixtral-8x7B-Instruct-v0.1 llama-2-7b:meta-llama/Llama-2-7b-hf \
	    qwen3-32b:Qwen/Qwen3-32B llama-3.3-70b:meta-llama/Llama-3.3-70B-Instruct; do
	a=$(jm "${pair%%:*}") b=$(jm "${pair#*:}")
	[ -n "$a" ] && [ "$a" = "$b" ] && [ "${a%% *}" = "${pair%%:*}" ]
	check "--model ${pair#*:} is ${pair%%:*} ($a / $b)" $?
done
bad_input --model meta-llama/Llama-3.1-8B-Vision --target h100
grep -q "no file and no built-in model named 'meta-llama/Llama-3.1-8B-Vision'" "$tmp/err"
check "a Hub id whose suffix may change the shapes: refused, named ($(cat "$tmp/err"))" $?
# a misspelt name: the built-in names within three edits, nearest first;
# a word far from every name gets none
bad_input --model lama-3-8b --target h100
grep -q "named 'lama-3-8b'; closest: llama-3-8b, " "$tmp/err"
check "--model lama-3-8b: closest llama-3-8b first ($(cat "$tmp/err"))" $?
bad_input --model xyzzy --target h100
! grep -q 'closest' "$tmp/err"
check "--model xyzzy: no guess ($(cat "$tmp/err"))" $?
# without a target the model's refusal comes first, not "no target GPU"
bad_input --model lama-3-8b
grep -q "named 'lama-3-8b'" "$tmp/err"
check "--model lama-3-8b without --target: the model's refusal ($(cat "$tmp/err"))" $?
bad_input --model gpt2
grep -q "no target GPU" "$tmp/err"
check "--model gpt2 without --target: no target GPU ($(cat "$tmp/err"))" $?
# where PipeWeave's configs are there: a name and its config.json predict
# the same (Qwen2.5-72B's published dims are Qwen2-72B's)
PWC="${SHARED_DATA:-../shared/data}/pipeweave/e2e/config"
if [ -d "$PWC" ]; then
	for pair in qwen2.5-14b:Qwen2.5-14B qwen2.5-32b:Qwen2.5-32B qwen3-14b:Qwen3-14B qwen3-32b:Qwen3-32B \
		    qwen2.5-72b:Qwen2-72B; do
		name=${pair%%:*} f=${pair#*:}
		a=$("$BIN" --model "$name" --engine sglang --mode serve --prompt-lens 300,700 --new-tokens 4 \
			--dtype bf16 --tp 2 --target l40 --json 2>/dev/null | grep -E '"(iteration_ms|peak_gib|kernels)"')
		b=$("$BIN" --model "$PWC/$f.json" --engine sglang --mode serve --prompt-lens 300,700 --new-tokens 4 \
			--dtype bf16 --tp 2 --target l40 --json 2>/dev/null | grep -E '"(iteration_ms|peak_gib|kernels)"')
		[ -n "$a" ] && [ "$a" = "$b" ]
		check "--model $name predicts as PipeWeave's $f.json" $?
		# and holds the positions its config.json does (max_position_embeddings;
		# Qwen2-72B's file is not Qwen2.5-72B's own there)
		[ "$name" = qwen2.5-72b ] && continue
		a=$("$BIN" --model "$name" --engine sglang --mode decode --batch 1 --seq 200000 --dtype bf16 \
			--tp 8 --target h100 2>&1 >/dev/null | grep -o 'beyond the [0-9]*')
		b=$("$BIN" --model "$PWC/$f.json" --engine sglang --mode decode --batch 1 --seq 200000 \
			--dtype bf16 --tp 8 --target h100 2>&1 >/dev/null | grep -o 'beyond the [0-9]*')
		[ -n "$a" ] && [ "$a" = "$b" ]
		check "--model $name holds the positions of PipeWeave's $f.json ($a, $b)" $?
	done
else
	echo "model_cli: $PWC absent: the built-in configs' check skipped"
fi
bad_input --model gpt-17 --target a100
grep -q -- '--list-models' "$tmp/err"
check "an unknown model name points to --list-models" $?

# An AMD target reports the scale its tile-model times carry, the
# compiled-in one of predictor/amd_scale.c; an NVIDIA target none.
"$BIN" --model gpt2 --batch 2 --seq 128 --target mi250 --target a100 --json >"$tmp/amd.json" 2>&1 &&
"$BIN" --model gpt2 --batch 2 --seq 128 --target mi250 >"$tmp/amd.txt" 2>&1
check "an AMD and an NVIDIA target predicted" $?
python3 - "$tmp/amd.json" predictor/amd_scale.c <<'PY'
import json, re, sys
p = {q["target"]: q for q in json.load(open(sys.argv[1]))["predictions"]}
src = open(sys.argv[2]).read()
vals = [float(v) for v in re.findall(r"^\s*([0-9.]+),\s*/\* [a-z-]+ \*/", src, re.M)]
names = re.findall(r"/\* ([a-z-]+) \*/", src)
s = p["mi250"]["amd_scale"]
assert len(vals) == 6 and all(abs(s[n] - v) < 1e-9 for n, v in zip(names, vals)), (s, vals)
fixed = float(re.search(r"^\s*([0-9.]+),\s*/\* fixed cost", src, re.M).group(1))
assert abs(s["fixed_us"] - fixed / 1e3) < 1e-9, (s, fixed)
assert "amd_scale" not in p["a100-sxm4-40"]
PY
check "--json: the AMD target's amd_scale is predictor/amd_scale.c's, the NVIDIA target has none" $?
grep -q '^AMD scale  gemm .*gemm-bt .*us/kernel$' "$tmp/amd.txt" &&
	[ "$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$tmp/amd.txt")" -le 100 ]
check "the text report names the AMD scale within 100 columns" $?

# --launch-us-from TRACE: the launch cost is the median gap between one
# thread's kernel launches in the trace (worked out here from surfer-dump's
# kernel records), and predicts as --launch-us with that figure does.
MK="${BUILD:-build}/tests/mkanalyzer"
"$MK" step "Tesla T4" "$tmp/lb.mp" --launch-bound --layers 6 --iterations 2 >/dev/null 2>&1
check "mkanalyzer writes a launch-bound trace" $?
"${BUILD:-build}/surfer-dump" "$tmp/lb.mp" >"$tmp/lb.jsonl" 2>/dev/null
med=$(python3 - "$tmp/lb.jsonl" <<'PY'
import json, sys, collections
by = collections.defaultdict(list)
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("type") == "kernel" and r.get("cpu_ns"):
        by[r.get("thread", 0)].append(r["cpu_ns"])
gaps = sorted(b - a for v in by.values() for a, b in zip(sorted(v), sorted(v)[1:]))
n = len(gaps)
print("%.6f" % ((gaps[n // 2] if n % 2 else (gaps[n // 2 - 1] + gaps[n // 2]) / 2) / 1e3))
PY
)
"$BIN" --model gpt2 --batch 1 --seq 64 --target h100 --launch-us-from "$tmp/lb.mp" --json \
	>"$tmp/lf.json" 2>"$tmp/lf.err"
check "--launch-us-from exits 0 ($(cat "$tmp/lf.err"))" $?
note=$(sed -n 's/.*note: \([0-9.]*\) us per launch.*/\1/p' "$tmp/lf.err")
awk -v a="$note" -v b="$med" 'BEGIN { exit !(a != "" && b > 0 && a - b < 0.006 && b - a < 0.006) }'
check "--launch-us-from: $note us, the trace's median gap $med us" $?
"$BIN" --model gpt2 --batch 1 --seq 64 --target h100 --launch-us "$med" --json >"$tmp/lu.json" 2>/dev/null
python3 - "$tmp/lf.json" "$tmp/lu.json" <<'PY'
import json, sys
a, b = (json.load(open(f))["predictions"][0]["iteration_ms"] for f in sys.argv[1:3])
assert abs(a - b) <= 1e-6 * b, (a, b)
PY
check "--launch-us-from predicts as --launch-us with the median" $?
bad_input --model gpt2 --target a100 --launch-us-from "$tmp/no-such.mp"
printf 'not a trace' >"$tmp/junk.mp"
bad_input --model gpt2 --target a100 --launch-us-from "$tmp/junk.mp"

# More than one node: --nodes 2 of the H100's dgx-h100 (8 GPUs) fills dp 16,
# whose all-reduces run over NVLink and the nodes' eight 400 Gb/s NICs;
# --dp 16 alone, more ranks than a node of the system holds, is placed on
# its nodes the same way (it kept all 16 in one node, a ring wider than the
# 8-GPU NVLink domain crossing PCIe); --system names the machine (AWS p5:
# EFA, the same rate, higher latency: slower) and is the target when no
# --target is given.
for cfg in "one:--dp 16" "two:--nodes 2" "efa:--nodes 2 --system p5-h100"; do
	name=${cfg%%:*}
	# shellcheck disable=SC2086
	"$BIN" --model gpt2 --batch 4 --seq 512 --mode training --target h100 ${cfg#*:} --json \
		>"$tmp/n_$name.json" 2>"$tmp/n_$name.err"
	check "--model with ${cfg#*:} exits 0 ($(cat "$tmp/n_$name.err"))" $?
done
"$BIN" --model gpt2 --batch 4 --seq 512 --mode training --system dgx-h100 --nodes 2 --json \
	>"$tmp/n_sys.json" 2>/dev/null
grep -q '"target": "h100-sxm"' "$tmp/n_sys.json"
check "--system dgx-h100 without --target predicts its H100" $?
python3 - "$tmp/n_one.json" "$tmp/n_two.json" "$tmp/n_efa.json" <<'PY'
import json, sys
def comm(f):
    d = json.load(open(f))
    p = d["predictions"][0]
    return sum(k["predicted_ms"] for k in p["breakdown"] if k["op"] == "comm")
one, two, efa = (comm(f) for f in sys.argv[1:4])
assert abs(one - two) <= 1e-9 * two and efa > two, (one, two, efa)
PY
check "--dp 16 on the two nodes --nodes 2 gives, EFA slower than InfiniBand" $?
# --nics and --nic-gbit: the DGX H100 networked otherwise.  Its own eight
# 400 Gb/s NICs change nothing; 100 Gb/s NICs give each GPU a quarter of
# the network, a slower all-reduce across the nodes (the NVLink stages in
# the nodes stay); one such NIC a node an eighth of that again, where the
# network is nearly all of the collective: close to 8 x.
for cfg in "same:--nics 8 --nic-gbit 400" "slow:--nic-gbit 100" "one:--nics 1 --nic-gbit 100"; do
	name=${cfg%%:*}
	# shellcheck disable=SC2086
	"$BIN" --model gpt2 --batch 4 --seq 512 --mode training --system dgx-h100 --nodes 2 ${cfg#*:} \
		--json >"$tmp/net_$name.json" 2>"$tmp/net_$name.err"
	check "--system dgx-h100 --nodes 2 ${cfg#*:} exits 0 ($(cat "$tmp/net_$name.err"))" $?
done
python3 - "$tmp/n_sys.json" "$tmp/net_same.json" "$tmp/net_slow.json" "$tmp/net_one.json" <<'PY'
import json, sys
preds = [json.load(open(f))["predictions"] for f in sys.argv[1:5]]
assert preds[0] == preds[1], "the DGX H100's own network changed the prediction"
comm = [sum(k["predicted_ms"] for k in p[0]["breakdown"] if k["op"] == "comm") for p in preds]
base, slow, one = comm[0], comm[2], comm[3]
assert slow > 2 * base, (base, slow)
assert 6 < one / slow < 8.5, (slow, one)
assert preds[3][0]["iteration_ms"] > preds[2][0]["iteration_ms"] > preds[0][0]["iteration_ms"]
PY
check "--nics / --nic-gbit: the system's own network as before, slower NICs slower collectives" $?
# each prediction of more than one GPU names the machine its collectives
# took: the DGX H100's row (8 GPUs on NVSwitch with NVLS, 8 x 400 Gb/s
# NDR InfiniBand), the NICs --nics and --nic-gbit gave; one GPU none
python3 - "$tmp/n_sys.json" "$tmp/net_one.json" <<'PY'
import json, sys
own, one = (json.load(open(f))["predictions"][0]["system"] for f in sys.argv[1:3])
assert own == {"id": "dgx-h100", "gpus_per_node": 8, "nvlink_domain": 8, "nvls": True,
               "nics_per_node": 8, "nic_gbit": 400, "network": "ib-ndr"}, own
assert dict(own, nics_per_node=1, nic_gbit=100) == one, one
PY
check "the JSON names the system and its network, as given" $?
"$BIN" --model gpt2 --batch 4 --seq 512 --mode training --system dgx-h100 --nodes 2 --nics 1 \
	--nic-gbit 100 2>/dev/null | grep -qx 'system     dgx-h100: 8 GPUs a node, NVLink domain of 8 with NVLS; between nodes 1 x 100 Gb/s ib-ndr a node'
check "the report names the system and its network" $?
"$BIN" --model gpt2 --batch 4 --seq 512 --mode training --target h100 --json 2>/dev/null |
	python3 -c 'import json, sys; sys.exit("system" in json.load(sys.stdin)["predictions"][0])'
check "one GPU: no system in the JSON" $?
# a board of the same links in the named machine is timed on that
# machine's links, as its note says: the H100 SXM 96 GB in two DGX H100
# nodes takes their InfiniBand, not its own default's RoCE, and its
# collectives are the H100 SXM's there
"$BIN" --model gpt2 --batch 4 --seq 512 --mode training --system dgx-h100 --target h100-sxm-96 \
	--nodes 2 --json >"$tmp/n_96.json" 2>/dev/null
python3 - "$tmp/n_sys.json" "$tmp/n_96.json" <<'PY'
import json, sys
h, h96 = (json.load(open(f))["predictions"][0] for f in sys.argv[1:3])
assert h96["system"]["id"] == "dgx-h100", h96["system"]
comm = lambda p: {k["kernel"]: k["predicted_ms"] for k in p["breakdown"] if k["op"] == "comm"}
assert comm(h) and comm(h) == comm(h96), (comm(h), comm(h96))
PY
check "--system dgx-h100 --target h100-sxm-96: the DGX H100's network, the H100's collectives" $?
# --plan over two DGX H100 nodes names the machine per target too, with the
# network --nic-gbit gave it, and no layout is faster over 25 Gb/s NICs
# than over the row's 400
for g in 400 25; do
	"$BIN" --model gpt2 --batch 16 --seq 512 --mode training --system dgx-h100 --plan 16 \
		--nic-gbit $g --json >"$tmp/plan_$g.json" 2>/dev/null
	check "--plan 16 --nic-gbit $g exits 0" $?
done
python3 - "$tmp/plan_400.json" "$tmp/plan_25.json" <<'PY'
import json, sys
fast, slow = (json.load(open(f))["targets"][0] for f in sys.argv[1:3])
assert fast["system"]["nic_gbit"] == 400 and slow["system"]["nic_gbit"] == 25, (fast, slow)
assert slow["system"]["id"] == "dgx-h100" and slow["system"]["nics_per_node"] == 8, slow["system"]
timed = ("iteration_ms", "iteration_ms_low", "iteration_ms_high", "tokens_per_s", "comm_exposed_ms")
key = lambda l: json.dumps({k: v for k, v in l.items() if k not in timed}, sort_keys=True)
f = {key(l): l["iteration_ms"] for l in fast["layouts"] if "iteration_ms" in l}
s = {key(l): l["iteration_ms"] for l in slow["layouts"] if "iteration_ms" in l}
common = set(f) & set(s)
assert common and all(s[k] >= f[k] * (1 - 1e-9) for k in common), [(k, f[k], s[k]) for k in common if s[k] < f[k]]
PY
check "--plan names the system and its network; slower NICs slow no layout" $?
"$BIN" --model gpt2 --batch 16 --seq 512 --mode training --system dgx-h100 --plan 16 --nic-gbit 25 \
	2>/dev/null | grep -qx 'system     dgx-h100: 8 GPUs a node, NVLink domain of 8 with NVLS; between nodes 8 x 25 Gb/s ib-ndr a node'
check "--plan's text names the system under each target" $?
bad_input --model gpt2 --mode training --target h100 --nodes 2 --nic-gbit 100
bad_input --model gpt2 --mode training --system dgx-h100 --nodes 2 --nics 0
bad_input --model gpt2 --mode training --system dgx-h100 --nodes 2 --nics 65
bad_input --model gpt2 --mode training --system dgx-h100 --nodes 2 --nic-gbit 0
bad_input --model gpt2 --mode training --system dgx-h100 --nodes 2 --nic-gbit 100g
# --power-limit caps the compute, not the links: two capped nodes keep the
# DGX H100's network (the capped copy of the GPU is the same board in the
# same system), and the same --system p5-h100
"$BIN" --model gpt2 --batch 4 --seq 512 --mode training --target h100 --nodes 2 --power-limit 500 \
	--json >"$tmp/n_cap.json" 2>/dev/null &&
	"$BIN" --model gpt2 --batch 4 --seq 512 --mode training --target h100 --nodes 2 --power-limit 500 \
		--system p5-h100 --json >"$tmp/n_capefa.json" 2>/dev/null
check "--power-limit with --nodes exits 0" $?
python3 - "$tmp/n_two.json" "$tmp/n_cap.json" "$tmp/n_efa.json" "$tmp/n_capefa.json" <<'PY'
import json, sys
def comm(f):
    d = json.load(open(f))
    p = d["predictions"][0]
    return sum(k["predicted_ms"] for k in p["breakdown"] if k["op"] == "comm")
two, cap, efa, capefa = (comm(f) for f in sys.argv[1:5])
assert abs(two - cap) < 1e-9 * two and abs(efa - capefa) < 1e-9 * efa, (two, cap, efa, capefa)
PY
check "--power-limit keeps the system's links (collectives as uncapped)" $?
"$BIN" --model gpt2 --batch 4 --seq 512 --mode training --target h100 --nodes 2 2>&1 >/dev/null |
	grep -q 'on 2 nodes of 8'

check "the warning names the nodes" $?
bad_input --model gpt2 --target h100 --system dgx-z9000
# --system holds its GPU: an A100 in a DGX H100 (other links) and every GPU
# in one are refused; the system's GPU is the target without --target
# (above); the H100 SXM 96 GB shares the DGX H100's compute capability,
# NVLink and PCIe, so its links are the system's: a note, then the report
bad_input --model gpt2 --system dgx-h100 --target a100-sxm4-80
bad_input --model gpt2 --system dgx-h100 --all-targets
"$BIN" --model gpt2 --system dgx-h100 --target a100-sxm4-80 2>&1 >/dev/null | grep -q 'system dgx-a100-80'
check "--system of another GPU than --target names the target's own system" $?
"$BIN" --model gpt2 --system dgx-h100 --target h100-sxm-96 --json 2>"$tmp/err" |
	grep -q '"target": "h100-sxm-96"' && grep -q 'note: --system dgx-h100 holds h100-sxm' "$tmp/err"
check "--system dgx-h100 --target h100-sxm-96: predicted on its links, with a note" $?
bad_input --model gpt2 --mode training --target h100 --nodes 2 --dp 3
# HSDP of 16 ranks without --nodes: the two nodes of 8 they need
for cfg in "auto:--dp 16" "nodes:--nodes 2"; do
	# shellcheck disable=SC2086
	"$BIN" --model gpt2 --mode training --target h100 ${cfg#*:} --zero 3 --hsdp --json \
		>"$tmp/hsdp_${cfg%%:*}.json" 2>"$tmp/err"
	check "--zero 3 --hsdp with ${cfg#*:} exits 0 ($(cat "$tmp/err"))" $?
done
python3 - "$tmp/hsdp_auto.json" "$tmp/hsdp_nodes.json" <<'PY'
import json, sys
a, b = (json.load(open(f))["predictions"][0]["iteration_ms"] for f in sys.argv[1:3])
assert abs(a - b) <= 1e-9 * b, (a, b)
PY
check "--dp 16 --hsdp as --nodes 2 --hsdp" $?
bad_input --model gpt2 --mode training --target h100 --dp 12 --zero 3 --hsdp
bad_input --model gpt2 --mode training --target h100 --seq 100 --cp 3

# Expert parallelism: --ep must divide the experts and --dp, needs experts,
# and an engine splits whole experts over --tp GPUs only.
ds="--model deepseek-v3 --mode training --dtype bf16 --attention flash --optimizer adamw --seq 4096"
bad_input $ds --dp 6 --ep 3 --target h100
bad_input $ds --dp 8 --ep 16 --target h100
bad_input $ds --dp 8 --ep 0 --target h100
bad_input $ds --dp 8 --ep 8 --zero 3 --fsdp 1 --target h100
# MXFP8's block-scaled GEMMs are Blackwell's
bad_input --model llama-3-8b --mode training --dtype fp8 --fp8-recipe mxfp8 --target h100
bad_input $ds --dp 16 --ep 8 --zero 3 --hsdp --nodes 2 --target h100
bad_input --model llama-3-8b --mode training --dp 2 --ep 2 --target h100
# MLA is built as fused attention only: without --attention a 16-bit run
# takes flash (and says so); FP32, eager named and the transformers decode
# path are refused
bad_input --model deepseek-v3 --mode training --seq 4096 --target h100
bad_input --model deepseek-v3 --mode training --dtype bf16 --attention eager --seq 4096 --target h100
bad_input --model deepseek-v2 --mode decode --dtype bf16 --target h100
"$BIN" --model deepseek-v2 --mode training --dtype bf16 --seq 1024 --target h100 >"$tmp/mla.txt" 2>/dev/null &&
	grep -q '^input .*, MLA as flash attention$' "$tmp/mla.txt" &&
	"$BIN" --model deepseek-v2 --mode training --dtype bf16 --seq 1024 --target h100 --attention flash \
		>"$tmp/mla-flash.txt" 2>/dev/null &&
	! grep -q 'MLA as flash' "$tmp/mla-flash.txt" &&
	[ "$(grep '^predicted' "$tmp/mla.txt")" = "$(grep '^predicted' "$tmp/mla-flash.txt")" ]
check "deepseek-v2 in bf16 without --attention: flash, said in the input line, the prediction of --attention flash" $?
"$BIN" --model deepseek-v2 --mode training --dtype bf16 --seq 1024 --target h100 --plan 8 --zero 1 \
	2>/dev/null | head -1 | grep -q '^plan .*, bf16, MLA as flash attention, zero 1 ('
check "deepseek-v2 --plan without --attention: flash, said in its header" $?
"$BIN" --model deepseek-v2 --mode training --dtype bf16 --seq 1024 --target h100 --plan 8 --zero 1 --json \
	2>/dev/null | python3 -c 'import json, sys; d = json.load(sys.stdin); assert d["attention"] == "flash"'
check "deepseek-v2 --plan --json without --attention: \"attention\": \"flash\"" $?
# a plan's reasons whole: the refusal of a plan none of whose layouts builds
# (FP32 MLA), and a layout's row (a TP degree that splits the KV heads)
"$BIN" --model deepseek-v2 --mode training --seq 1024 --target h100 --plan 8 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q '^surfer-analyze: --plan 8: no layout builds: .*decode runs with --engine sglang or vllm$' "$tmp/err"
check "a plan none of whose layouts builds is refused with the whole reason" $?
# a batch too small for the data-parallel ranks and a model too small for the
# model-parallel degrees left: the refusal names both (Llama 3.1 405B on 1024
# GPUs at batch 1: tp 8 x pp 128 passes its 126 layers); before, only the
# first layout's "--pp 1024 exceeds the 126 layers", as if --pp were the fault
"$BIN" --model llama-3.1-405b --mode training --dtype bf16 --seq 8192 --batch 1 --target h100 \
	--plan 1024 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
	grep -q '^surfer-analyze: --plan 1024: no layout builds: batch 1 not split over 2 ranks, nor over the ranks of [0-9]* more layouts; the other [0-9]* fail on [0-9]* reasons, the first: --pp 1024 exceeds the 126 layers$' "$tmp/err"
check "a plan that fails on the batch and on the model says both, in one line" $?
# a collective overlapped with compute takes its SMs from the compute: beside
# each side-stream collective the compute stream runs a kernel of its time
# times NCCL's share of the SMs (predictor/comm.c: 24 of the A100's 108 for
# more than two ranks, 8 for two, in real traces), none over PCIe; the
# shares are the trace's block counts, not this code's output
sm_share() { # sm_share TARGET DP: the share kernel's launches and time over the side stream's
	"$BIN" --model llama-3-8b --mode training --batch 8 --seq 2048 --dtype bf16 --attention flash \
		--optimizer adamw-fused --dp "$2" --zero 3 --target "$1" --json -n 0 2>/dev/null |
		python3 -c 'import json, sys
rows = json.load(sys.stdin)["predictions"][0]["breakdown"]
share = [r for r in rows if r["kernel"] == "nccl_overlap_sm_share"]
coll = [r for r in rows if r["op"] == "comm" and r["kernel"].startswith("ncclDevKernel_")]
n = sum(r["launches"] for r in coll)
if not share:
    print(0, n, 0.0)
else:
    print(share[0]["launches"], n, share[0]["predicted_ms"] / sum(r["predicted_ms"] for r in coll))'
}
set -- $(sm_share h100 8)
[ "$1" -gt 0 ] && [ "$1" -eq "$2" ] &&
	python3 -c "import sys; sys.exit(abs($3 - 24 / 108) > 1e-6)"
check "FSDP on eight H100s: each side-stream collective's SMs (24 / 108 of its time) taken on the compute stream" $?
set -- $(sm_share a100-sxm4-80 2)
[ "$1" -gt 0 ] && [ "$1" -eq "$2" ] && python3 -c "import sys; sys.exit(abs($3 - 8 / 108) > 1e-6)"
check "FSDP on two A100s: 8 / 108 of each collective's time taken from the compute" $?
set -- $(sm_share l40s 8)
[ "$1" -eq 0 ] && [ "$2" -gt 0 ]
check "FSDP on eight L40S over PCIe: no share (not measured there), none listed" $?
# the share runs on the compute stream, beside the collective on the side stream
"$BIN" --model llama-3-8b --mode training --batch 8 --seq 2048 --dtype bf16 --attention flash \
	--optimizer adamw-fused --dp 8 --zero 3 --target h100 --chrome-trace "$tmp/share.json" >/dev/null 2>&1 &&
	python3 -c 'import json, sys
ev = json.load(open(sys.argv[1]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
tid = lambda n: {e["tid"] for e in ev if e.get("ph") == "X" and e["name"].startswith(n)}
share, gemm, coll = tid("nccl_overlap_sm_share"), tid("gemm_"), tid("ncclDevKernel_AllGather")
sys.exit(not (share and share == gemm and not share & coll))' "$tmp/share.json"
check "the SM share kernels run on the compute stream's lane, the gathers on another" $?
"$BIN" --model llama-3-8b --mode training --dtype bf16 --seq 1024 --batch 16 --target h100 --plan 16 --zero 1 \
	2>/dev/null | grep -q ' 16 .*--tp 16 does not divide the 8 key/value heads: .*(--engine vllm or sglang replicates them)$'
check "a plan's row that does not build gives its whole reason" $?
# the layouts that do not build for one reason are one row with their count
# (JSON lists each): on 32 GPUs, tp 16 under two dp x pp and three ZeRO
# stages, tp 32 once
p32="--model llama-3-8b --mode training --dtype bf16 --seq 1024 --batch 32 --target h100 --plan 32"
"$BIN" $p32 >"$tmp/p32.txt" 2>/dev/null && "$BIN" $p32 --json >"$tmp/p32.json" 2>/dev/null &&
python3 - "$tmp/p32.txt" "$tmp/p32.json" <<'PY'
import collections, json, re, sys
rows = [l for l in open(sys.argv[1]) if re.match(r"^ +(\d+ +){4}- ", l)]
skipped = collections.Counter(l["skipped"] for l in json.load(open(sys.argv[2]))["targets"][0]["layouts"]
                              if "skipped" in l)
assert len(rows) == len(skipped) == 2, (rows, skipped)
assert max(skipped.values()) > 1, skipped
for l in rows:
    m = re.match(r"^ +(?:\d+ +){4}- +(.*?)(?: \((\d+) layouts\))?$", l.rstrip("\n"))
    assert m and skipped[m.group(1)] == int(m.group(2) or 1), (l, skipped)
PY
check "a plan's layouts that do not build for one reason: one row, their count the JSON's" $?
bad_input --model deepseek-v3 --engine sglang --mode decode --dtype bf16 --tp 8 --ep 4 --target h200
bad_input $ds --plan 8 --ep 8 --target h100
# the all-to-all's shape needs training with --ep
bad_input $ds --dp 8 --moe-route-nodes 4 --target h100
bad_input $ds --dp 8 --moe-a2a-overlap --target h100
bad_input $ds --dp 8 --ep 8 --moe-route-nodes 0 --target h100
bad_input --model deepseek-v3 --engine sglang --mode prefill --dtype bf16 --dp 8 --ep 8 --moe-dispatch-fp8 --target h200

# The overlap (--moe-a2a-overlap) hides each all-to-all behind the compute
# up to the next one: the step is shorter than with the all-to-alls on the
# compute stream (all of their time added) and no shorter than the
# compute alone (that step less the collectives' time, the ops line's
# comm, the first after "ops": the kernel rows below name the method comm
# too); the SMs each all-to-all holds, 20 of the H800's 132, take
# 20/132 of its time from the compute (the sm_share kernels).
dsep="$ds --dp 128 --ep 64 --batch 1 --zero 1 --target h800 --system hgx-h800"
step_comm() {
	"$BIN" $dsep "$@" 2>/dev/null | awk '/^predicted/ { s = $2 } /^[a-z]/ { ops = /^ops/ }
		ops && c == "" { for (i = 1; i < NF; i++) if ($i == "comm") c = $(i + 1) } END { print s, c }'
}
set -- $(step_comm); plain=$1; comm=$2
set -- $(step_comm --moe-a2a-overlap); over=$1; comm2=$2
awk -v p="$plain" -v c="$comm" -v o="$over" -v c2="$comm2" \
	'BEGIN { exit !(c > 0 && o < p - 0.1 * c && o >= p - c - 1) }'
check "overlapped step $over ms between the compute ($plain - $comm) and the serial step $plain ms" $?
"$BIN" $dsep --moe-a2a-overlap 2>/dev/null | awk '$1 == "ncclDevKernel_SendRecv" && $2 == 232 { a = $3 }
	$1 == "moe_a2a_overlap_sm_share" && $2 == 232 { s = $3 }
	END { exit !(a > 0 && s > 0.99 * a * 20 / 132 && s < 1.01 * a * 20 / 132) }'
check "the SMs of the 232 overlapped all-to-alls (58 MoE layers x 4) take 20/132 of their time" $?

# DeepSeek-V3 planned on 8, 256 and 1024 H100s (ZeRO-1, 4096-token
# sequences, 2 per GPU).  On 8 nothing fits: its 671 B weights alone,
# 2 bytes each, are 168 GB a GPU whatever the layout, above the 78.4 GiB
# an H100 leaves to tensors.  On 256 and 1024 some layout fits, and the
# plan, trying --ep, picks one that splits the experts over ranks and the
# layers over pipeline stages (the layout DeepSeek trained with is of that
# kind: pp 16, ep 64).
first_fit() {
	awk '/"dp":/ { ep = 1; pp = 0 } /"pp":/ { gsub(/[^0-9]/, ""); pp = $0 }
	     /"ep":/ { gsub(/[^0-9]/, ""); ep = $0 }
	     /"memory_fits": true/ && !done { print ep, pp; done = 1 }' "$1"
}
for gpus in 8 256 1024; do
	"$BIN" $ds --batch $((gpus * 2)) --zero 1 --plan $gpus --target h100 --json \
		>"$tmp/ds$gpus.json" 2>"$tmp/err"
	check "deepseek-v3 --plan $gpus exits 0 ($(cat "$tmp/err"))" $?
done
[ "$(grep -c '"memory_fits": true' "$tmp/ds8.json")" -eq 0 ] && grep -q '"memory_fits": false' "$tmp/ds8.json"
check "deepseek-v3 fits no layout of 8 GPUs" $?
for gpus in 256 1024; do
	set -- $(first_fit "$tmp/ds$gpus.json")
	[ "${1:-0}" -gt 1 ] && [ "${2:-0}" -gt 1 ]
	check "deepseek-v3 on $gpus GPUs: the fastest layout that fits has ep ${1:-none} > 1, pp ${2:-none} > 1" $?
done

# A plan none of whose layouts fits shows each at its least memory (the
# deepest checkpointing and accumulation tried), not as asked: Llama-3.1-
# 70B's 16 x 4096 on 8 H200s with FP32 masters (1.1 TB of state for 1.1
# TB of HBM) fits no layout; every row's memory is at most the plan's
# under --act-ckpt none (nothing retried), some far below, and the text's
# last lines name the least of the JSON's layouts.
p70="--model llama-3.1-70b --mode training --dtype bf16 --optimizer adamw --batch 16 --seq 4096 --plan 8
	--target h200"
"$BIN" $p70 --json >"$tmp/p70.json" 2>/dev/null &&
	"$BIN" $p70 --act-ckpt none --json >"$tmp/p70n.json" 2>/dev/null &&
	"$BIN" $p70 >"$tmp/p70.txt" 2>/dev/null &&
	python3 - "$tmp/p70.json" "$tmp/p70n.json" "$tmp/p70.txt" <<'PY'
import json, re, sys
def rows(path):
    t = json.load(open(path))["targets"][0]
    return {(l["dp"], l["tp"], l["pp"], l["zero"]): l for l in t["layouts"] if "iteration_ms" in l}
least, asked = rows(sys.argv[1]), rows(sys.argv[2])
assert least and not any(l["memory_fits"] for l in least.values())
for k, l in least.items():
    assert l["memory_peak_gib"] <= asked[k]["memory_peak_gib"] + 0.01, (k, l, asked[k])
assert min(l["memory_peak_gib"] / asked[k]["memory_peak_gib"] for k, l in least.items()) < 0.5
text = open(sys.argv[3]).read()
m = re.search(r"no layout of 8 GPUs fits h200's memory;\n  the least memory: ([0-9.]+) GiB a GPU "
              r"\(dp (\d+) x tp (\d+) x pp (\d+)(?:, zero (\d))?", text)
assert m, text[-400:]
low = min(least.values(), key=lambda l: l["memory_peak_gib"])
assert abs(float(m.group(1)) - low["memory_peak_gib"]) < 0.01, (m.group(0), low)
assert (int(m.group(2)), int(m.group(3)), int(m.group(4)), int(m.group(5) or 0)) == \
    (low["dp"], low["tp"], low["pp"], low["zero"]), (m.group(0), low)
PY
check "a plan that fits nowhere: each layout at its least memory, the least named" $?

# A plan of one GPU: the header's count in the singular and no ZeRO stages
# (nothing to shard over), which a plan of two names.
for g in 1 2; do
	"$BIN" --model gpt2 --mode training --dtype bf16 --optimizer adamw --batch 4 --seq 512 --plan $g \
		--target a100 2>/dev/null | head -1 >"$tmp/ph$g.txt"
done
grep -q '^plan .* over 1 GPU, bf16 (dp x tp x pp = 1;' "$tmp/ph1.txt" &&
	grep -q '^plan .* over 2 GPUs, bf16, zero 0, 1 and 3 (dp x tp x pp = 2;' "$tmp/ph2.txt"
check "a plan's header: $(cat "$tmp/ph1.txt") / $(cat "$tmp/ph2.txt")" $?

# --attention's explicit kernels: each parses and predicts; the impossible
# ones are refused with one line (FA3 off Hopper, FA2 and cuDNN before
# Ampere, FlashInfer in training, the Triton kernel past head dim 128 or in
# FP32, cuDNN or Triton under a serving engine); Triton's kernel is slower
# than FA2 on the same run, FA3 faster than FA2 on the H100, and flash
# under --stack te is cuDNN's.
L7="--model llama-2-7b --mode training --batch 1 --seq 2048 --dtype bf16 --json"
for a in flash fa2 cudnn triton; do
	"$BIN" $L7 --attention $a --target a100 >"$tmp/attn_$a.json" 2>"$tmp/err"
	check "--attention $a on the A100 predicted ($(cat "$tmp/err"))" $?
done
"$BIN" $L7 --attention fa3 --target h100-sxm >"$tmp/attn_fa3h.json" 2>"$tmp/err"
check "--attention fa3 on the H100 predicted ($(cat "$tmp/err"))" $?
"$BIN" $L7 --attention fa2 --target h100-sxm >"$tmp/attn_fa2h.json" 2>"$tmp/err"
"$BIN" --model llama-2-7b --mode inference --batch 1 --seq 2048 --dtype bf16 --attention flashinfer \
	--target a100 >/dev/null 2>"$tmp/err"
check "--attention flashinfer in inference predicted ($(cat "$tmp/err"))" $?
awk -v t="$(ms_of "$tmp/attn_triton.json")" -v f="$(ms_of "$tmp/attn_fa2.json")" \
	'BEGIN { exit !(t > f && f > 0) }'
check "triton ($(ms_of "$tmp/attn_triton.json") ms) slower than fa2 ($(ms_of "$tmp/attn_fa2.json") ms)" $?
awk -v a="$(ms_of "$tmp/attn_fa3h.json")" -v b="$(ms_of "$tmp/attn_fa2h.json")" \
	'BEGIN { exit !(a < b && a > 0) }'
check "fa3 faster than fa2 on the H100 ($(ms_of "$tmp/attn_fa3h.json") < $(ms_of "$tmp/attn_fa2h.json"))" $?
"$BIN" $L7 --stack te --attention flash --target h100-sxm >"$tmp/te_flash.json" 2>/dev/null
"$BIN" $L7 --stack te --attention cudnn --target h100-sxm >"$tmp/te_cudnn.json" 2>/dev/null
[ -n "$(ms_of "$tmp/te_flash.json")" ] && [ "$(ms_of "$tmp/te_flash.json")" = "$(ms_of "$tmp/te_cudnn.json")" ]
check "--stack te: flash is cuDNN's ($(ms_of "$tmp/te_flash.json") = $(ms_of "$tmp/te_cudnn.json"))" $?
"$BIN" $L7 --attention fa3 --target a100 >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "fa3 on a100.*9\.x" "$tmp/err"
check "fa3 on the A100 refused with one line (rc $rc: $(cat "$tmp/err"))" $?
cat >"$tmp/hd256.json" <<'EOF'
{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 2048,
 "num_attention_heads": 8, "num_key_value_heads": 8, "num_hidden_layers": 2,
 "intermediate_size": 4096, "vocab_size": 32000}
EOF
bad_input $L7 --attention fa3 --target b200
bad_input --model gpt2 --dtype fp16 --attention fa2 --target t4
bad_input --model gpt2 --dtype fp16 --attention cudnn --target v100
bad_input $L7 --attention flashinfer --target a100
bad_input $L7 --attention fa4 --target a100
bad_input --model "$tmp/hd256.json" --mode training --dtype bf16 --attention triton --target a100
bad_input --model llama-2-7b --engine sglang --mode prefill --prompt-lens 512 --dtype bf16 \
	--attention triton --target a100
bad_input --model llama-2-7b --engine vllm --mode prefill --prompt-lens 512 --dtype bf16 \
	--attention cudnn --target a100
bad_input --model gpt2 --attention triton --target a100

# --plan with --vpp: layouts without a pipeline run plain (no refusal row),
# those with one run interleaved (a shorter bubble than the same row
# without --vpp: 8 layers per stage of a 32-layer model, chunks of 4).
planv() {
	"$B/surfer-analyze" --model llama-3-8b --mode training --batch 64 --seq 1024 --dtype bf16 \
		--attention flash --optimizer adamw-fused --stack te --plan 16 --zero 0 --target h100-sxm "$@"
}
planv --vpp 2 >"$tmp/pv.txt" 2>"$tmp/pv.err"
check "--plan --vpp 2 exits 0 ($(cat "$tmp/pv.err"))" $?
! grep -q -- 'model chunks' "$tmp/pv.txt"
check "--plan --vpp 2 refuses no pp 1 layout" $?
planv >"$tmp/p1.txt" 2>/dev/null
row() { awk -v dp="$1" -v tp="$2" -v pp="$3" '$1 == dp && $2 == tp && $3 == pp { print $5; exit }' "$4"; }
v1=$(row 16 1 1 "$tmp/p1.txt"); v2=$(row 16 1 1 "$tmp/pv.txt")
[ -n "$v1" ] && [ "$v1" = "$v2" ]
check "a pp 1 layout is the same with and without --vpp ($v1, $v2 ms)" $?
w1=$(row 4 1 4 "$tmp/p1.txt"); w2=$(row 4 1 4 "$tmp/pv.txt")
[ -n "$w1" ] && [ -n "$w2" ] && awk -v a="$w1" -v b="$w2" 'BEGIN { exit !(b < a) }'
check "the pp 4 layout is faster interleaved ($w2 < $w1 ms)" $?

# a training step of --grad-accum 4 holds four micro-batches of tokens:
# the throughput counts them all (it counted one), here and in --plan
for ga in 1 4; do
	"$BIN" --model llama-3.2-1b --mode training --batch 2 --seq 1024 --dtype bf16 --attention flash \
		--optimizer adamw-fused --dp 8 --grad-accum $ga --target h100 --json \
		>"$tmp/ga$ga.json" 2>/dev/null &&
		"$BIN" --model llama-3.2-1b --mode training --batch 16 --seq 1024 --dtype bf16 \
			--attention flash --optimizer adamw-fused --plan 8 --grad-accum $ga --target h100 \
			--json >"$tmp/gaplan$ga.json" 2>/dev/null
	check "--grad-accum $ga, run and --plan, exit 0" $?
done
python3 - "$tmp/ga1.json" "$tmp/ga4.json" "$tmp/gaplan1.json" "$tmp/gaplan4.json" <<'PY'
import json, sys
a, b = (json.load(open(f))["predictions"][0] for f in sys.argv[1:3])
assert a["tokens_per_iteration"] == 2 * 8 * 1024, a["tokens_per_iteration"]
assert b["tokens_per_iteration"] == 4 * 2 * 8 * 1024, b["tokens_per_iteration"]
for p in (a, b):
    tps = p["tokens_per_iteration"] / (p["iteration_ms"] / 1e3)
    assert abs(p["tokens_per_s"] / tps - 1) < 1e-6, (p["tokens_per_s"], tps)
def best(f):
    l = [l for l in json.load(open(f))["targets"][0]["layouts"] if "iteration_ms" in l][0]
    return l["tokens_per_s"] * l["iteration_ms"] / 1e3
assert abs(best(sys.argv[3]) - 16 * 1024) < 1e-3 * 16 * 1024, best(sys.argv[3])
assert abs(best(sys.argv[4]) - 4 * 16 * 1024) < 1e-3 * 4 * 16 * 1024, best(sys.argv[4])
PY
check "--grad-accum 4: four micro-batches' tokens a step, run and --plan" $?

# FSDP2 under a pipeline, as torchtitan runs it (it was refused): each
# unit of the stage gathered and reduce-scattered once a step whatever
# the microbatches, never regathered for backward; the stage's 16-bit
# parameters and gradients whole through the step beside the FP32 shard
# (4 + 2 bytes a parameter of each, against ZeRO-1's pure 2, given with
# --precision pure: with dp > 1 the default is mixed); FSDP1 and
# Megatron's FSDP refused with the reason
for mb in 2 4; do
	for z in 1 3; do
		prec=
		[ "$z" = 1 ] && prec="--precision pure"
		# shellcheck disable=SC2086
		"$BIN" --model llama-3.2-1b --mode training --target h100 --batch 4 --seq 1024 --dtype bf16 \
			--attention flash --optimizer adamw-fused --dp 2 --pp 2 --microbatches $mb --zero $z \
			$prec --json >"$tmp/fpp$z-$mb.json" 2>"$tmp/err"
		check "--zero $z --pp 2 --microbatches $mb exits 0 ($(cat "$tmp/err"))" $?
	done
done
python3 - "$tmp"/fpp1-2.json "$tmp"/fpp3-2.json "$tmp"/fpp3-4.json <<'PY'
import json, sys
def calls(f):
    d = json.load(open(f))
    c = {}
    for k in d["predictions"][0]["breakdown"]:
        for w in ("AllGather", "ReduceScatter", "AllReduce"):
            if k["op"] == "comm" and w in k["kernel"]:
                c[w] = c.get(w, 0) + k["launches"]
    return c, d["memory"]
(z1, m1), (a, ma), (b, mb) = (calls(f) for f in sys.argv[1:4])
# llama-3.2-1b's first stage of two: 8 layers and the root unit
assert a["AllGather"] == a["ReduceScatter"] == 9, a
assert b == a, (a, b)
assert z1["AllGather"] == 1 and "ReduceScatter" not in z1, z1
for m in (ma, mb):
    assert abs(m["weights_gib"] / m1["weights_gib"] - 2) < 1e-6, (m, m1)
    assert abs(m["gradients_gib"] / m["weights_gib"] - 1) < 1e-6, m
PY
check "--zero 3 --pp 2: one gather and one reduce-scatter a unit a step, weights and gradients 6 bytes" $?
bad_input --model llama-3.2-1b --mode training --target h100 --batch 4 --dp 2 --pp 2 --zero 3 --fsdp 1
bad_input --model llama-3.2-1b --mode training --target h100 --batch 4 --dp 2 --pp 2 --zero 3 --stack te
# the largest batch that fits a pipeline of 4 microbatches is a multiple of
# 4 (it probed batch 1, which 4 microbatches cannot split: "not even batch 1")
"$BIN" --model llama-3.2-1b --mode training --target h100 --batch 4 --seq 1024 --dtype bf16 \
	--attention flash --dp 2 --pp 2 --microbatches 4 --zero 1 >"$tmp/fppb.txt" 2>/dev/null
grep -Eq '^memory .*; batch [0-9]*[02468] at most$' "$tmp/fppb.txt" &&
	n4=$(sed -n 's/^memory .*; batch \([0-9]*\) at most$/\1/p' "$tmp/fppb.txt") &&
	[ $((n4 % 4)) -eq 0 ] && [ "$n4" -ge 4 ]
check "--microbatches 4: the largest batch that fits is a multiple of 4 ($(grep '^memory ' "$tmp/fppb.txt" | tail -1))" $?

# Positions: GPT-2's 1024 learned ones (n_positions) hold --seq 1024 and a
# decode step after 1023 cached tokens (its new token at position 1023);
# one more, or a generate call whose fed-back tokens pass them, has no
# row and fails in PyTorch, so surfer refuses it (plan too); a rotary
# model past max_position_embeddings runs, with a warning.
"$BIN" --model gpt2 --seq 1024 --target a100 >/dev/null 2>&1
check "gpt2 at --seq 1024 (its 1024 positions) runs" $?
"$BIN" --model gpt2 --mode decode --seq 1023 --target a100 >/dev/null 2>&1
check "gpt2 decode after 1023 cached tokens runs" $?
bad_input --model gpt2 --seq 1025 --target a100
bad_input --model gpt2 --mode decode --seq 1024 --target a100
bad_input --model gpt2 --mode generate --seq 1000 --new-tokens 26 --target a100
bad_input --model bert-large --seq 1024 --target a100
bad_input --model gpt2 --plan 8 --seq 2048 --target a100
"$BIN" --model gpt2 --seq 1025 --target a100 2>&1 | grep -q "position embeddings for 1024 tokens; this run's sequences need 1025"
check "the refusal names the 1024 positions and the 1025 asked" $?
"$BIN" --model gpt2 --mode generate --seq 1000 --new-tokens 25 --target a100 >/dev/null 2>&1
check "gpt2 generating 25 tokens after 1000 (the last fed back at 1023) runs" $?
# RoBERTa's 514 rows hold 512 tokens (its positions start after padding_idx)
printf '{"model_type": "roberta", "hidden_size": 256, "intermediate_size": 1024,
"num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 1000,
"max_position_embeddings": 514}\n' >"$tmp/roberta.json"
"$BIN" --model "$tmp/roberta.json" --seq 512 --target a100 >/dev/null 2>&1
check "roberta at --seq 512 runs" $?
bad_input --model "$tmp/roberta.json" --seq 513 --target a100
printf '{"model_type": "llama", "hidden_size": 512, "intermediate_size": 1024,
"num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 4,
"vocab_size": 1000, "max_position_embeddings": 2048}\n' >"$tmp/rope2k.json"
"$BIN" --model "$tmp/rope2k.json" --seq 4096 --target a100 >"$tmp/rope.txt" 2>"$tmp/rope.err"
rc=$?
[ $rc -eq 0 ] && grep -q "^warning .*sequences of 4096 positions, beyond the 2048" "$tmp/rope.txt" &&
	grep -q "sequences of 4096 positions" "$tmp/rope.err"
check "a rotary model past its 2048 positions runs with a warning (rc $rc)" $?
"$BIN" --model "$tmp/rope2k.json" --engine vllm --mode serve --prompt-lens 2000,100 --new-tokens 49 \
	--target a100 2>&1 | grep -q "sequences of 2048 positions"
[ $? -ne 0 ]; check "2000 prompt tokens + 48 fed back: 2048 positions, no warning" $?
"$BIN" --model "$tmp/rope2k.json" --engine vllm --mode serve --prompt-lens 2000,100 --new-tokens 50 \
	--target a100 2>&1 | grep -q "sequences of 2049 positions, beyond the 2048 .*engines refuse it"
check "one token more: the warning, the engines' refusal named" $?
# the rotary built-ins carry their config.json's max_position_embeddings:
# Llama-3-8B's 8192 hold a decode step after 8191 cached tokens, not 8192
"$BIN" --model llama-3-8b --engine sglang --mode decode --seq 8191 --target h100 2>&1 | grep -q "positions, beyond"
[ $? -ne 0 ]; check "llama-3-8b decode after 8191 cached tokens: 8192 positions, no warning" $?
"$BIN" --model llama-3-8b --engine sglang --mode decode --seq 8192 --target h100 2>&1 |
	grep -q "sequences of 8193 positions, beyond the 8192 'llama-3-8b' was trained for"
check "llama-3-8b decode after 8192 cached tokens: the warning names its 8192" $?
# each sequence's own output: the 2000-token prompt generating 49, the
# 100-token one 500 (599 positions): 2048 at most, no warning
"$BIN" --model "$tmp/rope2k.json" --engine vllm --mode serve --prompt-lens 2000,100 --new-tokens 49,500 \
	--target a100 2>&1 | grep -q "positions, beyond"
[ $? -ne 0 ]; check "--new-tokens 49,500 over prompts of 2000 and 100: 2048 positions, no warning" $?
"$BIN" --model "$tmp/rope2k.json" --engine vllm --mode serve --prompt-lens 2000,100 --new-tokens 49,2000 \
	--target a100 2>&1 | grep -q "sequences of 2099 positions, beyond the 2048"
check "--new-tokens 49,2000: the short prompt's 2099 positions warned" $?

# --norm: eager (Hugging Face's RMSNorm chain, FP32 inside) or fused (one
# kernel each way): a Llama trained in BF16 is predicted faster fused; a
# LayerNorm model (GPT-2) and a compiled stack (which fuses the chain
# itself) are the same either way; a bad value exits 2 with one line.
for nm in eager fused; do
	"$BIN" --model llama-3.2-1b --batch 2 --seq 2048 --dtype bf16 --mode training --target h100 \
		--norm $nm --json >"$tmp/norm_$nm.json" 2>/dev/null
	"$BIN" --model gpt2-large --batch 2 --seq 1024 --dtype bf16 --mode training --target h100 \
		--norm $nm --json >"$tmp/norm_gpt2_$nm.json" 2>"$tmp/norm_gpt2_$nm.err"
	"$BIN" --model llama-3.2-1b --batch 2 --seq 2048 --dtype bf16 --mode training --target h100 \
		--stack compile --attention flash --norm $nm --json >"$tmp/norm_c_$nm.json" 2>"$tmp/norm_c_$nm.err"
done
awk -v e="$(ms_of "$tmp/norm_eager.json")" -v f="$(ms_of "$tmp/norm_fused.json")" \
	'BEGIN { exit !(f > 0 && f < e) }'
check "--norm fused faster than eager on Llama 3.2 1B BF16 ($(ms_of "$tmp/norm_fused.json") < $(ms_of "$tmp/norm_eager.json") ms)" $?
[ -n "$(ms_of "$tmp/norm_gpt2_eager.json")" ] &&
	[ "$(ms_of "$tmp/norm_gpt2_eager.json")" = "$(ms_of "$tmp/norm_gpt2_fused.json")" ]
check "--norm leaves GPT-2's LayerNorm as it is ($(ms_of "$tmp/norm_gpt2_fused.json") ms)" $?
[ -n "$(ms_of "$tmp/norm_c_eager.json")" ] && [ "$(ms_of "$tmp/norm_c_eager.json")" = "$(ms_of "$tmp/norm_c_fused.json")" ]
check "--norm changes nothing under --stack compile ($(ms_of "$tmp/norm_c_fused.json") ms)" $?
# ... and says so, one warning each, where on a Llama under the eager stack
# it says nothing
grep -q "warning: 'gpt2-large': --norm changes nothing: the model's norms are LayerNorm, not RMSNorm" \
	"$tmp/norm_gpt2_fused.err" &&
	grep -q "warning: 'llama-3.2-1b': --norm changes nothing: --stack compile fuses each norm itself" \
		"$tmp/norm_c_eager.err" &&
	"$BIN" --model llama-3.2-1b --stack te --dtype bf16 --norm eager --target h100 2>&1 >/dev/null |
	grep -q "norm changes nothing: --stack te runs Transformer Engine's fused norms" &&
	! "$BIN" --model llama-3.2-1b --batch 2 --seq 2048 --dtype bf16 --mode training --target h100 \
		--norm fused 2>&1 >/dev/null | grep -q "norm changes nothing"
check "--norm where it changes nothing warns (gpt2: $(head -c 120 "$tmp/norm_gpt2_fused.err"))" $?
# so does --expert-capacity on a model without experts
"$BIN" --model llama-3.2-1b --target h100 --expert-capacity 2 2>&1 >/dev/null |
	grep -q "warning: 'llama-3.2-1b': --expert-capacity changes nothing: the model has no experts" &&
	! "$BIN" --model switch-base-8 --target h100 --expert-capacity 2 2>&1 >/dev/null | grep -q "expert-capacity"
check "--expert-capacity on a dense model warns, on Switch not" $?
# --liger with --norm eager (Liger's rms_norm=False) keeps the eager norms
# in whichever order the flags come; --liger alone fuses them
for fl in "--liger" "--liger --norm eager" "--norm eager --liger"; do
	lf=$(echo "$fl" | tr -d ' -')
	"$BIN" --model llama-3.2-1b --batch 2 --seq 1024 --dtype bf16 --mode training --attention flash \
		--target h100 $fl --json >"$tmp/lnorm_$lf.json" 2>/dev/null
done
[ -n "$(ms_of "$tmp/lnorm_ligernormeager.json")" ] &&
	[ "$(ms_of "$tmp/lnorm_ligernormeager.json")" = "$(ms_of "$tmp/lnorm_normeagerliger.json")" ] &&
	awk -v e="$(ms_of "$tmp/lnorm_ligernormeager.json")" -v f="$(ms_of "$tmp/lnorm_liger.json")" \
		'BEGIN { exit !(f > 0 && f < e) }'
check "--liger --norm eager either way round ($(ms_of "$tmp/lnorm_normeagerliger.json") ms), --liger alone faster ($(ms_of "$tmp/lnorm_liger.json"))" $?
"$BIN" --model llama-3.2-1b --norm triton --target h100 >"$tmp/norm_bad.out" 2>"$tmp/norm_bad.err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/norm_bad.err")" -eq 1 ] && grep -q "eager or fused" "$tmp/norm_bad.err"
check "--norm triton exits 2 with one line (rc $rc: $(cat "$tmp/norm_bad.err"))" $?

# Layout options without the layout they shape are refused, one line each
# naming what they need, not dropped in silence; --plan, which tries such
# layouts itself, takes them.
for fl in "--sequence-parallel|--tp above 1" "--microbatches 4|--pp above 1" \
	"--pp-partition cost|--pp above 1" "--host-mem-gbps 50|add --offload" \
	"--fsdp 2|--fsdp shapes the FSDP that shards --zero 2 or 3" \
	"--fsdp-reduce bf16|--fsdp-reduce shapes the FSDP that shards --zero 2 or 3"; do
	# shellcheck disable=SC2086
	bad_input --model llama-3.2-1b --mode training --batch 4 --target h100 ${fl%%|*}
	grep -q -- "${fl#*|}" "$tmp/err"
	check "${fl%%|*} alone: exit 2, '$(cat "$tmp/err")'" $?
done
"$BIN" --model llama-3.2-1b --mode training --batch 4 --dtype bf16 --target h100 --plan 8 \
	--sequence-parallel --microbatches 2 >/dev/null 2>"$tmp/err"
check "--plan 8 takes --sequence-parallel and --microbatches ($(head -c 100 "$tmp/err"))" $?
bad_input --model llama-3.2-1b --target h100 --fsdp 2
grep -q -- "--fsdp shapes a training step: it needs --mode training" "$tmp/err"
check "--fsdp in inference: exit 2, '$(cat "$tmp/err")'" $?
bad_input --model llama-3.2-1b --target h100 --mode training --precision pure
grep -q -- "--precision chooses how a 16-bit or FP8 --dtype trains" "$tmp/err" &&
	bad_input --model llama-3.2-1b --target h100 --engine sglang --mode decode --batch 2 --seq 100 \
		--precision pure &&
	grep -q -- "--engine sglang: --precision (a training stack's state; the engines serve" "$tmp/err" &&
	"$BIN" --model llama-3.2-1b --target h100 --dtype bf16 --precision mixed 2>&1 >/dev/null |
	grep -q "warning: 'llama-3.2-1b': --precision mixed changes nothing outside training"
check "--precision in FP32 or under an engine: exit 2; mixed in 16-bit inference a warning" $?
# autocast in inference: the FP32 model under torch.autocast, its weights
# cast once a forward (Llama-3.2-1B: 1.24e9 parameters, 4 bytes read and 2
# written each, against an H100's 3 TB/s: a few ms) and each matmul's
# input; slower than the model cast to BF16, no warning, the weights
# FP32 and their casts in memory (6 bytes a parameter against 2)
"$BIN" --model llama-3.2-1b --target h100 --dtype bf16 --seq 512 --json >"$tmp/ac0.json" 2>/dev/null &&
	"$BIN" --model llama-3.2-1b --target h100 --dtype bf16 --seq 512 --precision autocast --json \
		>"$tmp/ac1.json" 2>"$tmp/err"
check "--precision autocast in inference exits 0 ($(cat "$tmp/err"))" $?
! grep -q "changes nothing" "$tmp/err"
check "--precision autocast in inference: no warning" $?
python3 - "$tmp/ac0.json" "$tmp/ac1.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
ta, tb = (x["predictions"][0]["iteration_ms"] for x in (a, b))
assert tb > ta + 1.0, (ta, tb)
wa, wb = a["memory"]["weights_gib"], b["memory"]["weights_gib"]
assert abs(wb / wa - 3.0) < 0.01, (wa, wb)
cast = [k for k in b["predictions"][0]["breakdown"] if "bfloat16_copy" in k["kernel"]]
assert cast and not [k for k in a["predictions"][0]["breakdown"] if "bfloat16_copy" in k["kernel"]]
PY
check "--precision autocast in inference: the casts as kernels, slower, 3 x the weights' memory" $?
# a decode step of a generation: the casts cached since its prefill, the
# inputs alone cast
"$BIN" --model llama-3.2-1b --target h100 --dtype bf16 --mode decode --batch 8 --seq 512 --json \
	>"$tmp/ad0.json" 2>/dev/null &&
	"$BIN" --model llama-3.2-1b --target h100 --dtype bf16 --mode decode --batch 8 --seq 512 \
		--precision autocast --json >"$tmp/ad1.json" 2>/dev/null
python3 - "$tmp/ac1.json" "$tmp/ad1.json" "$tmp/ad0.json" <<'PY'
import json, sys
p, d, d0 = (json.load(open(f))["predictions"][0] for f in sys.argv[1:])
def cast_bytes(x):
    return sum(k["predicted_ms"] for k in x["breakdown"] if "bfloat16_copy" in k["kernel"])
# the prefill's casts (the weights' 1.24e9 x 6 bytes) take milliseconds,
# the step's (8 rows of inputs) a few microseconds each
assert cast_bytes(p) > 1.0 and 0 < cast_bytes(d) < 0.5, (cast_bytes(p), cast_bytes(d))
assert d["iteration_ms"] > d0["iteration_ms"], (d["iteration_ms"], d0["iteration_ms"])
PY
check "--precision autocast in a decode step: the inputs cast, not the cached weights" $?

# --stack te without --attention runs Transformer Engine's fused attention
# (the same time as --attention cudnn, and the input line says so), and
# --dtype fp8 under it without --fp8-recipe TE's delayed scaling (the time
# of --fp8-recipe delayed); --attention eager keeps the unfused chain.
te="--model llama-3.2-1b --target h100 --mode training --batch 2 --seq 1024 --stack te"
# shellcheck disable=SC2086
{
	"$BIN" $te --dtype bf16 >"$tmp/te_def.txt" 2>/dev/null
	"$BIN" $te --dtype bf16 --attention cudnn >"$tmp/te_cudnn.txt" 2>/dev/null
	"$BIN" $te --dtype bf16 --attention eager >"$tmp/te_eager.txt" 2>/dev/null
	"$BIN" $te --dtype fp8 >"$tmp/te8_def.txt" 2>/dev/null
	"$BIN" $te --dtype fp8 --fp8-recipe delayed >"$tmp/te8_del.txt" 2>/dev/null
	"$BIN" $te --dtype fp8 --fp8-recipe tensorwise >"$tmp/te8_tw.txt" 2>/dev/null
}
pr() { awk '/^predicted/ { print $2 }' "$1"; }
[ -n "$(pr "$tmp/te_def.txt")" ] && [ "$(pr "$tmp/te_def.txt")" = "$(pr "$tmp/te_cudnn.txt")" ] &&
	[ "$(pr "$tmp/te_def.txt")" != "$(pr "$tmp/te_eager.txt")" ] &&
	grep -q "^input .*bf16, attention fused (Transformer Engine's pick)" "$tmp/te_def.txt" &&
	! grep -q "Transformer Engine's pick" "$tmp/te_eager.txt" &&
	[ "$(pr "$tmp/te8_def.txt")" = "$(pr "$tmp/te8_del.txt")" ] &&
	[ "$(pr "$tmp/te8_def.txt")" != "$(pr "$tmp/te8_tw.txt")" ] && grep -q "^input .*fp8 delayed" "$tmp/te8_def.txt"
check "--stack te: fused attention ($(pr "$tmp/te_def.txt") ms, eager $(pr "$tmp/te_eager.txt")) and delayed FP8 scaling ($(pr "$tmp/te8_def.txt"), tensorwise $(pr "$tmp/te8_tw.txt")) by default" $?
bad_input --model llama-3.2-1b --target h100 --engine sglang --mode decode --batch 2 --seq 100 --attention eager
grep -q "attention eager is not one of its attention backends" "$tmp/err"
check "--engine sglang --attention eager: exit 2 ($(cat "$tmp/err"))" $?

# --qlora: PEFT's prepare_model_for_kbit_training() turns on gradient
# checkpointing by default, so without --act-ckpt the run is the --act-ckpt
# full one (the same time and memory) and says so in its input line; asked
# for none, it keeps every activation (Llama-3.1-70B at 1 x 2048: more
# than an H100 holds); plain --lora takes no default.
q="--model llama-3.1-70b --mode training --batch 1 --seq 2048 --dtype bf16 --lora 16 --optimizer adamw --target h100"
"$BIN" $q --qlora --json >"$tmp/ql.json" 2>/dev/null
"$BIN" $q --qlora --act-ckpt full --json >"$tmp/qlf.json" 2>/dev/null
"$BIN" $q --qlora --act-ckpt none --json >"$tmp/qln.json" 2>/dev/null
"$BIN" $q --qlora >"$tmp/ql.txt" 2>&1
"$BIN" $q --act-ckpt none --json >"$tmp/lo.json" 2>/dev/null
"$BIN" $q --json >"$tmp/lod.json" 2>/dev/null
peak() { sed -n 's/.*"peak_gib": \([0-9.e+]*\).*/\1/p' "$1" | head -1; }
[ -n "$(ms_of "$tmp/ql.json")" ] && [ "$(ms_of "$tmp/ql.json")" = "$(ms_of "$tmp/qlf.json")" ] &&
	[ "$(peak "$tmp/ql.json")" = "$(peak "$tmp/qlf.json")" ]
check "--qlora without --act-ckpt is --act-ckpt full ($(ms_of "$tmp/ql.json") ms, $(peak "$tmp/ql.json") GiB)" $?
grep -q "^input .*act-ckpt full (PEFT's k-bit default)" "$tmp/ql.txt"
check "--qlora's input line names the checkpointing it took" $?
awk -v f="$(peak "$tmp/ql.json")" -v n="$(peak "$tmp/qln.json")" 'BEGIN { exit !(f > 0 && f < 80 && n > 80) }'
check "--qlora --act-ckpt none keeps every activation ($(peak "$tmp/qln.json") GiB against $(peak "$tmp/ql.json"))" $?
[ "$(ms_of "$tmp/lod.json")" = "$(ms_of "$tmp/lo.json")" ]
check "plain --lora takes no checkpointing by default ($(ms_of "$tmp/lod.json") ms)" $?

# --liger (use_liger_kernel=True): Llama-3-8B trained over 8 H100s with
# FSDP is faster and needs less memory than the Hugging Face modules (no
# eager norm, RoPE and SwiGLU chains; no 128256-wide logits held); under
# inference it is faster too; GPT-2 (not patched by Liger) and --tp 2 (the
# fused loss holds the whole vocabulary) exit 2 with one line.
l8="--model llama-3-8b --mode training --batch 8 --seq 2048 --dtype bf16 --attention flash --optimizer adamw
	--dp 8 --zero 3 --target h100"
"$BIN" $l8 --json >"$tmp/lg0.json" 2>/dev/null
"$BIN" $l8 --liger --json >"$tmp/lg1.json" 2>/dev/null
awk -v a="$(ms_of "$tmp/lg0.json")" -v b="$(ms_of "$tmp/lg1.json")" \
	-v pa="$(peak "$tmp/lg0.json")" -v pb="$(peak "$tmp/lg1.json")" \
	'BEGIN { exit !(b > 0 && b < a && pb > 0 && pb < pa - 8) }'
check "--liger: Llama-3-8B FSDP step faster and 8 GiB smaller or more ($(ms_of "$tmp/lg1.json") < $(ms_of "$tmp/lg0.json") ms, $(peak "$tmp/lg1.json") < $(peak "$tmp/lg0.json") GiB)" $?
"$BIN" --model llama-3-8b --mode inference --batch 4 --seq 2048 --dtype bf16 --target h100 --json \
	>"$tmp/li0.json" 2>/dev/null
"$BIN" --model llama-3-8b --mode inference --batch 4 --seq 2048 --dtype bf16 --target h100 --liger --json \
	>"$tmp/li1.json" 2>/dev/null
awk -v a="$(ms_of "$tmp/li0.json")" -v b="$(ms_of "$tmp/li1.json")" 'BEGIN { exit !(b > 0 && b < a) }'
check "--liger: inference faster ($(ms_of "$tmp/li1.json") < $(ms_of "$tmp/li0.json") ms)" $?
bad_input --model gpt2-large --liger --mode training --target h100
grep -q "patches Hugging Face's gated decoders" "$tmp/err"
check "--liger on GPT-2: refused ($(cat "$tmp/err"))" $?
bad_input --model llama-3-8b --liger --mode training --dtype bf16 --tp 2 --target h100
grep -q "no --tp" "$tmp/err"
check "--liger --tp 2: refused ($(cat "$tmp/err"))" $?

# --optimizer adamw-8bit (bitsandbytes' AdamW8bit): a full fine-tune of
# Llama-3-8B in BF16 on one H100 holds its two moments in a byte each (and
# an FP32 absmax per 256) where AdamW's BF16 ones take two: 8.03e9 x (4 -
# 2.03) bytes = 14.7 GiB less; under --stack te refused.
a8="--model llama-3-8b --mode training --batch 1 --seq 2048 --dtype bf16 --attention flash --act-ckpt full
	--target h100"
"$BIN" $a8 --optimizer adamw-fused --json >"$tmp/a8f.json" 2>/dev/null
"$BIN" $a8 --optimizer adamw-8bit --json >"$tmp/a8b.json" 2>/dev/null
awk -v f="$(peak "$tmp/a8f.json")" -v b="$(peak "$tmp/a8b.json")" 'BEGIN { d = f - b; exit !(b > 0 && d > 14.5 && d < 14.9) }'
check "--optimizer adamw-8bit: 14.7 GiB less than AdamW's BF16 moments ($(peak "$tmp/a8b.json") against $(peak "$tmp/a8f.json") GiB)" $?
bad_input $a8 --optimizer adamw-8bit --stack te
grep -q "bitsandbytes' AdamW8bit: not under --stack te" "$tmp/err"
check "--optimizer adamw-8bit --stack te: refused ($(cat "$tmp/err"))" $?

# A foreach AdamW step over Llama-3-8B on one H100 (pure BF16) moves 42
# bytes a parameter where fused AdamW moves 14: 8.03e9 x 28 bytes more,
# 67 ms at the H100's 3.35 TB/s.  Its launches come from multi_tensor_
# apply's loop inside each op, so the step stays bound by those bytes:
# foreach less fused within twice the 67 ms (charged 162 us a launch, its
# 3056 launches made it 323 ms).
"$BIN" $a8 --optimizer adamw --json >"$tmp/a8e.json" 2>/dev/null
awk -v e="$(ms_of "$tmp/a8e.json")" -v f="$(ms_of "$tmp/a8f.json")" 'BEGIN { exit !(e > f + 67 && e < f + 134) }'
check "foreach AdamW over fused on Llama-3-8B: $(ms_of "$tmp/a8e.json") against $(ms_of "$tmp/a8f.json") ms, within twice its extra bytes' 67 ms" $?

finish "model_cli.sh"
