/* What lab project, lab compare and lab report share to project: the target's size from a
 * topology, the priors file, and --project-from's projections of a lock-counted report
 * (analysis/projseries.h).  Each function prints its own error (cli_err) and returns
 * -EINVAL for bad input, -ENOMEM. */
#pragma once
#include <getopt.h>
#include <jansson.h>

#include "analysis/projection.h"

#define PROJOPTS_PRIORS "configs/projection/priors.json"
#define PROJOPTS_TOPOLOGY "4s-512c" /* the largest shipped topology: the default target */

/* getopt_long codes of the shared options (outside every command's short options). */
enum { PROJOPT_FROM = 0x1f01, PROJOPT_SITE, PROJOPT_TO, PROJOPT_OUTSIDE };
#define PROJOPTS_LONG                                                       \
	{ "project-from", required_argument, NULL, PROJOPT_FROM },          \
	{ "site", required_argument, NULL, PROJOPT_SITE },                  \
	{ "project-to", required_argument, NULL, PROJOPT_TO },              \
	{ "outside-from", required_argument, NULL, PROJOPT_OUTSIDE }

struct projopts {
	const char *from, *site; /* --project-from REPORT --site NAME+ */
	unsigned to;             /* --project-to N; 0: all of the target's CPUs */
	const char *outside_from; /* --outside-from REPORT: Z from its 1-task window */
};

/* 1 when c was one of PROJOPTS_LONG's (arg taken), 0 when not, -EINVAL when its value is bad. */
int projopts_option(int c, const char *arg, struct projopts *o);
/* After the options: -EINVAL when --site, --project-to or --outside-from comes without
 * --project-from, or --project-from without --site. */
int projopts_check(const struct projopts *o);
/* The help lines of the shared options, for a command's --help. */
void projopts_help(void);

/* sockets, cpus_per_socket and nmax (to, or 0: all) of in from topology (a name or a file);
 * opt: the option that gave to, for the error. */
int projopts_target(const char *topology, unsigned to, const char *opt, struct proj_input *in);
/* The priors of file, or of PROJOPTS_PRIORS in the checkout when file is NULL; *used: the
 * file's name to print. */
int projopts_priors(const char *file, struct proj_priors *pr, const char **used);
/* The projections of o->from's series (queued lock, 1000 draws, seed 1, to 4s-512c or
 * --project-to CPUs of it; Z from --outside-from's window when given): *out NULL when there
 * is no --project-from. */
int projopts_series(const struct projopts *o, json_t **out);
/* The one report of path, read (--project-from, --outside-from, lab project --from); *out
 * NULL and -EINVAL, said as "OPT PATH: why", when it is not one readable report. */
int projopts_report(const char *opt, const char *path, json_t **out);
