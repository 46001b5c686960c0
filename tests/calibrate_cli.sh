#!/bin/sh
# calibrate_cli.sh - surfer-bench calibrate on made-up held-out dumps of two
# architectures: the table it emits holds their errors' quantiles, and the
# coverage it prints is each architecture's rows against the other's
# quantiles, worked out by hand below; bad input exits 2 with one line.
BIN="${BUILD:-build}/surfer-bench"
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
fail=0
mkdir "$D/k"
# errors log(predicted / measured): the P4 (sm_61) 0.0 .. 0.95, the T4
# (sm_75) -0.475 .. 0.475, 20 GEMMs each (0.05 apart), from a measured
# origin
row() { awk -v s="$1" 'BEGIN { print "method,op,dims,origin_ns,target_ns,predicted_ns";
	for (i = 0; i < 20; i++) printf "auto,bmm,1x2x3x4,500.0,1000.0,%.4f\n", 1000 * exp(s + 0.05 * i) }'; }
row 0 >"$D/k/Tesla_P4--Tesla_T4.csv"
row -0.475 >"$D/k/Tesla_T4--Tesla_P4.csv"
printf 'gpu,config,weights,measured_ms,predicted_ms\nt4,a.json,held-out,100,110\nt4,b.json,in-sample,100,300\n' \
	>"$D/e2e.csv"

"$BIN" calibrate --emit "$D/k" "$D/e2e.csv" >"$D/table.c" 2>"$D/err" || { echo "FAIL: --emit: $(cat "$D/err")"; fail=1; }
# auto, gemm, new architecture, trace, 40 rows; the
# quantile at 0 is the smallest error, -0.475
grep -q '{ PRED_AUTO, IV_CLASS_GEMM, PRED_DIST_NEW_ARCH, PRED_SRC_TRACE, 40, {' "$D/table.c" || { echo "FAIL: no auto/gemm/trace row of 40 in the table"; fail=1; }
grep -A1 '{ PRED_AUTO, IV_CLASS_GEMM, PRED_DIST_NEW_ARCH, PRED_SRC_TRACE, 40, {' "$D/table.c" | grep -q -- '-0.4750f' ||
	{ echo "FAIL: the gemm row does not start at -0.475"; fail=1; }
grep -q 'interval_table_len = ' "$D/table.c" || { echo "FAIL: no table length"; fail=1; }
# one held-out iteration (the in-sample one is not read): fewer than the
# rows a key needs, so no iteration row
if grep -q '{ PRED_AUTO, IV_CLASS_ITERATION,' "$D/table.c"; then echo "FAIL: an iteration row from one iteration"; fail=1; fi

# 80%: the P4's quantiles 0.095 .. 0.855 (order statistics 1.9 and 17.1
# of 0..19) hold 8 of the T4's errors (0.125 .. 0.475); the T4's -0.38 ..
# 0.38 hold 8 of the P4's (0 .. 0.35)
"$BIN" calibrate "$D/k" >"$D/cov" 2>"$D/err"
grep -Eq '^gemm +trace +sm_61 +20 +40\.0%' "$D/cov" || { echo "FAIL: sm_61 coverage"; cat "$D/cov"; fail=1; }
grep -Eq '^ +sm_75 +20 +40\.0%' "$D/cov" || { echo "FAIL: sm_75 coverage"; cat "$D/cov"; fail=1; }
grep -Eq '^ +all +40 +40\.0%' "$D/cov" || { echo "FAIL: overall coverage"; cat "$D/cov"; fail=1; }

# three architectures: the estimator described in calibrate.c computed
# here with awk: each architecture's median error plus every residual
# around any architecture's median, its quantiles at 0.1 and 0.9
mkdir "$D/k3"
cp "$D/k/Tesla_P4--Tesla_T4.csv" "$D/k/Tesla_T4--Tesla_P4.csv" "$D/k3/"
awk 'BEGIN { print "method,op,dims,origin_ns,target_ns,predicted_ns";
	for (i = 0; i < 40; i++) printf "auto,bmm,1x2x3x4,500.0,1000.0,%.4f\n", 1000 * exp(-0.3 + 0.001 * (i % 2)) }' \
	>"$D/k3/Tesla_V100-PCIE-32GB--Tesla_T4.csv"
want=$(for f in "$D"/k3/*.csv; do tail -n +2 "$f" | awk -F, -v a="$f" '{ print a, log($6 / $5) }'; done |
	sort -k1,1 -k2,2g | awk '
	{ a[NR] = $1; e[NR] = $2; n[$1]++ }
	END {
		for (i = 1; i <= NR; i++) { k = a[i]; c[k]++; v[k, c[k]] = e[i] }
		for (k in n) { m = n[k]; med[k] = m % 2 ? v[k, (m + 1) / 2] : (v[k, m / 2] + v[k, m / 2 + 1]) / 2 }
		for (k in med) for (i = 1; i <= NR; i++) print med[k] + e[i] - med[a[i]]
	}' | sort -g | awk '{ x[NR] = $1 }
	function q(p,  t, i) { t = p * (NR - 1) + 1; i = int(t); return x[i] + (t - i) * (x[i + 1] - x[i]) }
	END { printf "%.3f %.3f\n", q(0.1), q(0.9) }')
"$BIN" calibrate --emit "$D/k3" >"$D/table3.c" 2>"$D/err"
got=$(awk '/PRED_AUTO, IV_CLASS_GEMM, PRED_DIST_NEW_ARCH, PRED_SRC_TRACE/ { on = 1; next }
	on { gsub(/[f{},]/, " "); for (i = 1; i <= NF; i++) q[++n] = $i; if (n >= 41) { printf "%.3f %.3f\n", q[5], q[37]; exit } }' "$D/table3.c")
[ "$got" = "$want" ] || { echo "FAIL: three architectures: quantiles 0.1, 0.9 '$got', want '$want'"; fail=1; }

expect() {
	want=$1
	shift
	"$BIN" "$@" >/dev/null 2>"$D/err"
	rc=$?
	if [ $rc -ne 2 ] || [ "$(cat "$D/err")" != "$want" ]; then
		echo "FAIL: '$*': exit $rc, stderr '$(cat "$D/err")', want exit 2 and '$want'"
		fail=1
	fi
}
expect "surfer-bench: bad --interval '100' (a percentage between 0 and 100)" calibrate --interval 100 "$D/k"
printf 'a,b\n1,2\n' >"$D/k/Tesla_T4--none.csv"
expect "surfer-bench: '$D/k/Tesla_T4--none.csv': not a surfer-bench accuracy dump" calibrate "$D/k"
rm "$D/k/Tesla_T4--none.csv"
printf 'x\n' >"$D/k/Nosuch--Tesla_T4.csv"
expect "surfer-bench: '$D/k/Nosuch--Tesla_T4.csv': no GPU named TARGET--ORIGIN.csv" calibrate "$D/k"
[ $fail -eq 0 ] && echo "calibrate_cli.sh: ok"
exit $fail
