# tests/trace.mk - the trace module's Check suite, the trace generator used
# by the surfer-dump shell test, and that test.
TEST_BINS += $(BUILD)/tests/check_trace
EXTRA_TARGETS += $(BUILD)/tests/mktrace
TEST_SCRIPTS += tests/dump_test.sh

$(BUILD)/tests/check_trace: $(BUILD)/obj/tests/check_trace.o $(BUILD)/libsurfer-core.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)

$(BUILD)/tests/mktrace: $(BUILD)/obj/tests/mktrace.o $(BUILD)/libsurfer-core.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

CFLAGS_tests_ += $(CHECK_CFLAGS)
