# tests/csv.mk - the CSV reader's and the error codes' Check suites.
TEST_BINS += $(BUILD)/tests/check_csv

$(BUILD)/tests/check_csv: $(BUILD)/obj/tests/check_csv.o $(BUILD)/libsurfer-core.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)

# The error codes' contract (trace/surfer_err.h).
TEST_BINS += $(BUILD)/tests/check_err

$(BUILD)/tests/check_err: $(BUILD)/obj/tests/check_err.o $(BUILD)/libsurfer-core.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)
