#!/bin/sh
# tools/gpu/measure.sh [BUNDLE [OUTDIR]]: measurements on a real GPU for the
# accuracy checks of a GPU the predictors never saw, in a few minutes.
# BUNDLE/configs holds Hugging Face configs, BUNDLE/shapes NeuSight-layout
# CSVs (`make devcheck-bundle` copies both from ../shared/data); OUTDIR gets
# labels/<GPU>/<model>-<inf|train>-<seq>-<batch>.json (tools/gpu/e2e.py,
# for `surfer-bench e2e --labels`) and kernels/{gemm,vec}.csv
# (tools/gpu/sweep.py, for `surfer-bench accuracy --dataset`), and
# memory.json: the memory the driver reports and what a PyTorch process's
# context and libraries take after its first GEMM (gpu_mem_reserve_bytes()
# in gpu_specs/gpus.c holds estimates of the latter per architecture).
# GPU_MEASURE_E2E_S and GPU_MEASURE_SWEEP_S bound each part (seconds).
set -u
here=$(cd "$(dirname "$0")" && pwd)
bundle=${1:-.devcheck}
out=${2:-${OUT:-/tmp/surfer-gpu-measure}}
e2e_s=${GPU_MEASURE_E2E_S:-140}
sweep_s=${GPU_MEASURE_SWEEP_S:-90}
if ! nvidia-smi -L >/dev/null 2>&1; then
	echo "gpu_measure: no GPU here (nvidia-smi failed), skipped"
	exit 0
fi
gpu=$(python3 -c "import torch; print(torch.cuda.get_device_name().replace(' ', '_'))")
mkdir -p "$out/labels/$gpu" "$out/kernels"
nvidia-smi -q -d POWER,CLOCK >"$out/nvidia-smi-q.txt" 2>&1
# the driver's memory, and the context's share: what cudaMemGetInfo no
# longer has free that PyTorch's allocator does not hold, once a GEMM and
# a reduction have loaded cuBLAS and their kernels (lazy module loading)
python3 - >"$out/memory.json" 2>"$out/memory.err" <<'PY'
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
if [ -d "$bundle/configs" ]; then
	# cheap ones first: what the budget leaves out is the longest
	timeout $((e2e_s + 30)) python3 "$here/e2e.py" --configs "$bundle/configs" \
		--out "$out/labels/$gpu" --budget-s "$e2e_s" \
		bert_large-inf-512-8 gpt2_large-inf-1024-4 opt_13-inf-2048-2 gpt3_xl-inf-2048-2 \
		bert_large-train-512-2 gpt2_large-train-1024-1 opt_13-train-2048-1 gpt3_xl-train-2048-1 \
		bert_large-inf-512-16 gpt2_large-inf-1024-8 bert_large-train-512-8 gpt2_large-train-1024-4 \
		gpt3_27-inf-2048-2 switchxl4-inf-512-1 switchxl4-inf-512-2 opt_13-inf-2048-8 \
		gpt3_xl-inf-2048-8 gpt3_27-inf-2048-8 switchxl4-inf-2048-1 switchxl4-inf-2048-2 \
		2>&1 | tee "$out/e2e.log"
fi
if [ -d "$bundle/shapes" ]; then
	timeout $((sweep_s + 30)) python3 "$here/sweep.py" "$bundle"/shapes/*.csv \
		--out "$out/kernels" --budget-s "$sweep_s" 2>&1 | tee "$out/sweep.log"
fi
echo "gpu_measure: $(ls "$out/labels/$gpu" | wc -l) iterations, $(cat "$out"/kernels/*.csv 2>/dev/null | grep -vc '^OPName') kernel rows"
