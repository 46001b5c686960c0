# tools/lab/tc.mk - surfer-bench tensorcore (the tensor-core GEMM accuracy table) and
# `make bench-tc` (not part of `make test`; needs the shared data).
BENCH_TARGETS += bench-tc
TC_DATA ?= ../shared/data

bench-tc: $(BUILD)/surfer-bench
	$(BUILD)/surfer-bench tensorcore --data $(TC_DATA)

.PHONY: bench-tc
