# tests/outputs.mk - the outputs of surfer-analyze: check_outputs (the
# timeline's placement callback, spans, the Chrome trace, costs) and
# tests/outputs.sh (the command line: Chrome trace, CSV, HTML, prices,
# colour, bad option values).
TEST_BINS += $(BUILD)/tests/check_outputs
TEST_SCRIPTS += tests/outputs.sh

$(BUILD)/obj/tests/check_outputs.o: CFLAGS += $(CHECK_CFLAGS) $(JANSSON_CFLAGS)

$(BUILD)/tests/check_outputs: $(BUILD)/obj/tests/check_outputs.o $(BUILD)/obj/tests/synth.o \
		$(BUILD)/libsurfer-core.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(JANSSON_LIBS) $(CHECK_LIBS) $(LDLIBS)
