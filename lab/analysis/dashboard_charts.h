/* The dashboard's chart sections (charts.h's specs): the primary metrics' scaling curves
 * first, each captioned with the parameters that differ from the workload's defaults, a
 * series of one task count as a table instead of a one-point chart, and the other metrics
 * folded; then the trend charts, ordered and folded the same way.  Pure. */
#pragma once
#include <jansson.h>

#include "util/strbuf.h"

/* "memory_mib=16 mode=threads" (changed's members), or "default parameters", with every
 * parameter (all) on hover: what a series ran, in a chart's caption or a table's heading. */
void dashboard_params_legend(struct strbuf *sb, const json_t *changed, const json_t *all);
/* Every figure of one kind ("nightly"), in the order given. */
void dashboard_chart_figures(struct strbuf *sb, const json_t *charts, const char *kind);
/* The scaling section, and the trend section when charts has trend specs. */
void dashboard_charts_sections(struct strbuf *sb, const json_t *charts);
/* The projections (analysis/projseries.h) listed, each labelled a projection, or why a
 * series was not projected; nothing when projections is NULL. */
void dashboard_projections_section(struct strbuf *sb, const json_t *projections);
