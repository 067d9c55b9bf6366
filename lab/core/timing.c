#include "core/timing.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct timing_info models[TIMING__COUNT] = {
	[TIMING_KVM] = {
		.name = "kvm",
		.title = "KVM (hardware virtualisation)",
		.measures = "wall-clock time on real CPUs running in parallel",
		.cannot = "be compared with runs on other hosts or other loads without noise",
		.accel = DOMAIN_ACCEL_KVM,
		.host_cost = 1.0,
		.shows = WORKLOAD_MECH_CONTENTION | WORKLOAD_MECH_PARALLEL,
	},
	[TIMING_TCG] = {
		.name = "tcg",
		.title = "multi-threaded TCG (emulated, host-clock timed)",
		.measures = "emulated code timed by the host clock, one host thread per vCPU: the "
			    "shape of parallel scaling as far as the host's cores go",
		.cannot = "give stable figures on a busy or small host (10-13 % between boots on 2 "
			  "cores), nor real speed-ups beyond the host's core count",
		.accel = DOMAIN_ACCEL_TCG,
		.host_cost = 1.0,
		.shows = WORKLOAD_MECH_CONTENTION | WORKLOAD_MECH_PARALLEL,
		.shows_to_host_cpus = 1,
		.blind = "more threads at once than the host has CPUs take turns on them, so "
			 "neither their speed-up nor their contention is the guest's",
	},
	[TIMING_ICOUNT] = {
		.name = "icount",
		.title = "deterministic (single-threaded TCG, instruction-counted time)",
		.measures = "the instruction cost of a code path per operation, spinning included: "
			    "guest time advances 1 ns per guest instruction whatever the host does",
		.cannot = "show real parallel speed-up or contention between truly concurrent CPUs "
			  "(all vCPUs take turns on one host thread); tick-based CPU times stay "
			  "noisy",
		.accel = DOMAIN_ACCEL_TCG_ICOUNT,
		.deterministic = 1,
		.host_cost = 4.0,
		.blind = "the vCPUs take turns in slices of millions of instructions on one clock, "
			 "so two never hold or wait for a lock at once and N threads share one "
			 "CPU's throughput: lock contention and parallel speed-up cannot happen",
	},
	[TIMING_QUANTUM] = {
		.name = "quantum",
		.title = "contention model (deterministic rounds of Q instructions per vCPU)",
		.measures = "the instruction cost of a code path per operation with the vCPUs "
			    "running side by side in guest time, so they can find a lock taken: each "
			    "vCPU runs at most Q instructions a round, the clock advances one round",
		.cannot = "show effects finer than a round (a lock held and dropped within Q "
			  "instructions looks free to the vCPUs after it in the round), cache, "
			  "memory-bandwidth or NUMA-distance costs (an instruction costs the same "
			  "everywhere), or real wall-clock speed-up",
		.accel = DOMAIN_ACCEL_TCG_ICOUNT,
		.deterministic = 1,
		.rounds = 1,
		.host_cost = 8.0,
		.shows = WORKLOAD_MECH_CONTENTION | WORKLOAD_MECH_PARALLEL,
		.costs_title = "contention model with NUMA costs (rounds of Q instructions per "
			       "vCPU; a cache line taken from another vCPU costs its latency)",
		.costs_measures = "the instruction cost of a code path per operation with the "
				  "vCPUs side by side in guest time, each cache line a vCPU takes "
				  "from another charged the preset's latency between their nodes "
				  "(the lines of locked instructions, releases and spinlock "
				  "functions, and the data touched inside a held spinlock)",
		.costs_cannot = "show effects finer than a round beyond what the charges add, "
				"lines touched only outside spinlock sections, DRAM latency or "
				"bandwidth (memory on another node is not charged), or real "
				"wall-clock speed-up; every charge scales with the preset's ipns",
	},
};

const struct timing_info *timing_info(enum timing_model m)
{
	return (unsigned)m < TIMING__COUNT ? &models[m] : NULL;
}

int timing_parse(const char *s, enum timing_model *out)
{
	if (!s)
		return -EINVAL;
	if (!strcmp(s, "auto")) {
		*out = TIMING_AUTO;
		return 0;
	}
	for (unsigned i = 0; i < TIMING__COUNT; i++)
		if (!strcmp(s, models[i].name)) {
			*out = (enum timing_model)i;
			return 0;
		}
	return -EINVAL;
}

#define HEX_DIGITS "0123456789abcdef"

int timing_key(enum timing_model m, unsigned quantum, const char *numa, char *buf, size_t len)
{
	int with_numa = numa && numa[0], n;

	if ((unsigned)m >= TIMING__COUNT ||
	    (with_numa && (!models[m].rounds || strspn(numa, HEX_DIGITS) < TIMING_NUMA_HEX)))
		return -EINVAL;
	if (!models[m].rounds)
		n = snprintf(buf, len, "%s", models[m].name);
	else if (with_numa)
		n = snprintf(buf, len, "%s-q%u-numa-%.*s", models[m].name, quantum, TIMING_NUMA_HEX,
			     numa);
	else
		n = snprintf(buf, len, "%s-q%u", models[m].name, quantum);
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

/* What may follow a key's quantum: nothing, or "-numa-" and TIMING_NUMA_HEX hex digits. */
static int parse_numa_part(const char *s, char numa[TIMING_NUMA_HEX + 1])
{
	static const char tag[] = "-numa-";

	if (!*s)
		return 0;
	if (strncmp(s, tag, sizeof(tag) - 1))
		return -EINVAL;
	s += sizeof(tag) - 1;
	if (strlen(s) != TIMING_NUMA_HEX || strspn(s, HEX_DIGITS) != TIMING_NUMA_HEX)
		return -EINVAL;
	if (numa)
		memcpy(numa, s, TIMING_NUMA_HEX + 1);
	return 0;
}

int timing_parse_key(const char *s, enum timing_model *m, unsigned *quantum,
		     char numa[TIMING_NUMA_HEX + 1])
{
	const char *dash = s ? strchr(s, '-') : NULL;
	char name[TIMING_KEY_MAX], *end;
	unsigned long q;

	*quantum = 0;
	if (numa)
		numa[0] = '\0';
	if (!dash)
		return timing_parse(s, m) < 0 || *m == TIMING_AUTO ? -EINVAL : 0;
	if ((size_t)(dash - s) >= sizeof(name) || dash[1] != 'q' || !isdigit((unsigned char)dash[2]))
		return -EINVAL;
	memcpy(name, s, (size_t)(dash - s));
	name[dash - s] = 0;
	errno = 0;
	q = strtoul(dash + 2, &end, 10);
	if (errno || q == 0 || q > DOMAIN_QUANTUM_MAX || timing_parse(name, m) < 0 ||
	    *m == TIMING_AUTO || !models[*m].rounds || parse_numa_part(end, numa) < 0) {
		if (numa)
			numa[0] = '\0';
		return -EINVAL;
	}
	*quantum = (unsigned)q;
	return 0;
}

enum timing_model timing_choose(enum timing_model req, int kvm_ok, unsigned vcpus, int ab,
				char *why, size_t len)
{
	if (req != TIMING_AUTO) {
		snprintf(why, len, "%s: asked for", models[req].name);
		return req;
	}
	if (kvm_ok) {
		snprintf(why, len, "kvm: KVM works on this host");
		return TIMING_KVM;
	}
	/* The contention model, not plain icount: as deterministic, it also shows what an A/B
	 * of a lock change is about (vCPUs finding a lock taken), and its boots cost less host
	 * time than icount's on make bench's verdict job (BENCHMARKS.md, verdict).  Its QEMU is
	 * built the first time it is needed. */
	if (ab && vcpus <= TIMING_ICOUNT_MAX_VCPUS) {
		snprintf(why, len, "quantum: no working KVM, and an A/B verdict needs figures the "
				   "host's load cannot move, with the vCPUs side by side");
		return TIMING_QUANTUM;
	}
	if (ab)
		snprintf(why, len, "tcg: no working KVM, and %u vCPUs are too many for one host "
				   "thread (the deterministic models are kept to %u)", vcpus,
			 TIMING_ICOUNT_MAX_VCPUS);
	else
		snprintf(why, len, "tcg: no working KVM; one kernel, so the shape of scaling "
				   "matters more than boot-to-boot precision");
	return TIMING_TCG;
}

unsigned timing_parallel(enum timing_model m, unsigned asked, unsigned free_cpus, unsigned fit,
			 unsigned runs, char *why, size_t len)
{
	unsigned n = asked ? asked : free_cpus;
	const char *from = asked ? "asked for" : "one per free host core";

	if (!models[m].deterministic) {
		if (asked > 1)
			snprintf(why, len, "1 guest at a time, not the %u asked for: under %s a "
				 "guest beside another moves its figures", asked, models[m].name);
		else
			snprintf(why, len, "1 guest at a time: under %s a guest beside another "
				 "moves its figures", models[m].name);
		return 1;
	}
	if (n < 1)
		n = 1;
	if (fit < 1)
		fit = 1;
	if (n > fit) {
		n = fit;
		from = "as many as the host's memory holds";
	}
	if (runs && n > runs) {
		n = runs;
		from = "one per run";
	}
	snprintf(why, len, "%u guest%s at once (%s): under %s a guest's figures do not depend on "
		 "what else runs", n, n == 1 ? "" : "s", from, models[m].name);
	return n;
}
