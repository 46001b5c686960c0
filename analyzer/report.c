/*
 * report.c - the text and JSON reports of an analysis.  Times are printed
 * per iteration, in ms; nothing here computes a prediction.
 */
#include "analyzer/report.h"
#include "predictor/tile.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define REPORT_NAME_WIDTH 46
#define REPORT_COLUMNS 100

/* Appends s[0..n) to out (capacity cap, length *len), silently cutting. */
static void rp_append(char *out, size_t cap, size_t *len, const char *s, size_t n)
{
	if (*len + 1 >= cap)
		return;
	if (n > cap - 1 - *len)
		n = cap - 1 - *len;
	memcpy(out + *len, s, n);
	*len += n;
	out[*len] = 0;
}

/* The C++ ABI's demangler, from libstdc++ (the one c++filt and gdb use);
 * <cxxabi.h> is C++ only, so it is declared here.  Returns a malloc'd
 * string, or NULL with *status < 0 when mangled is not a valid name. */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* The leading qualified name of an Itanium-mangled symbol the demangler
 * rejects, "<...>" for template arguments; 0 when it does not start with
 * one.  libstdc++'s demangler (and c++filt) reject some names that
 * profilers record as they are, among them cuDNN's CUTLASS kernels
 * ("_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23Implicit...EEvNT_6ParamsE"
 * in a V100 Kineto trace): their leading name is still the kernel's. */
static int rp_prefix(const char *s, char *out, size_t cap)
{
	size_t len = 0;
	int nested, parts = 0;

	out[0] = 0;
	if (strncmp(s, "_Z", 2) != 0)
		return 0;
	s += 2;
	if (*s == 'L')
		s++;
	nested = *s == 'N';
	if (nested) {
		s++;
		while (*s == 'r' || *s == 'V' || *s == 'K')
			s++;
	}
	if (s[0] == 'S' && s[1] == 't') {
		rp_append(out, cap, &len, "std", 3);
		parts++;
		s += 2;
	}
	while (isdigit((unsigned char)*s)) {
		char *end;
		unsigned long n = strtoul(s, &end, 10);
		if (n == 0 || strnlen(end, n) < n)
			return 0;
		if (parts++)
			rp_append(out, cap, &len, "::", 2);
		rp_append(out, cap, &len, end, n);
		s = end + n;
		if (*s == 'I') {
			rp_append(out, cap, &len, "<...>", 5);
			break;
		}
		if (!nested)
			break;
	}
	return parts > 0;
}

static int rp_ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* The last identifier in s[0..n) that names a functor ("MulFunctor" in
 * "BinaryFunctor<float, ..., MulFunctor<float> >", "sum_functor" in
 * ReduceOp's arguments), as [*at, *at + *len); 0 when none. */
static int rp_functor(const char *s, size_t n, size_t *at, size_t *len)
{
	int found = 0;

	for (size_t i = 0; i < n;) {
		if (!rp_ident_char(s[i])) {
			i++;
			continue;
		}
		size_t j = i;
		while (j < n && rp_ident_char(s[j]))
			j++;
		for (size_t k = i; k + 7 <= j; k++)
			if (!strncasecmp(s + k, "functor", 7)) {
				*at = i;
				*len = j - i;
				found = 1;
				break;
			}
		i = j;
	}
	return found;
}

/* The function a lambda argument was written in: "launch_clamp_scalar" in
 * "at::native::launch_clamp_scalar(at::TensorIteratorBase&, ...)::{lambda()#1}::...". */
static int rp_lambda_home(const char *s, size_t n, size_t *at, size_t *len)
{
	const char *l = strstr(s, "::{lambda");
	if (!l || (size_t)(l - s) >= n || l == s || l[-1] != ')')
		return 0;
	int depth = 0;
	const char *p = l - 1;
	for (; p > s; p--) {
		if (*p == ')')
			depth++;
		else if (*p == '(' && --depth == 0)
			break;
	}
	const char *e = p;
	while (p > s && rp_ident_char(p[-1]))
		p--;
	if (p == e)
		return 0;
	*at = (size_t)(p - s);
	*len = (size_t)(e - p);
	return 1;
}

/* Whether a template argument is one every instance of a kernel shares
 * (a vector width, a type, the launch helpers), not what tells them apart. */
static int rp_arg_shared(const char *a, size_t n)
{
	static const char *const helpers[] = {
		"Array<", "OffsetCalculator", "LoadWithoutCast", "StoreWithoutCast", "LoadWithCast",
		"StoreWithCast", "IntDivider", "decltype(",
	};
	static const char *const types[] = {
		"float", "double", "int", "long", "unsigned int", "unsigned long", "bool", "char",
		"signed char", "short", "c10::Half", "c10::BFloat16", "at::Half", "at::BFloat16",
		"true", "false", "long long", "unsigned char",
	};
	size_t i = 0;

	while (i < n && (isdigit((unsigned char)a[i]) || strchr("()-ulUL", a[i])))
		i++;
	if (i == n || strncmp(a, "(int)", 5) == 0)
		return 1;
	for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++)
		if (strlen(types[k]) == n && !strncmp(a, types[k], n))
			return 1;
	for (size_t k = 0; k < sizeof(helpers) / sizeof(helpers[0]); k++)
		for (size_t j = 0; j + strlen(helpers[k]) <= n; j++)
			if (!strncmp(a + j, helpers[k], strlen(helpers[k])))
				return 1;
	return 0;
}

/* "void ns::kernel<args>(params)" -> "kernel<what tells it apart>": the
 * kernel's name without its namespaces, and of its template arguments the
 * first that is not shared by every instance, as its functor
 * (vectorized_elementwise_kernel<MulFunctor>), the function its lambda was
 * written in (<direct_copy_kernel_cuda>) or its own last name; "<...>"
 * when none tells.  When it is wider than width, the kernel's name is cut
 * before the argument is. */
static void rp_plain(const char *in, char *out, size_t cap, size_t width)
{
	size_t len = 0, n, q;
	char s[1024];

	out[0] = s[0] = 0;
	if (strncmp(in, "void ", 5) == 0)
		in += 5;
	/* without "(anonymous namespace)::", whose '(' is no parameter list */
	for (size_t j = 0; *in && j + 1 < sizeof(s);) {
		if (!strncmp(in, "(anonymous namespace)::", 23)) {
			in += 23;
			continue;
		}
		s[j++] = *in++;
		s[j] = 0;
	}
	if (!*s)
		return;
	n = strcspn(s, "<(");
	/* the name without its namespaces */
	for (q = n; q >= 2; q--)
		if (s[q - 1] == ':' && s[q - 2] == ':')
			break;
	if (q < 2)
		q = 0;
	const char *name = s + q;
	size_t nlen = n - q;
	if (s[n] != '<') {
		rp_append(out, cap, &len, name, nlen);
		return;
	}
	/* the template arguments at depth 1 */
	const char *arg = NULL;
	size_t alen = 0, at = 0, tlen = 0;
	int depth = 0;
	const char *a0 = s + n + 1;
	for (const char *p = s + n; *p; p++) {
		if (*p == '<' || *p == '(' || *p == '{' || *p == '[')
			depth++;
		else if (*p == '>' || *p == ')' || *p == '}' || *p == ']')
			depth--;
		if ((depth == 1 && *p == ',') || depth == 0) {
			const char *b = a0, *e = p;
			while (b < e && *b == ' ')
				b++;
			while (e > b && e[-1] == ' ')
				e--;
			if (e > b && !rp_arg_shared(b, (size_t)(e - b))) {
				arg = b;
				alen = (size_t)(e - b);
				break;
			}
			a0 = p + 1;
		}
		if (depth == 0)
			break;
	}
	if (arg && (rp_functor(arg, alen, &at, &tlen) || rp_lambda_home(arg, alen, &at, &tlen))) {
		arg += at;
	} else if (arg) {
		/* its own last name, before its template arguments */
		size_t e = strcspn(arg, "<(");
		if (e > alen)
			e = alen;
		size_t b = e;
		while (b > 0 && !(b >= 2 && arg[b - 1] == ':' && arg[b - 2] == ':'))
			b--;
		arg += b;
		tlen = e - b;
	}
	if (!arg || !tlen) {
		rp_append(out, cap, &len, name, nlen);
		rp_append(out, cap, &len, "<...>", 5);
		return;
	}
	if (nlen + tlen + 2 > width && width > tlen + 10)
		nlen = width - tlen - 5;   /* "name...<arg>" */
	rp_append(out, cap, &len, name, nlen);
	if (nlen < strcspn(name, "<("))
		rp_append(out, cap, &len, "...", 3);
	rp_append(out, cap, &len, "<", 1);
	rp_append(out, cap, &len, arg, tlen);
	rp_append(out, cap, &len, ">", 1);
}

void report_short_name(const char *name, char *out, size_t width)
{
	char buf[512], *dem = NULL;
	int status;

	if (!name)
		name = "(unnamed)";
	if (strncmp(name, "_Z", 2) == 0)
		dem = __cxa_demangle(name, NULL, NULL, &status);
	if (dem)
		rp_plain(dem, buf, sizeof(buf), width);
	else if (!rp_prefix(name, buf, sizeof(buf)))
		rp_plain(name, buf, sizeof(buf), width);
	free(dem);
	if (!buf[0])
		snprintf(buf, sizeof(buf), "%s", name);
	if (strlen(buf) > width && width > 3) {
		memcpy(out, buf, width - 3);
		memcpy(out + width - 3, "...", 4);
	} else {
		snprintf(out, width + 1, "%s", buf);
	}
}

double report_ms(double ns)
{
	return ns / 1e6;
}

double report_pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0.0;
}

static const char *rp_bound(int memory_bound)
{
	return memory_bound > 0 ? "memory" : memory_bound == 0 ? "compute" : "?";
}

/* "ops  gemm 1.200 -> 0.394 ms, ..." wrapped at REPORT_COLUMNS. */
static void rp_ops(FILE *f, const struct analysis_target *t, int with_origin)
{
	size_t col = 10;
	int first = 1;

	fprintf(f, "ops       ");
	for (int o = 0; o < PRED_OP_COUNT; o++) {
		char item[96];
		int len;

		if (t->op_ns[o] <= 0 && t->op_origin_ns[o] <= 0)
			continue;
		if (with_origin)
			len = snprintf(item, sizeof(item), " %s %.3f -> %.3f ms",
				       pred_op_name((enum pred_op)o), report_ms(t->op_origin_ns[o]),
				       report_ms(t->op_ns[o]));
		else
			len = snprintf(item, sizeof(item), " %s %.3f ms",
				       pred_op_name((enum pred_op)o), report_ms(t->op_ns[o]));
		if (!first && col + 1 + (size_t)len > REPORT_COLUMNS) {
			fputs(",\n          ", f);
			col = 10;
		} else if (!first) {
			fputc(',', f);
			col++;
		}
		fputs(item, f);
		col += (size_t)len;
		first = 0;
	}
	fprintf(f, "\n");
}

/* A prediction from a model config: there is no origin GPU and nothing was
 * measured, so the report leaves the origin columns out. */
static int rp_no_origin(const struct analysis *a)
{
	return !a->origin && a->measured_ns <= 0;
}

void report_model_free(struct report_model *m)
{
	if (!m)
		return;
	free(m->max_batch_fits);
	free(m->ttft_ns);
	free(m->tpot_mean_ns);
	free(m->tpot_median_ns);
	free(m->ttft_low_ns);
	free(m->ttft_high_ns);
	free(m->tpot_low_ns);
	free(m->tpot_high_ns);
	free(m->latency_median_ns);
	free(m->latency_p90_ns);
	m->max_batch_fits = NULL;
	m->ttft_ns = m->tpot_mean_ns = m->tpot_median_ns = NULL;
	m->ttft_low_ns = m->ttft_high_ns = m->tpot_low_ns = m->tpot_high_ns = NULL;
	m->latency_median_ns = m->latency_p90_ns = NULL;
}

/* Tokens per iteration of m, 0 unknown (a trace). */
static double rp_tokens_per_iteration(const struct report_model *m)
{
	return m && m->tokens_per_iteration > 0 ? m->tokens_per_iteration : 0;
}

double report_tokens_per_s(const struct analysis_target *t, const struct report_model *m)
{
	double tokens = rp_tokens_per_iteration(m);

	if (!(tokens > 0) || !(t->iteration_ns > 0))
		return 0;
	return tokens / (t->iteration_ns / 1e9);
}

/* USD per million tokens at a price, 0 without a token count. */
static double cost_per_million_tokens(const struct report_model *m, double per_iteration_usd)
{
	double tokens = rp_tokens_per_iteration(m);

	return tokens > 0 ? per_iteration_usd / tokens * 1e6 : 0;
}

/* The estimated peak memory of one GPU, 0 unknown (a trace). */
static double rp_memory_peak(const struct report_model *m)
{
	return m && m->memory.peak > 0 ? m->memory.peak : 0;
}

int report_cost(const struct analysis_target *t, const struct report_model *m,
		double *per_iteration_usd, double *per_million_usd)
{
	uint32_t gpus = m && m->gpus > 1 ? m->gpus : 1;
	/* USD/hour x GPUs x seconds per iteration / 3600 s per hour */
	double usd = t->price_usd_per_hour * gpus * (t->iteration_ns / 1e9) / 3600.0;

	*per_iteration_usd = *per_million_usd = 0;
	if (!(t->price_usd_per_hour > 0) || !isfinite(usd))
		return -1;
	*per_iteration_usd = usd;
	*per_million_usd = usd * 1e6;
	return 0;
}

/* v to four significant digits, trailing zeros kept so that both ends of
 * an interval read alike ("20.21-26.80", not "20.21-26.8"); whole above
 * 1000, where %.4g would turn 11290 into 1.129e+04, read at a glance as a
 * number near 1.  The last digit rounded down (dir < 0) or up (else): an
 * interval printed with its low end rounded down and its high end up
 * holds every value the interval holds, the prediction included (a tight
 * one around 12967.441 ms read "12970-12970" rounded to the nearest, the
 * prediction outside it; now "12960-12970"). */
static void ms_sig4(double v, int dir, char *out, size_t cap)
{
	size_t len;

	if (isfinite(v) && v != 0) {
		double unit = pow(10, floor(log10(fabs(v))) - 3), x = v / unit;
		/* a value already of four digits stays itself (1e-9: the
		 * division's rounding) */
		x = dir < 0 ? floor(x + 1e-9) : ceil(x - 1e-9);
		v = x * unit;
	}
	if (fabs(v) >= 1000) {
		snprintf(out, cap, "%.0f", v);
		return;
	}
	snprintf(out, cap, "%#.4g", v);
	/* %#g keeps the point of a value that rounds up to 1000 ("1000.") */
	len = strlen(out);
	if (len && out[len - 1] == '.')
		out[len - 1] = 0;
}

void report_interval(double low_ms, double high_ms, char *out, size_t cap)
{
	char lo[40], hi[40];

	ms_sig4(low_ms, -1, lo, sizeof(lo));
	ms_sig4(high_ms, 1, hi, sizeof(hi));
	snprintf(out, cap, "%s-%s", lo, hi);
}

/* " (80%: lo-hi ms)", the text's interval of probability prob beside a
 * time, or "" where there is none (equal ends: nothing predicted by a
 * model; NaN ends: no decode step). */
static void rp_interval_note(double low_ns, double high_ns, double prob, char *out, size_t cap)
{
	char iv[84];

	out[0] = 0;
	if (!isfinite(low_ns) || !isfinite(high_ns) || !(high_ns > low_ns))
		return;
	report_interval(report_ms(low_ns), report_ms(high_ns), iv, sizeof(iv));
	snprintf(out, cap, " (%.0f%%: %s ms)", prob * 100, iv);
}

void report_usd(double usd, char *out, size_t cap)
{
	int decimals = 2;

	if (!isfinite(usd)) {
		snprintf(out, cap, "-");
		return;
	}
	if (usd > 0 && usd < 1) /* three significant digits */
		decimals = 2 - (int)floor(log10(usd));
	if (decimals > 12)
		decimals = 12;
	snprintf(out, cap, "%.*f", decimals, usd);
}

/* The key --rank sorts on: ms, or USD (per million tokens when known). */
static double rank_key(const struct analysis_target *t, const struct report_model *m,
		       int by_cost)
{
	double it_usd, m_usd;

	if (!by_cost)
		return t->iteration_ns;
	if (report_cost(t, m, &it_usd, &m_usd) < 0)
		return INFINITY;
	return rp_tokens_per_iteration(m) > 0 ? cost_per_million_tokens(m, it_usd) : it_usd;
}

/* Whether target t cannot hold the model's estimated memory (a --model
 * run that estimated it; a trace's memory is not estimated). */
static int rp_no_fit(const struct analysis_target *t, const struct report_model *m)
{
	double have = gpu_mem_usable_bytes(t->gpu);
	return rp_memory_peak(m) > 0 && have > 0 && rp_memory_peak(m) > have;
}

int report_rank(FILE *f, const struct analysis *a, const struct report_model *m, int by_cost)
{
	size_t *ix = malloc((a->ntargets ? a->ntargets : 1) * sizeof(*ix));

	if (!ix)
		return -1;
	for (size_t i = 0; i < a->ntargets; i++)
		ix[i] = i;
	/* insertion sort, stable: equal keys keep the order given; ties in
	 * cost (no price) by time; as --plan ranks layouts, the targets that
	 * hold the model's memory before those that do not */
	for (size_t i = 1; i < a->ntargets; i++) {
		size_t x = ix[i], j = i;
		const struct analysis_target *tx = &a->targets[x];
		while (j > 0) {
			const struct analysis_target *ty = &a->targets[ix[j - 1]];
			double kx = rank_key(tx, m, by_cost), ky = rank_key(ty, m, by_cost);
			int nx = rp_no_fit(tx, m), ny = rp_no_fit(ty, m);
			if (nx > ny || (nx == ny && !(kx < ky || (kx == ky && by_cost &&
							      tx->iteration_ns < ty->iteration_ns))))
				break;
			ix[j] = ix[j - 1];
			j--;
		}
		ix[j] = x;
	}
	for (size_t i = 0; i < a->ntargets; i++) {
		const struct analysis_target *t = &a->targets[ix[i]];
		double it_usd, m_usd;
		char usd[32];

		fprintf(f, "%-24s %12.3f ms", t->gpu->id, report_ms(t->iteration_ns));
		if (a->measured_ns > 0)
			fprintf(f, " %6.2fx measured", t->iteration_ns / a->measured_ns);
		if (report_cost(t, m, &it_usd, &m_usd) == 0) {
			report_usd(it_usd, usd, sizeof(usd));
			fprintf(f, "  $%s per iteration", usd);
			if (rp_tokens_per_iteration(m) > 0) {
				report_usd(cost_per_million_tokens(m, it_usd), usd, sizeof(usd));
				fprintf(f, ", $%s per million tokens", usd);
			}
		} else if (by_cost) {
			fprintf(f, "  no price");
		}
		/* "no fit": short, so that a priced line stays in 100 columns */
		if (rp_no_fit(t, m))
			fprintf(f, "  no fit");
		fputc('\n', f);
	}
	free(ix);
	return ferror(f) ? -1 : 0;
}

static const struct report_legend_item rp_legend[] = {
	{ "predicted", "the iteration replayed on the target: its launches, stream order and "
	  "synchronizations (recorded, or built from a model config), each kernel and copy taking "
	  "its predicted time; \"x the measured time\" is its ratio to the origin's measured "
	  "iteration" },
	{ "kernels", "the sum of the kernel times of one iteration; kernels on different streams "
	  "run at once and the GPU also idles, so it can exceed the iteration time or fall short "
	  "of it" },
	{ "bound", "memory when a kernel's bytes over the bandwidth outlast its FLOPs over the "
	  "peak, compute otherwise; unknown when the method gives no bound" },
	{ "methods", "the share of kernel time each predictor gave: wave (the measured time scaled "
	  "by waves, clocks and bandwidth), mlp (the tile model), roofline, tcgemm (the tensor-core "
	  "GEMM model), vecop (the vector-op model), identity (the target is the origin: the "
	  "measured time)" },
	{ "GPU waits", "time no kernel or copy runs because the GPU waits for the CPU to launch "
	  "work; a faster GPU does not shorten it" },
	{ "copies", "memcpy and memset time on the streams" },
	{ "verdict", "why a much faster GPU is predicted no faster than the measured one" },
	{ "memory", "the estimated peak against what the target leaves to tensors: the memory its "
	  "driver reports less the CUDA context and the libraries' workspaces" },
};

const struct report_legend_item *report_legend(int traces, size_t *n)
{
	static struct report_legend_item model[sizeof(rp_legend) / sizeof(rp_legend[0])];
	size_t k = 0;

	if (traces) {
		*n = sizeof(rp_legend) / sizeof(rp_legend[0]) - 1; /* memory: --model only */
		return rp_legend;
	}
	/* --model: no measurement, no verdict; the same words otherwise */
	for (size_t i = 0; i < sizeof(rp_legend) / sizeof(rp_legend[0]); i++)
		if (strcmp(rp_legend[i].term, "verdict"))
			model[k++] = rp_legend[i];
	*n = k;
	return model;
}

/* Writes text after "legend     " or the indent, wrapped at REPORT_COLUMNS. */
static void rp_wrap(FILE *f, const char *term, const char *text, int first)
{
	size_t col = (size_t)fprintf(f, "%-11s%s:", first ? "legend" : "", term);

	for (const char *p = text; *p;) {
		size_t w = strcspn(p, " ");
		if (col + 1 + w > REPORT_COLUMNS) {
			fprintf(f, "\n%13s", "");
			col = 13;
		} else {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, w, f);
		col += w;
		p += w;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

void report_verdict(const struct analysis *a, const struct analysis_target *t, char *out,
		    size_t cap)
{
	out[0] = 0;
	if (!(a->measured_ns > 0) || a->untimed || !(a->measured_kernel_ns > 0) ||
	    !(t->iteration_ns > 0))
		return;
	double r = t->iteration_ns / a->measured_ns, k = t->kernel_ns / a->measured_kernel_ns;
	if (!(k <= 0.67) || fabs(r - 1) > 0.10)
		return;
	double wait = report_pct(t->gpu_wait_cpu_ns, t->iteration_ns);
	if (wait >= 50)
		snprintf(out, cap, "CPU-bound: the GPU waits on the CPU %.0f%% of the time (kernels %.2fx, "
			 "iteration %.2fx)", wait, k, r);
	else
		snprintf(out, cap, "not GPU-bound: kernels %.2fx, iteration %.2fx; GPU waits %.0f%% of "
			 "it, copies %.3f ms", k, r, wait, report_ms(t->copy_ns));
}

/* ANSI SGR sequences, written only when colour is on. */
#define RP_BOLD "\033[1m"
#define RP_GREEN "\033[32m"
#define RP_RED "\033[31m"
#define RP_YELLOW "\033[33m"
#define RP_RESET "\033[0m"

static const char *rp_c(int color, const char *sgr)
{
	return color ? sgr : "";
}

#define RP_GIB 1073741824.0

/* The memory estimate of a --model run: the peak and what makes it up. */
static void rp_memory(FILE *f, const struct report_model *m)
{
	const struct { const char *name; double v; } part[] = {
		{ "weights", m->memory.weights }, { "gradients", m->memory.gradients },
		{ "optimizer", m->memory.optimizer }, { "activations", m->memory.activations },
		{ "KV cache", m->memory.kv_cache }, { "transient", m->memory.transient },
	};
	/* the parts in GiB, wrapped at 100 columns under the first */
	int col = fprintf(f, "memory     %.2f GiB at the peak (estimated):", m->memory.peak / RP_GIB);
	int n = 0;
	for (size_t i = 0; i < sizeof(part) / sizeof(part[0]); i++) {
		char item[64];
		if (!(part[i].v > 0))
			continue;
		int len = snprintf(item, sizeof(item), " %s %.2f", part[i].name, part[i].v / RP_GIB);
		if (n && col + 1 + len > 100)
			col = fprintf(f, ",\n          ") - 1;
		else if (n)
			col += fprintf(f, ",");
		col += fprintf(f, "%s", item);
		n++;
	}
	fprintf(f, "\n");
}

static void rp_target(FILE *f, const struct analysis *a, const struct report_model *rm,
		      size_t t_index, size_t top, int color)
{
	const struct analysis_target *t = &a->targets[t_index];
	char name[REPORT_NAME_WIDTH + 1];
	size_t n = top && top < t->ngroups ? top : t->ngroups;
	double it_usd, m_usd;
	char iv[100];

	fprintf(f, "\n%starget     %s (%s), method %s%s\n", rp_c(color, RP_BOLD), t->gpu->id,
		t->gpu->name, pred_method_name(t->method), rp_c(color, RP_RESET));
	fprintf(f, "predicted  %s%.3f ms%s per iteration", rp_c(color, RP_BOLD),
		report_ms(t->iteration_ns), rp_c(color, RP_RESET));
	rp_interval_note(t->iteration_low_ns, t->iteration_high_ns, t->interval, iv, sizeof(iv));
	fputs(iv, f);
	if (a->measured_ns > 0) {
		double r = t->iteration_ns / a->measured_ns;
		const char *c = r < 0.995 ? RP_GREEN : r > 1.005 ? RP_RED : "";

		fprintf(f, " (%s%.2fx%s the measured time)", rp_c(color, c), r,
			rp_c(color && *c, RP_RESET));
	}
	fprintf(f, "\n");
	int priced = report_cost(t, rm, &it_usd, &m_usd) == 0;
	char usd[32];
	if (priced) {
		report_usd(it_usd, usd, sizeof(usd));
		fprintf(f, "cost       $%s per iteration, $%.2f per million iterations "
			"(at $%.2f/hour", usd, m_usd, t->price_usd_per_hour);
		if (rm && rm->gpus > 1)
			fprintf(f, " x %u GPUs", rm->gpus);
		fputs(")\n", f);
	}
	if (report_tokens_per_s(t, rm) > 0) {
		fprintf(f, "throughput %.0f tokens/s", report_tokens_per_s(t, rm));
		if (priced) {
			report_usd(cost_per_million_tokens(rm, it_usd), usd, sizeof(usd));
			fprintf(f, ", $%s per million tokens", usd);
		}
		fprintf(f, "\n");
	}
	if (rm && rm->ttft_ns) {
		char ttft_iv[100], tpot_iv[100];

		rp_interval_note(rm->ttft_low_ns[t_index], rm->ttft_high_ns[t_index], t->interval, ttft_iv,
				 sizeof(ttft_iv));
		rp_interval_note(rm->tpot_low_ns[t_index], rm->tpot_high_ns[t_index], t->interval, tpot_iv,
				 sizeof(tpot_iv));
		if (!isfinite(rm->tpot_mean_ns[t_index]))
			fprintf(f, "serving    time to first token %.3f ms%s; per output token: none (one "
				"new token, no decode step)\n", report_ms(rm->ttft_ns[t_index]), ttft_iv);
		else
			fprintf(f, "serving    time to first token %.3f ms%s; per output token %.3f ms "
				"mean%s, %.3f ms median\n", report_ms(rm->ttft_ns[t_index]), ttft_iv,
				report_ms(rm->tpot_mean_ns[t_index]), tpot_iv,
				report_ms(rm->tpot_median_ns[t_index]));
	}
	if (rm && rm->latency_median_ns)
		fprintf(f, "requests   done in %.3f ms median, %.3f ms at the 90th percentile (the "
			"prefill and each one's own steps)\n", report_ms(rm->latency_median_ns[t_index]),
			report_ms(rm->latency_p90_ns[t_index]));
	fprintf(f, "kernels    %.3f ms: memory-bound %.1f%%, compute-bound %.1f%%, unknown %.1f%%\n",
		report_ms(t->kernel_ns), report_pct(t->memory_bound_ns, t->kernel_ns),
		report_pct(t->compute_bound_ns, t->kernel_ns), report_pct(t->unknown_bound_ns, t->kernel_ns));
	fprintf(f, "methods   ");
	for (int m = 0; m < PRED_METHOD_COUNT; m++)
		if (t->method_ns[m] > 0)
			fprintf(f, " %s %.1f%%", pred_method_name((enum pred_method)m),
				report_pct(t->method_ns[m], t->kernel_ns));
	fprintf(f, "\n");
	if (gpu_cc_is_amd(t->gpu->cc) && t->method_ns[PRED_MLP] > 0) {
		const struct tile_amd_scale s = a->amd_scale;
		/* ROCm's kernels against the tile model (predictor/amd_scale.c) */
		fprintf(f, "AMD scale  gemm %.2f, gemm-bt %.2f, ew %.2f, softmax %.2f / %.2f, norm %.2f, "
			"+%.1f us/kernel\n", s.scale[TILE_AMD_GEMM], s.scale[TILE_AMD_GEMM_BT],
			s.scale[TILE_AMD_ELEMENTWISE], s.scale[TILE_AMD_SOFTMAX_WARP],
			s.scale[TILE_AMD_SOFTMAX_BLOCK], s.scale[TILE_AMD_NORM], s.fixed_ns / 1e3);
	}
	fprintf(f, "GPU waits  %.3f ms on the CPU; copies %.3f ms\n", report_ms(t->gpu_wait_cpu_ns),
		report_ms(t->copy_ns));
	if (a->pace > 0 && a->pace < 1)
		fprintf(f, "pace       the slowest of %u GPUs in lockstep: compute at %.1f%% of the "
			"table's peaks\n", a->world_size, 100 * a->pace);
	if (a->world_size > 1 && t->system) {
		char sys[200];
		report_system(t->system, sys, sizeof(sys));
		fprintf(f, "system     %s\n", sys);
	}
	char verdict[160];
	report_verdict(a, t, verdict, sizeof(verdict));
	if (verdict[0])
		fprintf(f, "%sverdict    %s%s\n", rp_c(color, RP_YELLOW), verdict, rp_c(color, RP_RESET));
	if (rp_memory_peak(rm) > 0 && gpu_mem_usable_bytes(t->gpu) > 0) {
		uint32_t fits = rm->max_batch_fits ? rm->max_batch_fits[t_index] : 0;
		double need = rm->memory.peak / RP_GIB, have = gpu_mem_usable_bytes(t->gpu) / RP_GIB;
		if (rp_no_fit(t, rm))
			fprintf(f, "%smemory     %.2f GiB needed, %.2f GiB usable here: does not fit%s",
				rp_c(color, RP_RED), need, have, rp_c(color, RP_RESET));
		else
			fprintf(f, "memory     %.2f of %.2f GiB usable (%.0f%%)", need, have, 100.0 * need / have);
		if (!rm->max_batch_fits)
			fputc('\n', f);        /* sequences of given lengths */
		else if (fits)
			fprintf(f, "; batch %u at most\n", fits);
		else
			fprintf(f, "; not even batch 1\n");
	}
	rp_ops(f, t, !rp_no_origin(a));
	if (!n)
		return;
	fputs(rp_c(color, RP_BOLD), f);
	if (rp_no_origin(a))
		fprintf(f, "  %-*s %8s %10s %-8s %s", REPORT_NAME_WIDTH, "kernel", "calls/it",
			"pred ms", "method", "bound");
	else
		fprintf(f, "  %-*s %8s %10s %10s %-8s %s", REPORT_NAME_WIDTH, "kernel",
			"calls/it", "origin ms", "pred ms", "method", "bound");
	fprintf(f, "%s\n", rp_c(color, RP_RESET));
	for (size_t i = 0; i < n; i++) {
		const struct analysis_group *g = &t->groups[i];
		double calls = (double)g->launches / (a->iterations ? a->iterations : 1);

		report_short_name(g->name, name, REPORT_NAME_WIDTH);
		if (rp_no_origin(a))
			fprintf(f, "  %-*s %8.6g %10.3f %-8s %s\n", REPORT_NAME_WIDTH, name, calls,
				report_ms(g->pred_ns), pred_method_name(g->method),
				rp_bound(g->memory_bound));
		else
			fprintf(f, "  %-*s %8.6g %10.3f %10.3f %-8s %s\n", REPORT_NAME_WIDTH, name,
				calls, report_ms(g->origin_ns), report_ms(g->pred_ns),
				pred_method_name(g->method), rp_bound(g->memory_bound));
	}
}

int report_text(FILE *f, const struct analysis *a, const struct report_model *m, size_t top,
		int color)
{
	if (rp_no_origin(a)) {
		fprintf(f, "input      %s\n", a->device);
		fprintf(f, "kernels    %llu launches, %u configurations per iteration\n",
			(unsigned long long)a->kernels, a->configs);
		if (rp_memory_peak(m) > 0)
			rp_memory(f, m);
	} else {
		fprintf(f, "origin     %s (%s)\n", a->origin ? a->origin->id : "?", a->device);
		fprintf(f, "trace      %llu kernels, %u configurations, %u iteration%s\n",
			(unsigned long long)a->kernels, a->configs, a->iterations,
			a->iterations == 1 ? "" : "s");
		fprintf(f, "measured   %s%.3f ms%s per iteration\n", rp_c(color, RP_BOLD),
			report_ms(a->measured_ns), rp_c(color, RP_RESET));
		if (a->untimed)
			fprintf(f, "           (the trace has no GPU times: kernels are predicted "
				"from scratch)\n");
		else
			fprintf(f, "           kernels %.3f ms, copies %.3f ms, GPU waits %.3f ms "
				"on the CPU\n", report_ms(a->measured_kernel_ns),
				report_ms(a->measured_copy_ns), report_ms(a->measured_gpu_wait_cpu_ns));
	}
	if (a->warning[0])
		fprintf(f, "%swarning    %s%s\n", rp_c(color, RP_YELLOW), a->warning,
			rp_c(color, RP_RESET));
	for (size_t t = 0; t < a->ntargets; t++)
		rp_target(f, a, m, t, top, color);
	size_t nl;
	const struct report_legend_item *l = report_legend(!rp_no_origin(a), &nl);
	fputc('\n', f);
	for (size_t i = 0; i < nl; i++)
		rp_wrap(f, l[i].term, l[i].text, i == 0);
	return ferror(f) ? -1 : 0;
}

/* A JSON string of s; bytes that are not valid UTF-8 (a damaged trace)
 * become '?'. */
static json_t *rp_str(const char *s)
{
	json_t *j = json_string(s ? s : "");
	char *copy;

	if (j || !s)
		return j;
	copy = strdup(s);
	if (!copy)
		return NULL;
	for (char *p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80 || (unsigned char)*p < 0x20)
			*p = '?';
	j = json_string(copy);
	free(copy);
	return j;
}

/* A JSON number of ms; null when not finite (JSON has no inf or NaN). */
static json_t *rp_num(double ms)
{
	return isfinite(ms) ? json_real(ms) : json_null();
}

/* Adds key: value, dropping the reference (jansson's _new setters). */
static int rp_set(json_t *o, const char *key, json_t *v)
{
	return v ? json_object_set_new(o, key, v) : -1;
}

void report_system(const struct gpu_system *s, char *out, size_t cap)
{
	int n = snprintf(out, cap, "%s: %u GPUs a node", s->id, s->gpus_per_node);
	if (n >= 0 && (size_t)n < cap && s->nvlink_domain)
		n += snprintf(out + n, cap - (size_t)n, ", NVLink domain of %u%s", s->nvlink_domain,
			      s->nvls ? " with NVLS" : "");
	if (n >= 0 && (size_t)n < cap && s->nics_per_node && s->nic_gbit > 0 && s->net != GPU_NET_NONE)
		snprintf(out + n, cap - (size_t)n, "; between nodes %u x %g Gb/s %s a node",
			 s->nics_per_node, s->nic_gbit, gpu_net_name(s->net));
}

json_t *report_system_json(const struct gpu_system *s)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	if (rp_set(o, "id", rp_str(s->id)) ||
	    rp_set(o, "gpus_per_node", json_integer(s->gpus_per_node)) ||
	    rp_set(o, "nvlink_domain", json_integer(s->nvlink_domain)) ||
	    rp_set(o, "nvls", json_boolean(s->nvls)) ||
	    rp_set(o, "nics_per_node", json_integer(s->nics_per_node)) ||
	    rp_set(o, "nic_gbit", json_real(s->nic_gbit)) ||
	    rp_set(o, "network", rp_str(gpu_net_name(s->net)))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *rp_breakdown(const struct analysis_target *t, size_t top)
{
	json_t *arr = json_array();
	size_t n = top && top < t->ngroups ? top : t->ngroups;

	if (!arr)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const struct analysis_group *g = &t->groups[i];
		json_t *o = json_object();

		if (!o || rp_set(o, "kernel", rp_str(g->name)) ||
		    rp_set(o, "op", rp_str(pred_op_name(g->op))) ||
		    rp_set(o, "launches", json_integer((json_int_t)g->launches)) ||
		    rp_set(o, "origin_ms", rp_num(report_ms(g->origin_ns))) ||
		    rp_set(o, "predicted_ms", rp_num(report_ms(g->pred_ns))) ||
		    rp_set(o, "predicted_ms_low", rp_num(report_ms(g->pred_low_ns))) ||
		    rp_set(o, "predicted_ms_high", rp_num(report_ms(g->pred_high_ns))) ||
		    rp_set(o, "method", rp_str(pred_method_name(g->method))) ||
		    rp_set(o, "bound", rp_str(rp_bound(g->memory_bound))) ||
		    json_array_append_new(arr, o)) {
			json_decref(o);
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

/* The price and costs of t, when it has a price. */
static int rp_cost(json_t *o, const struct analysis_target *t, const struct report_model *m)
{
	double it_usd, m_usd;

	if (report_cost(t, m, &it_usd, &m_usd) < 0)
		return 0;
	return rp_set(o, "price_usd_per_hour", json_real(t->price_usd_per_hour)) ||
	       rp_set(o, "cost_per_iteration_usd", json_real(it_usd)) ||
	       rp_set(o, "cost_per_million_iterations_usd", json_real(m_usd)) ||
	       (rp_tokens_per_iteration(m) > 0 &&
		rp_set(o, "cost_per_million_tokens_usd", json_real(cost_per_million_tokens(m, it_usd))));
}

/* Tokens per iteration and per second, when the caller knows them. */
static int rp_tokens(json_t *o, const struct analysis_target *t, const struct report_model *m)
{
	if (!(report_tokens_per_s(t, m) > 0))
		return 0;
	return rp_set(o, "tokens_per_iteration", json_real(m->tokens_per_iteration)) ||
	       rp_set(o, "tokens_per_s", json_real(report_tokens_per_s(t, m)));
}

static json_t *rp_prediction(const struct analysis *a, const struct report_model *rm,
			     size_t t_index, size_t top)
{
	const struct analysis_target *t = &a->targets[t_index];
	double mem_peak = rp_memory_peak(rm);
	json_t *o = json_object(), *methods = json_object();

	if (!o || !methods)
		goto fail;
	for (int m = 0; m < PRED_METHOD_COUNT; m++)
		if (t->method_ns[m] > 0 &&
		    rp_set(methods, pred_method_name((enum pred_method)m), rp_num(report_ms(t->method_ns[m]))))
			goto fail;
	if (rp_set(o, "target", rp_str(t->gpu->id)) ||
	    rp_set(o, "target_name", rp_str(t->gpu->name)) ||
	    rp_set(o, "method", rp_str(pred_method_name(t->method))) ||
	    rp_set(o, "iteration_ms", rp_num(report_ms(t->iteration_ns))) ||
	    rp_set(o, "iteration_ms_low", rp_num(report_ms(t->iteration_low_ns))) ||
	    rp_set(o, "iteration_ms_high", rp_num(report_ms(t->iteration_high_ns))) ||
	    rp_set(o, "interval", rp_num(t->interval)) ||
	    rp_set(o, "distance", rp_str(pred_distance_name(t->distance))) ||
	    rp_set(o, "interval_distance", rp_str(pred_distance_name(t->interval_distance))) ||
	    rp_set(o, "interval_method", rp_str(pred_method_name(t->interval_method))) ||
	    rp_cost(o, t, rm) || rp_tokens(o, t, rm) ||
	    rp_set(o, "kernel_ms", rp_num(report_ms(t->kernel_ns))) ||
	    rp_set(o, "copy_ms", rp_num(report_ms(t->copy_ns))) ||
	    rp_set(o, "gpu_waiting_on_cpu_ms", rp_num(report_ms(t->gpu_wait_cpu_ns))) ||
	    rp_set(o, "memory_bound_ms", rp_num(report_ms(t->memory_bound_ns))) ||
	    rp_set(o, "compute_bound_ms", rp_num(report_ms(t->compute_bound_ns))) ||
	    rp_set(o, "unknown_bound_ms", rp_num(report_ms(t->unknown_bound_ns))) ||
	    rp_set(o, "methods", methods))
		goto fail_o;
	if (rm && rm->ttft_ns &&
	    (rp_set(o, "ttft_ms", rp_num(report_ms(rm->ttft_ns[t_index]))) ||
	     rp_set(o, "tpot_mean_ms", rp_num(report_ms(rm->tpot_mean_ns[t_index]))) ||
	     rp_set(o, "tpot_median_ms", rp_num(report_ms(rm->tpot_median_ns[t_index])))))
		goto fail_o;
	if (rm && rm->ttft_low_ns &&
	    (rp_set(o, "ttft_ms_low", rp_num(report_ms(rm->ttft_low_ns[t_index]))) ||
	     rp_set(o, "ttft_ms_high", rp_num(report_ms(rm->ttft_high_ns[t_index]))) ||
	     rp_set(o, "tpot_mean_ms_low", rp_num(report_ms(rm->tpot_low_ns[t_index]))) ||
	     rp_set(o, "tpot_mean_ms_high", rp_num(report_ms(rm->tpot_high_ns[t_index])))))
		goto fail_o;
	if (rm && rm->latency_median_ns &&
	    (rp_set(o, "request_latency_median_ms", rp_num(report_ms(rm->latency_median_ns[t_index]))) ||
	     rp_set(o, "request_latency_p90_ms", rp_num(report_ms(rm->latency_p90_ns[t_index])))))
		goto fail_o;
	if (mem_peak > 0 && gpu_mem_usable_bytes(t->gpu) > 0 &&
	    (rp_set(o, "memory_usable_gib", json_real(gpu_mem_usable_bytes(t->gpu) / RP_GIB)) ||
	     rp_set(o, "memory_fits", json_boolean(mem_peak <= gpu_mem_usable_bytes(t->gpu))) ||
	     /* null with sequences of given lengths: no batch to grow, where 0
	      * would say that not even batch 1 fits */
	     rp_set(o, "max_batch_fits",
		    rm->max_batch_fits ? json_integer(rm->max_batch_fits[t_index]) : json_null())))
		goto fail_o;
	if (gpu_cc_is_amd(t->gpu->cc) && t->method_ns[PRED_MLP] > 0) {
		/* the tile model's times carry it (predictor/amd_scale.c) */
		const struct tile_amd_scale s = a->amd_scale;
		json_t *sc = json_object();
		for (int c = 0; sc && c < TILE_AMD_NCLASS; c++)
			if (rp_set(sc, tile_amd_class_names[c], rp_num(s.scale[c]))) {
				json_decref(sc);
				sc = NULL;
			}
		if (!sc || rp_set(sc, "fixed_us", rp_num(s.fixed_ns / 1e3)) ||
		    rp_set(o, "amd_scale", sc))
			goto fail_o;
	}
	if (a->world_size > 1 && t->system && rp_set(o, "system", report_system_json(t->system)))
		goto fail_o;
	char verdict[160];
	report_verdict(a, t, verdict, sizeof(verdict));
	if (verdict[0] && rp_set(o, "verdict", rp_str(verdict)))
		goto fail_o;
	if (rp_set(o, "breakdown", rp_breakdown(t, top)))
		goto fail_o;
	return o;
fail:
	json_decref(methods);
fail_o:
	json_decref(o);
	return NULL;
}

/* The memory estimate of a --model run, GiB. */
static json_t *rp_memory_json(const struct report_model *m)
{
	json_t *o = json_object();
	if (!o || rp_set(o, "peak_gib", json_real(m->memory.peak / RP_GIB)) ||
	    rp_set(o, "weights_gib", json_real(m->memory.weights / RP_GIB)) ||
	    rp_set(o, "gradients_gib", json_real(m->memory.gradients / RP_GIB)) ||
	    rp_set(o, "optimizer_gib", json_real(m->memory.optimizer / RP_GIB)) ||
	    rp_set(o, "activations_gib", json_real(m->memory.activations / RP_GIB)) ||
	    rp_set(o, "kv_cache_gib", json_real(m->memory.kv_cache / RP_GIB)) ||
	    rp_set(o, "transient_gib", json_real(m->memory.transient / RP_GIB))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *report_json(const struct analysis *a, const struct report_model *m, size_t top)
{
	json_t *doc = json_object(), *origin = json_object(), *preds = json_array();

	if (!doc || !origin || !preds)
		goto fail;
	if (rp_set(doc, "schema_version", json_integer(REPORT_SCHEMA_VERSION)))
		goto fail;
	if (rp_set(origin, "device", rp_str(a->device)) ||
	    rp_set(origin, "gpu", rp_str(a->origin ? a->origin->id : "")) ||
	    rp_set(origin, "kernels", json_integer((json_int_t)a->kernels)) ||
	    rp_set(origin, "configurations", json_integer(a->configs)) ||
	    rp_set(origin, "iterations", json_integer(a->iterations)) ||
	    rp_set(origin, "measured_ms", rp_num(report_ms(a->measured_ns))) ||
	    rp_set(origin, "gpu_times", json_boolean(!a->untimed)) ||
	    rp_set(origin, "truncated", json_boolean(a->truncated)) ||
	    rp_set(origin, "world_size", json_integer(a->world_size)) ||
	    rp_set(origin, "pace", rp_num(a->pace > 0 ? a->pace : 1)))
		goto fail;
	for (size_t t = 0; t < a->ntargets; t++)
		if (json_array_append_new(preds, rp_prediction(a, m, t, top)))
			goto fail;
	if (json_object_set_new(doc, "origin", origin)) {
		origin = NULL;
		goto fail;
	}
	origin = NULL;
	if (json_object_set_new(doc, "predictions", preds)) {
		preds = NULL;
		goto fail;
	}
	preds = NULL;
	if (rp_memory_peak(m) > 0 && rp_set(doc, "memory", rp_memory_json(m)))
		goto fail;
	return doc;
fail:
	json_decref(origin);
	json_decref(preds);
	json_decref(doc);
	return NULL;
}

int report_json_write(FILE *f, const struct analysis *a, const struct report_model *m, size_t top)
{
	json_t *doc = report_json(a, m, top);
	int rc;

	if (!doc)
		return -1;
	rc = json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	json_decref(doc);
	if (rc == 0)
		fputc('\n', f);
	return rc || ferror(f) ? -1 : 0;
}
