# tools/e2e.mk - the e2e and comm benchmarks of the config path.
# `make bench-e2e` compares predicted iterations with NeuSight's measured
# ones; `make bench-comm` collective times with NCCL measurements.
PROGRAMS += $(BUILD)/surfer-bench-e2e
BENCH_TARGETS += bench-e2e bench-comm
SHARED_DATA ?= ../shared/data

$(BUILD)/surfer-bench-e2e: $(BUILD)/obj/tools/bench_e2e_main.o $(BUILD)/obj/tools/bench_e2e.o $(BUILD)/libsurfer-core.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -ljansson

# With the held-out weights `make accuracy` writes ($(BUILD)/accuracy/w_<GPU>.bin,
# each trained without that GPU), every GPU is predicted by a tile model
# that never saw it; else the compiled-in weights are used.
bench-e2e: $(BUILD)/surfer-bench-e2e
	@if [ ! -d $(SHARED_DATA)/neusight/labels ]; then \
		echo "bench-e2e: $(SHARED_DATA)/neusight absent, skipped"; \
	elif ls $(BUILD)/accuracy/w_*.bin >/dev/null 2>&1; then \
		$(BUILD)/surfer-bench-e2e e2e --labels $(SHARED_DATA)/neusight/labels \
			--configs $(SHARED_DATA)/neusight/model_configs --holdout-weights $(BUILD)/accuracy; \
	else \
		$(BUILD)/surfer-bench-e2e e2e --labels $(SHARED_DATA)/neusight/labels \
			--configs $(SHARED_DATA)/neusight/model_configs; \
	fi

bench-comm: $(BUILD)/surfer-bench-e2e
	@if [ -d $(SHARED_DATA)/vidur/network ]; then \
		$(BUILD)/surfer-bench-e2e comm $(SHARED_DATA)/vidur/network $(SHARED_DATA)/pipeweave/collective; \
	else echo "bench-comm: $(SHARED_DATA) absent, skipped"; fi

.PHONY: bench-e2e bench-comm
