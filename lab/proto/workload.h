/* The workload registry: which workloads exist, which parameters each takes, their types,
 * bounds and defaults.  One table in workload.c; adding a workload means adding rows there.
 * Pure: validation only. */
#pragma once
#include <jansson.h>
#include <stddef.h>

#include "util/error.h"

enum workload_param_type {
	WORKLOAD_PARAM_ENUM,  /* string, one of choices; default choices[0] */
	WORKLOAD_PARAM_INT,   /* integer min..max; default def */
	WORKLOAD_PARAM_BOOL,  /* true/false; default def != 0 */
	WORKLOAD_PARAM_TASKS, /* array of task counts 1..vcpus, "per-cpu" = [vcpus] or
			       * "pow2" = [1, 2, 4, .. <= vcpus] (+ vcpus when it is not a power
			       * of two); default [vcpus]; always stored as an array */
};

#define WORKLOAD_MAX_TASK_COUNTS 64

struct workload_param {
	const char *name;
	enum workload_param_type type;
	const char *const *choices; /* ENUM: NULL-terminated */
	long long min, max, def;    /* INT; BOOL uses def */
	const char *help;
};

struct workload_def {
	const char *name;
	const char *help;
	const struct workload_param *params;
	size_t nr_params;
	/* Rules across parameters, on the filled-in object (path as for workload_params); NULL
	 * when there are none.  0 or error_set()'s -EINVAL. */
	int (*check)(const json_t *params, const char *path, struct lab_error *err);
};

const struct workload_def *workload_find(const char *name);
size_t workload_count(void);
const struct workload_def *workload_at(size_t i);
/* "pft, foo" into buf (for error messages). */
void workload_names(char *buf, size_t len);
/* Validate params (an object, or NULL for none) against w's table and return in *out a new
 * object holding every parameter, defaults filled in.  `path` is the params' JSON path (e.g.
 * "workloads[0].params"); vcpus bounds the task counts. */
int workload_params(const struct workload_def *w, const json_t *params, const char *path,
		    unsigned vcpus, json_t **out, struct lab_error *err);
