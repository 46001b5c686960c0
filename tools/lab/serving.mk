# tools/lab/serving.mk - `make bench-serving`: surfer's --engine sglang (and
# --engine hf) against PipeWeave's measured SGLang runs, beside PipeWeave's,
# NeuSight's, Habitat's and the roofline's predictions (surfer-bench serving,
# tools/lab/bench_serving.c); not part of `make test`, needs the shared data.
BENCH_TARGETS += bench-serving
SERVING_DATA ?= ../shared/data/pipeweave/e2e

bench-serving: $(BUILD)/surfer-bench
	@if [ -d $(SERVING_DATA)/real ]; then \
		$(BUILD)/surfer-bench serving --data $(SERVING_DATA) $(ARGS); \
	else echo "bench-serving: $(SERVING_DATA) absent, skipped"; fi

.PHONY: bench-serving
