/* The projection's priors: see projpriors.h. */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "core/projpriors.h"
#include "util/jsonpath.h"

static const struct {
	const char *key;
	size_t off;
	double max; /* a bound no real machine reaches: a typo, not a prior */
} fields[] = {
	{ "cpi", offsetof(struct proj_priors, cpi), 100 },
	{ "clock_ghz", offsetof(struct proj_priors, clock_ghz), 20 },
	{ "line_local_ns", offsetof(struct proj_priors, line_local_ns), 10000 },
	{ "line_remote_ns", offsetof(struct proj_priors, line_remote_ns), 10000 },
};

static int prior_from_json(const json_t *o, const char *path, double max, struct proj_prior *p,
			   struct lab_error *err)
{
	static const char *const keys[] = { "lo", "hi", "shape", "basis", NULL };
	const json_t *lo = json_object_get(o, "lo"), *hi = json_object_get(o, "hi");
	const char *shape = json_string_value(json_object_get(o, "shape"));
	const char *basis = json_string_value(json_object_get(o, "basis"));
	char p2[JSONPATH_LEN];
	int r;

	if (!json_is_object(o))
		return error_set(err, path, "must be an object {\"lo\", \"hi\", \"shape\", \"basis\"}");
	if ((r = jsonpath_check_keys(o, path, keys, err)) < 0)
		return r;
	jsonpath_key(p2, sizeof(p2), path, "lo");
	if (!json_is_number(lo) || !(json_number_value(lo) > 0) || json_number_value(lo) > max)
		return error_set(err, p2, "must be a number > 0 and <= %g", max);
	jsonpath_key(p2, sizeof(p2), path, "hi");
	if (!json_is_number(hi) || !(json_number_value(hi) >= json_number_value(lo)) ||
	    json_number_value(hi) > max)
		return error_set(err, p2, "must be a number >= lo (%g) and <= %g",
				 json_number_value(lo), max);
	jsonpath_key(p2, sizeof(p2), path, "shape");
	if (!shape || (strcmp(shape, "uniform") && strcmp(shape, "log-uniform")))
		return error_set(err, p2, "must be \"uniform\" or \"log-uniform\"");
	jsonpath_key(p2, sizeof(p2), path, "basis");
	/* A prior without its source is a number nobody can check. */
	if (!basis || !basis[0] || strlen(basis) >= sizeof(p->basis))
		return error_set(err, p2, "must say where the range comes from, in at most %zu "
				 "bytes", sizeof(p->basis) - 1);
	p->lo = json_number_value(lo);
	p->hi = json_number_value(hi);
	p->log = !strcmp(shape, "log-uniform");
	memcpy(p->basis, basis, strlen(basis) + 1);
	return 0;
}

int projpriors_from_json(const json_t *j, struct proj_priors *p, struct lab_error *err)
{
	static const char *const keys[] = { "schema", "cpi", "clock_ghz", "line_local_ns",
					    "line_remote_ns", NULL };
	const char *schema = json_string_value(json_object_get(j, "schema"));
	int r;

	memset(p, 0, sizeof(*p));
	if (!json_is_object(j))
		return error_set(err, "", "projection priors must be a JSON object");
	if ((r = jsonpath_check_keys(j, "", keys, err)) < 0)
		return r;
	if (!schema || strcmp(schema, PROJPRIORS_SCHEMA))
		return error_set(err, "schema", "must be \"%s\"", PROJPRIORS_SCHEMA);
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		const json_t *o = json_object_get(j, fields[i].key);

		if (!o)
			return error_set(err, fields[i].key, "missing");
		r = prior_from_json(o, fields[i].key, fields[i].max,
				    (struct proj_prior *)((char *)p + fields[i].off), err);
		if (r < 0)
			return r;
	}
	return 0;
}

json_t *projpriors_to_json(const struct proj_priors *p)
{
	json_t *o = json_pack("{s:s}", "schema", PROJPRIORS_SCHEMA);

	for (size_t i = 0; o && i < sizeof(fields) / sizeof(fields[0]); i++) {
		const struct proj_prior *x =
			(const struct proj_prior *)((const char *)p + fields[i].off);

		if (json_object_set_new(o, fields[i].key,
					json_pack("{s:f, s:f, s:s, s:s}", "lo", x->lo, "hi", x->hi,
						  "shape", x->log ? "log-uniform" : "uniform",
						  "basis", x->basis)) < 0) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}
