# tools/lab/bench.mk - surfer-bench (the accuracy harness) and `make accuracy`,
# the held-out accuracy table (trains one model per held-out GPU; not part of
# `make test`).
PROGRAMS += $(BUILD)/surfer-bench
BENCH_TARGETS += accuracy
NEUSIGHT_DATA ?= ../shared/data/neusight

$(BUILD)/surfer-bench: $(BUILD)/obj/tools/lab/bench.o $(BUILD)/obj/tools/lab/bench_e2e.o $(BUILD)/obj/tools/lab/bench_tc.o $(BUILD)/obj/tools/lab/bench_vec.o $(BUILD)/obj/tools/lab/bench_power.o $(BUILD)/obj/tools/lab/calibrate.o $(BUILD)/obj/tools/lab/bench_figures.o $(BUILD)/obj/tools/lab/profile.o $(BUILD)/obj/tools/lab/vidur.o $(BUILD)/obj/tools/lab/neusight.o $(BUILD)/libsurfer-core.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -ljansson

accuracy: $(BUILD)/surfer-bench $(BUILD)/surfer-train
	BUILD=$(BUILD) DATA=$(NEUSIGHT_DATA) sh tools/lab/accuracy.sh

.PHONY: accuracy
