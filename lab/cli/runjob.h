/* What `lab run` does once its options are read: the job loaded (its kernels replaced by
 * --kernel SPECs, its repeats by --repeats), checked against the options, run or planned
 * (--dry-run), then the summary, an A/B's decision and the history.  `lab run` and `lab ab`
 * call it with their options; neither builds an argv for the other. */
#pragma once
#include <stddef.h>

#include "run/engine.h"

struct cli_run {
	struct run_opts o;        /* the engine's options, env included; o.job_file the job */
	char *const *kernels;     /* --kernel SPECs replacing the job's kernels (none: the job's) */
	size_t nr_kernels;
	unsigned repeats;         /* 0: the job's "repeats" */
	int resume;               /* --resume: o.out_dir's report continued */
	const char *interrupted;  /* --interrupted I,J, as given */
	int dry_run, json;
	int runs_status;          /* the exit code is the runs' alone, not an A/B's decision */
};

/* The exit code (util/exitcode.h): EXIT_RUN_FAILED when a run failed; else an A/B's decision
 * (report_decision_exit: EXIT_OK, EXIT_REGRESSION, EXIT_UNDECIDED), also with --json, unless
 * r->runs_status; else EXIT_OK.  EXIT_BAD_INPUT, EXIT_LAB_ERROR (each said).  *sum is the
 * engine's when it ran. */
int cli_run_job(struct cli_run *r, struct run_summary *sum);
