/*
 * vidur.c - walks and parses Vidur's measurement folders (see vidur.h).
 */
#include "tools/vidur.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VIDUR_MAXCOL 128

int vidur_split(char *line, char **f, int max)
{
	int n = 0;
	char *p = line;

	line[strcspn(line, "\r\n")] = 0;
	while (n < max) {
		f[n++] = p;
		char *c = strchr(p, ',');
		if (!c)
			break;
		*c = 0;
		p = c + 1;
	}
	return n;
}

int vidur_col(char **f, int nf, const char *name)
{
	for (int i = 0; i < nf; i++)
		if (!strcmp(f[i], name))
			return i;
	return -1;
}

struct walk {
	const char *const *ops;
	int nops;
	vidur_row_fn fn;
	void *ctx;
};

/* The rows of one mlp.csv; -ENOENT when it is absent. */
static int each_row(const struct walk *w, const char *path, const struct gpu_spec *g)
{
	enum { H, KV, E, FF, GATE, TOK, TP, NMODEL };
	static const char *const model_cols[NMODEL] = {
		"n_head", "n_kv_head", "n_embd", "n_expanded_embd", "use_gated_mlp",
		"num_tokens", "num_tensor_parallel_workers",
	};
	char line[16384], *f[VIDUR_MAXCOL], name[96];
	int c[VIDUR_MAXOPS], m[NMODEL], rc = 0;
	FILE *fp = fopen(path, "r");
	if (!fp)
		return -ENOENT;
	if (!fgets(line, sizeof line, fp)) {
		fclose(fp);
		return -EINVAL;
	}
	int nf = vidur_split(line, f, VIDUR_MAXCOL), missing = 0;
	for (int i = 0; i < w->nops; i++) {
		snprintf(name, sizeof name, "time_stats.%s.median", w->ops[i]);
		missing |= (c[i] = vidur_col(f, nf, name)) < 0;
	}
	for (int i = 0; i < NMODEL; i++)
		missing |= (m[i] = vidur_col(f, nf, model_cols[i])) < 0;
	if (missing) {
		fclose(fp);
		return -EINVAL;
	}
	while (rc == 0 && fgets(line, sizeof line, fp)) {
		nf = vidur_split(line, f, VIDUR_MAXCOL);
		if (nf <= m[TP])
			continue;
		struct vidur_row r = {
			.n_head = strtod(f[m[H]], NULL), .n_kv_head = strtod(f[m[KV]], NULL),
			.n_embd = strtod(f[m[E]], NULL), .n_expanded_embd = strtod(f[m[FF]], NULL),
			.num_tokens = strtod(f[m[TOK]], NULL), .tp = strtod(f[m[TP]], NULL),
			.gated = !strcmp(f[m[GATE]], "True"),
		};
		for (int i = 0; i < w->nops; i++)
			r.median_ms[i] = strtod(f[c[i]], NULL);
		rc = w->fn(w->ctx, &r, g);
	}
	fclose(fp);
	return rc;
}

int vidur_each_row(const char *root, const char *sub, const char *gpu, const char *const *ops,
		   int nops, vidur_row_fn fn, void *ctx)
{
	char dir[4096], path[4096 + 512];
	const struct gpu_spec *g = gpu_find(gpu);
	const struct walk w = { ops, nops, fn, ctx };
	int rc = 0;

	if (nops < 0 || nops > VIDUR_MAXOPS)
		return -EINVAL;
	snprintf(dir, sizeof dir, "%s/vidur/compute/%s", root, sub);
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
