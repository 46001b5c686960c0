# tests/csv.mk - the CSV reader's Check suite.
TEST_BINS += $(BUILD)/tests/check_csv

$(BUILD)/tests/check_csv: $(BUILD)/obj/tests/check_csv.o $(BUILD)/libsurfer-core.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)
