/* Boot one guest with a guest job and bring back what happened: the common path of `lab run`
 * and of the KVM probe. */
#pragma once
#include <jansson.h>
#include <signal.h>

#include "core/collect.h"
#include "core/domain.h"
#include "core/outcome.h"
#include "core/topology.h"
#include "virt/virt.h"

struct boot_params {
	const char *run_dir;      /* created; holds console.log, results.jsonl, domain.xml */
	const char *name;         /* libvirt domain name, must start with "numalab-" */
	const char *kernel;
	const char *cmdline;      /* complete kernel command line */
	const struct topology *topo;
	enum domain_accel accel;   /* the timing model's (lab/core/timing.h) */
	unsigned long long seed;   /* QEMU's -seed under icount (core/domain.h) */
	unsigned quantum;          /* the contention model's round (core/domain.h); 0: none */
	const char *emulator;      /* the QEMU binary; NULL: the system's */
	const char *plugin;        /* QEMU's -plugin value (run/lockinsn_plugin.h); NULL: none */
	const char *plugin2;       /* a second one (run/profile_plugin.h); NULL: none */
	const char *runners_dir;
	const json_t *guestjob;
	const char *kernel_config; /* the build's .config: the agent sends only that its own is
				    * the same (NULL, or a disk boot: it sends its own) */
	unsigned nr_workloads;
	size_t channel_max, console_max; /* bytes the guest may send on each (0: the most) */
	int keep_initrd;           /* keep run_dir/initrd.cpio (benchmarks replay it) */
	const char *pool_dir;      /* a remote host (vc->remote): the directory of the lab's
				    * storage pool there (virt/volume.h); NULL: the default */
	const char *disk_base;     /* a remote host: the image disk's overlay is backed by this
				    * (uploaded once, by hash); the local overlay gets the run's
				    * disk back after the run */
	const char *disk;          /* boot from this image overlay (absolute, qcow2) through the
				    * stage-1 initramfs (lab/run/diskboot.h); NULL: initramfs */
	char *why;                 /* when set, a lab-side failure is explained here */
	size_t why_len;
	double boot_timeout_s, boot_silence_s, progress_timeout_s, total_timeout_s;
	double progress_min_cpu_s, progress_starved_max_s; /* struct guest_watch; 0: wall only */
	volatile sig_atomic_t *interrupt;
};

struct boot_result {
	struct guest_watch_result g;
	json_t *artifacts;         /* a remote host: {"kernel","initrd"[,"disk"]: {"volume",
				    * "bytes","cached","seconds"}}; NULL on this machine */
	unsigned long long up_bytes; /* bytes uploaded, uploads and cache hits, upload seconds */
	unsigned uploads, hits;
	double up_s;
	struct guest_log log;
	struct console_scan console;
	char start_error[512];
};

/* Returns 0 when the guest was started and watched (see res->g.end for how it went), or a
 * negative errno for a lab-side failure (files, XML). res must be freed either way. */
int boot_run(struct virt_conn *vc, const struct boot_params *bp, struct boot_result *res);
void boot_result_free(struct boot_result *res);
/* CPUs a TCG guest boots with when the agent brings the rest online afterwards. */
#define BOOT_EARLY_CPUS 2

/* Whether a guest of vcpus boots with maxcpus=BOOT_EARLY_CPUS and has its agent online the
 * others ("online_after_boot" in the guest job, runners/rt_online.c says why): under TCG,
 * above BOOT_EARLY_CPUS, unless extra (the job's command line, may be NULL) already limits
 * the CPUs (maxcpus=, nr_cpus=, nosmp). */
int boot_online_after(int kvm, unsigned vcpus, const char *extra);

/* The kernel command line the lab always uses for kernel_image (lpj= when it can be derived,
 * see lpj_of() in run/boot.c; under TCG, kvm == 0: tsc=reliable, no boot-time RCU stall
 * dumps, serial CPU bring-up; maxcpus=BOOT_EARLY_CPUS when online_after,
 * boot_online_after()'s answer), plus
 * extra (may be NULL; a user's own lpj=, tsc= or cpuhp.parallel= wins). Caller frees. */
char *boot_cmdline(const char *kernel_image, int kvm, int online_after, const char *extra);
