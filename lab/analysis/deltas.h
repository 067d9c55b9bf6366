/* Why it moved: beside each workload's verdict in an A/B, the deltas that say where the
 * instructions went, as 0-day's regression mails list perf-profile lines and changed
 * counters.  They decide nothing (compare.h decides on the metrics alone); they point at the
 * code to read.  Pure.
 *
 * The boot is the unit, as everywhere in a comparison: per run and workload, every result's
 * figures are summed and divided by the operations the results did, the sum of their
 * page_faults metric (the unit is then "fault") or else of their ops metric ("op"); a
 * workload with neither has no per-op figure and no deltas.  Each side's figure is the mean
 * over its boots; a delta is B - A, relative to A.
 *
 * Profile lines come from info.profile (a QEMU plugin's instruction profile of the measured
 * window: per symbol the instructions executed in it, self, and below it, incl): the symbols
 * whose self instructions per op moved most, each with its incl delta.  Counters come from
 * info.vmstat (per name), info.lock_insns (per lock call site's function: acquisitions and
 * instructions inside the lock) and info.lock_stat (per lock class: acquisitions and
 * contentions; lockdep twins only).  A counter one boot lacks counts 0 there, when that boot
 * has the source at all.  A symbol is another matter: a result keeps only its biggest ones
 * (core/profile.h), so a symbol some boots of a side list and others do not sits at the cut and
 * is not compared, and one a side never lists counts 0 there only when the other side's figure
 * is above what that side could have left out (its results' self_cutoff) by the threshold.
 *
 * A delta is listed only when it stands out from the boot-to-boot spread: Welch's test of the
 * per-boot figures gives p < DELTAS_P_MAX (or both sides are constant and differ, as most
 * symbols' counts are under the deterministic models), so it takes at least 2 boots a side.
 * Malformed values (not a finite number, not the expected type) are skipped; every list read
 * is bounded. */
#pragma once
#include <jansson.h>
#include <stddef.h>

#include "util/strbuf.h"

/* The smallest self-instruction delta per op a profile line needs, whatever its spread.  The
 * A/A of the profile (configs/bench/profile-aa.json: baseline both sides, 10 boots each, pft
 * at 1 and 4 tasks, seeds 8100-8119) listed nothing, with 48 and with 128 symbols kept a
 * result: most symbols' counts per fault are the same in every boot (a difference of 0.001
 * or less), while mas_walk's follow each boot's maple tree (A/A -8.4 insns/fault at 1.9
 * standard errors), which the spread test holds back; the largest was 2.12 standard errors.
 * A planted 64-instruction loop came out +65.0, and one flag test +3.0. */
#define PROFILE_DELTA_MIN_INSNS 1.0
/* A delta must stand out from the spread: Welch's p below this.  Not a number of standard
 * errors: from 2 or 3 boots a side the spread is itself so uncertain that a split-PMD A/B of
 * 2 boots listed 8 symbols at 3 standard errors that more boots did not bear out. */
#define DELTAS_P_MAX 0.001
/* A counter must move by at least this much relative to A (any change from 0 does). */
#define DELTAS_COUNTER_MIN_PCT 5.0
#define DELTAS_PROFILE_ROWS 10     /* profile lines listed at most, a workload */
#define DELTAS_COUNTER_ROWS 12     /* counter lines listed at most, a workload */
#define DELTAS_SYMBOLS_MAX 4096    /* symbols read per result (and lock sites); more ignored */
#define DELTAS_COUNTERS_MAX 256    /* vmstat keys and lock classes read per result */
#define DELTAS_NAME_MAX 128        /* a symbol's or counter's bytes with the NUL; longer cut */

enum deltas_unit { DELTAS_UNIT_NONE = 0, DELTAS_UNIT_FAULT, DELTAS_UNIT_OP };

/* The counters' sources, a bit each in deltas_boot.sources. */
enum { DELTAS_SRC_VMSTAT = 1, DELTAS_SRC_LOCK_INSNS = 2, DELTAS_SRC_LOCK_STAT = 4 };

/* One boot's figures for one workload, summed over its results.  The operations are summed
 * twice: over every result (the counters' divisor) and over the profiled ones (the profile's),
 * so that a result the profiler missed does not dilute the profile. */
struct deltas_boot {
	size_t boot;               /* the series_set's boot identifier */
	unsigned results;          /* results read */
	unsigned with_faults, with_ops; /* of them, with a page_faults, an ops metric */
	unsigned profiled;         /* of them, with info.profile */
	double faults, ops;        /* the sums of those metrics, every result */
	double faults_prof, ops_prof; /* the same over the profiled results */
	unsigned sources;          /* DELTAS_SRC_* seen in a result */
	json_t *profile;           /* symbol -> [self, incl] */
	double self_cutoff;        /* the sum of its profiled results' self_cutoff: a symbol
				    * they do not list has at most this many self instructions */
	int cutoff_known;          /* every profiled result said its self_cutoff */
	json_t *counters;          /* "source\x1fname\x1ffigure" -> total */
};

struct deltas_workload_tally {
	char *key;                 /* "topology / name params" (series_variant.workloads) */
	struct deltas_boot *boots;
	size_t nr_boots, cap_boots;
};

/* Per variant. */
struct deltas_tally {
	struct deltas_workload_tally *w;
	size_t nr_w, cap_w;
};

/* One listed delta.  Profile lines: the self figures in a, b, the incl ones in incl_*. */
struct deltas_row {
	char name[DELTAS_NAME_MAX];   /* symbol, vmstat name, lock function or lock class */
	const char *source;           /* "profile", "vmstat", "lock_insns", "lock_stat" */
	const char *figure;           /* "self", "acquisitions", "inside_insns", "contentions";
				       * vmstat: "count" */
	double a, b, delta, rel_pct;  /* per op; rel_pct NAN when a is 0 */
	double se;                    /* of the difference */
	double p;                     /* Welch's two-sided p; 0 when both sides are constant */
	double incl_a, incl_b, incl_delta, incl_rel_pct; /* profile lines only */
};

struct deltas_workload {
	const char *key;              /* points into the tally */
	enum deltas_unit unit;
	unsigned a_boots, b_boots;    /* boots with a per-op figure */
	unsigned a_profiled, b_profiled;
	const char *profile_absent;   /* why no profile lines were looked for; NULL: they were */
	const char *counters_absent;  /* why no counters were; NULL: they were */
	size_t symbols;               /* symbols compared */
	struct deltas_row *profile, *counters;
	size_t nr_profile, nr_counters;
};

struct deltas_diff {
	struct deltas_workload *w;
	size_t n;
};

/* One run's entry of a workload (a report's runs[].workloads[], status ok) into t: key names
 * the workload as series_variant.workloads does, boot the run.  0, or -ENOMEM. */
int deltas_tally_add(struct deltas_tally *t, const char *key, const json_t *workload,
		     size_t boot);
void deltas_tally_free(struct deltas_tally *t);
/* The deltas of every workload both tallies have, in a's order.  0, or -ENOMEM. */
int deltas_diff_make(const struct deltas_tally *a, const struct deltas_tally *b,
		     struct deltas_diff *out);
void deltas_diff_free(struct deltas_diff *d);
/* The workload of key "topology / name params", or NULL. */
const struct deltas_workload *deltas_find(const struct deltas_diff *d, const char *topology,
					  const char *workload, const char *params_text);
/* Whether there is something to show: a line, or a profile one side has and the other not. */
int deltas_any(const struct deltas_workload *w);
/* "fault", "op", or NULL. */
const char *deltas_unit_name(enum deltas_unit u);
/* {"deciding": false, "ops_unit", "a_boots", "b_boots", "a_profiled", "b_profiled",
 * "symbols", "profile": [{"symbol", "a_self", "b_self", "self_delta", "self_delta_pct",
 * "a_incl", "b_incl", "incl_delta", "incl_delta_pct", "se"}], "counters": [{"source", "name",
 * "figure", "a", "b", "delta", "delta_pct", "se"}], "profile_absent"?, "counters_absent"?};
 * NULL on ENOMEM. */
json_t *deltas_json(const struct deltas_workload *w);
/* The lines under a workload's table, e.g.
 *   why it moved (not deciding; per fault, mean of 2 boots a side):
 *     do_anonymous_page  +52.0 insns/fault (+4.1 %), incl +60.3 (+2.0 %)
 *     thp_fault_alloc  0.000 -> 0.998 /fault
 * nothing when !deltas_any(w).  markdown: list items. */
void deltas_text(struct strbuf *sb, const struct deltas_workload *w, int markdown);
