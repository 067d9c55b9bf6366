/* labd's worker: takes queued jobs one at a time (one measuring guest on the host at a
 * time; with the Slurm backend labd starts several workers, one per job it keeps in Slurm at
 * once, and Slurm places them) and runs each as a child `lab run` (its own process group,
 * killed with labd), whose
 * progress lines become the job's events.  A job cut short by a crash of labd continues with
 * its next run (`lab run --resume --interrupted`); cancel and shutdown interrupt the child,
 * which destroys its guest and records the run it was in. */
#pragma once
#include <pthread.h>
#include <signal.h>
#include <stdint.h>

#include "daemon/queue.h"

struct worker {
	struct queue *q;
	const char *lab_exe;
	const char *state_dir;
	double grace_s;                  /* on stop: how long the current job may go on */
	void (*log)(const char *line);   /* labd's log (may be NULL): one line, no newline */
	int slurm;                       /* each job a Slurm batch job (worker_slurm.h) */
	const char *slurm_script;        /* its batch script (exec "$@") */
	const char *slurm_partition;     /* NULL: the cluster's default */
	unsigned slurm_time_min;         /* --time when the history has no estimate */
	const char *slurm_node_state;    /* lab run's --state on the node: its own, not labd's */
	/* the rest is the worker's own */
	pthread_t thread;
	int started;
	volatile int stopping;
	double stop_at;                  /* when stopping: the end of the grace period */
	volatile sig_atomic_t interrupt; /* interrupts the child `lab run` */
	volatile int64_t current;        /* the job under way, 0 none */
	pthread_mutex_t wlock;           /* with wcond: the watcher learns at once that the job */
	pthread_cond_t wcond;            /* under way ended */
	int64_t job;                     /* for the line parser: the job being run */
	unsigned runs_ended;
};

/* Start the worker thread on w (the fields above "the rest" filled in). */
int worker_start(struct worker *w);
/* Stop n workers: none takes another job; each job under way may finish within grace_s,
 * else it is interrupted (it stays "running" in the queue, so the next labd continues it).
 * All are told first, then joined, so that no idle one claims a job while another stops. */
void worker_stop(struct worker *w, unsigned n);
/* The job under way, 0 when none (for the API's health). */
int64_t worker_current(const struct worker *w);

/* What a progress line of `lab run` says, for the event log (pure; unit-tested): the event
 * type ("run-started", "run-ended" or "progress") and its data (a new reference). */
json_t *worker_line_event(const char *line, const char **type);
