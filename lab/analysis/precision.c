#include "analysis/precision.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/series.h"
#include "analysis/stats.h"
#include "analysis/verdict.h"
#include "core/runreport.h"
#include "proto/workload.h"
#include "util/cleanup.h"

/* Half-width of the 95 % interval of the mean over boots, % of the mean; INFINITY below two
 * boots or when the interval is unbounded. */
static int half_width(const struct series *x, const struct series_what *g, double *out)
{
	_cleanup_free_ double *means = malloc(x->n * sizeof(*means));
	struct boot_stats bs;
	struct stats_summary sum;
	int r;

	if (!means)
		return -ENOMEM;
	r = boots_summarize(x->boot, x->v, x->n, boots_mean_kind(g->unit, x->v, x->n), means, &bs,
			    &sum);
	if (r < 0)
		return r;
	*out = INFINITY;
	if (bs.boots >= 2 && isfinite(sum.ci_lo) && isfinite(sum.ci_hi) && sum.mean != 0) {
		double lo = sum.mean - sum.ci_lo, hi = sum.ci_hi - sum.mean;

		*out = 100 * (lo > hi ? lo : hi) / fabs(sum.mean);
	}
	return 0;
}

int precision_check(json_t *runs, double target_pct, struct precision_status *st)
{
	_cleanup_json_ json_t *doc = json_pack("{s:s,s:O}", "schema", RUNREPORT_SCHEMA, "runs",
					       runs);
	struct lab_error err = {0};
	struct series_set s;
	int r;

	memset(st, 0, sizeof(*st));
	st->worst_pct = NAN;
	if (!doc)
		return -ENOMEM;
	series_init(&s);
	r = series_add_report(&s, doc, "report.json", NULL, &err);
	for (size_t i = 0; r == 0 && i < s.nr_series; i++) {
		const struct series *x = &s.series[i];
		const struct series_what *g = &s.groups[s.keys[x->key].group];
		double h;

		if (!workload_metric_is_primary(g->workload, g->metric))
			continue;
		if ((r = half_width(x, g, &h)) < 0)
			break;
		st->series++;
		if (isnan(st->worst_pct) || h > st->worst_pct) {
			char name[200];

			st->worst_pct = h;
			series_key_name(&s, x->key, name, sizeof(name));
			snprintf(st->worst, sizeof(st->worst), "%s (%s)", name,
				 s.variants[x->variant].label);
		}
	}
	st->reached = r == 0 && st->series > 0 && st->worst_pct <= target_pct;
	series_free(&s);
	return r;
}
