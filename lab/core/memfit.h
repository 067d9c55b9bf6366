/* Whether a job's workloads fit in the guest's memory, node by node, checked when the job is
 * loaded, before anything boots.  A workload whose tasks bind their memory to their CPU's node
 * (membind "bind", the default) can only use that node: when the node is full the guest's OOM
 * killer kills the workload (constraint MEMORY_POLICY) even though other nodes are empty.  So
 * for each node: what the guest itself needs there (memplan's per-node minimum plus what the
 * kernel keeps out of the allocator), the huge page pool the job's knobs put there, and the
 * most any one workload binds there (workloads run one after another, each task count of a
 * sweep after the other) must fit in the node's memory.  Memory that is not node-bound
 * (membind "local", "interleave", "none") may spill to any node: it must fit in what all nodes
 * have left.  Pure: the footprints come from how each runner maps and touches its memory
 * (the runners, memfit.c says which). */
#pragma once
#include <jansson.h>

#include "core/job.h"
#include "util/jsonpath.h"
#include "util/error.h"

/* Kept out of the allocator on every node beside memplan's minimum: the struct page array
 * (64 bytes per 4 KiB page, 1/64 of the node) and the kernel image with what is allocated
 * beside it at boot, on whichever node KASLR loads it (memfit.c says how it was measured). */
#define MEMFIT_STRUCT_PAGE_DIV 64ul
#define MEMFIT_KERNEL_MIB 48ul
/* What varies from boot to boot and kernel to kernel beyond that (the initramfs's files grow
 * with the runners, slab with the tasks): about 15 % of the guest's share. */
#define MEMFIT_MARGIN_MIB 16ul
#define MEMFIT_HUGEPAGE_KIB 2048ul

struct memfit_node {
	unsigned id;
	unsigned long memory_mib; /* the topology's */
	unsigned long guest_mib;  /* what the guest needs there before any workload */
	unsigned long pool_mib;   /* huge page pool the knobs ask for there */
	unsigned long bound_kib;  /* the most one workload binds there */
	int worst;                /* that workload's index, -1 when none binds here */
	unsigned worst_tasks;     /* ... and its task count */
};

struct memfit {
	unsigned nr_nodes;
	struct memfit_node nodes[TOPO_MAX_NODES];
	unsigned long spill_kib;  /* the most one workload places without a node binding */
	int spill_worst;          /* its index, -1 when none */
	unsigned spill_tasks;
	char pool_path[JSONPATH_LEN]; /* where the pool was asked for: "knobs.nr_hugepages" or
				       * "kernels[i].knobs.nr_hugepages" */
};

/* Each workload's footprint and placement, from the job's validated params and the knobs one
 * of its kernels' runs get (job_kernel_knobs; their JSON path knobs_path, for errors). */
void memfit_build(const struct job *job, const json_t *knobs, const char *knobs_path,
		  struct memfit *m);
/* 0 when everything fits, else -EINVAL with err at the worst workload's
 * "workloads[i].params.memory_mib" (or the pool's path when the pool alone does not fit)
 * naming, per node that does not fit, what it needs and what it has. */
int memfit_check(const struct job *job, const struct memfit *m, struct lab_error *err);
/* memfit_build + memfit_check for the runs of every kernel of job, each with its knobs (a
 * knob set that reserves huge pages is checked with its pool); the first error. */
int memfit_check_job(const struct job *job, struct lab_error *err);
/* {"nodes": [{"id", "memory_mib", "guest_mib", "pool_mib", "bound_mib", "need_mib",
 * "worst"}], "spill_mib", "spill_worst"} for golden tests and reports. */
json_t *memfit_to_json(const struct memfit *m);
/* One workload with n tasks: its footprint per task in KiB (what it maps and touches, page
 * tables included; huge pages from the pool are not counted: the pool is), and whether that
 * memory is bound to the task's node. */
unsigned long long memfit_task_kib(const struct job_workload *w, unsigned n, int *bound);
