/* The memory plan (core/memplan.c).
 *
 * Golden files: for every configs/topologies/NAME.json, memplan_to_json of its plan must equal
 * lab/tests/golden/memplan/NAME.json (UPDATE_GOLDEN=1 rewrites them).  Then a table of
 * checks: the per-node floor and the host fit, with the exact messages users see. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/memplan.h"
#include "tap.h"
#include "testutil.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/jsonio.h"

static int load_topology(const char *name, struct topology *t)
{
	_cleanup_free_ char *rel = fs_join("configs/topologies", name);
	_cleanup_free_ char *path = rel ? fs_join(testutil_root(), rel) : NULL;
	_cleanup_json_ json_t *j = NULL;
	struct lab_error err = { 0 };

	if (!path || jsonio_load_file(path, TESTUTIL_MAX_FILE, &j, &err) < 0)
		return -EINVAL;
	return topology_from_json(j, "topology", t, &err);
}

static void golden_case(const char *name, int update)
{
	_cleanup_free_ char *rel = fs_join("lab/tests/golden/memplan", name);
	_cleanup_free_ char *path = rel ? fs_join(testutil_root(), rel) : NULL;
	_cleanup_free_ char *want = NULL, *text = NULL;
	_cleanup_json_ json_t *have = NULL;
	struct topology t;
	struct memplan p;

	if (!tap_ok(load_topology(name, &t) == 0, "%s parses", name))
		return;
	memplan_build(&t, &p);
	have = memplan_to_json(&p);
	topology_free(&t);
	if (update) {
		text = have ? json_dumps(have, JSON_SORT_KEYS | JSON_INDENT(2)) : NULL;
		tap_ok(text && path && fs_write_atomic(path, text, strlen(text)) == 0,
		       "%s: golden %s rewritten (UPDATE_GOLDEN=1)", name, rel);
	} else if (!path || fs_read_file(path, TESTUTIL_MAX_FILE, &want, NULL) < 0) {
		tap_ok(0, "%s: golden %s missing (run with UPDATE_GOLDEN=1)", name, rel);
	} else {
		testutil_check_json(name, "memory plan", have, want);
	}
}

struct check_case {
	const char *topology;   /* file under configs/topologies, or NULL for the inline one */
	unsigned long node1_mib; /* override node 1's memory when non-zero */
	unsigned long avail, total;
	const char *want;       /* "" for ok, else "PATH: MESSAGE" */
};

static const struct check_case checks[] = {
	{ "4s-512c.json", 0, 15000, 23000, "" },
	{ "4s-512c.json", 0, 8000, 23000,
	  "topology: the guest does not fit in this host's memory: it needs 14785 MiB (guest RAM "
	  "8192 MiB on 4 nodes + QEMU about 6081 MiB for 512 vCPUs + 512 MiB kept for the host) "
	  "but 8000 MiB are available (23000 MiB in all): use smaller nodes" },
	{ "4s-512c.json", 150, 20000, 23000,
	  "topology.nodes[1].memory_mib: 150 MiB is too little for the 128 vCPUs of node 1: the "
	  "guest kernel needs at least 192 MiB there (64 + 1 per vCPU)" },
	{ "4s-8c.json", 66, 20000, 23000, "" },
	{ "4s-8c.json", 65, 20000, 23000,
	  "topology.nodes[1].memory_mib: 65 MiB is too little for the 2 vCPUs of node 1: the guest "
	  "kernel needs at least 66 MiB there (64 + 1 per vCPU)" },
};

static void check_case(const struct check_case *c)
{
	struct lab_error err = { 0 };
	struct topology t;
	struct memplan p;
	char got[1024] = "";
	int r;

	if (!tap_ok(load_topology(c->topology, &t) == 0, "%s parses", c->topology))
		return;
	if (c->node1_mib)
		t.nodes[1].memory_mib = c->node1_mib;
	memplan_build(&t, &p);
	r = memplan_check(&p, "topology", c->avail, c->total, &err);
	if (r < 0)
		snprintf(got, sizeof(got), "%s: %s", err.path, err.msg);
	topology_free(&t);
	tap_ok(!strcmp(got, c->want) && (r == 0) == !c->want[0],
	       "%s, node 1 %lu MiB, %lu MiB available: %s", c->topology, c->node1_mib, c->avail,
	       c->want[0] ? "refused with the numbers" : "fits");
	if (strcmp(got, c->want)) {
		tap_diag(got);
		tap_diag(c->want);
	}
}

/* Guests of one plan at once: each its RAM and QEMU, the host's reserve once. */
static void fit_cases(void)
{
	struct memplan p = { .guest_mib = 2048, .qemu_mib = 256, .host_reserve_mib = 512 };

	tap_ok(memplan_fit(&p, 512) == 0, "fit: only the reserve: none");
	tap_ok(memplan_fit(&p, 512 + 2304 - 1) == 0, "fit: a MiB short of one: none");
	tap_ok(memplan_fit(&p, 512 + 2304) == 1, "fit: exactly one");
	tap_ok(memplan_fit(&p, 512 + 3 * 2304 + 100) == 3, "fit: three and some");
}

int main(void)
{
	_cleanup_json_dir_ struct testutil_json_dir d;
	const char *u = getenv("UPDATE_GOLDEN");

	testutil_json_dir_open(&d, "configs/topologies");
	tap_ok(d.n > 0, "configs/topologies holds topologies");
	for (int i = 0; i < d.n; i++)
		golden_case(d.ents[i]->d_name, u && !strcmp(u, "1"));
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
		check_case(&checks[i]);
	fit_cases();
	return tap_done();
}
