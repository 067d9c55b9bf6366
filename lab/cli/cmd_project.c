/* lab project: a projection of one shared spinlock's workload to a target machine's CPU
 * count (lab/analysis/projection.h), labelled a projection, from instruction counts the user
 * or a measurement supplies and the priors of configs/projection/priors.json. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/projection.h"
#include "analysis/projinput.h"
#include "cli/cli.h"
#include "cli/projopts.h"
#include "util/cleanup.h"
#include "util/jsonio.h"
#include "util/strbuf.h"


struct project_args {
	struct proj_input in;
	const char *topology, *priors, *from, *outside_from;
	struct projinput_pick pick;
	unsigned to;
	unsigned long long seed; /* in.seed's, as the table reads it */
	int lock;                /* in.lock: the index in lock_names */
	int json, have_in, have_out;
};

/* One command line a process: what the table writes to. */
static struct project_args args;

/* --inside and --outside: numbers, and whether they were given (--from is the other way). */
static int opt_insns(const struct cli_opt *o, const char *arg, struct opt_error *e)
{
	int inside = o->value == &args.in.insn_inside;
	char from[64];

	snprintf(from, sizeof(from), "--%s", o->name);
	if (opt_double(from, arg, inside ? 1e-3 : 0, 1e12, o->value, e) < 0)
		return -EINVAL;
	*(inside ? &args.have_in : &args.have_out) = 1;
	return 0;
}

/* In enum proj_lock's order. */
static const char *const lock_names[] = { "queued", "ticket", NULL };

/* From the measured --from report: its lock's call site (with --outside-from), and which
 * of its runs. */
static const struct cli_opt from_opts[] = {
	OPT_STRING(0, "from", &args.from, "REPORT",
		   "instead of --inside, --outside: a \"lock_insns\" run"),
	OPT_GROUP(projopts_site_opts),
	OPT_STRING(0, "label", &args.pick.label, "L", "with --from: the kernel label"),
	OPT_STRING(0, "workload", &args.pick.workload, "W", "with --from: the workload"),
	OPT_UINT(0, "tasks", &args.pick.tasks, "N", 1, 65536,
		 "with --from: the task count (default 1)"),
	OPT_END(),
};

static const struct cli_opt options[] = {
	OPT_CALL(0, "inside", &args.in.insn_inside, "N", opt_insns,
		 "instructions per operation inside the lock"),
	OPT_CALL(0, "outside", &args.in.insn_outside, "N", opt_insns,
		 "instructions per operation outside it"),
	OPT_GROUP(from_opts),
	OPT_STRING(0, "topology", &args.topology, "T", "the target (configs/topologies/T.json)"),
	OPT_UINT(0, "to", &args.to, "N", 1, PROJ_MAX_CPUS,
		 "project to N CPUs (default: all of the target's)"),
	OPT_CHOICE(0, "lock", &args.lock, "L", lock_names, "queued (qspinlock) or ticket"),
	OPT_FLAG(0, "no-transfer", &args.in.no_transfer,
		 "no hand-off cost: the contention model's own terms"),
	OPT_STRING(0, "priors", &args.priors, "FILE",
		   "the priors file (default " PROJOPTS_PRIORS ")"),
	OPT_UINT(0, "draws", &args.in.draws, "N", 1, PROJ_MAX_DRAWS, "Monte Carlo draws"),
	OPT_ULL(0, "seed", &args.seed, "N", 0, 9007199254740992.0,
		"the draws' seed (default 1)"),
	OPT_FLAG(0, "json", &args.json, "every CPU count, schema numalab.projection/1"),
	OPT_END(),
};

/* The defaults, also what --help shows. */
static void set_defaults(void)
{
	memset(&args, 0, sizeof(args));
	args.topology = PROJOPTS_TOPOLOGY;
	args.in.draws = 1000;
	args.seed = 1;
	projopts_init();
}

void cmd_project_help(void)
{
	set_defaults();
	cli_synopsis("project", "", options);
	printf("\nA PROJECTION, not a measurement: the throughput of a workload whose cost is one\n"
	       "shared spinlock, from 1 CPU to the target's size, by exact mean-value analysis,\n"
	       "from the instructions per operation inside and outside the lock: --inside and\n"
	       "--outside, or --from and --site (measured).  What a small host cannot measure\n"
	       "(cycles per instruction, clock, line transfers) is drawn from the priors file.\n"
	       "The band is 5-95 %% over the draws.  A projection never enters a verdict.  Each\n"
	       "option at length: man lab, \"OPTIONS OF LAB PROJECT\".\n\nOPTIONS\n");
	opt_print(stdout, options);
	printf("\nEXAMPLES\n"
	       "  lab project --inside 300 --outside 6000\n"
	       "  lab project --inside 300 --outside 6000 --topology 4s-64c --lock ticket\n"
	       "  lab project --from reports/ID --label no-split-pmd-ptlock \\\n"
	       "              --site do_huge_pmd_anonymous_page+\n\n"
	       "Exit status: 0 projected, 2 bad input (nothing projected).\n");
}

/* The options that go together, once all are read. */
static int check_args(const struct project_args *a)
{
	if (a->outside_from && !a->from) {
		cli_usage_err("--outside-from goes with --from");
		return -EINVAL;
	}
	if (a->from ? a->have_in || a->have_out || !a->pick.site : !a->have_in || !a->have_out) {
		cli_usage_err(a->from ? (a->pick.site ? "--from takes the place of --inside and "
						      "--outside" : "--from needs --site NAME+")
				      : "--inside and --outside are both needed (or --from)");
		return -EINVAL;
	}
	if (!a->from && (a->pick.site || a->pick.label || a->pick.workload || a->pick.tasks)) {
		cli_usage_err("--site, --label, --workload and --tasks go with --from");
		return -EINVAL;
	}
	return 0;
}

static int parse_args(int argc, char **argv)
{
	struct projopts site;
	int first;

	set_defaults();
	if ((first = cli_parse(argc, argv, options)) < 0)
		return -EINVAL;
	if (first != argc) {
		cli_usage_err("unexpected argument '%s'", argv[first]);
		return -EINVAL;
	}
	projopts_get(&site);
	args.pick.site = site.site;
	args.outside_from = site.outside_from;
	args.in.seed = args.seed;
	args.in.lock = args.lock == 1 ? PROJ_LOCK_TICKET : PROJ_LOCK_QUEUED;
	return check_args(&args);
}

/* --from: S and Z per acquisition of the site, measured; said before the projection. */
static int from_report(struct project_args *a)
{
	_cleanup_json_ json_t *counted = NULL, *window = NULL;
	struct lab_error err = { 0 };
	struct projinput pi;
	const char *why;
	char msg[1400];
	int r;

	if ((r = projopts_report("--from", a->from, &counted)) < 0 ||
	    (a->outside_from &&
	     (r = projopts_report("--outside-from", a->outside_from, &window)) < 0))
		return r;
	if ((r = projinput_from_report(counted, &a->pick, &pi, &err)) < 0) {
		error_format(&err, msg, sizeof(msg));
		cli_err("--from %s: %s", a->from, msg);
		return r;
	}
	if (window && (r = projinput_window(counted, window, &pi, &err)) < 0) {
		error_format(&err, msg, sizeof(msg));
		cli_err("--outside-from %s: %s", a->outside_from, msg);
		return r;
	}
	if ((why = projinput_why_not(&pi, msg, sizeof(msg)))) {
		cli_err("--from %s: not projected: %s", a->from, why);
		return -EINVAL;
	}
	a->in.insn_inside = pi.inside;
	a->in.insn_outside = pi.outside;
	a->in.private_lock = projinput_private(&pi);
	fprintf(a->json ? stderr : stdout,
		"measured: %s, %s at %u task(s), %zu boot(s): %.0f acquisitions at %s (%zu "
		"site(s)), at most %u lock(s), the busiest taken by %u vCPU(s); per acquisition "
		"%.1f instructions inside, %.1f outside (%s%s%s)\n\n",
		pi.label, pi.workload, pi.tasks, pi.boots, pi.acquisitions, pi.site, pi.sites,
		pi.locks, pi.max_cpus_per_lock, pi.inside, pi.outside,
		a->outside_from ? "from the 1-task window of " : "the window's instructions count a "
		"rep string instruction once per translated block: outside is a lower bound of the "
		"time", a->outside_from ? a->outside_from : "",
		a->outside_from ? ", every instruction counted" : "");
	if (pi.shared_tasks)
		fprintf(a->json ? stderr : stdout, "shared: at %u tasks %u lock(s), the busiest "
			"taken by %u vCPU(s): %s\n\n", pi.shared_tasks, pi.shared_locks,
			pi.shared_max_cpus, a->in.private_lock ? "a lock per task, nobody waits at it"
							       : "one lock all CPUs share");
	else
		fprintf(a->json ? stderr : stdout, "shared: not measured (no result at more than "
			"%u task(s)): that the site's lock is one lock all CPUs share is assumed\n\n",
			pi.tasks);
	return 0;
}

int cmd_project(int argc, char **argv)
{
	struct proj_priors pr;
	struct proj_result res = { 0 };
	_cleanup_free_ struct proj_point *pts = NULL;
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	const char *priors;
	int r;

	if (parse_args(argc, argv) < 0 ||
	    (r = projopts_target(args.topology, args.to, "--to", &args.in)) < 0 ||
	    (args.from && from_report(&args) < 0) ||
	    (r = projopts_priors(args.priors, &pr, &priors)) < 0)
		return EXIT_BAD_INPUT;
	if (!(pts = calloc(args.in.nmax, sizeof(*pts))))
		return EXIT_LAB_ERROR;
	res.points = pts;
	if ((r = projection_run(&args.in, &pr, &res)) < 0) {
		cli_err("cannot project: %s", strerror(-r));
		return r == -EINVAL ? EXIT_BAD_INPUT : EXIT_LAB_ERROR;
	}
	{
		struct proj_label l = { .target = args.topology, .priors = priors };
		_cleanup_json_ json_t *j =
			args.json ? projection_json(&args.in, &pr, &l, &res) : NULL;
		_cleanup_free_ char *text = NULL;

		if (args.json)
			r = j && (text = jsonio_dumps(j)) ? 0 : -ENOMEM;
		else
			r = projection_text(&args.in, &pr, &l, &res, &sb) == 0
				    ? strbuf_take(&sb, &text) : -ENOMEM;
		if (r < 0)
			return EXIT_LAB_ERROR;
		fputs(text, stdout);
		if (args.json)
			fputc('\n', stdout);
	}
	return EXIT_OK;
}
