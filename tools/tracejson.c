/*
 * tracejson.c - surfer trace records as JSON objects (tracejson.h): field
 * names follow docs/trace-format.md, enum values by name, string ids
 * resolved to their strings.
 */
#include "tools/tracejson.h"

#include <stdlib.h>
#include <string.h>

/* jansson integers are signed 64-bit; the rare larger value (a stream
 * handle, say) is printed as a decimal string rather than wrapped. */
static json_t *ju(uint64_t v)
{
	if (v > (uint64_t)INT64_MAX) {
		char buf[24];
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
		return json_string(buf);
	}
	return json_integer((json_int_t)v);
}

static json_t *ju3(const uint32_t v[3])
{
	return json_pack("[III]", (json_int_t)v[0], (json_int_t)v[1], (json_int_t)v[2]);
}

static json_t *ji64s(const int64_t *v, uint32_t n)
{
	json_t *a = json_array();
	for (uint32_t i = 0; i < n; i++)
		json_array_append_new(a, json_integer((json_int_t)v[i]));
	return a;
}

/* A JSON string of s[0..len); bytes that are not valid UTF-8 (a trace
 * string may hold any bytes) become '?' so the output stays valid JSON. */
static json_t *jbytes(const char *s, size_t len)
{
	json_t *v = json_stringn(s, len);
	if (v)
		return v;
	char *copy = malloc(len ? len : 1);
	if (!copy)
		return json_null();
	for (size_t i = 0; i < len; i++)
		copy[i] = (unsigned char)s[i] < 0x80 ? s[i] : '?';
	v = json_stringn(copy, len);
	free(copy);
	return v ? v : json_null();
}

static json_t *jcstr(const char *s)
{
	return jbytes(s, strlen(s));
}

static json_t *jstr(const struct trace_reader *r, uint32_t id)
{
	size_t len = 0;
	const char *s = trace_reader_string(r, id, &len);
	return s ? jbytes(s, len) : json_null();
}

static void set(json_t *o, const char *key, json_t *v)
{
	json_object_set_new_nocheck(o, key, v);
}

/* start/end and their difference, each only when known. */
static void set_times(json_t *o, uint64_t start, uint64_t end)
{
	if (start)
		set(o, "start_ns", ju(start));
	if (end)
		set(o, "end_ns", ju(end));
	if (start && end)
		set(o, "duration_ns", ju(end - start));
}

json_t *trace_json_header(const struct trace_header *h)
{
	const struct trace_device *d = &h->device;
	char version[24];
	snprintf(version, sizeof(version), "%u.%u", h->version_major, h->version_minor);
	json_t *dev = json_object();
	set(dev, "name", jcstr(d->name));
	set(dev, "cc_major", ju(d->cc_major));
	set(dev, "cc_minor", ju(d->cc_minor));
	set(dev, "sm_count", ju(d->sm_count));
	set(dev, "clock_khz", ju(d->clock_khz));
	set(dev, "mem_clock_khz", ju(d->mem_clock_khz));
	set(dev, "mem_bus_bits", ju(d->mem_bus_bits));
	set(dev, "mem_bytes", ju(d->mem_bytes));
	set(dev, "l2_bytes", ju(d->l2_bytes));
	set(dev, "max_threads_per_sm", ju(d->max_threads_per_sm));
	set(dev, "max_blocks_per_sm", ju(d->max_blocks_per_sm));
	set(dev, "regs_per_sm", ju(d->regs_per_sm));
	set(dev, "smem_per_sm", ju(d->smem_per_sm));
	set(dev, "smem_per_block_optin", ju(d->smem_per_block_optin));
	set(dev, "driver_version", ju(d->driver_version));
	set(dev, "runtime_version", ju(d->runtime_version));
	json_t *o = json_object();
	set(o, "type", json_string("header"));
	set(o, "version", json_string(version));
	set(o, "tool_version", jcstr(h->tool_version));
	set(o, "host", jcstr(h->host));
	set(o, "pid", ju(h->pid));
	set(o, "start_unix_ns", ju(h->start_unix_ns));
	set(o, "cmdline", jcstr(h->cmdline));
	set(o, "timing", json_string(trace_timing_name(h->timing)));
	set(o, "timing_note", jcstr(h->timing_note));
	set(o, "device", dev);
	set(o, "world_size", ju(h->world_size));
	set(o, "power_limit_w", json_real(h->power_limit_w));
	return o;
}

/* Kernel records dominate a trace (millions per iteration): their object
 * is built once and its values updated in place, and each name is converted
 * to JSON once, so dumping a kernel allocates nothing. */
struct kernel_tmpl {
	json_t *obj;
	json_t *seq, *grid, *block, *cluster, *regs, *static_smem, *dyn_smem, *stream;
	json_t *thread, *flags, *cpu_ns, *start, *end, *dur, *lib_call, *iteration, *stack;
	json_t *graph, *replay;
	unsigned pattern;            /* which times and graph fields obj holds */
	json_t **names;              /* names[id], built on first use */
	uint32_t nnames;
};

struct trace_json {
	struct kernel_tmpl k;
	char *buf;                   /* trace_json_emit's line */
	size_t cap;
};

/* Sets key to v, in place when the current value is an integer. */
static void tset(json_t *o, const char *key, json_t **slot, uint64_t v)
{
	if (*slot && v <= (uint64_t)INT64_MAX && json_is_integer(*slot)) {
		json_integer_set(*slot, (json_int_t)v);
		return;
	}
	*slot = ju(v);
	set(o, key, *slot);
}

static void tset3(json_t *a, const uint32_t v[3])
{
	for (size_t i = 0; i < 3; i++)
		json_integer_set(json_array_get(a, i), (json_int_t)v[i]);
}

static json_t *kernel_name(struct kernel_tmpl *t, const struct trace_reader *r, uint32_t id)
{
	if (id == 0 || id > trace_reader_nstrings(r))
		return json_null();
	if (id >= t->nnames) {
		uint32_t n = trace_reader_nstrings(r) + 1;
		json_t **nn = realloc(t->names, n * sizeof(*nn));
		if (!nn)
			return jstr(r, id);
		memset(nn + t->nnames, 0, (n - t->nnames) * sizeof(*nn));
		t->names = nn;
		t->nnames = n;
	}
	if (!t->names[id])
		t->names[id] = jstr(r, id);
	return json_incref(t->names[id]);
}

/* Builds the kernel object; the times and graph fields it holds (which
 * are printed only when known) are those of the bits of pattern: 1 start,
 * 2 end, 4 duration, 8 graph, 16 replay. */
static void kernel_tmpl_build(struct kernel_tmpl *t, unsigned pattern)
{
	static const uint32_t zero3[3];
	json_decref(t->obj);
	t->obj = json_object();
	t->start = t->end = t->dur = t->graph = t->replay = NULL;
	t->pattern = pattern;
	set(t->obj, "type", json_string("kernel"));
	set(t->obj, "seq", t->seq = json_integer(0));
	set(t->obj, "name", json_null());
	set(t->obj, "grid", t->grid = ju3(zero3));
	set(t->obj, "block", t->block = ju3(zero3));
	set(t->obj, "cluster", t->cluster = ju3(zero3));
	set(t->obj, "regs", t->regs = json_integer(0));
	set(t->obj, "static_smem", t->static_smem = json_integer(0));
	set(t->obj, "dyn_smem", t->dyn_smem = json_integer(0));
	set(t->obj, "stream", t->stream = json_integer(0));
	set(t->obj, "thread", t->thread = json_integer(0));
	set(t->obj, "flags", t->flags = json_integer(0));
	set(t->obj, "cpu_ns", t->cpu_ns = json_integer(0));
	if (pattern & 1)
		set(t->obj, "start_ns", t->start = json_integer(0));
	if (pattern & 2)
		set(t->obj, "end_ns", t->end = json_integer(0));
	if (pattern & 4)
		set(t->obj, "duration_ns", t->dur = json_integer(0));
	set(t->obj, "lib_call", t->lib_call = json_integer(0));
	set(t->obj, "iteration", t->iteration = json_integer(0));
	set(t->obj, "stack", t->stack = json_integer(0));
	if (pattern & 8)
		set(t->obj, "graph", t->graph = json_integer(0));
	if (pattern & 16)
		set(t->obj, "replay", t->replay = json_integer(0));
}

static json_t *kernel_json(struct kernel_tmpl *t, const struct trace_reader *r,
			   const struct trace_kernel *k)
{
	unsigned pattern = (k->start_ns ? 1u : 0u) | (k->end_ns ? 2u : 0u) |
			   (k->start_ns && k->end_ns ? 4u : 0u) | (k->graph ? 8u : 0u) |
			   (k->replay ? 16u : 0u);
	if (!t->obj || pattern != t->pattern)
		kernel_tmpl_build(t, pattern);
	json_t *o = t->obj;
	tset(o, "seq", &t->seq, k->seq);
	set(o, "name", kernel_name(t, r, k->name));
	tset3(t->grid, k->grid);
	tset3(t->block, k->block);
	tset3(t->cluster, k->cluster);
	tset(o, "regs", &t->regs, k->regs);
	tset(o, "static_smem", &t->static_smem, k->static_smem);
	tset(o, "dyn_smem", &t->dyn_smem, k->dyn_smem);
	tset(o, "stream", &t->stream, k->stream);
	tset(o, "thread", &t->thread, k->thread);
	tset(o, "flags", &t->flags, k->flags);
	tset(o, "cpu_ns", &t->cpu_ns, k->cpu_ns);
	if (pattern & 1)
		tset(o, "start_ns", &t->start, k->start_ns);
	if (pattern & 2)
		tset(o, "end_ns", &t->end, k->end_ns);
	if (pattern & 4)
		tset(o, "duration_ns", &t->dur, k->end_ns - k->start_ns);
	tset(o, "lib_call", &t->lib_call, k->lib_call);
	json_integer_set(t->iteration, k->iteration);
	tset(o, "stack", &t->stack, k->stack);
	if (pattern & 8)
		tset(o, "graph", &t->graph, k->graph);
	if (pattern & 16)
		tset(o, "replay", &t->replay, k->replay);
	return json_incref(o);
}

struct trace_json *trace_json_new(void)
{
	return calloc(1, sizeof(struct trace_json));
}

void trace_json_free(struct trace_json *j)
{
	if (!j)
		return;
	for (uint32_t i = 0; i < j->k.nnames; i++)
		json_decref(j->k.names[i]);
	free(j->k.names);
	json_decref(j->k.obj);
	free(j->buf);
	free(j);
}

static const char *trans_name(uint8_t t)
{
	return t == 0 ? "N" : t == 1 ? "T" : t == 2 ? "C" : "?";
}

static void gemm_json(json_t *o, const struct trace_gemm *g)
{
	set(o, "seq", ju(g->seq));
	set(o, "api", json_string(trace_gemm_api_name(g->api)));
	set(o, "m", ju(g->m));
	set(o, "n", ju(g->n));
	set(o, "k", ju(g->k));
	set(o, "batch", ju(g->batch));
	set(o, "trans_a", json_string(trans_name(g->trans_a)));
	set(o, "trans_b", json_string(trans_name(g->trans_b)));
	set(o, "a_type", json_string(trace_dtype_name(g->a_type)));
	set(o, "b_type", json_string(trace_dtype_name(g->b_type)));
	set(o, "c_type", json_string(trace_dtype_name(g->c_type)));
	set(o, "compute_type", json_string(trace_dtype_name(g->compute_type)));
	set(o, "epilogue", ju(g->epilogue));
	set(o, "stream", ju(g->stream));
	set(o, "thread", ju(g->thread));
	set(o, "cpu_ns", ju(g->cpu_ns));
}

static void conv_json(json_t *o, const struct trace_conv *c)
{
	uint32_t sp = c->nbdims - 2;
	set(o, "seq", ju(c->seq));
	set(o, "api", json_string(trace_conv_api_name(c->api)));
	set(o, "dir", json_string(trace_conv_dir_name(c->dir)));
	set(o, "nbdims", ju(c->nbdims));
	set(o, "in", ji64s(c->in, c->nbdims));
	set(o, "filt", ji64s(c->filt, c->nbdims));
	set(o, "out", ji64s(c->out, c->nbdims));
	set(o, "stride", ji64s(c->stride, sp));
	set(o, "pad", ji64s(c->pad, sp));
	set(o, "dilation", ji64s(c->dilation, sp));
	set(o, "groups", ju(c->groups));
	set(o, "dtype", json_string(trace_dtype_name(c->dtype)));
	set(o, "compute_type", json_string(trace_dtype_name(c->compute_type)));
	set(o, "stream", ju(c->stream));
	set(o, "thread", ju(c->thread));
	set(o, "cpu_ns", ju(c->cpu_ns));
}

static void copy_json(json_t *o, const struct trace_copy *c, int is_memcpy)
{
	set(o, "seq", ju(c->seq));
	set(o, "bytes", ju(c->bytes));
	if (is_memcpy)
		set(o, "kind", json_string(trace_copy_kind_name(c->kind)));
	set(o, "async", json_boolean(c->async));
	set(o, "stream", ju(c->stream));
	set(o, "thread", ju(c->thread));
	set(o, "cpu_ns", ju(c->cpu_ns));
	set(o, "cpu_end_ns", ju(c->cpu_end_ns));
	set_times(o, c->start_ns, c->end_ns);
	set(o, "host_mem", json_string(trace_host_mem_name(c->host_mem)));
	if (c->copies > 1)
		set(o, "copies", ju(c->copies));
}

static void op_json(json_t *o, const struct trace_op *p)
{
	set(o, "seq", ju(p->seq));
	set(o, "kind", json_string(trace_op_kind_name(p->kind)));
	set(o, "dtype", json_string(trace_dtype_name(p->dtype)));
	set(o, "m", ju(p->m));
	set(o, "n", ju(p->n));
	set(o, "k", ju(p->k));
	set(o, "batch", ju(p->batch));
	set(o, "flops", json_real(p->flops));
	set(o, "bytes", json_real(p->bytes));
	set(o, "b_transposed", json_boolean(p->b_transposed));
	set(o, "reread_bytes", json_real(p->reread_bytes));
	set(o, "reuse_bytes", json_real(p->reuse_bytes));
	if (p->accumulate)
		set(o, "accumulate", json_true());
	if (p->b_bytes > 0)
		set(o, "b_bytes", json_real(p->b_bytes));
	if (p->collective != TRACE_COLL_NONE) {
		set(o, "collective", json_string(trace_collective_name(p->collective)));
		set(o, "ranks", ju(p->ranks));
		set(o, "rank", json_integer(p->rank));
		set(o, "comm", ju(p->comm));
		set(o, "node_ranks", ju(p->node_ranks));
	}
	if (p->attn.impl != TRACE_ATTN_NONE) {
		const struct trace_attn *a = &p->attn;
		set(o, "attn_impl", json_string(trace_attn_impl_name(a->impl)));
		set(o, "attn_form", json_string(trace_attn_form_name(a->form)));
		set(o, "attn_backward", json_boolean(a->backward));
		set(o, "attn_causal", json_boolean(a->causal));
		set(o, "attn_seqs", ju(a->seqs));
		set(o, "attn_heads", ju(a->heads));
		set(o, "attn_kv_heads", ju(a->kv_heads));
		set(o, "attn_head_dim", ju(a->head_dim));
		set(o, "attn_head_dim_v", ju(a->head_dim_v));
		set(o, "attn_q_tokens", ju(a->q_tokens));
		set(o, "attn_kv_tokens", ju(a->kv_tokens));
		set(o, "attn_max_kv", ju(a->max_kv));
		set(o, "attn_pairs", json_real(a->pairs));
		if (a->window)
			set(o, "attn_window", ju(a->window));
		if (a->kv_bytes)
			set(o, "attn_kv_bytes", ju(a->kv_bytes));
		if (a->bias_heads)
			set(o, "attn_bias_heads", ju(a->bias_heads));
	}
	set(o, "stream", ju(p->stream));
	set(o, "thread", ju(p->thread));
	set(o, "cpu_ns", ju(p->cpu_ns));
}

static void trailer_json(json_t *o, const struct trace_trailer *t)
{
	json_t *counts = json_object();
	for (int i = 1; i < TRACE_TYPE_MAX; i++) {
		if (i != TRACE_TRAILER)
			set(counts, trace_type_name((enum trace_type)i), ju(t->count[i]));
	}
	set(o, "counts", counts);
	set(o, "end_unix_ns", ju(t->end_unix_ns));
	set(o, "dropped", ju(t->dropped));
	if (t->peak_device_bytes)
		set(o, "peak_device_bytes", ju(t->peak_device_bytes));
}

json_t *trace_json_record(struct trace_json *j, const struct trace_reader *r,
			  const struct trace_record *rec)
{
	if (rec->type == TRACE_KERNEL)
		return kernel_json(&j->k, r, &rec->u.kernel);
	json_t *o = json_object();
	set(o, "type", json_string(trace_type_name(rec->type)));
	switch (rec->type) {
	case TRACE_GEMM: gemm_json(o, &rec->u.gemm); break;
	case TRACE_CONV: conv_json(o, &rec->u.conv); break;
	case TRACE_MEMCPY: copy_json(o, &rec->u.copy, 1); break;
	case TRACE_MEMSET: copy_json(o, &rec->u.copy, 0); break;
	case TRACE_SYNC:
		set(o, "seq", ju(rec->u.sync.seq));
		set(o, "kind", json_string(trace_sync_kind_name(rec->u.sync.kind)));
		set(o, "stream", ju(rec->u.sync.stream));
		set(o, "thread", ju(rec->u.sync.thread));
		set(o, "cpu_ns", ju(rec->u.sync.cpu_ns));
		set(o, "cpu_end_ns", ju(rec->u.sync.cpu_end_ns));
		if (rec->u.sync.event)
			set(o, "event", ju(rec->u.sync.event));
		break;
	case TRACE_MARKER:
		set(o, "seq", ju(rec->u.marker.seq));
		set(o, "kind", json_string(trace_marker_kind_name(rec->u.marker.kind)));
		set(o, "name", jstr(r, rec->u.marker.name));
		set(o, "thread", ju(rec->u.marker.thread));
		set(o, "cpu_ns", ju(rec->u.marker.cpu_ns));
		set(o, "iteration", json_integer(rec->u.marker.iteration));
		break;
	case TRACE_STACK: {
		json_t *frames = json_array();
		for (uint32_t i = 0; i < rec->u.stack.nframes; i++)
			json_array_append_new(frames, jstr(r, rec->u.stack.frames[i]));
		set(o, "id", ju(rec->u.stack.id));
		set(o, "frames", frames);
		break;
	}
	case TRACE_TRAILER: trailer_json(o, &rec->u.trailer); break;
	case TRACE_OP: op_json(o, &rec->u.op); break;
	default: break;
	}
	return o;
}

/* The object is rendered into a buffer first: json_dumpf writes token by
 * token and made stdio the bottleneck of a large dump. */
int trace_json_emit(struct trace_json *j, FILE *f, json_t *o)
{
	if (!o)
		return -1;
	size_t n = json_dumpb(o, j->buf, j->cap, JSON_COMPACT);
	if (n + 1 > j->cap) {
		size_t ncap = (n + 1) * 2;
		char *nb = realloc(j->buf, ncap);
		if (!nb) {
			json_decref(o);
			return -1;
		}
		j->buf = nb;
		j->cap = ncap;
		n = json_dumpb(o, j->buf, j->cap, JSON_COMPACT);
	}
	json_decref(o);
	if (n == 0)
		return -1;
	j->buf[n++] = '\n';
	return fwrite(j->buf, 1, n, f) == n ? 0 : -1;
}

int trace_json_strings(struct trace_json *j, FILE *f, const struct trace_reader *r)
{
	uint32_t n = trace_reader_nstrings(r);
	for (uint32_t id = 1; id <= n; id++) {
		json_t *o = json_object();
		set(o, "type", json_string("string"));
		set(o, "id", ju(id));
		set(o, "value", jstr(r, id));
		if (trace_json_emit(j, f, o) < 0)
			return -1;
	}
	return 0;
}

