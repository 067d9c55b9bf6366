/* What the guest said on the results channel, validated line by line.  Pure: the watcher
 * feeds lines in; nothing here trusts the guest (sizes bounded, types checked). */
#pragma once
#include <jansson.h>
#include <stddef.h>

#include "core/topology.h"

#define COLLECT_MAX_LINE (1024 * 1024)
#define COLLECT_MAX_TOTAL (64 * 1024 * 1024)
#define COLLECT_MAX_RESULTS 4096
#define COLLECT_MAX_METRICS 64

struct guest_log {
	unsigned nr_workloads;   /* how many the job asked for: indexes beyond are rejected */
	int hello;
	char agent[64];
	char release[128];
	json_t *observed;        /* topology in report shape, or NULL */
	json_t *workloads;       /* array indexed by workload index; null until reported */
	json_t *knobs;           /* the "knobs" line, rebuilt from checked fields, or NULL */
	json_t *online;          /* the "cpus-online" line, rebuilt from checked fields, or NULL */
	int done, done_ok;
	unsigned bad_lines;      /* unparsable or invalid lines (ignored) */
	char last_error[256];    /* last `error` message or validation failure */
	double t_hello, t_first_start, t_last_end, t_done; /* host seconds, -1 = never */
};

int collect_init(struct guest_log *g, unsigned nr_workloads);
void collect_free(struct guest_log *g);
/* Consume one line; returns 1 when the line is progress (any valid message), else 0. */
int collect_line(struct guest_log *g, const char *line, size_t len, double t);
/* Workloads that exited non-zero or sent invalid output / that never reported. */
void collect_count(const struct guest_log *g, int *failed, int *missing);
/* Compare requested with observed: memory within 5%, everything else exact.  *mismatches
 * gets an array of strings (empty when they match).  Returns 1 on match, 0 otherwise. */
int collect_compare_topology(const struct topology *req, const json_t *observed,
			     json_t **mismatches);
