/*
 * prices.h - the hourly prices given for target GPUs (surfer-analyze
 * --price GPU=USD): a price names one GPU (an id, name or alias, as
 * gpu_find resolves them) or a family of ids (whole '-'-separated parts:
 * "a100" for every A100), and each target takes the most specific price
 * that names it.  The reports turn a target's price into costs
 * (report_cost); nothing here knows about reports.
 */
#ifndef SURFER_PRICES_H
#define SURFER_PRICES_H

#include <stddef.h>
#include <stdio.h>

#include "gpu_specs/gpu.h"

#define PRICES_MAX 256

struct price_list {
	struct {
		const struct gpu_spec *gpu; /* the GPU the key names, NULL for a family */
		char key[64];             /* as typed, lower case, ' ' and '_' as '-' */
		double usd_per_hour;
		int used;                 /* some target took it (prices_of)          */
	} p[PRICES_MAX];
	size_t n;
	double any_usd_per_hour;          /* a bare --price USD: the targets no
					   * key names; 0 none                   */
	int any_used;
};

/* Adds "GPU=USD_PER_HOUR" to l; a later price of the same GPU or family
 * replaces the earlier one.  A bare "USD_PER_HOUR" is the price of every
 * target no GPU's or family's price names (the later bare one stands).
 * Returns 0, or SURFER_EINVAL with one line in err (neither form, not a
 * price > 0, an unknown GPU that names no family, too many prices). */
int prices_add(struct price_list *l, const char *arg, char *err, size_t errlen);

/* The price of target g in USD per hour: a price whose key names g (its
 * id, name or an alias) first, else the one whose key is the longest
 * family of g's id ("a100" and "a100-sxm4" for a100-sxm4-80, not "a10"),
 * else the bare price; 0 when none.  Marks the price used. */
double prices_of(struct price_list *l, const struct gpu_spec *g);

/* Writes "PROG: warning: --price 'KEY' names no target (...)" to f for
 * every price prices_of never returned. */
void prices_warn_unused(const struct price_list *l, FILE *f, const char *prog);

#endif
