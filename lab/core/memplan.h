/* The memory plan of a guest: RAM per NUMA node from the topology, what the guest kernel needs
 * on each node for the CPUs there, what QEMU needs beside the guest's RAM, and the check of all
 * that against the host's memory before anything boots.  Pure: no I/O; the host's figures are
 * passed in.  The constants come from measured boots (lab/tests/bench-boot.sh, see
 * memplan.c). */
#pragma once
#include <jansson.h>

#include "core/topology.h"
#include "util/error.h"

struct memplan_node {
	unsigned id, vcpus;
	unsigned long memory_mib; /* as the topology asks */
	unsigned long min_mib;    /* what the guest kernel needs there for its vCPUs */
};

struct memplan {
	unsigned nr_nodes;
	struct memplan_node nodes[TOPO_MAX_NODES];
	unsigned vcpus;
	unsigned long guest_mib; /* sum of the nodes */
	unsigned long qemu_mib;  /* QEMU's own memory for this many vCPUs, an upper estimate */
	unsigned long host_reserve_mib; /* left to the host, the lab and libvirt */
	unsigned long need_mib;  /* guest + QEMU + reserve */
};

/* Per node: this much plus MEMPLAN_NODE_MIB_PER_VCPU for each vCPU on it. */
#define MEMPLAN_NODE_BASE_MIB 64ul
#define MEMPLAN_NODE_MIB_PER_VCPU 1ul
/* QEMU under TCG, beside the guest RAM: this much plus vCPUs^2 / MEMPLAN_QEMU_VCPU2_PER_MIB
 * (its peak grows quadratically with vCPUs, see memplan.c). */
#define MEMPLAN_QEMU_BASE_MIB 256ul
#define MEMPLAN_QEMU_VCPU2_PER_MIB 45ul
#define MEMPLAN_HOST_RESERVE_MIB 512ul

void memplan_build(const struct topology *t, struct memplan *p);
/* 0 when every node holds what its vCPUs need and the whole plan fits in host_available_mib;
 * else -EINVAL with *err naming the JSON path (prefix, e.g. "topology") and the numbers. */
int memplan_check(const struct memplan *p, const char *prefix, unsigned long host_available_mib,
		  unsigned long host_total_mib, struct lab_error *err);
/* How many guests of this plan fit in host_available_mib at once (each its RAM and QEMU, the
 * reserve once); 0 when not even one does. */
unsigned memplan_fit(const struct memplan *p, unsigned long host_available_mib);
/* {"guest_mib","qemu_mib","host_reserve_mib","need_mib","nodes":[{"id","vcpus","memory_mib",
 * "min_mib"}]} for the report. */
json_t *memplan_to_json(const struct memplan *p);
