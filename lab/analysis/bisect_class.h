/* What one measurement of a bisection says (`lab bisect`): a commit's boots against the good
 * end's and the bad end's, on the one series the bisection follows.  Pure: the caller parses
 * the reports and adds them to a series_set with the labels it chooses.
 *
 * One series is followed (a workload's metric at one task count), so its test is not adjusted
 * for other series: q is the test's own p.  The rule is compare's (lab/analysis/verdict.h): a
 * difference counts only when it is significant and its whole 95% interval lies beyond the
 * threshold.  Then:
 *   the bad end   is "bad" when it differs from the good end that way (in either direction:
 *                 a bisection follows a change, a regression or an improvement), "good" when
 *                 the interval lies inside +-threshold (equivalence), else "inconclusive";
 *   a commit      is "bad" when it differs from the good end beyond the threshold in the
 *                 bad end's direction and does not differ from the bad end beyond it towards
 *                 the good end; "good" the other way round; else "inconclusive" (too few
 *                 boots, or a commit half-way, as when two commits each brought part of the
 *                 change). */
#pragma once
#include <stddef.h>

#include "analysis/compare.h"
#include "analysis/series.h"
#include "core/bisect.h"
#include "util/error.h"

/* The series a bisection follows. */
struct bclass_pick {
	const char *workload;  /* the workload's name; NULL: the first group's */
	const char *metric;    /* NULL: the workload's first primary metric */
	unsigned tasks;        /* 0: the largest task count measured */
};

/* The key of the series in s that pick names.  -ENOENT with err saying what the reports have
 * instead ("pft has no metric x; its metrics: ..."). */
int bclass_find_key(const struct series_set *s, const struct bclass_pick *pick, size_t *key,
		    struct lab_error *err);
/* The variant labelled label, or (size_t)-1. */
size_t bclass_variant(const struct series_set *s, const char *label);

/* One side against another on one series. */
struct bclass_diff {
	struct compare_row row;   /* A's and B's boot-level statistics, Welch's test */
	enum verdict verdict;     /* of this series alone (q = its p) */
	double raw_pct;           /* 100 * (B - A) / |A|, unsigned by "better"; NAN when A is 0 */
	int dir;                  /* sign of the change by the metric's "better": +1 better,
				   * -1 worse, 0 none */
};

/* B (variant vb) against A (va) on key.  -ENOENT when a side has no sample of the series;
 * -EINVAL with err when the sides cannot be compared (lab/analysis/compare.h); -ENOMEM. */
int bclass_diff(const struct series_set *s, size_t key, size_t va, size_t vb,
		double threshold_pct, struct bclass_diff *out, struct lab_error *err);

/* The bad end against the good end. */
enum bisect_class bclass_end(const struct bclass_diff *bad_vs_good);
/* A commit against the good end and against the bad end; dir is the bad end's (bad vs good). */
enum bisect_class bclass_commit(const struct bclass_diff *vs_good, const struct bclass_diff *vs_bad,
				int dir);

/* The per-boot values of variant v on key (the mean of each boot's repetitions, as compare
 * takes them), in boot order; caller frees *out.  0 values: *out NULL.  -ENOMEM. */
int bclass_boot_values(const struct series_set *s, size_t key, size_t v, double **out, size_t *n);

/* Why the culprit moved: the deltas (lab/analysis/deltas.h: profile lines and counters per
 * op, not deciding) of the culprit (variant culprit) against its parent (variant parent) on
 * the workload pick follows, as `lab compare` lists them under that workload's verdict.
 * *out gets {"culprit_deltas": {deltas_json()'s keys, "against": "the culprit's parent"}}, or
 * {"culprit_deltas_absent": "why"} when there are none to take: a side not measured
 * ((size_t)-1), a pick the reports lack, sides compare refuses (different timing models), no
 * deltas read.  text gets deltas_text()'s lines (A the parent, B the culprit) and a line
 * saying so, nothing when there is nothing to show.  0, or -ENOMEM. */
int bclass_culprit_deltas(const struct series_set *s, size_t parent, size_t culprit,
			  const struct bclass_pick *pick, json_t **out, struct strbuf *text);
