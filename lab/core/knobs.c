#include "core/knobs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util/cleanup.h"
#include "util/jsonpath.h"

static const char *const thp_enabled[] = {"always", "madvise", "never", NULL};
static const char *const thp_defrag[] = {"always", "defer", "defer+madvise", "madvise",
					 "never", NULL};
static const char *const thp_shmem[] = {"always", "within_size", "advise", "never", "deny",
					"force", NULL};
static const char *const mthp_enabled[] = {"always", "inherit", "madvise", "never", NULL};

/* The knob names, which are also what "required" may list. */
static const char *const knob_keys[] = {
	"thp_enabled", "thp_defrag", "thp_shmem_enabled", "mthp_enabled", "nr_hugepages",
	"numa_balancing", "required", NULL,
};

#define KNOBS_MAX_HUGEPAGES 16777216 /* 32 TiB of 2 MiB pages per node: only a sanity bound */
#define KNOBS_MAX_MTHP_SIZES 32

static int one_of(const json_t *v, const char *const *choices, const char *path,
		  struct lab_error *err)
{
	char list[256];
	size_t used = 0;
	const char *s = json_string_value(v);

	for (const char *const *c = choices; s && *c; c++)
		if (strcmp(*c, s) == 0)
			return 0;
	list[0] = '\0';
	for (const char *const *c = choices; *c && used < sizeof(list); c++) {
		int w = snprintf(list + used, sizeof(list) - used, "%s\"%s\"",
				 c == choices ? "" : ", ", *c);

		if (w < 0)
			break;
		used += (size_t)w;
	}
	return error_set(err, path, "must be one of %s", list);
}

/* "64kB", "2048kB": what follows "hugepages-" in /sys/kernel/mm/transparent_hugepage/. */
static int mthp_size_ok(const char *s)
{
	size_t n = strlen(s), d = strspn(s, "0123456789");

	return n >= 3 && n <= 10 && d == n - 2 && d > 0 && s[0] != '0' && strcmp(s + d, "kB") == 0;
}

static int check_mthp(const json_t *v, struct lab_error *err)
{
	const char *size;
	json_t *e;

	if (!json_is_object(v) || json_object_size(v) == 0 ||
	    json_object_size(v) > KNOBS_MAX_MTHP_SIZES)
		return error_set(err, "knobs.mthp_enabled",
				 "must be an object of 1..%d sizes, e.g. {\"64kB\": \"always\"}",
				 KNOBS_MAX_MTHP_SIZES);
	json_object_foreach((json_t *)v, size, e) {
		char p[JSONPATH_LEN];
		int r;

		jsonpath_key(p, sizeof(p), "knobs.mthp_enabled", size);
		if (!mthp_size_ok(size))
			return error_set(err, p, "the size must look like \"64kB\"");
		r = one_of(e, mthp_enabled, p, err);
		if (r < 0)
			return r;
	}
	return 0;
}

static int check_hugepages(const json_t *v, const struct topology *topo, struct lab_error *err)
{
	size_t i;
	json_t *e;

	if (json_is_integer(v) && json_integer_value(v) >= 0 &&
	    json_integer_value(v) <= KNOBS_MAX_HUGEPAGES)
		return 0;
	if (!json_is_array(v))
		return error_set(err, "knobs.nr_hugepages",
				 "must be a total count 0..%d or an array with one count per node",
				 KNOBS_MAX_HUGEPAGES);
	if (json_array_size(v) != topo->nr_nodes)
		return error_set(err, "knobs.nr_hugepages",
				 "has %zu entries but the topology has %u nodes", json_array_size(v),
				 topo->nr_nodes);
	json_array_foreach(v, i, e) {
		char p[JSONPATH_LEN];

		if (json_is_integer(e) && json_integer_value(e) >= 0 &&
		    json_integer_value(e) <= KNOBS_MAX_HUGEPAGES)
			continue;
		jsonpath_index(p, sizeof(p), "knobs.nr_hugepages", i);
		return error_set(err, p, "must be an integer 0..%d (2 MiB pages on node %zu)",
				 KNOBS_MAX_HUGEPAGES, i);
	}
	return 0;
}

/* "required": true (every knob given) or an array of knob names that are given. */
static int norm_required(const json_t *knobs, const json_t *v, json_t *out,
			 struct lab_error *err)
{
	json_t *arr = json_array(), *e;
	const char *key;
	size_t i;

	if (!arr)
		return -ENOMEM;
	json_object_set_new(out, "required", arr);
	if (!v || json_is_false(v))
		return 0;
	if (json_is_true(v)) {
		json_object_foreach((json_t *)knobs, key, e)
			if (strcmp(key, "required"))
				json_array_append_new(arr, json_string(key));
		return 0;
	}
	if (!json_is_array(v))
		return error_set(err, "knobs.required",
				 "must be true, false or an array of knob names");
	json_array_foreach(v, i, e) {
		char p[JSONPATH_LEN];
		const char *s = json_string_value(e);

		jsonpath_index(p, sizeof(p), "knobs.required", i);
		if (!s || !strcmp(s, "required") || !json_object_get(knobs, s))
			return error_set(err, p, "must name a knob set in this job");
		json_array_append_new(arr, json_string(s));
	}
	return 0;
}

static int check_all(const json_t *v, const struct topology *topo, json_t *out,
		     struct lab_error *err)
{
	const json_t *e;
	int r;

	if ((e = json_object_get(v, "thp_enabled")) &&
	    (r = one_of(e, thp_enabled, "knobs.thp_enabled", err)) < 0)
		return r;
	if ((e = json_object_get(v, "thp_defrag")) &&
	    (r = one_of(e, thp_defrag, "knobs.thp_defrag", err)) < 0)
		return r;
	if ((e = json_object_get(v, "thp_shmem_enabled")) &&
	    (r = one_of(e, thp_shmem, "knobs.thp_shmem_enabled", err)) < 0)
		return r;
	if ((e = json_object_get(v, "mthp_enabled")) && (r = check_mthp(e, err)) < 0)
		return r;
	if ((e = json_object_get(v, "nr_hugepages")) && (r = check_hugepages(e, topo, err)) < 0)
		return r;
	e = json_object_get(v, "numa_balancing");
	if (e && !json_is_boolean(e) &&
	    !(json_is_integer(e) && json_integer_value(e) >= 0 && json_integer_value(e) <= 3))
		return error_set(err, "knobs.numa_balancing",
				 "must be true, false or an integer 0..3 (3 = tiering + balancing)");
	if (e && json_is_boolean(e))
		json_object_set_new(out, "numa_balancing", json_integer(json_is_true(e)));
	return norm_required(v, json_object_get(v, "required"), out, err);
}

int knobs_parse(const json_t *v, const struct topology *topo, json_t **out,
		struct lab_error *err)
{
	_cleanup_json_ json_t *norm = NULL;
	int r;

	*out = NULL;
	if (!v)
		return 0;
	r = jsonpath_check_object(v, "knobs", knob_keys, err);
	if (r < 0)
		return r;
	norm = json_deep_copy(v);
	if (!norm)
		return -ENOMEM;
	r = check_all(v, topo, norm, err);
	if (r < 0)
		return r;
	*out = TAKE_PTR(norm);
	return 0;
}
