/* A bundle's manifest (core/bundle.h).  Pure. */
#include "core/bundle.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/timing.h"
#include "util/archive.h"
#include "util/cleanup.h"
#include "util/jsonpath.h"
#include "util/text.h"

struct bundle_manifest *bundle_manifest_new(void)
{
	return calloc(1, sizeof(struct bundle_manifest));
}

void bundle_manifest_free(struct bundle_manifest *m)
{
	if (!m)
		return;
	free(m->seeds);
	free(m);
}

static int hex64(const char *s)
{
	return s && strlen(s) == 64 && strspn(s, "0123456789abcdef") == 64;
}

const struct bundle_member *bundle_manifest_find(const struct bundle_manifest *m,
						 const char *path)
{
	for (unsigned i = 0; i < m->nr_members; i++)
		if (!strcmp(m->members[i].path, path))
			return &m->members[i];
	return NULL;
}

int bundle_manifest_add(struct bundle_manifest *m, const char *path, const char *sha256,
			size_t bytes, const char *what)
{
	struct bundle_member *b;

	if (!arc_name_ok(path) || strlen(path) >= sizeof(b->path) ||
	    !strcmp(path, BUNDLE_MANIFEST) || !hex64(sha256))
		return -EINVAL;
	if (bundle_manifest_find(m, path))
		return -EEXIST;
	if (m->nr_members >= BUNDLE_MAX_MEMBERS)
		return -E2BIG;
	b = &m->members[m->nr_members++];
	snprintf(b->path, sizeof(b->path), "%s", path);
	snprintf(b->sha256, sizeof(b->sha256), "%s", sha256);
	b->bytes = bytes;
	snprintf(b->what, sizeof(b->what), "%s", what ? what : "");
	return 0;
}

void bundle_manifest_note(struct bundle_manifest *m, const char *note)
{
	if (m->nr_notes < BUNDLE_MAX_NOTES)
		snprintf(m->notes[m->nr_notes++], sizeof(m->notes[0]), "%s", note);
}

static json_t *seeds_json(const struct bundle_manifest *m)
{
	json_t *a = m->has_seeds ? json_array() : json_null();

	for (unsigned i = 0; a && m->has_seeds && i < m->runs; i++)
		if (json_array_append_new(a, json_integer((json_int_t)m->seeds[i])) < 0)
			return json_decref(a), NULL;
	return a;
}

json_t *bundle_manifest_json(const struct bundle_manifest *m)
{
	_cleanup_json_ json_t *j = NULL, *mem = json_array(), *notes = json_array();
	json_t *rep;

	if (!mem || !notes)
		return NULL;
	for (unsigned i = 0; i < m->nr_members; i++)
		if (json_array_append_new(mem, json_pack("{s:s,s:s,s:I,s:s}", "path",
							 m->members[i].path, "sha256",
							 m->members[i].sha256, "bytes",
							 (json_int_t)m->members[i].bytes, "what",
							 m->members[i].what)) < 0)
			return NULL;
	for (unsigned i = 0; i < m->nr_notes; i++)
		if (json_array_append_new(notes, json_string(m->notes[i])) < 0)
			return NULL;
	j = json_pack("{s:s,s:s,s:{s:s,s:s},s:{s:s,s:s,s:I,s:I},s:o,s:O,s:O}", "schema",
		      BUNDLE_SCHEMA, "created", m->created, "lab", "version", m->lab_version,
		      "commit", m->lab_commit, "report", "id", m->report_id, "model", m->model,
		      "runs", (json_int_t)m->runs, "repeats", (json_int_t)m->repeats, "seeds",
		      seeds_json(m), "members", mem, "notes", notes);
	rep = json_object_get(j, "report");
	if (j && m->quantum &&
	    json_object_set_new(rep, "quantum", json_integer((json_int_t)m->quantum)) < 0)
		return NULL;
	return json_incref(j);
}

/* A string at key of o into buf: present, a string without control characters, shorter
 * than len; path names it. */
static int str_at(const json_t *o, const char *prefix, const char *key, char *buf, size_t len,
		  struct lab_error *err)
{
	const char *s = json_string_value(json_object_get(o, key));
	char path[128];

	jsonpath_key(path, sizeof(path), prefix, key);
	if (!s || strlen(s) >= len || text_has_control_chars(s))
		return error_set(err, path, "must be a string of at most %zu bytes, no control "
				 "characters", len - 1);
	snprintf(buf, len, "%s", s);
	return 0;
}

static int uint_at(const json_t *o, const char *prefix, const char *key, unsigned max,
		   unsigned *out, struct lab_error *err)
{
	const json_t *v = json_object_get(o, key);
	char path[128];

	jsonpath_key(path, sizeof(path), prefix, key);
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > max)
		return error_set(err, path, "must be an integer from 0 to %u", max);
	*out = (unsigned)json_integer_value(v);
	return 0;
}

static int parse_head(const json_t *j, struct bundle_manifest *m, struct lab_error *err)
{
	static const char *const keys[] = {"schema", "created", "lab", "report", "seeds",
					   "members", "notes", NULL};
	static const char *const lab_keys[] = {"version", "commit", NULL};
	static const char *const rep_keys[] = {"id", "model", "quantum", "runs", "repeats", NULL};
	const json_t *lab = json_object_get(j, "lab"), *rep = json_object_get(j, "report");
	int r;

	if (!json_is_object(j))
		return error_set(err, "", "the manifest must be a JSON object");
	if ((r = jsonpath_check_keys(j, "", keys, err)) < 0)
		return r;
	if (!json_is_string(json_object_get(j, "schema")) ||
	    strcmp(json_string_value(json_object_get(j, "schema")), BUNDLE_SCHEMA))
		return error_set(err, "schema", "must be \"%s\" (a bundle of another lab?)",
				 BUNDLE_SCHEMA);
	if ((r = str_at(j, "", "created", m->created, sizeof(m->created), err)) < 0 ||
	    (r = jsonpath_check_object(lab, "lab", lab_keys, err)) < 0 ||
	    (r = str_at(lab, "lab", "version", m->lab_version, sizeof(m->lab_version), err)) < 0 ||
	    (r = str_at(lab, "lab", "commit", m->lab_commit, sizeof(m->lab_commit), err)) < 0 ||
	    (r = jsonpath_check_object(rep, "report", rep_keys, err)) < 0 ||
	    (r = str_at(rep, "report", "id", m->report_id, sizeof(m->report_id), err)) < 0 ||
	    (r = str_at(rep, "report", "model", m->model, sizeof(m->model), err)) < 0 ||
	    (r = uint_at(rep, "report", "runs", BUNDLE_MAX_RUNS, &m->runs, err)) < 0 ||
	    (r = uint_at(rep, "report", "repeats", BUNDLE_MAX_RUNS, &m->repeats, err)) < 0)
		return r;
	if (json_object_get(rep, "quantum") &&
	    (r = uint_at(rep, "report", "quantum", 1u << 30, &m->quantum, err)) < 0)
		return r;
	return 0;
}

static int parse_seeds(const json_t *a, struct bundle_manifest *m, struct lab_error *err)
{
	const json_t *v;
	size_t i;

	if (json_is_null(a))
		return 0;
	if (!json_is_array(a) || json_array_size(a) != m->runs)
		return error_set(err, "seeds", "must be null or an array of report.runs (%u) seeds",
				 m->runs);
	if (!(m->seeds = calloc(m->runs ? m->runs : 1, sizeof(*m->seeds))))
		return -ENOMEM;
	json_array_foreach(a, i, v) {
		char path[64];

		jsonpath_index(path, sizeof(path), "seeds", i);
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    (unsigned long long)json_integer_value(v) > RUN_SEED_MAX)
			return error_set(err, path, "must be an integer from 0 to %llu",
					 (unsigned long long)RUN_SEED_MAX);
		m->seeds[i] = (unsigned long long)json_integer_value(v);
	}
	m->has_seeds = 1;
	return 0;
}

static int parse_member(const json_t *e, const char *path, struct bundle_manifest *m,
			struct lab_error *err)
{
	static const char *const keys[] = {"path", "sha256", "bytes", "what", NULL};
	struct bundle_member b;
	const json_t *n = json_object_get(e, "bytes");
	char p[64];
	int r;

	if ((r = jsonpath_check_object(e, path, keys, err)) < 0 ||
	    (r = str_at(e, path, "path", b.path, sizeof(b.path), err)) < 0 ||
	    (r = str_at(e, path, "sha256", b.sha256, sizeof(b.sha256), err)) < 0 ||
	    (r = str_at(e, path, "what", b.what, sizeof(b.what), err)) < 0)
		return r;
	jsonpath_key(p, sizeof(p), path, "bytes");
	if (!json_is_integer(n) || json_integer_value(n) < 0 ||
	    json_integer_value(n) > (json_int_t)ARC_MAX_MEMBER)
		return error_set(err, p, "must be an integer from 0 to %u", ARC_MAX_MEMBER);
	jsonpath_key(p, sizeof(p), path, arc_name_ok(b.path) && strcmp(b.path, BUNDLE_MANIFEST)
						 ? "sha256" : "path");
	r = bundle_manifest_add(m, b.path, b.sha256, (size_t)json_integer_value(n), b.what);
	if (r == -EINVAL)
		return error_set(err, p, !strcmp(b.path, BUNDLE_MANIFEST) ? "the manifest lists itself"
			       : arc_name_ok(b.path) ? "must be 64 lower-case hex digits"
			       : "not a safe member name: %s", arc_name_problem(b.path));
	if (r == -EEXIST)
		return error_set(err, path, "%s is listed twice", b.path);
	return r == -E2BIG ? error_set(err, "members", "more than %u members", BUNDLE_MAX_MEMBERS)
			   : r;
}

int bundle_manifest_from_json(const json_t *j, struct bundle_manifest *m, struct lab_error *err)
{
	const json_t *a, *e;
	size_t i;
	int r;

	if ((r = parse_head(j, m, err)) < 0 || (r = parse_seeds(json_object_get(j, "seeds"), m,
								    err)) < 0)
		return r;
	a = json_object_get(j, "members");
	if (!json_is_array(a) || !json_array_size(a))
		return error_set(err, "members", "must be a non-empty array");
	json_array_foreach(a, i, e) {
		char path[64];

		jsonpath_index(path, sizeof(path), "members", i);
		if ((r = parse_member(e, path, m, err)) < 0)
			return r;
	}
	a = json_object_get(j, "notes");
	if (!json_is_array(a) || json_array_size(a) > BUNDLE_MAX_NOTES)
		return error_set(err, "notes", "must be an array of at most %u strings",
				 BUNDLE_MAX_NOTES);
	json_array_foreach(a, i, e) {
		char path[64], buf[256];

		jsonpath_index(path, sizeof(path), "notes", i);
		if (!json_is_string(e) || text_has_control_chars(json_string_value(e)))
			return error_set(err, path, "must be a string without control characters");
		snprintf(buf, sizeof(buf), "%s", json_string_value(e));
		bundle_manifest_note(m, buf);
	}
	return 0;
}

int bundle_manifest_check(const struct bundle_manifest *m, char *const *names,
			  const char (*sha)[65], size_t n, struct lab_error *err)
{
	for (size_t i = 0; i < n; i++) {
		const struct bundle_member *b = bundle_manifest_find(m, names[i]);

		if (!b)
			return error_set(err, names[i], "not listed in %s: refused (a bundle holds "
					 "what its manifest lists, nothing else)", BUNDLE_MANIFEST);
		if (strcmp(b->sha256, sha[i]))
			return error_set(err, names[i], "its bytes hash to %.12s..., the manifest "
					 "lists %.12s...: altered or damaged", sha[i], b->sha256);
	}
	for (unsigned k = 0; k < m->nr_members; k++) {
		size_t i;

		for (i = 0; i < n && strcmp(names[i], m->members[k].path); i++)
			;
		if (i == n)
			return error_set(err, m->members[k].path, "listed in %s but not in the "
					 "archive", BUNDLE_MANIFEST);
	}
	return 0;
}
