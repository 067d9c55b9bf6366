/* The NUMA cost model in a run ("numa_cost", core/job.h): what the lab hands the plugin
 * lab/plugin/numacost.c and what it takes back.
 *
 * Golden files (UPDATE_GOLDEN=1 rewrites them): the plugin's configuration
 * (numapreset_plugin_cfg) for wsm-ex-4s on 4s-8c and clx-2s on a 2-node topology whose nodes
 * interleave the vCPUs and hold memory on both sides of 4 GiB (numarun/cfg-*.txt), and the
 * run's numa_cost object from a plugin file (lab/tests/data/numarun/out-4s-8c.json ->
 * numarun/report-4s-8c.json).  QEMU's below_4g_mem_size for q35 at its edges
 * (memfit_below_4g).  A table of plugin files each changed in one place, refused with the
 * message a run records; nm's text of a QEMU with the charge and of one without
 * (lab/tests/data/numarun/nm-*.txt, from `nm -D --defined-only`); the run layer around them
 * (run/numacost_plugin.c) in a directory of its own: the -plugin value, the files it writes,
 * a missing, oversized and uncharged plugin file, a binary without the symbol. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/memfit.h"
#include "core/numapreset.h"
#include "core/numarun.h"
#include "run/numacost_plugin.h"
#include "tap.h"
#include "testutil.h"
#include "util/cleanup.h"
#include "util/jsonio.h"

/* Two nodes that interleave the vCPUs (QEMU's order is not the nodes'), 3 GiB in all: the
 * first 2 GiB below 4 GiB, the rest above. */
static const char topo_interleaved[] =
	"{'name':'2s-interleaved','sockets':2,'cores':2,'threads':1,"
	"'nodes':[{'id':0,'cpus':'0,2','memory_mib':2048},{'id':1,'cpus':'1,3','memory_mib':1024}],"
	"'distances':[[10,21],[21,10]]}";

static int load_preset(const char *rel, struct numa_preset *p)
{
	_cleanup_json_ json_t *j = testutil_load(rel);
	struct lab_error err = {0};
	int r = j ? numapreset_from_json(j, "", p, &err) : -ENOENT;

	if (r < 0)
		printf("# %s: %s: %s\n", rel, err.path, err.msg);
	return r;
}

static int load_topology(const char *spec, struct topology *t)
{
	_cleanup_json_ json_t *j = spec[0] == '{' ? testutil_quoted(spec) : testutil_load(spec);
	struct lab_error err = {0};
	int r = j ? topology_from_json(j, "topology", t, &err) : -ENOENT;

	if (r < 0)
		printf("# %s: %s: %s\n", spec, err.path, err.msg);
	return r;
}

static void cfg_golden(const char *preset, const char *topo, const char *golden)
{
	struct numa_preset p;
	struct topology t;
	_cleanup_free_ char *text = NULL;

	if (!tap_ok(load_preset(preset, &p) == 0 && load_topology(topo, &t) == 0,
		    "%s: preset and topology load", golden)) {
		return;
	}
	text = numapreset_plugin_cfg(&p, &t, memfit_below_4g(&t));
	testutil_golden(golden, text);
	numapreset_free(&p);
	topology_free(&t);
}

static void test_cfg(void)
{
	struct numa_preset p;
	struct topology t;

	cfg_golden("configs/numa/wsm-ex-4s.json", "configs/topologies/4s-8c.json",
		   "numarun/cfg-wsm-ex-4s-4s-8c.txt");
	cfg_golden("configs/numa/clx-2s.json", topo_interleaved,
		   "numarun/cfg-clx-2s-interleaved.txt");
	if (load_preset("configs/numa/clx-2s.json", &p) < 0 ||
	    load_topology("configs/topologies/4s-8c.json", &t) < 0)
		return;
	tap_ok(!numapreset_plugin_cfg(&p, &t, 0), "cfg: a preset of 2 nodes on 4 nodes: none");
	numapreset_free(&p);
	topology_free(&t);
}

/* q35: all of the RAM below 4 GiB up to 2816 MiB, else its first 2 GiB. */
static void test_below_4g(void)
{
	static const struct {
		unsigned long mib;
		unsigned long long want;
	} cases[] = {
		{256, 256ull << 20}, {2048, 2048ull << 20}, {2815, 2815ull << 20},
		{2816, 2048ull << 20}, {65536, 2048ull << 20},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct topo_node n = {.memory_mib = cases[i].mib};
		struct topology t = {.nr_nodes = 1, .nodes = &n};

		tap_ok(memfit_below_4g(&t) == cases[i].want, "below_4g of %lu MiB: %llu MiB",
		       cases[i].mib, cases[i].want >> 20);
	}
}

#define OUT_4S "lab/tests/data/numarun/out-4s-8c.json"

/* The plugin's good file for 4s-8c, as text, changed: at obj[idx] ("" the top; "vcpus",
 * "windows" an entry), key set to value (JSON with ' for "; NULL deletes it). */
static char *changed_out(const char *obj, int idx, const char *key, const char *value)
{
	_cleanup_json_ json_t *j = testutil_load(OUT_4S);
	json_t *o = !obj[0] ? j : json_array_get(json_object_get(j, obj), (size_t)idx);

	if (!o)
		return NULL;
	if (value)
		json_object_set_new(o, key, testutil_quoted(value));
	else
		json_object_del(o, key);
	return json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
}

static const struct out_case {
	const char *what, *obj;
	int idx;
	const char *key, *value, *want;
} out_cases[] = {
	{"a missing total", "", 0, "lines", NULL, "lines: required"},
	{"a negative count", "vcpus", 3, "charged", "-1",
	 "vcpus[3].charged: must be a non-negative integer"},
	{"a count that is not an integer", "windows", 1, "clock", "1.5",
	 "windows[1].clock: must be a non-negative integer"},
	{"a count as a string", "", 0, "stall_failed", "'0'",
	 "stall_failed: must be a non-negative integer"},
	{"another schema", "", 0, "schema", "'numalab.numacost/2'",
	 "schema: must be \"numalab.numacost/1\""},
	{"no vCPUs", "", 0, "vcpus", NULL, "vcpus: must be an array, one entry per vCPU"},
	{"vCPUs out of order", "vcpus", 2, "vcpu", "5",
	 "vcpus[2].vcpu: must be 2: one entry per vCPU, in order"},
	{"a vCPU on another node", "vcpus", 2, "node", "0",
	 "vcpus[2].node: must be 1, the node of vCPU 2 in topology 4s-8c"},
	{"windows not an array", "", 0, "windows", "{}", "windows: must be an array of at most 4096"},
	{"a window without its id", "windows", 1, "id", NULL, "windows[1].id: required"},
	{"a vCPU that is not an object", "", 0, "vcpus", "[1,2,3,4,5,6,7,8]",
	 "vcpus[0]: must be an object"},
};

static int parse_text(const char *text, size_t len, const struct topology *t, json_t **out,
		      char *got, size_t got_len)
{
	struct lab_error err = {0};
	int r = numarun_parse(text, len, t, out, &err);

	snprintf(got, got_len, "%s%s%s", err.path, err.path[0] ? ": " : "", err.msg);
	return r;
}

static void test_out_cases(const struct topology *t)
{
	for (size_t i = 0; i < sizeof(out_cases) / sizeof(out_cases[0]); i++) {
		const struct out_case *c = &out_cases[i];
		_cleanup_free_ char *text = changed_out(c->obj, c->idx, c->key, c->value);
		_cleanup_json_ json_t *j = NULL;
		char got[1024] = "";
		int r = text ? parse_text(text, strlen(text), t, &j, got, sizeof(got)) : -ENOMEM;

		testutil_check_error(c->what, r, got, c->want);
	}
}

/* The vCPU array one short: said as a count, not a missing key. */
static void test_out_vcpu_count(const struct topology *t)
{
	_cleanup_json_ json_t *j = testutil_load(OUT_4S), *o = NULL;
	_cleanup_free_ char *text = NULL;
	char got[1024] = "";
	int r;

	json_array_remove(json_object_get(j, "vcpus"), 7);
	text = json_dumps(j, JSON_COMPACT);
	r = text ? parse_text(text, strlen(text), t, &o, got, sizeof(got)) : -ENOMEM;
	testutil_check_error("seven vCPUs of eight", r, got,
			     "vcpus: must have one entry per vCPU: 8, not 7");
}

static void test_out_text(const struct topology *t)
{
	static const char dup[] = "{\"schema\": \"numalab.numacost/1\", \"lines\": 1, "
				  "\"lines\": 2}";
	_cleanup_free_ char *big = malloc(NUMARUN_MAX_BYTES + 2);
	_cleanup_json_ json_t *j = NULL;
	char got[1024] = "";
	int r;

	r = parse_text(dup, strlen(dup), t, &j, got, sizeof(got));
	tap_ok(r == -EINVAL && strstr(got, "not JSON: duplicate object key"),
	       "a duplicate key: refused (%s)", got);
	r = parse_text("{\"schema\": ", 12, t, &j, got, sizeof(got));
	tap_ok(r == -EINVAL && !strncmp(got, "not JSON: ", 10), "cut short: refused (%s)", got);
	if (!big)
		return;
	memset(big, ' ', NUMARUN_MAX_BYTES + 1);
	memcpy(big, "{}", 2);
	r = parse_text(big, NUMARUN_MAX_BYTES + 1, t, &j, got, sizeof(got));
	testutil_check_error("one byte too many", r, got, "more than 4194304 bytes");
}

static void test_out_report(const struct topology *t)
{
	_cleanup_free_ char *text = NULL, *dump = NULL;
	_cleanup_free_ char *path = fs_join(testutil_root(), OUT_4S);
	_cleanup_json_ json_t *j = NULL, *rep = NULL;
	struct numa_preset p;
	char got[1024] = "", sha[65];
	size_t n = 0;

	if (!tap_ok(path && fs_read_file(path, TESTUTIL_MAX_FILE, &text, &n) == 0 &&
			    load_preset("configs/numa/wsm-ex-4s.json", &p) == 0,
		    "the plugin's file and wsm-ex-4s load"))
		return;
	tap_ok(parse_text(text, n, t, &j, got, sizeof(got)) == 0, "the plugin's file parses%s%s",
	       got[0] ? ": " : "", got);
	numapreset_sha256(&p, sha);
	rep = j ? numarun_report(j, &p, sha) : NULL;
	dump = rep ? jsonio_dumps(rep) : NULL; /* as the report is written */
	if (dump && (dump = realloc(dump, strlen(dump) + 2)))
		strcat(dump, "\n");
	testutil_golden("numarun/report-4s-8c.json", dump);
	tap_ok(rep && !json_object_get(json_array_get(json_object_get(rep, "vcpus"), 0),
				       "extra_debug"),
	       "report: a key the lab does not know is not copied");
	numapreset_free(&p);
}

static void test_nm(void)
{
	static const struct {
		const char *text;
		int want;
	} cases[] = {
		{"000000000057d4e0 T qemu_plugin_vcpu_stall\n", 1},
		{"000000000057d4e0 T qemu_plugin_vcpu_stall", 1},
		{"000000000057d4e0 T qemu_plugin_vcpu_stall\r\n", 1},
		{"000000000057d4e0 T qemu_plugin_vcpu_stall@@QEMU_10\n", 1},
		{"000000000057d4e0 W qemu_plugin_vcpu_stall\n", 1},
		{"000000000057d4e0 T qemu_plugin_vcpu_stall_all\n", 0},
		{"000000000057d4e0 D qemu_plugin_vcpu_stall\n", 0},
		{"                 U qemu_plugin_vcpu_stall\n", 0},
		{"000000000057d4e0 T xqemu_plugin_vcpu_stall\n", 0},
		{"qemu_plugin_vcpu_stall\n", 0},
		{"", 0},
	};
	_cleanup_free_ char *with = NULL, *without = NULL, *pw = NULL, *po = NULL;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		tap_ok(numarun_nm_exports(cases[i].text, NUMARUN_QEMU_SYMBOL) == cases[i].want,
		       "nm line %zu: %s", i, cases[i].want ? "exports it" : "does not");
	pw = fs_join(testutil_root(), "lab/tests/data/numarun/nm-qemu-plugins.txt");
	po = fs_join(testutil_root(), "lab/tests/data/numarun/nm-qemu-stock.txt");
	if (!tap_ok(pw && po && fs_read_file(pw, TESTUTIL_MAX_FILE, &with, NULL) == 0 &&
			    fs_read_file(po, TESTUTIL_MAX_FILE, &without, NULL) == 0,
		    "nm's text of two QEMU builds loads"))
		return;
	tap_ok(numarun_nm_exports(with, NUMARUN_QEMU_SYMBOL) &&
		       numarun_nm_exports(with, "qemu_plugin_vcpu_clock"),
	       "nm: the lab's QEMU with plugins exports the charge and the clock");
	tap_ok(!numarun_nm_exports(without, NUMARUN_QEMU_SYMBOL),
	       "nm: a QEMU built without plugins does not");
}

/* A job of wsm-ex-4s on 4s-8c, as run/jobload.c leaves it. */
static int numa_job(struct job *job)
{
	memset(job, 0, sizeof(*job));
	snprintf(job->numa_cost, sizeof(job->numa_cost), "wsm-ex-4s");
	if (load_topology("configs/topologies/4s-8c.json", &job->topo) < 0 ||
	    load_preset("configs/numa/wsm-ex-4s.json", &job->numa) < 0)
		return -EINVAL;
	return numapreset_sha256(&job->numa, job->numa_sha256);
}

/* tmp/run/numacost.json from text (len bytes). */
static void put_out(const char *run, const char *text, size_t len)
{
	_cleanup_free_ char *out = fs_join(run, "numacost.json");

	if (!out || fs_write_atomic(out, text, len) < 0)
		printf("# cannot write %s\n", out ? out : "numacost.json");
}

/* The run layer in tmp: build/runners beside build/plugin/numacost.so, the run in tmp/run. */
static void test_run_layer(const char *tmp, const struct job *job)
{
	_cleanup_free_ char *runners = fs_join(tmp, "build/runners");
	_cleanup_free_ char *plugins = fs_join(tmp, "build/plugin");
	_cleanup_free_ char *so = fs_join(tmp, "build/plugin/numacost.so");
	_cleanup_free_ char *run = fs_join(tmp, "run"), *cfg = NULL, *want = NULL;
	_cleanup_free_ char *good = NULL, *kernel = fs_join(testutil_root(), OUT_4S);
	_cleanup_json_ json_t *o = NULL;
	char plugin[4 * PATH_MAX + 48], expect[4 * PATH_MAX + 48], why[1024] = "";
	size_t n = 0;
	int no_map = 0, r;

	if (!tap_ok(runners && plugins && so && run && kernel && fs_mkdir_p(runners, 0755) == 0 &&
			    fs_mkdir_p(plugins, 0755) == 0 && fs_mkdir_p(run, 0755) == 0 &&
			    fs_write_atomic(so, "", 0) == 0 &&
			    fs_read_file(kernel, TESTUTIL_MAX_FILE, &good, &n) == 0,
		    "run layer: a build directory with a plugin, a run directory"))
		return;
	put_out(run, "stale", 5);
	/* The "kernel" is a JSON file: no symbols, an empty map. */
	r = numacost_prepare(run, job, kernel, runners, plugin, sizeof(plugin), &no_map, why,
			     sizeof(why));
	snprintf(expect, sizeof(expect), "file=%s/build/plugin/numacost.so,cfg=%s/run/numacost.cfg,"
		 "out=%s/run/numacost.json,map=%s/run/numacost.map", tmp, tmp, tmp, tmp);
	tap_ok(r == 0 && !strcmp(plugin, expect), "prepare: %s", r ? why : plugin);
	cfg = fs_join(run, "numacost.cfg");
	want = numapreset_plugin_cfg(&job->numa, &job->topo, memfit_below_4g(&job->topo));
	_cleanup_free_ char *have = NULL, *map = fs_join(run, "numacost.map");
	tap_ok(cfg && want && fs_read_file(cfg, TESTUTIL_MAX_FILE, &have, NULL) == 0 &&
		       !strcmp(have, want),
	       "prepare: numacost.cfg is the preset's configuration for 4s-8c");
	tap_ok(no_map && map && fs_exists(map), "prepare: a kernel without symbols, an empty map");
	r = numacost_collect(run, job, &o, why, sizeof(why));
	tap_ok(r == -ENOENT && !o && strstr(why, "the NUMA cost plugin wrote no ") &&
		       strstr(why, "did QEMU end without exiting?"),
	       "collect: the stale file was removed, nothing written: %s", why);
	tap_ok(!fs_exists(map), "collect: the map removed");
	put_out(run, good, n);
	r = numacost_collect(run, job, &o, why, sizeof(why));
	tap_ok(r == 0 && o && !strcmp(json_string_value(json_object_get(o, "preset")), "wsm-ex-4s"),
	       "collect: the run's numa_cost");
	json_decref(o);
	o = NULL;
	_cleanup_free_ char *stalled = changed_out("", 0, "stall_failed", "2");
	put_out(run, stalled, strlen(stalled));
	r = numacost_collect(run, job, &o, why, sizeof(why));
	tap_ok(r == -EPROTO && o && strstr(why, "the QEMU did not take the charges: 2 of them failed"),
	       "collect: stall_failed fails the run, its figures kept: %s", why);
	json_decref(o);
	o = NULL;
	_cleanup_free_ char *bad = changed_out("vcpus", 2, "node", "0");
	put_out(run, bad, strlen(bad));
	r = numacost_collect(run, job, &o, why, sizeof(why));
	tap_ok(r == -EINVAL && !o && strstr(why, "/run/numacost.json: vcpus[2].node: must be 1"),
	       "collect: a bad file, its path and the reason: %s", why);
	_cleanup_free_ char *big = calloc(1, NUMARUN_MAX_BYTES + 1);
	if (big) {
		memset(big, ' ', NUMARUN_MAX_BYTES + 1);
		put_out(run, big, NUMARUN_MAX_BYTES + 1);
		r = numacost_collect(run, job, &o, why, sizeof(why));
		tap_ok(r == -EFBIG && !o && strstr(why, "wrote more than 4194304 bytes"),
		       "collect: an oversized file: %s", why);
	}
}

/* A binary without the charge (this test's own), and the plugin missing. */
static void test_check_host(const char *tmp)
{
	_cleanup_free_ char *runners = fs_join(tmp, "build/runners");
	_cleanup_free_ char *self = realpath("/proc/self/exe", NULL);
	char why[1024] = "", want[PATH_MAX + 200];
	int r;

	if (!runners || !self)
		return;
	r = numacost_check_host(self, runners, why, sizeof(why));
	snprintf(want, sizeof(want), "numa_cost: %s: this QEMU has no per-vCPU charge "
		 "(images/qemu/0003-icount-charge.patch): rebuild with lab qemu build", self);
	tap_ok(r == -EINVAL && !strcmp(why, want), "check: %s", why);
	r = numacost_check_host("/nonexistent/qemu", runners, why, sizeof(why));
	tap_ok(r < 0 && r != -EINVAL && strstr(why, "cannot read the symbols of /nonexistent/qemu"),
	       "check: a QEMU nm cannot read: %s", why);
}

int main(void)
{
	struct topology t4;
	char tmpl[] = "/tmp/numalab-test-numarun.XXXXXX";
	_cleanup_free_ char *tmp = NULL;
	struct job job = {0};

	test_cfg();
	test_below_4g();
	test_nm();
	if (load_topology("configs/topologies/4s-8c.json", &t4) < 0)
		return tap_done();
	test_out_cases(&t4);
	test_out_vcpu_count(&t4);
	test_out_text(&t4);
	test_out_report(&t4);
	topology_free(&t4);
	if (mkdtemp(tmpl) && (tmp = realpath(tmpl, NULL)) && numa_job(&job) == 0) {
		test_run_layer(tmp, &job);
		test_check_host(tmp);
	}
	job_free(&job);
	fs_rm_rf(tmpl);
	return tap_done();
}
