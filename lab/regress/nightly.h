/* `lab nightly CONFIG`: for each job of the configuration, its kernel variant built at the
 * tracked branch's head and measured (a night), the night added to the ledger, and every
 * primary series checked against the nights before (lab/analysis/changepoint.h):
 *   1. suspects: tonight against the last `window` nights (the fast check), and the change
 *      points of the whole series that were not yet confirmed or refuted often enough;
 *   2. confirmation of each suspect night: its kernel and the previous night's measured again
 *      side by side (A B A B, confirm_boots each), judged by the strict rule on that series;
 *   3. a confirmed regression is an alarm: `lab bisect` between the two nights' commits (when
 *      they differ) names the culprit in the night's report, and its mail (lab mail) is
 *      written beside the bisection, bisect/NIGHTLY_MAIL, for a person to send.
 * OUT/ledger.json holds the nights (lab/core/nightly_cfg.h); OUT/NIGHT/JOB/ holds the night's
 * run (run/), its confirmations (confirm-N/), its bisection (bisect/) and nightly.json, the
 * night's report (schema numalab.nightly/1).
 * What is decided at each step (which nights, which suspects, what a confirmation says, which
 * alarm is bisected, the report's series and the counts) is lab/analysis/nightly_policy.h's;
 * this module builds, boots, bisects and writes. */
#pragma once
#include <limits.h>

#include "core/job.h"
#include "core/nightly_cfg.h"
#include "run/env.h"

#define NIGHTLY_SCHEMA "numalab.nightly/1"
/* A culprit's mail, an mbox beside its bisection (the alarm's "mail" names it). */
#define NIGHTLY_MAIL "culprit.mbox"

/* One job of the configuration, resolved by the caller. */
struct nightly_target {
	const struct job *job;
	char job_file[PATH_MAX];      /* absolute */
	char variant_file[PATH_MAX];  /* absolute */
	char variant[64];             /* its name */
	char repo[PATH_MAX];          /* its git source, absolute */
};

/* A confirmed change, for the alerts of the history index (lab/history/alerts.h). */
struct nightly_alert {
	const char *source, *ledger, *job, *series, *night, *commit, *direction, *culprit;
	const char *report;
	double change_pct;
};

struct nightly_opts {
	const struct nightly_cfg *cfg;
	const struct nightly_target *targets;   /* cfg->nr_jobs */
	const char *out;              /* absolute: cfg->out resolved */
	const char *at;               /* measure this ref instead of the branch head, or NULL */
	const char *night;            /* the night's name, or NULL: now (YYYYmmdd-HHMMSS UTC) */
	struct run_env env;           /* where and how the guests run, as for `lab run` */
	void (*on_report)(void *ud, const char *report);   /* each report written (history) */
	void *report_ud;
	/* Each confirmed change, once settled (and bisected): 1 a new alert (or one reopened),
	 * 0 one raised before, negative when it could not be recorded (counted as new).  NULL:
	 * every alert is new. */
	int (*on_alert)(void *ud, const struct nightly_alert *a);
};

struct nightly_summary {
	unsigned jobs, failed, suspects, confirmed, regressions, bisected;
	unsigned new_regressions;     /* regressions whose alert is new (or reopened): what the
				       * exit status counts */
	unsigned outside;             /* primary series the timing model cannot show: not searched */
	char report[PATH_MAX + 64];   /* the first job's nightly.json */
	char culprit[65];             /* the first culprit named, "" none */
};

/* 0 when every job was measured (alarms or not: see sum), -EINTR, or a negative errno with msg
 * when the lab could not proceed (the ledger keeps every night finished before). */
int nightly_run(const struct nightly_opts *o, struct nightly_summary *sum, char *msg,
		size_t len);
