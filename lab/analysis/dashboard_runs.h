/* The dashboard's "Runs" section: per report, every run's panel with its outcome, console
 * excerpt, topology, workloads, knobs and facts, every report string escaped.  Pure. */
#pragma once
#include "analysis/series.h"
#include "util/strbuf.h"

void dashboard_runs_section(struct strbuf *sb, const struct series_set *s);
