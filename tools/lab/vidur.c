/*
 * vidur.c - walks and parses Vidur's measurement folders (see vidur.h).
 */
#include "tools/lab/vidur.h"
#include "trace/csv.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const vidur_gemm_ops[4] = {"attn_pre_proj", "attn_post_proj", "mlp_up_proj",
				       "mlp_down_proj"};

int vidur_gemm_shapes(const struct vidur_row *r, uint64_t in_out[4][2])
{
	uint64_t h = (uint64_t)r->n_head, kv = (uint64_t)r->n_kv_head;
	uint64_t e = (uint64_t)r->n_embd, ff = (uint64_t)r->n_expanded_embd;
	uint64_t tp = (uint64_t)r->tp, gated = r->gated ? 2 : 1;
	if (!h || !tp || !e)
		return -1;
	uint64_t hd = e / h;
	const uint64_t sh[4][2] = {
		{e, (h + 2 * kv) * hd / tp}, {h * hd / tp, e}, {e, ff * gated / tp}, {ff / tp, e},
	};
	memcpy(in_out, sh, sizeof sh);
	return 0;
}

struct walk {
	const char *const *ops;
	int nops;
	vidur_row_fn fn;
	void *ctx;
	char *err;
	size_t errlen;
};

/* The rows of one mlp.csv; -ENOENT when it is absent, -EINVAL (with a
 * reason in w->err) when it is not a table of Vidur's columns. */
static int each_row(const struct walk *w, const char *path, const struct gpu_spec *g)
{
	enum { H, KV, E, FF, GATE, TOK, TP, NMODEL };
	static const char *const model_cols[NMODEL] = {
		"n_head", "n_kv_head", "n_embd", "n_expanded_embd", "use_gated_mlp",
		"num_tokens", "num_tensor_parallel_workers",
	};
	char name[96];
	int c[VIDUR_MAXOPS], m[NMODEL], rc = 0;
	struct csv_reader csv;
	if (csv_open(&csv, path, 0) != 0)
		return -ENOENT;
	if ((rc = csv_next(&csv)) != 1) {
		if (rc == 0)
			snprintf(w->err, w->errlen, "'%s': empty", path);
		else
			snprintf(w->err, w->errlen, "%s", csv.err);
		csv_release(&csv);
		return rc == 0 ? -EINVAL : rc;
	}
	rc = 0;
	const char *missing = NULL;
	for (int i = 0; i < w->nops; i++) {
		snprintf(name, sizeof name, "time_stats.%s.median", w->ops[i]);
		if ((c[i] = csv_col(&csv, name)) < 0 && !missing)
			missing = w->ops[i];
	}
	for (int i = 0; i < NMODEL; i++)
		if ((m[i] = csv_col(&csv, model_cols[i])) < 0 && !missing)
			missing = model_cols[i];
	if (missing) {
		snprintf(w->err, w->errlen, "'%s': no column for '%s'", path, missing);
		csv_release(&csv);
		return -EINVAL;
	}
	while (rc == 0 && (rc = csv_next(&csv)) == 1) {
		rc = 0;
		if (csv.nfield <= (size_t)m[TP])
			continue;
#define F(i) csv_field(&csv, (size_t)(i))
		struct vidur_row r = {
			.n_head = strtod(F(m[H]), NULL), .n_kv_head = strtod(F(m[KV]), NULL),
			.n_embd = strtod(F(m[E]), NULL), .n_expanded_embd = strtod(F(m[FF]), NULL),
			.num_tokens = strtod(F(m[TOK]), NULL), .tp = strtod(F(m[TP]), NULL),
			.gated = !strcmp(F(m[GATE]), "True"),
		};
		for (int i = 0; i < w->nops; i++)
			r.median_ms[i] = strtod(F(c[i]), NULL);
#undef F
		rc = w->fn(w->ctx, &r, g);
	}
	if (rc < 0 && !w->err[0])
		snprintf(w->err, w->errlen, "%s", csv.err);
	csv_release(&csv);
	return rc;
}

int vidur_each_row(const char *root, const char *sub, const char *gpu, const char *const *ops,
		   int nops, vidur_row_fn fn, void *ctx, char *err, size_t errlen)
{
	char dir[4096];
	const struct gpu_spec *g = gpu_find(gpu);

	err[0] = 0;
	if (!g)
		return -ENOENT;
	snprintf(dir, sizeof dir, "%s/vidur/compute/%s", root, sub);
	return vidur_each_row_in(dir, g, ops, nops, fn, ctx, err, errlen);
}

int vidur_each_row_in(const char *dir, const struct gpu_spec *g, const char *const *ops,
		      int nops, vidur_row_fn fn, void *ctx, char *err, size_t errlen)
{
	char path[4096 + 512];
	const struct walk w = { ops, nops, fn, ctx, err, errlen };
	int rc = 0;

	err[0] = 0;
	if (nops < 0 || nops > VIDUR_MAXOPS)
		return -EINVAL;
	DIR *d = opendir(dir);
	if (!d || !g) {
		if (d)
			closedir(d);
		return -ENOENT;
	}
	struct dirent *org;
	while (rc == 0 && (org = readdir(d))) {
		if (org->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, org->d_name);
		DIR *d2 = opendir(path);
		if (!d2)
			continue;
		struct dirent *mod;
		while (rc == 0 && (mod = readdir(d2))) {
			char p2[4096 + 1024];
			if (mod->d_name[0] == '.')
				continue;
			snprintf(p2, sizeof p2, "%s/%s/%s/mlp.csv", dir, org->d_name, mod->d_name);
			int r = each_row(&w, p2, g);
			if (r != -ENOENT)
				rc = r;
		}
		closedir(d2);
	}
	closedir(d);
	return rc;
}
