# tests/bench_cli.mk - surfer-bench's option table (tests/bench_cli.sh) and the
# interval calibration on made-up dumps (tests/calibrate_cli.sh).
TEST_SCRIPTS += tests/bench_cli.sh
TEST_SCRIPTS += tests/calibrate_cli.sh
