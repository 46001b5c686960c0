/*
 * fake_cublas.c - stand-ins for libcublas.so.13 and libcublasLt.so.13
 * (built twice, with -DFAKE_LT for the latter), so the tests can check how
 * the recorder links kernels to the library call that launched them.
 *
 * The fake cublasSgemm_v2 launches one kernel through the driver, then
 * calls cublasLtMatmul (as the real libcublas does internally), which
 * launches one more: one GEMM record, two kernels carrying its seq.
 */
#include <stddef.h>

#define API __attribute__((visibility("default")))

int cuModuleGetFunction(void **f, void *mod, const char *name);
int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
		   unsigned bz, unsigned smem, void *s, void **p, void **x);

static int launch(const char *name, unsigned blocks)
{
	void *f = NULL;
	if (cuModuleGetFunction(&f, NULL, name) != 0)
		return 13;
	return cuLaunchKernel(f, blocks, 1, 1, 128, 1, 1, 0, NULL, NULL, NULL) ? 13 : 0;
}

#ifdef FAKE_LT
API int cublasLtMatmul(void *h, void *d, const void *al, const void *A, void *Ad, const void *B,
		       void *Bd, const void *be, const void *C, void *Cd, void *D, void *Dd,
		       const void *algo, void *ws, size_t wss, void *s)
{
	(void)h; (void)d; (void)al; (void)A; (void)Ad; (void)B; (void)Bd; (void)be; (void)C;
	(void)Cd; (void)D; (void)Dd; (void)algo; (void)ws; (void)wss; (void)s;
	return launch("lt_inner_kernel", 12);
}
#else
API int cublasLtMatmul(void *h, void *d, const void *al, const void *A, void *Ad, const void *B,
		       void *Bd, const void *be, const void *C, void *Cd, void *D, void *Dd,
		       const void *algo, void *ws, size_t wss, void *s);
API int cublasGetStream_v2(void *h, void **s)
{
	(void)h;
	*s = NULL;
	return 0;
}
API int cublasSgemm_v2(void *h, int ta, int tb, int m, int n, int k, const float *al,
		       const float *A, int lda, const float *B, int ldb, const float *be, float *C,
		       int ldc)
{
	(void)h; (void)ta; (void)tb; (void)m; (void)n; (void)k; (void)al; (void)A; (void)lda;
	(void)B; (void)ldb; (void)be; (void)C; (void)ldc;
	int r = launch("sgemm_outer_kernel", 7);
	return r ? r : cublasLtMatmul(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
				      NULL, NULL, NULL, NULL, 0, NULL);
}
#endif
