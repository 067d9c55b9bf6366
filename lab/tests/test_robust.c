/* The second opinions on a verdict (lab/analysis/robust.c).
 *
 * Exact: Mann-Whitney p-values against the rank-sum distribution counted by hand; the
 * bootstrap interval the same on every run.
 * Golden (UPDATE_GOLDEN=1 rewrites lab/tests/golden/robust.txt), one line a data set:
 *  - lab/tests/data/robust/NAME.csv (side,value per boot): bimodal, heavy-tailed, one
 *    outlier, and a clean shift every opinion agrees on; Welch's verdict and the final one;
 *  - the recorded A/A sets (lab/tests/data/aa/, lab ab's default job, 10 boots a label) per
 *    series at the default 1 % threshold: every series Welch calls "no change" still is (the
 *    second opinions can only overrule; nothing they say turns an A/A into a finding), and
 *    pft's modes 0.65 % apart at a 0.5 % threshold: undecided, saying so. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/robust.h"
#include "analysis/stats.h"
#include "analysis/verdict.h"
#include "testutil.h"
#include "util/strbuf.h"

#define MAX_BOOTS 64

struct sides {
	double a[MAX_BOOTS], b[MAX_BOOTS];
	size_t na, nb;
};

/* Each rule of robust_overrule alone: a confident Welch the rank test or the bootstrap does
 * not back, a no-change the bootstrap does not, and what stands.  (The data sets below never
 * make Welch confident where the rank test is not: on real boots they agree.) */
static void overrule_cases(void)
{
	const double none[2] = { 0, 0 }, moded[2] = { 0, 2.5 };
	char why[256];

	tap_ok(robust_overrule(VERDICT_REGRESSION, 10, 10, 0.2, -3, -1.5, none, 1, why,
			       sizeof(why)) == VERDICT_INCONCLUSIVE &&
		       !strcmp(why, "the rank test finds no difference (Mann-Whitney p = 0.2)"),
	       "a regression the rank test does not find (10 + 10 boots): inconclusive, saying so");
	tap_ok(robust_overrule(VERDICT_REGRESSION, 3, 3, 0.1, -3, -1.5, none, 1, why,
			       sizeof(why)) == VERDICT_REGRESSION && !why[0],
	       "... but not where the rank test could never find one (3 + 3 boots)");
	tap_ok(robust_overrule(VERDICT_IMPROVEMENT, 10, 10, 0.001, 0.4, 3, none, 1, why,
			       sizeof(why)) == VERDICT_INCONCLUSIVE &&
		       strstr(why, "bootstrap interval [+0.40%, +3.00%] does not clear"),
	       "an improvement whose bootstrap interval reaches into the band: inconclusive");
	tap_ok(robust_overrule(VERDICT_NO_CHANGE, 10, 10, 0.5, -0.4, 1.3, none, 1, why,
			       sizeof(why)) == VERDICT_INCONCLUSIVE && strstr(why, "leaves the"),
	       "a no-change whose bootstrap interval leaves the band: inconclusive");
	tap_ok(robust_overrule(VERDICT_REGRESSION, 10, 10, 0.001, -3, -1.5, moded, 1, why,
			       sizeof(why)) == VERDICT_INCONCLUSIVE &&
		       strstr(why, "B's boots fall in two modes 2.50% apart"),
	       "a regression with B's boots in two modes: inconclusive");
	tap_ok(robust_overrule(VERDICT_REGRESSION, 10, 10, 0.001, -3, -1.5, none, 1, why,
			       sizeof(why)) == VERDICT_REGRESSION && !why[0],
	       "a regression every opinion backs stands");
	tap_ok(robust_overrule(VERDICT_REGRESSION, 10, 10, 0.001, NAN, NAN, none, 1, why,
			       sizeof(why)) == VERDICT_REGRESSION,
	       "... and one without a bootstrap (under 5 boots a side) stands on the rank test");
}

static void exact_cases(void)
{
	double a3[] = { 1, 2, 3 }, b3[] = { 4, 5, 6 };
	double a5[] = { 1, 2, 3, 4, 5 }, b5[] = { 6, 7, 8, 9, 10 };
	double m1[] = { 1, 4, 5 }, m2[] = { 2, 3, 6 };
	double lo, hi, lo2, hi2;

	tap_ok(fabs(robust_mw_p(a3, 3, b3, 3) - 0.1) < 1e-12, "3 + 3 separated: p = 2/20");
	tap_ok(fabs(robust_mw_p(a5, 5, b5, 5) - 2.0 / 252) < 1e-12, "5 + 5 separated: p = 2/252");
	/* W(A = {1,4,5}) = 10 = the mean of W: P(W <= 10) = 10/20, so p = 1. */
	tap_ok(fabs(robust_mw_p(m1, 3, m2, 3) - 1) < 1e-12, "interleaved 3 + 3: p = 1");
	tap_ok(fabs(robust_mw_min_p(2, 2) - 1.0 / 3) < 1e-12 && robust_mw_min_p(3, 3) > ROBUST_ALPHA &&
		       robust_mw_min_p(4, 4) < ROBUST_ALPHA,
	       "the smallest p: 2 + 2 and 3 + 3 boots can never reach 0.05, 4 + 4 can");
	tap_ok(robust_boot_ci(a5, 5, b5, 5, STATS_ARITHMETIC, &lo, &hi) == 0 &&
		       robust_boot_ci(a5, 5, b5, 5, STATS_ARITHMETIC, &lo2, &hi2) == 0 && lo == lo2 &&
		       hi == hi2 && lo > 0 && lo < 166.7 && hi > 166.7,
	       "bootstrap: the same interval twice, around the change (+166.7 %%)");
	tap_ok(robust_boot_ci(a3, 3, b3, 3, STATS_ARITHMETIC, &lo, &hi) == -EDOM,
	       "bootstrap: -EDOM below %d boots a side", ROBUST_BOOT_MIN);
	overrule_cases();
}

/* Welch's verdict on a, b (higher: + is better) at threshold, then the second opinions'. */
static void judge(struct strbuf *sb, const char *name, const struct sides *s, int higher,
		  enum stats_mean kind, double threshold)
{
	struct stats_diff d;
	struct stats_summary sa;
	struct verdict_input in = { 0 };
	double lo = NAN, hi = NAN, blo = NAN, bhi = NAN, gap[2], dir = higher ? 1 : -1;
	char why[256];
	enum verdict w, v;

	if (stats_welch(s->a, s->na, s->b, s->nb, kind, &d) < 0 ||
	    stats_summarize(s->a, s->na, kind, &sa) < 0) {
		strbuf_appendf(sb, "%s: not tested\n", name);
		return;
	}
	in.tested = 1;
	in.change_pct = dir * d.diff / fabs(sa.mean) * 100;
	in.ci_lo_pct = (higher ? d.ci_lo : -d.ci_hi) / fabs(sa.mean) * 100;
	in.ci_hi_pct = (higher ? d.ci_hi : -d.ci_lo) / fabs(sa.mean) * 100;
	in.q = d.p;
	w = verdict_decide(&in, threshold);
	if (robust_boot_ci(s->a, s->na, s->b, s->nb, kind, &lo, &hi) == 0) {
		blo = higher ? lo : -hi;
		bhi = higher ? hi : -lo;
	}
	robust_two_modes(s->a, s->na, threshold, &gap[0]);
	robust_two_modes(s->b, s->nb, threshold, &gap[1]);
	double rp = robust_mw_p(s->a, s->na, s->b, s->nb);
	v = robust_overrule(w, s->na, s->nb, rp, blo, bhi, gap, threshold, why, sizeof(why));
	strbuf_appendf(sb, "%s @%.1f%%: %zu+%zu boots, change %+.2f%% [%+.2f, %+.2f], rank p %.3g, "
			   "bootstrap [%+.2f, %+.2f], modes %.2f/%.2f: Welch %s -> %s%s%s\n",
		       name, threshold, s->na, s->nb, in.change_pct, in.ci_lo_pct, in.ci_hi_pct, rp,
		       blo, bhi, gap[0], gap[1], verdict_name(w), verdict_name(v), why[0] ? ": " : "",
		       why);
}

static int read_sides(const char *rel, const char *series, struct sides *s)
{
	_cleanup_free_ char *path = NULL, *text = NULL;
	char *save = NULL;

	memset(s, 0, sizeof(*s));
	if (series) /* label,boot,seed,workload,tasks,metric,value */
		return testutil_read_aa(rel, series, s->a, &s->na, s->b, &s->nb, MAX_BOOTS);
	path = fs_join(testutil_root(), rel);
	if (!path || fs_read_file(path, TESTUTIL_MAX_FILE, &text, NULL) < 0)
		return -ENOENT;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char label[8];
		double v;

		if (sscanf(line, "%7[^,],%lf", label, &v) != 2)
			continue;
		if (label[0] == 'A' && s->na < MAX_BOOTS)
			s->a[s->na++] = v;
		else if (label[0] == 'B' && s->nb < MAX_BOOTS)
			s->b[s->nb++] = v;
	}
	return 0;
}

static void data_sets(struct strbuf *sb)
{
	static const struct {
		const char *name;
		int higher;
	} sets[] = { { "bimodal", 1 }, { "heavy-tailed", 0 }, { "one-outlier", 0 },
		     { "clean-shift", 1 } };

	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		char rel[128];
		struct sides s;

		snprintf(rel, sizeof(rel), "lab/tests/data/robust/%s.csv", sets[i].name);
		if (read_sides(rel, NULL, &s) < 0 || s.na < 2 || s.nb < 2) {
			tap_ok(0, "read %s", rel);
			continue;
		}
		judge(sb, sets[i].name, &s, sets[i].higher, STATS_ARITHMETIC, 1.0);
	}
}

static void aa_sets(struct strbuf *sb)
{
	static const char *const files[] = TESTUTIL_AA_FILES;
	static const char *const series[] = TESTUTIL_AA_SERIES;

	for (size_t f = 0; f < 2; f++)
		for (size_t i = 0; i < sizeof(series) / sizeof(series[0]); i++) {
			char rel[128], name[200];
			struct sides s;
			int rate = strstr(series[i], "_per_s") != NULL;

			snprintf(rel, sizeof(rel), "lab/tests/data/aa/%s", files[f]);
			if (read_sides(rel, series[i], &s) < 0 || s.na < 2)
				continue;
			snprintf(name, sizeof(name), "aa %s %s", files[f], series[i]);
			judge(sb, name, &s, rate, rate ? STATS_HARMONIC : STATS_ARITHMETIC, 1.0);
			if (!f && !strcmp(series[i], "pft/1/faults_per_s"))
				judge(sb, name, &s, rate, STATS_HARMONIC, 0.5);
		}
}

int main(void)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	_cleanup_free_ char *text = NULL;

	exact_cases();
	data_sets(&sb);
	aa_sets(&sb);
	if (strbuf_take(&sb, &text) < 0)
		return 1;
	testutil_golden("robust.txt", text);
	/* What the golden holds, said as checks too. */
	tap_ok(strstr(text, "bimodal @1.0%") && strstr(strstr(text, "bimodal @1.0%"), "-> inconclusive"),
	       "bimodal: undecided");
	tap_ok(strstr(text, "clean-shift @1.0%") &&
		       strstr(strstr(text, "clean-shift @1.0%"), "Welch regression -> regression"),
	       "a clean shift stays a regression");
	{
		int flipped = 0;
		const char *p = text;

		while ((p = strstr(p, "\naa ")) != NULL) {
			const char *eol = strchr(p + 1, '\n');
			char line[1024];

			snprintf(line, sizeof(line), "%.*s", (int)(eol ? eol - p - 1 : 1000), p + 1);
			if (strstr(line, "@1.0%") && strstr(line, "Welch no-change") &&
			    !strstr(line, "-> no-change"))
				flipped++;
			p = eol ? eol : p + 1;
		}
		tap_ok(!flipped, "the recorded A/A sets at 1 %%: every no-change stays (%d flipped)",
		       flipped);
	}
	tap_ok(strstr(text, "@0.5%") && strstr(strstr(text, "@0.5%"), "two modes"),
	       "pft's A/A modes at a 0.5 %% threshold: undecided, saying two modes");
	return tap_done();
}
