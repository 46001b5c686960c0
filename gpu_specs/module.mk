# gpu_specs/module.mk - see the top-level Makefile.
#
# The GPU database is three readable tables (gpus.csv, cc_limits.csv,
# systems.csv) that tools/gpugen.c turns into C at build time; the
# generated file goes into the core library like any other source.  (It is listed in CORE_SRCS as
# $(BUILD)/gen/gpus_table.c, so BUILD must be a relative path.)
GPU_GEN_C := $(BUILD)/gen/gpus_table.c
GPUGEN := $(BUILD)/gpugen
GPU_TABLES := gpu_specs/cc_limits.csv gpu_specs/gpus.csv gpu_specs/systems.csv

CORE_SRCS += gpu_specs/gpus.c gpu_specs/die.c gpu_specs/figures.c gpu_specs/occupancy.c gpu_specs/list.c $(GPU_GEN_C)

JANSSON_CFLAGS := $(shell pkg-config --cflags jansson 2>/dev/null)
JANSSON_LIBS := $(shell pkg-config --libs jansson 2>/dev/null || echo -ljansson)
CFLAGS_gpu_specs_ += $(JANSSON_CFLAGS)

$(GPUGEN): tools/gpugen.c trace/csv.c trace/csv.h trace/surfer_err.c trace/surfer_err.h gpu_specs/gpu.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ tools/gpugen.c trace/csv.c trace/surfer_err.c

$(GPU_GEN_C): $(GPU_TABLES) $(GPUGEN)
	@mkdir -p $(dir $@)
	$(GPUGEN) -o $@ $(GPU_TABLES)
