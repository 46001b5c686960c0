# tests/shim.mk - the recorder's tests: a fake libcuda.so.1, programs that
# drive it like the CUDA runtime and Triton do, the trace checker, the
# CUPTI parsing suite and the shell runner.
FAKE_CUDA := $(BUILD)/tests/libcuda.so.1
FAKE_LIBDIR := $(BUILD)/tests/fakelib
SHIM_TEST_PROGS := $(BUILD)/tests/shim_runtime $(BUILD)/tests/shim_direct \
	$(BUILD)/tests/shim_check $(BUILD)/tests/libshimctor.so
EXTRA_TARGETS += $(FAKE_CUDA) $(SHIM_TEST_PROGS)
TEST_SCRIPTS += tests/gpu_tools_test.sh tests/examples_test.sh
# (these run the recorder, or compile against CUPTI's headers)
ifeq ($(HAVE_CUDA),yes)
TEST_SCRIPTS += tests/shim_test.sh tests/gpu_check_test.sh
TEST_BINS += $(BUILD)/tests/check_cupti
EXTRA_TARGETS += $(FAKE_LIBDIR)/libcupti.so.13
else
SKIPPED_TESTS += tests/shim_test.sh tests/gpu_check_test.sh $(BUILD)/tests/check_cupti
endif

# The fake defines driver entry points without prototypes, on purpose.
# -Bsymbolic: its internal calls must not reach the recorder's hooks.
$(FAKE_CUDA): tests/fake_cuda.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Wno-missing-prototypes -fvisibility=hidden -shared \
		-Wl,-Bsymbolic -Wl,-soname,libcuda.so.1 $(LDFLAGS) -o $@ $<

$(BUILD)/tests/libshimctor.so: tests/shim_ctorlib.c $(FAKE_CUDA)
	$(CC) $(CPPFLAGS) $(CFLAGS) -shared -Wl,-soname,libshimctor.so $(LDFLAGS) -o $@ $< $(FAKE_CUDA)

$(BUILD)/tests/shim_runtime: $(BUILD)/obj/tests/shim_runtime.o
	$(CC) $(LDFLAGS) -o $@ $^ -ldl

$(BUILD)/tests/shim_direct: $(BUILD)/obj/tests/shim_direct.o $(BUILD)/tests/libshimctor.so $(FAKE_CUDA)
	$(CC) $(LDFLAGS) -o $@ $< $(BUILD)/tests/libshimctor.so $(FAKE_CUDA) \
		-Wl,-rpath-link,$(BUILD)/tests

$(BUILD)/tests/shim_check: $(BUILD)/obj/tests/shim_check.o $(BUILD)/libsurfer-core.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# CUPTI record parsing on hand-built buffers (real libcupti, no GPU): cupti.c
# links with log.c alone, since it reaches the recorder only through its sink.
$(BUILD)/obj/tests/check_cupti.o: CFLAGS += $(CUDA_CFLAGS)
$(BUILD)/tests/check_cupti: $(BUILD)/obj/tests/check_cupti.o $(BUILD)/obj/preload/cupti.o \
		$(BUILD)/obj/preload/log.o
	$(CC) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) -ldl $(LDLIBS)

# The real cuBLAS/cuBLASLt/cuDNN through the interposed entry points; built
# only where the toolkit has them (the shell test skips otherwise).
ifneq ($(if $(HAVE_CUDA),$(if $(HAVE_CUDNN),$(wildcard $(CUDA_HOME)/lib64/libcudnn.so $(CUDA_HOME)/lib64/libcublasLt.so))),)
EXTRA_TARGETS += $(BUILD)/tests/shim_libs
$(BUILD)/obj/tests/shim_libs.o: CFLAGS += $(CUDA_CFLAGS)
$(BUILD)/tests/shim_libs: $(BUILD)/obj/tests/shim_libs.o
	$(CC) $(LDFLAGS) -o $@ $^ -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 \
		-lcublasLt -lcublas -lcudnn
endif

# make bench: launch cost with and without the recorder.
BENCH_TARGETS += shim-bench
$(BUILD)/tests/shim_bench: $(BUILD)/obj/tests/shim_bench.o
	$(CC) $(LDFLAGS) -o $@ $^ -ldl
shim-bench: $(BUILD)/libsurfer.so $(FAKE_CUDA) $(BUILD)/tests/shim_bench
	@BUILD=$(BUILD) sh tests/shim_bench.sh
.PHONY: shim-bench

# Fake libcublas/libcublasLt (in their own directory, so they never shadow
# the real ones) and a program whose library calls launch kernels.
EXTRA_TARGETS += $(FAKE_LIBDIR)/libcublas.so.13 $(FAKE_LIBDIR)/libcublasLt.so.13 \
	$(BUILD)/tests/shim_nested
$(FAKE_LIBDIR)/libcublasLt.so.13: tests/fake_cublas.c $(FAKE_CUDA)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -DFAKE_LT -Wno-missing-prototypes -fvisibility=hidden -shared \
		-Wl,-soname,libcublasLt.so.13 $(LDFLAGS) -o $@ $< $(FAKE_CUDA)
$(FAKE_LIBDIR)/libcublas.so.13: tests/fake_cublas.c $(FAKE_LIBDIR)/libcublasLt.so.13 $(FAKE_CUDA)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Wno-missing-prototypes -fvisibility=hidden -shared \
		-Wl,-soname,libcublas.so.13 $(LDFLAGS) -o $@ $< $(FAKE_LIBDIR)/libcublasLt.so.13 $(FAKE_CUDA)
$(BUILD)/tests/shim_nested: $(BUILD)/obj/tests/shim_nested.o $(FAKE_LIBDIR)/libcublas.so.13
	$(CC) $(LDFLAGS) -o $@ $< $(FAKE_LIBDIR)/libcublas.so.13 $(FAKE_CUDA) \
		-Wl,-rpath-link,$(FAKE_LIBDIR) -Wl,-rpath-link,$(BUILD)/tests
# ... and one that calls every GEMM entry point the recorder hooks.
EXTRA_TARGETS += $(BUILD)/tests/shim_cublas
$(BUILD)/tests/shim_cublas: $(BUILD)/obj/tests/shim_cublas.o $(FAKE_LIBDIR)/libcublas.so.13
	$(CC) $(LDFLAGS) -o $@ $< $(FAKE_LIBDIR)/libcublas.so.13 $(FAKE_LIBDIR)/libcublasLt.so.13 \
		$(FAKE_CUDA) -Wl,-rpath-link,$(FAKE_LIBDIR) -Wl,-rpath-link,$(BUILD)/tests

# A fake libnccl (4 ranks, rank 1) and a program that calls it as
# PyTorch's ProcessGroupNCCL does.
EXTRA_TARGETS += $(FAKE_LIBDIR)/libnccl.so.2 $(BUILD)/tests/shim_nccl
$(FAKE_LIBDIR)/libnccl.so.2: tests/fake_nccl.c $(FAKE_CUDA)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Wno-missing-prototypes -fvisibility=hidden -shared \
		-Wl,-soname,libnccl.so.2 $(LDFLAGS) -o $@ $< $(FAKE_CUDA)
$(BUILD)/tests/shim_nccl: $(BUILD)/obj/tests/shim_nccl.o $(FAKE_LIBDIR)/libnccl.so.2
	$(CC) $(LDFLAGS) -o $@ $< $(FAKE_LIBDIR)/libnccl.so.2 $(FAKE_CUDA) \
		-Wl,-rpath-link,$(FAKE_LIBDIR) -Wl,-rpath-link,$(BUILD)/tests

# A fake libcudnn (its own directory: it must never shadow the real one) and
# a plan made from heuristics results, the cuDNN frontend's way; needs
# cuDNN's headers for the program's attribute names.
ifeq ($(HAVE_CUDNN),yes)
FAKE_CUDNN := $(BUILD)/tests/fakecudnn/libcudnn.so.9
EXTRA_TARGETS += $(FAKE_CUDNN) $(BUILD)/tests/shim_cudnn
$(FAKE_CUDNN): tests/fake_cudnn.c $(FAKE_CUDA)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Wno-missing-prototypes -fvisibility=hidden -shared \
		-Wl,-soname,libcudnn.so.9 $(LDFLAGS) -o $@ $< $(FAKE_CUDA)
$(BUILD)/obj/tests/shim_cudnn.o: CFLAGS += $(CUDA_CFLAGS)
$(BUILD)/tests/shim_cudnn: $(BUILD)/obj/tests/shim_cudnn.o $(FAKE_CUDNN)
	$(CC) $(LDFLAGS) -o $@ $< $(FAKE_CUDNN) $(FAKE_CUDA) \
		-Wl,-rpath-link,$(BUILD)/tests/fakecudnn -Wl,-rpath-link,$(BUILD)/tests
endif

# A fake libcupti driven by the fake driver: the CUPTI path end to end
# (built with the CUDA headers, above).
$(FAKE_LIBDIR)/libcupti.so.13: tests/fake_cupti.c $(FAKE_CUDA)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(CUDA_CFLAGS) -Wno-missing-prototypes -fvisibility=hidden \
		-shared -Wl,-soname,libcupti.so.13 $(LDFLAGS) -o $@ $< $(FAKE_CUDA)
