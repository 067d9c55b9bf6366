/* core/profile: the instruction profile's output, checked and joined to a run.
 *  - lab/tests/data/profile/plugin.json: a plugin file of two windows, one of 182 symbols (more
 *    than a result keeps: the 128 with the most self instructions and the 128 with the most
 *    inclusive ones, do_user_addr_fault among the latter only), one of 7; run.json: the
 *    results of a run (the lock counter's test run: window ids) plus a result whose window the
 *    plugin never saw and a result without one.  The join must match
 *    lab/tests/golden/profile-attach.json (UPDATE_GOLDEN=1 rewrites it).
 *  - err-NAME.json: files that must be refused with the line in err-NAME.expected. */
#include <errno.h>
#include <string.h>

#include "core/profile.h"
#include "testutil.h"
#include "util/fs.h"

#define DATA "lab/tests/data/profile"

static void errors(void)
{
	testutil_text_errors(DATA, PROFILE_MAX_BYTES, profile_parse);
}

static void join(void)
{
	_cleanup_free_ char *path = fs_join(testutil_root(), DATA "/plugin.json"), *text = NULL;
	_cleanup_json_ json_t *plugin = NULL, *run = testutil_load(DATA "/run.json");
	_cleanup_free_ char *dump = NULL;
	struct lab_error err = { 0 };
	size_t n = 0;
	int r;

	if (!tap_ok(path && run && fs_read_file(path, PROFILE_MAX_BYTES, &text, &n) == 0,
		    "plugin.json and run.json read"))
		return;
	r = profile_parse(text, n, &plugin, &err);
	if (!tap_ok(r == 0 && plugin, "plugin.json parses (%s)", err.msg))
		return;
	r = profile_attach(run, plugin);
	tap_ok(r == 2, "two results joined (the unknown window and the result without one are "
	       "left alone): %d", r);
	tap_ok(!json_object_get(json_object_get(json_array_get(json_object_get(
		       json_array_get(json_object_get(run, "workloads"), 0), "results"), 2), "info"),
				   "lock_insns"),
	       "a window the plugin never saw: no lock_insns");
	{
		const json_t *p = json_object_get(json_object_get(json_array_get(json_object_get(
			json_array_get(json_object_get(run, "workloads"), 0), "results"), 0), "info"),
						  "profile"), *s;
		json_int_t self = json_integer_value(json_object_get(p, "other_self"));
		int caller = 0;
		size_t i;

		json_array_foreach(json_object_get(p, "symbols"), i, s) {
			self += json_integer_value(json_object_get(s, "self"));
			caller |= !strcmp(json_string_value(json_object_get(s, "symbol")),
					  "do_user_addr_fault");
		}
		tap_ok(json_array_size(json_object_get(p, "symbols")) > PROFILE_REPORT_SYMBOLS &&
			       json_array_size(json_object_get(p, "symbols")) < 182,
		       "the big window keeps between %d and 182 symbols: %zu", PROFILE_REPORT_SYMBOLS,
		       json_array_size(json_object_get(p, "symbols")));
		tap_ok(self == json_integer_value(json_object_get(p, "insns")),
		       "kept self + other_self = the window's instructions");
		tap_ok(caller, "a caller with little self and the most inclusive is kept");
	}
	dump = json_dumps(run, JSON_INDENT(2) | JSON_SORT_KEYS);
	testutil_golden("profile-attach.json", dump ? dump : NULL);
}

int main(void)
{
	errors();
	join();
	return tap_done();
}
