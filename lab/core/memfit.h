/* Whether a job's workloads fit in the guest's memory, node by node, checked when the job is
 * loaded, before anything boots.  A workload whose tasks bind their memory to their CPU's node
 * (membind "bind", the default) can only use that node: when the node is full the guest's OOM
 * killer kills the workload (constraint MEMORY_POLICY) even though other nodes are empty.  So
 * for each node: what the guest itself holds there (measured, below) and a margin, the huge
 * page pool the job's knobs put there, and the most any one workload binds there (workloads
 * run one after another, each task count of a sweep after the other) must fit in the node's
 * memory.  Memory that is not node-bound
 * (membind "local", "interleave", "none") may spill to any node: it must fit in what all nodes
 * have left.  Pure: the footprints come from how each runner maps and touches its memory
 * (the runners, memfit.c says which). */
#pragma once
#include <jansson.h>

#include "core/job.h"
#include "util/jsonpath.h"
#include "util/error.h"

/* The guest's own share of each node: what a task bound there cannot have before any workload
 * runs.  Measured (lab/tests/data/memfit/measured/, made by lab/tests/bench-memfit.sh; memfit.c
 * says what each part is and where it lies), it is per node:
 * - the struct page array, 1/MEMFIT_STRUCT_PAGE_DIV of the node;
 * - the min watermark the kernel keeps free, and the lowmem reserves of its lower zones
 *   (computed, memfit.c); on the node with the first MiB of RAM, MEMFIT_FIRMWARE_MIB that
 *   the firmware keeps;
 * - MEMFIT_NODE_KIB, and MEMFIT_VCPU_KIB per vCPU on the node;
 * - MEMFIT_KERNEL_MIB: the kernel image, on whichever node KASLR loads it, so on every node;
 * - MEMFIT_BOOT_MIB and MEMFIT_BOOT_VCPU_KIB per vCPU of the guest on the node of CPUs 0 and
 *   1, which run the boot: the initramfs's files and what the boot allocates there; when the
 *   two are on two nodes, up to MEMFIT_BOOT_ONE_MIB of the first on either;
 * - MEMFIT_SWIOTLB_MIB on the nodes within MEMFIT_SWIOTLB_WINDOW_MIB below the end of the RAM
 *   under 4 GiB, when the guest has RAM above 4 GiB: the DMA bounce buffer;
 * - on the node with the end of the RAM, MEMFIT_TOP_VCPU_KIB per vCPU of the guest: what the
 *   boot allocates for every CPU from the top of the memory;
 * - MEMFIT_MARGIN_MIB for what the measurements cannot show: the workload's own kernel
 *   memory beyond its pages (tasks, stacks, slab) and other kernels' sizes. */
#define MEMFIT_STRUCT_PAGE_DIV 64ul
#define MEMFIT_FIRMWARE_MIB 2ul
#define MEMFIT_NODE_KIB 5632ul
#define MEMFIT_VCPU_KIB 1280ul
#define MEMFIT_KERNEL_MIB 44ul
#define MEMFIT_BOOT_MIB 30ul
#define MEMFIT_BOOT_VCPU_KIB 78ul
#define MEMFIT_BOOT_ONE_MIB 24ul
#define MEMFIT_SWIOTLB_MIB 64ul
#define MEMFIT_SWIOTLB_WINDOW_MIB 160ul
#define MEMFIT_TOP_VCPU_KIB 40ul
#define MEMFIT_MARGIN_MIB 16ul
#define MEMFIT_HUGEPAGE_KIB 2048ul

struct memfit_node {
	unsigned id;
	unsigned long memory_mib; /* the topology's */
	unsigned long guest_mib;  /* what the guest holds there before any workload, and the
				   * margin (MEMFIT_MARGIN_MIB) */
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
/* QEMU's below_4g_mem_size for t's memory on q35, bytes: the rule the zones above follow
 * (hw/i386/pc_q35.c), which the NUMA cost model's address map needs too (core/numacost.h). */
unsigned long long memfit_below_4g(const struct topology *t);
/* One workload with n tasks: its footprint per task in KiB (what it maps and touches, page
 * tables included; huge pages from the pool are not counted: the pool is), and whether that
 * memory is bound to the task's node. */
unsigned long long memfit_task_kib(const struct job_workload *w, unsigned n, int *bound);
