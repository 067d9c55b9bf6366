/* A bundle's manifest (core/bundle.h), as `lab rerun` reads it from an archive anyone may
 * have made: parsed and checked; one that parses writes the same JSON again, reads back the
 * same, and is checked against the members it lists (each passes) and one it does not. */
#include "core/bundle.h"
#include "fuzz/fuzz.h"

static void round_trip(const struct bundle_manifest *m)
{
	struct bundle_manifest *back = bundle_manifest_new();
	json_t *j = bundle_manifest_json(m), *again;
	struct lab_error err = { 0 };

	FUZZ_ASSERT(j && back && bundle_manifest_from_json(j, back, &err) == 0);
	again = bundle_manifest_json(back);
	FUZZ_ASSERT(again && json_equal(j, again));
	json_decref(again);
	json_decref(j);
	bundle_manifest_free(back);
}

static void check_members(const struct bundle_manifest *m)
{
	static char names[BUNDLE_MAX_MEMBERS + 1][256];
	static char sha[BUNDLE_MAX_MEMBERS + 1][65];
	char *ptrs[BUNDLE_MAX_MEMBERS + 1];
	struct lab_error err = { 0 };
	unsigned n = m->nr_members;

	for (unsigned i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "%s", m->members[i].path);
		snprintf(sha[i], sizeof(sha[i]), "%s", m->members[i].sha256);
		ptrs[i] = names[i];
	}
	FUZZ_ASSERT(bundle_manifest_check(m, ptrs, (const char (*)[65])sha, n, &err) == 0);
	snprintf(names[n], sizeof(names[n]), "%s", "not/listed-anywhere.x");
	snprintf(sha[n], sizeof(sha[n]), "%064d", 0);
	ptrs[n] = names[n];
	FUZZ_ASSERT(bundle_manifest_find(m, names[n]) ||
		    bundle_manifest_check(m, ptrs, (const char (*)[65])sha, n + 1, &err) < 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *j = fuzz_json(data, size);
	struct bundle_manifest *m = bundle_manifest_new();
	struct lab_error err = { 0 };

	if (j && m && bundle_manifest_from_json(j, m, &err) == 0) {
		round_trip(m);
		check_members(m);
	}
	bundle_manifest_free(m);
	json_decref(j);
	return 0;
}
