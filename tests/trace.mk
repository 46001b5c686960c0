# tests/trace.mk - the trace generator used by the surfer-dump shell test.
EXTRA_TARGETS += $(BUILD)/tests/mktrace

# $(CORE_LIB) is defined after the fragments are read, so name the library.
$(BUILD)/tests/mktrace: $(BUILD)/obj/tests/mktrace.o $(BUILD)/libsurfer-core.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
