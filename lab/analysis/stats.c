#include "analysis/stats.h"

#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <math.h>

/* The value on the test scale: itself, or its reciprocal for a harmonic mean. */
static double scaled(const double *x, size_t i, int recip)
{
	return recip ? 1.0 / x[i] : x[i];
}

/* Two-pass mean and sample variance (var = 0 when n < 2). */
static void moments(const double *x, size_t n, int recip, double *mean, double *var)
{
	double sum = 0, ss = 0;

	for (size_t i = 0; i < n; i++)
		sum += scaled(x, i, recip);
	*mean = sum / (double)n;
	for (size_t i = 0; i < n; i++) {
		double d = scaled(x, i, recip) - *mean;

		ss += d * d;
	}
	*var = n > 1 ? ss / (double)(n - 1) : 0;
}

double stats_harmonic_mean(const double *x, size_t n)
{
	double m, v;

	moments(x, n, 1, &m, &v);
	return 1.0 / m;
}

static int check_values(const double *x, size_t n, enum stats_mean kind)
{
	if (n == 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]) || (kind == STATS_HARMONIC && x[i] <= 0))
			return -EINVAL;
	return 0;
}

double stats_t_quantile(double df)
{
	return stats_t_quantile_at(STATS_LEVEL, df);
}

double stats_t_quantile_at(double level, double df)
{
	return gsl_cdf_tdist_Pinv(1 - (1 - level) / 2, df);
}

int stats_summarize(const double *x, size_t n, enum stats_mean kind, struct stats_summary *out)
{
	int recip = kind == STATS_HARMONIC;
	double m, var, s, h;

	if (check_values(x, n, kind) < 0)
		return -EINVAL;
	moments(x, n, recip, &m, &var);
	out->n = n;
	out->mean = recip ? 1.0 / m : m;
	out->stddev = out->cv = out->ci_lo = out->ci_hi = NAN;
	if (n < 2)
		return 0;
	s = sqrt(var);
	h = stats_t_quantile((double)(n - 1)) * s / sqrt((double)n);
	if (recip) {
		out->stddev = out->mean * out->mean * s;
		out->cv = s / m;
		out->ci_lo = 1.0 / (m + h);
		out->ci_hi = m > h ? 1.0 / (m - h) : INFINITY;
	} else {
		out->stddev = s;
		out->cv = m != 0 ? s / fabs(m) : NAN;
		out->ci_lo = m - h;
		out->ci_hi = m + h;
	}
	return 0;
}

/* Welch on the test scale: d = mean(b) - mean(a) with its interval, t, df and p. */
static void welch_scaled(const double *a, size_t na, const double *b, size_t nb, int recip,
			 double level, double *ma, struct stats_diff *o)
{
	double mb, va, vb, sa, sb, se, h;

	moments(a, na, recip, ma, &va);
	moments(b, nb, recip, &mb, &vb);
	sa = va / (double)na;
	sb = vb / (double)nb;
	se = sqrt(sa + sb);
	o->diff = mb - *ma;
	if (se == 0) {
		/* Both sides constant: no spread to test against.  Equal means are no change,
		 * different ones are as certain as it gets. */
		o->df = (double)(na + nb - 2);
		o->t = o->diff == 0 ? 0 : copysign(INFINITY, o->diff);
		o->p = o->diff == 0 ? 1 : 0;
		o->ci_lo = o->ci_hi = o->diff;
		return;
	}
	o->df = (sa + sb) * (sa + sb) /
		(sa * sa / (double)(na - 1) + sb * sb / (double)(nb - 1));
	o->t = o->diff / se;
	o->p = 2 * gsl_cdf_tdist_Q(fabs(o->t), o->df);
	if (o->p > 1)
		o->p = 1;
	h = stats_t_quantile_at(level, o->df) * se;
	o->ci_lo = o->diff - h;
	o->ci_hi = o->diff + h;
}

int stats_welch(const double *a, size_t na, const double *b, size_t nb, enum stats_mean kind,
		struct stats_diff *out)
{
	return stats_welch_at(a, na, b, nb, kind, STATS_LEVEL, out);
}

int stats_welch_at(const double *a, size_t na, const double *b, size_t nb, enum stats_mean kind,
		   double level, struct stats_diff *out)
{
	int recip = kind == STATS_HARMONIC;
	double ma, lo, hi;

	if (check_values(a, na, kind) < 0 || check_values(b, nb, kind) < 0)
		return -EINVAL;
	if (na < 2 || nb < 2)
		return -EDOM;
	welch_scaled(a, na, b, nb, recip, level, &ma, out);
	if (!recip)
		return 0;
	/* Back to rate units (see stats.h).  A higher reciprocal is a lower rate, so the
	 * bounds swap and t changes sign to follow the rate difference. */
	lo = out->ci_lo;
	hi = out->ci_hi;
	out->diff = 1.0 / (ma + out->diff) - 1.0 / ma;
	out->ci_lo = 1.0 / (ma + hi) - 1.0 / ma;
	out->ci_hi = ma + lo > 0 ? 1.0 / (ma + lo) - 1.0 / ma : INFINITY;
	out->t = -out->t;
	return 0;
}
