/* `lab nightly`: its configuration (CONFIG.json) and its ledger of nights (OUT/ledger.json),
 * one converter each way between JSON and these structs.  Pure.
 *
 * CONFIG.json:
 *   {"name": "mm-nightly",                 the ledger's name, [a-z0-9._-]
 *    "branch": "main",                     the ref tracked in each variant's repository
 *    "out": "reports/nightly",             nights, ledger, bisections (relative: to CONFIG)
 *    "threshold_pct": 1, "window": 5,      the change that counts; nights on each side
 *    "boots": 3, "confirm_boots": 5,       boots a night; a side of a confirmation
 *    "timing": "auto", "parallel": 0,      as for `lab run`
 *    "bisect": {"boots": 2, "max_tries": 3, "revert": true} | false,
 *    "jobs": [{"job": "JOB.json", "variant": "NAME or FILE"}]}   1..NIGHTLY_MAX_JOBS
 * Errors name the JSON path ("jobs[1].variant: must be a string"). */
#pragma once
#include <jansson.h>
#include <limits.h>

#include "util/error.h"

#define NIGHTLY_CFG_SCHEMA "numalab.nightly-config/1"
#define NIGHTLY_LEDGER_SCHEMA "numalab.nightly-ledger/1"
#define NIGHTLY_MAX_JOBS 32
/* Most nights a ledger holds; the oldest are dropped beyond it (their reports stay). */
#define NIGHTLY_MAX_NIGHTS 5000
/* Series a ledger entry counts confirmations of (the suspects of one night). */
#define NIGHTLY_MAX_SERIES 16

struct nightly_job {
	char job[PATH_MAX];      /* as written */
	char variant[PATH_MAX];  /* as written */
};

struct nightly_cfg {
	char name[64];
	char branch[256];
	char out[PATH_MAX];
	double threshold_pct;
	unsigned window, boots, confirm_boots;
	char timing[16];
	int parallel;
	int bisect;              /* bisect a confirmed regression */
	unsigned bisect_boots, bisect_tries;
	int bisect_revert;
	unsigned nr_jobs;
	struct nightly_job jobs[NIGHTLY_MAX_JOBS];
};

int nightly_cfg_from_json(const json_t *j, struct nightly_cfg *c, struct lab_error *err);

/* A series' confirmations on one night. */
struct nightly_tries {
	char series[160];
	unsigned tries;
};

/* One night of one job and variant. */
struct nightly_night {
	char night[32];          /* YYYYmmdd-HHMMSS */
	char job[64], variant[64];
	char commit[65];
	char subject[256];
	char report[PATH_MAX];   /* relative to the ledger's directory */
	int ok;                  /* the night measured (some boot ok) */
	unsigned nr_tries;
	struct nightly_tries tries[NIGHTLY_MAX_SERIES];
	json_t *alarm;           /* null, or {"series", "change_pct", ..., "bisect", "culprit"} */
};

struct nightly_ledger {
	size_t n;
	struct nightly_night *nights;   /* oldest first */
};

/* An empty ledger for j == NULL. */
int nightly_ledger_from_json(const json_t *j, struct nightly_ledger *l, struct lab_error *err);
json_t *nightly_ledger_to_json(const struct nightly_ledger *l);
/* Append a night (copied; alarm referenced).  -E2BIG is never returned: beyond
 * NIGHTLY_MAX_NIGHTS the oldest night is dropped.  -ENOMEM. */
int nightly_ledger_add(struct nightly_ledger *l, const struct nightly_night *n);
void nightly_ledger_free(struct nightly_ledger *l);
/* The confirmations series has had on night n (0 when none), and one more. */
unsigned nightly_tries_get(const struct nightly_night *n, const char *series);
int nightly_tries_add(struct nightly_night *n, const char *series);
