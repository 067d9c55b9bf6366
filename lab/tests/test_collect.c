/* The results channel (untrusted guest output) and the report converter.
 * A recorded channel from a real quick.json run is replayed, hostile lines are thrown at the
 * parser, and the report of the replayed run is compared with a golden file
 * (UPDATE_GOLDEN=1 rewrites it).  A healthy channel with every line type the agent sends
 * leaves no bad line and yields the guest's kernel facts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/collect.h"
#include "core/job.h"
#include "core/runreport.h"
#include "tap.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/jsonio.h"

static int load_topo(const char *ref, void *ud, json_t **out, struct lab_error *err)
{
	char path[512];

	(void)ud;
	snprintf(path, sizeof(path), "configs/topologies/%s.json", ref);
	return jsonio_load_file(path, 1 << 20, out, err);
}

static void replay(struct guest_log *g, const char *file)
{
	char *text = NULL, *line, *save = NULL;
	int progress = 0;

	if (!tap_ok(fs_read_file(file, 1 << 24, &text, NULL) == 0, "read %s", file))
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		progress += collect_line(g, line, strlen(line), 1.0 + progress);
	free(text);
	tap_ok(progress >= 5, "recorded lines are progress (%d)", progress);
}

static void hostile(struct guest_log *g)
{
	static const char *const lines[] = {
		"not json",
		"{\"t\":\"hello\",\"t\":\"done\"}",                      /* duplicate key */
		"{\"t\":42}",
		"{\"t\":\"workload\",\"index\":7,\"exit\":0}",            /* index out of range */
		"{\"t\":\"workload\",\"index\":-1,\"exit\":0}",
		"{\"t\":\"topology\",\"nodes\":[{\"id\":0,\"cpus\":[0],\"memory_mib\":-5}],"
		"\"distances\":[[10]]}",
		"{\"t\":\"topology\",\"nodes\":[{\"id\":0,\"cpus\":[99999],\"memory_mib\":5}],"
		"\"distances\":[[10]]}",
		"{\"t\":\"topology\",\"nodes\":[{\"id\":0,\"cpus\":[0],\"memory_mib\":5}],"
		"\"distances\":[[10,20]]}",
		"{\"t\":\"unknown-type\"}",
		/* more CPUs onlined than present; a negative time; an error list too long */
		"{\"t\":\"cpus-online\",\"present\":2,\"requested\":3,\"failed_count\":0,"
		"\"failed\":[],\"wall_s\":1.0,\"rcu_expedited\":true}",
		"{\"t\":\"cpus-online\",\"present\":8,\"requested\":6,\"failed_count\":0,"
		"\"failed\":[],\"wall_s\":-1.0,\"rcu_expedited\":true}",
		"{\"t\":\"cpus-online\",\"present\":8,\"requested\":6,\"failed_count\":1,"
		"\"failed\":[{\"cpu\":9999,\"error\":\"x\"}],\"wall_s\":1,"
		"\"rcu_expedited\":false}",
		/* batching: one of the pair without the other; a rebuild longer than the whole */
		"{\"t\":\"cpus-online\",\"present\":8,\"requested\":6,\"failed_count\":0,"
		"\"failed\":[],\"wall_s\":1.0,\"rcu_expedited\":true,\"domains_batched\":true}",
		"{\"t\":\"cpus-online\",\"present\":8,\"requested\":6,\"failed_count\":0,"
		"\"failed\":[],\"wall_s\":1.0,\"rcu_expedited\":true,\"domains_batched\":true,"
		"\"rebuild_s\":2.0}",
		"{\"t\":\"cpus-online\",\"present\":8,\"requested\":6,\"failed_count\":0,"
		"\"failed\":[],\"wall_s\":1.0,\"rcu_expedited\":true,\"domains_batched\":1,"
		"\"rebuild_s\":0.5}",
		/* "same as the build's config" is a boolean, and never next to a config text */
		"{\"t\":\"kernel\",\"config_same\":\"yes\",\"vmstat\":null}",
		"{\"t\":\"kernel\",\"config_same\":true,\"config\":\"CONFIG_A=y\\n\","
		"\"vmstat\":null}",
		/* a start that cannot be placed: no index, or beyond the job's workloads */
		"{\"t\":\"workload-start\",\"name\":\"pft\"}",
		"{\"t\":\"workload-start\",\"index\":7,\"name\":\"pft\"}",
	};
	unsigned before = g->bad_lines;
	json_t *observed = g->observed;

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		tap_ok(collect_line(g, lines[i], strlen(lines[i]), 9) == 0, "rejects: %s",
		       lines[i]);
	tap_ok(g->bad_lines == before + sizeof(lines) / sizeof(lines[0]), "all counted as bad");
	tap_ok(g->observed == observed, "a bad topology does not replace the good one");
	tap_ok(g->online && json_integer_value(json_object_get(g->online, "requested")) == 6,
	       "a bad cpus-online line does not replace the good one");
}

/* Each node's memory at a workload's start: kept when every node passes its checks, the
 * whole list dropped (the start kept) when one does not. */
static void start_memory(void)
{
	static const char *const bad[] = {
		"[{\"id\":0,\"free_kib\":-1,\"used_kib\":0,\"pcp_kib\":0,\"kept_kib\":0}]",
		"[{\"id\":0,\"free_kib\":10,\"used_kib\":0,\"pcp_kib\":0,\"kept_kib\":11}]",
		"[{\"id\":0,\"free_kib\":10,\"used_kib\":4,\"pcp_kib\":5,\"kept_kib\":1}]",
		"[{\"id\":1,\"free_kib\":1,\"used_kib\":1,\"pcp_kib\":0,\"kept_kib\":0},"
		"{\"id\":0,\"free_kib\":1,\"used_kib\":1,\"pcp_kib\":0,\"kept_kib\":0}]",
		"[{\"id\":64,\"free_kib\":1,\"used_kib\":1,\"pcp_kib\":0,\"kept_kib\":0}]",
		"[{\"id\":0,\"free_kib\":1,\"used_kib\":1,\"pcp_kib\":0,\"kept_kib\":0,"
		"\"x\":1}]",
		"[{\"id\":0,\"free_kib\":1,\"used_kib\":1,\"kept_kib\":0}]",
		"[{\"id\":0,\"free_kib\":1,\"used_kib\":2199023255553,\"pcp_kib\":0,"
		"\"kept_kib\":0}]",
		"{\"id\":0}",
	};
	const char *good = "{\"t\":\"workload-start\",\"index\":1,\"name\":\"pft\",\"nodes\":"
			   "[{\"id\":0,\"free_kib\":477776,\"used_kib\":36612,\"pcp_kib\":1180,"
			   "\"kept_kib\":27540},{\"id\":2,\"free_kib\":0,\"used_kib\":524288,"
			   "\"pcp_kib\":0,\"kept_kib\":0}]}";
	struct guest_log g;
	json_t *got;

	if (!tap_ok(collect_init(&g, 2) == 0, "collect_init"))
		return;
	tap_ok(collect_line(&g, good, strlen(good), 1) == 1 && g.bad_lines == 0,
	       "workload-start with the nodes' memory is progress");
	got = json_array_get(g.start_memory, 1);
	tap_ok(json_array_size(got) == 2 && json_is_null(json_array_get(g.start_memory, 0)) &&
		       json_integer_value(json_object_get(json_array_get(got, 0), "kept_kib")) ==
			       27540,
	       "... kept for workload 1, none for workload 0");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char line[512];

		snprintf(line, sizeof(line), "{\"t\":\"workload-start\",\"index\":0,\"nodes\":%s}",
			 bad[i]);
		tap_ok(collect_line(&g, line, strlen(line), 2) == 1 && g.bad_lines == 0 &&
			       json_is_null(json_array_get(g.start_memory, 0)),
		       "a start whose nodes fail their checks is kept without them: %s", bad[i]);
	}
	collect_free(&g);
}

/* The node with the kernel image: kept when it is one of the reported nodes. */
static void kernel_node(void)
{
	static const struct {
		const char *value;
		int kept;
	} c[] = {{"1", 1}, {"0", 1}, {"2", 0}, {"-1", 0}, {"\"1\"", 0}};
	struct guest_log g;

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char line[256];
		json_t *kn;

		snprintf(line, sizeof(line), "{\"t\":\"topology\",\"nodes\":[{\"id\":0,\"cpus\":[0],"
			 "\"memory_mib\":5},{\"id\":1,\"cpus\":[1],\"memory_mib\":5}],"
			 "\"distances\":[[10,20],[20,10]],\"kernel_node\":%s}", c[i].value);
		if (collect_init(&g, 1) < 0)
			return;
		kn = collect_line(&g, line, strlen(line), 1) == 1
			     ? json_object_get(g.observed, "kernel_node") : NULL;
		tap_ok(g.observed && (c[i].kept ? json_is_integer(kn) : !kn),
		       "topology with kernel_node %s: the topology kept, the node %s", c[i].value,
		       c[i].kept ? "too" : "left out");
		collect_free(&g);
	}
}

/* A guest whose .config is the one the host gave it says only that. */
static void config_same(void)
{
	struct guest_log g;
	const char *l = "{\"t\":\"kernel\",\"config_same\":true,\"vmstat\":null}";

	if (!tap_ok(collect_init(&g, 1) == 0, "collect_init"))
		return;
	tap_ok(collect_line(&g, l, strlen(l), 1) == 1 && g.bad_lines == 0 && g.kernel.seen &&
		       g.kernel.config_same && !g.kernel.config,
	       "kernel line with config_same: kept as the build's config, no text");
	collect_free(&g);
}

/* An agent that batched the scheduler-domain rebuilds says so; the host keeps both fields. */
static void online_batched(void)
{
	struct guest_log g;
	const char *l = "{\"t\":\"cpus-online\",\"present\":512,\"requested\":510,"
			"\"failed_count\":0,\"failed\":[],\"wall_s\":40.5,\"rcu_expedited\":true,"
			"\"domains_batched\":true,\"rebuild_s\":1.25}";

	if (!tap_ok(collect_init(&g, 1) == 0, "collect_init"))
		return;
	collect_line(&g, l, strlen(l), 1);
	tap_ok(g.bad_lines == 0 && g.online &&
		       json_is_true(json_object_get(g.online, "domains_batched")) &&
		       json_real_value(json_object_get(g.online, "rebuild_s")) == 1.25,
	       "cpus-online with domains_batched and rebuild_s is kept");
	collect_free(&g);
}

static void bad_output(void)
{
	struct guest_log g;
	const char *l = "{\"t\":\"workload\",\"index\":0,\"exit\":0,\"output\":{\"results\":"
			"[{\"tasks\":1,\"metrics\":{\"x\":{\"value\":1,\"unit\":\"s\","
			"\"better\":\"sideways\"}}}]}}";
	int failed, missing;

	collect_init(&g, 2);
	tap_ok(collect_line(&g, l, strlen(l), 1) == 1, "workload with a bad metric is recorded");
	collect_count(&g, &failed, &missing);
	tap_ok(failed == 1 && missing == 1, "...as failed (%d), the other as missing (%d)", failed,
	       missing);
	collect_free(&g);
}

static void compare(const struct job *job, struct guest_log *g)
{
	json_t *mm = NULL;
	json_t *obs = json_deep_copy(g->observed);

	tap_ok(collect_compare_topology(&job->topo, g->observed, &mm) == 1 &&
		       json_array_size(mm) == 0, "recorded topology matches 4s-8c");
	json_decref(mm);
	json_integer_set(json_object_get(json_array_get(json_object_get(obs, "nodes"), 1),
					 "memory_mib"), 480);
	int r = collect_compare_topology(&job->topo, obs, &mm);
	const char *first = json_string_value(json_array_get(mm, 0));

	tap_ok(r == 0 && first && strstr(first, "nodes[1].memory_mib"),
	       "6%% less memory is a mismatch: %s", first ? first : "none");
	json_decref(mm);
	json_decref(obs);
}

static void golden(const struct job *job, const struct guest_log *g)
{
	const char *path = "lab/tests/golden/report-run-quick.json";
	struct console_scan cs = { 0 };
	struct run_record rec = { .index = 0, .job = job, .log = g, .console = &cs,
				  .outcome = OUTCOME_OK, .boot_s = 1, .first_workload_s = 3,
				  .workload_s = 1, .total_s = 6,
				  .host = { "tcg", "test", "10.0.2", "11.3.0", "qemu:///embed" } };
	json_t *j;
	char *got, *want = NULL;

	snprintf(rec.reason, sizeof(rec.reason), "all workloads completed");
	snprintf(rec.kernel_image, sizeof(rec.kernel_image), "/boot/vmlinuz");
	snprintf(rec.console_file, sizeof(rec.console_file), "run-0/console.log");
	j = runreport_run_json(&rec);
	if (!tap_ok(j != NULL, "runreport_run_json builds"))
		return;
	got = jsonio_dumps(j);
	if (getenv("UPDATE_GOLDEN"))
		fs_write_atomic(path, got, strlen(got));
	fs_read_file(path, 1 << 20, &want, NULL);
	tap_ok(want && !strcmp(got, want), "report run JSON equals %s", path);
	free(got);
	free(want);
	json_decref(j);
}

/* A run whose console warned: "warnings" has them, the run is still ok with its workloads;
 * warnings_dropped only when some were dropped. */
static void warned(const struct job *job, const struct guest_log *g)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_json_ json_t *run = NULL;
	struct console_scan cs;
	struct run_record rec = { .job = job, .log = g, .console = &cs, .outcome = OUTCOME_OK };
	struct kwarn_list back;
	size_t len = 0;
	const json_t *w;

	if (!tap_ok(fs_read_file("lab/tests/data/kwarn/mixed.log", 1 << 20, &text, &len) == 0 &&
			    outcome_scan_console(text, len, &cs) == 0,
		    "the mixed warnings console scanned"))
		return;
	run = runreport_run_json(&rec);
	w = json_object_get(run, "warnings");
	tap_ok(json_array_size(w) == 4 &&
		       !strcmp(json_string_value(json_object_get(json_array_get(w, 0), "kind")),
			       "warning") &&
		       json_integer_value(json_object_get(json_array_get(w, 0), "count")) == 3 &&
		       !json_object_get(run, "warnings_dropped") &&
		       !strcmp(json_string_value(json_object_get(run, "status")), "ok") &&
		       json_array_size(json_object_get(run, "workloads")) == job->nr_workloads,
	       "a run that warned: its 4 warnings in the report, still ok with its workloads");
	tap_ok(kwarn_list_from_json(run, "runs[0]", &back, NULL) == 0 && back.n == 4 &&
		       back.items[2].kind == KWARN_HUNG_TASK,
	       "... and read back");
	kwarn_list_free(&back);
	console_scan_free(&cs);
}

/* lab/tests/data/results/healthy.jsonl: quick-ok.jsonl with the kernel, knobs, heartbeat and
 * vmstat lines every healthy run also has (their fields from lab/tests/data/kguest/ok.jsonl). */
static void healthy(const struct job *job)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_json_ json_t *vma = NULL, *run = NULL;
	struct console_scan cs = { 0 };
	struct run_record rec = { .job = job, .console = &cs, .outcome = OUTCOME_OK };
	struct guest_log g;
	size_t len = 0, lines;

	if (!tap_ok(fs_read_file("lab/tests/data/results/healthy.jsonl", 1 << 24, &text, &len) ==
			    0 && collect_init(&g, job->nr_workloads) == 0,
		    "read the healthy channel"))
		return;
	lines = collect_text(&g, text, len, 1);
	tap_ok(lines == 10 && g.bad_lines == 0, "a healthy channel: %zu lines, all progress, "
	       "bad_lines %u", lines, g.bad_lines);
	tap_ok(g.kernel.seen && g.kernel.config &&
		       !strcmp(g.kernel.config, "CONFIG_A=y\n# CONFIG_B is not set\n") &&
		       !g.kernel.config_error[0],
	       "the guest's .config is kept");
	vma = collect_vma_lock_json(&g.kernel);
	tap_ok(json_integer_value(json_object_get(json_object_get(vma, "delta"),
						  "vma_lock_success")) == 16384 &&
		       json_integer_value(json_object_get(json_object_get(vma, "start"),
							  "vma_lock_retry")) == 1,
	       "vma_lock counters at boot and before power-off, and their delta");
	tap_ok(g.knobs && json_array_size(json_object_get(g.knobs, "knobs")) == 4 && g.online &&
		       g.done_ok && json_object_get(json_array_get(g.workloads, 0), "output"),
	       "knobs, cpus-online, the workload and done kept too");
	rec.log = &g;
	run = runreport_run_json(&rec);
	tap_ok(json_integer_value(json_object_get(json_object_get(run, "guest"), "bad_lines")) ==
			       0 && json_object_get(json_object_get(run, "guest"), "bad_lines"),
	       "the report says guest.bad_lines 0");
	tap_ok(json_equal(json_object_get(json_array_get(json_object_get(run, "workloads"), 0),
					  "start_memory"),
			  json_array_get(g.start_memory, 0)) &&
		       json_array_size(json_array_get(g.start_memory, 0)) == 4,
	       "the workload's start_memory in the report: the 4 nodes as the guest sent them");
	collect_free(&g);
}

int main(void)
{
	struct guest_log g;
	struct job job = { 0 };
	struct lab_error err = { 0 };
	json_t *jj = NULL;

	jsonio_load_file("configs/quick.json", 1 << 20, &jj, &err);
	if (!tap_ok(jj && job_from_json(jj, load_topo, NULL, &job, &err) == 0, "quick.json: %s",
		    err.msg))
		return tap_done();
	collect_init(&g, job.nr_workloads);
	replay(&g, "lab/tests/data/results/quick-ok.jsonl");
	tap_ok(g.hello && g.done && g.done_ok && !strcmp(g.agent, "numalab-agent/1"),
	       "hello and done seen");
	tap_ok(json_object_get(json_array_get(g.workloads, 0), "output") != NULL,
	       "workload output kept");
	compare(&job, &g);
	golden(&job, &g);
	warned(&job, &g);
	hostile(&g);
	bad_output();
	online_batched();
	start_memory();
	kernel_node();
	config_same();
	healthy(&job);
	collect_free(&g);
	job_free(&job);
	json_decref(jj);
	return tap_done();
}
