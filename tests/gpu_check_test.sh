#!/bin/sh
# gpu_check_test.sh - tools/gpu_check.sh, the script a machine with a GPU
# runs, taken through its whole path here: a fake nvidia-smi, the fake
# driver and fake libcupti, and a workload that launches through them in
# three profiler windows and writes the step times the real one would.
B=${BUILD:-build}
case "$SANITIZE" in
*?*) echo "gpu_check_test: skipped under SANITIZE (the script preloads the plain recorder)"; exit 0 ;;
esac
T=$(mktemp -d "${TMPDIR:-/tmp}/gpucheck.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
n=0 fail=0
check() { n=$((n + 1)); [ "$2" -eq 0 ] || { echo "FAIL: $1"; fail=$((fail + 1)); }; }
has() { grep -q -e "$1" "$T/out/summary.txt"; }

sh tools/devcheck_bundle.sh "$T/bundle" $B/libsurfer.so $B/surfer-analyze $B/surfer-dump >/dev/null
mkdir -p "$T/bin"
printf '#!/bin/sh\necho "GPU 0: NVIDIA H200 (UUID: GPU-fake)"\n' >"$T/bin/nvidia-smi"
chmod +x "$T/bin/nvidia-smi"
cat >"$T/gpt2.json" <<'J'
{"model_type": "gpt2", "n_embd": 256, "n_head": 4, "n_layer": 3, "vocab_size": 1000,
 "activation_function": "gelu_new", "n_inner": null}
J
cat >"$T/llama.json" <<'J'
{"model_type": "llama", "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 2,
 "num_attention_heads": 8, "num_key_value_heads": 2, "vocab_size": 1000}
J
# fake_workload W OUT [--windows N]: what gpu_workload.py writes; with
# --windows, N windows of 4 launches through the fake driver.
cat >"$T/workload.sh" <<EOF2
#!/bin/sh
w=\$1 out=\$2
[ "\$w" = "\${FAIL_WORKLOAD:-}" ] && exit 1
if [ "\${3:-}" = "--windows" ]; then $B/tests/shim_runtime windows "\$4" 4 >/dev/null || exit 1; fi
case \$w in
gpt2) cp "$T/gpt2.json" "\$out.config.json"
	echo '{"step_ms": 2.5, "batch": 2, "seq": 64, "mode": "training", "dtype": "fp32"}' >"\$out" ;;
decode) cp "$T/llama.json" "\$out.config.json"
	echo '{"step_ms": 0.5, "batch": 4, "seq": 100, "mode": "decode", "dtype": "bf16"}' >"\$out" ;;
*) echo '{"step_ms": 1.25}' >"\$out" ;;
esac
EOF2

runit() { # runit OUTDIR: gpu_check over the fakes
	env PATH="$T/bin:$PATH" LD_LIBRARY_PATH="$B/tests" GPU_CHECK_ORIGIN=h200 \
		SURFER_CUPTI_PATH="$B/tests/fakelib/libcupti.so.13" GPU_CHECK_WORKLOAD="sh $T/workload.sh" \
		sh tools/gpu_check.sh "$T/bundle" "$1" >"$T/log" 2>&1
}

runit "$T/out"
check "gpu_check over the fakes exits 0 ($(tail -3 "$T/log"))" $?
has "gemm: step 1.25 ms alone, 1.25 ms recorded"
check "step times with and without the recorder" $?
[ "$(grep -c 'trace: 12 kernels' "$T/out/summary.txt")" -eq 3 ] && has "timing cupti"
check "each trace: 3 windows x 4 launches, CUPTI timing" $?
[ "$(grep -c 'trace -> h200: [0-9.]* ms per window' "$T/out/summary.txt")" -eq 3 ] &&
	has "others: h100-sxm [0-9.]* a100-sxm4-80 [0-9.]* l4 [0-9.]*"
check "surfer-analyze on each trace, four targets" $?
has "--model (training, batch 2, seq 64, fp32) -> h200: [0-9.]* ms vs 2.5 measured" &&
	has "--model (decode, batch 4, seq 100, bf16) -> h200"
check "--model on the workloads' configs" $?
has "gpu_check: 0 failures"
check "no failures counted" $?

# Failures are counted and make the exit status non-zero.
FAIL_WORKLOAD=gpt2 runit "$T/out2"
[ $? -ne 0 ] && grep -q "FAIL: gpt2: the workload itself failed" "$T/out2/summary.txt" &&
	grep -q "gpu_check: 1 failures" "$T/out2/summary.txt"
check "a failing workload is reported and fails the run" $?
rm "$T/bundle/bin/surfer-analyze"
runit "$T/out3"
[ $? -eq 1 ] && grep -q "does not run here" "$T/out3/summary.txt"
check "a bundle without surfer-analyze stops the run" $?
sh tools/gpu_check.sh "$T/none" "$T/out4" >/dev/null 2>&1
[ $? -eq 2 ]
check "a missing bundle is exit 2" $?
# No GPU: skipped, exit 0 (nvidia-smi missing or failing).
printf '#!/bin/sh\nexit 9\n' >"$T/bin/nvidia-smi"
runit "$T/out5"
[ $? -eq 0 ] && grep -q "no GPU here" "$T/log"
check "no GPU: skipped" $?

echo "gpu_check_test: $((n - fail)) of $n passed"
[ $fail -eq 0 ]
