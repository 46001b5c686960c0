"""Measure whole iterations the way NeuSight's labels were measured.

    python3 tools/gpu/e2e.py --configs DIR --out DIR [--budget-s S] [--bf16-sdpa] SPEC...

SPEC is <model>-<inf|train>-<seq>-<batch> with DIR/<model>.json a Hugging
Face config.  Each is built on the GPU in FP32 with TF32 off and eager
attention (with --bf16-sdpa: in BF16 with SDPA attention): BERT inference as BertForSequenceClassification, BERT training
as BertForPreTraining, GPT-2 / GPT-3 / OPT with their LM head, Switch as
SwitchTransformersForConditionalGeneration (decoder input as long as the
encoder's).  Inference is a forward pass under no_grad in eval mode;
training a forward and a backward pass from every output of the heads (no
loss, no optimizer step) in train mode.  One warm-up, then the median of
the timed steps (CUDA events).  Writes OUT/SPEC.json with e2e_latency,
fw_latency and bwall_latency in ms and peak_allocated_gib (the most the
caching allocator held in tensors, torch.cuda.max_memory_allocated), which
`surfer-bench e2e --labels` reads.  Specs left when the budget runs out are skipped, not guessed.
"""
import argparse
import json
import os
import statistics
import sys
import time

import torch

MAX_TIMED = 5   # timed steps after the warm-up
LONG_S = 8      # past this, three timed steps are enough


def build(cfg_path, spec_mode, bf16=False):
    import transformers as tf
    raw = json.load(open(cfg_path))
    mtype = raw["model_type"]
    raw.pop("architectures", None)
    cfg = tf.AutoConfig.for_model(**raw)
    cfg.use_cache = False
    if mtype == "bert":
        cls = tf.AutoModelForSequenceClassification if spec_mode == "inf" else tf.AutoModelForPreTraining
    elif mtype == "switch_transformers":
        cls = tf.AutoModelForSeq2SeqLM
    else:
        cls = tf.AutoModelForCausalLM
    with torch.device("cuda"):
        model = cls.from_config(cfg, attn_implementation="sdpa" if bf16 else "eager")
    layers = raw.get("num_hidden_layers") or raw.get("n_layer") or raw.get("num_layers")
    return (model.to(torch.bfloat16) if bf16 else model.float()), cfg, mtype, layers


def outputs_of(out):
    """The float tensors a model returns that carry a gradient."""
    vals = out.values() if hasattr(out, "values") else out
    return [t for t in vals if torch.is_tensor(t) and t.is_floating_point() and t.requires_grad]


def measure(spec, cfg_dir, deadline, bf16=False):
    model_name, mode, seq, batch = spec.rsplit("-", 3)
    seq, batch = int(seq), int(batch)
    model, cfg, mtype, layers = build(os.path.join(cfg_dir, model_name + ".json"), mode, bf16)
    vocab = cfg.vocab_size
    ids = torch.randint(0, vocab, (batch, seq), device="cuda")
    kw = {"input_ids": ids}
    if mtype == "switch_transformers":
        kw["decoder_input_ids"] = torch.randint(0, vocab, (batch, seq), device="cuda")
    fw_ms, bw_ms, tot_ms = [], [], []
    if mode == "inf":
        model.eval()
    else:
        model.train()
    torch.cuda.reset_peak_memory_stats()  # from here: the weights and every step
    step = 0
    t0 = time.time()
    while True:
        a, b, c = (torch.cuda.Event(enable_timing=True) for _ in range(3))
        if mode == "inf":
            with torch.no_grad():
                a.record()
                model(**kw)
                b.record()
                c = b
        else:
            model.zero_grad(set_to_none=True)
            a.record()
            outs = outputs_of(model(**kw))
            b.record()
            torch.autograd.backward(outs, [torch.ones_like(t) for t in outs])
            c.record()
            del outs
        torch.cuda.synchronize()
        if step > 0:  # the first is the warm-up
            fw_ms.append(a.elapsed_time(b))
            bw_ms.append(b.elapsed_time(c) if mode != "inf" else 0.0)
            tot_ms.append(a.elapsed_time(c))
        step += 1
        spent = time.time() - t0
        if step > MAX_TIMED or (step > 3 and spent > LONG_S):
            break
        if step > 1 and time.time() + spent / step > deadline:
            break  # one timed step at least, then the budget decides
    peak_gib = torch.cuda.max_memory_allocated() / 2**30
    del model
    torch.cuda.empty_cache()
    return {"num_layer": layers, "e2e_latency": statistics.median(tot_ms), "peak_allocated_gib": peak_gib,
            "fw_latency": statistics.median(fw_ms), "bwall_latency": statistics.median(bw_ms),
            "steps_ms": tot_ms, "device": torch.cuda.get_device_name(),
            "dtype": "bf16" if bf16 else "fp32", "attention": "sdpa" if bf16 else "eager",
            "torch": torch.__version__, "transformers": __import__("transformers").__version__}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--configs", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget-s", type=float, default=120)
    ap.add_argument("--bf16-sdpa", action="store_true",
                    help="the model in BF16 with SDPA attention instead of FP32 eager")
    ap.add_argument("specs", nargs="+")
    a = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    os.makedirs(a.out, exist_ok=True)
    deadline = time.time() + a.budget_s
    for spec in a.specs:
        if time.time() > deadline:
            print("skipped (budget): %s" % spec, flush=True)
            continue
        try:
            r = measure(spec, a.configs, deadline, a.bf16_sdpa)
        except Exception as e:  # one model's failure must not lose the others
            print("FAIL %s: %s: %s" % (spec, type(e).__name__, str(e).splitlines()[0] if str(e) else ""), flush=True)
            torch.cuda.empty_cache()
            continue
        json.dump(r, open(os.path.join(a.out, spec + ".json"), "w"), indent=1)
        print("%s: %.2f ms (forward %.2f, backward %.2f; %d steps)" %
              (spec, r["e2e_latency"], r["fw_latency"], r["bwall_latency"], len(r["steps_ms"])), flush=True)


if __name__ == "__main__":
    sys.exit(main())
