/* A series' own threshold of noise, learned from its history (`"threshold": "learned"`,
 * `lab compare --threshold learned`).  Pure.
 *
 * The fixed threshold (1 %) is one number for every series; a series whose boots scatter
 * by 3 % needs a larger one, a deterministic one resolves 0.1 %.  rustc-perf sets each
 * benchmark's significance threshold from its own history: the upper fence Q3 + 1.5 IQR of
 * the relative changes between adjacent results (the lower fence is not used: the changes
 * are magnitudes, bounded by 0).  numalab does the same with what it has for noise: the
 * series' points (per report, the mean of its boots) of one kernel measured again, whatever
 * the job was: an A/A's two labels, a nightly's confirmation of the last good night, the
 * same variant run on another day.  Each kernel's points in time order give one change per
 * adjacent pair, 100 |m2 - m1| / |m1|; a change of exactly 0 is the same seeds run again
 * under a deterministic model, a copy and not a measurement of noise, and is left out.
 * Points of different kernels are never paired: their change is what a comparison decides.
 *
 * A point's mean is over however many boots its report had, so the changes mix precisions:
 * the fence is of the changes as they came, not scaled to the boots of the comparison at
 * hand.  Fewer than NOISE_MIN_CHANGES changes learn nothing (the fixed threshold stays). */
#pragma once
#include <stddef.h>

#define NOISE_MIN_CHANGES 8
#define NOISE_IQR_FENCE 1.5

/* One point of a series' history: the mean of a report's boots of one kernel. */
struct noise_point {
	double mean;
	const char *kernel;   /* its content identity (build key, else image hash); NULL or
			       * "": unknown, never paired */
};

struct noise_learned {
	size_t changes;       /* adjacent same-kernel pairs used; 0: nothing learned */
	size_t kernels;       /* kernels that gave at least one */
	double q1_pct, q3_pct;
	double threshold_pct; /* Q3 + NOISE_IQR_FENCE * (Q3 - Q1) */
};

/* The threshold of points p[0..n), oldest first.  0 with *out set; -ENODATA (out->changes
 * says how many there were) below NOISE_MIN_CHANGES; -ENOMEM. */
int noise_learn(const struct noise_point *p, size_t n, struct noise_learned *out);

/* The q-quantile (0..1) of sorted x[0..n), n >= 1, interpolated between order statistics
 * (Hyndman and Fan's type 7, R's and NumPy's default). */
double noise_quantile(const double *sorted, size_t n, double q);
