/*
 * settings.c - the SURFER_* environment, read once into preload_cfg.
 *
 * A value that cannot be understood is reported with one warning and
 * leaves the default: SURFER_DISABLE=true must not record, a typo in
 * SURFER_ITERATIONS must not record everything silently.
 *
 * Must never: act on a setting (starting, stopping and where to write
 * belong to recorder.c and output.c), or read the environment after
 * initialization (the host may change it while threads run).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "preload/recorder.h"

struct preload_settings preload_cfg;

static int env_int(const char *name, int dflt)
{
	const char *s = getenv(name);
	if (!s || !*s)
		return dflt;
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || v < 0 || v > 1000000000) {
		preload_warn("ignoring %s='%s': not a count", name, s);
		return dflt;
	}
	return (int)v;
}

/* A switch: a number (0 off, any other on), yes/no, true/false, on/off
 * (any case); anything else is reported and leaves the default
 * (SURFER_DISABLE=true must not record). */
static int env_flag(const char *name, int dflt)
{
	static const char *const on[] = {"yes", "true", "on"}, *const off[] = {"no", "false", "off"};
	const char *s = getenv(name);
	if (!s || !*s)
		return dflt;
	char *end;
	long v = strtol(s, &end, 10);
	if (!*end)
		return v != 0;
	for (size_t i = 0; i < sizeof on / sizeof on[0]; i++) {
		if (!strcasecmp(s, on[i]))
			return 1;
		if (!strcasecmp(s, off[i]))
			return 0;
	}
	preload_warn("ignoring %s='%s': use 1 or 0", name, s);
	return dflt;
}

void preload_settings_load(void)
{
	struct preload_settings *c = &preload_cfg;
	c->disabled = env_flag("SURFER_DISABLE", 0);
	c->verbose = env_flag("SURFER_VERBOSE", 0);
	preload_log_verbose(c->verbose);
	c->skip = env_int("SURFER_SKIP", 0);
	c->iterations = env_int("SURFER_ITERATIONS", 0);
	c->stacks = env_flag("SURFER_STACKS", 0);
	c->world_size = env_int("WORLD_SIZE", 0);
	const char *t = getenv("SURFER_TIMING");
	c->timing = TRACE_TIMING_CUPTI;
	if (t && strcmp(t, "events") == 0)
		c->timing = TRACE_TIMING_EVENTS;
	else if (t && strcmp(t, "none") == 0)
		c->timing = TRACE_TIMING_NONE;
	else if (t && *t && strcmp(t, "cupti") != 0)
		preload_warn("ignoring SURFER_TIMING='%s': use cupti, events or none", t);
	const char *o = getenv("SURFER_OUTPUT");
	snprintf(c->output, sizeof c->output, "%s", o && *o ? o : "surfer-%p.mp");
}
