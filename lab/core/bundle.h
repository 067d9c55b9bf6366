/* A bundle's manifest (MANIFEST.json, schema numalab.bundle/1): what `lab bundle` put in the
 * archive and what `lab rerun` checks before it trusts any of it.  Pure: the JSON in and out,
 * and the check of what was extracted against what the manifest lists; the files are
 * run/bundle.c's.
 *
 *   {"schema": "numalab.bundle/1", "created": "2026-12-07T10:00:00Z",
 *    "lab": {"version": "0.37", "commit": "faecf72"},      the lab that made the report
 *    "report": {"id": "...", "model": "quantum", "quantum": 1000, "runs": 6, "repeats": 3},
 *    "seeds": [100, 101, ...] | null,                      runs[i].seed; null: not recorded
 *    "members": [{"path": "job.json", "sha256": "64 hex", "bytes": 812,
 *                 "what": "the job as run, its references rewritten into the bundle"}],
 *    "notes": ["..."]}                                     what the bundle cannot carry
 *
 * Every member but MANIFEST.json is listed, once; a reader refuses anything else. */
#pragma once
#include <jansson.h>
#include <stddef.h>

#include "util/error.h"

#define BUNDLE_SCHEMA "numalab.bundle/1"
#define BUNDLE_MANIFEST "MANIFEST.json"
#define BUNDLE_MAX_MEMBERS 512u
#define BUNDLE_MAX_RUNS 100000u
#define BUNDLE_MAX_NOTES 32u
#define BUNDLE_MANIFEST_MAX (1u << 20)

struct bundle_member {
	char path[256];
	char sha256[65];
	size_t bytes;
	char what[160];
};

struct bundle_manifest {
	char created[32];
	char lab_version[32];
	char lab_commit[48];
	char report_id[128];
	char model[16];          /* the report's timing model: icount, quantum, tcg, kvm */
	unsigned quantum;        /* quantum only */
	unsigned runs, repeats;
	int has_seeds;
	unsigned long long *seeds; /* runs of them, when has_seeds */
	unsigned nr_members;
	struct bundle_member members[BUNDLE_MAX_MEMBERS];
	unsigned nr_notes;
	char notes[BUNDLE_MAX_NOTES][256];
};

/* New, zeroed (it is large: on the heap); NULL on ENOMEM.  bundle_manifest_free frees both. */
struct bundle_manifest *bundle_manifest_new(void);
void bundle_manifest_free(struct bundle_manifest *m);
/* A member added: -EINVAL for a name a reader would refuse (util/archive.h arc_name_ok) or
 * the manifest's own, -EEXIST for one listed already, -E2BIG past BUNDLE_MAX_MEMBERS. */
int bundle_manifest_add(struct bundle_manifest *m, const char *path, const char *sha256,
			size_t bytes, const char *what);
/* A note (what the bundle does not hold); truncated at 255 bytes, the 33rd dropped. */
void bundle_manifest_note(struct bundle_manifest *m, const char *note);
json_t *bundle_manifest_json(const struct bundle_manifest *m);
/* Parsed and checked (keys, types, member names, hex, counts, seeds); errors name the JSON
 * path.  m is the caller's (bundle_manifest_new). */
int bundle_manifest_from_json(const json_t *j, struct bundle_manifest *m, struct lab_error *err);
/* What was extracted (names[i] with sha[i], i < n; MANIFEST.json not among them) against the
 * manifest: -EINVAL with err naming the first member that is not listed, is missing, or
 * whose bytes do not hash to the listed sha256. */
int bundle_manifest_check(const struct bundle_manifest *m, char *const *names,
			  const char (*sha)[65], size_t n, struct lab_error *err);
/* The member with this path, or NULL. */
const struct bundle_member *bundle_manifest_find(const struct bundle_manifest *m,
						 const char *path);
