"""Workloads for the checks on a real GPU (tools/gpu/check.sh).

    python3 tools/gpu/workload.py gemm|gpt2|decode OUT.json [--windows N]

Each runs a PyTorch program, times its steps with CUDA events after a
warm-up and writes what it measured to OUT.json.  With --windows N the
last N timed steps are each wrapped in a profiler window (cudaProfilerStart
/ Stop), which is what SURFER_SKIP / SURFER_ITERATIONS count, so a trace
recorded with LD_PRELOAD=libsurfer.so holds exactly those steps.

gemm: FP32 (TF32 off) GEMMs of a few shapes, one step = all of them once.
gpt2: a Hugging Face GPT-2 (124M) training step, eager attention, FP32
      without TF32, forward + LM loss + backward, no optimizer step;
      the config is written beside OUT.json for surfer-analyze --model.
decode: a Llama-style model's generation step in BF16 after CONTEXT cached
      tokens (DynamicCache), the config written beside OUT.json likewise.
"""
import json
import os
import statistics
import sys

import torch

WARMUP = 3
STEPS = 10


def timed(step, windows):
    """Median ms of STEPS calls of step() after WARMUP; the last `windows`
    are profiler windows."""
    for _ in range(WARMUP):
        step()
    torch.cuda.synchronize()
    times = []
    for i in range(STEPS):
        window = i >= STEPS - windows
        if window:
            torch.cuda.profiler.start()
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        step()
        b.record()
        torch.cuda.synchronize()
        if window:
            torch.cuda.profiler.stop()
        times.append(a.elapsed_time(b))
    return statistics.median(times), times


def gemm(windows):
    torch.backends.cuda.matmul.allow_tf32 = False
    shapes = [(4096, 4096, 4096), (8192, 1024, 4096), (2048, 50272, 768), (512, 768, 768)]
    ops = [(torch.randn(m, k, device="cuda"), torch.randn(k, n, device="cuda"))
           for m, n, k in shapes]
    each = {}
    for (m, n, k), (x, y) in zip(shapes, ops):
        each["%dx%dx%d" % (m, n, k)], _ = timed(lambda: torch.mm(x, y), 0)
    ms, times = timed(lambda: [torch.mm(x, y) for x, y in ops], windows)
    return {"step_ms": ms, "steps_ms": times, "gemm_ms": each}


def gpt2(windows, out):
    from transformers import AutoModelForCausalLM, GPT2Config
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    cfg = GPT2Config()
    cfg.to_json_file(out + ".config.json")
    model = AutoModelForCausalLM.from_config(cfg, attn_implementation="eager").cuda().train()
    batch, seq = 8, 512
    ids = torch.randint(0, cfg.vocab_size, (batch, seq), device="cuda")

    def step():
        model.zero_grad(set_to_none=True)
        model(ids, labels=ids).loss.backward()

    ms, times = timed(step, windows)
    return {"step_ms": ms, "steps_ms": times, "batch": batch, "seq": seq,
            "mode": "training", "dtype": "fp32"}


def decode(windows, out):
    from transformers import AutoModelForCausalLM, LlamaConfig
    cfg = LlamaConfig(hidden_size=2048, intermediate_size=5632, num_hidden_layers=16,
                      num_attention_heads=32, num_key_value_heads=8, vocab_size=32000)
    cfg.to_json_file(out + ".config.json")
    model = AutoModelForCausalLM.from_config(cfg, attn_implementation="eager")
    model = model.to("cuda", torch.bfloat16).eval()
    batch, context = 16, 2048
    ids = torch.randint(0, cfg.vocab_size, (batch, context), device="cuda")
    nxt = torch.randint(0, cfg.vocab_size, (batch, 1), device="cuda")
    with torch.no_grad():
        cache = model(ids, use_cache=True).past_key_values
        # each step appends a token: the cache goes from `context` to
        # context + WARMUP + STEPS, the median step sees ~context + 8
        ms, times = timed(lambda: model(nxt, past_key_values=cache, use_cache=True), windows)
    return {"step_ms": ms, "steps_ms": times, "batch": batch,
            "seq": context + WARMUP + STEPS // 2, "mode": "decode", "dtype": "bf16"}


def main(argv):
    if len(argv) < 3 or argv[1] not in ("gemm", "gpt2", "decode"):
        sys.stderr.write("usage: gpu_workload.py gemm|gpt2|decode OUT.json [--windows N]\n")
        return 2
    windows = int(argv[4]) if len(argv) > 4 and argv[3] == "--windows" else 0
    what, out = argv[1], argv[2]
    res = gemm(windows) if what == "gemm" else gpt2(windows, out) if what == "gpt2" \
        else decode(windows, out)
    res["device"] = torch.cuda.get_device_name()
    res["torch"] = torch.__version__
    with open(out, "w") as f:
        json.dump(res, f, indent=1)
    print("%s: %.3f ms per step on %s" % (what, res["step_ms"], res["device"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
