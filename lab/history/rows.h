/* One report (numalab.report/1) as the rows of the history index: the report, each run (its
 * kernel, timing model and host) and each series of the report summarised per boot.  Pure:
 * the caller reads the file and hands the parsed document in; the store (history.h) writes
 * the rows.  Reports are untrusted input: the series are read by lab/analysis/series.c, which
 * validates what it uses and names the JSON path of what is wrong; every string kept is
 * bounded and cleaned of control characters (util/text.h).
 *
 * A series here is what `lab compare` calls one: (topology, workload, params without tasks
 * and repetitions, task count, metric) of one kernel label, within this one report.  Its
 * boots are the report's runs of that kernel; each boot's repetitions are averaged first and
 * the summary is of the per-boot means (lab/analysis/verdict.h, boots_summarize): what
 * nightly change detection compares from one report to the next. */
#pragma once
#include "analysis/modelfit.h"
#include <jansson.h>
#include <stddef.h>

#include "analysis/stats.h"
#include "core/timing.h"
#include "util/error.h"

/* Schema strings of `lab history --json` and `lab history series --json`. */
#define HISTORY_LIST_SCHEMA "numalab.history/1"
#define HISTORY_SERIES_SCHEMA "numalab.history-series/1"

/* String fields are cut to these sizes (with the NUL); "" means absent (JSON null). */
#define HISTORY_NAME 256
#define HISTORY_WORD 32
#define HISTORY_HEX 65

struct history_run {
	unsigned index;
	char status[HISTORY_WORD];
	char kernel[HISTORY_NAME];    /* the label `lab compare` uses (series_run_label) */
	char variant[HISTORY_NAME];   /* kernel.variant: kernels/NAME.json, "" for an image */
	char release[HISTORY_NAME];   /* kernel.release: uname -r in the guest */
	char source[HISTORY_NAME];    /* kernel.build.source: "git:COMMIT", "debian:...", ... */
	char commit[HISTORY_HEX];     /* the commit of a "git:" source */
	char build_key[HISTORY_HEX];  /* kernel.build.key: sha256 of source, patches, final
				       * .config and compiler, the kernel's content identity */
	char image_sha256[HISTORY_HEX];  /* kernel.image_sha256: the bytes that booted */
	char config_sha256[HISTORY_HEX]; /* kernel.config_sha256: a variant's final .config */
	char timing[TIMING_KEY_MAX];  /* series_run_timing: host.timing.key, else its model, else
				       * host.accel (reports from before timing models ran tcg or
				       * kvm) */
	char accel[HISTORY_WORD];
	char uri[HISTORY_NAME];       /* host.uri: the libvirt connection */
	char qemu[HISTORY_NAME];      /* host.qemu_version */
	int contended;                /* host.noise.contended */
	unsigned guests_at_once;      /* host.guests_at_once; 0 when not recorded */
};

/* What a series is, the same from one report to the next. */
struct history_key {
	char topology[HISTORY_NAME];
	char workload[HISTORY_NAME];
	char *params;                 /* canonical JSON: compact, keys sorted */
	unsigned tasks;
	char metric[HISTORY_NAME];
	char unit[HISTORY_WORD + 1];
	int higher;                   /* better is higher */
	int primary;                  /* one of the workload's primary metrics (they decide) */
};

struct history_series {
	struct history_key key;
	char kernel[HISTORY_NAME];
	char timing[TIMING_KEY_MAX];  /* of its runs; "mixed" when they differ */
	enum stats_mean mean_kind;    /* harmonic for rates */
	size_t boots, values;
	double mean;                  /* of the per-boot means */
	double cv_between, cv_within; /* NAN when undefined (one boot; no boot with two values) */
};

struct history_report {
	char *path;                   /* the file, as indexed */
	char sha256[HISTORY_HEX];     /* of its bytes */
	char id[HISTORY_NAME];
	char created[HISTORY_WORD];   /* "YYYY-MM-DDTHH:MM:SSZ" */
	char job[HISTORY_NAME];
	char status[HISTORY_WORD];
	char schema[HISTORY_WORD];
	struct history_run *runs;
	size_t nr_runs;
	struct history_series *series; /* NULL when not loaded (a listing) */
	size_t nr_series;             /* series indexed, loaded or not */
};

/* One series of one report, as `lab history series` lists them. */
struct history_point {
	struct history_series s;
	char report_id[HISTORY_NAME];
	char created[HISTORY_WORD];
	char job[HISTORY_NAME];
	char *path;
};

/* doc -> rows.  path and sha256 are the caller's (the file and the hash of its bytes).
 * -EINVAL with err naming the file and the JSON path when the report cannot be read (not an
 * object, another schema, a malformed run or metric); -ENOMEM.  out is freed on error. */
int history_rows_from_report(json_t *doc, const char *path, const char *sha256,
			     struct history_report *out, struct lab_error *err);
void history_report_free(struct history_report *r);
void history_reports_free(struct history_report *r, size_t n);
void history_points_free(struct history_point *p, size_t n);

/* The one converter of each struct to JSON (NULL on ENOMEM).  A report's "series" array is
 * there only when r->series is; "nr_series" always. */
json_t *history_run_json(const struct history_run *r);
json_t *history_series_json(const struct history_series *s);
json_t *history_report_json(const struct history_report *r);
/* {"schema": HISTORY_LIST_SCHEMA, "reports": [...]} */
json_t *history_list_json(const struct history_report *r, size_t n);
/* {"schema": HISTORY_SERIES_SCHEMA, "series": [KEY + {"timing", "points": [...]}]}: points
 * p[0..n) sorted by series (history_point_same_series) come out grouped. */
json_t *history_points_json(const struct history_point *p, size_t n);
/* Same series and timing model: the points of one line over time. */
int history_point_same_series(const struct history_point *a, const struct history_point *b);
/* Whether the series' timing model can show what it depends on (analysis/modelfit.h); why
 * gets the sentence when not.  The index keeps no host CPU count, so a model bounded by the
 * host's CPUs (tcg) is taken as showing what it can show on enough of them. */
enum modelfit history_point_fit(const struct history_point *p, char *why, size_t len);

/* Text tables for people (keys of the JSON in words); *out is the caller's to free. */
int history_list_text(const struct history_report *r, size_t n, char **out);
int history_points_text(const struct history_point *p, size_t n, char **out);
