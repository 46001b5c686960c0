/*
 * vidur.c - walks Vidur's measurement folders (see vidur.h).
 */
#include "tools/vidur.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>

int vidur_each_csv(const char *root, const char *sub, const char *gpu, vidur_csv_fn fn,
		   void *ctx)
{
	char dir[4096], path[4096 + 512];
	const struct gpu_spec *g = gpu_find(gpu);
	int rc = 0;

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
			int r = fn(ctx, p2, g);
			if (r != -ENOENT)
				rc = r;
		}
		closedir(d2);
	}
	closedir(d);
	return rc;
}
