# tools/lab/cpu.mk - `make bench-cpu`: the CPU time PyTorch spends issuing
# forward, backward and optimizer ops, measured on torch.profiler traces,
# A100 and V100 hosts held out in turn (surfer-bench cpu,
# tools/lab/bench_cpu.c); not part of `make test`, needs the shared data.
BENCH_TARGETS += bench-cpu
KINETO_DATA ?= ../shared/data/kineto

bench-cpu: $(BUILD)/surfer-bench
	@if [ -d $(KINETO_DATA) ]; then \
		$(BUILD)/surfer-bench cpu --data $(KINETO_DATA); \
	else echo "bench-cpu: $(KINETO_DATA) absent, skipped"; fi

.PHONY: bench-cpu
