#include "cli/report_decision.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
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
