/* A/B comparison of two kernel variants of a series_set: one row per series they share, with
 * boot-level statistics per side, Welch's test on the per-boot means (lab/analysis/stats.h),
 * false-discovery-rate control and a verdict (lab/analysis/verdict.h); as JSON (schema
 * numalab.compare/2) or a text table.  Pure.
 *
 * The boot is the unit: each run's repetitions are first summarised into one value per boot
 * (lab/analysis/verdict.h says why), so n is the number of boots.  Rates (units ending in
 * "/s") use harmonic means and are tested on reciprocals; everything else arithmetic means.
 * The % change and its interval are relative to A's mean and signed so that positive is
 * better (the metric's "better").
 *
 * Only a workload's primary metrics (lab/proto/workload.c) decide: their p-values are adjusted
 * together (Benjamini-Hochberg over every primary row of the comparison), the other metrics'
 * among themselves, and only primary rows set the decision unless all_metrics is asked for.
 * The decision is a regression when a deciding row regresses, B had failed runs while A had
 * none (an outcome regression) or B printed a kernel warning A never did (warndiff.h); else
 * undecided when a deciding row is inconclusive or has too little data; else ok.
 *
 * Runs of different timing models (lab/core/timing.h) measure different things: a side that
 * mixes models, or two sides of different models, are refused. */
#pragma once
#include <jansson.h>
#include <stddef.h>

#include "analysis/series.h"
#include "analysis/stats.h"
#include "analysis/verdict.h"
#include "util/error.h"
#include "util/strbuf.h"

#define COMPARE_SCHEMA "numalab.compare/2"
/* The minimum effect, in %, by default (`lab compare`, `lab report`): the deterministic
 * timing model resolves ~0.2 % between boots, so a 1 % change is decided with a few boots;
 * noisier models need more boots or a larger threshold, and say so. */
#define COMPARE_DEFAULT_THRESHOLD_PCT 1.0

struct compare_row {
	size_t key;
	int primary;                 /* one of its workload's primary metrics */
	enum stats_mean mean;
	struct boot_stats ab, bb;    /* boots, values and within/between-boot CVs per side */
	struct stats_summary a, b;   /* of the per-boot means: n is the number of boots */
	int tested;                  /* both sides have >= VERDICT_MIN_BOOTS boots: d is valid */
	struct stats_diff d;
	double q;                    /* d.p adjusted for the FDR within its family; NAN untested */
	double change_pct;           /* 100 * (B - A) / |A|, + = better; NAN when A's mean is 0 */
	double ci_pct_lo, ci_pct_hi; /* the interval of the difference in the same terms */
	enum verdict verdict;
	size_t boots_needed;         /* undecided rows: about how many boots a side would decide
				      * (VERDICT_MAX_BOOTS_NEEDED + 1: more); 0 unknown */
	int fit;                     /* enum modelfit: can the timing model show what it depends
				      * on (outside: the verdict is VERDICT_OUTSIDE_MODEL) */
	char fit_why[384];           /* why not, "" when it can */
	/* Second opinions (analysis/robust.h), NAN / 0 when not computed. */
	double rank_p;               /* Mann-Whitney, per-boot means */
	double boot_lo_pct, boot_hi_pct; /* bootstrap interval of change_pct, + = better */
	double modes_gap_pct[2];     /* A's, B's boots in two modes: the gap in % of the median */
	char robust_why[256];        /* why they overrule Welch's verdict (then inconclusive) */
	double threshold_pct;        /* the one this row was judged by: the comparison's, or
				      * the learned one (learned_used) */
	struct noise_learned learned; /* its series' learned threshold (analysis/noise.h);
				       * learned.changes 0: none known */
	int learned_used;
};

enum compare_decision {
	COMPARE_OK = 0,          /* every deciding row is no-change or an improvement */
	COMPARE_REGRESSION,      /* a deciding row regressed, an outcome regression, or a new
				  * kernel warning */
	COMPARE_UNDECIDED,       /* no regression, but a deciding row is inconclusive or has
				  * too little data (more boots are needed), or is outside the
				  * timing model (another model is) */
};

struct comparison {
	size_t va, vb;               /* variant indexes: A, B */
	struct compare_row *rows;
	size_t nr_rows;
	size_t *only_a, *only_b;     /* keys with samples on one side only */
	size_t nr_only_a, nr_only_b;
	unsigned count[VERDICT__COUNT];       /* deciding rows (primary, or all: all_metrics) */
	unsigned count_other[VERDICT__COUNT]; /* the rest */
	int outcome_regression;
	struct warn_diff warn;       /* the kernel warnings of both sides: a new one in B is a
				      * regression (points into the series_set) */
	struct deltas_diff deltas;   /* per workload, why its figures moved: not deciding
				      * (analysis/deltas.h) */
	int all_metrics;             /* every metric decides, not only primary ones */
	double threshold_pct;        /* the fixed threshold; a row judged by its series'
				      * learned one says so (compare_row.learned_used) */
	int use_learned;             /* the series_set's: learned thresholds decide */
	double alpha;                /* a change needs q below it, its interval at 1 - alpha:
				      * VERDICT_FDR, or a sequential look's (series_set) */
	const char *timing;          /* the timing model both sides ran under */
	const char *host_class;      /* the host class both sides ran on; "" none */
	size_t boots_needed;         /* the most any undecided deciding row needs; 0 unknown */
	enum compare_decision decision;
};

/* Compare variant vb against va.  -EINVAL with err saying what differs when the variants ran
 * different workloads (or topologies) or share no series; -ENOMEM. */
int compare_variants(const struct series_set *s, size_t va, size_t vb, double threshold_pct,
		     int all_metrics, struct comparison *out, struct lab_error *err);
/* Every variant against its baseline: the first variant (in the order the reports name them)
 * that ran the same workloads, so that reports of unrelated jobs still pair up (`lab report`).
 * c has room for s->nr_variants comparisons; *n gets how many were made, each to be freed
 * with compare_free.  A variant with no baseline, or a pair that cannot be compared, gets a
 * line (\n-separated) in note.  0, or -ENOMEM. */
int compare_all(const struct series_set *s, double threshold_pct, int all_metrics,
		struct comparison *c, size_t *n, struct strbuf *note);
void compare_free(struct comparison *c);
const char *compare_decision_name(enum compare_decision d);
/* The worst decision of n comparisons (regression, then undecided, then ok). */
enum compare_decision compare_decide_all(const struct comparison *c, size_t n);
/* {"schema", "level", "threshold_pct", "comparisons": [...], "regression"}; NULL on ENOMEM. */
json_t *compare_json(const struct series_set *s, const struct comparison *c, size_t n);
/* The text table of n comparisons. */
int compare_text(const struct series_set *s, const struct comparison *c, size_t n, char **out);
/* The short form (lab compare's default): the deciding series, at most 80 columns, only the
 * parameters that differ from the workload's defaults, the decision on the last line; as
 * a text or (markdown 1) a markdown table.  0 or -ENOMEM. */
int compare_brief(const struct series_set *s, const struct comparison *c, size_t n,
		  int markdown, char **out);
/* A workload's heading line(s): its name, only the parameters that differ from its defaults,
 * and the topology, wrapped at 80 columns (markdown: the name in bold). */
void compare_heading(struct strbuf *sb, const struct series_what *g, int markdown);
/* Whether two groups are of one workload: topology, name and params (not the metric). */
int compare_same_workload(const struct series_what *a, const struct series_what *b);
/* The deltas of the workload of group g (analysis/deltas.h), NULL when none were read. */
const struct deltas_workload *compare_deltas_of(const struct comparison *c,
						const struct series_what *g);
/* Every series of every comparison as CSV (RFC 4180, a header line first). */
int compare_csv(const struct series_set *s, const struct comparison *c, size_t n, char **out);
/* One comparison row as a JSON object (also used by the dashboard). */
json_t *compare_row_json(const struct series_set *s, const struct compare_row *r);
