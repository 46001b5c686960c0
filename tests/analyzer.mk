# tests/analyzer.mk - the predictor, timeline and analysis suites, the golden
# reports, the CI gate's exit codes and the analyzer benchmark.
#
#   make test         runs check_predict, check_timeline, check_analyze, check_interval,
#                     tests/golden/run.sh, tests/analyzer_gate.sh and
#                     tests/analyzer_shim.sh (identity on recorder traces)
#   make bench        bench-analyzer: a 1M-kernel trace read, predicted on
#                     two targets and reported; prints kernels/s and peak RSS
TEST_BINS += $(BUILD)/tests/check_predict $(BUILD)/tests/check_timeline \
	$(BUILD)/tests/check_analyze $(BUILD)/tests/check_interval
TEST_SCRIPTS += tests/golden/run.sh tests/analyzer_gate.sh tests/analyzer_shim.sh tests/analyze_import.sh
EXTRA_TARGETS += $(BUILD)/tests/mkanalyzer
BENCH_TARGETS += bench-analyzer

$(BUILD)/obj/tests/check_predict.o $(BUILD)/obj/tests/check_timeline.o \
	$(BUILD)/obj/tests/check_interval.o: CFLAGS += $(CHECK_CFLAGS)
$(BUILD)/obj/tests/check_analyze.o: CFLAGS += $(CHECK_CFLAGS) $(JANSSON_CFLAGS)

$(BUILD)/tests/check_predict: $(BUILD)/obj/tests/check_predict.o $(BUILD)/libsurfer-core.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)

$(BUILD)/tests/check_interval: $(BUILD)/obj/tests/check_interval.o $(BUILD)/libsurfer-core.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)

$(BUILD)/tests/check_timeline: $(BUILD)/obj/tests/check_timeline.o $(BUILD)/libsurfer-core.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)

$(BUILD)/tests/check_analyze: $(BUILD)/obj/tests/check_analyze.o $(BUILD)/obj/tests/synth.o \
		$(BUILD)/libsurfer-core.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(JANSSON_LIBS) $(CHECK_LIBS) $(LDLIBS)

$(BUILD)/tests/mkanalyzer: $(BUILD)/obj/tests/mkanalyzer.o $(BUILD)/obj/tests/synth.o \
		$(BUILD)/libsurfer-core.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bench-analyzer: $(BUILD)/surfer-analyze $(BUILD)/tests/mkanalyzer
	@BUILD=$(BUILD) sh tests/bench_analyzer.sh

.PHONY: bench-analyzer
