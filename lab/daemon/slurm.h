/* Slurm's commands, run for labd (argv arrays, never a shell): submit a batch job, ask where a
 * job is, signal or cancel it, list the nodes.  The cluster is the one SLURM_CONF (or Slurm's
 * default configuration) names.  What the arguments and output mean: core/slurmfmt.h. */
#pragma once
#include <jansson.h>

#include "core/slurmfmt.h"
#include "util/error.h"

#define SLURM_CMD_TIMEOUT_S 30.0
#define SLURM_OUTPUT_MAX (4u << 20)
#define SLURM_QUERY_MAX_AGE_S 1.0 /* slurm_query answers from a listing this fresh */

/* sbatch: the job id into *id.  -EINVAL with err saying what sbatch said (an unknown
 * feature, a partition that does not exist), -ENOENT when sbatch is not installed. */
int slurm_submit(const struct slurm_batch *b, long long *id, struct lab_error *err);
/* Where job id is, from one listing of this user's jobs shared by all threads (at most
 * SLURM_QUERY_MAX_AGE_S old).  -ENOENT when Slurm no longer knows it. */
int slurm_query(long long id, struct slurm_job_info *out, struct lab_error *err);
/* scancel: soft, SIGINT to the batch script only (lab run records the run it is in and
 * destroys its guest); else the whole job, Slurm's way (SIGTERM, then SIGKILL). */
int slurm_cancel(long long id, int soft, struct lab_error *err);
/* The cluster's nodes (slurmfmt_parse_nodes). */
int slurm_nodes(json_t **out, struct lab_error *err);
