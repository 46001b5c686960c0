#!/bin/sh
# gpugen.sh - the table generator accepts the real tables and refuses
# broken rows with the file and line.
GEN="${BUILD:-build}/gpugen"
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail=0
n=0

cc=gpu_specs/cc_limits.csv
gpus=gpu_specs/gpus.csv

# check WANT_RC PATTERN CC_CSV GPUS_CSV
check() {
	n=$((n + 1))
	out=$("$GEN" -o "$dir/out.c" "$3" "$4" 2>&1)
	rc=$?
	case "$out" in
	*"$2"*) ok=1 ;;
	*) ok=0 ;;
	esac
	if [ $rc -ne "$1" ] || [ $ok -ne 1 ]; then
		echo "FAIL: gpugen $3 $4: want exit $1 with '$2', got exit $rc: $out"
		fail=$((fail + 1))
	fi
}

# The real tables generate one entry per data row.
check 0 "" $cc $gpus
rows=$(grep -v '^#' $gpus | grep -c .)
n=$((n + 1))
if ! grep -q "gpu_table_len = $((rows - 1));" "$dir/out.c"; then
	echo "FAIL: generated table does not hold $((rows - 1)) GPUs"
	fail=$((fail + 1))
fi

# A GPU row with a field missing.
sed 's/^t4,NVIDIA T4,Tesla T4,7.5,40,/t4,NVIDIA T4,Tesla T4,7.5,/' $gpus >"$dir/g1.csv"
line=$(grep -n '^t4,' "$dir/g1.csv" | cut -d: -f1)
h=$(grep '^id,' $gpus | tr ',' '\n' | grep -c .)
check 2 "g1.csv:$line: $((h - 1)) fields, the header has $h" $cc "$dir/g1.csv"

# Not a number.
sed 's/^t4,NVIDIA T4,Tesla T4,7.5,40,/t4,NVIDIA T4,Tesla T4,7.5,forty,/' $gpus >"$dir/g2.csv"
check 2 "sms: 'forty' is not a non-negative integer" $cc "$dir/g2.csv"

# A compute capability without limits.
sed 's/^t4,NVIDIA T4,Tesla T4,7.5,/t4,NVIDIA T4,Tesla T4,7.2,/' $gpus >"$dir/g3.csv"
check 2 "cc 7.2 is not in" $cc "$dir/g3.csv"

# AMD gfx targets: hex, gfx9xx, three digits.
sed 's/^mi210,\(.*\),gfx90a,/mi210,\1,gfx9zz,/' $gpus >"$dir/g6.csv"
check 2 "cc: 'gfx9zz' is not an AMD gfx9xx target" $cc "$dir/g6.csv"
sed 's/^mi210,\(.*\),gfx90a,/mi210,\1,gfx80a,/' $gpus >"$dir/g7.csv"
check 2 "cc: 'gfx80a' is not an AMD gfx9xx target" $cc "$dir/g7.csv"
sed 's/^mi210,\(.*\),gfx90a,/mi210,\1,gfx90c,/' $gpus >"$dir/g8.csv"
check 2 "cc gfx90c is not in" $cc "$dir/g8.csv"

# The same id twice.
sed 's/^a10g,/a10,/' $gpus >"$dir/g4.csv"
check 2 "id 'a10' listed twice" $cc "$dir/g4.csv"

# An id that is not lower case.
sed 's/^t4,/T4,/' $gpus >"$dir/g5.csv"
check 2 "id 'T4' must be lower-case" $cc "$dir/g5.csv"

# Carveouts out of order, and a largest carveout that is not the SM's.
sed 's#^7.5,\(.*\),32/64,#7.5,\1,64/32,#' $cc >"$dir/c1.csv"
check 2 "carveouts_kb must be ascending" "$dir/c1.csv" $gpus
sed 's#^7.5,\(.*\),32/64,#7.5,\1,32/48,#' $cc >"$dir/c2.csv"
check 2 "the largest carveout must equal smem_per_sm" "$dir/c2.csv" $gpus

# A renamed column.
sed 's/^id,name,aliases,/id,label,aliases,/' $gpus >"$dir/g6.csv"
check 2 "column 2 must be 'name'" $cc "$dir/g6.csv"

# Quotes: one left open, text after a closing one, a quoted line break; a
# quoted comma is one field.
line=$(grep -n '^t4,' $gpus | cut -d: -f1)
sed 's/^t4,NVIDIA T4,/t4,"NVIDIA T4,/' $gpus >"$dir/q1.csv"
check 2 "q1.csv:$line: unterminated quote" $cc "$dir/q1.csv"
sed 's/^t4,NVIDIA T4,/t4,"NVIDIA" T4,/' $gpus >"$dir/q2.csv"
check 2 "q2.csv:$line: text after a closing quote" $cc "$dir/q2.csv"
sed 's/^t4,NVIDIA T4,/t4,"NVIDIA\
T4",/' $gpus >"$dir/q3.csv"
check 2 "q3.csv:$line: a quoted field spans lines" $cc "$dir/q3.csv"
sed 's/^t4,NVIDIA T4,/t4,"NVIDIA T4, ""16 GB""",/' $gpus >"$dir/q4.csv"
check 0 "" $cc "$dir/q4.csv"
n=$((n + 1))
if ! grep -q 'NVIDIA T4, \\"16 GB\\"' "$dir/out.c"; then
	echo "FAIL: a quoted name with a comma and quotes is not one field"
	fail=$((fail + 1))
fi

check 2 "cannot open" $cc "$dir/missing.csv"

echo "gpugen.sh: $((n - fail)) of $n passed"
[ $fail -eq 0 ]
