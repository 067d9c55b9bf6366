/* lab project: a projection of one shared spinlock's workload to a target machine's CPU
 * count (lab/analysis/projection.h), labelled a projection, from instruction counts the user
 * or a measurement supplies and the priors of configs/projection/priors.json. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
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


void cmd_project_help(void)
{
	printf("usage: lab project --inside N --outside N [--topology NAME|FILE] [--to N]\n"
	       "                   [--lock queued|ticket] [--no-transfer] [--priors FILE]\n"
	       "                   [--draws N] [--seed N] [--json]\n"
	       "       lab project --from REPORT --site NAME+ [--label L] [--workload W]\n"
	       "                   [--tasks N] [--outside-from REPORT]\n"
	       "                   [the options above but --inside, --outside]\n\n"
	       "A PROJECTION, not a measurement: the throughput of a workload whose cost is one\n"
	       "shared spinlock, from 1 CPU to the target's size.  The model is exact mean-value\n"
	       "analysis of N CPUs each running the instructions outside the lock, then holding\n"
	       "it for the instructions inside; each acquisition pays for the lock's cache line\n"
	       "moving to the next holder, within a socket or across.  What a small host cannot\n"
	       "measure (cycles per instruction, clock, line transfers) is drawn from the priors\n"
	       "file; each prior states its basis.  The band is 5-95 %% over the draws.  A\n"
	       "projection never enters a verdict.\n\n"
	       "  --inside N, --outside N  instructions per operation inside the lock and\n"
	       "                           outside it (the plain kernel, not a lockdep twin)\n"
	       "  --from REPORT            or both from a run with \"lock_insns\" (GUIDE.md):\n"
	       "                           per acquisition at the call site --site (a prefix,\n"
	       "                           e.g. do_huge_pmd_anonymous_page+), the site's\n"
	       "                           instructions inside and the window's outside, summed\n"
	       "                           over the boots of --label at --tasks (default 1)\n"
	       "  --outside-from REPORT    with --from: the instructions outside from REPORT's\n"
	       "                           1-task window of the same label and workload (a run\n"
	       "                           under quantum or icount, where each rep iteration\n"
	       "                           counts), not the counter's lower bound\n"
	       "  --topology T             the target (configs/topologies/T.json): 4s-512c\n"
	       "  --to N                   project to N CPUs (default: all of the target's)\n"
	       "  --lock L                 queued (qspinlock, Linux 4.2 on; default) or ticket\n"
	       "  --no-transfer            no hand-off cost: the contention model's own terms,\n"
	       "                           to hold the projection against its measured curves\n"
	       "  --priors FILE            default %s\n"
	       "  --draws N, --seed N      Monte Carlo draws (1000, at most %d) and seed (1)\n"
	       "  --json                   every CPU count, schema numalab.projection/1\n\n"
	       "EXAMPLES\n"
	       "  lab project --inside 300 --outside 6000\n"
	       "  lab project --inside 300 --outside 6000 --topology 4s-64c --lock ticket\n"
	       "  lab project --from reports/ID --label no-split-pmd-ptlock \\\n"
	       "              --site do_huge_pmd_anonymous_page+\n\n"
	       "Exit status: 0 projected, 2 bad input (nothing projected).\n",
	       PROJOPTS_PRIORS, PROJ_MAX_DRAWS);
}

struct project_args {
	struct proj_input in;
	const char *topology, *priors, *from, *outside_from;
	struct projinput_pick pick;
	unsigned to;
	int json;
};

static int number(const char *opt, const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi) {
		cli_usage_err("%s must be a number %g..%g, not '%s'", opt, lo, hi, s);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int parse_args(int argc, char **argv, struct project_args *a)
{
	static const struct option opts[] = {
		{ "inside", required_argument, NULL, 'i' },
		{ "outside", required_argument, NULL, 'o' },
		{ "topology", required_argument, NULL, 'T' },
		{ "to", required_argument, NULL, 'n' },
		{ "lock", required_argument, NULL, 'l' },
		{ "no-transfer", no_argument, NULL, 'X' },
		{ "priors", required_argument, NULL, 'p' },
		{ "draws", required_argument, NULL, 'd' },
		{ "seed", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "from", required_argument, NULL, 'F' },
		{ "site", required_argument, NULL, 'S' },
		{ "label", required_argument, NULL, 'L' },
		{ "workload", required_argument, NULL, 'W' },
		{ "tasks", required_argument, NULL, 't' },
		{ "outside-from", required_argument, NULL, 'O' },
		{ 0 },
	};
	static const char *const locks[] = { "queued", "ticket" };
	int c, r = 0, have_in = 0, have_out = 0;
	double v;

	*a = (struct project_args){ .topology = PROJOPTS_TOPOLOGY, .in = { .draws = 1000, .seed = 1 } };
	optind = 1;
	while (r == 0 && (c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case 'i': r = number("--inside", optarg, 1e-3, 1e12, &a->in.insn_inside); have_in = 1; break;
		case 'o': r = number("--outside", optarg, 0, 1e12, &a->in.insn_outside); have_out = 1; break;
		case 'T': a->topology = optarg; break;
		case 'n':
			if ((r = number("--to", optarg, 1, PROJ_MAX_CPUS, &v)) == 0)
				a->to = (unsigned)v;
			break;
		case 'l':
			if ((c = cli_choice(optarg, locks, 2)) < 0) {
				cli_usage_err("--lock must be queued or ticket");
				r = -EINVAL;
			}
			a->in.lock = c == 1 ? PROJ_LOCK_TICKET : PROJ_LOCK_QUEUED;
			break;
		case 'X': a->in.no_transfer = 1; break;
		case 'p': a->priors = optarg; break;
		case 'd':
			if ((r = number("--draws", optarg, 1, PROJ_MAX_DRAWS, &v)) == 0)
				a->in.draws = (unsigned)v;
			break;
		case 's':
			if ((r = number("--seed", optarg, 0, 9007199254740992.0, &v)) == 0)
				a->in.seed = (uint64_t)v;
			break;
		case 'j': a->json = 1; break;
		case 'F': a->from = optarg; break;
		case 'O': a->outside_from = optarg; break;
		case 'S': a->pick.site = optarg; break;
		case 'L': a->pick.label = optarg; break;
		case 'W': a->pick.workload = optarg; break;
		case 't':
			if ((r = number("--tasks", optarg, 1, 65536, &v)) == 0)
				a->pick.tasks = (unsigned)v;
			break;
		default: cli_bad_option(c, argv); return -EINVAL;
		}
	}
	if (r < 0)
		return r;
	if (optind != argc) {
		cli_usage_err("unexpected argument '%s'", argv[optind]);
		return -EINVAL;
	}
	if (a->outside_from && !a->from) {
		cli_usage_err("--outside-from goes with --from");
		return -EINVAL;
	}
	if (a->from ? have_in || have_out || !a->pick.site : !have_in || !have_out) {
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
	struct project_args a;
	struct proj_priors pr;
	struct proj_result res = { 0 };
	_cleanup_free_ struct proj_point *pts = NULL;
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	const char *priors;
	int r;

	if (parse_args(argc, argv, &a) < 0 ||
	    (r = projopts_target(a.topology, a.to, "--to", &a.in)) < 0 ||
	    (a.from && from_report(&a) < 0) || (r = projopts_priors(a.priors, &pr, &priors)) < 0)
		return EXIT_BAD_INPUT;
	if (!(pts = calloc(a.in.nmax, sizeof(*pts))))
		return EXIT_LAB_ERROR;
	res.points = pts;
	if ((r = projection_run(&a.in, &pr, &res)) < 0) {
		cli_err("cannot project: %s", strerror(-r));
		return r == -EINVAL ? EXIT_BAD_INPUT : EXIT_LAB_ERROR;
	}
	{
		struct proj_label l = { .target = a.topology, .priors = priors };
		_cleanup_json_ json_t *j = a.json ? projection_json(&a.in, &pr, &l, &res) : NULL;
		_cleanup_free_ char *text = NULL;

		if (a.json)
			r = j && (text = jsonio_dumps(j)) ? 0 : -ENOMEM;
		else
			r = projection_text(&a.in, &pr, &l, &res, &sb) == 0 ? strbuf_take(&sb, &text)
									     : -ENOMEM;
		if (r < 0)
			return EXIT_LAB_ERROR;
		fputs(text, stdout);
		if (a.json)
			fputc('\n', stdout);
	}
	return EXIT_OK;
}
