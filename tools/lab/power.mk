# tools/lab/power.mk - `make bench-power`: the tile model's FP32 power cap against
# gpu-benches' measured FMA runs (surfer-bench power; not part of `make test`).
BENCH_TARGETS += bench-power
POWER_DATA ?= ../shared/data

bench-power: $(BUILD)/surfer-bench
	@if [ -d $(POWER_DATA)/gpu-reference/gpu-benches/gpu-roofline ]; then \
		$(BUILD)/surfer-bench power --data $(POWER_DATA); \
	else echo "bench-power: $(POWER_DATA)/gpu-reference absent, skipped"; fi

.PHONY: bench-power
