/* A series' threshold of noise from its history (analysis/noise.h).  Pure. */
#include "analysis/noise.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/cleanup.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double noise_quantile(const double *sorted, size_t n, double q)
{
	double h = (double)(n - 1) * q;
	size_t lo = (size_t)floor(h);

	if (lo + 1 >= n)
		return sorted[n - 1];
	return sorted[lo] + (h - (double)lo) * (sorted[lo + 1] - sorted[lo]);
}

static int usable(const struct noise_point *p)
{
	return p->kernel && p->kernel[0] && isfinite(p->mean) && p->mean != 0;
}

/* The change from p to the same kernel's next point after it, or NAN when there is none
 * (or it is a copy: exactly no change). */
static double next_change(const struct noise_point *p, size_t i, size_t n)
{
	for (size_t j = i + 1; j < n; j++) {
		if (!usable(&p[j]) || strcmp(p[j].kernel, p[i].kernel))
			continue;
		if (p[j].mean == p[i].mean)
			return NAN;
		return 100 * fabs(p[j].mean - p[i].mean) / fabs(p[i].mean);
	}
	return NAN;
}

int noise_learn(const struct noise_point *p, size_t n, struct noise_learned *out)
{
	_cleanup_free_ double *c = malloc((n + 1) * sizeof(*c));
	_cleanup_free_ unsigned char *gave = calloc(n + 1, 1);
	size_t k = 0;

	memset(out, 0, sizeof(*out));
	if (!c || !gave)
		return -ENOMEM;
	/* n is a series' history: a few hundred points at most, so the quadratic scans stay
	 * cheap and need no index by kernel. */
	for (size_t i = 0; i < n; i++) {
		double d;

		if (!usable(&p[i]) || isnan(d = next_change(p, i, n)))
			continue;
		c[k++] = d;
		gave[i] = 1;
	}
	for (size_t i = 0; i < n; i++)
		if (gave[i]) {
			size_t first = i;

			/* Its kernel counts once, at its first point that gave a change. */
			for (size_t j = 0; j < i; j++)
				if (gave[j] && !strcmp(p[j].kernel, p[i].kernel))
					first = j;
			out->kernels += first == i;
		}
	out->changes = k;
	if (k < NOISE_MIN_CHANGES)
		return -ENODATA;
	qsort(c, k, sizeof(*c), cmp_double);
	out->q1_pct = noise_quantile(c, k, 0.25);
	out->q3_pct = noise_quantile(c, k, 0.75);
	out->threshold_pct = out->q3_pct + NOISE_IQR_FENCE * (out->q3_pct - out->q1_pct);
	return 0;
}
