/* `lab nightly`'s configuration and ledger: see nightly_cfg.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/nightly_cfg.h"
#include "core/timing.h"
#include "util/jsonpath.h"

static int get_str(const json_t *o, const char *base, const char *key, char *dst, size_t len,
		   const char *def, struct lab_error *err)
{
	const json_t *v = json_object_get(o, key);
	char p[JSONPATH_LEN];

	jsonpath_key(p, sizeof(p), base, key);
	if (!v) {
		if (!def)
			return error_set(err, p, "missing");
		snprintf(dst, len, "%s", def);
		return 0;
	}
	if (!json_is_string(v) || !json_string_length(v) || json_string_length(v) >= len)
		return error_set(err, p, "must be a non-empty string of at most %zu bytes",
				 len - 1);
	memcpy(dst, json_string_value(v), json_string_length(v) + 1);
	return 0;
}

static int get_num(const json_t *o, const char *base, const char *key, double lo, double hi,
		   double def, int integer, double *out, struct lab_error *err)
{
	const json_t *v = json_object_get(o, key);
	char p[JSONPATH_LEN];

	if (!v) {
		*out = def;
		return 0;
	}
	jsonpath_key(p, sizeof(p), base, key);
	if (!json_is_number(v) || (integer && !json_is_integer(v)) ||
	    !(json_number_value(v) >= lo && json_number_value(v) <= hi))
		return error_set(err, p, "must be %s %g..%g",
				 integer ? "an integer" : "a number", lo, hi);
	*out = json_number_value(v);
	return 0;
}

static int name_ok(const char *s)
{
	if (!s[0] || strlen(s) > 63)
		return 0;
	for (const char *c = s; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || strchr("._-", *c)))
			return 0;
	return s[0] != '.' && s[0] != '-';
}

static int parse_bisect(const json_t *j, struct nightly_cfg *c, struct lab_error *err)
{
	static const char *const keys[] = { "boots", "max_tries", "revert", NULL };
	const json_t *b = json_object_get(j, "bisect"), *rev;
	double d;
	int r;

	c->bisect = 1;
	c->bisect_boots = 2;
	c->bisect_tries = 3;
	c->bisect_revert = 1;
	if (!b)
		return 0;
	if (json_is_false(b)) {
		c->bisect = 0;
		return 0;
	}
	if (!json_is_object(b))
		return error_set(err, "bisect", "must be an object or false");
	if ((r = jsonpath_check_keys(b, "bisect", keys, err)) < 0 ||
	    (r = get_num(b, "bisect", "boots", 2, 50, 2, 1, &d, err)) < 0)
		return r;
	c->bisect_boots = (unsigned)d;
	if ((r = get_num(b, "bisect", "max_tries", 1, 20, 3, 1, &d, err)) < 0)
		return r;
	c->bisect_tries = (unsigned)d;
	rev = json_object_get(b, "revert");
	if (rev && !json_is_boolean(rev))
		return error_set(err, "bisect.revert", "must be true or false");
	c->bisect_revert = !rev || json_is_true(rev);
	return 0;
}

static int parse_jobs(const json_t *j, struct nightly_cfg *c, struct lab_error *err)
{
	static const char *const keys[] = { "job", "variant", NULL };
	const json_t *jobs = json_object_get(j, "jobs"), *e;
	size_t i;
	int r;

	if (!json_is_array(jobs) || !json_array_size(jobs) ||
	    json_array_size(jobs) > NIGHTLY_MAX_JOBS)
		return error_set(err, "jobs", "must be an array of 1..%d jobs", NIGHTLY_MAX_JOBS);
	json_array_foreach(jobs, i, e) {
		char p[64];

		jsonpath_index(p, sizeof(p), "jobs", i);
		if (!json_is_object(e))
			return error_set(err, p, "must be an object {\"job\", \"variant\"}");
		if ((r = jsonpath_check_keys(e, p, keys, err)) < 0 ||
		    (r = get_str(e, p, "job", c->jobs[i].job, sizeof(c->jobs[i].job), NULL,
				 err)) < 0 ||
		    (r = get_str(e, p, "variant", c->jobs[i].variant, sizeof(c->jobs[i].variant),
				 NULL, err)) < 0)
			return r;
	}
	c->nr_jobs = (unsigned)json_array_size(jobs);
	return 0;
}

int nightly_cfg_from_json(const json_t *j, struct nightly_cfg *c, struct lab_error *err)
{
	static const char *const keys[] = { "name", "branch", "out", "threshold_pct", "window",
					    "boots", "confirm_boots", "timing", "parallel",
					    "bisect", "jobs", NULL };
	enum timing_model tm;
	double d;
	int r;

	memset(c, 0, sizeof(*c));
	if (!json_is_object(j))
		return error_set(err, "", "a nightly configuration must be a JSON object");
	if ((r = jsonpath_check_keys(j, "", keys, err)) < 0 ||
	    (r = get_str(j, "", "name", c->name, sizeof(c->name), NULL, err)) < 0)
		return r;
	if (!name_ok(c->name))
		return error_set(err, "name", "must be [a-z0-9._-], at most 63 characters");
	if ((r = get_str(j, "", "branch", c->branch, sizeof(c->branch), "HEAD", err)) < 0 ||
	    (r = get_str(j, "", "out", c->out, sizeof(c->out), "reports/nightly", err)) < 0 ||
	    (r = get_str(j, "", "timing", c->timing, sizeof(c->timing), "auto", err)) < 0)
		return r;
	if (timing_parse(c->timing, &tm) < 0)
		return error_set(err, "timing", "must be auto, kvm, tcg, icount or quantum");
	if (c->branch[0] == '-')
		return error_set(err, "branch", "must be a ref, not an option");
	if ((r = get_num(j, "", "threshold_pct", 0.01, 1000, 1.0, 0, &c->threshold_pct, err)) < 0 ||
	    (r = get_num(j, "", "window", 1, 100, 5, 1, &d, err)) < 0)
		return r;
	c->window = (unsigned)d;
	if ((r = get_num(j, "", "boots", 2, 50, 3, 1, &d, err)) < 0)
		return r;
	c->boots = (unsigned)d;
	if ((r = get_num(j, "", "confirm_boots", 2, 50, 5, 1, &d, err)) < 0)
		return r;
	c->confirm_boots = (unsigned)d;
	if ((r = get_num(j, "", "parallel", 0, 64, 0, 1, &d, err)) < 0)
		return r;
	c->parallel = (int)d;
	if ((r = parse_bisect(j, c, err)) < 0)
		return r;
	return parse_jobs(j, c, err);
}

/* ---- the ledger ------------------------------------------------------------------------------ */

static int night_from_json(const json_t *o, const char *base, struct nightly_night *n,
			   struct lab_error *err)
{
	const json_t *tries = json_object_get(o, "tries"), *al = json_object_get(o, "alarm");
	const char *k;
	json_t *v;
	int r;

	memset(n, 0, sizeof(*n));
	if (!json_is_object(o))
		return error_set(err, base, "must be an object");
	if ((r = get_str(o, base, "night", n->night, sizeof(n->night), NULL, err)) < 0 ||
	    (r = get_str(o, base, "job", n->job, sizeof(n->job), NULL, err)) < 0 ||
	    (r = get_str(o, base, "variant", n->variant, sizeof(n->variant), NULL, err)) < 0 ||
	    (r = get_str(o, base, "commit", n->commit, sizeof(n->commit), NULL, err)) < 0 ||
	    (r = get_str(o, base, "subject", n->subject, sizeof(n->subject), "-", err)) < 0 ||
	    (r = get_str(o, base, "report", n->report, sizeof(n->report), NULL, err)) < 0)
		return r;
	if (strstr(n->report, "..") || n->report[0] == '/')
		return error_set(err, base, "report: must be a path inside the ledger's directory");
	n->ok = json_is_true(json_object_get(o, "ok"));
	if (tries && !json_is_object(tries))
		return error_set(err, base, "tries: must be an object");
	json_object_foreach((json_t *)tries, k, v) {
		if (n->nr_tries >= NIGHTLY_MAX_SERIES || !json_is_integer(v))
			return error_set(err, base, "tries: too many, or not integers");
		snprintf(n->tries[n->nr_tries].series, sizeof(n->tries[0].series), "%s", k);
		n->tries[n->nr_tries++].tries = (unsigned)json_integer_value(v);
	}
	n->alarm = al && json_is_object(al) ? json_incref((json_t *)al) : NULL;
	return 0;
}

int nightly_ledger_from_json(const json_t *j, struct nightly_ledger *l, struct lab_error *err)
{
	const json_t *nights, *e;
	size_t i;
	int r;

	memset(l, 0, sizeof(*l));
	if (!j)
		return 0;
	nights = json_object_get(j, "nights");
	if (!json_is_object(j) ||
	    !json_is_string(json_object_get(j, "schema")) ||
	    strcmp(json_string_value(json_object_get(j, "schema")), NIGHTLY_LEDGER_SCHEMA))
		return error_set(err, "schema", "must be \"%s\"", NIGHTLY_LEDGER_SCHEMA);
	if (!json_is_array(nights) || json_array_size(nights) > NIGHTLY_MAX_NIGHTS)
		return error_set(err, "nights", "must be an array of at most %d nights",
				 NIGHTLY_MAX_NIGHTS);
	if (!(l->nights = calloc(json_array_size(nights) + 1, sizeof(*l->nights))))
		return -ENOMEM;
	json_array_foreach(nights, i, e) {
		char p[64];

		jsonpath_index(p, sizeof(p), "nights", i);
		if ((r = night_from_json(e, p, &l->nights[i], err)) < 0) {
			nightly_ledger_free(l);
			return r;
		}
		l->n++;
	}
	return 0;
}

json_t *nightly_ledger_to_json(const struct nightly_ledger *l)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < l->n; i++) {
		const struct nightly_night *n = &l->nights[i];
		json_t *t = json_object();

		for (unsigned k = 0; t && k < n->nr_tries; k++)
			json_object_set_new(t, n->tries[k].series, json_integer(n->tries[k].tries));
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:b, s:o, s:O?}",
						   "night", n->night, "job", n->job, "variant",
						   n->variant, "commit", n->commit, "subject",
						   n->subject, "report", n->report, "ok", n->ok,
						   "tries", t, "alarm", n->alarm));
	}
	return json_pack("{s:s, s:o}", "schema", NIGHTLY_LEDGER_SCHEMA, "nights", a);
}

int nightly_ledger_add(struct nightly_ledger *l, const struct nightly_night *n)
{
	struct nightly_night *g;

	if (l->n >= NIGHTLY_MAX_NIGHTS) {
		json_decref(l->nights[0].alarm);
		memmove(l->nights, l->nights + 1, (l->n - 1) * sizeof(*l->nights));
		l->n--;
	}
	if (!(g = realloc(l->nights, (l->n + 1) * sizeof(*g))))
		return -ENOMEM;
	l->nights = g;
	g[l->n] = *n;
	if (n->alarm)
		json_incref(n->alarm);
	l->n++;
	return 0;
}

void nightly_ledger_free(struct nightly_ledger *l)
{
	for (size_t i = 0; i < l->n; i++)
		json_decref(l->nights[i].alarm);
	free(l->nights);
	memset(l, 0, sizeof(*l));
}

unsigned nightly_tries_get(const struct nightly_night *n, const char *series)
{
	for (unsigned k = 0; k < n->nr_tries; k++)
		if (!strcmp(n->tries[k].series, series))
			return n->tries[k].tries;
	return 0;
}

int nightly_tries_add(struct nightly_night *n, const char *series)
{
	for (unsigned k = 0; k < n->nr_tries; k++)
		if (!strcmp(n->tries[k].series, series)) {
			n->tries[k].tries++;
			return 0;
		}
	if (n->nr_tries >= NIGHTLY_MAX_SERIES)
		return -E2BIG;
	snprintf(n->tries[n->nr_tries].series, sizeof(n->tries[0].series), "%s", series);
	n->tries[n->nr_tries++].tries = 1;
	return 0;
}
