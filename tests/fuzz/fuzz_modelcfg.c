/*
 * fuzz_modelcfg.c - the Hugging Face config.json reader on any bytes, as
 * surfer-analyze --model FILE runs it: model_config_load, then what the
 * model path asks of the config first (its parameter count, the kernel
 * sequence of a training step and its memory).  The build runs only for
 * models of at most 48 layers and 64 experts: larger ones go through the
 * same code, only slower than a fuzzer's time limit allows.  Models of
 * over 10^12 parameters are not built either: foreach AdamW alone launches
 * 12 kernels per 20 M parameters, and the millions of kernels of a larger
 * one take more memory than the fuzzer's limit (the builder refuses past
 * MODEL_MAX_KERNELS, 1 GiB; check_model tests that limit).
 */
#include "tests/fuzz/fuzz.h"

#include "analyzer/model/model.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size, "config.json");
	struct model_config c;
	struct model_opts o;
	struct model_seq s;
	struct model_memory m;
	char err[256];

	if (model_config_load(path, &c, err, sizeof(err)) != 0)
		return 0;
	if (c.layers + (uint64_t)c.dec_layers > 48 || c.experts > 64 ||
	    model_config_params(&c) > 1e12)
		return 0;
	model_opts_init(&o);
	o.mode = MODEL_TRAINING;
	o.optimizer = MODEL_OPTIM_ADAMW;
	o.loss = 1;
	o.seq = 64;
	if (model_build(&c, &o, &s, err, sizeof(err)) == 0) {
		model_memory(&c, &o, &s, &m);
		model_seq_release(&s);
	}
	return 0;
}
