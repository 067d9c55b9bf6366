/* A report's figures for other tools (`lab export`): KernelCI's KCIDB v5.3, an LKP-style
 * map of "workload.metric" keys, CSV.  Every figure is a series' per-boot mean (harmonic for
 * rates), as `lab compare` computes it.  Pure. */
#pragma once
#include <jansson.h>

#include "analysis/series.h"

/* KCIDB v5.3 of one report (doc, its series in s): a checkout for the report, a build a
 * kernel label, a "numalab.boot" test a run (PASS, FAIL for a panic, hang or boot failure,
 * ERROR for a workload failure, MISS for the lab's own), and a DONE test with its number
 * for every primary series and label, ids "numalab:REPORT-ID:...".  0, -EINVAL (no id or
 * creation time), -ENOMEM. */
int export_kcidb(const struct series_set *s, const json_t *doc, json_t **out);
/* {"results": [{"kernel", "testcase", "params", "tasks", "topology", "stats":
 * {"WORKLOAD.METRIC": [per-boot values]}}]}, one result a label, parameters and task count. */
int export_lkp(const struct series_set *s, json_t **out);
/* One CSV row a boot of every series (RFC 4180), report id rid in the first column; header:
 * the header line first. */
int export_csv(const struct series_set *s, const char *rid, int header, char **out);
/* KCIDB v5.3 of a bisection (bisect.json, schema numalab.bisect/1; params.json, may be
 * NULL) that found its culprit: the culprit commit's checkout and build, an issue (culprit:
 * the code) saying which figure changed, and its incident on that build.  -ENOENT when the
 * bisection found none, -ENOMEM. */
int export_kcidb_bisect(const json_t *bisect, const json_t *params, json_t **out);
