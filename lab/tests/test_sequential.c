/* Sequential A/B (lab/analysis/sequential.c).
 *
 * Exact: Pocock's constants against Jennison and Turnbull's Table 2.1 (alpha 0.05, K = 1..10
 * looks), and by simulation: independent normal boots, K = 5 looks, crossing at about 5 %.
 * Replayed: the recorded A/A sets (lab/tests/data/aa/, lab ab's default job, 10 boots a
 * label), looked at after every round from 2 boots a side: how many series a peeking 95 %
 * test calls a change at some look, and how many the repeated intervals do.
 * Golden (UPDATE_GOLDEN=1 rewrites lab/tests/golden/sequential.txt): the constants and the
 * replay. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/sequential.h"
#include "analysis/stats.h"
#include "analysis/verdict.h"
#include "testutil.h"
#include "util/fs.h"
#include "util/strbuf.h"

#define MAX_BOOTS 64

static void constants(struct strbuf *sb)
{
	/* Jennison and Turnbull (2000), Table 2.1: Pocock's C_P(K, 0.05). */
	static const double table[] = { 1.960, 2.178, 2.289, 2.361, 2.413,
					 2.453, 2.485, 2.512, 2.535, 2.555 };
	int all = 1;

	for (unsigned k = 1; k <= 10; k++) {
		double c = seq_pocock_c(k, 0.05);

		all &= fabs(c - table[k - 1]) < 0.002;
		strbuf_appendf(sb, "K %2u: c %.4f (table %.3f), each look at alpha %.5f\n", k, c,
			       table[k - 1], seq_look_alpha(k));
	}
	tap_ok(all, "Pocock's constants for 1..10 looks within 0.002 of the published table");
	tap_ok(isnan(seq_pocock_c(0, 0.05)) && isnan(seq_pocock_c(SEQ_MAX_LOOKS + 1, 0.05)) &&
		       isnan(seq_look_alpha(0)),
	       "no constant for 0 looks or more than %d", SEQ_MAX_LOOKS);
	tap_ok(seq_look_alpha(1) == 0.05 || fabs(seq_look_alpha(1) - 0.05) < 1e-12,
	       "one look: the fixed design's 5 %%");
}

/* xorshift64*: a fixed sequence, so the simulation gives the same count every run. */
static double uniform(unsigned long long *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return ((*x * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}

static double normal(unsigned long long *x)
{
	double u = uniform(x), v = uniform(x);

	return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

static void simulation(void)
{
	const unsigned looks = 5, trials = 100000;
	double c5 = seq_pocock_c(looks, 0.05);
	unsigned long long x = 88172645463325252ULL;
	unsigned crossed = 0, crossed_naive = 0;

	for (unsigned t = 0; t < trials; t++) {
		double sum = 0;
		int hit = 0, hit_naive = 0;

		for (unsigned k = 1; k <= looks; k++) {
			double z;

			sum += normal(&x);
			z = fabs(sum) / sqrt((double)k);
			hit |= z >= c5;
			hit_naive |= z >= 1.959964;
		}
		crossed += hit;
		crossed_naive += hit_naive;
	}
	tap_ok(fabs(crossed / (double)trials - 0.05) < 0.004,
	       "5 looks at no change, 100000 simulated series: Pocock crosses %.2f %% (5 %%)",
	       100.0 * crossed / trials);
	tap_ok(crossed_naive / (double)trials > 0.12,
	       "... a 95 %% test at every look crosses %.1f %% (Armitage et al.: 14 %%)",
	       100.0 * crossed_naive / trials);
}

struct sides {
	double a[MAX_BOOTS], b[MAX_BOOTS];
	size_t na, nb;
};

static int read_series(const char *rel, const char *series, struct sides *s)
{
	return testutil_read_aa(rel, series, s->a, &s->na, s->b, &s->nb, MAX_BOOTS);
}

/* The verdict after n boots a side at alpha (the change in % of A's mean, + = better). */
static enum verdict look(const struct sides *s, size_t n, int rate, double alpha)
{
	enum stats_mean kind = rate ? STATS_HARMONIC : STATS_ARITHMETIC;
	struct stats_summary a;
	struct stats_diff d;
	struct verdict_input in = { .tested = 1 };
	double dir = rate ? 1 : -1, lo, hi;

	if (stats_welch_at(s->a, n, s->b, n, kind, 1 - alpha, &d) < 0 ||
	    stats_summarize(s->a, n, kind, &a) < 0 || a.mean == 0)
		return VERDICT_INSUFFICIENT;
	lo = d.ci_lo / fabs(a.mean) * 100;
	hi = d.ci_hi / fabs(a.mean) * 100;
	in.change_pct = dir * d.diff / fabs(a.mean) * 100;
	in.ci_lo_pct = rate ? lo : -hi;
	in.ci_hi_pct = rate ? hi : -lo;
	in.q = d.p;
	return verdict_decide_at(&in, 1.0, alpha);
}

/* Each recorded A/A series looked at after 2, 3, ... 10 boots a side: stopped at the first
 * look that decides; a change there is a false alarm. */
static void aa_replay(struct strbuf *sb)
{
	static const char *const files[] = TESTUTIL_AA_FILES;
	static const char *const series[] = TESTUTIL_AA_SERIES;
	unsigned seen = 0, alarms[2] = { 0 }, decided[2] = { 0 };

	for (size_t f = 0; f < 2; f++)
		for (size_t i = 0; i < sizeof(series) / sizeof(series[0]); i++) {
			char rel[128];
			struct sides s;
			int rate = strstr(series[i], "_per_s") != NULL;
			size_t n = 0;

			snprintf(rel, sizeof(rel), "lab/tests/data/aa/%s", files[f]);
			if (read_series(rel, series[i], &s) < 0 || s.na < 2 || s.nb < s.na)
				continue;
			n = s.na;
			seen++;
			strbuf_appendf(sb, "aa %s %s:", files[f], series[i]);
			/* d 0: a 95 % test at every look; d 1: Pocock over n - 1 looks. */
			for (int d = 0; d < 2; d++) {
				double alpha = d ? seq_look_alpha((unsigned)(n - 1)) : 0.05;
				enum verdict v = VERDICT_INCONCLUSIVE;
				size_t k = 2;

				for (; k <= n; k++)
					if ((v = look(&s, k, rate, alpha)) != VERDICT_INCONCLUSIVE)
						break;
				alarms[d] += v == VERDICT_REGRESSION || v == VERDICT_IMPROVEMENT;
				decided[d] += v != VERDICT_INCONCLUSIVE;
				strbuf_appendf(sb, " %s %s at %zu boots;", d ? "pocock" : "peeking",
					       verdict_name(v), k <= n ? k : n);
			}
			strbuf_append(sb, "\n");
		}
	strbuf_appendf(sb, "%u series: peeking at 95 %%: %u decided, %u false alarms; Pocock: "
			   "%u decided, %u false alarms\n",
		       seen, decided[0], alarms[0], decided[1], alarms[1]);
	tap_ok(seen == 17, "the recorded A/A sets: 17 series of 10 boots a side (got %u)", seen);
	tap_ok(alarms[1] == 0, "Pocock's repeated intervals call no A/A series a change (%u)",
	       alarms[1]);
	tap_ok(alarms[1] <= alarms[0], "... no more than peeking at 95 %% does (%u)", alarms[0]);
}

int main(void)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	_cleanup_free_ char *text = NULL;

	constants(&sb);
	simulation();
	aa_replay(&sb);
	if (strbuf_take(&sb, &text) < 0)
		return 1;
	testutil_golden("sequential.txt", text);
	return tap_done();
}
