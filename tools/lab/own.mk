# tools/lab/own.mk - `make bench-h200`, `make bench-h100`: our own H200 and
# H100 measurements (data/NVIDIA_H200, data/NVIDIA_H100_80GB_HBM3) predicted
# with Hopper out of every fit (tools/lab/own.sh; docs/accuracy.md,
# "Measured by us"); not part of `make test`, read the shared data at run
# time.
BENCH_TARGETS += bench-h200 bench-h100
OWN_SHARED ?= ../shared/data

bench-h200: $(BUILD)/surfer-bench
	BUILD=$(BUILD) SHARED=$(OWN_SHARED) GPU=NVIDIA_H200 TARGET=h200 sh tools/lab/own.sh

bench-h100: $(BUILD)/surfer-bench
	BUILD=$(BUILD) SHARED=$(OWN_SHARED) GPU=NVIDIA_H100_80GB_HBM3 TARGET=h100-sxm sh tools/lab/own.sh

.PHONY: bench-h200 bench-h100
