/* A/B comparison of two kernel variants of a series_set: one row per series they share, with
 * descriptive statistics per side, Welch's test (lab/analysis/stats.h) and a verdict; as JSON
 * (schema numalab.compare/1) or a text table.  Pure.
 *
 * Rates (units ending in "/s") use harmonic means and are tested on reciprocals; everything
 * else arithmetic means.  A change is significant when p < 1 - STATS_LEVEL, which is exactly
 * when the 95% interval of the difference excludes 0.  The % change and its interval are
 * relative to A's mean and signed so that positive is better (the metric's "better").  A
 * significant change for the worse is a regression; it counts against the exit status when it
 * is worse than the threshold (in %).  Variant B also regresses when any of its runs failed
 * (panic, hang, ...) while none of A's did: an outcome regression. */
#pragma once
#include <jansson.h>
#include <stddef.h>

#include "analysis/series.h"
#include "analysis/stats.h"
#include "util/error.h"
#include "util/strbuf.h"

#define COMPARE_SCHEMA "numalab.compare/1"

enum verdict {
	VERDICT_NO_CHANGE = 0,
	VERDICT_IMPROVEMENT,
	VERDICT_REGRESSION,
	VERDICT_INSUFFICIENT, /* fewer than two samples on a side: nothing can be tested */
	VERDICT__COUNT
};

struct compare_row {
	size_t key;
	enum stats_mean mean;
	struct stats_summary a, b;
	int tested;                  /* both sides have >= 2 samples: d is valid */
	struct stats_diff d;
	double change_pct;           /* 100 * (B - A) / |A|, + = better; NAN when A's mean is 0 */
	double ci_pct_lo, ci_pct_hi; /* the interval of the difference in the same terms */
	enum verdict verdict;
	int beyond_threshold;        /* a regression worse than the threshold */
};

struct comparison {
	size_t va, vb;               /* variant indexes: A, B */
	struct compare_row *rows;
	size_t nr_rows;
	size_t *only_a, *only_b;     /* keys with samples on one side only */
	size_t nr_only_a, nr_only_b;
	unsigned count[VERDICT__COUNT];
	unsigned beyond;             /* regressions beyond the threshold */
	int outcome_regression;
	double threshold_pct;
};

const char *verdict_name(enum verdict v);
/* Compare variant vb against va.  -EINVAL with err saying what differs when the variants ran
 * different workloads (or topologies) or share no series; -ENOMEM. */
int compare_variants(const struct series_set *s, size_t va, size_t vb, double threshold_pct,
		     struct comparison *out, struct lab_error *err);
/* Every variant against its baseline: the first variant (in the order the reports name them)
 * that ran the same workloads, so that reports of unrelated jobs still pair up (`lab report`).
 * c has room for s->nr_variants comparisons; *n gets how many were made, each to be freed
 * with compare_free.  A variant with no baseline, or a pair that cannot be compared, gets a
 * line (\n-separated) in note.  0, or -ENOMEM. */
int compare_all(const struct series_set *s, double threshold_pct, struct comparison *c,
		size_t *n, struct strbuf *note);
void compare_free(struct comparison *c);
/* True when the comparison should fail a CI job: a regression beyond the threshold or an
 * outcome regression. */
int compare_failed(const struct comparison *c);
/* {"schema", "level", "threshold_pct", "comparisons": [...], "regression"}; NULL on ENOMEM. */
json_t *compare_json(const struct series_set *s, const struct comparison *c, size_t n);
/* The text table of n comparisons. */
int compare_text(const struct series_set *s, const struct comparison *c, size_t n, char **out);
/* One comparison row as a JSON object (also used by the dashboard). */
json_t *compare_row_json(const struct series_set *s, const struct compare_row *r);
