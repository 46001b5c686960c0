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

sh tools/gpu/bundle.sh "$T/bundle" $B/libsurfer.so $B/surfer-analyze $B/surfer-dump $B/surfer-import >/dev/null
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
# The workload over the fakes: what tools/gpu/workload.py writes.  Recorded,
# 3 windows of 4 launches of 1.02 us each through the fake driver and fake
# CUPTI; profiled, the Kineto trace of the same (tests/gpu/fake_kineto.py).
# FAKE_BAD="W:ARGS" gives workload W's profile fake_kineto.py's ARGS (a
# kernel more, durations scaled); FAKE_SLOW=W makes W's recorded step 2.4%
# slower; FAIL_WORKLOAD=W makes W fail.
cat >"$T/workload.sh" <<EOF2
#!/bin/sh
w=\$1 out=\$2
[ "\$w" = "\${FAIL_WORKLOAD:-}" ] && exit 1
step=0.0042
if [ "\${5:-}" = "--profile" ]; then
	bad=
	case "\${FAKE_BAD:-}" in "\$w:"*) bad=\${FAKE_BAD#*:} ;; esac
	python3 tests/gpu/fake_kineto.py "\$6" "\$4" 4 \$bad || exit 1
elif [ "\${3:-}" = "--windows" ]; then
	$B/tests/shim_runtime windows "\$4" 4 >/dev/null || exit 1
	[ "\$w" = "\${FAKE_SLOW:-}" ] && step=0.0043
fi
meta='"steps_ms": [0.0042], "device": "NVIDIA H200", "driver": "580.1", "cuda": "13.0", "torch": "fake", "windows": 3, "command": "fake"'
case \$w in
gpt2) cp "$T/gpt2.json" "\$out.config.json"
	echo "{\"step_ms\": \$step, \$meta, \"batch\": 2, \"seq\": 64, \"mode\": \"training\", \"dtype\": \"fp32\"}" >"\$out" ;;
gpt2-bf16) cp "$T/gpt2.json" "\$out.config.json"
	echo "{\"step_ms\": \$step, \$meta, \"batch\": 2, \"seq\": 64, \"mode\": \"training\", \"dtype\": \"bf16\", \"model_flags\": [\"--attention\", \"sdpa\", \"--precision\", \"autocast\"]}" >"\$out" ;;
decode) cp "$T/llama.json" "\$out.config.json"
	echo "{\"step_ms\": \$step, \$meta, \"batch\": 4, \"seq\": 100, \"mode\": \"decode\", \"dtype\": \"bf16\"}" >"\$out" ;;
*) echo "{\"step_ms\": \$step, \$meta}" >"\$out" ;;
esac
EOF2

runit() { # runit OUTDIR [VAR=VALUE...]: gpu_check over the fakes
	o=$1
	shift
	env GPU_CHECK_ORIGIN=h200 "$@" PATH="$T/bin:$PATH" LD_LIBRARY_PATH="$B/tests" GPU_CHECK_LIBS= \
		GPU_CHECK_FLOOR_NS=0 SURFER_CUPTI_PATH="$B/tests/fakelib/libcupti.so.13" \
		GPU_CHECK_WORKLOAD="sh $T/workload.sh" GPU_CHECK_REPLAY_PCT=1e9 sh tools/gpu/check.sh "$T/bundle" "$o" >"$T/log" 2>&1
}
all="gemm gpt2 gpt2-bf16 decode resnet50 compiled graph pair-a pair-b"

runit "$T/out"
check "gpu_check over the fakes exits 0 ($(tail -3 "$T/log"))" $?
for w in $all; do
	has "^PASS $w: kernels: 12 kernels in 3 iterations (recorded 3 iterations, profiled 3)$" &&
		has "^PASS $w: durations: 12 of 12 within 2% or 0 ns (12 within 2% alone)" &&
		has "^PASS $w: iteration: 4.1 us recorded vs 4.1 us profiled (+0.00%, limit 1%)" &&
		has "^PASS $w: overhead: step 0.004 ms alone, 0.004 ms recorded (+0.00%; GPU busy 97% of it: GPU-bound, limit 1%)" &&
		has "^PASS $w: replay: h200 [0-9.]* ms vs 0.004 ms measured (.*); others: h100-sxm [0-9.]* a100-sxm4-80 [0-9.]* l4 [0-9.]* ms"
	check "$w: kernels, durations, iteration, overhead, replay over the fakes" $?
	[ -s "$T/out/examples/$w/trace.mp" ] && gzip -t "$T/out/examples/$w/profile.json.gz" &&
		python3 -c "import json, sys; d = json.load(open(sys.argv[1])); assert d['step_ms'] == 0.0042 and d['device'] == 'NVIDIA H200' and d['driver'] and d['cuda'] and d['torch'] and d['name'] == sys.argv[2], d" "$T/out/examples/$w/meta.json" "$w"
	check "$w: examples/ material: trace, gzipped profile, meta.json with versions and step time" $?
done
has "     gpt2: --model (training, batch 2, seq 64, fp32) -> h200: [0-9.]* ms vs 0.004 measured" &&
	has "     gpt2-bf16: --model (training, batch 2, seq 64, bf16 --attention sdpa --precision autocast) -> h200: [0-9.]* ms" &&
	has "     decode: --model (decode, batch 4, seq 100, bf16) -> h200"
check "--model on the workloads' configs" $?
has "     gpt2: gemm: [0-9.]* ms in [0-9]* launches measured, --model [0-9.]* ms in [0-9]*" &&
	has "     decode: gemm: .* --model [0-9.]* ms"
check "--model against the profile per operator class" $?
has "gpu_check: [0-9]* failures" && ! grep -q "^FAIL" "$T/out/summary.txt"
check "no FAIL line" $?

# tests/examples_test.sh over what check.sh left for examples/: skipped as
# fake unless allowed; without golden.txt it fails; --write-golden writes
# them, after which it passes (the identity limit lifted: the fake's step
# times are not the replay's); a changed golden value fails.
sh tests/examples_test.sh "$T/out/examples" >"$T/ex0.log" 2>&1 &&
	[ "$(grep -c "recorded on 'Fake GPU 9000', not a real GPU: skipped" "$T/ex0.log")" -eq 9 ]
check "examples_test: traces of the fake driver are skipped ($(tail -1 "$T/ex0.log"))" $?
env EXAMPLES_ALLOW_FAKE=1 EXAMPLES_IDENTITY_PCT=1e9 sh tests/examples_test.sh "$T/out/examples" >"$T/ex1.log" 2>&1
[ $? -eq 1 ] && [ "$(grep -c "^FAIL: .*: predictions on a100-sxm4-80 l4 equal golden.txt" "$T/ex1.log")" -eq 9 ]
check "examples_test: a missing golden.txt fails" $?
env EXAMPLES_ALLOW_FAKE=1 EXAMPLES_IDENTITY_PCT=1e9 sh tests/examples_test.sh --write-golden "$T/out/examples" >"$T/ex2.log" 2>&1 &&
	env EXAMPLES_ALLOW_FAKE=1 EXAMPLES_IDENTITY_PCT=1e9 sh tests/examples_test.sh "$T/out/examples" >"$T/ex3.log" 2>&1 &&
	grep -q "^examples_test: 36 of 36 passed" "$T/ex3.log" && grep -q "^a100-sxm4-80 [0-9.]*$" "$T/out/examples/gemm/golden.txt"
check "examples_test: identity, golden and import on 9 examples ($(tail -1 "$T/ex3.log"))" $?
sed -i 's/^l4 .*/l4 1.000/' "$T/out/examples/gemm/golden.txt"
env EXAMPLES_ALLOW_FAKE=1 EXAMPLES_IDENTITY_PCT=1e9 sh tests/examples_test.sh "$T/out/examples" >"$T/ex4.log" 2>&1
[ $? -eq 1 ] && grep -q "^FAIL: gemm: predictions on a100-sxm4-80 l4 equal golden.txt" "$T/ex4.log" &&
	grep -q "^examples_test: 35 of 36 passed" "$T/ex4.log"
check "examples_test: a prediction that moved fails" $?
env EXAMPLES_ALLOW_FAKE=1 sh tests/examples_test.sh "$T/out/examples" >"$T/ex5.log" 2>&1
[ $? -eq 1 ] && grep -q "^FAIL: gemm: identity on the recording GPU" "$T/ex5.log"
check "examples_test: a replay off the measured step fails identity" $?

# What must fail: a kernel the recording lacks, a duration off by 5%, a
# recorder 2% slower on a GPU-bound step; each counted, the exit non-zero.
runit "$T/out6" FAKE_BAD="gemm:--extra 1" FAKE_SLOW=decode GPU_CHECK_WORKLOADS="gemm decode"
r=$?
grep -q "^FAIL gemm: kernels: 13 kernels in 3 iterations .*; 1 missing from the recording, first iter_1$" "$T/out6/summary.txt"
check "a kernel missing from the recording fails" $?
grep -q "^FAIL decode: overhead: step 0.004 ms alone, 0.004 ms recorded (+2.38%; GPU busy 95% of it: GPU-bound, limit 1%)" "$T/out6/summary.txt"
check "a recorder 2% slower on a GPU-bound step fails ($(grep 'decode: overhead' "$T/out6/summary.txt"))" $?
[ $r -eq 1 ] && grep -q "gpu_check: 2 failures" "$T/out6/summary.txt"
check "the failures are counted, exit 1 ($r; $(tail -1 "$T/out6/summary.txt"))" $?
runit "$T/out7" FAKE_BAD="gpt2:--scale 1.05" GPU_CHECK_WORKLOADS=gpt2
grep -q "^FAIL gpt2: durations: 0 of 12 within 2% or 0 ns (0 within 2% alone); worst -4.8% iter_0 1020 vs 1071 ns" "$T/out7/summary.txt" &&
	grep -q "^FAIL gpt2: iteration: 4.1 us recorded vs 4.3 us profiled (-4.76%, limit 1%)" "$T/out7/summary.txt"
check "durations 5% off fail, kernel by kernel and the iteration" $?
# Without GPU_CHECK_ORIGIN the recording GPU is the one the trace's device
# resolves to (an H100's run was once replayed on the H200's name).
runit "$T/out9" GPU_CHECK_ORIGIN= FAKE_CUDA_DEVICE_NAME="NVIDIA H100 80GB HBM3" GPU_CHECK_WORKLOADS=gemm
grep -q "^PASS gemm: replay: h100-sxm [0-9.]* ms vs 0.004 ms measured" "$T/out9/summary.txt" &&
	grep -q '"surfer_gpu": "h100-sxm"' "$T/out9/examples/gemm/meta.json"
check "the recording GPU named from the trace's device ($(grep 'gemm: replay' "$T/out9/summary.txt"))" $?
runit "$T/out8" GPU_CHECK_BUDGET_S=0 GPU_CHECK_WORKLOADS="gemm gpt2"
grep -q "^SKIP gemm: the budget of 0 s is spent" "$T/out8/summary.txt" && [ ! -d "$T/out8/gpt2" ]
check "nothing starts after the budget is spent" $?

# Failures are counted and make the exit status non-zero.
runit "$T/out2" FAIL_WORKLOAD=gpt2 GPU_CHECK_WORKLOADS="gemm gpt2"
[ $? -ne 0 ] && grep -q "FAIL gpt2: the plain run failed" "$T/out2/summary.txt" &&
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

# compare.py's library and replay checks, on hand-written records: a cuBLAS
# GEMM with its shape and its kernel linked passes; a GEMM kernel without
# its call fails; a replay 4% off passes the 5% limit, 6% off fails.
cat >"$T/libs.jsonl" <<'J'
{"type":"header","version":"1.2"}
{"type":"gemm","seq":1,"api":"gemmex","m":4096,"n":4096,"k":4096,"batch":1}
{"type":"kernel","seq":2,"name":"sm90_xmma_gemm_f32f32_tf32f32","start_ns":100,"end_ns":2100,"duration_ns":2000,"lib_call":1,"iteration":0}
{"type":"kernel","seq":3,"name":"triton_poi_fused_gelu_0","start_ns":2100,"end_ns":2600,"duration_ns":500,"lib_call":0,"iteration":0}
J
python3 tools/gpu/compare.py kernels libs "$T/libs.jsonl" "$T/libs.jsonl" --libs >"$T/c.out"
[ $? -eq 0 ] && grep -q "^PASS libs: libraries: 1 calls with shapes (gemmex); 1 of 1 library kernels linked to one$" "$T/c.out"
check "compare.py: a GEMM call with its shape and its kernel linked passes" $?
sed 's/"lib_call":1/"lib_call":0/' "$T/libs.jsonl" >"$T/nolib.jsonl"
python3 tools/gpu/compare.py kernels libs "$T/nolib.jsonl" "$T/libs.jsonl" --libs >"$T/c.out"
[ $? -eq 1 ] && grep -q "^FAIL libs: libraries: 1 calls with shapes (gemmex); 0 of 1 library kernels linked to one$" "$T/c.out"
check "compare.py: a GEMM kernel without its library call fails" $?
echo '{"step_ms": 10.0}' >"$T/rec10.json"
echo '{"predictions": [{"target": "h200", "iteration_ms": 10.4}, {"target": "l4", "iteration_ms": 50}]}' >"$T/a4.json"
echo '{"predictions": [{"target": "h200", "iteration_ms": 9.4}]}' >"$T/a6.json"
python3 tools/gpu/compare.py replay r "$T/a4.json" "$T/rec10.json" >"$T/c.out" &&
	grep -q "^PASS r: replay: h200 10.400 ms vs 10.000 ms measured (+4.0%, limit 5%); others: l4 50.000 ms$" "$T/c.out"
check "compare.py: a replay 4% off passes" $?
python3 tools/gpu/compare.py replay r "$T/a6.json" "$T/rec10.json" >"$T/c.out"
[ $? -eq 1 ] && grep -q "^FAIL r: replay: h200 9.400 ms vs 10.000 ms measured (-6.0%, limit 5%)" "$T/c.out"
check "compare.py: a replay 6% off fails" $?
# compare.py ops: the profile's kernels per operator class (the origin's
# measured times) against the model's predicted ones, largest first, a
# class one side lacks with 0 there
cat >"$T/pa.json" <<'J'
{"predictions": [{"breakdown": [
 {"kernel": "a", "op": "gemm", "launches": 4, "origin_ms": 6.0, "predicted_ms": 6.0},
 {"kernel": "b", "op": "gemm", "launches": 2, "origin_ms": 2.0, "predicted_ms": 2.0},
 {"kernel": "c", "op": "elementwise", "launches": 10, "origin_ms": 1.0, "predicted_ms": 1.0}]}]}
J
cat >"$T/ma.json" <<'J'
{"predictions": [{"breakdown": [
 {"kernel": "g", "op": "gemm", "launches": 6, "origin_ms": 0, "predicted_ms": 10.0},
 {"kernel": "f", "op": "attention", "launches": 2, "origin_ms": 0, "predicted_ms": 0.5}]}]}
J
python3 tools/gpu/compare.py ops o "$T/pa.json" "$T/ma.json" >"$T/c.out" &&
	[ "$(sed -n 1p "$T/c.out")" = "     o: gemm: 8.000 ms in 6 launches measured, --model 10.000 ms in 6 (+25.0%)" ] &&
	[ "$(sed -n 2p "$T/c.out")" = "     o: elementwise: 1.000 ms in 10 launches measured, --model 0.000 ms in 0 (-100.0%)" ] &&
	[ "$(sed -n 3p "$T/c.out")" = "     o: attention: 0.000 ms in 0 launches measured, --model 0.500 ms in 2" ]
check "compare.py ops: kernel time per operator class, profile against --model" $?
echo '{"step_ms": 10.05}' >"$T/rec1005.json"
python3 tools/gpu/compare.py overhead o "$T/rec10.json" "$T/rec1005.json" "$T/libs.jsonl" >"$T/c.out"
[ $? -eq 0 ] && grep -q "^PASS o: overhead: step 10.000 ms alone, 10.050 ms recorded (+0.50%; GPU busy 0% of it: not GPU-bound, no limit)$" "$T/c.out"
check "compare.py: a CPU-bound step has no overhead limit" $?
python3 tools/gpu/compare.py replay r "$T/nosuch.json" "$T/rec10.json" >/dev/null 2>"$T/c.err"
[ $? -eq 2 ] && [ "$(wc -l <"$T/c.err")" -eq 1 ] && grep -q "cannot read" "$T/c.err"
check "compare.py: a missing input is one line and exit 2" $?
echo '{"step_ms": 10.0}' >"$T/bad.jsonl"; echo 'not json' >>"$T/bad.jsonl"
python3 tools/gpu/compare.py kernels k "$T/bad.jsonl" "$T/libs.jsonl" >/dev/null 2>"$T/c.err"
[ $? -eq 2 ] && grep -q "line 2: not JSON" "$T/c.err"
check "compare.py: a line that is not JSON is exit 2" $?

# The recorder keeps the driver's mangled names, torch.profiler writes them
# demangled: the same kernel matches.
cat >"$T/mangled.jsonl" <<'J'
{"type":"kernel","seq":1,"name":"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEENS_6detail5ArrayIPcLi1EEEEEviT0_T1_","start_ns":100,"end_ns":1100,"duration_ns":1000,"iteration":0}
J
cat >"$T/demangled.jsonl" <<'J'
{"type":"kernel","seq":1,"name":"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)","start_ns":200,"end_ns":1200,"duration_ns":1000,"iteration":3}
J
python3 tools/gpu/compare.py kernels m "$T/mangled.jsonl" "$T/demangled.jsonl" >"$T/c.out"
[ $? -eq 0 ] && grep -q "^PASS m: kernels: 1 kernels in 1 iterations" "$T/c.out"
check "compare.py: a mangled recorded name matches torch.profiler's demangled one ($(head -1 "$T/c.out"))" $?

# tools/gpu/workload.py itself, over stand-ins for the parts of PyTorch,
# torchvision and transformers it touches (none is here): each workload
# writes its step times, versions and config, and opens exactly the
# profiler windows, or torch.profiler steps, asked for.  The stand-ins log
# what was called, and tensors accept any operation.
mkdir -p "$T/py/torch/nn" "$T/py/transformers" "$T/py/torchvision"
cat >"$T/py/torch/__init__.py" <<'PY'
"""A stand-in for the parts of PyTorch tools/gpu/workload.py touches."""
import contextlib, types, atexit, os
__version__ = "fake"
version = types.SimpleNamespace(cuda="13.0")
bfloat16 = "bf16"
calls = []
atexit.register(lambda: open(os.environ["FAKE_TORCH_LOG"], "w").write(" ".join(calls)))
class _T:
    """A tensor: every method and operator gives another one."""
    def __init__(self, *shape): self.shape = shape
    def __getattr__(self, name): return lambda *a, **k: _T(*self.shape)
    def split(self, sizes, dim=-1): return tuple(_T() for _ in sizes)
    def chunk(self, n, dim=-1): return tuple(_T() for _ in range(n))
    def backward(self): calls.append("backward")
    def _op(self, *a): return _T(*self.shape)
    __add__ = __radd__ = __mul__ = __rmul__ = __matmul__ = __truediv__ = _op
class _Mod:
    def __init__(self, *a, **k): pass
    def __call__(self, *a, **k): return _T()
    def cuda(self): return self
    def train(self): return self
    def zero_grad(self, set_to_none=False): pass
def randn(*shape, device=None, dtype=None): return _T(*shape)
def randint(lo, hi, shape, device=None): return _T(*shape)
def cat(ts, dim=0): return _T()
def rsqrt(t): return _T()
def device(name): calls.append("device:%s" % name); return contextlib.nullcontext()
def mm(a, b): calls.append("mm"); return _T(a.shape[0], b.shape[1])
def manual_seed(s): calls.append("seed")
def no_grad(): return contextlib.nullcontext()
@contextlib.contextmanager
def autocast(dev, dtype=None):
    calls.append("autocast:%s" % dtype); yield
def compile(m):
    calls.append("compile"); return m
class _Ev:
    n = 0
    def __init__(self, enable_timing=False): pass
    def record(self): _Ev.n += 1; self.t = _Ev.n
    def elapsed_time(self, o): return float(o.t - self.t)
class _Graph:
    def replay(self): calls.append("replay")
@contextlib.contextmanager
def _capture(g):
    calls.append("capture"); yield
class _Stream:
    def wait_stream(self, s): pass
_prof = types.SimpleNamespace(start=lambda: calls.append("start"), stop=lambda: calls.append("stop"))
cuda = types.SimpleNamespace(Event=_Ev, synchronize=lambda: None, profiler=_prof,
                             get_device_name=lambda: "Fake GPU", CUDAGraph=_Graph, graph=_capture,
                             Stream=_Stream, current_stream=_Stream,
                             stream=lambda s: contextlib.nullcontext())
backends = types.SimpleNamespace(cuda=types.SimpleNamespace(matmul=types.SimpleNamespace(allow_tf32=True)),
                                 cudnn=types.SimpleNamespace(allow_tf32=True, benchmark=False,
                                                             version=lambda: 91900))
from . import nn, profiler
PY
cat >"$T/py/torch/profiler.py" <<'PY'
import contextlib, json, torch
ProfilerActivity = type("ProfilerActivity", (), {"CPU": 0, "CUDA": 1})
class profile:
    def __init__(self, activities=None, record_shapes=False):
        assert record_shapes and len(activities) == 2
    def __enter__(self): torch.calls.append("profile"); return self
    def __exit__(self, *a): torch.calls.append("/profile")
    def export_chrome_trace(self, path):
        torch.calls.append("export"); json.dump({"traceEvents": []}, open(path, "w"))
@contextlib.contextmanager
def record_function(name):
    torch.calls.append(name); yield
PY
cat >"$T/py/torch/nn/__init__.py" <<'PY'
from torch import _Mod as Linear, _Mod as LayerNorm, _Mod as GELU, _Mod as CrossEntropyLoss
import torch
class Sequential(torch._Mod):
    def __init__(self, *layers): self.n = len(layers)
from . import functional
PY
cat >"$T/py/torch/nn/functional.py" <<'PY'
import torch
def scaled_dot_product_attention(q, k, v): torch.calls.append("sdpa"); return torch._T()
def silu(t): return torch._T()
PY
cat >"$T/py/torchvision/__init__.py" <<'PY'
import types, torch
def _resnet50(weights=None):
    torch.calls.append("resnet50"); return torch._Mod()
models = types.SimpleNamespace(resnet50=_resnet50)
PY
cat >"$T/py/transformers/__init__.py" <<'PY'
"""A stand-in for the parts of transformers tools/gpu/workload.py touches."""
import json, types, torch
class _Cfg:
    def __init__(self, **kw): self.__dict__.update(kw); self.vocab_size = kw.get("vocab_size", 50257)
    def to_json_file(self, p): json.dump(self.__dict__, open(p, "w"))
class GPT2Config(_Cfg): pass
class LlamaConfig(_Cfg): pass
class OPTConfig(_Cfg): pass
class _Model:
    def cuda(self): return self
    def to(self, *a): return self
    def train(self): return self
    def eval(self): return self
    def zero_grad(self, set_to_none=False): pass
    def __call__(self, ids, labels=None, use_cache=False, past_key_values=None):
        return types.SimpleNamespace(loss=torch._T(), past_key_values=past_key_values or object())
class AutoModelForCausalLM:
    @staticmethod
    def from_config(cfg, attn_implementation=None):
        torch.calls.append("attn:%s" % attn_implementation)
        return _Model()
class SwitchTransformersConfig(_Cfg): pass
class _Seq2Seq:
    def float(self): return self
    def eval(self): return self
    def __call__(self, input_ids=None, decoder_input_ids=None):
        assert input_ids is not None and decoder_input_ids is not None
        torch.calls.append("seq2seq"); return types.SimpleNamespace()
class SwitchTransformersForConditionalGeneration:
    @classmethod
    def _from_config(cls, cfg, attn_implementation=None):
        torch.calls.append("attn:%s" % attn_implementation)
        return _Seq2Seq()
PY
printf '#!/bin/sh\necho 580.1\n' >"$T/bin/nvidia-smi"
for w in gemm gpt2 gpt2-bf16 decode resnet50 compiled graph opt-bf16 gpt3-bf16 switch; do
	for mode in windows profile; do
		prof=
		[ $mode = profile ] && prof="--profile $T/$w.trace.json"
		rm -f "$T/$w.trace.json"
		PATH="$T/bin:$PATH" PYTHONPATH="$T/py" FAKE_TORCH_LOG="$T/calls.$w" \
			python3 tools/gpu/workload.py $w "$T/$w.json" --windows 3 $prof >"$T/wl.log" 2>&1 &&
		python3 - "$T/$w.json" "$T/calls.$w" $w $mode <<'PY'
import json, os, sys
out, log, w, mode = sys.argv[1:]
d = json.load(open(out))
calls = open(log).read().split()
assert d["step_ms"] > 0 and len(d["steps_ms"]) == 10, d
assert (d["device"], d["driver"], d["cuda"], d["cudnn"], d["torch"]) == ("Fake GPU", "580.1", "13.0", 91900, "fake"), d
assert d["workload"] == w and d["windows"] == 3 and w in d["command"], d
assert calls[0] == "seed", calls
if mode == "windows":
    assert calls.count("start") == 3 and calls.count("stop") == 3 and "profile" not in calls, calls
else:
    assert "start" not in calls and calls.count("profile") == 1 and calls.count("export") == 1, calls
    steps = [c for c in calls if c.startswith("ProfilerStep#")]
    assert steps == ["ProfilerStep#0", "ProfilerStep#1", "ProfilerStep#2"], calls
    assert calls.index("profile") < calls.index("ProfilerStep#0"), calls
    assert os.path.exists(out.replace(".json", ".trace.json"))
want = {"gpt2": ["attn:eager"], "gpt2-bf16": ["attn:sdpa", "autocast:bf16"], "decode": ["attn:eager"],
        "opt-bf16": ["attn:sdpa"], "gpt3-bf16": ["attn:sdpa"],
        "switch": ["attn:eager", "device:cuda", "seq2seq"],
        "resnet50": ["resnet50", "backward"], "compiled": ["compile", "backward"],
        "graph": ["capture", "replay", "sdpa"]}.get(w, ["mm"])
assert all(c in calls for c in want), (want, calls)
if w == "graph":
    # the step is a replay: one per warm-up and timed step, none outside
    assert calls.count("replay") == 13 and calls.index("capture") < calls.index("replay"), calls
if w in ("gpt2", "gpt2-bf16", "decode", "opt-bf16", "gpt3-bf16"):
    assert os.path.exists(out + ".config.json")
    assert d["mode"] == {"decode": "decode", "opt-bf16": "inference", "gpt3-bf16": "inference"}.get(w, "training"), d
    assert d["dtype"] == ("fp32" if w == "gpt2" else "bf16"), d
if w == "switch":
    cfg = json.load(open(out + ".config.json"))
    assert (cfg["d_model"], cfg["d_ff"], cfg["num_heads"], cfg["num_experts"]) == (1024, 16384, 32, 4), cfg
    assert (d["mode"], d["dtype"], d["batch"], d["seq"]) == ("inference", "fp32", 1, 2048), d
    assert d["model_flags"] == ["--attention", "eager"], d
if w in ("opt-bf16", "gpt3-bf16"):
    cfg = json.load(open(out + ".config.json"))
    assert (cfg.get("hidden_size"), cfg.get("n_embd")) == ((2048, None) if w == "opt-bf16" else (None, 2560)), cfg
    assert d["model_flags"] == ["--attention", "sdpa"] and (d["batch"], d["seq"]) == (2, 2048), d
PY
		check "workload.py $w ($mode): step times, versions, three windows or profiler steps" $?
	done
done
PYTHONPATH="$T/py" FAKE_TORCH_LOG="$T/calls.x" python3 tools/gpu/workload.py gemm "$T/x.json" --profile "$T/p.json" >/dev/null 2>&1
[ $? -eq 2 ]
check "workload.py: --profile without --windows is exit 2" $?
PYTHONPATH="$T/py" FAKE_TORCH_LOG="$T/calls.x" python3 tools/gpu/workload.py nosuch "$T/x.json" >/dev/null 2>&1
[ $? -eq 2 ]
check "workload.py: an unknown workload is exit 2" $?

# compare.py's library kernels, by the names a Hopper run gave: cuBLAS 13's
# nvjet_* GEMMs are library kernels (each must be linked to its call);
# cuDNN's SDPA helpers and PyTorch's unpack_cudnn are not.
libtrace() { # libtrace FILE LINK: an nvjet GEMM (lib_call LINK), a cuDNN SDPA helper, unpack_cudnn
	{
		echo '{"type":"gemm","seq":1,"api":"lt_matmul","m":64,"n":64,"k":64}'
		echo '{"type":"kernel","seq":2,"name":"nvjet_sm90_tst_192x128_64x5_1x2_h_bz_coopB_TNT","iteration":0,"start_ns":100,"end_ns":200,"lib_call":'"$2"'}'
		echo '{"type":"kernel","seq":3,"name":"_ZN5cudnn6fusion20convert_dq_to_16bitsILb1EEEvPKvPvjjjjjjjjjjPKfS6_S6_PfS3_S4_S4_bb","iteration":0,"start_ns":200,"end_ns":300}'
		echo '{"type":"kernel","seq":4,"name":"_ZN2at4cuda6philox12unpack_cudnnENS_15PhiloxCudaStateEPlS3_","iteration":0,"start_ns":300,"end_ns":400}'
	} >"$1"
}
# libverdict NAME REC PROF VERDICT LINKED MESSAGE: compare.py's libraries
# line for one lt_matmul call is VERDICT with LINKED of 1 kernels linked
libverdict() {
	python3 tools/gpu/compare.py kernels "$1" "$2" "$3" --libs >"$T/lib.txt" 2>&1
	grep -q "^$4 $1: libraries: 1 calls with shapes (lt_matmul); $5 of 1 library kernels linked to one$" "$T/lib.txt"
	check "$6 ($(grep libraries "$T/lib.txt"))" $?
}
libtrace "$T/lib-rec.jsonl" 1
libtrace "$T/lib-prof.jsonl" 0
libverdict hopper "$T/lib-rec.jsonl" "$T/lib-prof.jsonl" PASS 1 \
	"compare.py: an nvjet GEMM linked passes, cuDNN's SDPA helpers are no library kernels"
libtrace "$T/lib-rec.jsonl" 0
libverdict hopper "$T/lib-rec.jsonl" "$T/lib-prof.jsonl" FAIL 0 "compare.py: an nvjet GEMM linked to no call fails"

# compare.py's library kernels of a CUDA graph replay: linked through the
# launch captured into their graph (before the windows, iteration -1)
# that named the call; a replayed GEMM whose captured launch named none fails.
graphtrace() { # graphtrace FILE LINK
	{
		echo '{"type":"gemm","seq":1,"api":"lt_matmul","m":64,"n":64,"k":64}'
		echo '{"type":"kernel","seq":2,"name":"nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNN","grid":[4,1,1],"flags":4,"graph":77,"iteration":-1,"lib_call":'"$2"'}'
		echo '{"type":"kernel","seq":9,"name":"nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNN","grid":[4,1,1],"flags":2,"graph":77,"replay":5,"iteration":0,"start_ns":100,"end_ns":200}'
	} >"$1"
}
graphtrace "$T/g-rec.jsonl" 1
libverdict graph "$T/g-rec.jsonl" "$T/g-rec.jsonl" PASS 1 "compare.py: a replayed GEMM linked through its captured launch passes"
graphtrace "$T/g-rec.jsonl" 0
libverdict graph "$T/g-rec.jsonl" "$T/g-rec.jsonl" FAIL 0 \
	"compare.py: a replayed GEMM whose captured launch named no call fails"

echo "gpu_check_test: $((n - fail)) of $n passed"
[ $fail -eq 0 ]
