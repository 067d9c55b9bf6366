/* lab bisect's decision engine: the commit list, the next commit, one step recorded.  The log
 * is in bisect_log.c, the JSON result in bisect_json.c. */
#include "core/bisect.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *const phase_names[] = {"ends", "bisect", "verify", "done"};
static const char *const role_names[] = {"good-end", "bad-end", "step", "parent", "culprit",
					 "revert"};
static const char *const mark_names[] = {"untested", "good", "bad", "skip", "inconclusive"};
static const char *const outcome_names[] = {"ok", "build-failure", "boot-failure",
					    "no-revert"};
static const char *const class_names[] = {"good", "bad", "inconclusive"};
static const char *const answer_names[] = {"none", "found", "not-verified", "no-code-change",
					   "range", "no-difference", "end-failed"};
static const char *const revert_names[] = {"not-checked", "good", "bad", "inconclusive",
					   "no-apply", "failed"};

static const char *name_at(const char *const *names, size_t n, unsigned i)
{
	return i < n ? names[i] : "?";
}

const char *bisect_phase_name(enum bisect_phase p)
{
	return name_at(phase_names, COUNT(phase_names), p);
}
const char *bisect_role_name(enum bisect_role r)
{
	return name_at(role_names, COUNT(role_names), r);
}
const char *bisect_mark_name(enum bisect_mark m)
{
	return name_at(mark_names, COUNT(mark_names), m);
}
const char *bisect_outcome_name(enum bisect_outcome o)
{
	return name_at(outcome_names, COUNT(outcome_names), o);
}
const char *bisect_class_name(enum bisect_class c)
{
	return name_at(class_names, COUNT(class_names), c);
}
const char *bisect_answer_name(enum bisect_answer a)
{
	return name_at(answer_names, COUNT(answer_names), a);
}
const char *bisect_revert_name(enum bisect_revert r)
{
	return name_at(revert_names, COUNT(revert_names), r);
}

/* ---- the commit list ------------------------------------------------------------------- */

static int hex_ok(const char *s, size_t min, size_t max)
{
	size_t n = strspn(s, "0123456789abcdef");

	return s[n] == '\0' && n >= min && n <= max;
}

/* A full object name: SHA-1 (40) or SHA-256 (64) repositories; abbreviations could collide. */
static int sha_ok(const char *s)
{
	return s && hex_ok(s, 40, 64) && (strlen(s) == 40 || strlen(s) == 64);
}

/* The subject for one-line logs and JSON: control characters become spaces, and a subject that
 * is not UTF-8 (old commits in latin-1) loses its high bytes rather than the bisection. */
static char *subject_clean(const char *s)
{
	json_t *probe;
	size_t n;
	char *c = strdup(s ? s : "");

	if (!c)
		return NULL;
	for (char *p = c; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
	probe = json_string(c);
	if (!probe)
		for (char *p = c; *p; p++)
			if ((unsigned char)*p >= 0x80)
				*p = '?';
	json_decref(probe);
	n = strlen(c);
	if (n > BISECT_SUBJECT_MAX) {
		n = BISECT_SUBJECT_MAX;
		while (n && ((unsigned char)c[n] & 0xc0) == 0x80)
			n--;
		c[n] = '\0';
	}
	return c;
}

static int by_sha_cmp(const void *a, const void *b, void *arg)
{
	const struct bisect_commit *c = arg;

	return strcmp(c[*(const size_t *)a].sha, c[*(const size_t *)b].sha);
}

/* The SHA index, refusing a commit given twice. */
static int index_shas(struct bisect *b, struct lab_error *err)
{
	b->by_sha = malloc(b->n * sizeof(*b->by_sha));
	if (!b->by_sha)
		return -ENOMEM;
	for (size_t i = 0; i < b->n; i++)
		b->by_sha[i] = i;
	qsort_r(b->by_sha, b->n, sizeof(*b->by_sha), by_sha_cmp, b->commits);
	for (size_t i = 1; i < b->n; i++) {
		size_t x = b->by_sha[i - 1], y = b->by_sha[i];

		if (!strcmp(b->commits[x].sha, b->commits[y].sha))
			return error_set(err, "commits", "commit %.12s is given twice (%zu and %zu)",
					 b->commits[x].sha, x < y ? x : y, x < y ? y : x);
	}
	return 0;
}

static int config_set(struct bisect *b, const struct bisect_config *cfg, struct lab_error *err)
{
	b->cfg = cfg ? *cfg : (struct bisect_config){0};
	if (!isfinite(b->cfg.threshold_pct) || b->cfg.threshold_pct < 0)
		return error_set(err, "threshold_pct", "must be a finite number >= 0");
	if (!b->cfg.max_tries)
		b->cfg.max_tries = BISECT_DEFAULT_TRIES;
	if (b->cfg.max_tries > BISECT_MAX_TRIES)
		return error_set(err, "max_tries", "must be 1 to %d", BISECT_MAX_TRIES);
	b->cfg.check_revert = !!b->cfg.check_revert;
	return 0;
}

static int commits_set(struct bisect *b, const struct bisect_commit_in *in, size_t n,
		       struct lab_error *err)
{
	char path[32];

	if (n < 2)
		return error_set(err, "commits", "a bisection needs at least 2 commits (the good "
				 "and the bad end), got %zu", n);
	if (n > BISECT_MAX_COMMITS)
		return error_set(err, "commits", "%zu commits, more than %d", n, BISECT_MAX_COMMITS);
	b->commits = calloc(n, sizeof(*b->commits));
	if (!b->commits)
		return -ENOMEM;
	b->n = n;
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "commits[%zu]", i);
		if (!sha_ok(in[i].sha))
			return error_set(err, path, "not a full commit name (40 or 64 lower-case hex "
					 "digits): \"%.70s\"", in[i].sha ? in[i].sha : "(null)");
		snprintf(b->commits[i].sha, sizeof(b->commits[i].sha), "%s", in[i].sha);
		b->commits[i].subject = subject_clean(in[i].subject);
		if (!b->commits[i].subject)
			return -ENOMEM;
	}
	return index_shas(b, err);
}

int bisect_init(struct bisect *b, const struct bisect_commit_in *commits, size_t n,
		const struct bisect_config *cfg, struct lab_error *err)
{
	int r;

	*b = (struct bisect){.phase = BISECT_PHASE_ENDS};
	b->result = (struct bisect_result){.culprit = BISECT_NONE, .first = BISECT_NONE,
					   .last = BISECT_NONE};
	r = config_set(b, cfg, err);
	if (r == 0)
		r = commits_set(b, commits, n, err);
	if (r < 0)
		bisect_free(b);
	return r;
}

void bisect_free(struct bisect *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->commits[i].subject);
	for (size_t i = 0; i < b->n_steps; i++)
		free(b->steps[i].samples);
	free(b->commits);
	free(b->by_sha);
	free(b->steps);
	*b = (struct bisect){0};
}

size_t bisect_find(const struct bisect *b, const char *sha)
{
	size_t lo = 0, hi = b->n;

	while (sha && lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(sha, b->commits[b->by_sha[mid]].sha);

		if (!c)
			return b->by_sha[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return BISECT_NONE;
}

/* ---- what to measure next ---------------------------------------------------------------- */

/* The last good commit below the first bad one, and that first bad one (n when none is). */
static void range(const struct bisect *b, size_t *lo, size_t *hi)
{
	*lo = 0;
	*hi = b->n;
	for (size_t i = 0; i < b->n; i++) {
		if (b->commits[i].mark == BISECT_BAD) {
			*hi = i;
			break;
		}
		if (b->commits[i].mark == BISECT_GOOD)
			*lo = i;
	}
}

static int testable(const struct bisect *b, size_t i)
{
	return b->commits[i].mark == BISECT_UNTESTED || b->commits[i].mark == BISECT_INCONCLUSIVE;
}

/* The commit to measure strictly between lo and hi: the testable one nearest the midpoint,
 * the upper side first; BISECT_NONE when only skipped commits lie between.  An inconclusive
 * midpoint leaves the range as it was, so it comes out again: that is the repeat. */
static size_t pick(const struct bisect *b, size_t lo, size_t hi)
{
	size_t mid = lo + (hi - lo) / 2;

	if (hi - lo < 2)
		return BISECT_NONE;
	for (size_t d = 0; mid + d < hi || d < mid - lo; d++) {
		if (mid + d < hi && testable(b, mid + d))
			return mid + d;
		if (d && d < mid - lo && testable(b, mid - d))
			return mid - d;
	}
	return BISECT_NONE;
}

static size_t verify_commit(const struct bisect *b, enum bisect_role role)
{
	if (role == BISECT_ROLE_PARENT)
		return b->result.culprit - 1;
	return role == BISECT_ROLE_CULPRIT ? b->result.culprit : b->n - 1;
}

static void next_bisect(const struct bisect *b, struct bisect_next *nx)
{
	size_t lo, hi, left = 0;

	range(b, &lo, &hi);
	for (size_t i = lo + 1; i < hi; i++)
		left += b->commits[i].mark != BISECT_SKIP;
	nx->role = BISECT_ROLE_STEP;
	nx->commit = pick(b, lo, hi);
	nx->left = left;
	while (left) {
		nx->steps++;
		left /= 2;
	}
}

/* Which end the ends phase measures next: the good end first, then the bad end.  A bad end
 * that measured inconclusive is measured again together with the good end, one try of each in
 * turn: both pool their boots, since a good end left at its first few boots keeps the
 * interval of the difference wide however often the bad end is measured (integration
 * regress-bisect, two boots a side, a mode ~1 % apart: inconclusive three times running). */
static size_t next_end(const struct bisect *b)
{
	const struct bisect_commit *good = &b->commits[0], *bad = &b->commits[b->n - 1];

	if (good->mark != BISECT_GOOD)
		return 0;
	if (bad->mark == BISECT_INCONCLUSIVE && good->tries <= bad->tries)
		return 0;
	return b->n - 1;
}

void bisect_next(const struct bisect *b, struct bisect_next *nx)
{
	*nx = (struct bisect_next){.phase = b->phase, .commit = BISECT_NONE,
				   .reverted = BISECT_NONE, .try = 1};
	if (b->phase == BISECT_PHASE_ENDS) {
		size_t end = next_end(b);

		nx->role = end ? BISECT_ROLE_BAD_END : BISECT_ROLE_GOOD_END;
		nx->commit = end;
	} else if (b->phase == BISECT_PHASE_BISECT) {
		next_bisect(b, nx);
	} else if (b->phase == BISECT_PHASE_VERIFY) {
		nx->role = b->vrole;
		nx->commit = verify_commit(b, b->vrole);
		nx->try = b->vtries + 1;
		if (b->vrole == BISECT_ROLE_REVERT)
			nx->reverted = b->result.culprit;
		return;
	}
	if (nx->commit != BISECT_NONE)
		nx->try = b->commits[nx->commit].tries + 1;
}

/* ---- recording a step -------------------------------------------------------------------- */

/* Cut an incomplete UTF-8 character off the end of s: vsnprintf cuts a long reason at a byte,
 * and JSON takes only whole characters. */
static void utf8_trim(char *s)
{
	size_t n = strlen(s), i = n, want;
	unsigned char lead;

	while (i && ((unsigned char)s[i - 1] & 0xc0) == 0x80)
		i--;
	if (!i)
		return;
	lead = (unsigned char)s[i - 1];
	want = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
	if (n - (i - 1) < want)
		s[i - 1] = '\0';
}

/* "+4.10 %" or "change unknown". */
static const char *pct(double v, char *buf, size_t len)
{
	if (isfinite(v))
		snprintf(buf, len, "%+.2f %%", v);
	else
		snprintf(buf, len, "change unknown");
	return buf;
}

__attribute__((format(printf, 3, 4))) static void finish(struct bisect *b,
							  enum bisect_answer a,
							  const char *fmt, ...)
{
	va_list ap;

	b->phase = BISECT_PHASE_DONE;
	b->result.answer = a;
	va_start(ap, fmt);
	vsnprintf(b->result.reason, sizeof(b->result.reason), fmt, ap);
	va_end(ap);
	utf8_trim(b->result.reason);
}

static int measure_check(const struct bisect *b, const struct bisect_measure *m,
			 struct lab_error *err)
{
	int revert_step = b->phase == BISECT_PHASE_VERIFY && b->vrole == BISECT_ROLE_REVERT;

	if (b->phase == BISECT_PHASE_DONE)
		return error_set(err, "", "the bisection is over (%s)",
				 bisect_answer_name(b->result.answer));
	if (m->commit >= b->n)
		return error_set(err, "commit", "no commit %zu (%zu commits)", m->commit, b->n);
	if ((unsigned)m->outcome >= COUNT(outcome_names))
		return error_set(err, "outcome", "not an outcome");
	if (m->outcome == BISECT_OUTCOME_NO_REVERT && !revert_step)
		return error_set(err, "outcome", "no-revert is an outcome of the revert step only");
	if ((unsigned)m->class >= COUNT(class_names))
		return error_set(err, "class", "not good, bad or inconclusive");
	if (m->n > BISECT_MAX_BOOTS)
		return error_set(err, "n", "%zu boots, more than %d", m->n, BISECT_MAX_BOOTS);
	for (size_t i = 0; m->samples && i < m->n; i++)
		if (!isfinite(m->samples[i]))
			return error_set(err, "samples", "sample %zu is not a finite number", i);
	if ((m->kernel_key && !hex_ok(m->kernel_key, 1, 64)) ||
	    (m->text_sha256 && !hex_ok(m->text_sha256, 1, 64)))
		return error_set(err, "", "a hash is 1 to 64 lower-case hex digits");
	return 0;
}

/* The step for m, its reason still empty; NULL with *r set on failure. */
static struct bisect_step *step_add(struct bisect *b, const struct bisect_measure *m,
				    enum bisect_role role, unsigned try, enum bisect_mark verdict,
				    int *r)
{
	struct bisect_step *s;

	if (b->n_steps == BISECT_MAX_STEPS) {
		*r = -E2BIG;
		return NULL;
	}
	if (b->n_steps == b->cap_steps) {
		size_t cap = b->cap_steps ? 2 * b->cap_steps : 16;

		s = realloc(b->steps, cap * sizeof(*s));
		if (!s)
			goto nomem;
		b->steps = s;
		b->cap_steps = cap;
	}
	s = &b->steps[b->n_steps];
	*s = (struct bisect_step){.commit = m->commit, .phase = b->phase, .role = role,
				  .try = try, .outcome = m->outcome, .class = m->class,
				  .verdict = verdict, .n = m->n, .mean = m->mean,
				  .ci_lo = m->ci_lo, .ci_hi = m->ci_hi, .change_pct = m->change_pct,
				  .text_identical = !!m->text_identical};
	if (m->samples && m->n) {
		s->samples = malloc(m->n * sizeof(*s->samples));
		if (!s->samples)
			goto nomem;
		memcpy(s->samples, m->samples, m->n * sizeof(*s->samples));
	}
	snprintf(s->kernel_key, sizeof(s->kernel_key), "%s", m->kernel_key ? m->kernel_key : "");
	snprintf(s->text_sha256, sizeof(s->text_sha256), "%s",
		 m->text_sha256 ? m->text_sha256 : "");
	b->n_steps++;
	return s;
nomem:
	*r = -ENOMEM;
	return NULL;
}

/* Add the step with its reason; 0 or a negative errno. */
__attribute__((format(printf, 6, 7))) static int step(struct bisect *b,
						      const struct bisect_measure *m,
						      enum bisect_role role, unsigned try,
						      enum bisect_mark verdict, const char *fmt, ...)
{
	int r = 0;
	struct bisect_step *s = step_add(b, m, role, try, verdict, &r);
	va_list ap;

	if (!s)
		return r;
	va_start(ap, fmt);
	vsnprintf(s->reason, sizeof(s->reason), fmt, ap);
	va_end(ap);
	utf8_trim(s->reason);
	return 0;
}

static const char *failure_why(enum bisect_outcome o)
{
	return o == BISECT_OUTCOME_BUILD_FAILURE ? "does not build" : "does not boot";
}

static void no_difference(struct bisect *b, const char *why)
{
	const struct bisect_step *g = &b->steps[0], *e = &b->steps[b->n_steps - 1];
	char ch[32];

	finish(b, BISECT_ANSWER_NO_DIFFERENCE, "the ends do not differ beyond the threshold of "
	       "%g %%: %s; good end mean %g (%zu boots), bad end mean %g (%zu boots), %s",
	       b->cfg.threshold_pct, why, g->mean, g->n, e->mean, e->n,
	       pct(e->change_pct, ch, sizeof(ch)));
}

/* Bisecting: the culprit once the first bad commit's parent is good, the range when only
 * skipped commits are left between them. */
static void advance_bisect(struct bisect *b)
{
	size_t lo, hi;

	range(b, &lo, &hi);
	if (pick(b, lo, hi) != BISECT_NONE)
		return;
	if (hi == lo + 1) {
		b->phase = BISECT_PHASE_VERIFY;
		b->vrole = BISECT_ROLE_PARENT;
		b->vtries = 0;
		b->result.culprit = hi;
		return;
	}
	b->result.first = lo + 1;
	b->result.last = hi;
	finish(b, BISECT_ANSWER_RANGE, "only skipped commits left to test: the first bad commit "
	       "is one of the %zu commits %.12s..%.12s", hi - lo, b->commits[lo + 1].sha,
	       b->commits[hi].sha);
}

static enum bisect_mark verdict_of(const struct bisect_measure *m)
{
	if (m->outcome != BISECT_OUTCOME_OK)
		return BISECT_SKIP;
	if (m->class == BISECT_CLASS_GOOD)
		return BISECT_GOOD;
	return m->class == BISECT_CLASS_BAD ? BISECT_BAD : BISECT_INCONCLUSIVE;
}

/* The step of an end: what the ends phase makes of it. */
static int end_step(struct bisect *b, const struct bisect_measure *m, size_t end,
		    enum bisect_mark v, unsigned t)
{
	enum bisect_role role = end ? BISECT_ROLE_BAD_END : BISECT_ROLE_GOOD_END;
	char ch[32];

	pct(m->change_pct, ch, sizeof(ch));
	if (v == BISECT_SKIP)
		return step(b, m, role, t, v, "%s", failure_why(m->outcome));
	if (!end)
		return step(b, m, role, t, v, t > 1 ? "the reference, measured again beside an "
			    "inconclusive bad end" : "the reference");
	if (v == BISECT_BAD)
		return step(b, m, role, t, v, "differs from the good end beyond the threshold (%s)",
			    ch);
	if (v == BISECT_INCONCLUSIVE)
		return step(b, m, role, t, v, "inconclusive (%s), try %u of %u", ch, t,
			    b->cfg.max_tries);
	return step(b, m, role, t, v, "like the good end (%s)", ch);
}

/* The ends come first.  The good end is the reference every verdict is taken against, so it
 * is good by definition; the bad end must differ from it beyond the threshold before anything
 * is bisected.  An end that does not build or boot ends the bisection; an inconclusive bad end
 * is measured again up to the cap, each time after the good end (next_end), never skipped:
 * there is nothing to step around to. */
static int record_end(struct bisect *b, const struct bisect_measure *m, struct lab_error *err)
{
	size_t end = next_end(b);
	struct bisect_commit *c = &b->commits[end];
	enum bisect_mark v = verdict_of(m);
	unsigned t = c->tries + 1;
	int r;

	if (m->commit != end)
		return error_set(err, "commit", "the ends are measured first: expected the %s end "
				 "%.12s, not %.12s", end ? "bad" : "good", c->sha,
				 b->commits[m->commit].sha);
	if (!end && v != BISECT_GOOD && v != BISECT_SKIP)
		return error_set(err, "class", "the good end %.12s is the reference: good, not %s",
				 c->sha, bisect_class_name(m->class));
	r = end_step(b, m, end, v, t);
	if (r < 0)
		return r;
	c->tries = t;
	c->mark = v;
	if (v == BISECT_SKIP) {
		finish(b, BISECT_ANSWER_END_FAILED, "the %s end %.12s %s", end ? "bad" : "good",
		       c->sha, failure_why(m->outcome));
	} else if (end && v == BISECT_BAD) {
		b->phase = BISECT_PHASE_BISECT;
		advance_bisect(b);
	} else if (end && v == BISECT_GOOD) {
		no_difference(b, "the bad end measures like the good end");
	} else if (end && t >= b->cfg.max_tries) {
		no_difference(b, "the bad end stays inconclusive");
	}
	return 0;
}

/* A mark may be repeated, never changed (but an inconclusive one decided), and the marks keep
 * their order: every good commit is older than every bad one.  As in `git bisect`. */
static int check_mark(const struct bisect *b, size_t i, enum bisect_mark v,
		      struct lab_error *err)
{
	const struct bisect_commit *c = &b->commits[i];
	size_t lo, hi;

	if (c->mark != BISECT_UNTESTED && c->mark != BISECT_INCONCLUSIVE && c->mark != v)
		return error_set(err, "", "commit %.12s is %s already, now %s: the verdicts "
				 "contradict each other", c->sha, bisect_mark_name(c->mark),
				 bisect_mark_name(v));
	range(b, &lo, &hi);
	if (v == BISECT_GOOD && i > hi)
		return error_set(err, "", "commit %.12s is good but the older %.12s is bad",
				 c->sha, b->commits[hi].sha);
	if (v == BISECT_BAD && i < lo)
		return error_set(err, "", "commit %.12s is bad but the newer %.12s is good",
				 c->sha, b->commits[lo].sha);
	return 0;
}

static int record_step(struct bisect *b, const struct bisect_measure *m, struct lab_error *err)
{
	struct bisect_commit *c = &b->commits[m->commit];
	enum bisect_mark v = verdict_of(m);
	unsigned t = c->tries + 1;
	char ch[32];
	int r;

	/* Skipped rather than guessed: a wrong guess sends the rest of the search astray. */
	if (v == BISECT_INCONCLUSIVE && t >= b->cfg.max_tries)
		v = BISECT_SKIP;
	r = check_mark(b, m->commit, v, err);
	if (r < 0)
		return r;
	pct(m->change_pct, ch, sizeof(ch));
	if (m->outcome != BISECT_OUTCOME_OK)
		r = step(b, m, BISECT_ROLE_STEP, t, v, "%s", failure_why(m->outcome));
	else if (v == BISECT_SKIP)
		r = step(b, m, BISECT_ROLE_STEP, t, v, "inconclusive (%s) %u times: skipped", ch, t);
	else if (v == BISECT_INCONCLUSIVE)
		r = step(b, m, BISECT_ROLE_STEP, t, v, "inconclusive (%s), try %u of %u", ch, t,
			 b->cfg.max_tries);
	else
		r = step(b, m, BISECT_ROLE_STEP, t, v, "like the %s end (%s)",
			 v == BISECT_GOOD ? "good" : "bad", ch);
	if (r < 0)
		return r;
	c->tries = t;
	c->mark = v;
	advance_bisect(b);
	return 0;
}

/* The verification's verdict is final: the parent must be good, the culprit bad, the bad end
 * with the culprit reverted good; anything else says why the culprit is not verified. */
static void verify_failed(struct bisect *b, const struct bisect_measure *m, enum bisect_mark v)
{
	const char *what = b->vrole == BISECT_ROLE_PARENT ? "the culprit's parent" : "the culprit";
	const struct bisect_commit *c = &b->commits[m->commit];
	char ch[32];

	pct(m->change_pct, ch, sizeof(ch));
	if (v == BISECT_SKIP)
		finish(b, BISECT_ANSWER_NOT_VERIFIED, "%s %.12s %s when measured again", what,
		       c->sha, failure_why(m->outcome));
	else if (v == BISECT_INCONCLUSIVE)
		finish(b, BISECT_ANSWER_NOT_VERIFIED, "%s %.12s stays inconclusive (%s) after %u "
		       "tries", what, c->sha, ch, b->vtries);
	else
		finish(b, BISECT_ANSWER_NOT_VERIFIED, "%s %.12s measures %s when measured again "
		       "(%s)", what, c->sha, bisect_mark_name(v), ch);
}

static void found(struct bisect *b, enum bisect_revert rv, const char *how)
{
	const struct bisect_commit *c = &b->commits[b->result.culprit];

	b->result.revert = rv;
	finish(b, BISECT_ANSWER_FOUND, "first bad commit %.12s (%s): its parent measures good "
	       "and it bad again; %s", c->sha, c->subject, how);
}

static void verify_revert(struct bisect *b, const struct bisect_measure *m, enum bisect_mark v)
{
	const char *sha = b->commits[b->result.culprit].sha;
	char ch[32];

	pct(m->change_pct, ch, sizeof(ch));
	if (m->outcome == BISECT_OUTCOME_NO_REVERT) {
		found(b, BISECT_REVERT_NO_APPLY, "the revert does not apply to the bad end");
	} else if (v == BISECT_SKIP) {
		found(b, BISECT_REVERT_FAILED, m->outcome == BISECT_OUTCOME_BUILD_FAILURE
		      ? "the bad end with it reverted does not build"
		      : "the bad end with it reverted does not boot");
	} else if (v == BISECT_GOOD) {
		found(b, BISECT_REVERT_GOOD, "the bad end with it reverted measures good");
	} else {
		b->result.revert = v == BISECT_BAD ? BISECT_REVERT_BAD : BISECT_REVERT_INCONCLUSIVE;
		finish(b, BISECT_ANSWER_NOT_VERIFIED, "the bad end with %.12s reverted is %s (%s), "
		       "not good", sha, bisect_mark_name(v), ch);
	}
}

/* After the culprit measured bad again. */
static void verify_culprit(struct bisect *b, const struct bisect_measure *m)
{
	const struct bisect_commit *c = &b->commits[b->result.culprit];

	if (m->text_identical) {
		finish(b, BISECT_ANSWER_NO_CODE_CHANGE, "flagged: %.12s (%s) measures bad and its "
		       "parent good, but its vmlinux .text is identical to its parent's: the "
		       "difference is layout, build or noise, not this commit's code",
		       c->sha, c->subject);
	} else if (b->cfg.check_revert) {
		b->vrole = BISECT_ROLE_REVERT;
	} else {
		found(b, BISECT_REVERT_NOT_CHECKED, "the revert was not checked");
	}
}

static const char *const verify_ok_why[] = {
	[BISECT_ROLE_PARENT] = "good again",
	[BISECT_ROLE_CULPRIT] = "bad again",
	[BISECT_ROLE_REVERT] = "good with the culprit reverted",
};

static int record_verify(struct bisect *b, const struct bisect_measure *m,
			 struct lab_error *err)
{
	enum bisect_role role = b->vrole;
	size_t want = verify_commit(b, role);
	enum bisect_mark v = verdict_of(m),
			 ok = role == BISECT_ROLE_CULPRIT ? BISECT_BAD : BISECT_GOOD;
	unsigned t = b->vtries + 1;
	char ch[32];
	int r;

	if (m->commit != want)
		return error_set(err, "commit", "verifying: expected %.12s (%s), not %.12s",
				 b->commits[want].sha, bisect_role_name(role),
				 b->commits[m->commit].sha);
	pct(m->change_pct, ch, sizeof(ch));
	if (v == BISECT_INCONCLUSIVE && t < b->cfg.max_tries)
		r = step(b, m, role, t, v, "inconclusive (%s), try %u of %u", ch, t,
			 b->cfg.max_tries);
	else if (m->outcome != BISECT_OUTCOME_OK)
		r = step(b, m, role, t, v, "%s", m->outcome == BISECT_OUTCOME_NO_REVERT
			 ? "the revert does not apply" : failure_why(m->outcome));
	else
		r = step(b, m, role, t, v, "%s (%s)",
			 v == ok ? verify_ok_why[role] : bisect_mark_name(v), ch);
	if (r < 0)
		return r;
	b->vtries = t;
	if (v == BISECT_INCONCLUSIVE && t < b->cfg.max_tries)
		return 0;
	if (role == BISECT_ROLE_REVERT)
		verify_revert(b, m, v);
	else if (v != ok)
		verify_failed(b, m, v);
	else if (role == BISECT_ROLE_CULPRIT)
		verify_culprit(b, m);
	else
		b->vrole = BISECT_ROLE_CULPRIT;
	/* The next measurement of the verification counts its own tries. */
	if (b->vrole != role)
		b->vtries = 0;
	return 0;
}

int bisect_record(struct bisect *b, const struct bisect_measure *m, struct lab_error *err)
{
	int r = measure_check(b, m, err);

	if (r < 0)
		return r;
	if (b->phase == BISECT_PHASE_ENDS)
		r = record_end(b, m, err);
	else if (b->phase == BISECT_PHASE_BISECT)
		r = record_step(b, m, err);
	else
		r = record_verify(b, m, err);
	/* Nothing changed on a failure: the caller may record the step again. */
	if (r == -E2BIG)
		error_set(err, "", "more than %d steps", BISECT_MAX_STEPS);
	else if (r == -ENOMEM)
		error_set(err, "", "out of memory");
	return r;
}
