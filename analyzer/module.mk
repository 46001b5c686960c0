# analyzer/module.mk - surfer-analyze: main.c on top of the analyzer
# modules, which live in the core library so tools can use them.
ANALYZER_SRCS := analyzer/ktable.c analyzer/timeline.c analyzer/analyze.c analyzer/chrome.c \
	analyzer/report.c analyzer/export.c analyzer/baseline.c analyzer/prices.c \
	analyzer/targets.c analyzer/input.c analyzer/sibling.c analyzer/progress.c \
	analyzer/optfail.c analyzer/graphs.c
CORE_SRCS += $(ANALYZER_SRCS)

JANSSON_CFLAGS := $(shell pkg-config --cflags jansson 2>/dev/null)
JANSSON_LIBS := $(shell pkg-config --libs jansson 2>/dev/null || echo -ljansson)
CFLAGS_analyzer_ += $(JANSSON_CFLAGS)

PROGRAMS += $(BUILD)/surfer-analyze

# ($(CORE_LIB) is defined after the fragments are read, so name the library.)
$(BUILD)/surfer-analyze: $(BUILD)/obj/analyzer/main.o $(BUILD)/libsurfer-core.a
	$(CC) $(LDFLAGS) -o $@ $^ $(JANSSON_LIBS) $(LDLIBS)
include analyzer/model/module.mk
