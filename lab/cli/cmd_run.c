/* lab run JOB.json [options]: its options (one table) and its help; the work is runjob.c's. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/hostclass.h"
#include "cli/runenv.h"
#include "cli/runjob.h"
#include "run/host.h"

/* One command line a process: what the table writes to. */
static struct {
	struct cli_run r;
	char *kernels[16];
	int git_bisect;
	const char *timing; /* --timing, checked when read */
} a;

static int opt_kernel(const struct cli_opt *o, const char *arg, struct opt_error *e)
{
	(void)o;
	if (a.r.nr_kernels == sizeof(a.kernels) / sizeof(a.kernels[0]))
		return opt_error_set(e, "--kernel: at most %zu", a.r.nr_kernels);
	a.kernels[a.r.nr_kernels++] = (char *)arg;
	return 0;
}

static int opt_pool_dir(const struct cli_opt *o, const char *arg, struct opt_error *e)
{
	if (arg[0] != '/' || strlen(arg) >= 512)
		return opt_invalid(o, arg, "an absolute path (on the remote host), shorter than "
				   "512 bytes", e);
	a.r.o.env.pool_dir = arg;
	return 0;
}

static const struct cli_opt options[] = {
	OPT_STRING('o', "out", &a.r.o.out_dir, "DIR", "report directory (default reports/ID)"),
	OPT_GROUP(cli_runenv_opts),
	OPT_CALL(0, "pool-dir", NULL, "DIR", opt_pool_dir,
		 "with a remote --connect: its storage pool's directory there (default "
		 HOSTS_DEFAULT_POOL_DIR ")"),
	OPT_CALL(0, "host-class", &a.r.o.env.host_class, "C", hostclass_take,
		 "a label recorded as each run's host.class"),
	OPT_CALL(0, "timing", &a.timing, "M", cli_timing_take,
		 "timing model: auto, kvm, tcg, icount or quantum"),
	OPT_UINT(0, "quantum", &a.r.o.quantum, "Q", 1, DOMAIN_QUANTUM_MAX,
		 "the contention model's round, instructions per vCPU"),
	OPT_INT_OR(0, "parallel", &a.r.o.parallel, "N", "auto", -1, 1, JOB_MAX_PARALLEL,
		   "guests at once under icount and quantum (default auto)"),
	OPT_FLAG(0, "keep-initrd", &a.r.o.keep_initrd, "keep each run's initrd.cpio"),
	OPT_ULL(0, "seed", &a.r.o.seed, "S", 0, (double)RUN_SEED_MAX,
		"under icount or quantum, run i boots with seed S+i"),
	OPT_FLAG(0, "resume", &a.r.resume, "continue the report in --out DIR"),
	OPT_STRING(0, "interrupted", &a.r.interrupted, "I,J",
		   "with --resume: the runs under way when the lab was stopped"),
	OPT_CALL(0, "kernel", NULL, "SPEC", opt_kernel,
		 "[LABEL=]VARIANT[+PATCH...] replacing the job's kernels (repeat it)"),
	OPT_UINT(0, "repeats", &a.r.repeats, "N", 1, 1000, "boots of each kernel"),
	OPT_FLAG(0, "dry-run", &a.r.dry_run, "print the plan; nothing built or booted"),
	OPT_FLAG(0, "json", &a.r.json, "the summary as JSON on stdout"),
	OPT_FLAG(0, "runs-status", &a.r.runs_status,
		 "exit by the runs alone, not an A/B's decision"),
	OPT_FLAG(0, "git-bisect", &a.git_bisect, "exit codes for `git bisect run`"),
	OPT_END(),
};

void cmd_run_help(void)
{
	cli_synopsis("run", "JOB.json", options);
	printf("\nBoots one libvirt guest per repetition of the job, runs its workloads inside\n"
	       "and writes DIR/report.json after every run; at the end the report joins the\n"
	       "history index (STATE/history.db, 'lab history').  `lab run` is for a one-shot\n"
	       "job on your own terminal; `lab job submit` queues it in labd on a shared\n"
	       "machine.  Each option at length: man lab, \"OPTIONS OF LAB RUN\".\n\nOPTIONS\n");
	opt_print(stdout, options);
	printf("\nEXAMPLES\n"
	       "  lab run configs/quick.json\n"
	       "  lab run configs/ab-vma-lock.json --out reports/ab    # an A/B of two kernels\n"
	       "  lab run configs/ab-vma-lock.json --out reports/ab --resume    # after Ctrl-C\n"
	       "  lab run configs/quick.json --timing icount --seed 7\n"
	       "  lab run configs/quick.json --connect qemu+ssh://root@big1/system\n\n"
	       "Exit status: 3 a run failed; else, for an A/B (two or more kernels or labels),\n"
	       "its decision as 'lab compare' gives it: 0 no regression, 1 a regression, 3\n"
	       "undecided; else 0.  2 bad job file (or a report that --resume cannot\n"
	       "continue), 4 lab error.  --runs-status: 0 every run ok whatever the decision.\n"
	       "With --git-bisect (the runs alone): 0 good, 1 bad (a guest panicked), 125 skip\n"
	       "(another failure: a build, a hang, the host), 128 stop (bad input, lab error).\n");
}

/* The options that go together, once all are read. */
static int check_args(int argc, char **argv, int first)
{
	if (first < 0)
		return -EINVAL;
	if (first != argc - 1) {
		cli_usage_err("expected exactly one job file");
		return -EINVAL;
	}
	a.r.o.job_file = argv[first];
	if (a.r.interrupted && !a.r.resume) {
		cli_err("--interrupted goes with --resume");
		return -EINVAL;
	}
	if (a.r.o.env.pool_dir && !virt_uri_remote(a.r.o.env.uri)) {
		cli_err("--pool-dir goes with --connect URI of a remote host: the directory there "
			"that its artifacts are uploaded to");
		return -EINVAL;
	}
	if (a.r.resume && !a.r.o.out_dir) {
		cli_err("--resume needs --out DIR, the report directory to continue");
		return -EINVAL;
	}
	return 0;
}

/* --git-bisect: 0 good; 1 bad when a guest panicked (the kernel under test is broken); 125 skip
 * for other failed runs (a build that fails, a hang, the host); 128 stop for bad input or a
 * lab error. */
int cmd_run(int argc, char **argv)
{
	struct run_summary sum = { 0 };
	int first, rc;

	memset(&a, 0, sizeof(a));
	a.timing = "auto";
	a.r.o.seed = ~0ULL;
	a.r.kernels = a.kernels;
	if (cli_runenv_init() < 0)
		return EXIT_BAD_INPUT;
	first = cli_parse(argc, argv, options);
	/* the group's values (--connect above all) before the checks that pair them */
	cli_runenv_get(&a.r.o.env);
	timing_parse(a.timing, &a.r.o.timing); /* a word cli_timing_take let through */
	rc = check_args(argc, argv, first);
	if (a.git_bisect)
		a.r.runs_status = 1; /* a guest that panicked is "bad", not a decision */
	if (rc == 0) {
		a.r.o.seed_set = a.r.o.seed != ~0ULL;
		if (!a.r.o.seed_set)
			a.r.o.seed = 0;
		rc = cli_run_job(&a.r, &sum);
	} else {
		rc = EXIT_BAD_INPUT;
	}
	return a.git_bisect ? cli_git_bisect(rc, rc == EXIT_RUN_FAILED && sum.status == OUTCOME_PANIC)
			    : rc;
}
