/* A job file (configs/NAME.json) -> validated struct.  Pure: no I/O except through the loader
 * callback that resolves topology names to files. */
#pragma once
#include <jansson.h>
#include <limits.h>

#include "core/topology.h"
#include "util/error.h"

#define JOB_MAX_WORKLOADS 64
#define JOB_MAX_REPEATS 1000

struct job_workload {
	char name[32];
	json_t *params;    /* validated, defaults filled in; what the guest runner receives */
	double timeout_s;  /* per-workload timeout inside the guest; 0 = none */
};

enum job_fault {
	JOB_FAULT_NONE = 0,
	JOB_FAULT_PANIC,   /* agent triggers a kernel panic after hello (tests) */
	JOB_FAULT_HANG,    /* agent stops all output after hello (tests) */
};

struct job {
	char name[64];
	char topology_ref[PATH_MAX]; /* name or path as written in the job; "" when inline */
	struct topology topo;
	char kernel_image[PATH_MAX]; /* as written; may hold a glob such as /boot/vmlinuz-* */
	char kernel_cmdline[1024];   /* extra kernel command-line arguments */
	unsigned repeats;
	unsigned nr_workloads;
	struct job_workload *workloads;
	double boot_timeout_s;       /* 0 = derive from vCPU count */
	double progress_timeout_s;   /* 0 = default: silence this long after boot is a hang */
	enum job_fault fault;
};

/* Resolves a topology reference (name like "4s-8c" or a path) to parsed JSON.  Returns 0 or a
 * negative errno and fills err.  The CLI supplies one that reads configs/topologies/. */
typedef int (*job_topology_loader)(const char *ref, void *userdata, json_t **out,
				   struct lab_error *err);

int job_from_json(const json_t *j, job_topology_loader load, void *userdata, struct job *job,
		  struct lab_error *err);
void job_free(struct job *job);
const char *job_fault_name(enum job_fault f);
