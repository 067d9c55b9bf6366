/* The faults a job can make the guest agent provoke, for tests of the lab's failure handling
 * (the job's "debug", the guest job's "fault" and "fault_after", runners/PROTOCOL.md).  One
 * table in fault.c, used by the host's job parser and by the agent.  Pure. */
#pragma once
#include <jansson.h>

#include "proto/channel.h"
#include "util/error.h"

enum fault {
	FAULT_NONE = 0,
	FAULT_PANIC,  /* the agent crashes the kernel (sysrq c) */
	FAULT_HANG,   /* the agent stops all output */
	/* A hostile guest (runners/rt_fault.c): the agent floods or garbles what the host reads,
	 * then goes on with the job; the host must stay bounded and mark the run. */
	FAULT_FLOOD_CHANNEL, /* FAULT_FLOOD_BYTES of valid heartbeat lines on the channel */
	FAULT_LONG_LINE,     /* one FAULT_LONG_LINE_BYTES line on the channel */
	FAULT_BAD_UTF8,      /* channel lines whose strings are not UTF-8 */
	FAULT_DEEP_JSON,     /* channel lines of deeply nested JSON */
	FAULT_FLOOD_CONSOLE, /* FAULT_FLOOD_BYTES on the console */
};

/* Sizes: a flood is above what the host accepts (lab/core/collect.h), so that the host's
 * bounds, not the guest, end it; the long line is twice the longest the host reads (the
 * host drops the rest byte by byte whatever the length, and a serial port under TCG carries
 * ~130 KB/s: 50 MiB would take 7 minutes). */
#define FAULT_FLOOD_BYTES (512ul << 20)
#define FAULT_LONG_LINE_BYTES (2ul * CHANNEL_MAX_LINE)

/* When the fault fires: right after hello, or once the workloads ran (so that a post-mortem
 * has results to recover). */
enum fault_after {
	FAULT_AFTER_HELLO = 0,
	FAULT_AFTER_WORKLOADS,
};

/* The name of f ("none", "panic", "hang", "flood-channel", ...), "unknown" out of range. */
const char *fault_name(enum fault f);
const char *fault_after_name(enum fault_after a);
/* v (may be NULL: absent, FAULT_NONE) must be one of the names; else "must be one of ..." at
 * path and -EINVAL. */
int fault_parse(const json_t *v, const char *path, enum fault *out, struct lab_error *err);
/* The same for fault_after (absent: FAULT_AFTER_HELLO). */
int fault_after_parse(const json_t *v, const char *path, enum fault_after *out,
		      struct lab_error *err);
