/* `lab run --dry-run JOB`: the plan of a job, everything resolved and checked as `lab run`
 * would (the job's JSON and memory fit by the caller, its kernels, variants and image
 * recipe here), with nothing built, booted or written: each kernel cached or to build, the
 * image, the timing model it would choose and why, the run order, and an estimate of the
 * wall time from the newest earlier report of the job in the history. */
#pragma once
#include "core/job.h"
#include "run/request.h"
#include "util/error.h"
#include "util/strbuf.h"

/* 0 with the plan appended to sb; -EINVAL with err naming the file and JSON path. */
int run_plan(const struct run_opts *o, const struct job *job, struct strbuf *sb,
	     struct lab_error *err);
/* The median seconds of an ok run in the newest report of a job of job's name in the history
 * under state_dir (*run_s), and that report's id.  -ENOENT when there is none. */
int plan_estimate(const char *state_dir, const struct job *job, double *run_s, char *report,
		  size_t len);
