/* Timing models: how guest time relates to work, which decides what a figure means.  Pure.
 *
 *   kvm     hardware virtualisation: real CPUs, real parallelism, real timing noise.
 *   tcg     QEMU's multi-threaded TCG: one host thread per vCPU, emulated code timed by the
 *           host clock.  Shows the shape of parallel scaling as far as the host's cores go,
 *           but every host hiccup lands in guest timings (10-13 % boot-to-boot on 2 cores).
 *   icount  single-threaded TCG with -icount shift=0,sleep=off: guest time advances one
 *           nanosecond per guest instruction, whatever the host does, so a timing is the
 *           instruction cost of a code path (spinning on a contended lock included), and
 *           the same guest gives the same figure to ~0.2 %.  All vCPUs take turns on one host
 *           thread: it cannot show real parallel speed-up or contention between truly
 *           concurrent CPUs, and tick-based CPU times (sys_s) stay noisy.
 *   quantum the contention model: icount in rounds (the lab's QEMU patch, images/qemu).  Each
 *           vCPU runs at most Q instructions a round, the start vCPU rotating, and guest time
 *           advances by one round, not by the sum of every vCPU's instructions: N running
 *           vCPUs all run at full speed, overlap in guest time to within Q instructions, and
 *           can find a lock taken.  A vCPU that halts, pauses or waits is credited the rest
 *           of its round.  Deterministic like icount; costs more host time per round.
 *
 * One table (timing.c) names them for the job file, the CLI, reports, `lab compare` and the
 * dashboard. */
#pragma once
#include <stddef.h>

#include "core/domain.h"
#include "proto/workload.h"

enum timing_model {
	TIMING_TCG,    /* first: what a zeroed record (and every report before timing models) ran */
	TIMING_KVM,
	TIMING_ICOUNT,
	TIMING_QUANTUM,
	TIMING__COUNT,
	TIMING_AUTO = TIMING__COUNT, /* a request only: timing_choose() resolves it */
};

/* Single-threaded TCG starved CPU 0 with 256+ vCPUs when tried; auto keeps the deterministic
 * models (icount, quantum: all vCPUs on one host thread) to guests up to this size. */
#define TIMING_ICOUNT_MAX_VCPUS 128

/* The contention model's default round, instructions per vCPU.  Measured (4s-8c, pft and
 * mmap_contention, Q 250..16000): fault rates agree within ~1.5 % over the sweep; 1000 costs
 * ~1.7x the host time of plain icount at 8 vCPUs, 250 ~2.2x. */
#define TIMING_QUANTUM_DEFAULT 1000u
/* A key's NUMA cost part (timing_key()): this many hex digits of the preset's sha256. */
#define TIMING_NUMA_HEX 12
/* Longest timing key (timing_key()), NUL included: "quantum-q65535-numa-" and the digits. */
#define TIMING_KEY_MAX 40

struct timing_info {
	const char *name;          /* "kvm", "tcg", "icount", "quantum": job files, reports, CLI */
	const char *title;         /* one line for tables and the dashboard */
	const char *measures;      /* what a timing under it means */
	const char *cannot;        /* what it cannot show */
	enum domain_accel accel;
	int deterministic;         /* guest time independent of host load */
	int rounds;                /* takes a quantum, and runs only on the lab's QEMU build */
	unsigned shows;            /* WORKLOAD_MECH_* it can show (proto/workload.h) */
	int shows_to_host_cpus;    /* ... only while the guest's threads at once fit the host's
				    * CPUs (one host thread a vCPU, timed by the host clock) */
	const char *blind;         /* why it cannot show the others, one sentence */
	/* With the NUMA cost model's charges (a job's numa_cost; only a model with rounds):
	 * title, measures and cannot in place of the three above. */
	const char *costs_title, *costs_measures, *costs_cannot;
	double host_cost;          /* host time per guest second against multi-threaded TCG on
				    * 2 cores, for the run's limits (measured, lab/run/engine.c) */
};

const struct timing_info *timing_info(enum timing_model m);
/* "auto" and every model's name; -EINVAL otherwise. */
int timing_parse(const char *s, enum timing_model *out);
/* What pools: the model's name, and for a model with rounds "quantum-q<Q>", since figures of
 * two quanta are two models; with the NUMA cost model's charges (numa: the preset's sha256,
 * core/numapreset.h; NULL or "" without) "quantum-q<Q>-numa-<its first TIMING_NUMA_HEX hex
 * digits>", since the charges change every figure and two presets charge differently.
 * -EINVAL for numa with a model without rounds (nothing pays its charges) or numa not hex,
 * -ENOSPC when len is short. */
int timing_key(enum timing_model m, unsigned quantum, const char *numa, char *buf, size_t len);
/* A key back (a model's name alone parses too); -EINVAL for anything else.  numa (NULL: not
 * wanted) gets the key's TIMING_NUMA_HEX digits of the preset, "" without. */
int timing_parse_key(const char *s, enum timing_model *m, unsigned *quantum,
		     char numa[TIMING_NUMA_HEX + 1]);
/* Resolve a request.  auto: kvm when KVM works; without it quantum (the contention model)
 * when the job compares kernels (ab: two or more kernels, or a bisection) and the guest has at
 * most TIMING_ICOUNT_MAX_VCPUS vCPUs, else tcg.  An explicit kvm without working KVM, or icount
 * above the limit, is honoured as asked (the caller refuses kvm when KVM is off).  why gets
 * one sentence. */
enum timing_model timing_choose(enum timing_model req, int kvm_ok, unsigned vcpus, int ab,
				char *why, size_t len);
/* How many guests of one job run at once.  asked: the job's or the CLI's "parallel", 0 for
 * auto.  Under a host-clock model (kvm, tcg) one, since a guest beside another moves its
 * figures (an asked N > 1 is cut to 1 and why says so); under the deterministic model the
 * number asked, or for auto one per free host core (each icount guest runs its vCPUs on one
 * host thread); never more than fit (guests the host's memory holds at once, at least 1 is
 * assumed) nor than runs.  why gets one sentence. */
unsigned timing_parallel(enum timing_model m, unsigned asked, unsigned free_cpus, unsigned fit,
			 unsigned runs, char *why, size_t len);

/* The most a deterministic boot's seed (QEMU's -seed, runs[].seed) may be: exact in any JSON
 * reader (jq and JavaScript hold numbers as doubles). */
#define RUN_SEED_MAX ((1ULL << 53) - 1)
