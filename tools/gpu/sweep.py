"""Time operators of NeuSight's kernel layout on this GPU.

    python3 tools/gpu/sweep.py SHAPES.csv... --out DIR [--budget-s S] [--seed N]

Reads rows in NeuSight's CSV layout (OPName and B, M, N, K for bmm and
linear; B, H for the vector ops), keeps each operator and shape once,
shuffles them with a fixed seed and interleaves the operators, then times
as many as the budget allows in FP32 with TF32 off: bmm of (B,M,N) by
(B,N,K), linear of (B*M,N) by a (K,N) weight, element-wise ops on (B,H)
(add/mul/div/pow of two tensors, the `u` variants with a scalar, gelu,
relu, tanh), layer norm and softmax over H, and conv (NeuSight's conv
sweep: B images of Input_Channel x Input_Size^2, Output_Channel filters of
Kernel_Szie^2, Stride, Padding; F.conv2d without bias, cuDNN's heuristic
pick, cudnn.benchmark off).  Latency is NeuSight's: the mean
of the 5 fastest of 25 CUDA-event timings (long kernels: of 8).  Passes
under torch.profiler name each row's kernel with its grid and block, as far
as the budget goes.
Writes DIR/gemm.csv, DIR/vec.csv and DIR/conv.csv in the same layout (a
conv row's Kernels column lists every kernel of the call, ';'-separated,
as NeuSight's does) with this GPU's
name in Device, which `surfer-bench accuracy --dataset` reads.
"""
import argparse
import csv
import json
import os
import random
import sys
import tempfile
import time

import torch
import torch.nn.functional as F

GEMM = ("bmm", "linear")
CONV_DIMS = ["B", "Input_Channel", "Output_Channel", "Kernel_Szie", "Input_Size", "Stride", "Padding"]
HEADER = ["OPName", "Latency", "Device", "Torch Version", "CUDNN Version", "Kernel Name",
          "Grid x", "Grid y", "Grid z", "Block x", "Block y", "Block z", "CUDA Version", "Kernels"]


def shapes(paths):
    seen, by_op = set(), {}
    for p in paths:
        for r in csv.DictReader(open(p)):
            op = r["OPName"]
            if op in GEMM:
                key = (op, int(r["B"]), int(r["M"]), int(r["N"]), int(r["K"]))
            elif op == "conv":
                key = (op,) + tuple(int(r[c]) for c in CONV_DIMS)
            else:
                key = (op, int(r["B"]), int(r["H"]))
            if key not in seen:
                seen.add(key)
                by_op.setdefault(op, []).append(key)
    return by_op


def interleave(by_op, seed):
    rng = random.Random(seed)
    lists = []
    for op in sorted(by_op):
        l = sorted(by_op[op])
        rng.shuffle(l)
        lists.append(l)
    out = []
    while any(lists):
        for l in lists:
            if l:
                out.append(l.pop())
    return out


def make_call(key):
    """A closure running the operator once, and the bytes it allocated."""
    op = key[0]
    dev = "cuda"
    if op == "bmm":
        _, b, m, n, k = key
        x, w = torch.randn(b, m, n, device=dev), torch.randn(b, n, k, device=dev)
        return lambda: torch.bmm(x, w)
    if op == "linear":
        _, b, m, n, k = key
        x, w = torch.randn(b * m, n, device=dev), torch.randn(k, n, device=dev)
        return lambda: F.linear(x, w)
    if op == "conv":
        _, b, c, k, r, hw, stride, pad = key
        x, w = torch.randn(b, c, hw, hw, device=dev), torch.randn(k, c, r, r, device=dev)
        return lambda: F.conv2d(x, w, stride=stride, padding=pad)
    _, b, h = key
    x = torch.randn(b, h, device=dev)
    if op in ("add", "mul", "div", "pow"):
        y = torch.rand(b, h, device=dev) + 0.5
        f = {"add": torch.add, "mul": torch.mul, "div": torch.div, "pow": torch.pow}[op]
        return lambda: f(x, y)
    unary = {"addu": lambda: x + 1.5, "mulu": lambda: x * 1.5, "divu": lambda: x / 1.5,
             "powu": lambda: torch.pow(x, 3.0), "gelu": lambda: F.gelu(x),
             "relu": lambda: F.relu(x), "tanh": lambda: torch.tanh(x),
             "softmax": lambda: torch.softmax(x, dim=-1)}
    if op == "ln":
        g, bb = torch.ones(h, device=dev), torch.zeros(h, device=dev)
        return lambda: F.layer_norm(x, (h,), g, bb)
    return unary[op]


def time_call(call):
    call()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    call()
    b.record()
    torch.cuda.synchronize()
    reps = 25 if a.elapsed_time(b) < 2.0 else 8
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
    for s, e in ev:
        s.record()
        call()
        e.record()
    torch.cuda.synchronize()
    t = sorted(s.elapsed_time(e) for s, e in ev)
    return sum(t[:5]) / 5


def kernel_names(keys, deadline):
    """Kernel name, grid and block of each key's call, from profiled passes
    of 300 rows each (one trace of them all outgrows memory), while time is
    left."""
    names = {}
    try:
        from torch.profiler import ProfilerActivity, profile, record_function
        for lo in range(0, len(keys), 300):
            if time.time() > deadline:
                break
            chunk = keys[lo:lo + 300]
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
                for i, k in enumerate(chunk):
                    call = make_call(k)  # one row's tensors at a time
                    with record_function("row:%d" % i):
                        call()
                    del call
                torch.cuda.synchronize()
            path = os.path.join(tempfile.mkdtemp(), "trace.json")
            prof.export_chrome_trace(path)
            names.update(rows_of_trace(json.load(open(path)), chunk))
            os.unlink(path)
    except Exception as e:  # names are extra: the timings stand without them
        print("gpu_sweep: kernel names stopped: %s: %s" % (type(e).__name__, e), file=sys.stderr)
    return names


def rows_of_trace(trace, keys):
    """Map each key to (its longest kernel's name, grid, block and duration,
    every kernel's name in launch order) through the launch (runtime/driver
    event, by correlation) inside its row range."""
    ev = trace["traceEvents"] if isinstance(trace, dict) else trace
    ranges = sorted((e["ts"], e["ts"] + e.get("dur", 0), int(e["name"][4:])) for e in ev
                    if e.get("cat") == "user_annotation" and str(e.get("name", "")).startswith("row:"))
    launch_ts = {}
    for e in ev:
        if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {}):
            launch_ts[e["args"]["correlation"]] = e["ts"]
    out = {}
    for e in sorted((e for e in ev if e.get("cat") == "kernel"), key=lambda e: e["ts"]):
        ts = launch_ts.get(e.get("args", {}).get("correlation"))
        if ts is None:
            continue
        for lo, hi, i in ranges:
            if lo <= ts < hi:  # half-open: a row ends where the next begins
                a = e["args"]
                prev = out.get(keys[i])
                # the longest kernel of the row names it; list them all
                every = (prev[4] if prev else []) + [e["name"]]
                if prev is None or e.get("dur", 0) > prev[3]:
                    out[keys[i]] = (e["name"], a.get("grid", [0, 0, 0]), a.get("block", [0, 0, 0]),
                                    e.get("dur", 0), every)
                else:
                    out[keys[i]] = prev[:4] + (every,)
                break
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("shapes", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget-s", type=float, default=100)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    keys = interleave(shapes(a.shapes), a.seed)
    dev = torch.cuda.get_device_name()
    start = time.time()
    deadline = start + a.budget_s * 0.75  # the rest for the profiled passes
    done = []
    for k in keys:
        if time.time() > deadline:
            break
        try:
            done.append((k, time_call(make_call(k))))
        except torch.cuda.OutOfMemoryError:
            torch.cuda.empty_cache()
        if len(done) % 64 == 0:
            torch.cuda.empty_cache()
    names = kernel_names([k for k, _ in done], start + a.budget_s) if done else {}
    os.makedirs(a.out, exist_ok=True)
    files = {}
    for k, ms in done:
        kind = "gemm" if k[0] in GEMM else "conv" if k[0] == "conv" else "vec"
        if kind not in files:
            f = open(os.path.join(a.out, kind + ".csv"), "w", newline="")
            files[kind] = (f, csv.writer(f))
            files[kind][1].writerow(HEADER + {"gemm": ["B", "M", "N", "K"], "vec": ["B", "H"],
                                               "conv": CONV_DIMS}[kind])
        n = names.get(k)
        kname, grid, block, nk = (n[0], n[1], n[2], len(n[4])) if n else ("", [0, 0, 0], [0, 0, 0], "")
        if kind == "conv":  # NeuSight's layout: every kernel's name, each after a ';'
            nk = "".join(";" + x for x in n[4]) if n else ""
        files[kind][1].writerow([k[0], "%.6f" % ms, dev, "p" + torch.__version__,
                                 torch.backends.cudnn.version(), kname, grid[0], grid[1], grid[2],
                                 block[0], block[1], block[2],
                                 "cu" + (torch.version.cuda or "").replace(".", ""), nk] + list(k[1:]))
    for f, _ in files.values():
        f.close()
    print("gpu_sweep: %d of %d shapes timed on %s, %d named -> %s" %
          (len(done), len(keys), dev, len(names), a.out))


if __name__ == "__main__":
    sys.exit(main())
