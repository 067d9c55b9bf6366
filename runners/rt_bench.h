/* The measurement harness shared by the workload runners (pft, memscale, page_fault1/2/3,
 * mmap_contention): option tables, CPUs and their nodes, memory policy, the move_pages()
 * placement check, perf counters, /proc/vmstat deltas, running a team of threads or processes
 * through ready/go/done gates, and the JSON result entries built from all of that.
 *
 * Everything here also runs on the host (the tests do), so nothing assumes it is in the guest. */
#pragma once
#include <stdint.h>
#include <stdio.h>

#include "rt.h"

/* ---- options ------------------------------------------------------------------------------- */

enum rt_opt_type {
	RT_OPT_FLAG,   /* int: --NAME present = 1 (the agent omits false booleans) */
	RT_OPT_ENUM,   /* int: index into choices */
	RT_OPT_ULONG,  /* unsigned long in min..max */
	RT_OPT_TASKS,  /* struct rt_tasks */
	RT_OPT_STRING, /* const char * */
};

/* A task-count list: explicit counts, or "per-cpu" / "pow2" resolved against the CPUs later. */
struct rt_tasks {
	unsigned long *v;
	size_t n;
	int per_cpu, pow2;
};

#define RT_MAX_TASKS 4096UL
#define RT_MAX_COUNTS 64UL

struct rt_opt {
	const char *name; /* long option without "--"; "_" of the job param becomes "-" */
	enum rt_opt_type type;
	void *dest;
	const char *const *choices; /* ENUM, NULL-terminated */
	unsigned long min, max;     /* ULONG */
	const char *help;
	int hidden;                 /* host-only option: not echoed in "params" */
};

struct rt_cli {
	int json, table;
	int table_style; /* index into the runner's own style list; 0 = its default */
};

/* Parse argv against opts plus --json, --table[=STYLE] and --help.  Bad input exits 2 with
 * "PROG: --OPT: why" on stderr (the protocol's "bad parameters").  styles may be NULL. */
void rt_opts_parse(const char *prog, const char *summary, const struct rt_opt *opts, size_t n,
		   const char *const *styles, int argc, char **argv, struct rt_cli *cli);
/* The options' values as the "params" object of the output (hidden ones left out). */
json_t *rt_opts_json(const struct rt_opt *opts, size_t n);
__attribute__((format(printf, 3, 4), noreturn)) void rt_usage_error(const char *prog,
								       const char *opt,
								       const char *fmt, ...);

/* Options every sweep runner has. */
enum rt_membind { RT_MEMBIND_BIND, RT_MEMBIND_LOCAL, RT_MEMBIND_INTERLEAVE, RT_MEMBIND_NONE };
extern const char *const rt_mode_names[];    /* "threads", "processes" */
extern const char *const rt_pin_names[];     /* "cpu", "none" */
extern const char *const rt_membind_names[]; /* "bind", "local", "interleave", "none" */

struct rt_common {
	int processes;
	struct rt_tasks tasks;
	int unpinned; /* pin "none" */
	int membind;  /* enum rt_membind */
	unsigned long repetitions, warmup;
};

#define RT_OPT_MODE(c)                                                                          \
	{ "mode", RT_OPT_ENUM, &(c)->processes, rt_mode_names, 0, 0,                           \
	  "threads (one process, shared mm) or processes, one task each", 0 }
#define RT_OPT_TASK_COUNTS(c)                                                                   \
	{ "tasks", RT_OPT_TASKS, &(c)->tasks, NULL, 0, 0,                                      \
	  "task counts to sweep: N[,N...], per-cpu or pow2 (1,2,4.. up to the CPUs)", 0 }
#define RT_OPT_PIN(c)                                                                           \
	{ "pin", RT_OPT_ENUM, &(c)->unpinned, rt_pin_names, 0, 0,                              \
	  "cpu: task i runs on allowed CPU i (mod count); none: unpinned", 0 }
#define RT_OPT_MEMBIND(c)                                                                       \
	{ "membind", RT_OPT_ENUM, &(c)->membind, rt_membind_names, 0, 0,                       \
	  "memory policy per task: bind (MPOL_BIND to the task's node), local (preferred),\n"  \
	  "                 interleave (all nodes) or none", 0 }
#define RT_OPT_REPS(c)                                                                          \
	{ "repetitions", RT_OPT_ULONG, &(c)->repetitions, NULL, 1, 100,                        \
	  "measured runs per task count, each its own result (1..100)", 0 }
#define RT_OPT_WARMUP(c)                                                                        \
	{ "warmup", RT_OPT_ULONG, &(c)->warmup, NULL, 0, 10,                                   \
	  "unreported runs before the measured ones, per task count (0..10)", 0 }

/* per-cpu / pow2 -> explicit counts for ncpus CPUs.  pow2 is 1,2,4.. <= ncpus, plus ncpus
 * itself when it is not a power of two (the seed's last row ran on 510 CPUs). */
int rt_tasks_resolve(struct rt_tasks *t, size_t ncpus);

/* ---- CPUs, nodes, placement ---------------------------------------------------------------- */

#define RT_MAX_NODES 64

struct rt_cpus {
	unsigned *cpu; /* allowed CPUs, ascending */
	int *node;     /* node of each, -1 when unknown */
	size_t n;
	unsigned nr_nodes;       /* highest node id + 1 seen in sysfs, >= 1 */
	uint64_t mem_nodes;      /* nodes with memory (bit per node) */
};

int rt_cpus_load(struct rt_cpus *c);
void rt_cpus_free(struct rt_cpus *c);
/* Raise RLIMIT_NOFILE to at least want (perf counters need one fd per event per task). */
int rt_raise_nofile(unsigned long want);

/* Apply policy for node to the calling thread (set_mempolicy) or, with addr, to the range
 * (mbind).  RT_MEMBIND_NONE does nothing.  0 or -errno (-ENOSYS: kernel without NUMA). */
int rt_membind_task(enum rt_membind m, int node, uint64_t mem_nodes);
int rt_membind_range(void *addr, size_t len, enum rt_membind m, int node, uint64_t mem_nodes);

/* Where the pages of [addr, addr+len) are: move_pages() on at most max_samples pages spread
 * evenly (one per page of size page).  Pages not yet present are counted as absent. */
struct rt_place {
	unsigned long sampled, local, absent;
	int err; /* 0 or -errno of move_pages (-ENOSYS: not supported) */
};
void rt_place_query(const void *addr, size_t len, size_t page, unsigned long max_samples,
		    int node, struct rt_place *p);

/* ---- perf counters ------------------------------------------------------------------------- */

enum rt_perf_id {
	RT_PERF_TASK_CLOCK,
	RT_PERF_PAGE_FAULTS,
	RT_PERF_MINOR_FAULTS,
	RT_PERF_MAJOR_FAULTS,
	RT_PERF_CONTEXT_SWITCHES,
	RT_PERF_CPU_MIGRATIONS,
	RT_PERF_CYCLES,
	RT_PERF_INSTRUCTIONS,
	RT_PERF_STALLED_FRONTEND,
	RT_PERF_STALLED_BACKEND,
	RT_PERF_NR
};

/* What one task counted in its measured window.  err[i] != 0: counter i could not be used. */
struct rt_perf_counts {
	uint64_t v[RT_PERF_NR];
	int err[RT_PERF_NR];
	uint32_t multiplexed; /* bit i: counter i ran part of the time; v[i] is scaled */
};

struct rt_perf {
	int fd[RT_PERF_NR];
	int sw_leader, hw_leader; /* fd indexes, -1 = none */
};

/* Open the counters for the calling thread, disabled.  Failures are per counter (c->err). */
void rt_perf_open(struct rt_perf *p, struct rt_perf_counts *c);
void rt_perf_start(struct rt_perf *p);
void rt_perf_stop(struct rt_perf *p, struct rt_perf_counts *c);
void rt_perf_close(struct rt_perf *p);
const char *rt_perf_name(enum rt_perf_id id); /* metric name, e.g. "perf_page_faults" */

/* ---- /proc/vmstat -------------------------------------------------------------------------- */

#define RT_VMSTAT_NR 15
struct rt_vmstat {
	unsigned long long v[RT_VMSTAT_NR];
	uint32_t present; /* bit i: field i exists in this kernel's /proc/vmstat */
	int err;
};
void rt_vmstat_read(struct rt_vmstat *s);
/* {"name": delta} of the fields present in both; *absent gets the names this kernel lacks. */
json_t *rt_vmstat_delta_json(const struct rt_vmstat *a, const struct rt_vmstat *b,
			     json_t **absent);

/* ---- latency histogram (log-linear, ~1.6% resolution) -------------------------------------- */

#define RT_HIST_BUCKETS 1920
struct rt_hist {
	uint64_t count, max;
	uint64_t b[RT_HIST_BUCKETS];
};
static inline unsigned rt_hist_index(uint64_t v)
{
	unsigned e;

	if (v < 64)
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v); /* 6..63 */
	return 64u + (e - 6u) * 32u + (unsigned)((v >> (e - 5u)) & 31u);
}
static inline void rt_hist_add(struct rt_hist *h, uint64_t v)
{
	h->b[rt_hist_index(v)]++;
	h->count++;
	if (v > h->max)
		h->max = v;
}
void rt_hist_merge(struct rt_hist *into, const struct rt_hist *h);
/* The value below which a fraction q (0..1) of the samples fall (bucket midpoint). */
double rt_hist_quantile(const struct rt_hist *h, double q);

/* ---- a team of tasks ----------------------------------------------------------------------- */

/* One task's record.  Lives in MAP_SHARED memory so that forked tasks can fill it in; aligned
 * so that neighbours never share a cache line. */
struct __attribute__((aligned(128))) rt_task {
	unsigned idx;
	int cpu, node;          /* where it ran: pinned CPU and its node; -1 when unknown */
	int pinned;
	int err;                /* 0 or -errno of the step that failed */
	char step[48];
	double t0, t1;          /* measured window, CLOCK_MONOTONIC */
	double user_s, sys_s;
	long minflt, majflt;
	uint64_t ops;           /* workload-defined count of operations done */
	struct rt_perf_counts perf;
	struct rt_place place;
	void *region;           /* set by the workload: pages to check placement of */
	size_t region_len;
};

struct rt_team;
struct rt_team_ops {
	/* Untimed, in the task, after pinning and the memory policy. */
	int (*prepare)(struct rt_team *t, struct rt_task *k, void **state);
	/* Timed: CPU time, faults and perf counters are taken around this. */
	int (*measure)(struct rt_team *t, struct rt_task *k, void *state);
	/* Untimed, once every task has finished measuring and placement was checked. */
	void (*cleanup)(struct rt_team *t, struct rt_task *k, void *state);
};

struct rt_team {
	/* Set by the caller. */
	const struct rt_team_ops *ops;
	void *ctx;
	unsigned n;
	int processes;
	int pin;
	enum rt_membind membind;
	int membind_by_workload; /* the workload applies membind itself (mbind on its region) */
	int sched_fifo;
	double duration_s;       /* > 0: tasks run until rt_team_stopped(), set after this long */
	size_t place_page;       /* page size for the placement query */
	const struct rt_cpus *cpus;
	/* Filled in by rt_team_run. */
	struct rt_task *tasks;
	volatile int *stop;
	double t_release, t_done;
	struct rt_vmstat vm0, vm1;
};

/* Run the team once: each task pins itself, sets its policy, opens its counters, prepares,
 * waits until all are ready, measures, and waits until all are done before it cleans up.
 * Returns 0 or the first task's error (its step in tasks[i].step), -ECHILD if one died. */
int rt_team_run(struct rt_team *t);
void rt_team_free(struct rt_team *t);
static inline int rt_team_stopped(const struct rt_team *t)
{
	return __atomic_load_n(t->stop, __ATOMIC_RELAXED);
}
/* Record a failed step in k and return err, so ops can `return rt_task_fail(k, "mmap", -errno)`. */
int rt_task_fail(struct rt_task *k, const char *step, int err);

/* ---- results ------------------------------------------------------------------------------- */

/* Sums over tasks [from, to) of a finished team. */
struct rt_sum {
	unsigned n;
	double wall_max, wall_min, span, user, sys;
	long minflt, majflt;
	uint64_t ops;
};
void rt_team_sum(const struct rt_team *t, unsigned from, unsigned to, struct rt_sum *s);

/* {"tasks": n, "repetition": rep, "metrics": {}, "info": {}} */
json_t *rt_result_new(unsigned tasks, unsigned rep);
int rt_result_metric(json_t *res, const char *name, double v, const char *unit,
		     const char *better);
int rt_result_info(json_t *res, const char *name, json_t *v); /* steals v */
/* The harness's share of a result: perf counters of tasks [from, to) as metrics (those that
 * could not count listed in info.perf.unavailable with the reason), info.placement (local
 * fraction per node), info.vmstat deltas, info.pinned. */
int rt_result_common(json_t *res, const struct rt_team *t, unsigned from, unsigned to);

/* Facts about the machine every runner reports in its top-level info. */
json_t *rt_machine_info(const struct rt_cpus *cpus);
/* The bracketed word of a sysfs selector file ("always [madvise] never"), or null. */
json_t *rt_sysfs_choice(const char *path);

/* Run one(ctx, n, rep, &result) for every task count, warmup runs first (rep < 0: the result
 * is dropped), then the repetitions, appending kept results to results. */
typedef int (*rt_one_fn)(void *ctx, unsigned n, int rep, json_t **res);
int rt_sweep(const struct rt_common *c, json_t *results, rt_one_fn one, void *ctx,
	     const char *prog);
/* Print the document: JSON on stdout with --json; the table (stdout, or stderr when --json)
 * with --table or without --json. */
int rt_doc_print(const json_t *doc, const struct rt_cli *cli,
		 void (*table)(FILE *f, const json_t *doc, int style));
/* Value of metric name in result res, NAN when absent. */
double rt_res_metric(const json_t *res, const char *name);
long long rt_res_int(const json_t *res, const char *key);
