/* lab/core/slurmfmt.c, pure: real Slurm 22.05 output (lab/tests/data/slurm/) parsed into what
 * labd needs, and the sbatch argv of a labd job compared with lab/tests/golden/sbatch-argv.txt
 * (UPDATE_GOLDEN=1 rewrites it). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/slurmfmt.h"
#include "testutil.h"
#include "util/strbuf.h"

static char *slurp(const char *rel)
{
	_cleanup_json_ json_t *j = testutil_load(rel);

	return j ? json_dumps(j, JSON_COMPACT) : NULL;
}

static void test_jobs(void)
{
	_cleanup_free_ char *text = slurp("lab/tests/data/slurm/squeue.json");
	_cleanup_free_ char *run = slurp("lab/tests/data/slurm/squeue-running.json");
	struct lab_error err = { 0 };
	struct slurm_job_info si;

	tap_ok(text && slurmfmt_parse_job(text, strlen(text), 1, &si, &err) == 0 &&
		       !strcmp(si.state, "COMPLETED") && si.phase == SLURM_ENDED && si.exit_code == 0 &&
		       !si.signal && si.requeue && !strcmp(si.nodes, "localhost"),
	       "job 1: COMPLETED, exit 0, requeueable, on localhost (picked by id: squeue lists all)");
	tap_ok(slurmfmt_parse_job(text, strlen(text), 3, &si, &err) == 0 &&
		       si.phase == SLURM_ENDED && si.exit_code == 4 && !si.signal,
	       "job 3: FAILED with exit 4 (lab's 'the lab failed'): wait status 1024 decoded");
	tap_ok(slurmfmt_parse_job(text, strlen(text), 2, &si, &err) == 0 &&
		       si.phase == SLURM_CANCELLED && si.signal == 15,
	       "job 2: CANCELLED, by signal 15");
	tap_ok(run && slurmfmt_parse_job(run, strlen(run), 4, &si, &err) == 0 &&
		       si.phase == SLURM_RUNNING && !strcmp(si.reason, "None"),
	       "job 4: RUNNING (reason %s)", si.reason);
	tap_ok(slurmfmt_parse_job(text, strlen(text), 99, &si, &err) == -ENOENT,
	       "a job squeue does not list: -ENOENT (it ended longer ago than MinJobAge)");
	static const char not_squeue[] = "{\"errors\": [], \"nodes\": []}";
	static const char slurm_error[] = "{\"errors\": [{\"error\": \"Unable to contact slurm "
					  "controller\"}], \"jobs\": []}";

	tap_ok(slurmfmt_parse_job(not_squeue, strlen(not_squeue), 1, &si, &err) == -EINVAL &&
		       strstr(err.msg, "no \"jobs\" array"),
	       "output that is not squeue's: -EINVAL (%s)", err.msg);
	tap_ok(slurmfmt_parse_job(slurm_error, strlen(slurm_error), 1, &si, &err) == -EINVAL &&
		       strstr(err.msg, "Slurm says: Unable to contact slurm controller"),
	       "Slurm's own error is said (%s)", err.msg);
}

static void test_phases(void)
{
	static const struct { const char *state; enum slurm_phase p; } t[] = {
		{ "PENDING", SLURM_WAITING },   { "REQUEUED", SLURM_WAITING },
		{ "CONFIGURING", SLURM_WAITING }, { "RUNNING", SLURM_RUNNING },
		{ "COMPLETING", SLURM_RUNNING }, { "COMPLETED", SLURM_ENDED },
		{ "FAILED", SLURM_ENDED },       { "CANCELLED", SLURM_CANCELLED },
		{ "NODE_FAIL", SLURM_LOST },     { "TIMEOUT", SLURM_LOST },
		{ "OUT_OF_MEMORY", SLURM_LOST },
	};
	int all = 1;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		all &= slurmfmt_phase(t[i].state) == t[i].p;
	tap_ok(all, "Slurm's job states, each in its phase for labd");
}

static void test_nodes(void)
{
	_cleanup_free_ char *text = slurp("lab/tests/data/slurm/sinfo.json");
	_cleanup_json_ json_t *nodes = NULL, *want = json_pack(
		"[{s:s, s:s, s:[s, s], s:s, s:i, s:i, s:i, s:i}]", "name", "localhost", "state",
		"idle", "features", "lab-a", "numalab-test", "reason", "", "cpus", 2, "alloc_cpus", 0,
		"memory_mib", 21694, "free_mib", 19691);
	struct lab_error err = { 0 };
	char have[256];

	tap_ok(text && slurmfmt_parse_nodes(text, strlen(text), &nodes, &err) == 0 &&
		       json_equal(nodes, want),
	       "sinfo: the node, its state and its features");
	json_decref(nodes);
	nodes = NULL;
	free(text);
	text = slurp("lab/tests/data/slurm/sinfo-drained.json");
	tap_ok(text && slurmfmt_parse_nodes(text, strlen(text), &nodes, &err) == 0 &&
		       !strcmp(json_string_value(json_object_get(json_array_get(nodes, 0), "state")),
			       "idle+drain") &&
		       strstr(json_string_value(json_object_get(json_array_get(nodes, 0), "reason")),
			      "numalab: a lab guest is left"),
	       "sinfo of a drained node: state idle+drain, with the health check's reason");
	tap_ok(slurmfmt_feature_known(nodes, "lab-a", have, sizeof(have)) == 1,
	       "feature lab-a: a node has it");
	tap_ok(slurmfmt_feature_known(nodes, "gpu", have, sizeof(have)) == 0 &&
		       !strcmp(have, "lab-a, numalab-test"),
	       "feature gpu: none has it; the features there are, sorted (%s)", have);
}

static void test_argv(void)
{
	char *cmd[] = { "/usr/bin/lab", "run", "/var/lib/numalab/labd/jobs/job-x/job.json",
			"--resume", NULL };
	struct slurm_batch b = { .script = "/var/lib/numalab/labd/slurm-batch.sh",
				 .name = "numalab-7", .output = "/var/lib/numalab/labd/jobs/job-x/slurm.out",
				 .workdir = "/var/lib/numalab/labd/jobs/job-x", .constraint = "epyc-4s",
				 .partition = "lab", .time_min = 95, .cmd = cmd };
	struct slurm_argv_bufs bufs;
	char *argv[SLURM_ARGV_MAX];
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	_cleanup_free_ char *text = NULL;

	tap_ok(slurmfmt_sbatch_argv(&b, &bufs, argv) == 0, "the sbatch argv of a labd job");
	for (size_t i = 0; argv[i]; i++)
		strbuf_appendf(&sb, "%s\n", argv[i]);
	strbuf_take(&sb, &text);
	testutil_golden("sbatch-argv.txt", text);
	b.constraint = "a b";
	tap_ok(slurmfmt_sbatch_argv(&b, &bufs, argv) == -EINVAL,
	       "a class that is not a feature word is refused");
	tap_ok(!slurmfmt_feature_ok("-x") && !slurmfmt_feature_ok("") && slurmfmt_feature_ok("a.b_c-1"),
	       "feature words: [A-Za-z0-9_.-], not starting with '-'");
}

int main(void)
{
	test_jobs();
	test_phases();
	test_nodes();
	test_argv();
	return tap_done();
}
