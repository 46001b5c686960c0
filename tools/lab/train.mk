# tools/lab/train.mk - surfer-train, the tile model's trainer.
PROGRAMS += $(BUILD)/surfer-train
$(BUILD)/surfer-train: $(BUILD)/obj/tools/lab/train.o $(BUILD)/obj/tools/lab/neusight.o $(BUILD)/obj/tools/lab/stats.o $(BUILD)/obj/tools/lab/vidur.o $(BUILD)/libsurfer-core.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
