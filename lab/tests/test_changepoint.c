/* Change points of nightly series (lab/analysis/changepoint.h) on simulated histories: each
 * night 3 boots drawn from a normal distribution (a fixed-seed generator, so every run draws
 * the same numbers) around a level that is flat, or steps once.  Noise levels are those
 * measured here: ~0.2 % between boots under the deterministic timing model, ~1 % taken as a
 * quiet host under KVM. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "analysis/changepoint.h"
#include "testutil.h"

#define NIGHTS 30
#define BOOTS 3

static uint64_t rng_state;

static double uniform(void)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return ((rng_state >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(void)
{
	return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

struct history {
	double level[NIGHTS];
	double v[NIGHTS][BOOTS];
	struct cp_night nights[NIGHTS];
};

/* level 100, cv in %, a step of step_pct (signed) from night `at` on (at >= NIGHTS: none). */
static void simulate(struct history *h, uint64_t seed, double cv, size_t at, double step_pct)
{
	rng_state = seed;
	for (size_t i = 0; i < NIGHTS; i++) {
		double level = 100 * (i >= at ? 1 + step_pct / 100 : 1);

		h->level[i] = level;

		for (size_t b = 0; b < BOOTS; b++)
			h->v[i][b] = level * (1 + cv / 100 * normal());
		h->nights[i] = (struct cp_night){ .v = h->v[i], .n = BOOTS };
	}
}

static struct cp_config cfg = { .window = 5, .threshold_pct = 2, .higher = 1,
				.kind = STATS_ARITHMETIC };

/* Nightly as it runs: each night the fast check of tonight against the nights before, and the
 * change points of the whole series so far (a step a fast check missed shows there once nights
 * on both sides of it are measured).  A suspect night j is confirmed by CONFIRM_BOOTS fresh
 * boots of it and of night j - 1, side by side.  Returns the night the alarm names, NIGHTS for
 * none; *suspects counts the suspicions. */
#define CONFIRM_BOOTS 5
static int confirm(const struct history *h, size_t j, double cv)
{
	double a[CONFIRM_BOOTS], b[CONFIRM_BOOTS];
	struct cp_change c;

	for (size_t i = 0; i < CONFIRM_BOOTS; i++) {
		a[i] = h->level[j - 1] * (1 + cv / 100 * normal());
		b[i] = h->level[j] * (1 + cv / 100 * normal());
	}
	return cp_confirm(a, CONFIRM_BOOTS, b, CONFIRM_BOOTS, &cfg, &c) == 1;
}

static size_t first_alarm(const struct history *h, size_t from, double cv, size_t *suspects,
			  size_t *raised)
{
	unsigned tries[NIGHTS] = { 0 };
	struct cp_change sus[8];
	size_t ns;

	for (size_t n = from; n <= NIGHTS; n++) {
		if (cp_suspects(h->nights, n, &cfg, tries, sus, 8, &ns) < 0)
			continue;
		for (size_t k = 0; k < ns; k++) {
			(*suspects)++;
			*raised = n - 1;
			if (confirm(h, sus[k].at, cv))
				return sus[k].at;
			tries[sus[k].at]++;
		}
	}
	return NIGHTS;
}

/* The threshold each timing model's nightly would use: 1 % where boots repeat to ~0.2 %, 2 %
 * where they repeat to ~1 %. */
static double threshold_for(double cv)
{
	return cv < 0.5 ? 1.0 : 2.0;
}

static void test_unchanged(void)
{
	struct history h;
	struct cp_change out[8];
	size_t found, alarms = 0, points = 0, suspects = 0;

	for (uint64_t s = 1; s <= 200; s++) {
		for (int model = 0; model < 2; model++) {
			double cv = model ? 1.0 : 0.2;

			cfg.threshold_pct = threshold_for(cv);
			simulate(&h, s * 2 + (uint64_t)model, cv, NIGHTS, 0);
			if (cp_detect(h.nights, NIGHTS, &cfg, out, 8, &found) == 0)
				points += found;
			size_t raised;

			alarms += first_alarm(&h, 2, cv, &suspects, &raised) < NIGHTS;
		}
	}
	tap_ok(points == 0, "400 simulated histories of 30 unchanged nights: no change point (%zu)",
	       points);
	tap_ok(alarms == 0, "... and no confirmed nightly alarm over their 11600 nights (%zu; %zu "
	       "suspicions, each refuted by its confirmation)", alarms, suspects);
}

static void test_step(double cv, double step, const char *what)
{
	struct history h;
	struct cp_change out[8];
	size_t found = 0, delayed = 0, exact = 0, suspects = 0, within = 0;

	cfg.threshold_pct = threshold_for(cv);
	for (uint64_t s = 1; s <= 100; s++) {
		simulate(&h, 1000 + s, cv, 15, step);
		if (cp_detect(h.nights, NIGHTS, &cfg, out, 8, &found) == 0 && found == 1 &&
		    out[0].at == 15 && out[0].verdict == (step < 0 ? VERDICT_REGRESSION
								      : VERDICT_IMPROVEMENT))
			exact++;
		size_t raised = NIGHTS, at = first_alarm(&h, 2, cv, &suspects, &raised);

		delayed += raised != 15;
		within += at == 15;
	}
	tap_ok(exact == 100, "%s: the change point is night 15, alone, in %zu of 100 histories",
	       what, exact);
	tap_ok(within == 100, "%s: the alarm names night 15 in %zu of 100 histories", what,
	       within);
	/* The power of one night's boots is a probability: all of them with 0.2 % noise, most
	 * with 1 %, and the change-point scan names the rest a few nights later. */
	tap_ok(delayed <= (cv < 0.5 ? 0 : 10), "%s: raised on night 15 itself, the first night "
	       "after the step, in %zu of 100 histories", what, 100 - delayed);
}

static void test_edges(void)
{
	struct cp_change out[2], c;
	double one[] = { 100, 100.1 };
	struct cp_night n1[] = { { one, 2 } }, empty[] = { { NULL, 0 }, { one, 2 } };
	struct cp_config bad = cfg;
	size_t found = 9;

	tap_ok(cp_detect(n1, 1, &cfg, out, 2, &found) == 0 && found == 0, "one night: nothing");
	tap_ok(cp_check_last(empty, 2, &cfg, &c) == 0 && c.verdict == VERDICT_INSUFFICIENT,
	       "a night without boots before tonight: too little data, no alarm");
	bad.threshold_pct = NAN;
	tap_ok(cp_detect(n1, 1, &bad, out, 2, &found) == -EINVAL, "a NaN threshold refused");
}

int main(void)
{
	test_unchanged();
	test_step(0.2, -2.0, "a 2 % regression, 0.2 % noise (icount), threshold 1 %");
	test_step(1.0, -5.0, "a 5 % regression, 1 % noise, threshold 2 %");
	test_step(1.0, 5.0, "a 5 % improvement, 1 % noise, threshold 2 %");
	test_edges();
	return tap_done();
}
