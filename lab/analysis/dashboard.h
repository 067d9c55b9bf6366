/* The `lab report` dashboard: one self-contained HTML page (no network: the chart library is
 * embedded, and a Content-Security-Policy forbids loading anything).  Pure: the caller reads
 * the reports and the script files and writes the page.
 *
 * Report data is untrusted: every string goes into the page HTML-escaped, and the chart data
 * goes into a <script type="application/json"> block with <, > and & escaped, read by the
 * page's script with JSON.parse (never evaluated).  The embedded scripts and CSS are refused
 * when they could end their element early ("</script", "</style", "<!--"). */
#pragma once
#include <jansson.h>
#include <stddef.h>

#include "analysis/compare.h"
#include "analysis/series.h"
#include "util/strbuf.h"

struct dashboard_assets {
	const char *chart_js;      /* Chart.js UMD build */
	const char *errorbars_js;  /* chartjs-chart-error-bars UMD build */
	const char *page_js;       /* lab/report/dashboard.js: draws the charts */
	const char *css;           /* lab/report/dashboard.css */
};

struct dashboard_input {
	const struct series_set *set;
	const struct comparison *cmp;  /* A/B tables: variant cmp[i].vb against cmp[i].va */
	size_t nr_cmp;
	const char *cmp_note;          /* lines (\n-separated) for the A/B section: why a variant
					* has no table; or NULL */
	const char *title;
	const json_t *projections;     /* projseries_json's (analysis/projseries.h): drawn on the
					* scaling charts and listed, labelled projections; or NULL */
	const json_t *nightly;         /* `lab nightly`: an array of night reports (schema
					* numalab.nightly/1, one per job, the latest night), drawn as
					* trends with change points, alarms and bisections; or NULL */
};

/* -EINVAL when an asset could end its element early; -ENOMEM. */
int dashboard_html(const struct dashboard_input *in, const struct dashboard_assets *a,
		   char **out);
