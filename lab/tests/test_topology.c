/* Topology parsing, validation and conversion.
 *
 * Data-driven: every lab/tests/data/topology/NAME.json is parsed with JSON path "topology" and
 * checked against NAME.expected, which holds either the one error line "PATH: REASON" or, for
 * a topology that must parse, the JSON of {"name": ..., "report": topology_to_report_json(t, 1)}.
 * Then every configs/topologies/NAME.json must parse, and topology_cpulist has a table. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/topology.h"
#include "tap.h"
#include "testutil.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/jsonio.h"

static void error_line(const struct lab_error *e, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", e->path, e->path[0] ? ": " : "", e->msg);
}

static json_t *result_json(const struct topology *t)
{
	json_t *report = topology_to_report_json(t, 1);

	if (!report)
		return NULL;
	return json_pack("{s:s,s:o}", "name", t->name, "report", report);
}

static void run_case(const char *dir, const char *name)
{
	_cleanup_free_ char *jpath = fs_join(dir, name);
	_cleanup_free_ char *expected = NULL;
	_cleanup_json_ json_t *j = NULL;
	struct lab_error err = {0};
	struct topology t;
	char got[1024];
	int r;

	expected = testutil_read_expected(jpath, name);
	if (!expected)
		return;
	r = jsonio_load_file(jpath, TESTUTIL_MAX_FILE, &j, &err);
	if (r < 0) {
		error_line(&err, got, sizeof(got));
		tap_ok(0, "%s: load: %s", name, got);
		return;
	}
	memset(&err, 0, sizeof(err));
	r = topology_from_json(j, "topology", &t, &err);
	if (expected[0] != '{') {
		error_line(&err, got, sizeof(got));
		testutil_check_error(name, r, got, expected);
		/* A failed parse leaves the struct empty. */
		tap_ok(r < 0 && t.nr_nodes == 0 && !t.nodes && !t.distances && t.vcpus == 0,
		       "%s: struct left empty", name);
		if (r == 0)
			topology_free(&t);
		return;
	}
	if (r < 0) {
		error_line(&err, got, sizeof(got));
		tap_ok(0, "%s: parses (got %s)", name, got);
		return;
	}
	_cleanup_json_ json_t *have = result_json(&t);

	testutil_check_json(name, "report", have, expected);
	topology_free(&t);
}

static void run_data_dir(void)
{
	_cleanup_json_dir_ struct testutil_json_dir d;

	testutil_json_dir_open(&d, "lab/tests/data/topology");
	if (!tap_ok(d.n > 0, "data directory %s has cases", d.dir))
		return;
	for (int i = 0; i < d.n; i++)
		run_case(d.dir, d.ents[i]->d_name);
}

/* Every shipped topology parses, is named after its file and has the vCPUs its name says. */
static void run_configs(void)
{
	_cleanup_json_dir_ struct testutil_json_dir d;

	testutil_json_dir_open(&d, "configs/topologies");
	tap_ok(d.n >= 5, "configs/topologies has the shipped topologies (%d)", d.n);
	for (int i = 0; i < d.n; i++) {
		const char *name = d.ents[i]->d_name;
		_cleanup_free_ char *path = fs_join(d.dir, name);
		_cleanup_json_ json_t *j = NULL;
		struct lab_error err = {0};
		struct topology t;
		unsigned sockets = 0, vcpus = 0;
		char line[1024];
		int r = jsonio_load_file(path, TESTUTIL_MAX_FILE, &j, &err);

		if (r == 0)
			r = topology_from_json(j, "topology", &t, &err);
		error_line(&err, line, sizeof(line));
		if (!tap_ok(r == 0, "%s parses%s%s", name, r ? ": " : "", r ? line : ""))
			continue;
		tap_ok(strncmp(t.name, name, strlen(name) - 5) == 0 &&
			       t.name[strlen(name) - 5] == '\0',
		       "%s: name is \"%s\"", name, t.name);
		if (sscanf(name, "%us-%uc.json", &sockets, &vcpus) == 2)
			tap_ok(t.sockets == sockets && t.vcpus == vcpus && t.nr_nodes == sockets,
			       "%s: %u sockets, %u vCPUs, one node per socket", name, t.sockets,
			       t.vcpus);
		topology_free(&t);
	}
}

static const struct {
	unsigned cpus[12];
	unsigned n;
	unsigned long len;
	int ret;
	const char *want;
} cpulist_cases[] = {
	{{0}, 0, 16, 0, ""},
	{{0}, 1, 16, 0, "0"},
	{{0, 1}, 2, 16, 0, "0-1"},
	{{0, 1, 2, 3, 8}, 5, 16, 0, "0-3,8"},
	{{1, 3, 5}, 3, 16, 0, "1,3,5"},
	{{0, 1, 2, 6, 7, 9, 10, 11, 127}, 9, 32, 0, "0-2,6-7,9-11,127"},
	{{0, 1, 2, 3, 8}, 5, 5, -ENOSPC, "0-3"},
	{{0, 1, 2, 3, 8}, 5, 6, 0, "0-3,8"},
	{{1000, 1001}, 2, 4, -ENOSPC, ""},
};

static void run_cpulist(void)
{
	for (size_t i = 0; i < sizeof(cpulist_cases) / sizeof(cpulist_cases[0]); i++) {
		char buf[64];
		int r;

		memset(buf, 'x', sizeof(buf));
		r = topology_cpulist(cpulist_cases[i].cpus, cpulist_cases[i].n, buf,
				     cpulist_cases[i].len);
		if (!tap_ok(r == cpulist_cases[i].ret &&
				    (r < 0 ? strncmp(buf, cpulist_cases[i].want,
						     strlen(cpulist_cases[i].want)) == 0 &&
							     strlen(buf) < cpulist_cases[i].len
					   : strcmp(buf, cpulist_cases[i].want) == 0),
			    "topology_cpulist case %zu -> %d \"%s\"", i, cpulist_cases[i].ret,
			    cpulist_cases[i].want))
			printf("# got %d \"%.64s\"\n", r, buf);
	}
	tap_ok(topology_cpulist(cpulist_cases[1].cpus, 1, NULL, 0) == -EINVAL,
	       "topology_cpulist refuses a NULL buffer");
}

/* Memory totals and the report without CPU topology fields. */
static void run_misc(void)
{
	const char *s = "{\"sockets\":2,\"cores\":2,\"node_memory_mib\":300}";
	_cleanup_json_ json_t *j = NULL, *rep = NULL;
	struct lab_error err = {0};
	struct topology t;

	if (!tap_ok(jsonio_load_string(s, &j, &err) == 0 &&
			    topology_from_json(j, "", &t, &err) == 0,
		    "per-socket default parses with an empty path prefix"))
		return;
	tap_ok(topology_memory_mib(&t) == 600, "topology_memory_mib sums the nodes");
	rep = topology_to_report_json(&t, 0);
	tap_ok(rep && !json_object_get(rep, "sockets") && !json_object_get(rep, "vcpus") &&
		       json_array_size(json_object_get(rep, "nodes")) == 2,
	       "report without CPU topology has only nodes and distances");
	topology_free(&t);
	tap_ok(t.nodes == NULL && t.nr_nodes == 0, "topology_free empties the struct");
	topology_free(&t);

	json_decref(j);
	j = NULL;
	memset(&err, 0, sizeof(err));
	jsonio_load_string("{\"sockets\":0,\"cores\":2}", &j, &err);
	tap_ok(topology_from_json(j, "", &t, &err) == -EINVAL && strcmp(err.path, "sockets") == 0,
	       "empty prefix gives bare key paths (%s)", err.path);
	tap_ok(topology_from_json(j, "topology", &t, NULL) == -EINVAL,
	       "a NULL error pointer is allowed");
}

int main(void)
{
	run_data_dir();
	run_configs();
	run_cpulist();
	run_misc();
	return tap_done();
}
