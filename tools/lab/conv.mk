# tools/lab/conv.mk - `make bench-conv`: held-out accuracy of the convolution
# model (surfer-bench conv on NeuSight's forward sweep, then surfer-bench
# conv-train on DeepBench's forward and backward passes; tools/lab/
# bench_conv.c, bench_conv_train.c); not part of `make test`, needs the shared
# data (about 5 minutes).
BENCH_TARGETS += bench-conv
CONV_DATA ?= ../shared/data

bench-conv: $(BUILD)/surfer-bench
	$(BUILD)/surfer-bench conv --data $(CONV_DATA)/neusight/kernels/conv
	$(BUILD)/surfer-bench conv-train --data $(CONV_DATA)

.PHONY: bench-conv
