/* The kernel warnings of a run in its report (runs[].warnings, reports/SCHEMA.md): the one
 * converter each way, kept together so that what is written is what is read back. */
#include "core/kwarn.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/jsonpath.h"

static json_t *warning_json(const struct kwarn *w)
{
	return json_pack("{s:I,s:s,s:s,s:s,s:s}", "count", (json_int_t)w->count, "excerpt",
			 w->excerpt ? w->excerpt : "", "first_line", w->first_line, "kind",
			 kwarn_kind_name(w->kind), "where", w->where);
}

int kwarn_list_to_json(const struct kwarn_list *l, json_t *run)
{
	json_t *a = json_array();

	if (!a || json_object_set_new(run, "warnings", a) < 0)
		return -ENOMEM;
	for (unsigned i = 0; i < l->n && i < KWARN_MAX; i++)
		if (json_array_append_new(a, warning_json(&l->items[i])) < 0)
			return -ENOMEM;
	/* Only when some were dropped: a report without it dropped none. */
	if (l->dropped &&
	    json_object_set_new(run, "warnings_dropped", json_integer(l->dropped)) < 0)
		return -ENOMEM;
	return 0;
}

/* The string at o.key: at most max bytes, no NUL, no control character but those in ok (as
 * the scan leaves them), not empty.  NULL with err set. */
static const char *get_text(const json_t *o, const char *key, const char *path, size_t max,
			    const char *ok, struct lab_error *err)
{
	const json_t *v = json_object_get(o, key);
	const char *s = json_string_value(v);
	char p[JSONPATH_LEN];

	jsonpath_key(p, sizeof(p), path, key);
	if (!s) {
		error_set(err, p, v ? "must be a string" : "is missing");
		return NULL;
	}
	if (json_string_length(v) > max || json_string_length(v) != strlen(s) || !s[0]) {
		error_set(err, p, "must be 1 to %zu bytes without NUL", max);
		return NULL;
	}
	for (const char *c = s; *c; c++)
		if (((unsigned char)*c < 0x20 || *c == 0x7f) && !strchr(ok, *c)) {
			error_set(err, p, "holds a control character");
			return NULL;
		}
	return s;
}

static int count_of(const json_t *o, const char *key, const char *path, json_int_t min,
		    unsigned *out, struct lab_error *err)
{
	const json_t *v = json_object_get(o, key);
	json_int_t n = json_integer_value(v);
	char p[JSONPATH_LEN];

	jsonpath_key(p, sizeof(p), path, key);
	if (!json_is_integer(v) || n < min || n > UINT_MAX)
		return error_set(err, p, "must be an integer from %lld to %u", (long long)min,
				 UINT_MAX);
	*out = (unsigned)n;
	return 0;
}

static int warning_from_json(const json_t *o, const char *path, struct kwarn *w,
			     struct lab_error *err)
{
	static const char *const keys[] = { "count", "excerpt", "first_line", "kind", "where",
					    NULL };
	const char *kind, *first, *where, *excerpt;
	char p[JSONPATH_LEN];
	int r;

	if ((r = jsonpath_check_object(o, path, keys, err)) < 0 ||
	    (r = count_of(o, "count", path, 1, &w->count, err)) < 0)
		return r;
	if (!(kind = get_text(o, "kind", path, 64, "", err)) ||
	    !(first = get_text(o, "first_line", path, KWARN_LINE_MAX - 1, "\t", err)) ||
	    !(where = get_text(o, "where", path, KWARN_WHERE_MAX - 1, "", err)) ||
	    !(excerpt = get_text(o, "excerpt", path, KWARN_EXCERPT_MAX, "\t\n", err)))
		return -EINVAL;
	jsonpath_key(p, sizeof(p), path, "kind");
	if (kwarn_kind_parse(kind, &w->kind) < 0)
		return error_set(err, p, "unknown kind \"%.40s\"", kind);
	memcpy(w->first_line, first, strlen(first) + 1);
	memcpy(w->where, where, strlen(where) + 1);
	w->excerpt = strdup(excerpt);
	return w->excerpt ? 0 : -ENOMEM;
}

static int warnings_from_json(const json_t *a, const char *path, struct kwarn_list *out,
			      struct lab_error *err)
{
	char p[JSONPATH_LEN];

	if (!json_is_array(a))
		return error_set(err, path, "must be an array");
	if (json_array_size(a) > KWARN_MAX)
		return error_set(err, path, "has more than %d entries", KWARN_MAX);
	for (size_t i = 0; i < json_array_size(a); i++) {
		struct kwarn *w = &out->items[i];
		int r;

		jsonpath_index(p, sizeof(p), path, i);
		r = warning_from_json(json_array_get(a, i), p, w, err);
		out->n += w->excerpt != NULL; /* so that kwarn_list_free frees it */
		if (r < 0)
			return r;
		for (size_t j = 0; j < i; j++)
			if (out->items[j].kind == w->kind && !strcmp(out->items[j].where, w->where))
				return error_set(err, p, "repeats the kind and where of [%zu]", j);
	}
	return 0;
}

int kwarn_list_from_json(const json_t *run, const char *path, struct kwarn_list *out,
			 struct lab_error *err)
{
	const json_t *a = json_object_get(run, "warnings");
	char p[JSONPATH_LEN];
	int r;

	memset(out, 0, sizeof(*out));
	jsonpath_key(p, sizeof(p), path, "warnings");
	if (a && (r = warnings_from_json(a, p, out, err)) < 0)
		return r;
	if (!json_object_get(run, "warnings_dropped"))
		return 0;
	if ((r = count_of(run, "warnings_dropped", path, 0, &out->dropped, err)) < 0)
		return r;
	/* The scan drops only when the list is full. */
	jsonpath_key(p, sizeof(p), path, "warnings_dropped");
	if (out->dropped && out->n < KWARN_MAX)
		return error_set(err, p, "with fewer than %d warnings", KWARN_MAX);
	return 0;
}
