/* What lab project, lab compare and lab report share to project: their options (one table,
 * parsed once), the target's size from a topology, the priors file, and --project-from's
 * projections of a lock-counted report (analysis/projseries.h).  Each function prints its own error (cli_err) and returns
 * -EINVAL for bad input, -ENOMEM. */
#pragma once
#include <jansson.h>

#include "analysis/projection.h"
#include "util/parseopt.h"

#define PROJOPTS_PRIORS "configs/projection/priors.json"
#define PROJOPTS_TOPOLOGY "4s-512c" /* the largest shipped topology: the default target */

struct projopts {
	const char *from, *site; /* --project-from REPORT --site NAME+ */
	unsigned to;             /* --project-to N; 0: all of the target's CPUs */
	const char *outside_from; /* --outside-from REPORT: Z from its 1-task window */
};

/* The projection's options, one group (util/parseopt.h) that lab compare and lab report
 * join: --project-from REPORT, --site NAME+, --outside-from REPORT, --project-to N. */
extern const struct cli_opt projopts_opts[];
/* Its --site NAME+ and --outside-from REPORT alone: lab project's, beside its own --from. */
extern const struct cli_opt projopts_site_opts[];

/* Before cli_parse: none of the group's options given. */
void projopts_init(void);
/* After cli_parse: the group's options as given. */
void projopts_get(struct projopts *o);
/* After the options: -EINVAL when --site, --project-to or --outside-from comes without
 * --project-from, or --project-from without --site. */
int projopts_check(const struct projopts *o);

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
