/* DIR/params.json of a bisection: see bisect_params.h. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "core/bisect_params.h"
#include "util/jsonpath.h"

json_t *bisect_params_to_json(const struct bisect_params *p)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:{s:s, s:s}, s:{s:s, s:s}, s:{s:s?, "
			 "s:s?, s:i}, s:f, s:i, s:i, s:b, s:s, s:i}",
			 "schema", BISECT_PARAMS_SCHEMA, "job_file", p->job_file, "job_sha256",
			 p->job_sha256, "variant_file", p->variant_file, "variant", p->variant,
			 "repo", p->repo,
			 "good", "ref", p->good_ref, "commit", p->good,
			 "bad", "ref", p->bad_ref, "commit", p->bad,
			 "series", "workload", p->workload[0] ? p->workload : NULL,
			 "metric", p->metric[0] ? p->metric : NULL, "tasks", (int)p->tasks,
			 "threshold_pct", p->threshold_pct, "boots", (int)p->boots,
			 "max_tries", (int)p->max_tries, "check_revert", p->check_revert,
			 "timing", p->timing, "parallel", p->parallel);
}

static int str(const json_t *o, const char *key, const char *path, char *dst, size_t len,
	       int optional, struct lab_error *err)
{
	const json_t *v = json_object_get(o, key);
	char p[JSONPATH_LEN];

	jsonpath_key(p, sizeof(p), path, key);
	if (!v || json_is_null(v)) {
		if (optional) {
			dst[0] = '\0';
			return 0;
		}
		return error_set(err, p, "missing");
	}
	if (!json_is_string(v) || json_string_length(v) >= len)
		return error_set(err, p, "must be a string of at most %zu bytes", len - 1);
	memcpy(dst, json_string_value(v), json_string_length(v) + 1);
	return 0;
}

static int num(const json_t *o, const char *key, const char *path, double lo, double hi,
	       double *out, struct lab_error *err)
{
	const json_t *v = json_object_get(o, key);
	char p[JSONPATH_LEN];

	jsonpath_key(p, sizeof(p), path, key);
	if (!json_is_number(v) || !(json_number_value(v) >= lo && json_number_value(v) <= hi))
		return error_set(err, p, "must be a number %g..%g", lo, hi);
	*out = json_number_value(v);
	return 0;
}

static int hex(const char *s, const char *path, struct lab_error *err)
{
	size_t n = strlen(s);

	if ((n != 40 && n != 64) || strspn(s, "0123456789abcdef") != n)
		return error_set(err, path, "must be a full commit name");
	return 0;
}

int bisect_params_from_json(const json_t *j, struct bisect_params *p, struct lab_error *err)
{
	const json_t *good = json_object_get(j, "good"), *bad = json_object_get(j, "bad");
	const json_t *series = json_object_get(j, "series"), *rev;
	char schema[64];
	double d;
	int r;

	memset(p, 0, sizeof(*p));
	if (!json_is_object(j))
		return error_set(err, "", "must be an object");
	if ((r = str(j, "schema", "", schema, sizeof(schema), 0, err)) < 0)
		return r;
	if (strcmp(schema, BISECT_PARAMS_SCHEMA))
		return error_set(err, "schema", "is \"%s\"; this lab reads \"%s\"", schema,
				 BISECT_PARAMS_SCHEMA);
	if (!json_is_object(good) || !json_is_object(bad) || !json_is_object(series))
		return error_set(err, !json_is_object(good) ? "good" : !json_is_object(bad)
				 ? "bad" : "series", "must be an object");
	if ((r = str(j, "job_file", "", p->job_file, sizeof(p->job_file), 0, err)) < 0 ||
	    (r = str(j, "job_sha256", "", p->job_sha256, sizeof(p->job_sha256), 0, err)) < 0 ||
	    (r = str(j, "variant_file", "", p->variant_file, sizeof(p->variant_file), 0, err)) < 0 ||
	    (r = str(j, "variant", "", p->variant, sizeof(p->variant), 0, err)) < 0 ||
	    (r = str(j, "repo", "", p->repo, sizeof(p->repo), 0, err)) < 0 ||
	    (r = str(good, "ref", "good", p->good_ref, sizeof(p->good_ref), 0, err)) < 0 ||
	    (r = str(good, "commit", "good", p->good, sizeof(p->good), 0, err)) < 0 ||
	    (r = str(bad, "ref", "bad", p->bad_ref, sizeof(p->bad_ref), 0, err)) < 0 ||
	    (r = str(bad, "commit", "bad", p->bad, sizeof(p->bad), 0, err)) < 0 ||
	    (r = str(series, "workload", "series", p->workload, sizeof(p->workload), 1, err)) < 0 ||
	    (r = str(series, "metric", "series", p->metric, sizeof(p->metric), 1, err)) < 0 ||
	    (r = str(j, "timing", "", p->timing, sizeof(p->timing), 0, err)) < 0)
		return r;
	if ((r = hex(p->good, "good.commit", err)) < 0 || (r = hex(p->bad, "bad.commit", err)) < 0)
		return r;
	if (p->job_file[0] != '/' || p->variant_file[0] != '/' || p->repo[0] != '/')
		return error_set(err, p->job_file[0] != '/' ? "job_file" : p->variant_file[0] != '/'
				 ? "variant_file" : "repo", "must be an absolute path");
	if ((r = num(series, "tasks", "series", 0, 100000, &d, err)) < 0)
		return r;
	p->tasks = (unsigned)d;
	if ((r = num(j, "threshold_pct", "", 0.01, 1000, &p->threshold_pct, err)) < 0 ||
	    (r = num(j, "boots", "", 2, BISECT_MAX_BOOTS_STEP, &d, err)) < 0)
		return r;
	p->boots = (unsigned)d;
	if ((r = num(j, "max_tries", "", 1, 20, &d, err)) < 0)
		return r;
	p->max_tries = (unsigned)d;
	if ((r = num(j, "parallel", "", -1, 64, &d, err)) < 0)
		return r;
	p->parallel = (int)d;
	rev = json_object_get(j, "check_revert");
	if (!json_is_boolean(rev))
		return error_set(err, "check_revert", "must be true or false");
	p->check_revert = json_is_true(rev);
	return 0;
}
