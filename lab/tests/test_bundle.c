/* `lab bundle` and `lab rerun`'s pure parts: the manifest (lab/core/bundle.h) written, read
 * back, refused when bad (lab/tests/data/bundle/bad-manifests.json: each case a good manifest
 * with keys replaced or deleted, the JSON path and words expected), checked against what an
 * archive held; and a report against its re-run (lab/analysis/rerun.h), golden. */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "analysis/rerun.h"
#include "core/bundle.h"
#include "testutil.h"
#include "util/strbuf.h"

#define SHA_A "6b250df110ce200fa74d8020f25023b9f527cb3453a9f56b079ed8067a453389"
#define SHA_B "14369681ebb96f77cd9d15e99a4ce248b066ccba7ba545cacf683e9906a0d281"
#define SHA_C "9420f635636f7b9fd36d0264f3e2664c68d6d7bfb33f31bc80454cb260bd89bc"

static struct bundle_manifest *good(void)
{
	struct bundle_manifest *m = bundle_manifest_new();

	if (!m || !(m->seeds = calloc(2, sizeof(*m->seeds))))
		return bundle_manifest_free(m), NULL;
	snprintf(m->created, sizeof(m->created), "2026-12-07T09:22:21Z");
	snprintf(m->lab_version, sizeof(m->lab_version), "0.37");
	snprintf(m->lab_commit, sizeof(m->lab_commit), "faecf7284984");
	snprintf(m->report_id, sizeof(m->report_id), "20261207-092145-quantum-ab");
	snprintf(m->model, sizeof(m->model), "quantum");
	m->quantum = 1000;
	m->runs = 2;
	m->repeats = 1;
	m->has_seeds = 1;
	m->seeds[0] = 7;
	m->seeds[1] = (1ULL << 53) - 1;
	bundle_manifest_add(m, "kernels/patches/01-fix.patch", SHA_A, 2250, "a patch");
	bundle_manifest_add(m, "job.json", SHA_B, 393, "the job as run");
	bundle_manifest_add(m, "report.json", SHA_C, 24887, "the report as it was");
	bundle_manifest_note(m, "a kernel's source is the git tree /src/linux, not in the bundle");
	return m;
}

static void manifest_round_trip(void)
{
	struct bundle_manifest *m = good(), *back = bundle_manifest_new();
	_cleanup_json_ json_t *j = m ? bundle_manifest_json(m) : NULL, *again = NULL;
	_cleanup_free_ char *text = j ? jsonio_dumps(j) : NULL;
	struct lab_error err = { 0 };

	testutil_golden("bundle-manifest.json", text);
	tap_ok(back && j && bundle_manifest_from_json(j, back, &err) == 0,
	       "the manifest reads back (%s %s)", err.path, err.msg);
	again = back ? bundle_manifest_json(back) : NULL;
	tap_ok(again && json_equal(j, again), "... and writes the same JSON");
	tap_ok(back && back->has_seeds && back->seeds[1] == (1ULL << 53) - 1,
	       "... the largest seed exact");
	tap_ok(m && bundle_manifest_add(m, "../x", SHA_A, 1, "") == -EINVAL,
	       "add: \"../x\" refused");
	tap_ok(m && bundle_manifest_add(m, BUNDLE_MANIFEST, SHA_A, 1, "") == -EINVAL,
	       "add: the manifest's own name refused");
	tap_ok(m && bundle_manifest_add(m, "job.json", SHA_A, 1, "") == -EEXIST,
	       "add: a name twice refused");
	tap_ok(m && bundle_manifest_add(m, "x", "ABC", 1, "") == -EINVAL, "add: a bad sha256 refused");
	bundle_manifest_free(m);
	bundle_manifest_free(back);
}

/* One case of bad-manifests.json: the good manifest with "replace" and "delete" applied. */
static void bad_case(const json_t *c, const json_t *base)
{
	_cleanup_json_ json_t *j = json_deep_copy(base);
	struct bundle_manifest *m = bundle_manifest_new();
	const char *name = json_string_value(json_object_get(c, "name"));
	const char *path = json_string_value(json_object_get(c, "path"));
	const char *has = json_string_value(json_object_get(c, "has"));
	struct lab_error err = { 0 };
	const json_t *v;
	const char *k;
	size_t i;
	int r;

	json_object_foreach((json_t *)json_object_get(c, "replace"), k, v)
		json_object_set(j, k, (json_t *)v);
	json_array_foreach(json_object_get(c, "delete"), i, v)
		json_object_del(j, json_string_value(v));
	r = m ? bundle_manifest_from_json(j, m, &err) : -ENOMEM;
	tap_ok(r == -EINVAL && path && has && !strcmp(err.path, path) && strstr(err.msg, has),
	       "bad manifest %s: refused at %s (got %d at \"%s\": %s)", name, path, r, err.path,
	       err.msg);
	bundle_manifest_free(m);
}

static void bad_manifests(void)
{
	_cleanup_json_ json_t *cases = testutil_load("lab/tests/data/bundle/bad-manifests.json");
	struct bundle_manifest *m = good();
	_cleanup_json_ json_t *base = m ? bundle_manifest_json(m) : NULL;
	const json_t *c;
	size_t i;

	tap_ok(json_array_size(cases) >= 10, "bad-manifests.json: %zu cases",
	       json_array_size(cases));
	json_array_foreach(cases, i, c)
		bad_case(c, base);
	bundle_manifest_free(m);
}

static void tree_check(void)
{
	struct bundle_manifest *m = good();
	char *names[4] = { "job.json", "report.json", "kernels/patches/01-fix.patch", "extra" };
	char sha[4][65] = { SHA_B, SHA_C, SHA_A, SHA_A };
	struct lab_error err = { 0 };

	tap_ok(m && bundle_manifest_check(m, names, (const char (*)[65])sha, 3, &err) == 0,
	       "check: the listed members with their hashes pass (%s)", err.msg);
	memset(&err, 0, sizeof(err));
	tap_ok(m && bundle_manifest_check(m, names, (const char (*)[65])sha, 4, &err) == -EINVAL &&
	       !strcmp(err.path, "extra") && strstr(err.msg, "not listed"),
	       "check: a member not listed is refused (%s: %s)", err.path, err.msg);
	memset(&err, 0, sizeof(err));
	memcpy(sha[1], SHA_A, 65);
	tap_ok(m && bundle_manifest_check(m, names, (const char (*)[65])sha, 3, &err) == -EINVAL &&
	       !strcmp(err.path, "report.json") && strstr(err.msg, "altered"),
	       "check: an altered member is refused (%s: %s)", err.path, err.msg);
	memset(&err, 0, sizeof(err));
	memcpy(sha[1], SHA_C, 65);
	tap_ok(m && bundle_manifest_check(m, names, (const char (*)[65])sha, 2, &err) == -EINVAL &&
	       !strcmp(err.path, "kernels/patches/01-fix.patch") && strstr(err.msg, "not in the"),
	       "check: a listed member missing is refused (%s: %s)", err.path, err.msg);
	bundle_manifest_free(m);
}

static void say(struct strbuf *sb, const char *what, int r, const struct rerun_diff *d)
{
	strbuf_appendf(sb, "%s: %d, identical %d, %u run(s), %u figure(s)\n  first: %s\n"
		       "  inputs: %s\n", what, r, d->identical, d->runs, d->figures, d->first,
		       d->inputs);
}

/* A change at path (a run's key chain, NULL-ended) to value. */
static json_t *altered(const json_t *rep, json_t *value, ...)
{
	json_t *c = json_deep_copy(rep), *o = json_array_get(json_object_get(c, "runs"), 0);
	const char *k, *last = NULL;
	va_list ap;

	va_start(ap, value);
	while ((k = va_arg(ap, const char *)) != NULL) {
		if (last)
			o = strspn(last, "0123456789") == strlen(last)
				    ? json_array_get(o, (size_t)atoi(last)) : json_object_get(o, last);
		last = k;
	}
	va_end(ap);
	if (json_is_array(o))
		json_array_set_new(o, (size_t)atoi(last), value);
	else
		json_object_set_new(o, last, value);
	return c;
}

static void rerun_golden(void)
{
	_cleanup_json_ json_t *rep = testutil_load("lab/tests/data/bundle/quantum-one.json");
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	_cleanup_free_ char *text = NULL;
	struct rerun_diff d;
	json_t *b;
	int r;

	if (!rep)
		return;
	r = rerun_compare(rep, rep, &d);
	tap_ok(r == 0 && d.identical && d.runs == 1 && d.figures > 10,
	       "a report against itself: identical, %u figures", d.figures);
	say(&sb, "itself", r, &d);
	b = altered(rep, json_real(2e9), "workloads", "0", "results", "0", "metrics",
		    "faults_per_s", "value", NULL);
	r = rerun_compare(rep, b, &d);
	tap_ok(r == 0 && !d.identical && strstr(d.first, "faults_per_s"),
	       "faults/s altered: named (%s)", d.first);
	say(&sb, "faults/s", r, &d);
	json_object_set_new(json_object_get(json_array_get(json_object_get(b, "runs"), 0),
					    "kernel"), "image_sha256", json_string("0123456789ab"));
	r = rerun_compare(rep, b, &d);
	tap_ok(r == 0 && strstr(d.inputs, "image_sha256"), "... the kernel's bytes said (%s)",
	       d.inputs);
	say(&sb, "faults/s and the kernel", r, &d);
	json_decref(b);
	b = altered(rep, json_string("hang"), "status", NULL);
	r = rerun_compare(rep, b, &d);
	tap_ok(r == 0 && !d.identical && strstr(d.first, "status ok, then hang"),
	       "a status that differs is named first (%s)", d.first);
	say(&sb, "status", r, &d);
	json_decref(b);
	b = altered(rep, json_integer(8), "seed", NULL);
	r = rerun_compare(rep, b, &d);
	tap_ok(r == -EINVAL && strstr(d.first, "not a re-run"), "another seed: not a re-run (%s)",
	       d.first);
	say(&sb, "seed", r, &d);
	json_decref(b);
	if (strbuf_take(&sb, &text) < 0)
		text = NULL;
	testutil_golden("rerun-diff.txt", text);
}

int main(void)
{
	manifest_round_trip();
	bad_manifests();
	tree_check();
	rerun_golden();
	return tap_done();
}
