/* The NUMA cost model's engine: what an access to a tracked 64-byte cache line costs the vCPU
 * that makes it, in instruction-times (one instruction-time = one guest ns at icount shift=0),
 * from a directory of the lines (owner, sharers, the time of the last write, home node), the
 * vCPUs' nodes and a latency matrix per node pair.  It is the charge the contention model adds
 * to the quantum model's rounds: a vCPU that has to fetch a line another vCPU wrote waits for
 * it, so a contended lock costs more across sockets than within one.
 *
 * Pure C and nothing else: no I/O, no jansson, no glib, no host time, no pointer-keyed hashing,
 * so that a QEMU TCG plugin can compile it as it is, and the state is a function of the order
 * of the calls alone (the same trace gives the same charges and counters, byte for byte).
 *
 * The charges (per access by vCPU v at clock t, its own guest clock in instruction-times):
 *
 *   load       v has a copy since the last write, or nobody wrote the line: 0
 *   load       last written by o != v: max(0, wtime - t) + c2c(node v, node o); v joins the
 *              sharers
 *   store/RMW  v is the only holder, or nobody holds it: 0
 *   store/RMW  other vCPUs hold copies: max(0, wtime - t) + max over those holders h of
 *              c2c(node v, node h); v becomes owner and sole holder
 *
 * wtime is the writer's clock when its write completed: its t plus what that write was
 * charged, since a store that waited for the line is not visible before it has it.  The
 * max(0, wtime - t) term forwards the clock (Graphite's lax synchronisation): a vCPU run
 * earlier in the round than the writer would otherwise see the write "from the future" for
 * free.  A line enters the directory on its first access, free (no DRAM charge yet); lines
 * never leave it.  With every c2c latency 0 (or ipns 0) every charge is 0, forwarding
 * included: the plain quantum model, with the transfers still counted. */
#pragma once
#include <stdint.h>

#define NUMACOST_LINE_SHIFT 6 /* 64-byte lines */
#define NUMACOST_MAX_VCPUS 512
#define NUMACOST_MAX_NODES 64
/* The SRAT layout cuts node memory at most twice (the 640 KiB hole, the below-4G end). */
#define NUMACOST_MAX_RANGES (NUMACOST_MAX_NODES + 2)
#define NUMACOST_DEFAULT_LINES (1u << 16)
#define NUMACOST_MAX_LINES (1u << 26)
/* Largest latency in ns and largest ns-to-instruction-times factor taken: a charge must stay
 * far from overflowing a guest clock. */
#define NUMACOST_MAX_NS 100000.0
#define NUMACOST_MAX_IPNS 100.0
/* QEMU's x86 above_4g_mem_start, when nothing moves it (AMD's 1 TiB hole does). */
#define NUMACOST_4G (1ull << 32)

enum numacost_op {
	NUMACOST_LOAD,
	NUMACOST_STORE,
	NUMACOST_RMW, /* a locked read-modify-write: costs as a store */
	NUMACOST_OP__COUNT,
};

/* Guest-physical [base, base + len) belongs to node. */
struct numacost_range {
	uint64_t base, len;
	unsigned node;
};

struct numacost_config {
	unsigned nr_vcpus;            /* 1..NUMACOST_MAX_VCPUS */
	unsigned nr_nodes;            /* 1..NUMACOST_MAX_NODES */
	const unsigned *vcpu_node;    /* nr_vcpus entries, each < nr_nodes */
	const uint64_t *node_mem;     /* bytes of RAM per node, in node order */
	uint64_t below_4g;            /* QEMU's below_4g_mem_size (q35: memfit.c's rule) */
	uint64_t above_4g_start;      /* QEMU's above_4g_mem_start; 0 for NUMACOST_4G */
	const double *c2c_ns;         /* nr_nodes x nr_nodes, row-major; NULL for all 0 */
	const double *mem_ns;         /* same, DRAM; kept for the DRAM tier, not charged yet */
	double ipns;                  /* instruction-times per ns, 0..NUMACOST_MAX_IPNS */
	unsigned max_lines;           /* directory capacity; 0 for NUMACOST_DEFAULT_LINES */
};

/* One vCPU's counters, for a report. */
struct numacost_stats {
	uint64_t accesses;
	/* Transfers: loads of a line another vCPU wrote last, stores to a line other vCPUs hold
	 * (what the table charges; counted also when the latencies are 0).  Remote when the
	 * writer, or any holder, is on another node. */
	uint64_t transfers_local;
	uint64_t transfers_remote;
	uint64_t invalidations;    /* other vCPUs' copies this vCPU's stores invalidated */
	uint64_t charged;          /* instruction-times, forwarding included */
	uint64_t forwarded;        /* the part of charged that was clock forwarding */
};

struct numacost;

/* QEMU's guest-physical layout of the nodes' memory, as build_srat() in
 * hw/i386/acpi-build.c writes the SRAT's memory affinity entries: the nodes laid out from
 * address 0 in node order, each node's range cut at the 640 KiB hole (0xa0000-0xfffff: what
 * falls in it belongs to no node, and the node's memory does not move past it) and at
 * below_4g, where the rest of that node and every later node continue from above_4g_start
 * (0: NUMACOST_4G).  Fills out (room for nr_nodes + 2 ranges), ascending, and *nr.  -EINVAL
 * for no nodes, more than NUMACOST_MAX_NODES, or below_4g above above_4g_start. */
int numacost_srat(const uint64_t *node_mem, unsigned nr_nodes, uint64_t below_4g,
		  uint64_t above_4g_start, struct numacost_range *out, unsigned *nr);

/* A model with an empty directory and zeroed counters; the config's arrays are copied.
 * -EINVAL for a config out of range (sizes, a vCPU's node, a latency not in
 * 0..NUMACOST_MAX_NS, ipns), -ENOMEM. */
int numacost_new(const struct numacost_config *cfg, struct numacost **out);
void numacost_free(struct numacost *m);

/* The charge of one access, in instruction-times (>= 0), with the directory and v's counters
 * updated; -EINVAL for a vCPU or op out of range, -ENOSPC when the line is new and the
 * directory is full (nothing changed: the caller decides whether that access is free). */
int64_t numacost_access(struct numacost *m, unsigned vcpu, enum numacost_op op, uint64_t pa,
			uint64_t clock);

/* Whether pa's line is in the directory (1) or not (0): a caller that acts only on lines
 * something else brought in (a byte store of 0 is a release only on a lock's line). */
int numacost_tracked(const struct numacost *m, uint64_t pa);

/* The node whose memory holds pa, or -ENOENT (a hole, beyond the RAM). */
int numacost_pa_node(const struct numacost *m, uint64_t pa);
/* The node of a vCPU, or -EINVAL. */
int numacost_vcpu_node(const struct numacost *m, unsigned vcpu);
/* The latencies from node a to node b in instruction-times: round(ns * ipns); 0 when out of
 * range. */
uint64_t numacost_c2c(const struct numacost *m, unsigned a, unsigned b);
uint64_t numacost_mem(const struct numacost *m, unsigned a, unsigned b);
/* v's counters into *out; -EINVAL for a vCPU out of range. */
int numacost_stats(const struct numacost *m, unsigned vcpu, struct numacost_stats *out);
/* Lines in the directory. */
unsigned numacost_lines(const struct numacost *m);
