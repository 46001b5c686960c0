# preload/module.mk - libsurfer.so, the LD_PRELOAD recorder.
#
# Everything is hidden except the hooks (explicit default visibility); the
# trace writer comes from the core library and is kept internal with
# --exclude-libs.  No version script: a named version node would stop our
# unversioned definitions from interposing versioned references such as
# cublasGemmEx@libcublas.so.13.
PRELOAD_SRCS := preload/resolve.c preload/hooks_cuda.c preload/hooks_cublas.c preload/hooks_nccl.c \
	$(if $(HAVE_CUDNN),preload/hooks_cudnn.c,preload/hooks_cudnn_none.c) preload/recorder.c preload/log.c preload/settings.c \
	preload/ring.c preload/writer_thread.c preload/entries.c preload/funcinfo.c \
	preload/pending.c preload/joins.c preload/output.c preload/devmem.c \
	preload/events.c preload/cupti.c preload/stacks.c preload/graphs.c
PRELOAD_OBJS := $(PRELOAD_SRCS:%.c=$(BUILD)/obj/%.o)

# -foptimize-sibling-calls: the dlsym pass-through must stay a tail call
# (RTLD_NEXT is resolved from the caller's return address), also at -O1.
CFLAGS_preload_ += $(CUDA_CFLAGS) -fvisibility=hidden -foptimize-sibling-calls

ifeq ($(HAVE_CUDA),yes)
EXTRA_TARGETS += $(BUILD)/libsurfer.so
ifneq ($(HAVE_CUDNN),yes)
PARTIAL += $(BUILD)/libsurfer.so without its cuDNN hooks (cudnn.h not under $(CUDA_HOME)/include: \
	convolutions are recorded as their kernels, without their shapes)
endif
else
SKIPPED += $(BUILD)/libsurfer.so
endif

$(BUILD)/libsurfer.so: $(PRELOAD_OBJS) $(BUILD)/libsurfer-core.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -shared -Wl,--exclude-libs,ALL -Wl,-z,nodelete -o $@ $(PRELOAD_OBJS) \
		$(BUILD)/libsurfer-core.a $(MSGPACK_LIBS) -ldl -lm
