/* Whether a timing model can show what a series depends on: the workload registry's
 * mechanisms (proto/workload.h) against the model's (core/timing.h).  A verdict the model
 * cannot back is "outside this model", with the reason, never "no change".  Pure. */
#pragma once
#include <jansson.h>
#include <stddef.h>

enum modelfit {
	MODELFIT_INSIDE,  /* the model shows everything the series can move by */
	MODELFIT_PARTLY,  /* it misses a mechanism the series also counts: a change found is
			   * real (instructions), a "no change" is not */
	MODELFIT_OUTSIDE, /* the series measures only what the model cannot show */
};

/* timing_key: host.timing.key or model ("icount", "quantum-q1000"; an unknown one is taken as
 * inside).  host_cpus: the smallest CPU count of the hosts the series ran on, 0 unknown.
 * params: the series' workload params without "tasks".  why gets one sentence when the
 * result is not MODELFIT_INSIDE ("" otherwise). */
enum modelfit modelfit_series(const char *timing_key, unsigned host_cpus, const char *workload,
			      const json_t *params, const char *metric, unsigned tasks,
			      char *why, size_t len);
/* "inside", "partly" or "outside": the name reports and indexes give a fit. */
const char *modelfit_name(enum modelfit f);
/* Why the model of timing_key cannot show what it cannot, one sentence; "" for a model that
 * shows everything (or an unknown key). */
const char *modelfit_blind(const char *timing_key);
/* 1 when the model of timing_key shows the direction of this series' change but not its
 * size: the contention model (rounds of Q instructions) and a series that depends on lock
 * contention, whose level is set by how the rounds cut the lock's hand-offs (it moves with
 * Q: configs/seeds/README.md, "The quantum"); else 0. */
int modelfit_size_bound(const char *timing_key, const char *workload, const json_t *params,
			const char *metric, unsigned tasks);
