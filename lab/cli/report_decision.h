/* One report's A/B decision for commands that end with it (`lab run` of a job with two or
 * more kernels or labels, `lab show`): every label against the first, as `lab compare REPORT`
 * prints it by default. */
#pragma once
#include <jansson.h>

#include "analysis/series.h"
#include "analysis/compare.h"

/* The comparisons of s's labels (compare_all, by the threshold the report's job set; s gets
 * its series' learned thresholds, cli/learned.h) printed with compare_brief to stdout.  *d gets
 * the decision.  0; 1 when there is nothing to compare (one label); -ENOMEM, -EINVAL (said on
 * stderr, e.g. labels that ran different workloads). */
int report_decision_print(struct series_set *s, enum compare_decision *d);
/* The same decision, nothing printed: 0 with *d; 1 (one label), -ENOMEM, -EINVAL. */
int report_decision_get(struct series_set *s, enum compare_decision *d);
/* The same comparisons as `lab compare REPORT --json` gives them (numalab.compare/2): 0 with
 * *out; 1 (one label), -ENOMEM, -EINVAL (no two labels to compare). */
int report_decision_json(struct series_set *s, json_t **out);
/* A decision's exit code, for every command that prints one (util/exitcode.h): EXIT_OK,
 * EXIT_REGRESSION, EXIT_UNDECIDED. */
int report_decision_exit(enum compare_decision d);
