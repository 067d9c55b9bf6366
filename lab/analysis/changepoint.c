/* Windowed change-point detection: see changepoint.h. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/changepoint.h"
#include "util/cleanup.h"

/* The boots of nights[from..to) into buf; returns how many. */
static size_t pool(const struct cp_night *nights, size_t from, size_t to, double *buf)
{
	size_t k = 0;

	for (size_t i = from; i < to; i++) {
		memcpy(buf + k, nights[i].v, nights[i].n * sizeof(*buf));
		k += nights[i].n;
	}
	return k;
}

/* Test nights [lo, at) against [at, hi) with q = p * m (Bonferroni over m tests). */
static int test_at(const struct cp_night *nights, size_t lo, size_t at, size_t hi,
		   const struct cp_config *cfg, double m, double *a, double *b, struct cp_change *c)
{
	size_t na = pool(nights, lo, at, a), nb = pool(nights, at, hi, b);
	struct stats_summary sa, sb;
	struct stats_diff d;
	struct verdict_input in;
	double dir = cfg->higher ? 1 : -1, ma;
	int r;

	memset(c, 0, sizeof(*c));
	c->at = at;
	c->verdict = VERDICT_INSUFFICIENT;
	c->boots_before = na;
	c->boots_after = nb;
	if (na < VERDICT_MIN_BOOTS || nb < VERDICT_MIN_BOOTS)
		return 0;
	if ((r = stats_summarize(a, na, cfg->kind, &sa)) < 0 ||
	    (r = stats_summarize(b, nb, cfg->kind, &sb)) < 0)
		return r;
	r = stats_welch(a, na, b, nb, cfg->kind, &d);
	if (r < 0)
		return r == -EDOM ? 0 : r;
	ma = sa.mean;
	c->before = sa.mean;
	c->after = sb.mean;
	c->p = d.p;
	c->t = d.t;
	if (ma == 0)
		return 0;
	c->change_pct = dir * (sb.mean - ma) / fabs(ma) * 100 + 0.0;
	c->ci_lo_pct = (cfg->higher ? d.ci_lo : -d.ci_hi) / fabs(ma) * 100 + 0.0;
	c->ci_hi_pct = (cfg->higher ? d.ci_hi : -d.ci_lo) / fabs(ma) * 100 + 0.0;
	in = (struct verdict_input){ .tested = 1, .change_pct = c->change_pct,
				     .ci_lo_pct = c->ci_lo_pct, .ci_hi_pct = c->ci_hi_pct,
				     .q = fmin(1.0, d.p * m) };
	c->verdict = verdict_decide(&in, cfg->threshold_pct);
	c->suspect = d.p < VERDICT_FDR && fabs(c->change_pct) >= cfg->threshold_pct;
	return 0;
}

static int is_change(const struct cp_change *c)
{
	return c->verdict == VERDICT_REGRESSION || c->verdict == VERDICT_IMPROVEMENT;
}

static int bufs(const struct cp_night *nights, size_t n, double **a, double **b)
{
	size_t total = 0;

	for (size_t i = 0; i < n; i++)
		total += nights[i].n;
	*a = malloc((total + 1) * sizeof(**a));
	*b = malloc((total + 1) * sizeof(**b));
	return *a && *b ? 0 : -ENOMEM;
}

static int check_cfg(size_t n, const struct cp_config *cfg, size_t *w)
{
	if (n > CP_MAX_NIGHTS || !(cfg->threshold_pct >= 0))
		return -EINVAL;
	*w = cfg->window ? cfg->window : CP_DEFAULT_WINDOW;
	return 0;
}

int cp_detect(const struct cp_night *nights, size_t n, const struct cp_config *cfg,
	      struct cp_change *out, size_t max, size_t *found)
{
	_cleanup_free_ double *a = NULL, *b = NULL;
	_cleanup_free_ struct cp_change *all = NULL;
	size_t w, k = 0;
	int r;

	*found = 0;
	if ((r = check_cfg(n, cfg, &w)) < 0)
		return r;
	if (n < 2)
		return 0;
	if ((r = bufs(nights, n, &a, &b)) < 0 || !(all = calloc(n, sizeof(*all))))
		return -ENOMEM;
	/* Every night but the first can start a change: n - 1 tests. */
	for (size_t i = 1; i < n; i++) {
		size_t lo = i > w ? i - w : 0, hi = i + w < n ? i + w : n;

		if ((r = test_at(nights, lo, i, hi, cfg, (double)(n - 1), a, b, &all[i])) < 0)
			return r;
	}
	for (size_t i = 1; i < n; i++) {
		size_t best = i;

		if (!is_change(&all[i]))
			continue;
		/* A run of adjacent qualifying nights of one direction is one change. */
		while (i + 1 < n && is_change(&all[i + 1]) && all[i + 1].verdict == all[i].verdict) {
			i++;
			if (fabs(all[i].t) > fabs(all[best].t))
				best = i;
		}
		if (k < max)
			out[k] = all[best];
		k++;
	}
	*found = k;
	return 0;
}

int cp_check_last(const struct cp_night *nights, size_t n, const struct cp_config *cfg,
		  struct cp_change *c)
{
	_cleanup_free_ double *a = NULL, *b = NULL;
	size_t w;
	int r;

	memset(c, 0, sizeof(*c));
	if ((r = check_cfg(n, cfg, &w)) < 0)
		return r;
	if (n < 2)
		return 0;
	if ((r = bufs(nights, n, &a, &b)) < 0)
		return r;
	if ((r = test_at(nights, n - 1 > w ? n - 1 - w : 0, n - 1, n, cfg, 1.0, a, b, c)) < 0)
		return r;
	return c->suspect;
}

int cp_confirm(const double *a, size_t na, const double *b, size_t nb,
	       const struct cp_config *cfg, struct cp_change *c)
{
	struct cp_night two[2] = { { a, na }, { b, nb } };
	_cleanup_free_ double *x = NULL, *y = NULL;
	int r;

	if ((r = bufs(two, 2, &x, &y)) < 0 || (r = test_at(two, 0, 1, 2, cfg, 1.0, x, y, c)) < 0)
		return r;
	c->at = 0;
	return is_change(c);
}

int cp_suspects(const struct cp_night *nights, size_t n, const struct cp_config *cfg,
		const unsigned *tries, struct cp_change *out, size_t max, size_t *nout)
{
	_cleanup_free_ struct cp_change *pts = NULL;
	struct cp_change c;
	size_t found = 0, k = 0;
	int r;

	*nout = 0;
	if ((r = cp_check_last(nights, n, cfg, &c)) < 0)
		return r;
	if (r == 1 && (!tries || tries[n - 1] < CP_MAX_CONFIRMS) && k < max)
		out[k++] = c;
	if (!(pts = calloc(n ? n : 1, sizeof(*pts))))
		return -ENOMEM;
	if ((r = cp_detect(nights, n, cfg, pts, n, &found)) < 0)
		return r;
	for (size_t i = 0; i < found && i < n && k < max; i++) {
		if (pts[i].at == n - 1 || (tries && tries[pts[i].at] >= CP_MAX_CONFIRMS))
			continue;
		out[k++] = pts[i];
	}
	*nout = k;
	return 0;
}
