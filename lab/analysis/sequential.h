/* Sequential A/B: boots in rounds, stopping as soon as every deciding series is decided
 * either way, with the error rate of a fixed design.  Pure.
 *
 * Looking at the data after every round and stopping at the first decision inflates the
 * error of a test made for one look: at 95 % intervals, five looks at an A/A find a change
 * about 14 % of the time, not 5 % (Armitage, McPherson and Rowe 1969).  The lab uses
 * repeated confidence intervals (Jennison and Turnbull 1989) with Pocock's boundary: at every
 * look k of at most K, each deciding series' interval is taken at the level 1 - alpha_K
 * instead of 95 %, with alpha_K the nominal level at which K looks together cross with
 * probability 5 %.  Such intervals cover the true change at every look at once with 95 %, so
 * every decision the lab's rule draws from them (a regression or improvement when the whole
 * interval lies beyond the threshold, no change when it lies inside it: verdict.h) keeps a
 * 5 % error whenever the rounds stop, by a decision or at the cap.  Why Pocock's constant
 * boundary and not O'Brien and Fleming's: a change the deterministic models show at all, they
 * show clearly in a few boots, and a constant boundary lets those stop early, where O'Brien
 * and Fleming's demands near-certainty at the first looks; the price is wider intervals at
 * the last look (alpha_5 = 0.0158: 97.4 % intervals after five rounds).
 *
 * The constant is computed, not tabled: the probability that a standardised sum of k
 * independent normal increments stays inside +-c sqrt(k) for k = 1..K, by the recursive
 * numerical integration of Armitage, McPherson and Rowe on a grid, and c found by bisection.
 * The per-boot means of a series are not normal, and with few boots the lab's intervals use
 * Student's t: the nominal level alpha_K is applied to Welch's t interval, the usual
 * approximation (Jennison and Turnbull, ch. 3), and the test checks it on recorded A/A data. */
#pragma once
#include <jansson.h>
#include <stddef.h>

#define SEQ_ALPHA 0.05
#define SEQ_MAX_LOOKS 50

/* Pocock's critical value c for K equally spaced looks at two-sided level alpha (0 < alpha <
 * 1): P(|Z_k| < c for every k <= K) = 1 - alpha under no change.  NAN for K outside
 * 1..SEQ_MAX_LOOKS. */
double seq_pocock_c(unsigned looks, double alpha);
/* The nominal level of each look: 2 (1 - Phi(c)) for c = seq_pocock_c(looks, SEQ_ALPHA);
 * SEQ_ALPHA for one look. */
double seq_look_alpha(unsigned looks);

struct seq_status {
	int decided;           /* every deciding series of every label against the first */
	size_t series, undecided;
	char first_undecided[256]; /* which, and its verdict */
};

/* Whether the runs so far (a report's "runs" array, numalab.report/1 shape) decide every
 * deciding series of every label against the first at alpha (seq_look_alpha(K)) and the
 * fixed threshold threshold_pct.  -EINVAL when a run is malformed or the labels cannot be
 * compared, -ENOMEM. */
int seq_check(json_t *runs, double alpha, unsigned looks, double threshold_pct,
	      struct seq_status *st);
