/* lab/analysis/export.c, pure: a real A/B report of lab run (lab/tests/data/compare/
 * real-ab.json) as KCIDB, LKP and CSV, and a bisection's culprit as a KCIDB issue, compared
 * byte for byte with lab/tests/golden/export-{kcidb.json,lkp.json,csv.csv,bisect.json};
 * UPDATE_GOLDEN=1 rewrites them.  That they are valid KCIDB v5.3 is lab/tests/test_export.sh's
 * check (against KCIDB's own schema). */
#include <errno.h>
#include <string.h>

#include "analysis/export.h"
#include "testutil.h"
#include "util/jsonio.h"

int main(void)
{
	_cleanup_json_ json_t *doc = testutil_load("lab/tests/data/compare/real-ab.json");
	_cleanup_json_ json_t *bis = testutil_load("lab/tests/golden/bisect-found.json");
	_cleanup_json_ json_t *par = testutil_load("lab/tests/golden/bisect-params.json");
	_cleanup_json_ json_t *skip = testutil_load("lab/tests/golden/bisect-only-skipped.json");
	_cleanup_json_ json_t *k = NULL, *l = NULL, *b = NULL, *none = NULL;
	_cleanup_free_ char *ks = NULL, *ls = NULL, *bs = NULL, *csv = NULL;
	struct lab_error err = { 0 };
	struct series_set s;

	series_init(&s);
	if (!tap_ok(doc && series_add_report(&s, doc, "real-ab.json", NULL, &err) == 0,
		    "the A/B report reads"))
		return tap_done();
	tap_ok(export_kcidb(&s, doc, &k) == 0 && (ks = jsonio_dumps(k)), "kcidb");
	testutil_golden("export-kcidb.json", ks);
	tap_ok(export_lkp(&s, &l) == 0 && (ls = jsonio_dumps(l)), "lkp");
	testutil_golden("export-lkp.json", ls);
	tap_ok(export_csv(&s, "real-ab", 1, &csv) == 0, "csv");
	testutil_golden("export-csv.csv", csv);
	tap_ok(export_kcidb_bisect(bis, par, &b) == 0 && (bs = jsonio_dumps(b)), "bisection");
	testutil_golden("export-bisect.json", bs);
	tap_ok(export_kcidb_bisect(skip, par, &none) == -ENOENT, "no culprit: -ENOENT");
	tap_ok(json_object_del(doc, "id") == 0 && export_kcidb(&s, doc, &none) == -EINVAL,
	       "a report without an id: -EINVAL");
	series_free(&s);
	return tap_done();
}
