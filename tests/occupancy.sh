#!/bin/sh
# occupancy.sh - surfer-occupancy on hand-computed launches and its exit
# codes.  Expected values are worked out in the comments from the limits of
# the programming guide (see gpu_specs/occupancy.c for the rules).
BIN="${BUILD:-build}/surfer-occupancy"
fail=0
n=0

# expect WANT ARGS...: stdout must equal WANT and the exit code be 0.
expect() {
	want=$1
	shift
	n=$((n + 1))
	got=$("$BIN" "$@" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] || [ "$got" != "$want" ]; then
		echo "FAIL: surfer-occupancy $*"
		echo "  want: $want (exit 0)"
		echo "  got:  $got (exit $rc)"
		fail=$((fail + 1))
	fi
}

# expect_rc RC PATTERN ARGS...: exit code RC, output containing PATTERN.
expect_rc() {
	want_rc=$1
	pattern=$2
	shift 2
	n=$((n + 1))
	got=$("$BIN" "$@" 2>&1)
	rc=$?
	case "$got" in
	*"$pattern"*) ok=1 ;;
	*) ok=0 ;;
	esac
	if [ $rc -ne "$want_rc" ] || [ $ok -ne 1 ]; then
		echo "FAIL: surfer-occupancy $*"
		echo "  want: exit $want_rc, output with '$pattern'"
		echo "  got:  exit $rc: $got"
		fail=$((fail + 1))
	fi
}

# H100 (cc 9.0): 8 warps/block, 64 slots -> 8; 32 regs = 1024/warp,
# 16 warps per quarter -> 64 warps -> 8 too; full occupancy.
expect "blocks_per_sm=8 limited_by=warps active_warps=64 occupancy=1.00" \
	--gpu h100 --threads 256 --regs 32
# T4 (cc 7.5): 16 KB static -> 64 KB / 16 KB = 4 blocks x 4 warps of 32.
expect "blocks_per_sm=4 limited_by=shared_memory active_warps=16 occupancy=0.50" \
	--gpu "Tesla T4" --threads 128 --regs 40 --smem 16K
# A100: 64 regs = 2048/warp, 8 warps per quarter -> 32 warps = 1 block.
expect "blocks_per_sm=1 limited_by=registers active_warps=32 occupancy=0.50" \
	--gpu "NVIDIA A100-SXM4-80GB" --threads 1024 --regs 64
# L4 (cc 8.9): 64 KB dynamic (opted in) + 1 KB reserve = 66560 B of 100 KB
# -> 1 block of 3 warps out of 48.
expect "blocks_per_sm=1 limited_by=shared_memory active_warps=3 occupancy=0.06" \
	--gpu l4 --threads 96 --dyn-smem 65536
# 1024 threads x 255 regs cannot run anywhere.
expect "blocks_per_sm=0 limited_by=invalid active_warps=0 occupancy=0.00" \
	--gpu rtx-4090 --threads 1024 --regs 255
# cc 8.6 holds 16 blocks; 1-warp blocks hit that limit.
expect "blocks_per_sm=16 limited_by=blocks active_warps=16 occupancy=0.33" \
	--cc 8.6 --threads 32
# Carveout 0 on A100: 1 KB + 1 KB reserve needs the 8 KB carveout -> 4.
expect "blocks_per_sm=4 limited_by=shared_memory active_warps=8 occupancy=0.12" \
	--gpu a100 --threads 64 --smem 1024 --carveout 0

expect_rc 2 "unknown GPU 'h1000'; closest: " --gpu h1000 --threads 128
expect_rc 2 "h100-sxm" --gpu h1000 --threads 128
expect_rc 2 "bad --threads 'x'" --gpu a100 --threads x
expect_rc 2 "bad --regs '-1'" --gpu a100 --threads 32 --regs -1
expect_rc 2 "need --threads" --gpu a100
expect_rc 2 "need --threads" --gpu a100 --cc 8.0 --threads 32
expect_rc 2 "unknown option '--frobnicate'" --gpu a100 --threads 32 --frobnicate
expect_rc 2 "unknown option '--thrads' (did you mean '--threads'?)" --gpu a100 --thrads 32
expect_rc 2 "option '--help' takes no value" --gpu a100 --help=1
expect_rc 2 "expected 0..100" --gpu a100 --threads 32 --carveout 101
expect_rc 2 "unknown compute capability '8.1'" --cc 8.1 --threads 32
expect_rc 0 "usage: surfer-occupancy" --help
expect_rc 0 "surfer-occupancy 0.1.0" --version

echo "occupancy.sh: $((n - fail)) of $n passed"
[ $fail -eq 0 ]
