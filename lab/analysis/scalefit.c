#include "analysis/scalefit.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/cleanup.h"

int scalefit_variant(const struct series_set *s, size_t group, size_t variant,
		     struct usl_fit *out, const char **why)
{
	const struct series_what *g = &s->groups[group];
	_cleanup_free_ unsigned *n = NULL;
	_cleanup_free_ double *x = NULL;
	size_t len = 0, cap = 0;
	int r;

	*why = NULL;
	if (!g->higher || !series_unit_is_rate(g->unit)) {
		*why = "not a throughput: the scalability law describes rates where higher is better";
		return -EINVAL;
	}
	for (size_t k = 0; k < s->nr_keys; k++) {
		const struct series *se = s->keys[k].group == group ? series_get(s, k, variant) : NULL;

		if (se)
			cap += se->n;
	}
	n = calloc(cap + 1, sizeof(*n));
	x = calloc(cap + 1, sizeof(*x));
	if (!n || !x)
		return -ENOMEM;
	for (size_t k = 0; k < s->nr_keys; k++) {
		const struct series *se = s->keys[k].group == group ? series_get(s, k, variant) : NULL;

		for (size_t i = 0; se && i < se->n; i++) {
			n[len] = s->keys[k].tasks;
			x[len++] = se->v[i];
		}
	}
	r = usl_fit(n, x, len, out);
	if (r == -EINVAL)
		*why = "needs a point at 1 task and two or more task counts above 1, all > 0";
	return r;
}

static json_t *ci_json(const double *ci)
{
	return isfinite(ci[0]) && isfinite(ci[1]) ? json_pack("[f,f]", ci[0], ci[1]) : json_null();
}

json_t *scalefit_json(const struct usl_fit *f)
{
	return json_pack("{s:f, s:f, s:o, s:f, s:o, s:o, s:I, s:I, s:I}", "lambda", f->lambda,
			 "sigma", f->sigma, "sigma_ci", ci_json(f->sigma_ci), "kappa", f->kappa,
			 "kappa_ci", ci_json(f->kappa_ci), "r2",
			 isfinite(f->r2) ? json_real(f->r2) : json_null(), "n_min",
			 (json_int_t)f->n_min, "n_max", (json_int_t)f->n_max, "points",
			 (json_int_t)f->points);
}

json_t *scalefit_all_json(const struct series_set *s)
{
	json_t *a = json_array();

	for (size_t g = 0; a && g < s->nr_groups; g++)
		for (size_t v = 0; v < s->nr_variants && s->groups[g].higher &&
				   series_unit_is_rate(s->groups[g].unit); v++) {
			const struct series_what *w = &s->groups[g];
			struct usl_fit f;
			const char *why;
			int have = 0, r;

			/* Only throughputs are fitted (the loop's test); the rest are not listed. */
			for (size_t k = 0; k < s->nr_keys && !have; k++)
				have = s->keys[k].group == g && series_get(s, k, v);
			if (!have)
				continue;
			r = scalefit_variant(s, g, v, &f, &why);
			if (r == -ENOMEM || json_array_append_new(a, json_pack(
				"{s:s, s:s, s:O, s:s, s:s, s:s, s:o, s:o}", "topology", w->topology,
				"workload", w->workload, "params", w->params, "metric", w->metric,
				"unit", w->unit, "label", s->variants[v].label, "usl",
				r == 0 ? scalefit_json(&f) : json_null(), "why",
				why ? json_string(why) : json_null())) < 0) {
				json_decref(a);
				return NULL;
			}
		}
	return a;
}
