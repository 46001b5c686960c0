# tests/import.mk - the surfer-import suite (links the importer's modules,
# not its main) and the install test.
IMPORT_TEST_OBJS := $(BUILD)/obj/tests/check_import.o \
	$(filter-out $(BUILD)/obj/tools/import.o,$(IMPORT_OBJS))

TEST_BINS += $(BUILD)/tests/check_import
TEST_SCRIPTS += tests/install.sh
CFLAGS_tests_ += $(CHECK_CFLAGS)

$(BUILD)/tests/check_import: $(IMPORT_TEST_OBJS) $(BUILD)/libsurfer-core.a | $(BUILD)/surfer-import
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(IMPORT_TEST_OBJS) $(CORE_LIB) $(IMPORT_LIBS) $(CHECK_LIBS) $(LDLIBS)
