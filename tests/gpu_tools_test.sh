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
    dtype = None
    def __init__(self, *shape): self.shape = tuple(shape)
    def is_floating_point(self): return True
    def numel(self): return math.prod(self.shape)
    def _same(self, *a, **k): return _T(*self.shape)
    def _scalar_op(self, v): return _run("vectorized_elementwise_kernel<4, scalar>", self._same())
    __add__ = __mul__ = __truediv__ = add_ = _scalar_op
    # what tools/gpu/kernels.py does with tensors besides timed operators
    to = view = transpose = reshape = _same
    def t(self): return _T(*self.shape[::-1])
    def split(self, sizes, dim=-1): return tuple(_T(*self.shape[:-1], n) for n in sizes)
    def chunk(self, n, dim=-1): return tuple(_T(*self.shape[:-1], self.shape[-1] // n) for _ in range(n))
    def backward(self, g=None): _run("flash_bwd_kernel", self._same())
    def __matmul__(self, o): return _run("nvjet_gemm", _T(*self.shape[:-1], o.shape[-1]))
def _run(name, out):
    t0 = clock[0]
    clock[0] += max(0.01, out.numel() * 1e-9)
    if prof_on[0]:
        blocks = max(1, out.numel() // 512)
        launches.append((name, [blocks, 1, 1], [128, 1, 1], t0, clock[0]))
    return out
def randn(*shape, device=None, dtype=None, requires_grad=False):
    t = _T(*shape)
    t.dtype = dtype
    return t
bfloat16, float16, float32, float8_e4m3fn = "bf16", "fp16", "fp32", "e4m3"
def matmul(a, b):
    # FP32 inputs run SIMT FFMA unless TF32 is allowed (PyTorch's default
    # since 1.12: not allowed), at a 16th of the tensor cores' rate
    if a.dtype == float32 and not backends.cuda.matmul.allow_tf32:
        return _run("sm90_xmma_gemm_f32f32_ffma", _T(a.shape[0], b.shape[-1], 16))
    return _run("nvjet_gemm_" + str(len(a.shape)), _T(a.shape[0], b.shape[-1]))
def _scaled_mm(a, b, scale_a=None, scale_b=None, out_dtype=None):
    if b.shape[-1] == 6144:  # a shape this PyTorch refuses, for the test
        raise RuntimeError("scaled_mm: unsupported shape\nmore")
    return _run("nvjet_fp8_gemm", _T(a.shape[0], b.shape[-1]))
def manual_seed(s): pass
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
                             get_device_capability=lambda: (9, 0),
                             reset_peak_memory_stats=lambda: None,
                             max_memory_allocated=lambda: 20 * 2**30)
# the spin kernel: a million cycles a ms (FAKE_NO_SLEEP: a PyTorch without it)
import os
if not os.environ.get("FAKE_NO_SLEEP"):
    def _sleep(cycles): clock[0] += cycles / 1e6
    cuda._sleep = _sleep
backends = types.SimpleNamespace(
    cuda=types.SimpleNamespace(matmul=types.SimpleNamespace(allow_tf32=False)),
    cudnn=types.SimpleNamespace(allow_tf32=True, version=lambda: 91900))
PY
cat >"$T/py/torch/nn/__init__.py" <<'PY'
PY
cat >"$T/py/torch/nn/attention.py" <<'PY'
import contextlib
SDPBackend = type("SDPBackend", (), {"FLASH_ATTENTION": "flash"})
def sdpa_kernel(b):
    assert b == "flash"
    return contextlib.nullcontext()
PY
cat >"$T/py/torch/nn/functional.py" <<'PY'
import torch
def linear(x, w): return torch._run("sgemm_128x128_tn", torch._T(x.shape[0], w.shape[0]))
def gelu(x): return torch._run("vectorized_elementwise_kernel<4, gelu>", x._same())
def relu(x): return torch._run("vectorized_elementwise_kernel<4, relu>", x._same())
def layer_norm(x, shape, g=None, b=None): return torch._run("vectorized_layer_norm_kernel", x._same())
def rms_norm(x, shape): return torch._run("vectorized_rms_norm_kernel", x._same())
def silu(x): return torch._run("vectorized_elementwise_kernel<4, silu>", x._same())
def scaled_dot_product_attention(q, k, v, is_causal=False, enable_gqa=False):
    return torch._run("flash_fwd_kernel", q._same())
def conv2d(x, w, stride=1, padding=0):
    # cuDNN's FFT runs several kernels per call, its implicit GEMM one
    n, c, h, _ = x.shape
    p = (h + 2 * padding - w.shape[2]) // stride + 1
    out = torch._T(n, w.shape[0], p, p)
    if w.shape[2] == 5:
        torch._run("fft2d_r2c_32x32", torch._T(n, c, h, h))
        torch._run("gcgemm_64x64_nt", out)
        return torch._run("fft2d_c2r_32x32", out)
    return torch._run("sm80_xmma_fprop_implicit_gemm_f32f32", out)
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
# NeuSight's conv sweep layout: conv.csv with every kernel of a call in
# Kernels, each after a ';', as NeuSight's files have them.
cat >"$T/conv.csv" <<'EOF'
OPName,Latency,Device,Kernel Name,Kernels,B,Input_Channel,Output_Channel,Kernel_Szie,Input_Size,Stride,Padding
conv,0.9,Tesla V100-PCIE-32GB,x,;x,8,64,64,3,56,1,1
conv,0.9,Tesla T4,x,;x,8,64,64,3,56,1,1
conv,1.9,Tesla T4,x,;x,16,32,128,5,28,2,2
EOF
PYTHONPATH="$T/py" python3 tools/gpu/sweep.py "$T/conv.csv" --out "$T/cout" --budget-s 30 >"$T/clog" 2>&1 &&
	python3 - "$T/cout" <<'PY'
import csv, sys
c = list(csv.DictReader(open(sys.argv[1] + "/conv.csv")))
assert len(c) == 2 and all(r["Device"] == "NVIDIA H200" and float(r["Latency"]) > 0 for r in c), c
fft = [r for r in c if r["Kernel_Szie"] == "5"][0]
assert (fft["B"], fft["Input_Channel"], fft["Output_Channel"], fft["Input_Size"], fft["Stride"],
        fft["Padding"]) == ("16", "32", "128", "28", "2", "2"), fft
assert fft["Kernels"] == ";fft2d_r2c_32x32;gcgemm_64x64_nt;fft2d_c2r_32x32", fft["Kernels"]
gemm = [r for r in c if r["Kernel_Szie"] == "3"][0]
assert gemm["Kernels"] == ";sm80_xmma_fprop_implicit_gemm_f32f32", gemm["Kernels"]
PY
check "gpu_sweep.py: each conv shape once, every kernel of the call in Kernels ($(tail -1 "$T/clog"))" $?

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
    def to(self, dt): _log("to " + dt); return self
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
            _log("attn " + attn_implementation)
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
        "Seq2SeqLM eval decoder", "attn eager"} <= log, log
assert "attn sdpa" not in log and not any(l.startswith("to ") for l in log), log
PY
check "labels in NeuSight's layout; the models its graphs show, eval for inference" $?
$B/surfer-bench e2e --labels "$T/labels" --configs "$T/cfg" >"$T/bench.log" 2>&1
grep -q "^h200 .*gpt2_large-train-1024-1.json *$(python3 -c "import json, sys; print('%.2f' % json.load(open(sys.argv[1]))['e2e_latency'])" "$T/labels/NVIDIA_H200/gpt2_large-train-1024-1.json") " "$T/bench.log"
check "surfer-bench e2e reads the labels as the H200's ($(grep -c json "$T/bench.log") lines)" $?
grep -q "^h200 .*gpt2_large-train-1024-1.json .*memory [0-9.]* GiB estimated, 20.0 measured" "$T/bench.log"
check "surfer-bench e2e prints the measured peak memory beside the estimate" $?

# e2e.py --bf16-sdpa: the same models in BF16 with SDPA attention.
: >"$T/hf2.log"
PYTHONPATH="$T/py" FAKE_HF_LOG="$T/hf2.log" python3 tools/gpu/e2e.py --configs "$T/cfg" --bf16-sdpa \
	--out "$T/labels-bf16/NVIDIA_H200" --budget-s 30 gpt2_large-train-1024-1 >"$T/e2e2.log" 2>&1 &&
	grep -q "^attn sdpa$" "$T/hf2.log" && grep -q "^to bf16$" "$T/hf2.log" && ! grep -q eager "$T/hf2.log" &&
	python3 -c "import json, sys; d = json.load(open(sys.argv[1])); assert d['dtype'] == 'bf16' and d['attention'] == 'sdpa', d" \
		"$T/labels-bf16/NVIDIA_H200/gpt2_large-train-1024-1.json"
check "gpu_e2e.py --bf16-sdpa: BF16 weights, SDPA attention, said in the label" $?

# kernels.py: every suite timed on the fake clock, each row with the GPU and
# versions; FP8 rows because the stand-in GPU is compute capability 9.0.
mkdir -p "$T/bin"
printf '#!/bin/sh\ncase "$*" in -L) echo "GPU 0: NVIDIA H200 (UUID: GPU-fake)" ;; *driver_version*) echo 580.95 ;; *) echo 143771 ;; esac\n' >"$T/bin/nvidia-smi"
chmod +x "$T/bin/nvidia-smi"
PATH="$T/bin:$PATH" PYTHONPATH="$T/py" python3 tools/gpu/kernels.py --out "$T/k" --budget-s 600 >"$T/k.log" 2>&1
check "kernels.py runs ($(tail -1 "$T/k.log"))" $?
grep -q "^kernels gemm: {'dtype': 'fp8', 'm': 16, 'n': 6144, 'k': 4096} failed: RuntimeError: scaled_mm: unsupported shape$" "$T/k.log" &&
	grep -q "^kernels gemm: [0-9]* timed, 0 out of memory, 0 left by the deadline, 6 failed$" "$T/k.log"
check "kernels.py: a case PyTorch refuses is counted, the first message printed, the rest timed" $?
python3 - "$T/k" <<'PY'
import csv, json, sys
d = sys.argv[1]
rows = {s: list(csv.DictReader(open("%s/%s.csv" % (d, s)))) for s in ("gemm", "sdpa", "decode", "vec", "model")}
for s, rs in rows.items():
    assert rs, s
    for r in rs:
        assert (r["Device"], r["Driver"], r["CUDA Version"], r["Torch Version"]) == \
            ("NVIDIA H200", "580.95", "13.0", "2.11.0+fake"), r
        assert float(r["latency_ms"]) > 0, r
assert {r["dtype"] for r in rows["gemm"]} == {"bf16", "fp16", "tf32", "fp8"}, rows["gemm"][:4]
# FP8 only where _scaled_mm takes the shape (multiples of 16): not at one token
assert not [r for r in rows["gemm"] if r["dtype"] == "fp8" and r["m"] == "1"]
assert [r for r in rows["gemm"] if r["dtype"] == "bf16" and r["m"] == "1"]
# Llama-3-8B's MLP down projection at 4096 tokens, in each precision
assert len([r for r in rows["gemm"] if (r["m"], r["n"], r["k"]) == ("4096", "4096", "14336")]) == 4
# tf32 rows ran with TF32 allowed: as fast as BF16 on the fake (FFMA, what
# PyTorch runs for FP32 inputs by default, takes 16 times as long)
t = {(r["dtype"], r["m"], r["n"], r["k"]): float(r["latency_ms"]) for r in rows["gemm"]}
assert t[("tf32", "8192", "8192", "8192")] == t[("bf16", "8192", "8192", "8192")], \
    (t[("tf32", "8192", "8192", "8192")], t[("bf16", "8192", "8192", "8192")])
assert {r["pass"] for r in rows["sdpa"]} == {"fwd", "fwd+bwd"}
assert {(r["model"], r["batch"], r["context"]) for r in rows["model"]} >= \
    {("llama3-8b", "1", "512"), ("qwen2.5-7b", "64", "8192")}
assert {r["op"] for r in rows["vec"]} >= {"add", "silu", "rms_norm", "softmax"}
m = json.load(open(d + "/meta.json"))
assert m["Device"] == "NVIDIA H200" and "kernels.py" in m["command"] and m["budget_s"] == 600, m
# the kernel suites time the calls queued behind the spin, the model suite
# whole steps alone; per call, the fake's law: 0.001 ms per million output
# elements, 0.01 ms at least (8192^2 outputs: 0.067109 ms; 256^2: 0.01)
for s in ("gemm", "sdpa", "decode", "vec"):
    assert {r["timing"] for r in rows[s]} == {"queued"}, s
assert {r["timing"] for r in rows["model"]} == {"alone"}
assert t[("bf16", "8192", "8192", "8192")] == 0.067109, t[("bf16", "8192", "8192", "8192")]
assert t[("bf16", "256", "256", "256")] == 0.01, t[("bf16", "256", "256", "256")]
PY
check "kernels.py: GEMMs in four precisions, flash fwd/bwd, decode attention, vector ops, model decode steps" $?
PATH="$T/bin:$PATH" PYTHONPATH="$T/py" FAKE_NO_SLEEP=1 python3 tools/gpu/kernels.py --out "$T/kl" --suites gemm,model \
	--budget-s 600 >"$T/kl.log" 2>&1 &&
	python3 -c "import csv, sys; r = list(csv.DictReader(open(sys.argv[1] + '/gemm.csv'))); m = list(csv.DictReader(open(sys.argv[1] + '/model.csv'))); assert {x['timing'] for x in r} == {'loop'} and {x['timing'] for x in m} == {'alone'}; assert [x for x in r if (x['dtype'], x['m']) == ('bf16', '8192') and x['latency_ms'] == '0.067109']" "$T/kl"
check "kernels.py: without torch.cuda._sleep the kernel suites are timed back to back ('loop')" $?
PATH="$T/bin:$PATH" PYTHONPATH="$T/py" python3 tools/gpu/kernels.py --out "$T/k0" --budget-s 0 >"$T/k0.log" 2>&1
grep -q "^kernels gemm: 0 timed, 0 out of memory, [1-9][0-9]* left by the deadline, 0 failed" "$T/k0.log" &&
	grep -q "^kernels model: 0 timed, 0 out of memory, 24 left by the deadline, 0 failed" "$T/k0.log" && [ ! -f "$T/k0/gemm.csv" ]
check "kernels.py: nothing starts after the deadline, and it says how much was left" $?
PYTHONPATH="$T/py" python3 tools/gpu/kernels.py --out "$T/k1" --suites gemm,nosuch >/dev/null 2>"$T/k1.err"
[ $? -eq 2 ] && grep -q "no suite 'nosuch'" "$T/k1.err"
check "kernels.py: an unknown suite is exit 2" $?

# measure.sh: the layout data/<gpu>/ the harness reads, the budget split
# and respected, the versions and command in meta.json.
mkdir -p "$T/bundle/configs" "$T/bundle/shapes" "$T/bundle/shapes-conv"
cp "$T/cfg/"*.json "$T/bundle/configs/"
cp "$T/bmm.csv" "$T/vec.csv" "$T/bundle/shapes/"
cp "$T/conv.csv" "$T/bundle/shapes-conv/"
PATH="$T/bin:$PATH" PYTHONPATH="$T/py" FAKE_HF_LOG="$T/hf3.log" GPU_MEASURE_BUDGET_S=100 \
	sh tools/gpu/measure.sh "$T/bundle" "$T/m" >"$T/m.log" 2>&1
check "measure.sh runs ($(tail -1 "$T/m.log"))" $?
D="$T/m/data/NVIDIA_H200"
[ -s "$D/kernels/gemm.csv" ] && [ -s "$D/kernels/conv.csv" ] && [ -s "$D/ours/model.csv" ] &&
	[ -s "$D/ours/meta.json" ] &&
	[ -s "$D/labels/NVIDIA_H200/gpt2_large-train-1024-1.json" ] &&
	[ -s "$D/labels-bf16/NVIDIA_H200/gpt2_large-train-1024-1.json" ] &&
	python3 -c "import json, sys; d = json.load(open(sys.argv[1])); assert d['device'] == 'NVIDIA H200' and d['driver'] == '580.95' and d['cuda'] == '13.0' and d['torch'] and 'measure.sh' in d['command'] and d['budget_s'] == 100, d" "$D/meta.json"
check "measure.sh: data/<gpu>/ with labels, labels-bf16, kernels, ours, meta.json" $?
# the host in meta.json: this machine's CPU model and count, an eager op's
# CPU time (the fake's ops cost microseconds of Python, more than nothing)
python3 -c "
import json, os, sys
d = json.load(open(sys.argv[1]))
cpu = [l.split(':', 1)[1].strip() for l in open('/proc/cpuinfo') if l.startswith('model name')][:1]
assert d['host_cpu'] == (cpu[0] if cpu else '') and d['host_cpus'] == os.cpu_count(), d
assert 0 < d['host_op_us'] < 1000, d" "$D/meta.json"
check "measure.sh: meta.json names the host's CPU and times an eager op" $?
# the shares: e2e 25%, sweep 15%, conv 10%, kernels 40% of 100 s, the rest to e2e-bf16
grep -q "e2e-fp32: exit 0, [0-9]* s of 25;" "$D/parts.log" && grep -q "sweep: exit 0, [0-9]* s of 15;" "$D/parts.log" &&
	grep -q "conv: exit 0, [0-9]* s of 10;" "$D/parts.log" &&
	grep -q "kernels: exit 0, [0-9]* s of 40;" "$D/parts.log" && grep -q "e2e-bf16: exit 0, [0-9]* s of [0-9]*;" "$D/parts.log"
check "measure.sh: each part gets its share of the budget ($(tr '\n' '|' <"$D/parts.log"))" $?
$B/surfer-bench accuracy --dataset "$D/kernels" --origin none --target h200 --json >"$T/acc2.json" 2>"$T/acc2.err" &&
	$B/surfer-bench e2e --labels "$D/labels" --configs "$T/cfg" >"$T/bench2.log" 2>&1 &&
	grep -q "^h200 .*gpt2_large-train-1024-1.json" "$T/bench2.log"
check "surfer-bench accuracy and e2e read what measure.sh wrote" $?
# --with-figures: the H200's own measured FP32 GEMM figure kept (what a
# user of it gets), its iterations then counted in-sample; by default the
# figure is held out with its architecture and the rule stands in.
$B/surfer-bench e2e --labels "$D/labels" --configs "$T/cfg" --with-figures --dump "$T/wf.csv" >"$T/bench3.log" 2>&1
p_out=$(awk '$1 == "h200" && $2 == "gpt2_large-train-1024-1.json" { print $4 }' "$T/bench2.log")
p_in=$(awk '$1 == "h200" && $2 == "gpt2_large-train-1024-1.json" { print $4 }' "$T/bench3.log")
[ -n "$p_out" ] && [ -n "$p_in" ] && [ "$p_out" != "$p_in" ] &&
	grep -q "^h200 .*mean |error|.*figures of its architecture kept: not held out" "$T/bench3.log" &&
	grep -q "^h200,gpt2_large-train-1024-1.json,in-sample," "$T/wf.csv"
check "surfer-bench e2e --with-figures keeps the H200's measured figure ($p_out -> $p_in ms), counted in-sample" $?
ncov=$(grep -c "^h200 .*\.json .*80%: [0-9.]*-[0-9.]*" "$T/bench2.log")
[ "$ncov" -gt 0 ] && grep -q "^all  *the 80% interval holds the measured time in [0-9]* of $ncov\$" "$T/bench2.log"
check "surfer-bench e2e gives each prediction's interval and counts the measured times inside ($ncov)" $?
PATH="$T/bin:$PATH" PYTHONPATH="$T/py" FAKE_HF_LOG="$T/hf3.log" GPU_MEASURE_BUDGET_S=0 \
	sh tools/gpu/measure.sh "$T/bundle" "$T/m0" >"$T/m0.log" 2>&1
[ "$(grep -c "skipped, the budget is spent" "$T/m0.log")" -eq 5 ] &&
	[ -z "$(ls "$T/m0/data/NVIDIA_H200/ours")" ]
check "measure.sh: a spent budget starts nothing" $?

finish "gpu_tools_test"
