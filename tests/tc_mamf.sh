#!/bin/sh
# tc_mamf.sh - the tensor-core GEMM model's MAMF rule (predictor/tcgemm.c)
# against an architecture it never saw: fitted on the shared data folder's
# measured GEMMs and the MAMF figures with Hopper (compute capability 9.0:
# its GEMMs and its figures) left out, it must give the H100 SXM, H200 and
# GH200 their published best-matmul shares (ml-engineering's MAMF table,
# gpu_specs/figures.c) within 8 % each.  Skipped when ../shared/data is
# absent (the data never enters the repository).
. "$(dirname "$0")/lib.sh"
DATA="${SHARED_DATA:-../shared/data}"
if [ ! -d "$DATA/vidur" ] || [ ! -d "$DATA/deepbench" ]; then
	echo "tc_mamf: skipped ($DATA absent)"
	exit 0
fi
test_tmp tc_mamf
"$B/surfer-bench" tensorcore --data "$DATA" --mamf --gpu h100-sxm >"$tmp/out" 2>"$tmp/err"
check "tensorcore --mamf exits 0 ($(cat "$tmp/err"))" $?
for g in h100-sxm h200 gh200; do
	awk -v g="$g" '$1 == g && $4 ~ /%$/ { e = $4 + 0; ok = e > -8 && e < 8 } END { exit !ok }' \
		"$tmp/out"
	check "the rule without Hopper gives $g its figure within 8 % ($(grep "^$g " "$tmp/out"))" $?
done
# nothing of another architecture in a Hopper-only run
[ "$(grep -c '^a100\|^b200\|^gb200' "$tmp/out")" -eq 0 ]
check "only Hopper's GPUs held out" $?
finish tc_mamf
