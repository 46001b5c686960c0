/*
 * hooks_cublas.c - GEMM records from cuBLAS and cuBLASLt.
 *
 * PyTorch links libcublas/libcublasLt as ordinary dependencies, so our
 * exported definitions interpose them (no version script: a named version
 * node would stop that for references such as cublasGemmEx@libcublas.so.13).
 * One record per user call: libcublas calls cuBLASLt internally, so the
 * nesting is counted per thread and only the outermost call is recorded;
 * every kernel launched inside carries its seq in lib_call.  The record is
 * written when the call is made, so a call that fails is recorded too.
 *
 * Shapes are cuBLAS's column-major ones: C[m x n] = op(A)[m x k] op(B)[k x n].
 * For cublasLtMatmul they come from the descriptors: m = rows(D),
 * n = cols(D), k = cols(A) when A is not transposed, else rows(A).
 */
#include <errno.h>
#include <string.h>

/* cublasLt.h declares a function with "()"; the header is not ours. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <cublasLt.h>
#include <cublas_api.h>
#pragma GCC diagnostic pop

/* half_t is a C++ type: the half-precision entry points take pointers to
 * it, passed here as pointers to this opaque stand-in (same ABI). */
typedef struct half_opaque half_t;

#include "preload/preload.h"

/* Indices in preload_cublas_hooks. */
enum {
	HB_SGEMM, HB_DGEMM, HB_HGEMM, HB_GEMMEX, HB_SGEMM_SB, HB_DGEMM_SB, HB_HGEMM_SB,
	HB_GEMM_SB_EX, HB_GEMM_B_EX, HB_LT_MATMUL,
	HB_COUNT
};

typedef cublasStatus_t (*sgemm_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
				   int, const float *, const float *, int, const float *, int,
				   const float *, float *, int);
typedef cublasStatus_t (*dgemm_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
				   int, const double *, const double *, int, const double *, int,
				   const double *, double *, int);
typedef cublasStatus_t (*hgemm_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
				   int, const half_t *, const half_t *, int, const half_t *, int,
				   const half_t *, half_t *, int);
typedef cublasStatus_t (*gemmex_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
				    int, const void *, const void *, cudaDataType, int, const void *,
				    cudaDataType, int, const void *, void *, cudaDataType, int,
				    cublasComputeType_t, cublasGemmAlgo_t);
typedef cublasStatus_t (*sgemm_sb_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
				      int, int, const float *, const float *, int, long long,
				      const float *, int, long long, const float *, float *, int,
				      long long, int);
typedef cublasStatus_t (*dgemm_sb_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
				      int, int, const double *, const double *, int, long long,
				      const double *, int, long long, const double *, double *, int,
				      long long, int);
typedef cublasStatus_t (*hgemm_sb_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
				      int, int, const half_t *, const half_t *, int, long long,
				      const half_t *, int, long long, const half_t *, half_t *, int,
				      long long, int);
typedef cublasStatus_t (*gemm_sb_ex_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
					int, int, const void *, const void *, cudaDataType, int,
					long long, const void *, cudaDataType, int, long long,
					const void *, void *, cudaDataType, int, long long, int,
					cublasComputeType_t, cublasGemmAlgo_t);
typedef cublasStatus_t (*gemm_b_ex_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
				       int, int, const void *, const void *const[], cudaDataType,
				       int, const void *const[], cudaDataType, int, const void *,
				       void *const[], cudaDataType, int, int, cublasComputeType_t,
				       cublasGemmAlgo_t);
typedef cublasStatus_t (*lt_matmul_fn)(cublasLtHandle_t, cublasLtMatmulDesc_t, const void *,
				       const void *, cublasLtMatrixLayout_t, const void *,
				       cublasLtMatrixLayout_t, const void *, const void *,
				       cublasLtMatrixLayout_t, void *, cublasLtMatrixLayout_t,
				       const cublasLtMatmulAlgo_t *, void *, size_t, cudaStream_t);
typedef cublasStatus_t (*get_stream_fn)(cublasHandle_t, cudaStream_t *);
typedef cublasStatus_t (*desc_attr_fn)(cublasLtMatmulDesc_t, cublasLtMatmulDescAttributes_t,
				       void *, size_t, size_t *);
typedef cublasStatus_t (*layout_attr_fn)(cublasLtMatrixLayout_t, cublasLtMatrixLayoutAttribute_t,
					 void *, size_t, size_t *);

#define REAL(type, idx) ((type)preload_hook_real(&preload_cublas_hooks[idx], 0, "libcublas.so"))

/* cudaDataType -> trace dtype (library_types.h). */
static enum trace_dtype dtype(int t)
{
	switch (t) {
	case CUDA_R_32F: return TRACE_DT_F32;
	case CUDA_R_64F: return TRACE_DT_F64;
	case CUDA_R_16F: return TRACE_DT_F16;
	case CUDA_R_16BF: return TRACE_DT_BF16;
	case CUDA_R_8I: return TRACE_DT_I8;
	case CUDA_R_32I: return TRACE_DT_I32;
	case CUDA_R_8F_E4M3: return TRACE_DT_F8E4M3;
	case CUDA_R_8F_E5M2: return TRACE_DT_F8E5M2;
	default: return TRACE_DT_UNKNOWN;
	}
}

/* cublasComputeType_t -> the precision the math runs in. */
static enum trace_dtype compute_dtype(int c)
{
	switch (c) {
	case CUBLAS_COMPUTE_16F: case CUBLAS_COMPUTE_16F_PEDANTIC:
	case CUBLAS_COMPUTE_32F_FAST_16F: return TRACE_DT_F16;
	case CUBLAS_COMPUTE_32F: case CUBLAS_COMPUTE_32F_PEDANTIC: return TRACE_DT_F32;
	case CUBLAS_COMPUTE_32F_FAST_16BF: return TRACE_DT_BF16;
	case CUBLAS_COMPUTE_32F_FAST_TF32: return TRACE_DT_TF32;
	case CUBLAS_COMPUTE_64F: case CUBLAS_COMPUTE_64F_PEDANTIC: return TRACE_DT_F64;
	case CUBLAS_COMPUTE_32I: case CUBLAS_COMPUTE_32I_PEDANTIC: return TRACE_DT_I32;
	default: return c < 64 ? dtype(c) : TRACE_DT_UNKNOWN; /* old cudaDataType form */
	}
}

static uint8_t op(int o)
{
	return o == CUBLAS_OP_N ? 0 : o == CUBLAS_OP_T ? 1 : 2;
}

/* The stream h launches on (NULL the legacy one, or unknown). */
static cudaStream_t handle_raw_stream(cublasHandle_t h)
{
	static get_stream_fn get;
	if (!get)
		get = (get_stream_fn)preload_lib_sym("libcublas.so", "cublasGetStream_v2");
	cudaStream_t s = NULL;
	if (!get || !h || get(h, &s) != CUBLAS_STATUS_SUCCESS)
		return NULL;
	return s;
}

static uint64_t handle_stream(cublasHandle_t h)
{
	return h ? preload_stream_id(handle_raw_stream(h), 0) : 0;
}

static void lt_shape(struct trace_gemm *g, cublasLtMatmulDesc_t d, cublasLtMatrixLayout_t A,
		     cublasLtMatrixLayout_t B, cublasLtMatrixLayout_t C, cublasLtMatrixLayout_t D);

/* A cublasLtMatmul call's descriptors and stream: its shape is read from
 * them only when the call is recorded. */
struct lt_call {
	cublasLtMatmulDesc_t desc;
	cublasLtMatrixLayout_t a, b, c, d;
	cudaStream_t stream;
};

/* Before the real call, when recording (or on a capturing stream,
 * preload_recording_on): enters the library call and, when
 * it is the outermost one, writes its GEMM record g (its shape and stream
 * from lt for cublasLtMatmul, else its stream from the handle h), keeping
 * errno.  Returns whether gemm_leave must undo the nesting. */
static int gemm_enter(struct trace_gemm *g, cublasHandle_t h, const struct lt_call *lt)
{
	/* outside the windows, a call into a graph capture is recorded for
	 * the captured launches that name it (graphs.c) */
	if (!preload_recording() &&
	    !preload_recording_on(lt ? (preload_stream)lt->stream : (preload_stream)handle_raw_stream(h), 0))
		return 0;
	int e = errno;
	uint64_t seq;
	if (preload_lib_enter(&seq)) {
		g->seq = seq;
		if (lt) {
			lt_shape(g, lt->desc, lt->a, lt->b, lt->c, lt->d);
			g->stream = preload_stream_id(lt->stream, 0);
		} else if (h) {
			g->stream = handle_stream(h);
		}
		preload_gemm(g);
	}
	errno = e;
	return 1;
}

/* After it: leaves the library call (when on); returns r. */
static cublasStatus_t gemm_leave(int on, cublasStatus_t r)
{
	if (on)
		preload_lib_leave();
	return r;
}

static struct trace_gemm gemm(enum trace_gemm_api api, int ta, int tb, int64_t m, int64_t n,
			      int64_t k, int64_t batch, enum trace_dtype a, enum trace_dtype b,
			      enum trace_dtype c, enum trace_dtype comp)
{
	struct trace_gemm g;
	memset(&g, 0, sizeof g);
	g.api = api;
	g.trans_a = op(ta);
	g.trans_b = op(tb);
	g.m = m > 0 ? (uint64_t)m : 0;
	g.n = n > 0 ? (uint64_t)n : 0;
	g.k = k > 0 ? (uint64_t)k : 0;
	g.batch = batch > 0 ? (uint64_t)batch : 0;
	g.a_type = a;
	g.b_type = b;
	g.c_type = c;
	g.compute_type = comp;
	g.epilogue = 1; /* CUBLASLT_EPILOGUE_DEFAULT */
	return g;
}

#define F32 TRACE_DT_F32
#define F64 TRACE_DT_F64
#define F16 TRACE_DT_F16

/* Not declared by cublas_api.h in C (they use __half). */
PRELOAD_EXPORT cublasStatus_t cublasHgemm(cublasHandle_t h, cublasOperation_t ta,
					  cublasOperation_t tb, int m, int n, int k,
					  const half_t *al, const half_t *A, int lda,
					  const half_t *B, int ldb, const half_t *be, half_t *C,
					  int ldc);
PRELOAD_EXPORT cublasStatus_t cublasHgemmStridedBatched(
	cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
	const half_t *al, const half_t *A, int lda, long long sa, const half_t *B, int ldb,
	long long sb, const half_t *be, half_t *C, int ldc, long long sc, int batch);

PRELOAD_EXPORT cublasStatus_t cublasSgemm_v2(cublasHandle_t h, cublasOperation_t ta,
					     cublasOperation_t tb, int m, int n, int k,
					     const float *al, const float *A, int lda,
					     const float *B, int ldb, const float *be, float *C,
					     int ldc)
{
	sgemm_fn real = REAL(sgemm_fn, HB_SGEMM);
	if (!real)
		return CUBLAS_STATUS_NOT_INITIALIZED;
	struct trace_gemm g = gemm(TRACE_GEMM_SGEMM, ta, tb, m, n, k, 1, F32, F32, F32, F32);
	int on = gemm_enter(&g, h, NULL);
	return gemm_leave(on, real(h, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc));
}

PRELOAD_EXPORT cublasStatus_t cublasDgemm_v2(cublasHandle_t h, cublasOperation_t ta,
					     cublasOperation_t tb, int m, int n, int k,
					     const double *al, const double *A, int lda,
					     const double *B, int ldb, const double *be, double *C,
					     int ldc)
{
	dgemm_fn real = REAL(dgemm_fn, HB_DGEMM);
	if (!real)
		return CUBLAS_STATUS_NOT_INITIALIZED;
	struct trace_gemm g = gemm(TRACE_GEMM_DGEMM, ta, tb, m, n, k, 1, F64, F64, F64, F64);
	int on = gemm_enter(&g, h, NULL);
	return gemm_leave(on, real(h, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc));
}

PRELOAD_EXPORT cublasStatus_t cublasHgemm(cublasHandle_t h, cublasOperation_t ta,
					  cublasOperation_t tb, int m, int n, int k,
					  const half_t *al, const half_t *A, int lda,
					  const half_t *B, int ldb, const half_t *be, half_t *C,
					  int ldc)
{
	hgemm_fn real = REAL(hgemm_fn, HB_HGEMM);
	if (!real)
		return CUBLAS_STATUS_NOT_INITIALIZED;
	struct trace_gemm g = gemm(TRACE_GEMM_HGEMM, ta, tb, m, n, k, 1, F16, F16, F16, F16);
	int on = gemm_enter(&g, h, NULL);
	return gemm_leave(on, real(h, ta, tb, m, n, k, al, A, lda, B, ldb, be, C, ldc));
}

PRELOAD_EXPORT cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta,
					   cublasOperation_t tb, int m, int n, int k,
					   const void *al, const void *A, cudaDataType at, int lda,
					   const void *B, cudaDataType bt, int ldb, const void *be,
					   void *C, cudaDataType ct, int ldc,
					   cublasComputeType_t comp, cublasGemmAlgo_t algo)
{
	gemmex_fn real = REAL(gemmex_fn, HB_GEMMEX);
	if (!real)
		return CUBLAS_STATUS_NOT_INITIALIZED;
	struct trace_gemm g = gemm(TRACE_GEMM_GEMMEX, ta, tb, m, n, k, 1, dtype(at), dtype(bt),
				   dtype(ct), compute_dtype(comp));
	int on = gemm_enter(&g, h, NULL);
	return gemm_leave(on, real(h, ta, tb, m, n, k, al, A, at, lda, B, bt, ldb, be, C, ct, ldc,
				comp, algo));
}

PRELOAD_EXPORT cublasStatus_t cublasSgemmStridedBatched(
	cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
	const float *al, const float *A, int lda, long long sa, const float *B, int ldb,
	long long sb, const float *be, float *C, int ldc, long long sc, int batch)
{
	sgemm_sb_fn real = REAL(sgemm_sb_fn, HB_SGEMM_SB);
	if (!real)
		return CUBLAS_STATUS_NOT_INITIALIZED;
	struct trace_gemm g = gemm(TRACE_GEMM_SGEMM_STRIDED_BATCHED, ta, tb, m, n, k, batch, F32,
				   F32, F32, F32);
	int on = gemm_enter(&g, h, NULL);
	return gemm_leave(on, real(h, ta, tb, m, n, k, al, A, lda, sa, B, ldb, sb, be, C, ldc, sc, batch));
}

PRELOAD_EXPORT cublasStatus_t cublasDgemmStridedBatched(
	cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
	const double *al, const double *A, int lda, long long sa, const double *B, int ldb,
	long long sb, const double *be, double *C, int ldc, long long sc, int batch)
{
	dgemm_sb_fn real = REAL(dgemm_sb_fn, HB_DGEMM_SB);
	if (!real)
		return CUBLAS_STATUS_NOT_INITIALIZED;
	struct trace_gemm g = gemm(TRACE_GEMM_DGEMM_STRIDED_BATCHED, ta, tb, m, n, k, batch, F64,
				   F64, F64, F64);
	int on = gemm_enter(&g, h, NULL);
	return gemm_leave(on, real(h, ta, tb, m, n, k, al, A, lda, sa, B, ldb, sb, be, C, ldc, sc, batch));
}

PRELOAD_EXPORT cublasStatus_t cublasHgemmStridedBatched(
	cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
	const half_t *al, const half_t *A, int lda, long long sa, const half_t *B, int ldb,
	long long sb, const half_t *be, half_t *C, int ldc, long long sc, int batch)
{
	hgemm_sb_fn real = REAL(hgemm_sb_fn, HB_HGEMM_SB);
	if (!real)
		return CUBLAS_STATUS_NOT_INITIALIZED;
	struct trace_gemm g = gemm(TRACE_GEMM_HGEMM_STRIDED_BATCHED, ta, tb, m, n, k, batch, F16,
				   F16, F16, F16);
	int on = gemm_enter(&g, h, NULL);
	return gemm_leave(on, real(h, ta, tb, m, n, k, al, A, lda, sa, B, ldb, sb, be, C, ldc, sc, batch));
}

PRELOAD_EXPORT cublasStatus_t cublasGemmStridedBatchedEx(
	cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
	const void *al, const void *A, cudaDataType at, int lda, long long sa, const void *B,
	cudaDataType bt, int ldb, long long sb, const void *be, void *C, cudaDataType ct, int ldc,
	long long sc, int batch, cublasComputeType_t comp, cublasGemmAlgo_t algo)
{
	gemm_sb_ex_fn real = REAL(gemm_sb_ex_fn, HB_GEMM_SB_EX);
	if (!real)
		return CUBLAS_STATUS_NOT_INITIALIZED;
	struct trace_gemm g = gemm(TRACE_GEMM_GEMM_STRIDED_BATCHED_EX, ta, tb, m, n, k, batch,
				   dtype(at), dtype(bt), dtype(ct), compute_dtype(comp));
	int on = gemm_enter(&g, h, NULL);
	return gemm_leave(on, real(h, ta, tb, m, n, k, al, A, at, lda, sa, B, bt, ldb, sb, be, C, ct,
				ldc, sc, batch, comp, algo));
}

PRELOAD_EXPORT cublasStatus_t cublasGemmBatchedEx(
	cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
	const void *al, const void *const A[], cudaDataType at, int lda, const void *const B[],
	cudaDataType bt, int ldb, const void *be, void *const C[], cudaDataType ct, int ldc,
	int batch, cublasComputeType_t comp, cublasGemmAlgo_t algo)
{
	gemm_b_ex_fn real = REAL(gemm_b_ex_fn, HB_GEMM_B_EX);
	if (!real)
		return CUBLAS_STATUS_NOT_INITIALIZED;
	struct trace_gemm g = gemm(TRACE_GEMM_GEMM_BATCHED_EX, ta, tb, m, n, k, batch, dtype(at),
				   dtype(bt), dtype(ct), compute_dtype(comp));
	int on = gemm_enter(&g, h, NULL);
	return gemm_leave(on, real(h, ta, tb, m, n, k, al, A, at, lda, B, bt, ldb, be, C, ct, ldc,
				batch, comp, algo));
}

/* ---- cuBLASLt --------------------------------------------------------- */

static desc_attr_fn desc_attr;
static layout_attr_fn layout_attr;

static int64_t layout_i64(cublasLtMatrixLayout_t l, cublasLtMatrixLayoutAttribute_t a,
			  size_t size)
{
	uint64_t v = 0; /* ROWS/COLS are uint64, TYPE uint32, BATCH_COUNT int32 */
	size_t got = 0;
	if (!l || !layout_attr || layout_attr(l, a, &v, size, &got) != CUBLAS_STATUS_SUCCESS)
		return -1;
	return size == 4 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
}

static int32_t desc_i32(cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t a, int32_t dflt)
{
	int32_t v = dflt;
	size_t got = 0;
	if (!d || !desc_attr || desc_attr(d, a, &v, sizeof v, &got) != CUBLAS_STATUS_SUCCESS)
		return dflt;
	return v;
}

static void lt_shape(struct trace_gemm *g, cublasLtMatmulDesc_t d, cublasLtMatrixLayout_t A,
		     cublasLtMatrixLayout_t B, cublasLtMatrixLayout_t C, cublasLtMatrixLayout_t D)
{
	if (!desc_attr)
		desc_attr = (desc_attr_fn)preload_lib_sym("libcublasLt.so", "cublasLtMatmulDescGetAttribute");
	if (!layout_attr)
		layout_attr = (layout_attr_fn)preload_lib_sym("libcublasLt.so",
							     "cublasLtMatrixLayoutGetAttribute");
	int ta = desc_i32(d, CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_N);
	int tb = desc_i32(d, CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N);
	g->trans_a = op(ta);
	g->trans_b = op(tb);
	g->compute_type = compute_dtype(desc_i32(d, CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, -1));
	g->epilogue = (uint32_t)desc_i32(d, CUBLASLT_MATMUL_DESC_EPILOGUE, 1);
	cublasLtMatrixLayout_t out = D ? D : C;
	int64_t m = layout_i64(out, CUBLASLT_MATRIX_LAYOUT_ROWS, 8);
	int64_t n = layout_i64(out, CUBLASLT_MATRIX_LAYOUT_COLS, 8);
	int64_t k = layout_i64(A, ta == CUBLAS_OP_N ? CUBLASLT_MATRIX_LAYOUT_COLS
						    : CUBLASLT_MATRIX_LAYOUT_ROWS, 8);
	int64_t batch = layout_i64(out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, 4);
	g->m = m > 0 ? (uint64_t)m : 0;
	g->n = n > 0 ? (uint64_t)n : 0;
	g->k = k > 0 ? (uint64_t)k : 0;
	g->batch = batch > 0 ? (uint64_t)batch : 1;
	g->a_type = dtype((int)layout_i64(A, CUBLASLT_MATRIX_LAYOUT_TYPE, 4));
	g->b_type = dtype((int)layout_i64(B, CUBLASLT_MATRIX_LAYOUT_TYPE, 4));
	g->c_type = dtype((int)layout_i64(out, CUBLASLT_MATRIX_LAYOUT_TYPE, 4));
}

PRELOAD_EXPORT cublasStatus_t cublasLtMatmul(cublasLtHandle_t lh, cublasLtMatmulDesc_t d,
					     const void *al, const void *A,
					     cublasLtMatrixLayout_t Ad, const void *B,
					     cublasLtMatrixLayout_t Bd, const void *be,
					     const void *C, cublasLtMatrixLayout_t Cd, void *D,
					     cublasLtMatrixLayout_t Dd,
					     const cublasLtMatmulAlgo_t *algo, void *ws,
					     size_t wss, cudaStream_t s)
{
	lt_matmul_fn real = (lt_matmul_fn)preload_hook_real(&preload_cublas_hooks[HB_LT_MATMUL], 0,
								       "libcublasLt.so");
	if (!real)
		return CUBLAS_STATUS_NOT_INITIALIZED;
	struct trace_gemm g;
	memset(&g, 0, sizeof g);
	g.api = TRACE_GEMM_LT_MATMUL;
	struct lt_call lt = { d, Ad, Bd, Cd, Dd, s };
	int on = gemm_enter(&g, NULL, &lt);
	return gemm_leave(on, real(lh, d, al, A, Ad, B, Bd, be, C, Cd, D, Dd, algo, ws, wss, s));
}

struct preload_hook preload_cublas_hooks[HB_COUNT + 1] = {
	[HB_SGEMM] = PRELOAD_LIB_HOOK("cublasSgemm_v2", cublasSgemm_v2),
	[HB_DGEMM] = PRELOAD_LIB_HOOK("cublasDgemm_v2", cublasDgemm_v2),
	[HB_HGEMM] = PRELOAD_LIB_HOOK("cublasHgemm", cublasHgemm),
	[HB_GEMMEX] = PRELOAD_LIB_HOOK("cublasGemmEx", cublasGemmEx),
	[HB_SGEMM_SB] = PRELOAD_LIB_HOOK("cublasSgemmStridedBatched", cublasSgemmStridedBatched),
	[HB_DGEMM_SB] = PRELOAD_LIB_HOOK("cublasDgemmStridedBatched", cublasDgemmStridedBatched),
	[HB_HGEMM_SB] = PRELOAD_LIB_HOOK("cublasHgemmStridedBatched", cublasHgemmStridedBatched),
	[HB_GEMM_SB_EX] = PRELOAD_LIB_HOOK("cublasGemmStridedBatchedEx", cublasGemmStridedBatchedEx),
	[HB_GEMM_B_EX] = PRELOAD_LIB_HOOK("cublasGemmBatchedEx", cublasGemmBatchedEx),
	[HB_LT_MATMUL] = PRELOAD_LIB_HOOK("cublasLtMatmul", cublasLtMatmul),
	[HB_COUNT] = { NULL, { NULL, NULL }, 0, { NULL, NULL }, { NULL, NULL } },
};
