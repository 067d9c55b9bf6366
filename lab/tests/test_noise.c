/* A series' threshold of noise learned from its history (lab/analysis/noise.c).
 *
 * Exact: the type-7 quantile, the pairing of one kernel's adjacent points (never two
 * kernels', never a copy), the fence on a hand-computed set, too few changes.
 * Golden (UPDATE_GOLDEN=1 rewrites lab/tests/golden/noise.txt), one line a data set:
 * lab/tests/data/noise/NAME.csv (kernel,mean per point, oldest first): four series of a
 * lab's own history (pft under quantum, nightly pft under icount, memscale under quantum
 * when a setup stall hit it, mmap_contention under tcg) and three synthetic ones (one
 * outlier, copies, no kernel identity). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/noise.h"
#include "testutil.h"
#include "util/fs.h"
#include "util/strbuf.h"

#define MAX_POINTS 256

static void exact_cases(void)
{
	const double x[] = { 1, 2, 3, 4 };
	struct noise_learned l;

	tap_ok(noise_quantile(x, 4, 0) == 1 && noise_quantile(x, 4, 1) == 4 &&
		       noise_quantile(x, 4, 0.25) == 1.75 && noise_quantile(x, 4, 0.75) == 3.25 &&
		       noise_quantile(x, 1, 0.75) == 1,
	       "type-7 quantiles of 1..4: 1.75 and 3.25");
	{
		/* a: 100, 101, 100 (changes 1 % and 0.990 %); b between, at 200 then 210 (5 %):
		 * three changes, two kernels; a's 101 is never paired with b's 200. */
		struct noise_point p[] = { { 100, "a" }, { 200, "b" }, { 101, "a" },
					   { 210, "b" }, { 100, "a" } };

		int r = noise_learn(p, 5, &l);

		tap_ok(r == -ENODATA && l.changes == 3 && l.kernels == 2,
		       "one kernel's adjacent points pair, two kernels' never: 3 changes, 2 "
		       "kernels, too few (got %zu, %zu)", l.changes, l.kernels);
	}
	{
		struct noise_point p[12];

		for (size_t i = 0; i < 12; i++)
			p[i] = (struct noise_point){ 305000, "k" };
		tap_ok(noise_learn(p, 12, &l) == -ENODATA && l.changes == 0,
		       "the same seeds again (every change exactly 0): nothing learned");
		for (size_t i = 0; i < 12; i++)
			p[i] = (struct noise_point){ 300 + (double)i, i % 2 ? "" : NULL };
		tap_ok(noise_learn(p, 12, &l) == -ENODATA && l.changes == 0,
		       "points without a kernel identity are never paired");
	}
	{
		/* Nine points of one kernel, 100 then +1 % each time: eight changes of 1 %,
		 * 0.990 %, ...; the fence by hand from their sorted values. */
		struct noise_point p[9];
		double c[8], m = 100;

		for (size_t i = 0; i < 9; i++, m *= i % 2 ? 1.01 : 1 / 1.01)
			p[i] = (struct noise_point){ m, "k" };
		for (size_t i = 0; i < 8; i++)
			c[i] = 100 * fabs(p[i + 1].mean - p[i].mean) / p[i].mean;
		tap_ok(noise_learn(p, 9, &l) == 0 && l.changes == 8 && l.kernels == 1,
		       "eight changes of one kernel learn a threshold");
		/* Four changes of exactly 1 % (up) and four of 0.990099 % (down): Q1 = 0.990099,
		 * Q3 = 1, the fence 1 + 1.5 * 0.009901. */
		tap_ok(fabs(l.q1_pct - 100 * (1 - 1 / 1.01)) < 1e-9 && fabs(l.q3_pct - 1) < 1e-9 &&
			       fabs(l.threshold_pct - (1 + 1.5 * (1 - 100 * (1 - 1 / 1.01)))) < 1e-9,
		       "Q1 %.6f, Q3 %.6f, fence %.6f (changes %.6f, %.6f)", l.q1_pct, l.q3_pct,
		       l.threshold_pct, c[0], c[1]);
	}
}

static size_t read_points(const char *rel, char kernels[][16], struct noise_point *p)
{
	_cleanup_free_ char *path = fs_join(testutil_root(), rel), *text = NULL;
	char *save = NULL;
	size_t n = 0;

	if (!path || fs_read_file(path, TESTUTIL_MAX_FILE, &text, NULL) < 0)
		return 0;
	for (char *line = strtok_r(text, "\n", &save); line && n < MAX_POINTS;
	     line = strtok_r(NULL, "\n", &save)) {
		double v;

		if (line[0] == '#')
			continue;
		kernels[n][0] = 0;
		if (sscanf(line, "%15[^,],%lf", kernels[n], &v) != 2 && sscanf(line, ",%lf", &v) != 1)
			continue;
		p[n] = (struct noise_point){ v, kernels[n] };
		n++;
	}
	return n;
}

static void data_sets(struct strbuf *sb)
{
	static const char *const sets[] = { "quantum-pft", "icount-nightly-pft",
					    "quantum-memscale-stall", "tcg-mmap-contention",
					    "one-outlier", "copies", "no-kernel" };
	static char kernels[MAX_POINTS][16];
	static struct noise_point p[MAX_POINTS];

	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		char rel[128];
		struct noise_learned l;
		size_t n;
		int r;

		snprintf(rel, sizeof(rel), "lab/tests/data/noise/%s.csv", sets[i]);
		if (!(n = read_points(rel, kernels, p))) {
			tap_ok(0, "read %s", rel);
			continue;
		}
		r = noise_learn(p, n, &l);
		if (r == 0)
			strbuf_appendf(sb, "%s: %zu points, %zu changes of %zu kernels: Q1 %.4f %%, "
					  "Q3 %.4f %%, threshold %.4f %%\n",
				      sets[i], n, l.changes, l.kernels, l.q1_pct, l.q3_pct,
				      l.threshold_pct);
		else
			strbuf_appendf(sb, "%s: %zu points, %zu changes: nothing learned (%s)\n",
				      sets[i], n, l.changes, strerror(-r));
	}
}

int main(void)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	_cleanup_free_ char *text = NULL;

	exact_cases();
	data_sets(&sb);
	if (strbuf_take(&sb, &text) < 0)
		return 1;
	testutil_golden("noise.txt", text);
	/* What the golden holds, said as checks too. */
	tap_ok(text && strstr(text, "one-outlier: ") &&
		       strstr(strstr(text, "one-outlier: "), "threshold 1."),
	       "one 20 %% outlier among changes of 0.2-1.5 %%: the fence stays under 2 %%");
	tap_ok(text && strstr(text, "copies: 12 points, 0 changes: nothing learned"),
	       "copies learn nothing");
	return tap_done();
}
