/* The projections of every series a lock-counted report holds, for `lab compare --json` and
 * the dashboard's scaling charts (`--project-from REPORT --site NAME+`).  For each kernel label
 * and workload with lock counts (info.lock_insns), the instructions per acquisition at one call
 * site at 1 task (analysis/projinput.h) go into the projection of analysis/projection.h; a
 * series whose site took more than one lock at more tasks, or has no counts there, is "not
 * projected" with the reason.  Every object says it is a projection; none enters a verdict.
 * Pure. */
#pragma once
#include <jansson.h>

#include "analysis/projection.h"
#include "util/strbuf.h"

#define PROJSERIES_SCHEMA "numalab.projections/1"

struct projseries_opts {
	const char *from;               /* the report's name, for the output */
	const char *site;               /* a call site's prefix, e.g. do_huge_pmd_anonymous_page+ */
	struct proj_input in;           /* all but insn_inside and insn_outside */
	const struct proj_priors *priors;
	struct proj_label label;
	const json_t *window;           /* NULL, or a deterministic run to take Z from (its 1-task
					 * window: analysis/projinput.h, projinput_window) */
	const char *window_from;        /* its name, for the output */
};

/* {"schema", "projection": true, "note", "from", "site", "series": [{"label", "workload",
 * "projected": bool, "why": null or the reason, "measured": {"site", "tasks", "boots",
 * "acquisitions", "insn_inside", "insn_outside", "outside_from" (the plugin's count, or
 * the window of the report named), "shared_tasks", "shared_locks", "shared_max_cpus"} or null, "projection": numalab.projection/1 or null}]}, the series in the
 * report's order of labels, then workloads.  NULL on ENOMEM. */
json_t *projseries_json(const json_t *report, const struct projseries_opts *o);

/* Lines for a text output, each marked a projection: the target, then per series its knee
 * and speed-up at the target's size, or why it was not projected.  sb's error on ENOMEM. */
int projseries_text(const json_t *doc, struct strbuf *sb);

/* The projected series of label and workload in doc (projseries_json's), or NULL. */
const json_t *projseries_find(const json_t *doc, const char *label, const char *workload);
