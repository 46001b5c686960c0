/*
 * fuzz_neusight.c - the NeuSight (and DeepBench) kernel CSV reader on any
 * bytes, as surfer-bench and surfer-train run it: ns_load of the file, the
 * kernel record of every row (with and without launch facts) and the
 * pairing of the first two GPUs' rows; then the same file through
 * ns_load_deepbench_conv() (DeepBench's convolution rows, each row's
 * kernel).  The file is named as a DeepBench results file
 * ("<prefix>__Results.csv", no specs file beside it, so the prefix names
 * the GPU) so that inputs starting "Precision," reach that reader too.
 */
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "tools/lab/neusight.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size, "Tesla-T4__Results.csv");
	const struct gpu_spec *a = NULL, *b = NULL;
	struct ns_set s;
	struct ns_pair *pairs = NULL;
	struct pred_kernel k;
	size_t npairs = 0;
	char err[256];

	memset(&s, 0, sizeof(s));
	if (ns_load(&s, path, NULL, NULL, err, sizeof(err)) == 0) {
		for (size_t i = 0; i < s.n; i++) {
			ns_kernel(&s.rows[i], 1, &k);
			ns_kernel(&s.rows[i], 0, &k);
			if (!a)
				a = s.rows[i].gpu;
			else if (!b && s.rows[i].gpu != a)
				b = s.rows[i].gpu;
		}
		if (a && b && ns_pairs(&s, a, b, NULL, &pairs, &npairs) == 0)
			free(pairs);
	}
	ns_release(&s);
	memset(&s, 0, sizeof(s));
	if (ns_load_deepbench_conv(&s, path, err, sizeof(err)) == 0)
		for (size_t i = 0; i < s.n; i++) {
			ns_kernel(&s.rows[i], 1, &k);
			ns_kernel(&s.rows[i], 0, &k);
		}
	ns_release(&s);
	return 0;
}
