# bash completion for surfer and the surfer-VERB programs: verbs, each
# program's options (read from its --help), GPU ids (surfer-analyze
# --list-gpus) after the options that take a GPU, built-in model names
# (--list-models) after --model, the values of --timing, --method, --mode.
# Installed as share/bash-completion/completions/surfer (and a link per
# surfer-VERB, so that bash-completion finds it by either name).

_surfer_verbs="record analyze import dump occupancy bench train"

# The program surfer-VERB that the command being completed would run: beside
# it when it was typed with a directory (build/surfer), else on PATH.
_surfer_prog()
{
	local cmd=$1 verb=$2
	if [[ $cmd == */* ]]; then
		printf '%s/surfer-%s' "${cmd%/*}" "$verb"
	else
		printf 'surfer-%s' "$verb"
	fi
}

_surfer_list()
{
	# first column of a table, header line dropped
	"$1" "$2" 2>/dev/null | awk 'NR > 1 && $1 != "" { print $1 }'
}

_surfer()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local cmd=${COMP_WORDS[0]} verb first i
	COMPREPLY=()
	if [[ ${cmd##*/} == surfer ]]; then
		if ((COMP_CWORD == 1)); then
			COMPREPLY=($(compgen -W "$_surfer_verbs help --help --version" -- "$cur"))
			return
		fi
		verb=${COMP_WORDS[1]}
		first=2
		if [[ $verb == help ]]; then
			((COMP_CWORD == 2)) && COMPREPLY=($(compgen -W "$_surfer_verbs" -- "$cur"))
			return
		fi
	else
		verb=${cmd##*/}
		verb=${verb#surfer-}
		cmd=${cmd%surfer-*}surfer
		first=1
	fi
	local prog analyze
	prog=$(_surfer_prog "$cmd" "$verb")
	analyze=$(_surfer_prog "$cmd" analyze)

	# surfer record ... -- PROGRAM ARGS: complete a command, then files
	if [[ $verb == record ]]; then
		for ((i = first; i < COMP_CWORD; i++)); do
			if [[ ${COMP_WORDS[i]} == -- ]]; then
				if ((i == COMP_CWORD - 1)); then
					COMPREPLY=($(compgen -c -- "$cur"))
				else
					COMPREPLY=($(compgen -f -- "$cur"))
				fi
				return
			fi
		done
	fi

	case $verb:$prev in
	*:--target | *:-t | *:--gpu | *:--holdout | analyze:--origin | analyze:-o | bench:--origin | bench:--target)
		COMPREPLY=($(compgen -W "$(_surfer_list "$analyze" --list-gpus)" -- "$cur"))
		return ;;
	*:--model)
		COMPREPLY=($(compgen -W "$(_surfer_list "$analyze" --list-models)" -f -- "$cur"))
		return ;;
	record:--timing)
		COMPREPLY=($(compgen -W "cupti events none" -- "$cur"))
		return ;;
	*:--method | *:-m)
		COMPREPLY=($(compgen -W "auto wave mlp roofline tcgemm vecop all" -- "$cur"))
		return ;;
	*:--mode)
		COMPREPLY=($(compgen -W "inference training decode generate prefill serve" -- "$cur"))
		return ;;
	analyze:--engine)
		COMPREPLY=($(compgen -W "hf vllm sglang" -- "$cur"))
		return ;;
	analyze:--dtype)
		COMPREPLY=($(compgen -W "fp32 tf32 bf16 fp16 fp8" -- "$cur"))
		return ;;
	analyze:--kv-cache-dtype)
		COMPREPLY=($(compgen -W "auto fp8 fp8_e4m3 fp8_e5m2" -- "$cur"))
		return ;;
	analyze:--attention)
		COMPREPLY=($(compgen -W "eager sdpa flash fa2 fa3 cudnn flashinfer triton" -- "$cur"))
		return ;;
	*:--rank)
		COMPREPLY=($(compgen -W "time cost" -- "$cur"))
		return ;;
	esac
	if [[ $verb == import ]] && ((COMP_CWORD == first)); then
		COMPREPLY=($(compgen -W "kineto nsys" -- "$cur"))
		return
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$("$prog" --help 2>&1 | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)" -- "$cur"))
		return
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
}

complete -o filenames -F _surfer surfer surfer-record surfer-analyze surfer-import surfer-dump \
	surfer-occupancy surfer-bench surfer-train
