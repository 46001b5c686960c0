# tools/lab/vec.mk - `make bench-vec`: held-out accuracy of the vector-op model
# (surfer-bench vec, tools/lab/bench_vec.c); not part of `make test`, needs the
# shared data.  ARGS=--emit prints the fitted constants for vecop.c.
BENCH_TARGETS += bench-vec
VEC_DATA ?= ../shared/data

bench-vec: $(BUILD)/surfer-bench
	$(BUILD)/surfer-bench vec --data $(VEC_DATA) $(ARGS)

.PHONY: bench-vec
