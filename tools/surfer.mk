# tools/surfer.mk - `surfer VERB`, the entry point that runs surfer-VERB,
# and its bash completion (installed by `make install`).
PROGRAMS += $(BUILD)/surfer
TEST_SCRIPTS += tests/surfer_cli.sh

$(BUILD)/surfer: $(BUILD)/obj/tools/surfer.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^
