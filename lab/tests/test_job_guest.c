/* The guest job (lab/proto/guestjob.c): one builder on the host, one validator in the agent.
 *
 * Every job the lab ships or tests with (configs/, lab/tests/data/jobs/, job-ok/) is turned
 * into its guest job (job_guestjob) and must pass the agent's validator, reading back as
 * built; so must every knobs object the host normalises (lab/tests/data/knobs/ok-*).  The
 * builder's JSON is pinned for one job that sets every key, and hostile guest jobs are
 * refused with the path and reason below.  The guest jobs of lab/tests/data/guestjob/ (also
 * the seeds of lab/fuzz/fuzz_guestjob.c) are accepted, and accepted again as rebuilt. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/job.h"
#include "core/knobs.h"
#include "proto/guestjob.h"
#include "proto/knob.h"
#include "proto/words.h"
#include "tap.h"
#include "testutil.h"

static int load_topo(const char *ref, void *ud, json_t **out, struct lab_error *err)
{
	_cleanup_free_ char *rel = NULL, *path = NULL;

	(void)ud;
	if (strchr(ref, '/'))
		rel = strdup(ref);
	else if (asprintf(&rel, "configs/topologies/%s.json", ref) < 0)
		rel = NULL;
	path = rel ? fs_join(testutil_root(), rel) : NULL;
	return path ? jsonio_load_file(path, TESTUTIL_MAX_FILE, out, err) : -ENOMEM;
}

static int validate(const json_t *gj, struct guestjob *v, char *line, size_t len)
{
	struct lab_error err = {0};
	int r = guestjob_validate(gj, v, &err);

	error_format(&err, line, len);
	return r;
}

/* What the validator read back is what the job asked for. */
static int same(const struct job *job, const struct guestjob *v, int online)
{
	int ok = v->nr_workloads == job->nr_workloads && v->fault == job->fault &&
		 (v->fault_after == FAULT_AFTER_WORKLOADS) == job->fault_after_workloads &&
		 v->online_after_boot == online && v->heartbeat_s == 2 &&
		 ((!v->knobs && !job->knobs) || json_equal(v->knobs, job->knobs)) &&
		 json_array_size(v->perf_stat) == job->image.nr_perf_events &&
		 !strcmp(v->run_id, "r-0");

	for (size_t i = 0; ok && i < v->nr_workloads; i++) {
		const struct job_workload *w = &job->workloads[i];

		ok = !strcmp(v->workloads[i].name, w->name) &&
		     json_equal(v->workloads[i].params, w->params) &&
		     v->workloads[i].timeout_s ==
			     (w->timeout_s > 0 ? w->timeout_s : JOB_DEFAULT_WORKLOAD_TIMEOUT_S) &&
		     v->workloads[i].no_aslr == w->no_aslr;
	}
	return ok;
}

static int one_job(const char *dir, const char *name)
{
	_cleanup_free_ char *path = fs_join(dir, name);
	_cleanup_json_ json_t *j = NULL;
	struct lab_error err = {0};
	struct job job;

	if (jsonio_load_file(path, TESTUTIL_MAX_FILE, &j, &err) < 0 ||
	    job_from_json(j, load_topo, NULL, &job, &err) < 0)
		return 0; /* a job-error case: nothing to hand to a guest */
	for (int online = 0; online <= 1; online++) {
		_cleanup_json_ json_t *gj = job_guestjob(&job, NULL, "r-0", online);
		struct guestjob v;
		char line[1024] = "";

		tap_ok(gj && validate(gj, &v, line, sizeof(line)) == 0 && same(&job, &v, online),
		       "%s (online_after_boot %d): the agent accepts its guest job as built%s%s",
		       name, online, line[0] ? ": " : "", line);
	}
	job_free(&job);
	return 1;
}

static void every_job(void)
{
	static const char *const dirs[] = {"configs", "lab/tests/data/jobs",
					   "lab/tests/data/job-ok"};
	int jobs = 0;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		_cleanup_json_dir_ struct testutil_json_dir d;

		testutil_json_dir_open(&d, dirs[i]);
		for (int k = 0; k < d.n; k++)
			jobs += one_job(d.dir, d.ents[k]->d_name);
	}
	tap_ok(jobs >= 15, "%d jobs turned into guest jobs", jobs);
}

/* Every knobs object the host normalises, in a guest job. */
static void every_knobs(void)
{
	_cleanup_json_dir_ struct testutil_json_dir d;
	_cleanup_json_ json_t *tj = NULL;
	struct lab_error err = {0};
	struct topology topo;
	int n = 0;

	memset(&topo, 0, sizeof(topo));
	jsonio_load_string("{\"sockets\":4,\"cores\":2,\"node_memory_mib\":512}", &tj, &err);
	topology_from_json(tj, "topology", &topo, &err);
	testutil_json_dir_open(&d, "lab/tests/data/knobs");
	for (int i = 0; i < d.n; i++) {
		_cleanup_free_ char *path = fs_join(d.dir, d.ents[i]->d_name);
		_cleanup_json_ json_t *j = NULL, *knobs = NULL, *gj = NULL;
		struct guestjob v, b = { .run_id = "k", .heartbeat_s = 2 };
		char line[1024] = "";

		if (strncmp(d.ents[i]->d_name, "ok-", 3) ||
		    jsonio_load_file(path, TESTUTIL_MAX_FILE, &j, &err) < 0 ||
		    knobs_parse(j, &topo, &knobs, &err) < 0)
			continue;
		b.knobs = knobs;
		gj = guestjob_build(&b);
		tap_ok(gj && validate(gj, &v, line, sizeof(line)) == 0 &&
			       json_equal(v.knobs, knobs),
		       "knobs %s: the agent accepts them as the host normalised them%s%s",
		       d.ents[i]->d_name, line[0] ? ": " : "", line);
		n++;
	}
	tap_ok(n >= 3, "knobs cases (%d)", n);
	topology_free(&topo);
}

/* The JSON the builder writes, every optional key set: whole seconds stay integers. */
static void golden(void)
{
	_cleanup_json_ json_t *params = json_pack("{s:i,s:[i,i]}", "memory_mib", 8, "tasks", 1, 2);
	_cleanup_json_ json_t *knobs = json_pack("{s:s,s:[s]}", "thp_enabled", "never",
						 "required", "thp_enabled");
	_cleanup_json_ json_t *perf = json_pack("[s]", "page-faults");
	struct guestjob b = {
		.run_id = "x-r0", .fault = FAULT_PANIC, .fault_after = FAULT_AFTER_WORKLOADS,
		.heartbeat_s = 2, .knobs = knobs, .online_after_boot = 1, .perf_stat = perf,
		.nr_workloads = 2,
		.workloads = {{.name = "pft", .params = params, .timeout_s = 1800},
			      {.name = "memscale", .params = params, .timeout_s = 0.5,
			       .no_aslr = 1}},
	};
	_cleanup_json_ json_t *gj = guestjob_build(&b);
	_cleanup_free_ char *s = gj ? json_dumps(gj, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	const char *want =
		"{\"fault\":\"panic\",\"fault_after\":\"workloads\",\"heartbeat_s\":2,"
		"\"knobs\":{\"required\":[\"thp_enabled\"],\"thp_enabled\":\"never\"},"
		"\"online_after_boot\":true,\"perf_stat\":[\"page-faults\"],\"run_id\":\"x-r0\","
		"\"schema\":\"numalab.guestjob/1\",\"workloads\":[{\"name\":\"pft\",\"params\":"
		"{\"memory_mib\":8,\"tasks\":[1,2]},\"timeout_s\":1800.0},{\"aslr\":false,"
		"\"name\":\"memscale\",\"params\":{\"memory_mib\":8,\"tasks\":[1,2]},\"timeout_s\":0.5}]}";
	_cleanup_json_ json_t *probe = NULL;
	_cleanup_free_ char *ps = NULL;
	const struct guestjob p = { .run_id = "kvm-probe", .heartbeat_s = 1 };

	if (!tap_ok(s && !strcmp(s, want), "the builder's JSON, every key set")) {
		tap_diag(s ? s : "(null)");
		tap_diag(want);
	}
	probe = guestjob_build(&p);
	ps = probe ? json_dumps(probe, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	tap_ok(ps && !strcmp(ps, "{\"fault\":\"none\",\"heartbeat_s\":1,\"run_id\":\"kvm-probe\","
			       "\"schema\":\"numalab.guestjob/1\",\"workloads\":[]}"),
	       "the KVM probe's guest job: no optional key (%s)", ps ? ps : "(null)");
}

#define H "\"schema\":\"numalab.guestjob/1\",\"run_id\":\"x\","

static void hostile(void)
{
	static const struct {
		const char *job, *error;
	} cases[] = {
		{"[]", "must be a JSON object"},
		{"{" H "\"workloads\":[],\"extra\":1}", "extra: unknown key"},
		{"{\"schema\":\"numalab.guestjob/2\",\"run_id\":\"x\",\"workloads\":[]}",
		 "schema: must be \"numalab.guestjob/1\""},
		{"{\"schema\":\"numalab.guestjob/1\",\"workloads\":[]}",
		 "run_id: must be a string of at most 128 bytes"},
		{"{" H "\"fault\":\"boom\",\"workloads\":[]}",
		 "fault: must be one of \"none\", \"panic\", \"hang\", \"flood-channel\", "
		 "\"long-line\", \"bad-utf8\", \"deep-json\", \"flood-console\""},
		{"{" H "\"fault_after\":\"boot\",\"workloads\":[]}",
		 "fault_after: must be \"hello\" or \"workloads\""},
		{"{" H "\"heartbeat_s\":0,\"workloads\":[]}",
		 "heartbeat_s: must be a number in 0.1..3600"},
		{"{" H "\"online_after_boot\":1,\"workloads\":[]}",
		 "online_after_boot: must be true or false"},
		{"{" H "\"perf_stat\":[\"-e\"],\"workloads\":[]}",
		 "perf_stat: must be an array of 1..16 event names [A-Za-z0-9][A-Za-z0-9_.:-]{0,62}"},
		{"{" H "\"workloads\":{}}", "workloads: must be an array of at most 64 entries"},
		{"{" H "\"workloads\":[{\"name\":\"../bin/sh\"}]}",
		 "workloads[0].name: must match [a-z0-9][a-z0-9_-]{0,30}"},
		{"{" H "\"workloads\":[{\"name\":\"sh\"}]}",
		 "workloads[0].name: unknown workload \"sh\""},
		{"{" H "\"workloads\":[{\"name\":\"pft\",\"nice\":1}]}",
		 "workloads[0].nice: unknown key"},
		{"{" H "\"workloads\":[{\"name\":\"kbuild\",\"aslr\":\"off\"}]}",
		 "workloads[0].aslr: must be true or false"},
		{"{" H "\"workloads\":[{\"name\":\"pft\",\"timeout_s\":-1}]}",
		 "workloads[0].timeout_s: must be a number in 0..604800 (0 = none)"},
		{"{" H "\"workloads\":[{\"name\":\"pft\",\"params\":{\"a\":{}}}]}",
		 "workloads[0].params.a: must be a string, number, boolean or array of at most "
		 "4096 strings/numbers"},
		{"{" H "\"workloads\":[{\"name\":\"pft\",\"params\":{\"A\":1}}]}",
		 "workloads[0].params.A: key must match [a-z0-9][a-z0-9_]*"},
		{"{" H "\"workloads\":[{\"name\":\"pft\",\"params\":{\"a\":[1,[2]]}}]}",
		 "workloads[0].params.a[1]: must be a string or number"},
		{"{" H "\"workloads\":[],\"knobs\":{\"thp\":\"never\"}}", "knobs.thp: unknown key"},
		{"{" H "\"workloads\":[],\"knobs\":{\"thp_enabled\":\"always; reboot\"}}",
		 "knobs.thp_enabled: must be one of \"always\", \"madvise\", \"never\""},
		{"{" H "\"workloads\":[],\"knobs\":{\"numa_balancing\":true}}",
		 "knobs.numa_balancing: must be an integer 0..3 (3 = tiering + balancing)"},
		{"{" H "\"workloads\":[],\"knobs\":{\"nr_hugepages\":[1,-1]}}",
		 "knobs.nr_hugepages[1]: must be an integer 0..16777216 (2 MiB pages on node 1)"},
		{"{" H "\"workloads\":[],\"knobs\":{\"mthp_enabled\":{\"64k\":\"always\"}}}",
		 "knobs.mthp_enabled.64k: the size must look like \"64kB\""},
		{"{" H "\"workloads\":[],\"knobs\":{\"required\":[\"reboot\"]}}",
		 "knobs.required[0]: must name a knob"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		_cleanup_json_ json_t *j = json_loads(cases[i].job, JSON_REJECT_DUPLICATES, NULL);
		struct guestjob v;
		char line[1024] = "";

		if (!tap_ok(j && validate(j, &v, line, sizeof(line)) == -EINVAL &&
				    !strcmp(line, cases[i].error),
			    "refused: %s", cases[i].job))
			tap_diag(line);
	}
}

static void tables(void)
{
	static const char *const two[] = {"a", "b", NULL}, *const three[] = {"a", "b", "c", NULL};
	char buf[64];
	int paths = 1;

	words_list(two, " or ", buf, sizeof(buf));
	tap_ok(!strcmp(buf, "\"a\" or \"b\""), "words_list: %s", buf);
	words_list(three, ", ", buf, sizeof(buf));
	tap_ok(!strcmp(buf, "\"a\", \"b\", \"c\""), "words_list: %s", buf);
	for (size_t i = 0; i < knob_count(); i++) {
		const struct knob_def *k = knob_at(i);

		paths &= k->expand == KNOB_PER_SIZE ? k->each_dir && !k->path : !!k->path;
		paths &= k->expand == KNOB_ONE || (k->each_prefix && k->each_file);
		paths &= (k->type == KNOB_WORD) == !!k->words;
	}
	tap_ok(knob_count() == 6 && paths, "the knob table: every row has its files and values");
	tap_ok(knob_find("numa_balancing") && !knob_find(KNOB_REQUIRED), "knob_find");
}

/* A guest job file as the agent reads it: accepted, and the builder's copy of what was read
 * accepted too. */
static void one_guestjob_file(const char *dir, const char *name)
{
	_cleanup_free_ char *path = fs_join(dir, name);
	_cleanup_json_ json_t *j = NULL, *again = NULL;
	struct lab_error err = {0};
	struct guestjob v, w;
	char line[1024] = "";

	if (!path || jsonio_load_file(path, GUESTJOB_MAX_BYTES, &j, &err) < 0) {
		tap_ok(0, "guestjob/%s: read it: %s", name, err.msg);
		return;
	}
	if (!tap_ok(validate(j, &v, line, sizeof(line)) == 0, "guestjob/%s: accepted", name)) {
		tap_diag(line);
		return;
	}
	again = guestjob_build(&v);
	tap_ok(again && validate(again, &w, line, sizeof(line)) == 0 &&
		       w.nr_workloads == v.nr_workloads,
	       "guestjob/%s: accepted as rebuilt %s", name, line);
}

static void guestjob_files(void)
{
	_cleanup_json_dir_ struct testutil_json_dir d;

	testutil_json_dir_open(&d, "lab/tests/data/guestjob");
	tap_ok(d.n > 0, "guest job files present");
	for (int k = 0; k < d.n; k++)
		one_guestjob_file(d.dir, d.ents[k]->d_name);
}

int main(void)
{
	every_job();
	every_knobs();
	golden();
	hostile();
	tables();
	guestjob_files();
	return tap_done();
}
