/* `lab show REPORT`: one report as text: its job, timing model and lab; one line a run (label,
 * outcome, boot and total seconds, the reason when not ok); the primary metrics per workload,
 * task count and label (each the mean over boots, harmonic for rates).  The decision of a
 * report of two or more labels is compare.h's (the caller appends compare_brief).  Pure. */
#pragma once
#include <jansson.h>

#include "analysis/series.h"
#include "util/strbuf.h"

/* doc is the parsed report, s its series.  0 or -ENOMEM. */
int show_report(const json_t *doc, const struct series_set *s, struct strbuf *sb);
