# tools/occupancy.mk - surfer-occupancy: blocks per SM of one launch.
PROGRAMS += $(BUILD)/surfer-occupancy
TEST_SCRIPTS += tests/occupancy.sh

$(BUILD)/surfer-occupancy: $(BUILD)/obj/tools/occupancy.o $(BUILD)/libsurfer-core.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
