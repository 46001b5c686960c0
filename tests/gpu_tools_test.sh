#!/bin/sh
# gpu_tools_test.sh - the measuring tools a machine with a GPU runs, taken
# through their paths here over stand-ins for the parts of PyTorch and
# transformers they touch (neither, nor a GPU, is here).  gpu_sweep.py must
# time each operator and shape of a NeuSight-layout input once, name their
# kernels from the profiler's trace and write CSVs that `surfer-bench
# accuracy --dataset` reads as rows of the GPU it ran on; gpu_e2e.py must
# build the models NeuSight's graphs show and write labels that
# `surfer-bench e2e --labels` reads.
. "$(dirname "$0")/lib.sh"
test_tmp gputools
T=$tmp

mkdir -p "$T/py/torch/nn"
cat >"$T/py/torch/__init__.py" <<'PY'
"""A stand-in for the parts of PyTorch tools/gpu/sweep.py touches: every op
"runs" a kernel on a fake clock (0.001 ms per million elements, 0.01 ms at
least) that CUDA events read and the profiler writes as a Chrome trace."""
import contextlib, json, math, types
__version__ = "2.11.0+fake"
version = types.SimpleNamespace(cuda="13.0")
clock = [0.0]          # ms
launches = []          # (name, grid, block, t0, t1) of the current profile
prof_on = [False]
class _T:
    requires_grad = False
    def __init__(self, *shape): self.shape = tuple(shape)
    def is_floating_point(self): return True
    def numel(self): return math.prod(self.shape)
    def _same(self, *a): return _T(*self.shape)
    def _scalar_op(self, v): return _run("vectorized_elementwise_kernel<4, scalar>", self._same())
    __add__ = __mul__ = __truediv__ = _scalar_op
def _run(name, out):
    t0 = clock[0]
    clock[0] += max(0.01, out.numel() * 1e-9)
    if prof_on[0]:
        blocks = max(1, out.numel() // 512)
        launches.append((name, [blocks, 1, 1], [128, 1, 1], t0, clock[0]))
    return out
def randn(*shape, device=None): return _T(*shape)
def rand(*shape, device=None): return _Plain(*shape)
class _Plain(_T):
    """rand()+0.5 in the sweep's setup: no kernel to time."""
    def __add__(self, v): return _T(*self.shape)
def ones(*shape, device=None): return _T(*shape)
def zeros(*shape, device=None): return _T(*shape)
def bmm(a, b): return _run("sgemm_128x64_nn", _T(a.shape[0], a.shape[1], b.shape[2]))
def add(a, b): return _run("vectorized_elementwise_kernel<4, add>", a._same())
def mul(a, b): return _run("vectorized_elementwise_kernel<4, mul>", a._same())
def div(a, b): return _run("vectorized_elementwise_kernel<4, div>", a._same())
def pow(a, b): return _run("vectorized_elementwise_kernel<4, pow>", a._same())
def tanh(a): return _run("vectorized_elementwise_kernel<4, tanh>", a._same())
def softmax(a, dim=-1): return _run("softmax_warp_forward", a._same())
def set_float32_matmul_precision(p): pass
def randint(lo, hi, shape, device=None): return _T(*shape)
def is_tensor(t): return isinstance(t, _T)
def ones_like(t): return t._same()
def no_grad(): return contextlib.nullcontext()
def device(name): return contextlib.nullcontext()
autograd = types.SimpleNamespace(
    backward=lambda ts, grads: [_run("backward_kernel", _T(*t.shape, 2)) for t in ts])
class OutOfMemoryError(RuntimeError): pass
class _Ev:
    def __init__(self, enable_timing=False): self.t = 0.0
    def record(self): self.t = clock[0]
    def elapsed_time(self, o): return o.t - self.t
cuda = types.SimpleNamespace(Event=_Ev, synchronize=lambda: None, empty_cache=lambda: None,
                             get_device_name=lambda: "NVIDIA H200", OutOfMemoryError=OutOfMemoryError,
                             reset_peak_memory_stats=lambda: None,
                             max_memory_allocated=lambda: 20 * 2**30)
backends = types.SimpleNamespace(
    cuda=types.SimpleNamespace(matmul=types.SimpleNamespace(allow_tf32=True)),
    cudnn=types.SimpleNamespace(allow_tf32=True, version=lambda: 91900))
PY
cat >"$T/py/torch/nn/__init__.py" <<'PY'
PY
cat >"$T/py/torch/nn/functional.py" <<'PY'
import torch
def linear(x, w): return torch._run("sgemm_128x128_tn", torch._T(x.shape[0], w.shape[0]))
def gelu(x): return torch._run("vectorized_elementwise_kernel<4, gelu>", x._same())
def relu(x): return torch._run("vectorized_elementwise_kernel<4, relu>", x._same())
def layer_norm(x, shape, g, b): return torch._run("vectorized_layer_norm_kernel", x._same())
PY
cat >"$T/py/torch/profiler.py" <<'PY'
"""Chrome traces as Kineto writes them: a user_annotation per range, a
cuda_runtime launch and a kernel joined by correlation."""
import contextlib, json
import torch
ProfilerActivity = type("ProfilerActivity", (), {"CPU": 0, "CUDA": 1})
ranges = []
@contextlib.contextmanager
def record_function(name):
    t0 = torch.clock[0]
    yield
    ranges.append((name, t0, torch.clock[0]))
class profile:
    def __init__(self, activities=None): pass
    def __enter__(self):
        torch.prof_on[0] = True
        del torch.launches[:], ranges[:]
        return self
    def __exit__(self, *a): torch.prof_on[0] = False
    def export_chrome_trace(self, path):
        ev = [{"cat": "user_annotation", "name": n, "ts": t0 * 1e3, "dur": (t1 - t0) * 1e3}
              for n, t0, t1 in ranges]
        for i, (n, g, b, t0, t1) in enumerate(torch.launches):
            ev.append({"cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": t0 * 1e3,
                       "args": {"correlation": i + 1}})
            ev.append({"cat": "kernel", "name": n, "ts": 5e6 + t0 * 1e3, "dur": (t1 - t0) * 1e3,
                       "args": {"correlation": i + 1, "grid": g, "block": b}})
        json.dump({"traceEvents": ev}, open(path, "w"))
PY

# A NeuSight-layout input: a shape twice (kept once), GEMMs and vector ops.
cat >"$T/bmm.csv" <<'EOF'
OPName,Latency,Device,Kernel Name,Grid x,Grid y,Grid z,Block x,Block y,Block z,B,M,N,K
bmm,0.5,Tesla T4,x,1,1,1,1,1,1,8,256,64,256
bmm,0.5,Tesla V100-PCIE-32GB,x,1,1,1,1,1,1,8,256,64,256
bmm,1.5,Tesla T4,x,1,1,1,1,1,1,16,512,64,512
linear,2.5,Tesla T4,x,1,1,1,1,1,1,1,4096,1024,4096
EOF
cat >"$T/vec.csv" <<'EOF'
OPName,Latency,Device,Kernel Name,Grid x,Grid y,Grid z,Block x,Block y,Block z,B,H
add,0.3,Tesla T4,x,1,1,1,1,1,1,32768,1024
addu,0.2,Tesla T4,x,1,1,1,1,1,1,32768,1024
gelu,0.2,Tesla T4,x,1,1,1,1,1,1,16384,4096
softmax,0.2,Tesla T4,x,1,1,1,1,1,1,8192,2048
ln,0.2,Tesla T4,x,1,1,1,1,1,1,8192,1024
EOF
PYTHONPATH="$T/py" python3 tools/gpu/sweep.py "$T/bmm.csv" "$T/vec.csv" --out "$T/out" --budget-s 30 \
	>"$T/log" 2>&1
check "gpu_sweep.py runs ($(tail -1 "$T/log"))" $?
python3 - "$T/out" <<'PY'
import csv, sys
g = list(csv.DictReader(open(sys.argv[1] + "/gemm.csv")))
v = list(csv.DictReader(open(sys.argv[1] + "/vec.csv")))
assert len(g) == 3 and len(v) == 5, (len(g), len(v))
assert all(r["Device"] == "NVIDIA H200" and float(r["Latency"]) > 0 for r in g + v)
big = [r for r in g if r["OPName"] == "linear"][0]
assert (big["B"], big["M"], big["N"], big["K"]) == ("1", "4096", "1024", "4096"), big
assert big["Kernel Name"] == "sgemm_128x128_tn" and big["Block x"] == "128", big
assert {r["OPName"] for r in v} == {"add", "addu", "gelu", "softmax", "ln"}
assert [r for r in v if r["OPName"] == "ln"][0]["Kernel Name"] == "vectorized_layer_norm_kernel"
PY
check "each operator and shape once, timed, named, in NeuSight's layout" $?
$B/surfer-bench accuracy --dataset "$T/out" --origin none --target h200 --json >"$T/acc.json" 2>"$T/acc.err"
python3 -c "import json, sys; d = json.load(open(sys.argv[1])); assert d['overall']['n'] == 8, d" "$T/acc.json"
check "surfer-bench accuracy reads the 8 rows as the H200's ($(head -1 "$T/acc.err"))" $?

# tools/gpu/e2e.py over stand-ins for PyTorch and transformers: the model
# NeuSight's graphs show for each configuration (BERT inference: sequence
# classification; training: pre-training heads; Switch with decoder ids),
# eager attention, and label files `surfer-bench e2e` reads.
mkdir -p "$T/py/transformers" "$T/cfg"
cat >"$T/py/transformers/__init__.py" <<'PY'
"""A stand-in for the parts of transformers tools/gpu/e2e.py touches."""
import os, types
import torch
__version__ = "5.fake"
def _log(s): open(os.environ["FAKE_HF_LOG"], "a").write(s + "\n")
class AutoConfig:
    @staticmethod
    def for_model(model_type, **kw):
        return types.SimpleNamespace(model_type=model_type, **kw)
class _Model:
    def __init__(self, cls, cfg): self.cls, self.cfg, self.training = cls, cfg, True
    def float(self): return self
    def eval(self): self.training = False; return self
    def train(self): self.training = True; return self
    def zero_grad(self, set_to_none=False): pass
    def __call__(self, input_ids, decoder_input_ids=None):
        _log("%s %s %s" % (self.cls, "train" if self.training else "eval",
                           "decoder" if decoder_input_ids is not None else "-"))
        out = torch._run("forward_kernel", torch._T(*input_ids.shape, 1000))
        out.requires_grad = self.training
        return {"logits": out, "past_key_values": None}
def _auto(name):
    class A:
        @staticmethod
        def from_config(cfg, attn_implementation=None):
            assert attn_implementation == "eager"
            return _Model(name, cfg)
    return A
AutoModelForSequenceClassification = _auto("SequenceClassification")
AutoModelForPreTraining = _auto("PreTraining")
AutoModelForCausalLM = _auto("CausalLM")
AutoModelForSeq2SeqLM = _auto("Seq2SeqLM")
PY
echo '{"model_type": "bert", "num_hidden_layers": 24, "hidden_size": 1024, "num_attention_heads": 16, "intermediate_size": 4096, "vocab_size": 30522, "max_position_embeddings": 512, "type_vocab_size": 2}' >"$T/cfg/bert_large.json"
echo '{"model_type": "gpt2", "n_layer": 36, "n_embd": 1280, "n_head": 20, "n_positions": 1024, "vocab_size": 50257, "activation_function": "gelu_new"}' >"$T/cfg/gpt2_large.json"
echo '{"model_type": "switch_transformers", "num_layers": 24, "vocab_size": 32128}' >"$T/cfg/switchxl4.json"
PYTHONPATH="$T/py" FAKE_HF_LOG="$T/hf.log" python3 tools/gpu/e2e.py --configs "$T/cfg" \
	--out "$T/labels/NVIDIA_H200" --budget-s 30 bert_large-inf-512-8 bert_large-train-512-2 \
	gpt2_large-train-1024-1 switchxl4-inf-512-1 >"$T/e2e.log" 2>&1
check "gpu_e2e.py runs ($(tail -1 "$T/e2e.log"))" $?
python3 - "$T/labels/NVIDIA_H200" "$T/hf.log" <<'PY'
import json, os, sys
d = sys.argv[1]
inf = json.load(open(os.path.join(d, "bert_large-inf-512-8.json")))
tr = json.load(open(os.path.join(d, "gpt2_large-train-1024-1.json")))
assert inf["num_layer"] == 24 and inf["e2e_latency"] > 0 and inf["bwall_latency"] == 0, inf
assert tr["num_layer"] == 36 and tr["bwall_latency"] > 0, tr
assert abs(tr["fw_latency"] + tr["bwall_latency"] - tr["e2e_latency"]) < 1e-9, tr
assert len(tr["steps_ms"]) == 5 and tr["device"] == "NVIDIA H200", tr
assert tr["peak_allocated_gib"] == 20, tr
log = set(open(sys.argv[2]).read().split("\n"))
assert {"SequenceClassification eval -", "PreTraining train -", "CausalLM train -",
        "Seq2SeqLM eval decoder"} <= log, log
PY
check "labels in NeuSight's layout; the models its graphs show, eval for inference" $?
$B/surfer-bench e2e --labels "$T/labels" --configs "$T/cfg" >"$T/bench.log" 2>&1
grep -q "^h200 .*gpt2_large-train-1024-1.json *$(python3 -c "import json, sys; print('%.2f' % json.load(open(sys.argv[1]))['e2e_latency'])" "$T/labels/NVIDIA_H200/gpt2_large-train-1024-1.json") " "$T/bench.log"
check "surfer-bench e2e reads the labels as the H200's ($(grep -c json "$T/bench.log") lines)" $?
grep -q "^h200 .*gpt2_large-train-1024-1.json .*memory [0-9.]* GiB estimated, 20.0 measured" "$T/bench.log"
check "surfer-bench e2e prints the measured peak memory beside the estimate" $?

finish "gpu_tools_test"
