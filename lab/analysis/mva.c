#include "analysis/mva.h"

#include <errno.h>
#include <math.h>

/* One step of the recursion: n CPUs, q = Q_{n-1}; returns Q_n. */
static double step(double z, double d, unsigned n, double q, struct mva_point *p)
{
	p->n = n;
	p->r = d * (1 + q);
	p->x = n / (z + p->r);
	p->u = p->x * d;
	return p->q = p->x * p->r;
}

int mva_solve(double z, double s, double h, unsigned nmax, struct mva_point *out)
{
	return mva_solve_lock(z, s, h, 0, nmax, out);
}

int mva_solve_lock(double z, double s, double h, int ticket, unsigned nmax,
		   struct mva_point *out)
{
	double q = 0;

	if (!isfinite(z) || !isfinite(s) || !isfinite(h) || z < 0 || !(s > 0) || h < 0 ||
	    nmax < 1 || !out)
		return -EINVAL;
	for (unsigned n = 1; n <= nmax; n++)
		q = step(z, s + h * (ticket ? 1 + q : 1), n, q, &out[n - 1]);
	return 0;
}

double mva_knee(double z, double s, double h)
{
	return (z + s + h) / (s + h);
}
