/* lab ab PATCH|BASE..HEAD... [--tree DIR] [--base VARIANT] [--job JOB] [--boots N]
 * [--dry-run]: from a change to a verdict: the base variant and the base with the patches on
 * top (a variant of its own, lab run --kernel), run interleaved under the job's model, then the
 * decision's exit code as `lab compare` gives it.  A git range becomes one patch first
 * (regress/range.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/report_decision.h"
#include "regress/range.h"
#include "run/engine.h"
#include "util/checkout.h"
#include "util/fs.h"

#define AB_MAX_PATCHES 16

void cmd_ab_help(void)
{
	printf("usage: lab ab PATCH|BASE..HEAD... [--tree DIR] [--base VARIANT] [--job JOB]\n"
	       "              [--boots N] [--out DIR] [--dry-run]\n\n"
	       "An A/B of a change against a kernel variant in one command.  PATCH is a patch\n"
	       "or an mbox of several (git format-patch output), applied in order on top of\n"
	       "the base variant's source and patches (default: baseline, Debian's 6.12 with the\n"
	       "lab's Kconfig patch), with the same config.  Both kernels are built (or found\n"
	       "in the cache) and the job runs them interleaved, A B A B; then the decision,\n"
	       "the dashboard and the next commands, as 'lab run' ends an A/B.\n\n"
	       "BASE..HEAD is a range of the git tree --tree names (default: the current\n"
	       "directory): its diff from the merge base, as one patch under STATE/ab/.  When\n"
	       "HEAD is the checkout's (\"v6.12..\" or \"..HEAD\"), uncommitted changes to\n"
	       "tracked files are measured too, as a snapshot commit (git stash create) that\n"
	       "the patch's name and the output give; untracked files are not.\n\n"
	       "The default job, configs/ab.json, is pft, page_fault1-3 and memscale (THP) at\n"
	       "1 task and mmap_contention at 4 tasks with a mapper thread, on a 4-socket,\n"
	       "8-vCPU guest, 5 boots a side, under the contention model (--timing quantum:\n"
	       "lock contention shows, a contended change's direction is the finding, its size\n"
	       "the model's).  Why those sizes: README.md, \"My patch against baseline\".\n\n"
	       "  --tree DIR       the git tree of a range (default: the current directory)\n"
	       "  --base VARIANT   the A side (a name in kernels/ or a path; default baseline)\n"
	       "  --job JOB        another job file; its kernels are replaced by the two\n"
	       "  --boots N        boots of each kernel (default: the job's repeats)\n"
	       "  -o, --out DIR    the report directory (default reports/ab-TIME)\n"
	       "  --dry-run        the plan only: what builds, what is cached, the model\n\n"
	       "EXAMPLES\n"
	       "  lab ab 0001-mm-my-fix.patch\n"
	       "  lab ab v6.12.. --tree ~/src/linux\n"
	       "  lab ab series.mbox --base no-per-vma-lock --boots 3\n"
	       "  lab ab fix.patch --dry-run\n\n"
	       "Exit status as 'lab compare': 0 no regression, 1 a regression, 2 bad input (a\n"
	       "patch or variant that does not exist), 3 undecided or runs failed, 4 the lab\n"
	       "failed.\n");
}

struct ab_args {
	const char *base, *job, *boots, *out, *tree;
	int dry_run;
};

static int parse_args(int argc, char **argv, struct ab_args *a)
{
	static const struct option opts[] = {
		{ "base", required_argument, NULL, 'b' }, { "job", required_argument, NULL, 'j' },
		{ "boots", required_argument, NULL, 'n' }, { "out", required_argument, NULL, 'o' },
		{ "dry-run", no_argument, NULL, 'd' },     { "tree", required_argument, NULL, 't' },
		{ 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:", opts, NULL)) != -1) {
		switch (c) {
		case 'b': a->base = optarg; break;
		case 'j': a->job = optarg; break;
		case 'n': a->boots = optarg; break;
		case 'o': a->out = optarg; break;
		case 'd': a->dry_run = 1; break;
		case 't': a->tree = optarg; break;
		default: cli_bad_option(c, argv); return -EINVAL;
		}
	}
	if (optind >= argc) {
		cli_usage_err("expected one or more patches or a git range BASE..HEAD");
		return -EINVAL;
	}
	if (argc - optind > AB_MAX_PATCHES) {
		cli_usage_err("at most %d patches (an mbox holds a series)", AB_MAX_PATCHES);
		return -EINVAL;
	}
	return 0;
}

/* A range's patch, said aloud: what is measured, and what is not. */
static int range_patch(const char *tree, const char *range, char *path, size_t len)
{
	struct lab_error err = { 0 };
	struct abrange r;
	char state[4096];

	run_state_dir(state, sizeof(state));
	if (abrange_patch(tree, range, state, &r, &err) < 0) {
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
static int patch_of(const struct ab_args *a, const char *arg, char *path, size_t len)
{
	if (fs_exists(arg))
		return snprintf(path, len, "%s", arg) < (int)len ? 0 : -ENAMETOOLONG;
	if (!abrange_is_range(arg)) {
		cli_err("%s: no such file, and not a git range BASE..HEAD", arg);
		return -EINVAL;
	}
	return range_patch(a->tree ? a->tree : ".", arg, path, len);
}

int cmd_ab(int argc, char **argv)
{
	struct ab_args a = { .base = "baseline" };
	char job[4096], base_k[4200], patched[8192], out[4200];
	char *rargv[16];
	int n = 0, rc;
	size_t used;

	if (parse_args(argc, argv, &a) < 0)
		return EXIT_BAD_INPUT;
	if (!a.job && checkout_find("configs/ab.json", job, sizeof(job)) < 0) {
		cli_err("cannot find configs/ab.json (run from the checkout, or set LAB_ROOT)");
		return EXIT_LAB_ERROR;
	}
	if (a.job)
		snprintf(job, sizeof(job), "%s", a.job);
	snprintf(base_k, sizeof(base_k), "%s", a.base);
	used = (size_t)snprintf(patched, sizeof(patched), "patched=%s", a.base);
	for (int i = optind; i < argc && used < sizeof(patched); i++) {
		char p[4096];

		if (patch_of(&a, argv[i], p, sizeof(p)) < 0)
			return EXIT_BAD_INPUT;
		used += (size_t)snprintf(patched + used, sizeof(patched) - used, "+%s", p);
	}
	if (used >= sizeof(patched)) {
		cli_err("the patches' paths are too long");
		return EXIT_BAD_INPUT;
	}
	if (a.out) {
		snprintf(out, sizeof(out), "%s", a.out);
	} else {
		time_t t = time(NULL);
		struct tm tm;

		gmtime_r(&t, &tm);
		strftime(out, sizeof(out), "reports/ab-%Y%m%d-%H%M%S", &tm);
	}
	rargv[n++] = "run";
	rargv[n++] = job;
	rargv[n++] = "--kernel";
	rargv[n++] = base_k;
	rargv[n++] = "--kernel";
	rargv[n++] = patched;
	rargv[n++] = "--out";
	rargv[n++] = out;
	if (a.boots) {
		rargv[n++] = "--repeats";
		rargv[n++] = (char *)a.boots;
	}
	if (a.dry_run)
		rargv[n++] = "--dry-run";
	rargv[n] = NULL;
	rc = cmd_run(n, rargv);
	if (rc != EXIT_OK || a.dry_run)
		return rc;
	{
		enum compare_decision d;

		if (report_decision_of(out, &d) < 0)
			return EXIT_UNDECIDED;
		return d == COMPARE_OK ? EXIT_OK : d == COMPARE_REGRESSION ? EXIT_REGRESSION
									    : EXIT_UNDECIDED;
	}
}
