/* Workload metric samples gathered from reports (numalab.report/1) into series.  Pure: the
 * caller reads the files and hands the parsed documents in.
 *
 * A series is one (topology, workload, workload params without the task list and the
 * repetition count, task count, metric) for one kernel variant; its samples are every value of that metric across the
 * runs (boots) and repetitions of that variant, from every report added.  Only workloads
 * whose status is "ok" give samples; run outcomes are counted per variant.  Reports are
 * untrusted input: what is used is validated, and errors name the file and the JSON path. */
#pragma once
#include <jansson.h>
#include <stddef.h>

#include "analysis/deltas.h"
#include "analysis/noise.h"
#include "analysis/warndiff.h"
#include "util/error.h"

/* What a key or group is about: the same for every task count of one chart. */
struct series_what {
	char *topology;        /* "8 vCPUs (4s x 1d x 2c x 1t), 4 nodes" */
	char *workload;
	json_t *params;        /* the workload's params without "tasks" and "repetitions" */
	char *params_text;     /* the same as compact JSON, keys sorted */
	char *metric;
	char *unit;
	int higher;            /* 1 when higher is better */
};

struct series_key {
	size_t group;          /* index into series_set.groups */
	unsigned tasks;
};

struct series {
	size_t key, variant;
	double *v;             /* samples, in the order they were added */
	size_t *report;        /* the report each sample came from */
	size_t *boot;          /* the boot (run) each sample came from: the statistical unit;
				* repetitions inside one boot share its identifier */
	size_t n, cap;
};

struct series_variant {
	char *label;
	unsigned runs, failed; /* runs, and runs whose status is not "ok" */
	json_t *statuses;      /* run status -> count */
	json_t *workloads;     /* "topology / workload params" seen -> true (a set) */
	size_t reports;        /* reports that have runs of this variant */
	size_t last_report;    /* to count reports once */
	json_t *timings;       /* timing model of the runs (host.timing.model, else host.accel)
				* -> run count; comparing or pooling two models is refused */
	unsigned contended;    /* runs measured on a contended host (host.noise.contended) */
	json_t *classes;       /* host class of the runs (host.class, "" without a pool) -> run
				* count; comparing two classes is refused */
	unsigned host_cpus;    /* the fewest CPUs a host of its runs had (host.noise.before.
				* cpus), 0 unknown: what a host-clock model can show */
	unsigned lock_insns;   /* runs with the lock-instruction counter (info.lock_insns): a
				* slower guest, never compared with runs without it */
	unsigned profiled;     /* runs under a host-clock model (tcg) with the instruction
				* profile (info.profile, or the run's profile_error): its plugin
				* slows the guest there, so such a side is compared with its
				* own kind only; under a deterministic model it changes no
				* figure and is not counted */
	unsigned unprofiled;   /* runs under a host-clock model with results and no profile
				* (a run that failed before its results is neither) */
	unsigned lockdep;      /* runs of a lock-counting twin (a result with info.lock_stat:
				* lockdep ran); a twin is never compared with a plain kernel */
	struct warn_tally warn; /* the kernel warnings its runs printed (analysis/warndiff.h) */
	struct deltas_tally deltas; /* per workload and boot, the profile and counters that say
				     * why a figure moved (analysis/deltas.h) */
};

struct series_report {
	char *file;
	json_t *doc;           /* a reference to the whole report */
	const char *id, *created, *job; /* from doc; "" when absent */
	long long created_t;   /* seconds since the epoch; -1 unless "created" is YYYY-MM-DDTHH:MM:SSZ */
};

struct series_set {
	struct series_report *reports;
	size_t nr_reports, cap_reports;
	struct series_variant *variants;
	size_t nr_variants, cap_variants;
	struct series_what *groups;
	size_t nr_groups, cap_groups;
	struct series_key *keys;
	size_t nr_keys, cap_keys;
	struct series *series;
	size_t nr_series, cap_series;
	size_t nr_boots;       /* runs read: the next boot identifier */
	json_t *index;         /* private: lookup strings -> indexes */
	/* Per key, the threshold of noise its history taught (analysis/noise.h), set by the
	 * caller after reading (the history is not the reports'); NULL: none known.  Shown
	 * beside the fixed threshold; with use_learned, a row whose key has one is judged by
	 * it (the job's "threshold": "learned", `lab compare --threshold learned`). */
	struct noise_learned *learned;
	int use_learned;
	/* The boots were collected sequentially, stopping once decided (analysis/sequential.h):
	 * each comparison's intervals are at 1 - seq_alpha and a change needs q < seq_alpha, so
	 * that looking after every round keeps the error at 5 %.  0: a fixed number of boots. */
	double seq_alpha;
	unsigned seq_looks;    /* the most looks the design allowed (its K) */
};

void series_init(struct series_set *s);
void series_free(struct series_set *s);
/* Add the runs of one parsed report.  variant names every run's variant; NULL takes each
 * run's own (series_run_label).  On error (-EINVAL, with err naming file and path) the set
 * may hold part of the report: callers stop. */
int series_add_report(struct series_set *s, json_t *doc, const char *file, const char *variant,
		      struct lab_error *err);
/* A run's timing model: host.timing.model, else host.accel (reports from before timing
 * models were recorded ran "tcg" or "kvm"), else "unknown". */
const char *series_run_timing(const json_t *run);
/* The one timing model of variant v, or NULL when its runs mix models (or it has none). */
/* The host class of a run (host.class), "" when it has none. */
const char *series_run_class(const json_t *run);
/* The one class of v's runs, NULL when they mix classes. */
const char *series_variant_class(const struct series_variant *v);
const char *series_variant_timing(const struct series_variant *v);
/* A run's variant label: kernel.label (the job's name for that kernel), else kernel.variant,
 * else kernel.release, else the base name of kernel.image, else "unknown kernel".  Points
 * into run or buf. */
const char *series_run_label(const json_t *run, char *buf, size_t len);
/* The labels (series_run_label) of the runs of the parsed reports docs[0..n), comma-separated,
 * in order of first appearance, cut to fit buf; *count gets how many distinct ones. */
void series_labels(json_t *const *docs, size_t n, char *buf, size_t len, unsigned *count);
/* The series of key k for variant v, or NULL. */
const struct series *series_get(const struct series_set *s, size_t key, size_t variant);
/* Key indexes sorted by topology, workload, params, task count, metric: the order tables
 * list them in.  Caller frees; NULL when out of memory (or no keys). */
size_t *series_sorted_keys(const struct series_set *s);
/* One line naming a key, e.g. "pft {"mode":"threads"} 8 tasks faults_per_s". */
void series_key_name(const struct series_set *s, size_t key, char *buf, size_t len);
/* True when rates in this unit ("/s" at the end) are averaged harmonically. */
int series_unit_is_rate(const char *unit);
