/* The workload registry, the one contract between a job's workloads and the runners: which
 * workloads exist, which parameters each takes (type, bounds, default, help), the rules across
 * parameters, and which metrics of a runner's output decide an A/B verdict.  One table in
 * workload.c; adding a workload or a parameter means adding rows there.  The lab validates a
 * job's params with it, and the runners (linked with lab/proto) derive their options from it
 * (wopts.h) and validate them with the same workload_params(), so that a runner refuses
 * exactly what the lab refuses.  Pure: validation only. */
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
	WORKLOAD_PARAM_STRING, /* a word or path of 1..max bytes of [A-Za-z0-9._/+=-], not
				* starting with "-" (it becomes an argument of a guest program,
				* never an option of it); default def_str */
};

#define WORKLOAD_MAX_TASK_COUNTS 64

struct workload_param {
	const char *name;
	enum workload_param_type type;
	const char *const *choices; /* ENUM: NULL-terminated */
	long long min, max, def;    /* INT; BOOL uses def; STRING: max is the length */
	const char *def_str;        /* STRING */
	const char *help;
};

/* The guest's page size the rules assume (x86-64 guests: 4 KiB), for checks such as "each
 * task gets at least a page"; the runner still uses the page size it finds. */
#define WORKLOAD_PAGE_SIZE 4096

/* What a figure can move by besides the instructions its code path runs.  A timing model
 * that cannot show a mechanism a series depends on (core/timing.h, "shows") makes a verdict
 * on it "outside this model" (analysis/modelfit.h), never "no change". */
enum workload_mech {
	WORKLOAD_MECH_CONTENTION = 1 << 0, /* threads on different CPUs wait for one another
					    * (a lock another CPU holds) */
	WORKLOAD_MECH_PARALLEL = 1 << 1,   /* throughput from threads running at once */
};

/* A metric of the runner's output (PROTOCOL.md, "Runner output") that decides an A/B verdict. */
struct workload_metric {
	const char *name;   /* key in results[].metrics */
	const char *better; /* "higher" or "lower", as the runner reports it */
	unsigned mechs;     /* WORKLOAD_MECH_* it depends on once more than one thread runs */
	int only_mechs;     /* 1: it exists to measure those (a model without them says
			     * nothing about it); 0: it also counts instructions, so a change a
			     * model without them finds is real, a "no change" is not */
};

struct workload_def {
	const char *name;
	const char *help;
	const struct workload_param *params;
	size_t nr_params;
	/* Rules across parameters, on the filled-in object (path as for workload_params); NULL
	 * when there are none.  0 or error_set()'s -EINVAL. */
	int (*check)(const json_t *params, const char *path, struct lab_error *err);
	/* The primary metrics, most important first; at least one. */
	const struct workload_metric *primary;
	size_t nr_primary;
	/* Its other metrics: what they depend on with more than one thread, as above. */
	unsigned other_mechs;
	/* Threads at once for a series of tasks (params as the series has them, "tasks"
	 * removed); NULL: tasks. */
	unsigned (*threads)(const json_t *params, unsigned tasks);
};

/* The membind choices every sweep workload shares; the runners' harness reports a task's
 * policy by its index here (runners/rt_bench.h, enum rt_membind). */
extern const char *const workload_membind_choices[];

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
/* The same with task counts allowed up to max_tasks (>= vcpus) instead of vcpus: a runner
 * resolves "per-cpu" and "pow2" against the CPUs it may use, but runs more tasks than CPUs
 * when told to (they share CPUs), so a guest whose CPUs did not all come online still runs
 * what the lab accepted for the topology. */
int workload_params_max(const struct workload_def *w, const json_t *params, const char *path,
			unsigned vcpus, unsigned max_tasks, json_t **out, struct lab_error *err);
/* The primary metrics of the workload called name (*n of them), NULL when there is no such
 * workload. */
const struct workload_metric *workload_primary(const char *name, size_t *n);
/* What metric of the workload called name depends on when threads (workload_def.threads)
 * run at once: WORKLOAD_MECH_* bits (0 for one thread or an unknown workload); *only as
 * workload_metric.only_mechs. */
unsigned workload_mechs(const char *name, const char *metric, const json_t *params,
			unsigned tasks, int *only);
/* Whether metric is one of the primary metrics of the workload called name. */
int workload_metric_is_primary(const char *name, const char *metric);
/* 1 when value is the default of w's parameter called name (a filled-in object's member:
 * what `lab compare` leaves out of a workload's heading), 0 when it differs or there is no
 * such parameter (task counts never are). */
int workload_param_is_default(const struct workload_def *w, const char *name,
			      const json_t *value);
