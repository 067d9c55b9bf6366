/* The projection's inputs from a measured report (`lab project --from`): the instructions per
 * acquisition of one lock call site inside the lock (S) and outside it (Z), from the results
 * the lock-instruction counter filled (info.lock_insns, core/lockinsn.h).  One operation of
 * the machine-repairman model is one pass through the site's lock: S = the site's
 * instructions inside / its acquisitions, Z = the window's instructions / acquisitions - S,
 * summed over every boot of the label before dividing.  Pure. */
#pragma once
#include <jansson.h>
#include <stddef.h>

#include "util/error.h"

struct projinput_pick {
	const char *label;    /* the kernel label; NULL: the report must have one */
	const char *workload; /* NULL: the first with lock_insns */
	unsigned tasks;       /* the task count (0: 1) */
	const char *site;     /* a call site's prefix, e.g. "do_huge_pmd_anonymous_page+" */
};

struct projinput {
	char label[64], workload[64], site[128]; /* what was found (site: the first matching) */
	unsigned tasks;
	size_t boots, sites;                     /* results used; distinct sites matched */
	double acquisitions, window_insns, inside_insns; /* summed over the boots */
	double inside, outside;                  /* per acquisition: S and Z */
	unsigned max_cpus_per_lock, locks;       /* the largest over the boots */
	/* Whether the site's lock is one lock shared by all tasks: at the most tasks measured
	 * (shared_tasks, 0: none above tasks), the most distinct locks the site took in one
	 * result and the most vCPUs that took one of them. */
	unsigned shared_tasks, shared_locks, shared_max_cpus;
	double window_t1; /* projinput_window's T1 per acquisition; 0: outside is the plugin's */
};

/* 1 when the report shows the site's lock is not one shared lock (more tasks, each lock taken
 * by fewer vCPUs than tasks) and not a lock per task either: such a series is not projected. */
int projinput_not_shared(const struct projinput *p);
/* 1 when the report shows a lock per task at the site (more tasks, at least as many locks,
 * each taken by one vCPU: split locks, each task its own table): projected as private locks,
 * where nobody waits (struct proj_input's private_lock). */
int projinput_private(const struct projinput *p);
/* Why p's series is not projected (its lock is neither one shared lock nor one per task, or
 * nothing is inside it),
 * into buf or a constant; NULL when it is to be projected.  lab project --from, lab compare
 * and the dashboard give the one reason. */
const char *projinput_why_not(const struct projinput *p, char *buf, size_t len);

/* Z in a deterministic model's own instructions, where the plugin's is a lower bound (under
 * tcg it counts a rep string instruction once, so a THP fault's 2 MiB of zeroing is a few
 * instructions): the 1-task window of p's label and workload in window, a run under a
 * deterministic model with shift=0, where a lone vCPU's guest nanosecond is one instruction.
 * T1 = the mean elapsed_s at 1 task x 1e9 / p's acquisitions per window (counted, at the
 * site); p->outside = T1 - p->inside.  The workload's params must be counted's but for
 * tasks, repetitions and warmup.  -EINVAL with err saying what is missing or differs. */
int projinput_window(const json_t *counted, const json_t *window, struct projinput *p,
		     struct lab_error *err);

/* The (label, workload) pairs of the report with lock counts in any result, in the report's
 * order, each once: a new array of [label, workload] arrays; NULL on ENOMEM. */
json_t *projinput_series(const json_t *report);

/* -EINVAL with err saying what is missing (a label, the counts, the site: the sites there
 * are named), 0 with *out filled. */
int projinput_from_report(const json_t *report, const struct projinput_pick *pick,
			  struct projinput *out, struct lab_error *err);
