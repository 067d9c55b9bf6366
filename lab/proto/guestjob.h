/* The guest job (numalab.guestjob/1, runners/PROTOCOL.md): what the host hands the guest agent
 * as /numalab/job.json.  The host builds it with guestjob_build() (from a job:
 * lab/core/job.c, job_guestjob()); the agent reads it with guestjob_validate(), which a host
 * unit test also runs on every job the host builds.  Every key is spelled once, in
 * guestjob.c.  Pure. */
#pragma once
#include <jansson.h>
#include <stddef.h>

#include "proto/fault.h"
#include "util/error.h"

/* The longest a workload may run in the guest (a week): the host's job check and the agent's
 * reader both hold timeouts to it. */
#define GUESTJOB_MAX_TIMEOUT_S (7 * 86400.0)
#define GUESTJOB_SCHEMA "numalab.guestjob/1"
#define GUESTJOB_MAX_BYTES (1024 * 1024)  /* the file */
#define GUESTJOB_MAX_WORKLOADS 64
#define GUESTJOB_MAX_PARAMS 64            /* keys of one workload's params */
#define GUESTJOB_MAX_ARRAY 4096           /* entries of one array param */
#define GUESTJOB_MAX_PERF_EVENTS 16
#define GUESTJOB_MAX_RUN_ID 128           /* bytes */

struct guestjob_workload {
	const char *name;       /* a runner: /numalab/bin/NAME */
	const json_t *params;   /* an object, or NULL for none */
	double timeout_s;       /* the agent kills the runner after this long; 0 = never */
	int no_aslr;            /* "aslr": false: the agent runs it with ADDR_NO_RANDOMIZE */
};

/* Pointers are borrowed: from the caller for guestjob_build(), from the validated document for
 * guestjob_validate(). */
struct guestjob {
	const char *run_id;
	enum fault fault;
	enum fault_after fault_after;
	double heartbeat_s;
	const json_t *knobs;        /* normalised (lab/core/knobs.c), or NULL for none */
	int online_after_boot;      /* the lab booted with maxcpus=: online the others */
	const json_t *perf_stat;    /* an array of perf event names, or NULL for none */
	size_t nr_workloads;
	struct guestjob_workload workloads[GUESTJOB_MAX_WORKLOADS];
};

/* The guest job's JSON (a new reference), or NULL when out of memory.  Optional keys appear
 * only when set (knobs, online_after_boot, fault_after other than hello, perf_stat), as
 * older agents expect. */
json_t *guestjob_build(const struct guestjob *gj);
/* Check root against the schema and fill *out with pointers into it.  Sizes are bounded,
 * names plain ([a-z0-9_-]), workload names known (lab/proto/workload.c), params only scalars
 * and flat arrays (they become a runner's argv), knobs as knob_check_guest() says.  0, or
 * -EINVAL with err's path and msg set. */
int guestjob_validate(const json_t *root, struct guestjob *out, struct lab_error *err);
/* A perf event name perf cannot read as an option: [A-Za-z0-9][A-Za-z0-9_.:-]{0,62}. */
int guestjob_perf_event_ok(const char *s);
