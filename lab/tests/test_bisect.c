/* core/bisect: the decision engine of `lab bisect`, against an oracle that plays the caller.
 *  - lab/tests/data/bisect/NAME.json: a planted bisection (how many commits, the culprit, the
 *    commits that do not build or boot, the noisy ones, what verifying measures) and what must
 *    come of it: every step in order ("good 3", "verify bad 5", "revert good") and the answer.
 *    Each is also replayed from its log, whole and cut after every step (resume), and with
 *    "golden": ["log", "json"] those outputs are compared with lab/tests/golden/bisect-NAME.*
 *    (UPDATE_GOLDEN=1 rewrites them).
 *  - lab/tests/data/bisect/bad-logs/NAME.log: a log that must not replay, NAME.expected its
 *    error line; they run against 8 commits, threshold 2 %, max_tries 3, the revert checked.
 *  - in code: the planted culprit at every position of 8, 12 and 16 commits, alone and with a
 *    broken commit beside it; errors of bisect_init() and bisect_record(). */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "core/bisect.h"
#include "testutil.h"
#include "util/strbuf.h"

#define DATA "lab/tests/data/bisect"
#define MAXN 64

/* The oracle's kernel tree: commit i's name is 20 times the hex byte 0xc0 + i. */
struct world {
	size_t n, culprit;               /* culprit BISECT_NONE: no regression planted */
	enum bisect_outcome broken[MAXN];
	unsigned noisy[MAXN];            /* the first measurements of commit i that are
					  * inconclusive */
	int verify_parent, verify_culprit; /* a class forced on re-measuring; -1 none */
	int text_identical;
	int revert;                      /* a class, or -1 - outcome (no-revert, failures) */
	struct bisect_config cfg;
};

struct commits {
	char sha[MAXN][41], subject[MAXN][32];
	struct bisect_commit_in in[MAXN];
};

static void commits_make(struct commits *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (int k = 0; k < 20; k++)
			snprintf(c->sha[i] + 2 * k, 3, "%02x", (unsigned)(0xc0 + i));
		snprintf(c->subject[i], sizeof(c->subject[i]), "commit %zu", i);
		c->in[i] = (struct bisect_commit_in){c->sha[i], c->subject[i]};
	}
}

static int world_init(struct bisect *b, const struct world *w, struct commits *c)
{
	struct lab_error err = {0};
	int r;

	commits_make(c, w->n);
	r = bisect_init(b, c->in, w->n, &w->cfg, &err);
	if (r < 0)
		printf("# bisect_init: %s: %s\n", err.path, err.msg);
	return r;
}

/* Measurements of commit i so far, in any role but the revert (another kernel). */
static unsigned measured(const struct bisect *b, size_t i)
{
	unsigned k = 0;

	for (size_t s = 0; s < b->n_steps; s++)
		k += b->steps[s].commit == i && b->steps[s].role != BISECT_ROLE_REVERT;
	return k;
}

/* What the caller would hand over for nx: a pure function of the world and the steps so far,
 * so that a bisection resumed from its log goes on as the uninterrupted one. */
static void measure(const struct world *w, const struct bisect *b, const struct bisect_next *nx,
		    struct bisect_measure *m, double samples[3])
{
	static const double mean[] = {100, 105, 102.5}, half[] = {0.5, 0.5, 2.5};
	size_t i = nx->commit;
	int cls = w->culprit != BISECT_NONE && i >= w->culprit;

	if (nx->role == BISECT_ROLE_PARENT && w->verify_parent >= 0)
		cls = w->verify_parent;
	if (nx->role == BISECT_ROLE_CULPRIT && w->verify_culprit >= 0)
		cls = w->verify_culprit;
	if (nx->role == BISECT_ROLE_REVERT)
		cls = w->revert;
	else if (measured(b, i) < w->noisy[i])
		cls = BISECT_CLASS_INCONCLUSIVE;
	*m = (struct bisect_measure){.commit = i, .n = 3, .class = (enum bisect_class)cls,
				     .samples = samples, .kernel_key = b->commits[i].sha,
				     .text_sha256 = b->commits[i].sha};
	if (nx->role == BISECT_ROLE_REVERT && w->revert < 0)
		m->outcome = (enum bisect_outcome)(-1 - w->revert);
	else if (nx->role != BISECT_ROLE_REVERT)
		m->outcome = w->broken[i];
	if (m->outcome != BISECT_OUTCOME_OK) {
		*m = (struct bisect_measure){.commit = i, .outcome = m->outcome, .mean = NAN,
					     .ci_lo = NAN, .ci_hi = NAN, .change_pct = NAN};
		return;
	}
	m->mean = mean[cls];
	m->ci_lo = mean[cls] - half[cls];
	m->ci_hi = mean[cls] + half[cls];
	m->change_pct = mean[cls] - 100;
	samples[0] = m->ci_lo;
	samples[1] = m->mean;
	samples[2] = m->ci_hi;
	if (nx->role == BISECT_ROLE_CULPRIT && w->text_identical) {
		m->text_identical = 1;
		m->text_sha256 = b->commits[i - 1].sha;
	}
}

/* "verify good 4" */
static void step_text(struct strbuf *sb, const struct bisect_step *s)
{
	const char *kind = s->phase != BISECT_PHASE_VERIFY ? ""
			   : s->role == BISECT_ROLE_REVERT ? "revert " : "verify ";

	strbuf_appendf(sb, "%s%s%s", sb->len ? ", " : "", kind, bisect_mark_name(s->verdict));
	if (s->role != BISECT_ROLE_REVERT)
		strbuf_appendf(sb, " %zu", s->commit);
}

/* Play the caller until the bisection is over; -1 when the engine refused a measurement.
 * *search: commits measured before the culprit was known (the ends and the bisection). */
static int simulate(struct bisect *b, const struct world *w, unsigned *search)
{
	struct bisect_next nx;
	struct bisect_measure m;
	struct lab_error err = {0};
	double samples[3];

	for (bisect_next(b, &nx); nx.phase != BISECT_PHASE_DONE; bisect_next(b, &nx)) {
		if (search && nx.phase != BISECT_PHASE_VERIFY)
			++*search;
		measure(w, b, &nx, &m, samples);
		if (bisect_record(b, &m, &err) < 0) {
			printf("# bisect_record: %s: %s\n", err.path, err.msg);
			return -1;
		}
	}
	return 0;
}

static char *steps_text(const struct bisect *b)
{
	struct strbuf sb = STRBUF_INIT;
	char *s = NULL;

	for (size_t i = 0; i < b->n_steps; i++)
		step_text(&sb, &b->steps[i]);
	return strbuf_take(&sb, &s) < 0 ? NULL : s;
}

static char *json_text(const struct bisect *b)
{
	_cleanup_json_ json_t *j = NULL;

	return bisect_to_json(b, &j) < 0 ? NULL : jsonio_dumps(j);
}

/* ---- the scenarios ----------------------------------------------------------------------- */

static int class_parse(const json_t *v)
{
	const char *s = json_string_value(v);

	for (int i = BISECT_CLASS_GOOD; s && i <= BISECT_CLASS_INCONCLUSIVE; i++)
		if (!strcmp(s, bisect_class_name((enum bisect_class)i)))
			return i;
	return -1;
}

/* "revert": a class, or an outcome (no-revert, build-failure, boot-failure) as -1 - outcome. */
static int revert_parse(const json_t *v)
{
	const char *s = json_string_value(v);

	for (int o = BISECT_OUTCOME_BUILD_FAILURE; s && o <= BISECT_OUTCOME_NO_REVERT; o++)
		if (!strcmp(s, bisect_outcome_name((enum bisect_outcome)o)))
			return -1 - o;
	return class_parse(v);
}

/* Each index in the list at key: broken[i] = o, or noisy[i]++ when noisy. */
static int indexes(const json_t *c, const char *key, struct world *w, enum bisect_outcome o,
		   int noisy)
{
	size_t k;
	json_t *v;

	json_array_foreach(json_object_get(c, key), k, v) {
		json_int_t i = json_integer_value(v);

		if (!json_is_integer(v) || i < 0 || (size_t)i >= w->n)
			return -1;
		if (noisy)
			w->noisy[i]++;
		else
			w->broken[i] = o;
	}
	return 0;
}

static int world_parse(const json_t *c, struct world *w)
{
	const json_t *cul = json_object_get(c, "culprit"), *ver = json_object_get(c, "verify");

	*w = (struct world){.n = (size_t)json_integer_value(json_object_get(c, "commits")),
			    .culprit = json_is_integer(cul) ? (size_t)json_integer_value(cul)
							    : BISECT_NONE,
			    .text_identical = json_is_true(json_object_get(c, "text_identical")),
			    .verify_parent = class_parse(json_object_get(ver, "parent")),
			    .verify_culprit = class_parse(json_object_get(ver, "culprit")),
			    .revert = revert_parse(json_object_get(c, "revert")),
			    .cfg = {.threshold_pct = 2, .check_revert = !!json_object_get(c, "revert"),
				    .max_tries = (unsigned)json_integer_value(
					    json_object_get(c, "max_tries"))}};
	if (w->n < 2 || w->n > MAXN || (w->cfg.check_revert && w->revert == -1))
		return -1;
	if (indexes(c, "build_failure", w, BISECT_OUTCOME_BUILD_FAILURE, 0) < 0 ||
	    indexes(c, "boot_failure", w, BISECT_OUTCOME_BOOT_FAILURE, 0) < 0)
		return -1;
	return indexes(c, "noisy", w, BISECT_OUTCOME_OK, 1);
}

/* The index an expectation names (null or absent: BISECT_NONE). */
static size_t want_index(const json_t *v)
{
	return json_is_integer(v) ? (size_t)json_integer_value(v) : BISECT_NONE;
}

static void check_answer(const char *name, const struct bisect *b, const json_t *want)
{
	const struct bisect_result *res = &b->result;
	const json_t *range = json_object_get(want, "range");
	const char *answer = json_string_value(json_object_get(want, "answer")),
		   *revert = json_string_value(json_object_get(want, "revert"));
	int ok = answer && !strcmp(answer, bisect_answer_name(res->answer)) &&
		 res->culprit == want_index(json_object_get(want, "culprit")) &&
		 (!revert || !strcmp(revert, bisect_revert_name(res->revert)));

	if (range)
		ok = ok && res->first == want_index(json_array_get(range, 0)) &&
		     res->last == want_index(json_array_get(range, 1));
	if (!tap_ok(ok, "%s: %s", name, answer ? answer : "(no answer expected)"))
		printf("# got %s, culprit %zd, range %zd..%zd, revert %s: %s\n",
		       bisect_answer_name(res->answer), (ssize_t)res->culprit, (ssize_t)res->first,
		       (ssize_t)res->last, bisect_revert_name(res->revert), res->reason);
}

static void check_steps(const char *name, const struct bisect *b, const json_t *want)
{
	_cleanup_free_ char *got = steps_text(b), *joined = NULL;
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	json_t *v;

	json_array_foreach(want, i, v)
		strbuf_appendf(&sb, "%s%s", i ? ", " : "", json_string_value(v));
	if (strbuf_take(&sb, &joined) < 0 || !got) {
		tap_ok(0, "%s: steps: out of memory", name);
		return;
	}
	if (!tap_ok(!strcmp(got, joined), "%s: steps %s", name, joined))
		printf("# got steps %s\n", got);
}

/* The log's length up to and including its k-th step line: where an interruption after k
 * steps leaves it. */
static size_t log_cut(const char *log, size_t k)
{
	const char *p = log;

	for (size_t seen = 0; *p; p = strchr(p, '\n') + 1) {
		int step = !strncmp(p, "bisect ", 7) && strncmp(p, "bisect start ", 13);

		if (step && seen++ == k)
			break;
	}
	return (size_t)(p - log);
}

/* Replay done's log cut after every step, go on from there, and come to the same log and JSON
 * as without the interruption. */
static void check_resume(const char *name, const struct world *w, const struct bisect *done)
{
	_cleanup_free_ char *log = NULL, *json = json_text(done);
	size_t bad = BISECT_NONE;
	struct commits c;

	if (bisect_log_format(done, &log) < 0 || !json) {
		tap_ok(0, "%s: log and JSON: out of memory", name);
		return;
	}
	for (size_t k = 0; k <= done->n_steps && bad == BISECT_NONE; k++) {
		_cleanup_bisect_ struct bisect b = {0};
		_cleanup_free_ char *log2 = NULL, *json2 = NULL;
		struct lab_error err = {0};

		if (world_init(&b, w, &c) < 0 ||
		    bisect_log_replay(&b, log, log_cut(log, k), &err) < 0 ||
		    simulate(&b, w, NULL) < 0 || bisect_log_format(&b, &log2) < 0 ||
		    !(json2 = json_text(&b)) || strcmp(log, log2) || strcmp(json, json2)) {
			printf("# resumed after %zu steps: %s\n", k, err.msg);
			bad = k;
		}
	}
	tap_ok(bad == BISECT_NONE, "%s: replayed whole and resumed after each of %zu steps: the "
	       "same log and JSON", name, done->n_steps);
}

/* "golden": ["log", "json"]: which of the outputs lab/tests/golden/bisect-NAME.* holds. */
static void check_golden(const char *name, const struct bisect *b, const json_t *which)
{
	size_t i;
	json_t *v;

	json_array_foreach(which, i, v) {
		_cleanup_free_ char *file = NULL, *got = NULL;
		int is_log = !strcmp(json_string_value(v), "log");

		if (asprintf(&file, "bisect-%s.%s", name, is_log ? "log" : "json") < 0)
			return;
		if (!is_log)
			got = json_text(b);
		else if (bisect_log_format(b, &got) < 0)
			got = NULL;
		testutil_golden(file, got);
	}
}

static void run_scenario(const char *dir, const char *file)
{
	_cleanup_free_ char *path = fs_join(dir, file), *name = strdup(file);
	_cleanup_json_ json_t *c = NULL;
	_cleanup_bisect_ struct bisect b = {0};
	const json_t *want;
	struct lab_error err = {0};
	struct commits cm;
	struct world w;

	if (!path || !name || jsonio_load_file(path, TESTUTIL_MAX_FILE, &c, &err) < 0 ||
	    world_parse(c, &w) < 0) {
		tap_ok(0, "%s: load: %s", file, err.msg);
		return;
	}
	name[strlen(name) - 5] = '\0';
	want = json_object_get(c, "expect");
	if (!tap_ok(world_init(&b, &w, &cm) == 0 && simulate(&b, &w, NULL) == 0,
		    "%s: the bisection runs to its end", name))
		return;
	check_steps(name, &b, json_object_get(want, "steps"));
	check_answer(name, &b, want);
	check_resume(name, &w, &b);
	check_golden(name, &b, json_object_get(c, "golden"));
}

/* ---- the planted culprit at every position ------------------------------------------------ */

/* One bisection of n commits with the culprit at c and, unless BISECT_NONE, commit broken not
 * building; 1 when it answers as it must: found c, or the range broken..c when broken is c's
 * parent.  *search: commits measured before the culprit was known. */
static int sweep_one(size_t n, size_t c, size_t broken, unsigned *search)
{
	_cleanup_bisect_ struct bisect b = {0};
	struct world w = {.n = n, .culprit = c, .verify_parent = -1, .verify_culprit = -1,
			  .revert = BISECT_CLASS_GOOD,
			  .cfg = {.threshold_pct = 2, .check_revert = 1}};
	struct commits cm;

	if (broken != BISECT_NONE)
		w.broken[broken] = BISECT_OUTCOME_BUILD_FAILURE;
	*search = 0;
	if (world_init(&b, &w, &cm) < 0 || simulate(&b, &w, search) < 0)
		return 0;
	if (broken != BISECT_NONE && broken + 1 == c)
		return b.result.answer == BISECT_ANSWER_RANGE && b.result.first == broken &&
		       b.result.last == c;
	return b.result.answer == BISECT_ANSWER_FOUND && b.result.culprit == c &&
	       b.result.revert == BISECT_REVERT_GOOD;
}

static void test_sweep(void)
{
	static const size_t sizes[] = {8, 12, 16};

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k], wrong = 0, wrong_broken = 0;
		unsigned most = 0, search;
		double bound = log2((double)n) + 3;

		for (size_t c = 1; c < n; c++) {
			if (!sweep_one(n, c, BISECT_NONE, &search) || search > bound)
				wrong++;
			most = search > most ? search : most;
			if (c + 1 < n - 1 && !sweep_one(n, c, c + 1, &search))
				wrong_broken++;
			if (c > 1 && !sweep_one(n, c, c - 1, &search))
				wrong_broken++;
		}
		tap_ok(!wrong, "%zu commits: the culprit found at each of its %zu positions, at most "
		       "%u commits measured before verifying (log2(N) + 3 = %.2f)", n, n - 1, most,
		       bound);
		tap_ok(!wrong_broken, "%zu commits: a commit beside the culprit does not build: "
		       "found after it, the range of two before it", n);
	}
}

/* ---- errors -------------------------------------------------------------------------------- */

static void expect_error(const char *what, int r, int want_r, const struct lab_error *err,
			 const char *want)
{
	if (!tap_ok(r == want_r && strstr(err->msg, want), "%s: %s", what, want))
		printf("# got r=%d: %s: %s\n", r, err->path, err->msg);
}

static void test_init_errors(void)
{
	struct bisect_config cfg = {.threshold_pct = 2};
	struct lab_error err = {0};
	struct bisect b;
	struct commits c;
	int r;

	commits_make(&c, 4);
	r = bisect_init(&b, c.in, 1, &cfg, &err);
	expect_error("init", r, -EINVAL, &err, "at least 2 commits (the good and the bad end), "
		     "got 1");
	c.in[2].sha = c.sha[0];
	r = bisect_init(&b, c.in, 4, &cfg, &err);
	expect_error("init", r, -EINVAL, &err, "commit c0c0c0c0c0c0 is given twice (0 and 2)");
	c.in[2].sha = "C2C2C2C2C2C2C2C2C2C2C2C2C2C2C2C2C2C2C2C2";
	r = bisect_init(&b, c.in, 4, &cfg, &err);
	expect_error("init", r, -EINVAL, &err, "not a full commit name");
	tap_ok(!strcmp(err.path, "commits[2]"), "init: the error names commits[2] (%s)", err.path);
	c.in[2].sha = "c2c2c2c2";
	r = bisect_init(&b, c.in, 4, &cfg, &err);
	expect_error("init", r, -EINVAL, &err, "not a full commit name");
	commits_make(&c, 4);
	cfg.max_tries = BISECT_MAX_TRIES + 1;
	r = bisect_init(&b, c.in, 4, &cfg, &err);
	expect_error("init", r, -EINVAL, &err, "must be 1 to 20");
	cfg = (struct bisect_config){.threshold_pct = NAN};
	r = bisect_init(&b, c.in, 4, &cfg, &err);
	expect_error("init", r, -EINVAL, &err, "must be a finite number");
}

static void test_subject(void)
{
	_cleanup_bisect_ struct bisect b = {0};
	char long_subject[400], bad[] = "caf\xe9\tlatin-1";
	struct commits c;
	int ok;

	commits_make(&c, 2);
	memset(long_subject, 'x', sizeof(long_subject));
	memcpy(long_subject + BISECT_SUBJECT_MAX - 1, "\xc3\xa9", 2); /* an é across the cut */
	long_subject[sizeof(long_subject) - 1] = '\0';
	c.in[0].subject = long_subject;
	c.in[1].subject = bad;
	ok = bisect_init(&b, c.in, 2, NULL, NULL) == 0;
	tap_ok(ok && strlen(b.commits[0].subject) == BISECT_SUBJECT_MAX - 1,
	       "subject: cut before a character the limit would split");
	tap_ok(ok && !strcmp(b.commits[1].subject, "caf? latin-1"),
	       "subject: control characters and bytes that are not UTF-8 replaced (%s)",
	       ok ? b.commits[1].subject : "");
	tap_ok(ok && b.cfg.max_tries == BISECT_DEFAULT_TRIES && bisect_find(&b, c.sha[1]) == 1 &&
	       bisect_find(&b, "c1") == BISECT_NONE,
	       "defaults: max_tries %d; commits found by their full name only",
	       BISECT_DEFAULT_TRIES);
}

/* A measurement by hand: outcome ok, no boots. */
static struct bisect_measure hand(size_t commit, enum bisect_class cls)
{
	return (struct bisect_measure){.commit = commit, .class = cls, .mean = NAN,
				       .ci_lo = NAN, .ci_hi = NAN, .change_pct = NAN};
}

static int mark(struct bisect *b, size_t commit, enum bisect_class cls, struct lab_error *err)
{
	struct bisect_measure m = hand(commit, cls);

	return bisect_record(b, &m, err);
}

static void test_record_errors(void)
{
	_cleanup_bisect_ struct bisect b = {0};
	struct bisect_config cfg = {.threshold_pct = 2};
	struct bisect_measure m;
	struct lab_error err = {0};
	struct bisect_next nx;
	struct commits c;
	int r;

	commits_make(&c, 8);
	if (!tap_ok(bisect_init(&b, c.in, 8, &cfg, &err) == 0, "record: init"))
		return;
	bisect_next(&b, &nx);
	tap_ok(nx.phase == BISECT_PHASE_ENDS && nx.role == BISECT_ROLE_GOOD_END && nx.commit == 0,
	       "record: the good end is measured first");
	r = bisect_record(&b, &(struct bisect_measure){.commit = 7, .class = BISECT_CLASS_BAD},
			  &err);
	expect_error("record", r, -EINVAL, &err, "the ends are measured first: expected the good "
		     "end c0c0c0c0c0c0, not c7c7c7c7c7c7");
	r = bisect_record(&b, &(struct bisect_measure){.commit = 0, .class = BISECT_CLASS_BAD},
			  &err);
	expect_error("record", r, -EINVAL, &err, "the good end c0c0c0c0c0c0 is the reference: "
		     "good, not bad");
	m = hand(0, BISECT_CLASS_GOOD);
	m.outcome = BISECT_OUTCOME_NO_REVERT;
	r = bisect_record(&b, &m, &err);
	expect_error("record", r, -EINVAL, &err, "no-revert is an outcome of the revert step only");
	m = hand(0, BISECT_CLASS_GOOD);
	m.kernel_key = "not-hex";
	r = bisect_record(&b, &m, &err);
	expect_error("record", r, -EINVAL, &err, "a hash is 1 to 64 lower-case hex digits");
	r = bisect_record(&b, &(struct bisect_measure){.commit = 9}, &err);
	expect_error("record", r, -EINVAL, &err, "no commit 9 (8 commits)");
	mark(&b, 0, BISECT_CLASS_GOOD, &err);
	mark(&b, 7, BISECT_CLASS_BAD, &err);
	bisect_next(&b, &nx);
	tap_ok(nx.phase == BISECT_PHASE_BISECT && nx.commit == 3 && nx.left == 6 && nx.steps == 3,
	       "record: then the midpoint 3 of 6 commits left, about 3 steps (%zu, %zu, %u)",
	       nx.commit, nx.left, nx.steps);
	/* Marks by hand, as `git bisect good|bad SHA` may name any commit. */
	tap_ok(mark(&b, 5, BISECT_CLASS_BAD, &err) == 0,
	       "record: any commit between the ends may be marked");
	r = mark(&b, 5, BISECT_CLASS_GOOD, &err);
	expect_error("record", r, -EINVAL, &err, "commit c5c5c5c5c5c5 is bad already, now good");
	r = mark(&b, 6, BISECT_CLASS_GOOD, &err);
	expect_error("record", r, -EINVAL, &err, "commit c6c6c6c6c6c6 is good but the older "
		     "c5c5c5c5c5c5 is bad");
	mark(&b, 2, BISECT_CLASS_GOOD, &err);
	r = mark(&b, 1, BISECT_CLASS_BAD, &err);
	expect_error("record", r, -EINVAL, &err, "commit c1c1c1c1c1c1 is bad but the newer "
		     "c2c2c2c2c2c2 is good");
}

/* Past BISECT_MAX_STEPS a record is refused and changes nothing. */
static void test_too_many_steps(void)
{
	_cleanup_bisect_ struct bisect b = {0};
	struct lab_error err = {0};
	struct commits c;
	int r = 0;

	commits_make(&c, 8);
	if (bisect_init(&b, c.in, 8, NULL, &err) < 0)
		return;
	mark(&b, 0, BISECT_CLASS_GOOD, &err);
	mark(&b, 7, BISECT_CLASS_BAD, &err);
	while (r == 0)
		r = mark(&b, 2, BISECT_CLASS_GOOD, &err);
	expect_error("record", r, -E2BIG, &err, "more than 10000 steps");
	tap_ok(b.n_steps == BISECT_MAX_STEPS && b.commits[2].tries == BISECT_MAX_STEPS - 2,
	       "record: the refused step left no trace");
}

/* Verdicts by hand, no numbers, as a person edits a log: the replay takes them and the
 * bisection goes on from there. */
static void test_hand_log(void)
{
	static const char log[] =
		"# marked by hand\n"
		"bisect start c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0 "
		"c7c7c7c7c7c7c7c7c7c7c7c7c7c7c7c7c7c7c7c7 threshold_pct=2 max_tries=3 revert=0\r\n"
		"bisect good c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0\n"
		"  bisect bad\tc7c7c7c7c7c7c7c7c7c7c7c7c7c7c7c7c7c7c7c7\n\n"
		"bisect skip c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3 outcome=build-failure\n"
		"bisect bad c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6c6";
	struct bisect_config cfg = {.threshold_pct = 2};
	_cleanup_bisect_ struct bisect b = {0};
	struct lab_error err = {0};
	struct bisect_next nx;
	struct commits c;
	int r;

	commits_make(&c, 8);
	if (bisect_init(&b, c.in, 8, &cfg, &err) < 0)
		return;
	r = bisect_log_replay(&b, log, strlen(log), &err);
	bisect_next(&b, &nx);
	if (!tap_ok(r == 0 && nx.phase == BISECT_PHASE_BISECT && nx.commit == 4 && nx.left == 4,
		    "hand-written log: replayed (CRLF, blanks, tabs, no last newline); the "
		    "midpoint 3 skipped, next its upper neighbour 4, 4 commits left"))
		printf("# r=%d %s; next %zu, %zu left\n", r, err.msg, nx.commit, nx.left);
}

/* Run a bad log against 8 commits; the error line. */
static void run_bad_log(const char *dir, const char *file)
{
	_cleanup_free_ char *path = fs_join(dir, file), *text = NULL, *expected = NULL,
			    *epath = NULL;
	_cleanup_bisect_ struct bisect b = {0};
	struct bisect_config cfg = {.threshold_pct = 2, .check_revert = 1};
	struct lab_error err = {0};
	struct commits c;
	size_t len = 0;
	int r;

	commits_make(&c, 8);
	if (!path || fs_read_file(path, TESTUTIL_MAX_FILE, &text, &len) < 0 ||
	    asprintf(&epath, "%.*s.expected", (int)(strlen(path) - 4), path) < 0 ||
	    fs_read_file(epath, TESTUTIL_MAX_FILE, &expected, NULL) < 0 ||
	    bisect_init(&b, c.in, 8, &cfg, &err) < 0) {
		tap_ok(0, "bad log %s: read it and its .expected", file);
		return;
	}
	testutil_chomp(expected);
	r = bisect_log_replay(&b, text, len, &err);
	if (!tap_ok(r == -EINVAL && !strcmp(err.msg, expected), "bad log %s: %s", file, expected))
		printf("# got r=%d: %s\n", r, err.msg);
}

static int log_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 4 && !strcmp(d->d_name + n - 4, ".log");
}

static void test_bad_logs(void)
{
	_cleanup_free_ char *dir = fs_join(testutil_root(), DATA "/bad-logs");
	struct dirent **ents = NULL;
	int n = dir ? scandir(dir, &ents, log_filter, alphasort) : -1;

	tap_ok(n > 0, "bad logs: cases found");
	for (int i = 0; i < n; i++) {
		run_bad_log(dir, ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
}

/* Limits that data files cannot show: size, NUL bytes, line length. */
static void test_log_limits(void)
{
	static const char start[] = "bisect start c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0 "
				    "c7c7c7c7c7c7c7c7c7c7c7c7c7c7c7c7c7c7c7c7 threshold_pct=2 "
				    "max_tries=3 revert=0\n";
	struct bisect_config cfg = {.threshold_pct = 2};
	_cleanup_free_ char *big = malloc(BISECT_LOG_LINE_MAX + 200);
	struct lab_error err = {0};
	struct commits c;
	char nul[sizeof(start) + 8];
	int r;

	commits_make(&c, 8);
	for (int k = 0; k < 3 && big; k++) {
		_cleanup_bisect_ struct bisect b = {0};

		if (bisect_init(&b, c.in, 8, &cfg, &err) < 0)
			break;
		if (k == 0) {
			r = bisect_log_replay(&b, start, BISECT_LOG_MAX + 1, &err);
			expect_error("log", r, -EFBIG, &err, "the log is larger than 8388608 bytes");
		} else if (k == 1) {
			memcpy(nul, start, sizeof(start) - 1);
			memcpy(nul + sizeof(start) - 1, "# a\0b\n", 6);
			r = bisect_log_replay(&b, nul, sizeof(start) - 1 + 6, &err);
			expect_error("log", r, -EINVAL, &err, "line 2: a NUL byte");
		} else {
			memset(big, '#', BISECT_LOG_LINE_MAX + 100);
			r = bisect_log_replay(&b, big, BISECT_LOG_LINE_MAX + 100, &err);
			expect_error("log", r, -EINVAL, &err, "line 1: longer than 32768 bytes");
		}
	}
}

int main(void)
{
	_cleanup_json_dir_ struct testutil_json_dir d;

	testutil_json_dir_open(&d, DATA);
	tap_ok(d.n > 0, "scenarios found");
	for (int i = 0; i < d.n; i++)
		run_scenario(d.dir, d.ents[i]->d_name);
	test_sweep();
	test_init_errors();
	test_subject();
	test_record_errors();
	test_too_many_steps();
	test_hand_log();
	test_bad_logs();
	test_log_limits();
	return tap_done();
}
