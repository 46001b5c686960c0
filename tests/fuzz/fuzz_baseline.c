/*
 * fuzz_baseline.c - the CI gate's baseline reader on any bytes, as
 * surfer-analyze --baseline FILE runs it: baseline_compare of an analysis
 * (a small synthetic training step on an A100, predicted on an H100 and a
 * T4, made once at start) with the file.
 */
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/analyze.h"
#include "analyzer/baseline.h"
#include "gpu_specs/gpu.h"
#include "tests/synth.h"

static struct analysis *analysis;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const struct gpu_spec *targets[2];
	const char *trace = fuzz_path("step.mp");
	struct synth_opts so;
	struct analysis_options o;
	char err[256];

	(void)argc;
	(void)argv;
	targets[0] = gpu_find("h100-sxm");
	targets[1] = gpu_find("t4");
	synth_defaults(&so, "NVIDIA A100-SXM4-40GB");
	memset(&o, 0, sizeof(o));
	o.targets = targets;
	o.ntargets = 2;
	o.method = PRED_AUTO;
	if (!targets[0] || !targets[1] || synth_write(trace, &so) != 0 ||
	    analysis_run(trace, &o, &analysis, err, sizeof(err)) != 0) {
		fprintf(stderr, "fuzz_baseline: cannot make the analysis to compare with\n");
		abort();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size, "baseline.json");
	struct baseline_verdict v[4];
	size_t n;
	char err[256];

	baseline_compare(analysis, path, 5.0, v, 4, &n, err, sizeof(err));
	return 0;
}
