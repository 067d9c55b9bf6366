/* lab rerun BUNDLE|REPORT [--boots N] [--out DIR] [--this-lab]: the same runs again, from a
 * bundle's inputs (run/bundle.h), and the figures against the original's: under icount and
 * quantum every figure of every boot must come out equal (analysis/rerun.h); under tcg and kvm
 * an A/B of the original against the re-run. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis/rerun.h"
#include "cli/cli.h"
#include "cli/report_decision.h"
#include "cli/rerun_fix.h"
#include "cli/rerun_input.h"
#include "cli/runenv.h"
#include "cli/runjob.h"
#include "core/runreport.h"
#include "run/bundle.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/jsonio.h"
#include "util/version.h"

static struct {
	const char *out;
	int this_lab;
	struct rerun_fix fix;
	struct cli_run run;
} args;

static const struct cli_opt options[] = {
	OPT_UINT(0, "boots", &args.run.repeats, "N", 1, 1000,
		 "boots of each kernel (default: the original's)"),
	OPT_STRING('o', "out", &args.out, "DIR", "the re-run's directory, new or empty (default "
		   "reports/rerun-TIME): its inputs in DIR/bundle/, its report in DIR"),
	OPT_STRING(0, "patch", &args.fix.patch, "FIX",
		   "a fix tried against the finding: on --on's kernel, against --against's boots"),
	OPT_STRING(0, "on", &args.fix.on, "LABEL", "the kernel the fix goes on (default: the last)"),
	OPT_STRING(0, "against", &args.fix.against, "LABEL",
		   "whose original boots it is judged against (default: the first)"),
	OPT_FLAG(0, "this-lab", &args.this_lab,
		 "re-run with this lab although the bundle is another version's"),
	OPT_GROUP(cli_runenv_opts),
	OPT_INT_OR(0, "parallel", &args.run.o.parallel, "N", "auto", -1, 1, JOB_MAX_PARALLEL,
		   "guests at once under icount and quantum (default: the job's)"),
	OPT_END(),
};

void cmd_rerun_help(void)
{
	memset(&args, 0, sizeof(args));
	cli_runenv_init();
	cli_synopsis("rerun", "BUNDLE|REPORT", options);
	printf("\nThe runs of a bundle ('lab bundle') again, on this machine: what is missing\n"
	       "is built (kernels, the image, the contention model's QEMU, all by content), the\n"
	       "job runs with the original's model, quantum and boot seeds, and the figures\n"
	       "are set against the original's.  Under icount and quantum a boot is a function\n"
	       "of its seed and inputs: every figure of every boot must be equal, and the\n"
	       "first that is not is named, with what ran differently (a kernel's bytes, the\n"
	       "QEMU build, the lab).  Under tcg and kvm figures vary from boot to boot: the\n"
	       "original against the re-run is an A/B, kernel by kernel.  A REPORT is bundled\n"
	       "first (DIR/bundle.tar.gz).  A bundle of another lab commit re-runs only with\n"
	       "--this-lab: build the lab at that commit to reproduce it exactly.\n"
	       "--patch FIX tries a fix against the finding: FIX on the last kernel (--on),\n"
	       "only that kernel booted (with its original seeds under icount and quantum),\n"
	       "judged against the first kernel's original boots (--against): \"fixed\" (exit\n"
	       "0), \"still regressed\" (1) or \"undecided\" (3); DIR/fix/ holds the A/B report\n"
	       "and fix.json, and 'lab mail DIR/fix' writes the follow-up.\n\n"
	       "EXAMPLES\n"
	       "  lab rerun fix-regression.tar.gz\n"
	       "  lab rerun reports/ab-20261207-101500 --out /tmp/again\n"
	       "  lab rerun old.tar.gz --this-lab --boots 2\n"
	       "  lab rerun finding.tar.gz --patch 0001-mm-fix-it.patch\n\n"
	       "Exit status: 0 identical figures (icount, quantum) or no change (tcg, kvm); 1\n"
	       "a figure differs, or a change; 2 bad input (a bundle refused: an unsafe or\n"
	       "altered member, another lab's without --this-lab), nothing run; 3 runs failed\n"
	       "or undecided; 4 the lab failed.\n");
}

/* Under out, removed again when nothing was made there. */
static int out_dir(char *out, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;
	struct stat st;

	if (args.out) {
		snprintf(out, len, "%s", args.out);
	} else {
		gmtime_r(&t, &tm);
		strftime(out, len, "reports/rerun-%Y%m%d-%H%M%S", &tm);
	}
	if (stat(out, &st) == 0 && (!S_ISDIR(st.st_mode) || rmdir(out) < 0)) {
		cli_err("--out %s: exists and is not an empty directory", out);
		return -EEXIST;
	}
	if (fs_mkdir_p(out, 0755) < 0) {
		cli_err("cannot make %s: %s", out, strerror(errno));
		return -errno;
	}
	return 0;
}

/* arg as a bundle: itself, or a report bundled into out first. */
static int bundle_of(const char *arg, const char *out, char *path, size_t len)
{
	struct bundle_manifest *m = NULL;
	struct lab_error err = { 0 };
	struct stat st;
	char report[4200], msg[1400];
	size_t bytes = 0, n = strlen(arg);
	int r;

	if (stat(arg, &st) == 0 && !S_ISDIR(st.st_mode) && !(n > 5 && !strcmp(arg + n - 5, ".json")))
		return (size_t)snprintf(path, len, "%s", arg) < len ? 0 : -ENAMETOOLONG;
	if (cli_report_json(arg, report, sizeof(report)) < 0)
		return -EINVAL;
	snprintf(path, len, "%s/bundle.tar.gz", out);
	if ((r = bundle_write(report, path, &m, &bytes, &err)) < 0) {
		error_format(&err, msg, sizeof(msg));
		cli_err("%s", err.msg[0] ? msg : strerror(-r));
		return r;
	}
	fprintf(stderr, "lab rerun: %s bundled as %s (%zu bytes)\n", arg, path, bytes);
	bundle_manifest_free(m);
	return 0;
}

/* Another lab's bundle: said, and refused without --this-lab. */
static int check_lab(const struct bundle_manifest *m)
{
	if (!strcmp(m->lab_commit, version_commit()) && !strstr(m->lab_commit, "dirty"))
		return 0;
	if (!strcmp(m->lab_commit, version_commit()))
		fprintf(stderr, "lab rerun: note: the report's lab and this one are both %s: "
			"uncommitted changes, so not known to be the same lab\n", m->lab_commit);
	else if (!args.this_lab) {
		cli_err("the report was made by lab %s (commit %s); this is lab %s (%s): its "
			"figures may differ for that alone.  Build the lab at %s to reproduce it, or "
			"say --this-lab", m->lab_version, m->lab_commit, version_lab(),
			version_commit(), m->lab_commit);
		return -EINVAL;
	} else
		fprintf(stderr, "lab rerun: the report's lab is %s (%s), this is %s (%s): "
			"--this-lab\n", m->lab_version, m->lab_commit, version_lab(),
			version_commit());
	return 0;
}

static int set_model(const struct bundle_manifest *m, struct run_opts *o)
{
	if (timing_parse(m->model, &o->timing) < 0) {
		cli_err("the bundle's model \"%s\" is not one this lab knows", m->model);
		return -EINVAL;
	}
	o->quantum = m->quantum;
	if (timing_info(o->timing)->deterministic) {
		if (!m->has_seeds) {
			cli_err("a %s report without its boots' seeds: it cannot be re-run to the "
				"same figures", m->model);
			return -EINVAL;
		}
		o->seeds = m->seeds;
		o->nr_seeds = m->runs;
	}
	return 0;
}

/* The runs of one kernel label, as a report of their own. */
static json_t *runs_of(const json_t *rep, const char *label)
{
	json_t *copy = json_deep_copy(rep), *runs = json_array(), *run;
	size_t i;

	if (!copy || !runs)
		return json_decref(copy), json_decref(runs), NULL;
	json_array_foreach(json_object_get(copy, "runs"), i, run)
		if (!strcmp(json_string_value(json_object_get(json_object_get(run, "kernel"),
								  "label")) ?: "", label))
			json_array_append(runs, run);
	json_object_set_new(copy, "runs", runs);
	return copy;
}

/* tcg, kvm: each kernel's original boots (A) against its re-run's (B); the worst decision. */
static int ab_against(const json_t *orig, const json_t *again, const char *orig_path,
		      const char *again_path)
{
	const json_t *ks = json_object_get(json_object_get(orig, "job"), "kernels"), *k;
	enum compare_decision worst = COMPARE_OK;
	size_t i;

	json_array_foreach(ks, i, k) {
		const char *label = json_string_value(json_object_get(k, "label")) ?: "";
		json_t *a = runs_of(orig, label), *b = runs_of(again, label);
		struct lab_error err = { 0 };
		enum compare_decision d = COMPARE_UNDECIDED;
		struct series_set s;

		series_init(&s);
		printf("\nkernel %s: the original's boots (A) against the re-run's (B)\n", label);
		if (!a || !b || series_add_report(&s, a, orig_path, "original", &err) < 0 ||
		    series_add_report(&s, b, again_path, "rerun", &err) < 0 ||
		    report_decision_print(&s, &d) < 0)
			d = COMPARE_UNDECIDED;
		series_free(&s);
		json_decref(a);
		json_decref(b);
		/* a change anywhere wins over undecided, which wins over none */
		if (d == COMPARE_REGRESSION || (d == COMPARE_UNDECIDED && worst == COMPARE_OK))
			worst = d;
	}
	return report_decision_exit(worst);
}

static int identical(const json_t *orig, const json_t *again, unsigned expect)
{
	struct rerun_diff d;

	if (rerun_compare(orig, again, &d) < 0) {
		cli_err("%s", d.first);
		return EXIT_LAB_ERROR;
	}
	if (d.identical) {
		printf("\nidentical: %u figure(s) of %u boot(s), each equal to the original's to "
		       "the last digit%s\n", d.figures, d.runs,
		       d.runs < expect ? " (the re-run has fewer boots)" : "");
		return EXIT_OK;
	}
	printf("\nDIFFERS: %s\n", d.first);
	printf("what ran differently: %s\n", d.inputs[0] ? d.inputs
			: "nothing the reports record (kernel bytes and config, QEMU build, lab "
			  "commit all equal)");
	return EXIT_REGRESSION;
}

static int rerun(const char *dir, const struct bundle_manifest *m, const json_t *orig,
		 const char *orig_path)
{
	_cleanup_free_ char *job = fs_join(dir, "bundle/job.json");
	_cleanup_json_ json_t *again = NULL;
	struct run_summary sum = { 0 };
	struct lab_error err = { 0 };
	int rc;

	if (!job)
		return EXIT_LAB_ERROR;
	args.run.o.job_file = job;
	args.run.o.out_dir = dir;
	if (!args.run.repeats)
		args.run.repeats = m->repeats ? m->repeats : 1;
	fprintf(stderr, "lab rerun: report %s: %u boot(s) of each kernel under %s%s\n",
		m->report_id, args.run.repeats, m->model,
		args.run.o.nr_seeds ? ", with the original's seeds" : "");
	args.run.runs_status = 1;
	rc = cli_run_job(&args.run, &sum);
	if (rc == EXIT_BAD_INPUT || rc == EXIT_LAB_ERROR || !sum.report[0])
		return rc;
	if (jsonio_load_file(sum.report, RUNREPORT_MAX_SIZE, &again, &err) < 0) {
		cli_err("%s: %s", sum.report, err.msg);
		return EXIT_LAB_ERROR;
	}
	if (rc == EXIT_RUN_FAILED)
		fprintf(stderr, "lab rerun: runs failed: figures compared where both have them\n");
	rc = timing_info(args.run.o.timing)->deterministic ? identical(orig, again, m->runs)
							    : ab_against(orig, again, orig_path,
									 sum.report);
	return rc == EXIT_OK && sum.status != OUTCOME_OK ? EXIT_RUN_FAILED : rc;
}

int cmd_rerun(int argc, char **argv)
{
	struct bundle_manifest *m = NULL;
	_cleanup_json_ json_t *orig = NULL;
	struct lab_error err = { 0 };
	char dir[4096], bundle[4300], inputs[4400], msg[1400];
	int first, rc, r;

	memset(&args, 0, sizeof(args));
	if (cli_runenv_init() < 0 || (first = cli_parse(argc, argv, options)) < 0)
		return EXIT_BAD_INPUT;
	if (argc - first != 1) {
		cli_usage_err("expected one bundle or report");
		return EXIT_BAD_INPUT;
	}
	if (out_dir(dir, sizeof(dir)) < 0)
		return EXIT_BAD_INPUT;
	snprintf(inputs, sizeof(inputs), "%s/bundle", dir);
	if ((r = bundle_of(argv[first], dir, bundle, sizeof(bundle))) < 0) {
		rmdir(dir);
		return r == -EINVAL ? EXIT_BAD_INPUT : EXIT_LAB_ERROR;
	}
	if ((r = bundle_open(bundle, inputs, &m, &orig, &err)) < 0) {
		error_format(&err, msg, sizeof(msg));
		cli_err("refused: %s", err.msg[0] ? msg : strerror(-r));
		unlink(strstr(bundle, dir) == bundle ? bundle : "");
		rmdir(dir);
		return r == -ENOMEM ? EXIT_LAB_ERROR : EXIT_BAD_INPUT;
	}
	if (check_lab(m) < 0 || set_model(m, &args.run.o) < 0) {
		fs_rm_rf(dir); /* new or empty before: nothing of anyone else's */
		rc = EXIT_BAD_INPUT;
	} else {
		cli_runenv_get(&args.run.o.env);
		args.fix.bundle = bundle;
		rc = args.fix.patch ? cli_rerun_fix(&args.fix, dir, m, orig, &args.run)
				    : rerun(dir, m, orig, bundle);
	}
	bundle_manifest_free(m);
	return rc;
}
