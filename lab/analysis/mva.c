#include "analysis/mva.h"

#include <errno.h>
#include <math.h>

int mva_solve(double z, double s, double h, unsigned nmax, struct mva_point *out)
{
	double d = s + h, q = 0;

	if (!isfinite(z) || !isfinite(s) || !isfinite(h) || z < 0 || !(s > 0) || h < 0 ||
	    nmax < 1 || !out)
		return -EINVAL;
	for (unsigned n = 1; n <= nmax; n++) {
		struct mva_point *p = &out[n - 1];

		p->n = n;
		p->r = d * (1 + q);
		p->x = n / (z + p->r);
		p->q = q = p->x * p->r;
		p->u = p->x * d;
	}
	return 0;
}

double mva_knee(double z, double s, double h)
{
	return (z + s + h) / (s + h);
}
