/* Reports (report.json, numalab.report/1) as `lab compare` and `lab report` load them: the
 * JSON parser and series_add_report (the report as one variant, and as both sides of an A/B),
 * then what the commands make of the series: the comparison, its JSON and text, and the
 * dashboard's HTML.  And as `lab history` indexes them: the report as rows.  Each run's
 * kernel warnings read, written and read again. */
#include "analysis/compare.h"
#include "analysis/dashboard.h"
#include "analysis/series.h"
#include "fuzz/fuzz.h"
#include "history/rows.h"
#include "util/strbuf.h"

static void fuzz_report_ab(json_t *doc)
{
	struct lab_error err = { 0 };
	struct comparison c;
	struct series_set s;
	char *text = NULL;

	series_init(&s);
	if (series_add_report(&s, doc, "a/report.json", "A", &err) == 0 &&
	    series_add_report(&s, doc, "b/report.json", "B", &err) == 0 && s.nr_variants == 2 &&
	    compare_variants(&s, 0, 1, COMPARE_DEFAULT_THRESHOLD_PCT, 1, &c, &err) == 0) {
		json_decref(compare_json(&s, &c, 1));
		if (compare_text(&s, &c, 1, &text) == 0)
			free(text);
		compare_free(&c);
	}
	series_free(&s);
}

static void fuzz_report_page(json_t *doc)
{
	struct dashboard_assets as = { .chart_js = "", .errorbars_js = "", .page_js = "",
				       .css = "" };
	struct lab_error err = { 0 };
	struct strbuf note = STRBUF_INIT;
	struct comparison *c = NULL;
	struct series_set s;
	char *html = NULL;
	size_t n = 0;

	series_init(&s);
	if (series_add_report(&s, doc, "report.json", NULL, &err) < 0)
		goto cleanup;
	c = calloc(s.nr_variants ? s.nr_variants : 1, sizeof(*c));
	if (!c || compare_all(&s, COMPARE_DEFAULT_THRESHOLD_PCT, 0, c, &n, &note) < 0)
		goto cleanup;
	struct dashboard_input in = { .set = &s, .cmp = c, .nr_cmp = n, .title = "fuzz",
				      .cmp_note = note.buf };

	if (dashboard_html(&in, &as, &html) == 0)
		free(html);
cleanup:
	for (size_t i = 0; i < n; i++)
		compare_free(&c[i]);
	free(c);
	strbuf_free(&note);
	series_free(&s);
}

static void fuzz_report_rows(json_t *doc)
{
	struct lab_error err = { 0 };
	struct history_report r;

	memset(&r, 0, sizeof(r));
	if (history_rows_from_report(doc, "report.json", "0", &r, &err) < 0)
		return;
	json_decref(history_report_json(&r));
	history_report_free(&r);
}

/* Each run's kernel warnings as `lab show` and the dashboard read them (kwarn_list_from_json):
 * what the reader takes, the writer writes back the same. */
static void fuzz_report_warnings(json_t *doc)
{
	json_t *run;
	size_t i;

	json_array_foreach(json_object_get(doc, "runs"), i, run) {
		struct kwarn_list l;

		if (kwarn_list_from_json(run, "runs[0]", &l, NULL) == 0)
			fuzz_kwarn_round_trip(&l);
		kwarn_list_free(&l);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *doc = fuzz_json(data, size);

	if (!doc)
		return 0;
	fuzz_report_page(doc);
	fuzz_report_ab(doc);
	fuzz_report_rows(doc);
	fuzz_report_warnings(doc);
	json_decref(doc);
	return 0;
}
