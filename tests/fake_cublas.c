/*
 * fake_cublas.c - stand-ins for libcublas.so.13 and libcublasLt.so.13
 * (built twice, with -DFAKE_LT for the latter), so the tests can check how
 * the recorder links kernels to the library call that launched them.
 *
 * The fake cublasSgemm_v2 launches one kernel through the driver, then
 * calls cublasLtMatmul (as the real libcublas does internally), which
 * launches one more: one GEMM record, two kernels carrying its seq.
 *
 * Every GEMM entry point the recorder hooks is here, so tests/shim_cublas.c
 * can call each: each notes the errno it was called with
 * (fake_cublas_errno, fake_cublaslt_errno), leaves FAKE_CUBLAS_ERRNO in errno and returns its
 * own status (see answer), for the test to check that both pass through.
 */
#include <errno.h>
#include <stddef.h>

#define API __attribute__((visibility("default")))

int cuModuleGetFunction(void **f, void *mod, const char *name);
int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
		   unsigned bz, unsigned smem, void *s, void **p, void **x);

#define FAKE_CUBLAS_ERRNO 121

/* The errno the last entry point of this library was called with. */
static int seen_errno = -1;
#ifdef FAKE_LT
API int fake_cublaslt_errno(void);
int fake_cublaslt_errno(void) { return seen_errno; }
#else
API int fake_cublas_errno(void);
int fake_cublas_errno(void) { return seen_errno; }
#endif

/* What an entry point returns: status, with errno FAKE_CUBLAS_ERRNO. */
static int answer(int status)
{
	errno = FAKE_CUBLAS_ERRNO;
	return status;
}

/* Launches name on stream s (NULL the legacy one). */
static int launch(const char *name, unsigned blocks, void *s)
{
	void *f = NULL;
	if (cuModuleGetFunction(&f, NULL, name) != 0)
		return 13;
	return cuLaunchKernel(f, blocks, 1, 1, 128, 1, 1, 0, s, NULL, NULL) ? 13 : 0;
}

#ifdef FAKE_LT
API int cublasLtMatmul(void *h, void *d, const void *al, const void *A, void *Ad, const void *B,
		       void *Bd, const void *be, const void *C, void *Cd, void *D, void *Dd,
		       const void *algo, void *ws, size_t wss, void *s)
{
	(void)h; (void)d; (void)al; (void)A; (void)Ad; (void)B; (void)Bd; (void)be; (void)C;
	(void)Cd; (void)D; (void)Dd; (void)algo; (void)ws; (void)wss; (void)s;
	seen_errno = errno;
	int r = launch("lt_inner_kernel", 12, s);
	return answer(r ? r : h == (void *)0x2 ? 7 : 0);   /* 7: CUBLAS_STATUS_INVALID_VALUE */
}
#else
API int cublasLtMatmul(void *h, void *d, const void *al, const void *A, void *Ad, const void *B,
		       void *Bd, const void *be, const void *C, void *Cd, void *D, void *Dd,
		       const void *algo, void *ws, size_t wss, void *s);
/* The stream every handle launches on: cublasSetStream_v2's, else the
 * legacy one (NULL). */
static void *handle_stream;
API int cublasSetStream_v2(void *h, void *s)
{
	(void)h;
	handle_stream = s;
	return 0;
}
API int cublasGetStream_v2(void *h, void **s)
{
	(void)h;
	*s = handle_stream;
	return 0;
}
API int cublasSgemm_v2(void *h, int ta, int tb, int m, int n, int k, const float *al,
		       const float *A, int lda, const float *B, int ldb, const float *be, float *C,
		       int ldc)
{
	(void)h; (void)ta; (void)tb; (void)m; (void)n; (void)k; (void)al; (void)A; (void)lda;
	(void)B; (void)ldb; (void)be; (void)C; (void)ldc;
	int e = errno;
	int r = launch("sgemm_outer_kernel", 7, handle_stream);
	r = r ? r : cublasLtMatmul(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
				   NULL, NULL, NULL, NULL, 0, handle_stream);
	seen_errno = e;
	return answer(r);
}

/* The other GEMMs run nothing; each returns a status of its own
 * (cuBLAS's codes: 0 success, 13 execution failed, 14 internal error). */
API int cublasDgemm_v2(void *h, int ta, int tb, int m, int n, int k, const double *al,
		       const double *A, int lda, const double *B, int ldb, const double *be,
		       double *C, int ldc)
{
	seen_errno = errno;
	(void)h; (void)ta; (void)tb; (void)m; (void)n; (void)k; (void)al; (void)A; (void)lda;
	(void)B; (void)ldb; (void)be; (void)C; (void)ldc;
	return answer(0);
}
API int cublasHgemm(void *h, int ta, int tb, int m, int n, int k, const void *al, const void *A,
		    int lda, const void *B, int ldb, const void *be, void *C, int ldc)
{
	seen_errno = errno;
	(void)h; (void)ta; (void)tb; (void)m; (void)n; (void)k; (void)al; (void)A; (void)lda;
	(void)B; (void)ldb; (void)be; (void)C; (void)ldc;
	return answer(13);
}
API int cublasGemmEx(void *h, int ta, int tb, int m, int n, int k, const void *al, const void *A,
		     int at, int lda, const void *B, int bt, int ldb, const void *be, void *C, int ct,
		     int ldc, int comp, int algo)
{
	seen_errno = errno;
	(void)h; (void)ta; (void)tb; (void)m; (void)n; (void)k; (void)al; (void)A; (void)at;
	(void)lda; (void)B; (void)bt; (void)ldb; (void)be; (void)C; (void)ct; (void)ldc;
	(void)comp; (void)algo;
	return answer(0);
}
API int cublasSgemmStridedBatched(void *h, int ta, int tb, int m, int n, int k, const float *al,
				  const float *A, int lda, long long sa, const float *B, int ldb,
				  long long sb, const float *be, float *C, int ldc, long long sc,
				  int batch)
{
	seen_errno = errno;
	(void)h; (void)ta; (void)tb; (void)m; (void)n; (void)k; (void)al; (void)A; (void)lda;
	(void)sa; (void)B; (void)ldb; (void)sb; (void)be; (void)C; (void)ldc; (void)sc; (void)batch;
	return answer(0);
}
API int cublasDgemmStridedBatched(void *h, int ta, int tb, int m, int n, int k, const double *al,
				  const double *A, int lda, long long sa, const double *B, int ldb,
				  long long sb, const double *be, double *C, int ldc, long long sc,
				  int batch)
{
	seen_errno = errno;
	(void)h; (void)ta; (void)tb; (void)m; (void)n; (void)k; (void)al; (void)A; (void)lda;
	(void)sa; (void)B; (void)ldb; (void)sb; (void)be; (void)C; (void)ldc; (void)sc; (void)batch;
	return answer(14);
}
API int cublasHgemmStridedBatched(void *h, int ta, int tb, int m, int n, int k, const void *al,
				  const void *A, int lda, long long sa, const void *B, int ldb,
				  long long sb, const void *be, void *C, int ldc, long long sc,
				  int batch)
{
	seen_errno = errno;
	(void)h; (void)ta; (void)tb; (void)m; (void)n; (void)k; (void)al; (void)A; (void)lda;
	(void)sa; (void)B; (void)ldb; (void)sb; (void)be; (void)C; (void)ldc; (void)sc; (void)batch;
	return answer(0);
}
API int cublasGemmStridedBatchedEx(void *h, int ta, int tb, int m, int n, int k, const void *al,
				   const void *A, int at, int lda, long long sa, const void *B,
				   int bt, int ldb, long long sb, const void *be, void *C, int ct,
				   int ldc, long long sc, int batch, int comp, int algo)
{
	seen_errno = errno;
	(void)h; (void)ta; (void)tb; (void)m; (void)n; (void)k; (void)al; (void)A; (void)at;
	(void)lda; (void)sa; (void)B; (void)bt; (void)ldb; (void)sb; (void)be; (void)C; (void)ct;
	(void)ldc; (void)sc; (void)batch; (void)comp; (void)algo;
	return answer(0);
}
API int cublasGemmBatchedEx(void *h, int ta, int tb, int m, int n, int k, const void *al,
			    const void *const A[], int at, int lda, const void *const B[], int bt,
			    int ldb, const void *be, void *const C[], int ct, int ldc, int batch,
			    int comp, int algo)
{
	seen_errno = errno;
	(void)h; (void)ta; (void)tb; (void)m; (void)n; (void)k; (void)al; (void)A; (void)at;
	(void)lda; (void)B; (void)bt; (void)ldb; (void)be; (void)C; (void)ct; (void)ldc;
	(void)batch; (void)comp; (void)algo;
	return answer(0);
}
#endif
