# tools/tc.mk - surfer-bench-tc (the tensor-core GEMM accuracy table) and
# `make bench-tc` (not part of `make test`; needs the shared data).
EXTRA_TARGETS += $(BUILD)/surfer-bench-tc
BENCH_TARGETS += bench-tc
TC_DATA ?= ../shared/data

$(BUILD)/surfer-bench-tc: $(BUILD)/obj/tools/bench_tc_cli.o $(BUILD)/obj/tools/bench_tc.o $(BUILD)/libsurfer-core.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bench-tc: $(BUILD)/surfer-bench-tc
	$(BUILD)/surfer-bench-tc tensorcore --data $(TC_DATA)

.PHONY: bench-tc
