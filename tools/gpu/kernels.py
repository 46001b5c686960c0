"""Time the operators of today's models on this GPU (tools/gpu/measure.sh).

    python3 tools/gpu/kernels.py --out DIR [--budget-s S] [--suites a,b,...]

Suites, each given a share of the budget (what its deadline leaves out is
not measured, and the log says how much):
  gemm      torch.matmul in BF16, FP16, TF32 (FP32 inputs, TF32 allowed) and
            FP8 (torch._scaled_mm, E4M3 inputs, BF16 output, on compute
            capability 8.9 and later) over a shape sweep: square sizes and
            the projections of 7-8B models at token counts 1 to 16384.
  sdpa      scaled_dot_product_attention forced to the flash backend, BF16,
            causal, forward and forward + backward.
  decode    decode attention: one query token against a KV cache, BF16,
            grouped-query (enable_gqa) over heads, head dims, contexts.
  vec       BF16 element-wise and normalization operators over (B, H).
  model     decode steps of Llama-3-8B- and Qwen2.5-7B-shaped models (random
            weights built from the published shapes, nothing downloaded) at
            batch 1-64 and context 512-8192: every layer's RMSNorm, QKV,
            attention over the cache, O, gated MLP, and the LM head.
Each is timed with CUDA events after 3 warm-ups.  The kernel suites (gemm,
sdpa, decode, vec) time the GPU's work alone ("queued" in the timing
column): a spin kernel (torch.cuda._sleep) holds the GPU while enough calls
for about 2 ms are queued behind it, and the events around those calls time
them back to back, so PyTorch's dispatch on the host (23-45 us a call, more
than a small kernel takes) is not in the time; the median per call of 5
such runs.  Without torch.cuda._sleep they are timed back to back without
it ("loop": the dispatch hides behind kernels longer than it).  The model
suite times whole eager steps, host included ("alone": the median of 20
calls, each alone between two events, 10 for calls of more than 5 ms), as
surfer-analyze --mode decode models them.  Writes DIR/<suite>.csv, one row
per measurement with its timing, the Device, Driver, CUDA Version and Torch
Version, and DIR/meta.json with those and the command.  Rows that do not
fit in memory are skipped and counted.
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

SUITES = ("gemm", "sdpa", "decode", "vec", "model")
SHARE = {"gemm": 0.3, "sdpa": 0.15, "decode": 0.1, "vec": 0.1, "model": 0.35}
# (hidden, intermediate, layers, heads, kv heads, vocab): the published configs
MODELS = {"llama3-8b": (4096, 14336, 32, 32, 8, 128256), "qwen2.5-7b": (3584, 18944, 28, 28, 4, 152064)}


def time_ms(fn):
    """Median ms of fn() by CUDA events, each call alone between two events
    (the host's dispatch included), after warm-ups."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    n = 20
    i = 0
    while i < n:
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        torch.cuda.synchronize()
        times.append(a.elapsed_time(b))
        if i == 0 and times[0] > 5:
            n = 10
        i += 1
    return statistics.median(times)


_spin = {}


def spin_cycles_per_ms():
    """GPU clock cycles torch.cuda._sleep spins per ms, timed once."""
    if "c" not in _spin:
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(1000)
        a.record()
        torch.cuda._sleep(2000000)
        b.record()
        torch.cuda.synchronize()
        _spin["c"] = 2000000 / max(a.elapsed_time(b), 1e-3)
    return _spin["c"]


def time_queued_ms(fn):
    """Median GPU ms per call of fn() with the host's dispatch hidden, and how
    it was timed: "queued" (calls queued behind a spin kernel, timed back to
    back), else "loop" (no torch.cuda._sleep: back to back only)."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    fn()
    b.record()
    torch.cuda.synchronize()
    alone = a.elapsed_time(b)  # the kernel and the host's dispatch: at least either
    reps = max(1, min(200, int(2.0 / max(alone, 1e-3)) + 1))
    spin = hasattr(torch.cuda, "_sleep")
    times = []
    for _ in range(5):
        for attempt in range(3):
            # the spin is to outlast queueing the calls (each takes the host
            # at most `alone`); the events follow it in the stream
            spin_ms = (1.5 * reps * alone + 0.1) * 2 ** attempt
            if spin:
                torch.cuda._sleep(int(spin_cycles_per_ms() * spin_ms))
            t0 = time.perf_counter()
            a.record()
            for _ in range(reps):
                fn()
            b.record()
            queued_ms = (time.perf_counter() - t0) * 1e3
            torch.cuda.synchronize()
            ms = a.elapsed_time(b)
            # all queued before the spin ended: the calls ran back to back;
            # else spin longer
            if not spin or queued_ms < spin_ms:
                break
        times.append(ms / reps)
    return statistics.median(times), "queued" if spin else "loop"


def gemm_cases():
    sq = [256, 512, 1024, 2048, 4096, 8192]
    shapes = [(s, s, s) for s in sq]
    for hidden, inter, _, heads, kv, _ in MODELS.values():
        hd = hidden // heads
        for m in (1, 16, 64, 256, 1024, 4096, 16384):
            shapes += [(m, (heads + 2 * kv) * hd, hidden), (m, hidden, hidden),
                       (m, 2 * inter, hidden), (m, hidden, inter)]
    fp8 = torch.cuda.get_device_capability() >= (8, 9) and hasattr(torch, "_scaled_mm")
    for m, n, k in shapes:
        # _scaled_mm takes dimensions that are multiples of 16 only
        for dt in ("bf16", "fp16", "tf32") + (("fp8",) if fp8 and m % 16 == 0 else ()):
            yield {"dtype": dt, "m": m, "n": n, "k": k}, gemm_call(dt, m, n, k)


def gemm_call(dt, m, n, k):
    def make():
        if dt == "fp8":
            a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
            # _scaled_mm wants B column-major: the transpose of a row-major (n, k)
            b = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn).t()
            one = torch.ones((), device="cuda")
            return lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
        t = {"bf16": torch.bfloat16, "fp16": torch.float16, "tf32": torch.float32}[dt]
        a, b = torch.randn(m, k, device="cuda", dtype=t), torch.randn(k, n, device="cuda", dtype=t)
        # FP32 inputs run on the tensor cores only with TF32 allowed, which
        # PyTorch's default (since 1.12) is not: without this line the
        # "tf32" rows were SIMT FP32 GEMMs (an H200's 8192^3 in 21.9 ms, 50
        # TFLOP/s: data/README.md).  Set as each case is built: the cases
        # run one after the other, and only these read the flag.
        torch.backends.cuda.matmul.allow_tf32 = dt == "tf32"
        return lambda: torch.matmul(a, b)
    return make


def sdpa_cases():
    from torch.nn.attention import SDPBackend, sdpa_kernel
    for d in (64, 128):
        for s in (512, 1024, 2048, 4096, 8192):
            for b, h in ((1, 32), (4, 32), (8, 16)):
                for bwd in (False, True):
                    yield ({"batch": b, "heads": h, "seq": s, "head_dim": d, "pass": "fwd+bwd" if bwd else "fwd"},
                           sdpa_call(b, h, s, d, bwd, sdpa_kernel, SDPBackend.FLASH_ATTENTION))


def sdpa_call(b, h, s, d, bwd, sdpa_kernel, backend):
    def make():
        q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=bwd)
                   for _ in range(3))
        g = torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16)

        def run():
            with sdpa_kernel(backend):
                o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                if bwd:
                    o.backward(g)
        return run
    return make


def decode_cases():
    for d in (64, 128):
        for h, kv in ((32, 8), (28, 4), (32, 32)):
            for ctx in (512, 2048, 8192):
                for b in (1, 8, 32, 64):
                    yield ({"batch": b, "heads": h, "kv_heads": kv, "head_dim": d, "context": ctx},
                           decode_call(b, h, kv, d, ctx))


def decode_call(b, h, kv, d, ctx):
    def make():
        q = torch.randn(b, h, 1, d, device="cuda", dtype=torch.bfloat16)
        k, v = (torch.randn(b, kv, ctx, d, device="cuda", dtype=torch.bfloat16) for _ in range(2))
        return lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=kv != h)
    return make


def vec_cases():
    ops = {"add": lambda x, y: x + y, "mul": lambda x, y: x * y, "gelu": lambda x, y: F.gelu(x),
           "silu": lambda x, y: F.silu(x), "softmax": lambda x, y: torch.softmax(x, -1),
           "layer_norm": lambda x, y: F.layer_norm(x, x.shape[-1:]),
           "rms_norm": lambda x, y: F.rms_norm(x, x.shape[-1:])}
    for rows in (1, 64, 1024, 8192, 32768):
        for hdim in (1024, 4096, 14336):
            for name, op in ops.items():
                yield {"op": name, "rows": rows, "hidden": hdim}, vec_call(op, rows, hdim)


def vec_call(op, rows, hdim):
    def make():
        x, y = (torch.randn(rows, hdim, device="cuda", dtype=torch.bfloat16) for _ in range(2))
        return lambda: op(x, y)
    return make


def model_cases():
    for name, shape in MODELS.items():
        for b in (1, 8, 32, 64):
            for ctx in (512, 2048, 8192):
                yield {"model": name, "batch": b, "context": ctx}, model_call(shape, b, ctx)


_weights = {}


def model_call(shape, b, ctx):
    """A decode step of the whole model: weights kept across cases of one
    model, the KV cache of `ctx` tokens built per case."""
    hidden, inter, layers, heads, kv, vocab = shape

    def make():
        if _weights.get("shape") != shape:
            _weights.clear()
            torch.cuda.empty_cache()
            w = lambda *s: torch.randn(*s, device="cuda", dtype=torch.bfloat16) * 0.02
            hd = hidden // heads
            _weights.update(shape=shape, layers=[dict(qkv=w(hidden, (heads + 2 * kv) * hd), o=w(hidden, hidden),
                                                      up=w(hidden, 2 * inter), down=w(inter, hidden))
                                                 for _ in range(layers)], head=w(hidden, vocab))
        hd = hidden // heads
        cache = [(torch.randn(b, kv, ctx, hd, device="cuda", dtype=torch.bfloat16),
                  torch.randn(b, kv, ctx, hd, device="cuda", dtype=torch.bfloat16)) for _ in range(layers)]
        x = torch.randn(b, 1, hidden, device="cuda", dtype=torch.bfloat16)

        def step():
            with torch.no_grad():
                h = x
                for p, (ck, cv) in zip(_weights["layers"], cache):
                    q, _, _ = (F.rms_norm(h, (hidden,)) @ p["qkv"]).split([heads * hd, kv * hd, kv * hd], -1)
                    q = q.view(b, 1, heads, hd).transpose(1, 2)
                    a = F.scaled_dot_product_attention(q, ck, cv, enable_gqa=True)
                    h = h + a.transpose(1, 2).reshape(b, 1, hidden) @ p["o"]
                    g, u = (F.rms_norm(h, (hidden,)) @ p["up"]).chunk(2, -1)
                    h = h + (F.silu(g) * u) @ p["down"]
                return F.rms_norm(h, (hidden,)) @ _weights["head"]
        return step
    return make


def versions(argv):
    try:
        drv = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader", "-i", "0"],
                             capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        drv = ""
    return {"Device": torch.cuda.get_device_name(), "Driver": drv, "CUDA Version": torch.version.cuda or "",
            "Torch Version": torch.__version__}


def run_suite(name, cases, out, meta, deadline):
    """Times cases until the deadline; returns (timed, out of memory, left,
    failed).  A case the installed PyTorch refuses (an operator or argument
    it lacks) is counted and its first message printed, never fatal."""
    rows, oom, left, failed = [], 0, 0, 0
    for params, make in cases:
        if time.time() > deadline:
            left += 1
            continue
        try:
            if name == "model":
                ms, how = time_ms(make()), "alone"
            else:
                ms, how = time_queued_ms(make())
        except torch.cuda.OutOfMemoryError:
            oom += 1
            torch.cuda.empty_cache()
            continue
        except Exception as e:  # one case's failure must not lose the others
            if not failed:
                print("kernels %s: %s failed: %s: %s" % (name, params, type(e).__name__,
                                                         (str(e).splitlines() or [""])[0]), flush=True)
            failed += 1
            continue
        rows.append(dict(params, latency_ms="%.6f" % ms, timing=how))
    if rows:
        with open(os.path.join(out, name + ".csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]) + list(meta))
            w.writeheader()
            for r in rows:
                w.writerow(dict(r, **meta))
    return len(rows), oom, left, failed


def main(argv):
    ap = argparse.ArgumentParser(prog="kernels.py")
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget-s", type=float, default=180)
    ap.add_argument("--suites", default=",".join(SUITES))
    a = ap.parse_args(argv[1:])
    suites = a.suites.split(",")
    bad = [s for s in suites if s not in SUITES]
    if bad:
        sys.stderr.write("kernels.py: no suite '%s' (have %s)\n" % (bad[0], ",".join(SUITES)))
        return 2
    os.makedirs(a.out, exist_ok=True)
    meta = versions(argv)
    json.dump(dict(meta, command=" ".join(argv), budget_s=a.budget_s, suites=suites),
              open(os.path.join(a.out, "meta.json"), "w"), indent=1)
    torch.manual_seed(0)
    start = time.time()
    total = sum(SHARE[s] for s in suites)
    used = 0.0
    for s in suites:
        # each suite ends at its share of the budget, counted from the start,
        # so time one leaves unused passes to the next
        used += SHARE[s] / total
        n, oom, left, failed = run_suite(s, globals()[s + "_cases"](), a.out, meta, start + a.budget_s * used)
        print("kernels %s: %d timed, %d out of memory, %d left by the deadline, %d failed"
              % (s, n, oom, left, failed), flush=True)
        _weights.clear()
        torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
