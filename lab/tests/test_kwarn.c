/* Kernel warnings on the console (lab/core/kwarn.h): fixtures typed from Linux 6.12's formats
 * in lab/tests/data/kwarn/NAME.log, with NAME.expected the golden text of what the scan found
 * (one line per warning, "kind<TAB>count<TAB>where<TAB>first_line", then "dropped<TAB>N" when
 * some were; UPDATE_GOLDEN=1 rewrites them); hostile consoles; the report's JSON both ways, a
 * committed report's, and what the reader refuses. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kwarn.h"
#include "tap.h"
#include "testutil.h"
#include "util/fs.h"
#include "util/strbuf.h"
#include "util/text.h"

#define DIR_KWARN "lab/tests/data/kwarn"

/* What every scan promises, whatever the console held. */
static int bounded(const struct kwarn_list *l)
{
	if (l->n > KWARN_MAX || (l->dropped && l->n < KWARN_MAX))
		return 0;
	for (unsigned i = 0; i < l->n; i++) {
		const struct kwarn *w = &l->items[i];

		if ((unsigned)w->kind >= KWARN__COUNT || !w->count || !w->where[0] ||
		    strlen(w->where) >= KWARN_WHERE_MAX || !text_utf8_valid(w->where) ||
		    text_has_control_chars(w->where) || !w->first_line[0] ||
		    strlen(w->first_line) >= KWARN_LINE_MAX || !text_utf8_valid(w->first_line) ||
		    !w->excerpt || strlen(w->excerpt) > KWARN_EXCERPT_MAX ||
		    !text_utf8_valid(w->excerpt) || !strstr(w->excerpt, w->first_line))
			return 0;
		for (unsigned j = 0; j < i; j++)
			if (l->items[j].kind == w->kind && !strcmp(l->items[j].where, w->where))
				return 0;
	}
	return 1;
}

static void golden_text(const struct kwarn_list *l, struct strbuf *sb)
{
	for (unsigned i = 0; i < l->n; i++)
		strbuf_appendf(sb, "%s\t%u\t%s\t%s\n", kwarn_kind_name(l->items[i].kind),
			       l->items[i].count, l->items[i].where, l->items[i].first_line);
	if (l->dropped)
		strbuf_appendf(sb, "dropped\t%u\n", l->dropped);
}

static int same_list(const struct kwarn_list *a, const struct kwarn_list *b)
{
	if (a->n != b->n || a->dropped != b->dropped)
		return 0;
	for (unsigned i = 0; i < a->n; i++) {
		const struct kwarn *x = &a->items[i], *y = &b->items[i];

		if (x->kind != y->kind || x->count != y->count || strcmp(x->where, y->where) ||
		    strcmp(x->first_line, y->first_line) || strcmp(x->excerpt, y->excerpt))
			return 0;
	}
	return 1;
}

/* to_json then from_json gives the list back; the keys are the schema's. */
static void round_trip(const char *name, const struct kwarn_list *l)
{
	json_t *run = json_object(), *w0;
	struct kwarn_list back;
	struct lab_error err = { 0 };
	int ok;

	ok = kwarn_list_to_json(l, run) == 0 &&
	     kwarn_list_from_json(run, "runs[0]", &back, &err) == 0 && same_list(l, &back);
	w0 = json_array_get(json_object_get(run, "warnings"), 0);
	tap_ok(ok && (!w0 || json_object_size(w0) == 5) &&
		       !json_object_get(run, "warnings_dropped") == !l->dropped,
	       "%s: JSON round trip %s", name, err.msg);
	kwarn_list_free(&back);
	json_decref(run);
}

static void check_fixture(const char *name)
{
	char log[512], exp[512];
	char *text = NULL, *want = NULL;
	struct strbuf got = STRBUF_INIT;
	struct kwarn_list l;
	size_t len;

	snprintf(log, sizeof(log), "%s/%s.log", DIR_KWARN, name);
	snprintf(exp, sizeof(exp), "%s/%s.expected", DIR_KWARN, name);
	if (!tap_ok(fs_read_file(log, 1 << 24, &text, &len) == 0, "%s: fixture readable", name))
		goto out;
	tap_ok(kwarn_scan(text, len, &l) == 0, "%s: scanned", name);
	golden_text(&l, &got);
	if (getenv("UPDATE_GOLDEN"))
		fs_write_atomic(exp, got.buf ? got.buf : "", got.len);
	fs_read_file(exp, 1 << 20, &want, NULL);
	tap_ok(want && !strcmp(want, got.buf ? got.buf : ""), "%s: equals %s.expected", name, name);
	if (want && got.buf && strcmp(want, got.buf))
		printf("# got:\n%s", got.buf);
	tap_ok(bounded(&l), "%s: every excerpt holds its first line; all bounded, valid UTF-8",
	       name);
	round_trip(name, &l);
	kwarn_list_free(&l);
out:
	strbuf_free(&got);
	free(text);
	free(want);
}

static void fixtures(void)
{
	int n = testutil_each_log(DIR_KWARN, check_fixture);

	tap_ok(n >= KWARN__COUNT + 3, "found %d kwarn fixtures", n);
}

static void kinds(void)
{
	int ok = 1;

	for (unsigned i = 0; i < KWARN__COUNT; i++) {
		enum kwarn_kind k;

		ok &= kwarn_kind_parse(kwarn_kind_name((enum kwarn_kind)i), &k) == 0 && k == i;
	}
	tap_ok(ok, "every kind's name parses back");
	enum kwarn_kind k;

	tap_ok(kwarn_kind_parse("panic", &k) == -EINVAL && kwarn_kind_parse(NULL, &k) == -EINVAL &&
		       !strcmp(kwarn_kind_name(KWARN__COUNT), "unknown"),
	       "an unknown kind is refused");
}

/* kwarn_line_kind: what outcome.c asks of each console line. */
static void line_kinds(void)
{
	static const struct {
		const char *line;
		int want;
		enum kwarn_kind kind;
	} cases[] = {
		{ "[   12.000000] BUG: KASAN: use-after-free in f+0x1/0x2", 1, KWARN_KASAN },
		{ "[   12.000000][  T123] BUG: KFENCE: invalid free in f+0x1/0x2", 1,
		  KWARN_KFENCE },
		{ "watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [a:1]", 1, KWARN_SOFT_LOCKUP },
		{ "[ 1.0] BUG: workqueue lockup - pool cpus=0 node=0 flags=0x0 nice=0 stuck for 3s!",
		  1, KWARN_WORKQUEUE_LOCKUP },
		{ "[ 1.0] BUG: scheduling while atomic: a/1/0x00000002", 1, KWARN_SLEEP_IN_ATOMIC },
		{ "[ 1.0] BUG: using smp_processor_id() in preemptible [00000000] code: a/1", 1,
		  KWARN_SLEEP_IN_ATOMIC },
		{ "[ 1.0] BUG: MAX_LOCK_DEPTH too low!", 1, KWARN_LOCKDEP },
		{ "[ 1.0] [ BUG: Invalid wait context ]", 1, KWARN_LOCKDEP },
		{ "[ 1.0] BUG: key ffff888003a1c0e8 has not been registered!", 1, KWARN_LOCKDEP },
		{ "[ 1.0] WARNING: HARDIRQ-safe -> HARDIRQ-unsafe lock order detected", 1,
		  KWARN_LOCKDEP },
		{ "[ 1.0] WARNING: pft/301 still has locks held!", 1, KWARN_LOCKDEP },
		{ "INFO: rcu_tasks detected stalls on tasks:", 1, KWARN_RCU_STALL },
		{ "[ 1.0] UBSAN: array index out of bounds at f+0x1/0x2", 1, KWARN_UBSAN },
		{ "[ 1.0] BUG: unable to handle page fault for address: 0000000000001000", 0, 0 },
		{ "[ 1.0] BUG: kernel NULL pointer dereference, address: 0000000000000008", 0, 0 },
		{ "[ 1.0] Kernel panic - not syncing: softlockup: hung tasks", 0, 0 },
		{ "[ 1.0] kernel BUG at mm/memory.c:12!", 0, 0 },
		{ "[   12.34 WARNING: CPU: 0 PID: 1 at a.c:1 f+0x1/0x2", 0, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum kwarn_kind k = KWARN__COUNT;
		int r = kwarn_line_kind(cases[i].line, strlen(cases[i].line), &k);

		tap_ok(r == cases[i].want && (!r || k == cases[i].kind), "line %zu: %s: %s", i,
		       r ? kwarn_kind_name(k) : "no warning", cases[i].line);
	}
}

/* lab/tests/data/kwarn/report-warned.json: real-quick.json with, in run 0, the warnings of
 * mixed.log as kwarn_list_to_json wrote them: a committed report still reads back as the
 * scan finds them today. */
static void committed_report(void)
{
	_cleanup_json_ json_t *doc = testutil_load(DIR_KWARN "/report-warned.json");
	struct kwarn_list got, want = { .n = 0 };
	_cleanup_free_ char *text = NULL;
	size_t len = 0;

	tap_ok(doc && fs_read_file(DIR_KWARN "/mixed.log", 1 << 20, &text, &len) == 0 &&
		       kwarn_scan(text, len, &want) == 0 &&
		       kwarn_list_from_json(json_array_get(json_object_get(doc, "runs"), 0),
					    "runs[0]", &got, NULL) == 0 &&
		       same_list(&got, &want) && got.n == 4,
	       "a committed report's warnings read back as mixed.log's scan");
	kwarn_list_free(&got);
	kwarn_list_free(&want);
}

/* A console no kernel prints: every promise still holds. */
static void hostile(void)
{
	size_t big = (1u << 20) + 64, len;
	char *t = malloc(big + 4096);
	struct kwarn_list l;
	static const char tail[] =
		"\n[    2.0] BUG: KASAN: \xc3\xa9\xff in f\xf0\x9f\x98+0x1\n"
		"[    3.0] \x00UBSAN: x\n"
		"[   12.34 WARNING: CPU: 0 PID: 1 at a.c:1 f+0x1/0x2\n"
		"[    4.0] INFO: task \xe2\x82\xac:12 blocked for more than 1 seconds.\n"
		"[    5.0] WARNING: CPU: 0 PID: 1 at mm/x.c:7 f+0x1/0x2";
	const char *one = "WARNING: CPU: 0 PID: 1 at a.c:1 f";
	int r;

	if (!tap_ok(t != NULL, "hostile: allocated"))
		return;
	/* A 1 MiB WARNING line of bytes that are not UTF-8 and NULs, then more lines. */
	len = (size_t)sprintf(t, "[    1.000000] WARNING: CPU: 0 PID: 1 at ");
	for (size_t i = 0; i < (1u << 20); i++)
		t[len++] = "\xff\0\xc3\x28\xe2\x82\x28\x1b"[i % 8];
	memcpy(t + len, tail, sizeof(tail) - 1);
	len += sizeof(tail) - 1;
	r = kwarn_scan(t, len, &l);
	tap_ok(r == 0 && bounded(&l), "hostile: scanned, bounded (%u)", l.n);
	tap_ok(l.n == 4 && l.items[0].kind == KWARN_WARNING && l.items[0].where[0] == '?' &&
		       strlen(l.items[0].excerpt) <= KWARN_EXCERPT_MAX &&
		       l.items[1].kind == KWARN_KASAN && l.items[2].kind == KWARN_HUNG_TASK &&
		       !strcmp(l.items[2].where, "\xe2\x82\xac") &&
		       l.items[3].kind == KWARN_WARNING && !strcmp(l.items[3].where, "mm/x.c:7"),
	       "hostile: the 1 MiB line, a NUL before UBSAN, an unclosed time, and a last line "
	       "without newline: %u found (%s, %s)", l.n, l.n > 1 ? l.items[1].where : "",
	       l.n > 0 ? l.items[0].first_line : "");
	round_trip("hostile", &l);
	kwarn_list_free(&l);
	tap_ok(kwarn_scan("", 0, &l) == 0 && l.n == 0 && l.dropped == 0, "an empty console: none");
	tap_ok(kwarn_scan(one, strlen(one), &l) == 0 && l.n == 1 &&
		       !strcmp(l.items[0].where, "a.c:1") &&
		       !strcmp(l.items[0].excerpt, l.items[0].first_line),
	       "one line, no newline, no time: found, its excerpt the line");
	kwarn_list_free(&l);
	free(t);
}

/* A report's warnings refused, and why. */
static void refuse(const char *what, const char *json, const char *want)
{
	json_error_t je;
	json_t *run = json_loads(json, JSON_ALLOW_NUL, &je);
	struct lab_error err = { 0 };
	struct kwarn_list l;
	int r = kwarn_list_from_json(run, "runs[1]", &l, &err);
	char msg[1024];

	error_format(&err, msg, sizeof(msg));
	tap_ok(run && r == -EINVAL && strstr(msg, want), "refused: %s: %s", what, msg);
	kwarn_list_free(&l);
	json_decref(run);
}

/* A valid run with one warning, its key set to the JSON value v, refused. */
static void refuse_key(const char *what, const char *key, const char *v, const char *want)
{
	json_t *run = json_loads("{\"warnings\": [{\"count\": 1, \"excerpt\": \"x\", "
				 "\"first_line\": \"x\", \"kind\": \"warning\", \"where\": "
				 "\"w\"}]}", 0, NULL);
	char *j;

	json_object_set_new(json_array_get(json_object_get(run, "warnings"), 0), key,
			    json_loads(v, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL));
	j = json_dumps(run, 0);
	refuse(what, j, want);
	free(j);
	json_decref(run);
}

static void refusals(void)
{
	char many[8192] = "{\"warnings\": [", big[KWARN_EXCERPT_MAX + 8];
	struct kwarn_list l;
	json_t *run;

	for (int i = 0; i < KWARN_MAX + 1; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many),
			 "%s{\"count\": 1, \"excerpt\": \"x\", \"first_line\": \"x\", "
			 "\"kind\": \"warning\", \"where\": \"w%d\"}", i ? ", " : "", i);
	strcat(many, "]}");
	refuse("too many", many, "runs[1].warnings: has more than 16 entries");
	refuse("not an array", "{\"warnings\": {}}", "runs[1].warnings: must be an array");
	refuse("an entry not an object", "{\"warnings\": [1]}", "warnings[0]: must be an object");
	refuse_key("an unknown kind", "kind", "\"oops\"", "warnings[0].kind: unknown kind");
	refuse_key("a count 0", "count", "0", "warnings[0].count: must be");
	refuse_key("a count string", "count", "\"1\"", "count: must be");
	refuse_key("a count too big", "count", "4294967296", "count: must be");
	refuse_key("a where number", "where", "3", "where: must be a string");
	refuse_key("an unknown key", "color", "1", "warnings[0].color: unknown key");
	refuse_key("an empty where", "where", "\"\"", "where: must be 1 to 95");
	refuse_key("a where with a control character", "where", "\"a\\u001bb\"",
		   "where: holds a control character");
	refuse_key("a first_line with a newline", "first_line", "\"a\\nb\"",
		   "first_line: holds a control character");
	refuse_key("a NUL in the excerpt", "excerpt", "\"a\\u0000b\"",
		   "excerpt: must be 1 to 8192 bytes without NUL");
	refuse("a dropped count with room left", "{\"warnings\": [], \"warnings_dropped\": 2}",
	       "runs[1].warnings_dropped: with fewer than 16");
	refuse("a negative dropped count", "{\"warnings_dropped\": -1}", "warnings_dropped: must");
	refuse("a repeated site",
	       "{\"warnings\": [{\"count\": 1, \"excerpt\": \"x\", \"first_line\": \"x\", "
	       "\"kind\": \"kasan\", \"where\": \"w\"}, {\"count\": 2, \"excerpt\": \"y\", "
	       "\"first_line\": \"y\", \"kind\": \"kasan\", \"where\": \"w\"}]}",
	       "warnings[1]: repeats the kind and where of [0]");

	/* Over-long strings: first_line 160, where 96, excerpt 8193 bytes. */
	const struct {
		const char *key;
		size_t n;
		const char *want;
	} longs[] = { { "first_line", KWARN_LINE_MAX, "first_line: must be 1 to 159" },
		      { "where", KWARN_WHERE_MAX, "where: must be 1 to 95" },
		      { "excerpt", KWARN_EXCERPT_MAX + 1, "excerpt: must be 1 to 8192" } };

	for (size_t i = 0; i < sizeof(longs) / sizeof(longs[0]); i++) {
		big[0] = '"';
		memset(big + 1, 'a', longs[i].n);
		strcpy(big + 1 + longs[i].n, "\"");
		refuse_key(longs[i].key, longs[i].key, big, longs[i].want);
	}

	run = json_loads("{\"status\": \"ok\"}", 0, NULL);
	tap_ok(kwarn_list_from_json(run, "runs[0]", &l, NULL) == 0 && l.n == 0 && !l.dropped,
	       "a run of a report before warnings: none");
	json_decref(run);
}

int main(void)
{
	kinds();
	line_kinds();
	fixtures();
	committed_report();
	hostile();
	refusals();
	return tap_done();
}
