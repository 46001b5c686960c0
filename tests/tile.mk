# tests/tile.mk - suites of the MLP, the tile model and the accuracy harness,
# and the power-cap benchmark's script.
TEST_BINS += $(BUILD)/tests/check_mlp $(BUILD)/tests/check_tile $(BUILD)/tests/check_bench
TEST_SCRIPTS += tests/tile_scale.sh

$(BUILD)/tests/check_mlp: $(BUILD)/obj/tests/check_mlp.o $(BUILD)/libsurfer-core.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)

$(BUILD)/tests/check_tile: $(BUILD)/obj/tests/check_tile.o $(BUILD)/libsurfer-core.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)

$(BUILD)/tests/check_bench: $(BUILD)/obj/tests/check_bench.o $(BUILD)/obj/tools/lab/neusight.o $(BUILD)/obj/tools/lab/stats.o $(BUILD)/obj/tools/lab/vidur.o \
		$(BUILD)/obj/tools/lab/bench_vec.o $(BUILD)/obj/tools/lab/bench_own.o $(BUILD)/obj/tools/lab/bench_tc.o \
		$(BUILD)/libsurfer-core.a | $(BUILD)/surfer-bench $(BUILD)/surfer-train
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o %.a,$^) $(CHECK_LIBS) $(LDLIBS) -ljansson
TEST_SCRIPTS += tests/power_bench.sh
