/*
 * optfail.c - why getopt_long() refused an option (optfail.h).
 */
#include "analyzer/optfail.h"

#include <stdio.h>
#include <string.h>

#include "trace/editdist.h"

#define OPTFAIL_NAME_MAX 63   /* longer names are compared on this many bytes */
#define OPTFAIL_LIST_MAX 4    /* candidates named for an ambiguous prefix */

/* The option opts names exactly name[0..len), or NULL. */
static const struct option *exact(const struct option *opts, const char *name, size_t len)
{
	for (const struct option *o = opts; o && o->name; o++)
		if (strlen(o->name) == len && !strncmp(o->name, name, len))
			return o;
	return NULL;
}

static const char *option_name(size_t i, const void *opts)
{
	return ((const struct option *)opts)[i].name;
}

void optfail_describe(const char *arg, const struct option *opts, char *buf, size_t n)
{
	if (!buf || !n)
		return;
	const char *name = arg && !strncmp(arg, "--", 2) ? arg + 2 : NULL;
	const char *eq = name ? strchr(name, '=') : NULL;
	size_t full = name ? (eq ? (size_t)(eq - name) : strlen(name)) : 0;
	if (!full) {   /* a short option, or "--=..." */
		snprintf(buf, n, "unknown option '%s'", arg ? arg : "");
		return;
	}
	/* names are matched on their first OPTFAIL_NAME_MAX bytes (no
	 * option's is that long) and shown whole */
	int len = (int)(full > OPTFAIL_NAME_MAX ? OPTFAIL_NAME_MAX : full);

	const struct option *o = exact(opts, name, (size_t)len), *only = NULL;
	if (o) {
		if (eq && o->has_arg == no_argument)
			snprintf(buf, n, "option '--%s' takes no value (given '%s')", o->name, arg);
		else
			snprintf(buf, n, "option '%s' was refused", arg);
		return;
	}

	/* a prefix: getopt_long() takes the options it starts when they are
	 * one option under several names, and refuses it otherwise */
	unsigned prefixed = 0;
	int one = 1;
	for (const struct option *p = opts; p && p->name; p++) {
		if (strncmp(p->name, name, (size_t)len))
			continue;
		if (!only)
			only = p;
		else if (p->has_arg != only->has_arg || p->flag != only->flag || p->val != only->val)
			one = 0;
		prefixed++;
	}
	if (prefixed && one) {
		if (eq && only->has_arg == no_argument)
			snprintf(buf, n, "option '--%s' takes no value (given '%s')", only->name, arg);
		else
			snprintf(buf, n, "option '%s' was refused", arg);
		return;
	}
	if (prefixed > 1) {
		size_t w = (size_t)snprintf(buf, n, "option '--%.*s' is ambiguous:", len, name);
		unsigned listed = 0;
		for (const struct option *p = opts; p && p->name && w < n; p++) {
			if (strncmp(p->name, name, (size_t)len))
				continue;
			if (listed++ == OPTFAIL_LIST_MAX) {
				snprintf(buf + w, n - w, " ...");
				break;
			}
			w += (size_t)snprintf(buf + w, n - w, "%s --%s", listed > 1 ? "," : "", p->name);
		}
		return;
	}

	/* a typo: the nearest name within one edit for short names, two for
	 * longer ones (a different word is further than that) */
	char want[OPTFAIL_NAME_MAX + 1];
	memcpy(want, name, (size_t)len);
	want[len] = '\0';
	size_t nopts = 0;
	while (opts && opts[nopts].name)
		nopts++;
	long near = edit_nearest(want, nopts, option_name, opts, len <= 4 ? 1 : 2);
	if (near >= 0 && full == (size_t)len)
		snprintf(buf, n, "unknown option '--%s' (did you mean '--%s'?)", want, opts[near].name);
	else
		snprintf(buf, n, "unknown option '--%.*s'", (int)(full < 4096 ? full : 4096), name);
}
