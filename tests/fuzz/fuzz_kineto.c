/*
 * fuzz_kineto.c - the Kineto importer on any bytes, as surfer-import runs it:
 * import_kineto_read on the file (plain or gzip), then import_finish (with
 * --origin for half the inputs, so those naming no known GPU still reach the
 * join, the sort and the trace writer), writing to a scratch file, which
 * must read back and analyze (fuzz.h).
 */
#include "tests/fuzz/fuzz.h"

#include "tools/import/import.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = fuzz_file(data, size, "kineto.json");
	const char *out = fuzz_path("kineto.mp");
	struct import_set set;
	/* inputs of odd length keep the device the input names (none known
	 * fails in finish, as without --origin); even ones are --origin a100 */
	struct import_opts opts = { size & 1 ? NULL : "a100", -1 };
	struct import_stats st;
	char err[512];

	import_set_init(&set);
	if (import_kineto_read(&set, in, NULL, NULL, err, sizeof(err)) == 0 &&
	    import_finish(&set, &opts, out, &st, err, sizeof(err)) == 0) {
		fuzz_check_trace(out, "import_kineto");
		fuzz_analyze(out, "import_kineto");
	}
	import_set_release(&set);
	return 0;
}
