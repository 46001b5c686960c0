#!/bin/sh
# tools/gpu/measure.sh [BUNDLE [OUTDIR]]: our own measurements on a real GPU,
# within GPU_MEASURE_BUDGET_S seconds (default 420; at most 480 fits the
# 8 minutes a run may take), for the accuracy checks of a GPU the
# predictors never saw.  BUNDLE/configs holds Hugging Face configs,
# BUNDLE/shapes NeuSight-layout CSVs (`make devcheck-bundle` copies both
# from ../shared/data).  Everything goes to OUTDIR/data/<gpu>/ (<gpu> the
# device name with _ for spaces), the layout data/ in the repository takes:
#   labels/<gpu>/<model>-<inf|train>-<seq>-<batch>.json   NeuSight's
#       iterations in FP32, eager attention (tools/gpu/e2e.py), for
#       `surfer-bench e2e --labels OUTDIR/data/<gpu>/labels`;
#   labels-bf16/<gpu>/...   the same iterations in BF16 with SDPA;
#   kernels/{gemm,vec}.csv  NeuSight's operator shapes in FP32
#       (tools/gpu/sweep.py), for `surfer-bench accuracy --dataset`;
#   kernels/conv.csv  NeuSight's conv sweep shapes (the bundle's
#       shapes-conv/), cuDNN's pick, FP32, for `surfer-bench conv`;
#   ours/{gemm,sdpa,decode,vec,model}.csv and ours/meta.json  BF16/FP16/
#       TF32/FP8 GEMMs, flash attention, decode attention, BF16 vector
#       operators, Llama-3-8B and Qwen2.5-7B decode steps (tools/gpu/kernels.py);
#   memory.json  the memory the driver reports and what a PyTorch process's
#       context and libraries take after its first GEMM;
#   meta.json    GPU, driver, CUDA and PyTorch versions, the command, the
#       budget and what each part took, and the host: its CPU, their count
#       and an eager PyTorch op's CPU time (host_op_us), which sets a
#       launch-bound step's time.
# Each part gets a share of the budget and a deadline inside its script
# (it stops starting measurements there), with `timeout` 30 s past it as
# the hard stop; parts run cheapest-first.
set -u
here=$(cd "$(dirname "$0")" && pwd)
bundle=${1:-.devcheck}
out=${2:-${OUT:-/tmp/surfer-gpu-measure}}
budget=${GPU_MEASURE_BUDGET_S:-420}
t_start=$(date +%s)
if ! nvidia-smi -L >/dev/null 2>&1; then
	echo "gpu_measure: no GPU here (nvidia-smi failed), skipped"
	exit 0
fi
gpu=$(python3 -c "import torch; print(torch.cuda.get_device_name().replace(' ', '_'))") ||
	{ echo "gpu_measure: PyTorch cannot see the GPU"; exit 1; }
d="$out/data/$gpu"
mkdir -p "$d/labels/$gpu" "$d/labels-bf16/$gpu" "$d/kernels" "$d/ours"
# share P: seconds for a part, P percent of the budget, less what is overdue
share() {
	left=$((budget - ($(date +%s) - t_start)))
	s=$((budget * $1 / 100))
	[ $s -gt $left ] && s=$left
	[ $s -lt 0 ] && s=0
	echo $s
}
nvidia-smi -q -d POWER,CLOCK >"$d/nvidia-smi-q.txt" 2>&1
# the driver's memory, and the context's share: what cudaMemGetInfo no
# longer has free that PyTorch's allocator does not hold, once a GEMM and
# a reduction have loaded cuBLAS and their kernels (lazy module loading)
python3 - >"$d/memory.json" 2>"$d/memory.err" <<'PY'
import json, subprocess, torch
a = torch.randn(1024, 1024, device="cuda")
(a @ a).sum().item()
torch.cuda.synchronize()
free, total = torch.cuda.mem_get_info()
p = torch.cuda.get_device_properties(0)
smi = subprocess.run(["nvidia-smi", "--query-gpu=memory.total", "--format=csv,noheader,nounits",
                      "-i", "0"], capture_output=True, text=True).stdout.strip()
print(json.dumps({"name": p.name, "total_global_mem_bytes": p.total_memory,
                  "nvidia_smi_total_mib": smi, "mem_get_info_total_bytes": total,
                  "free_bytes": free, "torch_reserved_bytes": torch.cuda.memory_reserved(),
                  "context_and_libraries_mib": (total - free - torch.cuda.memory_reserved()) / 2**20}))
PY
specs="bert_large-inf-512-8 gpt2_large-inf-1024-4 opt_13-inf-2048-2 gpt3_xl-inf-2048-2
	bert_large-train-512-2 gpt2_large-train-1024-1 opt_13-train-2048-1 gpt3_xl-train-2048-1
	bert_large-inf-512-16 gpt2_large-inf-1024-8 bert_large-train-512-8 gpt2_large-train-1024-4
	gpt3_27-inf-2048-2 switchxl4-inf-512-1 switchxl4-inf-512-2 opt_13-inf-2048-8
	gpt3_xl-inf-2048-8 gpt3_27-inf-2048-8 switchxl4-inf-2048-1 switchxl4-inf-2048-2"
# part NAME PERCENT COMMAND...: COMMAND with --budget-s of its share, logged
part() {
	n=$1 s=$(share "$2")
	shift 2
	t0=$(date +%s)
	if [ "$s" -le 0 ]; then
		echo "gpu_measure: $n skipped, the budget is spent" | tee -a "$d/parts.log"
		return
	fi
	timeout $((s + 30)) "$@" --budget-s "$s" >"$d/$n.log" 2>&1
	echo "gpu_measure: $n: exit $?, $(($(date +%s) - t0)) s of $s; $(tail -1 "$d/$n.log")" | tee -a "$d/parts.log"
}
: >"$d/parts.log"
[ -d "$bundle/configs" ] &&
	part e2e-fp32 25 python3 "$here/e2e.py" --configs "$bundle/configs" --out "$d/labels/$gpu" $specs
[ -d "$bundle/shapes" ] &&
	part sweep 15 python3 "$here/sweep.py" "$bundle"/shapes/*.csv --out "$d/kernels"
[ -d "$bundle/shapes-conv" ] &&
	part conv 10 python3 "$here/sweep.py" "$bundle"/shapes-conv/*.csv --out "$d/kernels"
part kernels 40 python3 "$here/kernels.py" --out "$d/ours"
[ -d "$bundle/configs" ] &&
	part e2e-bf16 100 python3 "$here/e2e.py" --bf16-sdpa --configs "$bundle/configs" --out "$d/labels-bf16/$gpu" $specs
python3 - "$d/meta.json" "$budget" "$t_start" "$0 $*" <<'PY'
import json, os, statistics, subprocess, sys, time
import torch
out, budget, t0, cmd = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
drv = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader", "-i", "0"],
                     capture_output=True, text=True).stdout.strip()
# The host: a launch-bound step (an eager BF16 BERT-Large step, whose
# kernels take a few us each) takes the host's time to issue its ops, so
# two boards measured on two hosts can differ by it alone.  The CPU's
# model and count, and an eager op's CPU time: 500 in-place adds on one
# element, queued without a synchronization (the GPU runs each in a few
# us, faster than they are issued), the median of five rounds.
cpu = ""
try:
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
except OSError:
    pass
x = torch.zeros(1, device="cuda")
rounds = []
for _ in range(6):
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(500):
        x.add_(1.0)
    rounds.append((time.perf_counter() - t) / 500 * 1e6)
    torch.cuda.synchronize()
json.dump({"device": torch.cuda.get_device_name(), "driver": drv, "cuda": torch.version.cuda,
           "torch": torch.__version__, "command": cmd, "budget_s": budget,
           "took_s": round(time.time() - t0), "host_cpu": cpu, "host_cpus": os.cpu_count(),
           "host_op_us": round(statistics.median(rounds[1:]), 2)}, open(out, "w"), indent=1)
PY
echo "gpu_measure: $(ls "$d/labels/$gpu" | wc -l) FP32 and $(ls "$d/labels-bf16/$gpu" | wc -l) BF16 iterations, $(cat "$d"/kernels/*.csv 2>/dev/null | grep -vc '^OPName') NeuSight kernel rows, $(cat "$d"/ours/*.csv 2>/dev/null | grep -vc 'latency_ms') of ours in $(($(date +%s) - t_start)) s -> $d"
