/* `lab run --resume`: a job's report continued after the lab was stopped part way (killed, or
 * labd restarted), so that no run is run twice and none is lost.  Pure: the earlier report
 * checked against the job, what becomes of each run index, an interrupted run's record.  The
 * engine (lab/run/engine.c, lab/run/resume.c) does the rest. */
#pragma once
#include <jansson.h>

#include "core/job.h"
#include "core/outcome.h"
#include "core/runreport.h"
#include "util/error.h"

#define RUNRESUME_REASON                                                                       \
	"interrupted: the lab was stopped while this run was under way; not run again"

/* What a resumed `lab run` does with one run index. */
enum runresume_action {
	RUNRESUME_RUN = 0,     /* not in the earlier report, or recorded there as infra-error
				* with end "host-lost" (its host was lost): run now */
	RUNRESUME_KEEP,        /* in the earlier report: kept as it is */
	RUNRESUME_INTERRUPTED, /* under way when the lab was stopped: recorded so, not run again */
};

struct runresume {
	/* The earlier report's, so that the resumed report stays the same report; "" without
	 * one (a fresh id is made). */
	char id[128], created[32];
	json_t *runs;                    /* its runs in index order: a new array */
	unsigned total;                  /* the job's runs: repeats x kernels */
	enum runresume_action *action;   /* [total] */
};

/* The job's identity in its reports (job.sha256): the sha256 of its JSON with keys sorted and
 * no whitespace, so that layout and key order do not matter.  The files it names (topology,
 * kernel variants) are not part of it. */
int runresume_job_sha256(const json_t *job_json, char out[65]);

/* "1,3": run indices, 0-based as runs[].index, each below total; repeats are dropped.
 * -EINVAL with err saying what is wrong with --interrupted.  *out is the caller's to free. */
int runresume_parse_indices(const char *s, unsigned total, unsigned **out, unsigned *n,
			    struct lab_error *err);

/* The plan of a resumed run.  rep: the earlier report.json as parsed (NULL: none was written
 * yet; every index runs except the interrupted ones).  The report must be numalab.report/1 of
 * this job (job.sha256 equal to job_sha256), with an id, a created time and runs[] of objects
 * whose integer index is below the job's runs, each once, with a known status.  A "precision"
 * job is refused when there is anything to resume (its rounds and time cap would be judged
 * anew).  -EINVAL with err naming the JSON path; res is the caller's to free either way. */
int runresume_plan(const json_t *rep, const struct job *job, const char *job_sha256,
		   const unsigned *interrupted, unsigned nr_interrupted, struct runresume *res,
		   struct lab_error *err);
void runresume_free(struct runresume *res);

/* The kept runs counted as the summary counts runs: how many, how many ok, the worst status
 * (with *worst as it was). */
void runresume_count(const struct runresume *res, unsigned *runs, unsigned *ok,
		     enum outcome *worst);

/* An interrupted run's record: rec says which run (index, repeat, job, host, kernel), and is
 * set to status infra-error, end "interrupted", RUNRESUME_REASON, no timings; its console is
 * run-I/console.log when console_kept (the killed run's log is there), else "". */
json_t *runresume_interrupted_json(struct run_record *rec, int console_kept);
