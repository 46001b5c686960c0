#!/bin/sh
# serve_cli.sh - surfer-analyze --engine vllm|sglang: the kernel counts a
# layer and the model's ends issue (counted by hand from serving-engines.md),
# the serve mode's parts adding up, --prompt-lens and --new-tokens from a
# file, and bad input
# exiting 2 with one line.
. "$(dirname "$0")/lib.sh"
BIN="$B/surfer-analyze"
test_tmp serve_cli

launches() { # launches ARGS...: the "kernels N launches" of the text report
	"$BIN" "$@" --dtype bf16 --target h100 2>/dev/null | sed -n 's/^kernels *\([0-9]*\) launches.*/\1/p'
}

# llama-3.2-1b: 16 layers.  SGLang prefill, TP 1, per layer: add+norm, QKV,
# rotary, KV store, attention, o_proj, add+norm, gate_up, SiLU-and-mul, down
# = 10; the ends: embedding, final add+norm, last-token gather, LM head,
# argmax = 5.  16 x 10 + 5 = 165.
got=$(launches --model llama-3.2-1b --engine sglang --mode prefill --prompt-lens 100,200)
[ "$got" = 165 ]; check "sglang prefill: 165 launches (got '$got')" $?
# decode: no gather (every row is a last token): 164
got=$(launches --model llama-3.2-1b --engine sglang --mode decode --context-lens 100,200)
[ "$got" = 164 ]; check "sglang decode: 164 launches (got '$got')" $?
# TP 2: two all-reduces a layer, one after the embedding, the logits'
# all-gather: 16 x 12 + 5 + 2 = 199
got=$(launches --model llama-3.2-1b --engine sglang --mode prefill --prompt-lens 100,200 --tp 2)
[ "$got" = 199 ]; check "sglang prefill tp 2: 199 launches (got '$got')" $?
# vLLM samples from the logits with temperature (divide, softmax,
# exponential, divide, argmax): 4 more than SGLang's greedy argmax
got=$(launches --model llama-3.2-1b --engine vllm --mode decode --batch 4 --seq 50)
[ "$got" = 168 ]; check "vllm decode: 168 launches (got '$got')" $?
# chunks of 150 tokens over prompts of 100 and 200: two passes (100 + 50,
# then 150), each with its own ends and vLLM's sampling: 2 x (165 + 4)
got=$(launches --model llama-3.2-1b --engine vllm --mode prefill --prompt-lens 100,200 --chunk 150)
[ "$got" = 338 ]; check "vllm chunked prefill: 2 passes, 338 launches (got '$got')" $?
# serve with 3 new tokens: the prefill and two decode steps, 165 + 2 x 164
got=$(launches --model llama-3.2-1b --engine sglang --mode serve --prompt-lens 100,200 --new-tokens 3)
[ "$got" = 493 ]; check "sglang serve: 493 launches (got '$got')" $?

# serve: the whole batch is the time to first token plus its steps; tokens
# are the generated ones (2 sequences x 3)
"$BIN" --model llama-3.2-1b --engine sglang --mode serve --prompt-lens 100,200 --new-tokens 3 \
	--dtype bf16 --target h100 --json >"$tmp/s.json" 2>"$tmp/err"
check "serve --json exits 0 ($(cat "$tmp/err"))" $?
val() { sed -n "s/.*\"$1\": \([0-9.e+]*\).*/\1/p" "$tmp/s.json" | head -1; }
it=$(val iteration_ms); ttft=$(val ttft_ms); mean=$(val tpot_mean_ms); med=$(val tpot_median_ms)
awk -v i="$it" -v t="$ttft" -v m="$mean" 'BEGIN { d = i - (t + 2 * m); exit !(t > 0 && m > 0 && d < 0.001 * i && d > -0.001 * i) }'
check "iteration $it ms = ttft $ttft + 2 x tpot $mean" $?
[ -n "$med" ]; check "tpot_median_ms present ($med)" $?
[ "$(val tokens_per_iteration)" = "6.0" ]; check "6 generated tokens ($(val tokens_per_iteration))" $?
# their intervals: the time to first token's is the prefill's (--mode
# prefill of the same prompts), the time per output token's the mean of
# the two steps' ends (--mode decode over 100 + k and 200 + k cached
# tokens, k = 0 and 1)
for a in "prefill --prompt-lens 100,200" "decode --context-lens 100,200" "decode --context-lens 101,201"; do
	# shellcheck disable=SC2086
	"$BIN" --model llama-3.2-1b --engine sglang --mode $a --dtype bf16 --target h100 --json 2>/dev/null
done >"$tmp/parts.json"
python3 - "$tmp/s.json" "$tmp/parts.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["predictions"][0]
dec = json.JSONDecoder(); t = open(sys.argv[2]).read(); docs = []; i = 0
while i < len(t):
    if t[i].isspace(): i += 1; continue
    d, i = dec.raw_decode(t, i); docs.append(d["predictions"][0])
p, d0, d1 = docs
close = lambda a, b: abs(a - b) <= 1e-6 * max(abs(b), 1)
ok = s["ttft_ms_low"] < s["ttft_ms"] < s["ttft_ms_high"]
ok = ok and close(s["ttft_ms_low"], p["iteration_ms_low"]) and close(s["ttft_ms_high"], p["iteration_ms_high"])
ok = ok and s["tpot_mean_ms_low"] < s["tpot_mean_ms"] < s["tpot_mean_ms_high"]
ok = ok and close(s["tpot_mean_ms_low"], (d0["iteration_ms_low"] + d1["iteration_ms_low"]) / 2)
ok = ok and close(s["tpot_mean_ms_high"], (d0["iteration_ms_high"] + d1["iteration_ms_high"]) / 2)
sys.exit(0 if ok else 1)
PY
check "serve: the time to first token's interval is the prefill's, the time per output token's the steps' mean" $?
# --plan's serve layouts carry them too: the tp 2 layout's time to first
# token and its interval are the --tp 2 run's, its time per output token's
# interval holds its mean
"$BIN" --model llama-3.2-1b --engine sglang --mode serve --prompt-lens 100,200 --new-tokens 3 \
	--dtype bf16 --target h100 --plan 2 --json >"$tmp/plan.json" 2>/dev/null &&
	"$BIN" --model llama-3.2-1b --engine sglang --mode serve --prompt-lens 100,200 --new-tokens 3 \
		--dtype bf16 --target h100 --tp 2 --json >"$tmp/tp2.json" 2>/dev/null
python3 - "$tmp/plan.json" "$tmp/tp2.json" <<'PY'
import json, sys
ls = [l for l in json.load(open(sys.argv[1]))["targets"][0]["layouts"] if l.get("tp") == 2 and l.get("dp") == 1]
r = json.load(open(sys.argv[2]))["predictions"][0]
close = lambda a, b: abs(a - b) <= 1e-6 * max(abs(b), 1)
ok = len(ls) == 1
if ok:
    l = ls[0]
    ok = all(close(l[k], r[k]) for k in ("ttft_ms", "ttft_ms_low", "ttft_ms_high"))
    ok = ok and l["tpot_mean_ms_low"] < l["tpot_mean_ms"] < l["tpot_mean_ms_high"]
sys.exit(0 if ok else 1)
PY
check "--plan: a serve layout's TTFT interval is its run's, its TPOT's holds the mean" $?

# --mode generate on an engine is its served batch: the same launches,
# time and generated tokens (6), not the prompt's 300
"$BIN" --model llama-3.2-1b --engine sglang --mode generate --batch 2 --seq 100 --new-tokens 3 \
	--dtype bf16 --target h100 --json >"$tmp/g.json" 2>"$tmp/err"
check "generate on an engine exits 0 ($(cat "$tmp/err"))" $?
"$BIN" --model llama-3.2-1b --engine sglang --mode serve --batch 2 --seq 100 --new-tokens 3 \
	--dtype bf16 --target h100 --json >"$tmp/s2.json" 2>/dev/null
gval() { sed -n "s/.*\"$2\": \([0-9.e+]*\).*/\1/p" "$1" | head -1; }
[ "$(gval "$tmp/g.json" iteration_ms)" = "$(gval "$tmp/s2.json" iteration_ms)" ] &&
	[ "$(gval "$tmp/g.json" tokens_per_iteration)" = "6.0" ] && grep -q '"ttft_ms"' "$tmp/g.json"
check "generate = serve on an engine: $(gval "$tmp/g.json" iteration_ms) ms, $(gval "$tmp/g.json" tokens_per_iteration) tokens" $?
# one new token: the prefill alone, no time per output token
"$BIN" --model llama-3.2-1b --engine sglang --mode serve --prompt-lens 100,200 --new-tokens 1 \
	--dtype bf16 --target h100 >"$tmp/one.txt" 2>&1
grep -q "time to first token [0-9.]* ms (80%: [0-9.]*-[0-9.]* ms); per output token: none" "$tmp/one.txt"
check "--new-tokens 1: the time to first token's interval, no time per output token in the text" $?
"$BIN" --model llama-3.2-1b --engine sglang --mode serve --prompt-lens 100,200 --new-tokens 1 \
	--dtype bf16 --target h100 --json 2>/dev/null | grep -q '"tpot_mean_ms": null'
check "--new-tokens 1: tpot_mean_ms null in JSON" $?

# --prompt-lens @FILE reads the same lengths
printf '100\n200\n' >"$tmp/lens"
got=$(launches --model llama-3.2-1b --engine sglang --mode prefill --prompt-lens "@$tmp/lens")
[ "$got" = 165 ]; check "--prompt-lens @FILE: 165 launches (got '$got')" $?

# a longer cache reads more: the decode step does not get faster
t1=$("$BIN" --model llama-3.2-1b --engine sglang --mode decode --context-lens 1000,1000 --dtype bf16 --target h100 --json | sed -n 's/.*"iteration_ms": \([0-9.e+]*\).*/\1/p')
t2=$("$BIN" --model llama-3.2-1b --engine sglang --mode decode --context-lens 30000,30000 --dtype bf16 --target h100 --json | sed -n 's/.*"iteration_ms": \([0-9.e+]*\).*/\1/p')
awk -v a="$t1" -v b="$t2" 'BEGIN { exit !(a > 0 && b > a) }'
check "decode at 30000 cached tokens ($t2 ms) slower than at 1000 ($t1 ms)" $?

# the built program written as a trace analyzes to the same time; its
# decode steps are graph launches: 163 kernels each (all but the argmax)
# flagged graph (flags bit 1), all of a step at one CPU time, and a
# synchronization before each step
D="$B/surfer-dump"
"$BIN" --model llama-3.2-1b --engine sglang --mode serve --prompt-lens 100,200 --new-tokens 4 \
	--dtype bf16 --target h100 --write-trace "$tmp/s.mp" --json 2>/dev/null |
	sed -n 's/.*"iteration_ms": \([0-9.e+]*\).*/\1/p' >"$tmp/a"
"$BIN" "$tmp/s.mp" --target h100 --json 2>/dev/null | sed -n 's/.*"iteration_ms": \([0-9.e+]*\).*/\1/p' >"$tmp/b"
[ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"; check "written trace predicts the same ($(cat "$tmp/a") / $(cat "$tmp/b"))" $?
g=$("$D" "$tmp/s.mp" | grep '"type":"kernel"' | grep -c '"flags":2')
[ "$g" = 489 ]; check "3 decode steps x 163 graph kernels (got $g)" $?
g=$("$D" "$tmp/s.mp" | grep '"type":"kernel"' | grep '"flags":2' | sed -n 's/.*"cpu_ns":\([0-9]*\).*/\1/p' | sort -u | wc -l)
[ "$g" -eq 3 ]; check "one CPU launch time per graph replay (got $g)" $?
g=$("$D" "$tmp/s.mp" | grep -c '"type":"sync"')
[ "$g" -eq 3 ]; check "a synchronization before each decode step (got $g)" $?

# without --dtype an engine serves what its --dtype auto would: the
# checkpoint's torch_dtype (a float32 one in FP16), BF16 for a built-in;
# --engine hf keeps FP32
served_dtype() { # served_dtype ARGS...: the dtype the input line names
	"$BIN" "$@" --target h100 2>/dev/null | sed -n 's/^input .*, \(fp32\|bf16\|fp16\|fp8\)\(, parallel\)*$/\1/p'
}
cfg() { # cfg TORCH_DTYPE_KEY VALUE: a small Llama config naming its dtype
	printf '{"model_type": "llama", "hidden_size": 512, "intermediate_size": 1024,
	"num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 4,
	"vocab_size": 1000, "%s": "%s"}\n' "$1" "$2" >"$tmp/cfg.json"
}
got=$(served_dtype --model llama-3.2-1b --engine sglang --mode decode --batch 2 --seq 100)
[ "$got" = bf16 ]; check "a built-in served in bf16 (got '$got')" $?
cfg torch_dtype float16
got=$(served_dtype --model "$tmp/cfg.json" --engine vllm --mode prefill --prompt-lens 64)
[ "$got" = fp16 ]; check "a float16 checkpoint served in fp16 (got '$got')" $?
cfg torch_dtype float32
got=$(served_dtype --model "$tmp/cfg.json" --engine vllm --mode prefill --prompt-lens 64)
[ "$got" = fp16 ]; check "a float32 checkpoint served in fp16 (got '$got')" $?
cfg dtype bfloat16
got=$(served_dtype --model "$tmp/cfg.json" --engine sglang --mode prefill --prompt-lens 64)
[ "$got" = bf16 ]; check "a bfloat16 checkpoint (newer configs' \"dtype\") served in bf16 (got '$got')" $?
got=$(served_dtype --model "$tmp/cfg.json" --engine sglang --mode prefill --prompt-lens 64 --dtype fp16)
[ "$got" = fp16 ]; check "--dtype overrides the checkpoint's (got '$got')" $?
cfg torch_dtype float16
got=$(served_dtype --model "$tmp/cfg.json" --mode inference --batch 1 --seq 64)
[ "$got" = fp32 ]; check "--engine hf keeps fp32 (got '$got')" $?

# FP8 (serve.c): each of a layer's four linears (QKV, o_proj, gate_up,
# down) gets its per-token-group quantization kernel: 16 x 4 = 64 launches
# more than BF16's 165
got=$("$BIN" --model llama-3.2-1b --engine sglang --mode prefill --prompt-lens 100,200 --dtype fp8 \
	--target h100 2>/dev/null | sed -n 's/^kernels *\([0-9]*\) launches.*/\1/p')
[ "$got" = 229 ]; check "sglang fp8 prefill: 229 launches (got '$got')" $?
# the weights: the linears a byte each, the tied embedding 16-bit.  Per
# layer QKV 2048 x (32 + 2 x 8) x 64, o_proj 2048 x 2048, MLP 3 x 2048 x
# 8192: 60.82M, x 16 layers = 973.1M; the embedding 128256 x 2048 =
# 262.7M.  FP8 over BF16: (973.1 + 2 x 262.7) / (2 x (973.1 + 262.7)) = 0.606
wgib() { # wgib DTYPE: the weights' GiB of a decode step
	"$BIN" --model llama-3.2-1b --engine sglang --mode decode --batch 2 --seq 100 --dtype "$1" \
		--target h100 --json 2>/dev/null | sed -n 's/.*"weights_gib": \([0-9.e+]*\).*/\1/p' | head -1
}
w16=$(wgib bf16); w8=$(wgib fp8)
awk -v a="$w8" -v b="$w16" 'BEGIN { r = a / b; exit !(r > 0.60 && r < 0.612) }'
check "fp8 weights 0.606 of bf16's (got $w8 / $w16 GiB)" $?
# a GPU of a pipeline holds its stage's FP8 linears: --pp 2 halves them,
# the tied embedding (first stage) and LM head (last) 16-bit on each:
# (973.1M / 2 + 262.7M x 2) B = 0.9424 GiB; chunked prefill passes hold
# the weights once (each pass counted them: --pp 2 gave 0.31 GiB)
w8p=$("$BIN" --model llama-3.2-1b --engine sglang --mode decode --batch 2 --seq 100 --dtype fp8 --pp 2 \
	--target h100 --json 2>/dev/null | sed -n 's/.*"weights_gib": \([0-9.e+]*\).*/\1/p' | head -1)
awk -v a="$w8p" 'BEGIN { exit !(a > 0.940 && a < 0.945) }'
check "fp8 at --pp 2: a stage's weights 0.9424 GiB (got $w8p)" $?
wch() { # wch ARGS: weights_gib of an fp8 prefill of 3000 tokens
	"$BIN" --model llama-3.2-1b --engine vllm --mode prefill --prompt-lens 3000 --dtype fp8 "$@" \
		--target h100 --json 2>/dev/null | sed -n 's/.*"weights_gib": \([0-9.e+]*\).*/\1/p' | head -1
}
a=$(wch); b=$(wch --chunk 1000)
[ -n "$a" ] && [ "$a" = "$b" ]; check "fp8 weights the same in three chunks as in one ($b / $a GiB)" $?
# a decode step reads the weights: FP8's is the faster
step() { # step DTYPE: a decode step's iteration_ms
	"$BIN" --model llama-3.1-8b --engine vllm --mode decode --batch 8 --seq 1000 --dtype "$1" \
		--target h100 --json 2>/dev/null | sed -n 's/.*"iteration_ms": \([0-9.e+]*\).*/\1/p' | head -1
}
s16=$(step bf16); s8=$(step fp8)
awk -v a="$s8" -v b="$s16" 'BEGIN { exit !(a > 0 && a < 0.8 * b) }'
check "an fp8 decode step under 0.8 of bf16's (got $s8 vs $s16 ms)" $?
# a checkpoint quantized to FP8 is served so without --dtype, and the
# quantization is not warned about
printf '{"model_type": "llama", "hidden_size": 512, "intermediate_size": 1024,
"num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 4,
"vocab_size": 1000, "torch_dtype": "bfloat16",
"quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}}\n' >"$tmp/q8.json"
got=$(served_dtype --model "$tmp/q8.json" --engine sglang --mode prefill --prompt-lens 64)
[ "$got" = fp8 ]; check "an fp8 checkpoint served in fp8 (got '$got')" $?
! "$BIN" --model "$tmp/q8.json" --engine sglang --mode prefill --prompt-lens 64 --target h100 2>&1 |
	grep -q "weights built as"
check "an fp8 checkpoint served in fp8: no quantization warning" $?
got=$(served_dtype --model "$tmp/q8.json" --engine sglang --mode prefill --prompt-lens 64 --dtype bf16)
[ "$got" = bf16 ]; check "--dtype bf16 over an fp8 checkpoint (got '$got')" $?
# the built-in deepseek-v3 is its only release, an FP8 checkpoint: served in
# FP8 it fits eight H200s at TP 8 (671 B weights, a byte each, 78-80 GiB a
# GPU), where in BF16 (157.9 GiB a GPU) it fits none; deepseek-v2's release
# is BF16
got=$(served_dtype --model deepseek-v3 --engine sglang --mode decode --batch 8 --seq 1000 --tp 8)
[ "$got" = fp8 ]; check "the built-in deepseek-v3 served in fp8 (got '$got')" $?
got=$(served_dtype --model deepseek-v2 --engine sglang --mode decode --batch 8 --seq 1000 --tp 8)
[ "$got" = bf16 ]; check "the built-in deepseek-v2 served in bf16 (got '$got')" $?
"$BIN" --model deepseek-v3 --engine sglang --mode decode --batch 8 --seq 1000 --tp 8 --target h200 --json \
	>"$tmp/ds3.json" 2>/dev/null
python3 - "$tmp/ds3.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
w = d["memory"]["weights_gib"]
assert 75 < w < 82 and d["predictions"][0]["memory_fits"], (w, d["predictions"][0]["memory_fits"])
PY
check "deepseek-v3 in fp8 fits an H200 at tp 8 with 75-82 GiB of weights" $?

# 16-bit experts run the engines' Triton fused-MoE kernel as FP8 ones do:
# Qwen3-30B-A3B's 48 MoE layers, w13 and w2 each, in both engines
for eng in vllm sglang; do
	"$BIN" --model qwen3-30b-a3b --engine $eng --mode decode --batch 8 --seq 1024 --target h100 --json \
		>"$tmp/moe16.json" 2>/dev/null
	python3 - "$tmp/moe16.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["predictions"][0]
rows = {r["kernel"]: r for r in p["breakdown"]}
assert "fused_moe_kernel" in rows, sorted(rows)
assert rows["fused_moe_kernel"]["launches"] == 96, rows["fused_moe_kernel"]
PY
	check "$eng: Qwen3-30B-A3B's BF16 experts as 96 fused_moe_kernel launches a step" $?
done

# A sliding-window layer keeps the last `window` tokens of each sequence in
# the engines' cache (vLLM's hybrid KV cache manager, SGLang's SWA pool):
# Gemma-3-27B's 62 layers are 10 global and 52 local (window 1024); a K/V
# token of a layer takes 2 x 16 heads x 128 x 2 bytes = 8192.  One prompt of
# 30000 tokens: (10 x 30000 + 52 x 1024) x 8192 bytes; served with 100 new
# tokens from 2000 and 500: every sequence grows by 99 in the cache.
kvgib() { "$BIN" "$@" --target h100 --json 2>/dev/null | sed -n 's/.*"kv_cache_gib": \([0-9.e+]*\).*/\1/p' | head -1; }
g1=$(kvgib --model gemma-3-27b --engine vllm --mode prefill --prompt-lens 30000)
g2=$(kvgib --model gemma-3-27b --engine sglang --mode serve --prompt-lens 2000,500 --new-tokens 100)
awk -v a="$g1" -v b="$g2" 'BEGIN { e1 = (10 * 30000 + 52 * 1024) * 8192 / 2^30
	e2 = (10 * (2099 + 599) + 52 * (1024 + 599)) * 8192 / 2^30
	exit !(a > 0.999 * e1 && a < 1.001 * e1 && b > 0.999 * e2 && b < 1.001 * e2) }'
check "Gemma 3's local layers cache their window: $g1 GiB for 30000 tokens, $g2 served" $?

# --kv-cache-dtype fp8: the cache a byte an element.  Llama-3.1-8B, 8
# sequences of 4096 tokens: 2 x 32 layers x 8 KV heads x 128 x 32768
# tokens = 2 GiB (4 in BF16); the written trace's attention calls carry
# attn_kv_bytes 1 (one a layer: 32); the decode step, reading the cache,
# is the faster
kv_run() { # kv_run DTYPE ARGS...: the --json of a decode step
	d=$1; shift
	"$BIN" --model llama-3.1-8b --engine vllm --dtype bf16 --mode decode --batch 8 --seq 4096 \
		--kv-cache-dtype "$d" --target h100 --json "$@" 2>/dev/null
}
kv16=$(kv_run auto | sed -n 's/.*"kv_cache_gib": \([0-9.e+]*\).*/\1/p')
kv8=$(kv_run fp8 --write-trace "$tmp/kv8.mp" | sed -n 's/.*"kv_cache_gib": \([0-9.e+]*\).*/\1/p')
awk -v a="$kv8" -v b="$kv16" 'BEGIN { exit !(a > 1.99 && a < 2.01 && b > 3.99 && b < 4.01) }'
check "an fp8 KV cache 2 GiB, bf16's 4 (got $kv8, $kv16)" $?
got=$("$B/surfer-dump" "$tmp/kv8.mp" | grep -c '"attn_kv_bytes":1')
[ "$got" = 32 ]; check "the written trace's 32 attention calls read a byte a KV element (got $got)" $?
t16=$(kv_run auto | sed -n 's/.*"iteration_ms": \([0-9.e+]*\).*/\1/p' | head -1)
t8=$(kv_run fp8_e4m3 | sed -n 's/.*"iteration_ms": \([0-9.e+]*\).*/\1/p' | head -1)
awk -v a="$t8" -v b="$t16" 'BEGIN { exit !(a > 0 && a < b) }'
check "a decode step over an fp8 cache faster ($t8 vs $t16 ms)" $?

# NCCL's reducing kernels are one per dtype: a prefill's 12 MB all-reduces
# (3000 tokens x 2048 x 2 bytes, above the custom all-reduce's 8 MiB) in
# FP16 run the f16 kernel, in BF16 the bf16 one
for dt in fp16:f16 bf16:bf16; do
	"$BIN" --model llama-3.2-1b --engine sglang --mode prefill --prompt-lens 3000 --tp 2 \
		--dtype "${dt%%:*}" --target h100 2>/dev/null | grep -q "ncclDevKernel_AllReduce_Sum_${dt#*:}_RING_LL"
	check "a ${dt%%:*} prefill's all-reduce is NCCL's ${dt#*:} kernel" $?
done
# The custom all-reduce runs where the group is all NVLink-connected
# (comm.c); on a PCIe card the engine falls back to NCCL, and the kernel
# list names NCCL's kernel, in one row with the large messages' own: a
# decode step at TP 2 (2 rows x 2048 x 2 bytes) on an L40S and an H100
kl() { # kl TARGET: the kernel rows of a TP 2 decode step and a 3000-token prefill
	for m in "decode --batch 2 --seq 100" "serve --prompt-lens 3000 --new-tokens 2"; do
		# shellcheck disable=SC2086
		"$BIN" --model llama-3.2-1b --engine sglang --mode $m --tp 2 --dtype bf16 \
			--target "$1" -n 0 2>/dev/null | grep -E "cross_device_reduce|ncclDevKernel_AllReduce"
	done
}
kl l40s >"$tmp/pcie.txt"
got=$(grep -c cross_device_reduce "$tmp/pcie.txt")
[ "$got" = 0 ]; check "no custom all-reduce listed on a PCIe card (got $got rows)" $?
got=$(grep -c ncclDevKernel_AllReduce_Sum_bf16_RING_LL "$tmp/pcie.txt")
[ "$got" = 2 ]; check "one NCCL all-reduce row per run on a PCIe card (got $got)" $?
calls=$(awk '{ print $2 }' "$tmp/pcie.txt" | tr '\n' ' ')
# decode: 16 x 2 + 1 all-reduces; serve: the prefill's 33 (12 MB, NCCL's
# own) and one step's 33 in one row
[ "$calls" = "33 66 " ]; check "their calls: 33 and 33 + 33 (got '$calls')" $?
kl h100 >"$tmp/nvl.txt"
got=$(grep -c cross_device_reduce "$tmp/nvl.txt")
[ "$got" = 2 ]; check "the custom all-reduce listed on an NVLink board (got $got rows)" $?
# the Chrome trace's kernels say the same, per target: NCCL's on the L40S,
# the custom one on the H100 (one configuration, named per target)
"$BIN" --model llama-3.2-1b --engine sglang --mode decode --batch 2 --seq 100 --tp 2 --dtype bf16 \
	--target l40s --target h100 --chrome-trace "$tmp/ar.json" >/dev/null 2>&1
got=$(python3 -c '
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
pid = {e["pid"]: e["args"]["name"].split()[0] for e in ev if e.get("name") == "process_name"}
seen = sorted({pid[e["pid"]] + ":" + e["name"].split("<")[0] for e in ev
               if e.get("cat") == "kernel" and ("cross_device" in e["name"] or "AllReduce" in e["name"])})
print(" ".join(seen))' "$tmp/ar.json")
[ "$got" = "h100-sxm:cross_device_reduce_1stage l40s:ncclDevKernel_AllReduce_Sum_bf16_RING_LL" ]
check "Chrome trace: the all-reduce named per target (got '$got')" $?
# in FP16 the engines' kernel is the half one, and so is NCCL's fallback
"$BIN" --model llama-3.2-1b --engine sglang --mode serve --prompt-lens 3000 --new-tokens 2 --tp 2 \
	--dtype fp16 --target l40s -n 0 2>/dev/null | grep -E "cross_device_reduce|ncclDevKernel_AllReduce" >"$tmp/f16.txt"
got=$(awk '{ print $1 ":" $2 }' "$tmp/f16.txt")
[ "$got" = "ncclDevKernel_AllReduce_Sum_f16_RING_LL:66" ]
check "an FP16 serve on a PCIe card: one f16 NCCL row of 66 calls (got '$got')" $?
# AWQ and GPTQ checkpoints (serve.c, Marlin): the decoder's linears 4-bit
# with a 16-bit scale per 128 and AWQ's 4-bit zero point per 128, 0.5 +
# 2.5 / 128 = 0.51953125 bytes a weight; the embedding (tied) and the
# norms stay 16-bit.  Llama-3.2-1B's shapes (above): (973.1M x 0.5195 +
# 262.7M x 2) / ((973.1M + 262.7M) x 2) = 0.4171 of the 16-bit weights.
awq() { # awq FILE METHOD EXTRA: Llama-3.2-1B's shapes, quantized
	printf '{"model_type": "llama", "hidden_size": 2048, "intermediate_size": 8192,
"num_hidden_layers": 16, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 64,
"vocab_size": 128256, "tie_word_embeddings": true, "torch_dtype": "float16"%s}\n' "$3" >"$1"
}
awq "$tmp/fp16.json" none ''
awq "$tmp/awq.json" awq ', "quantization_config": {"quant_method": "awq", "bits": 4,
"group_size": 128, "zero_point": true, "version": "gemm"}'
awq "$tmp/gptq.json" gptq ', "quantization_config": {"quant_method": "gptq", "bits": 4,
"group_size": 128, "sym": true, "desc_act": false}'
wq_w() { # wq_w CONFIG: the weights' GiB of a decode step
	"$BIN" --model "$1" --engine vllm --mode decode --batch 8 --seq 1000 --target h100 --json \
		2>/dev/null | sed -n 's/.*"weights_gib": \([0-9.e+]*\).*/\1/p' | head -1
}
w16=$(wq_w "$tmp/fp16.json"); wa=$(wq_w "$tmp/awq.json"); wg=$(wq_w "$tmp/gptq.json")
awk -v a="$wa" -v b="$w16" 'BEGIN { r = a / b; exit !(r > 0.412 && r < 0.422) }'
check "awq weights 0.417 of fp16's (got $wa / $w16 GiB)" $?
# GPTQ (sym) has no zero point: 0.515625 bytes, 973.1M x 0.0039 = 3.8 MB less
awk -v a="$wa" -v g="$wg" 'BEGIN { d = (a - g) * 1073741824 / 973.08e6; exit !(d > 0.0035 && d < 0.0043) }'
check "gptq's weights without zero points ($wg against awq's $wa GiB)" $?
got=$("$BIN" --model "$tmp/awq.json" --engine vllm --mode decode --batch 8 --seq 1000 --target h100 \
	2>/dev/null | sed -n 's/^input .*, \(fp16 w4a16\)$/\1/p')
[ "$got" = "fp16 w4a16" ]; check "an awq checkpoint served fp16 w4a16 (got '$got')" $?
! "$BIN" --model "$tmp/awq.json" --engine vllm --mode decode --batch 8 --seq 1000 --target h100 2>&1 |
	grep -q "weights built as"
check "an awq checkpoint served quantized: no quantization warning" $?
"$BIN" --model "$tmp/awq.json" --engine sglang --mode decode --batch 8 --seq 1000 --target h100 -n 0 \
	2>/dev/null | grep -q "Marlin .* tcgemm"
check "the linears run as Marlin kernels" $?
# a decode step of 8 sequences reads the weights: the 4-bit ones about a
# quarter; a prefill of 4 x 2000 tokens runs the same 16-bit MMAs
wq_t() { # wq_t CONFIG MODE...: iteration_ms
	f=$1; shift
	"$BIN" --model "$f" --engine vllm "$@" --target a100-sxm4-80 --json 2>/dev/null |
		sed -n 's/.*"iteration_ms": \([0-9.e+]*\).*/\1/p' | head -1
}
d16=$(wq_t "$tmp/fp16.json" --mode decode --batch 8 --seq 1000)
da=$(wq_t "$tmp/awq.json" --mode decode --batch 8 --seq 1000)
awk -v a="$da" -v b="$d16" 'BEGIN { exit !(a > 0 && a < 0.7 * b) }'
check "an awq decode step under 0.7 of fp16's (got $da vs $d16 ms)" $?
p16=$(wq_t "$tmp/fp16.json" --mode prefill --prompt-lens 2000,2000,2000,2000)
pa=$(wq_t "$tmp/awq.json" --mode prefill --prompt-lens 2000,2000,2000,2000)
awk -v a="$pa" -v b="$p16" 'BEGIN { exit !(a > 0.95 * b && a <= b) }'
check "an awq prefill near fp16's (got $pa vs $p16 ms)" $?
# the written trace carries the weights' bytes (trace format 1.9's b_bytes)
"$BIN" --model "$tmp/awq.json" --engine sglang --mode decode --batch 8 --seq 1000 --target l40s \
	--write-trace "$tmp/awq.mp" --json 2>/dev/null | sed -n 's/.*"iteration_ms": \([0-9.e+]*\).*/\1/p' | head -1 >"$tmp/awq1"
"$BIN" "$tmp/awq.mp" --target l40s --json 2>/dev/null | sed -n 's/.*"iteration_ms": \([0-9.e+]*\).*/\1/p' | head -1 >"$tmp/awq2"
[ -s "$tmp/awq1" ] && cmp -s "$tmp/awq1" "$tmp/awq2"
check "the awq run's written trace predicts the same ($(cat "$tmp/awq1") / $(cat "$tmp/awq2") ms)" $?
"$BIN" --model "$tmp/awq.json" --mode decode --batch 1 --seq 100 --dtype fp16 --target h100 2>&1 |
	grep -q "its awq weights built as fp16"
check "--engine hf builds an awq checkpoint in fp16, and says so" $?

# an FP8 checkpoint on GPUs without FP8 tensor cores: vLLM's FP8 Marlin,
# weight-only (W8A16), the weights a byte each as in W8A8; a target list
# with an FP8 GPU keeps W8A8 and refuses the A100; SGLang refuses it
awq "$tmp/fp8ck.json" fp8 ', "quantization_config": {"quant_method": "fp8", "activation_scheme": "dynamic"}'
"$BIN" --model "$tmp/fp8ck.json" --engine vllm --mode decode --batch 8 --seq 1000 --target a100-sxm4-80 \
	-n 0 >"$tmp/fp8m.txt" 2>/dev/null
grep -q '^input .*, bf16 w8a16$' "$tmp/fp8m.txt" && grep -q "Marlin .* tcgemm" "$tmp/fp8m.txt"
check "vllm serves an fp8 checkpoint on an A100 as W8A16 Marlin" $?
w8m=$("$BIN" --model "$tmp/fp8ck.json" --engine vllm --mode decode --batch 8 --seq 1000 --target a100-sxm4-80 \
	--json 2>/dev/null | sed -n 's/.*"weights_gib": \([0-9.e+]*\).*/\1/p' | head -1)
w8h=$("$BIN" --model "$tmp/fp8ck.json" --engine vllm --mode decode --batch 8 --seq 1000 --target h100 \
	--json 2>/dev/null | sed -n 's/.*"weights_gib": \([0-9.e+]*\).*/\1/p' | head -1)
[ -n "$w8m" ] && [ "$w8m" = "$w8h" ]; check "its weights a byte each, as W8A8's on the H100 ($w8m / $w8h GiB)" $?

# llm-compressor's compressed-tensors checkpoints: integer weights without
# activation quantization (W4A16, group 128, symmetric) are weight-only as
# GPTQ's are (the same bytes), FP8 weights and activations (FP8-dynamic)
# are served FP8, INT8 W8A8 is not built and says so
ct() { # ct FILE GROUP0: Llama-3.2-1B's shapes, a compressed-tensors config
	awq "$1" ct ", \"quantization_config\": {\"quant_method\": \"compressed-tensors\",
\"format\": \"pack-quantized\", \"config_groups\": {\"group_0\": $2}}"
}
ct "$tmp/ct4.json" '{"targets": ["Linear"], "input_activations": null, "weights": {"num_bits": 4,
"type": "int", "strategy": "group", "group_size": 128, "symmetric": true}}'
ct "$tmp/ct8f.json" '{"targets": ["Linear"], "input_activations": {"num_bits": 8, "type": "float",
"strategy": "token", "dynamic": true}, "weights": {"num_bits": 8, "type": "float", "strategy": "channel"}}'
ct "$tmp/ct8i.json" '{"targets": ["Linear"], "input_activations": {"num_bits": 8, "type": "int",
"strategy": "token", "dynamic": true}, "weights": {"num_bits": 8, "type": "int", "strategy": "channel"}}'
wc=$(wq_w "$tmp/ct4.json")
[ -n "$wc" ] && [ "$wc" = "$wg" ]; check "compressed-tensors W4A16 weighs as gptq ($wc / $wg GiB)" $?
"$BIN" --model "$tmp/ct4.json" --engine vllm --mode decode --batch 8 --seq 1000 --target h100 2>/dev/null |
	grep -q '^input .*, fp16 w4a16$'
check "compressed-tensors W4A16 served fp16 w4a16" $?
got=$(served_dtype --model "$tmp/ct8f.json" --engine vllm --mode decode --batch 8 --seq 1000)
[ "$got" = fp8 ]; check "compressed-tensors FP8-dynamic served in fp8 (got '$got')" $?
"$BIN" --model "$tmp/ct8i.json" --engine vllm --mode decode --batch 8 --seq 1000 --target h100 2>&1 |
	grep -q "its compressed-tensors weights built as fp16"
check "compressed-tensors INT8 W8A8: built 16-bit, with the warning" $?

# gpt-oss (MXFP4 experts): the experts' weights 4-bit with an 8-bit scale
# per 32, 0.53125 bytes; attention, router, embedding and head 16-bit.
# gpt-oss-20b: 24 x 32 x 3 x 2880^2 = 19.11B expert weights x 0.53125 +
# the other 1.80B x 2 = 13.75e9 B = 12.80 GiB; its experts run Triton's
# matmul_ogs, its other linears the 16-bit GEMMs; --engine hf refuses it
"$BIN" --model gpt-oss-20b --engine vllm --mode decode --batch 8 --seq 1000 --target h100 --json \
	-n 0 >"$tmp/oss.json" 2>/dev/null
wo=$(sed -n 's/.*"weights_gib": \([0-9.e+]*\).*/\1/p' "$tmp/oss.json" | head -1)
awk -v a="$wo" 'BEGIN { exit !(a > 12.75 && a < 12.85) }'
check "gpt-oss-20b weights 12.80 GiB (got $wo)" $?
grep -q '"_matmul_ogs"' "$tmp/oss.json" && grep -q '"gemm_tensorop' "$tmp/oss.json" &&
	! grep -q 'Marlin' "$tmp/oss.json"
check "gpt-oss: the experts in matmul_ogs, attention's linears 16-bit" $?
"$BIN" --model gpt-oss-20b --engine sglang --mode decode --batch 8 --seq 1000 --target h100 2>/dev/null |
	grep -q '^input .*, bf16, w4a16 experts$'
check "gpt-oss served bf16 with w4a16 experts" $?

# hf stays the default and refuses the engines' modes
bad() { # bad DESCRIPTION ARGS...: exit 2 and one line on stderr
	d=$1; shift
	"$BIN" "$@" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]
	check "$d: exit 2 with one line (got $rc: $(cat "$tmp/err"))" $?
}
bad "prefill without an engine" --model llama-3.2-1b --mode prefill --prompt-lens 10 --dtype bf16 --target h100
bad "unknown engine" --model llama-3.2-1b --engine tgi --mode prefill --dtype bf16 --target h100
bad "bad length" --model llama-3.2-1b --engine sglang --mode prefill --prompt-lens 10,x --dtype bf16 --target h100
bad "zero prompt" --model llama-3.2-1b --engine sglang --mode prefill --prompt-lens 10,0 --dtype bf16 --target h100
bad "context lens with prefill" --model llama-3.2-1b --engine sglang --mode prefill --context-lens 10 --dtype bf16 --target h100
bad "missing file" --model llama-3.2-1b --engine sglang --mode prefill --prompt-lens @/nonexistent --dtype bf16 --target h100
bad "fp32 engine" --model llama-3.2-1b --engine vllm --mode decode --dtype fp32 --target h100
bad "an fp8 KV cache without an engine" --model llama-3.2-1b --mode decode --dtype bf16 --kv-cache-dtype fp8 --target h100
bad "an unknown KV cache dtype" --model llama-3.2-1b --engine vllm --mode decode --dtype bf16 --kv-cache-dtype int4 --target h100
bad "fp8 recipe on an engine" --model llama-3.2-1b --engine vllm --mode decode --dtype fp8 --fp8-recipe rowwise --target h100
bad "fp8 serving on a GPU without FP8" --model llama-3.2-1b --engine sglang --mode decode --dtype fp8 --target a100
bad "engine on gpt2" --model gpt2 --engine sglang --mode prefill --dtype bf16 --target h100
bad "gpt-oss under --engine hf" --model gpt-oss-20b --mode decode --target h100
bad "awq on a GPU without the Marlin kernels" --model "$tmp/awq.json" --engine vllm --mode decode --target t4
bad "awq weights with --dtype fp8" --model "$tmp/awq.json" --engine vllm --mode decode --dtype fp8 --target h100
bad "an fp8 checkpoint on an A100 beside an H100" --model "$tmp/fp8ck.json" --engine vllm --mode decode \
	--batch 8 --seq 1000 --target a100-sxm4-80 --target h100
bad "an fp8 checkpoint on an A100 under sglang" --model "$tmp/fp8ck.json" --engine sglang --mode decode \
	--batch 8 --seq 1000 --target a100-sxm4-80
bad "--dtype fp8 on an A100 under vllm" --model "$tmp/fp16.json" --engine vllm --mode decode --dtype fp8 \
	--batch 8 --seq 1000 --target a100-sxm4-80
bad "chunk with decode" --model llama-3.2-1b --engine sglang --mode decode --chunk 64 --dtype bf16 --target h100
# a decode step's cache holds at least its prompt; an empty item is a typo
bad "zero context" --model llama-3.2-1b --engine sglang --mode decode --context-lens 0 --dtype bf16 --target h100
bad "a zero context among others" --model llama-3.2-1b --engine vllm --mode decode --context-lens 100,0 --dtype bf16 --target h100
bad "two commas" --model llama-3.2-1b --engine sglang --mode decode --context-lens 100,,200 --dtype bf16 --target h100
bad "a leading comma" --model llama-3.2-1b --engine sglang --mode prefill --prompt-lens ,100 --dtype bf16 --target h100
bad "a trailing comma" --model llama-3.2-1b --engine sglang --mode prefill --prompt-lens 100, --dtype bf16 --target h100
bad "a plus sign" --model llama-3.2-1b --engine sglang --mode decode --context-lens +100 --dtype bf16 --target h100
bad "new tokens with decode" --model llama-3.2-1b --engine sglang --mode decode --context-lens 100 --new-tokens 8 --dtype bf16 --target h100
bad "new tokens with prefill" --model llama-3.2-1b --engine vllm --mode prefill --prompt-lens 100 --new-tokens 8 --dtype bf16 --target h100
# the lengths give the batch: --batch or --seq beside them is refused (a
# --batch 3 after two prompts counted three sequences' tokens)
bad "batch with prompt lengths" --model llama-3.2-1b --engine sglang --mode serve --prompt-lens 100,200 --new-tokens 4 --batch 3 --dtype bf16 --target h100
bad "batch before context lengths" --model llama-3.2-1b --engine sglang --mode decode --batch 3 --context-lens 100,200 --dtype bf16 --target h100
bad "seq with prompt lengths" --model llama-3.2-1b --engine vllm --mode prefill --prompt-lens 100 --seq 512 --dtype bf16 --target h100
# --pp: the step runs the stages in turn and sends the activations (and
# vLLM's residual under TP) from one to the next, each send between the two
# stages' GPUs: Llama-3.1-405B at TP 8 x PP 2 on two 8-GPU H100 nodes sends
# 2 x 32 x 16384 x 2 bytes = 2 MiB over the network, so its step is longer
# than TP 8's (the same kernels on one GPU of a stage; the sends were timed
# over the engine's one data-parallel rank once, as nothing: 52.674 ms both)
pp_args="--model llama-3.1-405b --engine vllm --mode decode --batch 32 --seq 2048 --dtype bf16
	--target h100-sxm --json"
one=$("$BIN" $pp_args --tp 8 2>/dev/null | sed -n 's/.*"iteration_ms": \([0-9.e+]*\).*/\1/p' | head -1)
two=$("$BIN" $pp_args --tp 8 --pp 2 2>/dev/null | sed -n 's/.*"iteration_ms": \([0-9.e+]*\).*/\1/p' | head -1)
sr=$("$BIN" $pp_args --tp 8 --pp 2 2>/dev/null | grep -A6 '"kernel": "ncclDevKernel_SendRecv"' |
	sed -n 's/.*"predicted_ms": \([0-9.e+]*\).*/\1/p' | head -1)
awk -v a="$one" -v b="$two" -v s="$sr" 'BEGIN { exit !(a > 0 && b > a && s > 0.01) }'
check "vllm tp 8 x pp 2: the stage sends timed ($sr ms), the step $two ms above tp 8's $one" $?

# training options and FP8 are refused, not dropped (--grad-accum 2 ran
# the decode step twice, --dtype fp8 predicted BF16)
bad "grad-accum on an engine" --model llama-3.2-1b --engine vllm --mode decode --grad-accum 2 --dtype bf16 --target h100
bad "cp on an engine" --model llama-3.2-1b --engine sglang --mode prefill --cp 2 --dtype bf16 --target h100
bad "optimizer on an engine" --model llama-3.2-1b --engine sglang --mode prefill --optimizer adamw --dtype bf16 --target h100
# Hugging Face's module options: the engines' kernels are their own
bad "liger on an engine" --model llama-3.2-1b --engine vllm --mode decode --liger --dtype bf16 --target h100
grep -q "liger (Hugging Face's modules" "$tmp/err"; check "--liger's refusal names why ($(cat "$tmp/err"))" $?
bad "norm on an engine" --model llama-3.2-1b --engine sglang --mode decode --norm eager --dtype bf16 --target h100
grep -q "norm (Hugging Face's modules" "$tmp/err"; check "--norm's refusal names why ($(cat "$tmp/err"))" $?
# a quantized checkpoint's config (Qwen3-8B-FP8's quantization_config) is
# built in --dtype and says so; without it, no such warning
q='{"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 1024,
 "intermediate_size": 3072, "num_hidden_layers": 2, "num_attention_heads": 16,
 "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 1000'
printf '%s, "quantization_config": {"fmt": "e4m3", "quant_method": "fp8"}}\n' "$q" >"$tmp/q.json"
printf '%s}\n' "$q" >"$tmp/q2.json"
"$BIN" --model "$tmp/q.json" --engine sglang --mode decode --batch 2 --seq 10 --dtype bf16 --target h100 \
	>/dev/null 2>"$tmp/err"
grep -q "its fp8 weights built as bf16" "$tmp/err"; check "a quantized config is named ($(cat "$tmp/err"))" $?
"$BIN" --model "$tmp/q2.json" --engine sglang --mode decode --batch 2 --seq 10 --dtype bf16 --target h100 \
	>/dev/null 2>"$tmp/err"
[ $? -eq 0 ] && ! grep -q "weights built as" "$tmp/err"; check "an unquantized config: no such warning ($(cat "$tmp/err"))" $?
# a tensor-parallel group wider than a node of the target's system spans
# nodes: TP 16 on H100s (8 a node) is placed on 2 nodes without --nodes
"$BIN" --model llama-3.1-70b --engine sglang --mode decode --batch 8 --seq 100 --tp 16 --dtype bf16 \
	--target h100 >"$tmp/tp16" 2>/dev/null
"$BIN" --model llama-3.1-70b --engine sglang --mode decode --batch 8 --seq 100 --tp 16 --nodes 2 \
	--dtype bf16 --target h100 >"$tmp/tp16n" 2>/dev/null
grep -q "one GPU of 16 on 2 nodes of 8" "$tmp/tp16" &&
	[ "$(grep '^predicted' "$tmp/tp16")" = "$(grep '^predicted' "$tmp/tp16n")" ]
check "tp 16 on h100: 2 nodes of 8, as --nodes 2 ($(grep '^predicted' "$tmp/tp16"))" $?
# a count above its limit names the limit, not "a positive count"
"$BIN" --model llama-3.2-1b --engine sglang --mode decode --batch 2000000 --seq 10 --dtype bf16 \
	--target h100 >/dev/null 2>"$tmp/err"
grep -q "a count from 1 to 1048576 is expected" "$tmp/err"
check "--batch above its limit names 1048576 ($(cat "$tmp/err"))" $?
printf '100,\n200\n\n300\n' >"$tmp/lens3"
got=$("$BIN" --model llama-3.2-1b --engine sglang --mode prefill --prompt-lens "@$tmp/lens3" --dtype bf16 \
	--target h100 2>&1 | sed -n 's/^input .* \([0-9]*\) sequences.*/\1/p')
[ "$got" = 3 ]; check "--prompt-lens @FILE: a comma before a line break and a blank line separate ($got)" $?
# a workload CSV with a header: the column of a known name (PipeWeave's
# num_prefill_tokens), one named after a colon, or a 1-based number
nseq() { "$BIN" "$@" --dtype bf16 --target h100 2>&1 | sed -n 's/^input .* \([0-9]*\) sequences* of up to \([0-9]*\) tokens (\([0-9]*\) in all).*/\1 \2 \3/p'; }
printf 'num_prefill_tokens,num_decode_tokens,output_tokens\n2648,775,122\n3740,304,122\n\n377,136,122\n' >"$tmp/w.csv"
got=$(nseq --model llama-3.2-1b --engine sglang --mode prefill --prompt-lens "@$tmp/w.csv")
[ "$got" = "3 3740 6765" ]; check "--prompt-lens @CSV: num_prefill_tokens, 3 prompts, 6765 tokens ($got)" $?
got=$(nseq --model llama-3.2-1b --engine sglang --mode decode --context-lens "@$tmp/w.csv:NUM_DECODE_TOKENS")
[ "$got" = "3 775 1215" ]; check "--context-lens @CSV:COLUMN, any case: 1215 cached tokens ($got)" $?
got=$(nseq --model llama-3.2-1b --engine sglang --mode prefill --prompt-lens "@$tmp/w.csv:3")
[ "$got" = "3 122 366" ]; check "--prompt-lens @CSV:3, the third column ($got)" $?
printf 'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n2023-11-16 18:15:50.9951690,396,109\n' >"$tmp/azure.csv"
got=$(nseq --model llama-3.2-1b --engine sglang --mode prefill --prompt-lens "@$tmp/azure.csv")
[ "$got" = "2 396 770" ]; check "--prompt-lens @CSV: Azure's ContextTokens ($got)" $?
printf '\357\273\277num_prefill_tokens,output_tokens\r\n300,10\r\n500,10\r\n' >"$tmp/bom.csv"
got=$(nseq --model llama-3.2-1b --engine sglang --mode prefill --prompt-lens "@$tmp/bom.csv")
[ "$got" = "2 500 800" ]; check "--prompt-lens @CSV: a spreadsheet's byte order mark and CRLF lines ($got)" $?
bad "a CSV with no known column for cached lengths" --model llama-3.2-1b --engine sglang --mode decode \
	--context-lens "@$tmp/w.csv" --dtype bf16 --target h100
grep -q "num_prefill_tokens, num_decode_tokens, output_tokens" "$tmp/err"
check "the refusal lists the columns ($(cat "$tmp/err"))" $?
bad "a column the CSV lacks" --model llama-3.2-1b --engine sglang --mode prefill --prompt-lens "@$tmp/w.csv:len" \
	--dtype bf16 --target h100
printf 'prompt_len\n12\nmany\n' >"$tmp/badw.csv"
bad "a CSV length that is no number" --model llama-3.2-1b --engine sglang --mode prefill \
	--prompt-lens "@$tmp/badw.csv" --dtype bf16 --target h100
grep -q "badw.csv:3: column 'prompt_len' holds 'many'" "$tmp/err"
check "the bad length is named by file, line and column ($(cat "$tmp/err"))" $?
# a list file with a typo stays a list: the bad item named, the path whole
mkdir -p "$tmp/a_directory_name_longer_than_forty_characters_in_all"
printf '5,x\n7\n' >"$tmp/a_directory_name_longer_than_forty_characters_in_all/lens"
bad "a list file with a bad item" --model llama-3.2-1b --engine sglang --mode prefill \
	--prompt-lens "@$tmp/a_directory_name_longer_than_forty_characters_in_all/lens" --dtype bf16 --target h100
grep -q "forty_characters_in_all/lens': 'x' (length 2)" "$tmp/err"
check "the list file's bad item and its place, under the whole path ($(cat "$tmp/err"))" $?
printf 'prompt_len\n' >"$tmp/empty.csv"
bad "a CSV header without rows" --model llama-3.2-1b --engine sglang --mode prefill \
	--prompt-lens "@$tmp/empty.csv" --dtype bf16 --target h100
"$BIN" --model llama-3.2-1b --engine sglang --mode decode --context-lens 100,0 --dtype bf16 --target h100 \
	>/dev/null 2>"$tmp/err"
grep -q "length 2 is 0" "$tmp/err"; check "the zero context is named by its place ($(cat "$tmp/err"))" $?
# --new-tokens per sequence: a sequence leaves the batch after its last
# token.  Prompts of 100 and 200 generating 3 and 1: the prefill of both,
# then two steps of the first sequence alone, after 100 and 101 cached
# tokens: the same time as the prefill and those two one-sequence decode
# steps predicted on their own; 4 tokens generated.
jv() { python3 -c "import json,sys; d=json.load(sys.stdin); p=d['predictions'][0]; print($1)"; }
S="--model llama-3.2-1b --engine sglang --dtype bf16 --target h100 --json"
serve31=$("$BIN" $S --mode serve --prompt-lens 100,200 --new-tokens 3,1 2>"$tmp/err" |
	jv "p['iteration_ms'], p['tokens_per_iteration']")
pre=$("$BIN" $S --mode prefill --prompt-lens 100,200 2>/dev/null | jv "p['iteration_ms']")
d100=$("$BIN" $S --mode decode --context-lens 100 2>/dev/null | jv "p['iteration_ms']")
d101=$("$BIN" $S --mode decode --context-lens 101 2>/dev/null | jv "p['iteration_ms']")
echo "$serve31 $pre $d100 $d101" | awk '{ d = $1 - ($3 + $4 + $5); exit !($2 == 4 && $3 > 0 && d < 1e-4 * $1 && d > -1e-4 * $1) }'
check "--new-tokens 3,1: the prefill, then two steps of one sequence ($serve31 = $pre + $d100 + $d101; $(cat "$tmp/err"))" $?
# the requests' end-to-end latencies: the one of 1 token leaves with the
# prefill, the one of 3 with the batch; two requests, so the median is
# halfway and the 90th percentile nine tenths of the way (linear between
# ranks); with one count for all, every request ends with the batch
"$BIN" $S --mode serve --prompt-lens 100,200 --new-tokens 3,1 2>/dev/null |
	jv "p['iteration_ms'], p['ttft_ms'], p['request_latency_median_ms'], p['request_latency_p90_ms']" |
	awk '{ m = $2 + 0.5 * ($1 - $2); q = $2 + 0.9 * ($1 - $2)
	       exit !($3 - m < 1e-6 * $1 && m - $3 < 1e-6 * $1 && $4 - q < 1e-6 * $1 && q - $4 < 1e-6 * $1) }'
check "request latencies with outputs of 3 and 1: median and p90 between the prefill and the batch" $?
"$BIN" $S --mode serve --prompt-lens 100,200 --new-tokens 3 2>/dev/null |
	jv "p['iteration_ms'], p['request_latency_median_ms'], p['request_latency_p90_ms']" |
	awk '{ exit !($2 - $1 < 1e-6 * $1 && $1 - $2 < 1e-6 * $1 && $3 == $2) }'
check "request latencies with one count for all: each the whole batch" $?
# one count for every sequence, or that count for each: the same run
a=$("$BIN" $S --mode serve --prompt-lens 100,200 --new-tokens 3 2>/dev/null | jv "p['iteration_ms']")
b=$("$BIN" $S --mode serve --prompt-lens 100,200 --new-tokens 3,3 2>/dev/null | jv "p['iteration_ms']")
[ -n "$a" ] && [ "$a" = "$b" ]; check "--new-tokens 3,3 = --new-tokens 3 ($b = $a ms)" $?
# the KV cache at its fullest: a sequence that ends frees its cache.
# Prompts of 100000 and 10 generating 1 and 500: the prompts' 100010
# tokens after the prefill (the long one ends there), where 500 each
# would reach 100499 + 509 = 101008 at the last step; 32 KiB a token
# (16 layers x K and V x 8 KV heads x 64 x 2 bytes)
kv=$("$BIN" $S --mode serve --prompt-lens 100000,10 --new-tokens 1,500 2>/dev/null |
	jv "round(d['memory']['kv_cache_gib'] * 2**30 / 32768)")
kv5=$("$BIN" $S --mode serve --prompt-lens 100000,10 --new-tokens 500 2>/dev/null |
	jv "round(d['memory']['kv_cache_gib'] * 2**30 / 32768)")
[ "$kv" = 100010 ] && [ "$kv5" = 101008 ]
check "the KV cache's peak: 100010 tokens with outputs 1 and 500, 101008 with 500 each ($kv, $kv5)" $?
# from a workload CSV: Azure's GeneratedTokens; PipeWeave's two output
# columns (the trace's num_decode_tokens, its benchmark's output_tokens)
# must be named
got=$("$BIN" $S --mode serve --prompt-lens "@$tmp/azure.csv" --new-tokens "@$tmp/azure.csv" 2>"$tmp/err" |
	jv "p['tokens_per_iteration']")
[ "$got" = 153.0 ]; check "--new-tokens @CSV: Azure's GeneratedTokens, 44 + 109 ($got; $(cat "$tmp/err"))" $?
got=$("$BIN" $S --mode serve --prompt-lens "@$tmp/w.csv" --new-tokens "@$tmp/w.csv:num_decode_tokens" \
	2>"$tmp/err" | jv "p['tokens_per_iteration']")
[ "$got" = 1215.0 ]; check "--new-tokens @CSV:num_decode_tokens, 775 + 304 + 136 ($got; $(cat "$tmp/err"))" $?
bad "a CSV with two output columns unnamed" --model llama-3.2-1b --engine sglang --mode serve \
	--prompt-lens "@$tmp/w.csv" --new-tokens "@$tmp/w.csv" --dtype bf16 --target h100
grep -q "two columns of output lengths, num_decode_tokens and output_tokens: name one" "$tmp/err"
check "the ambiguity names both columns ($(cat "$tmp/err"))" $?
bad "fewer output counts than prompts" --model llama-3.2-1b --engine sglang --mode serve \
	--prompt-lens 100,200,300 --new-tokens 3,1 --dtype bf16 --target h100
grep -q "gives 2 counts for 3 sequences" "$tmp/err"; check "the counts are counted ($(cat "$tmp/err"))" $?
bad "output counts beside --batch of another size" --model llama-3.2-1b --engine sglang --mode serve \
	--batch 4 --seq 100 --new-tokens 3,1 --dtype bf16 --target h100
bad "per-sequence outputs for transformers' generate()" --model llama-3.2-1b --mode generate \
	--batch 2 --seq 100 --new-tokens 3,1 --dtype bf16 --target h100
bad "a zero output count" --model llama-3.2-1b --engine sglang --mode serve --prompt-lens 100,200 \
	--new-tokens 3,0 --dtype bf16 --target h100
grep -q "length 2 is 0; a sequence generates at least 1 token" "$tmp/err"
check "the zero output is named by its place ($(cat "$tmp/err"))" $?
# --attention names the engine's backend: FA2 on the H100 (mma.sync at
# part of the rate) is slower than the engine's own pick there (FA3) on a
# long prefill; the same on the A100, where the engine's pick is FA2.
pms() { # pms ARGS...: the predicted ms of the text report
	"$BIN" "$@" --dtype bf16 2>/dev/null | sed -n 's/^predicted *\([0-9.]*\) ms.*/\1/p'
}
P="--model llama-3.2-1b --engine sglang --mode prefill --prompt-lens 16384"
own=$(pms $P --target h100) fa2=$(pms $P --attention fa2 --target h100)
awk -v a="$own" -v b="$fa2" 'BEGIN { exit !(a > 0 && b > a) }'
check "sglang --attention fa2 on the H100 slower than its FA3 ($fa2 > $own ms)" $?
own=$(pms $P --target a100) fa2=$(pms $P --attention fa2 --target a100)
[ -n "$own" ] && [ "$own" = "$fa2" ]
check "sglang --attention fa2 on the A100 is its own pick ($fa2 = $own ms)" $?
bad "fa3 on an A100" $P --attention fa3 --dtype bf16 --target a100

# Every target's largest batch that fits (or that none does: the 16 GB
# RTX 4080 holds no 7B model in BF16), on each of the GPUs with
# BF16: an engine's build walks each sequence, so the search must not
# build batches of 2^20 per target (it took 29 s; about 0.1 s now).
t0=$(date +%s%N)
"$BIN" --model qwen2-7b --engine sglang --mode decode --batch 8 --seq 2048 --dtype bf16 \
	--all-targets >"$tmp/all.txt" 2>"$tmp/err"
rc=$?
t1=$(date +%s%N)
ms=$(( (t1 - t0) / 1000000 ))
limit=5000
[ -n "$SANITIZE" ] && limit=60000
[ $rc -eq 0 ] && [ $ms -lt $limit ]
check "--engine sglang --all-targets takes $ms ms (limit $limit; rc $rc)" $?
nt=$(grep -c '^target ' "$tmp/all.txt")
nb=$(grep -c 'batch [1-9][0-9]* at most' "$tmp/all.txt")
nf=$(grep -c 'does not fit; not even batch 1' "$tmp/all.txt")
[ "$nt" -gt 1 ] && [ "$nb" -gt 1 ] && [ $((nb + nf)) -eq "$nt" ]
check "--all-targets names each target's largest batch, or that none fits ($nb + $nf of $nt)" $?

# max_batch_fits in the JSON: an integer for --batch (decode of 8
# sequences of 512 on the H100: the 1B model's 2.3 GiB of weights leave room
# for more than 8), null for sequences of given lengths (no batch to grow:
# 0 there would read as "not even batch 1").
"$BIN" --model llama-3.2-1b --engine sglang --mode decode --batch 8 --seq 512 --dtype bf16 \
	--target h100 --json >"$tmp/mb_dec.json" 2>/dev/null &&
"$BIN" --model llama-3.2-1b --engine sglang --mode serve --prompt-lens 100,200 --new-tokens 4 \
	--dtype bf16 --target h100 --json >"$tmp/mb_srv.json" 2>/dev/null &&
python3 - "$tmp/mb_dec.json" "$tmp/mb_srv.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["predictions"][0]
s = json.load(open(sys.argv[2]))["predictions"][0]
assert isinstance(d["max_batch_fits"], int) and d["max_batch_fits"] > 8, d["max_batch_fits"]
assert "max_batch_fits" in s and s["max_batch_fits"] is None, s.get("max_batch_fits")
PY
check "max_batch_fits: an integer with --batch, null with --prompt-lens" $?

finish serve_cli
