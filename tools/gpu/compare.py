"""The recorder against torch.profiler, kernel by kernel (tools/gpu/check.sh).

    python3 tools/gpu/compare.py kernels NAME RECORDED.jsonl PROFILED.jsonl
        [--kernel-pct 2] [--floor-ns 500] [--iter-pct 1] [--libs]
    python3 tools/gpu/compare.py overhead NAME PLAIN.json REC.json RECORDED.jsonl
    python3 tools/gpu/compare.py replay NAME ANALYSIS.json REC.json

RECORDED.jsonl is `surfer-dump` of the trace libsurfer.so wrote over some
profiler windows (one iteration each); PROFILED.jsonl is `surfer-dump` of
`surfer-import kineto` of the torch.profiler trace of the same steps of
the same program, each step a ProfilerStep#N range.  The two come from
two runs: CUPTI's activity API takes one subscriber per process, and the
recorder falls back to CUDA events when torch.profiler holds it.

Matched, per iteration in order (the i-th iteration of one trace with the
i-th of the other): each kernel name's k-th launch with that name's k-th
launch, in GPU start order, so streams interleaving differently between
the runs do not unpair kernels.  Checked:
  kernels    the same names, as many times each, in every iteration;
             anything missing from the recording or only in it fails;
  durations  each matched kernel's median over the iterations within
             KERNEL-PCT of the profiler's, or within FLOOR-NS for kernels
             of a few microseconds, whose run-to-run jitter is larger
             than 2% (the line says how many pass the strict 2% alone);
  iteration  the median GPU span of an iteration (first kernel start to
             last kernel end) within ITER-PCT;
  --libs     the recording has cuBLAS/cuBLASLt/cuDNN calls with shapes,
             and every kernel named like a library GEMM or convolution
             is linked to one.
overhead: the step time with the recorder (REC.json, tools/gpu/workload.py's
output) at most 1% above the time without (PLAIN.json), where the GPU is
busy 90% of the step or more; replay: surfer-analyze --json's first
prediction (the recording GPU) within 5% of the step measured while
recording.  Prints one line per check, "PASS name: what" or "FAIL name:
what", and exits 0 when all pass, 1 when one fails, 2 on unreadable input.
"""
import json
import re
import statistics
import sys

# library GEMM and convolution kernels (cuBLAS, cuBLASLt, cuDNN, CUTLASS as
# the libraries ship it; cuBLAS 13 names its Hopper GEMMs nvjet_*); attention
# and Triton kernels are not library calls, nor cuDNN's fused-graph helpers
# of SDPA (cudnn::fusion::*) and PyTorch's own philox unpack_cudnn, which an
# H100 run's GPT-2 step launched beside cuDNN's attention
LIB_KERNEL = re.compile(r"gemm|xmma|cutlass|cudnn|nvjet|implicit_convolve|winograd|"
                        r"s884|h884|s1688|h1688|s16816|h16816|wgrad|dgrad|fprop")
NOT_LIB = re.compile(r"fmha|flash|triton|attention|fusion|unpack_cudnn", re.I)


_demangled = {}


def demangle(name):
    """The recorder keeps kernel names as the driver gives them (mangled C++
    names); torch.profiler writes them demangled by the C++ runtime's
    __cxa_demangle.  The same function, from libstdc++, makes them equal;
    where it is missing or refuses a name, the name stays as it is."""
    if not name.startswith("_Z"):
        return name
    if name in _demangled:
        return _demangled[name]
    out = name
    try:
        import ctypes
        lib = ctypes.CDLL("libstdc++.so.6")
        fn = lib.__cxa_demangle
        fn.restype = ctypes.c_void_p
        fn.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
        st = ctypes.c_int(0)
        p = fn(name.encode(), None, None, ctypes.byref(st))
        if p and st.value == 0:
            out = ctypes.string_at(p).decode("utf-8", "replace")
            free = ctypes.CDLL(None).free
            free.argtypes = [ctypes.c_void_p]
            free(p)
    except (OSError, AttributeError):
        pass
    _demangled[name] = out
    return out


# A kernel record's flags (trace.h): run by a graph replay, captured.
KF_GRAPH, KF_CAPTURED = 2, 4


def load(path):
    """The kernels of a surfer-dump JSONL file by iteration, and its library
    call records: ({iteration: [kernel, ...]}, [call, ...], header).  The
    launches captured into CUDA graphs (run by no iteration) are kept in
    header["captured"]: {graph: [kernel, ...]} in capture order."""
    iters, calls, header, captured = {}, [], {}, {}
    try:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    r = json.loads(line)
                except ValueError:
                    raise SystemExit("compare: %s line %d: not JSON" % (path, n))
                t = r.get("type")
                if t == "header":
                    header = r
                elif t == "kernel":
                    if r.get("flags", 0) & KF_CAPTURED and r.get("graph"):
                        r["name"] = demangle(r.get("name") or "")
                        captured.setdefault(r["graph"], []).append(r)
                        continue
                    it = r.get("iteration", -1)
                    if it is None or it < 0:
                        continue
                    r["name"] = demangle(r.get("name") or "")
                    iters.setdefault(it, []).append(r)
                elif t in ("gemm", "conv"):
                    calls.append(r)
    except OSError as e:
        raise SystemExit("compare: cannot read '%s': %s" % (path, e.strerror))
    header["captured"] = captured
    return iters, calls, header


def keyed(kernels):
    """{(name, k): kernel}: the k-th launch of each name in GPU start order
    (launch order where a kernel has no GPU times)."""
    out, seen = {}, {}
    for k in sorted(kernels, key=lambda r: (r.get("start_ns", 0), r.get("seq", 0))):
        i = seen.get(k["name"], 0)
        seen[k["name"]] = i + 1
        out[(k["name"], i)] = k
    return out


def span(kernels):
    timed = [k for k in kernels if "start_ns" in k and "end_ns" in k]
    if not timed:
        return None
    return max(k["end_ns"] for k in timed) - min(k["start_ns"] for k in timed)


def pct(measured, ref):
    return 100.0 * (measured / ref - 1) if ref else float("inf")


def short(name, n=60):
    return name if len(name) <= n else name[:n - 3] + "..."


def compare(name, rec, prof, kernel_pct=2.0, floor_ns=500, iter_pct=1.0, libs=False):
    """The check lines (each starting PASS or FAIL) for one workload."""
    riters, rcalls, rheader = rec
    piters, _, _ = prof
    lines = []
    ri, pi = sorted(riters), sorted(piters)
    if not ri or not pi:
        return ["FAIL %s: no iterations with kernels (recorded %d, profiled %d)" % (name, len(ri), len(pi))]
    n = min(len(ri), len(pi))
    # kernels: the same names as many times each, iteration by iteration
    missing, extra, total = [], [], 0
    durs = {}      # (name, k) -> ([recorded ns], [profiled ns])
    untimed = 0
    for a, b in zip(ri[:n], pi[:n]):
        rk, pk = keyed(riters[a]), keyed(piters[b])
        total += len(pk)
        missing += [key for key in pk if key not in rk]
        extra += [key for key in rk if key not in pk]
        for key, p in pk.items():
            r = rk.get(key)
            if r is None:
                continue
            if "duration_ns" not in r:
                untimed += 1
                continue
            d = durs.setdefault(key, ([], []))
            d[0].append(r["duration_ns"])
            d[1].append(p.get("duration_ns", 0))
    ok = not missing and not extra and not untimed and len(ri) == len(pi)
    what = "%d kernels in %d iterations (recorded %d iterations, profiled %d)" % (total, n, len(ri), len(pi))
    if missing:
        what += "; %d missing from the recording, first %s" % (len(missing), short(missing[0][0]))
    if extra:
        what += "; %d only in the recording, first %s" % (len(extra), short(extra[0][0]))
    if untimed:
        what += "; %d recorded without GPU times" % untimed
    lines.append("%s %s: kernels: %s" % ("PASS" if ok else "FAIL", name, what))
    # durations: each matched kernel's median
    if durs:
        strict = loose = 0
        worst = (0.0, "", 0, 0)
        for (kname, _), (r, p) in durs.items():
            mr, mp = statistics.median(r), statistics.median(p)
            e = pct(mr, mp)
            strict += abs(e) <= kernel_pct
            good = abs(e) <= kernel_pct or abs(mr - mp) <= floor_ns
            loose += good
            if not worst[1] or abs(e) > abs(worst[0]):
                worst = (e, kname, mr, mp)
        ok = loose == len(durs)
        lines.append("%s %s: durations: %d of %d within %g%% or %d ns (%d within %g%% alone); worst %+.1f%% %s %d vs %d ns"
                     % ("PASS" if ok else "FAIL", name, loose, len(durs), kernel_pct, floor_ns, strict,
                        kernel_pct, worst[0], short(worst[1]), worst[2], worst[3]))
    else:
        lines.append("FAIL %s: durations: no kernel timed in both" % name)
    # the iteration's GPU span
    rs = [span(riters[i]) for i in ri[:n]]
    ps = [span(piters[i]) for i in pi[:n]]
    if None in rs or None in ps:
        lines.append("FAIL %s: iteration: an iteration without GPU times" % name)
    else:
        mr, mp = statistics.median(rs), statistics.median(ps)
        e = pct(mr, mp)
        lines.append("%s %s: iteration: %.1f us recorded vs %.1f us profiled (%+.2f%%, limit %g%%)"
                     % ("PASS" if abs(e) <= iter_pct else "FAIL", name, mr / 1e3, mp / 1e3, e, iter_pct))
    # library calls and their shapes
    if libs:
        lk = [k for i in ri for k in riters[i] if LIB_KERNEL.search(k["name"]) and not NOT_LIB.search(k["name"])]
        # a kernel of a graph replay is linked through the launch captured
        # into its graph with its name and grid (the analyzer's graphs.c)
        cap = rheader.get("captured", {})
        via = lambda k: any(c["name"] == k["name"] and c.get("grid") == k.get("grid") and c.get("lib_call")
                            for c in cap.get(k.get("graph"), []))
        linked = [k for k in lk if k.get("lib_call") or (k.get("flags", 0) & KF_GRAPH and via(k))]
        shaped = [c for c in rcalls if (c.get("m") and c.get("n") and c.get("k")) or any(c.get("in") or [])]
        kinds = sorted({c.get("api", c["type"]) for c in rcalls})
        ok = shaped and len(linked) == len(lk)
        lines.append("%s %s: libraries: %d calls with shapes (%s); %d of %d library kernels linked to one"
                     % ("PASS" if ok else "FAIL", name, len(shaped), " ".join(kinds) or "none",
                        len(linked), len(lk)))
    return lines


def busy(kernels):
    """ns of the iteration's GPU span in which some kernel runs."""
    iv = sorted((k["start_ns"], k["end_ns"]) for k in kernels if "start_ns" in k and "end_ns" in k)
    total, end = 0, None
    for a, b in iv:
        if end is None or a > end:
            total += b - a
            end = b
        elif b > end:
            total += b - end
            end = b
    return total


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        raise SystemExit("compare: cannot read '%s': %s" % (path, e.strerror))
    except ValueError:
        raise SystemExit("compare: '%s' is not JSON" % path)


def overhead(name, plain, rec, trace, limit_pct=1.0, gpu_bound=0.9):
    """The line for the recorder's cost: the step with it against without.
    The limit applies where the GPU is busy GPU_BOUND of the step or more:
    elsewhere the step waits on Python and the launch path, which the
    recorder's hooks lengthen by design (a few microseconds a launch)."""
    a, b = plain["step_ms"], rec["step_ms"]
    iters = trace[0]
    fr = statistics.median(busy(iters[i]) for i in iters) / 1e6 / b if iters and b else 0.0
    e = pct(b, a)
    if fr >= gpu_bound:
        verdict = "PASS" if e <= limit_pct + 1e-9 else "FAIL"
        why = "GPU-bound, limit %g%%" % limit_pct
    else:
        verdict, why = "PASS", "not GPU-bound, no limit"
    return ["%s %s: overhead: step %.3f ms alone, %.3f ms recorded (%+.2f%%; GPU busy %.0f%% of it: %s)"
            % (verdict, name, a, b, e, 100 * fr, why)]


def replay(name, analysis, rec, limit_pct=5.0):
    """The line for surfer-analyze's replay of the trace on the GPU it was
    recorded on (the first prediction) against the step measured while
    recording."""
    try:
        p = analysis["predictions"][0]
        ms, target = float(p["iteration_ms"]), p["target"]
    except (KeyError, IndexError, TypeError, ValueError):
        raise SystemExit("compare: the analysis has no predictions")
    m = rec["step_ms"]
    e = pct(ms, m)
    others = " ".join("%s %.3f" % (t["target"], t["iteration_ms"]) for t in analysis["predictions"][1:])
    return ["%s %s: replay: %s %.3f ms vs %.3f ms measured (%+.1f%%, limit %g%%); others: %s ms"
            % ("PASS" if abs(e) <= limit_pct else "FAIL", name, target, ms, m, e, limit_pct, others or "none")]


def ops(name, profile_analysis, model_analysis):
    """Lines (no verdict) of a workload's kernel time per operator class:
    the profile's kernels as measured (surfer-analyze of its import on the
    GPU it ran on: the origin's times, per iteration) against what
    surfer-analyze --model builds and predicts for the same step, so that a
    --model error shows where it sits (the GEMMs' rate, the element-wise
    kernels, kernels one side has and the other lacks)."""
    def by_op(analysis, field):
        try:
            rows = analysis["predictions"][0]["breakdown"]
        except (KeyError, IndexError, TypeError):
            raise SystemExit("compare: the analysis has no breakdown")
        acc = {}
        for r in rows:
            ms, n = acc.get(r["op"], (0.0, 0))
            acc[r["op"]] = (ms + float(r[field]), n + int(r["launches"]))
        return acc
    meas, pred = by_op(profile_analysis, "origin_ms"), by_op(model_analysis, "predicted_ms")
    lines = []
    for op in sorted(set(meas) | set(pred), key=lambda o: -max(meas.get(o, (0, 0))[0], pred.get(o, (0, 0))[0])):
        (m, mn), (q, qn) = meas.get(op, (0.0, 0)), pred.get(op, (0.0, 0))
        lines.append("     %s: %s: %.3f ms in %d launches measured, --model %.3f ms in %d%s"
                     % (name, op, m, mn, q, qn, " (%+.1f%%)" % pct(q, m) if m > 0 else ""))
    return lines


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(prog="compare.py", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    k = sub.add_parser("kernels", help="RECORDED.jsonl against PROFILED.jsonl")
    k.add_argument("name")
    k.add_argument("recorded")
    k.add_argument("profiled")
    k.add_argument("--kernel-pct", type=float, default=2.0)
    k.add_argument("--floor-ns", type=int, default=500)
    k.add_argument("--iter-pct", type=float, default=1.0)
    k.add_argument("--libs", action="store_true")
    o = sub.add_parser("overhead", help="PLAIN.json REC.json RECORDED.jsonl")
    o.add_argument("name")
    o.add_argument("plain")
    o.add_argument("rec")
    o.add_argument("trace")
    o.add_argument("--limit-pct", type=float, default=1.0)
    r = sub.add_parser("replay", help="ANALYSIS.json REC.json")
    r.add_argument("name")
    r.add_argument("analysis")
    r.add_argument("rec")
    r.add_argument("--limit-pct", type=float, default=5.0)
    q = sub.add_parser("ops", help="PROFILE_ANALYSIS.json MODEL_ANALYSIS.json (kernel time per operator class)")
    q.add_argument("name")
    q.add_argument("profile_analysis")
    q.add_argument("model_analysis")
    try:
        a = ap.parse_args(argv[1:])
    except SystemExit:
        return 2
    try:
        if a.what == "kernels":
            lines = compare(a.name, load(a.recorded), load(a.profiled), a.kernel_pct, a.floor_ns,
                            a.iter_pct, a.libs)
        elif a.what == "ops":
            print("\n".join(ops(a.name, read_json(a.profile_analysis), read_json(a.model_analysis))))
            return 0
        elif a.what == "overhead":
            lines = overhead(a.name, read_json(a.plain), read_json(a.rec), load(a.trace), a.limit_pct)
        else:
            lines = replay(a.name, read_json(a.analysis), read_json(a.rec), a.limit_pct)
    except SystemExit as e:
        sys.stderr.write("%s\n" % e)
        return 2
    except (KeyError, TypeError, ValueError) as e:
        sys.stderr.write("compare: missing or bad field: %s\n" % e)
        return 2
    print("\n".join(lines))
    return 0 if all(l.startswith("PASS") for l in lines) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
