/* The machine-repairman MVA (analysis/mva.h): values worked by hand, the asymptotic bounds
 * X_n <= min(n / (Z + S), 1 / S) for every n, the knee, and a golden table of curves
 * (lab/tests/golden/mva.txt; UPDATE_GOLDEN=1 rewrites it). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mva.h"
#include "tap.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/strbuf.h"

#define NMAX 512

static int near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1, fabs(b));
}

/* Z = 9, S = 1, H = 0, worked by hand:
 *   n=1: R = 1,           X = 1/10,             Q = 0.1
 *   n=2: R = 1.1,         X = 2/10.1,           Q = 2.2/10.1
 *   n=3: R = 1 + 2.2/10.1 = 12.3/10.1, X = 3/(9 + 12.3/10.1) = 30.3/103.2 */
static void test_by_hand(void)
{
	struct mva_point p[3];

	tap_ok(mva_solve(9, 1, 0, 3, p) == 0, "Z 9, S 1: solves");
	tap_ok(near(p[0].r, 1) && near(p[0].x, 0.1) && near(p[0].q, 0.1) && near(p[0].u, 0.1),
	       "n=1: R 1, X 0.1, Q 0.1, U 0.1");
	tap_ok(near(p[1].r, 1.1) && near(p[1].x, 2 / 10.1) && near(p[1].q, 2.2 / 10.1),
	       "n=2: R 1.1, X 2/10.1, Q 2.2/10.1");
	tap_ok(near(p[2].r, 12.3 / 10.1) && near(p[2].x, 30.3 / 103.2), "n=3: R 12.3/10.1, X 30.3/103.2");
	tap_ok(near(mva_knee(9, 1, 0), 10), "knee (Z + S) / S = 10");
	/* The hand-off is service time: Z 8, S 1, H 1 is Z 8, S 2. */
	struct mva_point a[8], b[8];
	int same = mva_solve(8, 1, 1, 8, a) == 0 && mva_solve(8, 2, 0, 8, b) == 0;

	for (int i = 0; same && i < 8; i++)
		same = near(a[i].x, b[i].x) && near(a[i].r, b[i].r);
	tap_ok(same, "a hand-off H adds to the time at the lock: (8, 1, 1) == (8, 2, 0)");
}

static void test_bounds(void)
{
	static const double cases[][3] = {
		{9, 1, 0}, {100, 1, 0}, {1000, 1, 0.5}, {0, 1, 0}, {50, 0.01, 0}, {3, 7, 2},
	};
	_cleanup_free_ struct mva_point *p = calloc(NMAX, sizeof(*p));

	for (size_t c = 0; p && c < sizeof(cases) / sizeof(cases[0]); c++) {
		double z = cases[c][0], s = cases[c][1], h = cases[c][2], d = s + h;
		int ok = mva_solve(z, s, h, NMAX, p) == 0, mono = 1;

		for (unsigned i = 0; ok && i < NMAX; i++) {
			double bound = fmin((i + 1) / (z + d), 1 / d);

			ok = p[i].x <= bound * (1 + 1e-12) && p[i].u <= 1 + 1e-12 && p[i].r >= d;
			mono &= i == 0 || p[i].x >= p[i - 1].x * (1 - 1e-12);
		}
		tap_ok(ok, "Z %g S %g H %g: X <= min(n/(Z+S+H), 1/(S+H)), U <= 1, R >= S+H, n 1..%d",
		       z, s, h, NMAX);
		tap_ok(mono, "Z %g S %g H %g: throughput never falls with n", z, s, h);
		/* Far past the knee the lock is saturated: X -> 1/(S+H). */
		tap_ok(mva_knee(z, s, h) * 4 > NMAX || fabs(p[NMAX - 1].x * d - 1) < 1e-3,
		       "Z %g S %g H %g: saturates at 1/(S+H) well past the knee (%.1f)", z, s, h,
		       mva_knee(z, s, h));
	}
}

static void test_refusals(void)
{
	struct mva_point p[1];

	tap_ok(mva_solve(-1, 1, 0, 1, p) == -EINVAL && mva_solve(1, 0, 0, 1, p) == -EINVAL &&
		       mva_solve(1, 1, -1, 1, p) == -EINVAL && mva_solve(1, 1, 0, 0, p) == -EINVAL &&
		       mva_solve(NAN, 1, 0, 1, p) == -EINVAL && mva_solve(1, INFINITY, 0, 1, p) == -EINVAL,
	       "refuses Z < 0, S <= 0, H < 0, N 0, non-finite inputs");
}

/* mva_solve_lock: ticket 0 is mva_solve; a ticket lock with no hand-off is a queued one;
 * with one, it is never faster, and by hand at n = 2. */
static void test_lock(void)
{
	struct mva_point a[64], b[64];
	int same = 1, slower = 1;

	tap_ok(mva_solve_lock(20, 1, 0.5, 0, 64, a) == 0 && mva_solve(20, 1, 0.5, 64, b) == 0,
	       "lock: solves");
	for (int i = 0; i < 64; i++)
		same &= a[i].x == b[i].x && a[i].r == b[i].r && a[i].u == b[i].u;
	tap_ok(same, "lock: queued is mva_solve, bit for bit");
	mva_solve_lock(20, 1, 0, 1, 64, a);
	mva_solve(20, 1, 0, 64, b);
	same = 1;
	for (int i = 0; i < 64; i++)
		same &= a[i].x == b[i].x;
	tap_ok(same, "lock: a ticket lock without a hand-off cost is a queued one");
	mva_solve_lock(20, 1, 0.5, 1, 64, a);
	mva_solve_lock(20, 1, 0.5, 0, 64, b);
	for (int i = 0; i < 64; i++)
		slower &= a[i].x <= b[i].x * (1 + 1e-12);
	/* n=1: Q0 = 0, D = 1 + 0.5 = 1.5, X = 1/21.5, Q1 = 1.5/21.5; n=2: D = 1 + 0.5 (1 + Q1). */
	{
		double q1 = 1.5 / 21.5, d2 = 1 + 0.5 * (1 + q1), r2 = d2 * (1 + q1);

		tap_ok(slower && near(a[1].r, r2) && near(a[1].x, 2 / (20 + r2)),
		       "lock: a ticket lock is never faster; n=2 by hand (R %.6f)", r2);
	}
	tap_ok(mva_solve_lock(20, 1, -1, 0, 64, a) == -EINVAL &&
		       mva_solve_lock(20, 1, NAN, 1, 4, a) == -EINVAL,
	       "lock: refuses a negative or non-finite hand-off");
}

/* Curves a projection would draw, kept so a change of the model shows in review. */
static void test_golden(int update)
{
	static const double cases[][3] = { {9, 1, 0}, {200, 1, 0}, {200, 1, 0.25}, {2000, 3, 0} };
	static const unsigned ns[] = { 1, 2, 4, 8, 16, 32, 64, 128, 256, 512 };
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	_cleanup_free_ char *got = NULL, *want = NULL;
	struct mva_point p[512];
	const char *golden = "lab/tests/golden/mva.txt";

	strbuf_append(&sb, "# Z\tS\tH\tn\tX\tR\tQ\tU\n");
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		if (mva_solve(cases[c][0], cases[c][1], cases[c][2], 512, p) < 0)
			continue;
		for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
			const struct mva_point *q = &p[ns[i] - 1];

			strbuf_appendf(&sb, "%g\t%g\t%g\t%u\t%.9g\t%.9g\t%.9g\t%.9g\n", cases[c][0],
				       cases[c][1], cases[c][2], q->n, q->x, q->r, q->q, q->u);
		}
	}
	if (strbuf_take(&sb, &got) < 0)
		return;
	if (update)
		tap_ok(fs_write_atomic(golden, got, strlen(got)) == 0, "golden rewritten");
	else
		tap_ok(fs_read_file(golden, 1 << 20, &want, NULL) == 0 && !strcmp(want, got),
		       "curves match %s", golden);
}

int main(void)
{
	const char *u = getenv("UPDATE_GOLDEN");

	test_by_hand();
	test_bounds();
	test_refusals();
	test_lock();
	test_golden(u && !strcmp(u, "1"));
	return tap_done();
}
