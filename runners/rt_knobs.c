/* Applying the job's knobs in the guest and recording what the kernel made of them.
 *
 * Each knob is one file.  All are read first ("before"), the requested ones written in the
 * knob table's order (lab/proto/knob.c: NUMA balancing, THP modes, mTHP sizes, huge pages),
 * then all read again ("after"):
 * the kernel may refuse a value (a mode it lacks), or give less (huge pages on a fragmented
 * node), and the report must say so rather than repeat the request. */
#include "rt_knobs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "proto/guestjob.h"
#include "proto/knob.h"
#include "rt.h"
#include "util/fs.h"

#define KNOB_MAX_ENTRIES 160

struct knob {
	char name[64];              /* "thp_enabled", "mthp_enabled.64kB", "nr_hugepages.node1" */
	const struct knob_def *def; /* its row in lab/proto/knob.c: what "required" lists */
	char path[160];             /* without the root prefix */
	json_t *want;               /* borrowed; NULL = not requested */
	json_t *before, *after;
	int werr;                   /* write error, negative errno */
};

struct knob_set {
	const char *root;
	struct knob k[KNOB_MAX_ENTRIES];
	size_t n;
};

static struct knob *knob_add(struct knob_set *s, const char *name, const struct knob_def *def,
			     const char *path, const json_t *want)
{
	struct knob *k;

	if (s->n == KNOB_MAX_ENTRIES)
		return NULL;
	k = &s->k[s->n++];
	memset(k, 0, sizeof(*k));
	snprintf(k->name, sizeof(k->name), "%s", name);
	k->def = def;
	snprintf(k->path, sizeof(k->path), "%s", path);
	k->want = (json_t *)want;
	return k;
}

/* The bracketed choice of a selector file, or its trimmed content; an integer for counts;
 * NULL when the file cannot be read. */
static json_t *knob_read(const struct knob_set *s, const struct knob *k)
{
	_cleanup_free_ char *buf = NULL;
	char path[512], *a, *b, *end;
	long long v;

	snprintf(path, sizeof(path), "%s%s", s->root, k->path);
	if (fs_read_file(path, 4096, &buf, NULL) < 0)
		return NULL;
	a = strchr(buf, '[');
	b = a ? strchr(a, ']') : NULL;
	if (k->def->type == KNOB_WORD && b)
		return json_stringn(a + 1, (size_t)(b - a - 1));
	buf[strcspn(buf, "\n")] = '\0';
	if (k->def->type == KNOB_COUNT) {
		errno = 0;
		v = strtoll(buf, &end, 10);
		if (!errno && end != buf && !*end)
			return json_integer(v);
	}
	rt_utf8_sanitize(buf, strlen(buf));
	return json_string(buf);
}

static int knob_write(const struct knob_set *s, const struct knob *k)
{
	char path[512], val[64];

	snprintf(path, sizeof(path), "%s%s", s->root, k->path);
	if (json_is_integer(k->want))
		snprintf(val, sizeof(val), "%lld", (long long)json_integer_value(k->want));
	else
		snprintf(val, sizeof(val), "%s", json_string_value(k->want));
	return rt_write_file(path, val);
}

/* One per size: the present sizes (each_dir/each_prefix SIZE directories), then requested
 * sizes that are not. */
static void knob_sizes(struct knob_set *s, const struct knob_def *d, const json_t *want)
{
	char dir[512], name[64], path[160];
	size_t plen = strlen(d->each_prefix);
	struct dirent **ents = NULL;
	int n;

	snprintf(dir, sizeof(dir), "%s%s", s->root, d->each_dir);
	n = scandir(dir, &ents, NULL, alphasort);
	const char *size;
	json_t *v;

	for (int i = 0; i < n; i++) {
		const char *sz = ents[i]->d_name + plen;

		if (!strncmp(ents[i]->d_name, d->each_prefix, plen) && strlen(sz) < 16) {
			snprintf(name, sizeof(name), "%s.%s", d->name, sz);
			snprintf(path, sizeof(path), "%s/%s/%s", d->each_dir, ents[i]->d_name,
				 d->each_file);
			knob_add(s, name, d, path, json_object_get(want, sz));
		}
		free(ents[i]);
	}
	free(ents);
	json_object_foreach((json_t *)want, size, v) {
		int seen = 0;

		snprintf(name, sizeof(name), "%s.%s", d->name, size);
		for (size_t i = 0; i < s->n; i++)
			seen |= !strcmp(s->k[i].name, name);
		snprintf(path, sizeof(path), "%s/%s%s/%s", d->each_dir, d->each_prefix, size,
			 d->each_file);
		if (!seen)
			knob_add(s, name, d, path, v);
	}
}

/* The total when the job gives one number; per node always, so the report shows where the
 * pages are, with the requested counts when the job gives an array. */
static void knob_nodes(struct knob_set *s, const struct knob_def *d, const json_t *want)
{
	char name[64], path[160], probe[512];
	size_t nodes = json_is_array(want) ? json_array_size(want) : 0;

	if (json_is_integer(want))
		knob_add(s, d->name, d, d->path, want);
	for (size_t i = 0; i < KNOB_MAX_NODES; i++) {
		snprintf(path, sizeof(path), "%s/%s%zu/%s", d->each_dir, d->each_prefix, i,
			 d->each_file);
		snprintf(probe, sizeof(probe), "%s%s/%s%zu", s->root, d->each_dir, d->each_prefix,
			 i);
		if (i >= nodes && !fs_exists(probe))
			continue;
		snprintf(name, sizeof(name), "%s.%s%zu", d->name, d->each_prefix, i);
		knob_add(s, name, d, path, i < nodes ? json_array_get(want, i) : NULL);
	}
}

/* Every knob of the table, the written_first ones first. */
static void knob_collect(struct knob_set *s, const json_t *knobs)
{
	for (int first = 1; first >= 0; first--)
		for (size_t i = 0; i < knob_count(); i++) {
			const struct knob_def *d = knob_at(i);
			const json_t *want = json_object_get(knobs, d->name);

			if (d->written_first != first)
				continue;
			if (d->expand == KNOB_PER_SIZE)
				knob_sizes(s, d, want);
			else if (d->expand == KNOB_PER_NODE)
				knob_nodes(s, d, want);
			else
				knob_add(s, d->name, d, d->path, want);
		}
}

static int knob_required(const json_t *knobs, const char *group)
{
	size_t i;
	json_t *e;

	json_array_foreach(json_object_get(knobs, KNOB_REQUIRED), i, e)
		if (json_is_string(e) && !strcmp(json_string_value(e), group))
			return 1;
	return 0;
}

static const char *knob_status(const struct knob *k)
{
	if (!k->before && !k->after)
		return "unavailable";
	if (!k->want)
		return "not-requested";
	if (k->werr)
		return "failed";
	return json_equal(k->want, k->after) ? "ok" : "differs";
}

static json_t *knob_entry(const struct knob *k, int required)
{
	json_t *e = json_pack("{s:s, s:s, s:O?, s:O?, s:O?, s:s, s:b}", "name", k->name, "path",
			      k->path, "requested", k->want, "before", k->before, "after",
			      k->after, "status", knob_status(k), "required", required);

	if (e && k->werr)
		json_object_set_new(e, "error", json_string(strerror(-k->werr)));
	return e;
}

int rt_knobs_apply(const char *root, const json_t *knobs, json_t **line, char *err, size_t len)
{
	struct knob_set *s = calloc(1, sizeof(*s));
	json_t *arr = json_array();
	int ok = 1;

	err[0] = '\0';
	*line = NULL;
	if (!s || !arr) {
		free(s);
		json_decref(arr);
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	s->root = root;
	knob_collect(s, knobs);
	for (size_t i = 0; i < s->n; i++)
		s->k[i].before = knob_read(s, &s->k[i]);
	for (size_t i = 0; i < s->n; i++)
		if (s->k[i].want && s->k[i].before)
			s->k[i].werr = knob_write(s, &s->k[i]);
	for (size_t i = 0; i < s->n; i++) {
		struct knob *k = &s->k[i];
		int req = knob_required(knobs, k->def->name);
		const char *st;

		k->after = knob_read(s, k);
		st = knob_status(k);
		if (req && k->want && strcmp(st, "ok") && ok) {
			ok = 0;
			snprintf(err, len, "required knob %s (%s): %s%s%s", k->name, k->path, st,
				 k->werr ? ": " : "", k->werr ? strerror(-k->werr) : "");
		}
		json_array_append_new(arr, knob_entry(k, req));
		json_decref(k->before);
		json_decref(k->after);
	}
	free(s);
	*line = json_pack("{s:s, s:b, s:o}", CHANNEL_KEY_TYPE, CHANNEL_T_KNOBS, "ok", ok, "knobs",
			  arr);
	if (*line && !ok)
		json_object_set_new(*line, "error", json_string(err));
	return ok ? 0 : -EINVAL;
}

int rt_knobs_main(const char *root, const char *job_file)
{
	_cleanup_json_ json_t *job = NULL, *line = NULL;
	struct lab_error why = { 0 };
	struct guestjob gj;
	json_error_t jerr;
	char err[768];
	int r;

	if (!root[0] || !strcmp(root, "/") || root[0] != '/') {
		fprintf(stderr, "agent: --knobs needs an absolute ROOT other than /: it writes there\n");
		return RT_EXIT_USAGE;
	}
	job = json_load_file(job_file, JSON_REJECT_DUPLICATES, &jerr);
	if (!job) {
		fprintf(stderr, "agent: %s: %s\n", job_file, jerr.text);
		return RT_EXIT_USAGE;
	}
	if (guestjob_validate(job, &gj, &why) < 0) {
		error_set_file(&why, job_file);
		error_format(&why, err, sizeof(err));
		fprintf(stderr, "agent: %s\n", err);
		return RT_EXIT_USAGE;
	}
	r = rt_knobs_apply(root, gj.knobs, &line, err, sizeof(err));
	if (!line || rt_emit_line(STDOUT_FILENO, line) < 0)
		return RT_EXIT_FAIL;
	if (r < 0)
		fprintf(stderr, "agent: %s\n", err);
	return r < 0 ? RT_EXIT_FAIL : RT_EXIT_OK;
}
