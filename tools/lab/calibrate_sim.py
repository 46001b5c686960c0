#!/usr/bin/env python3
"""calibrate_sim.py - how often the interval table's rule holds a new group's
errors, on made-up held-out errors of known structure, through the real
`surfer-bench calibrate` (tools/lab/calibrate.c; no second implementation
here: this writes dumps and reads its coverage lines).

Each run draws G groups (architectures) of errors log(pred / measured) =
b_g + e: a group bias b_g ~ N(0, tau^2), a scatter e ~ N(0, s_g^2) with
s_g = exp(N(0, 0.3^2)) (the unit), and n_g rows, exponential of mean NMEAN
(at least 3: groups of very different sizes, as the data's are) or NMEAN
each (--equal).  The coverage of each rule (--weigh re, rows, groups) is
calibrate's pooled line over the groups each left out in turn, the errors
pooled and each group alike; printed are their means over REPS runs and
the standard deviation of the pooled one across runs (what one data set's
figure scatters by).

usage: calibrate_sim.py [--equal] [--bin build/surfer-bench] G REPS [NMEAN]
"""
import os, random, re, subprocess, sys, tempfile

# GPUs of as many architectures (gpu_specs/gpus.csv), the names the dumps
# carry; from the shape alone (TARGET--none.csv).
GPUS = ["Tesla_P100-PCIE-16GB", "Tesla_P4", "Tesla_V100-PCIE-32GB", "Tesla_T4",
        "NVIDIA_A100-PCIE-40GB", "NVIDIA_A40", "NVIDIA_L40", "NVIDIA_H100"]
RULES = ["re", "rows", "groups"]
ALL = re.compile(r"^ +all +\d+ +([\d.]+)%\s+\(each group alike ([\d.]+)%")

def draw(rnd, d, g, tau, nmean, equal):
    for f in os.listdir(d):
        os.unlink(os.path.join(d, f))
    for gpu in GPUS[:g]:
        n = nmean if equal else max(3, int(rnd.expovariate(1 / nmean)))
        b, s = rnd.gauss(0, tau), rnd.lognormvariate(0, 0.3)
        with open(os.path.join(d, gpu + "--none.csv"), "w") as f:
            f.write("method,op,dims,origin_ns,target_ns,predicted_ns\n")
            for _ in range(n):
                f.write("auto,bmm,1x2x3x4,0,1000.0,%.6f\n" % (1000 * pow(2.718281828459045, b + rnd.gauss(0, s))))

def coverage(binary, d, rule):
    out = subprocess.run([binary, "calibrate", "--weigh", rule, d], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():       # the first "all" line: the key's
        m = ALL.match(line)
        if m:
            return float(m.group(1)), float(m.group(2))
    raise SystemExit("calibrate_sim.py: no coverage line in:\n" + out)

def main():
    args, binary, equal = sys.argv[1:], "build/surfer-bench", False
    while args and args[0].startswith("--"):
        if args[0] == "--equal":
            equal, args = True, args[1:]
        elif args[0] == "--bin" and len(args) > 1:
            binary, args = args[1], args[2:]
        else:
            break
    if len(args) not in (2, 3) or not args[0].isdigit() or not args[1].isdigit() or \
       not 2 < int(args[0]) <= len(GPUS):
        sys.stderr.write(__doc__.split("\n\n")[-1].strip() + "\n")
        sys.exit(2)
    g, reps, nmean = int(args[0]), int(args[1]), int(args[2]) if len(args) == 3 else 20
    rnd = random.Random(1)
    print("G %d, %d runs, %s %d rows: coverage pooled / each group alike (sd of pooled)" %
          (g, reps, "each" if equal else "mean", nmean))
    with tempfile.TemporaryDirectory() as d:
        for tau in (0, 0.5, 1, 2, 4):
            acc = {r: [] for r in RULES}
            for _ in range(reps):
                draw(rnd, d, g, tau, nmean, equal)
                for r in RULES:
                    acc[r].append(coverage(binary, d, r))
            line = "tau %-4g" % tau
            for r in RULES:
                p = [x[0] for x in acc[r]]
                m = sum(p) / reps
                sd = (sum((x - m) ** 2 for x in p) / (reps - 1)) ** 0.5
                line += "  %s %.1f / %.1f (%.1f)" % (r, m, sum(x[1] for x in acc[r]) / reps, sd)
            print(line, flush=True)

if __name__ == "__main__":
    main()
