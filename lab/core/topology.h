/* A guest NUMA topology: CPU topology plus NUMA cells.  Pure: parse, validate, convert. */
#pragma once
#include <jansson.h>

#include "util/error.h"

#define TOPO_MAX_VCPUS 1024
#define TOPO_MAX_NODES 64

struct topo_node {
	unsigned id;
	unsigned long memory_mib;
	unsigned nr_cpus;
	unsigned *cpus; /* sorted ascending */
};

struct topology {
	char name[64];
	unsigned sockets, dies, cores, threads; /* vcpus = product */
	unsigned vcpus;
	unsigned nr_nodes;
	struct topo_node *nodes;  /* index i has id i */
	unsigned *distances;      /* nr_nodes * nr_nodes, row-major SLIT values */
};

/* Topology JSON (configs/topologies/NAME.json) -> struct.  `path` is the JSON path prefix used in
 * errors (e.g. "topology").  On error *err names the path and the reason; *t is left empty. */
int topology_from_json(const json_t *j, const char *path, struct topology *t,
		       struct lab_error *err);
/* The "requested"/"observed" report shape: {"nodes":[{"id","cpus":[..],"memory_mib"}],
 * "distances":[[..]]} plus the CPU topology fields when with_cpu_topology. */
json_t *topology_to_report_json(const struct topology *t, int with_cpu_topology);
void topology_free(struct topology *t);
unsigned long topology_memory_mib(const struct topology *t);
/* Format a sorted CPU list as "0-3,8" into buf. */
int topology_cpulist(const unsigned *cpus, unsigned n, char *buf, unsigned long len);
