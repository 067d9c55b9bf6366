/* `lab rerun BUNDLE --patch FIX [--on LABEL] [--against LABEL]`: a fix tried against a finding.
 * The kernel labelled LABEL (default: the bundle's last, the B side of an A/B) gets FIX on top
 * of its patches (`lab run --kernel LABEL-fix=VARIANT+FIX`, the derived variant `lab ab` makes,
 * under STATE/variants/); only that kernel is booted, with
 * the seeds of LABEL's original boots (under icount and quantum the same boots, the fix the one
 * difference); then the original boots of --against (default: the first label) are side A and
 * the fixed kernel's side B: "still regressed", "fixed" or "undecided".
 *
 * DIR/fix/ gets report.json (the original A boots and the fixed kernel's, one A/B report that
 * `lab compare` and `lab mail` read) and fix.json (schema numalab.fix/1: the finding, the fix
 * and the verdict; `lab mail DIR/fix` writes the follow-up from both). */
#pragma once
#include <jansson.h>

#include "cli/runjob.h"
#include "core/bundle.h"

struct rerun_fix {
	const char *patch;   /* FIX, as given */
	const char *on;      /* NULL: the last kernel */
	const char *against; /* NULL: the first kernel */
	const char *bundle;  /* the bundle as the user named it (for fix.json and the mail) */
};

/* The exit code: EXIT_OK fixed, EXIT_REGRESSION still regressed, EXIT_UNDECIDED, or
 * EXIT_BAD_INPUT / EXIT_LAB_ERROR / EXIT_RUN_FAILED (said). run's env, model and quantum are
 * set; its job, kernels, seeds and repeats are set here. */
int cli_rerun_fix(const struct rerun_fix *f, const char *dir, const struct bundle_manifest *m,
		  const json_t *orig, struct cli_run *run);
