/* How a workload died (lab/proto/oomkill.c): signal names, the agent's pick of the OOM
 * killer's lines among /dev/kmsg records, the host's check of them (untrusted: bounded,
 * printable, known kinds), and the way they travel: a results line through the channel's
 * check, the report's reason (collect_death_note, outcome_classify).  The records are the ones
 * a 4s-8c guest printed when page_fault2 (2 tasks x 128 MiB bound to node 0) was OOM-killed. */
#include <string.h>

#include "core/collect.h"
#include "core/outcome.h"
#include "proto/channel.h"
#include "proto/oomkill.h"
#include "tap.h"
#include "util/cleanup.h"

static const char invoked[] =
	"page_fault2 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), "
	"order=0, oom_score_adj=0";
static const char constraint[] =
	"oom-kill:constraint=CONSTRAINT_MEMORY_POLICY,nodemask=0,cpuset=/,mems_allowed=0-3,"
	"global_oom,task_memcg=/,task=page_fault2,pid=145,uid=0";
static const char killed[] =
	"Out of memory: Killed process 145 (page_fault2) total-vm:395160kB, anon-rss:225800kB, "
	"file-rss:4kB, shmem-rss:1044kB, UID:0 pgtables:488kB oom_score_adj:0";

static void signals(void)
{
	char buf[16];
	const char *k = oomkill_signal_name(9, buf, sizeof(buf));
	const char *s = oomkill_signal_name(11, buf, sizeof(buf));

	tap_ok(k && !strcmp(k, "SIGKILL") && s && !strcmp(s, "SIGSEGV"), "9 SIGKILL, 11 SIGSEGV");
	s = oomkill_signal_name(34, buf, sizeof(buf));
	tap_ok(s && !strcmp(s, "SIGRTMIN"), "34 SIGRTMIN");
	s = oomkill_signal_name(36, buf, sizeof(buf));
	tap_ok(s && !strcmp(s, "SIGRTMIN+2"), "36 SIGRTMIN+2");
	tap_ok(!oomkill_signal_name(0, buf, sizeof(buf)) && !oomkill_signal_name(65, buf, 16) &&
		       !oomkill_signal_name(-9, buf, sizeof(buf)),
	       "0, 65 and -9 are no signal");
}

static int pick(struct oomkill_pick *p, const char *text)
{
	char rec[1200];

	snprintf(rec, sizeof(rec), "4,512,27533200,-;%s\n SUBSYSTEM=x\n", text);
	return oomkill_pick_record(p, rec, strlen(rec));
}

static void picking(void)
{
	struct oomkill_pick p = {0};
	char long_line[900], *s;
	_cleanup_json_ json_t *j = NULL, *none = NULL;

	tap_ok(pick(&p, "Node 0 DMA32 free:24752kB min:24828kB") == -1 &&
		       pick(&p, "numalab-agent: workload 1 (page_fault2): starting") == -1,
	       "other kernel lines are not picked");
	none = oomkill_pick_json(&p);
	tap_ok(!none, "no kill: no oom object");
	tap_ok(pick(&p, invoked) == OOMKILL_INVOKED && pick(&p, constraint) == OOMKILL_CONSTRAINT &&
		       pick(&p, killed) == OOMKILL_KILLED,
	       "the three kinds of the OOM killer's lines");
	tap_ok(oomkill_pick_record(&p, "6,1,2,-", 7) == -1, "a record without text: nothing");
	/* A second kill: counted, its lines not kept (the first of each kind is). */
	pick(&p, "Memory cgroup out of memory: Killed process 150 (x) total-vm:1kB, anon-rss:1kB");
	j = oomkill_pick_json(&p);
	s = json_dumps(json_object_get(j, "lines"), JSON_COMPACT);
	tap_ok(json_integer_value(json_object_get(j, "kills")) == 2 &&
		       json_array_size(json_object_get(j, "lines")) == 3 &&
		       !strcmp(json_string_value(json_array_get(json_object_get(j, "lines"), 2)),
			       killed),
	       "two kills counted, the first line of each kind kept: %.60s...", s ? s : "?");
	free(s);
	/* Bounds: a long line is cut, bytes not printable become '?'. */
	memset(&p, 0, sizeof(p));
	memset(long_line, 'a', sizeof(long_line) - 1);
	long_line[sizeof(long_line) - 1] = '\0';
	memcpy(long_line, "Out of memory: Killed process 1 (\x01x) ", 37);
	pick(&p, long_line);
	tap_ok(strlen(p.lines[0]) == OOMKILL_MAX_LINE && p.lines[0][33] == '?',
	       "a line is cut to %d bytes, a control byte made '?'", OOMKILL_MAX_LINE);
}

static json_t *oom_of(const char *const *lines, size_t n, long long kills)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_string(lines[i]));
	return json_pack("{s:I,s:o}", "kills", (json_int_t)kills, "lines", a);
}

static void checking(void)
{
	const char *all[] = {invoked, constraint, killed};
	const char *five[] = {killed, killed, killed, killed, killed};
	const char *bad_kind[] = {killed, "rm -rf /"};
	const char *ctl[] = {"Out of memory: Killed process 1 (a\tb) total-vm:1kB"};
	const char *empty[] = {""};
	_cleanup_json_ json_t *v = oom_of(all, 3, 1), *c = oomkill_check(v);
	char text[256];

	tap_ok(c && json_integer_value(json_object_get(c, "pid")) == 145 &&
		       !strcmp(json_string_value(json_object_get(c, "task")), "page_fault2") &&
		       json_integer_value(json_object_get(c, "anon_rss_kib")) == 225800 &&
		       json_integer_value(json_object_get(c, "total_vm_kib")) == 395160 &&
		       !strcmp(json_string_value(json_object_get(c, "constraint")),
			       "CONSTRAINT_MEMORY_POLICY") &&
		       !strcmp(json_string_value(json_object_get(c, "nodemask")), "0") &&
		       json_array_size(json_object_get(c, "lines")) == 3,
	       "the host reads task, pid, anon-rss, total-vm, constraint and node mask");
	oomkill_describe(c, text, sizeof(text));
	tap_ok(!strcmp(text, "process 145 (page_fault2), anon-rss 225800 kB, constraint "
			     "CONSTRAINT_MEMORY_POLICY, nodemask 0"),
	       "described: %s", text);

	const struct {
		const char *what;
		const char *const *lines;
		size_t n;
		long long kills;
	} bad[] = {
		{"no lines", all, 0, 1},
		{"five lines", five, 5, 5},
		{"a line of no known kind", bad_kind, 2, 1},
		{"a control character", ctl, 1, 1},
		{"an empty line", empty, 1, 1},
		{"kills 0", all, 3, 0},
		{"kills above the bound", all, 3, OOMKILL_MAX_KILLS + 1},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		_cleanup_json_ json_t *b = oom_of(bad[i].lines, bad[i].n, bad[i].kills);
		_cleanup_json_ json_t *r = oomkill_check(b);

		tap_ok(!r, "refused: %s", bad[i].what);
	}
	char big[OOMKILL_MAX_LINE + 2];
	const char *too_long[] = {big};

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, "Out of memory: Killed process ", 30);
	_cleanup_json_ json_t *tl = oom_of(too_long, 1, 1), *tr = oomkill_check(tl);
	_cleanup_json_ json_t *ns = json_pack("{s:s,s:[s]}", "kills", "1", "lines", killed);
	_cleanup_json_ json_t *nr = oomkill_check(ns);

	tap_ok(!tr, "refused: a line of %d bytes", OOMKILL_MAX_LINE + 1);
	tap_ok(!nr && !oomkill_check(NULL), "refused: kills not an integer, no object");
}

/* A workload line through the channel, the guest log, the reason. */
static void travelling(void)
{
	const struct channel_bounds b = {.nr_workloads = 2, .max_nodes = 4, .max_cpus = 8};
	char line[2048], note[384], reason[512];
	struct channel_msg m;
	struct guest_log g;
	int r;

	snprintf(line, sizeof(line),
		 "{\"t\":\"workload\",\"index\":1,\"name\":\"page_fault2\",\"exit\":-9,\"wall_s\":3.2,"
		 "\"output\":null,\"stderr\":\"\",\"signal\":9,\"oom\":{\"kills\":1,\"lines\":"
		 "[\"%s\",\"%s\"]}}", constraint, killed);
	r = channel_parse(line, strlen(line), &b, &m);
	tap_ok(r == 0 && json_integer_value(json_object_get(m.body, "signal")) == 9 &&
		       json_object_get(json_object_get(m.body, "oom"), "pid"),
	       "the channel keeps the signal and the checked oom");
	channel_msg_free(&m);
	collect_init(&g, 2);
	collect_line(&g, line, strlen(line), 1.0);
	collect_death_note(&g, NULL, note, sizeof(note));
	tap_ok(!strcmp(note, "workloads[1] (?) killed by the OOM killer: process 145 "
			     "(page_fault2), anon-rss 225800 kB, constraint "
			     "CONSTRAINT_MEMORY_POLICY, nodemask 0"),
	       "death note: %s", note);
	struct outcome_input in = {.end = GUEST_END_STOPPED, .hello = 1, .done = 1,
				   .workloads_failed = 1, .death = note};
	tap_ok(outcome_classify(&in, reason, sizeof(reason)) == OUTCOME_WORKLOAD_FAILURE &&
		       strstr(reason, "1 workload(s) failed, 0 not reported; workloads[1] (?) "
				      "killed by the OOM killer: process 145 (page_fault2)"),
	       "the run's reason names the OOM kill: %s", reason);
	collect_free(&g);

	/* An oom that fails its check is left out; the workload line is kept with its signal. */
	snprintf(line, sizeof(line),
		 "{\"t\":\"workload\",\"index\":0,\"exit\":-11,\"wall_s\":1,\"output\":null,"
		 "\"signal\":11,\"oom\":{\"kills\":1,\"lines\":[\"<script>alert(1)</script>\"]}}");
	r = channel_parse(line, strlen(line), &b, &m);
	tap_ok(r == 0 && !json_object_get(m.body, "oom") &&
		       json_integer_value(json_object_get(m.body, "signal")) == 11,
	       "an invalid oom is dropped, the line kept");
	channel_msg_free(&m);
	collect_init(&g, 2);
	collect_line(&g, line, strlen(line), 1.0);
	collect_death_note(&g, NULL, note, sizeof(note));
	tap_ok(!strcmp(note, "workloads[0] (?) killed by SIGSEGV (signal 11)"), "%s", note);
	collect_free(&g);
	snprintf(line, sizeof(line), "{\"t\":\"workload\",\"index\":0,\"exit\":1,\"wall_s\":1,"
				     "\"output\":null,\"signal\":99}");
	r = channel_parse(line, strlen(line), &b, &m);
	tap_ok(r == 0 && !json_object_get(m.body, "signal"), "signal 99: left out");
	channel_msg_free(&m);
}

int main(void)
{
	signals();
	picking();
	checking();
	travelling();
	return tap_done();
}
