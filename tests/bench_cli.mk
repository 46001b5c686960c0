# tests/bench_cli.mk - surfer-bench's option table (tests/bench_cli.sh).
TEST_SCRIPTS += tests/bench_cli.sh
