/* Change points in a series of nightly measurements (`lab nightly`, the dashboard's trends).
 * Pure.
 *
 * A series is one value per boot, grouped by night (each night a kernel built from the tracked
 * branch's head, booted a few times).  The method is a windowed two-sample test, as the
 * change-point detectors of performance CI do it (e.g. MongoDB's and Netflix's, after
 * E-divisive means proved to need many points): at each night i, the boots of up to `window`
 * nights before i are compared with those of night i and up to window - 1 nights after it,
 * with the lab's rule (lab/analysis/verdict.h): Welch's test on the boots, and a change only
 * when it is significant after a Bonferroni correction over the nights tested and the whole
 * 95 % interval lies beyond the threshold.  Of adjacent nights that qualify, the one with the
 * largest |t| is the change point (a step seen from several windows is one change).
 *
 * The last night of a series is tested with itself alone on the right: that is the nightly
 * fast check ("tonight against the recent baseline").  It is looser than the rule above on
 * purpose: tonight is a suspect when the change is significant (p < 0.05) and its estimate at
 * least the threshold, since a suspicion only costs a confirmation: tonight's kernel and the
 * last good one measured again side by side (cp_confirm, the strict rule), before anything is
 * called a regression or bisected. */
#pragma once
#include <stddef.h>

#include "analysis/stats.h"
#include "analysis/verdict.h"

#define CP_DEFAULT_WINDOW 5
#define CP_MAX_NIGHTS 100000

/* One night: its per-boot values (none: a night that failed, skipped by the test). */
struct cp_night {
	const double *v;
	size_t n;
};

struct cp_config {
	size_t window;         /* nights on each side; 0: CP_DEFAULT_WINDOW */
	double threshold_pct;  /* the change that counts */
	int higher;            /* 1 when higher is better (the sign of change_pct) */
	enum stats_mean kind;  /* harmonic for rates, as compare does */
};

struct cp_change {
	size_t at;               /* the first night after the change */
	double before, after;    /* means of the windows' boots */
	double change_pct;       /* + = better */
	double ci_lo_pct, ci_hi_pct;
	double p, t;             /* Welch's two-sided p (uncorrected) and t */
	size_t boots_before, boots_after;
	enum verdict verdict;    /* by the strict rule */
	int suspect;             /* cp_check_last: significant and at least the threshold */
};

/* The change points of nights[0..n), oldest first, into out (room for max); *found gets how
 * many there are (may exceed max).  -EINVAL for a bad config or more than CP_MAX_NIGHTS nights,
 * -ENOMEM. */
int cp_detect(const struct cp_night *nights, size_t n, const struct cp_config *cfg,
	      struct cp_change *out, size_t max, size_t *found);

/* The fast check of the last night against up to window nights before it: 1 when tonight is a
 * suspect (c->suspect), 0 when not or when there is too little data, negative errno on error;
 * *c has the numbers either way. */
int cp_check_last(const struct cp_night *nights, size_t n, const struct cp_config *cfg,
		  struct cp_change *c);
/* Most confirmations one night gets: the change-point scan names a refuted night again as
 * more nights back it, up to this often. */
#define CP_MAX_CONFIRMS 3

/* What tonight (the last of nights[0..n)) asks to confirm: tonight when the fast check makes
 * it a suspect, then every change point of the series whose night has had fewer than
 * CP_MAX_CONFIRMS confirmations (tries[i], for each night; NULL: none yet) and is not tonight.
 * A step the fast check missed shows there once nights on both sides of it are measured.
 * Into out (room for max), *nout how many.  Errors as cp_detect. */
int cp_suspects(const struct cp_night *nights, size_t n, const struct cp_config *cfg,
		const unsigned *tries, struct cp_change *out, size_t max, size_t *nout);

/* The confirmation: boots b[0..nb) (tonight, measured again) against a[0..na) (the last good
 * kernel, beside it) by the strict rule; 1 when c->verdict is a change, 0 when not. */
int cp_confirm(const double *a, size_t na, const double *b, size_t nb,
	       const struct cp_config *cfg, struct cp_change *c);
