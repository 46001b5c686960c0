/*
 * profile.c - NeuSight's per-operator profiles (profile.h): the graph
 * nodes of one eager forward pass, read into NeuSight kernel rows,
 * predicted and compared per kernel class, and the AMD scale fitted
 * from them.
 *
 * A profile is a torch.fx graph dumped as CSV: op (call_module,
 * call_function, call_method, ...), target, input_shapes
 * ("[[8, 512, 1024], [1]]"), output_shape ("(8, 512, 1024)"), meta (the
 * nn_module_stack, whose last class is a call_module's own) and
 * fw_latency in ms.  Only the first transformer layer is in it: nodes
 * under "<...>.h.0", ".layer.0", ".layers.0" or ".block.0" run num_layer
 * times per iteration.
 */
#include "tools/lab/profile.h"
#include "tools/lab/stats.h"
#include "trace/surfer_err.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "analyzer/model/model.h"
#include "gpu_specs/gpu.h"
#include "predictor/predict.h"
#include "trace/csv.h"

#define PROG "surfer-bench"
#define MAXSHAPES 4
#define MAXRANK 8

struct shape {
	unsigned rank;
	uint64_t d[MAXRANK];
};

static double numel(const struct shape *s)
{
	double n = 1;
	for (unsigned i = 0; i < s->rank; i++)
		n *= (double)s->d[i];
	return n;
}

/* "[[8, 16, 512, 512], [8, 1, 1, 512]]": the lists at depth 2.  Returns
 * how many, or -1 when a list is too long or the text is not one. */
static int parse_shapes(const char *p, struct shape *v, int max)
{
	int depth = 0, n = 0;
	for (; *p; p++) {
		if (*p == '[') {
			if (++depth == 2) {
				if (n == max)
					return -1;
				v[n++].rank = 0;
			}
		} else if (*p == ']') {
			depth--;
		} else if (depth == 2 && *p >= '0' && *p <= '9') {
			char *end;
			unsigned long long x = strtoull(p, &end, 10);
			struct shape *s = &v[n - 1];
			if (s->rank == MAXRANK)
				return -1;
			s->d[s->rank++] = x;
			p = end - 1;
		}
	}
	return depth == 0 ? n : -1;
}

/* "(8, 512, 1024)" or "(1,)"; -1 for anything else (nested tuples). */
static int parse_tuple(const char *p, struct shape *s)
{
	s->rank = 0;
	if (*p != '(')
		return -1;
	for (p++; *p && *p != ')'; p++) {
		if (*p == '(')
			return -1;
		if (*p >= '0' && *p <= '9') {
			char *end;
			if (s->rank == MAXRANK)
				return -1;
			s->d[s->rank++] = strtoull(p, &end, 10);
			p = end - 1;
		}
	}
	return *p == ')' && s->rank ? 0 : -1;
}

/* The function or method a call_function / call_method target names:
 * "<built-in function add>" -> add, "<built-in method addmm of type
 * object at 0x...>" -> addmm, "<function softmax at 0x...>" -> softmax. */
static void target_name(const char *t, char *out, size_t sz)
{
	static const char *const pre[] = {"<built-in function ", "<built-in method ", "<function "};
	for (size_t i = 0; i < sizeof pre / sizeof *pre; i++)
		if (!strncmp(t, pre[i], strlen(pre[i]))) {
			t += strlen(pre[i]);
			break;
		}
	size_t n = strcspn(t, " >");
	if (n >= sz)
		n = sz - 1;
	memcpy(out, t, n);
	out[n] = 0;
}

/* The class of a call_module node: the last "<class 'a.b.C'>" of its
 * meta, without the module path. */
static void module_class(const char *meta, char *out, size_t sz)
{
	const char *c = NULL, *p = meta;
	while ((p = strstr(p, "<class '")))
		c = p += 8;
	out[0] = 0;
	if (!c)
		return;
	size_t n = strcspn(c, "'");
	const char *dot = c;
	for (const char *q = c; q < c + n; q++)
		if (*q == '.')
			dot = q + 1;
	n -= (size_t)(dot - c);
	if (n >= sz)
		n = sz - 1;
	memcpy(out, dot, n);
	out[n] = 0;
}

/* Whether meta puts the node in the first of the repeated layers. */
static int in_first_layer(const char *meta)
{
	static const char *const pat[] = {".h.0", ".layer.0", ".layers.0", ".block.0"};
	for (size_t i = 0; i < sizeof pat / sizeof *pat; i++)
		for (const char *p = meta; (p = strstr(p, pat[i])); p++) {
			char c = p[strlen(pat[i])];
			if (!(c >= '0' && c <= '9'))
				return 1;
		}
	return 0;
}

static void set_vec(struct prof_op *o, const char *op, const struct shape *s)
{
	struct ns_row *r = &o->row;
	o->nin = 1;
	o->flops = !strcmp(op, "gelu") ? 8 : !strcmp(op, "tanh") ? 4 : 1;
	r->op = op;
	r->ndims = 2;
	r->dims[1] = s->rank ? s->d[s->rank - 1] : 1;
	r->dims[0] = r->dims[1] ? (uint64_t)(numel(s) / (double)r->dims[1]) : 0;
}

static void set_gemm(struct prof_op *o, const char *op, uint64_t b, uint64_t m,
		     uint64_t red, uint64_t out)
{
	struct ns_row *r = &o->row;
	/* NeuSight's B, M, N, K: N is the reduction, K the output's columns. */
	r->op = op;
	r->ndims = 4;
	r->dims[0] = b;
	r->dims[1] = m;
	r->dims[2] = red;
	r->dims[3] = out;
}

/* A float operand broadcast over an outer dimension (a [B,1,S,S] mask
 * added to [B,H,S,S] scores) is read again for each repetition unless
 * what the kernel streams between two uses stays in L2: the rule the
 * model-config path applies (pred_reread_bytes()).  The reuse distance is
 * the output's elements inside the operand's innermost broadcast
 * dimension, times the bytes of the output and every tensor input. */
static void broadcast_reads(struct prof_op *o, const struct shape *in, int nin, int big,
			    int tensors)
{
	const struct shape *out = &in[big];
	for (int j = 0; j < nin; j++) {
		const struct shape *s = &in[j];
		if (j == big || numel(s) <= 1 || s->rank > out->rank)
			continue;
		double inner = 1;
		int bdim = -1;
		for (unsigned d = 0; d < out->rank; d++) {
			unsigned od = out->rank - 1 - d;
			uint64_t sd = d < s->rank ? s->d[s->rank - 1 - d] : 1;
			if (sd == 1 && out->d[od] > 1) {
				bdim = (int)od;
				break;
			}
			inner *= (double)out->d[od];
		}
		if (bdim < 0)
			continue;
		o->reread_bytes += (numel(out) - numel(s)) * 4;
		o->reuse_bytes = fmax(o->reuse_bytes, inner * 4 * (tensors + 1));
	}
}

/* Element-wise arithmetic: NeuSight's binary form when two inputs are
 * tensors, its "u" (tensor and scalar) form otherwise. */
static int set_arith(struct prof_op *o, const char *fn, const struct shape *in, int nin)
{
	static const struct { const char *fn, *bin, *un; } map[] = {
		{"add", "add", "addu"}, {"sub", "add", "addu"}, {"rsub", "add", "addu"},
		{"where", "add", "addu"}, {"mul", "mul", "mulu"}, {"truediv", "div", "divu"},
		{"div", "div", "divu"}, {"pow", "pow", "powu"},
	};
	for (size_t i = 0; i < sizeof map / sizeof *map; i++) {
		if (strcmp(fn, map[i].fn))
			continue;
		int tensors = 0, big = -1;
		double elems = 0;
		for (int j = 0; j < nin; j++)
			if (numel(&in[j]) > 1) {
				tensors++;
				elems += numel(&in[j]);
				if (big < 0 || numel(&in[j]) > numel(&in[big]))
					big = j;
			}
		if (big < 0)
			return -1;
		set_vec(o, tensors >= 2 ? map[i].bin : map[i].un, &in[big]);
		o->nin = elems / numel(&in[big]);
		if (strcmp(fn, "where"))        /* where's condition is bool */
			broadcast_reads(o, in, nin, big, tensors);
		return 0;
	}
	return -1;
}

/* The NeuSight row of one graph node, or -1 when the tile model has no
 * kernel for it. */
static int classify(const char *op, const char *target, const char *meta,
		    const char *shapes, const char *oshape, struct prof_op *o)
{
	struct ns_row *r = &o->row;
	struct shape in[MAXSHAPES], out;
	int nin = parse_shapes(shapes, in, MAXSHAPES);
	if (nin < 1 || in[0].rank < 1)
		return -1;
	/* no tensor holds 2^50 elements; larger products are a damaged row
	 * (and would not convert back to integers) */
	for (int j = 0; j < nin; j++)
		if (!(numel(&in[j]) < 0x1p50))
			return -1;
	memset(r, 0, sizeof *r);
	r->kname = "";
	const struct shape *a = &in[0];
	uint64_t rows_a = (uint64_t)(numel(a) / (double)a->d[a->rank - 1]);
	char fn[64];
	if (!strcmp(op, "call_module")) {
		module_class(meta, fn, sizeof fn);
		if (!strcmp(fn, "Linear")) {
			if (parse_tuple(oshape, &out) != 0 || !(numel(&out) < 0x1p50))
				return -1;
			set_gemm(o, "linear", 1, rows_a, a->d[a->rank - 1], out.d[out.rank - 1]);
		} else if (!strcmp(fn, "LayerNorm")) {
			set_vec(o, "ln", a);
		} else if (!strcmp(fn, "ReLU")) {
			set_vec(o, "relu", a);
		} else if (!strcmp(fn, "Tanh")) {
			set_vec(o, "tanh", a);
		} else if (strstr(fn, "GELU")) {
			set_vec(o, "gelu", a);
		} else if (!strcmp(fn, "Softmax")) {
			set_vec(o, "softmax", a);
		} else {
			return -1;
		}
		return 0;
	}
	if (strcmp(op, "call_function") && strcmp(op, "call_method"))
		return -1;
	target_name(target, fn, sizeof fn);
	if (!strcmp(fn, "addmm")) {
		/* addmm(bias, x [m, k], w [k, n]) */
		if (nin < 3 || in[1].rank != 2 || in[2].rank != 2)
			return -1;
		set_gemm(o, "linear", 1, in[1].d[0], in[1].d[1], in[2].d[1]);
	} else if (!strcmp(fn, "matmul") || !strcmp(fn, "bmm")) {
		if (nin < 2 || a->rank < 2 || in[1].rank < 2)
			return -1;
		const struct shape *b = &in[1];
		uint64_t m = a->d[a->rank - 2], kk = a->d[a->rank - 1], n = b->d[b->rank - 1];
		if (b->rank == 2) {
			set_gemm(o, "linear", 1, rows_a, kk, n);
		} else {
			uint64_t batch = (uint64_t)(numel(a) / ((double)m * (double)kk));
			set_gemm(o, "bmm", batch, m, kk, n);
		}
	} else if (!strcmp(fn, "softmax")) {
		set_vec(o, "softmax", a);
	} else if (!strcmp(fn, "layer_norm")) {
		set_vec(o, "ln", a);
	} else if (!strcmp(fn, "gelu") || !strcmp(fn, "relu") || !strcmp(fn, "tanh")) {
		set_vec(o, !strcmp(fn, "gelu") ? "gelu" : !strcmp(fn, "relu") ? "relu" : "tanh", a);
	} else if (set_arith(o, fn, in, nin) != 0) {
		return -1;
	}
	for (unsigned i = 0; i < r->ndims; i++)
		if (!r->dims[i])
			return -1;
	return 0;
}

/* Whether a node launches no kernel: a view, a size, an item of a tuple,
 * dropout in evaluation.  Its time is the profiler's cost of one call. */
static int kernel_less(const char *op, const char *target, const char *meta)
{
	static const char *const methods[] = {"view", "size", "permute", "transpose", "dim",
					      "expand", "unsqueeze"};
	char fn[64];
	if (!strcmp(op, "call_module")) {
		module_class(meta, fn, sizeof fn);
		return !strcmp(fn, "Dropout");
	}
	if (!strcmp(op, "call_method")) {
		for (size_t i = 0; i < sizeof methods / sizeof *methods; i++)
			if (!strcmp(target, methods[i]))
				return 1;
		return 0;
	}
	if (!strcmp(op, "call_function")) {
		target_name(target, fn, sizeof fn);
		return !strcmp(fn, "getitem") || !strcmp(fn, "getattr");
	}
	return 0;
}

static const char *keep_string(struct prof_set *s, const char *str)
{
	if (s->nstrings == s->capstrings) {
		size_t cap = s->capstrings ? 2 * s->capstrings : 64;
		char **v = realloc(s->strings, cap * sizeof *v);
		if (!v)
			return NULL;
		s->strings = v;
		s->capstrings = cap;
	}
	char *c = strdup(str);
	if (c)
		s->strings[s->nstrings++] = c;
	return c;
}

static int push_op(struct prof_set *s, const struct prof_op *op)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		struct prof_op *v = realloc(s->v, cap * sizeof *v);
		if (!v)
			return -1;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = *op;
	return 0;
}

/* num_layer of the label JSON beside csv; 1 when there is none. */
static double num_layer(const char *csv)
{
	size_t n = strlen(csv);
	char *js = malloc(n + 2);
	if (!js)
		return 1;
	memcpy(js, csv, n - 4);
	strcpy(js + n - 4, ".json");
	json_error_t je;
	json_t *root = json_load_file(js, 0, &je);
	free(js);
	json_t *v = root ? json_object_get(root, "num_layer") : NULL;
	double nl = json_is_integer(v) ? (double)json_integer_value(v) : json_is_real(v) ? json_real_value(v) : 1;
	json_decref(root);
	return nl >= 1 && nl <= 1e4 ? nl : 1;
}

enum { P_OP, P_TARGET, P_META, P_SHAPES, P_OSHAPE, P_FW, P_NAME, P_NCOLS };
static const char *const pcols[P_NCOLS] = {"op", "target", "meta", "input_shapes",
					   "output_shape", "fw_latency", "Name"};

int prof_load_file(struct prof_set *s, const char *csv, char *err, size_t errlen)
{
	size_t len = strlen(csv);
	if (len < 5 || strcmp(csv + len - 4, ".csv")) {
		snprintf(err, errlen, "'%s': not a .csv file", csv);
		return -1;
	}
	struct csv_reader r;
	int rc = csv_open(&r, csv, 0), next;
	if (rc != 0) {
		snprintf(err, errlen, "cannot open '%s': %s", csv, strerror(errno));
		return -1;
	}
	double *free_ms[2] = {NULL, NULL};
	int col[P_NCOLS];
	rc = -1;
	if ((next = csv_next(&r)) <= 0) {
		if (next == 0)
			snprintf(err, errlen, "'%s': empty", csv);
		else
			snprintf(err, errlen, "%s", r.err);
		goto out;
	}
	char **f = r.field;
	int nh = (int)r.nfield;
	for (int c = 0; c < P_NCOLS; c++) {
		col[c] = -1;
		for (int i = 0; i < nh; i++)
			if (!strcmp(f[i], pcols[c]))
				col[c] = i;
		if (col[c] < 0) {
			snprintf(err, errlen, "'%s': no '%s' column (not a per-operator profile)",
				 csv, pcols[c]);
			goto out;
		}
	}
	/* the nodes a node reads (optional: tells a transposed GEMM operand) */
	int cin = -1;
	for (int i = 0; i < nh; i++)
		if (!strcmp(f[i], "_input_nodes"))
			cin = i;
	const char *base = strrchr(csv, '/');
	const char *config = keep_string(s, base ? base + 1 : csv);
	double nl = num_layer(csv);
	size_t first = s->n, nfree[2] = {0, 0};
	if (!config)
		goto nomem;
	while ((next = csv_next(&r)) == 1) {
		f = r.field;
		int n = (int)r.nfield;
		if (n < nh)
			continue;
		struct prof_op op;
		memset(&op, 0, sizeof op);
		char *end;
		op.ms = strtod(f[col[P_FW]], &end);
		if (end == f[col[P_FW]] || !(op.ms > 0) || !isfinite(op.ms))
			continue;
		int module = !strcmp(f[col[P_OP]], "call_module");
		if (kernel_less(f[col[P_OP]], f[col[P_TARGET]], f[col[P_META]])) {
			double *v = realloc(free_ms[module], (nfree[module] + 1) * sizeof *v);
			if (!v)
				goto nomem;
			free_ms[module] = v;
			v[nfree[module]++] = op.ms;
			continue;
		}
		if (classify(f[col[P_OP]], f[col[P_TARGET]], f[col[P_META]], f[col[P_SHAPES]],
			     f[col[P_OSHAPE]], &op) != 0)
			continue;
		op.mult = in_first_layer(f[col[P_META]]) ? nl : 1;
		op.config = config;
		/* matmul(q, k.transpose(-1, -2)): HF's Q K^T */
		op.b_transposed = !strcmp(op.row.op, "bmm") && cin >= 0 && cin < n &&
				  strstr(f[cin], "transpose") != NULL;
		op.overhead_ms = module;        /* which call; the time comes below */
		if (!(op.node = keep_string(s, f[col[P_NAME]])) || push_op(s, &op) != 0)
			goto nomem;
	}
	/* The profiler's cost of one call, a module's and a function's: the
	 * median time of the nodes that launch nothing.  An iteration does
	 * not pay it (its CPU runs ahead of the GPU), so each operator's time
	 * is its measured time less that. */
	if (next < 0) {
		snprintf(err, errlen, "%s", r.err);
		goto out;
	}
	double over[2] = {lab_median(free_ms[0], nfree[0]), lab_median(free_ms[1], nfree[1])};
	for (size_t i = first; i < s->n; i++) {
		struct prof_op *op = &s->v[i];
		op->overhead_ms = over[op->overhead_ms != 0];
		op->raw_ms = op->ms;
		op->ms = op->raw_ms > 2 * op->overhead_ms ? op->raw_ms - op->overhead_ms
							  : op->raw_ms / 2;
	}
	rc = 0;
	goto out;
nomem:
	snprintf(err, errlen, "out of memory");
out:
	free(free_ms[0]);
	free(free_ms[1]);
	csv_release(&r);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **prof_list_dir(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	size_t cap = 64;
	char **v = malloc(cap * sizeof(*v));
	*n = 0;
	struct dirent *e;
	while (v && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (*n == cap) {
			char **nv = realloc(v, 2 * cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
			cap *= 2;
		}
		char *c = strdup(e->d_name);
		if (!c)
			break;
		v[(*n)++] = c;
	}
	closedir(d);
	if (v)
		qsort(v, *n, sizeof(*v), cmp_str);
	return v;
}

void prof_free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

const struct gpu_spec *prof_gpu_of_dir(const char *dir)
{
	const struct gpu_spec *g = gpu_find(dir);
	if (g)
		return g;
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", dir);
	for (char *p = buf; *p; p++)
		if (*p == '_')
			*p = ' ';
	g = gpu_find(buf);
	if (g)
		return g;
	/* drop a vendor/product-line prefix: "Tesla T4", "NVIDIA A100-..." */
	char *sp = strchr(buf, ' ');
	return sp ? gpu_find(sp + 1) : NULL;
}

int prof_load_dir(struct prof_set *s, const char *dir, char *err, size_t errlen)
{
	size_t nf;
	char **files = prof_list_dir(dir, &nf);
	if (!files) {
		snprintf(err, errlen, "cannot read '%s': %s", dir, strerror(errno));
		return -1;
	}
	int rc = 0;
	for (size_t i = 0; i < nf && rc == 0; i++) {
		size_t l = strlen(files[i]);
		if (l < 5 || strcmp(files[i] + l - 4, ".csv") || !strstr(files[i], "-inf-"))
			continue;
		char path[8192];
		snprintf(path, sizeof path, "%s/%s", dir, files[i]);
		rc = prof_load_file(s, path, err, errlen);
	}
	prof_free_list(files, nf);
	return rc;
}

void prof_release(struct prof_set *s)
{
	for (size_t i = 0; i < s->nstrings; i++)
		free(s->strings[i]);
	free(s->strings);
	free(s->v);
	memset(s, 0, sizeof *s);
}

int prof_kernel(const struct prof_op *op, struct pred_kernel *k)
{
	const struct ns_row *r = &op->row;
	enum pred_op c = ns_op_class(r->op);
	if (c == PRED_OP_GEMM) {
		/* NeuSight's B, M, N (reduction), K (output columns) */
		int rc = model_forward_kernel(c, r->dims[0], r->dims[1], r->dims[3], r->dims[2],
					      0, 0, k);
		k->b_transposed = (uint8_t)(op->b_transposed != 0);
		return rc;
	}
	return model_forward_kernel(c, 1, r->dims[0], r->dims[1], 0, op->nin, op->flops, k);
}

/* The tile model's time for op on g (ms), its class in *cls; -1 when
 * `auto` would not give op to the tile model. */
static double predict_op(const struct predictor *p, const struct prof_op *op,
			 const struct gpu_spec *g, int *cls)
{
	struct pred_kernel k;
	struct pred_result r;
	if (prof_kernel(op, &k) != 0 || (*cls = tile_amd_class_of(&k)) < 0)
		return -1;
	k.bytes += pred_reread_bytes(op->reread_bytes, op->reuse_bytes, g);
	if (predict_kernel(p, &k, NULL, g, PRED_AUTO, &r) != 0 || r.method != PRED_MLP)
		return -1;
	return r.ns / 1e6;
}

/* One predicted operator: its GPU (an index), class, measured and
 * predicted time of one run, how often it runs, and its place in its set. */
struct fit_row {
	int gpu, cls;
	double ms, pred, mult;
	size_t op;
};

/* The scale that leaves the tile model's times as they are. */
static void amd_scale_ones(struct tile_amd_scale *s)
{
	for (int k = 0; k < TILE_AMD_NCLASS; k++)
		s->scale[k] = 1;
	s->fixed_ns = 0;
}

/* Appends to *rows (n used, cap allocated) every operator of s of min_ms
 * or more that `auto` gives the tile model on g, predicted by pred.  0,
 * or -1 (memory). */
static int predict_rows(const struct predictor *pred, const struct prof_set *s,
			const struct gpu_spec *g, double min_ms, int gpu, struct fit_row **rows,
			size_t *n, size_t *cap)
{
	for (size_t j = 0; j < s->n; j++) {
		int cls;
		double p = s->v[j].ms >= min_ms ? predict_op(pred, &s->v[j], g, &cls) : -1;
		if (!(p > 0))
			continue;
		if (*n == *cap) {
			size_t nc = *cap ? 2 * *cap : 1024;
			struct fit_row *v = realloc(*rows, nc * sizeof *v);
			if (!v)
				return -1;
			*rows = v;
			*cap = nc;
		}
		(*rows)[(*n)++] = (struct fit_row){ gpu, cls, s->v[j].ms, p, s->v[j].mult, j };
	}
	return 0;
}

/* A predictor with weights tm and the scale that leaves the tile model's
 * times as they are; NULL (err says why) when out of memory. */
static struct predictor *unscaled_predictor(const struct tile_model *tm, char *err, size_t errlen)
{
	struct tile_amd_scale ones;
	struct predictor *p;
	amd_scale_ones(&ones);
	struct pred_config pc = { .tile = tm, .amd_scale = &ones };
	return predictor_new(&pc, &p, err, errlen) == 0 ? p : NULL;
}

/* Each class's scale for fixed cost c (ms), as prof_fit_amd() says;
 * fitted[k] 0 where no GPU had PROF_MIN_ROWS operators of class k (its
 * scale stays 1). */
static void fit_scale(const struct fit_row *r, size_t n, int ngpu, double c,
		      double scale[TILE_AMD_NCLASS], int fitted[TILE_AMD_NCLASS])
{
	for (int k = 0; k < TILE_AMD_NCLASS; k++) {
		double logsum = 0;
		int used = 0;
		for (int g = 0; g < ngpu; g++) {
			double m = 0, p = 0;
			size_t rows = 0;
			for (size_t i = 0; i < n; i++)
				if (r[i].gpu == g && r[i].cls == k) {
					m += (r[i].ms - c) * r[i].mult;
					p += r[i].pred * r[i].mult;
					rows++;
				}
			if (rows >= PROF_MIN_ROWS && m > 0 && p > 0) {
				logsum += log(m / p);
				used++;
			}
		}
		scale[k] = used ? exp(logsum / used) : 1;
		fitted[k] = used > 0;
	}
}

int prof_fit_amd(const struct tile_model *tm, const char *labels, const struct gpu_spec *skip,
		 double min_ms, struct tile_amd_scale *out, char *err, size_t errlen)
{
	size_t nd;
	char **dirs = prof_list_dir(labels, &nd);
	if (!dirs) {
		snprintf(err, errlen, "cannot read '%s': %s", labels, strerror(errno));
		return -1;
	}
	struct tile_amd_scale ones;
	amd_scale_ones(&ones);
	struct predictor *pred = unscaled_predictor(tm, err, errlen);
	if (!pred) {
		prof_free_list(dirs, nd);
		return -1;
	}
	struct fit_row *rows = NULL;
	size_t n = 0, cap = 0;
	int ngpu = 0, rc = 0;
	for (size_t i = 0; i < nd && rc == 0; i++) {
		const struct gpu_spec *g = prof_gpu_of_dir(dirs[i]);
		if (!g || !gpu_cc_is_amd(g->cc) || (skip && g->cc == skip->cc))
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", labels, dirs[i]);
		struct prof_set s = {0};
		if (prof_load_dir(&s, path, err, errlen) != 0)
			rc = -1;
		size_t first = n;
		if (rc == 0 && predict_rows(pred, &s, g, min_ms, ngpu, &rows, &n, &cap) != 0) {
			snprintf(err, errlen, "out of memory");
			rc = -1;
		}
		ngpu += n > first;
		prof_release(&s);
	}
	prof_free_list(dirs, nd);
	predictor_free(pred);
	*out = ones;
	if (rc == 0 && n) {
		/* the fixed cost by a scan of its one dimension, judged on the
		 * operators of the classes whose scale was fitted */
		double best = INFINITY;
		for (double c = 0; c <= PROF_MAX_FIXED_NS + 1; c += 500) {
			double sc[TILE_AMD_NCLASS], sum = 0;
			int fitted[TILE_AMD_NCLASS];
			fit_scale(rows, n, ngpu, c / 1e6, sc, fitted);
			for (size_t i = 0; i < n; i++)
				if (fitted[rows[i].cls])
					sum += fabs(log((sc[rows[i].cls] * rows[i].pred + c / 1e6) /
							rows[i].ms));
			if (sum < best) {
				best = sum;
				out->fixed_ns = c;
				memcpy(out->scale, sc, sizeof sc);
			}
		}
	}
	free(rows);
	return rc ? -1 : ngpu;
}

/* ---- surfer-bench profile ------------------------------------------------ */

int prof_gpu_and_weights(const char *only, const char *weights, struct tile_model **tm)
{
	*tm = NULL;
	if (only && !gpu_find(only)) {
		fprintf(stderr, PROG ": unknown GPU '%s'\n", only);
		return -1;
	}
	if (weights ? tile_model_load_file(weights, tm) != 0 : tile_model_load_builtin(tm) != 0) {
		fprintf(stderr, PROG ": cannot load tile-model weights '%s'\n",
			weights ? weights : "compiled-in");
		return -1;
	}
	return 0;
}

int prof_holdout_weights(const char *holdout, const char *gpu_dir, struct tile_model **tm)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/w_%s.bin", holdout, gpu_dir);
	if (tile_model_load_file(path, tm) == 0)
		return 1;
	return tile_model_load_builtin(tm) == 0 ? 0 : -1;
}


static void usage_profile(FILE *f)
{
	fprintf(f, "usage: " PROG " profile --labels DIR [--gpu NAME] [--min-ms MS] [--weights FILE |\n"
		   "                      --holdout-weights DIR] [--rows] [--emit]\n"
		   "  DIR/<GPU>/<model>-inf-<seq>-<batch>.csv: NeuSight's per-operator profiles; per GPU\n"
		   "  and kernel class, measured against the tile model's time from the shape (operators of at\n"
		   "  least MS ms, default %.2f).  AMD GPUs also with the AMD scale fitted on the other AMD\n"
		   "  GPUs' profiles; --holdout-weights DIR: GPU G with DIR/w_G.bin (make accuracy), the\n"
		   "  compiled-in weights where there is none; --rows lists every operator compared; --emit prints\n"
		   "  predictor/amd_scale.c fitted on all of them.\n",
		PROF_MIN_MS_DEFAULT);
}

/* Mean |(predicted x scale + fixed) / measured - 1| (percent) over the
 * rows of class cls; fixed in ms. */
static double rows_mape(const struct fit_row *r, size_t n, int cls, double scale, double fixed)
{
	double sum = 0;
	size_t used = 0;
	for (size_t i = 0; i < n; i++)
		if (r[i].cls == cls) {
			sum += fabs((r[i].pred * scale + fixed) / r[i].ms - 1);
			used++;
		}
	return used ? 100 * sum / (double)used : 0;
}

/* Every operator compared: GPU, profile, node, class, measured and
 * predicted ms of one run. */
static void print_rows(const struct prof_set *s, const struct gpu_spec *g,
		       const struct fit_row *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct prof_op *op = &s->v[r[i].op];
		printf("  %-14s %-28s %-44s %-13s x%-3g %9.3f %9.3f %+7.1f%%\n", g->id, op->config,
		       op->node, tile_amd_class_names[r[i].cls], op->mult, op->ms, r[i].pred,
		       100 * (r[i].pred / op->ms - 1));
	}
}

static int emit(const struct tile_model *tm, const char *labels, double min_ms)
{
	struct tile_amd_scale sc;
	char err[512];
	int used = prof_fit_amd(tm, labels, NULL, min_ms, &sc, err, sizeof err);
	if (used < 0) {
		fprintf(stderr, PROG ": %s\n", err);
		return surfer_exit_code(SURFER_EINVAL);
	}
	if (!used) {
		fprintf(stderr, PROG ": no AMD GPU's profiles under '%s'\n", labels);
		return surfer_exit_code(SURFER_EINVAL);
	}
	printf("/*\n"
	       " * amd_scale.c - generated by `build/surfer-bench profile --labels\n"
	       " * ../shared/data/neusight/labels --emit > predictor/amd_scale.c` (after the\n"
	       " * tile weights: it predicts with the compiled-in model); do not edit.\n"
	       " *\n"
	       " * Per kernel class, (measured - fixed) over the predicted time of the\n"
	       " * forward operators of at least %.2f ms in NeuSight's inference profiles\n"
	       " * of %d AMD GPUs (geometric mean over the GPUs), with the fixed cost per\n"
	       " * kernel that fits every operator best (tools/lab/profile.c): ROCm's PyTorch\n"
	       " * and rocBLAS kernels against what a model trained on CUDA kernels predicts.\n"
	       " */\n"
	       "#include \"predictor/tile.h\"\n\n"
	       "const struct tile_amd_scale tile_amd_scale_default = {\n\t{\n",
	       min_ms, used);
	for (int f = 0; f < TILE_AMD_NCLASS; f++)
		printf("\t\t%.4f,%*s/* %s */\n", sc.scale[f], 4, "", tile_amd_class_names[f]);
	printf("\t},\n\t%.0f,%*s/* fixed cost per kernel, ns */\n", sc.fixed_ns, 6, "");
	printf("};\n");
	return 0;
}

int bench_profile_main(const struct bench_args *a)
{
	const char *labels = a->labels, *only = a->gpu, *weights = a->weights, *holdout = a->holdout;
	double min_ms = PROF_MIN_MS_DEFAULT;
	int do_emit = a->emit, rows = a->rows;
	if (a->help) {
		usage_profile(stdout);
		return 0;
	}
	if (a->min_ms) {
		char *end;
		min_ms = strtod(a->min_ms, &end);
		if (*end || !(min_ms >= 0) || min_ms > 1e6) {
			fprintf(stderr, PROG ": bad --min-ms '%s'\n", a->min_ms);
			return surfer_exit_code(SURFER_EINVAL);
		}
	}
	if (!labels) {
		usage_profile(stderr);
		return surfer_exit_code(SURFER_EINVAL);
	}
	struct tile_model *tm;
	if (prof_gpu_and_weights(only, weights, &tm) != 0)
		return surfer_exit_code(SURFER_EINVAL);
	if (do_emit) {
		int erc = emit(tm, labels, min_ms);
		tile_model_free(tm);
		return erc;
	}
	size_t nd;
	char **dirs = prof_list_dir(labels, &nd);
	if (!dirs) {
		fprintf(stderr, PROG ": cannot read '%s': %s\n", labels, strerror(errno));
		tile_model_free(tm);
		return surfer_exit_code(SURFER_EINVAL);
	}
	printf("%-16s %-13s %5s %10s %11s %14s %12s\n", "gpu", "class", "rows", "meas/pred",
	       "MAPE", "held-out scale", "scaled MAPE");
	int rc = 0;
	for (size_t i = 0; i < nd && rc == 0; i++) {
		const struct gpu_spec *g = prof_gpu_of_dir(dirs[i]);
		if (!g || (only && g != gpu_find(only)))
			continue;
		char path[4096], err[512];
		/* G's weights trained without G; else the compiled-in ones */
		struct tile_model *held_tm = NULL;
		if (holdout && prof_holdout_weights(holdout, dirs[i], &held_tm) < 0) {
			fprintf(stderr, PROG ": cannot load the tile-model weights\n");
			rc = surfer_exit_code(SURFER_EINVAL);
			break;
		}
		const struct tile_model *gtm = held_tm ? held_tm : tm;
		snprintf(path, sizeof path, "%s/%s", labels, dirs[i]);
		struct prof_set s = {0};
		struct tile_amd_scale held;
		struct predictor *pred = NULL;
		int amd = gpu_cc_is_amd(g->cc), used = 0;
		if (prof_load_dir(&s, path, err, sizeof err) != 0 ||
		    (amd && (used = prof_fit_amd(gtm, labels, g, min_ms, &held, err, sizeof err)) < 0) ||
		    (s.n && !(pred = unscaled_predictor(gtm, err, sizeof err)))) {
			fprintf(stderr, PROG ": %s\n", err);
			rc = surfer_exit_code(SURFER_EINVAL);
		} else if (s.n) {
			struct fit_row *r = NULL;
			size_t n = 0, cap = 0;
			if (predict_rows(pred, &s, g, min_ms, 0, &r, &n, &cap) != 0) {
				fprintf(stderr, PROG ": out of memory\n");
				rc = surfer_exit_code(SURFER_ENOMEM);
			}
			for (int f = 0; rc == 0 && f < TILE_AMD_NCLASS; f++) {
				double meas = 0, pred = 0;
				size_t rows_f = 0;
				for (size_t j = 0; j < n; j++)
					if (r[j].cls == f) {
						meas += r[j].ms * r[j].mult;
						pred += r[j].pred * r[j].mult;
						rows_f++;
					}
				if (!rows_f)
					continue;
				printf("%-16s %-13s %5zu %10.3f %10.1f%%", g->id, tile_amd_class_names[f],
				       rows_f, meas / pred, rows_mape(r, n, f, 1, 0));
				if (amd && used)
					printf(" %14.3f %11.1f%%", held.scale[f],
					       rows_mape(r, n, f, held.scale[f], held.fixed_ns / 1e6));
				putchar('\n');
			}
			if (rc == 0 && amd && used)
				printf("%-16s %-13s %5s %10s %11s %11.1f us\n", g->id, "fixed", "", "", "",
				       held.fixed_ns / 1e3);
			if (rc == 0 && rows)
				print_rows(&s, g, r, n);
			free(r);
		}
		predictor_free(pred);
		tile_model_free(held_tm);
		prof_release(&s);
	}
	prof_free_list(dirs, nd);
	tile_model_free(tm);
	return rc;
}
