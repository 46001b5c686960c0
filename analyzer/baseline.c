/*
 * baseline.c - the CI gate's baseline: the JSON report of every target with
 * every kernel group (so the kernels that grew can be named), marked with
 * "surfer_baseline": 1.  The comparison is on predicted iteration times; the
 * kernels reported are those whose predicted time per iteration grew the
 * most (new kernels count with their whole time).
 */
#include "analyzer/baseline.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "analyzer/report.h"

int baseline_save(const struct analysis *a, const struct report_model *m, const char *path,
		  char *err, size_t errlen)
{
	json_t *doc = report_json(a, m, 0);
	int rc;

	if (!doc) {
		snprintf(err, errlen, "out of memory");
		return SURFER_ENOMEM;
	}
	if (json_object_set_new(doc, "surfer_baseline", json_integer(1))) {
		json_decref(doc);
		snprintf(err, errlen, "out of memory");
		return SURFER_ENOMEM;
	}
	rc = json_dump_file(doc, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	json_decref(doc);
	if (rc) {
		snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
		return SURFER_EIO;
	}
	return 0;
}

static json_t *bl_find_target(json_t *preds, const char *id)
{
	size_t i;
	json_t *p;

	json_array_foreach(preds, i, p) {
		const char *t = json_string_value(json_object_get(p, "target"));
		if (t && strcmp(t, id) == 0)
			return p;
	}
	return NULL;
}

static double bl_kernel_ms(json_t *breakdown, const char *name)
{
	size_t i;
	json_t *k;

	json_array_foreach(breakdown, i, k) {
		const char *n = json_string_value(json_object_get(k, "kernel"));
		if (n && strcmp(n, name) == 0)
			return json_number_value(json_object_get(k, "predicted_ms"));
	}
	return 0;
}

static void bl_growers(const struct analysis_target *t, json_t *breakdown,
		       struct baseline_verdict *v)
{
	v->ngrowers = 0;
	for (size_t g = 0; g < t->ngroups; g++) {
		double cur = t->groups[g].pred_ns / 1e6, base = bl_kernel_ms(breakdown, t->groups[g].name);
		double d = cur - base;
		size_t at;

		if (d <= 0)
			continue;
		for (at = v->ngrowers; at > 0; at--) {
			const struct baseline_grower *p = &v->growers[at - 1];
			if (p->cur_ms - p->base_ms >= d)
				break;
		}
		if (at >= BASELINE_TOP_GROWERS)
			continue;
		if (v->ngrowers < BASELINE_TOP_GROWERS)
			v->ngrowers++;
		memmove(&v->growers[at + 1], &v->growers[at],
			(v->ngrowers - 1 - at) * sizeof(v->growers[0]));
		v->growers[at].name = t->groups[g].name;
		v->growers[at].base_ms = base;
		v->growers[at].cur_ms = cur;
	}
}

/* The baseline document at path (*doc, its "predictions" array *preds).
 * 0, or SURFER_EINVAL with a reason in err. */
static int bl_load(const char *path, json_t **doc, json_t **preds, char *err, size_t errlen)
{
	json_error_t je;

	*doc = json_load_file(path, 0, &je);
	if (!*doc) {
		snprintf(err, errlen, "cannot read baseline '%s': %s", path, je.text);
		return SURFER_EINVAL;
	}
	*preds = json_object_get(*doc, "predictions");
	if (json_integer_value(json_object_get(*doc, "surfer_baseline")) != 1 || !json_is_array(*preds)) {
		json_decref(*doc);
		*doc = NULL;
		snprintf(err, errlen, "'%s' is not a surfer baseline", path);
		return SURFER_EINVAL;
	}
	return 0;
}

int baseline_check(const char *path, char *err, size_t errlen)
{
	json_t *doc, *preds;
	int rc = bl_load(path, &doc, &preds, err, errlen);

	json_decref(doc);
	return rc;
}

int baseline_compare(const struct analysis *a, const char *path, double max_regression_pct,
		     struct baseline_verdict *out, size_t max, size_t *nout,
		     char *err, size_t errlen)
{
	json_t *doc, *preds;
	int regressed = 0;

	*nout = 0;
	if (bl_load(path, &doc, &preds, err, errlen))
		return SURFER_EINVAL;
	for (size_t t = 0; t < a->ntargets && *nout < max; t++) {
		const struct analysis_target *at = &a->targets[t];
		json_t *p = bl_find_target(preds, at->gpu->id);
		struct baseline_verdict *v;
		double base;

		if (!p)
			continue;
		base = json_number_value(json_object_get(p, "iteration_ms"));
		v = &out[(*nout)++];
		memset(v, 0, sizeof(*v));
		v->target = at->gpu->id;
		v->base_ms = base;
		v->cur_ms = at->iteration_ns / 1e6;
		v->growth_pct = base > 0 ? (v->cur_ms - base) / base * 100.0 : 0.0;
		v->limit_pct = max_regression_pct;
		if (max_regression_pct == BASELINE_AUTO) {
			double high = json_number_value(json_object_get(p, "iteration_ms_high"));
			double rel = base > 0 && high >= base ? high / base
				     : at->iteration_ns > 0 ? at->iteration_high_ns / at->iteration_ns : 1;
			v->limit_pct = (rel - 1) * 100.0;
		}
		v->regressed = v->growth_pct > v->limit_pct;
		regressed |= v->regressed;
		bl_growers(at, json_object_get(p, "breakdown"), v);
	}
	json_decref(doc);
	if (*nout == 0) {
		snprintf(err, errlen, "baseline '%s' predicts none of the targets asked for", path);
		return SURFER_EINVAL;
	}
	return regressed;
}

void baseline_print(FILE *f, const struct baseline_verdict *v, size_t n, int color)
{
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "gate       %s: %.3f ms -> %.3f ms (%+.1f%%), limit %.1f%%: %s%s%s\n",
			v[i].target, v[i].base_ms, v[i].cur_ms, v[i].growth_pct, v[i].limit_pct,
			color ? (v[i].regressed ? "\033[1;31m" : "\033[32m") : "",
			v[i].regressed ? "REGRESSION" : "ok", color ? "\033[0m" : "");
		if (!v[i].regressed)
			continue;
		for (size_t k = 0; k < v[i].ngrowers; k++) {
			char name[47];
			report_short_name(v[i].growers[k].name, name, 46);
			fprintf(f, "  grew     %-46s %+.3f ms (%.3f -> %.3f)\n", name,
				v[i].growers[k].cur_ms - v[i].growers[k].base_ms,
				v[i].growers[k].base_ms, v[i].growers[k].cur_ms);
		}
	}
}
