/* The guest kernel's log, for the OOM killer's words about a workload: the agent opens
 * /dev/kmsg at the end before it starts a runner, and afterwards reads what came since,
 * keeping only the OOM killer's lines (lab/proto/oomkill.h picks them; bounded). */
#pragma once
#include <jansson.h>

/* /dev/kmsg opened at its end, non-blocking: reads return only what the kernel logs from now
 * on.  An fd, or -errno. */
int rt_kmsg_open(void);
/* The "oom" of a workload line from what fd has seen since rt_kmsg_open, read without
 * waiting (at most RT_KMSG_MAX_RECORDS records): {"kills": N, "lines": [...]}, or NULL when
 * the OOM killer killed nothing meanwhile.  wait_s > 0: when it killed nothing yet, look
 * again for that long (the runner was SIGKILLed and the killer may still be printing). */
json_t *rt_kmsg_oom(int fd, double wait_s);

#define RT_KMSG_MAX_RECORDS 20000
