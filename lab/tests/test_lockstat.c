/* /proc/lock_stat's classes of the seeds' locks (lab/proto/lockstat.h), pure.  The two texts
 * in data/lockstat/ follow the printf formats of kernel/locking/lockdep_proc.c in Linux 6.12
 * (seq_header, seq_stats, seq_lock_time, snprint_time) column for column; they were written
 * by a script to those formats, not captured from a twin kernel, and "after" holds three times
 * "before"'s counters.  Checked: the classes and sides found (mmap_lock's -W and -R lines, a
 * spinlock's one line, a read-only rwsem's -R line, "#2" summed into its class, lookalikes
 * and contention-point lines ignored); the window's deltas (golden lockstat-delta.json,
 * UPDATE_GOLDEN=1 rewrites it); the host's check of them, round trip and refusals; text of
 * another format refused; and the results channel keeping a workload whose lock_stat passes
 * and failing one whose lock_stat does not, naming the JSON path. */
#include <errno.h>
#include <string.h>

#include "proto/channel.h"
#include "proto/lockstat.h"
#include "testutil.h"

static int parse_file(const char *rel, struct lockstat *ls)
{
	_cleanup_free_ char *path = fs_join(testutil_root(), rel), *text = NULL;
	size_t len = 0;

	if (!path || fs_read_file(path, LOCKSTAT_MAX_TEXT, &text, &len) < 0)
		return -EIO;
	return lockstat_parse(text, len, ls);
}

static void test_parse(struct lockstat *a, struct lockstat *b)
{
	const struct lockstat_class *c;

	tap_ok(parse_file("lab/tests/data/lockstat/before.txt", a) == 0 &&
		       parse_file("lab/tests/data/lockstat/after.txt", b) == 0, "both texts parse");
	c = &a->c[LOCKSTAT_MMAP_LOCK_W];
	tap_ok(c->seen && c->con_bounces == 5 && c->contentions == 7 && c->acq_bounces == 40 &&
		       c->acquisitions == 100, "mmap_lock-W: 5 con-bounces, 7 contentions, 40 "
	       "acq-bounces, 100 acquisitions");
	tap_ok(a->c[LOCKSTAT_MMAP_LOCK_R].acquisitions == 4000 &&
		       a->c[LOCKSTAT_MMAP_LOCK_R].wait_total_us == 200.0,
	       "mmap_lock-R: its own line (4000 acquisitions, 200 us waited)");
	tap_ok(a->c[LOCKSTAT_PAGE_TABLE_LOCK].acquisitions == 1000 &&
		       a->c[LOCKSTAT_PAGE_TABLE_LOCK].hold_total_us == 300.0,
	       "page_table_lock: a spinlock's one line, no -W");
	tap_ok(a->c[LOCKSTAT_PTLOCK].acquisitions == 8200 && a->c[LOCKSTAT_PTLOCK].contentions == 1,
	       "ptlock: \"ptlock_ptr(ptdesc)\" and its \"#2\" summed (8000 + 200)");
	tap_ok(a->c[LOCKSTAT_VMA_LOCK_R].acquisitions == 7000 && !a->c[LOCKSTAT_VMA_LOCK_W].seen,
	       "vma_lock: read only, its -R line; no write side seen");
}

static void test_delta(const struct lockstat *a, const struct lockstat *b)
{
	_cleanup_json_ json_t *d = lockstat_delta_json(a, b);
	_cleanup_free_ char *text = d ? jsonio_dumps(d) : NULL;
	struct lockstat back;
	struct lab_error err = { 0 };

	tap_ok(d && json_object_size(d) == 5 && !json_object_get(d, "vma_lock_write"),
	       "delta: the five classes seen");
	tap_ok(json_integer_value(json_object_get(json_object_get(d, "page_table_lock"),
						  "acquisitions")) == 2000,
	       "delta: page_table_lock 3000 - 1000 acquisitions");
	testutil_golden("lockstat-delta.json", text);
	tap_ok(lockstat_from_json(d, "lock_stat", &back, &err) == 0 &&
		       back.c[LOCKSTAT_PTLOCK].acquisitions == 16400 && back.c[LOCKSTAT_PTLOCK].seen &&
		       !back.c[LOCKSTAT_VMA_LOCK_W].seen,
	       "the host reads the delta back %s", err.msg);
	/* A counter that went down (lock_stat cleared inside the window) is 0, not a wrap. */
	{
		_cleanup_json_ json_t *rev = lockstat_delta_json(b, a);

		tap_ok(rev && json_integer_value(json_object_get(json_object_get(rev, "ptlock"),
							 "acquisitions")) == 0,
		       "delta: a counter that went down is 0");
	}
}

static void test_refused(void)
{
	static const char *const bad[][2] = {
		{ "[]", "lock_stat: must be an object of lock classes" },
		{ "{\"rq_lock\": {}}", "lock_stat.rq_lock: unknown key" },
		{ "{\"ptlock\": 3}", "lock_stat.ptlock: must be an object" },
		{ "{\"ptlock\": {\"acquisitions\": -1}}", "lock_stat.ptlock.acquisitions: must be an integer" },
		{ "{\"ptlock\": {\"acquisitions\": 1, \"contentions\": 0, \"acq_bounces\": 0, "
		  "\"con_bounces\": 0, \"wait_total_us\": -2, \"hold_total_us\": 0}}",
		  "lock_stat.ptlock.wait_total_us: must be a number of microseconds" },
		{ "{\"ptlock\": {\"acquisitions\": 1, \"extra\": 0}}", "lock_stat.ptlock.extra: unknown key" },
	};
	static const char other[] = "lock_stat version 0.3\n";
	struct lockstat ls;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		_cleanup_json_ json_t *j = json_loads(bad[i][0], 0, NULL);
		struct lab_error err = { 0 };
		char msg[1400];
		int r = j ? lockstat_from_json(j, "lock_stat", &ls, &err) : 0;

		error_format(&err, msg, sizeof(msg));
		tap_ok(r == -EINVAL && strstr(msg, bad[i][1]), "refused: %s (%s)", bad[i][1], msg);
	}
	tap_ok(lockstat_parse(other, strlen(other), &ls) == -EINVAL &&
		       lockstat_parse("", 0, &ls) == -EINVAL,
	       "text of another version, or none: refused, not zeros");
}

/* A workload line whose one result carries lock_stat ls: the channel's "error" for it. */
static char *channel_error(const char *ls)
{
	struct channel_bounds b = { .nr_workloads = 1, .max_nodes = 4, .max_cpus = 8 };
	struct channel_msg m = { 0 };
	char line[1024];
	char *why = NULL;

	snprintf(line, sizeof(line), "{\"t\": \"workload\", \"index\": 0, \"exit\": 0, "
		 "\"wall_s\": 1.5, \"output\": {\"results\": [{\"tasks\": 1, \"metrics\": "
		 "{\"run_s\": {\"value\": 1.0, \"unit\": \"s\", \"better\": \"lower\"}}, "
		 "\"info\": {\"lock_stat\": %s}}]}}", ls);
	if (channel_parse(line, strlen(line), &b, &m) == 0)
		why = strdup(json_string_value(json_object_get(m.body, "error")) ?: "?");
	channel_msg_free(&m);
	return why;
}

static void test_channel(void)
{
	_cleanup_free_ char *good = channel_error("{\"ptlock\": {\"acquisitions\": 3, "
		"\"contentions\": 0, \"acq_bounces\": 1, \"con_bounces\": 0, "
		"\"wait_total_us\": 0.5, \"hold_total_us\": 2.0}}");
	_cleanup_free_ char *bad = channel_error("{\"ptlock\": {\"acquisitions\": -3}}");

	tap_ok(good && !good[0], "channel: a result with a good lock_stat is kept (%s)",
	       good ? good : "no line");
	tap_ok(bad && strstr(bad, "output.results[0].info.lock_stat.ptlock.acquisitions: must be"),
	       "channel: a bad lock_stat fails the workload, naming the path (%s)",
	       bad ? bad : "no line");
}

int main(void)
{
	test_channel();
	struct lockstat a, b;

	test_parse(&a, &b);
	test_delta(&a, &b);
	test_refused();
	return tap_done();
}
