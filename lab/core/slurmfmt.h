/* What labd says to Slurm and reads back, without running anything (daemon/slurm.c runs the
 * commands).  Pure; golden-tested with real 22.05 output (lab/tests/data/slurm/).
 *
 *   sbatch:  one labd job is one batch job on one exclusively held node: --exclusive -N1,
 *            --constraint=CLASS (a host class is a node feature), --requeue (a node that dies
 *            gives the job back to the queue; `lab run --resume` keeps what finished),
 *            --signal=B:INT@120 (a run that goes long is interrupted and recorded, not
 *            killed), --time, and the output appended to one file (a requeued job adds to it).
 *   squeue --json --me -t all: a job's state, exit status, restarts and node (selected by id).
 *   sinfo --json: the nodes, their states and features. */
#pragma once
#include <jansson.h>
#include <stddef.h>

#include "util/error.h"

#define SLURM_FEATURE_MAX 63   /* a host class: [A-Za-z0-9_.-], 1..63 bytes */
#define SLURM_SIGNAL_LEAD_S 120 /* --signal=B:INT@120 */
#define SLURM_ARGV_MAX 48

struct slurm_batch {
	const char *script;        /* the batch script: runs its arguments (exec "$@") */
	const char *name;          /* --job-name */
	const char *output;        /* --output, appended to */
	const char *workdir;       /* --chdir */
	const char *constraint;    /* a node feature; NULL or "": any node */
	const char *partition;     /* NULL or "": the cluster's default */
	unsigned time_min;         /* --time, minutes (>= 1) */
	char *const *cmd;          /* the command the script runs, NULL-terminated */
};

/* The sbatch argv (NULL-terminated, pointing into b and bufs) into argv[SLURM_ARGV_MAX].
 * -E2BIG when the command is too long, -EINVAL for a constraint that is not a feature word. */
struct slurm_argv_bufs {
	char constraint[32 + SLURM_FEATURE_MAX], partition[96], time[32], name[160],
		output[4200], workdir[4200];
};
int slurmfmt_sbatch_argv(const struct slurm_batch *b, struct slurm_argv_bufs *bufs,
			 char *argv[SLURM_ARGV_MAX]);

/* 1 when s is a feature word (what --class takes). */
int slurmfmt_feature_ok(const char *s);

/* Where a Slurm job is, for labd. */
enum slurm_phase {
	SLURM_WAITING,   /* PENDING, CONFIGURING, REQUEUED, RESIZING, SUSPENDED ... */
	SLURM_RUNNING,   /* RUNNING, COMPLETING */
	SLURM_ENDED,     /* COMPLETED or FAILED: the exit status says how (lab's table) */
	SLURM_CANCELLED, /* CANCELLED */
	SLURM_LOST,      /* TIMEOUT, NODE_FAIL without requeue, BOOT_FAIL, OUT_OF_MEMORY,
			  * DEADLINE, PREEMPTED: Slurm ended it */
};

struct slurm_job_info {
	char state[32];            /* Slurm's word, e.g. "RUNNING" */
	enum slurm_phase phase;
	int exit_code, signal;     /* of the batch script, when ended */
	unsigned restarts;         /* how often Slurm requeued it */
	int requeue;               /* Slurm requeues it when its node fails */
	char nodes[256], reason[128];
};

/* The job id in squeue --json output into *out.  -ENOENT when Slurm does not know it (it
 * ended longer ago than MinJobAge), -EINVAL with err for output that is not squeue's. */
int slurmfmt_parse_job(const char *text, size_t len, long long id, struct slurm_job_info *out,
		       struct lab_error *err);
enum slurm_phase slurmfmt_phase(const char *state);

/* sinfo --json output as [{"name", "state", "features": [...], "reason", "cpus",
 * "alloc_cpus", "memory_mib", "free_mib"}] sorted by name (*out, new).  state is Slurm's,
 * its flags appended lower-case ("idle+drain").  -EINVAL with err for output that is not
 * sinfo's. */
int slurmfmt_parse_nodes(const char *text, size_t len, json_t **out, struct lab_error *err);
/* 1 when a node of nodes (slurmfmt_parse_nodes) has feature; its features, ", "-joined and
 * sorted, into have (for the error that names what there is). */
int slurmfmt_feature_known(const json_t *nodes, const char *feature, char *have, size_t len);
