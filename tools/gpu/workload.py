"""Workloads for the checks on a real GPU (tools/gpu/check.sh).

    python3 tools/gpu/workload.py WORKLOAD OUT.json [--windows N] [--profile TRACE.json]

Each runs a PyTorch program, times its steps with CUDA events after a
warm-up and writes what it measured to OUT.json (step times, the GPU,
driver, CUDA, cuDNN and PyTorch versions).  With --windows N the last N
timed steps are each wrapped in a profiler window (cudaProfilerStart /
Stop), which is what SURFER_SKIP / SURFER_ITERATIONS count, so a trace
recorded with LD_PRELOAD=libsurfer.so holds exactly those steps.  With
--profile as well, the same N steps run under torch.profiler instead,
each a ProfilerStep#i range (what surfer-import takes as iterations), and
its Chrome trace goes to TRACE.json.  The two cannot share a process:
CUPTI's activity API has one subscriber per process, and the recorder
falls back to CUDA events when torch.profiler holds it.  Every workload
seeds its random numbers, so two runs launch the same kernels.

gemm       FP32 (TF32 off) GEMMs of a few shapes, one step = all of them once.
gpt2       a Hugging Face GPT-2 (124M) training step, eager attention, FP32
           without TF32, forward + LM loss + backward, no optimizer step;
           the config is written beside OUT.json for surfer-analyze --model.
gpt2-bf16  the same step under BF16 autocast with SDPA attention.
decode     a Llama-style model's generation step in BF16 after CONTEXT cached
           tokens (DynamicCache), the config written beside OUT.json likewise.
resnet50   a torchvision ResNet-50 training step in FP32 (TF32 off), batch 64
           at 224x224: cuDNN convolutions forward, data and weight gradient.
compiled   a torch.compile'd training step of an MLP block stack (Triton
           kernels for the fused element-wise work and norms, cuBLAS GEMMs).
graph      a Llama-style BF16 decode step (hand-written layers, KV cache of
           fixed length) captured once in a CUDA graph; a step is a replay.
bert-pad   a Hugging Face BERT-base training step with SDPA attention in FP32
           (TF32 off) over a padded batch (the attention mask a float bias):
           PyTorch's memory-efficient attention backend, which surfer-import
           reads from the profile (not in check.sh's default list).
opt-bf16   a Hugging Face OPT-1.3B-shaped model (random weights, nothing
           downloaded) in BF16 with SDPA attention, one forward over 2 x 2048
           tokens: NeuSight's opt_13-inf-2048-2 as our H100 measured it in
           BF16 (predicted 23 % slow there, docs/accuracy.md); its profile
           against --model, operator class by operator class, says where.
gpt3-bf16  the same with GPT-3 2.7B's shape (GPT-2 modules; predicted within
           3 % there): the twin that does not miss.  Neither is in check.sh's
           default list.
switch     a Hugging Face Switch Transformer of NeuSight's switchxl4 shape
           (random weights) in FP32 (TF32 off) with eager attention, one
           forward over 1 x 2048 tokens, decoder input as long:
           NeuSight's switchxl4-inf-2048-1 as our H100 measured it, 650 ms
           against 487 predicted (docs/accuracy.md), the gap growing as
           batch x s^2 where the A100's runs are within 6 %; its profile
           against --model says which kernels.  Not in the default list.
"""
import json
import os
import statistics
import subprocess
import sys

import torch

WARMUP = 3
STEPS = 10
WORKLOADS = ("gemm", "gpt2", "gpt2-bf16", "decode", "resnet50", "compiled", "graph", "bert-pad",
             "opt-bf16", "gpt3-bf16", "switch")


def timed(step, windows, profile=None):
    """Median ms of STEPS calls of step() after WARMUP, and all of them; the
    last `windows` are profiler windows, or torch.profiler steps written to
    the path `profile`."""
    for _ in range(WARMUP):
        step()
    torch.cuda.synchronize()
    times = []
    prof = None
    first = STEPS - windows
    for i in range(STEPS):
        window = i >= first
        rng = None
        if window and profile:
            if prof is None:
                prof = torch.profiler.profile(
                    activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA],
                    record_shapes=True)
                prof.__enter__()
            rng = torch.profiler.record_function("ProfilerStep#%d" % (i - first))
            rng.__enter__()
        elif window:
            torch.cuda.profiler.start()
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        step()
        b.record()
        torch.cuda.synchronize()
        if rng is not None:
            rng.__exit__(None, None, None)
        elif window:
            torch.cuda.profiler.stop()
        times.append(a.elapsed_time(b))
    if prof is not None:
        prof.__exit__(None, None, None)
        prof.export_chrome_trace(profile)
    return statistics.median(times), times


def no_tf32():
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False


def gemm(windows, out, profile):
    no_tf32()
    shapes = [(4096, 4096, 4096), (8192, 1024, 4096), (2048, 50272, 768), (512, 768, 768)]
    ops = [(torch.randn(m, k, device="cuda"), torch.randn(k, n, device="cuda"))
           for m, n, k in shapes]
    each = {}
    if not windows:
        for (m, n, k), (x, y) in zip(shapes, ops):
            each["%dx%dx%d" % (m, n, k)], _ = timed(lambda: torch.mm(x, y), 0)
    ms, times = timed(lambda: [torch.mm(x, y) for x, y in ops], windows, profile)
    return {"step_ms": ms, "steps_ms": times, "gemm_ms": each}


def gpt2(windows, out, profile, bf16=False):
    from transformers import AutoModelForCausalLM, GPT2Config
    no_tf32()
    cfg = GPT2Config()
    cfg.to_json_file(out + ".config.json")
    model = AutoModelForCausalLM.from_config(cfg, attn_implementation="sdpa" if bf16 else "eager")
    model = model.cuda().train()
    batch, seq = 8, 512
    ids = torch.randint(0, cfg.vocab_size, (batch, seq), device="cuda")

    def step():
        model.zero_grad(set_to_none=True)
        if bf16:
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = model(ids, labels=ids).loss
        else:
            loss = model(ids, labels=ids).loss
        loss.backward()

    ms, times = timed(step, windows, profile)
    # what surfer-analyze --model takes to describe this step
    flags = ["--attention", "sdpa", "--precision", "autocast"] if bf16 else ["--attention", "eager"]
    return {"step_ms": ms, "steps_ms": times, "batch": batch, "seq": seq,
            "mode": "training", "dtype": "bf16" if bf16 else "fp32", "model_flags": flags}


def decode(windows, out, profile):
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
        ms, times = timed(lambda: model(nxt, past_key_values=cache, use_cache=True), windows, profile)
    return {"step_ms": ms, "steps_ms": times, "batch": batch,
            "seq": context + WARMUP + STEPS // 2, "mode": "decode", "dtype": "bf16"}


def bert_pad(windows, out, profile):
    from transformers import BertConfig, BertForMaskedLM
    no_tf32()
    cfg = BertConfig()
    model = BertForMaskedLM._from_config(cfg, attn_implementation="sdpa").cuda().train()
    batch, seq = 8, 512
    ids = torch.randint(0, cfg.vocab_size, (batch, seq), device="cuda")
    # half the sequences padded to a quarter of their length: a mask that
    # is not all ones, so SDPA gets a float attn_mask (the efficient backend)
    mask = torch.ones(batch, seq, dtype=torch.long, device="cuda")
    mask[batch // 2:, seq // 4:] = 0

    def step():
        model.zero_grad(set_to_none=True)
        model(input_ids=ids, attention_mask=mask, labels=ids).loss.backward()

    ms, times = timed(step, windows, profile)
    return {"step_ms": ms, "steps_ms": times, "batch": batch, "seq": seq, "mode": "training",
            "dtype": "fp32"}


def hf_bf16(windows, out, profile, kind):
    """One BF16 forward with SDPA of an OPT-1.3B- or GPT-3 2.7B-shaped
    Hugging Face model over 2 sequences of 2048 tokens (NeuSight's shapes,
    its model_configs/opt_13.json and gpt3_27.json)."""
    from transformers import AutoModelForCausalLM, GPT2Config, OPTConfig
    if kind == "opt":
        cfg = OPTConfig(hidden_size=2048, ffn_dim=8192, num_hidden_layers=24, num_attention_heads=32,
                        vocab_size=50272, max_position_embeddings=2048, word_embed_proj_dim=2048)
    else:
        cfg = GPT2Config(n_embd=2560, n_head=32, n_layer=32, n_positions=2048, vocab_size=50257,
                         activation_function="gelu_new")
    cfg.to_json_file(out + ".config.json")
    model = AutoModelForCausalLM.from_config(cfg, attn_implementation="sdpa")
    model = model.to("cuda", torch.bfloat16).eval()
    batch, seq = 2, 2048
    ids = torch.randint(0, cfg.vocab_size, (batch, seq), device="cuda")

    def step():
        with torch.no_grad():
            model(ids)

    ms, times = timed(step, windows, profile)
    return {"step_ms": ms, "steps_ms": times, "batch": batch, "seq": seq, "mode": "inference",
            "dtype": "bf16", "model_flags": ["--attention", "sdpa"]}


def switch(windows, out, profile):
    """One FP32 forward of NeuSight's switchxl4 (model_configs/switchxl4.json,
    its fields written out here: the shared data is not on a lent GPU)."""
    from transformers import SwitchTransformersConfig, SwitchTransformersForConditionalGeneration
    no_tf32()
    cfg = SwitchTransformersConfig(
        d_model=1024, d_ff=16384, d_kv=128, num_heads=32, num_layers=24, num_decoder_layers=24,
        num_sparse_encoder_layers=12, num_sparse_decoder_layers=12, encoder_sparse_step=2,
        decoder_sparse_step=2, num_experts=4, expert_capacity=64, vocab_size=32128,
        relative_attention_num_buckets=32, relative_attention_max_distance=128,
        feed_forward_proj="relu", dense_act_fn="relu", router_jitter_noise=0.01, use_cache=False)
    cfg.to_json_file(out + ".config.json")
    with torch.device("cuda"):
        model = SwitchTransformersForConditionalGeneration._from_config(cfg, attn_implementation="eager")
    model = model.float().eval()
    batch, seq = 1, 2048
    ids = torch.randint(0, cfg.vocab_size, (batch, seq), device="cuda")
    dec = torch.randint(0, cfg.vocab_size, (batch, seq), device="cuda")

    def step():
        with torch.no_grad():
            model(input_ids=ids, decoder_input_ids=dec)

    ms, times = timed(step, windows, profile)
    return {"step_ms": ms, "steps_ms": times, "batch": batch, "seq": seq, "mode": "inference",
            "dtype": "fp32", "model_flags": ["--attention", "eager"]}


def resnet50(windows, out, profile):
    import torchvision
    no_tf32()
    # cuDNN's heuristics pick the same algorithms in every process; timing
    # them (cudnn.benchmark) does not: on an H200 the recorded run took FFT
    # and implicit-GEMM kernels where the profiled one took others, and the
    # two runs' kernels could not be compared
    torch.backends.cudnn.benchmark = False
    model = torchvision.models.resnet50(weights=None).cuda().train()
    batch = 64
    x = torch.randn(batch, 3, 224, 224, device="cuda")
    y = torch.randint(0, 1000, (batch,), device="cuda")
    loss_fn = torch.nn.CrossEntropyLoss()

    def step():
        model.zero_grad(set_to_none=True)
        loss_fn(model(x), y).backward()

    ms, times = timed(step, windows, profile)
    return {"step_ms": ms, "steps_ms": times, "batch": batch, "mode": "training", "dtype": "fp32"}


def compiled(windows, out, profile):
    no_tf32()
    width, depth, tokens = 2048, 6, 8192
    layers = []
    for _ in range(depth):
        layers += [torch.nn.LayerNorm(width), torch.nn.Linear(width, 4 * width), torch.nn.GELU(),
                   torch.nn.Linear(4 * width, width)]
    model = torch.nn.Sequential(*layers).cuda().train()
    fn = torch.compile(model)
    x = torch.randn(tokens, width, device="cuda")

    def step():
        model.zero_grad(set_to_none=True)
        fn(x).float().pow(2).mean().backward()

    ms, times = timed(step, windows, profile)
    return {"step_ms": ms, "steps_ms": times, "batch": tokens, "mode": "training", "dtype": "fp32"}


def graph(windows, out, profile):
    """A decode step of hand-written Llama-style layers, captured once."""
    F = torch.nn.functional
    dt = torch.bfloat16
    hidden, inter, layers, heads, kv_heads, context, batch = 2048, 5632, 16, 32, 8, 2048, 16
    hd = hidden // heads

    def w(*shape):
        return torch.randn(*shape, device="cuda", dtype=dt) * 0.02

    ws = [dict(qkv=w(hidden, (heads + 2 * kv_heads) * hd), o=w(hidden, hidden),
               up=w(hidden, 2 * inter), down=w(inter, hidden),
               k=w(batch, kv_heads, context, hd), v=w(batch, kv_heads, context, hd))
          for _ in range(layers)]
    x = torch.randn(batch, 1, hidden, device="cuda", dtype=dt)

    def rms(t):
        return t * torch.rsqrt(t.float().pow(2).mean(-1, keepdim=True) + 1e-6).to(dt)

    def body():
        h = x
        for p in ws:
            q, k, v = (rms(h) @ p["qkv"]).split([heads * hd, kv_heads * hd, kv_heads * hd], -1)
            q = q.view(batch, 1, heads, hd).transpose(1, 2)
            k = torch.cat([p["k"], k.view(batch, 1, kv_heads, hd).transpose(1, 2)], 2)
            v = torch.cat([p["v"], v.view(batch, 1, kv_heads, hd).transpose(1, 2)], 2)
            rep = heads // kv_heads
            a = F.scaled_dot_product_attention(q, k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1))
            h = h + a.transpose(1, 2).reshape(batch, 1, hidden) @ p["o"]
            g, u = (rms(h) @ p["up"]).chunk(2, -1)
            h = h + (F.silu(g) * u) @ p["down"]
        return h

    with torch.no_grad():
        # warm-up on a side stream before capture, as CUDA graphs require
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(2):
                body()
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            body()
        ms, times = timed(g.replay, windows, profile)
    return {"step_ms": ms, "steps_ms": times, "batch": batch, "seq": context + 1,
            "mode": "decode", "dtype": "bf16"}


def versions():
    """The GPU, driver, CUDA, cuDNN and PyTorch versions of this run."""
    v = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
         "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version()}
    try:
        v["driver"] = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader",
                                      "-i", "0"], capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        v["driver"] = None
    return v


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(prog="workload.py")
    ap.add_argument("workload", choices=WORKLOADS)
    ap.add_argument("out")
    ap.add_argument("--windows", type=int, default=0)
    ap.add_argument("--profile")
    try:
        a = ap.parse_args(argv[1:])
    except SystemExit:
        return 2
    if a.profile and not a.windows:
        sys.stderr.write("workload.py: --profile needs --windows N\n")
        return 2
    torch.manual_seed(0)
    run = {"gemm": gemm, "gpt2": gpt2, "gpt2-bf16": lambda w, o, p: gpt2(w, o, p, bf16=True),
           "decode": decode, "resnet50": resnet50, "compiled": compiled, "graph": graph,
           "bert-pad": bert_pad, "opt-bf16": lambda w, o, p: hf_bf16(w, o, p, "opt"),
           "gpt3-bf16": lambda w, o, p: hf_bf16(w, o, p, "gpt3"), "switch": switch}[a.workload]
    res = run(a.windows, a.out, a.profile)
    res["workload"] = a.workload
    res["windows"] = a.windows
    res["command"] = " ".join(argv)
    res.update(versions())
    with open(a.out, "w") as f:
        json.dump(res, f, indent=1)
    print("%s: %.3f ms per step on %s" % (a.workload, res["step_ms"], res["device"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
