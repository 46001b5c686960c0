#!/bin/sh
# gpu_check_test.sh - tools/gpu/check.sh, the script a machine with a GPU
# runs, taken through its whole path here: a fake nvidia-smi, the fake
# driver and fake libcupti, and a workload that launches through them in
# three profiler windows and writes the step times the real one would.
B=${BUILD:-build}
case "$SANITIZE" in
*?*) echo "gpu_check_test: skipped under SANITIZE (the script preloads the plain recorder)"; exit 0 ;;
esac
T=$(mktemp -d "${TMPDIR:-/tmp}/gpucheck.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
n=0 fail=0
check() { n=$((n + 1)); [ "$2" -eq 0 ] || { echo "FAIL: $1"; fail=$((fail + 1)); }; }
has() { grep -q -e "$1" "$T/out/summary.txt"; }

sh tools/gpu/bundle.sh "$T/bundle" $B/libsurfer.so $B/surfer-analyze $B/surfer-dump >/dev/null
mkdir -p "$T/bin"
printf '#!/bin/sh\necho "GPU 0: NVIDIA H200 (UUID: GPU-fake)"\n' >"$T/bin/nvidia-smi"
chmod +x "$T/bin/nvidia-smi"
cat >"$T/gpt2.json" <<'J'
{"model_type": "gpt2", "n_embd": 256, "n_head": 4, "n_layer": 3, "vocab_size": 1000,
 "activation_function": "gelu_new", "n_inner": null}
J
cat >"$T/llama.json" <<'J'
{"model_type": "llama", "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 2,
 "num_attention_heads": 8, "num_key_value_heads": 2, "vocab_size": 1000}
J
# fake_workload W OUT [--windows N]: what gpu_workload.py writes; with
# --windows, N windows of 4 launches through the fake driver.
cat >"$T/workload.sh" <<EOF2
#!/bin/sh
w=\$1 out=\$2
[ "\$w" = "\${FAIL_WORKLOAD:-}" ] && exit 1
if [ "\${3:-}" = "--windows" ]; then $B/tests/shim_runtime windows "\$4" 4 >/dev/null || exit 1; fi
case \$w in
gpt2) cp "$T/gpt2.json" "\$out.config.json"
	echo '{"step_ms": 2.5, "batch": 2, "seq": 64, "mode": "training", "dtype": "fp32"}' >"\$out" ;;
decode) cp "$T/llama.json" "\$out.config.json"
	echo '{"step_ms": 0.5, "batch": 4, "seq": 100, "mode": "decode", "dtype": "bf16"}' >"\$out" ;;
*) echo '{"step_ms": 1.25}' >"\$out" ;;
esac
EOF2

runit() { # runit OUTDIR: gpu_check over the fakes
	env PATH="$T/bin:$PATH" LD_LIBRARY_PATH="$B/tests" GPU_CHECK_ORIGIN=h200 \
		SURFER_CUPTI_PATH="$B/tests/fakelib/libcupti.so.13" GPU_CHECK_WORKLOAD="sh $T/workload.sh" \
		sh tools/gpu/check.sh "$T/bundle" "$1" >"$T/log" 2>&1
}

runit "$T/out"
check "gpu_check over the fakes exits 0 ($(tail -3 "$T/log"))" $?
has "gemm: step 1.25 ms alone, 1.25 ms recorded"
check "step times with and without the recorder" $?
[ "$(grep -c 'trace: 12 kernels' "$T/out/summary.txt")" -eq 3 ] && has "timing cupti"
check "each trace: 3 windows x 4 launches, CUPTI timing" $?
[ "$(grep -c 'trace -> h200: [0-9.]* ms per window' "$T/out/summary.txt")" -eq 3 ] &&
	has "others: h100-sxm [0-9.]* a100-sxm4-80 [0-9.]* l4 [0-9.]*"
check "surfer-analyze on each trace, four targets" $?
has "--model (training, batch 2, seq 64, fp32) -> h200: [0-9.]* ms vs 2.5 measured" &&
	has "--model (decode, batch 4, seq 100, bf16) -> h200"
check "--model on the workloads' configs" $?
has "gpu_check: 0 failures"
check "no failures counted" $?

# Failures are counted and make the exit status non-zero.
FAIL_WORKLOAD=gpt2 runit "$T/out2"
[ $? -ne 0 ] && grep -q "FAIL: gpt2: the workload itself failed" "$T/out2/summary.txt" &&
	grep -q "gpu_check: 1 failures" "$T/out2/summary.txt"
check "a failing workload is reported and fails the run" $?
rm "$T/bundle/bin/surfer-analyze"
runit "$T/out3"
[ $? -eq 1 ] && grep -q "does not run here" "$T/out3/summary.txt"
check "a bundle without surfer-analyze stops the run" $?
sh tools/gpu/check.sh "$T/none" "$T/out4" >/dev/null 2>&1
[ $? -eq 2 ]
check "a missing bundle is exit 2" $?
# No GPU: skipped, exit 0 (nvidia-smi missing or failing).
printf '#!/bin/sh\nexit 9\n' >"$T/bin/nvidia-smi"
runit "$T/out5"
[ $? -eq 0 ] && grep -q "no GPU here" "$T/log"
check "no GPU: skipped" $?

# tools/gpu/workload.py itself, over stand-ins for the parts of PyTorch and
# transformers it touches (no PyTorch here): each workload writes its step
# times and config, and opens exactly the profiler windows asked for.
mkdir -p "$T/py/torch" "$T/py/transformers"
cat >"$T/py/torch/__init__.py" <<'PY'
"""A stand-in for the parts of PyTorch tools/gpu/workload.py touches."""
import contextlib, types
__version__ = "fake"
bfloat16 = "bf16"
calls = []
import atexit, os
atexit.register(lambda: open(os.environ["FAKE_TORCH_LOG"], "w").write(" ".join(calls)))
class _T:
    def __init__(self, *shape): self.shape = shape
    def cuda(self): return self
    def to(self, *a): return self
def randn(*shape, device=None): return _T(*shape)
def randint(lo, hi, shape, device=None): return _T(*shape)
def mm(a, b): calls.append("mm"); return _T(a.shape[0], b.shape[1])
def no_grad(): return contextlib.nullcontext()
class _Ev:
    n = 0
    def __init__(self, enable_timing=False): pass
    def record(self): _Ev.n += 1; self.t = _Ev.n
    def elapsed_time(self, o): return float(o.t - self.t)
_prof = types.SimpleNamespace(start=lambda: calls.append("start"), stop=lambda: calls.append("stop"))
cuda = types.SimpleNamespace(Event=_Ev, synchronize=lambda: None, profiler=_prof,
                             get_device_name=lambda: "Fake GPU")
backends = types.SimpleNamespace(cuda=types.SimpleNamespace(matmul=types.SimpleNamespace(allow_tf32=True)),
                                 cudnn=types.SimpleNamespace(allow_tf32=True))
PY
cat >"$T/py/transformers/__init__.py" <<'PY'
"""A stand-in for the parts of transformers tools/gpu/workload.py touches."""
import json, types
class _Cfg:
    def __init__(self, **kw): self.__dict__.update(kw); self.vocab_size = kw.get("vocab_size", 50257)
    def to_json_file(self, p): json.dump(self.__dict__, open(p, "w"))
class GPT2Config(_Cfg): pass
class LlamaConfig(_Cfg): pass
class _Model:
    def cuda(self): return self
    def to(self, *a): return self
    def train(self): return self
    def eval(self): return self
    def zero_grad(self, set_to_none=False): pass
    def __call__(self, ids, labels=None, use_cache=False, past_key_values=None):
        loss = types.SimpleNamespace(backward=lambda: None)
        return types.SimpleNamespace(loss=loss, past_key_values=past_key_values or object())
class AutoModelForCausalLM:
    @staticmethod
    def from_config(cfg, attn_implementation=None):
        assert attn_implementation == "eager"
        return _Model()
PY
for w in gemm gpt2 decode; do
	PYTHONPATH="$T/py" FAKE_TORCH_LOG="$T/calls.$w" python3 tools/gpu/workload.py $w "$T/$w.json" \
		--windows 3 >/dev/null 2>&1 &&
	python3 - "$T/$w.json" "$T/calls.$w" $w <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
calls = open(sys.argv[2]).read().split()
assert d["step_ms"] > 0 and len(d["steps_ms"]) == 10, d
assert calls.count("start") == 3 and calls.count("stop") == 3, calls
if sys.argv[3] != "gemm":
    assert os.path.exists(sys.argv[1] + ".config.json")
    assert d["mode"] == {"gpt2": "training", "decode": "decode"}[sys.argv[3]], d
PY
	check "gpu_workload.py $w: step times, config, three profiler windows" $?
done

echo "gpu_check_test: $((n - fail)) of $n passed"
[ $fail -eq 0 ]
