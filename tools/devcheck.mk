# `make devcheck-bundle` gathers what tools/gpu_check.sh runs on a machine
# with a GPU: the recorder, surfer-analyze, surfer-dump and their shared
# libraries, in $(DEVCHECK) (ignored by git; the device tool carries it).
DEVCHECK ?= .devcheck

devcheck-bundle: $(BUILD)/libsurfer.so $(BUILD)/surfer-analyze $(BUILD)/surfer-dump
	@sh tools/devcheck_bundle.sh $(DEVCHECK) $^

.PHONY: devcheck-bundle
