# tools/surfer.mk - `surfer VERB`, the entry point that runs surfer-VERB,
# and its bash completion (installed by `make install`).
PROGRAMS += $(BUILD)/surfer
# sibling.c is the core library's too: surfer-analyze runs surfer-import by it
CORE_SRCS += tools/sibling.c
TEST_SCRIPTS += tests/surfer_cli.sh

# the source tree's pages, for `surfer help` from a build directory
# outside it (BUILD=/elsewhere); the installed pages come first
$(BUILD)/obj/tools/surfer.o: CPPFLAGS += -DSURFER_SRC_MANDIR='"$(CURDIR)/docs/man"'

$(BUILD)/surfer: $(BUILD)/obj/tools/surfer.o $(BUILD)/obj/tools/sibling.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^
