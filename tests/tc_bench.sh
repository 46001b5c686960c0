#!/bin/sh
# tc_bench.sh - surfer-bench tensorcore on a made-up data folder in the layouts it
# reads (PipeWeave FP8 rows on H20 and H800, DeepBench FP16 GEMM sections on
# V100 and T4), generated here from a known law: every GEMM runs at half of
# the GPU's dense peak plus 5 us.  The fit must find that efficiency, the
# table must hold every GPU with its row count, bad input must exit 2; pairs
# keep DeepBench's transposes apart and --gpu keeps to one architecture.
# (The efficiency is the model's without the MAMF figures, --no-figures: with
# them it is a share of each GPU's figure or rule.)
BIN="${BUILD:-build}/surfer-bench"
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
fail=0
mkdir -p "$D/pipeweave" "$D/deepbench/csv/results/train"

# peak TFLOP/s of gpu_specs/gpus.csv: H20 FP8 296, H800 FP8 1979, V100 and
# T4 FP16 125 and 65.
awk 'BEGIN {
	print "M,N,K,avg_duration,hardware,tc_bf16";
	split("64 256 1024 4096 8192", d, " ");
	for (a = 1; a <= 5; a++) for (b = 1; b <= 5; b++) for (c = 1; c <= 5; c++) {
		f = 2 * d[a] * d[b] * d[c];
		printf "%d,%d,%d,%.4f,NVIDIA H20,1024\n", d[a], d[b], d[c], f / (0.5 * 296e12) * 1e6 + 5;
		printf "%d,%d,%d,%.4f,NVIDIA H800,4096\n", d[a], d[b], d[c], f / (0.5 * 1979e12) * 1e6 + 5;
	}
}' > "$D/pipeweave/gemm_fp8_train.csv"
for g in V100:125 T4:65; do
	name=${g%:*}
	peak=${g#*:}
	awk -v peak="$peak" 'BEGIN {
		print "Precision,\"16 bit inputs, 16 bit multiplication, 32 bit addition\"";
		print "Dense Matrix Multiplication,,M,N,K,A Transpose,B Transpose,,Time (msec),TERAFLOPS";
		split("128 512 2048 5124", d, " ");
		for (a = 1; a <= 4; a++) for (b = 1; b <= 4; b++) for (c = 1; c <= 4; c++) {
			f = 2 * d[a] * d[b] * d[c];
			printf ",Made-up,%d,%d,%d,N,N,,%.6f,1\n", d[a], d[b], d[c], f / (0.5 * peak * 1e12) * 1e3 + 0.005;
		}
		print "Convolution,,W,H,C";
		print ",Made-up,7,7,832,16,N,N,,99,1";
	}' > "$D/deepbench/csv/results/train/DeepBench_NV_${name}__Results_-_FP16_ip_Mixed_math.csv"
done

out=$("$BIN" tensorcore --data "$D") || { echo "FAIL: exit $? on good data"; fail=1; }
for row in "h20 125" "h800 125" "v100-sxm2-16 64" "t4 64"; do
	set -- $row
	echo "$out" | awk -v g="$1" -v n="$2" '$1 == g && $2 == n { ok = 1 } END { exit !ok }' ||
		{ echo "FAIL: no row '$1' with $2 GEMMs in:"; echo "$out"; fail=1; }
done
eff=$("$BIN" tensorcore --data "$D" --emit --no-figures | sed -n 's/.*GPU_DT_FP16\] = \([0-9.]*\).*/\1/p')
awk -v e="$eff" 'BEGIN { exit !(e > 0.47 && e < 0.53) }' ||
	{ echo "FAIL: fitted efficiency '$eff', want 0.5"; fail=1; }

# Pairs match DeepBench's transposes: the same M, N, K transposed (T,N)
# runs at a quarter of the peak on both GPUs, so the FLOP/s ratio is exact
# (0.0 %) only when a T,N row pairs with the other GPU's T,N row.
P="$D/pairs"
mkdir -p "$P/deepbench/csv/results/train"
for g in V100:125 T4:65; do
	name=${g%:*}
	peak=${g#*:}
	awk -v peak="$peak" 'BEGIN {
		print "Dense Matrix Multiplication,,M,N,K,A Transpose,B Transpose,,Time (msec),TERAFLOPS";
		split("128 512 2048", d, " ");
		for (a = 1; a <= 3; a++) for (b = 1; b <= 3; b++) for (c = 1; c <= 3; c++) {
			f = 2 * d[a] * d[b] * d[c];
			printf ",Made-up,%d,%d,%d,N,N,,%.6f,1\n", d[a], d[b], d[c], f / (0.5 * peak * 1e12) * 1e3;
			printf ",Made-up,%d,%d,%d,T,N,,%.6f,1\n", d[a], d[b], d[c], f / (0.25 * peak * 1e12) * 1e3;
		}
	}' > "$P/deepbench/csv/results/train/DeepBench_NV_${name}__Results_-_FP16_ip_Mixed_math.csv"
done
out=$("$BIN" tensorcore --data "$P" --gpu t4) || { echo "FAIL: exit $? on the pairs data"; fail=1; }
echo "$out" | awk '$1 == "v100-sxm2-16" && $2 == "t4" && $3 == 54 && $4 == "0.0%" { ok = 1 } END { exit !ok }' ||
	{ echo "FAIL: V100 -> T4 over 54 pairs not exact with the FLOP/s ratio in:"; echo "$out"; fail=1; }
echo "$out" | awk '$1 == "h20" || $1 == "v100-sxm2-16" && $2 != "t4" { bad = 1 } END { exit bad }' ||
	{ echo "FAIL: --gpu t4 printed another architecture:"; echo "$out"; fail=1; }

# --own: kernels.py's gemm.csv of a lent GPU (data/<GPU>/ours), the same
# law; only the tensor-core GEMMs whose kernel takes 0.4 ms or more at the
# dtype's datasheet peak (H200: BF16 and FP16 989, FP8 1979 TFLOP/s) join
# the fit: 8192^3 in BF16, FP16 and FP8 and 8192 x 8192 x 4096 in BF16,
# not 4096^3, FP8's 8192 x 8192 x 4096 (0.28 ms) or the FP32 row.
O="$D/own"
mkdir -p "$O/NVIDIA_H200/ours"
awk 'BEGIN {
	print "dtype,m,n,k,latency_ms,Device,Driver,CUDA Version,Torch Version";
	n = split("bf16:8192:8192:8192 bf16:8192:8192:4096 bf16:4096:4096:4096 fp16:8192:8192:8192 fp8:8192:8192:8192 fp8:8192:8192:4096 fp32:8192:8192:8192", r, " ");
	for (i = 1; i <= n; i++) {
		split(r[i], f, ":");
		peak = f[1] == "fp8" ? 1979e12 : f[1] == "fp32" ? 67e12 : 989e12;
		printf "%s,%d,%d,%d,%.6f,NVIDIA H200,1,13.0,2.11\n", f[1], f[2], f[3], f[4], 2 * f[2] * f[3] * f[4] / (0.5 * peak) * 1e3 + 0.005;
	}
}' > "$O/NVIDIA_H200/ours/gemm.csv"
out=$("$BIN" tensorcore --data "$D" --own "$O") || { echo "FAIL: exit $? with --own"; fail=1; }
echo "$out" | awk '$1 == "h200" && $2 == 4 { ok = 1 } END { exit !ok }' ||
	{ echo "FAIL: no row 'h200' with 4 GEMMs under --own in:"; echo "$out"; fail=1; }
"$BIN" tensorcore --data "$D" | awk '$1 == "h200" && $2 ~ /^[0-9]+$/ { bad = 1 } END { exit bad }' ||
	{ echo "FAIL: our own GEMMs read without --own"; fail=1; }
n=$("$BIN" tensorcore --data "$D" --own "$O" --emit --no-figures | sed -n 's|^/\* \([0-9]*\) GEMMs on \([0-9]*\) GPUs.*|\1 \2|p')
[ "$n" = "382 5" ] || { echo "FAIL: --emit --own fitted '$n' GEMMs and GPUs, want 382 on 5"; fail=1; }
# A gemm.csv whose rows say how they were timed: "queued" (the kernel's
# time alone) joins whatever its size, any other timing as above.
Q="$D/own-queued"
mkdir -p "$Q/NVIDIA_H200/ours"
awk 'BEGIN {
	print "dtype,m,n,k,latency_ms,timing,Device";
	printf "bf16,4096,4096,4096,%.6f,queued,NVIDIA H200\n", 2 * 4096^3 / (0.5 * 989e12) * 1e3 + 0.005;
	printf "bf16,2048,2048,2048,%.6f,alone,NVIDIA H200\n", 2 * 2048^3 / (0.5 * 989e12) * 1e3 + 0.005;
}' > "$Q/NVIDIA_H200/ours/gemm.csv"
"$BIN" tensorcore --data "$D" --own "$Q" | awk '$1 == "h200" && $2 == 1 { ok = 1 } END { exit !ok }' ||
	{ echo "FAIL: a queued GEMM under the size floor not taken, or an alone one taken"; fail=1; }
"$BIN" tensorcore --data "$D" --own "$D/absent" >/dev/null 2>"$D/err"
[ $? -eq 2 ] && grep -q "^surfer-bench: tensorcore: --own '.*absent' is no folder$" "$D/err" ||
	{ echo "FAIL: --own of no folder: $(cat "$D/err")"; fail=1; }
mkdir -p "$O/Odd/ours"
printf 'dtype,m,n,k,latency_ms,Device\nbf16,8192,8192,8192,1.5,NVIDIA Frobnitz 9000\n' > "$O/Odd/ours/gemm.csv"
"$BIN" tensorcore --data "$D" --own "$O" >/dev/null 2>"$D/err"
[ $? -eq 2 ] && grep -q "Odd/ours/gemm.csv:2: unknown GPU 'NVIDIA Frobnitz 9000'" "$D/err" ||
	{ echo "FAIL: a row of an unknown GPU: $(cat "$D/err")"; fail=1; }
rm -r "$O/Odd"
mkdir -p "$O/Bad/ours" && echo "dtype,m,n,k,Device" > "$O/Bad/ours/gemm.csv"
"$BIN" tensorcore --data "$D" --own "$O" >/dev/null 2>"$D/err"
[ $? -eq 2 ] && grep -q "no dtype, m, n, k, latency_ms and Device columns" "$D/err" ||
	{ echo "FAIL: a gemm.csv without latency_ms: $(cat "$D/err")"; fail=1; }

"$BIN" tensorcore --data "$D/nothing" >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: missing data should exit 2"; fail=1; }
"$BIN" tensorcore --data "$D" --frobnicate >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: unknown option should exit 2"; fail=1; }

[ $fail -eq 0 ] && echo "tc_bench: ok"
exit $fail
