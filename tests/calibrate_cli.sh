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

# The estimator described in calibrate.c with the factor's rank over the
# errors pooled (--weigh rows; the default's is worked by hand further
# down), computed here with awk from the
# dumps of directory $1, architecture $2 left out ("" none): each
# architecture's errors at positions (j + 0.5) / 200 of the finite-sample
# order statistics (the k-th of n at k / (n + 1)), mixed; each
# architecture in turn left out of that mixture, and each of its errors
# giving the factor the mixture's 0.1 .. 0.9 interval needed about its
# median to hold it; the factor of rank ceil(0.8 (n + 1)) of the n widens
# the mixture of all about its median.  Prints the widened quantiles at
# 0.1 and 0.9.
estimate() {
	for f in "$1"/*.csv; do
		a=$(basename "$f" | sed 's/--.*//')
		tail -n +2 "$f" | awk -F, -v a="$a" '{ print a, log($6 / $5) }'
	done | awk -v x="$2" '$1 != x' | sort -k1,1 -k2,2g | awk '
	function sortv(v, m,  i, j, t) { for (i = 2; i <= m; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t } }
	function q(v, m, p,  t, i) { t = p * (m - 1) + 1; i = int(t); return i < m ? v[i] + (t - i) * (v[i + 1] - v[i]) : v[m] }
	# the mixture of every architecture but skip into mix[1..m]; qc, ql, qh
	function mixture(skip,  i, j, m) { m = 0
		for (i = 1; i <= K; i++) if (arch[i] != skip) for (j = 1; j <= 200; j++) mix[++m] = pos[arch[i], j]
		sortv(mix, m); qc = q(mix, m, 0.5); ql = q(mix, m, 0.1); qh = q(mix, m, 0.9) }
	{ if (!($1 in n)) arch[++K] = $1; n[$1]++; v[$1, n[$1]] = $2 }
	END {
		for (i = 1; i <= K; i++) { a = arch[i]; m = n[a]
			for (j = 0; j < 200; j++) { r = (j + 0.5) / 200 * (m + 1)
				if (r <= 1) y = v[a, 1]; else if (r >= m) y = v[a, m]
				else { t = int(r); y = v[a, t] + (r - t) * (v[a, t + 1] - v[a, t]) }
				pos[a, j + 1] = y } }
		ns = 0
		for (i = 1; i <= K; i++) { a = arch[i]; mixture(a)
			for (j = 1; j <= n[a]; j++) { e = v[a, j]
				sc[++ns] = e == qc ? 0 : e > qc ? (e - qc) / (qh - qc) : (e - qc) / (ql - qc) } }
		sortv(sc, ns); r = 0.8 * (ns + 1); k = int(r); if (k < r) k++; if (k > ns) k = ns
		mixture("")
		printf "%.3f %.3f\n", qc + sc[k] * (ql - qc), qc + sc[k] * (qh - qc)
	}'
}
# The quantiles 0.1 and 0.9 of a table's auto/gemm/trace row (at the
# distance $2, default a new architecture).
row_q() {
	awk -v d="${2:-PRED_DIST_NEW_ARCH}" '$0 ~ "PRED_AUTO, IV_CLASS_GEMM, " d ", PRED_SRC_TRACE" { on = 1; next }
	on { gsub(/[f{},]/, " "); for (i = 1; i <= NF; i++) q[++n] = $i; if (n >= 41) { printf "%.3f %.3f\n", q[5], q[37]; exit } }' "$1"
}
# The share (%) of architecture $2's errors in directory $1 inside the
# interval "lo hi" ($3).
inside() {
	for f in "$1/$2"--*.csv; do tail -n +2 "$f"; done |
		awk -F, -v lo="${3% *}" -v hi="${3#* }" '{ e = log($6 / $5); n++; c += e >= lo && e <= hi }
		END { printf "%.1f%%\n", 100 * c / n }'
}

"$BIN" calibrate --emit --weigh rows "$D/k" "$D/e2e.csv" >"$D/table.c" 2>"$D/err" || { echo "FAIL: --emit: $(cat "$D/err")"; fail=1; }
# auto, gemm, new architecture, trace, 40 rows of two architectures:
# one degree of freedom for the new bias
grep -q '{ PRED_AUTO, IV_CLASS_GEMM, PRED_DIST_NEW_ARCH, PRED_SRC_TRACE, 40, {' "$D/table.c" || { echo "FAIL: no auto/gemm/trace row of 40 in the table"; fail=1; }
got=$(row_q "$D/table.c")
want=$(estimate "$D/k" "")
[ "$got" = "$want" ] || { echo "FAIL: two architectures: quantiles 0.1, 0.9 '$got', want '$want'"; fail=1; }
grep -q 'interval_table_len = ' "$D/table.c" || { echo "FAIL: no table length"; fail=1; }
# the architectures whose errors it holds: the P4's and the T4's, the
# e2e dump's T4 once
tr -d '\n\t' <"$D/table.c" | grep -q 'interval_table_archs\[\] = {61, 75};const size_t interval_table_narchs = 2;' ||
	{ echo "FAIL: the table's architectures, want 61 and 75:"; grep -A3 interval_table_archs "$D/table.c"; fail=1; }
# one held-out iteration (the in-sample one is not read): fewer than the
# rows a key needs, so no iteration row
if grep -q '{ PRED_AUTO, IV_CLASS_ITERATION,' "$D/table.c"; then echo "FAIL: an iteration row from one iteration"; fail=1; fi
# each architecture against the other alone: the spread of biases is
# unknown from one, so no interval and no coverage line
"$BIN" calibrate --weigh rows "$D/k" >"$D/cov" 2>"$D/err"
if grep -Eq '^gemm|sm_61|sm_75' "$D/cov"; then echo "FAIL: coverage from one architecture"; cat "$D/cov"; fail=1; fi

# three architectures (a V100 biased -0.3 with almost no scatter): the
# table's quantiles from all three (two degrees of freedom), and each
# architecture's coverage against the other two's quantiles
mkdir "$D/k3"
cp "$D/k/Tesla_P4--Tesla_T4.csv" "$D/k/Tesla_T4--Tesla_P4.csv" "$D/k3/"
awk 'BEGIN { print "method,op,dims,origin_ns,target_ns,predicted_ns";
	for (i = 0; i < 40; i++) printf "auto,bmm,1x2x3x4,500.0,1000.0,%.4f\n", 1000 * exp(-0.3 + 0.001 * (i % 2)) }' \
	>"$D/k3/Tesla_V100-PCIE-32GB--Tesla_T4.csv"
"$BIN" calibrate --emit --weigh rows "$D/k3" >"$D/table3.c" 2>"$D/err"
got=$(row_q "$D/table3.c")
want=$(estimate "$D/k3" "")
[ "$got" = "$want" ] || { echo "FAIL: three architectures: quantiles 0.1, 0.9 '$got', want '$want'"; fail=1; }
"$BIN" calibrate --weigh rows "$D/k3" >"$D/cov3" 2>"$D/err"
for a in Tesla_P4:sm_61:20 Tesla_T4:sm_75:20 Tesla_V100-PCIE-32GB:sm_70:40; do
	g=${a%%:*}; rest=${a#*:}; arch=${rest%:*}; n=${rest#*:}
	want=$(inside "$D/k3" "$g" "$(estimate "$D/k3" "$g")")
	grep -Eq "^(auto gemm trace new-architecture +)? *$arch +$n +$want" "$D/cov3" || { echo "FAIL: $arch coverage, want $want"; cat "$D/cov3"; fail=1; }
done

# Another input of the same keys adds nothing (an earlier input speaks
# for its keys), unless joined to it with '+': the V100's dump apart from
# the P4's and T4's gives the two-architecture row alone, joined the
# three-architecture one above, quantiles and all.
mkdir "$D/k3a" "$D/k3b"
cp "$D/k/Tesla_P4--Tesla_T4.csv" "$D/k/Tesla_T4--Tesla_P4.csv" "$D/k3a/"
cp "$D/k3/Tesla_V100-PCIE-32GB--Tesla_T4.csv" "$D/k3b/"
"$BIN" calibrate --emit --weigh rows "$D/k3a" "$D/k3b" >"$D/tsep.c" 2>"$D/err"
grep -q '{ PRED_AUTO, IV_CLASS_GEMM, PRED_DIST_NEW_ARCH, PRED_SRC_TRACE, 40, {' "$D/tsep.c" ||
	{ echo "FAIL: a later input of the same key was taken"; fail=1; }
"$BIN" calibrate --emit --weigh rows "$D/k3a" "+$D/k3b" >"$D/tjoin.c" 2>"$D/err"
grep -q '{ PRED_AUTO, IV_CLASS_GEMM, PRED_DIST_NEW_ARCH, PRED_SRC_TRACE, 80, {' "$D/tjoin.c" ||
	{ echo "FAIL: +DIR: no row of the 80 GEMMs of three architectures"; cat "$D/tjoin.c" "$D/err"; fail=1; }
got=$(row_q "$D/tjoin.c")
want=$(estimate "$D/k3" "")
[ "$got" = "$want" ] || { echo "FAIL: +DIR: quantiles 0.1, 0.9 '$got', want '$want'"; fail=1; }
# a joined e2e dump: two held-out iterations of one GPU each, one key
printf 'gpu,config,weights,measured_ms,predicted_ms\nh200,a.json,held-out,100,90\n' >"$D/e2e-h200.csv"
"$BIN" calibrate --emit "$D/k3" "$D/e2e.csv" "+$D/e2e-h200.csv" >"$D/tje.c" 2>"$D/err" ||
	{ echo "FAIL: +FILE.csv: $(cat "$D/err")"; fail=1; }
grep -q '/\* auto iteration config new-architecture: 2 rows of 2 groups' "$D/tje.c" ||
	{ echo "FAIL: +FILE.csv: the joined iteration not counted"; grep iteration "$D/tje.c"; fail=1; }

# Five architectures of pure biases (every error of one the same), worked
# out by hand: a mixture of m <= 9 such architectures has its 0.1 quantile
# at the smallest bias, its 0.9 quantile at the largest and its median at
# the middle one (the mean of the middle two for even m).  Biases: P100
# -0.1, V100 0, T4 0.05, A100 0.1 (10 GEMMs each) and a P4 far off at 1.0
# (2 GEMMs).  Factors each error needs from the mixture of the others
# (P100 from V100, T4, A100, P4: median 0.075, 0.1 quantile 0: 0.175 /
# 0.075 = 2.333; V100 0.429; T4 0 (the median); A100 0.075 / 0.975 =
# 0.077; P4 0.975 / 0.075 = 13): of the 42, the 35th (ceil(0.8 * 43))
# smallest is 2.333, so the table's interval is the mixture of all five
# (median 0.05, -0.1 .. 1.0) widened 2.333 times: -0.3 .. 2.267.
# Each left out in turn, from the other four (with factors from them
# alone, the 27th of 32, or the 33rd of 40 without the P4):
#   P4:   factors 3, 0.333, 0.5, 2 -> 3; -0.1 .. 0.1 about 0.025:
#         -0.35 .. 0.25, 1.0 outside: 0 of 2
#   P100: factors 2, 0.5, 0.053, 19 (P4, 2 rows) -> 2; 0 .. 1 about
#         0.075: -0.075 .. 1.925, -0.1 outside: 0 of 10
#   V100: -> 4; -0.625 .. 3.775: 10 of 10
#   T4:   -> 2; -0.25 .. 1.95: 10 of 10
#   A100: -> 3; -0.35 .. 2.95: 10 of 10
# so 30 of 42, 71.4 %.  The P4's factors (13 to 20) do not widen the
# others': they are 2 of the 32 to 42 factors, beyond the rank taken.
mkdir "$D/k5"
# (from an L4: another architecture than every target's)
bias() { awk -v b="$2" -v n="$3" 'BEGIN { print "method,op,dims,origin_ns,target_ns,predicted_ns";
	for (i = 0; i < n; i++) printf "auto,bmm,1x2x3x4,500.0,1000.0,%.4f\n", 1000 * exp(b) }' >"$D/k5/$1--NVIDIA_L4.csv"; }
bias Tesla_P100-PCIE-16GB -0.1 10
bias Tesla_V100-PCIE-32GB 0 10
bias Tesla_T4 0.05 10
bias NVIDIA_A100-PCIE-40GB 0.1 10
bias Tesla_P4 1.0 2
"$BIN" calibrate --emit --weigh rows "$D/k5" >"$D/table5.c" 2>"$D/err"
got=$(row_q "$D/table5.c")
[ "$got" = "-0.300 2.267" ] || { echo "FAIL: five pure biases: quantiles 0.1, 0.9 '$got', want '-0.300 2.267'"; fail=1; }
grep -q 'auto gemm trace: 5 architectures, scale 2.333 ' "$D/table5.c" || { echo "FAIL: five pure biases: no scale 2.333 in the table"; grep 'auto gemm trace' "$D/table5.c"; fail=1; }
"$BIN" calibrate --weigh rows "$D/k5" >"$D/cov5" 2>"$D/err"
for a in sm_60:10:0.0:2.00 sm_61:2:0.0:3.00 sm_70:10:100.0:4.00 sm_75:10:100.0:2.00 sm_80:10:100.0:3.00; do
	arch=${a%%:*}; rest=${a#*:}; n=${rest%%:*}; rest=${rest#*:}; want=${rest%:*}; scale=${rest#*:}
	grep -Eq "^(auto gemm trace new-architecture +)? *$arch +$n +$want% .*scale $scale\)" "$D/cov5" ||
		{ echo "FAIL: five pure biases: $arch, want $n rows, $want % covered, scale $scale"; cat "$D/cov5"; fail=1; }
done
sed -n '/^kernels/,/^iterations/p' "$D/cov5" | grep -Eq '^ +all +42 +71\.4%' ||
	{ echo "FAIL: five pure biases: kernels pooled, want 71.4 % of 42"; cat "$D/cov5"; fail=1; }
# The same with 40 GEMMs of the P4: its factor (13) is now 40 of the 80,
# so the rank ceil(0.8 * 81) = 65 of the errors pooled falls on it (scale
# 13), where each architecture alike (--weigh groups: each error of
# architecture b weighs 1 / (5 n_b)) the smallest factor that holds four
# of the five, 80 %, is the P100's 2.333 as before.
bias Tesla_P4 1.0 40
"$BIN" calibrate --emit --weigh rows "$D/k5" >"$D/table5r.c" 2>"$D/err"
grep -q 'auto gemm trace: 5 architectures, scale 13.000 ' "$D/table5r.c" ||
	{ echo "FAIL: a P4 of 40 GEMMs, rows pooled: want scale 13.000"; grep 'auto gemm trace' "$D/table5r.c"; fail=1; }
"$BIN" calibrate --emit --weigh groups "$D/k5" >"$D/table5g.c" 2>"$D/err"
grep -q 'auto gemm trace: 5 architectures, scale 2.333 ' "$D/table5g.c" ||
	{ echo "FAIL: a P4 of 40 GEMMs, groups alike: want scale 2.333"; grep 'auto gemm trace' "$D/table5g.c"; fail=1; }
grep -q 'calibrate --emit --weigh groups ' "$D/table5g.c" || { echo "FAIL: --weigh groups not in the table's command"; fail=1; }

# The default rank (--weigh re): the smallest factor at which the
# random-effects mean of the left-out groups' coverages reaches 80 %
# (lab_re_mean(): each group's share counts by 1 / (v + tau2), v = p (1 -
# p) / n at the pooled share p, tau2 = max(0, (Q - (k - 1)) / (W - sum
# w^2 / W)), w = 1 / v).  Pure biases: each group's coverage is 0 or 1,
# so Q = N (the rows).  The table, the P4 of 40 GEMMs: at 2.333 (every
# group but the P4, 40 of 80 rows) p = 0.5, v = 0.025 (10 rows), 0.00625
# (40), W = 4 * 40 + 160 = 320, sum w^2 = 4 * 1600 + 25600 = 32000, den =
# 320 - 100 = 220, tau2 = (80 - 4) / 220 = 0.34545; weights 1 / 0.37045 =
# 2.6994 and 1 / 0.35170 = 2.8433: mean 4 * 2.6994 / (4 * 2.6994 + 2.8433)
# = 0.7916 < 0.8, so the P4's 13 (all covered).  The P4 of 2 GEMMs: at
# 2.333 (40 of 42) p = 0.95238, v = 0.0045351 (10), 0.022676 (2), w =
# 220.5, 44.1, W = 926.1, sum w^2 = 196425.8, den = 714.0, tau2 = 38 /
# 714.0 = 0.053221; weights 17.314, 13.176: mean 69.257 / 82.433 =
# 0.8402; at the factor below, 0.429 (30 of 42: P100 and P4 out) p =
# 0.71429, v = 0.020408, 0.10204, w = 49, 9.8, W = 205.8, sum w^2 =
# 9700.0, den = 158.67, tau2 = 38 / 158.67 = 0.23949; weights 3.8481,
# 2.9283: mean 11.544 / 18.336 = 0.6296: the scale is 2.333 (as the rows'
# rank).
"$BIN" calibrate --emit "$D/k5" >"$D/table5e.c" 2>"$D/err"
grep -q 'auto gemm trace: 5 architectures, scale 13.000 ' "$D/table5e.c" ||
	{ echo "FAIL: a P4 of 40 GEMMs, random-effects: want scale 13.000"; grep 'auto gemm trace' "$D/table5e.c"; fail=1; }
if grep -q 'calibrate --emit --weigh' "$D/table5e.c"; then echo "FAIL: the default named in the table's command"; fail=1; fi
bias Tesla_P4 1.0 2
"$BIN" calibrate --emit "$D/k5" >"$D/table5e2.c" 2>"$D/err"
grep -q 'auto gemm trace: 5 architectures, scale 2.333 ' "$D/table5e2.c" ||
	{ echo "FAIL: a P4 of 2 GEMMs, random-effects: want scale 2.333"; grep 'auto gemm trace' "$D/table5e2.c"; fail=1; }
# The P100 left out (the P4 of 2 GEMMs): the others' factors V100 2, T4
# 0.5, A100 0.053, P4 19 (above).  At 2 (30 of 32 rows) p = 0.9375, v =
# 0.0058594 (10), 0.029297 (2), w = 170.67, 34.133, W = 546.13, sum w^2
# = 88546, den = 384.0, tau2 = (32 - 3) / 384.0 = 0.075521; weights
# 12.288, 9.5404: mean 36.864 / 46.405 = 0.7944 < 0.8, so 19: the
# mixture of V100, T4, A100 and P4 (median 0.075, 0 .. 1) widened 19
# times, -1.35 .. 17.65, holds the P100's -0.1: 10 of 10.  The P4 left
# out: four groups of 10, each alike, the largest factor of the four, 3
# (as the rows' rank): 0 of 2.
"$BIN" calibrate "$D/k5" >"$D/cov5e" 2>"$D/err"
for a in sm_60:10:100.0:19.00 sm_61:2:0.0:3.00; do
	arch=${a%%:*}; rest=${a#*:}; n=${rest%%:*}; rest=${rest#*:}; want=${rest%:*}; scale=${rest#*:}
	grep -Eq "^(auto gemm trace new-architecture +)? *$arch +$n +$want% .*scale $scale\)" "$D/cov5e" ||
		{ echo "FAIL: random-effects: $arch, want $n rows, $want % covered, scale $scale"; cat "$D/cov5e"; fail=1; }
done

# Distances.  A board predicted from another board of its die (GP102:
# TITAN Xp, GTX 1080 Ti; GM200: M40, TITAN X) is a key of its own, its
# groups the target boards: three boards give it a row, the estimator's
# over those boards alone, and the new architecture's row is as it was.
mkdir "$D/sd"
row 0 >"$D/sd/titan-xp--gtx-1080-ti.csv"
row -0.3 >"$D/sd/gtx-1080-ti--titan-xp.csv"
row -0.1 >"$D/sd/m40--titan-x-maxwell.csv"
"$BIN" calibrate --emit --weigh rows "$D/k3" "$D/sd" >"$D/tsd.c" 2>"$D/err"
got=$(row_q "$D/tsd.c" PRED_DIST_SAME_DIE)
want=$(estimate "$D/sd" "")
[ "$got" = "$want" ] || { echo "FAIL: same die: quantiles 0.1, 0.9 '$got', want '$want'"; fail=1; }
got=$(row_q "$D/tsd.c")
want=$(estimate "$D/k3" "")
[ "$got" = "$want" ] || { echo "FAIL: same die beside: new architecture '$got', want '$want'"; fail=1; }
grep -q 'auto gemm trace same-die: 3 boards' "$D/tsd.c" || { echo "FAIL: no same-die row of 3 boards"; fail=1; }
"$BIN" calibrate --weigh rows "$D/k3" "$D/sd" >"$D/covsd" 2>"$D/err"
want=$(inside "$D/sd" m40 "$(estimate "$D/sd" m40)")
grep -Eq "^auto gemm trace same-die +m40 +20 +$want" "$D/covsd" || { echo "FAIL: same die: m40 coverage, want $want"; cat "$D/covsd"; fail=1; }
# two boards of one die: no row (a new board's spread is not learnt from
# one other), the coverage against the new architecture's interval
# without the board's architecture (sm_61: the P4's rows)
rm "$D/sd/m40--titan-x-maxwell.csv"
"$BIN" calibrate --emit --weigh rows "$D/k3" "$D/sd" >"$D/tsd2.c" 2>"$D/err"
if grep -q 'PRED_DIST_SAME_DIE' "$D/tsd2.c"; then echo "FAIL: a same-die row of two boards"; fail=1; fi
grep -q '/\* auto gemm trace same-die: 40 rows of 2 groups, too few' "$D/tsd2.c" || { echo "FAIL: no note of the two boards"; fail=1; }
"$BIN" calibrate --weigh rows "$D/k3" "$D/sd" >"$D/covsd2" 2>"$D/err"
grep -q "^auto gemm trace same-die .*no interval of its own, new-architecture's" "$D/covsd2" || { echo "FAIL: two boards: no fallback said"; cat "$D/covsd2"; fail=1; }
want=$(inside "$D/sd" titan-xp "$(estimate "$D/k3" Tesla_P4)")
grep -Eq "^ +titan-xp +20 +$want" "$D/covsd2" || { echo "FAIL: two boards: titan-xp coverage, want $want"; cat "$D/covsd2"; fail=1; }

# From a config the dump's distance column says how far the target was
# from the weights' GPUs (a board held out alone: the same die as its
# die's other boards); three boards give a same-die config row
mkdir "$D/sdc"
for b in gtx-1080-ti titan-xp m40; do
	row 0.1 | awk -F, 'NR == 1 { print $0 ",distance"; next } { print $0 ",same-die" }' >"$D/sdc/$b--none.csv"
done
"$BIN" calibrate --emit "$D/sdc" >"$D/tsdc.c" 2>"$D/err"
grep -q '{ PRED_AUTO, IV_CLASS_GEMM, PRED_DIST_SAME_DIE, PRED_SRC_CONFIG, 60, {' "$D/tsdc.c" ||
	{ echo "FAIL: no same-die config row from the distance column"; cat "$D/tsdc.c" "$D/err"; fail=1; }

# surfer-bench tensorcore --dump: the tensor-core model's own keys, from
# the shape (tc_scratch_ns) and from the origin's time (tc_ratio_ns);
# H20 from H800 is the same die
{
	echo "gpu,dtype,m,n,k,measured_ns,roofline_ns,tc_scratch_ns,wave_ns,tc_ratio_ns,origin"
	for g in a100-sxm4-80:a40 a40:a100-sxm4-80 t4:v100-sxm2-16 h20:h800 h800:h20; do
		awk -v t="${g%:*}" -v o="${g#*:}" 'BEGIN { for (i = 0; i < 20; i++)
			printf "%s,fp16,1,2,3,1000.0,500.0,%.1f,-1.0,%.1f,%s\n", t, 1000 + 10 * i, 900 + 10 * i, o }'
	done
} >"$D/tc.csv"
"$BIN" calibrate --emit "$D/tc.csv" >"$D/ttc.c" 2>"$D/err" || { echo "FAIL: tensorcore dump: $(cat "$D/err")"; fail=1; }
grep -q '{ PRED_TCGEMM, IV_CLASS_GEMM, PRED_DIST_NEW_ARCH, PRED_SRC_TRACE, 60, {' "$D/ttc.c" || { echo "FAIL: no tcgemm trace row of 60"; cat "$D/ttc.c"; fail=1; }
grep -q '{ PRED_TCGEMM, IV_CLASS_GEMM, PRED_DIST_NEW_ARCH, PRED_SRC_CONFIG, 100, {' "$D/ttc.c" || { echo "FAIL: no tcgemm config row of 100"; fail=1; }
grep -q '/\* tcgemm gemm trace same-die: 40 rows of 2 groups' "$D/ttc.c" || { echo "FAIL: no note of H20 and H800"; fail=1; }

# Whole iterations of two kinds (an e2e dump's method column, the key
# interval_iteration_method() gives a prediction): the tensor-core ones
# (an A40's, an L40's and an H20's, errors -0.1 .. +0.09) and the others
# (a T4's and a V100's, +0.4 .. +0.59) each a row of their own, the
# second's median 0.5 above the first's, and the first's coverage per
# architecture (three: each against two others; alike, so each holds
# the 80 % the factor was fitted to); a dump without the column is
# auto's.
{
	echo "gpu,config,weights,measured_ms,predicted_ms,method"
	for g in a40:tcgemm:-0.1 l40:tcgemm:-0.1 h20:tcgemm:-0.1 t4:auto:0.4 v100-pcie-32:auto:0.4; do
		awk -v g="${g%%:*}" -v m="$(echo "$g" | cut -d: -f2)" -v b="${g##*:}" 'BEGIN {
			for (i = 0; i < 20; i++) printf "%s,c%d.json,held-out,100,%.4f,%s\n", g, i, 100 * exp(b + 0.01 * i), m }'
	done
} >"$D/it.csv"
"$BIN" calibrate --emit "$D/it.csv" >"$D/tit.c" 2>"$D/err" || { echo "FAIL: iterations of two kinds: $(cat "$D/err")"; fail=1; }
# the median (the 21st quantile) of a key's iteration row
med() { awk -v k="$1" -v n="$2" '$0 ~ "{ " k ", IV_CLASS_ITERATION, PRED_DIST_NEW_ARCH, PRED_SRC_CONFIG, " n ", {" { on = 1; next }
	on { gsub(/[f{},]/, " "); for (i = 1; i <= NF; i++) q[++j] = $i; if (j >= 41) { printf "%.3f\n", q[21]; exit } }' "$D/tit.c"; }
[ "$(med PRED_TCGEMM 60)" = "-0.005" ] || { echo "FAIL: the tcgemm iteration row's median '$(med PRED_TCGEMM 60)', want -0.005"; cat "$D/tit.c"; fail=1; }
[ "$(med PRED_AUTO 40)" = "0.495" ] || { echo "FAIL: the auto iteration row's median '$(med PRED_AUTO 40)', want 0.495"; fail=1; }
"$BIN" calibrate "$D/it.csv" >"$D/covit" 2>"$D/err"
grep -Eq '^tcgemm iteration config new-architecture +sm_86 +20 +80.0% ' "$D/covit" &&
	grep -Eq '^ +sm_89 +20 +80.0% ' "$D/covit" && grep -Eq '^iterations, tensor-core +sm_86 +20 ' "$D/covit" ||
	{ echo "FAIL: no coverage of the tensor-core iterations per architecture"; cat "$D/covit"; fail=1; }
awk -F, 'NR == 1 { print "gpu,config,weights,measured_ms,predicted_ms"; next } { print $1 "," $2 "," $3 "," $4 "," $5 }' \
	"$D/it.csv" >"$D/it-old.csv"
"$BIN" calibrate --emit "$D/it-old.csv" >"$D/tit-old.c" 2>"$D/err"
grep -q '{ PRED_AUTO, IV_CLASS_ITERATION, PRED_DIST_NEW_ARCH, PRED_SRC_CONFIG, 100, {' "$D/tit-old.c" &&
	! grep -q 'PRED_TCGEMM, IV_CLASS_ITERATION' "$D/tit-old.c" ||
	{ echo "FAIL: a dump without the method column: want auto's row of 100 alone"; cat "$D/tit-old.c"; fail=1; }

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
expect "surfer-bench: bad --weigh 'arch' (re, rows or groups)" calibrate --weigh arch "$D/k"
printf 'a,b\n1,2\n' >"$D/k/Tesla_T4--none.csv"
expect "surfer-bench: '$D/k/Tesla_T4--none.csv': not a surfer-bench accuracy dump" calibrate "$D/k"
rm "$D/k/Tesla_T4--none.csv"
printf 'x\n' >"$D/k/Nosuch--Tesla_T4.csv"
expect "surfer-bench: '$D/k/Nosuch--Tesla_T4.csv': no GPU named TARGET--ORIGIN.csv" calibrate "$D/k"
[ $fail -eq 0 ] && echo "calibrate_cli.sh: ok"
exit $fail
