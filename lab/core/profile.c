/* The instruction profile joined to a run's results (core/profile.h). */
#include "core/profile.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/winjoin.h"
#include "util/cleanup.h"
#include "util/jsonio.h"

static int check_symbol(const json_t *s, const char *path, struct lab_error *err)
{
	const char *name = json_string_value(json_object_get(s, "symbol"));
	size_t n = name ? strlen(name) : 0;

	if (!json_is_object(s) || !winjoin_count_ok(s, "self") || !winjoin_count_ok(s, "incl"))
		return error_set(err, path, "needs self and incl, non-negative integers");
	if (!n || n > PROFILE_MAX_NAME)
		return error_set(err, path, "symbol must be a name of 1 to %d bytes",
				 PROFILE_MAX_NAME);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)name[i] <= ' ' || (unsigned char)name[i] >= 0x7f)
			return error_set(err, path, "symbol must be printable ASCII without spaces");
	return 0;
}

static int check_window(const json_t *w, size_t i, struct lab_error *err)
{
	const json_t *syms = json_object_get(w, "symbols"), *s;
	json_int_t self = 0;
	char path[96];
	size_t k;
	int r;

	snprintf(path, sizeof(path), "windows[%zu]", i);
	if (!json_is_object(w) || !winjoin_count_ok(w, "id") || !winjoin_count_ok(w, "insns") ||
	    !winjoin_count_ok(w, "tasks") || winjoin_int(w, "id") > (json_int_t)UINT32_MAX)
		return error_set(err, path, "needs id (0..2^32-1), insns and tasks, non-negative "
				 "integers");
	if (!json_is_array(syms) || json_array_size(syms) > PROFILE_MAX_SYMBOLS)
		return error_set(err, path, "symbols must be an array of at most %u",
				 PROFILE_MAX_SYMBOLS);
	json_array_foreach(syms, k, s) {
		snprintf(path, sizeof(path), "windows[%zu].symbols[%zu]", i, k);
		if ((r = check_symbol(s, path, err)) < 0)
			return r;
		if (winjoin_int(s, "self") > winjoin_int(w, "insns") - self)
			return error_set(err, path, "the symbols' self instructions exceed the "
					 "window's %lld", (long long)winjoin_int(w, "insns"));
		self += winjoin_int(s, "self");
	}
	return 0;
}

int profile_parse(const char *text, size_t len, json_t **out, struct lab_error *err)
{
	_cleanup_json_ json_t *j = NULL;
	const json_t *windows, *w;
	size_t i;
	int r;

	*out = NULL;
	if ((r = jsonio_load_doc(text, len, PROFILE_MAX_BYTES, PROFILE_SCHEMA, &j, err)) < 0)
		return r;
	if (!winjoin_count_ok(j, "dropped") || !winjoin_count_ok(j, "symbols_loaded") ||
	    !winjoin_count_ok(j, "stack_overflows"))
		return error_set(err, "", "needs dropped, stack_overflows and symbols_loaded, "
				 "non-negative integers");
	windows = json_object_get(j, "windows");
	if (!json_is_array(windows) || json_array_size(windows) > PROFILE_MAX_WINDOWS)
		return error_set(err, "windows", "must be an array of at most %u",
				 PROFILE_MAX_WINDOWS);
	json_array_foreach(windows, i, w)
		if ((r = check_window(w, i, err)) < 0)
			return r;
	*out = json_incref(j);
	return 0;
}

/* Most of key first, then by name: the order is the same in every run. */
static int cmp_desc(const json_t *x, const json_t *y, const char *key)
{
	json_int_t ix = winjoin_int(x, key), iy = winjoin_int(y, key);

	if (ix != iy)
		return ix > iy ? -1 : 1;
	return strcmp(json_string_value(json_object_get(x, "symbol")),
		      json_string_value(json_object_get(y, "symbol")));
}

static int by_self_desc(const void *a, const void *b)
{
	return cmp_desc(*(const json_t *const *)a, *(const json_t *const *)b, "self");
}

static int by_incl_desc(const void *a, const void *b)
{
	return cmp_desc(*(const json_t *const *)a, *(const json_t *const *)b, "incl");
}

/* keep[k] set for v[k] among the PROFILE_REPORT_SYMBOLS of v with the most incl.  0 or
 * -ENOMEM. */
static int mark_top_incl(const json_t **v, size_t n, unsigned char *keep)
{
	_cleanup_free_ const json_t **s = calloc(n ? n : 1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), by_incl_desc);
	for (size_t i = 0; i < n && i < PROFILE_REPORT_SYMBOLS; i++)
		for (size_t k = 0; k < n; k++)
			if (v[k] == s[i])
				keep[k] = 1;
	return 0;
}

static json_t *window_json(const json_t *w, const json_t *plugin)
{
	const json_t *syms = json_object_get(w, "symbols");
	size_t n = json_array_size(syms);
	_cleanup_free_ const json_t **v = calloc(n ? n : 1, sizeof(*v));
	_cleanup_free_ unsigned char *keep = calloc(n ? n : 1, 1);
	json_int_t other_self = 0, cutoff = 0;
	json_t *arr;

	if (!v || !keep)
		return NULL;
	for (size_t i = 0; i < n; i++)
		v[i] = json_array_get(syms, i);
	qsort(v, n, sizeof(*v), by_self_desc);
	for (size_t i = 0; i < n && i < PROFILE_REPORT_SYMBOLS; i++)
		keep[i] = 1;
	/* A symbol the result does not list has at most the last kept one's self instructions
	 * (0 when every symbol is kept): what a comparison may assume of it (analysis/deltas.h). */
	if (n > PROFILE_REPORT_SYMBOLS)
		cutoff = winjoin_int(v[PROFILE_REPORT_SYMBOLS - 1], "self");
	if (mark_top_incl(v, n, keep) < 0)
		return NULL;
	if (!(arr = json_array()))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (keep[i]) {
			if (json_array_append_new(arr, json_pack("{s:I, s:I, s:s}", "incl",
								 winjoin_int(v[i], "incl"), "self",
								 winjoin_int(v[i], "self"), "symbol",
								 json_string_value(json_object_get(
									 v[i], "symbol")))) < 0) {
				json_decref(arr);
				return NULL;
			}
			continue;
		}
		other_self += winjoin_int(v[i], "self");
	}
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:o, s:I, s:I, s:s}", "insns",
			 winjoin_int(w, "insns"), "tasks", winjoin_int(w, "tasks"), "other_self", other_self,
			 "self_cutoff", cutoff, "symbols_total",
			 (json_int_t)n, "symbols", arr, "dropped", winjoin_int(plugin, "dropped"),
			 "stack_overflows", winjoin_int(plugin, "stack_overflows"), "source",
			 "QEMU TCG plugin profile: instructions counted per translated block, "
			 "self by the symbol of each instruction, incl while the symbol is on the "
			 "plugin's shadow call stack");
}

int profile_attach(json_t *run, const json_t *plugin)
{
	return winjoin_attach(run, plugin, "profile", window_json);
}
