/* Sequential A/B with Pocock's repeated confidence intervals (analysis/sequential.h).  Pure. */
#include "analysis/sequential.h"

#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/series.h"
#include "core/runreport.h"
#include "util/cleanup.h"

/* Grid points per look: the constants agree with the published ones (K = 1..10) to 0.0003. */
#define SEQ_GRID 160

static double phi(double x)
{
	return exp(-0.5 * x * x) / sqrt(2 * M_PI);
}

/* P(|S_k| < c sqrt(k) for k = 1..looks), S_k the sum of k standard normal increments: the
 * density of S_k on the continuation region, carried look to look on a midpoint grid. */
static double stay_prob(unsigned looks, double c, double *f, double *g)
{
	double lo = -c, w = 2 * c / SEQ_GRID, total = 0;

	for (int i = 0; i < SEQ_GRID; i++)
		f[i] = phi(lo + (i + 0.5) * w);
	for (unsigned k = 2; k <= looks; k++) {
		double b = c * sqrt((double)k), nw = 2 * b / SEQ_GRID;

		for (int j = 0; j < SEQ_GRID; j++) {
			double s = -b + (j + 0.5) * nw, acc = 0;

			for (int i = 0; i < SEQ_GRID; i++)
				acc += f[i] * phi(s - (lo + (i + 0.5) * w));
			g[j] = acc * w;
		}
		memcpy(f, g, SEQ_GRID * sizeof(*f));
		lo = -b;
		w = nw;
	}
	for (int i = 0; i < SEQ_GRID; i++)
		total += f[i] * w;
	return total;
}

double seq_pocock_c(unsigned looks, double alpha)
{
	double f[SEQ_GRID], g[SEQ_GRID], lo = 1, hi = 6;

	if (looks < 1 || looks > SEQ_MAX_LOOKS || !(alpha > 0 && alpha < 1))
		return NAN;
	if (looks == 1)
		return gsl_cdf_ugaussian_Pinv(1 - alpha / 2);
	/* Staying in is more likely the wider the boundary: bisect on c. */
	for (int it = 0; it < 32; it++) {
		double mid = (lo + hi) / 2;

		if (stay_prob(looks, mid, f, g) < 1 - alpha)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

double seq_look_alpha(unsigned looks)
{
	double c = seq_pocock_c(looks, SEQ_ALPHA);

	return isnan(c) ? NAN : 2 * gsl_cdf_ugaussian_Q(c);
}

/* The comparisons of every label against the first, as the report's decision makes them. */
static int decided_rows(const struct series_set *s, double threshold_pct,
			struct seq_status *st)
{
	_cleanup_strbuf_ struct strbuf note = STRBUF_INIT;
	_cleanup_free_ struct comparison *c = calloc(s->nr_variants + 1, sizeof(*c));
	size_t n = 0;
	int r;

	if (!c)
		return -ENOMEM;
	r = compare_all(s, threshold_pct, 0, c, &n, &note);
	for (size_t i = 0; r == 0 && i < n; i++)
		for (size_t j = 0; j < c[i].nr_rows; j++) {
			const struct compare_row *row = &c[i].rows[j];
			char name[200];

			if (!row->primary)
				continue;
			st->series++;
			if (row->verdict == VERDICT_REGRESSION || row->verdict == VERDICT_IMPROVEMENT ||
			    row->verdict == VERDICT_NO_CHANGE)
				continue;
			if (!st->undecided++) {
				const struct series_what *g = &s->groups[s->keys[row->key].group];

				/* Short, for a progress line: which workload, tasks and metric. */
				snprintf(name, sizeof(name), "%s %u task%s %s", g->workload,
					 s->keys[row->key].tasks,
					 s->keys[row->key].tasks == 1 ? "" : "s", g->metric);
				snprintf(st->first_undecided, sizeof(st->first_undecided), "%s: %s",
					 name, verdict_name(row->verdict));
			}
		}
	for (size_t i = 0; i < n; i++)
		compare_free(&c[i]);
	if (r == 0 && n == 0)
		r = -EINVAL; /* no two labels that can be compared */
	return r;
}

int seq_check(json_t *runs, double alpha, unsigned looks, double threshold_pct,
	      struct seq_status *st)
{
	_cleanup_json_ json_t *doc = json_pack("{s:s,s:s,s:s,s:O}", "schema", RUNREPORT_SCHEMA,
					      "id", "sequential-look", "created",
					      "1970-01-01T00:00:00Z", "runs", runs);
	struct lab_error err = { 0 };
	struct series_set s;
	int r;

	memset(st, 0, sizeof(*st));
	if (!doc)
		return -ENOMEM;
	series_init(&s);
	s.seq_alpha = alpha;
	s.seq_looks = looks;
	r = series_add_report(&s, doc, "(the runs so far)", NULL, &err);
	if (r == 0)
		r = decided_rows(&s, threshold_pct, st);
	st->decided = r == 0 && st->series > 0 && !st->undecided;
	series_free(&s);
	return r;
}
