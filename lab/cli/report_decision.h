/* One report's A/B decision for commands that end with it (`lab run` of a job with two or
 * more kernels or labels, `lab show`): every label against the first, as `lab compare REPORT`
 * prints it by default. */
#pragma once
#include <jansson.h>

#include "analysis/series.h"
#include "analysis/compare.h"

/* The comparisons of s's labels (compare_all) printed with compare_brief to stdout.  *d gets
 * the decision.  0; 1 when there is nothing to compare (one label); -ENOMEM, -EINVAL (said on
 * stderr, e.g. labels that ran different workloads). */
int report_decision_print(const struct series_set *s, enum compare_decision *d);
/* The same decision of the report at dir, nothing printed: 0 with *d; -EINVAL (not one
 * readable report of two or more labels, or labels that cannot be compared). */
int report_decision_of(const char *dir, enum compare_decision *d);
