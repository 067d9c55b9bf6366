#include "cli/report_decision.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/report_files.h"
#include "util/cleanup.h"
#include "util/strbuf.h"

int report_decision_print(const struct series_set *s, enum compare_decision *d)
{
	_cleanup_free_ struct comparison *c = NULL;
	_cleanup_strbuf_ struct strbuf note = STRBUF_INIT;
	_cleanup_free_ char *text = NULL, *why = NULL;
	size_t n = 0;
	int r;

	if (s->nr_variants < 2)
		return 1;
	if (!(c = calloc(s->nr_variants, sizeof(*c))))
		return -ENOMEM;
	r = compare_all(s, COMPARE_DEFAULT_THRESHOLD_PCT, 0, c, &n, &note);
	if (r == 0 && n == 0) {
		strbuf_take(&note, &why);
		cli_err("no decision: %s", why && why[0] ? why : "no two labels to compare");
		r = -EINVAL;
	}
	if (r == 0 && (r = compare_brief(s, c, n, 0, &text)) == 0) {
		*d = compare_decide_all(c, n);
		fputs(text, stdout);
	}
	for (size_t i = 0; i < n; i++)
		compare_free(&c[i]);
	return r;
}

int report_decision_of(const char *dir, enum compare_decision *d)
{
	struct report_files f = { 0 };
	struct lab_error err = { 0 };
	struct series_set s;
	_cleanup_free_ struct comparison *c = NULL;
	_cleanup_strbuf_ struct strbuf note = STRBUF_INIT;
	size_t n = 0;
	int r;

	series_init(&s);
	r = report_files_add(&f, dir, &err);
	if (r == 0)
		r = report_files_read(&f, &err);
	if (r == 0 && f.n == 1)
		r = series_add_report(&s, f.doc[0], f.path[0], NULL, &err);
	if (r == 0 && (f.n != 1 || s.nr_variants < 2))
		r = -EINVAL;
	if (r == 0 && !(c = calloc(s.nr_variants, sizeof(*c))))
		r = -ENOMEM;
	if (r == 0)
		r = compare_all(&s, COMPARE_DEFAULT_THRESHOLD_PCT, 0, c, &n, &note);
	if (r == 0 && !n)
		r = -EINVAL;
	if (r == 0)
		*d = compare_decide_all(c, n);
	for (size_t i = 0; i < n; i++)
		compare_free(&c[i]);
	series_free(&s);
	report_files_free(&f);
	return r;
}
