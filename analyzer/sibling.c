/*
 * sibling.c - another surfer program's path (sibling.h).
 */
#include "analyzer/sibling.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void sibling_self_dir(char *out, size_t n)
{
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (len <= 0) {
		snprintf(out, n, ".");
		return;
	}
	exe[len] = 0;
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = 0;
	snprintf(out, n, "%s", slash ? exe : ".");
}

int sibling_path(const char *prog, char *out, size_t n)
{
	char dir[PATH_MAX];
	sibling_self_dir(dir, sizeof dir);
	int len = snprintf(out, n, "%s/%s", dir, prog);
	if (len > 0 && (size_t)len < n && access(out, X_OK) == 0)
		return 1;
	snprintf(out, n, "%s", prog);
	return 0;
}
