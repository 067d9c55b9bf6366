/* A finding as a mail a kernel developer acts on (`lab mail`), in the shape of the 0-day
 * robot's reports: a subject with the commit (or patch), the metric and the change; the
 * headline figure with its interval; every other figure that moved; the profile lines and
 * counters that moved; the kernel warnings; the tags to paste; how to reproduce it.  Plain
 * text, every body line at most MAILFMT_COLS columns.  Pure: the documents in, the message
 * out (lab/cli/cmd_mail.c reads them and writes it; the lab never sends mail).
 *
 *   mail_bisect   a bisection's bisect.json (numalab.bisect/1) that names a culprit
 *   mail_ab       an A/B report (numalab.report/1) and its comparison (numalab.compare/2, as
 *                 `lab compare --json` gives it) */
#pragma once
#include <jansson.h>
#include <stddef.h>

#include "util/error.h"

#define MAIL_MAX_RCPT 32

struct mail_opts {
	const char *from;         /* "Name <addr>"; NULL: MAIL_DEFAULT_FROM */
	const char *to[MAIL_MAX_RCPT], *cc[MAIL_MAX_RCPT];
	size_t nto, ncc;
	const char *reported_by;  /* the tag's; NULL: from */
	const char *closes;       /* a URL template, "{msgid}" replaced by the Message-ID
				   * without its brackets; NULL: no Closes: tag */
	const char *in_reply_to;  /* a follow-up: the Message-ID answered (with brackets) */
	const char *date;         /* the Date: field (RFC 5322), the caller's clock */
	const char *lab_version;  /* the signature's; NULL: this lab's version and commit */
	const char *source;       /* the file the finding was read from, as the reader names it */
	const char *fix_verdict;  /* a fix tried against a finding (`lab rerun --patch`, its
				   * fix.json): "still-regressed", "fixed" or "undecided"; NULL:
				   * an A/B of its own */
	const char *finding;      /* ... the finding's report id */
	const char *fix_patch;    /* ... the fix's file, and the labels it went on and was */
	const char *fix_on, *fix_against; /* judged against: the reproduce step's options */
	const char *bundle;       /* an A/B: the report's `lab bundle`, as the reader will have it
				   * (a file name or URL): the reproduce step re-runs it; NULL:
				   * the job's own files */
};

#define MAIL_DEFAULT_FROM "numalab <numalab@localhost>"

/* The mail of a bisection that named a culprit.  -EINVAL with err: not a bisection, no
 * culprit (the answer says why), an address or value a header cannot carry; -ENOMEM. */
int mail_bisect(const json_t *bisect, const struct mail_opts *o, char **out,
		struct lab_error *err);

/* The mail of an A/B: report is the report (for its job, kernels and host), cmp its
 * comparison; patch_subject the B side's patch subject when known (NULL: its label).
 * -EINVAL with err: no comparison in cmp, a value a header cannot carry; -ENOMEM. */
int mail_ab(const json_t *report, const json_t *cmp, const char *patch_subject,
	    const struct mail_opts *o, char **out, struct lab_error *err);

/* What an A/B's B kernel adds to A, by its report's kernel.patches: the subject of the first
 * patch B has and A has not (by sha256), "(+N more)" after it for a series; "" when the report
 * does not say (older reports, a bare diff). */
void mail_patch_subject(const json_t *report, const char *a, const char *b, char *buf,
			size_t len);
