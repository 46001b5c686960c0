/*
 * neusight.c - NeuSight kernel CSVs: reading, kernel records, pairing across
 * GPUs and error statistics (see neusight.h).
 *
 * Column layout (NeuSight, sitar-lab/NeuSight): OPName, Latency (ms),
 * Device, ..., Kernel Name, ..., Grid x/y/z, Block x/y/z, ..., then the
 * shape: B, M, N, K for GEMMs (A is B x M x N, the weight B x N x K, N the
 * reduction, the output B x M x K); B, H for vector operators (B rows of H);
 * B, Input_Channel, Output_Channel, Kernel_Szie, Input_Size, Stride, Padding
 * for convolutions.  Columns are found by header name.
 *
 * The other layouts (ns_load_format()) become rows of the same form:
 * PipeWeave's FP8 GEMMs (M, N, K, avg_duration in us, hardware), Vidur's
 * FP16 projections (vidur.c walks its folders) and DeepBench's GEMMs, and
 * apart from them DeepBench's training convolutions
 * (ns_load_deepbench_conv()).
 */
#include "tools/lab/neusight.h"
#include "analyzer/ktable.h"
#include "tools/lab/stats.h"
#include "tools/lab/vidur.h"
#include "trace/csv.h"
#include "trace/strpool.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* Kernel names, devices and operators repeat thousands of times: each is
 * kept once in a string pool, and rows point at the pool's copy. */
static const char *intern(struct strpool *sp, const char *s)
{
	int64_t id = strpool_intern(sp, s, strlen(s), NULL);
	return id < 0 ? NULL : strpool_get(sp, (uint32_t)id, NULL);
}

enum col {
	C_OP, C_LAT, C_DEV, C_NAME, C_GX, C_GY, C_GZ, C_BX, C_BY, C_BZ, C_KERNELS, C_NCOLS
};
static const char *const col_names[C_NCOLS] = {
	"OPName", "Latency", "Device", "Kernel Name", "Grid x", "Grid y", "Grid z",
	"Block x", "Block y", "Block z", "Kernels",
};
static const char *const gemm_dims[] = {"B", "M", "N", "K", NULL};
static const char *const vec_dims[] = {"B", "H", NULL};
static const char *const conv_dims[] = {"B", "Input_Channel", "Output_Channel",
	"Kernel_Szie", "Input_Size", "Stride", "Padding", NULL};

static int find_col(char **hdr, size_t nh, const char *name)
{
	for (int i = 0; i < (int)nh; i++)
		if (strcmp(hdr[i], name) == 0 ||
		    (strncmp(hdr[i], name, strlen(name)) == 0 && hdr[i][strlen(name)] == ' '))
			return i;
	return -1;
}

struct loader {
	struct ns_set *s;
	enum ns_format fmt;
	int conv_only;            /* DeepBench's convolutions, nothing else   */
	const struct gpu_spec *keep, *keep2;
	char *err;
	size_t errlen;
	/* device string -> gpu cache */
	const char *dev_name[64];
	const struct gpu_spec *dev_gpu[64];
	int ndev;
};

static const struct gpu_spec *device_gpu(struct loader *L, const char *dev)
{
	for (int i = 0; i < L->ndev; i++)
		if (L->dev_name[i] == dev)
			return L->dev_gpu[i];
	const struct gpu_spec *g = gpu_find(dev);
	if (L->ndev < 64) {
		L->dev_name[L->ndev] = dev;
		L->dev_gpu[L->ndev++] = g;
	}
	return g;
}

static int push_row(struct ns_set *s, const struct ns_row *r)
{
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 4096;
		struct ns_row *nr = realloc(s->rows, nc * sizeof *nr);
		if (!nr)
			return -1;
		s->rows = nr;
		s->cap = nc;
	}
	s->rows[s->n++] = *r;
	return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	if (!*s)
		return -1;
	double v = strtod(s, &end);   /* some files write "3.0" */
	if (*end || !(v >= 0) || v > 1e15)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

/* ---- DeepBench -------------------------------------------------------- */

/* The GPU of a DeepBench results file "<prefix>__Results....csv": the "GPU
 * Model" line of "<prefix>__Specs.csv" beside it (else the prefix's file
 * name), interned into name.  0, or -1 with a reason in L->err. */
static int deepbench_device(struct loader *L, const char *path, const char **name)
{
	const char *base = strrchr(path, '/');
	const char *us = strstr(base ? base + 1 : path, "__");
	if (!us) {
		snprintf(L->err, L->errlen, "'%s': a DeepBench results file is named <prefix>__<what>.csv", path);
		return -1;
	}
	size_t pl = (size_t)(us - path);
	char *spec = malloc(pl + sizeof "__Specs.csv");
	if (!spec)
		return -1;
	memcpy(spec, path, pl);
	memcpy(spec + pl, "__Specs.csv", sizeof "__Specs.csv");
	struct csv_reader r;
	int have = csv_open(&r, spec, 0) == 0, rc = 0;
	*name = NULL;
	while (have && !*name && (rc = csv_next(&r)) == 1)
		if (r.nfield >= 2 && strcmp(r.field[0], "GPU Model") == 0 && r.field[1][0])
			*name = intern(L->s->strings, r.field[1]);
	if (rc < 0) {
		snprintf(L->err, L->errlen, "%s", r.err);
		csv_release(&r);
		free(spec);
		return -1;
	}
	if (!*name) {
		/* a CPU's (KNL) or a missing specs file: the file's prefix
		 * names a device no GPU matches, and its rows are skipped */
		const char *b = strrchr(spec, '/');
		spec[pl] = 0;
		*name = intern(L->s->strings, b ? b + 1 : spec);
	}
	if (have)
		csv_release(&r);
	free(spec);
	return *name ? 0 : -1;
}

/* The columns of DeepBench's convolution rows, by the header line that
 * follows the section's title: ",,W,H,C,N,K ,S (Filter width),R (Filter
 * height),pad_w,pad_h,Horizontal stride,Vertical stride,Forward (msec),wrt
 * Inputs (msec),wrt Parameters (msec),..." (the P100's, 1080 Ti's and
 * TITAN Xp's files put R, S, pad_h, pad_w and the vertical stride first:
 * found by name, the order never assumed).  In ns_row.dims' order, then
 * the three times. */
enum { DB_N, DB_C, DB_H, DB_W, DB_K, DB_R, DB_S, DB_PAD_H, DB_PAD_W, DB_STRIDE_H, DB_STRIDE_W,
       DB_FWD, DB_DGRAD, DB_WGRAD, DB_NCOL };
static const char *const db_conv_cols[DB_NCOL] = {
	"N", "C", "H", "W", "K", "R", "S", "pad_h", "pad_w", "Vertical", "Horizontal",
	"Forward (msec)", "wrt Inputs (msec)", "wrt Parameters (msec)",
};
static const char *const db_conv_ops[3] = {"conv2d_fwd", "conv2d_dgrad", "conv2d_wgrad"};

/* Header field h names column c: h is c, or starts with c followed by a
 * space or '(' ("K ", "S (Filter width)", "Horizontal Stride"). */
static int db_names(const char *h, const char *c)
{
	size_t l = strlen(c);
	return strncasecmp(h, c, l) == 0 && (h[l] == 0 || h[l] == ' ' || h[l] == '(');
}

/* One convolution line of a DeepBench results file: up to three rows.
 * Lines whose shape does not parse are skipped; 0, or -1 (memory). */
static int db_conv_line(struct loader *L, char **f, size_t n, const int *col, const char *dev,
			const struct gpu_spec *g, enum gpu_dtype dt)
{
	struct ns_row r;
	memset(&r, 0, sizeof r);
	for (int d = 0; d < DB_FWD; d++)
		if (col[d] < 0 || (size_t)col[d] >= n || parse_u64(f[col[d]], &r.dims[d]) != 0)
			return 0;
	for (int d = DB_N; d <= DB_S; d++)
		if (!r.dims[d])
			return 0;
	if (!r.dims[DB_STRIDE_H] || !r.dims[DB_STRIDE_W])
		return 0;
	r.ndims = DB_FWD;
	r.device = dev;
	r.gpu = g;
	r.dtype = dt;
	r.kname = r.kernels = intern(L->s->strings, "");
	for (int dir = 0; dir < 3; dir++) {
		int c = col[DB_FWD + dir];
		char *end;
		if (c < 0 || (size_t)c >= n)
			continue;
		r.latency_ms = strtod(f[c], &end);   /* "N/A*": no input gradient */
		if (end == f[c] || *end || !(r.latency_ms > 0) || !isfinite(r.latency_ms))
			continue;
		if (!(r.op = intern(L->s->strings, db_conv_ops[dir])) || push_row(L->s, &r) != 0)
			return -1;
	}
	return 0;
}

/* DeepBench's results (baidu-research/DeepBench, csv/results/train/...):
 * sections headed by a line whose first field names them; the rows of
 * "Dense Matrix Multiplication" are ",<source>,M,N,K,A^T,B^T,,ms,TFLOPS",
 * C (M x N) = A (M x K) B (K x N), one cuBLAS call each.  They become
 * "matmul" rows in NeuSight's convention (B 1, M, N the reduction, K the
 * output's columns), without a kernel name or launch ("matmul_fp16" for
 * FP16).  FP32 files ("Precision,Float") are read, and with
 * NS_FMT_DEEPBENCH the FP16 ones of tensor-core math ("16 bit inputs, 16
 * bit multiplication, 32 bit addition"; not the P100's "32 bit
 * multiplication", FP32 math on FP16 data); the caller has read the first
 * line.  With L->conv_only the rows of the "Convolution" section of the
 * same files instead (db_conv_line()), and no GEMM. */
static int load_deepbench(struct loader *L, struct csv_reader *csv, const char *path,
			  const char *precision)
{
	enum gpu_dtype dt = GPU_DT_FP32;
	if (L->fmt == NS_FMT_DEEPBENCH && strstr(precision, "16 bit inputs, 16 bit multiplication"))
		dt = GPU_DT_FP16;
	else if (strcmp(precision, "Float") != 0)
		return 0;                    /* other precisions: not modelled */
	const char *dev, *none = intern(L->s->strings, "");
	const char *op = intern(L->s->strings, dt == GPU_DT_FP16 ? "matmul_fp16" : "matmul");
	if (!op || !none || deepbench_device(L, path, &dev) != 0)
		return -1;
	const struct gpu_spec *g = device_gpu(L, dev);
	if (L->keep && g != L->keep && g != L->keep2)
		return 0;
	enum { SEC_OTHER, SEC_GEMM, SEC_CONV } sec = SEC_OTHER;
	int col[DB_NCOL], rc;
	for (int c = 0; c < DB_NCOL; c++)
		col[c] = -1;
	while ((rc = csv_next(csv)) == 1) {
		size_t n = csv->nfield;
		char **f = csv->field;
		if (f[0][0]) {
			sec = strcmp(f[0], "Dense Matrix Multiplication") == 0 ? SEC_GEMM :
			      strcmp(f[0], "Convolution") == 0 ? SEC_CONV : SEC_OTHER;
			continue;
		}
		if (sec == SEC_CONV && L->conv_only) {
			if (n > 2 && strcmp(f[2], "W") == 0) {    /* the section's header */
				for (int c = 0; c < DB_NCOL; c++) {
					col[c] = -1;
					for (size_t i = 0; i < n && col[c] < 0; i++)
						if (db_names(f[i], db_conv_cols[c]))
							col[c] = (int)i;
				}
			} else if (db_conv_line(L, f, n, col, dev, g, dt) != 0) {
				snprintf(L->err, L->errlen, "'%s': out of memory", path);
				return -1;
			}
			continue;
		}
		uint64_t m, nn, k;
		char *end;
		if (sec != SEC_GEMM || L->conv_only || n < 9 || parse_u64(f[2], &m) ||
		    parse_u64(f[3], &nn) || parse_u64(f[4], &k))
			continue;
		struct ns_row r;
		memset(&r, 0, sizeof r);
		r.op = op;
		r.device = dev;
		r.kname = r.kernels = none;
		r.dtype = dt;
		r.gpu = g;
		r.latency_ms = strtod(f[8], &end);
		if (end == f[8] || *end || !(r.latency_ms > 0) || !isfinite(r.latency_ms) || !m || !nn || !k)
			continue;
		r.dims[0] = 1;
		r.dims[1] = m;
		r.dims[2] = k;
		r.dims[3] = nn;
		r.ndims = 4;
		if (push_row(L->s, &r) != 0) {
			snprintf(L->err, L->errlen, "'%s': out of memory", path);
			return -1;
		}
	}
	if (rc < 0) {
		snprintf(L->err, L->errlen, "%s", csv->err);
		return -1;
	}
	return 0;
}

/* ---- PipeWeave and Vidur ---------------------------------------------- */

/* PipeWeave's GEMM tables (zksainx/pipeweave, gemm_fp8_*.csv): M, N, K,
 * avg_duration (us), hardware (the device name), then the GPU's figures,
 * which are not read (gpus.csv has them).  C (M x N) = A (M x K) B (K x
 * N) in FP8, one cuBLASLt call each: "matmul_fp8" rows B 1, M, K (the
 * reduction), N; the caller has read the header. */
static int load_pipeweave(struct loader *L, struct csv_reader *csv, const char *path)
{
	int cm = csv_col(csv, "M"), cn = csv_col(csv, "N"), ck = csv_col(csv, "K");
	int ct = csv_col(csv, "avg_duration"), ch = csv_col(csv, "hardware"), rc;
	const char *op = intern(L->s->strings, "matmul_fp8"), *none = intern(L->s->strings, "");
	if (cm < 0 || cn < 0 || ck < 0 || ct < 0 || ch < 0) {
		snprintf(L->err, L->errlen,
			 "'%s': not a PipeWeave GEMM CSV (no M, N, K, avg_duration, hardware)", path);
		return -1;
	}
	if (!op || !none)
		return -1;
	while ((rc = csv_next(csv)) == 1) {
		struct ns_row r;
		uint64_t m, n, k;
		char *end;
		memset(&r, 0, sizeof r);
		if (parse_u64(csv_field(csv, (size_t)cm), &m) || parse_u64(csv_field(csv, (size_t)cn), &n) ||
		    parse_u64(csv_field(csv, (size_t)ck), &k) || !m || !n || !k)
			continue;
		const char *t = csv_field(csv, (size_t)ct);
		r.latency_ms = strtod(t, &end) / 1e3;
		if (end == t || *end || !(r.latency_ms > 0) || !isfinite(r.latency_ms))
			continue;
		if (!(r.device = intern(L->s->strings, csv_field(csv, (size_t)ch))))
			return -1;
		r.gpu = device_gpu(L, r.device);
		if (L->keep && r.gpu != L->keep && r.gpu != L->keep2)
			continue;
		r.op = op;
		r.kname = r.kernels = none;
		r.dtype = GPU_DT_FP8;
		r.dims[0] = 1;
		r.dims[1] = m;
		r.dims[2] = k;
		r.dims[3] = n;
		r.ndims = 4;
		if (push_row(L->s, &r) != 0)
			return -1;
	}
	if (rc < 0) {
		snprintf(L->err, L->errlen, "%s", csv->err);
		return -1;
	}
	return 0;
}

/* Vidur's four projection GEMMs of a decoder layer (vidur.h), FP16,
 * medians in ms, rows named by their operator. */
struct vidur_ctx {
	struct loader *L;
	const char *device;       /* the folder's name, interned */
	const char *op[4];        /* vidur_gemm_ops, interned    */
	const char *none;         /* "", interned                */
};

static int vidur_row(void *ctx, const struct vidur_row *v, const struct gpu_spec *g)
{
	struct vidur_ctx *c = ctx;
	uint64_t sh[4][2];
	if (vidur_gemm_shapes(v, sh) != 0 || !(v->num_tokens >= 1))
		return 0;
	for (int i = 0; i < 4; i++) {
		struct ns_row r;
		memset(&r, 0, sizeof r);
		if (!(v->median_ms[i] > 0) || !isfinite(v->median_ms[i]) || !sh[i][0] || !sh[i][1])
			continue;
		r.op = c->op[i];
		r.device = c->device;
		r.gpu = g;
		r.kname = r.kernels = c->none;
		r.latency_ms = v->median_ms[i];
		r.dtype = GPU_DT_FP16;
		r.dims[0] = 1;
		r.dims[1] = (uint64_t)v->num_tokens;
		r.dims[2] = sh[i][0];
		r.dims[3] = sh[i][1];
		r.ndims = 4;
		if (push_row(c->L->s, &r) != 0)
			return -ENOMEM;
	}
	return 0;
}

/* The board Vidur's folder name stands for: "a100" is the A100 SXM4 80GB
 * Vidur profiled (as bench_tc.c reads it), unless the board asked for
 * (keep, keep2) is another of the same die (compute capability and SMs),
 * which is then taken; other names are gpu_find()'s. */
static const struct gpu_spec *vidur_gpu(const struct loader *L, const char *name)
{
	const struct gpu_spec *g = gpu_find(strcmp(name, "a100") == 0 ? "a100-sxm4-80" : name);
	const struct gpu_spec *k[2] = {L->keep, L->keep2};
	for (int i = 0; g && i < 2; i++)
		if (k[i] && k[i]->cc == g->cc && k[i]->sms == g->sms)
			return k[i];
	return g;
}

/* Vidur's compute folder under path (path/compute, path/vidur/compute or
 * path itself), one sub-folder per GPU. */
static int load_vidur(struct loader *L, const char *path)
{
	static const char *const sub[] = {"compute", "vidur/compute", "."};
	char dir[4096], gdir[4096 + 256];
	struct stat sb;
	size_t i;
	for (i = 0; i < 3; i++) {
		snprintf(dir, sizeof dir, "%s/%s", path, sub[i]);
		if (stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode))
			break;
	}
	if (i == 3) {
		snprintf(L->err, L->errlen, "cannot read '%s': not a folder", path);
		return -1;
	}
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort), rc = 0, found = 0;
	if (n < 0) {
		snprintf(L->err, L->errlen, "cannot list '%s': %s", dir, strerror(errno));
		return -1;
	}
	struct vidur_ctx c = { .L = L, .none = intern(L->s->strings, "") };
	if (!c.none)
		rc = -ENOMEM;
	for (int j = 0; j < 4; j++)
		if (!(c.op[j] = intern(L->s->strings, vidur_gemm_ops[j])))
			rc = -ENOMEM;
	for (int j = 0; j < n; j++) {
		const char *nm = ents[j]->d_name;
		const struct gpu_spec *g = nm[0] != '.' ? vidur_gpu(L, nm) : NULL;
		if (rc == 0 && g && (!L->keep || g == L->keep || g == L->keep2)) {
			snprintf(gdir, sizeof gdir, "%s/%s", dir, nm);
			c.device = intern(L->s->strings, nm);
			int r = c.device ? vidur_each_row_in(gdir, g, vidur_gemm_ops, 4, vidur_row, &c,
							     L->err, L->errlen) : -ENOMEM;
			if (r == 0)
				found = 1;
			else if (r != -ENOENT)
				rc = r;
		}
		free(ents[j]);
	}
	free(ents);
	if (rc == -ENOMEM && !L->err[0])
		snprintf(L->err, L->errlen, "'%s': out of memory", dir);
	if (rc == 0 && !found && !L->keep)
		snprintf(L->err, L->errlen, "'%s': no <gpu>/<org>/<model>/mlp.csv of a known GPU", dir);
	return rc < 0 || (!found && !L->keep) ? -1 : 0;
}

static int load_file(struct loader *L, const char *path)
{
	struct csv_reader csv;
	int rc = csv_open(&csv, path, 0);
	if (rc != 0) {
		snprintf(L->err, L->errlen, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	struct strpool *st = L->s->strings;
	size_t nh = 0;
	int have_hdr = 0, col[C_NCOLS], dcol[NS_MAXDIMS], nd = 0;
	while ((rc = csv_next(&csv)) == 1) {
		char **f = csv.field;
		if (!have_hdr) {
			have_hdr = 1;
			nh = csv.nfield;
			if (L->fmt == NS_FMT_PIPEWEAVE) {
				rc = load_pipeweave(L, &csv, path);
				break;
			}
			if (nh >= 2 && strcmp(f[0], "Precision") == 0) {
				if (L->fmt != NS_FMT_NEUSIGHT)
					rc = load_deepbench(L, &csv, path, f[1]);
				break;
			}
			if (L->fmt == NS_FMT_DEEPBENCH)
				break;       /* not a results file */
			if (strcmp(f[0], "GPU Model") == 0 || strcmp(f[0], "CPU Model") == 0 ||
			    strcmp(f[0], "Dense Matrix Multiplication") == 0)
				break;       /* DeepBench's specs and kernel lists: no times */
			for (int c = 0; c < C_NCOLS; c++)
				col[c] = find_col(f, nh, col_names[c]);
			const char *const *dims = find_col(f, nh, "Input_Channel") >= 0 ? conv_dims :
						  find_col(f, nh, "M") >= 0 ? gemm_dims : vec_dims;
			for (nd = 0; dims[nd]; nd++)
				dcol[nd] = find_col(f, nh, dims[nd]);
			if (col[C_OP] < 0 || col[C_LAT] < 0 || col[C_DEV] < 0) {
				snprintf(L->err, L->errlen, "'%s': not a NeuSight kernel CSV (no OPName, Latency, Device)", path);
				rc = -1;
				break;
			}
			continue;
		}
		if (csv.nfield != nh)
			continue;            /* ragged line: skip, as pandas would fail */
		struct ns_row r;
		memset(&r, 0, sizeof r);
		if (strcmp(f[col[C_OP]], "OPName") == 0)
			continue;            /* repeated header */
		r.device = intern(st, f[col[C_DEV]]);
		r.op = intern(st, f[col[C_OP]]);
		r.kname = intern(st, col[C_NAME] >= 0 ? f[col[C_NAME]] : "");
		r.kernels = intern(st, col[C_KERNELS] >= 0 ? f[col[C_KERNELS]] : "");
		if (!r.device || !r.op || !r.kname || !r.kernels) { rc = -1; break; }
		r.gpu = device_gpu(L, r.device);
		if (L->keep && r.gpu != L->keep && r.gpu != L->keep2)
			continue;
		char *end;
		r.latency_ms = strtod(f[col[C_LAT]], &end);
		if (*end || !(r.latency_ms > 0) || !isfinite(r.latency_ms))
			continue;
		for (int c = 0; c < 3; c++) {
			uint64_t v = 0;
			if (col[C_GX + c] >= 0 && parse_u64(f[col[C_GX + c]], &v) == 0)
				r.grid[c] = (uint32_t)v;
			if (col[C_BX + c] >= 0 && parse_u64(f[col[C_BX + c]], &v) == 0)
				r.block[c] = (uint32_t)v;
		}
		int ok = 1;
		for (int d = 0; d < nd; d++)
			if (dcol[d] < 0 || parse_u64(f[dcol[d]], &r.dims[d]) != 0)
				ok = 0;
		if (!ok)
			continue;
		r.ndims = (unsigned)nd;
		if (push_row(L->s, &r) != 0) { rc = -1; break; }
	}
	if (rc < 0 && !L->err[0])
		rc == -1 ? snprintf(L->err, L->errlen, "'%s': out of memory", path)
			 : snprintf(L->err, L->errlen, "%s", csv.err);
	csv_release(&csv);
	return rc < 0 ? -1 : 0;
}

static int has_csv_suffix(const char *n)
{
	size_t l = strlen(n);
	return l > 4 && strcasecmp(n + l - 4, ".csv") == 0;
}

static int load_path(struct loader *L, const char *path, int depth)
{
	struct stat sb;
	if (stat(path, &sb) != 0) {
		snprintf(L->err, L->errlen, "cannot read '%s': %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(sb.st_mode))
		return load_file(L, path);
	if (depth > 8)
		return 0;
	struct dirent **ents;
	int n = scandir(path, &ents, NULL, alphasort);
	if (n < 0) {
		snprintf(L->err, L->errlen, "cannot list '%s': %s", path, strerror(errno));
		return -1;
	}
	int rc = 0;
	for (int i = 0; i < n; i++) {
		const char *nm = ents[i]->d_name;
		if (rc == 0 && nm[0] != '.') {
			size_t l = strlen(path) + strlen(nm) + 2;
			char *sub = malloc(l);
			if (!sub) {
				rc = -1;
			} else {
				snprintf(sub, l, "%s/%s", path, nm);
				struct stat ss;
				if (stat(sub, &ss) == 0 && (S_ISDIR(ss.st_mode) || has_csv_suffix(nm)))
					rc = load_path(L, sub, depth + 1);
				free(sub);
			}
		}
		free(ents[i]);
	}
	free(ents);
	return rc;
}

int ns_load(struct ns_set *s, const char *path, const struct gpu_spec *keep,
	    const struct gpu_spec *keep2, char *err, size_t errlen)
{
	return ns_load_format(s, path, NS_FMT_AUTO, keep, keep2, err, errlen);
}

static const char *const format_names[NS_FMT_COUNT] = {
	[NS_FMT_AUTO] = "auto", [NS_FMT_NEUSIGHT] = "neusight", [NS_FMT_PIPEWEAVE] = "pipeweave",
	[NS_FMT_VIDUR] = "vidur", [NS_FMT_DEEPBENCH] = "deepbench",
};

int ns_format_parse(const char *str, enum ns_format *out)
{
	for (int i = 0; i < NS_FMT_COUNT; i++)
		if (strcasecmp(str, format_names[i]) == 0) {
			*out = (enum ns_format)i;
			return 0;
		}
	return -1;
}

/* A loader of fmt into s (its string pool made on first use), keeping
 * keep's and keep2's rows (NULL: all); 0, or -1 with a reason in err. */
static int loader_init(struct loader *L, struct ns_set *s, enum ns_format fmt,
		       const struct gpu_spec *keep, const struct gpu_spec *keep2, char *err,
		       size_t errlen)
{
	memset(L, 0, sizeof *L);
	L->s = s;
	L->fmt = fmt;
	L->keep = keep;
	L->keep2 = keep2 ? keep2 : keep;
	L->err = err;
	L->errlen = errlen;
	err[0] = 0;
	if (!s->strings && !(s->strings = calloc(1, sizeof(struct strpool)))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

int ns_load_format(struct ns_set *s, const char *path, enum ns_format fmt,
		   const struct gpu_spec *keep, const struct gpu_spec *keep2, char *err,
		   size_t errlen)
{
	struct loader L;
	if (loader_init(&L, s, fmt, keep, keep2, err, errlen) != 0)
		return -1;
	if (fmt == NS_FMT_VIDUR)
		return load_vidur(&L, path);
	return load_path(&L, path, 0);
}

int ns_load_deepbench_conv(struct ns_set *s, const char *path, char *err, size_t errlen)
{
	struct loader L;
	if (loader_init(&L, s, NS_FMT_DEEPBENCH, NULL, NULL, err, errlen) != 0)
		return -1;
	L.conv_only = 1;
	return load_path(&L, path, 0);
}

void ns_release(struct ns_set *s)
{
	if (s->strings) {
		strpool_release(s->strings);
		free(s->strings);
	}
	free(s->rows);
	memset(s, 0, sizeof *s);
}

/* ---- kernel records --------------------------------------------------- */

enum pred_op ns_op_class(const char *op)
{
	size_t l = strlen(op);
	if (!strcmp(op, "bmm") || !strcmp(op, "linear") || !strncmp(op, "matmul", 6) ||
	    (l > 5 && !strcmp(op + l - 5, "_proj")))   /* Vidur's projections */
		return PRED_OP_GEMM;
	if (!strcmp(op, "conv") || !strncmp(op, "conv2d_", 7))
		return PRED_OP_CONV;
	if (!strcmp(op, "softmax"))
		return PRED_OP_SOFTMAX;
	if (!strcmp(op, "ln") || !strcmp(op, "layernorm"))
		return PRED_OP_NORM;
	return PRED_OP_ELEMENTWISE;
}

/* Operands touched per element of an elementwise kernel: PyTorch's
 * at::detail::Array<char*, N> holds the output and the inputs. */
static unsigned elementwise_operands(const char *name, const char *op)
{
	const char *p = name ? strstr(name, "Array<char*, ") : NULL;
	if (p) {
		unsigned v = (unsigned)strtoul(p + 13, NULL, 10);
		if (v >= 1 && v <= 8)
			return v;
	}
	/* No name: binary ops read two tensors, the "u" (tensor-scalar) forms
	 * and unary ops one. */
	if (!strcmp(op, "add") || !strcmp(op, "mul") || !strcmp(op, "div") || !strcmp(op, "pow"))
		return 3;
	return 2;
}

/* Floating-point work per element, by operator (counts of the arithmetic
 * in PyTorch's functors; transcendental ones counted as ~8). */
static double elementwise_flops(const char *op)
{
	static const struct { const char *op; double f; } tab[] = {
		{"add", 1}, {"addu", 1}, {"mul", 1}, {"mulu", 1}, {"div", 1},
		{"divu", 1}, {"relu", 1}, {"pow", 8}, {"powu", 8}, {"tanh", 8},
		{"gelu", 12},
	};
	for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
		if (!strcmp(op, tab[i].op))
			return tab[i].f;
	return 1;
}

/* A DeepBench convolution row as the cuDNN call of its direction the
 * recorder would have written (struct trace_conv: NCHW, no dilation, one
 * group; FP16 data with FP32 accumulation for the tensor-core rows),
 * through the analyzer's own shape rule (ktable_lib_from_conv():
 * the direction's implicit GEMM, its FLOPs and bytes, a forward pass's
 * geometry).  0, or -1 when the shape leaves no output. */
static int db_conv_kernel(const struct ns_row *r, struct pred_kernel *k)
{
	const uint64_t *d = r->dims;
	struct trace_conv c;
	struct ktable_lib lib;
	int64_t out[2];
	for (int i = 0; i < 2; i++) {
		int64_t in = (int64_t)d[DB_H + i], fl = (int64_t)d[DB_R + i];
		int64_t pad = (int64_t)d[DB_PAD_H + i], st = (int64_t)d[DB_STRIDE_H + i];
		if (in + 2 * pad < fl)
			return -1;
		out[i] = (in + 2 * pad - fl) / st + 1;
	}
	memset(&c, 0, sizeof c);
	c.api = TRACE_CONV_API_IMPORTED;
	c.dir = !strcmp(r->op, "conv2d_dgrad") ? TRACE_CONV_BWD_DATA :
		!strcmp(r->op, "conv2d_wgrad") ? TRACE_CONV_BWD_FILTER : TRACE_CONV_FWD;
	c.nbdims = 4;
	c.in[0] = c.out[0] = (int64_t)d[DB_N];
	c.in[1] = c.filt[1] = (int64_t)d[DB_C];
	c.in[2] = (int64_t)d[DB_H];
	c.in[3] = (int64_t)d[DB_W];
	c.filt[0] = c.out[1] = (int64_t)d[DB_K];
	c.filt[2] = (int64_t)d[DB_R];
	c.filt[3] = (int64_t)d[DB_S];
	c.out[2] = out[0];
	c.out[3] = out[1];
	c.pad[0] = (int64_t)d[DB_PAD_H];
	c.pad[1] = (int64_t)d[DB_PAD_W];
	c.stride[0] = (int64_t)d[DB_STRIDE_H];
	c.stride[1] = (int64_t)d[DB_STRIDE_W];
	c.dilation[0] = c.dilation[1] = 1;
	c.groups = 1;
	c.dtype = r->dtype == GPU_DT_FP16 ? TRACE_DT_F16 : TRACE_DT_F32;
	c.compute_type = TRACE_DT_F32;
	ktable_lib_from_conv(&lib, &c);
	k->dtype = lib.dtype;
	k->m = lib.m;
	k->n = lib.n;
	k->k = lib.k;
	k->batch = 1;
	k->flops = lib.flops;
	k->bytes = lib.bytes;
	k->conv = lib.conv;
	return k->m && k->n && k->k ? 0 : -1;
}

int ns_kernel(const struct ns_row *r, int launch, struct pred_kernel *k)
{
	memset(k, 0, sizeof *k);
	k->op = ns_op_class(r->op);
	k->dtype = r->dtype;
	if (launch) {
		k->name = r->kname[0] ? r->kname : NULL;
		/* A convolution's time is its kernels' (transforms and GEMM):
		 * their names together say the algorithm (conv.c). */
		if (k->op == PRED_OP_CONV && r->kernels && r->kernels[0])
			k->name = r->kernels;
		memcpy(k->grid, r->grid, sizeof k->grid);
		memcpy(k->block, r->block, sizeof k->block);
		k->origin_ns = r->latency_ms * 1e6;
	}
	if (k->op == PRED_OP_GEMM) {
		if (r->ndims != 4)
			return -1;
		double B = (double)r->dims[0], M = (double)r->dims[1], N = (double)r->dims[2],
		       K = (double)r->dims[3];
		/* surfer's convention: batch x (m x k) * (k x n); NeuSight's N is
		 * the reduction and K the output's columns. */
		k->batch = r->dims[0];
		k->m = r->dims[1];
		k->k = r->dims[2];
		k->n = r->dims[3];
		k->flops = 2 * B * M * N * K;
		double wb = strcmp(r->op, "linear") == 0 ? 1 : B;  /* shared weight */
		/* FP8 GEMMs write BF16; the others their input type. */
		double in = gpu_dtype_bytes(r->dtype), out = r->dtype == GPU_DT_FP8 ? 2 : in;
		k->bytes = in * (B * M * N + wb * N * K) + out * B * M * K;
	} else if (k->op == PRED_OP_CONV && r->ndims == DB_FWD) {
		if (db_conv_kernel(r, k) != 0)
			return -1;
	} else if (k->op == PRED_OP_CONV) {
		if (r->ndims != 7)
			return -1;
		/* Implicit GEMM: m = B x output pixels, n = Cout, k = Cin x R x S. */
		double B = (double)r->dims[0], ci = (double)r->dims[1], co = (double)r->dims[2],
		       ks = (double)r->dims[3], in = (double)r->dims[4], st = (double)r->dims[5],
		       pad = (double)r->dims[6];
		double out = floor((in + 2 * pad - ks) / (st > 0 ? st : 1)) + 1;
		if (!(out >= 1))
			return -1;
		k->batch = 1;
		k->m = (uint64_t)(B * out * out);
		k->n = r->dims[2];
		k->k = (uint64_t)(ci * ks * ks);
		k->flops = 2 * B * out * out * co * ci * ks * ks;
		k->bytes = 4 * (B * ci * in * in + co * ci * ks * ks + B * co * out * out);
		k->conv.r = k->conv.s = (uint32_t)ks;
		k->conv.p = k->conv.q = (uint32_t)out;
		k->conv.unit = st == 1;
	} else {
		if (r->ndims != 2)
			return -1;
		double numel = (double)r->dims[0] * (double)r->dims[1];
		k->m = r->dims[0];
		k->n = r->dims[1];
		if (k->op == PRED_OP_ELEMENTWISE) {
			k->bytes = 4.0 * elementwise_operands(launch ? r->kname : NULL, r->op) * numel;
			k->flops = elementwise_flops(r->op) * numel;
		} else if (k->op == PRED_OP_SOFTMAX) {
			k->bytes = 8 * numel;          /* read once, write once */
			k->flops = 5 * numel;          /* max, sub, exp, sum, div */
		} else {
			k->bytes = 8 * numel + 8.0 * (double)r->dims[1]; /* + gamma, beta */
			k->flops = 8 * numel;          /* mean, variance, normalise, affine */
		}
	}
	if (!(k->flops > 0) || !(k->bytes > 0))
		return -1;
	return 0;
}

/* ---- pairing ---------------------------------------------------------- */

static int cmp_shape(const struct ns_row *a, const struct ns_row *b)
{
	int c = strcmp(a->op, b->op);
	if (c)
		return c;
	if (a->dtype != b->dtype)
		return a->dtype < b->dtype ? -1 : 1;
	if (a->ndims != b->ndims)
		return a->ndims < b->ndims ? -1 : 1;
	for (unsigned i = 0; i < a->ndims; i++)
		if (a->dims[i] != b->dims[i])
			return a->dims[i] < b->dims[i] ? -1 : 1;
	return 0;
}

static int cmp_rowp(const void *x, const void *y)
{
	const struct ns_row *a = *(const struct ns_row *const *)x;
	const struct ns_row *b = *(const struct ns_row *const *)y;
	int c = cmp_shape(a, b);
	if (c)
		return c;
	return a < b ? -1 : a > b;   /* stable: file order among duplicates */
}

int ns_pairs(const struct ns_set *s, const struct gpu_spec *origin,
	     const struct gpu_spec *target, const char *op,
	     struct ns_pair **out, size_t *n)
{
	const struct ns_row **o = malloc((s->n + 1) * sizeof *o);
	const struct ns_row **t = malloc((s->n + 1) * sizeof *t);
	struct ns_pair *p = malloc((s->n + 1) * sizeof *p);
	size_t no = 0, nt = 0, np = 0;
	if (!o || !t || !p) {
		free(o); free(t); free(p);
		return -1;
	}
	for (size_t i = 0; i < s->n; i++) {
		const struct ns_row *r = &s->rows[i];
		if (op && strcmp(r->op, op) != 0)
			continue;
		if (r->gpu && r->gpu == target)
			t[nt++] = r;
		else if (origin && r->gpu && r->gpu == origin)
			o[no++] = r;
	}
	qsort(t, nt, sizeof *t, cmp_rowp);
	if (!origin) {
		for (size_t i = 0; i < nt; i++)
			if (i == 0 || cmp_shape(t[i - 1], t[i]) != 0)
				p[np++] = (struct ns_pair){NULL, t[i]};
	} else {
		qsort(o, no, sizeof *o, cmp_rowp);
		size_t j = 0;
		for (size_t i = 0; i < no; i++) {
			if (i > 0 && cmp_shape(o[i - 1], o[i]) == 0)
				continue;        /* duplicate shape: pair once */
			while (j < nt && cmp_shape(t[j], o[i]) < 0)
				j++;
			if (j < nt && cmp_shape(t[j], o[i]) == 0)
				p[np++] = (struct ns_pair){o[i], t[j]};
		}
	}
	free(o);
	free(t);
	*out = p;
	*n = np;
	return 0;
}

/* ---- statistics ------------------------------------------------------- */

void ns_stats_compute(double *ape, size_t n, struct ns_stats *out)
{
	memset(out, 0, sizeof *out);
	out->n = n;
	if (!n)
		return;
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += ape[i];
	out->mape = sum / n;
	qsort(ape, n, sizeof *ape, lab_cmp_double);
	out->median = n % 2 ? ape[n / 2] : 0.5 * (ape[n / 2 - 1] + ape[n / 2]);
	double rank = 0.9 * (double)(n - 1);
	size_t lo = (size_t)floor(rank);
	size_t hi = lo + 1 < n ? lo + 1 : lo;
	out->p90 = ape[lo] + (rank - lo) * (ape[hi] - ape[lo]);
}
