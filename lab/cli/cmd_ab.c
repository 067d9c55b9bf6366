/* lab ab PATCH|BASE..HEAD... [--tree DIR] [--base VARIANT] [--job JOB] [--boots N]
 * [--dry-run]: from a change to a verdict: the base variant and the base with the patches on
 * top (a variant of its own, lab run --kernel), run interleaved under the job's model, then the
 * decision's exit code as `lab compare` gives it.  A git range becomes one patch first
 * (regress/range.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/runenv.h"
#include "cli/runjob.h"
#include "regress/range.h"
#include "util/checkout.h"
#include "util/fs.h"

#define AB_MAX_PATCHES 16

/* One command line a process: what the table writes to. */
static struct {
	const char *base, *job, *tree;
	struct cli_run run; /* what `lab run` is asked: the table writes into it directly */
} args;

static const struct cli_opt options[] = {
	OPT_STRING(0, "tree", &args.tree, "DIR", "the git tree of a range (default: here)"),
	OPT_STRING(0, "base", &args.base, "VARIANT", "the A side (a name in kernels/ or a path)"),
	OPT_STRING(0, "job", &args.job, "JOB", "another job file; its kernels are replaced"),
	OPT_UINT(0, "boots", &args.run.repeats, "N", 1, 1000,
		 "boots of each kernel (default: the job's repeats)"),
	OPT_STRING('o', "out", &args.run.o.out_dir, "DIR",
		   "the report directory (default reports/ab-TIME)"),
	OPT_GROUP(cli_runenv_opts),
	OPT_INT_OR(0, "parallel", &args.run.o.parallel, "N", "auto", -1, 1, JOB_MAX_PARALLEL,
		   "guests at once under icount and quantum (default: the job's)"),
	OPT_FLAG(0, "dry-run", &args.run.dry_run, "the plan only: what builds, what is cached"),
	OPT_END(),
};

static int set_defaults(void)
{
	memset(&args, 0, sizeof(args));
	args.base = "baseline";
	return cli_runenv_init();
}

void cmd_ab_help(void)
{
	set_defaults();
	cli_synopsis("ab", "PATCH|BASE..HEAD...", options);
	printf("\nAn A/B of a change against a kernel variant in one command.  PATCH is a patch\n"
	       "or an mbox of several (git format-patch output), applied in order on top of\n"
	       "the base variant's source and patches, with the same config.  A patch with no\n"
	       "diff in it, or whose context is not the source's (no fuzz, as git am), is bad\n"
	       "input, before anything is built or booted (--dry-run too).  Both kernels are\n"
	       "built (or found in the cache) and the job runs them interleaved, A B A B; then\n"
	       "the decision, the dashboard and the next commands, as 'lab run' ends an A/B.\n"
	       "BASE..HEAD is a range of the git tree --tree names: its diff from the merge\n"
	       "base, as one patch under STATE/ab/, uncommitted changes to tracked files too\n"
	       "when HEAD is the checkout's.  The default job is configs/ab.json (README.md,\n"
	       "\"My patch against baseline\").  At length: man lab, \"OPTIONS OF LAB AB\".\n"
	       "\nOPTIONS\n");
	opt_print(stdout, options);
	printf("\nEXAMPLES\n"
	       "  lab ab 0001-mm-my-fix.patch\n"
	       "  lab ab v6.12.. --tree ~/src/linux\n"
	       "  lab ab series.mbox --base no-per-vma-lock --boots 3\n"
	       "  lab ab fix.patch --dry-run\n\n"
	       "Exit status as 'lab compare': 0 no regression, 1 a regression, 2 bad input (a\n"
	       "patch or variant that does not exist), 3 undecided or runs failed, 4 the lab\n"
	       "failed.\n");
}

static int parse_args(int argc, char **argv)
{
	int first;

	if (set_defaults() < 0 || (first = cli_parse(argc, argv, options)) < 0)
		return -EINVAL;
	if (first >= argc) {
		cli_usage_err("expected one or more patches or a git range BASE..HEAD");
		return -EINVAL;
	}
	if (argc - first > AB_MAX_PATCHES) {
		cli_usage_err("at most %d patches (an mbox holds a series)", AB_MAX_PATCHES);
		return -EINVAL;
	}
	return first;
}

/* A range's patch, said aloud: what is measured, and what is not. */
static int range_patch(const char *tree, const char *range, char *path, size_t len)
{
	struct lab_error err = { 0 };
	struct abrange r;
	if (abrange_patch(tree, range, cli_runenv_state(), &r, &err) < 0) {
		cli_err("%s: %s", range, err.msg);
		return -EINVAL;
	}
	fprintf(stderr, "lab ab: %s of %s: the diff %.12s..%.12s (\"%s\")\n", range, tree,
		r.merge_base, r.head, r.head_subject);
	if (r.snapshot[0])
		fprintf(stderr, "lab ab: plus the tree's uncommitted changes, as snapshot %.12s\n"
				"        (git stash create: 'git -C %s show %.12s'; untracked files\n"
				"        are not in it)\n",
			r.snapshot, tree, r.snapshot);
	if (r.dirty_unmeasured)
		fprintf(stderr, "lab ab: note: %s has uncommitted changes; the range ends at a ref,\n"
				"        so they are not measured (end it in \"..\" to measure them)\n",
			tree);
	return snprintf(path, len, "%s", r.patch) < (int)len ? 0 : -ENAMETOOLONG;
}

/* Each argument as a patch file: a file is one, a range becomes one. */
static int patch_of(const char *arg, char *path, size_t len)
{
	if (fs_exists(arg))
		return snprintf(path, len, "%s", arg) < (int)len ? 0 : -ENAMETOOLONG;
	if (!abrange_is_range(arg)) {
		cli_err("%s: no such file, and not a git range BASE..HEAD", arg);
		return -EINVAL;
	}
	return range_patch(args.tree ? args.tree : ".", arg, path, len);
}

/* The report directory: --out, else reports/ab-TIME. */
static void out_dir(char *out, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	if (args.run.o.out_dir) {
		snprintf(out, len, "%s", args.run.o.out_dir);
		return;
	}
	gmtime_r(&t, &tm);
	strftime(out, len, "reports/ab-%Y%m%d-%H%M%S", &tm);
}

int cmd_ab(int argc, char **argv)
{
	char job[4096], base_k[4200], patched[8192], out[4200];
	char *kernels[2] = { base_k, patched };
	struct cli_run *run = &args.run;
	struct run_summary sum = { 0 };
	int first = parse_args(argc, argv);
	size_t used;

	if (first < 0)
		return EXIT_BAD_INPUT;
	if (!args.job && checkout_find("configs/ab.json", job, sizeof(job)) < 0) {
		cli_err("cannot find configs/ab.json (run from the checkout, or set LAB_ROOT)");
		return EXIT_LAB_ERROR;
	}
	if (args.job)
		snprintf(job, sizeof(job), "%s", args.job);
	snprintf(base_k, sizeof(base_k), "%s", args.base);
	used = (size_t)snprintf(patched, sizeof(patched), "patched=%s", args.base);
	for (int i = first; i < argc && used < sizeof(patched); i++) {
		char p[4096];

		if (patch_of(argv[i], p, sizeof(p)) < 0)
			return EXIT_BAD_INPUT;
		used += (size_t)snprintf(patched + used, sizeof(patched) - used, "+%s", p);
	}
	if (used >= sizeof(patched)) {
		cli_err("the patches' paths are too long");
		return EXIT_BAD_INPUT;
	}
	out_dir(out, sizeof(out));
	run->o.job_file = job;
	run->o.out_dir = out;
	run->o.timing = TIMING_AUTO;
	run->kernels = kernels;
	run->nr_kernels = 2;
	cli_runenv_get(&run->o.env);
	return cli_run_job(run, &sum); /* the decision's exit code, as `lab compare` gives it */
}
