/* Kernel warnings on a guest's console: the reports a kernel prints and then carries on from
 * (WARN(), lockdep, RCU stalls, lockups, hung tasks, KASAN, UBSAN, KFENCE, sleeping in atomic
 * context), found in the console log and named, so that a run that warns still ends "ok" and
 * keeps its figures, but says so (issue 45).  A panic is outcome.c's, not this.
 *
 * Each warning has a kind (the kernel's detector) and a `where` that names its site with
 * nothing that changes from one boot to the next (no address, PID, CPU, time): the same
 * warning in two boots, or two kernels, compares equal.  The formats are Linux 6.12's
 * (kernel/panic.c __warn, kernel/locking/lockdep.c, kernel/rcu/tree_stall.h and tree_exp.h,
 * kernel/watchdog.c, kernel/hung_task.c, kernel/workqueue.c, kernel/sched/core.c,
 * lib/smp_processor_id.c, mm/kasan/report.c, lib/ubsan.c, mm/kfence/report.c).
 *
 * Pure: no I/O; functions return 0 or a negative errno.  The console is untrusted (any bytes,
 * any length): everything kept is bounded and valid UTF-8. */
#pragma once
#include <jansson.h>
#include <stddef.h>

#include "util/error.h"

enum kwarn_kind {
	KWARN_WARNING = 0,          /* WARN(): "WARNING: CPU: 3 PID: 1 at f.c:1 fn+0x1/0x2" */
	KWARN_SLEEP_IN_ATOMIC,      /* might_sleep() and the other atomic-context checks */
	KWARN_LOCKDEP_CIRCULAR,     /* "WARNING: possible circular locking dependency detected" */
	KWARN_LOCKDEP_RECURSIVE,    /* "WARNING: possible recursive locking detected" */
	KWARN_LOCKDEP_INCONSISTENT, /* "WARNING: inconsistent lock state" */
	KWARN_LOCKDEP,              /* lockdep's other reports ("suspicious RCU usage", ...) */
	KWARN_RCU_STALL,            /* "rcu: INFO: rcu_preempt self-detected stall on CPU", ... */
	KWARN_SOFT_LOCKUP,          /* "watchdog: BUG: soft lockup - CPU#5 stuck for 22s! [a:1]" */
	KWARN_HARD_LOCKUP,          /* "watchdog: Watchdog detected hard LOCKUP on cpu 1" */
	KWARN_WORKQUEUE_LOCKUP,     /* "BUG: workqueue lockup - pool cpus=1 ... stuck for 31s!" */
	KWARN_HUNG_TASK,            /* "INFO: task pft:301 blocked for more than 120 seconds." */
	KWARN_KASAN,                /* "BUG: KASAN: slab-out-of-bounds in fn+0x1/0x2" */
	KWARN_UBSAN,                /* "UBSAN: array-index-out-of-bounds in mm/f.c:12:3" */
	KWARN_KFENCE,               /* "BUG: KFENCE: out-of-bounds read in fn+0x1/0x2" */
	KWARN__COUNT,
};

#define KWARN_MAX 16              /* distinct (kind, where) kept; more are counted in dropped */
#define KWARN_LINE_MAX 160        /* first_line, with its NUL */
#define KWARN_WHERE_MAX 96        /* where, with its NUL */
#define KWARN_EXCERPT_MAX 8192    /* an excerpt's bytes, without its NUL */
#define KWARN_EXCERPT_LINES 60    /* an excerpt's lines from the report's first on */

struct kwarn {
	enum kwarn_kind kind;
	char first_line[KWARN_LINE_MAX]; /* the report's first line: printk time and caller id
					  * cut, CRs dropped, control characters but tab '?' */
	char where[KWARN_WHERE_MAX];     /* its site (see kwarn.c): no control characters */
	unsigned count;                  /* times (kind, where) was reported; at least 1 */
	char *excerpt;                   /* malloc'd: the first report's lines, from its
					  * opening line ("cut here", "=====") to its end, at
					  * most KWARN_EXCERPT_LINES and KWARN_EXCERPT_MAX bytes */
};

struct kwarn_list {
	struct kwarn items[KWARN_MAX];   /* in the order of first appearance */
	unsigned n;
	unsigned dropped;                /* distinct (kind, where) beyond KWARN_MAX */
};

/* The warnings in a console log of len bytes.  out is set whatever happens (free it with
 * kwarn_list_free); -ENOMEM. */
int kwarn_scan(const char *text, size_t len, struct kwarn_list *out);
void kwarn_list_free(struct kwarn_list *l);
/* 1 and *kind (which may be NULL) when the console line l of n bytes (no newline) starts a
 * warning's report, else 0: outcome.c's panic signatures skip such lines (a "BUG: " the
 * kernel carries on from is no panic). */
int kwarn_line_kind(const char *l, size_t n, enum kwarn_kind *kind);
/* "warning", "sleep-in-atomic", "lockdep-circular", ..., as reports name kinds. */
const char *kwarn_kind_name(enum kwarn_kind k);
int kwarn_kind_parse(const char *s, enum kwarn_kind *k);

/* The report's run keys: "warnings" always (an array, [] when none), each {"count",
 * "excerpt", "first_line", "kind", "where"}, and "warnings_dropped" only when l->dropped > 0.
 * Added to the object run; -ENOMEM. */
int kwarn_list_to_json(const struct kwarn_list *l, json_t *run);
/* The same keys read back from a run of a report (untrusted): both may be absent (reports
 * before them); when present checked strictly (types, known kinds, at most KWARN_MAX
 * entries, distinct (kind, where), the bounds above, the characters the scan leaves).
 * -EINVAL with err at path.warnings[...] (path: the run's, e.g. "runs[2]"); -ENOMEM.  out
 * is set (and is the caller's to free) whatever happens. */
int kwarn_list_from_json(const json_t *run, const char *path, struct kwarn_list *out,
			 struct lab_error *err);
