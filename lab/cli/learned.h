/* The thresholds of noise a report set's series learned from the lab's history index
 * (analysis/noise.h), for the commands that decide an A/B (`lab compare`, `lab run`, `lab
 * show`, `lab ab`), and the threshold a report's job asked for. */
#pragma once
#include "analysis/series.h"

/* Each key of s gets its learned threshold from the history index of the state directory
 * (util/statedir.h), from every point but those of s's own reports; use: they decide where
 * known.  No index, or one that cannot be read, teaches nothing: the fixed threshold stays
 * (said on stderr when use).  0 or -ENOMEM. */
int cli_learned_fill(struct series_set *s, int use);

/* The threshold a report's job set ("job"."threshold"), the first report in s's order that
 * set one: *pct a number, or *learned 1 for "learned"; both unchanged when none did. */
void cli_report_threshold(const struct series_set *s, double *pct, int *learned);

/* A sequential A/B's design ("job"."sequential"."looks", the first report that has one): s
 * is judged at the level of its most looks (analysis/sequential.h). */
void cli_report_sequential(struct series_set *s);
