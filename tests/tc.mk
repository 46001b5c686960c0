# tests/tc.mk - the tensor-core GEMM model's suite.
TEST_BINS += $(BUILD)/tests/check_tcgemm

$(BUILD)/tests/check_tcgemm: $(BUILD)/obj/tests/check_tcgemm.o $(BUILD)/libsurfer-core.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)

TEST_SCRIPTS += tests/tc_bench.sh tests/tc_mamf.sh

# The convolution model's suite.
TEST_BINS += $(BUILD)/tests/check_conv
TEST_SCRIPTS += tests/conv_picks.sh

$(BUILD)/tests/check_conv: $(BUILD)/obj/tests/check_conv.o $(BUILD)/libsurfer-core.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)
