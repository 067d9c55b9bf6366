/* `lab mail`'s text (lab/analysis/mail.h) and the RFC 5322 pieces under it
 * (lab/util/mailfmt.h): golden mails of a recorded bisection and a recorded A/B, each body
 * line at most 72 columns; header fields folded, non-ASCII encoded, line breaks refused;
 * addresses; paragraphs; shell commands folded so that the shell reads them back whole. */
#include <errno.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/mail.h"
#include "analysis/series.h"
#include "testutil.h"
#include "util/mailfmt.h"
#include "util/text.h"

static const struct mail_opts fixed = {
	.to = { "Jane Developer <jane@example.org>" }, .nto = 1,
	.cc = { "linux-mm@kvack.org", "Another One <another.one@example.com>" }, .ncc = 2,
	.closes = "https://lore.kernel.org/r/{msgid}",
	.date = "Mon, 07 Dec 2026 01:00:00 +0000", .lab_version = "0.37 (test)",
	.source = "lab/tests/data/compare/real-profile.json",
};

/* Every line after the header's blank line is at most MAILFMT_COLS columns, none ends in a
 * space; header lines at most 78. */
static void check_widths(const char *name, const char *msg)
{
	const char *body = strstr(msg, "\n\n"), *p = msg;
	size_t worst = 0, worst_head = 0, trailing = 0;

	while (*p) {
		size_t n = strcspn(p, "\n");
		char line[1024];
		size_t c;

		snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) - 1 ? n : sizeof(line) - 1), p);
		c = mailfmt_cols(line);
		if (body && p > body)
			worst = c > worst ? c : worst;
		else
			worst_head = c > worst_head ? c : worst_head;
		trailing += n && p[n - 1] == ' ' && strcmp(line, "-- ");
		p += n + (p[n] == '\n');
	}
	tap_ok(worst <= MAILFMT_COLS, "%s: every body line at most 72 columns (widest %zu)", name,
	       worst);
	tap_ok(worst_head <= 78, "%s: every header line at most 78 (widest %zu)", name, worst_head);
	tap_ok(trailing == 0, "%s: no line ends in a space (%zu do)", name, trailing);
}

static void bisect_golden(void)
{
	_cleanup_json_ json_t *b = testutil_load("lab/tests/data/mail/bisect-found.json");
	_cleanup_free_ char *msg = NULL, *again = NULL;
	struct lab_error err = { 0 };

	tap_ok(b && mail_bisect(b, &fixed, &msg, &err) == 0, "bisect: written (%s)", err.msg);
	if (!msg)
		return;
	testutil_golden("mail-bisect-found.txt", msg);
	check_widths("bisect", msg);
	tap_ok(strstr(msg, "\nSubject: [numalab] c5c5c5c5c5c5: pft.faults_per_s -25.0% regression\n") != NULL,
	       "bisect: the subject names the culprit, the metric and the change");
	tap_ok(strstr(msg, "| Closes: https://lore.kernel.org/r/numalab.bi") != NULL,
	       "bisect: the Closes: tag from the template and the Message-ID");
	mail_bisect(b, &fixed, &again, &err);
	tap_ok(again && !strcmp(msg, again), "bisect: the same finding, the same mail");
}

static void bisect_refused(void)
{
	_cleanup_json_ json_t *b = testutil_load("lab/tests/data/mail/bisect-found.json");
	_cleanup_free_ char *msg = NULL;
	struct lab_error err = { 0 };
	struct mail_opts bad = fixed;
	int r;

	if (!b)
		return;
	json_object_set_new(b, "culprit", json_null());
	json_object_set_new(b, "answer", json_string("inconclusive"));
	r = mail_bisect(b, &fixed, &msg, &err);
	tap_ok(r == -EINVAL && strstr(err.msg, "names no culprit (inconclusive"),
	       "no culprit: refused, saying the answer (%s)", err.msg);
	json_object_set_new(b, "schema", json_string("numalab.report/1"));
	memset(&err, 0, sizeof(err));
	tap_ok(mail_bisect(b, &fixed, &msg, &err) == -EINVAL && strstr(err.msg, "not a bisection"),
	       "not a bisection: refused (%s)", err.msg);
	bad.to[0] = "jane@example.org\nBcc: everyone@example.org";
	json_object_set_new(b, "schema", json_string("numalab.bisect/1"));
	memset(&err, 0, sizeof(err));
	tap_ok(mail_bisect(b, &bad, &msg, &err) == -EINVAL, "a line break in an address: refused "
	       "(%s)", err.msg);
}

/* A commit subject with a line break and an escape: the body shows them as '?', the
 * headers carry nothing of them. */
static void hostile_subject(void)
{
	_cleanup_json_ json_t *b = testutil_load("lab/tests/data/mail/bisect-found.json");
	_cleanup_free_ char *msg = NULL;
	struct lab_error err = { 0 };

	if (!b)
		return;
	json_object_set_new(json_object_get(b, "culprit"), "subject",
			    json_string("mm: x\nBcc: all@example.org\x1b[31m"));
	tap_ok(mail_bisect(b, &fixed, &msg, &err) == 0, "a hostile commit subject: written");
	tap_ok(msg && !strstr(msg, "\nBcc:") && !strchr(msg, 0x1b),
	       "... no header made of it, no escape character");
}

static void ab_golden(void)
{
	_cleanup_json_ json_t *rep = testutil_load("lab/tests/data/compare/real-profile.json");
	_cleanup_json_ json_t *cmp = NULL;
	_cleanup_free_ char *msg = NULL;
	struct comparison c[4];
	struct lab_error err = { 0 };
	struct strbuf note = STRBUF_INIT;
	struct series_set s;
	size_t n = 0;

	series_init(&s);
	if (!rep || series_add_report(&s, rep, "real-profile.json", NULL, &err) < 0 ||
	    compare_all(&s, COMPARE_DEFAULT_THRESHOLD_PCT, 0, c, &n, &note) < 0 || !n) {
		tap_ok(0, "ab: the recorded A/B compared (%s)", err.msg);
		series_free(&s);
		strbuf_free(&note);
		return;
	}
	cmp = compare_json(&s, c, n);
	tap_ok(cmp && mail_ab(rep, cmp, "mm: charge a fixed cost on every anonymous fault",
			      &fixed, &msg, &err) == 0, "ab: written (%s)", err.msg);
	if (msg) {
		testutil_golden("mail-ab-profile.txt", msg);
		check_widths("ab", msg);
		tap_ok(strstr(msg, "\nSubject: [numalab] mm: charge a fixed cost on every anonymous "
			       "fault:\n pft.faults_per_s -1.9% regression\n") != NULL,
		       "ab: the subject names the patch, the metric and the change (folded)");
		tap_ok(strstr(msg, "__handle_mm_fault") != NULL, "ab: the profile line that moved");
	}
	{
		struct mail_opts o = fixed;
		_cleanup_free_ char *with = NULL;

		o.bundle = "https://example.org/ab-20261207.tar.gz";
		tap_ok(cmp && mail_ab(rep, cmp, "mm: charge a fixed cost on every anonymous fault",
				      &o, &with, &err) == 0, "ab with a bundle: written (%s)", err.msg);
		tap_ok(with && strstr(with, "  build/lab rerun "
				      "https://example.org/ab-20261207.tar.gz\n"),
		       "ab with a bundle: the reproduce step re-runs it");
		if (with)
			check_widths("ab with a bundle", with);
	}
	{
		struct mail_opts o = fixed;
		_cleanup_free_ char *fix = NULL;

		o.fix_verdict = "still-regressed";
		o.finding = "20261207-094020-quantum-ab";
		o.in_reply_to = "<ab-finding@numalab>";
		o.bundle = "ab.tar.gz";
		o.fix_patch = "0001-mm-take-the-fault-path-s-lock-once.patch";
		o.fix_on = "bench-anon-fault-cost";
		o.fix_against = "baseline";
		tap_ok(cmp && mail_ab(rep, cmp, "mm: take the fault path's lock once", &o, &fix,
				      &err) == 0, "a fix trial: written (%s)", err.msg);
		if (fix) {
			testutil_golden("mail-fix-still.txt", fix);
			check_widths("fix", fix);
			tap_ok(strstr(fix, "Subject: [numalab] [still regression on fix] mm: take") &&
			       strstr(fix, "In-Reply-To: <ab-finding@numalab>"),
			       "a fix trial: \"[still regression on fix]\", threaded");
		}
	}
	for (size_t i = 0; i < n; i++)
		compare_free(&c[i]);
	series_free(&s);
	strbuf_free(&note);
}

/* What B adds to A, named by its patches' subjects (kernel.patches). */
static void patch_subjects(void)
{
	_cleanup_json_ json_t *rep = json_loads(
		"{\"runs\": ["
		"{\"kernel\": {\"label\": \"base\", \"patches\": [{\"file\": \"0001-k.patch\", "
		"\"sha256\": \"aa\", \"subject\": \"mm: Kconfig prompts\"}]}},"
		"{\"kernel\": {\"label\": \"fix\", \"patches\": [{\"file\": \"0001-k.patch\", "
		"\"sha256\": \"aa\", \"subject\": \"mm: Kconfig prompts\"}, {\"file\": \"a.patch\", "
		"\"sha256\": \"bb\", \"subject\": \"mm: fault once\"}, {\"file\": \"b.patch\", "
		"\"sha256\": \"cc\", \"subject\": null}]}}]}", 0, NULL);
	char buf[200];

	mail_patch_subject(rep, "base", "fix", buf, sizeof(buf));
	tap_ok(!strcmp(buf, "mm: fault once (+1 more)"), "the patch B adds, by subject: \"%s\"", buf);
	mail_patch_subject(rep, "fix", "base", buf, sizeof(buf));
	tap_ok(!buf[0], "nothing added: no subject (\"%s\")", buf);
}

static void headers(void)
{
	struct strbuf sb = STRBUF_INIT;

	tap_ok(mailfmt_header(&sb, "Subject", "a\r\nBcc: x@example.org") == -EINVAL,
	       "a header value with a line break: refused");
	tap_ok(mailfmt_header(&sb, "Bad Name", "x") == -EINVAL, "a field name with a space: refused");
	strbuf_free(&sb);
	sb = (struct strbuf)STRBUF_INIT;
	mailfmt_header(&sb, "Subject", "mm: été");
	tap_ok(sb.buf && !strcmp(sb.buf, "Subject: =?UTF-8?B?bW06IMOpdMOp?=\n"),
	       "non-ASCII as an RFC 2047 encoded word (%s)", sb.buf ? sb.buf : "");
	strbuf_free(&sb);
	sb = (struct strbuf)STRBUF_INIT;
	mailfmt_header(&sb, "To", "a@example.org, b@example.org, c@example.org, d@example.org, "
		       "e@example.org, f@example.org");
	tap_ok(sb.buf && !strcmp(sb.buf, "To: a@example.org, b@example.org, c@example.org, "
			       "d@example.org, e@example.org,\n f@example.org\n"),
	       "a long field folded before column 78");
	strbuf_free(&sb);
}

static void addresses(void)
{
	static const struct {
		const char *a;
		int ok;
	} t[] = {
		{ "jane@example.org", 1 }, { "Jane Dev <jane@example.org>", 1 },
		{ "Jöns <j@example.org>", 1 }, { "", 0 }, { "jane", 0 }, { "@example.org", 0 },
		{ "a@b@c", 0 }, { "Jane <jane@example.org", 0 }, { "a@b, c@d", 0 },
		{ "Jane <jane@example.org> x", 0 }, { "jane@example.org\nBcc: x@y", 0 },
		{ "Ja>ne <j@example.org>", 0 }, { "j ane@example.org", 0 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char shown[128];

		text_clean_copy(shown, sizeof(shown), t[i].a);
		tap_ok(mailfmt_address_ok(t[i].a) == t[i].ok, "address \"%s\": %s", shown,
		       t[i].ok ? "taken" : "refused");
	}
}

static void fill(void)
{
	struct strbuf sb = STRBUF_INIT;

	mailfmt_fill(&sb, "one two three four five six seven eight nine ten", "- ", "  ", 20);
	tap_ok(sb.buf && !strcmp(sb.buf, "- one two three four\n  five six seven\n  eight nine ten\n"),
	       "a paragraph filled to 20 columns with its first line's lead");
	strbuf_free(&sb);
	sb = (struct strbuf)STRBUF_INIT;
	mailfmt_fill(&sb, "x {\"a\":1,\"bb\":2,\"ccc\":3,\"dddd\":4}", "", "", 16);
	tap_ok(sb.buf && !strcmp(sb.buf, "x {\"a\":1,\"bb\":2,\n\"ccc\":3,\n\"dddd\":4}\n"),
	       "a word longer than a line cut after its commas");
	strbuf_free(&sb);
}

/* The folded command, its backslash-newlines removed (what the shell does), is the command
 * on one line: checked for a path longer than a line and a quoted word. */
static void shell(void)
{
	const char *argv[] = { "build/lab", "bisect", "start",
			       "/a/very/long/directory/name/that/goes/on/and/on/and/on/past/the/"
			       "margin/job.json", "--metric", "pft.faults_per_s", "--note",
			       "it's $HOME \"quoted\"", "-o", "out", NULL };
	struct strbuf sb = STRBUF_INIT;
	char joined[1024];
	size_t k = 0, widest = 0, n;
	const char *p;

	mailfmt_shell(&sb, argv, "  ", 40);
	for (p = sb.buf ? sb.buf : ""; *p; p += n + (p[n] == '\n')) {
		n = strcspn(p, "\n");
		widest = n > widest ? n : widest;
	}
	tap_ok(widest <= 40, "a command folded to 40 columns (widest %zu)", widest);
	for (p = sb.buf ? sb.buf : ""; *p && k < sizeof(joined) - 1; p++) {
		if (p[0] == '\\' && p[1] == '\n') {
			p++;
			continue;
		}
		joined[k++] = *p;
	}
	joined[k] = '\0';
	tap_ok(strstr(joined, "/a/very/long/directory/name/that/goes/on/and/on/and/on/past/the/"
				"margin/job.json") && strstr(joined, "\"it's \\$HOME \\\"quoted\\\"\""),
	       "... its line continuations removed, every word is whole and quoted");
	strbuf_free(&sb);
}

int main(void)
{
	headers();
	addresses();
	fill();
	shell();
	bisect_golden();
	bisect_refused();
	hostile_subject();
	ab_golden();
	patch_subjects();
	return tap_done();
}
