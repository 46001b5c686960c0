/*
 * mkanalyzer.c - writes the synthetic traces the analyzer's golden tests,
 * gate test and benchmark run on (tests/synth.c).
 *
 *   mkanalyzer step DEVICE OUT [options]   a simulated training step
 *       --iterations N --layers N --scale X --slow-gemm X --launch-bound
 *       --shuffle --truncate --no-gpu-times --fp32-gemm
 *       --cuda-graphs cupti|events
 *   mkanalyzer bench DEVICE N OUT [THREADS [BLOCK]]
 *       N kernel launches from THREADS threads (1), each thread's records
 *       written in runs of BLOCK records (32768)
 *   mkanalyzer blocking DEVICE HOW OUT     a GPU-bound step ended by a
 *       blocking DtoH copy (synth_write_blocking); HOW: pageable, cpu-end,
 *       sync-call or item
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/synth.h"

static int usage(void)
{
	fprintf(stderr, "usage: mkanalyzer step DEVICE OUT [--iterations N] [--layers N] "
			"[--scale X] [--slow-gemm X] [--launch-bound] [--shuffle] [--truncate] "
			"[--cuda-graphs cupti|events] "
			"[--no-gpu-times] [--fp32-gemm]\n       mkanalyzer bench DEVICE N OUT [THREADS [BLOCK]]\n"
			"       mkanalyzer blocking DEVICE pageable|cpu-end|sync-call|item OUT\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct synth_opts o;

	if (argc == 5 && strcmp(argv[1], "blocking") == 0) {
		static const char *const how[] = { "pageable", "cpu-end", "sync-call", "item" };
		for (int i = 0; i < SYNTH_BLOCK_COUNT; i++)
			if (strcmp(argv[3], how[i]) == 0) {
				if (synth_write_blocking(argv[4], argv[2], (enum synth_blocking)i) < 0) {
					fprintf(stderr, "mkanalyzer: cannot write '%s'\n", argv[4]);
					return 1;
				}
				return 0;
			}
		return usage();
	}
	if (argc >= 5 && argc <= 7 && strcmp(argv[1], "bench") == 0) {
		uint32_t threads = argc > 5 ? (uint32_t)strtoul(argv[5], NULL, 10) : 1;
		uint32_t block = argc > 6 ? (uint32_t)strtoul(argv[6], NULL, 10) : 32768;

		if (threads < 1 || threads > SY_BENCH_MAX_THREADS || block < 1)
			return usage();
		if (synth_write_bench(argv[4], argv[2], strtoull(argv[3], NULL, 10), threads, block) < 0) {
			fprintf(stderr, "mkanalyzer: cannot write '%s'\n", argv[4]);
			return 1;
		}
		return 0;
	}
	if (argc < 4 || strcmp(argv[1], "step") != 0)
		return usage();
	synth_defaults(&o, argv[2]);
	for (int i = 4; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--launch-bound") == 0)
			o.launch_bound = 1;
		else if (strcmp(a, "--shuffle") == 0)
			o.shuffle = 1;
		else if (strcmp(a, "--truncate") == 0)
			o.truncate = 1;
		else if (strcmp(a, "--no-gpu-times") == 0)
			o.no_gpu_times = 1;
		else if (strcmp(a, "--fp32-gemm") == 0)
			o.fp32_gemm = 1;
		else if (!v)
			return usage();
		else if (strcmp(a, "--iterations") == 0 && ++i)
			o.iterations = atoi(v);
		else if (strcmp(a, "--layers") == 0 && ++i)
			o.layers = atoi(v);
		else if (strcmp(a, "--scale") == 0 && ++i)
			o.gpu_scale = atof(v);
		else if (strcmp(a, "--slow-gemm") == 0 && ++i)
			o.slow_gemm = atof(v);
		else if (strcmp(a, "--cuda-graphs") == 0 && ++i)
			o.cuda_graphs = !strcmp(v, "cupti") ? SYNTH_GRAPHS_CUPTI :
					!strcmp(v, "events") ? SYNTH_GRAPHS_EVENTS : -1;
		else
			return usage();
	}
	if (o.cuda_graphs < 0)
		return usage();
	if (synth_write(argv[3], &o) < 0) {
		fprintf(stderr, "mkanalyzer: cannot write '%s'\n", argv[3]);
		return 1;
	}
	return 0;
}
