/* labd's worker with the Slurm backend: a job is one sbatch job (core/slurmfmt.h says which
 * options and why), watched until it ends.  Its output file, appended to across requeues,
 * gives the job's progress lines as `lab run`'s own output does with the local worker; its
 * state and exit status come from squeue.  A cancel is SIGINT to the batch script (lab run
 * records the run it is in and destroys its guest), then scancel after a grace period.  When
 * labd stops, the Slurm job goes on: the next labd finds it by the id the queue keeps. */
#pragma once
#include <stdint.h>

#include "daemon/queue.h"

#define WORKER_SLURM_POLL_S 0.5
#define WORKER_SLURM_CANCEL_GRACE_S 60.0
/* A requeueable job whose node failed (NODE_FAIL) is Slurm's to put back in the queue: how
 * long labd waits for that before it calls the job failed. */
#define WORKER_SLURM_REQUEUE_WAIT_S 300.0

struct worker_slurm_job {
	int64_t id;                 /* labd's job */
	long long known;            /* its Slurm job from before (labd restarted); 0: none */
	const char *script;         /* the batch script: exec "$@" */
	const char *output;         /* the job's output file */
	const char *workdir;
	const char *host_class;     /* a node feature; NULL: any node */
	const char *partition;      /* NULL: the cluster's default */
	unsigned time_min;
	char *const *cmd;           /* lab run ... */
};

struct worker_slurm_hooks {
	void (*line)(void *ud, const char *line); /* a line of the job's output */
	void (*log)(void *ud, const char *msg);   /* a line for labd's log */
	int (*stop)(void *ud);     /* 1: the job's cancel was asked; 2: labd is stopping */
	void (*submitted)(void *ud, long long slurm_id); /* record the Slurm job id */
	void *ud;
};

/* How a job ran, either backend (worker.c's local one fills it too). */
struct worker_job_end {
	enum queue_state state;     /* DONE, FAILED or CANCELLED */
	int exit_code;              /* lab run's, -1 unknown */
	int left_running;           /* labd stopped: the Slurm job goes on, the queue keeps it */
	char why[512];
};

void worker_slurm_run(const struct worker_slurm_job *j, const struct worker_slurm_hooks *h,
		      struct worker_job_end *end);
