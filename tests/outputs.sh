#!/bin/sh
# The outputs of surfer-analyze from the command line, on synthetic traces
# written by build/tests/mkanalyzer: --chrome-trace (valid JSON, one kernel
# event per launch per lane), --csv (rows sum to each target's predicted
# kernel time), --html (well-formed, self-contained, the chart and every
# target), --price (cost arithmetic redone here), --color, text width, and
# bad option values (exit 2, one line).  The JSON and HTML checks use
# python3 and are skipped without it.
BUILD=${BUILD:-build}
A="$BUILD/surfer-analyze"
MK="$BUILD/tests/mkanalyzer"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/outputs.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0
checks=0

fail() {
	echo "outputs: $*"; failed=$((failed + 1))
}

# expect CODE DESCRIPTION COMMAND...: runs COMMAND, checks its exit status
expect() {
	want=$1; what=$2; shift 2
	checks=$((checks + 1))
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	[ "$got" -eq "$want" ] || { fail "$what: exit $got, want $want"; cat "$tmp/err"; }
}

# bad_value DESCRIPTION ARGS...: exit 2 with exactly one line on stderr
bad_value() {
	what=$1; shift
	expect 2 "$what" "$A" "$@"
	n=$(wc -l <"$tmp/err")
	[ "$n" -eq 1 ] || { fail "$what: $n lines on stderr, want 1"; cat "$tmp/err"; }
}

dev="NVIDIA A100-SXM4-40GB"
"$MK" step "$dev" "$tmp/s.mp" --iterations 3 || { echo "outputs: cannot write the trace"; exit 1; }
"$MK" step "$dev" "$tmp/shuf.mp" --iterations 2 --shuffle || exit 1
T="-m wave -t h100-sxm -t t4 -t a100-sxm4-40"

expect 0 "all outputs" "$A" "$tmp/s.mp" $T --chrome-trace "$tmp/t.json" --html "$tmp/r.html" \
	--csv "$tmp/r.csv" --price h100-sxm=2.5 --price t4=0.35 --top 3
cp "$tmp/out" "$tmp/text"
expect 0 "json report" "$A" "$tmp/s.mp" $T --json --price h100-sxm=2.5 --price t4=0.35
cp "$tmp/out" "$tmp/report.json"

# --- text: costs only for priced targets, 100 columns, no colour off a tty
checks=$((checks + 1))
[ "$(grep -c '^cost ' "$tmp/text")" -eq 2 ] || fail "text: want 2 cost lines"
grep -q '^cost       \$.* per million iterations (at \$2.50/hour)' "$tmp/text" ||
	fail "text: no cost line for h100-sxm"
awk 'length > 100 { exit 1 }' "$tmp/text" || fail "text: a line is wider than 100 columns"
esc=$(printf '\033')
grep -q "$esc" "$tmp/text" && fail "text: colour escapes although stdout is not a terminal"

# every line of the text golden reports fits 100 columns (JSON documents
# and stderr messages are not tables)
for g in tests/golden/*.out; do
	checks=$((checks + 1))
	head -c 1 "$g" | grep -q '{' && continue
	sed '/^--- stderr$/,$d' "$g" | awk -v g="$g" 'length > 100 { print g ": line " NR " is wider than 100 columns"; bad = 1 }
		END { exit bad }' || failed=$((failed + 1))
done

# --- colour
expect 0 "--color=always" "$A" "$tmp/s.mp" $T --color=always
grep -q "$esc\[" "$tmp/out" || fail "--color=always: no escapes"
sed "s/$esc\[[0-9;]*m//g" "$tmp/out" | awk 'length > 100 { exit 1 }' ||
	fail "--color=always: a line is wider than 100 columns"
expect 0 "--color never" "$A" "$tmp/s.mp" $T --color never
grep -q "$esc" "$tmp/out" && fail "--color never: escapes"
expect 0 "--color=auto off a tty" "$A" "$tmp/s.mp" $T --color=auto
grep -q "$esc" "$tmp/out" && fail "--color=auto: escapes off a tty"
if command -v script >/dev/null 2>&1; then
	# a terminal: colour by default, none with NO_COLOR
	checks=$((checks + 1))
	script -qec "$A $tmp/s.mp $T" /dev/null >"$tmp/tty" 2>&1
	grep -q "$esc\[1m" "$tmp/tty" || fail "auto on a terminal: no colour"
	NO_COLOR=1 script -qec "$A $tmp/s.mp $T" /dev/null >"$tmp/tty" 2>&1
	grep -q "$esc\[1m" "$tmp/tty" && fail "NO_COLOR on a terminal: colour"
fi

# --- bad option values: exit 2, one line
bad_value "--price without =" "$tmp/s.mp" -t t4 --price t4
bad_value "--price not a number" "$tmp/s.mp" -t t4 --price t4=cheap
bad_value "--price negative" "$tmp/s.mp" -t t4 --price t4=-1
bad_value "--price zero" "$tmp/s.mp" -t t4 --price t4=0
bad_value "--price unknown GPU" "$tmp/s.mp" -t t4 --price nosuchgpu=1
bad_value "--color bad" "$tmp/s.mp" -t t4 --color=sometimes
bad_value "--html empty" "$tmp/s.mp" -t t4 --html ""
bad_value "--csv unwritable" "$tmp/s.mp" -t t4 --csv "$tmp/no/such/dir/x.csv"
bad_value "--chrome-trace unwritable" "$tmp/s.mp" -t t4 --chrome-trace "$tmp/no/such/x.json"
# methods the analyzer assigns and no one asks for
bad_value "--method identity" "$tmp/s.mp" -t t4 --method identity
bad_value "--method comm" "$tmp/s.mp" -t t4 --method comm

# --- the CSV: rows of each target sum to its predicted kernel time
checks=$((checks + 1))
head -1 "$tmp/r.csv" | grep -qx 'target,kernel,calls_per_iteration,origin_ms,predicted_ms,method,bound,op' ||
	fail "csv: header"

if ! command -v python3 >/dev/null 2>&1; then
	echo "outputs: python3 not found: JSON, CSV sums and HTML checks skipped"
else
	checks=$((checks + 1))
	python3 - "$tmp" <<'EOF' || failed=$((failed + 1))
import csv, json, sys
from html.parser import HTMLParser

tmp = sys.argv[1]
rep = json.load(open(tmp + "/report.json"))
preds = {p["target"]: p for p in rep["predictions"]}
kernels = rep["origin"]["kernels"]
bad = []

# Chrome trace: valid JSON, one complete kernel event per launch per lane
doc = json.load(open(tmp + "/t.json"))
evs = doc["traceEvents"]
names = {e["pid"]: e["args"]["name"] for e in evs if e["ph"] == "M" and e["name"] == "process_name"}
if len(names) != 4:
    bad.append("chrome: %d processes, want 4" % len(names))
for pid in names:
    ks = [e for e in evs if e["pid"] == pid and e["ph"] == "X" and e.get("cat") == "kernel"]
    if len(ks) != kernels:
        bad.append("chrome: pid %d has %d kernel events, want %d" % (pid, len(ks), kernels))
    for e in ks:
        if e["dur"] < 0 or not e["name"] or len(e["args"]["grid"]) != 3:
            bad.append("chrome: bad event %r" % e)
            break
for t in preds:
    if not any(n.startswith(t + " predicted") for n in names.values()):
        bad.append("chrome: no process for " + t)
    pid = [p for p, n in names.items() if n.startswith(t + " predicted")][0]
    busy = sum(e["dur"] for e in evs if e["pid"] == pid and e["ph"] == "X" and
               e.get("cat") == "kernel" and e["args"]["counted"])
    if abs(busy / rep["origin"]["iterations"] / 1e3 - preds[t]["kernel_ms"]) > 1e-4:
        bad.append("chrome: %s kernel time %.6f ms, report %.6f" % (t, busy / 3e3, preds[t]["kernel_ms"]))
if not any("measured" in n for n in names.values()):
    bad.append("chrome: no measured process")

# CSV: per target the predicted_ms sum to kernel_ms
rows = list(csv.DictReader(open(tmp + "/r.csv")))
for t, p in preds.items():
    s = sum(float(r["predicted_ms"]) for r in rows if r["target"] == t)
    if abs(s - p["kernel_ms"]) > 1e-5:
        bad.append("csv: %s rows sum to %.6f ms, kernel_ms %.6f" % (t, s, p["kernel_ms"]))
    o = sum(float(r["origin_ms"]) for r in rows if r["target"] == t)
    if abs(o - sum(b["origin_ms"] for b in p["breakdown"])) > 1e-5:
        bad.append("csv: %s origin sum" % t)

# prices: USD/hour x hours per iteration
for t, price in (("h100-sxm", 2.5), ("t4", 0.35)):
    p = preds[t]
    want = price * p["iteration_ms"] / 1e3 / 3600
    if abs(p["cost_per_iteration_usd"] - want) > 1e-12 * max(1, want) or \
       abs(p["cost_per_million_iterations_usd"] - want * 1e6) > 1e-6:
        bad.append("price: %s %r, want %r" % (t, p["cost_per_iteration_usd"], want))
if "cost_per_iteration_usd" in preds["a100-sxm4-40"]:
    bad.append("price: a cost for a target without a price")

# HTML: balanced tags, no external resources, the chart and every target
class Strict(HTMLParser):
    void = {"meta", "br", "img", "link", "input", "hr"}
    def __init__(self):
        super().__init__()
        self.stack, self.errors, self.tags = [], [], set()
    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        for k, v in attrs:
            if k in ("src", "href") or (v and ("url(" in v or "//" in v and k != "xmlns")):
                self.errors.append("external resource %s=%s" % (k, v))
        if tag not in self.void:
            self.stack.append(tag)
    def handle_startendtag(self, tag, attrs):
        self.tags.add(tag)
    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("unbalanced </%s> in %s" % (tag, self.stack[-3:]))
        else:
            self.stack.pop()

html = open(tmp + "/r.html").read()
p = Strict()
p.feed(html)
p.close()
if p.errors or p.stack:
    bad.append("html: %s, open %s" % (p.errors[:3], p.stack))
for need in ("svg", "rect", "table"):
    if need not in p.tags:
        bad.append("html: no <%s>" % need)
for t in list(preds) + ["a100-sxm4-40 (measured)"]:
    if t not in html:
        bad.append("html: no " + t)
if "@import" in html or "<script" in html:
    bad.append("html: not self-contained")
if "USD per million iterations" not in html:
    bad.append("html: no costs")

for b in bad:
    print("outputs:", b)
sys.exit(1 if bad else 0)
EOF

	# an out-of-order trace replays twice: the Chrome trace restarts and
	# still has one kernel event per launch per lane
	expect 0 "out of order" "$A" "$tmp/shuf.mp" -m wave -t h100-sxm --chrome-trace "$tmp/shuf.json" --json
	python3 - "$tmp/shuf.json" "$tmp/out" <<'EOF' || fail "out of order: chrome trace"
import json, sys
evs = json.load(open(sys.argv[1]))["traceEvents"]
n = json.load(open(sys.argv[2]))["origin"]["kernels"]
for pid in (1, 2):
    k = sum(1 for e in evs if e["pid"] == pid and e.get("cat") == "kernel")
    if k != n:
        print("pid %d: %d kernel events, want %d" % (pid, k, n)); sys.exit(1)
EOF
fi

echo "outputs: $((checks - failed)) of $checks passed"
[ $failed -eq 0 ]
