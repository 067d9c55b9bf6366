/* The measurement harness shared by the workload runners (pft, memscale, page_fault1/2/3,
 * mmap_contention): options from the workload registry, CPUs and their nodes, memory policy,
 * the move_pages() placement check, perf counters, /proc/vmstat deltas, running a team of
 * threads or processes through ready/go/done gates, and the JSON result entries built from
 * all of that.
 *
 * Everything here also runs on the host (the tests do), so nothing assumes it is in the guest. */
#pragma once
#include <stdint.h>
#include <stdio.h>

#include "proto/lockstat.h"
#include "proto/wopts.h"
#include "rt.h"

/* ---- options ------------------------------------------------------------------------------- */

/* A runner's workload parameters are options derived from the registry (lab/proto/workload.c
 * through lab/proto/wopts.h) and checked by the lab's own workload_params_max(); a runner
 * declares here only its runner-local options, which are not job parameters (page_fault's
 * --dir), and are never echoed in "params". */
struct rt_opt {
	const char *name; /* long option without "--" */
	const char *arg;  /* its value in --help, e.g. "PATH" */
	const char **dest;
	const char *help;
};

struct rt_cli {
	int json, table, dry_run;
	int table_style; /* index into the runner's own style list; 0 = its default */
};

/* Task counts above the CPU count run several tasks per CPU; beyond this they are refused. */
#define RT_MAX_TASKS 4096U

/* A task-count list, as workload_params_max() filled it in ("per-cpu" and "pow2" resolved). */
struct rt_tasks {
	unsigned long *v;
	size_t n;
};

/* Options every sweep runner has (the registry's mode, tasks, pin, membind, repetitions,
 * warmup).  The enum follows the order of workload_membind_choices. */
enum rt_membind { RT_MEMBIND_BIND, RT_MEMBIND_LOCAL, RT_MEMBIND_INTERLEAVE, RT_MEMBIND_NONE };
struct rt_common {
	int processes;
	struct rt_tasks tasks;
	int unpinned; /* pin "none" */
	int membind;  /* enum rt_membind */
	unsigned long repetitions, warmup;
};

/* Parse argv for the workload called prog: its parameters' options, the runner-local opts,
 * --json, --table[=STYLE], --dry-run and --help (which prints the usage from the registry and
 * exits 0).  Returns the raw params object the options make, for rt_params_check().  Bad
 * input exits 2 with "PROG: --OPT: why" on stderr (the protocol's "bad parameters").  styles
 * may be NULL. */
json_t *rt_opts_parse(const char *prog, const struct rt_opt *opts, size_t n,
		      const char *const *styles, int argc, char **argv, struct rt_cli *cli);
/* Validate raw as the lab validates a job's params (workload_params_max(): "per-cpu" and
 * "pow2" against the ncpus CPUs the runner may use, task counts up to RT_MAX_TASKS) and set c
 * from the result.  Returns the filled-in params, the "params" of the output.  Bad params exit
 * 2 naming the option; with --dry-run the params are printed (one JSON line) and it exits 0. */
json_t *rt_params_check(const char *prog, const json_t *raw, size_t ncpus,
			const struct rt_cli *cli, struct rt_common *c);
/* Index of the value of enum parameter name of workload prog among the registry's choices. */
int rt_param_enum(const char *prog, const json_t *params, const char *name);
__attribute__((format(printf, 3, 4), noreturn)) void rt_usage_error(const char *prog,
								       const char *opt,
								       const char *fmt, ...);

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
/* One task-bound dummy event on the calling process, never read, kept open for its life: the
 * kernel's perf scheduling hooks then stay on (rt_perf.c says why).  The fd, or -errno. */
int rt_perf_hold(void);
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
	/* A lock-counting twin (CONFIG_LOCK_STAT) also has /proc/lock_stat: its classes of the
	 * seeds' locks at the same moment (proto/lockstat.h); lock_stat_ok 0 on other kernels. */
	struct lockstat lock_stat;
	int lock_stat_ok;
};
void rt_vmstat_read(struct rt_vmstat *s);
/* {"name": delta} of the fields present in both; *absent gets the names this kernel lacks. */
json_t *rt_vmstat_delta_json(const struct rt_vmstat *a, const struct rt_vmstat *b,
			     json_t **absent);
/* The lock classes' deltas between a and b ({"page_table_lock": {...}, ...}), or NULL when
 * either has no /proc/lock_stat (a kernel without CONFIG_LOCK_STAT). */
json_t *rt_lockstat_delta_json(const struct rt_vmstat *a, const struct rt_vmstat *b);

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
	/* Published at the end of each whole cycle for a sized run's coordinator
	 * (rt_task_cycle_end); seq is odd while ops and t change. */
	struct {
		uint32_t seq;
		uint64_t ops;
		double t;
	} cycle;
	struct rt_perf_counts perf;
	struct rt_place place;
	double place_s;         /* the placement query's time (the lab's check, not the work) */
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
	/* With duration_s, > 0: stop earlier, once the 95 % interval of the rate of tasks
	 * [0, sized_n) (0: all) is within +-precision_bp / 100 % (lab/proto/batchci.h).  The tasks
	 * must then call rt_task_cycle_end(). */
	unsigned precision_bp, sized_n;
	size_t place_page;       /* page size for the placement query */
	const struct rt_cpus *cpus;
	/* Filled in by rt_team_run. */
	struct rt_task *tasks;
	volatile int *stop;
	double t_release, t_done;
	/* The whole repetition, as the seeds' `perf stat -r` timed a whole program: t_start (the
	 * team is being created) ... t_leave (the placement query, the lab's own check, is over)
	 * ... t_end (every task cleaned up, unmapped and gone). */
	double t_start, t_leave, t_end;
	struct rt_vmstat vm0, vm1;
	/* The measured windows' id for the lock-instruction counter (rt_window_mark): unique in
	 * the boot, recorded in the result as info.lock_insn_window. */
	uint32_t window_id;
	/* A sized run: why it stopped ("precision" or "duration"), the span measured and the
	 * interval's half-width then, % (< 0: no whole cycle, no width). */
	struct {
		const char *by;
		double span_s, ci_pct;
	} sized;
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
/* At the end of each whole cycle of a task: ops done so far, for a sized run's coordinator
 * (rt_team.c); nothing, not even a clock read, when the run is not sized. */
static inline void rt_task_cycle_end(const struct rt_team *t, struct rt_task *k, uint64_t ops)
{
	double now;
	uint32_t seq = k->cycle.seq;

	if (!t->precision_bp)
		return;
	now = rt_now_s();

	__atomic_store_n(&k->cycle.seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&k->cycle.ops, ops, __ATOMIC_RELAXED);
	__atomic_store(&k->cycle.t, &now, __ATOMIC_RELAXED);
	__atomic_store_n(&k->cycle.seq, seq + 2, __ATOMIC_RELEASE);
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
