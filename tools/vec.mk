# tools/vec.mk - surfer-bench-vec (held-out accuracy of the vector-op model,
# tools/bench_vec.c) and `make bench-vec` (not part of `make test`; needs the
# shared data).  ARGS=--emit prints the fitted constants for vecop.c.
# Built by `make` (so -Werror covers it) but not installed: `surfer-bench vec`
# is the installed form once tools/bench.c dispatches to bench_vec_main().
EXTRA_TARGETS += $(BUILD)/surfer-bench-vec
BENCH_TARGETS += bench-vec
VEC_DATA ?= ../shared/data

$(BUILD)/surfer-bench-vec: $(BUILD)/obj/tools/bench_vec_run.o $(BUILD)/obj/tools/bench_vec.o $(BUILD)/obj/tools/neusight.o $(BUILD)/libsurfer-core.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bench-vec: $(BUILD)/surfer-bench-vec
	$(BUILD)/surfer-bench-vec --data $(VEC_DATA) $(ARGS)

.PHONY: bench-vec
