/* Kernel warnings (core/kwarn.h: WARNING, lockdep, RCU stalls, lockups, KASAN ...) per kernel
 * variant, and their A/B: which warning sites B shows in boots where A shows none.  Pure.
 *
 * A run's report carries runs[].warnings (the console's findings, one entry per site: kind and
 * where) since reports learnt them; a run without the key was not scanned, so it tells nothing
 * either way.  The boot is the unit: a site counts once per boot that printed it, however
 * many times it printed there.
 *
 * The decision: a site B warns at in more than half of its boots while every boot of A was
 * scanned and none warned there is a regression (a new warning), whatever the figures say;
 * in at most half it is listed as sporadic and decides nothing (warndiff.c says why); the reverse is a
 * warning gone, reported, never a regression.  Sites both sides show are listed, not
 * deciding.  When A's runs were not all scanned a site of B is listed as unknown. */
#pragma once
#include <jansson.h>
#include <stddef.h>

#include "core/kwarn.h"
#include "util/strbuf.h"

/* Distinct sites kept per variant; more are counted in dropped. */
#define WARN_SITES_MAX 32

struct warn_site {
	enum kwarn_kind kind;
	char where[96];
	char first_line[160];
	unsigned boots;   /* boots that printed it */
	unsigned count;   /* times printed, all boots */
	char *excerpt;    /* the first boot's, malloc'd */
};

struct warn_tally {
	struct warn_site sites[WARN_SITES_MAX];
	unsigned nr_sites, dropped;
	unsigned scanned;   /* runs whose report has runs[].warnings */
};

enum warn_change {
	WARN_NEW,     /* B warns in most boots, A scanned and never did: a regression */
	WARN_SPORADIC, /* B warns in at most half its boots, A never did: not deciding */
	WARN_GONE,    /* A warns, B scanned and never did */
	WARN_BOTH,    /* both warn there */
	WARN_UNKNOWN, /* one side warns; the other's runs were not all scanned */
};

struct warn_row {
	const struct warn_site *a, *b; /* NULL: that side never warned there */
	enum warn_change change;
};

struct warn_diff {
	struct warn_row rows[2 * WARN_SITES_MAX];
	size_t nr_rows;
	unsigned a_runs, a_scanned, b_runs, b_scanned;
	unsigned nr_new, nr_gone, nr_sporadic;
};

/* Count one scanned run's warnings (its report's runs[].warnings, read by
 * kwarn_list_from_json) into t.  0, or -ENOMEM. */
int warn_tally_add(struct warn_tally *t, const struct kwarn_list *l);
void warn_tally_free(struct warn_tally *t);
/* The A/B of two tallies; runs: each side's runs.  The rows point into a and b. */
void warn_diff_make(const struct warn_tally *a, unsigned a_runs, const struct warn_tally *b,
		    unsigned b_runs, struct warn_diff *out);
const char *warn_change_name(enum warn_change c);
/* {"a_runs", "a_scanned", "b_runs", "b_scanned", "new", "gone", "sporadic", "sites": [{"kind", "where",
 * "first_line", "change", "a_boots", "b_boots", "a_count", "b_count", "excerpt"}]}; NULL on
 * ENOMEM. */
json_t *warn_diff_json(const struct warn_diff *d);
/* One line a site (at most 80 columns with indent 0, longer first lines cut), e.g.
 * "B warns in 3 of 5 boots, A in 0 of 5: warning at mm/memory.c:4821"; nothing when there
 * are no rows.  markdown: list items. */
void warn_diff_text(struct strbuf *sb, const struct warn_diff *d, int markdown);
