#!/bin/sh
# analyze_import.sh - surfer-analyze on a torch.profiler trace: surfer-import
# converts it first (beside surfer-analyze, else on PATH), its lines on
# standard error, so the analysis is the one of the converted trace and
# --json stays one document; an input the importer refuses exits with the
# importer's status and its one line; no importer: the line saying how to
# convert.  Uses the committed H200 torch.profiler example.
. "$(dirname "$0")/lib.sh"
test_tmp analyze_import
A="$B/surfer-analyze"
prof=examples/h200-compiled/profile.json.gz
TMPDIR=$tmp/spool
export TMPDIR
mkdir -p "$TMPDIR"

# the same text as the trace surfer-import writes, analyzed
"$B/surfer-import" -q kineto "$prof" -o "$tmp/p.mp"
"$A" "$tmp/p.mp" --target a100 --target l4 >"$tmp/want.txt" 2>/dev/null
"$A" "$prof" --target a100 --target l4 >"$tmp/got.txt" 2>"$tmp/got.err"
check "a torch.profiler trace analyzed directly (exit $?)" $?
cmp -s "$tmp/want.txt" "$tmp/got.txt"
check "its analysis is the converted trace's" $?
grep -q '^predicted ' "$tmp/got.txt"
check "the text has a prediction" $?
grep -q "^surfer-import: .* kernels" "$tmp/got.err"
check "the importer's summary on standard error ($(head -1 "$tmp/got.err"))" $?

# --json: standard output one JSON document, the importer's lines apart
"$A" "$prof" --target a100 --json >"$tmp/j.json" 2>/dev/null
python3 -c "import json, sys; d = json.load(open(sys.argv[1])); sys.exit(d['origin']['kernels'] <= 0)" "$tmp/j.json"
check "--json output parses, with the trace's kernels" $?

# from standard input, spooled, then converted
"$A" - --target a100 --target l4 <"$prof" >"$tmp/stdin.txt" 2>/dev/null
cmp -s "$tmp/want.txt" "$tmp/stdin.txt"
check "a torch.profiler trace on standard input: the same analysis" $?

# a surfer trace through a pipe: not looked into (its first bytes would be
# gone), analyzed as from the file
mkfifo "$tmp/pipe"
cat "$tmp/p.mp" >"$tmp/pipe" &
"$A" "$tmp/pipe" --target a100 >"$tmp/pipe.txt" 2>/dev/null
"$A" "$tmp/p.mp" --target a100 >"$tmp/file.txt" 2>/dev/null
wait
grep -q '^predicted ' "$tmp/pipe.txt" && cmp -s "$tmp/pipe.txt" "$tmp/file.txt"
check "a trace through a pipe analyzed whole" $?

# nothing left behind in TMPDIR
[ -z "$(ls "$TMPDIR")" ]
check "the converted and spooled files removed ($(ls "$TMPDIR" | tr '\n' ' '))" $?

# --origin: the GPU the trace was recorded on, for the importer as for
# the analysis
"$A" "$prof" --origin a100 --target l4 --json 2>/dev/null >"$tmp/o.json"
python3 -c "import json, sys; sys.exit(not json.load(open(sys.argv[1]))['origin']['gpu'].startswith('a100'))" "$tmp/o.json"
check "--origin names the origin of a converted trace" $?

# a cut JSON: the importer's line and its exit status 2, nothing more
printf '{"traceEvents": [' >"$tmp/cut.json"
"$A" "$tmp/cut.json" --target a100 >"$tmp/cut.out" 2>"$tmp/cut.err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/cut.err")" -eq 1 ] && grep -q '^surfer-import: ' "$tmp/cut.err" &&
	[ ! -s "$tmp/cut.out" ]
check "a cut torch.profiler JSON: exit 2 with the importer's one line (got $rc: $(cat "$tmp/cut.err"))" $?

# no importer beside the analyzer nor on PATH: exit 2, the line saying how
cp "$A" "$tmp/lone-analyze"
PATH=/nonexistent "$tmp/lone-analyze" "$prof" --target a100 >/dev/null 2>"$tmp/lone.err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/lone.err")" -eq 1 ] && grep -q "surfer-import kineto $prof -o" "$tmp/lone.err"
check "no surfer-import: exit 2 with how to convert (got $rc: $(cat "$tmp/lone.err"))" $?

finish analyze_import
