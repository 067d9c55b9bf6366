/* What `lab run`'s engine is asked (struct run_opts) and what it answers (struct
 * run_summary): the engine's API (engine.h) and the state its parts share (context.h) both
 * speak of them, so they live below both. */
#pragma once
#include <jansson.h>
#include <limits.h>

#include "core/outcome.h"
#include "core/timing.h"
#include "run/env.h"

struct runresume; /* core/runresume.h */


struct run_opts {
	struct run_env env;       /* where and how the guests run */
	const char *job_file;
	const char *out_dir;      /* NULL: reports/<id> */
	enum timing_model timing; /* TIMING_AUTO: the job's "timing" */
	unsigned quantum;         /* the contention model's round; 0: the job's "quantum", else
				   * TIMING_QUANTUM_DEFAULT */
	int parallel;             /* guests at once: 0 the job's "parallel", -1 auto, N > 0 */
	int keep_initrd;
	/* Under icount every boot gets its own seed (QEMU's -seed, recorded as runs[].seed):
	 * random, or with seed_set run i gets seed + i, so a recorded seed reproduces its boot. */
	int seed_set;
	unsigned long long seed;  /* 0..RUN_SEED_MAX */
	/* `lab rerun`: run i boots with seeds[i] (a report's own), before seed_set's rule. */
	const unsigned long long *seeds;
	unsigned nr_seeds;
	int comparison;           /* the runs are one side of a comparison made elsewhere (a
				   * bisection step): the timing model is chosen as for an A/B job */
	/* `lab run --resume`: what becomes of each run (core/runresume.h): the earlier report's
	 * runs kept as they are and never run again, the ones under way when the lab was stopped
	 * recorded as interrupted, the others run; its id and created time kept.  NULL: a
	 * fresh run. */
	const struct runresume *resume;
	const char *job_sha256;   /* the report's job.sha256 (runresume_job_sha256); NULL: none */
	const json_t *job_as_run; /* the job's JSON whose sha256 that is (job.as_run); NULL: none */
	const char *job_dir;      /* the absolute directory its references resolved from */
};

struct run_summary {
	char out_dir[PATH_MAX];
	char report[PATH_MAX];
	enum outcome status;
	unsigned runs, ok;
	unsigned planned;         /* runs the job called for: repeats x kernels, or the rounds a
				   * "precision" job ran x kernels */
};
