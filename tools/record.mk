# tools/record.mk - surfer-record (`surfer record`): a program run under
# the recorder, its traces found and summarized (tools/recording.c).
PROGRAMS += $(BUILD)/surfer-record
TEST_SCRIPTS += tests/record.sh

$(BUILD)/surfer-record: $(BUILD)/obj/tools/record.o $(BUILD)/obj/tools/recording.o \
		$(BUILD)/libsurfer-core.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
