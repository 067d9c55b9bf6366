#include "core/knobs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "proto/knob.h"
#include "util/cleanup.h"
#include "util/jsonpath.h"

/* "required": true (every knob given) or an array of knob names that are given. */
static int norm_required(const json_t *knobs, const json_t *v, json_t *out,
			 struct lab_error *err)
{
	json_t *arr = json_array(), *e;
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
	if (!json_is_array(v))
		return error_set(err, "knobs." KNOB_REQUIRED,
				 "must be true, false or an array of knob names");
	json_array_foreach(v, i, e) {
		char p[JSONPATH_LEN];
		const char *s = json_string_value(e);

		jsonpath_index(p, sizeof(p), "knobs." KNOB_REQUIRED, i);
		if (!s || !knob_find(s) || !json_object_get(knobs, s))
			return error_set(err, p, "must name a knob set in this job");
		json_array_append_new(arr, json_string(s));
	}
	return 0;
}

/* Every knob the job sets, in the table's order; the guest gets integers for booleans. */
static int check_all(const json_t *v, const struct topology *topo, json_t *out,
		     struct lab_error *err)
{
	for (size_t i = 0; i < knob_count(); i++) {
		const struct knob_def *k = knob_at(i);
		const json_t *e = json_object_get(v, k->name);
		char p[JSONPATH_LEN];
		int r;

		if (!e)
			continue;
		jsonpath_key(p, sizeof(p), "knobs", k->name);
		r = knob_check(k, e, p, topo->nr_nodes, err);
		if (r < 0)
			return r;
		if (k->job_bool && json_is_boolean(e))
			json_object_set_new(out, k->name, json_integer(json_is_true(e)));
	}
	return norm_required(v, json_object_get(v, KNOB_REQUIRED), out, err);
}

int knobs_parse(const json_t *v, const struct topology *topo, json_t **out,
		struct lab_error *err)
{
	_cleanup_json_ json_t *norm = NULL;
	int r;

	*out = NULL;
	if (!v)
		return 0;
	r = knob_check_keys(v, err);
	if (r < 0)
		return r;
	norm = json_deep_copy(v);
	if (!norm)
		return -ENOMEM;
	r = check_all(v, topo, norm, err);
	if (r < 0)
		return r;
	*out = TAKE_PTR(norm);
	return 0;
}
