/* NUMA latency presets (configs/numa/NAME.json, described in configs/numa/README.md): the
 * latencies the NUMA cost model (core/numacost.h) charges, each figure with its source and
 * whether it is measured or an estimate, and the factor ipns that turns ns into
 * instruction-times.  Read from JSON with JSON-path errors, checked against the topology a job
 * boots, written as the canonical text a key is the sha256 of, and turned into a model.
 * Pure: callers read the files. */
#pragma once
#include <jansson.h>
#include <stdint.h>

#include "core/numacost.h"
#include "core/topology.h"
#include "util/error.h"

/* The canonical form's schema: changes when what it holds changes. */
#define NUMAPRESET_SCHEMA "numalab.numapreset/1"
/* The first line of the NUMA cost plugin's configuration (numapreset_plugin_cfg()). */
#define NUMAPRESET_CFG_SCHEMA "numalab.numacost-cfg/1"
#define NUMAPRESET_MAX_PATHS 32
#define NUMAPRESET_PATH_NAME 32 /* room for a path's name: [a-z0-9_]{1,31} */

/* One figure (a latency in ns, or ipns) and where it comes from. */
struct numa_figure {
	double value;
	int estimate; /* 1: no measurement behind it, a guess to calibrate */
	char *source;
};

/* What a cache line crosses between two nodes ("local", "remote", "hop2"): the matrix's cells
 * name one, so that a figure is written, and sourced, once. */
struct numa_path {
	char name[NUMAPRESET_PATH_NAME];
	struct numa_figure c2c; /* a modified line from a cache on the other node */
	struct numa_figure mem; /* DRAM of the other node */
};

struct numa_preset {
	char name[64];
	char *machine; /* the machine it stands for, in words */
	unsigned nr_nodes;
	struct numa_figure ipns; /* instruction-times per ns */
	unsigned nr_paths;
	struct numa_path *paths;
	unsigned *matrix; /* nr_nodes x nr_nodes path indexes, row-major: from row to column */
};

/* A preset file's JSON -> *p.  path is the JSON path prefix of errors ("" for a file of its
 * own).  On error *err names the path and the reason and *p is left empty. */
int numapreset_from_json(const json_t *j, const char *path, struct numa_preset *p,
			 struct lab_error *err);
void numapreset_free(struct numa_preset *p);
/* 1 when ipns or a latency the matrix uses is an estimate. */
int numapreset_is_estimate(const struct numa_preset *p);
/* The nr_nodes x nr_nodes matrix of c2c (mem = 0) or DRAM (mem = 1) latencies in ns. */
void numapreset_matrix_ns(const struct numa_preset *p, int mem, double *out);

/* The canonical form, as text: the preset without its words (machine, sources), which decide
 * no charge, one fact a line: the schema; "name NAME"; "nodes N"; "ipns VALUE E"; for each
 * path by name "path NAME c2c NS E mem NS E"; for each row of the matrix "row A NAME...";
 * E is "estimate" or "measured".  Caller frees; NULL on ENOMEM. */
char *numapreset_canonical(const struct numa_preset *p);
/* sha256 of numapreset_canonical(): what a report or a cache key records of the preset. */
int numapreset_sha256(const struct numa_preset *p, char out[65]);

/* Whether p fits topology t: the same number of nodes, and latencies shaped like t's distance
 * table (pairs at one distance have one latency; a longer distance never a shorter one), in
 * c2c and in mem.  -EINVAL with err at path.nodes or path.matrix[A][B], naming the preset and
 * the topology. */
int numapreset_check_topology(const struct numa_preset *p, const char *path,
			      const struct topology *t, struct lab_error *err);

/* A model for t with p's latencies: checked as numapreset_check_topology() does, and t at most
 * NUMACOST_MAX_VCPUS vCPUs (else -EINVAL at path).  below_4g: QEMU's below_4g_mem_size for
 * t's memory (q35: lab/core/memfit.c's rule); max_lines: the directory's capacity, 0 for the
 * default. */
int numapreset_model_new(const struct numa_preset *p, const char *path, const struct topology *t,
			 uint64_t below_4g, unsigned max_lines, struct numacost **out,
			 struct lab_error *err);

/* The configuration the NUMA cost plugin (lab/plugin/numacost.c) reads, as text, one fact a
 * line in this order: NUMAPRESET_CFG_SCHEMA; "vcpus N"; "nodes N"; "vcpu_node" and each
 * vCPU's node in QEMU's order (t's nodes[].cpus); "node_mem" and each node's bytes;
 * "below_4g B" (QEMU's below_4g_mem_size, q35: memfit_below_4g()); "above_4g_start 0"
 * (QEMU's default); "ipns X"; "c2c" and "mem" each followed by the nodes x nodes latencies in
 * ns, row-major; "max_lines 0" (the default directory).  Integers in decimal, doubles as
 * %.17g (they read back exactly).  p must fit t (numapreset_check_topology()).  Caller frees;
 * NULL on ENOMEM or when p's and t's node counts differ. */
char *numapreset_plugin_cfg(const struct numa_preset *p, const struct topology *t,
			    uint64_t below_4g);
