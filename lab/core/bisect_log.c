/* The bisection's log: written from the steps, replayed through bisect_record() to resume.
 *
 *   bisect start GOOD BAD threshold_pct=2 max_tries=3 revert=1
 *   bisect VERDICT SHA key=value...           an end or a bisection step
 *   bisect verify VERDICT SHA key=value...    the culprit's parent, then the culprit, again
 *   bisect revert VERDICT CULPRIT key=value...  the bad end with CULPRIT reverted
 *
 * VERDICT is the engine's (good, bad, skip, inconclusive), which the replay checks; the keys
 * carry the measurement, named as in the JSON result: outcome, class, n, mean, ci_lo, ci_hi,
 * change_pct, samples (comma separated), kernel_key, text_sha256, text_identical.  Numbers are
 * written in the shortest form that reads back exactly, so a replayed state is the same state.
 * "#" lines are for people. */
#include "core/bisect.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cleanup.h"
#include "util/strbuf.h"

/* Most words on a line: "bisect verify VERDICT SHA" and one per key. */
#define MAX_WORDS 24

/* ---- writing ------------------------------------------------------------------------------ */

/* The shortest text of v that strtod reads back as v ("100", not "1e+02"). */
static const char *num_text(double v, char buf[32])
{
	if (v == trunc(v) && fabs(v) < 1e15) {
		snprintf(buf, 32, "%.0f", v);
		return buf;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, 32, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return buf;
}

static void field_num(struct strbuf *sb, const char *key, double v)
{
	char t[32];

	if (!isnan(v))
		strbuf_appendf(sb, " %s=%s", key, num_text(v, t));
}

static void step_fields(struct strbuf *sb, const struct bisect_step *s)
{
	char t[32];

	strbuf_appendf(sb, " outcome=%s", bisect_outcome_name(s->outcome));
	if (s->outcome == BISECT_OUTCOME_OK)
		strbuf_appendf(sb, " class=%s n=%zu", bisect_class_name(s->class), s->n);
	field_num(sb, "mean", s->mean);
	field_num(sb, "ci_lo", s->ci_lo);
	field_num(sb, "ci_hi", s->ci_hi);
	field_num(sb, "change_pct", s->change_pct);
	for (size_t i = 0; s->samples && i < s->n; i++)
		strbuf_appendf(sb, "%s%s", i ? "," : " samples=", num_text(s->samples[i], t));
	if (s->kernel_key[0])
		strbuf_appendf(sb, " kernel_key=%s", s->kernel_key);
	if (s->text_sha256[0])
		strbuf_appendf(sb, " text_sha256=%s", s->text_sha256);
	if (s->text_identical)
		strbuf_append(sb, " text_identical=1");
}

/* "# role verdict: [SHA] subject: numbers; reason" and the "bisect ..." line. */
static void step_lines(struct strbuf *sb, const struct bisect *b, const struct bisect_step *s)
{
	const struct bisect_commit *c = &b->commits[s->commit];
	const char *kind = s->phase != BISECT_PHASE_VERIFY ? ""
			   : s->role == BISECT_ROLE_REVERT ? "revert " : "verify ";
	const char *sha = s->role == BISECT_ROLE_REVERT ? b->commits[b->result.culprit].sha
						       : c->sha;

	strbuf_appendf(sb, "# %s %s: [%s] %s", bisect_role_name(s->role),
		       bisect_mark_name(s->verdict), c->sha, c->subject);
	if (s->role == BISECT_ROLE_REVERT)
		strbuf_appendf(sb, ", with [%s] reverted", sha);
	if (s->outcome == BISECT_OUTCOME_OK && s->n)
		strbuf_appendf(sb, ": mean %g (95%% CI %g .. %g), %zu boots, %+.2f %%", s->mean,
			       s->ci_lo, s->ci_hi, s->n, s->change_pct);
	else if (s->outcome == BISECT_OUTCOME_OK)
		strbuf_append(sb, ": no boots (a verdict given by hand)");
	else
		strbuf_appendf(sb, ": %s", bisect_outcome_name(s->outcome));
	strbuf_appendf(sb, "; %s\n", s->reason);
	strbuf_appendf(sb, "bisect %s%s %s", kind, bisect_mark_name(s->verdict), sha);
	step_fields(sb, s);
	strbuf_append(sb, "\n");
}

int bisect_log_format(const struct bisect *b, char **out)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	const struct bisect_commit *g = &b->commits[0], *e = &b->commits[b->n - 1];
	char t[32];

	strbuf_appendf(&sb, "# numalab bisect log (%s): replayed with the same commits, it "
		       "resumes the bisection\n", BISECT_SCHEMA);
	strbuf_appendf(&sb, "# %zu commits, good end [%s] %s, bad end [%s] %s\n", b->n, g->sha,
		       g->subject, e->sha, e->subject);
	strbuf_appendf(&sb, "bisect start %s %s threshold_pct=%s max_tries=%u revert=%d\n",
		       g->sha, e->sha, num_text(b->cfg.threshold_pct, t), b->cfg.max_tries,
		       b->cfg.check_revert);
	for (size_t i = 0; i < b->n_steps; i++) {
		const struct bisect_step *s = &b->steps[i];
		int last_search = s->phase != BISECT_PHASE_VERIFY &&
				  (i + 1 == b->n_steps || s[1].phase == BISECT_PHASE_VERIFY);

		step_lines(&sb, b, s);
		if (last_search && b->result.culprit != BISECT_NONE)
			strbuf_appendf(&sb, "# first bad commit: [%s] %s\n",
				       b->commits[b->result.culprit].sha,
				       b->commits[b->result.culprit].subject);
	}
	if (b->phase == BISECT_PHASE_DONE)
		strbuf_appendf(&sb, "# %s: %s\n", bisect_answer_name(b->result.answer),
			       b->result.reason);
	return strbuf_take(&sb, out);
}

/* ---- reading ------------------------------------------------------------------------------ */

struct words {
	char *w[MAX_WORDS];
	int n;
};

static int split(char *line, struct words *w, struct lab_error *err)
{
	char *save = NULL;

	w->n = 0;
	for (char *t = strtok_r(line, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		if (w->n == MAX_WORDS)
			return error_set(err, "", "more than %d words", MAX_WORDS);
		w->w[w->n++] = t;
	}
	return 0;
}

static int num_parse(const char *key, const char *s, double *v, struct lab_error *err)
{
	char *end;

	*v = strtod(s, &end);
	if (!*s || *end || isnan(*v))
		return error_set(err, "", "%s: not a number: \"%.40s\"", key, s);
	return 0;
}

static int size_parse(const char *key, const char *s, size_t max, size_t *v,
		      struct lab_error *err)
{
	char *end;
	unsigned long long x;

	x = strtoull(s, &end, 10);
	if (!*s || *end || *s == '-' || x > max)
		return error_set(err, "", "%s: not a whole number 0 to %zu: \"%.40s\"", key, max, s);
	*v = (size_t)x;
	return 0;
}

static int samples_parse(char *s, double *out, size_t *n, struct lab_error *err)
{
	char *save = NULL;

	*n = 0;
	for (char *t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (*n == BISECT_MAX_BOOTS)
			return error_set(err, "", "samples: more than %d values", BISECT_MAX_BOOTS);
		if (num_parse("samples", t, &out[(*n)++], err) < 0)
			return -EINVAL;
	}
	return 0;
}

static const char *outcome_at(unsigned i)
{
	return bisect_outcome_name(i);
}
static const char *class_at(unsigned i)
{
	return bisect_class_name(i);
}
static const char *mark_at(unsigned i)
{
	return bisect_mark_name(i);
}

/* The enum value named s (names end where name() says "?"), or -1. */
static int name_find(const char *(*name)(unsigned), const char *s)
{
	for (unsigned i = 0; strcmp(name(i), "?"); i++)
		if (!strcmp(name(i), s))
			return (int)i;
	return -1;
}

/* A measurement as a log line carries it; samples[] has room for BISECT_MAX_BOOTS. */
struct parsed {
	struct bisect_measure m;
	double *samples;
	size_t n_samples;
	unsigned seen;     /* bit per key: each at most once */
};

enum key { K_OUTCOME, K_CLASS, K_N, K_MEAN, K_CI_LO, K_CI_HI, K_CHANGE, K_SAMPLES, K_KERNEL,
	   K_TEXT, K_TEXT_IDENTICAL, K__COUNT };
static const char *const keys[K__COUNT] = {
	[K_OUTCOME] = "outcome", [K_CLASS] = "class", [K_N] = "n", [K_MEAN] = "mean",
	[K_CI_LO] = "ci_lo", [K_CI_HI] = "ci_hi", [K_CHANGE] = "change_pct",
	[K_SAMPLES] = "samples", [K_KERNEL] = "kernel_key", [K_TEXT] = "text_sha256",
	[K_TEXT_IDENTICAL] = "text_identical",
};

static int hash_parse(const char *key, const char *v, const char **out, struct lab_error *err)
{
	size_t n = strspn(v, "0123456789abcdef");

	if (v[n] || !n || n > 64)
		return error_set(err, "", "%s: not a hash (1 to 64 hex digits): \"%.40s\"", key, v);
	*out = v;
	return 0;
}

static int enum_parse(const char *key, const char *(*name)(unsigned), const char *v, int *out,
		      struct lab_error *err)
{
	*out = name_find(name, v);
	return *out < 0 ? error_set(err, "", "%s: unknown \"%.40s\"", key, v) : 0;
}

static int field_value(struct parsed *p, enum key k, const char *key, char *v,
		       struct lab_error *err)
{
	size_t flag = 0;
	int x, r;

	switch (k) {
	case K_OUTCOME:
		r = enum_parse(key, outcome_at, v, &x, err);
		p->m.outcome = (enum bisect_outcome)x;
		return r;
	case K_CLASS:
		r = enum_parse(key, class_at, v, &x, err);
		p->m.class = (enum bisect_class)x;
		return r;
	case K_N:
		return size_parse(key, v, BISECT_MAX_BOOTS, &p->m.n, err);
	case K_MEAN:
		return num_parse(key, v, &p->m.mean, err);
	case K_CI_LO:
		return num_parse(key, v, &p->m.ci_lo, err);
	case K_CI_HI:
		return num_parse(key, v, &p->m.ci_hi, err);
	case K_CHANGE:
		return num_parse(key, v, &p->m.change_pct, err);
	case K_SAMPLES:
		return samples_parse(v, p->samples, &p->n_samples, err);
	case K_KERNEL:
		return hash_parse(key, v, &p->m.kernel_key, err);
	case K_TEXT:
		return hash_parse(key, v, &p->m.text_sha256, err);
	default:
		r = size_parse(key, v, 1, &flag, err);
		p->m.text_identical = (int)flag;
		return r;
	}
}

/* One "key=value" word; each key at most once. */
static int field_parse(struct parsed *p, char *word, struct lab_error *err)
{
	char *v = strchr(word, '=');
	unsigned k = 0;

	if (v)
		for (*v++ = '\0'; k < K__COUNT && strcmp(keys[k], word); k++)
			;
	if (!v || k == K__COUNT)
		return error_set(err, "", "unknown field \"%.40s\"", word);
	if (p->seen & (1u << k))
		return error_set(err, "", "%s given twice", word);
	p->seen |= 1u << k;
	return field_value(p, (enum key)k, word, v, err);
}

/* The log's "bisect start": the same ends and config as b, or the log is another bisection. */
static int replay_start(struct bisect *b, const struct words *w, struct lab_error *err)
{
	const char *good = b->commits[0].sha, *bad = b->commits[b->n - 1].sha;
	double threshold = NAN;
	size_t tries = 0, revert = 2;

	if (w->n != 7)
		return error_set(err, "", "expected \"bisect start GOOD BAD threshold_pct=X "
				 "max_tries=N revert=0|1\"");
	if (strcmp(w->w[2], good) || strcmp(w->w[3], bad))
		return error_set(err, "", "the log is for %.12s..%.12s, this bisection is for "
				 "%.12s..%.12s", w->w[2], w->w[3], good, bad);
	if (strncmp(w->w[4], "threshold_pct=", 14) || strncmp(w->w[5], "max_tries=", 10) ||
	    strncmp(w->w[6], "revert=", 7) ||
	    num_parse("threshold_pct", w->w[4] + 14, &threshold, err) < 0 ||
	    size_parse("max_tries", w->w[5] + 10, BISECT_MAX_TRIES, &tries, err) < 0 ||
	    size_parse("revert", w->w[6] + 7, 1, &revert, err) < 0)
		return error_set(err, "", "expected \"bisect start GOOD BAD threshold_pct=X "
				 "max_tries=N revert=0|1\"");
	if (threshold != b->cfg.threshold_pct || tries != b->cfg.max_tries ||
	    (int)revert != b->cfg.check_revert)
		return error_set(err, "", "the log was started with threshold_pct=%g max_tries=%zu "
				 "revert=%zu, this bisection has %g, %u, %d", threshold, tries,
				 revert, b->cfg.threshold_pct, b->cfg.max_tries,
				 b->cfg.check_revert);
	return 0;
}

/* Whether a line of this kind ("", "verify", "revert") can come now. */
static int kind_check(const struct bisect *b, const char *kind, size_t commit,
		      struct lab_error *err)
{
	static const char *const why[] = {
		[BISECT_ROLE_PARENT] = "the culprit's parent is measured again next",
		[BISECT_ROLE_CULPRIT] = "the culprit is measured again next",
		[BISECT_ROLE_REVERT] = "the bad end with the culprit reverted is measured next",
	};
	int verifying = b->phase == BISECT_PHASE_VERIFY;
	const char *want = !verifying ? "" : b->vrole == BISECT_ROLE_REVERT ? "revert" : "verify";

	if (b->phase == BISECT_PHASE_DONE)
		return error_set(err, "", "the bisection is over (%s) before this line",
				 bisect_answer_name(b->result.answer));
	if (strcmp(kind, want))
		return error_set(err, "", "expected \"bisect %s%sVERDICT SHA ...\" here: %s", want,
				 verifying ? " " : "",
				 verifying ? why[b->vrole] : "no culprit to verify yet");
	if (!strcmp(kind, "revert") && commit != b->result.culprit)
		return error_set(err, "", "the revert line names %.12s, the culprit is %.12s",
				 b->commits[commit].sha, b->commits[b->result.culprit].sha);
	return 0;
}

static int replay_step(struct bisect *b, const struct words *w, double *samples,
		       struct lab_error *err)
{
	int k = !strcmp(w->w[1], "verify") || !strcmp(w->w[1], "revert") ? 2 : 1, v;
	const char *kind = k == 2 ? w->w[1] : "";
	struct parsed p = {.samples = samples};
	size_t idx;
	int r;

	v = k < w->n ? name_find(mark_at, w->w[k]) : -1;
	if (v <= BISECT_UNTESTED)
		return error_set(err, "", "expected \"bisect [verify|revert] good|bad|skip|"
				 "inconclusive SHA key=value...\", not \"%.40s\"",
				 k < w->n ? w->w[k] : w->w[w->n - 1]);
	idx = k + 1 < w->n ? bisect_find(b, w->w[k + 1]) : BISECT_NONE;
	if (idx == BISECT_NONE)
		return error_set(err, "", "unknown commit \"%.64s\": not between the ends",
				 k + 1 < w->n ? w->w[k + 1] : "");
	r = kind_check(b, kind, idx, err);
	if (r < 0)
		return r;
	p.m = (struct bisect_measure){
		.commit = !strcmp(kind, "revert") ? b->n - 1 : idx,
		.class = v == BISECT_GOOD ? BISECT_CLASS_GOOD
			 : v == BISECT_BAD ? BISECT_CLASS_BAD : BISECT_CLASS_INCONCLUSIVE,
		.mean = NAN, .ci_lo = NAN, .ci_hi = NAN, .change_pct = NAN};
	for (int i = k + 2; i < w->n; i++)
		if (field_parse(&p, w->w[i], err) < 0)
			return -EINVAL;
	if (p.n_samples && p.n_samples != p.m.n)
		return error_set(err, "", "samples: %zu values, but n=%zu", p.n_samples, p.m.n);
	p.m.samples = p.n_samples ? p.samples : NULL;
	r = bisect_record(b, &p.m, err);
	if (r < 0)
		return r;
	if (b->steps[b->n_steps - 1].verdict != (enum bisect_mark)v)
		return error_set(err, "", "the log says %s, the bisection makes it %s (try %u, "
				 "max_tries=%u)", w->w[k],
				 bisect_mark_name(b->steps[b->n_steps - 1].verdict),
				 b->steps[b->n_steps - 1].try, b->cfg.max_tries);
	return 0;
}

/* One line, NUL-terminated: a comment, blank, "bisect start" once and first, or a step. */
static int replay_line(struct bisect *b, char *line, int *started, double *samples,
		       struct lab_error *err)
{
	const char *p = line + strspn(line, " \t");
	struct words w;

	if (!*p || *p == '#')
		return 0;
	if (split(line, &w, err) < 0)
		return -EINVAL;
	if (strcmp(w.w[0], "bisect") || w.n < 2)
		return error_set(err, "", "expected a \"bisect ...\" line or a \"#\" comment");
	if (!strcmp(w.w[1], "start")) {
		if (*started)
			return error_set(err, "", "a second \"bisect start\"");
		*started = 1;
		return replay_start(b, &w, err);
	}
	if (!*started)
		return error_set(err, "", "expected \"bisect start GOOD BAD ...\" first");
	return replay_step(b, &w, samples, err);
}

int bisect_log_replay(struct bisect *b, const char *text, size_t len, struct lab_error *err)
{
	_cleanup_free_ char *line = malloc(BISECT_LOG_LINE_MAX + 1);
	_cleanup_free_ double *samples = malloc(BISECT_MAX_BOOTS * sizeof(*samples));
	struct lab_error e = {0};
	unsigned no = 0;
	int started = 0;

	if (len > BISECT_LOG_MAX) {
		error_set(err, "", "the log is larger than %u bytes", BISECT_LOG_MAX);
		return -EFBIG;
	}
	if (b->n_steps || b->phase != BISECT_PHASE_ENDS)
		return error_set(err, "", "a log replays into a fresh bisection only");
	if (!line || !samples)
		return -ENOMEM;
	for (size_t off = 0; off < len;) {
		const char *p = text + off, *nl = memchr(p, '\n', len - off);
		size_t l = nl ? (size_t)(nl - p) : len - off;
		int r = 0;

		off += l + !!nl;
		no++;
		if (l && p[l - 1] == '\r')
			l--;
		if (l > BISECT_LOG_LINE_MAX)
			r = error_set(&e, "", "longer than %d bytes", BISECT_LOG_LINE_MAX);
		else if (memchr(p, '\0', l))
			r = error_set(&e, "", "a NUL byte");
		if (r == 0) {
			memcpy(line, p, l);
			line[l] = '\0';
			r = replay_line(b, line, &started, samples, &e);
		}
		if (r < 0) {
			error_set(err, "", "line %u: %s", no, e.msg);
			return r;
		}
	}
	return started ? 0 : error_set(err, "", "no \"bisect start\" line");
}
