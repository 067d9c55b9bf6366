/* lab nightly CONFIG: the tracked branch's head measured, checked against history, regressions
 * confirmed and bisected (lab/regress/nightly.h). */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/runenv.h"
#include "core/nightly_cfg.h"
#include "regress/nightly.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/jsonio.h"
#include "util/statedir.h"

#define CFG_MAX_SIZE (1u << 20)

static void index_report(void *ud, const char *report)
{
	cli_history_add(ud, report);
}

static int raise_alert(void *ud, const struct nightly_alert *a)
{
	return cli_history_alert(ud, a);
}

/* One command line a process: what the table writes to. */
static struct {
	const char *cfg, *at, *night;
} args;

static int opt_night(const struct cli_opt *o, const char *arg, struct opt_error *e)
{
	if (strlen(arg) > 31 || arg[0] == '.' || arg[0] == '-' ||
	    strspn(arg, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ._-") !=
		    strlen(arg))
		return opt_invalid(o, arg, "[A-Za-z0-9._-], at most 31 characters", e);
	args.night = arg;
	return 0;
}

static const struct cli_opt options[] = {
	OPT_STRING(0, "at", &args.at, "REF", "measure REF instead of the branch head"),
	OPT_CALL(0, "night", NULL, "NAME",
		 opt_night, "the night's name (default: the time, YYYYmmdd-HHMMSS UTC)"),
	OPT_GROUP(cli_runenv_opts),
	OPT_END(),
};

void cmd_nightly_help(void)
{
	cli_runenv_init();
	cli_synopsis("nightly", "CONFIG.json", options);
	printf("\nOne night of a nightly regression watch: for each job of CONFIG, its kernel\n"
	       "variant (which must have a git source) built at the head of the tracked branch\n"
	       "and measured; the night joins OUT/ledger.json and the history index.  Each\n"
	       "primary series is then checked:\n"
	       "  fast check     tonight's boots against the last `window` nights': a suspect\n"
	       "                 when the change is significant and at least the threshold;\n"
	       "  change points  a windowed test over the whole series (a step the fast check\n"
	       "                 missed shows once nights on both sides of it are measured);\n"
	       "  confirmation   a suspect night's kernel and the night before's measured again\n"
	       "                 side by side, judged by the strict rule of 'lab compare' (the\n"
	       "                 whole 95%% interval beyond the threshold);\n"
	       "  bisection      a confirmed regression runs 'lab bisect' between the two\n"
	       "                 nights' commits; the culprit goes into the night's report.\n"
	       "A night is OUT/NIGHT/JOB/: run/ (tonight), confirm-NIGHT/ (side by side),\n"
	       "bisect/ and nightly.json (schema %s).  CONFIG's keys are\n"
	       "described in configs/README.md (\"Nightly\"); lab/systemd/ has a service and\n"
	       "timer that run it every night.\n\nOPTIONS\n",
	       NIGHTLY_SCHEMA);
	opt_print(stdout, options);
	printf("\nEXAMPLES\n"
	       "  lab nightly configs/nightly/example.json\n"
	       "  lab nightly configs/nightly/example.json --at v6.12 --night backfill-v6.12\n\n"
	       "Exit status: 0 no confirmed regression; 1 a regression was confirmed; 2 bad\n"
	       "configuration, job or variant; 3 a night could not be measured; 4 lab error.\n");
}

static int parse_args(int argc, char **argv)
{
	int first;

	memset(&args, 0, sizeof(args));
	if (cli_runenv_init() < 0 || (first = cli_parse(argc, argv, options)) < 0)
		return -EINVAL;
	if (first != argc - 1) {
		cli_usage_err("expected exactly one configuration file");
		return -EINVAL;
	}
	args.cfg = argv[first];
	return 0;
}

static int load_cfg(const char *file, struct nightly_cfg *cfg)
{
	_cleanup_json_ json_t *j = NULL;
	struct lab_error err = { 0 };
	char msg[1200];
	int r = jsonio_load_file(file, CFG_MAX_SIZE, &j, &err);

	if (r == 0)
		r = nightly_cfg_from_json(j, cfg, &err);
	if (r < 0) {
		error_set_file(&err, file);
		error_format(&err, msg, sizeof(msg));
		cli_err("%s", msg);
	}
	return r;
}

/* Each job and variant of cfg, parsed and checked before anything runs. */
static int resolve(const struct nightly_cfg *cfg, const char *dir, struct job *jobs,
		   struct nightly_target *t, unsigned *loaded)
{
	for (unsigned i = 0; i < cfg->nr_jobs; i++) {
		char path[PATH_MAX * 2];

		snprintf(path, sizeof(path), "%s%s%s", cfg->jobs[i].job[0] == '/' ? "" : dir,
			 cfg->jobs[i].job[0] == '/' ? "" : "/", cfg->jobs[i].job);
		if (!realpath(path, t[i].job_file)) {
			cli_err("jobs[%u].job: %s: %s", i, path, strerror(errno));
			return -EINVAL;
		}
		if (cli_load_job(t[i].job_file, &jobs[i]) < 0)
			return -EINVAL;
		(*loaded)++;
		t[i].job = &jobs[i];
		if (cli_variant_file(cfg->jobs[i].variant, dir, t[i].variant_file,
				     sizeof(t[i].variant_file)) < 0 ||
		    cli_variant_git(t[i].variant_file, t[i].variant, sizeof(t[i].variant),
				    t[i].repo) < 0) {
			cli_err("in jobs[%u].variant", i);
			return -EINVAL;
		}
		for (unsigned k = 0; k < i; k++)
			if (!strcmp(jobs[k].name, jobs[i].name)) {
				cli_err("jobs[%u]: job name \"%s\" is also jobs[%u]'s: a "
					"night's directories are named by it", i, jobs[i].name, k);
				return -EINVAL;
			}
	}
	return 0;
}

int cmd_nightly(int argc, char **argv)
{
	_cleanup_free_ struct nightly_cfg *cfg = calloc(1, sizeof(*cfg));
	_cleanup_free_ struct nightly_target *t = calloc(NIGHTLY_MAX_JOBS, sizeof(*t));
	_cleanup_free_ struct job *jobs = calloc(NIGHTLY_MAX_JOBS, sizeof(*jobs));
	_cleanup_free_ char *dir = NULL;
	struct nightly_opts o = { 0 };
	struct nightly_summary sum;
	char out[PATH_MAX * 2], msg[1600];
	unsigned loaded = 0;
	int r;

	if (!cfg || !t || !jobs)
		return EXIT_LAB_ERROR;
	if (parse_args(argc, argv) < 0)
		return EXIT_BAD_INPUT;
	if (load_cfg(args.cfg, cfg) < 0 || !(dir = fs_dirname(args.cfg)))
		return EXIT_BAD_INPUT;
	r = resolve(cfg, dir, jobs, t, &loaded);
	snprintf(out, sizeof(out), "%s%s%s", cfg->out[0] == '/' ? "" : dir,
		 cfg->out[0] == '/' ? "" : "/", cfg->out);
	if (r == 0) {
		o = (struct nightly_opts){ .cfg = cfg, .targets = t, .out = out, .at = args.at,
					   .night = args.night, .on_report = index_report,
					   .on_alert = raise_alert };
		cli_runenv_get(&o.env);
		o.env.interrupt = &cli_interrupted;
		o.env.progress = cli_progress;
		o.report_ud = (void *)o.env.state_dir;
		cli_catch_signals();
		r = nightly_run(&o, &sum, msg, sizeof(msg));
	} else {
		r = -EINVAL;
		msg[0] = '\0';
	}
	for (unsigned i = 0; i < loaded; i++)
		job_free(&jobs[i]);
	if (r == -EINVAL && !msg[0])
		return EXIT_BAD_INPUT;
	if (r < 0) {
		cli_err("%s", msg[0] ? msg : strerror(-r));
		return r == -EINVAL || r == -EEXIST ? EXIT_BAD_INPUT : r == -EINTR
			? EXIT_RUN_FAILED : EXIT_LAB_ERROR;
	}
	/* The trends page beside the ledger: its links to bisections are relative to it. */
	if (sum.jobs) {
		char page[PATH_MAX * 2 + 32], title[128];
		char *rargv[] = { "report", out, "-o", page, "--title", title, NULL };

		snprintf(page, sizeof(page), "%s/dashboard.html", out);
		snprintf(title, sizeof(title), "numalab nightly %s", cfg->name);
		if (cmd_report(6, rargv) != EXIT_OK)
			cli_err("the dashboard could not be written (the night is kept)");
	}
	printf("%u job(s): %u failed night(s), %u suspect night(s), %u confirmed change(s), %u "
	       "regression(s) (%u new), %u bisected%s%s\n", sum.jobs, sum.failed, sum.suspects,
	       sum.confirmed, sum.regressions, sum.new_regressions, sum.bisected,
	       sum.culprit[0] ? "; culprit " : "", sum.culprit);
	if (sum.outside)
		printf("%u primary series outside this timing model, not searched (nightly.json "
		       "says why; \"timing\": \"quantum\" shows lock contention)\n", sum.outside);
	printf("report: %s\n", sum.report);
	/* An alert raised before (acknowledged, or a night judged again) is not news. */
	return sum.new_regressions ? EXIT_REGRESSION : sum.failed ? EXIT_RUN_FAILED : EXIT_OK;
}
