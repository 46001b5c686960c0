# tests/cpu.mk - surfer-bench cpu on made-up Kineto traces, and its hold-out
# on the shared ones when present.
TEST_SCRIPTS += tests/cpu_bench.sh
