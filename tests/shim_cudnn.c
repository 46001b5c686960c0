/*
 * shim_cudnn.c - an execution plan made as the cuDNN frontend makes it
 * (PyTorch's convolutions on cuDNN 9): the operation graph is handed to a
 * heuristics descriptor, cuDNN fills engine configs through
 * cudnnBackendGetAttribute(CUDNN_ATTR_ENGINEHEUR_RESULTS), and the plan
 * takes the first of them.  Against tests/fake_cudnn.c.  Runs three plans:
 *   1. from heuristics over a convolution graph: one CONV record with the
 *      shapes below, its kernel carrying the record's seq;
 *   2. the same graph, the second config the heuristics returned;
 *   3. from the third config asked for, which the heuristics did not fill
 *      (they returned two): no record, its kernel linked to none;
 *   4. from a config nobody asked heuristics about: the same.
 * With the argument "capture", instead: the first plan run into a CUDA
 * graph captured on a stream of its own (the handle's, cudnnSetStream)
 * before the recorded windows, then two windows each replaying the graph
 * (shim_test.sh runs it with SURFER_SKIP=1 SURFER_ITERATIONS=1).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <cudnn.h>
#pragma GCC diagnostic pop

int cuInit(unsigned flags);
int cuStreamCreate(void **s, unsigned flags);
int cuStreamBeginCapture_v2(void *s, int mode);
int cuStreamEndCapture(void *s, void **g);
int cuGraphInstantiateWithFlags(void **x, void *g, unsigned long long flags);
int cuGraphLaunch(void *x, void *s);
int cuCtxSynchronize(void);
int cuProfilerStart(void);
int cuProfilerStop(void);

static cudnnBackendDescriptor_t tensor(int64_t uid, const int64_t *dims)
{
	cudnnBackendDescriptor_t t;
	cudnnDataType_t type = CUDNN_DATA_FLOAT;
	cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &t);
	cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type);
	cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims);
	cudnnBackendSetAttribute(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
	cudnnBackendFinalize(t);
	return t;
}

static int run_plan(cudnnBackendDescriptor_t cfg)
{
	cudnnBackendDescriptor_t plan;
	cudnnBackendCreateDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan);
	cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
				 CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg);
	cudnnBackendFinalize(plan);
	int r = cudnnBackendExecute((cudnnHandle_t)0x1, plan, NULL);
	cudnnBackendDestroyDescriptor(plan);
	return r;
}

/* The plan of cfg run into a graph captured before the windows, then
 * replayed in each of two windows. */
static int captured(cudnnBackendDescriptor_t cfg)
{
	void *s, *g, *x;
	if (cuStreamCreate(&s, 0) || cuStreamBeginCapture_v2(s, 2 /* RELAXED */) ||
	    cudnnSetStream((cudnnHandle_t)0x1, s) != CUDNN_STATUS_SUCCESS)
		return 6;
	int r = run_plan(cfg);
	cudnnSetStream((cudnnHandle_t)0x1, NULL);
	if (r || cuStreamEndCapture(s, &g) || cuGraphInstantiateWithFlags(&x, g, 0))
		return 7;
	for (int i = 0; i < 2; i++)
		if (cuProfilerStart() || cuGraphLaunch(x, s) || cuCtxSynchronize() || cuProfilerStop())
			return 8;
	return 0;
}

int main(int argc, char **argv)
{
	if (cuInit(0))
		return 3;
	int64_t xd[4] = { 16, 64, 56, 56 }, wd[4] = { 128, 64, 3, 3 }, yd[4] = { 16, 128, 28, 28 };
	int64_t pad[2] = { 1, 1 }, stride[2] = { 2, 2 }, dil[2] = { 1, 1 }, spatial = 2;
	cudnnBackendDescriptor_t x = tensor(1, xd), w = tensor(2, wd), y = tensor(3, yd);
	cudnnBackendDescriptor_t cv, op, graph, heur, cfgs[3], lone;
	cudnnDataType_t comp = CUDNN_DATA_FLOAT;
	cudnnBackendCreateDescriptor(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &cv);
	cudnnBackendSetAttribute(cv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &spatial);
	cudnnBackendSetAttribute(cv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp);
	cudnnBackendSetAttribute(cv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, pad);
	cudnnBackendSetAttribute(cv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, stride);
	cudnnBackendSetAttribute(cv, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, dil);
	cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, &op);
	cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
	cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &w);
	cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
	cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
				 CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cv);
	cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &graph);
	cudnnBackendSetAttribute(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &op);
	cudnnBackendFinalize(graph);
	cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur);
	cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH,
				 CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph);
	cudnnBackendFinalize(heur);
	for (int i = 0; i < 3; i++)
		cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfgs[i]);
	cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &lone);
	int64_t got = 0;
	if (cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
				     3, &got, cfgs) != CUDNN_STATUS_SUCCESS || got != 2)
		return 4;
	if (argc > 1 && !strcmp(argv[1], "capture"))
		return captured(cfgs[0]);
	int r1 = run_plan(cfgs[0]), r2 = run_plan(cfgs[1]), r3 = run_plan(cfgs[2]), r4 = run_plan(lone);
	printf("plans %d %d %d %d\n", r1, r2, r3, r4);
	return r1 || r2 || r3 || r4 ? 5 : 0;
}
