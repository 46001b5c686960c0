/*
 * hooks_cudnn.c - convolution records from cuDNN.
 *
 * cuDNN 9 runs convolutions through the backend API: descriptors are built
 * attribute by attribute, finalized, and an execution plan is run with
 * cudnnBackendExecute.  The backend has no getters we could call cheaply at
 * execution time, so we mirror the descriptors as they are created and set
 * (tensor dims and type, convolution parameters, the links operation ->
 * tensors, graph -> operations, engine -> graph, config -> engine,
 * plan -> config) and walk the mirror at cudnnBackendExecute.  A config
 * that cuDNN's heuristics filled (cudnnBackendGetAttribute of
 * CUDNN_ATTR_ENGINEHEUR_RESULTS: the cuDNN frontend's way, so PyTorch's)
 * never has its engine set through us; it is linked to the graph the
 * heuristics were asked about instead.  On an H100 (PyTorch 2.11, cuDNN
 * 9.19) ResNet-50's convolutions left no record until that link was made:
 * every plan PyTorch ran came from a heuristics result.  The v7 API
 * (cudnnConvolutionForward/BackwardData/BackwardFilter) is read with the
 * library's own Get*NdDescriptor functions.
 *
 * The mirror is behind its own mutex: descriptors are built when a plan is
 * made (and cached by PyTorch), not per kernel launch.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <cudnn.h>
#pragma GCC diagnostic pop
/* The v7 convolution API is deprecated in cuDNN 9 but still what older
 * PyTorch builds call; we define and reference it on purpose. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#include "preload/preload.h"

/* Indices in preload_cudnn_hooks. */
enum {
	HD_CREATE, HD_DESTROY, HD_SET, HD_GET, HD_EXECUTE, HD_FWD, HD_BWD_DATA, HD_BWD_FILTER,
	HD_COUNT
};

typedef cudnnStatus_t (*create_fn)(cudnnBackendDescriptorType_t, cudnnBackendDescriptor_t *);
typedef cudnnStatus_t (*destroy_fn)(cudnnBackendDescriptor_t);
typedef cudnnStatus_t (*set_fn)(cudnnBackendDescriptor_t, cudnnBackendAttributeName_t,
				cudnnBackendAttributeType_t, int64_t, const void *);
typedef cudnnStatus_t (*get_fn)(cudnnBackendDescriptor_t, cudnnBackendAttributeName_t,
				cudnnBackendAttributeType_t, int64_t, int64_t *, void *);
typedef cudnnStatus_t (*execute_fn)(cudnnHandle_t, cudnnBackendDescriptor_t, cudnnBackendDescriptor_t);
typedef cudnnStatus_t (*fwd_fn)(cudnnHandle_t, const void *, const cudnnTensorDescriptor_t,
				const void *, const cudnnFilterDescriptor_t, const void *,
				const cudnnConvolutionDescriptor_t, cudnnConvolutionFwdAlgo_t, void *,
				size_t, const void *, const cudnnTensorDescriptor_t, void *);
typedef cudnnStatus_t (*bwd_data_fn)(cudnnHandle_t, const void *, const cudnnFilterDescriptor_t,
				     const void *, const cudnnTensorDescriptor_t, const void *,
				     const cudnnConvolutionDescriptor_t, cudnnConvolutionBwdDataAlgo_t,
				     void *, size_t, const void *, const cudnnTensorDescriptor_t, void *);
typedef cudnnStatus_t (*bwd_filter_fn)(cudnnHandle_t, const void *, const cudnnTensorDescriptor_t,
				       const void *, const cudnnTensorDescriptor_t, const void *,
				       const cudnnConvolutionDescriptor_t,
				       cudnnConvolutionBwdFilterAlgo_t, void *, size_t, const void *,
				       const cudnnFilterDescriptor_t, void *);
typedef cudnnStatus_t (*get_tensor_fn)(const cudnnTensorDescriptor_t, int, cudnnDataType_t *, int *,
				       int[], int[]);
typedef cudnnStatus_t (*get_filter_fn)(const cudnnFilterDescriptor_t, int, cudnnDataType_t *,
				       cudnnTensorFormat_t *, int *, int[]);
typedef cudnnStatus_t (*get_conv_fn)(const cudnnConvolutionDescriptor_t, int, int *, int[], int[],
				     int[], cudnnConvolutionMode_t *, cudnnDataType_t *);
typedef cudnnStatus_t (*get_groups_fn)(cudnnConvolutionDescriptor_t, int *);
typedef cudnnStatus_t (*get_stream_fn)(cudnnHandle_t, cudaStream_t *);

#define REAL(type, idx) ((type)preload_hook_real(&preload_cudnn_hooks[idx], 0, "libcudnn.so"))

static enum trace_dtype dtype(int t)
{
	switch (t) {
	case CUDNN_DATA_FLOAT: return TRACE_DT_F32;
	case CUDNN_DATA_DOUBLE: return TRACE_DT_F64;
	case CUDNN_DATA_HALF: return TRACE_DT_F16;
	case CUDNN_DATA_BFLOAT16: return TRACE_DT_BF16;
	case CUDNN_DATA_INT8: return TRACE_DT_I8;
	case CUDNN_DATA_INT32: return TRACE_DT_I32;
	case CUDNN_DATA_FP8_E4M3: return TRACE_DT_F8E4M3;
	case CUDNN_DATA_FP8_E5M2: return TRACE_DT_F8E5M2;
	default: return TRACE_DT_UNKNOWN;
	}
}

/* The stream h launches on (NULL the legacy one, or unknown). */
static cudaStream_t handle_raw_stream(cudnnHandle_t h)
{
	static get_stream_fn get;
	if (!get)
		get = (get_stream_fn)preload_lib_sym("libcudnn.so", "cudnnGetStream");
	cudaStream_t s = NULL;
	if (!get || !h || get(h, &s) != CUDNN_STATUS_SUCCESS)
		return NULL;
	return s;
}

static uint64_t handle_stream(cudnnHandle_t h)
{
	return h ? preload_stream_id(handle_raw_stream(h), 0) : 0;
}

/* Whether a call on h is recorded: in a window, or outside one into a
 * graph capture, for the captured launches that name it (graphs.c). */
static int recording_on(cudnnHandle_t h)
{
	return preload_recording() || preload_recording_on((preload_stream)handle_raw_stream(h), 0);
}

/* After the real call of a recorded convolution: leaves the library call
 * (when on: the enter said it was entered); returns r. */
static cudnnStatus_t conv_leave(int on, cudnnStatus_t r)
{
	if (on)
		preload_lib_leave();
	return r;
}

/* ---- the backend descriptor mirror ----------------------------------- */

#define MAXREF 8
struct mirror {
	void *desc;
	int type;                   /* cudnnBackendDescriptorType_t           */
	int64_t dims[TRACE_CONV_MAXDIM];
	int ndims;
	int dtype;                  /* tensor: cudnnDataType_t; conv: comp type */
	int64_t pad[3], stride[3], dil[3];
	int spatial;
	struct { int attr; void *to; } ref[MAXREF];  /* descriptor-valued attributes */
	void *ops[4];               /* operation graph: its first operations    */
	int nops;
	void *heur_graph;           /* engine config filled by heuristics: the
				       graph they were asked about            */
	struct mirror *next;
};

#define BUCKETS 1024u
static struct mirror *buckets[BUCKETS];
static pthread_mutex_t mirror_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned bucket(const void *p)
{
	return (unsigned)(((uintptr_t)p >> 4) * 2654435761u) & (BUCKETS - 1);
}

static struct mirror *find(const void *d)
{
	for (struct mirror *m = buckets[bucket(d)]; m; m = m->next)
		if (m->desc == d)
			return m;
	return NULL;
}

static void *ref(const struct mirror *m, int attr)
{
	for (int i = 0; m && i < MAXREF; i++)
		if (m->ref[i].attr == attr && m->ref[i].to)
			return m->ref[i].to;
	return NULL;
}

PRELOAD_EXPORT cudnnStatus_t cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t t,
							  cudnnBackendDescriptor_t *d)
{
	create_fn real = REAL(create_fn, HD_CREATE);
	if (!real)
		return CUDNN_STATUS_NOT_INITIALIZED;
	cudnnStatus_t r = real(t, d);
	if (r != CUDNN_STATUS_SUCCESS || !d || !*d || preload_cfg.disabled)
		return r;
	int e = errno;
	struct mirror *m = calloc(1, sizeof *m);
	if (m) {
		m->desc = *d;
		m->type = t;
		pthread_mutex_lock(&mirror_lock);
		unsigned b = bucket(*d);
		m->next = buckets[b];
		buckets[b] = m;
		pthread_mutex_unlock(&mirror_lock);
	}
	errno = e;
	return r;
}

PRELOAD_EXPORT cudnnStatus_t cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t d)
{
	destroy_fn real = REAL(destroy_fn, HD_DESTROY);
	if (!real)
		return CUDNN_STATUS_NOT_INITIALIZED;
	pthread_mutex_lock(&mirror_lock);
	for (struct mirror **p = &buckets[bucket(d)]; *p; p = &(*p)->next)
		if ((*p)->desc == d) {
			struct mirror *m = *p;
			*p = m->next;
			free(m);
			break;
		}
	pthread_mutex_unlock(&mirror_lock);
	return real(d);
}

static void copy_i64(int64_t *dst, int max, int64_t n, const void *src)
{
	for (int64_t i = 0; i < n && i < max; i++)
		dst[i] = ((const int64_t *)src)[i];
}

static void mirror_set(struct mirror *m, int attr, int type, int64_t n, const void *v)
{
	if (type == CUDNN_TYPE_BACKEND_DESCRIPTOR && n >= 1) {
		void *const *d = (void *const *)v; /* an array of descriptors */
		if (attr == CUDNN_ATTR_OPERATIONGRAPH_OPS) {
			m->nops = (int)(n < 4 ? n : 4);
			for (int i = 0; i < m->nops; i++)
				m->ops[i] = d[i];
			return;
		}
		for (int i = 0; i < MAXREF; i++)
			if (!m->ref[i].attr || m->ref[i].attr == attr) {
				m->ref[i].attr = attr;
				m->ref[i].to = d[0];
				return;
			}
		return;
	}
	switch (attr) {
	case CUDNN_ATTR_TENSOR_DIMENSIONS:
		if (type == CUDNN_TYPE_INT64) {
			m->ndims = (int)(n < TRACE_CONV_MAXDIM ? n : TRACE_CONV_MAXDIM);
			copy_i64(m->dims, TRACE_CONV_MAXDIM, n, v);
		}
		break;
	case CUDNN_ATTR_TENSOR_DATA_TYPE:
	case CUDNN_ATTR_CONVOLUTION_COMP_TYPE:
		if (type == CUDNN_TYPE_DATA_TYPE)
			m->dtype = *(const int *)v;
		break;
	case CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS:
		if (type == CUDNN_TYPE_INT64)
			m->spatial = (int)*(const int64_t *)v;
		break;
	case CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS:
		if (type == CUDNN_TYPE_INT64)
			copy_i64(m->pad, 3, n, v);
		break;
	case CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES:
		if (type == CUDNN_TYPE_INT64)
			copy_i64(m->stride, 3, n, v);
		break;
	case CUDNN_ATTR_CONVOLUTION_DILATIONS:
		if (type == CUDNN_TYPE_INT64)
			copy_i64(m->dil, 3, n, v);
		break;
	default:
		break;
	}
}

PRELOAD_EXPORT cudnnStatus_t cudnnBackendSetAttribute(cudnnBackendDescriptor_t d,
						      cudnnBackendAttributeName_t attr,
						      cudnnBackendAttributeType_t type, int64_t n,
						      const void *v)
{
	set_fn real = REAL(set_fn, HD_SET);
	if (!real)
		return CUDNN_STATUS_NOT_INITIALIZED;
	cudnnStatus_t r = real(d, attr, type, n, v);
	if (r != CUDNN_STATUS_SUCCESS || !v || preload_cfg.disabled)
		return r;
	pthread_mutex_lock(&mirror_lock);
	struct mirror *m = find(d);
	if (m)
		mirror_set(m, attr, type, n, v);
	pthread_mutex_unlock(&mirror_lock);
	return r;
}

/* Engine configs come back from heuristics filled by cuDNN: each is linked
 * to the operation graph the heuristics descriptor was set to. */
PRELOAD_EXPORT cudnnStatus_t cudnnBackendGetAttribute(cudnnBackendDescriptor_t d,
						      cudnnBackendAttributeName_t attr,
						      cudnnBackendAttributeType_t type, int64_t requested,
						      int64_t *count, void *v)
{
	get_fn real = REAL(get_fn, HD_GET);
	if (!real)
		return CUDNN_STATUS_NOT_INITIALIZED;
	cudnnStatus_t r = real(d, attr, type, requested, count, v);
	if (r != CUDNN_STATUS_SUCCESS || !v || preload_cfg.disabled ||
	    attr != CUDNN_ATTR_ENGINEHEUR_RESULTS || type != CUDNN_TYPE_BACKEND_DESCRIPTOR)
		return r;
	int e = errno;
	int64_t n = count && *count < requested ? *count : requested;
	void *const *cfgs = (void *const *)v;
	pthread_mutex_lock(&mirror_lock);
	void *graph = ref(find(d), CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH);
	for (int64_t i = 0; graph && i < n; i++) {
		struct mirror *cfg = find(cfgs[i]);
		if (cfg)
			cfg->heur_graph = graph;
	}
	pthread_mutex_unlock(&mirror_lock);
	errno = e;
	return r;
}

static void fill_tensor(int64_t *out, const struct mirror *t)
{
	for (int i = 0; t && i < t->ndims && i < TRACE_CONV_MAXDIM; i++)
		out[i] = t->dims[i];
}

/* The convolution behind an execution plan, from the mirror; 0 if none. */
static int plan_conv(void *plan, struct trace_conv *c)
{
	struct mirror *p = find(plan);
	struct mirror *cfg = find(ref(p, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG));
	struct mirror *eng = find(ref(cfg, CUDNN_ATTR_ENGINECFG_ENGINE));
	struct mirror *graph = find(ref(eng, CUDNN_ATTR_ENGINE_OPERATION_GRAPH));
	if (!graph && cfg)
		graph = find(cfg->heur_graph);
	for (int i = 0; graph && i < graph->nops; i++) {
		struct mirror *op = find(graph->ops[i]);
		if (!op)
			continue;
		int a_conv, a_x, a_w, a_y;
		if (op->type == CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR) {
			c->dir = TRACE_CONV_FWD;
			a_conv = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC;
			a_x = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X;
			a_w = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W;
			a_y = CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y;
		} else if (op->type == CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR) {
			c->dir = TRACE_CONV_BWD_DATA;
			a_conv = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC;
			a_x = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX;
			a_w = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W;
			a_y = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY;
		} else if (op->type == CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR) {
			c->dir = TRACE_CONV_BWD_FILTER;
			a_conv = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC;
			a_x = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X;
			a_w = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW;
			a_y = CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY;
		} else {
			continue;
		}
		struct mirror *x = find(ref(op, a_x)), *w = find(ref(op, a_w)), *y = find(ref(op, a_y));
		struct mirror *cv = find(ref(op, a_conv));
		fill_tensor(c->in, x);
		fill_tensor(c->filt, w);
		fill_tensor(c->out, y);
		c->nbdims = x ? (uint32_t)x->ndims : 0;
		c->dtype = x ? dtype(x->dtype) : TRACE_DT_UNKNOWN;
		if (cv) {
			c->compute_type = dtype(cv->dtype);
			for (int k = 0; k < 3; k++) {
				c->pad[k] = cv->pad[k];
				c->stride[k] = cv->stride[k];
				c->dilation[k] = cv->dil[k];
			}
		}
		/* Filter is (K, C/groups, ...): groups = C / filter's C. */
		c->groups = c->filt[1] > 0 && c->in[1] >= c->filt[1] ? (uint32_t)(c->in[1] / c->filt[1]) : 1;
		return 1;
	}
	return 0;
}

PRELOAD_EXPORT cudnnStatus_t cudnnBackendExecute(cudnnHandle_t h, cudnnBackendDescriptor_t plan,
						 cudnnBackendDescriptor_t pack)
{
	execute_fn real = REAL(execute_fn, HD_EXECUTE);
	if (!real)
		return CUDNN_STATUS_NOT_INITIALIZED;
	int on = 0;
	if (recording_on(h)) {
		int e = errno;
		struct trace_conv c;
		memset(&c, 0, sizeof c);
		c.api = TRACE_CONV_API_BACKEND;
		pthread_mutex_lock(&mirror_lock);
		int found = plan_conv(plan, &c);
		pthread_mutex_unlock(&mirror_lock);
		if (found) {
			on = 1;
			if (preload_lib_enter(&c.seq)) {
				c.stream = handle_stream(h);
				preload_conv(&c);
			}
		}
		errno = e;
	}
	return conv_leave(on, real(h, plan, pack));
}

/* ---- the v7 API ------------------------------------------------------ */

static void v7_tensor(cudnnTensorDescriptor_t t, int64_t *out, int *nb, int *dt)
{
	static get_tensor_fn get;
	if (!get)
		get = (get_tensor_fn)preload_lib_sym("libcudnn.so", "cudnnGetTensorNdDescriptor");
	int dims[8], strides[8], n = 0;
	cudnnDataType_t type = CUDNN_DATA_FLOAT;
	if (!get || !t || get(t, 8, &type, &n, dims, strides) != CUDNN_STATUS_SUCCESS)
		return;
	for (int i = 0; i < n && i < TRACE_CONV_MAXDIM; i++)
		out[i] = dims[i];
	if (nb)
		*nb = n;
	if (dt)
		*dt = type;
}

static void v7_filter(cudnnFilterDescriptor_t f, int64_t *out)
{
	static get_filter_fn get;
	if (!get)
		get = (get_filter_fn)preload_lib_sym("libcudnn.so", "cudnnGetFilterNdDescriptor");
	int dims[8], n = 0;
	cudnnDataType_t type;
	cudnnTensorFormat_t fmt;
	if (!get || !f || get(f, 8, &type, &fmt, &n, dims) != CUDNN_STATUS_SUCCESS)
		return;
	for (int i = 0; i < n && i < TRACE_CONV_MAXDIM; i++)
		out[i] = dims[i];
}

static void v7_conv(cudnnConvolutionDescriptor_t cv, struct trace_conv *c)
{
	static get_conv_fn get;
	static get_groups_fn groups;
	if (!get) {
		get = (get_conv_fn)preload_lib_sym("libcudnn.so", "cudnnGetConvolutionNdDescriptor");
		groups = (get_groups_fn)preload_lib_sym("libcudnn.so", "cudnnGetConvolutionGroupCount");
	}
	int n = 0, pad[3] = { 0 }, stride[3] = { 0 }, dil[3] = { 0 }, g = 1;
	cudnnConvolutionMode_t mode;
	cudnnDataType_t comp = CUDNN_DATA_FLOAT;
	if (get && cv && get(cv, 3, &n, pad, stride, dil, &mode, &comp) == CUDNN_STATUS_SUCCESS) {
		for (int i = 0; i < n && i < 3; i++) {
			c->pad[i] = pad[i];
			c->stride[i] = stride[i];
			c->dilation[i] = dil[i];
		}
		c->compute_type = dtype(comp);
	}
	c->groups = groups && cv && groups(cv, &g) == CUDNN_STATUS_SUCCESS && g > 0 ? (uint32_t)g : 1;
}

/* Before the real v7 call, when recording: enters the library call and,
 * when it is the outermost one, writes its CONV record, keeping errno; x,
 * w, y are the input, filter and output of the forward convolution
 * whatever the direction.  Returns whether conv_leave must leave. */
static int v7_enter(enum trace_conv_dir dir, cudnnHandle_t h, cudnnTensorDescriptor_t x,
		    cudnnFilterDescriptor_t w, cudnnTensorDescriptor_t y,
		    cudnnConvolutionDescriptor_t cv)
{
	if (!recording_on(h))
		return 0;
	int e = errno;
	struct trace_conv c;
	memset(&c, 0, sizeof c);
	if (preload_lib_enter(&c.seq)) {
		c.api = TRACE_CONV_API_V7;
		c.dir = dir;
		int nb = 0, dt = -1;
		v7_tensor(x, c.in, &nb, &dt);
		v7_filter(w, c.filt);
		v7_tensor(y, c.out, NULL, NULL);
		v7_conv(cv, &c);
		c.nbdims = (uint32_t)nb;
		c.dtype = dtype(dt);
		c.stream = handle_stream(h);
		preload_conv(&c);
	}
	errno = e;
	return 1;
}

PRELOAD_EXPORT cudnnStatus_t cudnnConvolutionForward(
	cudnnHandle_t h, const void *al, const cudnnTensorDescriptor_t xd, const void *x,
	const cudnnFilterDescriptor_t wd, const void *w, const cudnnConvolutionDescriptor_t cv,
	cudnnConvolutionFwdAlgo_t algo, void *ws, size_t wss, const void *be,
	const cudnnTensorDescriptor_t yd, void *y)
{
	fwd_fn real = REAL(fwd_fn, HD_FWD);
	if (!real)
		return CUDNN_STATUS_NOT_INITIALIZED;
	int on = v7_enter(TRACE_CONV_FWD, h, xd, wd, yd, cv);
	return conv_leave(on, real(h, al, xd, x, wd, w, cv, algo, ws, wss, be, yd, y));
}

PRELOAD_EXPORT cudnnStatus_t cudnnConvolutionBackwardData(
	cudnnHandle_t h, const void *al, const cudnnFilterDescriptor_t wd, const void *w,
	const cudnnTensorDescriptor_t dyd, const void *dy, const cudnnConvolutionDescriptor_t cv,
	cudnnConvolutionBwdDataAlgo_t algo, void *ws, size_t wss, const void *be,
	const cudnnTensorDescriptor_t dxd, void *dx)
{
	bwd_data_fn real = REAL(bwd_data_fn, HD_BWD_DATA);
	if (!real)
		return CUDNN_STATUS_NOT_INITIALIZED;
	int on = v7_enter(TRACE_CONV_BWD_DATA, h, dxd, wd, dyd, cv);
	return conv_leave(on, real(h, al, wd, w, dyd, dy, cv, algo, ws, wss, be, dxd, dx));
}

PRELOAD_EXPORT cudnnStatus_t cudnnConvolutionBackwardFilter(
	cudnnHandle_t h, const void *al, const cudnnTensorDescriptor_t xd, const void *x,
	const cudnnTensorDescriptor_t dyd, const void *dy, const cudnnConvolutionDescriptor_t cv,
	cudnnConvolutionBwdFilterAlgo_t algo, void *ws, size_t wss, const void *be,
	const cudnnFilterDescriptor_t dwd, void *dw)
{
	bwd_filter_fn real = REAL(bwd_filter_fn, HD_BWD_FILTER);
	if (!real)
		return CUDNN_STATUS_NOT_INITIALIZED;
	int on = v7_enter(TRACE_CONV_BWD_FILTER, h, xd, dwd, dyd, cv);
	return conv_leave(on, real(h, al, xd, x, dyd, dy, cv, algo, ws, wss, be, dwd, dw));
}

struct preload_hook preload_cudnn_hooks[HD_COUNT + 1] = {
	[HD_CREATE] = PRELOAD_LIB_HOOK("cudnnBackendCreateDescriptor", cudnnBackendCreateDescriptor),
	[HD_DESTROY] = PRELOAD_LIB_HOOK("cudnnBackendDestroyDescriptor", cudnnBackendDestroyDescriptor),
	[HD_SET] = PRELOAD_LIB_HOOK("cudnnBackendSetAttribute", cudnnBackendSetAttribute),
	[HD_GET] = PRELOAD_LIB_HOOK("cudnnBackendGetAttribute", cudnnBackendGetAttribute),
	[HD_EXECUTE] = PRELOAD_LIB_HOOK("cudnnBackendExecute", cudnnBackendExecute),
	[HD_FWD] = PRELOAD_LIB_HOOK("cudnnConvolutionForward", cudnnConvolutionForward),
	[HD_BWD_DATA] = PRELOAD_LIB_HOOK("cudnnConvolutionBackwardData", cudnnConvolutionBackwardData),
	[HD_BWD_FILTER] = PRELOAD_LIB_HOOK("cudnnConvolutionBackwardFilter",
					   cudnnConvolutionBackwardFilter),
	[HD_COUNT] = { NULL, { NULL, NULL }, 0, { NULL, NULL }, { NULL, NULL } },
};
