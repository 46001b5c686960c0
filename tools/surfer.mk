# tools/surfer.mk - `surfer VERB`, the entry point that runs surfer-VERB,
# and its bash completion (installed by `make install`).
PROGRAMS += $(BUILD)/surfer
TEST_SCRIPTS += tests/surfer_cli.sh

# the source tree's pages, for `surfer help` from a build directory
# outside it (BUILD=/elsewhere); the installed pages come first
$(BUILD)/obj/tools/surfer.o: CPPFLAGS += -DSURFER_SRC_MANDIR='"$(CURDIR)/docs/man"'

# (analyzer/sibling.c: how surfer-analyze finds surfer-import too;
# trace/editdist.c: the nearest verb to a misspelt one)
$(BUILD)/surfer: $(BUILD)/obj/tools/surfer.o $(BUILD)/obj/analyzer/sibling.o \
		$(BUILD)/obj/trace/editdist.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^
