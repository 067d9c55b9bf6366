/* Shared by the guest agent and the workload runners (runners/rt_*.c is linked into each).
 * The guest programs are static and self-contained: besides runners/rt_*.c they may use only
 * the host-guest contract (lab/proto) and the pure helpers of lab/util that the Makefile links
 * into them (RUN_UTIL, header-only cleanup.h), never lab/core, lab/analysis, lab/virt or
 * lab/stage. */
#pragma once
#include <jansson.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#include "proto/channel.h"
#include "util/cleanup.h"

/* Exit statuses of runners (PROTOCOL.md): 2 means bad parameters. */
#define RT_EXIT_OK 0
#define RT_EXIT_FAIL 1
#define RT_EXIT_USAGE 2

/* write() until everything is out; retries EINTR and partial writes.  0 or -errno. */
int rt_write_full(int fd, const void *buf, size_t len);

/* Write value into an existing file (a /sys or /proc setting, truncated first), and close it:
 * the kernel may refuse a setting in write() or close().  0 or -errno. */
int rt_write_file(const char *path, const char *value);

/* Serialise j as one compact line with sorted keys plus "\n" and write it fully.  -EMSGSIZE
 * (nothing written) when the line would exceed CHANNEL_MAX_LINE (lab/proto/channel.h). */
int rt_emit_line(int fd, const json_t *j);

/* {"value": v, "unit": unit, "better": "higher"|"lower"}; NULL on allocation failure. */
json_t *rt_metric(double value, const char *unit, const char *better);

/* Whole files (also /proc and /sys ones, whose size stat() does not report) are read with
 * fs_read_file() from util/fs.h. */

/* Decimal unsigned integer in [min, max], the whole string, no sign.  0 or -EINVAL/-ERANGE. */
int rt_parse_ulong(const char *s, unsigned long min, unsigned long max, unsigned long *out);

/* Kernel CPU list ("0-3,8,10-11", trailing newline allowed) -> sorted, allocated array.  An
 * empty string gives n = 0 (a memoryless or CPU-less node has an empty cpulist). */
int rt_parse_cpulist(const char *s, unsigned **out, size_t *n);

/* CLOCK_MONOTONIC in seconds. */
double rt_now_s(void);

/* Replace bytes that are not valid UTF-8 (and NULs) with '?' in place, so that jansson accepts
 * arbitrary program output as a string. */
void rt_utf8_sanitize(char *s, size_t len);

/* The runner calling convention (PROTOCOL.md): BIN_DIR/NAME --json, then --KEY VALUE per
 * param in sorted key order; "_" in keys becomes "-"; arrays are comma-joined; numbers are
 * integers when integral; true is a bare --KEY, false (and null) omit the option.  params may
 * be NULL.  *out is NULL-terminated; free it with rt_argv_free(). */
int rt_argv_build(const char *bin_dir, const char *name, const json_t *params, char ***out);
void rt_argv_free(char **argv);

/* The "topology" results line ({"t":"topology", ...}, PROTOCOL.md): nodes with cpus, present and
 * managed memory, the distance matrix, the online CPUs and the node that holds the kernel
 * image, as the running kernel sees them.
 * root prefixes /sys and /proc paths ("" for the real ones; tests pass a fake tree). */
int rt_topology_json(const char *root, json_t **out);

/* Each node's memory as the next workload finds it, for the "workload-start" line
 * (PROTOCOL.md): [{"id", "free_kib", "used_kib", "pcp_kib", "kept_kib"}], MemFree and MemUsed
 * of the node's meminfo; of the used, the free pages on the CPUs' lists (the pagesets' counts
 * in /proc/zoneinfo), which the allocator drains before the OOM killer runs; and of the free
 * memory what a user allocation bound to the node cannot take: per zone its min watermark
 * plus its lowmem reserve against the highest zone, at most the zone's free pages.  root as
 * for rt_topology_json(). */
int rt_node_memory_json(const char *root, json_t **out);
