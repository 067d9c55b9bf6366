/* A finding as a mail: see mail.h.  The common parts (headers, the figure, why it moved, the
 * tags, the signature) are here; mail_bisect and mail_ab say what each finding adds. */
#include "analysis/mail.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "proto/workload.h"
#include "util/cleanup.h"
#include "util/mailfmt.h"
#include "util/sha256.h"
#include "util/strbuf.h"
#include "util/version.h"

#define COLS MAILFMT_COLS
/* Lines of a table that a mail shows at most: the rest is in the report. */
#define MAX_LINES 12

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static double num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* "+4.1%", "n/a" */
static const char *pct(char *buf, size_t len, double v)
{
	if (isfinite(v))
		snprintf(buf, len, "%+.1f%%", v);
	else
		snprintf(buf, len, "n/a");
	return buf;
}

/* Six significant digits, but never an exponent for a rate of faults a second. */
static const char *figure(char *buf, size_t len, double v)
{
	if (isfinite(v) && fabs(v) >= 1e5 && fabs(v) < 1e12)
		snprintf(buf, len, "%.0f", v);
	else if (isfinite(v))
		snprintf(buf, len, "%.6g", v);
	else
		snprintf(buf, len, "n/a");
	return buf;
}

/* Is a higher value of workload's metric better?  The workload registry says; 1 if unknown. */
static int higher_better(const char *workload, const char *metric)
{
	size_t n = 0;
	const struct workload_metric *m = workload_primary(workload, &n);

	for (size_t i = 0; m && i < n; i++)
		if (!strcmp(m[i].name, metric))
			return strcmp(m[i].better, "lower") != 0;
	return 1;
}

/* The text as a paragraph of the body. */
static void para(struct strbuf *sb, const char *text)
{
	mailfmt_fill(sb, text, NULL, "", COLS);
}

/* "label: value", the value's continuation lines under the value. */
static void field(struct strbuf *sb, const char *label, const char *value)
{
	char first[64], indent[64];

	snprintf(first, sizeof(first), "%-13s ", label);
	snprintf(indent, sizeof(indent), "%14s", "");
	mailfmt_fill(sb, value[0] ? value : "-", first, indent, COLS);
}

static void rule(struct strbuf *sb)
{
	for (int i = 0; i < COLS; i++)
		strbuf_append(sb, "-");
	strbuf_append(sb, "\n");
}

/* ---- why it moved ------------------------------------------------------------------------ */

static void cut_name(char *dst, size_t len, const char *src, size_t cols)
{
	snprintf(dst, len, "%s", src);
	if (strlen(dst) > cols && cols > 3)
		snprintf(dst + cols - 3, len - (cols - 3), "...");
}

/* A deltas object (reports/SCHEMA.md, "deltas"): the profile lines and counters that moved,
 * a from A to B, at most MAX_LINES each. */
static void deltas_section(struct strbuf *sb, const json_t *d, const char *a, const char *b)
{
	const json_t *prof = json_object_get(d, "profile"), *cnt = json_object_get(d, "counters");
	const char *unit = str(d, "ops_unit");
	const json_t *row;
	char name[64], x[32], y[32], z[32], w[32];
	size_t i;

	if (json_array_size(prof)) {
		char head[200];

		snprintf(head, sizeof(head), "Profile lines that moved (self instructions per %s, "
			 "mean over boots):", unit[0] ? unit : "op");
		strbuf_append(sb, "\n");
		para(sb, head);
		strbuf_append(sb, "\n");
		strbuf_appendf(sb, "  %-30s %10s %10s %8s\n", "symbol", a, b, "delta");
		json_array_foreach(prof, i, row) {
			if (i == MAX_LINES) {
				strbuf_appendf(sb, "  ... and %zu more\n", json_array_size(prof) - i);
				break;
			}
			cut_name(name, sizeof(name), str(row, "symbol"), 30);
			strbuf_appendf(sb, "  %-30s %10.1f %10.1f %+8.1f %7s\n", name,
				       num(row, "a_self"), num(row, "b_self"), num(row, "self_delta"),
				       pct(x, sizeof(x), num(row, "self_delta_pct")));
		}
	} else if (json_is_string(json_object_get(d, "profile_absent"))) {
		strbuf_append(sb, "\nNo profile lines: ");
		para(sb, str(d, "profile_absent"));
	}
	if (json_array_size(cnt)) {
		strbuf_appendf(sb, "\nCounters that moved (per %s, mean over boots):\n\n",
			       unit[0] ? unit : "op");
		strbuf_appendf(sb, "  %-30s %10s %10s %10s\n", "counter", a, b, "delta");
		json_array_foreach(cnt, i, row) {
			char what[128];

			if (i == MAX_LINES) {
				strbuf_appendf(sb, "  ... and %zu more\n", json_array_size(cnt) - i);
				break;
			}
			snprintf(what, sizeof(what), "%s %s %s", str(row, "source"), str(row, "name"),
				 str(row, "figure"));
			cut_name(name, sizeof(name), what, 30);
			strbuf_appendf(sb, "  %-30s %10s %10s %10s %6s\n", name,
				       figure(x, sizeof(x), num(row, "a")),
				       figure(y, sizeof(y), num(row, "b")),
				       figure(z, sizeof(z), num(row, "delta")),
				       pct(w, sizeof(w), num(row, "delta_pct")));
		}
	}
}

/* The command that measures the finding again, and what it will and will not give. */
static void reproduce(struct strbuf *sb, const char *const *argv, const char *files)
{
	char text[512];

	strbuf_append(sb, "\nTo reproduce it, in a checkout of numalab (its README sets it up):\n\n");
	mailfmt_shell(sb, argv, "  ", COLS);
	strbuf_append(sb, "\n");
	snprintf(text, sizeof(text), "%s%sEach boot takes a seed of its own, so the figures come "
		 "out within their intervals, not to the digit.", files, files[0] ? " " : "");
	para(sb, text);
}

/* ---- the message ------------------------------------------------------------------------- */

/* The domain of an address ("numalab <a@b>" -> "b"), for the Message-ID. */
static void domain_of(const char *addr, char *buf, size_t len)
{
	const char *at = strrchr(addr, '@');
	size_t n = at ? strcspn(at + 1, ">") : 0;

	snprintf(buf, len, "%.*s", (int)n, at ? at + 1 : "");
	if (!buf[0])
		snprintf(buf, len, "localhost");
}

/* "<numalab.KHASH@DOMAIN>" (K: the kind's first two letters, HASH: 12 hex digits, short
 * enough for a Closes: link inside 72 columns): the same finding gives the same id (what a follow-up's
 * In-Reply-To names).  identity: what makes the finding this one. */
static void message_id(const struct mail_opts *o, const char *kind, const char *identity,
		       char *buf, size_t len)
{
	char hex[65] = "", dom[256];

	sha256_hex(identity, strlen(identity), hex);
	domain_of(o->from ? o->from : MAIL_DEFAULT_FROM, dom, sizeof(dom));
	snprintf(buf, len, "<numalab.%.2s%.12s@%s>", kind, hex, dom);
}

static int check_addresses(const struct mail_opts *o, struct lab_error *err)
{
	const char *from = o->from ? o->from : MAIL_DEFAULT_FROM;

	if (!mailfmt_address_ok(from))
		return error_set(err, "from", "\"%.80s\" is not one address (Name <user@host>)",
				 from);
	if (o->reported_by && !mailfmt_address_ok(o->reported_by))
		return error_set(err, "reported-by", "\"%.80s\" is not one address", o->reported_by);
	for (size_t i = 0; i < o->nto; i++)
		if (!mailfmt_address_ok(o->to[i]))
			return error_set(err, "to", "\"%.80s\" is not one address", o->to[i]);
	for (size_t i = 0; i < o->ncc; i++)
		if (!mailfmt_address_ok(o->cc[i]))
			return error_set(err, "cc", "\"%.80s\" is not one address", o->cc[i]);
	if (o->closes && (!strstr(o->closes, "://") || strchr(o->closes, ' ') ||
			  mailfmt_cols(o->closes) > 200))
		return error_set(err, "closes", "\"%.80s\" is not a URL template", o->closes);
	return 0;
}

static int list_header(struct strbuf *sb, const char *name, const char *const *a, size_t n)
{
	_cleanup_strbuf_ struct strbuf v = STRBUF_INIT;

	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		strbuf_appendf(&v, "%s%s", i ? ", " : "", a[i]);
	return v.err ? v.err : mailfmt_header(sb, name, v.buf);
}

static int headers(struct strbuf *sb, const struct mail_opts *o, const char *subject,
		   const char *msgid, struct lab_error *err)
{
	int r = mailfmt_header(sb, "From", o->from ? o->from : MAIL_DEFAULT_FROM);

	r = r ? r : list_header(sb, "To", o->to, o->nto);
	r = r ? r : list_header(sb, "Cc", o->cc, o->ncc);
	if (!r && (r = mailfmt_header(sb, "Subject", subject)) < 0)
		return error_set(err, "subject", "cannot be a header: \"%.80s\"", subject);
	r = r ? r : mailfmt_header(sb, "Date", o->date ? o->date : "Thu, 01 Jan 1970 00:00:00 +0000");
	r = r ? r : mailfmt_header(sb, "Message-ID", msgid);
	if (!r && o->in_reply_to && ((r = mailfmt_header(sb, "In-Reply-To", o->in_reply_to)) < 0 ||
				     (r = mailfmt_header(sb, "References", o->in_reply_to)) < 0))
		return error_set(err, "in-reply-to", "cannot be a header");
	r = r ? r : mailfmt_header(sb, "MIME-Version", "1.0");
	r = r ? r : mailfmt_header(sb, "Content-Type", "text/plain; charset=utf-8");
	r = r ? r : mailfmt_header(sb, "Content-Transfer-Encoding", "8bit");
	return r == -EINVAL ? error_set(err, "", "a value a header cannot carry") : r;
}

/* The tag block 0-day's mails end their summary with: what to paste into the fix. */
static void tags(struct strbuf *sb, const struct mail_opts *o, const char *msgid)
{
	para(sb, "If you fix the issue in a separate patch/commit (i.e. not just a new version "
		 "of the same patch/commit), kindly add following tags");
	strbuf_appendf(sb, "| Reported-by: %s\n",
		       o->reported_by ? o->reported_by : o->from ? o->from : MAIL_DEFAULT_FROM);
	if (o->closes) {
		_cleanup_strbuf_ struct strbuf url = STRBUF_INIT;
		const char *p = o->closes, *at;
		size_t idlen = strlen(msgid) - 2;

		while ((at = strstr(p, "{msgid}"))) {
			strbuf_appendn(&url, p, (size_t)(at - p));
			strbuf_appendn(&url, msgid + 1, idlen);
			p = at + 7;
		}
		strbuf_append(&url, p);
		strbuf_appendf(sb, "| Closes: %s\n", url.buf ? url.buf : "");
	}
}

static void signature(struct strbuf *sb, const struct mail_opts *o)
{
	if (o->lab_version)
		strbuf_appendf(sb, "\n-- \nnumalab %s\n", o->lab_version);
	else
		strbuf_appendf(sb, "\n-- \nnumalab %s (%s)\n", version_lab(), version_commit());
}

/* headers, a blank line, body: the message. */
static int finish(const struct mail_opts *o, const char *subject, const char *msgid,
		  struct strbuf *body, char **out, struct lab_error *err)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	int r;

	if ((r = headers(&sb, o, subject, msgid, err)) < 0)
		return r;
	if (body->err)
		return body->err;
	/* Subjects, paths and warning lines come from repositories, jobs and guests: a control
	 * character among them must not reach a reader's terminal. */
	for (size_t i = 0; i < body->len; i++)
		if (((unsigned char)body->buf[i] < 0x20 && body->buf[i] != '\n') ||
		    body->buf[i] == 0x7f)
			body->buf[i] = '?';
	strbuf_append(&sb, "\n");
	strbuf_append(&sb, body->buf ? body->buf : "");
	return strbuf_take(&sb, out);
}

/* ---- a bisection ------------------------------------------------------------------------- */

/* The last measured step of role. */
static const json_t *last_step(const json_t *bisect, const char *role)
{
	const json_t *steps = json_object_get(bisect, "steps"), *st, *found = NULL;
	size_t i;

	json_array_foreach(steps, i, st)
		if (!strcmp(str(st, "role"), role) && !strcmp(str(st, "outcome"), "ok"))
			found = st;
	return found;
}

static void step_line(struct strbuf *sb, const char *role, const json_t *st)
{
	const json_t *c = json_object_get(st, "commit");
	char m[32], lo[32], hi[32];

	strbuf_appendf(sb, "  %-8s %.12s %12s  [%s, %s]  %lld boots\n", role, str(c, "sha"),
		       figure(m, sizeof(m), num(st, "mean")), figure(lo, sizeof(lo), num(st, "ci_lo")),
		       figure(hi, sizeof(hi), num(st, "ci_hi")),
		       (long long)json_integer_value(json_object_get(st, "n")));
}

/* The steps, one line each: how the culprit was found. */
static void steps_table(struct strbuf *sb, const json_t *bisect)
{
	const json_t *steps = json_object_get(bisect, "steps"), *st, *cost;
	char m[32], p[32];
	size_t i;

	cost = json_object_get(bisect, "cost");
	strbuf_appendf(sb, "\nThe bisection, step by step (%zu measurements", json_array_size(steps));
	if (json_is_object(cost))
		strbuf_appendf(sb, ", %lld boots, %.0f s",
			       (long long)json_integer_value(json_object_get(cost, "boots")),
			       num(cost, "wall_s"));
	strbuf_append(sb, "):\n\n");
	strbuf_appendf(sb, "  %-4s %-9s %-12s %-8s %12s %8s\n", "step", "role", "commit", "class",
		       "mean", "vs good");
	json_array_foreach(steps, i, st) {
		const json_t *cls = json_object_get(st, "class");

		strbuf_appendf(sb, "  %-4lld %-9s %-12.12s %-8s %12s %8s\n",
			       (long long)json_integer_value(json_object_get(st, "step")),
			       str(st, "role"), str(json_object_get(st, "commit"), "sha"),
			       json_is_string(cls) ? json_string_value(cls) : str(st, "outcome"),
			       figure(m, sizeof(m), num(st, "mean")),
			       pct(p, sizeof(p), num(st, "change_pct")));
	}
}

/* The series a bisection followed, as parts: what it resolved ("followed": the default
 * metric and task count filled in), else what it was asked (params.series). */
static const json_t *followed(const json_t *bisect)
{
	const json_t *f = json_object_get(bisect, "followed");

	return json_is_object(f) ? f : json_object_get(json_object_get(bisect, "params"), "series");
}

/* lab bisect start with what this one was asked: the finding again. */
static void bisect_repro(struct strbuf *sb, const json_t *bisect)
{
	const json_t *pa = json_object_get(bisect, "params"), *se = followed(bisect);
	char metric[160], tasks[32], thr[32], boots[32], tries[32];
	const char *argv[32];
	size_t n = 0;

	snprintf(metric, sizeof(metric), "%s.%s", str(se, "workload"), str(se, "metric"));
	snprintf(tasks, sizeof(tasks), "%lld", (long long)json_integer_value(json_object_get(se, "tasks")));
	snprintf(thr, sizeof(thr), "%g", num(pa, "threshold_pct"));
	snprintf(boots, sizeof(boots), "%lld", (long long)json_integer_value(json_object_get(pa, "boots")));
	snprintf(tries, sizeof(tries), "%lld",
		 (long long)json_integer_value(json_object_get(pa, "max_tries")));
	argv[n++] = "build/lab";
	argv[n++] = "bisect";
	argv[n++] = "start";
	argv[n++] = str(pa, "job_file");
	argv[n++] = "--variant";
	argv[n++] = str(pa, "variant_file")[0] ? str(pa, "variant_file") : str(pa, "variant");
	argv[n++] = "--good";
	argv[n++] = str(json_object_get(pa, "good"), "commit");
	argv[n++] = "--bad";
	argv[n++] = str(json_object_get(pa, "bad"), "commit");
	argv[n++] = "--metric";
	argv[n++] = metric;
	argv[n++] = "--tasks";
	argv[n++] = tasks;
	argv[n++] = "--threshold";
	argv[n++] = thr;
	argv[n++] = "--boots";
	argv[n++] = boots;
	argv[n++] = "--max-tries";
	argv[n++] = tries;
	if (!json_is_true(json_object_get(pa, "check_revert")))
		argv[n++] = "--no-revert";
	argv[n++] = "--timing";
	argv[n++] = str(pa, "timing")[0] ? str(pa, "timing") : "auto";
	argv[n++] = "-o";
	argv[n++] = "bisect-again";
	argv[n] = NULL;
	reproduce(sb, argv, "The job and the variant are the files above, the variant's tree "
		  "the repository it names.");
}

int mail_bisect(const json_t *bisect, const struct mail_opts *o, char **out,
		struct lab_error *err)
{
	_cleanup_strbuf_ struct strbuf body = STRBUF_INIT, id = STRBUF_INIT;
	const json_t *pa = json_object_get(bisect, "params"), *se = followed(bisect);
	const json_t *culprit = json_object_get(bisect, "culprit"), *par, *cul, *d;
	const char *answer = str(bisect, "answer"), *workload = str(se, "workload");
	const char *metric = str(se, "metric");
	char subject[512], msgid[400], line[1024], a[32], c[32];
	double change;
	int up, r;

	if (strcmp(str(bisect, "schema"), "numalab.bisect/1"))
		return error_set(err, "schema", "not a bisection (numalab.bisect/1)");
	if (!json_is_object(culprit))
		return error_set(err, "answer", "the bisection names no culprit (%s: %.200s)",
				 answer[0] ? answer : "not over", str(bisect, "reason"));
	if ((r = check_addresses(o, err)) < 0)
		return r;
	par = last_step(bisect, "parent");
	cul = last_step(bisect, "culprit");
	if (!par || !cul) {
		par = last_step(bisect, "good-end");
		cul = last_step(bisect, "bad-end");
	}
	change = par && cul && num(par, "mean") != 0
			 ? 100 * (num(cul, "mean") - num(par, "mean")) / fabs(num(par, "mean"))
			 : NAN;
	up = json_is_string(json_object_get(se, "better"))
		     ? strcmp(str(se, "better"), "lower") != 0 : higher_better(workload, metric);
	snprintf(subject, sizeof(subject), "[numalab] %.12s: %s.%s %s %s", str(culprit, "sha"),
		 workload, metric, pct(a, sizeof(a), change),
		 isfinite(change) && (change > 0) == up ? "improvement" : "regression");
	strbuf_appendf(&id, "bisect %s %s %s %s", str(culprit, "sha"), str(bisect, "series"),
		       str(json_object_get(bisect, "good"), "sha"),
		       str(json_object_get(bisect, "bad"), "sha"));
	message_id(o, "bisect", id.buf ? id.buf : "", msgid, sizeof(msgid));

	strbuf_append(&body, "Hello,\n\n");
	snprintf(line, sizeof(line), "numalab measured a %s change of %s.%s (%s is better) and "
		 "bisected it to:", pct(a, sizeof(a), change), workload, metric,
		 up ? "higher" : "lower");
	para(&body, line);
	strbuf_append(&body, "\n");
	snprintf(line, sizeof(line), "%s (\"%s\")", str(culprit, "sha"), str(culprit, "subject"));
	field(&body, "commit:", line);
	snprintf(line, sizeof(line), "%.12s (good) .. %.12s (bad), %lld commits",
		 str(json_object_get(bisect, "good"), "sha"), str(json_object_get(bisect, "bad"), "sha"),
		 (long long)json_integer_value(json_object_get(bisect, "commits")));
	field(&body, "range:", line);
	snprintf(line, sizeof(line), "%s: %s", answer, str(bisect, "reason"));
	field(&body, "answer:", line);
	strbuf_append(&body, "\n");
	field(&body, "testcase:", workload);
	field(&body, "series:", str(bisect, "series"));
	snprintf(line, sizeof(line), "%s, %lld boots a commit", str(pa, "timing"),
		 (long long)json_integer_value(json_object_get(pa, "boots")));
	field(&body, "timing model:", line);
	field(&body, "machine:", str(bisect, "host"));
	field(&body, "job:", str(pa, "job_file"));
	snprintf(line, sizeof(line), "%s (%s)", str(pa, "variant"), str(pa, "variant_file"));
	field(&body, "variant:", line);
	field(&body, "tree:", str(pa, "repo"));
	strbuf_append(&body, "\n");
	tags(&body, o, msgid);
	strbuf_append(&body, "\nDetails are below:\n");
	rule(&body);
	snprintf(line, sizeof(line), "The culprit against its parent (%s, mean of the boots and "
		 "its 95%% interval):", metric);
	strbuf_append(&body, "\n");
	para(&body, line);
	strbuf_append(&body, "\n");
	if (par && cul) {
		step_line(&body, "parent", par);
		step_line(&body, "culprit", cul);
		strbuf_appendf(&body, "  %-8s %12s %12s\n", "change", "", pct(c, sizeof(c), change));
	} else {
		strbuf_append(&body, "  (no measurement of both)\n");
	}
	if ((d = json_object_get(bisect, "culprit_deltas")))
		deltas_section(&body, d, "parent", "culprit");
	else if (json_is_string(json_object_get(bisect, "culprit_deltas_absent"))) {
		strbuf_append(&body, "\n");
		snprintf(line, sizeof(line), "Why it moved: %s",
			 str(bisect, "culprit_deltas_absent"));
		para(&body, line);
	}
	steps_table(&body, bisect);
	bisect_repro(&body, bisect);
	signature(&body, o);
	return finish(o, subject, msgid, &body, out, err);
}

/* ---- an A/B -------------------------------------------------------------------------------- */

static int is_change(const json_t *row)
{
	const char *v = str(row, "verdict");

	return !strcmp(v, "regression") || !strcmp(v, "improvement");
}

/* The row the subject names: the first deciding regression, else improvement, else the first
 * deciding row. */
static const json_t *headline_row(const json_t *cmp1)
{
	const json_t *rows = json_object_get(cmp1, "rows"), *row, *first = NULL, *impr = NULL;
	size_t i;

	json_array_foreach(rows, i, row) {
		if (!json_is_true(json_object_get(row, "primary")))
			continue;
		if (!strcmp(str(row, "verdict"), "regression"))
			return row;
		if (!impr && !strcmp(str(row, "verdict"), "improvement"))
			impr = row;
		if (!first)
			first = row;
	}
	return impr ? impr : first;
}

/* One row: its series, its verdict; the two sides and the change on the line below. */
static void row_lines(struct strbuf *sb, const json_t *row)
{
	const json_t *ra = json_object_get(row, "a"), *rb = json_object_get(row, "b");
	const json_t *ci = json_object_get(row, "ci95_pct");
	char x[32], y[32], p[32], lo[32], hi[32], head[256];

	snprintf(head, sizeof(head), "%s.%s, %lld tasks: %s", str(row, "workload"),
		 str(row, "metric"), (long long)json_integer_value(json_object_get(row, "tasks")),
		 str(row, "verdict"));
	mailfmt_fill(sb, head, "  ", "    ", COLS);
	strbuf_appendf(sb, "    %s %s (%lld)  %s %s (%lld)  %s [%s, %s]\n", "A",
		       figure(x, sizeof(x), num(ra, "mean")),
		       (long long)json_integer_value(json_object_get(ra, "n")), "B",
		       figure(y, sizeof(y), num(rb, "mean")),
		       (long long)json_integer_value(json_object_get(rb, "n")),
		       pct(p, sizeof(p), num(row, "change_pct")),
		       pct(lo, sizeof(lo), json_number_value(json_array_get(ci, 0))),
		       pct(hi, sizeof(hi), json_number_value(json_array_get(ci, 1))));
}

/* The deltas of the workload (params, topology) a row belongs to. */
static const json_t *row_deltas(const json_t *cmp1, const json_t *row)
{
	const json_t *w;
	size_t i;

	json_array_foreach(json_object_get(cmp1, "workloads"), i, w)
		if (!strcmp(str(w, "workload"), str(row, "workload")) &&
		    !strcmp(str(w, "topology"), str(row, "topology")) &&
		    json_equal(json_object_get(w, "params"), json_object_get(row, "params")))
			return json_object_get(w, "deltas");
	return NULL;
}

static void other_rows(struct strbuf *sb, const json_t *cmp1, const json_t *head)
{
	const json_t *row;
	size_t i, shown = 0, more = 0;

	json_array_foreach(json_object_get(cmp1, "rows"), i, row) {
		if (row == head || !is_change(row))
			continue;
		if (shown == MAX_LINES) {
			more++;
			continue;
		}
		if (!shown)
			strbuf_append(sb, "\nEvery other figure it moved:\n\n");
		row_lines(sb, row);
		shown++;
	}
	if (more)
		strbuf_appendf(sb, "  ... and %zu more (lab compare)\n", more);
}

static void warnings(struct strbuf *sb, const json_t *cmp1, const char *b)
{
	const json_t *site;
	size_t i, n = 0;

	json_array_foreach(json_object_get(json_object_get(cmp1, "warnings"), "sites"), i, site) {
		char line[600];

		if (strcmp(str(site, "change"), "new"))
			continue;
		if (!n++)
			strbuf_appendf(sb, "\nKernel warnings %s printed and the other side never "
				       "did:\n\n", b);
		snprintf(line, sizeof(line), "%s at %s (%lld of %lld boots): %s", str(site, "kind"),
			 str(site, "where"),
			 (long long)json_integer_value(json_object_get(site, "b_boots")),
			 (long long)json_integer_value(json_object_get(json_object_get(cmp1, "b"), "runs")),
			 str(site, "first_line"));
		mailfmt_fill(sb, line, "  - ", "    ", COLS);
	}
}

/* The bundle re-run: one command, and what it promises under the report's model. */
static void bundle_repro(struct strbuf *sb, const struct mail_opts *o, const char *model)
{
	const char *argv[] = { "build/lab", "rerun", o->bundle, NULL, NULL, NULL, NULL, NULL, NULL,
			       NULL };
	char text[600];
	int exact = !strcmp(model, "icount") || !strcmp(model, "quantum");

	if (o->fix_verdict && o->fix_patch && o->fix_on && o->fix_against) {
		argv[3] = "--patch";
		argv[4] = o->fix_patch;
		argv[5] = "--on";
		argv[6] = o->fix_on;
		argv[7] = "--against";
		argv[8] = o->fix_against;
	}

	strbuf_append(sb, "\nTo reproduce it, with the bundle, in a checkout of numalab (its "
			  "README\nsets it up):\n\n");
	mailfmt_shell(sb, argv, "  ", COLS);
	strbuf_append(sb, "\n");
	snprintf(text, sizeof(text), "The bundle (lab bundle) holds the job as run, both kernel "
		 "variants with their patches and configs, and each boot's seed.  %s", exact
		 ? "Under this model a boot is a function of its seed: every figure comes out "
		   "equal to those above, to the last digit, or the re-run names the first that "
		   "does not."
		 : "Each boot takes a seed of its own, so the figures come out within their "
		   "intervals, not to the digit: the re-run is an A/B against these.");
	para(sb, text);
}

/* lab run with the report's job and kernels: the A/B again. */
static void ab_repro(struct strbuf *sb, const json_t *report, const json_t *cmp1,
		     const char *model)
{
	const json_t *job = json_object_get(report, "job"), *k;
	char specs[8][600], runs[32];
	const char *argv[32];
	size_t n = 0, i, nk = 0;

	argv[n++] = "build/lab";
	argv[n++] = "run";
	argv[n++] = str(job, "file");
	json_array_foreach(json_object_get(job, "kernels"), i, k) {
		const char *v = str(k, "variant")[0] ? str(k, "variant") : str(k, "image");

		if (nk == 8)
			break;
		snprintf(specs[nk], sizeof(specs[nk]), "%s=%s", str(k, "label"), v);
		argv[n++] = "--kernel";
		argv[n++] = specs[nk++];
	}
	snprintf(runs, sizeof(runs), "%lld", (long long)json_integer_value(json_object_get(
		json_object_get(cmp1, "b"), "runs")));
	argv[n++] = "--repeats";
	argv[n++] = runs;
	argv[n++] = "--timing";
	argv[n++] = model;
	argv[n++] = "-o";
	argv[n++] = "ab-again";
	argv[n] = NULL;
	reproduce(sb, argv, "");
}

/* The kernel entry of the report's job labelled label. */
static const json_t *job_kernel(const json_t *report, const char *label)
{
	const json_t *k;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(report, "job"), "kernels"), i, k)
		if (!strcmp(str(k, "label"), label))
			return k;
	return NULL;
}

/* The first run of label: its kernel's description and key, its host. */
static const json_t *first_run(const json_t *report, const char *label)
{
	const json_t *run;
	size_t i;

	json_array_foreach(json_object_get(report, "runs"), i, run)
		if (!strcmp(str(json_object_get(run, "kernel"), "label"), label))
			return run;
	return NULL;
}

static void kernel_field(struct strbuf *sb, const char *side, const json_t *report,
			 const char *label)
{
	const json_t *run = first_run(report, label), *kern = json_object_get(run, "kernel");
	const json_t *jk = job_kernel(report, label);
	char line[1024];

	snprintf(line, sizeof(line), "%s (%s %s%s%.12s)%s %s", label,
		 str(jk, "variant")[0] ? "variant" : "image",
		 str(jk, "variant")[0] ? str(jk, "variant") : str(jk, "image"),
		 str(json_object_get(kern, "build"), "key")[0] ? ", key " : "",
		 str(json_object_get(kern, "build"), "key"),
		 str(kern, "description")[0] ? ":" : "", str(kern, "description"));
	field(sb, side, line);
}

int mail_ab(const json_t *report, const json_t *cmp, const char *patch_subject,
	    const struct mail_opts *o, char **out, struct lab_error *err)
{
	_cleanup_strbuf_ struct strbuf body = STRBUF_INIT, id = STRBUF_INIT;
	const json_t *cmp1 = json_array_get(json_object_get(cmp, "comparisons"), 0), *head, *d;
	const json_t *run, *tm;
	const char *a, *b, *decision, *topic;
	char subject[600], msgid[400], line[1024], p[32];
	int r;

	if (strcmp(str(cmp, "schema"), "numalab.compare/2") || !json_is_object(cmp1))
		return error_set(err, "comparisons", "no comparison of two labels");
	if ((r = check_addresses(o, err)) < 0)
		return r;
	a = str(json_object_get(cmp1, "a"), "variant");
	b = str(json_object_get(cmp1, "b"), "variant");
	decision = str(cmp1, "decision");
	head = headline_row(cmp1);
	topic = patch_subject && patch_subject[0] ? patch_subject : b;
	if (o->fix_verdict) /* 0-day's "[still regression on fix commit X]" */
		snprintf(subject, sizeof(subject), "[numalab] [%s] %.200s: %s.%s %s %s",
			 !strcmp(o->fix_verdict, "still-regressed") ? "still regression on fix"
			 : !strcmp(o->fix_verdict, "fixed") ? "fixed by fix" : "undecided on fix",
			 topic, head ? str(head, "workload") : "", head ? str(head, "metric") : "",
			 head ? pct(p, sizeof(p), num(head, "change_pct")) : "",
			 head ? str(head, "verdict") : decision);
	else if (head && is_change(head))
		snprintf(subject, sizeof(subject), "[numalab] %.200s: %s.%s %s %s", topic,
			 str(head, "workload"), str(head, "metric"),
			 pct(p, sizeof(p), num(head, "change_pct")), str(head, "verdict"));
	else
		snprintf(subject, sizeof(subject), "[numalab] %.200s: %s against %s", topic,
			 !strcmp(decision, "ok") ? "no regression" : decision, a);
	strbuf_appendf(&id, "ab %s %s %s", str(report, "id"), a, b);
	message_id(o, "ab", id.buf ? id.buf : "", msgid, sizeof(msgid));

	strbuf_append(&body, "Hello,\n\n");
	if (o->fix_verdict)
		snprintf(line, sizeof(line), "numalab tried the fix below on the kernel of its "
			 "finding (report %s), against the original boots of %s, under the %s "
			 "model: %s.", o->finding ? o->finding : "", a, str(cmp1, "timing"),
			 !strcmp(o->fix_verdict, "still-regressed") ? "still a regression"
			 : !strcmp(o->fix_verdict, "fixed") ? "no regression left"
			 : "undecided (more boots are needed)");
	else
		snprintf(line, sizeof(line), "numalab measured %s against %s, side by side under "
			 "the %s model: %s.", b, a, str(cmp1, "timing"),
			 !strcmp(decision, "ok") ? "no regression" : decision);
	para(&body, line);
	strbuf_append(&body, "\n");
	if (patch_subject && patch_subject[0])
		field(&body, o->fix_verdict ? "fix:" : "patch:", patch_subject);
	kernel_field(&body, "A (base):", report, a);
	kernel_field(&body, "B:", report, b);
	if (head) {
		field(&body, "testcase:", str(head, "workload"));
		field(&body, "machine:", str(head, "topology"));
	}
	run = first_run(report, b);
	tm = json_object_get(json_object_get(run, "host"), "timing");
	snprintf(line, sizeof(line), "%s%s%s; QEMU %s, libvirt %s", str(tm, "model"),
		 str(tm, "title")[0] ? ": " : "", str(tm, "title"),
		 str(json_object_get(run, "host"), "qemu_version"),
		 str(json_object_get(run, "host"), "libvirt_version"));
	field(&body, "timing model:", line);
	snprintf(line, sizeof(line), "%s (%s), %s", str(report, "id"), str(report, "created"),
		 o->source ? o->source : "");
	field(&body, "report:", line);
	strbuf_append(&body, "\n");
	if (!strcmp(decision, "regression")) {
		tags(&body, o, msgid);
		strbuf_append(&body, "\n");
	}
	strbuf_append(&body, "Details are below:\n");
	rule(&body);
	snprintf(line, sizeof(line), "The deciding figure (mean of the boots, boots, change and "
		 "its %s interval):", json_is_object(json_object_get(cmp, "sequential"))
		 ? "sequential" : "95%");
	strbuf_append(&body, "\n");
	para(&body, line);
	strbuf_append(&body, "\n");
	if (head)
		row_lines(&body, head);
	other_rows(&body, cmp1, head);
	if (head && (d = row_deltas(cmp1, head)))
		deltas_section(&body, d, "A", "B");
	warnings(&body, cmp1, b);
	if (o->bundle)
		bundle_repro(&body, o, str(tm, "model"));
	else
		ab_repro(&body, report, cmp1, str(tm, "model")[0] ? str(tm, "model") : "auto");
	signature(&body, o);
	return finish(o, subject, msgid, &body, out, err);
}

/* The first run of label's kernel.patches. */
static const json_t *label_patches(const json_t *report, const char *label)
{
	const json_t *run;
	size_t i;

	json_array_foreach(json_object_get(report, "runs"), i, run)
		if (!strcmp(str(json_object_get(run, "kernel"), "label"), label))
			return json_object_get(json_object_get(run, "kernel"), "patches");
	return NULL;
}

static int has_patch(const json_t *patches, const char *sha)
{
	const json_t *p;
	size_t i;

	json_array_foreach(patches, i, p)
		if (!strcmp(str(p, "sha256"), sha))
			return 1;
	return 0;
}

void mail_patch_subject(const json_t *report, const char *a, const char *b, char *buf,
			size_t len)
{
	const json_t *pa = label_patches(report, a), *pb = label_patches(report, b), *p;
	const char *first = NULL;
	unsigned more = 0;
	size_t i;

	buf[0] = '\0';
	json_array_foreach(pb, i, p) {
		if (has_patch(pa, str(p, "sha256")))
			continue;
		if (first)
			more++;
		else if (str(p, "subject")[0])
			first = str(p, "subject");
	}
	if (first && more)
		snprintf(buf, len, "%s (+%u more)", first, more);
	else if (first)
		snprintf(buf, len, "%s", first);
}
