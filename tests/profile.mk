# tests/profile.mk - NeuSight per-operator profiles and the AMD scale.
TEST_BINS += $(BUILD)/tests/check_profile

$(BUILD)/tests/check_profile: $(BUILD)/obj/tests/check_profile.o $(BUILD)/obj/tools/lab/profile.o \
		$(BUILD)/obj/tools/lab/neusight.o $(BUILD)/obj/tools/lab/stats.o $(BUILD)/obj/tools/lab/vidur.o $(BUILD)/libsurfer-core.a | $(BUILD)/surfer-bench
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o %.a,$^) $(CHECK_LIBS) $(LDLIBS) -ljansson
