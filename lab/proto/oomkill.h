/* How a workload died, as the results channel tells it (runners/PROTOCOL.md, `workload`):
 * the signal that killed the runner, by name, and the guest kernel's own OOM-killer lines,
 * which the agent picks from /dev/kmsg (runners/rt_kmsg.c) and the host checks before they
 * reach a report.  The kinds of line both sides know are one table in oomkill.c.  Pure. */
#pragma once
#include <jansson.h>
#include <stddef.h>

/* What a workload line's "oom" may hold. */
#define OOMKILL_MAX_LINES 4
#define OOMKILL_MAX_LINE 512
#define OOMKILL_MAX_KILLS 100000
#define OOMKILL_MAX_FIELD 64 /* a task name, a constraint, a node mask */

enum oomkill_kind {
	OOMKILL_INVOKED,    /* "page_fault2 invoked oom-killer: gfp_mask=..., order=0, ..." */
	OOMKILL_CONSTRAINT, /* "oom-kill:constraint=CONSTRAINT_MEMORY_POLICY,nodemask=0,..." */
	OOMKILL_KILLED,     /* "Out of memory: Killed process 149 (page_fault2) total-vm:..." */
	OOMKILL_NR,
};

/* The agent's pick of /dev/kmsg records: the first line of each kind, in the order they came,
 * and how many processes were killed. */
struct oomkill_pick {
	unsigned kills, nr_lines;
	int seen[OOMKILL_NR];
	char lines[OOMKILL_MAX_LINES][OOMKILL_MAX_LINE + 1];
};

/* One /dev/kmsg record ("PRI,SEQ,USEC,FLAGS;TEXT\n", then " KEY=VALUE" lines): kept in p when
 * its text is an OOM-killer line (cut to OOMKILL_MAX_LINE bytes, anything not printable ASCII
 * made '?').  Returns its kind, or -1. */
int oomkill_pick_record(struct oomkill_pick *p, const char *rec, size_t len);
/* {"kills": N, "lines": [...]} of what p kept, the "oom" of a workload line; NULL when no
 * process was killed (or out of memory). */
json_t *oomkill_pick_json(const struct oomkill_pick *p);

/* "SIGKILL" for 9 (Linux numbers), "SIGRTMIN+2" for real-time signals; NULL out of 1..64. */
const char *oomkill_signal_name(int sig, char *buf, size_t len);
/* The kind of a kernel message (its text, without the /dev/kmsg record prefix), or -1 when it
 * is none of the OOM killer's. */
int oomkill_line_kind(const char *text, size_t len);
/* The guest's "oom" object {"kills": N, "lines": [TEXT...]} checked (N 1..OOMKILL_MAX_KILLS,
 * 1..OOMKILL_MAX_LINES lines, each 1..OOMKILL_MAX_LINE printable ASCII bytes of a known kind)
 * and rebuilt with what its lines say: {"kills", "lines", "pid", "task", "anon_rss_kib",
 * "total_vm_kib", "constraint", "nodemask"}, the last six only when a line gave them.  NULL
 * when v is not valid. */
json_t *oomkill_check(const json_t *v);
/* One line for a run's reason, from a checked object: "process 149 (page_fault2), anon-rss
 * 203880 kB, constraint CONSTRAINT_MEMORY_POLICY, nodemask 0". */
void oomkill_describe(const json_t *oom, char *buf, size_t len);
