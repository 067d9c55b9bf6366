/* Gunther's universal scalability law fitted to a measured scaling curve: throughput
 *     X(N) = lambda N / (1 + sigma (N - 1) + kappa N (N - 1))
 * with sigma the contention (serial) share and kappa the coherency (crosstalk) cost.  With
 * lambda = X(1) measured, the capacity C(N) = X(N) / X(1) gives the linear form
 *     N / C(N) - 1 = sigma (N - 1) + kappa N (N - 1),
 * a least-squares fit of two coefficients without intercept (Gunther, "Guerrilla Capacity
 * Planning", ch. 5), with Student t intervals at STATS_LEVEL.  Descriptive only: the fit is
 * never extrapolated beyond the measured N and never enters a verdict.  Pure. */
#pragma once
#include <stddef.h>

struct usl_fit {
	double lambda;              /* X(1): the mean of the points at N = 1 */
	double sigma, kappa;
	double sigma_ci[2], kappa_ci[2]; /* 95 % intervals; NAN with fewer than 3 points N > 1 */
	double r2;                  /* of the linear form, uncentred */
	unsigned n_min, n_max;      /* the measured range: the only one the fit describes */
	size_t points;              /* points with N > 1 the fit used */
};

/* Fit points (n[i], x[i]), i < len, in any order, several per N allowed.  -EINVAL without a
 * point at N = 1, with a throughput <= 0 or not finite, or with fewer than two distinct
 * N > 1. */
int usl_fit(const unsigned *n, const double *x, size_t len, struct usl_fit *out);
/* The fitted curve at N (within [n_min, n_max] only; NAN outside). */
double usl_at(const struct usl_fit *f, unsigned n);
