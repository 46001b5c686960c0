# surfer - one non-recursive Makefile.  Each component directory adds its
# sources, programs and tests in its module.mk; everything builds into build/.
#
#   make demo                 install missing packages, build, predict a model
#   make test                 install missing packages, build, run every suite
#                             (NODEPS=1: do not install; packages.txt lists them)
#   make                      build everything (no installing)
#   make SANITIZE=address,undefined test    (or SANITIZE=thread)
#   make CI=1                 warnings are errors
#   make bench                heavy benchmarks (not part of test)
#   make fuzz                 libFuzzer targets into build-fuzz/ (tests/fuzz/fuzz.mk)

CC ?= cc
CUDA_HOME ?= /usr/local/cuda
BUILD ?= build
PREFIX ?= /usr/local
VERSION := 0.1.0

# `make demo` and `make test` first install the missing Debian packages of
# packages.txt (tools/deps.sh: apt-get, through sudo when not root); it runs
# while the Makefile is read, before pkg-config is asked below.
ifneq ($(filter test demo,$(MAKECMDGOALS)),)
ifndef NODEPS
DEPS_STATUS := $(shell sh tools/deps.sh $(if $(filter test,$(MAKECMDGOALS)),test,build) >&2; echo $$?)
ifneq ($(DEPS_STATUS),0)
$(error missing packages (see above); NODEPS=1 builds without installing)
endif
endif
endif

# The recorder (libsurfer.so) and its tests include the CUDA toolkit's
# headers; the analyzer, the importers and the tools need none.  Without
# them those are skipped, and make and make test say so.
# cudnn.h comes with cuDNN, not the toolkit: without it the recorder is
# built without its cuDNN hooks (preload/module.mk says so).
CUDA_HEADERS := cuda.h cupti.h cublasLt.h
CUDA_MISSING := $(strip $(foreach h,$(CUDA_HEADERS),$(if $(wildcard $(CUDA_HOME)/include/$(h)),,$(h))))
HAVE_CUDA := $(if $(CUDA_MISSING),,yes)
HAVE_CUDNN := $(if $(wildcard $(CUDA_HOME)/include/cudnn.h),yes)
CUDA_SKIP_NOTE := not found under $(CUDA_HOME)/include: $(CUDA_MISSING) (set CUDA_HOME)

WARN := -Wall -Wextra -Wstrict-prototypes -Wmissing-prototypes -Wvla -fno-common
ifdef CI
WARN += -Werror
endif
OPT ?= -O2 -g
ifdef SANITIZE
SAN := -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
OPT := -O1 -g
endif

PKGS := msgpack
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
MSGPACK_LIBS := $(shell pkg-config --libs msgpack 2>/dev/null || echo -lmsgpackc)
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lrt -lm -pthread)
CUDA_CFLAGS := -I$(CUDA_HOME)/include

CPPFLAGS := -I. -D_GNU_SOURCE -DSURFER_VERSION='"$(VERSION)"' -MMD -MP
CFLAGS := -std=c11 $(OPT) $(WARN) $(SAN) -fPIC -pthread $(PKG_CFLAGS)
LDFLAGS := $(SAN) -pthread
LDLIBS := $(MSGPACK_LIBS) -lm -lstdc++

# Filled by the module.mk files.
CORE_SRCS :=        # the internal static library every program links
PROGRAMS :=         # build/<name> executables
TEST_BINS :=        # Check suites, each run by `make test`
TEST_SCRIPTS :=     # shell tests run by `make test` after the suites
EXTRA_TARGETS :=    # other things `make` builds (libsurfer.so, fakes)
SKIPPED :=          # what was not built for want of the CUDA headers
SKIPPED_TESTS :=    # the tests left out with them
PARTIAL :=          # what was built with less, and why
BENCH_TARGETS :=    # phony targets run by `make bench`

CORE_LIB := $(BUILD)/libsurfer-core.a

all:

include trace/module.mk
include gpu_specs/module.mk
include predictor/module.mk
include analyzer/module.mk
include preload/module.mk
include tools/module.mk
include tests/module.mk
include tests/fuzz/fuzz.mk

CORE_OBJS := $(CORE_SRCS:%.c=$(BUILD)/obj/%.o)

all: $(CORE_LIB) $(PROGRAMS) $(EXTRA_TARGETS)
ifneq ($(SKIPPED),)
	@echo "skipped $(SKIPPED): CUDA headers $(CUDA_SKIP_NOTE)"
endif
ifneq ($(PARTIAL),)
	@echo "built $(PARTIAL)"
endif

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(CFLAGS_$(subst /,_,$(dir $<))) -c -o $@ $<

$(CORE_LIB): $(CORE_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

tests: $(TEST_BINS) $(EXTRA_TARGETS) $(PROGRAMS)

test: all tests
ifneq ($(SKIPPED_TESTS),)
	@echo "skipping $(SKIPPED_TESTS): they need the recorder (CUDA headers $(CUDA_SKIP_NOTE))"
endif
	@BUILD=$(BUILD) CUDA_HOME=$(CUDA_HOME) SANITIZE=$(SANITIZE) sh tests/run.sh $(TEST_BINS) -- $(TEST_SCRIPTS)

bench: all $(BENCH_TARGETS)

# The first prediction, from the bundled default: a built-in model on two
# GPUs, no GPU and no trace needed.
DEMO_ARGS := --model gpt2-large --batch 2 --seq 1024 --mode training --target a100 --target h100
demo: all
	$(BUILD)/surfer analyze $(DEMO_ARGS)
	@echo "a trace recorded on an H200: $(BUILD)/surfer analyze examples/h200-resnet50/trace.mp --origin h200 --target a100-sxm4-80 --target l4"

clean:
	rm -rf $(BUILD)

.PHONY: all test tests bench clean install demo
.DELETE_ON_ERROR:

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
