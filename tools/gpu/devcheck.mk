# `make devcheck-bundle` gathers what tools/gpu/check.sh runs on a machine
# with a GPU: the recorder, surfer-analyze, surfer-dump, surfer-import and their shared
# libraries, in $(DEVCHECK) (ignored by git; the device tool carries it).
# Where ../shared/data is present it adds what tools/gpu/measure.sh needs:
# NeuSight's model configs, test shapes and conv sweep shapes (the V100's file),
# read there, never committed.
DEVCHECK ?= .devcheck
DEVCHECK_DATA ?= ../shared/data/neusight

devcheck-bundle: $(BUILD)/libsurfer.so $(BUILD)/surfer-analyze $(BUILD)/surfer-dump $(BUILD)/surfer-import
	@sh tools/gpu/bundle.sh $(DEVCHECK) $^
	@if [ -d $(DEVCHECK_DATA)/kernels-test ]; then \
		mkdir -p $(DEVCHECK)/configs $(DEVCHECK)/shapes && \
		cp $(DEVCHECK_DATA)/model_configs/*.json $(DEVCHECK)/configs/ && \
		cp $(DEVCHECK_DATA)/kernels-test/bmm.csv $(DEVCHECK_DATA)/kernels-test/linear.csv \
		   $(DEVCHECK_DATA)/kernels-test/vec.csv $(DEVCHECK)/shapes/ && \
		mkdir -p $(DEVCHECK)/shapes-conv && \
		cp "$(DEVCHECK_DATA)/kernels/conv/Tesla V100-PCIE-32GB.csv" $(DEVCHECK)/shapes-conv/ && \
		echo "devcheck bundle: configs and shapes from $(DEVCHECK_DATA)"; fi

.PHONY: devcheck-bundle
