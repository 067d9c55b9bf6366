#include "proto/knob.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "proto/words.h"
#include "util/jsonpath.h"

#define THP_DIR "/sys/kernel/mm/transparent_hugepage"
#define NODE_DIR "/sys/devices/system/node"

static const char *const thp_enabled[] = {"always", "madvise", "never", NULL};
static const char *const thp_defrag[] = {"always", "defer", "defer+madvise", "madvise",
					 "never", NULL};
static const char *const thp_shmem[] = {"always", "within_size", "advise", "never", "deny",
					"force", NULL};
static const char *const mthp_enabled[] = {"always", "inherit", "madvise", "never", NULL};

/* In the order the host checks them and configs/README.md lists them.  NUMA balancing is
 * written first: the report's knob entries have always started with it. */
static const struct knob_def knobs[] = {
	{.name = "thp_enabled", .type = KNOB_WORD, .words = thp_enabled,
	 .path = THP_DIR "/enabled"},
	{.name = "thp_defrag", .type = KNOB_WORD, .words = thp_defrag, .path = THP_DIR "/defrag"},
	{.name = "thp_shmem_enabled", .type = KNOB_WORD, .words = thp_shmem,
	 .path = THP_DIR "/shmem_enabled"},
	{.name = "mthp_enabled", .type = KNOB_WORD, .expand = KNOB_PER_SIZE, .words = mthp_enabled,
	 .each_dir = THP_DIR, .each_prefix = "hugepages-", .each_file = "enabled",
	 .hint = "{\"64kB\": \"always\"}"},
	/* 16777216 2 MiB pages, 32 TiB per node: only a sanity bound. */
	{.name = "nr_hugepages", .type = KNOB_COUNT, .expand = KNOB_PER_NODE, .max = 16777216,
	 .path = "/proc/sys/vm/nr_hugepages", .each_dir = NODE_DIR, .each_prefix = "node",
	 .each_file = "hugepages/hugepages-2048kB/nr_hugepages", .hint = "2 MiB pages"},
	{.name = "numa_balancing", .type = KNOB_COUNT, .max = 3, .job_bool = 1,
	 .written_first = 1, .path = "/proc/sys/kernel/numa_balancing",
	 .hint = "3 = tiering + balancing"},
};

#define NR_KNOBS (sizeof(knobs) / sizeof(knobs[0]))

const struct knob_def *knob_find(const char *name)
{
	for (size_t i = 0; name && i < NR_KNOBS; i++)
		if (strcmp(knobs[i].name, name) == 0)
			return &knobs[i];
	return NULL;
}

size_t knob_count(void)
{
	return NR_KNOBS;
}

const struct knob_def *knob_at(size_t i)
{
	return i < NR_KNOBS ? &knobs[i] : NULL;
}

static int count_ok(const struct knob_def *k, const json_t *v)
{
	return json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= k->max;
}

static int check_word(const struct knob_def *k, const json_t *v, const char *path,
		      struct lab_error *err)
{
	char list[256];

	if (words_index(k->words, json_string_value(v)) >= 0)
		return 0;
	words_list(k->words, ", ", list, sizeof(list));
	return error_set(err, path, "must be one of %s", list);
}

/* "64kB", "2048kB": what follows "hugepages-" in /sys/kernel/mm/transparent_hugepage/. */
static int size_ok(const char *s)
{
	size_t n = strlen(s), d = strspn(s, "0123456789");

	return n >= 3 && n <= 10 && d == n - 2 && d > 0 && s[0] != '0' && strcmp(s + d, "kB") == 0;
}

/* The sizes an x86-64 kernel with 4 KiB pages can have: orders 1 to PMD_ORDER (9), i.e.
 * powers of two from 8kB to 2048kB (anonymous mTHP uses 16kB and up; 8kB is shmem's).
 * Whether the guest's kernel has a size is only known in the guest: the agent reports a
 * size whose directory is missing as "unsupported", naming it. */
#define KNOB_SIZE_MIN_KB 8ul
#define KNOB_SIZE_MAX_KB 2048ul
static int size_known(const char *s)
{
	unsigned long kb = strtoul(s, NULL, 10);

	return kb >= KNOB_SIZE_MIN_KB && kb <= KNOB_SIZE_MAX_KB && !(kb & (kb - 1));
}

static int check_sizes(const struct knob_def *k, const json_t *v, const char *path,
		       struct lab_error *err)
{
	const char *size;
	json_t *e;

	if (!json_is_object(v) || json_object_size(v) == 0 ||
	    json_object_size(v) > KNOB_MAX_SIZES)
		return error_set(err, path, "must be an object of 1..%d sizes, e.g. %s",
				 KNOB_MAX_SIZES, k->hint);
	json_object_foreach((json_t *)v, size, e) {
		char p[JSONPATH_LEN];
		int r;

		jsonpath_key(p, sizeof(p), path, size);
		if (!size_ok(size))
			return error_set(err, p, "the size must look like \"64kB\"");
		if (!size_known(size))
			return error_set(err, p, "unknown size %s: sizes are powers of two from "
					 "%lukB to %lukB (x86-64, 4 KiB pages)", size,
					 KNOB_SIZE_MIN_KB, KNOB_SIZE_MAX_KB);
		r = check_word(k, e, p, err);
		if (r < 0)
			return r;
	}
	return 0;
}

static int check_nodes(const struct knob_def *k, const json_t *v, const char *path,
		       unsigned nr_nodes, struct lab_error *err)
{
	size_t i, n = json_array_size(v);
	json_t *e;

	if (count_ok(k, v))
		return 0;
	if (!json_is_array(v) || (!nr_nodes && n > KNOB_MAX_NODES))
		return error_set(err, path,
				 "must be a total count 0..%lld or an array with one count per node",
				 k->max);
	if (nr_nodes && n != nr_nodes)
		return error_set(err, path, "has %zu entries but the topology has %u nodes", n,
				 nr_nodes);
	json_array_foreach(v, i, e) {
		char p[JSONPATH_LEN];

		if (count_ok(k, e))
			continue;
		jsonpath_index(p, sizeof(p), path, i);
		return error_set(err, p, "must be an integer 0..%lld (%s on node %zu)", k->max,
				 k->hint, i);
	}
	return 0;
}

int knob_check(const struct knob_def *k, const json_t *v, const char *path, unsigned nr_nodes,
	       struct lab_error *err)
{
	int bool_ok = k->job_bool && nr_nodes;

	if (k->expand == KNOB_PER_SIZE)
		return check_sizes(k, v, path, err);
	if (k->expand == KNOB_PER_NODE)
		return check_nodes(k, v, path, nr_nodes, err);
	if (k->type == KNOB_WORD)
		return check_word(k, v, path, err);
	if (count_ok(k, v) || (bool_ok && json_is_boolean(v)))
		return 0;
	return error_set(err, path, "must be %san integer 0..%lld (%s)",
			 bool_ok ? "true, false or " : "", k->max, k->hint);
}

int knob_check_keys(const json_t *v, const char *prefix, struct lab_error *err)
{
	const char *keys[NR_KNOBS + 2];

	for (size_t i = 0; i < NR_KNOBS; i++)
		keys[i] = knobs[i].name;
	keys[NR_KNOBS] = KNOB_REQUIRED;
	keys[NR_KNOBS + 1] = NULL;
	return jsonpath_check_object(v, prefix, keys, err);
}

static int check_required(const json_t *v, struct lab_error *err)
{
	size_t i;
	json_t *e;

	if (!json_is_array(v) || json_array_size(v) > KNOB_MAX_REQUIRED)
		return error_set(err, "knobs." KNOB_REQUIRED,
				 "must be an array of at most %d knob names", KNOB_MAX_REQUIRED);
	json_array_foreach(v, i, e) {
		char p[JSONPATH_LEN];

		jsonpath_index(p, sizeof(p), "knobs." KNOB_REQUIRED, i);
		if (!knob_find(json_string_value(e)))
			return error_set(err, p, "must name a knob");
	}
	return 0;
}

int knob_check_guest(const json_t *knobs_obj, struct lab_error *err)
{
	const char *key;
	json_t *v;
	int r;

	if (!knobs_obj)
		return 0;
	r = knob_check_keys(knobs_obj, "knobs", err);
	if (r < 0)
		return r;
	json_object_foreach((json_t *)knobs_obj, key, v) {
		const struct knob_def *k = knob_find(key);
		char p[JSONPATH_LEN];

		jsonpath_key(p, sizeof(p), "knobs", key);
		r = k ? knob_check(k, v, p, 0, err) : check_required(v, err);
		if (r < 0)
			return r;
	}
	return 0;
}
