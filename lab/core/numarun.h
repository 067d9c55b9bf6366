/* A run with "numa_cost" (core/job.h): the NUMA cost plugin's output (lab/plugin/numacost.c,
 * schema numalab.numacost/1, written at QEMU's exit) checked and made the run's "numa_cost"
 * object, and whether a QEMU binary exports the per-vCPU charge the plugin calls.  Pure: the
 * caller reads the files and runs nm.
 *
 * The plugin's file (every N a non-negative integer):
 *   {"schema": "numalab.numacost/1", "charged": N, "directory_full": N, "lines": N,
 *    "stall_failed": N,
 *    "vcpus": [{"vcpu": N, "node": N, "accesses": N, "charged": N, "forwarded": N,
 *               "invalidations": N, "transfers_local": N, "transfers_remote": N}, ...],
 *    "windows": [{"id": N, "clock": N, "tasks": N, "charged": N, "transfers_local": N,
 *                 "transfers_remote": N}, ...]}
 * vcpus: one per vCPU in index order, each on the node the configuration gave it
 * (numapreset_plugin_cfg); windows: the runners' CPUID-marked windows (as the lock-instruction
 * counter's), summed over the vCPUs. */
#pragma once
#include <jansson.h>
#include <stddef.h>

#include "core/numapreset.h"
#include "core/topology.h"
#include "util/error.h"

#define NUMARUN_SCHEMA "numalab.numacost/1"
#define NUMARUN_MAX_BYTES (4u << 20) /* the plugin's file, read whole */
#define NUMARUN_MAX_WINDOWS 4096
/* What QEMU must export for the plugin (images/qemu/0003-icount-charge.patch). */
#define NUMARUN_QEMU_SYMBOL "qemu_plugin_vcpu_stall"

/* Parse and check the plugin's file (text of len bytes, untrusted) for a boot of topology t:
 * at most NUMARUN_MAX_BYTES, JSON without duplicate keys, the schema, every count above, one
 * vCPU entry per vCPU of t in order, each on its node.  *out a new reference.  -EINVAL with
 * err naming the JSON path. */
int numarun_parse(const char *text, size_t len, const struct topology *t, json_t **out,
		  struct lab_error *err);

/* The run's "numa_cost" object from a parsed file: the preset (its name, sha256, ipns and
 * whether a figure of it is an estimate), the plugin's totals, the per-vCPU counters summed
 * (transfers, invalidations, forwarded), "vcpus" and "windows" with the counts above only.
 * NULL when out of memory. */
json_t *numarun_report(const json_t *plugin, const struct numa_preset *p, const char *sha256);

/* Whether the text of `nm -D --defined-only BINARY` names symbol as a defined function
 * ("ADDRESS T NAME" lines, a version suffix "@..." allowed): 1 or 0. */
int numarun_nm_exports(const char *nm_text, const char *symbol);
