/*
 * prices.c - the --price list (prices.h).  A family key matches whole
 * '-'-separated parts of an id, so "a10" never prices an A100.
 */
#include "analyzer/prices.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/targets.h"
#include "trace/surfer_err.h"

/* A --price key as compared with GPU ids: lower case, ' ' and '_' as '-'. */
static void price_key(const char *s, char *out, size_t cap)
{
	size_t n = 0;

	for (; *s && n + 1 < cap; s++)
		out[n++] = *s == ' ' || *s == '_' ? '-' : (char)tolower((unsigned char)*s);
	out[n] = 0;
}

/* Whether the len bytes of key are the first whole '-'-separated parts of
 * id ("a100" of "a100-sxm4-80", not "a10"). */
static int in_family(const char *id, const char *key, size_t len)
{
	return len && !strncmp(id, key, len) && (id[len] == '-' || !id[len]);
}

/* Whether key is the first whole '-'-separated parts of some GPU's id. */
static int family_known(const char *key)
{
	size_t n, len = strlen(key);
	const struct gpu_spec *all = gpu_all(&n);

	for (size_t i = 0; i < n; i++)
		if (in_family(all[i].id, key, len))
			return 1;
	return 0;
}

static int parse_usd(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return errno || end == s || *end || *out != *out ? -1 : 0;
}

int prices_add(struct price_list *l, const char *arg, char *err, size_t errlen)
{
	const char *eq = strrchr(arg, '=');
	char gpu[128], key[64];
	const struct gpu_spec *g;
	double v;
	int rc;

	if (!eq && parse_usd(arg, &v) == 0) {
		/* a bare price: every target no GPU's or family's price names */
		if (!(v > 0) || v > 1e9) {
			snprintf(err, errlen, "bad --price '%s': a price in USD per hour > 0 is expected",
				 arg);
			return SURFER_EINVAL;
		}
		l->any_usd_per_hour = v;
		return 0;
	}
	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(gpu)) {
		snprintf(err, errlen, "bad --price '%s': GPU=USD_PER_HOUR or USD_PER_HOUR is expected",
			 arg);
		return SURFER_EINVAL;
	}
	memcpy(gpu, arg, (size_t)(eq - arg));
	gpu[eq - arg] = 0;
	if (parse_usd(eq + 1, &v) < 0 || !(v > 0) || v > 1e9) {
		snprintf(err, errlen, "bad --price '%s': a price in USD per hour > 0 is expected", arg);
		return SURFER_EINVAL;
	}
	price_key(gpu, key, sizeof(key));
	g = gpu_find(gpu);
	if (!g && !family_known(key) && (rc = target_find(gpu, &g, err, errlen)))
		return rc;
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->p[i].key, key) || (g && l->p[i].gpu == g)) {
			l->p[i].usd_per_hour = v;
			return 0;
		}
	if (l->n == PRICES_MAX) {
		snprintf(err, errlen, "too many prices (at most %d)", PRICES_MAX);
		return SURFER_EINVAL;
	}
	l->p[l->n].gpu = g;
	snprintf(l->p[l->n].key, sizeof(l->p[0].key), "%s", key);
	l->p[l->n++].usd_per_hour = v;
	return 0;
}

double prices_of(struct price_list *l, const struct gpu_spec *g)
{
	size_t best = SIZE_MAX, best_len = 0;

	for (size_t i = 0; i < l->n; i++)
		if (l->p[i].gpu == g) {
			l->p[i].used = 1;
			return l->p[i].usd_per_hour;
		}
	for (size_t i = 0; i < l->n; i++) {
		size_t n = strlen(l->p[i].key);
		if (in_family(g->id, l->p[i].key, n) && n > best_len) {
			best = i;
			best_len = n;
		}
	}
	if (best == SIZE_MAX) {
		if (l->any_usd_per_hour > 0)
			l->any_used = 1;
		return l->any_usd_per_hour;
	}
	l->p[best].used = 1;
	return l->p[best].usd_per_hour;
}

void prices_warn_unused(const struct price_list *l, FILE *f, const char *prog)
{
	for (size_t i = 0; i < l->n; i++)
		if (!l->p[i].used)
			fprintf(f, "%s: warning: --price '%s' names no target (%s)\n", prog, l->p[i].key,
				l->p[i].gpu ? l->p[i].gpu->id : "no GPU of that family");
	if (l->any_usd_per_hour > 0 && !l->any_used)
		fprintf(f, "%s: warning: --price %g prices no target: each has a price of its own\n",
			prog, l->any_usd_per_hour);
}
