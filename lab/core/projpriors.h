/* The priors of the projection (analysis/projection.h): what a 2-core emulating host cannot
 * measure about the target machine, each a range with its basis, in one data file
 * (configs/projection/priors.json, schema numalab.projection-priors/1):
 *   {"schema": ..., "cpi": PRIOR, "clock_ghz": PRIOR, "line_local_ns": PRIOR,
 *    "line_remote_ns": PRIOR}
 *   PRIOR = {"lo": X, "hi": Y, "shape": "uniform" | "log-uniform", "basis": "why this range"}
 * cpi: cycles per instruction of the kernel's fault path on the target; clock_ghz: its clock;
 * line_local_ns and line_remote_ns: moving the lock's cache line to another CPU of the same
 * socket, of another socket.  One converter; errors name the JSON path.  Pure. */
#pragma once
#include <jansson.h>

#include "util/error.h"

#define PROJPRIORS_SCHEMA "numalab.projection-priors/1"

struct proj_prior {
	double lo, hi;       /* 0 < lo <= hi */
	int log;             /* drawn uniformly in log space */
	char basis[600];
};

struct proj_priors {
	struct proj_prior cpi, clock_ghz, line_local_ns, line_remote_ns;
};

int projpriors_from_json(const json_t *j, struct proj_priors *p, struct lab_error *err);
/* The priors as the file has them (sorted keys on output by the caller's dump). */
json_t *projpriors_to_json(const struct proj_priors *p);
