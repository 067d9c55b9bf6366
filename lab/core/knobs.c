#include "core/knobs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "proto/knob.h"
#include "util/cleanup.h"
#include "util/jsonpath.h"

/* "required": true (every knob given) or an array of knob names that are given. */
static int norm_required(const json_t *knobs, const json_t *v, const char *prefix, json_t *out,
			 struct lab_error *err)
{
	json_t *arr = json_array(), *e;
	char p[JSONPATH_LEN], pi[JSONPATH_LEN];
	const char *key;
	size_t i;

	if (!arr)
		return -ENOMEM;
	json_object_set_new(out, KNOB_REQUIRED, arr);
	if (!v || json_is_false(v))
		return 0;
	if (json_is_true(v)) {
		json_object_foreach((json_t *)knobs, key, e)
			if (strcmp(key, KNOB_REQUIRED))
				json_array_append_new(arr, json_string(key));
		return 0;
	}
	jsonpath_key(p, sizeof(p), prefix, KNOB_REQUIRED);
	if (!json_is_array(v))
		return error_set(err, p, "must be true, false or an array of knob names");
	json_array_foreach(v, i, e) {
		const char *s = json_string_value(e);

		jsonpath_index(pi, sizeof(pi), p, i);
		if (!s || !knob_find(s) || !json_object_get(knobs, s))
			return error_set(err, pi, "must name a knob set in this job");
		json_array_append_new(arr, json_string(s));
	}
	return 0;
}

/* Every knob the job sets, in the table's order; the guest gets integers for booleans. */
static int check_all(const json_t *v, const struct topology *topo, const char *prefix,
		     json_t *out, struct lab_error *err)
{
	for (size_t i = 0; i < knob_count(); i++) {
		const struct knob_def *k = knob_at(i);
		const json_t *e = json_object_get(v, k->name);
		char p[JSONPATH_LEN];
		int r;

		if (!e)
			continue;
		jsonpath_key(p, sizeof(p), prefix, k->name);
		r = knob_check(k, e, p, topo->nr_nodes, err);
		if (r < 0)
			return r;
		if (k->job_bool && json_is_boolean(e))
			json_object_set_new(out, k->name, json_integer(json_is_true(e)));
	}
	return norm_required(v, json_object_get(v, KNOB_REQUIRED), prefix, out, err);
}

int knobs_parse_at(const json_t *v, const struct topology *topo, const char *prefix,
		   json_t **out, struct lab_error *err)
{
	_cleanup_json_ json_t *norm = NULL;
	int r;

	*out = NULL;
	if (!v)
		return 0;
	r = knob_check_keys(v, prefix, err);
	if (r < 0)
		return r;
	norm = json_deep_copy(v);
	if (!norm)
		return -ENOMEM;
	r = check_all(v, topo, prefix, norm, err);
	if (r < 0)
		return r;
	*out = TAKE_PTR(norm);
	return 0;
}

int knobs_parse(const json_t *v, const struct topology *topo, json_t **out,
		struct lab_error *err)
{
	return knobs_parse_at(v, topo, "knobs", out, err);
}

/* Per-size and per-node objects merge size by size; anything else the variant's value wins. */
static int merge_value(json_t *into, const char *key, json_t *v)
{
	json_t *old = json_object_get(into, key);

	if (json_is_object(old) && json_is_object(v)) {
		_cleanup_json_ json_t *m = json_deep_copy(old);

		if (!m || json_object_update(m, v) < 0)
			return -ENOMEM;
		return json_object_set(into, key, m) < 0 ? -ENOMEM : 0;
	}
	return json_object_set(into, key, v) < 0 ? -ENOMEM : 0;
}

/* "required" of both, each name once, the job's first. */
static int merge_required(json_t *into, const json_t *add)
{
	json_t *req = json_object_get(into, KNOB_REQUIRED), *e, *have;
	size_t i, j;

	if (!req) {
		req = json_array();
		if (!req || json_object_set_new(into, KNOB_REQUIRED, req) < 0)
			return -ENOMEM;
	}
	json_array_foreach(add, i, e) {
		int dup = 0;

		json_array_foreach(req, j, have)
			dup |= json_equal(have, e);
		if (!dup && json_array_append(req, e) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* "required": every knob m sets. */
static int require_all(json_t *m)
{
	json_t *arr = json_array(), *v;
	const char *key;

	if (!arr || json_object_set_new(m, KNOB_REQUIRED, arr) < 0)
		return -ENOMEM;
	json_object_foreach(m, key, v)
		if (strcmp(key, KNOB_REQUIRED) && json_array_append_new(arr, json_string(key)) < 0)
			return -ENOMEM;
	return 0;
}

int knobs_merge(const json_t *job_knobs, const json_t *own, bool all_required, json_t **out)
{
	_cleanup_json_ json_t *m = NULL;
	const char *key;
	json_t *v;
	int r;

	*out = NULL;
	if (!own) {
		*out = job_knobs ? json_incref((json_t *)job_knobs) : NULL;
		return 0;
	}
	m = job_knobs ? json_deep_copy(job_knobs) : json_object();
	if (!m)
		return -ENOMEM;
	json_object_foreach((json_t *)own, key, v) {
		r = strcmp(key, KNOB_REQUIRED) ? merge_value(m, key, v) : merge_required(m, v);
		if (r < 0)
			return r;
	}
	if (all_required && (r = require_all(m)) < 0)
		return r;
	*out = TAKE_PTR(m);
	return 0;
}
