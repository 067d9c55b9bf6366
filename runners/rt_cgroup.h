/* A cgroup v2 group of a workload's own (kbuild, PROTOCOL.md): the cgroup2 hierarchy mounted
 * where nothing mounted it (the agent mounts only proc, sysfs and devtmpfs), the memory
 * controller enabled for the root's children, a child group made fresh, the workload's
 * processes moved in, and the group's own counters read: its CPU time (cpu.stat), its
 * memory (memory.current, memory.peak, memory.stat) count only what ran in it. */
#pragma once
#include <stddef.h>

#define RT_CGROUP_ROOT "/sys/fs/cgroup"

/* Mount cgroup2 on root unless it is mounted there, then enable +memory in the root's
 * cgroup.subtree_control.  0, or -errno with why set (no cgroup2 at all: the run fails);
 * *memory is 0 with memwhy set when the memory controller cannot be had (the memory metrics
 * are then unavailable, the build still measured). */
int rt_cgroup_setup(const char *root, int *memory, char *why, size_t len);
/* root/name made anew (an empty leftover of an earlier run removed first).  0 or -errno. */
int rt_cgroup_create(const char *root, const char *name, char *dir, size_t len);
/* Move the calling process into dir (cgroup.procs); what it starts stays there.  0 or -errno. */
int rt_cgroup_enter(const char *dir);
/* A one-number file of dir (memory.peak, memory.current).  0, -ENOENT when the kernel lacks it,
 * or -errno. */
int rt_cgroup_value(const char *dir, const char *file, long long *out);
/* The value of "key N" in a flat-keyed file of dir (cpu.stat, memory.stat).  0, -ENOENT when
 * the file or the key is missing, or -errno. */
int rt_cgroup_key(const char *dir, const char *file, const char *key, long long *out);
