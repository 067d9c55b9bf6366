/* A job as `lab run` takes it, from a file or from JSON (a job labd received): parsed, its
 * topology and its NUMA cost preset ("numa_cost") resolved, its memory plan checked against
 * this host and its workloads against each node of the guest (core/memfit.h).  One place, so that the CLI
 * and the daemon refuse a job with the same words and JSON path.  Nothing here prints. */
#pragma once
#include <jansson.h>

#include "core/job.h"
#include "util/error.h"

#define JOBLOAD_MAX_SIZE (4u << 20) /* a job file, or a job's HTTP body */

/* j parsed as a job whose references resolve from job_dir: a "topology" name is
 * job_dir/topologies/NAME.json, then configs/topologies/NAME.json found as util/checkout.h
 * says, a "numa_cost" name configs/numa/NAME.json found so; a path is taken from job_dir.  err's file is left to the caller.  On success the job
 * is the caller's to free (job_free). */
int jobload_json(const json_t *j, const char *job_dir, struct job *job, struct lab_error *err);
/* The job file at path (at most JOBLOAD_MAX_SIZE bytes), err naming the file, its kernels
 * replaced by kernels when not NULL (a "kernels" array, `lab run --kernel`).  sha256 (may be
 * NULL) gets the effective job's identity for `lab run --resume` (runresume_job_sha256);
 * *as_run (may be NULL) its JSON as run, whose hash that is.  A report keeps it (job.as_run),
 * so that `lab bundle` has the job that ran, not a file that may have changed since. */
int jobload_file_as_run(const char *path, const json_t *kernels, struct job *job,
			char sha256[65], json_t **as_run, struct lab_error *err);
/* A topology by name or path as a job's "topology" would resolve it from dir (a name:
 * dir/topologies/NAME.json, then configs/topologies/NAME.json), parsed into t (the caller's
 * to free with topology_free).  An unknown name lists the known ones. */
int jobload_topology(const char *ref, const char *dir, struct topology *t, struct lab_error *err);
/* The same topology's JSON as its file holds it (the caller's to decref). */
int jobload_topology_json(const char *ref, const char *dir, json_t **out, struct lab_error *err);
/* The file a job's "numa_cost" names, resolved from job_dir as the job's would be. */
int jobload_numa_path(const char *ref, const char *job_dir, char *path, size_t len,
		      struct lab_error *err);
