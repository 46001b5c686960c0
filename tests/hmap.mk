# tests/hmap.mk - the hash map's and the string pool's Check suite.
TEST_BINS += $(BUILD)/tests/check_hmap

$(BUILD)/tests/check_hmap: $(BUILD)/obj/tests/check_hmap.o $(BUILD)/libsurfer-core.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)
