# tools/lab/rowwise.mk - `make bench-rowwise`: the FP32 row-wise model (layer
# norm, softmax: surfer-bench rowwise, tools/lab/bench_rowwise.c) with each
# architecture held out; not part of `make test`, needs the shared data.  The
# tile model's column is held out with make accuracy's weights in
# $(BUILD)/accuracy.  ARGS=--emit prints the fitted constants for rowwise.c.
BENCH_TARGETS += bench-rowwise
ROWWISE_DATA ?= ../shared/data

bench-rowwise: $(BUILD)/surfer-bench
	@if [ -d $(ROWWISE_DATA)/neusight/kernels ]; then \
		$(BUILD)/surfer-bench rowwise --data $(ROWWISE_DATA) --holdout-weights $(BUILD)/accuracy $(ARGS); \
	else echo "bench-rowwise: $(ROWWISE_DATA)/neusight absent, skipped"; fi

.PHONY: bench-rowwise
