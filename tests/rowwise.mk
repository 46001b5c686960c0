# tests/rowwise.mk - the FP32 row-wise model's suite (predictor/rowwise.c).
TEST_BINS += $(BUILD)/tests/check_rowwise

$(BUILD)/tests/check_rowwise: $(BUILD)/obj/tests/check_rowwise.o $(BUILD)/libsurfer-core.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)
