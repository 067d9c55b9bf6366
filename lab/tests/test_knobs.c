/* Knobs (issue 3): job validation, the guest's "knobs" line through collect, and the report.
 *
 * lab/tests/data/knobs/NAME.json is a job's "knobs" object for a 4-node topology: ok-* must
 * normalise to NAME.expected (JSON), err-* must fail with the one line "PATH: REASON" in it.
 * Also: the guest's knobs line is kept only when every field checks out, result entries may
 * carry a "repetition" index, and the run JSON carries the knobs. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/collect.h"
#include "core/knobs.h"
#include "core/runreport.h"
#include "tap.h"
#include "testutil.h"
#include "util/cleanup.h"
#include "util/jsonio.h"

static const char *const topo4 =
	"{\"sockets\":4,\"cores\":2,\"node_memory_mib\":512}";

static void run_case(const struct topology *topo, const char *dir, const char *name)
{
	_cleanup_free_ char *path = fs_join(dir, name), *expected = NULL;
	_cleanup_json_ json_t *j = NULL, *out = NULL;
	struct lab_error err = {0};
	char line[sizeof(err.path) + sizeof(err.msg) + 4];
	int r;

	expected = testutil_read_expected(path, name);
	if (!expected)
		return;
	r = jsonio_load_file(path, TESTUTIL_MAX_FILE, &j, &err);
	if (r == 0)
		r = knobs_parse(j, topo, &out, &err);
	snprintf(line, sizeof(line), "%s%s%s", err.path, err.path[0] ? ": " : "", err.msg);
	if (!strncmp(name, "err-", 4)) {
		testutil_check_error(name, r, line, expected);
		tap_ok(out == NULL, "%s: nothing returned", name);
		return;
	}
	if (tap_ok(r == 0, "%s: valid%s%s", name, r ? ": " : "", r ? line : ""))
		testutil_check_json(name, "knobs", out, expected);
}

static void cases(const struct topology *topo)
{
	_cleanup_json_dir_ struct testutil_json_dir d;
	json_t *out = (json_t *)1;

	testutil_json_dir_open(&d, "lab/tests/data/knobs");
	tap_ok(d.n > 10, "knobs cases found (%d)", d.n);
	for (int i = 0; i < d.n; i++)
		run_case(topo, d.dir, d.ents[i]->d_name);
	tap_ok(knobs_parse(NULL, topo, &out, NULL) == 0 && out == NULL, "no knobs: NULL, no error");
}

#define KNOB_OK "{\"name\":\"thp_enabled\",\"path\":\"/sys/kernel/mm/transparent_hugepage/" \
		"enabled\",\"requested\":\"always\",\"before\":\"madvise\",\"after\":\"always\"," \
		"\"status\":\"ok\",\"required\":true}"

static void guest_line(void)
{
	static const char *const bad[] = {
		"{\"t\":\"knobs\",\"ok\":1,\"knobs\":[]}",
		"{\"t\":\"knobs\",\"ok\":true,\"knobs\":{}}",
		"{\"t\":\"knobs\",\"ok\":true,\"knobs\":[{\"name\":\"x\",\"path\":\"/p\","
		"\"status\":\"great\",\"required\":false}]}",
		"{\"t\":\"knobs\",\"ok\":true,\"knobs\":[{\"name\":\"x\",\"path\":\"/p\","
		"\"status\":\"ok\",\"required\":false,\"after\":{\"a\":1}}]}",
		"{\"t\":\"knobs\",\"ok\":true,\"knobs\":[{\"name\":\"x\",\"path\":\"/p\","
		"\"status\":\"ok\"}]}",
	};
	const char *good = "{\"t\":\"knobs\",\"ok\":true,\"knobs\":[" KNOB_OK ",{\"name\":"
			   "\"numa_balancing\",\"path\":\"/proc/sys/kernel/numa_balancing\","
			   "\"requested\":null,\"before\":1,\"after\":1,\"status\":\"not-requested\","
			   "\"required\":false,\"extra\":\"dropped\"}]}";
	struct guest_log g;
	json_t *k;

	collect_init(&g, 1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		tap_ok(collect_line(&g, bad[i], strlen(bad[i]), 1) == 0 && !g.knobs,
		       "knobs line rejected: %s", bad[i]);
	tap_ok(collect_line(&g, good, strlen(good), 1) == 1, "a valid knobs line is progress");
	k = json_array_get(json_object_get(g.knobs, "knobs"), 1);
	tap_ok(json_is_true(json_object_get(g.knobs, "ok")) &&
		       json_array_size(json_object_get(g.knobs, "knobs")) == 2 &&
		       json_integer_value(json_object_get(k, "after")) == 1 &&
		       !json_object_get(k, "extra"),
	       "knobs kept, rebuilt from checked fields only");
	collect_free(&g);
}

static void repetition(void)
{
	static const char *const lines[] = {
		"{\"t\":\"workload\",\"index\":0,\"exit\":0,\"output\":{\"results\":[{\"tasks\":1,"
		"\"repetition\":1,\"metrics\":{}}]}}",
		"{\"t\":\"workload\",\"index\":0,\"exit\":0,\"output\":{\"results\":[{\"tasks\":1,"
		"\"repetition\":-1,\"metrics\":{}}]}}",
		"{\"t\":\"workload\",\"index\":0,\"exit\":0,\"output\":{\"results\":[{\"tasks\":1,"
		"\"repetition\":\"a\",\"metrics\":{}}]}}",
	};
	for (size_t i = 0; i < 3; i++) {
		struct guest_log g;
		json_t *w;

		collect_init(&g, 1);
		collect_line(&g, lines[i], strlen(lines[i]), 1);
		w = json_array_get(g.workloads, 0);
		tap_ok(json_is_object(json_object_get(w, "output")) == (i == 0),
		       "repetition %s: %s", i == 0 ? "accepted" : "rejected",
		       json_string_value(json_object_get(w, "error")));
		collect_free(&g);
	}
}

static void report(const struct topology *topo)
{
	const char *line = "{\"t\":\"knobs\",\"ok\":false,\"error\":\"required knob thp_enabled\","
			   "\"knobs\":[" KNOB_OK "]}";
	struct job job = {.topo = *topo, .nr_workloads = 0};
	struct run_record rec = {.job = &job};
	struct guest_log g;
	_cleanup_json_ json_t *run = NULL, *none = NULL;

	collect_init(&g, 0);
	collect_line(&g, line, strlen(line), 1);
	rec.log = &g;
	run = runreport_run_json(&rec);
	tap_ok(run && json_is_false(json_object_get(json_object_get(run, "knobs"), "ok")) &&
		       json_object_get(json_object_get(run, "knobs"), "error"),
	       "the run JSON carries the knobs line, failure and reason included");
	rec.log = NULL;
	none = runreport_run_json(&rec);
	tap_ok(none && json_is_null(json_object_get(none, "knobs")),
	       "no guest: knobs is null");
	collect_free(&g);
}

int main(void)
{
	_cleanup_json_ json_t *tj = NULL;
	struct topology topo;
	struct lab_error err = {0};

	memset(&topo, 0, sizeof(topo));
	if (!tap_ok(jsonio_load_string(topo4, &tj, &err) == 0 &&
			    topology_from_json(tj, "topology", &topo, &err) == 0 && topo.nr_nodes == 4,
		    "a 4-node topology: %s", err.msg))
		return tap_done();
	cases(&topo);
	guest_line();
	repetition();
	report(&topo);
	topology_free(&topo);
	return tap_done();
}
