/*
 * import_common.c - the part of surfer-import shared by every front end:
 * the compact event store and string pool, and import_finish(), which
 * joins API calls to GPU activities, chooses the origin device, numbers
 * iterations, orders the records and writes the surfer trace.
 *
 * Order of the written records: by CPU launch time (the order a recorder
 * running in the process would have written them, which is also each
 * stream's execution order), GPU start time breaking ties (the kernels of
 * one graph launch) and standing in for records whose API call is not in
 * the input.  Sorting by GPU start instead would interleave streams by
 * when they ran rather than by when the CPU issued the work, which the
 * timeline replays.
 */
#include "tools/import/import.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_specs/gpu.h"

void import_set_init(struct import_set *s)
{
	memset(s, 0, sizeof(*s));
}

void import_set_release(struct import_set *s)
{
	strpool_release(&s->strs);
	free(s->ev);
	free(s->call);
	free(s->devs);
	free(s->gemm);
	free(s->evrec);
	free(s->cpu);
	memset(s, 0, sizeof(*s));
}

/* Grows *p (of *cap elements of size sz) to hold at least need. */
static int grow(void **p, size_t *cap, size_t need, size_t sz)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap * 2 : 1024;
	while (n < need)
		n *= 2;
	void *q = realloc(*p, n * sz);
	if (!q)
		return -1;
	*p = q;
	*cap = n;
	return 0;
}

/* Appends one zeroed element of size sz to the array *p of *n (capacity
 * *cap); NULL when out of memory. */
static void *push_zeroed(void **p, size_t *n, size_t *cap, size_t sz)
{
	if (grow(p, cap, *n + 1, sz))
		return NULL;
	void *e = (char *)*p + (*n)++ * sz;
	memset(e, 0, sz);
	return e;
}

struct import_event *import_add_event(struct import_set *s)
{
	return push_zeroed((void **)&s->ev, &s->nev, &s->capev, sizeof(*s->ev));
}

struct import_call *import_add_call(struct import_set *s)
{
	return push_zeroed((void **)&s->call, &s->ncall, &s->capcall, sizeof(*s->call));
}

struct import_gemm *import_add_gemm(struct import_set *s)
{
	return push_zeroed((void **)&s->gemm, &s->ngemm, &s->capgemm, sizeof(*s->gemm));
}

struct import_evrec *import_add_evrec(struct import_set *s)
{
	return push_zeroed((void **)&s->evrec, &s->nevrec, &s->capevrec, sizeof(*s->evrec));
}

struct import_cpu_span *import_add_cpu_span(struct import_set *s)
{
	struct import_cpu_span *c =
		push_zeroed((void **)&s->cpu, &s->ncpu, &s->capcpu, sizeof(*s->cpu));
	if (c)
		c->seq = s->ncpu - 1;
	return c;
}

static int cmp_evrec(const void *a, const void *b)
{
	const struct import_evrec *x = a, *y = b;
	if (x->corr != y->corr)
		return x->corr < y->corr ? -1 : 1;
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	return x->device < y->device ? -1 : x->device > y->device;
}

static int cmp_gemm(const void *a, const void *b)
{
	const struct import_gemm *x = a, *y = b;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->cpu_ns != y->cpu_ns)
		return x->cpu_ns < y->cpu_ns ? -1 : 1;
	return 0;
}

/* Which of a convolution's two backward passes the op's kernel named
 * name belongs to: 0 the inputs' gradient, 1 the filters'.  PyTorch runs
 * the inputs' first (one cuDNN call, then the other, inside one
 * aten::convolution_backward), so the filters' pass starts at the first
 * kernel that names it ("wgrad": sm80_xmma_wgrad_implicit_gemm_...,
 * wgrad_alg0_engine, winogradWgradData4x4) or, after a kernel naming the
 * inputs' ("dgrad": dgrad_engine, sm80_xmma_dgrad_...), at the first one
 * that does not (the filters' pass's layout transforms and GEMMs: on our
 * H200's ResNet-50 profile every op ran dgrad_engine, then nchwToNhwc
 * twice and sm80_xmma_wgrad, or winogradWgrad's three transforms around
 * an SGEMM).  Kernels that name neither before any that does (FFT's)
 * stay with the inputs'.  *state (zeroed per op) carries bit 0: a dgrad
 * kernel seen, bit 1: the filters' pass begun. */
static int bwd_part(const char *name, uint8_t *state)
{
	if (*state & 2)
		return 1;
	if (name && strcasestr(name, "wgrad")) {
		*state |= 2;
		return 1;
	}
	if (name && strcasestr(name, "dgrad")) {
		*state |= 1;
		return 0;
	}
	if (*state & 1) {
		*state |= 2;
		return 1;
	}
	return 0;
}

/* The GEMM op (index into s->gemm, sorted by cmp_gemm) whose CPU span
 * holds a launch at t on thread; -1 none.  It is the last one of the
 * thread starting at or before t, if still open: GEMM ops do not nest,
 * and of nested convolution ops that is the innermost, whose kernels are
 * the convolution's (a kernel an outer one launches after the inner one
 * returned, such as the bias addition, belongs to none). */
static long gemm_of(const struct import_set *s, uint32_t thread, uint64_t t)
{
	size_t lo = 0, hi = s->ngemm;
	while (lo < hi) {     /* first op after (thread, t) */
		size_t mid = lo + (hi - lo) / 2;
		const struct import_gemm *g = &s->gemm[mid];
		if (g->thread < thread || (g->thread == thread && g->cpu_ns <= t))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	const struct import_gemm *g = &s->gemm[lo - 1];
	return g->thread == thread && t < g->cpu_end_ns ? (long)(lo - 1) : -1;
}

struct import_device *import_device_slot(struct import_set *s, int32_t id)
{
	for (size_t i = 0; i < s->ndevs; i++)
		if (s->devs[i].id == id)
			return &s->devs[i];
	struct import_device *d = realloc(s->devs, (s->ndevs + 1) * sizeof(*d));
	if (!d)
		return NULL;
	s->devs = d;
	d = &s->devs[s->ndevs++];
	memset(d, 0, sizeof(*d));
	d->id = id;
	return d;
}

uint32_t import_intern(struct import_set *set, const char *s, size_t len)
{
	if (len > UINT32_MAX / 2)
		return 0;
	int64_t id = strpool_intern(&set->strs, s, len, NULL);
	return id < 0 ? 0 : (uint32_t)id + 1;
}

const char *import_string(const struct import_set *set, uint32_t id)
{
	return id >= 1 ? strpool_get(&set->strs, id - 1, NULL) : NULL;
}

int import_step_match(const char *step, const char *n, size_t len, int64_t *number)
{
	if (!step)
		step = "ProfilerStep";
	size_t sl = strlen(step);
	if (len < sl || memcmp(n, step, sl) != 0)
		return 0;
	*number = -1;
	if (len == sl)
		return 1;
	if (n[sl] != '#' || len == sl + 1 || len - sl - 1 > 9)
		return 0;
	int64_t v = 0;
	for (size_t i = sl + 1; i < len; i++) {
		if (n[i] < '0' || n[i] > '9')
			return 0;
		v = v * 10 + (n[i] - '0');
	}
	*number = v;
	return 1;
}

void import_note_range(struct import_set *set, const char *n, size_t len)
{
	size_t base = len;
	while (base && n[base - 1] >= '0' && n[base - 1] <= '9')
		base--;
	if (base == len || base < 2 || n[base - 1] != '#')
		return;
	base--;
	if (base > sizeof(set->ranges[0].name) - 1)
		base = sizeof(set->ranges[0].name) - 1;
	for (size_t i = 0; i < set->nranges; i++)
		if (strlen(set->ranges[i].name) == base && !memcmp(set->ranges[i].name, n, base)) {
			set->ranges[i].count++;
			return;
		}
	if (set->nranges == IMPORT_MAX_RANGES)
		return;
	struct import_range *r = &set->ranges[set->nranges++];
	memcpy(r->name, n, base);
	r->name[base] = '\0';
	r->count = 1;
}

/* The reason for a --step that names no range: the numbered ranges the
 * input has instead. */
static void no_step(const struct import_set *s, char *err, size_t errlen)
{
	size_t off = (size_t)snprintf(err, errlen, "no range named '%s' in '%s'", s->step, s->input);
	if (!s->nranges) {
		if (off < errlen)
			snprintf(err + off, errlen - off, "; it has no numbered ranges (such as "
				 "ProfilerStep#N) either: leave out --step to analyze the whole trace");
		return;
	}
	for (size_t i = 0; i < s->nranges && off < errlen; i++)
		off += (size_t)snprintf(err + off, errlen - off, "%s%s#N (%llu)",
					i ? ", " : "; its steps: ", s->ranges[i].name,
					(unsigned long long)s->ranges[i].count);
}

/* ---- join and order ------------------------------------------------- */

static int cmp_call(const void *a, const void *b)
{
	const struct import_call *x = a, *y = b;
	if (x->corr != y->corr)
		return x->corr < y->corr ? -1 : 1;
	return x->cpu_ns < y->cpu_ns ? -1 : x->cpu_ns > y->cpu_ns;
}

/* First call with corr, or NULL. */
static const struct import_call *find_call(const struct import_set *s, uint64_t corr)
{
	size_t lo = 0, hi = s->ncall;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->call[mid].corr < corr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->ncall && s->call[lo].corr == corr ? &s->call[lo] : NULL;
}

/* What an entry of the write order stands for; at equal times an
 * iteration's start comes before the work launched at that instant. */
enum { ORD_STEP = 0, ORD_RECORD = 1 };

struct order {
	uint64_t key, start;   /* CPU time (or GPU start), GPU start       */
	size_t idx;            /* index into set->ev                        */
	int what;              /* ORD_*                                     */
};

static int cmp_order(const void *a, const void *b)
{
	const struct order *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->what != y->what)
		return x->what < y->what ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int cmp_step(const void *a, const void *b)
{
	const struct import_event *x = *(const struct import_event *const *)a;
	const struct import_event *y = *(const struct import_event *const *)b;
	return x->cpu_ns < y->cpu_ns ? -1 : x->cpu_ns > y->cpu_ns;
}

struct gsync {
	uint64_t corr, stream;
	uint64_t event;        /* the event a wait names, 0 none            */
	int32_t device;
	uint8_t has_device;
};

static int cmp_gsync(const void *a, const void *b)
{
	const struct gsync *x = a, *y = b;
	return x->corr < y->corr ? -1 : x->corr > y->corr;
}

static const struct gsync *find_gsync(const struct gsync *g, size_t n, uint64_t corr)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g[mid].corr < corr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && g[lo].corr == corr ? &g[lo] : NULL;
}

/* The step whose CPU interval holds t, by binary search over steps sorted
 * by start (steps do not overlap); -1 when none. */
static int32_t step_of(struct import_event *const *steps, size_t n, uint64_t t)
{
	if (!t)
		return -1;
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (steps[mid]->cpu_ns <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	const struct import_event *s = steps[lo - 1];
	return t < s->cpu_end_ns ? s->iteration : -1;
}

/* Picks the device to import: opts->device, else the one with the most
 * kernels (lowest ordinal on ties), else the only described device. */
static int pick_device(const struct import_set *s, int want, int *out,
		       char *err, size_t errlen)
{
	if (want >= 0) {
		*out = want;
		return 0;
	}
	int best = -1;
	uint64_t best_n = 0;
	int seen[64];
	uint64_t cnt[64];
	size_t nseen = 0;
	for (size_t i = 0; i < s->nev; i++) {
		const struct import_event *e = &s->ev[i];
		if (e->kind != IMPORT_KERNEL || !e->has_device)
			continue;
		size_t j = 0;
		while (j < nseen && seen[j] != e->device)
			j++;
		if (j == nseen) {
			if (nseen == 64)
				continue;
			seen[nseen] = e->device;
			cnt[nseen++] = 0;
		}
		cnt[j]++;
	}
	for (size_t j = 0; j < nseen; j++)
		if (cnt[j] > best_n || (cnt[j] == best_n && seen[j] < best)) {
			best = seen[j];
			best_n = cnt[j];
		}
	if (best < 0 && s->ndevs == 1)
		best = s->devs[0].id;
	if (best < 0 && s->ndevs > 1) {
		snprintf(err, errlen, "the trace has no kernels and %zu devices; "
			 "choose one with --device", s->ndevs);
		return SURFER_EDEVICE;
	}
	*out = best;
	return 0;
}

static void suggest(const char *name, char *buf, size_t len)
{
	const char *ids[3];
	size_t n = gpu_suggest(name, ids, 3);
	buf[0] = '\0';
	if (!n)
		return;
	size_t off = (size_t)snprintf(buf, len, " (closest known: ");
	for (size_t i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "", ids[i]);
	if (off < len)
		snprintf(buf + off, len - off, ")");
}

/* Fills h->device from the input's description and the database entry g. */
static void fill_device(struct trace_device *d, const struct trace_device *in,
			const struct gpu_spec *g, int forced)
{
	if (in)
		*d = *in;
	else
		memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", forced || !in || !in->name[0] ? g->name : in->name);
	/* An explicit --origin wins over the numbers the input reported, so
	 * the header never describes two different GPUs at once. */
	if (forced || !d->sm_count)
		d->sm_count = g->sms;
	if (forced || !d->cc_major) {
		/* an AMD part has no compute capability: 0.0 */
		int amd = gpu_cc_is_amd(g->cc);
		d->cc_major = amd ? 0 : g->cc / 10;
		d->cc_minor = amd ? 0 : g->cc % 10;
	}
	if (forced || !d->clock_khz)
		d->clock_khz = g->boost_clock_mhz * 1000u;
	if (forced || !d->l2_bytes)
		d->l2_bytes = (uint32_t)(g->l2_mb * 1024.0 * 1024.0);
	if (forced || !d->mem_bytes)
		d->mem_bytes = (uint64_t)gpu_mem_bytes(g);  /* as the driver reports it */
}

static uint64_t *counter_of(struct import_stats *st, int kind)
{
	switch (kind) {
	case IMPORT_KERNEL: return &st->kernels;
	case IMPORT_MEMCPY: return &st->memcpys;
	case IMPORT_MEMSET: return &st->memsets;
	default: return &st->syncs;
	}
}

/* Writes one iteration-boundary marker. */
static int write_marker(struct trace_writer *w, uint64_t seq, uint32_t name,
			uint32_t thread, uint64_t t, int32_t iteration)
{
	struct trace_record rec;
	memset(&rec, 0, sizeof(rec));
	rec.type = TRACE_MARKER;
	rec.u.marker.seq = seq;
	rec.u.marker.kind = TRACE_MARK_ITERATION;
	rec.u.marker.name = name;
	rec.u.marker.thread = thread;
	rec.u.marker.cpu_ns = t;
	rec.u.marker.iteration = iteration;
	return trace_writer_record(w, &rec);
}

/* The writer's id of pool string id, interning it on first use. */
static uint32_t wstring(struct trace_writer *w, const struct import_set *s,
			uint32_t *wid, uint32_t id)
{
	/* a name longer than the format allows (no real kernel's) is cut */
	if (id && !wid[id]) {
		uint32_t len;
		const char *str = strpool_get(&s->strs, id - 1, &len);
		wid[id] = trace_writer_intern(w, str, len > TRACE_STRING_MAX ? TRACE_STRING_MAX : len);
	}
	return id ? wid[id] : 0;
}

static int write_trace(struct import_set *s, const struct trace_header *h,
		       const struct order *ord, size_t nord,
		       struct import_event *const *steps, size_t nsteps,
		       const char *path, struct import_stats *st,
		       char *err, size_t errlen)
{
	int werr = 0;
	struct trace_writer *w = trace_writer_open(path, 0, &werr);
	if (!w) {
		snprintf(err, errlen, "cannot create '%s': %s", path,
			 werr == TRACE_ENOMEM ? "out of memory" : strerror(errno));
		return SURFER_EWRITE;
	}
	uint32_t *wid = calloc((size_t)strpool_count(&s->strs) + 1, sizeof(*wid));
	/* per GEMM op, the seq of its written GEMM record (0: not yet); of a
	 * convolution's backward op, that of its inputs' gradient, its
	 * filters' in gseq_wgrad, and where its kernels are (bwd_part()) */
	uint64_t *gseq = s->ngemm ? calloc(s->ngemm, sizeof(*gseq)) : NULL;
	uint64_t *gseq_wgrad = s->ngemm ? calloc(s->ngemm, sizeof(*gseq_wgrad)) : NULL;
	uint8_t *bwd_state = s->ngemm ? calloc(s->ngemm, 1) : NULL;
	int rc = wid && ((gseq && gseq_wgrad && bwd_state) || !s->ngemm) ? trace_writer_header(w, h)
									   : TRACE_ENOMEM;
	uint64_t seq = 0;
	struct trace_record rec;
	for (size_t i = 0; rc == 0 && i < nord; i++) {
		const struct import_event *e = &s->ev[ord[i].idx];
		if (ord[i].what == ORD_STEP) {
			uint32_t name = wstring(w, s, wid, e->name);
			if (e->name && !name) {
				rc = TRACE_ENOMEM;
				break;
			}
			rc = write_marker(w, ++seq, name, e->thread, ord[i].key, e->iteration);
			st->markers++;
			continue;
		}
		memset(&rec, 0, sizeof(rec));
		rec.type = (enum trace_type)e->kind;
		uint32_t name = wstring(w, s, wid, e->name);
		if (e->name && !name) {
			rc = TRACE_ENOMEM;
			break;
		}
		switch (e->kind) {
		case IMPORT_KERNEL: {
			/* A kernel launched inside a GEMM op follows that op's
			 * GEMM record (written before its first kernel), as the
			 * recorder links kernels to the cuBLAS call around them. */
			long gi = e->cpu_ns ? gemm_of(s, e->thread, e->cpu_ns) : -1;
			uint64_t lib = 0, *slot = gi >= 0 ? &gseq[gi] : NULL;
			int wgrad = gi >= 0 && s->gemm[gi].conv_bwd == 3 &&
				    bwd_part(import_string(s, e->name), &bwd_state[gi]);
			if (wgrad)
				slot = &gseq_wgrad[gi];
			if (gi >= 0 && !(lib = *slot)) {
				/* the op's record, written once before its first
				 * kernel: the OP record of a collective, a fused
				 * attention call or a row-wise op, a convolution's
				 * (as the recorder links kernels to the cuDNN call),
				 * else its GEMM */
				const struct import_gemm *g = &s->gemm[gi];
				struct trace_record lr;
				uint64_t *count;
				memset(&lr, 0, sizeof(lr));
				if (g->collective) {
					uint32_t ranks = g->ranks ? g->ranks : s->world_size;
					lr.type = TRACE_OP;
					lr.u.op = (struct trace_op){
						.seq = seq + 1, .kind = TRACE_OPK_COMM,
						.collective = (enum trace_collective)g->collective,
						.dtype = g->dtype, .ranks = ranks, .rank = -1,
						.bytes = g->bytes * (g->per_rank && ranks ? ranks : 1),
						.stream = e->stream, .thread = g->thread, .cpu_ns = g->cpu_ns };
					count = &st->collectives;
				} else if (g->attn.impl != TRACE_ATTN_NONE) {
					lr.type = TRACE_OP;
					lr.u.op = (struct trace_op){
						.seq = seq + 1, .kind = TRACE_OPK_ATTENTION,
						.dtype = g->dtype, .flops = g->flops, .bytes = g->bytes,
						.stream = e->stream, .thread = g->thread, .cpu_ns = g->cpu_ns,
						.attn = g->attn, .rank = -1 };
					count = &st->attentions;
				} else if (g->rows_op) {
					lr.type = TRACE_OP;
					lr.u.op = (struct trace_op){
						.seq = seq + 1, .kind = (enum trace_op_kind)g->rows_op,
						.dtype = g->dtype, .m = g->m, .n = g->n, .batch = g->batch,
						.flops = g->flops, .bytes = g->bytes, .stream = e->stream,
						.thread = g->thread, .cpu_ns = g->cpu_ns, .rank = -1 };
					count = &st->rows_ops;
				} else if (g->conv.nbdims) {
					lr.type = TRACE_CONV;
					lr.u.conv = g->conv;
					if (wgrad)
						lr.u.conv.dir = TRACE_CONV_BWD_FILTER;
					lr.u.conv.seq = seq + 1;
					lr.u.conv.stream = e->stream;
					lr.u.conv.thread = g->thread;
					lr.u.conv.cpu_ns = g->cpu_ns;
					count = &st->convs;
				} else {
					lr.type = TRACE_GEMM;
					/* cuBLAS's column-major view of the row-major
					 * product: m and n swap */
					lr.u.gemm = (struct trace_gemm){
						.seq = seq + 1, .api = TRACE_GEMM_IMPORTED,
						.m = g->n, .n = g->m, .k = g->k, .batch = g->batch,
						.trans_a = g->b_transposed,
						.a_type = g->dtype, .b_type = g->dtype, .c_type = g->dtype,
						.compute_type = g->dtype == TRACE_DT_F64 ? TRACE_DT_F64 : TRACE_DT_F32,
						.epilogue = 1, .stream = e->stream, .thread = g->thread,
						.cpu_ns = g->cpu_ns };
					count = &st->gemms;
				}
				int lrc = trace_writer_record(w, &lr);
				if (lrc == 0) {
					lib = *slot = ++seq;
					(*count)++;
				} else if (lrc != TRACE_EINVAL) {
					rc = lrc;
					break;
				}
			}
			struct trace_kernel *k = &rec.u.kernel;
			k->lib_call = lib;
			k->seq = ++seq;
			k->name = name;
			memcpy(k->grid, e->grid, sizeof(k->grid));
			memcpy(k->block, e->block, sizeof(k->block));
			k->regs = e->regs;
			k->static_smem = e->static_smem;
			k->dyn_smem = e->dyn_smem;
			k->stream = e->stream;
			k->thread = e->thread;
			k->flags = e->flags;
			k->cpu_ns = e->cpu_ns;
			k->start_ns = e->start_ns;
			k->end_ns = e->end_ns;
			k->iteration = step_of(steps, nsteps, e->cpu_ns);
			break;
		}
		case IMPORT_MEMCPY:
		case IMPORT_MEMSET: {
			struct trace_copy *c = &rec.u.copy;
			c->seq = ++seq;
			c->bytes = e->bytes;
			c->kind = e->kind == IMPORT_MEMCPY ? (enum trace_copy_kind)e->sub
							   : TRACE_COPY_UNKNOWN;
			c->async = e->async;
			c->stream = e->stream;
			c->thread = e->thread;
			c->cpu_ns = e->cpu_ns;
			c->cpu_end_ns = e->cpu_end_ns;
			c->start_ns = e->start_ns;
			c->end_ns = e->end_ns;
			c->host_mem = e->kind == IMPORT_MEMCPY ? (enum trace_host_mem)e->host_mem
							       : TRACE_HOST_UNKNOWN;
			break;
		}
		default: { /* IMPORT_SYNC */
			struct trace_sync *y = &rec.u.sync;
			y->seq = ++seq;
			y->kind = (enum trace_sync_kind)e->sub;
			y->stream = e->stream;
			y->thread = e->thread;
			y->cpu_ns = e->cpu_ns;
			y->cpu_end_ns = e->cpu_end_ns;
			y->event = e->event;
			break;
		}
		}
		if (rc)
			break;
		rc = trace_writer_record(w, &rec);
		if (rc == TRACE_EINVAL) {
			/* the trace module refuses values no launch can have
			 * (a zero grid, 300 registers): skip the record */
			st->invalid++;
			seq--;
			rc = 0;
			continue;
		}
		if (rc == 0) {
			*counter_of(st, e->kind) += 1;
			if (e->kind == IMPORT_SYNC && e->sub == TRACE_SYNC_EVENT_RECORD)
				st->event_records++;
			else if (e->kind == IMPORT_SYNC && e->event)
				st->event_waits++;
		}
	}
	free(wid);
	free(gseq);
	free(gseq_wgrad);
	free(bwd_state);
	if (rc == 0)
		rc = trace_writer_finish(w);
	int saved = errno;
	trace_writer_free(w);
	if (rc) {
		unlink(path);
		snprintf(err, errlen, "cannot write '%s': %s", path,
			 rc == TRACE_ENOMEM ? "out of memory" : strerror(saved));
		return rc == TRACE_ENOMEM ? SURFER_ENOMEM : SURFER_EWRITE;
	}
	return 0;
}

int import_finish(struct import_set *s, const struct import_opts *opts,
		  const char *out_path, struct import_stats *stats,
		  char *err, size_t errlen)
{
	struct import_stats dummy;
	struct import_stats *st = stats ? stats : &dummy;
	memset(st, 0, sizeof(*st));
	int device = -1;
	int rc = pick_device(s, opts->device, &device, err, errlen);
	if (rc)
		return rc;
	st->device = device;

	/* the origin GPU */
	const struct trace_device *in = NULL;
	for (size_t i = 0; i < s->ndevs; i++)
		if (s->devs[i].id == device || device < 0)
			in = &s->devs[i].dev;
	if (in)
		snprintf(st->device_name, sizeof(st->device_name), "%s", in->name);
	const struct gpu_spec *g = NULL;
	char hint[160];
	if (opts->origin) {
		g = gpu_find(opts->origin);
		if (!g) {
			suggest(opts->origin, hint, sizeof(hint));
			snprintf(err, errlen, "unknown GPU '%s' for --origin%s",
				 opts->origin, hint);
			return SURFER_EDEVICE;
		}
	} else if (!in || !in->name[0]) {
		if (device >= 0)
			snprintf(err, errlen, "the trace does not name its GPU (device %d); "
				 "name it with --origin GPU", device);
		else
			snprintf(err, errlen, "the trace does not name its GPU; "
				 "name it with --origin GPU");
		return SURFER_EDEVICE;
	} else {
		g = gpu_find(in->name);
		if (!g) {
			suggest(in->name, hint, sizeof(hint));
			snprintf(err, errlen, "GPU '%s' is not in the GPU database%s; "
				 "name the GPU the trace was recorded on with --origin",
				 in->name, hint);
			return SURFER_EDEVICE;
		}
	}

	/* join API calls to the activities they issued */
	if (s->ncall > 1)
		qsort(s->call, s->ncall, sizeof(*s->call), cmp_call);
	/* One event record per record that waits name, at its cudaEventRecord
	 * call.  A record whose call the trace lacks (made before the
	 * profiler's window) is left out: the waits naming it then wait for
	 * nothing, since the work it covers ran before the trace. */
	if (s->nevrec > 1)
		qsort(s->evrec, s->nevrec, sizeof(*s->evrec), cmp_evrec);
	for (size_t i = 0; i < s->nevrec; i++) {
		const struct import_evrec *r = &s->evrec[i];
		if (i && r->corr == s->evrec[i - 1].corr)
			continue;
		if (device >= 0 && r->has_device && r->device != device)
			continue;
		const struct import_call *c = find_call(s, r->corr);
		if (!c)
			continue;
		struct import_event *e = import_add_event(s);
		if (!e) {
			snprintf(err, errlen, "out of memory");
			return SURFER_ENOMEM;
		}
		e->kind = IMPORT_SYNC;
		e->sub = TRACE_SYNC_EVENT_RECORD;
		e->stream = r->stream;
		e->thread = c->thread;
		e->cpu_ns = c->cpu_ns;
		e->cpu_end_ns = c->cpu_end_ns;
		e->corr = r->corr;
		e->event = r->corr;
	}
	s->nevrec = 0;   /* they are events now */
	size_t ngs = 0;
	for (size_t i = 0; i < s->nev; i++)
		ngs += s->ev[i].kind == IMPORT_GPU_SYNC;
	struct gsync *gs = malloc((ngs ? ngs : 1) * sizeof(*gs));
	struct order *ord = malloc((s->nev ? s->nev : 1) * sizeof(*ord));
	struct import_event **steps = malloc((s->nev ? s->nev : 1) * sizeof(*steps));
	if (!gs || !ord || !steps) {
		free(gs);
		free(ord);
		free(steps);
		snprintf(err, errlen, "out of memory");
		return SURFER_ENOMEM;
	}
	ngs = 0;
	for (size_t i = 0; i < s->nev; i++) {
		const struct import_event *e = &s->ev[i];
		if (e->kind == IMPORT_GPU_SYNC)
			gs[ngs++] = (struct gsync){ e->corr, e->stream, e->event,
						    e->device, e->has_device };
	}
	if (ngs > 1)
		qsort(gs, ngs, sizeof(*gs), cmp_gsync);

	size_t nord = 0, nsteps = 0;
	for (size_t i = 0; i < s->nev; i++) {
		struct import_event *e = &s->ev[i];
		switch (e->kind) {
		case IMPORT_KERNEL:
		case IMPORT_MEMCPY:
		case IMPORT_MEMSET: {
			if (device >= 0 && e->has_device && e->device != device) {
				st->skipped++;
				continue;
			}
			const struct import_call *c = e->corr ? find_call(s, e->corr) : NULL;
			if (c) {
				e->cpu_ns = c->cpu_ns;
				e->thread = c->thread;
				e->flags |= c->flags;
				/* A copy run by a graph launch does not return
				 * with the launch call: its end is not the copy's. */
				if (e->kind != IMPORT_KERNEL) {
					e->async = c->async;
					e->cpu_end_ns = c->flags & TRACE_KF_GRAPH ? 0 : c->cpu_end_ns;
				}
			} else if (!e->cpu_ns) {
				st->unmatched++;
			}
			break;
		}
		case IMPORT_SYNC: {
			if (e->sub == TRACE_SYNC_EVENT_RECORD) {
				/* added above, already on this device */
				ord[nord++] = (struct order){ e->cpu_ns, e->corr, i, ORD_RECORD };
				continue;
			}
			const struct gsync *y = e->corr ? find_gsync(gs, ngs, e->corr) : NULL;
			/* A stream wait is only worth writing with the event it
			 * waits for (its cuda_sync names the record): so traces
			 * without those fields import as they did. */
			if (e->sub == TRACE_SYNC_STREAM_WAIT_EVENT && !(y && y->event))
				continue;
			if (y) {
				if (device >= 0 && y->has_device && y->device != device) {
					st->skipped++;
					continue;
				}
				if (e->sub != TRACE_SYNC_CTX)
					e->stream = y->stream;
				if (e->sub == TRACE_SYNC_STREAM_WAIT_EVENT || e->sub == TRACE_SYNC_EVENT)
					e->event = y->event;
			}
			if (e->event) {
				/* At equal call times (traces in whole microseconds)
				 * records and waits keep their call order, which
				 * their correlation ids give. */
				ord[nord++] = (struct order){ e->cpu_ns, e->corr, i, ORD_RECORD };
				continue;
			}
			break;
		}
		case IMPORT_STEP:
			steps[nsteps++] = e;
			continue;
		default:
			continue;
		}
		uint64_t key = e->cpu_ns ? e->cpu_ns : e->start_ns;
		ord[nord++] = (struct order){ key, e->start_ns, i, ORD_RECORD };
	}
	free(gs);
	/* iteration boundaries: one at each step's start.  No boundary marks
	 * the last step's end: an iteration runs from its boundary to the
	 * next one, the last to the end of all work (its GPU tail included),
	 * which is how the timeline counts them. */
	if (nsteps > 1)
		qsort(steps, nsteps, sizeof(*steps), cmp_step);
	/* A range that starts inside the previous one (a nested range of the
	 * same name) is not a new iteration; unnumbered steps count up. */
	size_t kept = 0;
	int32_t ordinal = 0;
	for (size_t i = 0; i < nsteps; i++) {
		if (kept && steps[i]->cpu_ns < steps[kept - 1]->cpu_end_ns) {
			st->nested++;
			continue;
		}
		if (steps[i]->iteration < 0)
			steps[i]->iteration = ordinal;
		ordinal++;
		steps[kept++] = steps[i];
	}
	nsteps = kept;
	st->steps = nsteps;
	if (s->step && !nsteps) {
		free(ord);
		free(steps);
		no_step(s, err, errlen);
		return SURFER_EINVAL;
	}
	/* Work launched after the last iteration ends belongs to none (the
	 * profiler's closing synchronize, a run's tail): the timeline would
	 * count it into the last iteration, so it is not written. */
	if (nsteps) {
		uint64_t last_end = steps[nsteps - 1]->cpu_end_ns;
		size_t n = 0;
		for (size_t i = 0; i < nord; i++) {
			if (ord[i].key >= last_end) {
				st->after++;
				st->after_kernels += s->ev[ord[i].idx].kind == IMPORT_KERNEL;
				continue;
			}
			ord[n++] = ord[i];
		}
		nord = n;
	}
	for (size_t i = 0; i < nsteps; i++) {
		size_t idx = (size_t)(steps[i] - s->ev);
		ord[nord++] = (struct order){ steps[i]->cpu_ns, 0, idx, ORD_STEP };
	}
	if (nord > 1)
		qsort(ord, nord, sizeof(*ord), cmp_order);
	if (s->ngemm > 1)
		qsort(s->gemm, s->ngemm, sizeof(*s->gemm), cmp_gemm);
	st->skipped += s->skipped;
	st->conv_unsized = s->conv_unsized;
	st->attn_unsized = s->attn_unsized;
	st->attn_estimated = s->attn_estimated;
	st->rows_unsized = s->rows_unsized;

	uint64_t first = nord ? ord[0].key : UINT64_MAX;

	struct trace_header h;
	memset(&h, 0, sizeof(h));
	snprintf(h.tool_version, sizeof(h.tool_version), "%s", SURFER_VERSION);
	snprintf(h.cmdline, sizeof(h.cmdline), "surfer-import %s %s", s->source, s->input);
	h.timing = TRACE_TIMING_IMPORTED;
	snprintf(h.timing_note, sizeof(h.timing_note), "%.15s trace; device reported as '%.80s'",
		 s->source, in && in->name[0] ? in->name : "?");
	if (first != UINT64_MAX && (s->base_unix_ns || first > 1000000000000000000ull))
		h.start_unix_ns = s->base_unix_ns + first;
	fill_device(&h.device, in, g, opts->origin != NULL);
	h.world_size = s->world_size;
	if (!h.device.driver_version)
		h.device.driver_version = s->driver_version;
	if (!h.device.runtime_version)
		h.device.runtime_version = s->runtime_version;
	snprintf(st->origin, sizeof(st->origin), "%s", h.device.name);

	rc = write_trace(s, &h, ord, nord, steps, nsteps, out_path, st, err, errlen);
	free(ord);
	free(steps);
	return rc;
}
