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

int main(void)
{
	one("lab/tests/data/compare/real-ab.json", "show-real-ab.txt");
	one("lab/tests/data/compare/real-quick.json", "show-real-quick.txt");
	one("lab/tests/data/compare/real-numa-one.json", "show-real-numa-one.txt");
	return tap_done();
}
