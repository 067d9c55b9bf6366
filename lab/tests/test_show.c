/* lab/analysis/show.c, pure: a real A/B report of lab run (lab/tests/data/compare/
 * real-ab.json) and a one-label report (real-quick.json) as `lab show` prints them, compared
 * byte for byte with lab/tests/golden/show-{real-ab,real-quick}.txt; UPDATE_GOLDEN=1
 * rewrites them. */
#include "analysis/show.h"
#include "testutil.h"

static void one(const char *data, const char *golden)
{
	_cleanup_json_ json_t *doc = testutil_load(data);
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	_cleanup_free_ char *text = NULL;
	struct lab_error err = { 0 };
	struct series_set s;

	series_init(&s);
	if (tap_ok(doc && series_add_report(&s, doc, "r.json", NULL, &err) == 0, "%s reads", data))
		tap_ok(show_report(doc, &s, &sb) == 0 && strbuf_take(&sb, &text) == 0, "%s shown",
		       data);
	testutil_golden(golden, text);
	series_free(&s);
}

/* A run's kernel warnings under it; warnings the reader refuses make the report bad input,
 * named by their path, as any other malformed part of a report. */
static int shown_with(json_t *doc, json_t *warnings, const char *want)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	struct series_set s;
	int ok;

	series_init(&s);
	json_object_set_new(json_array_get(json_object_get(doc, "runs"), 0), "warnings", warnings);
	ok = series_add_report(&s, doc, "r.json", NULL, NULL) == 0 &&
	     show_report(doc, &s, &sb) == 0 && sb.buf && strstr(sb.buf, want);
	series_free(&s);
	return ok;
}

static int refused(json_t *doc, json_t *warnings, const char *path)
{
	struct lab_error err = { 0 };
	struct series_set s;
	int ok;

	series_init(&s);
	json_object_set_new(json_array_get(json_object_get(doc, "runs"), 0), "warnings", warnings);
	ok = series_add_report(&s, doc, "r.json", NULL, &err) == -EINVAL &&
	     !strncmp(err.path, path, strlen(path)) && !strcmp(err.file, "r.json");
	series_free(&s);
	return ok;
}

static void warned(void)
{
	_cleanup_json_ json_t *doc = testutil_load("lab/tests/data/compare/real-quick.json");

	tap_ok(doc && shown_with(doc, json_pack("[{s:i,s:s,s:s,s:s,s:s},{s:i,s:s,s:s,s:s,s:s}]",
						"count", 3, "excerpt", "x", "first_line", "x",
						"kind", "warning", "where", "mm/memory.c:4821",
						"count", 1, "excerpt", "y", "first_line", "y",
						"kind", "hung-task", "where", "pft"),
				 "\n       kernel warnings: warning mm/memory.c:4821 x3, "
				 "hung-task pft x1\n"),
	       "a run's kernel warnings shown under it");
	tap_ok(doc && refused(doc, json_pack("[{s:s}]", "kind", "oops"), "runs[0].warnings"),
	       "warnings the reader refuses: the report is refused at their path");
}

int main(void)
{
	warned();
	one("lab/tests/data/compare/real-ab.json", "show-real-ab.txt");
	one("lab/tests/data/compare/real-quick.json", "show-real-quick.txt");
	one("lab/tests/data/compare/real-numa-one.json", "show-real-numa-one.txt");
	return tap_done();
}
