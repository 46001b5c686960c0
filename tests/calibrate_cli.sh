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

# The estimator described in calibrate.c, computed here with awk from the
# dumps of directory $1, architecture $2 left out ("" none): each
# architecture's median error m and its residuals at positions
# (j + 0.5) / 200 of the finite-sample order statistics (the k-th of n at
# k / (n + 1)), plus a new bias mean(m) + sd(m) sqrt(1 + 1/K) t at 200
# probabilities (j + 0.5) / 200 of Student's t with K - 1 degrees of
# freedom, in closed form for 1 (Cauchy: tan(pi (p - 1/2))) and 2
# ((2p - 1) / sqrt(2 p (1 - p))); prints the quantiles at 0.1 and 0.9.
estimate() {
	for f in "$1"/*.csv; do
		a=$(basename "$f" | sed 's/--.*//')
		tail -n +2 "$f" | awk -F, -v a="$a" '{ print a, log($6 / $5) }'
	done | awk -v x="$2" '$1 != x' | sort -k1,1 -k2,2g | awk '
	{ if (!($1 in n)) arch[++K] = $1; n[$1]++; v[$1, n[$1]] = $2 }
	END {
		pi = atan2(0, -1)
		for (i = 1; i <= K; i++) { a = arch[i]; m = n[a]
			med[a] = m % 2 ? v[a, (m + 1) / 2] : (v[a, m / 2] + v[a, m / 2 + 1]) / 2
			mean += med[a] / K }
		for (i = 1; i <= K; i++) var += (med[arch[i]] - mean) ^ 2 / (K - 1)
		sc = sqrt(var * (1 + 1 / K))
		for (i = 1; i <= K; i++) { a = arch[i]; m = n[a]
			for (j = 0; j < 200; j++) { r = (j + 0.5) / 200 * (m + 1)
				if (r <= 1) y = v[a, 1]; else if (r >= m) y = v[a, m]
				else { t = int(r); y = v[a, t] + (r - t) * (v[a, t + 1] - v[a, t]) }
				res[++nr] = y - med[a] } }
		for (j = 0; j < 200; j++) { p = (j + 0.5) / 200
			t = K == 2 ? sin(pi * (p - 0.5)) / cos(pi * (p - 0.5)) : (2 * p - 1) / sqrt(2 * p * (1 - p))
			for (i = 1; i <= nr; i++) print mean + sc * t + res[i] }
	}' | sort -g | awk '{ x[NR] = $1 }
	function q(p,  t, i) { t = p * (NR - 1) + 1; i = int(t); return x[i] + (t - i) * (x[i + 1] - x[i]) }
	END { printf "%.3f %.3f\n", q(0.1), q(0.9) }'
}
# The quantiles 0.1 and 0.9 of a table's auto/gemm/trace row.
row_q() {
	awk '/PRED_AUTO, IV_CLASS_GEMM, PRED_DIST_NEW_ARCH, PRED_SRC_TRACE/ { on = 1; next }
	on { gsub(/[f{},]/, " "); for (i = 1; i <= NF; i++) q[++n] = $i; if (n >= 41) { printf "%.3f %.3f\n", q[5], q[37]; exit } }' "$1"
}
# The share (%) of architecture $2's errors in directory $1 inside the
# interval "lo hi" ($3).
inside() {
	for f in "$1/$2"--*.csv; do tail -n +2 "$f"; done |
		awk -F, -v lo="${3% *}" -v hi="${3#* }" '{ e = log($6 / $5); n++; c += e >= lo && e <= hi }
		END { printf "%.1f%%\n", 100 * c / n }'
}

"$BIN" calibrate --emit "$D/k" "$D/e2e.csv" >"$D/table.c" 2>"$D/err" || { echo "FAIL: --emit: $(cat "$D/err")"; fail=1; }
# auto, gemm, new architecture, trace, 40 rows of two architectures:
# one degree of freedom for the new bias
grep -q '{ PRED_AUTO, IV_CLASS_GEMM, PRED_DIST_NEW_ARCH, PRED_SRC_TRACE, 40, {' "$D/table.c" || { echo "FAIL: no auto/gemm/trace row of 40 in the table"; fail=1; }
got=$(row_q "$D/table.c")
want=$(estimate "$D/k" "")
[ "$got" = "$want" ] || { echo "FAIL: two architectures: quantiles 0.1, 0.9 '$got', want '$want'"; fail=1; }
grep -q 'interval_table_len = ' "$D/table.c" || { echo "FAIL: no table length"; fail=1; }
# one held-out iteration (the in-sample one is not read): fewer than the
# rows a key needs, so no iteration row
if grep -q '{ PRED_AUTO, IV_CLASS_ITERATION,' "$D/table.c"; then echo "FAIL: an iteration row from one iteration"; fail=1; fi
# each architecture against the other alone: the spread of biases is
# unknown from one, so no interval and no coverage line
"$BIN" calibrate "$D/k" >"$D/cov" 2>"$D/err"
if grep -Eq '^gemm|sm_61|sm_75' "$D/cov"; then echo "FAIL: coverage from one architecture"; cat "$D/cov"; fail=1; fi

# three architectures (a V100 biased -0.3 with almost no scatter): the
# table's quantiles from all three (two degrees of freedom), and each
# architecture's coverage against the other two's quantiles
mkdir "$D/k3"
cp "$D/k/Tesla_P4--Tesla_T4.csv" "$D/k/Tesla_T4--Tesla_P4.csv" "$D/k3/"
awk 'BEGIN { print "method,op,dims,origin_ns,target_ns,predicted_ns";
	for (i = 0; i < 40; i++) printf "auto,bmm,1x2x3x4,500.0,1000.0,%.4f\n", 1000 * exp(-0.3 + 0.001 * (i % 2)) }' \
	>"$D/k3/Tesla_V100-PCIE-32GB--Tesla_T4.csv"
"$BIN" calibrate --emit "$D/k3" >"$D/table3.c" 2>"$D/err"
got=$(row_q "$D/table3.c")
want=$(estimate "$D/k3" "")
[ "$got" = "$want" ] || { echo "FAIL: three architectures: quantiles 0.1, 0.9 '$got', want '$want'"; fail=1; }
"$BIN" calibrate "$D/k3" >"$D/cov3" 2>"$D/err"
for a in Tesla_P4:sm_61:20 Tesla_T4:sm_75:20 Tesla_V100-PCIE-32GB:sm_70:40; do
	g=${a%%:*}; rest=${a#*:}; arch=${rest%:*}; n=${rest#*:}
	want=$(inside "$D/k3" "$g" "$(estimate "$D/k3" "$g")")
	grep -Eq "^(gemm +trace +)? *$arch +$n +$want" "$D/cov3" || { echo "FAIL: $arch coverage, want $want"; cat "$D/cov3"; fail=1; }
done

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
