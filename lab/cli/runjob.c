/* `lab run`'s work once its options are read (runjob.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/series.h"
#include "cli/cli.h"
#include "cli/kernel_spec.h"
#include "cli/report_decision.h"
#include "cli/report_files.h"
#include "cli/runjob.h"
#include "core/runresume.h"
#include "run/jobload.h"
#include "run/plan.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/jsonio.h"
#include "virt/virt.h"

/* The job, its kernels replaced when kernels is not NULL; sha256: its identity for --resume
 * (runresume_job_sha256), or NULL.  An error is printed. */
static int load_job(const char *file, const json_t *kernels, struct job *job, char sha256[65],
		    json_t **as_run)
{
	struct lab_error err = { 0 };
	char msg[1200];
	int r = jobload_file_as_run(file, kernels, job, sha256, as_run, &err);

	if (r < 0) {
		error_format(&err, msg, sizeof(msg));
		cli_err("%s", msg);
	}
	return r;
}

int cli_load_job(const char *file, struct job *job)
{
	return load_job(file, NULL, job, NULL, NULL);
}

/* --resume: the plan from DIR/report.json when an earlier run wrote one (none yet: every run
 * is run but the interrupted ones).  An error is printed; -EINVAL for a report or list that
 * cannot be resumed. */
static int load_resume(const struct cli_run *a, const struct job *job, const char *sha256,
		       struct runresume *res)
{
	_cleanup_free_ char *path = fs_join(a->o.out_dir, "report.json");
	_cleanup_free_ unsigned *idx = NULL;
	_cleanup_json_ json_t *rep = NULL;
	struct lab_error err = { 0 };
	unsigned n = 0;
	char msg[1200];
	int r;

	if (!path)
		return -ENOMEM;
	r = runresume_parse_indices(a->interrupted ? a->interrupted : "",
				    job->repeats * job->nr_kernels, &idx, &n, &err);
	if (r == 0 && (r = jsonio_load_file(path, RUNREPORT_MAX_SIZE, &rep, &err)) == -ENOENT)
		r = 0;
	if (r == 0)
		r = runresume_plan(rep, job, sha256, idx, n, res, &err);
	if (r < 0) {
		error_format(&err, msg, sizeof(msg));
		cli_err("--resume: %s", msg[0] ? msg : strerror(-r));
	}
	return r;
}

/* The summary; as JSON with the A/B's decision when there is one (decision: NULL). */
static void print_summary(const struct run_summary *s, int as_json, const char *decision)
{
	_cleanup_json_ json_t *j = NULL;
	_cleanup_free_ char *text = NULL;

	if (!as_json) {
		printf("%u run(s): %u ok; status %s\nreport: %s\n", s->runs, s->ok,
		       outcome_name(s->status), s->report);
		return;
	}
	j = json_pack("{s:I, s:I, s:I, s:s, s:s, s:s}", "runs", (json_int_t)s->runs, "ok",
		      (json_int_t)s->ok, "planned", (json_int_t)s->planned, "status",
		      outcome_name(s->status), "report", s->report, "out_dir", s->out_dir);
	if (j && decision && json_object_set_new(j, "decision", json_string(decision)) < 0)
		j = (json_decref(j), NULL);
	if (j && (text = jsonio_dumps(j)))
		printf("%s\n", text);
}

/* The report's labels (series_set): 0, or negative when it cannot be read (no decision). */
static int load_labels(const struct run_summary *sum, struct report_files *f,
		       struct series_set *s)
{
	struct lab_error err = { 0 };
	int r = report_files_add(f, sum->report, &err);

	if (r == 0)
		r = report_files_read(f, &err);
	if (r == 0)
		r = series_add_report(s, f->doc[0], f->path[0], NULL, &err);
	return r;
}

/* An A/B (two or more kernels or labels) ends with its decision, as `lab compare DIR` prints
 * it, the dashboard and the commands to look further; any job with `lab show`. */
static void print_decision(const struct run_summary *sum, struct series_set *s,
			   enum compare_decision *d)
{
	if (s->nr_variants > 1) {
		/* the dashboard of an A/B is written with it: DIR/dashboard.html */
		char page[PATH_MAX + 32], *argv[] = { "report", (char *)sum->out_dir, "-o", page,
						      NULL };

		fputs("\n", stdout);
		fflush(stdout);
		if (report_decision_print(s, d) < 0)
			*d = COMPARE_UNDECIDED; /* labels that cannot be compared: said */
		snprintf(page, sizeof(page), "%s/dashboard.html", sum->out_dir);
		fflush(stdout);
		if (cmd_report(4, argv) != EXIT_OK)
			page[0] = '\0';
		printf("\nnext: lab show %s\n      lab compare %s -v\n", sum->out_dir,
		       sum->out_dir);
		if (page[0])
			printf("      open %s in a browser\n", page);
	} else {
		printf("\nnext: lab show %s\n", sum->out_dir);
	}
}

/* --dry-run: the plan, nothing built, booted or written; 0, or 2 with the job's error. */
static int dry_run(const struct run_opts *o, struct job *job)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	_cleanup_free_ char *text = NULL;
	struct lab_error err = { 0 };
	char msg[1400];
	int r = run_plan(o, job, &sb, &err);

	if (r < 0) {
		error_format(&err, msg, sizeof(msg));
		cli_err("%s", err.msg[0] ? msg : strerror(-r));
		return r == -EINVAL ? EXIT_BAD_INPUT : EXIT_LAB_ERROR;
	}
	if (strbuf_take(&sb, &text) < 0)
		return EXIT_LAB_ERROR;
	fputs(text, stdout);
	return EXIT_OK;
}

/* The options that need the job: --quantum and --parallel against its timing model; --timing
 * and --connect against its numa_cost (core/job.c). */
static int check_against_job(const struct run_opts *o, const struct job *job)
{
	enum timing_model m = o->timing != TIMING_AUTO ? o->timing : job->timing;

	if (job->numa_cost[0] && m != TIMING_QUANTUM) {
		cli_err("--timing %s: the job's numa_cost needs the contention model (--timing "
			"quantum, or none)", timing_info(m)->name);
		return -EINVAL;
	}
	/* The plugin's files are this machine's, and so is the lab's QEMU build. */
	if (job->numa_cost[0] && virt_uri_remote(o->env.uri)) {
		cli_err("numa_cost runs on this machine only, not on %s", o->env.uri);
		return -EINVAL;
	}

	if (o->quantum && m != TIMING_QUANTUM) {
		cli_err("--quantum needs the contention model (--timing quantum, or the "
			"job's \"timing\": \"quantum\")");
		return -EINVAL;
	}
	if (o->parallel > 1 && (o->timing == TIMING_KVM || o->timing == TIMING_TCG ||
				(o->timing == TIMING_AUTO && job->timing != TIMING_AUTO &&
				 !timing_info(job->timing)->deterministic))) {
		cli_err("--parallel %d needs a deterministic timing model (icount, quantum): under "
			"%s a guest's figures move with what else runs on the host", o->parallel,
			timing_info(m)->name);
		return -EINVAL;
	}
	return 0;
}

/* The job as the options have it: loaded, kernels and repeats replaced, checked. */
static int prepare(struct cli_run *a, struct job *job, char sha256[65], json_t **as_run)
{
	_cleanup_json_ json_t *ks = NULL;
	char msg[1024];
	int bad;

	if (a->nr_kernels) {
		ks = kernel_spec_array(a->kernels, a->nr_kernels, a->o.env.state_dir, msg,
				       sizeof(msg), &bad);
		if (!ks) {
			cli_err("%s", msg);
			return bad ? EXIT_BAD_INPUT : EXIT_LAB_ERROR;
		}
	}
	if (load_job(a->o.job_file, ks, job, sha256, as_run) < 0)
		return EXIT_BAD_INPUT;
	if (a->repeats)
		job->repeats = a->repeats;
	return check_against_job(&a->o, job) < 0 ? EXIT_BAD_INPUT : EXIT_OK;
}

static int run(struct cli_run *a, struct job *job, struct run_summary *sum)
{
	struct report_files f = { 0 };
	struct series_set s;
	enum compare_decision d = COMPARE_UNDECIDED;
	char msg[1024];
	int r, ab;

	/* The guest is destroyed on the way out, so a signal must not kill us outright. */
	cli_catch_signals();
	r = run_job(&a->o, job, sum, msg, sizeof(msg));
	if (r < 0) {
		cli_err("%s", msg[0] ? msg : strerror(-r));
		return r == -EINVAL ? EXIT_BAD_INPUT : EXIT_LAB_ERROR;
	}
	series_init(&s);
	if (sum->report[0] && load_labels(sum, &f, &s) < 0) {
		series_free(&s); /* a report half read decides nothing */
		series_init(&s);
	}
	ab = s.nr_variants > 1;
	if (ab && a->json && report_decision_get(&s, &d) < 0)
		d = COMPARE_UNDECIDED;
	print_summary(sum, a->json, ab && a->json ? compare_decision_name(d) : NULL);
	if (!a->json && sum->report[0])
		print_decision(sum, &s, &d);
	series_free(&s);
	report_files_free(&f);
	cli_history_add(a->o.env.state_dir, sum->report);
	/* Runs that failed win over any decision; an A/B's status is its decision, as `lab
	 * compare` and `lab ab` give it, so that `lab run ab.json && ...` means "no regression". */
	if (sum->status != OUTCOME_OK || sum->runs != sum->planned)
		return EXIT_RUN_FAILED;
	return ab && !a->runs_status ? report_decision_exit(d) : EXIT_OK;
}

int cli_run_job(struct cli_run *a, struct run_summary *sum)
{
	struct job job = { 0 };
	struct runresume res = { 0 };
	_cleanup_json_ json_t *as_run = NULL;
	_cleanup_free_ char *dir = fs_dirname(a->o.job_file), *abs = dir ? realpath(dir, NULL)
									   : NULL;
	char sha256[65];
	int rc = prepare(a, &job, sha256, &as_run), r;

	if (rc == EXIT_OK && a->resume && (r = load_resume(a, &job, sha256, &res)) < 0)
		rc = r == -EINVAL ? EXIT_BAD_INPUT : EXIT_LAB_ERROR;
	if (rc == EXIT_OK) {
		a->o.resume = a->resume ? &res : NULL;
		a->o.job_sha256 = sha256;
		a->o.job_as_run = as_run;
		a->o.job_dir = abs;
		a->o.env.interrupt = &cli_interrupted;
		a->o.env.progress = cli_progress;
		rc = a->dry_run ? dry_run(&a->o, &job) : run(a, &job, sum);
		a->o.resume = NULL;
		a->o.job_as_run = NULL;
		a->o.job_dir = NULL;
	}
	runresume_free(&res);
	job_free(&job);
	return rc;
}
