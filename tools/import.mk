# tools/import.mk - surfer-import: Kineto JSON and Nsight Systems SQLite
# traces into surfer traces.  Uses yajl (streaming JSON: a torch.profiler
# trace is read in one pass without building a document tree), zlib (gzip
# traces) and SQLite (nsys exports are SQLite databases).
IMPORT_SRCS := tools/import.c tools/import/common.c tools/import/kineto.c tools/import/nsys.c
IMPORT_OBJS := $(IMPORT_SRCS:%.c=$(BUILD)/obj/%.o)
IMPORT_LIBS := $(shell pkg-config --libs yajl 2>/dev/null || echo -lyajl) \
	$(shell pkg-config --libs zlib 2>/dev/null || echo -lz) \
	$(shell pkg-config --libs sqlite3 2>/dev/null || echo -lsqlite3)

PROGRAMS += $(BUILD)/surfer-import

$(BUILD)/surfer-import: $(IMPORT_OBJS) $(BUILD)/libsurfer-core.a
	$(CC) $(LDFLAGS) -o $@ $(IMPORT_OBJS) $(CORE_LIB) $(IMPORT_LIBS) $(LDLIBS)
