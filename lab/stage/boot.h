/* Boot one guest with a guest job and bring back what happened: the common path of `lab run`
 * and of the KVM probe. */
#pragma once
#include <jansson.h>
#include <signal.h>

#include "core/collect.h"
#include "core/outcome.h"
#include "core/topology.h"
#include "virt/virt.h"

struct boot_params {
	const char *run_dir;      /* created; holds console.log, results.jsonl, domain.xml */
	const char *name;         /* libvirt domain name, must start with "numalab-" */
	const char *kernel;
	const char *cmdline;      /* complete kernel command line */
	const struct topology *topo;
	int kvm;
	const char *runners_dir;
	const json_t *guestjob;
	unsigned nr_workloads;
	int keep_initrd;           /* keep run_dir/initrd.cpio (benchmarks replay it) */
	const char *disk;          /* boot from this image overlay (absolute, qcow2) through the
				    * stage-1 initramfs (lab/stage/diskboot.h); NULL: initramfs */
	char *why;                 /* when set, a lab-side failure is explained here */
	size_t why_len;
	double boot_timeout_s, boot_silence_s, progress_timeout_s, total_timeout_s;
	volatile sig_atomic_t *interrupt;
};

struct boot_result {
	struct guest_outcome g;
	struct guest_log log;
	struct console_scan console;
	char start_error[512];
};

/* Returns 0 when the guest was started and watched (see res->g.end for how it went), or a
 * negative errno for a lab-side failure (files, XML). res must be freed either way. */
int boot_run(struct virt_conn *vc, const struct boot_params *bp, struct boot_result *res);
void boot_result_free(struct boot_result *res);
/* The kernel command line the lab always uses for kernel_image (lpj= when it can be derived,
 * see kparams.h; under TCG, kvm == 0, tsc=reliable and no boot-time RCU stall dumps), plus
 * extra (may be NULL; a user's own lpj= or tsc= wins). Caller frees. */
char *boot_cmdline(const char *kernel_image, int kvm, const char *extra);
