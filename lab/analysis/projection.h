/* A projection, never a measurement: the throughput of one shared spinlock's workload from 1
 * to N CPUs of a target machine the host cannot emulate at speed (issue "lock counts and a
 * projection").  Inputs measured deterministically on the plain kernel: the instructions per
 * operation inside the lock and outside it.  The model: exact MVA of the machine-repairman
 * model (analysis/mva.h), the lock's cache line moving to the next holder as a hand-off cost
 * per acquisition.  What the host cannot measure (cycles per instruction, the clock, the
 * line's transfer within and across sockets) is drawn from priors (core/projpriors.h), and
 * the result is a 5-95 % band over the draws.  A projection is labelled one wherever it
 * appears and never enters a verdict.  Pure. */
#pragma once
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "core/projpriors.h"
#include "util/strbuf.h"

#define PROJ_MAX_CPUS 1024 /* each draw costs O(N^2) */
#define PROJ_MAX_DRAWS 4000

enum proj_lock {
	PROJ_LOCK_QUEUED, /* qspinlock/MCS: the lock goes to one waiter (Linux since 4.2) */
	PROJ_LOCK_TICKET, /* every waiter reads the released line (Linux before 4.2, seed 000's) */
};

struct proj_input {
	double insn_inside, insn_outside; /* per operation, > 0 and >= 0 */
	unsigned sockets, cpus_per_socket; /* the target; CPUs fill socket 0 first, then 1, ... */
	unsigned nmax;                     /* project to 1..nmax CPUs, <= PROJ_MAX_CPUS */
	enum proj_lock lock;
	int no_transfer;  /* hand-off 0: the contention model's own terms (it has no caches) */
	int private_lock; /* a lock per CPU (split locks, each task its own, as measured): nobody
			   * waits and no line moves, X(n) = n / (Z + S); no knee */
	unsigned draws;   /* 1..PROJ_MAX_DRAWS */
	uint64_t seed;    /* the draws are this seed's: the same seed, the same band */
};

struct proj_point {
	unsigned n;
	double lo, mid, hi;     /* operations per second over all CPUs: 5 %, 50 %, 95 % */
	double speedup_lo, speedup_mid, speedup_hi; /* 5/50/95 % over draws of X(n) / X(1): the
						     * band without the clock and CPI's spread */
};

struct proj_result {
	struct proj_point *points; /* nmax of them, the caller's room */
	double knee[3];            /* 5/50/95 %: (Z + S + H) / (S + H), H at nmax CPUs;
				    * INFINITY with a private lock */
	double p_remote_nmax;      /* the chance a hand-off crosses sockets at nmax CPUs */
};

/* The chance that the lock's next holder (any of n CPUs, uniformly) is on another socket than
 * the last one, and the chance it is another CPU of the same socket, n CPUs filling sockets
 * of cps CPUs in order. */
void projection_handoff_odds(unsigned n, unsigned sockets, unsigned cps, double *remote,
			     double *local);
/* -EINVAL for inputs out of range (nothing written), -ENOMEM. */
int projection_run(const struct proj_input *in, const struct proj_priors *pr,
		   struct proj_result *out);

#define PROJECTION_SCHEMA "numalab.projection/1"

/* What was projected, for the outputs: the target's name and where the priors came from. */
struct proj_label {
	const char *target;  /* "4s-512c" */
	const char *priors;  /* "configs/projection/priors.json" */
};

/* The result as text: the word PROJECTION first, the model and inputs, the knee, one row per
 * power of two and nmax.  And as JSON (schema numalab.projection/1, "projection": true), every
 * n.  Both say the band is over the priors' draws, not a confidence interval of a
 * measurement. */
int projection_text(const struct proj_input *in, const struct proj_priors *pr,
		    const struct proj_label *l, const struct proj_result *res, struct strbuf *sb);
json_t *projection_json(const struct proj_input *in, const struct proj_priors *pr,
			const struct proj_label *l, const struct proj_result *res);
