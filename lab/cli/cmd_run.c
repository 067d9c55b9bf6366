/* lab run JOB.json [--out DIR] [--connect URI [--pool-dir DIR]] [--accel auto|tcg|kvm]
 *                  [--state DIR] [--host-class C] [--resume [--interrupted I,J]] */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/kernel_spec.h"
#include "cli/report_decision.h"
#include "cli/report_files.h"
#include "core/runresume.h"
#include "core/slurmfmt.h"
#include "run/host.h"
#include "run/jobload.h"
#include "run/plan.h"
#include "run/engine.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/jsonio.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

void cmd_run_help(void)
{
	printf("usage: lab run JOB.json [--out DIR] [--connect URI] [--accel auto|tcg|kvm]\n"
	       "               [--timing auto|kvm|tcg|icount|quantum] [--quantum Q]\n"
	       "               [--quiet-wait S] [--state DIR]\n"
	       "               [--parallel N|auto] [--keep-initrd] [--seed S]\n"
	       "               [--pool-dir DIR] [--host-class CLASS]\n"
	       "               [--resume [--interrupted I,J]] [--json] [--git-bisect]\n"
	       "               [--dry-run] [--repeats N]\n"
	       "               [--kernel [LABEL=]VARIANT[+PATCH...]]...\n\n"
	       "Boots one libvirt guest per repetition of the job, runs its workloads inside\n"
	       "and writes DIR/report.json (default reports/<id>/) after every run; at the end\n"
	       "the report joins the history index (STATE/history.db, 'lab history').\n\n"
	       "Which to use: `lab run` for a one-shot job on your own terminal: no daemon\n"
	       "needed, the report where you say, Ctrl-C stops it.  `lab job submit` queues\n"
	       "the job in labd, the lab's daemon, on a machine shared with others: jobs wait\n"
	       "their turn (one measuring guest at a time), survive a restart, and can be\n"
	       "watched and cancelled from elsewhere ('lab job submit --help').\n\n"
	       "  --out DIR      report directory\n"
	       "  --connect URI  the one libvirt host the guests run on (default: this\n"
	       "                 machine's embedded driver, qemu:///embed?root=STATE), local\n"
	       "                 (qemu:///system) or remote (qemu+ssh://HOST/system,\n"
	       "                 qemu+tcp://...): a remote host needs libvirtd with QEMU,\n"
	       "                 nothing of numalab; the kernel, initramfs and disk image reach\n"
	       "                 it as storage volumes (by content hash), console and results\n"
	       "                 come back through libvirt.  A host lost mid-job ends its run\n"
	       "                 as infra-error (host-lost) and the runs after it as not run,\n"
	       "                 at once (exit 3); --resume runs them once it is back.  Many\n"
	       "                 hosts: labd --backend slurm ('labd --help')\n"
	       "  --pool-dir DIR with a remote --connect: the directory there of the lab's\n"
	       "                 storage pool \"numalab\" (default %s)\n"
	       "  --accel MODE   auto (probe KVM once per host, default; TCG without a probe\n"
	       "                 where KVM cannot run the lab's kernels: no /dev/kvm, or\n"
	       "                 kvm-pvm, for PVM guests only), tcg or kvm\n"
	       "  --timing M     the timing model, overriding the job's \"timing\":\n"
	       "                 kvm, tcg (multi-threaded TCG, host-clock timed), icount\n"
	       "                 (deterministic: single-threaded TCG, time counted in guest\n"
	       "                 instructions) or auto (kvm where it works; else icount for\n"
	       "                 A/B jobs up to %u vCPUs, tcg otherwise).  quantum: the\n"
	       "                 contention model, icount in rounds of Q instructions per vCPU\n"
	       "                 so that vCPUs run side by side and can find a lock taken; on\n"
	       "                 the lab's QEMU build ('lab qemu build'), made the first time\n"
	       "                 a job needs it\n"
	       "  --quantum Q    the contention model's round, 1..%u instructions per vCPU,\n"
	       "                 overriding the job's \"quantum\" (default %u)\n"
	       "  --quiet-wait S under kvm or tcg, wait up to S seconds before each run for the\n"
	       "                 host to be quiet (default $LAB_QUIET_WAIT, else %.0f; 0: do\n"
	       "                 not wait); runs measured on a busy host are flagged in the\n"
	       "                 report either way\n"
	       "  --parallel N   guests at once, overriding the job's \"parallel\": under icount\n"
	       "                 N, or auto (the default) for one per host core other work\n"
	       "                 leaves free, as many as memory holds; under kvm and tcg\n"
	       "                 always 1, since a guest beside another moves its figures\n"
	       "                 (N > 1 with those is refused)\n"
	       "  --state DIR    state directory (default $LAB_STATE_DIR or\n"
	       "                 ~/.local/state/numalab): libvirt root, KVM verdict cache,\n"
	       "                 history index\n"
	       "  --keep-initrd  keep each run's initrd.cpio (to replay a run by hand)\n"
	       "  --seed S       under icount or quantum, run i boots with seed S+i (QEMU's\n"
	       "                 -seed; the guest's RDRAND and so its random state): a boot's\n"
	       "                 recorded runs[].seed reproduces it.  Default: a random seed\n"
	       "                 per boot\n"
	       "  --host-class C a label: each run's host.class in the report (labd's Slurm\n"
	       "                 backend passes the class a job was submitted with, a node\n"
	       "                 feature); it chooses no host.  lab compare refuses to pool runs\n"
	       "                 of two classes.  A word of [A-Za-z0-9_.-], at most %d bytes\n"
	       "  --resume       continue the report in --out DIR that an earlier `lab run` of\n"
	       "                 this job left when it was stopped: each run it records is kept\n"
	       "                 as it is and not run again; the others run, in order.  No\n"
	       "                 DIR/report.json yet: a normal run into DIR.  The report must\n"
	       "                 be of this job: its job.sha256 (the sha256 of the job's JSON,\n"
	       "                 keys sorted, no whitespace: layout does not matter; the files\n"
	       "                 the job names are not part of it) equal to this job's.  A\n"
	       "                 \"precision\" job is not resumed (exit 2) when there is a report\n"
	       "                 or --interrupted\n"
	       "  --interrupted I,J\n"
	       "                 with --resume: the runs that were under way when the lab was\n"
	       "                 stopped (0-based as runs[].index: progress line \"run N/T\" is\n"
	       "                 index N-1); each the report lacks is recorded as infra-error,\n"
	       "                 end \"interrupted\", its console.log kept, and not run again\n"
	       "  --kernel SPEC  the job's kernels replaced, one SPEC each (repeat it):\n"
	       "                 [LABEL=]VARIANT[+PATCH...], e.g. --kernel baseline --kernel\n"
	       "                 fix=baseline+0001-fix.patch (a variant extending VARIANT with\n"
	       "                 the patches is written under STATE/variants/)\n"
	       "  --repeats N    the job's \"repeats\" replaced: boots of each kernel\n"
	       "  --dry-run      resolve and check everything and print the plan: each kernel\n"
	       "                 cached or to build, the image, the timing model and why, the\n"
	       "                 run order, an estimate from the history; builds, boots and\n"
	       "                 writes nothing (exit 0, or 2 with the job's error)\n"
	       "  --json         the summary at the end as JSON on stdout (runs, ok, planned,\n"
	       "                 status, report, out_dir; keys sorted)\n"
	       "  --git-bisect   exit codes for `git bisect run` (below)\n\n"
	       "EXAMPLES\n"
	       "  lab run configs/quick.json\n"
	       "  lab run configs/ab-vma-lock.json --out reports/ab    # an A/B of two kernels\n"
	       "  lab run configs/ab-vma-lock.json --out reports/ab --resume    # after Ctrl-C\n"
	       "  lab run configs/quick.json --timing icount --seed 7\n"
	       "  lab run configs/quick.json --connect qemu+ssh://root@big1/system\n\n"
	       "Exit status: 0 every run ok, 3 a run failed, 2 bad job file (or a report that\n"
	       "--resume cannot continue), 4 lab error.  With --git-bisect: 0 good, 1 bad (a\n"
	       "guest panicked), 125 skip (another failure: a build, a hang, the host), 128\n"
	       "stop (bad input, lab error).\n",
	       HOSTS_DEFAULT_POOL_DIR, TIMING_ICOUNT_MAX_VCPUS, DOMAIN_QUANTUM_MAX,
	       TIMING_QUANTUM_DEFAULT, RUN_QUIET_WAIT_S, SLURM_FEATURE_MAX);
}

static void print_progress(void *ud, const char *msg)
{
	(void)ud;
	fprintf(stderr, "lab: %s\n", msg);
}

/* sha256: the job's identity for --resume (runresume_job_sha256), or NULL. */
static int load_job_kernels(const char *file, const json_t *kernels, struct job *job,
			    char sha256[65])
{
	struct lab_error err = { 0 };
	char msg[1200];
	int r = jobload_file_kernels(file, kernels, job, sha256, &err);

	if (r < 0) {
		error_format(&err, msg, sizeof(msg));
		cli_err("%s", msg);
	}
	return r;
}

static int load_job(const char *file, struct job *job, char sha256[65])
{
	struct lab_error err = { 0 };
	char msg[1200];
	int r = jobload_file(file, job, sha256, &err);

	if (r < 0) {
		error_format(&err, msg, sizeof(msg));
		cli_err("%s", msg);
	}
	return r;
}

int cli_load_job(const char *file, struct job *job)
{
	return load_job(file, job, NULL);
}

struct run_args {
	const char *job, *out, *uri, *accel, *timing;
	double quiet_wait_s;
	int parallel;        /* run_opts.parallel */
	int keep_initrd;
	int seed_set;
	unsigned long long seed;
	unsigned quantum;
	int git_bisect;      /* --git-bisect: exit codes for `git bisect run` */
	int json;            /* --json: the summary as JSON on stdout */
	int dry_run;         /* --dry-run: the plan only */
	unsigned repeats;    /* --repeats N: the job's "repeats" replaced (0: as written) */
	char *kernels[16];   /* --kernel SPEC: the job's kernels replaced */
	size_t nr_kernels;
	int resume;
	const char *interrupted; /* --interrupted, as given */
	const char *host_class, *pool_dir;
	char state[4096];
};

static int parse_args(int argc, char **argv, struct run_args *a)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "connect", required_argument, NULL, 'c' },
		{ "accel", required_argument, NULL, 'a' },
		{ "state", required_argument, NULL, 's' },
		{ "keep-initrd", no_argument, NULL, 'k' },
		{ "timing", required_argument, NULL, 't' },
		{ "quiet-wait", required_argument, NULL, 'q' },
		{ "parallel", required_argument, NULL, 'p' },
		{ "resume", no_argument, NULL, 'R' },
		{ "interrupted", required_argument, NULL, 'I' },
		{ "host-class", required_argument, NULL, 'C' },
		{ "pool-dir", required_argument, NULL, 'P' },
		{ "seed", required_argument, NULL, 'S' },
		{ "quantum", required_argument, NULL, 'Q' },
		{ "git-bisect", no_argument, NULL, 'G' },
		{ "json", no_argument, NULL, 'j' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "kernel", required_argument, NULL, 'K' },
		{ "repeats", required_argument, NULL, 'r' },
		{ 0 },
	};
	int c;

	a->accel = "auto";
	a->timing = "auto";
	if (cli_quiet_wait_default(&a->quiet_wait_s) < 0)
		return -EINVAL;
	run_state_dir(a->state, sizeof(a->state));
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:c:a:s:", opts, NULL)) != -1) {
		switch (c) {
		case 'o': a->out = optarg; break;
		case 'c': a->uri = optarg; break;
		case 'a': a->accel = optarg; break;
		case 's': snprintf(a->state, sizeof(a->state), "%s", optarg); break;
		case 'k': a->keep_initrd = 1; break;
		case 't': a->timing = optarg; break;
		case 'G': a->git_bisect = 1; break;
		case 'j': a->json = 1; break;
		case 'n': a->dry_run = 1; break;
		case 'r': {
			char *end;
			unsigned long n = strtoul(optarg, &end, 10);

			if (*end || !isdigit((unsigned char)optarg[0]) || n < 1 || n > 1000) {
				cli_err("--repeats must be a number 1..1000");
				return -EINVAL;
			}
			a->repeats = (unsigned)n;
			break;
		}
		case 'K':
			if (a->nr_kernels == sizeof(a->kernels) / sizeof(a->kernels[0])) {
				cli_err("--kernel: at most %zu", a->nr_kernels);
				return -EINVAL;
			}
			a->kernels[a->nr_kernels++] = optarg;
			break;
		case 'Q': {
			char *end;
			unsigned long q;

			errno = 0;
			q = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || !isdigit((unsigned char)optarg[0]) ||
			    q < 1 || q > DOMAIN_QUANTUM_MAX) {
				cli_err("--quantum must be a number 1..%u", DOMAIN_QUANTUM_MAX);
				return -EINVAL;
			}
			a->quantum = (unsigned)q;
			break;
		}
		case 'R': a->resume = 1; break;
		case 'I': a->interrupted = optarg; break;
		case 'C':
			/* what labd passes on: a Slurm node feature */
			if (!slurmfmt_feature_ok(optarg)) {
				cli_err("--host-class: a host class is a word of [A-Za-z0-9_.-], at "
					"most %d bytes", SLURM_FEATURE_MAX);
				return -EINVAL;
			}
			a->host_class = optarg;
			break;
		case 'P':
			if (optarg[0] != '/' || strlen(optarg) >= 512) {
				cli_err("--pool-dir must be an absolute path (on the remote host), "
					"shorter than 512 bytes");
				return -EINVAL;
			}
			a->pool_dir = optarg;
			break;
		case 'p': {
			char *end;
			long n;

			if (!strcmp(optarg, "auto")) {
				a->parallel = -1;
				break;
			}
			errno = 0;
			n = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || n < 1 || n > JOB_MAX_PARALLEL) {
				cli_err("--parallel must be auto or a number 1..%d",
					JOB_MAX_PARALLEL);
				return -EINVAL;
			}
			a->parallel = (int)n;
			break;
		}
		case 'S': {
			char *end;

			errno = 0;
			a->seed = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || *optarg == '-' ||
			    a->seed > RUN_SEED_MAX) {
				cli_err("--seed must be a number 0..%llu", RUN_SEED_MAX);
				return -EINVAL;
			}
			a->seed_set = 1;
			break;
		}
		case 'q':
			if (cli_quiet_wait("--quiet-wait", optarg, &a->quiet_wait_s) < 0)
				return -EINVAL;
			break;
		default: cli_bad_option(c, argv); return -EINVAL;
		}
	}
	if (optind != argc - 1) {
		cli_usage_err("expected exactly one job file");
		return -EINVAL;
	}
	a->job = argv[optind];
	if (a->interrupted && !a->resume) {
		cli_err("--interrupted goes with --resume");
		return -EINVAL;
	}
	if (a->pool_dir && !virt_uri_remote(a->uri)) {
		cli_err("--pool-dir goes with --connect URI of a remote host: the directory there "
			"that its artifacts are uploaded to");
		return -EINVAL;
	}
	if (a->resume && !a->out) {
		cli_err("--resume needs --out DIR, the report directory to continue");
		return -EINVAL;
	}
	return 0;
}

/* --resume: the plan from DIR/report.json when an earlier run wrote one (none yet: every run
 * is run but the interrupted ones).  An error is printed; -EINVAL for a report or list that
 * cannot be resumed. */
static int load_resume(const struct run_args *a, const struct job *job, const char *sha256,
		       struct runresume *res)
{
	_cleanup_free_ char *path = fs_join(a->out, "report.json");
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

static void print_summary(const struct run_summary *s, int as_json)
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
	if (j && (text = jsonio_dumps(j)))
		printf("%s\n", text);
}

/* A job of two or more kernels or labels ends with its decision, as `lab compare DIR` prints
 * it, and every job with the commands to look further.  The run's own exit status stays the
 * runs' (the decision's is `lab compare`'s). */
static void print_decision(const struct run_summary *sum)
{
	struct report_files f = { 0 };
	struct lab_error err = { 0 };
	struct series_set s;
	enum compare_decision d;

	series_init(&s);
	if (report_files_add(&f, sum->report, &err) == 0 && report_files_read(&f, &err) == 0 &&
	    series_add_report(&s, f.doc[0], f.path[0], NULL, &err) == 0 && s.nr_variants > 1) {
		fputs("\n", stdout);
		fflush(stdout);
		report_decision_print(&s, &d);
	}
	if (s.nr_variants > 1) {
		/* the dashboard of an A/B is written with it: DIR/dashboard.html */
		char page[PATH_MAX + 32], *argv[] = { "report", (char *)sum->out_dir, "-o", page,
						      NULL };

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
	series_free(&s);
	report_files_free(&f);
}

/* --dry-run: the plan, nothing built, booted or written; 0, or 2 with the job's error. */
static int dry_run(const struct run_opts *o, struct job *job, struct runresume *res)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	_cleanup_free_ char *text = NULL;
	struct lab_error err = { 0 };
	char msg[1400];
	int r = run_plan(o, job, &sb, &err);

	runresume_free(res);
	job_free(job);
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

static int run_main(int argc, char **argv, struct run_args *pa, struct run_summary *psum);

/* --git-bisect: 0 good; 1 bad when a guest panicked (the kernel under test is broken); 125 skip
 * for other failed runs (a build that fails, a hang, the host); 128 stop for bad input or a
 * lab error. */
int cmd_run(int argc, char **argv)
{
	struct run_args a = { 0 };
	struct run_summary sum = { 0 };
	int rc = run_main(argc, argv, &a, &sum);

	return a.git_bisect ? cli_git_bisect(rc, rc == EXIT_RUN_FAILED && sum.status == OUTCOME_PANIC)
			    : rc;
}

static int run_main(int argc, char **argv, struct run_args *pa, struct run_summary *psum)
{
	struct run_args a = { 0 };
	struct job job = { 0 };
	struct run_summary sum = { 0 };
	struct run_opts o = { 0 };
	struct runresume res = { 0 };
	char sha256[65];
	struct sigaction sa = { .sa_handler = on_signal };
	char msg[1024];
	int r;

	int rc = parse_args(argc, argv, &a);

	pa->git_bisect = a.git_bisect;
	if (rc < 0)
		return EXIT_BAD_INPUT;
	if (accel_mode_parse(a.accel, &o.accel) < 0) {
		cli_err("--accel must be auto, tcg or kvm");
		return EXIT_BAD_INPUT;
	}
	if (timing_parse(a.timing, &o.timing) < 0) {
		cli_err("--timing must be auto, kvm, tcg, icount or quantum");
		return EXIT_BAD_INPUT;
	}
	if (a.nr_kernels) {
		int bad;
		_cleanup_json_ json_t *ks = kernel_spec_array(a.kernels, a.nr_kernels, a.state, msg,
							      sizeof(msg), &bad);

		if (!ks) {
			cli_err("%s", msg);
			return bad ? EXIT_BAD_INPUT : EXIT_LAB_ERROR;
		}
		if (load_job_kernels(a.job, ks, &job, sha256) < 0)
			return EXIT_BAD_INPUT;
	} else if (load_job(a.job, &job, sha256) < 0) {
		return EXIT_BAD_INPUT;
	}
	if (a.repeats)
		job.repeats = a.repeats;
	if (a.quantum && (o.timing != TIMING_AUTO ? o.timing : job.timing) != TIMING_QUANTUM) {
		cli_err("--quantum needs the contention model (--timing quantum, or the "
			"job's \"timing\": \"quantum\")");
		job_free(&job);
		return EXIT_BAD_INPUT;
	}
	if (a.parallel > 1 && (o.timing == TIMING_KVM || o.timing == TIMING_TCG ||
			       (o.timing == TIMING_AUTO && job.timing != TIMING_AUTO &&
				!timing_info(job.timing)->deterministic))) {
		cli_err("--parallel %d needs a deterministic timing model (icount, quantum): under "
			"%s a guest's figures move with what else runs on the host", a.parallel,
			timing_info(o.timing != TIMING_AUTO ? o.timing : job.timing)->name);
		job_free(&job);
		return EXIT_BAD_INPUT;
	}
	if (a.resume && (r = load_resume(&a, &job, sha256, &res)) < 0) {
		runresume_free(&res);
		job_free(&job);
		return r == -EINVAL ? EXIT_BAD_INPUT : EXIT_LAB_ERROR;
	}
	o.resume = a.resume ? &res : NULL;
	o.job_sha256 = sha256;
	o.parallel = a.parallel;
	o.quiet_wait_s = a.quiet_wait_s;
	o.job_file = a.job;
	o.out_dir = a.out;
	o.uri = a.uri;
	o.pool_dir = a.pool_dir;
	o.host_class = a.host_class;
	o.keep_initrd = a.keep_initrd;
	o.seed_set = a.seed_set;
	o.seed = a.seed;
	o.quantum = a.quantum;
	o.state_dir = a.state;
	o.interrupt = &interrupted;
	o.progress = print_progress;
	if (a.dry_run)
		return dry_run(&o, &job, &res);
	/* The guest is destroyed on the way out, so a signal must not kill us outright. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	r = run_job(&o, &job, &sum, msg, sizeof(msg));

	runresume_free(&res);
	job_free(&job);
	if (r < 0) {
		cli_err("%s", msg[0] ? msg : strerror(-r));
		return r == -EINVAL ? EXIT_BAD_INPUT : EXIT_LAB_ERROR;
	}
	print_summary(&sum, a.json);
	if (!a.json && sum.report[0])
		print_decision(&sum);
	cli_history_add(a.state, sum.report);
	*psum = sum;
	return sum.status == OUTCOME_OK && sum.runs == sum.planned ? EXIT_OK : EXIT_RUN_FAILED;
}
