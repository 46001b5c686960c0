/*
 * gpugen.c - build-time generator: turns gpu_specs/cc_limits.csv and
 * gpu_specs/gpus.csv into C tables (build/gen/gpus_table.c) so that the
 * GPU database is compiled into every binary and needs no data path.
 *
 *   gpugen -o OUT.c cc_limits.csv gpus.csv [systems.csv]
 *
 * A C program rather than awk in the makefile: it checks every row (column
 * count against the header, numbers parse completely, compute capability
 * known, ids well formed and unique) and reports file:line on a mistake,
 * and it escapes strings for C itself instead of relying on an awk dialect.
 * CSV (trace/csv.h): '#' lines and blank lines are comments; a field may
 * be enclosed in double quotes (then it may hold commas; "" is a quote).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_specs/gpu.h"
#include "trace/csv.h"
#include "trace/surfer_err.h"

#define MAX_FIELDS 32
#define MAX_ROWS 256

struct row {
	int line;
	int nf;
	char *f[MAX_FIELDS];
};

struct table {
	const char *path;
	int nf;                 /* header column count */
	char *head[MAX_FIELDS];
	int nrows;
	struct row rows[MAX_ROWS];
};

static const char *const cc_cols[] = {
	"cc", "max_blocks_per_sm", "max_threads_per_sm", "max_warps_per_sm",
	"max_threads_per_block", "regs_per_sm", "max_regs_per_block",
	"max_regs_per_thread", "reg_alloc_unit", "warp_alloc_granularity",
	"smem_per_sm", "smem_per_block_optin", "smem_alloc_unit",
	"smem_reserved_per_block", "carveouts_kb", "source", NULL
};

static const char *const gpu_cols[] = {
	"id", "name", "aliases", "cc", "sms", "base_mhz", "boost_mhz", "mem_gb", "mem_mib",
	"mem_bw_gbps", "mem_bw_meas_gbps", "l2_mb", "fp32", "fp64", "tf32",
	"fp16", "bf16", "fp8", "int8", "fp4", "pcie_gen", "pcie_lanes",
	"nvlink_gbps", "nvlink_peers", "tdp_w", "source", NULL
};

static const char *const sys_cols[] = {
	"id", "name", "gpu", "gpus_per_node", "nvlink_domain", "nvls", "nics_per_node",
	"nic_gbit", "net", "net_latency_us", "sharp", "pcie_p2p", "default", "host_mem_gbps", "source",
	NULL
};

/* Prints "gpugen: ..." and exits with the status of err. */
static void vdie(int err, const char *fmt, va_list ap)
{
	fputs("gpugen: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	exit(surfer_exit_code(err));
}

/* A mistake in the tables (or the command line): exit 2. */
__attribute__((format(printf, 1, 2)))
static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(SURFER_EINVAL, fmt, ap);
	va_end(ap);
}

/* The machine failed (memory, the output): exit 1. */
__attribute__((format(printf, 2, 3)))
static void die_err(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(err, fmt, ap);
	va_end(ap);
}

static char *xstrdup(const char *s, size_t n)
{
	char *p = malloc(n + 1);

	if (!p)
		die_err(SURFER_ENOMEM, "out of memory");
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

static void read_table(const char *path, const char *const *cols, struct table *t)
{
	struct csv_reader r;
	int have_head = 0, rc;

	if ((rc = csv_open(&r, path, CSV_COMMENTS)) != 0)
		die("cannot open '%s': %s", path, strerror(errno));
	t->path = path;
	t->nrows = 0;
	while ((rc = csv_next(&r)) == 1) {
		int lineno = (int)r.line;

		if (r.nfield > MAX_FIELDS)
			die("%s:%d: more than %d fields", path, lineno, MAX_FIELDS);
		for (size_t i = 0; i < r.nfield; i++)
			for (const char *c = r.field[i]; *c; c++)
				if (*c == '\n')
					die("%s:%d: a quoted field spans lines", path, lineno);
				else if ((unsigned char)*c < 0x20 && *c != '\t')
					die("%s:%d: control character", path, lineno);
		if (!have_head) {
			int i;

			t->nf = (int)r.nfield;
			for (i = 0; i < t->nf; i++)
				t->head[i] = xstrdup(r.field[i], strlen(r.field[i]));
			for (i = 0; cols[i]; i++)
				if (i >= t->nf || strcmp(t->head[i], cols[i]) != 0)
					die("%s:%d: column %d must be '%s'", path, lineno,
					    i + 1, cols[i]);
			if (i != t->nf)
				die("%s:%d: %d columns, expected %d", path, lineno, t->nf, i);
			have_head = 1;
			continue;
		}
		if (t->nrows == MAX_ROWS)
			die("%s: more than %d rows", path, MAX_ROWS);
		struct row *row = &t->rows[t->nrows++];
		row->line = lineno;
		row->nf = (int)r.nfield;
		if (row->nf != t->nf)
			die("%s:%d: %d fields, the header has %d", path, lineno, row->nf, t->nf);
		for (int i = 0; i < row->nf; i++)
			row->f[i] = xstrdup(r.field[i], strlen(r.field[i]));
	}
	if (rc < 0)
		die("%s", r.err);
	csv_release(&r);
	if (!have_head)
		die("%s: no header line", path);
}

static int col(const struct table *t, const char *name)
{
	for (int i = 0; i < t->nf; i++)
		if (strcmp(t->head[i], name) == 0)
			return i;
	die("%s: no column '%s'", t->path, name);
	return -1;
}

static const char *field(const struct table *t, const struct row *r, const char *name)
{
	return r->f[col(t, name)];
}

static unsigned long num_u(const struct table *t, const struct row *r, const char *name)
{
	const char *s = field(t, r, name);
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (*s == '\0' || *s == '-' || *end != '\0' || errno || v > 0xffffffffUL)
		die("%s:%d: %s: '%s' is not a non-negative integer", t->path, r->line, name, s);
	return v;
}

static double num_d(const struct table *t, const struct row *r, const char *name)
{
	const char *s = field(t, r, name);
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || errno || !(v >= 0.0) || v > 1e9)
		die("%s:%d: %s: '%s' is not a non-negative number", t->path, r->line, name, s);
	return v;
}

/* "9.0" -> 90, "10.0" -> 100, "12.0" -> 120; an AMD gfx target
 * "gfx90a" -> GPU_CC_AMD + 0x90a (gpu.h). */
static unsigned parse_cc(const struct table *t, const struct row *r)
{
	const char *s = field(t, r, "cc");
	unsigned major, minor;
	int used = 0;

	if (strncmp(s, "gfx", 3) == 0) {
		unsigned gfx;
		if (sscanf(s + 3, "%3x%n", &gfx, &used) != 1 || used != 3 || s[3 + used] != '\0' ||
		    gfx < 0x900)
			die("%s:%d: cc: '%s' is not an AMD gfx9xx target", t->path, r->line, s);
		return GPU_CC_AMD + gfx;
	}
	if (sscanf(s, "%u.%u%n", &major, &minor, &used) != 2 || s[used] != '\0' ||
	    major < 1 || major > 99 || minor > 9)
		die("%s:%d: cc: '%s' is not major.minor", t->path, r->line, s);
	return major * 10 + minor;
}

/* Writes s as a C string literal. */
static void put_str(FILE *o, const char *s)
{
	fputc('"', o);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', o);
		if (*s == '?')  /* avoid trigraphs */
			fputs("\\", o);
		fputc(*s, o);
	}
	fputc('"', o);
}

static void check_id(const struct table *t, const struct row *r, const char *id)
{
	if (*id == '\0')
		die("%s:%d: empty id", t->path, r->line);
	for (const char *p = id; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-'))
			die("%s:%d: id '%s' must be lower-case letters, digits and '-'",
			    t->path, r->line, id);
}

static void emit_cc(FILE *o, const struct table *cc)
{
	static const char *const ucols[] = {
		"max_blocks_per_sm", "max_threads_per_sm", "max_warps_per_sm",
		"max_threads_per_block", "regs_per_sm", "max_regs_per_block",
		"max_regs_per_thread", "reg_alloc_unit", "warp_alloc_granularity",
		"smem_per_sm", "smem_per_block_optin", "smem_alloc_unit",
		"smem_reserved_per_block", NULL
	};

	for (int i = 0; i < cc->nrows; i++) {
		const struct row *r = &cc->rows[i];
		const char *s = field(cc, r, "carveouts_kb");
		unsigned long prev = 0;
		int n = 0;

		fprintf(o, "static const uint32_t carveouts_%d[] = {", i);
		while (*s) {
			char *end;
			unsigned long v = strtoul(s, &end, 10);

			if (end == s || (*end != '/' && *end != '\0') || v > 1024 ||
			    (n > 0 && v <= prev))
				die("%s:%d: carveouts_kb must be ascending KB values separated by '/'",
				    cc->path, r->line);
			fprintf(o, "%s%lu", n ? ", " : " ", v);
			prev = v;
			n++;
			s = *end ? end + 1 : end;
		}
		if (n == 0)
			die("%s:%d: no carveout", cc->path, r->line);
		if (prev * 1024 != num_u(cc, r, "smem_per_sm"))
			die("%s:%d: the largest carveout must equal smem_per_sm", cc->path, r->line);
		fprintf(o, " };\n");
	}
	fprintf(o, "\nconst struct gpu_cc_limits gpu_cc_table[] = {\n");
	for (int i = 0; i < cc->nrows; i++) {
		const struct row *r = &cc->rows[i];
		const char *s = field(cc, r, "carveouts_kb");
		int n = 1;

		for (; *s; s++)
			n += *s == '/';
		fprintf(o, "\t{ .cc = %u", parse_cc(cc, r));
		for (int k = 0; ucols[k]; k++)
			fprintf(o, ", .%s = %lu", ucols[k], num_u(cc, r, ucols[k]));
		fprintf(o, ",\n\t  .carveouts_kb = carveouts_%d, .ncarveouts = %d },\n", i, n);
		for (int j = 0; j < i; j++)
			if (parse_cc(cc, &cc->rows[j]) == parse_cc(cc, r))
				die("%s:%d: cc listed twice", cc->path, r->line);
	}
	fprintf(o, "};\nconst size_t gpu_cc_table_len = %d;\n\n", cc->nrows);
}

static int cc_index(const struct table *cc, unsigned v)
{
	for (int i = 0; i < cc->nrows; i++)
		if (parse_cc(cc, &cc->rows[i]) == v)
			return i;
	return -1;
}

static void emit_gpus(FILE *o, const struct table *cc, const struct table *g)
{
	static const char *const dt[] = {
		"fp32", "fp64", "tf32", "fp16", "bf16", "fp8", "int8", "fp4", NULL
	};
	static const char *const dt_enum[] = {
		"GPU_DT_FP32", "GPU_DT_FP64", "GPU_DT_TF32", "GPU_DT_FP16",
		"GPU_DT_BF16", "GPU_DT_FP8", "GPU_DT_INT8", "GPU_DT_FP4"
	};

	for (int i = 0; i < g->nrows; i++) {
		const struct row *r = &g->rows[i];
		const char *s = field(g, r, "aliases");

		fprintf(o, "static const char *const aliases_%d[] = { ", i);
		while (*s) {
			const char *bar = strchr(s, '|');
			size_t len = bar ? (size_t)(bar - s) : strlen(s);
			char *a = xstrdup(s, len);

			if (len == 0)
				die("%s:%d: empty alias", g->path, r->line);
			put_str(o, a);
			fputs(", ", o);
			free(a);
			s += len;
			if (*s == '|')
				s++;
		}
		fputs("NULL };\n", o);
	}
	fprintf(o, "\nconst struct gpu_spec gpu_table[] = {\n");
	for (int i = 0; i < g->nrows; i++) {
		const struct row *r = &g->rows[i];
		const char *id = field(g, r, "id");
		int ci = cc_index(cc, parse_cc(g, r));

		check_id(g, r, id);
		for (int j = 0; j < i; j++)
			if (strcmp(field(g, &g->rows[j], "id"), id) == 0)
				die("%s:%d: id '%s' listed twice", g->path, r->line, id);
		if (ci < 0)
			die("%s:%d: cc %s is not in %s", g->path, r->line,
			    field(g, r, "cc"), cc->path);
		if (*field(g, r, "name") == '\0' || *field(g, r, "source") == '\0')
			die("%s:%d: name and source must not be empty", g->path, r->line);
		fputs("\t{ .id = ", o);
		put_str(o, id);
		fputs(", .name = ", o);
		put_str(o, field(g, r, "name"));
		fprintf(o, ", .aliases = aliases_%d,\n", i);
		fprintf(o, "\t  .cc = %u, .sms = %lu, .base_clock_mhz = %lu, .boost_clock_mhz = %lu,\n",
			parse_cc(g, r), num_u(g, r, "sms"), num_u(g, r, "base_mhz"),
			num_u(g, r, "boost_mhz"));
		fprintf(o, "\t  .mem_gb = %.17g, .mem_mib = %.17g, .mem_bw_gbps = %.17g, .mem_bw_measured_gbps = %.17g, .l2_mb = %.17g,\n",
			num_d(g, r, "mem_gb"), num_d(g, r, "mem_mib"), num_d(g, r, "mem_bw_gbps"),
			num_d(g, r, "mem_bw_meas_gbps"), num_d(g, r, "l2_mb"));
		fputs("\t  .peak_tflops = {", o);
		for (int k = 0; dt[k]; k++)
			fprintf(o, "%s[%s] = %.17g", k ? ", " : " ", dt_enum[k], num_d(g, r, dt[k]));
		fputs(" },\n", o);
		fprintf(o, "\t  .pcie_gen = %lu, .pcie_lanes = %lu, .nvlink_gbps = %.17g,"
			   " .nvlink_peers = %lu, .tdp_w = %lu,\n",
			num_u(g, r, "pcie_gen"), num_u(g, r, "pcie_lanes"),
			num_d(g, r, "nvlink_gbps"), num_u(g, r, "nvlink_peers"), num_u(g, r, "tdp_w"));
		fputs("\t  .source = ", o);
		put_str(o, field(g, r, "source"));
		fprintf(o, ",\n\t  .limits = &gpu_cc_table[%d] },\n", ci);
	}
	fprintf(o, "};\nconst size_t gpu_table_len = %d;\n", g->nrows);
}

static unsigned long num_bit(const struct table *t, const struct row *r, const char *name)
{
	unsigned long v = num_u(t, r, name);
	if (v > 1)
		die("%s:%d: %s must be 0 or 1", t->path, r->line, name);
	return v;
}

static void emit_systems(FILE *o, const struct table *g, const struct table *s)
{
	static const char *const nets[] = { "none", "ib-hdr", "ib-ndr", "roce", "efa", "eth", NULL };
	static const char *const net_enum[] = {
		"GPU_NET_NONE", "GPU_NET_IB_HDR", "GPU_NET_IB_NDR", "GPU_NET_ROCE", "GPU_NET_EFA",
		"GPU_NET_ETH"
	};

	if (s->nrows == 0) {   /* no systems.csv given: an empty table */
		fprintf(o, "\nconst struct gpu_system gpu_system_table[1];\n"
			   "const size_t gpu_system_table_len = 0;\n");
		return;
	}
	fprintf(o, "\nconst struct gpu_system gpu_system_table[] = {\n");
	for (int i = 0; i < s->nrows; i++) {
		const struct row *r = &s->rows[i];
		const char *id = field(s, r, "id"), *gid = field(s, r, "gpu"), *net = field(s, r, "net");
		int gi = -1, ni = -1;

		check_id(s, r, id);
		for (int j = 0; j < i; j++)
			if (strcmp(field(s, &s->rows[j], "id"), id) == 0)
				die("%s:%d: id '%s' listed twice", s->path, r->line, id);
		for (int j = 0; j < g->nrows; j++)
			if (strcmp(field(g, &g->rows[j], "id"), gid) == 0)
				gi = j;
		if (gi < 0)
			die("%s:%d: gpu '%s' is not an id of %s", s->path, r->line, gid, g->path);
		for (int j = 0; nets[j]; j++)
			if (strcmp(nets[j], net) == 0)
				ni = j;
		if (ni < 0)
			die("%s:%d: net '%s' is not one of none, ib-hdr, ib-ndr, roce, efa, eth",
			    s->path, r->line, net);
		if (num_u(s, r, "gpus_per_node") == 0)
			die("%s:%d: gpus_per_node must be at least 1", s->path, r->line);
		if (num_u(s, r, "pcie_p2p") > num_u(s, r, "gpus_per_node"))
			die("%s:%d: pcie_p2p exceeds gpus_per_node", s->path, r->line);
		if (num_bit(s, r, "default"))
			for (int j = 0; j < i; j++)
				if (strcmp(field(s, &s->rows[j], "gpu"), gid) == 0 &&
				    num_bit(s, &s->rows[j], "default"))
					die("%s:%d: a second default system for '%s'", s->path, r->line, gid);
		if (*field(s, r, "name") == '\0' || *field(s, r, "source") == '\0')
			die("%s:%d: name and source must not be empty", s->path, r->line);
		fputs("\t{ .id = ", o);
		put_str(o, id);
		fputs(", .name = ", o);
		put_str(o, field(s, r, "name"));
		fprintf(o, ", .gpu = &gpu_table[%d],\n", gi);
		fprintf(o, "\t  .gpus_per_node = %lu, .nvlink_domain = %lu, .nvls = %lu, .nics_per_node = %lu,"
			   " .nic_gbit = %.17g, .net = %s,\n",
			num_u(s, r, "gpus_per_node"), num_u(s, r, "nvlink_domain"), num_bit(s, r, "nvls"),
			num_u(s, r, "nics_per_node"), num_d(s, r, "nic_gbit"), net_enum[ni]);
		fprintf(o, "\t  .net_latency_us = %.17g, .sharp = %lu, .pcie_p2p = %lu, .is_default = %lu,"
			   " .host_mem_gbps = %.17g,\n",
			num_d(s, r, "net_latency_us"), num_bit(s, r, "sharp"), num_u(s, r, "pcie_p2p"),
			num_bit(s, r, "default"), num_d(s, r, "host_mem_gbps"));
		fputs("\t  .source = ", o);
		put_str(o, field(s, r, "source"));
		fputs(" },\n", o);
	}
	fprintf(o, "};\nconst size_t gpu_system_table_len = %d;\n", s->nrows);
}

static struct table cc_tab, gpu_tab, sys_tab;

int main(int argc, char **argv)
{
	const char *out = NULL;
	FILE *o;

	if ((argc == 5 || argc == 6) && strcmp(argv[1], "-o") == 0)
		out = argv[2];
	if (!out) {
		fprintf(stderr, "usage: gpugen -o OUT.c cc_limits.csv gpus.csv [systems.csv]\n");
		return surfer_exit_code(SURFER_EINVAL);
	}
	read_table(argv[3], cc_cols, &cc_tab);
	read_table(argv[4], gpu_cols, &gpu_tab);
	if (argc == 6)
		read_table(argv[5], sys_cols, &sys_tab);
	o = fopen(out, "w");
	if (!o)
		die_err(SURFER_EWRITE, "cannot create '%s': %s", out, strerror(errno));
	fprintf(o, "/* Generated by tools/gpugen.c from %s and %s: do not edit. */\n",
		argv[3], argv[4]);
	fputs("#include \"gpu_specs/gpus_table.h\"\n\n", o);
	emit_cc(o, &cc_tab);
	emit_gpus(o, &cc_tab, &gpu_tab);
	emit_systems(o, &gpu_tab, &sys_tab);
	if (fclose(o) != 0)
		die_err(SURFER_EWRITE, "cannot write '%s'", out);
	return 0;
}
