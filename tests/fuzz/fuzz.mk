# tests/fuzz/fuzz.mk - libFuzzer targets, one per parser (see tests/fuzz/fuzz.h).
#
#   make fuzz        builds them with clang -fsanitize=fuzzer,address,undefined
#                    into build-fuzz/ (the whole core library is rebuilt there
#                    with the same sanitizers)
#   make fuzz-run FUZZ_SECONDS=N   runs each target N seconds (default 60) from
#                    its seed corpus, new inputs kept under build-fuzz/corpus/
#   make test        when clang can link a fuzzer, builds them and runs each
#                    for a few seconds (tests/fuzz/run.sh); skipped otherwise
#
# Seeds: tests/fuzz/corpus/<target>/ (the generated ones remade by
# tests/fuzz/seeds.sh); names each parser looks for: tests/fuzz/<target>.dict.
FUZZ_BUILD ?= build-fuzz
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=c11 -O1 -g $(WARN) -fPIC -pthread $(PKG_CFLAGS) $(FUZZ_SAN) \
	-fsanitize=fuzzer-no-link
FUZZ_LDFLAGS := $(FUZZ_SAN) -fsanitize=fuzzer -pthread
FUZZ_NAMES := trace kineto nsys modelcfg baseline neusight lens weights
FUZZ_BINS := $(FUZZ_NAMES:%=$(FUZZ_BUILD)/fuzz_%)
FUZZ_CORE := $(FUZZ_BUILD)/libsurfer-core.a
FUZZ_IMPORT_OBJS := $(patsubst %.c,$(FUZZ_BUILD)/obj/%.o,$(filter-out tools/import.c,$(IMPORT_SRCS)))
fuzz_obj = $(FUZZ_BUILD)/obj/tests/fuzz/fuzz_$(1).o $(FUZZ_BUILD)/obj/tests/fuzz/fuzz.o

# Whether clang links a libFuzzer program (clang and its compiler-rt);
# asked only when a goal needs it.
ifneq ($(filter test tests fuzz fuzz-run,$(MAKECMDGOALS)),)
FUZZ_OK := $(shell printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' | \
	$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -x c -o /dev/null - >/dev/null 2>&1 && echo yes)
endif
export FUZZ_OK FUZZ_BUILD

ifeq ($(FUZZ_OK),yes)
tests: $(FUZZ_BINS)
endif
TEST_SCRIPTS += tests/fuzz/run.sh

$(FUZZ_BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) $(CFLAGS_$(subst /,_,$(dir $<))) -c -o $@ $<

# (the generated GPU table, $(BUILD)/gen/gpus_table.c, is compiled from
# where the normal build generates it)
$(FUZZ_CORE): $(CORE_SRCS:%.c=$(FUZZ_BUILD)/obj/%.o)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(FUZZ_BUILD)/fuzz_trace $(FUZZ_BUILD)/fuzz_modelcfg $(FUZZ_BUILD)/fuzz_lens $(FUZZ_BUILD)/fuzz_weights: $(FUZZ_BUILD)/fuzz_%: $(call fuzz_obj,%) $(FUZZ_CORE)
	$(FUZZ_CC) $(FUZZ_LDFLAGS) -o $@ $^ $(JANSSON_LIBS) $(LDLIBS)

$(FUZZ_BUILD)/fuzz_kineto $(FUZZ_BUILD)/fuzz_nsys: $(FUZZ_BUILD)/fuzz_%: $(call fuzz_obj,%) $(FUZZ_IMPORT_OBJS) $(FUZZ_CORE)
	$(FUZZ_CC) $(FUZZ_LDFLAGS) -o $@ $^ $(IMPORT_LIBS) $(LDLIBS)

$(FUZZ_BUILD)/fuzz_baseline: $(call fuzz_obj,baseline) $(FUZZ_BUILD)/obj/tests/synth.o $(FUZZ_CORE)
	$(FUZZ_CC) $(FUZZ_LDFLAGS) -o $@ $^ $(JANSSON_LIBS) $(LDLIBS)

$(FUZZ_BUILD)/fuzz_neusight: $(call fuzz_obj,neusight) $(FUZZ_BUILD)/obj/tools/lab/neusight.o $(FUZZ_BUILD)/obj/tools/lab/stats.o $(FUZZ_BUILD)/obj/tools/lab/vidur.o $(FUZZ_CORE)
	$(FUZZ_CC) $(FUZZ_LDFLAGS) -o $@ $^ $(JANSSON_LIBS) $(LDLIBS)

ifeq ($(FUZZ_OK),yes)
fuzz: $(FUZZ_BINS)
else
fuzz:
	@echo "fuzz: $(FUZZ_CC) cannot link -fsanitize=fuzzer here (install clang and libclang-rt-dev)"; exit 1
endif

fuzz-run: fuzz
	@for t in $(FUZZ_NAMES); do \
		mkdir -p $(FUZZ_BUILD)/corpus/$$t $(FUZZ_BUILD)/artifacts/$$t $(FUZZ_BUILD)/tmp; \
		echo "== fuzz_$$t ($(FUZZ_SECONDS) s)"; \
		dict=; [ -f tests/fuzz/$$t.dict ] && dict=-dict=tests/fuzz/$$t.dict; \
		TMPDIR=$(FUZZ_BUILD)/tmp $(FUZZ_BUILD)/fuzz_$$t $$dict -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
			-artifact_prefix=$(FUZZ_BUILD)/artifacts/$$t/ \
			$(FUZZ_BUILD)/corpus/$$t tests/fuzz/corpus/$$t || exit 1; \
	done

clean: fuzz-clean
fuzz-clean:
	rm -rf $(FUZZ_BUILD)

.PHONY: fuzz fuzz-run fuzz-clean

-include $(shell find $(FUZZ_BUILD) -name '*.d' 2>/dev/null)
