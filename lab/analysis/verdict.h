/* Verdicts on an A/B comparison that can be believed on a noisy host.  Pure.
 *
 * The statistical unit is the boot.  Repetitions inside one boot share that boot's noise
 * (where the kernel placed its memory, what the host did meanwhile), so pooling them as
 * independent samples makes intervals far too narrow: an A/A comparison of one kernel then
 * "finds" regressions.  Each boot is first summarised by the mean of its repetitions
 * (harmonic for rates, on the same reciprocal scale lab/analysis/stats.h documents), and the
 * test runs on the per-boot means.  The spread is reported both ways: within a boot (pooled
 * over boots) and between boots.
 *
 * Many series are tested at once, so p-values are adjusted for the false discovery rate
 * (Benjamini-Hochberg) over the series that decide, and a change has to be both significant
 * after that adjustment and at least the minimum effect (the threshold) with 95% confidence
 * to count.  Every verdict is one of:
 *   no-change      the 95% interval of the change lies inside +-threshold (equivalence)
 *   improvement    significant (q < 0.05) and the whole interval lies above +threshold
 *   regression     significant (q < 0.05) and the whole interval lies below -threshold
 *   inconclusive   neither: more boots are needed (boots_needed says about how many)
 *   insufficient   fewer than VERDICT_MIN_BOOTS boots on a side: nothing can be tested
 *   outside-model  the timing model cannot show what the series depends on (analysis/
 *                  modelfit.h): set by `lab compare`, never by verdict_decide
 * so that too little data, or a blind model, never reads as a pass. */
#pragma once
#include <stddef.h>

#include "analysis/stats.h"

/* Fewest boots a side for a test: the between-boot spread needs two. */
#define VERDICT_MIN_BOOTS 2
/* False discovery rate the q-values are compared with. */
#define VERDICT_FDR 0.05
/* Most boots boots_needed suggests; beyond it says "more than this". */
#define VERDICT_MAX_BOOTS_NEEDED 1000

enum verdict {
	VERDICT_NO_CHANGE = 0,
	VERDICT_IMPROVEMENT,
	VERDICT_REGRESSION,
	VERDICT_INCONCLUSIVE,
	VERDICT_INSUFFICIENT,
	VERDICT_OUTSIDE_MODEL,
	VERDICT__COUNT
};

const char *verdict_name(enum verdict v);

/* One side of a series summarised per boot. */
struct boot_stats {
	size_t boots;       /* boots with at least one value */
	size_t values;      /* values over all boots */
	double cv_within;   /* pooled within-boot CV on the test scale; NAN when no boot has two
			     * values */
	double cv_between;  /* CV of the per-boot means on the test scale; NAN below two boots */
};

/* Summarise values v[0..n) tagged with their boot (any size_t identifiers, in any order) into
 * one value per boot, written to means[] (room for n), in order of first appearance; *st gets
 * the counts and spreads.  Harmonic: each boot's value is the harmonic mean of its values.
 * -EINVAL when n == 0, a value is not finite, or kind is harmonic and a value is <= 0. */
int boots_aggregate(const size_t *boot, const double *v, size_t n, enum stats_mean kind,
		    double *means, struct boot_stats *st);

/* The mean values v[0..n) in unit are summarised with: harmonic for rates (units ending in
 * "/s", series_unit_is_rate) when every value is > 0, else arithmetic (a rate of 0 has no
 * reciprocal). */
enum stats_mean boots_mean_kind(const char *unit, const double *v, size_t n);

/* boots_aggregate, then the statistics of the per-boot means (sum->n is the number of boots):
 * one side of a comparison, or one series of a report in the history, per boot.  means has
 * room for n values; errors as boots_aggregate and stats_summarize. */
int boots_summarize(const size_t *boot, const double *v, size_t n, enum stats_mean kind,
		    double *means, struct boot_stats *bs, struct stats_summary *sum);

/* Benjamini-Hochberg adjusted p-values: q[i] = min over p[j] >= p[i] of p[j] * m / rank(j),
 * capped at 1, where m counts the finite p-values.  A NaN p (a series not tested) gets a NaN
 * q and does not count in m.  q may alias p.  -ENOMEM. */
int verdict_fdr_bh(const double *p, size_t n, double *q);

/* What verdict_decide needs about one series: the change and its interval in % of A's mean,
 * signed so that + is better, and the q-value of its test. */
struct verdict_input {
	int tested;                   /* both sides have >= VERDICT_MIN_BOOTS boots */
	double change_pct;
	double ci_lo_pct, ci_hi_pct;  /* may be +-INFINITY */
	double q;
};

/* threshold_pct > 0: the minimum effect.  With 0 no interval can show equivalence, so an
 * unchanged series is inconclusive, never no-change. */
enum verdict verdict_decide(const struct verdict_input *in, double threshold_pct);
/* The same at a sequential look's level (analysis/sequential.h): q below alpha, the interval
 * the caller computed at 1 - alpha. */
enum verdict verdict_decide_at(const struct verdict_input *in, double threshold_pct, double alpha);

/* About how many boots a side would decide an undecided series: the smallest n for which the
 * 95% interval of the change would reach at most half the threshold on either side of its
 * estimate, given the between-boot CVs (in %, on the test scale) seen so far, by the normal
 * approximation n = ceil((1.96 * sqrt(cv_a^2 + cv_b^2) / (threshold / 2))^2).  At least
 * VERDICT_MIN_BOOTS and at least have + 1 (one more boot than there is); 0 when it cannot be
 * estimated (a CV unknown, threshold <= 0), VERDICT_MAX_BOOTS_NEEDED + 1 for "more than". */
size_t verdict_boots_needed(double cv_a_pct, double cv_b_pct, double threshold_pct,
			    size_t have);
