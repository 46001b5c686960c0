#!/bin/sh
# report_cli.sh - reports that explain themselves: the legend, the verdict
# on a CPU-bound trace, --rank, --price keys resolved as --target does (and
# by family) with --plan too, the HTML's split bars and --model columns, and
# a JSON whose every key docs/analyzer.md documents.
. "$(dirname "$0")/lib.sh"
BIN="$B/surfer-analyze"
test_tmp report_cli

# A step of three kernels-heavy layers on an A100, and a T4 step whose GPU
# waits for the CPU's launches 93% of the time (mkanalyzer --launch-bound).
"$B/tests/mkanalyzer" step "NVIDIA A100-SXM4-40GB" "$tmp/step.mp" --iterations 2 >/dev/null &&
"$B/tests/mkanalyzer" step "Tesla T4" "$tmp/cpu.mp" --launch-bound --layers 10 --iterations 2 >/dev/null
check "traces written" $?

# The legend under the text report, and under the HTML's tables.
"$BIN" "$tmp/step.mp" -m wave -t h100-sxm --html "$tmp/step.html" >"$tmp/step.txt" 2>&1
check "step report exits 0" $?
grep -q '^legend     predicted: ' "$tmp/step.txt" && grep -q '^           GPU waits: ' "$tmp/step.txt" &&
	grep -A2 '^           kernels: ' "$tmp/step.txt" | grep -q 'exceed the iteration time' &&
	grep -q '^           bound: ' "$tmp/step.txt" && grep -q '^           methods: ' "$tmp/step.txt"
check "the text report ends with the legend" $?
grep -q '<dl class="legend">' "$tmp/step.html" && grep -q '<dt>GPU waits</dt>' "$tmp/step.html"
check "the HTML has the legend" $?

# The verdict: on an H100 the T4's launch-bound step keeps its time (its
# kernels shrink, the launches do not); the A100 step on an H100 is faster
# and gets none.
"$BIN" "$tmp/cpu.mp" -m wave -t h100-sxm >"$tmp/cpu.txt" 2>&1 &&
"$BIN" "$tmp/cpu.mp" -m wave -t h100-sxm --json >"$tmp/cpu.json" 2>&1
check "launch-bound reports exit 0" $?
grep -q '^verdict    CPU-bound: the GPU waits on the CPU 9[0-9]% of the time' "$tmp/cpu.txt" &&
	grep -q '"verdict": "CPU-bound' "$tmp/cpu.json"
check "a CPU-bound verdict ($(grep '^verdict' "$tmp/cpu.txt"))" $?
! grep -q '^verdict' "$tmp/step.txt"
check "no verdict where the faster GPU is predicted faster" $?

# --rank: one line per target, sorted; USD in fixed notation; unpriced last.
"$BIN" "$tmp/step.mp" -m wave -t t4 -t h100-sxm -t a100 -t l4 --rank time >"$tmp/rt.txt" 2>&1
check "--rank time exits 0" $?
[ "$(wc -l <"$tmp/rt.txt")" -eq 4 ] && awk '{ if (NR > 1 && $2 < last) exit 1; last = $2 }' "$tmp/rt.txt"
check "--rank time: 4 lines, fastest first ($(tr '\n' ';' <"$tmp/rt.txt"))" $?
"$BIN" --model gpt2 --batch 8 --seq 512 -t t4 -t h100 -t a100-sxm4-80 -t l4 \
	--price h100=8 --price a100=1.2 --price l4=0.7 --rank cost >"$tmp/rc.txt" 2>&1
check "--rank cost exits 0 ($(cat "$tmp/rc.txt"))" $?
python3 - "$tmp/rc.txt" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 4, lines
assert lines[-1].startswith("t4 ") and lines[-1].endswith("no price"), lines
usd = [float(re.search(r"\$([0-9.]+) per million tokens", l).group(1)) for l in lines[:3]]
assert usd == sorted(usd) and usd[0] > 0, usd
assert "e-" not in "".join(lines), lines
PY
check "--rank cost: cheapest per million tokens first, no exponent, unpriced last" $?
# --rank: the targets that hold the model's memory first, as --plan ranks
# layouts.  Qwen2.5-32B's decode of 48 x 2000 tokens needs 84.5 GiB: the
# RTX PRO 6000's 96 GB hold it, the 80 GB H100 and A100 do not, though both
# are predicted faster; they follow, marked, fastest first.
"$BIN" --model qwen2.5-32b --engine sglang --mode decode --batch 48 --seq 2000 -t a100-sxm4-80 -t h100 \
	-t rtx-pro-6000-blackwell --rank time >"$tmp/rf.txt" 2>/dev/null
awk 'NR == 1 { ok = $1 == "rtx-pro-6000-blackwell" && !/no fit/ }
     NR == 2 { ok = ok && $1 == "h100-sxm" && /no fit$/; t = $2 }
     NR == 3 { ok = ok && $1 == "a100-sxm4-80" && /no fit$/ && $2 > t }
     END { exit !(ok && NR == 3) }' "$tmp/rf.txt"
check "--rank time: what fits first, then 'no fit' fastest first ($(tr '\n' ';' <"$tmp/rf.txt"))" $?
"$BIN" "$tmp/step.mp" -t h100 --rank speed >/dev/null 2>&1
[ $? -eq 2 ]; check "--rank speed is bad input" $?
"$BIN" "$tmp/step.mp" -t h100 --rank cost >/dev/null 2>&1
[ $? -eq 2 ]; check "--rank cost without --price is bad input" $?

# --plan with --rank: one line per target, its fastest layout that fits
# (the first of its --plan table), the targets ordered as --rank orders a
# trace's; each line's time, layout and cost are the plan JSON's.  Llama-
# 3.1-70B's training step of 16 x 4096 on 16 GPUs, FP32 masters: two H200
# nodes hold it, A100 40 GB nodes do not (their fastest layout follows, 'no
# fit').
plan70="--model llama-3.1-70b --mode training --dtype bf16 --optimizer adamw --batch 16 --seq 4096 --plan 16
	-t a100-sxm4-40 -t h200 -t h100 --price h200=4 --price h100=3 --price a100=1"
"$BIN" $plan70 --rank time >"$tmp/pr.txt" 2>/dev/null &&
"$BIN" $plan70 --rank cost >"$tmp/pc.txt" 2>/dev/null &&
"$BIN" $plan70 --json >"$tmp/pr.json" 2>/dev/null &&
python3 - "$tmp/pr.txt" "$tmp/pc.txt" "$tmp/pr.json" <<'PY'
import json, re, sys
doc = json.load(open(sys.argv[3]))
best, price = {}, {}
for t in doc["targets"]:
    built = [l for l in t["layouts"] if "iteration_ms" in l]
    fit = [l for l in built if l["memory_fits"]]
    pick = min(fit or built, key=lambda l: l["iteration_ms"])
    best[t["target"]] = (pick, bool(fit))
    price[t["target"]] = t["price_usd_per_hour"]
def lines(path):
    out = []
    for l in open(path):
        m = re.match(r"^(\S+) +([0-9.]+) ms  dp (\d+) x tp (\d+) x pp (\d+), zero (\d)[^$]*"
                     r"\$([0-9.]+) per million tokens( +no fit)?$", l.rstrip("\n"))
        assert m, l
        out.append(m)
    assert len(out) == 3, out
    return out
for path, key in ((sys.argv[1], "time"), (sys.argv[2], "cost")):
    keys = []
    for m in lines(path):
        pick, fits = best[m.group(1)]
        assert abs(float(m.group(2)) - pick["iteration_ms"]) < 1e-3 * pick["iteration_ms"], (m.group(0), pick)
        assert tuple(int(m.group(i)) for i in (3, 4, 5, 6)) == (pick["dp"], pick["tp"], pick["pp"], pick["zero"])
        assert (m.group(8) is not None) == (not fits), m.group(0)
        usd = price[m.group(1)] * doc["gpus"] / 3600 / pick["tokens_per_s"] * 1e6
        assert abs(float(m.group(7)) / usd - 1) < 0.01, (m.group(0), usd)
        keys.append((not fits, float(m.group(2)) if key == "time" else usd))
    assert keys == sorted(keys), (path, keys)
    assert keys[-1][0] and not keys[0][0], keys
PY
check "--plan --rank time and cost: each target's fastest fitting layout, its time and cost the JSON's, fits first, ordered" $?
"$BIN" $plan70 --rank time --json >/dev/null 2>&1
[ $? -eq 2 ]; check "--plan --rank with --json is bad input" $?

# --price: an alias resolves as --target does; a family prices its parts;
# the GPU's own price beats the family's; a price no target takes is said.
"$BIN" --model gpt2 -t a100-sxm4-80 --price a100=1.5 --json >"$tmp/p1.json" 2>"$tmp/p1.err"
python3 -c "import json,sys; p=json.load(open(sys.argv[1]))['predictions'][0]; assert p['price_usd_per_hour']==1.5, p" "$tmp/p1.json" &&
	[ ! -s "$tmp/p1.err" ]
check "--price a100 prices the a100-sxm4-80 target ($(cat "$tmp/p1.err"))" $?
"$BIN" --model gpt2 -t a100-sxm4-80 -t a100 --price a100=1 --price "A100 SXM4 80GB=3" --json >"$tmp/p2.json" 2>/dev/null
python3 -c "
import json, sys
p = {x['target']: x['price_usd_per_hour'] for x in json.load(open(sys.argv[1]))['predictions']}
assert p == {'a100-sxm4-80': 3, 'a100-sxm4-40': 1}, p" "$tmp/p2.json"
check "a GPU's own price before its family's" $?
"$BIN" --model gpt2 -t a100-sxm4-80 --price a10=1 >"$tmp/p3.txt" 2>"$tmp/p3.err"
! grep -q '^cost' "$tmp/p3.txt" && grep -q "warning: --price 'a10' names no target" "$tmp/p3.err"
check "a10 is no A100 family, and the unused price is said ($(cat "$tmp/p3.err"))" $?
# a bare price: the targets no GPU= price names; unused, it is said; one
# bad number is bad input
"$BIN" --model gpt2 -t h100 -t l4 --price 2 --price h100=4 --json >"$tmp/p4.json" 2>"$tmp/p4.err" &&
python3 -c "
import json, sys
p = {x['target']: x['price_usd_per_hour'] for x in json.load(open(sys.argv[1]))['predictions']}
assert p == {'h100-sxm': 4, 'l4': 2}, p
" "$tmp/p4.json" && [ ! -s "$tmp/p4.err" ]
check "a bare --price prices the targets no GPU= price names" $?
"$BIN" --model gpt2 -t h100 --price 2 --price h100=4 >/dev/null 2>"$tmp/p5.err"
grep -q "warning: --price 2 prices no target" "$tmp/p5.err"
check "an unused bare price is said ($(cat "$tmp/p5.err"))" $?
"$BIN" --model gpt2 -t h100 --price 0 >/dev/null 2>"$tmp/p6.err"
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/p6.err")" -eq 1 ]
check "--price 0 is bad input, one line" $?
# with --plan: a layout's USD per million tokens is its GPUs' price over its
# tokens, the same as the run of that layout
"$BIN" --model gpt2-medium --mode training --batch 16 --seq 512 --plan 2 --zero 0 -t a100 --price a100=2 \
	--json >"$tmp/plan.json" 2>/dev/null &&
"$BIN" --model gpt2-medium --mode training --batch 8 --seq 512 --dp 2 -t a100 --price a100=2 \
	--json >"$tmp/dp2.json" 2>/dev/null &&
"$BIN" --model gpt2-medium --mode training --batch 16 --seq 512 --plan 2 --zero 0 -t a100 --price a100=2 \
	>"$tmp/plan.txt" 2>/dev/null
python3 - "$tmp/plan.json" "$tmp/dp2.json" "$tmp/plan.txt" <<'PY'
import json, sys
plan, run = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
t = plan["targets"][0]
assert t["price_usd_per_hour"] == 2, t
l = [l for l in t["layouts"] if (l.get("dp"), l.get("tp"), l.get("pp")) == (2, 1, 1)][0]
p = run["predictions"][0]
assert abs(l["cost_per_million_tokens_usd"] - p["cost_per_million_tokens_usd"]) < 1e-9 * p["cost_per_million_tokens_usd"], (l, p)
assert "$/M tokens" in open(sys.argv[3]).read()
PY
check "--price with --plan: USD per million tokens per layout, as the run's" $?

# The HTML: a target's bar split into compute-, memory-bound and
# communication kernels, copies and waits; --model adds throughput, cost and
# memory.
grep -q '<rect class="compute"' "$tmp/step.html" && grep -q '<rect class="memory"' "$tmp/step.html" &&
	grep -q '<rect class="comm"' "$tmp/step.html" && grep -q '<rect class="copy"' "$tmp/step.html" &&
	grep -q '<line class="iteration"' "$tmp/step.html"
check "the HTML bar is split by bound, communication and copies" $?
"$BIN" --model llama-3.2-1b --batch 4 --seq 512 --dtype bf16 -t l4 --price l4=0.8 \
	--html "$tmp/m.html" >/dev/null 2>&1
grep -q '<th>tokens/s</th>' "$tmp/m.html" && grep -q '<th>USD per million tokens</th>' "$tmp/m.html" &&
	grep -q '<th>memory needed GiB</th><th>usable GiB</th>' "$tmp/m.html" && grep -q '<dt>memory</dt>' "$tmp/m.html"
check "the --model HTML has throughput, cost and memory" $?

# Every key of the JSON documents is in docs/analyzer.md, and each carries
# the schema version.
"$BIN" "$tmp/step.mp" -t h100 -t mi300x --price h100=4 --json >"$tmp/j1.json" 2>/dev/null &&
"$BIN" --model llama-3.2-1b --batch 2 --seq 256 --dp 2 -t h100 -t mi300x --price h100=4 --json >"$tmp/j2.json" 2>/dev/null &&
"$BIN" --model gpt2 --batch 16 --plan 8 -t h100 --price h100=4 --json >"$tmp/j3.json" 2>/dev/null
check "JSON documents written" $?
python3 - "$tmp/j1.json" "$tmp/j2.json" "$tmp/j3.json" "$tmp/cpu.json" <<'PY'
import json, re, sys
doc = open("docs/analyzer.md").read()
documented = set(re.findall(r'`"?([a-z_][a-z0-9_-]*)"?`', doc)) | set(re.findall(r'"([a-z_][a-z0-9_-]*)"', doc))
keys = set()
def walk(x, parent=None):
    if isinstance(x, dict):
        for k, v in x.items():
            if parent != "methods":   # method names, listed as such
                keys.add(k)
            walk(v, k)
    elif isinstance(x, list):
        for v in x:
            walk(v, parent)
for f in sys.argv[1:]:
    d = json.load(open(f))
    assert d["schema_version"] == 2, f
    walk(d)
missing = sorted(keys - documented)
assert not missing, missing
assert "amd_scale" in keys and "verdict" in keys and "cost_per_million_tokens_usd" in keys, keys
PY
check "every JSON key is documented in docs/analyzer.md" $?

finish "report_cli.sh"
