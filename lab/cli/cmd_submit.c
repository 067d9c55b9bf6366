/* lab job submit JOB.json [--wait] [--json]: a job into labd's queue (labd_cli.h); with --wait,
 * followed to its end as `lab run` would show it. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/hostclass.h"
#include "cli/labd_cli.h"
#include "cli/labd_job.h"
#include "util/cleanup.h"
#include "util/text.h"

/* One command line a process: what the table writes to. */
static struct {
	int wait;
	const char *klass;
} args;

static const struct cli_opt options[] = {
	OPT_FLAG(0, "wait", &args.wait, "follow the job until it ends, as `lab run` shows it"),
	OPT_CALL(0, "class", &args.klass, "CLASS", hostclass_take,
		 "run it on a host of this class (labd --backend slurm: a node feature)"),
	OPT_GROUP(labd_cli_opts),
	OPT_END(),
};

void cmd_submit_help(void)
{
	cli_synopsis("job submit", "JOB.json", options);
	printf("\nQueues a job file, as `lab run` takes it, in labd, the lab's daemon, and prints\n"
	       "its ID.  labd runs its jobs one at a time, each as `lab run` would, and keeps\n"
	       "its queue on disk: jobs survive a restart.  labd resolves names (a topology,\n"
	       "kernel variants, image recipes) on its side; a relative path in the job is\n"
	       "refused here: use an absolute path or a name.  --json prints labd's answer,\n"
	       "{\"id\", \"state\"}; with --wait, the ended job as 'lab job status --json'\n"
	       "prints it.  Each option at length: man lab, \"OPTIONS OF LAB JOB\".\n"
	       "\nOPTIONS\n");
	opt_print(stdout, options);
	printf("\nEXAMPLES\n"
	       "  lab job submit configs/quick.json\n"
	       "  lab job submit configs/ab-vma-lock.json --wait    # follow it to its end\n"
	       "  lab job submit configs/quick.json --json --socket /run/numalab/labd.sock\n"
	       "  lab job submit configs/ab.json --class epyc-4s     # a Slurm node feature\n\n"
	       "Exit status: 0 queued (with --wait: every run ok); 4 labd is not running or\n"
	       "failed, or (with --wait) the job failed as a lab error; 2 bad job file (refused\n"
	       "here or by labd); 3 with --wait, a run failed or the job was cancelled.\n");
}

/* ---- --wait ---------------------------------------------------------------------------- */

/* As `lab run` shows a job: its progress lines (run K/N ...: the worker's events carry them),
 * and what only labd knows (started, cancelled, restarted, done). */
static void wait_event(void *ud, const json_t *ev)
{
	const char *type = json_string_value(json_object_get(ev, "type"));
	char what[1024];

	(void)ud;
	if (!type || !strncmp(type, "run-", 4))
		return;
	labd_event_what(ev, what, sizeof(what));
	if (!strcmp(type, "progress"))
		fprintf(stderr, "lab: %s\n", strncmp(what, "lab: ", 5) ? what : what + 5);
	else if (!strcmp(type, "accepted"))
		fprintf(stderr, "lab: job %" JSON_INTEGER_FORMAT " queued, waiting for its turn\n",
			json_integer_value(json_object_get(ev, "job")));
	else if (!strcmp(type, "started"))
		fprintf(stderr, "lab: %s\n", what);
	else
		fprintf(stderr, "lab: job %" JSON_INTEGER_FORMAT ": %s\n",
			json_integer_value(json_object_get(ev, "job")), what);
}

/* Runs and runs ok of a report, and its status ("" without a report). */
static void report_summary(const json_t *rep, unsigned *runs, unsigned *ok, char *status,
			   size_t len)
{
	const json_t *a = json_object_get(rep, "runs");
	const char *s = json_string_value(json_object_get(rep, "status"));
	size_t i;
	json_t *r;

	*runs = (unsigned)json_array_size(a);
	*ok = 0;
	json_array_foreach(a, i, r) {
		const char *rs = json_string_value(json_object_get(r, "status"));

		*ok += rs && !strcmp(rs, "ok");
	}
	text_clean_copy(status, len, s ? s : "");
}

/* The ended job's report, or NULL when it has none (no run ended) or labd cannot give it. */
static json_t *fetch_report(struct labd_cli *l, int64_t id)
{
	struct lab_error err = { 0 };
	json_t *rep = NULL;
	char path[96];
	long st = 0;

	labd_cli_job_path(path, sizeof(path), id, "/report");
	if (labd_request(&l->c, "GET", path, NULL, LABD_REPORT_MAX, LABD_TIMEOUT_S * 4, &st, &rep,
			 &err) < 0)
		cli_err("warning: %s", err.msg);
	if (st != 200) {
		json_decref(rep);
		return NULL;
	}
	return rep;
}

/* What `lab run` prints at its end, and its exit code: 0 only when the job ended done, its
 * `lab run` exited 0 and the report's status is ok. */
static int summarise(struct labd_cli *l, int64_t id, const json_t *job)
{
	_cleanup_json_ json_t *rep = fetch_report(l, id);
	const char *state = json_string_value(json_object_get(job, "state"));
	const char *out = json_string_value(json_object_get(job, "out_dir"));
	const json_t *ex = json_object_get(job, "exit");
	char status[32], dir[1024];
	unsigned runs, ok;

	report_summary(rep, &runs, &ok, status, sizeof(status));
	text_clean_copy(dir, sizeof(dir), out ? out : "?");
	if (!l->json)
		printf("%u run(s): %u ok; status %s\nreport: %s/report.json\n", runs, ok,
		       status[0] ? status : "none", dir);
	if (state && !strcmp(state, "failed"))
		return EXIT_LAB_ERROR;
	return state && !strcmp(state, "done") && !strcmp(status, "ok") &&
		       (!json_is_integer(ex) || json_integer_value(ex) == 0)
		       ? EXIT_OK
		       : EXIT_RUN_FAILED;
}

static int wait_job(struct labd_cli *l, int64_t id)
{
	_cleanup_json_ json_t *job = NULL;
	char path[96], e[1024];
	const char *err;
	int rc = labd_cli_events(l, id, 1, wait_event, NULL);

	labd_cli_job_path(path, sizeof(path), id, "");
	if (rc == EXIT_OK)
		rc = labd_cli_call(l, "GET", path, NULL, LABD_ANSWER_MAX, LABD_TIMEOUT_S, NULL,
				   &job);
	if (rc != EXIT_OK)
		return rc;
	if ((err = json_string_value(json_object_get(job, "error"))) && err[0]) {
		text_clean_copy(e, sizeof(e), err);
		cli_err("job %" PRId64 ": %s", id, e);
	}
	rc = summarise(l, id, job);
	return l->json && labd_cli_print_json(job) != EXIT_OK ? EXIT_LAB_ERROR : rc;
}

/* ---- the command ------------------------------------------------------------------------- */

static int submit(struct labd_cli *l, const char *file, const json_t *job)
{
	_cleanup_json_ json_t *a = NULL;
	char path[128];
	json_int_t id;
	int wait = args.wait, rc;

	snprintf(path, sizeof(path), "/v1/jobs%s%s", args.klass ? "?class=" : "",
		 args.klass ? args.klass : "");
	rc = labd_cli_call(l, "POST", path, job, LABD_ANSWER_MAX, LABD_TIMEOUT_S, file, &a);

	if (rc != EXIT_OK)
		return rc;
	id = json_integer_value(json_object_get(a, "id"));
	if (id <= 0) {
		cli_err("labd answered without a job ID");
		return EXIT_LAB_ERROR;
	}
	if (l->json && !wait)
		return labd_cli_print_json(a);
	if (!l->json) {
		printf("%" JSON_INTEGER_FORMAT "\n", id);
		fflush(stdout);
	}
	return wait ? wait_job(l, (int64_t)id) : EXIT_OK;
}

int cmd_submit(int argc, char **argv)
{
	struct labd_cli l = { 0 };
	_cleanup_json_ json_t *job = NULL;
	int first, rc;

	memset(&args, 0, sizeof(args));
	first = labd_cli_parse(&l, argc, argv, options);
	if (first < 0)
		return EXIT_BAD_INPUT;
	if (first != argc - 1) {
		cli_usage_err("expected exactly one job file");
		return EXIT_BAD_INPUT;
	}
	if ((rc = labd_job_load(argv[first], &job)) != EXIT_OK || (rc = labd_cli_open(&l)) != EXIT_OK)
		return rc;
	rc = submit(&l, argv[first], job);
	labd_cli_close(&l);
	return rc;
}
