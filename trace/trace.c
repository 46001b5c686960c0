/*
 * trace.c - the parts of the trace module the writer and the reader share:
 * names of enum values, the semantic validation of records (one set of rules
 * for both sides, see docs/trace-format.md).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/internal.h"
#include "trace/trace.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static const char *name_of(const char *const *names, size_t n, int v)
{
	if (v < 0 || (size_t)v >= n || !names[v])
		return "?";
	return names[v];
}

const char *trace_type_name(enum trace_type t)
{
	static const char *const names[] = {
		NULL, "header", "string", "kernel", "gemm", "conv", "memcpy",
		"memset", "sync", "marker", "stack", "trailer", "op",
	};
	return name_of(names, NELEM(names), (int)t);
}

const char *trace_dtype_name(enum trace_dtype d)
{
	static const char *const names[] = {
		"unknown", "f32", "f64", "f16", "bf16", "tf32", "f8e4m3",
		"f8e5m2", "f4", "i8", "i32",
	};
	return name_of(names, NELEM(names), (int)d);
}

const char *trace_timing_name(enum trace_timing t)
{
	static const char *const names[] = {
		"none", "cupti", "events", "imported", "synthetic", "built",
	};
	return name_of(names, NELEM(names), (int)t);
}

const char *trace_gemm_api_name(enum trace_gemm_api a)
{
	static const char *const names[] = {
		"unknown", "sgemm", "dgemm", "hgemm", "gemmex",
		"sgemm_strided_batched", "dgemm_strided_batched",
		"hgemm_strided_batched", "gemm_strided_batched_ex",
		"gemm_batched_ex", "lt_matmul", "imported",
	};
	return name_of(names, NELEM(names), (int)a);
}

const char *trace_conv_dir_name(enum trace_conv_dir d)
{
	static const char *const names[] = { "fwd", "bwd_data", "bwd_filter" };
	return name_of(names, NELEM(names), (int)d);
}

const char *trace_conv_api_name(enum trace_conv_api a)
{
	static const char *const names[] = { "unknown", "v7", "backend", "imported" };
	return name_of(names, NELEM(names), (int)a);
}

const char *trace_copy_kind_name(enum trace_copy_kind k)
{
	static const char *const names[] = {
		"unknown", "htod", "dtoh", "dtod", "htoh", "ptop",
	};
	return name_of(names, NELEM(names), (int)k);
}

const char *trace_host_mem_name(enum trace_host_mem m)
{
	static const char *const names[] = { "unknown", "pageable", "pinned" };
	return name_of(names, NELEM(names), (int)m);
}

const char *trace_sync_kind_name(enum trace_sync_kind k)
{
	static const char *const names[] = {
		"ctx", "stream", "event", "stream_wait_event", "other", "event_record",
	};
	return name_of(names, NELEM(names), (int)k);
}

const char *trace_marker_kind_name(enum trace_marker_kind k)
{
	static const char *const names[] = {
		"capture_start", "capture_stop", "range_push", "range_pop", "iteration",
	};
	return name_of(names, NELEM(names), (int)k);
}

const char *trace_op_kind_name(enum trace_op_kind k)
{
	static const char *const names[] = {
		"unknown", "gemm", "conv", "elementwise", "reduction", "softmax", "norm",
		"attention", "memcpy", "memset", "comm",
	};
	return name_of(names, NELEM(names), (int)k);
}

const char *trace_collective_name(enum trace_collective c)
{
	static const char *const names[] = {
		"none", "all_reduce", "all_gather", "reduce_scatter", "send_recv",
		"broadcast", "reduce", "all_to_all",
	};
	return name_of(names, NELEM(names), (int)c);
}

const char *trace_attn_impl_name(enum trace_attn_impl i)
{
	static const char *const names[] = {
		"none", "flash", "fa2", "fa3", "flashinfer", "cudnn", "triton", "efficient",
	};
	return name_of(names, NELEM(names), (int)i);
}

const char *trace_attn_form_name(enum trace_attn_form f)
{
	static const char *const names[] = { "prefill", "decode", "mla_decode" };
	return name_of(names, NELEM(names), (int)f);
}

double trace_dtype_bytes(enum trace_dtype d)
{
	switch (d) {
	case TRACE_DT_F64: return 8;
	case TRACE_DT_F32: case TRACE_DT_TF32: case TRACE_DT_I32: return 4;
	case TRACE_DT_F16: case TRACE_DT_BF16: return 2;
	case TRACE_DT_F8E4M3: case TRACE_DT_F8E5M2: case TRACE_DT_I8: return 1;
	case TRACE_DT_F4: return 1;   /* as declared in trace.h */
	default: return 0;
	}
}

/* ---- validation ------------------------------------------------------ */

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int bad(char *msg, size_t msglen, const char *fmt, ...)
{
	if (msg && msglen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(msg, msglen, fmt, ap);
		va_end(ap);
	}
	return TRACE_ECORRUPT;
}

/* Both times known and out of order. */
static int times_reversed(uint64_t a, uint64_t b)
{
	return a && b && b < a;
}

static int check_string(uint32_t id, uint32_t nstrings, int allow_zero)
{
	if (id == 0)
		return allow_zero;
	return id <= nstrings;
}

static int validate_kernel(const struct trace_kernel *k, uint32_t nstrings,
			   const struct hmap *stacks, char *msg, size_t msglen)
{
	static const char *const axis[3] = { "x", "y", "z" };
	if (!check_string(k->name, nstrings, 1))
		return bad(msg, msglen, "name: undefined string id %u", k->name);
	/* CUDA launch limits (Programming Guide, "Compute Capabilities"):
	 * grid.x < 2^31, grid.y and grid.z <= 65535, <= 1024 threads/block. */
	for (int i = 0; i < 3; i++) {
		uint32_t max = i == 0 ? 0x7fffffffu : 65535u;
		if (k->grid[i] < 1 || k->grid[i] > max)
			return bad(msg, msglen, "grid.%s: %u out of range", axis[i], k->grid[i]);
		if (k->block[i] < 1 || k->block[i] > 1024)
			return bad(msg, msglen, "block.%s: %u out of range", axis[i], k->block[i]);
	}
	uint64_t threads = (uint64_t)k->block[0] * k->block[1] * k->block[2];
	if (threads > 1024)
		return bad(msg, msglen, "block: %llu threads per block", (unsigned long long)threads);
	int zeros = (k->cluster[0] == 0) + (k->cluster[1] == 0) + (k->cluster[2] == 0);
	if (zeros != 0 && zeros != 3)
		return bad(msg, msglen, "cluster: partly zero");
	if (zeros == 0) {
		/* Hardware allows 16 blocks per cluster today; 64 leaves room. */
		uint64_t cb = (uint64_t)k->cluster[0] * k->cluster[1] * k->cluster[2];
		if (cb > 64)
			return bad(msg, msglen, "cluster: %llu blocks per cluster", (unsigned long long)cb);
	}
	if (k->regs > 255)
		return bad(msg, msglen, "regs: %u out of range", k->regs);
	if (k->static_smem > TRACE_SMEM_MAX)
		return bad(msg, msglen, "static_smem: %u out of range", k->static_smem);
	if (k->dyn_smem > TRACE_SMEM_MAX)
		return bad(msg, msglen, "dyn_smem: %u out of range", k->dyn_smem);
	if (times_reversed(k->start_ns, k->end_ns))
		return bad(msg, msglen, "end_ns before start_ns");
	if (k->iteration < -1)
		return bad(msg, msglen, "iteration: %d out of range", (int)k->iteration);
	if (k->stack && !hmap_get(stacks, k->stack))
		return bad(msg, msglen, "stack: undefined stack id %u", k->stack);
	return 0;
}

static int valid_dtype(enum trace_dtype d)
{
	return (unsigned)d < TRACE_DT_COUNT;
}

static int validate_gemm(const struct trace_gemm *g, char *msg, size_t msglen)
{
	if ((unsigned)g->api >= TRACE_GEMM_API_COUNT)
		return bad(msg, msglen, "api: %u out of range", (unsigned)g->api);
	if (g->m > TRACE_GEMM_DIM_MAX || g->n > TRACE_GEMM_DIM_MAX ||
	    g->k > TRACE_GEMM_DIM_MAX || g->batch > TRACE_GEMM_DIM_MAX)
		return bad(msg, msglen, "m/n/k/batch: out of range");
	if (g->trans_a > 2 || g->trans_b > 2)
		return bad(msg, msglen, "trans: out of range");
	if (!valid_dtype(g->a_type) || !valid_dtype(g->b_type) ||
	    !valid_dtype(g->c_type) || !valid_dtype(g->compute_type))
		return bad(msg, msglen, "data type out of range");
	return 0;
}

static int validate_conv(const struct trace_conv *c, char *msg, size_t msglen)
{
	if ((unsigned)c->api >= TRACE_CONV_API_COUNT)
		return bad(msg, msglen, "api: out of range");
	if ((unsigned)c->dir >= TRACE_CONV_DIR_COUNT)
		return bad(msg, msglen, "dir: out of range");
	if (c->nbdims != 4 && c->nbdims != 5)
		return bad(msg, msglen, "nbdims: %u is not 4 or 5", c->nbdims);
	for (uint32_t i = 0; i < TRACE_CONV_MAXDIM; i++) {
		int used = i < c->nbdims;
		const int64_t v[3] = { c->in[i], c->filt[i], c->out[i] };
		for (int j = 0; j < 3; j++) {
			if (used ? (v[j] < 0 || v[j] > TRACE_CONV_DIM_MAX) : v[j] != 0)
				return bad(msg, msglen, "tensor dims out of range");
		}
	}
	for (uint32_t i = 0; i < 3; i++) {
		int used = i + 2 < c->nbdims;
		if (used ? (c->stride[i] < 1 || c->stride[i] > TRACE_CONV_PARAM_MAX ||
			    c->dilation[i] < 1 || c->dilation[i] > TRACE_CONV_PARAM_MAX ||
			    c->pad[i] < 0 || c->pad[i] > TRACE_CONV_PARAM_MAX)
			 : (c->stride[i] != 0 || c->dilation[i] != 0 || c->pad[i] != 0))
			return bad(msg, msglen, "stride/pad/dilation out of range");
	}
	if (c->groups < 1)
		return bad(msg, msglen, "groups: 0");
	if (!valid_dtype(c->dtype) || !valid_dtype(c->compute_type))
		return bad(msg, msglen, "data type out of range");
	return 0;
}

/* A count or size a builder computed: finite, not negative. */
static int bad_amount(double v)
{
	return !(v >= 0 && v <= 1e300);
}

/* An attention description: all zero, or a shape that can run (heads a
 * multiple of the KV heads, every size given, no more pairs than the
 * queries times the longest sequence's keys). */
static int validate_attn(const struct trace_op *o, char *msg, size_t msglen)
{
	const struct trace_attn *a = &o->attn;

	if ((unsigned)a->impl >= TRACE_ATTN_IMPL_COUNT || (unsigned)a->form >= TRACE_ATTN_FORM_COUNT)
		return bad(msg, msglen, "attn impl/form: out of range");
	if (a->impl == TRACE_ATTN_NONE) {
		if (a->form || a->backward || a->causal || a->seqs || a->heads || a->kv_heads ||
		    a->head_dim || a->head_dim_v || a->q_tokens || a->kv_tokens || a->max_kv ||
		    a->pairs != 0 || a->window || a->kv_bytes || a->bias_heads)
			return bad(msg, msglen, "attn: a shape without an implementation");
		return 0;
	}
	if (o->kind != TRACE_OPK_ATTENTION)
		return bad(msg, msglen, "attn: given for a kind other than attention");
	if (a->backward > 1 || a->causal > 1)
		return bad(msg, msglen, "attn backward/causal: not 0 or 1");
	if (!a->seqs || !a->heads || !a->kv_heads || !a->head_dim || !a->head_dim_v ||
	    !a->q_tokens || !a->kv_tokens || !a->max_kv)
		return bad(msg, msglen, "attn: a size is 0");
	if (a->heads % a->kv_heads)
		return bad(msg, msglen, "attn: heads not a multiple of kv_heads");
	if (a->q_tokens > TRACE_GEMM_DIM_MAX || a->kv_tokens > TRACE_GEMM_DIM_MAX ||
	    a->max_kv > a->kv_tokens || a->seqs > a->q_tokens)
		return bad(msg, msglen, "attn: tokens out of range");
	if (bad_amount(a->pairs) || a->pairs > (double)a->q_tokens * (double)a->max_kv)
		return bad(msg, msglen, "attn pairs: negative, not finite or above queries x keys");
	if (a->window && (!a->causal || a->form == TRACE_ATTN_MLA_DECODE ||
			  a->window > TRACE_GEMM_DIM_MAX))
		return bad(msg, msglen, "attn window: without the causal mask, on MLA or out of range");
	if (a->kv_bytes && a->kv_bytes != 1 && a->kv_bytes != 2 && a->kv_bytes != 4)
		return bad(msg, msglen, "attn kv_bytes: not 0, 1, 2 or 4");
	if (a->bias_heads && ((a->bias_heads != 1 && a->bias_heads != a->heads) ||
			      a->form != TRACE_ATTN_PREFILL))
		return bad(msg, msglen, "attn bias_heads: not 0, 1 or heads, or not a prefill");
	return 0;
}

static int validate_op(const struct trace_op *o, char *msg, size_t msglen)
{
	if ((unsigned)o->kind >= TRACE_OPK_COUNT)
		return bad(msg, msglen, "kind: out of range");
	if (!valid_dtype(o->dtype))
		return bad(msg, msglen, "dtype: out of range");
	if (o->m > TRACE_GEMM_DIM_MAX || o->n > TRACE_GEMM_DIM_MAX ||
	    o->k > TRACE_GEMM_DIM_MAX || o->batch > TRACE_GEMM_DIM_MAX)
		return bad(msg, msglen, "m/n/k/batch: out of range");
	if (bad_amount(o->flops) || bad_amount(o->bytes) || bad_amount(o->reread_bytes) ||
	    bad_amount(o->reuse_bytes))
		return bad(msg, msglen, "flops/bytes: negative or not finite");
	if (o->b_transposed > 1)
		return bad(msg, msglen, "b_transposed: not 0 or 1");
	if (o->accumulate > 1 || (o->accumulate && o->kind != TRACE_OPK_GEMM))
		return bad(msg, msglen, "accumulate: not 0 or 1, or given for a kind other than gemm");
	if (bad_amount(o->b_bytes) || o->b_bytes > 8 || (o->b_bytes > 0 && o->kind != TRACE_OPK_GEMM))
		return bad(msg, msglen, "b_bytes: negative, above 8, or given for a kind other than gemm");
	if ((unsigned)o->collective >= TRACE_COLL_COUNT)
		return bad(msg, msglen, "collective: out of range");
	if ((o->collective != TRACE_COLL_NONE) != (o->kind == TRACE_OPK_COMM))
		return bad(msg, msglen, "collective: given for a kind other than comm, or missing");
	if (o->rank < -1 || (o->ranks && o->rank >= 0 && (uint32_t)o->rank >= o->ranks))
		return bad(msg, msglen, "rank: not in the group");
	if (o->node_ranks > o->ranks)
		return bad(msg, msglen, "node_ranks: more than the group's ranks");
	return validate_attn(o, msg, msglen);
}

static int validate_copy(const struct trace_copy *c, int memset_rec, char *msg, size_t msglen)
{
	if ((unsigned)c->kind >= TRACE_COPY_KIND_COUNT)
		return bad(msg, msglen, "kind: out of range");
	if (memset_rec && c->kind != TRACE_COPY_UNKNOWN)
		return bad(msg, msglen, "kind: a memset has no copy direction");
	if (c->async > 1)
		return bad(msg, msglen, "async: not 0 or 1");
	if ((unsigned)c->host_mem >= TRACE_HOST_MEM_COUNT)
		return bad(msg, msglen, "host_mem: out of range");
	if (times_reversed(c->cpu_ns, c->cpu_end_ns))
		return bad(msg, msglen, "cpu_end_ns before cpu_ns");
	if (times_reversed(c->start_ns, c->end_ns))
		return bad(msg, msglen, "end_ns before start_ns");
	return 0;
}

int trace_validate_record(const struct trace_record *rec, uint32_t nstrings,
			  const struct hmap *stacks, char *msg, size_t msglen)
{
	switch (rec->type) {
	case TRACE_KERNEL:
		return validate_kernel(&rec->u.kernel, nstrings, stacks, msg, msglen);
	case TRACE_GEMM:
		return validate_gemm(&rec->u.gemm, msg, msglen);
	case TRACE_CONV:
		return validate_conv(&rec->u.conv, msg, msglen);
	case TRACE_MEMCPY:
	case TRACE_MEMSET:
		return validate_copy(&rec->u.copy, rec->type == TRACE_MEMSET, msg, msglen);
	case TRACE_OP:
		return validate_op(&rec->u.op, msg, msglen);
	case TRACE_SYNC:
		if ((unsigned)rec->u.sync.kind >= TRACE_SYNC_KIND_COUNT)
			return bad(msg, msglen, "kind: out of range");
		if (times_reversed(rec->u.sync.cpu_ns, rec->u.sync.cpu_end_ns))
			return bad(msg, msglen, "cpu_end_ns before cpu_ns");
		return 0;
	case TRACE_MARKER:
		if ((unsigned)rec->u.marker.kind >= TRACE_MARK_KIND_COUNT)
			return bad(msg, msglen, "kind: out of range");
		if (!check_string(rec->u.marker.name, nstrings, 1))
			return bad(msg, msglen, "name: undefined string id %u", rec->u.marker.name);
		if (rec->u.marker.iteration < -1)
			return bad(msg, msglen, "iteration: out of range");
		return 0;
	case TRACE_STACK:
		if (rec->u.stack.id == 0)
			return bad(msg, msglen, "id: 0");
		if (rec->u.stack.nframes > TRACE_STACK_MAXFRAMES)
			return bad(msg, msglen, "frames: %u, more than %d", rec->u.stack.nframes,
				   TRACE_STACK_MAXFRAMES);
		for (uint32_t i = 0; i < rec->u.stack.nframes; i++) {
			if (!check_string(rec->u.stack.frames[i], nstrings, 0))
				return bad(msg, msglen, "frame %u: undefined string id %u", i,
					   rec->u.stack.frames[i]);
		}
		if (hmap_get(stacks, rec->u.stack.id))
			return bad(msg, msglen, "id: stack %u defined twice", rec->u.stack.id);
		return 0;
	default:
		return bad(msg, msglen, "record type %d cannot be written here", (int)rec->type);
	}
}

int trace_record_key(const struct trace_record *rec, uint32_t *thread, uint64_t *cpu_ns,
		     uint64_t *seq)
{
	switch (rec->type) {
	case TRACE_KERNEL:
		*thread = rec->u.kernel.thread;
		*cpu_ns = rec->u.kernel.cpu_ns;
		*seq = rec->u.kernel.seq;
		return 1;
	case TRACE_GEMM:
		*thread = rec->u.gemm.thread;
		*cpu_ns = rec->u.gemm.cpu_ns;
		*seq = rec->u.gemm.seq;
		return 1;
	case TRACE_CONV:
		*thread = rec->u.conv.thread;
		*cpu_ns = rec->u.conv.cpu_ns;
		*seq = rec->u.conv.seq;
		return 1;
	case TRACE_MEMCPY:
	case TRACE_MEMSET:
		*thread = rec->u.copy.thread;
		*cpu_ns = rec->u.copy.cpu_ns;
		*seq = rec->u.copy.seq;
		return 1;
	case TRACE_SYNC:
		*thread = rec->u.sync.thread;
		*cpu_ns = rec->u.sync.cpu_ns;
		*seq = rec->u.sync.seq;
		return 1;
	case TRACE_MARKER:
		*thread = rec->u.marker.thread;
		*cpu_ns = rec->u.marker.cpu_ns;
		*seq = rec->u.marker.seq;
		return 1;
	case TRACE_OP:
		*thread = rec->u.op.thread;
		*cpu_ns = rec->u.op.cpu_ns;
		*seq = rec->u.op.seq;
		return 1;
	default:
		return 0;
	}
}

int trace_validate_header(const struct trace_header *h, char *msg, size_t msglen)
{
	if ((unsigned)h->timing >= TRACE_TIMING_COUNT)
		return bad(msg, msglen, "timing: out of range");
	if (!(h->power_limit_w >= 0 && h->power_limit_w <= 1e6))
		return bad(msg, msglen, "power_limit_w: out of range");
	return 0;
}
