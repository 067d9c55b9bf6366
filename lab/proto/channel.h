/* The results channel (runners/PROTOCOL.md, "Guest -> host"): one compact JSON object per
 * line, its type in "t".  The type names are spelled here, for the agent's emitters and for
 * the host's reader; channel.c has one row per type with the checks its fields must pass.
 * The guest is untrusted: channel_parse() bounds every size, checks every field and rebuilds
 * the line from the checked fields only.  Pure. */
#pragma once
#include <jansson.h>
#include <stddef.h>

/* One line, newline included, is at most this long. */
#define CHANNEL_MAX_LINE (1024 * 1024)

#define CHANNEL_KEY_TYPE "t"
#define CHANNEL_T_HELLO "hello"
#define CHANNEL_T_TOPOLOGY "topology"
#define CHANNEL_T_KERNEL "kernel"
#define CHANNEL_T_KNOBS "knobs"
#define CHANNEL_T_CPUS_ONLINE "cpus-online"
#define CHANNEL_T_HEARTBEAT "heartbeat"
#define CHANNEL_T_WORKLOAD_START "workload-start"
#define CHANNEL_T_WORKLOAD "workload"
#define CHANNEL_T_ERROR "error"
#define CHANNEL_T_VMSTAT "vmstat"
#define CHANNEL_T_DONE "done"

/* Bounds of a runner's output in a workload line. */
#define CHANNEL_MAX_RESULTS 4096
#define CHANNEL_MAX_METRICS 64

enum channel_type {
	CHANNEL_HELLO,
	CHANNEL_TOPOLOGY,
	CHANNEL_KERNEL,
	CHANNEL_KNOBS,
	CHANNEL_CPUS_ONLINE,
	CHANNEL_HEARTBEAT,
	CHANNEL_WORKLOAD_START,
	CHANNEL_WORKLOAD,
	CHANNEL_ERROR,
	CHANNEL_VMSTAT,
	CHANNEL_DONE,
	CHANNEL_UNKNOWN, /* not JSON, no "t", or a type this table does not know */
};

/* What a line may hold, from the job and the host's limits. */
struct channel_bounds {
	unsigned nr_workloads; /* workload indexes are 0..nr_workloads-1 */
	unsigned max_nodes;    /* topology */
	unsigned max_cpus;
};

/* A checked line.  body holds only checked fields (a new reference, never NULL after a 0
 * return), per type:
 *   hello          {"agent"?: s, "release"?: s}
 *   topology       {"nodes": [{id, cpus, memory_mib, managed_mib}], "distances": [[..]],
 *                   "kernel_node"?: the index of the node that holds the kernel image}
 *   kernel         {"config": s|null, "config_error"?: s, "vmstat": COUNTERS|null}
 *   knobs          {"ok": b, "knobs": [ENTRY], "error"?: s}
 *   cpus-online    {present, requested, failed_count, failed, wall_s, rcu_expedited,
 *                   domains_batched?, rebuild_s?}
 *   heartbeat      {}
 *   workload-start {"index", "nodes"?: [{id, free_kib, used_kib, pcp_kib, kept_kib}]} (the
 *                  list is left out when it fails its checks)
 *   workload       {"index", "exit", "wall_s", "output"?, "stderr"?, "error": why or "",
 *                   "signal"?: 1..64, "oom"?: as oomkill_check() rebuilds it}
 *   error          {"msg"?: s}
 *   vmstat         {"vmstat": COUNTERS|null}
 *   done           {"ok": b}
 * COUNTERS: {"vma_lock_NAME": N >= 0, ...}, 1..16 of them (none is null). */
struct channel_msg {
	enum channel_type type;
	json_t *body;
};

/* The name of a type ("hello"), "unknown" for CHANNEL_UNKNOWN. */
const char *channel_type_name(enum channel_type t);
/* Parse and check one line (without its newline).  0 with *msg filled, or -EINVAL: not JSON,
 * an unknown type (msg->type says CHANNEL_UNKNOWN) or a field that fails its check; the line
 * is then to be ignored.  -ENOMEM when out of memory. */
int channel_parse(const char *line, size_t len, const struct channel_bounds *b,
		  struct channel_msg *msg);
void channel_msg_free(struct channel_msg *msg);
