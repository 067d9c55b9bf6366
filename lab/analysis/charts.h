/* Chart data for the dashboard, computed from a series_set.  Pure.
 *
 * {"charts": [CHART, ...]}, CHART = {"id", "kind": "scaling" | "trend", "title", "topology",
 * "workload", "params", "metric", "unit", "better", "lines": [{"label", "variant",
 * "tasks" (trend only), "points": [{"x", "y", "lo", "hi", "n", "report" (trend only)}]}]}
 *
 * scaling: one chart per (topology, workload, params, metric); x = task count, one line per
 *          kernel variant, y = the mean over all its samples (harmonic for rates, as in
 *          lab compare), lo/hi = the 95% CI of that mean (null when n < 2 or unbounded).
 * trend:   only when reports of two or more distinct "created" times are given; one chart
 *          per (topology, workload, params, metric); x = the report's creation time in ms
 *          since the epoch, one line per (variant, task count), one point per report. */
#pragma once
#include <jansson.h>

#include "analysis/series.h"

/* NULL on ENOMEM. */
json_t *charts_json(const struct series_set *s);
/* How many distinct creation times the reports with samples have (trend charts need 2). */
size_t charts_distinct_dates(const struct series_set *s);
