/* Descriptive statistics and Welch's t-test for A/B comparisons of workload metrics.  Pure.
 *
 * Times and counts are averaged arithmetically.  Rates (work per second) are averaged
 * harmonically: the harmonic mean of rates is the rate of the total work done in the total
 * time, which the arithmetic mean is not.  Everything for a harmonic mean is computed on the
 * reciprocals 1/x (seconds per unit of work), where the harmonic mean is an ordinary
 * arithmetic mean, and mapped back to rate units at the end:
 *   mean       H = 1 / m,            m = mean of 1/x
 *   stddev     H^2 * s               s = sample stddev of 1/x (delta method)
 *   cv         s / m                 (= stddev / H)
 *   95% CI of the mean               [1/(m + h), 1/(m - h)], h = t(0.975, n-1) * s / sqrt(n);
 *                                    exact under the map, not symmetric; +inf when m <= h
 *   Welch test on the reciprocals; the interval [lo, hi] of m_B - m_A becomes, in rate units,
 *              [1/(m_A + hi) - H_A, 1/(m_A + lo) - H_A]
 *   (+inf upper bound when m_A + lo <= 0).  That maps the reciprocal interval through
 *   H_B - H_A = 1/m_B - 1/m_A holding the baseline m_A fixed, the same simplification as
 *   quoting any interval in % of the baseline mean.  It excludes 0 exactly when the
 *   reciprocal interval does, so the interval and the p-value always agree.
 * Quantiles and tail probabilities of Student's t come from GSL. */
#pragma once
#include <stddef.h>

/* Confidence level of every interval here. */
#define STATS_LEVEL 0.95

enum stats_mean { STATS_ARITHMETIC, STATS_HARMONIC };

struct stats_summary {
	size_t n;
	double mean;          /* arithmetic or harmonic */
	double stddev;        /* sample stddev (n - 1); NAN when n < 2 */
	double cv;            /* stddev / mean; NAN when n < 2 or the mean is 0 */
	double ci_lo, ci_hi;  /* 95% CI of the mean (Student t); NAN when n < 2; ci_hi may be
			       * +INFINITY for a harmonic mean */
};

struct stats_diff {
	double diff;          /* mean(B) - mean(A), in the values' units */
	double ci_lo, ci_hi;  /* 95% CI of diff (Welch); ci_hi may be +INFINITY (harmonic) */
	double t;             /* Welch t on the test scale, signed like diff; +-INFINITY when
			       * both sides are constant and differ */
	double df;            /* Welch-Satterthwaite degrees of freedom */
	double p;             /* two-sided p-value */
};

/* n / sum(1/x); every x > 0. */
double stats_harmonic_mean(const double *x, size_t n);

/* -EINVAL when n == 0, a value is not finite, or kind is harmonic and a value is <= 0. */
int stats_summarize(const double *x, size_t n, enum stats_mean kind, struct stats_summary *out);
/* Welch's unequal-variances t-test of B against A.  -EDOM when a side has fewer than two
 * values; -EINVAL as stats_summarize. */
int stats_welch(const double *a, size_t na, const double *b, size_t nb, enum stats_mean kind,
		struct stats_diff *out);
/* The same at confidence level (0..1): a sequential look's wider interval (sequential.h). */
int stats_welch_at(const double *a, size_t na, const double *b, size_t nb, enum stats_mean kind,
		   double level, struct stats_diff *out);
/* The two-sided Student t quantile for STATS_LEVEL with df >= 1 degrees of freedom: half an
 * interval is this times the standard error. */
double stats_t_quantile(double df);
double stats_t_quantile_at(double level, double df);
