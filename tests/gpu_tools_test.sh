#!/bin/sh
# gpu_tools_test.sh - tools/gpu_sweep.py, which a machine with a GPU runs,
# taken through its path here over a stand-in for the parts of PyTorch it
# touches (no PyTorch or GPU here): it must time each operator and shape of
# a NeuSight-layout input once, name their kernels from the profiler's
# trace, and write CSVs that `surfer-bench accuracy --dataset` reads as rows
# of the GPU it ran on.
B=${BUILD:-build}
T=$(mktemp -d "${TMPDIR:-/tmp}/gputools.XXXXXX")
trap 'rm -rf "$T"' EXIT
n=0 fail=0
check() { n=$((n + 1)); [ "$2" -eq 0 ] || { echo "FAIL: $1"; fail=$((fail + 1)); }; }

mkdir -p "$T/py/torch/nn"
cat >"$T/py/torch/__init__.py" <<'PY'
"""A stand-in for the parts of PyTorch tools/gpu_sweep.py touches: every op
"runs" a kernel on a fake clock (0.001 ms per million elements, 0.01 ms at
least) that CUDA events read and the profiler writes as a Chrome trace."""
import contextlib, json, math, types
__version__ = "2.11.0+fake"
version = types.SimpleNamespace(cuda="13.0")
clock = [0.0]          # ms
launches = []          # (name, grid, block, t0, t1) of the current profile
prof_on = [False]
class _T:
    def __init__(self, *shape): self.shape = tuple(shape)
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
class OutOfMemoryError(RuntimeError): pass
class _Ev:
    def __init__(self, enable_timing=False): self.t = 0.0
    def record(self): self.t = clock[0]
    def elapsed_time(self, o): return o.t - self.t
cuda = types.SimpleNamespace(Event=_Ev, synchronize=lambda: None, empty_cache=lambda: None,
                             get_device_name=lambda: "NVIDIA H200", OutOfMemoryError=OutOfMemoryError)
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
PYTHONPATH="$T/py" python3 tools/gpu_sweep.py "$T/bmm.csv" "$T/vec.csv" --out "$T/out" --budget-s 30 \
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

echo "gpu_tools_test: $((n - fail)) of $n passed"
[ $fail -eq 0 ]
