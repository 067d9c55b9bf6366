/* What the guest said on the results channel: the host's one reader of it.  Pure: the
 * watcher (lab/run/boot.c) feeds lines in as they arrive; each is checked by the channel's
 * table (lab/proto/channel.h) and what it says kept here; nothing here trusts the guest. */
#pragma once
#include <jansson.h>
#include <stddef.h>

#include "core/topology.h"
#include "proto/channel.h"

#define COLLECT_MAX_LINE CHANNEL_MAX_LINE
#define COLLECT_MAX_TOTAL (64 * 1024 * 1024)
/* The console file a guest may write (its disk, not the lab's memory: boot.c reads only its
 * end); the longest seen, a 512-vCPU boot, is a few MiB. */
#define COLLECT_MAX_CONSOLE (32 * 1024 * 1024)

/* What the guest said about its kernel (runners/rt_kconfig.c): the "kernel" line after boot and
 * the "vmstat" line before power-off. */
struct guest_kernel {
	int seen;               /* a kernel line arrived */
	char *config;           /* the guest's /proc/config.gz, decompressed; NULL when none */
	int config_same;        /* it is the build's .config the host gave the guest (not sent) */
	char config_error[256]; /* why there is none, as the guest said */
	json_t *vm_start;       /* {"vma_lock_success": N, ...} at boot, or NULL */
	json_t *vm_end;         /* the same before power-off, or NULL */
};

struct guest_log {
	unsigned nr_workloads;   /* how many the job asked for: indexes beyond are rejected */
	int hello;
	char agent[64];
	char release[128];
	json_t *observed;        /* topology in report shape, or NULL */
	json_t *workloads;       /* array indexed by workload index; null until reported */
	json_t *start_memory;    /* the same: each node's memory as the workload started
				  * ([{id, free_kib, used_kib, pcp_kib, kept_kib}]), null until
				  * then */
	json_t *knobs;           /* the "knobs" line, rebuilt from checked fields, or NULL */
	json_t *online;          /* the "cpus-online" line, rebuilt from checked fields, or NULL */
	struct guest_kernel kernel;
	int done, done_ok;
	unsigned bad_lines;      /* unparsable, invalid or unknown lines (ignored) */
	char last_error[256];    /* last `error` message or validation failure */
	double t_hello, t_first_start, t_last_end, t_done; /* host seconds, -1 = never */
};

int collect_init(struct guest_log *g, unsigned nr_workloads);
void collect_free(struct guest_log *g);
/* Consume one line; returns 1 when the line is progress (any valid message), else 0. */
int collect_line(struct guest_log *g, const char *line, size_t len, double t);
/* Consume every complete line of text (a last line without its newline may be torn and is
 * left out), all at time t; returns how many were progress. */
size_t collect_text(struct guest_log *g, const char *text, size_t len, double t);
/* How the first workload that died of a signal or met the OOM killer died, for the run's
 * reason: "workloads[1] (page_fault2) killed by the OOM killer: process 145 (page_fault2),
 * anon-rss 225800 kB, constraint CONSTRAINT_MEMORY_POLICY, nodemask 0" or "workloads[0] (pft)
 * killed by SIGSEGV (signal 11)"; "" when none did.  job (may be NULL) names the workloads. */
struct job;
void collect_death_note(const struct guest_log *g, const struct job *job, char *buf,
			size_t len);
/* Workloads that exited non-zero or sent invalid output / that never reported. */
void collect_count(const struct guest_log *g, int *failed, int *missing);
/* Compare requested with observed: memory within 5%, everything else exact.  *mismatches
 * gets an array of strings (empty when they match).  Returns 1 on match, 0 otherwise. */
/* The report's view of the vma_lock counters: {"start": {...}, "end": {...}, "delta": {...}},
 * or null when the guest had none (a kernel without PER_VMA_LOCK_STATS). */
json_t *collect_vma_lock_json(const struct guest_kernel *k);
int collect_compare_topology(const struct topology *req, const json_t *observed,
			     json_t **mismatches);
