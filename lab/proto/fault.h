/* The faults a job can make the guest agent provoke, for tests of the lab's failure handling
 * (the job's "debug", the guest job's "fault" and "fault_after", runners/PROTOCOL.md).  One
 * table in fault.c, used by the host's job parser and by the agent.  Pure. */
#pragma once
#include <jansson.h>

#include "util/error.h"

enum fault {
	FAULT_NONE = 0,
	FAULT_PANIC,  /* the agent crashes the kernel (sysrq c) */
	FAULT_HANG,   /* the agent stops all output */
};

/* When the fault fires: right after hello, or once the workloads ran (so that a post-mortem
 * has results to recover). */
enum fault_after {
	FAULT_AFTER_HELLO = 0,
	FAULT_AFTER_WORKLOADS,
};

/* The name of f ("none", "panic", "hang"), "unknown" out of range. */
const char *fault_name(enum fault f);
const char *fault_after_name(enum fault_after a);
/* v (may be NULL: absent, FAULT_NONE) must be one of the names; else "must be one of ..." at
 * path and -EINVAL. */
int fault_parse(const json_t *v, const char *path, enum fault *out, struct lab_error *err);
/* The same for fault_after (absent: FAULT_AFTER_HELLO). */
int fault_after_parse(const json_t *v, const char *path, enum fault_after *out,
		      struct lab_error *err);
