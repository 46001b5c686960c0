# tests/model.mk - the config-path suite.
TEST_BINS += $(BUILD)/tests/check_model
CFLAGS_tests_ += $(CHECK_CFLAGS)

$(BUILD)/tests/check_model: $(BUILD)/obj/tests/check_model.o $(BUILD)/libsurfer-core.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(CORE_LIB) $(CHECK_LIBS) $(LDLIBS)
TEST_SCRIPTS += tests/model_cli.sh tests/model_trace.sh tests/docs_cli.sh tests/report_cli.sh \
	tests/serve_cli.sh tests/serving_bench.sh tests/published.sh
