/*
 * targets.c - resolving the target GPUs a command line names (targets.h).
 */
#include "analyzer/targets.h"

#include <stdio.h>
#include <string.h>

#include "analyzer/model/run.h"
#include "trace/surfer_err.h"

int target_find(const char *name, const struct gpu_spec **out, char *err, size_t errlen)
{
	const char *near[3];
	size_t n, len;

	*out = gpu_find(name);
	if (*out)
		return 0;
	/* words of one board in other words ("H100 SXM 80GB", "L40S 48GB"):
	 * that board; of several (V100-PCIe: 16 and 32 GB): name them all */
	const char *all[8];
	size_t k = gpu_named_by(name, all, 8);
	if (k == 1 && (*out = gpu_find(all[0])))
		return 0;
	if (k >= 2 && k <= 8) {
		len = (size_t)snprintf(err, errlen, "GPU '%s' names %zu GPUs:", name, k);
		for (size_t i = 0; i < k && len < errlen; i++)
			len += (size_t)snprintf(err + len, errlen - len, "%s %s", i ? "," : "", all[i]);
		if (len < errlen)
			snprintf(err + len, errlen - len, "; give one");
		return SURFER_EINVAL;
	}
	n = gpu_suggest(name, near, 3);
	if (n == 0) {
		snprintf(err, errlen, "unknown GPU '%s'; see --list-gpus", name);
		return SURFER_EINVAL;
	}
	len = (size_t)snprintf(err, errlen, "unknown GPU '%s' (closest:", name);
	for (size_t i = 0; i < n && len < errlen; i++)
		len += (size_t)snprintf(err + len, errlen - len, "%s %s", i ? "," : "", near[i]);
	if (len < errlen)
		snprintf(err + len, errlen - len, "); see --list-gpus");
	return SURFER_EINVAL;
}

int target_add(const struct gpu_spec **targets, size_t *n, size_t max, const struct gpu_spec *g,
	       char *err, size_t errlen)
{
	for (size_t i = 0; i < *n; i++)
		if (targets[i] == g)
			return 0;
	if (*n == max) {
		snprintf(err, errlen, "too many targets (at most %zu)", max);
		return SURFER_EINVAL;
	}
	targets[(*n)++] = g;
	return 0;
}

int target_add_all(const struct gpu_spec **targets, size_t *n, size_t max,
		   const struct model_opts *model, size_t *left, char *first, size_t firstcap,
		   char *err, size_t errlen)
{
	size_t count;
	const struct gpu_spec *all = gpu_all(&count);
	char why[256];
	int rc;

	*left = 0;
	if (firstcap)
		first[0] = 0;
	for (size_t i = 0; i < count; i++) {
		/* every GPU but those a --model run cannot be predicted on
		 * (BF16 without BF16 units); a GPU named with --target is
		 * refused instead */
		if (model && model_target_check(model, &all[i], why, sizeof(why))) {
			if (!(*left)++ && firstcap)
				snprintf(first, firstcap, "%s", why);
			continue;
		}
		if ((rc = target_add(targets, n, max, &all[i], err, errlen)))
			return rc;
	}
	return 0;
}
