/* `lab bisect`: a kernel variant with a git source, bisected between a good and a bad commit
 * on one series of a job.  The decisions are lab/core/bisect.h's; this module does the work:
 * for each commit the engine asks for it writes the variant at that commit (and, to check a
 * culprit, the bad end with the culprit's reverse diff as one more patch), runs the job with it
 * (`lab run`'s pipeline: build, boots, report) and classifies the boots against the ends'
 * (lab/analysis/bisect_class.h).
 *
 * The bisection's directory holds
 *   params.json       what was asked (lab/core/bisect_params.h)
 *   NAME.json         the variant the steps are made from (paths made absolute)
 *   bisect.log        the replayable log, rewritten after every step
 *   bisect.json       the result (schema numalab.bisect/1) with every step, its directory,
 *                     the series followed, how it was measured and what it cost; once a
 *                     culprit is named, why it moved: "culprit_deltas" (the deltas of `lab
 *                     compare` of the culprit against its parent, from the verify steps'
 *                     reports, else the last of each commit) or "culprit_deltas_absent"
 *   steps/NNN-SHA12-ROLE/   one `lab run` output per step: report.json, run-*, NAME.json
 * An interrupted bisection resumes from bisect.log: recorded steps are kept, a step that was
 * under way is measured again. */
#pragma once
#include <limits.h>

#include "core/bisect.h"
#include "core/bisect_params.h"
#include "core/job.h"
#include "run/env.h"

struct bisect_run_opts {
	const struct bisect_params *p;
	const struct job *job;       /* parsed from p->job_file */
	const char *dir;             /* the bisection's directory */
	int resume;                  /* continue DIR/bisect.log */
	struct run_env env;          /* where and how the guests run, as for `lab run` */
};

struct bisect_run_summary {
	enum bisect_answer answer;   /* BISECT_ANSWER_NONE: interrupted */
	char reason[512];
	char culprit[65], culprit_subject[BISECT_SUBJECT_MAX + 8];  /* "" when none */
	char series[512];            /* the series followed, in words */
	char why[4096];              /* a named culprit's deltas against its parent, the lines of
				      * deltas_text (at most 24 of ~100 columns: they fit); "" none */
	char result[PATH_MAX + 32];  /* bisect.json */
	char log[PATH_MAX + 32];     /* bisect.log */
	unsigned commits, measurements, builds, boots;
	double build_s, wall_s;
};

/* 0 when the bisection ended (sum->answer) or was interrupted (answer NONE, -EINTR); -EINVAL
 * with msg for a bisection that cannot start (the repository, the refs, a resumed log that
 * does not fit); another negative errno when the lab itself failed (msg says why).  What was
 * measured is kept in dir either way. */
int bisect_run(const struct bisect_run_opts *o, struct bisect_run_summary *sum, char *msg,
	       size_t len);
