/* Bringing every present CPU online from user space (the agent, PROTOCOL.md). */
#pragma once
#include <jansson.h>

/* Called about every beat_s seconds while CPUs are onlined: done of total so far. */
typedef void (*rt_online_beat)(void *ud, unsigned done, unsigned total);

/* Write 1 to ROOT/sys/devices/system/cpu/cpuN/online for every CPU in present but not in
 * online, in order, with RCU grace periods expedited meanwhile when the kernel lets us.
 * *out gets the "cpus-online" results line: present, requested (how many were offline),
 * failed_count, failed ([{cpu, error}], the first 16), wall_s, rcu_expedited.  A CPU that
 * refuses is recorded, not fatal: the topology line then shows what is online.  0 or -errno
 * when present/online cannot be read. */
int rt_online_all(const char *root, double beat_s, rt_online_beat beat, void *ud, json_t **out);
