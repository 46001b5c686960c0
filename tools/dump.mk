# tools/dump.mk - surfer-dump, the trace-to-JSON-lines printer.
PROGRAMS += $(BUILD)/surfer-dump
JANSSON_LIBS := $(shell pkg-config --libs jansson 2>/dev/null || echo -ljansson)
CFLAGS_tools_ += $(shell pkg-config --cflags jansson 2>/dev/null)

# $(CORE_LIB) is defined after the fragments are read, so name the library.
$(BUILD)/surfer-dump: $(BUILD)/obj/tools/dump.o $(BUILD)/obj/tools/tracejson.o \
		$(BUILD)/libsurfer-core.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(JANSSON_LIBS) $(LDLIBS)
