# tools/lab/own.mk - `make bench-h200`: our own H200 measurements
# (data/NVIDIA_H200) predicted with Hopper out of every fit (tools/lab/own.sh;
# docs/accuracy.md, "Measured by us: NVIDIA H200"); not part of `make test`,
# reads the shared data at run time.
BENCH_TARGETS += bench-h200
OWN_SHARED ?= ../shared/data

bench-h200: $(BUILD)/surfer-bench
	BUILD=$(BUILD) SHARED=$(OWN_SHARED) GPU=NVIDIA_H200 TARGET=h200 sh tools/lab/own.sh

.PHONY: bench-h200
