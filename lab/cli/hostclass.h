/* A host class on the command line, `lab run --host-class` and `lab job submit --class`: a
 * Slurm node feature (core/slurmfmt.h), which labd puts in a query string and passes on to
 * `lab run` as it is, so it is a word, checked here once in one wording. */
#pragma once
#include "util/parseopt.h"

/* CLI_OPT_CALL of an option whose value is a const char *: arg stored there when it is a
 * word of [A-Za-z0-9_.-] of at most SLURM_FEATURE_MAX bytes; else -EINVAL, e filled. */
int hostclass_take(const struct cli_opt *o, const char *arg, struct opt_error *e);
