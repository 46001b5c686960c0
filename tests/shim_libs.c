/*
 * shim_libs.c - drives the real cuBLAS, cuBLASLt and cuDNN through the
 * recorder's interposed entry points, without a GPU.
 *
 * Descriptor functions run on the host; the compute calls then fail (no
 * handle, no device), which is fine: the recorder must record the call the
 * program made and return the library's status unchanged.  The program
 * prints every status so a run with the recorder can be compared with one
 * without.  The shapes (checked by shim_check --libs) are:
 *   cublasLtMatmul   m 128, n 32, k 64, A transposed, bf16, TF32 compute,
 *                    epilogue BIAS (4)
 *   cublasSgemm_v2   m 10, n 20, k 30, B transposed, fp32
 *   backend conv     x 8x3x32x32, w 16x3x5x5, y 8x16x28x28, fp16, fwd
 *   v7 conv fwd      x 4x8x16x16, w 6x4x3x3, y 4x6x8x8, pad 1, stride 2,
 *                    2 groups, fp32; the same shapes for the v7 backward
 *                    data and filter calls
 */
#include <stdio.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <cublasLt.h>
#include <cublas_api.h>
#include <cudnn.h>
#pragma GCC diagnostic pop
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static int lt(void)
{
	cublasLtMatmulDesc_t d;
	cublasLtMatrixLayout_t a, b, c;
	if (cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F) != 0)
		return -1;
	int32_t t = CUBLAS_OP_T;
	uint32_t epi = CUBLASLT_EPILOGUE_BIAS;
	cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t);
	cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi);
	/* op(A) = A^T is m x k, so A is stored k x m. */
	if (cublasLtMatrixLayoutCreate(&a, CUDA_R_16BF, 64, 128, 64) != 0 ||
	    cublasLtMatrixLayoutCreate(&b, CUDA_R_16BF, 64, 32, 64) != 0 ||
	    cublasLtMatrixLayoutCreate(&c, CUDA_R_16BF, 128, 32, 128) != 0)
		return -1;
	float one = 1, zero = 0;
	static char buf[1 << 16];
	return cublasLtMatmul(NULL, d, &one, buf, a, buf, b, &zero, buf, c, buf, c, NULL, NULL, 0,
			      NULL);
}

static int sgemm(void)
{
	float one = 1;
	static float buf[1 << 12];
	return cublasSgemm_v2(NULL, CUBLAS_OP_N, CUBLAS_OP_T, 10, 20, 30, &one, buf, 10, buf, 20,
			      &one, buf, 10);
}

static cudnnBackendDescriptor_t tensor(int64_t uid, const int64_t *dims, cudnnDataType_t type)
{
	cudnnBackendDescriptor_t t;
	if (cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &t) != 0)
		return NULL;
	int64_t strides[4] = { dims[1] * dims[2] * dims[3], dims[2] * dims[3], dims[3], 1 };
	int64_t align = 16;
	cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type);
	cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims);
	cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides);
	cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
	cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align);
	cudnnBackendFinalize(t);
	return t;
}

static int backend(void)
{
	int64_t xd[4] = { 8, 3, 32, 32 }, wd[4] = { 16, 3, 5, 5 }, yd[4] = { 8, 16, 28, 28 };
	cudnnBackendDescriptor_t x = tensor(1, xd, CUDNN_DATA_HALF), w = tensor(2, wd, CUDNN_DATA_HALF),
				 y = tensor(3, yd, CUDNN_DATA_HALF), cv, op, graph, eng, cfg, plan;
	if (!x || !w || !y)
		return -1;
	cudnnBackendCreateDescriptor(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &cv);
	int64_t spatial = 2, zeros[2] = { 0, 0 }, ones[2] = { 1, 1 };
	cudnnDataType_t comp = CUDNN_DATA_FLOAT;
	cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
	cudnnBackendSetAttribute(cv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &spatial);
	cudnnBackendSetAttribute(cv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp);
	cudnnBackendSetAttribute(cv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
	cudnnBackendSetAttribute(cv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, zeros);
	cudnnBackendSetAttribute(cv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, zeros);
	cudnnBackendSetAttribute(cv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, ones);
	cudnnBackendSetAttribute(cv, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, ones);
	cudnnBackendFinalize(cv);
	cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, &op);
	float alpha = 1, beta = 0;
	cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
	cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &w);
	cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
	cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cv);
	cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha);
	cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta);
	cudnnBackendFinalize(op);
	cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &graph);
	cudnnBackendSetAttribute(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &op);
	cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &eng);
	cudnnBackendSetAttribute(eng, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph);
	cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg);
	cudnnBackendSetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &eng);
	cudnnBackendCreateDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan);
	cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg);
	int r = cudnnBackendExecute(NULL, plan, NULL);
	cudnnBackendDestroyDescriptor(plan);
	return r;
}

static cudnnTensorDescriptor_t x, y;
static cudnnFilterDescriptor_t w;
static cudnnConvolutionDescriptor_t cv;
static float one = 1, zero = 0;
static float buf[1 << 12];

static int v7(void)
{
	if (cudnnCreateTensorDescriptor(&x) || cudnnCreateTensorDescriptor(&y) ||
	    cudnnCreateFilterDescriptor(&w) || cudnnCreateConvolutionDescriptor(&cv))
		return -1;
	cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 4, 8, 16, 16);
	cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 4, 6, 8, 8);
	cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 6, 4, 3, 3);
	cudnnSetConvolution2dDescriptor(cv, 1, 1, 2, 2, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
	cudnnSetConvolutionGroupCount(cv, 2);
	return cudnnConvolutionForward(NULL, &one, x, buf, w, buf, cv,
				       CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, NULL, 0, &zero, y, buf);
}

/* dx from dy (the shape of y) and w; then dw from x and dy. */
static int v7_bwd_data(void)
{
	return cudnnConvolutionBackwardData(NULL, &one, w, buf, y, buf, cv,
					    CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, NULL, 0, &zero, x, buf);
}

static int v7_bwd_filter(void)
{
	return cudnnConvolutionBackwardFilter(NULL, &one, x, buf, y, buf, cv,
					      CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, NULL, 0, &zero, w,
					      buf);
}

int main(void)
{
	printf("cublasLtMatmul %d\n", lt());
	printf("cublasSgemm_v2 %d\n", sgemm());
	printf("cudnnBackendExecute %d\n", backend());
	printf("cudnnConvolutionForward %d\n", v7());
	printf("cudnnConvolutionBackwardData %d\n", v7_bwd_data());
	printf("cudnnConvolutionBackwardFilter %d\n", v7_bwd_filter());
	return 0;
}
