/* `lab bisect`'s decision engine: which kernel commit to measure next, what one measurement
 * means for the bisection, and when it is over.  Pure: no git, no builds, no guests, no files.
 * The caller lists the commits, builds and boots what bisect_next() asks for, classifies the
 * boots against the good end's and the bad end's with the lab's statistics, hands the verdict
 * to bisect_record(), and writes bisect_log_format() and bisect_to_json() where it likes.
 *
 * The commits are a linear, first-parent list, oldest first: commits[0] is the known-good end,
 * commits[n-1] the known-bad end, and each commit's parent is the one before it (the caller's
 * `git rev-list --first-parent --reverse GOOD..BAD` with GOOD in front).  A merge is one commit
 * here: a regression inside a merged branch is blamed on its merge, never on a branch commit.
 *
 * The decisions follow `git bisect`, with the measurement's noise in mind:
 *   ends     both ends are measured before any midpoint, the good end first: it is the
 *            reference every later commit is compared with.  The bad end must differ from it
 *            beyond the threshold (the caller classifies it "bad"); otherwise the bisection
 *            stops there with the numbers ("no-difference"): a bisection of noise would still
 *            name a culprit.  An end that does not build or boot stops it too ("end-failed").
 *   bisect   the commit measured next is the midpoint between the last good and the first bad
 *            commit.  A skipped one (it does not build or boot) is stepped around as git does:
 *            the nearest untested commit to the midpoint, alternating sides, the upper side
 *            first (the midpoint is rounded down, so the commit above is never a worse split).
 *            An inconclusive commit (its interval overlaps both ends') is measured again, up
 *            to max_tries times, then skipped: a guess would send the search the wrong way
 *            for good.  The culprit is the first bad commit whose parent is good; when only
 *            skipped commits lie between the last good and the first bad, the answer is that
 *            range ("range", git's "only skipped commits left to test").
 *   verify   the culprit's parent and the culprit are measured again: the parent must come out
 *            good and the culprit bad, else "not-verified" (a flaky culprit, a noisy parent).
 *            Then, when the caller asks for it, the bad end with the culprit reverted must come
 *            back to good (else "not-verified"; a revert that does not apply or build leaves
 *            the culprit found and says so).  A culprit whose vmlinux .text equals its
 *            parent's (the caller compares them) is flagged "no-code-change", never "found":
 *            the difference measured is then layout, build or noise, not the commit's code.
 *   done     the answer, its reason and every step.
 *
 * The log (bisect_log_format) is text like `git bisect log`: "#" comments with the subjects and
 * numbers for people, and one "bisect VERDICT SHA key=value..." line a step.  Replaying it into
 * a fresh state with the same commits (bisect_log_replay) gives the same state: that is how an
 * interrupted bisection resumes.  Errors: 0 or a negative errno, with the message in *err. */
#pragma once
#include <jansson.h>
#include <stddef.h>

#include "util/error.h"

#define BISECT_SCHEMA "numalab.bisect/1"
/* Most commits between and including the ends; a kernel release is ~15000 without
 * --first-parent. */
#define BISECT_MAX_COMMITS 100000
/* Inconclusive measurements of one commit before it is skipped: the default and the most. */
#define BISECT_DEFAULT_TRIES 3
#define BISECT_MAX_TRIES 20
/* Most boots (and per-boot values) one step records. */
#define BISECT_MAX_BOOTS 1000
/* Most steps one bisection records (each commit at most max_tries times in practice). */
#define BISECT_MAX_STEPS 10000
/* A subject longer than this is cut (at a UTF-8 character boundary). */
#define BISECT_SUBJECT_MAX 200
/* Largest log bisect_log_replay() reads, and its longest line. */
#define BISECT_LOG_MAX (8u << 20)
#define BISECT_LOG_LINE_MAX 32768
/* No commit (an index). */
#define BISECT_NONE ((size_t)-1)

enum bisect_phase { BISECT_PHASE_ENDS, BISECT_PHASE_BISECT, BISECT_PHASE_VERIFY,
		    BISECT_PHASE_DONE };

/* What a measurement is for. */
enum bisect_role {
	BISECT_ROLE_GOOD_END,
	BISECT_ROLE_BAD_END,
	BISECT_ROLE_STEP,      /* a commit between the ends */
	BISECT_ROLE_PARENT,    /* verify: the culprit's parent again */
	BISECT_ROLE_CULPRIT,   /* verify: the culprit again */
	BISECT_ROLE_REVERT,    /* verify: the bad end with the culprit reverted */
};

/* A commit's mark, and the verdict of one step. */
enum bisect_mark { BISECT_UNTESTED, BISECT_GOOD, BISECT_BAD, BISECT_SKIP, BISECT_INCONCLUSIVE };

/* How the caller's build and boots of the commit went. */
enum bisect_outcome {
	BISECT_OUTCOME_OK,
	BISECT_OUTCOME_BUILD_FAILURE,
	BISECT_OUTCOME_BOOT_FAILURE,   /* no boot got to measure: boot failure, panic, hang */
	BISECT_OUTCOME_NO_REVERT,      /* the revert step only: the revert does not apply */
};

/* The caller's reading of the boots, against the good end's and the bad end's. */
enum bisect_class { BISECT_CLASS_GOOD, BISECT_CLASS_BAD, BISECT_CLASS_INCONCLUSIVE };

enum bisect_answer {
	BISECT_ANSWER_NONE,           /* not over */
	BISECT_ANSWER_FOUND,
	BISECT_ANSWER_NOT_VERIFIED,   /* a culprit was named, re-measuring it disagreed */
	BISECT_ANSWER_NO_CODE_CHANGE, /* flagged: the culprit's .text equals its parent's */
	BISECT_ANSWER_RANGE,          /* only skipped commits between last good and first bad */
	BISECT_ANSWER_NO_DIFFERENCE,  /* the ends do not differ beyond the threshold */
	BISECT_ANSWER_END_FAILED,     /* an end does not build or boot */
};

/* The revert check of a verified culprit. */
enum bisect_revert { BISECT_REVERT_NOT_CHECKED, BISECT_REVERT_GOOD, BISECT_REVERT_BAD,
		     BISECT_REVERT_INCONCLUSIVE, BISECT_REVERT_NO_APPLY,
		     BISECT_REVERT_FAILED };

struct bisect_config {
	double threshold_pct;  /* the change that counts, for the reasons and the log */
	unsigned max_tries;    /* 0: BISECT_DEFAULT_TRIES */
	int check_revert;      /* verify with the culprit reverted on the bad end */
};

/* A commit as the caller gives it. */
struct bisect_commit_in {
	const char *sha;       /* full object name: 40 or 64 lower-case hex digits */
	const char *subject;   /* may be NULL */
};

struct bisect_commit {
	char sha[65];
	char *subject;         /* control characters replaced, cut at BISECT_SUBJECT_MAX */
	enum bisect_mark mark; /* from the ends and bisect phases; verifying never changes it */
	unsigned tries;        /* its measurements in the ends and bisect phases */
};

/* One measurement handed to bisect_record(). */
struct bisect_measure {
	size_t commit;             /* its index; the revert step: the bad end */
	enum bisect_outcome outcome;
	enum bisect_class class;   /* when outcome is ok */
	size_t n;                  /* boots measured; 0 for a verdict given by hand */
	double mean;               /* the metric's mean over the boots; NAN when unknown */
	double ci_lo, ci_hi;       /* its 95% interval; NAN when unknown */
	double change_pct;         /* against the good end's mean, in %; NAN when unknown */
	const double *samples;     /* the n per-boot values, or NULL */
	const char *kernel_key;    /* the build's cache key, hex; NULL when none */
	const char *text_sha256;   /* its vmlinux .text, hex; NULL when none */
	int text_identical;        /* the culprit's step: its .text equals its parent's */
};

/* One recorded step: the measurement, what the engine made of it and why. */
struct bisect_step {
	size_t commit;
	enum bisect_phase phase;
	enum bisect_role role;
	unsigned try;              /* 1, 2, ... for the measurements of this commit in this role */
	enum bisect_outcome outcome;
	enum bisect_class class;
	enum bisect_mark verdict;
	size_t n;
	double mean, ci_lo, ci_hi, change_pct;
	double *samples;           /* n values, or NULL */
	char kernel_key[65], text_sha256[65];
	int text_identical;
	char reason[256];
};

struct bisect_result {
	enum bisect_answer answer;
	size_t culprit;            /* found, not-verified, no-code-change; else BISECT_NONE */
	size_t first, last;        /* range: the first bad commit is one of first..last */
	enum bisect_revert revert;
	char reason[512];
};

struct bisect {
	struct bisect_config cfg;
	struct bisect_commit *commits;
	size_t n;
	size_t *by_sha;            /* commit indexes in SHA order, for look-ups */
	struct bisect_step *steps;
	size_t n_steps, cap_steps;
	enum bisect_phase phase;
	enum bisect_role vrole;    /* verify: the measurement under way */
	unsigned vtries;           /* its inconclusive tries */
	struct bisect_result result;
};

/* What to measure next. */
struct bisect_next {
	enum bisect_phase phase;   /* done: nothing; the answer is in b->result */
	enum bisect_role role;
	size_t commit;             /* the revert step: the bad end */
	size_t reverted;           /* the revert step: the culprit to revert; else BISECT_NONE */
	unsigned try;              /* 1, or the repeat of an inconclusive measurement */
	size_t left;               /* bisect: commits between last good and first bad not skipped */
	unsigned steps;            /* bisect: about how many steps are left */
};

/* A fresh bisection over commits[0..n) (oldest first, see above).  -EINVAL with *err for fewer
 * than 2 or more than BISECT_MAX_COMMITS commits, a malformed SHA, a commit given twice, a bad
 * config; -ENOMEM. */
int bisect_init(struct bisect *b, const struct bisect_commit_in *commits, size_t n,
		const struct bisect_config *cfg, struct lab_error *err);
void bisect_free(struct bisect *b);
/* The commit's index, or BISECT_NONE. */
size_t bisect_find(const struct bisect *b, const char *sha);

void bisect_next(const struct bisect *b, struct bisect_next *next);
/* Record one measurement of the commit bisect_next() asks for (in the bisect phase any commit
 * between the ends may be marked, as with `git bisect`).  -EINVAL with *err when it is not the
 * commit the ends or verify phase measure, contradicts an earlier mark (good after bad, a good
 * commit above a bad one), or the bisection is over; -E2BIG past BISECT_MAX_STEPS; -ENOMEM.
 * A refused measurement leaves b as it was. */
int bisect_record(struct bisect *b, const struct bisect_measure *m, struct lab_error *err);

/* The whole log, "\n"-terminated lines; caller frees *out.  -ENOMEM. */
int bisect_log_format(const struct bisect *b, char **out);
/* Replay text[0..len) into b, fresh from bisect_init() with the same commits and config.
 * -EINVAL with "line N: why" in *err for a malformed line, an unknown commit, a log of another
 * range or config, or one that contradicts itself; -EFBIG past BISECT_LOG_MAX. */
int bisect_log_replay(struct bisect *b, const char *text, size_t len, struct lab_error *err);

/* The result document (schema BISECT_SCHEMA): config, ends, answer, every step.  -ENOMEM. */
int bisect_to_json(const struct bisect *b, json_t **out);

const char *bisect_phase_name(enum bisect_phase p);
const char *bisect_role_name(enum bisect_role r);
const char *bisect_mark_name(enum bisect_mark m);
const char *bisect_outcome_name(enum bisect_outcome o);
const char *bisect_class_name(enum bisect_class c);
const char *bisect_answer_name(enum bisect_answer a);
const char *bisect_revert_name(enum bisect_revert r);

static inline void cleanup_bisect(struct bisect *b)
{
	bisect_free(b);
}
#define _cleanup_bisect_ __attribute__((cleanup(cleanup_bisect)))
