# tests/attention.mk - the fused attention model's suite.
TEST_BINS += $(BUILD)/tests/check_attention

$(BUILD)/tests/check_attention: $(BUILD)/obj/tests/check_attention.o $(BUILD)/libsurfer-core.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)
