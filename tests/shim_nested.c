/*
 * shim_nested.c - calls cublasSgemm_v2 (the fake one, which calls
 * cublasLtMatmul inside) twice and launches one kernel outside: the trace
 * must hold two GEMM records, and the kernels launched inside each call
 * must carry that call's seq (checked by shim_check --nested).
 */
int cuInit(unsigned flags);
int cuModuleGetFunction(void **f, void *mod, const char *name);
int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
		   unsigned bz, unsigned smem, void *s, void **p, void **x);
int cublasSgemm_v2(void *h, int ta, int tb, int m, int n, int k, const float *al,
		   const float *A, int lda, const float *B, int ldb, const float *be, float *C,
		   int ldc);

int main(void)
{
	float one = 1, buf[16];
	void *f;
	if (cuInit(0) || cuModuleGetFunction(&f, 0, "outside_kernel"))
		return 3;
	for (int i = 0; i < 2; i++)
		if (cublasSgemm_v2((void *)0x1, 0, 1, 64 + i, 32, 16, &one, buf, 64, buf, 32, &one,
				   buf, 64) != 0)
			return 3;
	return cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, 0, 0) ? 3 : 0;
}
