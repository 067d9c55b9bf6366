/* What a `lab bisect` was asked to do, kept beside its log (DIR/params.json, schema
 * numalab.bisect-params/1) so that `lab bisect resume DIR` continues the same bisection.  One
 * converter each way; pure. */
#pragma once
#include <jansson.h>
#include <limits.h>

#include "util/error.h"

#define BISECT_PARAMS_SCHEMA "numalab.bisect-params/1"
/* Boots per measurement: the default and the most. */
#define BISECT_DEFAULT_BOOTS 3
#define BISECT_MAX_BOOTS_STEP 50
/* The change a bisection follows, in %, by default: a bisection is for a change that is
 * there, not for the smallest one a comparison can decide. */
#define BISECT_DEFAULT_THRESHOLD_PCT 2.0

struct bisect_params {
	char job_file[PATH_MAX];      /* absolute */
	char job_sha256[65];          /* of its bytes when the bisection started */
	char variant_file[PATH_MAX];  /* absolute: the variant file the steps are made from */
	char variant[64];             /* its name */
	char repo[PATH_MAX];          /* absolute: the variant's git source */
	char good_ref[256], bad_ref[256];   /* as given */
	char good[65], bad[65];             /* the commits they named */
	char workload[32];            /* "" the job's first workload */
	char metric[64];              /* "" its first primary metric */
	unsigned tasks;               /* 0 the largest task count */
	double threshold_pct;
	unsigned boots;               /* per measurement */
	unsigned max_tries;
	int check_revert;
	char timing[16];              /* "auto", "kvm", "tcg", "icount" */
	int parallel;                 /* run_opts.parallel */
};

json_t *bisect_params_to_json(const struct bisect_params *p);
/* -EINVAL with err naming the JSON path. */
int bisect_params_from_json(const json_t *j, struct bisect_params *p, struct lab_error *err);
