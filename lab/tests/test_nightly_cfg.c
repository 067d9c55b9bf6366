/* `lab nightly`'s configuration and ledger (lab/core/nightly_cfg.h).  Data-driven:
 * lab/tests/data/nightly/ok-NAME.json must parse to the JSON in ok-NAME.expected (the struct
 * dumped back), err-NAME.json must fail with the "path: reason" line in err-NAME.expected.
 * The ledger goes to JSON and back unchanged; a hostile ledger is refused, never trusted. */
#include <errno.h>
#include <string.h>

#include "core/nightly_cfg.h"
#include "testutil.h"

static json_t *cfg_dump(const struct nightly_cfg *c)
{
	json_t *jobs = json_array();

	for (unsigned i = 0; i < c->nr_jobs; i++)
		json_array_append_new(jobs, json_pack("{s:s, s:s}", "job", c->jobs[i].job,
						      "variant", c->jobs[i].variant));
	return json_pack("{s:s, s:s, s:s, s:f, s:I, s:I, s:I, s:s, s:i, s:o, s:o}", "name",
			 c->name, "branch", c->branch, "out", c->out, "threshold_pct",
			 c->threshold_pct, "window", (json_int_t)c->window, "boots",
			 (json_int_t)c->boots, "confirm_boots", (json_int_t)c->confirm_boots,
			 "timing", c->timing, "parallel", c->parallel, "bisect",
			 c->bisect ? json_pack("{s:I, s:I, s:b}", "boots",
					       (json_int_t)c->bisect_boots, "max_tries",
					       (json_int_t)c->bisect_tries, "revert",
					       c->bisect_revert)
				   : json_false(),
			 "jobs", jobs);
}

static json_t *cfg_dump_any(const void *c)
{
	return cfg_dump(c);
}

static int cfg_parse(const json_t *j, void *c, struct lab_error *err)
{
	return nightly_cfg_from_json(j, c, err);
}

static void ledger_cases(void)
{
	struct nightly_ledger l = { 0 }, back;
	struct nightly_night n = { .ok = 1 };
	struct lab_error err = { 0 };
	_cleanup_json_ json_t *j = NULL, *j2 = NULL;
	_cleanup_free_ char *a = NULL, *b = NULL;

	snprintf(n.night, sizeof(n.night), "20261130-010000");
	snprintf(n.job, sizeof(n.job), "pft");
	snprintf(n.variant, sizeof(n.variant), "mm");
	snprintf(n.commit, sizeof(n.commit), "%040d", 1);
	snprintf(n.subject, sizeof(n.subject), "mm: a change");
	snprintf(n.report, sizeof(n.report), "20261130-010000/pft/run/report.json");
	tap_ok(nightly_tries_add(&n, "pft.faults_per_s@8#abcd") == 0 &&
	       nightly_tries_add(&n, "pft.faults_per_s@8#abcd") == 0 &&
	       nightly_tries_get(&n, "pft.faults_per_s@8#abcd") == 2 &&
	       nightly_tries_get(&n, "other") == 0, "confirmations counted per series");
	n.alarm = json_pack("{s:s}", "series", "pft");
	tap_ok(nightly_ledger_add(&l, &n) == 0 && nightly_ledger_add(&l, &n) == 0 && l.n == 2,
	       "two nights added");
	json_decref(n.alarm);
	j = nightly_ledger_to_json(&l);
	a = j ? jsonio_dumps(j) : NULL;
	tap_ok(j && nightly_ledger_from_json(j, &back, &err) == 0 && back.n == 2,
	       "the ledger reads back");
	j2 = back.n ? nightly_ledger_to_json(&back) : NULL;
	b = j2 ? jsonio_dumps(j2) : NULL;
	tap_ok(a && b && !strcmp(a, b), "... unchanged");
	nightly_ledger_free(&back);
	json_object_set_new(json_array_get(json_object_get(j, "nights"), 1), "report",
			    json_string("../../etc/passwd"));
	err = (struct lab_error){ 0 };
	tap_ok(nightly_ledger_from_json(j, &back, &err) == -EINVAL &&
	       !strcmp(err.path, "nights[1]") && back.n == 0,
	       "a report path leaving the ledger's directory is refused (%s: %s)", err.path,
	       err.msg);
	json_object_set_new(j, "schema", json_string("numalab.nightly-ledger/0"));
	tap_ok(nightly_ledger_from_json(j, &back, &err) == -EINVAL, "another schema refused");
	tap_ok(nightly_ledger_from_json(NULL, &back, &err) == 0 && back.n == 0,
	       "no ledger yet: empty");
	nightly_ledger_free(&l);
}

/* The shipped example parses. */
static void example(void)
{
	_cleanup_json_ json_t *j = testutil_load("configs/nightly/example.json");
	_cleanup_free_ struct nightly_cfg *c = calloc(1, sizeof(*c));
	struct lab_error err = { 0 };

	tap_ok(j && c && nightly_cfg_from_json(j, c, &err) == 0 && c->nr_jobs == 1,
	       "configs/nightly/example.json parses%s%s", err.msg[0] ? ": " : "", err.msg);
}

int main(void)
{
	example();
	testutil_config_cases("lab/tests/data/nightly", "configuration",
			      sizeof(struct nightly_cfg), cfg_parse, cfg_dump_any);
	ledger_cases();
	return tap_done();
}
