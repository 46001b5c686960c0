/*
 * ktable.c - the kernel table: configuration keys to dense indexes (the
 * common hash map, trace/hmap.h, keyed by the key's hash with the entries
 * kept here), with per-configuration launch counts and measured time.
 * Keys are hashed and compared as bytes (they are zero-padded).
 *
 * Library-call work:
 *  - GEMM D[m x n] = A[m x k] B[k x n], batch times: 2*m*n*k*batch FLOPs;
 *    bytes = (m*k*|A| + k*n*|B| + m*n*|C|) * batch, each operand moved once.
 *  - Convolution, output (N, K, P, Q[, ...]), filter (K, C/groups, R, S
 *    [, ...]): each output element is (C/groups)*R*S multiply-adds, so
 *    FLOPs = 2 * prod(out) * prod(filter[1..]) for every direction (the
 *    backward passes do the same multiply-adds); bytes = (prod(in) +
 *    prod(filter) + prod(out)) * |dtype|.
 */
#include "analyzer/ktable.h"
#include "predictor/attention.h"

#include <stdlib.h>
#include <string.h>

#include "trace/hmap.h"

struct ktable {
	struct ktable_entry *e;
	uint32_t n, cap;
	struct hmap index;            /* hash of a key -> its index in e          */
	struct pred_attn *attn;       /* attention shapes, id = index + 1         */
	uint32_t nattn, capattn;
	struct hmap attn_index;       /* hash of a shape -> its index in attn     */
};

void ktable_key_init(struct ktable_key *key, const struct trace_kernel *k,
		     const struct ktable_lib *lib)
{
	memset(key, 0, sizeof(*key));
	key->name = k->name;
	memcpy(key->grid, k->grid, sizeof(key->grid));
	memcpy(key->block, k->block, sizeof(key->block));
	key->regs = k->regs;
	key->smem_static = k->static_smem;
	key->smem_dynamic = k->dyn_smem;
	if ((k->flags & TRACE_KF_GRAPH) && !k->replay)
		key->graph = k->graph;
	if (lib && lib->kind != KTABLE_LIB_NONE) {
		key->lib_kind = lib->kind;
		key->dtype = lib->dtype;
		key->m = lib->m;
		key->n = lib->n;
		key->k = lib->k;
		key->batch = lib->batch;
		key->flops = lib->flops;
		key->bytes = lib->bytes;
		key->b_transposed = lib->b_transposed;
		key->conv = lib->conv;
		if (lib->kind == KTABLE_LIB_OP) {
			key->op = lib->op;
			key->collective = lib->collective;
			key->ranks = lib->ranks;
			key->node_ranks = lib->node_ranks;
			key->reread_bytes = lib->reread_bytes;
			key->reuse_bytes = lib->reuse_bytes;
			key->accumulate = lib->accumulate;
			key->b_bytes = lib->b_bytes;
			key->attn = lib->attn;
		}
	}
}

enum gpu_dtype ktable_dtype(enum trace_dtype operand, enum trace_dtype compute)
{
	switch (operand) {
	case TRACE_DT_F64: return GPU_DT_FP64;
	case TRACE_DT_F16: return GPU_DT_FP16;
	case TRACE_DT_BF16: return GPU_DT_BF16;
	case TRACE_DT_TF32: return GPU_DT_TF32;
	case TRACE_DT_F8E4M3: case TRACE_DT_F8E5M2: return GPU_DT_FP8;
	case TRACE_DT_F4: return GPU_DT_FP4;
	case TRACE_DT_I8: return GPU_DT_INT8;
	default:
		return compute == TRACE_DT_TF32 ? GPU_DT_TF32 : GPU_DT_FP32;
	}
}

static double ktable_elt(enum trace_dtype d)
{
	double b = trace_dtype_bytes(d);
	return b > 0 ? b : 4;
}

void ktable_lib_from_gemm(struct ktable_lib *lib, const struct trace_gemm *g)
{
	double m = (double)g->m, n = (double)g->n, k = (double)g->k;
	double b = g->batch ? (double)g->batch : 1.0;

	memset(lib, 0, sizeof(*lib));
	lib->kind = KTABLE_LIB_GEMM;
	lib->dtype = ktable_dtype(g->a_type, g->compute_type);
	/* cuBLAS is column-major: its m x n output is, row-major (surfer's
	 * and NeuSight's convention, in which the tile model was trained:
	 * batch x (m x k) * (k x n)), an n x m one.  PyTorch's mm of an
	 * M x K by a K x N matrix calls cuBLAS with m = N and n = M. */
	lib->m = g->n;
	lib->n = g->m;
	lib->k = g->k;
	lib->batch = g->batch ? g->batch : 1;
	lib->flops = 2.0 * m * n * k * b;
	lib->bytes = (m * k * ktable_elt(g->a_type) + k * n * ktable_elt(g->b_type) +
		      m * n * ktable_elt(g->c_type)) * b;
	/* PyTorch passes its second operand as cuBLAS's A: a transposed view
	 * there (K^T in attention's Q K^T) is trans_a = T.  nn.Linear's W^T is
	 * one too, but a plain GEMM; what the AMD scale's Q K^T class was
	 * fitted on (NeuSight's profiles: bmm / matmul whose second input is a
	 * transposed view, tools/lab/profile.c) is the batched product. */
	lib->b_transposed = lib->batch > 1 && g->trans_a != 0;
}

static double ktable_prod(const int64_t *d, uint32_t from, uint32_t n)
{
	double p = 1;
	for (uint32_t i = from; i < n; i++)
		p *= d[i] > 0 ? (double)d[i] : 1.0;
	return p;
}

void ktable_lib_from_conv(struct ktable_lib *lib, const struct trace_conv *c)
{
	uint32_t nd = c->nbdims <= TRACE_CONV_MAXDIM ? c->nbdims : TRACE_CONV_MAXDIM;
	double elt = ktable_elt(c->dtype);

	memset(lib, 0, sizeof(*lib));
	lib->kind = KTABLE_LIB_CONV;
	lib->dtype = ktable_dtype(c->dtype, c->compute_type);
	if (nd < 3)
		return;
	lib->flops = 2.0 * ktable_prod(c->out, 0, nd) * ktable_prod(c->filt, 1, nd);
	lib->bytes = (ktable_prod(c->in, 0, nd) + ktable_prod(c->filt, 0, nd) +
		      ktable_prod(c->out, 0, nd)) * elt;
	/* The implicit GEMM cuDNN runs (predictor/conv.c): forward, output
	 * pixels N P Q by filters K over C R S (per group); backward data,
	 * input pixels N H W by channels C over K R S; backward filter,
	 * filters K by C R S over N P Q. */
	double npq = c->out[0] * ktable_prod(c->out, 2, nd), crs = ktable_prod(c->filt, 1, nd);
	double nhw = c->in[0] * ktable_prod(c->in, 2, nd), krs = c->filt[0] * ktable_prod(c->filt, 2, nd);
	double mnk[TRACE_CONV_DIR_COUNT][3] = {
		[TRACE_CONV_FWD] = {npq, (double)c->filt[0], crs},
		[TRACE_CONV_BWD_DATA] = {nhw, (double)c->in[1], krs},
		[TRACE_CONV_BWD_FILTER] = {(double)c->filt[0], crs, npq},
	};
	if ((unsigned)c->dir < TRACE_CONV_DIR_COUNT && c->out[0] > 0 && c->in[0] > 0 &&
	    c->in[1] > 0 && c->filt[0] > 0) {
		lib->m = (uint64_t)mnk[c->dir][0];
		lib->n = (uint64_t)mnk[c->dir][1];
		lib->k = (uint64_t)mnk[c->dir][2];
	}
	/* A 2-D forward convolution's geometry: where Winograd applies
	 * (conv.c).  The backward passes run other kernels, which the model
	 * was not fitted on; their pass is marked (conv.c: the filters'
	 * gradient splits its reduction over the SMs, and neither is pulled
	 * toward the forward shape's time). */
	lib->conv.pass = c->dir == TRACE_CONV_BWD_FILTER ? PRED_CONV_WGRAD :
			 c->dir == TRACE_CONV_BWD_DATA ? PRED_CONV_DGRAD : PRED_CONV_FWD;
	if (c->dir == TRACE_CONV_FWD && nd == 4 && c->filt[2] > 0 && c->filt[3] > 0 &&
	    c->out[2] > 0 && c->out[3] > 0 && c->filt[2] <= UINT32_MAX &&
	    c->filt[3] <= UINT32_MAX && c->out[2] <= UINT32_MAX && c->out[3] <= UINT32_MAX) {
		lib->conv.r = (uint32_t)c->filt[2];
		lib->conv.s = (uint32_t)c->filt[3];
		lib->conv.p = (uint32_t)c->out[2];
		lib->conv.q = (uint32_t)c->out[3];
		lib->conv.unit = c->groups <= 1 && c->stride[0] == 1 && c->stride[1] == 1 &&
				 c->dilation[0] <= 1 && c->dilation[1] <= 1;
	}
}

/* The hash of an attention shape, field by field (its padding bytes are
 * not part of it). */
static uint64_t ktable_attn_hash(const struct pred_attn *a)
{
	uint64_t h = 0;
	double pairs = a->pairs;
	uint64_t pw;

	memcpy(&pw, &pairs, sizeof(pw));
	h = hmap_hash_add(h, (uint64_t)a->impl | (uint64_t)a->form << 8 |
			     (uint64_t)a->backward << 16 | (uint64_t)a->causal << 24 |
			     (uint64_t)a->seqs << 32);
	h = hmap_hash_add(h, (uint64_t)a->heads | (uint64_t)a->kv_heads << 32);
	h = hmap_hash_add(h, (uint64_t)a->head_dim | (uint64_t)a->head_dim_v << 32);
	h = hmap_hash_add(h, a->q_tokens);
	h = hmap_hash_add(h, a->kv_tokens);
	h = hmap_hash_add(h, a->max_kv);
	h = hmap_hash_add(h, a->window | (uint64_t)a->kv_bytes << 56);
	h = hmap_hash_add(h, a->bias_heads);
	return hmap_hash_add(h, pw);
}

static int ktable_attn_eq(const void *ctx, uint64_t val, const void *key)
{
	const struct pred_attn *x = &((const struct ktable *)ctx)->attn[val], *y = key;

	return x->impl == y->impl && x->form == y->form && x->backward == y->backward &&
	       x->causal == y->causal && x->seqs == y->seqs && x->heads == y->heads &&
	       x->kv_heads == y->kv_heads && x->head_dim == y->head_dim &&
	       x->head_dim_v == y->head_dim_v && x->q_tokens == y->q_tokens &&
	       x->kv_tokens == y->kv_tokens && x->max_kv == y->max_kv && x->window == y->window &&
	       x->kv_bytes == y->kv_bytes && x->bias_heads == y->bias_heads &&
	       memcmp(&x->pairs, &y->pairs, sizeof(x->pairs)) == 0;
}

/* The id of shape a in t, added when new: >= 1, or 0 out of memory (only
 * when adding: a shape seen before is found without allocating). */
static uint32_t ktable_attn_intern(struct ktable *t, const struct pred_attn *a)
{
	uint64_t h = ktable_attn_hash(a);
	const uint64_t *v = hmap_find(&t->attn_index, h, ktable_attn_eq, t, a);

	if (v)
		return (uint32_t)*v + 1;
	if (t->nattn == UINT32_MAX - 1)
		return 0;
	if (t->nattn == t->capattn) {
		uint32_t cap = t->capattn ? t->capattn * 2 : 16;
		struct pred_attn *n = realloc(t->attn, (size_t)cap * sizeof(*n));
		if (!n)
			return 0;
		t->attn = n;
		t->capattn = cap;
	}
	if (hmap_add(&t->attn_index, h, t->nattn) < 0)
		return 0;
	t->attn[t->nattn++] = *a;
	return t->nattn;
}

const struct pred_attn *ktable_attn(const struct ktable *t, uint32_t id)
{
	return id >= 1 && id <= t->nattn ? &t->attn[id - 1] : NULL;
}

int ktable_lib_from_op(struct ktable *t, struct ktable_lib *lib, const struct trace_op *o)
{
	memset(lib, 0, sizeof(*lib));
	lib->kind = KTABLE_LIB_OP;
	lib->dtype = ktable_dtype(o->dtype, TRACE_DT_UNKNOWN);
	lib->m = o->m;
	lib->n = o->n;
	lib->k = o->k;
	lib->batch = o->batch;
	lib->flops = o->flops;
	lib->bytes = o->bytes;
	lib->b_transposed = o->b_transposed;
	lib->op = o->kind;
	lib->collective = o->collective;
	lib->ranks = o->ranks;
	lib->node_ranks = o->node_ranks;
	lib->reread_bytes = o->reread_bytes;
	lib->reuse_bytes = o->reuse_bytes;
	lib->accumulate = o->accumulate;
	lib->b_bytes = o->b_bytes;
	const struct trace_attn *a = &o->attn;
	if (a->impl == TRACE_ATTN_NONE)
		return 0;
	struct pred_attn pa;
	attention_from_trace(a, &pa);
	lib->attn = ktable_attn_intern(t, &pa);
	return lib->attn ? 0 : -1;
}

struct ktable *ktable_new(void)
{
	return calloc(1, sizeof(struct ktable));
}

void ktable_free(struct ktable *t)
{
	if (!t)
		return;
	free(t->e);
	hmap_release(&t->index);
	free(t->attn);
	hmap_release(&t->attn_index);
	free(t);
}

static int ktable_eq(const void *ctx, uint64_t val, const void *key)
{
	const struct ktable *t = ctx;

	return memcmp(&t->e[val].key, key, sizeof(struct ktable_key)) == 0;
}

_Static_assert(sizeof(struct ktable_key) % 8 == 0, "key hashed as 64-bit words");

/* The key's hash, a 64-bit word at a time (a launch is looked up per
 * kernel record: bytewise hashing cost a third of the analysis), in four
 * independent lanes so the multiplications do not wait on one another
 * (one chain of 20-odd dependent multiplies was 8 % of a 1M-launch run). */
static uint64_t ktable_hash(const struct ktable_key *key)
{
	enum { N = sizeof(*key) / 8 };
	uint64_t w[N], a = 0, b = 1, c = 2, d = 3;
	size_t i = 0;

	memcpy(w, key, sizeof(w));
	for (; i + 4 <= N; i += 4) {
		a = hmap_hash_add(a, w[i]);
		b = hmap_hash_add(b, w[i + 1]);
		c = hmap_hash_add(c, w[i + 2]);
		d = hmap_hash_add(d, w[i + 3]);
	}
	for (; i < N; i++)
		a = hmap_hash_add(a, w[i]);
	return hmap_hash_add(hmap_hash_add(hmap_hash_add(a, b), c), d);
}

int64_t ktable_find(const struct ktable *t, const struct ktable_key *key)
{
	const uint64_t *v = hmap_find(&t->index, ktable_hash(key), ktable_eq, t, key);

	return v ? (int64_t)*v : -1;
}

int64_t ktable_intern(struct ktable *t, const struct ktable_key *key)
{
	uint64_t *v;
	int rc;

	if (t->n == UINT32_MAX - 1)
		return -1;
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 256;
		struct ktable_entry *e = realloc(t->e, (size_t)cap * sizeof(*e));
		if (!e)
			return -1;
		t->e = e;
		t->cap = cap;
	}
	rc = hmap_find_or_add(&t->index, ktable_hash(key), ktable_eq, t, key, t->n, &v);
	if (rc < 0)
		return -1;
	if (rc == 1)
		return (int64_t)*v;
	memset(&t->e[t->n], 0, sizeof(t->e[t->n]));
	t->e[t->n].key = *key;
	return t->n++;
}

uint32_t ktable_count(const struct ktable *t)
{
	return t->n;
}

struct ktable_entry *ktable_entry(struct ktable *t, uint32_t i)
{
	return i < t->n ? &t->e[i] : NULL;
}
