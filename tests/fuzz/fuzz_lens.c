/*
 * fuzz_lens.c - the lengths reader of --prompt-lens, --context-lens and
 * --new-tokens (model_lens_read, analyzer/model/lens.h) on any bytes, as
 * surfer-analyze reads them: typed on the command line, or from a file
 * (a plain list or a CSV workload with a header), with and without a
 * :COLUMN.  The first byte picks the option and the form; every length
 * the reader accepts must be 1 to 16777216 and at most MODEL_LENS_MAX of
 * them.
 */
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/model/lens.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const opts[] = { "prompt-lens", "context-lens", "new-tokens" };
	static const char *const cols[] = { "", ":2", ":output_tokens", ":" };
	static uint32_t lens[MODEL_LENS_MAX];
	if (size < 1)
		return 0;
	uint8_t sel = data[0];
	const char *opt = opts[sel % 3];
	data++;
	size--;
	char arg[4200];
	if (sel & 0x80) {
		/* typed: the bytes up to the first NUL, as argv holds them */
		size_t n = size < sizeof(arg) - 1 ? size : sizeof(arg) - 1;
		memcpy(arg, data, n);
		arg[n] = 0;
	} else {
		const char *path = fuzz_file(data, size, "lens.csv");
		snprintf(arg, sizeof(arg), "@%s%s", path, cols[(sel >> 2) % 4]);
	}
	uint32_t n = 0;
	char err[512];
	if (model_lens_read(opt, arg, lens, &n, err, sizeof(err)) == 0) {
		if (n < 1 || n > MODEL_LENS_MAX)
			abort();
		for (uint32_t i = 0; i < n; i++)
			if (lens[i] < 1 || lens[i] > (1u << 24))
				abort();
	} else if (!err[0]) {
		abort();   /* a refusal says why (surfer-analyze's print_error()
			    * makes it one line, whatever bytes it quotes) */
	}
	return 0;
}
