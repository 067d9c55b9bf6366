#include "cli/report_decision.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/learned.h"
#include "util/cleanup.h"
#include "util/exitcode.h"
#include "util/strbuf.h"

/* Every label against the first, by the threshold the report's job set (the fixed default,
 * a number, or the series' learned ones): 0 with c[0..*n) (freed by the caller, also on
 * error). */
static int compare_labels(struct series_set *s, struct comparison **c, size_t *n,
			  struct strbuf *note)
{
	double pct = COMPARE_DEFAULT_THRESHOLD_PCT;
	int learned = 0, r;

	*n = 0;
	if (!(*c = calloc(s->nr_variants, sizeof(**c))))
		return -ENOMEM;
	cli_report_threshold(s, &pct, &learned);
	cli_report_sequential(s);
	if (!s->learned && (r = cli_learned_fill(s, learned)) < 0)
		return r;
	return compare_all(s, pct, 0, *c, n, note);
}

static void free_labels(struct comparison *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		compare_free(&c[i]);
	free(c);
}

int report_decision_print(struct series_set *s, enum compare_decision *d)
{
	_cleanup_strbuf_ struct strbuf note = STRBUF_INIT;
	_cleanup_free_ char *text = NULL, *why = NULL;
	struct comparison *c = NULL;
	size_t n = 0;
	int r;

	if (s->nr_variants < 2)
		return 1;
	r = compare_labels(s, &c, &n, &note);
	if (r == 0 && n == 0) {
		strbuf_take(&note, &why);
		cli_err("no decision: %s", why && why[0] ? why : "no two labels to compare");
		r = -EINVAL;
	}
	if (r == 0 && (r = compare_brief(s, c, n, 0, &text)) == 0) {
		*d = compare_decide_all(c, n);
		fputs(text, stdout);
	}
	free_labels(c, n);
	return r;
}

int report_decision_exit(enum compare_decision d)
{
	return d == COMPARE_REGRESSION ? EXIT_REGRESSION
				       : d == COMPARE_UNDECIDED ? EXIT_UNDECIDED : EXIT_OK;
}

/* The comparisons of s's labels handed to take: 1 (one label), -EINVAL (no two labels
 * compared), -ENOMEM, or take's return. */
static int with_labels(struct series_set *s,
		       int (*take)(struct series_set *, const struct comparison *, size_t, void *),
		       void *ud)
{
	_cleanup_strbuf_ struct strbuf note = STRBUF_INIT;
	struct comparison *c = NULL;
	size_t n = 0;
	int r;

	if (s->nr_variants < 2)
		return 1;
	r = compare_labels(s, &c, &n, &note);
	if (r == 0 && !n)
		r = -EINVAL;
	if (r == 0)
		r = take(s, c, n, ud);
	free_labels(c, n);
	return r;
}

static int take_decision(struct series_set *s, const struct comparison *c, size_t n, void *ud)
{
	(void)s;
	*(enum compare_decision *)ud = compare_decide_all(c, n);
	return 0;
}

int report_decision_get(struct series_set *s, enum compare_decision *d)
{
	return with_labels(s, take_decision, d);
}

static int take_json(struct series_set *s, const struct comparison *c, size_t n, void *ud)
{
	json_t **out = ud;

	return (*out = compare_json(s, c, n)) ? 0 : -ENOMEM;
}

int report_decision_json(struct series_set *s, json_t **out)
{
	*out = NULL;
	return with_labels(s, take_json, out);
}
