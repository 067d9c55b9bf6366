/* Applying the job's knobs in the guest and recording what the kernel made of them.
 *
 * Each knob is one file.  All are read first ("before"), the requested ones written in a fixed
 * order (NUMA balancing, THP modes, mTHP sizes, huge pages), then all read again ("after"):
 * the kernel may refuse a value (a mode it lacks), or give less (huge pages on a fragmented
 * node), and the report must say so rather than repeat the request. */
#include "rt_knobs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rt.h"
#include "util/fs.h"

#define THP_DIR "/sys/kernel/mm/transparent_hugepage"
#define NODE_DIR "/sys/devices/system/node"
#define KNOB_MAX_ENTRIES 160

enum knob_kind { KNOB_SELECTOR, KNOB_INT };

struct knob {
	char name[64];  /* "thp_enabled", "mthp_enabled.64kB", "nr_hugepages.node1" */
	char group[32]; /* the job's knob name: what "required" lists */
	char path[160]; /* without the root prefix */
	enum knob_kind kind;
	json_t *want;   /* borrowed; NULL = not requested */
	json_t *before, *after;
	int werr;       /* write error, negative errno */
};

struct knob_set {
	const char *root;
	struct knob k[KNOB_MAX_ENTRIES];
	size_t n;
};

static const char *const knob_groups[] = {
	"thp_enabled", "thp_defrag", "thp_shmem_enabled", "mthp_enabled", "nr_hugepages",
	"numa_balancing", "required", NULL,
};

static struct knob *knob_add(struct knob_set *s, const char *name, const char *group,
			     const char *path, enum knob_kind kind, json_t *want)
{
	struct knob *k;

	if (s->n == KNOB_MAX_ENTRIES)
		return NULL;
	k = &s->k[s->n++];
	memset(k, 0, sizeof(*k));
	snprintf(k->name, sizeof(k->name), "%s", name);
	snprintf(k->group, sizeof(k->group), "%s", group);
	snprintf(k->path, sizeof(k->path), "%s", path);
	k->kind = kind;
	k->want = want;
	return k;
}

/* The bracketed choice of a selector file, or its trimmed content; an integer for int knobs;
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
	if (k->kind == KNOB_SELECTOR && b)
		return json_stringn(a + 1, (size_t)(b - a - 1));
	buf[strcspn(buf, "\n")] = '\0';
	if (k->kind == KNOB_INT) {
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

/* Present mTHP sizes ("hugepages-64kB" directories), then requested sizes that are not. */
static void knob_mthp(struct knob_set *s, const json_t *want)
{
	char dir[512], name[64], path[160];
	struct dirent **ents = NULL;
	int n;

	snprintf(dir, sizeof(dir), "%s" THP_DIR, s->root);
	n = scandir(dir, &ents, NULL, alphasort);
	const char *size;
	json_t *v;

	for (int i = 0; i < n; i++) {
		const char *sz = ents[i]->d_name + strlen("hugepages-");

		if (!strncmp(ents[i]->d_name, "hugepages-", 10) && strlen(sz) < 16) {
			snprintf(name, sizeof(name), "mthp_enabled.%s", sz);
			snprintf(path, sizeof(path), THP_DIR "/%s/enabled", ents[i]->d_name);
			knob_add(s, name, "mthp_enabled", path, KNOB_SELECTOR,
				 json_object_get(want, sz));
		}
		free(ents[i]);
	}
	free(ents);
	json_object_foreach((json_t *)want, size, v) {
		int seen = 0;

		snprintf(name, sizeof(name), "mthp_enabled.%s", size);
		for (size_t i = 0; i < s->n; i++)
			seen |= !strcmp(s->k[i].name, name);
		snprintf(path, sizeof(path), THP_DIR "/hugepages-%s/enabled", size);
		if (!seen)
			knob_add(s, name, "mthp_enabled", path, KNOB_SELECTOR, v);
	}
}

/* nr_hugepages: the total when the job gives one number; per node (2 MiB pages) always, so the
 * report shows where the pages are, with the requested counts when the job gives an array. */
static void knob_hugepages(struct knob_set *s, const json_t *want)
{
	char name[64], path[160], probe[512];
	size_t nodes = json_is_array(want) ? json_array_size(want) : 0;

	if (json_is_integer(want))
		knob_add(s, "nr_hugepages", "nr_hugepages", "/proc/sys/vm/nr_hugepages", KNOB_INT,
			 (json_t *)want);
	for (size_t i = 0; i < RT_KNOBS_MAX_NODES; i++) {
		snprintf(path, sizeof(path), NODE_DIR "/node%zu/hugepages/hugepages-2048kB/nr_hugepages",
			 i);
		snprintf(probe, sizeof(probe), "%s" NODE_DIR "/node%zu", s->root, i);
		if (i >= nodes && !fs_exists(probe))
			continue;
		snprintf(name, sizeof(name), "nr_hugepages.node%zu", i);
		knob_add(s, name, "nr_hugepages", path, KNOB_INT,
			 i < nodes ? json_array_get(want, i) : NULL);
	}
}

static void knob_collect(struct knob_set *s, const json_t *knobs)
{
	knob_add(s, "numa_balancing", "numa_balancing", "/proc/sys/kernel/numa_balancing", KNOB_INT,
		 json_object_get(knobs, "numa_balancing"));
	knob_add(s, "thp_enabled", "thp_enabled", THP_DIR "/enabled", KNOB_SELECTOR,
		 json_object_get(knobs, "thp_enabled"));
	knob_add(s, "thp_defrag", "thp_defrag", THP_DIR "/defrag", KNOB_SELECTOR,
		 json_object_get(knobs, "thp_defrag"));
	knob_add(s, "thp_shmem_enabled", "thp_shmem_enabled", THP_DIR "/shmem_enabled",
		 KNOB_SELECTOR, json_object_get(knobs, "thp_shmem_enabled"));
	knob_mthp(s, json_object_get(knobs, "mthp_enabled"));
	knob_hugepages(s, json_object_get(knobs, "nr_hugepages"));
}

static int knob_required(const json_t *knobs, const char *group)
{
	size_t i;
	json_t *e;

	json_array_foreach(json_object_get(knobs, "required"), i, e)
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
		int req = knob_required(knobs, k->group);
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
	*line = json_pack("{s:s, s:b, s:o}", "t", "knobs", "ok", ok, "knobs", arr);
	if (*line && !ok)
		json_object_set_new(*line, "error", json_string(err));
	return ok ? 0 : -EINVAL;
}

/* ---- shape check ----------------------------------------------------------------------- */

static int knob_word_ok(const json_t *v)
{
	const char *s = json_string_value(v);

	return s && strlen(s) <= 32 && strspn(s, "abcdefghijklmnopqrstuvwxyz_+") == strlen(s);
}

static int knob_count_ok(const json_t *v)
{
	return json_is_integer(v) && json_integer_value(v) >= 0 &&
	       json_integer_value(v) <= (1LL << 32);
}

static int knob_check_one(const char *key, const json_t *v)
{
	const char *size;
	size_t i;
	json_t *e;

	if (!strcmp(key, "mthp_enabled")) {
		if (!json_is_object(v) || json_object_size(v) > 32)
			return 0;
		json_object_foreach((json_t *)v, size, e)
			if (strlen(size) > 12 || strspn(size, "0123456789kB") != strlen(size) ||
			    !knob_word_ok(e))
				return 0;
		return 1;
	}
	if (!strcmp(key, "nr_hugepages")) {
		if (knob_count_ok(v))
			return 1;
		if (!json_is_array(v) || json_array_size(v) > RT_KNOBS_MAX_NODES)
			return 0;
		json_array_foreach(v, i, e)
			if (!knob_count_ok(e))
				return 0;
		return 1;
	}
	if (!strcmp(key, "numa_balancing"))
		return json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= 3;
	if (!strcmp(key, "required")) {
		if (!json_is_array(v) || json_array_size(v) > 16)
			return 0;
		json_array_foreach(v, i, e)
			if (!knob_word_ok(e))
				return 0;
		return 1;
	}
	return knob_word_ok(v);
}

int rt_knobs_check(const json_t *knobs, char *err, size_t len)
{
	const char *key;
	json_t *v;

	if (!knobs)
		return 0;
	if (!json_is_object(knobs)) {
		snprintf(err, len, "knobs: must be an object");
		return -EINVAL;
	}
	json_object_foreach((json_t *)knobs, key, v) {
		int known = 0;

		for (const char *const *g = knob_groups; *g; g++)
			known |= !strcmp(*g, key);
		if (!known) {
			snprintf(err, len, "knobs.%.64s: unknown knob", key);
			return -EINVAL;
		}
		if (!knob_check_one(key, v)) {
			snprintf(err, len, "knobs.%s: invalid value", key);
			return -EINVAL;
		}
	}
	return 0;
}

int rt_knobs_main(const char *root, const char *job_file)
{
	_cleanup_json_ json_t *job = NULL, *line = NULL;
	json_error_t jerr;
	char err[512];
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
	if (rt_knobs_check(json_object_get(job, "knobs"), err, sizeof(err)) < 0) {
		fprintf(stderr, "agent: %s: %s\n", job_file, err);
		return RT_EXIT_USAGE;
	}
	r = rt_knobs_apply(root, json_object_get(job, "knobs"), &line, err, sizeof(err));
	if (!line || rt_emit_line(STDOUT_FILENO, line) < 0)
		return RT_EXIT_FAIL;
	if (r < 0)
		fprintf(stderr, "agent: %s\n", err);
	return r < 0 ? RT_EXIT_FAIL : RT_EXIT_OK;
}
