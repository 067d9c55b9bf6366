/* A run with "numa_cost" (core/job.h): the NUMA cost plugin (lab/plugin/numacost.c) around one
 * boot.  Once per job: the lab's QEMU must take a per-vCPU charge and the plugin must be
 * built.  Before each boot: its configuration (numapreset_plugin_cfg) and the kernel's symbol
 * map in the run's directory, and the -plugin value for the domain (core/domain.h).  After:
 * the plugin's file made the run's "numa_cost" object (core/numarun.h). */
#pragma once
#include <jansson.h>
#include <stddef.h>

#include "core/job.h"

/* The kernel command-line word the plugin's map needs: the vmlinux's own addresses. */
#define NUMACOST_CMDLINE "nokaslr"

/* Whether qemu (the lab's build the job boots) exports NUMARUN_QEMU_SYMBOL, read with
 * `nm -D`, and plugin/numacost.so is there beside runners_dir.  0; -EINVAL with why when the
 * QEMU has no per-vCPU charge (a bad input: rebuild it); another negative errno with why when
 * nm cannot read it or the plugin is missing. */
int numacost_check_host(const char *qemu, const char *runners_dir, char *why, size_t why_len);

/* Writes run_dir/numacost.cfg for job's preset and topology and run_dir/numacost.map from
 * kernel (a vmlinux; one without symbols gets an empty map: the plugin can do without) and
 * fills plugin with "file=...,cfg=...,out=run_dir/numacost.json,map=...".  *no_map (may be
 * NULL): 1 when the map is empty.  0, or a negative errno with why set. */
int numacost_prepare(const char *run_dir, const struct job *job, const char *kernel,
		     const char *runners_dir, char *plugin, size_t len, int *no_map, char *why,
		     size_t why_len);

/* Reads run_dir/numacost.json into *out, the run's "numa_cost" object (a new reference), and
 * removes the map.  0; -EPROTO with *out set and why saying so when the QEMU did not take
 * every charge (stall_failed); another negative errno with why set and *out NULL when the
 * file is missing or not what the plugin writes. */
int numacost_collect(const char *run_dir, const struct job *job, json_t **out, char *why,
		     size_t why_len);
