# tools/lab/serving.mk - `make bench-serving`: surfer's --engine sglang (and
# --engine hf) against PipeWeave's measured SGLang runs, beside PipeWeave's,
# NeuSight's, Habitat's and the roofline's predictions (surfer-bench serving,
# tools/lab/bench_serving.c); not part of `make test`, needs the shared data.
# Each prefill and decode step, its architecture held out, goes into
# $(BUILD)/accuracy/serving.csv, whole iterations for `make calibrate` (with
# ARGS=--gpu G only G's runs, and with ARGS=--compiled ... none held out:
# run it plain before `make calibrate`).
BENCH_TARGETS += bench-serving
SERVING_DATA ?= ../shared/data/pipeweave/e2e

bench-serving: $(BUILD)/surfer-bench
	@if [ -d $(SERVING_DATA)/real ]; then \
		mkdir -p $(BUILD)/accuracy && \
		$(BUILD)/surfer-bench serving --data $(SERVING_DATA) --dump $(BUILD)/accuracy/serving.csv $(ARGS); \
	else echo "bench-serving: $(SERVING_DATA) absent, skipped"; fi

.PHONY: bench-serving
