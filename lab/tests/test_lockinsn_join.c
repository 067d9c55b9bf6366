/* core/lockinsn: the lock-instruction counter's output, checked and joined to a run.
 *  - lab/tests/data/lockinsn/plugin.json: the plugin's file from a tcg boot of baseline
 *    (memscale, THP, 1 and 4 tasks); run.json: that run's results (window ids, faults) plus a
 *    result whose window the plugin never saw and a result without one.  The join must match
 *    lab/tests/golden/lockinsn-attach.json (UPDATE_GOLDEN=1 rewrites it).
 *  - err-NAME.json: files that must be refused with the line in err-NAME.expected. */
#include <errno.h>
#include <string.h>

#include "core/lockinsn.h"
#include "testutil.h"
#include "util/fs.h"

#define DATA "lab/tests/data/lockinsn"

static void errors(void)
{
	testutil_text_errors(DATA, LOCKINSN_MAX_BYTES, lockinsn_parse);
}

static void join(void)
{
	_cleanup_free_ char *path = fs_join(testutil_root(), DATA "/plugin.json"), *text = NULL;
	_cleanup_json_ json_t *plugin = NULL, *run = testutil_load(DATA "/run.json");
	_cleanup_free_ char *dump = NULL;
	struct lab_error err = { 0 };
	size_t n = 0;
	int r;

	if (!tap_ok(path && run && fs_read_file(path, LOCKINSN_MAX_BYTES, &text, &n) == 0,
		    "plugin.json and run.json read"))
		return;
	r = lockinsn_parse(text, n, &plugin, &err);
	if (!tap_ok(r == 0 && plugin, "plugin.json parses (%s)", err.msg))
		return;
	r = lockinsn_attach(run, plugin);
	tap_ok(r == 2, "two results joined (the unknown window and the result without one are "
	       "left alone): %d", r);
	tap_ok(!json_object_get(json_object_get(json_array_get(json_object_get(
		       json_array_get(json_object_get(run, "workloads"), 0), "results"), 2), "info"),
				   "lock_insns"),
	       "a window the plugin never saw: no lock_insns");
	dump = json_dumps(run, JSON_INDENT(2) | JSON_SORT_KEYS);
	testutil_golden("lockinsn-attach.json", dump ? dump : NULL);
}

int main(void)
{
	errors();
	join();
	return tap_done();
}
