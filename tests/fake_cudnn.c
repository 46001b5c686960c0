/*
 * fake_cudnn.c - a stand-in for libcudnn.so.9's backend API, for the one
 * path the real library cannot take without a GPU: an execution plan made
 * from what cuDNN's heuristics return (the cuDNN frontend's way, so
 * PyTorch's).  The real heuristics need a handle on a device; this fake
 * answers cudnnBackendGetAttribute(CUDNN_ATTR_ENGINEHEUR_RESULTS) as cuDNN
 * does, by filling the caller's engine-config descriptors (here: leaving
 * them as they are) and saying how many it filled, so the recorder sees
 * configs whose engine was never set through it.
 *
 * cudnnBackendExecute launches one kernel through the driver, so a test
 * can check that it carries the convolution record's seq.
 */
#include <stdint.h>
#include <stdlib.h>

#define API __attribute__((visibility("default")))

int cuModuleGetFunction(void **f, void *mod, const char *name);
int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
		   unsigned bz, unsigned smem, void *s, void **p, void **x);

#define ATTR_ENGINEHEUR_RESULTS 202 /* CUDNN_ATTR_ENGINEHEUR_RESULTS, cudnn_graph.h */
#define HEUR_RESULTS 2              /* configs the fake heuristics return   */

struct desc {
	int type;
};

API int cudnnBackendCreateDescriptor(int type, void **d)
{
	struct desc *p = malloc(sizeof *p);
	if (!p)
		return 4; /* CUDNN_STATUS_ALLOC_FAILED */
	p->type = type;
	*d = p;
	return 0;
}

API int cudnnBackendDestroyDescriptor(void *d)
{
	free(d);
	return 0;
}

API int cudnnBackendSetAttribute(void *d, int attr, int type, int64_t n, const void *v)
{
	(void)d; (void)attr; (void)type; (void)n; (void)v;
	return 0;
}

API int cudnnBackendFinalize(void *d)
{
	(void)d;
	return 0;
}

API int cudnnBackendGetAttribute(void *d, int attr, int type, int64_t requested, int64_t *count,
				 void *v)
{
	(void)d; (void)type; (void)v;
	if (attr != ATTR_ENGINEHEUR_RESULTS)
		return 3000; /* CUDNN_STATUS_NOT_SUPPORTED */
	if (count)
		*count = requested < HEUR_RESULTS ? requested : HEUR_RESULTS;
	return 0;
}

/* The stream every handle launches on: cudnnSetStream's, else the
 * legacy one (NULL). */
static void *handle_stream;
API int cudnnSetStream(void *h, void *s)
{
	(void)h;
	handle_stream = s;
	return 0;
}
API int cudnnGetStream(void *h, void **s)
{
	(void)h;
	*s = handle_stream;
	return 0;
}

API int cudnnBackendExecute(void *h, void *plan, void *pack)
{
	(void)h; (void)plan; (void)pack;
	void *f = NULL;
	if (cuModuleGetFunction(&f, NULL, "conv_fake_kernel") != 0)
		return 4000; /* CUDNN_STATUS_INTERNAL_ERROR */
	return cuLaunchKernel(f, 8, 1, 1, 128, 1, 1, 0, handle_stream, NULL, NULL) ? 4000 : 0;
}
