/* Run results -> the run report, the report.json `lab run` writes for a job (schema
 * numalab.report/1, see reports/SCHEMA.md).  Not `lab report`, which reads such reports and
 * draws the dashboard (lab/analysis/dashboard.h).  Pure: one converter from the C structs to
 * JSON; writing the file is the caller's job. */
#pragma once
#include <jansson.h>

#include "core/collect.h"
#include "core/job.h"
#include "core/outcome.h"
#include "core/timing.h"

#define RUNREPORT_SCHEMA "numalab.report/1"
/* Largest report.json the lab reads back (`lab compare`, `lab report`, the history index): a
 * bound on untrusted input; 1000 series x 100 runs fit easily. */
#define RUNREPORT_MAX_SIZE (256u << 20)

struct run_host {
	char accel[8];           /* "tcg" | "kvm" */
	char accel_reason[256];
	char qemu_version[32];
	char libvirt_version[32];
	char uri[256];
	char class_name[64];     /* a label (lab run --host-class, a Slurm node feature under
				  * labd's Slurm backend): lab compare keeps classes apart; "" none */
	unsigned long mem_total_mib, mem_available_mib; /* 0: not read */
	enum timing_model timing;          /* the run's timing model (lab/core/timing.h) */
	char timing_reason[256];
	unsigned quantum;                  /* a model with rounds: its quantum, else 0 */
	char qemu_build[65];               /* ... and the key of the lab's QEMU build (core/
					    * qemusrc.h) that ran it, else "" */
	char qemu_binary[4096];            /* ... and that build's binary, else "" */
	char numa_preset[64];              /* ... and with the NUMA cost model ("numa_cost",
					    * core/job.h) its preset's name, else "" */
	char numa_sha256[65];              /* ... its key (numapreset_sha256()) */
	double numa_ipns;                  /* ... its instruction-times per ns */
	unsigned guests_at_once;           /* the most of the job's guests running at once while
					    * this one ran, itself included; 0: not recorded */
};

struct run_record {
	unsigned index, repeat;
	enum outcome outcome;
	char reason[512];
	enum guest_end end;
	struct run_host host;
	char kernel_image[4096];
	char kernel_cmdline[2048];
	json_t *kernel_extra;             /* merged into "kernel" (label, variant, config, ...);
					   * borrowed, may be NULL */
	json_t *image_extra;              /* a disk-booted run's "image" and "postmortem" keys
					   * (lab/run/disk.c), merged into the run; borrowed */
	const struct job *job;
	const struct guest_log *log;      /* may be NULL when the guest never started */
	const struct console_scan *console;
	char console_file[256];           /* relative to the report directory */
	double boot_s, first_workload_s, workload_s, total_s; /* -1 = not reached */
	double shutdown_s;                /* agent done -> domain gone */
	double start_s;                   /* libvirt's domain start, inside boot_s (0: unknown) */
	/* The longest wait for a progress line after hello, and the guest's host CPU seconds in
	 * it (-1 unknown): how close the run came to its progress timeout, and whether a
	 * silence was the guest's or the host's (a busy host runs the guest slowly). */
	double silence_s, silence_cpu_s;
	json_t *noise;                    /* host.noise (lab/core/hostnoise.h); borrowed, may be
					   * NULL */
	json_t *artifacts;                /* host.artifacts: what reached a remote host and how
					   * (lab/run/boot.c); borrowed, may be NULL */
	int has_seed;                     /* "seed": the boot's QEMU -seed (deterministic model
					   * only; else null) */
	unsigned long long seed;
};

json_t *runreport_run_json(const struct run_record *r);
/* created: ISO-8601 UTC. runs: array built from runreport_run_json. Status = worst outcome. */
json_t *runreport_json(const char *id, const char *created, const struct job *job,
		       const char *job_file, json_t *runs, enum outcome status);
