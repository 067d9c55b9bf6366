#include "core/memplan.h"

#include <errno.h>
#include <string.h>

/* Why these numbers (4-socket guests, lab kernel, TCG, lab/tests/bench-boot.sh):
 * - The guest kernel reserves per CPU its per-CPU area, idle and per-CPU kthread stacks
 *   (ksoftirqd, migration, cpuhp, kworkers, RCU) and per-zone page lists: the 256-vCPU guest's
 *   "Memory: ... reserved" line grows by about half a MiB per vCPU over the 8-vCPU one once the
 *   struct page array (1/64 of RAM) is taken out, and slab grows after boot: 1 MiB per vCPU
 *   on its node, plus 64 MiB for the node's own bookkeeping and the first workload.
 * - QEMU's peak resident memory (VmHWM, guest pages it touched included) at the first
 *   workload, 4-socket topologies of configs/topologies/: 8 vCPUs 206 MiB, 64: 409, 128:
 *   552, 256: 1511, and 512: 5741 MiB already during boot (4 GiB more than at 256 for twice
 *   the vCPUs; the guest itself had touched under 1 GiB).  It grows with the square of the
 *   vCPUs, so the plan takes 256 MiB + vCPUs^2/45 MiB: 257, 347, 620, 1712, 6081 MiB. */

void memplan_build(const struct topology *t, struct memplan *p)
{
	memset(p, 0, sizeof(*p));
	p->nr_nodes = t->nr_nodes < TOPO_MAX_NODES ? t->nr_nodes : TOPO_MAX_NODES;
	p->vcpus = t->vcpus;
	for (unsigned i = 0; i < p->nr_nodes; i++) {
		struct memplan_node *n = &p->nodes[i];

		n->id = t->nodes[i].id;
		n->vcpus = t->nodes[i].nr_cpus;
		n->memory_mib = t->nodes[i].memory_mib;
		n->min_mib = MEMPLAN_NODE_BASE_MIB + MEMPLAN_NODE_MIB_PER_VCPU * n->vcpus;
		p->guest_mib += n->memory_mib;
	}
	p->qemu_mib = MEMPLAN_QEMU_BASE_MIB +
		      (unsigned long)t->vcpus * t->vcpus / MEMPLAN_QEMU_VCPU2_PER_MIB;
	p->host_reserve_mib = MEMPLAN_HOST_RESERVE_MIB;
	p->need_mib = p->guest_mib + p->qemu_mib + p->host_reserve_mib;
}

int memplan_check(const struct memplan *p, const char *prefix, unsigned long host_available_mib,
		  unsigned long host_total_mib, struct lab_error *err)
{
	char path[128];

	for (unsigned i = 0; i < p->nr_nodes; i++) {
		const struct memplan_node *n = &p->nodes[i];

		if (n->memory_mib >= n->min_mib)
			continue;
		snprintf(path, sizeof(path), "%s.nodes[%u].memory_mib", prefix, i);
		return error_set(err, path,
				 "%lu MiB is too little for the %u vCPUs of node %u: the guest "
				 "kernel needs at least %lu MiB there (%lu + %lu per vCPU)",
				 n->memory_mib, n->vcpus, n->id, n->min_mib, MEMPLAN_NODE_BASE_MIB,
				 MEMPLAN_NODE_MIB_PER_VCPU);
	}
	if (p->need_mib > host_available_mib)
		return error_set(err, prefix,
				 "the guest does not fit in this host's memory: it needs %lu MiB "
				 "(guest RAM %lu MiB on %u nodes + QEMU about %lu MiB for %u vCPUs + "
				 "%lu MiB kept for the host) but %lu MiB are available (%lu MiB in "
				 "all): use smaller nodes",
				 p->need_mib, p->guest_mib, p->nr_nodes, p->qemu_mib, p->vcpus,
				 p->host_reserve_mib, host_available_mib, host_total_mib);
	return 0;
}

json_t *memplan_to_json(const struct memplan *p)
{
	json_t *nodes = json_array();

	for (unsigned i = 0; nodes && i < p->nr_nodes; i++) {
		const struct memplan_node *n = &p->nodes[i];

		if (json_array_append_new(nodes, json_pack("{s:I,s:I,s:I,s:I}", "id",
							   (json_int_t)n->id, "vcpus",
							   (json_int_t)n->vcpus, "memory_mib",
							   (json_int_t)n->memory_mib, "min_mib",
							   (json_int_t)n->min_mib)) < 0) {
			json_decref(nodes);
			return NULL;
		}
	}
	return json_pack("{s:I,s:I,s:I,s:I,s:o*}", "guest_mib", (json_int_t)p->guest_mib,
			 "qemu_mib", (json_int_t)p->qemu_mib, "host_reserve_mib",
			 (json_int_t)p->host_reserve_mib, "need_mib", (json_int_t)p->need_mib,
			 "nodes", nodes);
}

unsigned memplan_fit(const struct memplan *p, unsigned long host_available_mib)
{
	unsigned long each = p->guest_mib + p->qemu_mib;

	if (host_available_mib <= p->host_reserve_mib || !each)
		return 0;
	return (unsigned)((host_available_mib - p->host_reserve_mib) / each);
}
