#include "analysis/robust.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cleanup.h"

/* Above this many values in all the exact distribution is not computed (the normal
 * approximation is good long before). */
#define MW_EXACT_MAX 60

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

double robust_mw_min_p(size_t na, size_t nb)
{
	double c = 1;

	/* C(na + nb, na), as a double: exact for the sizes that matter here. */
	for (size_t i = 1; i <= na; i++)
		c = c * (double)(nb + i) / (double)i;
	return c > 0 ? fmin(1, 2 / c) : NAN;
}

/* P(W <= w) and P(W >= w) for the sum W of na ranks drawn from 1..n without ties, by counting
 * the subsets of each size and sum. */
static double exact_p(size_t na, size_t n, double w)
{
	size_t max = n * (n + 1) / 2;
	_cleanup_free_ double *f = calloc((na + 1) * (max + 1), sizeof(*f));
	double le = 0, ge = 0, all = 0;

	if (!f)
		return NAN;
	f[0] = 1;
	for (size_t i = 1; i <= n; i++)
		for (size_t k = (i < na ? i : na); k >= 1; k--)
			for (size_t s = max; s >= i; s--)
				f[k * (max + 1) + s] += f[(k - 1) * (max + 1) + s - i];
	for (size_t s = 0; s <= max; s++) {
		double c = f[na * (max + 1) + s];

		all += c;
		le += (double)s <= w + 1e-9 ? c : 0;
		ge += (double)s >= w - 1e-9 ? c : 0;
	}
	return fmin(1, 2 * fmin(le, ge) / all);
}

double robust_mw_p(const double *a, size_t na, const double *b, size_t nb)
{
	size_t n = na + nb, ties = 0;
	_cleanup_free_ double *v = malloc(n * sizeof(*v)), *rank = malloc(n * sizeof(*rank));
	_cleanup_free_ size_t *idx = malloc(n * sizeof(*idx));
	double w = 0, tie_term = 0;

	if (!na || !nb || !v || !rank || !idx)
		return NAN;
	memcpy(v, a, na * sizeof(*v));
	memcpy(v + na, b, nb * sizeof(*v));
	/* Ranks by insertion order of a sort on (value, index): n is small. */
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && v[idx[j - 1]] > v[idx[j]]; j--) {
			size_t t = idx[j];
			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j + 1 < n && v[idx[j + 1]] == v[idx[i]])
			j++;
		for (size_t k = i; k <= j; k++)
			rank[idx[k]] = (double)(i + j) / 2 + 1;
		if (j > i) {
			double t = (double)(j - i + 1);

			ties++;
			tie_term += t * t * t - t;
		}
		i = j + 1;
	}
	for (size_t i = 0; i < na; i++)
		w += rank[i];
	if (!ties && n <= MW_EXACT_MAX)
		return exact_p(na, n, w);
	/* Normal approximation of W, the tie correction on its variance, continuity 0.5. */
	double mean = (double)na * (double)(n + 1) / 2;
	double var = (double)na * (double)nb / 12 * ((double)(n + 1) - tie_term / ((double)n * (double)(n - 1)));
	if (var <= 0)
		return 1; /* every value equal */
	double z = (fabs(w - mean) - 0.5) / sqrt(var);
	return z <= 0 ? 1 : fmin(1, erfc(z / sqrt(2)));
}

/* splitmix64: a fixed, portable sequence, so the same data give the same interval. */
static uint64_t mix_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double resample_mean(const double *x, size_t n, enum stats_mean kind, uint64_t *s)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++) {
		double v = x[mix_next(s) % n];

		sum += kind == STATS_HARMONIC ? 1 / v : v;
	}
	return kind == STATS_HARMONIC ? (double)n / sum : sum / (double)n;
}

int robust_boot_ci(const double *a, size_t na, const double *b, size_t nb,
		   enum stats_mean kind, double *lo_pct, double *hi_pct)
{
	_cleanup_free_ double *st = NULL;
	uint64_t seed = 0x6e756d616c6162ull ^ ((uint64_t)na << 32) ^ nb;

	if (na < ROBUST_BOOT_MIN || nb < ROBUST_BOOT_MIN)
		return -EDOM;
	for (size_t i = 0; i < na + nb; i++) {
		double v = i < na ? a[i] : b[i - na];

		if (!isfinite(v) || (kind == STATS_HARMONIC && v <= 0))
			return -EINVAL;
	}
	if (!(st = malloc(ROBUST_BOOT_ITERS * sizeof(*st))))
		return -ENOMEM;
	for (size_t i = 0; i < ROBUST_BOOT_ITERS; i++) {
		double ma = resample_mean(a, na, kind, &seed), mb = resample_mean(b, nb, kind, &seed);

		if (ma == 0)
			return -EINVAL;
		st[i] = 100 * (mb - ma) / fabs(ma);
	}
	qsort(st, ROBUST_BOOT_ITERS, sizeof(*st), cmp_double);
	*lo_pct = st[(size_t)floor(0.025 * (ROBUST_BOOT_ITERS - 1))];
	*hi_pct = st[(size_t)ceil(0.975 * (ROBUST_BOOT_ITERS - 1))];
	return 0;
}

int robust_two_modes(const double *x, size_t n, double threshold_pct, double *gap_pct)
{
	_cleanup_free_ double *v = n >= 4 ? malloc(n * sizeof(*v)) : NULL;
	double med, best = 0;
	size_t at = 0;

	*gap_pct = 0;
	if (!v)
		return 0;
	memcpy(v, x, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_double);
	med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	if (med == 0)
		return 0;
	for (size_t i = 2; i + 2 <= n; i++) /* at least two values on each side of the gap */
		if (v[i] - v[i - 1] > best) {
			best = v[i] - v[i - 1];
			at = i;
		}
	if (!at)
		return 0;
	double r1 = v[at - 1] - v[0], r2 = v[n - 1] - v[at], pct = 100 * best / fabs(med);

	if (best <= ROBUST_MODE_GAP_RATIO * fmax(r1, r2) || pct <= threshold_pct)
		return 0;
	*gap_pct = pct;
	return 1;
}

enum verdict robust_overrule(enum verdict v, size_t na, size_t nb, double rank_p,
			     double boot_lo_pct, double boot_hi_pct, const double gap_pct[2],
			     double threshold_pct, char *why, size_t len)
{
	int changed = v == VERDICT_REGRESSION || v == VERDICT_IMPROVEMENT;
	size_t used = 0;

	why[0] = '\0';
	/* Modes are said wherever a test ran; the rest only second-guesses a decision. */
	if (!changed && v != VERDICT_NO_CHANGE && v != VERDICT_INCONCLUSIVE)
		return v;
	if (v == VERDICT_INCONCLUSIVE)
		goto modes;
	if (changed && robust_mw_min_p(na, nb) <= ROBUST_ALPHA && rank_p > ROBUST_ALPHA)
		used += (size_t)snprintf(why + used, len - used, "%sthe rank test finds no "
					 "difference (Mann-Whitney p = %.2g)", used ? "; " : "",
					 rank_p);
	if (!isnan(boot_lo_pct) && used < len &&
	    (changed ? boot_lo_pct < threshold_pct && boot_hi_pct > -threshold_pct
		     : boot_lo_pct < -threshold_pct || boot_hi_pct > threshold_pct))
		used += (size_t)snprintf(why + used, len - used, "%sthe bootstrap interval "
					 "[%+.2f%%, %+.2f%%] %s", used ? "; " : "", boot_lo_pct,
					 boot_hi_pct, changed ? "does not clear the threshold"
							      : "leaves the threshold's band");
modes:
	for (int side = 0; side < 2 && used < len; side++)
		if (gap_pct[side] > 0)
			used += (size_t)snprintf(why + used, len - used, "%s%c's boots fall in two "
						 "modes %.2f%% apart", used ? "; " : "",
						 side ? 'B' : 'A', gap_pct[side]);
	return used ? VERDICT_INCONCLUSIVE : v;
}
