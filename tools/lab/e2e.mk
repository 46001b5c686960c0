# tools/lab/e2e.mk - the e2e, profile and comm benchmarks of the config path.
# `make bench-e2e` compares predicted iterations with NeuSight's measured
# ones; `make bench-profile` their per-operator profiles with the tile
# model per kernel class (and fits the AMD scale, each AMD GPU held out);
# `make bench-comm` collective times with NCCL measurements.
BENCH_TARGETS += bench-e2e bench-profile bench-comm bench-published
SHARED_DATA ?= ../shared/data

# With the held-out weights `make accuracy` writes ($(BUILD)/accuracy/w_<GPU>.bin,
# each trained without that GPU's architecture), every GPU is predicted by a
# tile model that never saw its architecture, and every iteration goes into
# $(BUILD)/accuracy/e2e.csv for `make calibrate`; else the compiled-in
# weights are used.
bench-e2e: $(BUILD)/surfer-bench
	@if [ ! -d $(SHARED_DATA)/neusight/labels ]; then \
		echo "bench-e2e: $(SHARED_DATA)/neusight absent, skipped"; \
	elif ls $(BUILD)/accuracy/w_*.bin >/dev/null 2>&1; then \
		$(BUILD)/surfer-bench e2e --labels $(SHARED_DATA)/neusight/labels \
			--configs $(SHARED_DATA)/neusight/model_configs --holdout-weights $(BUILD)/accuracy \
			--dump $(BUILD)/accuracy/e2e.csv; \
	else \
		$(BUILD)/surfer-bench e2e --labels $(SHARED_DATA)/neusight/labels \
			--configs $(SHARED_DATA)/neusight/model_configs; \
	fi

bench-profile: $(BUILD)/surfer-bench
	@if [ -d $(SHARED_DATA)/neusight/labels ]; then \
		$(BUILD)/surfer-bench profile --labels $(SHARED_DATA)/neusight/labels $(ARGS); \
	else echo "bench-profile: $(SHARED_DATA)/neusight absent, skipped"; fi

bench-comm: $(BUILD)/surfer-bench
	@if [ -d $(SHARED_DATA)/vidur/network ]; then \
		$(BUILD)/surfer-bench comm $(SHARED_DATA)/vidur/network $(SHARED_DATA)/pipeweave/collective \
			$(SHARED_DATA)/deepbench/csv/results/train; \
	else echo "bench-comm: $(SHARED_DATA) absent, skipped"; fi

# `make bench-published`: published training step times (NeMo, Megatron,
# llm-foundry, nanotron) predicted from the --model flags that express them,
# before (the flags the path had) and after.
bench-published: $(BUILD)/surfer-bench
	@if [ -f $(SHARED_DATA)/published/training-runs.csv ]; then \
		echo "before:"; $(BUILD)/surfer-bench published --data $(SHARED_DATA)/published --before; \
		echo; echo "after:"; $(BUILD)/surfer-bench published --data $(SHARED_DATA)/published; \
	else echo "bench-published: $(SHARED_DATA)/published absent, skipped"; fi

.PHONY: bench-e2e bench-profile bench-comm bench-published
