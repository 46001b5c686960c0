#!/bin/sh
# bench_cli.sh - surfer-bench's one option table: every subcommand answers
# --help with its usage on stdout; an option of another subcommand, an
# unknown one, a missing value, a stray argument and an unknown command each
# give one line on stderr and exit 2; --opt=VALUE reads as --opt VALUE.
BIN="${BUILD:-build}/surfer-bench"
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
fail=0

for c in accuracy table e2e comm tensorcore vec rowwise conv conv-train tile-scale power profile calibrate figures own; do
	"$BIN" $c --help >"$D/out" 2>"$D/err"
	rc=$?
	if [ $rc -ne 0 ] || ! grep -q '^usage:' "$D/out" || [ -s "$D/err" ]; then
		echo "FAIL: '$c --help': exit $rc, want 0 and a usage on stdout only"
		fail=1
	fi
done

# expect WANT_LINE ARGS...: exit 2 and exactly that one line on stderr
expect() {
	want=$1
	shift
	"$BIN" "$@" >/dev/null 2>"$D/err"
	rc=$?
	if [ $rc -ne 2 ] || [ "$(wc -l <"$D/err")" -ne 1 ] || [ "$(cat "$D/err")" != "$want" ]; then
		echo "FAIL: '$*': exit $rc, stderr '$(cat "$D/err")', want exit 2 and '$want'"
		fail=1
	fi
}
expect "surfer-bench: tensorcore: no option '--labels'; see surfer-bench tensorcore --help" \
	tensorcore --data "$D" --labels x
expect "surfer-bench: vec: unknown option '--frobnicate'; see surfer-bench vec --help" \
	vec --frobnicate --data "$D"
expect "surfer-bench: profile: option '--labels' needs a value" profile --labels
expect "surfer-bench: rowwise: --data DIR is needed; see surfer-bench rowwise --help" rowwise
expect "surfer-bench: rowwise: no layer-norm or softmax rows under $D/neusight/kernels" rowwise --data "$D"
# why an option was refused: a value given to a flag, a typo (read against
# the subcommand's own options), a prefix of several, another subcommand's
expect "surfer-bench: accuracy: option '--json' takes no value (given '--json=1'); see surfer-bench accuracy --help" \
	accuracy --json=1
expect "surfer-bench: accuracy: unknown option '--datset' (did you mean '--dataset'?); see surfer-bench accuracy --help" \
	accuracy --datset "$D"
expect "surfer-bench: accuracy: option '--he' is ambiguous: --heldout-conv, --heldout-rowwise, --help; see surfer-bench accuracy --help" \
	accuracy --he
expect "surfer-bench: accuracy: no option '--rows'; see surfer-bench accuracy --help" accuracy --rows
expect "surfer-bench: power: unexpected argument 'extra'" power --data "$D" extra
expect "surfer-bench: unknown command 'nosuch'; see surfer-bench --help" nosuch
expect "surfer-bench: unknown format 'xml' (neusight, pipeweave, vidur, deepbench)" \
	accuracy --format xml --dataset "$D" --origin t4 --target v100
expect "surfer-bench: bad --launch-us 'x'" e2e --labels "$D" --configs "$D" --launch-us=x
expect "surfer-bench: bad --dtype 'fp8' (fp32, tf32, bf16 or fp16)" e2e --labels "$D" --configs "$D" --dtype fp8
expect "surfer-bench: own: no kernels.py file with a known Device under '$D'" own --dataset "$D"
expect "surfer-bench: own: unknown GPU 'nosuch'" own --dataset "$D" --gpu nosuch
expect "surfer-bench: own: --origin: no kernels.py file with a known Device under '$D'" \
	own --dataset data/NVIDIA_H200/ours --origin "$D"
mkdir "$D/ours"
printf 'dtype,m,n,latency_ms,Device\nbf16,1,2,0.1,NVIDIA H200\n' >"$D/ours/gemm.csv"
expect "surfer-bench: own: '$D/ours/gemm.csv' is not kernels.py's gemm.csv (no dtype, m, n, k, latency_ms columns)" \
	own --dataset "$D/ours"
for v in 0.5 0.5,2 0.5, ,0 x,0 0.5,0.5,0 -0.1,0; do
	expect "surfer-bench: bad --shrink '$v': GEMM,VECTOR, each in [0, 1], is expected" \
		accuracy --dataset "$D" --origin t4 --target v100 --shrink "$v"
done
expect "surfer-bench: --heldout-conv: '$D/none': cannot read '$D/none': No such file or directory" \
	accuracy --dataset "$D/none" --origin t4 --target v100 --heldout-conv
mkdir "$D/conv"
printf 'OPName,Latency,Device,Kernel Name,Kernels,B,Input_Channel,Output_Channel,Kernel_Szie,Input_Size,Stride,Padding\nconv,0.5,Tesla V100-PCIE-32GB,volta_sgemm_64x64_nn,;volta_sgemm_64x64_nn,8,64,64,3,56,1,1\n' \
	>"$D/conv/v100.csv"
expect "surfer-bench: conv: --target 't4' is not a GPU with convolution rows under '$D/conv'" \
	conv --data "$D/conv" --target t4
expect "surfer-bench: conv: convolution rows of 0 GPUs outside v100-pcie-32's architecture under '$D/conv': a fit needs two" \
	conv --data "$D/conv"
expect "surfer-bench: conv: --origin 't4' is not a GPU with convolution rows under the data" \
	conv --data "$D/conv" --origin t4
expect "surfer-bench: conv: --origin 'v100-pcie-32' is the --target" \
	conv --data "$D/conv" --origin v100-pcie-32 --target v100-pcie-32
expect "surfer-bench: conv: --origin 'v100-pcie-32' does not go with --emit" \
	conv --data "$D/conv" --origin v100-pcie-32 --emit
# --origin: that GPU's rows predict every other GPU (each held out in
# turn) and enter no fit, and it is never a target: four GPUs of two
# shapes each, the V100 the origin, three lines of it, none to it.
mkdir "$D/conv4"
for g in "Tesla V100-PCIE-32GB:0.5" "Tesla T4:1.5" "Tesla P100-PCIE-16GB:0.9" "Tesla P4:2.5"; do
	{ echo 'OPName,Latency,Device,Kernel Name,Kernels,B,Input_Channel,Output_Channel,Kernel_Szie,Input_Size,Stride,Padding'
	  echo "conv,${g##*:},${g%%:*},volta_sgemm_64x64_nn,;volta_sgemm_64x64_nn,8,64,64,3,56,1,1"
	  echo "conv,${g##*:}0,${g%%:*},volta_sgemm_64x64_nn,;volta_sgemm_64x64_nn,32,128,64,3,56,1,1"
	} >"$D/conv4/${g%%:*}.csv"
done
"$BIN" conv --data "$D/conv4" --origin v100-pcie-32 >"$D/c4" 2>&1
pairs=$(awk 'NF > 4 && $3 ~ /^[0-9]+$/ && $4 ~ /%$/ { print $1, $2 }' "$D/c4")
[ "$(echo "$pairs" | grep -c '^v100-pcie-32 ')" -eq 3 ] && [ "$(echo "$pairs" | wc -l)" -eq 3 ] &&
	! echo "$pairs" | grep -q ' v100-pcie-32$' && grep -q 'and the origin-only GPU' "$D/c4" ||
	{ echo "FAIL: conv --origin: $(cat "$D/c4")"; fail=1; }

# conv-train: the data folder's two subfolders, or one line; a target
# without rows, one line
expect "surfer-bench: conv-train: '$D' holds no deepbench/csv/results/train and neusight/kernels/conv" \
	conv-train --data "$D"
mkdir -p "$D/ct/deepbench/csv/results/train" "$D/ct/neusight/kernels/conv"
for g in "V100:NVIDIA V100:0.5" "T4:NVIDIA T4:1.5"; do
	n=${g%%:*}; rest=${g#*:}
	printf 'GPU Model,%s\n' "${rest%%:*}" >"$D/ct/deepbench/csv/results/train/DeepBench_NV_${n}__Specs.csv"
	printf 'Precision,Float\nConvolution\n,,W,H,C,N,K ,S (Filter width),R (Filter height),pad_w,pad_h,Horizontal stride,Vertical stride,Forward (msec),wrt Inputs (msec),wrt Parameters (msec)\n,,56,56,64,8,64,3,3,1,1,1,1,%s,%s,%s\n' \
		"${g##*:}" "${g##*:}" "${g##*:}" >"$D/ct/deepbench/csv/results/train/DeepBench_NV_${n}__Results_FP32.csv"
done
expect "surfer-bench: conv-train: --target 'p4' is not a GPU with convolution rows under '$D/ct/deepbench/csv/results/train'" \
	conv-train --data "$D/ct" --target p4

# --data=DIR and --data DIR: the same run.
R="$D/gpu-reference/gpu-benches/gpu-roofline"
mkdir -p "$R"
echo "0 1056 blocks   400 its    100.250 Fl/B   400 GB/s   40000 GF/s   1800 Mhz   400 W   63°C" >"$R/h200.txt"
"$BIN" power --data "$D" >"$D/a" || { echo "FAIL: power --data DIR exits $?"; fail=1; }
"$BIN" power --data="$D" >"$D/b" || { echo "FAIL: power --data=DIR exits $?"; fail=1; }
grep -q '^h200' "$D/a" && cmp -s "$D/a" "$D/b" || { echo "FAIL: --data=DIR differs from --data DIR"; fail=1; }

# comm reads DeepBench's all-reduce section (NCCL rows only): a P100 PCIe
# pair (PCIe 3.0 x16 through host memory at 0.36: 5.671 GB/s; 30 us)
# all-reduces 25M floats (1e8 bytes, each byte once over the link) in
# 17.662 ms; measured 14 ms: 26.2 % off.  The MPI row of 16 GPUs on two
# nodes is left out.
C="$D/deepbench"
mkdir -p "$C"
cat >"$C/DeepBench_NV_P100__Results_FP32.csv" <<'CSV'
Precision,Float
All-Reduce,,Size # floats,# chips,,,Mean All Reduce Time (msec),,Gigabytes/sec,Selected Algorithm
,,25000000,2,,,14,,1,NCCL 2.0 MPI
,,25000000,16,2,,50,,1,Baidu RingAllReduce
CSV
"$BIN" comm "$C" >"$D/comm" 2>&1
grep -q 'DeepBench.*p100-pcie.*ranks 2 .* 1 sizes.* 26.2%' "$D/comm" &&
	grep -q 'all .* 26.2% over 1 measurements' "$D/comm" ||
	{ echo "FAIL: comm on DeepBench rows: $(cat "$D/comm")"; fail=1; }

# comm refits its constants from the NCCL files it reads: A100 SXM4
# all-reduces made with NVLink at 0.70 of its 300 GB/s a direction
# (datasheet: 600 GB/s) and 40 us fixed, 2, 4 and 8 ranks, 1-512 MiB, give
# back 0.700 and 40.0 us (the fit's grid: 0.002 and 0.2 us), 0.0 % error;
# without Ampere nothing is left to fit on.
N="$D/nccl/A100"
mkdir -p "$N"
awk 'BEGIN { print ",time_stats.all_reduce.median,rank,num_workers,size,collective,devices_per_node";
	i = 0; for (n = 2; n <= 8; n *= 2) for (s = 1048576; s <= 536870912; s *= 2) {
		ms = (40e-6 + 2 * (n - 1) / n * s / (0.70 * 300e9)) * 1e3;
		printf "%d,%.9f,0,%d,%d,all_reduce,%d\n", i++, ms, n, s, n } }' >"$N/all_reduce.csv"
"$BIN" comm "$D/nccl" >"$D/commfit" 2>&1
grep -q '^none  *0\.700  *40\.0 .*|  *0\.0 ' "$D/commfit" &&
	grep -q '^ampere .*no NCCL measurements left' "$D/commfit" ||
	{ echo "FAIL: comm refits 0.70 and 40 us: $(cat "$D/commfit")"; fail=1; }

# A data set with no kernel of the two GPUs (another layout's file, a
# folder of other boards, a name it does not hold) is refused, not scored
# as 0 pairs at 0 %: DeepBench's GEMM rows of an M40, asked for a V100.
G="$D/deepbench-gemm"
mkdir -p "$G"
cat >"$G/DeepBench_NV_M40__Results_-_FP32.csv" <<'CSV'
Precision,Float
Dense Matrix Multiplication,,M,N,K,A Transpose,B Transpose,,Time (msec),TERAFLOPS
,,1760,16,1760,N,N,,0.192,0.516
CSV
expect "surfer-bench: '$G' has no kernel measured on both m40 and v100-sxm2-16" \
	accuracy --format deepbench --dataset "$G" --origin m40 --target v100
expect "surfer-bench: '$G' has no kernel measured on v100-sxm2-16" \
	accuracy --format deepbench --dataset "$G" --origin none --target v100

# own --dump: held-out predictions only (no --data: refused), and of the
# GEMMs only the tensor-core model's predicted at 0.5 ms or more (an 8192^3
# BF16 GEMM: about 1.1 ms on an H200; a 256^3 one and an FP32 one are
# left out), in tensorcore --dump's columns, the measured time in ns.
O="$D/own"
mkdir "$O"
printf 'dtype,m,n,k,latency_ms,Device\nbf16,8192,8192,8192,1.5,NVIDIA H200\nbf16,256,256,256,0.04,NVIDIA H200\nfp32,8192,8192,8192,20.0,NVIDIA H200\n' \
	>"$O/gemm.csv"
expect "surfer-bench: own: --dump writes held-out predictions: it needs --data" \
	own --dataset "$O" --dump "$D/own.csv"
# how the rows were timed: a file without kernels.py's timing column is
# every call alone; with it, the queued rows are counted apart
"$BIN" own --dataset "$O" 2>/dev/null | grep -q ': gemm 3 / 0$' ||
	{ echo "FAIL: own: 3 gemm rows timed alone not said"; fail=1; }
Q="$D/own-queued"
mkdir "$Q"
printf 'dtype,m,n,k,latency_ms,timing,Device\nbf16,8192,8192,8192,1.5,queued,NVIDIA H200\nbf16,256,256,256,0.004,queued,NVIDIA H200\nbf16,512,512,512,0.04,alone,NVIDIA H200\n' \
	>"$Q/gemm.csv"
"$BIN" own --dataset "$Q" 2>/dev/null | grep -q ': gemm 1 / 2$' ||
	{ echo "FAIL: own: 1 alone and 2 queued gemm rows not said"; fail=1; }
SH="${SHARED_DATA:-../shared/data}"
if [ -d "$SH/pipeweave" ] && [ -d "$SH/vidur" ]; then
	"$BIN" own --dataset "$O" --data "$SH" --dump "$D/own.csv" >/dev/null 2>"$D/err" ||
		{ echo "FAIL: own --dump: $(cat "$D/err")"; fail=1; }
	head -1 "$D/own.csv" | grep -qx 'gpu,dtype,m,n,k,measured_ns,roofline_ns,tc_scratch_ns,wave_ns,tc_ratio_ns,origin' ||
		{ echo "FAIL: own --dump: header '$(head -1 "$D/own.csv")'"; fail=1; }
	[ "$(wc -l <"$D/own.csv")" -eq 2 ] && grep -q '^h200,bf16,8192,8192,8192,1500000.0,' "$D/own.csv" ||
		{ echo "FAIL: own --dump: want the 8192^3 BF16 GEMM alone:"; cat "$D/own.csv"; fail=1; }
else
	echo "bench_cli: $SH absent: own --dump's held-out rows not checked"
fi
# figures --data: the launch figures fitted again from gpu-benches' files
# agree with the table (exit 1 and DIFFERS when one does not); a folder
# without them is one line, exit 2
expect "surfer-bench: figures: no gpu-small-kernels files in '$D/gpu-reference/gpu-benches/gpu-small-kernels'" \
	figures --data "$D"
if [ -d "$SH/gpu-reference/gpu-benches/gpu-small-kernels" ]; then
	"$BIN" figures --data "$SH" >"$D/fig.txt" 2>"$D/err"
	rc=$?
	[ $rc -eq 0 ] && [ "$(grep -c ' agrees$' "$D/fig.txt")" -eq 10 ] ||
		{ echo "FAIL: figures --data: exit $rc, $(grep -c ' agrees$' "$D/fig.txt") of 10 agree"; fail=1; }
else
	echo "bench_cli: $SH absent: the launch figures not fitted again"
fi
# accuracy uses the figures measured on the target's architecture, as
# surfer-analyze does: the H200's FP32 GEMM rate, 50.75 TFLOP/s measured at
# 4096^3 (gpu_specs/figures.c), times that GEMM at 2 x 4096^3 / 50.75e12 =
# 2.708 ms; --hold-out-figures predicts it as a new architecture (the
# instruction-count rule, faster); the JSON says which.  Both flags: exit 2.
mkdir -p "$D/fig"
printf '%s\n%s\n' 'OPName,Latency,Device,Torch Version,CUDNN Version,Kernel Name,Grid x,Grid y,Grid z,Block x,Block y,Block z,CUDA Version,Kernels,B,M,N,K' \
	'linear,2.708,NVIDIA H200,p2.11.0,91900,k,32,32,1,256,1,1,cu130,1,1,4096,4096,4096' >"$D/fig/linear.csv"
"$BIN" accuracy --dataset "$D/fig" --origin none --target h200 --json --dump "$D/fig-in.csv" >"$D/fig-in.json" &&
	"$BIN" accuracy --dataset "$D/fig" --origin none --target h200 --hold-out-figures --json \
		--dump "$D/fig-out.csv" >"$D/fig-out.json"
rc=$?
p_in=$(awk -F, 'NR == 2 { print $6 }' "$D/fig-in.csv")
p_out=$(awk -F, 'NR == 2 { print $6 }' "$D/fig-out.csv")
[ $rc -eq 0 ] && [ -n "$p_in" ] && [ -n "$p_out" ] &&
	awk -v i="$p_in" -v o="$p_out" 'BEGIN { e = 2 * 4096^3 / 50.75e12 * 1e9; exit !(i > 0.95 * e && i < 1.05 * e && o < 0.95 * i) }' &&
	grep -q '"figures_held_out": false' "$D/fig-in.json" && grep -q '"figures_held_out": true' "$D/fig-out.json" ||
	{ echo "FAIL: accuracy's figures: exit $rc, H200 4096^3 $p_in ns kept, $p_out held out"; fail=1; }
expect "surfer-bench: --with-figures and --hold-out-figures together" \
	accuracy --dataset "$D/fig" --origin none --target h200 --with-figures --hold-out-figures
# NeuSight's op timings hold the measuring host's floor, so accuracy adds
# it to every prediction (for a GPU its training data never timed, the
# lowest of those hosts' family floors: element-wise operators 25-34 us,
# docs/tile-model.md); --no-host-floor leaves it out, for rows timed with
# the calls queued back to back (tools/gpu/sweep.py): an H200's
# 16384 x 768 FP32 add comes out that much faster, and no faster than its
# bytes (3 x 50.3 MB) at the datasheet's 4.8 TB/s.
mkdir -p "$D/floor"
printf '%s\n%s\n' 'OPName,Latency,Device,Torch Version,CUDNN Version,Kernel Name,Grid x,Grid y,Grid z,Block x,Block y,Block z,CUDA Version,Kernels,B,H' \
	'add,0.040,NVIDIA H200,p2.11.0,91900,k,12288,1,1,128,1,1,cu130,1,16384,768' >"$D/floor/vec.csv"
"$BIN" accuracy --dataset "$D/floor" --origin none --target h200 --method auto --dump "$D/floor-on.csv" >/dev/null &&
	"$BIN" accuracy --dataset "$D/floor" --origin none --target h200 --method auto --no-host-floor \
		--dump "$D/floor-off.csv" >/dev/null
rc=$?
p_on=$(awk -F, 'NR == 2 { print $6 }' "$D/floor-on.csv")
p_off=$(awk -F, 'NR == 2 { print $6 }' "$D/floor-off.csv")
[ $rc -eq 0 ] && [ -n "$p_on" ] && [ -n "$p_off" ] &&
	awk -v a="$p_on" -v b="$p_off" 'BEGIN { d = a - b; exit !(d > 20000 && d < 35000 && b > 3 * 16384 * 768 * 4 / 4.8e12 * 1e9) }' ||
	{ echo "FAIL: accuracy --no-host-floor: exit $rc, $p_on ns with the floor, $p_off without"; fail=1; }
# rowwise on a small made-up dataset in NeuSight's layout: two GPUs of two
# architectures, layer norm and softmax rows of times that grow with the
# bytes; each GPU predicted by a fit on the other, and --emit's constants
R="$D/rw"
mkdir -p "$R/neusight/kernels/ln" "$R/neusight/kernels/softmax" "$R/neusight/kernels-test"
hdr='OPName,Latency,Device,Torch Version,CUDNN Version,Kernel Name,Warps per SM,Blocks per SM,Grid x,Grid y,Grid z,Block x,Block y,Block z,CUDA Version,Kernels,B,H'
for op in ln softmax; do
	for dev in "Tesla T4:320" "Tesla V100-PCIE-32GB:900"; do
		name=${dev%%:*} bw=${dev##*:}
		{
			echo "$hdr"
			for b in 1024 8192 65536; do
				for h in 768 2048 4096 8192; do
					awk -v b=$b -v h=$h -v bw=$bw -v op=$op -v n="$name" 'BEGIN {
						r = op == "ln" ? 3 : 3.5; t = 30000 + 4 * b * h * r / (0.9 * bw)
						k = op == "ln" ? "vectorized_layer_norm_kernel" : "cunn_SoftMaxForward"
						printf "%s,%.6f,%s,p2.1.0,8902,%s,0,0,%d,1,1,128,1,1,cu121,,%d,%d\n", op, t / 1e6, n, k, b, b, h }'
				done
			done
		} >"$R/neusight/kernels/$op/$name.csv"
	done
	cp "$R/neusight/kernels/$op/Tesla T4.csv" "$R/neusight/kernels-test/$op.csv"
	tail -n +2 "$R/neusight/kernels/$op/Tesla V100-PCIE-32GB.csv" >>"$R/neusight/kernels-test/$op.csv"
done
"$BIN" rowwise --data "$R" --own none >"$D/out" 2>"$D/err"
rc=$?
if [ $rc -ne 0 ] || [ -s "$D/err" ] || ! grep -q '^  t4 .* test  *ln  *12 ' "$D/out" ||
	! grep -q '^  v100-pcie-32 .* test  *softmax  *12 ' "$D/out" || ! grep -q 'fitted without sm_75' "$D/out" ||
	! grep -q '^  ln  *test, shape  *rowwise' "$D/out"; then
	echo "FAIL: rowwise on made-up rows: exit $rc, $(cat "$D/err")"
	cat "$D/out"
	fail=1
fi
"$BIN" rowwise --data "$R" --emit >"$D/out" 2>"$D/err"
if [ $? -ne 0 ] || ! grep -q '^const struct rowwise_params rowwise_default_params = {' "$D/out" ||
	! grep -q '^	.eff = {[0-9.]*, [0-9.]*, [0-9.]*},' "$D/out" || ! grep -q '^	.l2_share = 0\.' "$D/out"; then
	echo "FAIL: rowwise --emit on made-up rows: $(cat "$D/out" "$D/err")"
	fail=1
fi
[ $fail -eq 0 ] && echo "bench_cli: ok"
exit $fail
