#include "proto/guestjob.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "proto/knob.h"
#include "proto/workload.h"
#include "util/cleanup.h"
#include "util/jsonpath.h"

#define K_SCHEMA "schema"
#define K_RUN_ID "run_id"
#define K_FAULT "fault"
#define K_FAULT_AFTER "fault_after"
#define K_HEARTBEAT "heartbeat_s"
#define K_WORKLOADS "workloads"
#define K_KNOBS "knobs"
#define K_ONLINE "online_after_boot"
#define K_PERF "perf_stat"
#define K_W_NAME "name"
#define K_W_PARAMS "params"
#define K_W_TIMEOUT "timeout_s"
#define K_W_ASLR "aslr"

static const char *const job_keys[] = {
	K_SCHEMA, K_RUN_ID, K_FAULT, K_HEARTBEAT, K_WORKLOADS, K_FAULT_AFTER, K_PERF, K_KNOBS,
	K_ONLINE, NULL,
};
static const char *const workload_keys[] = {K_W_NAME, K_W_TIMEOUT, K_W_PARAMS, K_W_ASLR, NULL};

#define DEFAULT_HEARTBEAT_S 2.0

/* ---- building ------------------------------------------------------------------------------ */

/* Whole seconds as a JSON integer, as the host always wrote them. */
static json_t *seconds(double s)
{
	return s == floor(s) && fabs(s) < 1e15 ? json_integer((json_int_t)s) : json_real(s);
}

static json_t *build_workloads(const struct guestjob *gj)
{
	_cleanup_json_ json_t *ws = json_array();

	for (size_t i = 0; ws && i < gj->nr_workloads; i++) {
		const struct guestjob_workload *w = &gj->workloads[i];
		json_t *o = json_pack("{s:s,s:O*}", K_W_NAME, w->name, K_W_PARAMS, w->params);

		if (o && w->timeout_s > 0 &&
		    json_object_set_new(o, K_W_TIMEOUT, json_real(w->timeout_s)) < 0)
			json_decref(TAKE_PTR(o));
		/* Only when off, as older agents expect no such key. */
		if (o && w->no_aslr && json_object_set_new(o, K_W_ASLR, json_false()) < 0)
			json_decref(TAKE_PTR(o));
		if (json_array_append_new(ws, o) < 0)
			return NULL;
	}
	return TAKE_PTR(ws);
}

json_t *guestjob_build(const struct guestjob *gj)
{
	_cleanup_json_ json_t *j = json_pack("{s:s,s:s,s:s,s:o,s:o,s:O*}", K_SCHEMA,
					      GUESTJOB_SCHEMA, K_RUN_ID, gj->run_id, K_FAULT,
					      fault_name(gj->fault), K_HEARTBEAT,
					      seconds(gj->heartbeat_s), K_WORKLOADS,
					      build_workloads(gj), K_KNOBS, gj->knobs);

	if (!j)
		return NULL;
	if (gj->online_after_boot && json_object_set_new(j, K_ONLINE, json_true()) < 0)
		return NULL;
	if (gj->fault_after != FAULT_AFTER_HELLO &&
	    json_object_set_new(j, K_FAULT_AFTER,
				json_string(fault_after_name(gj->fault_after))) < 0)
		return NULL;
	if (gj->perf_stat && json_object_set(j, K_PERF, (json_t *)gj->perf_stat) < 0)
		return NULL;
	return TAKE_PTR(j);
}

/* ---- validating ---------------------------------------------------------------------------- */

static int name_ok(const char *s, size_t max, int allow_dash)
{
	size_t n = strlen(s);

	if (n == 0 || n > max || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= '0' && s[0] <= '9')))
		return 0;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' ||
		      (allow_dash && *p == '-')))
			return 0;
	return 1;
}

static int scalar_ok(const json_t *v)
{
	if (json_is_string(v))
		return strlen(json_string_value(v)) == json_string_length(v); /* no NULs */
	if (json_is_real(v))
		return isfinite(json_real_value(v));
	return json_is_integer(v);
}

int guestjob_perf_event_ok(const char *s)
{
	size_t l = s ? strlen(s) : 0;

	return l >= 1 && l <= 63 && isalnum((unsigned char)s[0]) &&
	       strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.:-") == l;
}

static int perf_ok(const json_t *events)
{
	size_t i, n = json_array_size(events);
	json_t *e;

	if (!json_is_array(events) || n < 1 || n > GUESTJOB_MAX_PERF_EVENTS)
		return 0;
	json_array_foreach(events, i, e)
		if (!guestjob_perf_event_ok(json_string_value(e)))
			return 0;
	return 1;
}

/* Params become a runner's argv (rt_argv_build): scalars, booleans, flat arrays of scalars. */
static int check_param(const char *path, const char *key, const json_t *v, struct lab_error *err)
{
	char p[JSONPATH_LEN], pi[JSONPATH_LEN];
	size_t i;
	json_t *e;

	jsonpath_key(p, sizeof(p), path, key);
	if (!name_ok(key, 64, 0))
		return error_set(err, p, "key must match [a-z0-9][a-z0-9_]*");
	if (json_is_boolean(v) || scalar_ok(v))
		return 0;
	if (!json_is_array(v) || json_array_size(v) > GUESTJOB_MAX_ARRAY)
		return error_set(err, p, "must be a string, number, boolean or array of at most %d "
				 "strings/numbers", GUESTJOB_MAX_ARRAY);
	json_array_foreach(v, i, e) {
		jsonpath_index(pi, sizeof(pi), p, i);
		if (!scalar_ok(e))
			return error_set(err, pi, "must be a string or number");
	}
	return 0;
}

static int check_workload(const json_t *w, size_t i, struct guestjob_workload *out,
			  struct lab_error *err)
{
	const json_t *name = json_object_get(w, K_W_NAME), *t = json_object_get(w, K_W_TIMEOUT);
	const json_t *params = json_object_get(w, K_W_PARAMS), *v;
	const json_t *aslr = json_object_get(w, K_W_ASLR);
	char path[JSONPATH_LEN], p[JSONPATH_LEN];
	const char *key;
	int r;

	jsonpath_index(path, sizeof(path), K_WORKLOADS, i);
	if (!json_is_object(w))
		return error_set(err, path, "must be an object");
	if ((r = jsonpath_check_keys(w, path, workload_keys, err)) < 0)
		return r;
	jsonpath_key(p, sizeof(p), path, K_W_NAME);
	if (!json_is_string(name) || !name_ok(json_string_value(name), 31, 1))
		return error_set(err, p, "must match [a-z0-9][a-z0-9_-]{0,30}");
	if (!workload_find(json_string_value(name)))
		return error_set(err, p, "unknown workload \"%s\"", json_string_value(name));
	jsonpath_key(p, sizeof(p), path, K_W_TIMEOUT);
	if (t && (!json_is_number(t) || !(json_number_value(t) >= 0) ||
		  json_number_value(t) > GUESTJOB_MAX_TIMEOUT_S))
		return error_set(err, p, "must be a number in 0..%.0f (0 = none)",
				 GUESTJOB_MAX_TIMEOUT_S);
	jsonpath_key(p, sizeof(p), path, K_W_ASLR);
	if (aslr && !json_is_boolean(aslr))
		return error_set(err, p, "must be true or false");
	jsonpath_key(p, sizeof(p), path, K_W_PARAMS);
	if (params && !json_is_object(params))
		return error_set(err, p, "must be an object");
	if (json_object_size(params) > GUESTJOB_MAX_PARAMS)
		return error_set(err, p, "more than %d keys", GUESTJOB_MAX_PARAMS);
	json_object_foreach((json_t *)params, key, v)
		if ((r = check_param(p, key, v, err)) < 0)
			return r;
	out->name = json_string_value(name);
	out->timeout_s = t ? json_number_value(t) : 0;
	out->params = params;
	out->no_aslr = json_is_false(aslr);
	return 0;
}

static int check_workloads(const json_t *wl, struct guestjob *out, struct lab_error *err)
{
	size_t i;
	json_t *v;

	if (!json_is_array(wl) || json_array_size(wl) > GUESTJOB_MAX_WORKLOADS)
		return error_set(err, K_WORKLOADS, "must be an array of at most %d entries",
				 GUESTJOB_MAX_WORKLOADS);
	json_array_foreach(wl, i, v) {
		int r = check_workload(v, i, &out->workloads[i], err);

		if (r < 0)
			return r;
	}
	out->nr_workloads = json_array_size(wl);
	return 0;
}

/* The keys of a disk-booted run and of a big TCG guest (PROTOCOL.md). */
static int check_options(const json_t *root, struct guestjob *out, struct lab_error *err)
{
	const json_t *perf = json_object_get(root, K_PERF);
	const json_t *online = json_object_get(root, K_ONLINE);
	int r;

	if ((r = knob_check_guest(json_object_get(root, K_KNOBS), err)) < 0 ||
	    (r = fault_after_parse(json_object_get(root, K_FAULT_AFTER), K_FAULT_AFTER,
				   &out->fault_after, err)) < 0)
		return r;
	out->knobs = json_object_get(root, K_KNOBS);
	if (perf && !perf_ok(perf))
		return error_set(err, K_PERF, "must be an array of 1..%d event names "
				 "[A-Za-z0-9][A-Za-z0-9_.:-]{0,62}", GUESTJOB_MAX_PERF_EVENTS);
	out->perf_stat = perf;
	if (online && !json_is_boolean(online))
		return error_set(err, K_ONLINE, "must be true or false");
	out->online_after_boot = json_is_true(online);
	return 0;
}

int guestjob_validate(const json_t *root, struct guestjob *out, struct lab_error *err)
{
	const json_t *schema = json_object_get(root, K_SCHEMA);
	const json_t *run_id = json_object_get(root, K_RUN_ID);
	const json_t *hb = json_object_get(root, K_HEARTBEAT);
	int r;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(root))
		return error_set(err, "", "must be a JSON object");
	if ((r = jsonpath_check_keys(root, "", job_keys, err)) < 0 ||
	    (r = check_options(root, out, err)) < 0)
		return r;
	if (!json_is_string(schema) || strcmp(json_string_value(schema), GUESTJOB_SCHEMA))
		return error_set(err, K_SCHEMA, "must be \"%s\"", GUESTJOB_SCHEMA);
	if (!json_is_string(run_id) || json_string_length(run_id) > GUESTJOB_MAX_RUN_ID)
		return error_set(err, K_RUN_ID, "must be a string of at most %d bytes",
				 GUESTJOB_MAX_RUN_ID);
	out->run_id = json_string_value(run_id);
	if ((r = fault_parse(json_object_get(root, K_FAULT), K_FAULT, &out->fault, err)) < 0)
		return r;
	out->heartbeat_s = hb ? json_number_value(hb) : DEFAULT_HEARTBEAT_S;
	if ((hb && !json_is_number(hb)) || !(out->heartbeat_s >= 0.1) || out->heartbeat_s > 3600)
		return error_set(err, K_HEARTBEAT, "must be a number in 0.1..3600");
	return check_workloads(json_object_get(root, K_WORKLOADS), out, err);
}
