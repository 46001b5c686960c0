"""Writes a Kineto (torch.profiler) Chrome trace of what tests/shim_runtime
`windows W K` runs over the fake driver and fake CUPTI: W ProfilerStep#N
ranges, each with K launches of a kernel named iter_N (grid 2, block 32)
of 1.020 us one after another, as torch.profiler would show that program.

    python3 fake_kineto.py OUT.json W K [--drop ITER] [--extra ITER] [--scale F]
                           [--name-prefix P]

--drop ITER leaves the last kernel of iteration ITER out (the recording
has a kernel the profiler did not see); --extra ITER adds one more
(the profiler saw a kernel the recording lacks); --scale F multiplies every
kernel's duration (and the step's span) by F.
"""
import argparse
import json

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("windows", type=int)
ap.add_argument("k", type=int)
ap.add_argument("--drop", type=int, default=-1)
ap.add_argument("--extra", type=int, default=-1)
ap.add_argument("--scale", type=float, default=1.0)
ap.add_argument("--name-prefix", default="iter_")
a = ap.parse_args()
dur_ns = round(1020 * a.scale)
ev, corr = [], 0
cpu_us, gpu_ns = 1000.0, 5_000_000_000
for w in range(a.windows):
    t0 = cpu_us
    for i in range(a.k + (w == a.extra)):
        corr += 1
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 7,
                   "ts": cpu_us + 1 + 4 * i, "dur": 3, "args": {"correlation": corr}})
        if w == a.drop and i == a.k - 1:
            continue
        ev.append({"ph": "X", "cat": "kernel", "name": "%s%d" % (a.name_prefix, w), "pid": 0, "tid": 7,
                   "ts": "%.3f" % ((gpu_ns + i * dur_ns) / 1000.0), "dur": "%.3f" % (dur_ns / 1000.0),
                   "args": {"correlation": corr, "device": 0, "stream": 7, "grid": [2, 1, 1],
                            "block": [32, 1, 1], "registers per thread": 58, "shared memory": 2048}})
    cpu_us += 4 * a.k + 10
    ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % w, "pid": 1, "tid": 7,
               "ts": t0, "dur": cpu_us - t0 - 1})
    gpu_ns += a.k * dur_ns + 10_000
text = json.dumps({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H200"}],
                   "traceEvents": ev})
# Kineto writes times as numbers with three decimals: unquote them
text = text.replace('"ts": "', '"ts": ').replace('"dur": "', '"dur": ')
import re
text = re.sub(r'("(?:ts|dur)": [0-9.]+)"', r"\1", text)
open(a.out, "w").write(text)
