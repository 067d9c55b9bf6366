/* The lock-instruction counter's output joined to a run's results (core/lockinsn.h). */
#include "core/lockinsn.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/winjoin.h"
#include "util/cleanup.h"
#include "util/jsonio.h"

static const char *const site_keys[] = {"acquisitions", "inside_insns", "inside_max",
					"inside_min", "locks", "max_cpus_per_lock"};
#define NR_SITE_KEYS (sizeof(site_keys) / sizeof(site_keys[0]))

static int check_site(const json_t *s, const char *path, struct lab_error *err)
{
	const char *name = json_string_value(json_object_get(s, "site"));

	if (!json_is_object(s))
		return error_set(err, path, "must be an object");
	for (size_t k = 0; k < NR_SITE_KEYS; k++)
		if (!winjoin_count_ok(s, site_keys[k]))
			return error_set(err, path, "%s must be a non-negative integer", site_keys[k]);
	if (!name || !name[0] || strlen(name) > 320)
		return error_set(err, path, "site must be a symbol+offset of at most 320 bytes");
	return 0;
}

static int check_window(const json_t *w, size_t i, struct lab_error *err)
{
	const json_t *sites = json_object_get(w, "sites"), *s;
	char path[96];
	size_t k;
	int r;

	snprintf(path, sizeof(path), "windows[%zu]", i);
	if (!json_is_object(w) || !winjoin_count_ok(w, "id") || !winjoin_count_ok(w, "insns") ||
	    !winjoin_count_ok(w, "tasks") || !winjoin_count_ok(w, "open_at_stop") ||
	    json_integer_value(json_object_get(w, "id")) > (json_int_t)UINT32_MAX)
		return error_set(err, path, "needs id (0..2^32-1), insns, tasks and open_at_stop, "
				 "non-negative integers");
	if (!json_is_array(sites) || json_array_size(sites) > LOCKINSN_MAX_SITES)
		return error_set(err, path, "sites must be an array of at most %u",
				 LOCKINSN_MAX_SITES);
	json_array_foreach(sites, k, s) {
		snprintf(path, sizeof(path), "windows[%zu].sites[%zu]", i, k);
		if ((r = check_site(s, path, err)) < 0)
			return r;
	}
	return 0;
}

int lockinsn_parse(const char *text, size_t len, json_t **out, struct lab_error *err)
{
	_cleanup_json_ json_t *j = NULL;
	const json_t *windows, *w;
	size_t i;
	int r;

	*out = NULL;
	if ((r = jsonio_load_doc(text, len, LOCKINSN_MAX_BYTES, LOCKINSN_SCHEMA, &j, err)) < 0)
		return r;
	if (!winjoin_count_ok(j, "dropped") || !winjoin_count_ok(j, "entries_found"))
		return error_set(err, "", "needs dropped and entries_found, non-negative integers");
	windows = json_object_get(j, "windows");
	if (!json_is_array(windows) || json_array_size(windows) > LOCKINSN_MAX_WINDOWS)
		return error_set(err, "windows", "must be an array of at most %u",
				 LOCKINSN_MAX_WINDOWS);
	json_array_foreach(windows, i, w)
		if ((r = check_window(w, i, err)) < 0)
			return r;
	*out = json_incref(j);
	return 0;
}

static int by_inside_desc(const void *a, const void *b)
{
	const json_t *x = *(const json_t *const *)a, *y = *(const json_t *const *)b;
	json_int_t ix = winjoin_int(x, "inside_insns"), iy = winjoin_int(y, "inside_insns");

	if (ix != iy)
		return ix > iy ? -1 : 1;
	return strcmp(json_string_value(json_object_get(x, "site")),
		      json_string_value(json_object_get(y, "site")));
}

/* The window's figures as a result keeps them: the sites with the most instructions inside
 * first, at most LOCKINSN_REPORT_SITES (the rest summed, so nothing is lost from the totals). */
static json_t *window_json(const json_t *w, const json_t *plugin)
{
	const json_t *sites = json_object_get(w, "sites");
	size_t n = json_array_size(sites);
	size_t keep = n < LOCKINSN_REPORT_SITES ? n : LOCKINSN_REPORT_SITES;
	_cleanup_free_ const json_t **v = calloc(n ? n : 1, sizeof(*v));
	json_int_t rest_acq = 0, rest_inside = 0;
	json_t *out, *arr;

	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++)
		v[i] = json_array_get(sites, i);
	qsort(v, n, sizeof(*v), by_inside_desc);
	arr = json_array();
	for (size_t i = 0; arr && i < n; i++) {
		if (i < keep) {
			json_array_append_new(arr, json_deep_copy(v[i]));
			continue;
		}
		rest_acq += winjoin_int(v[i], "acquisitions");
		rest_inside += winjoin_int(v[i], "inside_insns");
	}
	out = json_pack("{s:I, s:I, s:I, s:o*, s:I, s:I, s:I, s:I, s:s}", "insns", winjoin_int(w, "insns"),
			"tasks", winjoin_int(w, "tasks"), "open_at_stop", winjoin_int(w, "open_at_stop"), "sites",
			arr, "sites_total", (json_int_t)n, "other_sites_acquisitions", rest_acq,
			"other_sites_inside_insns", rest_inside, "dropped", winjoin_int(plugin, "dropped"), "source",
			"QEMU TCG plugin lockinsn: instructions counted per translated block; a section "
			"runs from a _raw_spin_lock* entry to the movb $0 store that releases it");
	return out;
}

int lockinsn_attach(json_t *run, const json_t *plugin)
{
	return winjoin_attach(run, plugin, "lock_insns", window_json);
}
