#!/bin/sh
# published.sh - surfer-bench published against the published training
# step times of ../shared/data/published (skipped when the folder is
# absent: the data never enters the repository).  Every run is predicted,
# each row of the table carries an error, and the training-stack flags
# (gradient accumulation, activation checkpointing, FP8, stacks) predict
# the runs closer than the flags the model path had before them.
. "$(dirname "$0")/lib.sh"
test_tmp published

# Activation checkpointing a row leaves unstated is taken to be full when
# the estimate without it does not fit the GPU (a published run fitted):
# Llama 2 7B, 4 x 16384 tokens on one A100 80GB, cannot hold its
# activations beside its weights, gradients and AdamW's moments (each
# block's input alone, 32 layers x 4 x 16384 tokens x 4096 x 2 bytes, is
# 16 GiB, a block saves many times that); 1 x 512 tokens fits; "none"
# stays none.
cols="id,model,gpu,n_gpus,dp,tp,pp,zero_or_fsdp,micro_batch,seq,dtype,attention,act_ckpt,optimizer,compile,ms_per_iter_derived,assumptions"
mkdir "$tmp/syn"
{
	echo "$cols"
	echo "U1,Llama 2 7B,A100 80GB,1,1,1,1,none,4,16384,bf16,flash,unstated,AdamW,no,1000,none"
	echo "N1,Llama 2 7B,A100 80GB,1,1,1,1,none,4,16384,bf16,flash,none,AdamW,no,1000,none"
	echo "U2,Llama 2 7B,A100 80GB,1,1,1,1,none,1,512,bf16,flash,unstated,AdamW,no,1000,none"
	echo "S1,Llama 2 7B,A100 80GB,2,1,2,1,distributed optimizer; sequence parallel,1,512,bf16,flash,none,AdamW,no,1000,none"
	echo "S2,Llama 2 7B,A100 80GB,2,1,2,1,none,1,512,bf16,flash,none,AdamW,no,1000,TP=2 (REDUCE_SCATTER mode)"
	echo "S3,Llama 2 7B,A100 80GB,2,1,2,1,none,1,512,bf16,flash,none,AdamW,no,1000,none"
	echo "F1,Llama 2 7B,A100 80GB,8,8,1,1,PyTorch FSDP1 FULL_SHARD,1,512,amp_bf16 (MP mode DEFAULT),flash,none,AdamW,no,1000,none"
	echo "F2,Llama 2 7B,A100 80GB,8,8,1,1,PyTorch FSDP1 FULL_SHARD,1,512,bf16 (MP mode PURE),flash,none,AdamW,no,1000,none"
	echo "F3,Llama 2 7B,A100 80GB,8,8,1,1,FSDP2 (8),1,512,bf16,flash,none,AdamW,no,1000,none"
	echo "F4,Llama 2 7B,A100 80GB,8,8,1,1,Megatron-FSDP (FSDP=1),1,512,bf16 (TE),flash,none,AdamW,no,1000,none"
} >"$tmp/syn/training-runs.csv"
"$B/surfer-bench" published --data "$tmp/syn" >"$tmp/syn/out" 2>"$tmp/err"
check "published on a synthetic table exits 0 ($(cat "$tmp/err"))" $?
grep '^| U1 ' "$tmp/syn/out" | grep -q -- 'act-ckpt-assumed |.*--act-ckpt full'
check "unstated checkpointing that cannot fit is taken as full" $?
! grep '^| N1 ' "$tmp/syn/out" | grep -q -- '--act-ckpt' &&
	! grep '^| U2 ' "$tmp/syn/out" | grep -q -- '--act-ckpt'
check "stated none, and unstated that fits, stay without checkpointing" $?
# Sequence parallelism where a row states it (Megatron's words or nanotron's
# tp_mode), not otherwise
grep '^| S1 ' "$tmp/syn/out" | grep -q -- '--tp 2 --sequence-parallel' &&
	grep '^| S2 ' "$tmp/syn/out" | grep -q -- '--sequence-parallel' &&
	! grep '^| S3 ' "$tmp/syn/out" | grep -q -- '--sequence-parallel'
check "stated sequence parallelism gives --sequence-parallel" $?
# The FSDP a row names: FSDP1 (Composer's PURE mode reducing in BF16),
# FSDP2, and Megatron's under TE by default
grep '^| F1 ' "$tmp/syn/out" | grep -q -- '--zero 3 --fsdp 1 ' &&
	! grep '^| F1 ' "$tmp/syn/out" | grep -q -- '--fsdp-reduce' &&
	grep '^| F2 ' "$tmp/syn/out" | grep -q -- '--zero 3 --fsdp 1 --fsdp-reduce bf16' &&
	grep '^| F3 ' "$tmp/syn/out" | grep -q -- '--zero 3 --fsdp 2' &&
	grep '^| F4 ' "$tmp/syn/out" | grep -q -- '--zero 3 ' &&
	! grep '^| F4 ' "$tmp/syn/out" | grep -q -- '--fsdp'
check "the FSDP a row names gives --fsdp (and PURE --fsdp-reduce bf16)" $?

DATA="${SHARED_DATA:-../shared/data}/published"
if [ ! -f "$DATA/training-runs.csv" ]; then
	echo "published: skipped ($DATA absent)"
	finish published
	exit $?
fi
"$B/surfer-bench" published --data "$DATA" >"$tmp/after" 2>"$tmp/err"
check "published exits 0 ($(cat "$tmp/err"))" $?
"$B/surfer-bench" published --data "$DATA" --before >"$tmp/before" 2>"$tmp/err"
check "published --before exits 0 ($(cat "$tmp/err"))" $?
runs=$(grep -c '^| [A-Z]' "$tmp/after")
rows=$(($(wc -l <"$DATA/training-runs.csv") - 1))
total=$(sed -n 's/^\([0-9]*\) runs predicted of \([0-9]*\).*/\1 \2/p' "$tmp/after")
[ "$total" = "$runs $runs" ] && [ "$runs" -gt 0 ]
check "every run of the table predicted ($total; $runs rows)" $?
[ "$rows" -ge "$runs" ]
check "no more rows than runs in the CSV ($runs, $rows lines)" $?
grep '^| [A-Z]' "$tmp/after" | awk -F'|' '$6 !~ /^ [-+][0-9.]+% $/ { bad = 1 } END { exit bad }'
check "each row has an error" $?
mean() { sed -n 's/.*mean |error| \([0-9.]*\)%.*/\1/p' "$1"; }
a=$(mean "$tmp/after")
b=$(mean "$tmp/before")
awk -v a="$a" -v b="$b" 'BEGIN { exit !(a > 0 && a < b) }'
check "the stacks' flags predict closer than before ($a% vs $b%)" $?
grep -q -- '--grad-accum' "$tmp/after" && ! grep -q -- '--grad-accum' "$tmp/before"
check "the flags printed per run differ as --before says" $?
finish published
