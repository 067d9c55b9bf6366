/* Bringing every present CPU online from user space (the agent, PROTOCOL.md). */
#pragma once
#include <jansson.h>

/* Called about every beat_s seconds while CPUs are onlined: done of total so far. */
typedef void (*rt_online_beat)(void *ud, unsigned done, unsigned total);

/* Write 1 to ROOT/sys/devices/system/cpu/cpuN/online for every CPU in present but not in
 * online, in order, with RCU grace periods expedited meanwhile when the kernel lets us.
 * cpuset: NULL, or the directory (under ROOT) of a mounted cgroup v1 cpuset hierarchy: its
 * cpuset.sched_load_balance is turned off while onlining and back on after, so the scheduler
 * domains are built once instead of once per CPU (rt_online.c).
 * *out gets the "cpus-online" results line: present, requested (how many were offline),
 * failed_count, failed ([{cpu, error}], the first 16), wall_s, rcu_expedited,
 * domains_batched, rebuild_s.  A CPU that refuses is recorded, not fatal: the topology line
 * then shows what is online.  0 or -errno when present/online cannot be read, or when load
 * balancing could not be turned back on (the guest would run without scheduler domains). */
int rt_online_all(const char *root, const char *cpuset, double beat_s, rt_online_beat beat,
		  void *ud, json_t **out);
