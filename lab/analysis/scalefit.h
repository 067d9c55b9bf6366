/* A scaling fit for every measured curve: Gunther's universal scalability law (analysis/
 * usl.h) fitted to one variant's series of one (topology, workload, params, metric) over its
 * task counts, N = tasks.  Rates where higher is better only (ops/s, faults/s): the law
 * describes throughput; a time or a size is not fitted, and says why.  Descriptive: drawn and
 * reported within the measured range only, never extrapolated, never part of a verdict.
 * Pure. */
#pragma once
#include <jansson.h>

#include "analysis/series.h"
#include "analysis/usl.h"

/* 0 and *out; -EINVAL with why (one sentence) when the series cannot be fitted: not a
 * throughput, no point at 1 task, fewer than two task counts above 1. */
int scalefit_variant(const struct series_set *s, size_t group, size_t variant,
		     struct usl_fit *out, const char **why);
/* {"lambda", "sigma", "sigma_ci", "kappa", "kappa_ci", "r2", "n_min", "n_max", "points"};
 * a NaN interval (too few points) as null. */
json_t *scalefit_json(const struct usl_fit *f);
/* Every throughput group and variant of s: [{"topology", "workload", "params", "metric", "unit",
 * "label", "usl": {...} or null, "why": null or the reason}], groups in s's order. */
json_t *scalefit_all_json(const struct series_set *s);
