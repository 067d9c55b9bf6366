/* The profiled fixtures of lab/tests/data/deltas/ planted into the synthetic A/B of
 * lab/tests/data/compare/ ({a,b}.json: B regresses, three boots a side, two results a boot),
 * shared by test_deltas (a `lab compare`) and test_bisect_class (a bisection's culprit against
 * its parent): one plant, so that both read the same figures.
 *
 * A case (lab/tests/data/deltas/NAME.json) gives, a run each, what to put into the info of
 * every result of A's and B's runs ("a", "b").  Its figures are per fault: the plant
 * multiplies every number by "ops", which it also gives every result as its page_faults
 * metric (null: neither, and figures are planted as they are). */
#pragma once
#include <math.h>

#include "testutil.h"

#define DELTAS_DATA "lab/tests/data/deltas"
#define DELTAS_REPORTS "lab/tests/data/compare/"

/* A deep copy of v with every number multiplied by k. */
static inline json_t *deltas_scaled(const json_t *v, double k)
{
	json_t *c, *x;
	const char *key;
	size_t i;

	if (json_is_number(v))
		return json_real(round(json_number_value(v) * k));
	if (json_is_object(v)) {
		c = json_object();
		json_object_foreach((json_t *)v, key, x)
			json_object_set_new(c, key, deltas_scaled(x, k));
		return c;
	}
	if (json_is_array(v)) {
		c = json_array();
		json_array_foreach(v, i, x)
			json_array_append_new(c, deltas_scaled(x, k));
		return c;
	}
	return json_deep_copy(v);
}

/* Side's entries into doc's runs, the n-th run getting the n-th.  0, or -EINVAL. */
static inline int deltas_plant(json_t *doc, const json_t *c, const char *side)
{
	const json_t *ops = json_object_get(c, "ops"), *run, *res, *patch;
	double k = json_is_number(ops) ? json_number_value(ops) : 1;
	size_t i, j;

	json_array_foreach(json_object_get(doc, "runs"), i, run) {
		if (!(patch = json_array_get(json_object_get(c, side), i)))
			return -EINVAL;
		json_array_foreach(json_object_get(json_array_get(json_object_get(run, "workloads"),
								  0),
						   "results"),
				   j, res) {
			_cleanup_json_ json_t *x = deltas_scaled(patch, k);

			json_object_update(json_object_get(res, "info"), x);
			if (json_is_number(ops))
				json_object_set_new(json_object_get(res, "metrics"), "page_faults",
						    json_pack("{s:f,s:s,s:s}", "value", k, "unit",
							      "faults", "better", "lower"));
		}
	}
	return 0;
}

/* The case's A and B reports, planted: *a and *b to be freed.  0, or -EINVAL (both NULL). */
static inline int deltas_case_load(const char *name, json_t **a, json_t **b)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_json_ json_t *c = NULL;

	*a = testutil_load(DELTAS_REPORTS "a.json");
	*b = testutil_load(DELTAS_REPORTS "b.json");
	if (asprintf(&path, DELTAS_DATA "/%s.json", name) >= 0 && (c = testutil_load(path)) &&
	    *a && *b && deltas_plant(*a, c, "a") == 0 && deltas_plant(*b, c, "b") == 0)
		return 0;
	json_decref(*a);
	json_decref(*b);
	*a = *b = NULL;
	return -EINVAL;
}
