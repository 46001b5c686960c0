# tools/lab/bench.mk - surfer-bench (the accuracy harness) and `make accuracy`,
# the held-out accuracy table (trains one model per held-out GPU; not part of
# `make test`).
PROGRAMS += $(BUILD)/surfer-bench
BENCH_TARGETS += accuracy
NEUSIGHT_DATA ?= ../shared/data/neusight

$(BUILD)/surfer-bench: $(BUILD)/obj/tools/lab/bench.o $(BUILD)/obj/tools/lab/bench_e2e.o $(BUILD)/obj/tools/lab/bench_tc.o $(BUILD)/obj/tools/lab/bench_conv.o $(BUILD)/obj/tools/lab/bench_conv_train.o $(BUILD)/obj/tools/lab/bench_tile_scale.o $(BUILD)/obj/tools/lab/bench_vec.o $(BUILD)/obj/tools/lab/bench_rowwise.o $(BUILD)/obj/tools/lab/bench_power.o $(BUILD)/obj/tools/lab/bench_serving.o $(BUILD)/obj/tools/lab/bench_own.o $(BUILD)/obj/tools/lab/bench_cpu.o $(BUILD)/obj/tools/lab/bench_published.o $(BUILD)/obj/tools/lab/calibrate.o $(BUILD)/obj/tools/lab/bench_figures.o $(BUILD)/obj/tools/lab/profile.o $(BUILD)/obj/tools/lab/vidur.o $(BUILD)/obj/tools/lab/neusight.o $(BUILD)/obj/tools/lab/stats.o $(BUILD)/obj/tools/import/common.o $(BUILD)/obj/tools/import/kineto.o $(BUILD)/libsurfer-core.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -ljansson -lyajl -lz

accuracy: $(BUILD)/surfer-bench $(BUILD)/surfer-train
	BUILD=$(BUILD) DATA=$(NEUSIGHT_DATA) sh tools/lab/accuracy.sh

# The interval table (predictor/interval_table.c) from the held-out
# predictions `make accuracy` and then `make bench-e2e` (and `make
# bench-serving`) leave in $(BUILD)/accuracy: NeuSight's test shapes first
# (the models' own kernels), the sweep for the classes they lack
# (convolutions), DeepBench's boards of one die, the tensor-core GEMM model,
# whole iterations (NeuSight's, then PipeWeave's SGLang prefills and decode
# steps); then the coverage of its intervals, each architecture against the
# others.  An input absent (no DeepBench or PipeWeave data) is left out.
# What `make bench-h200` (and the like for another GPU of our own) dumped in
# $(BUILD)/own/<gpu> joins the input of its kind ("+PATH": its GPU one more
# architecture there).
OWN_DUMPS = $(BUILD)/own/*
own_join = $(patsubst %,+%,$(wildcard $(addprefix $(OWN_DUMPS)/,$(1))))
CALIBRATION_INPUTS = $(BUILD)/accuracy/test $(call own_join,test) \
	$(BUILD)/accuracy/sweep $(call own_join,sweep) \
	$(wildcard $(BUILD)/accuracy/deepbench $(BUILD)/accuracy/tensorcore.csv) \
	$(call own_join,tensorcore.csv) $(BUILD)/accuracy/e2e.csv $(call own_join,e2e-*.csv) \
	$(patsubst %,+%,$(wildcard $(BUILD)/accuracy/serving.csv))
calibrate: $(BUILD)/surfer-bench
	@[ -n "$(wildcard $(OWN_DUMPS)/e2e-*.csv)" ] || echo "calibrate: no dumps of our own GPUs in $(BUILD)/own (make bench-h200 writes them): the table leaves them out"
	$(BUILD)/surfer-bench calibrate --emit $(CALIBRATION_INPUTS) > $(BUILD)/interval_table.c
	mv $(BUILD)/interval_table.c predictor/interval_table.c
	$(BUILD)/surfer-bench calibrate $(CALIBRATION_INPUTS)

.PHONY: accuracy calibrate
