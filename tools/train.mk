# tools/train.mk - surfer-train, the tile model's trainer.
PROGRAMS += $(BUILD)/surfer-train
$(BUILD)/surfer-train: $(BUILD)/obj/tools/train.o $(BUILD)/obj/tools/neusight.o $(BUILD)/libsurfer-core.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
