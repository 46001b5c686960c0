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
# how often each run's interval held its measured time: every predicted
# run counted once, by the kind of its interval (BF16 training: the
# tensor-core iterations'), inside, below or above
python3 - "$tmp/syn/out" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
n = int(re.search(r"^(\d+) runs predicted of", t, re.M).group(1))
m = re.search(r"^80% intervals, the measured time inside: (\d+) of (\d+)(.*)$", t, re.M)
kinds = re.findall(r"; (tensor-core|other) iterations (\d+) of (\d+) \((\d+) below, (\d+) above\)", m.group(3))
ok = int(m.group(2)) == n and sum(int(k[2]) for k in kinds) == n
ok = ok and all(int(k[1]) + int(k[3]) + int(k[4]) == int(k[2]) for k in kinds)
ok = ok and sum(int(k[1]) for k in kinds) == int(m.group(1)) and kinds and kinds[0][0] == "tensor-core"
sys.exit(0 if ok else 1)
PY
check "interval coverage over every predicted run, by kind" $?
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

# Rows of other stacks, in the words their authors would write: the model
# by name (a built-in), by its Hub id (a config of configs/, not one of a
# longer number: Bar 7B is not bar-70b), the GPU by its name with a power
# cap below its TDP, torchao's rowwise FP8, per-op SAC, torch.compile,
# FSDP2, HSDP, FlashAttention-3, DeepSpeed's ZeRO stages and offload,
# AdamW8bit, expert parallelism, Transformer Engine for a Megatron source
# (its recipe delayed), inference rows (a vLLM decode step, a transformers
# generate()), and rows naming no model or GPU surfer knows.
mkdir -p "$tmp/oth/configs"
cfg='"model_type": "llama", "intermediate_size": 11008, "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 32, "vocab_size": 32000'
echo "{$cfg, \"hidden_size\": 4096}" >"$tmp/oth/configs/foo-7b.json"
echo "{$cfg, \"hidden_size\": 8192}" >"$tmp/oth/configs/bar-70b.json"
{
	echo "id,model,hf_config,gpu,n_gpus,dp,tp,pp,zero_or_fsdp,mode,micro_batch,seq,new_tokens,dtype,attention,act_ckpt,optimizer,compile,ms_per_iter_derived,assumptions,source"
	echo "T1,Llama 3.1 70B,meta-llama/Llama-3.1-70B,\"H100 SXM5 96GB HBM2e (500W)\",64,64,1,1,FSDP2,training,1,8192,,FP8 rowwise (torchao float8),flash,selective (op),AdamW (fused),yes,10000,none,torchtitan"
	echo "T2,Llama 3.1 70B,meta-llama/Llama-3.1-70B,\"H100 SXM5 96GB HBM2e\",64,64,1,1,FSDP2,training,1,8192,,FP8 rowwise (torchao float8),flash,selective (op),AdamW (fused),yes,10000,none,torchtitan"
	echo "H1,Qwen3 32B,Qwen/Qwen3-32B,H100 80GB (SXM assumed),16,16,1,1,\"HSDP (shard 8, replicate 2)\",training,1,4096,,bf16,FlashAttention-3,full (per block),AdamW,no,5000,GA = 2,torchtitan"
	echo "D2,Foo 7B (in-house),acme/foo-7b,A100 80GB,8,8,1,1,DeepSpeed ZeRO-2 with CPU offload,training,2,2048,,fp16,sdpa,none,AdamW,no,3000,none,deepspeed"
	echo "D3,Foo,acme/foo-7b,A100 80GB,8,8,1,1,ZeRO stage 3,training,2,2048,,bf16,flash,none,AdamW8bit,no,3000,none,deepspeed"
	echo "E1,Mixtral 8x7B,mistralai/Mixtral-8x7B-v0.1,H100 SXM5 80GB,8,8,1,1,FSDP2; EP=8,training,1,4096,,FP8,cuDNN,none,Adam,no,3000,none,Megatron-LM"
	echo "V1,Llama 3.1 8B,meta-llama/Llama-3.1-8B,H100 SXM5 80GB,1,1,1,1,none,inference decode (TPOT),32,2048,128,bf16,flash,none,none,no,20,none,vLLM benchmark"
	echo "R1,Llama 3.1 70B,meta-llama/Llama-3.1-70B,H100 SXM5 80GB,8,1,4,2,none,inference generate,16,1024,256,bf16,flash,none,none,no,9000,none,TensorRT-LLM 0.12"
	echo "G1,Llama 3.1 8B,meta-llama/Llama-3.1-8B,H100 SXM5 80GB,1,1,1,1,none,inference generate,4,512,128,bf16,sdpa,none,none,no,3000,none,transformers"
	echo "P1,Llama 3.1 70B,meta-llama/Llama-3.1-70B,H100 SXM5 80GB,256,32,8,1,FSDP2,training,1,8192,,bf16,flash,selective (op),AdamW,yes (CUDA graphs),3000,async TP,torchtitan"
	echo "K1,Llama 3.1 8B,meta-llama/Llama-3.1-8B,H100 SXM5 80GB,8,8,1,1,FSDP2,training,2,8k,,bf16,flash,none,AdamW,no,9000,GBS = 64,torchtitan"
	echo "C1,Llama 3.1 70B,meta-llama/Llama-3.1-70B,H100 SXM5 80GB,64,2,4,8,distributed optimizer; sequence parallel,training,1,4096,,bf16,TE fused,full (block; recompute_num_layers 3),distributed_fused_adam,no,9000,GA = 32,Megatron-LM"
	echo "N1,Llama 3.1 8B,meta-llama/Llama-3.1-8B,GB200 NVL72,64,64,1,1,FSDP2,training,1,8192,,bf16,flash,none,AdamW,no,2000,none,torchtitan"
	echo "M1,Llama 3.1 8B,meta-llama/Llama-3.1-8B,H100 SXM5 80GB,1,1,1,1,none,training,1,2048,,bf16,flash,none,AdamW,no,n/a,none,nowhere"
	echo "B1,Bar 7B,n/a,H100 SXM5 80GB,8,8,1,1,none,training,1,2048,,bf16,flash,none,AdamW,no,1000,none,nowhere"
	echo "Q1,Llama 2 7B,meta-llama/Llama-2-7b-hf,Quantum GPU 9000,8,8,1,1,none,training,4,2048,,bf16,flash,none,AdamW,no,3000,none,nowhere"
	echo "A1,Llama 2 7B,meta-llama/Llama-2-7b-hf,A100 80GB,8,8,1,1,FSDP FULL_SHARD,training,4,2048,,bf16,flash_attention_2,gradient checkpointing,AdamW,no,3000,none,transformers Trainer"
	echo "A2,Llama 2 7B,meta-llama/Llama-2-7b-hf,A100 80GB,8,8,1,1,FSDP FULL_SHARD,training,4,2048,,bf16,flash_attention_2,no gradient checkpointing,AdamW,no,3000,none,transformers Trainer"
	echo "A3,Llama 2 7B,meta-llama/Llama-2-7b-hf,A100 80GB,8,4,2,1,distributed optimizer,training,1,2048,,bf16,flash,--recompute-activations,AdamW,no,3000,none,Megatron-LM"
	echo "A4,Llama 2 7B,meta-llama/Llama-2-7b-hf,A100 80GB,8,8,1,1,ZeRO stage 3,training,2,2048,,bf16,flash,activation_checkpointing: true,AdamW,no,3000,none,deepspeed"
	echo "W1,Llama 2 7B,meta-llama/Llama-2-7b-hf,A100 80GB,8,8,1,1,SHARD_GRAD_OP,fine-tuning (LoRA r=16),2,2048,,bf16,flash,none,Lion,max-autotune,3000,none,accelerate"
	echo "W2,Llama 2 7B,meta-llama/Llama-2-7b-hf,A100 80GB,16,16,1,1,HYBRID_SHARD,SFT,2,2048,,bf16,flash,none,AdamW,no,3000,none,accelerate"
	echo "W3,Llama 2 7B,meta-llama/Llama-2-7b-hf,A100 80GB,8,8,1,1,HYBRID_SHARD,SFT,2,2048,,bf16,flash,none,AdamW,no,3000,none,accelerate"
	echo "W4,Llama 2 7B,meta-llama/Llama-2-7b-hf,A100 80GB,8,8,1,1,FSDP NO_SHARD,SFT,2,2048,,bf16,flash,none,none,no,3000,none,accelerate"
	echo "W5,Llama 2 7B,meta-llama/Llama-2-7b-hf,A100 80GB,1,1,1,1,none,QLoRA fine-tuning,2,2048,,bf16,flash,gradient checkpointing,paged AdamW 8-bit,no,3000,none,transformers Trainer"
	echo "Y1,Llama 3.1 8B,meta-llama/Llama-3.1-8B,H100 SXM5 80GB,64,,2,,FSDP2,training,1,8192,,bf16,flash,none,AdamW,no,3000,none,torchtitan"
	echo "Y2,Llama 3.1 8B,meta-llama/Llama-3.1-8B,H100 SXM5 80GB,8,8,1,1,FSDP2,training,,8192,,bf16,flash,none,AdamW,no,3000,global batch 32,torchtitan"
	echo "Y3,Llama 3.1 8B,meta-llama/Llama-3.1-8B,H100 SXM5 80GB,8,8,1,1,FSDP2,training,,8192,,bf16,flash,none,AdamW,no,3000,none,torchtitan"
	echo "J3,Llama 3.1 70B,meta-llama/Llama-3.1-70B,H100 SXM5 80GB,4,,,,none,inference decode (TPOT),32,2048,128,bf16,flash,none,none,no,20,none,vLLM benchmark"
	echo "W6,Llama 2 7B,meta-llama/Llama-2-7b-hf,A100 80GB,8,8,1,1,FSDP2,training,2,2048,,bf16,flash,none,AdamW,no,3000,lr=3e-4 (explorations of the schedule),torchtitan"
	echo "W7,Llama 2 7B,meta-llama/Llama-2-7b-hf,A100 80GB,1,1,1,1,none,LoRA fine-tuning,2,2048,,bf16,flash,none,AdamW,no,3000,lr=2e-4; lora_r = 32,peft"
	echo "XL1,Llama 2 7B,meta-llama/Llama-2-7b-hf,H100 SXM5 80GB,8,8,1,1,FSDP,training,4,2048,,bf16,flash,full remat,AdamW,XLA (jit),3000,none,MaxText"
	echo "XL2,Llama 2 7B,meta-llama/Llama-2-7b-hf,H100 SXM5 80GB,8,8,1,1,FSDP,training,4,2048,,bf16,flash,none,AdamW,unstated,3000,none,Levanter (JAX)"
	echo "Z7,Llama 2 7B,meta-llama/Llama-2-7b-hf,A100 80GB,8,8,1,1,deepspeed_stage_3_offload,training,2,2048,,bf16,flash,none,AdamW,no,3000,none,lightning"
	echo "Z8,Llama 2 7B,meta-llama/Llama-2-7b-hf,A100 80GB,8,8,1,1,ZeRO++,training,2,2048,,bf16,flash,none,AdamW,no,3000,none,deepspeed"
	echo "L1,Llama 2 7B,meta-llama/Llama-2-7b-hf,A100 80GB,8,8,1,1,FSDP FULL_SHARD,training,2,2048,,16-mixed,flash,none,AdamW,no,3000,none,lightning"
	echo "L2,Llama 2 7B,meta-llama/Llama-2-7b-hf,A100 80GB,8,8,1,1,FSDP FULL_SHARD,training,2,2048,,bf16-true,flash,none,AdamW,no,3000,none,lightning"
	echo "L3,Llama 2 7B,meta-llama/Llama-2-7b-hf,A100 80GB,8,8,1,1,DDP,training,2,2048,,32-true,sdpa,none,AdamW,no,3000,none,lightning"
	echo "X1,Llama 3.1 8B,meta-llama/Llama-3.1-8B,B200,8,8,1,1,FSDP2,training,2,8192,,NVFP4,flash,none,AdamW,no,3000,none,torchtitan"
	echo "J1,Llama 3.1 8B,meta-llama/Llama-3.1-8B,H100 SXM5 80GB,1,1,1,1,none,inference decode (TPOT),32,2048,128,bf16,flash,none,none,no,20,kv cache fp8,vLLM benchmark"
	echo "J2,Llama 3.1 8B,meta-llama/Llama-3.1-8B,H100 SXM5 80GB,1,1,1,1,none,inference decode (TPOT),32,2048,128,AWQ int4,flash,none,none,no,20,none,vLLM benchmark"
} >"$tmp/oth/training-runs.csv"
"$B/surfer-bench" published --data "$tmp/oth" >"$tmp/oth/out" 2>"$tmp/err"
check "published on other stacks' rows exits 0 ($(cat "$tmp/err"))" $?
row() { grep "^| $1 " "$tmp/oth/out"; }
row T1 | grep -q -- '--dtype fp8 --fp8-recipe rowwise .*--dp 64 --nodes 8 --gpus-per-node 8 --zero 3 --fsdp 2 --act-ckpt selective --stack compile --power-limit 500 |'
check "torchtitan's row: rowwise FP8, SAC, compile, FSDP2 on 8 nodes, the H100 capped at 500 W" $?
! row T2 | grep -q -- '--power-limit'
check "no cap where the row states no watts" $?
ms() { row "$1" | awk -F'|' '{ print $5 + 0 }'; }
awk -v a="$(ms T1)" -v b="$(ms T2)" 'BEGIN { exit !(a > 1.05 * b && b > 0) }'
check "the 500 W H100 predicted slower than the uncapped one ($(ms T1) vs $(ms T2) ms)" $?
row H1 | grep -q -- '--attention fa3 .*--zero 3 --hsdp --grad-accum 2 --act-ckpt full |'
check "HSDP, FlashAttention-3, GA and full checkpointing in their words" $?
row D2 | grep -q -- '--dtype fp16 --attention sdpa .*--zero 2 --offload |' &&
	row D3 | grep -q -- '--optimizer adamw-8bit --dp 8 --zero 3 |'
check "DeepSpeed's ZeRO-2 with offload and ZeRO stage 3; fp16, sdpa, AdamW8bit" $?
row E1 | grep -q -- '--dtype fp8 --fp8-recipe delayed --attention cudnn .*--ep 8 .*--stack te |'
check "a Megatron source runs Transformer Engine (its FP8 recipe delayed); EP=8" $?
row V1 | grep -q -- '| --engine vllm --mode decode --batch 32 --seq 2048 --dtype bf16 |' &&
	row G1 | grep -q -- '| --mode generate --batch 4 --seq 512 --new-tokens 128 --dtype bf16 --attention sdpa |'
check "inference rows: a vLLM decode step, a transformers generate()" $?
row R1 | grep -q -- '| engine-as-vllm | --engine vllm --mode serve --batch 16 --seq 1024 --new-tokens 256 --dtype bf16 --tp 4 --pp 2 |'
check "an engine surfer does not build (TensorRT-LLM) runs as vLLM, said in lacks; tp and pp kept" $?
row D2 | grep -q '| [-+][0-9.]*% |' && row H1 | grep -q '| [-+][0-9.]*% |' &&
	row V1 | grep -q '| [-+][0-9.]*% |'
check "a model by its Hub id in configs/, a built-in by name, an engine row: predicted" $?
row P1 | grep -q -- '| tp-comm-overlap | .*--tp 8 --sequence-parallel .*--stack compile --cuda-graphs |'
check "torchtitan's TP runs sequence-parallel norms; CUDA graphs; async TP named as lacking" $?
row K1 | grep -q -- '--batch 2 --seq 8192 .*--grad-accum 4 '
check "a sequence written 8k; GA from the global batch (64 = 2 x 8 x 4)" $?
row C1 | grep -q -- '--act-ckpt full --act-ckpt-layers 3 --stack te |'
check "Megatron's recompute_method block: --act-ckpt-layers N" $?
# the stacks' own words for checkpointing: Hugging Face's gradient
# checkpointing and DeepSpeed's activation_checkpointing every layer,
# Megatron's --recompute-activations its selective recompute
row A1 | grep -q -- '--act-ckpt full' && ! row A2 | grep -q -- '--act-ckpt' &&
	row A3 | grep -q -- '--act-ckpt selective' && row A4 | grep -q -- '--act-ckpt full'
check "gradient checkpointing, activation_checkpointing: full; --recompute-activations: selective" $?
# fine-tuning is training: LoRA's rank, QLoRA (PEFT's default rank 8, pure
# 16-bit weights), SFT; FSDP's strategies by their names (SHARD_GRAD_OP
# ZeRO-2, HYBRID_SHARD HSDP across nodes and FULL_SHARD inside one,
# NO_SHARD DDP); Inductor's max-autotune compiled; Lion run as AdamW, said;
# an optimizer 'none'
row W1 | grep -q -- '| optimizer-as-adamw | --mode training .*--optimizer adamw --lora 16 --dp 8 --zero 2 --stack compile |' &&
	row W2 | grep -q -- '--mode training .*--zero 3 --hsdp |' &&
	row W3 | grep -q -- '--mode training .*--dp 8 --zero 3 |' &&
	row W4 | grep -q -- '--mode training .*--optimizer none --dp 8 |' &&
	row W5 | grep -q -- '--mode training .*--optimizer adamw-8bit --lora 8 --qlora --precision pure --act-ckpt full |'
check "fine-tuning rows: LoRA, QLoRA, SFT; FSDP's strategy names; max-autotune; Lion as AdamW" $?
! row W6 | grep -q -- '--lora' && row W7 | grep -q -- '--lora 32 '
check "no LoRA from the r= of lr= or the lora of explorations; lora_r = 32 read past lr=2e-4" $?
# a JAX step (MaxText, Levanter; or XLA in the compile column) is compiled:
# XLA's fusions run as Inductor's, said in lacks
row XL1 | grep -q -- '| xla-as-inductor | --mode training .*--act-ckpt full --stack compile |' &&
	row XL2 | grep -q -- '| xla-as-inductor | --mode training .*--stack compile |'
check "a JAX/XLA row runs as --stack compile, xla-as-inductor in lacks" $?
row J1 | grep -q -- '| - | --engine vllm --mode decode --batch 32 --seq 2048 --dtype bf16 --kv-cache-dtype fp8 |' &&
	row J2 | grep -q -- '| weight-quantization | --engine vllm --mode decode '
row L1 | grep -q -- '--dtype fp16 ' && ! row L1 | grep -q -- '--precision' &&
	row L2 | grep -q -- '--dtype bf16 .*--precision pure' && row L3 | grep -q -- '--dtype fp32 '
check "Lightning's precisions: 16-mixed FP16 mixed, bf16-true pure BF16, 32-true FP32" $?
row Z7 | grep -q -- '--dp 8 --zero 3 --offload |' && row Z8 | grep -q -- '--dp 8 --zero 3 |'
check "Lightning's deepspeed_stage_3_offload and ZeRO++: stage 3" $?
row X1 | grep -q -- '| fp4-as-fp8 | --mode training .*--dtype fp8 '
check "FP4 linears run as FP8, said in lacks" $?
row J3 | grep -q -- '| --engine vllm --mode decode --batch 32 --seq 2048 --dtype bf16 --tp 4 |'
check "an engine row on 4 GPUs without its layout: tensor parallel over them" $?
check "an engine row's FP8 KV cache; AWQ weights named as lacking" $?
# a row without its dp: the dp that fills its GPUs, so that FSDP shards over
# them; without its micro-batch: the global batch's share of a rank, else
# said, not predicted
row Y1 | grep -q -- '--dp 32 --tp 2 --sequence-parallel --nodes 8 --gpus-per-node 8 --zero 3 --fsdp 2' &&
	row Y2 | grep -q -- '--batch 4 .*--dp 8 --zero 3 --fsdp 2' &&
	row Y3 | grep -q 'no micro-batch: the row states none'
check "a row without dp or micro-batch: dp filling the GPUs, the micro-batch from the global batch" $?
row N1 | grep -q -- '--dp 64 --nodes 16 --gpus-per-node 4 '
check "the nodes of the GPU's system: GB200 NVL72's trays of 4" $?
row M1 | grep -q 'predicted [0-9.]* ms; no measured time to compare'
check "a row without a measured time: its prediction shown, left out of the means" $?
row B1 | grep -q "no model: 'Bar 7B'" && row Q1 | grep -q "no GPU: 'Quantum GPU 9000'" &&
	grep -q '^37 runs predicted of 41:' "$tmp/oth/out"
check "a model no config or built-in names (not bar-70b), an unknown GPU: said, not predicted" $?
# each row's prediction is surfer-analyze's for its flags
flags=$(row H1 | awk -F'|' '{ print $8 }')
# shellcheck disable=SC2086
"$B/surfer-analyze" --model Qwen3-32B --target h100-sxm $flags --json >"$tmp/h1.json" 2>"$tmp/err"
check "H1's flags rerun by hand exit 0 ($(cat "$tmp/err"))" $?
python3 - "$tmp/h1.json" "$(ms H1)" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["predictions"][0]["iteration_ms"]
assert abs(p - float(sys.argv[2])) < 0.1, (p, sys.argv[2])
PY
check "H1's row predicts what surfer-analyze does with its flags" $?

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
