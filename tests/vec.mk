# tests/vec.mk - the vector-op model's suite (predictor/vecop.c).
TEST_BINS += $(BUILD)/tests/check_vecop

$(BUILD)/tests/check_vecop: $(BUILD)/obj/tests/check_vecop.o $(BUILD)/libsurfer-core.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)
