/* Helpers shared by the data-driven C unit tests: the repo root, the NAME.json files of a
 * data directory, the NAME.expected file beside each and the checks against it. */
#pragma once
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/jsonio.h"

/* Largest data file a test reads. */
#define TESTUTIL_MAX_FILE (1u << 20)

/* The repo root: $LAB_ROOT, else ".". */
static inline const char *testutil_root(void)
{
	const char *r = getenv("LAB_ROOT");

	return r && r[0] ? r : ".";
}

/* The JSON file rel (below the repo root), or NULL after a "# cannot load" line. */
static inline json_t *testutil_load(const char *rel)
{
	_cleanup_free_ char *path = fs_join(testutil_root(), rel);
	struct lab_error err = { 0 };
	json_t *j = NULL;

	if (!path || jsonio_load_file(path, TESTUTIL_MAX_FILE, &j, &err) < 0)
		printf("# cannot load %s: %s\n", rel, err.msg);
	return j;
}

/* Cut trailing newlines (LF and CR) off s. */
static inline void testutil_chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
}

/* The file NAME.expected beside jpath (".../NAME.json"), trailing newlines cut; caller frees.
 * When it cannot be read: a failed test point "NAME: read PATH" (name as given) and NULL. */
static inline char *testutil_read_expected(const char *jpath, const char *name)
{
	char *epath = NULL, *expected = NULL;

	if (asprintf(&epath, "%.*s.expected", (int)(strlen(jpath) - 5), jpath) < 0 ||
	    fs_read_file(epath, TESTUTIL_MAX_FILE, &expected, NULL) < 0) {
		tap_ok(0, "%s: read %s", name, epath ? epath : "expected file");
		free(epath);
		return NULL;
	}
	free(epath);
	testutil_chomp(expected);
	return expected;
}

/* A case that must fail: r is -EINVAL and the error line got is expected ("NAME: EXPECTED"). */
static inline int testutil_check_error(const char *name, int r, const char *got,
				       const char *expected)
{
	if (tap_ok(r == -EINVAL && strcmp(got, expected) == 0, "%s: %s", name, expected))
		return 1;
	printf("# got r=%d: %s\n", r, got);
	return 0;
}

/* A case that must parse: have (NULL when building it failed) equals the JSON text expected
 * ("NAME: parses to the expected WHAT"). */
static inline int testutil_check_json(const char *name, const char *what, const json_t *have,
				      const char *expected)
{
	_cleanup_json_ json_t *want = NULL;
	_cleanup_free_ char *s = NULL;
	struct lab_error err = {0};

	if (jsonio_load_string(expected, &want, &err) < 0)
		return tap_ok(0, "%s: expected file is not JSON: %s", name, err.msg);
	if (tap_ok(have && json_equal(want, have), "%s: parses to the expected %s", name, what))
		return 1;
	s = have ? json_dumps(have, JSON_SORT_KEYS | JSON_COMPACT) : NULL;
	printf("# got: %s\n", s ? s : "(null)");
	return 0;
}

/* An expected number in a data file: a JSON number, "inf"/"-inf", or null for NaN. */
static inline double testutil_num(const json_t *v)
{
	const char *s = json_string_value(v);

	if (json_is_number(v))
		return json_number_value(v);
	if (s)
		return !strcmp(s, "inf") ? INFINITY : -INFINITY;
	return NAN;
}

/* got equals want within rel_tol (relative) or 1e-15 (absolute); NaN equals NaN only, and an
 * infinity only itself. */
static inline int testutil_close(double got, double want, double rel_tol)
{
	if (isnan(want) || isnan(got))
		return isnan(want) && isnan(got);
	if (isinf(want) || isinf(got))
		return got == want;
	return fabs(got - want) <= rel_tol * fabs(want) + 1e-15;
}

/* The NAME.json entries of a directory below the repo root, in name order. */
struct testutil_json_dir {
	char *dir;             /* the directory, joined to the repo root */
	struct dirent **ents;  /* ents[i]->d_name is NAME.json */
	int n;                 /* how many; -1 when the directory cannot be read */
};

static inline int testutil_json_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n >= 5 && strcmp(d->d_name + n - 5, ".json") == 0;
}

static inline void testutil_json_dir_open(struct testutil_json_dir *d, const char *rel)
{
	d->ents = NULL;
	d->n = -1;
	d->dir = fs_join(testutil_root(), rel);
	if (d->dir)
		d->n = scandir(d->dir, &d->ents, testutil_json_filter, alphasort);
}

static inline void testutil_json_dir_close(struct testutil_json_dir *d)
{
	for (int i = 0; i < d->n; i++)
		free(d->ents[i]);
	free(d->ents);
	free(d->dir);
}

#define _cleanup_json_dir_ __attribute__((cleanup(testutil_json_dir_close)))

static inline int testutil_log_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n >= 5 && strcmp(d->d_name + n - 4, ".log") == 0;
}

/* fn(NAME) for each NAME.log of a directory below the repo root (console fixtures), in name
 * order; how many, -1 when the directory cannot be read. */
static inline int testutil_each_log(const char *rel, void (*fn)(const char *name))
{
	_cleanup_free_ char *dir = fs_join(testutil_root(), rel);
	struct dirent **ents = NULL;
	int n = dir ? scandir(dir, &ents, testutil_log_filter, alphasort) : -1;

	for (int i = 0; i < n; i++) {
		char name[256];

		snprintf(name, sizeof(name), "%.*s", (int)(strlen(ents[i]->d_name) - 4),
			 ents[i]->d_name);
		fn(name);
		free(ents[i]);
	}
	free(ents);
	return n;
}

/* A text parser's refusals in rel: each err-NAME.json (at most max bytes) must be refused by
 * parse() with the "path: reason" line in err-NAME.expected, returning nothing (the TCG
 * plugins' outputs: core/lockinsn.h, core/profile.h). */
static inline void testutil_text_errors(const char *rel, size_t max,
					int (*parse)(const char *text, size_t len, json_t **out,
						     struct lab_error *err))
{
	_cleanup_json_dir_ struct testutil_json_dir d;

	testutil_json_dir_open(&d, rel);
	for (int i = 0; i < d.n; i++) {
		const char *name = d.ents[i]->d_name;
		_cleanup_free_ char *jpath = fs_join(d.dir, name), *expected = NULL, *text = NULL;
		_cleanup_json_ json_t *j = NULL;
		struct lab_error err = { 0 };
		size_t n = 0;
		char got[1024];
		int r;

		if (strncmp(name, "err-", 4) || !(expected = testutil_read_expected(jpath, name)))
			continue;
		if (!tap_ok(fs_read_file(jpath, max, &text, &n) == 0, "%s: read", name))
			continue;
		r = parse(text, n, &j, &err);
		snprintf(got, sizeof(got), "%s%s%s", err.path, err.path[0] ? ": " : "", err.msg);
		testutil_check_error(name, r, got, expected);
		tap_ok(j == NULL, "%s: nothing returned", name);
	}
}

/* A configuration parser's data-driven cases in rel: ok-NAME.json must parse to the JSON in
 * ok-NAME.expected (what parse() filled in, as dump() writes it back), err-NAME.json must fail
 * with the "path: reason" line in err-NAME.expected.  parse() and dump() get a zeroed struct
 * of size bytes. */
static inline void testutil_config_cases(const char *rel, const char *what, size_t size,
					 int (*parse)(const json_t *j, void *c,
						      struct lab_error *err),
					 json_t *(*dump)(const void *c))
{
	_cleanup_json_dir_ struct testutil_json_dir d;

	testutil_json_dir_open(&d, rel);
	tap_ok(d.n > 0, "%s has cases", rel);
	for (int i = 0; i < d.n; i++) {
		const char *name = d.ents[i]->d_name;
		_cleanup_free_ char *jpath = fs_join(d.dir, name), *expected = NULL;
		_cleanup_free_ void *c = calloc(1, size);
		_cleanup_json_ json_t *j = NULL, *have = NULL;
		struct lab_error err = { 0 };
		char got[1024];
		int r;

		if (!c || !(expected = testutil_read_expected(jpath, name)))
			continue;
		r = jsonio_load_file(jpath, TESTUTIL_MAX_FILE, &j, &err);
		if (r == 0)
			r = parse(j, c, &err);
		if (!strncmp(name, "err-", 4)) {
			snprintf(got, sizeof(got), "%s%s%s", err.path, err.path[0] ? ": " : "",
				 err.msg);
			testutil_check_error(name, r, got, expected);
			continue;
		}
		if (!tap_ok(r == 0, "%s: parses%s%s", name, r ? ": " : "", r ? err.msg : ""))
			continue;
		have = dump(c);
		testutil_check_json(name, what, have, expected);
	}
}

/* JSON written with ' for " (tests keep it readable in C strings), any value; NULL after a
 * "# bad JSON" line. */
static inline json_t *testutil_quoted(const char *s)
{
	_cleanup_free_ char *t = strdup(s);
	json_error_t e;
	json_t *j;

	if (!t)
		return NULL;
	for (char *c = t; *c; c++)
		if (*c == '\'')
			*c = '"';
	j = json_loads(t, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &e);
	if (!j)
		printf("# bad JSON in the test: %s: %s\n", e.text, s);
	return j;
}

/* got (NULL when making it failed) equals lab/tests/golden/NAME byte for byte
 * ("matches golden NAME"); with UPDATE_GOLDEN=1 in the environment it rewrites the file. */
static inline void testutil_golden(const char *name, const char *got)
{
	_cleanup_free_ char *rel = NULL, *path = NULL, *want = NULL;
	const char *u = getenv("UPDATE_GOLDEN");

	if (!got) {
		tap_ok(0, "%s: produced", name);
		return;
	}
	if (asprintf(&rel, "lab/tests/golden/%s", name) < 0 || !(path = fs_join(testutil_root(), rel)))
		return;
	if (u && u[0] == '1') {
		tap_ok(fs_write_atomic(path, got, strlen(got)) == 0, "%s rewritten (UPDATE_GOLDEN=1)",
		       name);
		return;
	}
	if (fs_read_file(path, 4u << 20, &want, NULL) < 0) {
		tap_ok(0, "golden %s missing (run with UPDATE_GOLDEN=1)", name);
		return;
	}
	if (!tap_ok(!strcmp(want, got), "matches golden %s", name)) {
		size_t i = 0;

		while (want[i] && want[i] == got[i])
			i++;
		printf("# first difference at byte %zu: want \"%.60s\" got \"%.60s\"\n", i, want + i,
		       got + i);
	}
}

/* A recorded A/A set's series (a CSV of lab/tests/data/aa: label,boot,seed,workload,tasks,metric,
 * value) into a[] (label A) and b[] (label B), at most max each; series is
 * "WORKLOAD/TASKS/METRIC".  0, or -ENOENT when the file cannot be read. */
static inline int testutil_read_aa(const char *rel, const char *series, double *a, size_t *na,
				   double *b, size_t *nb, size_t max)
{
	_cleanup_free_ char *path = fs_join(testutil_root(), rel), *text = NULL;
	char *save = NULL;

	*na = *nb = 0;
	if (!path || fs_read_file(path, TESTUTIL_MAX_FILE, &text, NULL) < 0)
		return -ENOENT;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char label[8], wl[64], metric[64], key[160];
		unsigned tasks;
		double v;

		if (sscanf(line, "%7[^,],%*[^,],%*[^,],%63[^,],%u,%63[^,],%lf", label, wl, &tasks,
			   metric, &v) != 5)
			continue;
		snprintf(key, sizeof(key), "%s/%u/%s", wl, tasks, metric);
		if (strcmp(key, series))
			continue;
		if (label[0] == 'A' && *na < max)
			a[(*na)++] = v;
		else if (label[0] == 'B' && *nb < max)
			b[(*nb)++] = v;
	}
	return 0;
}

/* The recorded A/A sets (lab/tests/data/aa/README.md: lab ab's default job, 10 boots a
 * label) and the deciding series they hold, as initialisers. */
#define TESTUTIL_AA_FILES { "ab-quantum-4s-8c-1-task.csv", "ab-quantum-4s-8c-1-4-tasks.csv" }
#define TESTUTIL_AA_SERIES                                                                  \
	{ "pft/1/faults_per_s", "page_fault1/1/ops_per_s", "page_fault2/1/ops_per_s",         \
	  "page_fault3/1/ops_per_s", "memscale/1/run_s", "mmap_contention/4/faults_per_s",    \
	  "mmap_contention/4/fault_latency_p99_ns", "pft/4/faults_per_s",                    \
	  "page_fault1/4/ops_per_s", "memscale/4/run_s" }
