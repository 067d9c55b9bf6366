#include "analysis/usl.h"

#include <errno.h>
#include <math.h>

#include "analysis/stats.h"

static int points_ok(const unsigned *n, const double *x, size_t len, double *lambda,
		     unsigned *n_min, unsigned *n_max)
{
	double sum1 = 0;
	size_t ones = 0;
	unsigned second = 0;

	*n_min = ~0u;
	*n_max = 0;
	for (size_t i = 0; i < len; i++) {
		if (!isfinite(x[i]) || !(x[i] > 0) || n[i] < 1)
			return -EINVAL;
		if (n[i] == 1) {
			sum1 += x[i];
			ones++;
		} else if (!second)
			second = n[i];
		else if (n[i] != second)
			second = ~0u; /* two distinct N > 1 seen */
		*n_min = n[i] < *n_min ? n[i] : *n_min;
		*n_max = n[i] > *n_max ? n[i] : *n_max;
	}
	if (!ones || second != ~0u)
		return -EINVAL;
	*lambda = sum1 / (double)ones;
	return 0;
}

/* Point i in the linear form: a = N - 1, b = N (N - 1), y = N / C(N) - 1. */
static void usl_row(unsigned n, double x, double lambda, double *a, double *b, double *y)
{
	*a = n - 1.0;
	*b = n * *a;
	*y = n / (x / lambda) - 1;
}

int usl_fit(const unsigned *n, const double *x, size_t len, struct usl_fit *out)
{
	/* Normal equations of y = sigma a + kappa b, a = N - 1, b = N (N - 1). */
	double saa = 0, sab = 0, sbb = 0, say = 0, sby = 0, syy = 0, det, rss = 0;
	size_t m = 0;
	int r;

	if (!n || !x || !out)
		return -EINVAL;
	r = points_ok(n, x, len, &out->lambda, &out->n_min, &out->n_max);
	if (r < 0)
		return r;
	for (size_t i = 0; i < len; i++) {
		double a, b, y;

		if (n[i] == 1)
			continue;
		usl_row(n[i], x[i], out->lambda, &a, &b, &y);
		saa += a * a;
		sab += a * b;
		sbb += b * b;
		say += a * y;
		sby += b * y;
		syy += y * y;
		m++;
	}
	det = saa * sbb - sab * sab;
	if (!(det > 0))
		return -EINVAL;
	out->sigma = (sbb * say - sab * sby) / det;
	out->kappa = (saa * sby - sab * say) / det;
	out->points = m;
	for (size_t i = 0; i < len; i++) {
		double a, b, y;

		if (n[i] == 1)
			continue;
		usl_row(n[i], x[i], out->lambda, &a, &b, &y);
		rss += (y - out->sigma * a - out->kappa * b) * (y - out->sigma * a - out->kappa * b);
	}
	out->r2 = syy > 0 ? 1 - rss / syy : 1;
	out->sigma_ci[0] = out->sigma_ci[1] = out->kappa_ci[0] = out->kappa_ci[1] = NAN;
	if (m >= 3) {
		double s2 = rss / (double)(m - 2), t = stats_t_quantile((double)(m - 2));
		double hs = t * sqrt(s2 * sbb / det), hk = t * sqrt(s2 * saa / det);

		out->sigma_ci[0] = out->sigma - hs;
		out->sigma_ci[1] = out->sigma + hs;
		out->kappa_ci[0] = out->kappa - hk;
		out->kappa_ci[1] = out->kappa + hk;
	}
	return 0;
}

double usl_at(const struct usl_fit *f, unsigned n)
{
	if (n < f->n_min || n > f->n_max)
		return NAN;
	return f->lambda * n / (1 + f->sigma * (n - 1.0) + f->kappa * n * (n - 1.0));
}
