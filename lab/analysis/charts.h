/* Chart data for the dashboard, computed from a series_set.  Pure.
 *
 * {"charts": [CHART, ...]}, CHART = {"id", "kind": "scaling" | "trend", "title", "topology",
 * "workload", "params", "changed", "primary", "task_counts", "table", "metric", "unit", "better",
 * "lines": [{"label", "variant", "tasks" (trend only), "points": [{"x", "y", "lo", "hi", "n",
 * "report" (trend only)}]}]}
 *
 * changed:     the params that differ from the workload's defaults (its legend)
 * primary:     the metric is one of the workload's primary metrics (they decide a verdict);
 *              charts of primary metrics come first
 * task_counts: how many task counts the series have
 * table:       a scaling chart of one task count: shown as a table, not drawn
 *
 * scaling: one chart per (topology, workload, params, metric); x = task count, one line per
 *          kernel variant, y = the mean over all its samples (harmonic for rates, as in
 *          lab compare), lo/hi = the 95% CI of that mean (null when n < 2 or unbounded).
 *          With projections (analysis/projseries.h), a variant whose label and workload
 *          were projected gets one more line, "projection": true: its speed-up band times
 *          its measured 1-task mean at 1, 2, 4, ... and the target's size (lo/hi: 5-95 %
 *          over the priors' draws, not a confidence interval); such a chart has "projected":
 *          true and is drawn even at one measured task count.
 * trend:   only when reports of two or more distinct "created" times are given; one chart
 *          per (topology, workload, params, metric); x = the report's creation time in ms
 *          since the epoch, one line per (variant, task count), one point per report. */
#pragma once
#include <jansson.h>

#include "analysis/series.h"

/* projections: projseries_json's, or NULL.  NULL on ENOMEM. */
json_t *charts_json(const struct series_set *s, const json_t *projections);
/* How many distinct creation times the reports with samples have (trend charts need 2). */
size_t charts_distinct_dates(const struct series_set *s);
/* The params of w that differ from its workload's defaults (a new object; NULL on ENOMEM). */
json_t *charts_changed_params(const struct series_what *w);
