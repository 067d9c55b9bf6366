/* Nightly's alerts and their triage (lab/history/alerts.h) in a temporary history index: an
 * alert raised is new, raised again it is not; states set with who, when and a note; fixed
 * needs its commit; a fixed alert reopens when its series regresses again (same alert, new
 * again, counted new); a rebuild of the index keeps them; listing by state; the text and JSON
 * (lab/tests/golden/alerts.txt, alerts.json; UPDATE_GOLDEN=1 rewrites them); a note with a
 * line break is refused, a hostile series name prints as text. */
#include <errno.h>
#include <string.h>

#include "history/alerts.h"
#include "testutil.h"

static char tmp[] = "/tmp/numalab-test-alerts.XXXXXX";

static struct history_alert alert(const char *series, const char *night, const char *commit,
				  double pct)
{
	struct history_alert a = { .change_pct = pct };

	snprintf(a.source, sizeof(a.source), "mm-nightly");
	snprintf(a.ledger, sizeof(a.ledger), "/srv/nightly/mm");
	snprintf(a.job, sizeof(a.job), "pft");
	snprintf(a.series, sizeof(a.series), "%s", series);
	snprintf(a.night, sizeof(a.night), "%s", night);
	snprintf(a.commit, sizeof(a.commit), "%s", commit);
	snprintf(a.direction, sizeof(a.direction), pct < 0 ? "regression" : "improvement");
	snprintf(a.report, sizeof(a.report), "/srv/nightly/mm/%s/pft/nightly.json", night);
	return a;
}

static void lists(struct history *h)
{
	struct history_alert *a = NULL;
	struct lab_error err = { 0 };
	_cleanup_free_ char *text = NULL, *js = NULL;
	_cleanup_json_ json_t *j = NULL;
	size_t n = 0;

	tap_ok(history_alerts_list(h, -1, &a, &n, &err) == 0 && n == 3, "three alerts (%zu)", n);
	j = history_alerts_json(a, n);
	js = j ? json_dumps(j, JSON_SORT_KEYS | JSON_INDENT(2)) : NULL;
	if (js)
		testutil_golden("alerts.json", js);
	if (history_alerts_text(a, n, &text) == 0)
		testutil_golden("alerts.txt", text);
	free(a);
	tap_ok(history_alerts_list(h, ALERT_ACKNOWLEDGED, &a, &n, &err) == 0 && n == 1 &&
	       a[0].state == ALERT_ACKNOWLEDGED, "one acknowledged");
	free(a);
}

/* test_alerts --seed DB: one new alert raised in the index DB (made when missing), its id
 * printed: what integration-labd triages through the API. */
static int seed(const char *db)
{
	struct history_alert a = alert("pft.faults_per_s@2#fed041aa", "n04", "7f3c769c509a8acf", -26.9);
	struct history *h = NULL;
	struct lab_error err = { 0 };
	long long id = 0;
	int is_new = 0;

	if (history_open(db, 1, &h, &err) < 0 ||
	    history_alert_raise(h, &a, "2026-12-07T01:00:00Z", &id, &is_new, &err) < 0) {
		fprintf(stderr, "test_alerts: %s\n", err.msg);
		history_close(h);
		return 1;
	}
	history_close(h);
	printf("%lld\n", id);
	return 0;
}

int main(int argc, char **argv)
{
	struct history *h = NULL;
	struct lab_error err = { 0 };
	struct history_alert a1 = alert("pft.faults_per_s@8#fed041aa", "n04", "7f3c769c509a8acf", -26.9);
	struct history_alert a2 = alert("pft.sys_s@8#0a1b2c3d", "n04", "7f3c769c509a8acf", -5.1);
	struct history_alert a3 = alert("mmap.ops_per_s@4\x1b[31m#x", "n06", "0123456789abcdef", 3.2);
	long long id1 = 0, id = 0, id3 = 0;
	int is_new = -1;
	char db[64];

	if (argc == 3 && !strcmp(argv[1], "--seed"))
		return seed(argv[2]);
	if (!mkdtemp(tmp))
		return 1;
	snprintf(db, sizeof(db), "%s/history.db", tmp);
	tap_ok(history_open(db, 1, &h, &err) == 0, "an index (%s)", err.msg);
	tap_ok(history_alert_raise(h, &a1, "2026-12-07T01:00:00Z", &id1, &is_new, &err) == 0 &&
	       is_new == 1 && id1 > 0, "an alert raised: new");
	tap_ok(history_alert_raise(h, &a1, "2026-12-07T02:00:00Z", &id, &is_new, &err) == 0 &&
	       is_new == 0 && id == id1, "the same again (a night judged again): not new, same alert");
	history_alert_raise(h, &a2, "2026-12-07T01:00:01Z", &id, &is_new, &err);
	tap_ok(history_alert_set(h, id, ALERT_ACKNOWLEDGED, "jane", "looking at it", NULL,
				 "2026-12-07T08:00:00Z", &err) == 0, "acknowledged, with who and a note");
	tap_ok(history_alert_set(h, id1, ALERT_FIXED, "jane", "fixed", NULL, "x", &err) == -EINVAL,
	       "fixed without its commit: refused");
	tap_ok(history_alert_set(h, 9999, ALERT_INVALID, "jane", NULL, NULL, "x", &err) == -ENOENT,
	       "no such alert: -ENOENT (%s)", err.msg);
	tap_ok(history_alert_set(h, id1, ALERT_INVALID, "jane", "a\nb", NULL, "x", &err) == -EINVAL,
	       "a note with a line break: refused");
	tap_ok(history_alert_set(h, id1, ALERT_FIXED, "jane", "reverted in mm-hotfixes",
				 "deadbeefcafe", "2026-12-08T09:00:00Z", &err) == 0, "fixed by a commit");
	/* The series regresses again on a later night: the fixed alert reopens. */
	a1 = alert("pft.faults_per_s@8#fed041aa", "n09", "89abcdef01234567", -25.0);
	tap_ok(history_alert_raise(h, &a1, "2026-12-12T01:00:00Z", &id, &is_new, &err) == 0 &&
	       is_new == 1 && id == id1, "regressed again after its fix: the same alert reopened, new");
	history_alert_raise(h, &a3, "2026-12-13T01:00:00Z", &id3, &is_new, &err);
	/* A rebuild drops what the reports make, never the alerts. */
	history_begin(h, &err);
	tap_ok(history_reset(h, &err) == 0 && history_commit(h, &err) == 0, "the index rebuilt");
	lists(h);
	history_close(h);
	fs_rm_rf(tmp);
	return tap_done();
}
