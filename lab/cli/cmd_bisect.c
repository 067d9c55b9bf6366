/* lab bisect start|resume|log: the kernel commit that changed a job's figure
 * (lab/regress/bisect.h, lab/core/bisect.h). */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "builder/kernel.h"
#include "cli/cli.h"
#include "cli/runenv.h"
#include "proto/workload.h"
#include "regress/bisect.h"
#include "regress/git.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/jsonio.h"
#include "util/sha256.h"
#include "util/statedir.h"

struct bargs {
	const char *job, *good, *bad, *variant, *metric, *out, *timing;
	double threshold;
	unsigned tasks, boots, tries;
	int parallel, no_revert;
};

/* One command line a process: what the tables write to. */
static struct bargs args;

/* What defines a bisection: taken by start only (resume keeps what it started with). */
static const struct cli_opt start_opts[] = {
	OPT_STRING(0, "good", &args.good, "REF", "the good end, an ancestor of --bad"),
	OPT_STRING(0, "bad", &args.bad, "REF", "the bad end"),
	OPT_STRING(0, "variant", &args.variant, "V", "the kernel variant (a name or a path)"),
	OPT_STRING(0, "metric", &args.metric, "M", "the series followed: [WORKLOAD.]METRIC"),
	OPT_UINT(0, "tasks", &args.tasks, "N", 1, 100000,
		 "its task count (default: the largest measured)"),
	OPT_DOUBLE(0, "threshold", &args.threshold, "P", 0.01, 1000,
		   "the change that counts, in %"),
	OPT_UINT(0, "boots", &args.boots, "N", 2, BISECT_MAX_BOOTS_STEP,
		 "boots per measurement"),
	OPT_UINT(0, "max-tries", &args.tries, "N", 1, BISECT_MAX_TRIES,
		 "measurements of an inconclusive commit before a skip"),
	OPT_FLAG(0, "no-revert", &args.no_revert, "do not check the culprit by reverting it"),
	OPT_STRING('o', "out", &args.out, "DIR", "the bisection's directory"),
	OPT_CALL(0, "timing", &args.timing, "M", cli_timing_take,
		 "auto, kvm, tcg, icount or quantum"),
	OPT_INT_OR(0, "parallel", &args.parallel, "N", "auto", -1, 1, JOB_MAX_PARALLEL,
		   "guests at once under icount (as for 'lab run')"),
	OPT_END(),
};

static const struct cli_opt options[] = {
	OPT_GROUP(start_opts),
	OPT_GROUP(cli_runenv_opts),
	OPT_END(),
};

/* The defaults, also what --help shows. */
static int set_defaults(void)
{
	memset(&args, 0, sizeof(args));
	args.threshold = BISECT_DEFAULT_THRESHOLD_PCT;
	args.boots = BISECT_DEFAULT_BOOTS;
	args.tries = BISECT_DEFAULT_TRIES;
	args.timing = "auto";
	return cli_runenv_init();
}

void cmd_bisect_help(void)
{
	set_defaults();
	cli_synopsis("bisect start", "JOB.json", options);
	cli_synopsis("bisect resume", "DIR", cli_runenv_opts);
	printf("usage: lab bisect log DIR [--json]\n\n"
	       "Finds the commit of a kernel git tree that changed one figure of a job, like\n"
	       "`git bisect run` with the lab's statistics as the test.  The kernel is the\n"
	       "job's variant (or --variant), which must have a git source ({\"git\": REPO}).\n"
	       "Both ends are measured first; each commit then gets --boots boots, compared\n"
	       "with both ends': good, bad, skip or inconclusive (measured again, up to\n"
	       "--max-tries).  The culprit is verified (its parent and itself again, the bad\n"
	       "end with it reverted).  DIR keeps params.json, bisect.log (replayable),\n"
	       "bisect.json (schema %s) and steps/NNN-SHA-ROLE/\n"
	       "(each a `lab run` report).\n"
	       "Each option at length: man lab, \"OPTIONS OF LAB BISECT\".\n\nOPTIONS\n",
	       BISECT_SCHEMA);
	opt_print(stdout, options);
	printf("\nEXAMPLES\n"
	       "  lab bisect start configs/nightly/pft-icount.json --good v6.11 --bad v6.12\n"
	       "  lab bisect resume reports/bisect-TIME     # after an interruption\n"
	       "  lab bisect log reports/bisect-TIME\n\n"
	       "Exit status: 0 a culprit found and verified; 3 the bisection ended without one\n"
	       "(the ends do not differ, only skipped commits left, not verified, no code\n"
	       "change, an end failed) or was interrupted; 2 bad arguments (job, variant,\n"
	       "repository, refs, ends in the wrong order); 4 lab error.\n");
}


static int resume_allow(const struct cli_opt *o, struct opt_error *e)
{
	for (const struct cli_opt *s = start_opts; s->kind != CLI_OPT_END; s++)
		if (s == o)
			return opt_error_set(e, "resume: --%s is fixed when a bisection starts",
					     o->name);
	return 0;
}

static int parse_args(int argc, char **argv, int start)
{
	int first;

	if (set_defaults() < 0)
		return -EINVAL;
	first = cli_parse_with(argc, argv, options, start ? NULL : resume_allow);
	if (first < 0)
		return -EINVAL;
	if (first != argc - 1) {
		cli_usage_err("expected exactly one %s",
			start ? "job file" : "bisection directory");
		return -EINVAL;
	}
	args.job = argv[first];
	if (start && (!args.good || !args.bad)) {
		cli_err("start: --good and --bad are both needed");
		return -EINVAL;
	}
	return 0;
}

/* The variant file a bisection builds: --variant (a name in kernels/ or a path from the
 * current directory), else the job's one variant (a path from the job's directory). */
static int variant_file(const struct bargs *a, const struct job *job, char *out, size_t len)
{
	_cleanup_free_ char *jdir = fs_dirname(a->job);

	if (a->variant)
		return cli_variant_file(a->variant, ".", out, len);
	if (job->nr_kernels != 1 || !job->kernels[0].variant[0]) {
		cli_err("%s: %s: a bisection builds one kernel variant; the job has %u "
			"kernel(s)%s: name it with --variant", a->job,
			job->nr_kernels == 1 ? "kernel" : "kernels", job->nr_kernels,
			job->nr_kernels == 1 ? ", an image" : "");
		return -EINVAL;
	}
	return cli_variant_file(job->kernels[0].variant, jdir ? jdir : ".", out, len);
}

/* --metric [WORKLOAD.]METRIC against the job's workloads. */
static int check_metric(const struct bargs *a, const struct job *job, struct bisect_params *p)
{
	const char *m = a->metric, *dot;

	if (!m)
		return 0;
	dot = strchr(m, '.');
	if (dot) {
		snprintf(p->workload, sizeof(p->workload), "%.*s", (int)(dot - m), m);
		m = dot + 1;
	} else {
		snprintf(p->workload, sizeof(p->workload), "%s", job->workloads[0].name);
	}
	snprintf(p->metric, sizeof(p->metric), "%s", m);
	for (unsigned i = 0; i < job->nr_workloads; i++)
		if (!strcmp(job->workloads[i].name, p->workload))
			return 0;
	cli_err("--metric %s: the job has no workload %s", a->metric, p->workload);
	return -EINVAL;
}

static int refs(const struct bargs *a, struct bisect_params *p)
{
	struct lab_error err = { 0 };
	char msg[1200];
	int r;

	snprintf(p->good_ref, sizeof(p->good_ref), "%s", a->good);
	snprintf(p->bad_ref, sizeof(p->bad_ref), "%s", a->bad);
	if ((r = bgit_check_repo(p->repo, &err)) < 0 ||
	    (r = bgit_resolve(p->repo, a->good, p->good, &err)) < 0 ||
	    (r = bgit_resolve(p->repo, a->bad, p->bad, &err)) < 0) {
		error_format(&err, msg, sizeof(msg));
		cli_err("%s", msg);
		return -EINVAL;
	}
	if (!strcmp(p->good, p->bad)) {
		cli_err("--good %s and --bad %s are the same commit %.12s", a->good, a->bad,
			p->good);
		return -EINVAL;
	}
	if ((r = bgit_is_ancestor(p->repo, p->good, p->bad)) != 1) {
		cli_err("--good %s (%.12s) is not an ancestor of --bad %s (%.12s): the ends "
			"are in the wrong order or on unrelated branches", a->good, p->good, a->bad,
			p->bad);
		return -EINVAL;
	}
	return 0;
}

static int abs_path(const char *in, char *out, size_t len)
{
	char cwd[PATH_MAX];

	if (in[0] == '/') {
		snprintf(out, len, "%s", in);
		return 0;
	}
	if (!getcwd(cwd, sizeof(cwd)))
		return -errno;
	snprintf(out, len, "%s/%s", cwd, in);
	return 0;
}

/* Everything a bisection starts from, checked before anything is written. */
static int prepare_start(struct bargs *a, struct job *job, struct bisect_params *p, char *dir,
			 size_t len)
{
	int r;

	snprintf(p->timing, sizeof(p->timing), "%s", a->timing);
	if ((r = variant_file(a, job, p->variant_file, sizeof(p->variant_file))) < 0 ||
	    (r = cli_variant_git(p->variant_file, p->variant, sizeof(p->variant), p->repo)) < 0 || (r = check_metric(a, job, p)) < 0 ||
	    (r = refs(a, p)) < 0)
		return r;
	if (!realpath(a->job, p->job_file) || sha256_file_hex(p->job_file, p->job_sha256) < 0) {
		cli_err("cannot read %s", a->job);
		return -EINVAL;
	}
	p->tasks = (unsigned)a->tasks;
	p->threshold_pct = a->threshold;
	p->boots = (unsigned)a->boots;
	p->max_tries = (unsigned)a->tries;
	p->check_revert = !a->no_revert;
	p->parallel = a->parallel;
	if (a->out) {
		if (abs_path(a->out, dir, len) < 0)
			return -EINVAL;
	} else {
		char stamp[32], cwd[PATH_MAX];
		time_t t = time(NULL);
		struct tm tmv;

		gmtime_r(&t, &tmv);
		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tmv);
		snprintf(dir, len, "%s/reports/bisect-%s", getcwd(cwd, sizeof(cwd)) ? cwd : ".",
			 stamp);
	}
	_cleanup_free_ char *log = fs_join(dir, "bisect.log");

	if (log && fs_exists(log)) {
		cli_err("%s holds a bisection already: continue it with 'lab bisect "
			"resume %s', or choose another --out", dir, dir);
		return -EINVAL;
	}
	return 0;
}

/* params.json of DIR, and the job it names (unchanged since the start). */
static int prepare_resume(const char *dir, struct job *job, struct bisect_params *p)
{
	_cleanup_free_ char *ppath = fs_join(dir, "params.json");
	_cleanup_json_ json_t *j = NULL;
	struct lab_error err = { 0 };
	char msg[1200], sha[65];

	if (!ppath || jsonio_load_file(ppath, 1u << 20, &j, &err) < 0 ||
	    bisect_params_from_json(j, p, &err) < 0) {
		error_set_file(&err, ppath);
		error_format(&err, msg, sizeof(msg));
		cli_err("resume: %s", msg);
		return -EINVAL;
	}
	if (sha256_file_hex(p->job_file, sha) < 0 || strcmp(sha, p->job_sha256)) {
		cli_err("resume: the job file %s %s since the bisection started: its "
			"measurements would not be comparable", p->job_file,
			fs_exists(p->job_file) ? "changed" : "is gone");
		return -EINVAL;
	}
	return cli_load_job(p->job_file, job);
}

static int print_result(const struct bisect_run_summary *s)
{
	printf("series: %s\n", s->series[0] ? s->series : "(none measured)");
	printf("answer: %s\n", s->answer == BISECT_ANSWER_NONE ? "none (interrupted)"
							      : bisect_answer_name(s->answer));
	if (s->culprit[0])
		printf("culprit: %s %s\n%s", s->culprit, s->culprit_subject, s->why);
	if (s->reason[0])
		printf("reason: %s\n", s->reason);
	printf("cost: %u commits, %u measurement(s), %u build(s) (%.0f s), %u boot(s), %.0f s\n",
	       s->commits, s->measurements, s->builds, s->build_s, s->boots, s->wall_s);
	printf("log: %s\nresult: %s\n", s->log, s->result);
	return s->answer == BISECT_ANSWER_FOUND ? EXIT_OK : EXIT_RUN_FAILED;
}

/* lab bisect log DIR [--json]: the log as it was written, or the result (bisect.json). */
static int cmd_log(int argc, char **argv)
{
	_cleanup_free_ char *path = NULL, *text = NULL;
	int json = argc == 3 && !strcmp(argv[2], "--json"), r;

	if (argc != 2 && !json) {
		cli_usage_err("log: expected one bisection directory [--json]");
		return EXIT_BAD_INPUT;
	}
	if (!(path = fs_join(argv[1], json ? "bisect.json" : "bisect.log")))
		return EXIT_LAB_ERROR;
	if (json) {
		_cleanup_json_ json_t *j = NULL;
		struct lab_error err = { 0 };

		if ((r = jsonio_load_file(path, BISECT_LOG_MAX, &j, &err)) < 0) {
			cli_err("log: %s: %s", path, err.msg[0] ? err.msg : strerror(-r));
			return EXIT_BAD_INPUT;
		}
		if (!(text = jsonio_dumps(j)))
			return EXIT_LAB_ERROR;
		printf("%s\n", text);
		return EXIT_OK;
	}
	if ((r = fs_read_file(path, BISECT_LOG_MAX, &text, NULL)) < 0) {
		cli_err("log: %s: %s", path, strerror(-r));
		return EXIT_BAD_INPUT;
	}
	fputs(text, stdout);
	return EXIT_OK;
}

int cmd_bisect(int argc, char **argv)
{
	struct bisect_params p = { 0 };
	struct job job = { 0 };
	struct bisect_run_opts o = { 0 };
	struct bisect_run_summary sum;
	char dir[PATH_MAX], msg[1600];
	int start, r;

	if (argc < 2) {
		cli_usage_err("expected start, resume or log");
		return EXIT_BAD_INPUT;
	}
	if (!strcmp(argv[1], "log"))
		return cmd_log(argc - 1, argv + 1);
	start = !strcmp(argv[1], "start");
	if (!start && strcmp(argv[1], "resume")) {
		cli_usage_err("'%s' is not a bisect command: start, resume or log", argv[1]);
		return EXIT_BAD_INPUT;
	}
	if (parse_args(argc - 1, argv + 1, start) < 0)
		return EXIT_BAD_INPUT;
	if (start) {
		if (cli_load_job(args.job, &job) < 0)
			return EXIT_BAD_INPUT;
		r = prepare_start(&args, &job, &p, dir, sizeof(dir));
	} else {
		if (abs_path(args.job, dir, sizeof(dir)) < 0)
			return EXIT_LAB_ERROR;
		r = prepare_resume(dir, &job, &p);
	}
	if (r < 0) {
		job_free(&job);
		return EXIT_BAD_INPUT;
	}
	o = (struct bisect_run_opts){ .p = &p, .job = &job, .dir = dir, .resume = !start };
	cli_runenv_get(&o.env);
	o.env.interrupt = &cli_interrupted;
	o.env.progress = cli_progress;
	cli_catch_signals();
	r = bisect_run(&o, &sum, msg, sizeof(msg));
	job_free(&job);
	if (r < 0 && r != -EINTR) {
		cli_err("%s", msg[0] ? msg : strerror(-r));
		return r == -EINVAL ? EXIT_BAD_INPUT : EXIT_LAB_ERROR;
	}
	if (r == -EINTR)
		cli_err("%s", msg);
	return print_result(&sum);
}
