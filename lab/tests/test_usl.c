/* The universal scalability law fit (analysis/usl.h): curves made from known sigma and kappa
 * come back exactly; noisy ones inside their intervals; the fit says nothing outside the
 * measured range; bad input is refused. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "analysis/usl.h"
#include "tap.h"

static double usl(double lambda, double s, double k, unsigned n)
{
	return lambda * n / (1 + s * (n - 1.0) + k * n * (n - 1.0));
}

static void test_exact(void)
{
	static const double cases[][2] = { {0.05, 0.0001}, {0.2, 0}, {0, 0.002}, {0.01, 0.00005} };
	static const unsigned ns[] = { 1, 2, 4, 8, 16, 32, 64 };
	unsigned n[7];
	double x[7];
	struct usl_fit f;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		int r;

		for (int i = 0; i < 7; i++) {
			n[i] = ns[i];
			x[i] = usl(1000, cases[c][0], cases[c][1], ns[i]);
		}
		r = usl_fit(n, x, 7, &f);
		tap_ok(r == 0 && fabs(f.sigma - cases[c][0]) < 1e-9 &&
			       fabs(f.kappa - cases[c][1]) < 1e-12 && fabs(f.lambda - 1000) < 1e-9 &&
			       f.r2 > 0.999999 && f.points == 6,
		       "exact curve sigma %g kappa %g: fitted %g %g", cases[c][0], cases[c][1],
		       f.sigma, f.kappa);
		tap_ok(f.sigma_ci[0] <= f.sigma && f.sigma <= f.sigma_ci[1] &&
			       f.sigma_ci[1] - f.sigma_ci[0] < 1e-6,
		       "... a tight interval on an exact curve");
		tap_ok(fabs(usl_at(&f, 16) - x[4]) < 1e-6 * x[4] && isnan(usl_at(&f, 65)) &&
			       isnan(usl_at(&f, 0)),
		       "... usl_at gives the curve inside 1..64 and nothing outside");
	}
}

/* 2 % noise, three samples per N: the true values inside the 95 % intervals. */
static void test_noisy(void)
{
	static const unsigned ns[] = { 1, 2, 4, 8, 16, 32 };
	unsigned n[18];
	double x[18];
	struct usl_fit f;

	srand(7);
	for (int i = 0; i < 18; i++) {
		double e = ((double)rand() / RAND_MAX - 0.5) * 0.04;

		n[i] = ns[i / 3];
		x[i] = usl(500, 0.03, 0.0005, n[i]) * (1 + e);
	}
	int r = usl_fit(n, x, 18, &f);

	tap_ok(r == 0, "noisy curve fits (sigma %g [%g, %g], kappa %g [%g, %g])", f.sigma,
	       f.sigma_ci[0], f.sigma_ci[1], f.kappa, f.kappa_ci[0], f.kappa_ci[1]);
	tap_ok(f.sigma_ci[0] < 0.03 && 0.03 < f.sigma_ci[1] && f.kappa_ci[0] < 0.0005 &&
		       0.0005 < f.kappa_ci[1],
	       "... the true sigma and kappa lie inside their intervals");
}

static void test_refusals(void)
{
	unsigned n2[] = { 2, 4, 8 }, n1[] = { 1, 4, 4 }, n3[] = { 1, 2, 4 };
	double x[] = { 1, 2, 3 }, bad[] = { 1, -2, 3 }, nan3[] = { 1, NAN, 3 };
	struct usl_fit f;

	tap_ok(usl_fit(n2, x, 3, &f) == -EINVAL, "no point at N = 1: refused");
	tap_ok(usl_fit(n1, x, 3, &f) == -EINVAL, "one distinct N > 1: refused");
	tap_ok(usl_fit(n3, bad, 3, &f) == -EINVAL && usl_fit(n3, nan3, 3, &f) == -EINVAL,
	       "a throughput <= 0 or NaN: refused");
	tap_ok(usl_fit(n3, x, 3, &f) == 0 && isnan(f.sigma_ci[0]),
	       "two N > 1: fitted, but no interval (no degree of freedom)");
}

int main(void)
{
	test_exact();
	test_noisy();
	test_refusals();
	return tap_done();
}
