/*
 * shim_cublas.c - calls every cuBLAS/cuBLASLt GEMM entry point the recorder
 * hooks (the fake libraries, tests/fake_cublas.c), each with its own shape,
 * and checks what the recorder must pass through: the library's status
 * (some fail on purpose) and errno both ways (the library sees the
 * caller's, the caller gets the library's).  The trace must hold one GEMM
 * record per call with the shape, transposes and types passed, failing
 * calls included (shim_test.sh checks it).  Exits 0 when every call passed
 * through, 1 otherwise.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>

int cuInit(unsigned flags);
int fake_cublas_errno(void);
int fake_cublaslt_errno(void);
int cublasSgemm_v2(void *h, int ta, int tb, int m, int n, int k, const float *al, const float *A,
		   int lda, const float *B, int ldb, const float *be, float *C, int ldc);
int cublasDgemm_v2(void *h, int ta, int tb, int m, int n, int k, const double *al,
		   const double *A, int lda, const double *B, int ldb, const double *be, double *C,
		   int ldc);
int cublasHgemm(void *h, int ta, int tb, int m, int n, int k, const void *al, const void *A,
		int lda, const void *B, int ldb, const void *be, void *C, int ldc);
int cublasGemmEx(void *h, int ta, int tb, int m, int n, int k, const void *al, const void *A,
		 int at, int lda, const void *B, int bt, int ldb, const void *be, void *C, int ct,
		 int ldc, int comp, int algo);
int cublasSgemmStridedBatched(void *h, int ta, int tb, int m, int n, int k, const float *al,
			      const float *A, int lda, long long sa, const float *B, int ldb,
			      long long sb, const float *be, float *C, int ldc, long long sc,
			      int batch);
int cublasDgemmStridedBatched(void *h, int ta, int tb, int m, int n, int k, const double *al,
			      const double *A, int lda, long long sa, const double *B, int ldb,
			      long long sb, const double *be, double *C, int ldc, long long sc,
			      int batch);
int cublasHgemmStridedBatched(void *h, int ta, int tb, int m, int n, int k, const void *al,
			      const void *A, int lda, long long sa, const void *B, int ldb,
			      long long sb, const void *be, void *C, int ldc, long long sc,
			      int batch);
int cublasGemmStridedBatchedEx(void *h, int ta, int tb, int m, int n, int k, const void *al,
			       const void *A, int at, int lda, long long sa, const void *B, int bt,
			       int ldb, long long sb, const void *be, void *C, int ct, int ldc,
			       long long sc, int batch, int comp, int algo);
int cublasGemmBatchedEx(void *h, int ta, int tb, int m, int n, int k, const void *al,
			const void *const A[], int at, int lda, const void *const B[], int bt,
			int ldb, const void *be, void *const C[], int ct, int ldc, int batch,
			int comp, int algo);
int cublasLtMatmul(void *h, void *d, const void *al, const void *A, void *Ad, const void *B,
		   void *Bd, const void *be, const void *C, void *Cd, void *D, void *Dd,
		   const void *algo, void *ws, size_t wss, void *s);

/* cublasOperation_t, cudaDataType, cublasComputeType_t (cublas_api.h,
 * library_types.h) */
enum { N = 0, T = 1, C = 2 };
enum { R_32F = 0, R_64F = 1, R_16F = 2, R_16BF = 14, R_8F_E4M3 = 28 };
enum { COMPUTE_16F = 64, COMPUTE_32F = 68, COMPUTE_64F = 70, COMPUTE_32F_FAST_TF32 = 77 };
#define ALGO_DEFAULT (-1)
#define CALLER_ERRNO 33
#define FAKE_CUBLAS_ERRNO 121

static int bad;

static void check(const char *what, int r, int want, int (*seen)(void))
{
	int e = errno, s = seen();
	if (r != want || e != FAKE_CUBLAS_ERRNO || s != CALLER_ERRNO) {
		fprintf(stderr, "shim_cublas: %s: status %d (want %d), errno %d (want %d), "
			"the library saw errno %d (want %d)\n", what, r, want, e, FAKE_CUBLAS_ERRNO,
			s, CALLER_ERRNO);
		bad = 1;
	}
}

int main(void)
{
	static float f[64];
	static double d[64];
	static const void *ptrs[4] = { f, f, f, f };
	void *h = (void *)0x1, *out[4] = { f, f, f, f };
	if (cuInit(0))
		return 3;
	errno = CALLER_ERRNO;
	check("sgemm", cublasSgemm_v2(h, N, T, 10, 20, 30, f, f, 10, f, 20, f, f, 10), 0,
	      fake_cublas_errno);
	errno = CALLER_ERRNO;
	check("dgemm", cublasDgemm_v2(h, T, N, 11, 21, 31, d, d, 31, d, 31, d, d, 11), 0,
	      fake_cublas_errno);
	errno = CALLER_ERRNO;
	check("hgemm", cublasHgemm(h, N, N, 12, 22, 32, f, f, 12, f, 32, f, f, 12), 13,
	      fake_cublas_errno);
	errno = CALLER_ERRNO;
	check("gemmex", cublasGemmEx(h, C, N, 13, 23, 33, f, f, R_16BF, 33, f, R_16BF, 33, f, f, R_32F,
				     13, COMPUTE_32F_FAST_TF32, ALGO_DEFAULT), 0, fake_cublas_errno);
	errno = CALLER_ERRNO;
	check("sgemm_strided_batched", cublasSgemmStridedBatched(h, N, N, 14, 24, 34, f, f, 14, 0, f, 34,
								 0, f, f, 14, 0, 2), 0,
	      fake_cublas_errno);
	errno = CALLER_ERRNO;
	check("dgemm_strided_batched", cublasDgemmStridedBatched(h, T, T, 15, 25, 35, d, d, 35, 0, d, 25,
								 0, d, d, 15, 0, 3), 14,
	      fake_cublas_errno);
	errno = CALLER_ERRNO;
	check("hgemm_strided_batched", cublasHgemmStridedBatched(h, N, T, 16, 26, 36, f, f, 16, 0, f, 26,
								 0, f, f, 16, 0, 4), 0,
	      fake_cublas_errno);
	errno = CALLER_ERRNO;
	check("gemm_strided_batched_ex",
	      cublasGemmStridedBatchedEx(h, T, N, 17, 27, 37, f, f, R_16F, 37, 0, f, R_16F, 37, 0, f, f,
					 R_16F, 17, 0, 5, COMPUTE_16F, ALGO_DEFAULT), 0,
	      fake_cublas_errno);
	errno = CALLER_ERRNO;
	check("gemm_batched_ex",
	      cublasGemmBatchedEx(h, N, N, 18, 28, 38, f, ptrs, R_8F_E4M3, 18, ptrs, R_8F_E4M3, 38, f,
				  out, R_16BF, 18, 6, COMPUTE_32F, ALGO_DEFAULT), 0,
	      fake_cublas_errno);
	errno = CALLER_ERRNO;
	check("lt_matmul", cublasLtMatmul((void *)0x2, NULL, f, f, NULL, f, NULL, f, f, NULL, f, NULL,
					  NULL, NULL, 0, NULL), 7, fake_cublaslt_errno);
	(void)COMPUTE_64F;
	return bad;
}
