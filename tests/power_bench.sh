#!/bin/sh
# power_bench.sh - surfer-bench power on a made-up gpu-roofline folder: each
# device's fastest line must be read (other lines and garbage skipped), its
# energy must be 2 W / rate and its clock fraction MHz / boost, the model's
# energy the weights' 16 nm energy x (12/16)^2 x nm/12 below 12 nm; missing
# data and bad options exit 2.
BIN="${BUILD:-build}/surfer-bench"
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
fail=0
R="$D/gpu-reference/gpu-benches/gpu-roofline"
mkdir -p "$R"
cat > "$R/h200.txt" <<'END'

0 1056 blocks     4 its      1.250 Fl/B       4000 GB/s      5000 GF/s   1980 Mhz   500 W   50°C
0 1056 blocks   400 its    100.250 Fl/B        400 GB/s     40000 GF/s   1800 Mhz   400 W   63°C
0 1056 blocks   408 its    102.250 Fl/B        390 GB/s     39000 GF/s   1800 Mhz   390 W   63°C
END
cat > "$R/alex_a40.txt" <<'END'
not a measurement
0 504 blocks   512 its      128.250 Fl/B        181 GB/s     24000 GF/s   1740 Mhz   300 W   71°C
1 504 blocks   512 its      128.250 Fl/B        181 GB/s     20000 GF/s   1392 Mhz   250 W   71°C
END

out=$("$BIN" power --data "$D") || { echo "FAIL: exit $? on good data"; fail=1; }
pj=$(echo "$out" | sed -n 's/^FP32 power cap (\([0-9.]*\) pJ.*/\1/p')
[ -n "$pj" ] || { echo "FAIL: no 16 nm energy in:"; echo "$out"; fail=1; }
# gpu dev W MHz, measured energy (pJ), clock fraction, model energy (pJ)
for row in "h200 0 400 1800 20.0 0.91 $pj*0.5625*5/12" \
	   "a40 0 300 1740 25.0 1.00 $pj*0.5625*8/12" \
	   "a40 1 250 1392 25.0 0.80 $pj*0.5625*8/12"; do
	set -- $row
	want=$(awk "BEGIN { printf \"%.1f\", $7 }")
	echo "$out" | awk -v g="$1" -v d="$2" -v w="$3" -v m="$4" -v e="$5" -v c="$6" -v em="$want" '
		$1 == g && $3 == d { n++; if ($5 == w && $6 == m && $7 == e && $9 == em && $12 == c) ok = 1 }
		END { exit !(n == 1 && ok) }' ||
		{ echo "FAIL: row '$row' (model $want pJ) not in:"; echo "$out"; fail=1; }
done
echo "$out" | grep -q "^3 boards" || { echo "FAIL: want 3 boards in:"; echo "$out"; fail=1; }

"$BIN" power --data "$D/nothing" >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: missing data should exit 2"; fail=1; }
"$BIN" power --data "$D" --frobnicate >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: unknown option should exit 2"; fail=1; }

[ $fail -eq 0 ] && echo "power_bench: ok"
exit $fail
