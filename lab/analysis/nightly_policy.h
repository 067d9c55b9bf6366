/* `lab nightly`'s decisions for one job's night; lab/regress/nightly.c does the work (builds,
 * boots, bisections, files) and asks these.  Pure: the caller parses the reports into series
 * sets (lab/analysis/series.h) and hands in the ledger; nothing here reads a file, runs a
 * program, looks at the clock or prints.
 *
 * It lives in lab/analysis, not lab/core, because it judges series of boots: the suspects are
 * changepoint.h's, a confirmation's verdict is bisect_class.h's, what a timing model cannot
 * show is modelfit.h's, and all of them read series.h's sets; lab/core may include none of
 * them.  It includes of lab/core only the configuration and ledger (nightly_cfg.h) and what a
 * bisection is asked and answers (bisect_params.h, bisect.h).
 *
 * The calls, in the night's order:
 *   npolicy_init          the job's nights in the ledger (p->idx[0..p->n), tonight last)
 *   npolicy_search        given those nights' reports: the suspects (p->sus), and the primary
 *                         series the timing model cannot show (p->outside: not searched)
 *   npolicy_confirm_get   for each of the p->nconfirm suspect nights: what to measure side by
 *                         side (or nothing: the same kernel as the night before)
 *   npolicy_confirm_judge what that measurement says of each suspect of the night
 *   npolicy_settle        each suspect in turn: recorded (the ledger's tries), counted, and
 *                         when a confirmed regression an alarm, bisected unless its night has
 *                         one already
 *   npolicy_bisect_params, npolicy_bisected   an alarm's bisection: what it is asked, and
 *                         what its end makes of the alarm and of the night
 *   npolicy_series_json   every primary series over the nights, with its change points
 * p->suspects, p->confirmations and p->alarms are nightly.json's arrays of those names;
 * p->counts are the summary's. */
#pragma once
#include <jansson.h>
#include <stddef.h>

#include "analysis/bisect_class.h"
#include "analysis/changepoint.h"
#include "analysis/series.h"
#include "core/bisect.h"
#include "core/bisect_params.h"
#include "core/nightly_cfg.h"

/* Suspects one job's night confirms at most (each costs a side-by-side run). */
#define NPOLICY_MAX_SUSPECTS 8

struct npolicy_suspect {
	size_t key;               /* in the nights' series set */
	char name[1024], id[200]; /* the series in words, and in the ledger */
	size_t night;             /* position in the nights of this job */
	struct cp_change ch;      /* what named it: the fast check, or a change point */
	int confirmed;            /* the confirmation saw a change (d.verdict) */
	struct bclass_diff d;
	char why[160];            /* what the confirmation said, in words */
};

/* A primary series the timing model cannot show: measured, not searched. */
struct npolicy_outside {
	size_t key;
	char why[512];
};

/* What the night adds to the summary (lab/regress/nightly.h). */
struct npolicy_counts {
	unsigned suspects;        /* suspect nights confirmed (or refuted for the same kernel) */
	unsigned confirmed, regressions, bisected, outside;
	char culprit[65];         /* the first culprit a bisection found, "" none */
};

struct npolicy {
	const struct nightly_cfg *cfg;
	struct nightly_ledger *ledger; /* tries and alarms are written into its nights */
	size_t *idx, n;           /* the ledger's ok nights of the job and variant, oldest first */
	const struct series_set *s; /* the nights' reports (npolicy_search) */
	struct npolicy_suspect sus[NPOLICY_MAX_SUSPECTS];
	size_t nsus;
	struct npolicy_outside *outside;
	size_t nout;
	size_t confirm[NPOLICY_MAX_SUSPECTS]; /* the suspect nights to confirm, in order */
	size_t nconfirm;
	json_t *suspects, *confirmations, *alarms;
	struct npolicy_counts counts;
};

/* The nights of job and variant in l (l must outlive p).  -ENOMEM. */
int npolicy_init(struct npolicy *p, const struct nightly_cfg *cfg, struct nightly_ledger *l,
		 const char *job, const char *variant);
void npolicy_free(struct npolicy *p);

/* The label night k (of p->idx) has in the nights' series set: "k". */
void npolicy_night_label(size_t k, char *buf, size_t len);
/* s: the reports of the nights p->idx, each added with its label (a night whose report is
 * gone left out); s must outlive p.  Errors as cp_suspects, -ENOMEM. */
int npolicy_search(struct npolicy *p, const struct series_set *s);

/* The side-by-side measurement of one suspect night: its kernel and the night before's. */
struct npolicy_confirm {
	size_t night;             /* position among the job's nights */
	const struct nightly_night *good, *bad; /* the night before, and the suspect night */
	int same_kernel;          /* nothing to measure: its suspects are refuted already */
	char good_label[40], bad_label[40];     /* the two sides' kernel labels */
};
/* The k-th of p->nconfirm confirmations; appends its entry to p->confirmations and returns it
 * (borrowed: the caller adds "dir" when it measures), NULL when out of memory. */
json_t *npolicy_confirm_get(struct npolicy *p, size_t k, struct npolicy_confirm *c);
/* s: the confirmation's report, its runs labelled c->good_label and c->bad_label.  Each
 * suspect of night c->night is confirmed when the strict rule sees a change on its series. */
void npolicy_confirm_judge(struct npolicy *p, const struct npolicy_confirm *c,
			   const struct series_set *s);

/* What settling a suspect decided. */
struct npolicy_alarm {
	int regression;           /* a confirmed regression: an alarm */
	json_t *alarm;            /* it (borrowed from p->alarms; NULL when out of memory) */
	int bisect;               /* bisect it: the configuration asks, its night had no alarm */
	const struct nightly_night *good, *bad; /* the last good night, and the alarm's */
};
/* Suspect k (in order, each once): into p->suspects and the night's tries; an alarm into
 * p->alarms, and into the night's ledger entry unless it has one. */
void npolicy_settle(struct npolicy *p, size_t k, struct npolicy_alarm *a);

/* What a bisection of suspect k's alarm is asked, but for the files: job_file, job_sha256,
 * variant_file, variant and repo are the caller's. */
void npolicy_bisect_params(const struct npolicy *p, size_t k, struct bisect_params *bp);
/* How a bisection ended. */
struct npolicy_bisection {
	const char *dir;          /* its directory, relative to the ledger's */
	int r;                    /* bisect_run's return */
	enum bisect_answer answer;
	const char *culprit;      /* "" none */
	const char *reason;       /* its reason (r == 0) */
	const char *error;        /* its message (r != 0) */
};
/* Recorded in the alarm and counted.  Returns what the night does next: 0 goes on (a
 * bisection that could not finish leaves the alarm standing), -EINTR or -ENOMEM stops it. */
int npolicy_bisected(struct npolicy *p, json_t *alarm, const struct npolicy_bisection *b);

/* Every primary series over the nights: each night's mean, the change points (none looked
 * for in a series outside the model), how the model fits.  NULL when out of memory. */
json_t *npolicy_series_json(const struct npolicy *p);

/* Whether a night measured: some run of its report (NULL: none) is "ok". */
int npolicy_night_ok(const json_t *report);
