/* A host class option's value (hostclass.h). */
#include <stdio.h>

#include "cli/hostclass.h"
#include "core/slurmfmt.h"

int hostclass_take(const struct cli_opt *o, const char *arg, struct opt_error *e)
{
	char what[96];

	if (!slurmfmt_feature_ok(arg)) {
		snprintf(what, sizeof(what), "a word of [A-Za-z0-9_.-], at most %d bytes",
			 SLURM_FEATURE_MAX);
		return opt_invalid(o, arg, what, e);
	}
	*(const char **)o->value = arg;
	return 0;
}
