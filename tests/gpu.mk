# tests/gpu.mk - the GPU database and occupancy suites.
#
# check_occupancy compares with NVIDIA's cuda_occupancy.h when the toolkit
# headers are there; without them it runs the hand-computed cases only and
# says so.
TEST_BINS += $(BUILD)/tests/check_gpu $(BUILD)/tests/check_occupancy
TEST_SCRIPTS += tests/gpugen.sh

HAVE_CUDA_OCC := $(wildcard $(CUDA_HOME)/include/cuda_occupancy.h)
CHECK_OCC_FLAGS := $(if $(HAVE_CUDA_OCC),-DHAVE_CUDA_OCC $(CUDA_CFLAGS))

$(BUILD)/obj/tests/check_occupancy.o: CFLAGS += $(CHECK_CFLAGS) $(CHECK_OCC_FLAGS)
$(BUILD)/obj/tests/check_gpu.o: CFLAGS += $(CHECK_CFLAGS) $(JANSSON_CFLAGS)

$(BUILD)/tests/check_gpu: $(BUILD)/obj/tests/check_gpu.o $(BUILD)/libsurfer-core.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(JANSSON_LIBS) $(CHECK_LIBS) $(LDLIBS)

$(BUILD)/tests/check_occupancy: $(BUILD)/obj/tests/check_occupancy.o $(BUILD)/libsurfer-core.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)
