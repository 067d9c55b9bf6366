/* Second opinions on a series' verdict, for data Welch's test reads wrongly.  Pure.
 *
 * Welch's test assumes the per-boot means are roughly normal.  Bimodal data (THP success
 * against fallback, icount's modes) and one stalled boot fool it: Perfherder moved to a
 * rank test with bootstrap intervals and mode detection after a t-test was fooled that way.
 * Beside each tested row `lab compare` computes:
 *   - the Mann-Whitney rank test of B against A (two-sided; exact from the rank-sum
 *     distribution without ties, else the normal approximation with the tie correction);
 *   - a percentile bootstrap interval of the relative change (ROBUST_BOOT_ITERS resamples of
 *     each side, a fixed seed: the same data give the same interval), with enough boots;
 *   - whether a side's boots fall in two modes: the widest gap between sorted values splits
 *     them into two groups of at least two, wider than ROBUST_MODE_GAP_RATIO times either
 *     group's range and than the row's threshold (a gap smaller than the threshold cannot
 *     make a change of the threshold's size on its own).
 * A verdict they contradict is "inconclusive" with the reason (analysis/compare.c). */
#pragma once
#include <stddef.h>

#include "analysis/stats.h"
#include "analysis/verdict.h"

/* The rank test's level; it disagrees with a significant Welch verdict only when it could
 * reach this with the boots there are (2 + 2 or 3 + 3 boots never can). */
#define ROBUST_ALPHA 0.05
/* Fewest boots a side for a bootstrap interval: below, too few distinct resamples. */
#define ROBUST_BOOT_MIN 5
#define ROBUST_BOOT_ITERS 2000
/* A gap between two modes is this many times wider than either mode's own range. */
#define ROBUST_MODE_GAP_RATIO 3.0

/* Two-sided Mann-Whitney p-value of b against a (na, nb >= 1); NAN when a side is empty. */
double robust_mw_p(const double *a, size_t na, const double *b, size_t nb);
/* The smallest two-sided p the exact test can give with na + nb values: 2 / C(na+nb, na). */
double robust_mw_min_p(size_t na, size_t nb);

/* 95% percentile bootstrap interval of 100 * (mean(B) - mean(A)) / |mean(A)| (kind: the
 * mean of lab/analysis/stats.h), unsigned direction (B above A is +).  -EDOM below
 * ROBUST_BOOT_MIN values a side, -EINVAL for values the mean cannot take, -ENOMEM. */
int robust_boot_ci(const double *a, size_t na, const double *b, size_t nb,
		   enum stats_mean kind, double *lo_pct, double *hi_pct);

/* Whether x[0..n) falls in two modes (above) for a threshold in % of the median; the gap
 * in % of the median in *gap_pct (0 when not). */
int robust_two_modes(const double *x, size_t n, double threshold_pct, double *gap_pct);

/* Welch's verdict v overruled: a regression or improvement the rank test does not find
 * (where it could: robust_mw_min_p <= ROBUST_ALPHA) or whose bootstrap interval does not
 * clear the threshold, a no-change whose bootstrap interval leaves the threshold's band, or
 * either side in two modes (gap_pct[0] A, [1] B, 0 when not) makes it inconclusive, with why
 * ("" when it stands).  An inconclusive verdict gets the modes said, too.  boot_lo/hi are NAN
 * when there was no bootstrap.  Other verdicts are returned as they are. */
enum verdict robust_overrule(enum verdict v, size_t na, size_t nb, double rank_p,
			     double boot_lo_pct, double boot_hi_pct, const double gap_pct[2],
			     double threshold_pct, char *why, size_t len);
