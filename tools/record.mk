# tools/record.mk - surfer-record (`surfer record`): a program run under
# the recorder, its traces found and summarized (tools/recording.c).
PROGRAMS += $(BUILD)/surfer-record
TEST_SCRIPTS += tests/record.sh

$(BUILD)/surfer-record: $(BUILD)/obj/tools/record.o $(BUILD)/obj/tools/recording.o \
		$(BUILD)/libsurfer-core.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# examples/fake-driver.mp, the trace the README analyzes first: surfer
# record over a test program (three of five profiler windows of
# shim_runtime) and the fake driver (tests/fake_cuda.c), not a GPU.
# `make example-trace` remakes it.
example-trace: $(BUILD)/surfer-record $(BUILD)/libsurfer.so $(FAKE_CUDA) $(BUILD)/tests/shim_runtime
	@mkdir -p examples
	rm -f examples/fake-driver.mp
	LD_LIBRARY_PATH=$(BUILD)/tests $(BUILD)/surfer-record --timing events --skip 1 --iterations 3 \
		-o examples/fake-driver.mp -- $(BUILD)/tests/shim_runtime windows 5 3
.PHONY: example-trace
